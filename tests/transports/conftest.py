"""Fixtures of the transport tests that several modules share (one sshd for the session)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..support import stub_runtime
from ..support.sshd import SSHServer, serve_for_tests
from .test_conformance import write_launcher


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SSHServer]:
    """A real sshd on 127.0.0.1 (skips, or fails with ``CLAUDE_SDK_REQUIRE_SSH=1``, without
    one)."""
    yield from serve_for_tests(tmp_path_factory.mktemp("sshd"))


@pytest.fixture(scope="session")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An executable that runs ``tests/support/fake_claude.py`` (see `write_launcher`)."""
    return write_launcher(tmp_path_factory.mktemp("launcher"))


@pytest.fixture(scope="session")
def stub_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with the stub ``docker``, ``podman`` and ``kubectl``."""
    return stub_runtime.install(tmp_path_factory.mktemp("stub-bin"))
