"""SSHTransport against a real sshd on 127.0.0.1 (tests/support/sshd.py).

The "remote" host is this machine, so the tests can look at the far side by pid: the CLI,
its wrapper, what the CLI started, and every process below sshd. The behaviour shared with
the other transports is in test_conformance.py; this module covers what is SSH's own: the
remote command line, hostile values, the typed failures, a dropped connection, a remote
signal, and connection reuse.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk._protocol.launch import build_launch_spec
from claude_sdk.transports import _remote
from claude_sdk.transports._remote import RemoteConnection, _ReportFilter, header_line
from claude_sdk.transports.base import StderrTail
from claude_sdk.transports.ssh import SSHTransport, classify_ssh_failure

from ..support.procs import descendants, wait_dead
from ..support.sshd import SSHServer, free_port, serve_for_tests
from .test_conformance import Capturing, StderrWatch, launcher_report, write_launcher

HOSTILE = (
    "a b 'c' \"d\" $(touch {m}) `touch {m}` ; touch {m} && x || y\nz $HOME \\ * ? ~ # ! & | > < "
    "%p %%"
)


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SSHServer]:
    yield from serve_for_tests(tmp_path_factory.mktemp("sshd"))


@pytest.fixture(scope="module")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_launcher(tmp_path_factory.mktemp("launcher"))


def transport(server: SSHServer, **overrides: Any) -> SSHTransport:
    kwargs = server.transport_kwargs(remote_python=sys.executable)
    kwargs.update(overrides)
    return SSHTransport(server.host, **kwargs)


def options(launcher: Path, behaviour: str = "", **kwargs: Any) -> cs.Options:
    env = {"FAKE_CLAUDE": behaviour, **kwargs.pop("env", {})}
    kwargs.setdefault("initialize_timeout", 20.0)
    return cs.Options(cli_path=str(launcher), env=env, **kwargs)


async def everything_below_sshd_ends(server: SSHServer) -> None:
    assert await wait_dead(descendants(server.pid), timeout=6) == []


# --------------------------------------------------------------------------------------
# the command line (no connection)


def test_the_command_line_carries_no_caller_value() -> None:
    ssh = SSHTransport(
        "example.org",
        user="me",
        port=2222,
        identity_file="/keys/id 50%",
        ssh_options=["Compression=yes"],
        jump_host="bastion",
        known_hosts="/kh/known hosts",
        strict_host_key_checking="accept-new",
        connect_timeout=2.5,
        remote_python="/opt/py 3/bin/python3",
    )
    argv = ssh.command("0123abcd")
    assert argv[:4] == ["ssh", "-T", "-o", "BatchMode=yes"]  # first: nothing overrides it
    options = [argv[i + 1] for i, a in enumerate(argv) if a == "-o"]
    # the caller's options come before the defaults (ssh keeps the first value it reads)
    assert options.index("Compression=yes") < options.index("LogLevel=ERROR")
    assert "ConnectTimeout=3" in options
    assert "StrictHostKeyChecking=accept-new" in options
    assert 'UserKnownHostsFile="/kh/known hosts"' in options
    assert "IdentitiesOnly=yes" in options
    assert argv[argv.index("-i") + 1] == "/keys/id 50%%"
    assert argv[argv.index("-p") + 1] == "2222"
    assert argv[argv.index("-l") + 1] == "me"
    assert argv[argv.index("-J") + 1] == "bastion"
    assert argv[-3:-1] == ["--", "example.org"]
    remote = argv[-1]
    assert remote.startswith("exec '/opt/py 3/bin/python3' -I -S -c '")
    assert remote.endswith("' 0123abcd")
    # One line, and nothing any shell would expand inside the quoted code.
    code = remote.split(" -c ", 1)[1]
    assert "\n" not in remote
    assert re.fullmatch(r"'[A-Za-z0-9+/=,;()\". _]+' 0123abcd", code)
    assert ssh.describe() == "ssh me@example.org:2222"


def test_the_wrapper_header_carries_argv_env_and_cwd() -> None:
    spec = build_launch_spec(
        cs.Options(cli_path="/srv/claude", cwd="/w d", env={"K": "v\n'", "DEBUG": None})
    )
    line = header_line(spec)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    header = json.loads(line)
    assert header["argv"] == list(spec.argv)
    assert header["env"]["K"] == "v\n'"
    assert "DEBUG" in header["unset"]
    assert header["cwd"] == "/w d"
    assert header["grace"] == spec.shutdown_grace
    assert header["fallbacks"] == []  # an explicit path is never searched for
    bare = json.loads(header_line(build_launch_spec(cs.Options())))
    assert bare["argv"][0] == "claude"
    assert "~/.local/bin/claude" in bare["fallbacks"]


def test_the_wrapper_source_compiles_for_old_pythons() -> None:
    compile(_remote.WRAPPER_SOURCE, "<wrapper>", "exec", dont_inherit=True)
    assert 'f"' not in _remote.WRAPPER_SOURCE  # no f-strings: it runs on Python 3.6


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_reports_are_split_out_of_stderr_at_any_chunking(cuts: list[int]) -> None:
    tag = b"@claude_sdk:00ff:"
    stream = (
        b"first line\n"
        + tag
        + b'ready {"pid": 7, "wrapper": 6}\n'
        + b"partial "
        + tag
        + b'exit {"code": 3}\n'
        + b"continued @claude_sdk:00 not a tag\nlast, unterminated @"
    )
    tail = StderrTail()
    reports: list[bytes] = []
    splitter = _ReportFilter(tag, tail, reports.append)
    points = sorted({min(c, len(stream)) for c in cuts})
    for start, end in zip([0, *points], [*points, len(stream)], strict=True):
        splitter.feed(stream[start:end])
    splitter.close()
    assert reports == [b'ready {"pid": 7, "wrapper": 6}', b'exit {"code": 3}']
    assert tail.text == (
        "first line\npartial continued @claude_sdk:00 not a tag\nlast, unterminated @"
    )


@pytest.mark.parametrize(
    ("code", "stderr", "kind"),
    [
        (255, "root@h: Permission denied (publickey).", "ssh_auth"),
        (255, "Received disconnect: Too many authentication failures", "ssh_auth"),
        (255, "ssh: connect to host h port 22: Connection refused", "ssh_unreachable"),
        (255, "ssh: connect to host h port 22: No route to host", "ssh_unreachable"),
        (255, "ssh: connect to host h port 22: Connection timed out", "ssh_unreachable"),
        (255, "ssh: Could not resolve hostname nope: Name or service not known", "ssh_unreachable"),
        (255, "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @", "ssh_host_key"),
        (255, "Host key verification failed.", "ssh_host_key"),
        (255, "something else", "ssh"),
        (1, "Permission denied", None),  # not ssh's own failure
        (127, "bash: python3: command not found", None),
    ],
)
def test_ssh_failures_are_classified(code: int, stderr: str, kind: str | None) -> None:
    assert classify_ssh_failure(code, stderr) == kind


def test_invalid_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        SSHTransport("-oProxyCommand=x")
    with pytest.raises(ValueError):
        SSHTransport("h", ssh_options=["-v"])
    with pytest.raises(TypeError):
        SSHTransport("h", ssh_options="Compression=yes")
    with pytest.raises(ValueError):
        SSHTransport("h", strict_host_key_checking="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        SSHTransport("h", port=0)


async def test_options_user_is_refused(sshd: SSHServer, launcher: Path) -> None:
    with pytest.raises(cs.ClaudeSDKError) as info:
        async with cs.open_session(options(launcher, user="nobody"), transport=transport(sshd)):
            pass
    assert info.value.kind == "unsupported"


# --------------------------------------------------------------------------------------
# against sshd


async def test_hostile_values_reach_the_remote_cli_literally(
    sshd: SSHServer, launcher: Path, tmp_path: Path
) -> None:
    hostile = HOSTILE.format(m="pwned")
    workdir = tmp_path / hostile
    workdir.mkdir()
    watch = StderrWatch()
    opts = options(
        launcher,
        cwd=str(workdir),
        env={"LAUNCHER_REPORT": "1", "HOSTILE": hostile, "EMPTY": ""},
        extra_args={"hostile": hostile, "flag": None},
        model=hostile,
        stderr=watch,
    )
    async with cs.open_session(opts, transport=transport(sshd)) as session:
        await session.send(hostile)  # prompts travel on stdin
        async for _ in session.receive_response():
            pass
    report = launcher_report(watch.lines)
    assert report["cwd"] == str(workdir)
    assert report["env"]["HOSTILE"] == hostile
    assert report["env"]["EMPTY"] == ""
    assert report["env"]["PWD"] == str(workdir)
    assert f"--hostile={hostile}" in report["argv"]
    assert f"--model={hostile}" in report["argv"]
    assert "--flag" in report["argv"]
    injected = [d / "pwned" for d in (workdir, tmp_path, Path.home(), Path("/"))]
    assert not any(p.exists() for p in injected)


async def test_cancelling_mid_turn_leaves_no_remote_process(
    sshd: SSHServer, launcher: Path
) -> None:
    watch = StderrWatch()
    capture = Capturing(transport(sshd))
    opts = options(launcher, "grandchild,flood=100000", stderr=watch, shutdown_grace=0.3)
    with anyio.CancelScope() as scope:
        async with cs.open_session(opts, transport=capture) as session:
            await session.send("go")
            async for _ in session.receive_messages():
                break  # mid-turn
            with anyio.fail_after(10):
                await watch.seen.wait()
            conn = capture.connections[0]
            assert isinstance(conn, RemoteConnection)
            assert session.server_info is not None
            assert conn.remote_pid == session.server_info.pid
            remote = [conn.remote_pid, conn.wrapper_pid, int(watch.value())]
            assert set(remote) <= set(descendants(sshd.pid))  # they run under sshd
            scope.cancel()
            await anyio.sleep_forever()
    assert await wait_dead([p for p in remote if p is not None]) == []
    await everything_below_sshd_ends(sshd)


async def test_a_dropped_connection_ends_the_remote_cli(sshd: SSHServer, launcher: Path) -> None:
    """SIGKILL to the local ssh: the wrapper sees EOF and ends the CLI and what it started."""
    watch = StderrWatch()
    capture = Capturing(transport(sshd))
    opts = options(launcher, "grandchild,flood=100000", stderr=watch, shutdown_grace=0.3)
    async with cs.open_session(opts, transport=capture) as session:
        await session.send("go")
        async for _ in session.receive_messages():
            break  # mid-turn
        with anyio.fail_after(10):
            await watch.seen.wait()
        remote = descendants(sshd.pid)
        assert session.server_info is not None
        assert session.server_info.pid in remote
        assert int(watch.value()) in remote
        assert session.pid is not None
        os.kill(session.pid, signal.SIGKILL)
        with pytest.raises(cs.ProcessError) as info:
            async for _ in session.receive_messages():
                pass
    assert info.value.signal == signal.SIGKILL
    assert "connection to" in info.value.stderr_tail
    conn = capture.connections[0]
    assert isinstance(conn, RemoteConnection)
    assert conn.connection_lost
    lost = conn.exit_error()
    assert lost is not None
    assert lost.kind == "connection_lost"
    assert await wait_dead(remote) == []
    await everything_below_sshd_ends(sshd)


async def test_a_remote_signal_is_reported_as_a_signal(sshd: SSHServer, launcher: Path) -> None:
    """ssh itself says 255 for a remote signal; the wrapper's report says which."""
    async with cs.open_session(options(launcher), transport=transport(sshd)) as session:
        assert session.server_info is not None
        assert session.server_info.pid is not None
        os.kill(session.server_info.pid, signal.SIGKILL)
        with pytest.raises(cs.ProcessError) as info:
            async for _ in session.receive_messages():
                pass
    assert info.value.signal == signal.SIGKILL
    assert info.value.exit_code is None
    assert session.returncode == -signal.SIGKILL
    await everything_below_sshd_ends(sshd)


