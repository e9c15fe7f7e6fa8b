"""The inbound workers: reusable tasks that serve the CLI's requests.

The reader hands each `InboundRequest` to an idle worker (one wake-up, no task to spawn) or
starts a new one; `IDLE_WORKERS` wait for the next request, more run while requests overlap.
A worker runs its handlers in one cancel scope for as long as none of them is withdrawn (a
cancel scope per request would cost more than a typical callback); the CLI's
``control_cancel_request`` for the running handler cancels that scope and the worker goes on
in a new one.

Every request is answered exactly once through the protocol (`Protocol.answer` / `reject`,
which give nothing to write for a withdrawn request): a handler that raises is answered with
an error; one cancelled through its context's handle (``context.cancel_scope.cancel()``) is
answered with an error too, never silence; one the CLI withdrew gets nothing.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Final

import anyio

from .._protocol.events import PENDING
from .handlers import NO_ANSWER, RejectedError, describe, dispatch, outcome, summary
from .serving import Serving

if TYPE_CHECKING:
    from .core import SessionCore

__all__ = ["IDLE_WORKERS", "InboundWorkers"]

logger = logging.getLogger("claude_sdk.session")

#: Inbound-request workers kept waiting for the next request.
IDLE_WORKERS: Final = 4


class _Slot:
    """An idle worker's mailbox: the reader hands it the next request while it waits."""

    __slots__ = ("event", "record")

    def __init__(self) -> None:
        self.event: anyio.Event | None = None
        self.record: Serving | None = None


class InboundWorkers:
    """The workers of one session (see the module docstring)."""

    def __init__(self, core: SessionCore) -> None:
        self._core = core
        self._idle: list[_Slot] = []

    def hand(self, record: Serving) -> None:
        """Serve ``record`` (called by the reader)."""
        self._core.callbacks_running += 1
        idle = self._idle
        if idle:
            slot = idle.pop()
            slot.record = record
            assert slot.event is not None
            slot.event.set()
        else:
            self._core.tg.start_soon(self._work, record)

    @staticmethod
    def withdraw(record: Serving) -> None:
        """The CLI withdrew ``record``: cancel its handler if it runs (nothing is written)."""
        if record.scope is not None:
            record.scope.cancel()

    async def _work(self, record: Serving) -> None:
        """Serve requests until enough other workers are idle (see `IDLE_WORKERS`)."""
        slot = _Slot()
        while True:
            with anyio.CancelScope() as scope:
                while True:
                    await self._serve(record, scope)
                    if scope.cancel_called:
                        break  # spent: the next request gets a new scope
                    if not await self._next(slot):
                        return
                    assert slot.record is not None
                    record, slot.record = slot.record, None
            # The scope was cancelled. A request handed over meanwhile is served next.
            if slot.record is None and not await self._next(slot):
                return
            assert slot.record is not None
            record, slot.record = slot.record, None

    async def _next(self, slot: _Slot) -> bool:
        """Wait until the reader hands ``slot`` a request; False if enough workers wait."""
        idle = self._idle
        if len(idle) >= IDLE_WORKERS:
            return False
        event = slot.event = self._core.primitives.event()
        idle.append(slot)
        try:
            await event.wait()  # cancelled with the session's task group
        except BaseException:
            if slot.record is None and slot in idle:
                idle.remove(slot)  # nobody will hand it a request now
            raise
        return True

    async def _serve(self, record: Serving, scope: anyio.CancelScope) -> None:
        core = self._core
        protocol = core.protocol
        serving = record
        serving.started = True
        line: bytes | None = None
        body: Any = None
        error: BaseException | None = None
        started = time.perf_counter() if core.debug else None
        try:
            if record.state != PENDING:
                return  # withdrawn before it started
            serving.scope = scope
            try:
                body = await dispatch(core, record)
                if body is NO_ANSWER:
                    protocol.leave_unanswered(record)
                else:
                    line = protocol.answer(record, body)
            except RejectedError as exc:
                error = exc
                line = protocol.reject(record, str(exc), exc.code)
            except Exception as exc:  # any failure is answered as an error
                error = exc
                logger.warning("a %s handler failed: %r", record.subtype, exc)
                line = protocol.reject(record, describe(exc))
            except BaseException as exc:
                cancelled = isinstance(exc, anyio.get_cancelled_exc_class())
                if not cancelled or not serving.host_cancelled or serving.withdrawn:
                    raise  # withdrawn by the CLI, the session ends, or not a cancellation
                # Cancelled through the context's handle: the CLI must still get an answer.
                error = exc
                line = protocol.reject(record, f"the {record.subtype} handler was cancelled")
        finally:
            serving.scope = None
            core.callbacks_running -= 1
            if core.options.inactivity_timeout is not None:
                core.callback_finished()
            if started is not None:
                logger.debug(
                    "%s %s (%s): %s after %.1f ms",
                    record.subtype,
                    record.request_id,
                    summary(core, record),
                    outcome(record, body, error, line),
                    (time.perf_counter() - started) * 1000,
                )
        if line is None:
            return  # withdrawn by the CLI (send nothing), or deliberately unanswered
        try:
            if scope.cancel_called:  # cancelled, yet answered: the answer still goes out
                with anyio.CancelScope(shield=True):
                    await core.conn.send(line)
            else:
                await core.conn.send(line)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.info(
                "could not answer %s %s: stdin is closed", record.subtype, record.request_id
            )
