"""The sans-IO protocol object, fed lines directly (issue 14).

No event loop, no process: lines in, events and bytes out. The last part is a hypothesis
state machine over random interleavings of CLI frames (well-formed, malformed, hostile) and
host actions, fed through the line splitter in arbitrary chunks, with the invariants of the
protocol checked after every step.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import orjson
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    precondition,
    rule,
)

from claude_sdk import control as c
from claude_sdk import wire
from claude_sdk._protocol.events import (
    ANSWERED,
    PENDING,
    WITHDRAWN,
    Answer,
    Ended,
    InboundRequest,
    Mirrored,
    StateChanged,
    StreamFailed,
    TurnEnded,
    Withdrawn,
)
from claude_sdk._protocol.framing import LineSplitter
from claude_sdk._protocol.protocol import Protocol
from claude_sdk._protocol.turns import END, Claim
from claude_sdk.errors import (
    ClaudeSDKError,
    ControlRequestError,
    LineTooLongError,
    MessageDecodeError,
    ProcessError,
    PromptWithdrawnError,
    SessionClosedError,
)
from claude_sdk.messages import (
    AssistantMessage,
    InitMessage,
    ResultMessage,
    SessionStateChangedMessage,
    TranscriptMirrorMessage,
    UserMessage,
)
from claude_sdk.permissions import PermissionAllow

from ..support.deep import deep, deep_steps

JSON = dict[str, Any]


def line(frame: JSON) -> bytes:
    """A frame as the CLI writes it (compact, keys in the order given)."""
    return orjson.dumps(frame)


def assistant(text: str = "hi") -> bytes:
    return line(
        {
            "type": "assistant",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [{"type": "text", "text": text}],
            },
            "parent_tool_use_id": None,
            "session_id": "s",
        }
    )


def result(**fields: Any) -> bytes:
    frame: JSON = {"type": "result", "subtype": "success", "is_error": False, "session_id": "s"}
    frame.update(fields)
    return line(frame)


def can_use_tool(request_id: Any, tool: str = "Bash") -> bytes:
    return line(
        {
            "type": "control_request",
            "request_id": request_id,
            "request": {"subtype": "can_use_tool", "tool_name": tool, "input": {"command": "ls"}},
        }
    )


def cancel(request_id: Any) -> bytes:
    return line({"type": "control_cancel_request", "request_id": request_id})


def success(request_id: Any, body: Any = None) -> bytes:
    response: JSON = {"subtype": "success", "request_id": request_id}
    if body is not None:
        response["response"] = body
    return line({"type": "control_response", "response": response})


def error(request_id: Any, message: str = "no", code: str | None = None) -> bytes:
    response: JSON = {"subtype": "error", "request_id": request_id, "error": message}
    if code is not None:
        response["error_code"] = code
    return line({"type": "control_response", "response": response})


def state(value: str) -> bytes:
    return line({"type": "system", "subtype": "session_state_changed", "state": value})


def drain(p: Protocol) -> list[Any]:
    """The consumer's view: every queued message, decoded."""
    out = []
    while p.messages:
        item = p.messages.popleft()
        if item.__class__ is bytes:
            try:
                item = p.decode_message(item)
            except MessageDecodeError as exc:
                p.skip_line(exc)
                continue
        out.append(item)
    return out


# ======================================================================================
# Messages


def test_messages_are_queued_in_order_and_message_lines_decoded_by_the_consumer() -> None:
    p = Protocol()
    events = p.receive_lines([assistant("a"), state("running"), assistant("b"), result()])
    assert [type(e) for e in events] == [StateChanged, TurnEnded]
    assert p.messages[0].__class__ is bytes  # left for the consumer
    got = drain(p)
    assert [type(m) for m in got] == [
        AssistantMessage,
        SessionStateChangedMessage,
        AssistantMessage,
        ResultMessage,
    ]
    assert [m.text for m in got if isinstance(m, AssistantMessage)] == ["a", "b"]


def test_a_batch_of_message_lines_only_makes_no_event() -> None:
    p = Protocol()
    assert list(p.receive_lines([assistant("x")] * 50)) == []
    assert len(p.messages) == 50


def test_without_deferral_every_message_is_decoded_on_arrival() -> None:
    p = Protocol(defer_messages=False)
    p.receive_lines([assistant("x")])
    assert isinstance(p.messages[0], AssistantMessage)


def test_init_gives_the_session_id() -> None:
    p = Protocol()
    p.receive_lines([line({"type": "system", "subtype": "init", "session_id": "abc"})])
    assert p.session_id == "abc"
    assert isinstance(drain(p)[0], InitMessage)


@pytest.mark.parametrize(
    "bad",
    [
        b"not json",
        b"[1, 2]",
        b'{"type": "user", "x": NaN}',
        b'{"type": "user", "x": ' + b"[" * 3000 + b"]" * 3000 + b"}",
        b'{"type": ' + b"[" * 1010 + b"]" * 1010 + b"}",
        b'{"type":"user","message":' + b'{"a":' * 1200 + b"1" + b"}" * 1200 + b"}",
    ],
    ids=["not-json", "array", "nan", "deep-3000", "deep-tag-1010", "deep-objects-1200"],
)
def test_a_line_that_is_not_a_frame_is_skipped_and_the_stream_goes_on(bad: bytes) -> None:
    p = Protocol()
    events = p.receive_lines([bad, result()])
    got = drain(p)
    assert [type(e) for e in events] == [TurnEnded]
    assert [type(m) for m in got] == [ResultMessage]
    assert p.lines_undecodable == 1


