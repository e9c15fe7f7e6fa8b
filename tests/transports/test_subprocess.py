"""SubprocessTransport with real processes: a fake ``claude`` executable (tests/support)."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.transports.subprocess import SubprocessTransport

from ..support.procs import alive, wait_dead

FAKE = Path(__file__).resolve().parent.parent / "support" / "fake_claude.py"
MB = 1024 * 1024


def options(behaviour: str = "", **kwargs: object) -> cs.Options:
    env = {"FAKE_CLAUDE": behaviour}
    return cs.Options(cli_path=str(FAKE), env=env, **kwargs)  # type: ignore[arg-type]


async def test_a_turn_over_a_real_process() -> None:
    transport = SubprocessTransport()
    async with cs.open_session(options(), transport=transport) as session:
        assert session.pid is not None
        assert session.server_info is not None
        assert session.server_info.pid is not None
        await session.send("hello")
        messages = [m async for m in session.receive_response()]
    assert isinstance(messages[-1], cs.ResultMessage)
    assert messages[-1].result == "done"
    assert session.returncode == 0


async def test_ten_megabytes_of_stderr_do_not_deadlock() -> None:
    seen: list[str] = []
    opts = options(f"stderr_flood={10 * MB}", stderr=seen.append, initialize_timeout=30)
    with anyio.fail_after(30):
        reply = await cs.ask("hi", options=opts, transport=SubprocessTransport())
    assert reply.text == "done"
    assert len(seen) >= 10 * MB // 1024  # every line reached the callback


async def test_a_100_megabyte_stdout_line_arrives_intact() -> None:
    size = 100 * MB
    with anyio.fail_after(60):
        reply = await cs.ask(
            "hi", options=options(f"big_line={size}"), transport=SubprocessTransport()
        )
    big = [m for m in reply.messages if isinstance(m, cs.AssistantMessage)]
    assert len(big) == 1
    text = big[0].text
    assert len(text) == size
    assert text[0] == "y"
    assert text[-1] == "y"


async def test_a_line_over_the_limit_ends_the_session_with_a_typed_error() -> None:
    opts = options(f"big_line={2 * MB}", max_line_bytes=MB)
    with pytest.raises(cs.LineTooLongError) as info:
        await cs.ask("hi", options=opts, transport=SubprocessTransport())
    assert info.value.limit == MB
    assert info.value.size > MB


async def test_a_slow_consumer_does_not_stall_control_traffic() -> None:
    answered = anyio.Event()
    calls: list[str] = []

    async def allow(
        name: str, tool_input: dict[str, object], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionAllow:
        calls.append(str(tool_input["command"]))
        if len(calls) == 5:
            answered.set()
        return cs.PermissionAllow()

    opts = options("flood=1000,ask=5", can_use_tool=allow)
    async with cs.open_session(opts, transport=SubprocessTransport()) as session:
        await session.send("go")
        with anyio.fail_after(20):
            await answered.wait()  # nobody has read a single message yet
        messages = [m async for m in session.receive_response()]
    assert calls == [f"echo {i}" for i in range(1, 6)]
    assert sum(isinstance(m, cs.AssistantMessage) for m in messages) == 1000


def _grandchild(lines: list[str]) -> int:
    for line in lines:
        if line.startswith("grandchild="):
            return int(line.split("=", 1)[1])
    raise AssertionError(f"no grandchild pid in {lines}")


async def test_no_process_survives_a_cancelled_session() -> None:
    lines: list[str] = []
    opts = options("grandchild,ignore_term", stderr=lines.append, shutdown_grace=0.3)
    pids: list[int] = []
    started = time.monotonic()
    with anyio.CancelScope() as scope:
        async with cs.open_session(opts, transport=SubprocessTransport()) as session:
            assert session.pid is not None
            assert session.server_info is not None
            assert session.server_info.pid is not None
            pids += [session.pid, session.server_info.pid]
            await session.send("go")
            scope.cancel()
            await anyio.sleep_forever()
    elapsed = time.monotonic() - started
    pids.append(_grandchild(lines))
    # EOF ignored -> 0.3 s grace -> SIGTERM ignored -> 2 s -> SIGKILL: bounded.
    assert elapsed < 0.3 + 2 + 3
    assert await wait_dead(pids) == []


async def test_the_cli_ends_with_the_sdk_process_even_when_it_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "host.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import anyio, sys
            import claude_sdk as cs
            from claude_sdk.transports.subprocess import SubprocessTransport
            lines = []
            async def main():
                opts = cs.Options(cli_path={str(FAKE)!r}, env={{"FAKE_CLAUDE": "grandchild"}},
                                  stderr=lines.append)
                async with cs.open_session(opts, transport=SubprocessTransport()) as s:
                    while not any(l.startswith("grandchild=") for l in lines):
                        await anyio.sleep(0.01)
                    g = [l for l in lines if l.startswith("grandchild=")][0].split("=")[1]
                    print(s.pid, s.server_info.pid, g, flush=True)
                    await anyio.sleep_forever()
            anyio.run(main)
            """
        )
    )
    async with await anyio.open_process([sys.executable, str(script)]) as host:
        assert host.stdout is not None
        data = b""
        with anyio.fail_after(20):
            while not data.endswith(b"\n"):
                data += await host.stdout.receive()
        pids = [int(p) for p in data.split()]
        assert all(alive(p) for p in pids)
        host.send_signal(signal.SIGKILL)  # no cleanup code of ours runs
        await host.wait()
    assert await wait_dead(pids, timeout=10) == []


