"""The exception family of ``claude_sdk``.

Contract:

* Every exception the SDK raises on purpose is a :class:`ClaudeSDKError`. Subclasses carry
  the facts of the failure as typed attributes (exit code, signal, stderr tail, the offending
  line, the control ``error_code``, the ``result`` frame); a message never replaces them.
* ``kind`` is a short machine-readable class of failure (``"process"``, ``"timeout"``,
  ``"auth"``, ...). Each subclass has a default; :class:`ResultError` derives it from its
  result with :func:`classify_result`.
* Constructors take the facts as keyword arguments and build a default message from them.
  An explicit ``message`` overrides the headline; ``str()`` then still appends the facts
  that the headline does not state.
* Every instance pickles and unpickles with all its attributes intact (``__reduce__``
  rebuilds it from its facts and restores any other instance attributes, such as notes).

This module is pure: it performs no I/O and imports nothing else from the SDK at run time.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .messages import ResultMessage

__all__ = [
    "ClaudeSDKError",
    "CLINotFoundError",
    "OptionsError",
    "ProcessError",
    "MessageDecodeError",
    "DriftError",
    "LineTooLongError",
    "ControlTimeoutError",
    "InitializeTimeoutError",
    "InactivityTimeoutError",
    "ControlRequestError",
    "SessionClosedError",
    "SessionNotFoundError",
    "PromptWithdrawnError",
    "QuestionNotPendingError",
    "BudgetExceededError",
    "RateLimitExceededError",
    "SessionStoreError",
    "TranscriptGapError",
    "SessionBusyError",
    "ResultError",
    "StructuredOutputError",
    "UsageLimitError",
    "STARTUP_FAILURES",
    "classify_result",
    "usage_limit",
]

_E = TypeVar("_E", bound="ClaudeSDKError")

#: Bytes of an offending line shown in messages and logs.
SHORT_REPR_BYTES = 200
#: Lines of stderr shown by ``str(ProcessError)``; the attribute keeps the whole tail.
_STDERR_LINES_SHOWN = 20


def short_repr(data: bytes, limit: int = SHORT_REPR_BYTES) -> str:
    """Return the repr of at most the first ``limit`` bytes of ``data``.

    Args:
        data: The bytes to show.
        limit: How many leading bytes to show.

    Returns:
        ``repr(data[:limit])``, followed by the total size when ``data`` was cut.
    """
    if len(data) <= limit:
        return repr(data)
    return f"{data[:limit]!r}... ({len(data)} bytes)"


def _rebuild(cls: type[_E], facts: dict[str, Any]) -> _E:
    """Unpickling helper: call ``cls`` with its facts as keyword arguments."""
    return cls(**facts)


class ClaudeSDKError(Exception):
    """Base class of every error raised by ``claude_sdk``.

    A subclass that adds constructor arguments stores them before calling
    ``super().__init__`` and extends ``_facts`` with them, so that pickling and ``repr``
    keep them.

    Attributes:
        message: The headline: the explicit message, or one built from the facts.
        kind: A machine-readable class of failure, or ``None``.
        retryable: The same call may succeed if made again later (see `retryable`).
    """

    #: The ``kind`` given to instances that do not pass one.
    default_kind: str | None = None

    message: str
    kind: str | None

    def __init__(self, message: str | None = None, *, kind: str | None = None) -> None:
        """Initialise from an optional message and kind.

        Args:
            message: Overrides the default message built from the facts.
            kind: Overrides the class's default ``kind``.
        """
        self.kind = kind if kind is not None else self.default_kind
        self.message = message if message is not None else self._default_message()
        super().__init__(self.message)

    # Subclasses set their facts before calling ``super().__init__``, so these hooks can
    # read them.

    def _default_message(self) -> str:
        """Return the headline built from the facts."""
        return "Claude SDK error"

    def _facts_text(self) -> str:
        """Return the facts as a compact text, shown after an explicit message."""
        return ""

    def _extra_text(self) -> str:
        """Return a trailing block always appended to ``str()`` (starts with a newline)."""
        return ""

    def _facts(self) -> dict[str, Any]:
        """Return the keyword arguments that rebuild this error."""
        return {"message": self.message, "kind": self.kind}

    @property
    def retryable(self) -> bool:
        """True when the failure is transient: the same work may succeed if run again.

        Transient: the API's 429, 529 and 5xx answers and connection errors, a CLI killed
        or crashed, a dropped connection, a deadline, an unreachable container runtime, a
        store that failed. Permanent: authentication, bad options, a missing CLI or
        container, a session that does not exist, a protocol the SDK cannot read, limits
        reached (turns, budget, context). An engine's retry policy can use it as is::

            except cs.ClaudeSDKError as exc:
                if not exc.retryable:
                    raise NonRetryable(str(exc)) from exc
                raise
        """
        return self.kind in _TRANSIENT_KINDS

    def __str__(self) -> str:
        text = self.message
        if text != self._default_message():
            facts = self._facts_text()
            if facts and facts not in text:
                text = f"{text} ({facts})"
        return text + self._extra_text()

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self._facts().items())
        return f"{type(self).__name__}({args})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only constructors defeat BaseException's default ``cls(*args)``; rebuild
        # from the facts, then restore any other attributes (``__notes__``, user additions).
        return (_rebuild, (type(self), self._facts()), dict(self.__dict__))


class CLINotFoundError(ClaudeSDKError):
    """The Claude Code CLI executable could not be found.

    Attributes:
        searched: Every place looked, in order, each a human-readable line such as
            ``"option cli_path: /x/claude (not found)"``.
        hint: How to install the CLI or point the SDK at it.
    """

    default_kind: str | None = "cli_not_found"

    searched: tuple[str, ...]
    hint: str

    def __init__(
        self,
        message: str | None = None,
        *,
        searched: tuple[str, ...] | list[str] = (),
        hint: str = (
            "install it with `npm install -g @anthropic-ai/claude-code`, "
            "or set Options.cli_path to the executable"
        ),
        kind: str | None = None,
    ) -> None:
        """Initialise from the places searched and an install hint."""
        self.searched = tuple(searched)
        self.hint = hint
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return "Claude Code CLI not found"

    def _extra_text(self) -> str:
        lines = ["", "searched:"] if self.searched else ["", "searched: (nowhere)"]
        lines.extend(f"  - {place}" for place in self.searched)
        lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "searched": self.searched, "hint": self.hint}


class OptionsError(ClaudeSDKError, ValueError, TypeError):
    """An option has a value the SDK cannot use: raised while the options are built.

    Raised by ``Options(...)``, ``attrs.evolve(options, ...)`` and the option classes
    (MCP server configs, system prompts, ``ThinkingConfig``). It is also a `ValueError` and
    a `TypeError`, so code written for the bare exceptions these raised before keeps working.
    The message names the option and never shows an environment or header value.

    Attributes:
        option: The offending option's name, as the class being built spells it (for
            example ``"env"`` for ``Options.env``, ``"budget_tokens"`` for
            ``ThinkingConfig.budget_tokens``), or ``None`` when no single one is at fault.
    """

    default_kind: str | None = "options"

    option: str | None

    def __init__(
        self, message: str | None = None, *, option: str | None = None, kind: str | None = None
    ) -> None:
        """Initialise from the offending option's name."""
        self.option = option
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return f"invalid value for the option {self.option}" if self.option else "invalid options"

    def _facts_text(self) -> str:
        # Most messages name the option already ("Options.env: ..."); do not repeat it.
        if self.option is None or self.option in self.message:
            return ""
        return f"option={self.option}"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "option": self.option}


