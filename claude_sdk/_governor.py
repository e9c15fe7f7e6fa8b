"""Pool governors: a budget and a rate limit shared by every session of a `SessionPool`.

`Governor.session(core)` gives each session the pool starts (on every transport) two hooks
of its core: ``before_prompt`` (awaited before a prompt is written: the budget admits it,
then it takes a slot of the rate limit, waiting if need be) and ``on_result`` (called by the
reader for each ``result``, before anyone reads it: the turn is charged; never raises).

The budget, for ``max_cost_usd`` and ``max_tokens`` alike (L is the limit):

* spent S: what the results have charged so far (below);
* in flight n: the pool's prompts written and not settled (by the result that answers them,
  or withdrawn from the CLI's queue), read off each live session's protocol
  (``Protocol.open_prompts``) when a prompt asks to go, plus prompts admitted and not yet
  written; a session that has ended has none;
* reserve r: ``reserve_usd`` / ``reserve_tokens``, else the most one result has charged in
  the pool so far (unknown until a result has).

A prompt goes when S + n·r < L (with r unknown: when n = 0 and S < L). It is refused at once
(`BudgetExceededError`) when S >= L or when a figure of L could not be read (below); else it
waits (first come, first served, in the rate limit's queue) until a result is charged or a
session with prompts in flight ends, for at most ``max_wait``, then `BudgetExceededError`.

The bound: let C be the most one result charges. When the last prompt went, n were in flight
and S + n·r < L; what is charged after it is the results of those n + 1 prompts, each at most
C. So the pool spends less than L + C + n·(C - r): less than **L + C** whenever r >= C (a
reserve at least what any turn costs; by default, when no turn costs more than the largest
before it). Not bounded: a turn the CLI runs on its own (its result answers none of our
prompts) after the last prompt went.

What a result charges: ``total_cost_usd`` is the CLI process's running total, so each
session charges the difference from its previous result; tokens are the result's
``model_usage_since_last_result`` (every model, subagents included: input, output, cache
read and cache write), or, when it is absent or empty, the difference of ``modelUsage``
totals, or, when the result has neither, the main thread's ``usage``.

Figures (`usage.MAX_FIGURE` = 2**53): a figure the budget reads is charged when it is a
number from 0 to 2**53 (a whole one for tokens; a token kind not reported counts 0). A larger
number (``10**400``, ``1e300``, infinity) is charged as 2**53 with a WARNING that names it:
a budget is at most 2**53, so it is spent. Anything else is unreadable: NaN, a negative, a
string, a bool, an entry or a field that is not a mapping, a ``total_cost_usd`` missing or
lower than the session's previous one, a ``modelUsage`` total lower than before, a result
with no token figure at all. An unreadable figure is charged as 0, logged (WARNING) and, if
its limit is set, makes the budget refuse every later prompt of the pool with a
`BudgetExceededError` that says the CLI reported an unreadable figure (fail closed).
``spent_usd`` and ``spent_tokens`` never exceed 2**53.
"""

from __future__ import annotations

import collections
import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import anyio
import attrs

from ._attrs import define, frozen
from .errors import BudgetExceededError, OptionsError, RateLimitExceededError
from .usage import KINDS, MAX_FIGURE, _get, _read_figure, _reported, _show

if TYPE_CHECKING:
    from ._session.core import SessionCore
    from .messages import ResultMessage

__all__ = ["BudgetExceededError", "Governor", "PoolLimits", "RateLimitExceededError"]

logger = logging.getLogger("claude_sdk.pool")

#: Each budget: (its limit, its reserve, the figure of the stats it is kept against).
_BUDGETS = (
    ("max_cost_usd", "reserve_usd", "spent_usd"),
    ("max_tokens", "reserve_tokens", "spent_tokens"),
)
#: The names of a token kind on a ``modelUsage`` entry (a model value or its raw dict).
_ENTRY_NAMES = {
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "cache_read_input_tokens": "cacheReadInputTokens",
    "cache_creation_input_tokens": "cacheCreationInputTokens",
}


