"""The DEBUG log a user debugs with: one logger per area under ``claude_sdk``, a line per
turn, per control request (both directions) and per CLI start and exit, with durations and
outcomes, and never a secret (issue 16, item 8).

Sessions run on FakeCLI (asyncio and Trio) and, for the process lines, on the local
subprocess transport with ``tests/support/fake_claude.py``.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk._protocol.launch import argv_for_log
from claude_sdk.hooks import HookContext
from claude_sdk.permissions import ToolPermissionContext
from claude_sdk.testing import NO_ANSWER, FakeCLI, ScriptedCLI
from claude_sdk.transports.subprocess import SubprocessTransport

FAKE = Path(__file__).resolve().parent / "support" / "fake_claude.py"

#: Values that must never reach a log record (shaped like what they stand for).
PROMPT_SECRET = "sk-ant-api03-PROMPT-0123456789abcdefXYZ"
TOOL_SECRET = "sk-ant-api03-TOOLINPUT-9876543210fedcbaQRS"
ENV_SECRET = "sk-ant-api03-ENVVALUE-00112233445566778899"
ARGV_SECRET = "sk-ant-api03-ARGVVALUE-a1b2c3d4e5f6a7b8c9d0"
SECRETS = (PROMPT_SECRET, TOOL_SECRET, ENV_SECRET, ARGV_SECRET)

AREAS = {
    "claude_sdk.session",
    "claude_sdk.protocol",
    "claude_sdk.transport",
    "claude_sdk.pool",
    "claude_sdk.history",
    "claude_sdk.telemetry",
    "claude_sdk.mcp",
}

MS = r"[0-9]+\.[0-9] ms"


def _ours(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("claude_sdk")]


def _lines(caplog: pytest.LogCaptureFixture, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger]


def _one(lines: list[str], pattern: str) -> re.Match[str]:
    found = [m for line in lines if (m := re.fullmatch(pattern, line))]
    assert len(found) == 1, (pattern, lines)
    return found[0]


def _assert_no_secret(caplog: pytest.LogCaptureFixture) -> None:
    for record in caplog.records:
        # The message, its arguments as objects, and anything attached to the record.
        seen = " ".join([record.getMessage(), repr(record.args), repr(record.__dict__)])
        for secret in SECRETS:
            assert secret not in seen, (secret, record.name, record.getMessage())


async def _allow(
    tool: str, tool_input: dict[str, Any], context: ToolPermissionContext
) -> cs.PermissionAllow | cs.PermissionDeny:
    return cs.PermissionAllow()


async def _block_rm(hook_input: Any, context: HookContext) -> dict[str, Any]:
    return {"hookSpecificOutput": {"permissionDecision": "deny"}}


async def test_a_session_logs_turns_requests_callbacks_and_the_cli(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="claude_sdk")

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        # Read runs (PreToolUse matches Bash only, so Read goes to can_use_tool); Bash is
        # denied by its hook.
        await cli.turn(
            text="Done.",
            tools=[("Read", {"file_path": TOOL_SECRET}), ("Bash", {"command": TOOL_SECRET})],
        )
        await cli.serve_until_stdin_closes()

    options = cs.Options(
        env={"MY_TOKEN": ENV_SECRET},
        can_use_tool=_allow,
        hooks={"PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[_block_rm])]},
    )
    fake = FakeCLI(script)
    async with cs.open_session(options, transport=fake) as session:
        await session.set_model("opus")
        await session.send(f"Please use {PROMPT_SECRET} carefully")
        messages = [m async for m in session.receive_response()]
    assert isinstance(messages[-1], cs.ResultMessage)
    [prompt] = [f for f in fake.received if isinstance(f, cs.UserMessage)]

    protocol = _lines(caplog, "claude_sdk.protocol")
    start = _one(protocol, r"turn started: prompt (\S+) \(([0-9]+) bytes\)")
    assert start[1] == prompt.uuid
    end = _one(
        protocol,
        r"turn ended: result success after [0-9.]+ s \(CLI: [0-9]+ ms, [0-9]+ turns, "
        r"cost \$[0-9.]+\); prompts (\S+)",
    )
    assert end[1] == prompt.uuid

    session_lines = _lines(caplog, "claude_sdk.session")
    _one(session_lines, rf"control request set_model req_\S+: success after {MS}")
    _one(session_lines, rf"control request initialize req_\S+: success after {MS}")
    _one(session_lines, rf"can_use_tool \S+ \(tool Read\): allow after {MS}")
    _one(
        session_lines,
        rf"hook_callback \S+ \(PreToolUse hook hook_0 \S*block_rm, tool Bash\): "
        rf"permission_decision deny after {MS}",
    )

    transport = _lines(caplog, "claude_sdk.transport")
    _one(transport, r"started the in-memory CLI: claude --output-format .*")
    _one(transport, r"the in-memory CLI exited: exit code 0, after [0-9.]+ s")

    names = {r.name for r in _ours(caplog)}
    assert names >= {"claude_sdk.session", "claude_sdk.protocol", "claude_sdk.transport"}
    assert names <= AREAS
    _assert_no_secret(caplog)


async def test_control_request_outcomes(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="claude_sdk")

    async def script(cli: ScriptedCLI) -> None:
        def refuse(request: object) -> object:
            raise FakeCLI.Error("no such mode", code="invalid_mode")

        cli.on_request("set_permission_mode", refuse)
        cli.on_request("get_settings", lambda request: NO_ANSWER)
        cli.on_request("reload_skills", lambda request: NO_ANSWER)
        await cli.handshake()
        await cli.serve_until_stdin_closes()

    options = cs.Options(control_timeout=0.2)
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.interrupt()
        with pytest.raises(cs.ControlRequestError):
            await session.set_permission_mode("nonsense")
        with pytest.raises(cs.ControlTimeoutError):
            await session.get_settings()
        with anyio.move_on_after(0.05):
            await session.reload_skills()

    lines = _lines(caplog, "claude_sdk.session")
    _one(lines, rf"control request interrupt req_\S+: success after {MS}")
    _one(lines, rf"control request set_permission_mode req_\S+: error \(invalid_mode\) after {MS}")
    timeout = _one(lines, rf"control request get_settings req_\S+: timeout after ({MS})")
    assert float(timeout[1].split()[0]) >= 150  # the 0.2 s it waited
    _one(lines, rf"control request reload_skills req_\S+: cancelled after {MS}")
    for subtype in ("interrupt", "set_permission_mode", "get_settings", "reload_skills"):
        _one(lines, rf"control request {subtype} req_\S+ sent")


async def test_inbound_errors_denials_and_withdrawals(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="claude_sdk")
    started = anyio.Event()
    after = anyio.Event()

    async def deny_or_wait(
        tool: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> cs.PermissionAllow | cs.PermissionDeny:
        if tool == "Slow":
            started.set()
            await anyio.sleep_forever()
        if tool == "After":
            after.set()
        return cs.PermissionDeny(message="no")

    async def broken(hook_input: Any, context: HookContext) -> None:
        raise RuntimeError("a broken hook")

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.can_use_tool("Write", {"content": TOOL_SECRET})
        await cli.hook_callback("hook_0", {"tool_name": "Bash", "tool_input": {}})
        request_id = await cli.start_can_use_tool("Slow", {"path": TOOL_SECRET})
        await started.wait()
        await cli.cancel_request(request_id)
        # Served after the withdrawal was read: the session leaves once this one is seen.
        await cli.can_use_tool("After", {})
        await cli.serve_until_stdin_closes()

    options = cs.Options(
        can_use_tool=deny_or_wait,
        hooks={"PreToolUse": [cs.HookMatcher(hooks=[broken])]},
    )
    async with cs.open_session(options, transport=FakeCLI(script)):
        with anyio.fail_after(5):
            await after.wait()

    lines = _lines(caplog, "claude_sdk.session")
    _one(lines, rf"can_use_tool \S+ \(tool Write\): deny after {MS}")
    # A PreToolUse hook that fails denies (failing closed), and says so.
    _one(
        lines,
        rf"hook_callback \S+ \(PreToolUse hook hook_0 \S*broken, tool Bash\): "
        rf"permission_decision deny after {MS}",
    )
    _one(lines, rf"can_use_tool \S+ \(tool Slow\): withdrawn by the CLI after {MS}")
    _assert_no_secret(caplog)


async def test_debug_turned_on_mid_session_applies_from_the_next_prompt(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="claude_sdk")

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for _ in range(2):
            await cli.next_prompt()
            await cli.turn(text="Done.", tools=[("Read", {"file_path": "/etc/hostname"})])
        await cli.serve_until_stdin_closes()

    options = cs.Options(can_use_tool=_allow)
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.send("one")
        [m async for m in session.receive_response()]
        assert _lines(caplog, "claude_sdk.session") == []
        caplog.set_level(logging.DEBUG, logger="claude_sdk")
        await session.send("two")
        [m async for m in session.receive_response()]
    lines = _lines(caplog, "claude_sdk.session")
    _one(lines, rf"can_use_tool \S+ \(tool Read\): allow after {MS}")
    _one(_lines(caplog, "claude_sdk.protocol"), r"turn started: prompt \S+ \([0-9]+ bytes\)")


async def test_nothing_below_info_when_debug_is_off(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="claude_sdk")
    async with cs.open_session(transport=FakeCLI(replies=["Hi."])) as session:
        await session.send("hello")
        [m async for m in session.receive_response()]
    assert [r for r in _ours(caplog) if r.levelno < logging.INFO] == []


async def test_the_cli_process_start_and_exit(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="claude_sdk")
    options = cs.Options(
        cli_path=str(FAKE),
        env={"FAKE_CLAUDE": "", "MY_TOKEN": ENV_SECRET},
        extra_args={"api-key": ARGV_SECRET, "debug-to-stderr": None},
    )
    async with cs.open_session(options, transport=SubprocessTransport()) as session:
        pid = session.pid
        await session.send(PROMPT_SECRET)
        [m async for m in session.receive_response()]
    transport = _lines(caplog, "claude_sdk.transport")
    start = _one(transport, rf"started the CLI \(pid {pid}\): fake_claude\.py (.*)")
    flags = start[1].split()
    assert {"--output-format", "--input-format", "--api-key", "--debug-to-stderr"} <= set(flags)
    assert all(flag.startswith("-") for flag in flags)
    _one(transport, rf"the CLI \(pid {pid}\) exited: exit code 0, after [0-9.]+ s")
    _assert_no_secret(caplog)


def test_argv_for_log_shows_flag_names_only() -> None:
    argv = [
        "/opt/tools/claude",
        "--model=opus",
        f"--api-key={ARGV_SECRET}",
        "--verbose",
        ARGV_SECRET,
        f"-{ARGV_SECRET}",
        "--model=sonnet",
        "-p",
    ]
    assert argv_for_log(argv) == "claude --model --api-key --verbose -p"
    assert argv_for_log([]) == "?"


def test_every_logger_is_a_child_of_claude_sdk() -> None:
    import claude_sdk._mcp_bridge
    import claude_sdk._protocol.protocol
    import claude_sdk._session.core
    import claude_sdk.history
    import claude_sdk.pool
    import claude_sdk.telemetry
    import claude_sdk.transports.subprocess

    modules = {
        claude_sdk._session.core: "claude_sdk.session",
        claude_sdk._protocol.protocol: "claude_sdk.protocol",
        claude_sdk.transports.subprocess: "claude_sdk.transport",
        claude_sdk.pool: "claude_sdk.pool",
        claude_sdk.history: "claude_sdk.history",
        claude_sdk.telemetry: "claude_sdk.telemetry",
        claude_sdk._mcp_bridge: "claude_sdk.mcp",
    }
    for module, name in modules.items():
        logger = module.logger
        assert logger.name == name
        assert logger.parent is logging.getLogger("claude_sdk")
