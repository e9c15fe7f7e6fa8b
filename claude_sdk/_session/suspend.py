"""Keeping a pending question with its session (`claude_sdk.humans`): in the session
store through the session's mirror, else in a file beside the CLI's transcript here."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from .._paths import canonical, cli_config_dir, project_slug
from .._pending import PENDING_SUBPATH, PendingQuestion
from ..errors import OptionsError

if TYPE_CHECKING:
    from ..options import Options

__all__ = ["answer_text", "keep", "keep_locally", "local_file"]


def local_file(options: Options, session_id: str) -> Path:
    """This machine's file of a session's pending questions (without a store)."""
    directory = cli_config_dir(options.env) / "projects" / project_slug(canonical(options.cwd))
    return directory / session_id / f"{PENDING_SUBPATH}.jsonl"


def keep_locally(path: Path, record: Mapping[str, Any]) -> None:
    """Append ``record`` to ``path`` (directories 0700, the file 0600), on disk before it
    returns."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


async def keep(core: Any, pending: PendingQuestion) -> None:
    """Keep ``pending`` with the session: queued in the store's mirror (stored with the
    turn, before its result is handed out), else written to this machine's file.

    Raises:
        OSError: the local file could not be written (nothing is suspended then).
    """
    record = pending.record()
    mirror = core.mirror
    if mirror is not None:
        mirror.enqueue_key(
            {
                "project_key": pending.project_key,
                "session_id": pending.session_id,
                "subpath": PENDING_SUBPATH,
            },
            [record],
        )
        return
    path = local_file(core.options, pending.session_id)
    await anyio.to_thread.run_sync(keep_locally, path, record)


def answer_text(
    pending: PendingQuestion,
    answers: Mapping[str, Any] | None,
    allow: bool | None,
    message: str | None,
) -> str:
    """The text of the prompt that carries a person's answer (checked against the
    question); it is sent with `PendingQuestion.answer_uuid`.

    Raises:
        OptionsError: answers for a permission, ``allow`` missing for a permission, an
            answer missing for a question, or an answer to a question not asked.
    """
    note = f" {message.strip()}" if isinstance(message, str) and message.strip() else ""
    if pending.kind == "permission":
        if answers:
            raise OptionsError(
                f"the pending question is a permission for {pending.tool_name}: answer it "
                "with allow=True or allow=False (and an optional message), not answers",
                option="answers",
            )
        if allow is None:
            raise OptionsError(
                f"the pending question is a permission for {pending.tool_name}: pass "
                "allow=True (run it) or allow=False (do not)",
                option="allow",
            )
        if allow:
            text = (
                f"The person you were waiting for allowed your {pending.tool_name} call "
                f"(tool use {pending.tool_use_id}).{note} Make the call again now, with the "
                "same input, and go on."
            )
        else:
            text = (
                f"The person you were waiting for did not allow your {pending.tool_name} "
                f"call (tool use {pending.tool_use_id}).{note} Do not make it; go on "
                "without it."
            )
        return text
    # A question (AskUserQuestion).
    if allow is False:
        return (
            "The person you asked chose not to answer your questions."
            f"{note} Go on without their answers."
        )
    if answers is None or not isinstance(answers, Mapping):
        raise OptionsError(
            "the pending question asks the user: pass answers, a dict of question text -> "
            f"answer, for {_listed(pending.question_texts)}",
            option="answers",
        )
    asked = pending.question_texts
    unknown = [q for q in answers if q not in asked]
    if unknown:
        raise OptionsError(
            f"answers name questions that were not asked: {_listed(unknown)}; the questions "
            f"are {_listed(asked)}",
            option="answers",
        )
    missing = [q for q in asked if q not in answers]
    if missing:
        raise OptionsError(
            f"answers miss {_listed(missing)} (each question needs an answer; "
            "allow=False declines them all)",
            option="answers",
        )
    parts = []
    for question in asked:
        value = answers[question]
        parts.append(
            f"{json.dumps(question, ensure_ascii=False)}="
            f"{json.dumps(_answer_text(question, value), ensure_ascii=False)}"
        )
    return (
        "The person you asked has answered your questions: "
        + ", ".join(parts)
        + f".{note} Go on with these answers in mind."
    )


def _answer_text(question: str, value: object) -> str:
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    if (
        isinstance(value, Sequence)
        and not isinstance(value, (str, bytes))
        and value
        and all(isinstance(v, str) and v.strip() for v in value)
    ):
        return ", ".join(value)
    raise OptionsError(
        f"the answer to {question!r} must be a non-empty string, a number, or a list of "
        f"strings (several choices), not {value!r:.80}",
        option="answers",
    )


def _listed(items: Sequence[str]) -> str:
    return ", ".join(repr(i) for i in items) or "(none)"
