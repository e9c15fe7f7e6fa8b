"""`Session.interrupt` returns a receipt that says what happened (FakeCLI; the real CLI's
traffic is replayed in tests/protocol/test_interrupt_receipts.py, and driven live in
tests/e2e/test_interrupt_receipt_e2e.py)."""

from __future__ import annotations

import contextlib

import anyio

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI

FAST = cs.Options(control_timeout=5.0)


async def test_an_interrupt_while_idle_is_a_no_op() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.wait_for_interrupt()
        await cli.serve_until_stdin_closes()

    async with cs.open_session(FAST, transport=FakeCLI(script)) as session:
        with anyio.fail_after(5):
            receipt = await session.interrupt()
    assert receipt.outcome == "no_op"
    assert not receipt.effective
    assert receipt.results == ()
    assert receipt.still_queued == []
    assert receipt.response == cs.InterruptResponse(still_queued=[])


async def test_an_interrupt_mid_turn_is_effective_before_anyone_reads() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.system_init()
        await cli.assistant("partial")
        await cli.wait_for_interrupt()
        await cli.abort_turn("partial")

    async with cs.open_session(FAST, transport=FakeCLI(script)) as session:
        await session.send("go")
        with anyio.fail_after(5):
            receipt = await session.interrupt()  # nobody reads the messages meanwhile
        messages = [m async for m in session.receive_response()]
    assert receipt.outcome == "effective"
    assert receipt.effective
    [result] = receipt.results
    assert result.terminal_reason == "aborted_streaming"
    assert messages[-1] is result  # the consumer gets the same result afterwards


async def test_a_turn_that_ends_before_the_interrupt_arrives_is_a_no_op() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.result("finished")  # the turn ends ...
        await cli.state("idle")
        await cli.wait_for_interrupt()  # ... before the interrupt is read
        await cli.serve_until_stdin_closes()

    async with cs.open_session(FAST, transport=FakeCLI(script)) as session:
        await session.send("go")
        with anyio.fail_after(5):
            receipt = await session.interrupt()
        [m async for m in session.receive_response()]
    assert receipt.outcome == "no_op"
    assert [r.result for r in receipt.results] in ([], ["finished"])


async def test_queued_prompts_withdrawn_are_in_the_receipt() -> None:
    taken: list[str] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()  # "a" runs; "b" and "c" stay queued
        await cli.state("running")
        await cli.assistant("working on a")
        await cli.wait_for_interrupt()
        await cli.abort_turn()
        async for prompt in cli.iter_prompts():
            taken.append(prompt.text)  # what still reaches the CLI
            await cli.result("ok")

    async with cs.open_session(FAST, transport=FakeCLI(script)) as session:
        for text in ("a", "b", "c"):
            await session.send(cs.UserMessage.prompt(text, uuid=f"uuid-{text}"))
        async for message in session.receive_messages():
            if isinstance(message, cs.AssistantMessage):
                break  # "a" is running
        with anyio.fail_after(5):
            receipt = await session.interrupt(cancel_queued=True)
            assert await session.wait_until_idle()
    assert receipt.outcome == "effective"
    assert receipt.cancelled == ["uuid-b", "uuid-c"]
    assert taken == []  # withdrawn prompts never ran


async def test_a_cli_that_never_ends_the_turn_gives_undetermined_in_bounded_time() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.wait_for_interrupt()
        await cli.serve_until_stdin_closes()  # no result: the turn never ends

    async with cs.open_session(FAST, transport=FakeCLI(script)) as session:
        await session.send("go")
        with anyio.fail_after(5):
            receipt = await session.interrupt(wait=0.2)
    assert receipt.outcome == "undetermined"


async def test_a_cli_that_dies_after_answering_gives_undetermined_not_a_hang() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.state("running")
        await cli.wait_for_interrupt()
        await cli.exit(1)

    async with cs.open_session(FAST, transport=FakeCLI(script)) as session:
        await session.send("go")
        with anyio.fail_after(5):
            receipt = await session.interrupt()
        with contextlib.suppress(cs.ProcessError):
            [m async for m in session.receive_response()]
    assert receipt.outcome == "undetermined"
