"""In-process MCP servers, whole, against the real CLI (offline, FakeMessagesAPI; issue 18).

* A tool list that changes mid-session reaches the model: `SdkMcpServer.add_tool` sends
  ``notifications/tools/list_changed`` through a host ``mcp_message``, the CLI asks
  ``tools/list`` again, and the fake API's next request carries the new tool.
* A subclass of the low-level ``mcp.server.Server`` is served, and the notification it sends
  through its own session reaches the CLI the same way; so does an ``MCPServer`` tool's
  ``ctx.notify_tools_changed()`` (published on the server's subscription bus).
* A tool call longer than the CLI's per-call timeout (shortened here with
  ``MCP_TOOL_TIMEOUT``): raised through the server's config it works; otherwise the CLI
  cancels it, the handler is cancelled, and the host gets a `ToolCancelled` saying why.

``ENABLE_TOOL_SEARCH=false`` puts the MCP tools in the request's ``tools`` list itself (the
CLI otherwise defers them behind ToolSearch, PROTOCOL.md §12.4), so the test reads them there.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context  # module level: MCPServer resolves annotations

import claude_sdk as cs
from claude_sdk._protocol.launch import mcp_server_wire
from claude_sdk.testing.fake_api import RecordedRequest
from claude_sdk.tools import SdkMcpServer, ToolCancelled, ToolContext, create_sdk_mcp_server, tool

from .conftest import E2E

NO_DEFERRAL = {"ENABLE_TOOL_SEARCH": "false"}


def mcp_tools(request: RecordedRequest) -> list[str]:
    return sorted(name for name in request.tools if name.startswith("mcp__"))


def mcp_traffic(e2e: E2E) -> list[tuple[str, str, Any]]:
    """(direction, server, JSON-RPC message) of every ``mcp_message`` request on the wire."""
    out: list[tuple[str, str, Any]] = []
    for transport in e2e.transports:
        for _, direction, line in transport.log:
            frame = json.loads(line)
            request = frame.get("request") if frame.get("type") == "control_request" else None
            if isinstance(request, dict) and request.get("subtype") == "mcp_message":
                out.append((direction, request["server_name"], request["message"]))
    return out


def methods(e2e: E2E, direction: str) -> list[str]:
    return [m.get("method", "") for d, _, m in mcp_traffic(e2e) if d == direction]


@tool
async def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@tool
async def mul(a: int, b: int) -> str:
    """Multiply two numbers."""
    return str(a * b)


# ======================================================================================
# (a) notify_tools_changed


async def test_a_tool_added_between_turns_reaches_the_next_request(e2e: E2E) -> None:
    server = create_sdk_mcp_server("calc", tools=[add])
    e2e.api.reply(text="only add")
    e2e.api.reply(tool_use=("mcp__calc__mul", {"a": 6, "b": 7}))
    e2e.api.reply(text="42")
    e2e.api.reply(tool_use=("mcp__calc__mul", {"a": 2, "b": 2}))
    e2e.api.reply(text="no mul")
    options = e2e.options(
        mcp_servers={"calc": server},
        allowed_tools=["mcp__calc__add", "mcp__calc__mul"],
        env={**NO_DEFERRAL},
    )
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("first")
        [m async for m in session.receive_response()]
        await server.add_tool(mul)  # returns once the CLI acknowledged the notification
        await session.send("multiply")
        second = [m async for m in session.receive_response()]
        await server.remove_tool("mul")
        await session.send("multiply again")
        [m async for m in session.receive_response()]
    first_turn, asks_mul, after_mul, _, after_removal = e2e.api.main_requests
    assert mcp_tools(first_turn) == ["mcp__calc__add"]
    assert mcp_tools(asks_mul) == ["mcp__calc__add", "mcp__calc__mul"]
    assert after_mul.tool_results[0].text == "42"  # the new tool ran
    result = second[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.result == "42"
    # the host told the CLI twice, and the CLI listed the tools again each time
    assert methods(e2e, "sdk>cli") == ["notifications/tools/list_changed"] * 2
    assert methods(e2e, "cli>sdk").count("tools/list") == 3
    # A removed tool: the CLI got the shorter list and refuses a call of it itself (it may
    # keep the definition in the request for the rest of the conversation, as 2.1.330 does).
    removed = after_removal.tool_results[0]
    assert removed.is_error
    assert "mcp__calc__mul" in removed.text
    calls = [m for d, _, m in mcp_traffic(e2e) if m.get("method") == "tools/call"]
    assert [c["params"]["name"] for c in calls] == ["mul"]


async def test_a_tool_added_by_a_running_tool_is_offered_in_the_same_turn(e2e: E2E) -> None:
    server = create_sdk_mcp_server("calc", tools=[])

    @tool
    async def unlock() -> str:
        """Make the multiply tool available."""
        await server.add_tool(mul)
        return "unlocked"

    server.tools = (unlock,)
    e2e.api.reply(tool_use=("mcp__calc__unlock", {}))
    e2e.api.reply(tool_use=("mcp__calc__mul", {"a": 3, "b": 4}))
    e2e.api.reply(text="12")
    options = e2e.options(
        mcp_servers={"calc": server},
        allowed_tools=["mcp__calc__unlock", "mcp__calc__mul"],
        env={**NO_DEFERRAL},
    )
    reply = await cs.ask("unlock, then multiply", options=options, transport=e2e.transport())
    assert reply.text == "12"
    before, after, last = e2e.api.main_requests
    assert mcp_tools(before) == ["mcp__calc__unlock"]
    assert after.tool_results[0].text == "unlocked"
    assert mcp_tools(after) == ["mcp__calc__mul", "mcp__calc__unlock"]
    assert last.tool_results[0].text == "12"


# ======================================================================================
# (b) a subclass of mcp.server.Server, notifying through its own session


async def test_a_low_level_server_subclass_and_its_own_notification(e2e: E2E) -> None:
    from mcp import types
    from mcp.server import Server

    schema = {"type": "object", "properties": {}}

    class Notes(Server):
        """A server whose ``unlock`` tool adds ``write`` and says so through its session."""

        def __init__(self) -> None:
            super().__init__(
                "notes", version="2.0.0", on_list_tools=self.listing, on_call_tool=self.calling
            )
            self.names = ["unlock"]

        async def listing(self, ctx: Any, params: Any) -> types.ListToolsResult:
            tools = [types.Tool(name=n, description=n, input_schema=schema) for n in self.names]
            return types.ListToolsResult(tools=tools)

        async def calling(
            self, ctx: Any, params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            if params.name == "unlock":
                self.names.append("write")
                await ctx.session.send_tool_list_changed()
            text = types.TextContent(type="text", text=f"{params.name} done")
            return types.CallToolResult(content=[text])

    e2e.api.reply(tool_use=("mcp__notes__unlock", {}))
    e2e.api.reply(tool_use=("mcp__notes__write", {}))
    e2e.api.reply(text="written")
    options = e2e.options(
        mcp_servers={"notes": Notes()},
        allowed_tools=["mcp__notes__unlock", "mcp__notes__write"],
        env={**NO_DEFERRAL},
    )
    reply = await cs.ask("unlock and write", options=options, transport=e2e.transport())
    assert reply.text == "written"
    before, after, last = e2e.api.main_requests
    assert mcp_tools(before) == ["mcp__notes__unlock"]
    assert mcp_tools(after) == ["mcp__notes__unlock", "mcp__notes__write"]
    assert last.tool_results[0].text == "write done"
    answers = [
        json.loads(line)["response"]["response"]["mcp_response"]
        for line in e2e.transports[0].sent()
        if b'"mcp_response"' in line and b'"serverInfo"' in line
    ]
    assert answers[0]["result"]["capabilities"]["tools"] == {"listChanged": True}
    assert answers[0]["result"]["serverInfo"]["version"] == "2.0.0"
    assert methods(e2e, "sdk>cli") == ["notifications/tools/list_changed"]


async def test_an_mcpserver_tool_that_notifies_through_its_context(e2e: E2E) -> None:
    """``ctx.notify_tools_changed()`` of an ``MCPServer`` tool publishes on its subscription
    bus (not its session): the bridge tells the CLI, which lists again within the turn."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("notes")

    def write(text: str) -> str:
        """Write a note."""
        return f"wrote {text}"

    @server.tool()
    async def unlock(ctx: Context) -> str:
        """Make the write tool available."""
        ctx.mcp_server.add_tool(write)
        await ctx.notify_tools_changed()
        return "unlocked"

    e2e.api.reply(tool_use=("mcp__notes__unlock", {}))
    e2e.api.reply(tool_use=("mcp__notes__write", {"text": "hi"}))
    e2e.api.reply(text="written")
    options = e2e.options(
        mcp_servers={"notes": server}, allowed_tools=["mcp__notes"], env={**NO_DEFERRAL}
    )
    reply = await cs.ask("unlock and write", options=options, transport=e2e.transport())
    assert reply.text == "written"
    before, after, last = e2e.api.main_requests
    assert mcp_tools(before) == ["mcp__notes__unlock"]
    # (the CLI passes an MCPServer tool's structured content: {"result": ...})
    assert "unlocked" in after.tool_results[0].text
    assert mcp_tools(after) == ["mcp__notes__unlock", "mcp__notes__write"]
    assert "wrote hi" in last.tool_results[0].text
    assert methods(e2e, "sdk>cli") == ["notifications/tools/list_changed"]
    assert methods(e2e, "cli>sdk").count("tools/list") == 2


