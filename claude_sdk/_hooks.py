"""The definitions of ``claude_sdk.hooks``, where they are public (see its documentation).

Private: its layout may change; import from ``claude_sdk.hooks`` or ``claude_sdk``.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from ._attrs import frozen
from ._base import UnknownBase, WireModel, model
from .permissions import PermissionMode, PermissionResult, PermissionUpdate

if typing.TYPE_CHECKING:
    from .tool_outputs import ToolOutput

__all__ = [
    "HookRegistry",
    "HookCallback",
    "HookContext",
    "HookMatcher",
    "HookResult",
    "HookEvent",
    "HOOK_EVENTS",
    "HOOK_EVENT_SINCE",
    "unsupported_hook_events",
    # inputs
    "BaseHookInput",
    "PostToolBatchCall",
    "PreToolUseInput",
    "PostToolUseInput",
    "PostToolUseFailureInput",
    "PostToolBatchInput",
    "NotificationInput",
    "UserPromptSubmitInput",
    "UserPromptExpansionInput",
    "SessionStartInput",
    "SessionEndInput",
    "StopInput",
    "StopFailureInput",
    "SubagentStartInput",
    "SubagentStopInput",
    "PreCompactInput",
    "PostCompactInput",
    "PreModelSwitchInput",
    "PostModelSwitchInput",
    "PermissionRequestInput",
    "PermissionDeniedInput",
    "SetupInput",
    "TeammateIdleInput",
    "TaskCreatedInput",
    "TaskCompletedInput",
    "ElicitationInput",
    "ElicitationResultInput",
    "ConfigChangeInput",
    "WorktreeCreateInput",
    "WorktreeRemoveInput",
    "InstructionsLoadedInput",
    "CwdChangedInput",
    "FileChangedInput",
    "DirectoryAddedInput",
    "MessageDisplayInput",
    "PreSkillShellCommandInput",
    "UnknownHookInput",
    "HookInput",
    "HOOK_INPUTS",
    # outputs
    "HookOutput",
    "AsyncHookOutput",
    "BaseHookSpecificOutput",
    "PreToolUseOutput",
    "PostToolUseOutput",
    "PostToolUseFailureOutput",
    "PostToolBatchOutput",
    "NotificationOutput",
    "UserPromptSubmitOutput",
    "UserPromptExpansionOutput",
    "SessionStartOutput",
    "StopOutput",
    "SubagentStartOutput",
    "SubagentStopOutput",
    "PreModelSwitchOutput",
    "PostModelSwitchOutput",
    "PermissionRequestOutput",
    "PermissionDeniedOutput",
    "SetupOutput",
    "ElicitationOutput",
    "ElicitationResultOutput",
    "WorktreeCreateOutput",
    "CwdChangedOutput",
    "FileChangedOutput",
    "MessageDisplayOutput",
    "PreSkillShellCommandOutput",
    "UnknownHookSpecificOutput",
    "HookSpecificOutput",
    "HOOK_SPECIFIC_OUTPUTS",
]

_JSON = dict[str, Any]

#: The hook events of CLI 2.1.330, and the ones newer CLIs add (`HOOK_EVENT_SINCE`).
HookEvent = Literal[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
]

#: Every `HookEvent`, as a tuple.
HOOK_EVENTS: tuple[str, ...] = typing.get_args(HookEvent)

#: The first CLI version that has each event newer than CLI 2.1.330: an older CLI accepts a
#: hook registered for it and never calls it.
HOOK_EVENT_SINCE: Mapping[str, str] = {"PreSkillShellCommand": "2.1.332"}

_VERSION: typing.Final = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def _version(text: str | None) -> tuple[int, ...] | None:
    found = _VERSION.match(text.strip()) if isinstance(text, str) else None
    return tuple(int(part) for part in found.groups()) if found else None


def unsupported_hook_events(events: Iterable[str], cli_version: str | None) -> tuple[str, ...]:
    """The events of ``events`` (event names, or an ``Options.hooks`` mapping) that a CLI of
    ``cli_version`` does not have: their hooks are registered and never called.

    Only events of `HOOK_EVENT_SINCE` count: an event this SDK does not know may be newer than
    the CLI too, but nothing says so. A version that cannot be read (None, ``"dev"``) gives
    ``()``: it cannot tell.

    >>> unsupported_hook_events({"PreSkillShellCommand": []}, "2.1.330")
    ('PreSkillShellCommand',)
    """
    have = _version(cli_version)
    if have is None:
        return ()
    return tuple(
        event
        for event in dict.fromkeys(events)
        if event in HOOK_EVENT_SINCE and have < (_version(HOOK_EVENT_SINCE[event]) or ())
    )


# ======================================================================================
# Inputs (§9.1)


@model
class BaseHookInput(WireModel):
    """The fields every hook input carries.

    Attributes:
        session_id: the session the hook runs in.
        transcript_path: the session's transcript file.
        cwd: the CLI's working directory.
        prompt_id: the prompt being handled.
        permission_mode: the permission mode in effect.
        agent_id: set inside a subagent.
        agent_type: set inside a subagent (and on SessionStart for an agent session).
        effort: e.g. ``{"level": "medium"}`` (tool and Stop events).
    """

    #: The event name, the union's tag (set on each subclass).
    hook_event_name: ClassVar[str]

    session_id: str
    transcript_path: str
    cwd: str
    prompt_id: str | None = None
    permission_mode: PermissionMode | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    effort: _JSON | None = None


class _ToolInputView:
    """``typed_input``: a typed view of ``tool_input`` for built-in tools (None otherwise)."""

    tool_name: str
    tool_input: _JSON

    @property
    def typed_input(self) -> Any:
        """``BashInput``, ``WriteInput``, ... (`claude_sdk.tool_inputs`), or None."""
        from .tool_inputs import typed_input

        return typed_input(self.tool_name, self.tool_input)


@model
class PreToolUseInput(_ToolInputView, BaseHookInput):
    """Before a tool runs; the output may allow, deny, ask, defer or rewrite the input."""

    hook_event_name: ClassVar[str] = "PreToolUse"
    tool_name: str
    tool_input: _JSON
    tool_use_id: str | None = None
    #: ``{name, source}`` for an MCP tool.
    mcp_server: _JSON | None = None


class _ToolOutputView:
    """``typed_output``: a typed view of ``tool_response`` for built-in and MCP tools."""

    tool_name: str
    tool_response: Any

    @property
    def typed_output(self) -> ToolOutput | None:
        """``BashOutput``, ``EditOutput``, ... (`claude_sdk.tool_outputs`), or None for a tool
        it does not know or a response that does not fit."""
        from .tool_outputs import typed_output

        return typed_output(self.tool_name, self.tool_response)


@model
class PostToolUseInput(_ToolOutputView, _ToolInputView, BaseHookInput):
    """After a tool succeeded."""

    hook_event_name: ClassVar[str] = "PostToolUse"
    tool_name: str
    tool_input: _JSON
    #: The tool's result, as the tool produced it (a dict for built-in tools); typed by
    #: ``typed_output``.
    tool_response: Any
    tool_use_id: str | None = None
    duration_ms: float | None = None
    mcp_server: _JSON | None = None


@model
class PostToolUseFailureInput(_ToolInputView, BaseHookInput):
    """After a tool failed."""

    hook_event_name: ClassVar[str] = "PostToolUseFailure"
    tool_name: str
    tool_input: _JSON
    error: str
    tool_use_id: str | None = None
    is_interrupt: bool | None = None
    duration_ms: float | None = None
    mcp_server: _JSON | None = None


@model
class PostToolBatchCall(_ToolOutputView, WireModel):
    """One tool call of a `PostToolBatchInput`."""

    tool_name: str
    tool_input: _JSON
    tool_use_id: str | None = None
    tool_response: Any = None


@model
class PostToolBatchInput(BaseHookInput):
    """After a batch of parallel tool calls finished."""

    hook_event_name: ClassVar[str] = "PostToolBatch"
    tool_calls: list[PostToolBatchCall]


@model
class NotificationInput(BaseHookInput):
    """The CLI shows a notification."""

    hook_event_name: ClassVar[str] = "Notification"
    message: str
    notification_type: str
    title: str | None = None


@model
class UserPromptSubmitInput(BaseHookInput):
    """A prompt was submitted (before the model sees it)."""

    hook_event_name: ClassVar[str] = "UserPromptSubmit"
    prompt: str
    source: (
        Literal["user", "sdk", "system", "loop_wakeup", "schedule_wakeup", "poll_event"] | None
    ) = None
    session_title: str | None = None


@model
class UserPromptExpansionInput(BaseHookInput):
    """A slash command or MCP prompt was expanded into a prompt."""

    hook_event_name: ClassVar[str] = "UserPromptExpansion"
    expansion_type: Literal["slash_command", "mcp_prompt"]
    command_name: str
    command_args: str
    prompt: str
    command_source: str | None = None


@model
class SessionStartInput(BaseHookInput):
    """A session starts (or resumes, clears, compacts, forks)."""

    hook_event_name: ClassVar[str] = "SessionStart"
    source: Literal["startup", "resume", "clear", "compact", "fork"]
    model: str | None = None
    session_title: str | None = None
    seconds_since_last_response: float | None = None
    context_tokens: int | None = None
    prompt_cache_likely_expired: bool | None = None
    estimated_cache_write_usd: float | None = None


@model
class SessionEndInput(BaseHookInput):
    """A session ends."""

    hook_event_name: ClassVar[str] = "SessionEnd"
    reason: Literal["clear", "resume", "logout", "prompt_input_exit", "other"]


@model
class StopInput(BaseHookInput):
    """The main agent is about to stop (after its final message, before ``result``)."""

    hook_event_name: ClassVar[str] = "Stop"
    #: True when the agent continues because of an earlier Stop hook.
    stop_hook_active: bool
    last_assistant_message: str | None = None
    #: ``{id, type, status, description, command?, agent_type?, server?, tool?, name?}``.
    background_tasks: list[_JSON] | None = None
    #: ``{id, schedule, recurring, prompt}``.
    session_crons: list[_JSON] | None = None


@model
class StopFailureInput(BaseHookInput):
    """The turn ended on an API error."""

    hook_event_name: ClassVar[str] = "StopFailure"
    #: The assistant error kind.
    error: str
    error_details: Any = None
    last_assistant_message: str | None = None


@model
class SubagentStartInput(BaseHookInput):
    """A subagent starts."""

    hook_event_name: ClassVar[str] = "SubagentStart"
    agent_id: str
    agent_type: str


@model
class SubagentStopInput(BaseHookInput):
    """A subagent is about to stop."""

    hook_event_name: ClassVar[str] = "SubagentStop"
    stop_hook_active: bool
    agent_id: str
    agent_transcript_path: str
    agent_type: str
    last_assistant_message: str | None = None
    background_tasks: list[_JSON] | None = None
    session_crons: list[_JSON] | None = None


@model
class PreCompactInput(BaseHookInput):
    """Before the conversation is compacted."""

    hook_event_name: ClassVar[str] = "PreCompact"
    trigger: Literal["manual", "auto"]
    #: Always present on the wire, possibly null.
    custom_instructions: str | None


@model
class PostCompactInput(BaseHookInput):
    """After the conversation was compacted."""

    hook_event_name: ClassVar[str] = "PostCompact"
    trigger: Literal["manual", "auto"]
    compact_summary: str


@model
class PreModelSwitchInput(BaseHookInput):
    """Before the model changes; the output may allow, deny or ask."""

    hook_event_name: ClassVar[str] = "PreModelSwitch"
    from_model: str
    to_model: str
    #: Always present on the wire, possibly null.
    requested_model: str | None
    source: Literal["command", "picker", "sdk"]
    context_tokens: int
    prompt_cache_warm: bool
    cache_ttl: Literal["5m", "1h"]
    estimated_cache_write_usd: float
    pricing: Any


@model
class PostModelSwitchInput(BaseHookInput):
    """After the model changed."""

    hook_event_name: ClassVar[str] = "PostModelSwitch"
    from_model: str
    to_model: str
    #: Always present on the wire, possibly null.
    requested_model: str | None
    source: Literal["command", "picker", "sdk", "auto", "resume"]
    context_tokens: int
    prompt_cache_warm: bool
    cache_ttl: Literal["5m", "1h"]
    estimated_cache_write_usd: float
    pricing: Any


@model
class PermissionRequestInput(_ToolInputView, BaseHookInput):
    """A permission prompt is about to be shown; the output may decide it."""

    hook_event_name: ClassVar[str] = "PermissionRequest"
    tool_name: str
    tool_input: _JSON
    permission_suggestions: list[PermissionUpdate] | None = None
    mcp_server: _JSON | None = None


@model
class PermissionDeniedInput(_ToolInputView, BaseHookInput):
    """A tool call was denied; the output may ask for a retry."""

    hook_event_name: ClassVar[str] = "PermissionDenied"
    tool_name: str
    tool_input: _JSON
    reason: str
    tool_use_id: str | None = None
    mcp_server: _JSON | None = None


@model
class SetupInput(BaseHookInput):
    """Repository setup (``--init``, ``--maintenance``)."""

    hook_event_name: ClassVar[str] = "Setup"
    trigger: Literal["init", "maintenance"]


@model
class TeammateIdleInput(BaseHookInput):
    """A teammate has nothing to do."""

    hook_event_name: ClassVar[str] = "TeammateIdle"
    teammate_name: str
    team_name: str


@model
class TaskCreatedInput(BaseHookInput):
    """A task was created."""

    hook_event_name: ClassVar[str] = "TaskCreated"
    task_id: str
    task_subject: str
    task_description: str | None = None
    teammate_name: str | None = None
    team_name: str | None = None


@model
class TaskCompletedInput(BaseHookInput):
    """A task was completed."""

    hook_event_name: ClassVar[str] = "TaskCompleted"
    task_id: str
    task_subject: str
    task_description: str | None = None
    teammate_name: str | None = None
    team_name: str | None = None


@model
class ElicitationInput(BaseHookInput):
    """An MCP server asks the user for input; the output may answer for the user."""

    hook_event_name: ClassVar[str] = "Elicitation"
    mcp_server_name: str
    message: str
    mode: str | None = None
    url: str | None = None
    elicitation_id: str | None = None
    requested_schema: _JSON | None = None


@model
class ElicitationResultInput(BaseHookInput):
    """The user answered an elicitation; the output may override the answer."""

    hook_event_name: ClassVar[str] = "ElicitationResult"
    mcp_server_name: str
    action: Literal["accept", "decline", "cancel"]
    elicitation_id: str | None = None
    mode: str | None = None
    content: _JSON | None = None


@model
class ConfigChangeInput(BaseHookInput):
    """A settings source changed."""

    hook_event_name: ClassVar[str] = "ConfigChange"
    source: Literal[
        "user_settings", "project_settings", "local_settings", "policy_settings", "skills"
    ]
    file_path: str | None = None


@model
class WorktreeCreateInput(BaseHookInput):
    """A git worktree is to be created; the output says where it is."""

    hook_event_name: ClassVar[str] = "WorktreeCreate"
    name: str


@model
class WorktreeRemoveInput(BaseHookInput):
    """A git worktree is to be removed."""

    hook_event_name: ClassVar[str] = "WorktreeRemove"
    worktree_path: str


@model
class InstructionsLoadedInput(BaseHookInput):
    """An instructions file (CLAUDE.md, a rule file) was loaded."""

    hook_event_name: ClassVar[str] = "InstructionsLoaded"
    file_path: str
    memory_type: Literal["User", "Project", "Local", "Managed"]
    load_reason: str
    globs: list[str] | None = None
    trigger_file_path: str | None = None
    parent_file_path: str | None = None


@model
class CwdChangedInput(BaseHookInput):
    """The working directory changed."""

    hook_event_name: ClassVar[str] = "CwdChanged"
    old_cwd: str
    new_cwd: str


@model
class FileChangedInput(BaseHookInput):
    """A watched file changed."""

    hook_event_name: ClassVar[str] = "FileChanged"
    file_path: str
    event: Literal["change", "add", "unlink"]


@model
class DirectoryAddedInput(BaseHookInput):
    """A working directory was added."""

    hook_event_name: ClassVar[str] = "DirectoryAdded"
    directory: str
    source: Literal["slash_command", "register_repo_root"]


@model
class MessageDisplayInput(BaseHookInput):
    """A piece of an assistant message is about to be displayed."""

    hook_event_name: ClassVar[str] = "MessageDisplay"
    turn_id: str
    message_id: str
    index: int
    final: bool
    delta: str


@model
class PreSkillShellCommandInput(_ToolInputView, BaseHookInput):
    """Before a shell command embedded in a skill or slash command (``!`cmd` `` in its
    markdown) runs, after the CLI's own permission check of it (CLI 2.1.332 and later).

    The output may keep it from running (`PreSkillShellCommandOutput`); ``typed_input`` is a
    ``BashInput`` for a Bash command.

    Attributes:
        tool_name: the shell tool that runs the command: ``Bash`` or ``PowerShell`` (what a
            matcher matches).
        tool_input: ``{"command": ...}``, the command as it would run, arguments filled in.
        tool_use_id: identifies this command (``<uuid>:inner:preamble-0``); it names no tool
            call in the transcript.
        command_name: the skill or command whose text holds the shell command.
        command_source: where that skill or command comes from (``projectSettings``, ...).
        invoked_by: ``user`` (typed, or sent by an SDK host), ``claude`` (the Skill tool, or a
            turn Claude scheduled) or ``other`` (a subagent's preload, a channel message, or
            not known).
    """

    hook_event_name: ClassVar[str] = "PreSkillShellCommand"
    tool_name: str
    tool_input: _JSON
    command_name: str
    invoked_by: Literal["user", "claude", "other"]
    tool_use_id: str | None = None
    command_source: str | None = None


@model
class UnknownHookInput(UnknownBase):
    """The input of an event the model does not know (or could not type); ``raw`` is it."""

    @property
    def hook_event_name(self) -> str | None:
        """The event name, if it is a string."""
        value = self.raw.get("hook_event_name")
        return value if isinstance(value, str) else None

    @property
    def session_id(self) -> str | None:
        """The session id, if it is a string."""
        value = self.raw.get("session_id")
        return value if isinstance(value, str) else None


HookInput = (
    PreToolUseInput
    | PostToolUseInput
    | PostToolUseFailureInput
    | PostToolBatchInput
    | NotificationInput
    | UserPromptSubmitInput
    | UserPromptExpansionInput
    | SessionStartInput
    | SessionEndInput
    | StopInput
    | StopFailureInput
    | SubagentStartInput
    | SubagentStopInput
    | PreCompactInput
    | PostCompactInput
    | PreModelSwitchInput
    | PostModelSwitchInput
    | PermissionRequestInput
    | PermissionDeniedInput
    | SetupInput
    | TeammateIdleInput
    | TaskCreatedInput
    | TaskCompletedInput
    | ElicitationInput
    | ElicitationResultInput
    | ConfigChangeInput
    | WorktreeCreateInput
    | WorktreeRemoveInput
    | InstructionsLoadedInput
    | CwdChangedInput
    | FileChangedInput
    | DirectoryAddedInput
    | MessageDisplayInput
    | PreSkillShellCommandInput
    | UnknownHookInput
)

#: The input class of every event.
HOOK_INPUTS: dict[str, type[BaseHookInput]] = {
    cls.hook_event_name: cls for cls in typing.get_args(HookInput) if issubclass(cls, BaseHookInput)
}


# ======================================================================================
# Outputs (§9.2)


@model
class BaseHookSpecificOutput(WireModel):
    """Base of the event-specific outputs (``hookSpecificOutput``)."""

    #: The event name, written as ``hookEventName`` (set on each subclass).
    hook_event_name: ClassVar[str]


@model
class PreToolUseOutput(BaseHookSpecificOutput):
    """Decide a tool call before it runs.

    Attributes:
        permission_decision: ``allow`` runs the tool without asking; ``deny`` refuses it (the
            model sees the reason); ``ask`` goes to the normal prompt; ``defer`` ends the run
            with ``deferred_tool_use`` on the result.
        permission_decision_reason: why (shown to the model on deny).
        updated_input: the input to run the tool with instead.
        additional_context: text added to the model's context.
    """

    hook_event_name: ClassVar[str] = "PreToolUse"
    permission_decision: Literal["allow", "deny", "ask", "defer"] | None = None
    permission_decision_reason: str | None = None
    updated_input: _JSON | None = None
    additional_context: str | None = None


@model
class PostToolUseOutput(BaseHookSpecificOutput):
    """Add context after a tool ran, or replace what the model sees of its output.

    ``updated_mcp_tool_output`` is written ``updatedMCPToolOutput``.
    """

    hook_event_name: ClassVar[str] = "PostToolUse"
    additional_context: str | None = None
    classifier_context: str | None = None
    updated_tool_output: Any = None
    updated_mcp_tool_output: Any = None


@model
class PostToolUseFailureOutput(BaseHookSpecificOutput):
    """Add context after a tool failed."""

    hook_event_name: ClassVar[str] = "PostToolUseFailure"
    additional_context: str | None = None


@model
class PostToolBatchOutput(BaseHookSpecificOutput):
    """Add context after a batch of tool calls."""

    hook_event_name: ClassVar[str] = "PostToolBatch"
    additional_context: str | None = None


@model
class NotificationOutput(BaseHookSpecificOutput):
    """Add context on a notification."""

    hook_event_name: ClassVar[str] = "Notification"
    additional_context: str | None = None


@model
class UserPromptSubmitOutput(BaseHookSpecificOutput):
    """Add context to a prompt, title the session, or hide the original prompt."""

    hook_event_name: ClassVar[str] = "UserPromptSubmit"
    additional_context: str | None = None
    session_title: str | None = None
    suppress_original_prompt: bool | None = None


@model
class UserPromptExpansionOutput(BaseHookSpecificOutput):
    """Add context to an expanded prompt, or hide the original."""

    hook_event_name: ClassVar[str] = "UserPromptExpansion"
    additional_context: str | None = None
    suppress_original_prompt: bool | None = None


@model
class SessionStartOutput(BaseHookSpecificOutput):
    """Prime a starting session."""

    hook_event_name: ClassVar[str] = "SessionStart"
    additional_context: str | None = None
    initial_user_message: str | None = None
    session_title: str | None = None
    watch_paths: list[str] | None = None
    reload_skills: bool | None = None


@model
class StopOutput(BaseHookSpecificOutput):
    """Add context when the agent stops."""

    hook_event_name: ClassVar[str] = "Stop"
    additional_context: str | None = None


@model
class SubagentStartOutput(BaseHookSpecificOutput):
    """Add context to a starting subagent."""

    hook_event_name: ClassVar[str] = "SubagentStart"
    additional_context: str | None = None


@model
class SubagentStopOutput(BaseHookSpecificOutput):
    """Add context when a subagent stops."""

    hook_event_name: ClassVar[str] = "SubagentStop"
    additional_context: str | None = None


@model
class PreModelSwitchOutput(BaseHookSpecificOutput):
    """Decide a model switch."""

    hook_event_name: ClassVar[str] = "PreModelSwitch"
    permission_decision: Literal["allow", "deny", "ask"] | None = None
    permission_decision_reason: str | None = None


@model
class PostModelSwitchOutput(BaseHookSpecificOutput):
    """Add context after a model switch."""

    hook_event_name: ClassVar[str] = "PostModelSwitch"
    additional_context: str | None = None


@model
class PermissionRequestOutput(BaseHookSpecificOutput):
    """Answer a permission prompt in place of the user.

    ``decision`` has the shape of a ``can_use_tool`` answer (`PermissionAllow` with
    ``updated_input`` / ``updated_permissions``, or `PermissionDeny` with ``message`` /
    ``interrupt``).
    """

    hook_event_name: ClassVar[str] = "PermissionRequest"
    decision: PermissionResult


@model
class PermissionDeniedOutput(BaseHookSpecificOutput):
    """Ask for a denied tool call to be retried."""

    hook_event_name: ClassVar[str] = "PermissionDenied"
    retry: bool | None = None


@model
class SetupOutput(BaseHookSpecificOutput):
    """Add context after setup."""

    hook_event_name: ClassVar[str] = "Setup"
    additional_context: str | None = None


@model
class ElicitationOutput(BaseHookSpecificOutput):
    """Answer an elicitation in place of the user."""

    hook_event_name: ClassVar[str] = "Elicitation"
    action: Literal["accept", "decline", "cancel"] | None = None
    content: _JSON | None = None


@model
class ElicitationResultOutput(BaseHookSpecificOutput):
    """Override the user's answer to an elicitation."""

    hook_event_name: ClassVar[str] = "ElicitationResult"
    action: Literal["accept", "decline", "cancel"] | None = None
    content: _JSON | None = None


