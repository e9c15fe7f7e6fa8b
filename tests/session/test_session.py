"""Session under structured concurrency, driven through FakeCLI (asyncio and trio)."""

from __future__ import annotations

import gc
import json
import sys
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.hooks import HookContext, PreToolUseInput, StopInput
from claude_sdk.messages import SystemMessage
from claude_sdk.testing import NO_ANSWER, FakeCLI, ScriptedCLI, ToolCall
from claude_sdk.transports import memory as memory_transport

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup


def result_of(messages: list[cs.Message]) -> cs.ResultMessage:
    last = messages[-1]
    assert isinstance(last, cs.ResultMessage)
    return last


# ======================================================================================
# Turns


async def test_a_turn_streams_typed_messages() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="Hello there", thinking="let me think")

    fake = FakeCLI(script)
    async with cs.open_session(transport=fake) as session:
        assert session.server_info is not None
        assert session.server_info.claude_code_version == "2.1.330"
        await session.send("hi")
        messages = [m async for m in session.receive_response()]
    kinds = [type(m).__name__ for m in messages]
    assert kinds[0] == "SessionStateChangedMessage"
    assert "InitMessage" in kinds
    assert any(
        isinstance(b, cs.ThinkingBlock)
        for m in messages
        if isinstance(m, cs.AssistantMessage)
        for b in m.content
    )
    assert result_of(messages).result == "Hello there"
    assert session.session_id == fake.cli.session_id
    prompts = [f for f in fake.received if isinstance(f, cs.UserMessage)]
    assert [p.text for p in prompts] == ["hi"]


async def test_three_turns_in_one_session() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for _ in range(3):
            prompt = await cli.next_prompt()
            await cli.turn(text=f"echo: {prompt.text}")

    async with cs.open_session(transport=FakeCLI(script)) as session:
        answers = []
        for prompt in ("one", "two", "three"):
            await session.send(prompt)
            answers.append(result_of([m async for m in session.receive_response()]).result)
    assert answers == ["echo: one", "echo: two", "echo: three"]


async def test_results_come_back_in_the_order_prompts_were_sent() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for _ in range(3):
            prompt = await cli.next_prompt()
            await cli.turn(text=f"answer to {prompt.text}")

    async with cs.open_session(transport=FakeCLI(script)) as session:
        for prompt in ("a", "b", "c"):
            await session.send(prompt)  # all queued before reading anything
        answers = []
        for _ in range(3):
            answers.append(result_of([m async for m in session.receive_response()]).result)
    assert answers == ["answer to a", "answer to b", "answer to c"]


async def test_an_interrupt_mid_stream_returns_a_receipt_and_an_error_result() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.system_init()
        await cli.stream_events("partial answer")
        await cli.wait_for_interrupt()
        await cli.abort_turn("partial answer")

    async with cs.open_session(
        cs.Options(include_partial_messages=True), transport=FakeCLI(script)
    ) as session:
        await session.send("go")
        receipt = None
        messages: list[cs.Message] = []
        async for message in session.receive_response():
            messages.append(message)
            if receipt is None and isinstance(message, cs.StreamEvent):
                receipt = await session.interrupt()
    assert receipt is not None
    assert receipt.still_queued == []
    result = result_of(messages)
    assert result.is_error
    assert result.subtype == "error_during_execution"
    assert result.terminal_reason == "aborted_streaming"


# ======================================================================================
# The reader never blocks on a consumer


async def test_with_1000_messages_unread_interrupt_and_permission_callback_complete() -> None:
    asked = anyio.Event()
    decisions: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        for i in range(1000):
            await cli.assistant(text=f"message {i}")
        decisions.append(await cli.can_use_tool("Bash", {"command": "ls"}))
        await cli.wait_for_interrupt()
        await cli.result("interrupted", subtype="error_during_execution")

    async def allow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        asked.set()
        return cs.PermissionAllow()

    async with cs.open_session(
        cs.Options(can_use_tool=allow), transport=FakeCLI(script)
    ) as session:
        await session.send("flood me")
        with anyio.fail_after(10):
            await asked.wait()  # nobody has read anything yet
            receipt = await session.interrupt()
        assert receipt.still_queued == []
        messages = [m async for m in session.receive_response()]
    assert sum(isinstance(m, cs.AssistantMessage) for m in messages) == 1000
    assert isinstance(decisions[0], cs.PermissionAllow)


# ======================================================================================
# Structured concurrency


