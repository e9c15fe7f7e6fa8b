"""The transport contract: move lines of bytes to and from one CLI process, wherever it runs.

A `Transport` is a factory; ``async with transport.connect(spec) as conn`` starts one CLI (a
local process, an ``ssh`` client, a ``docker exec``, or a Python peer) and gives a
`Connection`. Leaving the block tears down everything ``connect`` started: close stdin, wait a
grace period, terminate, kill, shielded from cancellation and bounded in time. Whatever the
CLI left running (its process group) is terminated too, and killed if it outlives
``TERM_GRACE`` (2 s) after that.

`Connection` speaks AnyIO's stream vocabulary:

========================  ==========================================================
``send(line)``            write one NDJSON line; the connection appends ``"\\n"`` and
                          serialises concurrent writers. ``anyio.ClosedResourceError``
                          after ``send_eof``; ``anyio.BrokenResourceError`` when the
                          process no longer reads.
``receive_lines()``       the next batch of complete lines, at least one (a line longer
                          than the limit arrives as a `LineTooLongError` in its place);
                          ``anyio.EndOfStream`` at the end of stdout.
``receive()``             one line at a time over ``receive_lines``.
``send_eof()``            close the CLI's stdin (idempotent).
``stderr_tail``           the last lines of stderr (stderr is always drained).
``pid``, ``returncode``   the process's identity and fate (None when unknown / running).
``wait()``                wait for the process to exit; its return code.
``shutdown_deadline``     None (the default), or a time on the ``anyio.current_time()``
                          clock, set by the owner before leaving ``connect``: the
                          teardown then gives the CLI only until that time (never more
                          than ``spec.shutdown_grace``), not a fresh
                          ``spec.shutdown_grace``, to exit after stdin closes, before
                          it terminates it. A time already past: close stdin and
                          terminate at once (then kill, as always). It lets a session
                          spend one grace across its own close and the teardown.
========================  ==========================================================

`ByteStreamConnection` implements the line side over any AnyIO byte streams with the
sans-IO `LineSplitter`, so every transport frames lines the same way.
"""

from __future__ import annotations

import abc
import collections
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

import anyio
import anyio.abc
import attrs

from .._attrs import define
from .._protocol.framing import DEFAULT_MAX_LINE_BYTES, LineSplitter
from ..errors import LineTooLongError

if TYPE_CHECKING:
    from .._protocol.launch import LaunchSpec

__all__ = [
    "ByteStreamConnection",
    "Connection",
    "ConnectionWrapper",
    "StderrTail",
    "Transport",
]

logger: logging.Logger = logging.getLogger("claude_sdk.transport")

#: Bytes read from stdout at a time (large reads keep the per-line cost low).
READ_CHUNK = 256 * 1024


class Connection(abc.ABC):
    """One running CLI seen as a duplex line stream (see the module docstring)."""

    #: When the graceful part of the teardown ends (``anyio.current_time()`` clock), or None
    #: for ``spec.shutdown_grace`` from the moment the teardown begins (module docstring).
    shutdown_deadline: float | None = None
    #: ``anyio.current_time()`` when the last bytes came from stdout, whole lines or not
    #: (None: this connection does not say; only whole lines count then). The session's
    #: ``inactivity_timeout`` counts silence from it.
    last_received: float | None = None

    @abc.abstractmethod
    async def send(self, line: bytes) -> None:
        """Write one line (without its newline)."""

    @abc.abstractmethod
    async def receive_lines(self) -> list[bytes | LineTooLongError]:
        """The next complete lines, at least one.

        Raises:
            anyio.EndOfStream: stdout ended (the CLI closed it or exited).
        """

    async def receive(self) -> bytes:
        """The next complete line.

        Raises:
            anyio.EndOfStream: stdout ended.
            LineTooLongError: the next line was longer than the limit (it is dropped; the
                line after it comes next).
        """
        pending = self._pending_lines()
        while not pending:
            pending.extend(await self.receive_lines())
        item = pending.popleft()
        if isinstance(item, LineTooLongError):
            raise item
        return item

    def _pending_lines(self) -> collections.deque[bytes | LineTooLongError]:
        pending: collections.deque[bytes | LineTooLongError] | None
        pending = self.__dict__.get("_receive_pending")
        if pending is None:
            pending = self.__dict__["_receive_pending"] = collections.deque()
        return pending

    @abc.abstractmethod
    async def send_eof(self) -> None:
        """Close the CLI's stdin; further sends raise ``anyio.ClosedResourceError``."""

    @property
    @abc.abstractmethod
    def stderr_tail(self) -> str:
        """The last lines the CLI wrote to stderr."""

    @property
    def pid(self) -> int | None:
        """The CLI's process id, when there is one."""
        return None

    @property
    def returncode(self) -> int | None:
        """The exit code (negative: killed by that signal); None while running."""
        return None

    @abc.abstractmethod
    async def wait(self) -> int | None:
        """Wait until the CLI has exited; return its exit code (None if unknowable)."""

    @property
    def cli_path(self) -> str | None:
        """The executable that runs, for error messages."""
        return None

    def exit_error(self) -> Exception | None:
        """A transport-specific error for how the CLI ended (for example a dropped SSH
        connection), or None to let the session report the exit status."""
        return None


