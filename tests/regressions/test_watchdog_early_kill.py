"""A host SIGKILLed just after it spawns the CLI leaves nothing behind (found under Ray).

Before the fix the CLI ran before the watchdog held its process group: the group was put
under the watchdog by a task that ran after the spawn had returned (and the first session
started the watchdog only then). A host killed in that window leaked the CLI and whatever it
had started. Now the CLI cannot run anything before its group is on the lifeline.

Each trial is a real Python process (the host) that opens a session, on asyncio or Trio, on
a fake CLI: a shell script that at once starts ``sleep`` in the background, records both
pids, and waits. The host is SIGKILLed at a random moment of the first second after it
starts the session: a third of the trials 0-3 ms after the CLI has recorded its pids (the
window of the bug lasted milliseconds), a third in the first 50 ms, a third later. Then,
within a bounded wait, no process carrying the trial's token in its environment (the CLI,
its child, anything between them) may be alive: /proc says so, not our code.

Hosts are forked from one launcher that has imported everything already (an import of
``claude_sdk`` costs half a second of CPU; sixty of them would not fit the time budget), a
few at a time. On the code before the fix, 5 to 7 of 30 kills leaked on each event loop.

The gate is also tested step by step: shut, it runs nothing when its stdin closes; opened,
it takes its one line and the CLI gets the rest; and only the gate's own complaint makes an
exit status 126 or 127 a spawn failure.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sys
import textwrap
import uuid
from pathlib import Path

import anyio
import anyio.abc
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

import claude_sdk as cs
from claude_sdk._protocol.launch import build_launch_spec
from claude_sdk.transports import _watchdog
from claude_sdk.transports.subprocess import (
    SubprocessTransport,
    _open_gate,
    _spawn,
    child_environment,
)

from ..support.procs import alive, describe

#: Trials per event loop, and how many hosts run at once (each one is independent).
TRIALS = 30
AT_ONCE = 4
#: Seconds the processes of a killed host's CLI may take to be gone (the watchdog sends
#: SIGTERM as soon as it reads EOF; ``sleep`` and ``sh`` die of it at once). A hang guard,
#: not a measure: left to themselves they live 300 s.
BOUND = 30.0

#: Imports everything and says "ready"; then reads ``CLI TOKEN`` lines, forks a host for
#: each (which opens a session at once) and writes its pid. The kernel reaps the hosts
#: (SIGCHLD ignored here, not in a host).
LAUNCHER = textwrap.dedent(
    """
    import os, signal, sys
    import anyio, trio
    import claude_sdk as cs
    from claude_sdk.transports.subprocess import SubprocessTransport

    backend = sys.argv[1]

    async def host(cli: str, token: str) -> None:
        opts = cs.Options(cli_path=cli, env={"EARLY_KILL_TOKEN": token}, initialize_timeout=60)
        async with cs.open_session(opts, transport=SubprocessTransport()):
            await anyio.sleep_forever()

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    print("ready", flush=True)
    for line in sys.stdin:
        cli, token = line.split()
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            try:
                anyio.run(host, cli, token, backend=backend)
            finally:
                os._exit(1)
        print(pid, flush=True)
    """
)

#: The fake CLI: a child of its own at once, both pids on record, then it waits (stdin EOF
#: does not end it, as a CLI busy with a tool would not end at once either).
CLI = """#!/bin/sh
sleep 300 &
echo "$$ $!" >> "$0.pids"
wait
"""


def carrying(token: str) -> list[int]:
    """Live processes whose environment holds ``EARLY_KILL_TOKEN=token``."""
    needle = f"EARLY_KILL_TOKEN={token}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or a zombie
            continue
        if needle in environ.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def plan(count: int, rng: random.Random) -> list[tuple[str, float]]:
    """When to kill each host: a third of them 0-3 ms after their CLI has recorded its pids
    (a black-box sign that the spawn is done), a third 0-50 ms after "go", a third 50 ms to
    a second after "go"."""
    kinds = [("cli", 0.0, 0.003), ("go", 0.0, 0.05), ("go", 0.05, 1.0)]
    trials = [(k, rng.uniform(low, high)) for _ in range(count // 3) for k, low, high in kinds]
    trials += [("go", rng.uniform(0.0, 1.0)) for _ in range(count - len(trials))]
    rng.shuffle(trials)
    return trials


def recorded(pids: Path) -> bool:
    return pids.exists()


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


def make_cli(directory: Path) -> Path:
    directory.mkdir()
    return executable(directory / "claude", CLI)


class Launcher:
    """The launcher process, one trial at a time asking it for a host."""

    def __init__(self, process: anyio.abc.Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.stdin = process.stdin
        self.stdout = BufferedByteReceiveStream(process.stdout)
        self.lock = anyio.Lock()

    async def ready(self) -> None:
        """Wait until the launcher has imported everything."""
        with anyio.fail_after(60):
            assert await self.stdout.receive_until(b"\n", 100) == b"ready"

    async def host(self, cli: Path, token: str) -> tuple[int, float]:
        """A new host's pid, and when it was asked for (it opens its session at once)."""
        async with self.lock:
            await self.stdin.send(f"{cli} {token}\n".encode())
            go = anyio.current_time()
            return int(await self.stdout.receive_until(b"\n", 100)), go


