"""How long a command policy takes to decide, and how late the event loop runs meanwhile.

`deny_commands` and `require_command` parse the whole command before deciding, and stop at
`claude_sdk.policies.DECIDE_BUDGET`: past it a command is denied as too complex to check; a
command over 1,000,000 characters is denied at once, unread. As a hook or ``can_use_tool`` a
policy decides in a worker thread, never on the event loop. For commands of 1 KB to 1 MB in
four shapes:

* ``heredoc``: a file written through a quoted here-document (the common long command);
* ``args``: one command with many long arguments;
* ``strings``: ``echo "..."`` commands with quoted strings holding blanks (each read as code);
* ``commands``: short commands joined by ``;`` (the densest shape: one command per 12 bytes),

it measures:

* ``decide()`` p99: ``policy.decide`` called directly, ``--repeat`` times after a warm-up,
  for each policy, with the decision (``deny*`` when the budget ran out);
* loop stall p99: an asyncio loop runs a heartbeat that sleeps 1 ms and records how late it
  wakes, while `PolicyHook` decides the command ``--repeat`` times in a row (off the loop:
  what a session does), and, for comparison, while ``decide`` runs on the loop itself (what
  a session did before issue 27).

Times are milliseconds. Writes its tables into ``benchmarks/RESULTS.md`` between the
``policies`` markers (``--write``), or prints them.

    python benchmarks/bench_policies.py [--repeat 30] [--write]
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from claude_sdk.hooks import HookContext, PreToolUseInput
from claude_sdk.policies import DECIDE_BUDGET, Policy, PolicyHook, deny_commands, require_command

sys.path.insert(0, str(Path(__file__).parent))
from _sections import run_section, write_section

RESULTS = Path(__file__).with_name("RESULTS.md")
START = "<!-- policies:start -->"
END = "<!-- policies:end -->"
SIZES = (1_000, 10_000, 100_000, 1_000_000)
HEARTBEAT = 0.001

DENY = deny_commands("rm -rf", "git push --force", re.compile(r"\bmkfs\b"))
REQUIRE = require_command("cat", "echo", "ls", "python", "git status")


def _fill(unit: str, size: int, head: str = "", tail: str = "") -> str:
    body = unit * max(1, (size - len(head) - len(tail)) // len(unit))
    return head + body + tail


SHAPES: dict[str, Callable[[int], str]] = {
    "heredoc": lambda n: _fill(
        "    return {'a': x + 1, \"b\": [y, z]}  # $HOME `cmd` stays text\n",
        n,
        "cat > module.py <<'EOF'\n",
        "EOF\npython module.py",
    ),
    "args": lambda n: _fill("some/long/path/to/a/file_name.py ", n, "ls -la "),
    "strings": lambda n: _fill('echo "hello world, this is text"; ', n),
    "commands": lambda n: _fill("ls -la /tmp; ", n),
}


def p99(values: list[float]) -> float:
    """The 99th percentile (the largest value for fewer than 100)."""
    if len(values) < 100:
        return max(values)
    return statistics.quantiles(values, n=100)[98]


def _kind(decision: Any) -> str:
    kind: str = decision.kind
    if kind == "deny" and "in time" in decision.reason:
        kind = "deny*"
    return kind


def measure(policy: Policy, command: str, repeat: int) -> tuple[float, str]:
    """decide() p99 in milliseconds, and the decision."""
    decision = policy.decide("Bash", {"command": command})
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        decision = policy.decide("Bash", {"command": command})
        times.append(time.perf_counter() - started)
    return p99(times) * 1000, _kind(decision)


def _hook_input(command: str) -> PreToolUseInput:
    return PreToolUseInput(
        session_id="s",
        transcript_path="/t",
        cwd="/",
        tool_name="Bash",
        tool_input={"command": command},
        tool_use_id="t",
    )


async def _stall(policy: Policy, command: str, repeat: int, *, on_loop: bool) -> float:
    """The heartbeat's lateness p99 (ms) while ``repeat`` decisions of ``command`` run."""
    late: list[float] = []
    running = True

    async def heartbeat() -> None:
        while running:
            started = time.perf_counter()
            await asyncio.sleep(HEARTBEAT)
            late.append(time.perf_counter() - started - HEARTBEAT)

    beat = asyncio.ensure_future(heartbeat())
    await asyncio.sleep(0.01)
    late.clear()
    hook = PolicyHook(policy)
    context = HookContext(callback_id="bench")
    for _ in range(repeat):
        if on_loop:
            policy.decide("Bash", {"command": command})
            await asyncio.sleep(0)
        else:
            await hook(_hook_input(command), context)
    running = False
    await beat
    return p99(late) * 1000


