"""Typed tool inputs (``claude_sdk.tool_inputs``): every built-in tool's input decodes to its
class with nothing unknown and encodes back to the same dict; anything else is None.

* a realistic input per tool (``SAMPLES``, every class covered): no drift, an exact round
  trip, unknown keys kept in ``extra``, each required key missing or mistyped gives None;
* unknown tools, odd values and arbitrary JSON never raise;
* every tool input recorded from the real CLI (tests/data: transcripts, their API logs and
  the e2e recordings) whose tool is known decodes with no drift.
"""

from __future__ import annotations

import json
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk  # noqa: F401  (the package registers the rest of the wire model)
from claude_sdk import tool_inputs as ti
from claude_sdk._protocol.codec import default_codec
from claude_sdk.tool_inputs import (
    TOOL_INPUTS,
    AgentInput,
    BashInput,
    EditOperation,
    GrepInput,
    MultiEditInput,
    TaskStopInput,
    TodoItem,
    TodoWriteInput,
    typed_input,
)

from . import strategies
from .support.deep import deep
from .transcripts import DATA, clean

codec = default_codec()

ti.register()  # the lead wires this into schema.register_all(); calling it again is a no-op

JSON = dict[str, Any]

#: A realistic input of each tool, with every field the class knows.
SAMPLES: dict[str, JSON] = {
    "Read": {
        "file_path": "/repo/README.md",
        "offset": 10,
        "limit": 50,
        "pages": "1-3",
        "allow_large": False,
    },
    "Write": {"file_path": "/repo/notes.txt", "content": "hello\n"},
    "Edit": {
        "file_path": "/repo/app.py",
        "old_string": "x = 1",
        "new_string": "x = 2",
        "replace_all": False,
    },
    "MultiEdit": {
        "file_path": "/repo/app.py",
        "edits": [
            {"old_string": "a", "new_string": "b"},
            {"old_string": "c", "new_string": "d", "replace_all": True},
        ],
    },
    "NotebookEdit": {
        "notebook_path": "/repo/analysis.ipynb",
        "new_source": "print(1)",
        "cell_id": "cell-3",
        "cell_type": "code",
        "edit_mode": "insert",
    },
    "Glob": {"pattern": "src/**/*.py", "path": "/repo"},
    "Grep": {
        "pattern": "def \\w+",
        "path": "src",
        "glob": "*.py",
        "output_mode": "content",
        "-B": 1,
        "-A": 2,
        "-C": 3,
        "context": 3,
        "-n": True,
        "-i": False,
        "-o": False,
        "type": "py",
        "head_limit": 20,
        "offset": 5,
        "multiline": False,
    },
    "Bash": {
        "command": "pytest -q",
        "timeout": 120000,
        "description": "Run the tests",
        "run_in_background": False,
        "dangerouslyDisableSandbox": False,
    },
    "BashOutput": {"bash_id": "bash_1", "filter": "ERROR"},
    "TaskOutput": {"task_id": "b1x2", "block": True, "timeout": 30000},
    "TaskStop": {"task_id": "b1x2", "shell_id": "b1x2"},
    "Monitor": {
        "description": "tail the server log",
        "timeout_ms": 300000,
        "persistent": False,
        "command": "tail -f server.log",
        "ws": {"url": "ws://127.0.0.1:9000/events", "protocols": ["v1"]},
    },
    "WebFetch": {
        "url": "https://example.com/docs",
        "prompt": "Summarise the install steps",
        "offset": 12000,
    },
    "WebSearch": {
        "query": "anyio structured concurrency",
        "allowed_domains": ["anyio.readthedocs.io"],
        "blocked_domains": ["example.org"],
    },
    "Agent": {
        "description": "Find TODOs",
        "prompt": "List every TODO comment under src/",
        "subagent_type": "Explore",
        "model": "haiku",
        "effort": "high",
        "run_in_background": True,
        "name": "todo-finder",
        "team_name": "default",
        "mode": "plan",
        "isolation": "worktree",
    },
    "TodoWrite": {
        "todos": [
            {
                "content": "Run the tests",
                "status": "in_progress",
                "activeForm": "Running the tests",
            },
            {"content": "Fix the bug", "status": "pending", "activeForm": "Fixing the bug"},
        ]
    },
    "TaskCreate": {
        "subject": "Write docs",
        "description": "Document the tool inputs",
        "activeForm": "Writing docs",
        "metadata": {"priority": 1},
    },
    "TaskGet": {"taskId": "3"},
    "TaskUpdate": {
        "taskId": "3",
        "subject": "Write the docs",
        "description": "Document every class",
        "activeForm": "Writing the docs",
        "status": "completed",
        "addBlocks": ["4"],
        "addBlockedBy": ["1", "2"],
        "owner": "me",
        "metadata": {"priority": None},
    },
    "TaskList": {},
    "AskUserQuestion": {
        "questions": [
            {
                "question": "Which test runner should we use?",
                "header": "Runner",
                "options": [
                    {"label": "pytest", "description": "The usual one"},
                    {"label": "unittest", "description": "Standard library", "preview": "..."},
                    {"label": "nose"},
                ],
                "multiSelect": False,
            },
            {
                "question": "How many workers?",
                "header": "Workers",
                "kind": "number",
                "description": "pytest-xdist workers",
                "options": [],
                "multiSelect": False,
                "min": 1,
                "max": 16,
                "step": 1,
                "defaultValue": 4,
                "unit": "workers",
            },
            {
                "question": "Anything else?",
                "header": "Notes",
                "kind": "text",
                "options": [],
                "multiSelect": False,
                "placeholder": "free text",
            },
        ],
        "answers": {
            "Which test runner should we use?": "pytest",
            "Anything else?": ["no", "thanks"],
        },
        "annotations": {"Which test runner should we use?": {"notes": "fine"}},
        "metadata": {"source": "remember"},
        "title": "Test setup",
    },
    "ExitPlanMode": {
        "plan": "# Plan\n1. Write the tests\n2. Make them pass",
        "allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}],
    },
    "EnterPlanMode": {},
    "EnterWorktree": {"name": "feature-x", "path": "/repo/.worktrees/feature-x"},
    "ExitWorktree": {"action": "remove", "discard_changes": True},
    "CronCreate": {
        "cron": "*/5 * * * *",
        "prompt": "check the build",
        "recurring": True,
        "durable": False,
    },
    "CronDelete": {"id": "job-1"},
    "CronList": {},
    "ScheduleWakeup": {
        "delaySeconds": 300,
        "reason": "the build takes five minutes",
        "prompt": "/loop check the build",
        "stop": False,
        "noop": True,
    },
    "Skill": {"skill": "release-notes", "args": "v1.2"},
    "ListAgents": {"cursor": "page-2", "channel": "ops", "q": "review"},
    "SendMessage": {
        "to": "reviewer",
        "message": "The patch is ready.\nDetails below.",
        "summary": "patch ready",
        "notify_when_idle": True,
    },
    "ListMcpResourcesTool": {"server": "docs"},
    "ReadMcpResourceTool": {"server": "docs", "uri": "docs://index"},
    # The newer tools (sdk-tools.d.ts of @anthropic-ai/claude-agent-sdk 0.3.332)
    "ReadMcpResourceDirTool": {"server": "docs", "uri": "docs://guides/"},
    "RefreshMcpTools": {"server": "docs"},
    "ReportFindings": {
        "level": "high",
        "findings": [
            {
                "file": "src/app.py",
                "line": 42,
                "summary": "The retry loop never ends when the server returns 503",
                "short_summary": "Unbounded retry on 503",
                "failure_scenario": "a server that always answers 503 -> the client spins",
                "category": "correctness",
                "severity": "important",
                "verdict": "CONFIRMED",
                "outcome": "fixed",
            },
            {"file": "README.md", "summary": "typo", "failure_scenario": "none"},
        ],
    },
    "SendFeedback": {
        "type": "bug",
        "title": "Edit fails on CRLF files",
        "details": "**What happened:** the edit did not apply",
        "area": "file editing",
        "failure_mode": "other",
        "task_category": "code_edit",
    },
    "SetGoal": {"condition": "all tests in tests/ pass (pytest exits 0)", "ask_user": False},
    "propose_skills": {
        "proposals": [
            {
                "name": "release-notes",
                "kind": "new",
                "description": "Use when writing release notes.",
                "evidence": ["memory/2026-11-20.md"],
                "skillMd": "---\nname: release-notes\n---\nWrite them.",
            },
            {
                "name": "release-notes",
                "kind": "improvement",
                "target": "release-notes",
                "description": "Use when writing release notes.",
                "edits": [{"old_string": "Write them.", "new_string": "Write them well."}],
            },
        ]
    },
    "PushNotification": {"message": "The build is green", "status": "proactive"},
    "ReadNotifications": {},
    "ShowOnboardingRolePicker": {},
    "OfferChromeSetup": {"reason": "to check the dashboard you are logged in to"},
    "Workflow": {
        "script": "export const meta = {name: 'x', description: 'y', phases: []}",
        "name": "research",
        "description": "ignored",
        "title": "ignored",
        "args": ["a", "b"],
        "scriptPath": "/home/u/.claude/workflows/run-1.js",
        "resumeFromRunId": "run-1",
    },
    "RemoteTrigger": {
        "action": "list_runs",
        "trigger_id": "trg_1",
        "session_id": "session_1",
        "cursor": "c2",
        "body": {"name": "nightly"},
    },
    "ClaudeDesign": {"operation": "list", "arguments": {}},
    "Projects": {
        "method": "project_write",
        "path": "notes.md",
        "content": "# Notes",
        "local_path": "docs/notes.md",
        "present_to_user": True,
        "query": "release",
        "n": 5,
    },
    "Artifact": {
        "action": "publish",
        "file_path": "/repo/report.html",
        "favicon": "chart",
        "icon": "chart",
        "limit": 25,
        "page_token": "p2",
        "scope": "mine",
        "title": "Build report",
        "description": "The nightly build's results.",
        "label": "Draft",
        "url": "https://claude.ai/artifact/abc",
        "prompt": "the totals",
        "force": False,
        "pin": True,
        "out_dir": "/tmp/assets",
        "file_paths": ["/repo/a.png", "/repo/b.png"],
        "asset_id": "0123456789abcdef0123456789abcdef",
        "after": "n1",
        "capabilities": {"storage": {}},
        "contract": "latest",
    },
}

