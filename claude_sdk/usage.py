"""Usage and cost by agent: the main agent, each subagent, and what cannot be split.

`usage_by_agent(messages)` reads the messages of one turn (up to and including its
`ResultMessage`) and gives a `UsageReport`: the tokens and cost of the main agent, of each
subagent (by the ``parent_tool_use_id`` of its messages, with its agent type), and an
explicit ``unattributed`` share, such that **main + subagents + unattributed == the CLI's
totals**, per model and per kind of token, and their costs add up to the CLI's cost.
`UsageTracker` does the same for a stream of many turns; ``Reply.usage_by_agent`` for
``ask``.

What the CLI reports, and so what can be attributed (CLI 2.1.330-2.1.332, read off the
recorded traffic):

* the turn's totals per model, subagents included: ``model_usage_since_last_result`` (else
  the difference of the cumulative ``modelUsage``), with each model's ``costUSD``;
* the main agent's tokens for the turn: the result's ``usage``;
* a subagent's requests: its streamed ``assistant`` messages carry their ``usage`` (input and
  cache tokens exact; output tokens as of the stream's start, so understated), and its
  final request's ``usage`` comes, exact, in the Agent tool's result (``tool_use_result``);
  its model is ``resolvedModel`` there, or its messages' model.

So the subagents of one model share exactly what the totals leave after the main agent; each
subagent is credited with what its own messages prove, and whatever the evidence cannot place
(the understated output tokens, a subagent whose messages were not streamed) is
``unattributed``, never a silent zero. When the evidence of one kind adds up to more than the
subagents' share (a CLI that streams the final message too), that kind is not split: the
share goes to ``unattributed`` and ``notes`` says why.

Cost: the CLI gives a cost per model only. Each model's cost is split in proportion to the
price-weighted tokens (input 1, output 5, cache read 0.1, cache write 1.25: the same ratios
for every model); a party alone on its model gets that model's cost exactly
(``cost_basis``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs

from .messages import AssistantMessage, Message, ResultMessage, ToolUseBlock, UserMessage

__all__ = ["AgentUsage", "TokenUsage", "UsageReport", "UsageTracker", "usage_by_agent"]

#: The four kinds of token, as the API names them.
KINDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
#: Relative prices of the kinds (the same for every Claude model).
WEIGHTS = {
    "input_tokens": 1.0,
    "output_tokens": 5.0,
    "cache_read_input_tokens": 0.1,
    "cache_creation_input_tokens": 1.25,
}
_AGENT_TOOLS = frozenset({"Agent", "Task"})


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return 0
    return value


@attrs.frozen
class TokenUsage:
    """Tokens of the four kinds."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    @classmethod
    def of(cls, usage: Any) -> TokenUsage:
        """From a ``usage`` object or dict, or a `ModelUsage` (anything else: zeros)."""
        if isinstance(usage, Mapping):
            get = usage.get
            return cls(
                input_tokens=_count(get("input_tokens", get("inputTokens"))),
                output_tokens=_count(get("output_tokens", get("outputTokens"))),
                cache_read_input_tokens=_count(
                    get("cache_read_input_tokens", get("cacheReadInputTokens"))
                ),
                cache_creation_input_tokens=_count(
                    get("cache_creation_input_tokens", get("cacheCreationInputTokens"))
                ),
            )
        return cls(**{k: _count(getattr(usage, k, 0)) for k in KINDS})

    @property
    def total(self) -> int:
        """All four kinds together."""
        return sum(getattr(self, k) for k in KINDS)

    @property
    def weighted(self) -> float:
        """Price-weighted tokens (input 1, output 5, cache read 0.1, cache write 1.25)."""
        return float(sum(getattr(self, k) * WEIGHTS[k] for k in KINDS))

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(**{k: getattr(self, k) + getattr(other, k) for k in KINDS})

    def __sub__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(**{k: getattr(self, k) - getattr(other, k) for k in KINDS})

    def kinds_max(self, other: TokenUsage) -> TokenUsage:
        """Per kind, the larger of the two."""
        return TokenUsage(**{k: max(getattr(self, k), getattr(other, k)) for k in KINDS})


_ZERO = TokenUsage()


