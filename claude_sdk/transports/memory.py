"""`MemoryTransport`: the other end of the wire is Python code, in memory.

The peer (a coroutine function, typically a ``claude_sdk.testing.FakeCLI`` script) runs in
a task group that ``connect`` owns, and talks to the SDK through a `MemoryPeer`: raw bytes or
lines to the SDK's stdout side, lines from its stdin side, stderr text, and an exit code.
Framing on the SDK side is the same `LineSplitter` as for a real process, so partial lines,
garbage and oversized lines behave exactly as they would over a pipe.

Leaving ``connect`` closes the peer's stdin and gives it ``shutdown_grace`` (or until the
connection's ``shutdown_deadline``, if sooner) to exit; a peer still running then is
cancelled (what SIGTERM and SIGKILL are to a process) and reports `TERMINATED`.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio
import anyio.abc
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from .._protocol.framing import LineSplitter
from .._protocol.launch import LaunchSpec
from ._teardown import graceful_end
from .base import ByteStreamConnection, Connection, Lifetime, StderrTail, Transport

__all__ = ["MemoryConnection", "MemoryPeer", "MemoryTransport", "PeerFunction"]

#: Exit code reported for a peer that was still running when the connection was torn down
#: (what a real CLI killed by SIGTERM reports).
TERMINATED = -15
#: Seconds a peer runs after a teardown whose deadline has passed, before it is cancelled.
TERMINATION = 0.05


class _ReceiveBytes(anyio.abc.ByteReceiveStream):
    def __init__(self, stream: MemoryObjectReceiveStream[bytes]) -> None:
        self._stream = stream

    async def receive(self, max_bytes: int = 65536) -> bytes:
        return await self._stream.receive()

    async def aclose(self) -> None:
        await self._stream.aclose()


class _SendBytes(anyio.abc.ByteSendStream):
    def __init__(self, stream: MemoryObjectSendStream[bytes]) -> None:
        self._stream = stream

    async def send(self, item: bytes) -> None:
        await self._stream.send(item)

    async def aclose(self) -> None:
        await self._stream.aclose()


class MemoryPeer:
    """The CLI's side of a `MemoryTransport` connection.

    Attributes:
        spec: the launch spec the SDK asked for (argv, env, cwd).
        returncode: the exit code once the peer has exited.
    """

    def __init__(
        self,
        spec: LaunchSpec,
        stdin: MemoryObjectReceiveStream[bytes],
        stdout: MemoryObjectSendStream[bytes],
        stderr: StderrTail,
        sink: Callable[[bytes], None] | None = None,
    ) -> None:
        self.spec = spec
        self._sink = sink
        self._stdin = stdin
        self._stdout = stdout
        self._stderr = stderr
        self._splitter = LineSplitter()
        self._lines: list[bytes] = []
        self.returncode: int | None = None
        self.exited: anyio.Event = anyio.Event()
        self.stdin_closed: anyio.Event = anyio.Event()

    async def write(self, data: bytes) -> None:
        """Write raw bytes to the SDK (need not be whole lines)."""
        if self.returncode is not None:
            raise anyio.ClosedResourceError
        if self._sink is not None:
            # Written before this returns, as a process's write to a pipe: a peer that dies
            # right after (SIGKILL) loses nothing it wrote.
            self._sink(data)
            await anyio.lowlevel.checkpoint()
            return
        await self._stdout.send(data)

    async def send_line(self, line: bytes) -> None:
        """Write one line (a newline is appended)."""
        await self.write(line + b"\n")

    async def read_line(self) -> bytes:
        """The next line the SDK wrote to stdin.

        Raises:
            anyio.EndOfStream: the SDK closed stdin.
        """
        while not self._lines:
            try:
                chunk = await self._stdin.receive()
            except anyio.EndOfStream:
                self.stdin_closed.set()
                rest = [x for x in self._splitter.close() if isinstance(x, bytes)]
                if rest:
                    self._lines.extend(rest)
                    break
                raise
            self._lines.extend(x for x in self._splitter.feed(chunk) if isinstance(x, bytes))
        return self._lines.pop(0)

    def write_stderr(self, text: str) -> None:
        """Write text to stderr."""
        self._stderr.feed(text.encode())

    async def exit(self, code: int = 0) -> None:
        """Exit: stdout closes and the process reports ``code``."""
        if self.returncode is None:
            self.returncode = code
            self._stderr.close()
            await self._stdout.aclose()
            self.exited.set()


PeerFunction = Callable[[MemoryPeer], Awaitable[None]]


class MemoryConnection(ByteStreamConnection):
    """A `Connection` whose process is a `MemoryPeer`."""

    def __init__(
        self,
        peer: MemoryPeer,
        stdin: MemoryObjectSendStream[bytes],
        stdout: MemoryObjectReceiveStream[bytes],
        spec: LaunchSpec,
        stderr: StderrTail,
    ) -> None:
        super().__init__(
            _SendBytes(stdin),
            _ReceiveBytes(stdout),
            max_line_bytes=spec.max_line_bytes,
            stderr=stderr,
        )
        self.peer = peer

    @property
    def returncode(self) -> int | None:
        return self.peer.returncode

    async def wait(self) -> int | None:
        await self.peer.exited.wait()
        return self.peer.returncode

    @property
    def cli_path(self) -> str | None:
        return "<memory>"


class MemoryTransport(Transport):
    """Runs ``peer(MemoryPeer)`` as the CLI, in memory.

    When the peer function returns, the peer exits with code 0 (unless it exited itself).
    When it raises, the peer exits with code 1 and the error text goes to its stderr, as a
    crashing CLI's would. On teardown, a peer still running after stdin closed and the
    shutdown grace passed (or the connection's ``shutdown_deadline``) is cancelled and
    reports exit code -15.
    """

    def __init__(self, peer: PeerFunction) -> None:
        self._peer_fn = peer
        self.connections: list[MemoryConnection] = []
        #: Where the peer's stdout goes instead of the connection, written synchronously
        #: (``claude_sdk.testing.stdio`` serving a script as a process); None: the SDK side.
        self.stdout_sink: Callable[[bytes], None] | None = None

    @asynccontextmanager
    async def connect(self, spec: LaunchSpec) -> AsyncIterator[Connection]:
        stdin_send, stdin_recv = anyio.create_memory_object_stream[bytes](math.inf)
        stdout_send, stdout_recv = anyio.create_memory_object_stream[bytes](math.inf)
        stderr = StderrTail(callback=spec.stderr)
        peer = MemoryPeer(spec, stdin_recv, stdout_send, stderr, self.stdout_sink)
        conn = MemoryConnection(peer, stdin_send, stdout_recv, spec, stderr)
        self.connections.append(conn)

        # The peer lives like a process: a cancellation of the scope around the session does
        # not reach it; only the teardown ends it (as SIGTERM ends a CLI), so it still reads
        # what the SDK wrote before it left (an interrupt, on a hasty exit).
        peer_scope = anyio.CancelScope(shield=True)

        lifetime = Lifetime.start("the in-memory CLI", spec.argv, None)

        async def run_peer() -> None:
            with peer_scope:
                try:
                    await self._peer_fn(peer)
                except anyio.get_cancelled_exc_class():
                    with anyio.CancelScope(shield=True):
                        await peer.exit(TERMINATED)
                    raise
                except Exception as exc:  # a crashing CLI: exit 1, error on stderr
                    peer.write_stderr(f"{type(exc).__name__}: {exc}\n")
                    await peer.exit(1)
                    return
                await peer.exit(0)

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(run_peer)
                try:
                    yield conn
                finally:
                    with anyio.CancelScope(shield=True):
                        end = graceful_end(spec.shutdown_grace, conn.shutdown_deadline)
                        # Not bounded by `end`: closing the stream does not block, and even
                        # a peer past its deadline sees its stdin close before it is
                        # cancelled.
                        await conn.send_eof()
                        # Past the deadline, the peer still gets a moment to run, as a real
                        # process gets between SIGTERM and its death: it reads what the SDK
                        # wrote last (an interrupt, on a hasty exit) before it is cancelled.
                        end = max(end, anyio.current_time() + TERMINATION)
                        with anyio.CancelScope(deadline=end):
                            await peer.exited.wait()
                    peer_scope.cancel()
                    tg.cancel_scope.cancel()
        finally:
            # Only once the peer is done: a peer woken by the end of its stdin but not yet
            # run would find its stream closed (ClosedResourceError, a crash) instead.
            stdout_recv.close()
            stdin_recv.close()
            if lifetime is not None:
                lifetime.exited(peer.returncode)
