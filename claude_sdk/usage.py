"""Usage and cost by agent: the main agent, each subagent, and what cannot be split.

`usage_by_agent(messages)` reads the messages of one turn (up to and including its
`ResultMessage`) and gives a `UsageReport`: the tokens and cost of the main agent, of each
subagent (by the ``parent_tool_use_id`` of its messages, with its agent type), and an
explicit ``unattributed`` share. `UsageTracker` does the same for a stream of many turns;
``Reply.usage_by_agent`` for ``ask``.

Invariants, for every report:

* main + every subagent + unattributed == the CLI's totals for the turn, per model and per
  field of `TokenUsage`; no share is negative;
* their costs add up to the CLI's cost for the turn (to float rounding), and every cost is a
  finite float;
* nothing raises: a missing, malformed or unknown figure leaves its tokens unattributed, and
  ``notes`` says why whenever that is more than the usual understated output (below).

Figures beyond belief: a figure of the totals (a token count or a ``costUSD`` of
``model_usage_since_last_result``, or of ``modelUsage`` when that is the source) is believed
when it is a number from 0 to `MAX_FIGURE` (2**53), a whole one for tokens; None (not
reported) reads as 0. Any other value (negative, NaN, infinite, above `MAX_FIGURE` such as a
cost of 1e308 or a count of 10**400, a string, a boolean, a list) is left out of the totals
and of every share (read as 0, never clamped: the report invents no figure) and ``notes``
names it (``"a: cost_usd 1e+308 ...: left out"``). So every cost stays a finite float and
the costs of a turn add up (a sum of 1e308 and 1e308 would be ``inf``); a token count stays
short enough to print. Figures of the evidence (streamed ``usage``, the Agent tool's result,
task notifications) read the same way, unbelieved ones as 0 without a note: their tokens
stay unattributed.

What the CLI reports (2.1.330 to 2.1.332, read off recorded traffic), and so what can be
attributed:

* the turn's totals per model, subagents included: ``model_usage_since_last_result``, else
  the difference of the process-cumulative ``modelUsage``; each with its ``costUSD``
  (``total_cost_usd`` is cumulative over the process, so it is not the turn's cost after
  the first turn);
* the main agent's tokens for the turn: the result's ``usage``. It is empty for an
  interrupted or failed turn; then the main agent's own streamed messages stand in;
* a subagent's requests: its streamed ``assistant`` messages carry its ``usage`` as of the
  stream's start (input and cache tokens exact, output tokens understated); one API message
  may come as several frames (one per block, the same ``message.id``): counted once. A
  foreground subagent's last request is not streamed: its exact ``usage`` arrives in the
  Agent tool's result (``tool_use_result``, with ``agentType`` and ``resolvedModel``). A
  background subagent's last request is streamed, and its ``task_notification`` carries
  ``usage.total_tokens`` (input, cache and output tokens of that last request), which gives
  that request's output exactly when both come in the same turn.

Not in any figure but the totals: the output of a foreground subagent's earlier requests
beyond the stream's start, compaction requests, and requests made without streaming.

When what the evidence credits to one model's subagents exceeds what the totals leave them
for some kind (double counting: say a newer CLI that streams the last request too), nothing
is clamped: that model's subagent share goes to ``unattributed`` and ``notes`` says why. The
same for the main agent.

Cost: the CLI gives a cost per model only. Each model's cost is split among the shares on it
in proportion to price-weighted tokens (input 1, output 5, cache read 0.1, cache write 1.25
for five minutes and 2 for an hour: the same ratios for every Claude model). A share alone
on its model gets that model's cost exactly (``cost_basis``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal, NamedTuple

import attrs

from ._attrs import define, frozen
from .messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    SystemMessage,
    ToolUseBlock,
    UnknownMessage,
    UserMessage,
)

__all__ = ["AgentUsage", "TokenUsage", "UsageReport", "UsageTracker", "usage_by_agent"]

#: The four kinds of token, as the Messages API names them (they add up to `TokenUsage.total`).
KINDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
#: Every field of `TokenUsage`: the four kinds and the one-hour part of the cache writes.
FIELDS = (*KINDS, "cache_creation_1h_input_tokens")
#: Relative prices of the kinds (the same for every Claude model).
WEIGHTS = {
    "input_tokens": 1.0,
    "output_tokens": 5.0,
    "cache_read_input_tokens": 0.1,
    "cache_creation_input_tokens": 1.25,
}
#: Relative price of the cache writes kept for an hour.
WEIGHT_1H = 2.0
#: The largest figure believed, in tokens or in dollars (2**53, about 9.007e15: more than any
#: turn uses or costs; up to it an integer is exact as a float, and a sum of a million such
#: figures is still a finite float). `PoolLimits` reads the CLI's figures by the same rule.
MAX_FIGURE = 2**53
_AGENT_TOOLS = frozenset({"Agent", "Task"})

#: How a share's cost was obtained (`AgentUsage.cost_basis`).
CostBasis = Literal["exact", "proportional", "none"]


class _Reading(NamedTuple):
    """A figure as read by `_read_figure`."""

    value: int | float  #: the figure; `MAX_FIGURE` when too large; 0 when not a figure
    problem: str | None = None  #: why it is not believed as reported (None: it is)
    too_large: bool = False  #: a number above `MAX_FIGURE` (infinity included)


def _read_figure(value: object, *, whole: bool) -> _Reading:
    """``value`` read as a count (``whole``) or as an amount in dollars.

    None (not reported) reads as 0. A number from 0 to `MAX_FIGURE` (whole, for a count) is
    believed. A larger one, infinity included, is ``too_large`` (value `MAX_FIGURE`: a caller
    decides whether to clamp it or leave it out). Anything else (NaN, negative, a fraction of
    a token, a bool, a string, a container) is not a figure (value 0).
    """
    if value is None:
        return _Reading(0)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _Reading(0, "not a number")
    if isinstance(value, float) and math.isnan(value):
        return _Reading(0, "not a number")
    if value < 0:
        return _Reading(0, "negative")
    if value > MAX_FIGURE:
        return _Reading(MAX_FIGURE, "beyond belief (over 2**53)", too_large=True)
    if whole:
        if isinstance(value, float) and not value.is_integer():
            return _Reading(0, "not a whole number")
        return _Reading(int(value))
    return _Reading(float(value))


def _show(value: object) -> str:
    """A short, safe rendering of a figure for a note or a log line (an int of 5,000 digits
    cannot even be printed: Python refuses)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        digits = math.floor(math.log10(abs(value))) + 1
        return f"{'-' if value < 0 else ''}an integer of about {digits} digits"
    try:
        text = repr(value)
    except Exception:  # a figure that cannot be shown is named by its type
        return f"a {type(value).__name__}"
    return text if len(text) <= 40 else f"{text[:37]}..."


