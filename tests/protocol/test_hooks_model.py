"""The hook and permission wire model: inputs decode exactly, outputs encode to the CLI's keys.

Three parts:

* every one of the 34 hook events (33 of CLI 2.1.330, PreSkillShellCommand of 2.1.332)
  decodes to its own input class with nothing unknown, and encodes back to the very same dict
  (with every field, and with the required ones only);
* every output class (hook outputs, event-specific outputs, ``can_use_tool`` answers,
  permission updates) encodes to the exact wire keys of ``reference/PROTOCOL.md`` §9.2/§10;
* the real ``hook_callback`` / ``can_use_tool`` requests (and the host's answers) in the
  recorded transcripts decode with no drift.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claude_sdk import control, hooks, permissions
from claude_sdk._base import WireModel
from claude_sdk._protocol.codec import default_codec
from claude_sdk.hooks import (
    AsyncHookOutput,
    CwdChangedOutput,
    ElicitationOutput,
    ElicitationResultOutput,
    FileChangedOutput,
    HookInput,
    HookOutput,
    MessageDisplayOutput,
    NotificationOutput,
    PermissionDeniedOutput,
    PermissionRequestOutput,
    PostModelSwitchOutput,
    PostToolBatchOutput,
    PostToolUseFailureOutput,
    PostToolUseOutput,
    PreModelSwitchOutput,
    PreSkillShellCommandOutput,
    PreToolUseOutput,
    SessionStartOutput,
    SetupOutput,
    StopOutput,
    SubagentStartOutput,
    SubagentStopOutput,
    UnknownHookInput,
    UnknownHookSpecificOutput,
    UserPromptExpansionOutput,
    UserPromptSubmitOutput,
    WorktreeCreateOutput,
)
from claude_sdk.permissions import (
    AddDirectoriesUpdate,
    AddRulesUpdate,
    PermissionAllow,
    PermissionDeny,
    PermissionResult,
    PermissionRuleValue,
    PermissionUpdate,
    RemoveDirectoriesUpdate,
    RemoveRulesUpdate,
    ReplaceRulesUpdate,
    SetModeUpdate,
    UnknownPermissionUpdate,
)

from ..support.deep import deep

codec = default_codec()


JSON = dict[str, Any]

# ======================================================================================
# (a) hook inputs

BASE: JSON = {
    "session_id": "931cd36f-9cd3-4f26-a9d8-d8dfe405d94c",
    "transcript_path": "/home/u/.claude/projects/-w/931cd36f.jsonl",
    "cwd": "/w",
    "prompt_id": "2fdffb2b-61a0-4b68-b785-ef90b853b910",
    "permission_mode": "default",
    "agent_id": "agent-1",
    "agent_type": "general-purpose",
    "effort": {"level": "medium"},
}

MCP_SERVER: JSON = {"name": "calc", "source": "sdk"}
TOOL_INPUT: JSON = {"command": "touch marker.txt", "description": "Create marker file"}
SUGGESTIONS: list[JSON] = [
    {
        "type": "addRules",
        "rules": [{"toolName": "Bash", "ruleContent": "touch marker.txt"}],
        "behavior": "allow",
        "destination": "localSettings",
    },
    {"type": "addDirectories", "directories": ["/w"], "destination": "session"},
    {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
]
BACKGROUND_TASKS: list[JSON] = [
    {"id": "t1", "type": "local_bash", "status": "running", "description": "sleep 5"}
]
SESSION_CRONS: list[JSON] = [
    {"id": "c1", "schedule": "*/5 * * * *", "recurring": True, "prompt": "check CI"}
]
MODEL_SWITCH: JSON = {
    "from_model": "claude-opus-5-5",
    "to_model": "claude-sonnet-4-5",
    "context_tokens": 5000,
    "prompt_cache_warm": True,
    "cache_ttl": "5m",
    "estimated_cache_write_usd": 0.02,
    "pricing": {"input_per_mtok": 3.0, "output_per_mtok": 15.0},
}

#: Every field of every event (§9.1), besides the base fields and ``hook_event_name``.
EVENT_FIELDS: dict[str, JSON] = {
    "PreToolUse": {
        "tool_name": "Bash",
        "tool_input": TOOL_INPUT,
        "tool_use_id": "toolu_1",
        "mcp_server": MCP_SERVER,
    },
    "PostToolUse": {
        "tool_name": "Bash",
        "tool_input": TOOL_INPUT,
        "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
        "tool_use_id": "toolu_1",
        "duration_ms": 35,
        "mcp_server": MCP_SERVER,
    },
    "PostToolUseFailure": {
        "tool_name": "Bash",
        "tool_input": TOOL_INPUT,
        "tool_use_id": "toolu_1",
        "error": "exit code 1",
        "is_interrupt": False,
        "duration_ms": 12.5,
        "mcp_server": MCP_SERVER,
    },
    "PostToolBatch": {
        "tool_calls": [
            {
                "tool_name": "Read",
                "tool_input": {"file_path": "/w/a"},
                "tool_use_id": "toolu_1",
                "tool_response": "contents",
            },
            {"tool_name": "Read", "tool_input": {"file_path": "/w/b"}, "tool_use_id": "toolu_2"},
        ]
    },
    "Notification": {
        "message": "Claude needs your permission to use Bash",
        "title": "Permission needed",
        "notification_type": "permission_prompt",
    },
    "UserPromptSubmit": {"prompt": "please touch a file", "source": "sdk", "session_title": "T"},
    "UserPromptExpansion": {
        "expansion_type": "slash_command",
        "command_name": "review",
        "command_args": "--all",
        "command_source": "project",
        "prompt": "Review everything",
    },
    "SessionStart": {
        "source": "startup",
        "model": "claude-opus-5-5",
        "session_title": "T",
        "seconds_since_last_response": 12.5,
        "context_tokens": 1000,
        "prompt_cache_likely_expired": False,
        "estimated_cache_write_usd": 0.01,
    },
    "SessionEnd": {"reason": "prompt_input_exit"},
    "Stop": {
        "stop_hook_active": False,
        "last_assistant_message": "Tool said: (Bash completed with no output)",
        "background_tasks": BACKGROUND_TASKS,
        "session_crons": SESSION_CRONS,
    },
    "StopFailure": {
        "error": "rate_limit",
        "error_details": "429 Too Many Requests",
        "last_assistant_message": "partial",
    },
    "SubagentStart": {"agent_id": "agent-7", "agent_type": "Explore"},
    "SubagentStop": {
        "stop_hook_active": True,
        "agent_id": "agent-7",
        "agent_transcript_path": "/home/u/.claude/projects/-w/agent-7.jsonl",
        "agent_type": "Explore",
        "last_assistant_message": "done",
        "background_tasks": [],
        "session_crons": [],
    },
    "PreCompact": {"trigger": "manual", "custom_instructions": "keep the test plan"},
    "PostCompact": {"trigger": "auto", "compact_summary": "We fixed the codec."},
    "PreModelSwitch": {**MODEL_SWITCH, "requested_model": None, "source": "sdk"},
    "PostModelSwitch": {**MODEL_SWITCH, "requested_model": "sonnet", "source": "resume"},
    "PermissionRequest": {
        "tool_name": "Bash",
        "tool_input": TOOL_INPUT,
        "permission_suggestions": SUGGESTIONS,
        "mcp_server": MCP_SERVER,
    },
    "PermissionDenied": {
        "tool_name": "Bash",
        "tool_input": TOOL_INPUT,
        "tool_use_id": "toolu_1",
        "reason": "denied by rule Bash(touch:*)",
        "mcp_server": MCP_SERVER,
    },
    "Setup": {"trigger": "init"},
    "TeammateIdle": {"teammate_name": "alice", "team_name": "core"},
    "TaskCreated": {
        "task_id": "1",
        "task_subject": "Write tests",
        "task_description": "for the codec",
        "teammate_name": "alice",
        "team_name": "core",
    },
    "TaskCompleted": {
        "task_id": "1",
        "task_subject": "Write tests",
        "task_description": "for the codec",
        "teammate_name": "alice",
        "team_name": "core",
    },
    "Elicitation": {
        "mcp_server_name": "calc",
        "message": "Which account?",
        "mode": "form",
        "url": "https://example.invalid/auth",
        "elicitation_id": "e1",
        "requested_schema": {"type": "object", "properties": {"account": {"type": "string"}}},
    },
    "ElicitationResult": {
        "mcp_server_name": "calc",
        "elicitation_id": "e1",
        "mode": "form",
        "action": "accept",
        "content": {"account": "main"},
    },
    "ConfigChange": {"source": "project_settings", "file_path": "/w/.claude/settings.json"},
    "WorktreeCreate": {"name": "feature-x"},
    "WorktreeRemove": {"worktree_path": "/w/.worktrees/feature-x"},
    "InstructionsLoaded": {
        "file_path": "/w/src/CLAUDE.md",
        "memory_type": "Project",
        "load_reason": "nested_traversal",
        "globs": ["src/**"],
        "trigger_file_path": "/w/src/a.py",
        "parent_file_path": "/w/CLAUDE.md",
    },
    "CwdChanged": {"old_cwd": "/w", "new_cwd": "/w/src"},
    "FileChanged": {"file_path": "/w/.env", "event": "change"},
    "DirectoryAdded": {"directory": "/w2", "source": "register_repo_root"},
    "MessageDisplay": {
        "turn_id": "turn-1",
        "message_id": "msg_1",
        "index": 0,
        "final": False,
        "delta": "Hel",
    },
    # CLI 2.1.332, as recorded (tests/e2e/test_hooks_e2e.py)
    "PreSkillShellCommand": {
        "tool_name": "Bash",
        "tool_input": {"command": "touch made.txt && echo made-it"},
        "tool_use_id": "312563f0-24b6-4b69-a77f-872353f63c76:inner:preamble-0",
        "command_name": "mk",
        "command_source": "projectSettings",
        "invoked_by": "user",
    },
}


def full_input(event: str) -> JSON:
    """A wire input of ``event`` with every base and event field."""
    return {**BASE, "hook_event_name": event, **EVENT_FIELDS[event]}


def minimal_input(event: str) -> JSON:
    """A wire input of ``event`` with only the fields its class requires."""
    cls = hooks.HOOK_INPUTS[event]
    required = {a.name for a in attrs.fields(cls) if a.default is attrs.NOTHING}
    data = full_input(event)
    return {k: v for k, v in data.items() if k in required or k == "hook_event_name"}


def test_the_34_events() -> None:
    assert len(hooks.HOOK_EVENTS) == 34
    assert len(set(hooks.HOOK_EVENTS)) == 34
    assert set(hooks.HOOK_INPUTS) == set(hooks.HOOK_EVENTS)
    assert set(EVENT_FIELDS) == set(hooks.HOOK_EVENTS)
    for event, cls in hooks.HOOK_INPUTS.items():
        assert cls.__name__ == f"{event}Input"
    assert set(hooks.HOOK_SPECIFIC_OUTPUTS) <= set(hooks.HOOK_EVENTS)
    for event, out in hooks.HOOK_SPECIFIC_OUTPUTS.items():
        assert out.__name__ == f"{event}Output"


@pytest.mark.parametrize("event", hooks.HOOK_EVENTS)
def test_sample_covers_every_field(event: str) -> None:
    cls = hooks.HOOK_INPUTS[event]
    fields = {a.name for a in attrs.fields(cls)} - {"extra"}
    assert set(full_input(event)) == fields | {"hook_event_name"}


@pytest.mark.parametrize("shape", ["full", "minimal"])
@pytest.mark.parametrize("event", hooks.HOOK_EVENTS)
def test_hook_input_round_trip(event: str, shape: str) -> None:
    data = full_input(event) if shape == "full" else minimal_input(event)
    obj = codec.structure(data, HookInput)
    assert type(obj) is hooks.HOOK_INPUTS[event]
    assert obj.hook_event_name == event
    assert obj.extra == {}
    assert codec.drift(obj) == []
    assert codec.unstructure(obj) == data
    for key, value in data.items():
        if key != "hook_event_name" and not isinstance(value, (dict, list)):
            assert getattr(obj, key) == value


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=deep(100), deadline=None)
@given(data=st.data())
def test_hook_input_round_trip_property(data: st.DataObject) -> None:
    """Any subset of optional fields, explicit nulls and unknown keys encode back exactly."""
    event = data.draw(st.sampled_from(hooks.HOOK_EVENTS))
    full = full_input(event)
    cls = hooks.HOOK_INPUTS[event]
    optional = sorted(
        a.name for a in attrs.fields(cls) if a.default is not attrs.NOTHING and a.name != "extra"
    )
    keep = data.draw(st.sets(st.sampled_from(optional)))
    nulls = data.draw(st.sets(st.sampled_from(optional)))
    unknown = data.draw(
        st.dictionaries(
            st.text(min_size=1, max_size=8).filter(lambda k: k not in full),
            JSON_VALUES,
            max_size=3,
        )
    )
    wire = minimal_input(event)
    wire.update({k: full[k] for k in keep})
    wire.update(dict.fromkeys(nulls))
    wire.update(unknown)
    obj = codec.structure(wire, HookInput)
    assert type(obj) is cls
    assert codec.unstructure(obj) == wire
    assert dict(obj.extra).keys() - nulls == unknown.keys()
    assert len(codec.drift(obj)) == len(unknown)
    for name in nulls:
        assert getattr(obj, name) is None


def test_hook_input_nested_types() -> None:
    req = codec.structure(full_input("PermissionRequest"), HookInput)
    assert isinstance(req, hooks.PermissionRequestInput)
    assert req.permission_suggestions is not None
    assert [type(s) for s in req.permission_suggestions] == [
        AddRulesUpdate,
        AddDirectoriesUpdate,
        SetModeUpdate,
    ]
    batch = codec.structure(full_input("PostToolBatch"), HookInput)
    assert isinstance(batch, hooks.PostToolBatchInput)
    assert [c.tool_use_id for c in batch.tool_calls] == ["toolu_1", "toolu_2"]
    assert batch.tool_calls[1].tool_response is None


def test_hook_input_unknown_fields_are_kept() -> None:
    data = {**full_input("Stop"), "new_field": [1, 2], "last_assistant_message": None}
    obj = codec.structure(data, HookInput)
    assert isinstance(obj, hooks.StopInput)
    assert obj.last_assistant_message is None
    assert codec.drift(obj) == ["$.new_field: unknown field (list)"]
    assert codec.unstructure(obj) == data


def test_unknown_hook_event() -> None:
    data = {**BASE, "hook_event_name": "FutureEvent", "thing": 1}
    obj = codec.structure(data, HookInput)
    assert isinstance(obj, UnknownHookInput)
    assert obj.raw == data
    assert obj.error is None
    assert obj.hook_event_name == "FutureEvent"
    assert obj.session_id == BASE["session_id"]
    assert codec.unstructure(obj) == data
    assert codec.drift(obj) != []


def test_known_event_that_does_not_fit_is_kept_raw() -> None:
    data = {**BASE, "hook_event_name": "PreToolUse"}  # no tool_name, no tool_input
    obj = codec.structure(data, HookInput)
    assert isinstance(obj, UnknownHookInput)
    assert obj.raw == data
    assert obj.hook_event_name == "PreToolUse"
    assert obj.error is not None
    assert "tool_name" in obj.error
    assert codec.unstructure(obj) == data


def test_hook_callback_request_types_its_input() -> None:
    req = {
        "subtype": "hook_callback",
        "callback_id": "hook_0",
        "input": full_input("PreToolUse"),
        "tool_use_id": "toolu_1",
    }
    obj = codec.structure(req, control.ControlRequestPayload)
    assert isinstance(obj, control.HookCallbackRequest)
    assert isinstance(obj.input, hooks.PreToolUseInput)
    assert obj.input.tool_input == TOOL_INPUT
    assert codec.drift(obj) == []
    assert codec.unstructure(obj) == req


# ======================================================================================
# (b) outputs

RULE = PermissionRuleValue(tool_name="Bash", rule_content="git *")
RULE_WIRE: JSON = {"toolName": "Bash", "ruleContent": "git *"}

#: (object, its exact wire dict). Decoding the dict as the object's type gives it back.
ENCODINGS: list[tuple[Any, JSON]] = [
    # -- hook outputs --------------------------------------------------------------------
    (HookOutput(), {}),
    (HookOutput(continue_=True), {"continue": True}),
    (
        HookOutput(
            continue_=False,
            stop_reason="x",
            specific=PreToolUseOutput(permission_decision="deny", permission_decision_reason="r"),
        ),
        {
            "continue": False,
            "stopReason": "x",
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "r",
            },
        },
    ),
    (
        HookOutput(
            suppress_output=True,
            decision="block",
            system_message="careful",
            reason="policy",
            terminal_sequence="\x07",
        ),
        {
            "suppressOutput": True,
            "decision": "block",
            "systemMessage": "careful",
            "reason": "policy",
            "terminalSequence": "\x07",
        },
    ),
    (HookOutput(decision="approve"), {"decision": "approve"}),
    (AsyncHookOutput(async_timeout=5), {"async": True, "asyncTimeout": 5}),
    (AsyncHookOutput(), {"async": True}),
    # -- event-specific outputs ----------------------------------------------------------
    (
        PreToolUseOutput(
            permission_decision="allow",
            permission_decision_reason="ok",
            updated_input={"command": "ls"},
            additional_context="ctx",
        ),
        {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "ok",
            "updatedInput": {"command": "ls"},
            "additionalContext": "ctx",
        },
    ),
    (
        PreToolUseOutput(permission_decision="defer"),
        {
            "hookEventName": "PreToolUse",
            "permissionDecision": "defer",
        },
    ),
    (
        PostToolUseOutput(
            additional_context="a",
            classifier_context="c",
            updated_tool_output={"stdout": "x"},
            updated_mcp_tool_output=[{"type": "text", "text": "5"}],
        ),
        {
            "hookEventName": "PostToolUse",
            "additionalContext": "a",
            "classifierContext": "c",
            "updatedToolOutput": {"stdout": "x"},
            "updatedMCPToolOutput": [{"type": "text", "text": "5"}],
        },
    ),
    (
        PostToolUseFailureOutput(additional_context="a"),
        {"hookEventName": "PostToolUseFailure", "additionalContext": "a"},
    ),
    (
        PostToolBatchOutput(additional_context="a"),
        {"hookEventName": "PostToolBatch", "additionalContext": "a"},
    ),
    (
        NotificationOutput(additional_context="a"),
        {"hookEventName": "Notification", "additionalContext": "a"},
    ),
    (
        UserPromptSubmitOutput(
            additional_context="a", session_title="T", suppress_original_prompt=True
        ),
        {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "a",
            "sessionTitle": "T",
            "suppressOriginalPrompt": True,
        },
    ),
    (
        UserPromptExpansionOutput(additional_context="a", suppress_original_prompt=False),
        {
            "hookEventName": "UserPromptExpansion",
            "additionalContext": "a",
            "suppressOriginalPrompt": False,
        },
    ),
    (
        SessionStartOutput(
            additional_context="a",
            initial_user_message="hi",
            session_title="T",
            watch_paths=["/w/.env"],
            reload_skills=True,
        ),
        {
            "hookEventName": "SessionStart",
            "additionalContext": "a",
            "initialUserMessage": "hi",
            "sessionTitle": "T",
            "watchPaths": ["/w/.env"],
            "reloadSkills": True,
        },
    ),
    (StopOutput(additional_context="a"), {"hookEventName": "Stop", "additionalContext": "a"}),
    (
        SubagentStartOutput(additional_context="a"),
        {"hookEventName": "SubagentStart", "additionalContext": "a"},
    ),
    (
        SubagentStopOutput(additional_context="a"),
        {"hookEventName": "SubagentStop", "additionalContext": "a"},
    ),
    (
        PreModelSwitchOutput(permission_decision="ask", permission_decision_reason="costly"),
        {
            "hookEventName": "PreModelSwitch",
            "permissionDecision": "ask",
            "permissionDecisionReason": "costly",
        },
    ),
    (
        PostModelSwitchOutput(additional_context="a"),
        {"hookEventName": "PostModelSwitch", "additionalContext": "a"},
    ),
    (
        PermissionRequestOutput(
            decision=PermissionAllow(
                updated_input={"command": "ls"},
                updated_permissions=[AddRulesUpdate(rules=[RULE], behavior="allow")],
            )
        ),
        {
            "hookEventName": "PermissionRequest",
            "decision": {
                "behavior": "allow",
                "updatedInput": {"command": "ls"},
                "updatedPermissions": [
                    {
                        "type": "addRules",
                        "rules": [RULE_WIRE],
                        "behavior": "allow",
                        "destination": "session",
                    }
                ],
            },
        },
    ),
    (
        PermissionRequestOutput(decision=PermissionDeny(message="no", interrupt=True)),
        {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "no", "interrupt": True},
        },
    ),
    (
        PermissionDeniedOutput(retry=True),
        {"hookEventName": "PermissionDenied", "retry": True},
    ),
    (SetupOutput(additional_context="a"), {"hookEventName": "Setup", "additionalContext": "a"}),
    (
        ElicitationOutput(action="accept", content={"account": "main"}),
        {"hookEventName": "Elicitation", "action": "accept", "content": {"account": "main"}},
    ),
    (
        ElicitationResultOutput(action="decline"),
        {"hookEventName": "ElicitationResult", "action": "decline"},
    ),
    (
        WorktreeCreateOutput(worktree_path="/w/.worktrees/x"),
        {"hookEventName": "WorktreeCreate", "worktreePath": "/w/.worktrees/x"},
    ),
    (
        CwdChangedOutput(watch_paths=["/w/src/.env"]),
        {"hookEventName": "CwdChanged", "watchPaths": ["/w/src/.env"]},
    ),
    (
        FileChangedOutput(watch_paths=[]),
        {"hookEventName": "FileChanged", "watchPaths": []},
    ),
    (
        MessageDisplayOutput(display_content="Hello"),
        {"hookEventName": "MessageDisplay", "displayContent": "Hello"},
    ),
    (
        PreSkillShellCommandOutput(
            permission_decision="deny",
            permission_decision_reason="no shell in skills",
            updated_input={"command": "ls"},
        ),
        {
            "hookEventName": "PreSkillShellCommand",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no shell in skills",
            "updatedInput": {"command": "ls"},
        },
    ),
    # -- can_use_tool answers ------------------------------------------------------------
    (
        PermissionAllow(updated_input={"command": "touch marker.txt"}),
        {"behavior": "allow", "updatedInput": {"command": "touch marker.txt"}},
    ),
    (
        PermissionAllow(
            updated_input={},
            updated_permissions=[SetModeUpdate(mode="acceptEdits", destination="session")],
            tool_use_id="toolu_1",
            decision_classification="user_permanent",
        ),
        {
            "behavior": "allow",
            "updatedInput": {},
            "updatedPermissions": [
                {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
            ],
            "toolUseID": "toolu_1",
            "decisionClassification": "user_permanent",
        },
    ),
    (PermissionAllow(), {"behavior": "allow"}),
    (
        PermissionDeny(message="no", interrupt=True),
        {"behavior": "deny", "message": "no", "interrupt": True},
    ),
    (
        PermissionDeny(message="why", tool_use_id="toolu_1", decision_classification="user_reject"),
        {
            "behavior": "deny",
            "message": "why",
            "toolUseID": "toolu_1",
            "decisionClassification": "user_reject",
        },
    ),
    (PermissionDeny(), {"behavior": "deny", "message": ""}),
    # -- permission updates --------------------------------------------------------------
    (PermissionRuleValue(tool_name="mcp__calc__add"), {"toolName": "mcp__calc__add"}),
    (RULE, RULE_WIRE),
    (
        AddRulesUpdate(rules=[RULE], behavior="allow", destination="localSettings"),
        {
            "type": "addRules",
            "rules": [RULE_WIRE],
            "behavior": "allow",
            "destination": "localSettings",
        },
    ),
    (
        ReplaceRulesUpdate(rules=[PermissionRuleValue(tool_name="Read")], behavior="deny"),
        {
            "type": "replaceRules",
            "rules": [{"toolName": "Read"}],
            "behavior": "deny",
            "destination": "session",
        },
    ),
    (
        RemoveRulesUpdate(rules=[RULE], behavior="ask", destination="userSettings"),
        {
            "type": "removeRules",
            "rules": [RULE_WIRE],
            "behavior": "ask",
            "destination": "userSettings",
        },
    ),
    (
        SetModeUpdate(mode="plan", destination="cliArg"),
        {"type": "setMode", "mode": "plan", "destination": "cliArg"},
    ),
    (
        AddDirectoriesUpdate(directories=["/w"]),
        {"type": "addDirectories", "directories": ["/w"], "destination": "session"},
    ),
    (
        RemoveDirectoriesUpdate(directories=["/a", "/b"], destination="projectSettings"),
        {
            "type": "removeDirectories",
            "directories": ["/a", "/b"],
            "destination": "projectSettings",
        },
    ),
]


def _decode_type(obj: Any) -> Any:
    """The type to decode ``obj``'s wire form with (its union where it belongs to one)."""
    if isinstance(obj, hooks.BaseHookSpecificOutput):
        return hooks.HookSpecificOutput
    if isinstance(obj, (PermissionAllow, PermissionDeny)):
        return PermissionResult
    if type(obj) in (
        AddRulesUpdate,
        ReplaceRulesUpdate,
        RemoveRulesUpdate,
        SetModeUpdate,
        AddDirectoriesUpdate,
        RemoveDirectoriesUpdate,
    ):
        return PermissionUpdate
    return type(obj)


