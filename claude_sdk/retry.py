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

import math
from collections.abc import Callable
from typing import Any

import attrs

from ._attrs import frozen
from .errors import (
    ClaudeSDKError,
    OptionsError,
    RateLimitExceededError,
    ResultError,
    StructuredOutputError,
    UsageLimitError,
)

__all__ = ["MAX_DELAY_LIMIT", "MAX_MULTIPLIER", "RetryAttempt", "RetryPolicy", "TRANSIENT_STATUSES"]

#: The API statuses a `RetryPolicy` treats as transient by default.
TRANSIENT_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


#: The longest delay a policy may ask for, in seconds (an hour): a retry further off than
#: that is not a retry of this turn.
MAX_DELAY_LIMIT = 3600.0
#: The largest growth of the delay per retry.
MAX_MULTIPLIER = 100.0


def _bounded(name: str, ceiling: float) -> Callable[[Any, Any, Any], None]:
    """A finite number in (0, ``ceiling``]: NaN, infinities, 0, negatives, bools and
    anything that is not a number are refused when the policy is built."""

    def check(instance: Any, attribute: Any, value: Any) -> None:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0 < value <= ceiling  # False for NaN
        ):
            raise OptionsError(
                f"RetryPolicy.{name} must be a number above 0 and at most {ceiling:g}, "
                f"not {value!r}",
                option=name,
            )

    return check


def _max_attempts(instance: Any, attribute: Any, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100:
        raise OptionsError(
            "RetryPolicy.max_attempts must be an int from 1 to 100", option="max_attempts"
        )


def _jitter(instance: Any, attribute: Any, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise OptionsError("RetryPolicy.jitter must be between 0 and 1", option="jitter")


@frozen(kw_only=True)
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


@frozen(kw_only=True)
class RetryPolicy:
    """How to retry a turn that failed transiently (see the module docstring).

    The delay before retry ``n`` (1 is the first) is ``min(max_delay, initial_delay *
    multiplier ** (n - 1))``, less up to ``jitter`` of it at random (so many clients that
    failed together do not come back together).

    Every figure is finite and bounded, or refused when the policy is built
    (`OptionsError`): ``max_attempts`` 1 to 100, delays above 0 and at most an hour
    (`MAX_DELAY_LIMIT`), ``multiplier`` above 0 and at most 100, ``jitter`` 0 to 1. So no
    retry waits longer than an hour, and the whole of a turn's waits at most
    ``(max_attempts - 1) * max_delay``.

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
    initial_delay: float = attrs.field(
        default=1.0, validator=_bounded("initial_delay", MAX_DELAY_LIMIT)
    )
    max_delay: float = attrs.field(default=30.0, validator=_bounded("max_delay", MAX_DELAY_LIMIT))
    multiplier: float = attrs.field(default=2.0, validator=_bounded("multiplier", MAX_MULTIPLIER))
    jitter: float = attrs.field(default=0.5, validator=_jitter)
    statuses: frozenset[int] = attrs.field(default=TRANSIENT_STATUSES, converter=frozenset)
    on_attempt: Callable[[RetryAttempt], Any] | None = attrs.field(default=None, eq=False)

    def delay(self, retry: int, draw: float | None = None) -> float:
        """Seconds to wait before retry ``retry`` (1 is the first); ``draw`` in [0, 1) is
        the random part (a fresh one when None)."""
        exponent = max(0, retry - 1)
        try:
            grown = self.initial_delay * self.multiplier**exponent
        except OverflowError:  # far past max_delay anyway
            grown = math.inf
        base = min(self.max_delay, grown)
        if draw is None:
            import random  # on the first retry, not in every program's import

            draw = random.random()
        share = draw
        share = min(max(share, 0.0), 1.0) if math.isfinite(share) else 0.0
        return base * (1 - self.jitter * share)

    def is_transient(self, error: BaseException) -> bool:
        """Whether ``error`` is worth another attempt: a `ClaudeSDKError` that is
        ``retryable`` (an API error result only for a status in ``statuses``, or none),
        never a structured output that does not fit (the model's answer, not a fault) nor a
        pool's own rate limit (`RateLimitExceededError`: the pool already waited)."""
        if not isinstance(error, ClaudeSDKError) or isinstance(
            error, (StructuredOutputError, RateLimitExceededError, UsageLimitError)
        ):
            # the model's answer, the pool's own limit, or the account's usage limit (the
            # same wall until it resets): not worth another attempt now
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