#: Other names of the same tools.
ALIASES = {
    "Task": "Agent",
    "KillShell": "TaskStop",
    "KillBash": "TaskStop",
    "ListMcpResources": "ListMcpResourcesTool",
    "ReadMcpResource": "ReadMcpResourceTool",
    "ReadMcpResourceDir": "ReadMcpResourceDirTool",
    "ProposeGoal": "SetGoal",
}

#: The 44 input types of sdk-tools.d.ts (@anthropic-ai/claude-agent-sdk 0.3.332), by the
#: tool name that gives each (the .d.ts names some types differently from the tools).
SDK_TOOLS_INPUTS = {
    "AgentInput": "Agent",
    "BashInput": "Bash",
    "ExitPlanModeInput": "ExitPlanMode",
    "FileEditInput": "Edit",
    "FileReadInput": "Read",
    "FileWriteInput": "Write",
    "GlobInput": "Glob",
    "GrepInput": "Grep",
    "TaskStopInput": "TaskStop",
    "ListMcpResourcesInput": "ListMcpResourcesTool",
    "RefreshMcpToolsInput": "RefreshMcpTools",
    "McpInput": "mcp__server__tool",
    "NotebookEditInput": "NotebookEdit",
    "ReadMcpResourceDirInput": "ReadMcpResourceDirTool",
    "ReadMcpResourceInput": "ReadMcpResourceTool",
    "ReportFindingsInput": "ReportFindings",
    "TodoWriteInput": "TodoWrite",
    "WebFetchInput": "WebFetch",
    "WebSearchInput": "WebSearch",
    "AskUserQuestionInput": "AskUserQuestion",
    "SendFeedbackInput": "SendFeedback",
    "ClaudeDesignInput": "ClaudeDesign",
    "ProjectsInput": "Projects",
    "EnterPlanModeInput": "EnterPlanMode",
    "TaskCreateInput": "TaskCreate",
    "TaskGetInput": "TaskGet",
    "TaskUpdateInput": "TaskUpdate",
    "TaskListInput": "TaskList",
    "WorkflowInput": "Workflow",
    "CronCreateInput": "CronCreate",
    "CronDeleteInput": "CronDelete",
    "CronListInput": "CronList",
    "ScheduleWakeupInput": "ScheduleWakeup",
    "RemoteTriggerInput": "RemoteTrigger",
    "ShowOnboardingRolePickerInput": "ShowOnboardingRolePicker",
    "OfferChromeSetupInput": "OfferChromeSetup",
    "ReadNotificationsInput": "ReadNotifications",
    "MonitorInput": "Monitor",
    "ProposeSkillsInput": "propose_skills",
    "ProposeGoalInput": "SetGoal",
    "ArtifactInput": "Artifact",
    "PushNotificationInput": "PushNotification",
    "EnterWorktreeInput": "EnterWorktree",
    "ExitWorktreeInput": "ExitWorktree",
}


