"""`cancel_on_signals`: a stop signal (SIGTERM, SIGINT) becomes a cancellation of the block.

A worker or a pod being stopped gets SIGTERM, then, a grace later, SIGKILL. Python's default
for SIGTERM is to die at once: no ``finally`` runs, the CLIs' stdin is never closed, the
session store never gets the turn in progress. And a process that is PID 1 in a container has
no default action at all: SIGTERM is ignored, and the orchestrator waits out its grace before
the SIGKILL. Inside ``async with cancel_on_signals():`` the signal cancels the block instead,
so every session in it closes as a cancelled session does: its open turn is interrupted, the
CLI ends (SIGTERM, then SIGKILL, bounded by ``shutdown_grace``), and the store gets what the
CLI wrote (bounded too)::

    import claude_sdk as cs

    async def main() -> int:
        async with cs.cancel_on_signals() as stop:
            async with cs.open_session(options) as session:
                ...
        return stop.exit_code  # 0, or 128 + the signal's number when one stopped it

A second signal while the block winds down changes nothing (the teardown is bounded). The
signal handlers are the event loop's (``anyio.open_signal_receiver``), in place only inside
the block, and only in the main thread (where Python delivers signals).
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from ._attrs import define

__all__ = ["SignalStop", "cancel_on_signals"]

logger: logging.Logger = logging.getLogger("claude_sdk")

#: The signals a stop means, by default.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@define
class SignalStop:
    """What `cancel_on_signals` saw.

    Attributes:
        signal: the signal that cancelled the block, or None.
    """

    signal: signal.Signals | None = None

    @property
    def stopped(self) -> bool:
        """True when a signal cancelled the block."""
        return self.signal is not None

    @property
    def exit_code(self) -> int:
        """What a process stopped by the signal reports (``128 + signum``, as a shell does);
        0 when no signal came."""
        return 0 if self.signal is None else 128 + int(self.signal)


@asynccontextmanager
async def cancel_on_signals(
    *signals: signal.Signals,
) -> AsyncIterator[SignalStop]:
    """Cancel the block when one of ``signals`` (default SIGTERM and SIGINT) arrives; the
    block then ends normally, and the yielded `SignalStop` says which signal it was.

    Raises:
        RuntimeError: not in the main thread (signals go to the main thread only).
    """
    chosen = signals or STOP_SIGNALS
    stop = SignalStop()
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError(
            "cancel_on_signals() works in the main thread only (Python delivers signals "
            "there): in a worker thread, cancel the sessions' scope from the main thread"
        )
    with anyio.open_signal_receiver(*chosen) as received:
        async with anyio.create_task_group() as tg:

            async def watch() -> None:
                async for signum in received:
                    if stop.signal is None:
                        stop.signal = signal.Signals(signum)
                        logger.warning(
                            "%s received: cancelling the sessions (they close within their "
                            "shutdown grace)",
                            stop.signal.name,
                        )
                        tg.cancel_scope.cancel()

            tg.start_soon(watch)
            try:
                yield stop
            finally:
                tg.cancel_scope.cancel()
