"""SubprocessTransport with real processes: a fake ``claude`` executable (tests/support)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import anyio.abc
import anyio.lowlevel
import pytest

import claude_sdk as cs
from claude_sdk.transports import _watchdog
from claude_sdk.transports._fdio import FdLineConnection
from claude_sdk.transports.subprocess import SubprocessTransport

from ..support.procs import alive, descendants, wait_dead

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
    # EOF ignored -> 0.3 s grace -> SIGTERM ignored -> 2 s -> SIGKILL: without the SIGKILL the
    # block never ends (a hang guard, not a measure).
    with anyio.fail_after(60), anyio.CancelScope() as scope:
        async with cs.open_session(opts, transport=SubprocessTransport()) as session:
            assert session.pid is not None
            assert session.server_info is not None
            assert session.server_info.pid is not None
            pids += [session.pid, session.server_info.pid]
            await session.send("go")
            scope.cancel()
            await anyio.sleep_forever()
    pids.append(_grandchild(lines))
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


def watchdogs() -> list[int]:
    """The watchdogs among this process's live descendants."""
    found = []
    for pid in descendants():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"claude-sdk-watchdog" in cmdline:
            found.append(pid)
    return found


def gone(pid: int) -> bool:
    """True once ``pid`` has exited *and* been reaped (a zombie is not gone)."""
    return not os.path.exists(f"/proc/{pid}")


async def wait_for_watchdog() -> int:
    """The watchdog's pid once it runs (it is started without anybody waiting for it)."""
    with anyio.fail_after(10):
        # No event exists for "a grandchild process appeared": poll /proc briefly.
        while not (found := watchdogs()):  # noqa: ASYNC110
            await anyio.sleep(0.01)
    assert len(found) == 1, found
    return found[0]


async def test_the_cli_runs_directly_under_the_sdk_with_a_watchdog_beside_it() -> None:
    async with cs.open_session(options(), transport=SubprocessTransport()) as session:
        assert session.pid is not None
        assert session.server_info is not None
        assert session.server_info.pid == session.pid  # no supervisor in between
        assert os.getpgid(session.pid) == session.pid  # it leads its own group
        watchdog = await wait_for_watchdog()
        assert os.getpgid(watchdog) != session.pid  # not in the group it would end
        assert os.getsid(watchdog) == watchdog  # a session of its own
        # Nothing of ours is inherited: only the lifeline and /dev/null. (The script opens
        # a descriptor of its own for a moment while it takes a ``-@dir`` line, a here-
        # document: wait that out; an inherited descriptor would never go.)
        with anyio.fail_after(10):
            while sorted(os.listdir(f"/proc/{watchdog}/fd")) != ["0", "1", "2"]:  # noqa: ASYNC110
                await anyio.sleep(0.01)
    assert not alive(watchdog)
    assert watchdogs() == []


async def test_a_clean_close_stands_the_watchdog_down() -> None:
    """The CLI ends on stdin EOF by itself (exit 0): the watchdog kills nothing, and is
    reaped (no zombie left). What the CLI left in its group (holding stdout open) gets
    SIGTERM as soon as the CLI exits, so the close does not wait for stdout to end: the grace
    is an hour, and a close that waited it out would fail the test (pytest-timeout)."""
    lines: list[str] = []
    opts = options("grandchild", stderr=lines.append, shutdown_grace=3600.0)
    async with cs.open_session(opts, transport=SubprocessTransport()) as session:
        await session.send("hello")
        async for _ in session.receive_response():
            pass
        watchdog = await wait_for_watchdog()
    assert session.returncode == 0  # not a signal
    assert gone(watchdog)  # exited and reaped
    assert await wait_dead([_grandchild(lines)]) == []


async def _group_and_watchdog(*argv: str) -> tuple[anyio.abc.Process, _watchdog.Watchdog]:
    group = await anyio.open_process(list(argv), start_new_session=True)
    watchdog = _watchdog.Watchdog()
    await watchdog.run(group.pid, 0.5)
    assert watchdog.pid is not None
    assert alive(watchdog.pid)
    return group, watchdog