def _signal_name(signum: int) -> str:
    import signal  # on the first error that names one, not in every program's import

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class ProcessError(ClaudeSDKError):
    """The CLI process failed: it could not start, exited non-zero, or was killed.

    Attributes:
        exit_code: The exit status, or ``None`` when unknown or killed by a signal.
        signal: The number of the signal that killed the process, or ``None``.
        stderr_tail: The last part of the CLI's stderr (possibly empty).
        cli_path: The resolved CLI path, when known.
    """

    default_kind: str | None = "process"

    exit_code: int | None
    signal: int | None
    stderr_tail: str
    cli_path: str | None

    def __init__(
        self,
        message: str | None = None,
        *,
        exit_code: int | None = None,
        signal: int | None = None,
        stderr_tail: str = "",
        cli_path: str | None = None,
        kind: str | None = None,
    ) -> None:
        """Initialise from the exit status, signal, stderr tail and CLI path."""
        self.exit_code = exit_code
        self.signal = signal
        self.stderr_tail = stderr_tail
        self.cli_path = cli_path
        super().__init__(message, kind=kind)

    @property
    def startup_failure_reason(self) -> str | None:
        """Why the CLI refused to start when it said so on stderr rather than in an error
        result (a `STARTUP_FAILURES` key, for example ``"sideload_flags_disabled"``)."""
        if self.signal is not None or not self.stderr_tail:
            return None
        for words, reason in _STARTUP_STDERR:
            if words in self.stderr_tail:
                return reason
        return None

    @property
    def retryable(self) -> bool:
        """Killed, crashed, unreachable or timed out: True; could not start, exited with a
        status before it answered ``initialize`` (``kind="startup"``: an unknown option, an
        invalid model, a bad ``--resume`` id), no such container, the CLI's stderr says it
        cannot authenticate or refuses to start (see `startup_failure_reason`): False."""
        if self.kind in ("spawn", "container_not_found", "startup"):
            return False
        reason = self.startup_failure_reason
        if reason is not None:
            return STARTUP_FAILURES.get(reason, ("", False))[1]
        if self.kind in _TRANSIENT_KINDS or self.signal is not None:
            return True
        tail = self.stderr_tail.lower()
        return self.kind == "process" and not any(word in tail for word in _AUTH_WORDS)

    def _status(self) -> str:
        if self.signal is not None:
            return f"killed by {_signal_name(self.signal)} ({self.signal})"
        if self.exit_code is not None:
            return f"exit code {self.exit_code}"
        return ""

    def _default_message(self) -> str:
        cli = f" ({self.cli_path})" if self.cli_path else ""
        if self.kind == "spawn":
            head = f"could not start the Claude Code CLI{cli}"
        elif self.signal is not None:
            head = f"Claude Code CLI{cli} was {self._status()}"
        elif self.exit_code is not None:
            head = f"Claude Code CLI{cli} exited with {self._status()}"
            reason = self.startup_failure_reason
            if reason is not None:
                head += f": it refused to start ({reason}: {STARTUP_FAILURES[reason][0]})"
            elif self.kind == "startup":
                head += " before it answered initialize: it refused to start"
        else:
            head = f"Claude Code CLI{cli} failed"
        return head

    def _facts_text(self) -> str:
        return self._status()

    def _extra_text(self) -> str:
        tail = self.stderr_tail.rstrip()
        if not tail:
            return "\nstderr: (empty)"
        lines = tail.splitlines()[-_STDERR_LINES_SHOWN:]
        return "\nstderr (last lines):\n" + "\n".join(f"  {line}" for line in lines)

    def _facts(self) -> dict[str, Any]:
        return {
            **super()._facts(),
            "exit_code": self.exit_code,
            "signal": self.signal,
            "stderr_tail": self.stderr_tail,
            "cli_path": self.cli_path,
        }


