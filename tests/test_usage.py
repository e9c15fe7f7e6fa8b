"""Usage and cost by agent (``claude_sdk.usage``) over the real CLIs' recorded traffic,
synthetic turns and hostile inputs.

The invariant checked everywhere: main + subagents + unattributed == the CLI's totals, per
model and per field of `TokenUsage`, no share negative, and the costs add up to the CLI's
cost. Beyond it: the main agent is the result's usage; a foreground subagent is its streamed
requests plus its last request from the Agent tool's result; a background subagent's last
output comes from its task notification; frames repeating one API message count once;
evidence beyond the totals is unattributed with a note, never clamped.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import messages as messages_module
from claude_sdk import wire
from claude_sdk.messages import ModelUsage, Usage
from claude_sdk.testing import FakeCLI
from claude_sdk.usage import (
    FIELDS,
    KINDS,
    MAX_FIGURE,
    TokenUsage,
    UsageReport,
    UsageTracker,
    usage_by_agent,
)

from .strategies import instances, json_values
from .support.deep import deep
from .transcripts import DATA

RECORDED = sorted(
    [*DATA.glob("e2e/*/*.jsonl"), *DATA.glob("transcripts/*.jsonl"), *DATA.glob("cassettes/*")]
)
VERSIONS = sorted(p.name for p in (DATA / "e2e").iterdir())
JSON = dict[str, Any]
OPUS_PRICES = (4e-6, 20e-6)  # the fake API's model: dollars per input and output token


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


def recorded(version: str, name: str) -> list[Any]:
    return messages(list(frames(DATA / "e2e" / version / f"{name}.jsonl")))


def reports(msgs: list[Any]) -> list[UsageReport]:
    tracker = UsageTracker()
    for message in msgs:
        tracker.add(message)
    return tracker.reports


def assert_adds_up(report: UsageReport) -> None:
    for agent in (*report.agents, report.total):
        assert all(math.isfinite(c) for c in agent.costs.values()), agent
        assert math.isfinite(agent.cost_usd), agent
        assert all(0 <= getattr(u, f) <= MAX_FIGURE for u in agent.models.values() for f in FIELDS)
    assert all(math.isfinite(c) for c in report.cost_by_agent_type().values())
    for model, total in report.total.models.items():
        parts = [a.models.get(model, TokenUsage()) for a in report.agents]
        for field in FIELDS:
            values = [getattr(p, field) for p in parts]
            assert all(v >= 0 for v in values), (model, field, values)
            assert sum(values) == getattr(total, field), (model, field)
    for agent in report.agents:
        assert set(agent.models) <= set(report.total.models)
        assert set(agent.costs) <= set(report.total.costs)
        assert all(c >= 0 for c in agent.costs.values())
        assert agent.cost_usd == pytest.approx(sum(agent.costs.values()))
    for model, cost in report.total.costs.items():
        shares = [a.costs.get(model, 0.0) for a in report.agents]
        assert sum(shares) == pytest.approx(cost), model
    assert sum(a.cost_usd for a in report.agents) == pytest.approx(report.total.cost_usd)


def tokens(
    input_tokens: int = 0, output_tokens: int = 0, cache_read: int = 0, cache_write: int = 0
) -> TokenUsage:
    return TokenUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_input_tokens=cache_read,
        cache_creation_input_tokens=cache_write,
    )


# -------------------------------------------------------------------- synthetic frames


def api_usage(i: int = 0, o: int = 0, read: int = 0, write: int = 0, write_1h: int = 0) -> JSON:
    return {
        "input_tokens": i,
        "output_tokens": o,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
        "cache_creation": {
            "ephemeral_5m_input_tokens": write - write_1h,
            "ephemeral_1h_input_tokens": write_1h,
        },
    }


def assistant(
    msg_id: str, model: str, usage: JSON, *, parent: str | None = None, blocks: Any = ()
) -> JSON:
    return {
        "type": "assistant",
        "parent_tool_use_id": parent,
        "message": {
            "id": msg_id,
            "model": model,
            "role": "assistant",
            "content": list(blocks) or [{"type": "text", "text": "x"}],
            "usage": usage,
        },
    }


def agent_call(tool_id: str, agent_type: str, *, background: bool = False) -> JSON:
    return {
        "type": "tool_use",
        "id": tool_id,
        "name": "Agent",
        "input": {
            "description": f"a {agent_type} task",
            "prompt": "do it",
            "subagent_type": agent_type,
            "run_in_background": background,
        },
    }


def agent_result(tool_id: str, usage: JSON, *, model: str, agent_type: str) -> JSON:
    return {
        "type": "user",
        "parent_tool_use_id": None,
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "done"}],
        },
        "tool_use_result": {
            "status": "completed",
            "agentId": "a1",
            "agentType": agent_type,
            "resolvedModel": model,
            "usage": usage,
        },
    }


def model_usage(
    i: int = 0, o: int = 0, write: int = 0, write_1h: int = 0, cost: float = 0.0
) -> JSON:
    return {
        "inputTokens": i,
        "outputTokens": o,
        "cacheReadInputTokens": 0,
        "cacheCreationInputTokens": write,
        "cacheCreationEphemeral5mInputTokens": write - write_1h,
        "cacheCreationEphemeral1hInputTokens": write_1h,
        "costUSD": cost,
    }


def result(usage: JSON, per_model: dict[str, JSON]) -> JSON:
    return {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "usage": usage,
        "modelUsage": per_model,
        "model_usage_since_last_result": per_model,
        "total_cost_usd": sum(m["costUSD"] for m in per_model.values()),
    }


# ------------------------------------------------------------------- recorded traffic


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
        if since is not None:
            expected = {m: TokenUsage.of(u) for m, u in since.items() if TokenUsage.of(u).total}
            assert dict(report.total.models) == expected
            assert report.total.cost_usd == pytest.approx(
                sum(u.cost_usd or 0.0 for u in since.values())
            )
        main = TokenUsage.of(result.usage)
        if main.total:
            assert report.main.tokens == main
            assert report.main.sources == ("result.usage",)
        elif report.total.models:
            # An interrupted turn, a compaction: the result says nothing of the main agent.
            assert report.notes


@pytest.mark.parametrize("version", VERSIONS)
def test_the_subagent_scenario_is_attributed(version: str) -> None:
    msgs = recorded(version, "test_a_subagent_scenario")
    report = usage_by_agent(msgs)
    result = next(m for m in reversed(msgs) if isinstance(m, cs.ResultMessage))
    assert report.main.tokens == TokenUsage.of(result.usage)
    [sub] = report.subagents
    assert sub.agent_type == "general-purpose"
    assert sub.description == "List files"
    assert sub.agent_id is not None
    assert report.subagent(sub.agent_id) is sub
    assert sub.sources == ("stream", "tool_use_result")
    # Every input token of the subagent's requests: the streamed ones (each message once)
    # and the last one (from the Agent tool's result).
    streamed = {
        m.message.id: TokenUsage.of(m.message.usage)
        for m in msgs
        if isinstance(m, cs.AssistantMessage) and m.parent_tool_use_id == sub.agent_id
    }
    final = next(
        TokenUsage.of(m.tool_use_result["usage"])
        for m in msgs
        if isinstance(m, cs.UserMessage)
        and isinstance(m.tool_use_result, dict)
        and "usage" in m.tool_use_result
    )
    expected = final
    for usage in streamed.values():
        expected = expected + usage
    assert sub.tokens == expected
    # Only the output of the streamed request beyond its stream's start is unplaced.
    assert report.unattributed.tokens.input_tokens == 0
    assert report.unattributed.tokens.output_tokens > 0
    assert report.notes == ()
    assert_adds_up(report)
    assert set(report.by_agent_type()) == {"main", "general-purpose", "unattributed"}
    assert sum(report.cost_by_agent_type().values()) == pytest.approx(result.total_cost_usd)


def test_the_subagent_scenario_in_figures() -> None:
    """CLI 2.1.330: the result's usage is the main agent's two requests; the model's totals
    add the subagent's streamed request and its last one, from the Agent tool's result."""
    report = usage_by_agent(recorded("2.1.330", "test_a_subagent_scenario"))
    model = "claude-opus-5-5"
    assert report.total.models == {model: tokens(40965, 103)}
    assert report.total.cost_usd == pytest.approx(0.16592)
    assert report.main.models == {model: tokens(11785 + 12061, 62)}
    [sub] = report.subagents
    assert sub.models == {model: tokens(8311 + 8808, 1 + 13)}
    assert report.unattributed.models == {model: tokens(0, 103 - 62 - 14)}
    # Three shares of one model: its cost split by price-weighted tokens, which for these
    # prices (output five times input) is each share's own price.
    for agent in report.agents:
        assert agent.cost_basis == "proportional"
        usage = agent.tokens
        price = usage.input_tokens * OPUS_PRICES[0] + usage.output_tokens * OPUS_PRICES[1]
        assert agent.cost_usd == pytest.approx(price)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_background_agent_is_attributed_exactly(version: str) -> None:
    """Its last request is streamed (output understated); its task notification's
    ``total_tokens`` gives that request's output."""
    msgs = recorded(version, "test_a_background_agent_scenario")
    first, second = reports(msgs)
    [sub] = first.subagents
    assert sub.agent_type == "general-purpose"
    assert sub.description == "Count files"
    assert sub.sources == ("stream", "task_notification")
    [streamed] = [
        m for m in msgs if isinstance(m, cs.AssistantMessage) and m.parent_tool_use_id is not None
    ]
    [notice] = [m for m in msgs if isinstance(m, messages_module.TaskNotificationMessage)]
    assert notice.usage is not None
    usage = TokenUsage.of(streamed.message.usage)
    expected = tokens(usage.input_tokens, notice.usage["total_tokens"] - usage.input_tokens)
    assert sub.tokens == expected
    assert first.unattributed.models == {}
    assert first.notes == ()
    assert_adds_up(first)
    # The CLI's own turn that tells the model the task ended: the main agent only.
    assert second.subagents == ()
    assert second.main.cost_basis == "exact"
    assert second.main.tokens == second.total.tokens


