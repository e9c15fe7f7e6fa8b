"""Structured output you can rely on, with the real CLI (offline, FakeMessagesAPI).

When ``output_format`` asks for structured output, ``ask()`` returns only what validates: a
result without it, or with one the class refuses, raises `StructuredOutputError` (a
`ResultError` of kind ``structured_output``) and the `ResultMessage` says why in
``structured_output_error``; a fitting one passes untouched.
"""

from __future__ import annotations

import attrs
import pydantic
import pytest

import claude_sdk as cs

from .conftest import E2E


@attrs.frozen
class Answer:
    value: int
    reason: str


class Even(pydantic.BaseModel):
    value: int

    @pydantic.field_validator("value")
    @classmethod
    def _even(cls, v: int) -> int:
        if v % 2:
            raise ValueError("the value must be even")
        return v


async def test_a_fitting_structured_output_passes(e2e: E2E) -> None:
    e2e.api.reply(tool_use=("StructuredOutput", {"value": 4, "reason": "2 + 2"}))
    reply = await cs.ask(
        "2 + 2?", options=e2e.options(output_format=Answer), transport=e2e.transport()
    )
    assert reply.structured_output == Answer(value=4, reason="2 + 2")
    assert reply.result.structured_output_error is None


async def test_a_result_without_structured_output_raises(e2e: E2E) -> None:
    # The model answers in prose and never calls the StructuredOutput tool: the CLI nudges it
    # once, then ends the turn as a success without structured output.
    for _ in range(8):
        e2e.api.reply(text="four")
    options = e2e.options(output_format=Answer)
    with pytest.raises(cs.StructuredOutputError) as caught:
        await cs.ask("2 + 2?", options=options, transport=e2e.transport())
    error = caught.value
    assert isinstance(error, cs.ResultError)
    assert error.kind == "structured_output"
    assert error.retryable
    assert "no structured output" in error.problem
    assert error.result.subtype == "success"
    assert not error.result.is_error
    assert error.result.structured_output is None
    assert error.result.structured_output_error == error.problem


async def test_an_output_the_class_refuses_raises_and_is_flagged_in_the_stream(e2e: E2E) -> None:
    # {"value": 3} fits the JSON Schema (an integer), so the CLI accepts it; the class's own
    # validator refuses odd values.
    e2e.api.reply(tool_use=("StructuredOutput", {"value": 3}))
    options = e2e.options(output_format=Even)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("an even number, please")
        messages = [m async for m in session.receive_response()]
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.structured_output == {"value": 3}
    problem = result.structured_output_error
    assert problem is not None
    assert "even" in problem

    e2e.api.reply(tool_use=("StructuredOutput", {"value": 5}))
    with pytest.raises(cs.StructuredOutputError) as caught:
        await cs.ask("again", options=options, transport=e2e.transport())
    assert "even" in caught.value.problem
    assert caught.value.result.structured_output == {"value": 5}


async def test_without_output_format_nothing_is_checked(e2e: E2E) -> None:
    e2e.api.reply(text="four")
    reply = await cs.ask("2 + 2?", options=e2e.options(), transport=e2e.transport())
    assert reply.text == "four"
    assert reply.result.structured_output_error is None