class MessageDecodeError(ClaudeSDKError):
    """A line from the CLI could not be decoded into a message.

    Attributes:
        line: The offending line, whole.
        reason: Why it could not be decoded.
    """

    default_kind: str | None = "decode"

    line: bytes
    reason: str

    def __init__(
        self,
        message: str | None = None,
        *,
        line: bytes = b"",
        reason: str = "invalid message",
        kind: str | None = None,
    ) -> None:
        """Initialise from the offending line and the reason."""
        self.line = line
        self.reason = reason
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return f"could not decode a CLI message: {self.reason}: {short_repr(self.line)}"

    def _facts_text(self) -> str:
        return f"{self.reason}: {short_repr(self.line)}"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "line": self.line, "reason": self.reason}


class DriftError(MessageDecodeError):
    """A strict decode found kinds, fields or value types the model does not know.

    Raised only by ``claude_sdk.wire.decode(line, strict=True)`` (tests and upgrade checks);
    normal decoding keeps unknown data instead.

    Attributes:
        findings: One line per finding, with its JSON path.
    """

    default_kind: str | None = "drift"

    findings: tuple[str, ...]

    def __init__(
        self,
        message: str | None = None,
        *,
        line: bytes = b"",
        findings: tuple[str, ...] | list[str] = (),
        kind: str | None = None,
    ) -> None:
        """Initialise from the line and what the strict check found."""
        self.findings = tuple(findings)
        reason = "; ".join(self.findings) or "drift"
        super().__init__(message, line=line, reason=f"model drift: {reason}", kind=kind)

    def _facts(self) -> dict[str, Any]:
        facts = super()._facts()
        facts.pop("reason", None)
        return {**facts, "findings": self.findings}


class LineTooLongError(ClaudeSDKError):
    """A line on the CLI's stdout was longer than ``Options.max_line_bytes``.

    Attributes:
        limit: The limit in bytes (``Options.max_line_bytes``).
        size: Bytes of the line seen when it was rejected; at least ``limit + 1``, and the
            full length only when the whole line had arrived by then.
    """

    default_kind: str | None = "line_too_long"

    limit: int
    size: int

    def __init__(
        self,
        message: str | None = None,
        *,
        limit: int,
        size: int,
        kind: str | None = None,
    ) -> None:
        """Initialise from the limit and the bytes seen."""
        self.limit = limit
        self.size = size
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return (
            f"a CLI stdout line exceeded the limit of {self.limit} bytes "
            f"(rejected after {self.size} bytes); raise Options.max_line_bytes to accept it"
        )

    def _facts_text(self) -> str:
        return f"limit={self.limit}, size={self.size}, option Options.max_line_bytes"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "limit": self.limit, "size": self.size}


class ControlTimeoutError(ClaudeSDKError, TimeoutError):
    """A control request got no response in time.

    Attributes:
        subtype: The control request's subtype (for example ``"interrupt"``).
        request_id: The request's id, when one was assigned.
        timeout: The time waited, in seconds.
    """

    default_kind: str | None = "timeout"

    subtype: str
    request_id: str | None
    timeout: float

    def __init__(
        self,
        message: str | None = None,
        *,
        subtype: str,
        timeout: float,
        request_id: str | None = None,
        kind: str | None = None,
    ) -> None:
        """Initialise from the subtype, timeout and request id."""
        self.subtype = subtype
        self.request_id = request_id
        self.timeout = timeout
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        rid = f" (request_id={self.request_id})" if self.request_id else ""
        return f"control request {self.subtype!r}{rid} got no response within {self.timeout:g} s"

    def _facts_text(self) -> str:
        return f"subtype={self.subtype}, request_id={self.request_id}, timeout={self.timeout:g}"

    def _facts(self) -> dict[str, Any]:
        return {
            **super()._facts(),
            "subtype": self.subtype,
            "timeout": self.timeout,
            "request_id": self.request_id,
        }


class InitializeTimeoutError(ControlTimeoutError):
    """The CLI did not answer the ``initialize`` handshake in time."""

    def __init__(
        self,
        message: str | None = None,
        *,
        timeout: float,
        request_id: str | None = None,
        subtype: str = "initialize",
        kind: str | None = None,
    ) -> None:
        """Initialise from the timeout and request id."""
        super().__init__(
            message, subtype=subtype, timeout=timeout, request_id=request_id, kind=kind
        )

    def _default_message(self) -> str:
        return (
            f"the Claude Code CLI did not answer the initialize request within {self.timeout:g} s"
        )


class InactivityTimeoutError(ClaudeSDKError, TimeoutError):
    """The CLI produced no output for longer than the inactivity timeout.

    Attributes:
        timeout: The inactivity limit, in seconds.
        last_activity: ``time.monotonic()`` of the last output seen, or ``None``.
    """

    default_kind: str | None = "timeout"

    timeout: float
    last_activity: float | None

    def __init__(
        self,
        message: str | None = None,
        *,
        timeout: float,
        last_activity: float | None = None,
        kind: str | None = None,
    ) -> None:
        """Initialise from the timeout and the time of the last activity."""
        self.timeout = timeout
        self.last_activity = last_activity
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return f"no output from the Claude Code CLI for {self.timeout:g} s"

    def _facts_text(self) -> str:
        return f"timeout={self.timeout:g}"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "timeout": self.timeout, "last_activity": self.last_activity}


