"""`Session.steer`: interrupt, confirm with the receipt, send the new instruction; the cut
turn ends as cancelled (``steered_by``), not as a failure (issue 31, item 3).

The same against the real CLI: ``tests/e2e/test_steer_e2e.py``.
"""

from __future__ import annotations

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.testing.fake_cli import Script

pytestmark = pytest.mark.anyio


def steered_script(seen: list[str]) -> Script:
    """A turn that streams until interrupted, then the steering prompt's turn."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        seen.append((await cli.next_prompt()).text)
        await cli.state("running")
        await cli.system_init()
        await cli.assistant("Once upon a time")
        await cli.wait_for_interrupt()
        await cli.abort_turn()
        seen.append((await cli.next_prompt()).text)
        await cli.turn("A haiku instead.")
        await cli.serve_until_stdin_closes()

    return script


async def test_steer_cuts_the_turn_and_sends_the_new_instruction() -> None:
    seen: list[str] = []
    cut_turn: list[cs.Message] = []
    async with cs.open_session(transport=FakeCLI(steered_script(seen))) as session:
        first = await session.send("Write a long story")
        async for message in session.receive_response(first):
            cut_turn.append(message)
            if isinstance(message, cs.AssistantMessage):
                break  # the model is answering: time to steer
        receipt = await session.steer("No, a haiku")
        cut_turn += [m async for m in session.receive_response(first)]
        reply = [m async for m in session.receive_response(receipt.prompt)]
    assert seen == ["Write a long story", "No, a haiku"]  # sent after the interrupt
    assert receipt.interrupt.outcome == "effective"
    (cut,) = receipt.cut
    assert cut.steered_by == receipt.prompt
    assert cut_turn[-1] is cut  # the cut turn's reader ends at its (marked) result
    error = cs.ResultError(result=cut)
    assert error.kind == "steered"
    assert not error.retryable
    assert "session.receive_response(result.steered_by)" in str(error)
    last = reply[-1]
    assert isinstance(last, cs.ResultMessage)
    assert last.result == "A haiku instead."
    assert last.steered_by is None
    assert receipt.prompt in last.settles


async def test_steer_while_idle_just_sends() -> None:
    async with cs.open_session(transport=FakeCLI(replies=["one", "two"])) as session:
        await session.send("first")
        [m async for m in session.receive_response()]
        receipt = await session.steer("second")
        reply = [m async for m in session.receive_response(receipt.prompt)]
    assert receipt.interrupt.outcome == "no_op"
    assert receipt.cut == ()
    assert isinstance(reply[-1], cs.ResultMessage)
    assert reply[-1].result == "two"


async def test_a_steer_whose_interrupt_shows_nothing_sends_nothing() -> None:
    prompts: list[str] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompts.append((await cli.next_prompt()).text)
        await cli.state("running")
        await cli.wait_for_interrupt()  # answered, but the turn never ends
        await cli.serve_until_stdin_closes()

    async with cs.open_session(transport=FakeCLI(script)) as session:
        await session.send("go")
        with pytest.raises(cs.ClaudeSDKError) as raised:
            await session.steer("instead", wait=0.2)
        assert raised.value.kind == "steer_undetermined"
        assert "was not sent" in str(raised.value)
        await anyio.sleep(0.05)
        assert prompts == ["go"]
        await session.interrupt(wait=0)


async def test_an_ordinary_interrupt_is_still_an_aborted_turn() -> None:
    seen: list[str] = []
    async with cs.open_session(transport=FakeCLI(steered_script(seen))) as session:
        first = await session.send("Write a long story")
        async for message in session.receive_response(first):
            if isinstance(message, cs.AssistantMessage):
                break
        receipt = await session.interrupt()
        rest = [m async for m in session.receive_response(first)]
        await session.send("No, a haiku")
        [m async for m in session.receive_response()]
    (result,) = receipt.results
    assert rest[-1] is result
    assert result.steered_by is None
    assert cs.ResultError(result=result).kind == "aborted"


def test_the_sync_facade_steers_too() -> None:
    from claude_sdk import sync

    seen: list[str] = []
    with sync.open_session(transport=FakeCLI(steered_script(seen))) as session:
        first = session.send("Write a long story")
        assert isinstance(first, str)
        for message in session.receive_response(first):
            if isinstance(message, cs.AssistantMessage):
                break
        receipt = session.steer("No, a haiku")
        reply = list(session.receive_response(receipt.prompt))
    assert receipt.interrupt.outcome == "effective"
    assert seen == ["Write a long story", "No, a haiku"]
    last = reply[-1]
    assert isinstance(last, cs.ResultMessage)
    assert last.result == "A haiku instead."
