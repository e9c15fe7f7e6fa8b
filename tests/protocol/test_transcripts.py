"""Every frame the real CLI 2.1.330 produced (tests/data/transcripts) decodes to a typed class,
with nothing unknown to the strict checker, and encodes back to exactly the same dict."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from claude_sdk import wire
from claude_sdk.control import (
    ControlError,
    ControlRequest,
    ControlResponse,
    ControlSuccess,
    UnknownControlRequest,
)
from claude_sdk.messages import SystemMessage, UnknownMessage

from ..transcripts import Record, check_every_frame, records, wire_logs

ALL = list(records())

# Lines the recordings wrote on purpose to show how the CLI treats unknown input.
DELIBERATELY_UNKNOWN = {"bogus_type"}
DELIBERATELY_UNKNOWN_SUBTYPES = {"no_such_subtype"}


def test_transcripts_are_present() -> None:
    assert len(wire_logs()) == 24
    assert len(ALL) > 300


def _decodes_typed_with_no_drift(rec: Record) -> None:
    line = json.dumps(rec.msg).encode()
    if rec.msg.get("type") in DELIBERATELY_UNKNOWN:
        frame = wire.decode(line)
        assert isinstance(frame, UnknownMessage)
        assert frame.raw == rec.msg
        return
    if rec.msg.get("request", {}).get("subtype") in DELIBERATELY_UNKNOWN_SUBTYPES:
        frame = wire.decode(line)
        assert isinstance(frame, ControlRequest)
        assert isinstance(frame.request, UnknownControlRequest)
        assert frame.subtype in DELIBERATELY_UNKNOWN_SUBTYPES
        return
    frame = wire.decode(line, strict=True)
    assert not isinstance(frame, UnknownMessage)
    if isinstance(frame, ControlRequest):
        assert not isinstance(frame.request, UnknownControlRequest), frame.request
    if isinstance(frame, SystemMessage):
        # every system subtype in the recordings has its own class
        assert type(frame) is not SystemMessage, frame.subtype


def _round_trips_exactly(rec: Record) -> None:
    frame = wire.decode(json.dumps(rec.msg))
    assert wire.to_dict(frame) == rec.msg
    assert json.loads(wire.encode(frame)) == rec.msg
    assert frame.raw == rec.msg


# One test per recording file; each checks every frame and names the frame that failed.
@pytest.mark.parametrize("path", wire_logs(), ids=lambda p: p.stem)
def test_frames_decode_typed_with_no_drift(path: Path) -> None:
    check_every_frame(records(path), _decodes_typed_with_no_drift)


@pytest.mark.parametrize("path", wire_logs(), ids=lambda p: p.stem)
def test_frames_round_trip_exactly(path: Path) -> None:
    check_every_frame(records(path), _round_trips_exactly)


def _responses() -> list[tuple[str, str, dict[str, object]]]:
    """(id, request subtype, success body) for every answered request in the recordings."""
    out: list[tuple[str, str, dict[str, object]]] = []
    for path in wire_logs():
        pending: dict[str, str] = {}
        for rec in records(path):
            msg = rec.msg
            if msg.get("type") == "control_request":
                pending[msg["request_id"]] = msg["request"]["subtype"]
            elif msg.get("type") == "control_response":
                resp = msg["response"]
                subtype = pending.get(resp["request_id"])
                if subtype is not None and resp["subtype"] == "success":
                    out.append((rec.id, subtype, resp.get("response") or {}))
    return out


RESPONSES = _responses()


def test_every_kind_of_answer_is_recorded() -> None:
    kinds = Counter(subtype for _, subtype, _ in RESPONSES)
    for subtype in (
        "initialize",
        "interrupt",
        "set_model",
        "set_permission_mode",
        "can_use_tool",
        "hook_callback",
        "mcp_message",
        "mcp_status",
        "get_context_usage",
    ):
        assert kinds[subtype] > 0, subtype


@pytest.mark.parametrize(("rid", "subtype", "body"), RESPONSES, ids=[r[0] for r in RESPONSES])
def test_response_bodies_decode_typed(rid: str, subtype: str, body: dict[str, object]) -> None:
    typed = wire.decode_response(subtype, body)
    assert wire.drift(typed) == []
    assert wire.to_dict(typed) == body


def test_initialize_response_is_typed() -> None:
    body = next(b for _, s, b in RESPONSES if s == "initialize")
    init = wire.decode_response("initialize", body)
    assert init.claude_code_version == "2.1.330"
    assert init.account is not None
    assert init.account.api_key_source == "ANTHROPIC_API_KEY"
    assert init.models
    assert all(m.value for m in init.models)
    assert init.commands
    assert init.commands[0].name


def test_error_response_keeps_error_code() -> None:
    errors = [
        wire.decode(json.dumps(r.msg))
        for r in ALL
        if r.msg.get("type") == "control_response" and r.msg["response"]["subtype"] == "error"
    ]
    codes = {
        f.response.error_code
        for f in errors
        if isinstance(f, ControlResponse) and isinstance(f.response, ControlError)
    }
    assert {"unsupported_request", "invalid_mode"} <= codes
    assert all(f.is_error for f in errors if isinstance(f, ControlResponse))
    ok = [
        f for f in (wire.decode(json.dumps(r.msg)) for r in ALL) if isinstance(f, ControlResponse)
    ]
    assert any(isinstance(f.response, ControlSuccess) for f in ok)


def test_a_failing_frame_is_named() -> None:
    """The per-file checks report which frame failed, not only which file."""
    path = wire_logs()[0]
    recs = list(records(path))
    bad = recs[len(recs) // 2]

    def check(rec: Record) -> None:
        assert rec is not bad, "this one"

    with pytest.raises(AssertionError) as info:
        check_every_frame(recs, check)
    assert f"frame {bad.id} " in str(info.value)
    assert f"1 of {len(recs)} frames failed" in str(info.value)
