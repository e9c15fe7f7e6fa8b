"""The definitions of ``claude_sdk.permissions``, where they are public (see its documentation).

Private: its layout may change; import from ``claude_sdk.permissions`` or ``claude_sdk``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar, Literal

import attrs

from ._attrs import frozen
from ._base import UnknownBase, WireModel, model

__all__ = [
    "CanUseTool",
    "ToolPermissionContext",
    "PermissionMode",
    "PermissionBehavior",
    "PermissionUpdateDestination",
    "DecisionClassification",
    "PermissionRuleValue",
    "AddRulesUpdate",
    "ReplaceRulesUpdate",
    "RemoveRulesUpdate",
    "SetModeUpdate",
    "AddDirectoriesUpdate",
    "RemoveDirectoriesUpdate",
    "UnknownPermissionUpdate",
    "PermissionUpdate",
    "PermissionAllow",
    "PermissionDeny",
    "PermissionResult",
    "PermissionSuspend",
]

#: The modes ``set_permission_mode`` accepts. The ``--permission-mode`` flag calls
#: ``default`` ``manual``; the protocol never does.
PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]

#: What a rule does to a matching tool call.
PermissionBehavior = Literal["allow", "deny", "ask"]

#: Where a permission update is stored.
PermissionUpdateDestination = Literal[
    "userSettings", "projectSettings", "localSettings", "session", "cliArg"
]

#: How a host decision is recorded (``tool_result_meta`` ``source``).
DecisionClassification = Literal["user_temporary", "user_permanent", "user_reject"]


@model
class PermissionRuleValue(WireModel):
    """One rule: a tool name and an optional specifier (``Bash`` + ``git *``)."""

    tool_name: str
    #: The part in parentheses of ``Tool(specifier)``; omitted on the wire when None.
    rule_content: str | None = None


# --------------------------------------------------------------------------------------
# PermissionUpdate (§10.3)


@model
class AddRulesUpdate(WireModel):
    """Add rules with one behavior."""

    type: ClassVar[str] = "addRules"
    rules: list[PermissionRuleValue]
    behavior: PermissionBehavior
    destination: PermissionUpdateDestination = "session"


@model
class ReplaceRulesUpdate(WireModel):
    """Replace every rule of one behavior at the destination."""

    type: ClassVar[str] = "replaceRules"
    rules: list[PermissionRuleValue]
    behavior: PermissionBehavior
    destination: PermissionUpdateDestination = "session"


@model
class RemoveRulesUpdate(WireModel):
    """Remove rules of one behavior."""

    type: ClassVar[str] = "removeRules"
    rules: list[PermissionRuleValue]
    behavior: PermissionBehavior
    destination: PermissionUpdateDestination = "session"


@model
class SetModeUpdate(WireModel):
    """Switch the permission mode."""

    type: ClassVar[str] = "setMode"
    mode: PermissionMode
    destination: PermissionUpdateDestination = "session"


@model
class AddDirectoriesUpdate(WireModel):
    """Add working directories the tools may use."""

    type: ClassVar[str] = "addDirectories"
    directories: list[str]
    destination: PermissionUpdateDestination = "session"


@model
class RemoveDirectoriesUpdate(WireModel):
    """Remove working directories."""

    type: ClassVar[str] = "removeDirectories"
    directories: list[str]
    destination: PermissionUpdateDestination = "session"


@model
class UnknownPermissionUpdate(UnknownBase):
    """A permission update of a ``type`` the model does not know; ``raw`` is the dict."""

    @property
    def type(self) -> str | None:
        """The update's ``type``, if it is a string."""
        value = self.raw.get("type")
        return value if isinstance(value, str) else None


PermissionUpdate = (
    AddRulesUpdate
    | ReplaceRulesUpdate
    | RemoveRulesUpdate
    | SetModeUpdate
    | AddDirectoriesUpdate
    | RemoveDirectoriesUpdate
    | UnknownPermissionUpdate
)


# --------------------------------------------------------------------------------------
# PermissionResult (§10.2): the success payload of a can_use_tool answer


@model
class PermissionAllow(WireModel):
    """Let the tool run.

    Attributes:
        updated_input: the input to run with. The official SDKs always send it (the original
            input when unchanged).
        updated_permissions: updates to apply, e.g. a ``permission_suggestions`` entry
            echoed back for "always allow".
        tool_use_id: the ``tool_use_id`` of the request (wire ``toolUseID``).
        decision_classification: how the decision is recorded.
    """

    behavior: ClassVar[str] = "allow"
    updated_input: dict[str, Any] | None = None
    updated_permissions: list[PermissionUpdate] | None = None
    tool_use_id: str | None = None
    decision_classification: DecisionClassification | None = None


