"""``Options -> (LaunchSpec, InitializeRequest)``: one table row per option.

Each row names the options it sets and what must reach the CLI: argv tokens (after the fixed
flags), environment entries, or ``initialize`` fields. `test_every_option_is_covered` keeps
the tables complete: a new ``Options`` field fails it until it has a row (or is listed as
SDK-side).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import attrs
import pytest

import claude_sdk as cs
from claude_sdk import wire
from claude_sdk._protocol.launch import (
    BASE_ARGS,
    DEFAULT_CLI,
    LaunchSpec,
    build_initialize,
    build_launch_spec,
    hook_support_warning,
    mcp_config,
)
from claude_sdk.options import (
    ClaudeSDKWarning,
    McpHttpServer,
    McpSSEServer,
    McpStdioServer,
    Options,
    SystemPromptCustom,
    SystemPromptFile,
    SystemPromptPreset,
    ThinkingConfig,
    ToolsPreset,
)
from claude_sdk.transports.subprocess import child_environment

JSON = dict[str, Any]
SESSION = "123e4567-e89b-12d3-a456-426614174000"
EMPTY_PROMPT = "--system-prompt="


async def allow(
    name: str, tool_input: JSON, context: cs.ToolPermissionContext
) -> cs.PermissionResult:
    return cs.PermissionAllow(updated_input=tool_input)


async def dialog(request: Any) -> JSON | None:
    return None


async def audit(hook_input: Any, context: cs.HookContext) -> cs.HookOutput:
    return cs.HookOutput()


class InProcessServer:
    """Stands in for an in-process MCP server: opaque to the launch layer."""


@attrs.frozen
class Verdict:
    """A structured answer."""

    ok: bool
    reasons: list[str] = attrs.Factory(list)


VERDICT_SCHEMA = {
    "type": "object",
    "description": "A structured answer.",
    "properties": {
        "ok": {"type": "boolean"},
        "reasons": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["ok"],
    "additionalProperties": False,
}


def tokens(options: Options) -> list[str]:
    """The argv after the program and the fixed flags."""
    argv = build_launch_spec(options).argv
    assert argv[1 : 1 + len(BASE_ARGS)] == BASE_ARGS
    return list(argv[1 + len(BASE_ARGS) :])


def flags(options: Options) -> list[str]:
    """`tokens` without the default empty system prompt."""
    return [t for t in tokens(options) if t != EMPTY_PROMPT]


def init_wire(options: Options) -> JSON:
    request, _ = build_initialize(options)
    out: JSON = json.loads(wire.encode(request))
    return out


def quiet(**kwargs: Any) -> Options:
    """Options built with ClaudeSDKWarning silenced (rows that trigger one on purpose)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClaudeSDKWarning)
        return Options(**kwargs)


# ======================================================================================
# argv: one row per option (tokens after the fixed flags and the empty system prompt)

