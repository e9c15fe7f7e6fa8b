"""claude_sdk.sync: the blocking facade, from plain code, a thread and a running loop."""

from __future__ import annotations

import inspect
import threading
from typing import Any

import anyio
import pytest

import claude_sdk as cs
import claude_sdk.sync
from claude_sdk.testing import FakeCLI, ScriptedCLI


async def echo(cli: ScriptedCLI) -> None:
    await cli.handshake()
    async for prompt in cli.iter_prompts():
        await cli.turn(text=f"echo: {prompt.text}")


def test_ask_from_plain_code() -> None:
    reply = claude_sdk.sync.ask("hello", transport=FakeCLI(echo))
    assert reply.text == "echo: hello"


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_session_from_plain_code(backend: str) -> None:
    with claude_sdk.sync.open_session(transport=FakeCLI(echo), backend=backend) as session:
        for prompt in ("one", "two"):
            session.send(prompt)
            messages = list(session.receive_response())
            assert isinstance(messages[-1], cs.ResultMessage)
            assert messages[-1].result == f"echo: {prompt}"
        mode = session.set_permission_mode("plan")
        assert mode.mode == "plan"
        receipt = session.interrupt()
        assert receipt.still_queued == []


def test_query_from_plain_code() -> None:
    with claude_sdk.sync.query("hi", transport=FakeCLI(echo)) as messages:
        collected = list(messages)
    assert isinstance(collected[-1], cs.ResultMessage)
    assert collected[-1].result == "echo: hi"


def test_ask_from_a_thread() -> None:
    out: list[Any] = []

    def work() -> None:
        out.append(claude_sdk.sync.ask("from a thread", transport=FakeCLI(echo)).text)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=30)
    assert out == ["echo: from a thread"]


def test_ask_from_inside_a_running_loop() -> None:
    """As in a Jupyter cell: a loop runs in this thread and the sync API is called in it."""

    async def cell() -> str:
        return claude_sdk.sync.ask("in a notebook", transport=FakeCLI(echo)).text

    assert anyio.run(cell) == "echo: in a notebook"


def test_errors_come_through() -> None:
    async def failing(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="API Error: 529", is_error=True, api_error_status=529)

    with pytest.raises(cs.ResultError) as info:
        claude_sdk.sync.ask("hi", transport=FakeCLI(failing))
    assert info.value.kind == "overloaded"


# --------------------------------------------------------------------------------------
# SyncSession mirrors Session: one typed member for each public one (no __getattr__)

#: Members whose blocking form takes or gives another type (iterators, a sync prompt).
OTHER_TYPES = {"send", "receive_messages", "receive_response"}


def _public_members(cls: type) -> dict[str, Any]:
    return {
        name: inspect.getattr_static(cls, name) for name in dir(cls) if not name.startswith("_")
    }


def test_every_public_session_member_has_a_typed_blocking_counterpart() -> None:
    from claude_sdk.session import Session
    from claude_sdk.sync import SyncSession

    assert "__getattr__" not in vars(SyncSession)
    ours = _public_members(SyncSession)
    missing = sorted(set(_public_members(Session)) - set(ours))
    assert missing == [], f"add these to SyncSession: {missing}"
    for name, member in _public_members(Session).items():
        mine = ours[name]
        if isinstance(member, property):
            assert isinstance(mine, property), name
            assert member.fget is not None
            assert mine.fget is not None
            returns = inspect.signature(member.fget).return_annotation
            assert inspect.signature(mine.fget).return_annotation == returns, name
            continue
        assert inspect.isfunction(mine), name
        assert not inspect.iscoroutinefunction(mine), name
        theirs, blocking = inspect.signature(member), inspect.signature(mine)
        if name in OTHER_TYPES:
            assert list(theirs.parameters) == list(blocking.parameters), name
        else:
            assert theirs == blocking, name
        assert mine.__doc__, name


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_typed_methods_and_properties_reach_the_session(backend: str) -> None:
    with claude_sdk.sync.open_session(transport=FakeCLI(echo), backend=backend) as session:
        assert session.closed is False
        assert session.server_info is session.session.server_info
        assert session.options is session.session.options
        assert session.failure is None
        session.send("one")
        list(session.receive_response())
        assert session.session_id == session.session.session_id is not None
        assert session.set_model("claude-sonnet-4-5") is not None
        assert session.control("set_permission_mode", mode="plan") is not None
        session.close()
        session.wait_closed()
        assert session.closed is True