@pytest.mark.parametrize(("depth", "kept"), [(500, True), (501, False), (1000, False)])
@pytest.mark.parametrize("compact", [True, False], ids=["consumer-path", "reader-path"])
def test_the_depth_limit_is_the_same_on_every_path(depth: int, kept: bool, compact: bool) -> None:
    """500 levels in all are read; deeper is a skipped line, on the path of the lines the
    consumer decodes and on the reader's alike (and 1,000 levels or more always is)."""
    p = Protocol()
    head = b'{"type":"assistant",' if compact else b'{"type": "assistant", '
    frame = head + b'"message":{"id":"m","type":"message","role":"assistant","model":"x",'
    frame += b'"content":[]},"deep":' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"
    p.receive_lines([frame, result()])
    got = drain(p)
    assert [type(m) for m in got] == ([AssistantMessage] if kept else []) + [ResultMessage]
    assert p.lines_undecodable == (0 if kept else 1)
    if kept:
        assert wire.decode(wire.encode(got[0])) == got[0]  # and it encodes back


def test_a_result_that_does_not_fit_still_ends_its_turn() -> None:
    p = Protocol()
    p.send_prompt(UserMessage.prompt("hi"))
    bad = line(
        {
            "type": "result",
            "modelUsage": {"m": "not an object"},
            "usage": "a string",
            "permission_denials": [{}],
        }
    )
    events = p.receive_lines([bad])
    assert [type(e) for e in events] == [TurnEnded]
    got = drain(p)
    assert isinstance(got[0], ResultMessage)
    assert got[0].extra["usage"] == "a string"  # the raw value is kept
    assert got[0].decode_issues
    assert not p.turn_open
    assert p.idle


def test_invalid_utf8_keeps_the_message_with_replacement_and_a_flag() -> None:
    p = Protocol()
    bad = assistant("caf\u00e9").replace("é".encode(), b"\xc3")
    p.receive_lines([bad])
    (message,) = drain(p)
    assert isinstance(message, AssistantMessage)
    assert message.text == "caf\ufffd"
    assert any("UTF-8" in issue for issue in message.decode_issues)


@pytest.mark.parametrize("text", [None, 3, ["x"]])
def test_assistant_text_copes_with_a_text_block_that_is_not_a_string(text: Any) -> None:
    p = Protocol()
    frame = json.loads(assistant())
    frame["message"]["content"] = [
        {"type": "text", "text": text},
        {"type": "text", "text": "ok"},
    ]
    p.receive_lines([line(frame)])
    (message,) = drain(p)
    assert message.text == "ok"


def test_a_second_type_key_cannot_change_the_kind_of_a_routed_line() -> None:
    """A message line routed to the consumer by its first ``type`` key that decodes as a
    result (JSON parsers keep the last key) is refused, and so is the same trick on a line the
    reader decodes: the protocol's accounting and the consumer's view agree."""
    p = Protocol()
    sneaky_result = b'{"type":"user","message":{"role":"user","content":"x"},"type":"result"'
    sneaky_result += b',"subtype":"success","is_error":false}'
    sneaky_request = b'{"type":"result","subtype":"success","type":"control_request",'
    sneaky_request += b'"request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"B",'
    sneaky_request += b'"input":{}}}'
    events = p.receive_lines([sneaky_result, sneaky_request, result()])
    assert [type(e) for e in events] == [TurnEnded]
    assert [type(m) for m in drain(p)] == [ResultMessage]
    assert p.results == 1
    assert p.lines_undecodable == 2


# ======================================================================================
# The CLI's requests


def test_a_request_is_answered_once_through_the_model() -> None:
    p = Protocol()
    (record,) = p.receive_lines([can_use_tool("r1")])
    assert isinstance(record, InboundRequest)
    assert record.subtype == "can_use_tool"
    assert record.state == PENDING
    assert p.inbound_pending == ["r1"]
    out = p.answer(record, PermissionAllow(updated_input={"command": "ls"}))
    assert out is not None
    frame = wire.decode(out, strict=True)
    assert isinstance(frame, c.ControlResponse)
    assert isinstance(frame.response, c.ControlSuccess)
    assert frame.response.request_id == "r1"
    assert frame.response.response == {"behavior": "allow", "updatedInput": {"command": "ls"}}
    assert record.state == ANSWERED
    assert p.answer(record, PermissionAllow()) is None  # never twice
    assert p.reject(record, "late") is None
    assert p.inbound_pending == []


def test_a_rejection_carries_its_code() -> None:
    p = Protocol()
    (record,) = p.receive_lines([can_use_tool("r1")])
    out = p.reject(record, "nope", "unsupported_request")
    assert out is not None
    assert json.loads(out)["response"] == {
        "subtype": "error",
        "request_id": "r1",
        "error": "nope",
        "error_code": "unsupported_request",
    }


def test_a_withdrawn_request_is_never_answered() -> None:
    p = Protocol()
    (record,) = p.receive_lines([can_use_tool("r1")])
    (withdrawn,) = p.receive_lines([cancel("r1")])
    assert isinstance(withdrawn, Withdrawn)
    assert withdrawn.request is record
    assert record.state == WITHDRAWN
    assert p.answer(record, PermissionAllow()) is None
    assert list(p.receive_lines([cancel("r1"), cancel("unknown")])) == []


