"""`Session.steer` against the real CLI (offline): the streaming turn is cut short and marked
``steered_by``, the new instruction runs in the same session and sees the conversation."""

from __future__ import annotations

import anyio

import claude_sdk as cs

from .conftest import E2E
from .test_protocol_edges_e2e import SLOW, SLOW_STORY, started_streaming


async def test_steer_mid_stream(e2e: E2E) -> None:
    e2e.api.reply(text=SLOW_STORY, delay=SLOW)
    e2e.api.reply(text="A haiku instead.")
    options = e2e.options(include_partial_messages=True)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        first = await session.send("Write a long story")
        async for message in session.receive_response(first):
            if started_streaming(message):
                break
        with anyio.fail_after(20):
            receipt = await session.steer("No, write a haiku")
        rest = [m async for m in session.receive_response(first)]
        reply = [m async for m in session.receive_response(receipt.prompt)]
    assert receipt.interrupt.outcome == "effective"
    (cut,) = receipt.cut
    assert cut.terminal_reason == "aborted_streaming"
    assert cut.steered_by == receipt.prompt
    assert rest[-1] is cut
    assert cs.ResultError(result=cut).kind == "steered"
    last = reply[-1]
    assert isinstance(last, cs.ResultMessage)
    assert (last.result, last.is_error, last.steered_by) == ("A haiku instead.", False, None)
    # the instruction reached the model in the same conversation, after the cut turn
    last_request = e2e.api.main_requests[-1]
    assert "No, write a haiku" in last_request.last_user_text
    assert "Write a long story" in str(last_request.messages[0])
