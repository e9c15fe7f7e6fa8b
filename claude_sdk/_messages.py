"""The definitions of ``claude_sdk.messages``, where they are public (see its documentation).

Private: its layout may change; import from ``claude_sdk.messages`` or ``claude_sdk``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ._base import EMPTY, HOST_NOTES, Frame, UnknownBase, WireModel, class_default, model

if TYPE_CHECKING:
    from ._pending import PendingQuestion
    from .tool_outputs import ToolOutput

__all__ = [
    # content blocks
    "TextBlock",
    "ThinkingBlock",
    "RedactedThinkingBlock",
    "ToolUseBlock",
    "ToolResultBlock",
    "ServerToolUseBlock",
    "ServerToolResultBlock",
    "ImageBlock",
    "DocumentBlock",
    "UnknownBlock",
    "ContentBlock",
    # parts
    "Usage",
    "ModelUsage",
    "APIMessage",
    "UserContent",
    "PermissionDenial",
    "McpServerInfo",
    "PluginInfo",
    "ToolUseMeta",
    "CompactMetadata",
    "BackgroundTask",
    "SlashCommand",
    "RateLimitInfo",
    # messages
    "AssistantMessage",
    "UserMessage",
    "ResultMessage",
    "StreamEvent",
    "SystemMessage",
    "InitMessage",
    "SessionStateChangedMessage",
    "StatusMessage",
    "ApiRetryMessage",
    "PermissionDeniedMessage",
    "ThinkingTokensMessage",
    "InformationalMessage",
    "HookStartedMessage",
    "HookProgressMessage",
    "HookResponseMessage",
    "CompactBoundaryMessage",
    "LocalCommandOutputMessage",
    "ControlRequestProgressMessage",
    "ModelRefusalFallbackMessage",
    "ModelRefusalNoFallbackMessage",
    "PluginInstallMessage",
    "TaskStartedMessage",
    "TaskProgressMessage",
    "TaskUpdatedMessage",
    "TaskNotificationMessage",
    "BackgroundTasksChangedMessage",
    "WorkerShuttingDownMessage",
    "CommandsChangedMessage",
    "NotificationMessage",
    "FilesPersistedMessage",
    "MemoryRecallMessage",
    "ElicitationCompleteMessage",
    "SessionWritesLostMessage",
    "SessionTitleChangedMessage",
    "UiInvalidateMessage",
    "RateLimitEvent",
    "ToolProgressMessage",
    "ToolUseSummaryMessage",
    "AuthStatusMessage",
    "PromptSuggestionMessage",
    "ConversationResetMessage",
    "ActiveGoalMessage",
    "CommandLifecycleMessage",
    "TranscriptMirrorMessage",
    "UnknownMessage",
    "Message",
    "SYSTEM_SUBTYPES",
]

_JSON = dict[str, Any]


# ======================================================================================
# Content blocks (§8)


@model
class TextBlock(WireModel):
    """Text, from the model or the user."""

    type: ClassVar[str] = "text"
    text: str
    citations: list[_JSON] | None = None


@model
class ThinkingBlock(WireModel):
    """The model's visible reasoning; sent in its own `AssistantMessage`."""

    type: ClassVar[str] = "thinking"
    thinking: str
    signature: str = ""


@model
class RedactedThinkingBlock(WireModel):
    """Encrypted reasoning."""

    type: ClassVar[str] = "redacted_thinking"
    data: str


@model
class ToolUseBlock(WireModel):
    """A tool call by the model. ``input`` is the dict the model produced."""

    type: ClassVar[str] = "tool_use"
    id: str
    name: str
    input: _JSON


@model
class ToolResultBlock(WireModel):
    """A tool's result, carried by a `UserMessage`.

    ``content`` is a string or a list of blocks (an MCP tool's content array).
    """

    type: ClassVar[str] = "tool_result"
    tool_use_id: str
    content: str | list[ContentBlock] | None = None
    is_error: bool | None = None


@model
class ServerToolUseBlock(WireModel):
    """A server-side tool call (``web_search``, ``web_fetch``, ``code_execution``, ...)."""

    type: ClassVar[str] = "server_tool_use"
    id: str
    name: str
    input: _JSON


@model
class ServerToolResultBlock(WireModel):
    """A server-side tool's result (``web_search_tool_result``, any ``*_tool_result``)."""

    type: str
    tool_use_id: str
    content: Any = None


@model
class ImageBlock(WireModel):
    """An image (``source`` is ``{type: "base64"|"url"|"file", ...}``)."""

    type: ClassVar[str] = "image"
    source: _JSON
    cache_control: _JSON | None = None


