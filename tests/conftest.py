"""Shared test configuration.

Every ``async def`` test runs once on asyncio and once on Trio (trio is a test dependency, so
it is never skipped): the anyio plugin runs in auto mode (pyproject.toml) and the
``anyio_backend`` fixture below gives both backends.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.support.deep import deep, factor

# No test asserts on wall-clock time: an example that is slow on a busy machine is not a
# failure (no deadline, no "too slow" health check). Example counts are modest every day and
# CLAUDE_SDK_DEEP times as many in `nox -s deep` (tests/support/deep.py); a test that names
# its own count uses `deep(n)`.
settings.register_profile(
    "everyday", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=100
)
settings.register_profile("deep", parent=settings.get_profile("everyday"), max_examples=deep(100))
settings.load_profile("deep" if factor() > 1 else "everyday")


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    backend: str = request.param
    return backend


#: What the pytest-xdist workers left alive (each checks its own children and tells).
_LEFT_BY_WORKERS: list[str] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if any child process of the test run is still alive.

    Under pytest-xdist (``nox -s tests`` runs several workers) each worker checks its own
    children and sends what it found to the controller, which fails the run.
    """
    if not sys.platform.startswith("linux"):
        return
    from tests.support.procs import descendants, describe

    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        config.workeroutput["left_alive"] = [describe(pid) for pid in descendants()]  # type: ignore[attr-defined]
        return
    if config.pluginmanager.has_plugin("dsession"):  # the xdist controller (its children:
        left = list(_LEFT_BY_WORKERS)  # the workers, which may not have exited yet)
    else:
        left = [describe(pid) for pid in descendants()]
    if left:
        lines = "\n  ".join(left)
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"child processes left alive by the tests:\n  {lines}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """An xdist worker finished: keep what it left alive (see `pytest_sessionfinish`)."""
    _LEFT_BY_WORKERS.extend(getattr(node, "workeroutput", {}).get("left_alive", []))
