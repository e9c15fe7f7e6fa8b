"""The real Claude Code CLI, driven through claude_sdk against FakeMessagesAPI.

Offline: the CLI talks only to the fake API on 127.0.0.1 (and ``nox -s e2e`` runs these
tests in a loopback-only network namespace). Every frame the CLI sends is checked by the
strict drift checker when each test ends (see conftest.py).
"""

from __future__ import annotations

import json
import os
import re
import signal
import uuid

import anyio
import attrs
import pytest

import claude_sdk as cs
from claude_sdk.hooks import HookContext, PreToolUseInput, PreToolUseOutput

from .conftest import E2E


def texts(messages: list[cs.Message]) -> list[str]:
    return [m.text for m in messages if isinstance(m, cs.AssistantMessage) and m.text]


def test_netns_is_loopback_only() -> None:
    if os.environ.get("CLAUDE_SDK_E2E_NETNS") != "1":
        pytest.skip("not running inside the e2e network namespace")
    # /proc/net/dev is per network namespace (/sys/class/net shows the mount's view).
    with open("/proc/self/net/dev", encoding="ascii") as f:
        interfaces = [line.split(":")[0].strip() for line in f.readlines()[2:]]
    assert interfaces == ["lo"]


async def test_text_turn(e2e: E2E) -> None:
    e2e.api.reply(text="Hello from the fake API.")
    reply = await cs.ask("hello", options=e2e.options(), transport=e2e.transport())
    assert reply.text == "Hello from the fake API."
    assert reply.session_id
    assert reply.total_cost_usd is not None
    assert texts(list(reply.messages)) == ["Hello from the fake API."]
    assert any(isinstance(m, cs.InitMessage) for m in reply.messages)
    request = e2e.api.main_requests[0]
    assert "hello" in request.last_user_text


async def test_the_cli_reports_its_version(e2e: E2E, claude_cli_version: str) -> None:
    """The one test about versions: what the CLI says at start-up (initialize and
    get_binary_version) is what ``claude --version`` says, and it is a dotted version."""
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        assert session.server_info.claude_code_version == claude_cli_version
        binary = await session.get_binary_version()
    assert binary.version == claude_cli_version
    assert re.fullmatch(r"\d+\.\d+\.\d+", claude_cli_version)


async def test_two_turns_in_one_session(e2e: E2E) -> None:
    e2e.api.reply(text="first answer")
    e2e.api.reply(text="second answer")
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        assert session.server_info is not None
        results = []
        for prompt in ("one", "two"):
            await session.send(prompt)
            messages = [m async for m in session.receive_response()]
            assert isinstance(messages[-1], cs.ResultMessage)
            results.append(messages[-1])
    assert [r.result for r in results] == ["first answer", "second answer"]
    assert results[0].session_id == results[1].session_id == session.session_id
    assert "two" in e2e.api.main_requests[1].last_user_text