@model
class DocumentBlock(WireModel):
    """A document such as a PDF."""

    type: ClassVar[str] = "document"
    source: _JSON
    title: str | None = None
    context: str | None = None
    citations: _JSON | None = None
    cache_control: _JSON | None = None


@model
class UnknownBlock(UnknownBase):
    """A content block of a kind the model does not know; ``raw`` is the block."""

    @property
    def type(self) -> str | None:
        value = self.raw.get("type")
        return value if isinstance(value, str) else None


ContentBlock = (
    TextBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | ToolUseBlock
    | ToolResultBlock
    | ServerToolUseBlock
    | ServerToolResultBlock
    | ImageBlock
    | DocumentBlock
    | UnknownBlock
)


# ======================================================================================
# Parts


@model
class Usage(WireModel):
    """Token usage of an API response or a turn."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    output_tokens_details: _JSON | None = None
    server_tool_use: _JSON | None = None
    service_tier: str | None = None
    cache_creation: _JSON | None = None
    inference_geo: str | None = None
    iterations: list[Any] | None = None
    speed: str | None = None
    fallback_credit: Any = None


@model
class ModelUsage(WireModel):
    """Cumulative usage of one model in a process (``result.modelUsage`` values)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    web_search_requests: int | None = None
    cost_usd: float | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None
    thinking_tokens: int | None = None
    cache_creation_ephemeral5m_input_tokens: int | None = None
    cache_creation_ephemeral1h_input_tokens: int | None = None
    canonical_model: str | None = None
    provider: str | None = None
    cost_basis: str | None = None


@model
class APIMessage(WireModel):
    """The Anthropic API message inside an `AssistantMessage`.

    One `AssistantMessage` carries one completed block; ``stop_reason`` and ``usage`` here
    come from ``message_start`` (the final ones are on the `ResultMessage`).
    """

    type: ClassVar[str] = "message"
    _always: ClassVar[tuple[str, ...]] = ("stop_reason", "stop_sequence", "context_management")
    id: str
    model: str
    role: str = "assistant"
    content: list[ContentBlock]
    stop_reason: str | None = None
    stop_sequence: str | None = None
    usage: Usage | None = None
    context_management: Any = None
    container: Any = None
    stop_details: Any = None
    diagnostics: Any = None


UserContent = str | list[ContentBlock]


@model
class UserPayload(WireModel):
    """The ``message`` of a user frame: ``role`` is always ``"user"``."""

    role: str = "user"
    content: UserContent = ""


@model
class PermissionDenial(WireModel):
    """One entry of ``result.permission_denials``."""

    tool_name: str
    tool_use_id: str
    tool_input: _JSON


@model
class McpServerInfo(WireModel):
    """An MCP server as listed by ``system/init``."""

    name: str
    status: str
    source: str | None = None


@model
class PluginInfo(WireModel):
    """A loaded plugin as listed by ``system/init``."""

    name: str
    path: str
    source: str | None = None
    version: str | None = None


@model
class ToolUseMeta(WireModel):
    """Display facts of an MCP tool call (``assistant.tool_use_meta``)."""

    id: str
    display_name: str | None = None
    server_display_name: str | None = None
    tool_name: str | None = None


@model
class CompactMetadata(WireModel):
    """``system/compact_boundary.compact_metadata``."""

    trigger: str
    pre_tokens: int | None = None
    post_tokens: int | None = None
    duration_ms: int | None = None
    preserved_segment: _JSON | None = None
    preserved_messages: _JSON | None = None
    cumulative_dropped_tokens: int | None = None


@model
class BackgroundTask(WireModel):
    """An entry of ``system/background_tasks_changed.tasks``."""

    task_id: str
    task_type: str | None = None
    description: str | None = None
    run_id: str | None = None
    subagent_type: str | None = None
    parent_task_id: str | None = None
    ambient: bool | None = None


@model
class SlashCommand(WireModel):
    """A slash command (initialize response, ``system/commands_changed``)."""

    name: str
    description: str = ""
    argument_hint: str | None = None
    aliases: list[str] | None = None
    builtin: bool | None = None


@model
class RateLimitInfo(WireModel):
    """``rate_limit_event.rate_limit_info``."""

    status: str
    resets_at: int | float | None = None
    rate_limit_type: str | None = None
    utilization: float | None = None
    overage_status: str | None = None
    overage_resets_at: int | float | None = None
    overage_disabled_reason: str | None = None
    is_using_overage: bool | None = None
    overage_in_use: bool | None = None
    overage_enabled: bool | None = None
    surpassed_threshold: float | None = None
    limit_scope: str | None = None
    error_code: str | None = None
    can_user_purchase_credits: bool | None = None
    has_chargeable_saved_payment_method: bool | None = None


