"""Self-healing turns: an opt-in retry policy for transient failures (``Options.retry``).

A turn that fails with a transient error (the API's 429, 529 and 5xx once the CLI's own
retries are spent, a status-less API error such as a dropped stream, a CLI killed or crashed
mid-turn, a deadline) is run again, after a bounded, jittered backoff, **in the same session**:
a new CLI resumes the session by id with the failed attempt cut off, so the model sees the
earlier turns and the prompt once, as if the failure never happened. Nothing that is not
transient is retried: authentication, an invalid request, ``max_turns``, a budget, a refusal
to start, a structured output that does not fit, an interrupt (`RetryPolicy.is_transient`).

How an attempt resumes (what the CLI does, CLI 2.1.330 and later, checked in the e2e suite):

* ``--resume <session id> --resume-session-at <anchor> --resume-drops-turn <failed prompt>``:
  the anchor is the last message before the failed prompt (the session's previous turn), so
  the failed prompt, the API error and any partial work of the attempt are dropped; the
  ``drops-turn`` guard makes the CLI refuse (and the retry fall back to a plain resume) if
  anything else would be dropped. The anchor is the last assistant message of the
  conversation's previous turn when the SDK saw it (`SessionPool.ask`), else the failed
  prompt's parent in the local transcript.
* A failure in a session's first turn has no earlier message to resume at: the session is
  resumed at the failed prompt itself and the prompt is sent again (the model then reads it
  twice, once).
* A CLI that failed before it said which session it ran (nothing to resume) is started again
  with the original options.

Each retry is reported: `RetryAttempt` to ``RetryPolicy.on_attempt`` (sync or async), a
WARNING on the ``claude_sdk.retry`` logger, a ``claude_sdk.retry`` span with
``Options(telemetry=True)``, and `Reply.attempts`. When the attempts are spent, the last
error is raised with the attempts in its ``retry_attempts`` attribute.

Retried: `claude_sdk.ask` and `SessionPool.ask` with ``Options.retry``. A prompt given as an
async iterable of messages cannot be sent twice, so it is never retried; neither are turns a
caller drives itself (``Session.send``/``receive_response``): use `ClaudeSDKError.retryable`.
"""

from __future__ import annotations

import inspect
import logging
import random
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from .errors import (
    ClaudeSDKError,
    OptionsError,
    ResultError,
    SessionNotFoundError,
    StructuredOutputError,
)

if TYPE_CHECKING:
    from .messages import Message, UserMessage
    from .options import Options
    from .telemetry import Telemetry

__all__ = ["RetryAttempt", "RetryPolicy", "TRANSIENT_STATUSES"]

logger = logging.getLogger("claude_sdk.retry")

#: The API statuses a `RetryPolicy` treats as transient by default.
TRANSIENT_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


