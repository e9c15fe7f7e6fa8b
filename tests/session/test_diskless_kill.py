"""Diskless leaves nothing, even when the host is killed (issue 28, item 5).

A host process opens a diskless session (a store, a private configuration directory with a
copy of the credentials) on a scripted CLI run as a real subprocess, and is then killed with
SIGKILL, or stopped with SIGTERM (Python's default: it dies at once, no ``finally`` runs), at
a moment of the session's life: while the CLI starts, mid-turn, between turns. 5 seconds
later nothing is left: no ``claude-sdk-diskless-*`` directory in its temporary directory, no
CLI. (It stayed, with the transcript and the credentials copy, after host, Temporal-worker,
Dask-worker and Kubernetes kills.) The watchdog, which outlives the host, holds the
directory from before it exists.

This module imports nothing relative: the scripted CLI loads its script from this file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest

from claude_sdk.testing import ScriptedCLI
from claude_sdk.testing.stdio import write_fake_cli

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the watchdog is POSIX")

SCRIPT = f"{Path(__file__).resolve()}:slow_cli"
#: Seconds after the kill by which nothing may be left (a hang guard, not a measure: the
#: loop below ends as soon as all is gone).
AFTER = 30.0


async def slow_cli(cli: ScriptedCLI) -> None:
    """Answers each prompt slowly, mirroring a transcript line first (a turn in progress)."""
    await cli.handshake()
    async for prompt in cli.iter_prompts():
        await cli.send({"type": "system", "subtype": "status", "status": "requesting"})
        Path(os.environ["PID_FILE"]).write_text(str(os.getpid()))  # noqa: ASYNC240
        await anyio.sleep(30)  # the model thinks
        await cli.turn(text=f"answer to {prompt.text}")


HOST = textwrap.dedent(
    """
    import json, sys, anyio
    import claude_sdk as cs
    from claude_sdk.stores import MemoryStore

    async def main(config):
        options = cs.Options(cli_path=config["cli"], diskless=True, session_store=MemoryStore(),
                             env={"PID_FILE": config["pid_file"]}, cwd=config["cwd"])
        async with cs.open_session(options) as session:
            print("CONFIG", session.options.env["CLAUDE_CONFIG_DIR"], flush=True)
            if config["moment"] == "mid-turn":
                await session.send("go")
                print("SENT", flush=True)
            await anyio.sleep(300)

    anyio.run(main, json.loads(sys.argv[1]))
    """
)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
@pytest.mark.parametrize("moment", ["idle", "mid-turn"])
def test_a_killed_host_leaves_no_diskless_directory(
    tmp_path: Path, how: signal.Signals, moment: str
) -> None:
    cli = write_fake_cli(tmp_path / "claude", script=SCRIPT)
    temp = tmp_path / "tmp"
    temp.mkdir()
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".claude" / ".credentials.json").write_text('{"token": "secret"}')
    pid_file = tmp_path / "cli.pid"
    config = {"cli": str(cli), "pid_file": str(pid_file), "cwd": str(tmp_path), "moment": moment}
    env = {**os.environ, "TMPDIR": str(temp), "HOME": str(tmp_path / "home")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, json.dumps(config)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert host.stdout is not None
        line = host.stdout.readline()
        assert line.startswith("CONFIG "), line
        private = Path(line.split(" ", 1)[1].strip())
        assert private.parent == temp
        assert (private / ".credentials.json").exists()  # the copy the CLI reads
        if moment == "mid-turn":
            assert host.stdout.readline().strip() == "SENT"
            deadline = time.monotonic() + 30
            while not pid_file.exists():
                assert time.monotonic() < deadline
                time.sleep(0.01)
        host.send_signal(how)
        host.wait(30)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(30)
        if host.stdout is not None:
            host.stdout.close()
    deadline = time.monotonic() + AFTER
    while list(temp.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(temp.iterdir()) == []  # the directory, the transcript, the credentials copy
    if pid_file.exists():
        cli_pid = int(pid_file.read_text())
        while _alive(cli_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(cli_pid)


def test_a_session_that_closes_releases_the_directory(tmp_path: Path) -> None:
    """The watchdog stands down when the last session closes: it holds nothing stale."""
    code = textwrap.dedent(
        """
        import anyio, claude_sdk as cs
        from claude_sdk.stores import MemoryStore
        from claude_sdk.testing import FakeCLI
        from claude_sdk.transports import _watchdog

        async def main():
            options = cs.Options(diskless=True, session_store=MemoryStore())
            async with cs.open_session(options, transport=FakeCLI()) as session:
                held = set(_watchdog._shared.directories)
                assert held == {session.options.env["CLAUDE_CONFIG_DIR"]}, held
            assert _watchdog._shared.directories == set()
            assert _watchdog.shared_pid() is None
            print("OK")

        anyio.run(main)
        """
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.stdout.strip() == "OK", out.stderr
    assert list(tmp_path.iterdir()) == []