ARGV_ROWS: list[tuple[str, JSON, list[str]]] = [
    # -- model and limits
    ("model", {"model": "opus"}, ["--model=opus"]),
    ("model", {"model": "-looks-like-a-flag"}, ["--model=-looks-like-a-flag"]),
    ("fallback_model", {"fallback_model": "haiku"}, ["--fallback-model=haiku"]),
    ("fallback_model", {"fallback_model": ["sonnet", "haiku"]}, ["--fallback-model=sonnet,haiku"]),
    ("thinking", {"thinking": ThinkingConfig.adaptive()}, ["--thinking=adaptive"]),
    (
        "thinking",
        {"thinking": ThinkingConfig.adaptive(display="summarized")},
        ["--thinking=adaptive", "--thinking-display=summarized"],
    ),
    ("thinking", {"thinking": ThinkingConfig.enabled(2048)}, ["--max-thinking-tokens=2048"]),
    ("thinking", {"thinking": ThinkingConfig(type="enabled")}, ["--thinking=adaptive"]),
    ("thinking", {"thinking": ThinkingConfig.disabled()}, ["--thinking=disabled"]),
    (
        "thinking",
        {"thinking": {"type": "enabled", "budget_tokens": 1000, "display": "omitted"}},
        ["--max-thinking-tokens=1000", "--thinking-display=omitted"],
    ),
    ("max_thinking_tokens", {"max_thinking_tokens": 5000}, ["--max-thinking-tokens=5000"]),
    ("max_thinking_tokens", {"max_thinking_tokens": 0}, ["--thinking=disabled"]),
    ("effort", {"effort": "xhigh"}, ["--effort=xhigh"]),
    ("max_turns", {"max_turns": 0}, ["--max-turns=0"]),
    ("max_turns", {"max_turns": 7}, ["--max-turns=7"]),
    ("max_budget_usd", {"max_budget_usd": 0.25}, ["--max-budget-usd=0.25"]),
    ("max_budget_usd", {"max_budget_usd": 2}, ["--max-budget-usd=2"]),
    ("max_budget_usd", {"max_budget_usd": 0}, ["--max-budget-usd=0"]),
    ("task_budget", {"task_budget": 50000}, ["--task-budget=50000"]),
    ("task_budget", {"task_budget": {"total": 50000}}, ["--task-budget=50000"]),
    ("betas", {"betas": ["context-1m-2025-08-07"]}, ["--betas=context-1m-2025-08-07"]),
    ("betas", {"betas": ["a", "b"]}, ["--betas=a,b"]),
    # -- tools and permissions
    ("tools", {"tools": ["Read", "Bash"]}, ["--tools=Read,Bash"]),
    ("tools", {"tools": []}, ["--tools="]),
    ("tools", {"tools": ToolsPreset()}, ["--tools=default"]),
    ("tools", {"tools": "claude_code"}, ["--tools=default"]),
    ("tools", {"tools": {"type": "preset", "preset": "claude_code"}}, ["--tools=default"]),
    (
        "allowed_tools",
        {"allowed_tools": ["Read", "Bash(git:*)"]},
        ["--allowedTools=Read,Bash(git:*)"],
    ),
    ("allowed_tools", {"allowed_tools": "Read"}, ["--allowedTools=Read"]),
    (
        "disallowed_tools",
        {"disallowed_tools": ["WebFetch", "Bash(rm:*)"]},
        ["--disallowedTools=WebFetch,Bash(rm:*)"],
    ),
    ("permission_mode", {"permission_mode": "default"}, []),
    ("permission_mode", {"permission_mode": "acceptEdits"}, ["--permission-mode=acceptEdits"]),
    ("permission_mode", {"permission_mode": "plan"}, ["--permission-mode=plan"]),
    ("permission_mode", {"permission_mode": "dontAsk"}, ["--permission-mode=dontAsk"]),
    ("permission_mode", {"permission_mode": "auto"}, ["--permission-mode=auto"]),
    (
        "permission_mode",
        {"permission_mode": "bypassPermissions"},
        ["--permission-mode=bypassPermissions", "--allow-dangerously-skip-permissions"],
    ),
    (
        "allow_dangerously_skip_permissions",
        {"allow_dangerously_skip_permissions": True},
        ["--allow-dangerously-skip-permissions"],
    ),
    ("can_use_tool", {"can_use_tool": allow}, ["--permission-prompt-tool=stdio"]),
    (
        "permission_prompt_tool_name",
        {"permission_prompt_tool_name": "mcp__auth__ask"},
        ["--permission-prompt-tool=mcp__auth__ask"],
    ),
    ("permission_prompts", {"permission_prompts": "none"}, ["--permission-prompts=none"]),
    ("agent", {"agent": "reviewer"}, ["--agent=reviewer"]),
    # -- MCP: in-process servers on argv; the others (headers, env) in initialize
    (
        "mcp_servers",
        {"mcp_servers": {"fs": McpStdioServer(command="npx", args=["-y", "fs"])}},
        ["--await-initialize"],
    ),
    (
        "mcp_servers",
        {"mcp_servers": {"remote": McpSSEServer(url="https://x/sse", headers={"A": "t"})}},
        ["--await-initialize"],
    ),
    (
        "mcp_servers",
        {"mcp_servers": {"d": {"command": "python", "args": ["-m", "srv"]}}},
        ["--await-initialize"],
    ),
    (
        "mcp_servers",
        {"mcp_servers": {"calc": InProcessServer()}},
        [
            "--allowedTools=mcp__calc",
            '--mcp-config={"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}',
        ],
    ),
    (
        "mcp_servers",
        {"mcp_servers": {"calc": {"type": "sdk", "name": "calc", "instance": InProcessServer()}}},
        [
            "--allowedTools=mcp__calc",
            '--mcp-config={"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}',
        ],
    ),
    (
        "mcp_servers",
        {"mcp_servers": {"calc": InProcessServer(), "h": McpHttpServer(url="https://x/mcp")}},
        [
            "--allowedTools=mcp__calc",
            '--mcp-config={"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}',
            "--await-initialize",
        ],
    ),
    # -- in-process tools are allowed unless the host decides (allow_in_process_tools)
    (
        "allow_in_process_tools",
        {"mcp_servers": {"my calc.v2": InProcessServer()}, "allowed_tools": ["Read"]},
        [
            "--allowedTools=Read,mcp__my_calc_v2",  # the name as the CLI writes it
            '--mcp-config={"mcpServers":{"my calc.v2":{"type":"sdk","name":"my calc.v2"}}}',
        ],
    ),
    (
        "allow_in_process_tools",
        {"mcp_servers": {"calc": InProcessServer()}, "allow_in_process_tools": False},
        ['--mcp-config={"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}'],
    ),
    (
        "allow_in_process_tools",
        {"mcp_servers": {"calc": InProcessServer()}, "allowed_tools": ["mcp__calc__add"]},
        [
            "--allowedTools=mcp__calc__add",  # the user chose which tools of calc run
            '--mcp-config={"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}',
        ],
    ),
    (
        "allow_in_process_tools",
        {
            "mcp_servers": {"calc": InProcessServer(), "calcx": InProcessServer()},
            "allowed_tools": ["mcp__calc"],
        },
        [
            "--allowedTools=mcp__calc,mcp__calcx",  # a rule of calc is not one of calcx
            '--mcp-config={"mcpServers":{"calc":{"type":"sdk","name":"calc"},'
            '"calcx":{"type":"sdk","name":"calcx"}}}',
        ],
    ),
    (
        "allow_in_process_tools",
        {"mcp_servers": {"calc": InProcessServer()}, "permission_prompt_tool_name": "mcp__a__b"},
        [
            "--permission-prompt-tool=mcp__a__b",
            '--mcp-config={"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}',
        ],
    ),
    ("mcp_servers", {"mcp_servers": "/etc/mcp.json"}, ["--mcp-config=/etc/mcp.json"]),
    ("mcp_servers", {"mcp_servers": Path("/etc/mcp.json")}, ["--mcp-config=/etc/mcp.json"]),
    (
        "mcp_servers",
        {"mcp_servers": '{"mcpServers": {"h": {"type": "http", "url": "https://x"}}}'},
        ["--await-initialize"],
    ),
    ("mcp_servers", {"mcp_servers": {}}, []),
    ("strict_mcp_config", {"strict_mcp_config": True}, ["--strict-mcp-config"]),
    # -- settings (JSON in initialize; a file's path on argv) and plugins
    (
        "settings",
        {"settings": {"model": "x"}},
        ["--initialize-fields=settings", "--await-initialize"],
    ),
    ("settings", {"settings": "/etc/s.json"}, ["--settings=/etc/s.json"]),
    (
        "settings",
        {"settings": '{"model": "x"}'},
        ["--initialize-fields=settings", "--await-initialize"],
    ),
    (
        "sandbox",
        {"sandbox": {"enabled": True}},
        ["--initialize-fields=settings", "--await-initialize"],
    ),
    (
        "managed_settings",
        {"managed_settings": {"a": 1}},
        ["--managed-settings-in-initialize", "--await-initialize"],
    ),
    ("setting_sources", {"setting_sources": []}, ["--setting-sources="]),
    (
        "setting_sources",
        {"setting_sources": ["user", "project"]},
        ["--setting-sources=user,project"],
    ),
    ("add_dirs", {"add_dirs": ["/a", Path("/b")]}, ["--add-dir=/a", "--add-dir=/b"]),
    ("add_dirs", {"add_dirs": "/only"}, ["--add-dir=/only"]),
    ("plugins", {"plugins": ["/p1", Path("/p2")]}, ["--plugin-dir=/p1", "--plugin-dir=/p2"]),
    ("plugins", {"plugins": [{"type": "local", "path": "/p"}]}, ["--plugin-dir=/p"]),
    (
        "project_config_root",
        {"project_config_root": "/root/cfg"},
        ["--project-config-root=/root/cfg"],
    ),
    # -- skills (official Python SDK defaults)
    ("skills", {"skills": "all"}, ["--allowedTools=Skill", "--setting-sources=user,project"]),
    (
        "skills",
        {"skills": ["pdf", "plugin:xlsx"]},
        ["--allowedTools=Skill(pdf),Skill(plugin:xlsx)", "--setting-sources=user,project"],
    ),
    ("skills", {"skills": []}, ["--setting-sources=user,project"]),
    (
        "skills",
        {"skills": "all", "tools": ["Read"], "allowed_tools": ["Read"], "setting_sources": []},
        ["--tools=Read,Skill", "--allowedTools=Read,Skill", "--setting-sources="],
    ),
    (
        "skills",
        {"skills": "all", "allowed_tools": ["Skill"]},
        ["--allowedTools=Skill", "--setting-sources=user,project"],
    ),
    # -- sessions
    ("continue_conversation", {"continue_conversation": True}, ["--continue"]),
    ("resume", {"resume": "abc"}, ["--resume=abc"]),
    ("resume", {"resume": "-x"}, ["--resume=-x"]),
    ("fork_session", {"resume": "abc", "fork_session": True}, ["--resume=abc", "--fork-session"]),
    (
        "fork_session",
        {"continue_conversation": True, "fork_session": True},
        ["--continue", "--fork-session"],
    ),
    ("session_id", {"session_id": SESSION}, [f"--session-id={SESSION}"]),
    (
        "session_id",
        {"resume": "abc", "fork_session": True, "session_id": SESSION},
        ["--resume=abc", "--fork-session", f"--session-id={SESSION}"],
    ),
    (
        "resume_session_at",
        {"resume": "abc", "resume_session_at": "m-1"},
        ["--resume=abc", "--resume-session-at=m-1"],
    ),
    (
        "resume_drops_turn",
        {"resume": "abc", "resume_session_at": "m-1", "resume_drops_turn": "u-2"},
        ["--resume=abc", "--resume-session-at=m-1", "--resume-drops-turn=u-2"],
    ),
    ("persist_session", {"persist_session": False}, ["--no-session-persistence"]),
    # -- output
    ("output_format", {"output_format": {"type": "object"}}, ['--json-schema={"type":"object"}']),
    (
        "output_format",
        {"output_format": {"type": "json_schema", "schema": {"type": "object"}}},
        ['--json-schema={"type":"object"}'],
    ),
    (
        "output_format",
        {"output_format": Verdict},
        [f"--json-schema={json.dumps(VERDICT_SCHEMA, separators=(',', ':'))}"],
    ),
    (
        "include_partial_messages",
        {"include_partial_messages": True},
        ["--include-partial-messages"],
    ),
    ("include_hook_events", {"include_hook_events": True}, ["--include-hook-events"]),
    # -- debugging and the caller's own flags
    ("debug", {"debug": True}, ["--debug", "--debug-to-stderr"]),
    ("debug", {"debug": "hooks,mcp"}, ["--debug=hooks,mcp", "--debug-to-stderr"]),
    ("debug_to_stderr", {"debug_to_stderr": True}, ["--debug-to-stderr"]),
    ("debug_file", {"debug_file": "/tmp/d.log"}, ["--debug-file=/tmp/d.log"]),
    (
        "extra_args",
        {"extra_args": {"replay-user-messages": None, "name": "-dash"}},
        ["--replay-user-messages", "--name=-dash"],
    ),
    ("extra_args", {"model": "a", "extra_args": {"model": "b"}}, ["--model=a", "--model=b"]),
]


