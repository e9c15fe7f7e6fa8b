"""The definitions of ``claude_sdk.control``, where they are public (see its documentation).

Private: its layout may change; import from ``claude_sdk.control`` or ``claude_sdk``.
"""

from __future__ import annotations

import typing
from typing import Any, ClassVar, Generic, TypeVar

import attrs

from ._attrs import frozen
from ._base import Frame, UnknownBase, WireModel, model
from .hooks import HookInput
from .messages import ResultMessage, SlashCommand
from .permissions import PermissionUpdate

__all__ = [
    # envelopes
    "ControlRequest",
    "ControlResponse",
    "ControlSuccess",
    "ControlError",
    "ControlCancelRequest",
    "KeepAlive",
    "UpdateEnvironmentVariables",
    # initialize
    "HookMatcherConfig",
    "AgentDefinition",
    "InitializeRequest",
    "InitializeResponse",
    "ModelInfo",
    "AgentInfo",
    "AccountInfo",
    # host -> CLI requests
    "InterruptRequest",
    "SetPermissionModeRequest",
    "SetModelRequest",
    "SetMaxThinkingTokensRequest",
    "McpStatusRequest",
    "McpMessageRequest",
    "McpSetServersRequest",
    "McpReconnectRequest",
    "McpToggleRequest",
    "SetMcpPermissionModeOverrideRequest",
    "McpReadResourceRequest",
    "McpCallRequest",
    "RewindFilesRequest",
    "GetContextUsageRequest",
    "GetUsageRequest",
    "GetSessionCostRequest",
    "ListModelsRequest",
    "GetBinaryVersionRequest",
    "FileSuggestionsRequest",
    "RenameSessionRequest",
    "CancelAsyncMessageRequest",
    "ReadFileRequest",
    "SeedReadStateRequest",
    "RegisterRepoRootRequest",
    "ReloadPluginsRequest",
    "ReloadSkillsRequest",
    "ReloadOutputStylesRequest",
    "SetHasSubscribersRequest",
    "StopTaskRequest",
    "BackgroundTasksRequest",
    "GetTaskOutputRequest",
    "ApplyFlagSettingsRequest",
    "GetSettingsRequest",
    "GetHooksListingRequest",
    "UpdateSettingsRequest",
    "ListPermissionRulesRequest",
    "EndSessionRequest",
    "SetColorRequest",
    # CLI -> host requests
    "CanUseToolRequest",
    "HookCallbackRequest",
    "ElicitationRequest",
    "RequestUserDialogRequest",
    "OAuthTokenRefreshRequest",
    "HostAuthTokenRefreshRequest",
    "UnknownControlRequest",
    "ControlRequestPayload",
    "McpMessageResponse",
    "ElicitationResponse",
    "HostRequest",
    "HOST_REQUESTS",
    "CLI_REQUESTS",
    # typed success bodies
    "InterruptResponse",
    "InterruptOutcome",
    "InterruptReceipt",
    "SteerReceipt",
    "ResumeConfirmation",
    "GetStatusRequest",
    "GetStatusResponse",
    "StatusSection",
    "StatusRow",
    "ExportConversationRequest",
    "ExportConversationResponse",
    "SetModelResponse",
    "ClaimSessionRequest",
    "ClaimSessionResponse",
    "SetPermissionModeResponse",
    "McpServerStatus",
    "McpStatusResponse",
    "McpSetServersResponse",
    "RewindFilesResponse",
    "ContextUsageResponse",
    "GetBinaryVersionResponse",
    "CancelAsyncMessageResponse",
    "ReadFileResponse",
    "ListModelsResponse",
    "ReloadOutputStylesResponse",
    "HookEventInfo",
    "HookListingEntry",
    "HookListingPolicy",
    "GetHooksListingResponse",
    "BackgroundTasksResponse",
    "McpCallStaging",
    "McpCallResponse",
    "McpResourceContent",
    "McpReadResourceResponse",
    "SetMcpPermissionModeOverrideResponse",
    "RegisterRepoRootResponse",
    "McpServerRef",
]

_JSON = dict[str, Any]
_Answer = TypeVar("_Answer")


# ======================================================================================
# Envelopes


@model
class ControlRequest(Frame):
    """A control request, in either direction."""

    type: ClassVar[str] = "control_request"
    request_id: str
    request: ControlRequestPayload

    @property
    def subtype(self) -> str | None:
        """The payload's subtype."""
        return self.request.subtype


@model
class ControlSuccess(WireModel):
    """A success response; ``response`` is the body (absent means ``{}``)."""

    subtype: ClassVar[str] = "success"
    request_id: str
    response: _JSON | None = None
    pending_permission_requests: list[_JSON] | None = None
    pending_user_dialog_requests: list[_JSON] | None = None
    pending_elicitation_requests: list[_JSON] | None = None


@model
class ControlError(WireModel):
    """An error response, with the CLI's message and an optional ``error_code`` token."""

    subtype: ClassVar[str] = "error"
    request_id: str
    error: str
    error_code: str | None = None


@model
class UnknownControlResponse(UnknownBase):
    """A response envelope of an unknown subtype."""

    @property
    def request_id(self) -> str | None:
        value = self.raw.get("request_id")
        return value if isinstance(value, str) else None


@model
class ControlResponse(Frame):
    """A control response, in either direction."""

    type: ClassVar[str] = "control_response"
    response: ControlSuccess | ControlError | UnknownControlResponse

    @property
    def request_id(self) -> str | None:
        """The id of the request this answers."""
        return self.response.request_id

    @property
    def is_error(self) -> bool:
        """True for an error response."""
        return not isinstance(self.response, ControlSuccess)


