"""Sessions in a store, with the real CLI (offline, FakeMessagesAPI).

A session started under one ``HOME`` with a `SessionStore` is resumed under a second, empty
``HOME`` from the store alone: the fake Messages API sees the earlier turns. Also: diskless
sessions leave nothing on disk, ``store_project_key`` resumes from another ``cwd``, and
``resume_or_start`` starts a session with the key's id the first time and resumes it after.
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.stores import DirectoryStore, MemoryStore, RedisStore, SessionStore

from ..stores.conftest import redis_server  # noqa: F401  (the fixture, for the redis case)
from .conftest import E2E

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "directory", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SessionStore:
    if request.param == "memory":
        return MemoryStore()
    if request.param == "redis":  # a real redis-server on 127.0.0.1 (tests/stores/conftest.py)
        server = request.getfixturevalue("redis_server")
        return RedisStore(server.url, prefix=f"e2e-{uuid.uuid4().hex}:")
    return DirectoryStore(tmp_path / "store")


@pytest.fixture
def private_tmp(tmp_path: Path) -> Iterator[Path]:
    """This process's temporary directory, for the diskless directories (to look at)."""
    where = tmp_path / "tmp"
    where.mkdir()
    saved = tempfile.tempdir
    tempfile.tempdir = str(where)
    try:
        yield where
    finally:
        tempfile.tempdir = saved


def _texts(e2e: E2E) -> list[str]:
    """Every text the last Messages API request carried (the conversation the CLI sent)."""
    request = e2e.api.main_requests[-1]
    return [json.dumps(m.get("content"), ensure_ascii=False) for m in request.messages]


async def _turn(session: cs.Session, prompt: str) -> cs.ResultMessage:
    await session.send(prompt)
    result = None
    async for message in session.receive_response():
        if isinstance(message, cs.ResultMessage):
            result = message
    assert result is not None
    assert not result.is_error, result
    return result


def _slug(cwd: Path) -> str:
    return history.project_slug(os.path.realpath(cwd))


def _is_dir_with_transcripts(path: Path) -> bool:
    return path.is_dir() and bool(list(path.rglob("*.jsonl")))


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


async def test_resume_under_an_empty_home_from_the_store(e2e: E2E, store: SessionStore) -> None:
    e2e.api.reply("Noted, Ada.")
    e2e.api.reply("Your name is Ada.")
    session_id = cs.session_id_for("e2e-task-1")

    async with cs.open_session(
        e2e.options(session_store=store).resume_or_start("e2e-task-1"),
        transport=e2e.transport(),
    ) as first:
        result = await _turn(first, "My name is Ada. Remember it.")
        assert result.session_id == session_id  # started with the key's id
        # The turn was stored before its result was handed out.
        key = {"project_key": _slug(e2e.cwd), "session_id": session_id}
        stored = await store.load(key)  # type: ignore[arg-type]
        assert stored is not None
        assert any("Remember it" in json.dumps(e) for e in stored)
        assert any(e.get("type") == "assistant" for e in stored)

    # A second machine: an empty HOME, nothing on its disk. The store alone has the session.
    other_home = e2e.home.parent / "home2"
    other_home.mkdir()
    options = e2e.options(session_store=store, env={"HOME": str(other_home)})
    async with cs.open_session(
        options.resume_or_start("e2e-task-1"), transport=e2e.transport()
    ) as second:
        result = await _turn(second, "What is my name?")
        assert result.session_id == session_id
    sent = "\n".join(_texts(e2e))
    assert "My name is Ada" in sent  # the first turn, from the store
    assert "Noted, Ada." in sent
    assert "What is my name?" in sent

    # The second machine's turn went to the store too.
    after = await store.load(key)  # type: ignore[arg-type]
    assert after is not None
    assert any("What is my name?" in json.dumps(e) for e in after)
    assert len(after) > len(stored)


