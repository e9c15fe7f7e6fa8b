"""A resume's store calls wait ``Options.session_store_load_timeout`` seconds at most (issue
28, item 8: it was fixed at 60 s), then raise a retryable `SessionStoreError` naming the
option; the CLI never starts. Bad values are an `OptionsError`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.stores import MemoryStore
from claude_sdk.testing import FakeCLI

SESSION = "4d3c2b1a-0f9e-4d8c-b7a6-554433221100"


class SlowStore(MemoryStore):
    """A store whose ``what`` call takes ``seconds``."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__()
        self.what = what
        self.seconds = seconds

    async def load(self, key: Any) -> Any:
        if self.what == "load":
            await anyio.sleep(self.seconds)
        return [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": SESSION}]

    async def list_sessions(self, project_key: str) -> Any:
        if self.what == "list_sessions":
            await anyio.sleep(self.seconds)
        return [{"session_id": SESSION, "mtime": 1}]

    async def list_subkeys(self, key: Any) -> list[str]:
        if self.what == "list_subkeys":
            await anyio.sleep(self.seconds)
        return []


@pytest.mark.parametrize("what", ["load", "list_sessions", "list_subkeys"])
async def test_a_slow_store_fails_the_resume_after_the_timeout(tmp_path: Path, what: str) -> None:
    store = SlowStore(what, seconds=3600)
    resume: dict[str, Any] = (
        {"continue_conversation": True} if what == "list_sessions" else {"resume": SESSION}
    )
    options = cs.Options(
        session_store=store,
        session_store_load_timeout=0.2,
        cwd=str(tmp_path),
        env={"CLAUDE_CONFIG_DIR": str(tmp_path / "config")},
        **resume,
    )
    fake = FakeCLI()
    with anyio.fail_after(30), pytest.raises(cs.SessionStoreError) as caught:
        async with cs.open_session(options, transport=fake):
            pass
    assert caught.value.retryable
    assert caught.value.operation == what
    assert "session_store_load_timeout" in str(caught.value)
    assert fake.connections == []


async def test_a_store_within_the_timeout_resumes(tmp_path: Path) -> None:
    options = cs.Options(
        session_store=SlowStore("load", seconds=0.05),
        session_store_load_timeout=10,
        resume=SESSION,
        cwd=str(tmp_path),
        env={"CLAUDE_CONFIG_DIR": str(tmp_path / "config")},
    )
    fake = FakeCLI()
    async with cs.open_session(options, transport=fake):
        pass
    assert len(fake.connections) == 1


@pytest.mark.parametrize("value", [0, -1, math.nan, "60", True, None])
def test_a_bad_timeout_is_an_options_error(value: Any) -> None:
    if value is None:
        options = cs.Options(session_store_load_timeout=None)
        assert options.session_store_load_timeout is None  # no limit, as other timeouts
        return
    with pytest.raises(cs.OptionsError) as caught:
        cs.Options(session_store_load_timeout=value)
    assert caught.value.option == "session_store_load_timeout"


def test_the_default_is_a_minute() -> None:
    assert cs.Options().session_store_load_timeout == 60.0