@model
class ControlCancelRequest(Frame):
    """Withdraws an in-flight request; it gets no reply."""

    type: ClassVar[str] = "control_cancel_request"
    request_id: str


@model
class KeepAlive(Frame):
    """Ignored by both sides; may carry a ``startup_mark``."""

    type: ClassVar[str] = "keep_alive"
    startup_mark: Any = None


@model
class UpdateEnvironmentVariables(Frame):
    """Host -> CLI: push allow-listed environment variables (credentials)."""

    type: ClassVar[str] = "update_environment_variables"
    variables: dict[str, str]
    request_id: str | None = None


# ======================================================================================
# The base of host -> CLI request payloads


@model
class HostRequest(WireModel, Generic[_Answer]):
    """A request the host sends to the CLI; the type parameter is the answer it gets.

    ``answer_type`` (read from the type parameter when the class is made) is what the body of
    a success response becomes: a model class, ``dict[str, Any]`` for the body as it came, or
    ``None`` (nothing: the body is ignored). A request class knows its answer type, so
    ``await session.request(InterruptRequest())`` is typed as an `InterruptResponse`.
    """

    subtype: ClassVar[str]
    answer_type: ClassVar[Any] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in cls.__dict__.get("__orig_bases__", ()):
            if typing.get_origin(base) is HostRequest:
                (answer,) = typing.get_args(base)
                cls.answer_type = None if answer is type(None) else answer


# ======================================================================================
# initialize (§6.4)


@model
class HookMatcherConfig(WireModel):
    """One hook matcher as registered in ``initialize`` (``timeout`` in seconds)."""

    _always: ClassVar[tuple[str, ...]] = ("matcher",)
    matcher: str | None = None
    hook_callback_ids: list[str]
    timeout: float | None = None
    on_failure: str | None = None


@model
class AgentDefinition(WireModel):
    """A custom subagent (``initialize.agents`` values)."""

    description: str
    prompt: str
    tools: list[str] | None = None
    disallowed_tools: list[str] | None = None
    model: str | None = None
    mcp_servers: list[Any] | None = None
    skills: list[str] | None = None
    initial_prompt: str | None = None
    max_turns: int | None = None
    auto_compact_window: int | None = None
    background: bool | None = None
    omit_claude_md: bool | None = None
    memory: str | None = None
    effort: str | None = None
    permission_mode: str | None = None
    observer: bool | None = None
    observer_message: str | None = None


@model
class ModelInfo(WireModel):
    """A model the CLI offers; pass ``value`` to ``set_model``."""

    value: str
    display_name: str | None = None
    description: str | None = None
    resolved_model: str | None = None
    supports_effort: bool | None = None
    supported_effort_levels: list[str] | None = None
    supports_adaptive_thinking: bool | None = None
    supports_fast_mode: bool | None = None
    supports_auto_mode: bool | None = None
    supports_thinking_off: bool | None = None


@model
class AgentInfo(WireModel):
    """An agent type the CLI knows."""

    name: str
    description: str | None = None
    model: str | None = None


@model
class AccountInfo(WireModel):
    """How the CLI is authenticated."""

    email: str | None = None
    organization: str | None = None
    subscription_type: str | None = None
    token_source: str | None = None
    api_key_source: str | None = None
    api_provider: str | None = None


@model
class InitializeResponse(WireModel):
    """The CLI's answer to ``initialize``: what it offers and what it applied.

    Every field but ``commands``, ``agents``, ``output_style``, ``available_output_styles``,
    ``models`` and ``account`` is optional in the CLI's own schema. ``sandbox_enabled``
    (CLI 2.1.331 and later) is whether the session's sandbox is on: a bool, or
    ``"unknown"`` when the CLI could not read it. ``capabilities`` names the control
    features this CLI honours (``mcp_call_soft_error_result_v1``, ...).
    """

    commands: list[SlashCommand] | None = None
    agents: list[AgentInfo] | None = None
    output_style: str | None = None
    available_output_styles: list[str] | None = None
    user_output_styles_dir: str | None = None
    models: list[ModelInfo] | None = None
    unavailable_models: list[ModelInfo] | None = None
    account: AccountInfo | None = None
    auth_conflict: _JSON | None = None
    current_model: str | None = None
    pid: int | None = None
    claude_code_version: str | None = None
    current_permission_mode: str | None = None
    inbound_read_receipts: bool | None = None
    hooks_applied: bool | None = None
    hook_on_failure_supported: bool | None = None
    hooks_when_unanswered_kept: int | None = None
    other_hook_ask_outranks_host: bool | None = None
    plugins_applied: bool | None = None
    mcp_servers_applied: bool | None = None
    managed_settings_applied: bool | None = None
    settings_applied: bool | None = None
    disallowed_tools_applied: bool | None = None
    code_running_mcp_tools_applied: dict[str, list[str]] | None = None
    host_worded_asks: bool | None = None
    workspace_trust_recorded: bool | None = None
    sdk_mcp_manifests_parked: dict[str, str] | None = None
    permission_mode_from_default_fallback: bool | None = None
    auto_default_nudge: str | None = None
    bypass_auto_switch: _JSON | None = None
    footer_indicator: Any = None
    feedback_survey_config: Any = None
    survey_followup_box: Any = None
    feedback_mode: _JSON | None = None
    analytics_disabled: bool | None = None
    sandbox_enabled: bool | str | None = None
    remote_control_auto_enable: bool | None = None
    remote_control_auto_connect_default: bool | None = None
    remote_control_available: bool | None = None
    remote_control_auto_on_by_default: bool | None = None
    claude_in_chrome_at_startup: bool | None = None
    claude_in_chrome_prompt_disabled: bool | None = None
    ide_rc_auto_enable_gate: bool | None = None
    fast_mode_state: str | None = None
    fast_mode_disabled_reason: str | None = None
    session_state: str | None = None
    capabilities: list[str] | None = None

    def supports(self, capability: str) -> bool:
        """Whether the CLI lists ``capability`` (e.g. ``"mcp_call_soft_error_result_v1"``)."""
        return capability in (self.capabilities or ())


