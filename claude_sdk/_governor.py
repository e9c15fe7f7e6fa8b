"""Pool governors: a budget and a rate limit shared by every session of a `SessionPool`.

`Governor` is given to each session the pool starts (on every transport), as two hooks of
the session core: ``before_prompt`` (awaited before a prompt is written: the budget is
checked, then a slot of the rate limit is taken, waiting for one if need be) and
``on_result`` (called by the reader for each ``result``, before anyone reads it: the turn's
cost and tokens are added).

What a result costs: ``total_cost_usd`` is the CLI process's running total, so each session
counts the difference from its previous result; tokens are the result's
``model_usage_since_last_result`` (every model, subagents included: input, output, cache
read and cache write), or the difference of ``modelUsage`` totals when a CLI does not send
it, or the main thread's ``usage`` when it sends neither.

The budget stops new prompts once spent; it cannot stop turns already running, so the pool
may end above it by what those turns cost (at most the in-flight turns).
"""

from __future__ import annotations

import collections
import math
from typing import TYPE_CHECKING, Any

import anyio
import attrs

from .errors import BudgetExceededError, OptionsError, RateLimitExceededError

if TYPE_CHECKING:
    from .messages import ResultMessage

__all__ = ["BudgetExceededError", "Governor", "PoolLimits", "RateLimitExceededError"]


def _optional_positive(name: str) -> Any:
    def check(instance: Any, attribute: Any, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise OptionsError(f"PoolLimits.{name} must be a positive number or None", option=name)
        if isinstance(value, float) and not math.isfinite(value):
            raise OptionsError(f"PoolLimits.{name} must be finite", option=name)

    return check


@attrs.frozen(kw_only=True)
class PoolLimits:
    """A budget and a rate limit shared by every session of a pool (``SessionPool(limits=)``).

    Attributes:
        max_cost_usd: no new prompt once the pool's sessions have cost this much (the CLI's
            own figures).
        max_tokens: no new prompt once they have used this many tokens (input, output,
            cache read and cache write, every model, subagents included).
        max_prompts: at most this many prompts start in any window of ``per_seconds``
            (every key, every transport).
        per_seconds: the rate limit's window.
        max_wait: how long a prompt may wait for the rate limit before
            `RateLimitExceededError` (None: as long as it takes; 0: never waits).
    """

    max_cost_usd: float | None = attrs.field(
        default=None, validator=_optional_positive("max_cost_usd")
    )
    max_tokens: int | None = attrs.field(default=None, validator=_optional_positive("max_tokens"))
    max_prompts: int | None = attrs.field(default=None, validator=_optional_positive("max_prompts"))
    per_seconds: float = attrs.field(default=60.0, validator=_optional_positive("per_seconds"))
    max_wait: float | None = attrs.field(default=None)

    def __attrs_post_init__(self) -> None:
        prompts: object = self.max_prompts
        if prompts is not None and not isinstance(prompts, int):
            raise OptionsError("PoolLimits.max_prompts must be an int", option="max_prompts")
        wait: object = self.max_wait  # checked as whatever the caller passed
        if wait is not None and (
            isinstance(wait, bool) or not isinstance(wait, (int, float)) or not wait >= 0
        ):
            raise OptionsError("PoolLimits.max_wait must be >= 0 or None", option="max_wait")


class _Counted:
    """What one session has reported so far (its CLI's running totals)."""

    __slots__ = ("cost", "model_tokens")

    def __init__(self) -> None:
        self.cost = 0.0
        self.model_tokens: dict[str, int] = {}


@attrs.define
class _Figures:
    spent_usd: float = 0.0
    spent_tokens: int = 0
    prompts: int = 0
    rate_waits: int = 0
    refused: int = 0


class Governor:
    """The shared state of a pool's limits (see the module docstring).

    Args:
        limits: the limits.
        stats: where the figures go (the pool's `PoolStats`: ``spent_usd``,
            ``spent_tokens``, ``prompts``, ``rate_waits``, ``refused``).
    """

    def __init__(self, limits: PoolLimits, stats: Any = None) -> None:
        self.limits = limits
        self.stats = stats if stats is not None else _Figures()
        self._starts: collections.deque[float] = collections.deque()
        self._lock = anyio.Lock()

    def session(self) -> tuple[Any, Any]:
        """The ``(before_prompt, on_result)`` hooks of one new session."""
        counted = _Counted()

        def on_result(result: ResultMessage) -> None:
            self._count(counted, result)

        return self.before_prompt, on_result

    async def before_prompt(self) -> None:
        """Check the budget, then take a slot of the rate limit (waiting if need be).

        Raises:
            BudgetExceededError: the budget is spent.
            RateLimitExceededError: no slot within ``max_wait``.
        """
        self._check_budget()
        limits = self.limits
        if limits.max_prompts is None:
            self.stats.prompts += 1
            return
        started = anyio.current_time()
        waited = self._lock.locked()  # queued behind a prompt that waits for a slot
        # FIFO: one prompt at a time takes the next slot (anyio's Lock is fair).
        async with self._lock:
            while True:
                now = anyio.current_time()
                window = limits.per_seconds
                while self._starts and self._starts[0] <= now - window:
                    self._starts.popleft()
                if len(self._starts) < limits.max_prompts:
                    break
                ready = self._starts[0] + window
                if limits.max_wait is not None and ready - started > limits.max_wait:
                    self.stats.refused += 1
                    raise RateLimitExceededError(waited=now - started)
                waited = True
                await anyio.sleep(ready - now)
            self._check_budget()  # spent while this prompt waited?
            self._starts.append(anyio.current_time())
        self.stats.prompts += 1
        if waited:
            self.stats.rate_waits += 1

    def _check_budget(self) -> None:
        limits = self.limits
        limit = None
        if limits.max_cost_usd is not None and self.stats.spent_usd >= limits.max_cost_usd:
            limit = "max_cost_usd"
        elif limits.max_tokens is not None and self.stats.spent_tokens >= limits.max_tokens:
            limit = "max_tokens"
        if limit is not None:
            self.stats.refused += 1
            raise BudgetExceededError(
                spent_usd=self.stats.spent_usd, spent_tokens=self.stats.spent_tokens, limit=limit
            )

    def _count(self, counted: _Counted, result: ResultMessage) -> None:
        cost = _number(result.total_cost_usd)
        if cost is not None and cost >= counted.cost:
            self.stats.spent_usd += cost - counted.cost
            counted.cost = cost
        self.stats.spent_tokens += _tokens(counted, result)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def _model_total(usage: Any) -> int:
    total = 0
    for key in _USAGE_KEYS:
        value = getattr(usage, key, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            total += value
    return total


def _tokens(counted: _Counted, result: ResultMessage) -> int:
    """The tokens of one result (see the module docstring)."""
    since = result.model_usage_since_last_result
    cumulative = result.model_usage
    if isinstance(cumulative, dict):
        totals = {str(m): _model_total(u) for m, u in cumulative.items()}
    else:
        totals = {}
    if isinstance(since, dict) and since:
        turn = sum(_model_total(u) for u in since.values())
    elif totals:
        turn = sum(max(0, t - counted.model_tokens.get(m, 0)) for m, t in totals.items())
    else:
        turn = _model_total(result.usage)
    if totals:
        counted.model_tokens = totals
    return turn
