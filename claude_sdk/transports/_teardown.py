"""The teardown every process-backed transport shares: shielded by the caller, bounded here.

stdin EOF -> ``grace`` (stdout drained meanwhile, so a CLI blocked on a full pipe can finish)
-> terminate -> `TERM_GRACE` -> kill -> reap. It never raises: a teardown must finish.
stdout is ``process.stdout`` unless the transport reads it its own way (``drain_stdout``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import anyio
import anyio.abc

__all__ = ["TERM_GRACE", "discard_stdout", "teardown_process"]

logger = logging.getLogger("claude_sdk")

#: Seconds between SIGTERM and SIGKILL.
TERM_GRACE = 2.0


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
    grace: float,
    what: str,
    drain_stdout: Callable[[], Coroutine[Any, Any, None]] | None = None,
) -> None:
    """End ``process`` (``what`` names it in the log); see the module docstring.

    ``drain_stdout`` reads and drops stdout until its end (default: `discard_stdout`).
    """
    try:
        await send_eof()
        async with anyio.create_task_group() as tg:
            if drain_stdout is None:
                tg.start_soon(discard_stdout, process)
            else:
                tg.start_soon(drain_stdout)
            with anyio.move_on_after(grace):
                await process.wait()
            tg.cancel_scope.cancel()
        if process.returncode is None:
            logger.info("%s did not exit after stdin closed: SIGTERM", what)
            terminate()
            with anyio.move_on_after(TERM_GRACE):
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
