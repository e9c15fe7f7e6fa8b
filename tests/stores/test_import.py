"""`import_session_to_store` (issue 28, item 2): a local session copied into a store.

The oracle is the official SDK's function of the same name (``nox -s interop``): over the same
session files (a main transcript, nested subagents, a metadata sidecar), ours and theirs leave
the same entries under the same keys. Then: importing again stores nothing twice; a store that
missed lines (a gap) is filled by an import, and a resume from it is whole; a session not on
this machine is a `SessionNotFoundError` that is also a ``FileNotFoundError``.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk.stores import ImportedSession, MemoryStore, SessionKey, import_session_to_store
from claude_sdk.stores._chain import gaps
from claude_sdk.testing import FakeCLI

pytestmark = pytest.mark.anyio

DATA = Path(__file__).resolve().parents[1] / "data" / "history" / "config"
PROJECT = "-home-user-demo"
WITH_SUBAGENT = "5e550000-0000-4000-8000-000000000002"


def _official(module: str) -> Any:
    if os.environ.get("CLAUDE_SDK_REQUIRE_OFFICIAL") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the recorded configuration directory, with a nested subagent added."""
    where = tmp_path / "config"
    shutil.copytree(DATA, where)
    session = where / "projects" / PROJECT / WITH_SUBAGENT / "subagents"
    nested = session / "workflows" / "run-1"
    nested.mkdir(parents=True)
    shutil.copy(session / "agent-a0000000000000001.jsonl", nested / "agent-b0000000000000002.jsonl")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(where))
    return where


async def _everything(store: MemoryStore, session_id: str) -> dict[str, Any]:
    main: SessionKey = {"project_key": PROJECT, "session_id": session_id}
    found: dict[str, Any] = {"": await store.load(main)}
    for subpath in await store.list_subkeys({"project_key": PROJECT, "session_id": session_id}):
        found[subpath] = await store.load({**main, "subpath": subpath})
    return found


async def test_the_same_entries_as_the_official_import(config: Path) -> None:
    sdk = _official("claude_agent_sdk")
    ours, theirs = MemoryStore(), MemoryStore()
    imported = await import_session_to_store(WITH_SUBAGENT, ours)
    await sdk.import_session_to_store(WITH_SUBAGENT, theirs)
    assert await _everything(ours, WITH_SUBAGENT) == await _everything(theirs, WITH_SUBAGENT)
    assert imported.project_key == PROJECT
    assert imported.files == 3  # the session and two subagents


async def test_small_batches_and_no_subagents_as_the_official_import(config: Path) -> None:
    sdk = _official("claude_agent_sdk")
    ours, theirs = MemoryStore(), MemoryStore()
    await import_session_to_store(WITH_SUBAGENT, ours, batch_size=2, include_subagents=False)
    await sdk.import_session_to_store(WITH_SUBAGENT, theirs, batch_size=2, include_subagents=False)
    assert await _everything(ours, WITH_SUBAGENT) == await _everything(theirs, WITH_SUBAGENT)


async def test_an_import_puts_each_file_under_the_mirror_s_key(config: Path) -> None:
    store = MemoryStore()
    imported = await import_session_to_store(WITH_SUBAGENT, store)
    assert isinstance(imported, ImportedSession)
    found = await _everything(store, WITH_SUBAGENT)
    assert sorted(found) == [
        "",
        "subagents/agent-a0000000000000001",
        "subagents/workflows/run-1/agent-b0000000000000002",
    ]
    main = config / "projects" / PROJECT / f"{WITH_SUBAGENT}.jsonl"
    on_disk = [json.loads(x) for x in main.read_text().splitlines() if x.strip()]
    assert found[""] == on_disk
    sub = found["subagents/agent-a0000000000000001"]
    assert sub[-1]["type"] == "agent_metadata"  # the sidecar, after the transcript
    assert imported.lines == sum(
        len([e for e in v if e["type"] != "agent_metadata"]) for v in found.values()
    )


async def test_importing_again_stores_nothing_twice(config: Path) -> None:
    store = MemoryStore()
    await import_session_to_store(WITH_SUBAGENT, store)
    first = await _everything(store, WITH_SUBAGENT)
    await import_session_to_store(WITH_SUBAGENT, store, batch_size=3)
    again = await _everything(store, WITH_SUBAGENT)
    for subpath, entries in first.items():
        with_uuid = [e for e in again[subpath] if "uuid" in e]
        assert with_uuid == [e for e in entries if "uuid" in e]


async def test_an_import_fills_a_store_that_missed_lines(config: Path, tmp_path: Path) -> None:
    session_id = "5e550000-0000-4000-8000-000000000001"
    main = config / "projects" / PROJECT / f"{session_id}.jsonl"
    entries = [json.loads(x) for x in main.read_text().splitlines() if x.strip()]
    chained = [e for e in entries if e.get("parentUuid")]
    assert chained, "the recorded session has a chain"
    lost = chained[len(chained) // 2]
    parent = next(e for e in entries if e.get("uuid") == lost["parentUuid"])
    store = MemoryStore()
    key = {"project_key": PROJECT, "session_id": session_id}
    await store.append(key, [e for e in entries if e is not parent])  # type: ignore[arg-type]
    assert gaps(await store.load(key) or [], session_id)  # type: ignore[arg-type]

    await import_session_to_store(session_id, store)
    stored = await store.load(key)  # type: ignore[arg-type]
    assert stored is not None
    assert gaps(stored, session_id) == []
    # ... and a resume from the store alone, on a machine with nothing on its disk, is whole.
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    options = cs.Options(
        cwd="/home/user/demo",
        session_store=store,
        store_project_key=PROJECT,
        resume=session_id,
        env={"CLAUDE_CONFIG_DIR": str(empty)},
    )
    async with cs.open_session(options, transport=FakeCLI()):
        pass
    written = next(empty.rglob(f"{session_id}.jsonl"))
    resumed = [json.loads(x) for x in written.read_text().splitlines()]
    assert gaps(resumed, session_id) == []
    assert {e.get("uuid") for e in resumed} >= {e.get("uuid") for e in entries} - {None}


async def test_a_session_not_here_is_not_found(config: Path) -> None:
    missing = "5e550000-0000-4000-8000-00000000dead"
    with pytest.raises(cs.SessionNotFoundError) as caught:
        await import_session_to_store(missing, MemoryStore())
    assert isinstance(caught.value, FileNotFoundError)  # as the official function raises
    assert caught.value.session_id == missing
    with pytest.raises(ValueError, match=r"(?i)uuid"):
        await import_session_to_store("not-a-uuid", MemoryStore())


async def test_a_torn_line_is_skipped_and_counted(config: Path) -> None:
    session_id = "5e550000-0000-4000-8000-000000000003"
    main = config / "projects" / PROJECT / f"{session_id}.jsonl"
    main.write_text(main.read_text() + '{"type": "user", "uuid": "torn-li\n')
    store = MemoryStore()
    imported = await import_session_to_store(session_id, store)
    assert imported.skipped == 1
    loaded = await store.load({"project_key": PROJECT, "session_id": session_id})
    assert loaded is not None
    assert all(e.get("uuid") != "torn-li" for e in loaded)
