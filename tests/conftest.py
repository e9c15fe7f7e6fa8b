"""Shared test configuration.

Every ``async def`` test runs once on asyncio and once on Trio (trio is a test dependency, so
it is never skipped): the anyio plugin runs in auto mode (pyproject.toml) and the
``anyio_backend`` fixture below gives both backends.
"""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    backend: str = request.param
    return backend


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if any child process of the test run is still alive."""
    if not sys.platform.startswith("linux"):
        return
    from tests.support.procs import descendants, describe

    left = descendants()
    if left:
        lines = "\n  ".join(describe(pid) for pid in left)
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"child processes left alive by the tests:\n  {lines}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
