"""`history.in_store`: the history functions over a `SessionStore` answer as they do on disk.

The store is filled with the real CLI's transcripts of ``tests/data/history`` (as the
mirror would fill it: one entry per line, subagent files under ``subagents/agent-<id>``),
in a `MemoryStore` and a `DirectoryStore`; every answer is compared with the module
functions reading the same files.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.stores import DirectoryStore, MemoryStore, SessionStore

FIXTURE = Path(__file__).resolve().parent / "data" / "history" / "config"
PROJECT = "-home-user-demo"
SESSIONS = sorted(p.stem for p in (FIXTURE / "projects" / PROJECT).glob("*.jsonl"))


def _objects(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def _fill(store: SessionStore) -> None:
    project = FIXTURE / "projects" / PROJECT
    for transcript in project.glob("*.jsonl"):
        await store.append(
            {"project_key": PROJECT, "session_id": transcript.stem}, _objects(transcript)
        )
        for sub in sorted((project / transcript.stem).glob("subagents/**/*.jsonl")):
            subpath = str(sub.relative_to(project / transcript.stem).with_suffix(""))
            key = {"project_key": PROJECT, "session_id": transcript.stem, "subpath": subpath}
            entries = _objects(sub)
            meta = sub.with_name(sub.name[: -len(".jsonl")] + ".meta.json")
            if meta.exists():  # the CLI mirrors the sidecar as an agent_metadata entry
                entries.append({"type": "agent_metadata", **json.loads(meta.read_text())})
            await store.append(key, entries)  # type: ignore[arg-type]


@pytest.fixture(params=["memory", "directory"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> SessionStore:
    made: SessionStore = (
        MemoryStore() if request.param == "memory" else DirectoryStore(tmp_path / "s")
    )
    await _fill(made)
    return made


def _without_paths(items: list[Any]) -> list[Any]:
    return [attrs.evolve(i, path=Path(i.path.name)) for i in items]


def _on_disk(work: Callable[..., Any], *args: Any) -> Any:
    return work(*args, config_dir=FIXTURE)


async def test_reading_matches_the_files(store: SessionStore) -> None:
    sessions = history.in_store(store, project_key=PROJECT)
    for session_id in SESSIONS:
        assert await sessions.read_session(session_id) == _on_disk(history.read_session, session_id)
        assert await sessions.session_messages(session_id) == _on_disk(
            history.session_messages, session_id
        )
        assert (
            await sessions.session_info(session_id)
            == _without_paths([_on_disk(history.session_info, session_id)])[0]
        )


async def test_listing_matches_the_files(store: SessionStore) -> None:
    listed = await history.in_store(store, project_key=PROJECT).list_sessions()
    on_disk = history.list_sessions("/home/user/demo", config_dir=FIXTURE)
    assert [i.session_id for i in listed] == [i.session_id for i in on_disk]
    assert listed == _without_paths(on_disk)


async def test_subagents_match_the_files(store: SessionStore) -> None:
    sessions = history.in_store(store, project_key=PROJECT)
    found = 0
    for session_id in SESSIONS:
        on_disk = _on_disk(history.list_subagent_transcripts, session_id)
        assert await sessions.list_subagent_transcripts(session_id) == _without_paths(on_disk)
        for info in on_disk:
            found += 1
            assert await sessions.read_subagent_transcript(session_id, info.agent_id) == _on_disk(
                history.read_subagent_transcript, session_id, info.agent_id
            )
    assert found  # the fixture has subagents


async def test_writes_go_to_the_store(store: SessionStore, tmp_path: Path) -> None:
    sessions = history.in_store(store, project_key=PROJECT)
    session_id = SESSIONS[0]
    await sessions.rename_session(session_id, "Renamed in the store")
    await sessions.tag_session(session_id, "nightly")
    info = await sessions.session_info(session_id)
    assert (info.custom_title, info.tag) == ("Renamed in the store", "nightly")

    # The same writes on a copy of the files give the same answers.
    config = tmp_path / "config"
    shutil.copytree(FIXTURE, config)
    history.rename_session(session_id, "Renamed in the store", config_dir=config)
    history.tag_session(session_id, "nightly", config_dir=config)
    assert await sessions.read_session(session_id) == history.read_session(
        session_id, config_dir=config
    )

    fork = await sessions.fork_session(session_id, title="A fork")
    assert (await sessions.session_info(fork)).title == "A fork"
    assert [m.text for m in await sessions.session_messages(fork)] == [
        m.text for m in await sessions.session_messages(session_id)
    ]


async def test_delete_and_missing_sessions(store: SessionStore) -> None:
    sessions = history.in_store(store, project_key=PROJECT)
    await sessions.delete_session(SESSIONS[1])
    with pytest.raises(cs.SessionNotFoundError):
        await sessions.read_session(SESSIONS[1])
    assert SESSIONS[1] not in [i.session_id for i in await sessions.list_sessions()]
    with pytest.raises(ValueError, match="not a session id"):
        await sessions.read_session("../../etc/passwd")
    with pytest.raises(cs.OptionsError):
        history.in_store(store, project_key="../x")


async def test_a_store_without_optional_methods() -> None:
    class Minimal:
        def __init__(self) -> None:
            self.inner = MemoryStore()

        async def append(self, key: Any, entries: list[dict[str, Any]]) -> None:
            await self.inner.append(key, entries)

        async def load(self, key: Any) -> list[dict[str, Any]] | None:
            return await self.inner.load(key)

    minimal = Minimal()
    await _fill(minimal)
    sessions = history.in_store(minimal, project_key=PROJECT)
    assert await sessions.read_session(SESSIONS[0]) == _on_disk(history.read_session, SESSIONS[0])
    with pytest.raises(cs.OptionsError, match="cannot list"):
        await sessions.list_sessions()
    with pytest.raises(cs.OptionsError, match="cannot delete"):
        await sessions.delete_session(SESSIONS[0])
