"""Writing one benchmark's section into ``benchmarks/RESULTS.md`` between its markers."""

from __future__ import annotations

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