async def trial(
    launcher: Launcher, directory: Path, kind: str, delay: float
) -> tuple[float, list[str]]:
    """One host killed ``delay`` s after it was asked for (``kind`` "go") or after its CLI
    recorded its pids ("cli"; a second after "go" at the latest); the ms from "go" to the
    kill, and the processes its CLI left (described)."""
    cli = make_cli(directory)
    pids = Path(f"{cli}.pids")
    token = uuid.uuid4().hex
    with anyio.fail_after(30):
        pid, go = await launcher.host(cli, token)
        if kind == "cli":
            with anyio.move_on_after(1.0):
                # No event exists for "a file appeared": poll it, finely (the window this
                # test is about lasted a few milliseconds).
                while not recorded(pids):  # noqa: ASYNC110
                    await anyio.sleep(0.0005)
        await anyio.sleep(max(0.0, go + delay - anyio.current_time()) if kind == "go" else delay)
        os.kill(pid, signal.SIGKILL)  # no code of ours runs in the host after this
        killed_at = anyio.current_time() - go
        # No event exists for "an unrelated process has exited": poll /proc briefly.
        while alive(pid):  # noqa: ASYNC110
            await anyio.sleep(0.005)
    left = carrying(token)
    with anyio.move_on_after(BOUND):
        while left:
            await anyio.sleep(0.02)
            left = carrying(token)
    described = [describe(pid) for pid in left]
    for pid in left:  # leave nothing running, whatever the verdict
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return killed_at, described


@pytest.mark.timeout(240)  # 30 kills; about 5 s on a quiet machine, 45 s at load 40
async def test_a_host_killed_in_its_first_second_leaves_no_cli_behind(
    tmp_path: Path, anyio_backend: str
) -> None:
    rng = random.Random()
    seed = rng.randrange(2**32)
    rng.seed(seed)
    results: list[tuple[float, list[str]]] = []
    trials = plan(TRIALS, rng)

    argv = [sys.executable, "-c", LAUNCHER, anyio_backend]
    async with await anyio.open_process(argv, stderr=None) as process:
        launcher = Launcher(process)
        await launcher.ready()

        async def run(index: int, kind: str, delay: float) -> None:
            results.append(await trial(launcher, tmp_path / f"t{index}", kind, delay))

        for start in range(0, TRIALS, AT_ONCE):
            async with anyio.create_task_group() as tg:
                for index in range(start, min(start + AT_ONCE, TRIALS)):
                    tg.start_soon(run, index, *trials[index])
        await launcher.stdin.aclose()  # the launcher's loop ends: it exits
        with anyio.fail_after(10):
            await process.wait()
    leaks = [(round(at * 1000, 1), left) for at, left in sorted(results) if left]
    assert len(results) == TRIALS
    assert leaks == [], f"seed {seed}: {len(leaks)}/{TRIALS} kills leaked (ms after go, left)"


# --------------------------------------------------------------------------------------
# The gate itself, step by step (deterministic: each step waits for a process to exit)

#: A CLI that records that it ran, and what reached its stdin.
RECORDER = """#!/bin/sh
cat > "$0.stdin"
"""


def read_if_any(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


def cmdline(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")


async def exec_done(pid: int, program: bytes) -> list[bytes]:
    """The command line of ``pid`` once it has exec'd ``program``.

    Right after the spawn returns, the child may still be between fork and exec (its
    command line is empty, or the parent's); on a loaded machine that lasts a while.
    """
    while (line := cmdline(pid))[0] != program:  # noqa: ASYNC110 (a process, no event)
        await anyio.sleep(0.01)
    return line


async def gated_recorder(tmp_path: Path) -> tuple[Path, anyio.abc.Process, int, int]:
    """The recorder spawned through the gate, which is left shut."""
    cli = executable(tmp_path / "claude", RECORDER)
    spec = build_launch_spec(cs.Options(cli_path=str(cli)))
    process, stdin_fd, stdout_fd = await _spawn(spec, child_environment(spec), gate=True)
    return Path(f"{cli}.stdin"), process, stdin_fd, stdout_fd


async def test_a_gate_whose_stdin_closes_runs_nothing(tmp_path: Path) -> None:
    """The host died before opening the gate: the CLI never runs."""
    record, process, stdin_fd, stdout_fd = await gated_recorder(tmp_path)
    try:
        with anyio.fail_after(10):
            waiting = await exec_done(process.pid, _watchdog.SHELL.encode())
    finally:
        os.close(stdin_fd)
        os.close(stdout_fd)
    async with process:
        with anyio.fail_after(10):
            status = await process.wait()
    assert waiting[:2] == [_watchdog.SHELL.encode(), b"-c"]  # it was waiting at the gate
    assert status == 125
    assert read_if_any(record) is None


async def test_an_opened_gate_runs_the_cli_with_the_rest_of_stdin(tmp_path: Path) -> None:
    """The gate takes its line and nothing more; the CLI keeps the gate's pid."""
    record, process, stdin_fd, stdout_fd = await gated_recorder(tmp_path)
    pid = process.pid
    try:
        _open_gate(stdin_fd)
        os.write(stdin_fd, b'{"type":"user"}\n\nsecond\n')
    finally:
        os.close(stdin_fd)
        os.close(stdout_fd)
    async with process:
        with anyio.fail_after(10):
            status = await process.wait()
    assert status == 0
    assert process.pid == pid
    assert read_if_any(record) == b'{"type":"user"}\n\nsecond\n'


async def test_a_cli_that_exits_127_by_itself_is_no_spawn_failure(tmp_path: Path) -> None:
    """Only the gate's own complaint makes a 126/127 a spawn failure."""
    cli = executable(tmp_path / "claude", "#!/bin/sh\necho 'sh: 1: x: not found' >&2\nexit 127\n")
    opts = cs.Options(cli_path=str(cli), initialize_timeout=10)
    with pytest.raises(cs.ProcessError) as info:
        async with cs.open_session(opts, transport=SubprocessTransport()):
            pass
    assert info.value.kind != "spawn"
    assert info.value.exit_code == 127