@pytest.mark.parametrize(("field", "kwargs", "expected"), ARGV_ROWS, ids=[r[0] for r in ARGV_ROWS])
def test_argv(field: str, kwargs: JSON, expected: list[str]) -> None:
    options = quiet(**kwargs)
    assert flags(options) == expected
    # Every option keeps the empty default prompt unless it is the prompt itself.
    assert tokens(options)[0] == EMPTY_PROMPT


def test_defaults_are_exactly_the_fixed_flags_and_the_empty_prompt() -> None:
    spec = build_launch_spec(Options())
    assert spec.argv == (DEFAULT_CLI, *BASE_ARGS, EMPTY_PROMPT)
    assert spec.cli_path is None
    assert spec.cwd is None
    assert spec.user is None


def test_cli_path_is_argv0() -> None:
    spec = build_launch_spec(Options(cli_path=Path("/opt/claude/bin/claude")))
    assert spec.argv[0] == "/opt/claude/bin/claude"
    assert spec.cli_path == "/opt/claude/bin/claude"
    assert spec.with_cli("/x/claude").argv == ("/x/claude", *spec.argv[1:])


def test_every_value_is_in_the_same_token_as_its_flag() -> None:
    for _, kwargs, _ in ARGV_ROWS:
        for token in tokens(quiet(**kwargs)):
            assert token.startswith("--"), (kwargs, token)


# ======================================================================================
# system prompt (§6.4.3): argv and initialize together

