"""Pool governors (``SessionPool(limits=PoolLimits(...))``): a budget and a rate limit shared
by every session of a pool, on every transport; checked before each prompt and counted on
each result. FakeCLI peers; the figures are compared with what the fake CLIs reported."""

from __future__ import annotations

import math
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI


def prompts_received(*fakes: FakeCLI) -> list[float]:
    """When each fake received a prompt (its own clock: anyio's)."""
    return sorted(r.at for fake in fakes for r in fake.log if isinstance(r.frame, cs.UserMessage))


def cost_reported(*fakes: FakeCLI) -> float:
    """What the fake CLIs said their sessions cost (the last running total of each)."""
    return sum(
        cli.results[-1].total_cost_usd or 0.0 for f in fakes for cli in f.clis if cli.results
    )


def tokens_reported(*fakes: FakeCLI) -> int:
    """Every token of every turn the fake CLIs reported (input, output, cache)."""
    total = 0
    for fake in fakes:
        for cli in fake.clis:
            for result in cli.results:
                for usage in (result.model_usage_since_last_result or {}).values():
                    total += sum(
                        n or 0
                        for n in (
                            usage.input_tokens,
                            usage.output_tokens,
                            usage.cache_read_input_tokens,
                            usage.cache_creation_input_tokens,
                        )
                    )
    return total


async def test_a_shared_budget_stops_new_prompts_across_transports() -> None:
    a, b = FakeCLI(), FakeCLI()  # two transports; each turn costs the fake's ~$0.0103
    limits = cs.PoolLimits(max_cost_usd=0.03)
    async with cs.SessionPool(transport=[a, b], max_sessions=2, limits=limits) as pool:
        for i in range(3):
            await pool.ask(f"key-{i % 2}", f"turn {i}")
        assert pool.stats.spent_usd == pytest.approx(cost_reported(a, b))
        assert pool.stats.spent_usd >= 0.03
        with pytest.raises(cs.BudgetExceededError) as info:
            await pool.ask("key-0", "one more")
        with pytest.raises(cs.BudgetExceededError):
            async with pool.session("key-1") as session:
                await session.send("through a lease")  # leases are governed too
        assert pool.stats.refused == 2
        assert pool.stats.prompts == 3
    assert info.value.limit == "max_cost_usd"
    assert info.value.kind == "budget"
    assert not info.value.retryable
    assert info.value.spent_usd == pytest.approx(pool.stats.spent_usd)
    assert len(prompts_received(a, b)) == 3  # the refused prompts never reached a CLI


async def test_a_token_budget_counts_every_model_and_turn() -> None:
    fake = FakeCLI()
    async with cs.SessionPool(
        limits=cs.PoolLimits(max_tokens=5000), transport=fake, max_sessions=1
    ) as pool:
        await pool.ask("k", "one")
        assert pool.stats.spent_tokens == tokens_reported(fake)
        await pool.ask("k", "two")
        assert pool.stats.spent_tokens == tokens_reported(fake) > 5000
        with pytest.raises(cs.BudgetExceededError) as info:
            await pool.ask("k", "three")
    assert info.value.limit == "max_tokens"
    assert info.value.spent_tokens == tokens_reported(fake)


async def test_the_rate_limit_holds_under_20_concurrent_keys() -> None:
    fakes = [FakeCLI(), FakeCLI()]
    limits = cs.PoolLimits(max_prompts=4, per_seconds=0.25)
    replies: list[cs.Reply] = []
    async with cs.SessionPool(transport=fakes, max_sessions=20, limits=limits) as pool:

        async def one(key: int) -> None:
            replies.append(await pool.ask(f"key-{key}", f"prompt {key}"))

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                for key in range(20):
                    tg.start_soon(one, key)
        assert pool.stats.prompts == 20
        assert pool.stats.rate_waits >= 16 - 4  # most had to wait
    assert len(replies) == 20
    starts = prompts_received(*fakes)
    assert len(starts) == 20
    # In any window of per_seconds (less a little for the hop to the fake), at most 4.
    window = limits.per_seconds - 0.02
    for i, at in enumerate(starts):
        assert sum(1 for t in starts[i:] if t < at + window) <= 4, starts
    assert starts[-1] - starts[0] >= (20 / 4 - 1) * window


async def test_a_prompt_that_may_not_wait_is_refused_at_once() -> None:
    limits = cs.PoolLimits(max_prompts=1, per_seconds=60, max_wait=0)
    async with cs.SessionPool(transport=FakeCLI(), limits=limits) as pool:
        await pool.ask("a", "first")
        with anyio.fail_after(2), pytest.raises(cs.RateLimitExceededError) as info:
            await pool.ask("b", "second")
        assert pool.stats.refused == 1
    assert info.value.retryable  # later it may pass


async def test_the_figures_are_kept_without_limits() -> None:
    fake = FakeCLI()
    async with cs.SessionPool(transport=fake) as pool:
        await pool.ask("a", "one")
        await pool.ask("a", "two")
        assert pool.stats.prompts == 2
        assert pool.stats.spent_usd == pytest.approx(cost_reported(fake))
        assert pool.stats.refused == 0


@pytest.mark.parametrize(
    "fields",
    [
        {"total_cost_usd": -5},
        {"total_cost_usd": "a lot"},
        {"total_cost_usd": math.inf},
        {"total_cost_usd": None, "modelUsage": "x", "model_usage_since_last_result": [1]},
        {"usage": None, "modelUsage": {"m": {"inputTokens": -3}}},
        {"model_usage_since_last_result": {"m": {"inputTokens": "9"}}},
    ],
    ids=str,
)
async def test_hostile_figures_never_end_a_turn_nor_count_as_spent(fields: dict[str, Any]) -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        async for _prompt in cli.iter_prompts():
            await cli.result("ok", **fields)

    limits = cs.PoolLimits(max_cost_usd=1.0, max_tokens=10**9)
    async with cs.SessionPool(transport=FakeCLI(script), limits=limits) as pool:
        reply = await pool.ask("k", "hi")
        assert reply.text == "ok"
        assert pool.stats.spent_usd >= 0
        assert math.isfinite(pool.stats.spent_usd)
        assert pool.stats.spent_tokens >= 0
        await pool.ask("k", "again")  # the budget is not taken for spent


@pytest.mark.parametrize(
    "bad",
    [
        {"max_cost_usd": 0},
        {"max_cost_usd": -1.0},
        {"max_cost_usd": math.nan},
        {"max_tokens": True},
        {"max_prompts": 2.5},
        {"per_seconds": 0},
        {"max_wait": -1},
    ],
    ids=str,
)
def test_bad_limits_are_option_errors(bad: dict[str, Any]) -> None:
    with pytest.raises(cs.OptionsError):
        cs.PoolLimits(**bad)


def test_limits_must_be_pool_limits() -> None:
    with pytest.raises(cs.OptionsError, match="PoolLimits"):
        cs.SessionPool(limits={"max_cost_usd": 1})  # type: ignore[arg-type]
