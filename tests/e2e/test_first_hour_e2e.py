"""The Tools guide's form against the real CLI (issue 30): the tool runs with no permission
option; the official SDK's ``@tool(name, description, schema)`` runs; a tool nobody
granted is reported with the fix. The fake model calls the tool; the next API request
shows what the CLI gave the model.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk.messages import PermissionDeniedMessage

from .conftest import E2E


def weather(seen: list[str]) -> cs.SdkMcpServer:
    @cs.tool
    async def get_temperature(city: str) -> str:
        """The temperature in a city."""
        seen.append(city)
        return f"21 degrees in {city}"

    return cs.create_sdk_mcp_server("weather", tools=[get_temperature])


async def test_the_guides_form_runs_the_tool(e2e: E2E) -> None:
    seen: list[str] = []
    e2e.api.reply(tool_use=("mcp__weather__get_temperature", {"city": "Paris"}))
    e2e.api.reply(text="It is 21 degrees.")
    options = e2e.options(mcp_servers={"weather": weather(seen)})
    reply = await cs.ask("temperature in Paris?", options=options, transport=e2e.transport())
    assert seen == ["Paris"]
    result = e2e.api.main_requests[1].tool_results[0]
    assert not result.is_error
    assert result.text == "21 degrees in Paris"
    assert reply.text == "It is 21 degrees."
    assert reply.permission_denials == ()


async def test_the_official_tool_form_runs(e2e: E2E) -> None:
    @cs.tool("add", "Add two numbers", {"a": float, "b": float})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    e2e.api.reply(tool_use=("mcp__calc__add", {"a": 2, "b": 3.5}))
    e2e.api.reply(tool_use=("mcp__calc__add", {"a": "two", "b": 1}))
    e2e.api.reply(text="5.5")
    calc = cs.create_sdk_mcp_server("calc", tools=[add])
    options = e2e.options(mcp_servers={"calc": calc})
    await cs.ask("add", options=options, transport=e2e.transport())
    first = e2e.api.main_requests[1].tool_results[0]
    assert (first.is_error, first.text) == (False, "5.5")
    second = e2e.api.main_requests[2].tool_results[0]
    assert second.is_error
    assert "Invalid arguments for tool 'add'" in second.text


@pytest.mark.parametrize("how", ["opt-out", "plan mode"])
async def test_a_refused_tool_is_reported_with_the_fix(
    e2e: E2E, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    seen: list[str] = []
    e2e.api.reply(tool_use=("mcp__weather__get_temperature", {"city": "Rome"}))
    e2e.api.reply(text="I could not.")
    extra: dict[str, Any] = (
        {"allow_in_process_tools": False} if how == "opt-out" else {"permission_mode": "plan"}
    )
    options = e2e.options(mcp_servers={"weather": weather(seen)}, **extra)
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        reply = await cs.ask("temperature?", options=options, transport=e2e.transport())
    assert seen == []  # the CLI did not run it
    (denial,) = reply.permission_denials
    assert isinstance(denial, PermissionDeniedMessage)
    assert denial.tool_name == "mcp__weather__get_temperature"
    if how == "opt-out":
        assert "haven't granted it yet" in (denial.message or "")
        assert "Options(allowed_tools=['mcp__weather'])" in denial.explanation
    else:
        assert denial.decision_reason_type == "mode"
        assert "Options.permission_mode" in denial.explanation
    assert any("refused mcp__weather__get_temperature" in r.getMessage() for r in caplog.records)