@model
class InitializeRequest(HostRequest[InitializeResponse]):
    """The first request of a session: hooks, agents, prompts and in-process servers."""

    subtype: ClassVar[str] = "initialize"
    _always: ClassVar[tuple[str, ...]] = ("hooks",)
    hooks: dict[str, list[HookMatcherConfig]] | None = None
    sdk_mcp_servers: list[str] | None = None
    sdk_mcp_server_configs: _JSON | None = None
    sdk_mcp_server_manifests: _JSON | None = None
    json_schema: _JSON | None = None
    system_prompt: list[str] | None = None
    append_system_prompt: str | None = None
    system_prompt_snapshot: bool | None = None
    exclude_dynamic_sections: bool | None = None
    plan_mode_instructions: str | None = None
    tool_aliases: dict[str, str] | None = None
    agents: dict[str, AgentDefinition] | None = None
    title: str | None = None
    skills: list[str] | None = None
    prompt_suggestions: bool | None = None
    agent_progress_summaries: bool | None = None
    forward_subagent_text: bool | None = None
    per_task_stop_affordance: bool | None = None
    supported_dialog_kinds: list[str] | None = None
    plugins: list[_JSON] | None = None
    mcp_servers: _JSON | None = None
    settings: _JSON | None = None
    disallowed_tools: list[str] | None = None
    managed_settings: _JSON | None = None


# ======================================================================================
# Typed success bodies (a request class names the one it is answered with)


@model
class InterruptResponse(WireModel):
    """The interrupt's receipt: user messages still queued (and any cancelled)."""

    still_queued: list[str] | None = None
    cancelled: list[str] | None = None


@frozen(kw_only=True)
class ResumeConfirmation:
    """What a session opened with ``resume`` or ``continue_conversation`` confirmed before its
    first prompt (`Session.resumed`; ``Options.verify_resume``).

    Attributes:
        session_id: the session the CLI loaded (its ``/status``), or None when the CLI could
            not say (an older CLI).
        history_chars: the length of the loaded conversation as text (``/export``); 0 for a
            new session (``resume_missing="start"``); None when the CLI could not say.
        started_new: nothing was there to resume, and ``resume_missing="start"`` started a
            new session instead.
    """

    session_id: str | None
    history_chars: int | None
    started_new: bool = False


#: What an interrupt did (`InterruptReceipt.outcome`).
InterruptOutcome = typing.Literal["effective", "no_op", "queued_cancelled", "undetermined"]


@frozen(kw_only=True)
class InterruptReceipt:
    """What `Session.interrupt` did, read from the frames that followed it.

    ``outcome`` is one of:

    * ``"effective"``: a turn that was running ended early because of it (its result is an
      ``error_during_execution`` whose ``terminal_reason`` is ``aborted_streaming``,
      ``aborted_tools``, ...); prompts may have been withdrawn too (``cancelled``);
    * ``"queued_cancelled"``: no turn was cut short, but queued prompts were withdrawn;
    * ``"no_op"``: nothing was running, or the running turn finished on its own before the
      interrupt reached the CLI (``results`` then holds its ordinary result);
    * ``"undetermined"``: the frames that would tell did not come in time (the wait is
      bounded), or the CLI ended first.

    Attributes:
        outcome: see above.
        response: the CLI's answer to the ``interrupt`` request.
        results: the results of the turns that were running when the interrupt was sent, as
            they ended.
        cancelled: uuids of the queued prompts the CLI withdrew (``cancel_queued=True``).
        still_queued: uuids of the prompts still queued behind it (they will run).
    """

    outcome: InterruptOutcome
    response: InterruptResponse
    results: tuple[ResultMessage, ...] = ()
    cancelled: list[str] = attrs.field(factory=list)
    still_queued: list[str] = attrs.field(factory=list)

    @property
    def effective(self) -> bool:
        """The interrupt cut a running turn short."""
        return self.outcome == "effective"


@frozen(kw_only=True)
class SteerReceipt:
    """What `Session.steer` did: the interrupt's receipt and the new instruction sent.

    Attributes:
        interrupt: the receipt of the interrupt (``outcome`` ``"effective"`` when a running
            turn was cut short, ``"no_op"`` when nothing ran or it had just finished,
            ``"queued_cancelled"``; never ``"undetermined"``: then nothing is sent).
        prompt: the uuid of the instruction sent (``receive_response(prompt)`` reads its
            reply).
    """

    interrupt: InterruptReceipt
    prompt: str

    @property
    def cut(self) -> tuple[ResultMessage, ...]:
        """The results of the turns the steer cut short (``ResultMessage.steered_by`` is
        this receipt's ``prompt`` on each)."""
        return tuple(r for r in self.interrupt.results if r.steered_by == self.prompt)


@model
class SetModelResponse(WireModel):
    """The model now in use."""

    model: str | None = None


@model
class ClaimSessionResponse(WireModel):
    """A spare CLI (started with ``--await-claim``) claimed for a folder.

    Attributes:
        status: ``"ok"``.
        cwd: the canonical working directory it now runs in (omitted when that path holds
            invisible characters).
        session_id: the session it now runs.
        parked_ms: how long it was parked before the claim.
        sdk_mcp_settled: False: the first turn still waits for the in-process MCP servers.
        initialize: the ``initialize`` answer for the claimed folder (with
            ``include_initialize``).
        workspace_trust_recorded: the claim's ``workspace_trust`` was recorded.
    """

    status: str | None = None
    cwd: str | None = None
    session_id: str | None = None
    parked_ms: int | None = None
    sdk_mcp_settled: bool | None = None
    initialize: InitializeResponse | None = None
    workspace_trust_recorded: bool | None = None