async def test_the_watchdog_stands_down_on_the_line() -> None:
    group, watchdog = await _group_and_watchdog("sleep", "60")
    pid = watchdog.pid
    assert pid is not None
    async with group:
        try:
            await watchdog.stand_down()
            assert watchdog.pid is None
            assert gone(pid)  # exited (the last group stood down), and reaped
            with anyio.move_on_after(1):
                await group.wait()  # nothing comes to end it
            assert group.returncode is None
        finally:
            group.kill()


@pytest.mark.parametrize(
    ("argv", "fate"),
    [
        (["sleep", "60"], -signal.SIGTERM),
        (["sh", "-c", "trap '' TERM; echo ready; sleep 60"], -signal.SIGKILL),  # after grace
    ],
    ids=["term", "kill"],
)
async def test_the_watchdog_ends_the_group_at_eof_without_the_line(
    argv: list[str], fate: int
) -> None:
    group, watchdog = await _group_and_watchdog(*argv)
    async with group:
        try:
            if "ready" in argv[-1]:  # the trap is set before the watchdog's TERM can come
                assert group.stdout is not None
                with anyio.fail_after(10):
                    assert (await group.stdout.receive()).startswith(b"ready")
            _sdk_dies()
            with anyio.fail_after(10):
                assert await group.wait() == fate
            await watchdog.stand_down()  # reaps the watchdog, which has exited
        finally:
            with contextlib.suppress(ProcessLookupError):
                group.kill()
    assert watchdogs() == []


