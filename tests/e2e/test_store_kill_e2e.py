"""What a SIGKILL of the host loses from the store, measured with the real CLI (issue 28,
item 2: "flush on SIGKILL cannot be promised: document exactly what each flush loses").

A host process (``tests/e2e/kill_host.py``) runs one turn of many tool steps with a
`DirectoryStore`; the test waits until the CLI's own transcript holds a given number of tool
results, takes the lines the CLI had written by then, and kills the host with SIGKILL. Lost:
those lines the store does not have. What each flush promises, and what it measured here,
is checked and printed (``docs/guides/stores.md`` gives the figures):

* ``batched`` (the default) stores a turn at its result: a kill mid-turn loses every line of
  the turn in progress (its prompt included). (Turns that ended are in the store before their
  result is handed out: ``tests/session/test_store_session.py``.)
* ``eager`` stores each frame as it comes: a kill loses only the lines still in flight (the
  last frames the CLI wrote before the kill), never an earlier one: the store holds a prefix
  of the CLI's transcript.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

import claude_sdk as cs
from claude_sdk import history

from .conftest import E2E

pytestmark = pytest.mark.anyio

HOST = Path(__file__).with_name("kill_host.py")
STEPS = 14


def _lines(path: Path) -> list[dict[str, Any]]:
    found = []
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    for raw in data.splitlines():
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def _has_transcript(directory: Path) -> bool:
    """Whether the CLI wrote a transcript under ``directory`` (which it changes meanwhile)."""
    try:
        return any(directory.rglob("*.jsonl"))
    except FileNotFoundError:  # a lock file the CLI removed while we looked
        return False


def _tool_results(lines: list[dict[str, Any]]) -> int:
    return sum(
        1
        for e in lines
        if e.get("type") == "user"
        and isinstance(e.get("message", {}).get("content"), list)
        and any(b.get("type") == "tool_result" for b in e["message"]["content"])
    )


async def _kill_after(e2e: E2E, flush: str, steps_done: int, run: int) -> dict[str, Any]:
    for k in range(STEPS):
        e2e.api.reply(tool_use=("Bash", {"command": f"sleep 0.3; echo step-{k}"}))
    e2e.api.reply("ALL-STEPS-DONE")
    key = f"kill-{flush}-{run}"
    session_id = cs.session_id_for(key)
    store = e2e.home.parent / f"store-{flush}-{run}"
    config = {
        "cli": e2e.cli,
        "env": {**e2e.api.env(), "HOME": str(e2e.home)},
        "cwd": str(e2e.cwd),
        "store": str(store),
        "flush": flush,
        "key": key,
    }
    slug = history.project_slug(os.path.realpath(e2e.cwd))  # noqa: ASYNC240 - a test's setup
    own = e2e.home / ".claude" / "projects" / slug / f"{session_id}.jsonl"
    host = subprocess.Popen(  # noqa: ASYNC220 - a process killed with a signal, not awaited
        [sys.executable, str(HOST), json.dumps(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert host.stdout is not None
        # The fake API answers from this event loop: never block it.
        with anyio.fail_after(60):
            ready = await anyio.to_thread.run_sync(host.stdout.readline)
        assert ready.split(" ")[0].strip() == "READY"
        with anyio.fail_after(60):
            # Another process writes the file: there is no event to wait for.
            while _tool_results(_lines(own)) < steps_done:  # noqa: ASYNC110
                await anyio.sleep(0.005)
        written = _lines(own)  # what the CLI had written when the host died
        host.send_signal(signal.SIGKILL)
        await anyio.to_thread.run_sync(host.wait, 30)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(30)
        if host.stdout is not None:
            host.stdout.close()
    await anyio.sleep(1.0)  # the watchdog ends the CLI; nothing more reaches the store
    stored_path = next(store.rglob(f"{session_id}.jsonl"), None)
    stored = _lines(stored_path) if stored_path is not None else []
    stored_ids = {e.get("uuid") for e in stored}
    chain = [e for e in written if isinstance(e.get("uuid"), str)]
    lost = [e for e in chain if e["uuid"] not in stored_ids]
    return {"written": chain, "stored": stored, "lost": lost}


@pytest.mark.parametrize("steps_done", [4, 8])
async def test_batched_loses_the_turn_in_progress_and_no_more(e2e: E2E, steps_done: int) -> None:
    found = await _kill_after(e2e, "batched", steps_done, steps_done)
    chain, lost = found["written"], found["lost"]
    # One turn, cut: nothing of it was stored (the turn is stored at its result).
    assert found["stored"] == []
    assert len(lost) == len(chain)
    print(json.dumps({"flush": "batched", "tool_results": steps_done, "lines": len(chain),
                      "lost": len(lost)}))  # fmt: skip


@pytest.mark.parametrize("steps_done", [4, 8])
async def test_eager_loses_only_the_lines_in_flight(e2e: E2E, steps_done: int) -> None:
    found = await _kill_after(e2e, "eager", steps_done, steps_done)
    chain, lost = found["written"], found["lost"]
    stored_ids = [e.get("uuid") for e in found["stored"] if "uuid" in e]
    # The store holds a prefix of what the CLI wrote: what is lost is the tail.
    prefix = [e["uuid"] for e in chain[: len(chain) - len(lost)]]
    assert [u for u in stored_ids if u in {e["uuid"] for e in chain}] == prefix
    assert len(lost) <= 3, [e.get("type") for e in lost]
    print(json.dumps({"flush": "eager", "tool_results": steps_done, "lines": len(chain),
                      "lost": len(lost)}))  # fmt: skip


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
async def test_a_killed_diskless_host_leaves_nothing(e2e: E2E, how: signal.Signals) -> None:
    """Issue 28, item 5, with the real CLI: the private configuration directory (the
    transcript, the credentials copy) is gone 5 s after the host was killed mid-turn."""
    for k in range(STEPS):
        e2e.api.reply(tool_use=("Bash", {"command": f"sleep 0.3; echo step-{k}"}))
    e2e.api.reply("ALL-STEPS-DONE")
    temp = e2e.home.parent / "tmp"
    temp.mkdir()
    config = {
        "cli": e2e.cli,
        "env": {**e2e.api.env(), "HOME": str(e2e.home)},
        "cwd": str(e2e.cwd),
        "store": str(e2e.home.parent / "store-diskless"),
        "flush": "eager",
        "key": "diskless-kill",
        "diskless": True,
    }
    host = subprocess.Popen(  # noqa: ASYNC220 - a process killed with a signal, not awaited
        [sys.executable, str(HOST), json.dumps(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    try:
        assert host.stdout is not None
        with anyio.fail_after(60):
            ready = await anyio.to_thread.run_sync(host.stdout.readline)
        word, private = ready.split(" ", 1)
        assert word == "READY"
        private_dir = Path(private.strip())
        assert private_dir.parent == temp
        with anyio.fail_after(60):  # the CLI writes its transcript there: mid-turn
            while not _has_transcript(private_dir):  # noqa: ASYNC110
                await anyio.sleep(0.01)
        host.send_signal(how)
        await anyio.to_thread.run_sync(host.wait, 30)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(30)
        if host.stdout is not None:
            host.stdout.close()

    def ours() -> list[Path]:  # the CLI keeps files of its own in TMPDIR too (cc-socks)
        return [p for p in temp.iterdir() if p.name.startswith("claude-sdk-")]

    with anyio.move_on_after(5.0):
        while ours():  # noqa: ASYNC110 - another process removes it
            await anyio.sleep(0.05)
    assert ours() == []
    assert not (e2e.home / ".claude" / "projects").exists()  # nothing went to HOME either