@pytest.mark.parametrize("version", VERSIONS)
def test_two_subagents_on_two_models(version: str) -> None:
    report = usage_by_agent(recorded(version, "test_usage_by_agent_adds_up_to_the_results_totals"))
    by_type = {a.agent_type: a for a in report.subagents}
    assert set(by_type) == {"general-purpose", "Explore"}
    assert list(by_type["general-purpose"].models) == ["claude-haiku-5-5"]
    assert list(by_type["Explore"].models) == ["claude-opus-5-5"]
    assert by_type["general-purpose"].tokens.input_tokens == 1000 + 1100
    assert by_type["Explore"].tokens.input_tokens == 2000 + 2200
    assert "claude-haiku-5-5" not in report.main.models
    assert_adds_up(report)


@pytest.mark.parametrize("version", VERSIONS)
def test_an_interrupted_turn_takes_the_main_agent_from_its_stream(version: str) -> None:
    first, _second = reports(recorded(version, "test_interrupt_mid_stream"))
    assert first.main.sources == ("stream",)
    assert first.main.tokens.input_tokens == first.total.tokens.input_tokens
    assert first.unattributed.tokens.output_tokens > 0
    assert any("interrupted" in note for note in first.notes)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_compaction_is_unattributed_and_said(version: str) -> None:
    _first, compaction = reports(recorded(version, "test_a_compaction_scenario"))
    assert compaction.main.models == {}
    assert compaction.unattributed.tokens == compaction.total.tokens
    assert compaction.unattributed.cost_basis == "exact"
    assert [n for n in compaction.notes if "compacted" in n]