@model
class SetPermissionModeResponse(WireModel):
    """The permission mode now in effect."""

    mode: str | None = None


@model
class McpServerStatus(WireModel):
    """One MCP server's status."""

    name: str
    status: str
    server_info: _JSON | None = None
    error: str | None = None
    config: _JSON | None = None
    scope: str | None = None
    source: str | None = None
    transport: str | None = None
    tools: list[_JSON] | None = None


@model
class McpStatusResponse(WireModel):
    """Every MCP server's status."""

    mcp_servers: list[McpServerStatus] | None = None


@model
class McpSetServersResponse(WireModel):
    """What ``mcp_set_servers`` changed; per-server failures are in ``errors``."""

    added: list[str] | None = None
    removed: list[str] | None = None
    errors: dict[str, str] | None = None


@model
class RewindFilesResponse(WireModel):
    """Whether files can be (or were) rewound."""

    can_rewind: bool
    error: str | None = None
    files_changed: list[str] | None = None
    insertions: int | None = None
    deletions: int | None = None
    skipped_links: Any = None


@model
class ContextUsageResponse(WireModel):
    """How the context window is used."""

    categories: list[_JSON] | None = None
    total_tokens: int | None = None
    max_tokens: int | None = None
    raw_max_tokens: int | None = None
    autocompact_source: Any = None
    percentage: float | None = None
    grid_rows: list[Any] | None = None
    model: str | None = None
    memory_files: list[Any] | None = None
    mcp_tools: list[Any] | None = None
    mcp_instructions: Any = None
    deferred_builtin_tools: list[Any] | None = None
    system_tools: list[Any] | None = None
    system_prompt_sections: list[Any] | None = None
    agents: list[Any] | None = None
    slash_commands: Any = None
    skills: Any = None
    auto_compact_threshold: int | float | None = None
    is_auto_compact_enabled: bool | None = None
    message_breakdown: Any = None
    api_usage: Any = None


@model
class GetBinaryVersionResponse(WireModel):
    """The CLI binary's version facts."""

    version: str | None = None
    build_time: str | None = None
    oldest_desktop_sdk: str | None = None


@model
class StatusRow(WireModel):
    """One row of the ``/status`` report (`GetStatusResponse`)."""

    label: str
    value: Any = None


@model
class StatusSection(WireModel):
    """One titled section of the ``/status`` report."""

    title: str | None = None
    rows: list[StatusRow] | None = None


@model
class GetStatusResponse(WireModel):
    """The ``/status`` report: version, session id, cwd, model, ... as labelled rows."""

    sections: list[StatusSection] | None = None

    def value(self, label: str) -> Any:
        """The value of the first row labelled ``label`` (``"Session ID"``, ``"Model"``,
        ...), or None."""
        for section in self.sections or ():
            for row in section.rows or ():
                if row.label == label:
                    return row.value
        return None

    @property
    def session_id(self) -> str | None:
        """The session the CLI has loaded (the ``Session ID`` row)."""
        value = self.value("Session ID")
        return value if isinstance(value, str) else None


@model
class ExportConversationResponse(WireModel):
    """The loaded conversation as the text ``/export`` writes (empty: no history)."""

    text: str | None = None
    default_filename: str | None = None


@model
class CancelAsyncMessageResponse(WireModel):
    """Whether the queued message was withdrawn."""

    cancelled: bool = False


@model
class ReadFileResponse(WireModel):
    """A file read through the CLI.

    ``requested_path`` is the request's ``path`` exactly as sent (CLI 2.1.330 and later put
    it on every success answer); ``lossy`` is True when a utf-8 ``contents`` had bytes
    replaced. The other optional fields answer request fields the CLI marks internal
    (``offset``, ``anchor``, uploads).
    """

    contents: str
    abs_path: str | None = None
    truncated: bool | None = None
    encoding: str | None = None
    lossy: bool | None = None
    requested_path: str | None = None
    anchor: str | None = None
    offset: int | None = None
    read_bytes: int | None = None
    total_bytes: int | None = None
    etag: str | None = None
    upload_screened: bool | None = None
    can_upload: bool | None = None
    file_uuid: str | None = None


@model
class ListModelsResponse(WireModel):
    """The models the CLI offers."""

    models: list[ModelInfo] | None = None


@model
class ReloadOutputStylesResponse(WireModel):
    """The output style names after a reload, built-in and custom, in the order the
    initialize answer lists them."""

    available_output_styles: list[str] | None = None


@model
class HookEventInfo(WireModel):
    """A hook event as the ``/hooks`` menu describes it (``eventCatalog`` and ``events``).

    ``hook_count`` is set on the entries of ``events`` only (events with a listed hook).
    """

    name: str
    summary: str | None = None
    supports_matcher: bool | None = None
    hook_count: int | None = None


@model
class HookListingEntry(WireModel):
    """One hook of the listing, with display-ready strings (control characters revealed).

    Attributes:
        event: the hook event.
        matcher: the matcher, ``""`` when the entry has none.
        source: where it comes from (``userSettings``, ``projectSettings``,
            ``sessionHook``, ``pluginHook``, ...).
        type: ``command``, ``prompt``, ``agent``, ``http``, ``mcp_tool``, ...
        command_text: what runs (the command, prompt or URL).
        disabled: True when the session's mode or policy keeps it from running.
        editable: the entry as stored (``{matcher, config, headersRedacted?}``), only on
            rows from a settings file the session reads and may write.
    """

    event: str
    matcher: str | None = None
    source: str | None = None
    source_label: str | None = None
    plugin_name: str | None = None
    type: str | None = None
    display_text: str | None = None
    command_text: str | None = None
    content_label: str | None = None
    condition: str | None = None
    timeout: float | None = None
    status_message: str | None = None
    runs_once: bool | None = None
    runs_in_background: bool | None = None
    disabled: bool | None = None
    editable: _JSON | None = None