@pytest.mark.parametrize("allow", [True, False], ids=["allow", "deny"])
async def test_can_use_tool_on_a_bash_write(e2e: E2E, allow: bool) -> None:
    asked: list[tuple[str, dict[str, object]]] = []

    async def decide(
        name: str, tool_input: dict[str, object], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        asked.append((name, tool_input))
        assert ctx.tool_use_id
        if allow:
            return cs.PermissionAllow()
        return cs.PermissionDeny(message="Denied by the test")

    e2e.api.reply(tool_use=("Bash", {"command": "touch marker.txt", "description": "Touch"}))
    e2e.api.reply(text="done")
    reply = await cs.ask(
        "make a marker", options=e2e.options(can_use_tool=decide), transport=e2e.transport()
    )
    assert asked == [("Bash", {"command": "touch marker.txt", "description": "Touch"})]
    assert (e2e.cwd / "marker.txt").exists() is allow
    results = e2e.api.main_requests[1].tool_results
    assert len(results) == 1
    assert results[0].is_error is not allow
    if not allow:
        assert "Denied by the test" in results[0].text
        denials = reply.result.permission_denials or []
        assert [d.tool_name for d in denials] == ["Bash"]


async def test_a_pre_tool_use_hook_that_denies(e2e: E2E) -> None:
    seen: list[PreToolUseInput] = []

    async def no_rm(hook_input: PreToolUseInput, context: HookContext) -> cs.HookOutput:
        seen.append(hook_input)
        return cs.HookOutput(
            specific=PreToolUseOutput(
                permission_decision="deny", permission_decision_reason="destructive"
            )
        )

    e2e.api.reply(tool_use=("Bash", {"command": "rm -rf build"}))
    e2e.api.reply(text="ok, not deleting")
    options = e2e.options(hooks={"PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[no_rm])]})
    reply = await cs.ask("clean up", options=options, transport=e2e.transport())
    assert [h.tool_input for h in seen] == [{"command": "rm -rf build"}]
    result = e2e.api.main_requests[1].tool_results[0]
    assert result.is_error
    assert "destructive" in result.text
    assert reply.text == "ok, not deleting"


async def test_interrupt_mid_stream(e2e: E2E) -> None:
    e2e.api.reply(text="word " * 200, delay=0.02)
    options = e2e.options(include_partial_messages=True)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("tell me a long story")
        messages: list[cs.Message] = []
        receipt = None
        async for message in session.receive_response():
            messages.append(message)
            if (
                receipt is None
                and isinstance(message, cs.StreamEvent)
                and message.event.get("type") == "content_block_delta"
            ):
                receipt = await session.interrupt()
        assert receipt is not None
        assert receipt.still_queued == []
        result = messages[-1]
        assert isinstance(result, cs.ResultMessage)
        assert result.subtype == "error_during_execution"
        assert result.is_error
        assert result.terminal_reason == "aborted_streaming"
        # the session stays usable
        e2e.api.reply(text="still here")
        await session.send("are you there?")
        again = [m async for m in session.receive_response()]
        assert isinstance(again[-1], cs.ResultMessage)
        assert again[-1].result == "still here"


async def test_interrupt_while_a_permission_request_is_pending(e2e: E2E) -> None:
    asked = anyio.Event()
    cancelled = anyio.Event()

    async def slow(
        name: str, tool_input: dict[str, object], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        asked.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()
        raise AssertionError("unreachable")

    e2e.api.reply(tool_use=("Bash", {"command": "touch x.txt"}))
    transport = e2e.transport()
    async with cs.open_session(e2e.options(can_use_tool=slow), transport=transport) as session:
        await session.send("touch it")
        with anyio.fail_after(20):
            await asked.wait()
            receipt = await session.interrupt()
            await cancelled.wait()  # the handler saw the CLI's control_cancel_request
        assert receipt.still_queued == []
        messages = [m async for m in session.receive_response()]
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.terminal_reason == "aborted_tools"
    frames = [json.loads(line) for line in transport.sent()]
    cancels = [json.loads(line) for line in transport.received() if b"control_cancel" in line]
    assert len(cancels) == 1
    cancelled_id = cancels[0]["request_id"]
    answers = [
        f
        for f in frames
        if f["type"] == "control_response" and f["response"]["request_id"] == cancelled_id
    ]
    assert answers == []  # nothing was written for the cancelled request
    assert not (e2e.cwd / "x.txt").exists()


async def test_set_model_and_permission_mode(e2e: E2E) -> None:
    e2e.api.reply(text="ok")
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        model = await session.set_model("claude-haiku-4-5-20251001")
        assert model.model == "claude-haiku-4-5-20251001"
        default = await session.set_model(None)
        assert default.model
        mode = await session.set_permission_mode("acceptEdits")
        assert mode.mode == "acceptEdits"
        with pytest.raises(cs.ControlRequestError) as info:
            await session.set_permission_mode("not-a-mode")
        assert info.value.error_code == "invalid_mode"
        with pytest.raises(cs.ControlRequestError) as unknown:
            await session.control("no_such_subtype")
        assert unknown.value.error_code == "unsupported_request"
        await session.send("hi")
        messages = [m async for m in session.receive_response()]
    init = next(m for m in messages if isinstance(m, cs.InitMessage))
    assert init.permission_mode == "acceptEdits"


async def test_partial_messages(e2e: E2E) -> None:
    e2e.api.reply(text="streamed reply text")
    options = e2e.options(include_partial_messages=True)
    reply = await cs.ask("stream please", options=options, transport=e2e.transport())
    events = [m.event for m in reply.messages if isinstance(m, cs.StreamEvent)]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "message_start"
    assert "content_block_delta" in kinds
    assert kinds[-1] == "message_stop"
    deltas = "".join(
        e["delta"].get("text", "") for e in events if e["type"] == "content_block_delta"
    )
    assert deltas == "streamed reply text"


async def test_the_cli_writes_message_lines_type_first(e2e: E2E) -> None:
    """The session's reader sets aside, undecoded, lines that begin ``{"type":"assistant",``
    and the like (issue 8; ``session._DEFERRED``); check that the real CLI writes its message
    frames that way, so that the fast path is the one real sessions take."""
    e2e.api.reply(tool_use=("Bash", {"command": "echo hi", "description": "Say hi"}))
    e2e.api.reply(text="done")

    async def allow(name: str, tool_input: dict[str, object], ctx: object) -> cs.PermissionResult:
        return cs.PermissionAllow()

    options = e2e.options(include_partial_messages=True, can_use_tool=allow)
    reply = await cs.ask("say hi", options=options, transport=e2e.transport())
    assert reply.text == "done"
    seen: dict[str, int] = {}
    for line in (line for t in e2e.transports for line in t.received()):
        kind = json.loads(line)["type"]
        if kind in ("assistant", "user", "stream_event"):
            assert line.startswith(b'{"type":"' + kind.encode() + b'",'), line[:80]
            seen[kind] = seen.get(kind, 0) + 1
    assert set(seen) == {"assistant", "user", "stream_event"}


async def test_overloaded_then_success(e2e: E2E) -> None:
    e2e.api.reply(error=529)
    e2e.api.reply(text="recovered")
    options = e2e.options(env={"CLAUDE_CODE_MAX_RETRIES": "1"})
    reply = await cs.ask("hi", options=options, transport=e2e.transport())
    assert reply.text == "recovered"
    retries = [m for m in reply.messages if isinstance(m, cs.messages.ApiRetryMessage)]
    assert [r.error_status for r in retries] == [529]


async def test_an_api_error_through_ask_is_a_result_error(e2e: E2E) -> None:
    e2e.api.reply(error=529, times=None)
    with pytest.raises(cs.ResultError) as info:
        await cs.ask("hi", options=e2e.options(), transport=e2e.transport())
    assert info.value.kind == "overloaded"
    assert info.value.result.api_error_status == 529
    assert info.value.result.is_error


async def test_the_cli_killed_mid_turn_is_a_process_error(e2e: E2E) -> None:
    e2e.api.reply(hang=True)
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        assert session.server_info is not None
        cli_pid = session.server_info.pid
        assert cli_pid is not None
        await session.send("hi")
        with anyio.fail_after(20):
            await e2e.api.wait_for_requests(1, kind="main")
        os.kill(cli_pid, signal.SIGKILL)
        with pytest.raises(cs.ProcessError) as info:
            async for _ in session.receive_response():
                pass
    assert info.value.signal == signal.SIGKILL


async def test_a_missing_cli_is_cli_not_found(e2e: E2E) -> None:
    options = e2e.options()
    missing = str(e2e.home / "no-such-claude")
    with pytest.raises(cs.CLINotFoundError) as info:
        await cs.ask("hi", options=attrs.evolve(options, cli_path=missing))
    assert missing in str(info.value)


async def test_resume_a_session_by_id(e2e: E2E) -> None:
    e2e.api.reply(text="I will remember 42")
    first = await cs.ask("remember 42", options=e2e.options(), transport=e2e.transport())
    e2e.api.reply(text="it was 42")
    options = e2e.options(resume=first.session_id)
    second = await cs.ask("what was it?", options=options, transport=e2e.transport())
    assert second.text == "it was 42"
    history = json.dumps(e2e.api.main_requests[1].messages)
    assert "remember 42" in history
    assert "I will remember 42" in history


async def test_resuming_an_unknown_session_raises_session_not_found(e2e: E2E) -> None:
    missing = str(uuid.uuid4())
    with pytest.raises(cs.SessionNotFoundError) as info:
        await cs.ask("hi", options=e2e.options(resume=missing), transport=e2e.transport())
    assert info.value.session_id == missing
    assert e2e.api.requests == []  # the CLI never called the API


def calc_server() -> object:
    """A raw low-level ``mcp`` server with one tool, ``add(a, b)``."""
    from mcp import types
    from mcp.server import Server

    async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
        schema = {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        }
        return types.ListToolsResult(
            tools=[types.Tool(name="add", description="Add two numbers", input_schema=schema)]
        )

    async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments or {}
        total = args["a"] + args["b"]
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(total))])

    return Server("calc", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_an_in_process_mcp_tool_call(e2e: E2E) -> None:
    asked: list[str] = []

    async def allow(
        name: str, tool_input: dict[str, object], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        asked.append(name)
        return cs.PermissionAllow()

    e2e.api.reply(tool_use=("mcp__calc__add", {"a": 2, "b": 3}))
    e2e.api.reply(text="the sum is 5")
    options = e2e.options(mcp_servers={"calc": calc_server()}, can_use_tool=allow)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("add 2 and 3")
        messages = [m async for m in session.receive_response()]
        status = await session.mcp_status()
    assert asked == ["mcp__calc__add"]
    result = e2e.api.main_requests[1].tool_results[0]
    assert result.text == "5"
    assert not result.is_error
    init = next(m for m in messages if isinstance(m, cs.InitMessage))
    assert "mcp__calc__add" in (init.tools or [])
    assert [(s.name, s.status) for s in status.mcp_servers or []] == [("calc", "connected")]


@attrs.frozen
class Answer:
    value: int
    reason: str


async def test_structured_output_as_an_attrs_instance(e2e: E2E) -> None:
    # The StructuredOutput tool call ends the turn: no further API request follows.
    e2e.api.reply(tool_use=("StructuredOutput", {"value": 4, "reason": "2 + 2"}))
    reply = await cs.ask(
        "what is 2 + 2?", options=e2e.options(output_format=Answer), transport=e2e.transport()
    )
    assert reply.result.structured_output == {"value": 4, "reason": "2 + 2"}
    assert reply.structured_output == Answer(value=4, reason="2 + 2")
    tools = e2e.api.main_requests[0].tools
    assert "StructuredOutput" in tools
    assert len(e2e.api.main_requests) == 1