# ======================================================================================
# Messages


@model
class AssistantMessage(Frame):
    """One completed content block of a model response.

    A response with thinking, text and a tool call arrives as three of these with one
    ``message.id``. ``content``, ``model`` and ``text`` are shortcuts into ``message``.
    """

    type: ClassVar[str] = "assistant"
    _always: ClassVar[tuple[str, ...]] = ("parent_tool_use_id",)
    message: APIMessage
    parent_tool_use_id: str | None = None
    session_id: str | None = None
    uuid: str | None = None
    timestamp: str | None = None
    request_id: str | None = None
    error: str | None = None
    is_api_error_message: bool | None = None
    api_error_status: int | None = None
    api_error_type: str | None = None
    api_error: str | None = None
    aborted: bool | None = None
    tool_use_meta: list[ToolUseMeta] | None = None
    thinking_duration_ms: int | None = None
    thinking_display: str | None = None
    user_message_uuid: str | None = None
    user_message_uuids: list[str] | None = None
    resume_reason: str | None = None
    resumed_from_incomplete_thinking: bool | None = None
    supersedes: list[str] | None = None
    agent_id: str | None = None
    subagent_type: str | None = None
    task_description: str | None = None
    context_usage: Any = None
    usage_report: Any = None

    @property
    def content(self) -> list[ContentBlock]:
        """The message's content blocks."""
        return self.message.content

    @property
    def model(self) -> str:
        """The model that produced the message (``<synthetic>`` for API-error frames)."""
        return self.message.model

    @property
    def text(self) -> str:
        """The concatenated text of the message's text blocks (a block whose ``text`` is not
        a string, such as ``null`` from a newer or broken CLI, adds nothing)."""
        return _text_of(self.message.content)


@model
class UserMessage(Frame):
    """A user frame: a prompt the host writes, or a tool result / note / replay the CLI emits.

    ``UserMessage.prompt("hi")`` builds what the host writes.
    """

    type: ClassVar[str] = "user"
    _always: ClassVar[tuple[str, ...]] = ("parent_tool_use_id",)
    message: UserPayload
    parent_tool_use_id: str | None = None
    session_id: str | None = None
    uuid: str | None = None
    timestamp: str | None = None
    is_replay: bool | None = None
    is_synthetic: bool | None = None
    tool_use_result: Any = None
    tool_result_meta: list[_JSON] | None = None
    priority: str | None = None
    should_query: bool | None = None
    client_composed: bool | None = None
    origin: _JSON | None = None
    agent_id: str | None = None
    #: The subagent type (``"general-purpose"``, a custom agent's name) that produced a
    #: subagent's message; absent on the main thread's messages.
    subagent_type: str | None = None
    #: The description of the subagent task that produced this message.
    task_description: str | None = None
    file_attachments: list[Any] | None = None
    pasted_content: Any = None
    inline_pastes: Any = None

    @classmethod
    def prompt(
        cls,
        content: UserContent,
        *,
        session_id: str = "default",
        uuid: str | None = None,
        parent_tool_use_id: str | None = None,
        priority: str | None = None,
        should_query: bool | None = None,
        client_composed: bool | None = None,
    ) -> UserMessage:
        """The user line the host writes for a prompt."""
        return cls(
            message=UserPayload(content=content),
            session_id=session_id,
            uuid=uuid,
            parent_tool_use_id=parent_tool_use_id,
            priority=priority,
            should_query=should_query,
            client_composed=client_composed,
        )

    @property
    def content(self) -> UserContent:
        """The message content: a string or a list of blocks."""
        return self.message.content

    @property
    def text(self) -> str:
        """The text of the message (the string, or its text blocks joined)."""
        content = self.message.content
        if isinstance(content, str):
            return content
        return _text_of(content)

    def typed_output(self, tool: str | Mapping[str, str]) -> ToolOutput | None:
        """The typed view of ``tool_use_result``, the result of the tool call this message
        answers (``BashOutput``, ``EditOutput``, ...: `claude_sdk.tool_outputs`).

        The message names the call (its ``tool_result`` block's ``tool_use_id``), not the
        tool: pass the tool's name, or a mapping of tool-use ids to names filled from the
        `ToolUseBlock` values of the assistant messages before it.

        Args:
            tool: the tool's name, or ``{tool_use_id: tool name}``.

        Returns:
            The typed result, or None: no ``tool_use_result``, an error result (a block with
            ``is_error``: the value is the CLI's error text), a call the mapping does not
            name, a tool the module does not know, or a result that does not fit.
        """
        result = self.tool_use_result
        if result is None:
            return None
        content = self.message.content
        blocks = (
            [b for b in content if isinstance(b, ToolResultBlock)]
            if isinstance(content, list)
            else []
        )
        if any(b.is_error for b in blocks):
            return None
        if isinstance(tool, str):
            name: str | None = tool
        else:
            name = next((tool[b.tool_use_id] for b in blocks if b.tool_use_id in tool), None)
        if name is None:
            return None
        from .tool_outputs import typed_output

        return typed_output(name, result)