class ControlRequestError(ClaudeSDKError):
    """The CLI answered a control request with an error.

    Attributes:
        subtype: The control request's subtype.
        error: The CLI's error text.
        error_code: The CLI's machine-readable error code, when given.
        request_id: The request's id, when known.
    """

    default_kind: str | None = "control"

    subtype: str
    error: str
    error_code: str | None
    request_id: str | None

    def __init__(
        self,
        message: str | None = None,
        *,
        subtype: str,
        error: str,
        error_code: str | None = None,
        request_id: str | None = None,
        kind: str | None = None,
    ) -> None:
        """Initialise from the subtype, error text, error code and request id."""
        self.subtype = subtype
        self.error = error
        self.error_code = error_code
        self.request_id = request_id
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        code = f" [error_code={self.error_code}]" if self.error_code else ""
        return f"control request {self.subtype!r} failed: {self.error}{code}"

    def _facts_text(self) -> str:
        code = f", error_code={self.error_code}" if self.error_code else ""
        return f"subtype={self.subtype}, error={self.error!r}{code}"

    def _facts(self) -> dict[str, Any]:
        return {
            **super()._facts(),
            "subtype": self.subtype,
            "error": self.error,
            "error_code": self.error_code,
            "request_id": self.request_id,
        }


class SessionClosedError(ClaudeSDKError):
    """The session, or the CLI's stdout, has ended.

    Attributes:
        cause: What ended it, as text (for example ``"CLI stdout reached EOF"``), or ``None``.
    """

    default_kind: str | None = "session_closed"

    cause: str | None

    def __init__(
        self,
        message: str | None = None,
        *,
        cause: str | None = None,
        kind: str | None = None,
    ) -> None:
        """Initialise from an optional description of the cause."""
        self.cause = cause
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return f"the session is closed: {self.cause}" if self.cause else "the session is closed"

    def _facts_text(self) -> str:
        return self.cause or ""

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "cause": self.cause}


class PromptWithdrawnError(ClaudeSDKError):
    """The CLI withdrew a prompt from its queue before running it: no result will come.

    Raised to the consumer waiting for that prompt's reply (``receive_response``, ``ask``,
    ``SessionPool.ask``) when the prompt was withdrawn by ``interrupt(cancel_queued=True)``,
    ``cancel_async_message``, or the CLI's own ``cancelled`` lifecycle.

    Attributes:
        prompt_uuid: The withdrawn prompt's uuid.
        reason: What withdrew it, in a few words.
    """

    default_kind: str | None = "withdrawn"

    prompt_uuid: str
    reason: str

    def __init__(
        self,
        message: str | None = None,
        *,
        prompt_uuid: str,
        reason: str = "",
        kind: str | None = None,
    ) -> None:
        """Initialise from the prompt's uuid and what withdrew it."""
        self.prompt_uuid = prompt_uuid
        self.reason = reason
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        return f"the CLI withdrew prompt {self.prompt_uuid!r} before running it{why}; no reply"

    def _facts_text(self) -> str:
        return f"prompt_uuid={self.prompt_uuid}"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "prompt_uuid": self.prompt_uuid, "reason": self.reason}


class QuestionNotPendingError(ClaudeSDKError):
    """`claude_sdk.answer` found no question the session waits on (`claude_sdk.humans`).

    Attributes:
        session_id: The session.
        question_id: The question found answered (None when none was ever asked).
        reason: ``"answered"`` (its answer is in the transcript already, sent from here or
            from another host) or ``"never_asked"`` (no question is kept for the session
            where these options read: check ``session_store`` and ``cwd``).
    """

    default_kind: str | None = "not_pending"

    session_id: str
    question_id: str | None
    reason: str

    def __init__(
        self,
        message: str | None = None,
        *,
        session_id: str,
        question_id: str | None = None,
        reason: str = "never_asked",
        kind: str | None = None,
    ) -> None:
        """Initialise from the session, the question and why it is not pending."""
        self.session_id = session_id
        self.question_id = question_id
        self.reason = reason
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        if self.reason == "answered":
            return (
                f"question {self.question_id} of session {self.session_id} is answered "
                "already (its answer is in the transcript): nothing was sent"
            )
        return (
            f"session {self.session_id} waits on no question: none is kept where these "
            "options read (pass the session_store and cwd the session ran with)"
        )

    def _facts_text(self) -> str:
        return f"session_id={self.session_id}, reason={self.reason}"

    def _facts(self) -> dict[str, Any]:
        return {
            **super()._facts(),
            "session_id": self.session_id,
            "question_id": self.question_id,
            "reason": self.reason,
        }


class SessionNotFoundError(ClaudeSDKError):
    """No stored session has the requested id.

    Attributes:
        session_id: The id that was looked up.
    """

    default_kind: str | None = "session_not_found"

    session_id: str

    def __init__(
        self, message: str | None = None, *, session_id: str, kind: str | None = None
    ) -> None:
        """Initialise from the session id."""
        self.session_id = session_id
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return f"session {self.session_id!r} not found"

    def _facts_text(self) -> str:
        return f"session_id={self.session_id}"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "session_id": self.session_id}


class SessionStoreError(ClaudeSDKError):
    """The session store failed: a batch of transcript lines could not be stored, or a
    resume could not read the store.

    Attributes:
        operation: ``"append"``, ``"load"``, ``"list_sessions"`` or ``"list_subkeys"``.
        key: The store key involved (``project_key``, ``session_id``, maybe ``subpath``).
        entries: How many transcript lines were not stored (0 for a read).
    """

    default_kind: str | None = "session_store"

    operation: str
    key: dict[str, str]
    entries: int

    def __init__(
        self,
        message: str | None = None,
        *,
        operation: str,
        key: dict[str, str],
        entries: int = 0,
        kind: str | None = None,
    ) -> None:
        """Initialise from the operation, the key and the number of lines lost."""
        self.operation = operation
        self.key = dict(key)
        self.entries = entries
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        what = f"{self.entries} transcript lines not stored" if self.entries else "failed"
        return f"session store {self.operation} {what}"

    def _facts_text(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.key.items())

    def _facts(self) -> dict[str, Any]:
        return {
            **super()._facts(),
            "operation": self.operation,
            "key": self.key,
            "entries": self.entries,
        }