# ======================================================================================
# (c) a tool call longer than the CLI's per-call timeout

#: The shortened per-call timeout every scenario below gives the CLI (the default is ~27.8 h).
SHORT = {"MCP_TOOL_TIMEOUT": "1500"}
#: How long the slow tool takes, in seconds: past SHORT.
SLOW = 3.0


def slow_server(
    outcomes: list[str],
    cancelled: list[ToolCancelled],
    tool_timeout: int | None = None,
    **server: Any,
) -> SdkMcpServer:
    @tool(timeout=tool_timeout)
    async def slow(ctx: ToolContext) -> str:
        """Take three seconds."""
        try:
            await anyio.sleep(SLOW)
        except anyio.get_cancelled_exc_class():
            outcomes.append(f"cancelled: {ctx.cancellation!s}")
            raise
        outcomes.append("finished")
        return "slept"

    return create_sdk_mcp_server("calc", tools=[slow], on_cancel=cancelled.append, **server)


async def test_a_call_past_the_cli_timeout_is_cancelled_and_explained(e2e: E2E) -> None:
    outcomes: list[str] = []
    cancelled: list[ToolCancelled] = []
    e2e.api.reply(tool_use=("mcp__calc__slow", {}))
    e2e.api.reply(text="too slow")
    options = e2e.options(
        mcp_servers={"calc": slow_server(outcomes, cancelled)},
        allowed_tools=["mcp__calc__slow"],
        env=SHORT,
    )
    with anyio.fail_after(30):  # no hang
        reply = await cs.ask("be slow", options=options, transport=e2e.transport())
    assert reply.text == "too slow"
    result = e2e.api.main_requests[1].tool_results[0]
    assert result.is_error
    assert result.text == 'MCP server "calc" tool "slow" timed out after 1s'  # the CLI's words
    (why,) = cancelled
    assert why.timed_out
    assert (why.server, why.method, why.tool) == ("calc", "tools/call", "slow")
    assert why.tool_use_id == result.tool_use_id
    assert why.reason is not None
    assert "timed out" in why.reason
    assert why.timeout is None  # the server declared none: MCP_TOOL_TIMEOUT applied
    assert "MCP_TOOL_TIMEOUT" in str(why)
    assert "timeout=ms" in str(why)
    # Cancelled by the CLI's timeout (timed_out, its words above), never finished: which
    # rule acted, not when (the call's ``why.elapsed`` is not a test's business).
    assert outcomes == [f"cancelled: {why}"]
    # the CLI's cancellation reached the server, and the call was settled, not left open
    assert methods(e2e, "cli>sdk").count("notifications/cancelled") == 1
    settled = [
        json.loads(line)["response"]["response"]["mcp_response"]
        for line in e2e.transports[0].sent()
        if b'"mcp_response"' in line and b'"error"' in line
    ]
    assert [a["error"]["code"] for a in settled] == [-32800]


