"""`@tool` functions served in-process to the real CLI, against FakeMessagesAPI.

The fake model calls ``mcp__calc__<tool>`` directly (the CLI defers in-process tools behind
ToolSearch, but executes a direct call); the next API request shows what the tool answered.
"""

from __future__ import annotations

import json
from typing import Annotated

import attrs

import claude_sdk as cs
from claude_sdk.tools import SdkMcpServer, ToolContext, create_sdk_mcp_server, tool

from .conftest import E2E


@attrs.frozen
class Pair:
    """Two numbers."""

    a: float
    b: float


@attrs.frozen
class Total:
    value: float
    op: str


def calc(seen: list[str | None] | None = None) -> SdkMcpServer:
    @tool(description="Add a pair of numbers")
    async def add(pair: Pair, ctx: ToolContext) -> Total:
        if seen is not None:
            seen.append(ctx.tool_use_id)
        return Total(value=pair.a + pair.b, op="add")

    @tool
    def mul(a: Annotated[float, "first factor"], b: float = 1.0) -> str:
        """Multiply two numbers."""
        return str(a * b)

    @tool
    async def divide(a: float, b: float) -> str:
        """Divide a by b."""
        if b == 0:
            raise ZeroDivisionError("cannot divide by zero")
        return str(a / b)

    return create_sdk_mcp_server("calc", tools=[add, mul, divide])


ALL = ["mcp__calc__add", "mcp__calc__mul", "mcp__calc__divide"]


async def test_a_typed_tool_returns_structured_content(e2e: E2E) -> None:
    seen: list[str | None] = []
    e2e.api.reply(tool_use=("mcp__calc__add", {"pair": {"a": 2, "b": 3.5}}))
    e2e.api.reply(text="the sum is 5.5")
    options = e2e.options(mcp_servers={"calc": calc(seen)}, allowed_tools=ALL)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("add 2 and 3.5")
        messages = [m async for m in session.receive_response()]
        status = await session.mcp_status()
    result = e2e.api.main_requests[1].tool_results[0]
    assert not result.is_error
    assert json.loads(result.text) == {"value": 5.5, "op": "add"}
    assert seen == [result.tool_use_id]  # ToolContext carried the Claude tool-use id
    init = next(m for m in messages if isinstance(m, cs.InitMessage))
    assert set(ALL) <= set(init.tools or [])
    assert isinstance(messages[-1], cs.ResultMessage)
    assert messages[-1].result == "the sum is 5.5"
    (server,) = status.mcp_servers or []
    assert (server.name, server.status) == ("calc", "connected")


async def test_a_tool_that_raises_reaches_the_model_as_an_error(e2e: E2E) -> None:
    e2e.api.reply(tool_use=("mcp__calc__divide", {"a": 1, "b": 0}))
    e2e.api.reply(tool_use=("mcp__calc__divide", {"a": "one", "b": 2}))
    e2e.api.reply(text="cannot do that")
    options = e2e.options(mcp_servers={"calc": calc()}, allowed_tools=ALL)
    reply = await cs.ask("divide 1 by 0", options=options, transport=e2e.transport())
    assert reply.text == "cannot do that"
    raised = e2e.api.main_requests[1].tool_results[0]
    assert raised.is_error
    assert "ZeroDivisionError: cannot divide by zero" in raised.text
    invalid = e2e.api.main_requests[2].tool_results[0]
    assert invalid.is_error
    assert 'a: expected number, got string "one"' in invalid.text


async def test_two_tool_calls_in_one_assistant_turn(e2e: E2E) -> None:
    asked: list[str] = []

    async def allow(
        name: str, tool_input: dict[str, object], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        asked.append(name)
        return cs.PermissionAllow()

    e2e.api.reply(
        tool_use=[
            ("mcp__calc__add", {"pair": {"a": 1, "b": 2}}),
            ("mcp__calc__mul", {"a": 3, "b": 4}),
        ]
    )
    e2e.api.reply(text="3 and 12")
    options = e2e.options(mcp_servers={"calc": calc()}, can_use_tool=allow)
    reply = await cs.ask("add and multiply", options=options, transport=e2e.transport())
    assert reply.text == "3 and 12"
    assert sorted(asked) == ["mcp__calc__add", "mcp__calc__mul"]
    results = {r.tool_use_id: r for r in e2e.api.main_requests[1].tool_results}
    assert len(results) == 2
    assert not any(r.is_error for r in results.values())
    assert json.loads(results["toolu_fake_1"].text) == {"value": 3.0, "op": "add"}
    assert results["toolu_fake_2"].text == "12.0"
