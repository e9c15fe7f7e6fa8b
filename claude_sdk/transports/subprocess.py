"""`SubprocessTransport`: the CLI as a local child process.

The CLI leads a process group of its own, under a watchdog (`claude_sdk.transports._watchdog`:
one POSIX ``sh`` shared by every open session) that ends the group if this process dies, even
by SIGKILL. The CLI cannot run before the watchdog holds its group: it is spawned through a
gate (``sh`` waiting for one line on stdin, then replaced by the CLI through ``exec``), and
the line is written only once ``+PGID`` is in the watchdog's lifeline. An ``exec`` the gate could
not do is reported as a spawn failure (`SubprocessConnection.exit_error`).
stdin and stdout are pipes this module creates and drives itself
(`claude_sdk.transports._fdio`): a line goes out in one system call, without a trip through
the event loop. stderr is always drained into a bounded tail
(and an optional per-line callback).

Leaving ``connect`` closes stdin, waits ``shutdown_grace`` (or until the connection's
``shutdown_deadline``, if sooner) for the CLI to exit, then SIGTERMs the process group,
waits `TERM_GRACE` more and SIGKILLs it. Once the CLI is gone (whenever it exits, during the
session or in the teardown), whatever it left in its group gets SIGTERM (unless the group
had one already) and, if anything of it still lives `TERM_GRACE` after that SIGTERM,
SIGKILL (`claude_sdk.transports._teardown.end_group`); then the group leaves the watchdog
(the last session out stands it down and reaps it). All of it shielded from cancellation,
and bounded in time.
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
from ._teardown import TERM_GRACE, end_group, graceful_end, teardown_process
from ._watchdog import GATE_NAME, SHELL, Watchdog, gated
from .base import Connection, Lifetime, StderrTail, Transport
from .discovery import INSTALL_HINT, find_cli_async

__all__ = ["SubprocessConnection", "SubprocessTransport"]

logger: logging.Logger = logging.getLogger("claude_sdk.transport")

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
        *,
        gated: bool = False,
    ) -> None:
        super().__init__(stdin_fd, stdout_fd, max_line_bytes=spec.max_line_bytes, stderr=stderr)
        self.process = process
        self._cli_path = cli_path
        self._gated = gated
        self.stderr_done: anyio.Event = anyio.Event()
        self._termed_at: float | None = None  # when the group got SIGTERM from us
        self._leftovers: anyio.Event | None = None  # set once end_leftovers is done

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

    def exit_error(self) -> Exception | None:
        """The spawn failure, when the gate could not ``exec`` the CLI (its shell said so)."""
        code = self.process.returncode
        if not self._gated or code not in (126, 127):
            return None
        if not self.stderr_tail.startswith(f"{GATE_NAME}:"):
            return None  # the CLI ran, and exited so itself
        return _gate_exec_error(self._cli_path, code)

    async def wait(self) -> int | None:
        code = await self.process.wait()
        # Report the exit only once stderr is drained, so errors carry the whole tail.
        with anyio.move_on_after(STDERR_DRAIN):
            await self.stderr_done.wait()
        return code

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the CLI's process group while the CLI runs (its pid, unreaped,
        names our group; `end_leftovers` deals with the group once it is reaped)."""
        if self.process.returncode is not None:
            return
        if sig == signal.SIGTERM and self._termed_at is None:
            self._termed_at = anyio.current_time()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    async def end_leftovers(self) -> None:
        """End what the exited CLI left in its group: SIGTERM (unless the group had one),
        SIGKILL `TERM_GRACE` after it if anything lives; bounded, never raises.

        Call it right after the reap (see `end_group` for why the group id is still ours
        then). The first call does it; later ones wait for it to finish. Shield it: a
        cancelled run would leave the group half-ended.
        """
        if self.process.returncode is None:
            return
        if self._leftovers is not None:
            await self._leftovers.wait()
            return
        self._leftovers = done = anyio.Event()
        try:
            await end_group(
                self.process.pid,
                what=f"the CLI (pid {self.process.pid})",
                termed_at=self._termed_at,
                term_grace=TERM_GRACE,
            )
        finally:
            done.set()


