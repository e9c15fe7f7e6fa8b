"""Issue 27, item 6: paths as the CLI's process sees them.

* ``/proc/self/cwd`` (and ``thread-self``, task views, symlinks to them) is the CLI
  process's real working directory, read from ``/proc/<pid>/cwd`` of the CLI's process: the
  Bash tool's ``cd`` moves the hook input's ``cwd``, not the process. Before, after the model
  ran ``cd sub``, ``Read /proc/self/cwd/secret/key`` was resolved in ``work/sub`` and the
  CLI, still in ``work/``, returned the secret. Where the process cannot be known (a remote
  or in-memory CLI, a process that is gone) such a path is denied.
* A denied tree mounted a second time elsewhere (``mount --bind``) is denied to Grep and Glob
  of a directory above the mount point, and to Read through it: a bind of a directory or
  file inside the tree, of the tree, or of a directory above it.

The oracle is the real thing: a real process whose working directory is the CLI's reads each
path, and real ``grep -r`` searches each directory (through real bind mounts: these tests
need root, and say so when they skip). Every async test runs on asyncio and Trio.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk import _cli_process
from claude_sdk._cli_process import CLIProcess
from claude_sdk.policies import Decision, Policy, allow_paths, chain, deny_paths, redirect_path
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.testing.stdio import write_fake_cli

SECRET = "the-secret-value-27"
ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def cli_process(pid: int | None) -> Iterator[None]:
    """Decide as a session's callback does: `CURRENT` names the CLI's process."""
    token = _cli_process.CURRENT.set(CLIProcess(pid))
    try:
        yield
    finally:
        _cli_process.CURRENT.reset(token)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """work/ (the CLI's real working directory) with work/secret/key, and work/sub/ (where
    the model ``cd``-ed) with a harmless sub/secret/key, symlinks into /proc, and links that
    climb out of sub."""
    work = tmp_path / "work"
    (work / "secret").mkdir(parents=True)
    (work / "secret" / "key").write_text(SECRET)
    (work / "notes.txt").write_text("notes")
    sub = work / "sub"
    (sub / "secret").mkdir(parents=True)
    (sub / "secret" / "key").write_text("nothing to see")
    (sub / "notes.txt").write_text("sub notes")
    os.symlink("/proc/self/cwd", work / "self")
    os.symlink("/proc/thread-self/cwd", sub / "tself")
    os.symlink("/proc/self/cwd/..", sub / "up")
    return work


@pytest.fixture
def the_cli(work: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process standing for the CLI: its working directory is ``work``."""
    process = subprocess.Popen(["sleep", "600"], cwd=work)
    try:
        yield process
    finally:
        process.kill()
        process.wait()


#: Where a path may start (``{tid}``: a task of the reading process; unknowable here).
PREFIXES = [
    "/proc/self/cwd",
    "/proc/thread-self/cwd",
    "/proc/self/task/{tid}/cwd",
    "/proc/self/root{work}",
    "{work}/self",
    "self",
    "tself",
    "up",
    "sub/tself",
    "",
]
MIDDLES = ["", "/.", "/sub/..", "/secret/.."]
TAILS = ["secret/key", "notes.txt", "sub/secret/key", "self/secret/key"]


def _paths(work: Path) -> list[str]:
    out = []
    for prefix, middle, tail in itertools.product(PREFIXES, MIDDLES, TAILS):
        path = f"{prefix}{middle}/{tail}" if prefix else tail
        out.append(path.format(work=work, tid="{tid}"))
    return out