def test_a_response_in_several_frames_counts_once() -> None:
    raw = list(frames(DATA / "e2e" / "2.1.330" / "test_a_subagent_scenario.jsonl"))
    doubled = []
    for frame in raw:
        doubled.append(frame)
        if frame.get("type") == "assistant":
            doubled.append(copy.deepcopy(frame))  # the same message id again
    assert usage_by_agent(messages(doubled)) == usage_by_agent(messages(raw))


def test_a_last_request_that_is_also_streamed_counts_once() -> None:
    """Should a CLI stream a foreground subagent's last request too, the Agent tool's result
    repeats its usage: the same request (same input), counted once."""
    raw = list(frames(DATA / "e2e" / "2.1.330" / "test_a_subagent_scenario.jsonl"))
    at = next(i for i, f in enumerate(raw) if "usage" in (f.get("tool_use_result") or {}))
    final = raw[at]["tool_use_result"]
    agent_id = raw[at]["message"]["content"][0]["tool_use_id"]
    also = assistant(
        "msg_last", "claude-opus-5-5", {**final["usage"], "output_tokens": 1}, parent=agent_id
    )
    before = usage_by_agent(messages(raw))
    after = usage_by_agent(messages([*raw[:at], also, *raw[at:]]))
    assert after == before


def test_cumulative_totals_are_turned_into_turns() -> None:
    # Without model_usage_since_last_result, each turn is the difference of modelUsage.
    for name in ("test_two_turns_in_one_session", "test_a_background_agent_scenario"):
        raw = list(frames(DATA / "e2e" / "2.1.330" / f"{name}.jsonl"))
        stripped = [
            {k: v for k, v in f.items() if k != "model_usage_since_last_result"} for f in raw
        ]
        with_since = reports(messages(raw))
        without = reports(messages(stripped))
        assert len(with_since) == len(without) == 2
        for a, b in zip(with_since, without, strict=True):
            assert a.total.models == b.total.models
            assert a.total.cost_usd == pytest.approx(b.total.cost_usd)
            for x, y in zip(a.agents, b.agents, strict=True):
                assert x.models == y.models
                assert x.cost_usd == pytest.approx(y.cost_usd)  # a difference of floats
        assert any("cumulative" in n for n in without[0].notes)


