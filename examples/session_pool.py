"""Serve many conversations with a bounded number of CLIs: ``SessionPool``.

Each customer key gets its own conversation; at most ``max_sessions`` CLIs run at once, a
key's session is used by one task at a time, and a pre-warmed CLI is ready before the first
prompt arrives.

Run: ``python examples/session_pool.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


async def main() -> None:
    async with cs.SessionPool(max_sessions=2, prewarm=1) as pool:

        async def handle(customer: str, question: str) -> None:
            reply = await pool.ask(customer, question)
            print(f"{customer}: {reply.text}")

        async with anyio.create_task_group() as tg:
            for i, question in enumerate(["Say hi.", "Say hello.", "Say hey."]):
                tg.start_soon(handle, f"customer-{i % 2}", question)
        print(f"started {pool.stats.started} CLIs for 3 questions, peak {pool.stats.peak}")


if __name__ == "__main__":
    anyio.run(main)
