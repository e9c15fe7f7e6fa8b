"""The words ``python -m claude_sdk`` uses for the progress the CLI reports (issue 16).

Frames are decoded from wire dicts, as the session decodes them; the labels are checked
exactly. The subprocess tests (``test_main_progress.py``, ``test_main_pty.py``) check where
they go.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from claude_sdk import wire
from claude_sdk._cli_progress import Console, duration, event_line, progress_label


def frame(data: dict[str, Any]) -> Any:
    return wire.from_dict({"session_id": "s", "uuid": "u", **data})


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0.0 s"),
        (0.532, "0.5 s"),
        (9.94, "9.9 s"),
        (9.96, "10 s"),
        (59.4, "59 s"),
        (59.6, "1 min 0 s"),
        (202, "3 min 22 s"),
        (3600 + 5 * 60 + 1, "1 h 5 min"),
    ],
)
def test_duration(seconds: float, text: str) -> None:
    assert duration(seconds) == text


@pytest.mark.parametrize(
    ("fields", "label"),
    [
        (
            {"attempt": 4, "max_retries": 8, "retry_delay_ms": 61_000, "error_status": 500},
            "API retry attempt 4 of 8 in 1 min 1 s (HTTP 500)",
        ),
        (
            {"attempt": 1, "max_retries": 2, "retry_delay_ms": 250, "error_status": None},
            "API retry attempt 1 of 2 in 0.2 s",
        ),
        (
            {
                "attempt": 2,
                "max_retries": 3,
                "retry_delay_ms": 4000,
                "error_status": 429,
                "error": "rate_limit",
            },
            "API retry attempt 2 of 3 in 4.0 s (HTTP 429, rate_limit)",
        ),
    ],
)
def test_api_retry_labels(fields: dict[str, Any], label: str) -> None:
    assert progress_label(frame({"type": "system", "subtype": "api_retry", **fields})) == label


@pytest.mark.parametrize(
    ("status", "label"),
    [
        ("compacting", "compacting the conversation"),
        ("requesting", "requesting a model response"),
        ("thinking_hard", "status: thinking_hard"),  # a status this SDK does not know yet
        (None, "working"),
    ],
)
def test_status_labels(status: str | None, label: str) -> None:
    message = frame({"type": "system", "subtype": "status", "status": status})
    assert progress_label(message) == label


def test_tool_progress_label_without_elapsed_time() -> None:
    message = frame(
        {"type": "tool_progress", "tool_use_id": "t", "tool_name": "WebFetch", "heartbeat": True}
    )
    assert progress_label(message) == "WebFetch running"


def test_a_subagent_retry_is_named_on_its_tool() -> None:
    message = frame(
        {
            "type": "tool_progress",
            "tool_use_id": "t",
            "tool_name": "Agent",
            "elapsed_time_seconds": 75,
            "subagent_type": "Plan",
            "subagent_retry": {
                "agent_id": "a",
                "attempt": 2,
                "max_retries": 5,
                "retry_delay_ms": 2000,
                "error_status": 529,
                "error_category": "overloaded",
            },
        }
    )
    assert progress_label(message) == (
        "Agent running for 1 min 15 s (subagent Plan); "
        "API retry attempt 2 of 5 in 2.0 s (HTTP 529, overloaded)"
    )


def test_compaction_failure_and_rate_limits_are_transcript_lines() -> None:
    failed = frame(
        {
            "type": "system",
            "subtype": "status",
            "status": None,
            "compact_result": "failed",
            "compact_error": "prompt too long",
        }
    )
    assert event_line(failed) == "[status] compaction failed: prompt too long"
    limited = frame(
        {
            "type": "rate_limit_event",
            "rate_limit_info": {"status": "rejected", "rateLimitType": "five_hour"},
        }
    )
    assert event_line(limited) == "[rate limit] rejected (five_hour)"
    allowed = frame({"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}})
    assert event_line(allowed) is None


def test_frames_that_report_nothing_have_no_label() -> None:
    message = frame({"type": "system", "subtype": "session_state_changed", "state": "idle"})
    assert progress_label(message) is None
    assert event_line(message) is None


def test_off_a_terminal_a_repeated_label_is_one_line() -> None:
    out, err = io.StringIO(), io.StringIO()
    console = Console(stdout=out, stderr=err)
    assert not console.live
    compacting = frame({"type": "system", "subtype": "status", "status": "compacting"})
    for _ in range(3):
        console.show(compacting)
    console.say("between")
    console.show(compacting)
    assert err.getvalue().splitlines() == ["[progress] compacting the conversation"] * 2
    assert out.getvalue() == "between\n"


def test_an_error_result_that_says_success_is_shown_as_an_error() -> None:
    out = io.StringIO()
    console = Console(stdout=out, stderr=io.StringIO())
    console.show(
        frame(
            {
                "type": "result",
                "subtype": "success",
                "is_error": True,
                "num_turns": 1,
                "result": "API Error: 500 boom",
                "duration_ms": 1,
                "duration_api_ms": 0,
                "total_cost_usd": 0,
            }
        )
    )
    assert out.getvalue().splitlines() == [
        "[result] error, 1 model turn(s), cost $0",
        "[error] API Error: 500 boom",
    ]