@model
class WorktreeCreateOutput(BaseHookSpecificOutput):
    """Where the created worktree is."""

    hook_event_name: ClassVar[str] = "WorktreeCreate"
    worktree_path: str


@model
class CwdChangedOutput(BaseHookSpecificOutput):
    """Paths to watch (``FileChanged``) after a directory change."""

    hook_event_name: ClassVar[str] = "CwdChanged"
    watch_paths: list[str] | None = None


@model
class FileChangedOutput(BaseHookSpecificOutput):
    """Paths to watch from now on."""

    hook_event_name: ClassVar[str] = "FileChanged"
    watch_paths: list[str] | None = None


@model
class MessageDisplayOutput(BaseHookSpecificOutput):
    """Replace what is displayed of a message."""

    hook_event_name: ClassVar[str] = "MessageDisplay"
    display_content: str | None = None


@model
class PreSkillShellCommandOutput(BaseHookSpecificOutput):
    """Decide a skill's inline shell command before it runs (CLI 2.1.332 and later).

    Attributes:
        permission_decision: ``deny`` keeps the command from running (the reason is shown);
            so do ``ask`` and ``defer`` (a skill cannot wait for approval); ``allow`` adds
            nothing: the command runs unless another hook refuses it.
        permission_decision_reason: why.
        updated_input: never applied: any value keeps the command from running.
    """

    hook_event_name: ClassVar[str] = "PreSkillShellCommand"
    permission_decision: Literal["allow", "deny", "ask", "defer"] | None = None
    permission_decision_reason: str | None = None
    updated_input: _JSON | None = None


