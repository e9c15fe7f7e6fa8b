"""`SubprocessTransport`: the CLI as a local child process.

The CLI runs under a small supervisor (`claude_sdk.transports._supervisor`) in its own
process group, so that it dies with the SDK even when the SDK is killed. stderr is always
drained into a bounded tail (and an optional per-line callback). Leaving ``connect`` closes
stdin, waits ``shutdown_grace`` for the CLI to exit, then SIGTERMs the process group, waits
two seconds more and SIGKILLs it: shielded from cancellation, and bounded in time.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc

from .._protocol.launch import LaunchSpec
from ..errors import CLINotFoundError, ProcessError
from ._teardown import TERM_GRACE, teardown_process
from .base import ByteStreamConnection, Connection, StderrTail, Transport
from .discovery import find_cli_async

__all__ = ["SubprocessConnection", "SubprocessTransport"]

logger = logging.getLogger("claude_sdk")

SUPERVISOR = str(Path(__file__).with_name("_supervisor.py"))
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


class SubprocessConnection(ByteStreamConnection):
    """A `Connection` to a local CLI process."""

    def __init__(
        self,
        process: anyio.abc.Process,
        spec: LaunchSpec,
        stderr: StderrTail,
        cli_path: str,
    ) -> None:
        assert process.stdout is not None
        super().__init__(
            process.stdin, process.stdout, max_line_bytes=spec.max_line_bytes, stderr=stderr
        )
        self.process = process
        self._cli_path = cli_path
        self.stderr_done = anyio.Event()

    @property
    def pid(self) -> int | None:
        """The pid of the supervisor, which is also the CLI's process group id."""
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
        """Send ``sig`` to the CLI's process group (ignored when it is gone)."""
        if self.process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)


class SubprocessTransport(Transport):
    """Runs the CLI locally (``argv[0]`` of the launch spec must be a resolved path).

    Args:
        supervise: run the CLI under the supervisor (on by default on POSIX). Without it the
            CLI is still in its own process group and torn down the same way, but it can
            outlive a Python process that is killed outright.
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
        lifeline_read, lifeline_write = os.pipe() if self.supervise else (-1, -1)
        if self.supervise:
            command = [
                sys.executable,
                "-I",
                "-S",
                SUPERVISOR,
                str(lifeline_read),
                str(TERM_GRACE),
                *spec.argv,
            ]
            pass_fds: tuple[int, ...] = (lifeline_read,)
        else:
            command = list(spec.argv)
            pass_fds = ()
        try:
            process = await anyio.open_process(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=spec.cwd,
                env=env,
                start_new_session=True,
                pass_fds=pass_fds,
                user=spec.user,
            )
        except OSError as exc:
            if self.supervise:
                os.close(lifeline_read)
                os.close(lifeline_write)
            raise _spawn_error(exc, cli) from exc
        if self.supervise:
            os.close(lifeline_read)  # the child holds it; ours closes when we die
        stderr = StderrTail(callback=spec.stderr)
        conn = SubprocessConnection(process, spec, stderr, cli)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(_drain_stderr, process, stderr, conn.stderr_done)
                try:
                    yield conn
                finally:
                    with anyio.CancelScope(shield=True):
                        await _teardown(conn, spec.shutdown_grace)
                    tg.cancel_scope.cancel()
        finally:
            if self.supervise:
                with contextlib.suppress(OSError):
                    os.close(lifeline_write)


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


async def _teardown(conn: SubprocessConnection, grace: float) -> None:
    """stdin EOF -> ``grace`` -> SIGTERM -> 2 s -> SIGKILL to the group; bounded."""
    await teardown_process(
        conn.process,
        send_eof=conn.send_eof,
        terminate=lambda: conn.signal_group(signal.SIGTERM),
        kill=lambda: conn.signal_group(signal.SIGKILL),
        grace=grace,
        what=f"the CLI (pid {conn.process.pid})",
    )


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
