"""One behavioural suite for every transport: the same tests, the same fake CLI.

Parametrised over:

* ``subprocess``: `SubprocessTransport` running ``tests/support/fake_claude.py``;
* ``ssh``: `SSHTransport` to a real ``sshd`` on 127.0.0.1 (``tests/support/sshd.py``)
  running the same fake "remotely" (same machine: a launcher that runs it with this
  interpreter, ``remote_python`` = this interpreter);
* ``container``: `ContainerTransport` through the stub ``docker`` on ``PATH``
  (``tests/support/stub_runtime.py``), which runs the wrapper and the fake in a session of
  their own, out of the client's reach, as a real container would;
* ``memory``: `MemoryTransport` with a Python peer that mimics the fake CLI.

Covered: framing (a turn, many frames in order), EOF at the connection level, a 10 MB line,
stderr (tail and callback), exit codes, cancellation and teardown, with no process left
(by pid: the local client, everything below it, and for SSH everything below sshd), and
the teardown's ``shutdown_deadline``. Every test runs on asyncio and Trio.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

import claude_sdk as cs
from claude_sdk._protocol.launch import LaunchSpec, build_launch_spec
from claude_sdk.transports import _remote
from claude_sdk.transports import memory as memory_transport
from claude_sdk.transports import subprocess as subprocess_transport
from claude_sdk.transports.base import Connection, Transport
from claude_sdk.transports.container import ContainerTransport
from claude_sdk.transports.memory import MemoryConnection, MemoryPeer, MemoryTransport
from claude_sdk.transports.ssh import SSHTransport
from claude_sdk.transports.subprocess import SubprocessTransport

from ..support.procs import alive, descendants, wait_dead
from ..support.sshd import SSHServer

FAKE = Path(__file__).resolve().parent.parent / "support" / "fake_claude.py"
MB = 1024 * 1024
KINDS = ["subprocess", "ssh", "container", "memory"]

# --------------------------------------------------------------------------------------
# helpers shared with test_ssh.py, test_container.py and tests/e2e/test_ssh_e2e.py

#: A line the launcher writes to stderr when ``LAUNCHER_REPORT=1``.
REPORT_PREFIX = "launcher-report="


def write_launcher(directory: Path) -> Path:
    """An executable that runs the fake CLI with this interpreter (any PATH, any shell).

    With ``LAUNCHER_REPORT=1`` in its environment it first writes its argv, working
    directory and environment to stderr as one ``launcher-report=<json>`` line.
    """
    directory.mkdir(parents=True, exist_ok=True)
    launcher = directory / "claude-launcher"
    launcher.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "if os.environ.get('LAUNCHER_REPORT') == '1':\n"
        "    report = {'argv': sys.argv[1:], 'cwd': os.getcwd(), 'env': dict(os.environ)}\n"
        f"    sys.stderr.write({REPORT_PREFIX!r} + json.dumps(report) + '\\n')\n"
        "    sys.stderr.flush()\n"
        f"os.execv(sys.executable, [sys.executable, {str(FAKE)!r}, *sys.argv[1:]])\n"
    )
    launcher.chmod(0o755)
    return launcher


def launcher_report(lines: list[str]) -> dict[str, Any]:
    """The launcher's report among stderr lines."""
    for line in lines:
        if line.startswith(REPORT_PREFIX):
            report: dict[str, Any] = json.loads(line[len(REPORT_PREFIX) :])
            return report
    raise AssertionError(f"no launcher report in {lines}")