def _is_zombie(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return stat[stat.rindex(b")") + 2 :].startswith(b"Z")


def _sdk_dies() -> None:
    """What the kernel does to the lifeline when the SDK process dies: its write end closes.

    The number is forgotten too, so that nothing later writes to whatever reuses it.
    """
    os.close(_watchdog._shared.write_fd)
    _watchdog._shared.write_fd = -1


@pytest.fixture(autouse=True)
def _no_watchdog_left() -> Iterator[None]:
    """A test that fails half-way leaves no watchdog state for the next one in this process."""
    yield
    shared = _watchdog._shared
    if shared.process is not None or shared.groups or shared.directories:
        if shared.process is not None and shared.process.poll() is None:
            shared.process.kill()
            shared.process.wait()
        if shared.write_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(shared.write_fd)
        _watchdog._shared = _watchdog._Shared()


async def test_sessions_open_at_once_share_one_watchdog_and_the_last_reaps_it() -> None:
    async with cs.open_session(options(), transport=SubprocessTransport()) as first:
        watchdog = await wait_for_watchdog()
        async with cs.open_session(options(), transport=SubprocessTransport()) as second:
            assert first.pid != second.pid
            with anyio.fail_after(10):
                while _watchdog._shared.groups != {first.pid, second.pid}:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            assert watchdogs() == [watchdog]
        assert watchdogs() == [watchdog]  # still watching the first
        assert _watchdog._shared.groups == {first.pid}
    assert gone(watchdog)
    assert watchdogs() == []


async def test_a_watchdog_that_died_is_replaced_and_takes_over_every_open_group() -> None:
    first, watchdog1 = await _group_and_watchdog("sleep", "60")
    async with first:
        try:
            old = watchdog1.pid
            assert old is not None
            os.kill(old, signal.SIGKILL)  # somebody kills it
            with anyio.fail_after(10):
                while not _is_zombie(old):  # noqa: ASYNC110 (no event for "it died")
                    await anyio.sleep(0.01)
            second, watchdog2 = await _group_and_watchdog("sleep", "60")
            async with second:
                try:
                    assert watchdog2.pid is not None
                    assert watchdog2.pid != old
                    assert gone(old)  # the dead one was reaped on the way
                    _sdk_dies()  # the new one ends both groups
                    with anyio.fail_after(10):
                        assert await first.wait() == -signal.SIGTERM
                        assert await second.wait() == -signal.SIGTERM
                    await watchdog1.stand_down()
                    await watchdog2.stand_down()
                finally:
                    with contextlib.suppress(ProcessLookupError):
                        second.kill()
        finally:
            with contextlib.suppress(ProcessLookupError):
                first.kill()
    assert watchdogs() == []


async def test_a_forked_child_does_not_hold_the_lifeline() -> None:
    """A child made by fork (multiprocessing) must not keep the lifeline open: the watchdog
    would then miss the SDK's death for as long as the child lives."""
    group, watchdog = await _group_and_watchdog("sleep", "60")
    async with group:
        try:
            lifeline = _watchdog._shared.write_fd
            pid = os.fork()
            if pid == 0:  # the child: is the lifeline open here?
                try:
                    os.fstat(lifeline)
                except OSError:
                    os._exit(0)
                os._exit(1)
            _, status = await anyio.to_thread.run_sync(os.waitpid, pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
            await watchdog.stand_down()
        finally:
            group.kill()


async def test_a_cli_killed_by_a_signal_reports_it() -> None:
    async with cs.open_session(options("flood=100000"), transport=SubprocessTransport()) as s:
        await s.send("go")
        async for _ in s.receive_messages():
            break  # mid-turn
        assert s.pid is not None
        os.kill(s.pid, signal.SIGKILL)
        with pytest.raises(cs.ProcessError) as info:
            async for _ in s.receive_messages():
                pass
    assert info.value.signal == signal.SIGKILL
    assert s.returncode == -signal.SIGKILL


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


async def test_a_cli_that_cannot_be_executed_fails_at_once(tmp_path: Path) -> None:
    """The spawn itself fails (a file the system cannot execute, ENOEXEC): a clear error, at
    once, with nothing left behind (the watchdog's pipe closed, no watchdog started). A
    missing ``#!`` interpreter is caught before the spawn (tests/regressions)."""
    cli = tmp_path / "claude"
    cli.write_bytes(b"\x00\x01 not a program\n")
    cli.chmod(0o755)
    fds = set(os.listdir("/proc/self/fd"))
    # At once, not after the initialize timeout: that is an hour here, so a spawn failure
    # noticed only by the timeout would fail the test (pytest-timeout) rather than pass.
    opts = cs.Options(cli_path=str(cli), initialize_timeout=3600.0)
    with pytest.raises(cs.ProcessError) as info:
        async with cs.open_session(opts, transport=SubprocessTransport()):
            pass
    assert info.value.kind == "spawn"  # the spawn failed, not a timeout
    assert "exec format error" in str(info.value)
    assert set(os.listdir("/proc/self/fd")) <= fds
    assert watchdogs() == []


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


# --------------------------------------------------------------------------------------
# the connection's own pipe I/O (FdLineConnection), on bare pipes


class PipeConnection(FdLineConnection):
    async def wait(self) -> int | None:
        return None


class Pipes:
    """A `FdLineConnection` on two fresh pipes, and the far ends (blocking) for the test."""

    def __init__(self) -> None:
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        os.set_blocking(stdin_w, False)
        os.set_blocking(stdout_r, False)
        self.conn = PipeConnection(stdin_w, stdout_r, max_line_bytes=64 * MB)
        self.cli_stdin = stdin_r  # what the "CLI" reads
        self.cli_stdout = stdout_w  # what the "CLI" writes

    async def read_until_eof(self) -> bytes:
        """Everything the connection writes, until it closes stdin (in a thread)."""

        def read() -> bytes:
            chunks = []
            while chunk := os.read(self.cli_stdin, MB):
                chunks.append(chunk)
            return b"".join(chunks)

        return await anyio.to_thread.run_sync(read)

    def close(self) -> None:
        self.conn.close()
        with contextlib.suppress(OSError):
            os.close(self.cli_stdin)
        with contextlib.suppress(OSError):
            os.close(self.cli_stdout)


@pytest.fixture
async def pipes() -> AsyncIterator[Pipes]:
    pair = Pipes()
    yield pair
    pair.close()


async def test_fd_lines_concurrent_big_sends_never_interleave(pipes: Pipes) -> None:
    lines = [bytes([ord("a") + i]) * (MB + 4099 * i) for i in range(6)]
    got: list[bytes] = []

    async def collect() -> None:
        got.append(await pipes.read_until_eof())

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(collect)
            async with anyio.create_task_group() as senders:
                for line in lines:
                    senders.start_soon(pipes.conn.send, line)
            await pipes.conn.send_eof()
    assert got[0].endswith(b"\n")
    assert sorted(got[0].split(b"\n")[:-1]) == sorted(lines)


async def test_fd_lines_a_cancelled_send_is_finished_by_the_next(pipes: Pipes) -> None:
    big = b"x" * (2 * MB)  # far more than a pipe holds: the send waits for the reader
    with anyio.move_on_after(0.2) as scope:
        await pipes.conn.send(big)
    assert scope.cancelled_caught
    got: list[bytes] = []

    async def collect() -> None:
        got.append(await pipes.read_until_eof())

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(collect)
            await pipes.conn.send(b"next")
            await pipes.conn.send_eof()
    assert got[0] == big + b"\nnext\n"


async def test_fd_lines_send_after_eof_or_a_gone_reader(pipes: Pipes) -> None:
    await pipes.conn.send(b"one")  # fits in the pipe: returns at once
    assert os.read(pipes.cli_stdin, 100) == b"one\n"
    os.close(pipes.cli_stdin)
    with pytest.raises(anyio.BrokenResourceError):
        await pipes.conn.send(b"two")  # EPIPE
    await pipes.conn.send_eof()
    await pipes.conn.send_eof()  # idempotent
    with pytest.raises(anyio.ClosedResourceError):
        await pipes.conn.send(b"three")


async def test_fd_lines_receive_yields_once_per_call_even_with_data_waiting(
    pipes: Pipes,
) -> None:
    """Other tasks run only when the reader yields: a call that finds its data already
    there still yields (here: each call finds one line waiting)."""
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(ticker)
        await anyio.lowlevel.checkpoint()
        before = ticks
        for i in range(20):
            os.write(pipes.cli_stdout, b'{"n":%d}\n' % i)
            assert await pipes.conn.receive_lines() == [b'{"n":%d}' % i]
        # One scheduling round per call, and the ticker runs in every round (Trio may run
        # it after the reader within a round: hence the one spare).
        assert ticks - before >= 19
        tg.cancel_scope.cancel()


async def test_fd_lines_receive_batches_and_flushes_at_eof(pipes: Pipes) -> None:
    os.write(pipes.cli_stdout, b'{"a":1}\n{"b":2}\n{"c"')
    assert await pipes.conn.receive_lines() == [b'{"a":1}', b'{"b":2}']
    os.write(pipes.cli_stdout, b':3}\n{"d"')
    os.close(pipes.cli_stdout)
    assert await pipes.conn.receive_lines() == [b'{"c":3}']
    assert await pipes.conn.receive_lines() == [b'{"d"']  # the unterminated rest
    with pytest.raises(anyio.EndOfStream):
        await pipes.conn.receive_lines()
    with pytest.raises(anyio.EndOfStream):
        await pipes.conn.receive_lines()


async def test_fd_lines_unread_data_does_not_keep_the_loop_busy(pipes: Pipes) -> None:
    """Readiness nobody waits for must not fire on every loop iteration (asyncio keeps the
    registration between reads)."""
    os.write(pipes.cli_stdout, b"{}\n")
    assert await pipes.conn.receive_lines() == [b"{}"]
    with anyio.move_on_after(0.05):
        await pipes.conn.receive_lines()  # waits: registered
    os.write(pipes.cli_stdout, b"{}\n")  # readable, and nobody waits
    started = time.process_time()
    await anyio.sleep(0.3)
    assert time.process_time() - started < 0.15
    assert await pipes.conn.receive_lines() == [b"{}"]


async def test_fd_lines_a_cancelled_receive_loses_nothing(pipes: Pipes) -> None:
    os.write(pipes.cli_stdout, b"{}\n")
    with anyio.CancelScope() as scope:
        scope.cancel()  # the read succeeds; the checkpoint after it is cancelled
        await pipes.conn.receive_lines()
    assert scope.cancelled_caught
    assert await pipes.conn.receive_lines() == [b"{}"]


async def test_fd_lines_close_wakes_a_waiting_reader_and_closes_each_fd_once(
    pipes: Pipes,
) -> None:
    stdin_fd, stdout_fd = pipes.conn._stdin_fd, pipes.conn._stdout_fd
    async with anyio.create_task_group() as tg:

        async def reader() -> None:
            with pytest.raises(anyio.EndOfStream):
                await pipes.conn.receive_lines()

        tg.start_soon(reader)
        await anyio.wait_all_tasks_blocked()
        pipes.conn.close()
    pipes.conn.close()  # idempotent
    for fd in (stdin_fd, stdout_fd):
        with pytest.raises(OSError):
            os.fstat(fd)
