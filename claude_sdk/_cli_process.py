"""The CLI's process, as the session that runs a callback knows it.

The session sets `CURRENT` around each host callback it runs (hooks, ``can_use_tool``) to a
`CLIProcess`: the local process that is the CLI, or one with no ``pid`` when the CLI's process
cannot be seen from here (an SSH or container transport, an in-memory CLI). Outside a callback
it is None. The path policies read it: ``/proc/self/cwd`` in a tool's path is the CLI
process's working directory, which the Bash tool's ``cd`` does not move (the hook input's
``cwd`` follows the ``cd``; issue 27). A worker thread started with ``anyio.to_thread`` (or
``contextvars.copy_context().run``) sees the value of the task that started it.

A leaf module (standard library and attrs only), so that the session's driver and the
policies, which must not import each other, can both use it.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from typing import Final

from ._attrs import frozen

__all__ = ["CURRENT", "CLIProcess"]


@frozen
class CLIProcess:
    """The process that runs the CLI of the current callback's session.

    Attributes:
        pid: the local process that is the CLI (``/proc/<pid>`` is its view of files), or
            None when no process of this machine is the CLI.
    """

    pid: int | None

    def cwd(self) -> str | None:
        """The process's working directory now, or None when it cannot be known: no local
        process, a process that is gone or not ours to look at, a directory deleted since."""
        if self.pid is None:
            return None
        try:
            where = os.readlink(f"/proc/{self.pid}/cwd")
        except (OSError, ValueError):
            return None
        if not where.startswith("/") or where.endswith(" (deleted)"):
            return None
        return where


#: The CLI process of the callback that runs now (None: not inside a session's callback).
CURRENT: Final[ContextVar[CLIProcess | None]] = ContextVar("claude_sdk_cli_process", default=None)