@model
class UnknownHookSpecificOutput(UnknownBase):
    """A ``hookSpecificOutput`` of an event the model does not know; ``raw`` is the dict.

    Built by hand (``UnknownHookSpecificOutput(raw={...})``) it is sent verbatim: the way to
    answer an event newer than this model.
    """

    @property
    def hook_event_name(self) -> str | None:
        """The ``hookEventName``, if it is a string."""
        value = self.raw.get("hookEventName")
        return value if isinstance(value, str) else None


HookSpecificOutput = (
    PreToolUseOutput
    | PostToolUseOutput
    | PostToolUseFailureOutput
    | PostToolBatchOutput
    | NotificationOutput
    | UserPromptSubmitOutput
    | UserPromptExpansionOutput
    | SessionStartOutput
    | StopOutput
    | SubagentStartOutput
    | SubagentStopOutput
    | PreModelSwitchOutput
    | PostModelSwitchOutput
    | PermissionRequestOutput
    | PermissionDeniedOutput
    | SetupOutput
    | ElicitationOutput
    | ElicitationResultOutput
    | WorktreeCreateOutput
    | CwdChangedOutput
    | FileChangedOutput
    | MessageDisplayOutput
    | PreSkillShellCommandOutput
    | UnknownHookSpecificOutput
)