class TranscriptGapError(SessionStoreError):
    """A resume would hand the CLI a transcript with a hole: an entry follows one that no
    copy has (the store missed lines, a line was torn), so the model would resume without
    the turns before the cut. Checked before the CLI starts; nothing was written for it.

    Retryable: a store that catches up (the session that wrote the lines appends them again
    when the store answers) or a host that holds the CLI's own copy can resume it whole.

    Attributes:
        session_id: The session.
        missing: The uuids entries follow that no copy has (or, for an entry of another
            session, its own uuid).
        gaps: One line per cut (``entry 12 (assistant, uuid ...) follows ..., which is
            missing``).
        file: The transcript (``<session id>.jsonl`` or a subagent's, relative to the
            project directory).
    """

    default_kind: str | None = "transcript_gap"

    session_id: str
    missing: tuple[str, ...]
    gaps: tuple[str, ...]
    file: str

    def __init__(
        self,
        message: str | None = None,
        *,
        session_id: str,
        missing: tuple[str, ...] | list[str],
        gaps: tuple[str, ...] | list[str],
        file: str,
        operation: str = "load",
        key: dict[str, str] | None = None,
        entries: int = 0,
        kind: str | None = None,
    ) -> None:
        """Initialise from the session, what is missing and where."""
        self.session_id = session_id
        self.missing = tuple(missing)
        self.gaps = tuple(gaps)
        self.file = file
        super().__init__(
            message,
            operation=operation,
            key=key if key is not None else {"session_id": session_id},
            entries=entries,
            kind=kind,
        )

    def _default_message(self) -> str:
        shown = "; ".join(self.gaps[:3])
        more = f"; and {len(self.gaps) - 3} more" if len(self.gaps) > 3 else ""
        return (
            f"session {self.session_id}: {self.file} has {len(self.gaps)} "
            f"gap{'s' if len(self.gaps) != 1 else ''} in its chain of entries ({shown}{more}); "
            "resumed, the model would miss the turns before each gap. No copy here has the "
            "missing lines: retry once the session store has caught up, or resume where the "
            "CLI's own transcript of this session is"
        )

    def _facts(self) -> dict[str, Any]:
        return {
            **super()._facts(),
            "session_id": self.session_id,
            "missing": self.missing,
            "gaps": self.gaps,
            "file": self.file,
        }


class SessionBusyError(SessionStoreError):
    """Another live owner holds the session: a second attempt to run the same session at
    once would fork its conversation, and the next resume would silently drop one branch.

    Raised when a session opens (``Options.session_lease="raise"``, the default, with a
    store that keeps leases) while another process or task holds the session's lease, and,
    with kind ``"lease_lost"``, when a session finds its lease taken over (it expired while
    the store was unreachable or the process was stopped, and another owner took it): the
    session ends, and its later lines are not appended (the store refuses a stale owner's
    appends by the fencing token).

    Retryable: the owner's lease ends when it closes, or expires (``session_lease_ttl``)
    when it died.

    Attributes:
        session_id: The session.
        holder: Who holds the lease (``host/pid ...``, no secret), or None if unknown.
        expires_in: Seconds until the holder's lease expires unless renewed (None: it
            lasts while the holder's process lives, as with `DirectoryStore`).
    """

    default_kind: str | None = "session_busy"

    session_id: str
    holder: str | None
    expires_in: float | None

    def __init__(
        self,
        message: str | None = None,
        *,
        session_id: str,
        holder: str | None = None,
        expires_in: float | None = None,
        operation: str = "lease",
        key: dict[str, str] | None = None,
        entries: int = 0,
        kind: str | None = None,
    ) -> None:
        """Initialise from the session and who holds it."""
        self.session_id = session_id
        self.holder = holder
        self.expires_in = expires_in
        super().__init__(
            message,
            operation=operation,
            key=key if key is not None else {"session_id": session_id},
            entries=entries,
            kind=kind,
        )

    def _default_message(self) -> str:
        who = f" ({self.holder})" if self.holder else ""
        if self.kind == "lease_lost":
            return (
                f"session {self.session_id}: this session's lease was taken over by another "
                f"owner{who}; it ended so as not to fork the conversation (its later "
                "transcript lines are not in the store)"
            )
        until = (
            f"; its lease expires in {self.expires_in:.1f} s unless renewed"
            if self.expires_in is not None
            else "; its lease lasts while its process lives"
        )
        return (
            f"session {self.session_id} is in use by another owner{who}{until}. Two live "
            "owners would fork the conversation: retry later, or open with "
            "Options(session_lease='wait') to wait for it"
        )

    def _facts(self) -> dict[str, Any]:
        return {
            **super()._facts(),
            "session_id": self.session_id,
            "holder": self.holder,
            "expires_in": self.expires_in,
        }


#: Kinds that are transient whatever the class (`ClaudeSDKError.retryable`).
_TRANSIENT_KINDS = frozenset(
    {
        "rate_limit",
        "overloaded",
        "timeout",
        "session_closed",
        "container_unreachable",
        "session_store",
        "transcript_gap",
        "session_busy",
        "lease_lost",
    }
)
#: Words of a CLI's stderr that mean it cannot authenticate (retrying will not help).
_AUTH_WORDS = ("not logged in", "invalid api key", "authentication", "unauthorized", "/login")

_STATUS_KINDS = {
    401: "auth",
    403: "auth",
    413: "context_length",
    429: "rate_limit",
    529: "overloaded",
}
_SUBTYPE_KINDS = {
    "error_max_turns": "max_turns",
    "error_max_budget_usd": "budget",
    "error_max_structured_output_retries": "structured_output",
}
_TERMINAL_KINDS = {
    "prompt_too_long": "context_length",
    "aborted_streaming": "aborted",
    "aborted_tools": "aborted",
    "max_turns": "max_turns",
    "budget_exhausted": "budget",
    "structured_output_retry_exhausted": "structured_output",
    "api_error": "api_error",
}


