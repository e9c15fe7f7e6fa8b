"""Tests of `claude_sdk.testing.FakeCLI`, driven through the real SDK where possible.

Every async test runs on asyncio and Trio (see tests/conftest.py). Waits use events; the few
timeouts exercised are fractions of a second.
"""

from __future__ import annotations

import contextlib
import gc
import warnings
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from claude_sdk import (
    AssistantMessage,
    ControlRequestError,
    ControlTimeoutError,
    HookMatcher,
    InitializeResponse,
    InitializeTimeoutError,
    InitMessage,
    Options,
    PermissionAllow,
    PermissionDeny,
    ProcessError,
    ResultMessage,
    SessionNotFoundError,
    SessionStateChangedMessage,
    StreamEvent,
    ToolPermissionContext,
    ToolResultBlock,
    UserMessage,
    open_session,
    wire,
)
from claude_sdk._protocol.launch import LaunchSpec
from claude_sdk.control import (
    HOST_REQUESTS,
    ControlCancelRequest,
    ControlError,
    ControlRequest,
    ControlResponse,
    InterruptResponse,
    McpStatusResponse,
    SetModelRequest,
    SetModelResponse,
    SetPermissionModeResponse,
)
from claude_sdk.messages import StatusMessage
from claude_sdk.permissions import AddRulesUpdate, PermissionRuleValue
from claude_sdk.testing import (
    NO_ANSWER,
    AnswerTimeoutError,
    FakeCLI,
    RequestCancelledError,
    ScriptedCLI,
    StdinClosedError,
    ToolCall,
)
from claude_sdk.transports.memory import MemoryPeer, MemoryTransport

from ..transcripts import DATA, records

#: The recordings of CLI 2.1.330 from the e2e suite (prompts with uuids, which the SDK's
#: prompts carry now: results name them).
E2E_2_1_330 = sorted((DATA / "e2e" / "2.1.330").glob("*.jsonl"))

# A session that must not wait long for anything in these tests.
FAST = Options(shutdown_grace=0.5, control_timeout=5.0, initialize_timeout=5.0)


def spec_for() -> LaunchSpec:
    """A launch spec for driving a FakeCLI without the SDK's session."""
    return LaunchSpec(shutdown_grace=0.5)


async def _collect_turn(session: Any) -> list[Any]:
    return [m async for m in session.receive_response()]


# ======================================================================================
# handshake


async def test_handshake_answers_with_a_typed_realistic_initialize_response() -> None:
    async def script(cli: ScriptedCLI) -> None:
        request = await cli.handshake()
        assert request.hooks is None
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script, version="2.1.999")
    async with open_session(FAST, transport=fake) as session:
        info = session.server_info
        assert isinstance(info, InitializeResponse)
        assert info.claude_code_version == "2.1.999"
        assert info.pid is not None
        assert info.session_state == "idle"
        assert info.hook_on_failure_supported is True
        assert info.hooks_applied is None  # only present when hooks were sent
        assert info.current_permission_mode == "default"
        assert info.account is not None
        assert info.account.api_key_source == "ANTHROPIC_API_KEY"
        assert [m.value for m in info.models or []] == [
            "default",
            "opus",
            "fable",
            "sonnet",
            "haiku",
        ]
        assert info.commands
        assert info.capabilities
        assert wire.drift(info) == []
    assert fake.cli.peer.returncode == 0
    assert isinstance(fake.received[0], ControlRequest)
    assert fake.received[0].subtype == "initialize"
    envelope = wire.decode(fake.cli.sent[0])
    assert isinstance(envelope, ControlResponse)
    assert wire.to_dict(envelope)["response"]["pending_permission_requests"] == []


async def test_handshake_reports_hooks_and_overrides() -> None:
    async def hook(hook_input: Any, context: Any) -> dict[str, Any]:
        return {}

    options = Options(
        hooks={
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook, hook])],
            "Stop": [HookMatcher(hooks=[hook])],
        },
        shutdown_grace=0.5,
    )

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake(fast_mode_state="on")
        assert cli.hook_ids == {"PreToolUse": ["hook_0", "hook_1"], "Stop": ["hook_2"]}
        assert cli.hook_id("PreToolUse", 1) == "hook_1"

    fake = FakeCLI(script)
    async with open_session(options, transport=fake) as session:
        assert session.server_info is not None
        assert session.server_info.hooks_applied is True
        assert session.server_info.fast_mode_state == "on"


async def test_auto_handshake_and_argv_facts() -> None:
    seen: list[ScriptedCLI] = []

    async def script(cli: ScriptedCLI) -> None:
        assert cli.initialize is not None  # answered before the script ran
        seen.append(cli)

    options = Options(
        model="sonnet", permission_mode="plan", env={"HOME": "/h"}, shutdown_grace=0.5
    )
    fake = FakeCLI(script, auto_handshake=True, session_id="sid-1")
    async with open_session(options, transport=fake) as session:
        assert session.server_info is not None
        assert session.server_info.current_permission_mode == "plan"
    (cli,) = seen
    assert cli.model == "claude-sonnet-5-5"
    assert cli.session_id == "sid-1"
    assert "--verbose" in cli.argv
    assert cli.env["HOME"] == "/h"
    assert cli.env["CLAUDE_CODE_SDK_READS_SESSION_STATE"] == "1"


