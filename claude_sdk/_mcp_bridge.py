"""In-process MCP servers: relay the CLI's ``mcp_message`` JSON-RPC to a server in this process.

This is the only module that imports ``mcp``, and only when a session has an in-process
server (importing ``mcp`` costs about 330 ms and pulls in pydantic and starlette).

A server is one of:

* a `claude_sdk.tools.SdkMcpServer` (``@tool`` functions), served as the ``mcp`` low-level
  server it builds;
* an ``mcp`` server object: the low-level ``mcp.server.Server``, ``MCPServer`` (anything with
  ``_lowlevel_server``), or a subclass of either; it runs over mcp's in-memory streams inside
  the session's task group, so resources, prompts and server notifications (list changed,
  progress, logging) work as they do over any other MCP transport;
* an object with ``async def handle_mcp_message(message: dict) -> dict | None`` (a raw
  JSON-RPC handler, no ``mcp`` needed): it answers requests itself.

Contract of `McpBridge.handle`: a JSON-RPC request returns the server's response (a result
or an error, matched by id); a notification returns the bare acknowledgement
``{"jsonrpc": "2.0", "result": {}}``. Messages the server sends on its own (notifications,
requests to the client) go, in the order sent, to ``notify(server_name, message)``, which the
session relays to the CLI as a host ``mcp_message`` control request; what the server writes
after one of them waits until the CLI acknowledged it (the order of a stream transport).

Invariants:

* Capabilities: an ``mcp`` server is initialized with ``tools.listChanged: true`` (it can
  notify through its session, and `SdkMcpServer.notify_tools_changed` does), unless its class
  overrides ``create_initialization_options``, which is then called as it is. Prompts and
  resources keep ``listChanged: false``: CLI 2.1.330 and 2.1.331 in stream-json mode act on
  no such notification (only their interactive mode does).
* Tools changed: one rule for however a server says so. Its own
  ``notifications/tools/list_changed`` (a low-level server's
  ``ctx.session.send_tool_list_changed()``), `SdkMcpServer.notify_tools_changed`, and a
  ``ToolsListChanged`` published on its subscription bus all reach the CLI as that
  notification. The bus is what ``MCPServer``'s ``ctx.notify_tools_changed()`` publishes on
  (also a low-level server's ``ListenHandler``): mcp delivers it only to
  ``subscriptions/listen`` streams (protocol 2026-07-28), which the CLI never opens, so the
  bridge subscribes to the bus itself. A bus event is relayed by a task of its own (at most
  one pending: the event says "list again", however often it came), so what the tool writes
  after it does not wait for the CLI's acknowledgement; the hold below starts as it is
  published. Prompts and resources events are not relayed (see Capabilities).
* Relisting: once the server said its tools changed (any of the above) and the CLI has
  listed them before, a ``tools/call`` result waits until the CLI listed them again (at most
  `RELIST_WAIT` seconds, then a warning): within a turn the CLI builds its next model
  request as soon as it has a result and does not wait for a list it was told of (before a
  new turn it does). The hold ends as the ``tools/list`` answer goes back to the session,
  whose local transport writes it without yielding first: it precedes the held result on
  the wire.
* Ids: the CLI numbers its requests per server and restarts after a reconnect, so requests
  reach the server under ids of the bridge's own (``cli-<n>``) and answers go back under the
  CLI's. A ``notifications/cancelled`` of the CLI is rewritten to the bridge's id, so the
  server cancels that handler (mcp never answers a cancelled request).
* A request the CLI cancelled is settled at once: `handle` returns a JSON-RPC error (the CLI
  has dropped the id, and ignores it), so the control request does not stay open. For a
  ``tools/call`` the host is told why first, with a `claude_sdk.tools.ToolCancelled`: an
  `SdkMcpServer` records it in the call's `ToolContext`, passes it to its ``on_cancel`` and
  logs it (``claude_sdk.tools``); for another server it is logged (``claude_sdk.mcp``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import anyio
import anyio.abc
import attrs

from ._attrs import define

if TYPE_CHECKING:
    from .tools import SdkMcpServer

__all__ = ["McpBridge", "RawMcpHandler", "is_in_process_server"]

logger = logging.getLogger("claude_sdk.mcp")

_ACK: Mapping[str, Any] = {"jsonrpc": "2.0", "result": {}}
#: JSON-RPC code of the answer to a request the CLI cancelled (LSP's RequestCancelled; MCP
#: defines none; the CLI has dropped the id and ignores the answer).
REQUEST_CANCELLED = -32800
#: Seconds a tool's result may wait for the CLI to list the tools again (see `_wait_for_relist`).
RELIST_WAIT = 3.0
_TOOLS_CHANGED = "notifications/tools/list_changed"
Notify = Callable[[str, dict[str, Any]], Awaitable[None]]


@runtime_checkable
class RawMcpHandler(Protocol):
    """An in-process server that answers JSON-RPC messages itself."""

    async def handle_mcp_message(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Answer one JSON-RPC message (None for a notification)."""


