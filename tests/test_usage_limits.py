"""The account's usage limit is its own kind (issue 31, item 4): `UsageLimitError` with
``resets_at``, never retried into the wall; a pool can park its prompts until the reset."""

from __future__ import annotations

import datetime
import time
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.errors import usage_limit
from claude_sdk.messages import RateLimitInfo
from claude_sdk.testing import FakeCLI, ScriptedCLI

pytestmark = pytest.mark.anyio

LIMIT_TEXT = "You've hit your limit · resets 3pm (Europe/London)"


def limited(resets_at: float | None, *, then: list[str] = (), **info: Any) -> Any:  # type: ignore[assignment]
    """A script: the first prompt's turn is refused by the usage limit; later ones answer."""
    arrivals: list[float] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        arrivals.append(time.time())
        await cli.state("running")
        fields = {"rateLimitType": "five_hour", **info}
        if resets_at is not None:
            fields["resetsAt"] = int(resets_at) if resets_at == int(resets_at) else resets_at
        await cli.rate_limit("rejected", **fields)
        await cli.result(LIMIT_TEXT, is_error=True, api_error_status=429)
        await cli.state("idle")
        for text in then:
            await cli.next_prompt()
            arrivals.append(time.time())
            await cli.turn(text)
        await cli.serve_until_stdin_closes()

    script.arrivals = arrivals  # type: ignore[attr-defined]
    return script


async def test_a_usage_limit_is_its_own_error_with_the_reset_time() -> None:
    reset = int(time.time()) + 3600
    with pytest.raises(cs.UsageLimitError) as raised:
        await cs.ask("hi", transport=FakeCLI(limited(reset)))
    error = raised.value
    assert error.kind == "usage_limit"
    assert error.resets_at == datetime.datetime.fromtimestamp(reset, tz=datetime.timezone.utc)
    assert error.limit_type == "five_hour"
    assert not error.retryable
    assert isinstance(error, cs.ResultError)
    assert "resets at" in str(error)
    assert "on_usage_limit='park'" in str(error)


async def test_a_usage_limit_is_never_retried() -> None:
    script = limited(time.time() + 3600, then=["should not run"])
    options = cs.Options(retry=cs.RetryPolicy(max_attempts=5, initial_delay=0.01))
    with pytest.raises(cs.UsageLimitError):
        await cs.ask("hi", options=options, transport=FakeCLI(script))
    assert len(script.arrivals) == 1  # one attempt: no retry ran into the wall


def test_the_rule_reads_the_event_or_the_text() -> None:
    result = cs.ResultMessage(
        subtype="success", is_error=True, result="Claude AI usage limit reached|1767225600"
    )
    assert usage_limit(result) == (
        datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc),
        None,
    )
    plain = cs.ResultMessage(subtype="success", is_error=True, result="API Error: 500")
    assert usage_limit(plain) is None
    ok = cs.ResultMessage(subtype="success", is_error=False, result=LIMIT_TEXT)
    assert usage_limit(ok) is None  # only an error result
    warning = cs.RateLimitEvent(rate_limit_info=RateLimitInfo(status="allowed_warning"))
    assert usage_limit(plain, [warning]) is None


async def test_a_parked_pool_sends_the_prompt_again_after_the_reset() -> None:
    reset = time.time() + 0.5
    script = limited(reset, then=["after the reset"])
    limits = cs.PoolLimits(on_usage_limit="park")
    async with cs.SessionPool(transport=FakeCLI(script), limits=limits) as pool:
        with anyio.fail_after(30):
            reply = await pool.ask("k", "hi")
    assert reply.text == "after the reset"
    assert pool.stats.parked == 1
    _, second = script.arrivals
    assert second >= reset  # not sent again before the limit reset


async def test_a_pool_does_not_park_past_max_park_or_without_a_reset_time() -> None:
    for reset in (time.time() + 3600, None):
        limits = cs.PoolLimits(on_usage_limit="park", max_park=60)
        async with cs.SessionPool(transport=FakeCLI(limited(reset)), limits=limits) as pool:
            with pytest.raises(cs.UsageLimitError):
                await pool.ask("k", "hi")
        assert pool.stats.parked == 0


def test_park_options_are_checked() -> None:
    with pytest.raises(cs.OptionsError, match="on_usage_limit"):
        cs.PoolLimits(on_usage_limit="wait")  # type: ignore[arg-type]
    with pytest.raises(cs.OptionsError, match="max_park"):
        cs.PoolLimits(max_park=-1)