@attrs.frozen(kw_only=True)
class AgentUsage:
    """One party's share of a turn's usage.

    Attributes:
        agent_id: the subagent's ``parent_tool_use_id``; None for the main agent, the
            unattributed share and the totals.
        agent_type: ``"main"``, the subagent's type (``"general-purpose"``, a custom
            agent's name, None when unknown), ``"unattributed"`` or ``"total"``.
        description: the subagent's task description, when known.
        models: tokens per model.
        cost_usd: its share of the CLI's cost.
        cost_basis: ``"exact"`` (alone on each of its models, or the CLI's own figure),
            ``"proportional"`` (a model's cost split by price-weighted tokens), or
            ``"none"`` (no tokens).
    """

    agent_id: str | None = None
    agent_type: str | None = None
    description: str | None = None
    models: Mapping[str, TokenUsage] = attrs.field(factory=dict)
    cost_usd: float = 0.0
    cost_basis: Literal["exact", "proportional", "none"] = "none"

    @property
    def tokens(self) -> TokenUsage:
        """Its tokens over every model."""
        out = _ZERO
        for usage in self.models.values():
            out = out + usage
        return out


@attrs.frozen(kw_only=True)
class UsageReport:
    """A turn's usage and cost by agent (see the module docstring).

    Attributes:
        main: the main agent.
        subagents: each subagent that ran in the turn, in the order they started.
        unattributed: what the CLI's totals hold that no agent's evidence accounts for.
        total: the CLI's totals for the turn (``cost_usd`` is its cost).
        notes: why a share is unattributed, when it is not only the understated output.
    """

    main: AgentUsage
    subagents: tuple[AgentUsage, ...]
    unattributed: AgentUsage
    total: AgentUsage
    notes: tuple[str, ...] = ()

    @property
    def agents(self) -> tuple[AgentUsage, ...]:
        """The main agent, then every subagent, then the unattributed share."""
        return (self.main, *self.subagents, self.unattributed)

    def by_agent_type(self) -> dict[str, TokenUsage]:
        """Tokens per agent type (``"main"``, each subagent type, ``"unattributed"``)."""
        out: dict[str, TokenUsage] = {}
        for agent in self.agents:
            key = agent.agent_type or "unknown"
            out[key] = out.get(key, _ZERO) + agent.tokens
        return out

    def cost_by_agent_type(self) -> dict[str, float]:
        """Cost per agent type, as `by_agent_type`."""
        out: dict[str, float] = {}
        for agent in self.agents:
            key = agent.agent_type or "unknown"
            out[key] = out.get(key, 0.0) + agent.cost_usd
        return out


@attrs.define
class _Sub:
    agent_id: str
    agent_type: str | None = None
    description: str | None = None
    model: str | None = None
    streamed: dict[str, TokenUsage] = attrs.field(factory=dict)  # message id -> usage
    stream_models: dict[str, str] = attrs.field(factory=dict)  # message id -> model
    final: TokenUsage | None = None
    #: Started, or sent evidence, in the current turn (reported in its report).
    active: bool = True

    def evidence(self) -> TokenUsage:
        out = self.final or _ZERO
        for usage in self.streamed.values():
            out = out + usage
        return out

    def model_of(self) -> str | None:
        if self.model is not None:
            return self.model
        models = list(self.stream_models.values())
        return max(set(models), key=models.count) if models else None


