"""Process facts from /proc, for tests that check nothing is left alive."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


async def wait_dead(pids: list[int], timeout: float = 5.0) -> list[int]:
    """Wait until every pid is gone (a killed process takes a moment); return the living."""
    import anyio

    with anyio.move_on_after(timeout):
        # No event exists for "an unrelated pid has exited": poll /proc briefly.
        while any(alive(pid) for pid in pids):  # noqa: ASYNC110
            await anyio.sleep(0.02)
    return [pid for pid in pids if alive(pid)]


def descendants(root: int | None = None) -> list[int]:
    """Live (non-zombie) descendants of ``root`` (default: this process)."""
    root = os.getpid() if root is None else root
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] in ("Z", "X"):
            continue
        parents[int(entry.name)] = int(fields[1])
    found: list[int] = []
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def describe(pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        cmd = "?"
    return f"{pid}: {cmd.strip()}"