#: The event-specific output class of every event that has one.
HOOK_SPECIFIC_OUTPUTS: dict[str, type[BaseHookSpecificOutput]] = {
    cls.hook_event_name: cls
    for cls in typing.get_args(HookSpecificOutput)
    if issubclass(cls, BaseHookSpecificOutput)
}


@model
class HookOutput(WireModel):
    """A synchronous hook answer; every field is optional and ``HookOutput()`` is ``{}``.

    Attributes:
        continue_: False stops the run (wire ``continue``).
        suppress_output: hide the hook's output from the transcript.
        stop_reason: shown when ``continue_`` is False.
        decision: ``approve`` or ``block`` (the older, event-independent decision).
        system_message: shown to the user (a ``system/informational`` notice).
        reason: why, for ``decision``.
        terminal_sequence: a terminal escape to emit (only OSC 0/1/2/9/99/777 and BEL).
        specific: the event-specific part (wire ``hookSpecificOutput``).
    """

    continue_: bool | None = None
    suppress_output: bool | None = None
    stop_reason: str | None = None
    decision: Literal["approve", "block"] | None = None
    system_message: str | None = None
    reason: str | None = None
    terminal_sequence: str | None = None
    specific: HookSpecificOutput | None = None


@model
class AsyncHookOutput(WireModel):
    """Finish the hook in the background (wire ``{"async": true, "asyncTimeout"?}``).

    A late answer cannot change an outcome the CLI has already decided.
    """

    async_: bool = True
    async_timeout: float | None = None