def stall(policy: Policy, command: str, repeat: int, *, on_loop: bool) -> float:
    return asyncio.run(_stall(policy, command, repeat, on_loop=on_loop))


def _size(n: int) -> str:
    return f"{n // 1_000_000} MB" if n >= 1_000_000 else f"{n // 1000} KB"


def table(repeat: int) -> list[str]:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = [
        "## Command policies: decide() time and event-loop stalls against command length",
        "",
        f"`benchmarks/bench_policies.py --repeat {repeat}`, {now}, Python "
        f"{platform.python_version()}, {os.cpu_count()} cores shared with other work (load "
        f"average {load} at the start). Milliseconds, p99 of {repeat} runs (the largest, "
        f"for fewer than 100). The budget is {DECIDE_BUDGET * 1000:.0f} ms (`deny*`: it ran "
        "out and the command was denied as too complex to check); a command over 1,000,000 "
        "characters is denied at once.",
        "",
        "### decide() p99: `deny_commands` / `require_command`",
        "",
        "| shape | " + " | ".join(_size(n) for n in SIZES) + " |",
        "| --- | " + " | ".join("---:" for _ in SIZES) + " |",
    ]
    commands = {(s, n): make(n) for s, make in SHAPES.items() for n in SIZES}
    for shape in SHAPES:
        cells = []
        for size in SIZES:
            command = commands[shape, size]
            deny_ms, deny_kind = measure(DENY, command, repeat)
            require_ms, require_kind = measure(REQUIRE, command, repeat)
            cells.append(f"{deny_ms:.2f} {deny_kind} / {require_ms:.2f} {require_kind}")
            print(f"decide {shape:9} {size:>8} {cells[-1]}", file=sys.stderr)
        lines.append(f"| {shape} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "### Event-loop stall p99 while `deny_commands` decides: off the loop (`PolicyHook`, "
        "as a session runs it) / on the loop (as before issue 27)",
        "",
        f"A heartbeat sleeps {HEARTBEAT * 1000:.0f} ms and records how late it wakes; the "
        "floor, with nothing deciding, is in the last line. Off the loop, the stall is what "
        "the worker thread keeps the GIL for (Python's switch interval is "
        f"{sys.getswitchinterval() * 1000:.0f} ms, and one C call such as a regular "
        "expression over the whole text is not interrupted).",
        "",
        "| shape | " + " | ".join(_size(n) for n in SIZES) + " |",
        "| --- | " + " | ".join("---:" for _ in SIZES) + " |",
    ]
    for shape in SHAPES:
        cells = []
        for size in SIZES:
            command = commands[shape, size]
            off = stall(DENY, command, repeat, on_loop=False)
            on = stall(DENY, command, repeat, on_loop=True)
            cells.append(f"{off:.2f} / {on:.2f}")
            print(f"stall  {shape:9} {size:>8} {cells[-1]}", file=sys.stderr)
        lines.append(f"| {shape} | " + " | ".join(cells) + " |")
    idle = stall(DENY, "ls", repeat, on_loop=True)
    typical = "git status && git diff HEAD~1 -- src | head -50"
    ms, kind = measure(DENY, typical, max(repeat, 101))
    over = "echo " + "a" * 2_000_000
    over_ms, over_kind = measure(DENY, over, repeat)
    lines += [
        "",
        f"Heartbeat lateness p99 while a 2-character command is decided on the loop (the "
        f"floor): {idle:.2f} ms. A typical command (`{typical}`): decide() p99 "
        f"{ms * 1000:.0f} us ({kind}). A 2 MB command: {over_ms * 1000:.0f} us ({over_kind}, "
        "unread).",
    ]
    return lines


def write(section: list[str], path: Path = RESULTS) -> None:
    write_section(path, START, END, section)


def main(argv: list[str] | None = None) -> int:
    return run_section(__doc__, table, repeat=30, path=RESULTS, start=START, end=END, argv=argv)


if __name__ == "__main__":
    raise SystemExit(main())
