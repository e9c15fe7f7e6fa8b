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

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._paths import is_uuid
from ._pending import PENDING_SUBPATH, PendingQuestion
from ._permissions import PermissionSuspend, ToolPermissionContext
from .errors import OptionsError, QuestionNotPendingError, SessionClosedError
from .messages import ResultMessage

if TYPE_CHECKING:
    from .options import Options
    from .query import Reply
    from .transports.base import Transport

__all__ = [
    "PENDING_SUBPATH",
    "PendingQuestion",
    "PermissionSuspend",
    "answer",
    "pending_question",
    "suspend_for_a_person",
]


def suspend_for_a_person(
    tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
) -> PermissionSuspend:
    """A ``can_use_tool`` callback that suspends the session for every question the model
    asks the user and every permission the CLI asks for (`claude_sdk.humans`).

    To suspend for some tools only, write a callback that returns `PermissionSuspend` for
    those and `PermissionAllow` or `PermissionDeny` for the rest.
    """
    return PermissionSuspend()


# -- the answer ---------------------------------------------------------------------------


# -- keeping and finding questions ---------------------------------------------------------


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
        prompt = await session.answer(answers, allow=allow, message=message, pending=pending)
        seen = [m async for m in session.receive_response(prompt)]
    if not seen or not isinstance(seen[-1], ResultMessage):
        raise SessionClosedError("the CLI's output ended before the answer's turn ended")
    return reply_of(seen, resumed)