PROMPT_ROWS: list[tuple[str, Any, list[str], JSON]] = [
    ("default: empty", None, [EMPTY_PROMPT], {}),
    ("str", "You are terse.", [], {"systemPrompt": ["You are terse."]}),
    ("empty str", "", [], {"systemPrompt": [""]}),
    (
        "custom blocks + snapshot",
        SystemPromptCustom(prompt=["A", "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__", "B"], snapshot=True),
        [],
        {
            "systemPrompt": ["A", "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__", "B"],
            "systemPromptSnapshot": True,
        },
    ),
    ("custom dict", {"type": "custom", "prompt": "P"}, [], {"systemPrompt": ["P"]}),
    ("preset", SystemPromptPreset(), [], {}),
    ("preset append", SystemPromptPreset(append="Also X."), [], {"appendSystemPrompt": "Also X."}),
    (
        "preset switches",
        SystemPromptPreset(exclude_dynamic_sections=True, snapshot=False),
        [],
        {"excludeDynamicSections": True, "systemPromptSnapshot": False},
    ),
    (
        "preset dict (official form)",
        {
            "type": "preset",
            "preset": "claude_code",
            "append": "Y",
            "exclude_dynamic_sections": True,
        },
        [],
        {"appendSystemPrompt": "Y", "excludeDynamicSections": True},
    ),
    ("file", SystemPromptFile("/p/prompt.md"), ["--system-prompt-file=/p/prompt.md"], {}),
    ("file dict", {"type": "file", "path": "/p/x.md"}, ["--system-prompt-file=/p/x.md"], {}),
]


@pytest.mark.parametrize(
    ("prompt", "argv", "init"), [r[1:] for r in PROMPT_ROWS], ids=[r[0] for r in PROMPT_ROWS]
)
def test_system_prompt(prompt: Any, argv: list[str], init: JSON) -> None:
    options = Options(system_prompt=prompt)
    assert tokens(options) == argv
    assert init_wire(options) == {"subtype": "initialize", "hooks": None, **init}


# ======================================================================================
# initialize: one row per option that travels there

INIT_ROWS: list[tuple[str, JSON, JSON]] = [
    ("(defaults)", {}, {}),
    (
        "mcp_servers",
        {"mcp_servers": {"fs": McpStdioServer(command="npx", args=["-y", "fs"])}},
        {"mcpServers": {"fs": {"type": "stdio", "command": "npx", "args": ["-y", "fs"]}}},
    ),
    (
        "mcp_servers",
        {
            "mcp_servers": {
                "s": McpStdioServer(command="srv", env={"K": "V"}, timeout=5000, always_load=True)
            }
        },
        {
            "mcpServers": {
                "s": {
                    "type": "stdio",
                    "command": "srv",
                    "args": [],
                    "env": {"K": "V"},
                    "timeout": 5000,
                    "alwaysLoad": True,
                }
            }
        },
    ),
    (
        "mcp_servers",
        {
            "mcp_servers": {
                "remote": McpSSEServer(
                    url="https://x/sse",
                    headers={"Authorization": "Bearer t"},
                    tools=[{"name": "q", "permission_policy": "always_ask"}],
                ),
                "calc": InProcessServer(),
            }
        },
        {
            "mcpServers": {
                "remote": {
                    "type": "sse",
                    "url": "https://x/sse",
                    "headers": {"Authorization": "Bearer t"},
                    "tools": [{"name": "q", "permission_policy": "always_ask"}],
                }
            }
        },
    ),
    (
        "mcp_servers",
        {"mcp_servers": {"h": McpHttpServer(url="https://x/mcp", timeout=60000)}},
        {"mcpServers": {"h": {"type": "http", "url": "https://x/mcp", "timeout": 60000}}},
    ),
    ("settings", {"settings": {"model": "x"}}, {"settings": {"model": "x"}}),
    ("settings", {"settings": '{"model": "x"}'}, {"settings": {"model": "x"}}),
    ("settings", {"settings": "/etc/s.json"}, {}),
    (
        "sandbox",
        {"sandbox": {"enabled": True}},
        {
            "settings": {
                "sandbox": {
                    "enabled": True,
                    "failIfUnavailable": True,
                    "allowUnsandboxedCommands": False,
                    "network": {"strictAllowlist": True},
                }
            }
        },
    ),
    (
        "sandbox",
        {
            "sandbox": {
                "enabled": True,
                "failIfUnavailable": False,
                "allowUnsandboxedCommands": True,
                "network": {"strictAllowlist": False},
            }
        },
        {
            "settings": {
                "sandbox": {
                    "enabled": True,
                    "failIfUnavailable": False,
                    "allowUnsandboxedCommands": True,
                    "network": {"strictAllowlist": False},
                }
            }
        },
    ),
    (
        "sandbox",
        {"settings": {"model": "x"}, "sandbox": {"enabled": False}},
        {"settings": {"model": "x", "sandbox": {"enabled": False}}},
    ),
    (
        "sandbox",
        {"settings": '{"model":"x","sandbox":{"old":1}}', "sandbox": {"enabled": False}},
        {"settings": {"model": "x", "sandbox": {"enabled": False}}},
    ),
    ("managed_settings", {"managed_settings": {"a": 1}}, {"managedSettings": {"a": 1}}),
    (
        "agents",
        {
            "agents": {
                "rev": cs.AgentDefinition(description="Reviews", prompt="Review it", tools=["Read"])
            }
        },
        {"agents": {"rev": {"description": "Reviews", "prompt": "Review it", "tools": ["Read"]}}},
    ),
    (
        "agents",
        {
            "agents": {
                "a": {"description": "d", "prompt": "p", "disallowedTools": ["X"], "max_turns": 2}
            }
        },
        {
            "agents": {
                "a": {"description": "d", "prompt": "p", "disallowedTools": ["X"], "maxTurns": 2}
            }
        },
    ),
    ("skills", {"skills": ["pdf", "plugin:xlsx"]}, {"skills": ["pdf", "plugin:xlsx"]}),
    ("skills", {"skills": []}, {"skills": []}),
    ("skills", {"skills": "all"}, {}),
    ("title", {"title": "Refactor"}, {"title": "Refactor"}),
    ("output_format", {"output_format": Verdict}, {"jsonSchema": VERDICT_SCHEMA}),
    ("output_format", {"output_format": {"type": "object"}}, {"jsonSchema": {"type": "object"}}),
    ("prompt_suggestions", {"prompt_suggestions": True}, {"promptSuggestions": True}),
    (
        "agent_progress_summaries",
        {"agent_progress_summaries": False},
        {"agentProgressSummaries": False},
    ),
    ("forward_subagent_text", {"forward_subagent_text": True}, {"forwardSubagentText": True}),
    (
        "per_task_stop_affordance",
        {"per_task_stop_affordance": True},
        {"perTaskStopAffordance": True},
    ),
    (
        "plan_mode_instructions",
        {"plan_mode_instructions": "Plan briefly."},
        {"planModeInstructions": "Plan briefly."},
    ),
    ("tool_aliases", {"tool_aliases": {"Shell": "Bash"}}, {"toolAliases": {"Shell": "Bash"}}),
    (
        "supported_dialog_kinds",
        {"on_user_dialog": dialog, "supported_dialog_kinds": ["confirm", "choice"]},
        {"supportedDialogKinds": ["confirm", "choice"]},
    ),
    (
        "hooks",
        {
            "hooks": {
                "PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[audit, audit], timeout=5)],
                "Stop": [cs.HookMatcher(hooks=[audit], on_failure="continue")],
            }
        },
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hookCallbackIds": ["hook_0", "hook_1"],
                        "timeout": 5,
                        "onFailure": "block",  # the SDK's default for permission hooks
                    }
                ],
                "Stop": [{"matcher": None, "hookCallbackIds": ["hook_2"], "onFailure": "continue"}],
            }
        },
    ),
]


