"""Permissions: modes, permission updates and the answers to ``can_use_tool``.

Shapes follow CLI 2.1.330 (its permission payloads and the ``can_use_tool`` request). Field
names are snake_case; the codec writes the camelCase wire keys (``toolName``, ``ruleContent``,
``updatedInput``, ``updatedPermissions``, ``toolUseID``, ``decisionClassification``).

* `PermissionUpdate` is keyed on ``type``. An unknown ``type`` decodes to
  `UnknownPermissionUpdate` (the raw dict), so a new kind of suggestion never breaks a
  ``can_use_tool`` request. ``behavior`` on the rule updates is a data field, not a tag.
* `PermissionResult` is what the host answers to ``can_use_tool``: `PermissionAllow` or
  `PermissionDeny`, tagged by ``behavior``. Optional fields left as None are not sent.
* `PermissionSuspend` is a third answer a callback may give, never sent: a person answers
  later, on any host (`claude_sdk.humans`).
"""

# The definitions live in claude_sdk._permissions (trio's layout: private code, public names).
from ._permissions import (
    AddDirectoriesUpdate,
    AddRulesUpdate,
    CanUseTool,
    DecisionClassification,
    PermissionAllow,
    PermissionBehavior,
    PermissionDeny,
    PermissionMode,
    PermissionResult,
    PermissionRuleValue,
    PermissionSuspend,
    PermissionUpdate,
    PermissionUpdateDestination,
    RemoveDirectoriesUpdate,
    RemoveRulesUpdate,
    ReplaceRulesUpdate,
    SetModeUpdate,
    ToolPermissionContext,
    UnknownPermissionUpdate,
)

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