@pytest.mark.parametrize("bad_id", [["r"], {"id": 1}, 7, 1.5, None, True])
def test_a_request_id_that_is_not_a_string_is_logged_and_ignored(
    bad_id: Any, caplog: pytest.LogCaptureFixture
) -> None:
    p = Protocol()
    rid, _ = p.send_request(c.InterruptRequest())
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        events = p.receive_lines(
            [can_use_tool(bad_id), cancel(bad_id), success(bad_id), error(bad_id), result()]
        )
    assert [type(e) for e in events] == [TurnEnded]
    assert p.inbound_pending == []
    assert p.pending_requests == [rid]
    assert sum("request_id" in r.getMessage() for r in caplog.records) == 4


def test_a_duplicate_pending_request_is_ignored() -> None:
    p = Protocol()
    (record,) = p.receive_lines([can_use_tool("r1")])
    assert list(p.receive_lines([can_use_tool("r1")])) == []
    p.answer(record, PermissionAllow())
    (again,) = p.receive_lines([can_use_tool("r1")])  # answered: a new request may reuse it
    assert again is not record


def test_a_request_whose_payload_does_not_fit_is_still_a_request() -> None:
    p = Protocol()
    bad = line({"type": "control_request", "request_id": "r9", "request": "not an object"})
    (record,) = p.receive_lines([bad])
    assert isinstance(record, InboundRequest)
    assert isinstance(record.request, c.UnknownControlRequest)
    assert p.reject(record, "unsupported") is not None


# ======================================================================================
# The host's requests


def test_a_request_is_resolved_once_by_its_typed_answer() -> None:
    p = Protocol()
    rid, out = p.send_request(c.InterruptRequest(cancel_queued=True))
    assert json.loads(out) == {
        "type": "control_request",
        "request_id": rid,
        "request": {"subtype": "interrupt", "cancel_queued": True},
    }
    assert p.pending_requests == [rid]
    (answer,) = p.receive_lines([success(rid, {"still_queued": []})])
    assert isinstance(answer, Answer)
    assert answer.error is None
    assert isinstance(answer.value, c.InterruptResponse)
    assert list(p.receive_lines([success(rid, {"still_queued": []})])) == []  # a replayed echo
    assert p.pending_requests == []


def test_answers_of_each_kind() -> None:
    p = Protocol()
    none_rid, _ = p.send_request(c.McpReconnectRequest(server_name="x"))
    dict_rid, _ = p.send_request(c.GetSettingsRequest())
    err_rid, _ = p.send_request(c.SetModelRequest(model="m"))
    misfit_rid, _ = p.send_request(c.RewindFilesRequest(user_message_id="u"))
    events = p.receive_lines(
        [
            success(none_rid, {"whatever": 1}),
            success(dict_rid, {"effective": {}}),
            error(err_rid, "bad model", "invalid_model"),
            success(misfit_rid, {"canRewind": "not a bool", "filesChanged": "x"}),
        ]
    )
    by_id = {e.request_id: e for e in events}
    assert by_id[none_rid].value is None
    assert by_id[none_rid].error is None
    assert by_id[dict_rid].value == {"effective": {}}
    err = by_id[err_rid].error
    assert isinstance(err, ControlRequestError)
    assert (err.error_code, err.subtype) == ("invalid_model", "set_model")
    # The decoder does not validate scalars: a misfit is an object where one is needed.
    bad_rid, _ = p.send_request(c.ReadFileRequest(path="x"))
    (bad,) = p.receive_lines([success(bad_rid, {"contents": {"no": 1}, "truncated": 1})])
    assert bad.error is None or isinstance(bad.error, MessageDecodeError)
    not_object_rid, _ = p.send_request(c.ReadFileRequest(path="x"))
    (not_object,) = p.receive_lines([success(not_object_rid, "a string body")])
    assert isinstance(not_object.error, MessageDecodeError)


def test_an_abandoned_request_ignores_its_late_answer() -> None:
    p = Protocol()
    rid, _ = p.send_request(c.GetUsageRequest())
    p.abandon(rid)
    assert list(p.receive_lines([success(rid, {})])) == []


def test_an_unknown_response_envelope_fails_its_request() -> None:
    p = Protocol()
    rid, _ = p.send_request(c.GetUsageRequest())
    weird = line({"type": "control_response", "response": {"subtype": "maybe", "request_id": rid}})
    (answer,) = p.receive_lines([weird])
    assert isinstance(answer.error, ControlRequestError)


# ======================================================================================
# Turns


def _facts(p: Protocol) -> tuple[bool, bool]:
    return p.turn_open, p.idle  # read through a call: mypy narrows asserted properties


def test_turn_accounting_and_idle() -> None:
    p = Protocol()
    assert _facts(p) == (False, True)
    p.send_prompt(UserMessage.prompt("a"))
    p.send_prompt(UserMessage.prompt("b"))
    assert _facts(p) == (True, False)
    p.receive_lines([state("running"), result()])
    assert _facts(p) == (True, False)
    p.receive_lines([result()])
    assert _facts(p) == (False, False)  # the CLI still reports work
    p.receive_lines([state("idle")])
    assert _facts(p) == (False, True)


def prompt_uuid(out: bytes) -> str:
    uid: str = json.loads(out)["uuid"]
    return uid