# ======================================================================================
# Registering hooks (host side; not wire classes)


@frozen(kw_only=True)
class HookContext:
    """What a hook callback knows besides its input.

    Attributes:
        callback_id: the id the CLI called (``hook_<n>``).
        tool_use_id: the tool call's id for tool events, a random id otherwise.
        request_id: the id of the ``hook_callback`` control request.
    """

    callback_id: str
    tool_use_id: str | None = None
    request_id: str | None = None


HookResult = HookOutput | AsyncHookOutput | Mapping[str, Any] | None
"""What a hook callback returns: typed output, a raw wire dict, or None (no opinion)."""

HookCallback = Callable[[Any, HookContext], Awaitable[HookResult] | HookResult]
"""``callback(hook_input, context)``; sync or async. ``hook_input`` is the event's typed input."""


@frozen(kw_only=True)
class HookMatcher:
    """Callbacks for one event, optionally filtered by a tool-name matcher.

    Attributes:
        matcher: a tool name or pattern (``"Bash"``, ``"Write|Edit"``), or None for all.
        hooks: the callbacks, run in order; each gets its own callback id.
        timeout: seconds the CLI (and the SDK) give each callback.
        on_failure: ``"block"`` (a failed or late callback blocks the action, where the CLI
            supports it) or ``"continue"``; None lets the SDK choose (``"block"`` for
            PreToolUse, PermissionRequest and PreSkillShellCommand, else the CLI's default).
    """

    matcher: str | None = None
    hooks: Sequence[HookCallback] = ()
    timeout: float | None = None
    on_failure: Literal["continue", "block"] | None = None