class ConnectionWrapper(Connection):
    """A `Connection` that passes everything to another one (a base for wrappers that record
    or change the lines): every member of the contract is forwarded, ``shutdown_deadline``
    included, so a wrapper overrides only what it changes and never drops a part of the
    contract it did not know about.
    """

    def __init__(self, inner: Connection) -> None:
        self._inner = inner

    @property
    def inner(self) -> Connection:
        """The wrapped connection."""
        return self._inner

    async def send(self, line: bytes) -> None:
        await self._inner.send(line)

    async def receive_lines(self) -> list[bytes | LineTooLongError]:
        return await self._inner.receive_lines()

    async def send_eof(self) -> None:
        await self._inner.send_eof()

    @property
    def stderr_tail(self) -> str:
        return self._inner.stderr_tail

    @property
    def pid(self) -> int | None:
        return self._inner.pid

    @property
    def returncode(self) -> int | None:
        return self._inner.returncode

    async def wait(self) -> int | None:
        return await self._inner.wait()

    @property
    def cli_path(self) -> str | None:
        return self._inner.cli_path

    def exit_error(self) -> Exception | None:
        return self._inner.exit_error()

    @property
    def shutdown_deadline(self) -> float | None:
        """The wrapped connection's (setting it sets theirs: their teardown reads it)."""
        return self._inner.shutdown_deadline

    @shutdown_deadline.setter
    def shutdown_deadline(self, value: float | None) -> None:
        self._inner.shutdown_deadline = value

    @property
    def last_received(self) -> float | None:
        """The wrapped connection's (it reads the bytes)."""
        return self._inner.last_received

    @last_received.setter
    def last_received(self, value: float | None) -> None:
        self._inner.last_received = value


class Transport(abc.ABC):
    """Starts CLIs. ``connect`` owns what it starts and tears it down on exit."""

    #: The CLI runs on this machine and reads its files: a resume from a session store
    #: writes the transcript where it reads it, here. False (SSH, containers): the
    #: transcript travels in ``LaunchSpec.transcripts`` and the transport writes it on the
    #: CLI's side; a custom transport whose CLI reads another disk sets it False and does
    #: the same, or resumes from a store fail with `SessionNotFoundError`.
    runs_here: bool = True

    @abc.abstractmethod
    def connect(self, spec: LaunchSpec) -> AbstractAsyncContextManager[Connection]:
        """Start one CLI for ``spec`` and yield its `Connection`."""

    def describe(self) -> str:
        """A short description for logs and error messages."""
        return type(self).__name__


class Lifetime:
    """The DEBUG lines of one CLI's start and exit (program and flag names, pid, exit code,
    how long it ran). Made only while DEBUG is enabled: ``Lifetime.start`` is None otherwise,
    so a transport pays one ``isEnabledFor`` per CLI."""

    __slots__ = ("_ended", "_started", "_what")

    def __init__(self, what: str) -> None:
        self._what = what
        self._started = time.monotonic()
        self._ended = False

    @classmethod
    def start(cls, what: str, argv: Sequence[str], pid: int | None) -> Lifetime | None:
        """Log that ``argv`` (as `argv_for_log` shows it) started as ``what``, with ``pid``
        (None: no local process)."""
        if not logger.isEnabledFor(logging.DEBUG):
            return None
        from .._protocol.launch import argv_for_log  # what a session has loaded already

        if pid is not None:
            what = f"{what} (pid {pid})"
        logger.debug("started %s: %s", what, argv_for_log(argv))
        return cls(what)

    def exited(self, returncode: int | None) -> None:
        """Log the exit (once; later calls do nothing)."""
        if self._ended:
            return
        self._ended = True
        if returncode is None:
            how = "exit status unknown"
        elif returncode < 0:
            how = f"killed by signal {-returncode}"
        else:
            how = f"exit code {returncode}"
        logger.debug(
            "%s exited: %s, after %.3f s",
            self._what,
            how,
            time.monotonic() - self._started,
        )