@pytest.mark.parametrize("how", ["config", "server_timeout", "tool_timeout"])
async def test_a_call_past_the_default_timeout_works_when_the_server_raises_it(
    e2e: E2E, how: str
) -> None:
    outcomes: list[str] = []
    cancelled: list[ToolCancelled] = []
    config: Any
    if how == "config":  # any in-process server: the wire config's timeout
        config = {"type": "sdk", "instance": slow_server(outcomes, cancelled), "timeout": 8000}
    elif how == "server_timeout":
        config = slow_server(outcomes, cancelled, timeout=8000)
    else:  # the longest tool timeout, plus a second
        config = slow_server(outcomes, cancelled, tool_timeout=7000)
    assert mcp_server_wire("calc", config)["timeout"] >= 8000  # what the CLI is told
    e2e.api.reply(tool_use=("mcp__calc__slow", {}))
    e2e.api.reply(text="done")
    options = e2e.options(
        mcp_servers={"calc": config}, allowed_tools=["mcp__calc__slow"], env=SHORT
    )
    with anyio.fail_after(30):
        reply = await cs.ask("be slow", options=options, transport=e2e.transport())
    assert reply.text == "done"
    result = e2e.api.main_requests[1].tool_results[0]
    assert not result.is_error, result.text
    assert result.text == "slept"
    assert outcomes == ["finished"]
    assert cancelled == []


