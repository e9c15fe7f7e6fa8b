"""Usage and cost by agent against the real CLI (offline): subagents of two types on two
models; a background subagent that ends within the turn, and one that ends after the result.
Every report adds up to the CLI's totals (tokens per model and kind, cost) and credits each
agent with what the fake Messages API served it, read back from its recorded requests."""

from __future__ import annotations

import json
from collections.abc import Callable

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.messages import TaskNotificationMessage
from claude_sdk.testing import RecordedRequest
from claude_sdk.usage import FIELDS, TokenUsage, UsageReport, UsageTracker

from .conftest import E2E

TASKS = ("SUBTASK-A", "SUBTASK-B", "SUBTASK-C")


def task(request: RecordedRequest) -> str | None:
    """Which subagent made ``request`` (its prompt names its task); None: the main agent."""
    text = json.dumps(request.messages[:1])
    return next((t for t in TASKS if t in text), None)


def served(e2e: E2E, who: str | None) -> tuple[TokenUsage, set[str], list[TokenUsage]]:
    """What the fake API answered ``who``'s requests: tokens in all, the models, and each
    answer's usage in order."""
    answers = [
        r
        for r in e2e.api.requests
        if r.kind == "main" and isinstance(r.response, dict) and task(r) == who
    ]
    each = [TokenUsage.of(r.response.get("usage")) for r in answers]
    total = TokenUsage()
    for usage in each:
        total = total + usage
    return total, {str(r.response.get("model")) for r in answers}, each


def when(name: str | None) -> Callable[[RecordedRequest], bool]:
    return lambda request: task(request) == name


async def allow(name: str, tool_input: dict[str, object], ctx: object) -> cs.PermissionResult:
    return cs.PermissionAllow()


def assert_adds_up_to_the_result(report: UsageReport, result: cs.ResultMessage) -> None:
    since = result.model_usage_since_last_result or result.model_usage or {}
    assert dict(report.total.models) == {m: TokenUsage.of(u) for m, u in since.items()}
    for model, total in report.total.models.items():
        parts = [a.models.get(model, TokenUsage()) for a in report.agents]
        for field in FIELDS:
            assert all(getattr(p, field) >= 0 for p in parts)
            assert sum(getattr(p, field) for p in parts) == getattr(total, field), (model, field)
    cost = sum((u.cost_usd or 0.0) for u in since.values())
    assert report.total.cost_usd == pytest.approx(cost)
    assert sum(a.cost_usd for a in report.agents) == pytest.approx(cost)


async def test_usage_by_agent_adds_up_to_the_results_totals(e2e: E2E) -> None:
    calls = [
        (
            "Agent",
            {
                "description": "Count files",
                "prompt": "SUBTASK-A: count the files",
                "subagent_type": "general-purpose",
                "model": "haiku",
                "run_in_background": False,
            },
        ),
        (
            "Agent",
            {
                "description": "Find the readme",
                "prompt": "SUBTASK-B: find the readme",
                "subagent_type": "Explore",
                "run_in_background": False,
            },
        ),
    ]
    e2e.api.reply(tool_use=calls, input_tokens=5000, output_tokens=40, when=when(None))
    for name, first, final in (("SUBTASK-A", 1000, 1100), ("SUBTASK-B", 2000, 2200)):
        e2e.api.reply(
            tool_use=("Bash", {"command": "ls", "description": "List"}),
            input_tokens=first,
            output_tokens=30,
            when=when(name),
        )
        e2e.api.reply(text=f"{name} done", input_tokens=final, output_tokens=20, when=when(name))
    e2e.api.reply(text="both looked", input_tokens=6000, output_tokens=10, when=when(None))
    options = e2e.options(can_use_tool=allow)
    reply = await cs.ask("use two subagents", options=options, transport=e2e.transport())
    report = reply.usage_by_agent
    assert_adds_up_to_the_result(report, reply.result)
    # The main agent: the result's usage, which is exactly what the API served it.
    main_served, main_models, _ = served(e2e, None)
    assert report.main.tokens == TokenUsage.of(reply.result.usage) == main_served
    assert set(report.main.models) == main_models
    # Each subagent: its type, its model, every input token it was served, and of its output
    # at least its last request's (the stream understates the earlier one's).
    by_type = {a.agent_type: a for a in report.subagents}
    assert set(by_type) == {"general-purpose", "Explore"}
    assert by_type["general-purpose"].description == "Count files"
    assert by_type["Explore"].description == "Find the readme"
    for agent, name in (
        (by_type["general-purpose"], "SUBTASK-A"),
        (by_type["Explore"], "SUBTASK-B"),
    ):
        got, models, each = served(e2e, name)
        assert len(each) == 2
        assert set(agent.models) == models
        assert agent.sources == ("stream", "tool_use_result")
        mine = agent.tokens
        assert mine.input_tokens == got.input_tokens
        assert each[-1].output_tokens <= mine.output_tokens <= got.output_tokens
    haiku = [m for m in by_type["general-purpose"].models if "haiku" in m]
    assert haiku
    assert set(by_type["Explore"].models).isdisjoint(haiku)
    assert not set(report.main.models) & set(haiku)
    # On haiku, only that subagent and the unattributed share (its understated output):
    # together exactly what the API served it.
    [model] = haiku
    on_haiku = by_type["general-purpose"].models[model] + report.unattributed.models.get(
        model, TokenUsage()
    )
    assert on_haiku == served(e2e, "SUBTASK-A")[0]
    # Nothing is a silent zero: what the stream could not prove is unattributed, and only
    # output tokens are.
    assert report.unattributed.tokens.output_tokens > 0
    assert report.unattributed.tokens.input_tokens == 0
    assert report.notes == ()


