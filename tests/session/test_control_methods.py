"""The typed control methods of issue 18 (item 3), driven through FakeCLI (asyncio and trio).

Each method is checked for the request it writes (the wire shape CLI 2.1.330/2.1.331 read)
and the typed answer it returns, with the fake's default answers (shaped like the real CLI's)
and with scripted ones; ``reinitialize`` also against an open turn and a registered hook.
The same methods run against both real CLIs in ``tests/e2e/test_control_surface_e2e.py``.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk import control as c
from claude_sdk import wire
from claude_sdk._protocol.launch import build_launch_spec
from claude_sdk._protocol.protocol import Protocol
from claude_sdk.hooks import HookContext
from claude_sdk.options import AskUserQuestionConfig, ToolConfig
from claude_sdk.testing import NO_ANSWER, FakeCLI, ScriptedCLI
from claude_sdk.testing.fake_cli import SOFT_ERROR_RESULT_CAPABILITY


def requests_of(fake: FakeCLI, subtype: str) -> list[dict[str, Any]]:
    """The ``request`` objects of the SDK's control requests of ``subtype``, as written."""
    out = []
    for record in fake.log:
        frame = json.loads(record.line)
        if frame.get("type") == "control_request" and frame["request"]["subtype"] == subtype:
            out.append(frame["request"])
    return out


# ======================================================================================
# Default answers: typed, and shaped like the real CLI's


async def test_reload_output_styles_is_typed() -> None:
    fake = FakeCLI()
    async with cs.open_session(transport=fake) as session:
        answer = await session.reload_output_styles()
    assert isinstance(answer, c.ReloadOutputStylesResponse)
    assert answer.available_output_styles == session.server_info.available_output_styles
    assert requests_of(fake, "reload_output_styles") == [{"subtype": "reload_output_styles"}]


async def test_get_hooks_listing_is_typed_and_reads_camel_case() -> None:
    listing = {
        "events": [
            {"name": "PreToolUse", "summary": "Before", "supportsMatcher": True, "hookCount": 1}
        ],
        "hooks": [
            {
                "event": "PreToolUse",
                "matcher": "Bash",
                "source": "projectSettings",
                "sourceLabel": "Project settings (.claude/settings.json)",
                "type": "command",
                "displayText": "true",
                "commandText": "true",
                "contentLabel": "Command",
                "editable": {"matcher": "Bash", "config": {"type": "command", "command": "true"}},
            }
        ],
        "eventCatalog": [{"name": "PreToolUse", "summary": "Before", "supportsMatcher": True}],
        "policy": {
            "disabledByPolicy": False,
            "managedOnly": False,
            "pluginOnly": False,
            "allDisabled": False,
            "policyHookCount": 2,
        },
        "safeMode": {"managedHooksStillApply": True, "exitHint": "restart"},
    }
    fake = FakeCLI()
    async with cs.open_session(transport=fake) as session:
        default = await session.get_hooks_listing()
        fake.cli.on_request("get_hooks_listing", lambda request: listing)
        scripted = await session.get_hooks_listing()
    assert default.hooks == []
    assert default.event_catalog
    assert default.policy is not None
    assert all(isinstance(e, c.HookEventInfo) for e in default.event_catalog)
    (row,) = scripted.hooks or []
    assert isinstance(row, c.HookListingEntry)
    assert (row.source_label, row.display_text, row.command_text) == (
        "Project settings (.claude/settings.json)",
        "true",
        "true",
    )
    assert scripted.events is not None
    assert scripted.events[0].hook_count == 1
    assert scripted.policy is not None
    assert scripted.policy.policy_hook_count == 2
    assert scripted.safe_mode == {"managedHooksStillApply": True, "exitHint": "restart"}
    assert wire.drift(scripted) == []
    assert wire.to_dict(scripted) == listing


async def test_background_tasks_sends_the_tool_use_id_only_when_given() -> None:
    fake = FakeCLI()
    async with cs.open_session(transport=fake) as session:
        every = await session.background_tasks()
        one = await session.background_tasks("toolu_123")
    assert isinstance(every, c.BackgroundTasksResponse)
    assert every.backgrounded is None
    assert one.backgrounded is False
    assert requests_of(fake, "background_tasks") == [
        {"subtype": "background_tasks"},
        {"subtype": "background_tasks", "tool_use_id": "toolu_123"},
    ]