@model
class HookListingPolicy(WireModel):
    """The managed-policy state the ``/hooks`` menu shows in its banners."""

    disabled_by_policy: bool | None = None
    managed_only: bool | None = None
    plugin_only: bool | None = None
    all_disabled: bool | None = None
    policy_hook_count: int | None = None
    policy_unreadable: bool | None = None


@model
class GetHooksListingResponse(WireModel):
    """The hooks the CLI's read-only ``/hooks`` menu lists: settings-file, session and
    plugin hooks (not the host's own ``Options.hooks`` callbacks), a snapshot.

    Attributes:
        events: the events with at least one listed hook, in lifecycle order.
        hooks: one row per listed hook.
        event_catalog: every hook event the CLI knows, in lifecycle order.
        policy: the managed-policy locks.
        safe_mode: ``{managedHooksStillApply, exitHint}`` under ``--safe-mode``.
        bare_mode: ``{exitHint}`` under ``--bare``.
        errors: settings files skipped by the merge (``{file?, path, message}``).
    """

    events: list[HookEventInfo] | None = None
    hooks: list[HookListingEntry] | None = None
    event_catalog: list[HookEventInfo] | None = None
    policy: HookListingPolicy | None = None
    safe_mode: _JSON | None = None
    bare_mode: _JSON | None = None
    errors: list[_JSON] | None = None


@model
class BackgroundTasksResponse(WireModel):
    """The receipt of ``background_tasks``: ``backgrounded`` is set only when the request
    named a ``tool_use_id`` (whether a matching foreground task was found)."""

    backgrounded: bool | None = None


@model
class McpCallStaging(WireModel):
    """The outcome of a staged ``mcp_call`` (one that sent ``timeout_ms``, ``expires_at`` or
    files): ``ok``, then the outputs written, or an ``error_code`` (``expired``,
    ``input_missing``, ``output_too_large``, ``output_conflict``, ``timeout``,
    ``tool_error``) with its ``detail``."""

    ok: bool
    outputs: list[_JSON] | None = None
    inputs_used: list[_JSON] | None = None
    error_code: str | None = None
    detail: str | None = None
    retryable: bool | None = None
    refusal_limit: bool | None = None


@model
class McpCallResponse(WireModel):
    """An MCP tool's result, from ``mcp_call``.

    Attributes:
        content: the result's content: a string (processed as a model turn would see it)
            or, with ``result_not_for_model``, the server's own content blocks.
        is_error: True only when the request set ``soft_error_result`` and the tool
            failed: ``content`` is then the tool's own error result.
        structured_content: the result's ``structuredContent``.
        meta: the result's ``_meta`` (the CLI removes its own ``com.anthropic/`` keys).
        staging: the outcome of a staged call (see `McpCallStaging`); a tool that fails
            in a staged call answers ``staging.ok == False``, not a control error.
    """

    content: Any = None
    is_error: bool | None = None
    structured_content: _JSON | None = None
    meta: _JSON | None = None
    staging: McpCallStaging | None = None

    @property
    def text(self) -> str:
        """The text of ``content``: the string itself, or its text blocks joined."""
        content = self.content
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(
                b["text"]
                for b in content
                if isinstance(b, dict)
                and b.get("type") == "text"
                and isinstance(b.get("text"), str)
            )
        return ""


