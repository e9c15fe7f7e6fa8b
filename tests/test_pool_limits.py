"""Pool governors (``SessionPool(limits=PoolLimits(...))``): a budget and a rate limit shared
by every session of a pool, on every transport; checked before each prompt and counted on
each result. FakeCLI peers; the figures are compared with what the fake CLIs reported.

The budget's bound (issue 26): prompts in flight count against the budget, so the pool
spends less than ``max_cost_usd`` + one turn whenever no turn costs more than the reserve;
every figure a CLI reports is charged (clamped to ``MAX_FIGURE``) or makes the budget refuse
every later prompt, never skipped.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk._governor import Governor
from claude_sdk.messages import ModelUsage, Usage
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.usage import MAX_FIGURE

Script = Callable[[ScriptedCLI], Awaitable[None]]


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


def turn_tokens(result: cs.ResultMessage) -> ModelUsage:
    """The fake's one model's usage in a turn."""
    [usage] = (result.model_usage_since_last_result or {}).values()
    return usage


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
        # at once, not after the 60 s window (a hang guard, not a measure)
        with anyio.fail_after(30), pytest.raises(cs.RateLimitExceededError) as info:
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
    "bad",
    [
        {"max_cost_usd": 0},
        {"max_cost_usd": -1.0},
        {"max_cost_usd": math.nan},
        {"max_tokens": True},
        {"max_prompts": 2.5},
        {"per_seconds": 0},
        {"max_wait": -1},
        {"max_cost_usd": 2**53 + 1},  # beyond any figure believed: no budget at all
        {"max_tokens": 2**64},
        {"reserve_usd": -0.5},
        {"reserve_usd": math.nan},
        {"reserve_tokens": 2.5},
        {"reserve_tokens": "1000"},
    ],
    ids=str,
)
def test_bad_limits_are_option_errors(bad: dict[str, Any]) -> None:
    with pytest.raises(cs.OptionsError):
        cs.PoolLimits(**bad)


def test_a_reserve_of_zero_counts_prompts_in_flight_as_free() -> None:
    limits = cs.PoolLimits(max_cost_usd=1.0, reserve_usd=0, reserve_tokens=0)
    assert (limits.reserve_usd, limits.reserve_tokens) == (0, 0)


def test_limits_must_be_pool_limits() -> None:
    with pytest.raises(cs.OptionsError, match="PoolLimits"):
        cs.SessionPool(limits={"max_cost_usd": 1})  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# prompts in flight count against the budget (issue 26)


def priced(per_turn: float, *, gate: anyio.Event | None = None) -> Script:
    """A CLI whose every turn costs ``per_turn`` (its running total grows by that much);
    with a ``gate``, it answers no prompt before the gate is set."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        async for _prompt in cli.iter_prompts():
            if gate is not None:
                await gate.wait()
            await cli.result("ok", total_cost_usd=per_turn * (len(cli.results) + 1))

    return script


async def test_prompts_queued_on_one_lease_count_against_the_budget() -> None:
    # Issue 26: 20 send()s on one lease spent $10 on a $1 budget (each prompt was checked
    # against what results had reported so far: nothing).
    fake = FakeCLI(priced(0.5))
    sent = 0
    limits = cs.PoolLimits(max_cost_usd=1.0)
    async with cs.SessionPool(transport=fake, limits=limits) as pool, pool.session("k") as session:
        with anyio.fail_after(10), pytest.raises(cs.BudgetExceededError) as info:
            for n in range(20):
                await session.send(f"prompt {n}")
                sent += 1
    # The bound: less than max_cost_usd + one turn (every turn costs the same, so the
    # reserve, the largest turn seen, is what each costs).
    assert pool.stats.spent_usd < 1.0 + 0.5
    assert pool.stats.spent_usd == cost_reported(fake) == 1.0
    assert sent == len(prompts_received(fake)) == 2
    assert pool.stats.refused == 1
    assert info.value.limit == "max_cost_usd"


