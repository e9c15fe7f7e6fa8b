"""`ConnectionWrapper` forwards the whole `Connection` contract (issue 14).

A wrapper that recorded lines but forgot ``shutdown_deadline`` made the session's one-grace
shutdown wait the grace twice; the base class forwards every member, and this test fails
when the contract grows a member the wrapper does not forward.
"""

from __future__ import annotations

import inspect
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.testing.cassette import RecordingTransport
from claude_sdk.transports import memory as memory_transport
from claude_sdk.transports.base import Connection, ConnectionWrapper


def test_the_wrapper_forwards_every_member_of_the_contract() -> None:
    members = {name for name, _ in inspect.getmembers(Connection) if not name.startswith("_")}
    own = {name for name in members if name in vars(ConnectionWrapper)}
    assert members - {"receive"} == own - {"inner"}  # receive() is built on receive_lines()


async def test_a_recorded_session_leaves_a_hung_turn_within_one_grace(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the cassette recorder (a wrapper), a normal exit mid-turn of a CLI that never
    finishes takes the grace once: the deadline reaches the wrapped connection.

    Read from what the code computed, not from a clock's measure: the in-memory transport's
    teardown (`graceful_end`) must see the session's deadline and give no fresh grace."""
    teardowns: list[tuple[float, float | None, float]] = []  # (began, deadline, end)
    module: Any = memory_transport  # graceful_end is imported there, not exported
    real = module.graceful_end

    def graceful_end(grace: float, deadline: float | None) -> float:
        end: float = real(grace, deadline)
        teardowns.append((anyio.current_time(), deadline, end))
        return end

    monkeypatch.setattr(module, "graceful_end", graceful_end)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.hang()

    path = f"{tmp_path}/hung.jsonl"
    transport = RecordingTransport(FakeCLI(script), path)
    grace = 1.0
    options = cs.Options(shutdown_grace=grace)
    async with cs.open_session(options, transport=transport) as session:
        await session.send("hi")
        left = anyio.current_time()
    # once, not twice (which rule, not how fast)
    ((began, deadline, end),) = teardowns
    assert deadline is not None  # the session's deadline went through the wrapper
    assert deadline >= left + grace  # one whole grace, counted from leaving
    assert began >= deadline  # spent (waiting for the CLI) before the teardown began
    assert end == deadline  # and the teardown gave no second grace: SIGTERM at once
    assert session.returncode == -15
