"""The attempts of one turn under a `RetryPolicy` (see `claude_sdk.retry`): what the next
attempt resumes, and the reports. Used by `claude_sdk.ask` and `SessionPool.ask`."""

from __future__ import annotations

import inspect
import json
import logging
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._paths import canonical, cli_config_dir, project_slug
from .errors import ClaudeSDKError, SessionNotFoundError
from .retry import RetryAttempt, RetryPolicy, describe

if TYPE_CHECKING:
    from .messages import Message, UserMessage
    from .options import Options
    from .telemetry import Telemetry

__all__ = ["TurnRetry"]

logger = logging.getLogger("claude_sdk.retry")


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
        telemetry: where to put the ``claude_sdk.retry`` spans (default: per
            ``options.telemetry``).
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
        # The span covers the report and the backoff (with Options(telemetry=True)).
        with self._telemetry().span(
            "claude_sdk.retry",
            attempt=report.attempt,
            reason=report.reason,
            delay_s=delay,
            session_id=session_id,
        ):
            callback = self.policy.on_attempt
            if callback is not None:
                outcome = callback(report)
                if inspect.isawaitable(outcome):
                    await outcome
            import anyio  # the policy values load no async library (Options imports them)

            await anyio.sleep(delay)
        self.attempt += 1

    def _telemetry(self) -> Telemetry:
        if self.telemetry is None:
            from .telemetry import Telemetry

            self.telemetry = Telemetry(self.base.telemetry)
        return self.telemetry

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
        return self.base.resuming(session_id, resume_session_at=resume_at, resume_drops_turn=drops)

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
    config = cli_config_dir(options.env)
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
