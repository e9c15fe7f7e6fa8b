"""Issue 27 item 7 against the real CLI (offline): the sandbox behind the policy.

Every call here is approved by everything the host controls: a PreToolUse hook that allows
(the most permissive policy there is) and a ``can_use_tool`` that allows. What still stops a
Bash command is the OS sandbox (bubblewrap): the checks look at the file system and at a
TCP server of the test's own, not at what the model is told.

* With ``Options(sandbox=SandboxSettings(enabled=True))`` a command cannot write outside
  the project (the throwaway HOME, the test's temporary directory), cannot reach the test's
  server directly or through the CLI's proxy, and cannot leave the sandbox by asking
  (``dangerouslyDisableSandbox``); a write inside the project works.
* The control: with the two ways out that the SDK closes by default opened again
  (``allow_unsandboxed_commands=True``, ``strict_allowlist=False``), the same approvals let
  the command out and onto the network. So the defaults are what closes them, and the checks
  above can fail.
* The boundary: the file tools run in the CLI's process; the sandbox does not confine them.
* A sandbox that cannot start (no ``bwrap`` on PATH) refuses the session; allowed to degrade
  (``fail_if_unavailable=False``) it runs commands unconfined, and the CLI says so where it
  can (``sandbox_enabled``), which `sandbox_warning` turns into the session's warning.
* Where bubblewrap is there but may not make namespaces, every command fails: nothing runs
  unsandboxed.

The tests that need a working sandbox skip, with bubblewrap's own words, where it cannot run
(`tests.support.sandbox_probe`), and fail instead when ``CLAUDE_SDK_REQUIRE_SANDBOX=1``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import attrs
import pytest

import claude_sdk as cs
from claude_sdk._protocol.launch import sandbox_warning
from claude_sdk.hooks import HookContext
from claude_sdk.testing.fake_api import RecordedToolResult

from ..support.sandbox_probe import require_sandbox
from .conftest import E2E

READ_ONLY = "Read-only file system"


async def _allow_all(
    name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
) -> cs.PermissionResult:
    """Everything the CLI asks about is allowed (tools, hosts, leaving the sandbox)."""
    return cs.PermissionAllow()


async def _allow_hook(hook_input: Any, context: HookContext) -> cs.HookOutput:
    """A policy that lets every call through (a PreToolUse allow)."""
    return cs.HookOutput(
        specific=cs.PreToolUseOutput(
            permission_decision="allow", permission_decision_reason="a permissive policy"
        )
    )


PERMISSIVE: dict[str, Any] = {
    "hooks": {"PreToolUse": [cs.HookMatcher(hooks=[_allow_hook])]},
    "can_use_tool": _allow_all,
}


@attrs.define
class Server:
    """A TCP server on 127.0.0.1 that counts the connections it accepts."""

    port: int = 0
    connections: int = 0


async def _serve(*, task_status: anyio.abc.TaskStatus[Server]) -> None:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    server = Server(port=listener.extra(anyio.abc.SocketAttribute.local_port))

    async def handle(stream: anyio.abc.SocketStream) -> None:
        server.connections += 1
        async with stream:
            with anyio.move_on_after(5):
                try:
                    await stream.receive()
                    await stream.send(b"HTTP/1.0 200 OK\r\nContent-Length: 7\r\n\r\nreached")
                except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    pass

    task_status.started(server)
    async with listener:
        await listener.serve(handle)


def _python(code: str) -> str:
    """A shell command running ``code`` with this interpreter."""
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def _direct(port: int) -> str:
    """Connect to 127.0.0.1:port directly (``no_proxy`` names loopback in the sandbox)."""
    return _python(
        "import socket; "
        f"socket.create_connection(('127.0.0.1', {port}), timeout=5).close(); print('reached')"
    )


def _through_proxy(port: int) -> str:
    """Fetch http://127.0.0.1:port/ through the proxy the sandbox sets (none outside it)."""
    return _python(
        "import os, urllib.request as u\n"
        "[os.environ.pop(k, None) for k in ('no_proxy', 'NO_PROXY')]\n"  # loopback too
        "p = os.environ.get('http_proxy') or os.environ.get('HTTP_PROXY')\n"
        "print('proxy:', 'yes' if p else 'none')\n"
        "o = u.build_opener(u.ProxyHandler({'http': p} if p else {}))\n"
        f"print(o.open('http://127.0.0.1:{port}/', timeout=5).read().decode())"
    )


