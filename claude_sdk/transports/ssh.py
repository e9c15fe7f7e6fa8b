"""`SSHTransport`: the CLI on another host, through the OpenSSH ``ssh`` client.

The client runs locally under ``anyio.open_process`` (so this works on Trio as well as
asyncio; ``asyncssh`` is asyncio-only), always with ``BatchMode=yes``: it never prompts.
On the remote host the CLI runs under the wrapper of `claude_sdk.transports._remote`,
which ends the CLI's process group when the session's stdin closes or the connection
drops: killing the local ``ssh`` stops the remote CLI.

With this transport ``Options.cli_path``, ``cwd`` and ``env`` describe the **remote** side.
A bare ``claude`` (no ``cli_path``) is looked up on the remote ``PATH`` (then in the usual
install locations under the remote home). None of these values, nor the prompts, appear on
a command line: they travel on the session's stdin in the wrapper's header, so no shell
parses them and no secret shows in ``ps``. The remote command itself is
``exec python3 -I -S -c '<wrapper>' <nonce>``, the same for every session.

``connect`` returns once the remote CLI runs; failures before that are typed:

* ``ProcessError(kind="ssh_auth")``: ssh exit 255 and "Permission denied" (no usable key);
* ``ProcessError(kind="ssh_unreachable")``: "Connection refused", "No route to host", a
  timeout, an unknown host name;
* ``ProcessError(kind="ssh_host_key")``: "REMOTE HOST IDENTIFICATION HAS CHANGED", "Host
  key verification failed" (also an unknown host key under the default
  ``strict_host_key_checking="yes"``);
* ``ProcessError(kind="ssh")``: any other failure of ssh itself (exit 255);
* `CLINotFoundError`: no CLI at ``cli_path``, or none on the remote ``PATH``;
* ``ProcessError(kind="spawn")``: no remote working directory, no remote Python, a CLI
  that cannot be executed, anything else;
* ``ProcessError(kind="timeout")``: no answer within ``start_timeout``.

Each `ProcessError` carries ssh's stderr (``stderr_tail``); `CLINotFoundError` lists the
places searched on the remote host. A connection lost later ends the session with a
`ProcessError` whose stderr tail says so (and `RemoteConnection.exit_error` gives it
``kind="connection_lost"``). Teardown (`claude_sdk.transports._remote.connect_remote`): the
remote CLI's input ends, and the wrapper gives it ``shutdown_grace`` (or until the
connection's ``shutdown_deadline``, if sooner), then SIGTERM, 2 s, SIGKILL to its group,
and the same to what it left there; the local ``ssh`` gets that long (and a little more) to
bring the end back, then SIGTERM, 2 s, SIGKILL. Shielded and bounded.
"""

from __future__ import annotations

import math
import os
import stat
import subprocess
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Literal

import anyio
import anyio.to_thread

from .._protocol.launch import LaunchSpec
from ..errors import ClaudeSDKError, ProcessError
from ._remote import RemoteConnection, connect_remote, new_nonce, wrapper_command
from .base import Connection, Transport

__all__ = ["SSHTransport", "classify_ssh_failure"]

HostKeyPolicy = Literal["yes", "accept-new", "no"]

#: Options given after the caller's ``ssh_options`` (ssh keeps the first value it reads
#: for an option, so the caller's win); ``BatchMode=yes`` comes before them and always holds.
DEFAULT_OPTIONS: tuple[str, ...] = (
    "ServerAliveInterval=15",
    "ServerAliveCountMax=4",
    "LogLevel=ERROR",
)

_HOST_KEY = (
    "REMOTE HOST IDENTIFICATION HAS CHANGED",
    "Host key verification failed",
    "POSSIBLE DNS SPOOFING DETECTED",
)
_AUTH = (
    "Permission denied",
    "Too many authentication failures",
    "Authentication failed",
    "no mutual signature algorithm",
)
_UNREACHABLE = (
    "Connection refused",
    "No route to host",
    "Network is unreachable",
    "Connection timed out",
    "Operation timed out",
    "timed out",
    "Could not resolve hostname",
    "Name or service not known",
    "Temporary failure in name resolution",
    "nodename nor servname provided",
    "Host is down",
    "Connection reset by",
    "Connection closed by",
    "kex_exchange_identification",
)


def classify_ssh_failure(returncode: int | None, stderr: str) -> str | None:
    """The ``kind`` of a failure of ssh itself, from its exit status and stderr.

    Returns:
        ``"ssh_host_key"``, ``"ssh_auth"``, ``"ssh_unreachable"``, ``"ssh"`` (another
        failure of ssh), or None when ssh did not fail (its exit status is not 255).
    """
    if returncode != 255:
        return None
    for kind, needles in (
        ("ssh_host_key", _HOST_KEY),
        ("ssh_auth", _AUTH),
        ("ssh_unreachable", _UNREACHABLE),
    ):
        if any(needle in stderr for needle in needles):
            return kind
    return "ssh"


