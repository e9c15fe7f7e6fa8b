"""What the tasks of one session share: the connection, the protocol object, and wake-ups.

`SessionCore` is the AnyIO side of ``claude_sdk._protocol.Protocol``: it writes the lines the
protocol builds, keeps one waiter per request the host sent (resolved by the reader from the
protocol's `Answer` events), and the events that wake consumers, waiters of ``idle`` and the
end of the reader. The rules themselves (turns and where a consumer's turn ends, pending
requests and what a failure does to them, exit status, when stdin may close, the inactivity
clock) are the protocol's; nothing here decides them. This module maps the transport's
exceptions to the SDK's at one boundary (`SessionCore.write`).

Failure: the session's failure is ``protocol.failure`` (a line over the limit, a CLI that
exited non-zero without an error result, or a bug of ours in the reader). It is raised to the
consumer once the messages before it are handed out, to every waiting request at once, and,
if nobody saw it, when the ``async with`` block exits (``failure_observed``).
"""

from __future__ import annotations

import contextlib
import copy
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from .. import control as c
from .._lowlevel import Primitives
from .._paths import is_uuid
from .._protocol.codec import default_codec
from .._protocol.protocol import Protocol
from ..errors import (
    ControlRequestError,
    ControlTimeoutError,
    InactivityTimeoutError,
    SessionClosedError,
)
from ..options import Options
from ..telemetry import Telemetry
from .serving import Serving

if TYPE_CHECKING:
    from .._mcp_bridge import McpBridge
    from .._pending import PendingQuestion
    from .._protocol.codec import Codec
    from .._protocol.launch import HookRegistration, LaunchSpec
    from ..transports.base import Connection
    from .lease import HeldLease
    from .mirror import TranscriptMirror

__all__ = ["SessionCore", "clone"]

logger = logging.getLogger("claude_sdk.session")

#: Lines of stderr a `SessionClosedError` quotes (the whole tail is on the connection).
_STDERR_LINES = 5


def clone(exc: BaseException) -> BaseException:
    """A copy of ``exc`` to raise in one more task (sharing one instance mixes tracebacks)."""
    try:
        twin = copy.copy(exc)
    except Exception:  # any failure to copy: raise the original
        return exc
    twin.__traceback__ = None
    return twin


class Waiter:
    """One pending host request: set once, by the reader (its `Answer`) or at the end."""

    __slots__ = ("event", "outcome")

    def __init__(self, event: anyio.Event) -> None:
        self.event = event
        self.outcome: Any = None