def _count(value: object) -> int:
    """A token count, or 0 for anything that is not a believed count (`_read_figure`)."""
    reading = _read_figure(value, whole=True)
    return 0 if reading.problem is not None else int(reading.value)


def _get(source: object, *names: str) -> object:
    """The first of ``names`` that ``source`` (a mapping or an object) has, else None."""
    for name in names:
        if isinstance(source, Mapping):
            if name in source:
                return source[name]
        elif hasattr(source, name):
            return getattr(source, name)
    return None


@frozen(kw_only=True)
class TokenUsage:
    """Tokens by kind.

    Attributes:
        input_tokens: uncached input tokens.
        output_tokens: output tokens.
        cache_read_input_tokens: input tokens read from the cache.
        cache_creation_input_tokens: input tokens written to the cache (both lifetimes).
        cache_creation_1h_input_tokens: of those, the ones written for an hour (priced
            higher); 0 when the CLI does not say.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_creation_1h_input_tokens: int = 0

    @classmethod
    def of(cls, usage: object) -> TokenUsage:
        """From an API ``usage`` (dict or `Usage`), a ``modelUsage`` entry (dict or
        `ModelUsage`) or an Agent tool result's ``usage``; anything unreadable counts 0."""
        if usage is None:
            return _ZERO
        one_hour = _get(usage, "cache_creation_ephemeral1h_input_tokens")
        if one_hour is None:
            one_hour = _get(usage, "cacheCreationEphemeral1hInputTokens")
        if one_hour is None:
            one_hour = _get(_get(usage, "cache_creation"), "ephemeral_1h_input_tokens")
        return cls(
            input_tokens=_count(_get(usage, "input_tokens", "inputTokens")),
            output_tokens=_count(_get(usage, "output_tokens", "outputTokens")),
            cache_read_input_tokens=_count(
                _get(usage, "cache_read_input_tokens", "cacheReadInputTokens")
            ),
            cache_creation_input_tokens=_count(
                _get(usage, "cache_creation_input_tokens", "cacheCreationInputTokens")
            ),
            cache_creation_1h_input_tokens=_count(one_hour),
        )

    @property
    def total(self) -> int:
        """The four kinds together."""
        return sum(getattr(self, k) for k in KINDS)

    @property
    def weighted(self) -> float:
        """Price-weighted tokens (input 1, output 5, cache read 0.1, cache write 1.25, or 2
        for the part written for an hour); ``inf`` if that is beyond a float."""
        one_hour = min(self.cache_creation_1h_input_tokens, self.cache_creation_input_tokens)
        # In twentieths, as integers: exact whatever the counts (a float product of a huge
        # count would raise OverflowError).
        twentieths = (
            20 * self.input_tokens
            + 100 * self.output_tokens
            + 2 * self.cache_read_input_tokens
            + 25 * (self.cache_creation_input_tokens - one_hour)
            + 40 * one_hour
        )
        try:
            return twentieths / 20
        except OverflowError:
            return math.inf if twentieths > 0 else -math.inf

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(**{k: getattr(self, k) + getattr(other, k) for k in FIELDS})