def _positive(name: str) -> Callable[[Any, Any, Any], None]:
    def check(instance: Any, attribute: Any, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise OptionsError(f"RetryPolicy.{name} must be a positive number", option=name)

    return check


def _max_attempts(instance: Any, attribute: Any, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100:
        raise OptionsError(
            "RetryPolicy.max_attempts must be an int from 1 to 100", option="max_attempts"
        )


def _jitter(instance: Any, attribute: Any, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise OptionsError("RetryPolicy.jitter must be between 0 and 1", option="jitter")


@attrs.frozen(kw_only=True)
class RetryAttempt:
    """One failed attempt of a turn, as reported before the next one.

    Attributes:
        attempt: the attempt that failed (1 is the first).
        max_attempts: the policy's limit.
        delay: seconds waited before the next attempt.
        error: what failed (``retryable`` is True).
        reason: the failure in a few words (``"HTTP 529 overloaded"``).
        session_id: the session the next attempt resumes, or None (started afresh).
        resume_at: the message uuid the next attempt resumes at, or None.
    """

    attempt: int
    max_attempts: int
    delay: float
    error: ClaudeSDKError
    reason: str
    session_id: str | None
    resume_at: str | None


@attrs.frozen(kw_only=True)
class RetryPolicy:
    """How to retry a turn that failed transiently (see the module docstring).

    The delay before retry ``n`` (1 is the first) is ``min(max_delay, initial_delay *
    multiplier ** (n - 1))``, less up to ``jitter`` of it at random (so many clients that
    failed together do not come back together).

    Attributes:
        max_attempts: attempts in all, the first included (1 never retries).
        initial_delay: seconds before the first retry (before jitter).
        max_delay: the longest delay.
        multiplier: growth of the delay per retry.
        jitter: the share of each delay drawn at random (0: none; 1: anywhere from 0).
        statuses: API statuses that are transient.
        on_attempt: called with each `RetryAttempt` before the wait (a function or a
            coroutine function); an exception it raises ends the retries with it.
    """

    max_attempts: int = attrs.field(default=4, validator=_max_attempts)
    initial_delay: float = attrs.field(default=1.0, validator=_positive("initial_delay"))
    max_delay: float = attrs.field(default=30.0, validator=_positive("max_delay"))
    multiplier: float = attrs.field(default=2.0, validator=_positive("multiplier"))
    jitter: float = attrs.field(default=0.5, validator=_jitter)
    statuses: frozenset[int] = attrs.field(default=TRANSIENT_STATUSES, converter=frozenset)
    on_attempt: Callable[[RetryAttempt], Any] | None = attrs.field(default=None, eq=False)

    def delay(self, retry: int, draw: float | None = None) -> float:
        """Seconds to wait before retry ``retry`` (1 is the first); ``draw`` in [0, 1) is
        the random part (a fresh one when None)."""
        base = min(self.max_delay, self.initial_delay * self.multiplier ** max(0, retry - 1))
        share = random.random() if draw is None else draw
        return base * (1 - self.jitter * share)

    def is_transient(self, error: BaseException) -> bool:
        """Whether ``error`` is worth another attempt: a `ClaudeSDKError` that is
        ``retryable`` (an API error result only for a status in ``statuses``, or none),
        never a structured output that does not fit (the model's answer, not a fault)."""
        if not isinstance(error, ClaudeSDKError) or isinstance(error, StructuredOutputError):
            return False
        if isinstance(error, ResultError):
            status = getattr(error.result, "api_error_status", None)
            if isinstance(status, int) and not isinstance(status, bool):
                return status in self.statuses and error.startup_failure_reason is None
        return error.retryable


def describe(error: ClaudeSDKError) -> str:
    """A failure in a few words, for a `RetryAttempt` and the log."""
    if isinstance(error, ResultError):
        status = getattr(error.result, "api_error_status", None)
        if isinstance(status, int):
            return f"HTTP {status} {error.kind or 'api_error'}"
        return f"{error.kind or 'error'} result"
    return f"{type(error).__name__} ({error.kind})"


class TurnRetry:
    """The state of one turn's attempts: what the next attempt resumes, and the reporting.

    Args:
        policy: the policy.
        options: the options of the first attempt.
        anchor: the uuid of the message the conversation ended with before this turn, when
            the caller knows it (else it is looked up in the local transcript on failure).
        local: look for the anchor in the transcript on this machine (where the CLI keeps it
            when it runs here; a transcript elsewhere is simply not found, and a wrong anchor
            is refused by the CLI's drop guard).
        telemetry: where to put the ``claude_sdk.retry`` spans.
    """

    def __init__(
        self,
        policy: RetryPolicy,
        options: Options,
        *,
        anchor: str | None = None,
        local: bool = True,
        telemetry: Telemetry | None = None,
    ) -> None:
        self.policy = policy
        self.base = options
        self.options = options
        self.anchor = anchor
        self.local = local
        self.telemetry = telemetry
        self.attempts: list[RetryAttempt] = []
        self.attempt = 1
        self._first_prompt: str | None = None
        self._last_prompt: str | None = None
        self._anchored = False

    def prompt(self, message: UserMessage) -> UserMessage:
        """This attempt's prompt: ``message`` with a fresh uuid (the attempt's turn id)."""
        from ._base import replace

        made: UserMessage = replace(message, uuid=str(uuid.uuid4()))
        self._last_prompt = made.uuid
        if self._first_prompt is None:
            self._first_prompt = made.uuid
        return made

    async def failed(self, error: BaseException, seen: Sequence[Message]) -> None:
        """The attempt failed with ``error`` after the messages ``seen``: re-raise it when it
        is not transient or the attempts are spent; else report, prepare the next attempt's
        options and wait the backoff."""
        if not isinstance(error, ClaudeSDKError) or not self.policy.is_transient(error):
            self._give_up(error)
            raise error
        if self.attempt >= self.policy.max_attempts:
            self._give_up(error)
            raise error
        session_id = _session_of(error, seen) or self._resumed_id()
        resume_at: str | None = None
        drops: str | None = None
        if session_id is not None:
            if self.anchor is None and not self._anchored and self.local:
                self._anchored = True
                self.anchor = await _anchor_in_transcript(
                    self.options, session_id, self._last_prompt
                )
            if self.anchor is not None:
                resume_at, drops = self.anchor, self._last_prompt
            else:
                resume_at = self._first_prompt  # a first turn: keep its prompt, once
        delay = self.policy.delay(self.attempt)
        report = RetryAttempt(
            attempt=self.attempt,
            max_attempts=self.policy.max_attempts,
            delay=delay,
            error=error,
            reason=describe(error),
            session_id=session_id,
            resume_at=resume_at,
        )
        self.attempts.append(report)
        self.options = self._next_options(session_id, resume_at, drops)
        logger.warning(
            "turn failed (%s), attempt %d of %d; retrying in %.2f s%s",
            report.reason,
            report.attempt,
            report.max_attempts,
            delay,
            f", resuming session {session_id}" if session_id else ", starting afresh",
        )
        if self.telemetry is not None and self.telemetry.enabled:
            with self.telemetry.span(
                "claude_sdk.retry",
                attempt=report.attempt,
                reason=report.reason,
                delay_s=delay,
                session_id=session_id,
            ):
                pass
        callback = self.policy.on_attempt
        if callback is not None:
            outcome = callback(report)
            if inspect.isawaitable(outcome):
                await outcome
        import anyio  # the policy values load no async library (Options imports them)

        await anyio.sleep(delay)
        self.attempt += 1

    def refused(self, error: BaseException) -> bool:
        """The CLI refused to resume at the anchor (its drop guard, or no such message):
        the next attempt resumes without cutting anything (returns True), once."""
        if (
            isinstance(error, SessionNotFoundError)
            and self.options.resume_session_at is not None
            and self.options.resume_drops_turn is not None
        ):
            logger.warning("the CLI would not resume at %s: %s", self.anchor, error)
            self.anchor = None
            self.options = self._next_options(self.options.resume, self._first_prompt, None)
            return True
        return False

    def _resumed_id(self) -> str | None:
        resume = self.options.resume
        if resume is not None and not self.options.fork_session:
            return resume
        return self.options.session_id

    def _next_options(
        self, session_id: str | None, resume_at: str | None, drops: str | None
    ) -> Options:
        if session_id is None:
            return self.base
        return attrs.evolve(
            self.base,
            resume=session_id,
            fork_session=False,
            continue_conversation=False,
            session_id=None,
            resume_missing="error",
            resume_session_at=resume_at,
            resume_drops_turn=drops,
        )

    def _give_up(self, error: BaseException) -> None:
        if self.attempts and isinstance(error, ClaudeSDKError):
            error.retry_attempts = tuple(self.attempts)  # type: ignore[attr-defined]
            note = f"claude_sdk: {len(self.attempts) + 1} attempts; the retry policy gave up"
            add_note = getattr(error, "add_note", None)
            if add_note is not None:
                add_note(note)


def _session_of(error: BaseException, seen: Sequence[Message]) -> str | None:
    result = getattr(error, "result", None)
    found = getattr(result, "session_id", None)
    if isinstance(found, str) and found:
        return found
    for message in reversed(seen):
        found = getattr(message, "session_id", None)
        if isinstance(found, str) and found and found != "default":
            return found
    return None


async def _anchor_in_transcript(
    options: Options, session_id: str, prompt: str | None
) -> str | None:
    """The uuid of the nearest message before ``prompt`` in the session's local transcript,
    or None (no transcript here, the prompt is not in it, or nothing comes before it)."""
    import anyio.to_thread

    return await anyio.to_thread.run_sync(_find_anchor, options, session_id, prompt)


def _find_anchor(options: Options, session_id: str, prompt: str | None) -> str | None:
    import json

    from ._paths import canonical, project_slug
    from ._session.stored import _config_dir

    config = _config_dir(dict(options.env))
    projects = config / "projects"
    candidates = [projects / project_slug(canonical(options.cwd)) / f"{session_id}.jsonl"]
    candidates += sorted(projects.glob(f"*/{session_id}.jsonl"))
    path: Path | None = next((p for p in candidates if p.is_file()), None)
    if path is None:
        return None
    entries: dict[str, dict[str, Any]] = {}
    try:
        with path.open("rb") as f:
            for line in f:
                try:
                    data = json.loads(line)
                except ValueError:
                    continue
                if isinstance(data, dict) and isinstance(data.get("uuid"), str):
                    entries[data["uuid"]] = data
    except OSError:
        return None
    entry = entries.get(prompt) if prompt is not None else None
    seen: set[str] = set()
    while entry is not None:
        parent = entry.get("parentUuid")
        if not isinstance(parent, str) or parent in seen:
            return None
        seen.add(parent)
        entry = entries.get(parent)
        if entry is not None and entry.get("type") in ("user", "assistant"):
            return parent
    return None
