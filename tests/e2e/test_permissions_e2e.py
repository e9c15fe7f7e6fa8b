"""Issue 15 against the real CLI (offline, FakeMessagesAPI): policies as hooks stop what the
model asks for, widened rule entries are refused, a bad dict hook answer denies, and secrets
stay off the CLI's command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.hooks import HookContext, PreToolUseInput
from claude_sdk.policies import chain, deny_commands, deny_paths

from .conftest import E2E

SECRET = "the-secret-in-the-key-file"


async def _allow_all(
    name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
) -> cs.PermissionResult:
    """Whatever the hooks let through runs (the CLI refuses bypassPermissions as root)."""
    return cs.PermissionAllow()


def _tree(cwd: Path) -> None:
    (cwd / "x" / "y").mkdir(parents=True)
    (cwd / "x" / "y" / "z").write_text("z")
    (cwd / "secret").mkdir()
    (cwd / "secret" / "key").write_text(SECRET)


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "rm -Rf x"}),
        ("Bash", {"command": "rm --recursive --force x"}),
        ("Bash", {"command": "rm --rec --for x"}),
        ("Bash", {"command": "bash -c -- 'rm -rf x'"}),
        ("Bash", {"command": "taskset 1 rm -dRf x"}),
        ("Bash", {"command": "echo rm -rf x | sh"}),
        ("Read", {"file_path": "/proc/self/cwd/secret/key"}),
        ("Read", {"file_path": "secret/key"}),
    ],
    ids=repr,
)
async def test_a_policy_hook_stops_what_the_model_asks_for(
    e2e: E2E, tool: str, tool_input: dict[str, Any]
) -> None:
    _tree(e2e.cwd)
    policy = chain(deny_commands("rm -rf"), deny_paths("secret", cwd=e2e.cwd))
    e2e.api.reply(tool_use=(tool, tool_input))
    e2e.api.reply(text="done")
    options = e2e.options(hooks={"PreToolUse": [policy]}, can_use_tool=_allow_all)
    await cs.ask("do it", options=options, transport=e2e.transport())
    result = e2e.api.main_requests[1].tool_results[0]
    assert result.is_error, result
    assert SECRET not in result.text
    assert (e2e.cwd / "x" / "y" / "z").exists()
    assert (e2e.cwd / "secret" / "key").read_text() == SECRET


async def test_without_the_policy_the_same_call_does_the_damage(e2e: E2E) -> None:
    """The control: the rows above are real damage when nothing stops them."""
    _tree(e2e.cwd)
    e2e.api.reply(tool_use=("Bash", {"command": "bash -c -- 'rm -rf x'"}))
    e2e.api.reply(tool_use=("Read", {"file_path": "/proc/self/cwd/secret/key"}))
    e2e.api.reply(text="done")
    options = e2e.options(can_use_tool=_allow_all)
    await cs.ask("do it", options=options, transport=e2e.transport())
    assert not (e2e.cwd / "x").exists()
    assert SECRET in e2e.api.main_requests[2].tool_results[0].text


async def test_a_dict_hook_answer_with_a_bad_key_denies(e2e: E2E) -> None:
    _tree(e2e.cwd)

    async def allow_by_mistake(hook_input: PreToolUseInput, context: HookContext) -> Any:
        return {"permission_decision": "allow"}  # our name, at the wrong level

    e2e.api.reply(tool_use=("Bash", {"command": "rm -rf x"}))
    e2e.api.reply(text="done")
    hooks = {"PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[allow_by_mistake])]}
    options = e2e.options(hooks=hooks, can_use_tool=_allow_all)
    await cs.ask("do it", options=options, transport=e2e.transport())
    result = e2e.api.main_requests[1].tool_results[0]
    assert result.is_error
    assert "hook failed" in result.text
    assert (e2e.cwd / "x" / "y" / "z").exists()


async def test_the_cli_lists_exactly_the_rules_given(e2e: E2E) -> None:
    with pytest.raises(cs.OptionsError):
        e2e.options(allowed_tools=["Bash(git status:*),Bash"])
    rules = ["Bash(git status:*)", "Read(/tmp/a b/**)", "mcp__srv__tool"]
    e2e.api.reply(text="ok")
    async with cs.open_session(e2e.options(allowed_tools=rules), transport=e2e.transport()) as s:
        listed = await s.list_permission_rules()
    allowed = _rules(listed, "allow")
    assert sorted(allowed) == sorted(rules), listed


def _rules(listed: Any, behavior: str) -> list[str]:
    """The rules the command line gave (``source: cliArg``) with ``behavior``."""
    rules = listed.get("state", {}).get("rules", [])
    return [
        r["rule"] for r in rules if r.get("behavior") == behavior and r.get("source") == "cliArg"
    ]


async def test_secrets_stay_off_the_command_line(e2e: E2E) -> None:
    header = "Bearer header-secret-4a1b2c3d"
    server_env = "server-env-secret-5e6f7a8b"
    settings_env = "settings-env-secret-9c0d1e2f"
    options = e2e.options(
        mcp_servers={
            "remote": cs.McpHttpServer(
                url="http://127.0.0.1:9/mcp", headers={"Authorization": header}
            ),
            "local": cs.McpStdioServer(command="true", env={"TOKEN": server_env}),
        },
        settings={"env": {"SETTINGS_TOKEN": settings_env}, "permissions": {"deny": ["WebFetch"]}},
    )
    assert header not in repr(options)
    assert settings_env not in repr(options)
    e2e.api.reply(text="ok")
    async with cs.open_session(options, transport=e2e.transport()) as session:
        assert session.server_info is not None
        pid = session.server_info.pid
        assert pid is not None
        raw = await anyio.Path(f"/proc/{pid}/cmdline").read_bytes()
        cmdline = raw.decode(errors="replace")
        status = await session.mcp_status()
        rules = await session.list_permission_rules()
    for secret in (header, "header-secret-4a1b2c3d", server_env, settings_env):
        assert secret not in cmdline
    names = {s.name for s in status.mcp_servers or ()}
    assert {"remote", "local"} <= names, status  # delivered in initialize
    assert "WebFetch" in str(rules)  # the settings arrived too