_ZERO = TokenUsage()


def _nonzero(usage: TokenUsage) -> bool:
    return any(getattr(usage, k) for k in FIELDS)


def _minus(a: TokenUsage, b: TokenUsage) -> TokenUsage:
    return TokenUsage(**{k: getattr(a, k) - getattr(b, k) for k in FIELDS})


def _kinds_max(a: TokenUsage, b: TokenUsage) -> TokenUsage:
    return TokenUsage(**{k: max(getattr(a, k), getattr(b, k)) for k in FIELDS})


def _input_side(usage: TokenUsage) -> tuple[int, int, int]:
    return (usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens)


def _sum(usages: Iterable[TokenUsage]) -> TokenUsage:
    out = _ZERO
    for usage in usages:
        out = out + usage
    return out


@frozen(kw_only=True)
class AgentUsage:
    """One share of a turn's usage: an agent's, the unattributed rest, or the totals.

    Attributes:
        agent_id: the subagent's ``parent_tool_use_id`` (the id of the Agent call that
            started it); None for the main agent, the unattributed share and the totals.
        agent_type: ``"main"``, the subagent's type (``"general-purpose"``, a custom
            agent's name; None when unknown), ``"unattributed"`` or ``"total"``.
        description: the subagent's task description, when known.
        models: tokens per model (models it has no tokens on are left out).
        costs: cost in USD per model.
        cost_usd: the sum of ``costs``.
        cost_basis: ``"exact"`` (alone on each of its models, or the CLI's own figure),
            ``"proportional"`` (a model's cost split by price-weighted tokens) or
            ``"none"`` (no tokens, no cost).
        sources: where its tokens were read: ``"result.usage"``, ``"stream"`` (its
            assistant messages), ``"tool_use_result"`` (the Agent tool's result),
            ``"task_notification"``, ``"model_usage_since_last_result"`` or
            ``"modelUsage"`` (the totals).
        parent_id: for a subagent a subagent started (a nested one), the ``agent_id`` of
            that subagent; None for one the main agent started, and for the other shares.
        depth: 0 for the main agent, 1 for a subagent the main agent started, 2 for one
            that subagent started, ...; None for the unattributed share and the totals.
    """

    agent_id: str | None = None
    agent_type: str | None = None
    description: str | None = None
    models: Mapping[str, TokenUsage] = attrs.field(factory=dict)
    costs: Mapping[str, float] = attrs.field(factory=dict)
    cost_usd: float = 0.0
    cost_basis: CostBasis = "none"
    sources: tuple[str, ...] = ()
    parent_id: str | None = None
    depth: int | None = None

    @property
    def tokens(self) -> TokenUsage:
        """Its tokens over every model."""
        return _sum(self.models.values())


@frozen(kw_only=True)
class UsageReport:
    """A turn's usage and cost by agent (see the module docstring for the invariants).

    Attributes:
        main: the main agent.
        subagents: every subagent that ran (or reported) in the turn, in order of first
            sight.
        unattributed: what the CLI's totals hold that no agent's evidence accounts for.
        total: the CLI's totals for the turn; ``total.cost_usd`` is the turn's cost.
        notes: why a share is unattributed, when it is more than the understated output
            of streamed subagent requests.
    """

    main: AgentUsage
    subagents: tuple[AgentUsage, ...]
    unattributed: AgentUsage
    total: AgentUsage
    notes: tuple[str, ...] = ()

    @property
    def agents(self) -> tuple[AgentUsage, ...]:
        """The main agent, every subagent, then the unattributed share: they add up to
        ``total``."""
        return (self.main, *self.subagents, self.unattributed)

    def subagent(self, agent_id: str) -> AgentUsage | None:
        """The subagent started by the Agent call ``agent_id``, or None."""
        return next((a for a in self.subagents if a.agent_id == agent_id), None)

    def by_agent_type(self) -> dict[str, TokenUsage]:
        """Tokens per agent type (``"main"``, each subagent type, ``"unknown"`` for
        subagents of unknown type, ``"unattributed"``)."""
        out: dict[str, TokenUsage] = {}
        for agent in self.agents:
            key = agent.agent_type or "unknown"
            out[key] = out.get(key, _ZERO) + agent.tokens
        return out

    def cost_by_agent_type(self) -> dict[str, float]:
        """Cost in USD per agent type, keyed as `by_agent_type`."""
        out: dict[str, float] = {}
        for agent in self.agents:
            key = agent.agent_type or "unknown"
            out[key] = out.get(key, 0.0) + agent.cost_usd
        return out


# ------------------------------------------------------------------------------- evidence


