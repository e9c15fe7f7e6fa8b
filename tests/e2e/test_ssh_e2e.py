"""The real CLI "remotely" over SSH, against FakeMessagesAPI, offline.

sshd is started by the test (tests/support/sshd.py), so under ``nox -s e2e`` it lives in
the same loopback-only network namespace as the fake API: the remote CLI reaches the API on
127.0.0.1 there. ``Options.cli_path``, ``cwd`` and ``env`` describe the remote side (here
the same machine).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

import claude_sdk as cs
from claude_sdk.transports.ssh import SSHTransport

from ..support.procs import descendants, wait_dead
from ..support.recorder import RecordingTransport
from ..support.sshd import SSHServer, serve_for_tests
from .conftest import E2E


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SSHServer]:
    yield from serve_for_tests(tmp_path_factory.mktemp("sshd"))


async def test_a_turn_with_a_permission_callback_over_ssh(e2e: E2E, sshd: SSHServer) -> None:
    asked: list[tuple[str, dict[str, object]]] = []

    async def decide(
        name: str, tool_input: dict[str, object], ctx: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        asked.append((name, tool_input))
        return cs.PermissionAllow()

    e2e.api.reply(tool_use=("Bash", {"command": "touch remote.txt", "description": "Touch"}))
    e2e.api.reply(text="created remote.txt")
    ssh = SSHTransport(sshd.host, **sshd.transport_kwargs(remote_python=sys.executable))
    transport = RecordingTransport(ssh)
    e2e.transports.append(transport)  # the drift check covers these frames too
    async with cs.open_session(e2e.options(can_use_tool=decide), transport=transport) as session:
        assert session.server_info is not None
        assert session.server_info.claude_code_version
        assert session.server_info.pid in descendants(sshd.pid)  # it runs under sshd
        await session.send("make a file")
        messages = [m async for m in session.receive_response()]
    result = messages[-1]
    assert isinstance(result, cs.ResultMessage)
    assert result.result == "created remote.txt"
    assert asked == [("Bash", {"command": "touch remote.txt", "description": "Touch"})]
    assert (e2e.cwd / "remote.txt").exists()
    tool_results = e2e.api.main_requests[1].tool_results
    assert len(tool_results) == 1
    assert not tool_results[0].is_error
    assert await wait_dead(descendants(sshd.pid), timeout=10) == []