@model
class ResultMessage(Frame):
    """The end of a turn.

    ``is_error`` is independent of ``subtype``: an API error ends as ``subtype="success"``
    with ``is_error=True``. ``total_cost_usd`` is cumulative for the process.
    """

    type: ClassVar[str] = "result"
    subtype: str
    is_error: bool = False
    duration_ms: int | None = None
    duration_api_ms: int | None = None
    num_turns: int | None = None
    session_id: str | None = None
    uuid: str | None = None
    result: str | None = None
    stop_reason: str | None = None
    terminal_reason: str | None = None
    total_cost_usd: float | None = None
    usage: Usage | None = None
    model_usage: dict[str, ModelUsage] | None = None
    model_usage_since_last_result: dict[str, ModelUsage] | None = None
    permission_denials: list[PermissionDenial] | None = None
    structured_output: Any = None
    deferred_tool_use: _JSON | None = None
    errors: list[str] | None = None
    api_error_status: int | None = None
    api_error_type: str | None = None
    api_error: str | None = None
    result_index: int | None = None
    queued_turn_count: int | None = None
    fast_mode_state: str | None = None
    fast_mode_disabled_reason: str | None = None
    subagent_stats: _JSON | None = None
    safety_stops: int | None = None
    ttft_ms: int | None = None
    ttft_stream_ms: int | None = None
    time_to_request_ms: int | None = None
    first_content_frame_ms: int | None = None
    begun_message_ids: list[str] | None = None
    startup_failure_reason: str | None = None
    invalid_config_file: _JSON | None = None
    local_command: str | None = None
    user_message_uuid: str | None = None
    user_message_uuids: list[str] | None = None
    origin: _JSON | None = None
    resume_reason: str | None = None
    credential_expires_at: Any = None
    request_sent_wall_ms: int | float | None = None
    warm_spare_claimed: bool | None = None
    time_origin_ms: int | float | None = None
    #: Input tokens of the turn's first API request (the turn may make several).
    first_request_input_tokens: int | None = None
    #: Cache-read input tokens of the turn's first API request.
    first_request_cache_read_input_tokens: int | None = None

    @property
    def text(self) -> str:
        """The turn's final text (``""`` when the result has none)."""
        return self.result or ""

    @property
    def settles(self) -> tuple[str, ...]:
        """The uuids of the host's prompts this result answered, as the session that read
        it found them (``user_message_uuids`` among the prompts it sent and was waiting
        for). Empty for a turn the CLI ran on its own (`own_turn`), and for a result not
        read through a session (``claude_sdk.wire.decode``)."""
        notes = self.__dict__.get(HOST_NOTES)
        settles: tuple[str, ...] = notes.get("settles", ()) if notes else ()
        return settles

    @property
    def own_turn(self) -> bool:
        """True when this result answered none of the host's prompts: a turn the CLI ran
        on its own (a task notification when a background command or subagent ended, a
        scheduled wake-up; ``origin`` says which), or a repeat of an earlier result. Such
        a result still reaches the consumer, and ends nobody's ``receive_response()``,
        ``ask()`` or ``SessionPool.ask()``. False for a result not read through a
        session."""
        notes: dict[str, Any] | None = self.__dict__.get(HOST_NOTES)
        if not notes or "settles" not in notes:
            return False
        return not notes["settles"]

    @property
    def steered_by(self) -> str | None:
        """The uuid of the instruction `Session.steer` sent when this result ends a turn
        that the steer cut short (the turn was cancelled, not failed: ``ask`` raises a
        `ResultError` of kind ``"steered"``); None otherwise."""
        notes = self.__dict__.get(HOST_NOTES)
        steered: str | None = notes.get("steered_by") if notes else None
        return steered

    @property
    def suspended(self) -> PendingQuestion | None:
        """The question a person must answer when this result ends a turn a
        ``can_use_tool`` callback suspended (`claude_sdk.humans`): the turn ended cleanly,
        ``ask`` returns it (`Reply.suspended`), and `claude_sdk.answer` resumes the session
        later, on any host. None otherwise."""
        notes = self.__dict__.get(HOST_NOTES)
        found: PendingQuestion | None = notes.get("suspended") if notes else None
        return found

    @property
    def structured_output_error(self) -> str | None:
        """Why ``structured_output`` is not what ``output_format`` asked for (missing, or not
        valid against the schema or the class), as the session found it; None when it is,
        or when no structured output was asked for. ``ask()`` raises
        `StructuredOutputError` for such a result."""
        notes = self.__dict__.get(HOST_NOTES)
        return notes.get("structured_output_error") if notes else None