@pytest.mark.parametrize(("field", "kwargs", "expected"), INIT_ROWS, ids=[r[0] for r in INIT_ROWS])
def test_initialize(field: str, kwargs: JSON, expected: JSON) -> None:
    options = Options(**kwargs)
    assert init_wire(options) == {"subtype": "initialize", "hooks": None, **expected}


def test_hook_table_maps_ids_to_callbacks() -> None:
    matcher = cs.HookMatcher(matcher="Bash", hooks=[audit])
    _, table = build_initialize(Options(hooks={"PreToolUse": [matcher]}))
    assert list(table) == ["hook_0"]
    assert table["hook_0"].event == "PreToolUse"
    assert table["hook_0"].matcher is matcher
    assert table["hook_0"].callback is audit


def test_permission_hooks_block_on_failure_by_default() -> None:
    """PreSkillShellCommand: issue 26, item 6 (before, no ``onFailure``: the CLI's default
    ran the command when the hook failed)."""
    matcher = cs.HookMatcher(hooks=[audit])
    events = ["PreToolUse", "PermissionRequest", "PreSkillShellCommand", "Stop", "PostToolUse"]
    wire_hooks = init_wire(Options(hooks={event: [matcher] for event in events}))["hooks"]
    assert {event: wire_hooks[event][0].get("onFailure") for event in events} == {
        "PreToolUse": "block",
        "PermissionRequest": "block",
        "PreSkillShellCommand": "block",
        "Stop": None,
        "PostToolUse": None,
    }


def test_hook_support_warning_names_the_events_an_older_cli_lacks() -> None:
    hooks = {"PreToolUse": (), "PreSkillShellCommand": ()}
    assert hook_support_warning(hooks, "2.1.330") == (
        "this CLI (2.1.330) does not have the hook event PreSkillShellCommand (CLI 2.1.332 "
        "and later): its hooks are registered and never called; update the CLI"
    )
    assert hook_support_warning(hooks, "2.1.332") is None
    assert hook_support_warning(hooks, None) is None
    assert hook_support_warning({"PreToolUse": ()}, "2.1.330") is None


def test_only_the_flag_changes_for_argv_options() -> None:
    """Options that only touch argv or env leave initialize minimal."""
    in_initialize = {"output_format", "skills", "mcp_servers", "settings", "sandbox",
                     "managed_settings"}  # fmt: skip
    for _, kwargs, _ in ARGV_ROWS:
        if in_initialize & set(kwargs) and init_wire(quiet(**kwargs)) != {
            "subtype": "initialize",
            "hooks": None,
        }:
            continue  # secrets: in initialize, with a flag that says so (INIT_ROWS)
        assert init_wire(quiet(**kwargs)) == {"subtype": "initialize", "hooks": None}


# ======================================================================================
# environment (§3.1)

BASE_ENV = {
    "CLAUDE_CODE_ENTRYPOINT": "sdk-py",
    "CLAUDE_CODE_SDK_READS_SESSION_STATE": "1",
    "CLAUDE_AGENT_SDK_VERSION": cs.__version__,
}
BASE_UNSET = ("CLAUDECODE", "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP", "DEBUG")

ENV_ROWS: list[tuple[str, JSON, JSON, tuple[str, ...]]] = [
    ("(defaults)", {}, BASE_ENV, BASE_UNSET),
    (
        "env",
        {"env": {"ANTHROPIC_API_KEY": "k"}},
        {**BASE_ENV, "ANTHROPIC_API_KEY": "k"},
        BASE_UNSET,
    ),
    (
        "env: entrypoint is overridable",
        {"env": {"CLAUDE_CODE_ENTRYPOINT": "sdk-custom"}},
        {**BASE_ENV, "CLAUDE_CODE_ENTRYPOINT": "sdk-custom"},
        BASE_UNSET,
    ),
    (
        "env: the SDK version is not",
        {"env": {"CLAUDE_AGENT_SDK_VERSION": "9.9"}},
        BASE_ENV,
        BASE_UNSET,
    ),
    (
        "env: session state is overridable",
        {"env": {"CLAUDE_CODE_SDK_READS_SESSION_STATE": "0"}},
        {**BASE_ENV, "CLAUDE_CODE_SDK_READS_SESSION_STATE": "0"},
        BASE_UNSET,
    ),
    ("env: None unsets", {"env": {"HTTP_PROXY": None}}, BASE_ENV, (*BASE_UNSET, "HTTP_PROXY")),
    (
        "env: None unsets a default",
        {"env": {"CLAUDE_CODE_ENTRYPOINT": None}},
        {k: v for k, v in BASE_ENV.items() if k != "CLAUDE_CODE_ENTRYPOINT"},
        (*BASE_UNSET, "CLAUDE_CODE_ENTRYPOINT"),
    ),
    (
        "env: DEBUG passes when asked for",
        {"env": {"DEBUG": "1"}},
        {**BASE_ENV, "DEBUG": "1"},
        ("CLAUDECODE", "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP"),
    ),
    (
        "tool_config",
        {"tool_config": {"ask_user_question": {"preview_format": "html"}}},
        {**BASE_ENV, "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT": "html"},
        BASE_UNSET,
    ),
    (
        "enable_file_checkpointing",
        {"enable_file_checkpointing": True},
        {**BASE_ENV, "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING": "true"},
        BASE_UNSET,
    ),
    (
        "client_app",
        {"client_app": "my-app/1.2", "env": {"CLAUDE_AGENT_SDK_CLIENT_APP": "other"}},
        {**BASE_ENV, "CLAUDE_AGENT_SDK_CLIENT_APP": "my-app/1.2"},
        BASE_UNSET,
    ),
]


