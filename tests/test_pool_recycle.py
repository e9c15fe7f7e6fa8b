"""A pooled CLI that grows is recycled between turns and its key resumes the session
(issue 31, item 1). The real CLI: ``tests/e2e/test_pool_recycle_e2e.py``."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.pool import resident_mib
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.testing.stdio import write_fake_cli

pytestmark = pytest.mark.anyio


def _flag(argv: tuple[str, ...], name: str) -> str | None:
    for arg in argv:
        if arg.startswith(f"{name}="):
            return arg.split("=", 1)[1]
    return None


async def test_a_cli_past_max_turns_is_replaced_and_its_key_resumes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = FakeCLI(replies=["one", "two", "three", "four"])
    recycle = cs.PoolRecycle(max_turns=2)
    with caplog.at_level(logging.INFO, logger="claude_sdk.pool"):
        async with cs.SessionPool(transport=fake, recycle=recycle) as pool:
            texts = [(await pool.ask("k", f"prompt {n}")).text for n in range(3)]
            first_id = fake.clis[0].session_id
    assert texts == ["one", "two", "one"]  # the third prompt went to a fresh CLI
    assert len(fake.clis) == 2
    assert _flag(fake.clis[0].argv, "--resume") is None
    assert _flag(fake.clis[1].argv, "--resume") == first_id  # same conversation
    assert pool.stats.recycled == 1
    assert fake.clis[0].exited  # ended, not leaked
    [record] = [r for r in caplog.records if "recycled the CLI" in r.getMessage()]
    assert "2 turns (max_turns=2)" in record.getMessage()


async def test_never_mid_turn() -> None:
    """A lease that leaves its prompt unanswered is not recycled, whatever the limits."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        if cli.index == 0:
            await cli.turn("first")
        else:
            await cli.next_prompt()  # "three" comes while "two" is unanswered
            await cli.turn("second")
            await cli.turn("third")
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    async with cs.SessionPool(transport=fake, recycle=cs.PoolRecycle(max_turns=1)) as pool:
        await pool.ask("k", "one")  # turn 1 answered: recycled here
        async with pool.session("k") as session:
            await session.send("two")  # left unread: the lease ends mid-turn
        async with pool.session("k") as session:
            await session.send("three")
            [m async for m in session.receive_response()]
            [m async for m in session.receive_response()]
    assert pool.stats.recycled == 2  # after the first turn, and after the last
    assert len(fake.clis) == 2  # the mid-turn lease kept its CLI


async def test_waiting_leases_take_the_new_cli() -> None:
    fake = FakeCLI(replies=["a", "b", "c", "d"])
    async with cs.SessionPool(transport=fake, recycle=cs.PoolRecycle(max_turns=1)) as pool:
        replies: list[str] = []

        async def one(n: int) -> None:
            replies.append((await pool.ask("k", f"p{n}")).text)

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                for n in range(3):
                    tg.start_soon(one, n)
    assert sorted(replies) == ["a", "a", "a"]  # each turn on a fresh CLI
    assert pool.stats.recycled == 3


async def test_resident_memory_of_a_real_process(tmp_path: Path) -> None:
    assert resident_mib(os.getpid()) is not None
    assert resident_mib(None) is None
    assert resident_mib(2**22 + 12345) is None  # no such process
    cli = write_fake_cli(tmp_path / "claude", replies=["one", "two"])
    recycle = cs.PoolRecycle(max_rss_mb=0.5)  # any live process is over it
    options = cs.Options(cli_path=str(cli))
    async with cs.SessionPool(options, recycle=recycle) as pool:
        await pool.ask("k", "hi")
    assert pool.stats.recycled == 1


def test_recycle_limits_are_checked() -> None:
    for bad in ({"max_turns": 0}, {"max_turns": 1.5}, {"max_rss_mb": -1}, {"max_turns": True}):
        with pytest.raises(cs.OptionsError):
            cs.PoolRecycle(**bad)
    with pytest.raises(cs.OptionsError, match="PoolRecycle"):
        cs.SessionPool(recycle={"max_turns": 3})  # type: ignore[arg-type]
    assert sys.platform  # the RSS check reads /proc (Linux)