async def test_update_settings_writes_the_request_and_surfaces_refusals() -> None:
    fake = FakeCLI()
    async with cs.open_session(transport=fake) as session:
        await session.update_settings("localSettings", {"outputStyle": "Explanatory"})
        with pytest.raises(cs.ControlRequestError) as caught:
            await session.update_settings("userSettings", {"outputStyle": "x"})
    assert caught.value.subtype == "update_settings"
    assert caught.value.error == "update_settings keys not allowed: outputStyle"
    assert requests_of(fake, "update_settings")[0] == {
        "subtype": "update_settings",
        "source": "localSettings",
        "settings": {"outputStyle": "Explanatory"},
    }


async def test_seed_read_state_sends_path_and_milliseconds() -> None:
    fake = FakeCLI()
    async with cs.open_session(transport=fake) as session:
        await session.seed_read_state("/w/a.txt", 1795627227350)
    assert requests_of(fake, "seed_read_state") == [
        {"subtype": "seed_read_state", "path": "/w/a.txt", "mtime": 1795627227350}
    ]


async def test_register_repo_root_answers_the_resolved_root_and_refuses_repeats() -> None:
    fake = FakeCLI()
    options = cs.Options(cwd="/w")
    async with cs.open_session(options, transport=fake) as session:
        root = await session.register_repo_root("sub", reload_skills=True)
        with pytest.raises(cs.ControlRequestError, match="already a registered"):
            await session.register_repo_root("/w/sub")
        with pytest.raises(cs.ControlRequestError, match="not a subdirectory"):
            await session.register_repo_root("/elsewhere")
    assert isinstance(root, c.RegisterRepoRootResponse)
    assert root.directory == "/w/sub"
    assert requests_of(fake, "register_repo_root")[0] == {
        "subtype": "register_repo_root",
        "directory": "sub",
        "reload_skills": True,
    }


async def test_set_mcp_permission_mode_override_sends_null_to_clear() -> None:
    fake = FakeCLI()
    async with cs.open_session(transport=fake) as session:
        pinned = await session.set_mcp_permission_mode_override("files", "default")
        cleared = await session.set_mcp_permission_mode_override("files", None)
        with pytest.raises(cs.ControlRequestError, match="tighten-only"):
            await session.set_mcp_permission_mode_override("files", "bypassPermissions")  # type: ignore[arg-type]
    assert isinstance(pinned, c.SetMcpPermissionModeOverrideResponse)
    assert pinned.warning is not None
    assert "'files' is not yet known" in pinned.warning
    assert cleared.warning is None
    sent = requests_of(fake, "set_mcp_permission_mode_override")
    assert sent[1] == {
        "subtype": "set_mcp_permission_mode_override",
        "serverName": "files",
        "mode": None,
    }


async def test_mcp_read_resource_is_typed() -> None:
    body = {
        "contents": [
            {
                "uri": "ui://probe/panel",
                "mimeType": "text/html",
                "text": "<p/>",
                "_meta": {"ui": {}},
            }
        ]
    }
    fake = FakeCLI()
    async with cs.open_session(transport=fake) as session:
        with pytest.raises(cs.ControlRequestError, match="ui:// scheme"):
            await session.mcp_read_resource("probe", "file:///x")
        with pytest.raises(cs.ControlRequestError, match="Server not found: probe"):
            await session.mcp_read_resource("probe", "ui://probe/panel")
        fake.cli.on_request("mcp_read_resource", lambda request: body)
        answer = await session.mcp_read_resource("probe", "ui://probe/panel")
    assert isinstance(answer, c.McpReadResourceResponse)
    (item,) = answer.contents or []
    assert (item.uri, item.mime_type, item.text, item.meta) == (
        "ui://probe/panel",
        "text/html",
        "<p/>",
        {"ui": {}},
    )
    assert requests_of(fake, "mcp_read_resource")[-1] == {
        "subtype": "mcp_read_resource",
        "serverName": "probe",
        "uri": "ui://probe/panel",
    }


# ======================================================================================
# mcp_call


async def test_mcp_call_control_errors_keep_the_cli_message_and_code() -> None:
    fake = FakeCLI()
    async with cs.open_session(transport=fake) as session:
        with pytest.raises(cs.ControlRequestError) as not_connected:
            await session.mcp_call("mcp__files__read", {"path": "a"})
        with pytest.raises(cs.ControlRequestError, match="Not a fully-qualified"):
            await session.mcp_call("read")

        def refuse(request: c.McpCallRequest) -> None:
            raise FakeCLI.Error("refused", "mcp_call_refusal_limit")

        fake.cli.on_request("mcp_call", refuse)
        with pytest.raises(cs.ControlRequestError) as coded:
            await session.mcp_call("mcp__files__read")
    assert not_connected.value.subtype == "mcp_call"
    assert not_connected.value.error == "MCP server not connected: files"
    assert (coded.value.error, coded.value.error_code) == ("refused", "mcp_call_refusal_limit")


