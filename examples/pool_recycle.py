"""A pooled CLI that grows is recycled between turns; its key resumes the same session.

``SessionPool(recycle=cs.PoolRecycle(max_rss_mb=..., max_turns=...))`` ends a key's CLI once
it passes a limit, at the end of a lease whose prompts are all answered, and the key's next
prompt goes to a fresh CLI that resumes the conversation. Here every CLI answers one turn.

Run: ``python examples/pool_recycle.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


async def main() -> None:
    recycle = cs.PoolRecycle(max_turns=1, max_rss_mb=2048)
    async with cs.SessionPool(recycle=recycle) as pool:
        first = await pool.ask("notes", "Remember the code 4417. Answer in one line.")
        print(f"first: {first.text}")
        second = await pool.ask("notes", "What was the code?")
        print(f"second: {second.text}")
        same = second.session_id == first.session_id
        print(f"recycled {pool.stats.recycled}, same conversation: {same}")


if __name__ == "__main__":
    anyio.run(main)