@pytest.mark.parametrize(("obj", "wire"), ENCODINGS, ids=lambda v: type(v).__name__)
def test_output_encoding(obj: Any, wire: JSON) -> None:
    assert codec.unstructure(obj) == wire
    assert json.loads(codec.encode(obj)) == wire
    back = codec.structure(wire, _decode_type(obj))
    assert type(back) is type(obj)
    assert back == obj
    assert codec.drift(back) == []


def test_every_output_class_is_encoded() -> None:
    encoded = {type(obj) for obj, _ in ENCODINGS}
    assert set(hooks.HOOK_SPECIFIC_OUTPUTS.values()) <= encoded
    classes = {
        getattr(permissions, name)
        for name in permissions.__all__
        if isinstance(getattr(permissions, name), type)
        and attrs.has(getattr(permissions, name))
        and issubclass(getattr(permissions, name), WireModel)
        and not name.startswith("Unknown")
    }
    assert classes <= encoded


def test_every_specific_output_in_a_hook_output() -> None:
    for obj, wire in ENCODINGS:
        if isinstance(obj, hooks.BaseHookSpecificOutput):
            out = HookOutput(continue_=True, specific=cast("hooks.HookSpecificOutput", obj))
            expected = {"continue": True, "hookSpecificOutput": wire}
            assert codec.unstructure(out) == expected
            assert codec.structure(expected, HookOutput) == out


