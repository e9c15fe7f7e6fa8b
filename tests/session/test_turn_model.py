"""Every call gets its own answer: the public API against generated CLI behaviour (issue 26).

A hypothesis strategy draws a conversation: rounds of one to three prompts the host sends
before reading, and what the CLI does with them: answer each, or several queued ones in
one turn; run turns of its own (a background task's notification, a wake-up: results that
name no prompt, or ``[]``) before a prompt's turn, after it, or while the next prompt waits;
repeat an earlier result; write late frames after a result; have the host interrupt with
``cancel_queued``. The same plan drives a `FakeCLI` script (shaped like CLI 2.1.330, which
names the prompts a turn answers) and the host, which reads each prompt's reply with
``receive_response()`` (the next one's, or by uuid), and checks that the reply ends with the
result of *that* prompt (its text), that every other result on the way is marked
``own_turn``, and that a withdrawn prompt raises `PromptWithdrawnError`.

`SessionPool.ask` and ``ask`` get the same treatment, and the sync facade a fixed case.
Every test runs on asyncio and trio; the example count grows in a deep run (``nox -s
deep``).
"""

from __future__ import annotations

import itertools
from typing import Any

import anyio
import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI

from ..support.deep import deep

ORIGINS = [
    {"kind": "task-notification", "producer": "session-task", "runId": "r"},
    {"kind": "scheduled"},
]


@attrs.frozen
class Own:
    """A turn of the CLI's own."""

    origin: int | None  # index in ORIGINS, or None: no origin
    empty: bool  # its result says user_message_uuids: []
    notified: bool  # a background task's task_notification comes first


@attrs.frozen
class Round:
    prompts: int  # sent by the host before it reads
    merged: bool  # the CLI answers them in one turn
    before: tuple[Own, ...]  # own turns before the round's turn(s)
    after: tuple[Own, ...]  # own turns after (they land before the next round's prompts)
    repeat: bool  # the CLI repeats the round's last result
    late: bool  # late frames after the result (prompt suggestion, task updates)
    by_uuid: tuple[bool, ...]  # the host reads prompt i with receive_response(uuid)
    interrupt: bool  # the host interrupts with cancel_queued after sending


owns = st.builds(
    Own,
    origin=st.one_of(st.none(), st.integers(0, len(ORIGINS) - 1)),
    empty=st.booleans(),
    notified=st.booleans(),
)


@st.composite
def rounds(draw: st.DrawFn) -> Round:
    n = draw(st.integers(1, 3))
    interrupt = n > 1 and draw(st.booleans())
    return Round(
        prompts=n,
        merged=not interrupt and n > 1 and draw(st.booleans()),
        before=tuple(draw(st.lists(owns, max_size=2))),
        after=tuple(draw(st.lists(owns, max_size=2))),
        repeat=draw(st.booleans()),
        late=draw(st.booleans()),
        by_uuid=tuple(draw(st.lists(st.booleans(), min_size=n, max_size=n))),
        interrupt=interrupt,
    )


conversations = st.lists(rounds(), min_size=1, max_size=4)


def answer(text: str) -> str:
    return f"answer to {text}"


async def play_own(cli: ScriptedCLI, own: Own, label: str) -> None:
    if own.notified:
        await cli.background_task(f"task {label}", summary=f"{label} done")
    fields: dict[str, Any] = {}
    if own.empty:
        fields["user_message_uuids"] = []
    # Without an origin: a CLI that names prompts names none here, so it is the CLI's own.
    origin = ORIGINS[own.origin] if own.origin is not None else {}
    await cli.own_turn(f"own {label}", origin=origin, **fields)


async def late_frames(cli: ScriptedCLI) -> None:
    await cli.send(
        {
            "type": "prompt_suggestion",
            "suggestion": "and then?",
            "uuid": "late-1",
            "session_id": cli.session_id,
        }
    )
    await cli.state("idle")


