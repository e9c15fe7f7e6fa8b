"""The wire of every e2e scenario, recorded from the real CLI 2.1.330 (tests/data/e2e), is
known to the model: strict decoding finds nothing unknown, and every frame round-trips.

Re-record with ``CLAUDE_SDK_RECORD_E2E=1 nox -s e2e`` when the CLI pin moves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claude_sdk import wire

from ..transcripts import DATA, Record, records

RECORDED = sorted((DATA / "e2e").glob("*.jsonl"))
FRAMES = [rec for path in RECORDED for rec in records(path)]


def test_every_scenario_is_recorded() -> None:
    names = {p.stem for p in RECORDED}
    for scenario in (
        "test_text_turn",
        "test_two_turns_in_one_session",
        "test_can_use_tool_on_a_bash_write_True",
        "test_can_use_tool_on_a_bash_write_False",
        "test_a_pre_tool_use_hook_that_denies",
        "test_an_in_process_mcp_tool_call",
        "test_interrupt_mid_stream",
        "test_interrupt_while_a_permission_request_is_pending",
        "test_set_model_and_permission_mode",
        "test_partial_messages",
        "test_structured_output_as_an_attrs_instance",
        "test_resume_a_session_by_id",
        "test_overloaded_then_success",
        "test_an_api_error_through_ask_is_a_result_error",
        "test_the_cli_killed_mid_turn_is_a_process_error",
        "test_resuming_an_unknown_session_raises_session_not_found",
    ):
        assert scenario in names


@pytest.mark.parametrize("rec", FRAMES, ids=lambda r: r.id)
def test_recorded_frame_has_no_drift(rec: Record) -> None:
    if rec.msg.get("request", {}).get("subtype") == "no_such_subtype":
        return  # sent on purpose to see the CLI refuse an unknown subtype
    frame = wire.decode(json.dumps(rec.msg), strict=True)
    assert wire.to_dict(frame) == rec.msg


def test_recordings_are_scrubbed() -> None:
    for path in RECORDED:
        text = Path(path).read_text()
        assert "pytest-of-" not in text, path
