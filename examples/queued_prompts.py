"""Queued prompts, an interrupt that withdraws them, typed requests, and leaving in a hurry.

* Prompts sent while a turn runs are queued by the CLI. Every prompt carries a ``uuid`` (the
  SDK makes one), so the session knows which prompts each result answered and which ones an
  ``interrupt(cancel_queued=True)`` withdrew: ``wait_until_idle()`` returns once every prompt
  is settled and the CLI is idle.
* ``session.request(...)`` is the one typed path of every control request: the request class
  knows what it is answered with (the typed methods such as ``interrupt`` are sugar over it).
* Leaving the ``async with`` block by a cancellation (or an exception) mid-turn is prompt: the
  turn is interrupted and the CLI terminated at once, instead of waiting ``shutdown_grace``.

Run: ``python examples/queued_prompts.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs
from claude_sdk.control import GetContextUsageRequest


def streaming_started(message: cs.Message) -> bool:
    return isinstance(message, cs.StreamEvent) and message.event.get("type") in (
        "content_block_delta",
        "content_block_start",
    )


async def main() -> None:
    options = cs.Options(include_partial_messages=True)
    async with cs.open_session(options) as session:
        await session.send("Tell me a very long story about a lighthouse.")
        await session.send("Then tell me another one.")  # queued behind the first
        await session.send("And a third.")  # queued too
        async for message in session.receive_messages():
            if streaming_started(message):
                break
        receipt = await session.interrupt(cancel_queued=True)
        print(f"withdrew {len(receipt.cancelled or [])} queued prompt(s)")
        with anyio.fail_after(60):
            idle = await session.wait_until_idle()
        print(f"idle: every prompt settled ({idle})")

        usage = await session.request(GetContextUsageRequest())  # typed: ContextUsageResponse
        print(f"context: {usage.total_tokens or 0} of {usage.max_tokens or 0} tokens")

    # Leaving mid-turn by a cancellation: the turn is interrupted and the CLI terminated now.
    start = anyio.current_time()
    with anyio.CancelScope() as scope:
        async with cs.open_session(options) as session:
            await session.send("Tell me a very long story about a harbour.")
            async for message in session.receive_response():
                if streaming_started(message):
                    start = anyio.current_time()
                    scope.cancel()
    print(f"left the session in {anyio.current_time() - start:.2f} s (shutdown_grace is 5 s)")


if __name__ == "__main__":
    anyio.run(main)
