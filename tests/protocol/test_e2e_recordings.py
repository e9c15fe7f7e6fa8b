"""The wire of every e2e scenario, recorded from each real CLI version (tests/data/e2e/<version>),
is known to the model: strict decoding finds nothing unknown in any frame the CLI sent nor in
any typed answer to a request the host sent, and every frame round-trips.

Record with ``CLAUDE_SDK_RECORD_E2E=1 nox -s e2e`` (the pinned CLI) and
``CLAUDE_SDK_RECORD_E2E=1 CLAUDE_SDK_E2E_LATEST=<sdk> nox -s e2e-latest`` (a newer one): each
run writes the directory of its CLI version.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from claude_sdk import wire

from ..support.wire_check import wire_findings
from ..transcripts import DATA, Record, check_every_frame, records

ROOT = DATA / "e2e"
VERSIONS = sorted(p.name for p in ROOT.iterdir() if p.is_dir()) if ROOT.is_dir() else []
RECORDED = sorted(ROOT.glob("*/*.jsonl"))

#: The scenarios every recorded version must have (the pinned CLI has more: older scenarios).
SCENARIOS = (
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
    # the richer scenarios
    "test_a_subagent_scenario",
    "test_a_background_agent_scenario",
    "test_a_compaction_scenario",
    "test_a_rewind_scenario",
    "test_a_result_without_structured_output_raises",
)


def test_at_least_two_cli_versions_are_recorded() -> None:
    assert len(VERSIONS) >= 2, VERSIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_every_scenario_is_recorded(version: str) -> None:
    names = {p.stem for p in (ROOT / version).glob("*.jsonl")}
    missing = [s for s in SCENARIOS if s not in names]
    assert missing == [], (version, missing)
    for path in (ROOT / version).glob("*.jsonl"):
        header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        assert header["cli_version"] == version, path


def _frames(path: Path) -> list[Record]:
    return [
        Record(
            file=f"{path.parent.name}/{rec.file}",
            index=rec.index,
            direction=rec.direction,
            msg=rec.msg,
        )
        for rec in records(path)
    ]


def _has_no_drift(rec: Record) -> None:
    if rec.msg.get("request", {}).get("subtype") == "no_such_subtype":
        return  # sent on purpose to see the CLI refuse an unknown subtype
    frame = wire.decode(json.dumps(rec.msg), strict=True)
    assert wire.to_dict(frame) == rec.msg


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_recorded_frames_have_no_drift(path: Path) -> None:
    """Every frame of the recording (a failure names the frame, ``<version>/<file>:<line>``)."""
    check_every_frame(_frames(path), _has_no_drift)


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_answer_is_known_to_the_model(path: Path) -> None:
    recs = list(records(path))
    sent = [r.msg for r in recs if r.direction == "sdk>cli"]
    received = [r.msg for r in recs if r.direction == "cli>sdk"]
    assert wire_findings(sent, received) == []


def test_recordings_are_scrubbed() -> None:
    for path in RECORDED:
        text = Path(path).read_text()
        assert "pytest-of-" not in text, path


def test_recording_names_are_plain_files() -> None:
    # A parameter with "/" once made directories, one with quotes or a newline made names
    # git and other filesystems choke on: tests/e2e/conftest.py's recording_stem.
    for path in ROOT.rglob("*"):
        assert path.is_file() == (path.parent.parent == ROOT), path
        assert re.fullmatch(r"[A-Za-z0-9_.-]+", path.name), path
