"""In-process MCP servers: relay the CLI's ``mcp_message`` JSON-RPC to a server in this process.

This is the only module that imports ``mcp``, and only when a session has an in-process
server (importing ``mcp`` costs about 330 ms and pulls in pydantic and starlette).

A server is one of:

* an ``mcp`` server object: the low-level ``mcp.server.Server`` or ``MCPServer`` (anything
  with ``_lowlevel_server``); it runs over mcp's in-memory streams inside the session's task
  group, so resources, prompts and server notifications (list changed, progress, logging)
  work as they do over any other MCP transport;
* an object with ``async def handle_mcp_message(message: dict) -> dict | None`` (a raw
  JSON-RPC handler, no ``mcp`` needed): it answers requests itself.

Contract of `McpBridge.handle`: a JSON-RPC request returns the server's response (a result
or an error, matched by id); a notification returns the bare acknowledgement
``{"jsonrpc": "2.0", "result": {}}``. Messages the server sends on its own (notifications,
requests to the client) go to ``notify(server_name, message)``, which the session relays to
the CLI as a host ``mcp_message`` control request.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import anyio
import anyio.abc

__all__ = ["McpBridge", "RawMcpHandler", "is_in_process_server"]

logger = logging.getLogger("claude_sdk.mcp")

_ACK: Mapping[str, Any] = {"jsonrpc": "2.0", "result": {}}
Notify = Callable[[str, dict[str, Any]], Awaitable[None]]


@runtime_checkable
class RawMcpHandler(Protocol):
    """An in-process server that answers JSON-RPC messages itself."""

    async def handle_mcp_message(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Answer one JSON-RPC message (None for a notification)."""


def _lowlevel(server: object) -> Any | None:
    inner = getattr(server, "_lowlevel_server", None)
    if inner is not None:
        return inner
    cls = type(server)
    if cls.__module__.startswith("mcp.") and hasattr(server, "create_initialization_options"):
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


class McpBridge:
    """Serves one in-process MCP server for one session."""

    def __init__(self, name: str, server: object, notify: Notify) -> None:
        self.name = name
        self._notify = notify
        self._raw: RawMcpHandler | None = None
        self._server: Any = None
        if hasattr(server, "to_mcp_server"):  # claude_sdk.tools.SdkMcpServer
            server = server.to_mcp_server()
        if isinstance(server, RawMcpHandler):
            self._raw = server
        else:
            self._server = _lowlevel(server)
            if self._server is None:
                raise TypeError(
                    f"mcp_servers[{name!r}]: {type(server).__name__} is not an MCP server"
                )
        self._write: Any = None
        self._pending: dict[Any, tuple[anyio.Event, list[dict[str, Any]]]] = {}
        self._counter = 0

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

        async with create_client_server_memory_streams() as (client, server_streams):
            client_read, client_write = client
            server_read, server_write = server_streams
            self._write = client_write
            async with anyio.create_task_group() as tg:
                tg.start_soon(
                    self._server.run,
                    server_read,
                    server_write,
                    self._server.create_initialization_options(),
                )
                tg.start_soon(self._pump, client_read)
                task_status.started()
                await anyio.sleep_forever()

    async def _pump(self, read: Any) -> None:
        """Route what the server writes: responses to their waiters, the rest to the CLI."""
        async for item in read:
            if isinstance(item, Exception):
                logger.warning("in-process MCP server %r: %r", self.name, item)
                continue
            data = item.message.model_dump(by_alias=True, mode="json", exclude_none=True)
            key = data.get("id")
            if "method" not in data and key in self._pending:
                event, slot = self._pending[key]
                slot.append(data)
                event.set()
                continue
            try:
                await self._notify(self.name, data)
            except Exception as exc:  # the CLI may be gone; the server must not die of it
                logger.info("could not relay a message of MCP server %r: %r", self.name, exc)

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
            await self._write.send(SessionMessage(jsonrpc_message_adapter.validate_python(message)))
            return dict(_ACK)
        # The CLI numbers requests per server; keep its id on the way back.
        original = message["id"]
        self._counter += 1
        key = f"cli-{self._counter}"
        event = anyio.Event()
        slot: list[dict[str, Any]] = []
        self._pending[key] = (event, slot)
        try:
            relayed = {**message, "id": key}
            await self._write.send(SessionMessage(jsonrpc_message_adapter.validate_python(relayed)))
            await event.wait()
        finally:
            self._pending.pop(key, None)
        response = slot[0]
        response["id"] = original
        return response
