"""The shipped session stores: our conformance kit and the official SDK's over each, the
official in-memory store under our kit (interop), and what each store promises beyond it
(files on disk, two processes on one key, a real Redis server, secrets kept out of reprs).
"""

from __future__ import annotations

import importlib
import itertools
import json
import logging
import os
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from claude_sdk.errors import OptionsError, SessionStoreError
from claude_sdk.stores import DirectoryStore, MemoryStore, SessionKey, SessionStore
from claude_sdk.testing.store_conformance import (
    STORE_CHECKS,
    StoreCheck,
    check_session_store,
    has_method,
)
from tests.stores.conftest import RedisServer, redis_missing_reason, skip_or_fail

pytestmark = pytest.mark.anyio

STORE_KINDS = ["memory", "directory", "redis"]
_counter = itertools.count()


def _official(module: str) -> Any:
    """The official SDK's module; a skip without it, a failure under CLAUDE_SDK_REQUIRE_OFFICIAL=1
    (``nox -s interop``)."""
    if os.environ.get("CLAUDE_SDK_REQUIRE_OFFICIAL") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)


@pytest.fixture(params=STORE_KINDS)
def make_store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[], SessionStore]]:
    """A factory of empty stores of one kind (a fresh directory or key prefix each)."""
    kind: str = request.param
    if kind == "memory":
        yield MemoryStore
        return
    if kind == "directory":
        yield lambda: DirectoryStore(tmp_path / "outer" / "root" / str(next(_counter)))
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    from claude_sdk.stores import RedisStore

    client = _redis_client(server)
    try:
        yield lambda: RedisStore(client, prefix=f"test{next(_counter)}:")
    finally:
        client.close()


def _redis_client(server: RedisServer, **kwargs: Any) -> Any:
    import redis

    return redis.Redis(host="127.0.0.1", port=server.port, **kwargs)


# ======================================================================================
# The conformance kits


async def test_every_check_passes(make_store: Callable[[], SessionStore]) -> None:
    report = await check_session_store(make_store)
    assert report.passed == tuple(check.name for check in STORE_CHECKS)
    assert report.skipped == {}


@pytest.mark.parametrize("check", STORE_CHECKS, ids=str)
async def test_check(check: StoreCheck, make_store: Callable[[], SessionStore]) -> None:
    """The pytest-friendly form of the kit: one test per check."""
    store = make_store()
    assert check.missing(store) == []
    await check(store)


async def test_the_official_kit_passes_on_our_stores(
    make_store: Callable[[], SessionStore],
) -> None:
    official = _official("claude_agent_sdk.testing")
    # Every check runs, list_session_summaries' too (each of our stores has it).
    await official.run_session_store_conformance(make_store)


#: The checks of our kit that the official SDK's reference InMemorySessionStore (0.2.188)
#: fails: it keeps no uuid index, an empty append makes an empty transcript, it keys on
#: "project/session/subpath" text (so "p/a"+"b" and "p"+"a"+"b" are one key) and hands out
#: the caller's own dicts.
OFFICIAL_IN_MEMORY_DEVIATIONS = {
    "uuid_dedup_across_batches",
    "uuid_dedup_retried_partial_batch",
    "uuid_dedup_within_batch",
    "concurrent_duplicate_batches_stored_once",
    "empty_append_creates_nothing",
    "similar_keys_do_not_collide",
    "hostile_keys_refused_or_opaque",
    "loaded_data_is_a_copy",
}


async def test_our_kit_on_the_official_in_memory_store() -> None:
    sdk = _official("claude_agent_sdk")
    report = await check_session_store(sdk.InMemorySessionStore, skip=OFFICIAL_IN_MEMORY_DEVIATIONS)
    assert set(report.passed) == {c.name for c in STORE_CHECKS} - OFFICIAL_IN_MEMORY_DEVIATIONS
    for check in STORE_CHECKS:
        if check.name in OFFICIAL_IN_MEMORY_DEVIATIONS:
            with pytest.raises(AssertionError):
                await check(sdk.InMemorySessionStore())


async def test_kit_reports_each_failure_by_name() -> None:
    class Forgetful(MemoryStore):
        """Loses the last entry of every load."""

        async def load(self, key: SessionKey) -> list[dict[str, Any]] | None:
            entries = await super().load(key)
            return entries[:-1] if entries else entries

    with pytest.raises(AssertionError) as info:
        await check_session_store(Forgetful)
    text = str(info.value)
    assert "round_trip_deep_equal:" in text
    assert "appends_keep_order:" in text
    assert "load_unknown_key_returns_none" not in text.split("failed:")[1]


