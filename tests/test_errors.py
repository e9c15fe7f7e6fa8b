"""Tests for the error family: facts, messages, pickling and result classification."""

from __future__ import annotations

import pickle
import signal
from types import SimpleNamespace
from typing import Any

import pytest

from claude_sdk.errors import (
    ClaudeSDKError,
    CLINotFoundError,
    ControlRequestError,
    ControlTimeoutError,
    InactivityTimeoutError,
    InitializeTimeoutError,
    LineTooLongError,
    MessageDecodeError,
    OptionsError,
    ProcessError,
    ResultError,
    SessionClosedError,
    SessionNotFoundError,
    SessionStoreError,
    classify_result,
)


def result(**fields: Any) -> Any:
    """A stand-in for ``ResultMessage`` with only the given attributes."""
    return SimpleNamespace(**fields)


ABORTED = result(
    subtype="error_during_execution",
    is_error=True,
    terminal_reason="aborted_streaming",
    errors=[],
    result=None,
)

INSTANCES: list[ClaudeSDKError] = [
    ClaudeSDKError(),
    ClaudeSDKError("plain", kind="custom"),
    CLINotFoundError(searched=("option cli_path: /x/claude (not found)", "PATH: (not found)")),
    CLINotFoundError("custom", searched=["a"], hint="install it"),
    ProcessError(exit_code=3, stderr_tail="boom\n", cli_path="/usr/bin/claude"),
    ProcessError(signal=9, stderr_tail=""),
    ProcessError("could not exec", kind="spawn", cli_path="/x"),
    MessageDecodeError(line=b'{"type": \xff', reason="invalid UTF-8"),
    LineTooLongError(limit=10, size=11),
    ControlTimeoutError(subtype="interrupt", timeout=2.5, request_id="req_1"),
    InitializeTimeoutError(timeout=60.0),
    InactivityTimeoutError(timeout=30.0, last_activity=1234.5),
    ControlRequestError(
        subtype="set_model", error="unknown model", error_code="invalid", request_id="req_2"
    ),
    SessionClosedError(),
    SessionClosedError(cause="CLI stdout reached EOF"),
    SessionNotFoundError(session_id="0b5c"),
    ResultError(result=ABORTED),
    ResultError("explicit", result=result(subtype="success", is_error=True), kind="auth"),
]


@pytest.mark.parametrize("error", INSTANCES, ids=lambda e: type(e).__name__)
def test_pickle_round_trip(error: ClaudeSDKError) -> None:
    # Extra instance attributes (notes, user additions) survive too.
    vars(error)["__notes__"] = ["a note"]
    vars(error)["extra"] = 42
    clone = pickle.loads(pickle.dumps(error))
    assert type(clone) is type(error)
    assert vars(clone) == vars(error)
    assert clone.args == error.args
    assert str(clone) == str(error)
    assert repr(clone) == repr(error)


