"""The converter's knowledge of the wire: key names, emission rules, tagged unions.

This is the one place where camelCase and snake_case meet. ``register_all()`` runs once, when
``claude_sdk.wire`` (and so the package) is imported; the decoders themselves are generated
lazily on first use.
"""

from __future__ import annotations

from typing import Any

from .. import control as c
from .. import messages as m
from . import codec, schema_hooks

__all__ = ["RESPONSE_TYPES", "register_all"]

#: The typed body of a success response, by the subtype of the request it answers.
RESPONSE_TYPES: dict[str, type[Any]] = {
    "initialize": c.InitializeResponse,
    "interrupt": c.InterruptResponse,
    "set_model": c.SetModelResponse,
    "set_permission_mode": c.SetPermissionModeResponse,
    "mcp_status": c.McpStatusResponse,
    "mcp_set_servers": c.McpSetServersResponse,
    "rewind_files": c.RewindFilesResponse,
    "get_context_usage": c.ContextUsageResponse,
    "get_binary_version": c.GetBinaryVersionResponse,
    "cancel_async_message": c.CancelAsyncMessageResponse,
    "read_file": c.ReadFileResponse,
    "list_models": c.ListModelsResponse,
}

_done = False


def register_all() -> None:
    """Register every wire spec and union (idempotent)."""
    global _done
    if _done:
        return
    _done = True
    spec = codec.register_spec

    # -- messages -------------------------------------------------------------------
    spec(m.ModelUsage, camel=True, cost_usd="costUSD")
    spec(m.APIMessage, always=("stop_reason", "stop_sequence", "context_management"))
    spec(
        m.AssistantMessage,
        frame=True,
        always=("parent_tool_use_id",),
    )
    spec(
        m.UserMessage,
        frame=True,
        always=("parent_tool_use_id",),
        is_replay="isReplay",
        is_synthetic="isSynthetic",
        should_query="shouldQuery",
    )
    spec(
        m.ResultMessage,
        frame=True,
        model_usage="modelUsage",
    )
    spec(m.StreamEvent, frame=True, always=("parent_tool_use_id",))
    spec(m.SystemMessage, frame=True)
    spec(
        m.InitMessage,
        frame=True,
        permission_mode="permissionMode",
        api_key_source="apiKeySource",
    )
    spec(m.StatusMessage, frame=True, always=("status",), permission_mode="permissionMode")
    spec(m.ApiRetryMessage, frame=True, always=("error_status",))
    spec(m.RateLimitInfo, camel=True)
    spec(m.SlashCommand, argument_hint="argumentHint")
    spec(m.AuthStatusMessage, frame=True, is_authenticating="isAuthenticating")
    spec(m.TranscriptMirrorMessage, frame=True, file_path="filePath")
    codec.register_frames(
        m.RateLimitEvent,
        m.ToolProgressMessage,
        m.ToolUseSummaryMessage,
        m.PromptSuggestionMessage,
        m.ConversationResetMessage,
        m.ActiveGoalMessage,
        m.CommandLifecycleMessage,
        *[cls for cls in m.SYSTEM_SUBTYPES.values() if cls not in codec._SPECS],
    )

    codec.register_union(
        m.ContentBlock,
        key="type",
        unknown=m.UnknownBlock,
        suffixes={"_tool_result": m.ServerToolResultBlock},
    )

    # -- control --------------------------------------------------------------------
    spec(c.ControlRequest, frame=True)
    spec(c.ControlResponse, frame=True)
    spec(c.ControlCancelRequest, frame=True)
    spec(c.KeepAlive, frame=True)
    spec(c.UpdateEnvironmentVariables, frame=True)
    spec(c.HookMatcherConfig, camel=True, always=("matcher",))
    spec(c.AgentDefinition, camel=True)
    spec(c.InitializeRequest, camel=True, always=("hooks",))
    spec(c.ModelInfo, camel=True)
    spec(c.AccountInfo, camel=True)
    spec(c.SetModelRequest, always=("model",))
    spec(c.McpStatusRequest, camel=True)
    for cls in (
        c.McpReconnectRequest,
        c.McpToggleRequest,
        c.SetMcpPermissionModeOverrideRequest,
        c.McpReadResourceRequest,
    ):
        spec(cls, server_name="serverName")
    spec(c.McpStatusResponse, mcp_servers="mcpServers")
    spec(c.McpServerStatus, server_info="serverInfo")
    spec(c.RewindFilesResponse, camel=True)
    spec(c.ContextUsageResponse, camel=True)
    spec(c.GetBinaryVersionResponse, camel=True)
    spec(c.ReadFileResponse, camel=True)

    codec.register_union(c.ControlRequestPayload, key="subtype", unknown=c.UnknownControlRequest)
    codec.register_union(
        c.ControlSuccess | c.ControlError | c.UnknownControlResponse,
        key="subtype",
        unknown=c.UnknownControlResponse,
    )

    schema_hooks.register()  # the tool input classes register themselves (tool_inputs)

    # -- the top-level frame union --------------------------------------------------
    system_union = _system_union()
    codec.register_union(
        system_union,
        key="subtype",
        members=list(m.SYSTEM_SUBTYPES.values()),
        default=m.SystemMessage,
        extra_tags=dict(m.SYSTEM_SUBTYPES),
    )
    frame_union: Any = m.Message | c.ControlRequest | c.ControlResponse | c.ControlCancelRequest
    frame_union = frame_union | c.KeepAlive | c.UpdateEnvironmentVariables
    codec.register_union(
        frame_union,
        key="type",
        members=[
            *(a for a in m.Message.__args__ if a is not m.SystemMessage),
            c.ControlRequest,
            c.ControlResponse,
            c.ControlCancelRequest,
            c.KeepAlive,
            c.UpdateEnvironmentVariables,
        ],
        unknown=m.UnknownMessage,
        nested={"system": system_union},
    )
    codec.set_frame_union(frame_union)


def _system_union() -> Any:
    union: Any = m.SystemMessage
    for cls in m.SYSTEM_SUBTYPES.values():
        union = union | cls
    return union