# ------------------------------------------------------------------ synthetic turns


def test_evidence_beyond_the_totals_is_unattributed_and_says_why() -> None:
    raw = list(frames(DATA / "e2e" / "2.1.330" / "test_a_subagent_scenario.jsonl"))
    inflated = copy.deepcopy(raw)
    for frame in inflated:
        if frame.get("type") == "assistant" and frame.get("parent_tool_use_id"):
            frame["message"]["usage"]["input_tokens"] = 10**7
    report = usage_by_agent(messages(inflated))
    [sub] = report.subagents
    assert sub.models == {}  # every kind: the model's subagent share is not split at all
    assert sub.cost_basis == "none"
    [note] = report.notes
    assert "input_tokens" in note
    assert "double counting" in note
    main = report.main.tokens
    assert report.unattributed.tokens == tokens(40965 - main.input_tokens, 103 - main.output_tokens)
    assert_adds_up(report)


def test_a_main_agent_beyond_the_totals_is_unattributed() -> None:
    turn = [
        assistant("m1", "a", api_usage(100, 1)),
        result(api_usage(500, 10), {"a": model_usage(100, 10, cost=1.0)}),
    ]
    report = usage_by_agent(messages(turn))
    assert report.main.models == {}
    assert report.unattributed.tokens == tokens(100, 10)
    assert report.unattributed.cost_usd == 1.0
    assert any("the main agent's" in n for n in report.notes)
    assert_adds_up(report)


def test_one_hour_cache_writes_weigh_more() -> None:
    """Main writes 1000 tokens to the one-hour cache (weight 2), the subagent 1000 to the
    five-minute cache (weight 1.25): the model's cost splits 2 : 1.25."""
    turn = [
        assistant("m1", "a", api_usage(write=1000, write_1h=1000), blocks=[agent_call("t1", "x")]),
        agent_result("t1", api_usage(write=1000), model="a", agent_type="x"),
        result(
            api_usage(write=1000, write_1h=1000),
            {"a": model_usage(write=2000, write_1h=1000, cost=3.25)},
        ),
    ]
    report = usage_by_agent(messages(turn))
    assert report.main.tokens.cache_creation_1h_input_tokens == 1000
    assert report.main.cost_usd == pytest.approx(2.0)
    [sub] = report.subagents
    assert sub.cost_usd == pytest.approx(1.25)
    assert sub.cost_basis == "proportional"
    assert report.unattributed.models == {}
    assert_adds_up(report)


def test_a_subagent_alone_on_its_model_gets_its_cost_exactly() -> None:
    turn = [
        assistant("m1", "big", api_usage(100, 10), blocks=[agent_call("t1", "Explore")]),
        assistant("s1", "small", api_usage(50, 1), parent="t1"),
        agent_result("t1", api_usage(60, 5), model="small", agent_type="Explore"),
        result(
            api_usage(100, 10),
            {"big": model_usage(100, 10, cost=0.5), "small": model_usage(110, 6, cost=0.01)},
        ),
    ]
    report = usage_by_agent(messages(turn))
    [sub] = report.subagents
    assert sub.models == {"small": tokens(110, 6)}
    assert sub.cost_basis == "exact"
    assert sub.cost_usd == 0.01
    assert report.main.cost_basis == "exact"
    assert report.main.cost_usd == 0.5
    assert report.unattributed.models == {}
    assert report.by_agent_type() == {
        "main": tokens(100, 10),
        "Explore": tokens(110, 6),
        "unattributed": TokenUsage(),
    }


def test_a_main_agent_on_two_models_is_split_by_its_stream() -> None:
    turn = [
        assistant("m1", "a", api_usage(100, 1)),
        assistant("m2", "b", api_usage(200, 1)),
        result(
            api_usage(300, 30),
            {"a": model_usage(100, 10, cost=1.0), "b": model_usage(200, 20, cost=2.0)},
        ),
    ]
    report = usage_by_agent(messages(turn))
    assert report.main.models == {"a": tokens(100, 1), "b": tokens(200, 1)}
    assert report.unattributed.tokens == tokens(0, 28)
    assert any("several models" in n for n in report.notes)
    assert_adds_up(report)


