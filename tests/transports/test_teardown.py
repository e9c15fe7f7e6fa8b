"""Nothing a CLI leaves in its process group survives it (issue 14), with real processes.

The fake CLI (``tests/support/fake_claude.py``) starts ``sh -c "trap '' TERM; exec sleep
1000"`` in its process group (``stubborn``), or the same double-forked, so that no process
of ours is its parent (``stubborn_orphan``). However the CLI ends (it exits on its own, the
teardown terminates it, it ignores SIGTERM too, the block is cancelled), the leftover gets
SIGTERM, ignores it, and gets SIGKILL `TERM_GRACE` later. The tests check which rule acted,
never how fast: the leftover ignores SIGTERM (``/proc``), so its being gone means a SIGKILL
reached it; the CLI's return code tells SIGTERM from SIGKILL; and with a `TERM_GRACE` of an
hour the leftover is seen alive after the SIGTERM that ended the CLI (the SIGKILL waits for
the grace), until the test ends it itself. Run for the local subprocess, SSH to a real sshd
and the stub container runtime; the "far side" is this machine, so the leftover is checked
by pid there too. Every test runs on asyncio and Trio.

Also here: the wrapper's splitting of the SDK's control lines out of its stdin.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claude_sdk.transports import _remote
from claude_sdk.transports import subprocess as subprocess_transport
from claude_sdk.transports._remote import RemoteConnection
from claude_sdk.transports.base import Connection

from ..support.deep import deep
from ..support.procs import alive, wait_dead
from .test_conformance import Case, StderrWatch, handshake, make_case

KINDS = ["subprocess", "ssh", "container"]
#: `TERM_GRACE` in these tests (the default, 2 s, would only make them slower).
TERM = 0.5
#: A grace no test outlives (pytest-timeout ends it first): a rule that waited it out, where
#: it should not, fails the test instead of passing slowly.
FOREVER = 3600.0
#: Seconds to wait for a process to be gone: a hang guard, not a measure.
HANG = 30.0


@pytest.fixture(params=KINDS)
def case(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, launcher: Path) -> Case:
    monkeypatch.setattr(subprocess_transport, "TERM_GRACE", TERM)
    monkeypatch.setattr(_remote, "TERM_GRACE", TERM)
    return make_case(request.param, request, monkeypatch, launcher)


def cli_pid(conn: Connection) -> int:
    """The CLI's own pid (for SSH and containers: on the far side, this machine here)."""
    pid = conn.remote_pid if isinstance(conn, RemoteConnection) else conn.pid
    assert pid is not None
    return pid


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def ignores(pid: int, sig: int) -> bool:
    """Whether ``pid`` ignores ``sig`` (``SigIgn`` in ``/proc``): then only another signal,
    such as SIGKILL, can have ended it."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    raise AssertionError(f"no SigIgn for {pid}")


async def leftover(conn: Connection, watch: StderrWatch, behaviour: str) -> int:
    """The stubborn leftover's pid, once the CLI runs: alive, in the CLI's group."""
    await handshake(conn)
    with anyio.fail_after(10):
        await watch.seen.wait()
    pid = int(watch.value())
    assert alive(pid)
    # Its shell sets the trap just after it reported its pid: wait for it (a hang guard).
    with anyio.fail_after(10):
        while not ignores(pid, signal.SIGTERM):  # noqa: ASYNC110 (no event for a trap)
            await anyio.sleep(0.01)
    # ... so, once it is gone, a SIGKILL ended it.
    assert os.getpgid(pid) == cli_pid(conn)  # in the CLI's process group
    if "stubborn_orphan" in behaviour:
        assert parent(pid) != cli_pid(conn)  # double-forked: not the CLI's child
    else:
        assert parent(pid) == cli_pid(conn)
    return pid


@pytest.mark.parametrize("behaviour", ["stubborn", "stubborn_orphan"])
async def test_a_leftover_of_a_cli_that_exits_on_its_own_is_killed(
    case: Case, behaviour: str
) -> None:
    """The CLI exits at stdin EOF, during the session: its leftover goes, session or not."""
    watch = StderrWatch("stubborn=")
    async with case.transport.connect(case.spec(behaviour, stderr=watch)) as conn:
        pid = await leftover(conn, watch, behaviour)
        running = [*case.processes(), pid]
        await conn.send_eof()  # the CLI exits (0); the leftover gets SIGTERM, ignores it
        assert await wait_dead([pid], timeout=HANG) == []  # so SIGKILL reached it
        with anyio.fail_after(10):
            assert await conn.wait() == 0
    await case.nothing_left(running)


@pytest.mark.parametrize("behaviour", ["ignore_eof,stubborn", "ignore_eof,stubborn_orphan"])
async def test_a_leftover_of_a_cli_the_teardown_terminates_is_killed(
    case: Case, behaviour: str
) -> None:
    """The CLI ignores EOF: SIGTERM after the grace ends it, SIGKILL TERM later the rest."""
    watch = StderrWatch("stubborn=")
    async with case.transport.connect(
        case.spec(behaviour, stderr=watch, shutdown_grace=0.2)
    ) as conn:
        pid = await leftover(conn, watch, behaviour)
        running = [*case.processes(), pid]
    assert await wait_dead([pid], timeout=HANG) == []  # SIGKILLed by the time connect returned
    assert conn.returncode == -signal.SIGTERM  # the grace ran out: SIGTERM, not SIGKILL
    await case.nothing_left(running)


async def test_the_leftover_gets_its_sigkill_only_after_the_term_grace(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SIGTERM after the grace ends the CLI and reaches its leftover, which ignores it;
    with a `TERM_GRACE` of an hour, the leftover still lives once the CLI is gone (no SIGKILL
    came with the SIGTERM), and the teardown waits for it: it returns once the test itself
    has ended the leftover (the group is empty), long before the hour."""
    monkeypatch.setattr(subprocess_transport, "TERM_GRACE", FOREVER)
    monkeypatch.setattr(_remote, "TERM_GRACE", FOREVER)
    behaviour = "ignore_eof,stubborn_orphan"
    watch = StderrWatch("stubborn=")
    order: list[str] = []

    async def end_the_leftover(cli: int, pid: int) -> None:
        assert await wait_dead([cli], timeout=HANG) == []  # the SIGTERM ended the CLI
        assert alive(pid)  # ... and no SIGKILL came with it
        order.append("leftover alive after the SIGTERM")
        os.kill(pid, signal.SIGKILL)

    async with anyio.create_task_group() as tg:
        async with case.transport.connect(
            case.spec(behaviour, stderr=watch, shutdown_grace=0.2)
        ) as conn:
            pid = await leftover(conn, watch, behaviour)
            running = [*case.processes(), pid]
            tg.start_soon(end_the_leftover, cli_pid(conn), pid)
        order.append("teardown returned")
    assert order == ["leftover alive after the SIGTERM", "teardown returned"]
    assert conn.returncode == -signal.SIGTERM
    await case.nothing_left(running)