async def test_a_shared_master_connection(sshd: SSHServer, launcher: Path) -> None:
    ssh = transport(sshd, control_persist=30)
    try:
        for _ in range(2):
            reply = await cs.ask("hi", options=options(launcher), transport=ssh)
            assert reply.text == "done"
        check = [ssh.ssh_path, *ssh._control_options(), *ssh._destination(), "-O", "check"]
        done = await anyio.run_process([*check, "--", ssh.host], check=False)
        assert done.returncode == 0, done.stderr
    finally:
        await ssh.stop_master()
    done = await anyio.run_process([*check, "--", ssh.host], check=False)
    assert done.returncode != 0
    await everything_below_sshd_ends(sshd)


# --------------------------------------------------------------------------------------
# typed failures


async def _start_failure(
    ssh: SSHTransport, opts: cs.Options, kind: type[cs.ClaudeSDKError] = cs.ProcessError
) -> Any:
    with pytest.raises(kind) as info:
        async with cs.open_session(opts, transport=ssh):
            pytest.fail("the session must not start")
    return info.value


async def test_a_wrong_key_is_an_auth_error(sshd: SSHServer, launcher: Path) -> None:
    ssh = transport(sshd, identity_file=str(sshd.wrong_identity_file))
    error = await _start_failure(ssh, options(launcher))
    assert error.kind == "ssh_auth"
    assert error.exit_code == 255
    assert "Permission denied" in error.stderr_tail


