"""The SDK's side of one conversation with the CLI, as a state machine without I/O.

In the manner of h11's ``Connection``: the driver feeds it what the CLI wrote
(`Protocol.receive_lines`, then `Protocol.receive_eof`) and gets back events; it asks it for
the bytes to write (`Protocol.send_prompt`, `Protocol.send_request`, `Protocol.answer`,
`Protocol.reject`). It performs no I/O, never waits and imports no async library, so every
rule below is tested by feeding it lines (``tests/protocol/test_protocol.py``, with a
hypothesis state machine over random interleavings).

What it owns:

* **Messages.** Every frame the consumer reads goes to ``messages`` in the order it came:
  a decoded frame, or, for the kinds only the consumer looks at (``assistant``, ``user``,
  ``stream_event`` lines as the CLI writes them), the line itself, which `decode_message`
  decodes when the consumer takes it (and refuses if it turns out to be another kind).
* **The one table of the host's requests.** `send_request` gives a request an id and a pending
  entry; the CLI's ``control_response`` resolves it into an `Answer` (typed by the request's
  ``answer_type``, or an error) exactly once; an answer for an id that is not pending (a
  replayed echo, a late answer after the caller gave up with `abandon`) is ignored. At the end
  of the stream every request still pending gets an `Answer` with the session's error.
* **The CLI's requests.** Each ``control_request`` becomes one `InboundRequest`, answered
  exactly once (`answer` / `reject` return the bytes; later calls return None) or withdrawn
  by the CLI (``control_cancel_request``: a `Withdrawn` event; nothing is ever written for it).
  A request whose id is not a string, or repeats one still pending, is logged and ignored.
* **Turns.** A ``result`` ends a turn (`TurnEnded`). The CLI may answer several queued prompts
  in one turn, withdraw queued prompts (``interrupt`` with ``cancel_queued``,
  ``cancel_async_message``), or run turns of its own (task notifications), so results are not
  counted against prompts: every prompt carries a ``uuid`` (one is made for a prompt without
  one), and a prompt is settled when a result names it (``user_message_uuids``), when its
  ``command_lifecycle`` is ``completed`` or ``cancelled``, or when an answer says the CLI
  withdrew it. A CLI that never names prompts settles them in order, one per result. The
  ``command_lifecycle`` frames of the uuids made here are the protocol's bookkeeping and do not
  reach the consumer (they exist only because of those uuids). `idle` holds when every
  prompt is settled and the CLI's reported state (if it reports one) is ``idle``.
* **The exit rules** (`receive_eof`): a CLI that exits non-zero is a `ProcessError`, unless
  its last result was an error (the CLI exits 1 after one: the result says what happened)
  or the host closed the session itself (`close`).

Invariants: no line, whatever it holds, raises out of `receive_lines` or stops the stream (a
line that cannot be decoded is counted in ``lines_undecodable`` and logged); after a
`StreamFailed` or the end of stream nothing more is read.
"""

from __future__ import annotations

