"""Writing one benchmark's section into ``benchmarks/RESULTS.md`` between its markers."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def write_section(path: Path, start: str, end: str, section: list[str]) -> None:
    """Put ``section`` between the ``start`` and ``end`` markers of ``path`` (replacing what
    was there), or append it with its markers."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = "\n".join([start, *section, end])
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        text = before + block + after
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def run_section(
    doc: str | None,
    make: Callable[[int], list[str]],
    *,
    repeat: int,
    path: Path,
    start: str,
    end: str,
    argv: list[str] | None,
) -> int:
    """A benchmark's command line: ``--repeat N`` runs, then print the section, or
    ``--write`` it into ``path`` between its markers."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--write", action="store_true", help=f"write the section into {path}")
    args = parser.parse_args(argv)
    section = make(args.repeat)
    if args.write:
        write_section(path, start, end, section)
        print(f"written to {path}")
    else:
        print("\n".join(section))
    return 0