def _required_keys(cls: type) -> list[str]:
    """The wire keys of the required fields of ``cls``."""
    spec = codec.generator.spec(cls)
    return [
        spec.wire_name(a.name)
        for a in attrs.fields(cls)
        if a.name != "extra" and a.default is attrs.NOTHING
    ]


def _sample_cases() -> list[tuple[str, JSON]]:
    return [(name, SAMPLES[ALIASES.get(name, name)]) for name in TOOL_INPUTS]


# --------------------------------------------------------------------------------------
# The table


def test_every_sdk_tools_input_type_has_a_class() -> None:
    assert len(SDK_TOOLS_INPUTS) == 44
    for ts_name, tool in SDK_TOOLS_INPUTS.items():
        cls = TOOL_INPUTS.get(tool, ti.McpInput if tool.startswith("mcp__") else None)
        assert cls is not None, ts_name
        # The class is named as in the .d.ts, without its "File" prefix.
        assert cls.__name__ == ts_name.removeprefix("File"), ts_name


def test_every_tool_has_a_sample() -> None:
    assert set(SAMPLES) | set(ALIASES) == set(TOOL_INPUTS)
    assert set(ALIASES.values()) <= set(SAMPLES)
    assert TOOL_INPUTS["Agent"] is TOOL_INPUTS["Task"] is AgentInput
    assert TOOL_INPUTS["KillShell"] is TOOL_INPUTS["TaskStop"] is TaskStopInput