@pytest.mark.parametrize(
    ("kwargs", "env", "unset"), [r[1:] for r in ENV_ROWS], ids=[r[0] for r in ENV_ROWS]
)
def test_environment(kwargs: JSON, env: JSON, unset: tuple[str, ...]) -> None:
    spec = build_launch_spec(Options(**kwargs))
    assert dict(spec.env) == env
    assert spec.unset_env == unset
    assert list(spec.env)[-1] == "CLAUDE_AGENT_SDK_VERSION"


def test_child_environment_drops_claudecode_and_debug() -> None:
    base = {"CLAUDECODE": "1", "DEBUG": "1", "PATH": "/bin", "HTTP_PROXY": "p", "KEEP": "k"}
    spec = build_launch_spec(Options(env={"HTTP_PROXY": None}, cwd="/w"))
    env = child_environment(spec, base)
    assert "CLAUDECODE" not in env
    assert "DEBUG" not in env
    assert "HTTP_PROXY" not in env
    assert env["KEEP"] == "k"
    assert env["PATH"] == "/bin"
    assert env["CLAUDE_CODE_ENTRYPOINT"] == "sdk-py"


SPEC_ROWS: list[tuple[str, JSON, JSON]] = [
    ("cwd", {"cwd": Path("/work/dir")}, {"cwd": "/work/dir"}),
    ("user", {"user": "nobody"}, {"user": "nobody"}),
    ("max_line_bytes", {"max_line_bytes": 4096}, {"max_line_bytes": 4096}),
    ("shutdown_grace", {"shutdown_grace": 1.5}, {"shutdown_grace": 1.5}),
    ("stderr", {"stderr": print}, {"stderr": print}),
]


@pytest.mark.parametrize(("field", "kwargs", "expected"), SPEC_ROWS, ids=[r[0] for r in SPEC_ROWS])
def test_launch_spec_fields(field: str, kwargs: JSON, expected: JSON) -> None:
    spec = build_launch_spec(Options(**kwargs))
    for name, value in expected.items():
        assert getattr(spec, name) == value
    assert tokens(Options(**kwargs)) == [EMPTY_PROMPT]


# ======================================================================================
# long inputs never go on argv (PITFALLS R25)


def test_long_inputs_travel_in_initialize() -> None:
    prompt = "p" * 100_000
    agents = {
        f"agent{i}": cs.AgentDefinition(description=f"agent {i}", prompt="x" * 2000)
        for i in range(50)
    }
    hooks = {"PreToolUse": [cs.HookMatcher(matcher=f"T{i}", hooks=[audit]) for i in range(200)]}
    options = Options(
        system_prompt=prompt,
        agents=agents,
        hooks=hooks,
        skills=[f"skill-{i}" for i in range(5)],
        title="t" * 10_000,
        can_use_tool=allow,
    )
    argv = build_launch_spec(options).argv
    assert sum(len(t) + 1 for t in argv) < 1000
    request = init_wire(options)
    assert request["systemPrompt"] == [prompt]
    assert len(request["agents"]) == 50
    assert len(request["hooks"]["PreToolUse"]) == 200
    assert request["title"] == "t" * 10_000


def test_preset_append_travels_in_initialize() -> None:
    options = Options(system_prompt=SystemPromptPreset(append="a" * 50_000))
    assert sum(map(len, build_launch_spec(options).argv)) < 200
    assert init_wire(options)["appendSystemPrompt"] == "a" * 50_000


def test_mcp_config_document() -> None:
    servers = {"calc": InProcessServer(), "fs": McpStdioServer(command="fs")}
    assert mcp_config(servers) == {
        "mcpServers": {
            "calc": {"type": "sdk", "name": "calc"},
            "fs": {"type": "stdio", "command": "fs", "args": []},
        }
    }
    options = Options(mcp_servers=servers)
    assert list(options.sdk_mcp_servers) == ["calc"]
    assert options.has_callbacks


# ======================================================================================
# validation (at construction, naming the option)

