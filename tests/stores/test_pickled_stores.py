"""Stores travel with `Options` to other processes (Ray, Dask, Temporal payloads)."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk.stores import DirectoryStore, MemoryStore, RedisStore

from .conftest import RedisServer

CHILD = """
import pickle, sys, anyio
options = pickle.loads(sys.stdin.buffer.read())
async def main():
    key = {"project_key": "p", "session_id": cs_id}
    await options.session_store.append(key, [{"type": "user", "uuid": "from-child"}])
import claude_sdk as cs
cs_id = cs.session_id_for("pickled")
anyio.run(main)
"""


def _in_another_process(options: cs.Options) -> None:
    subprocess.run(
        [sys.executable, "-c", CHILD], input=pickle.dumps(options), check=True, timeout=60
    )


async def test_a_directory_store_pickles_as_its_root(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "s", fsync=True)
    _in_another_process(cs.Options(session_store=store))
    key = {"project_key": "p", "session_id": cs.session_id_for("pickled")}
    assert await store.load(key) == [{"type": "user", "uuid": "from-child"}]  # type: ignore[arg-type]
    again = pickle.loads(pickle.dumps(store))
    assert (again.root, again.fsync) == (store.root, True)


async def test_a_redis_store_pickles_as_how_to_connect(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url, prefix="pickle-test:")
    _in_another_process(cs.Options(session_store=store))
    key = {"project_key": "p", "session_id": cs.session_id_for("pickled")}
    assert await store.load(key) == [{"type": "user", "uuid": "from-child"}]  # type: ignore[arg-type]
    assert repr(pickle.loads(pickle.dumps(store))) == repr(store)


def test_a_memory_store_refuses_to_be_copied_to_another_process() -> None:
    with pytest.raises(TypeError, match="DirectoryStore or RedisStore"):
        pickle.dumps(cs.Options(session_store=MemoryStore()))


async def test_the_official_kits_name_and_signature_work_here(tmp_path: Path) -> None:
    from claude_sdk.testing import run_session_store_conformance

    await run_session_store_conformance(MemoryStore)
    await run_session_store_conformance(
        lambda: DirectoryStore(tmp_path / cs.session_id_for(str(id(object())))),
        skip_optional=frozenset({"delete", "list_subkeys"}),
    )

    class Duplicates(MemoryStore):  # keeps every batch, even one that already landed
        async def append(self, key: Any, entries: list[dict[str, Any]]) -> None:
            await super().append(key, [{**e, "uuid": None} for e in entries])

    with pytest.raises(AssertionError, match="uuid"):
        await run_session_store_conformance(Duplicates)
    with pytest.raises(ValueError, match="not optional"):
        await run_session_store_conformance(MemoryStore, skip_optional=frozenset({"load"}))