class UsageTracker:
    """Usage by agent over a stream of messages, turn after turn.

    Feed every message (`add`); `add` returns the `UsageReport` of a turn when given its
    `ResultMessage`, None otherwise. The cumulative ``modelUsage`` of a CLI process is turned
    into per-turn figures when a result lacks ``model_usage_since_last_result``.
    """

    def __init__(self) -> None:
        self._subs: dict[str, _Sub] = {}
        self._main_models: list[str] = []
        self._cumulative: dict[str, tuple[TokenUsage, float]] = {}
        self.reports: list[UsageReport] = []

    def add(self, message: Message) -> UsageReport | None:
        """Take one message; the turn's report when ``message`` is its result."""
        try:
            if isinstance(message, AssistantMessage):
                self._assistant(message)
            elif isinstance(message, UserMessage):
                self._user(message)
            elif isinstance(message, ResultMessage):
                report = self._result(message)
                self.reports.append(report)
                return report
            else:
                self._system(message)
        except Exception:  # a hostile frame must never break the accounting of the rest
            return None
        return None

    # -- evidence ---------------------------------------------------------------------------

    def _assistant(self, message: AssistantMessage) -> None:
        # The decoder does not check value types: a hostile frame may hold anything.
        api = message.message
        parent: object = message.parent_tool_use_id
        named: object = api.model
        model = named if isinstance(named, str) else None
        content: object = api.content
        if not isinstance(parent, str) or not parent:
            if model is not None:
                self._main_models.append(model)
            for block in content if isinstance(content, list) else ():
                if isinstance(block, ToolUseBlock) and block.name in _AGENT_TOOLS:
                    sub = self._sub(block.id)
                    given: object = block.input
                    data = given if isinstance(given, dict) else {}
                    kind = data.get("subagent_type")
                    sub.agent_type = kind if isinstance(kind, str) else sub.agent_type
                    text = data.get("description")
                    sub.description = text if isinstance(text, str) else sub.description
            return
        sub = self._sub(parent)
        ident: object = api.id
        key = ident if isinstance(ident, str) else f"#{len(sub.streamed)}"
        usage = TokenUsage.of(api.usage)
        # One response may come as several frames (one per block): the same usage again.
        sub.streamed[key] = sub.streamed.get(key, _ZERO).kinds_max(usage)
        if model is not None:
            sub.stream_models[key] = model
        declared: object = message.subagent_type
        if sub.agent_type is None and isinstance(declared, str):
            sub.agent_type = declared

    def _user(self, message: UserMessage) -> None:
        result = message.tool_use_result
        if not isinstance(result, Mapping) or "usage" not in result:
            return
        content = message.message.content
        ids = [
            getattr(b, "tool_use_id", None)
            for b in (content if isinstance(content, list) else ())
            if getattr(b, "type", None) == "tool_result"
        ]
        known = [i for i in ids if isinstance(i, str) and i in self._subs]
        if not known:
            return
        sub = self._subs[known[0]]
        sub.final = TokenUsage.of(result.get("usage"))
        model = result.get("resolvedModel")
        if isinstance(model, str):
            sub.model = model
        kind = result.get("agentType")
        if isinstance(kind, str):
            sub.agent_type = kind

    def _system(self, message: Any) -> None:
        tool_use_id = getattr(message, "tool_use_id", None)
        if getattr(message, "subtype", None) == "task_started" and isinstance(tool_use_id, str):
            sub = self._sub(tool_use_id)
            kind = getattr(message, "subagent_type", None)
            if sub.agent_type is None and isinstance(kind, str):
                sub.agent_type = kind
            text = getattr(message, "description", None)
            if sub.description is None and isinstance(text, str):
                sub.description = text

    def _sub(self, agent_id: str) -> _Sub:
        sub = self._subs.get(agent_id)
        if sub is None:
            sub = self._subs[agent_id] = _Sub(agent_id)
        sub.active = True
        return sub

    # -- the turn's report -----------------------------------------------------------------

    def _totals(self, result: ResultMessage) -> dict[str, tuple[TokenUsage, float]]:
        cumulative: dict[str, tuple[TokenUsage, float]] = {}
        if isinstance(result.model_usage, Mapping):
            for model, usage in result.model_usage.items():
                cost = getattr(usage, "cost_usd", None)
                cumulative[str(model)] = (TokenUsage.of(usage), _cost(cost))
        since = result.model_usage_since_last_result
        if isinstance(since, Mapping) and since:
            totals = {
                str(m): (TokenUsage.of(u), _cost(getattr(u, "cost_usd", None)))
                for m, u in since.items()
            }
        else:
            totals = {}
            for model, (tokens, cost) in cumulative.items():
                before, before_cost = self._cumulative.get(model, (_ZERO, 0.0))
                delta = tokens - before
                if any(getattr(delta, k) < 0 for k in KINDS):
                    delta, before_cost = tokens, 0.0  # a new process: counting starts again
                totals[model] = (delta, max(0.0, cost - before_cost))
        if cumulative:
            self._cumulative = cumulative
        return {m: t for m, t in totals.items() if t[0].total or t[1]}

    def _result(self, result: ResultMessage) -> UsageReport:
        totals = self._totals(result)
        notes: list[str] = []
        main_tokens = TokenUsage.of(result.usage)
        main_model = (
            max(set(self._main_models), key=self._main_models.count)
            if self._main_models
            else (next(iter(totals)) if len(totals) == 1 else None)
        )
        subs = [s for s in self._subs.values() if s.active]
        shares: dict[str, dict[str | None, TokenUsage]] = {}  # model -> party -> tokens
        if main_model is None and main_tokens.total:
            notes.append("the main agent's model is not known: its tokens are unattributed")
        for model, (total, _cost_usd) in totals.items():
            parties: dict[str | None, TokenUsage] = {}
            main = main_tokens if model == main_model else _ZERO
            over = [k for k in KINDS if getattr(main, k) > getattr(total, k)]
            if over:
                notes.append(f"{model}: the main agent's {', '.join(over)} exceed the total")
                main = TokenUsage(**{k: min(getattr(main, k), getattr(total, k)) for k in KINDS})
            parties["main"] = main
            group = total - main
            mine = [s for s in subs if s.model_of() == model]
            evidence = {s.agent_id: s.evidence() for s in mine}
            split: dict[str, dict[str, int]] = {s.agent_id: {} for s in mine}
            for kind in KINDS:
                claimed = sum(getattr(e, kind) for e in evidence.values())
                if claimed <= getattr(group, kind):
                    for agent_id, e in evidence.items():
                        split[agent_id][kind] = getattr(e, kind)
                else:
                    notes.append(
                        f"{model}: the subagents' {kind} ({claimed}) exceed what the totals "
                        f"leave them ({getattr(group, kind)}): not split"
                    )
                    for agent_id in evidence:
                        split[agent_id][kind] = 0
            for agent_id, counts in split.items():
                parties[agent_id] = TokenUsage(**counts)
            assigned = _ZERO
            for usage in parties.values():
                assigned = assigned + usage
            parties[None] = total - assigned  # unattributed
            shares[model] = parties
        costs = _split_costs(totals, shares)

        def agent(party: str | None, **fields: Any) -> AgentUsage:
            models = {m: p[party] for m, p in shares.items() if p.get(party, _ZERO).total}
            cost, basis = costs.get(party, (0.0, "none"))
            return AgentUsage(models=models, cost_usd=cost, cost_basis=basis, **fields)

        report = UsageReport(
            main=agent("main", agent_type="main"),
            subagents=tuple(
                agent(
                    s.agent_id,
                    agent_id=s.agent_id,
                    agent_type=s.agent_type,
                    description=s.description,
                )
                for s in subs
            ),
            unattributed=agent(None, agent_type="unattributed"),
            total=AgentUsage(
                agent_type="total",
                models={m: t for m, (t, _c) in totals.items()},
                cost_usd=sum(c for _t, c in totals.values()),
                cost_basis="exact",
            ),
            notes=tuple(notes),
        )
        # A background subagent may go on into later turns: its type and model are kept, its
        # evidence is per turn.
        for sub in self._subs.values():
            sub.streamed.clear()
            sub.stream_models.clear()
            sub.final = None
            sub.active = False
        self._main_models = []
        return report


