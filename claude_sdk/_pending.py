"""A question a session waits on a person for: the data (`claude_sdk.humans` is the API).

A leaf module: no async library, no session (the message models name `PendingQuestion`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

import attrs

from ._attrs import frozen

if TYPE_CHECKING:
    from ._permissions import PermissionSuspend
    from ._tool_inputs import UserQuestion

__all__ = [
    "ANSWER_NAMESPACE",
    "PENDING_SUBPATH",
    "RECORD_TYPE",
    "SUSPENDED_NOTE",
    "PendingQuestion",
    "kind_of",
    "new_question",
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


def kind_of(tool_name: str) -> Kind:
    """``"question"`` for the ``AskUserQuestion`` tool, else ``"permission"``."""
    return "question" if tool_name == "AskUserQuestion" else "permission"


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