async def test_a_token_budget_counts_prompts_queued_on_a_lease() -> None:
    fake = FakeCLI()  # each turn: about 2,563 tokens
    sent = 0
    limits = cs.PoolLimits(max_tokens=5000)
    async with cs.SessionPool(transport=fake, limits=limits) as pool, pool.session("k") as session:
        with anyio.fail_after(10), pytest.raises(cs.BudgetExceededError) as info:
            for n in range(20):
                await session.send(f"prompt {n}")
                sent += 1
    assert sent == 2
    [cli] = fake.clis
    most = max(
        (u.input_tokens or 0) + (u.output_tokens or 0) for u in map(turn_tokens, cli.results)
    )
    assert pool.stats.spent_tokens == tokens_reported(fake) < 5000 + most
    assert info.value.limit == "max_tokens"


async def test_a_prompt_that_may_not_wait_for_turns_in_flight_is_refused_at_once() -> None:
    gate = anyio.Event()
    fake = FakeCLI(priced(0.5, gate=gate))
    limits = cs.PoolLimits(max_cost_usd=1.0, max_wait=0)
    async with cs.SessionPool(transport=fake, limits=limits) as pool:
        async with pool.session("k") as session:
            await session.send("first")  # nothing in flight: sent
            # No turn has reported its cost yet: one prompt in flight at a time.
            with pytest.raises(cs.BudgetExceededError, match="in flight") as info:
                await session.send("second")
            gate.set()
            async for _message in session.receive_response():
                pass
            await session.send("third")  # $0.5 spent, nothing in flight: sent
            async for _message in session.receive_response():
                pass
            with pytest.raises(cs.BudgetExceededError):
                await session.send("fourth")  # $1 spent
        assert pool.stats.refused == 2
        assert pool.stats.prompts == 2
    assert info.value.limit == "max_cost_usd"
    assert info.value.spent_usd == 0.0
    assert [r.frame.text for r in fake.log if isinstance(r.frame, cs.UserMessage)] == [
        "first",
        "third",
    ]


@pytest.mark.parametrize("reserve", [None, 0.5])
async def test_first_prompts_of_20_keys_at_once_stay_within_the_bound(
    reserve: float | None,
) -> None:
    fakes = [FakeCLI(priced(0.5)), FakeCLI(priced(0.5))]
    given_reserve: dict[str, Any] = {} if reserve is None else {"reserve_usd": reserve}
    limits = cs.PoolLimits(max_cost_usd=1.0, **given_reserve)
    refused = 0
    async with cs.SessionPool(transport=fakes, max_sessions=20, limits=limits) as pool:

        async def one(key: int) -> None:
            nonlocal refused
            try:
                await pool.ask(f"key-{key}", "hi")
            except cs.BudgetExceededError:
                refused += 1

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                for key in range(20):
                    tg.start_soon(one, key)
    assert pool.stats.spent_usd == cost_reported(*fakes) == 1.0 < 1.0 + 0.5
    assert len(prompts_received(*fakes)) == 2
    assert refused == 18 == pool.stats.refused