@define(eq=False)
class StderrTail:
    """A bounded tail of stderr, fed line by line, with an optional per-line callback.

    The callback's exceptions are logged and contained: a broken callback never stops the
    draining (a full stderr pipe would block the CLI).
    """

    max_bytes: int = 64 * 1024
    callback: Callable[[str], object] | None = None
    _lines: collections.deque[str] = attrs.field(factory=collections.deque)
    _size: int = 0
    _partial: bytes = b""
    total_bytes: int = 0

    def feed(self, data: bytes) -> None:
        """Add a chunk of stderr."""
        self.total_bytes += len(data)
        data = self._partial + data
        *complete, self._partial = data.split(b"\n")
        if len(self._partial) > self.max_bytes:
            complete.append(self._partial)
            self._partial = b""
        for raw in complete:
            self._add(raw.decode("utf-8", "replace").rstrip("\r"))

    def close(self) -> None:
        """Flush a final unterminated line."""
        if self._partial:
            self._add(self._partial.decode("utf-8", "replace").rstrip("\r"))
            self._partial = b""

    def _add(self, line: str) -> None:
        self._lines.append(line)
        self._size += len(line) + 1
        while self._size > self.max_bytes and len(self._lines) > 1:
            self._size -= len(self._lines.popleft()) + 1
        if self.callback is not None:
            try:
                self.callback(line)
            except Exception:  # a broken callback must not stop draining
                logger.exception("the stderr callback raised")

    @property
    def text(self) -> str:
        """The tail as text (complete lines, then any partial line)."""
        tail = "\n".join(self._lines)
        if self._partial:
            partial = self._partial.decode("utf-8", "replace")
            tail = f"{tail}\n{partial}" if tail else partial
        return tail


class ByteStreamConnection(Connection):
    """A `Connection` over AnyIO byte streams for the CLI's stdin and stdout.

    Subclasses supply the streams and the process facts; this class frames lines with the
    sans-IO `LineSplitter` (large reads, every complete line split in one pass) and
    serialises writes under a lock so concurrent answers never interleave bytes.
    """

    def __init__(
        self,
        stdin: anyio.abc.ByteSendStream | None,
        stdout: anyio.abc.ByteReceiveStream,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        stderr: StderrTail | None = None,
    ) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._splitter = LineSplitter(max_line_bytes)
        # fast_acquire: an uncontended write takes the lock without a trip through the loop.
        self._write_lock = anyio.Lock(fast_acquire=True)
        self._eof_sent = stdin is None
        self._stdout_done = False
        self._stderr = stderr if stderr is not None else StderrTail()

    @property
    def splitter(self) -> LineSplitter:
        """The line splitter (its counters say how many lines were skipped or too long)."""
        return self._splitter

    async def send(self, line: bytes) -> None:
        async with self._write_lock:
            if self._eof_sent or self._stdin is None:
                raise anyio.ClosedResourceError
            await self._stdin.send(line + b"\n")

    async def receive_lines(self) -> list[bytes | LineTooLongError]:
        if self._stdout_done:
            raise anyio.EndOfStream
        splitter = self._splitter
        while True:
            try:
                chunk = await self._stdout.receive(READ_CHUNK)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._stdout_done = True
                rest = splitter.close()
                if rest:
                    return rest
                raise anyio.EndOfStream from None
            self.last_received: float | None = anyio.current_time()
            lines = splitter.feed(chunk)
            if lines:
                return lines

    async def send_eof(self) -> None:
        async with self._write_lock:
            if self._eof_sent:
                return
            self._eof_sent = True
            if self._stdin is not None:
                with contextlib.suppress(
                    anyio.BrokenResourceError, anyio.ClosedResourceError, OSError
                ):
                    await self._stdin.aclose()

    @property
    def stderr(self) -> StderrTail:
        """The stderr tail buffer."""
        return self._stderr

    @property
    def stderr_tail(self) -> str:
        return self._stderr.text
