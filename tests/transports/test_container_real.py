"""`ContainerTransport` against a real runtime: podman, runc, a Debian image, no network.

Opt-in (marker ``container``): ``tests/support/container_image.sh`` installs podman and
builds the images, then ``CLAUDE_SDK_CONTAINER_RUNTIME=podman`` (or ``docker``, with a daemon
on ``DOCKER_HOST``) runs these tests. They skip without it, and fail instead with
``CLAUDE_SDK_REQUIRE_CONTAINER=1`` (see tests/support/container_box.py).

One container (``sleep infinity`` as PID 1) serves the module, with ``tests/support``
mounted read-only at `SUPPORT_INSIDE`: the CLI is ``fake_claude.py`` run by the image's
own ``python3``. A path that exists only in the container is proof that the CLI ran there.
What runs inside is read with ``podman exec CONTAINER ps``, never through our own code.

* the transport conformance suite (test_conformance.py) runs here unchanged, on a case
  whose "nothing is left" also means "nothing runs in the container";
* a turn through `claude_sdk.query` and through a `Session`, and the scripted fake CLI of
  `claude_sdk.testing` (``write_fake_cli``) inside the container;
* cancelling mid-turn and SIGKILL to the ``podman exec`` client leave nothing inside;
* the typed failures, as the real runtime reports them.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import attrs
import pytest

import claude_sdk as cs
from claude_sdk.testing.stdio import write_fake_cli
from claude_sdk.transports._remote import RemoteConnection
from claude_sdk.transports.container import ContainerTransport

from ..support import container_box
from ..support.container_box import Box
from ..support.procs import descendants
from . import test_conformance as conformance
from .test_conformance import Capturing, Case, StderrWatch

SUPPORT = Path(__file__).resolve().parent.parent / "support"
#: Where tests/support is inside the container.
SUPPORT_INSIDE = "/opt/claude-sdk-tests"
#: The fake CLI, inside the container (it does not exist on this machine).
FAKE_INSIDE = f"{SUPPORT_INSIDE}/fake_claude.py"
#: A directory shared with the container, at the same path inside.
SHARE_INSIDE = "/opt/claude-sdk-share"
#: Seconds to wait for the container to be empty after a teardown or a lost client: a hang
#: guard, not a measure (the leftovers the tests start run for 600 s or more, so only the
#: teardown's rule empties the container within it; no test checks how fast).
EMPTY_WITHIN = 30.0

pytestmark = pytest.mark.container


@pytest.fixture(scope="module")
def runtime() -> container_box.Runtime:
    return container_box.runtime_for_tests()


def _python_dirs() -> list[Path]:
    """The directories this interpreter imports claude_sdk and its dependencies from."""
    dirs = {Path(cs.__file__).resolve().parent.parent, Path(sysconfig.get_paths()["purelib"])}
    return sorted(dirs)


@pytest.fixture(scope="module")
def share(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("container-share")


@pytest.fixture(scope="module")
def box(runtime: container_box.Runtime, share: Path) -> Iterator[Box]:
    """The module's container (see the module docstring)."""
    mounts = [(SUPPORT, SUPPORT_INSIDE, "ro"), (share, SHARE_INSIDE, "rw")]
    # For the scripted fake CLI: claude_sdk and its dependencies, at the same paths.
    mounts += [(path, str(path), "ro") for path in _python_dirs()]
    yield from container_box.box_for_tests(runtime, container_box.IMAGE, mounts)


@pytest.fixture(autouse=True)
def _empty_box(box: Box) -> Iterator[None]:
    """Every test starts with an empty container and leaves it so."""
    assert box.wait_empty(EMPTY_WITHIN) == []
    yield
    assert box.wait_empty(EMPTY_WITHIN) == []


def transport(box: Box, **kwargs: Any) -> ContainerTransport:
    return ContainerTransport(box.runtime, container=box.name, **kwargs)


def options(behaviour: str = "", **kwargs: Any) -> cs.Options:
    env = {"FAKE_CLAUDE": behaviour, **kwargs.pop("env", {})}
    kwargs.setdefault("initialize_timeout", 30.0)
    return cs.Options(cli_path=FAKE_INSIDE, env=env, **kwargs)


