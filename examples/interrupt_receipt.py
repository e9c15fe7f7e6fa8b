"""An interrupt receipt that says what happened.

``await session.interrupt()`` returns an `InterruptReceipt` once the frames that follow the
interrupt tell what it did: ``"effective"`` (a running turn was cut short; its result is in
``receipt.results``), ``"queued_cancelled"`` (queued prompts withdrawn), ``"no_op"`` (nothing
was running, or the turn finished first) or ``"undetermined"`` (nothing told in time).

Run: ``python examples/interrupt_receipt.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


async def main() -> None:
    options = cs.Options(include_partial_messages=True)
    async with cs.open_session(options) as session:
        idle = await session.interrupt()  # nothing runs yet
        print(f"while idle: {idle.outcome}")

        await session.send("Tell me a very long story about a lighthouse.")
        async for message in session.receive_messages():
            if isinstance(message, cs.StreamEvent):
                break  # the answer is streaming
        with anyio.fail_after(60):
            receipt = await session.interrupt()
        reasons = [r.terminal_reason for r in receipt.results]
        print(f"mid-turn: {receipt.outcome} (the turn ended {reasons})")
        # The interrupted turn's messages are still there to read, its result last.
        rest = [m async for m in session.receive_response()]
        print(f"the turn's result is the receipt's: {rest[-1] is receipt.results[0]}")


if __name__ == "__main__":
    anyio.run(main)