async def test_a_prompt_held_by_a_turn_in_flight_goes_when_that_session_ends() -> None:
    gate = anyio.Event()

    async def dies(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await gate.wait()
        await cli.exit(1, "crashed mid-turn")  # no result: the prompt never settles

    a, b = FakeCLI(dies), FakeCLI(priced(0.5))
    limits = cs.PoolLimits(max_cost_usd=1.0)
    replies: list[cs.Reply] = []
    async with cs.SessionPool(transport=[a, b], max_sessions=2, limits=limits) as pool:

        async def first() -> None:
            with pytest.raises(cs.ClaudeSDKError):
                await pool.ask("a", "never answered")

        async def second() -> None:
            replies.append(await pool.ask("b", "held, then sent"))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(first)
                await anyio.wait_all_tasks_blocked()
                assert len(prompts_received(a)) == 1
                tg.start_soon(second)
                await anyio.wait_all_tasks_blocked()
                # No turn has reported its cost and one prompt is in flight: held.
                assert prompts_received(b) == []
                gate.set()  # the first session ends: its prompt holds no reserve
    assert [r.text for r in replies] == ["ok"]
    assert pool.stats.spent_usd == 0.5


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    costs=st.lists(st.sampled_from([0.0, 0.125, 0.25, 0.5, 1.0]), min_size=1, max_size=5),
    budget=st.sampled_from([0.25, 1.0, 2.5]),
    keys=st.integers(1, 4),
    queued=st.integers(1, 5),
)
async def test_with_a_reserve_above_every_turn_a_pool_spends_less_than_budget_plus_a_turn(
    costs: list[float], budget: float, keys: int, queued: int
) -> None:
    """The bound of `PoolLimits`: spent < max_cost_usd + C + n * (C - reserve), so with a
    reserve of at least C (the most one turn costs), spent < max_cost_usd + C."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        total = 0.0
        async for _prompt in cli.iter_prompts():
            total += costs[len(cli.results) % len(costs)]
            await cli.result("ok", total_cost_usd=total)

    fake = FakeCLI(script)
    most = max(costs)
    limits = cs.PoolLimits(max_cost_usd=budget, reserve_usd=most)
    async with cs.SessionPool(transport=fake, max_sessions=keys, limits=limits) as pool:

        async def lease(key: int) -> None:
            async with pool.session(f"key-{key}") as session:
                sent = 0
                try:
                    for n in range(queued):
                        await session.send(f"prompt {n}")
                        sent += 1
                except cs.BudgetExceededError:
                    pass
                for _ in range(sent):
                    async for _message in session.receive_response():
                        pass

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                for key in range(keys):
                    tg.start_soon(lease, key)
    assert pool.stats.spent_usd == pytest.approx(cost_reported(fake))
    assert pool.stats.spent_usd < budget + most or pool.stats.spent_usd == most == 0.0


# ---------------------------------------------------------------------------------------
# hostile figures: charged (clamped) or refused, never skipped


@pytest.mark.parametrize(
    ("fields", "outcome"),
    [
        # Charged: a number too large to believe is clamped to MAX_FIGURE (a WARNING).
        ({"total_cost_usd": 10**400}, "spent"),  # raised OverflowError in the hook
        ({"total_cost_usd": 1e300}, "spent"),
        ({"model_usage_since_last_result": {"m": {"inputTokens": 10**400}}}, "spent"),
        # Refused: a figure that is not a number of the right kind.
        ({"total_cost_usd": -5}, "unreadable"),
        ({"total_cost_usd": "a lot"}, "unreadable"),
        ({"total_cost_usd": True}, "unreadable"),
        ({"total_cost_usd": None}, "unreadable"),
        ({"total_cost_usd": math.inf}, "unreadable"),  # JSON has no inf: null on the wire
        ({"model_usage_since_last_result": {"m": {"inputTokens": "9"}}}, "unreadable"),
        ({"model_usage_since_last_result": {"m": {"inputTokens": 2.5}}}, "unreadable"),
        ({"model_usage_since_last_result": {"m": 7}}, "unreadable"),
        ({"model_usage_since_last_result": [1]}, "unreadable"),
        (
            {"total_cost_usd": None, "modelUsage": "x", "model_usage_since_last_result": [1]},
            "unreadable",
        ),
        (
            {"model_usage_since_last_result": None, "modelUsage": {"m": {"inputTokens": -3}}},
            "unreadable",
        ),
        (
            {"model_usage_since_last_result": None, "modelUsage": None, "usage": None},
            "unreadable",
        ),
        # Charged: figures the budget does not read (the turn's tokens are in
        # model_usage_since_last_result).
        ({"usage": None, "modelUsage": {"m": {"inputTokens": -3}}}, "charged"),
        ({"usage": {"input_tokens": "9"}}, "charged"),
    ],
    ids=lambda v: str(v)[:60],
)
async def test_a_hostile_figure_is_charged_or_refused_never_skipped(
    fields: dict[str, Any], outcome: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        async for _prompt in cli.iter_prompts():
            await cli.result("ok", **fields)

    limits = cs.PoolLimits(max_cost_usd=1.0, max_tokens=10**9)
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        async with cs.SessionPool(transport=FakeCLI(script), limits=limits) as pool:
            reply = await pool.ask("k", "hi")
            assert reply.text == "ok"  # the turn itself is never harmed
            stats = pool.stats
            assert math.isfinite(stats.spent_usd)
            assert 0 <= stats.spent_usd <= MAX_FIGURE
            assert isinstance(stats.spent_tokens, int)
            assert 0 <= stats.spent_tokens <= MAX_FIGURE
            if outcome == "charged":
                await pool.ask("k", "again")
                assert pool.stats.refused == 0
                return
            with pytest.raises(cs.BudgetExceededError) as info:
                await pool.ask("k", "again")
    assert "the result hook failed" not in caplog.text  # nothing raised inside the hook
    warnings = [r for r in caplog.records if r.name.startswith("claude_sdk.pool")]
    assert warnings, "a figure that is not believed is logged"
    if outcome == "spent":
        assert MAX_FIGURE in (stats.spent_usd, stats.spent_tokens)
        assert "budget is spent" in str(info.value)
    else:
        assert "unreadable" in str(info.value)
        assert info.value.limit in ("max_cost_usd", "max_tokens")


async def test_an_unreadable_figure_of_a_limit_not_set_is_only_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        async for _prompt in cli.iter_prompts():
            await cli.result("ok", total_cost_usd="a lot")

    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        async with cs.SessionPool(
            transport=FakeCLI(script), limits=cs.PoolLimits(max_tokens=10**9)
        ) as pool:
            await pool.ask("k", "one")
            await pool.ask("k", "two")  # the token budget holds: its figures are readable
    assert pool.stats.spent_tokens == 2 * 2562
    assert "total_cost_usd" in caplog.text


async def test_a_running_total_that_goes_down_is_unreadable() -> None:
    totals = [0.5, 0.25, 0.75]

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        async for _prompt in cli.iter_prompts():
            await cli.result("ok", total_cost_usd=totals[len(cli.results) % 3])

    async with cs.SessionPool(
        transport=FakeCLI(script), limits=cs.PoolLimits(max_cost_usd=10.0)
    ) as pool:
        await pool.ask("k", "one")
        await pool.ask("k", "two")
        with pytest.raises(cs.BudgetExceededError, match="unreadable") as info:
            await pool.ask("k", "three")
    assert "went down" in str(info.value)
    assert pool.stats.spent_usd == 0.5


# Any value a decoded or hand-built result may hold where a figure belongs.
_FIGURES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**53 - 2, max_value=2**53 + 2),
    st.sampled_from([10**400, -(10**400), 10**5000]),
    st.floats(),
    st.floats(min_value=1e300),
    st.text(max_size=3),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


def expect_usd(value: object) -> float | None:
    """What the budget charges for a first result's ``total_cost_usd``; None: refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if value < 0:
        return None
    return float(min(value, MAX_FIGURE))