async def inside(box: Box) -> list[container_box.Proc]:
    return await anyio.to_thread.run_sync(box.ps)


async def empty_within(box: Box, seconds: float) -> list[container_box.Proc]:
    return await anyio.to_thread.run_sync(box.wait_empty, seconds)


def test_the_fake_cli_is_not_on_this_machine() -> None:
    """The premise of every test here: a CLI that runs ran inside the container."""
    assert not Path(FAKE_INSIDE).exists()


# --------------------------------------------------------------------------------------
# the conformance suite, on a real container


@attrs.define
class RealContainerCase(Case):
    """A conformance case whose processes include those inside the container.

    ``processes()`` returns the local ones (the ``podman exec`` client and below) and the
    container's (pids of its namespace, as ``ps`` there shows them); ``nothing_left``
    waits for the local ones to end and for the container to be empty.
    """

    box: Box | None = attrs.field(default=None, kw_only=True)
    inside: set[int] = attrs.field(factory=set, kw_only=True)

    def processes(self) -> list[int]:
        assert self.box is not None
        local = super().processes()
        pids = [proc.pid for proc in self.box.ps()]
        self.inside.update(pids)
        return local + pids

    async def nothing_left(self, pids: list[int]) -> None:
        assert self.box is not None
        await super().nothing_left([pid for pid in pids if pid not in self.inside])
        assert await empty_within(self.box, EMPTY_WITHIN) == []


@pytest.fixture
def case(box: Box) -> Case:
    return RealContainerCase("container", Capturing(transport(box)), FAKE_INSIDE, box=box)


# Every test of the suite, collected here too (they take the ``case`` fixture above).
globals().update(
    {name: test for name, test in vars(conformance).items() if name.startswith("test_")}
)


# --------------------------------------------------------------------------------------
# whole turns


async def test_query_runs_a_turn_inside(box: Box) -> None:
    capture = Capturing(transport(box))
    async with cs.query("hi", options=options("flood=3"), transport=capture) as messages:
        received = [m async for m in messages]
    texts = [m.text for m in received if isinstance(m, cs.AssistantMessage)]
    assert texts == ["frame 0", "frame 1", "frame 2"]
    assert isinstance(received[-1], cs.ResultMessage)
    assert received[-1].result == "done"
    conn = capture.connections[0]
    assert isinstance(conn, RemoteConnection)
    assert conn.returncode == 0
    assert conn.reports["ready"]["path"] == FAKE_INSIDE


async def test_a_session_runs_turns_inside(box: Box) -> None:
    async with cs.open_session(options(), transport=transport(box)) as session:
        assert session.server_info is not None
        assert session.server_info.claude_code_version == "0.0.0-fake"
        for prompt in ("one", "two"):
            await session.send(prompt)
            turn = [m async for m in session.receive_response()]
            assert isinstance(turn[-1], cs.ResultMessage)
            # the CLI and its wrapper run in the container, and nothing else
            running = [proc.args for proc in await inside(box)]
            assert any(FAKE_INSIDE in args for args in running), running
            assert len(running) == 2, running
    assert session.returncode == 0


async def test_the_scripted_fake_cli_inside(box: Box, share: Path) -> None:
    """``claude_sdk.testing``'s ``write_fake_cli``, run by the container's Python."""
    probe = await anyio.run_process(
        [box.runtime, "exec", box.name, "python3", "-c", "import sys; print(sys.version_info[:2])"]
    )
    theirs = probe.stdout.decode().strip()
    if theirs != str(sys.version_info[:2]):
        pytest.skip(f"the container's Python is {theirs}: it cannot import this one's packages")
    write_fake_cli(share / "claude", replies=["4", "8"], python="/usr/bin/python3")
    pythonpath = os.pathsep.join(str(path) for path in _python_dirs())
    opts = cs.Options(
        cli_path=f"{SHARE_INSIDE}/claude", env={"PYTHONPATH": pythonpath}, initialize_timeout=30
    )
    async with cs.open_session(opts, transport=transport(box)) as session:
        replies = []
        for prompt in ("2 + 2?", "4 + 4?"):
            await session.send(prompt)
            turn = [m async for m in session.receive_response()]
            replies.append(next(m.text for m in turn if isinstance(m, cs.AssistantMessage)))
    assert replies == ["4", "8"]
    assert session.returncode == 0


