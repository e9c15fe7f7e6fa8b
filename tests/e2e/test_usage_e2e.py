"""Usage and cost by agent against the real CLI (offline): two subagents of different types on
different models; the report adds up to the CLI's totals and credits each agent with what the
fake API served it."""

from __future__ import annotations

import json

import pytest

import claude_sdk as cs
from claude_sdk.testing import RecordedRequest
from claude_sdk.usage import KINDS, TokenUsage

from .conftest import E2E


def task(request: RecordedRequest) -> str | None:
    text = json.dumps(request.messages[:1])
    return next((t for t in ("SUBTASK-A", "SUBTASK-B") if t in text), None)


async def allow(name: str, tool_input: dict[str, object], ctx: object) -> cs.PermissionResult:
    return cs.PermissionAllow()


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
    e2e.api.reply(tool_use=calls, input_tokens=5000, output_tokens=40, when=lambda r: not task(r))
    for name, first, final in (("SUBTASK-A", 1000, 1100), ("SUBTASK-B", 2000, 2200)):

        def mine(request: RecordedRequest, name: str = name) -> bool:
            return task(request) == name

        e2e.api.reply(
            tool_use=("Bash", {"command": "ls", "description": "List"}),
            input_tokens=first,
            output_tokens=30,
            when=mine,
        )
        e2e.api.reply(
            text=f"{name} done",
            input_tokens=final,
            output_tokens=20,
            when=mine,
        )
    e2e.api.reply(text="both looked", input_tokens=6000, output_tokens=10)
    options = e2e.options(can_use_tool=allow)
    reply = await cs.ask("use two subagents", options=options, transport=e2e.transport())
    report = reply.usage_by_agent
    result = reply.result
    # The totals are the CLI's, and every share adds up to them, per model and kind.
    since = result.model_usage_since_last_result or result.model_usage or {}
    assert {m: TokenUsage.of(u) for m, u in since.items()} == dict(report.total.models)
    for model, total in report.total.models.items():
        parts = [a.models.get(model, TokenUsage()) for a in report.agents]
        for kind in KINDS:
            assert sum(getattr(p, kind) for p in parts) == getattr(total, kind)
    assert sum(a.cost_usd for a in report.agents) == pytest.approx(
        sum((u.cost_usd or 0.0) for u in since.values())
    )
    # The main agent is the result's usage.
    assert report.main.tokens == TokenUsage.of(result.usage)
    # Each subagent: its type, and every input token the fake API served it.
    by_type = {a.agent_type: a for a in report.subagents}
    assert set(by_type) == {"general-purpose", "Explore"}
    assert by_type["general-purpose"].tokens.input_tokens == 1000 + 1100
    assert by_type["Explore"].tokens.input_tokens == 2000 + 2200
    assert by_type["general-purpose"].description == "Count files"
    haiku = [m for m in by_type["general-purpose"].models if "haiku" in m]
    assert haiku, by_type["general-purpose"].models
    # Only that subagent (and the unattributed share) ran on haiku: nobody else's cost.
    on_haiku = {a.agent_type for a in report.agents if any("haiku" in m for m in a.models)}
    assert on_haiku <= {"general-purpose", "unattributed"}
    # What the stream cannot prove (the first requests' output tokens) is unattributed,
    # never silently dropped.
    assert report.unattributed.tokens.output_tokens > 0
    assert report.unattributed.tokens.input_tokens == 0