async def test_kit_skips_missing_optional_methods() -> None:
    class Minimal:
        def __init__(self) -> None:
            self._inner = MemoryStore()

        async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
            await self._inner.append(key, entries)

        async def load(self, key: SessionKey) -> list[dict[str, Any]] | None:
            return await self._inner.load(key)

    report = await check_session_store(Minimal)
    needing = {c.name for c in STORE_CHECKS if c.needs}
    assert set(report.skipped) == needing
    assert set(report.passed) == {c.name for c in STORE_CHECKS} - needing
    with pytest.raises(ValueError, match="no such store checks"):
        await check_session_store(Minimal, skip={"no_such_check"})


def test_has_method_counts_a_protocol_default_as_absent() -> None:
    sdk = _official("claude_agent_sdk")

    base: Any = sdk.SessionStore

    class OnlyRequired(base):  # type: ignore[misc]
        async def append(self, key: Any, entries: Any) -> None:
            return None

        async def load(self, key: Any) -> None:
            return None

    store = OnlyRequired()
    assert not has_method(store, "delete")
    assert not has_method(store, "list_sessions")
    assert has_method(sdk.InMemorySessionStore(), "delete")
    assert has_method(MemoryStore(), "list_subkeys")


# ======================================================================================
# DirectoryStore


def _files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file() or p.is_symlink())


async def test_directory_writes_nothing_outside_its_root(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    roots: list[Path] = []

    def make() -> DirectoryStore:
        root = outer / "a" / "root" / str(len(roots))
        roots.append(root)
        return DirectoryStore(root)

    report = await check_session_store(make)
    assert "hostile_keys_refused_or_opaque" in report.passed
    files = _files_under(tmp_path)
    assert files, "the checks wrote no file"
    stray = [f for f in files if not any(f.is_relative_to(root) for root in roots)]
    assert stray == []
    # Nothing but the roots' own directories was made outside them.
    assert sorted(p.name for p in (outer / "a").iterdir()) == ["root"]


async def test_directory_layout_and_modes(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "store")
    main: SessionKey = {"project_key": "-work-app", "session_id": "s1"}
    sub: SessionKey = {**main, "subpath": "subagents/agent-7"}
    await store.append(main, [{"type": "user", "uuid": "u1", "text": "é\nx"}])
    await store.append(sub, [{"type": "assistant", "uuid": "u2"}])
    main_file = tmp_path / "store" / "-work-app" / "s1.jsonl"
    sub_file = tmp_path / "store" / "-work-app" / "s1" / "subagents" / "agent-7.jsonl"
    assert [json.loads(line) for line in main_file.read_text().splitlines()] == [
        {"type": "user", "uuid": "u1", "text": "é\nx"}
    ]
    assert main_file.read_bytes().count(b"\n") == 1  # the newline in the text is escaped
    assert json.loads(sub_file.read_text()) == {"type": "assistant", "uuid": "u2"}
    for file in (main_file, sub_file):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "store" / "-work-app" / "s1").stat().st_mode) == 0o700
    assert repr(store) == f"DirectoryStore({str(tmp_path / 'store')!r}, fsync=False)"


@pytest.mark.parametrize(
    "key",
    [
        {"project_key": "p", "session_id": "s.jsonl"},
        {"project_key": "p", "session_id": "s", "subpath": "a.jsonl/b"},
        {"project_key": "p" * 300, "session_id": "s"},
        {"project_key": "p", "session_id": "s", "subpath": "/".join(["d"] * 65)},
    ],
    ids=["session-suffix", "subdir-suffix", "long-part", "deep-subpath"],
)
async def test_directory_refuses_keys_that_do_not_fit_a_filesystem(
    tmp_path: Path, key: SessionKey
) -> None:
    store = DirectoryStore(tmp_path / "root")
    with pytest.raises(OptionsError):
        await store.append(key, [{"type": "x"}])
    assert not (tmp_path / "root").exists()


async def test_directory_skips_a_torn_line_and_ends_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    key: SessionKey = {"project_key": "p", "session_id": "s"}
    store = DirectoryStore(tmp_path)
    await store.append(key, [{"type": "x", "uuid": "u1"}])
    path = tmp_path / "p" / "s.jsonl"
    with path.open("ab") as file:  # a writer that died mid-line
        file.write(b'{"type": "x", "uuid": "torn", "te')
    assert await store.load(key) == [{"type": "x", "uuid": "u1"}]
    # A fresh store (another process) and the same one both append after the torn line.
    await DirectoryStore(tmp_path).append(key, [{"type": "x", "uuid": "torn"}])
    await store.append(key, [{"type": "x", "uuid": "u2"}, {"type": "x", "uuid": "u1"}])
    with caplog.at_level(logging.WARNING, logger="claude_sdk.stores"):
        loaded = await store.load(key)
    assert loaded == [
        {"type": "x", "uuid": "u1"},
        {"type": "x", "uuid": "torn"},
        {"type": "x", "uuid": "u2"},
    ]
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}:2: skipped a line that is not a JSON object"
    ]