# --------------------------------------------------------------------------------------
# nothing left inside


async def test_cancelling_mid_turn_leaves_nothing_inside(box: Box) -> None:
    watch = StderrWatch()
    opts = options("grandchild,flood=100000", stderr=watch, shutdown_grace=0.3)
    with anyio.CancelScope() as scope:
        async with cs.open_session(opts, transport=transport(box)) as session:
            await session.send("go")
            async for _ in session.receive_messages():
                break  # the turn is streaming
            with anyio.fail_after(10):
                await watch.seen.wait()
            running = await inside(box)
            assert int(watch.value()) in [proc.pid for proc in running]  # sleep 600, inside
            assert any(FAKE_INSIDE in proc.args for proc in running)
            scope.cancel()
            await anyio.sleep_forever()
    assert scope.cancelled_caught
    assert await empty_within(box, EMPTY_WITHIN) == []


async def test_killing_the_exec_client_leaves_nothing_inside(box: Box) -> None:
    watch = StderrWatch()
    capture = Capturing(transport(box))
    opts = options("grandchild,flood=100000", stderr=watch, shutdown_grace=0.3)
    async with cs.open_session(opts, transport=capture) as session:
        await session.send("go")
        async for _ in session.receive_messages():
            break  # mid-turn
        with anyio.fail_after(10):
            await watch.seen.wait()
        client = session.pid
        assert client is not None
        assert any(FAKE_INSIDE in proc.args for proc in await inside(box))
        os.kill(client, signal.SIGKILL)  # the podman exec client, alone
        with pytest.raises(cs.ProcessError) as info:
            async for _ in session.receive_messages():
                pass
    assert info.value.signal == signal.SIGKILL
    conn = capture.connections[0]
    assert isinstance(conn, RemoteConnection)
    error = conn.exit_error()
    assert error is not None
    assert error.kind == "connection_lost"
    # Empty: the far side ended the CLI and its ``sleep 600`` on the lost connection (its
    # grace, then SIGTERM, SIGKILL); nothing else could have ended them within the guard.
    assert await empty_within(box, EMPTY_WITHIN) == []
    assert descendants(client) == []


# --------------------------------------------------------------------------------------
# typed failures, in the runtime's own words


async def _start_failure(
    transport: ContainerTransport,
    opts: cs.Options,
    kind: type[cs.ClaudeSDKError] = cs.ProcessError,
) -> Any:
    with pytest.raises(kind) as info:
        async with cs.open_session(opts, transport=transport):
            pytest.fail("the session must not start")
    return info.value


async def test_no_such_container(runtime: container_box.Runtime) -> None:
    missing = ContainerTransport(runtime, container="claude-sdk-test-no-such-container")
    error = await _start_failure(missing, options())
    assert error.kind == "container_not_found"
    assert "no such container" in error.stderr_tail.lower()


@pytest.fixture(scope="module")
def stopped_box(runtime: container_box.Runtime) -> Iterator[Box]:
    """A container that exists but does not run."""
    yield from container_box.box_for_tests(runtime, container_box.IMAGE, detach=False)


async def test_a_container_that_is_not_running(stopped_box: Box) -> None:
    error = await _start_failure(transport(stopped_box), options())
    assert error.kind == "container_not_found"
    assert "running" in str(error)


@pytest.fixture(scope="module")
def nopython_box(runtime: container_box.Runtime) -> Iterator[Box]:
    """A running container whose image has no Python at all."""
    yield from container_box.box_for_tests(runtime, container_box.IMAGE_NOPY)


async def test_no_python_in_the_container(nopython_box: Box) -> None:
    error = await _start_failure(transport(nopython_box), options())
    assert error.kind == "spawn"  # never "container_not_found": the container is there
    assert error.exit_code in (126, 127)  # docker: 126
    assert "Python" in str(error)
    assert "python3" in error.stderr_tail
    assert nopython_box.wait_empty(EMPTY_WITHIN) == []


