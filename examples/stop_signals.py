"""A stop signal is a cancellation: SIGTERM ends the sessions cleanly, and the store keeps
the turn.

A worker being stopped (a pod, a Temporal or Dask worker) gets SIGTERM. Inside
``cs.cancel_on_signals()``, the signal cancels the block: the open turn is interrupted, the CLI
ends within ``shutdown_grace``, and the session store gets what the CLI wrote. Here the
program sends itself SIGTERM while a turn runs.

Run: ``python examples/stop_signals.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import os
import signal

import anyio

import claude_sdk as cs
from claude_sdk.stores import MemoryStore


async def main() -> None:
    store = MemoryStore()
    options = cs.Options(session_store=store, session_store_flush="eager")
    pid = None
    async with cs.cancel_on_signals() as stop, cs.open_session(options) as session:
        pid = session.pid
        await session.send("Count slowly to one thousand.")
        os.kill(os.getpid(), signal.SIGTERM)  # what an orchestrator stopping us sends
        async for message in session.receive_response():
            print("received", type(message).__name__)
    print(f"stopped by {stop.signal.name if stop.signal else None}; exit code {stop.exit_code}")
    alive = True
    if pid is not None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            alive = False
    print(f"the CLI is still running: {alive}")
    # A worker would now exit with stop.exit_code (143 for SIGTERM), as a shell reports it.


if __name__ == "__main__":
    anyio.run(main)