@model
class StreamEvent(Frame):
    """A raw API streaming event (only with ``include_partial_messages``)."""

    type: ClassVar[str] = "stream_event"
    _always: ClassVar[tuple[str, ...]] = ("parent_tool_use_id",)
    event: _JSON
    session_id: str | None = None
    parent_tool_use_id: str | None = None
    uuid: str | None = None
    api_message_id: str | None = None
    ttft_ms: int | None = None
    thinking_display: str | None = None
    user_message_uuid: str | None = None
    user_message_uuids: list[str] | None = None
    resume_reason: str | None = None
    owed_rows: Any = None
    abandoned_blocks: _JSON | None = None


# --------------------------------------------------------------------------------------
# system/*


@model
class SystemMessage(Frame):
    """A ``system`` frame. Known subtypes have subclasses; others arrive as this class,
    with their fields in ``extra``."""

    type: ClassVar[str] = "system"
    subtype: str
    session_id: str | None = None
    uuid: str | None = None


@model
class InitMessage(SystemMessage):
    """``system/init``: the session's facts, at the start of every turn."""

    subtype: str = "init"
    cwd: str | None = None
    tools: list[str] | None = None
    mcp_servers: list[McpServerInfo] | None = None
    model: str | None = None
    permission_mode: str | None = None
    slash_commands: list[str] | None = None
    terminal_slash_commands: list[str] | None = None
    api_key_source: str | None = None
    claude_code_version: str | None = None
    output_style: str | None = None
    agents: list[str] | None = None
    skills: list[str] | None = None
    plugins: list[PluginInfo] | None = None
    plugin_errors: list[_JSON] | None = None
    capabilities: list[str] | None = None
    betas: list[str] | None = None
    fast_mode_state: str | None = None
    fast_mode_disabled_reason: str | None = None
    effort: str | None = None
    view_mode: str | None = None
    analytics_disabled: bool | None = None
    product_feedback_disabled: bool | None = None
    served_by_anthropic: bool | None = None
    memory_paths: dict[str, str] | None = None
    original_cwd: str | None = None
    additional_directories: list[str] | None = None
    messaging_socket_path: str | None = None
    per_turn_effort_active: bool | None = None
    ultrathink_available: bool | None = None
    ultrathink_typed_raises: bool | None = None
    #: The ``uuid`` of every prompt this turn takes in.
    user_message_uuids: list[str] | None = None
    #: Whether the CLI runs shell commands in its command sandbox: ``True``, ``False``, or
    #: ``"unknown"`` (CLI 2.1.331 and later; absent before).
    sandbox_enabled: bool | str | None = None


@model
class SessionStateChangedMessage(SystemMessage):
    """``running``, ``requires_action`` or ``idle`` (needs the session-state variable)."""

    subtype: str = "session_state_changed"
    state: str
    sdk_host_only: bool | None = None


@model
class StatusMessage(SystemMessage):
    """``requesting`` / ``compacting`` / None, and permission-mode changes."""

    subtype: str = "status"
    _always: ClassVar[tuple[str, ...]] = ("status",)
    status: str | None = None
    permission_mode: str | None = None
    compact_result: str | None = None
    compact_error: str | None = None
    user_message_uuids: list[str] | None = None


@model
class ApiRetryMessage(SystemMessage):
    """An API call is being retried."""

    subtype: str = "api_retry"
    _always: ClassVar[tuple[str, ...]] = ("error_status",)
    attempt: int
    max_retries: int
    retry_delay_ms: int | float
    error_status: int | None = None
    error: str | None = None
    no_response: _JSON | None = None