def _is_mcp_class(cls: type) -> bool:
    """A class of the ``mcp`` package (not a user's subclass of one)."""
    return cls.__module__ == "mcp" or cls.__module__.startswith("mcp.")


def _lowlevel(server: object) -> Any | None:
    """The ``mcp`` low-level server to run for ``server``, or None when it is not one.

    Read without importing ``mcp``: an object with ``_lowlevel_server`` (``MCPServer`` and its
    subclasses), or an instance of a class of the ``mcp`` package with
    ``create_initialization_options`` or of a subclass of one (``mcp.server.Server``).
    """
    inner = getattr(server, "_lowlevel_server", None)
    if inner is not None:
        return inner
    if not hasattr(server, "create_initialization_options"):
        return None
    if any(_is_mcp_class(cls) for cls in type(server).__mro__):
        return server
    return None


def is_in_process_server(value: object) -> bool:
    """True for an object the bridge can serve (an mcp server or a raw handler)."""
    if isinstance(value, Mapping):
        return False
    return (
        isinstance(value, RawMcpHandler)
        or _lowlevel(value) is not None
        or hasattr(value, "to_mcp_server")
    )


def _subscription_bus(server: object, lowlevel: Any) -> Any | None:
    """The bus ``server`` publishes its change events on (``mcp.server.subscriptions``), or
    None: an ``MCPServer``'s (``ctx.notify_tools_changed()`` publishes there, even when it
    serves no ``subscriptions/listen``), else that of the ``ListenHandler`` a low-level
    server was given."""
    bus = getattr(server, "_subscriptions", None)
    if bus is None:
        handlers = getattr(lowlevel, "_request_handlers", None)
        entry = handlers.get("subscriptions/listen") if isinstance(handlers, Mapping) else None
        bus = getattr(getattr(entry, "handler", None), "_bus", None)
    return bus if callable(getattr(bus, "subscribe", None)) else None


def _initialization_options(server: Any) -> Any:
    """The options ``server`` is initialized with (see the module docstring)."""
    from mcp.server import NotificationOptions

    for cls in type(server).__mro__:
        if "create_initialization_options" in vars(cls):
            if not _is_mcp_class(cls):  # the server's own: it knows what it sends
                return server.create_initialization_options()
            break
    return server.create_initialization_options(NotificationOptions(tools_changed=True))


@define(eq=False)
class _Call:
    """A request of the CLI the server is working on."""

    key: str
    message: dict[str, Any]
    started: float
    done: anyio.Event = attrs.field(factory=anyio.Event)
    response: dict[str, Any] | None = None
    cancelled: str | None = None  # the CLI's reason, once it cancelled the request