async def test_mcp_call_writes_every_field_and_types_the_answer() -> None:
    seen: list[c.McpCallRequest] = []

    def answer(request: c.McpCallRequest) -> dict[str, Any]:
        seen.append(request)
        return {
            "content": [{"type": "text", "text": "5"}],
            "structuredContent": {"result": 5},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "calc"}},
            "staging": {"ok": True, "outputs": [], "inputs_used": []},
        }

    fake = FakeCLI()
    async with cs.open_session(transport=fake) as session:
        fake.cli.on_request("mcp_call", answer)
        result = await session.mcp_call(
            "mcp__calc__add",
            {"a": 2, "b": 3},
            timeout_ms=5000,
            result_not_for_model=True,
            check_permissions=True,
        )
    assert isinstance(result, c.McpCallResponse)
    assert result.text == "5"
    assert result.structured_content == {"result": 5}
    assert result.meta == {"io.modelcontextprotocol/serverInfo": {"name": "calc"}}
    assert result.is_error is None
    assert isinstance(result.staging, c.McpCallStaging)
    assert result.staging.ok is True
    assert requests_of(fake, "mcp_call") == [
        {
            "subtype": "mcp_call",
            "tool": "mcp__calc__add",
            "arguments": {"a": 2, "b": 3},
            "timeout_ms": 5000,
            "result_not_for_model": True,
            "check_permissions": True,
        }
    ]
    assert seen[0].soft_error_result is None


async def test_soft_error_result_without_the_capability_raises_and_sends_nothing() -> None:
    fake = FakeCLI()  # CLI 2.1.330's capabilities
    async with cs.open_session(transport=fake) as session:
        assert not session.server_info.supports(SOFT_ERROR_RESULT_CAPABILITY)
        with pytest.raises(cs.ClaudeSDKError) as caught:
            await session.mcp_call("mcp__calc__fail", soft_error_result=True)
    assert caught.value.kind == "unsupported"
    assert not isinstance(caught.value, cs.ControlRequestError)
    assert SOFT_ERROR_RESULT_CAPABILITY in str(caught.value)
    assert requests_of(fake, "mcp_call") == []


async def test_soft_error_result_with_the_capability_gives_the_error_result() -> None:
    def answer(request: c.McpCallRequest) -> dict[str, Any]:
        if request.soft_error_result:
            return {"content": [{"type": "text", "text": "boom"}], "isError": True}
        raise FakeCLI.Error("boom")

    capabilities = ["mcp_call_result_not_for_model_v1", SOFT_ERROR_RESULT_CAPABILITY]
    fake = FakeCLI(capabilities=capabilities)
    async with cs.open_session(transport=fake) as session:
        fake.cli.on_request("mcp_call", answer)
        soft = await session.mcp_call("mcp__calc__fail", soft_error_result=True)
        with pytest.raises(cs.ControlRequestError, match="boom"):
            await session.mcp_call("mcp__calc__fail")
    assert soft.is_error is True
    assert soft.text == "boom"
    sent = requests_of(fake, "mcp_call")
    assert sent[0]["soft_error_result"] is True
    assert "soft_error_result" not in sent[1]


async def test_mcp_call_waits_longer_than_control_timeout_for_a_staged_call() -> None:
    release = anyio.Event()

    async def slow(request: c.McpCallRequest) -> dict[str, Any]:
        await release.wait()
        return {"content": "ok", "staging": {"ok": True, "outputs": [], "inputs_used": []}}

    fake = FakeCLI()
    options = cs.Options(control_timeout=0.2)
    async with cs.open_session(options, transport=fake) as session:
        fake.cli.on_request("mcp_call", slow)
        async with anyio.create_task_group() as tg:

            async def later() -> None:
                await anyio.sleep(0.5)  # past control_timeout: the staged call still waits
                release.set()

            tg.start_soon(later)
            answer = await session.mcp_call("mcp__x__y", timeout_ms=1000)
        assert answer.text == "ok"
        fake.cli.on_request("mcp_call", lambda request: NO_ANSWER)
        with pytest.raises(cs.ControlTimeoutError):
            await session.mcp_call("mcp__x__y", timeout=0.1)


# ======================================================================================
# reinitialize