#: Why a CLI refused to start (``ResultMessage.startup_failure_reason``), in the CLI's words
#: shortened: the fix to offer, and whether a retry alone may succeed. A reason not listed
#: (a newer CLI) still gives kind ``"startup"``; its text comes from the result's ``errors``.
STARTUP_FAILURES: Mapping[str, tuple[str, bool]] = {
    "org_pin_api_key_conflict": (
        "managed settings pin a sign-in, but an API key or auth token is configured instead",
        False,
    ),
    "provider_not_allowed": (
        "managed settings (allowedProviders) do not list the API provider this session uses",
        False,
    ),
    "org_verify_failed": (
        "the sign-in's organization could not be verified (network, or a revoked token)",
        True,
    ),
    "org_pin_mismatch": (
        "the sign-in belongs to an organization the managed pin does not allow",
        False,
    ),
    "managed_settings_invalid": (
        "managed settings could not be read, or leave no allowed model",
        False,
    ),
    "remote_settings_required_unavailable": (
        "settings the organization requires could not be loaded",
        True,
    ),
    "gateway_signin_required": ("the Cloud gateway ended this sign-in: sign in again", False),
    "gateway_access_denied": (
        "the Cloud gateway refused managed settings for this account",
        False,
    ),
    "proxy_invalid": ("a proxy setting is not a complete URL", False),
    "temp_dir_unusable": (
        "the per-user temp directory is unsafe or could not be created",
        False,
    ),
    "cwd_unavailable": (
        "the working directory was deleted, moved or cannot be read: start from another one",
        False,
    ),
    "shell_tool_missing": ("no shell tool (Windows: Git Bash and PowerShell missing)", False),
    "session_held_by_background": (
        "the conversation to resume is running as a background session",
        True,
    ),
    "worktree_resume_refused": (
        "the session's worktree failed its safety checks, or the resume ran inside it",
        False,
    ),
    "worktree_unverified": ("the session's worktree could not be verified right now", True),
    "cli_version_too_old": ("this CLI is older than the minimum required: update it", False),
    "bypass_root": ("bypassPermissions was asked for while running as root", False),
    "org_config_required_unavailable": (
        "the organization's required policy limits and settings could not be loaded",
        True,
    ),
    "org_config_refused": (
        "the organization's policy refused this sign-in: sign in again or ask an admin",
        False,
    ),
    "sandbox_required_unavailable": (
        "a working sandbox is required and cannot run here (e.g. bubblewrap missing)",
        False,
    ),
    "initialize_not_first": (
        "the CLI's first stdin line was not the initialize request (a wrapper changed it?)",
        False,
    ),
    "config_file_invalid": (
        "a configuration file read at start-up is not valid JSON: repair it",
        False,
    ),
    "managed_settings_not_delivered": (
        "the managed settings expected in the initialize request could not be used",
        False,
    ),
    "initialize_fields_not_delivered": (
        "the fields named by --initialize-fields could not be used from the initialize request",
        False,
    ),
    "sideload_flags_disabled": (
        "managed settings set disableSideloadFlags, and this launch names its own plugins, "
        "agents or MCP servers: start without them",
        False,
    ),
}


#: What a CLI writes on stderr when it refuses to start before it can write an error result
#: (then exits 1): words -> `STARTUP_FAILURES` key.
_STARTUP_STDERR: tuple[tuple[str, str], ...] = (
    ("managed settings (disableSideloadFlags)", "sideload_flags_disabled"),
    ("cannot be used with root/sudo privileges", "bypass_root"),
)


def startup_failure(result: object) -> str | None:
    """The startup-failure reason of an error result (None when it is another error)."""
    reason = getattr(result, "startup_failure_reason", None)
    return reason if isinstance(reason, str) and reason else None


def classify_result(result: object) -> str:
    """Return the ``kind`` of an error result.

    Reads ``subtype``, ``is_error``, ``api_error_status``, ``terminal_reason``, ``result``
    and ``errors`` with ``getattr`` (missing attributes count as ``None``), so any object
    shaped like a ``ResultMessage`` works. The first rule that matches wins:

    0. ``startup_failure_reason`` set (the CLI refused to start) -> ``"startup"``; a turn
       `Session.steer` cut short (``steered_by``) -> ``"steered"``; a turn a callback
       suspended for a person (``suspended``, `claude_sdk.humans`) -> ``"suspended"``.
    1. ``subtype``: ``error_max_turns`` -> ``"max_turns"``, ``error_max_budget_usd`` ->
       ``"budget"``, ``error_max_structured_output_retries`` -> ``"structured_output"``.
    2. ``api_error_status``: 401/403 -> ``"auth"``, 429 -> ``"rate_limit"``, 529 ->
       ``"overloaded"``, 413 -> ``"context_length"``.
    3. ``result`` text containing "Not logged in" -> ``"auth"``.
    4. ``terminal_reason``: ``prompt_too_long`` -> ``"context_length"``,
       ``aborted_streaming``/``aborted_tools`` -> ``"aborted"``, ``max_turns`` ->
       ``"max_turns"``, ``budget_exhausted`` -> ``"budget"``,
       ``structured_output_retry_exhausted`` -> ``"structured_output"``, ``api_error`` ->
       ``"api_error"``.
    5. Any other integer ``api_error_status``, or ``subtype == "success"`` with
       ``is_error`` true (how the CLI reports API errors) -> ``"api_error"``.
    6. Otherwise ``"error"``.

    Args:
        result: A ``ResultMessage`` or a stand-in with the same attribute names.

    Returns:
        The kind, for example ``"rate_limit"``.
    """
    if startup_failure(result) is not None:
        return "startup"
    if getattr(result, "steered_by", None) is not None:
        return "steered"
    if getattr(result, "suspended", None) is not None:
        return "suspended"
    subtype = getattr(result, "subtype", None)
    if isinstance(subtype, str) and subtype in _SUBTYPE_KINDS:
        return _SUBTYPE_KINDS[subtype]
    status = getattr(result, "api_error_status", None)
    has_status = isinstance(status, int) and not isinstance(status, bool)
    if has_status and status in _STATUS_KINDS:
        return _STATUS_KINDS[status]
    text = getattr(result, "result", None)
    if isinstance(text, str) and "not logged in" in text.lower():
        return "auth"
    terminal = getattr(result, "terminal_reason", None)
    if isinstance(terminal, str) and terminal in _TERMINAL_KINDS:
        return _TERMINAL_KINDS[terminal]
    if has_status or (subtype == "success" and getattr(result, "is_error", None) is True):
        return "api_error"
    return "error"


