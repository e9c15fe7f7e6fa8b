"""Session summaries (issue 28, item 8): ``list_session_summaries`` and the listing that uses it.

* `fold_session_summary` gives the official function's results on generated entries, in
  any split into batches (``nox -s interop`` runs it against claude-agent-sdk 0.2.188).
* Each shipped store keeps, at every append of a main key, the summary of exactly what
  ``load`` gives; a subkey changes nothing; a delete takes it away; a writer that did not
  fold (another process, another version) is caught up with.
* `StoreHistory.list_sessions` answers from summaries exactly as from loading every
  session, on generated transcripts in all three stores, and with stores that have only one
  of ``list_sessions`` and ``list_session_summaries``, or summaries without our state (the
  official in-memory store's).
* The official SDK's own listing reads our stores' summaries as it reads its own store's.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claude_sdk import history
from claude_sdk.errors import OptionsError
from claude_sdk.stores import (
    DirectoryStore,
    MemoryStore,
    SessionKey,
    fold_session_summary,
)
from claude_sdk.stores._summary import LISTING_KEY, fold_for_store
from claude_sdk.testing.store_conformance import STORE_CHECKS, check_session_store

from ..support.deep import deep
from .conftest import RedisServer

pytestmark = pytest.mark.anyio

PROJECT = "-work-summaries"
SESSIONS = [f"5a5a{n:04d}-0000-4000-8000-00000000000{n}" for n in range(3)]
_counter = itertools.count()
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "history" / "config" / "projects"


def _official(module: str) -> Any:
    """The official SDK's module; a skip without it, a failure under
    CLAUDE_SDK_REQUIRE_OFFICIAL=1 (``nox -s interop``)."""
    if os.environ.get("CLAUDE_SDK_REQUIRE_OFFICIAL") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)


# ======================================================================================
# Generated entries


SAMPLE_TEXTS = [
    "hello",
    "  spaced out  ",
    "",
    " ",
    "two\nlines",
    "<command-name>/init</command-name>",
    "<command-name></command-name> then words",
    "<command-message>review</command-message>",
    "<local-command-stdout>out</local-command-stdout>",
    "<local-command-stderr>err",
    "<session-start-hook>x",
    "<system-reminder>r</system-reminder>",
    "[Request interrupted by user]",
    "[Request interrupted by user for tool use]",
    "<ide_opened_file>f.py</ide_opened_file>",
    "  <ide_selection>s</ide_selection>  ",
    "<tick>",
    "<goal>g</goal>",
    "x" * 250,
    "é " * 150,
    "<bash-input>ls</bash-input>",
    '<pasted_content id="ab12">\nbody\n</pasted_content id="ab12">',
    "\u2028separated",
    "\ufeffmarked",
    "\x1c\x1dcontrol",
]
TEXTS = st.one_of(st.sampled_from(SAMPLE_TEXTS), st.text(max_size=20))
SHORT = st.one_of(st.sampled_from(["", "one", "two", "main", "/work/a"]), st.text(max_size=8))
TIMESTAMPS = st.one_of(
    st.sampled_from(
        [
            "2024-05-01T10:00:00.000Z",
            "2024-05-01T10:00:01.500Z",
            "2024-05-01T09:59:59Z",
            "2024-05-01T12:00:00+02:00",
            "2024-05-01T10:00:00",
            "2024-05-01",
            "not a time",
            "",
            "Z",
        ]
    ),
    st.datetimes(
        min_value=__import__("datetime").datetime(2000, 1, 1),
        max_value=__import__("datetime").datetime(2099, 1, 1),
    ).map(lambda d: d.isoformat(timespec="milliseconds") + "Z"),
    st.integers(0, 2**40),
    st.none(),
)
BLOCKS = st.one_of(
    TEXTS.map(lambda t: {"type": "text", "text": t}),
    st.just({"type": "tool_result", "tool_use_id": "t1", "content": "done"}),
    st.just({"type": "image", "source": {"type": "base64", "data": ""}}),
    st.just({"type": "text", "text": 5}),
    st.just({"text": "no type"}),
    st.just("a bare string"),
    st.just(None),
)
CONTENT = st.one_of(TEXTS, st.lists(BLOCKS, max_size=3), st.none(), st.integers(0, 3))
MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": st.just("user")}, optional={"content": CONTENT}),
    st.none(),
    st.just("not an object"),
)
FLAGS = st.sampled_from([True, False, 1, 0, None])
ENTRY = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "user",
                "user",
                "user",
                "assistant",
                "system",
                "attachment",
                "progress",
                "tag",
                "custom-title",
                "ai-title",
                "summary",
                "last-prompt",
                "relocated",
                "agent_metadata",
                "x",
            ]
        )
    },
    optional={
        "uuid": st.sampled_from([f"u{n}" for n in range(12)]),
        "timestamp": TIMESTAMPS,
        "isSidechain": FLAGS,
        "isMeta": FLAGS,
        "isCompactSummary": FLAGS,
        "cwd": st.one_of(SHORT, st.integers(0, 3)),
        "gitBranch": st.one_of(SHORT, st.integers(0, 3)),
        "version": SHORT,
        "customTitle": st.one_of(SHORT, st.none()),
        "aiTitle": st.one_of(SHORT, st.none()),
        "lastPrompt": st.one_of(SHORT, st.none()),
        "summary": st.one_of(SHORT, st.integers(0, 3)),
        "tag": st.one_of(SHORT, st.none()),
        "relocatedCwd": SHORT,
        "message": MESSAGE,
        "n": st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False),
    },
)


@st.composite
def batches(draw: st.DrawFn, max_entries: int = 20) -> list[list[dict[str, Any]]]:
    """Entries cut into batches (appends) at random places; an empty batch now and then."""
    entries = draw(st.lists(ENTRY, max_size=max_entries))
    cuts = sorted(draw(st.lists(st.integers(0, len(entries)), max_size=4)))
    bounds = [0, *cuts, len(entries)]
    return [entries[a:b] for a, b in itertools.pairwise(bounds)]


# ======================================================================================
# The fold


@settings(max_examples=deep(300), deadline=None)
@given(batches(max_entries=30))
def test_the_fold_gives_the_official_fold_s_results(parts: list[list[dict[str, Any]]]) -> None:
    official = _official("claude_agent_sdk").fold_session_summary
    key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[0]}
    ours: Any = None
    theirs: Any = None
    for part in parts:
        try:
            theirs = official(theirs, key, part)
        except Exception:  # the official fold raised: ours must still give a summary
            fold_session_summary(ours, key, part)
            return
        ours = fold_session_summary(ours, key, part)
        assert ours == theirs


@pytest.mark.parametrize("text", SAMPLE_TEXTS)
def test_each_kind_of_prompt_folds_as_the_official_fold_does(text: str) -> None:
    official = _official("claude_agent_sdk").fold_session_summary
    key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[0]}
    for content in (text, [{"type": "text", "text": text}], [{"type": "text", "text": "  "}]):
        entries = [
            {"type": "user", "message": {"content": content}},
            {"type": "user", "message": {"content": "after it"}},
        ]
        assert fold_session_summary(None, key, entries) == official(None, key, entries)


def test_the_fold_leaves_prev_alone_and_keeps_its_mtime() -> None:
    key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[0]}
    first = fold_session_summary(None, key, [{"type": "x", "customTitle": "one", "cwd": "/a"}])
    assert first == {
        "session_id": SESSIONS[0],
        "mtime": 0,
        "data": {"is_sidechain": False, "cwd": "/a", "custom_title": "one"},
    }
    first["mtime"] = 1234
    second = fold_session_summary(first, {**key, "session_id": "other"}, [{"type": "tag"}])
    assert first["data"] == {"is_sidechain": False, "cwd": "/a", "custom_title": "one"}
    assert (second["session_id"], second["mtime"]) == (SESSIONS[0], 1234)


def test_folding_in_batches_is_folding_whole() -> None:
    entries: list[dict[str, Any]] = [
        {"type": "user", "message": {"content": "<command-name>/x</command-name>"}},
        {"type": "user", "timestamp": "2024-05-01T10:00:00Z", "message": {"content": "hi"}},
        {"type": "tag", "tag": "t"},
        {"type": "tag", "tag": ""},
    ]
    whole = fold_for_store(None, SESSIONS[0], entries)
    step = None
    for entry in entries:
        step = fold_for_store(step, SESSIONS[0], [entry])
    assert step == whole
    assert whole["data"]["first_prompt"] == "hi"
    assert "tag" not in whole["data"]
    assert whole["data"][LISTING_KEY]["n"] == 4


# ======================================================================================
# The stores keep them


@pytest.fixture(params=["memory", "directory", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    kind: str = request.param
    if kind == "memory":
        yield MemoryStore
    elif kind == "directory":
        yield lambda: DirectoryStore(tmp_path / str(next(_counter)))
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        from claude_sdk.stores import RedisStore

        stores: list[Any] = []

        def make() -> Any:
            stores.append(RedisStore(server.url, prefix=f"sum{next(_counter)}:"))
            return stores[-1]

        yield make
        for store in stores:
            store.client.close()


async def _expect_fold_of_load(store: Any, project: str, sessions: list[str]) -> None:
    """Each summary is `fold_for_store` of what load gives (our state included)."""
    summaries = {s["session_id"]: s for s in await store.list_session_summaries(project)}
    assert sorted(summaries) == sorted(sessions)
    listed = {row["session_id"]: row["mtime"] for row in await store.list_sessions(project)}
    for session_id in sessions:
        key: SessionKey = {"project_key": project, "session_id": session_id}
        expected = fold_for_store(None, session_id, await store.load(key) or [])
        assert summaries[session_id]["data"] == expected["data"]
        assert summaries[session_id]["mtime"] == listed[session_id]


async def test_a_store_keeps_the_fold_of_what_it_stored(
    make_store: Callable[[], Any],
) -> None:
    store = make_store()
    key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[0]}
    await store.append(key, [{"type": "x", "uuid": "a", "customTitle": "old"}])
    await store.append(key, [{"type": "x", "uuid": "b", "customTitle": "new"}])
    await store.append(key, [{"type": "x", "uuid": "a", "customTitle": "old"}])  # a retry
    await store.append({**key, "subpath": "subagents/agent-1"}, [{"type": "x", "cwd": "/s"}])
    [summary] = await store.list_session_summaries(PROJECT)
    assert summary["data"]["custom_title"] == "new"
    assert "cwd" not in summary["data"]
    await _expect_fold_of_load(store, PROJECT, [SESSIONS[0]])
    await store.delete(key)
    assert await store.list_session_summaries(PROJECT) == []


async def test_concurrent_appends_keep_the_summary_whole(make_store: Callable[[], Any]) -> None:
    store = make_store()
    key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[1]}

    async def writer(t: int) -> None:
        for b in range(4):
            batch = [
                {"type": "last-prompt", "uuid": f"{t}-{b}-{i}", "lastPrompt": f"{t}.{b}.{i}"}
                for i in range(3)
            ]
            await store.append(key, batch)

    async with anyio.create_task_group() as tg:
        for t in range(16):
            tg.start_soon(writer, t)
    assert len(await store.load(key) or []) == 16 * 4 * 3
    await _expect_fold_of_load(store, PROJECT, [SESSIONS[1]])


async def test_fenced_appends_keep_the_summary(make_store: Callable[[], Any]) -> None:
    """The mirror appends through ``append_fenced`` under a lease: the summary is kept there
    too, and a fenced-out append changes nothing."""
    store = make_store()
    key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[2]}
    session = {"project_key": PROJECT, "session_id": SESSIONS[2]}
    first = await store.acquire_lease(session, "first", 60)
    assert await store.append_fenced(
        key, [{"type": "x", "uuid": "a", "aiTitle": "one"}], first["token"]
    )
    await _expect_fold_of_load(store, PROJECT, [SESSIONS[2]])
    await store.release_lease(session, "first", first["token"])
    second = await store.acquire_lease(session, "second", 60)
    assert second["token"] > first["token"]
    stale = [{"type": "x", "uuid": "b", "aiTitle": "stale"}]
    assert not await store.append_fenced(key, stale, first["token"])
    fresh = [{"type": "x", "uuid": "c", "aiTitle": "two"}]
    assert await store.append_fenced(key, fresh, second["token"])
    await _expect_fold_of_load(store, PROJECT, [SESSIONS[2]])
    [summary] = await store.list_session_summaries(PROJECT)
    assert summary["data"]["ai_title"] == "two"


async def test_a_key_with_other_characters_lists_its_summary(
    make_store: Callable[[], Any],
) -> None:
    store = make_store()
    project, session = "pröject ✓", "séssion-𝄞-中文"
    await store.append({"project_key": project, "session_id": session}, [{"type": "x"}])
    await _expect_fold_of_load(store, project, [session])


# -- a writer that did not fold ----------------------------------------------------------


async def test_directory_catches_up_with_lines_it_did_not_fold(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "root")
    key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[0]}
    await store.append(key, [{"type": "x", "uuid": "a", "customTitle": "one"}])
    transcript = tmp_path / "root" / PROJECT / f"{SESSIONS[0]}.jsonl"
    sidecar = transcript.with_suffix(".summary")
    assert json.loads(sidecar.read_bytes())["offset"] == transcript.stat().st_size
    # Another process of an older version appends (and a torn line before it).
    with transcript.open("ab") as f:
        f.write(b'{"type":"x","customTi')
        f.write(b'\n{"type":"x","uuid":"b","customTitle":"two"}\n')
    await _expect_fold_of_load(store, PROJECT, [SESSIONS[0]])
    assert json.loads(sidecar.read_bytes())["summary"]["data"]["custom_title"] == "two"
    # The summary file of another transcript, a broken one, or none at all: folded again.
    await store.append({**key, "session_id": SESSIONS[1]}, [{"type": "x", "customTitle": "b"}])
    sidecar.write_bytes(transcript.with_name(f"{SESSIONS[1]}.summary").read_bytes())
    await _expect_fold_of_load(store, PROJECT, [SESSIONS[0], SESSIONS[1]])
    record = json.loads(sidecar.read_bytes())
    assert record["summary"]["session_id"] == SESSIONS[0]
    shapes = [
        {**record, "summary": {**record["summary"], "data": []}},
        {**record, "summary": {k: v for k, v in record["summary"].items() if k != "mtime"}},
        {**record, "summary": [record["summary"]]},
        {**record, "offset": "12"},
    ]
    for junk in (b"{", b"[]", b'{"ino": 1}', *(json.dumps(r).encode() for r in shapes)):
        sidecar.write_bytes(junk)
        await _expect_fold_of_load(store, PROJECT, [SESSIONS[0], SESSIONS[1]])
    sidecar.unlink()
    await store.append(key, [{"type": "x", "uuid": "c", "aiTitle": "three"}])
    await _expect_fold_of_load(store, PROJECT, [SESSIONS[0], SESSIONS[1]])
    # A transcript deleted and written again (same size, other bytes) is not mistaken.
    await store.delete(key)
    assert not sidecar.exists()
    await store.append(key, [{"type": "x", "customTitle": "z"}])
    await _expect_fold_of_load(store, PROJECT, [SESSIONS[0], SESSIONS[1]])


async def test_directory_refuses_a_session_id_of_a_summary_file(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    with pytest.raises(OptionsError, match="summary"):
        await store.append({"project_key": PROJECT, "session_id": "x.summary"}, [{"type": "x"}])


async def test_redis_catches_up_with_lines_it_did_not_fold(redis_server: RedisServer) -> None:
    from claude_sdk.stores import RedisStore

    store = RedisStore(redis_server.url, prefix=f"raw{next(_counter)}:")
    try:
        key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[0]}
        await store.append(key, [{"type": "x", "uuid": "a", "customTitle": "one"}])
        # An older version's append: the script alone, no summary.
        lists = f"{len(PROJECT)}:{PROJECT}/{len(SESSIONS[0])}:{SESSIONS[0]}"
        line = b'{"type":"x","uuid":"b","customTitle":"two"}'
        store._append(
            keys=[
                store._key("entries", lists),
                store._key("uuids", lists),
                store._key("sessions", PROJECT),
            ],
            args=["m", SESSIONS[0], "b", line],
        )
        # Not listed until caught up (a reader loads the session), and the listing is right.
        assert await store.list_session_summaries(PROJECT) == []
        assert len(await _expect_same_listing(store, summarized=False)) == 1
        await store.append(key, [{"type": "x", "uuid": "c", "aiTitle": "three"}])
        await _expect_fold_of_load(store, PROJECT, [SESSIONS[0]])
        [summary] = await store.list_session_summaries(PROJECT)
        assert (summary["data"]["custom_title"], summary["data"]["ai_title"]) == ("two", "three")
        # Another client's junk where the summary is: not listed, folded again.
        store.client.hset(store._key("summaries", PROJECT), SESSIONS[0], b"not json")
        assert await store.list_session_summaries(PROJECT) == []
        await store.append(key, [{"type": "x", "uuid": "c2"}])
        await _expect_fold_of_load(store, PROJECT, [SESSIONS[0]])
        # The list replaced behind the summary's back (same length, other lines).
        store.client.delete(store._key("entries", lists))
        store.client.rpush(store._key("entries", lists), b'{"type":"x"}', b'{"type":"y"}')
        store.client.rpush(store._key("entries", lists), b'{"type":"z","customTitle":"four"}')
        assert await store.list_session_summaries(PROJECT) == []
        await store.append(key, [{"type": "x", "uuid": "d"}])
        await _expect_fold_of_load(store, PROJECT, [SESSIONS[0]])
    finally:
        store.client.close()


# ======================================================================================
# StoreHistory: from summaries as from loads


@attrs.define
class OnlyListing:
    """A store without list_session_summaries."""

    inner: Any

    async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
        await self.inner.append(key, entries)

    async def load(self, key: SessionKey) -> list[dict[str, Any]] | None:
        return await self.inner.load(key)  # type: ignore[no-any-return]

    async def list_sessions(self, project_key: str) -> list[Any]:
        return await self.inner.list_sessions(project_key)  # type: ignore[no-any-return]


@attrs.define
class OnlySummaries:
    """A store without list_sessions."""

    inner: Any

    async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
        await self.inner.append(key, entries)

    async def load(self, key: SessionKey) -> list[dict[str, Any]] | None:
        return await self.inner.load(key)  # type: ignore[no-any-return]

    async def list_session_summaries(self, project_key: str) -> list[Any]:
        return await self.inner.list_session_summaries(project_key)  # type: ignore[no-any-return]


@attrs.define
class Unimplemented(OnlyListing):
    """list_session_summaries as a protocol's default: NotImplementedError."""

    async def list_session_summaries(self, project_key: str) -> list[Any]:
        raise NotImplementedError