def script_for(plan: list[Round]) -> Any:
    counter = itertools.count()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for i, rnd in enumerate(plan):
            if rnd.interrupt:
                # The first prompt runs and is cut short; the interrupt withdraws the rest.
                first = await cli.next_prompt()
                await cli.wait_for_interrupt()
                await cli.abort_turn(partial_text=f"partial {first.text}")
                continue
            last = None
            if rnd.merged:
                taken = [await cli.next_prompt() for _ in range(rnd.prompts)]
                for own in rnd.before:
                    await play_own(cli, own, f"{i}.{next(counter)}")
                last = await cli.turn(text=answer(" + ".join(p.text for p in taken)))
            else:
                for j in range(rnd.prompts):
                    prompt = await cli.next_prompt()
                    if j == 0:
                        for own in rnd.before:
                            await play_own(cli, own, f"{i}.{next(counter)}")
                    last = await cli.turn(text=answer(prompt.text))
            assert last is not None
            if rnd.repeat:
                await cli.result(
                    f"repeat {i}", user_message_uuids=list(last.user_message_uuids or [])
                )
            if rnd.late:
                await late_frames(cli)
            for own in rnd.after:
                await play_own(cli, own, f"{i}.{next(counter)}")
        await cli.serve_until_stdin_closes()

    return script


def check_reply(messages: list[Any], prompt: str, expected: str) -> None:
    """The reply to ``prompt`` ends with its result; every other result on the way is the
    CLI's own, or another prompt's (one an earlier lease left unread)."""
    assert messages, "no messages"
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage), type(result).__name__
    assert result.text == expected, (result.text, expected)
    assert prompt in result.settles
    assert not result.own_turn
    for other in messages[:-1]:
        if isinstance(other, cs.ResultMessage):
            assert other.own_turn or prompt not in other.settles, (other.text, other.settles)
            assert other.own_turn == (other.settles == ())


