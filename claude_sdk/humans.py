"""Durable human-in-the-loop: a question for a person suspends the session, not a process.

When the model asks the user (the ``AskUserQuestion`` tool) or a tool call needs a person's
permission, a ``can_use_tool`` callback may answer `PermissionSuspend` (or be
`suspend_for_a_person`, which does so for every question and permission). Then:

1. the session keeps the pending question with the session: in ``Options.session_store``
   under the session's key (subpath ``claude_sdk/pending``, stored with the turn's lines,
   before the turn's result is handed out), else beside the CLI's transcript on this
   machine;
2. the CLI gets a denial that ends the turn (``interrupt``), so nothing waits;
3. the turn's result is marked (`ResultMessage.suspended`, a `PendingQuestion`), and
   ``ask`` returns it as `Reply.suspended` instead of raising. The process may exit.

Hours later, on any host that reaches the store, `answer` resumes the session and sends the
person's answer; the model continues from where it stopped, with the whole conversation::

    options = cs.Options(session_store=store, can_use_tool=cs.suspend_for_a_person)
    reply = await cs.ask("Plan the migration", options=options)
    if reply.suspended is not None:
        save(reply.suspended.session_id)      # and exit: nothing waits

    # later, anywhere:
    pending = await cs.pending_question(session_id, options=options)
    reply = await cs.answer(
        session_id, {pending.questions[0].question: "Blue"}, options=options
    )

An answer is a prompt sent with a uuid made from the question's id (`PendingQuestion.
answer_uuid`), and the CLI keeps a prompt's uuid in the transcript: the question is pending
exactly while the transcript lacks that prompt. So an answer is given once, whatever
fails in between (a crash after sending it finds it answered; a crash before finds it
pending), and two hosts answering at once are kept apart by the session's lease
(``Options.session_lease``, on stores that keep leases).

A permission answered ``allow=True`` lets that very call run when the model makes it again
(same tool, same input) without asking ``can_use_tool``; anything else it asks is asked.

Limits: one question per turn (the first; a second request in the suspended turn is denied
with it, and the model asks again after the answer). The model sees the answer as a new
message, not as the tool's result (the CLI ended the tool call when the turn was
suspended).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import anyio.to_thread
import attrs

from ._attrs import frozen
from ._paths import canonical, cli_config_dir, is_uuid, project_slug
from ._permissions import PermissionSuspend, ToolPermissionContext
from .errors import OptionsError, QuestionNotPendingError, SessionClosedError
from .messages import ResultMessage, UserMessage

if TYPE_CHECKING:
    from ._tool_inputs import UserQuestion
    from .options import Options
    from .query import Reply
    from .session import Session
    from .transports.base import Transport

__all__ = [
    "PENDING_SUBPATH",
    "PendingQuestion",
    "PermissionSuspend",
    "answer",
    "pending_question",
    "suspend_for_a_person",
]

#: Where a session's pending questions are kept under its store key (``subpath``), and, on
#: this machine without a store, under the CLI's session directory (``<id>/<subpath>.jsonl``).
PENDING_SUBPATH: Final = "claude_sdk/pending"
#: The ``type`` of a pending-question record.
RECORD_TYPE: Final = "claude_sdk_pending"
#: The namespace of `PendingQuestion.answer_uuid` (fixed: the same question has the same
#: answer uuid in every process, on every machine, in every release).
ANSWER_NAMESPACE: Final = uuid.UUID("3c7e9a14-5b2d-5f60-8e1a-9d4b6c2f7a08")

#: What the CLI is told when a turn is suspended (its tool result says the call was
#: rejected; the answer comes as a later message).
SUSPENDED_NOTE: Final = "Paused until a person answers; their answer will come in a later message."

Kind = Literal["question", "permission"]


@frozen(kw_only=True)
class PendingQuestion:
    """A question a session waits on a person for (`claude_sdk.humans`).

    Attributes:
        id: the question's id (a UUID).
        session_id: the session it belongs to (resume it to answer).
        kind: ``"question"`` (the model asked the user: ``AskUserQuestion``) or
            ``"permission"`` (a tool call needs a person's permission).
        tool_name: the tool (``"AskUserQuestion"`` for a question).
        tool_input: the tool call's input as the CLI sent it.
        tool_use_id: the tool call's id.
        agent_id: the subagent that asked, if any.
        reason: `PermissionSuspend.reason`.
        asked_at: when it was asked (seconds since the epoch).
        project_key: the session's project key in the store.
    """

    id: str
    session_id: str
    kind: Kind
    tool_name: str
    tool_input: dict[str, Any] = attrs.field(factory=dict)
    tool_use_id: str | None = None
    agent_id: str | None = None
    reason: str = ""
    asked_at: float = 0.0
    project_key: str = ""

    @property
    def questions(self) -> tuple[UserQuestion, ...]:
        """The questions of an ``AskUserQuestion`` call (typed: ``question``, ``header``,
        ``options``, ``multi_select``); empty for a permission."""
        if self.kind != "question":
            return ()
        from .tool_inputs import AskUserQuestionInput, typed_input

        view = typed_input(self.tool_name, self.tool_input)
        if isinstance(view, AskUserQuestionInput):
            return tuple(view.questions)
        return ()

    @property
    def question_texts(self) -> tuple[str, ...]:
        """The text of each question (the keys `answer` takes), straight from the input."""
        found = self.tool_input.get("questions") if self.kind == "question" else None
        if not isinstance(found, list):
            return ()
        return tuple(
            q["question"]
            for q in found
            if isinstance(q, dict) and isinstance(q.get("question"), str)
        )

    @property
    def answer_uuid(self) -> str:
        """The uuid the answer is sent with: the transcript holds it once answered."""
        return str(uuid.uuid5(ANSWER_NAMESPACE, self.id))

    def record(self) -> dict[str, Any]:
        """The JSON record kept in the store (one line)."""
        return {
            "type": RECORD_TYPE,
            "uuid": self.id,
            "sessionId": self.session_id,
            "kind": self.kind,
            "toolName": self.tool_name,
            "toolInput": self.tool_input,
            "toolUseId": self.tool_use_id,
            "agentId": self.agent_id,
            "reason": self.reason,
            "askedAt": self.asked_at,
            "projectKey": self.project_key,
        }

    @classmethod
    def from_record(cls, entry: Mapping[str, Any]) -> PendingQuestion | None:
        """The question of a stored record; None for anything that is not one."""
        if entry.get("type") != RECORD_TYPE:
            return None
        ident, session, kind, tool = (
            entry.get("uuid"),
            entry.get("sessionId"),
            entry.get("kind"),
            entry.get("toolName"),
        )
        tool_input = entry.get("toolInput")
        if not (
            isinstance(ident, str)
            and isinstance(session, str)
            and kind in ("question", "permission")
            and isinstance(tool, str)
            and isinstance(tool_input, dict)
        ):
            return None
        asked = entry.get("askedAt")
        return cls(
            id=ident,
            session_id=session,
            kind=kind,
            tool_name=tool,
            tool_input=tool_input,
            tool_use_id=_str_or_none(entry.get("toolUseId")),
            agent_id=_str_or_none(entry.get("agentId")),
            reason=_str_or_none(entry.get("reason")) or "",
            asked_at=float(asked) if isinstance(asked, (int, float)) else 0.0,
            project_key=str(entry.get("projectKey") or ""),
        )


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def suspend_for_a_person(
    tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
) -> PermissionSuspend:
    """A ``can_use_tool`` callback that suspends the session for every question the model
    asks the user and every permission the CLI asks for (`claude_sdk.humans`).

    To suspend for some tools only, write a callback that returns `PermissionSuspend` for
    those and `PermissionAllow` or `PermissionDeny` for the rest.
    """
    return PermissionSuspend()


def kind_of(tool_name: str) -> Kind:
    """``"question"`` for the ``AskUserQuestion`` tool, else ``"permission"``."""
    return "question" if tool_name == "AskUserQuestion" else "permission"


# -- the answer ---------------------------------------------------------------------------


def answer_message(
    pending: PendingQuestion,
    answers: Mapping[str, Any] | None,
    allow: bool | None,
    message: str | None,
) -> UserMessage:
    """The prompt that carries a person's answer (checked against the question).

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
        return UserMessage.prompt(text, uuid=pending.answer_uuid)
    # A question (AskUserQuestion).
    if allow is False:
        text = (
            "The person you asked chose not to answer your questions."
            f"{note} Go on without their answers."
        )
        return UserMessage.prompt(text, uuid=pending.answer_uuid)
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
    text = (
        "The person you asked has answered your questions: "
        + ", ".join(parts)
        + f".{note} Go on with these answers in mind."
    )
    return UserMessage.prompt(text, uuid=pending.answer_uuid)


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


# -- keeping and finding questions ---------------------------------------------------------


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


async def _latest(options: Options, session_id: str) -> PendingQuestion | None:
    """The session's latest kept question, answered or not."""
    from .steps import read_session_file

    entries = await read_session_file(options, session_id, PENDING_SUBPATH, who="pending_question")
    for entry in reversed(entries):
        found = PendingQuestion.from_record(entry)
        if found is not None and found.session_id == session_id:
            return found
    return None


async def _answered(options: Options, pending: PendingQuestion) -> bool:
    """The transcript holds the question's answer."""
    from .steps import read_session_file

    entries = await read_session_file(options, pending.session_id, who="pending_question")
    target = pending.answer_uuid
    return any(entry.get("uuid") == target for entry in entries)


def _session_of(target: str | PendingQuestion) -> str:
    session_id = target.session_id if isinstance(target, PendingQuestion) else target
    if not isinstance(session_id, str) or not is_uuid(session_id):  # type: ignore[redundant-expr]
        raise OptionsError(
            f"name the suspended session by its id (a UUID) or pass its PendingQuestion, "
            f"not {session_id!r:.80}",
            option="session_id",
        )
    return session_id


async def pending_question(
    session_id: str, *, options: Options | None = None
) -> PendingQuestion | None:
    """The question the session ``session_id`` waits on, or None when it waits on none.

    Read from ``options.session_store`` (else this machine's files), as a resume would:
    pass the options the session runs with.

    Raises:
        OptionsError: ``session_id`` is not a UUID.
        SessionStoreError: the store failed or timed out (retryable).
    """
    from .options import Options

    options = options if options is not None else Options()
    session_id = _session_of(session_id)
    found = await _latest(options, session_id)
    if found is None or await _answered(options, found):
        return None
    return found


async def answer(
    target: str | PendingQuestion,
    answers: Mapping[str, Any] | None = None,
    *,
    allow: bool | None = None,
    message: str | None = None,
    options: Options | None = None,
    transport: Transport | None = None,
) -> Reply:
    """Resume a suspended session with a person's answer; return the turn it starts.

    Args:
        target: the session's id, or its `PendingQuestion`.
        answers: for a question (``AskUserQuestion``): question text -> answer (a string,
            a number, or a list of strings for several choices), every question answered.
        allow: for a permission: run the call (True) or not (False). For a question,
            ``allow=False`` declines to answer.
        message: a note from the person, sent with the answer.
        options: the options the session runs with (its store, cwd, callbacks); the
            session is resumed as it is (`Options.resuming`).
        transport: as for `claude_sdk.ask`.

    Raises:
        QuestionNotPendingError: the session waits on no question (never asked, or
            answered already, here or elsewhere).
        OptionsError: the answer does not fit the question (`answer_message`).
        SessionBusyError: another live owner holds the session (a store with leases).
        ResultError: the turn the answer started ended with an error.
    """
    from .options import Options
    from .query import reply_of
    from .session import open_session

    options = options if options is not None else Options()
    session_id = _session_of(target)
    resumed = options.resuming(session_id)
    async with open_session(resumed, transport=transport) as session:
        # Under the session's lease: nobody answers it meanwhile.
        pending = await _latest(resumed, session_id)
        if pending is None and isinstance(target, PendingQuestion):
            pending = target  # kept nowhere this host reads: the caller's copy
        if pending is None:
            raise QuestionNotPendingError(session_id=session_id, reason="never_asked")
        if await _answered(resumed, pending):
            raise QuestionNotPendingError(
                session_id=session_id, question_id=pending.id, reason="answered"
            )
        prompt = await send_answer(session, pending, answers, allow=allow, message=message)
        seen = [m async for m in session.receive_response(prompt)]
    if not seen or not isinstance(seen[-1], ResultMessage):
        raise SessionClosedError("the CLI's output ended before the answer's turn ended")
    return reply_of(seen, resumed)


async def send_answer(
    session: Session,
    pending: PendingQuestion,
    answers: Mapping[str, Any] | None,
    *,
    allow: bool | None,
    message: str | None,
) -> str:
    """Send the answer prompt into ``session`` (`Session.answer`); returns its uuid."""
    prompt = answer_message(pending, answers, allow, message)
    core = session._core
    if pending.kind == "permission" and allow:
        core.grants.append((pending.tool_name, dict(pending.tool_input)))
    if core.pending is not None and core.pending.id == pending.id:
        core.pending = None
    return await session.send(prompt)


def new_question(
    request: Any, decision: PermissionSuspend, session_id: str, project_key: str
) -> PendingQuestion:
    """The `PendingQuestion` of a ``can_use_tool`` request a callback suspended."""
    tool_input = request.input
    return PendingQuestion(
        id=str(uuid.uuid4()),
        session_id=session_id,
        kind=kind_of(request.tool_name),
        tool_name=request.tool_name,
        tool_input=dict(tool_input) if isinstance(tool_input, Mapping) else {},
        tool_use_id=request.tool_use_id,
        agent_id=request.agent_id,
        reason=decision.reason,
        asked_at=time.time(),
        project_key=project_key,
    )


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