async def test_a_background_subagent_is_attributed_exactly(e2e: E2E) -> None:
    agent_input = {
        "description": "Count in the background",
        "prompt": "SUBTASK-C: count the files",
        "subagent_type": "general-purpose",
        "run_in_background": True,
    }
    e2e.api.reply(
        tool_use=("Agent", agent_input), input_tokens=3000, output_tokens=25, when=when(None)
    )
    e2e.api.reply(text="3 files", input_tokens=1500, output_tokens=17, when=when("SUBTASK-C"))
    # Slow enough for the background agent to end within the turn (its notification then
    # comes before the result); the CLI's own turn on that notification gets it too.
    e2e.api.reply(
        text="started it",
        input_tokens=3100,
        output_tokens=9,
        delay=0.2,
        when=when(None),
        times=None,
    )
    options = e2e.options(can_use_tool=allow)
    reply = await cs.ask("count in the background", options=options, transport=e2e.transport())
    report = reply.usage_by_agent
    assert_adds_up_to_the_result(report, reply.result)
    [sub] = report.subagents
    assert sub.agent_type == "general-purpose"
    assert sub.description == "Count in the background"
    got, models, each = served(e2e, "SUBTASK-C")
    assert len(each) == 1
    assert set(sub.models) == models
    # Its one request was streamed, output understated; the task notification gives the rest.
    assert sub.sources == ("stream", "task_notification")
    assert sub.tokens == got
    assert report.main.tokens == TokenUsage.of(reply.result.usage)
    assert report.unattributed.models == {}
    assert report.notes == ()


async def test_a_background_subagent_past_the_result_reports_in_a_later_turn(e2e: E2E) -> None:
    """A background subagent still running at the result: its request is in a later
    result's totals (the CLI's own turn on its notification), and a `UsageTracker` fed the
    session's messages credits it there."""
    agent_input = {
        "description": "Count slowly",
        "prompt": "SUBTASK-C: count the files",
        "subagent_type": "general-purpose",
        "run_in_background": True,
    }
    e2e.api.reply(
        tool_use=("Agent", agent_input), input_tokens=3000, output_tokens=25, when=when(None)
    )
    e2e.api.reply(
        text="3 files", input_tokens=1500, output_tokens=17, delay=0.3, when=when("SUBTASK-C")
    )
    e2e.api.reply(text="noted", input_tokens=3100, output_tokens=9, when=when(None), times=None)
    tracker = UsageTracker()
    notified = False
    async with cs.open_session(
        e2e.options(can_use_tool=allow), transport=e2e.transport()
    ) as session:
        await session.send("count in the background")
        with anyio.fail_after(60):
            async for message in session.receive_messages():
                tracker.add(message)
                notified = notified or isinstance(message, TaskNotificationMessage)
                if notified and isinstance(message, cs.ResultMessage):
                    break
    first, *later = tracker.reports
    assert later, "the subagent ended after the first result"
    agent_id = first.subagents[0].agent_id
    assert agent_id is not None
    assert first.subagents[0].models == {}  # it had not spent anything yet
    got, models, _ = served(e2e, "SUBTASK-C")
    mine = [r.subagent(agent_id) for r in later]
    spent = TokenUsage()
    for share in mine:
        if share is not None:
            assert set(share.models) <= models
            spent = spent + share.tokens
    assert spent == got
    for report in tracker.reports:
        assert not report.notes
        for model, total in report.total.models.items():
            parts = [a.models.get(model, TokenUsage()) for a in report.agents]
            for field in FIELDS:
                assert sum(getattr(p, field) for p in parts) == getattr(total, field)


@pytest.mark.parametrize("forwarded", [True, False], ids=["forwarded", "not-forwarded"])
async def test_a_subagent_that_starts_a_subagent_has_its_own_row(e2e: E2E, forwarded: bool) -> None:
    outer = {
        "description": "Outer",
        "prompt": "SUBTASK-A: delegate",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    inner = {**outer, "description": "Inner", "prompt": "SUBTASK-C: the inner work"}
    e2e.api.reply(tool_use=("Agent", outer), input_tokens=5000, output_tokens=40, when=when(None))
    e2e.api.reply(
        tool_use=("Agent", inner), input_tokens=1000, output_tokens=30, when=when("SUBTASK-A")
    )
    e2e.api.reply(
        tool_use=("Bash", {"command": "ls", "description": "List"}),
        input_tokens=3000,
        output_tokens=30,
        when=when("SUBTASK-C"),
    )
    e2e.api.reply(text="C done", input_tokens=3300, output_tokens=25, when=when("SUBTASK-C"))
    e2e.api.reply(text="A done", input_tokens=1200, output_tokens=20, when=when("SUBTASK-A"))
    e2e.api.reply(text="all done", input_tokens=6000, output_tokens=10, when=when(None))
    options = e2e.options(can_use_tool=allow, forward_subagent_text=forwarded or None)
    reply = await cs.ask("nest", options=options, transport=e2e.transport())
    report = reply.usage_by_agent
    assert_adds_up_to_the_result(report, reply.result)
    rows = {a.description: a for a in report.subagents}
    assert (rows["Outer"].depth, rows["Inner"].depth) == (1, 2)
    assert rows["Inner"].parent_id == rows["Outer"].agent_id
    assert rows["Outer"].parent_id is None
    got, _models, each = served(e2e, "SUBTASK-C")
    if forwarded:
        mine = rows["Inner"].tokens
        assert mine.input_tokens == got.input_tokens  # every request it made
        assert each[-1].output_tokens <= mine.output_tokens <= got.output_tokens
        assert report.notes == ()
    else:
        assert rows["Inner"].tokens == TokenUsage()
        assert report.unattributed.tokens.input_tokens == got.input_tokens
        [note] = report.notes
        assert "depth 2" in note
        assert "forward_subagent_text=True" in note