async def test_a_cli_that_ignores_sigterm_goes_with_its_leftover(case: Case) -> None:
    behaviour = "ignore_term,stubborn"
    watch = StderrWatch("stubborn=")
    async with case.transport.connect(
        case.spec(behaviour, stderr=watch, shutdown_grace=0.2)
    ) as conn:
        pid = await leftover(conn, watch, behaviour)
        running = [*case.processes(), pid]
    assert await wait_dead([pid], timeout=HANG) == []
    assert conn.returncode == -signal.SIGKILL  # it ignored the SIGTERM
    await case.nothing_left(running)


async def test_a_cancelled_block_with_a_past_deadline_kills_the_leftover(case: Case) -> None:
    """Cancelled, deadline now: SIGTERM at once ends the CLI, SIGKILL TERM later the rest.

    The ``shutdown_grace`` is an hour: a teardown that waited it out, not the deadline,
    would never finish."""
    behaviour = "ignore_eof,stubborn_orphan"
    watch = StderrWatch("stubborn=")
    with anyio.CancelScope() as scope:
        spec = case.spec(behaviour, stderr=watch, shutdown_grace=FOREVER)
        async with case.transport.connect(spec) as conn:
            pid = await leftover(conn, watch, behaviour)
            running = [*case.processes(), pid]
            conn.shutdown_deadline = anyio.current_time()
            scope.cancel()
            await anyio.sleep_forever()
    assert scope.cancelled_caught
    assert await wait_dead([pid], timeout=HANG) == []  # SIGKILLed
    assert conn.returncode == -signal.SIGTERM
    await case.nothing_left(running)


# --------------------------------------------------------------------------------------
# the wrapper's control lines (claude_sdk.transports._remote: ``Input``)

NONCE = "00ff"
TAG = f"@claude_sdk:{NONCE}:".encode()


def _wrapper_input_class() -> Any:
    """The wrapper's ``Input`` class, from its source, without running the wrapper."""
    source, call = _remote.WRAPPER_SOURCE.rstrip().rsplit("\n", 1)
    assert call == "main()"
    namespace: dict[str, Any] = {"__name__": "claude_sdk_wrapper"}
    with mock.patch.object(sys, "argv", ["wrapper", NONCE]):  # it reads its nonce at import
        exec(compile(source, "<wrapper>", "exec"), namespace)
    return namespace["Input"]


Input = _wrapper_input_class()

#: Lines for the CLI that look like control lines, or nearly.
TRICKY = [
    b"",
    b"@",
    TAG[:5],
    TAG[:-1],
    TAG[:-1] + b"x end {}",
    b"@claude_sdk:00fe:end {}",  # another connection's tag
    b'{"text": "' + TAG + b'end {}"}',  # the tag, but not at the start of the line
    b" " + TAG + b"end {}",
]
cli_lines = st.lists(
    st.one_of(
        st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")),
        st.sampled_from(TRICKY),
    ),
    max_size=8,
)


@settings(max_examples=deep(100), deadline=None)
@given(
    before=cli_lines,
    end=st.booleans(),
    after=cli_lines,
    tail=st.sampled_from([b"", b"{", b"@", TAG[:3], TAG[:-1]]),
    cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=12),
)
def test_control_lines_are_split_out_of_stdin_at_any_chunking(
    before: list[bytes], end: bool, after: list[bytes], tail: bytes, cuts: list[int]
) -> None:
    """Lines before an ``end`` control line reach the CLI unchanged; control lines (the
    tag at the start of a line) never do, and after ``end`` nothing else does. Without
    one, an unterminated last line reaches the CLI at EOF, even if it looked like a tag."""
    lines = b"".join(line + b"\n" for line in before)
    stream = lines
    controls = []
    if end:
        controls = [b'end {"grace": 1.5}', b'end {"grace": 0}']
        stream += TAG + controls[0] + b"\n"
        stream += b"".join(line + b"\n" for line in after)
        stream += TAG + controls[1] + b"\n"
    stream += tail
    splitter = Input(TAG)
    seen: list[bytes] = []
    out = b""
    start = 0
    for cut in [*sorted(cuts), len(stream)]:
        cut = min(cut, len(stream))
        out += splitter.feed(stream[start:cut], seen)
        start = max(start, cut)
    out += splitter.close()
    assert seen == controls
    assert out == (lines if end else lines + tail)
