"""Usage and cost by agent (``claude_sdk.usage``), over the real CLIs' recorded traffic and
hostile inputs: the shares always add up to the CLI's totals, per model and kind of token,
and their costs to its cost; the main agent is the result's usage; a subagent is credited
with what its own messages prove; duplicated frames count once."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import wire
from claude_sdk.testing import FakeCLI
from claude_sdk.usage import KINDS, TokenUsage, UsageReport, UsageTracker, usage_by_agent

from .transcripts import DATA

RECORDED = sorted(
    [*DATA.glob("e2e/*/*.jsonl"), *DATA.glob("transcripts/*.jsonl"), *DATA.glob("cassettes/*")]
)
JSON = dict[str, Any]


def frames(path: Path) -> Iterator[JSON]:
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("dir") == "cli>sdk" and isinstance(record.get("msg"), dict):
            yield record["msg"]


def messages(raw: list[JSON]) -> list[Any]:
    out = []
    for frame in raw:
        try:
            out.append(wire.decode(json.dumps(frame)))
        except cs.MessageDecodeError:  # noqa: PERF203 - such a frame is left out, the rest kept
            continue
    return out


def reports(msgs: list[Any]) -> list[UsageReport]:
    tracker = UsageTracker()
    for message in msgs:
        tracker.add(message)
    return tracker.reports


def assert_adds_up(report: UsageReport) -> None:
    for model, total in report.total.models.items():
        parts = [a.models.get(model, TokenUsage()) for a in report.agents]
        for kind in KINDS:
            values = [getattr(p, kind) for p in parts]
            assert all(v >= 0 for v in values), (model, kind, values)
            assert sum(values) == getattr(total, kind), (model, kind)
    for agent in report.agents:
        assert set(agent.models) <= set(report.total.models)
        assert agent.cost_usd >= 0
    assert sum(a.cost_usd for a in report.agents) == pytest.approx(report.total.cost_usd)


def test_there_is_traffic_with_subagents_of_every_version() -> None:
    with_subagents = {
        p.parent.name for p in RECORDED if "subagent" in p.name and p.parent.parent.name == "e2e"
    }
    assert len(with_subagents) >= 2


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_recorded_turn_adds_up(path: Path) -> None:
    msgs = messages(list(frames(path)))
    results = [m for m in msgs if isinstance(m, cs.ResultMessage)]
    found = reports(msgs)
    assert len(found) == len(results)
    for report, result in zip(found, results, strict=True):
        assert_adds_up(report)
        since = result.model_usage_since_last_result
        if since:
            assert report.total.cost_usd == pytest.approx(
                sum(u.cost_usd or 0.0 for u in since.values())
            )
        if len(report.total.models) == 1 and result.usage is not None:
            assert report.main.tokens == TokenUsage.of(result.usage)


@pytest.mark.parametrize("version", sorted(p.name for p in (DATA / "e2e").iterdir()))
def test_the_subagent_scenario_is_attributed(version: str) -> None:
    raw = list(frames(DATA / "e2e" / version / "test_a_subagent_scenario.jsonl"))
    msgs = messages(raw)
    report = usage_by_agent(msgs)
    result = next(m for m in reversed(msgs) if isinstance(m, cs.ResultMessage))
    assert report.main.tokens == TokenUsage.of(result.usage)
    [sub] = report.subagents
    assert sub.agent_type == "general-purpose"
    assert sub.description == "List files"
    assert sub.agent_id is not None
    # Every input token of the subagent's requests: streamed ones and the final one (from
    # the Agent tool's result), each once.
    streamed = {
        m.message.id: TokenUsage.of(m.message.usage).input_tokens
        for m in msgs
        if isinstance(m, cs.AssistantMessage) and m.parent_tool_use_id == sub.agent_id
    }
    final = next(
        m.tool_use_result["usage"]["input_tokens"]
        for m in msgs
        if isinstance(m, cs.UserMessage)
        and isinstance(m.tool_use_result, dict)
        and "usage" in m.tool_use_result
    )
    assert sub.tokens.input_tokens == sum(streamed.values()) + final
    assert report.unattributed.tokens.input_tokens == 0
    assert report.unattributed.tokens.output_tokens > 0  # understated in the stream: shown
    assert report.notes == ()
    assert_adds_up(report)
    by_type = report.by_agent_type()
    assert set(by_type) == {"main", "general-purpose", "unattributed"}
    assert sum(report.cost_by_agent_type().values()) == pytest.approx(result.total_cost_usd)


def test_a_response_in_several_frames_counts_once() -> None:
    raw = list(frames(DATA / "e2e" / "2.1.330" / "test_a_subagent_scenario.jsonl"))
    doubled = []
    for frame in raw:
        doubled.append(frame)
        if frame.get("type") == "assistant":
            doubled.append(copy.deepcopy(frame))  # the same message id again
    assert usage_by_agent(messages(doubled)) == usage_by_agent(messages(raw))


def test_cumulative_totals_are_turned_into_turns() -> None:
    # Without model_usage_since_last_result, each turn is the difference of modelUsage.
    path = DATA / "e2e" / "2.1.330" / "test_two_turns_in_one_session.jsonl"
    raw = list(frames(path))
    stripped = [{k: v for k, v in f.items() if k != "model_usage_since_last_result"} for f in raw]
    with_since = reports(messages(raw))
    without = reports(messages(stripped))
    assert len(with_since) == len(without) == 2
    for a, b in zip(with_since, without, strict=True):
        assert a.total.models == b.total.models
        assert a.total.cost_usd == pytest.approx(b.total.cost_usd)


def test_evidence_beyond_the_totals_is_not_split_and_says_why() -> None:
    raw = list(frames(DATA / "e2e" / "2.1.330" / "test_a_subagent_scenario.jsonl"))
    inflated = copy.deepcopy(raw)
    for frame in inflated:
        if frame.get("type") == "assistant" and frame.get("parent_tool_use_id"):
            frame["message"]["usage"]["input_tokens"] = 10**7
    report = usage_by_agent(messages(inflated))
    [sub] = report.subagents
    assert sub.tokens.input_tokens == 0
    assert any("input_tokens" in note and "not split" in note for note in report.notes)
    assert_adds_up(report)


def test_a_turn_without_a_result_is_an_error() -> None:
    with pytest.raises(ValueError, match="ResultMessage"):
        usage_by_agent([])


_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=True), st.text(max_size=4)
)


@st.composite
def hostile_turn(draw: st.DrawFn) -> list[JSON]:
    """A turn of frames with random usage figures, ids, parents and models."""
    out: list[JSON] = []
    for _ in range(draw(st.integers(0, 6))):
        out.append(
            {
                "type": "assistant",
                "parent_tool_use_id": draw(st.sampled_from([None, "t1", "t2", 5])),
                "message": {
                    "id": draw(st.sampled_from(["m1", "m2", None, 3])),
                    "role": "assistant",
                    "model": draw(st.sampled_from(["a", "b", None, 1])),
                    "content": [{"type": "tool_use", "id": "t1", "name": "Agent", "input": {}}],
                    "usage": {k: draw(_VALUES) for k in KINDS},
                },
            }
        )
    models = draw(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3, unique=True))
    out.append(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "usage": {k: draw(_VALUES) for k in KINDS},
            "modelUsage": {
                m: {
                    "inputTokens": draw(_VALUES),
                    "outputTokens": draw(_VALUES),
                    "costUSD": draw(_VALUES),
                }
                for m in models
            },
        }
    )
    return out


@settings(max_examples=200)
@given(turns=st.lists(hostile_turn(), min_size=1, max_size=3))
def test_hostile_figures_never_raise_and_always_add_up(turns: list[list[JSON]]) -> None:
    tracker = UsageTracker()
    results = 0
    for turn in turns:
        for message in messages(turn):  # a result whose figures do not decode is skipped
            results += isinstance(message, cs.ResultMessage)
            tracker.add(message)
    assert len(tracker.reports) == results
    for report in tracker.reports:
        assert_adds_up(report)


async def test_reply_usage_by_agent() -> None:
    reply = await cs.ask("hi", transport=FakeCLI(replies=["hello"]))
    report = reply.usage_by_agent
    assert report.main.tokens == TokenUsage.of(reply.result.usage)
    assert report.subagents == ()
    assert report.main.cost_basis == "exact"
    assert report.main.cost_usd == pytest.approx(reply.result.total_cost_usd)