async def test_directory_stores_share_one_root(tmp_path: Path) -> None:
    """Two stores (two processes' worth of caches) on one root: dedup sees each other's
    appends, and a delete by one is seen by the other."""
    one, two = DirectoryStore(tmp_path), DirectoryStore(tmp_path)
    key: SessionKey = {"project_key": "p", "session_id": "s"}
    for i in range(5):
        await one.append(key, [{"type": "x", "uuid": f"u{i}"}])
        await two.append(key, [{"type": "x", "uuid": f"u{i}"}, {"type": "x", "uuid": f"w{i}"}])
    expected = [{"type": "x", "uuid": f"{c}{i}"} for i in range(5) for c in "uw"]
    assert await one.load(key) == expected
    await two.delete(key)
    assert await one.load(key) is None
    await one.append(key, [{"type": "x", "uuid": "u0"}])  # its cache is stale: not used
    assert await two.load(key) == [{"type": "x", "uuid": "u0"}]


_CHILD = textwrap.dedent(
    """
    import sys
    import anyio
    from claude_sdk.stores import DirectoryStore

    root, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    key = {"project_key": "p", "session_id": "shared"}

    async def main() -> None:
        store = DirectoryStore(root)
        for i in range(count):
            await store.append(
                key,
                [
                    {"type": "x", "uuid": f"shared-{i}", "by": "either"},
                    {"type": "x", "uuid": f"{name}-{i}", "by": name},
                    {"type": "x", "by": name, "i": i},
                ],
            )

    sys.stdin.readline()  # start together
    anyio.run(main)
    """
)