@define
class _Streamed:
    model: str | None
    usage: TokenUsage


@define
class _Sub:
    """What the messages tell about one subagent."""

    agent_id: str
    agent_type: str | None = None
    description: str | None = None
    model: str | None = None  # resolvedModel of its Agent result
    background: bool = False
    # This turn's evidence; a background subagent may report in several turns.
    streamed: dict[str, _Streamed] = attrs.field(factory=dict)  # by message id
    final: TokenUsage | None = None
    sources: set[str] = attrs.field(factory=set)
    active: bool = True
    # Its last streamed request (kept across turns for its model).
    last: _Streamed | None = None
    #: The agent whose Agent call started it (None: the main agent's), and how deep.
    parent: str | None = None
    depth: int = 1

    def evidence(self) -> list[_Streamed]:
        out = list(self.streamed.values())
        if self.final is not None:
            out.append(_Streamed(self.model or self._stream_model(), self.final))
        return out

    def _stream_model(self) -> str | None:
        return self.last.model if self.last is not None else None


def _streamed_now(sub: _Sub, entry: _Streamed) -> bool:
    """Whether ``entry`` is one of this turn's streamed requests of ``sub``."""
    return any(e is entry for e in sub.streamed.values())


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


class UsageTracker:
    """Usage by agent over a stream of messages, turn after turn (sans-IO).

    Feed it every message of a session or of one turn, in order (`add`); at each
    `ResultMessage` it makes that turn's `UsageReport` (returned by `add`, kept in
    `reports`, the latest from `report`). It never raises: a frame it cannot read adds
    nothing, and its tokens stay unattributed.

    Attributes:
        reports: the report of every turn so far, oldest first.
    """

    def __init__(self) -> None:
        self._subs: dict[str, _Sub] = {}
        self._main: dict[str, _Streamed] = {}  # this turn's main-agent messages, by id
        self._main_model: str | None = None  # the model of its latest message
        self._init_model: str | None = None
        self._cumulative: dict[str, tuple[TokenUsage, float]] | None = None
        self._notes: list[str] = []
        self._compacted = False
        self.reports: list[UsageReport] = []

    def add(self, message: Message) -> UsageReport | None:
        """Take one message.

        Returns:
            The turn's report when ``message`` is its `ResultMessage`, else None.
        """
        if isinstance(message, ResultMessage):
            try:
                report = self._result(message)
            except Exception as error:  # a report must come out of every result
                report = _fallback(message, f"usage could not be attributed: {error!r}")
                self._end_turn()
            self.reports.append(report)
            return report
        try:
            if isinstance(message, AssistantMessage):
                self._assistant(message)
            elif isinstance(message, UserMessage):
                self._user(message)
            elif isinstance(message, SystemMessage):
                self._system(message)
            elif isinstance(message, UnknownMessage) and message.type == "system":
                self._system(message.raw)
        except Exception:  # noqa: S110 - an unreadable frame adds no evidence
            pass
        return None

    def report(self) -> UsageReport | None:
        """The report of the latest turn, or None before the first result."""
        return self.reports[-1] if self.reports else None

    # -- evidence ----------------------------------------------------------------------

    def _assistant(self, message: AssistantMessage) -> None:
        # The decoder checks shapes, not value types: any field may hold anything.
        api = message.message
        model = _str(getattr(api, "model", None))
        content: object = getattr(api, "content", None)
        for block in content if isinstance(content, list) else ():
            if isinstance(block, ToolUseBlock) and block.name in _AGENT_TOOLS:
                given: object = getattr(block, "input", None)
                tool_input = given if isinstance(given, Mapping) else {}
                sub = self._sub(block.id)
                if sub is None:
                    continue
                caller = _str(message.parent_tool_use_id)
                if caller is not None and caller != sub.agent_id:
                    sub.parent = caller
                    above = self._subs.get(caller)
                    sub.depth = (above.depth if above is not None else 1) + 1
                sub.agent_type = _str(tool_input.get("subagent_type")) or sub.agent_type
                sub.description = _str(tool_input.get("description")) or sub.description
                if tool_input.get("run_in_background") is True:
                    sub.background = True
        usage = TokenUsage.of(getattr(api, "usage", None))
        parent = _str(message.parent_tool_use_id)
        if parent is None:
            key = _str(getattr(api, "id", None)) or f"#{len(self._main)}"
            seen = self._main.get(key)
            # One API message comes as one frame per block, each with the same usage.
            self._main[key] = _Streamed(model, _kinds_max(seen.usage, usage) if seen else usage)
            self._main_model = model or self._main_model
            return
        sub = self._sub(parent)
        if sub is None:
            return
        key = _str(getattr(api, "id", None)) or f"#{len(sub.streamed)}"
        seen = sub.streamed.get(key)
        entry = _Streamed(model, _kinds_max(seen.usage, usage) if seen else usage)
        sub.streamed[key] = sub.last = entry
        sub.sources.add("stream")
        sub.agent_type = sub.agent_type or _str(message.subagent_type)
        sub.description = sub.description or _str(message.task_description)

    def _user(self, message: UserMessage) -> None:
        result: object = message.tool_use_result
        if not isinstance(result, Mapping):
            return
        content: object = getattr(message.message, "content", None)
        ids = [
            _str(getattr(b, "tool_use_id", None))
            for b in (content if isinstance(content, list) else ())
            if getattr(b, "type", None) == "tool_result"
        ]
        agent_result = "agentType" in result or "agentId" in result
        known = {i for i in ids if i is not None and (i in self._subs or agent_result)}
        if len(known) != 1:
            if agent_result and "usage" in result:
                self._notes.append("an Agent result names no single Agent call: not attributed")
            return
        sub = self._sub(known.pop())
        if sub is None:
            return
        sub.agent_type = _str(result.get("agentType")) or sub.agent_type
        sub.description = sub.description or _str(result.get("description"))
        sub.model = _str(result.get("resolvedModel")) or sub.model
        if result.get("status") == "async_launched" or result.get("isAsync") is True:
            sub.background = True
        if "usage" not in result:
            return
        final = TokenUsage.of(result.get("usage"))
        sub.sources.add("tool_use_result")
        last = sub.last
        same = last is not None and _input_side(last.usage) == _input_side(final)
        if last is not None and same and _streamed_now(sub, last):
            # The same request, streamed too (a CLI newer than 2.1.332?): count it once.
            last.usage = _kinds_max(last.usage, final)
            return
        sub.final = final if sub.final is None else sub.final + final

    def _system(self, frame: object) -> None:
        """A system frame: a `SystemMessage`, or the raw dict of one that could not be typed."""
        subtype = _get(frame, "subtype")
        if subtype == "init":
            self._init_model = _str(_get(frame, "model")) or self._init_model
        elif subtype == "compact_boundary":
            self._compacted = True
            self._notes.append(
                "the conversation was compacted: the compaction request is in the totals, "
                "in no agent's figures"
            )
        elif subtype in ("task_started", "task_progress", "task_notification"):
            sub = self._sub(_get(frame, "tool_use_id"))
            if sub is None:
                return
            sub.agent_type = sub.agent_type or _str(_get(frame, "subagent_type"))
            if subtype == "task_started":  # a progress frame's description is the step's
                sub.description = sub.description or _str(_get(frame, "description"))
                depth = _get(frame, "spawn_depth")
                if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 1:
                    sub.depth = depth
            if _get(frame, "is_backgrounded") is True:
                sub.background = True
            if subtype == "task_notification" and (sub.background or sub.parent is not None):
                # A nested subagent's last request is streamed (with forward_subagent_text)
                # and its Agent result carries no usage: as for a background one, the
                # notification's total gives that request's output.
                self._notified(sub, _get(frame, "usage"))

    def _notified(self, sub: _Sub, usage: object) -> None:
        """A background subagent's end: ``total_tokens`` is its last request's input, cache
        and output tokens; that request was streamed with its output understated."""
        total = _count(_get(usage, "total_tokens")) if isinstance(usage, Mapping) else 0
        last = sub.last
        # Only a request streamed in this turn: one streamed before the last result was
        # counted in that result's totals, whose unattributed share already holds its output.
        if last is None or not total or not _streamed_now(sub, last):
            return
        extra = total - sum(_input_side(last.usage)) - last.usage.output_tokens
        if extra > 0:
            last.usage = last.usage + TokenUsage(output_tokens=extra)
            sub.sources.add("task_notification")

    def _sub(self, agent_id: object) -> _Sub | None:
        if not isinstance(agent_id, str) or not agent_id:
            return None
        sub = self._subs.get(agent_id)
        if sub is None:
            sub = self._subs[agent_id] = _Sub(agent_id)
        sub.active = True
        return sub

    # -- the turn's report -------------------------------------------------------------

    def _totals(
        self, result: ResultMessage, notes: list[str]
    ) -> tuple[dict[str, tuple[TokenUsage, float]], str]:
        """The turn's tokens and cost per model, and where they were read."""
        # The figures the totals are read from; the result's field may not have fitted its
        # type (the decoder keeps such a value in ``extra``).
        since = _reported(result, "model_usage_since_last_result", "model_usage_since_last_result")
        cumulative_notes: list[str] = []
        cumulative = _per_model(
            _reported(result, "model_usage", "modelUsage"), cumulative_notes, name="modelUsage"
        )
        previous = self._cumulative
        if cumulative:
            self._cumulative = cumulative
        if isinstance(since, Mapping):
            totals = _per_model(since, notes)
            source = "model_usage_since_last_result"
        elif cumulative:
            if since is not None:
                notes.append(
                    f"the result's model_usage_since_last_result is {_show(since)}: the "
                    "totals are read from modelUsage"
                )
            notes.extend(cumulative_notes)
            source = "modelUsage"
            if previous is None:
                notes.append(
                    "no model_usage_since_last_result and no earlier result: the totals are "
                    "the process's cumulative modelUsage"
                )
                previous = {}
            totals = {}
            for model, (tokens, cost) in cumulative.items():
                before, before_cost = previous.get(model, (_ZERO, 0.0))
                delta = _minus(tokens, before)
                if any(getattr(delta, k) < 0 for k in FIELDS):
                    delta, before_cost = tokens, 0.0  # a new process: counting starts again
                totals[model] = (delta, max(0.0, cost - before_cost))
        else:
            _per_model(since, notes, name="model_usage_since_last_result")
            notes.extend(cumulative_notes)
            totals, source = {}, "model_usage_since_last_result"
        totals = {m: t for m, t in totals.items() if _nonzero(t[0]) or t[1]}
        if not totals and _nonzero(TokenUsage.of(result.usage)):
            notes.append("the result has no per-model usage: there are no totals to attribute")
        return totals, source

    def _main_share(
        self, result: ResultMessage, models: _Models, notes: list[str]
    ) -> tuple[dict[str, TokenUsage], str]:
        """The main agent's tokens per model, and where they were read."""
        tokens = TokenUsage.of(result.usage)
        streamed: dict[str | None, TokenUsage] = {}
        for entry in self._main.values():
            streamed[entry.model] = streamed.get(entry.model, _ZERO) + entry.usage
        source = "result.usage"
        if not _nonzero(tokens):
            if not streamed:
                if models.names and not self._compacted:
                    notes.append(
                        "the result's usage is empty and no message of the main agent came "
                        "(an interrupt before its first frame?): its requests are unattributed"
                    )
                return {}, source
            notes.append(
                "the result's usage is empty (an interrupted or failed turn?): the main "
                "agent's figures are its streamed messages', output understated"
            )
            source = "stream"
        elif len(streamed) > 1:
            notes.append(
                "the main agent used several models: its figures are its streamed messages', "
                "output understated"
            )
            source = "stream"
        if source == "stream":
            out: dict[str, TokenUsage] = {}
            for name, usage in streamed.items():
                model = models.resolve(name)
                if model is None:
                    notes.append(f"the main agent's model {name!r} is not in the totals")
                    continue
                out[model] = out.get(model, _ZERO) + usage
            return out, source
        name = next(iter(streamed), None) or self._main_model or self._init_model
        model = models.resolve(name) or models.only()
        if model is None:
            notes.append(f"the main agent's model ({name}) is not in the totals: unattributed")
            return {}, source
        return {model: tokens}, source

    def _result(self, result: ResultMessage) -> UsageReport:
        notes = self._notes
        totals, total_source = self._totals(result, notes)
        models = _Models(totals, result)
        main_share, main_source = self._main_share(result, models, notes)
        subs = [s for s in self._subs.values() if s.active]
        claims: dict[str, dict[str, TokenUsage]] = {}  # model -> agent id -> tokens
        for sub in subs:
            for entry in sub.evidence():
                model = models.resolve(entry.model) or models.only()
                if model is None:
                    if _nonzero(entry.usage):
                        notes.append(
                            f"subagent {sub.agent_id}: its model ({entry.model}) is not in "
                            "the totals: unattributed"
                        )
                    continue
                mine = claims.setdefault(model, {})
                mine[sub.agent_id] = mine.get(sub.agent_id, _ZERO) + entry.usage
        shares: dict[str, dict[str | None, TokenUsage]] = {}  # model -> party -> tokens
        for model, (total, _cost) in totals.items():
            parties: dict[str | None, TokenUsage] = {}
            main = _fit(main_share.get(model, _ZERO), total, model, "the main agent's", notes)
            parties["main"] = main
            left = _minus(total, main)
            mine = claims.get(model, {})
            claimed = _fit(_sum(mine.values()), left, model, "the subagents'", notes)
            if claimed != _sum(mine.values()):
                if not _nonzero(claimed):
                    mine = {}
                else:  # only the one-hour part did not fit
                    mine = {
                        a: attrs.evolve(u, cache_creation_1h_input_tokens=0)
                        for a, u in mine.items()
                    }
            parties.update(mine)
            parties[None] = _minus(left, _sum(mine.values()))
            shares[model] = parties
        costs = _split_costs(totals, shares)

        def share(party: str | None, sources: Iterable[str], **fields: Any) -> AgentUsage:
            models_of = {m: p[party] for m, p in shares.items() if _nonzero(p.get(party, _ZERO))}
            cost_of, basis = costs.get(party, ({}, "none"))
            return AgentUsage(
                models=models_of,
                costs=cost_of,
                cost_usd=sum(cost_of.values()),
                cost_basis=basis,
                sources=tuple(sorted(sources)) if models_of else (),
                **fields,
            )

        for sub in subs:
            if sub.parent is not None and not sub.evidence() and not sub.background:
                notes.append(
                    f"subagent {sub.agent_id} ({sub.description or sub.agent_type or 'a subagent'}"
                    f", started by subagent {sub.parent}, depth {sub.depth}): the CLI streams "
                    "a nested subagent's requests only with Options(forward_subagent_text=True)"
                    " and its Agent result carries no usage, so its tokens are in unattributed"
                )
        report = UsageReport(
            main=share("main", [main_source], agent_type="main", depth=0),
            subagents=tuple(
                share(
                    s.agent_id,
                    s.sources,
                    agent_id=s.agent_id,
                    agent_type=s.agent_type,
                    description=s.description,
                    parent_id=s.parent,
                    depth=s.depth,
                )
                for s in subs
            ),
            unattributed=share(None, (), agent_type="unattributed"),
            total=AgentUsage(
                agent_type="total",
                models={m: t for m, (t, _c) in totals.items()},
                costs={m: c for m, (_t, c) in totals.items()},
                cost_usd=sum(c for _t, c in totals.values()),
                cost_basis="exact" if totals else "none",
                sources=(total_source,) if totals else (),
            ),
            notes=tuple(dict.fromkeys(notes)),
        )
        self._end_turn()
        return report

    def _end_turn(self) -> None:
        # A background subagent may go on into later turns: what it is stays known, its
        # evidence counts per turn.
        for sub in self._subs.values():
            sub.streamed.clear()
            sub.sources.clear()
            sub.final = None
            sub.active = False
        self._main.clear()
        self._notes = []
        self._compacted = False


