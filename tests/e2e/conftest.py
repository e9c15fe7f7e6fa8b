"""Fixtures for the e2e tests: a real CLI against FakeMessagesAPI, offline.

The CLI comes from a claude-agent-sdk wheel (``tests/support/fetch_cli.py``): the pinned one
(``nox -s e2e``) or the newest on the index (``nox -s e2e-latest``); ``CLAUDE_SDK_TEST_CLI``
names it. Without it the tests skip, unless ``CLAUDE_SDK_REQUIRE_E2E=1`` (set by both nox
sessions), where a missing CLI fails the run. Every CLI gets a fresh ``HOME`` and the offline
environment of PROTOCOL.md §3.2; the nox sessions also run the whole test process in a
loopback-only network namespace.

The tests measure behaviour, never a version string (one test checks that a version is
reported). What the model does not know about the frames a scenario received (strict drift)
is collected, not asserted per test: ``test_drift_report.py`` runs last and fails once with one
report of what is new and where it was seen (also written as JSON to
``$CLAUDE_SDK_DRIFT_REPORT`` when set).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

import claude_sdk as cs
from claude_sdk import history, wire
from claude_sdk.testing import FakeMessagesAPI
from claude_sdk.transports.subprocess import SubprocessTransport

from ..support.fetch_cli import cli_path, installed_version
from ..support.recorder import RecordingTransport
from ..support.wire_check import wire_findings

RECORDINGS = Path(__file__).resolve().parent.parent / "data" / "e2e"


@attrs.define
class DriftLog:
    """Strict-drift findings of the scenarios run so far (filled by the ``e2e`` teardown)."""

    frames: int = 0
    scenarios: int = 0
    #: session-file lines checked
    entries: int = 0
    # (scenario id, frame class, finding)
    findings: list[tuple[str, str, str]] = attrs.field(factory=list)


DRIFT = DriftLog()
REPORT_TEST = "test_drift_report.py"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)
    # The drift report reads what every other scenario collected: it runs last.
    last = [item for item in items if Path(str(item.fspath)).name == REPORT_TEST]
    items[:] = [item for item in items if item not in last] + last


@pytest.fixture(scope="session")
def claude_cli() -> str:
    path = cli_path()
    if not path.exists():
        message = f"the pinned CLI is not at {path} (run tests/support/fetch_cli.py)"
        if os.environ.get("CLAUDE_SDK_REQUIRE_E2E") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return str(path)


@pytest.fixture(scope="session")
def claude_cli_version(claude_cli: str) -> str:
    """The version the CLI under test reports (``claude --version``)."""
    version = installed_version(Path(claude_cli))
    if version is None:
        pytest.fail(f"{claude_cli} --version reported nothing")
    return version


@pytest.fixture
async def api() -> AsyncIterator[FakeMessagesAPI]:
    async with FakeMessagesAPI() as server:
        yield server


@attrs.define
class E2E:
    """One scenario's setup: options for the real CLI, a recording transport, the fake API."""

    api: FakeMessagesAPI
    cli: str
    home: Path
    cwd: Path
    name: str
    transports: list[RecordingTransport] = attrs.field(factory=list)

    def options(self, **kwargs: Any) -> cs.Options:
        env = {**self.api.env(), "HOME": str(self.home), **kwargs.pop("env", {})}
        kwargs.setdefault("cwd", str(self.cwd))
        kwargs.setdefault("initialize_timeout", 30.0)
        kwargs.setdefault("control_timeout", 30.0)
        return cs.Options(cli_path=self.cli, env=env, **kwargs)

    def transport(self) -> RecordingTransport:
        transport = RecordingTransport(SubprocessTransport())
        self.transports.append(transport)
        return transport

    def received_frames(self) -> list[Any]:
        return [cs.wire.decode(line) for t in self.transports for line in t.received()]


