"""A session resumes across SDKs through one store, with the real CLI (issue 28, acceptance:
"a cross-SDK resume test still passes").

claude_sdk runs turn one with a `DirectoryStore`; the official ``claude-agent-sdk``
(``ClaudeSDKClient``, its own ``session_store`` option) resumes the session from that store
under an empty ``HOME`` and runs turn two; claude_sdk resumes it again under another empty
``HOME`` and runs turn three. Each time the model sees every earlier turn, and the store
holds one unbroken conversation. Runs where the official SDK is importable (``nox -s e2e``
installs it); ``CLAUDE_SDK_REQUIRE_OFFICIAL=1`` turns its absence into a failure.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.stores import DirectoryStore
from claude_sdk.stores._chain import gaps

from .conftest import E2E

pytestmark = pytest.mark.anyio


def _official() -> Any:
    if os.environ.get("CLAUDE_SDK_REQUIRE_OFFICIAL") == "1":
        return importlib.import_module("claude_agent_sdk")
    return pytest.importorskip("claude_agent_sdk")


async def _turn(session: cs.Session, prompt: str) -> str:
    await session.send(prompt)
    result = ""
    async for message in session.receive_response():
        if isinstance(message, cs.ResultMessage):
            assert not message.is_error, message
            result = message.result or ""
    return result


async def test_ours_then_official_then_ours_through_one_store(
    e2e: E2E, tmp_path: Path, anyio_backend: str
) -> None:
    if anyio_backend != "asyncio":
        # Ours runs on trio in every other test; the official client, under trio, leaves its
        # own async generators unclosed (ResourceWarning from claude_agent_sdk.client).
        pytest.skip("the official SDK's client is run on asyncio only")
    official = _official()
    store = DirectoryStore(tmp_path / "store")
    key = "cross-sdk"
    session_id = cs.session_id_for(key)
    slug = history.project_slug(os.path.realpath(e2e.cwd))  # noqa: ASYNC240 - setup

    e2e.api.reply("ONE", when=lambda r: "turn one" in r.last_user_text)
    e2e.api.reply("TWO", when=lambda r: "turn two" in r.last_user_text)
    e2e.api.reply("THREE", when=lambda r: "turn three" in r.last_user_text)
    options = e2e.options(session_store=store).resume_or_start(key)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        assert await _turn(session, "turn one: remember PELICAN") == "ONE"

    # The official SDK, on a machine whose disk never saw the session.
    home_b = tmp_path / "home-official"
    home_b.mkdir()
    theirs = official.ClaudeAgentOptions(
        cli_path=e2e.cli,
        cwd=str(e2e.cwd),
        env={**e2e.api.env(), "HOME": str(home_b)},
        session_store=store,
        resume=session_id,
    )
    async with official.ClaudeSDKClient(options=theirs) as client:
        await client.query("turn two: what word?")
        async with contextlib.aclosing(client.receive_response()) as replies:
            results = [m async for m in replies]
    assert results[-1].result == "TWO"
    sent = json.dumps(e2e.api.main_requests[-1].messages)
    assert "turn one: remember PELICAN" in sent
    assert "ONE" in sent

    # claude_sdk again, on a third machine: every turn, from both SDKs.
    home_c = tmp_path / "home-ours"
    home_c.mkdir()
    again = e2e.options(session_store=store, env={"HOME": str(home_c)}).resume_or_start(key)
    async with cs.open_session(again, transport=e2e.transport()) as session:
        assert await _turn(session, "turn three: and before?") == "THREE"
    sent = json.dumps(e2e.api.main_requests[-1].messages)
    for text in ("turn one", "ONE", "turn two", "TWO", "turn three"):
        assert text in sent
    stored = await store.load({"project_key": slug, "session_id": session_id})
    assert stored is not None
    assert gaps(stored, session_id) == []
