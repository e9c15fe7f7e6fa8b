"""The store fault matrix, with the real CLI offline (issue 28, acceptance).

For each fault, the session is then resumed from the store under an empty ``HOME`` (a
machine that never ran it): the model sees every acknowledged turn (a turn whose result
was handed out), or the resume raises a typed error naming what is missing; never a silent
hole.

* **Host SIGKILL mid-turn** (``batched`` and ``eager``; `DirectoryStore`, a real
  redis-server): the host (``fault_host.py``) acknowledged turn one and is killed during a
  turn of tool steps. The resume starts at once (the dead host's lease: the kernel freed the
  ``flock``; Redis: its process is gone from this host) and holds turn one.
* **Redis restarted mid-turn** (down 3 s, AOF on): the lines refused meanwhile are appended
  again when it answers; the store ends whole, ``store_failures`` empty, and the resume holds
  both turns with every tool step.
* **A full disk** (`DirectoryStore` on a small tmpfs, filled mid-turn, freed later): the
  append fails (a line may be torn), the lines are kept and appended again once there is
  room; the resume holds every turn. Left full, ``store_failures`` names what is missing.

Two live attempts on one key: `test_store_remote_e2e.py`; a resume in a fresh container:
``tests/transports/test_container_real.py`` (``nox -s containers``); a killed diskless host
leaves nothing: `test_store_kill_e2e.py`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.stores import DirectoryStore
from claude_sdk.stores._chain import gaps

from ..stores.conftest import redis_missing_reason, skip_or_fail
from ..support.sshd import free_port
from .conftest import E2E
from .test_store_kill_e2e import _lines, _tool_results

pytestmark = pytest.mark.anyio

HOST = Path(__file__).with_name("fault_host.py")
STEPS = 8


class OwnRedis:
    """A redis-server of the test's own, with an append-only file, that can be restarted."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", ""]
        argv += ["--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.directory)]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port)
        try:
            for _ in range(200):
                try:
                    client.ping()
                    return
                except redis.ConnectionError:  # noqa: PERF203 - not ready yet
                    if self.process.poll() is not None:
                        break
                    time.sleep(0.05)
            pytest.fail(f"redis-server did not start on {self.port}")
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    reason = redis_missing_reason()
    if reason is not None:
        skip_or_fail(reason)
    server = OwnRedis(tmp_path / "redis")
    server.directory.mkdir()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _slug(cwd: Path) -> str:
    return history.project_slug(os.path.realpath(cwd))


def _store(kind: str, where: Path, redis: OwnRedis | None) -> Any:
    if kind == "directory":
        return DirectoryStore(where)
    from claude_sdk.stores import RedisStore

    assert redis is not None
    return RedisStore(redis.url, prefix="faults:")


def _script_steps(e2e: E2E) -> None:
    e2e.api.reply("FIRST", when=lambda r: "turn one" in r.last_user_text)
    for k in range(STEPS):
        e2e.api.reply(
            tool_use=("Bash", {"command": f"sleep 0.2; echo step-{k}"}),
            when=lambda r: "turn three" not in json.dumps(r.messages),
        )
    e2e.api.reply("ALL-DONE", when=lambda r: "turn three" not in json.dumps(r.messages))


async def _resume(e2e: E2E, store: Any, key: str, name: str) -> str:
    """Resume ``key`` from ``store`` under an empty HOME; what the model was sent."""
    home = e2e.home.parent / f"resume-{name}"
    home.mkdir()
    e2e.api.reply("RESUMED", when=lambda r: "turn three" in r.last_user_text)
    options = e2e.options(session_store=store, env={"HOME": str(home)})
    async with cs.open_session(options.resume_or_start(key), transport=e2e.transport()) as s:
        await s.send("turn three: what came before?")
        async for message in s.receive_response():
            if isinstance(message, cs.ResultMessage):
                assert message.result == "RESUMED", message
    return json.dumps(e2e.api.main_requests[-1].messages)


# ======================================================================================
# Host SIGKILL mid-turn


@pytest.mark.parametrize("flush", ["batched", "eager"])
@pytest.mark.parametrize("kind", ["directory", "redis"])
async def test_a_host_killed_mid_turn_resumes_with_every_acknowledged_turn(
    e2e: E2E, kind: str, flush: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    redis = request.getfixturevalue("own_redis") if kind == "redis" else None
    where = tmp_path / "store"
    _script_steps(e2e)
    key = f"kill-{kind}-{flush}"
    session_id = cs.session_id_for(key)
    config = {
        "cli": e2e.cli,
        "env": {**e2e.api.env(), "HOME": str(e2e.home)},
        "cwd": str(e2e.cwd),
        "store": redis.url if redis is not None else str(where),
        "prefix": "faults:",
        "flush": flush,
        "key": key,
    }
    own = e2e.home / ".claude" / "projects" / _slug(e2e.cwd) / f"{session_id}.jsonl"
    host = subprocess.Popen(  # noqa: ASYNC220 - a process killed with a signal, not awaited
        [sys.executable, str(HOST), json.dumps(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert host.stdout is not None
        with anyio.fail_after(60):
            acked = await anyio.to_thread.run_sync(host.stdout.readline)
            ready = await anyio.to_thread.run_sync(host.stdout.readline)
        assert acked.split() == ["ACKED", "FIRST"]
        assert ready.strip() == "READY"
        with anyio.fail_after(60):
            # Another process writes the file: there is no event to wait for.
            while _tool_results(_lines(own)) < 3:  # noqa: ASYNC110
                await anyio.sleep(0.005)
        host.send_signal(signal.SIGKILL)
        await anyio.to_thread.run_sync(host.wait, 30)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(30)
        if host.stdout is not None:
            host.stdout.close()
    await anyio.sleep(1.0)  # the watchdog ends the CLI; nothing more reaches the store
    store = _store(kind, where, redis)
    stored = await store.load({"project_key": _slug(e2e.cwd), "session_id": session_id})
    assert stored is not None
    gap: cs.TranscriptGapError | None = None
    try:
        sent = await _resume(e2e, store, key, f"{kind}-{flush}")
    except cs.TranscriptGapError as exc:  # typed, naming what is missing: allowed
        gap = exc
    if gap is not None:
        assert gap.missing
        return
    for text in ("turn one: say FIRST", "FIRST", "turn three"):
        assert text in sent  # every acknowledged turn


# ======================================================================================
# Redis restarted mid-turn


async def test_redis_restarted_mid_turn_catches_up_and_resumes_whole(
    e2e: E2E, own_redis: OwnRedis
) -> None:
    from claude_sdk.stores import RedisStore

    _script_steps(e2e)
    key = "redis-restart"
    session_id = cs.session_id_for(key)
    store = RedisStore(own_redis.url, prefix="faults:")
    own = e2e.home / ".claude" / "projects" / _slug(e2e.cwd) / f"{session_id}.jsonl"
    options = e2e.options(session_store=store, allowed_tools=["Bash"], session_store_flush="eager")
    async with cs.open_session(options.resume_or_start(key), transport=e2e.transport()) as s:
        await s.send("turn one: say FIRST")
        async for _ in s.receive_response():
            pass
        await s.send("turn two: run the steps")
        async with anyio.create_task_group() as tg:

            async def restart() -> None:
                with anyio.fail_after(60):
                    while _tool_results(_lines(own)) < 2:  # noqa: ASYNC110
                        await anyio.sleep(0.01)
                await anyio.to_thread.run_sync(own_redis.stop)
                await anyio.sleep(3)  # down 3 s, mid-turn
                await anyio.to_thread.run_sync(own_redis.start)

            tg.start_soon(restart)
            async for message in s.receive_response():
                if isinstance(message, cs.ResultMessage):
                    assert message.result == "ALL-DONE"
    assert s.store_failures == []  # it caught up (at the latest at close)
    stored = await store.load({"project_key": _slug(e2e.cwd), "session_id": session_id})
    assert stored is not None
    assert gaps(stored, session_id) == []
    written = [e["uuid"] for e in _lines(own) if isinstance(e.get("uuid"), str)]
    assert {e.get("uuid") for e in stored} >= set(written)  # every line the CLI wrote
    sent = await _resume(e2e, store, key, "redis")
    for text in ("turn one", "FIRST", "turn two", *(f"step-{k}" for k in range(STEPS))):
        assert text in sent
    store.client.close()


# ======================================================================================
# A full disk


def _mount_tmpfs(path: Path, size: str) -> None:
    path.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        reason = f"cannot mount a tmpfs here: {done.stderr.strip()}"
        if os.environ.get("CLAUDE_SDK_E2E_NETNS") == "1":
            pytest.fail(reason)  # the e2e namespace has its own mounts: it must work
        pytest.skip(reason)


@pytest.mark.parametrize("freed", [True, False], ids=["freed", "left-full"])
async def test_a_full_disk_mid_turn_is_caught_up_or_named(
    e2e: E2E, tmp_path: Path, freed: bool
) -> None:
    disk = tmp_path / "disk"
    _mount_tmpfs(disk, "16m")
    try:
        store = DirectoryStore(disk / "store")
        _script_steps(e2e)
        key = f"full-disk-{freed}"
        session_id = cs.session_id_for(key)
        own = e2e.home / ".claude" / "projects" / _slug(e2e.cwd) / f"{session_id}.jsonl"
        options = e2e.options(
            session_store=store, allowed_tools=["Bash"], session_store_flush="eager"
        )
        async with cs.open_session(options.resume_or_start(key), transport=e2e.transport()) as s:
            await s.send("turn one: say FIRST")
            async for _ in s.receive_response():
                pass
            await s.send("turn two: run the steps")
            ballast = disk / "ballast"
            ballast.touch()
            used = await anyio.to_thread.run_sync(_used, disk)
            assert used < 8 << 20, f"the store already takes {used} bytes"
            async with anyio.create_task_group() as tg:

                async def fill() -> None:
                    with anyio.fail_after(60):
                        while _tool_results(_lines(own)) < 2:  # noqa: ASYNC110
                            await anyio.sleep(0.01)
                    await anyio.to_thread.run_sync(_fill, ballast)
                    if freed:
                        await anyio.sleep(2)
                        ballast.unlink()

                tg.start_soon(fill)
                async for _ in s.receive_response():
                    pass
            failures = s.store_failures
        stored = await store.load({"project_key": _slug(e2e.cwd), "session_id": session_id})
        assert stored is not None
        written = [e["uuid"] for e in _lines(own) if isinstance(e.get("uuid"), str)]
        have = {e.get("uuid") for e in stored}
        if freed:
            assert failures == []
            assert have >= set(written)
            sent = await _resume(e2e, store, key, "disk")
            for text in ("turn one", "FIRST", "turn two", *(f"step-{k}" for k in range(STEPS))):
                assert text in sent
        else:
            # Never stored: said, by count and key, in the session's store_failures.
            missing = [u for u in written if u not in have]
            assert missing
            assert sum(f.entries for f in failures) >= len(missing)
            assert all(f.key.get("session_id") == session_id for f in failures)
            assert gaps(stored, session_id) == []  # what is stored is a whole prefix
    finally:
        await anyio.to_thread.run_sync(_umount, disk)


def _used(path: Path) -> int:
    stat = os.statvfs(path)
    return (stat.f_blocks - stat.f_bfree) * stat.f_frsize


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], check=False)


def _fill(path: Path) -> None:
    """Fill the filesystem of ``path`` to the last byte."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        for size in (1 << 16, 4096, 1):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:  # noqa: PERF203 - ENOSPC: on to smaller writes
                continue
    finally:
        os.close(fd)
