"""A real OpenSSH ``sshd`` on 127.0.0.1 for the SSH transport tests.

`running_sshd(directory)` starts ``sshd -D -e -f CONFIG`` on a free port with temporary host
keys, an ``authorized_keys`` for a temporary client key, ``UsePAM no`` and ``StrictModes no``,
waits (bounded) until it has reported that it listens, and stops it on exit. Everything lives
in ``directory``: the keys, a matching ``known_hosts`` (and a wrong one, for host-key
tests), the config, the pid file and the server's log.

The server runs as the current user (root in CI): root needs the privilege separation
directory ``/run/sshd``, created here when missing. `find_sshd` returns None when OpenSSH's
server is not installed; the pytest fixtures skip then, or fail when
``CLAUDE_SDK_REQUIRE_SSH=1``.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Seconds sshd gets to report that it listens.
START_TIMEOUT = 10.0
#: The environment variable that turns a missing sshd into a failure.
REQUIRE_ENV = "CLAUDE_SDK_REQUIRE_SSH"


def find_sshd() -> str | None:
    """The sshd executable, or None (sbin directories are often not on PATH)."""
    found = shutil.which("sshd")
    if found:
        return found
    for candidate in ("/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def missing_reason() -> str | None:
    """Why the tests cannot run an sshd here, or None when they can."""
    if find_sshd() is None:
        return "OpenSSH's sshd is not installed (apt-get install openssh-server)"
    if shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        return "the OpenSSH client (ssh, ssh-keygen) is not installed"
    return None


@dataclass
class SSHServer:
    """A running test sshd and the files a client needs.

    Attributes:
        port: the port it listens on (127.0.0.1).
        user: the login user (the current user).
        identity_file: a private key sshd accepts.
        wrong_identity_file: a private key sshd does not accept.
        known_hosts: a known_hosts file with the server's real host key.
        wrong_known_hosts: a known_hosts file with another key for the same host.
        log: sshd's log file.
        pid: sshd's pid.
    """

    port: int
    user: str
    identity_file: Path
    wrong_identity_file: Path
    known_hosts: Path
    wrong_known_hosts: Path
    log: Path
    pid: int
    host: str = "127.0.0.1"
    _log_lines: list[str] = field(default_factory=list, repr=False)

    def transport_kwargs(self, **overrides: Any) -> dict[str, Any]:
        """Keyword arguments of `SSHTransport` that reach this server."""
        kwargs: dict[str, Any] = {
            "user": self.user,
            "port": self.port,
            "identity_file": str(self.identity_file),
            "known_hosts": str(self.known_hosts),
            "connect_timeout": 5,
        }
        kwargs.update(overrides)
        return kwargs

    def log_text(self) -> str:
        """What sshd has logged so far."""
        return "\n".join(self._log_lines)


def _keygen(path: Path, comment: str) -> None:
    path.unlink(missing_ok=True)
    path.with_suffix(".pub").unlink(missing_ok=True)
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        capture_output=True,
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _config(directory: Path, port: int, host_key: Path, authorized: Path, pid_file: Path) -> str:
    return "\n".join(
        [
            "ListenAddress 127.0.0.1",
            f"Port {port}",
            f"HostKey {host_key}",
            f"PidFile {pid_file}",
            f"AuthorizedKeysFile {authorized}",
            "UsePAM no",
            "StrictModes no",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password",
            "AllowAgentForwarding no",
            "AllowTcpForwarding no",
            "X11Forwarding no",
            "PrintMotd no",
            # bash reads ~/.bashrc for an ssh command unless SHLVL says it is nested:
            # sessions stay hermetic (sshd's default PATH) and start faster.
            "SetEnv SHLVL=1",
            "MaxStartups 200",
            "MaxSessions 50",
            "LogLevel INFO",
            "",
        ]
    )


@contextmanager
def running_sshd(directory: Path) -> Iterator[SSHServer]:
    """Start an sshd in ``directory`` (see the module docstring); stop it on exit."""
    sshd = find_sshd()
    if sshd is None:
        raise RuntimeError("sshd is not installed")
    directory.mkdir(parents=True, exist_ok=True)
    host_key = directory / "host_ed25519"
    other_host_key = directory / "other_host_ed25519"
    client_key = directory / "client_ed25519"
    wrong_key = directory / "wrong_ed25519"
    for key, comment in [
        (host_key, "test-host"),
        (other_host_key, "other-host"),
        (client_key, "test-client"),
        (wrong_key, "wrong-client"),
    ]:
        _keygen(key, comment)
    authorized = directory / "authorized_keys"
    authorized.write_text(client_key.with_suffix(".pub").read_text())
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation directory
    log = directory / "sshd.log"
    pid_file = directory / "sshd.pid"
    port = free_port()
    config = directory / "sshd_config"
    config.write_text(_config(directory, port, host_key, authorized, pid_file))

    def known_hosts(key: Path, name: str) -> Path:
        path = directory / name
        kind, blob = key.with_suffix(".pub").read_text().split()[:2]
        path.write_text(f"[127.0.0.1]:{port} {kind} {blob}\n")
        return path

    server_lines: list[str] = []
    listening = threading.Event()
    process = subprocess.Popen(
        [sshd, "-D", "-e", "-f", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )

    def pump() -> None:
        assert process.stderr is not None
        with log.open("w", encoding="utf-8") as out:
            for raw in process.stderr:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                server_lines.append(line)
                out.write(line + "\n")
                out.flush()
                if "Server listening on" in line:
                    listening.set()
        listening.set()  # sshd exited: stop waiting

    reader = threading.Thread(target=pump, name="sshd-log", daemon=True)
    reader.start()
    try:
        if not listening.wait(START_TIMEOUT) or process.poll() is not None:
            raise RuntimeError("sshd did not start:\n" + "\n".join(server_lines))
        yield SSHServer(
            port=port,
            user=getpass.getuser(),
            identity_file=client_key,
            wrong_identity_file=wrong_key,
            known_hosts=known_hosts(host_key, "known_hosts"),
            wrong_known_hosts=known_hosts(other_host_key, "wrong_known_hosts"),
            log=log,
            pid=process.pid,
            _log_lines=server_lines,
        )
    finally:
        process.terminate()  # sshd ends the listener; its sessions end with their clients
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(5)
        if process.stderr is not None:
            process.stderr.close()


def serve_for_tests(directory: Path) -> Iterator[SSHServer]:
    """The body of a session fixture: a running sshd, or a skip (a failure when
    ``CLAUDE_SDK_REQUIRE_SSH=1``) when this machine cannot run one."""
    import pytest

    reason = missing_reason()
    if reason is not None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{reason} and {REQUIRE_ENV}=1")
        pytest.skip(reason)
    with running_sshd(directory) as server:
        yield server
