"""`Session`: one CLI process, driven under structured concurrency.

``async with open_session(options) as session`` starts the CLI through a transport and opens
one task group, owned by that block, holding:

* the **reader**: ``receive_lines`` -> decode -> route. The lines of frames only the
  consumer looks at (assistant, user, stream_event: `_DEFERRED`) go to the message buffer
  as bytes, decoded when the consumer takes them. A ``control_response`` wakes the request
  waiting for it; a ``control_request`` goes to an inbound worker (permission, hook, MCP,
  elicitation), and the reader lets it run before reading again; a
  ``control_cancel_request`` cancels that handler (and nothing is written for it); every
  other frame goes to the message buffer. The reader never waits for a consumer: the buffer
  is unbounded on purpose, so interrupts and callbacks work while nobody reads.
* the **inbound workers**: reusable tasks that serve the CLI's requests, each answered
  exactly once; a worker keeps one cancel scope until a request it serves is withdrawn.

Consumers iterate the buffer with plain async iterators (`MessageStream`): no task group or
cancel scope is held across a ``yield``, so breaking out early or cancelling the consumer is
always safe. Outbound control requests write their line and wait on an event under
``fail_after``; the end of stdout fails every waiter at once.

Failure policy: a CLI that exits non-zero without an error result is a `ProcessError`
(with the stderr tail), delivered to the consumer (after the messages that came before it)
and to every waiting request; the exit 1 that follows an error result is not an error. A line
over ``max_line_bytes`` ends the session with `LineTooLongError`. A failure nobody observed is
raised when the ``async with`` block exits. A single failure leaves the block as itself, not
as an ``ExceptionGroup`` of one.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import importlib
import inspect
import itertools
import logging
import sys
import types
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Final, TypeVar

import anyio
import anyio.abc
import attrs

from . import control as c
from ._lowlevel import Primitives
from ._protocol.codec import default_codec, dumps
from ._protocol.control import ControlState
from ._protocol.launch import HookRegistration, LaunchSpec, build_initialize, build_launch_spec
from .errors import (
    ClaudeSDKError,
    ControlTimeoutError,
    InactivityTimeoutError,
    InitializeTimeoutError,
    LineTooLongError,
    MessageDecodeError,
    ProcessError,
    ResultError,
    SessionClosedError,
    SessionNotFoundError,
)
from .hooks import AsyncHookOutput, HookContext, HookOutput
from .messages import (
    AssistantMessage,
    ContentBlock,
    InitMessage,
    Message,
    ResultMessage,
    SessionStateChangedMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from .options import Options
from .permissions import PermissionAllow, PermissionDeny, ToolPermissionContext
from .telemetry import Telemetry
from .transports.base import Connection, Transport

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

if TYPE_CHECKING:
    from ._mcp_bridge import McpBridge

__all__ = ["MessageStream", "Session", "open_session"]

logger = logging.getLogger("claude_sdk")

#: Messages handed out between two checkpoints of a consumer that never waits (at least).
CHECKPOINT_EVERY: Final = 64
#: Inbound-request workers kept waiting for the next request (more run while requests
#: overlap; the extra ones end when they are done).
IDLE_WORKERS: Final = 4

_T = TypeVar("_T")
_DEFAULT: Any = object()
_NO_ANSWER: Any = object()


class _RejectError(Exception):
    """An inbound request answered with an error response."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class _Waiter:
    __slots__ = ("event", "outcome")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.outcome: Any = None


class _Serving:
    """An inbound request from the moment the reader accepts it until its handler is done.

    It is also the handle a permission callback gets as ``context.cancel_scope``: the worker
    runs handlers in a cancel scope shared by several requests (see `Session._inbound_worker`),
    so the context gets this per-request view of it instead.
    """

    __slots__ = ("host_cancelled", "scope", "started", "withdrawn")

    def __init__(self) -> None:
        #: A worker has taken it.
        self.started = False
        #: The CLI withdrew the request (``control_cancel_request``).
        self.withdrawn = False
        #: ``cancel()`` was called while the handler ran.
        self.host_cancelled = False
        #: The cancel scope its handler runs in, while it runs.
        self.scope: anyio.CancelScope | None = None

    @property
    def cancel_called(self) -> bool:
        """True once the handler was cancelled (by the CLI or by `cancel`)."""
        return self.withdrawn or self.host_cancelled

    def cancel(self) -> None:
        """Cancel the handler if it is still running (the CLI gets an error answer)."""
        if self.scope is not None and not self.cancel_called:
            self.host_cancelled = True
            self.scope.cancel()


class _Slot:
    """An inbound worker's mailbox: the reader hands it the next request while it waits."""

    __slots__ = ("event", "frame", "serving")

    def __init__(self) -> None:
        self.event: anyio.Event | None = None
        self.frame: c.ControlRequest | None = None
        self.serving: _Serving | None = None


def _clone(exc: BaseException) -> BaseException:
    """A copy of ``exc`` to raise in one more task (sharing one instance mixes tracebacks)."""
    try:
        clone = copy.copy(exc)
    except Exception:  # any failure to copy: raise the original
        return exc
    clone.__traceback__ = None
    return clone