def _cost(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        return 0.0
    return float(value) if value != float("inf") else 0.0


def _split_costs(
    totals: Mapping[str, tuple[TokenUsage, float]],
    shares: Mapping[str, Mapping[str | None, TokenUsage]],
) -> dict[str | None, tuple[float, Literal["exact", "proportional", "none"]]]:
    """Each party's cost: per model, by price-weighted tokens (exact when alone on it)."""
    out: dict[str | None, list[Any]] = {}
    for model, (_tokens, cost) in totals.items():
        parties = {p: u for p, u in shares.get(model, {}).items() if u.total}
        if not parties:
            if cost:  # a cost without tokens: nobody's to claim
                entry = out.setdefault(None, [0.0, "exact"])
                entry[0] += cost
            continue
        weight = sum(u.weighted for u in parties.values())
        for party, usage in parties.items():
            entry = out.setdefault(party, [0.0, "exact"])
            if len(parties) == 1 or weight == 0:
                entry[0] += cost / len(parties)
            else:
                entry[0] += cost * usage.weighted / weight
                entry[1] = "proportional"
    return {p: (c, b) for p, (c, b) in out.items()}


def usage_by_agent(messages: Iterable[Message]) -> UsageReport:
    """The usage report of one turn's messages (the last of them its `ResultMessage`).

    Raises:
        ValueError: no `ResultMessage` among ``messages``.
    """
    tracker = UsageTracker()
    report: UsageReport | None = None
    for message in messages:
        report = tracker.add(message) or report
    if report is None:
        raise ValueError("usage_by_agent needs the messages of a turn, its ResultMessage last")
    return report