class _Models:
    """The totals' model names, and how another spelling of a model maps to one of them."""

    def __init__(self, totals: Mapping[str, object], result: ResultMessage) -> None:
        self.names = list(totals)
        self.canonical: dict[str, str] = {}
        per_model: object = result.model_usage_since_last_result or result.model_usage
        if isinstance(per_model, Mapping):
            for name, usage in per_model.items():
                canonical = _str(getattr(usage, "canonical_model", None))
                if canonical is not None and name in totals:
                    self.canonical.setdefault(canonical, name)

    def resolve(self, name: str | None) -> str | None:
        """``name`` itself, its canonical name's entry, or the one entry it prefixes (or is
        prefixed by: ``claude-x`` and ``claude-x-20250101``); else None."""
        if name is None:
            return None
        if name in self.names:
            return name
        if name in self.canonical:
            return self.canonical[name]
        near = [n for n in self.names if n.startswith(name) or name.startswith(n)]
        return near[0] if len(near) == 1 else None

    def only(self) -> str | None:
        """The one model of the totals, if there is only one."""
        return self.names[0] if len(self.names) == 1 else None


def _fit(
    part: TokenUsage, whole: TokenUsage, model: str, whose: str, notes: list[str]
) -> TokenUsage:
    """``part`` if it fits in ``whole`` kind by kind; else nothing (it is unattributed), or
    ``part`` without its one-hour cache writes when only those do not fit."""
    over = [k for k in KINDS if getattr(part, k) > getattr(whole, k)]
    if over:
        figures = ", ".join(f"{k} {getattr(part, k)} > {getattr(whole, k)}" for k in over)
        notes.append(
            f"{model}: {whose} figures exceed what the totals leave ({figures}): "
            "double counting? Their share of this model is unattributed"
        )
        return _ZERO
    if part.cache_creation_1h_input_tokens > whole.cache_creation_1h_input_tokens:
        notes.append(
            f"{model}: {whose} one-hour cache writes exceed the totals': not split by lifetime"
        )
        return attrs.evolve(part, cache_creation_1h_input_tokens=0)
    return part