def test_unknown_specific_output_is_sent_verbatim() -> None:
    raw = {"hookEventName": "FutureEvent", "someField": 1}
    out = HookOutput(specific=UnknownHookSpecificOutput(raw=raw))
    assert codec.unstructure(out) == {"hookSpecificOutput": raw}
    back = codec.structure({"hookSpecificOutput": raw}, HookOutput)
    assert isinstance(back.specific, UnknownHookSpecificOutput)
    assert back.specific.hook_event_name == "FutureEvent"
    assert back.specific.raw == raw


def test_unknown_permission_update_is_kept() -> None:
    raw = {"type": "setSandbox", "enabled": True, "destination": "session"}
    obj = codec.structure(raw, PermissionUpdate)
    assert isinstance(obj, UnknownPermissionUpdate)
    assert obj.type == "setSandbox"
    assert codec.unstructure(obj) == raw


def test_rule_content_null_round_trips() -> None:
    wire = {"toolName": "Bash", "ruleContent": None}
    obj = codec.structure(wire, PermissionRuleValue)
    assert obj == PermissionRuleValue(tool_name="Bash")
    assert codec.unstructure(obj) == wire  # as received
    assert codec.unstructure(PermissionRuleValue(tool_name="Bash")) == {"toolName": "Bash"}