async def test_an_unanswered_initialize_times_out_and_hang_is_cancellable() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.hang()

    fake = FakeCLI(script)
    options = Options(initialize_timeout=0.2, shutdown_grace=0.1)
    with pytest.raises(InitializeTimeoutError):
        async with open_session(options, transport=fake):
            pass  # pragma: no cover
    assert fake.cli.peer.returncode == -15  # torn down like a CLI killed by SIGTERM
    assert fake.errors == []


# ======================================================================================
# automatic answers to host requests


async def test_automatic_answers() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        count = await cli.wait_for_interrupt()
        assert count == 1
        assert not cli.interrupted.is_set()  # taken
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    async with open_session(FAST, transport=fake) as session:
        receipt = await session.interrupt()
        assert receipt.response == InterruptResponse(still_queued=[])
        assert receipt.outcome == "no_op"

        assert await session.set_model("haiku") == SetModelResponse(model="claude-haiku-5-5")
        assert await session.set_model(None) == SetModelResponse(model="claude-opus-5-5")
        assert await session.set_model("claude-x-1") == SetModelResponse(model="claude-x-1")
        assert fake.cli.model == "claude-x-1"

        assert await session.set_permission_mode("acceptEdits") == SetPermissionModeResponse(
            mode="acceptEdits"
        )
        with pytest.raises(ControlRequestError) as bad_mode:
            await session.set_permission_mode("no-such-mode")
        assert bad_mode.value.error_code == "invalid_mode"
        assert bad_mode.value.error == (
            "Cannot set permission mode: must be one of "
            "acceptEdits, auto, bypassPermissions, default, dontAsk, plan"
        )

        with pytest.raises(ControlRequestError) as unknown:
            await session.control("no_such_subtype")
        assert unknown.value.error_code == "unsupported_request"
        assert unknown.value.error == "Unsupported control request subtype: no_such_subtype"

        await session.set_max_thinking_tokens(1000)
        await session.apply_flag_settings({"model": None})
        await session.rename_session("title")
        assert await session.mcp_status() == McpStatusResponse(mcp_servers=[])

        # The status frame that follows set_permission_mode reached the message stream.
        await session.close()
        messages = [m async for m in session.receive_messages()]
    statuses = [m for m in messages if isinstance(m, StatusMessage)]
    assert [s.permission_mode for s in statuses] == ["acceptEdits"]
    assert fake.cli.permission_mode == "acceptEdits"
    assert fake.cli.interrupt_count == 1


async def test_request_handlers_override_answers() -> None:
    async def script(cli: ScriptedCLI) -> None:
        @cli.on_request("set_model")
        def set_model(request: SetModelRequest) -> dict[str, Any]:
            assert isinstance(request, SetModelRequest)
            if request.model == "refuse":
                raise FakeCLI.Error("no such model", "model_not_found")
            if request.model == "silent":
                return NO_ANSWER  # type: ignore[return-value]
            body = cli.default_answer(request)
            assert body is not None
            return {**body, "model": "overridden"}

        async def slow_status(request: Any) -> dict[str, Any]:
            await anyio.lowlevel.checkpoint()
            return {"mcpServers": [{"name": "calc", "status": "connected"}]}

        cli.on_request("mcp_status", slow_status)
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    fake.on_request("get_session_cost", lambda request: {"text": "$0"})
    options = Options(shutdown_grace=0.5, control_timeout=0.2)
    async with open_session(options, transport=fake) as session:
        assert (await session.set_model("x")).model == "overridden"
        with pytest.raises(ControlRequestError) as refused:
            await session.set_model("refuse")
        assert refused.value.error_code == "model_not_found"
        with pytest.raises(ControlTimeoutError):
            await session.set_model("silent")
        status = await session.mcp_status()
        assert [s.name for s in status.mcp_servers or []] == ["calc"]
        assert await session.get_session_cost() == {"text": "$0"}
    assert len(fake.cli.unanswered) == 1


# ======================================================================================
# asking the SDK