#: The figures of a ``modelUsage`` entry: (field of `TokenUsage`, names on an entry).
_ENTRY_FIGURES = (
    ("input_tokens", ("input_tokens", "inputTokens")),
    ("output_tokens", ("output_tokens", "outputTokens")),
    ("cache_read_input_tokens", ("cache_read_input_tokens", "cacheReadInputTokens")),
    ("cache_creation_input_tokens", ("cache_creation_input_tokens", "cacheCreationInputTokens")),
    (
        "cache_creation_1h_input_tokens",
        ("cache_creation_ephemeral1h_input_tokens", "cacheCreationEphemeral1hInputTokens"),
    ),
)


def _entry(model: str, usage: object, notes: list[str] | None) -> tuple[TokenUsage, float]:
    """One ``modelUsage``-shaped entry as tokens and cost; a figure not believed (see the
    module docstring) reads as 0, and ``notes`` (if given) says so."""
    if usage is not None and not isinstance(usage, Mapping) and not attrs.has(type(usage)):
        if notes is not None:
            notes.append(f"{model}: its figures are {_show(usage)}, not an entry: left out")
        return _ZERO, 0.0
    counts: dict[str, int] = {}
    for field, names in _ENTRY_FIGURES:
        value = _get(usage, *names)
        reading = _read_figure(value, whole=True)
        if reading.problem is not None:
            if notes is not None:
                notes.append(f"{model}: {field} {_show(value)} is {reading.problem}: left out")
            counts[field] = 0
        else:
            counts[field] = int(reading.value)
    value = _get(usage, "cost_usd", "costUSD")
    reading = _read_figure(value, whole=False)
    if reading.problem is not None and notes is not None:
        notes.append(f"{model}: cost_usd {_show(value)} is {reading.problem}: left out")
    cost = 0.0 if reading.problem is not None else float(reading.value)
    return TokenUsage(**counts), cost