class Capturing(Transport):
    """Wraps a transport and keeps the connections it yields (to read pids in tests)."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.connections: list[Connection] = []

    @asynccontextmanager
    async def connect(self, spec: LaunchSpec) -> AsyncIterator[Connection]:
        async with self.inner.connect(spec) as conn:
            self.connections.append(conn)
            yield conn

    def describe(self) -> str:
        return self.inner.describe()


class StderrWatch:
    """A stderr callback that keeps the lines and signals when one starts with a prefix."""

    def __init__(self, prefix: str = "grandchild=") -> None:
        self.lines: list[str] = []
        self.prefix = prefix
        self.seen = anyio.Event()

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        if line.startswith(self.prefix):
            self.seen.set()

    def value(self) -> str:
        return next(x for x in self.lines if x.startswith(self.prefix))[len(self.prefix) :]


def process_tree(roots: list[int]) -> list[int]:
    """``roots`` and all their living descendants, now."""
    found = [pid for pid in roots if alive(pid)]
    for root in roots:
        found += descendants(root)
    return sorted(set(found))


# --------------------------------------------------------------------------------------
# the memory peer: fake_claude.py in Python


def _behaviour(spec: LaunchSpec) -> dict[str, str]:
    conf: dict[str, str] = {}
    for item in filter(None, spec.env.get("FAKE_CLAUDE", "").split(",")):
        name, _, value = item.partition("=")
        conf[name.strip()] = value.strip() or "1"
    return conf


def _assistant(text: str, n: int = 0) -> dict[str, Any]:
    message: dict[str, Any] = {"id": f"msg_fake_{n}", "type": "message", "role": "assistant"}
    message |= {"model": "claude-fake", "content": [{"type": "text", "text": text}]}
    message |= {"stop_reason": None, "stop_sequence": None}
    return {
        "type": "assistant",
        "message": message,
        "parent_tool_use_id": None,
        "session_id": "fake-session",
    }


async def fake_peer(peer: MemoryPeer) -> None:
    """What ``fake_claude.py`` does, as a `MemoryTransport` peer."""
    conf = _behaviour(peer.spec)

    async def send(obj: dict[str, Any]) -> None:
        await peer.send_line(json.dumps(obj).encode())

    if "exit_now" in conf:
        peer.write_stderr("fake claude refuses to start\n")
        await peer.exit(int(conf["exit_now"]))
        return
    if "stderr_flood" in conf:
        chunk = "x" * 1023 + "\n"
        peer.write_stderr(chunk * (int(conf["stderr_flood"]) // len(chunk)))
    while True:
        try:
            msg = json.loads(await peer.read_line())
        except anyio.EndOfStream:
            break
        if msg.get("type") == "control_request":
            response: dict[str, Any] = {"subtype": "success", "request_id": msg["request_id"]}
            response["response"] = {"claude_code_version": "0.0.0-fake"}
            await send({"type": "control_response", "response": response})
        elif msg.get("type") == "user":
            if "exit" in conf:
                peer.write_stderr("boom\n")
                await peer.exit(int(conf["exit"]))
                return
            for i in range(int(conf.get("flood", 0))):
                await send(_assistant(f"frame {i}", i))
            if "big_line" in conf:
                await send(_assistant("y" * int(conf["big_line"])))
            result = {"type": "result", "subtype": "success", "is_error": False}
            await send({**result, "result": "done", "session_id": "fake-session"})
    if "ignore_term" in conf or "ignore_eof" in conf:
        await anyio.sleep_forever()


# --------------------------------------------------------------------------------------
# the cases


@attrs.define
class Case:
    """One transport under test, and how to reach its fake CLI."""

    kind: str
    transport: Capturing
    cli: str
    sshd_pid: int | None = None

    @property
    def real_processes(self) -> bool:
        return self.kind != "memory"

    def options(self, behaviour: str = "", **kwargs: Any) -> cs.Options:
        env = {"FAKE_CLAUDE": behaviour, **kwargs.pop("env", {})}
        kwargs.setdefault("initialize_timeout", 20.0)
        return cs.Options(cli_path=self.cli, env=env, **kwargs)

    def spec(self, behaviour: str = "", **kwargs: Any) -> LaunchSpec:
        return build_launch_spec(self.options(behaviour, **kwargs))

    def processes(self) -> list[int]:
        """Every process this case's connection runs, now (empty for memory)."""
        if not self.real_processes:
            return []
        roots = [pid for conn in self.transport.connections if (pid := conn.pid) is not None]
        if self.sshd_pid is not None:
            return process_tree(roots) + descendants(self.sshd_pid)
        return process_tree(roots)

    async def nothing_left(self, pids: list[int]) -> None:
        """Every pid in ``pids`` ends, and for SSH nothing runs below sshd any more."""
        assert await wait_dead(pids, timeout=6) == []
        if self.sshd_pid is not None:
            assert await wait_dead(descendants(self.sshd_pid), timeout=6) == []
        for conn in self.transport.connections:
            if isinstance(conn, MemoryConnection):
                assert conn.peer.returncode is not None


