"""SessionPool: bounded CLIs, keyed get-or-create, warm reuse, eviction, nothing left."""

from __future__ import annotations

import random

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.pool import SessionPool
from claude_sdk.testing import FakeCLI, ScriptedCLI


class Counter:
    def __init__(self) -> None:
        self.running = 0
        self.peak = 0
        self.started = 0
        self.ended = 0

    def fake(self) -> FakeCLI:
        async def script(cli: ScriptedCLI) -> None:
            self.running += 1
            self.started += 1
            self.peak = max(self.peak, self.running)
            try:
                await cli.handshake()
                async for prompt in cli.iter_prompts():
                    await anyio.sleep(random.uniform(0, 0.005))
                    await cli.turn(text=f"{prompt.text} done")
            finally:
                self.running -= 1
                self.ended += 1

        return FakeCLI(script)


async def test_a_pool_of_4_over_20_keyed_tasks() -> None:
    counter = Counter()
    transport = counter.fake()
    answers: dict[str, list[str]] = {}
    async with SessionPool(max_sessions=4, transport=[transport]) as pool:

        async def task(i: int) -> None:
            key = f"customer-{i % 8}"
            reply = await pool.ask(key, f"task {i}")
            answers.setdefault(key, []).append(reply.text)

        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(task, i)
        stats = pool.stats
        assert stats.peak <= 4
        assert stats.reused > 0
        assert stats.leased == 0
    assert counter.peak <= 4  # never more than 4 CLIs at once
    assert counter.running == 0  # none left behind
    assert counter.started == counter.ended
    assert sum(len(v) for v in answers.values()) == 20
    assert all(t.endswith("done") for v in answers.values() for t in v)


async def test_the_same_key_reuses_its_session_and_is_single_flight() -> None:
    counter = Counter()
    async with SessionPool(max_sessions=2, transport=[counter.fake()]) as pool:
        async with pool.session("k") as first:
            sid = id(first)
        async with pool.session("k") as again:
            assert id(again) == sid
        order: list[str] = []

        async def use(name: str) -> None:
            async with pool.session("k"):
                order.append(f"{name} in")
                await anyio.sleep(0.01)
                order.append(f"{name} out")

        async with anyio.create_task_group() as tg:
            tg.start_soon(use, "a")
            tg.start_soon(use, "b")
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])
    assert counter.started == 1


async def test_prewarmed_sessions_are_ready_before_the_prompt() -> None:
    counter = Counter()
    async with SessionPool(max_sessions=3, prewarm=2, transport=[counter.fake()]) as pool:
        with anyio.fail_after(5):
            await pool.wait_until(lambda p: p.warm == 2)
        reply = await pool.ask("new", "hi")
        assert reply.text == "hi done"
        assert pool.stats.prewarmed_used == 1
    assert counter.running == 0


async def test_idle_sessions_expire() -> None:
    counter = Counter()
    async with SessionPool(max_sessions=2, idle_timeout=0.1, transport=[counter.fake()]) as pool:
        await pool.ask("a", "hi")
        with anyio.fail_after(5):
            await pool.wait_until(lambda p: p.stats.expired == 1 and p.stats.running == 0)
    assert counter.running == 0


async def test_sessions_spread_over_transports() -> None:
    one, two = Counter(), Counter()
    async with SessionPool(max_sessions=4, transport=[one.fake(), two.fake()]) as pool:
        for key in "abcd":
            await pool.ask(key, "x")
    assert one.started == 2
    assert two.started == 2


async def test_a_failed_cli_is_dropped_and_restarted() -> None:
    calls = 0

    async def script(cli: ScriptedCLI) -> None:
        nonlocal calls
        calls += 1
        await cli.handshake()
        await cli.next_prompt()
        if calls == 1:
            await cli.exit(3, stderr="boom\n")
            return
        await cli.turn(text="second life")

    async with SessionPool(max_sessions=1, transport=[FakeCLI(script)]) as pool:
        with pytest.raises(cs.ProcessError):
            await pool.ask("k", "first")
        reply = await pool.ask("k", "again")
        assert reply.text == "second life"
        assert pool.stats.failed >= 1


async def test_transport_takes_one_transport_like_open_session() -> None:
    fake = FakeCLI(replies=["one", "two"])
    async with SessionPool(max_sessions=1, transport=fake) as pool:
        assert (await pool.ask("k", "a")).text == "one"
        assert (await pool.ask("k", "b")).text == "two"
    assert len(fake.clis) == 1


async def test_the_former_transports_name_still_works_with_a_deprecation() -> None:
    fake = FakeCLI(replies=["hi"])
    with pytest.warns(DeprecationWarning, match=r"transport=\[") as caught:
        pool = SessionPool(transports=[fake])
    assert caught[0].filename == __file__
    async with pool:
        assert (await pool.ask("k", "a")).text == "hi"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"transport": []}, "at least one"),
        ({"transport": "local"}, "not str"),
        ({"transport": [object()]}, "object is not a Transport"),
        ({"transport": FakeCLI(), "transports": [FakeCLI()]}, "not both"),
        ({"max_sessions": 0}, "max_sessions"),
        ({"max_sessions": 1, "prewarm": 2}, "prewarm"),
    ],
)
def test_bad_pool_arguments_are_options_errors(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(cs.OptionsError, match=match):
        SessionPool(**kwargs)  # type: ignore[arg-type]