def test_model_names_are_matched_to_the_totals() -> None:
    turn = [
        assistant("m1", "claude-x-20990101", api_usage(10, 1), blocks=[agent_call("t1", "y")]),
        agent_result("t1", api_usage(5, 1), model="claude-z-20990101", agent_type="y"),
        result(
            api_usage(10, 1),
            {"claude-x": model_usage(10, 1, cost=0.1), "claude-z": model_usage(5, 1, cost=0.2)},
        ),
    ]
    report = usage_by_agent(messages(turn))
    assert list(report.main.models) == ["claude-x"]
    assert list(report.subagents[0].models) == ["claude-z"]
    assert report.notes == ()


def test_a_notification_after_the_result_credits_nothing_in_the_next_turn() -> None:
    """A background subagent's last request streamed before a result was counted in that
    result's totals: a notification in the next turn adds nothing there."""
    launched = agent_result("t1", {}, model="a", agent_type="x")
    launched["tool_use_result"] = {"status": "async_launched", "agentId": "a1"}
    first = [
        assistant("m1", "a", api_usage(100, 1), blocks=[agent_call("t1", "x", background=True)]),
        launched,
        assistant("s1", "a", api_usage(50, 1), parent="t1"),
        result(api_usage(100, 10), {"a": model_usage(150, 15, cost=1.0)}),
    ]
    second = [
        {
            "type": "system",
            "subtype": "task_notification",
            "task_id": "x",
            "tool_use_id": "t1",
            "status": "completed",
            "usage": {"total_tokens": 55},
        },
        assistant("m2", "a", api_usage(200, 1)),
        result(api_usage(200, 5), {"a": model_usage(200, 5, cost=1.0)}),
    ]
    one, two = reports(messages(first + second))
    assert one.subagents[0].models == {"a": tokens(50, 1)}
    assert one.unattributed.models == {"a": tokens(0, 4)}
    assert two.subagents[0].models == {}
    assert two.unattributed.models == {}
    assert two.notes == ()


def test_one_hour_writes_the_totals_do_not_show_are_not_split_by_lifetime() -> None:
    turn = [
        assistant("m1", "a", api_usage(10, 1), blocks=[agent_call("t1", "x")]),
        agent_result("t1", api_usage(write=100, write_1h=100), model="a", agent_type="x"),
        result(api_usage(10, 1), {"a": model_usage(10, 1, write=100, cost=1.0)}),
    ]
    report = usage_by_agent(messages(turn))
    [sub] = report.subagents
    assert sub.tokens == tokens(cache_write=100)
    assert any("one-hour" in n for n in report.notes)
    assert_adds_up(report)


def test_a_model_is_found_by_its_canonical_name() -> None:
    since = {
        "my-deployment": {**model_usage(10, 1, cost=0.1), "canonicalModel": "claude-x"},
        "other": model_usage(5, 1, cost=0.2),
    }
    turn = [assistant("m1", "claude-x", api_usage(10, 1)), result(api_usage(10, 1), since)]
    report = usage_by_agent(messages(turn))
    assert list(report.main.models) == ["my-deployment"]


def test_a_turn_without_a_result_gives_an_empty_report() -> None:
    report = usage_by_agent(messages([assistant("m1", "a", api_usage(1, 1))]))
    assert report.total.models == {}
    assert report.main.tokens == TokenUsage()
    assert "no ResultMessage" in report.notes[0]


def test_the_tracker_reports_each_turn() -> None:
    tracker = UsageTracker()
    assert tracker.report() is None
    for message in recorded("2.1.331", "test_two_turns_in_one_session"):
        report = tracker.add(message)
        if isinstance(message, cs.ResultMessage):
            assert report is tracker.report()
        else:
            assert report is None
    assert len(tracker.reports) == 2


def test_a_result_of_unknown_shape_degrades_to_unattributed() -> None:
    odd = result(api_usage(1, 1), {"a": model_usage(1, 1, cost=0.1)})
    odd["usage"] = "lots"
    odd["modelUsage"] = odd["model_usage_since_last_result"] = {"a": {"inputTokens": "many"}}
    for frame in ({**odd, "usage": 7}, odd):
        [message] = messages([frame])
        report = usage_by_agent([message])
        assert_adds_up(report)


