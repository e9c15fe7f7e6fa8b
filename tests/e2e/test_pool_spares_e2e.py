"""Spare CLIs for any folder against the real CLI (offline): a ``--await-claim`` spare started
before the work is known is claimed for a key's folder; the model sees that folder, the
transcript lands in its project, a store holds it under the session's id; a folder whose
settings need a fresh start is refused by the CLI and the key starts cold."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

import claude_sdk as cs
from claude_sdk import control as c
from claude_sdk.stores import DirectoryStore

from .conftest import E2E


def _folder(e2e: E2E, name: str) -> Path:
    folder = e2e.cwd.parent / name
    folder.mkdir()
    return folder


async def test_a_spare_is_claimed_for_a_folder(e2e: E2E) -> None:
    e2e.api.reply(text="Working in the claimed folder.")
    folder = _folder(e2e, "repo-alpha")
    store_dir = e2e.cwd.parent / "store"
    options = e2e.options(session_store=DirectoryStore(store_dir))

    def per_key(key: str) -> cs.Options:
        return attrs.evolve(options, cwd=str(folder), permission_mode="acceptEdits")

    async with cs.SessionPool(
        options,
        prewarm=1,
        claimable=True,
        key_options=per_key,
        transport=e2e.transport(),
    ) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        spares = e2e.home / ".claude" / "spares"
        [parking] = list(spares.iterdir())
        reply = await pool.ask("alpha", "Where are you working?")
        assert not parking.exists()  # left, and removed, at the claim
        async with pool.session("alpha") as session:
            assert session.options.cwd == str(folder)
            claimed_id = session.session_id
    assert reply.text == "Working in the claimed folder."
    # The spare the pool made after the claim was never claimed: its folder is gone too.
    assert pool.stats.started == 2
    assert list(spares.iterdir()) == []
    assert pool.stats.claimed == 1
    assert pool.stats.claims_refused == 0
    assert reply.session_id == claimed_id
    request = json.dumps(e2e.api.main_requests[-1].body)
    assert str(folder) in request  # the model is told the claimed folder
    assert str(parking) not in request
    slug = cs.history.project_slug(str(folder))
    assert (e2e.home / ".claude" / "projects" / slug / f"{reply.session_id}.jsonl").exists()
    stored = await DirectoryStore(store_dir).load(
        {"project_key": slug, "session_id": reply.session_id or ""}
    )
    assert stored
    assert any(e.get("type") == "assistant" for e in stored)


async def test_a_folder_that_needs_a_fresh_start_starts_cold(e2e: E2E) -> None:
    e2e.api.reply(text="Cold, as needed.")
    folder = _folder(e2e, "repo-beta")
    (folder / ".claude").mkdir()
    (folder / ".claude" / "settings.json").write_text(json.dumps({"model": "claude-sonnet-4-5"}))
    options = e2e.options()
    async with cs.SessionPool(
        options,
        prewarm=1,
        claimable=True,
        max_sessions=2,
        key_options=lambda key: attrs.evolve(options, cwd=str(folder)),
        transport=e2e.transport(),
    ) as pool:
        await pool.wait_until(lambda p: p.warm == 1)
        reply = await pool.ask("beta", "hello")
    assert reply.text == "Cold, as needed."
    assert pool.stats.claims_refused == 1
    assert pool.stats.claimed == 0


async def test_the_claim_answer_fits_the_model(e2e: E2E) -> None:
    """`ClaimSessionResponse` (with its ``initialize`` payload) against the real answer, and
    the CLI's refusals as the FakeCLI gives them."""
    e2e.api.reply(text="claimed")
    folder = _folder(e2e, "repo-gamma")
    parking = e2e.home / "parking"
    parking.mkdir()
    options = e2e.options(cwd=str(parking), extra_args={"await-claim": None})
    async with cs.open_session(options, transport=e2e.transport()) as session:
        missing = c.ClaimSessionRequest(cwd=str(folder / "nope"))
        with pytest.raises(cs.ControlRequestError) as refused:
            await session.request(missing)
        assert str(refused.value.error).startswith("cwd_not_found:")
        answer = await session.request(
            c.ClaimSessionRequest(cwd=str(folder), include_initialize=True, sdk_mcp_servers=[])
        )
        assert cs.wire.drift(answer) == [], cs.wire.drift(answer)
        assert answer.status == "ok"
        assert answer.cwd == str(folder)
        assert answer.initialize is not None
        assert answer.initialize.models
        again = c.ClaimSessionRequest(cwd=str(folder))
        with pytest.raises(cs.ControlRequestError) as refused:
            await session.request(again)
        assert str(refused.value.error).startswith("not_a_spare:")
        sent = await session.send("hi")
        reply = [m async for m in session.receive_response(sent)]
    last = reply[-1]
    assert isinstance(last, cs.ResultMessage)
    assert last.result == "claimed"
