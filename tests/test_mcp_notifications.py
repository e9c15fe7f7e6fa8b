"""In-process MCP servers and the CLI's MCP traffic: capabilities, notifications, cancellation.

FakeCLI plays the CLI's side of ``mcp_message`` (PROTOCOL.md §11.3) against real servers
(`SdkMcpServer`, ``mcp.server.Server`` and subclasses, ``MCPServer``) served by the session's
bridge. The same behaviour against the real CLI: ``tests/e2e/test_mcp_whole_e2e.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context  # module level: MCPServer resolves annotations

import claude_sdk._mcp_bridge as bridge
from claude_sdk import Options, open_session
from claude_sdk._mcp_bridge import McpBridge, is_in_process_server
from claude_sdk._protocol.launch import mcp_config
from claude_sdk.testing import AnswerTimeoutError, FakeCLI, ScriptedCLI
from claude_sdk.tools import (
    ToolCancelled,
    ToolContext,
    create_sdk_mcp_server,
    tool,
)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "2.1.330"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
TIMED_OUT = "SdkError: Request timed out"


def tools_list(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}


def tools_call(
    request_id: int, name: str, arguments: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments or {},
            "_meta": {"claudecode/toolUseId": f"toolu_{request_id}", "progressToken": request_id},
        },
    }


def cancelled(request_id: int, reason: str = TIMED_OUT) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": request_id, "reason": reason},
    }


async def connect(cli: ScriptedCLI, name: str) -> dict[str, Any]:
    """The CLI's side of start-up for one in-process server; its ``initialize`` result."""
    answer = await cli.mcp_message(name, INITIALIZE)
    await cli.handshake()
    await cli.mcp_message(name, INITIALIZED)
    assert isinstance(answer, dict)
    result: dict[str, Any] = answer["mcp_response"]["result"]
    return result


async def listed(cli: ScriptedCLI, name: str, request_id: int) -> list[str]:
    answer = await cli.mcp_message(name, tools_list(request_id))
    assert isinstance(answer, dict)
    return [t["name"] for t in answer["mcp_response"]["result"]["tools"]]


def record_host_messages(cli: ScriptedCLI, into: list[tuple[str, dict[str, Any]]]) -> anyio.Event:
    """Record the host's ``mcp_message`` requests (the server's own messages); an event set
    at each."""
    event = anyio.Event()

    def handler(request: Any) -> dict[str, Any]:
        nonlocal event
        into.append((request.server_name, dict(request.message)))
        event.set()
        event = anyio.Event()
        return {}

    cli.on_request("mcp_message", handler)
    return event


@tool
async def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@tool
async def mul(a: int, b: int) -> str:
    """Multiply two numbers."""
    return str(a * b)


def options(servers: dict[str, Any]) -> Options:
    return Options(mcp_servers=servers, control_timeout=30.0, initialize_timeout=30.0)


# ======================================================================================
# Capabilities


def _mcp_servers() -> dict[str, Callable[[], Any]]:
    from mcp import types
    from mcp.server import Server
    from mcp.server.mcpserver import MCPServer

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[])

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[])

    class Sub(Server):
        def __init__(self) -> None:
            super().__init__("sub", on_list_tools=list_tools, on_list_prompts=list_prompts)

    def fast() -> MCPServer:
        server = MCPServer("fast")

        @server.tool()
        def echo(text: str) -> str:
            return text

        return server

    return {
        "sdk": lambda: create_sdk_mcp_server("s", tools=[add]),
        "lowlevel": lambda: Server("low", on_list_tools=list_tools, on_list_prompts=list_prompts),
        "subclass": Sub,
        "mcpserver": fast,
    }


@pytest.mark.parametrize("kind", ["sdk", "lowlevel", "subclass", "mcpserver"])
async def test_the_initialize_answer_says_the_tool_list_can_change(kind: str) -> None:
    server = _mcp_servers()[kind]()
    results: list[dict[str, Any]] = []

    async def script(cli: ScriptedCLI) -> None:
        results.append(await connect(cli, "x"))
        results.append({"tools": await listed(cli, "x", 1)})

    fake = FakeCLI(script)
    async with open_session(options({"x": server}), transport=fake):
        await fake.cli.script_done.wait()
    fake.check()
    capabilities = results[0]["capabilities"]
    assert capabilities["tools"] == {"listChanged": True}
    if kind in ("lowlevel", "subclass"):
        # the stream-json CLI acts on no prompts/resources list_changed: not claimed
        assert capabilities["prompts"] == {"listChanged": False}
    if kind == "mcpserver":
        assert results[1]["tools"] == ["echo"]