def test_the_table_is_read_only() -> None:
    assert isinstance(TOOL_INPUTS, types.MappingProxyType)
    with pytest.raises(TypeError):
        TOOL_INPUTS["Bash"] = AgentInput  # type: ignore[index]


def test_every_class_is_public_and_documented() -> None:
    classes = {
        value
        for value in vars(ti).values()
        if isinstance(value, type)
        and value.__module__ in (ti.__name__, "claude_sdk._tool_inputs")  # generated there
        and attrs.has(value)
    }
    assert {cls.__name__ for cls in classes} <= set(ti.__all__)
    assert set(TOOL_INPUTS.values()) <= classes
    for cls in classes:
        assert cls.__doc__, cls.__name__
    for name, cls in TOOL_INPUTS.items():
        assert f"``{name}``" in (cls.__doc__ or ""), f"{cls.__name__} does not name {name}"


def test_register_is_idempotent() -> None:
    ti.register()
    ti.register()


@pytest.mark.parametrize(("name", "data"), _sample_cases(), ids=[n for n, _ in _sample_cases()])
def test_sample_decodes_exactly(name: str, data: JSON) -> None:
    obj = typed_input(name, data)
    assert isinstance(obj, TOOL_INPUTS[name])
    assert codec.drift(obj) == []
    assert obj.extra == {}
    assert codec.unstructure(obj) == data
    # Every field the class knows is in the sample, so none reads as its default.
    for a in attrs.fields(type(obj)):
        if a.name != "extra":
            assert a.name in obj.__dict__, f"{a.name} missing from the sample"


