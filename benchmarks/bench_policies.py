"""How long a command policy takes to decide, against the command's length.

`deny_commands` and `require_command` parse the whole command before deciding, and stop at
`claude_sdk.policies.DECIDE_BUDGET` (30 ms): past it a command is denied as too complex to
check. This measures ``decide()`` for commands of 1 KB to 200 KB in four shapes:

* ``heredoc``: a file written through a quoted here-document (the common long command);
* ``args``: one command with many long arguments;
* ``strings``: ``echo "..."`` commands with quoted strings holding blanks (each read as code);
* ``commands``: short commands joined by ``;`` (the densest shape: one command per 12 bytes).

Each figure is the median of ``--repeat`` runs (after a warm-up run), in milliseconds; the
decision is shown (``deny*`` when the budget ran out). Writes its table into
``benchmarks/RESULTS.md`` between the ``policies`` markers (``--write``), or prints it.

    python benchmarks/bench_policies.py [--repeat 9] [--write]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from claude_sdk.policies import DECIDE_BUDGET, deny_commands, require_command

RESULTS = Path(__file__).with_name("RESULTS.md")
START = "<!-- policies:start -->"
END = "<!-- policies:end -->"
SIZES = (1_000, 10_000, 50_000, 100_000, 200_000)

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


def measure(policy: object, command: str, repeat: int) -> tuple[float, str]:
    decide = policy.decide  # type: ignore[attr-defined]
    decision = decide("Bash", {"command": command})
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        decision = decide("Bash", {"command": command})
        times.append(time.perf_counter() - started)
    kind = decision.kind
    if kind == "deny" and "in time" in decision.reason:
        kind = "deny*"
    return statistics.median(times) * 1000, kind


def table(repeat: int) -> list[str]:
    lines = [
        "## Command policies: decide() time against command length",
        "",
        f"`benchmarks/bench_policies.py`: median of {repeat} runs, milliseconds, "
        f"`deny_commands` / `require_command`; the budget is {DECIDE_BUDGET * 1000:.0f} ms "
        "(`deny*`: the budget ran out and the command was denied as too complex).",
        "",
        "| shape | " + " | ".join(f"{n // 1000} KB" for n in SIZES) + " |",
        "| --- | " + " | ".join("---:" for _ in SIZES) + " |",
    ]
    for shape, make in SHAPES.items():
        cells = []
        for size in SIZES:
            command = make(size)
            deny_ms, deny_kind = measure(DENY, command, repeat)
            require_ms, require_kind = measure(REQUIRE, command, repeat)
            cells.append(f"{deny_ms:.2f} {deny_kind} / {require_ms:.2f} {require_kind}")
            print(f"{shape:9} {size:>7} {cells[-1]}", file=sys.stderr)
        lines.append(f"| {shape} | " + " | ".join(cells) + " |")
    typical = "git status && git diff HEAD~1 -- src | head -50"
    ms, kind = measure(DENY, typical, max(repeat, 101))
    lines += ["", f"A typical command (`{typical}`): {ms * 1000:.0f} us ({kind})."]
    return lines


def write(section: list[str], path: Path = RESULTS) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = "\n".join([START, *section, END])
    if START in text and END in text:
        before, rest = text.split(START, 1)
        after = rest.split(END, 1)[1]
        text = before + block + after
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--write", action="store_true", help=f"write the table into {RESULTS}")
    args = parser.parse_args(argv)
    section = table(args.repeat)
    if args.write:
        write(section)
        print(f"written to {RESULTS}")
    else:
        print("\n".join(section))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
