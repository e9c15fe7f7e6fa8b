"""The running backend's own primitives, looked up once (issue 8).

AnyIO's module-level functions find the running backend on every call (a sniffio lookup,
about half a microsecond); the session calls a few of them per control round trip and per
batch of messages. `Primitives` does the lookup once, when a session starts, and keeps the
backend's own callables, which behave exactly like the AnyIO functions they stand for.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable

import anyio

__all__ = ["Primitives", "on_asyncio"]


def on_asyncio() -> bool:
    """True when the running backend is asyncio (else Trio)."""
    # Not imported here: a Trio program never loads asyncio, so it cannot be running.
    aio = sys.modules.get("asyncio")
    return aio is not None and anyio.get_cancelled_exc_class() is aio.CancelledError


class Primitives:
    """``event()`` and ``checkpoint()`` of the running backend (call inside its event loop).

    Attributes:
        event: makes an `anyio.Event` (the backend's own class, without the lookup).
        checkpoint: ``await checkpoint()`` is ``await anyio.lowlevel.checkpoint()``.
    """

    __slots__ = ("checkpoint", "event")

    def __init__(self) -> None:
        self.event: Callable[[], anyio.Event] = type(anyio.Event())
        self.checkpoint: Callable[[], Awaitable[None]]
        if on_asyncio():
            import asyncio

            async def sleep0() -> None:
                await asyncio.sleep(0)  # AnyIO's checkpoint on asyncio

            self.checkpoint = sleep0
        else:
            import trio

            self.checkpoint = trio.lowlevel.checkpoint