# ======================================================================================
# (c) recorded transcripts

TRANSCRIPTS_DIRS = [
    Path(__file__).resolve().parents[1] / "data" / "transcripts",
    Path("/work/shared/reference/transcripts"),
]
_MORE = re.compile(r"^\.\.\.\[\d+ more of \d+\]$")


def _transcripts_dir() -> Path:
    for path in TRANSCRIPTS_DIRS:
        if path.is_dir():
            return path
    pytest.skip("recorded transcripts not found")


def _unshorten(value: Any) -> Any:
    """Drop the ``...[K more of N]`` list items the recordings were shortened with."""
    if isinstance(value, list):
        return [_unshorten(v) for v in value if not (isinstance(v, str) and _MORE.match(v))]
    if isinstance(value, dict):
        return {k: _unshorten(v) for k, v in value.items()}
    return value


def _messages() -> Iterator[tuple[str, int, str, JSON]]:
    """(file name, line number, direction, message) of every recorded protocol line."""
    for path in sorted(_transcripts_dir().glob("*.jsonl")):
        if path.name.endswith(".api.jsonl"):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            entry = json.loads(line)
            if "msg" in entry:
                yield path.name, n, entry["dir"], _unshorten(entry["msg"])


def test_recorded_requests_decode_without_drift() -> None:
    seen = {"hook_callback": 0, "can_use_tool": 0}
    events: set[str] = set()
    for name, n, _, msg in _messages():
        if msg.get("type") != "control_request":
            continue
        req = msg["request"]
        if req.get("subtype") not in seen:
            continue
        seen[req["subtype"]] += 1
        obj = codec.structure(req, control.ControlRequestPayload)
        where = f"{name}:{n}"
        assert codec.drift(obj) == [], where
        assert codec.unstructure(obj) == req, where
        if isinstance(obj, control.HookCallbackRequest):
            assert not isinstance(obj.input, UnknownHookInput), where
            events.add(obj.input.hook_event_name)
        else:
            assert isinstance(obj, control.CanUseToolRequest), where
    assert seen["hook_callback"] > 0
    assert seen["can_use_tool"] > 0
    assert {"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"} <= events


def test_recorded_answers_decode_without_drift() -> None:
    """The host's recorded answers are exactly what the output classes encode."""
    subtypes: dict[str, str] = {}
    answered = {"hook_callback": 0, "can_use_tool": 0}
    for name, n, direction, msg in _messages():
        if msg.get("type") == "control_request" and direction == "cli>sdk":
            subtypes[msg["request_id"]] = msg["request"].get("subtype")
            continue
        if msg.get("type") != "control_response" or direction != "sdk>cli":
            continue
        response = msg["response"]
        subtype = subtypes.get(response.get("request_id"))
        if response.get("subtype") != "success" or subtype not in answered:
            continue
        answered[subtype] += 1
        body = response.get("response", {})
        tp: Any = HookOutput if subtype == "hook_callback" else PermissionResult
        obj = codec.structure(body, tp)
        where = f"{name}:{n}"
        assert codec.drift(obj) == [], where
        assert codec.unstructure(obj) == body, where
    assert answered["hook_callback"] > 0
    assert answered["can_use_tool"] > 0
