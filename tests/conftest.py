"""Shared test configuration.

Every ``async def`` test runs once on asyncio and once on Trio (trio is a test dependency, so
it is never skipped): the anyio plugin is driven by the ``anyio_backend`` fixture below, and
coroutine tests are marked automatically.
"""

from __future__ import annotations

import inspect

import pytest


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    backend: str = request.param
    return backend


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        func = getattr(item, "function", None)
        if func is not None and inspect.iscoroutinefunction(func):
            item.add_marker(pytest.mark.anyio)