def _read_in(directory: Path, paths: list[str]) -> list[str | None]:
    """What a real process whose working directory is ``directory`` reads at each path (a
    ``{tid}`` is its own main thread's id), or None."""
    code = (
        "import json, sys, threading\n"
        "out = []\n"
        "for p in json.loads(sys.argv[1]):\n"
        "    p = p.replace('{tid}', str(threading.get_native_id()))\n"
        "    try: out.append(open(p).read())\n"
        "    except OSError: out.append(None)\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(paths)],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: list[str | None] = json.loads(done.stdout)
    return result


def test_proc_self_cwd_is_the_cli_process_s_own_after_cd(
    work: Path, the_cli: subprocess.Popen[bytes]
) -> None:
    """Every path that reads the secret, read by a process in the CLI's working directory
    (the CLI opening it; CLI 2.1.332 resolves a relative path in the hook's ``cwd``, and
    ``/proc/self/cwd`` in its own, for Read, Grep and Glob alike) or in the hook's (a program
    started there), is denied when the hook input says the model is in work/sub."""
    policy = deny_paths(work / "secret")
    paths = _paths(work)
    # The CLI resolves a relative path in the hook's cwd (where the Bash tool's cd went), then
    # opens it in its own process, whose working directory is still work/.
    opened = [os.path.join(work / "sub", p) for p in paths]
    as_cli = _read_in(work, opened)
    as_child = _read_in(work / "sub", opened)
    reached = 0
    with cli_process(the_cli.pid):
        for path, cli_read, child_read in zip(paths, as_cli, as_child, strict=True):
            given = path.replace("{tid}", str(the_cli.pid))  # a task of the CLI's process
            decision = policy.decide("Read", {"file_path": given}, cwd=str(work / "sub"))
            if SECRET in (cli_read, child_read):
                reached += 1
                assert decision.kind == "deny", (path, decision)
            elif "{tid}" not in path and cli_read is not None and child_read is not None:
                assert decision.kind == "continue", (path, decision)
    assert reached > 20  # the oracle found the secret through many of the paths


def test_the_old_resolution_let_the_secret_through(work: Path) -> None:
    """Outside a session's callback the given ``cwd`` stands for the CLI's: the resolution
    the hook had before, which the CLI's real process proves wrong."""
    policy = deny_paths(work / "secret")
    decision = policy.decide(
        "Read", {"file_path": "/proc/self/cwd/secret/key"}, cwd=str(work / "sub")
    )
    assert decision.kind == "continue"  # work/sub/secret/key: not the denied tree
    assert _read_in(work, ["/proc/self/cwd/secret/key"]) == [SECRET]  # what the CLI reads


@pytest.mark.parametrize("pid", ["gone", None])
def test_proc_self_cwd_is_denied_where_the_process_cannot_be_known(
    work: Path, pid: str | None
) -> None:
    known: int | None = None
    if pid == "gone":
        process = subprocess.Popen(["true"])
        process.wait()
        known = process.pid
    policies = [deny_paths(work / "secret"), allow_paths(work), redirect_path(work / "a", work)]
    with cli_process(known):
        for policy, path in itertools.product(
            policies, ["/proc/self/cwd/notes.txt", "sub/tself/notes.txt", "/proc/self/cwd"]
        ):
            decision = policy.decide("Read", {"file_path": path}, cwd=str(work))
            assert decision.kind == "deny", (policy, path)
            assert "cannot be known" in decision.reason
        # a path that does not go through it is decided as before, but for a process that
        # is gone, whose mount table cannot be read either
        decision = deny_paths(work / "secret").decide(
            "Read", {"file_path": str(work / "notes.txt")}, cwd=str(work)
        )
        assert decision.kind == ("deny" if pid == "gone" else "continue")


def test_allow_paths_needs_every_directory_proc_self_cwd_may_be(
    work: Path, tmp_path: Path, the_cli: subprocess.Popen[bytes]
) -> None:
    """allow_paths(work/sub): /proc/self/cwd/notes.txt is work/notes.txt for the CLI."""
    policy = allow_paths(work / "sub")
    with cli_process(the_cli.pid):
        decision = policy.decide(
            "Read", {"file_path": "/proc/self/cwd/notes.txt"}, cwd=str(work / "sub")
        )
        assert decision.kind == "deny"
        assert str(work / "notes.txt") in decision.reason
        decision = policy.decide("Read", {"file_path": "notes.txt"}, cwd=str(work / "sub"))
        assert decision.kind == "continue"


def test_without_a_cwd_a_relative_path_is_the_cli_process_s(
    work: Path, the_cli: subprocess.Popen[bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``can_use_tool`` is not told the CLI's working directory: without a ``cwd`` of the
    policy's, a relative path is joined to the CLI process's, not to this process's."""
    monkeypatch.chdir(tmp_path)  # the SDK's own working directory is elsewhere
    policy = deny_paths(work / "secret")
    with cli_process(the_cli.pid):
        assert policy.decide("Read", {"file_path": "secret/key"}).kind == "deny"
    assert policy.decide("Read", {"file_path": "secret/key"}).kind == "continue"


def test_redirect_path_does_not_guess_which_directory_is_meant(
    work: Path, the_cli: subprocess.Popen[bytes]
) -> None:
    policy = redirect_path(work / "secret", work / "sub" / "secret")
    with cli_process(the_cli.pid):
        ambiguous = policy.decide(
            "Read", {"file_path": "/proc/self/cwd/secret/key"}, cwd=str(work / "sub")
        )
        assert ambiguous.kind == "deny"
        plain = policy.decide("Read", {"file_path": "/proc/self/cwd/secret/key"}, cwd=str(work))
        assert plain.kind == "allow"
        assert plain.updated_input == {"file_path": str(work / "sub" / "secret" / "key")}


# --------------------------------------------------------------------------------------
# Through a session: the session's handler names the CLI's process


def _hook_script(tmp_path: Path, work: Path, paths: list[str]) -> Path:
    """A FakeCLI script, run as a real subprocess in ``work``, asking the PreToolUse hook
    about a Read of each path with the hook's ``cwd`` in work/sub; the answers are the text
    of the turn it then plays."""
    script = tmp_path / "script.py"
    script.write_text(
        "import json\n"
        "async def script(cli):\n"
        "    await cli.handshake()\n"
        "    await cli.next_prompt()\n"
        "    answers = []\n"
        f"    for path in {paths!r}:\n"
        "        answers.append(await cli.hook_callback(cli.hook_id('PreToolUse'), {\n"
        "            'tool_name': 'Read', 'tool_input': {'file_path': path},\n"
        f"            'cwd': {str(work / 'sub')!r}}}))\n"
        "    await cli.turn(json.dumps(answers))\n"
        "    await cli.serve_until_stdin_closes()\n"
    )
    return script


PATHS = ["/proc/self/cwd/secret/key", "tself/secret/key", "notes.txt"]


async def test_a_local_cli_s_working_directory_is_read_from_its_process(
    work: Path, tmp_path: Path
) -> None:
    script = _hook_script(tmp_path, work, PATHS)
    cli = write_fake_cli(tmp_path / "claude", script=f"{script}:script")
    policy = deny_paths(work / "secret")
    options = cs.Options(
        cli_path=str(cli),
        cwd=str(work),
        hooks={"PreToolUse": [policy]},
        env={"PYTHONPATH": str(ROOT)},
    )
    async with cs.open_session(options) as session:
        assert session.pid is not None
        await session.send("go")
        results = [m async for m in session.receive_response() if isinstance(m, cs.ResultMessage)]
    answers = json.loads(results[-1].result or "")
    decisions = [a.get("hookSpecificOutput", {}).get("permissionDecision") for a in answers]
    assert decisions == ["deny", "deny", None]


async def test_an_in_memory_cli_s_working_directory_cannot_be_known(work: Path) -> None:
    replies: list[Any] = []
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for path in PATHS:
            replies.append(
                await cli.hook_callback(
                    cli.hook_id("PreToolUse"),
                    {
                        "tool_name": "Read",
                        "tool_input": {"file_path": path},
                        "cwd": str(work / "sub"),
                    },
                )
            )
        replies.append(await cli.can_use_tool("Read", {"file_path": PATHS[0]}))
        done.set()
        await cli.serve_until_stdin_closes()

    policy = chain(deny_paths(work / "secret"))
    options = cs.Options(
        hooks={"PreToolUse": [policy]}, can_use_tool=policy.as_can_use_tool(default="allow")
    )
    async with cs.open_session(options, transport=FakeCLI(script)):
        with anyio.fail_after(20):
            await done.wait()
    *hooked, permission = replies
    decisions = [a.get("hookSpecificOutput", {}).get("permissionDecision") for a in hooked]
    assert decisions == ["deny", "deny", None]
    assert "cannot be known" in hooked[0]["hookSpecificOutput"]["permissionDecisionReason"]
    assert isinstance(permission, cs.PermissionDeny)


async def test_the_thread_a_policy_decides_in_sees_the_cli_process(work: Path) -> None:
    seen: list[Any] = []

    class Looks(Policy):
        name = "looks"

        def decide(self, tool_name: str, tool_input: Any, *, cwd: str | None = None) -> Decision:
            seen.append((threading.get_ident(), _cli_process.CURRENT.get()))
            return Decision.continue_()

    callback = Looks().as_can_use_tool(default="allow")
    with cli_process(4242):
        await callback("Read", {"file_path": "x"}, None)  # type: ignore[arg-type]
    ((thread, process),) = seen
    assert thread != threading.get_ident()
    assert process == CLIProcess(4242)


# --------------------------------------------------------------------------------------
# Bind mounts


class Mounts:
    """Real bind mounts, undone in reverse order."""

    def __init__(self) -> None:
        self.points: list[Path] = []

    def bind(self, source: Path, point: Path) -> None:
        if source.is_dir():
            point.mkdir(parents=True, exist_ok=True)
        else:
            point.parent.mkdir(parents=True, exist_ok=True)
            point.touch()
        subprocess.run(["mount", "--bind", str(source), str(point)], check=True, timeout=30)
        self.points.append(point)

    def tmpfs(self, point: Path) -> None:
        point.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "none", str(point)], check=True, timeout=30)
        self.points.append(point)

    def undo(self) -> None:
        for point in reversed(self.points):
            done = subprocess.run(["umount", str(point)], check=False, timeout=30)
            if done.returncode:
                subprocess.run(["umount", "-l", str(point)], check=False, timeout=30)
        self.points.clear()


def _can_mount(tmp_path: Path) -> str | None:
    if os.geteuid() != 0:
        return "bind mounts need root"
    probe = Mounts()
    try:
        (tmp_path / "probe-src").mkdir()
        probe.bind(tmp_path / "probe-src", tmp_path / "probe-dst")
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"mount --bind does not work here: {exc}"
    finally:
        probe.undo()
    return None


@pytest.fixture
def mounts(tmp_path: Path) -> Iterator[Mounts]:
    reason = _can_mount(tmp_path)
    if reason is not None:
        pytest.skip(reason)
    made = Mounts()
    try:
        yield made
    finally:
        made.undo()


def _grep_finds(directory: Path) -> bool:
    """Does real ``grep -r`` (which descends into mount points, not symlinks) find the
    secret below ``directory``?"""
    done = subprocess.run(
        ["grep", "-r", "-l", SECRET, str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return bool(done.stdout.strip())


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    """work/vault/secrets/{key, inner/key2} (the denied tree), work/public, and an unrelated
    work/other/readme."""
    work = tmp_path / "work"
    secrets = work / "vault" / "secrets"
    (secrets / "inner").mkdir(parents=True)
    (secrets / "key").write_text(SECRET)
    (secrets / "inner" / "key2").write_text(SECRET)
    (work / "public" / "a").mkdir(parents=True)
    (work / "public" / "a" / "file.txt").write_text("public")
    (work / "other").mkdir()
    (work / "other" / "readme").write_text("other")
    return work, secrets


#: What is mounted (relative to work/) at which point below work/public.
BINDS = [
    ("vault/secrets", "mirror"),
    ("vault/secrets", "a/b/deep"),
    ("vault/secrets/inner", "inner"),
    ("vault/secrets/key", "a/key.txt"),
    ("vault", "vaultview"),
    ("other", "a/other"),
    ("other/readme", "readme"),
    (None, "a/scratch"),  # a tmpfs
]


@pytest.mark.parametrize(("source", "point"), BINDS)
def test_a_denied_tree_mounted_below_a_searched_directory_is_denied(
    tmp_path: Path, mounts: Mounts, source: str | None, point: str
) -> None:
    work, secrets = _layout(tmp_path)
    public = work / "public"
    if source is None:
        mounts.tmpfs(public / point)
    else:
        mounts.bind(work / source, public / point)
    policy = deny_paths(secrets)
    searched = [public, public / "a", public / point, *list((public / point).parents)[:2]]
    for directory in dict.fromkeys(searched):
        reaches = _grep_finds(directory)
        calls = [
            ("Grep", {"pattern": "x", "path": str(directory)}),
            ("Glob", {"pattern": "**/*", "path": str(directory)}),
            ("Glob", {"pattern": f"{directory}/**/*"}),
            ("Grep", {"pattern": "x"}),  # the working directory
        ]
        for tool, tool_input in calls:
            decision = policy.decide(tool, tool_input, cwd=str(directory))
            if reaches:
                assert decision.kind == "deny", (directory, tool, tool_input, decision)
            elif not str(directory).startswith(str(work / "vault")):
                assert decision.kind == "continue", (directory, tool, tool_input, decision)


@pytest.mark.parametrize(("source", "point"), BINDS)
def test_a_file_read_through_a_bind_mount_of_the_denied_tree_is_denied(
    tmp_path: Path, mounts: Mounts, source: str | None, point: str
) -> None:
    work, secrets = _layout(tmp_path)
    public = work / "public"
    if source is None:
        mounts.tmpfs(public / point)
        (public / point / "made.txt").write_text("made")
    else:
        mounts.bind(work / source, public / point)
    policy = deny_paths(secrets)
    mounted = public / point
    files = [mounted] if mounted.is_file() else [p for p in mounted.rglob("*") if p.is_file()]
    assert files
    for path in files:
        decision = policy.decide("Read", {"file_path": str(path)})
        if path.read_text() == SECRET:
            assert decision.kind == "deny", (path, decision)
        else:
            assert decision.kind == "continue", (path, decision)


def test_a_mount_table_that_cannot_be_read_denies_a_search(tmp_path: Path) -> None:
    work, secrets = _layout(tmp_path)
    policy = deny_paths(secrets)
    process = subprocess.Popen(["true"])
    process.wait()
    with cli_process(process.pid):
        decision = policy.decide("Grep", {"pattern": "x", "path": str(work / "public")})
    assert decision.kind == "deny"


def test_a_mount_made_after_a_decision_is_seen_by_the_next(tmp_path: Path, mounts: Mounts) -> None:
    """The mount table is read again when the kernel says it changed (not on every call)."""
    work, secrets = _layout(tmp_path)
    policy = deny_paths(secrets)
    grep = ("Grep", {"pattern": "x", "path": str(work / "public")})
    assert policy.decide(*grep).kind == "continue"
    mounts.bind(secrets, work / "public" / "late")
    assert _grep_finds(work / "public")
    assert policy.decide(*grep).kind == "deny"
    mounts.undo()
    assert policy.decide(*grep).kind == "continue"