class SubprocessTransport(Transport):
    """Runs the CLI locally (``argv[0]`` of the launch spec must be a resolved path).

    Args:
        supervise: start a watchdog next to the CLI (on by default on POSIX), which ends the
            CLI's process group if this process dies. Without it the CLI is still in its own
            process group and torn down the same way, but it can outlive a Python process
            that is killed outright.
    """

    def __init__(self, *, supervise: bool | None = None) -> None:
        self.supervise: bool = (os.name == "posix") if supervise is None else supervise

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
        # Without a shell there is no watchdog either (`Watchdog.hold` says so): no gate.
        gate = watchdog is not None and os.access(SHELL, os.X_OK)
        try:
            process, stdin_fd, stdout_fd = await _spawn(spec, env, gate=gate)
        except BaseException:
            if watchdog is not None:
                with anyio.CancelScope(shield=True):
                    await watchdog.stand_down()
            raise
        if watchdog is not None:
            # The CLI waits at its gate: first its group goes on the lifeline, then the gate
            # opens (a host killed in between took the CLI's children with it, under Ray).
            watchdog.hold(process.pid, TERM_GRACE)
            if gate:
                _open_gate(stdin_fd)
        lifetime = Lifetime.start("the CLI", spec.argv, process.pid)
        stderr = StderrTail(callback=spec.stderr)
        conn = SubprocessConnection(process, stdin_fd, stdout_fd, spec, stderr, cli, gated=gate)
        # stderr is read through the teardown even when the block is cancelled: a CLI that
        # blocks on a full stderr pipe could not finish gracefully.
        draining = anyio.CancelScope(shield=True)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(_drain_stderr, process, stderr, conn.stderr_done, draining)
                tg.start_soon(_end_leftovers_on_exit, conn, lifetime)
                try:
                    yield conn
                finally:
                    with anyio.CancelScope(shield=True):
                        try:
                            await _teardown(conn, spec.shutdown_grace)
                        finally:
                            if watchdog is not None:
                                await watchdog.stand_down()
                    draining.cancel()
                    tg.cancel_scope.cancel()
        finally:
            conn.close()
            if lifetime is not None:
                lifetime.exited(process.returncode)


async def _spawn(
    spec: LaunchSpec, env: dict[str, str], *, gate: bool
) -> tuple[anyio.abc.Process, int, int]:
    """Start the CLI on two fresh pipes; the parent's ends (non-blocking) come back with it.

    With ``gate``, through the gate (`claude_sdk.transports._watchdog.GATE`): nothing of the
    CLI runs until `_open_gate`, and nothing ever if stdin closes first.
    """
    cli = spec.argv[0]
    argv = gated(spec.argv) if gate else spec.argv
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
            argv,
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


def _open_gate(stdin_fd: int) -> None:
    """Let the gated CLI run: one line to the gate (the first bytes on its stdin)."""
    with contextlib.suppress(OSError):  # the gate is gone: its exit status tells the rest
        os.write(stdin_fd, b"\n")  # a fresh, empty pipe: one byte cannot block