class MessageStream(AsyncIterator[Message]):
    """An async iterator over a session's messages.

    With ``until_result`` it stops after the next `ResultMessage` (one turn); otherwise it
    runs until the CLI's output ends. It hands out what is buffered without a task switch
    per message, with a checkpoint every `CHECKPOINT_EVERY` messages or more (half the backlog
    when it is large), and raises the
    session's failure (`ProcessError`, `LineTooLongError`, ...) once the messages that came
    before it have been handed out.
    """

    __slots__ = ("_budget", "_buffer", "_count", "_done", "_session", "_until_result")

    def __init__(self, session: Session, *, until_result: bool) -> None:
        self._session = session
        self._buffer = session._buffer
        self._until_result = until_result
        self._done = False
        self._count = 0
        self._budget = CHECKPOINT_EVERY

    def __aiter__(self) -> MessageStream:
        return self

    async def __anext__(self) -> Message:
        # The fast path: a message is buffered and no checkpoint is due. It repeats the tail
        # of `_next` on purpose (one call less per message, issue 8); `_next` does the rest.
        buffer = self._buffer
        count = self._count + 1
        if buffer and count < self._budget and not self._done:
            self._count = count
            item = buffer.popleft()
            if item.__class__ is bytes:
                try:
                    item = _decode_frame(item)
                except MessageDecodeError as exc:
                    self._session._skip_line(exc)
                    return await self._next()
            elif self._until_result and item.__class__ is ResultMessage:
                self._done = True
            message: Message = item
            return message
        return await self._next()

    async def _next(self) -> Message:
        if self._done:
            raise StopAsyncIteration
        session = self._session
        buffer = self._buffer
        while True:
            if buffer:
                self._count += 1
                if self._count >= self._budget:
                    # Let other tasks run (cancellation, fairness). The next checkpoint
                    # comes after half of what is buffered then: in a flood the reader
                    # splits a chunk per turn, and draining half the backlog per turn keeps
                    # it bounded (about two chunks) instead of letting it pile up.
                    self._count = 0
                    await session._primitives.checkpoint()
                    self._budget = max(CHECKPOINT_EVERY, len(buffer) // 2)
            if not buffer:
                await session._wait_for_messages()
                if not buffer:
                    self._done = True
                    if self._until_result:
                        raise session._closed_error(
                            "the CLI's output ended before the turn's result"
                        )
                    raise StopAsyncIteration
            item = buffer.popleft()
            if item.__class__ is bytes:
                try:
                    item = _decode_frame(item)
                except MessageDecodeError as exc:
                    session._skip_line(exc)
                    continue
            elif self._until_result and item.__class__ is ResultMessage:
                self._done = True
            message: Message = item
            return message


@attrs.define(eq=False)
class _TurnState:
    prompts_sent: int = 0
    results: int = 0
    last_result: ResultMessage | None = None
    state: str | None = None


class Session:
    """A running CLI session. Created by `open_session`; see the module docstring.

    Attributes:
        server_info: the CLI's answer to ``initialize`` (models, commands, account, ...).
        session_id: the CLI's session id (from ``system/init``), once a turn has started.
        last_activity: ``anyio.current_time()`` of the last line from the CLI.
    """

    def __init__(
        self,
        conn: Connection,
        options: Options,
        spec: LaunchSpec,
        hooks: Mapping[str, HookRegistration],
        task_group: anyio.abc.TaskGroup,
        telemetry: Telemetry | None = None,
    ) -> None:
        self._conn = conn
        self._telemetry = telemetry if telemetry is not None else Telemetry(False)
        self._options = options
        self._spec = spec
        self._hooks = dict(hooks)
        self._tg = task_group
        self._control = ControlState()
        self._waiters: dict[str, _Waiter] = {}
        self._inbound: dict[str, _Serving] = {}
        self._idle_workers: list[_Slot] = []
        # Messages, and lines of messages not decoded yet (`_DEFERRED`): Message | bytes.
        self._buffer: collections.deque[Any] = collections.deque()
        self._data_event: anyio.Event | None = None
        self._failure: BaseException | None = None
        self._failure_observed = False
        self._eof = False
        self._primitives = Primitives()
        self._reader_done = anyio.Event()
        self._closing = False
        self._turns = _TurnState()
        self._idle_event: anyio.Event | None = None
        self._bridges: dict[str, McpBridge] = {}
        self.server_info: c.InitializeResponse | None = None
        self.session_id: str | None = None
        self.last_activity: float = anyio.current_time()
        self.lines_undecodable = 0

    # ---------------------------------------------------------------------------------
    # public facts

    @property
    def options(self) -> Options:
        """The options the session was opened with."""
        return self._options

    @property
    def pid(self) -> int | None:
        """The CLI's process id, when there is one."""
        return self._conn.pid

    @property
    def returncode(self) -> int | None:
        """The CLI's exit code once it has exited."""
        return self._conn.returncode

    @property
    def stderr_tail(self) -> str:
        """The last lines the CLI wrote to stderr."""
        return self._conn.stderr_tail

    @property
    def state(self) -> str | None:
        """The last ``session_state_changed`` state (``running``, ``requires_action``, ``idle``)."""
        return self._turns.state

    @property
    def closed(self) -> bool:
        """True once the CLI's output has ended or the session failed."""
        return self._eof or self._failure is not None

    @property
    def failure(self) -> BaseException | None:
        """The error that ended the session, if any."""
        return self._failure

    @property
    def pending_requests(self) -> list[str]:
        """Ids of host-to-CLI control requests still waiting for an answer."""
        return self._control.pending

    @property
    def inbound_in_flight(self) -> list[str]:
        """Ids of CLI-to-host control requests whose handlers are running."""
        return self._control.in_flight

    # ---------------------------------------------------------------------------------
    # conversation

    async def send(
        self,
        prompt: str | Sequence[ContentBlock] | UserMessage | AsyncIterable[UserMessage],
    ) -> None:
        """Write a prompt (a string, content blocks, a `UserMessage`, or a stream of them).

        Prompts sent while a turn runs are queued by the CLI; results come back in order.
        """
        if isinstance(prompt, str):
            await self._send_user(UserMessage.prompt(prompt))
        elif isinstance(prompt, UserMessage):
            await self._send_user(prompt)
        elif isinstance(prompt, AsyncIterable):
            async for message in prompt:
                await self._send_user(message)
        else:
            await self._send_user(UserMessage.prompt(list(prompt)))

    async def _send_user(self, message: UserMessage) -> None:
        self._raise_if_closed()
        if self._options.verbatim_prompts and message.client_composed is None:
            message = attrs.evolve(message, client_composed=True)
        self._turns.prompts_sent += 1
        if self._telemetry.enabled:
            self._telemetry.turn_started(message.text)
        try:
            await self._send_frame(message)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            # The CLI went away: say how, if the reader already knows.
            with anyio.move_on_after(self._options.shutdown_grace):
                await self._reader_done.wait()
            self._raise_if_closed()
            raise self._closed_error("the CLI's stdin is closed") from exc

    def receive_messages(self) -> MessageStream:
        """Every message, until the CLI's output ends."""
        return MessageStream(self, until_result=False)

    def receive_response(self) -> MessageStream:
        """The messages of the next turn, up to and including its `ResultMessage`."""
        return MessageStream(self, until_result=True)

    async def close(self) -> None:
        """Close the CLI's stdin: it finishes what it is doing and exits."""
        self._closing = True
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._conn.send_eof()

    async def wait_closed(self) -> None:
        """Wait until the CLI's output has ended (or the session failed)."""
        await self._reader_done.wait()

    async def wait_until_idle(self) -> bool:
        """Wait until every prompt sent has its result and the CLI reports ``idle``.

        A CLI that does not report its state counts as idle once the results are in.
        Returns False if the output ended first. Bound it with ``anyio.move_on_after``.
        """
        while not self._eof and self._failure is None:
            turns = self._turns
            if turns.results >= turns.prompts_sent and turns.state in (None, "idle"):
                return True
            event = self._idle_event
            if event is None:
                event = self._idle_event = self._primitives.event()
            await event.wait()
        return False

    # ---------------------------------------------------------------------------------
    # host -> CLI control requests

    async def control(self, subtype: str, **fields: Any) -> Any:
        """Send any control request; ``fields`` are its wire keys.

        Returns the typed answer where the model knows it, else the answer's dict.

        Raises:
            ControlRequestError: the CLI answered with an error (``error_code`` kept).
            ControlTimeoutError: no answer within ``Options.control_timeout``.
        """
        payload = c.UnknownControlRequest(raw={"subtype": subtype, **fields})
        return await self._request(payload, subtype)

    async def interrupt(self, *, cancel_queued: bool | None = None) -> c.InterruptResponse:
        """Stop the current turn; it ends with an error result. Returns the receipt."""
        result: c.InterruptResponse = await self._request(
            c.InterruptRequest(cancel_queued=cancel_queued)
        )
        return result

    async def set_permission_mode(self, mode: str) -> c.SetPermissionModeResponse:
        """Change the permission mode (``default``, ``acceptEdits``, ``plan``, ...)."""
        result: c.SetPermissionModeResponse = await self._request(
            c.SetPermissionModeRequest(mode=mode)
        )
        return result

    async def set_model(self, model: str | None) -> c.SetModelResponse:
        """Change the model (None goes back to the default)."""
        result: c.SetModelResponse = await self._request(c.SetModelRequest(model=model))
        return result

    async def set_max_thinking_tokens(
        self, max_thinking_tokens: int | None, *, thinking_display: str | None = None
    ) -> None:
        """Change the thinking budget."""
        await self._request(
            c.SetMaxThinkingTokensRequest(
                max_thinking_tokens=max_thinking_tokens, thinking_display=thinking_display
            )
        )

    async def mcp_status(self) -> c.McpStatusResponse:
        """The status of every MCP server."""
        result: c.McpStatusResponse = await self._request(c.McpStatusRequest())
        return result

    async def mcp_reconnect(self, server_name: str) -> None:
        """Reconnect an MCP server."""
        await self._request(c.McpReconnectRequest(server_name=server_name))

    async def mcp_toggle(self, server_name: str, enabled: bool) -> None:
        """Enable or disable an MCP server."""
        await self._request(c.McpToggleRequest(server_name=server_name, enabled=enabled))

    async def mcp_set_servers(self, servers: Mapping[str, Any]) -> c.McpSetServersResponse:
        """Replace the dynamic MCP servers (per-server failures are in ``errors``)."""
        result: c.McpSetServersResponse = await self._request(
            c.McpSetServersRequest(servers=dict(servers))
        )
        return result

    async def mcp_message(self, server_name: str, message: Mapping[str, Any]) -> None:
        """Relay a message from an in-process MCP server (a notification) to the CLI."""
        await self._request(c.McpMessageRequest(server_name=server_name, message=dict(message)))

    async def rewind_files(
        self, user_message_id: str, *, dry_run: bool | None = None
    ) -> c.RewindFilesResponse:
        """Rewind files to their state at a user message (needs file checkpointing)."""
        result: c.RewindFilesResponse = await self._request(
            c.RewindFilesRequest(user_message_id=user_message_id, dry_run=dry_run)
        )
        return result

    async def get_context_usage(self, *, detail: str | None = None) -> c.ContextUsageResponse:
        """How the context window is used."""
        result: c.ContextUsageResponse = await self._request(
            c.GetContextUsageRequest(detail=detail)
        )
        return result

    async def get_usage(self) -> dict[str, Any]:
        """Usage, cost and rate limits of the session."""
        result: dict[str, Any] = await self._request(c.GetUsageRequest())
        return result

    async def get_session_cost(self) -> dict[str, Any]:
        """The ``/usage`` text."""
        result: dict[str, Any] = await self._request(c.GetSessionCostRequest())
        return result

    async def list_models(self) -> c.ListModelsResponse:
        """The models the CLI offers."""
        result: c.ListModelsResponse = await self._request(c.ListModelsRequest())
        return result

    async def get_binary_version(self) -> c.GetBinaryVersionResponse:
        """The CLI binary's version facts."""
        result: c.GetBinaryVersionResponse = await self._request(c.GetBinaryVersionRequest())
        return result

    async def file_suggestions(self, query: str) -> dict[str, Any]:
        """File path completions for ``query``."""
        result: dict[str, Any] = await self._request(c.FileSuggestionsRequest(query=query))
        return result

    async def rename_session(self, title: str) -> None:
        """Set the session's title."""
        await self._request(c.RenameSessionRequest(title=title))

    async def cancel_async_message(self, message_uuid: str) -> c.CancelAsyncMessageResponse:
        """Withdraw a queued user message by its uuid."""
        result: c.CancelAsyncMessageResponse = await self._request(
            c.CancelAsyncMessageRequest(message_uuid=message_uuid)
        )
        return result

    async def read_file(
        self, path: str, *, max_bytes: int | None = None, encoding: str | None = None
    ) -> c.ReadFileResponse:
        """Read a file through the CLI (subject to its Read rules)."""
        result: c.ReadFileResponse = await self._request(
            c.ReadFileRequest(path=path, max_bytes=max_bytes, encoding=encoding)
        )
        return result

    async def reload_plugins(self) -> dict[str, Any]:
        """Reload plugins."""
        result: dict[str, Any] = await self._request(c.ReloadPluginsRequest())
        return result

    async def reload_skills(self) -> dict[str, Any]:
        """Reload skills."""
        result: dict[str, Any] = await self._request(c.ReloadSkillsRequest())
        return result

    async def stop_task(self, task_id: str) -> None:
        """Stop a background task."""
        await self._request(c.StopTaskRequest(task_id=task_id))

    async def get_task_output(self, task_id: str) -> dict[str, Any]:
        """A background task's output."""
        result: dict[str, Any] = await self._request(c.GetTaskOutputRequest(task_id=task_id))
        return result

    async def apply_flag_settings(self, settings: Mapping[str, Any]) -> None:
        """Apply partial settings (None clears a key)."""
        await self._request(c.ApplyFlagSettingsRequest(settings=dict(settings)))

    async def get_settings(self) -> dict[str, Any]:
        """The effective settings and their sources."""
        result: dict[str, Any] = await self._request(c.GetSettingsRequest())
        return result

    async def list_permission_rules(self) -> dict[str, Any]:
        """The permission rules in effect."""
        result: dict[str, Any] = await self._request(c.ListPermissionRulesRequest())
        return result

    async def end_session(self) -> None:
        """Ask the CLI to end the session."""
        await self._request(c.EndSessionRequest())

    async def _request(self, payload: Any, subtype: str | None = None) -> Any:
        """Write a control request and wait for its answer (``control_timeout``)."""
        return await self._request_with_deadline(payload, subtype, self._options.control_timeout)

    async def _request_with_deadline(
        self, payload: Any, subtype: str | None, seconds: float | None
    ) -> Any:
        self._raise_if_closed()
        subtype = subtype or payload.subtype
        assert subtype is not None
        if self._telemetry.enabled:
            with self._telemetry.span(f"claude_sdk.control {subtype}", subtype=subtype):
                return await self._exchange(payload, subtype, seconds)
        return await self._exchange(payload, subtype, seconds)

    async def _exchange(self, payload: Any, subtype: str, seconds: float | None) -> Any:
        request_id = self._control.begin(subtype)
        waiter = self._waiters[request_id] = _Waiter()
        try:
            frame = c.ControlRequest(request_id=request_id, request=payload)
            try:
                await self._send_frame(frame)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
                raise self._closed_error("the CLI's stdin is closed") from exc
            try:
                with anyio.fail_after(seconds):
                    await waiter.event.wait()
            except TimeoutError:
                raise ControlTimeoutError(
                    subtype=subtype, request_id=request_id, timeout=seconds or 0.0
                ) from None
        finally:
            self._waiters.pop(request_id, None)
            self._control.abandon(request_id)
        outcome = waiter.outcome
        if isinstance(outcome, BaseException):
            if outcome is self._failure:
                self._failure_observed = True
            raise _clone(outcome)
        return outcome

    # ---------------------------------------------------------------------------------
    # lifecycle (driven by open_session)

    async def _start(self, initialize: c.InitializeRequest) -> None:
        # In-process MCP servers first: the CLI initialises them before it answers us.
        for name, server in self._options.sdk_mcp_servers.items():
            if server is None:
                continue
            from ._mcp_bridge import McpBridge  # only sessions with in-process servers

            bridge = McpBridge(name, server, self._relay_mcp)
            await self._tg.start(bridge.run)
            self._bridges[name] = bridge
        self._tg.start_soon(self._reader)
        timeout = self._options.initialize_timeout
        try:
            with anyio.fail_after(timeout):
                info = await self._request_with_deadline(initialize, "initialize", None)
        except TimeoutError:
            raise InitializeTimeoutError(timeout=timeout) from None
        except SessionClosedError as exc:
            # The CLI can refuse to start with an error result and no initialize answer:
            # a resume of a session that does not exist, or a startup failure.
            result = self._turns.last_result
            if result is None or not result.is_error:
                raise
            if self._options.resume is not None:
                detail = "; ".join(result.errors or ()) or None
                raise SessionNotFoundError(detail, session_id=self._options.resume) from exc
            raise ResultError(result=result) from exc
        self.server_info = info
        self._check_initialize(info)

    def _check_initialize(self, info: c.InitializeResponse) -> None:
        blocking = [
            m
            for matchers in self._options.hooks.values()
            for m in matchers
            if m.on_failure == "block"  # asked for explicitly (the SDK's default is softer)
        ]
        unsupported = info.hook_on_failure_supported is not True or info.hooks_applied is False
        if self._options.hooks and unsupported and not blocking:
            logger.warning(
                "this CLI does not report support for hook onFailure; a permission hook "
                "that fails may not block the action on the CLI's side"
            )
        if blocking and unsupported:
            raise ClaudeSDKError(
                "a hook matcher uses on_failure='block', which this CLI does not support "
                f"(hook_on_failure_supported={info.hook_on_failure_supported!r}, "
                f"hooks_applied={info.hooks_applied!r})",
                kind="unsupported",
            )

    async def _finish(self) -> None:
        """Normal end of the ``async with`` body: close stdin, let the CLI exit.

        While the CLI may still call back (hooks, ``can_use_tool``, in-process MCP servers),
        stdin stays open until every prompt has its result and the CLI reports ``idle``
        (background subagents must not run without their hooks), for at most
        ``shutdown_grace``; then stdin closes and the CLI gets ``shutdown_grace`` to exit.
        """
        grace = self._options.shutdown_grace
        if self._options.has_callbacks and self._turns.prompts_sent:
            with anyio.move_on_after(grace):
                await self.wait_until_idle()
        self._closing = True
        with anyio.move_on_after(grace):
            await self.close()
            await self._reader_done.wait()

    def _raise_if_closed(self) -> None:
        if self._failure is not None:
            self._failure_observed = True
            raise _clone(self._failure)
        if self._eof:
            raise self._closed_error("the session has ended")

    def _closed_error(self, what: str) -> SessionClosedError:
        rc = self._conn.returncode
        cause = f"exit code {rc}" if rc is not None else None
        return SessionClosedError(what, cause=cause)

    # ---------------------------------------------------------------------------------
    # the reader

    async def _reader(self) -> None:
        conn = self._conn
        decode = _CODEC.decode_frame
        buffer = self._buffer
        turns = self._turns
        telemetry = self._telemetry if self._telemetry.enabled else None
        special = _SPECIAL_FRAMES
        deferred = _DEFERRED if telemetry is None else ()
        checkpoint = self._primitives.checkpoint
        if not _warmed:
            # The CLI is starting: generate the first frames' decoders meanwhile.
            _warm_up()
        handed: _Serving | None = None
        try:
            while True:
                try:
                    lines = await conn.receive_lines()
                except anyio.EndOfStream:
                    break
                self.last_activity = anyio.current_time()
                delivered = False
                if self._failure is not None:
                    continue  # failed: drain stdout so the CLI can finish and exit
                try:  # the common case, a batch of messages only: one pass in C
                    every = deferred and all(map(_startswith, lines, _repeat(deferred)))
                except TypeError:  # a LineTooLongError among them
                    every = False
                if every:
                    buffer.extend(lines)
                    self._wake_consumers()
                    continue
                for line in lines:
                    if line.__class__ is bytes:
                        if line.startswith(deferred):
                            # A message only the consumer looks at: it is decoded when it
                            # is handed out (see `_DEFERRED`).
                            buffer.append(line)
                            delivered = True
                            continue
                    elif isinstance(line, LineTooLongError):
                        # Ends the session: the consumer and every waiter get the error;
                        # stdin closes and the rest of stdout is drained.
                        self._fail(line)
                        await self.close()
                        break
                    try:
                        frame = decode(line)
                    except MessageDecodeError as exc:
                        self._skip_line(exc)
                        continue
                    cls = frame.__class__
                    if cls not in special:  # the common case: a message for the consumer
                        buffer.append(frame)
                        delivered = True
                        if telemetry is not None:
                            _trace_tools(telemetry, frame)
                        continue
                    if cls is c.ControlResponse:
                        self._on_response(frame)
                    elif cls is c.ControlRequest:
                        handed = self._on_request(frame) or handed
                    elif cls is c.ControlCancelRequest:
                        self._on_cancel(frame)
                    elif cls is c.KeepAlive:
                        pass
                    else:
                        buffer.append(frame)
                        delivered = True
                        if cls is SessionStateChangedMessage:
                            turns.state = frame.state
                            self._wake_idle()
                        elif cls is ResultMessage:
                            turns.results += 1
                            turns.last_result = frame
                            self._wake_idle()
                            if telemetry is not None:
                                telemetry.turn_ended(
                                    subtype=frame.subtype,
                                    is_error=frame.is_error,
                                    num_turns=frame.num_turns,
                                    duration_ms=frame.duration_ms,
                                    total_cost_usd=frame.total_cost_usd,
                                    session_id=frame.session_id,
                                )
                        elif cls is InitMessage and frame.session_id:
                            self.session_id = frame.session_id
                        if telemetry is not None:
                            _trace_tools(telemetry, frame)
                if delivered:
                    self._wake_consumers()
                if handed is not None:
                    # Let the handlers just handed a request run (to their answer, or to
                    # their first wait) before this task reads again: the answers go out
                    # first, and the read that finds the pipe empty (and the wait it starts)
                    # happen while the CLI works. A checkpoint or two: Trio runs a batch of
                    # ready tasks in a random order.
                    for _ in range(3):
                        await checkpoint()
                        if handed.started:
                            break
                    handed = None
            await self._on_eof()
        except Exception as exc:  # a bug of ours must fail the session, not hang it
            logger.exception("the session reader failed")
            self._fail(exc)
        finally:
            self._reader_done.set()
            self._wake_consumers()
            self._wake_idle()

    def _skip_line(self, exc: MessageDecodeError) -> None:
        self.lines_undecodable += 1
        logger.warning("skipped an undecodable line from the CLI: %s", exc)

    def _wake_consumers(self) -> None:
        event = self._data_event
        if event is not None:
            self._data_event = None
            event.set()

    def _wake_idle(self) -> None:
        event = self._idle_event
        if event is not None:
            self._idle_event = None
            event.set()

    async def _on_eof(self) -> None:
        conn = self._conn
        rc = conn.returncode
        if rc is None:
            with anyio.move_on_after(self._options.shutdown_grace):
                rc = await conn.wait()
        last = self._turns.last_result
        after_error_result = last is not None and last.is_error
        if rc not in (0, None) and not after_error_result and not self._closing:
            self._fail(
                conn.exit_error()
                or ProcessError(
                    exit_code=rc if rc >= 0 else None,
                    signal=-rc if rc < 0 else None,
                    stderr_tail=conn.stderr_tail,
                    cli_path=conn.cli_path,
                )
            )
            return
        self._eof = True
        closed = self._closed_error("the CLI's output ended")
        self._fail_waiters(closed)

    def _fail(self, exc: BaseException) -> None:
        if self._failure is None:
            self._failure = exc
        self._fail_waiters(exc)
        self._wake_consumers()
        self._wake_idle()

    def _fail_waiters(self, exc: BaseException) -> None:
        for request_id in self._control.pending:
            self._control.abandon(request_id)
            waiter = self._waiters.get(request_id)
            if waiter is not None and not waiter.event.is_set():
                waiter.outcome = exc
                waiter.event.set()

    async def _wait_for_messages(self) -> None:
        """Wait until the buffer has a message, the output ended, or the session failed."""
        while not self._buffer:
            if self._failure is not None:
                self._failure_observed = True
                raise _clone(self._failure)
            if self._eof or self._reader_done.is_set():
                return
            event = self._data_event
            if event is None:
                event = self._data_event = self._primitives.event()
            timeout = self._options.inactivity_timeout
            if timeout is None:
                await event.wait()
                continue
            remaining = self.last_activity + timeout - anyio.current_time()
            if remaining <= 0:
                raise InactivityTimeoutError(timeout=timeout, last_activity=self.last_activity)
            with anyio.move_on_after(remaining):
                await event.wait()

    # ---------------------------------------------------------------------------------
    # control frames from the CLI

    def _on_response(self, frame: c.ControlResponse) -> None:
        resolved = self._control.resolve(frame)
        if resolved is None:
            return  # not ours, or already given up on (a replayed echo, a late answer)
        request_id, outcome = resolved
        waiter = self._waiters.get(request_id)
        if waiter is not None:
            waiter.outcome = outcome
            waiter.event.set()

    def _on_request(self, frame: c.ControlRequest) -> _Serving | None:
        """Hand a request from the CLI to a worker; its record, or None if ignored."""
        subtype = frame.subtype or "?"
        if not self._control.accept(frame.request_id, subtype):
            logger.warning("ignored a duplicate control request %s", frame.request_id)
            return None
        serving = self._inbound[frame.request_id] = _Serving()
        # Hand the request to an idle worker (no task to spawn: one wake-up), or start one.
        idle = self._idle_workers
        if idle:
            slot = idle.pop()
            slot.frame, slot.serving = frame, serving
            assert slot.event is not None
            slot.event.set()
        else:
            self._tg.start_soon(self._inbound_worker, frame, serving)
        return serving

    def _on_cancel(self, frame: c.ControlCancelRequest) -> None:
        if self._control.cancel(frame.request_id):
            serving = self._inbound.get(frame.request_id)
            if serving is not None:
                serving.withdrawn = True
                if serving.scope is not None:
                    serving.scope.cancel()

    async def _inbound_worker(self, frame: c.ControlRequest, serving: _Serving) -> None:
        """Serve requests until enough other workers are idle (see `IDLE_WORKERS`).

        A worker runs its handlers in one cancel scope for as long as none of them is
        withdrawn (a cancel scope per request would cost more than a typical callback); the
        ``control_cancel_request`` for the running handler cancels that scope, and the worker
        goes on in a new one.
        """
        slot = _Slot()
        while True:
            with anyio.CancelScope() as scope:
                while True:
                    await self._serve_inbound(frame, serving, scope)
                    if scope.cancel_called:
                        break  # spent: the next request gets a new scope
                    if not await self._wait_for_request(slot):
                        return
                    assert slot.frame is not None
                    assert slot.serving is not None
                    frame, serving, slot.frame = slot.frame, slot.serving, None
            # The scope was cancelled. A request handed over meanwhile is served next.
            if slot.frame is None and not await self._wait_for_request(slot):
                return
            assert slot.frame is not None
            assert slot.serving is not None
            frame, serving, slot.frame = slot.frame, slot.serving, None

    async def _wait_for_request(self, slot: _Slot) -> bool:
        """Wait until the reader hands ``slot`` a request; False if enough workers wait."""
        idle = self._idle_workers
        if len(idle) >= IDLE_WORKERS:
            return False
        event = slot.event = self._primitives.event()
        idle.append(slot)
        try:
            await event.wait()  # cancelled with the session's task group
        except BaseException:
            if slot.frame is None and slot in idle:
                idle.remove(slot)  # nobody will hand it a request now
            raise
        return True

    async def _serve_inbound(
        self, frame: c.ControlRequest, serving: _Serving, scope: anyio.CancelScope
    ) -> None:
        request_id = frame.request_id
        # The answer is written as a plain dict, in the order the codec would write it.
        response: dict[str, Any] | None = None
        serving.started = True
        try:
            if serving.withdrawn:
                return  # withdrawn before it started
            serving.scope = scope
            try:
                body = await self._dispatch_inbound(frame.request, request_id)
                if body is not _NO_ANSWER:
                    response = {"subtype": "success", "request_id": request_id, "response": body}
            except _RejectError as exc:
                response = {"subtype": "error", "request_id": request_id, "error": str(exc)}
                if exc.code is not None:
                    response["error_code"] = exc.code
            except Exception as exc:  # any failure is answered as an error
                logger.warning("a %s handler failed: %r", frame.subtype, exc)
                response = {"subtype": "error", "request_id": request_id, "error": _describe(exc)}
            except BaseException as exc:
                cancelled = isinstance(exc, anyio.get_cancelled_exc_class())
                if not cancelled or not serving.host_cancelled or serving.withdrawn:
                    raise  # withdrawn by the CLI, the session ends, or not a cancellation
                # Cancelled through the context's handle: the CLI must still get an answer.
                response = {
                    "subtype": "error",
                    "request_id": request_id,
                    "error": f"the {frame.subtype} handler was cancelled",
                }
        finally:
            serving.scope = None
            self._inbound.pop(request_id, None)
            answer = self._control.finish(request_id)
        if not answer or response is None:
            return  # withdrawn by the CLI (send nothing), or deliberately unanswered
        line = dumps({"type": "control_response", "response": response})
        try:
            if scope.cancel_called:  # cancelled, yet answered: the answer still goes out
                with anyio.CancelScope(shield=True):
                    await self._conn.send(line)
            else:
                await self._conn.send(line)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.info("could not answer %s %s: stdin is closed", frame.subtype, request_id)

    async def _dispatch_inbound(self, request: Any, request_id: str) -> Any:
        if isinstance(request, c.CanUseToolRequest):
            return await self._serve_permission(request, request_id)
        if isinstance(request, c.HookCallbackRequest):
            return await self._serve_hook(request, request_id)
        if isinstance(request, c.McpMessageRequest):
            return await self._serve_mcp(request)
        if isinstance(request, c.ElicitationRequest):
            callback = self._options.on_elicitation
            if callback is None:
                return {"action": "decline"}
            return dict(await callback(request))
        if isinstance(request, c.RequestUserDialogRequest):
            dialog = self._options.on_user_dialog
            if dialog is None:
                return _NO_ANSWER
            answer = await dialog(request)
            return _NO_ANSWER if answer is None else dict(answer)
        subtype = getattr(request, "subtype", None)
        raise _RejectError(f"Unsupported control request subtype: {subtype}", "unsupported_request")

    async def _serve_permission(self, request: c.CanUseToolRequest, request_id: str) -> Any:
        if not self._telemetry.enabled:
            return await self._decide_permission(request, request_id)
        name = f"claude_sdk.permission {request.tool_name}"
        with self._telemetry.span(name, tool=request.tool_name) as span:
            answer = await self._decide_permission(request, request_id)
            self._telemetry.set(span, behavior=answer.get("behavior"))
            return answer

    async def _decide_permission(self, request: c.CanUseToolRequest, request_id: str) -> Any:
        callback = self._options.can_use_tool
        if callback is None:
            return _CODEC.unstructure(
                PermissionDeny(message="no can_use_tool callback is configured in the SDK")
            )
        serving = self._inbound.get(request_id)
        context = ToolPermissionContext(
            tool_use_id=request.tool_use_id,
            suggestions=tuple(request.permission_suggestions or ()),
            blocked_path=request.blocked_path,
            decision_reason=request.decision_reason,
            agent_id=request.agent_id,
            request_id=request_id,
            request=request,
            cancel_scope=serving,
        )
        timeout = self._options.callback_timeout
        try:
            if timeout is None:
                result = callback(request.tool_name, dict(request.input), context)
                if result.__class__ is _Coroutine or inspect.isawaitable(result):
                    result = await result
            else:
                with anyio.fail_after(timeout):
                    result = await _maybe_await(
                        callback(request.tool_name, dict(request.input), context)
                    )
        except Exception as exc:
            # Fail closed: a callback that raises or times out denies the tool.
            logger.warning("can_use_tool for %s failed: %r; denying", request.tool_name, exc)
            return _CODEC.unstructure(
                PermissionDeny(message=f"permission callback failed: {_describe(exc)}")
            )
        if not isinstance(result, (PermissionAllow, PermissionDeny)):
            return _CODEC.unstructure(
                PermissionDeny(
                    message=f"permission callback returned {type(result).__name__}, "
                    "not PermissionAllow or PermissionDeny"
                )
            )
        answer = _CODEC.unstructure(result)
        if answer["behavior"] == "allow" and answer.get("updatedInput") is None:
            # The official SDKs always send the input to run with: the original when unchanged.
            answer["updatedInput"] = request.input
        return answer

    async def _serve_hook(self, request: c.HookCallbackRequest, request_id: str) -> Any:
        if not self._telemetry.enabled:
            return await self._run_hook(request, request_id)
        registration = self._hooks.get(request.callback_id)
        event = registration.event if registration is not None else "?"
        with self._telemetry.span(f"claude_sdk.hook {event}", callback_id=request.callback_id):
            return await self._run_hook(request, request_id)

    async def _run_hook(self, request: c.HookCallbackRequest, request_id: str) -> Any:
        registration = self._hooks.get(request.callback_id)
        if registration is None:
            raise _RejectError(f"unknown hook callback id {request.callback_id!r}")
        context = HookContext(
            callback_id=request.callback_id,
            tool_use_id=request.tool_use_id,
            request_id=request_id,
        )
        timeout = registration.matcher.timeout
        try:
            if timeout is None:
                result = registration.callback(request.input, context)
                if result.__class__ is _Coroutine or inspect.isawaitable(result):
                    result = await result
            else:
                with anyio.fail_after(timeout):
                    result = await _maybe_await(registration.callback(request.input, context))
        except Exception as exc:  # fail closed on anything
            logger.warning("the %s hook failed: %r", registration.event, exc)
            denial = _hook_denial(registration.event, exc)
            if denial is not None:
                return denial  # fail closed: a failing permission hook denies
            raise
        if result is None:
            return {}
        if isinstance(result, (HookOutput, AsyncHookOutput)):
            return _CODEC.unstructure(result)
        if isinstance(result, Mapping):
            return dict(result)
        raise TypeError(f"hook returned {type(result).__name__}, not HookOutput, dict or None")

    async def _serve_mcp(self, request: c.McpMessageRequest) -> Any:
        message = request.message
        bridge = self._bridges.get(request.server_name)
        if bridge is not None:
            try:
                return {"mcp_response": await bridge.handle(dict(message))}
            except Exception as exc:  # a broken bridge answers a JSON-RPC error, not silence
                logger.warning("in-process MCP server %r failed: %r", request.server_name, exc)
                return {
                    "mcp_response": {
                        "jsonrpc": "2.0",
                        "id": message.get("id"),
                        "error": {"code": -32603, "message": _describe(exc)},
                    }
                }
        if "id" not in message:
            return {"mcp_response": {"jsonrpc": "2.0", "result": {}}}
        return {
            "mcp_response": {
                "jsonrpc": "2.0",
                "id": message.get("id"),
                "error": {
                    "code": -32601,
                    "message": f"SDK MCP server not found: {request.server_name}",
                },
            }
        }

    async def _relay_mcp(self, server_name: str, message: dict[str, Any]) -> None:
        """A message an in-process server sent on its own: pass it to the CLI."""
        if self.closed:
            return
        await self._request(c.McpMessageRequest(server_name=server_name, message=message))

    async def _send_frame(self, frame: Any) -> None:
        await self._conn.send(_CODEC.encode(frame))


_CODEC = default_codec()
_warmed: list[bool] = []


def _warm_up() -> None:
    _warmed.append(True)
    _CODEC.warm_up(
        decode=[
            c.ControlResponse,
            c.InitializeResponse,
            InitMessage,
            AssistantMessage,
            TextBlock,
            ToolUseBlock,
            UserMessage,
            ResultMessage,
            SessionStateChangedMessage,
        ],
        encode=[UserMessage],
    )


#: How the lines of the frames that only the consumer looks at begin, as the CLI writes them
#: (``JSON.stringify``: compact, ``type`` first). The reader puts such a line in the buffer as
#: it is and the consumer decodes it when it hands it out: the reader's turn stays short, a
#: backlog nobody reads holds bytes rather than objects (less memory, and nothing for the
#: garbage collector to walk), and a consumer that stops early never pays for the rest. Any
#: other line, these types written another way included, is decoded by the reader.
_DEFERRED: Final = (b'{"type":"assistant",', b'{"type":"user",', b'{"type":"stream_event",')

_decode_frame = _CODEC.decode_frame
_startswith: Final[Callable[..., bool]] = bytes.startswith
_repeat = itertools.repeat

#: Frames the reader acts on (all others go straight to the consumer).
_SPECIAL_FRAMES: Final = frozenset(
    {
        c.ControlResponse,
        c.ControlRequest,
        c.ControlCancelRequest,
        c.KeepAlive,
        SessionStateChangedMessage,
        ResultMessage,
        InitMessage,
    }
)


def _trace_tools(telemetry: Telemetry, frame: Any) -> None:
    """Start a tool span at a tool call and end it at the tool's result."""
    if frame.__class__ is AssistantMessage:
        for block in frame.message.content:
            if isinstance(block, ToolUseBlock):
                telemetry.tool_started(block.id, block.name)
    elif frame.__class__ is UserMessage and not isinstance(frame.message.content, str):
        for block in frame.message.content:
            if isinstance(block, ToolResultBlock):
                telemetry.tool_ended(block.tool_use_id, block.is_error)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _hook_denial(event: str, exc: BaseException) -> dict[str, Any] | None:
    reason = f"hook failed: {_describe(exc)}"
    if event == "PreToolUse":
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    if event == "PermissionRequest":
        return {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": reason},
            }
        }
    return None