async def _listing(store: Any) -> list[history.SessionInfo]:
    return await history.in_store(store, project_key=PROJECT).list_sessions()


async def _expect_same_listing(store: Any, *, summarized: bool = True) -> list[history.SessionInfo]:
    """The listing from summaries is the listing from loads, with every kind of store (from
    summaries alone too, when every session has one: without ``list_sessions`` a session
    without a summary cannot be found, as in the official SDK)."""
    slow = await _listing(OnlyListing(store))
    assert await _listing(store) == slow
    assert await _listing(Unimplemented(store)) == slow
    if summarized:
        assert await _listing(OnlySummaries(store)) == slow
    return slow


OPS = st.lists(
    st.tuples(
        st.sampled_from(["main", "main", "main", "sub", "delete"]),
        st.integers(0, len(SESSIONS) - 1),
        st.lists(ENTRY, max_size=6),
    ),
    min_size=1,
    max_size=8,
)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("kind", ["memory", "directory", "redis"])
@settings(
    max_examples=deep(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=OPS)
def test_the_listing_from_summaries_is_the_listing_from_loads(
    kind: str,
    backend: str,
    ops: list[tuple[str, int, list[dict[str, Any]]]],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """Any appends (main and subkeys, overlapping uuids) and deletes, in any store: every
    page of the listing is the same from summaries as from loading each session."""
    store: Any
    if kind == "memory":
        store = MemoryStore()
    elif kind == "directory":
        store = DirectoryStore(tmp_path / f"gen{next(_counter)}")
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        from claude_sdk.stores import RedisStore

        store = RedisStore(server.url, prefix=f"gen{next(_counter)}:")

    async def run() -> None:
        for op, n, entries in ops:
            key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[n]}
            if op == "main":
                await store.append(key, entries)
            elif op == "sub":
                await store.append({**key, "subpath": "subagents/agent-1"}, entries)
            else:
                await store.delete(key)
        listed = await _expect_same_listing(store)
        sessions = history.in_store(store, project_key=PROJECT)
        for limit, offset in ((1, 0), (1, 1), (2, 1)):
            page = await sessions.list_sessions(limit=limit, offset=offset)
            assert page == listed[offset : offset + limit]

    try:
        anyio.run(run, backend=backend)
    finally:
        if kind == "redis":
            store.client.close()


async def test_a_listing_from_summaries_loads_nothing(make_store: Callable[[], Any]) -> None:
    @attrs.define
    class Counted(OnlyListing):
        loads: int = 0

        async def load(self, key: SessionKey) -> list[dict[str, Any]] | None:
            self.loads += 1
            return await self.inner.load(key)  # type: ignore[no-any-return]

        async def list_session_summaries(self, project_key: str) -> list[Any]:
            return await self.inner.list_session_summaries(project_key)  # type: ignore[no-any-return]

    store = Counted(make_store())
    for n, session in enumerate(SESSIONS):
        key: SessionKey = {"project_key": PROJECT, "session_id": session}
        await store.append(key, [{"type": "user", "message": {"content": f"prompt {n}"}}])
    listed = await _listing(store)
    assert [i.first_prompt for i in listed] == ["prompt 2", "prompt 1", "prompt 0"]
    assert store.loads == 0
    assert await _listing(OnlyListing(store)) == listed
    assert store.loads == len(SESSIONS)


async def test_the_real_cli_s_transcripts_list_the_same_from_summaries() -> None:
    store = MemoryStore()
    project = FIXTURE / "-home-user-demo"
    for transcript in sorted(project.glob("*.jsonl")):
        lines = [json.loads(line) for line in transcript.read_text().splitlines() if line]
        key: SessionKey = {"project_key": PROJECT, "session_id": transcript.stem}
        for start in range(0, len(lines), 3):  # as the mirror appends: a few lines at a time
            await store.append(key, lines[start : start + 3])
    listed = await _expect_same_listing(store)
    assert len(listed) == len(list(project.glob("*.jsonl")))


async def test_a_store_with_neither_listing_method_cannot_list() -> None:
    @attrs.define
    class Minimal:
        inner: MemoryStore = attrs.field(factory=MemoryStore)

        async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
            await self.inner.append(key, entries)

        async def load(self, key: SessionKey) -> list[dict[str, Any]] | None:
            return await self.inner.load(key)

    with pytest.raises(OptionsError, match="cannot list sessions"):
        await _listing(Minimal())
    with pytest.raises(OptionsError, match="cannot list sessions"):

        @attrs.define
        class Neither(Minimal):
            async def list_session_summaries(self, project_key: str) -> list[Any]:
                raise NotImplementedError

        await _listing(Neither())


async def test_a_stale_summary_is_not_used() -> None:
    """A summary older than list_sessions says the session is: the session is loaded."""

    @attrs.define
    class Stale(OnlyListing):
        async def list_session_summaries(self, project_key: str) -> list[Any]:
            summaries = await self.inner.list_session_summaries(project_key)
            for summary in summaries:
                summary["mtime"] -= 1
                summary["data"][LISTING_KEY]["scan"]["first_prompt"] = "not what it said"
            return summaries  # type: ignore[no-any-return]

    store = MemoryStore()
    key: SessionKey = {"project_key": PROJECT, "session_id": SESSIONS[0]}
    await store.append(key, [{"type": "user", "message": {"content": "the words"}}])
    [info] = await _listing(Stale(store))
    assert info.first_prompt == "the words"


async def test_store_history_refuses_to_archive() -> None:
    sessions = history.in_store(MemoryStore(), project_key=PROJECT)
    for method in (sessions.archive_session, sessions.unarchive_session):
        with pytest.raises(OptionsError, match="not supported with a session store") as info:
            await method(SESSIONS[0])
        assert info.value.option == "session_store"


# ======================================================================================
# The conformance kit


async def test_the_kit_finds_a_summary_that_folds_skipped_entries() -> None:
    @attrs.define
    class FoldsRawBatches(OnlyListing):
        folded: dict[tuple[str, str], Any] = attrs.field(factory=dict)

        async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
            await self.inner.append(key, entries)
            if "subpath" not in key:
                where = (key["project_key"], key["session_id"])
                self.folded[where] = fold_session_summary(self.folded.get(where), key, entries)
                self.folded[where]["mtime"] = 2 * 10**12

        async def list_session_summaries(self, project_key: str) -> list[Any]:
            return [s for (p, _), s in self.folded.items() if p == project_key]

    with pytest.raises(AssertionError, match="summaries_fold_stored_entries_only") as info:
        await check_session_store(lambda: FoldsRawBatches(MemoryStore()))
    assert "summaries_fold_what_load_gives" not in str(info.value).split("failed:")[1]
    needing = {c.name for c in STORE_CHECKS if "list_session_summaries" in c.needs}
    assert len(needing) == 3


# ======================================================================================
# The official SDK's listing over our stores


async def test_the_official_listing_reads_our_summaries(make_store: Callable[[], Any]) -> None:
    sdk = _official("claude_agent_sdk")
    ours, theirs = make_store(), sdk.InMemorySessionStore()
    directory = "/home/user/demo"
    project = sdk.project_key_for_directory(directory)
    for transcript in sorted((FIXTURE / "-home-user-demo").glob("*.jsonl")):
        lines = [json.loads(line) for line in transcript.read_text().splitlines() if line]
        key = {"project_key": project, "session_id": transcript.stem}
        for start in range(0, len(lines), 4):
            await ours.append(key, lines[start : start + 4])
            await theirs.append(key, lines[start : start + 4])

    def comparable(infos: list[Any]) -> list[dict[str, Any]]:
        # The stores' clocks differ; the official listing gives a file size from loads only.
        return [{**dataclasses.asdict(i), "last_modified": 0, "file_size": 0} for i in infos]

    listed_ours = await sdk.list_sessions_from_store(ours, directory=directory)
    listed_theirs = await sdk.list_sessions_from_store(theirs, directory=directory)
    assert listed_ours
    assert comparable(listed_ours) == comparable(listed_theirs)
    # From summaries, as from loads (our store without the method).
    loads = await sdk.list_sessions_from_store(OnlyListing(ours), directory=directory)
    assert comparable(listed_ours) == comparable(loads)
    assert [i.last_modified for i in listed_ours] == [i.last_modified for i in loads]


async def test_our_listing_of_the_official_store_loads_what_it_cannot_read() -> None:
    sdk = _official("claude_agent_sdk")
    ours, theirs = MemoryStore(), sdk.InMemorySessionStore()
    for n, session in enumerate(SESSIONS):
        entries: list[dict[str, Any]] = [
            {
                "type": "user",
                "timestamp": f"2024-05-0{n + 1}T10:00:00Z",
                "message": {"content": f"p{n}"},
            },
            {"type": "custom-title", "customTitle": f"title {n}"},
        ]
        key: SessionKey = {"project_key": PROJECT, "session_id": session}
        await ours.append(key, entries)
        await theirs.append(key, entries)
    listed = await _listing(theirs)
    assert listed == await _listing(ours)
    assert [i.first_prompt for i in listed] == ["p2", "p1", "p0"]
