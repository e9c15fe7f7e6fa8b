"""claude_sdk.sync: the blocking facade, from plain code, a thread and a running loop."""

from __future__ import annotations

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
