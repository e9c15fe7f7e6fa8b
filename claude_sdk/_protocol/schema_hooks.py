"""Wire names and unions of the hook and permission models (``hooks.py``, ``permissions.py``).

``register()`` is called once by ``schema.register_all()``, before the top-level frame union.

* Hook inputs are snake_case on the wire (as in the model), keyed on ``hook_event_name``.
* Hook outputs and ``hookSpecificOutput`` are camelCase, keyed on ``hookEventName``;
  ``continue_`` / ``async_`` are written ``continue`` / ``async`` by the codec's rule.
* Permission updates are keyed on ``type``; their rules are camelCase (``toolName``,
  ``ruleContent``). ``can_use_tool`` answers are camelCase, keyed on ``behavior``, with
  ``toolUseID`` spelt as the CLI spells it.
"""

from __future__ import annotations

from .. import hooks as h
from .. import permissions as p
from . import codec

__all__ = ["register"]


def register() -> None:
    """Register every hook and permission wire spec and union (call once)."""
    spec = codec.register_spec

    # -- permissions ----------------------------------------------------------------
    spec(p.PermissionRuleValue, camel=True)
    spec(p.PermissionAllow, camel=True, tool_use_id="toolUseID")
    spec(p.PermissionDeny, camel=True, tool_use_id="toolUseID")
    codec.register_union(p.PermissionUpdate, key="type", unknown=p.UnknownPermissionUpdate)
    # Host answers only: nothing to keep for an unknown behavior.
    codec.register_union(p.PermissionResult, key="behavior")

    # -- hook outputs ---------------------------------------------------------------
    spec(h.HookOutput, camel=True, specific="hookSpecificOutput")
    spec(h.AsyncHookOutput, camel=True)
    # Every event-specific output inherits the base's camelCase spec.
    spec(h.BaseHookSpecificOutput, camel=True)
    spec(h.PostToolUseOutput, camel=True, updated_mcp_tool_output="updatedMCPToolOutput")
    codec.register_union(
        h.HookSpecificOutput, key="hookEventName", unknown=h.UnknownHookSpecificOutput
    )

    # -- hook inputs ----------------------------------------------------------------
    codec.register_union(h.HookInput, key="hook_event_name", unknown=h.UnknownHookInput)