# The fixtures ``sshd``, ``launcher`` and ``stub_bin`` are in conftest.py (shared with
# test_teardown.py).


def make_case(
    kind: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, launcher: Path
) -> Case:
    if kind == "subprocess":
        return Case(kind, Capturing(SubprocessTransport()), str(FAKE))
    if kind == "ssh":
        server: SSHServer = request.getfixturevalue("sshd")
        ssh = SSHTransport(server.host, **server.transport_kwargs(remote_python=sys.executable))
        return Case(kind, Capturing(ssh), str(launcher), sshd_pid=server.pid)
    if kind == "container":
        stub: Path = request.getfixturevalue("stub_bin")
        monkeypatch.setenv("PATH", f"{stub}{os.pathsep}{os.environ['PATH']}")
        container = ContainerTransport("docker", container="sandbox", remote_python=sys.executable)
        return Case(kind, Capturing(container), str(launcher))
    return Case(kind, Capturing(MemoryTransport(fake_peer)), "claude")


@pytest.fixture(params=KINDS)
def case(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, launcher: Path) -> Case:
    return make_case(request.param, request, monkeypatch, launcher)


# --------------------------------------------------------------------------------------
# the suite


async def test_a_turn_arrives_framed_and_in_order(case: Case) -> None:
    async with cs.open_session(case.options("flood=200"), transport=case.transport) as session:
        assert session.server_info is not None
        assert session.server_info.claude_code_version == "0.0.0-fake"
        await session.send("hello")
        messages = [m async for m in session.receive_response()]
        running = case.processes()
    texts = [m.text for m in messages if isinstance(m, cs.AssistantMessage)]
    assert texts == [f"frame {i}" for i in range(200)]
    assert isinstance(messages[-1], cs.ResultMessage)
    assert messages[-1].result == "done"
    assert session.returncode == 0
    await case.nothing_left(running)


async def test_eof_on_the_connection(case: Case) -> None:
    """The raw contract: a line in, a line out, stdin EOF, stdout EOF, exit status 0."""
    request: dict[str, Any] = {"type": "control_request", "request_id": "r1"}
    request["request"] = {"subtype": "initialize", "hooks": None}
    async with case.transport.connect(case.spec()) as conn:
        await conn.send(json.dumps(request).encode())
        with anyio.fail_after(20):
            answer = json.loads(await conn.receive())
        assert answer["response"]["request_id"] == "r1"
        await conn.send_eof()
        await conn.send_eof()  # idempotent
        with pytest.raises(anyio.ClosedResourceError):
            await conn.send(b"{}")
        with anyio.fail_after(20):
            with pytest.raises(anyio.EndOfStream):
                await conn.receive()
            assert await conn.wait() == 0
        assert conn.returncode == 0
        with pytest.raises(anyio.EndOfStream):
            await conn.receive_lines()


async def test_a_10_megabyte_line_arrives_intact(case: Case) -> None:
    size = 10 * MB
    with anyio.fail_after(30):
        reply = await cs.ask(
            "hi", options=case.options(f"big_line={size}"), transport=case.transport
        )
    big = [m.text for m in reply.messages if isinstance(m, cs.AssistantMessage)]
    assert [len(t) for t in big] == [size]
    assert big[0] == "y" * size


async def test_stderr_reaches_the_callback_and_the_tail(case: Case) -> None:
    seen: list[str] = []
    opts = case.options(f"stderr_flood={MB}", stderr=seen.append)
    async with cs.open_session(opts, transport=case.transport) as session:
        await session.send("hi")
        async for _ in session.receive_response():
            pass
        tail = session.stderr_tail
    lines = [line for line in seen if line.startswith("x")]
    assert len(lines) == MB // 1024
    assert all(line == "x" * 1023 for line in lines)
    assert "@claude_sdk:" not in "".join(seen)  # the wrapper's reports are not stderr
    assert tail.splitlines()[-1] == "x" * 1023
    assert len(tail) <= 64 * 1024 + 1024  # bounded


async def test_an_exit_mid_turn_is_a_process_error(case: Case) -> None:
    async with cs.open_session(case.options("exit=3"), transport=case.transport) as session:
        await session.send("go")
        with pytest.raises(cs.ProcessError) as info:
            async for _ in session.receive_response():
                pass
    assert info.value.exit_code == 3
    assert info.value.signal is None
    assert "boom" in info.value.stderr_tail
    assert session.returncode == 3


