"""Lines over a pair of pipe file descriptors: the local CLI's stdin and stdout (issue 8).

AnyIO's process streams cost a trip through the event loop per ``send`` (a checkpoint) and,
on asyncio, a ``StreamReader``'s buffering per read; a control round trip paid for both.
`FdLineConnection` does its own I/O on non-blocking, close-on-exec pipe ends instead:

* ``send`` writes the line and its newline with one ``os.writev``. When the pipe takes it
  all (the usual case) it returns without entering the event loop at all; otherwise it waits
  with ``anyio.wait_writable`` and goes on. One writer at a time (a lock, taken only when a
  line does not fit at once); a line cut by cancellation is finished by the next writer, so
  the CLI never sees two lines interleaved or a line cut short in the middle of a stream.
* ``receive_lines`` reads first and waits only when the pipe is empty (``anyio.wait_readable``
  on Trio; on asyncio a registration kept with the loop, see `_LoopReadiness`). Every call
  yields to the scheduler at least once, by that wait or, when data was already there, by
  one checkpoint (the session's other tasks run only when the reader yields), and so does
  every read that completes no line (a long line arriving). Lines read before a cancelled
  checkpoint are kept for the next call.
* `close` closes each descriptor exactly once (``anyio.notify_closing`` first, so that no
  task stays parked on a closed descriptor); ``send_eof`` closes stdin.

Errors, in AnyIO's vocabulary: ``send`` raises ``anyio.BrokenResourceError`` when the CLI no
longer reads (EPIPE) and ``anyio.ClosedResourceError`` after ``send_eof``;
``receive_lines`` raises ``anyio.EndOfStream`` at the end of stdout.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Literal

import anyio
import anyio.lowlevel

from .._protocol.framing import DEFAULT_MAX_LINE_BYTES, LineSplitter
from ..errors import LineTooLongError
from .base import READ_CHUNK, Connection, StderrTail

if TYPE_CHECKING:
    import asyncio

__all__ = ["FdLineConnection"]

_NL = b"\n"
#: Bytes read from stdout at a time: what a pipe holds (64 KiB). The reader only splits
#: lines and sets the messages' lines aside (the consumer decodes them), so a batch costs
#: little cache; measured on a 100,000-message stream (issue 8), 64 KiB reads gave ~5% more
#: messages per second than 32 KiB and 16 KiB ~10% less, on asyncio and Trio alike. A read
#: that completes no line (a long line arriving) switches to `READ_CHUNK` until one does.
READ_BYTES = 64 * 1024
_Buffers = list[bytes | memoryview]


def _writev(fd: int, buffers: _Buffers | tuple[bytes, bytes]) -> int:
    """Write what the pipe takes now; 0 when it is full."""
    try:
        return os.writev(fd, buffers)
    except BlockingIOError:
        return 0
    except OSError as exc:  # EPIPE: the CLI closed its stdin or exited
        raise anyio.BrokenResourceError from exc


def _rest(buffers: _Buffers, written: int) -> _Buffers:
    """What is left of ``buffers`` once ``written`` bytes of them are out."""
    while written:
        size = len(buffers[0])
        if written < size:
            buffers[0] = memoryview(buffers[0])[written:]
            break
        written -= size
        del buffers[0]
    return buffers


class FdLineConnection(Connection):
    """A `Connection` whose stdin and stdout are pipe descriptors owned by this object.

    Args:
        stdin_fd: the write end of the CLI's stdin (non-blocking).
        stdout_fd: the read end of the CLI's stdout (non-blocking).
        max_line_bytes: the longest line accepted (`LineSplitter`).
        stderr: the stderr tail, fed by whoever drains stderr.
    """

    def __init__(
        self,
        stdin_fd: int,
        stdout_fd: int,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        stderr: StderrTail | None = None,
    ) -> None:
        self._stdin_fd = stdin_fd  # -1 once closed
        self._stdout_fd = stdout_fd  # -1 once closed
        self._splitter = LineSplitter(max_line_bytes)
        self._write_lock = anyio.Lock(fast_acquire=True)
        self._unsent = b""  # the rest of a line whose writer was cancelled
        self._ready: list[bytes | LineTooLongError] | None = None  # read, not yet returned
        self._stdout_eof = False
        # asyncio: a registration of stdout kept with the loop (None: not decided yet;
        # False: use anyio.wait_readable, as on Trio).
        self._readiness: _LoopReadiness | Literal[False] | None = None
        self._stderr = stderr if stderr is not None else StderrTail()

    @property
    def splitter(self) -> LineSplitter:
        """The line splitter (its counters say how many lines were skipped or too long)."""
        return self._splitter

    @property
    def stderr(self) -> StderrTail:
        """The stderr tail buffer."""
        return self._stderr

    @property
    def stderr_tail(self) -> str:
        return self._stderr.text

    # -- stdin ---------------------------------------------------------------------------

    async def send(self, line: bytes) -> None:
        lock = self._write_lock
        if lock.locked() or self._unsent:
            await self._send_in_turn(line)
            return
        fd = self._stdin_fd
        if fd < 0:
            raise anyio.ClosedResourceError
        # The fast path: no lock, no checkpoint, one system call.
        written = _writev(fd, (line, _NL))
        if written == len(line) + 1:
            return
        lock.acquire_nowait()  # free: nothing yielded since the check above
        try:
            await self._write_all(fd, _rest([line, _NL], written))  # tries once more first
        finally:
            lock.release()

    async def _send_in_turn(self, line: bytes) -> None:
        async with self._write_lock:
            fd = self._stdin_fd
            if fd < 0:
                raise anyio.ClosedResourceError
            buffers: _Buffers = [line, _NL]
            if self._unsent:
                buffers.insert(0, self._unsent)
                self._unsent = b""
            await self._write_all(fd, buffers)

    async def _write_all(self, fd: int, buffers: _Buffers) -> None:
        """Write ``buffers`` (the caller holds the lock), waiting while the pipe is full."""
        while True:
            buffers = _rest(buffers, _writev(fd, buffers))
            if not buffers:
                return
            try:
                await anyio.wait_writable(fd)
            except anyio.ClosedResourceError:
                raise
            except BaseException:
                # Cancelled mid-line: the next writer (or send_eof) sends the rest first.
                self._unsent = b"".join(buffers)
                raise
            if self._stdin_fd != fd:
                raise anyio.ClosedResourceError

    async def send_eof(self) -> None:
        if self._stdin_fd < 0:
            return
        async with self._write_lock:
            try:
                if self._unsent and self._stdin_fd >= 0:
                    unsent, self._unsent = self._unsent, b""
                    await self._write_all(self._stdin_fd, [unsent])
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
            finally:
                self.close_stdin()

    def close_stdin(self) -> None:
        """Close stdin now, whatever a writer is doing (it gets ``ClosedResourceError``)."""
        fd, self._stdin_fd = self._stdin_fd, -1
        if fd >= 0:
            _close(fd)

    # -- stdout --------------------------------------------------------------------------

    async def receive_lines(self) -> list[bytes | LineTooLongError]:
        ready = self._ready
        if ready is not None:  # a previous call read these, then was cancelled
            await anyio.lowlevel.checkpoint()
            self._ready = None
            return ready
        if self._stdout_eof:
            raise anyio.EndOfStream
        splitter = self._splitter
        waited = False
        size = READ_BYTES
        while True:
            fd = self._stdout_fd
            chunk = b""
            if fd >= 0:
                try:
                    chunk = os.read(fd, size)
                except BlockingIOError:
                    try:
                        await self._wait_readable(fd)
                    except anyio.ClosedResourceError:
                        pass  # closed under us: the end of the stream
                    else:
                        waited = True
                        continue
                except OSError:
                    pass  # EIO and the like: the end of the stream
            if chunk:
                self.last_received: float | None = anyio.current_time()
                lines = splitter.feed(chunk)
                if not lines:  # part of a line (maybe a long one): let others run meanwhile
                    size = READ_CHUNK
                    await anyio.lowlevel.checkpoint()
                    waited = True
                    continue
            else:
                self._stdout_eof = True
                lines = splitter.close()
                if not lines:
                    if not waited:
                        await anyio.lowlevel.checkpoint()
                    raise anyio.EndOfStream
            if not waited:
                # Yield once, so that the tasks these lines wake can run; a cancellation
                # here keeps the lines for the next call.
                self._ready = lines
                await anyio.lowlevel.checkpoint()
                self._ready = None
            return lines

    async def _wait_readable(self, fd: int) -> None:
        """Wait until stdout is readable (``anyio.ClosedResourceError`` if it is closed)."""
        if self._readiness is None:
            self._readiness = _LoopReadiness.for_fd(fd) or False
        readiness = self._readiness
        if readiness:
            await readiness.wait()
        else:
            await anyio.wait_readable(fd)

    async def discard_stdout(self) -> None:
        """Read and drop stdout until its end, so that a CLI blocked writing can exit."""
        while not self._stdout_eof:
            fd = self._stdout_fd
            if fd < 0:
                return
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                try:
                    await self._wait_readable(fd)
                except anyio.ClosedResourceError:
                    return
                continue
            except OSError:
                return
            if not chunk:
                self._stdout_eof = True

    # -- both ----------------------------------------------------------------------------

    def close(self) -> None:
        """Close both descriptors (idempotent)."""
        self.close_stdin()
        fd, self._stdout_fd = self._stdout_fd, -1
        if fd >= 0:
            if self._readiness:
                self._readiness.close()
            _close(fd)


class _LoopReadiness:
    """Readability of one descriptor on an asyncio loop, registered once (issue 8).

    ``anyio.wait_readable`` on asyncio adds a reader and removes it again on every call: two
    ``epoll_ctl`` calls and a selector key per wait, on the path of every round trip. Here the
    registration stays while somebody waits or the descriptor stays empty; a readiness
    nobody waits for unregisters it (level-triggered: it would fire on every loop iteration
    until read), and the next `wait` registers it again.
    """

    __slots__ = ("_fd", "_loop", "_registered", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        self._loop = loop
        self._fd = fd
        self._waiter: asyncio.Future[None] | None = None
        self._registered = False

    @classmethod
    def for_fd(cls, fd: int) -> _LoopReadiness | None:
        """One for ``fd`` when running on an asyncio loop that can watch it, else None."""
        # Not imported here: a Trio program never loads asyncio, so it cannot be running.
        aio = sys.modules.get("asyncio")
        if aio is None or anyio.get_cancelled_exc_class() is not aio.CancelledError:
            return None  # Trio: its wait_readable keeps the registration already
        loop: asyncio.AbstractEventLoop = aio.get_running_loop()
        try:
            loop.add_reader(fd, lambda: None)
            loop.remove_reader(fd)
        except NotImplementedError:  # a loop without add_reader (Windows' proactor)
            return None
        return cls(loop, fd)

    def _on_readable(self) -> None:
        waiter = self._waiter
        if waiter is None:
            self._loop.remove_reader(self._fd)
            self._registered = False
        else:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def wait(self) -> None:
        """Wait until the descriptor is readable."""
        if self._waiter is not None:
            raise anyio.BusyResourceError("reading from")
        if not self._registered:
            self._loop.add_reader(self._fd, self._on_readable)
            self._registered = True
        waiter = self._waiter = self._loop.create_future()
        try:
            await waiter
        finally:
            if self._waiter is waiter:
                self._waiter = None

    def close(self) -> None:
        """Unregister (before the descriptor closes); a waiter gets ClosedResourceError."""
        if self._registered:
            self._registered = False
            with contextlib.suppress(Exception):  # the loop may be closed already
                self._loop.remove_reader(self._fd)
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(anyio.ClosedResourceError())


def _close(fd: int) -> None:
    """Close ``fd``, waking any task parked on it first."""
    with contextlib.suppress(RuntimeError):  # no event loop here: nobody can be waiting
        anyio.notify_closing(fd)
    os.close(fd)