def _config_value(path: str) -> str:
    """A path as an ssh option value: ``%`` escaped, quoted when it has blanks."""
    value = os.fspath(path).replace("%", "%%")
    if any(c.isspace() for c in value) or '"' in value:
        if '"' in value:
            raise ValueError(f"ssh cannot take a path with a double quote: {path!r}")
        value = f'"{value}"'
    return value


def _default_control_dir() -> str:
    name = f"claude_sdk-ssh-{os.getuid()}"
    directory = os.path.join(tempfile.gettempdir(), name)
    # A Unix socket path holds about 104 bytes; %C expands to 40.
    return directory if len(directory) <= 60 else os.path.join("/tmp", name)


def _check_private_dir(directory: str) -> None:
    os.makedirs(directory, mode=0o700, exist_ok=True)
    info = os.lstat(directory)
    if (
        not stat.S_ISDIR(info.st_mode)
        or info.st_uid != os.getuid()
        or stat.S_IMODE(info.st_mode) & 0o077
    ):
        raise ClaudeSDKError(
            f"the ssh control directory {directory} must be a directory of this user "
            "with mode 0700 (set control_path to another place)",
            kind="spawn",
        )


class SSHTransport(Transport):
    """Runs the CLI on ``host`` through the OpenSSH client (see the module docstring).

    Args:
        host: the host name or address, or an alias of your ssh config.
        user: the login user (``ssh -l``); None: ssh's default.
        port: the port (``ssh -p``); None: ssh's default.
        identity_file: a private key (``ssh -i``, with ``IdentitiesOnly=yes``).
        ssh_options: more ``-o`` options, as ``"Key=Value"`` strings; they take precedence
            over this transport's defaults (not over ``BatchMode=yes``).
        jump_host: a jump host (``ssh -J``).
        known_hosts: a known_hosts file to use instead of the user's.
        strict_host_key_checking: ``"yes"`` (default: the host key must be known),
            ``"accept-new"`` (record unknown keys, refuse changed ones) or ``"no"``.
        connect_timeout: seconds for ssh to connect (``ConnectTimeout``).
        control_persist: keep a shared master connection open this long after the last
            session (``ControlPersist``: seconds, or an ssh time such as ``"10m"``), so
            later sessions skip the handshake; None: a new connection each time.
            `stop_master` ends it.
        control_path: the master's socket, as an ssh ``ControlPath`` value (tokens such as
            ``%C`` expand); default: ``%C`` in a private directory under the temporary
            directory.
        ssh_path: the ssh client to run.
        remote_python: the remote Python 3 (3.6 or later) that runs the wrapper.
        start_timeout: seconds from starting ssh until the remote CLI runs (default:
            ``connect_timeout + 30``).
    """

    #: The CLI reads the far side's disk: a store's transcript is written there by the
    #: wrapper (``LaunchSpec.transcripts``).
    runs_here = False

    def __init__(
        self,
        host: str,
        *,
        user: str | None = None,
        port: int | None = None,
        identity_file: str | os.PathLike[str] | None = None,
        ssh_options: Sequence[str] = (),
        jump_host: str | None = None,
        known_hosts: str | os.PathLike[str] | None = None,
        strict_host_key_checking: HostKeyPolicy = "yes",
        connect_timeout: float = 10,
        control_persist: int | str | None = None,
        control_path: str | None = None,
        ssh_path: str = "ssh",
        remote_python: str = "python3",
        start_timeout: float | None = None,
    ) -> None:
        if not host or host.startswith("-"):
            raise ValueError(f"not a host: {host!r}")
        if port is not None and not 0 < port < 65536:
            raise ValueError(f"not a port: {port!r}")
        if strict_host_key_checking not in ("yes", "accept-new", "no"):
            raise ValueError(f"strict_host_key_checking: {strict_host_key_checking!r}")
        if connect_timeout <= 0:
            raise ValueError("connect_timeout must be positive")
        if isinstance(ssh_options, str):
            raise TypeError("ssh_options is a sequence of 'Key=Value' strings")
        for option in ssh_options:
            if not option or option.startswith("-"):
                raise ValueError(f"an ssh option is 'Key=Value', not {option!r}")
        if control_persist is not None and os.name == "nt":
            raise ValueError("control_persist needs ControlMaster, which ssh on Windows lacks")
        for name, value in (("user", user), ("jump_host", jump_host)):
            if value is not None and (not value or value.startswith("-")):
                raise ValueError(f"{name}: {value!r}")
        self.host = host
        self.user = user
        self.port = port
        self.identity_file: str | None = None if identity_file is None else os.fspath(identity_file)
        self.ssh_options: tuple[str, ...] = tuple(ssh_options)
        self.jump_host = jump_host
        self.known_hosts: str | None = None if known_hosts is None else os.fspath(known_hosts)
        self.strict_host_key_checking: HostKeyPolicy = strict_host_key_checking
        self.connect_timeout = connect_timeout
        self.control_persist = control_persist
        self.control_path = control_path
        self.ssh_path = ssh_path
        self.remote_python = remote_python
        self.start_timeout: float = connect_timeout + 30 if start_timeout is None else start_timeout

    @property
    def target(self) -> str:
        """``user@host:port`` as given (for messages)."""
        user = f"{self.user}@" if self.user else ""
        port = f":{self.port}" if self.port else ""
        return f"{user}{self.host}{port}"

    def describe(self) -> str:
        return f"ssh {self.target}"

    def _control_options(self) -> list[str]:
        if self.control_persist is None:
            return []
        path = self.control_path or os.path.join(_default_control_dir(), "%C")
        persist = self.control_persist
        if isinstance(persist, bool):
            persist = "yes" if persist else "no"
        return [
            "-o",
            "ControlMaster=auto",
            "-o",
            f"ControlPath={path}",
            "-o",
            f"ControlPersist={persist}",
        ]

    def _destination(self) -> list[str]:
        argv: list[str] = []
        if self.port is not None:
            argv += ["-p", str(self.port)]
        if self.user is not None:
            argv += ["-l", self.user]
        return argv

    def command(self, nonce: str) -> list[str]:
        """The local argv of one connection (its wrapper reports carry ``nonce``)."""
        argv = [self.ssh_path, "-T", "-o", "BatchMode=yes"]
        for option in self.ssh_options:
            argv += ["-o", option]
        argv += ["-o", f"ConnectTimeout={max(1, math.ceil(self.connect_timeout))}"]
        argv += ["-o", f"StrictHostKeyChecking={self.strict_host_key_checking}"]
        if self.known_hosts is not None:
            argv += ["-o", f"UserKnownHostsFile={_config_value(self.known_hosts)}"]
        if self.identity_file is not None:
            argv += ["-i", self.identity_file.replace("%", "%%"), "-o", "IdentitiesOnly=yes"]
        for option in DEFAULT_OPTIONS:
            argv += ["-o", option]
        argv += self._destination()
        if self.jump_host is not None:
            argv += ["-J", self.jump_host]
        argv += self._control_options()
        return [*argv, "--", self.host, wrapper_command(self.remote_python, nonce)]

    def _classify(
        self, returncode: int | None, stderr: str, conn: RemoteConnection
    ) -> ClaudeSDKError | None:
        kind = classify_ssh_failure(returncode, stderr)
        if kind is None:
            return None
        target = self.target
        message = {
            "ssh_host_key": f"the host key of {target} is not the one known_hosts expects "
            f"(or is unknown; StrictHostKeyChecking={self.strict_host_key_checking})",
            "ssh_auth": f"ssh could not authenticate to {target}",
            "ssh_unreachable": f"ssh could not reach {target}",
            "ssh": f"ssh failed to connect to {target}",
        }[kind]
        return ProcessError(
            message, exit_code=returncode, stderr_tail=stderr, cli_path=conn.cli_path, kind=kind
        )

    @asynccontextmanager
    async def connect(self, spec: LaunchSpec) -> AsyncIterator[Connection]:
        if spec.user is not None:
            raise ClaudeSDKError(
                "Options.user does not apply over SSH: log in as that user with "
                "SSHTransport(user=...)",
                kind="unsupported",
            )
        if self.control_persist is not None and self.control_path is None:
            await anyio.to_thread.run_sync(_check_private_dir, _default_control_dir())
        nonce = new_nonce()
        async with connect_remote(
            self.command(nonce),
            spec,
            target=self.target,
            classify=self._classify,
            start_timeout=self.start_timeout,
            python=self.remote_python,
            nonce=nonce,
        ) as conn:
            yield conn

    async def stop_master(self) -> None:
        """End the shared master connection (``ssh -O exit``), if one is running."""
        if self.control_persist is None:
            return
        argv = [self.ssh_path, *self._control_options(), *self._destination()]
        argv += ["-O", "exit", "--", self.host]
        await anyio.run_process(argv, stdin=subprocess.DEVNULL, check=False)