@model
class McpResourceContent(WireModel):
    """One item of a resource read: ``text``, or ``blob`` (base64) for binary content."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None
    meta: _JSON | None = None


@model
class McpReadResourceResponse(WireModel):
    """The server's ``resources/read`` result for ``mcp_read_resource`` (untrusted content:
    render it sandboxed)."""

    contents: list[McpResourceContent] | None = None


@model
class SetMcpPermissionModeOverrideResponse(WireModel):
    """The receipt of ``set_mcp_permission_mode_override``: ``warning`` is set when no
    known MCP server has that name (the override is stored all the same)."""

    warning: str | None = None


@model
class RegisterRepoRootResponse(WireModel):
    """The root ``register_repo_root`` registered, as a resolved absolute path."""

    directory: str


# ======================================================================================
# Host -> CLI requests (§6.3)


@model
class InterruptRequest(HostRequest[InterruptResponse]):
    """Stop the current turn (the session stays usable)."""

    subtype: ClassVar[str] = "interrupt"
    cancel_queued: bool | None = None


@model
class SetPermissionModeRequest(HostRequest[SetPermissionModeResponse]):
    """Change the permission mode."""

    subtype: ClassVar[str] = "set_permission_mode"
    mode: str
    answers_bypass_switch_back: bool | None = None


@model
class SetModelRequest(HostRequest[SetModelResponse]):
    """Change the model (None or ``"default"`` goes back to the default)."""

    subtype: ClassVar[str] = "set_model"
    _always: ClassVar[tuple[str, ...]] = ("model",)
    model: str | None = None


@model
class ClaimSessionRequest(HostRequest[ClaimSessionResponse]):
    """Claim a spare CLI (started with ``--await-claim`` in a parking folder, before the
    work was known) for a folder: the CLI moves there and becomes that folder's session.

    A refusal is a control error whose message starts with a reason token
    (``not_a_spare``, ``cwd_not_found``, ``project_settings_not_claimable``, ...); the
    spare stays parked. ``model`` and the thinking budget are not claim fields: send
    ``set_model`` / ``set_max_thinking_tokens`` after the claim.

    Attributes:
        cwd: the folder (absolute, or ``~/...``).
        env: variables the claim may set (the CLI accepts ``CLAUDE_CODE_OAUTH_TOKEN``,
            ``CLAUDE_CODE_SESSION_ACCESS_TOKEN`` and ``CLAUDE_CODE_HOST_SESSION_ID`` only).
        additional_directories: as ``--add-dir``.
        permission_mode: the session's permission mode.
        system_prompt: as ``initialize``'s ``systemPrompt``.
        append_system_prompt: as ``initialize``'s ``appendSystemPrompt``.
        agents: as ``initialize``'s ``agents``.
        title: as ``initialize``'s ``title``.
        sdk_mcp_servers: the session's in-process MCP servers (omitted: those registered
            while parked stay).
        include_initialize: answer with the claimed folder's ``initialize`` payload.
        workspace_trust: ``{"accepted": bool, "directory": str}``.
    """

    subtype: ClassVar[str] = "claim_session"
    cwd: str
    env: dict[str, str] | None = None
    additional_directories: list[str] | None = None
    permission_mode: str | None = None
    system_prompt: list[str] | None = None
    append_system_prompt: str | None = None
    agents: _JSON | None = None
    title: str | None = None
    sdk_mcp_servers: list[str] | None = None
    include_initialize: bool | None = None
    workspace_trust: _JSON | None = None


@model
class SetMaxThinkingTokensRequest(HostRequest[None]):
    """Change the thinking budget."""

    subtype: ClassVar[str] = "set_max_thinking_tokens"
    _always: ClassVar[tuple[str, ...]] = ("max_thinking_tokens",)  # None resets the budget
    max_thinking_tokens: int | None = None
    thinking_display: str | None = None


@model
class McpStatusRequest(HostRequest[McpStatusResponse]):
    """Ask for the status of every MCP server."""

    subtype: ClassVar[str] = "mcp_status"
    live_reply: bool | None = None


@model
class McpMessageRequest(HostRequest[None]):
    """A JSON-RPC message for an in-process MCP server (both directions)."""

    subtype: ClassVar[str] = "mcp_message"
    server_name: str
    message: _JSON


@model
class McpSetServersRequest(HostRequest[McpSetServersResponse]):
    """Replace the dynamic MCP servers."""

    subtype: ClassVar[str] = "mcp_set_servers"
    servers: dict[str, _JSON]


@model
class McpReconnectRequest(HostRequest[None]):
    """Reconnect an MCP server."""

    subtype: ClassVar[str] = "mcp_reconnect"
    server_name: str


@model
class McpToggleRequest(HostRequest[None]):
    """Enable or disable an MCP server."""

    subtype: ClassVar[str] = "mcp_toggle"
    server_name: str
    enabled: bool


@model
class SetMcpPermissionModeOverrideRequest(HostRequest[SetMcpPermissionModeOverrideResponse]):
    """Pin an MCP server's per-tool permission mode: ``"default"`` or ``"auto"``, or None to
    clear the pin (tighten-only: the CLI refuses any other mode)."""

    subtype: ClassVar[str] = "set_mcp_permission_mode_override"
    _always: ClassVar[tuple[str, ...]] = ("mode",)  # null clears the pin
    server_name: str
    mode: str | None = None


@model
class McpReadResourceRequest(HostRequest[McpReadResourceResponse]):
    """Read a ``ui://`` resource of an MCP server the CLI connected (not an SDK server)."""

    subtype: ClassVar[str] = "mcp_read_resource"
    server_name: str
    uri: str


@model
class McpCallRequest(HostRequest[McpCallResponse]):
    """Call an MCP tool without a model turn (not for in-process servers).

    ``soft_error_result`` (capability ``mcp_call_soft_error_result_v1``, CLI 2.1.331 and
    later) asks for a failing tool's own error result as a success answer with
    ``isError: true``; a CLI without the capability ignores it.
    """

    subtype: ClassVar[str] = "mcp_call"
    tool: str
    arguments: _JSON | None = None
    soft_error_result: bool | None = None
    expires_at: Any = None
    timeout_ms: int | None = None
    result_not_for_model: bool | None = None
    check_permissions: bool | None = None
    input_files: list[_JSON] | None = None
    output_files: list[_JSON] | None = None


@model
class RewindFilesRequest(HostRequest[RewindFilesResponse]):
    """Rewind files to their state at a user message (needs file checkpointing)."""

    subtype: ClassVar[str] = "rewind_files"
    user_message_id: str
    dry_run: bool | None = None


@model
class GetContextUsageRequest(HostRequest[ContextUsageResponse]):
    """Ask how the context window is used (costs about 34 token-count calls)."""

    subtype: ClassVar[str] = "get_context_usage"
    detail: str | None = None


@model
class GetUsageRequest(HostRequest[_JSON]):
    """Ask for the session's usage and rate limits."""

    subtype: ClassVar[str] = "get_usage"
    skip_behaviors: Any = None


@model
class GetSessionCostRequest(HostRequest[_JSON]):
    """Ask for the ``/usage`` text."""

    subtype: ClassVar[str] = "get_session_cost"


@model
class ListModelsRequest(HostRequest[ListModelsResponse]):
    """List the models the CLI offers."""

    subtype: ClassVar[str] = "list_models"


@model
class GetBinaryVersionRequest(HostRequest[GetBinaryVersionResponse]):
    """Ask for the CLI binary's version."""

    subtype: ClassVar[str] = "get_binary_version"