def collect_session_file_drift(
    root: Path, scenario: str, findings: list[tuple[str, str, str]]
) -> int:
    """Add the strict-drift findings of every transcript line under ``root`` (files of a
    ``projects`` tree) to ``findings``; returns how many lines were checked."""
    count = 0
    for path in sorted(root.rglob("*.jsonl")):
        if "projects" not in path.parts or not path.is_file():
            continue
        for line in path.read_bytes().splitlines():
            try:
                data = json.loads(line)
            except ValueError:
                continue  # a line cut by a killed CLI: history's business, not drift
            if not isinstance(data, dict):
                continue
            count += 1
            kind = data.get("type")
            entry = history.decode_entry(data)
            if isinstance(entry, history.UnknownEntry):
                findings.append((scenario, "session file", f"unknown entry type {kind!r}"))
                continue
            findings.extend(
                (scenario, f"session file {kind}", problem) for problem in wire.drift(entry)
            )
    return count


_SAFE_STEM = re.compile(r"[A-Za-z0-9_.-]+")


def recording_stem(name: str) -> str:
    """A file name for a recording that is safe on every filesystem and in git: ``name`` when
    it is made of letters, digits, ``_.-`` only; else those kept, the rest as ``-``, cut to
    80 characters, and a hash of the whole name so two parameters never share a file."""
    if _SAFE_STEM.fullmatch(name) and len(name) <= 120:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:10]
    return f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)[:80].rstrip('-')}-{digest}"


@pytest.fixture
def e2e(
    request: pytest.FixtureRequest,
    api: FakeMessagesAPI,
    claude_cli: str,
    claude_cli_version: str,
    tmp_path: Path,
    anyio_backend: str,
) -> Iterator[E2E]:
    home = tmp_path / "home"
    cwd = tmp_path / "work"
    home.mkdir()
    cwd.mkdir()
    name = request.node.name.replace("[", "_").replace("]", "")
    setup = E2E(api=api, cli=claude_cli, home=home, cwd=cwd, name=name)
    yield setup
    # Every frame the CLI sent should be known to the model (strict drift): collected for the
    # one report of test_drift_report.py, never failing this scenario.
    DRIFT.scenarios += 1
    for transport in setup.transports:
        received = transport.received()
        DRIFT.frames += len(received)
        DRIFT.findings.extend(
            (request.node.nodeid, what, problem)
            for what, problem in wire_findings(transport.sent(), received)
        )
    # ... and of every line the CLI wrote to its session files (any HOME or store the test
    # made under tmp_path): the same report, never this scenario's failure.
    DRIFT.entries += collect_session_file_drift(tmp_path, request.node.nodeid, DRIFT.findings)
    if os.environ.get("CLAUDE_SDK_RECORD_E2E") == "1" and anyio_backend == "asyncio":
        callspec = getattr(request.node, "callspec", None)
        found = callspec.params if callspec is not None else {}
        params = [str(v) for k, v in found.items() if k != "anyio_backend"]
        stem = recording_stem("_".join([request.node.originalname, *params]))
        for i, transport in enumerate(t for t in setup.transports if t.specs):
            suffix = f"_{i}" if i else ""
            transport.dump(
                RECORDINGS / claude_cli_version / f"{stem}{suffix}.jsonl",
                scrub={
                    re.sub(r"[^a-zA-Z0-9]", "-", str(setup.cwd)): "<cwd-slug>",
                    # other directories of the test's own (a second cwd, a second HOME)
                    re.sub(r"[^a-zA-Z0-9]", "-", str(tmp_path)): "<tmp-slug>",
                    str(setup.cwd): "<cwd>",
                    str(setup.home): "<home>",
                    str(tmp_path): "<tmp>",
                },
                cli_version=claude_cli_version,
                argv=[Path(a).name if a == claude_cli else a for a in transport.specs[0].argv],
            )


@pytest.fixture
def dump_requests(api: FakeMessagesAPI) -> Callable[[], str]:
    def dump() -> str:
        return json.dumps([r.summary() for r in api.requests], indent=1, default=str)

    return dump