@pytest.mark.parametrize(("name", "data"), _sample_cases(), ids=[n for n, _ in _sample_cases()])
def test_required_keys_only(name: str, data: JSON) -> None:
    cls = TOOL_INPUTS[name]
    minimal = {k: data[k] for k in _required_keys(cls)}
    obj = typed_input(name, minimal)
    assert isinstance(obj, cls)
    assert codec.drift(obj) == []
    assert codec.unstructure(obj) == minimal


@pytest.mark.parametrize(("name", "data"), _sample_cases(), ids=[n for n, _ in _sample_cases()])
def test_unknown_keys_are_kept_in_extra(name: str, data: JSON) -> None:
    more = {**data, "zz_new": [1, {"a": None}], "extra": "x"}
    obj = typed_input(name, more)
    assert isinstance(obj, TOOL_INPUTS[name])
    assert obj.extra == {"zz_new": [1, {"a": None}], "extra": "x"}
    assert codec.unstructure(obj) == more
    assert sorted(codec.drift(obj)) == [
        "$.extra: unknown field (str)",
        "$.zz_new: unknown field (list)",
    ]
    # ``extra`` is not part of equality.
    assert obj == typed_input(name, data)


@pytest.mark.parametrize(
    ("name", "key"),
    [(name, key) for name, cls in TOOL_INPUTS.items() for key in _required_keys(cls)],
)
def test_a_missing_required_key_gives_none(name: str, key: str) -> None:
    data = dict(SAMPLES[ALIASES.get(name, name)])
    del data[key]
    assert typed_input(name, data) is None


@pytest.mark.parametrize(
    ("name", "key"),
    [(name, key) for name, cls in TOOL_INPUTS.items() for key in _required_keys(cls)],
)
def test_a_null_required_key_gives_none(name: str, key: str) -> None:
    data = {**SAMPLES[ALIASES.get(name, name)], key: None}
    assert typed_input(name, data) is None