_Coroutine: Final = types.CoroutineType


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def _single_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    leaves: list[BaseException] = []

    def walk(g: BaseExceptionGroup[BaseException]) -> None:
        for exc in g.exceptions:
            if isinstance(exc, BaseExceptionGroup):
                walk(exc)
            else:
                leaves.append(exc)

    walk(group)
    return leaves[0] if len(leaves) == 1 else None


@contextlib.contextmanager
def _collapse_groups() -> Iterator[None]:
    """A lone failure leaves as itself, not as an ``ExceptionGroup`` of one."""
    try:
        yield
    except BaseExceptionGroup as group:
        leaf = _single_leaf(group)
        if leaf is None:
            raise
        raise leaf from leaf.__cause__


def default_transport() -> Transport:
    """The transport used when none is given (the local subprocess transport)."""
    module = importlib.import_module(".transports.subprocess", __package__)
    transport: Transport = module.SubprocessTransport()
    return transport


@asynccontextmanager
async def open_session(
    options: Options | None = None, *, transport: Transport | None = None
) -> AsyncIterator[Session]:
    """Start a CLI and hold a `Session` on it for the duration of the block.

    The CLI, the reader task and every callback handler live inside this block; leaving it
    (normally, by an exception, or by cancellation) closes stdin, gives the CLI
    ``shutdown_grace`` to exit, then terminates and kills it, shielded and bounded.

    Raises:
        InitializeTimeoutError: no answer to ``initialize`` within ``initialize_timeout``.
        ProcessError: the CLI exited non-zero without an error result.
        LineTooLongError: a stdout line exceeded ``max_line_bytes``.
    """
    options = options if options is not None else Options()
    transport = transport if transport is not None else default_transport()
    spec = build_launch_spec(options)
    initialize, hooks = build_initialize(options)
    telemetry = Telemetry(options.telemetry)
    sessions: list[Session] = []
    with _collapse_groups(), telemetry.span("claude_sdk.session") as span:
        trace_env = telemetry.trace_env()
        if trace_env:  # the CLI joins the trace (an explicit Options.env value wins)
            spec = attrs.evolve(spec, env={**trace_env, **spec.env})
        async with transport.connect(spec) as conn, anyio.create_task_group() as tg:
            session = Session(conn, options, spec, hooks, tg, telemetry)
            sessions.append(session)
            try:
                await session._start(initialize)
                info = session.server_info
                telemetry.set(
                    span,
                    cli_path=conn.cli_path,
                    pid=conn.pid,
                    cli_version=info.claude_code_version if info is not None else None,
                )
                logger.debug(
                    "session started: pid %s, CLI %s",
                    conn.pid,
                    info.claude_code_version if info is not None else "?",
                )
                yield session
                await session._finish()
            finally:
                tg.cancel_scope.cancel()
                telemetry.close()
        session = sessions[0]
        failure = session._failure
        if failure is not None and not session._failure_observed:
            session._failure_observed = True
            raise failure