def _permission_fix(tool: object, reason_type: object) -> str:
    """How to let ``tool`` run, after the CLI refused it without asking anyone for the
    reason ``reason_type`` (its ``decision_reason_type``: None when no rule or mode allowed
    the call and nothing was there to ask, ``"rule"`` for a rule, ``"mode"`` for the
    permission mode)."""
    if reason_type == "mode":
        return f"the permission mode refuses {tool} (Options.permission_mode)"
    if reason_type == "rule":
        return (
            f"a permission rule (Options.allowed_tools/disallowed_tools or the settings' "
            f"permissions) leaves {tool} to a prompt that nobody answers: answer it with "
            f"Options(can_use_tool=...) or change the rule"
        )
    text = str(tool)
    rule = text if not text.startswith("mcp__") else "__".join(text.split("__")[:2])
    return (
        f"no permission was granted for {tool}: allow it with "
        f"Options(allowed_tools=[{rule!r}]), or decide each call with "
        f"Options(can_use_tool=...)"
    )


@model
class PermissionDeniedMessage(SystemMessage):
    """A tool call was denied without asking (advisory; see ``result.permission_denials``)."""

    subtype: str = "permission_denied"
    tool_name: str
    tool_use_id: str
    message: str | None = None
    agent_id: str | None = None
    decision_reason_type: str | None = None
    decision_reason: str | None = None

    @property
    def explanation(self) -> str:
        """What the CLI said, and how to let the tool run (`_permission_fix`)."""
        said = self.message if isinstance(self.message, str) else "(no message)"
        return f"{said} -> {_permission_fix(self.tool_name, self.decision_reason_type)}"


@model
class ThinkingTokensMessage(SystemMessage):
    """A running estimate of thinking tokens."""

    subtype: str = "thinking_tokens"
    estimated_tokens: int
    estimated_tokens_delta: int | None = None
    user_message_uuid: str | None = None


@model
class InformationalMessage(SystemMessage):
    """A notice (for example a hook's ``systemMessage``)."""

    subtype: str = "informational"
    content: str
    level: str | None = None
    tool_use_id: str | None = None
    prevent_continuation: bool | None = None
    tag: str | None = None


@model
class HookStartedMessage(SystemMessage):
    """A settings/plugin hook started (with ``include_hook_events``)."""

    subtype: str = "hook_started"
    hook_id: str
    hook_name: str
    hook_event: str


@model
class HookProgressMessage(SystemMessage):
    """Output of a running settings/plugin hook."""

    subtype: str = "hook_progress"
    hook_id: str
    hook_name: str
    hook_event: str
    stdout: str | None = None
    stderr: str | None = None
    output: str | None = None


@model
class HookResponseMessage(SystemMessage):
    """A settings/plugin hook finished."""

    subtype: str = "hook_response"
    hook_id: str
    hook_name: str
    hook_event: str
    output: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    exit_code: int | None = None
    outcome: str | None = None


@model
class CompactBoundaryMessage(SystemMessage):
    """The conversation was compacted here."""

    subtype: str = "compact_boundary"
    compact_metadata: CompactMetadata
    logical_parent_uuid: str | None = None


@model
class LocalCommandOutputMessage(SystemMessage):
    """Output of a local slash command."""

    subtype: str = "local_command_output"
    content: str


@model
class ControlRequestProgressMessage(SystemMessage):
    """Progress of a long host request (for example ``side_question``)."""

    subtype: str = "control_request_progress"
    request_id: str
    status: str
    attempt: int | None = None
    max_retries: int | None = None
    retry_delay_ms: int | float | None = None
    error_status: int | None = None


@model
class ModelRefusalFallbackMessage(SystemMessage):
    """The model refused; the CLI fell back to another model."""

    subtype: str = "model_refusal_fallback"
    trigger: str | None = None
    direction: str | None = None
    scope: str | None = None
    original_model: str | None = None
    fallback_model: str | None = None
    request_id: str | None = None
    api_refusal_category: str | None = None
    api_refusal_explanation: str | None = None
    retracted_message_uuids: list[str] | None = None
    refused_user_message_uuid: str | None = None
    content: str | None = None


@model
class ModelRefusalNoFallbackMessage(SystemMessage):
    """The model refused and no fallback was possible."""

    subtype: str = "model_refusal_no_fallback"
    original_model: str | None = None
    request_id: str | None = None
    api_refusal_category: str | None = None
    api_refusal_explanation: str | None = None
    refused_user_message_uuid: str | None = None
    content: str | None = None


