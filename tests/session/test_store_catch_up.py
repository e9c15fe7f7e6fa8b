"""The store catches up (issue 28, item 2), through FakeCLI on asyncio and trio.

Lines whose append failed are kept and appended again when the store answers: before any
later line of the same transcript (the store's order is the CLI's), with no line stored
twice, at the next turn, while the session waits, or at the latest when it closes;
``session.store_failures`` says what is still missing and is empty once the store has
caught up. A store that was down mid-turn (what a Redis restart did: lines lost from the
middle of a turn, and a resume elsewhere with a hole) ends whole, and resumes whole.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.stores import MemoryStore, SessionKey
from claude_sdk.stores._chain import gaps
from claude_sdk.testing import FakeCLI, ScriptedCLI

CWD = "/work/catch-up"
SLUG = history.project_slug(CWD)


class SwitchStore(MemoryStore):
    """A store that refuses every append while ``down``; counts what it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False
        self.refused = 0
        self.appended: list[str] = []  # uuids, in the order they were stored
        self.took = anyio.Event()  # set at each append it takes

    async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
        if self.down:
            self.refused += 1
            raise ConnectionError("the store is restarting")
        before = {e.get("uuid") for e in await self.load(key) or []}
        await super().append(key, entries)
        self.appended += [e["uuid"] for e in entries if e["uuid"] not in before]
        self.took.set()
        self.took = anyio.Event()


def _chain(session_id: str, start: int, count: int) -> list[dict[str, Any]]:
    return [
        {
            "type": ("user", "assistant")[n % 2],
            "uuid": f"20000000-0000-4000-8000-{n:012d}",
            "parentUuid": f"20000000-0000-4000-8000-{n - 1:012d}" if n else None,
            "sessionId": session_id,
        }
        for n in range(start, start + count)
    ]


def _options(tmp_path: Path, store: Any) -> cs.Options:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return cs.Options(cwd=CWD, env={"HOME": str(home)}, session_store=store)


async def _mirror(cli: ScriptedCLI, entries: list[dict[str, Any]]) -> None:
    cli.mirror_turns = False
    home = cli.env.get("HOME", "/home/fake")
    path = f"{home}/.claude/projects/{SLUG}/{cli.session_id}.jsonl"
    await cli.send({"type": "transcript_mirror", "filePath": path, "entries": entries})


async def _ask(session: cs.Session, prompt: str) -> None:
    await session.send(prompt)
    async for _ in session.receive_response():
        pass


async def test_lines_refused_mid_turn_are_stored_in_order_when_the_store_answers(
    tmp_path: Path,
) -> None:
    store = SwitchStore()
    per_frame = 3

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        n = 0
        for _turn in range(3):
            await cli.next_prompt()
            for _frame in range(3):  # a turn's lines come in several frames
                await _mirror(cli, _chain(cli.session_id, n, per_frame))
                n += per_frame
            await cli.turn(text="ok")

    fake = FakeCLI(script)
    async with cs.open_session(_options(tmp_path, store), transport=fake) as session:
        await _ask(session, "one")
        store.down = True  # the store restarts during turn two
        await _ask(session, "two")
        missing = session.store_failures
        assert [(f.entries, f.retryable) for f in missing] == [(9, True)]
        store.down = False
        await _ask(session, "three")  # the next flush takes the backlog first
        assert session.store_failures == []
    session_id = fake.cli.session_id
    expected = [e["uuid"] for e in _chain(session_id, 0, 27)]
    assert store.appended == expected  # every line once, in the CLI's order
    stored = await store.load({"project_key": SLUG, "session_id": session_id})
    assert stored is not None
    assert gaps(stored, session_id) == []
    assert store.refused >= 1


async def test_a_waiting_session_catches_up_without_a_new_turn(tmp_path: Path) -> None:
    store = SwitchStore()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await _mirror(cli, _chain(cli.session_id, 0, 4))
        await cli.turn(text="ok")
        await cli.serve_until_stdin_closes()

    async with cs.open_session(_options(tmp_path, store), transport=FakeCLI(script)) as session:
        store.down = True
        await _ask(session, "one")
        assert [f.entries for f in session.store_failures] == [4]
        took = store.took
        store.down = False
        with anyio.fail_after(30):  # the retry timer (1 s, then longer), not a turn
            await took.wait()
        assert session.store_failures == []
    assert len(store.appended) == 4


async def test_the_close_catches_up_at_the_latest(tmp_path: Path) -> None:
    store = SwitchStore()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await _mirror(cli, _chain(cli.session_id, 0, 6))
        await cli.turn(text="ok")
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    async with cs.open_session(_options(tmp_path, store), transport=fake) as session:
        store.down = True
        await _ask(session, "one")
        assert [f.entries for f in session.store_failures] == [6]

        async def back_soon() -> None:
            await anyio.sleep(0.3)
            store.down = False

        async with anyio.create_task_group() as tg:
            tg.start_soon(back_soon)
    # Leaving the block: the close appends the backlog again until the store answers.
    assert session.store_failures == []
    assert store.appended == [e["uuid"] for e in _chain(fake.cli.session_id, 0, 6)]


async def test_what_the_store_never_took_stays_in_store_failures(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SwitchStore()
    store.down = True

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await _mirror(cli, _chain(cli.session_id, 0, 2))
        await cli.turn(text="ok")

    async with cs.open_session(_options(tmp_path, store), transport=FakeCLI(script)) as session:
        await _ask(session, "one")
    (failure,) = session.store_failures
    assert failure.entries == 2
    assert any("never stored" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@settings(max_examples=6, deadline=None)
@given(downs=st.lists(st.booleans(), min_size=2, max_size=4))
def test_any_pattern_of_outages_ends_with_every_line_once_in_order(
    backend: str, downs: list[bool]
) -> None:
    """The store is down during the turns ``downs`` says; it is up at the close."""

    async def main() -> None:
        store = SwitchStore()
        per_turn = 4

        async def script(cli: ScriptedCLI) -> None:
            await cli.handshake()
            for turn in range(len(downs)):
                await cli.next_prompt()
                await _mirror(cli, _chain(cli.session_id, turn * per_turn, per_turn))
                await cli.turn(text="ok")

        fake = FakeCLI(script)
        with tempfile.TemporaryDirectory() as where:
            async with cs.open_session(_options(Path(where), store), transport=fake) as session:
                for down in downs:
                    store.down = down
                    await _ask(session, "next")
                store.down = False
            assert session.store_failures == []
        expected = [e["uuid"] for e in _chain(fake.cli.session_id, 0, per_turn * len(downs))]
        assert store.appended == expected

    anyio.run(main, backend=backend)