def _number(name: str, *, optional: bool, zero: bool, figure: bool = False) -> Any:
    """A validator: a finite number, positive (or also 0 if ``zero``); a ``figure`` (a
    budget or a reserve) at most `MAX_FIGURE`."""

    def check(instance: Any, attribute: Any, value: Any) -> None:
        if value is None and optional:
            return
        low = "a number >= 0" if zero else "a positive number"
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not (value >= 0 if zero else value > 0)
        ):
            raise OptionsError(
                f"PoolLimits.{name} must be {low}{' or None' if optional else ''}", option=name
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise OptionsError(f"PoolLimits.{name} must be finite", option=name)
        if figure and value > MAX_FIGURE:
            raise OptionsError(f"PoolLimits.{name} must be at most 2**53", option=name)

    return check


@frozen(kw_only=True)
class PoolLimits:
    """A budget and a rate limit shared by every session of a pool (``SessionPool(limits=)``).

    The budget counts prompts in flight: a prompt goes only while S + n·r < ``max_cost_usd``
    (S spent, n the pool's prompts written and not yet answered, r the reserve:
    ``reserve_usd``, else the most one turn has cost so far; none seen yet: only with
    n = 0). Hence, with C the most one turn costs and n the prompts in flight when the last
    prompt went, the pool spends less than ``max_cost_usd`` + C + n·(C - r): **less than**
    ``max_cost_usd`` **+ C whenever r >= C** (turns the CLI runs on its own, answering none
    of the pool's prompts, aside). The same for ``max_tokens`` with ``reserve_tokens``. A
    prompt the budget cannot admit yet waits for turns in flight to end, up to ``max_wait``;
    one it can never admit (S >= the limit) is refused at once. Every figure a CLI reports
    is charged (a number over 2**53 as 2**53) or, when it cannot be read (NaN, a negative,
    a string, a running total that went down), makes the budget refuse every later prompt.
    Details in ``docs/guides/reliability.md``.

    Attributes:
        max_cost_usd: no new prompt once the pool's sessions have cost this much (the CLI's
            own figures), counting prompts in flight at ``reserve_usd`` each.
        max_tokens: no new prompt once they have used this many tokens (input, output,
            cache read and cache write, every model, subagents included), counting prompts
            in flight at ``reserve_tokens`` each.
        reserve_usd: what a prompt in flight is counted at against ``max_cost_usd``; None:
            the most one turn has cost in the pool so far (none seen yet: one prompt in
            flight at a time). 0 counts prompts in flight as free.
        reserve_tokens: the same for ``max_tokens``.
        max_prompts: at most this many prompts start in any window of ``per_seconds``
            (every key, every transport).
        per_seconds: the rate limit's window.
        max_wait: how long a prompt may wait for the rate limit (then
            `RateLimitExceededError`) or for turns in flight to leave room in the budget
            (then `BudgetExceededError`); None: as long as it takes; 0: never waits.
        on_usage_limit: what `SessionPool.ask` does when the account's usage limit
            refuses a turn (`UsageLimitError`): ``"raise"`` it (the default), or ``"park"``:
            every prompt of the pool waits until the limit's ``resets_at``, then the refused
            prompt is sent again (``stats.parked``). A limit with no reset time, or one that
            resets later than ``max_park`` seconds from now, is raised all the same.
        max_park: the longest a pool parks for a usage limit, in seconds (6 hours by
            default; None: however long).
    """

    max_cost_usd: float | None = attrs.field(
        default=None, validator=_number("max_cost_usd", optional=True, zero=False, figure=True)
    )
    max_tokens: int | None = attrs.field(
        default=None, validator=_number("max_tokens", optional=True, zero=False, figure=True)
    )
    reserve_usd: float | None = attrs.field(
        default=None, validator=_number("reserve_usd", optional=True, zero=True, figure=True)
    )
    reserve_tokens: int | None = attrs.field(
        default=None, validator=_number("reserve_tokens", optional=True, zero=True, figure=True)
    )
    max_prompts: int | None = attrs.field(
        default=None, validator=_number("max_prompts", optional=True, zero=False)
    )
    per_seconds: float = attrs.field(
        default=60.0, validator=_number("per_seconds", optional=False, zero=False)
    )
    max_wait: float | None = attrs.field(default=None)
    on_usage_limit: Literal["raise", "park"] = attrs.field(default="raise")
    max_park: float | None = attrs.field(default=6 * 3600.0)

    def __attrs_post_init__(self) -> None:
        if self.on_usage_limit not in ("raise", "park"):
            raise OptionsError(
                f"PoolLimits.on_usage_limit must be 'raise' or 'park', not {self.on_usage_limit!r}",
                option="on_usage_limit",
            )
        park: object = self.max_park
        if park is not None and (
            isinstance(park, bool) or not isinstance(park, (int, float)) or not park >= 0
        ):
            raise OptionsError("PoolLimits.max_park must be >= 0 or None", option="max_park")
        for name in ("max_prompts", "reserve_tokens"):
            given: object = getattr(self, name)
            if given is not None and not isinstance(given, int):
                raise OptionsError(f"PoolLimits.{name} must be an int", option=name)
        wait: object = self.max_wait  # checked as whatever the caller passed
        if wait is not None and (
            isinstance(wait, bool) or not isinstance(wait, (int, float)) or not wait >= 0
        ):
            raise OptionsError("PoolLimits.max_wait must be >= 0 or None", option="max_wait")


class _Member:
    """One session of the pool: its core, and what its CLI has reported so far."""

    __slots__ = ("admitted", "core", "cost", "model_tokens")

    def __init__(self, core: SessionCore) -> None:
        self.core = core
        #: The last running total believed (``total_cost_usd``).
        self.cost = 0.0
        #: The last ``modelUsage`` totals believed, per model.
        self.model_tokens: dict[str, int] = {}
        #: What ``protocol.prompts_sent`` will be once every prompt admitted is written.
        self.admitted = 0

    @property
    def live(self) -> bool:
        return not self.core.closed and not self.core.reader_done.is_set()

    def in_flight(self) -> int:
        protocol = self.core.protocol
        return len(protocol.open_prompts) + max(0, self.admitted - protocol.prompts_sent)


@define
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
        self._members: list[_Member] = []
        #: The most one result has charged, per limit (the default reserve).
        self._largest: dict[str, float] = {}
        #: The first unreadable figure, per limit (the budget fails closed).
        self._unreadable: dict[str, str] = {}
        #: Set when a result is charged (made on first wait: there may be no loop yet).
        self._changed: anyio.Event | None = None
        #: No prompt goes before this time of the event loop's clock (a usage limit).
        self.parked_until: float | None = None

    def park(self, until: float) -> None:
        """Hold every prompt of the pool until ``until`` (the event loop's clock)."""
        if self.parked_until is None or until > self.parked_until:
            self.parked_until = until

    async def _unpark(self) -> None:
        """Wait out a usage limit's park (`park`)."""
        until = self.parked_until
        if until is not None:
            left = until - anyio.current_time()
            if left > 0:
                await anyio.sleep(left)

    def session(
        self, core: SessionCore
    ) -> tuple[Callable[[], Awaitable[None]], Callable[[ResultMessage], None]]:
        """The ``(before_prompt, on_result)`` hooks of the session of ``core``."""
        self._members = [m for m in self._members if m.live]
        member = _Member(core)
        self._members.append(member)

        async def before_prompt() -> None:
            await self._admit(member)

        def on_result(result: ResultMessage) -> None:
            try:
                self._charge(member, result)
            except Exception as error:  # the hook runs in the reader: it never raises
                reason = f"a result could not be read ({_show(error)})"
                for limit, _reserve, _spent in _BUDGETS:
                    self._unbelieved(limit, reason)
            try:
                # An admitted prompt is written before any task switch; one that never
                # was (its session failed in between) holds no reserve past a result.
                member.admitted = min(member.admitted, core.protocol.prompts_sent)
            finally:
                self._notify()

        return before_prompt, on_result

    # -- admission ------------------------------------------------------------------------

    async def _admit(self, member: _Member) -> None:
        """Admit a prompt of ``member``'s session: the budget, then the rate limit.

        Raises:
            BudgetExceededError: the budget is spent, a figure was unreadable, or turns in
                flight held the prompt for ``max_wait``.
            RateLimitExceededError: no slot within ``max_wait``.
            ClaudeSDKError: the session's own error (`SessionClosedError`, the CLI's
                failure): it ended while the prompt waited.
        """
        await self._unpark()
        limits = self.limits
        budget = limits.max_cost_usd is not None or limits.max_tokens is not None
        if not budget and limits.max_prompts is None:
            self.stats.prompts += 1
            return
        started = anyio.current_time()
        queued = self._lock.locked()  # behind a prompt that waits
        rate_waited = False
        # FIFO: one prompt at a time is admitted (anyio's Lock is fair).
        async with self._lock:
            while True:
                member.core.raise_if_closed()
                self._refuse_if_spent()
                held = self._held() if budget else None
                now = anyio.current_time()
                ready = self._next_slot(now)
                if held is None and ready is None:
                    break
                if held is not None:
                    limit, why = held
                    if limits.max_wait is not None and now - started >= limits.max_wait:
                        self._refuse(
                            limit,
                            f"{why}; the prompt waited {now - started:.2f} s (max_wait) and "
                            "was not sent",
                        )
                    left = None if limits.max_wait is None else started + limits.max_wait - now
                    await self._until_settled(member, within=left)
                    continue
                assert ready is not None
                if limits.max_wait is not None and ready - started > limits.max_wait:
                    self.stats.refused += 1
                    raise RateLimitExceededError(waited=now - started)
                rate_waited = True
                await anyio.sleep(ready - now)
            # Admitted: from here to the prompt's write there is no checkpoint.
            if limits.max_prompts is not None:
                self._starts.append(now)
            member.admitted = max(member.admitted, member.core.protocol.prompts_sent) + 1
        self.stats.prompts += 1
        if limits.max_prompts is not None and (queued or rate_waited):
            self.stats.rate_waits += 1

    def _next_slot(self, now: float) -> float | None:
        """When the rate limit has a slot (None: now)."""
        limits = self.limits
        if limits.max_prompts is None:
            return None
        window = limits.per_seconds
        while self._starts and self._starts[0] <= now - window:
            self._starts.popleft()
        if len(self._starts) < limits.max_prompts:
            return None
        return self._starts[0] + window

    def _refuse_if_spent(self) -> None:
        """Refuse for good: a figure of a limit unreadable, or a limit reached."""
        budgets = [b for b in _BUDGETS if getattr(self.limits, b[0]) is not None]
        for limit, _reserve, _spent in budgets:
            reason = self._unreadable.get(limit)
            if reason is not None:
                self._refuse(
                    limit,
                    f"the CLI reported an unreadable figure ({reason}): the pool's budget "
                    f"({limit}) can no longer be kept; the prompt was not sent",
                )
        for limit, _reserve, spent_name in budgets:
            if getattr(self.stats, spent_name) >= getattr(self.limits, limit):
                self._refuse(limit, None)

    def _held(self) -> tuple[str, str] | None:
        """The limit that cannot admit a prompt while the prompts in flight are, and why."""
        n = self._in_flight()
        if n == 0:
            return None
        for limit, reserve_name, spent_name in _BUDGETS:
            maximum = getattr(self.limits, limit)
            if maximum is None:
                continue
            spent = getattr(self.stats, spent_name)
            reserve = getattr(self.limits, reserve_name)
            if reserve is None:
                reserve = self._largest.get(limit)
            if reserve is None:
                return limit, (
                    f"the pool's budget ({limit}) holds the prompt: {n} prompt(s) in flight "
                    "and no turn has reported what it costs yet (one prompt in flight at a "
                    "time until one has, or set PoolLimits."
                    f"{reserve_name})"
                )
            if spent + n * reserve >= maximum:
                return limit, (
                    f"the pool's budget ({limit}) holds the prompt: {n} prompt(s) in flight "
                    f"at {_amount(limit, reserve)} each and {_amount(limit, spent)} spent, "
                    f"of {_amount(limit, maximum)}"
                )
        return None

    def _in_flight(self) -> int:
        """The pool's prompts written (or admitted) and not settled."""
        self._members = [m for m in self._members if m.live]
        return sum(m.in_flight() for m in self._members)

    async def _until_settled(self, member: _Member, *, within: float | None) -> None:
        """Wait until a result is charged, or a session with prompts in flight (or the
        prompt's own) ends; at most ``within`` seconds (None: no limit)."""
        if self._changed is None:
            self._changed = anyio.Event()
        events = [self._changed, member.core.reader_done]
        events += [m.core.reader_done for m in self._members if m.live and m.in_flight()]
        events = [e for e in events if not e.is_set()]
        with anyio.move_on_after(within):
            async with anyio.create_task_group() as tg:

                async def wake(event: anyio.Event) -> None:
                    await event.wait()
                    tg.cancel_scope.cancel()

                for event in events:
                    tg.start_soon(wake, event)

    def _notify(self) -> None:
        changed, self._changed = self._changed, None
        if changed is not None:
            changed.set()

    def _refuse(self, limit: str, message: str | None) -> NoReturn:
        self.stats.refused += 1
        raise BudgetExceededError(
            message,
            spent_usd=self.stats.spent_usd,
            spent_tokens=self.stats.spent_tokens,
            limit=limit,
        )

    # -- charging -------------------------------------------------------------------------

    def _charge(self, member: _Member, result: ResultMessage) -> None:
        stats = self.stats
        usd = self._turn_cost(member, result)
        stats.spent_usd = min(float(MAX_FIGURE), stats.spent_usd + usd)
        self._largest["max_cost_usd"] = max(self._largest.get("max_cost_usd", 0.0), usd)
        tokens = self._turn_tokens(member, result)
        stats.spent_tokens = min(MAX_FIGURE, stats.spent_tokens + tokens)
        self._largest["max_tokens"] = max(self._largest.get("max_tokens", 0), tokens)

    def _turn_cost(self, member: _Member, result: ResultMessage) -> float:
        """The turn's cost: the running total's growth since the session's last result."""
        value = _reported(result, "total_cost_usd", "total_cost_usd")
        if value is None:
            self._unbelieved("max_cost_usd", "total_cost_usd is missing")
            return 0.0
        reading = _read_figure(value, whole=False)
        if reading.problem is not None and not reading.too_large:
            self._unbelieved("max_cost_usd", f"total_cost_usd {_show(value)} is {reading.problem}")
            return 0.0
        if reading.too_large:
            self._clamped("total_cost_usd", value)
        total = float(reading.value)
        if total < member.cost:
            self._unbelieved(
                "max_cost_usd", f"total_cost_usd went down from {member.cost} to {total}"
            )
            return 0.0
        turn, member.cost = total - member.cost, total
        return turn

    def _turn_tokens(self, member: _Member, result: ResultMessage) -> int:
        """The turn's tokens (see the module docstring for the source)."""
        # What is wrong with the figures read, and which were clamped: said (logged, and
        # the budget fails closed) only for the source the turn is charged from.
        problems: list[str] = []
        clamped: list[tuple[str, object]] = []
        since = _reported(result, "model_usage_since_last_result", "model_usage_since_last_result")
        cumulative = _reported(result, "model_usage", "modelUsage")
        usage = _reported(result, "usage", "usage")
        totals: dict[str, int] = {}
        if isinstance(cumulative, Mapping):
            for model, entry in cumulative.items():
                name = f"modelUsage[{_show(model)}]"
                total, readable = _entry_tokens(name, entry, problems, clamped)
                if readable:
                    totals[str(model)] = total
        before, member.model_tokens = member.model_tokens, {**member.model_tokens, **totals}
        turn = 0
        if isinstance(since, Mapping) and since:
            problems, clamped = [], []  # modelUsage is only a baseline here
            for model, entry in since.items():
                name = f"model_usage_since_last_result[{_show(model)}]"
                turn += _entry_tokens(name, entry, problems, clamped)[0]
        elif since is not None and not isinstance(since, Mapping):
            problems, clamped = [f"model_usage_since_last_result is {_show(since)}"], []
        elif cumulative is not None:
            if not isinstance(cumulative, Mapping):
                problems.append(f"modelUsage is {_show(cumulative)}")
            for model, total in totals.items():
                previous = before.get(model, 0)
                if total < previous:
                    problems.append(f"modelUsage[{_show(model)}] went down to {total} tokens")
                else:
                    turn += total - previous
        elif usage is not None:
            turn = _entry_tokens("usage", usage, problems, clamped)[0]
        else:
            problems.append("the result reports no tokens")
        for name, value in clamped:
            self._clamped(name, value)
        for problem in problems:
            self._unbelieved("max_tokens", problem)
        return min(turn, MAX_FIGURE)

    def _unbelieved(self, limit: str, reason: str) -> None:
        """A figure of ``limit`` could not be read: charged as 0, and if ``limit`` is set,
        every later prompt is refused."""
        governed = getattr(self.limits, limit) is not None
        logger.warning(
            "pool budget: the CLI reported an unreadable figure: %s; charged as 0%s",
            reason,
            f", and {limit} refuses every later prompt" if governed else "",
        )
        self._unreadable.setdefault(limit, reason)

    def _clamped(self, name: str, value: object) -> None:
        logger.warning(
            "pool budget: the CLI reported %s = %s, beyond belief: charged as 2**53",
            name,
            _show(value),
        )


def _entry_tokens(
    name: str, entry: object, problems: list[str], clamped: list[tuple[str, object]]
) -> tuple[int, bool]:
    """The four kinds of token of an entry, summed over those that can be read (one over
    2**53 as 2**53, listed in ``clamped``), and whether all could (``problems`` says which
    could not)."""
    if not isinstance(entry, Mapping) and not attrs.has(type(entry)):
        problems.append(f"{name} is {_show(entry)}")
        return 0, False
    total = 0
    readable = True
    for kind in KINDS:
        value = _get(entry, kind, _ENTRY_NAMES[kind])
        reading = _read_figure(value, whole=True)
        if reading.too_large:
            clamped.append((f"{name}.{kind}", value))
        elif reading.problem is not None:
            problems.append(f"{name}.{kind} {_show(value)} is {reading.problem}")
            readable = False
        total += int(reading.value)
    return min(total, MAX_FIGURE), readable


def _amount(limit: str, value: float) -> str:
    return f"${value:.4f}" if limit == "max_cost_usd" else f"{value} tokens"