async def test_a_closed_port_is_unreachable(sshd: SSHServer, launcher: Path) -> None:
    error = await _start_failure(transport(sshd, port=free_port()), options(launcher))
    assert error.kind == "ssh_unreachable"
    assert "Connection refused" in error.stderr_tail


async def test_a_changed_host_key_is_a_host_key_error(sshd: SSHServer, launcher: Path) -> None:
    error = await _start_failure(
        transport(sshd, known_hosts=str(sshd.wrong_known_hosts)), options(launcher)
    )
    assert error.kind == "ssh_host_key"
    assert "REMOTE HOST IDENTIFICATION HAS CHANGED" in error.stderr_tail


async def test_an_unknown_host_key_is_refused_by_default(
    sshd: SSHServer, launcher: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    error = await _start_failure(transport(sshd, known_hosts=str(empty)), options(launcher))
    assert error.kind == "ssh_host_key"
    assert "Host key verification failed" in error.stderr_tail


async def test_a_missing_remote_cli_is_cli_not_found(sshd: SSHServer, tmp_path: Path) -> None:
    missing = tmp_path / "no" / "claude"
    error = await _start_failure(
        transport(sshd), cs.Options(cli_path=str(missing)), cs.CLINotFoundError
    )
    assert any(str(missing) in place for place in error.searched)
    assert "127.0.0.1" in str(error)
    await everything_below_sshd_ends(sshd)


async def test_a_bare_claude_is_searched_on_the_remote_path(
    sshd: SSHServer, tmp_path: Path
) -> None:
    if await anyio.Path("/usr/local/bin/claude").exists():
        pytest.skip("a claude is installed in /usr/local/bin here")
    opts = cs.Options(env={"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path)})
    error = await _start_failure(transport(sshd), opts, cs.CLINotFoundError)
    searched = "\n".join(error.searched)
    assert str(tmp_path / "bin" / "claude") in searched  # the remote PATH
    assert str(tmp_path / ".local" / "bin" / "claude") in searched  # the remote HOME


async def test_a_missing_remote_cwd_is_a_spawn_error(
    sshd: SSHServer, launcher: Path, tmp_path: Path
) -> None:
    error = await _start_failure(transport(sshd), options(launcher, cwd=str(tmp_path / "nope")))
    assert error.kind == "spawn"
    assert "does not exist" in str(error)
    assert str(tmp_path / "nope") in str(error)


async def test_a_missing_remote_python_is_a_spawn_error(sshd: SSHServer, launcher: Path) -> None:
    error = await _start_failure(
        transport(sshd, remote_python="/nonexistent/python3"), options(launcher)
    )
    assert error.kind == "spawn"
    assert error.exit_code == 127
    assert "Python" in str(error)


async def test_no_answer_is_a_timeout(sshd: SSHServer, launcher: Path, tmp_path: Path) -> None:
    silent = tmp_path / "silent-python"
    silent.write_text("#!/bin/sh\nexec cat >/dev/null\n")  # never reports; ends at EOF
    silent.chmod(0o755)
    ssh = transport(sshd, remote_python=str(silent), start_timeout=0.5)
    error = await _start_failure(ssh, options(launcher))
    assert error.kind == "timeout"
    await everything_below_sshd_ends(sshd)