_F = typing.TypeVar("_F", bound=Callable[..., Any])


class HookRegistry(Mapping[str, Sequence[HookMatcher]]):
    """Hooks registered with decorators; pass the registry as ``Options(hooks=registry)``.

    >>> hooks = HookRegistry()
    >>> @hooks.on("PreToolUse", matcher="Bash")
    ... async def audit(hook_input: PreToolUseInput, context: HookContext) -> HookOutput:
    ...     return HookOutput()

    Each decorated callable becomes its own matcher, in registration order. Sync and async
    callables are both fine. An event this SDK does not know (one newer than it) is registered
    as given; ``Options(hooks=registry)`` warns about it.
    """

    def __init__(self) -> None:
        self._matchers: dict[str, list[HookMatcher]] = {}

    def on(
        self,
        event: HookEvent,
        matcher: str | None = None,
        *,
        timeout: float | None = None,
        on_failure: Literal["continue", "block"] | None = None,
    ) -> Callable[[_F], _F]:
        """Register the decorated callable for ``event`` (and a tool-name ``matcher``).

        Raises:
            ValueError: ``event`` is not a non-empty string.
        """
        name: object = event  # typed as the known events; any string is accepted
        if not isinstance(name, str) or not name:
            raise ValueError(f"a hook event is a non-empty string, not {name!r}")

        def register(fn: _F) -> _F:
            self._matchers.setdefault(event, []).append(
                HookMatcher(matcher=matcher, hooks=(fn,), timeout=timeout, on_failure=on_failure)
            )
            return fn

        return register

    def add(self, event: HookEvent, matcher: HookMatcher) -> None:
        """Register a ready-made matcher."""
        self._matchers.setdefault(event, []).append(matcher)

    def __getitem__(self, event: str) -> Sequence[HookMatcher]:
        return tuple(self._matchers[event])

    def __iter__(self) -> typing.Iterator[str]:
        return iter(self._matchers)

    def __len__(self) -> int:
        return len(self._matchers)