async def test_a_tool_timeout_shorter_than_the_call_ends_it_with_an_explained_error(
    e2e: E2E,
) -> None:
    finished: list[bool] = []

    @tool(timeout=1000)
    async def slow() -> str:
        """Take three seconds."""
        await anyio.sleep(SLOW)
        finished.append(True)
        return "slept"

    e2e.api.reply(tool_use=("mcp__calc__slow", {}))
    e2e.api.reply(text="gave up")
    options = e2e.options(
        mcp_servers={"calc": create_sdk_mcp_server("calc", tools=[slow])},
        allowed_tools=["mcp__calc__slow"],
    )
    with anyio.fail_after(30):
        reply = await cs.ask("be slow", options=options, transport=e2e.transport())
    assert reply.text == "gave up"
    result = e2e.api.main_requests[1].tool_results[0]
    assert result.is_error
    # ours, then (the tool is deferred behind ToolSearch) a note of the CLI's own
    assert result.text.startswith(
        "tool 'slow' did not finish within its timeout of 1000 ms, and was cancelled"
    )
    assert finished == []


async def test_an_interrupt_cancels_a_running_tool_and_says_so(e2e: E2E) -> None:
    cancelled: list[ToolCancelled] = []
    started = anyio.Event()

    @tool
    async def wait() -> str:
        """Wait until interrupted."""
        started.set()
        await anyio.sleep_forever()
        return "never"

    server = create_sdk_mcp_server("calc", tools=[wait], on_cancel=cancelled.append)
    e2e.api.reply(tool_use=("mcp__calc__wait", {}))
    options = e2e.options(mcp_servers={"calc": server}, allowed_tools=["mcp__calc__wait"])
    with anyio.fail_after(30):
        async with cs.open_session(options, transport=e2e.transport()) as session:
            await session.send("wait")
            await started.wait()
            await session.interrupt()
            messages = [m async for m in session.receive_response()]
    assert isinstance(messages[-1], cs.ResultMessage)
    (why,) = cancelled
    assert why.tool == "wait"
    assert not why.timed_out  # an interrupt, not the timeout
    assert why.reason is not None
    settled = [
        json.loads(line)["response"]["response"]["mcp_response"]
        for line in e2e.transports[0].sent()
        if b'"mcp_response"' in line and b'"error"' in line
    ]
    assert [a["error"]["code"] for a in settled] == [-32800]