async def test_a_hundred_sessions_torn_down_by_cancelling_the_outer_scope() -> None:
    started = 0
    all_started = anyio.Event()
    transports: list[FakeCLI] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.assistant(text="working...")
        await cli.hang()  # mid-turn for ever

    async def one() -> None:
        nonlocal started
        fake = FakeCLI(script)
        transports.append(fake)
        # An hour's grace: a cancelled session that waited it (even one) would hang the test.
        opts = cs.Options(shutdown_grace=3600.0)
        async with cs.open_session(opts, transport=fake) as session:
            await session.send("go")
            async for message in session.receive_messages():
                if isinstance(message, cs.AssistantMessage):
                    started += 1
                    if started == 100:
                        all_started.set()

    with anyio.fail_after(30):  # a hang guard, not a measure
        async with anyio.create_task_group() as tg:
            for _ in range(100):
                tg.start_soon(one)
            await all_started.wait()
            tg.cancel_scope.cancel()
    assert tg.cancel_scope.cancel_called
    assert len(transports) == 100
    for fake in transports:
        cli = fake.cli
        assert cli.exited  # every peer ended
        for conn in fake.connections:
            assert conn.returncode == -15  # terminated like a real CLI, the grace not waited


async def test_breaking_out_of_async_for_early_closes_cleanly() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="x")
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    async with cs.open_session(transport=fake) as session:
        await session.send("go")
        async for _ in session.receive_messages():
            break
    assert fake.cli.exited
    assert fake.connections[0].returncode == 0


async def test_cancelling_the_consuming_task_closes_cleanly() -> None:
    consuming = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.hang()

    fake = FakeCLI(script)
    async with cs.open_session(cs.Options(shutdown_grace=0.2), transport=fake) as session:
        await session.send("go")

        async def consume() -> None:
            consuming.set()
            async for _ in session.receive_messages():
                pass

        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await consuming.wait()
            tg.cancel_scope.cancel()
        # the session is still usable from this task after the consumer was cancelled
        assert not session.closed
    assert fake.cli.exited


async def test_raising_inside_the_async_with_body_leaves_as_that_exception() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    with pytest.raises(KeyError) as info:
        async with cs.open_session(transport=fake):
            raise KeyError("mine")
    assert not isinstance(info.value, BaseExceptionGroup)
    assert fake.cli.exited


async def test_a_garbage_collected_message_stream_leaves_no_warning() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="x")
        await cli.serve_until_stdin_closes()

    async with cs.open_session(transport=FakeCLI(script)) as session:
        await session.send("go")
        stream = session.receive_response()
        await stream.__anext__()
        del stream
        gc.collect()
        messages = [m async for m in session.receive_response()]
    assert isinstance(messages[-1], cs.ResultMessage)


# ======================================================================================
# Inbound control requests


async def test_control_cancel_request_cancels_a_running_permission_handler() -> None:
    entered = anyio.Event()
    saw_cancel = anyio.Event()
    request_ids: list[str] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        rid = await cli.start_can_use_tool("Bash", {"command": "sleep"})
        request_ids.append(rid)
        await entered.wait()
        await cli.cancel_request(rid)
        await saw_cancel.wait()
        await cli.serve_until_stdin_closes()

    flags: list[bool] = []

    async def slow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        entered.set()
        flags.append(ctx.cancelled)
        try:
            await anyio.sleep_forever()
        finally:
            flags.append(ctx.cancelled)
            saw_cancel.set()
        raise AssertionError("unreachable")

    fake = FakeCLI(script)
    async with cs.open_session(cs.Options(can_use_tool=slow), transport=fake) as session:
        with anyio.fail_after(10):
            await saw_cancel.wait()
        assert session.inbound_in_flight == []
    assert flags == [False, True]  # the context's cancellation signal
    cli = fake.cli
    assert cli.answers_after_cancel == []
    answers = [
        f
        for f in fake.received
        if isinstance(f, cs.ControlResponse) and f.request_id == request_ids[0]
    ]
    assert answers == []