@model
class GetStatusRequest(HostRequest[GetStatusResponse]):
    """Ask for the ``/status`` report (the loaded session's id among its rows)."""

    subtype: ClassVar[str] = "get_status"


@model
class ExportConversationRequest(HostRequest[ExportConversationResponse]):
    """Ask for the loaded conversation as text (``/export``)."""

    subtype: ClassVar[str] = "export_conversation"


@model
class FileSuggestionsRequest(HostRequest[_JSON]):
    """File-path completions for a query."""

    subtype: ClassVar[str] = "file_suggestions"
    query: str


@model
class RenameSessionRequest(HostRequest[None]):
    """Set the session's title."""

    subtype: ClassVar[str] = "rename_session"
    title: str
    source: str | None = None
    session_id: str | None = None


@model
class CancelAsyncMessageRequest(HostRequest[CancelAsyncMessageResponse]):
    """Withdraw a queued user message by its uuid."""

    subtype: ClassVar[str] = "cancel_async_message"
    message_uuid: str


@model
class ReadFileRequest(HostRequest[ReadFileResponse]):
    """Read a file through the CLI (subject to its Read rules)."""

    subtype: ClassVar[str] = "read_file"
    path: str
    max_bytes: int | None = None
    encoding: str | None = None


@model
class SeedReadStateRequest(HostRequest[None]):
    """Tell the CLI a file was read when its mtime was ``mtime`` (floored milliseconds)."""

    subtype: ClassVar[str] = "seed_read_state"
    path: str
    mtime: float


@model
class RegisterRepoRootRequest(HostRequest[RegisterRepoRootResponse]):
    """Add a strict subdirectory of the working directory (or of an ``--add-dir`` root) as
    a working-directory root."""

    subtype: ClassVar[str] = "register_repo_root"
    directory: str
    reload_claude_md: bool | None = None
    reload_plugins: bool | None = None
    reload_skills: bool | None = None


@model
class ReloadPluginsRequest(HostRequest[_JSON]):
    """Reload plugins."""

    subtype: ClassVar[str] = "reload_plugins"
    hold_on_cache_impact: bool | None = None
    add_plugins: list[Any] | None = None
    refuse_if_busy: bool | None = None


@model
class ReloadSkillsRequest(HostRequest[_JSON]):
    """Reload skills."""

    subtype: ClassVar[str] = "reload_skills"


@model
class ReloadOutputStylesRequest(HostRequest[ReloadOutputStylesResponse]):
    """Re-read the output-style directories."""

    subtype: ClassVar[str] = "reload_output_styles"


@model
class SetHasSubscribersRequest(HostRequest[_JSON]):
    """Tell the CLI whether anyone watches the session."""

    subtype: ClassVar[str] = "set_has_subscribers"
    has_subscribers: bool | None = None


@model
class StopTaskRequest(HostRequest[None]):
    """Stop a background task."""

    subtype: ClassVar[str] = "stop_task"
    task_id: str


@model
class BackgroundTasksRequest(HostRequest[BackgroundTasksResponse]):
    """Move running foreground tasks (Bash commands, subagents) to the background: all of
    them, or the one started by ``tool_use_id``."""

    subtype: ClassVar[str] = "background_tasks"
    tool_use_id: str | None = None


@model
class GetTaskOutputRequest(HostRequest[_JSON]):
    """Read a background task's output."""

    subtype: ClassVar[str] = "get_task_output"
    task_id: str


@model
class ApplyFlagSettingsRequest(HostRequest[None]):
    """Apply partial settings (a None value clears a key)."""

    subtype: ClassVar[str] = "apply_flag_settings"
    settings: _JSON


@model
class GetSettingsRequest(HostRequest[_JSON]):
    """Ask for the effective settings and their sources."""

    subtype: ClassVar[str] = "get_settings"


@model
class GetHooksListingRequest(HostRequest[GetHooksListingResponse]):
    """Ask for the hooks the ``/hooks`` menu lists."""

    subtype: ClassVar[str] = "get_hooks_listing"


@model
class UpdateSettingsRequest(HostRequest[None]):
    """Write settings through the CLI's own writer: ``localSettings`` takes
    ``outputStyle``, ``userSettings`` takes ``effortLevel`` (string values only)."""

    subtype: ClassVar[str] = "update_settings"
    source: str
    settings: _JSON


@model
class ListPermissionRulesRequest(HostRequest[_JSON]):
    """List the permission rules in effect."""

    subtype: ClassVar[str] = "list_permission_rules"


@model
class EndSessionRequest(HostRequest[None]):
    """End the session."""

    subtype: ClassVar[str] = "end_session"


@model
class SetColorRequest(HostRequest[_JSON]):
    """Set the session colour (refused over stdio by CLI 2.1.330)."""

    subtype: ClassVar[str] = "set_color"
    color: str


# ======================================================================================
# CLI -> host requests (§6.5, §6.6)


@model
class McpServerRef(WireModel):
    """Which MCP server a tool belongs to."""

    name: str
    source: str | None = None


@model
class CanUseToolRequest(WireModel):
    """The CLI asks whether a tool may run (needs ``--permission-prompt-tool=stdio``)."""

    subtype: ClassVar[str] = "can_use_tool"
    tool_name: str
    input: _JSON
    tool_use_id: str | None = None
    agent_id: str | None = None
    permission_suggestions: list[PermissionUpdate] | None = None
    blocked_path: str | None = None
    decision_reason: str | None = None
    decision_reason_type: str | None = None
    decision_reason_code: str | None = None
    classifier_approvable: bool | None = None
    suppress_always_allow_rule: bool | None = None
    default_to_no: bool | None = None
    matched_ask_rule: _JSON | None = None
    title: str | None = None
    display_name: str | None = None
    description: str | None = None
    requires_user_interaction: bool | None = None
    mcp_server: McpServerRef | None = None
    server_policy_ask_only: bool | None = None
    plugin: Any = None
    server_prompt: Any = None
    computer_folder: Any = None