async def drive(plan: list[Round]) -> None:
    options = cs.Options(shutdown_grace=1.0)
    fake = FakeCLI(script_for(plan))
    async with cs.open_session(options, transport=fake) as session:
        for i, rnd in enumerate(plan):
            texts = [f"r{i}p{j}" for j in range(rnd.prompts)]
            sent = [await session.send(t) for t in texts]
            if rnd.interrupt:
                receipt = await session.interrupt(cancel_queued=True)
                assert receipt.outcome == "effective"
                assert set(receipt.cancelled) == set(sent[1:])
                messages = [m async for m in session.receive_response(sent[0])]
                assert isinstance(messages[-1], cs.ResultMessage)
                assert messages[-1].is_error
                assert sent[0] in messages[-1].settles
                for uid in sent[1:]:  # withdrawn: no reply will come, and the caller hears it
                    with pytest.raises(cs.PromptWithdrawnError) as info:
                        async for _ in session.receive_response(uid):
                            pass
                    assert info.value.prompt_uuid == uid
                continue
            if rnd.merged:
                expected = {uid: answer(" + ".join(texts)) for uid in sent}
            else:
                expected = {uid: answer(t) for uid, t in zip(sent, texts, strict=True)}
            for uid, by_uuid in zip(sent, rnd.by_uuid, strict=True):
                with anyio.fail_after(10):
                    stream = session.receive_response(uid if by_uuid else None)
                    messages = [m async for m in stream]
                check_reply(messages, uid, expected[uid])


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@settings(
    max_examples=deep(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(plan=conversations)
def test_every_receive_response_gets_its_own_prompts_answer(
    backend: str, plan: list[Round]
) -> None:
    anyio.run(drive, plan, backend=backend)


# -- SessionPool.ask and ask -------------------------------------------------------------


@attrs.frozen
class PoolStep:
    before: tuple[Own, ...]
    after: tuple[Own, ...]
    leftover: bool  # a lease before it sent a prompt and left without reading its reply


steps = st.builds(
    PoolStep,
    before=st.lists(owns, max_size=2).map(tuple),
    after=st.lists(owns, max_size=2).map(tuple),
    leftover=st.booleans(),
)


def pool_script(plan: list[PoolStep]) -> Any:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        n = 0
        for k, step in enumerate(plan):
            expected = 2 if step.leftover else 1
            for _ in range(expected):
                prompt = await cli.next_prompt()
                for own in step.before:
                    n += 1
                    await play_own(cli, own, f"p{k}.{n}")
                await cli.turn(text=answer(prompt.text))
            for own in step.after:
                n += 1
                await play_own(cli, own, f"p{k}.{n}")
        await cli.serve_until_stdin_closes()

    return script


async def drive_pool(plan: list[PoolStep]) -> None:
    fake = FakeCLI(pool_script(plan))
    async with cs.SessionPool(cs.Options(shutdown_grace=1.0), transport=fake) as pool:
        for k, step in enumerate(plan):
            if step.leftover:
                async with pool.session("key") as session:
                    await session.send(f"left {k}")  # never read by this lease
            with anyio.fail_after(10):
                reply = await pool.ask("key", f"ask {k}")
            assert reply.text == answer(f"ask {k}")
            check_reply(list(reply.messages), reply.result.settles[0], answer(f"ask {k}"))
            assert all(r.own_turn for r in reply.own_turns)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@settings(
    max_examples=deep(15),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(plan=st.lists(steps, min_size=1, max_size=4))
def test_every_pool_ask_gets_its_own_answer(backend: str, plan: list[PoolStep]) -> None:
    anyio.run(drive_pool, plan, backend=backend)


async def drive_ask(before: tuple[Own, ...], after: tuple[Own, ...], via_query: bool) -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        for n, own in enumerate(before):
            await play_own(cli, own, f"b{n}")
        await cli.turn(text=answer(prompt.text))
        for n, own in enumerate(after):
            await play_own(cli, own, f"a{n}")
        await cli.serve_until_stdin_closes()

    options = cs.Options(shutdown_grace=1.0)
    with anyio.fail_after(10):
        if via_query:
            async with cs.query("x", options=options, transport=FakeCLI(script)) as stream:
                messages = [m async for m in stream]
        else:
            reply = await cs.ask("x", options=options, transport=FakeCLI(script))
            messages = list(reply.messages)
            assert len(reply.own_turns) == len(before)
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.text == answer("x")
    check_reply(messages, result.settles[0], answer("x"))


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@settings(
    max_examples=deep(15),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    before=st.lists(owns, max_size=3).map(tuple),
    after=st.lists(owns, max_size=2).map(tuple),
    via_query=st.booleans(),
)
def test_ask_and_query_return_their_own_answer(
    backend: str, before: tuple[Own, ...], after: tuple[Own, ...], via_query: bool
) -> None:
    anyio.run(drive_ask, before, after, via_query, backend=backend)


async def test_ask_returns_its_own_answer_after_own_turns_before_it() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await cli.own_turn("a wake-up of the CLI's own")
        await cli.turn(text=answer(prompt.text))
        await cli.serve_until_stdin_closes()

    reply = await cs.ask("x", transport=FakeCLI(script))
    assert reply.text == answer("x")
    assert [r.text for r in reply.own_turns] == ["a wake-up of the CLI's own"]


def test_the_sync_facade_waits_for_its_own_prompt() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        first = await cli.next_prompt()
        await cli.turn(text=answer(first.text))
        await cli.background_task("count")
        await cli.own_turn("counted")
        second = await cli.next_prompt()
        await cli.turn(text=answer(second.text))
        await cli.serve_until_stdin_closes()

    with cs.sync.open_session(transport=FakeCLI(script)) as session:
        session.send("first")
        first = list(session.receive_response())[-1]
        assert isinstance(first, cs.ResultMessage)
        assert first.text == answer("first")
        # The CLI's own turn arrives before the next prompt is even sent.
        session.send("second")
        messages = list(session.receive_response())
    assert isinstance(messages[-1], cs.ResultMessage)
    assert messages[-1].text == answer("second")
    assert [m.text for m in messages if isinstance(m, cs.ResultMessage)] == [
        "counted",
        answer("second"),
    ]