async def _drain_stderr(
    process: anyio.abc.Process, stderr: StderrTail, done: anyio.Event, scope: anyio.CancelScope
) -> None:
    assert process.stderr is not None
    try:
        with scope:
            async for chunk in process.stderr:
                stderr.feed(chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        stderr.close()
        done.set()


async def _end_leftovers_on_exit(conn: SubprocessConnection, lifetime: Lifetime | None) -> None:
    """As soon as the CLI exits, end what it left in its group: a leftover holding stdout
    open would otherwise keep its end from arriving."""
    await conn.process.wait()
    if lifetime is not None:
        lifetime.exited(conn.process.returncode)
    with anyio.CancelScope(shield=True):  # bounded by TERM_GRACE; the teardown waits for it
        await conn.end_leftovers()


async def _teardown(conn: SubprocessConnection, grace: float) -> None:
    """stdin EOF -> ``grace`` (or until ``conn.shutdown_deadline``, if sooner) -> SIGTERM
    -> `TERM_GRACE` -> SIGKILL to the group; then what the CLI left in its group goes
    (`SubprocessConnection.end_leftovers`, perhaps already under way). Bounded."""
    end = graceful_end(grace, conn.shutdown_deadline)

    async def close_stdin() -> None:
        try:
            with anyio.CancelScope(deadline=end):  # finish a line cut short by a cancelled send
                await conn.send_eof()
        finally:
            conn.close_stdin()

    await teardown_process(
        conn.process,
        send_eof=close_stdin,
        drain_stdout=conn.discard_stdout,
        terminate=lambda: conn.signal_group(signal.SIGTERM),
        kill=lambda: conn.signal_group(signal.SIGKILL),
        end=end,
        what=f"the CLI (pid {conn.process.pid})",
        term_grace=TERM_GRACE,
    )
    await conn.end_leftovers()


def _check_launchable(spec: LaunchSpec) -> None:
    """Fail early, and clearly, when the CLI cannot start: a missing working directory, a
    CLI that is not an executable file, or a script whose ``#!`` interpreter cannot run."""
    cli = spec.argv[0]
    if spec.cwd is not None and not Path(spec.cwd).is_dir():
        what = "is not a directory" if Path(spec.cwd).exists() else "does not exist"
        raise ProcessError(
            f"the working directory {what}: {spec.cwd} (set Options.cwd to an existing "
            "directory, or create it first)",
            kind="spawn",
            cli_path=cli,
        )
    path = Path(cli)
    if path.is_absolute() or os.sep in cli:
        if not path.exists():
            raise CLINotFoundError(searched=(f"{cli} (does not exist)",), hint=INSTALL_HINT)
        if path.is_dir():
            raise ProcessError(
                f"the CLI is not an executable file: {cli} is a directory",
                kind="spawn",
                cli_path=cli,
            )
        if not os.access(path, os.X_OK):
            raise ProcessError(
                f"the CLI is not an executable file: {cli} has no execute permission (chmod +x it)",
                kind="spawn",
                cli_path=cli,
            )
        cwd = spec.cwd if spec.cwd is not None else os.getcwd()
        problem = _script_problem(cli, cwd=cwd, search_path=_child_search_path(spec))
        if problem is not None:
            raise ProcessError(
                f"could not start the CLI {cli}: {problem}", kind="spawn", cli_path=cli
            )


def _spawn_error(exc: OSError, cli: str) -> Exception:
    if exc.errno == errno.E2BIG:
        return ProcessError(
            "the command line is too long for this system (E2BIG); long inputs such as "
            "the system prompt or agents belong in initialize",
            kind="spawn",
            cli_path=cli,
        )
    # The child reports the path that failed: the CLI's, or the working directory's.
    about_cli = exc.filename in (None, cli)
    if about_cli and exc.errno in _EXEC_ERRNOS and os.path.isfile(cli):
        # The CLI is there: what failed is something the system needs to run it.
        return ProcessError(
            f"could not start the CLI {cli}: {_exec_problem(cli, exc)}",
            kind="spawn",
            cli_path=cli,
        )
    if exc.errno == errno.ENOENT and about_cli:
        return CLINotFoundError(searched=(f"{cli} ({exc.strerror})",))
    return ProcessError(f"could not start the CLI: {exc}", kind="spawn", cli_path=cli)


def _gate_exec_error(cli: str, status: int) -> Exception:
    """The spawn error for a CLI the gate's shell could not ``exec``.

    The shell does not tell exec's errno, only its status (127: not found, 126: found but
    not runnable); the rest is read off the file, as `_exec_problem` does.
    """
    if status == 127:
        code = errno.ENOENT
    elif not os.access(cli, os.X_OK) or _noexec(cli):
        code = errno.EACCES
    else:
        code = errno.ENOEXEC
    return _spawn_error(OSError(code, os.strerror(code), cli), cli)


def _noexec(path: str) -> bool:
    """Whether ``path`` is on a file system mounted noexec."""
    try:
        return bool(os.statvfs(path).f_flag & getattr(os, "ST_NOEXEC", 0))
    except OSError:
        return False


#: exec() failures of a file that exists.
_EXEC_ERRNOS = frozenset({errno.ENOENT, errno.EACCES, errno.ENOEXEC, errno.ELOOP, errno.ENOTDIR})
#: How many ``#!`` interpreters may be scripts themselves (Linux follows 4 levels).
_SCRIPT_DEPTH = 4


def _shown(text: str) -> str:
    """``text`` as is, or its repr when it holds characters a message would hide."""
    return text if text.isprintable() else repr(text)


def _shebang(path: str) -> tuple[str, str] | None:
    """The interpreter and argument of ``path``'s ``#!`` line, split as Linux does (at the
    first space or tab; only spaces and tabs stripped, so a ``\\r`` stays), or None when
    ``path`` is not a readable regular file starting with ``#!``."""
    try:
        if not os.path.isfile(path):  # never open a FIFO or a device
            return None
        with open(path, "rb") as file:
            head = file.read(256)  # what the kernel reads (BINPRM_BUF_SIZE)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].strip(b" \t")
    interpreter, _, argument = line.replace(b"\t", b" ").partition(b" ")
    return os.fsdecode(interpreter), os.fsdecode(argument.strip(b" \t"))


def _script_problem(path: str, *, cwd: str, search_path: str | None, depth: int = 0) -> str | None:
    """Why the ``#!`` interpreter of the script ``path`` cannot run, or None (also when
    ``path`` is no script, or when unsure). ``search_path`` is the child's ``PATH``, for
    ``#!/usr/bin/env program``; None skips that check."""
    shebang = _shebang(path)
    if shebang is None:
        return None
    interpreter, argument = shebang
    line = f"#!{interpreter} {argument}".rstrip(" ")  # not rstrip(): a \r must stay
    if line.endswith("\r"):
        return (
            f"its '#!' line ends with a carriage return (Windows line endings), so the "
            f"system runs {_shown(line[2:])}; convert the script to Unix line endings"
        )
    if not interpreter:
        return "its '#!' line names no interpreter"
    named = f"its interpreter {_shown(interpreter)} (named by its '#!' line)"
    target = os.path.join(cwd, interpreter)  # a relative one is looked up in the cwd
    if not os.path.exists(target):
        return f"{named} does not exist"
    if os.path.isdir(target):
        return f"{named} is a directory"
    if not os.access(target, os.X_OK):
        return f"{named} is not executable"
    if depth < _SCRIPT_DEPTH:
        inner = _script_problem(target, cwd=cwd, search_path=None, depth=depth + 1)
        if inner is not None:
            return f"{named} is a script that cannot run: {inner}"
    if os.path.basename(interpreter) == "env" and search_path is not None:
        return _env_problem(interpreter, argument, cwd=cwd, search_path=search_path)
    return None


def _env_problem(env: str, argument: str, *, cwd: str, search_path: str) -> str | None:
    """Why ``#!/usr/bin/env argument`` cannot start its program, or None (also when unsure:
    options other than ``-S``, quoting, variables)."""
    split = argument.startswith("-S")
    words = argument[2:].split() if split else [argument] if argument else []
    while words and "=" in words[0]:  # NAME=value assignments come before the program
        words.pop(0)
    if not words:
        return f"its '#!' line runs {_shown(env)} with no program to start"
    program = words[0]
    if program.startswith("-") or any(c in program for c in "\"'\\$"):
        return None
    if _on_search_path(program, cwd=cwd, search_path=search_path):
        return None
    hint = ""
    if not split and any(c in program for c in " \t"):
        hint = " (without -S, env takes the rest of the '#!' line as one program name)"
    return (
        f"its '#!' line runs {program!r} through {_shown(env)}, and there is no "
        f"{program!r} on the CLI's PATH{hint}"
    )


def _on_search_path(program: str, *, cwd: str, search_path: str) -> bool:
    """Whether ``execvp`` (what ``env`` calls) in ``cwd`` could find ``program``."""
    if "/" in program:
        return os.path.isfile(os.path.join(cwd, program))
    for directory in search_path.split(os.pathsep):
        if os.path.isfile(os.path.join(cwd, directory or ".", program)):
            return True
    return False


def _child_search_path(spec: LaunchSpec) -> str:
    """The ``PATH`` the CLI gets, or the C library's default one when it gets none."""
    path = child_environment(spec).get("PATH")
    if path is not None:
        return path
    try:
        return os.confstr("CS_PATH") or "/bin:/usr/bin"
    except (ValueError, OSError, AttributeError):  # no confstr here
        return "/bin:/usr/bin"


def _exec_problem(cli: str, exc: OSError) -> str:
    """Why exec() failed for ``cli``, a file that exists."""
    problem = _script_problem(cli, cwd=os.getcwd(), search_path=None)
    if problem is not None:
        return problem
    if exc.errno == errno.ENOENT:
        loader = _elf_interpreter(cli)
        if loader is not None and not os.path.exists(loader):
            return (
                f"it needs the dynamic loader {_shown(loader)}, which this system does not "
                "have (a build for another system or C library, such as glibc on musl)"
            )
        return (
            "the system reports it missing although the file exists: something it needs "
            "to run (an interpreter or a dynamic loader) is missing"
        )
    if exc.errno == errno.ENOEXEC:
        return (
            "this system cannot run this kind of file (exec format error): a binary for "
            "another architecture, or a script without a '#!' line"
        )
    if exc.errno == errno.EACCES:
        return (
            "permission denied: check the execute permission of the file and of its "
            "directories, and that its file system is not mounted noexec"
        )
    return exc.strerror or str(exc)


def _elf_interpreter(path: str) -> str | None:
    """The program interpreter (``PT_INTERP``: the dynamic loader) an ELF file asks for,
    or None when it is not ELF, is static, or cannot be read."""
    import struct  # only on this error path

    try:
        with open(path, "rb") as file:
            header = file.read(64)
            if len(header) < 52 or header[:4] != b"\x7fELF" or header[4] not in (1, 2):
                return None
            order = "<" if header[5] == 1 else ">"
            # Where ELFCLASS64 (2) and ELFCLASS32 (1) keep e_phoff, e_phentsize/e_phnum,
            # and p_offset and p_filesz in a program header.
            word, table_at, sizes_at, offset_at, length_at = (
                ("Q", 32, 54, 8, 32) if header[4] == 2 else ("I", 28, 42, 4, 16)
            )
            (table,) = struct.unpack_from(order + word, header, table_at)
            size, count = struct.unpack_from(order + "HH", header, sizes_at)
            for index in range(min(count, 256)):
                file.seek(table + index * size)
                entry = file.read(size)
                if struct.unpack_from(order + "I", entry, 0)[0] != 3:  # PT_INTERP
                    continue
                (offset,) = struct.unpack_from(order + word, entry, offset_at)
                (length,) = struct.unpack_from(order + word, entry, length_at)
                file.seek(offset)
                name = file.read(min(length, 4096)).split(b"\0", 1)[0]
                return os.fsdecode(name) or None
    except (OSError, struct.error):
        return None
    return None