async def test_can_use_tool_round_trip_with_an_sdk_callback() -> None:
    contexts: list[ToolPermissionContext] = []

    async def can_use_tool(
        tool: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionAllow | PermissionDeny:
        contexts.append(context)
        if tool == "Bash":
            return PermissionAllow(updated_input={**tool_input, "checked": True})
        if tool == "Explode":
            raise RuntimeError("callback exploded")
        return PermissionDeny(message="not that one")

    decisions: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        assert cli.permission_prompt_stdio
        decisions.append(await cli.can_use_tool("Bash", {"command": "ls"}, tool_use_id="toolu_1"))
        suggestion = AddRulesUpdate(
            rules=[PermissionRuleValue(tool_name="Write")], behavior="allow"
        )
        decisions.append(await cli.can_use_tool("Write", {"path": "x"}, suggestions=[suggestion]))
        decisions.append(await cli.can_use_tool("Explode", {}))

    fake = FakeCLI(script)
    options = Options(can_use_tool=can_use_tool, shutdown_grace=0.5)
    async with open_session(options, transport=fake):
        await fake.cli.script_done.wait()
    allow, deny, failed = decisions
    assert allow == PermissionAllow(updated_input={"command": "ls", "checked": True})
    assert isinstance(deny, PermissionDeny)
    assert deny.message == "not that one"
    assert isinstance(failed, PermissionDeny)  # the SDK fails closed
    assert "callback exploded" in failed.message
    assert contexts[0].tool_use_id == "toolu_1"
    first = contexts[0].suggestions[0]
    assert isinstance(first, AddRulesUpdate)
    assert first.rules[0].rule_content == "ls"
    assert contexts[1].suggestions == (
        AddRulesUpdate(rules=[PermissionRuleValue(tool_name="Write")], behavior="allow"),
    )


async def test_hook_callback_round_trip() -> None:
    inputs: list[Any] = []

    async def pre_tool_use(hook_input: Any, context: Any) -> dict[str, Any]:
        inputs.append(hook_input)
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": "fine",
            }
        }

    outputs: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        outputs.append(
            await cli.hook_callback(
                cli.hook_id("PreToolUse"),
                {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_9"},
            )
        )
        outputs.append(await cli.hook_callback("hook_99", {"hook_event_name": "Stop"}))

    options = Options(
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[pre_tool_use])]},
        shutdown_grace=0.5,
    )
    fake = FakeCLI(script)
    async with open_session(options, transport=fake):
        await fake.cli.script_done.wait()
    answer, unknown = outputs
    assert answer["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert isinstance(unknown, ControlError)
    (hook_input,) = inputs
    assert hook_input.tool_name == "Bash"
    assert hook_input.tool_use_id == "toolu_9"
    assert hook_input.session_id == fake.cli.session_id
    assert hook_input.effort == {"level": "medium"}
    request = fake.cli.sent[1]
    frame = wire.decode(request, strict=True)
    assert isinstance(frame, ControlRequest)
    assert wire.to_dict(frame)["request"]["tool_use_id"] == "toolu_9"


async def test_mcp_message_and_elicitation_round_trips() -> None:
    answers: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        # In-process MCP servers are initialized before the initialize response.
        answers.append(
            await cli.mcp_message("calc", {"jsonrpc": "2.0", "id": 0, "method": "initialize"})
        )
        await cli.handshake()
        answers.append(await cli.elicitation("calc", "Your name?"))

    fake = FakeCLI(script)
    async with open_session(FAST, transport=fake):
        await fake.cli.script_done.wait()
    mcp, elicitation = answers
    assert mcp["mcp_response"]["id"] == 0
    assert elicitation == {"action": "decline"}


async def test_cancel_request_suppresses_the_sdk_answer() -> None:
    started = anyio.Event()
    cancelled = anyio.Event()

    async def can_use_tool(tool: str, tool_input: dict[str, Any], context: Any) -> Any:
        if tool == "Second":
            return PermissionAllow()
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()

    outcomes: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        rid = await cli.start_can_use_tool("Bash", {"command": "sleep 99"})
        await started.wait()
        assert await cli.cancel_request(rid) is True
        assert await cli.cancel_request(rid) is False  # idempotent
        with pytest.raises(RequestCancelledError):
            await cli.answer(rid)
        await cli.next_prompt()  # the test writes it once the SDK cancelled its callback
        # A later round trip: an answer to the cancelled request would have come before it.
        outcomes.append(await cli.can_use_tool("Second", {}))

    fake = FakeCLI(script)
    async with open_session(
        Options(can_use_tool=can_use_tool, shutdown_grace=0.5), transport=fake
    ) as s:
        await cancelled.wait()
        await s.send("go on")
        await fake.cli.script_done.wait()
    assert isinstance(outcomes[0], PermissionAllow)
    assert fake.cli.answers_after_cancel == []
    assert fake.cli.stray_answers == []
    cancels = [wire.decode(line) for line in fake.cli.sent]
    assert sum(isinstance(f, ControlCancelRequest) for f in cancels) == 1


async def test_answers_after_cancel_are_recorded() -> None:
    """Drive the fake directly, playing an SDK that answers a cancelled request anyway."""
    rids: list[str] = []
    cancelled = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        rid = await cli.start_can_use_tool("Bash", {})
        rids.append(rid)
        await cli.cancel_request(rid)
        cancelled.set()

    fake = FakeCLI(script)
    async with fake.connect(spec_for()) as conn:
        request = wire.decode(await conn.receive())
        assert isinstance(request, ControlRequest)
        await cancelled.wait()
        late: dict[str, Any] = {
            "type": "control_response",
            "response": {
                "subtype": "success",
                "request_id": request.request_id,
                "response": {"behavior": "allow", "updatedInput": {}},
            },
        }
        await conn.send(wire.dumps(late))
        await conn.send(wire.dumps({**late, "response": {**late["response"], "request_id": "x"}}))
        await conn.send_eof()
        assert await conn.wait() == 0
    assert [r.request_id for r in fake.cli.answers_after_cancel] == rids
    assert [r.request_id for r in fake.cli.stray_answers] == ["x"]


async def test_answer_waits_time_out_with_a_clear_error() -> None:
    errors: list[BaseException] = []

    async def never(tool: str, tool_input: dict[str, Any], context: Any) -> Any:
        await anyio.sleep_forever()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        with pytest.raises(AnswerTimeoutError) as exc:
            await cli.can_use_tool("Bash", {}, timeout=0.05)
        errors.append(exc.value)

    fake = FakeCLI(script)
    async with open_session(Options(can_use_tool=never, shutdown_grace=0.5), transport=fake):
        await fake.cli.script_done.wait()
    assert "can_use_tool" in str(errors[0])
    assert "0.05 s" in str(errors[0])


# ======================================================================================
# turns


async def test_turn_plays_the_full_ordered_turn() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.turn(text=f"echo: {prompt.text}", thinking="hmm")

    fake = FakeCLI(script)
    async with open_session(FAST, transport=fake) as session:
        await session.send("hello")
        messages = await _collect_turn(session)
        assert await session.wait_until_idle()
    kinds = [type(m).__name__ for m in messages]
    assert kinds == [
        "SessionStateChangedMessage",
        "InitMessage",
        "ThinkingTokensMessage",
        "AssistantMessage",
        "AssistantMessage",
        "ResultMessage",
    ]
    assert isinstance(messages[1], InitMessage)
    assert messages[1].session_id == fake.cli.session_id
    thinking, text = messages[3], messages[4]
    assert isinstance(thinking, AssistantMessage)
    assert isinstance(text, AssistantMessage)
    assert thinking.message.id == text.message.id
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.result == "echo: hello"
    assert result.total_cost_usd == pytest.approx(0.010304)
    assert fake.cli.current_state == "idle"


async def test_turn_with_tools_asks_permission_and_calls_hooks_in_order() -> None:
    events: list[str] = []

    async def hook(hook_input: Any, context: Any) -> dict[str, Any]:
        events.append(f"hook:{hook_input.hook_event_name}")
        return {}

    async def can_use_tool(tool: str, tool_input: dict[str, Any], context: Any) -> Any:
        events.append(f"permission:{tool}")
        if tool == "Write":
            return PermissionDeny(message="no writes")
        return PermissionAllow()

    options = Options(
        can_use_tool=can_use_tool,
        hooks={
            "UserPromptSubmit": [HookMatcher(hooks=[hook])],
            "PreToolUse": [HookMatcher(matcher="Bash|Write", hooks=[hook])],
            "PostToolUse": [HookMatcher(matcher="Bash", hooks=[hook])],
            "Stop": [HookMatcher(hooks=[hook])],
        },
        shutdown_grace=0.5,
    )

    async def script(cli: ScriptedCLI) -> None:
        await cli.next_prompt()
        await cli.turn(
            text="Tool said: ok",
            tools=[("Bash", {"command": "ls"}, "a b"), ToolCall("Write", {"path": "x"})],
        )

    fake = FakeCLI(script)
    async with open_session(options, transport=fake) as session:
        await session.send("list")
        messages = await _collect_turn(session)
    assert events == [
        "hook:UserPromptSubmit",
        "hook:PreToolUse",
        "permission:Bash",
        "hook:PostToolUse",
        "hook:PreToolUse",
        "permission:Write",
        "hook:Stop",
    ]
    states = [m.state for m in messages if isinstance(m, SessionStateChangedMessage)]
    assert states == ["running", "requires_action", "running", "requires_action", "running"]
    results = [m for m in messages if isinstance(m, UserMessage)]
    assert [b.is_error for r in results for b in r.content if isinstance(b, ToolResultBlock)] == [
        False,
        True,
    ]
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.num_turns == 2
    assert [d.tool_name for d in result.permission_denials or []] == ["Write"]


async def test_interrupt_during_a_pending_permission_aborts_the_turn() -> None:
    started = anyio.Event()

    async def can_use_tool(tool: str, tool_input: dict[str, Any], context: Any) -> Any:
        started.set()
        await anyio.sleep_forever()

    async def script(cli: ScriptedCLI) -> None:
        await cli.next_prompt()
        await cli.turn(text="never", tools=[("Bash", {"command": "touch x"})])

    fake = FakeCLI(script)
    options = Options(can_use_tool=can_use_tool, shutdown_grace=0.5)
    async with open_session(options, transport=fake) as session:
        await session.send("touch")
        async with anyio.create_task_group() as tg:

            async def interrupt() -> None:
                await started.wait()
                await session.interrupt()

            tg.start_soon(interrupt)
            messages = await _collect_turn(session)
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "error_during_execution"
    assert result.terminal_reason == "aborted_tools"
    assert result.is_error
    notes = [m.text for m in messages if isinstance(m, UserMessage)]
    assert "[Request interrupted by user for tool use]" in notes
    assert fake.cli.answers_after_cancel == []
    # The cancel went out before the interrupt's own response, as in the e3 transcript.
    kinds = [type(wire.decode(line)).__name__ for line in fake.cli.sent]
    cancel_at = kinds.index("ControlCancelRequest")
    assert kinds[cancel_at + 1] == "ControlResponse"
    assert fake.cli.peer.returncode == 1  # stdin EOF after an error result


async def test_partial_messages_stream_with_assistant_frames_interleaved() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.next_prompt()
        await cli.turn(text="Hello there, streaming world")

    fake = FakeCLI(script)
    options = Options(include_partial_messages=True, shutdown_grace=0.5)
    async with open_session(options, transport=fake) as session:
        await session.send("hi")
        messages = await _collect_turn(session)
    events = [
        m.event["type"] if isinstance(m, StreamEvent) else type(m).__name__
        for m in messages
        if isinstance(m, (StreamEvent, AssistantMessage))
    ]
    assert events[0] == "message_start"
    assert events.index("AssistantMessage") == events.index("content_block_stop") - 1
    assert events[-2:] == ["message_delta", "message_stop"]
    deltas = [
        m.event["delta"]["text"]
        for m in messages
        if isinstance(m, StreamEvent) and m.event["type"] == "content_block_delta"
    ]
    assert "".join(deltas) == "Hello there, streaming world"


async def test_iter_prompts_and_several_connections() -> None:
    async def script(cli: ScriptedCLI) -> None:
        async for prompt in cli.iter_prompts():
            await cli.turn(text=prompt.text.upper())

    fake = FakeCLI(script)
    for word in ("one", "two"):
        async with open_session(FAST, transport=fake) as session:
            await session.send(word)
            messages = await _collect_turn(session)
            assert isinstance(messages[-1], ResultMessage)
            assert messages[-1].result == word.upper()
    assert len(fake.clis) == 2
    assert [len(c.prompts) for c in fake.clis] == [1, 1]
    assert len(fake.received) == sum(len(c.received) for c in fake.clis)
    assert [r.connection for r in fake.log] == sorted(r.connection for r in fake.log)
    times = [r.at for r in fake.log]
    assert times == sorted(times)
    assert fake.clis[0].session_id != fake.clis[1].session_id


# ======================================================================================
# raw output, exits, failures


async def test_garbage_and_partial_lines_are_survived() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.send_raw(b"plain garbage\n{broken json\n\n")
        await cli.send_raw(b'{"type":"keep_al')
        await cli.send_raw(b'ive"}\n')
        await cli.unknown_frame(detail="from the future")
        await cli.turn(text="still fine")

    fake = FakeCLI(script)
    async with open_session(FAST, transport=fake) as session:
        await session.send("x")
        messages = await _collect_turn(session)
        assert session.lines_undecodable == 1
    assert any(getattr(m, "type", None) == "future_frame_kind" for m in messages)
    assert isinstance(messages[-1], ResultMessage)
    assert messages[-1].result == "still fine"


async def test_exit_with_code_and_stderr() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.exit(3, stderr="fatal: boom\n")

    async def consume() -> None:
        async with open_session(FAST, transport=FakeCLI(script)) as session:
            async for _ in session.receive_messages():
                pass  # pragma: no cover

    with pytest.raises(ProcessError) as exc:
        await consume()
    assert exc.value.exit_code == 3
    assert "fatal: boom" in exc.value.stderr_tail


async def test_a_non_json_line_from_the_sdk_is_fatal_like_the_real_cli() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.next_prompt()  # never returns: the bad line ends the CLI

    fake = FakeCLI(script)
    async with fake.connect(spec_for()) as conn:
        await conn.send(b"{this is not json")
        assert await conn.wait() == 1
        stderr = conn.stderr_tail
    assert stderr == "Error parsing streaming input line (type=unknown, 17 chars): SyntaxError"
    assert fake.cli.bad_lines == [b"{this is not json"]
    assert fake.errors == []


async def test_script_failures_leave_the_session_block() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        assert prompt.text == "expected", f"unexpected prompt {prompt.text!r}"

    async def run(fake: FakeCLI) -> None:
        async with open_session(FAST, transport=fake) as session:
            await session.send("other")
            await _collect_turn(session)

    with pytest.raises(AssertionError, match="unexpected prompt 'other'"):
        await run(FakeCLI(script))

    quiet = FakeCLI(script, raise_script_errors=False)
    with pytest.raises(ProcessError) as exc:
        await run(quiet)
    assert "AssertionError: unexpected prompt" in exc.value.stderr_tail
    assert isinstance(quiet.errors[0], AssertionError)
    with pytest.raises(AssertionError):
        quiet.check()


async def test_stdin_close_while_waiting_ends_the_script_normally() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()

    fake = FakeCLI(script)
    async with open_session(FAST, transport=fake):
        pass
    assert fake.cli.peer.returncode == 0
    assert fake.errors == []
    with pytest.raises(StdinClosedError):
        await fake.cli.next_prompt()


# ======================================================================================
# every frame the fake writes is fully known to the SDK's model

_HOST_REQUEST_FIELDS: dict[str, dict[str, Any]] = {
    "interrupt": {},
    "set_permission_mode": {"mode": "plan"},
    "set_model": {"model": "opus"},
    "claim_session": {"cwd": "/tmp"},  # not a spare: refused (not_a_spare)
    "set_max_thinking_tokens": {"max_thinking_tokens": 1024},
    "mcp_status": {},
    "mcp_message": {"server_name": "calc", "message": {"jsonrpc": "2.0", "method": "x"}},
    "mcp_set_servers": {"servers": {"s": {"type": "stdio", "command": "s", "args": []}}},
    "mcp_reconnect": {"serverName": "s"},
    "mcp_toggle": {"serverName": "s", "enabled": False},
    "set_mcp_permission_mode_override": {"serverName": "s", "mode": "auto"},
    "mcp_read_resource": {"serverName": "s", "uri": "ui://x"},
    "mcp_call": {"tool": "mcp__s__t"},
    "rewind_files": {"user_message_id": "u"},
    "get_context_usage": {},
    "get_usage": {},
    "get_session_cost": {},
    "list_models": {},
    "get_binary_version": {},
    "get_status": {},
    "export_conversation": {},
    "file_suggestions": {"query": "sr"},
    "rename_session": {"title": "t"},
    "cancel_async_message": {"message_uuid": "u"},
    "read_file": {"path": "x.txt"},
    "seed_read_state": {"path": "x.txt", "mtime": 1.5},
    "register_repo_root": {"directory": "/r"},
    "reload_plugins": {},
    "reload_skills": {},
    "reload_output_styles": {},
    "set_has_subscribers": {"has_subscribers": True},
    "stop_task": {"task_id": "t"},
    "background_tasks": {},
    "get_task_output": {"task_id": "t"},
    "apply_flag_settings": {"settings": {"model": None}},
    "get_settings": {},
    "get_hooks_listing": {},
    "update_settings": {"source": "userSettings", "settings": {"effortLevel": "high"}},
    "list_permission_rules": {},
    "end_session": {},
    "set_color": {"color": "red"},
}


async def _emit_everything(cli: ScriptedCLI) -> None:
    await cli.handshake()
    await cli.next_prompt()
    await cli.keep_alive()
    await cli.state("running")
    await cli.system_init()
    await cli.status("requesting")
    await cli.assistant("text", thinking="thought", tool_use=[("Bash", {"command": "ls"})])
    await cli.assistant(tool_use=("Read", {"file_path": "/x"}, "toolu_x"), aborted=True)
    await cli.user_tool_result("toolu_x", "contents")
    await cli.user_tool_result("toolu_x", "denied", is_error=True)
    await cli.user_note("[Request interrupted by user]")
    await cli.stream_events("streamed", thinking="t", tool_use=("Bash", {}), with_assistant=True)
    await cli.result("done")
    await cli.result("api error", is_error=True, api_error_status=400)
    for subtype in ("error_during_execution", "error_max_turns", "error_max_budget_usd"):
        await cli.result(subtype=subtype)
    await cli.abort_turn("partial")
    await cli.start_can_use_tool("Bash", {"command": "ls", "description": "List"})
    await cli.start_mcp_message("calc", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    await cli.start_elicitation("calc", "Name?", requested_schema={"type": "object"})
    hook_inputs: list[tuple[str, dict[str, Any]]] = [
        ("UserPromptSubmit", {"prompt": "p"}),
        ("PreToolUse", {"tool_name": "Bash", "tool_input": {}, "tool_use_id": "t"}),
        (
            "PostToolUse",
            {"tool_name": "Bash", "tool_input": {}, "tool_response": "", "tool_use_id": "t"},
        ),
        ("Stop", {"stop_hook_active": False, "background_tasks": [], "session_crons": []}),
    ]
    for event, fields in hook_inputs:
        await cli.start_hook_callback(cli.hook_id(event), fields)
    await cli.turn(text="with tools", tools=[("Bash", {"command": "ls"}, "out")], thinking="t")
    await cli.turn(text="streamed turn", stream=True)
    await cli.serve_until_stdin_closes()


async def test_every_frame_the_fake_emits_is_known_to_the_model() -> None:
    known = {getattr(cls, "subtype", None) for cls in HOST_REQUESTS}
    assert known - {"initialize"} == set(_HOST_REQUEST_FIELDS)

    async def noop(hook_input: Any, context: Any) -> None:
        return None

    options = Options(
        hooks={
            event: [HookMatcher(hooks=[noop])]
            for event in ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
        },
        can_use_tool=lambda tool, tool_input, context: PermissionAllow(),
        shutdown_grace=0.5,
    )
    fake = FakeCLI(_emit_everything)
    async with open_session(options, transport=fake) as session:
        await session.send("go")
        for subtype, fields in _HOST_REQUEST_FIELDS.items():
            with contextlib.suppress(ControlRequestError):
                await session.control(subtype, **fields)
        async for message in session.receive_messages():
            if isinstance(message, ResultMessage) and message.result == "streamed turn":
                break
    fake.check()
    cli = fake.cli
    subtypes: dict[str, str] = {
        f.request_id: f.subtype or "" for f in cli.received if isinstance(f, ControlRequest)
    }
    kinds: set[str] = set()
    for line in cli.sent:
        frame = wire.decode(line, strict=True)  # raises DriftError on anything unknown
        kinds.add(f"{type(frame).__name__}/{getattr(frame, 'subtype', '')}")
        if isinstance(frame, ControlResponse) and not frame.is_error:
            subtype = subtypes[frame.request_id or ""]
            body = wire.to_dict(frame)["response"].get("response")
            typed = wire.decode_response(subtype, body)
            assert wire.drift(typed) == [], (subtype, wire.drift(typed))
    assert {
        "AssistantMessage/",
        "ResultMessage/success",
        "ResultMessage/error_during_execution",
        "SessionStateChangedMessage/session_state_changed",
        "InitMessage/init",
        "StatusMessage/status",
        "ThinkingTokensMessage/thinking_tokens",
        "SessionTitleChangedMessage/session_title_changed",
        "StreamEvent/",
        "UserMessage/",
        "KeepAlive/",
        "ControlRequest/can_use_tool",
        "ControlRequest/hook_callback",
        "ControlRequest/mcp_message",
        "ControlRequest/elicitation",
        "ControlResponse/",
    } - kinds == set()


def _kind(frame: dict[str, Any]) -> str:
    """A frame's kind, fine enough to compare key sets with the transcripts."""
    kind = frame.get("type")
    if kind == "control_request":
        return f"control_request/{frame['request']['subtype']}"
    if kind == "control_response":
        body = frame["response"].get("response") or {}
        return "control_response/initialize" if "commands" in body else "control_response"
    if kind == "stream_event":
        return f"stream_event/{frame['event']['type']}"
    if kind in ("assistant", "user"):
        content = frame["message"]["content"]
        return f"{kind}/{content[0]['type'] if isinstance(content, list) else 'str'}"
    return f"{kind}/{frame.get('subtype')}"


def _keys_by_kind(frames: list[dict[str, Any]]) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {}
    for frame in frames:
        keys.setdefault(_kind(frame), set()).update(frame)
        if frame.get("type") == "assistant":
            keys.setdefault("assistant.message", set()).update(frame["message"])
        if frame.get("type") == "control_request":
            keys.setdefault(f"{_kind(frame)}.request", set()).update(frame["request"])
        if _kind(frame) == "control_response/initialize":
            keys.setdefault("initialize.body", set()).update(frame["response"]["response"])
    return keys


async def test_frames_use_only_keys_the_recorded_cli_writes() -> None:
    recorded = [*records(), *(r for f in E2E_2_1_330 for r in records(f))]
    real = _keys_by_kind([r.msg for r in recorded if r.direction == "cli>sdk"])

    async def script(cli: ScriptedCLI) -> None:
        await cli.next_prompt()
        await cli.turn(text="x", tools=[("Bash", {"command": "ls", "description": "d"}, "o")])
        await cli.turn(text="y", thinking="t", stream=True)
        await cli.abort_turn("partial")
        await cli.hook_callback(cli.hook_id("Stop"), {"stop_hook_active": False})

    async def hook(hook_input: Any, context: Any) -> None:
        return None

    options = Options(
        can_use_tool=lambda tool, tool_input, context: PermissionAllow(),
        hooks={"PreToolUse": [HookMatcher(hooks=[hook])], "Stop": [HookMatcher(hooks=[hook])]},
        shutdown_grace=0.5,
    )
    fake = FakeCLI(script)
    async with open_session(options, transport=fake) as session:
        await session.send("go")
        await session.set_permission_mode("plan")
        await fake.cli.script_done.wait()
    mine = _keys_by_kind([wire.loads(line) for line in fake.cli.sent])
    for kind in (
        "system/init",
        "system/session_state_changed",
        "result/success",
        "assistant/thinking",
        "user/tool_result",
        "control_request/can_use_tool.request",
        "initialize.body",
    ):
        assert kind in mine, kind
    for kind, keys in mine.items():
        assert kind in real, f"the recorded CLI never wrote a {kind} frame"
        assert keys <= real[kind], (kind, sorted(keys - real[kind]))
    # The everyday kinds carry every key the recorded CLI wrote.
    for kind in ("system/init", "system/session_state_changed", "assistant/thinking"):
        assert mine[kind] == real[kind], (kind, sorted(real[kind] - mine[kind]))


# ======================================================================================
# Regressions: SDK bugs found while testing the fake


async def test_memory_transport_closes_a_cancelled_peers_stdout() -> None:
    async def peer(p: MemoryPeer) -> None:
        await anyio.sleep_forever()

    transport = MemoryTransport(peer)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with transport.connect(LaunchSpec(shutdown_grace=0.05)) as conn:
            pass
        assert conn.returncode == -15
        del conn
        transport.connections.clear()
        gc.collect()
    leaks = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert leaks == []


async def test_resume_of_a_missing_session_raises_session_not_found() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.result(
            subtype="error_during_execution",
            errors=["No conversation found with session ID: 0000-missing"],
        )
        await cli.exit(1)

    async def resume() -> None:
        options = Options(resume="0000-missing", shutdown_grace=0.5, initialize_timeout=5.0)
        async with open_session(options, transport=FakeCLI(script)):
            pass  # pragma: no cover

    with pytest.raises(SessionNotFoundError):
        await resume()


# ======================================================================================
# Scenarios: subagents, background tasks, rate limits, compaction


async def test_scenarios_subagent_background_task_rate_limit_and_compaction() -> None:
    from claude_sdk import messages as m

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.system_init()
        await cli.rate_limit("allowed_warning", utilization=0.8, rateLimitType="five_hour")
        await cli.subagent("Look around", "List the files", "There are 3 files.")
        await cli.background_task("npm test")
        await cli.compact()
        await cli.result("all done")
        await cli.state("idle")

    fake = FakeCLI(script)
    async with open_session(transport=fake) as session:
        await session.send("go")
        frames = [f async for f in session.receive_response()]
    assert all(wire.drift(f) == [] for f in frames), [wire.drift(f) for f in frames]
    kinds = {type(f) for f in frames}
    assert {
        m.RateLimitEvent,
        m.TaskStartedMessage,
        m.TaskProgressMessage,
        m.TaskUpdatedMessage,
        m.TaskNotificationMessage,
        m.CompactBoundaryMessage,
        m.StatusMessage,
    } <= kinds
    agent_call = next(
        b
        for f in frames
        if isinstance(f, m.AssistantMessage)
        for b in f.content
        if isinstance(b, m.ToolUseBlock) and b.name == "Agent"
    )
    sub = [f for f in frames if isinstance(f, m.AssistantMessage) and f.parent_tool_use_id]
    assert [f.parent_tool_use_id for f in sub] == [agent_call.id]
    assert sub[0].text == "There are 3 files."
    rate = next(f for f in frames if isinstance(f, m.RateLimitEvent))
    assert rate.rate_limit_info.rate_limit_type == "five_hour"
    compacted = next(f for f in frames if isinstance(f, m.CompactBoundaryMessage))
    assert compacted.compact_metadata.trigger == "manual"


async def test_results_name_the_prompts_taken_as_the_cli_does() -> None:
    """Issue 26: the fake names prompts like CLI 2.1.330 (lifecycle frames, the turn's init
    and result), and its own turns name none."""
    seen: dict[str, Any] = {}

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        first = await cli.next_prompt()
        await cli.own_turn("own, while the prompt waits")
        await cli.result("task", origin={"kind": "task-notification"})
        answered = await cli.turn(text="one")
        seen["first"] = (first.uuid, answered.user_message_uuids)
        second = await cli.next_prompt()
        third = await cli.next_prompt()
        both = await cli.turn(text="two and three")
        seen["merged"] = ([second.uuid, third.uuid], both.user_message_uuids)
        fourth = await cli.next_prompt()
        await cli.result("explicitly none", user_message_uuids=[])
        late = await cli.result("four")
        seen["fourth"] = (fourth.uuid, late.user_message_uuids)
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    async with open_session(Options(shutdown_grace=1.0), transport=fake) as session:
        one = await session.send("1")
        first = [m async for m in session.receive_response()]
        two, three = await session.send("2"), await session.send("3")
        merged = [m async for m in session.receive_response(three)]
        four = await session.send("4")
        fourth = [m async for m in session.receive_response(four)]
    assert seen["first"] == (one, [one])
    assert seen["merged"] == ([two, three], [two, three])
    assert seen["fourth"] == (four, [four])
    results = [m for m in first if isinstance(m, ResultMessage)]
    assert [(r.text, r.own_turn) for r in results] == [
        ("own, while the prompt waits", True),
        ("task", True),
        ("one", False),
    ]
    last = merged[-1]
    assert isinstance(last, ResultMessage)
    assert last.settles == (two, three)
    assert [(r.text, r.own_turn) for r in fourth if isinstance(r, ResultMessage)] == [
        ("explicitly none", True),
        ("four", False),
    ]
    written = [wire.loads(line) for line in fake.cli.sent]
    lifecycle = [
        (f["command_uuid"], f["state"]) for f in written if f["type"] == "command_lifecycle"
    ]
    assert (one, "queued") in lifecycle
    assert lifecycle.index((one, "started")) < lifecycle.index((one, "completed"))
