"""SIGTERM is a cancellation (issue 28, item 6): `claude_sdk.cancel_on_signals`.

A host process runs a session (a scripted CLI as a real subprocess, a `DirectoryStore`, the
batched flush) inside ``cancel_on_signals()`` and is sent SIGTERM (or SIGINT) mid-turn. It
ends within the grace with the signal's exit code: its CLI has ended, and the store holds the
lines the CLI wrote before the signal (the close stored them). Also as PID 1 of a PID
namespace, the way a container runs it: there SIGTERM has no default action, and the host
used to wait out the orchestrator's grace. Without the helper, the same host dies at once on
SIGTERM and the store has nothing of the turn.

This module imports nothing relative: the scripted CLI loads its script from this file.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.testing import ScriptedCLI
from claude_sdk.testing.stdio import write_fake_cli

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

SCRIPT = f"{Path(__file__).resolve()}:mirroring_cli"
LINES = 5


async def mirroring_cli(cli: ScriptedCLI) -> None:
    """Mirrors ``LINES`` transcript lines of the turn, then thinks for a long time.

    An assistant frame follows the mirror: once the host has it, the SDK has read the mirror
    (frames are read in order), so the lines are the host's to store."""
    await cli.handshake()
    cli.mirror_turns = False
    async for _prompt in cli.iter_prompts():
        await cli.state("running")
        entries = [
            {"type": "user", "uuid": f"30000000-0000-4000-8000-{n:012d}", "sessionId": SESSION}
            for n in range(LINES)
        ]
        # A process of its own: its HOME and working directory are the real ones.
        slug = history.project_slug(os.path.realpath(os.getcwd()))  # noqa: ASYNC240
        path = f"{os.environ['HOME']}/.claude/projects/{slug}/{SESSION}.jsonl"
        await cli.send({"type": "transcript_mirror", "filePath": path, "entries": entries})
        Path(os.environ["PID_FILE"]).write_text(str(os.getpid()))  # noqa: ASYNC240
        await cli.assistant("thinking")
        await anyio.sleep(300)


SESSION = cs.session_id_for("stop-signals")

HOST = textwrap.dedent(
    """
    import json, sys, anyio
    import claude_sdk as cs
    from claude_sdk.stores import DirectoryStore

    async def main(config):
        options = cs.Options(
            cli_path=config["cli"], cwd=config["cwd"], env={"PID_FILE": config["pid_file"]},
            session_store=DirectoryStore(config["store"]), session_id=config["session"],
            shutdown_grace=2.0,
        )
        if config["helper"]:
            async with cs.cancel_on_signals() as stop:
                async with cs.open_session(options) as session:
                    await session.send("go")
                    print("SENT", flush=True)
                    async for message in session.receive_response():
                        if isinstance(message, cs.AssistantMessage):
                            print("MIRRORED", flush=True)
            print("STOPPED", stop.signal.name if stop.signal else None, flush=True)
            return stop.exit_code
        async with cs.open_session(options) as session:
            await session.send("go")
            print("SENT", flush=True)
            async for message in session.receive_response():
                if isinstance(message, cs.AssistantMessage):
                    print("MIRRORED", flush=True)
        return 0

    sys.exit(anyio.run(main, json.loads(sys.argv[1])))
    """
)


def _run_host(
    tmp_path: Path, *, helper: bool, how: signal.Signals, pid1: bool
) -> dict[str, object]:
    cli = write_fake_cli(tmp_path / "claude", script=SCRIPT)
    pid_file = tmp_path / "cli.pid"
    store = tmp_path / "store"
    config = {
        "cli": str(cli),
        "cwd": str(tmp_path),
        "pid_file": str(pid_file),
        "store": str(store),
        "session": SESSION,
        "helper": helper,
    }
    argv = [sys.executable, "-c", HOST, json.dumps(config)]
    if pid1:
        argv = ["unshare", "--pid", "--fork", "--kill-child", *argv]
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    host = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert host.stdout is not None
        assert host.stdout.readline().strip() == "SENT"
        # The host has read the mirrored lines (and the CLI wrote its pid before): an event,
        # not a pause that a busy machine may outlast.
        assert host.stdout.readline().strip() == "MIRRORED"
        assert pid_file.exists()
        target = host.pid
        if pid1:  # the host is unshare's child: PID 1 of its namespace
            children = Path(f"/proc/{host.pid}/task/{host.pid}/children").read_text().split()
            target = int(children[0])
        os.kill(target, how)
        with contextlib.suppress(subprocess.TimeoutExpired):
            host.wait(15)  # a hang guard (and, without the helper as PID 1, the wait it ignores)
        code = host.poll()
        out = host.stdout.read() if code is not None else ""
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(30)
        if host.stdout is not None:
            host.stdout.close()
    stored = sorted(store.rglob(f"{SESSION}.jsonl"))
    lines = stored[0].read_text().splitlines() if stored else []
    if pid1:  # the pid the CLI wrote is its pid in the namespace, which ended with its PID 1
        return {"code": code, "out": out, "lines": len(lines), "cli": None}
    cli_pid = int(pid_file.read_text())
    deadline = time.monotonic() + 30  # a hang guard: the loop ends once the CLI is gone
    while _alive(cli_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {"code": code, "out": out, "lines": len(lines), "cli": _alive(cli_pid)}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_cancels_the_sessions_and_the_store_gets_the_turn(
    tmp_path: Path, how: signal.Signals
) -> None:
    found = _run_host(tmp_path, helper=True, how=how, pid1=False)
    assert found["code"] == 128 + int(how), found
    assert f"STOPPED {how.name}" in str(found["out"])
    assert found["lines"] == LINES  # stored at the close
    assert found["cli"] is False


def test_without_the_helper_sigterm_loses_the_turn(tmp_path: Path) -> None:
    found = _run_host(tmp_path, helper=False, how=signal.SIGTERM, pid1=False)
    assert found["code"] == -signal.SIGTERM
    assert found["lines"] == 0


needs_unshare = pytest.mark.skipif(
    shutil.which("unshare") is None or os.geteuid() != 0,
    reason="a PID namespace needs unshare and root",
)


@needs_unshare
def test_as_pid_1_sigterm_stops_the_host_at_once(tmp_path: Path) -> None:
    found = _run_host(tmp_path, helper=True, how=signal.SIGTERM, pid1=True)
    assert found["code"] == 128 + int(signal.SIGTERM), found
    assert found["lines"] == LINES


@needs_unshare
def test_as_pid_1_without_the_helper_sigterm_is_ignored(tmp_path: Path) -> None:
    found = _run_host(tmp_path, helper=False, how=signal.SIGTERM, pid1=True)
    assert found["code"] is None  # still running after 15 s: it had to be killed


async def test_the_block_ends_normally_without_a_signal() -> None:
    async with cs.cancel_on_signals() as stop:
        await anyio.lowlevel.checkpoint()
    assert not stop.stopped
    assert stop.exit_code == 0


def test_outside_the_main_thread_it_says_so() -> None:
    async def main() -> None:
        async with cs.cancel_on_signals():
            pass

    errors: list[BaseException] = []

    def run(backend: str) -> None:
        try:
            anyio.run(main, backend=backend)
        except BaseException as exc:  # handed to the test thread
            errors.append(exc)

    for backend in ("asyncio", "trio"):
        thread = threading.Thread(target=run, args=(backend,))
        thread.start()
        thread.join(30)
    assert [type(e) for e in errors] == [RuntimeError, RuntimeError]
    assert all("main thread" in str(e) for e in errors)
