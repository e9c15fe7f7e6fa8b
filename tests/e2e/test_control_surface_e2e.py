"""Issue 18, item 3, against the real CLI (offline): every typed control method added then.

Each test runs on every CLI under test (2.1.330 and 2.1.331) and both backends; where the
CLIs differ (``mcp_call``'s ``soft_error_result``), the test branches on what the CLI
reports (its initialize ``capabilities``), never on its version. ``mcp_call`` and
``mcp_read_resource`` go to a real stdio MCP server (a small ``mcp`` script in a child
process the CLI starts and stops), since the CLI refuses them for in-process servers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk import control as c
from claude_sdk.hooks import HookContext
from claude_sdk.messages import TaskStartedMessage
from claude_sdk.options import AskUserQuestionConfig, ToolConfig
from claude_sdk.tools import create_sdk_mcp_server, tool

from .conftest import E2E

SOFT_ERRORS = "mcp_call_soft_error_result_v1"

#: A stdio MCP server (mcp 2.x): two tools, one that always fails, and a ``ui://`` resource.
PROBE_SERVER = '''
from mcp.server.mcpserver import MCPServer

app = MCPServer("probe")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@app.tool()
def boom(reason: str = "bad input") -> str:
    """Always fails."""
    raise ValueError(f"boom: {reason}")


@app.resource("ui://probe/panel", mime_type="text/html")
def panel() -> str:
    return "<p>panel</p>"


if __name__ == "__main__":
    app.run()
'''


def probe_options(e2e: E2E, **kwargs: Any) -> cs.Options:
    """Options with the stdio MCP server ``probe``."""
    script = e2e.cwd.parent / "probe_server.py"
    script.write_text(PROBE_SERVER)
    server = cs.McpStdioServer(command=sys.executable, args=[str(script)])
    return e2e.options(mcp_servers={"probe": server}, **kwargs)


# ======================================================================================
# settings, output styles, hooks listing


async def test_update_settings_writes_the_files_through_the_cli(e2e: E2E) -> None:
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        await session.update_settings("localSettings", {"outputStyle": "Explanatory"})
        await session.update_settings("userSettings", {"effortLevel": "high"})
        with pytest.raises(cs.ControlRequestError) as refused:
            await session.update_settings("userSettings", {"outputStyle": "Explanatory"})
        model = session.server_info.models[0].resolved_model if session.server_info.models else None
    assert refused.value.error == "update_settings keys not allowed: outputStyle"
    local = json.loads((e2e.cwd / ".claude" / "settings.local.json").read_text())
    assert local["outputStyle"] == "Explanatory"
    user = json.loads((e2e.home / ".claude" / "settings.json").read_text())
    levels = [s.get("effortLevel") for s in user["modelSettings"].values()]
    assert levels == ["high"]
    assert model is None or model in user["modelSettings"]


async def test_reload_output_styles_sees_a_style_written_mid_session(e2e: E2E) -> None:
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        before = session.server_info.available_output_styles or []
        styles_dir = session.server_info.user_output_styles_dir
        assert styles_dir is not None
        await anyio.Path(styles_dir).mkdir(parents=True, exist_ok=True)
        await anyio.Path(styles_dir, "pirate.md").write_text(
            "---\nname: Pirate\ndescription: Talk like a pirate\n---\n\nSpeak like a pirate.\n"
        )
        answer = await session.reload_output_styles()
    assert isinstance(answer, c.ReloadOutputStylesResponse)
    assert "Pirate" not in before
    assert answer.available_output_styles == [*before, "Pirate"]


async def test_get_hooks_listing_lists_settings_hooks_not_the_hosts(e2e: E2E) -> None:
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
        }
    }
    (e2e.cwd / ".claude").mkdir()
    (e2e.cwd / ".claude" / "settings.json").write_text(json.dumps(settings))

    async def host_hook(hook_input: Any, context: HookContext) -> dict[str, Any]:
        return {}

    options = e2e.options(hooks={"Stop": [cs.HookMatcher(hooks=[host_hook])]})
    async with cs.open_session(options, transport=e2e.transport()) as session:
        listing = await session.get_hooks_listing()
    assert isinstance(listing, c.GetHooksListingResponse)
    (row,) = listing.hooks or []
    assert (row.event, row.matcher, row.source, row.type) == (
        "PreToolUse",
        "Bash",
        "projectSettings",
        "command",
    )
    assert row.command_text == "true"
    assert row.editable == {"matcher": "Bash", "config": {"type": "command", "command": "true"}}
    assert [(e.name, e.hook_count) for e in listing.events or []] == [("PreToolUse", 1)]
    catalog = {e.name: e.supports_matcher for e in listing.event_catalog or []}
    assert catalog["PreToolUse"] is True
    assert catalog["Stop"] is False
    assert listing.policy is not None
    assert listing.policy.disabled_by_policy is False


# ======================================================================================
# background_tasks, seed_read_state, register_repo_root


async def test_background_tasks_moves_a_running_bash_command_to_the_background(e2e: E2E) -> None:
    # a command that never ends (the CLI refuses one long leading sleep): had the turn waited
    # for it, the turn would outlast the test's timeout (a rule, not a duration, is checked)
    forever = "while :; do sleep 1; done; echo slept"
    e2e.api.reply(tool_use=("Bash", {"command": forever, "description": "wait"}))
    e2e.api.reply(text="moved on")
    options = e2e.options(allowed_tools=["Bash"])
    async with cs.open_session(options, transport=e2e.transport()) as session:
        assert (await session.background_tasks("toolu_none")).backgrounded is False
        await session.send("run it")
        receipt = None
        task_id = None
        async for message in session.receive_response():
            if isinstance(message, TaskStartedMessage) and receipt is None:
                task_id = message.task_id
                receipt = await session.background_tasks(message.tool_use_id)
            if isinstance(message, cs.ResultMessage):
                result = message
        assert receipt is not None
        assert receipt.backgrounded is True
        assert result.result == "moved on"
        assert task_id is not None
        await session.stop_task(task_id)
    (request,) = [r for r in e2e.api.main_requests if r.tool_results]
    assert "backgrounded" in request.tool_results[0].text


async def test_seed_read_state_lets_a_notebook_edit_through_without_a_read(e2e: E2E) -> None:
    # NotebookEdit refuses a file the session has not read ("File has not been read yet"):
    # a seeded read state is what lets it through.
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "id": "c1",
                "metadata": {},
                "source": ["print(1)"],
                "outputs": [],
                "execution_count": None,
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    target = e2e.cwd / "nb.ipynb"
    target.write_text(json.dumps(notebook))
    edit = {"notebook_path": str(target), "cell_id": "c1", "new_source": "print(2)"}
    options = e2e.options(permission_mode="acceptEdits")
    outcomes = []
    for seeded in (False, True):
        e2e.api.reply(tool_use=("NotebookEdit", edit))
        e2e.api.reply(text="done")
        async with cs.open_session(options, transport=e2e.transport()) as session:
            if seeded:
                mtime_ms = target.stat().st_mtime_ns // 1_000_000
                await session.seed_read_state(str(target), mtime_ms)
            await session.send("edit the notebook")
            async for _message in session.receive_response():
                pass
        request = [r for r in e2e.api.main_requests if r.tool_results][-1]
        outcomes.append((request.tool_results[0].is_error, request.tool_results[0].text))
    (unseeded_failed, unseeded_text), (seeded_failed, seeded_text) = outcomes
    assert unseeded_failed
    assert "File has not been read yet" in unseeded_text
    assert not seeded_failed, seeded_text
    assert json.loads(target.read_text())["cells"][0]["source"] in ("print(2)", ["print(2)"])


async def test_register_repo_root(e2e: E2E) -> None:
    (e2e.cwd / "pkg").mkdir()
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        root = await session.register_repo_root(str(e2e.cwd / "pkg"), reload_skills=True)
        with pytest.raises(cs.ControlRequestError, match="already a registered working directory"):
            await session.register_repo_root(str(e2e.cwd / "pkg"))
        with pytest.raises(cs.ControlRequestError, match="not a subdirectory"):
            await session.register_repo_root(str(e2e.home))
    assert isinstance(root, c.RegisterRepoRootResponse)
    assert Path(root.directory) == (e2e.cwd / "pkg").resolve()


# ======================================================================================
# MCP: mcp_call, mcp_read_resource, set_mcp_permission_mode_override


async def test_mcp_call_runs_a_tool_of_a_stdio_server(e2e: E2E) -> None:
    async with cs.open_session(probe_options(e2e), transport=e2e.transport()) as session:
        plain = await session.mcp_call("mcp__probe__add", {"a": 2, "b": 3})
        raw = await session.mcp_call("mcp__probe__add", {"a": 2, "b": 3}, result_not_for_model=True)
        with pytest.raises(cs.ControlRequestError) as unknown:
            await session.mcp_call("mcp__probe__missing")
        with pytest.raises(cs.ControlRequestError) as no_server:
            await session.mcp_call("mcp__nowhere__x")
    assert isinstance(plain, c.McpCallResponse)
    assert plain.structured_content == {"result": 5}
    assert plain.is_error is None
    assert plain.staging is None
    assert raw.content == [{"type": "text", "text": "5"}]
    assert raw.text == "5"
    assert unknown.value.error == "Unknown tool: missing"
    assert no_server.value.error == "MCP server not connected: nowhere"


async def test_mcp_call_a_failing_tool_with_and_without_soft_error_result(e2e: E2E) -> None:
    async with cs.open_session(probe_options(e2e), transport=e2e.transport()) as session:
        with pytest.raises(cs.ControlRequestError) as hard:
            await session.mcp_call("mcp__probe__boom", {"reason": "x"})
        staged = await session.mcp_call("mcp__probe__boom", {"reason": "x"}, timeout_ms=10_000)
        if session.server_info.supports(SOFT_ERRORS):
            soft = await session.mcp_call(
                "mcp__probe__boom", {"reason": "x"}, soft_error_result=True
            )
            assert soft.is_error is True
            assert soft.text == hard.value.error
        else:
            sent_before = len(e2e.transports[-1].sent())
            with pytest.raises(cs.ClaudeSDKError) as unsupported:
                await session.mcp_call("mcp__probe__boom", soft_error_result=True)
            assert unsupported.value.kind == "unsupported"
            assert not isinstance(unsupported.value, cs.ControlRequestError)
            assert len(e2e.transports[-1].sent()) == sent_before  # nothing was sent
            # Why: such a CLI ignores the field and answers the failure as a control error.
            with pytest.raises(cs.ControlRequestError):
                raw = c.McpCallRequest(tool="mcp__probe__boom", soft_error_result=True)
                await session.request(raw)
        after = await session.mcp_call("mcp__probe__add", {"a": 1, "b": 1})
    assert hard.value.subtype == "mcp_call"
    assert "boom" in hard.value.error
    assert staged.staging is not None
    assert staged.staging.ok is False
    assert staged.staging.error_code == "tool_error"
    assert after.structured_content == {"result": 2}


async def test_mcp_call_refuses_an_in_process_server(e2e: E2E) -> None:
    @tool
    async def echo(text: str) -> str:
        """Echo."""
        return text

    options = e2e.options(mcp_servers={"local": create_sdk_mcp_server("local", tools=[echo])})
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("hi")  # the CLI connects in-process servers for a turn
        async for _message in session.receive_response():
            pass
        with pytest.raises(cs.ControlRequestError) as refused:
            await session.mcp_call("mcp__local__echo", {"text": "hi"})
    assert "does not support SDK MCP servers" in refused.value.error


async def test_mcp_read_resource_reads_a_ui_resource(e2e: E2E) -> None:
    async with cs.open_session(probe_options(e2e), transport=e2e.transport()) as session:
        await session.mcp_call("mcp__probe__add", {"a": 0, "b": 0})  # the server is connected
        answer = await session.mcp_read_resource("probe", "ui://probe/panel")
        with pytest.raises(cs.ControlRequestError, match="ui:// scheme"):
            await session.mcp_read_resource("probe", "file:///etc/hostname")
        with pytest.raises(cs.ControlRequestError, match="Server not found: nowhere"):
            await session.mcp_read_resource("nowhere", "ui://x")
    assert isinstance(answer, c.McpReadResourceResponse)
    (item,) = answer.contents or []
    assert (item.uri, item.mime_type, item.text) == (
        "ui://probe/panel",
        "text/html",
        "<p>panel</p>",
    )


async def test_set_mcp_permission_mode_override(e2e: E2E) -> None:
    async with cs.open_session(probe_options(e2e), transport=e2e.transport()) as session:
        known = await session.set_mcp_permission_mode_override("probe", "default")
        cleared = await session.set_mcp_permission_mode_override("probe", None)
        unknown = await session.set_mcp_permission_mode_override("nowhere", "auto")
        with pytest.raises(cs.ControlRequestError, match="tighten-only"):
            await session.set_mcp_permission_mode_override("probe", "bypassPermissions")  # type: ignore[arg-type]
    assert isinstance(known, c.SetMcpPermissionModeOverrideResponse)
    assert known.warning is None
    assert cleared.warning is None
    assert unknown.warning is not None
    assert "'nowhere' is not yet known" in unknown.warning


# ======================================================================================
# reinitialize


async def test_reinitialize_keeps_hooks_and_servers_working(e2e: E2E) -> None:
    calls: list[str] = []

    async def pre_bash(hook_input: Any, context: HookContext) -> dict[str, Any]:
        calls.append(hook_input.tool_input["command"])
        return {}

    e2e.api.reply(tool_use=("Bash", {"command": "echo hooked", "description": "say"}))
    e2e.api.reply(text="done")
    hooks = {"PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[pre_bash])]}
    options = probe_options(e2e, hooks=hooks, allowed_tools=["Bash"])
    async with cs.open_session(options, transport=e2e.transport()) as session:
        first = session.server_info
        fresh = await session.reinitialize()
        assert session.server_info is fresh
        await session.send("run it")
        async for message in session.receive_response():
            if isinstance(message, cs.ResultMessage):
                assert message.result == "done"
        after = await session.mcp_call("mcp__probe__add", {"a": 20, "b": 22})
    assert fresh is not first
    assert fresh.pid == first.pid
    assert fresh.hooks_applied is True
    assert fresh.capabilities == first.capabilities
    assert fresh.sandbox_enabled in (None, True, False, "unknown")
    assert "sandbox_enabled" not in fresh.extra
    assert calls == ["echo hooked"]
    assert after.structured_content == {"result": 42}


async def test_reinitialize_during_a_turn_lets_the_turn_finish(e2e: E2E) -> None:
    e2e.api.reply(text="word " * 200, delay=0.02)
    options = e2e.options(include_partial_messages=True)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("a story")
        fresh = None
        async for message in session.receive_response():
            streaming = isinstance(message, cs.StreamEvent) and message.event.get("type") == (
                "content_block_delta"
            )
            if fresh is None and streaming:
                fresh = await session.reinitialize()
            if isinstance(message, cs.ResultMessage):
                result = message
        assert fresh is not None
        assert result.subtype == "success"
        assert (result.result or "").count("word") == 200
        with anyio.fail_after(20):
            assert await session.wait_until_idle()


# ======================================================================================
# answers the CLIs extend: read_file's requested_path


async def test_read_file_answers_the_requested_path(e2e: E2E) -> None:
    (e2e.cwd / "a.txt").write_text("hello")
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        answer = await session.read_file("a.txt")
    assert answer.requested_path == "a.txt"
    assert answer.contents == "hello"
    assert answer.abs_path == str((e2e.cwd / "a.txt").resolve())


# ======================================================================================
# options: debug output on stderr, tool_config


async def test_debug_output_reaches_the_stderr_callback(e2e: E2E) -> None:
    lines: list[str] = []
    options = e2e.options(debug=True, stderr=lines.append)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("hi")
        async for _message in session.receive_response():
            pass
        tail = session.stderr_tail
    debug = [line for line in lines if "[DEBUG]" in line]
    assert len(debug) > 10
    assert "[DEBUG]" in tail
    assert not (e2e.home / ".claude" / "debug").exists()  # nothing went to the file


async def test_debug_to_stderr_false_writes_the_cli_debug_file(e2e: E2E) -> None:
    lines: list[str] = []
    options = e2e.options(debug=True, debug_to_stderr=False, stderr=lines.append)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        await session.send("hi")
        async for _message in session.receive_response():
            pass
    assert not [line for line in lines if "[DEBUG]" in line]
    logs = [p for p in (e2e.home / ".claude" / "debug").iterdir() if p.suffix == ".txt"]
    assert any("[DEBUG]" in p.read_text() for p in logs)


async def test_tool_config_sets_the_ask_user_question_preview_format(e2e: E2E) -> None:
    async def allow(tool_name: str, tool_input: dict[str, Any], context: Any) -> cs.PermissionAllow:
        return cs.PermissionAllow()

    descriptions = {}
    for name, config in (
        ("html", ToolConfig(ask_user_question=AskUserQuestionConfig(preview_format="html"))),
        ("unset", None),
    ):
        options = e2e.options(can_use_tool=allow, tool_config=config)
        async with cs.open_session(options, transport=e2e.transport()) as session:
            await session.send("hi")
            async for _message in session.receive_response():
                pass
        request = e2e.api.main_requests[-1]
        (ask,) = [t for t in request.body["tools"] if t.get("name") == "AskUserQuestion"]
        descriptions[name] = json.dumps(ask)
    assert "self-contained HTML" in descriptions["html"]
    assert "self-contained HTML" not in descriptions["unset"]