def _describe_result(result: object) -> str:
    """Return a one-line description of an error result that is never empty."""
    subtype = getattr(result, "subtype", None)
    facts: list[str] = []
    terminal = getattr(result, "terminal_reason", None)
    if terminal:
        facts.append(f"terminal_reason={terminal}")
    status = getattr(result, "api_error_status", None)
    if status is not None:
        facts.append(f"api_error_status={status}")
    reason = startup_failure(result)
    if reason is not None:
        known = STARTUP_FAILURES.get(reason)
        why = f": {known[0]}" if known else ""
        head = f"the CLI refused to start ({reason}{why})"
    else:
        head = f"turn ended with {subtype or 'an error'}"
    if reason is None and subtype == "success" and getattr(result, "is_error", None) is True:
        head = "turn ended with an error"
    if facts:
        head += f" ({', '.join(facts)})"
    details: list[str] = []
    errors = getattr(result, "errors", None)
    if isinstance(errors, (list, tuple)):
        details.extend(str(e) for e in errors if e)
    text = getattr(result, "result", None)
    if isinstance(text, str) and text.strip():
        details.insert(0, text.strip())
    if details:
        head += ": " + "; ".join(details)
    return head


#: What to do about an error result, by ``kind`` (`ResultError.hint`, shown by ``str()``).
RESULT_HINTS: Mapping[str, str] = {
    "auth": (
        "the CLI has no credentials that work: set ANTHROPIC_API_KEY (in the environment, "
        "or Options(env={'ANTHROPIC_API_KEY': ...})), or sign in once by running `claude` "
        "and /login. To work offline without an account (tests, CI), use "
        "claude_sdk.testing: FakeCLI (a scripted CLI) or FakeMessagesAPI (the real CLI "
        "against a fake API)"
    ),
    "steered": (
        "session.steer() cut this turn short and sent another instruction: read that "
        "instruction's reply with session.receive_response(result.steered_by)"
    ),
    "max_turns": "the turn used every model round Options.max_turns allows: raise it",
    "budget": "the session spent Options.max_budget_usd: raise it, or start a new session",
    "context_length": (
        "the conversation no longer fits the model's context: compact it "
        "(session.send('/compact')) or start a new session"
    ),
}


class ResultError(ClaudeSDKError):
    """A turn ended with an error result.

    Attributes:
        result: The ``ResultMessage`` that reported the error.
        kind: ``classify_result(result)`` unless given explicitly.
    """

    result: ResultMessage

    def __init__(
        self, message: str | None = None, *, result: ResultMessage, kind: str | None = None
    ) -> None:
        """Initialise from the error result."""
        self.result = result
        super().__init__(message, kind=kind if kind is not None else classify_result(result))

    @property
    def startup_failure_reason(self) -> str | None:
        """Why the CLI refused to start (``kind == "startup"``), else None."""
        return startup_failure(self.result)

    @property
    def retryable(self) -> bool:
        """429, 529, any 5xx, or an API error without a status (a dropped connection); a
        startup failure only when its reason may pass (`STARTUP_FAILURES`)."""
        reason = startup_failure(self.result)
        if reason is not None:
            return STARTUP_FAILURES.get(reason, ("", False))[1]
        status = getattr(self.result, "api_error_status", None)
        if isinstance(status, int) and not isinstance(status, bool):
            return status in (408, 409, 429, 529) or status >= 500
        return self.kind in ("rate_limit", "overloaded", "api_error")

    @property
    def hint(self) -> str | None:
        """What to do about an error of this ``kind`` (`RESULT_HINTS`), or None."""
        return RESULT_HINTS.get(self.kind or "")

    def _default_message(self) -> str:
        return _describe_result(self.result)

    def _facts_text(self) -> str:
        subtype = getattr(self.result, "subtype", None)
        return f"kind={self.kind}, subtype={subtype}"

    def _extra_text(self) -> str:
        hint = self.hint
        return "" if hint is None else f"\nhint: {hint}"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "result": self.result}