async def test_reinitialize_resends_the_same_request_and_updates_server_info() -> None:
    async def noop(hook_input: Any, context: HookContext) -> dict[str, Any]:
        return {}

    fake = FakeCLI()
    options = cs.Options(hooks={"Stop": [cs.HookMatcher(hooks=[noop])]}, title="t")
    async with cs.open_session(options, transport=fake) as session:
        first = session.server_info
        fake.cli.capabilities.append(SOFT_ERROR_RESULT_CAPABILITY)
        fresh = await session.reinitialize()
        assert session.server_info is fresh
    assert isinstance(fresh, c.InitializeResponse)
    assert not first.supports(SOFT_ERROR_RESULT_CAPABILITY)
    assert fresh.supports(SOFT_ERROR_RESULT_CAPABILITY)
    one, two = requests_of(fake, "initialize")
    assert one == two
    assert one["hooks"] == {"Stop": [{"matcher": None, "hookCallbackIds": ["hook_0"]}]}


async def test_reinitialize_during_a_turn_keeps_the_turn_and_the_hooks() -> None:
    calls: list[str] = []

    async def stop_hook(hook_input: Any, context: HookContext) -> dict[str, Any]:
        calls.append(type(hook_input).__name__)
        return {}

    reinitialized = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()

        def on_initialize(request: c.InitializeRequest) -> Any:
            answer = cli.default_answer(request)
            reinitialized.set()
            return answer

        cli.on_request("initialize", on_initialize)
        await cli.state("running")
        await cli.assistant(text="halfway")
        with anyio.fail_after(10):
            await reinitialized.wait()
        out = await cli.hook_callback(cli.hook_id("Stop"), {"stop_hook_active": False})
        assert out == {}
        await cli.result(text="done")
        await cli.state("idle")
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    options = cs.Options(hooks={"Stop": [cs.HookMatcher(hooks=[stop_hook])]})
    async with cs.open_session(options, transport=fake) as session:
        await session.send("go")
        messages: list[cs.Message] = []
        async for message in session.receive_response():
            messages.append(message)
            if isinstance(message, cs.AssistantMessage):
                assert session._core.protocol.turn_open
                await session.reinitialize()
        assert isinstance(messages[-1], cs.ResultMessage)
        assert messages[-1].result == "done"
        with anyio.fail_after(5):
            assert await session.wait_until_idle()
    assert calls == ["StopInput"]
    assert len(requests_of(fake, "initialize")) == 2


async def test_reinitialize_times_out_with_initialize_timeout() -> None:
    fake = FakeCLI()
    options = cs.Options(initialize_timeout=0.2)
    async with cs.open_session(options, transport=fake) as session:
        fake.cli.on_request("initialize", lambda request: NO_ANSWER)
        with pytest.raises(cs.InitializeTimeoutError):
            await session.reinitialize()
        assert (await session.reload_output_styles()).available_output_styles  # still usable


async def test_reinitialize_refuses_an_answer_that_cannot_block_on_hook_failure() -> None:
    async def hook(hook_input: Any, context: HookContext) -> dict[str, Any]:
        return {}

    fake = FakeCLI()
    matcher = cs.HookMatcher(matcher="Bash", hooks=[hook], on_failure="block")
    options = cs.Options(hooks={"PreToolUse": [matcher]})
    async with cs.open_session(options, transport=fake) as session:

        def old_cli(request: c.InitializeRequest) -> Any:
            answer = fake.cli.default_answer(request)
            assert answer is not None
            del answer["hook_on_failure_supported"]
            return answer

        fake.cli.on_request("initialize", old_cli)
        with pytest.raises(cs.ClaudeSDKError) as caught:
            await session.reinitialize()
    assert caught.value.kind == "unsupported"


def test_the_protocol_takes_a_second_initialize_answer() -> None:
    protocol = Protocol()
    answers = []
    for version in ("2.1.330", "2.1.331"):
        request_id, _line = protocol.send_request(c.InitializeRequest())
        body: dict[str, Any] = {
            "commands": [],
            "claude_code_version": version,
            "sandbox_enabled": "unknown",
        }
        line = json.dumps(
            {
                "type": "control_response",
                "response": {"subtype": "success", "request_id": request_id, "response": body},
            }
        ).encode()
        (event,) = protocol.receive_lines([line])
        answers.append(event.value)
    assert [a.claude_code_version for a in answers] == ["2.1.330", "2.1.331"]
    assert answers[1].sandbox_enabled == "unknown"
    assert protocol.pending_requests == []


# ======================================================================================
# Typed answers: what the CLIs add


