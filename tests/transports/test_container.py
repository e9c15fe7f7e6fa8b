"""ContainerTransport through a stub runtime on PATH (tests/support/stub_runtime.py).

The stub ``docker``/``podman``/``kubectl`` checks its argv, then runs the wrapper and the
fake ``claude`` in a session of their own, relaying their pipes: killing the stub does not
signal them, exactly like killing a real ``exec`` client. So these tests exercise teardown
through the wrapper. The behaviour shared with the other transports is in
test_conformance.py.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.transports._remote import RemoteConnection
from claude_sdk.transports.container import ContainerTransport, classify_container_failure

from ..support import stub_runtime
from ..support.procs import wait_dead
from .test_conformance import Capturing, StderrWatch, launcher_report, process_tree, write_launcher


@pytest.fixture(scope="module")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_launcher(tmp_path_factory.mktemp("launcher"))


@pytest.fixture
def runtime_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stub runtimes first on PATH; the file where they log their argv."""
    stub_bin = stub_runtime.install(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{stub_bin}{os.pathsep}{os.environ['PATH']}")
    log = tmp_path / "runtime.jsonl"
    monkeypatch.setenv("STUB_RUNTIME_LOG", str(log))
    return log


def calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def options(launcher: Path, behaviour: str = "", **kwargs: Any) -> cs.Options:
    env = {"FAKE_CLAUDE": behaviour, **kwargs.pop("env", {})}
    kwargs.setdefault("initialize_timeout", 20.0)
    return cs.Options(cli_path=str(launcher), env=env, **kwargs)


def docker(**kwargs: Any) -> ContainerTransport:
    kwargs.setdefault("container", "sandbox")
    kwargs.setdefault("remote_python", sys.executable)
    return ContainerTransport("docker", **kwargs)


# --------------------------------------------------------------------------------------
# argv and construction


@pytest.mark.parametrize(
    ("runtime", "kwargs", "expected"),
    [
        (
            "docker",
            {"container": "box", "user": "agent", "exec_args": ["--privileged"]},
            {"container": "box", "user": "agent", "extra": ["--privileged"]},
        ),
        ("podman", {"container": "box"}, {"container": "box", "user": None, "extra": []}),
        (
            "kubectl",
            {"pod": "agent-0", "namespace": "ns", "kube_container": "cli", "context": "prod"},
            {"pod": "agent-0", "namespace": "ns", "container": "cli", "context": "prod"},
        ),
    ],
    ids=["docker", "podman", "kubectl"],
)
async def test_each_runtime_runs_a_turn_with_the_expected_argv(
    runtime: str,
    kwargs: dict[str, Any],
    expected: dict[str, Any],
    runtime_log: Path,
    launcher: Path,
) -> None:
    transport = ContainerTransport(runtime, remote_python=sys.executable, **kwargs)  # type: ignore[arg-type]
    reply = await cs.ask("hi", options=options(launcher), transport=transport)
    assert reply.text == "done"
    [call] = calls(runtime_log)
    assert call["runtime"] == runtime
    parsed = call["parsed"]
    assert parsed["interactive"] is True
    for key, value in expected.items():
        assert parsed[key] == value, key
    command = parsed["command"]
    assert command[:4] == [sys.executable, "-I", "-S", "-c"]
    assert len(command) == 6  # the code and the nonce: nothing of the caller's
    argv = call["argv"]
    assert argv[:2] == ["exec", "-i"]
    if runtime == "kubectl":
        assert argv[argv.index("--") + 1 :] == command


def test_invalid_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        ContainerTransport("docker")
    with pytest.raises(ValueError):
        ContainerTransport("kubectl", container="x")
    with pytest.raises(ValueError):
        ContainerTransport("kubectl", pod="p", user="root")
    with pytest.raises(ValueError):
        ContainerTransport("docker", container="x", namespace="ns")
    with pytest.raises(ValueError):
        ContainerTransport("docker", container="--privileged")
    with pytest.raises(ValueError):
        ContainerTransport("lxc", container="x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ContainerTransport("docker", container="x", exec_args="--privileged")


@pytest.mark.parametrize(
    ("code", "stderr", "kind"),
    [
        (1, "Error response from daemon: No such container: x", "container_not_found"),
        (1, "Error response from daemon: container abc is not running", "container_not_found"),
        (125, 'Error: no container with name or ID "x" found', "container_not_found"),
        (1, 'Error from server (NotFound): pods "p" not found', "container_not_found"),
        (1, "Cannot connect to the Docker daemon at unix:///x.sock.", "container_unreachable"),
        (1, "The connection to the server localhost:8080 was refused", "container_unreachable"),
        (127, 'exec: "python3": executable file not found in $PATH: unknown', None),
        # The command inside the container is missing: a start failure, never "no container".
        (127, "Error: crun: executable file `python3` not found in $PATH: No such file or "
              "directory: OCI runtime attempted to invoke a command that was not found", None),
        (127, 'Error: runc: exec failed: unable to start container process: exec: "python3": '
              "executable file not found in $PATH: OCI runtime attempted to invoke a command "
              "that was not found", None),
        (126, 'OCI runtime exec failed: exec failed: unable to start container process: exec: '
              '"python3": executable file not found in $PATH: unknown', None),
        (1, "error: Internal error occurred: error executing command in container: failed to "
            'exec in container: exec: "python3": executable file not found in $PATH', None),
        (127, "sh: 1: python3: not found", None),
        (1, "command terminated with exit code 127: python3: command not found", None),
        (0, "No such container", None),
    ],
)  # fmt: skip
def test_client_failures_are_classified(code: int, stderr: str, kind: str | None) -> None:
    assert classify_container_failure(code, stderr) == kind


# --------------------------------------------------------------------------------------
# through the stub


async def test_env_and_cwd_reach_the_cli_and_claudecode_does_not(
    runtime_log: Path, launcher: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")  # the "container" inherits it: it must go
    hostile = "x 'y' \"z\" $(touch pwned) `touch pwned`;\nw"
    workdir = tmp_path / hostile
    workdir.mkdir()
    watch = StderrWatch()
    opts = options(
        launcher,
        cwd=str(workdir),
        env={"LAUNCHER_REPORT": "1", "HOSTILE": hostile},
        extra_args={"hostile": hostile},
        stderr=watch,
    )
    await cs.ask("hi", options=opts, transport=docker())
    report = launcher_report(watch.lines)
    assert report["cwd"] == str(workdir)
    assert report["env"]["HOSTILE"] == hostile
    assert "CLAUDECODE" not in report["env"]
    assert report["env"]["CLAUDE_CODE_ENTRYPOINT"] == "sdk-py"
    assert f"--hostile={hostile}" in report["argv"]
    assert not (workdir / "pwned").exists()
    # and none of it was on the client's command line
    assert hostile not in json.dumps(calls(runtime_log)[0]["argv"])


async def test_cancelling_mid_turn_ends_everything_inside(
    runtime_log: Path, launcher: Path
) -> None:
    watch = StderrWatch()
    capture = Capturing(ContainerTransport("kubectl", pod="agent-0", remote_python=sys.executable))
    opts = options(launcher, "grandchild,flood=100000", stderr=watch, shutdown_grace=0.3)
    running: list[int] = []
    with anyio.CancelScope() as scope:
        async with cs.open_session(opts, transport=capture) as session:
            await session.send("go")
            with anyio.fail_after(10):
                await watch.seen.wait()
            assert session.pid is not None
            running = process_tree([session.pid])
            conn = capture.connections[0]
            assert isinstance(conn, RemoteConnection)
            assert {conn.remote_pid, conn.wrapper_pid, int(watch.value())} <= set(running)
            scope.cancel()
            await anyio.sleep_forever()
    assert await wait_dead(running) == []


async def test_killing_the_exec_client_ends_the_cli(runtime_log: Path, launcher: Path) -> None:
    watch = StderrWatch()
    capture = Capturing(docker())
    opts = options(launcher, "grandchild,flood=100000", stderr=watch, shutdown_grace=0.3)
    async with cs.open_session(opts, transport=capture) as session:
        await session.send("go")
        async for _ in session.receive_messages():
            break  # mid-turn
        with anyio.fail_after(10):
            await watch.seen.wait()
        assert session.pid is not None
        running = process_tree([session.pid])
        os.kill(session.pid, signal.SIGKILL)  # the stub: its "container" is not signalled
        with pytest.raises(cs.ProcessError) as info:
            async for _ in session.receive_messages():
                pass
    assert info.value.signal == signal.SIGKILL
    conn = capture.connections[0]
    assert isinstance(conn, RemoteConnection)
    error = conn.exit_error()
    assert error is not None
    assert error.kind == "connection_lost"
    assert await wait_dead(running) == []


# --------------------------------------------------------------------------------------
# typed failures


async def _start_failure(
    transport: ContainerTransport,
    opts: cs.Options,
    kind: type[cs.ClaudeSDKError] = cs.ProcessError,
) -> Any:
    with pytest.raises(kind) as info:
        async with cs.open_session(opts, transport=transport):
            pytest.fail("the session must not start")
    return info.value


@pytest.mark.parametrize("runtime", ["docker", "podman", "kubectl"])
async def test_a_missing_container_or_pod(runtime: str, runtime_log: Path, launcher: Path) -> None:
    where = {"pod": "missing"} if runtime == "kubectl" else {"container": "missing"}
    transport = ContainerTransport(runtime, remote_python=sys.executable, **where)  # type: ignore[arg-type]
    error = await _start_failure(transport, options(launcher))
    assert error.kind == "container_not_found"
    assert "missing" in error.stderr_tail


async def test_an_unreachable_daemon(runtime_log: Path, launcher: Path) -> None:
    error = await _start_failure(docker(container="daemon-down"), options(launcher))
    assert error.kind == "container_unreachable"
    assert "Docker daemon" in error.stderr_tail


async def test_a_missing_runtime(launcher: Path, tmp_path: Path) -> None:
    transport = docker(runtime_path=str(tmp_path / "docker"))
    error = await _start_failure(transport, options(launcher))
    assert error.kind == "spawn"
    assert "docker" in str(error)


@pytest.mark.parametrize(
    ("runtime", "where", "status"),
    [("docker", {"container": "sandbox"}, 127), ("podman", {"container": "sandbox"}, 127),
     ("kubectl", {"pod": "agent-0"}, 1)],
)  # fmt: skip
async def test_no_python_in_the_container(
    runtime_log: Path, launcher: Path, runtime: str, where: dict[str, str], status: int
) -> None:
    transport = ContainerTransport(runtime, remote_python="/nonexistent/python3", **where)  # type: ignore[arg-type]
    error = await _start_failure(transport, options(launcher))
    assert error.kind == "spawn"  # never "container_not_found": the container is there
    assert error.exit_code == status
    if status == 127:
        assert "Python" in str(error)
    assert "python3" in error.stderr_tail


async def test_no_cli_in_the_container(runtime_log: Path, tmp_path: Path) -> None:
    missing = tmp_path / "claude"
    error = await _start_failure(docker(), cs.Options(cli_path=str(missing)), cs.CLINotFoundError)
    assert any(str(missing) in place for place in error.searched)
    assert "docker container sandbox" in str(error)


async def test_a_cli_that_cannot_be_executed(runtime_log: Path, tmp_path: Path) -> None:
    cli = tmp_path / "claude"
    cli.write_text("not a program\n")
    cli.chmod(0o755)  # executable, but no shebang: exec fails with ENOEXEC
    error = await _start_failure(docker(), cs.Options(cli_path=str(cli)))
    assert error.kind == "spawn"
    assert str(cli) in str(error)


async def test_no_working_directory_in_the_container(
    runtime_log: Path, launcher: Path, tmp_path: Path
) -> None:
    error = await _start_failure(docker(), options(launcher, cwd=str(tmp_path / "nope")))
    assert error.kind == "spawn"
    assert "does not exist" in str(error)


async def test_kubectl_cannot_run_as_options_user(runtime_log: Path, launcher: Path) -> None:
    transport = ContainerTransport("kubectl", pod="p", remote_python=sys.executable)
    # Options.user is a user of this machine (checked when the options are built): root.
    error = await _start_failure(transport, options(launcher, user="root"), cs.ClaudeSDKError)
    assert error.kind == "unsupported"