def test_explicit_nulls_of_optional_keys_fit_and_round_trip() -> None:
    data = {"command": "ls", "timeout": None, "description": None}
    obj = typed_input("Bash", data)
    assert obj == BashInput(command="ls")
    assert codec.drift(obj) == []
    assert codec.unstructure(obj) == data


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("Bash", {"command": 5}),
        ("Bash", {"command": "ls", "timeout": "soon"}),
        ("Bash", {"command": "ls", "timeout": True}),
        ("Bash", {"command": "ls", "run_in_background": 1}),
        ("Read", {"file_path": "/x", "offset": 1.5}),
        ("Grep", {"pattern": "x", "-A": "2"}),
        ("Grep", {"pattern": "x", "-n": "yes"}),
        ("WebSearch", {"query": "q", "allowed_domains": "example.com"}),
        ("WebSearch", {"query": "q", "allowed_domains": [1]}),
        ("MultiEdit", {"file_path": "/x", "edits": "a -> b"}),
        ("MultiEdit", {"file_path": "/x", "edits": ["a"]}),
        ("MultiEdit", {"file_path": "/x", "edits": [{"old_string": "a"}]}),
        ("MultiEdit", {"file_path": "/x", "edits": None}),
        ("TodoWrite", {"todos": [{"content": "a", "status": 1, "activeForm": "A"}]}),
        ("TodoWrite", {"todos": {"content": "a"}}),
        ("AskUserQuestion", {"questions": [{"question": "q", "header": "h", "options": [1]}]}),
        ("AskUserQuestion", {"questions": [], "answers": {"q": 1}}),
        ("TaskCreate", {"subject": "s", "description": "d", "metadata": []}),
        ("AskUserQuestion", {"questions": [], "answers": {"q": [1]}}),
        ("ReportFindings", {"findings": [{"file": "a", "summary": "s"}]}),
        ("ReportFindings", {"findings": [{"file": "a", "summary": "s", "failure_scenario": 1}]}),
        ("propose_skills", {"proposals": [{"name": "n", "kind": "new"}]}),
        (
            "propose_skills",
            {
                "proposals": [
                    {"name": "n", "kind": "new", "description": "d", "edits": [{"old_string": "a"}]}
                ]
            },
        ),
        ("Projects", {"method": "project_search", "n": "5"}),
        ("Artifact", {"file_paths": "a.png"}),
        ("RemoteTrigger", {"action": "run", "body": "{}"}),
        ("ClaudeDesign", {"operation": "list"}),
        ("SendFeedback", {"type": "bug", "title": "t"}),
        ("SetGoal", {"condition": "c", "ask_user": "no"}),
        ("Workflow", {"scriptPath": 5}),
    ],
)
def test_a_value_of_the_wrong_type_gives_none(name: str, data: JSON) -> None:
    assert typed_input(name, data) is None


def test_a_literal_value_from_a_newer_cli_still_fits() -> None:
    data = {"todos": [{"content": "a", "status": "cancelled", "activeForm": "A"}]}
    obj = typed_input("TodoWrite", data)
    assert isinstance(obj, TodoWriteInput)
    status: str = obj.todos[0].status
    assert status == "cancelled"
    assert codec.unstructure(obj) == data


@pytest.mark.parametrize("name", ["StructuredOutput", "NoSuchTool", "bash", "", "Warp", "mcp_x"])
def test_an_unknown_tool_gives_none(name: str) -> None:
    assert name not in TOOL_INPUTS
    assert typed_input(name, {"command": "ls"}) is None


@pytest.mark.parametrize("name", [None, 5, ["Bash"], {"Bash": 1}, b"Bash"])
def test_a_name_that_is_not_a_string_gives_none(name: Any) -> None:
    assert typed_input(name, {"command": "ls"}) is None


def test_an_mcp_tool_gives_its_arguments() -> None:
    data = {"a": 2, "b": 3, "options": {"round": True}}
    obj = typed_input("mcp__calc__add", data)
    assert isinstance(obj, ti.McpInput)
    assert obj.arguments == data
    assert obj.arguments is not obj.extra
    assert codec.unstructure(obj) == data
    # No model knows an MCP tool's arguments: drift names each one.
    assert sorted(codec.drift(obj)) == [
        "$.a: unknown field (int)",
        "$.b: unknown field (int)",
        "$.options: unknown field (dict)",
    ]
    empty = typed_input("mcp__calc__now", {})
    assert isinstance(empty, ti.McpInput)
    assert empty.arguments == {}
    assert typed_input("mcp__calc__add", ["a"]) is None  # type: ignore[arg-type]


def test_question_kinds_and_optional_option_descriptions() -> None:
    obj = typed_input("AskUserQuestion", SAMPLES["AskUserQuestion"])
    assert isinstance(obj, ti.AskUserQuestionInput)
    choice, number, text = obj.questions
    assert choice.kind is None
    assert choice.options[2] == ti.QuestionOption(label="nose")
    assert choice.options[2].description is None
    assert number.kind == "number"
    assert (number.min, number.max, number.step, number.default_value) == (1, 16, 1, 4)
    assert number.unit == "workers"
    assert number.options == []
    assert text.kind == "text"
    assert text.placeholder == "free text"
    assert obj.answers == {
        "Which test runner should we use?": "pytest",
        "Anything else?": ["no", "thanks"],
    }
    assert obj.title == "Test setup"