async def _run(e2e: E2E, calls: list[tuple[str, dict[str, Any]]], **options: Any) -> list[Any]:
    """Have the model make ``calls`` in one turn; the tool result of each, in order."""
    for call in calls:
        e2e.api.reply(tool_use=call)
    e2e.api.reply(text="done")
    await cs.ask("do it", options=e2e.options(**options), transport=e2e.transport())
    return [request.tool_results[0] for request in e2e.api.main_requests[1 : len(calls) + 1]]


def _shown(result: RecordedToolResult) -> str:
    return f"is_error={result.is_error}: {result.text[:300]!r}"


async def test_the_sandbox_holds_behind_a_permissive_policy(e2e: E2E) -> None:
    require_sandbox()
    home_file = e2e.home / "outside-home.txt"
    tmp_file = e2e.cwd.parent / "outside-tmp.txt"
    escaped = e2e.home / "escaped.txt"
    async with anyio.create_task_group() as tg:
        server = await tg.start(_serve)
        results = await _run(
            e2e,
            [
                ("Bash", {"command": f"echo out > {home_file}"}),
                ("Bash", {"command": f"echo out > {tmp_file}"}),
                ("Bash", {"command": _direct(server.port)}),
                ("Bash", {"command": _through_proxy(server.port)}),
                (
                    "Bash",
                    {"command": f"echo out > {escaped}", "dangerouslyDisableSandbox": True},
                ),
                ("Bash", {"command": "echo in > inside.txt"}),
            ],
            sandbox=cs.SandboxSettings(enabled=True),
            **PERMISSIVE,
        )
        tg.cancel_scope.cancel()
    home, tmp, direct, proxied, escape, inside = results
    # Outside the project: the OS refused the write.
    assert not home_file.exists(), _shown(home)
    assert READ_ONLY in home.text, _shown(home)
    assert not tmp_file.exists(), _shown(tmp)
    assert READ_ONLY in tmp.text, _shown(tmp)
    # The network: nothing reached the server, directly or through the CLI's proxy.
    assert server.connections == 0, (_shown(direct), _shown(proxied))
    assert "reached" not in direct.text, _shown(direct)
    assert "reached" not in proxied.text, _shown(proxied)
    assert "proxy: yes" in proxied.text, _shown(proxied)  # it did go through the proxy
    # Asking to leave the sandbox does not leave it.
    assert not escaped.exists(), _shown(escape)
    # Inside the project the command works.
    assert not inside.is_error, _shown(inside)
    assert (e2e.cwd / "inside.txt").read_text() == "in\n"


async def test_with_the_ways_out_opened_the_same_approvals_let_commands_out(e2e: E2E) -> None:
    """The control: the SDK's defaults are what keep the commands above in."""
    require_sandbox()
    home_file = e2e.home / "outside-home.txt"
    escaped = e2e.home / "escaped.txt"
    opened = cs.SandboxSettings(
        enabled=True,
        allow_unsandboxed_commands=True,
        network=cs.SandboxNetworkConfig(strict_allowlist=False),
    )
    async with anyio.create_task_group() as tg:
        server = await tg.start(_serve)
        results = await _run(
            e2e,
            [
                ("Bash", {"command": f"echo out > {home_file}"}),
                ("Bash", {"command": _through_proxy(server.port)}),
                (
                    "Bash",
                    {"command": f"echo out > {escaped}", "dangerouslyDisableSandbox": True},
                ),
            ],
            sandbox=opened,
            **PERMISSIVE,
        )
        tg.cancel_scope.cancel()
    home, proxied, escape = results
    assert not home_file.exists(), _shown(home)  # still sandboxed
    assert "proxy: yes" in proxied.text, _shown(proxied)
    assert "reached" in proxied.text, _shown(proxied)  # can_use_tool approved the host
    assert server.connections >= 1
    assert escaped.read_text() == "out\n", _shown(escape)  # approved to run unsandboxed


