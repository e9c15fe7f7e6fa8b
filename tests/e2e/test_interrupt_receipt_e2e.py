"""An interrupt receipt that says what happened, against the real CLI (offline): no-op while
idle, effective mid-turn (streaming, and with a permission request pending), queued prompts
withdrawn, and an interrupt sent right behind its prompt."""

from __future__ import annotations

import anyio

import claude_sdk as cs

from .conftest import E2E
from .test_protocol_edges_e2e import SLOW, SLOW_STORY, started_streaming

QUEUED = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222")


async def test_an_interrupt_while_idle_is_a_no_op(e2e: E2E) -> None:
    e2e.api.reply(text="done")
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        with anyio.fail_after(20):
            before = await session.interrupt()  # nothing ever ran
        await session.send("hi")
        [m async for m in session.receive_response()]
        with anyio.fail_after(20):
            after = await session.interrupt()  # the turn is over
    assert before.outcome == "no_op"
    assert after.outcome == "no_op"
    assert before.results == () == after.results
    assert not e2e.api.requests[1:]  # an interrupt asks the model nothing


async def test_an_interrupt_mid_stream_is_effective(e2e: E2E) -> None:
    e2e.api.reply(text=SLOW_STORY, delay=SLOW)
    e2e.api.reply(text="still here")
    options = e2e.options(include_partial_messages=True)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("a long story")
        async for message in session.receive_messages():
            if started_streaming(message):
                break
        with anyio.fail_after(20):
            receipt = await session.interrupt()  # nobody reads meanwhile
        rest = [m async for m in session.receive_response()]
        await session.send("are you there?")
        again = [m async for m in session.receive_response()]
    assert receipt.outcome == "effective"
    [result] = receipt.results
    assert result.terminal_reason == "aborted_streaming"
    assert rest[-1] is result
    assert isinstance(again[-1], cs.ResultMessage)
    assert again[-1].result == "still here"


async def test_an_interrupt_with_a_permission_request_pending_is_effective(e2e: E2E) -> None:
    asked = anyio.Event()

    async def slow(
        name: str, tool_input: dict[str, object], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        asked.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    e2e.api.reply(tool_use=("Bash", {"command": "touch x", "description": "x"}))
    options = e2e.options(can_use_tool=slow)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("make x")
        with anyio.fail_after(20):
            await asked.wait()
            receipt = await session.interrupt()
        [m async for m in session.receive_response()]
    assert receipt.outcome == "effective"
    assert [r.terminal_reason for r in receipt.results] == ["aborted_tools"]
    assert not (e2e.cwd / "x").exists()


async def test_queued_prompts_withdrawn_are_named(e2e: E2E) -> None:
    e2e.api.reply(text=SLOW_STORY, delay=SLOW)
    options = e2e.options(include_partial_messages=True)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("a long story")
        await session.send(
            cs.UserMessage.prompt("queued one", uuid="11111111-1111-4111-8111-111111111111")
        )
        await session.send(
            cs.UserMessage.prompt("queued two", uuid="22222222-2222-4222-8222-222222222222")
        )
        async for message in session.receive_messages():
            if started_streaming(message):
                break
        with anyio.fail_after(20):
            receipt = await session.interrupt(cancel_queued=True)
            assert await session.wait_until_idle()
    assert receipt.outcome == "effective"
    assert sorted(receipt.cancelled) == [
        "11111111-1111-4111-8111-111111111111",
        "22222222-2222-4222-8222-222222222222",
    ]
    assert len(e2e.api.requests) == 1  # the withdrawn prompts never reached the model


async def test_an_interrupt_right_behind_its_prompt(e2e: E2E) -> None:
    # The prompt and the interrupt reach the CLI back to back: the turn may have started
    # (cut short) or not (withdrawn, or it never ran); the receipt says which, and the
    # frames agree with it.
    e2e.api.reply(text=SLOW_STORY, delay=SLOW)
    e2e.api.reply(text="next")
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        await session.send("a long story")
        with anyio.fail_after(20):
            receipt = await session.interrupt()
            assert await session.wait_until_idle()
    assert receipt.outcome in ("effective", "no_op"), receipt
    if receipt.outcome == "effective":
        assert receipt.results[0].terminal_reason is not None
        assert receipt.results[0].terminal_reason.startswith("aborted")
    else:
        assert all(not r.is_error for r in receipt.results)
