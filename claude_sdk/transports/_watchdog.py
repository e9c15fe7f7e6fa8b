"""The watchdog: ends a local CLI's process group when the SDK process dies (issue 8).

Why: if the Python process dies (SIGKILL, a crash), nothing else stops the CLI and the tools
it started. ``PR_SET_PDEATHSIG`` is no substitute: it fires when the *thread* that spawned
the child exits, and Trio spawns from worker threads.

How: the CLI is spawned directly, leading its own process group; next to it, and without
anybody waiting for it, runs a POSIX ``sh`` (a millisecond to start, against a dozen for a
Python interpreter) whose stdin is the read end of a *lifeline* pipe, and nothing else of
ours: stdout and stderr are ``/dev/null``, it has a session of its own (out of the CLI's
group), and every other descriptor is closed. The SDK alone holds the write end.

* Clean teardown: once the CLI is gone, the SDK writes a line (the stand-down) and closes the
  lifeline; the watchdog reads the line and exits without killing anything; the SDK reaps it.
* The SDK dies, however: the kernel closes the write end; the watchdog reads EOF without a
  line, sends SIGTERM to the CLI's group, waits the grace and sends SIGKILL.

Invariants: the lifeline's write end is close-on-exec (no child of ours holds it, so its EOF
means the SDK is gone); `Watchdog.stand_down` always runs, reaps the process it started, and
is bounded in time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess

import anyio
import anyio.abc

__all__ = ["SCRIPT", "Watchdog"]

logger = logging.getLogger("claude_sdk")

#: ``$1``: the CLI's process group; ``$2``: seconds between SIGTERM and SIGKILL. ``read``
#: succeeds on the stand-down line and fails at EOF without one (dash and bash alike).
SCRIPT = (
    'read -r _ || { kill -s TERM -- "-$1" 2>/dev/null'
    ' && { sleep "$2"; kill -s KILL -- "-$1" 2>/dev/null; }; }'
)
SHELL = "/bin/sh"
#: Seconds a watchdog may take to exit once stood down (it exits at once; this is a bound).
STAND_DOWN_WAIT = 5.0


class Watchdog:
    """One watchdog for one CLI process group.

    Create it before spawning the CLI (its pipe is the only thing that can fail early), run
    `run` as a task once the CLI's pid is known, and await `stand_down` when the CLI is gone.
    """

    def __init__(self) -> None:
        self._read_fd, self._write_fd = os.pipe()  # both close-on-exec
        self._process: anyio.abc.Process | None = None
        self._spawning = False  # `run` has begun
        self._started = anyio.Event()  # `run` is done with the spawn (whatever came of it)
        self._stood_down = False

    @property
    def stood_down(self) -> bool:
        """True once `stand_down` has begun."""
        return self._stood_down

    @property
    def pid(self) -> int | None:
        """The watchdog's pid, once it runs."""
        return self._process.pid if self._process is not None else None

    async def run(self, pgid: int, grace: float) -> None:
        """Start the watchdog for process group ``pgid`` (a task: nobody waits for it)."""
        if self._stood_down:  # the CLI came and went before this task ran
            return
        self._spawning = True
        try:
            with anyio.CancelScope(shield=True):  # a spawn is not to be abandoned halfway
                self._process = await anyio.open_process(
                    [SHELL, "-c", SCRIPT, "claude-sdk-watchdog", str(pgid), str(grace)],
                    stdin=self._read_fd,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
        except OSError as exc:
            logger.warning(
                "could not start the watchdog (%s): the CLI (pid %d) would outlive this "
                "process if it were killed",
                exc,
                pgid,
            )
        finally:
            os.close(self._read_fd)
            self._started.set()
        if self.stood_down:  # stand_down gave up waiting for this spawn: reap it here
            with anyio.CancelScope(shield=True):
                await self._reap()

    async def stand_down(self) -> None:
        """Tell the watchdog to exit without killing, and reap it; bounded, never raises.

        Also what to call when `run` never ran (the CLI could not be started).
        """
        if self._spawning:
            with anyio.move_on_after(STAND_DOWN_WAIT):
                await self._started.wait()
        else:
            os.close(self._read_fd)  # `run`, if it ever begins, returns at once
        self._stood_down = True
        with contextlib.suppress(OSError):  # EPIPE: the watchdog is already gone
            os.write(self._write_fd, b"\n")
        os.close(self._write_fd)
        await self._reap()

    async def _reap(self) -> None:
        process = self._process
        if process is None:
            return
        try:
            with anyio.move_on_after(STAND_DOWN_WAIT):
                await process.wait()
            if process.returncode is None:
                logger.warning("the watchdog (pid %d) did not stand down: SIGKILL", process.pid)
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
        finally:
            with contextlib.suppress(Exception):
                await process.aclose()
