"""Steer a running turn: cut it short and send a new instruction into the same session.

``await session.steer(prompt)`` interrupts, waits for the receipt that says the interrupt
took effect, then sends ``prompt``. The cut turn ends as cancelled (its result carries
``steered_by``), not as a failure; the new instruction's reply is read as usual.

Run: ``python examples/steer.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


async def main() -> None:
    options = cs.Options(include_partial_messages=True)
    async with cs.open_session(options) as session:
        first = await session.send("Tell me a very long story about a lighthouse.")
        async for message in session.receive_response(first):
            if isinstance(message, cs.StreamEvent):
                break  # the story is streaming: change course
        with anyio.fail_after(60):
            receipt = await session.steer("Stop. Give me one line about the sea.")
        print(f"interrupt: {receipt.interrupt.outcome}")
        cut = [m async for m in session.receive_response(first)][-1]
        assert isinstance(cut, cs.ResultMessage)
        print(f"the story was cancelled by the steer: {cut.steered_by == receipt.prompt}")
        async for message in session.receive_response(receipt.prompt):
            if isinstance(message, cs.ResultMessage):
                print(f"new answer: {message.result}")


if __name__ == "__main__":
    anyio.run(main)