async def test_an_exit_at_start_is_a_process_error(case: Case) -> None:
    with pytest.raises(cs.ProcessError) as info:
        async with cs.open_session(case.options("exit_now=2"), transport=case.transport):
            pytest.fail("the session must not start")
    assert info.value.exit_code == 2
    assert "refuses to start" in info.value.stderr_tail


async def test_cancelling_mid_turn_leaves_nothing(case: Case) -> None:
    watch = StderrWatch()
    behaviour = "grandchild,flood=100000" if case.real_processes else "flood=100000"
    opts = case.options(behaviour, stderr=watch, shutdown_grace=0.3)
    running: list[int] = []
    with anyio.fail_after(60), anyio.CancelScope() as scope:  # a hang guard, not a measure
        async with cs.open_session(opts, transport=case.transport) as session:
            await session.send("go")
            async for _ in session.receive_messages():
                break  # the turn is streaming
            if case.real_processes:
                with anyio.fail_after(10):
                    await watch.seen.wait()
                running = case.processes()
                assert int(watch.value()) in running
            scope.cancel()
            await anyio.sleep_forever()
    assert scope.cancelled_caught
    await case.nothing_left(running)


async def test_teardown_escalates_to_sigkill_bounded(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CLI that ignores stdin EOF and SIGTERM: grace, SIGTERM, SIGKILL; all bounded."""
    monkeypatch.setattr(subprocess_transport, "TERM_GRACE", 0.3)
    monkeypatch.setattr(_remote, "TERM_GRACE", 0.3)
    watch = StderrWatch()
    behaviour = "grandchild,ignore_term" if case.real_processes else "ignore_term"
    opts = case.options(behaviour, stderr=watch, shutdown_grace=0.1)
    running: list[int] = []
    # EOF ignored -> 0.1 s -> SIGTERM ignored -> 0.3 s -> SIGKILL: without the SIGKILL the
    # block never ends (a hang guard, not a measure).
    with anyio.fail_after(60):
        async with cs.open_session(opts, transport=case.transport) as session:
            await session.send("go")
            async for _ in session.receive_response():
                pass
            if case.real_processes:
                with anyio.fail_after(10):
                    await watch.seen.wait()
                running = case.processes()
    await case.nothing_left(running)


# --------------------------------------------------------------------------------------
# the shutdown deadline (Connection.shutdown_deadline)

#: A ``shutdown_grace`` of an hour: a teardown that waited it out (the wrong rule) would
#: hang into pytest-timeout instead of passing. No test here measures how long a teardown
#: took (that is a benchmark's job): which rule acted is read from the returncode, from
#: what the transport computed (a spy on its ``graceful_end``), and from the order of events.
FOREVER = 3600.0


async def handshake(conn: Connection) -> None:
    """One initialize round trip: the CLI runs and reads its stdin."""
    request: dict[str, Any] = {"type": "control_request", "request_id": "hello"}
    request["request"] = {"subtype": "initialize", "hooks": None}
    await conn.send(json.dumps(request).encode())
    with anyio.fail_after(20):
        answer = json.loads(await conn.receive())
    assert answer["response"]["request_id"] == "hello"


@attrs.define
class Ending:
    """One call of the transport's ``graceful_end``: its arguments, its answer, and the
    clock just before and just after the call (what "now" was inside it lies between)."""

    grace: float
    deadline: float | None
    end: float  # when the graceful part of the teardown ends (``anyio.current_time()``)
    before: float
    after: float

    def one_grace_after_the_call(self) -> bool:
        """``end`` is ``grace`` after the call (not another grace: not the default)."""
        return self.before + self.grace <= self.end <= self.after + self.grace


def watch_graceful_end(case: Case, monkeypatch: pytest.MonkeyPatch) -> list[Ending]:
    """Record each ``graceful_end`` computed by ``case``'s transport."""
    modules = {"subprocess": subprocess_transport, "memory": memory_transport}
    module = modules.get(case.kind, _remote)  # ssh and container: the remote connection
    seen: list[Ending] = []
    real = module.graceful_end

    def graceful_end(grace: float, deadline: float | None) -> float:
        before = anyio.current_time()
        end: float = real(grace, deadline)
        seen.append(Ending(grace, deadline, end, before, anyio.current_time()))
        return end

    monkeypatch.setattr(module, "graceful_end", graceful_end)
    return seen


@attrs.define
class Left:
    """How leaving a ``connect`` block went."""

    deadline: float | None  # the deadline set (None: none)
    leaving: float  # ``anyio.current_time()`` as the block was left (before the teardown)
    ending: Ending  # the teardown's graceful end (the last one computed)
    done: float  # ``anyio.current_time()`` once the teardown had returned
    returncode: int | None
    running: list[int]  # the processes that ran (to check that none is left)
    stderr: str


async def leave(
    case: Case,
    monkeypatch: pytest.MonkeyPatch,
    behaviour: str,
    ahead: float | None,
    *,
    eof_first: bool = False,
    shutdown_grace: float = FOREVER,
) -> Left:
    """Connect, handshake, set the deadline ``ahead`` seconds from now (None: none), leave.

    With ``eof_first``, stdin is closed before the deadline is set.
    """
    endings = watch_graceful_end(case, monkeypatch)
    deadline = None
    async with case.transport.connect(case.spec(behaviour, shutdown_grace=shutdown_grace)) as conn:
        await handshake(conn)
        running = case.processes()
        if eof_first:
            await conn.send_eof()
        if ahead is not None:
            deadline = conn.shutdown_deadline = anyio.current_time() + ahead
        leaving = anyio.current_time()
    done = anyio.current_time()
    await case.nothing_left(running)
    assert endings, "the transport computed no graceful end"
    return Left(deadline, leaving, endings[-1], done, conn.returncode, running, conn.stderr_tail)


async def test_a_past_deadline_terminates_at_once(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CLI that ignores stdin EOF, a grace of an hour, a deadline now: SIGTERM at once
    (waiting the grace would hang)."""
    left = await leave(case, monkeypatch, "ignore_eof", 0.0)
    assert left.ending.end == left.deadline  # the deadline, not the hour's grace
    assert left.returncode == -15, left  # terminated: not an exit of its own, not SIGKILL


async def test_a_deadline_ahead_is_when_the_cli_is_terminated(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    left = await leave(case, monkeypatch, "ignore_eof", 0.5)
    assert left.deadline is not None
    assert left.ending.end == left.deadline  # the deadline, not the hour's grace
    assert left.done >= left.deadline  # not terminated before the deadline came
    assert left.returncode == -15


async def test_a_deadline_set_after_stdin_closed_still_applies(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI was told the full grace (an hour) at EOF; the deadline, set later, shortens
    it (a teardown that kept the hour would hang)."""
    left = await leave(case, monkeypatch, "ignore_eof", 0.0, eof_first=True)
    assert left.ending.deadline == left.deadline  # the teardown saw the later deadline
    assert left.ending.end == left.deadline
    assert left.returncode == -15


async def test_a_deadline_never_lengthens_the_grace(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grace of 0.3 s and a deadline an hour ahead: the grace (the deadline would hang)."""
    left = await leave(case, monkeypatch, "ignore_eof", FOREVER, shutdown_grace=0.3)
    assert left.deadline is not None
    assert left.ending.grace == 0.3
    assert left.ending.deadline == left.deadline
    assert left.ending.one_grace_after_the_call()  # the grace's end, not the deadline
    assert left.leaving <= left.ending.before  # counted from the teardown
    assert left.ending.end < left.deadline
    assert left.done >= left.ending.end  # the grace was given before the SIGTERM
    assert left.returncode == -15


async def test_without_a_deadline_the_grace_is_given_in_full(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    left = await leave(case, monkeypatch, "ignore_eof", None, shutdown_grace=0.6)
    assert left.ending.grace == 0.6  # the grace given, not the default
    assert left.ending.deadline is None
    assert left.ending.one_grace_after_the_call()  # that grace, whole
    assert left.leaving <= left.ending.before  # counted from the teardown
    assert left.done >= left.ending.end  # in full: not terminated before it ran out
    assert left.returncode == -15  # then terminated: it ignores EOF


async def test_without_a_deadline_a_cli_that_exits_on_eof_is_not_signalled(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It exits on EOF: nothing waits for the grace (an hour: waiting it would hang)."""
    left = await leave(case, monkeypatch, "", None)
    assert left.ending.grace == FOREVER
    assert left.returncode == 0