@pytest.mark.parametrize("value", [None, "ls", ["command"], 5, b"{}"])
def test_an_input_that_is_not_an_object_gives_none(value: Any) -> None:
    assert typed_input("Bash", value) is None


def test_any_mapping_is_accepted() -> None:
    data = {"command": "ls", "zz": 1}
    obj = typed_input("Bash", types.MappingProxyType(data))
    assert obj == BashInput(command="ls")
    assert obj is not None
    assert obj.extra == {"zz": 1}
    assert codec.unstructure(obj) == data


def test_the_input_dict_is_not_changed() -> None:
    data = {"pattern": "x", "-A": 2, "lines_after": 9}
    before = json.loads(json.dumps(data))
    obj = typed_input("Grep", data)
    assert isinstance(obj, GrepInput)
    assert obj.lines_after == 2
    assert obj.extra == {"lines_after": 9}  # a key spelt like a field name is still unknown
    assert data == before


def test_nested_unknown_keys_are_kept() -> None:
    data = {"file_path": "/x", "edits": [{"old_string": "a", "new_string": "b", "zz": True}]}
    obj = typed_input("MultiEdit", data)
    assert isinstance(obj, MultiEditInput)
    assert obj.edits[0].extra == {"zz": True}
    assert codec.drift(obj) == ["$.edits[0].zz: unknown field (bool)"]
    assert codec.unstructure(obj) == data


# --------------------------------------------------------------------------------------
# Built in Python


def test_python_built_values_encode_to_the_wire_keys() -> None:
    assert codec.unstructure(BashInput(command="ls")) == {"command": "ls"}
    assert codec.unstructure(
        BashInput(command="ls", dangerously_disable_sandbox=True, timeout=None)
    ) == {"command": "ls", "dangerouslyDisableSandbox": True}
    assert codec.unstructure(
        GrepInput(pattern="x", lines_after=2, line_numbers=True, case_insensitive=True)
    ) == {"pattern": "x", "-A": 2, "-n": True, "-i": True}
    todo = TodoWriteInput(todos=[TodoItem(content="a", status="pending", active_form="A")])
    assert codec.unstructure(todo) == {
        "todos": [{"content": "a", "status": "pending", "activeForm": "A"}]
    }
    edits = MultiEditInput(file_path="/x", edits=[EditOperation(old_string="a", new_string="b")])
    assert codec.unstructure(edits) == {
        "file_path": "/x",
        "edits": [{"old_string": "a", "new_string": "b"}],
    }
    assert codec.unstructure(ti.TaskGetInput(task_id="1")) == {"taskId": "1"}
    assert codec.unstructure(ti.ScheduleWakeupInput(delay_seconds=60)) == {"delaySeconds": 60}


def _first_name(cls: type) -> str:
    return next(name for name, klass in TOOL_INPUTS.items() if klass is cls)


@settings(max_examples=deep(25), deadline=None)
@given(st.sampled_from(sorted(set(TOOL_INPUTS.values()), key=lambda c: c.__name__)), st.data())
def test_python_built_values_round_trip(cls: type[Any], data: st.DataObject) -> None:
    obj = data.draw(strategies.instances(cls))
    wire = codec.unstructure(obj)
    back = typed_input(_first_name(cls), json.loads(json.dumps(wire)))
    assert back == obj
    assert codec.drift(back) == []
    assert codec.unstructure(back) == wire