async def test_no_cli_in_the_container(box: Box) -> None:
    missing = f"{SUPPORT_INSIDE}/no-such-claude"
    opts = cs.Options(cli_path=missing)
    error = await _start_failure(transport(box), opts, cs.CLINotFoundError)
    assert any(missing in place for place in error.searched)
    assert f"{box.runtime} container {box.name}" in str(error)


async def test_no_claude_on_the_containers_path(box: Box) -> None:
    """The default ``claude``: looked up on PATH and in the usual places, inside."""
    error = await _start_failure(transport(box), cs.Options(), cs.CLINotFoundError)
    assert any(place.endswith("/usr/local/bin/claude") for place in error.searched)


async def test_a_cli_that_cannot_be_executed(box: Box) -> None:
    # readable but not executable: the wrapper does not take it for a CLI
    error = await _start_failure(
        transport(box), cs.Options(cli_path=f"{SUPPORT_INSIDE}/__init__.py"), cs.CLINotFoundError
    )
    assert error.searched


async def test_no_working_directory_in_the_container(box: Box) -> None:
    error = await _start_failure(transport(box), options(cwd="/no/such/dir"))
    assert error.kind == "spawn"
    assert "does not exist" in str(error)


async def test_an_unknown_user_in_the_container(box: Box) -> None:
    error = await _start_failure(transport(box, user="no-such-user"), options())
    assert error.kind == "spawn"
    assert "no-such-user" in error.stderr_tail
    assert "Python" not in str(error).split("\n")[0]  # docker's 126 is not about Python


async def test_an_exec_failure_that_is_not_python_is_not_blamed_on_python(box: Box) -> None:
    """runc's 127 (docker: 126) for a missing ``--workdir`` is not a missing Python (the
    error said so before)."""
    error = await _start_failure(transport(box, exec_args=["--workdir", "/no/such/dir"]), options())
    assert error.kind == "spawn"
    assert error.exit_code in (126, 127)
    assert "Python" not in str(error).split("\n")[0]
    assert "/no/such/dir" in error.stderr_tail


# --------------------------------------------------------------------------------------
# a resume from a session store (issue 28, item 4)


async def test_a_resume_from_a_store_is_written_where_the_cli_inside_reads_it(
    box: Box, tmp_path: Path
) -> None:
    """The container's disk never saw the session: the store's transcript travels with the
    launch and the wrapper writes it in the CLI's project directory inside (0600); nothing
    is written on this machine."""
    from claude_sdk._paths import project_slug
    from claude_sdk.stores import MemoryStore

    session_id = "6e1f0a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
    config = f"/tmp/far-config-{os.urandom(4).hex()}"  # inside; never on this machine
    entries = [
        {
            "type": ("user", "assistant")[n % 2],
            "uuid": f"40000000-0000-4000-8000-{n:012d}",
            "parentUuid": f"40000000-0000-4000-8000-{n - 1:012d}" if n else None,
            "sessionId": session_id,
            "message": {"content": f"line {n} \u00e9\U0001f600"},
        }
        for n in range(4)
    ]
    store = MemoryStore()
    await store.append({"project_key": project_slug("/tmp"), "session_id": session_id}, entries)
    opts = options(
        cwd="/tmp",
        session_store=store,
        resume=session_id,
        verify_resume=False,
        env={"CLAUDE_CONFIG_DIR": config, "HOME": str(tmp_path)},
    )
    async with cs.open_session(opts, transport=transport(box)):
        pass
    path = f"{config}/projects/{project_slug('/tmp')}/{session_id}.jsonl"
    shown = await anyio.run_process(
        [box.runtime, "exec", box.name, "sh", "-c", f"stat -c %a {path} && cat {path}"]
    )
    mode, *lines = shown.stdout.decode().splitlines()
    assert mode == "600"
    assert [json.loads(line) for line in lines] == entries
    assert not await anyio.Path(config).exists()
    assert not await anyio.Path(tmp_path / ".claude").exists()