def lifecycle(command: str, value: str) -> bytes:
    return line({"type": "command_lifecycle", "command_uuid": command, "state": value})


def test_every_prompt_carries_a_uuid_and_a_given_one_is_kept() -> None:
    p = Protocol()
    made = prompt_uuid(p.send_prompt(UserMessage.prompt("a")))
    assert len(made) == 36
    given = prompt_uuid(p.send_prompt(UserMessage.prompt("b", uuid="mine")))
    assert given == "mine"
    assert p.open_prompts == [made, "mine"]


def test_prompts_withdrawn_by_an_interrupt_expect_no_result() -> None:
    """CLI 2.1.330 with ``cancel_queued``: one (aborted) result for the running prompt, and
    the queued ones named in the answer's ``cancelled`` (tests/e2e: the same, for real)."""
    p = Protocol()
    first, second, third = (prompt_uuid(p.send_prompt(UserMessage.prompt(t))) for t in "abc")
    rid, _ = p.send_request(c.InterruptRequest(cancel_queued=True))
    p.receive_lines([success(rid, {"still_queued": [], "cancelled": [second, third, "other"]})])
    assert p.open_prompts == [first]
    assert p.prompts_cancelled == 2
    p.receive_lines([result(user_message_uuids=[first], is_error=True), state("idle")])
    assert p.idle


def test_one_turn_may_answer_several_queued_prompts() -> None:
    p = Protocol()
    first, second, third = (prompt_uuid(p.send_prompt(UserMessage.prompt(t))) for t in "abc")
    p.receive_lines([result(user_message_uuids=[first])])
    p.receive_lines([result(user_message_uuids=[second, third]), state("idle")])
    assert p.idle
    assert p.results == 2


def test_a_turn_of_the_cli_own_settles_no_prompt() -> None:
    """A task notification's turn ends with a result that names none of our prompts."""
    p = Protocol()
    mine = prompt_uuid(p.send_prompt(UserMessage.prompt("a")))
    p.receive_lines([lifecycle(mine, "queued"), result(), state("idle")])
    assert p.open_prompts == [mine]
    assert not p.idle
    p.receive_lines([result(user_message_uuid=mine)])
    assert p.idle


def test_a_cli_that_never_names_prompts_settles_one_per_result() -> None:
    p = Protocol()
    for text in "ab":
        p.send_prompt(UserMessage.prompt(text))
    p.receive_lines([result()])
    assert len(p.open_prompts) == 1
    p.receive_lines([result()])
    assert p.idle


def test_lifecycle_frames_of_made_uuids_are_bookkeeping() -> None:
    p = Protocol()
    made = prompt_uuid(p.send_prompt(UserMessage.prompt("a")))
    p.send_prompt(UserMessage.prompt("b", uuid="mine"))
    p.receive_lines(
        [
            lifecycle(made, "queued"),
            lifecycle("mine", "queued"),
            lifecycle(made, "completed"),
            lifecycle("mine", "cancelled"),
        ]
    )
    got = drain(p)
    assert [(m.command_uuid, m.state) for m in got] == [("mine", "queued"), ("mine", "cancelled")]
    assert p.idle
    assert p.prompts_cancelled == 1


def test_a_withdrawn_async_message_expects_no_result() -> None:
    p = Protocol()
    first = prompt_uuid(p.send_prompt(UserMessage.prompt("a")))
    p.send_prompt(UserMessage.prompt("b", uuid="u2"))
    rid, _ = p.send_request(c.CancelAsyncMessageRequest(message_uuid="u2"))
    p.receive_lines([success(rid, {"cancelled": True}), result(user_message_uuids=[first])])
    assert p.idle


def test_an_interrupt_naming_nothing_of_ours_settles_nothing() -> None:
    p = Protocol()
    p.send_prompt(UserMessage.prompt("a"))
    rid, _ = p.send_request(c.InterruptRequest(cancel_queued=True))
    p.receive_lines([success(rid, {"still_queued": [], "cancelled": ["x", "y", "z"]})])
    assert p.prompts_cancelled == 0
    assert p.turn_open


# ======================================================================================
# The end of the stream


def test_exit_non_zero_without_an_error_result_is_a_process_error() -> None:
    p = Protocol()
    rid, _ = p.send_request(c.GetUsageRequest())
    (record,) = p.receive_lines([can_use_tool("r1")])
    events = p.receive_eof(3, stderr_tail="boom", cli_path="/bin/claude")
    answer, ended = events
    assert isinstance(ended, Ended)
    assert isinstance(ended.error, ProcessError)
    assert (ended.error.exit_code, ended.error.stderr_tail) == (3, "boom")
    assert isinstance(answer, Answer)
    assert answer.request_id == rid
    assert answer.error is ended.error
    assert record.state == WITHDRAWN  # nobody can answer it any more
    assert p.answer(record, PermissionAllow()) is None
    assert list(p.receive_lines([result()])) == []
    assert p.receive_eof(0) == []


def test_a_signal_is_reported_as_such() -> None:
    p = Protocol()
    (ended,) = p.receive_eof(-9)
    assert isinstance(ended.error, ProcessError)
    assert ended.error.signal == 9