@model
class PermissionDeny(WireModel):
    """Refuse the tool call.

    Attributes:
        message: why; it becomes the text of the error ``tool_result`` the model sees.
        interrupt: also stop the turn.
        tool_use_id: the ``tool_use_id`` of the request (wire ``toolUseID``).
        decision_classification: how the decision is recorded.
    """

    behavior: ClassVar[str] = "deny"
    message: str = ""
    interrupt: bool | None = None
    tool_use_id: str | None = None
    decision_classification: DecisionClassification | None = None


PermissionResult = PermissionAllow | PermissionDeny


@frozen(kw_only=True)
class PermissionSuspend:
    """Suspend the session until a person answers (`claude_sdk.humans`).

    A ``can_use_tool`` callback returns it when the decision (or, for the
    ``AskUserQuestion`` tool, the answer) must come from a person who may take hours. The
    session keeps the pending question with the session (in ``Options.session_store``, else
    beside the CLI's transcript on this machine), answers the CLI with a denial that ends the
    turn, and marks the turn's result (``ResultMessage.suspended``). ``ask`` returns that
    reply (`Reply.suspended`) instead of raising; the process may then exit. Later, on any
    host, `claude_sdk.answer` resumes the session with the person's answer.

    Not a wire answer: the CLI never sees it (it sees the denial).

    Attributes:
        reason: why a person is needed (kept with the question, for the person's screen).
    """

    reason: str = ""


# ======================================================================================
# The permission callback (host side; not wire classes)


@frozen(kw_only=True)
class ToolPermissionContext:
    """What ``can_use_tool`` knows besides the tool's name and input.

    Attributes:
        tool_use_id: the tool call's id.
        suggestions: rule updates the CLI suggests ("always allow" = echo one back in
            `PermissionAllow.updated_permissions`).
        blocked_path: the path that made the CLI ask, if any.
        decision_reason: why the CLI asks.
        agent_id: the subagent asking, if any.
        request_id: the id of the ``can_use_tool`` control request.
        request: the whole typed request (display name, MCP server, title, ...).
        cancel_scope: the callback's cancellation: ``cancel()`` cancels the callback while
            it runs (the CLI then gets an error answer, never silence), ``cancel_called``
            tells whether it was cancelled, by the CLI or by ``cancel()`` (see `cancelled`).
        typed_input: a typed view of the tool's input for built-in tools (``BashInput``,
            ``WriteInput``, ... from `claude_sdk.tool_inputs`), ``McpInput`` for MCP tools
            (``mcp__server__tool``), None for other tools. The dict passed to the callback
            stays exactly as the CLI sent it.
    """

    tool_use_id: str | None = None
    suggestions: Sequence[PermissionUpdate] = ()
    blocked_path: str | None = None
    decision_reason: str | None = None
    agent_id: str | None = None
    request_id: str | None = None
    request: Any = None
    cancel_scope: Any = attrs.field(default=None, eq=False, repr=False)

    @property
    def cancelled(self) -> bool:
        """True once the CLI withdrew the request (``control_cancel_request``).

        The callback is cancelled then (an AnyIO cancellation at its next ``await``); this
        flag lets work that is shielded, or runs in a thread, see it too.
        """
        scope = self.cancel_scope
        if scope is None:
            return False
        withdrawn = getattr(scope, "withdrawn", None)  # the session's handle
        return bool(scope.cancel_called if withdrawn is None else withdrawn)

    @property
    def typed_input(self) -> Any:
        """A typed view of the tool's input for built-in tools (``BashInput``, ...)."""
        tool_name = getattr(self.request, "tool_name", None)
        tool_input = getattr(self.request, "input", None)
        if tool_name is None or tool_input is None:
            return None
        from .tool_inputs import typed_input

        return typed_input(tool_name, tool_input)


CanUseTool = Callable[
    [str, dict[str, Any], ToolPermissionContext],
    Awaitable[PermissionResult | PermissionSuspend] | PermissionResult | PermissionSuspend,
]
"""``can_use_tool(tool_name, tool_input, context) -> PermissionAllow | PermissionDeny`` (or
`PermissionSuspend`: a person answers later, `claude_sdk.humans`)."""