class SessionCore:
    """The state the reader, the inbound workers, the streams and the facade share."""

    def __init__(
        self,
        conn: Connection,
        options: Options,
        spec: LaunchSpec,
        hooks: Mapping[str, HookRegistration],
        task_group: anyio.abc.TaskGroup,
        telemetry: Telemetry,
    ) -> None:
        self.conn = conn
        self.options = options
        self.spec = spec
        self.hooks: dict[str, HookRegistration] = dict(hooks)
        self.tg = task_group
        self.telemetry = telemetry
        self.codec: Codec = default_codec()
        self.protocol: Protocol = Protocol(
            self.codec,
            defer_messages=not telemetry.enabled,
            request_class=Serving,
            mirror=options.session_store is not None,
            callbacks=options.has_callbacks,
        )
        #: Stores the CLI's mirrored transcript (``Options.session_store``), or None.
        self.mirror: TranscriptMirror | None = None
        self.primitives: Primitives = Primitives()
        self.waiters: dict[str, Waiter] = {}
        self.bridges: dict[str, McpBridge] = {}
        self.data_event: anyio.Event | None = None
        self.idle_event: anyio.Event | None = None
        self.reader_done: anyio.Event = anyio.Event()
        self.failure_observed: bool = False
        #: The message stream waiting for a message now (one at a time: `MessageStream`).
        self.reader_waiting: object | None = None
        self.protocol.activity(anyio.current_time())
        #: DEBUG is enabled on ``claude_sdk.session``, as of the session's start, its last
        #: prompt or its last request: the inbound workers read this, not the logger, on
        #: their hot path.
        self.debug: bool = logger.isEnabledFor(logging.DEBUG)
        #: The CLI's answer to ``initialize`` (the latest one, after a re-initialize).
        self.server_info: c.InitializeResponse | None = None
        #: The ``initialize`` request the session started with (a re-initialize resends it).
        self.initialize_request: c.InitializeRequest | None = None
        #: What a resumed session confirmed before its first prompt (``verify_resume``).
        self.resumed: c.ResumeConfirmation | None = None
        #: Awaited before each prompt is written (a pool's limits; may raise to refuse it).
        self.before_prompt: Callable[[], Awaitable[None]] | None = None
        #: Called by the reader with each ``result`` before anyone reads it (a pool's
        #: accounting; must not block nor raise).
        self.on_result: Callable[[Any], None] | None = None
        #: The session's lease on its key in the session store, if it holds one.
        self.lease: HeldLease | None = None
        #: Tool calls a person allowed (`claude_sdk.answer`): (tool name, input), each
        #: allowed once without asking ``can_use_tool``.
        self.grants: list[tuple[str, dict[str, Any]]] = []
        #: The question this session was last suspended on and has not answered
        #: (`claude_sdk.humans`).
        self.pending: PendingQuestion | None = None

    # -- facts ---------------------------------------------------------------------------

    @property
    def failure(self) -> BaseException | None:
        """The error that ended the session, if any."""
        return self.protocol.failure

    @property
    def closed(self) -> bool:
        """True once the CLI's output has ended or the session failed."""
        return self.protocol.closed

    @property
    def session_id(self) -> str | None:
        """The session's id (`claude_sdk.Session.session_id`)."""
        found = self.protocol.session_id
        if found is not None:
            return found
        resumed = self.resumed
        if resumed is not None and resumed.session_id is not None:
            return resumed.session_id
        options = self.options
        if options.session_id is not None:
            return options.session_id
        if options.resume is not None and not options.fork_session and is_uuid(options.resume):
            return options.resume
        return None

    @property
    def last_activity(self) -> float:
        """``anyio.current_time()`` of the last output (bytes) or of our last callback's end."""
        protocol = self.protocol
        received = self.conn.last_received
        if received is not None:
            protocol.activity(received)
        return protocol.last_activity

    @property
    def callbacks_running(self) -> int:
        """Inbound requests whose handlers run now (the CLI waits for us meanwhile)."""
        return self.protocol.callbacks_running

    @callbacks_running.setter
    def callbacks_running(self, value: int) -> None:
        self.protocol.callbacks_running = value

    # -- wake-ups ----------------------------------------------------------------------------

    def wake_consumers(self) -> None:
        event = self.data_event
        if event is not None:
            self.data_event = None
            event.set()

    def wake_idle(self) -> None:
        event = self.idle_event
        if event is not None:
            self.idle_event = None
            event.set()

    def fail(self, exc: BaseException) -> None:
        """End the session with ``exc`` (`Protocol.fail`: the first failure wins): every
        waiter gets the session's failure now."""
        for answer in self.protocol.fail(exc):
            self.resolve(answer.request_id, None, answer.error)
        self.wake_consumers()
        self.wake_idle()

    def resolve(self, request_id: str, value: Any, error: BaseException | None) -> None:
        waiter = self.waiters.get(request_id)
        if waiter is not None and not waiter.event.is_set():
            waiter.outcome = error if error is not None else value
            waiter.event.set()

    # -- raising -------------------------------------------------------------------------------

    def raise_failure(self) -> None:
        """Raise the session's failure, if it has one (it is then observed)."""
        failure = self.protocol.failure
        if failure is not None:
            self.failure_observed = True
            raise clone(failure)

    def raise_if_closed(self) -> None:
        failure = self.protocol.failure
        if failure is not None:
            self.failure_observed = True
            raise clone(failure)
        if self.protocol.ended:
            raise self.closed_error(
                "the session has ended: use the session inside its `async with "
                "open_session(...)` block; to go on with the conversation later, open a "
                "new session with Options(resume=session.session_id)"
            )

    def closed_error(self, what: str) -> SessionClosedError:
        """A `SessionClosedError` that says how the CLI ended, as far as is known."""
        facts = []
        rc = self.conn.returncode
        if rc is not None:
            facts.append(f"exit code {rc}" if rc >= 0 else f"killed by signal {-rc}")
        tail = [line for line in self.conn.stderr_tail.splitlines() if line.strip()]
        if tail:
            facts.append("stderr: " + " | ".join(tail[-_STDERR_LINES:]))
        return SessionClosedError(what, cause="; ".join(facts) or None)

    # -- writing ---------------------------------------------------------------------------

    async def write(self, line: bytes) -> None:
        """Write one line; a CLI that is gone is reported as it ended (exit status, stderr).

        Raises:
            ProcessError: the CLI exited non-zero (after the reader has seen it exit).
            SessionClosedError: stdin is closed, or the CLI ended without an error status.
        """
        try:
            await self.conn.send(line)
        except anyio.ClosedResourceError:
            raise self.closed_error("the CLI's stdin is closed") from None
        except anyio.BrokenResourceError as exc:
            # The CLI no longer reads: it is exiting. Its exit status and stderr say why, and
            # the reader learns them at the end of stdout: wait for that (bounded).
            with anyio.move_on_after(self.options.shutdown_grace):
                await self.reader_done.wait()
            self.raise_if_closed()
            raise self.closed_error("the CLI's stdin is closed") from exc

    async def request(self, payload: Any, seconds: float | None) -> Any:
        """Send a host request and wait (at most ``seconds``) for its typed answer.

        Raises:
            ControlRequestError: the CLI answered with an error.
            ControlTimeoutError: no answer in time.
            MessageDecodeError: the answer does not fit its type.
        """
        if self.telemetry.enabled:
            subtype = payload.subtype
            with self.telemetry.span(f"claude_sdk.control {subtype}", subtype=subtype):
                return await self._request(payload, seconds)
        return await self._request(payload, seconds)

    async def _request(self, payload: Any, seconds: float | None) -> Any:
        self.raise_if_closed()
        request_id, line = self.protocol.send_request(payload)
        waiter = self.waiters[request_id] = Waiter(self.primitives.event())
        self.debug = logger.isEnabledFor(logging.DEBUG)
        if self.debug:
            return await self._logged(request_id, line, waiter, payload, seconds)
        return await self._exchange(request_id, line, waiter, payload, seconds)

    async def _logged(
        self, request_id: str, line: bytes, waiter: Waiter, payload: Any, seconds: float | None
    ) -> Any:
        """`_exchange`, with DEBUG lines: the request sent, then its outcome and how long it
        took (subtype and id only: a request's fields may hold anything)."""
        subtype = payload.subtype
        logger.debug("control request %s %s sent", subtype, request_id)
        started = time.perf_counter()
        outcome = "cancelled"
        try:
            answer = await self._exchange(request_id, line, waiter, payload, seconds)
        except ControlTimeoutError:
            outcome = "timeout"
            raise
        except ControlRequestError as exc:
            outcome = f"error ({exc.error_code or 'no error code'})"
            raise
        except Exception as exc:
            outcome = f"error ({type(exc).__name__})"
            raise
        else:
            outcome = "success"
            return answer
        finally:
            logger.debug(
                "control request %s %s: %s after %.1f ms",
                subtype,
                request_id,
                outcome,
                (time.perf_counter() - started) * 1000,
            )

    async def _exchange(
        self, request_id: str, line: bytes, waiter: Waiter, payload: Any, seconds: float | None
    ) -> Any:
        """Write ``line`` and wait for ``waiter`` (see `request`)."""
        try:
            await self.write(line)
            try:
                with anyio.fail_after(seconds):
                    await waiter.event.wait()
            except TimeoutError:
                subtype = getattr(payload, "subtype", "?")
                raise ControlTimeoutError(
                    subtype=subtype, request_id=request_id, timeout=seconds or 0.0
                ) from None
        finally:
            del self.waiters[request_id]
            self.protocol.abandon(request_id)
        outcome = waiter.outcome
        if isinstance(outcome, BaseException):
            if outcome is self.protocol.failure:
                self.failure_observed = True
            raise clone(outcome)
        return outcome

    async def close_stdin(self) -> None:
        """Close the CLI's stdin: it finishes what it is doing and exits."""
        self.protocol.close()
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self.conn.send_eof()

    # -- waiting ---------------------------------------------------------------------------

    async def wait_for_messages(self) -> None:
        """Wait until there is a message, the output ended, the session failed, or the
        reader woke the consumers for another reason (a prompt withdrawn): the caller
        looks again.

        ``inactivity_timeout`` (`Protocol.inactivity_deadline`) counts silence: any bytes
        from the CLI count as output, whole lines or not, and the time the CLI waits for
        one of our callbacks does not count (their end counts as activity).
        """
        messages = self.protocol.messages
        protocol = self.protocol
        while not messages:
            if protocol.failure is not None:
                self.failure_observed = True
                raise clone(protocol.failure)
            if protocol.ended or self.reader_done.is_set():
                # A cancellation of the scope around the session ends the reader too, and the
                # reader wakes us on its way out: let a cancellation pending for this task win
                # (asyncio delivers it at the next checkpoint) over "the output ended".
                await self.primitives.checkpoint()
                return
            event = self.data_event
            if event is None:
                event = self.data_event = self.primitives.event()
            timeout = self.options.inactivity_timeout
            deadline = protocol.inactivity_deadline(timeout)
            if deadline is None:
                await event.wait()
                return
            if deadline <= anyio.current_time():
                # Bytes that are not a whole line yet count too: the transport saw them.
                received = self.conn.last_received
                if received is not None:
                    protocol.activity(received)
                    deadline = protocol.inactivity_deadline(timeout)
                if deadline is not None and deadline <= anyio.current_time():
                    assert timeout is not None
                    last = protocol.last_activity
                    raise InactivityTimeoutError(timeout=timeout, last_activity=last)
                continue
            with anyio.move_on_after(deadline - anyio.current_time()):
                await event.wait()
                return

    def callback_finished(self) -> None:
        """An inbound handler is done, with ``inactivity_timeout`` set: the CLI owes us
        output again from now (the worker has counted it out of `callbacks_running`)."""
        self.protocol.activity(anyio.current_time())
        self.wake_consumers()  # to restart its clock

    async def wait_for(self, predicate: Callable[[], bool]) -> bool:
        """Wait until ``predicate()`` holds, checked after each result and state change;
        False if the output ended (or the session failed) first."""
        protocol = self.protocol
        while not predicate():
            if protocol.ended or protocol.failure is not None:
                return False
            event = self.idle_event
            if event is None:
                event = self.idle_event = self.primitives.event()
            await event.wait()
        return True

    async def wait_until_idle(self) -> bool:
        """Wait until every prompt is settled and the CLI reports ``idle`` (see Protocol)."""
        protocol = self.protocol
        if protocol.ended or protocol.failure is not None:
            return False
        return await self.wait_for(lambda: protocol.idle)