@model
class PluginInstallMessage(SystemMessage):
    """Plugin installation progress."""

    subtype: str = "plugin_install"
    status: str
    name: str | None = None
    error: str | None = None


@model
class TaskStartedMessage(SystemMessage):
    """A background task (subagent, shell, workflow) started."""

    subtype: str = "task_started"
    task_id: str
    description: str | None = None
    run_id: str | None = None
    tool_use_id: str | None = None
    subagent_type: str | None = None
    is_backgrounded: bool | None = None
    spawn_depth: int | None = None
    parent_task_id: str | None = None
    task_type: str | None = None
    workflow_name: str | None = None
    prompt: str | None = None
    skip_transcript: bool | None = None
    ambient: bool | None = None


@model
class TaskProgressMessage(SystemMessage):
    """Progress of a background task."""

    subtype: str = "task_progress"
    task_id: str
    description: str | None = None
    run_id: str | None = None
    tool_use_id: str | None = None
    subagent_type: str | None = None
    usage: _JSON | None = None
    last_tool_name: str | None = None
    summary: str | None = None


@model
class TaskUpdatedMessage(SystemMessage):
    """A background task's state changed (``patch`` holds the changes)."""

    subtype: str = "task_updated"
    task_id: str
    patch: _JSON
    run_id: str | None = None


@model
class TaskNotificationMessage(SystemMessage):
    """A background task ended."""

    subtype: str = "task_notification"
    task_id: str
    status: str
    run_id: str | None = None
    tool_use_id: str | None = None
    reason: str | None = None
    output_file: str | None = None
    summary: str | None = None
    summary_is_report: bool | None = None
    usage: _JSON | None = None
    resource_links: list[Any] | None = None
    skip_transcript: bool | None = None
    ambient: bool | None = None


@model
class BackgroundTasksChangedMessage(SystemMessage):
    """The full set of background tasks (replace, do not merge)."""

    subtype: str = "background_tasks_changed"
    tasks: list[BackgroundTask]


@model
class WorkerShuttingDownMessage(SystemMessage):
    """The CLI worker is shutting down."""

    subtype: str = "worker_shutting_down"
    reason: str | None = None


@model
class CommandsChangedMessage(SystemMessage):
    """The slash commands changed (replace the cached list)."""

    subtype: str = "commands_changed"
    commands: list[SlashCommand]


@model
class NotificationMessage(SystemMessage):
    """A user-facing notification."""

    subtype: str = "notification"
    key: str
    text: str
    priority: str | None = None
    color: str | None = None
    timeout_ms: int | None = None


@model
class FilesPersistedMessage(SystemMessage):
    """Files were uploaded/persisted."""

    subtype: str = "files_persisted"
    files: list[_JSON] | None = None
    failed: list[_JSON] | None = None
    processed_at: Any = None


@model
class MemoryRecallMessage(SystemMessage):
    """Memories were recalled into the context."""

    subtype: str = "memory_recall"
    mode: str | None = None
    memories: list[_JSON] | None = None


@model
class ElicitationCompleteMessage(SystemMessage):
    """An MCP elicitation completed."""

    subtype: str = "elicitation_complete"
    mcp_server_name: str
    elicitation_id: str | None = None


@model
class SessionWritesLostMessage(SystemMessage):
    """The CLI could not write its session files (disk full, quota)."""

    subtype: str = "session_writes_lost"
    error_code: str | None = None
    lost: list[str] | None = None
    transcript_session_ids: list[str] | None = None


@model
class SessionTitleChangedMessage(SystemMessage):
    """The session's title changed."""

    subtype: str = "session_title_changed"
    title: str | None = None


@model
class UiInvalidateMessage(SystemMessage):
    """The CLI asks a host that draws its state to draw it again (``event``: what changed,
    such as ``"ui.render"``; CLI 2.1.330 to 2.1.332, after a spare's claim)."""

    subtype: str = "ui_invalidate"
    event: str | None = None


#: Known ``system`` subtypes and their classes.
def _subtype_of(cls: type[SystemMessage]) -> str:
    default = class_default(cls, "subtype")
    assert isinstance(default, str)
    return default