@pytest.mark.parametrize(
    ("setup", "code"),
    [
        ("error-result", 1),
        ("closing", 143),
        ("clean", 0),
        ("unknown", None),
    ],
)
def test_exits_that_are_not_failures(setup: str, code: int | None) -> None:
    p = Protocol()
    _rid, _ = p.send_request(c.GetUsageRequest())
    if setup == "error-result":
        p.receive_lines([result(is_error=True, subtype="error_during_execution")])
    elif setup == "closing":
        p.close()
    answer, ended = p.receive_eof(code)
    assert ended.error is None
    assert isinstance(answer.error, SessionClosedError)


def test_a_line_over_the_limit_ends_the_stream() -> None:
    p = Protocol()
    rid, _ = p.send_request(c.GetUsageRequest())
    too_long = LineTooLongError(limit=10, size=20)
    events = p.receive_lines([result(), too_long, result()])
    assert [type(e) for e in events] == [TurnEnded, StreamFailed]
    assert p.failure is too_long
    assert list(p.receive_lines([result()])) == []
    with pytest.raises(LineTooLongError):
        p.send_request(c.GetUsageRequest())
    with pytest.raises(LineTooLongError):
        p.send_prompt(UserMessage.prompt("x"))
    answer, ended = p.receive_eof(0)
    assert answer.request_id == rid
    assert answer.error is too_long
    assert ended.error is too_long


def test_nothing_is_sent_after_the_end_of_the_stream() -> None:
    p = Protocol()
    p.receive_eof(0)
    with pytest.raises(SessionClosedError):
        p.send_request(c.GetUsageRequest())
    with pytest.raises(SessionClosedError):
        p.send_prompt(UserMessage.prompt("x"))


# ======================================================================================
# The state machine


BAD_IDS = st.sampled_from([["x"], {"a": 1}, 3, None, 2.5, False])