INVALID: list[tuple[str, JSON, type[Exception], str]] = [
    (
        "can_use_tool + permission_prompt_tool_name",
        {"can_use_tool": allow, "permission_prompt_tool_name": "mcp__a__b"},
        ValueError,
        "permission_prompt_tool_name",
    ),
    (
        "continue + resume",
        {"continue_conversation": True, "resume": "x"},
        ValueError,
        "continue_conversation",
    ),
    ("fork without resume", {"fork_session": True}, ValueError, "fork_session"),
    ("session_id not a UUID", {"session_id": "abc"}, ValueError, "session_id"),
    ("session_id braces", {"session_id": "{" + SESSION + "}"}, ValueError, "session_id"),
    ("session_id not a str", {"session_id": 5}, TypeError, "session_id"),
    (
        "session_id with resume, no fork",
        {"session_id": SESSION, "resume": "x"},
        ValueError,
        "session_id",
    ),
    (
        "resume_session_at without resume",
        {"resume_session_at": "m"},
        ValueError,
        "resume_session_at",
    ),
    (
        "resume_drops_turn without resume_session_at",
        {"resume": "x", "resume_drops_turn": "u"},
        ValueError,
        "resume_drops_turn",
    ),
    ("max_turns < 0", {"max_turns": -1}, ValueError, "max_turns"),
    ("max_turns bool", {"max_turns": True}, TypeError, "max_turns"),
    ("max_turns float", {"max_turns": 1.5}, TypeError, "max_turns"),
    ("negative budget", {"max_budget_usd": -0.01}, ValueError, "max_budget_usd"),
    ("nan budget", {"max_budget_usd": float("nan")}, ValueError, "max_budget_usd"),
    ("infinite budget", {"max_budget_usd": float("inf")}, ValueError, "max_budget_usd"),
    ("budget str", {"max_budget_usd": "1"}, TypeError, "max_budget_usd"),
    ("task_budget 0", {"task_budget": 0}, ValueError, "task_budget"),
    ("task_budget dict", {"task_budget": {"tokens": 5}}, ValueError, "task_budget"),
    ("max_thinking_tokens < 0", {"max_thinking_tokens": -5}, ValueError, "max_thinking_tokens"),
    (
        "fallback equals model",
        {"model": "opus", "fallback_model": ["sonnet", "opus"]},
        ValueError,
        "fallback_model",
    ),
    ("fallback empty name", {"fallback_model": ""}, ValueError, "fallback_model"),
    ("skill with parens", {"skills": ["Skill(x)"]}, ValueError, "skills"),
    ("skill with comma", {"skills": ["a,b"]}, ValueError, "skills"),
    ("skill wildcard", {"skills": ["pdf*"]}, ValueError, "skills"),
    ("skill leading slash", {"skills": ["/pdf"]}, ValueError, "skills"),
    ("skill whitespace", {"skills": [" pdf"]}, ValueError, "skills"),
    ("skill control char", {"skills": ["pd\nf"]}, ValueError, "skills"),
    ("skill empty", {"skills": [""]}, ValueError, "skills"),
    ("skills other string", {"skills": "pdf"}, ValueError, "skills"),
    ("permission_mode", {"permission_mode": "yolo"}, ValueError, "permission_mode"),
    ("permission_mode manual", {"permission_mode": "manual"}, ValueError, "permission_mode"),
    ("effort", {"effort": "extreme"}, ValueError, "effort"),
    ("permission_prompts", {"permission_prompts": "always"}, ValueError, "permission_prompts"),
    ("setting_sources", {"setting_sources": ["user", "global"]}, ValueError, "setting_sources"),
    ("output_format list", {"output_format": ["x"]}, TypeError, "output_format"),
    ("output_format plain class", {"output_format": InProcessServer}, TypeError, "output_format"),
    (
        "output_format attrs instance",
        {"output_format": Verdict(ok=True)},
        TypeError,
        "output_format",
    ),
    ("thinking str", {"thinking": "adaptive"}, TypeError, "thinking"),
    ("thinking dict key", {"thinking": {"type": "enabled", "budget": 5}}, TypeError, "thinking"),
    ("system_prompt int", {"system_prompt": 5}, TypeError, "system_prompt"),
    (
        "system_prompt dict type",
        {"system_prompt": {"type": "mystery"}},
        ValueError,
        "system_prompt",
    ),
    (
        "system_prompt preset name",
        {"system_prompt": {"type": "preset", "preset": "other"}},
        ValueError,
        "preset",
    ),
    ("tools preset name", {"tools": {"type": "other"}}, ValueError, "tools"),
    ("allowed_tools int", {"allowed_tools": [1]}, TypeError, "allowed_tools"),
    (
        "sandbox with settings path",
        {"settings": "/s.json", "sandbox": {"enabled": True}},
        ValueError,
        "sandbox",
    ),
    ("settings bad JSON", {"settings": "{nope"}, ValueError, "settings"),
    ("env value int", {"env": {"A": 1}}, TypeError, "env"),
    ("env name with =", {"env": {"A=B": "x"}}, ValueError, "env"),
    ("extra_args with dashes", {"extra_args": {"--model": "x"}}, ValueError, "extra_args"),
    ("extra_args value int", {"extra_args": {"n": 1}}, TypeError, "extra_args"),
    ("debug int", {"debug": 1}, TypeError, "debug"),
    (
        "mcp stdio without command",
        {"mcp_servers": {"x": {"type": "stdio"}}},
        ValueError,
        "mcp_servers",
    ),
    ("mcp http without url", {"mcp_servers": {"x": {"type": "http"}}}, ValueError, "mcp_servers"),
    ("mcp not a mapping", {"mcp_servers": [1]}, TypeError, "mcp_servers"),
    ("agents value", {"agents": {"a": "text"}}, TypeError, "agents"),
    (
        "agents unknown key",
        {"agents": {"a": {"description": "d", "prompt": "p", "colour": 1}}},
        ValueError,
        "agents",
    ),
    ("agents missing prompt", {"agents": {"a": {"description": "d"}}}, TypeError, "agents"),
    ("plugins remote", {"plugins": [{"type": "url", "url": "x"}]}, ValueError, "plugins"),
    ("hooks value", {"hooks": {"Stop": ["not a matcher"]}}, TypeError, "hooks"),
    ("can_use_tool not callable", {"can_use_tool": "yes"}, TypeError, "can_use_tool"),
    ("stderr not callable", {"stderr": 5}, TypeError, "stderr"),
    (
        "dialog kinds without callback",
        {"supported_dialog_kinds": ["confirm"]},
        ValueError,
        "supported_dialog_kinds",
    ),
    ("initialize_timeout", {"initialize_timeout": 0}, ValueError, "initialize_timeout"),
    ("max_line_bytes", {"max_line_bytes": 10}, ValueError, "max_line_bytes"),
]


@pytest.mark.parametrize(
    ("kwargs", "exc", "names"), [r[1:] for r in INVALID], ids=[r[0] for r in INVALID]
)
def test_invalid_options(kwargs: JSON, exc: type[Exception], names: str) -> None:
    with pytest.raises(exc) as info:
        Options(**kwargs)
    assert names in str(info.value)