async def test_a_permission_callback_that_raises_denies_the_tool_and_the_session_goes_on() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="after the denial", tools=[ToolCall("Bash", {"command": "rm -rf /"})])
        await cli.next_prompt()
        await cli.turn(text="still alive")

    async def explode(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        raise RuntimeError("callback exploded")

    fake = FakeCLI(script)
    async with cs.open_session(cs.Options(can_use_tool=explode), transport=fake) as session:
        await session.send("delete everything")
        first = result_of([m async for m in session.receive_response()])
        await session.send("hello?")
        second = result_of([m async for m in session.receive_response()])
    assert [d.tool_name for d in first.permission_denials or []] == ["Bash"]
    assert second.result == "still alive"
    answers = [
        f.response.response
        for f in fake.received
        if isinstance(f, cs.ControlResponse) and isinstance(f.response, cs.ControlSuccess)
    ]
    denial = next(a for a in answers if a and a.get("behavior") == "deny")
    assert "callback exploded" in denial["message"]


async def test_a_permission_callback_that_times_out_denies() -> None:
    replies: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        replies.append(await cli.can_use_tool("Bash", {"command": "ls"}))

    async def slow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    options = cs.Options(can_use_tool=slow, callback_timeout=0.1)
    fake = FakeCLI(script)
    async with cs.open_session(options, transport=fake):
        with anyio.fail_after(10):
            await fake.cli.script_done.wait()
    assert isinstance(replies[0], cs.PermissionDeny)
    assert "TimeoutError" in replies[0].message


async def test_failing_hooks_fail_closed() -> None:
    outcomes: dict[str, Any] = {}
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        init = await cli.handshake()
        assert init.hooks is not None
        pre = cli.hook_id("PreToolUse")
        stop = cli.hook_id("Stop")
        base = {"session_id": "s", "transcript_path": "/t", "cwd": "/"}
        outcomes["pre"] = await cli.hook_callback(
            pre, {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}
        )
        outcomes["stop"] = await cli.hook_callback(
            stop, {**base, "hook_event_name": "Stop", "stop_hook_active": False}
        )
        done.set()
        await cli.serve_until_stdin_closes()

    async def broken_pre(hook_input: PreToolUseInput, ctx: HookContext) -> cs.HookOutput:
        raise ValueError("pre broke")

    async def broken_stop(hook_input: StopInput, ctx: HookContext) -> cs.HookOutput:
        raise ValueError("stop broke")

    options = cs.Options(
        hooks={
            "PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[broken_pre])],
            "Stop": [cs.HookMatcher(hooks=[broken_stop])],
        }
    )
    async with cs.open_session(options, transport=FakeCLI(script)):
        with anyio.fail_after(10):
            await done.wait()
    specific = outcomes["pre"]["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "pre broke" in specific["permissionDecisionReason"]
    stop = outcomes["stop"]
    assert isinstance(stop, cs.ControlError)
    assert "stop broke" in stop.error


async def test_unknown_inbound_subtypes_get_an_error_response() -> None:
    replies: list[Any] = []
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        replies.append(await cli.request("brand_new_request", x=1))
        done.set()
        await cli.serve_until_stdin_closes()

    async with cs.open_session(transport=FakeCLI(script)):
        with anyio.fail_after(10):
            await done.wait()
    reply = replies[0]
    assert isinstance(reply, cs.ControlError)
    assert reply.error_code == "unsupported_request"
    assert "brand_new_request" in reply.error


# ======================================================================================
# Deadlines


async def test_a_control_request_never_answered_raises_control_timeout() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        cli.on_request("set_model", lambda request: NO_ANSWER)
        await cli.serve_until_stdin_closes()

    options = cs.Options(control_timeout=0.2)
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        with pytest.raises(cs.ControlTimeoutError) as info:
            await session.set_model("opus")
        assert info.value.subtype == "set_model"
        assert info.value.timeout == 0.2
        assert isinstance(info.value, TimeoutError)
        assert session.pending_requests == []
        # the session goes on after a timeout
        mode = await session.set_permission_mode("plan")
        assert mode.mode == "plan"


async def test_a_cli_that_never_answers_initialize_raises_within_initialize_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Which rule, read from what the code computed (no duration is measured): the teardown
    began once the initialize timeout had run out, and gave the grace given (0.2 s), not
    the 5 s default."""
    teardowns: list[tuple[float, float, float | None]] = []  # (began, grace, deadline)
    module: Any = memory_transport  # graceful_end is imported there, not exported
    real = module.graceful_end

    def graceful_end(grace: float, deadline: float | None) -> float:
        teardowns.append((anyio.current_time(), grace, deadline))
        end: float = real(grace, deadline)
        return end

    monkeypatch.setattr(module, "graceful_end", graceful_end)

    async def script(cli: ScriptedCLI) -> None:
        await cli.hang()

    fake = FakeCLI(script)
    begin = anyio.current_time()
    with pytest.raises(cs.InitializeTimeoutError) as info:
        async with cs.open_session(
            cs.Options(initialize_timeout=0.3, shutdown_grace=0.2), transport=fake
        ):
            pytest.fail("must not start")
    assert info.value.timeout == 0.3
    ((began, grace, _),) = teardowns
    assert began >= begin + 0.3  # the initialize timeout ran out first
    assert grace == 0.2  # the grace given, not the default
    (conn,) = fake.connections
    assert conn.returncode == -15  # it hangs: terminated once that grace was over


async def test_inactivity_is_observable_and_optionally_fatal() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.hang()

    options = cs.Options(inactivity_timeout=0.2, shutdown_grace=0.2)
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.send("go")
        with pytest.raises(cs.InactivityTimeoutError) as info:
            async for _ in session.receive_response():
                pass
        assert info.value.timeout == 0.2
        assert info.value.last_activity == session.last_activity


# ======================================================================================
# The CLI failing


async def test_exiting_mid_turn_is_a_process_error_at_once_for_the_consumer_and_waiters() -> None:
    asked = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        cli.on_request("get_settings", lambda request: NO_ANSWER)
        await cli.next_prompt()
        await cli.assistant(text="about to die")
        await asked.wait()
        await cli.exit(3, stderr="boom\n")

    options = cs.Options(control_timeout=60)
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.send("go")
        errors: list[BaseException] = []

        async def waiter() -> None:
            try:
                await session.get_settings()
            except cs.ProcessError as exc:
                errors.append(exc)

        with anyio.fail_after(5):  # "at once": not after control_timeout
            async with anyio.create_task_group() as tg:
                tg.start_soon(waiter)
                await anyio.wait_all_tasks_blocked()
                asked.set()
                seen: list[cs.Message] = []
                with pytest.raises(cs.ProcessError) as info:
                    async for message in session.receive_response():
                        seen.append(message)
    assert info.value.exit_code == 3
    assert "boom" in info.value.stderr_tail
    assert [type(m).__name__ for m in seen] == ["AssistantMessage"]  # delivered first
    assert len(errors) == 1
    assert isinstance(errors[0], cs.ProcessError)
    assert errors[0].exit_code == 3


async def test_an_unobserved_process_error_leaves_the_async_with() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.exit(7, stderr="gone\n")

    with pytest.raises(cs.ProcessError) as info:
        async with cs.open_session(transport=FakeCLI(script)) as session:
            with anyio.fail_after(5):
                await session.wait_closed()
    assert info.value.exit_code == 7


async def test_exit_1_after_an_error_result_is_not_a_process_error() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="API Error: 529 overloaded", is_error=True, api_error_status=529)
        await cli.exit(1)

    with pytest.raises(cs.ResultError) as info:
        await cs.ask("hi", transport=FakeCLI(script))
    assert info.value.kind == "overloaded"


async def test_garbage_lines_and_unknown_frames_do_not_end_the_stream() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.assistant(text="before")
        await cli.send_raw(b"[SandboxDebug] not json\n{broken json\n\n\r\n")
        await cli.unknown_frame(type="future_frame_kind", payload={"x": 1})
        await cli.send({"type": "system", "subtype": "future_subtype", "detail": 1})
        await cli.assistant(text="after")
        await cli.result("done")

    async with cs.open_session(transport=FakeCLI(script)) as session:
        await session.send("go")
        messages = [m async for m in session.receive_response()]
    kinds = [type(m).__name__ for m in messages]
    assert kinds == [
        "AssistantMessage",
        "UnknownMessage",
        "SystemMessage",
        "AssistantMessage",
        "ResultMessage",
    ]
    unknown = messages[1]
    assert isinstance(unknown, cs.UnknownMessage)
    assert unknown.raw["payload"] == {"x": 1}
    system = messages[2]
    assert isinstance(system, SystemMessage)
    assert system.extra == {"detail": 1}
    assert session.lines_undecodable == 1  # "{broken json"


async def test_a_line_over_max_line_bytes_ends_the_session_with_line_too_long() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.assistant(text="x" * 100_000)
        await cli.result("done")

    options = cs.Options(max_line_bytes=65536)
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.send("go")
        with pytest.raises(cs.LineTooLongError) as info:
            async for _ in session.receive_response():
                pass
    assert info.value.limit == 65536


# ======================================================================================
# query / ask


async def test_query_streams_one_turn() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="streamed")

    async with cs.query("hi", transport=FakeCLI(script)) as messages:
        collected = [m async for m in messages]
    assert result_of(collected).result == "streamed"


async def test_ask_returns_the_reply() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.turn(text=f"you said {prompt.text}")

    reply = await cs.ask("hello", transport=FakeCLI(script))
    assert reply.text == "you said hello"
    assert reply.result.subtype == "success"
    assert reply.session_id
    assert json.loads(cs.wire.encode(reply.result))["type"] == "result"


async def test_hooks_registered_with_the_decorator_registry_run() -> None:
    seen: list[str] = []
    done = anyio.Event()
    hooks = cs.HookRegistry()

    @hooks.on("PreToolUse", matcher="Bash")
    def audit(hook_input: PreToolUseInput, context: HookContext) -> None:  # a sync hook
        seen.append(f"pre:{hook_input.tool_name}")

    @hooks.on("Stop")
    async def stopped(hook_input: StopInput, context: HookContext) -> cs.HookOutput:
        seen.append("stop")
        return cs.HookOutput(system_message="bye")

    async def script(cli: ScriptedCLI) -> None:
        init = await cli.handshake()
        assert init.hooks is not None
        assert init.hooks["PreToolUse"][0].on_failure == "block"  # the default, fail closed
        await cli.next_prompt()
        await cli.turn(text="ok", tools=[ToolCall("Bash", {"command": "ls"})])
        done.set()

    async def allow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        return cs.PermissionAllow()

    options = cs.Options(hooks=hooks, can_use_tool=allow)
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.send("go")
        _ = [m async for m in session.receive_response()]
        await done.wait()
    assert seen == ["pre:Bash", "stop"]
    with pytest.raises(ValueError, match="non-empty string"):
        hooks.on("")  # type: ignore[arg-type]


async def test_callbacks_get_a_typed_view_of_built_in_tool_inputs() -> None:
    from claude_sdk.tool_inputs import BashInput, McpInput

    views: list[Any] = []

    async def allow(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        views.append(ctx.typed_input)
        return cs.PermissionAllow()

    async def pre(hook_input: PreToolUseInput, context: HookContext) -> None:
        views.append(hook_input.typed_input)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(
            text="ok",
            tools=[ToolCall("Bash", {"command": "ls -la"}), ToolCall("mcp__x__y", {"a": 1})],
        )

    options = cs.Options(can_use_tool=allow, hooks={"PreToolUse": [cs.HookMatcher(hooks=[pre])]})
    await cs.ask("go", options=options, transport=FakeCLI(script))
    bash = [v for v in views if isinstance(v, BashInput)]
    assert [b.command for b in bash] == ["ls -la", "ls -la"]  # hook and permission
    # An MCP tool's input is an McpInput (its arguments, which no model can know, in extra).
    assert [v.arguments for v in views if isinstance(v, McpInput)] == [{"a": 1}, {"a": 1}]


async def test_an_answer_that_does_not_fit_the_model_fails_its_request_at_once() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        cli.on_request("mcp_status", lambda request: {"mcpServers": ["not an object"]})
        await cli.serve_until_stdin_closes()

    async with cs.open_session(
        cs.Options(control_timeout=30), transport=FakeCLI(script)
    ) as session:
        with anyio.fail_after(5), pytest.raises(cs.MessageDecodeError) as info:
            await session.mcp_status()
        assert "mcp_status" in str(info.value)
        # the session goes on
        mode = await session.set_permission_mode("plan")
        assert mode.mode == "plan"


# ======================================================================================
# Elicitation, user dialogs, MCP server notifications


async def test_elicitation_is_declined_without_a_callback_and_answered_with_one() -> None:
    answers: list[Any] = []
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        answers.append(await cli.elicitation("github", "Your token?", mode="form"))
        done.set()

    async with cs.open_session(transport=FakeCLI(script)):
        await done.wait()
    assert answers == [{"action": "decline"}]

    answers.clear()
    done = anyio.Event()
    asked: list[Any] = []

    async def on_elicitation(request: Any) -> dict[str, Any]:
        asked.append((request.mcp_server_name, request.message))
        return {"action": "accept", "content": {"token": "t0k"}}

    async with cs.open_session(
        cs.Options(on_elicitation=on_elicitation), transport=FakeCLI(script)
    ):
        await done.wait()
    assert asked == [("github", "Your token?")]
    assert answers == [{"action": "accept", "content": {"token": "t0k"}}]


async def test_user_dialogs_reach_the_callback() -> None:
    answers: list[Any] = []
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        answers.append(
            await cli.request("request_user_dialog", dialog_kind="confirm", payload={"q": 1})
        )
        done.set()

    async def on_dialog(request: Any) -> dict[str, Any]:
        return {"behavior": "completed", "result": {"kind": request.dialog_kind}}

    options = cs.Options(on_user_dialog=on_dialog, supported_dialog_kinds=["confirm"])
    async with cs.open_session(options, transport=FakeCLI(script)):
        await done.wait()
    assert answers == [{"behavior": "completed", "result": {"kind": "confirm"}}]


async def test_an_in_process_server_notification_is_relayed_to_the_cli() -> None:
    relayed = anyio.Event()
    messages: list[Any] = []

    class Notifier:
        """A raw JSON-RPC server that notifies the client when its tool list changes."""

        def __init__(self) -> None:
            self.session: Any = None

        async def handle_mcp_message(self, message: dict[str, Any]) -> dict[str, Any] | None:
            if message.get("method") == "tools/list":
                return {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}
            return None

    async def script(cli: ScriptedCLI) -> None:
        def record(request: Any) -> dict[str, Any]:
            messages.append(request)
            return {}

        cli.on_request("mcp_message", record)
        await cli.handshake()
        answer = await cli.mcp_message("notes", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert answer == {"mcp_response": {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}}
        relayed.set()

    async with cs.open_session(
        cs.Options(mcp_servers={"notes": Notifier()}), transport=FakeCLI(script)
    ) as session:
        await relayed.wait()
        await session.mcp_message(
            "notes", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        )
    assert [m.message["method"] for m in messages] == ["notifications/tools/list_changed"]


async def test_an_mcp_server_notification_is_relayed_by_the_bridge() -> None:
    from mcp import types
    from mcp.server import Server

    relayed: list[Any] = []
    got_it = anyio.Event()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        await ctx.session.send_tool_list_changed()  # the server speaks on its own
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    server = Server("notes", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)

    def on_relay(request: Any) -> dict[str, Any]:
        relayed.append(request.message)
        got_it.set()
        return {}

    async def script(cli: ScriptedCLI) -> None:
        cli.on_request("mcp_message", on_relay)
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1.330"},
        }
        await cli.mcp_message(
            "notes", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
        )
        await cli.handshake()
        await cli.mcp_message("notes", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        answer = await cli.mcp_message(
            "notes",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "x", "arguments": {}},
            },
        )
        assert isinstance(answer, dict)
        assert answer["mcp_response"]["id"] == 1
        await got_it.wait()

    async with cs.open_session(
        cs.Options(mcp_servers={"notes": server}), transport=FakeCLI(script)
    ):
        with anyio.fail_after(10):
            await got_it.wait()
    assert relayed[0]["method"] == "notifications/tools/list_changed"


async def test_leaving_the_block_waits_for_idle_so_late_hooks_are_answered() -> None:
    """Background work after the result (a subagent) still gets its hooks answered."""
    late: list[Any] = []
    calls: list[str] = []

    async def stop_hook(hook_input: StopInput, context: HookContext) -> cs.HookOutput:
        calls.append("stop")
        return cs.HookOutput(system_message="ok")

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.assistant(text="main answer")
        await cli.result("main answer")
        # the turn's result is out, but a background subagent is still working
        base = {"session_id": "s", "transcript_path": "/t", "cwd": "/"}
        late.append(
            await cli.hook_callback(
                cli.hook_id("Stop"),
                {**base, "hook_event_name": "Stop", "stop_hook_active": False},
            )
        )
        await cli.state("idle")
        await cli.wait_for_stdin_close()

    options = cs.Options(hooks={"Stop": [cs.HookMatcher(hooks=[stop_hook])]})
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.send("go")
        _ = [m async for m in session.receive_response()]
    assert calls == ["stop"]
    assert late == [{"systemMessage": "ok"}]


async def test_send_after_the_cli_died_raises_its_process_error() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.exit(5, stderr="gone\n")

    with pytest.raises(cs.ProcessError) as outer:
        async with cs.open_session(transport=FakeCLI(script)) as session:
            with pytest.raises(cs.ProcessError) as info:
                for _ in range(100):  # whichever comes first: the reader or the write
                    await session.send("hello?")
            assert info.value.exit_code == 5
            raise info.value
    assert outer.value.exit_code == 5
