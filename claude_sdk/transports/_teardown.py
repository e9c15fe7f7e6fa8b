"""The teardown every process-backed transport shares: shielded by the caller, bounded here.

`teardown_process` ends one process: stdin EOF -> the graceful end (`graceful_end`:
``shutdown_grace`` from the start of the teardown, or the connection's
``shutdown_deadline`` when that comes first), stdout drained meanwhile so that a CLI blocked
on a full pipe can finish -> terminate -> `TERM_GRACE` -> kill -> reap. stdout is
``process.stdout`` unless the transport reads it its own way (``drain_stdout``).

`end_group` ends what a reaped CLI left in its process group: SIGTERM (unless the group had
one already) -> while anything in it lives, at most `TERM_GRACE` after that SIGTERM ->
SIGKILL. Zombies do not count as living where ``/proc`` tells them apart.

Neither raises: a teardown must finish.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread

__all__ = [
    "TERM_GRACE",
    "discard_stdout",
    "end_group",
    "graceful_end",
    "group_lives",
    "teardown_process",
]

logger = logging.getLogger("claude_sdk.transport")

#: Seconds between SIGTERM and SIGKILL.
TERM_GRACE = 2.0
#: Seconds between the first two checks whether a process group has emptied (then doubling).
_FIRST_POLL = 0.01
#: The longest pause between two such checks.
_LONGEST_POLL = 0.1


def graceful_end(grace: float, deadline: float | None) -> float:
    """When the graceful part of a teardown that starts now ends (``anyio.current_time()``).

    ``grace`` seconds from now, or ``deadline`` (`Connection.shutdown_deadline`) when it
    comes first: a deadline shortens the grace, never lengthens it.
    """
    end = anyio.current_time() + grace
    return end if deadline is None else min(end, deadline)


async def discard_stdout(process: anyio.abc.Process) -> None:
    """Read and drop stdout, so that a process blocked writing to a full pipe can exit."""
    assert process.stdout is not None
    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
        async for _ in process.stdout:
            pass


async def teardown_process(
    process: anyio.abc.Process,
    *,
    send_eof: Callable[[], Awaitable[None]],
    terminate: Callable[[], None],
    kill: Callable[[], None],
    end: float,
    what: str,
    drain_stdout: Callable[[], Coroutine[Any, Any, None]] | None = None,
    term_grace: float = TERM_GRACE,
) -> None:
    """End ``process`` (``what`` names it in the log); see the module docstring.

    Args:
        send_eof: closes stdin; bounded by the caller (it runs while stdout is drained).
        end: when the graceful part ends (``anyio.current_time()`` clock; see
            `graceful_end`); a time already past terminates as soon as stdin is closed.
        drain_stdout: reads and drops stdout until its end (default: `discard_stdout`).
        term_grace: seconds between terminate and kill.
    """
    try:
        async with anyio.create_task_group() as tg:
            if drain_stdout is None:
                tg.start_soon(discard_stdout, process)
            else:
                tg.start_soon(drain_stdout)
            await send_eof()
            with anyio.CancelScope(deadline=end):
                await process.wait()
            tg.cancel_scope.cancel()
        if process.returncode is None:
            logger.info("%s did not exit after stdin closed: SIGTERM", what)
            terminate()
            with anyio.move_on_after(term_grace):
                await process.wait()
        if process.returncode is None:
            logger.warning("%s ignored SIGTERM: SIGKILL", what)
            kill()
            with anyio.move_on_after(5):
                await process.wait()
    except Exception:  # teardown must finish; log what went wrong
        logger.exception("tearing down %s failed", what)
    finally:
        with contextlib.suppress(Exception):
            await process.aclose()


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to group ``pgid``; False when no process of it could get it."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):  # empty, or nothing of it is ours to end
        return False
    return True


def _proc_says_alive(pgid: int) -> bool:
    """Whether ``/proc`` shows a process of group ``pgid`` that is not a zombie.

    True when it cannot tell: no ``/proc``, or no member visible at all (another pid
    namespace, ``hidepid``), although ``killpg`` found one.
    """
    try:
        names = os.listdir("/proc")
    except OSError:
        return True
    seen = False
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            # After the command name (in parentheses, may hold anything): state, ppid, pgrp.
            state, _, group = stat.rpartition(b")")[2].split(maxsplit=3)[:3]
            if int(group) != pgid:
                continue
        except (OSError, ValueError):
            continue
        if state not in (b"Z", b"X"):
            return True
        seen = True
    return not seen


async def group_lives(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (one this process may signal).

    A zombie (exited, waiting for its parent, often init, to reap it) does not count where
    ``/proc`` tells it apart: a lazy reaper must not make a teardown wait for nothing.
    """
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    # Reading /proc takes a while on a busy host: not on the event loop.
    return await anyio.to_thread.run_sync(_proc_says_alive, pgid)


async def end_group(
    pgid: int,
    *,
    what: str,
    termed_at: float | None = None,
    term_grace: float = TERM_GRACE,
) -> None:
    """End what lives in process group ``pgid``, whose leader has exited; never raises.

    SIGTERM (not again when the group had one at ``termed_at``, an ``anyio.current_time()``),
    then SIGKILL if a process of the group still lives ``term_grace`` after that SIGTERM.
    Bounded: it returns at most ``term_grace`` after the SIGTERM (plus one look at /proc).

    When this is safe: a process group id is its leader's pid, and the kernel hands out no
    pid that is still in use as a process group id, zombies included. So group ``pgid`` is
    ours for as long as it has a member, and the leader's zombie keeps it until reaped. The
    caller calls this right after the reap (the group is what the CLI left, or empty), and
    every signal goes out within one poll (0.1 s at most) of a check that found the group
    still populated: for the signal to reach a stranger, the group would have to empty and
    the kernel's cyclic pid allocator to come round the whole pid space (``pid_max``, 32768
    at least) to ``pgid`` again, for a new process that makes itself a group leader, all
    within that time. Once the group is seen empty it is never signalled again.
    """
    try:
        if termed_at is None:
            if not _signal_group(pgid, signal.SIGTERM):
                return  # nothing was left
            termed_at = anyio.current_time()
        kill_at = termed_at + term_grace
        pause = _FIRST_POLL
        # No event exists for "a process of another parent has exited": poll, bounded.
        while await group_lives(pgid):
            now = anyio.current_time()
            if now >= kill_at:
                logger.warning("what %s left ignored SIGTERM: SIGKILL to its group", what)
                _signal_group(pgid, signal.SIGKILL)
                return
            await anyio.sleep(min(pause, kill_at - now))
            pause = min(pause * 2, _LONGEST_POLL)
    except Exception:  # teardown must finish; log what went wrong
        logger.exception("ending what %s left failed", what)
