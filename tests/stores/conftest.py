"""Fixtures for the session store tests: a real ``redis-server`` on 127.0.0.1.

`redis_server` starts one server per test session on a free port (no persistence, its own
directory), waits (bounded) for it to say it is ready, and stops it by pid at the end. When
``redis-server`` or redis-py is missing the Redis tests skip, or fail when
``CLAUDE_SDK_REQUIRE_REDIS=1``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.sshd import free_port

#: Seconds redis-server gets to report that it is ready.
START_TIMEOUT = 10.0
#: The environment variable that turns a missing redis-server or redis-py into a failure.
REQUIRE_ENV = "CLAUDE_SDK_REQUIRE_REDIS"


def redis_missing_reason() -> str | None:
    """Why the Redis tests cannot run here, or None when they can."""
    if shutil.which("redis-server") is None:
        return "redis-server is not installed (apt-get install redis-server)"
    try:
        import redis  # noqa: F401
    except ImportError:
        return "redis-py is not installed (pip install redis)"
    return None


def skip_or_fail(reason: str) -> None:
    """Skip, or fail when the environment requires the Redis tests to run."""
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but {reason}")
    pytest.skip(reason)


@dataclass
class RedisServer:
    """A running test redis-server."""

    port: int
    pid: int
    directory: Path
    output: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    reason = redis_missing_reason()
    if reason is not None:
        skip_or_fail(reason)
    directory = tmp_path_factory.mktemp("redis")
    port = free_port()
    argv = ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", ""]
    argv += ["--appendonly", "no", "--dir", str(directory), "--logfile", "", "--daemonize", "no"]
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    server = RedisServer(port=port, pid=process.pid, directory=directory)
    ready = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            server.output.append(line.rstrip("\n"))
            if "Ready to accept connections" in line:
                ready.set()
        ready.set()  # it exited: stop waiting

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if not ready.wait(START_TIMEOUT) or process.poll() is not None:
            log = "\n".join(server.output[-20:])
            pytest.fail(f"redis-server did not start on port {port}:\n{log}")
        yield server
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(5)
        assert process.stdout is not None
        process.stdout.close()