import collections
import itertools
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from .. import control as c
from .. import messages as m
from .._base import HOST_NOTES, replace
from ..errors import (
    ControlRequestError,
    LineTooLongError,
    MessageDecodeError,
    ProcessError,
    ResultError,
    SessionClosedError,
    SessionNotFoundError,
)
from .codec import Codec, default_codec
from .events import (
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
from .interrupts import InterruptWatch
from .schema import answer_types
from .turns import Claim, Ledger, mark

__all__ = ["DEFERRED_PREFIXES", "Protocol"]

logger = logging.getLogger("claude_sdk.protocol")
_DEBUG: Final = logging.DEBUG

#: How the lines of the frames that only the consumer looks at begin, as the CLI writes them
#: (``JSON.stringify``: compact, ``type`` first). Such a line goes to ``messages`` as it is,
#: decoded when the consumer takes it: the reader's turn stays short, a backlog nobody reads
#: holds bytes rather than objects, and a consumer that stops early never pays for the rest.
DEFERRED_PREFIXES: Final = (b'{"type":"assistant",', b'{"type":"user",', b'{"type":"stream_event",')
#: What a deferred line may decode to (anything else had a second ``type`` key: refused).
_DEFERRED_CLASSES: Final = (m.AssistantMessage, m.UserMessage, m.StreamEvent)

#: Frames the protocol acts on; every other frame is a message for the consumer.
_SPECIAL: Final = frozenset(
    {
        c.ControlResponse,
        c.ControlRequest,
        c.ControlCancelRequest,
        c.KeepAlive,
        m.SessionStateChangedMessage,
        m.ResultMessage,
        m.InitMessage,
        m.CommandLifecycleMessage,
        m.TranscriptMirrorMessage,
        m.UnknownMessage,
        m.PermissionDeniedMessage,
    }
)
_NO_EVENTS: Final[tuple[Any, ...]] = ()
_MISSING: Final[Any] = object()
_startswith: Final[Callable[..., bool]] = bytes.startswith
_repeat = itertools.repeat


def _not_a_prompt(origin: Any) -> bool:
    """A result's ``origin`` says its turn was not run for a prompt (a task notification,
    a scheduled wake-up): only ``human`` (or no origin) is a prompt's turn."""
    if not isinstance(origin, dict):
        return False
    kind = origin.get("kind")
    return kind is not None and kind != "human"


def _first_type(line: bytes) -> bytes | None:
    """The value of the line's first key when that key is ``type`` in the compact form."""
    if line.startswith(b'{"type":"'):
        end = line.find(b'"', 9)
        if end > 0:
            return line[9:end]
    return None


_PREFIXES: dict[type, bytes] = {}


def _prefix_of(frame: Any) -> bytes:
    """How a line of ``frame``'s kind begins in the compact form (``{"type":"<tag>"``)."""
    cls = frame.__class__
    prefix = _PREFIXES.get(cls)
    if prefix is None:
        value = getattr(frame, "type", None)
        tag = value.encode() if isinstance(value, str) else b"\x00"
        prefix = b'{"type":"' + tag + b'"'
        if cls is not m.UnknownMessage:
            _PREFIXES[cls] = prefix
    return prefix


def _second_type(line: bytes, frame: Any) -> bytes | None:
    """The line's first ``type`` when a second one made it decode as another kind, else None."""
    prefix = _PREFIXES.get(frame.__class__) or _prefix_of(frame)
    if line.startswith(prefix):
        return None
    return _first_type(line)


class Protocol:
    """The state of one CLI conversation (see the module docstring).

    Args:
        codec: the codec to decode and encode with (the default codec of the CLI's wire).
        defer_messages: leave the lines of consumer-only messages undecoded in ``messages``
            (the driver turns it off when it must see every message as it arrives).
        request_class: the class of the records of the CLI's requests: `InboundRequest`, or
            a subclass in which the driver keeps what it serves a request with.
        mirror: ``transcript_mirror`` frames become `Mirrored` events for the driver (its
            session store) instead of messages for the consumer.
        callbacks: the host registered callbacks the CLI may call (hooks, ``can_use_tool``,
            in-process MCP servers, dialogs): stdin must stay open while it may (see
            `may_close_stdin`).

    Attributes:
        messages: what the consumer reads, in order: frames, and message lines not decoded
            yet (`decode_message` decodes them).
        session_id: the CLI's session id, from ``system/init``.
        state: the last state the CLI reported (``session_state_changed``), or None.
        prompts_sent: prompts written (`send_prompt`).
        results: ``result`` frames received.
        prompts_cancelled: prompts the CLI withdrew from its queue (no result came for them).
        last_result: the last ``result``.
        lines_undecodable: lines that were not frames (logged, skipped).
        failure: the error that ended the stream (`StreamFailed`, or the exit status).
        ended: the end of stream was received.
        delivered: `receive_lines` queued messages since the driver last set it to False.
    """

    def __init__(
        self,
        codec: Codec | None = None,
        *,
        defer_messages: bool = True,
        request_class: type[InboundRequest] = InboundRequest,
        mirror: bool = False,
        callbacks: bool = False,
    ) -> None:
        self._mirror = mirror
        self._callbacks = callbacks
        self._codec = codec if codec is not None else default_codec()
        self._request_class = request_class
        self._decode = self._codec.decode_frame
        self.decode_message: Callable[[bytes], Any] = self._codec.frame_decoder(
            expect=_DEFERRED_CLASSES
        )
        self._encode = self._codec.encode
        self._answer_line = self._codec.answer_line
        self._deferred = DEFERRED_PREFIXES if defer_messages else ()
        self.messages: collections.deque[Any] = collections.deque()
        self._token = os.urandom(4).hex()
        self._counter = 0
        self._outbound: dict[str, str] = {}  # request id -> subtype
        self._inbound: dict[str, InboundRequest] = {}  # pending only
        # uuids of prompts not settled, in the order sent -> when (monotonic), if DEBUG was on
        self._open: dict[str, float | None] = {}
        self._made: set[str] = set()  # uuids made here (their lifecycle is bookkeeping)
        # Open prompts whose turn the CLI said it started (``command_lifecycle`` started).
        self._running: dict[str, None] = {}
        self._named = False  # the CLI names prompts (user_message_uuids, command_lifecycle)
        self._cancel_targets: dict[str, str] = {}  # cancel_async_message request -> uuid
        self._denied_tools: set[str] = set()  # tools the CLI refused without asking
        self._watches: list[InterruptWatch] = []  # interrupts waiting for their outcome
        #: The question the current turn was suspended on (`suspend`), until its result.
        self.suspension: object | None = None
        #: The host's prompts whose reply no consumer took yet (`claim`).
        self.ledger: Ledger = Ledger()
        self._answer_types = answer_types()
        self.session_id: str | None = None
        self.state: str | None = None
        self.prompts_sent: int = 0
        #: The uuid of the last prompt `send_prompt` wrote.
        self.last_prompt: str = ""
        self.results: int = 0
        self.prompts_cancelled: int = 0
        self.last_result: m.ResultMessage | None = None
        self.lines_undecodable: int = 0
        self.failure: BaseException | None = None
        self.ended: bool = False
        self.closing: bool = False
        #: The CLI answered ``initialize`` (it started; before that, an exit is a refusal).
        self.initialized: bool = False
        #: The clock of the last output from the CLI, as the driver reported it (`activity`).
        self.last_activity: float = 0.0
        #: The host's callbacks running now (the CLI waits for them: it owes no output).
        self.callbacks_running = 0
        #: `receive_lines` queued messages since the driver last cleared it.
        self.delivered: bool = False

    # -- what the state says -------------------------------------------------------------

    @property
    def turn_open(self) -> bool:
        """A prompt was sent that is not settled yet (see the module docstring)."""
        return bool(self._open)

    @property
    def open_prompts(self) -> list[str]:
        """The uuids of the prompts not settled yet, in the order they were sent."""
        return list(self._open)

    @property
    def idle(self) -> bool:
        """Every prompt is settled and the CLI does not report work (see the module)."""
        return not self.turn_open and self.state in (None, "idle")

    @property
    def closed(self) -> bool:
        """The CLI's output has ended, or the session failed: nothing more is read."""
        return self.ended or self.failure is not None

    @property
    def may_close_stdin(self) -> bool:
        """Whether closing the CLI's stdin now loses nothing (PROTOCOL.md §5.4).

        Once stdin is closed the CLI can no longer call back: while the host has
        callbacks and a prompt was sent, it stays open until every prompt is settled and
        the CLI reports ``idle`` (background subagents still run their hooks). Without
        callbacks, or before any prompt, it may close at once (the CLI finishes a turn it
        has begun on its own after EOF).
        """
        return not self._callbacks or not self.prompts_sent or self.idle

    @property
    def pending_requests(self) -> list[str]:
        """Ids of the host's requests still waiting for an answer."""
        return list(self._outbound)

    @property
    def inbound_pending(self) -> list[str]:
        """Ids of the CLI's requests not answered (nor withdrawn) yet."""
        return list(self._inbound)

    # -- what the CLI wrote ---------------------------------------------------------------

    def receive_lines(self, lines: list[bytes | LineTooLongError]) -> Sequence[Any]:
        """Take a batch of complete lines (as the framing gives them); the events they make.

        Messages go to ``messages``; the returned list holds `InboundRequest`, `Withdrawn`,
        `Answer`, `TurnEnded`, `StateChanged` and `StreamFailed` events, in order.
        """
        if self.failure is not None or self.ended:
            return _NO_EVENTS  # failed: the driver drains stdout, nothing more is read
        deferred = self._deferred
        messages = self.messages
        if deferred:
            try:  # the common case, a batch of messages only: one pass in C
                every = all(map(_startswith, lines, _repeat(deferred)))
            except TypeError:  # a LineTooLongError among them
                every = False
            if every:
                messages.extend(lines)
                self.delivered = True
                return _NO_EVENTS
        before = len(messages)
        events: Sequence[Any] = _NO_EVENTS
        decode = self._decode
        special = _SPECIAL
        prefixes = _PREFIXES
        for line in lines:
            if line.__class__ is not bytes:
                if isinstance(line, LineTooLongError):
                    self.failure = line
                    self.delivered = self.delivered or len(messages) != before
                    return [*events, StreamFailed(line)]
                continue  # pragma: no cover  (the framing gives bytes or errors)
            if deferred and line.startswith(deferred):
                messages.append(line)
                continue
            try:
                frame = decode(line)
            except MessageDecodeError as exc:
                self.skip_line(exc)
                continue
            cls = frame.__class__
            prefix = prefixes.get(cls)
            if (prefix is None or not line.startswith(prefix)) and line.startswith(b'{"type":"'):
                first = _second_type(line, frame)
                if first is not None:
                    # A second ``type`` key: the line is refused, as it is when it was routed
                    # by its first one (`decode_message`).
                    self.skip_line(
                        MessageDecodeError(
                            line=line,
                            reason=f"the line decodes as {cls.__name__}, not the kind its "
                            f"first 'type' key names ({first.decode(errors='replace')!r})",
                        )
                    )
                    continue
            if cls not in special:
                messages.append(frame)
                continue
            try:
                if cls is c.ControlRequest:  # the usual one: no call in between
                    event = self._on_request(frame.request_id, frame.request)
                else:
                    event = self._special(frame, line)
            except Exception:  # a bug of ours must not end the stream: say so loudly
                logger.exception("could not act on a frame from the CLI: %r", line[:200])
                self.lines_undecodable += 1
                continue
            if event is not None:
                if events is _NO_EVENTS:
                    events = []
                assert isinstance(events, list)
                events.append(event)
        if len(messages) != before:
            self.delivered = True
        return events

    def _special(self, frame: Any, line: bytes) -> Any:
        cls = frame.__class__
        if cls is c.ControlResponse:
            return self._on_response(frame.response)
        if cls is c.ControlRequest:
            return self._on_request(frame.request_id, frame.request)
        if cls is c.ControlCancelRequest:
            return self._on_cancel(frame.request_id)
        if cls is c.KeepAlive:
            return None
        if cls is m.UnknownMessage:
            return self._on_unknown(frame)
        if cls is m.CommandLifecycleMessage:
            self._on_lifecycle(frame)
            return None
        if cls is m.TranscriptMirrorMessage:
            return self._on_mirror(frame, line)
        if cls is m.PermissionDeniedMessage:
            self._on_denied(frame)
            self.messages.append(frame)
            return None
        if cls is m.ResultMessage:
            # Its fields decide the turn's outcome (`is_error` a string would make `ask`
            # raise): values of the wrong type are kept aside, not believed.
            frame = self._codec.verified(frame, line)
        self.messages.append(frame)
        if cls is m.ResultMessage:
            self.results += 1
            self.last_result = frame
            if logger.isEnabledFor(_DEBUG):
                settles = self._on_result_logged(frame)
            else:
                settles = self._on_result(frame)
            return TurnEnded(frame, settles)
        if cls is m.SessionStateChangedMessage:
            state = frame.state
            self.state = state if isinstance(state, str) else None
            if self._watches and self.state == "idle":
                for watch in self._watches:
                    watch.idle()
            return StateChanged(self.state)
        session_id = frame.session_id  # InitMessage
        if isinstance(session_id, str) and session_id:
            self.session_id = session_id
        if self._named_ours(frame.user_message_uuids):
            self._named = True
        return None

    def _on_denied(self, frame: m.PermissionDeniedMessage) -> None:
        """Say once per tool that the CLI refused it without asking anyone, and how to
        grant it: the model's text is otherwise the only trace (issue 30)."""
        tool: object = frame.tool_name  # a newer CLI may send anything
        if not isinstance(tool, str) or tool in self._denied_tools:
            return
        self._denied_tools.add(tool)
        logger.warning("the CLI refused %s without asking: %s", tool, frame.explanation)

    def _named_ours(self, uuids: Any) -> list[str]:
        """Those of ``uuids`` (a frame's ``user_message_uuids``) that are open prompts."""
        if not isinstance(uuids, list):
            return []
        return [u for u in uuids if isinstance(u, str) and u in self._open]

    def _on_mirror(self, frame: m.TranscriptMirrorMessage, line: bytes) -> Mirrored | None:
        if not self._mirror:
            self.messages.append(frame)
            return None
        entries = frame.entries
        if not isinstance(entries, list) or not isinstance(frame.file_path, str):
            self.skip_line(
                MessageDecodeError(
                    line=line, reason="a transcript_mirror frame without filePath or entries"
                )
            )
            return None
        # Only JSON objects with a string ``type`` are transcript lines; anything else from
        # the CLI is not stored (a store must be able to rely on the shape).
        kept = [e for e in entries if isinstance(e, dict) and isinstance(e.get("type"), str)]
        if len(kept) != len(entries):
            logger.warning(
                "transcript_mirror: %d of %d entries are not transcript lines; not stored",
                len(entries) - len(kept),
                len(entries),
            )
        return Mirrored(frame.file_path, kept, len(line))

    def _on_result(self, frame: m.ResultMessage) -> tuple[str, ...]:
        """Settle the prompts ``frame`` answers; returns them, as marked on the frame.

        A result that names prompts (``user_message_uuids``, ``user_message_uuid``)
        answers those of ours among them; naming none of ours (``[]``, other uuids, or
        prompts answered already) it is a turn of the CLI's own, or a repeat. A result
        without those keys whose ``origin`` says its turn was not a prompt's (a task
        notification) is the CLI's own; otherwise it answers the prompts whose turn the CLI
        said it started (``command_lifecycle``), or, for a CLI that never names prompts,
        the oldest open one.
        """
        uuids = frame.user_message_uuids
        one = frame.user_message_uuid
        names = isinstance(uuids, list) or isinstance(one, str)
        if not isinstance(uuids, list):
            uuids = [one] if isinstance(one, str) else []
        named: list[str] = []
        if names:
            self._named = True
            # The decoders trust the field's type; a hostile CLI may send anything in it.
            named = [u for u in uuids if isinstance(u, str)]  # type: ignore[redundant-expr]
        elif not _not_a_prompt(frame.origin):
            if self._running:  # the turn the CLI started for them (one turn at a time)
                named = list(self._running)
            elif not self._named and self._open:
                named = [next(iter(self._open))]
        # The reply: a prompt gets the first result that names it, even after its
        # lifecycle said "completed" (the CLI may write that first).
        settles = self.ledger.answer(named, frame) if named else ()
        mark(frame, settles)
        if self.suspension is not None and (settles or not self._open):
            # The suspended turn's result: marked before any consumer reads it.
            frame.__dict__[HOST_NOTES]["suspended"] = self.suspension
            self.suspension = None
        for u in named:
            if u in self._open:
                self._settle_prompt(u, result=frame)
        for watch in self._watches:
            watch.result(frame)
        return settles

    def _on_result_logged(self, frame: m.ResultMessage) -> tuple[str, ...]:
        """`_on_result`, and a DEBUG line: which prompts the result settled, how long since
        the first of them was sent, and the result's own figures (no text)."""
        before = dict(self._open)
        settles = self._on_result(frame)
        sent = [t for u in settles if (t := before.get(u)) is not None]
        elapsed = f"{time.monotonic() - min(sent):.3f} s" if sent else "?"
        origin = frame.origin.get("kind") if isinstance(frame.origin, dict) else None
        logger.debug(
            "turn ended: result %s after %s (CLI: %s ms, %s turns, cost $%s); prompts %s",
            frame.subtype,
            elapsed,
            frame.duration_ms,
            frame.num_turns,
            frame.total_cost_usd,
            ", ".join(settles) or f"none of ours (a turn of the CLI's own: {origin or '?'})",
        )
        return settles

    def _on_lifecycle(self, frame: m.CommandLifecycleMessage) -> None:
        command = frame.command_uuid
        if isinstance(command, str):
            if command in self._open or command in self._made:
                self._named = True
            if frame.state == "completed":
                self.ledger.completed(command)
            elif frame.state == "started" and command in self._open:
                self._running[command] = None
            if frame.state in ("completed", "cancelled") and command in self._open:
                cancelled = frame.state == "cancelled"
                self._settle_prompt(command, cancelled=cancelled, reason="cancelled by the CLI")
            if command in self._made:
                if frame.state in ("completed", "cancelled"):
                    self._made.discard(command)
                return  # bookkeeping of a uuid made here: not the consumer's
        self.messages.append(frame)

    def _settle_prompt(
        self,
        prompt: str,
        *,
        cancelled: bool = False,
        result: m.ResultMessage | None = None,
        reason: str = "",
    ) -> None:
        self._running.pop(prompt, None)
        if self._open.pop(prompt, _MISSING) is not _MISSING and cancelled:
            self.prompts_cancelled += 1
            self.ledger.withdrawn(prompt, reason)
            self.delivered = True  # a consumer waiting for its reply must hear of it
            logger.debug("prompt %s withdrawn by the CLI (no result will come)", prompt)
        for watch in self._watches:
            watch.settled(prompt, result, cancelled=cancelled)

    def _on_unknown(self, frame: m.UnknownMessage) -> Any:
        """A frame that did not fit: a control envelope that did not is still answered."""
        kind = frame.type
        raw = frame.raw
        request_id = raw.get("request_id")
        if kind == "control_request":
            payload = raw.get("request")
            unknown = c.UnknownControlRequest(
                raw=payload if isinstance(payload, dict) else {}, error=frame.error
            )
            return self._on_request(request_id, unknown)
        if kind == "control_cancel_request":
            return self._on_cancel(request_id)
        if kind == "control_response":
            response = raw.get("response")
            rid = response.get("request_id") if isinstance(response, dict) else None
            envelope = c.UnknownControlResponse(raw=response if isinstance(response, dict) else {})
            return self._resolve_unknown(rid, envelope)
        self.messages.append(frame)
        return None

    def _on_request(self, request_id: Any, request: Any) -> InboundRequest | None:
        if not isinstance(request_id, str):
            logger.warning("ignored a control request whose request_id is %r", request_id)
            return None
        if request_id in self._inbound:
            logger.warning("ignored a duplicate control request %s", request_id)
            return None
        record = self._inbound[request_id] = self._request_class(request_id, request)
        return record

    def _on_cancel(self, request_id: Any) -> Withdrawn | None:
        if not isinstance(request_id, str):
            logger.warning("ignored a control cancel request whose request_id is %r", request_id)
            return None
        record = self._inbound.pop(request_id, None)
        if record is None:
            return None  # answered already, or never seen
        record.state = WITHDRAWN
        return Withdrawn(record)

    def _on_response(self, response: Any) -> Answer | None:
        request_id = getattr(response, "request_id", None)
        if not isinstance(request_id, str):
            raw = getattr(response, "raw", None)
            request_id = raw.get("request_id") if isinstance(raw, dict) else None
            if not isinstance(request_id, str):
                logger.warning("ignored a control response whose request_id is %r", request_id)
                return None
        subtype = self._outbound.pop(request_id, None)
        if subtype is None:
            return None  # not ours, or given up on (a replayed echo, a late answer)
        if isinstance(response, c.ControlSuccess):
            body = response.response if response.response is not None else {}
            return self._typed_answer(request_id, subtype, body)
        if isinstance(response, c.ControlError):
            # The decoder does not check value types: a hostile error may be anything.
            error: Any = response.error
            code: Any = response.error_code
            error = error if isinstance(error, str) else repr(error)
            code = code if isinstance(code, str) else None
            failure = ControlRequestError(
                subtype=subtype, error=error, error_code=code, request_id=request_id
            )
            return Answer(request_id, subtype, error=failure)
        return self._envelope_error(request_id, subtype, response)

    def _resolve_unknown(self, request_id: Any, envelope: Any) -> Answer | None:
        if not isinstance(request_id, str):
            logger.warning("ignored a control response whose request_id is %r", request_id)
            return None
        subtype = self._outbound.pop(request_id, None)
        if subtype is None:
            return None
        return self._envelope_error(request_id, subtype, envelope)

    @staticmethod
    def _envelope_error(request_id: str, subtype: str, response: Any) -> Answer:
        raw = dict(getattr(response, "raw", {}) or {})
        failure = ControlRequestError(
            subtype=subtype,
            error=f"unknown response envelope: {raw!r}"[:500],
            request_id=request_id,
        )
        return Answer(request_id, subtype, error=failure)

    def _typed_answer(self, request_id: str, subtype: str, body: Any) -> Answer:
        tp = self._answer_types.get(subtype, dict)
        if tp is None:
            value: Any = None
        elif not isinstance(body, dict):
            return Answer(request_id, subtype, error=self._misfit(subtype, body, "not an object"))
        elif tp is dict or getattr(tp, "__origin__", None) is dict:
            value = body
        else:
            try:
                value = self._codec.structure(body, tp)
            except Exception as exc:  # the answer arrived but does not fit: fail it now
                why = f"it does not fit {tp.__name__}: {type(exc).__name__}: {exc}"
                return Answer(request_id, subtype, error=self._misfit(subtype, body, why))
        if subtype == "initialize":
            self.initialized = True
        self._on_answered(request_id, subtype, value)
        return Answer(request_id, subtype, value=value)

    @staticmethod
    def _misfit(subtype: str, body: Any, why: str) -> MessageDecodeError:
        from .codec import dumps

        try:
            line = dumps(body)
        except TypeError:
            line = repr(body).encode()
        return MessageDecodeError(line=line, reason=f"the answer to {subtype}: {why}")

    def _on_answered(self, request_id: str, subtype: str, value: Any) -> None:
        """Turn accounting from answers: prompts the CLI withdrew will get no result."""
        target = self._cancel_targets.pop(request_id, None)
        if subtype == "interrupt" and isinstance(value, c.InterruptResponse):
            for watch in self._watches:
                if watch.request_id == request_id:
                    watch.answered(value)
            for prompt in self._named_ours(value.cancelled):
                self._settle_prompt(prompt, cancelled=True, reason="interrupt(cancel_queued)")
        elif (
            target is not None
            and isinstance(value, c.CancelAsyncMessageResponse)
            and value.cancelled is True
        ):
            self._settle_prompt(target, cancelled=True, reason="cancel_async_message")

    def skip_line(self, exc: MessageDecodeError) -> None:
        """Count and log a line that was not a frame (also for lines the consumer decodes)."""
        self.lines_undecodable += 1
        logger.warning("skipped an undecodable line from the CLI: %s", exc)

    def receive_eof(
        self,
        returncode: int | None,
        *,
        stderr_tail: str = "",
        cli_path: str | None = None,
        exit_error: BaseException | None = None,
    ) -> list[Any]:
        """The CLI's output ended and it exited with ``returncode`` (None: unknown).

        Returns an `Answer` with the error for every request still pending, then `Ended`
        (with the session's failure, or None).

        Args:
            returncode: the exit status (negative: the signal that killed it).
            stderr_tail: what the CLI last wrote to stderr (for the `ProcessError`).
            cli_path: the CLI that ran (for the `ProcessError`).
            exit_error: the transport's own account of a failed exit (say, a dropped SSH
                connection), used in place of a plain `ProcessError`.
        """
        if self.ended:
            return []
        self.ended = True
        last = self.last_result
        after_error_result = last is not None and last.is_error is True
        if (
            self.failure is None
            and returncode not in (0, None)
            and not after_error_result
            and not self.closing
        ):
            assert returncode is not None
            # Exited with a status before answering ``initialize``: the CLI refused to
            # start (an unknown option, an invalid model, a bad --resume id): running it
            # again changes nothing. Killed by a signal, it may have been anything.
            refused = not self.initialized and returncode > 0
            self.failure = exit_error or ProcessError(
                exit_code=returncode if returncode >= 0 else None,
                signal=-returncode if returncode < 0 else None,
                stderr_tail=stderr_tail,
                cli_path=cli_path,
                kind="startup" if refused else None,
            )
        if self.failure is not None:
            error: BaseException = self.failure
        else:
            cause = f"exit code {returncode}" if returncode is not None else None
            error = SessionClosedError("the CLI's output ended", cause=cause)
        if logger.isEnabledFor(_DEBUG):
            logger.debug(
                "the CLI's output ended: exit code %s, %s; %d requests unanswered",
                returncode,
                type(self.failure).__name__ if self.failure is not None else "no failure",
                len(self._outbound),
            )
        events: list[Any] = [Answer(rid, sub, error=error) for rid, sub in self._outbound.items()]
        self._outbound.clear()
        # The CLI's own requests can no longer be answered: they are over.
        for record in self._inbound.values():
            record.state = WITHDRAWN
        self._inbound.clear()
        events.append(Ended(self.failure))
        return events

    # -- what the host writes -------------------------------------------------------------

    def _check_open(self) -> None:
        if self.failure is not None:
            raise self.failure
        if self.ended:
            raise SessionClosedError(
                "the session has ended: use the session inside its `async with "
                "open_session(...)` block; to go on with the conversation later, open a "
                "new session with Options(resume=session.session_id)"
            )

    def send_prompt(self, message: m.UserMessage) -> bytes:
        """The line of a prompt (a turn begins: its result will end it).

        Raises:
            SessionClosedError: the stream has ended (or the session's failure).
        """
        self._check_open()
        prompt = message.uuid
        if not isinstance(prompt, str):
            prompt = str(uuid.uuid4())
            message = replace(message, uuid=prompt)
            self._made.add(prompt)
        line = self._encode(message)
        self.prompts_sent += 1
        self.last_prompt = prompt
        self.ledger.sent(prompt)
        if logger.isEnabledFor(_DEBUG):
            # The uuid and the size only: a prompt's text never goes to the log.
            self._open[prompt] = time.monotonic()
            logger.debug("turn started: prompt %s (%d bytes)", prompt, len(line))
        else:
            self._open[prompt] = None
        return line

    def send_request(self, payload: Any) -> tuple[str, bytes]:
        """A new request: its id (pending until its `Answer`) and its line.

        Raises:
            SessionClosedError: the stream has ended (or the session's failure).
        """
        self._check_open()
        subtype = getattr(payload, "subtype", None)
        if not isinstance(subtype, str):
            raise TypeError(f"a control request needs a subtype, not {subtype!r}")
        self._counter += 1
        request_id = f"req_{self._counter}_{self._token}"
        line = self._encode(c.ControlRequest(request_id=request_id, request=payload))
        self._outbound[request_id] = subtype
        if isinstance(payload, c.CancelAsyncMessageRequest):
            self._cancel_targets[request_id] = payload.message_uuid
        elif subtype == "interrupt":
            for watch in self._watches:
                if watch.request_id is None:
                    watch.request_id = request_id
        return request_id, line

    def suspend(self, question: object) -> None:
        """A host callback suspended the current turn on ``question`` (its ``can_use_tool``
        answer ends the turn): the result that settles the turn's prompt is marked
        ``suspended`` with it (`claude_sdk.humans`)."""
        self.suspension = question

    def watch_interrupt(self, steer: str | None = None) -> InterruptWatch:
        """Start following the interrupt about to be sent (the next ``interrupt`` request
        built here): the prompts open now, how they settle, and the request's answer (see
        `InterruptWatch`). The driver waits until it is decided, and `unwatch` es it."""
        watch = InterruptWatch(self._open, busy=self.state not in (None, "idle"), steer=steer)
        self._watches.append(watch)
        return watch

    def unwatch(self, watch: InterruptWatch) -> None:
        """Stop following ``watch``."""
        if watch in self._watches:
            self._watches.remove(watch)

    def abandon(self, request_id: str) -> None:
        """The caller gave up on a request (timed out, cancelled): no `Answer` will come."""
        self._outbound.pop(request_id, None)
        self._cancel_targets.pop(request_id, None)

    def answer(self, request: InboundRequest, body: Any) -> bytes | None:
        """The line answering ``request`` with ``body`` (a model value, a dict or None), or
        None when nothing may be written (withdrawn, or answered already)."""
        request_id = request.request_id
        if request.state != PENDING or self._inbound.get(request_id) is not request:
            return None
        del self._inbound[request_id]
        request.state = ANSWERED
        return self._answer_line(request_id, body)

    def reject(self, request: InboundRequest, error: str, code: str | None = None) -> bytes | None:
        """The line answering ``request`` with an error, or None (see `answer`)."""
        if not self._settle(request):
            return None
        return self._codec.error_line(request.request_id, error, code)

    def leave_unanswered(self, request: InboundRequest) -> None:
        """Settle ``request`` without writing anything (a dialog the host declines to show)."""
        self._settle(request)

    def _settle(self, request: InboundRequest) -> bool:
        if request.state != PENDING or self._inbound.get(request.request_id) is not request:
            return False
        del self._inbound[request.request_id]
        request.state = ANSWERED
        return True

    def close(self) -> None:
        """The host is closing the CLI's stdin: its exit status is no longer an error."""
        self.closing = True

    def fail(self, error: BaseException) -> list[Answer]:
        """End the session with ``error`` (the first failure wins) from the host's side: a
        store that must not be lost, a bug of ours. Every pending host request is answered
        with the session's failure now (no answer the CLI writes later is taken), and
        nothing more is read.
        """
        if self.failure is None:
            self.failure = error
        failure = self.failure
        answers = [Answer(rid, sub, error=failure) for rid, sub in self._outbound.items()]
        self._outbound.clear()
        self._cancel_targets.clear()
        return answers

    def abort(self) -> bytes | None:
        """The host leaves in a hurry (an exception, a cancellation): the line of an
        ``interrupt`` to write without waiting for its answer when a prompt is open (the
        CLI saves the cut turn), else None. Either way the exit that follows is not an
        error."""
        line = None
        if self.turn_open and not self.closed:
            request_id, line = self.send_request(c.InterruptRequest())
            self.abandon(request_id)  # nobody waits for its answer
            logger.debug("control request interrupt %s sent on abort (not awaited)", request_id)
        self.close()
        return line

    def refusal(self, resume: str | None) -> BaseException | None:
        """Why the CLI refused to start, when its output ended before it answered
        ``initialize`` with an error result: `SessionNotFoundError` for a ``resume`` (the
        CLI found no such session), else `ResultError`. None when no error result came
        (the exit status says what happened)."""
        result = self.last_result
        if self.initialized or result is None or result.is_error is not True:
            return None
        if resume is not None:
            errors: list[Any] = list(result.errors or ())  # not checked by the decoder
            detail = "; ".join(e for e in errors if isinstance(e, str)) or None
            return SessionNotFoundError(detail, session_id=resume)
        return ResultError(result=result)

    # -- the inactivity clock ---------------------------------------------------------------

    def activity(self, now: float) -> None:
        """The CLI wrote something at ``now`` (bytes, not only whole lines), or a callback
        of the host ended at ``now`` (the CLI owes output again from then)."""
        if now > self.last_activity:
            self.last_activity = now

    def inactivity_deadline(self, timeout: float | None) -> float | None:
        """When ``inactivity_timeout`` expires: ``timeout`` after the last output, None
        while a callback of the host runs (the CLI waits for us) or without a timeout."""
        if timeout is None or self.callbacks_running:
            return None
        return self.last_activity + timeout

    # -- for the consumer ----------------------------------------------------------------

    def claim(self, prompt: str | None = None) -> Claim:
        """A consumer's wait for the reply to ``prompt`` (None: the next prompt's); see
        `claude_sdk._protocol.turns`. The driver asks the claim where the wait ends."""
        return self.ledger.claim(prompt)

    def taken(self, result: m.ResultMessage) -> None:
        """A consumer that claims nothing (every message, in order) read ``result``."""
        self.ledger.taken(result)

    def frames_added(self, before: int) -> Iterable[Any]:
        """The messages added since ``messages`` had ``before`` items (for telemetry)."""
        return itertools.islice(self.messages, before, None)
