"""Transports: where the CLI runs and how its lines reach the SDK.

`SubprocessTransport` (the default) runs the CLI locally; `MemoryTransport` runs a Python peer
in its place; `Transport` and `Connection` are the contract for your own (see
`claude_sdk.transports.base`).
"""

from .base import ByteStreamConnection as ByteStreamConnection
from .base import Connection as Connection
from .base import StderrTail as StderrTail
from .base import Transport as Transport
from .container import ContainerTransport as ContainerTransport
from .discovery import find_cli as find_cli
from .discovery import find_cli_async as find_cli_async
from .memory import MemoryPeer as MemoryPeer
from .memory import MemoryTransport as MemoryTransport
from .ssh import SSHTransport as SSHTransport
from .subprocess import SubprocessTransport as SubprocessTransport

__all__ = [
    "Transport",
    "Connection",
    "ByteStreamConnection",
    "StderrTail",
    "SubprocessTransport",
    "MemoryTransport",
    "MemoryPeer",
    "find_cli",
    "find_cli_async",
    "SSHTransport",
    "ContainerTransport",
]
