"""Remote CLIs resume from a store, and one live owner per key, with the real CLI (issue 28,
items 3 and 4).

* A session run here (local CLI, ``HOME`` A) and mirrored to a store resumes over SSH under
  another ``HOME`` (the far side's disk has never seen it): the wrapper writes the store's
  transcript where that CLI reads it, and the model sees every earlier turn. It used to
  fail with `SessionNotFoundError`, and with ``resume_or_start`` start a new conversation
  under the same id.
* Two live attempts on one key (MemoryStore, DirectoryStore and a real redis-server): the
  second raises `SessionBusyError` before any CLI starts; after the first closes, the
  second resumes and the store holds one conversation (one chain, no fork).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.stores import DirectoryStore, MemoryStore
from claude_sdk.stores._chain import gaps
from claude_sdk.transports.ssh import SSHTransport

from ..stores.conftest import RedisServer, redis_server  # noqa: F401  (the fixture)
from ..support.sshd import SSHServer, serve_for_tests
from .conftest import E2E

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SSHServer]:
    yield from serve_for_tests(tmp_path_factory.mktemp("sshd"))


async def _turn(session: cs.Session, prompt: str) -> str:
    await session.send(prompt)
    result = None
    async for message in session.receive_response():
        if isinstance(message, cs.ResultMessage):
            result = message
    assert result is not None
    assert not result.is_error, result
    return result.result or ""


def _slug(cwd: Path) -> str:
    return history.project_slug(os.path.realpath(cwd))


@pytest.mark.parametrize("start", ["resume", "resume_or_start"])
async def test_a_session_resumes_over_ssh_from_the_store(
    e2e: E2E, sshd: SSHServer, start: str
) -> None:
    store = MemoryStore()
    key = f"remote-{start}"
    e2e.api.reply(tool_use=("Bash", {"command": "echo hello-from-here"}))
    e2e.api.reply("FIRST-DONE")
    options = e2e.options(session_store=store, allowed_tools=["Bash"]).resume_or_start(key)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        assert await _turn(session, "turn one: run echo") == "FIRST-DONE"
    session_id = cs.session_id_for(key)

    # The far side: its CLI's configuration directory is set there (by the Python that runs
    # the wrapper), so nothing this side writes reaches it: another machine's disk.
    far_config = e2e.home.parent / f"far-config-{start}"
    far_config.mkdir()
    far_python = e2e.home.parent / f"far-python-{start}"
    far_python.write_text(f'#!/bin/sh\nCLAUDE_CONFIG_DIR={far_config} exec {sys.executable} "$@"\n')
    far_python.chmod(0o755)
    ssh = SSHTransport(sshd.host, **sshd.transport_kwargs(remote_python=str(far_python)))
    e2e.api.reply("SECOND-DONE")
    far = e2e.options(session_store=store)
    far = far.resume_or_start(key) if start == "resume_or_start" else _resume(far, session_id)
    async with cs.open_session(far, transport=ssh) as session:
        assert await _turn(session, "turn two: what did you run?") == "SECOND-DONE"
        assert session.session_id == session_id
    sent = json.dumps(e2e.api.main_requests[-1].messages)
    for text in ("turn one: run echo", "hello-from-here", "FIRST-DONE", "turn two"):
        assert text in sent  # the model saw the whole conversation
    written = far_config / "projects" / _slug(e2e.cwd) / f"{session_id}.jsonl"
    assert written.is_file()  # where the far CLI reads it (its HOME, its cwd's slug)
    assert oct(written.stat().st_mode & 0o777) == "0o600"
    stored = await store.load({"project_key": _slug(e2e.cwd), "session_id": session_id})
    assert stored is not None
    assert gaps(stored, session_id) == []  # one conversation, the far turn appended to it
    prompts = [
        e["message"]["content"]
        for e in stored
        if e.get("type") == "user" and isinstance(e.get("message", {}).get("content"), str)
    ]
    assert prompts == ["turn one: run echo", "turn two: what did you run?"]


def _resume(options: cs.Options, session_id: str) -> cs.Options:
    import attrs

    return attrs.evolve(options, resume=session_id)


@pytest.mark.parametrize("kind", ["memory", "directory", "redis"])
async def test_two_live_attempts_on_one_key(
    e2e: E2E, kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store: Any
    if kind == "memory":
        store = MemoryStore()
    elif kind == "directory":
        store = DirectoryStore(tmp_path / "store")
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        from claude_sdk.stores import RedisStore

        store = RedisStore(server.url, prefix="e2e-busy:")
    key = f"busy-{kind}"
    e2e.api.reply("ONE")
    e2e.api.reply("TWO")
    options = e2e.options(session_store=store).resume_or_start(key)
    async with cs.open_session(options, transport=e2e.transport()) as first:
        assert await _turn(first, "first owner, turn one") == "ONE"
        requests = len(e2e.api.main_requests)
        other_home = e2e.home.parent / f"other-{kind}"
        other_home.mkdir()
        second = e2e.options(session_store=store, env={"HOME": str(other_home)})
        with pytest.raises(cs.SessionBusyError) as caught:
            async with cs.open_session(second.resume_or_start(key), transport=e2e.transport()):
                pass
        assert caught.value.retryable
        assert caught.value.session_id == cs.session_id_for(key)
        assert len(e2e.api.main_requests) == requests  # no second CLI asked the model
        assert await _turn(first, "first owner, turn two") == "TWO"
    # The first owner closed: the second resumes its whole conversation.
    e2e.api.reply("THREE")
    async with cs.open_session(second.resume_or_start(key), transport=e2e.transport()) as s:
        assert await _turn(s, "second owner") == "THREE"
    sent = json.dumps(e2e.api.main_requests[-1].messages)
    for text in ("turn one", "ONE", "turn two", "TWO", "second owner"):
        assert text in sent
    session_id = cs.session_id_for(key)
    stored = await store.load({"project_key": _slug(e2e.cwd), "session_id": session_id})
    assert stored is not None
    assert gaps(stored, session_id) == []
    if kind == "redis":
        store.client.close()