async def test_the_sandbox_does_not_confine_the_file_tools(e2e: E2E) -> None:
    """The boundary: Write runs in the CLI's process; permission rules and path policies
    govern it, not the sandbox."""
    require_sandbox()
    target = e2e.home / "written-by-the-write-tool.txt"
    (result,) = await _run(
        e2e,
        [("Write", {"file_path": str(target), "content": "x"})],
        sandbox=cs.SandboxSettings(enabled=True),
        **PERMISSIVE,
    )
    assert not result.is_error, _shown(result)
    assert target.read_text() == "x"


def _path_without(directory: Path, *names: str) -> str:
    """A PATH of one directory linking every program of this PATH but ``names``."""
    directory.mkdir()
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isdir(entry):
            continue
        for program in os.listdir(entry):
            link = directory / program
            if program in names or link.exists() or link.is_symlink():
                continue
            link.symlink_to(Path(entry) / program)
    for name in names:
        assert shutil.which(name, path=str(directory)) is None
    return str(directory)


async def test_a_sandbox_that_cannot_start_refuses_the_session(e2e: E2E) -> None:
    path = _path_without(e2e.cwd.parent / "bin", "bwrap")
    e2e.api.reply(tool_use=("Bash", {"command": "echo in > inside.txt"}))
    options = e2e.options(sandbox={"enabled": True}, env={"PATH": path}, **PERMISSIVE)
    with pytest.raises(cs.ResultError) as info:
        await cs.ask("do it", options=options, transport=e2e.transport())
    assert info.value.kind == "startup"
    assert info.value.startup_failure_reason == "sandbox_required_unavailable"
    assert "bwrap" in str(info.value)
    assert not (e2e.cwd / "inside.txt").exists()


async def test_a_sandbox_allowed_to_degrade_runs_unconfined_and_is_reported(e2e: E2E) -> None:
    path = _path_without(e2e.cwd.parent / "bin", "bwrap")
    outside = e2e.home / "outside-home.txt"
    e2e.api.reply(tool_use=("Bash", {"command": f"echo out > {outside}"}))
    e2e.api.reply(text="done")
    options = e2e.options(
        sandbox=cs.SandboxSettings(enabled=True, fail_if_unavailable=False),
        env={"PATH": path},
        **PERMISSIVE,
    )
    async with cs.open_session(options, transport=e2e.transport()) as session:
        reported = session.server_info.sandbox_enabled
        await session.send("do it")
        async for _ in session.receive_response():
            pass
    assert outside.read_text() == "out\n"  # no sandbox: the write went through
    warning = sandbox_warning(options, reported)
    if reported is None:  # a CLI that does not say (2.1.330): nothing to report
        assert warning is None
    else:
        assert reported is False
        assert warning is not None
        assert "WITHOUT" in warning


def _userns_limit_problem() -> str | None:
    """Why this machine cannot run a program in a user namespace that may make no more."""
    probe = ["unshare", "-U", "-r", "sh", "-c", "echo 0 > /proc/sys/user/max_user_namespaces"]
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not on PATH"
    run = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    if run.returncode != 0:
        said = " ".join(run.stderr.split()) or "(nothing on stderr)"
        return f"`{' '.join(probe)}` exited {run.returncode}: {said}"
    return None


async def test_where_bubblewrap_may_not_make_namespaces_no_command_runs(e2e: E2E) -> None:
    """The CLI checks that bwrap is there, not that it works: in a user namespace that may
    make no more (as in many containers), every command fails with bubblewrap's error."""
    require_sandbox()
    problem = _userns_limit_problem()
    if problem is not None:
        pytest.skip(problem)
    wrapper = e2e.cwd.parent / "claude-without-userns"
    wrapper.write_text(
        "#!/bin/sh\n"
        "exec unshare -U -r sh -c "
        '\'echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" "$@"\' '
        f'{shlex.quote(e2e.cli)} "$@"\n'
    )
    wrapper.chmod(0o755)
    options = attrs.evolve(
        e2e.options(sandbox=cs.SandboxSettings(enabled=True), **PERMISSIVE),
        cli_path=str(wrapper),
    )
    e2e.api.reply(tool_use=("Bash", {"command": "echo in > inside.txt"}))
    e2e.api.reply(text="done")
    await cs.ask("do it", options=options, transport=e2e.transport())
    result = e2e.api.main_requests[1].tool_results[0]
    assert result.is_error, _shown(result)
    assert "bwrap" in result.text, _shown(result)
    assert not (e2e.cwd / "inside.txt").exists()
