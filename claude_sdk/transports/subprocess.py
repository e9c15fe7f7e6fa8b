"""`SubprocessTransport`: the CLI as a local child process.

The CLI is spawned directly, leading a process group of its own; the group is put under a
watchdog (`claude_sdk.transports._watchdog`: one POSIX ``sh`` shared by every open session,
registered without waiting for it) that ends it if this process dies, even by SIGKILL.
stdin and stdout are pipes this module creates and drives itself
(`claude_sdk.transports._fdio`): a line goes out in one system call, without a trip through
the event loop. stderr is always drained into a bounded tail
(and an optional per-line callback).

Leaving ``connect`` closes stdin, waits ``shutdown_grace`` for the CLI to exit, then SIGTERMs
the process group, waits `TERM_GRACE` more and SIGKILLs it; once the CLI is gone, whatever
it left in its group gets SIGTERM, and the group leaves the watchdog (the last session out
stands it down and reaps it). All of it
shielded from cancellation, and bounded in time.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc

from .._protocol.launch import LaunchSpec
from ..errors import CLINotFoundError, ProcessError
from ._fdio import FdLineConnection
from ._teardown import TERM_GRACE, teardown_process
from ._watchdog import Watchdog
from .base import Connection, StderrTail, Transport
from .discovery import find_cli_async

__all__ = ["SubprocessConnection", "SubprocessTransport"]

logger = logging.getLogger("claude_sdk")

#: Seconds to wait for the reaped process's stderr to reach EOF.
STDERR_DRAIN = 0.5


def child_environment(spec: LaunchSpec, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The child's environment: ``base`` (default ``os.environ``) minus ``spec.unset_env``,
    with ``spec.env`` on top, and ``PWD`` set to ``spec.cwd``."""
    env = dict(os.environ if base is None else base)
    for name in spec.unset_env:
        env.pop(name, None)
    env.update(spec.env)
    if spec.cwd is not None:
        env["PWD"] = spec.cwd
    return env


class SubprocessConnection(FdLineConnection):
    """A `Connection` to a local CLI process (its stdin and stdout are ours to close)."""

    def __init__(
        self,
        process: anyio.abc.Process,
        stdin_fd: int,
        stdout_fd: int,
        spec: LaunchSpec,
        stderr: StderrTail,
        cli_path: str,
    ) -> None:
        super().__init__(stdin_fd, stdout_fd, max_line_bytes=spec.max_line_bytes, stderr=stderr)
        self.process = process
        self._cli_path = cli_path
        self.stderr_done = anyio.Event()

    @property
    def pid(self) -> int | None:
        """The CLI's pid, which is also its process group id."""
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    @property
    def cli_path(self) -> str | None:
        return self._cli_path

    async def wait(self) -> int | None:
        code = await self.process.wait()
        # Report the exit only once stderr is drained, so errors carry the whole tail.
        with anyio.move_on_after(STDERR_DRAIN):
            await self.stderr_done.wait()
        return code

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the CLI's process group while the CLI runs (not once reaped:
        its pid could name another group by then)."""
        if self.process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def end_leftovers(self) -> None:
        """SIGTERM what the exited CLI left in its group (right after the reap: the group
        id cannot be reused while a member lives, and a pid takes a while to come round)."""
        if self.process.returncode is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGTERM)


class SubprocessTransport(Transport):
    """Runs the CLI locally (``argv[0]`` of the launch spec must be a resolved path).

    Args:
        supervise: start a watchdog next to the CLI (on by default on POSIX), which ends the
            CLI's process group if this process dies. Without it the CLI is still in its own
            process group and torn down the same way, but it can outlive a Python process
            that is killed outright.
    """

    def __init__(self, *, supervise: bool | None = None) -> None:
        self.supervise = (os.name == "posix") if supervise is None else supervise

    def describe(self) -> str:
        return "local subprocess"

    @asynccontextmanager
    async def connect(self, spec: LaunchSpec) -> AsyncIterator[Connection]:
        if not os.path.isabs(spec.argv[0]) and os.sep not in spec.argv[0]:
            spec = spec.with_cli(await find_cli_async(spec.cli_path))
        cli = spec.argv[0]
        _check_launchable(spec)
        env = child_environment(spec)
        watchdog = Watchdog() if self.supervise else None
        try:
            process, stdin_fd, stdout_fd = await _spawn(spec, env)
        except BaseException:
            if watchdog is not None:
                with anyio.CancelScope(shield=True):
                    await watchdog.stand_down()
            raise
        stderr = StderrTail(callback=spec.stderr)
        conn = SubprocessConnection(process, stdin_fd, stdout_fd, spec, stderr, cli)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(_drain_stderr, process, stderr, conn.stderr_done)
                tg.start_soon(_end_leftovers_on_exit, conn)
                if watchdog is not None:
                    tg.start_soon(watchdog.run, process.pid, TERM_GRACE)
                try:
                    yield conn
                finally:
                    with anyio.CancelScope(shield=True):
                        try:
                            await _teardown(conn, spec.shutdown_grace)
                        finally:
                            if watchdog is not None:
                                await watchdog.stand_down()
                    tg.cancel_scope.cancel()
        finally:
            conn.close()


async def _spawn(spec: LaunchSpec, env: dict[str, str]) -> tuple[anyio.abc.Process, int, int]:
    """Start the CLI on two fresh pipes; the parent's ends (non-blocking) come back with it."""
    cli = spec.argv[0]
    stdin_r, stdin_w = os.pipe()  # close-on-exec, as every descriptor os.pipe makes
    try:
        stdout_r, stdout_w = os.pipe()
    except OSError as exc:
        os.close(stdin_r)
        os.close(stdin_w)
        raise _spawn_error(exc, cli) from exc
    try:
        os.set_blocking(stdin_w, False)
        os.set_blocking(stdout_r, False)
        process = await anyio.open_process(
            spec.argv,
            stdin=stdin_r,
            stdout=stdout_w,
            stderr=subprocess.PIPE,
            cwd=spec.cwd,
            env=env,
            start_new_session=True,
            user=spec.user,
        )
    except BaseException as exc:
        os.close(stdin_w)
        os.close(stdout_r)
        if isinstance(exc, OSError):
            raise _spawn_error(exc, cli) from exc
        raise
    finally:
        # The child has its copies; ours would keep stdout from ever reaching EOF.
        os.close(stdin_r)
        os.close(stdout_w)
    return process, stdin_w, stdout_r


