"""Pool governors: a budget and a rate limit shared by every session of a pool.

``SessionPool(limits=PoolLimits(...))``: every prompt of every key, on every transport, passes
the same limits. ``max_cost_usd`` / ``max_tokens`` stop new prompts once the pool's sessions
have spent that much (`BudgetExceededError`, the prompt is not sent); ``max_prompts`` per
``per_seconds`` paces prompt starts (a prompt waits for a slot, up to ``max_wait``, then
`RateLimitExceededError`). ``pool.stats`` has the figures.

Run: ``python examples/pool_limits.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


async def main() -> None:
    limits = cs.PoolLimits(max_cost_usd=0.05, max_prompts=2, per_seconds=1.0)
    async with cs.SessionPool(max_sessions=3, limits=limits) as pool:

        async def ask(key: str) -> None:
            try:
                reply = await pool.ask(key, "Say hello in three words.")
                print(f"{key}: {reply.text}")
            except cs.BudgetExceededError as exc:
                print(f"{key}: refused, budget spent (${exc.spent_usd:.4f})")

        start = anyio.current_time()
        async with anyio.create_task_group() as tg:
            for n in range(3):
                tg.start_soon(ask, f"customer-{n}")
        print(f"3 prompts, at most 2 a second: {anyio.current_time() - start:.1f} s")

        while pool.stats.spent_usd < limits.max_cost_usd:  # type: ignore[operator]
            await ask("customer-0")
        await ask("customer-1")  # refused: nothing is sent
        stats = pool.stats
        print(
            f"spent ${stats.spent_usd:.4f} and {stats.spent_tokens} tokens in "
            f"{stats.prompts} prompts; {stats.rate_waits} waited, {stats.refused} refused"
        )


if __name__ == "__main__":
    anyio.run(main)