class UsageLimitError(ResultError):
    """The account's usage limit refused the turn (a subscription's five-hour or weekly
    limit, an organization's cap): nothing will pass before it resets.

    Never retryable, so no retry policy runs into the wall again; a `SessionPool` with
    ``PoolLimits(on_usage_limit="park")`` holds its prompts until ``resets_at`` instead.
    Found by `usage_limit` (one rule): an error result after a ``rate_limit_event`` whose
    status is ``"rejected"``, or whose text is the CLI's usage-limit message.

    Attributes:
        resets_at: when the limit resets (UTC), when the CLI said; else None.
        limit_type: which limit (``"five_hour"``, ``"seven_day"``, ...), when it said.
    """

    default_kind: str | None = "usage_limit"

    resets_at: datetime.datetime | None
    limit_type: str | None

    def __init__(
        self,
        message: str | None = None,
        *,
        result: ResultMessage,
        resets_at: datetime.datetime | None = None,
        limit_type: str | None = None,
        kind: str | None = None,
    ) -> None:
        """Initialise from the error result and what the CLI said of the limit."""
        self.resets_at = resets_at
        self.limit_type = limit_type
        super().__init__(message, result=result, kind=kind or "usage_limit")

    @property
    def retryable(self) -> bool:
        """False: the same call fails until ``resets_at``."""
        return False

    @property
    def hint(self) -> str | None:
        """When it resets, and what to do meanwhile."""
        when = (
            "at an unknown time"
            if self.resets_at is None
            else f"at {self.resets_at:%Y-%m-%d %H:%M:%S} UTC"
        )
        return (
            f"the usage limit{f' ({self.limit_type})' if self.limit_type else ''} resets "
            f"{when}; wait until then (SessionPool: PoolLimits(on_usage_limit='park') "
            "holds the pool's prompts until the reset), or use another account or an API key"
        )

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "resets_at": self.resets_at, "limit_type": self.limit_type}


#: The CLI's own words for a usage limit in a result's text (its older form ends with
#: ``|<epoch seconds of the reset>``).
_USAGE_LIMIT_TEXT = re.compile(
    r"usage limit reached(?:\|(?P<epoch>\d{9,12}))?|you(?:'|\u2019)ve hit your (?:usage )?limit",
    re.IGNORECASE,
)


def usage_limit(
    result: object, events: Sequence[object] = ()
) -> tuple[datetime.datetime | None, str | None] | None:
    """``(resets_at, limit_type)`` when the error ``result`` is the account's usage limit,
    else None: the turn's last ``rate_limit_event`` (``events``, oldest first) says
    ``"rejected"``, or the result's text is the CLI's usage-limit message."""
    if getattr(result, "is_error", None) is not True:
        return None
    info = None
    for event in reversed(events):
        info = getattr(event, "rate_limit_info", None)
        if info is not None:
            break
    if info is not None and getattr(info, "status", None) == "rejected":
        return _epoch(getattr(info, "resets_at", None)), _text(
            getattr(info, "rate_limit_type", None)
        )
    text = getattr(result, "result", None)
    found = _USAGE_LIMIT_TEXT.search(text) if isinstance(text, str) else None
    if found is None:
        return None
    return _epoch(int(found["epoch"]) if found["epoch"] else None), None


def _epoch(value: object) -> datetime.datetime | None:
    """An epoch in seconds (or milliseconds) as a UTC datetime; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    seconds = value / 1000 if value > 10**11 else value
    try:
        return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


class StructuredOutputError(ResultError):
    """A successful turn without the structured output ``output_format`` asked for: none at
    all, or one that does not validate against the schema or turn into the class.

    ``ask()`` raises it; the `ResultMessage` says the same in ``structured_output_error``.
    ``kind`` is ``"structured_output"`` (as for the CLI's own
    ``error_max_structured_output_retries``); a retry may succeed (the model may answer
    correctly next time), so it is `retryable`.

    Attributes:
        result: The ``ResultMessage`` (``subtype="success"``).
        problem: What is wrong, for example ``$.age: expected integer, got string``.
    """

    problem: str

    def __init__(
        self,
        message: str | None = None,
        *,
        result: ResultMessage,
        problem: str,
        kind: str | None = None,
    ) -> None:
        """Initialise from the result and what is wrong with its structured output."""
        self.problem = problem
        super().__init__(message, result=result, kind=kind or "structured_output")

    @property
    def retryable(self) -> bool:
        """True: the model may give a fitting answer on another try."""
        return True

    def _default_message(self) -> str:
        return f"structured output unusable: {self.problem}"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "problem": self.problem}


class BudgetExceededError(ClaudeSDKError):
    """A pool's budget holds the prompt back: it was not sent (``PoolLimits``).

    The budget is spent; or the prompts in flight could spend the rest and the prompt waited
    ``max_wait`` for them; or the CLI reported a figure that cannot be read, so what was
    spent is not known (the budget fails closed). The message says which.

    Attributes:
        spent_usd: what the pool's sessions have cost so far.
        spent_tokens: the tokens they have used so far.
        limit: which limit was reached (``"max_cost_usd"`` or ``"max_tokens"``).
    """

    default_kind: str | None = "budget"

    def __init__(
        self,
        message: str | None = None,
        *,
        spent_usd: float,
        spent_tokens: int,
        limit: str,
        kind: str | None = None,
    ) -> None:
        """Initialise from what was spent and the limit reached."""
        self.spent_usd = spent_usd
        self.spent_tokens = spent_tokens
        self.limit = limit
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return (
            f"the pool's budget is spent ({self.limit}): ${self.spent_usd:.4f}, "
            f"{self.spent_tokens} tokens; the prompt was not sent"
        )

    def _facts(self) -> dict[str, Any]:
        return {
            **super()._facts(),
            "spent_usd": self.spent_usd,
            "spent_tokens": self.spent_tokens,
            "limit": self.limit,
        }


class RateLimitExceededError(ClaudeSDKError):
    """A prompt waited ``PoolLimits.max_wait`` for the pool's rate limit: it was not sent.

    Attributes:
        waited: seconds it waited.
    """

    default_kind: str | None = "rate_limit"

    def __init__(self, message: str | None = None, *, waited: float, kind: str | None = None):
        """Initialise from how long the prompt waited."""
        self.waited = waited
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return f"the pool's rate limit held the prompt {self.waited:.2f} s; it was not sent"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "waited": self.waited}
