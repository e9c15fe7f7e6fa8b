"""`ConnectionWrapper` forwards the whole `Connection` contract (issue 14).

A wrapper that recorded lines but forgot ``shutdown_deadline`` made the session's one-grace
shutdown wait the grace twice; the base class forwards every member, and this test fails
when the contract grows a member the wrapper does not forward.
"""

from __future__ import annotations

import inspect

import anyio

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.testing.cassette import RecordingTransport
from claude_sdk.transports.base import Connection, ConnectionWrapper


def test_the_wrapper_forwards_every_member_of_the_contract() -> None:
    members = {name for name, _ in inspect.getmembers(Connection) if not name.startswith("_")}
    own = {name for name in members if name in vars(ConnectionWrapper)}
    assert members - {"receive"} == own - {"inner"}  # receive() is built on receive_lines()


async def test_a_recorded_session_leaves_a_hung_turn_within_one_grace(tmp_path: object) -> None:
    """Through the cassette recorder (a wrapper), a normal exit mid-turn of a CLI that never
    finishes takes the grace once: the deadline reaches the wrapped connection."""

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
    # once, not twice (which rule, not how fast: load only lengthens the one grace)
    assert grace * 0.9 <= anyio.current_time() - left < 2 * grace