def _per_model(
    figures: object, notes: list[str] | None = None, *, name: str = ""
) -> dict[str, tuple[TokenUsage, float]]:
    """``modelUsage``-shaped figures as tokens and cost per model; ``notes`` (if given)
    names every figure not believed, and says so when ``figures`` (the result's ``name``)
    is not a mapping at all."""
    if not isinstance(figures, Mapping):
        if figures is not None and notes is not None:
            notes.append(f"the result's {name} is {_show(figures)}: no totals read from it")
        return {}
    return {str(model): _entry(str(model), usage, notes) for model, usage in figures.items()}


def _split_costs(
    totals: Mapping[str, tuple[TokenUsage, float]],
    shares: Mapping[str, Mapping[str | None, TokenUsage]],
) -> dict[str | None, tuple[dict[str, float], CostBasis]]:
    """Each party's cost per model: by price-weighted tokens, exact when alone on it."""
    out: dict[str | None, tuple[dict[str, float], CostBasis]] = {}

    def credit(party: str | None, model: str, cost: float, alone: bool) -> None:
        costs, basis = out.get(party, ({}, "exact"))
        costs[model] = cost
        out[party] = (costs, basis if alone else "proportional")

    for model, (_tokens, cost) in totals.items():
        parties = {p: u for p, u in shares.get(model, {}).items() if _nonzero(u)}
        weight = sum(u.weighted for u in parties.values())
        if not parties or weight <= 0:
            if cost:  # a cost without tokens: nobody's to claim
                credit(None, model, cost, alone=True)
            continue
        for party, usage in parties.items():
            # The fraction first: each share is at most the model's cost, so finite.
            credit(party, model, cost * (usage.weighted / weight), alone=len(parties) == 1)
    return out


