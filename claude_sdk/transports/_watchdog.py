"""The watchdog: ends the local CLIs' process groups when the SDK process dies (issue 8).

Why: if the Python process dies (SIGKILL, a crash), nothing else stops the CLIs and the tools
they started. ``PR_SET_PDEATHSIG`` is no substitute: it fires when the *thread* that spawned
the child exits, and Trio spawns from worker threads.

How: each CLI is spawned directly, leading its own process group. Beside them runs one POSIX
``sh`` per SDK process (a millisecond to start, against a dozen for a Python interpreter),
shared by every local session that is open: its stdin is the read end of a *lifeline*
pipe, and nothing else of ours (stdout and stderr are ``/dev/null``, it has a session of its
own, every other descriptor is closed). The SDK alone holds the write end and writes lines:
``+PGID`` when a CLI starts, ``-PGID`` when it is gone, ``.`` when no session is left.

* The first session to open starts the watchdog; the last one to close writes ``.``, closes
  the lifeline and reaps it: it never outlives the sessions that use it. A hundred sessions
  at once cost one watchdog, not a hundred.
* The SDK dies, however: the kernel closes the write end; the watchdog reads EOF without
  ``.``, sends SIGTERM to every group it still holds, waits the grace and sends SIGKILL.
* A watchdog that died (somebody killed it) is started again by the next session, with
  every group still open.

The CLI cannot run before the watchdog holds its group (a host killed within milliseconds of
a spawn leaked the CLI and what it had started, seen under Ray): it is spawned through a
*gate*, ``sh`` (`GATE`) that reads one line from the CLI's stdin and only then replaces
itself with the CLI (``exec``: the same pid, leading the group). The SDK writes ``+PGID`` to the
lifeline first, then that line. Written is enough: the pipe keeps what the watchdog has not
read yet, and its EOF comes after. If the SDK dies before the line, the gate reads EOF and
exits without running the CLI; if after, the watchdog holds the group already.

Invariants: the lifeline's write end is close-on-exec and is closed in a forked child (so
its EOF means the SDK process is gone); the shared state is guarded by a lock and used from
worker threads, so sessions on several event loops (threads) share one watchdog;
`Watchdog.stand_down` always runs, and is bounded in time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import anyio.to_thread

if TYPE_CHECKING:
    import subprocess

__all__ = [
    "GATE",
    "GATE_NAME",
    "SCRIPT",
    "Watchdog",
    "gated",
    "hold_directory",
    "release_directory",
    "release_directory_blocking",
    "shared_pid",
]

logger = logging.getLogger("claude_sdk.transport")

#: ``$1``: tenths of a second a group gets between SIGTERM and SIGKILL (it is looked at every
#: tenth: one that is gone needs no more). ``g`` holds the groups as `` a b c ``, ``d``
#: the directories to remove, one per line. ``read`` fails at EOF (dash and bash alike);
#: ``.`` is the stand-down. At EOF the groups end first, then the directories go.
SCRIPT = """g=' '
d='
'
while read -r c; do
  case $c in
    +@*) d="$d${c#+@}
" ;;
    -@*) x=${c#-@}; n='
'
      while IFS= read -r y; do
        [ -n "$y" ] && [ "$y" != "$x" ] && n="$n$y
"
      done <<END
$d
END
      d=$n ;;
    +*) g="$g${c#+} " ;;
    -*) x=${c#-}; case $g in *" $x "*) g="${g%% $x *} ${g#* $x }" ;; esac ;;
    .) exit 0 ;;
  esac
done
k=
for x in $g; do kill -s TERM -- "-$x" 2>/dev/null && k=1; done
n=$1
while [ -n "$k" ] && [ "$n" -gt 0 ]; do
  sleep 0.1
  n=$((n - 1))
  k=
  for x in $g; do kill -0 -- "-$x" 2>/dev/null && k=1; done
done
for x in $g; do kill -s KILL -- "-$x" 2>/dev/null; done
printf '%s' "$d" | while IFS= read -r x; do
  [ -n "$x" ] && rm -rf -- "$x"