async def test_a_subclass_that_builds_its_own_initialization_options_is_left_alone() -> None:
    from mcp.server import NotificationOptions, Server
    from mcp.server.models import InitializationOptions

    class Quiet(Server):
        def create_initialization_options(
            self,
            notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None,
        ) -> InitializationOptions:
            return super().create_initialization_options(NotificationOptions(tools_changed=False))

    async def list_tools(ctx: Any, params: Any) -> Any:
        from mcp import types

        return types.ListToolsResult(tools=[])

    results: list[dict[str, Any]] = []

    async def script(cli: ScriptedCLI) -> None:
        results.append(await connect(cli, "q"))

    fake = FakeCLI(script)
    async with open_session(options({"q": Quiet("q", on_list_tools=list_tools)}), transport=fake):
        await fake.cli.script_done.wait()
    assert results[0]["capabilities"]["tools"] == {"listChanged": False}


def test_subclasses_of_mcp_servers_are_in_process_servers() -> None:
    servers = _mcp_servers()
    for kind in ("lowlevel", "subclass", "mcpserver", "sdk"):
        server = servers[kind]()
        assert is_in_process_server(server), kind
        assert Options(mcp_servers={"x": server}).sdk_mcp_servers == {"x": server}
        assert mcp_config({"x": server}) == {"mcpServers": {"x": {"type": "sdk", "name": "x"}}}

    class NotAServer:
        def create_initialization_options(self) -> None: ...

    assert not is_in_process_server(NotAServer())
    assert not is_in_process_server({"type": "sdk", "name": "x"})

    async def relay(name: str, message: dict[str, Any]) -> None: ...

    with pytest.raises(TypeError, match="NotAServer is not an MCP server"):
        McpBridge("x", NotAServer(), relay)


# ======================================================================================
# notify_tools_changed


async def test_add_tool_tells_the_cli_under_the_sessions_name_and_the_list_follows() -> None:
    server = create_sdk_mcp_server("calc", tools=[add])  # served as "numbers"
    seen: list[tuple[str, dict[str, Any]]] = []
    lists: list[list[str]] = []
    ready = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        notified = record_host_messages(cli, seen)
        await connect(cli, "numbers")
        lists.append(await listed(cli, "numbers", 1))
        ready.set()
        await notified.wait()
        lists.append(await listed(cli, "numbers", 2))
        answer = await cli.mcp_message("numbers", tools_call(3, "mul", {"a": 6, "b": 7}))
        assert isinstance(answer, dict)
        lists.append([answer["mcp_response"]["result"]["content"][0]["text"]])

    fake = FakeCLI(script)
    async with open_session(options({"numbers": server}), transport=fake):
        await ready.wait()
        assert await server.add_tool(mul) is mul  # returns once the CLI acknowledged it
        await fake.cli.script_done.wait()
    fake.check()
    assert seen == [("numbers", TOOLS_CHANGED)]
    assert lists == [["add"], ["add", "mul"], ["42"]]
    # the session is over: nobody is told any more, and that is no error
    await server.remove_tool("mul")
    assert [t.name for t in server.tools] == ["add"]


async def test_every_session_serving_the_server_is_told() -> None:
    server = create_sdk_mcp_server("calc", tools=[add])
    seen: list[list[tuple[str, dict[str, Any]]]] = [[], []]
    ready = [anyio.Event(), anyio.Event()]

    def script_for(i: int) -> Callable[[ScriptedCLI], Any]:
        async def script(cli: ScriptedCLI) -> None:
            notified = record_host_messages(cli, seen[i])
            await connect(cli, "calc")
            ready[i].set()
            await notified.wait()

        return script

    one, two = FakeCLI(script_for(0)), FakeCLI(script_for(1))
    async with (
        open_session(options({"calc": server}), transport=one),
        open_session(options({"calc": server}), transport=two),
    ):
        await ready[0].wait()
        await ready[1].wait()
        await server.notify_tools_changed()
        await one.cli.script_done.wait()
        await two.cli.script_done.wait()
    assert seen == [[("calc", TOOLS_CHANGED)], [("calc", TOOLS_CHANGED)]]


async def test_a_tool_added_during_a_call_holds_its_result_until_the_cli_listed_again() -> None:
    """Within a turn the CLI builds its next request as soon as it has the result: the new
    list must reach it first."""
    server = create_sdk_mcp_server("calc", tools=[])

    @tool
    async def unlock() -> str:
        """Make mul available."""
        await server.add_tool(mul)
        return "unlocked"

    server.tools = (unlock,)
    order: list[str] = []

    async def script(cli: ScriptedCLI) -> None:
        notified = record_host_messages(cli, [])
        await connect(cli, "calc")
        await listed(cli, "calc", 1)
        call = await cli.start_mcp_message("calc", tools_call(2, "unlock"))
        await notified.wait()
        await anyio.wait_all_tasks_blocked()
        with pytest.raises(AnswerTimeoutError):  # held: the CLI has not listed again yet
            await cli.answer(call, timeout=0)
        order.append("listed " + ",".join(await listed(cli, "calc", 3)))
        answer = await cli.answer(call)
        order.append(answer["mcp_response"]["result"]["content"][0]["text"])

    fake = FakeCLI(script)
    async with open_session(options({"calc": server}), transport=fake):
        await fake.cli.script_done.wait()
    fake.check()
    assert order == ["listed unlock,mul", "unlocked"]