async def _drain_stderr(process: anyio.abc.Process, stderr: StderrTail, done: anyio.Event) -> None:
    assert process.stderr is not None
    try:
        async for chunk in process.stderr:
            stderr.feed(chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        stderr.close()
        done.set()


async def _end_leftovers_on_exit(conn: SubprocessConnection) -> None:
    """As soon as the CLI exits, SIGTERM what it left in its group: a leftover holding
    stdout open would otherwise keep its end from arriving."""
    await conn.process.wait()
    conn.end_leftovers()


async def _teardown(conn: SubprocessConnection, grace: float) -> None:
    """stdin EOF -> ``grace`` -> SIGTERM -> `TERM_GRACE` -> SIGKILL to the group; bounded.
    Then SIGTERM to what the CLI left behind in its group (again, if it exited before)."""

    async def close_stdin() -> None:
        with anyio.move_on_after(grace):  # finish a line cut short by a cancelled send
            await conn.send_eof()
        conn.close_stdin()

    await teardown_process(
        conn.process,
        send_eof=close_stdin,
        drain_stdout=conn.discard_stdout,
        terminate=lambda: conn.signal_group(signal.SIGTERM),
        kill=lambda: conn.signal_group(signal.SIGKILL),
        grace=grace,
        what=f"the CLI (pid {conn.process.pid})",
    )
    conn.end_leftovers()


def _check_launchable(spec: LaunchSpec) -> None:
    cli = spec.argv[0]
    if spec.cwd is not None and not Path(spec.cwd).is_dir():
        raise ProcessError(
            f"the working directory does not exist: {spec.cwd}", kind="spawn", cli_path=cli
        )
    path = Path(cli)
    if path.is_absolute() or os.sep in cli:
        if not path.exists():
            raise CLINotFoundError(searched=(f"{cli} (does not exist)",))
        if path.is_dir() or not os.access(path, os.X_OK):
            raise ProcessError(
                f"the CLI is not an executable file: {cli}", kind="spawn", cli_path=cli
            )


def _spawn_error(exc: OSError, cli: str) -> Exception:
    if exc.errno == errno.E2BIG:
        return ProcessError(
            "the command line is too long for this system (E2BIG); long inputs such as "
            "the system prompt or agents belong in initialize",
            kind="spawn",
            cli_path=cli,
        )
    if exc.errno == errno.ENOENT:
        return CLINotFoundError(searched=(f"{cli} ({exc.strerror})",))
    return ProcessError(f"could not start the CLI: {exc}", kind="spawn", cli_path=cli)