@settings(max_examples=deep(100), deadline=None)
@given(
    st.sampled_from(sorted(TOOL_INPUTS)),
    st.dictionaries(
        st.sampled_from(["command", "file_path", "todos", "edits", "questions", "pattern", "-A"])
        | strategies.texts,
        strategies.json_values,
        max_size=4,
    ),
)
def test_arbitrary_json_never_raises(name: str, data: JSON) -> None:
    obj = typed_input(name, data)
    if obj is not None:
        assert codec.unstructure(obj) == data


@settings(max_examples=deep(100), deadline=None)
@given(
    st.sampled_from([*sorted(TOOL_INPUTS), "mcp__calc__add", "Nope"]),
    strategies.json_values,
)
def test_any_json_value_never_raises(name: str, data: Any) -> None:
    obj = typed_input(name, data)
    if obj is not None:
        assert codec.unstructure(obj) == data


# --------------------------------------------------------------------------------------
# Recorded inputs


def _tool_inputs(value: Any) -> Iterator[tuple[str, Any]]:
    """(tool name, input) of the tool calls in one decoded JSON value, recursively.

    Tool uses in ``stream_event`` frames are skipped: ``content_block_start`` carries an
    empty placeholder input that the deltas then fill in.
    """
    if isinstance(value, list):
        for item in value:
            yield from _tool_inputs(item)
        return
    if not isinstance(value, dict) or value.get("type") == "stream_event":
        return
    if value.get("type") == "tool_use" and "name" in value and "input" in value:
        yield value["name"], value["input"]
    if value.get("subtype") == "can_use_tool":
        yield value["tool_name"], value["input"]
    if "tool_name" in value and "tool_input" in value:
        yield value["tool_name"], value["tool_input"]
    for item in value.values():
        yield from _tool_inputs(item)


def _recorded() -> list[tuple[str, str, Any]]:
    """(where, tool name, input) of every tool call recorded in tests/data."""
    found: list[tuple[str, str, Any]] = []
    paths = sorted((DATA / "transcripts").glob("*.jsonl")) + sorted((DATA / "e2e").rglob("*.jsonl"))
    for path in paths:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            entry = clean(json.loads(line))
            body = entry.get("msg", entry.get("body")) if isinstance(entry, dict) else None
            for name, data in _tool_inputs(body):
                found.append((f"{path.relative_to(DATA)}:{n}", name, data))
    return found


RECORDED = _recorded()
KNOWN = [(where, name, data) for where, name, data in RECORDED if name in TOOL_INPUTS]


MCP = [(where, name, data) for where, name, data in RECORDED if ti.is_mcp_tool(name)]


def test_recordings_hold_tool_inputs() -> None:
    assert len(KNOWN) >= 10
    assert {"Bash"} <= {name for _, name, _ in KNOWN}
    sources = {where.split("/")[0] for where, _, _ in KNOWN}
    assert sources == {"transcripts", "e2e"}
    # MCP tools and tools this module does not know (structured output) are recorded too.
    assert {name for _, name, _ in MCP} >= {"mcp__calc__add"}
    assert "StructuredOutput" in {name for _, name, _ in RECORDED}


@pytest.mark.parametrize(("where", "name", "data"), KNOWN, ids=[w for w, _, _ in KNOWN])
def test_recorded_input_decodes_with_no_drift(where: str, name: str, data: JSON) -> None:
    obj = typed_input(name, data)
    assert isinstance(obj, TOOL_INPUTS[name]), where
    assert codec.drift(obj) == [], where
    assert codec.unstructure(obj) == data, where


@pytest.mark.parametrize(("where", "name", "data"), MCP, ids=[w for w, _, _ in MCP])
def test_recorded_mcp_input_gives_its_arguments(where: str, name: str, data: JSON) -> None:
    obj = typed_input(name, data)
    assert isinstance(obj, ti.McpInput), where
    assert obj.arguments == data, where
    assert codec.unstructure(obj) == data, where


def test_recorded_unknown_tools_give_none() -> None:
    for where, name, data in RECORDED:
        if name not in TOOL_INPUTS and not ti.is_mcp_tool(name):
            assert typed_input(name, data) is None, where