@pytest.mark.parametrize("error", INSTANCES, ids=lambda e: type(e).__name__)
def test_common_contract(error: ClaudeSDKError) -> None:
    assert isinstance(error, ClaudeSDKError)
    assert str(error)
    assert repr(error).startswith(type(error).__name__ + "(")
    assert error.args == (error.message,)


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (ClaudeSDKError(), None),
        (CLINotFoundError(), "cli_not_found"),
        (ProcessError(exit_code=1), "process"),
        (ProcessError(kind="spawn"), "spawn"),
        (MessageDecodeError(line=b"x", reason="r"), "decode"),
        (LineTooLongError(limit=1, size=2), "line_too_long"),
        (ControlTimeoutError(subtype="x", timeout=1), "timeout"),
        (InitializeTimeoutError(timeout=1), "timeout"),
        (InactivityTimeoutError(timeout=1), "timeout"),
        (ControlRequestError(subtype="x", error="e"), "control"),
        (SessionClosedError(), "session_closed"),
        (SessionNotFoundError(session_id="s"), "session_not_found"),
        (ResultError(result=ABORTED), "aborted"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_default_kind(error: ClaudeSDKError, kind: str | None) -> None:
    assert error.kind == kind


def test_timeouts_are_timeout_errors() -> None:
    for error in (
        ControlTimeoutError(subtype="interrupt", timeout=1),
        InitializeTimeoutError(timeout=1),
        InactivityTimeoutError(timeout=1),
    ):
        assert isinstance(error, TimeoutError)
        assert isinstance(error, ClaudeSDKError)
    init = InitializeTimeoutError(timeout=60)
    assert isinstance(init, ControlTimeoutError)
    assert init.subtype == "initialize"
    assert "initialize" in str(init)
    assert "60" in str(init)
    with pytest.raises(TimeoutError):
        raise ControlTimeoutError(subtype="interrupt", timeout=1)


def test_cli_not_found_lists_every_place_and_hint() -> None:
    places = ("option cli_path: /x/claude (not found)", "PATH: claude (not found)", "~/.claude")
    error = CLINotFoundError(searched=list(places), hint="npm install it")
    assert error.searched == places
    text = str(error)
    positions = [text.index(place) for place in places]
    assert positions == sorted(positions)
    assert "npm install it" in text
    assert "Options.cli_path" in str(CLINotFoundError())


def test_process_error_exit_code_and_stderr() -> None:
    error = ProcessError(exit_code=3, stderr_tail="warming up\nboom: it broke\n", cli_path="/c")
    text = str(error)
    assert "exit code 3" in text
    assert "boom: it broke" in text
    assert "/c" in text
    assert error.signal is None


def test_process_error_signal_name() -> None:
    error = ProcessError(signal=int(signal.SIGKILL))
    assert error.exit_code is None
    assert "SIGKILL" in str(error)
    assert "signal 999" in str(ProcessError(signal=999))


def test_process_error_shows_last_stderr_lines_only() -> None:
    tail = "\n".join(f"line {i}" for i in range(100))
    error = ProcessError(exit_code=1, stderr_tail=tail)
    text = str(error)
    assert "line 99" in text
    assert "line 0\n" not in text
    assert error.stderr_tail == tail


def test_explicit_message_keeps_facts() -> None:
    error = ProcessError("the CLI went away", exit_code=7, stderr_tail="oops")
    assert error.message == "the CLI went away"
    text = str(error)
    assert text.startswith("the CLI went away")
    assert "exit code 7" in text
    assert "oops" in text
    code = ControlRequestError("nope", subtype="mcp_call", error="denied", error_code="E42")
    assert "E42" in str(code)
    assert "denied" in str(code)
    too_long = LineTooLongError("big line", limit=5, size=9)
    assert "5" in str(too_long)
    assert "9" in str(too_long)


def test_message_decode_error_keeps_whole_line_shows_prefix() -> None:
    line = b'{"type":"' + b"q" * 10_000 + b'"'
    error = MessageDecodeError(line=line, reason="unterminated string")
    assert error.line == line
    text = str(error)
    assert "unterminated string" in text
    assert text.count("q") <= 200
    assert "10010 bytes" in text


def test_line_too_long_names_limit_size_and_option() -> None:
    text = str(LineTooLongError(limit=1048576, size=1048577))
    assert "1048576" in text
    assert "1048577" in text
    assert "Options.max_line_bytes" in text


def test_control_request_error_facts() -> None:
    error = ControlRequestError(
        subtype="set_permission_mode", error="bad mode", error_code="invalid_mode", request_id="r"
    )
    text = str(error)
    assert "set_permission_mode" in text
    assert "bad mode" in text
    assert "invalid_mode" in text
    assert error.request_id == "r"


def test_control_timeout_facts() -> None:
    error = ControlTimeoutError(subtype="interrupt", timeout=2.5, request_id="req_9")
    assert (error.subtype, error.timeout, error.request_id) == ("interrupt", 2.5, "req_9")
    assert "interrupt" in str(error)
    assert "2.5" in str(error)


def test_session_errors() -> None:
    assert "0b5c" in str(SessionNotFoundError(session_id="0b5c"))
    closed = SessionClosedError(cause="CLI stdout reached EOF")
    assert closed.cause == "CLI stdout reached EOF"
    assert "EOF" in str(closed)


@pytest.mark.parametrize(
    ("stand_in", "expected"),
    [
        (
            result(subtype="error_max_turns", is_error=True, terminal_reason="max_turns"),
            "max_turns",
        ),
        (result(subtype="error_max_budget_usd", is_error=True), "budget"),
        (result(subtype="error_max_structured_output_retries", is_error=True), "structured_output"),
        (result(subtype="success", is_error=True, api_error_status=401), "auth"),
        (result(subtype="success", is_error=True, api_error_status=403), "auth"),
        (result(subtype="success", is_error=True, api_error_status=429), "rate_limit"),
        (result(subtype="success", is_error=True, api_error_status=529), "overloaded"),
        (result(subtype="success", is_error=True, api_error_status=413), "context_length"),
        (
            result(
                subtype="success", is_error=True, api_error_status=400, terminal_reason="api_error"
            ),
            "api_error",
        ),
        (result(subtype="success", is_error=True, api_error_status=500), "api_error"),
        (
            result(
                subtype="success",
                is_error=True,
                api_error_status=None,
                terminal_reason="api_error",
                result="Not logged in · Please run /login",
            ),
            "auth",
        ),
        (
            result(subtype="success", is_error=True, terminal_reason="prompt_too_long"),
            "context_length",
        ),
        (
            result(
                subtype="success",
                is_error=True,
                api_error_status=400,
                terminal_reason="prompt_too_long",
            ),
            "context_length",
        ),
        (result(subtype="error_during_execution", terminal_reason="aborted_streaming"), "aborted"),
        (result(subtype="error_during_execution", terminal_reason="aborted_tools"), "aborted"),
        (result(subtype="error_during_execution", terminal_reason="max_turns"), "max_turns"),
        (result(subtype="error_during_execution", terminal_reason="budget_exhausted"), "budget"),
        (result(subtype="success", is_error=True, terminal_reason="api_error"), "api_error"),
        (result(subtype="success", is_error=True), "api_error"),
        (result(subtype="error_during_execution", is_error=True, errors=["x"]), "error"),
        (result(subtype="error_during_execution", terminal_reason="hook_stopped"), "error"),
        (result(api_error_status=True), "error"),
        (result(), "error"),
    ],
)
def test_classify_result(stand_in: Any, expected: str) -> None:
    assert classify_result(stand_in) == expected
    assert ResultError(result=stand_in).kind == expected


def test_classify_result_ignores_wrong_types() -> None:
    odd = result(subtype=3, api_error_status="429", terminal_reason=["max_turns"], result=5)
    assert classify_result(odd) == "error"
    assert classify_result(object()) == "error"


def test_result_error_message_without_errors_or_text() -> None:
    error = ResultError(result=ABORTED)
    assert error.result is ABORTED
    text = str(error)
    assert "error_during_execution" in text
    assert "terminal_reason=aborted_streaming" in text


def test_result_error_message_carries_result_text_and_errors() -> None:
    api = ResultError(
        result=result(
            subtype="success",
            is_error=True,
            api_error_status=529,
            terminal_reason="api_error",
            result="API Error: 529 Overloaded",
        )
    )
    assert api.kind == "overloaded"
    assert "API Error: 529 Overloaded" in str(api)
    assert "529" in str(api)
    turns = ResultError(
        result=result(subtype="error_max_turns", errors=["Reached maximum number of turns (1)"])
    )
    assert "Reached maximum number of turns (1)" in str(turns)


def test_result_error_explicit_kind_and_message() -> None:
    error = ResultError("turn failed", result=ABORTED, kind="custom")
    assert error.kind == "custom"
    assert str(error).startswith("turn failed")
    assert "custom" in str(error)


# ======================================================================================
# retryable: what an engine's retry policy reads


def _api_error(status: int | None, text: str = "API Error") -> Any:
    return result(
        subtype="success",
        is_error=True,
        api_error_status=status,
        terminal_reason=None,
        errors=[],
        result=text,
    )


@pytest.mark.parametrize(
    ("error", "retryable"),
    [
        (ResultError(result=_api_error(429)), True),
        (ResultError(result=_api_error(529)), True),
        (ResultError(result=_api_error(500)), True),
        (ResultError(result=_api_error(503)), True),
        (ResultError(result=_api_error(None, "API Error: Connection error.")), True),
        (ResultError(result=_api_error(400)), False),
        (ResultError(result=_api_error(401)), False),
        (ResultError(result=_api_error(403)), False),
        (ResultError(result=_api_error(413)), False),
        (ResultError(result=_api_error(None, "Not logged in · Please run /login")), False),
        (ResultError(result=ABORTED), False),
        (ResultError(result=result(subtype="error_max_turns", is_error=True)), False),
        (ProcessError(signal=9), True),
        (ProcessError(exit_code=1, stderr_tail="TypeError: boom"), True),
        (ProcessError(exit_code=1, stderr_tail="Invalid API key · Please run /login"), False),
        (ProcessError(kind="spawn"), False),
        (ProcessError(kind="container_not_found"), False),
        (ProcessError(kind="container_unreachable"), True),
        (ProcessError(kind="timeout"), True),
        (CLINotFoundError(), False),
        (OptionsError("bad"), False),
        (SessionNotFoundError(session_id="x"), False),
        (SessionClosedError(cause="CLI stdout reached EOF"), True),
        (ControlTimeoutError(subtype="interrupt", timeout=1.0), True),
        (InactivityTimeoutError(timeout=1.0), True),
        (LineTooLongError(limit=10, size=11), False),
        (MessageDecodeError(line=b"{", reason="bad"), False),
        (SessionStoreError(operation="append", key={"session_id": "s"}, entries=3), True),
        (ClaudeSDKError("something"), False),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else str(v),
)
def test_retryable(error: ClaudeSDKError, retryable: bool) -> None:
    assert error.retryable is retryable
    assert pickle.loads(pickle.dumps(error)).retryable is retryable
