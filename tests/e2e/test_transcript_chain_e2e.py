"""A resume is whole or fails loudly, with the real CLI (issue 28, item 1).

The oracle is the CLI's own transcript: a session of several turns with tool calls, written
by the real CLI and mirrored to a store, has no gap by `claude_sdk.stores._chain.gaps`
(neither the CLI's file nor the store's copy: the rule raises nothing on what the CLI really
writes). Then the store loses lines from the middle of a turn (what a Redis restart did): a
resume under an empty ``HOME`` fails with `TranscriptGapError` before the CLI starts (the
Messages API sees no new request), and the same resume where the CLI's own copy is repairs
the gap, and the model sees every turn.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.stores import MemoryStore
from claude_sdk.stores._chain import gaps

from .conftest import E2E

pytestmark = pytest.mark.anyio

KEY = "chain-e2e"


async def _turn(session: cs.Session, prompt: str) -> None:
    await session.send(prompt)
    async for message in session.receive_response():
        if isinstance(message, cs.ResultMessage):
            assert not message.is_error, message


def _slug(cwd: Path) -> str:
    return history.project_slug(os.path.realpath(cwd))


class Lossy(MemoryStore):
    """A store whose ``load`` lost some lines (``lost``: their uuids)."""

    def __init__(self) -> None:
        super().__init__()
        self.lost: set[str] = set()

    async def load(self, key: Any) -> Any:
        entries = await super().load(key)
        if entries is None:
            return None
        return [e for e in entries if e.get("uuid") not in self.lost]


async def _three_turns(e2e: E2E, store: MemoryStore) -> list[dict[str, Any]]:
    e2e.api.reply(tool_use=("Bash", {"command": "echo one"}))
    e2e.api.reply("FIRST-DONE")
    e2e.api.reply(tool_use=("Bash", {"command": "echo two"}))
    e2e.api.reply("SECOND-DONE")
    e2e.api.reply("THIRD-DONE")
    options = e2e.options(session_store=store, allowed_tools=["Bash"])
    async with cs.open_session(options.resume_or_start(KEY), transport=e2e.transport()) as s:
        await _turn(s, "turn one: run echo one")
        await _turn(s, "turn two: run echo two")
        await _turn(s, "turn three: say done")
    session_id = cs.session_id_for(KEY)
    stored = await store.load({"project_key": _slug(e2e.cwd), "session_id": session_id})
    assert stored is not None
    return stored


async def test_what_the_cli_writes_has_no_gap(e2e: E2E) -> None:
    store = MemoryStore()
    stored = await _three_turns(e2e, store)
    session_id = cs.session_id_for(KEY)
    own = e2e.home / ".claude" / "projects" / _slug(e2e.cwd) / f"{session_id}.jsonl"
    written = [json.loads(line) for line in own.read_text().splitlines()]
    chained = [e for e in written if isinstance(e.get("uuid"), str)]
    assert len(chained) >= 10  # prompts, tool calls, tool results, answers, bookkeeping
    assert gaps(written, session_id) == []
    assert gaps(stored, session_id) == []
    # ... and losing any line another line follows is found.
    parents = {e.get("parentUuid") for e in chained}
    for lost in (e for e in chained if e["uuid"] in parents):
        rest = [e for e in stored if e.get("uuid") != lost["uuid"]]
        assert {g.missing for g in gaps(rest, session_id)} == {lost["uuid"]}


async def test_a_store_that_lost_lines_fails_the_resume_and_the_cli_s_copy_repairs_it(
    e2e: E2E,
) -> None:
    store = Lossy()
    stored = await _three_turns(e2e, store)
    # Lose the middle of turn two: its tool call and the tool's result.
    tool_calls = [
        e
        for e in stored
        if e.get("type") == "assistant"
        and any(b.get("type") == "tool_use" for b in e["message"]["content"])
    ]
    second = tool_calls[1]
    result = next(e for e in stored if e.get("parentUuid") == second["uuid"])
    store.lost = {second["uuid"], result["uuid"]}
    requests = len(e2e.api.main_requests)

    other_home = e2e.home.parent / "home-empty"
    other_home.mkdir()
    options = e2e.options(session_store=store, env={"HOME": str(other_home)})
    with pytest.raises(cs.TranscriptGapError) as caught:
        async with cs.open_session(options.resume_or_start(KEY), transport=e2e.transport()):
            pass
    assert caught.value.missing == (result["uuid"],)  # what the next line follows
    assert caught.value.retryable
    assert len(e2e.api.main_requests) == requests  # the CLI never asked the model
    assert not (other_home / ".claude" / "projects").exists()

    # Where the CLI's own copy is (the first HOME), the gap is filled from it.
    e2e.api.reply("FOURTH-DONE")
    async with cs.open_session(
        e2e.options(session_store=store).resume_or_start(KEY), transport=e2e.transport()
    ) as s:
        await _turn(s, "turn four: what did you run?")
    sent = json.dumps(e2e.api.main_requests[-1].messages)
    for text in ("echo one", "echo two", "FIRST-DONE", "SECOND-DONE", "THIRD-DONE", "turn four"):
        assert text in sent
