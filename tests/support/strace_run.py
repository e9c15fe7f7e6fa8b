"""Run a command in real bash under ``strace -f -e trace=execve`` and report every program
it executed: the ground truth the command policies are checked against.

`trace` runs ``bash --norc --noprofile -c COMMAND`` in a scratch directory holding a tree
``x/`` (``x/y/z``), with standard input from ``/dev/null``, a clean environment and a short
timeout (the whole process group is killed after it), and returns each ``execve`` call
(attempted or done: a program that bash's own re-exec or a wrapper tries under several paths
counts each time) with its path and arguments, decoded exactly (``strace -xx``).

The commands are generated and may run ``rm -rf`` for real: where bubblewrap works, bash
runs in a mount namespace where everything but the scratch directory is read-only and the
network is gone (``bwrap --ro-bind / /``), so a command can never touch anything else; in a
process namespace of its own too, so a daemon a command leaves behind (``fakeroot``'s
``faked``) ends with it instead of holding strace open.

`rm_recursive_force` reads an ``execve`` as GNU ``rm`` reads its arguments.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

STRACE = shutil.which("strace")
BASH = shutil.which("bash")
BWRAP = shutil.which("bwrap")
#: The environment every traced command gets.
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

_LINE = re.compile(r'^(\d+)\s+execve\("((?:\\x[0-9a-f]{2})*)", \[(.*?)\](?:, |\) |$)')
#: ``PID clone(...) = CHILD`` (also clone3, fork, vfork; the call may be split in two lines),
#: with ``/* PID in strace's PID NS */`` after a child in bubblewrap's process namespace
_CHILD = re.compile(
    r"^(\d+)\s+(?:<\.\.\. )?(?:clone3?|v?fork)\b.*= (\d+)(?: /\* (\d+) in strace's PID NS \*/)?$"
)
_STRING = re.compile(r'"((?:\\x[0-9a-f]{2})*)"')


@dataclass(frozen=True)
class Exec:
    """One ``execve``: the path and the argument vector."""

    path: str
    argv: tuple[str, ...]

    @property
    def program(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Traced:
    execs: tuple[Exec, ...]
    removed: bool
    timed_out: bool


_JAIL: list[bool] = []


def jailed() -> bool:
    """Does bubblewrap work here (once: it needs namespaces the machine may not give)?"""
    if not _JAIL:
        ok = False
        if BWRAP is not None and BASH is not None:
            with tempfile.TemporaryDirectory() as scratch:
                done = subprocess.run(
                    [*_jail(Path(scratch)), BASH, "-c", "touch ok"],
                    capture_output=True,
                    timeout=30,
                    check=False,
                )
                ok = done.returncode == 0 and (Path(scratch) / "ok").exists()
        _JAIL.append(ok)
    return _JAIL[0]


def _jail(scratch: Path) -> list[str]:
    assert BWRAP is not None
    where = str(scratch)
    return [
        BWRAP, "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--bind", where, where,
        "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--die-with-parent",
        "--chdir", where,
    ]  # fmt: skip


def available() -> bool:
    """Can commands be traced here (bash and strace present, ptrace allowed)?"""
    if STRACE is None or BASH is None:
        return False
    with tempfile.TemporaryDirectory() as scratch:
        try:
            traced = trace("/bin/true", Path(scratch))
        except OSError:
            return False
    return any(e.program == "true" for e in traced.execs)


def _decode(hexed: str) -> str:
    return bytes.fromhex(hexed.replace("\\x", "")).decode("utf-8", "surrogateescape")


def parse(text: str) -> list[Exec]:
    """The ``execve`` calls in an ``strace -xx -o`` log (the first, bash itself, included)."""
    out: list[Exec] = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        argv = tuple(_decode(a) for a in _STRING.findall(m[3]))
        out.append(Exec(_decode(m[2]), argv))
    return out


def _tree_of(text: str) -> dict[int, int]:
    """Each process's parent, from the clone/fork lines of an strace log."""
    parents: dict[int, int] = {}
    for line in text.splitlines():
        m = _CHILD.match(line)
        if m is not None:
            parents[int(m[3] or m[2])] = int(m[1])
    return parents


def make_tree(scratch: Path) -> None:
    (scratch / "x" / "y").mkdir(parents=True, exist_ok=True)
    (scratch / "x" / "y" / "z").write_text("z")