# ------------------------------------------------------------------------- hostile input

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**6),
    st.just(10**400),
    st.floats(allow_nan=True),
    st.text(max_size=4),
    json_values,
)
_IDS = st.sampled_from([None, "t1", "t2", "", 5])


@st.composite
def hostile_turn(draw: st.DrawFn) -> list[JSON]:
    """A turn of frames whose figures, ids, parents and models are random."""
    out: list[JSON] = []

    def usage() -> JSON:
        figures: JSON = {k: draw(_VALUES) for k in KINDS}
        figures["cache_creation"] = draw(
            st.one_of(_VALUES, st.fixed_dictionaries({"ephemeral_1h_input_tokens": _VALUES}))
        )
        return figures

    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["assistant", "user", "started", "notified", "compact"]))
        if kind == "assistant":
            block = {
                "type": "tool_use",
                "id": draw(_IDS),
                "name": draw(st.sampled_from(["Agent", "Task", "Bash"])),
                "input": draw(st.one_of(json_values, st.just({"run_in_background": True}))),
            }
            out.append(
                {
                    "type": "assistant",
                    "parent_tool_use_id": draw(_IDS),
                    "message": {
                        "id": draw(st.sampled_from(["m1", "m2", None, 3])),
                        "role": "assistant",
                        "model": draw(st.sampled_from(["a", "b", "a-1", None, 1])),
                        "content": [block],
                        "usage": usage(),
                    },
                }
            )
        elif kind == "user":
            out.append(
                {
                    "type": "user",
                    "parent_tool_use_id": draw(_IDS),
                    "message": {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": draw(_IDS), "content": "x"}
                        ],
                    },
                    "tool_use_result": draw(
                        st.one_of(
                            json_values,
                            st.fixed_dictionaries(
                                {"usage": st.just(usage()), "agentType": _VALUES},
                                optional={"resolvedModel": _VALUES, "status": _VALUES},
                            ),
                        )
                    ),
                }
            )
        elif kind == "compact":
            out.append({"type": "system", "subtype": "compact_boundary"})
        else:
            out.append(
                {
                    "type": "system",
                    "subtype": "task_started" if kind == "started" else "task_notification",
                    "task_id": "x",
                    "tool_use_id": draw(_IDS),
                    "is_backgrounded": draw(_VALUES),
                    "usage": draw(
                        st.one_of(_VALUES, st.fixed_dictionaries({"total_tokens": _VALUES}))
                    ),
                }
            )
    models = draw(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3, unique=True))

    def per_model() -> Any:
        return draw(
            st.one_of(
                st.none(),
                st.fixed_dictionaries(
                    {
                        m: st.fixed_dictionaries(
                            {
                                "inputTokens": _VALUES,
                                "outputTokens": _VALUES,
                                "cacheCreationInputTokens": _VALUES,
                                "cacheCreationEphemeral1hInputTokens": _VALUES,
                                "costUSD": _VALUES,
                            }
                        )
                        for m in models
                    }
                ),
            )
        )

    out.append(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "usage": usage(),
            "modelUsage": per_model(),
            "model_usage_since_last_result": per_model(),
        }
    )
    return out


@settings(max_examples=deep(100), suppress_health_check=[HealthCheck.too_slow])
@given(turns=st.lists(hostile_turn(), min_size=1, max_size=3))
def test_hostile_figures_never_raise_and_always_add_up(turns: list[list[JSON]]) -> None:
    tracker = UsageTracker()
    results = 0
    for turn in turns:
        for message in messages(turn):
            results += isinstance(message, cs.ResultMessage)
            tracker.add(message)
    assert len(tracker.reports) == results
    for report in tracker.reports:
        assert_adds_up(report)


_TYPED = st.one_of(
    instances(cs.AssistantMessage),
    instances(cs.UserMessage),
    instances(messages_module.TaskStartedMessage),
    instances(messages_module.TaskNotificationMessage),
    instances(cs.ResultMessage),
)


@settings(max_examples=deep(75), suppress_health_check=[HealthCheck.too_slow])
@given(stream=st.lists(_TYPED, max_size=8))
def test_typed_messages_of_any_value_never_raise(stream: list[Any]) -> None:
    tracker = UsageTracker()
    for message in stream:
        tracker.add(message)
    assert len(tracker.reports) == sum(isinstance(m, cs.ResultMessage) for m in stream)
    for report in tracker.reports:
        assert_adds_up(report)
    usage_by_agent(stream)


