"""The wire schema: how the model classes are written on the wire, as data.

(The wire here includes the lines of the CLI's session files, ``claude_sdk._entries``, and the
typed tool inputs, ``claude_sdk.tool_inputs``: parts a codec adds when it first meets them.)

This is the one place where camelCase and snake_case meet. A `Schema` is a plain value (the
name mapping of each class, the tagged unions, the top-level frame union); a
``claude_sdk._protocol.codec.Codec`` is built from one. Nothing here registers anything
anywhere: `wire_schema` reads the model classes and returns the schema of the CLI's wire, and
a caller that needs more classes (the session files of ``claude_sdk.history``) extends it with
`Schema.extend` and builds its own codec.

* Hook inputs are snake_case on the wire (as in the model), keyed on ``hook_event_name``.
* Hook outputs and ``hookSpecificOutput`` are camelCase, keyed on ``hookEventName``;
  ``continue_`` / ``async_`` are written ``continue`` / ``async``.
* Permission updates are keyed on ``type``; their rules are camelCase (``toolName``,
  ``ruleContent``). ``can_use_tool`` answers are camelCase, keyed on ``behavior``, with
  ``toolUseID`` spelt as the CLI spells it.
* Control requests and responses are keyed on ``subtype`` inside their envelopes; system
  messages on ``subtype`` inside ``type: "system"``.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from .. import control as c
from .. import hooks as h
from .. import messages as m
from .. import permissions as p
from .._attrs import frozen

__all__ = ["Schema", "UnionSpec", "WireSpec", "answer_types", "wire_schema"]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@frozen
class WireSpec:
    """How the fields of one class are named on the wire.

    Attributes:
        renames: field name -> wire key, for the fields whose key differs.
        camel: every field (and tag) not in ``renames`` is camelCase on the wire.
    """

    renames: Mapping[str, str] = attrs.field(factory=dict)
    camel: bool = False

    def wire_name(self, name: str) -> str:
        """The wire key of the field (or tag ClassVar) ``name``."""
        if name in self.renames:
            return self.renames[name]
        if name.endswith("_") and not name.startswith("_"):
            return name[:-1]  # continue_ -> continue, async_ -> async
        return _camel(name) if self.camel else name


#: The spec of a class that declares none: every key is the field's name.
DEFAULT_SPEC = WireSpec()


@frozen
class UnionSpec:
    """A union type keyed on one wire field.

    Attributes:
        union: the ``A | B | ...`` type as used in annotations.
        key: the wire key holding the tag.
        members: the tagged classes (default: every member of ``union`` with a tag ClassVar).
        unknown: the class that keeps unknown tags (it must take ``raw=``).
        default: a member class used for unlisted tags instead of ``unknown``.
        suffixes: tag suffix -> class, for open families such as ``*_tool_result``.
        extra_tags: more tags for member classes whose tag is an instance field.
        nested: tag -> another union of the schema that dispatches further
            (``system`` -> ``subtype``).
    """

    union: Any
    key: str
    members: tuple[type, ...] | None = None
    unknown: type | None = None
    default: type | None = None
    suffixes: Mapping[str, type] = attrs.field(factory=dict)
    extra_tags: Mapping[str, type] = attrs.field(factory=dict)
    nested: Mapping[str, Any] = attrs.field(factory=dict)


@frozen
class Schema:
    """Everything a codec needs to know about a family of model classes.

    Attributes:
        specs: class -> its `WireSpec` (a class without one inherits its nearest base's).
        unions: the tagged unions, in the order they may refer to each other.
        frame_union: the union of everything that travels as one line, or None.
        parts: module name -> a function giving the part of the schema for that module's
            classes, which a codec adds when it first meets one of them (a module that
            a program may never use is not imported for its schema).
    """

    specs: Mapping[type, WireSpec]
    unions: tuple[UnionSpec, ...]
    frame_union: Any = None
    parts: Mapping[str, Callable[[], Schema]] = attrs.field(factory=dict)

    def extend(
        self, specs: Mapping[type, WireSpec] | None = None, unions: Iterable[UnionSpec] = ()
    ) -> Schema:
        """A schema with more classes (a class may not be declared twice)."""
        more = dict(specs or {})
        twice = sorted(cls.__qualname__ for cls in more if cls in self.specs)
        if twice:
            raise ValueError(f"wire specs declared twice: {', '.join(twice)}")
        return Schema(
            specs={**self.specs, **more},
            unions=(*self.unions, *unions),
            frame_union=self.frame_union,
            parts=self.parts,
        )


def _spec(*, camel: bool = False, **renames: str) -> WireSpec:
    return WireSpec(renames=renames, camel=camel)


@functools.cache
def wire_schema() -> Schema:
    """The schema of the CLI's wire: messages, control frames, hooks, permissions, tools."""
    specs: dict[type, WireSpec] = {
        # -- messages ---------------------------------------------------------------
        m.ModelUsage: _spec(camel=True, cost_usd="costUSD"),
        m.UserMessage: _spec(
            is_replay="isReplay", is_synthetic="isSynthetic", should_query="shouldQuery"
        ),
        m.ResultMessage: _spec(model_usage="modelUsage"),
        m.InitMessage: _spec(permission_mode="permissionMode", api_key_source="apiKeySource"),
        m.StatusMessage: _spec(permission_mode="permissionMode"),
        m.RateLimitInfo: _spec(camel=True),
        m.SlashCommand: _spec(argument_hint="argumentHint"),
        m.AuthStatusMessage: _spec(is_authenticating="isAuthenticating"),
        m.TranscriptMirrorMessage: _spec(file_path="filePath"),
        # -- control ----------------------------------------------------------------
        c.HookMatcherConfig: _spec(camel=True),
        c.AgentDefinition: _spec(camel=True),
        c.InitializeRequest: _spec(camel=True),
        c.ModelInfo: _spec(camel=True),
        c.AccountInfo: _spec(camel=True),
        c.McpStatusRequest: _spec(camel=True),
        c.McpReconnectRequest: _spec(server_name="serverName"),
        c.McpToggleRequest: _spec(server_name="serverName"),
        c.SetMcpPermissionModeOverrideRequest: _spec(server_name="serverName"),
        c.McpReadResourceRequest: _spec(server_name="serverName"),
        c.McpStatusResponse: _spec(mcp_servers="mcpServers"),
        c.McpServerStatus: _spec(server_info="serverInfo"),
        c.RewindFilesResponse: _spec(camel=True),
        c.ContextUsageResponse: _spec(camel=True),
        c.GetBinaryVersionResponse: _spec(camel=True),
        c.ReadFileResponse: _spec(abs_path="absPath"),
        c.GetHooksListingResponse: _spec(camel=True),
        c.HookEventInfo: _spec(camel=True),
        c.HookListingEntry: _spec(camel=True),
        c.HookListingPolicy: _spec(camel=True),
        c.McpCallResponse: _spec(camel=True, meta="_meta"),
        c.McpResourceContent: _spec(camel=True, meta="_meta"),
        # -- permissions ------------------------------------------------------------
        p.PermissionRuleValue: _spec(camel=True),
        p.PermissionAllow: _spec(camel=True, tool_use_id="toolUseID"),
        p.PermissionDeny: _spec(camel=True, tool_use_id="toolUseID"),
        # -- hook outputs (every event-specific output inherits the base's camelCase) --
        h.HookOutput: _spec(camel=True, specific="hookSpecificOutput"),
        h.AsyncHookOutput: _spec(camel=True),
        h.BaseHookSpecificOutput: _spec(camel=True),
        h.PostToolUseOutput: _spec(camel=True, updated_mcp_tool_output="updatedMCPToolOutput"),
    }

    system_union: Any = m.SystemMessage
    for cls in m.SYSTEM_SUBTYPES.values():
        system_union = system_union | cls
    frame_union: Any = m.Message | c.ControlRequest | c.ControlResponse | c.ControlCancelRequest
    frame_union = frame_union | c.KeepAlive | c.UpdateEnvironmentVariables

    unions = (
        UnionSpec(
            m.ContentBlock,
            key="type",
            unknown=m.UnknownBlock,
            suffixes={"_tool_result": m.ServerToolResultBlock},
        ),
        UnionSpec(c.ControlRequestPayload, key="subtype", unknown=c.UnknownControlRequest),
        UnionSpec(
            c.ControlSuccess | c.ControlError | c.UnknownControlResponse,
            key="subtype",
            unknown=c.UnknownControlResponse,
        ),
        UnionSpec(p.PermissionUpdate, key="type", unknown=p.UnknownPermissionUpdate),
        # Host answers only: nothing to keep for an unknown behavior.
        UnionSpec(p.PermissionResult, key="behavior"),
        UnionSpec(h.HookSpecificOutput, key="hookEventName", unknown=h.UnknownHookSpecificOutput),
        UnionSpec(h.HookInput, key="hook_event_name", unknown=h.UnknownHookInput),
        UnionSpec(
            system_union,
            key="subtype",
            members=tuple(m.SYSTEM_SUBTYPES.values()),
            default=m.SystemMessage,
            extra_tags=dict(m.SYSTEM_SUBTYPES),
        ),
        UnionSpec(
            frame_union,
            key="type",
            members=(
                *(a for a in typing.get_args(m.Message) if a is not m.SystemMessage),
                c.ControlRequest,
                c.ControlResponse,
                c.ControlCancelRequest,
                c.KeepAlive,
                c.UpdateEnvironmentVariables,
            ),
            unknown=m.UnknownMessage,
            nested={"system": system_union},
        ),
    )
    parts = {
        # the tool model's classes live in the generated modules (tools/model/generate.py)
        "claude_sdk._tool_inputs": _tool_inputs,
        "claude_sdk._tool_outputs": _tool_outputs,
        "claude_sdk._entries": _session_file_entries,
        "claude_sdk.sandbox": _sandbox_settings,
    }
    return Schema(specs=specs, unions=unions, frame_union=frame_union, parts=parts)


def _tool_inputs() -> Schema:
    """The typed tool inputs: snake_case, but for the keys `tool_inputs.WIRE_KEYS` lists."""
    from .. import tool_inputs as t  # on first use: only programs that use the views

    specs = {cls: WireSpec(renames=renames) for cls, renames in t.WIRE_KEYS.items()}
    return Schema(specs=specs, unions=())


def _tool_outputs() -> Schema:
    """The typed tool outputs: snake_case, but for the keys `tool_outputs.WIRE_KEYS` lists."""
    from .. import tool_outputs as t  # on first use: only programs that use the views

    specs = {cls: WireSpec(renames=renames) for cls, renames in t.WIRE_KEYS.items()}
    return Schema(specs=specs, unions=())


def _session_file_entries() -> Schema:
    """The lines of the CLI's session files (camelCase, keyed on ``type``)."""
    from .. import _entries as e  # on first use: only programs that read session files

    specs = {
        e._Entry: _spec(camel=True),
        **{cls: _spec(camel=True, **keys) for cls, keys in e.WIRE_KEYS.items()},
    }
    return Schema(
        specs=specs, unions=(UnionSpec(e.TranscriptEntry, key="type", unknown=e.UnknownEntry),)
    )


def _sandbox_settings() -> Schema:
    """``Options.sandbox`` (the settings' ``sandbox`` block): the keys `sandbox.WIRE_KEYS`
    lists."""
    from .. import sandbox as s  # on first use: only sessions with a sandbox

    return Schema(
        specs={cls: WireSpec(renames=keys) for cls, keys in s.WIRE_KEYS.items()}, unions=()
    )


@functools.cache
def answer_types() -> Mapping[str, Any]:
    """The answer type of every host request, by subtype (see `claude_sdk.control.HostRequest`)."""
    return {cls.subtype: cls.answer_type for cls in c.HOST_REQUESTS}