done
"""
#: The gate the CLI is spawned through: one line on stdin (the SDK's word that the group is
#: on the lifeline), then the CLI in its place; EOF first (the SDK is gone): nothing runs.
#: ``read`` takes a pipe one byte at a time (it cannot seek back), so the CLI gets the rest.
GATE = 'read -r _ || exit 125\nexec "$@"\n'
#: The gate's ``$0``: the shell names it in its own complaints (an ``exec`` that failed).
GATE_NAME = "claude-sdk-gate"
SHELL = "/bin/sh"
#: Seconds a watchdog may take to exit once stood down (it exits at once; this is a bound).
STAND_DOWN_WAIT = 5.0


class _Shared:
    """The watchdog process of this OS process and the groups it holds (under `_lock`)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.write_fd = -1
        self.groups: set[int] = set()
        #: Directories to remove if this process dies (a diskless session's).
        self.directories: set[str] = set()


_lock = threading.Lock()
_shared = _Shared()


def _forget_in_child() -> None:
    """In a forked child: drop the parent's watchdog (its lifeline must close with the parent)."""
    global _lock, _shared
    if _shared.write_fd >= 0:
        with contextlib.suppress(OSError):
            os.close(_shared.write_fd)
    _lock = threading.Lock()  # the parent's may have been held by another thread
    _shared = _Shared()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def shared_pid() -> int | None:
    """The pid of this process's watchdog, while one runs."""
    process = _shared.process
    return process.pid if process is not None else None


def gated(argv: Sequence[str]) -> list[str]:
    """``argv`` run through the gate (`GATE`)."""
    cli = argv[0]
    if cli.startswith("-"):  # bash's exec would take it for an option (dash has no ``--``)
        cli = "./" + cli
    return [SHELL, "-c", GATE, GATE_NAME, cli, *argv[1:]]


def _send(shared: _Shared, line: str) -> bool:
    """Write one line to the watchdog; False if it could not (EPIPE: it died)."""
    try:
        os.write(shared.write_fd, line.encode("ascii") + b"\n")
    except OSError:
        return False
    return True


def _register(pgid: int, grace: float) -> None:
    """Put ``pgid`` under the watchdog, starting one if none runs.

    Usually one write. Starting the watchdog is one fork and exec (about a millisecond, like
    any subprocess an event loop starts), once for a burst of sessions: a worker thread
    instead would cost a hundred sessions opening at once a hundred thread hops.
    """
    with _lock:
        _ensure_and_send(f"+{pgid}", grace)
        _shared.groups.add(pgid)