def _reported(result: ResultMessage, field: str, wire_name: str) -> object:
    """A field of ``result`` as the CLI sent it: the decoder keeps a value that did not fit
    the field's type in ``extra`` (under its wire name) and leaves the field None."""
    value = getattr(result, field, None)
    if value is None:
        extra = getattr(result, "extra", None)
        if isinstance(extra, Mapping):
            return extra.get(wire_name)
    return value


def _fallback(result: ResultMessage, note: str) -> UsageReport:
    """A report with everything unattributed (when attribution itself failed)."""
    try:
        totals = _per_model(result.model_usage_since_last_result) or _per_model(result.model_usage)
    except Exception:  # even the totals are unreadable
        totals = {}
    models = {m: t for m, (t, _c) in totals.items() if _nonzero(t)}
    costs = {m: c for m, (_t, c) in totals.items() if c}
    everything = AgentUsage(
        models=models, costs=costs, cost_usd=sum(costs.values()), cost_basis="exact"
    )
    return UsageReport(
        main=AgentUsage(agent_type="main"),
        subagents=(),
        unattributed=attrs.evolve(everything, agent_type="unattributed"),
        total=attrs.evolve(everything, agent_type="total"),
        notes=(note,),
    )


def usage_by_agent(messages: Iterable[Message]) -> UsageReport:
    """The usage report of one turn.

    Args:
        messages: the turn's messages in order, its `ResultMessage` last (with several
            turns, the report is the last turn's; a later turn of a CLI that reports only
            cumulative figures needs a `UsageTracker` fed from the start).

    Returns:
        The report; without a `ResultMessage` there are no totals: an empty report whose
        ``notes`` say so.
    """
    tracker = UsageTracker()
    for message in messages:
        tracker.add(message)
    report = tracker.report()
    if report is None:
        empty = AgentUsage()
        return UsageReport(
            main=attrs.evolve(empty, agent_type="main"),
            subagents=(),
            unattributed=attrs.evolve(empty, agent_type="unattributed"),
            total=attrs.evolve(empty, agent_type="total"),
            notes=("no ResultMessage among the messages: there are no totals to attribute",),
        )
    return report