async def test_a_held_result_goes_out_anyway_when_the_cli_does_not_list_again(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(bridge, "RELIST_WAIT", 0.05)
    server = create_sdk_mcp_server("calc", tools=[])

    @tool
    async def unlock() -> str:
        """Make mul available."""
        await server.add_tool(mul)
        return "unlocked"

    server.tools = (unlock,)
    answers: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await connect(cli, "calc")
        await listed(cli, "calc", 1)
        answers.append(await cli.mcp_message("calc", tools_call(2, "unlock")))

    fake = FakeCLI(script)
    with caplog.at_level(logging.WARNING, logger="claude_sdk.mcp"):
        async with open_session(options({"calc": server}), transport=fake):
            await fake.cli.script_done.wait()
    assert answers[0]["mcp_response"]["result"]["content"][0]["text"] == "unlocked"
    assert "did not list the tools of MCP server 'calc' again" in caplog.text


async def test_a_low_level_servers_own_notification_reaches_the_cli_before_its_result() -> None:
    from mcp import types
    from mcp.server import Server

    class Notes(Server):
        def __init__(self) -> None:
            super().__init__("notes", on_list_tools=self.listing, on_call_tool=self.calling)
            self.names = ["unlock"]

        async def listing(self, ctx: Any, params: Any) -> types.ListToolsResult:
            schema = {"type": "object"}
            tools = [types.Tool(name=n, input_schema=schema) for n in self.names]
            return types.ListToolsResult(tools=tools)

        async def calling(
            self, ctx: Any, params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            self.names.append("write")
            await ctx.session.send_tool_list_changed()
            await ctx.session.send_progress_notification(2, 1.0, 2.0, "halfway")
            return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    order: list[str] = []

    async def script(cli: ScriptedCLI) -> None:
        changed = anyio.Event()

        def host_message(request: Any) -> dict[str, Any]:
            order.append(request.message["method"])
            if request.message["method"] == "notifications/progress":
                changed.set()
            return {}

        cli.on_request("mcp_message", host_message)
        await connect(cli, "notes")
        await listed(cli, "notes", 1)
        call = await cli.start_mcp_message("notes", tools_call(2, "unlock"))
        await changed.wait()
        await anyio.wait_all_tasks_blocked()
        with pytest.raises(AnswerTimeoutError):  # held until the CLI listed again
            await cli.answer(call, timeout=0)
        order.append("listed " + ",".join(await listed(cli, "notes", 3)))
        answer = await cli.answer(call)
        order.append("result " + answer["mcp_response"]["result"]["content"][0]["text"])

    fake = FakeCLI(script)
    async with open_session(options({"notes": Notes()}), transport=fake):
        await fake.cli.script_done.wait()
    fake.check()
    assert order == [
        "notifications/tools/list_changed",
        "notifications/progress",
        "listed unlock,write",
        "result ok",
    ]


async def test_an_mcpserver_tool_that_notifies_through_its_context_is_relisted() -> None:
    """``ctx.notify_tools_changed()`` publishes on the server's subscription bus (for
    ``subscriptions/listen`` streams, which the CLI never opens): the bridge relays it as
    ``notifications/tools/list_changed`` and holds the result as for any other server."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("notes")

    def write(text: str) -> str:
        """Write a note."""
        return f"wrote {text}"

    @server.tool()
    async def unlock(ctx: Context) -> str:
        """Make write available."""
        ctx.mcp_server.add_tool(write)
        await ctx.notify_tools_changed()
        return "unlocked"

    seen: list[tuple[str, dict[str, Any]]] = []
    order: list[str] = []

    async def script(cli: ScriptedCLI) -> None:
        notified = record_host_messages(cli, seen)
        await connect(cli, "notes")
        order.append("listed " + ",".join(await listed(cli, "notes", 1)))
        call = await cli.start_mcp_message("notes", tools_call(2, "unlock"))
        with anyio.fail_after(5):  # before the fix, nothing reached the CLI
            await notified.wait()
        await anyio.wait_all_tasks_blocked()
        with pytest.raises(AnswerTimeoutError):  # held: the CLI has not listed again yet
            await cli.answer(call, timeout=0)
        order.append("listed " + ",".join(await listed(cli, "notes", 3)))
        answer = await cli.answer(call)
        order.append(answer["mcp_response"]["result"]["content"][0]["text"])
        written = await cli.mcp_message("notes", tools_call(4, "write", {"text": "hi"}))
        assert isinstance(written, dict)
        order.append(written["mcp_response"]["result"]["content"][0]["text"])

    fake = FakeCLI(script)
    async with open_session(options({"notes": server}), transport=fake):
        await fake.cli.script_done.wait()
    fake.check()
    assert seen == [("notes", TOOLS_CHANGED)]
    assert order == ["listed unlock", "listed unlock,write", "unlocked", "wrote hi"]


async def test_a_low_level_servers_listen_bus_reaches_the_cli_too() -> None:
    """The same rule for a low-level server given a ``ListenHandler``: what is published on
    its bus, from anywhere, tells the CLI its tools changed (other events do not)."""
    from mcp import types
    from mcp.server import Server
    from mcp.server.subscriptions import (
        InMemorySubscriptionBus,
        ListenHandler,
        PromptsListChanged,
        ToolsListChanged,
    )

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[])

    bus = InMemorySubscriptionBus()
    server = Server("low", on_list_tools=list_tools, on_subscriptions_listen=ListenHandler(bus))
    seen: list[tuple[str, dict[str, Any]]] = []
    ready = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        notified = record_host_messages(cli, seen)
        await connect(cli, "low")
        await listed(cli, "low", 1)
        ready.set()
        with anyio.fail_after(5):
            await notified.wait()
        await listed(cli, "low", 2)

    fake = FakeCLI(script)
    async with open_session(options({"low": server}), transport=fake):
        await ready.wait()
        await bus.publish(PromptsListChanged())
        await bus.publish(ToolsListChanged())
        await fake.cli.script_done.wait()
    fake.check()
    assert seen == [("low", TOOLS_CHANGED)]


# ======================================================================================
# The CLI cancels a call (its per-call timeout)


async def test_a_call_the_cli_cancels_is_cancelled_explained_and_settled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    outcome: list[Any] = []
    told: list[ToolCancelled] = []
    started = anyio.Event()

    @tool
    async def slow(ctx: ToolContext) -> str:
        """Never finish."""
        started.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            outcome.append(ctx.cancellation)
            raise
        return "never"

    server = create_sdk_mcp_server("calc", tools=[slow], timeout=5000, on_cancel=told.append)
    answers: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await connect(cli, "calc")
        call = await cli.start_mcp_message("calc", tools_call(7, "slow"))
        await started.wait()
        answers.append(await cli.mcp_message("calc", cancelled(7)))
        answers.append(await cli.answer(call))
        # a cancellation of what is not running any more changes nothing
        answers.append(await cli.mcp_message("calc", cancelled(7)))
        answers.append(await cli.mcp_message("calc", cancelled(99)))

    fake = FakeCLI(script)
    with caplog.at_level(logging.WARNING, logger="claude_sdk.tools"):
        async with open_session(options({"calc": server}), transport=fake):
            await fake.cli.script_done.wait()
    fake.check()
    (why,) = told
    assert outcome == [why]  # the handler was cancelled, knowing why
    assert why.server == "calc"
    assert why.method == "tools/call"
    assert why.tool == "slow"
    assert why.tool_use_id == "toolu_7"
    assert why.reason == TIMED_OUT
    assert why.timed_out
    assert why.timeout == 5000
    assert why.elapsed >= 0
    assert "the 5000 ms this server declared" in str(why)
    ack = {"mcp_response": {"jsonrpc": "2.0", "result": {}}}
    assert answers[0] == ack
    assert answers[1] == {
        "mcp_response": {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32800, "message": f"Request cancelled: {TIMED_OUT}"},
        }
    }
    assert answers[2:] == [ack, ack]
    assert str(why) in caplog.text


async def test_a_low_level_server_call_the_cli_cancels(caplog: pytest.LogCaptureFixture) -> None:
    from mcp import types
    from mcp.server import Server

    started = anyio.Event()
    outcome: list[str] = []

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        started.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            outcome.append("cancelled")
            raise
        raise AssertionError("not reached")

    server = Server("low", on_call_tool=call_tool)
    answers: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await connect(cli, "low")
        call = await cli.start_mcp_message("low", tools_call(3, "wait"))
        await started.wait()
        await cli.mcp_message("low", cancelled(3, "AbortError: interrupted"))
        answers.append(await cli.answer(call))

    fake = FakeCLI(script)
    with caplog.at_level(logging.WARNING, logger="claude_sdk.mcp"):
        async with open_session(options({"low": server}), transport=fake):
            await fake.cli.script_done.wait()
    fake.check()
    assert outcome == ["cancelled"]
    assert answers[0]["mcp_response"]["error"]["code"] == -32800
    assert (
        "the CLI cancelled tool 'wait' of in-process MCP server 'low' (tool use toolu_3)"
        in caplog.text
    )
    assert "AbortError: interrupted" in caplog.text