def expect_tokens(value: object) -> int | None:
    """What the budget charges for one token figure; None: refused."""
    if value is None:
        return 0  # a kind the CLI does not report
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if value < 0:
        return None
    if value > MAX_FIGURE:
        return MAX_FIGURE
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cost=_FIGURES, figures=st.lists(_FIGURES, min_size=4, max_size=4), where=st.booleans())
async def test_any_figure_is_charged_or_refused_and_the_stats_stay_finite(
    cost: object, figures: list[object], where: bool
) -> None:
    kinds: dict[str, Any] = dict(
        zip(
            (
                "input_tokens",
                "output_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
            ),
            figures,
            strict=True,
        )
    )
    built: Any = cs.ResultMessage
    if where:  # the figures in model_usage_since_last_result
        result = built(
            subtype="success",
            total_cost_usd=cost,
            model_usage_since_last_result={"m": ModelUsage(**kinds)},
        )
    else:  # in the main thread's usage only
        result = built(subtype="success", total_cost_usd=cost, usage=Usage(**kinds))
    usd = expect_usd(cost)
    counts = [expect_tokens(v) for v in figures]
    charged = min(MAX_FIGURE, sum(c for c in counts if c is not None))  # what is readable
    tokens = None if None in counts else charged

    async with cs.open_session(transport=FakeCLI()) as session:
        governor = Governor(cs.PoolLimits(max_cost_usd=MAX_FIGURE, max_tokens=MAX_FIGURE))
        before_prompt, on_result = governor.session(session._core)
        on_result(result)  # never raises
        stats = governor.stats
        assert isinstance(stats.spent_usd, float)
        assert math.isfinite(stats.spent_usd)
        assert isinstance(stats.spent_tokens, int)
        assert 0 <= stats.spent_tokens <= MAX_FIGURE
        assert stats.spent_usd == (usd or 0.0)
        assert stats.spent_tokens == charged
        if usd is not None and tokens is not None and max(usd, tokens) < MAX_FIGURE:
            await before_prompt()  # believed and within the budget: not refused
            return
        with pytest.raises(cs.BudgetExceededError) as info:
            await before_prompt()
        if usd is None or tokens is None:
            assert "unreadable" in str(info.value)
