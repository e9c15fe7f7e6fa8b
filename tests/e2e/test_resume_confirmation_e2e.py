"""Resume you can trust, against the real CLI (offline): before the first prompt the session
confirms which session the CLI loaded and that it holds the earlier turns, or raises
`SessionNotFoundError` (FakeCLI: tests/session/test_resume_confirmation.py)."""

from __future__ import annotations

import attrs
import pytest

import claude_sdk as cs

from .conftest import E2E


async def first_session(e2e: E2E) -> str:
    e2e.api.reply(text="the number is 42")
    reply = await cs.ask("remember 42", options=e2e.options(), transport=e2e.transport())
    assert reply.session_id is not None
    return reply.session_id


async def test_a_resumed_session_is_confirmed_before_the_first_prompt(e2e: E2E) -> None:
    sid = await first_session(e2e)
    before = len(e2e.api.requests)
    options = e2e.options(resume=sid)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        confirmed = session.resumed
        assert len(e2e.api.requests) == before  # confirming asks the model nothing
        assert session.session_id == sid
        e2e.api.reply(text="42, as before")
        await session.send("what was it?")
        [m async for m in session.receive_response()]
    assert confirmed is not None
    assert confirmed.session_id == sid
    assert confirmed.history_chars
    assert confirmed.history_chars > len("remember 42")
    # ... and the model got the earlier turn
    texts = str(e2e.api.requests[-1].messages)
    assert "remember 42" in texts
    assert "the number is 42" in texts


async def test_continue_with_nothing_to_continue_raises(e2e: E2E) -> None:
    with pytest.raises(cs.SessionNotFoundError, match="no conversation"):
        async with cs.open_session(
            e2e.options(continue_conversation=True), transport=e2e.transport()
        ):
            pytest.fail("the session must not open")
    assert e2e.api.requests == []
    # unless asked to start a new one then
    options = e2e.options(continue_conversation=True, resume_missing="start")
    async with cs.open_session(options, transport=e2e.transport()) as session:
        assert session.resumed is not None
        assert session.resumed.started_new


async def test_continue_finds_the_latest_session(e2e: E2E) -> None:
    sid = await first_session(e2e)
    async with cs.open_session(
        e2e.options(continue_conversation=True), transport=e2e.transport()
    ) as session:
        assert session.resumed is not None
        assert session.resumed.session_id == sid


async def test_a_fork_is_confirmed_as_a_new_session_with_the_history(e2e: E2E) -> None:
    sid = await first_session(e2e)
    options = e2e.options(resume=sid, fork_session=True)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        assert session.resumed is not None
        assert session.resumed.session_id not in (None, sid)
        assert session.resumed.history_chars


async def test_verify_resume_false_sends_nothing_more(e2e: E2E) -> None:
    sid = await first_session(e2e)
    transport = e2e.transport()
    options = attrs.evolve(e2e.options(resume=sid), verify_resume=False)
    async with cs.open_session(options, transport=transport) as session:
        assert session.resumed is None
    subtypes = [
        f.get("request", {}).get("subtype")
        for f in map(cs.wire.to_dict, map(cs.wire.decode, transport.sent()))
    ]
    assert subtypes == ["initialize"]
