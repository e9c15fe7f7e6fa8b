"""A usage limit is its own kind of error, and a pool can park until it resets.

When the account's usage limit refuses a turn, ``ask`` raises `UsageLimitError` with
``resets_at`` (never retried into the same wall). A `SessionPool` with
``PoolLimits(on_usage_limit="park")`` instead holds its prompts until the reset and sends the
refused prompt again. A scripted `FakeCLI` plays the limit here (a real one needs a
subscription that ran out).

Run: ``python examples/usage_limits.py`` (nothing else is needed).
"""

from __future__ import annotations

import time

import anyio

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI


def limited(resets_in: float) -> cs.testing.fake_cli.Script:
    """The first prompt hits the limit; the next one, after the reset, is answered."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        reset = time.time() + resets_in
        await cli.rate_limit("rejected", resetsAt=reset, rateLimitType="five_hour")
        await cli.result("You've hit your limit", is_error=True, api_error_status=429)
        await cli.next_prompt()
        await cli.turn("Back after the reset.")
        await cli.serve_until_stdin_closes()

    return script


async def main() -> None:
    try:
        await cs.ask("Summarise the report.", transport=FakeCLI(limited(3600)))
    except cs.UsageLimitError as exc:
        print(f"usage limit ({exc.limit_type}); retryable: {exc.retryable}")
        if exc.resets_at is not None:
            left = exc.resets_at.timestamp() - time.time()
            print(f"resets in about {left / 60:.0f} min")

    limits = cs.PoolLimits(on_usage_limit="park")
    async with cs.SessionPool(transport=FakeCLI(limited(0.5)), limits=limits) as pool:
        reply = await pool.ask("report", "Summarise the report.")
    print(f"parked {pool.stats.parked} time(s), then: {reply.text}")


if __name__ == "__main__":
    anyio.run(main)