async def test_a_cli_that_exits_at_once_is_a_process_error() -> None:
    with pytest.raises(cs.ProcessError) as info:
        async with cs.open_session(options("exit_now=2"), transport=SubprocessTransport()):
            pytest.fail("the session must not start")
    assert info.value.exit_code == 2
    assert "refuses to start" in info.value.stderr_tail


async def test_exit_mid_turn_is_a_process_error_with_stderr() -> None:
    async with cs.open_session(options("exit=3"), transport=SubprocessTransport()) as session:
        await session.send("go")
        with pytest.raises(cs.ProcessError) as info:
            async for _ in session.receive_response():
                pass
    assert info.value.exit_code == 3
    assert "boom" in info.value.stderr_tail


async def test_a_missing_working_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(cs.ProcessError) as info:
        async with cs.open_session(
            options(cwd=str(tmp_path / "nope")), transport=SubprocessTransport()
        ):
            pass
    assert info.value.kind == "spawn"
    assert "does not exist" in str(info.value)


async def test_a_non_executable_cli_is_a_clear_error(tmp_path: Path) -> None:
    cli = tmp_path / "claude"
    cli.write_text("#!/bin/sh\n")
    cli.chmod(0o644)
    with pytest.raises(cs.ProcessError) as info:
        async with cs.open_session(cs.Options(cli_path=str(cli)), transport=SubprocessTransport()):
            pass
    assert "not an executable" in str(info.value)


async def test_a_missing_cli_is_cli_not_found(tmp_path: Path) -> None:
    with pytest.raises(cs.CLINotFoundError) as info:
        async with cs.open_session(
            cs.Options(cli_path=str(tmp_path / "claude")), transport=SubprocessTransport()
        ):
            pass
    assert str(tmp_path / "claude") in str(info.value)


def test_environment_drops_claudecode(monkeypatch: pytest.MonkeyPatch) -> None:
    from claude_sdk._protocol.launch import build_launch_spec
    from claude_sdk.transports.subprocess import child_environment

    monkeypatch.setenv("CLAUDECODE", "1")
    env = child_environment(build_launch_spec(cs.Options(cwd="/tmp")))
    assert "CLAUDECODE" not in env
    assert env["PWD"] == "/tmp"
    assert env["CLAUDE_CODE_ENTRYPOINT"] == "sdk-py"
    assert os.environ["CLAUDECODE"] == "1"  # the parent's environment is not touched