def test_initialize_response_knows_sandbox_enabled_and_the_other_declared_fields() -> None:
    body = {
        "sandbox_enabled": False,
        "current_model": "claude-opus-5-5",
        "unavailable_models": [{"value": "fable"}],
        "code_running_mcp_tools_applied": {"srv": ["t"]},
        "claude_in_chrome_at_startup": False,
        "capabilities": ["a"],
    }
    answer = wire.decode_response("initialize", body)
    assert isinstance(answer, c.InitializeResponse)
    assert answer.sandbox_enabled is False
    assert wire.drift(answer) == []
    assert answer.supports("a")
    assert not answer.supports("b")
    assert wire.to_dict(answer) == body


def test_read_file_response_keeps_requested_path() -> None:
    body = {"requested_path": "a.txt", "contents": "hello", "absPath": "/w/a.txt", "lossy": False}
    answer = wire.decode_response("read_file", body)
    assert isinstance(answer, c.ReadFileResponse)
    assert (answer.requested_path, answer.abs_path) == ("a.txt", "/w/a.txt")
    assert wire.drift(answer) == []
    assert wire.to_dict(answer) == body


# ======================================================================================
# The sync facade forwards the new methods


def test_the_sync_facade_forwards_the_control_methods() -> None:
    fake = FakeCLI()
    with cs.sync.open_session(transport=fake) as session:
        styles = session.reload_output_styles()
        info = session.reinitialize()
        with pytest.raises(cs.ControlRequestError):
            session.mcp_call("mcp__x__y")
    assert isinstance(styles, c.ReloadOutputStylesResponse)
    assert isinstance(info, c.InitializeResponse)


# ======================================================================================
# Options that reach the CLI: debug_to_stderr, tool_config


@pytest.mark.parametrize(
    ("kwargs", "flags"),
    [
        ({}, []),
        ({"debug": True}, ["--debug", "--debug-to-stderr"]),
        ({"debug": "hooks,mcp"}, ["--debug=hooks,mcp", "--debug-to-stderr"]),
        ({"debug": True, "debug_to_stderr": False}, ["--debug"]),
        ({"debug_to_stderr": True}, ["--debug-to-stderr"]),
        ({"debug": True, "debug_file": "/tmp/d.log"}, ["--debug", "--debug-file=/tmp/d.log"]),
        ({"debug_file": "/tmp/d.log"}, ["--debug-file=/tmp/d.log"]),
    ],
)
def test_debug_output_goes_to_stderr_unless_a_file_is_named(
    kwargs: dict[str, Any], flags: list[str]
) -> None:
    argv = build_launch_spec(cs.Options(**kwargs)).argv
    assert [a for a in argv if a.startswith("--debug")] == flags


def test_debug_to_stderr_and_debug_file_conflict() -> None:
    with pytest.raises(cs.OptionsError) as caught:
        cs.Options(debug_to_stderr=True, debug_file="/tmp/d.log")
    assert caught.value.option == "debug_to_stderr"


def test_tool_config_becomes_the_variables_the_cli_reads() -> None:
    config = ToolConfig(
        ask_user_question=AskUserQuestionConfig(
            preview_format="html", extended_questions=True, optional_descriptions=False
        )
    )
    spec = build_launch_spec(
        cs.Options(tool_config=config, env={"CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS": "1"})
    )
    assert spec.env["CLAUDE_CODE_QUESTION_PREVIEW_FORMAT"] == "html"
    assert spec.env["CLAUDE_CODE_QUESTION_EXTENDED"] == "1"
    assert "CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS" not in spec.env
    assert "CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS" in spec.unset_env
    assert list(spec.env)[-1] == "CLAUDE_AGENT_SDK_VERSION"
    untouched = build_launch_spec(cs.Options())
    assert not any(k.startswith("CLAUDE_CODE_QUESTION") for k in untouched.env)
    assert not any(k.startswith("CLAUDE_CODE_QUESTION") for k in untouched.unset_env)


def test_tool_config_takes_the_typescript_sdk_spelling() -> None:
    options = cs.Options(tool_config={"askUserQuestion": {"previewFormat": "markdown"}})
    assert options.tool_config == ToolConfig(
        ask_user_question=AskUserQuestionConfig(preview_format="markdown")
    )
    bads: list[Any] = [{"nope": {}}, {"ask_user_question": {"preview_format": "pdf"}}, 3]
    for bad in bads:
        with pytest.raises(cs.OptionsError) as caught:
            cs.Options(tool_config=bad)
        assert caught.value.option == "tool_config"