class McpBridge:
    """Serves one in-process MCP server for one session."""

    def __init__(self, name: str, server: object, notify: Notify) -> None:
        self.name = name
        self._notify = notify
        self._raw: RawMcpHandler | None = None
        self._server: Any = None
        self._sdk: SdkMcpServer | None = None
        self._bus: Any = None
        if hasattr(server, "to_mcp_server"):  # claude_sdk.tools.SdkMcpServer
            from .tools import SdkMcpServer

            if isinstance(server, SdkMcpServer):
                self._sdk = server
            server = server.to_mcp_server()
        if isinstance(server, RawMcpHandler):
            self._raw = server
        else:
            self._server = _lowlevel(server)
            if self._server is None:
                raise TypeError(
                    f"mcp_servers[{name!r}]: {type(server).__name__} is not an MCP server"
                )
            self._bus = _subscription_bus(server, self._server)
        self._write: Any = None
        self._calls: dict[str, _Call] = {}  # by the bridge's id
        self._by_cli_id: dict[Any, _Call] = {}  # by the CLI's id
        self._counter = 0
        self._listings = 0  # tools/list requests answered
        self._relisted: anyio.Event | None = None  # set once the CLI lists the tools again
        self._published: anyio.Event | None = None  # set when the bus said the tools changed

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Run the server until cancelled (``task_group.start`` waits until it is ready)."""
        if self._raw is not None:
            task_status.started()
            await anyio.sleep_forever()
        try:
            from mcp.shared.memory import create_client_server_memory_streams
        except ImportError as exc:  # an mcp server object without mcp: unlikely, but say so
            raise ImportError(
                "serving an mcp server object in-process needs the mcp package: "
                "pip install 'claude-sdk-py[mcp]'"
            ) from exc

        from mcp.shared.subscriptions import ToolsListChanged

        def published(event: object) -> None:  # a bus listener: synchronous, never raises
            if isinstance(event, ToolsListChanged) and self._published is not None:
                self._expect_relist()  # now: the tool's result may come before the relay
                self._published.set()

        options = _initialization_options(self._server)
        detach = self._sdk._attach(self._relay) if self._sdk is not None else None
        self._published = anyio.Event()
        unsubscribe = self._bus.subscribe(published) if self._bus is not None else None
        try:
            async with create_client_server_memory_streams() as (client, server_streams):
                client_read, client_write = client
                server_read, server_write = server_streams
                self._write = client_write
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._server.run, server_read, server_write, options)
                    tg.start_soon(self._pump, client_read)
                    if unsubscribe is not None:
                        tg.start_soon(self._relay_published)
                    task_status.started()
                    await anyio.sleep_forever()
        finally:
            if detach is not None:
                detach()
            if unsubscribe is not None:
                try:
                    unsubscribe()
                except Exception as exc:  # a bus of the user's: it must not fail the session
                    logger.info("MCP server %r: the bus did not unsubscribe: %r", self.name, exc)

    async def _pump(self, read: Any) -> None:
        """Route what the server writes, in order: responses to their waiters, the rest to
        the CLI. A message is relayed (and acknowledged) before the next one is routed, as a
        stream transport would deliver them: a tool that notifies, then returns, has its
        notification handled by the CLI before its result."""
        async for item in read:
            if isinstance(item, Exception):
                logger.warning("in-process MCP server %r: %r", self.name, item)
                continue
            data = item.message.model_dump(by_alias=True, mode="json", exclude_none=True)
            call = self._calls.get(data.get("id")) if "method" not in data else None
            if call is not None:
                call.response = data
                call.done.set()
                continue
            try:
                await self._relay(data)
            except Exception as exc:  # the CLI may be gone; the server must not die of it
                logger.info("could not relay a message of MCP server %r: %r", self.name, exc)

    async def _relay_published(self) -> None:
        """Tell the CLI each time the server's bus said its tools changed (one notification
        for the events published while the previous one was on its way)."""
        while self._published is not None:
            await self._published.wait()
            self._published = anyio.Event()
            try:
                await self._relay({"jsonrpc": "2.0", "method": _TOOLS_CHANGED})
            except Exception as exc:  # the CLI may be gone; the server must not die of it
                logger.info("could not relay a message of MCP server %r: %r", self.name, exc)

    async def _relay(self, data: dict[str, Any]) -> None:
        """Send one message of the server to the CLI; returns once the CLI acknowledged it."""
        relist = data.get("method") == _TOOLS_CHANGED and self._listings > 0
        if relist:
            self._expect_relist()  # before sending: the CLI may list at once
        try:
            await self._notify(self.name, data)
        except BaseException:
            if relist:
                self._relist_done()
            raise

    def _expect_relist(self) -> None:
        """The server said its tools changed: hold results until the CLI lists them again
        (when it listed them before; see `_wait_for_relist`)."""
        if self._listings > 0 and self._relisted is None:
            self._relisted = anyio.Event()

    def _relist_done(self) -> None:
        if self._relisted is not None:
            self._relisted.set()
            self._relisted = None

    async def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Feed one JSON-RPC message from the CLI; the response to send back."""
        if self._raw is not None:
            answer = await self._raw.handle_mcp_message(message)
            return dict(answer) if answer is not None else dict(_ACK)
        from mcp.shared.message import SessionMessage
        from mcp.types import jsonrpc_message_adapter

        if self._write is None:
            raise RuntimeError(f"MCP server {self.name!r} is not running")
        is_request = "id" in message and "method" in message
        if not is_request:
            if message.get("method") == "notifications/cancelled":
                await self._cancel(message)
            else:
                await self._write.send(
                    SessionMessage(jsonrpc_message_adapter.validate_python(message))
                )
            return dict(_ACK)
        original = message["id"]
        self._counter += 1
        call = _Call(key=f"cli-{self._counter}", message=message, started=anyio.current_time())
        self._calls[call.key] = call
        self._by_cli_id[original] = call
        try:
            relayed = {**message, "id": call.key}
            await self._write.send(SessionMessage(jsonrpc_message_adapter.validate_python(relayed)))
            await call.done.wait()
        finally:
            del self._calls[call.key]
            if self._by_cli_id.get(original) is call:
                del self._by_cli_id[original]
        if call.response is None:  # the CLI cancelled it: mcp sends nothing, the CLI reads nothing
            reason = call.cancelled or "cancelled"
            return {
                "jsonrpc": "2.0",
                "id": original,
                "error": {"code": REQUEST_CANCELLED, "message": f"Request cancelled: {reason}"},
            }
        response = call.response
        response["id"] = original
        if message.get("method") == "tools/list":
            self._listings += 1
            # The answer is written before any held result runs on (no checkpoint between).
            self._relist_done()
        elif self._relisted is not None and message.get("method") == "tools/call":
            await self._wait_for_relist(self._relisted)
        return response

    async def _wait_for_relist(self, relisted: anyio.Event) -> None:
        """Hold a tool's result until the CLI listed the tools again after the server said
        they changed: the CLI builds its next model request as soon as it has the result,
        and only a new list that reached it before is in that request (within a turn the CLI
        does not wait for a list it was told of; before a new turn it does)."""
        with anyio.move_on_after(RELIST_WAIT):
            await relisted.wait()
            return
        logger.warning(
            "the CLI did not list the tools of MCP server %r again within %.0f s of "
            "notifications/tools/list_changed; the model may not see the change yet",
            self.name,
            RELIST_WAIT,
        )
        if self._relisted is relisted:
            self._relist_done()

    async def _cancel(self, message: dict[str, Any]) -> None:
        """The CLI cancelled one of its requests: tell the host why, cancel the handler, and
        settle the request."""
        from mcp.shared.message import SessionMessage
        from mcp.types import jsonrpc_message_adapter

        params = message.get("params")
        params = params if isinstance(params, Mapping) else {}
        call = self._by_cli_id.get(params.get("requestId"))
        if call is None or call.done.is_set():
            return  # answered already, or never ours: nothing runs that could be cancelled
        reason = params.get("reason")
        call.cancelled = reason if isinstance(reason, str) else None
        await self._tell_host(call)
        relayed = {**message, "params": {**params, "requestId": call.key}}
        await self._write.send(SessionMessage(jsonrpc_message_adapter.validate_python(relayed)))
        call.done.set()

    async def _tell_host(self, call: _Call) -> None:
        """Why the CLI cancelled ``call`` (a `ToolCancelled`): to the server's ``on_cancel``
        and the call's context (an `SdkMcpServer`), else to the log."""
        from .tools import ToolCancelled

        request = call.message
        params = request.get("params")
        params = params if isinstance(params, Mapping) else {}
        method = str(request.get("method"))
        tool = params.get("name") if method == "tools/call" else None
        meta = params.get("_meta")
        tool_use_id = meta.get("claudecode/toolUseId") if isinstance(meta, Mapping) else None
        cancelled = ToolCancelled(
            server=self.name,
            method=method,
            tool=tool if isinstance(tool, str) else None,
            tool_use_id=tool_use_id if isinstance(tool_use_id, str) else None,
            reason=call.cancelled,
            elapsed=anyio.current_time() - call.started,
            timeout=self._sdk.call_timeout if self._sdk is not None else None,
        )
        if self._sdk is not None:
            await self._sdk._cancelled(cancelled)
        else:
            logger.warning("%s", cancelled)