def test_directory_two_processes_append_to_one_key(tmp_path: Path) -> None:
    count = 150
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(tmp_path), name, str(count)],
            stdin=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    try:
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        for child in children:
            _, err = child.communicate(timeout=60)
            assert child.returncode == 0, err
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    lines = (tmp_path / "p" / "shared.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""
    entries = [json.loads(line) for line in lines[:-1]]
    uuids = [e["uuid"] for e in entries if "uuid" in e]
    assert len(uuids) == len(set(uuids)) == 3 * count
    assert {f"shared-{i}" for i in range(count)} <= set(uuids)
    for name in ("a", "b"):
        mine = [e["i"] for e in entries if e.get("by") == name and "i" in e]
        assert mine == list(range(count))  # no-uuid entries: all kept, in order
        own = [u for u in uuids if u.startswith(f"{name}-")]
        assert own == [f"{name}-{i}" for i in range(count)]


# ======================================================================================
# RedisStore


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


async def test_redis_from_url_and_decoded_client(redis_server: RedisServer) -> None:
    from claude_sdk.stores import RedisStore

    report = await check_session_store(
        lambda: RedisStore(redis_server.url, prefix=f"url{next(_counter)}:")
    )
    assert report.skipped == {}
    client = _redis_client(redis_server, decode_responses=True)
    try:
        report = await check_session_store(
            lambda: RedisStore(client, prefix=f"dec{next(_counter)}:")
        )
        assert report.skipped == {}
    finally:
        client.close()


async def test_redis_mtime_is_the_server_clock(redis_server: RedisServer) -> None:
    from claude_sdk.stores import RedisStore

    client = _redis_client(redis_server)
    try:
        store = RedisStore(client, prefix=f"time{next(_counter)}:")
        seconds, micros = client.time()
        before = seconds * 1000 + micros // 1000
        await store.append({"project_key": "p", "session_id": "s"}, [{"type": "x"}])
        seconds, micros = client.time()
        after = seconds * 1000 + micros // 1000
        [row] = await store.list_sessions("p")
        assert before <= row["mtime"] <= after
    finally:
        client.close()


async def test_redis_keys_stay_under_the_prefix(redis_server: RedisServer) -> None:
    from claude_sdk.stores import RedisStore

    client = _redis_client(redis_server)
    try:
        prefix = f"pfx{next(_counter)}:"
        store = RedisStore(client, prefix=prefix)
        other = RedisStore(client, prefix=f"other{next(_counter)}:")
        key: SessionKey = {"project_key": "p", "session_id": "s"}
        await store.append(key, [{"type": "x", "uuid": "u"}])
        await store.append({**key, "subpath": "subagents/agent-1"}, [{"type": "x"}])
        names = sorted(k.decode() for k in client.scan_iter(match=f"{prefix}*"))
        assert names == [
            f"{prefix}entries:1:p/1:s",
            f"{prefix}entries:1:p/1:s/subagents/agent-1",
            f"{prefix}sessions:p",
            f"{prefix}subkeys:1:p/1:s",
            f"{prefix}summaries:p",
            f"{prefix}summary-ends:p",
            f"{prefix}uuids:1:p/1:s",
        ]
        assert await other.load(key) is None
        await store.delete(key)
        assert list(client.scan_iter(match=f"{prefix}*")) == []
    finally:
        client.close()


@pytest.fixture
def redis_user(redis_server: RedisServer) -> Iterator[tuple[str, str]]:
    client = _redis_client(redis_server)
    user, password = "store-user", "s3cret-pa55word"
    client.acl_setuser(
        user, enabled=True, passwords=[f"+{password}"], keys=["*"], commands=["+@all"]
    )
    try:
        yield user, password
    finally:
        client.acl_deluser(user)
        client.close()


async def test_redis_password_never_shows(
    redis_server: RedisServer, redis_user: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    from claude_sdk.stores import RedisStore

    user, password = redis_user
    good = RedisStore(
        f"redis://{user}:{password}@127.0.0.1:{redis_server.port}/0", prefix=f"pw{next(_counter)}:"
    )
    bad = RedisStore(f"redis://{user}:wrong-{password}@127.0.0.1:{redis_server.port}/0")
    query = RedisStore(f"redis://127.0.0.1:{redis_server.port}/0?password={password}")
    key: SessionKey = {"project_key": "p", "session_id": "s"}
    try:
        with caplog.at_level(logging.DEBUG):
            await good.append(key, [{"type": "x"}])
            assert await good.load(key) == [{"type": "x"}]
            with pytest.raises(SessionStoreError) as info:
                await bad.load(key)
        assert info.value.retryable
        assert info.value.operation == "load"
        shown = [repr(good), str(good), repr(bad), repr(query), str(info.value), repr(info.value)]
        shown += [r.getMessage() for r in caplog.records]
        assert all(password not in text for text in shown), shown
        where = f"redis://{user}:***@127.0.0.1:{redis_server.port}/0"
        assert repr(good) == f"RedisStore({where!r}, prefix={good._prefix!r})"
        assert "password=***" in repr(query)
    finally:
        for store in (good, bad, query):
            store.client.close()


async def test_redis_unreachable_is_a_session_store_error() -> None:
    if redis_missing_reason() is not None:
        skip_or_fail(str(redis_missing_reason()))
    from claude_sdk.stores import RedisStore
    from tests.support.sshd import free_port

    store = RedisStore(f"redis://127.0.0.1:{free_port()}/0")
    try:
        with pytest.raises(SessionStoreError) as info:
            await store.append({"project_key": "p", "session_id": "s"}, [{"type": "x"}])
        assert info.value.entries == 1
        assert info.value.key == {"project_key": "p", "session_id": "s"}
        assert info.value.retryable
        import redis

        assert isinstance(info.value.__cause__, redis.ConnectionError)
    finally:
        store.client.close()


def test_redis_store_without_redis_py_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from claude_sdk.stores import RedisStore

    monkeypatch.setitem(sys.modules, "redis", None)  # `import redis` raises ImportError
    with pytest.raises(OptionsError, match=r"claude-sdk-py\[redis\]"):
        RedisStore("redis://127.0.0.1:1/0")


def test_redis_store_refuses_what_is_not_a_client() -> None:
    if redis_missing_reason() is not None:
        skip_or_fail(str(redis_missing_reason()))
    from claude_sdk.stores import RedisStore

    with pytest.raises(OptionsError, match=r"redis\.Redis client or a URL"):
        RedisStore(42)  # type: ignore[arg-type]
    with pytest.raises(OptionsError) as info:
        RedisStore("http://user:hunter2@example.invalid/")
    assert "hunter2" not in str(info.value)


# ======================================================================================
# The package


def test_importing_the_stores_imports_no_redis() -> None:
    code = (
        "import sys, claude_sdk.stores as s\n"
        "assert 'redis' not in sys.modules, 'redis imported'\n"
        "assert 'claude_sdk.stores._redis' not in sys.modules\n"
        "assert sorted(s.__all__) == sorted(n for n in dir(s) if n in s.__all__)\n"
        "for name in s.__all__:\n"
        "    if name != 'RedisStore':\n"
        "        getattr(s, name)\n"
        "assert 'redis' not in sys.modules\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_public_names() -> None:
    import claude_sdk.stores as stores

    assert set(stores.__all__) == {
        "SessionStore",
        "SessionKey",
        "SessionListSubkeysKey",
        "SessionStoreEntry",
        "SessionStoreListEntry",
        "SessionSummaryEntry",
        "fold_session_summary",
        "MemoryStore",
        "DirectoryStore",
        "RedisStore",
        "session_id_for",
        "import_session_to_store",
        "ImportedSession",
    }
    assert callable(stores.import_session_to_store)
    assert callable(stores.fold_session_summary)
    with pytest.raises(AttributeError):
        stores.NoSuchStore  # type: ignore[attr-defined]  # noqa: B018
    assert isinstance(MemoryStore(), stores.SessionStore)
    assert isinstance(DirectoryStore(os.devnull), stores.SessionStore)