def trace(
    command: str, scratch: Path, *, timeout: float = 4.0, env: dict[str, str] | None = None
) -> Traced:
    """Run ``command`` in bash in ``scratch`` (which gets the tree ``x/``) under strace,
    with ``env`` added to the clean environment."""
    assert STRACE is not None
    assert BASH is not None
    make_tree(scratch)
    log = scratch.parent / f".{scratch.name}.strace"
    env = {"PATH": PATH, "HOME": str(scratch), "LC_ALL": "C.UTF-8", "TERM": "dumb", **(env or {})}
    shell = [BASH, "--norc", "--noprofile", "-c", command]
    argv = [
        STRACE, "-f", "-qq", "--seccomp-bpf", "-xx", "-s", "65536",
        "-e", "trace=execve", "-e", "signal=none", "-o", str(log),
        *(_jail(scratch) if jailed() else []), *shell,
    ]  # fmt: skip
    proc = subprocess.Popen(
        argv,
        cwd=scratch,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    try:
        text = log.read_text("ascii", "replace")
    finally:
        with contextlib.suppress(FileNotFoundError):
            log.unlink()
    execs = parse(text)
    # everything up to bash's own start (bubblewrap, bash) is the harness
    start = next((k for k, e in enumerate(execs) if e.argv == tuple(shell)), 0)
    return Traced(tuple(execs[start + 1 :]), not (scratch / "x").exists(), timed_out)


# --------------------------------------------------------------------------------------
# What the programs did

_RM_LONG = ("recursive", "force", "dir", "interactive", "one-file-system",
            "no-preserve-root", "preserve-root", "verbose", "help", "version")  # fmt: skip


def _long(name: str) -> str | None:
    """getopt_long's reading of ``--name`` for rm: exact, or a unique prefix."""
    if name in _RM_LONG:
        return name
    matches = [option for option in _RM_LONG if option.startswith(name)]
    return matches[0] if len(matches) == 1 else None


def rm_args(argv: Sequence[str]) -> tuple[bool, bool]:
    """GNU rm's reading of its arguments: (recursive, forced). An option rm does not know
    makes it exit before it removes anything: (False, False)."""
    recursive = force = False
    for arg in argv:
        if arg == "--":
            break
        if arg.startswith("--") and len(arg) > 2:
            name, _, value = arg[2:].partition("=")
            option = _long(name)
            if option is None or (value and option != "interactive"):
                return False, False
            recursive |= option == "recursive"
            force |= option == "force"
            if option == "interactive":
                force = False
        elif arg.startswith("-") and len(arg) > 1:
            for letter in arg[1:]:
                if letter not in "dfiIrRv":
                    return False, False
                recursive |= letter in "rR"
                if letter == "f":
                    force = True
                elif letter in "iI":
                    force = False
    return recursive, force


def is_rm(e: Exec) -> bool:
    if e.program == "rm":
        return True
    return e.program in ("busybox", "toybox") and len(e.argv) > 1 and e.argv[1] == "rm"


def rm_recursive_force(e: Exec) -> bool:
    """Did this ``execve`` run rm recursive and forced (any path to rm, busybox's too)?"""
    if not is_rm(e):
        return False
    args = e.argv[2:] if e.program in ("busybox", "toybox") else e.argv[1:]
    recursive, force = rm_args(args)
    return recursive and force


def unlisted(execs: Iterable[Exec], allowed: Iterable[str]) -> list[Exec]:
    """The executions of programs (by file name) not in ``allowed``."""
    names = set(allowed)
    return [e for e in execs if e.program not in names]


def trace_many(commands: Sequence[str], root: Path, *, timeout: float = 3.0) -> list[Traced]:
    """`trace` for many commands at once: one traced bash runs each in a scratch directory
    of its own (``root/s0``, ``root/s1``...) with a timeout of its own, and each ``execve`` is
    given to the command whose process it descends from. Much faster than one `trace` each
    (strace and bubblewrap start once)."""
    assert STRACE is not None
    assert BASH is not None
    lines = []
    for k, command in enumerate(commands):
        scratch = root / f"s{k}"
        make_tree(scratch)
        lines.append(
            f"cd {_quote(str(scratch))} && timeout -s KILL {timeout} {BASH} --norc --noprofile"
            f" -c {_quote(command)} oracle-{k} </dev/null >/dev/null 2>&1"
        )
    driver = root / "driver.sh"
    driver.write_text("\n".join(lines) + "\n")
    log = root / "driver.strace"
    env = {"PATH": PATH, "HOME": str(root), "LC_ALL": "C.UTF-8", "TERM": "dumb"}
    argv = [
        STRACE, "-f", "-qq", "--seccomp-bpf", "-xx", "-s", "65536",
        "-e", "trace=execve,clone,clone3,fork,vfork", "-e", "signal=none", "-o", str(log),
        "--decode-pids=pidns",
        *(_jail(root) if jailed() else []), BASH, "--norc", "--noprofile", str(driver),
    ]  # fmt: skip
    proc = subprocess.Popen(
        argv,
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    timed_out = False
    try:
        proc.wait(timeout=timeout * len(commands) + 30)
    except subprocess.TimeoutExpired:
        timed_out = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    text = log.read_text("ascii", "replace")
    parents = _tree_of(text)
    owner: dict[int, int] = {}  # the pid of each command's bash -> its index
    found: list[list[Exec]] = [[] for _ in commands]
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        pid = int(m[1])
        argv_k = tuple(_decode(a) for a in _STRING.findall(m[3]))
        if (
            argv_k
            and argv_k[-1].startswith("oracle-")
            and argv_k[:3] == (BASH, "--norc", "--noprofile")
        ):
            owner[pid] = int(argv_k[-1].removeprefix("oracle-"))
            continue
        walk = pid
        for _ in range(10_000):
            if walk in owner:
                found[owner[walk]].append(Exec(_decode(m[2]), argv_k))
                break
            if walk not in parents:
                break
            walk = parents[walk]
    return [
        Traced(tuple(found[k]), not (root / f"s{k}" / "x").exists(), timed_out)
        for k in range(len(commands))
    ]


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