SYSTEM_SUBTYPES: Mapping[str, type[SystemMessage]] = {
    _subtype_of(cls): cls
    for cls in (
        InitMessage,
        SessionStateChangedMessage,
        StatusMessage,
        ApiRetryMessage,
        PermissionDeniedMessage,
        ThinkingTokensMessage,
        InformationalMessage,
        HookStartedMessage,
        HookProgressMessage,
        HookResponseMessage,
        CompactBoundaryMessage,
        LocalCommandOutputMessage,
        ControlRequestProgressMessage,
        ModelRefusalFallbackMessage,
        ModelRefusalNoFallbackMessage,
        PluginInstallMessage,
        TaskStartedMessage,
        TaskProgressMessage,
        TaskUpdatedMessage,
        TaskNotificationMessage,
        BackgroundTasksChangedMessage,
        WorkerShuttingDownMessage,
        CommandsChangedMessage,
        NotificationMessage,
        FilesPersistedMessage,
        MemoryRecallMessage,
        ElicitationCompleteMessage,
        SessionWritesLostMessage,
        SessionTitleChangedMessage,
        UiInvalidateMessage,
    )
}


# --------------------------------------------------------------------------------------
# Other top-level frames (§7.8)


@model
class RateLimitEvent(Frame):
    """Rate-limit state of the account."""

    type: ClassVar[str] = "rate_limit_event"
    rate_limit_info: RateLimitInfo
    session_id: str | None = None
    uuid: str | None = None


@model
class ToolProgressMessage(Frame):
    """A long-running tool is still working."""

    type: ClassVar[str] = "tool_progress"
    tool_use_id: str
    tool_name: str
    parent_tool_use_id: str | None = None
    elapsed_time_seconds: float | None = None
    task_id: str | None = None
    heartbeat: bool | None = None
    subagent_type: str | None = None
    subagent_retry: _JSON | None = None
    session_id: str | None = None
    uuid: str | None = None


@model
class ToolUseSummaryMessage(Frame):
    """A summary of preceding tool calls."""

    type: ClassVar[str] = "tool_use_summary"
    summary: str
    preceding_tool_use_ids: list[str] | None = None
    session_id: str | None = None
    uuid: str | None = None


@model
class AuthStatusMessage(Frame):
    """Authentication progress."""

    type: ClassVar[str] = "auth_status"
    is_authenticating: bool
    output: list[str] | None = None
    error: str | None = None
    session_id: str | None = None
    uuid: str | None = None


@model
class PromptSuggestionMessage(Frame):
    """A suggested next prompt (after a result, when enabled)."""

    type: ClassVar[str] = "prompt_suggestion"
    suggestion: str
    session_id: str | None = None
    uuid: str | None = None


@model
class ConversationResetMessage(Frame):
    """The conversation was reset (``/clear``, plan-mode exit, ...)."""

    type: ClassVar[str] = "conversation_reset"
    new_conversation_id: str
    trigger: str | None = None
    user_message_uuid: str | None = None
    timestamp: str | None = None
    session_id: str | None = None
    uuid: str | None = None


@model
class ActiveGoalMessage(Frame):
    """The active goal changed (``value`` is None when cleared)."""

    type: ClassVar[str] = "active_goal"
    value: _JSON | None = None
    session_id: str | None = None
    uuid: str | None = None


@model
class CommandLifecycleMessage(Frame):
    """State of a user line that carried a ``uuid`` (queued, started, completed, cancelled)."""

    type: ClassVar[str] = "command_lifecycle"
    command_uuid: str
    state: str
    session_id: str | None = None
    uuid: str | None = None


@model
class TranscriptMirrorMessage(Frame):
    """Transcript entries mirrored to the host (with ``--session-mirror``)."""

    type: ClassVar[str] = "transcript_mirror"
    file_path: str
    entries: list[Any] | None = None
    session_id: str | None = None
    uuid: str | None = None


@model
class UnknownMessage(UnknownBase):
    """A frame of a kind the model does not know (or could not type); ``raw`` is the frame."""

    @property
    def type(self) -> str | None:
        value = self.raw.get("type")
        return value if isinstance(value, str) else None

    @property
    def subtype(self) -> str | None:
        value = self.raw.get("subtype")
        return value if isinstance(value, str) else None


def _text_of(content: Any) -> str:
    """The text of a content list: its text blocks' strings, joined."""
    if not isinstance(content, list):
        return ""
    return "".join(b.text for b in content if isinstance(b, TextBlock) and isinstance(b.text, str))


Message = (
    AssistantMessage
    | UserMessage
    | ResultMessage
    | StreamEvent
    | SystemMessage
    | RateLimitEvent
    | ToolProgressMessage
    | ToolUseSummaryMessage
    | AuthStatusMessage
    | PromptSuggestionMessage
    | ConversationResetMessage
    | ActiveGoalMessage
    | CommandLifecycleMessage
    | TranscriptMirrorMessage
    | UnknownMessage
)

_ = EMPTY
