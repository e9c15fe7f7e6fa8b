"""Inbound requests and their workers: cancellation per request, through shared cancel scopes.

A worker runs its handlers in one cancel scope until a request it serves is withdrawn (issue
8: a scope per request cost more than a typical callback). These tests pin what that must not
change: a withdrawal cancels exactly the handler it names, the context's flags are per
request, later requests are answered, and a handler cancelled from the host's side still
answers the CLI. Every test runs on asyncio and Trio.
"""

from __future__ import annotations

from typing import Any

import anyio
import orjson

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI


async def test_a_withdrawal_cancels_only_its_handler_and_later_requests_are_answered() -> None:
    contexts: dict[str, cs.ToolPermissionContext] = {}
    entered = {name: anyio.Event() for name in ("slow1", "slow2")}
    answers: dict[str, Any] = {}
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        answers["fast1"] = await cli.can_use_tool("fast1", {})
        rid = await cli.start_can_use_tool("slow1", {})
        await entered["slow1"].wait()
        assert await cli.cancel_request(rid)
        answers["fast2"] = await cli.can_use_tool("fast2", {})
        rid = await cli.start_can_use_tool("slow2", {})
        await entered["slow2"].wait()
        assert await cli.cancel_request(rid)
        answers["fast3"] = await cli.can_use_tool("fast3", {})
        done.set()
        await cli.serve_until_stdin_closes()

    async def decide(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        contexts[name] = ctx
        if name.startswith("slow"):
            entered[name].set()
            await anyio.sleep_forever()
        return cs.PermissionAllow()

    fake = FakeCLI(script)
    async with cs.open_session(cs.Options(can_use_tool=decide), transport=fake) as session:
        with anyio.fail_after(10):
            await done.wait()
        assert session.inbound_in_flight == []
    assert {k: type(v).__name__ for k, v in answers.items()} == {
        "fast1": "PermissionAllow",
        "fast2": "PermissionAllow",
        "fast3": "PermissionAllow",
    }
    # Each flag belongs to its own request, whichever scope its handler shared.
    assert {k: c.cancelled for k, c in contexts.items()} == {
        "fast1": False,
        "slow1": True,
        "fast2": False,
        "slow2": True,
        "fast3": False,
    }
    assert fake.cli.answers_after_cancel == []
    assert fake.cli.stray_answers == []


async def test_a_request_withdrawn_in_the_same_read_never_runs() -> None:
    ran: list[str] = []
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        request = {
            "type": "control_request",
            "request_id": "withdrawn-at-once",
            "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}},
        }
        cancel = {"type": "control_cancel_request", "request_id": "withdrawn-at-once"}
        # One write: the reader accepts the request and reads its withdrawal in one batch.
        await cli.send_raw(orjson.dumps(request) + b"\n" + orjson.dumps(cancel) + b"\n")
        assert isinstance(await cli.can_use_tool("Read", {}), cs.PermissionAllow)
        done.set()
        await cli.serve_until_stdin_closes()

    async def decide(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        ran.append(name)
        return cs.PermissionAllow()

    fake = FakeCLI(script)
    async with cs.open_session(cs.Options(can_use_tool=decide), transport=fake):
        with anyio.fail_after(10):
            await done.wait()
    assert ran == ["Read"]
    assert [a.request_id for a in fake.cli.stray_answers] == []


async def test_a_handler_cancelled_through_its_context_answers_an_error() -> None:
    answers: list[Any] = []
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        answers.append(await cli.can_use_tool("Bash", {"command": "sleep"}))
        answers.append(await cli.can_use_tool("Read", {}))
        done.set()
        await cli.serve_until_stdin_closes()

    async def decide(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        if name == "Bash":
            ctx.cancel_scope.cancel()
            assert ctx.cancel_scope.cancel_called
            await anyio.sleep_forever()
        return cs.PermissionAllow()

    fake = FakeCLI(script)
    async with cs.open_session(cs.Options(can_use_tool=decide), transport=fake):
        with anyio.fail_after(10):
            await done.wait()
    first, second = answers
    assert isinstance(first, cs.ControlError)
    assert "cancelled" in first.error
    assert isinstance(second, cs.PermissionAllow)


async def test_cancelling_a_finished_requests_context_touches_nothing_else() -> None:
    contexts: list[cs.ToolPermissionContext] = []
    answers: list[Any] = []
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for name in ("Read", "Write", "Edit"):
            answers.append(await cli.can_use_tool(name, {}))
        done.set()
        await cli.serve_until_stdin_closes()

    async def decide(
        name: str, tool_input: dict[str, Any], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        if contexts:
            contexts[0].cancel_scope.cancel()  # a stale handle: its handler is done
        contexts.append(ctx)
        await anyio.lowlevel.checkpoint()
        return cs.PermissionAllow()

    fake = FakeCLI(script)
    async with cs.open_session(cs.Options(can_use_tool=decide), transport=fake):
        with anyio.fail_after(10):
            await done.wait()
    assert [type(a).__name__ for a in answers] == ["PermissionAllow"] * 3
    assert [c.cancelled for c in contexts] == [False, False, False]
    assert not contexts[0].cancel_scope.cancel_called


async def test_a_withdrawn_hook_leaves_the_next_hooks_running() -> None:
    entered = anyio.Event()
    done = anyio.Event()
    outputs: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        hook_id = cli.hook_id("PreToolUse")
        rid = await cli.start_hook_callback(hook_id, {"tool_name": "Bash", "tool_input": {}})
        await entered.wait()
        assert await cli.cancel_request(rid)
        for _ in range(3):
            outputs.append(
                await cli.hook_callback(hook_id, {"tool_name": "Read", "tool_input": {}})
            )
        done.set()
        await cli.serve_until_stdin_closes()

    async def hook(hook_input: Any, context: cs.HookContext) -> cs.HookOutput:
        if hook_input.tool_name == "Bash":
            entered.set()
            await anyio.sleep_forever()
        return cs.HookOutput(system_message="ok")

    options = cs.Options(hooks={"PreToolUse": [cs.HookMatcher(hooks=[hook])]})
    fake = FakeCLI(script)
    async with cs.open_session(options, transport=fake):
        with anyio.fail_after(10):
            await done.wait()
    assert outputs == [{"systemMessage": "ok"}] * 3
    assert fake.cli.answers_after_cancel == []