async def test_reply_usage_by_agent() -> None:
    reply = await cs.ask("hi", transport=FakeCLI(replies=["hello"]))
    report = reply.usage_by_agent
    assert report.main.tokens == TokenUsage.of(reply.result.usage)
    assert report.subagents == ()
    assert report.unattributed.models == {}
    assert report.main.cost_basis == "exact"
    assert report.main.cost_usd == pytest.approx(reply.result.total_cost_usd)


# ------------------------------------------------------------- figures beyond belief


def test_a_cost_of_1e308_keeps_every_share_finite() -> None:
    # Issue 26: a per-model cost of 1e308: the shares summed to inf.
    turn = [
        assistant("m1", "a", api_usage(10, 1), blocks=[agent_call("t1", "general-purpose")]),
        assistant("s1", "a", api_usage(20, 2), parent="t1"),
        assistant("s2", "b", api_usage(30, 3), parent="t1"),
        result(
            api_usage(10, 1),
            {"a": model_usage(30, 3, cost=1e308), "b": model_usage(30, 3, cost=1e308)},
        ),
    ]
    turn[-1]["total_cost_usd"] = 1.0  # JSON has no inf
    report = usage_by_agent(messages(turn))
    assert_adds_up(report)
    assert report.total.cost_usd == 0.0  # neither cost is believed
    for model in ("a", "b"):
        assert any(n.startswith(f"{model}: ") and "cost_usd" in n for n in report.notes)
    # The tokens are attributed as usual.
    assert report.main.tokens == tokens(10, 1)
    sub = report.subagent("t1")
    assert sub is not None
    assert sub.tokens == tokens(50, 5)


def test_costs_that_are_not_costs_are_left_out_and_said() -> None:
    per_model = {m: model_usage(10, 1, cost=0.25) for m in "abcd"}
    turn = [result(api_usage(10, 1), per_model)]
    per_model["a"]["costUSD"] = -1.0
    per_model["b"]["costUSD"] = "0.5"
    per_model["c"]["costUSD"] = True
    report = usage_by_agent(messages(turn))
    assert_adds_up(report)
    assert report.total.costs == {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.25}
    for model in ("a", "b", "c"):
        assert any(n.startswith(f"{model}: ") and "cost_usd" in n for n in report.notes), model
    # Built in Python, a result may hold what JSON cannot: NaN, inf.
    built = cs.ResultMessage(
        subtype="success",
        usage=Usage(input_tokens=10, output_tokens=1),
        model_usage_since_last_result={
            "x": ModelUsage(input_tokens=10, output_tokens=1, cost_usd=math.nan),
            "y": ModelUsage(input_tokens=10, output_tokens=1, cost_usd=math.inf),
        },
    )
    report = usage_by_agent([built])
    assert_adds_up(report)
    assert report.total.costs == {"x": 0.0, "y": 0.0}
    assert {n.split(":")[0] for n in report.notes if "cost_usd" in n} == {"x", "y"}


def test_token_counts_beyond_belief_are_left_out_and_said() -> None:
    for huge in (10**400, 10**5000, 2**53 + 1):
        built = cs.ResultMessage(
            subtype="success",
            usage=Usage(input_tokens=10, output_tokens=1),
            model_usage_since_last_result={
                "a": ModelUsage(input_tokens=huge, output_tokens=1, cost_usd=0.5)
            },
        )
        report = usage_by_agent([built])
        repr(report)  # no figure too long to print (Python refuses ints over 4300 digits)
        assert_adds_up(report)
        assert not any("could not be attributed" in n for n in report.notes), report.notes
        assert any(n.startswith("a: ") and "input_tokens" in n for n in report.notes)
        assert report.total.models["a"].input_tokens == 0
        assert report.total.costs == {"a": 0.5}


_BEYOND = st.sampled_from(
    [
        1e308,
        1.7976931348623157e308,
        1e300,
        float(2**53),
        2**53,
        2**53 + 1,
        10**400,
        -(10**400),
        -1.0,
        0.5,
        7,
        "8",
        True,
        None,
    ]
)
_FIGURE = st.one_of(_BEYOND, _VALUES)


def believed(value: object, *, cost: bool) -> bool:
    """Whether a totals figure is believed (see the usage module docstring)."""
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and math.isnan(value):
        return False
    if not 0 <= value <= MAX_FIGURE:
        return False
    return cost or isinstance(value, int) or value.is_integer()


_PER_MODEL_KEYS = {
    "inputTokens": False,
    "outputTokens": False,
    "cacheReadInputTokens": False,
    "cacheCreationInputTokens": False,
    "cacheCreationEphemeral1hInputTokens": False,
    "costUSD": True,
}