@model
class HookCallbackRequest(WireModel):
    """The CLI runs a hook callback registered in ``initialize``."""

    subtype: ClassVar[str] = "hook_callback"
    callback_id: str
    input: HookInput
    tool_use_id: str | None = None


@model
class ElicitationRequest(WireModel):
    """An MCP server asks the user for input."""

    subtype: ClassVar[str] = "elicitation"
    mcp_server_name: str
    message: str
    mode: str | None = None
    url: str | None = None
    elicitation_id: str | None = None
    requested_schema: _JSON | None = None
    property_order: list[str] | None = None
    title: str | None = None
    display_name: str | None = None
    description: str | None = None


@model
class RequestUserDialogRequest(WireModel):
    """The CLI asks the host to show a dialog of a kind it declared."""

    subtype: ClassVar[str] = "request_user_dialog"
    dialog_kind: str
    payload: Any = None
    tool_use_id: str | None = None


@model
class OAuthTokenRefreshRequest(WireModel):
    """The CLI needs a fresh OAuth token."""

    subtype: ClassVar[str] = "oauth_token_refresh"


@model
class HostAuthTokenRefreshRequest(WireModel):
    """The CLI needs a fresh host auth token."""

    subtype: ClassVar[str] = "host_auth_token_refresh"


@model
class McpMessageResponse(WireModel):
    """The host's answer to ``mcp_message``: the in-process server's JSON-RPC reply."""

    mcp_response: _JSON


@model
class ElicitationResponse(WireModel):
    """The host's answer to ``elicitation``: ``accept`` (with ``content``), ``decline`` or
    ``cancel``."""

    action: str
    content: _JSON | None = None


@model
class UnknownControlRequest(UnknownBase):
    """A request payload of a subtype the model does not know; ``raw`` is the payload."""

    @property
    def subtype(self) -> str | None:
        value = self.raw.get("subtype")
        return value if isinstance(value, str) else None


HOST_REQUESTS: tuple[type[HostRequest[Any]], ...] = (
    InitializeRequest,
    ClaimSessionRequest,
    InterruptRequest,
    SetPermissionModeRequest,
    SetModelRequest,
    SetMaxThinkingTokensRequest,
    McpStatusRequest,
    McpMessageRequest,
    McpSetServersRequest,
    McpReconnectRequest,
    McpToggleRequest,
    SetMcpPermissionModeOverrideRequest,
    McpReadResourceRequest,
    McpCallRequest,
    RewindFilesRequest,
    GetContextUsageRequest,
    GetUsageRequest,
    GetSessionCostRequest,
    ListModelsRequest,
    GetBinaryVersionRequest,
    GetStatusRequest,
    ExportConversationRequest,
    FileSuggestionsRequest,
    RenameSessionRequest,
    CancelAsyncMessageRequest,
    ReadFileRequest,
    SeedReadStateRequest,
    RegisterRepoRootRequest,
    ReloadPluginsRequest,
    ReloadSkillsRequest,
    ReloadOutputStylesRequest,
    SetHasSubscribersRequest,
    StopTaskRequest,
    BackgroundTasksRequest,
    GetTaskOutputRequest,
    ApplyFlagSettingsRequest,
    GetSettingsRequest,
    GetHooksListingRequest,
    UpdateSettingsRequest,
    ListPermissionRulesRequest,
    EndSessionRequest,
    SetColorRequest,
)
"""Every host -> CLI request payload class (``mcp_message`` goes both ways)."""

CLI_REQUESTS: tuple[type[WireModel], ...] = (
    CanUseToolRequest,
    HookCallbackRequest,
    McpMessageRequest,
    ElicitationRequest,
    RequestUserDialogRequest,
    OAuthTokenRefreshRequest,
    HostAuthTokenRefreshRequest,
)
"""Every CLI -> host request payload class."""

ControlRequestPayload = (
    InitializeRequest
    | ClaimSessionRequest
    | InterruptRequest
    | SetPermissionModeRequest
    | SetModelRequest
    | SetMaxThinkingTokensRequest
    | McpStatusRequest
    | McpMessageRequest
    | McpSetServersRequest
    | McpReconnectRequest
    | McpToggleRequest
    | SetMcpPermissionModeOverrideRequest
    | McpReadResourceRequest
    | McpCallRequest
    | RewindFilesRequest
    | GetContextUsageRequest
    | GetUsageRequest
    | GetSessionCostRequest
    | ListModelsRequest
    | GetBinaryVersionRequest
    | GetStatusRequest
    | ExportConversationRequest
    | FileSuggestionsRequest
    | RenameSessionRequest
    | CancelAsyncMessageRequest
    | ReadFileRequest
    | SeedReadStateRequest
    | RegisterRepoRootRequest
    | ReloadPluginsRequest
    | ReloadSkillsRequest
    | ReloadOutputStylesRequest
    | SetHasSubscribersRequest
    | StopTaskRequest
    | BackgroundTasksRequest
    | GetTaskOutputRequest
    | ApplyFlagSettingsRequest
    | GetSettingsRequest
    | GetHooksListingRequest
    | UpdateSettingsRequest
    | ListPermissionRulesRequest
    | EndSessionRequest
    | SetColorRequest
    | CanUseToolRequest
    | HookCallbackRequest
    | ElicitationRequest
    | RequestUserDialogRequest
    | OAuthTokenRefreshRequest
    | HostAuthTokenRefreshRequest
    | UnknownControlRequest
)