def test_edge_cases_that_are_valid() -> None:
    # Text that does not look like JSON is a settings file path.
    assert build_launch_spec(Options(settings="[1]")).argv[-1] == "--settings=[1]"
    # A dict of a transport this SDK does not know is passed on (newer CLIs).
    ws = {"type": "ws", "url": "u"}
    assert Options(mcp_servers={"x": ws}).mcp_servers == {"x": ws}
    assert Options(mcp_servers={"x": ws}).sdk_mcp_servers == {}


def test_invalid_thinking_configs() -> None:
    with pytest.raises(ValueError, match="budget_tokens"):
        ThinkingConfig(type="adaptive", budget_tokens=5)
    with pytest.raises(ValueError, match="budget_tokens"):
        ThinkingConfig.enabled(0)
    with pytest.raises(ValueError, match="display"):
        ThinkingConfig(type="disabled", display="summarized")
    with pytest.raises(ValueError, match="type"):
        ThinkingConfig(type="sometimes")  # type: ignore[arg-type]


def test_mcp_timeout_is_in_milliseconds() -> None:
    with pytest.raises(ValueError, match="milliseconds"):
        McpStdioServer(command="x", timeout=30)
    with pytest.raises(ValueError, match="milliseconds"):
        McpHttpServer(url="u", timeout=999)


def test_evolve_validates_again() -> None:
    options = Options(resume="abc", fork_session=True)
    with pytest.raises(ValueError, match="fork_session"):
        attrs.evolve(options, resume=None)
    assert attrs.evolve(options, max_turns=0).max_turns == 0


def test_options_are_frozen() -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        Options().model = "x"  # type: ignore[misc]


def test_containers_are_normalised() -> None:
    options = Options(
        allowed_tools=["Read"],
        add_dirs=[Path("/a")],
        betas="b",
        env={"A": "1"},
        setting_sources=["user"],
    )
    assert options.allowed_tools == ("Read",)
    assert options.add_dirs == ("/a",)
    assert options.betas == ("b",)
    assert options.setting_sources == ("user",)
    assert options.env == {"A": "1"}
    assert Options(cli_path=Path("/x")).cli_path == "/x"


# ======================================================================================
# warnings

WARNS: list[tuple[str, JSON, str]] = [
    (
        "bare allowed tool",
        {"can_use_tool": allow, "allowed_tools": ["Read", "Bash(git:*)"]},
        "Read",
    ),
    ("empty specifier", {"can_use_tool": allow, "allowed_tools": ["Write()"]}, "Write"),
    ("wildcard specifier", {"can_use_tool": allow, "allowed_tools": ["Edit(*)"]}, "Edit"),
    ("skills all adds Skill", {"can_use_tool": allow, "skills": "all"}, "Skill"),
    (
        "bypass",
        {"can_use_tool": allow, "permission_mode": "bypassPermissions"},
        "bypassPermissions",
    ),
    (
        "thinking twice",
        {"thinking": ThinkingConfig.adaptive(), "max_thinking_tokens": 5},
        "max_thinking_tokens",
    ),
    ("dialog without kinds", {"on_user_dialog": dialog}, "supported_dialog_kinds"),
    (
        "unknown hook event",
        {"hooks": {"PreToolUSe": [cs.HookMatcher(hooks=[audit])]}},
        "PreToolUSe",
    ),
]


@pytest.mark.parametrize(("kwargs", "fragment"), [r[1:] for r in WARNS], ids=[r[0] for r in WARNS])
def test_warnings(kwargs: JSON, fragment: str) -> None:
    with pytest.warns(ClaudeSDKWarning, match=fragment) as record:
        Options(**kwargs)
    assert record[0].filename == __file__  # points at the caller


def test_no_warning_for_specific_rules() -> None:
    Options(can_use_tool=allow, allowed_tools=["Bash(git:*)", "mcp__calc__add(x)"], skills=["pdf"])


# ======================================================================================
# completeness

#: Options fields that never reach the CLI (consumed by the session or the transport).
SDK_SIDE = {
    "on_elicitation",  # answers elicitation requests
    "initialize_timeout",
    "control_timeout",
    "inactivity_timeout",
    "callback_timeout",
    "verbatim_prompts",  # "client_composed" on every user line (session)
    "telemetry",  # spans, and TRACEPARENT added by open_session (tests/session/test_telemetry.py)
    # the session store (tests/session/test_store_session.py, tests/e2e/test_store_e2e.py);
    # session_store also adds --session-mirror (test_a_session_store_turns_on_the_mirror)
    "session_store",
    "session_store_flush",
    "session_store_errors",
    "session_store_load_timeout",
    "session_lease",  # tests/stores/test_leases.py
    "session_lease_ttl",
    "store_project_key",
    "diskless",
    "resume_missing",  # resolved to --resume or --session-id by open_session
    "verify_resume",  # open_session asks the CLI after initialize (no flag)
    "retry",  # ask and SessionPool.ask retry turns (tests/test_retry.py; no flag)
}


def test_a_session_store_turns_on_the_mirror() -> None:
    from claude_sdk.stores import MemoryStore

    assert "--session-mirror" in build_launch_spec(Options(session_store=MemoryStore())).argv
    assert "--session-mirror" not in build_launch_spec(Options()).argv


def test_every_option_is_covered() -> None:
    covered: set[str] = set(SDK_SIDE) | {"cli_path", "env", "on_user_dialog"}
    covered |= {r[0] for r in ARGV_ROWS} | {r[0] for r in INIT_ROWS} | {r[0] for r in SPEC_ROWS}
    covered |= {"system_prompt"} | {r[0] for r in ENV_ROWS}
    fields = {f.alias for f in attrs.fields(Options) if f.init}
    assert fields - covered == set()


def test_spec_defaults() -> None:
    assert LaunchSpec().argv == (DEFAULT_CLI, *BASE_ARGS)
    assert DEFAULT_CLI == "claude"