async def test_a_diskless_session_leaves_nothing_on_disk(
    e2e: E2E, private_tmp: Path, tmp_path: Path
) -> None:
    store = DirectoryStore(tmp_path / "store")
    e2e.api.reply("First.")
    e2e.api.reply("Second.")
    async with cs.open_session(
        e2e.options(session_store=store, diskless=True).resume_or_start("diskless-1"),
        transport=e2e.transport(),
    ) as session:
        await _turn(session, "one")
        config = Path(session.options.env["CLAUDE_CONFIG_DIR"] or "")
        assert config.parent == private_tmp
        assert _is_dir_with_transcripts(config)  # the CLI writes there meanwhile
    assert _files(config.parent) == []
    assert _files(private_tmp) == []
    assert _files(e2e.home) == []  # HOME untouched: the CLI never wrote there

    async with cs.open_session(
        e2e.options(session_store=store, diskless=True).resume_or_start("diskless-1"),
        transport=e2e.transport(),
    ) as session:
        await _turn(session, "two")
    assert "one" in "\n".join(_texts(e2e))
    assert _files(private_tmp) == []


async def test_store_project_key_resumes_from_another_cwd(e2e: E2E, tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "store")
    e2e.api.reply("Stored.")
    e2e.api.reply("Resumed.")
    common: dict[str, Any] = {"session_store": store, "store_project_key": "tenant-7"}
    async with cs.open_session(
        e2e.options(**common).resume_or_start("job-9"), transport=e2e.transport()
    ) as session:
        await _turn(session, "The secret word is heron.")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with cs.open_session(
        e2e.options(cwd=str(elsewhere), **common).resume_or_start("job-9"),
        transport=e2e.transport(),
    ) as session:
        await _turn(session, "What was the word?")
    assert "heron" in "\n".join(_texts(e2e))
    assert [row["session_id"] for row in await store.list_sessions("tenant-7")] == [
        cs.session_id_for("job-9")
    ]


async def test_resume_of_a_session_that_exists_nowhere(e2e: E2E, tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "store")
    missing = cs.session_id_for("never-ran")
    with pytest.raises(cs.SessionNotFoundError) as caught:
        async with cs.open_session(
            e2e.options(session_store=store, resume=missing), transport=e2e.transport()
        ):
            pass
    assert caught.value.session_id == missing
    assert not caught.value.retryable
    assert e2e.transports == [] or all(not t.specs for t in e2e.transports)  # no CLI started


@pytest.mark.parametrize(
    ("status", "retryable"), [(529, True), (500, True), (429, True), (401, False)]
)
async def test_the_real_clis_api_errors_say_whether_to_retry(
    e2e: E2E, status: int, retryable: bool
) -> None:
    e2e.api.reply(error=status)
    async with cs.open_session(e2e.options(), transport=e2e.transport()) as session:
        await session.send("hi")
        result = None
        async for message in session.receive_response():
            if isinstance(message, cs.ResultMessage):
                result = message
    assert result is not None
    assert result.is_error
    error = cs.ResultError(result=result)
    assert error.retryable is retryable, (status, result)


async def test_a_subagents_transcript_travels_with_the_session(e2e: E2E, tmp_path: Path) -> None:
    from .test_history_e2e import subagent_session

    store = DirectoryStore(tmp_path / "store")
    session_id = await subagent_session(e2e, session_store=store)

    # What the store holds answers as the CLI's own files do.
    in_store = history.in_store(store, project_key=_slug(e2e.cwd))
    (stored,) = await in_store.list_subagent_transcripts(session_id)
    (local,) = history.list_subagent_transcripts(
        session_id, e2e.cwd, config_dir=e2e.home / ".claude"
    )
    assert attrs_without_path(stored) == attrs_without_path(local)
    assert await in_store.session_messages(session_id) == history.session_messages(
        session_id, e2e.cwd, config_dir=e2e.home / ".claude"
    )

    # Resumed under an empty HOME: the subagent's files are written beside the transcript.
    other_home = tmp_path / "home2"
    other_home.mkdir()
    e2e.api.reply(text="resumed")
    again = e2e.options(session_store=store, env={"HOME": str(other_home)}, resume=session_id)
    assert (await cs.ask("and now?", options=again)).text == "resumed"
    written = history.list_subagent_transcripts(
        session_id, e2e.cwd, config_dir=other_home / ".claude"
    )
    assert [attrs_without_path(i) for i in written] == [attrs_without_path(local)]


def attrs_without_path(info: history.SubagentInfo) -> history.SubagentInfo:
    import attrs

    return attrs.evolve(info, path=Path(info.path.name))
