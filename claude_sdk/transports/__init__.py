"""Transports: where the CLI runs and how its lines reach the SDK.

`SubprocessTransport` (the default) runs the CLI locally; `MemoryTransport` runs a Python peer
in its place; `Transport` and `Connection` are the contract for your own (see
`claude_sdk.transports.base`).

Each name is imported from its module on first access (PEP 562 ``__getattr__``), so the
session, which needs only ``claude_sdk.transports.base``, does not load SSH and container
support; type checkers read the re-exports under ``if TYPE_CHECKING:``, the one list of them
(see ``claude_sdk._exports``).
"""

from .._exports import install as _install

TYPE_CHECKING = False  # as in `claude_sdk/__init__.py`: no `typing` import for this
if TYPE_CHECKING:
    from .base import ByteStreamConnection as ByteStreamConnection
    from .base import Connection as Connection
    from .base import ConnectionWrapper as ConnectionWrapper
    from .base import StderrTail as StderrTail
    from .base import Transport as Transport
    from .container import ContainerTransport as ContainerTransport
    from .discovery import find_cli as find_cli
    from .discovery import find_cli_async as find_cli_async
    from .memory import MemoryPeer as MemoryPeer
    from .memory import MemoryTransport as MemoryTransport
    from .ssh import SSHTransport as SSHTransport
    from .subprocess import SubprocessTransport as SubprocessTransport

# Generated from the imports above by tests/support/gen_exports.py: do not edit.
_LAZY: dict[str, str] = {
    "ByteStreamConnection": "base",
    "Connection": "base",
    "ConnectionWrapper": "base",
    "StderrTail": "base",
    "Transport": "base",
    "ContainerTransport": "container",
    "find_cli": "discovery",
    "find_cli_async": "discovery",
    "MemoryPeer": "memory",
    "MemoryTransport": "memory",
    "SSHTransport": "ssh",
    "SubprocessTransport": "subprocess",
}
__all__ = [
    "ByteStreamConnection",
    "Connection",
    "ConnectionWrapper",
    "StderrTail",
    "Transport",
    "ContainerTransport",
    "find_cli",
    "find_cli_async",
    "MemoryPeer",
    "MemoryTransport",
    "SSHTransport",
    "SubprocessTransport",
]
# End of the generated section.

_install(globals())