@settings(max_examples=deep(100), suppress_health_check=[HealthCheck.too_slow])
@given(
    per_model=st.dictionaries(
        st.sampled_from(["a", "b", "c"]),
        st.fixed_dictionaries(dict.fromkeys(_PER_MODEL_KEYS, _FIGURE)),
        max_size=3,
    ),
    main=st.fixed_dictionaries(dict.fromkeys(KINDS, _FIGURE)),
)
def test_any_totals_keep_every_share_finite_or_say_why(
    per_model: dict[str, JSON], main: JSON
) -> None:
    frame = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "usage": main,
        "modelUsage": per_model,
        "model_usage_since_last_result": per_model,
        "total_cost_usd": 1.0,
    }
    decoded = messages([frame])
    if not decoded:  # JSON has no NaN nor inf: such a line is not decoded
        return
    report = usage_by_agent(decoded)
    assert_adds_up(report)
    for model, figures in per_model.items():
        odd = [k for k, cost in _PER_MODEL_KEYS.items() if not believed(figures[k], cost=cost)]
        if odd:
            said = [n for n in report.notes if n.startswith(f"{model}: ")]
            assert said, (model, odd, report.notes)


# ------------------------------------------------------------------- nested subagents
# As CLI 2.1.330 and 2.1.332 send them (tests/e2e/test_usage_e2e.py plays it for real): the
# inner subagent's Agent call is in the outer one's stream; the inner's requests reach the
# host only with forward_subagent_text, its last one included; its Agent result (to the
# outer) carries no usage; its task notification carries its last request's total.


def task_frame(subtype: str, tool_id: str, **fields: Any) -> JSON:
    return {
        "type": "system",
        "subtype": subtype,
        "tool_use_id": tool_id,
        "task_id": f"t-{tool_id}",
        **fields,
    }


def nested_turn(*, forwarded: bool) -> list[JSON]:
    model = "claude-opus-5-5"
    inner_requests = [
        assistant("c1", model, api_usage(3000, 1), parent="B"),
        assistant("c2", model, api_usage(3300, 1), parent="B"),
    ]
    frames = [
        assistant("m1", model, api_usage(5000, 1), blocks=[agent_call("A", "general-purpose")]),
        task_frame("task_started", "A", spawn_depth=1, description="Outer"),
        assistant("a1", model, api_usage(1000, 1), parent="A", blocks=[agent_call("B", "Explore")]),
        task_frame("task_started", "B", spawn_depth=2, description="Inner"),
        *(inner_requests if forwarded else []),
        task_frame("task_notification", "B", status="completed", usage={"total_tokens": 3325}),
        {
            "type": "user",
            "parent_tool_use_id": "A",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "B", "content": "C done"}],
            },
        },
        task_frame("task_notification", "A", status="completed", usage={"total_tokens": 1220}),
        agent_result("A", api_usage(1200, 20), model=model, agent_type="general-purpose"),
        assistant("m2", model, api_usage(6000, 10)),
    ]
    served = model_usage(i=5000 + 1000 + 3000 + 3300 + 1200 + 6000, o=40 + 30 + 30 + 25 + 20 + 10)
    frames.append(result(api_usage(11000, 50), {model: {**served, "costUSD": 0.1}}))
    return frames


def test_every_level_of_nested_subagents_has_its_row() -> None:
    report = usage_by_agent(messages(nested_turn(forwarded=True)))
    assert_adds_up(report)
    outer = report.subagent("A")
    inner = report.subagent("B")
    assert outer is not None
    assert inner is not None
    assert (outer.depth, outer.parent_id, outer.description) == (1, None, "a general-purpose task")
    assert (inner.depth, inner.parent_id, inner.agent_type) == (2, "A", "Explore")
    assert report.main.depth == 0
    # The inner one: every input token, and its last request's output from the notification
    assert inner.tokens == tokens(3000 + 3300, 1 + 25)
    assert inner.sources == ("stream", "task_notification")
    assert inner.cost_usd > 0
    assert report.notes == ()


def test_a_nested_subagent_without_its_stream_is_said_not_silent() -> None:
    report = usage_by_agent(messages(nested_turn(forwarded=False)))
    assert_adds_up(report)
    inner = report.subagent("B")
    assert inner is not None
    assert inner.tokens == TokenUsage()
    assert (inner.depth, inner.parent_id) == (2, "A")
    assert report.unattributed.tokens.input_tokens == 3000 + 3300
    [note] = report.notes
    assert "subagent B (a Explore task, started by subagent A, depth 2)" in note
    assert "forward_subagent_text=True" in note