class ProtocolMachine(RuleBasedStateMachine):
    """Random CLI frames and host actions; the protocol's invariants after every step.

    The CLI's side: messages, results (naming any of the host's prompts, none, ``[]``, a
    prompt answered already, several at once), turns of its own (task notifications,
    background completions), lifecycle frames, its requests and withdrawals, answers to the
    host's requests (an interrupt that withdraws queued prompts, ``cancel_async_message``),
    mirrored transcript lines, garbage, the end of the stream. The host's side: prompts,
    requests it may abandon, interrupt watches, answers to the CLI's requests, consumers of
    one turn (`Protocol.claim`, for the next prompt or a named one) and of every message,
    ``close``, ``fail`` and ``abort``.
    """

    inbound = Bundle("inbound")
    outbound = Bundle("outbound")
    prompts = Bundle("prompts")

    def __init__(self) -> None:
        super().__init__()
        self.p = Protocol()
        self.mirror = False
        self.splitter = LineSplitter(max_line_bytes=200_000)
        self.unsent = b""
        self.records: dict[str, list[InboundRequest]] = {}
        self.writes: dict[int, int] = {}  # id(record) -> answers written
        self.withdrawn: set[int] = set()
        self.requests: dict[str, int] = {}  # request id -> answers seen
        self.abandoned: set[str] = set()
        self.results_fed = 0
        self.sent_prompts: list[str] = []
        self.turn_ends = 0
        self.result_messages = 0
        self.counter = 0
        self.errors: list[logging.LogRecord] = []
        self.handler = _Collect(self.errors)
        logging.getLogger("claude_sdk").addHandler(self.handler)
        # The turns: which result settled which prompt (from `TurnEnded.settled`), the
        # prompts the CLI withdrew, the consumers' claims and how each ended.
        self.answered_by: dict[str, ResultMessage] = {}
        self.interrupts: set[str] = set()
        self.cancels: dict[str, str] = {}  # cancel_async_message request id -> prompt
        self.claims: list[Claim] = []
        self.targets: dict[int, str | None] = {}  # id(claim) -> the prompt asked for
        self.ended: list[tuple[Claim, str, Any]] = []  # (claim, how, what)
        self.watches: list[Any] = []
        self.mirrored = 0

    @initialize(mirror=st.booleans(), callbacks=st.booleans())
    def start(self, mirror: bool, callbacks: bool) -> None:
        self.p = Protocol(mirror=mirror, callbacks=callbacks)
        self.mirror = mirror

    def teardown(self) -> None:
        logging.getLogger("claude_sdk").removeHandler(self.handler)

    # -- feeding ---------------------------------------------------------------------------

    def _cli(self, data: bytes) -> None:
        self.unsent += data + b"\n"

    def _events(self, events: Any) -> None:
        for event in events:
            if isinstance(event, InboundRequest):
                self.records.setdefault(event.request_id, []).append(event)
                self.writes[id(event)] = 0
            elif isinstance(event, Withdrawn):
                assert event.request.state == WITHDRAWN
                self.withdrawn.add(id(event.request))
            elif isinstance(event, Answer):
                self.requests[event.request_id] += 1
            elif isinstance(event, TurnEnded):
                self.turn_ends += 1
                assert event.settled == event.result.settles
                assert event.own_turn == event.result.own_turn
                for prompt in event.settled:
                    # A prompt is answered by one result, once, and only a prompt sent.
                    assert prompt in self.sent_prompts
                    assert prompt not in self.answered_by
                    self.answered_by[prompt] = event.result
            elif isinstance(event, Mirrored):
                assert self.mirror
                self.mirrored += 1

    @rule(cut=st.integers(min_value=0, max_value=400))
    def flush(self, cut: int) -> None:
        """Feed what the CLI wrote so far, cut at an arbitrary byte."""
        data, self.unsent = self.unsent[:cut], self.unsent[cut:]
        lines = self.splitter.feed(data)
        if lines:
            self._events(self.p.receive_lines(lines))

    @rule()
    def flush_all(self) -> None:
        lines = self.splitter.feed(self.unsent)
        self.unsent = b""
        if lines:
            self._events(self.p.receive_lines(lines))

    # -- the CLI ----------------------------------------------------------------------------

    @precondition(lambda self: not self.p.ended)
    @rule(text=st.text(max_size=20))
    def cli_assistant(self, text: str) -> None:
        self._cli(assistant(text))

    @precondition(lambda self: not self.p.ended)
    @rule(misfit=st.sampled_from([None, "usage", "names"]), is_error=st.booleans())
    def cli_result(self, misfit: str | None, is_error: bool) -> None:
        if misfit == "usage":
            self._cli(line({"type": "result", "usage": "x", "modelUsage": {"m": 1}}))
        elif misfit == "names":
            self._cli(result(user_message_uuids=[1, None, {}], user_message_uuid=7))
        else:
            self._cli(result(is_error=is_error))
        self.results_fed += 1

    @precondition(lambda self: not self.p.ended)
    @rule(
        origin=st.sampled_from(
            [
                {"kind": "task-notification", "producer": "session-task"},
                {"kind": "scheduled"},
                None,
            ]
        ),
        empty=st.booleans(),
        background=st.booleans(),
    )
    def cli_own_turn(self, origin: JSON | None, empty: bool, background: bool) -> None:
        """A turn of the CLI's own: a background task ended (its notification first), or a
        wake-up; its result names no prompt (or ``[]``)."""
        if background:
            self._cli(
                line(
                    {
                        "type": "system",
                        "subtype": "task_notification",
                        "task_id": "b1",
                        "status": "completed",
                        "output_file": "",
                        "summary": "done",
                    }
                )
            )
        self._cli(assistant("own"))
        fields: JSON = {"result": "own"}
        if origin is not None:
            fields["origin"] = origin
        if empty:
            fields["user_message_uuids"] = []
        self._cli(result(**fields))
        self.results_fed += 1

    @precondition(lambda self: not self.p.ended and bool(self.answered_by))
    @rule(data=st.data())
    def cli_repeats_a_result(self, data: st.DataObject) -> None:
        """A result naming a prompt answered already: a repeat, nobody's turn."""
        prompt = data.draw(st.sampled_from(sorted(self.answered_by)))
        self._cli(result(user_message_uuids=[prompt], result="again"))
        self.results_fed += 1

    @precondition(lambda self: not self.p.ended)
    @rule(value=st.sampled_from(["running", "requires_action", "idle"]))
    def cli_state(self, value: str) -> None:
        self._cli(state(value))

    @precondition(lambda self: not self.p.ended)
    @rule(target=inbound)
    def cli_request(self) -> str:
        self.counter += 1
        request_id = f"cli-{self.counter}"
        self._cli(can_use_tool(request_id))
        return request_id

    @precondition(lambda self: not self.p.ended)
    @rule(request_id=inbound)
    def cli_repeats_a_request(self, request_id: str) -> None:
        self._cli(can_use_tool(request_id))

    @precondition(lambda self: not self.p.ended)
    @rule(request_id=inbound)
    def cli_withdraws(self, request_id: str) -> None:
        self._cli(cancel(request_id))

    @precondition(lambda self: not self.p.ended)
    @rule(bad_id=BAD_IDS)
    def cli_bad_ids(self, bad_id: Any) -> None:
        self._cli(can_use_tool(bad_id))
        self._cli(cancel(bad_id))
        self._cli(success(bad_id, {}))

    @precondition(lambda self: not self.p.ended)
    @rule(request_id=outbound, ok=st.booleans(), cancelled=st.lists(prompts, max_size=3))
    def cli_answers(self, request_id: str, ok: bool, cancelled: list[str]) -> None:
        if not ok:
            self._cli(error(request_id))
        elif request_id in self.cancels:
            self._cli(success(request_id, {"cancelled": bool(cancelled)}))
        else:  # an interrupt: it may withdraw queued prompts
            self._cli(success(request_id, {"still_queued": [], "cancelled": cancelled}))

    @precondition(lambda self: not self.p.ended)
    @rule(
        garbage=st.sampled_from(
            [
                b"not json",
                b"[]",
                b'{"type": "nope"}',
                b'{"type":"assistant","message":"x"}',
                b'{"type":"user","x":NaN}',
                b'{"type":"user","x":' + b"[" * 1100 + b"]" * 1100 + b"}",
                b'{"type":"assistant","message":{"content":[{"type":"text","text":"\xff"}]}}',
                b'{"type":"control_request","request_id":"zz","request":[]}',
                b'{"type":"control_response","response":7}',
                b'{"type":"user","message":{"role":"user","content":"x"},"type":"result"}',
                b'{"type":"transcript_mirror","entries":7}',
            ]
        )
    )
    def cli_garbage(self, garbage: bytes) -> None:
        self._cli(garbage)

    @precondition(lambda self: not self.p.ended)
    @rule(n=st.integers(min_value=0, max_value=3))
    def cli_mirrors(self, n: int) -> None:
        entries = [{"type": "user", "uuid": f"e{i}"} for i in range(n)]
        self._cli(line({"type": "transcript_mirror", "filePath": "/p/s.jsonl", "entries": entries}))

    @precondition(lambda self: not self.p.ended)
    @rule(named=st.lists(prompts, max_size=3, unique=True))
    def cli_result_naming(self, named: list[str]) -> None:
        self._cli(result(user_message_uuids=named))
        self.results_fed += 1

    @precondition(lambda self: not self.p.ended)
    @rule(prompt=prompts, value=st.sampled_from(["queued", "started", "completed", "cancelled"]))
    def cli_lifecycle(self, prompt: str, value: str) -> None:
        self._cli(lifecycle(prompt, value))

    # -- the host ---------------------------------------------------------------------------

    @precondition(lambda self: not self.p.closed)
    @rule(target=prompts)
    def host_prompt(self) -> str:
        out = self.p.send_prompt(UserMessage.prompt("x"))
        message = wire.decode(out)
        assert isinstance(message, UserMessage)
        assert isinstance(message.uuid, str)
        self.sent_prompts.append(message.uuid)
        return message.uuid

    @precondition(lambda self: not self.p.closed)
    @rule(target=outbound)
    def host_request(self) -> str:
        request_id, out = self.p.send_request(c.InterruptRequest())
        assert json.loads(out)["request_id"] == request_id
        self.requests[request_id] = 0
        self.interrupts.add(request_id)
        return request_id

    @precondition(lambda self: not self.p.closed)
    @rule(target=outbound)
    def host_interrupt_watched(self) -> str:
        watch = self.p.watch_interrupt()
        request_id, _ = self.p.send_request(c.InterruptRequest(cancel_queued=True))
        assert watch.request_id == request_id
        self.watches.append(watch)
        self.requests[request_id] = 0
        self.interrupts.add(request_id)
        return request_id

    @precondition(lambda self: not self.p.closed)
    @rule(target=outbound, prompt=prompts)
    def host_cancels_async_message(self, prompt: str) -> str:
        request_id, _ = self.p.send_request(c.CancelAsyncMessageRequest(message_uuid=prompt))
        self.requests[request_id] = 0
        self.cancels[request_id] = prompt
        return request_id

    @rule(request_id=consumes(outbound))
    def host_abandons(self, request_id: str) -> None:
        if self.requests[request_id] == 0:
            self.abandoned.add(request_id)
        self.p.abandon(request_id)

    @rule(request_id=inbound, reject=st.booleans())
    def host_answers(self, request_id: str, reject: bool) -> None:
        for record in self.records.get(request_id, []):
            out = (
                self.p.reject(record, "no")
                if reject
                else self.p.answer(record, PermissionAllow(updated_input={}))
            )
            if out is not None:
                self.writes[id(record)] += 1
                assert id(record) not in self.withdrawn

    @rule(prompt=st.one_of(st.none(), prompts))
    def host_claims(self, prompt: str | None) -> None:
        """A consumer of one turn (`receive_response`, `ask`): the next prompt, or one."""
        claim = self.p.claim(prompt)
        self.claims.append(claim)
        self.targets[id(claim)] = prompt

    def _end(self, claim: Claim, how: str, what: Any) -> None:
        self.claims.remove(claim)
        self.ended.append((claim, how, what))

    @precondition(lambda self: bool(self.claims))
    @rule(data=st.data(), until_dry=st.booleans())
    def consumer_reads_a_turn(self, data: st.DataObject, until_dry: bool) -> None:
        claim = data.draw(st.sampled_from(self.claims))
        try:
            verdict = claim.check()
        except PromptWithdrawnError as exc:
            self._end(claim, "withdrawn", exc.prompt_uuid)
            return
        except ClaudeSDKError as exc:
            self._end(claim, "no_such_prompt", exc.kind)
            return
        if verdict is END:
            self._end(claim, "end", None)
            return
        if verdict is not None:
            self._end(claim, "again", verdict)
            return
        while self.p.messages:
            item = self.p.messages.popleft()
            if item.__class__ is bytes:
                try:
                    item = self.p.decode_message(item)
                except MessageDecodeError as exc:
                    self.p.skip_line(exc)
                    continue
            if isinstance(item, ResultMessage):
                self.result_messages += 1
                if claim.at_result(item):
                    self._end(claim, "result", item)
                    return
            if not until_dry:
                return

    @rule()
    def consumer_reads(self) -> None:
        """A consumer of every message (`receive_messages`)."""
        for message in drain(self.p):
            if isinstance(message, ResultMessage):
                self.result_messages += 1
                self.p.taken(message)
            assert not (self.mirror and isinstance(message, TranscriptMirrorMessage))

    @precondition(lambda self: not self.p.ended)
    @rule()
    def host_closes(self) -> None:
        self.p.close()

    @precondition(lambda self: not self.p.ended)
    @rule()
    def host_aborts(self) -> None:
        was_open = self.p.turn_open and not self.p.closed
        out = self.p.abort()
        assert (out is not None) == was_open
        if out is not None:
            assert json.loads(out)["request"] == {"subtype": "interrupt"}
        assert self.p.closing

    @precondition(lambda self: not self.p.ended and self.p.failure is None)
    @rule()
    def host_fails(self) -> None:
        failure = SessionClosedError("the store is down")
        pending = set(self.p.pending_requests)
        answers = self.p.fail(failure)
        assert {a.request_id for a in answers} == pending
        for answer in answers:
            assert answer.error is failure
            self.requests[answer.request_id] += 1
        assert self.p.pending_requests == []
        assert self.p.closed

    @precondition(lambda self: not self.p.ended)
    @rule(code=st.sampled_from([0, 1, -15, None]))
    def eof(self, code: int | None) -> None:
        self.flush_all()
        lines = self.splitter.close()
        if lines:
            self._events(self.p.receive_lines(lines))
        closing = self.p.closing
        events = self.p.receive_eof(code)
        self._events(events)
        assert isinstance(events[-1], Ended)
        if closing:  # the host closed stdin: the exit status is no failure
            assert not isinstance(self.p.failure, ProcessError)
        # Every request still pending when the stream ended was withdrawn by it.
        for records in self.records.values():
            for record in records:
                if self.writes[id(record)] == 0:
                    assert record.state == WITHDRAWN

    # -- invariants -------------------------------------------------------------------------

    @invariant()
    def each_inbound_request_is_answered_at_most_once_and_never_after_withdrawal(self) -> None:
        for records in self.records.values():
            for record in records:
                written = self.writes[id(record)]
                assert written <= 1
                assert record.state in (PENDING, ANSWERED, WITHDRAWN)
                if record.state == ANSWERED:
                    assert written == 1
                if record.state == WITHDRAWN:
                    assert written == 0

    @invariant()
    def each_host_request_is_resolved_at_most_once(self) -> None:
        for request_id, seen in self.requests.items():
            assert seen <= 1, request_id
            if request_id in self.abandoned:
                assert seen == 0
        if self.p.ended:  # and at the end of the stream, exactly once
            for request_id, seen in self.requests.items():
                if request_id not in self.abandoned:
                    assert seen == 1, request_id
            assert self.p.pending_requests == []

    @invariant()
    def every_result_ends_its_turn(self) -> None:
        assert self.p.results == self.turn_ends
        if self.p.failure is None and not self.unsent and not self.splitter.buffered:
            assert self.turn_ends == self.results_fed
        assert self.result_messages <= self.turn_ends

    @invariant()
    def open_prompts_are_prompts_sent(self) -> None:
        assert set(self.p.open_prompts) <= set(self.sent_prompts)
        assert self.p.turn_open == bool(self.p.open_prompts)
        if self.p.idle:
            assert self.p.open_prompts == []
        assert self.p.may_close_stdin == (
            not self.p._callbacks or not self.p.prompts_sent or self.p.idle
        )

    @invariant()
    def a_consumers_turn_ends_only_at_a_result_that_settles_its_prompt(self) -> None:
        """The invariant of issue 26, over every claim that ended so far."""
        ended_prompts: list[str] = []
        for claim, how, what in self.ended:
            asked = self.targets[id(claim)]
            if asked is not None:
                assert claim.prompt == asked  # a named claim is that prompt's
            if how in ("result", "again"):
                assert claim.prompt is not None
                assert claim.prompt in what.settles, (claim.prompt, what.settles)
                # ... the very result that answered it, nothing of the CLI's own.
                assert self.answered_by[claim.prompt] is what
                assert not what.own_turn
                ended_prompts.append(claim.prompt)
            elif how == "withdrawn":
                assert what == claim.prompt
                assert claim.prompt is not None
                assert claim.prompt not in self.answered_by
                ended_prompts.append(claim.prompt)
            elif how == "end":  # completed without a turn
                assert claim.prompt is not None
                assert claim.prompt not in self.answered_by
                ended_prompts.append(claim.prompt)
            else:
                assert how == "no_such_prompt"
                assert what == "no_such_prompt"  # the error's kind
                assert asked is not None
        # Each prompt's reply goes to one claim at most.
        assert len(ended_prompts) == len(set(ended_prompts))

    @invariant()
    def a_claim_whose_reply_was_read_past_gets_it_at_once(self) -> None:
        """Liveness: a claim bound to a prompt whose result a consumer has read already
        ends at its next look (it does not wait for a result that came)."""
        for claim in self.claims:
            prompt = claim.prompt
            if prompt is None or prompt not in self.answered_by:
                continue
            result = self.answered_by[prompt]
            if any(m is result for m in self.p.messages):
                continue  # still ahead in the queue: reading gets there
            slot = self.p.ledger._slots.get(prompt)
            if slot is not None and slot.delivered:
                assert claim.check() is result
                self._end(claim, "again", result)
                return

    @invariant()
    def no_frame_stops_the_stream(self) -> None:
        assert self.p.failure is None or isinstance(
            self.p.failure, (ProcessError, SessionClosedError)
        )
        bugs = [r for r in self.errors if r.levelno >= logging.ERROR]
        assert bugs == []

    @invariant()
    def interrupt_receipts_are_always_readable(self) -> None:
        for watch in self.watches:
            receipt = watch.receipt()
            assert receipt.outcome in ("effective", "no_op", "queued_cancelled", "undetermined")
            if watch.response is None:
                assert receipt.outcome in ("undetermined", "effective")


class _Collect(logging.Handler):
    def __init__(self, into: list[logging.LogRecord]) -> None:
        super().__init__(logging.DEBUG)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record)


ProtocolMachine.TestCase.settings = settings(
    max_examples=deep(150), stateful_step_count=deep_steps(40), deadline=None
)
TestProtocolMachine = ProtocolMachine.TestCase