def _ensure_and_send(line: str, grace: float) -> None:
    """Write ``line`` to the running watchdog, or start one (under `_lock`) that takes every
    group and directory held so far, then the line."""
    import subprocess  # here, where a watchdog starts: not in every program's import

    shared = _shared
    process = shared.process
    if process is not None and process.returncode is None and _send(shared, line):
        return
    if process is not None:  # it died (it was seen to exit, or the write failed)
        logger.warning("the watchdog (pid %d) died: starting another", process.pid)
        with contextlib.suppress(OSError):
            os.close(shared.write_fd)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=1.0)  # reap it (its end of the pipe is closed: it is going)
    read_fd, write_fd = os.pipe()  # both close-on-exec
    try:
        shared.process = subprocess.Popen(
            [SHELL, "-c", SCRIPT, "claude-sdk-watchdog", str(max(1, round(grace * 10)))],
            stdin=read_fd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except BaseException:
        shared.process = None
        os.close(write_fd)
        raise
    finally:
        os.close(read_fd)
    shared.write_fd = write_fd
    for group in shared.groups:  # a new watchdog takes over every open group
        _send(shared, f"+{group}")
    for directory in shared.directories:
        _send(shared, f"+@{directory}")
    _send(shared, line)


def hold_directory(path: str, grace: float = 5.0) -> bool:
    """Have the watchdog remove ``path`` (and everything in it) if this process dies before
    `release_directory`; start one if none runs. Call it before creating the directory, so
    that there is no moment when it exists and nothing would remove it.

    Returns False (logged) when it cannot: no watchdog on this platform, a path that is not
    absolute or holds a line break, or the watchdog could not start.
    """
    if os.name != "posix" or not os.path.isabs(path) or "\n" in path or "\r" in path:
        logger.warning("the watchdog cannot remove %r if this process dies", path)
        return False
    try:
        with _lock:
            _ensure_and_send(f"+@{path}", grace)
            _shared.directories.add(path)
    except OSError as exc:
        logger.warning("could not start the watchdog (%s): %s would stay if killed", exc, path)
        return False
    return True


async def release_directory(path: str) -> None:
    """Take ``path`` off the watchdog (it was removed); the last one out reaps it. Bounded,
    never raises."""
    process = _release(path)
    if process is not None:
        try:
            await anyio.to_thread.run_sync(_reap, process)
        except Exception as exc:  # never raises
            logger.warning("could not reap the watchdog (pid %d): %r", process.pid, exc)


def release_directory_blocking(path: str) -> None:
    """`release_directory`, from a worker thread (it may wait for the watchdog to exit)."""
    process = _release(path)
    if process is not None:
        _reap(process)


def _release(path: str) -> subprocess.Popen[bytes] | None:
    with _lock:
        shared = _shared
        if path not in shared.directories:
            return None
        shared.directories.discard(path)
        if shared.process is not None and (shared.groups or shared.directories):
            _send(shared, f"-@{path}")
            return None
        return _stand_down_locked()


def _stand_down_locked() -> subprocess.Popen[bytes] | None:
    """Stand the watchdog down (under `_lock`); the process to reap, if one ran."""
    shared = _shared
    process = shared.process
    if process is None:
        return None
    _send(shared, ".")
    with contextlib.suppress(OSError):
        os.close(shared.write_fd)
    shared.write_fd = -1
    shared.process = None
    return process


def _unregister(pgid: int) -> subprocess.Popen[bytes] | None:
    """Take ``pgid`` off; the watchdog to reap when it was the last thing held, else None."""
    with _lock:
        shared = _shared
        shared.groups.discard(pgid)
        if shared.process is None:
            return None
        if shared.groups or shared.directories:
            _send(shared, f"-{pgid}")
            return None
        return _stand_down_locked()


def _reap(process: subprocess.Popen[bytes]) -> None:
    import subprocess

    try:
        process.wait(timeout=STAND_DOWN_WAIT)
    except subprocess.TimeoutExpired:
        logger.warning("the watchdog (pid %d) did not stand down: SIGKILL", process.pid)
        process.kill()
        process.wait()


class Watchdog:
    """One CLI process group's place under the shared watchdog.

    Call `hold` once the gated CLI's pid is known and before opening its gate, and await
    `stand_down` when the CLI is gone.
    """

    def __init__(self) -> None:
        self._pgid: int | None = None  # registered
        self._stood_down = False

    @property
    def stood_down(self) -> bool:
        """True once `stand_down` has begun."""
        return self._stood_down

    @property
    def pid(self) -> int | None:
        """The shared watchdog's pid, while this group is under it."""
        return shared_pid() if self._pgid is not None else None

    async def run(self, pgid: int, grace: float) -> None:
        """`hold`, as a coroutine."""
        self.hold(pgid, grace)

    def hold(self, pgid: int, grace: float) -> None:
        """Put process group ``pgid`` under the watchdog (one write, or the watchdog's start).

        Once it returns, ``+pgid`` is in the lifeline (or the failure is logged: the CLI
        then runs unwatched). Never raises `OSError`.
        """
        if self._stood_down or self._pgid is not None:
            return
        try:
            _register(pgid, grace)
        except OSError as exc:
            logger.warning(
                "could not start the watchdog (%s): the CLI (pid %d) would outlive this "
                "process if it were killed",
                exc,
                pgid,
            )
            return
        self._pgid = pgid

    async def stand_down(self) -> None:
        """Take the group off the watchdog (the last one out reaps it); bounded, never raises.

        Also what to call when `run` never ran (the CLI could not be started).
        """
        self._stood_down = True
        pgid, self._pgid = self._pgid, None
        if pgid is None:
            return
        process = _unregister(pgid)
        if process is not None:
            try:
                await anyio.to_thread.run_sync(_reap, process)
            except Exception as exc:  # never raises: it was stood down; say so
                logger.warning("could not reap the watchdog (pid %d): %r", process.pid, exc)
