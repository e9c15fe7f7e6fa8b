"""Loading the recorded CLI transcripts in tests/data/transcripts (see its README.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs

DATA = Path(__file__).parent / "data"
TRANSCRIPTS = DATA / "transcripts"
_MARKER = re.compile(r"^\.\.\.\[\d+ more of \d+\]$")


def clean(value: Any) -> Any:
    """Drop the shortening markers (``"...[K more of N]"`` list items), recursively."""
    if isinstance(value, list):
        return [clean(v) for v in value if not (isinstance(v, str) and _MARKER.match(v))]
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    return value


@attrs.frozen
class Record:
    file: str
    index: int
    direction: str  # "sdk>cli" or "cli>sdk"
    msg: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.file}:{self.index}"


def wire_logs() -> list[Path]:
    return sorted(p for p in TRANSCRIPTS.glob("*.jsonl") if not p.name.endswith(".api.jsonl"))


def records(path: Path | None = None) -> Iterator[Record]:
    """Every protocol line of one transcript (or all of them), markers dropped."""
    for p in [path] if path is not None else wire_logs():
        with p.open(encoding="utf-8") as f:
            for i, line in enumerate(f):
                rec = json.loads(line)
                if "msg" in rec:
                    yield Record(file=p.name, index=i, direction=rec["dir"], msg=clean(rec["msg"]))


def check_every_frame(recs: Iterable[Record], check: Callable[[Record], object]) -> None:
    """Run ``check`` on every frame of a recording; fail naming each frame that failed.

    One test per recording file, not one per frame: every frame is still checked, and the
    failure message gives the frame (``file:line``) and its assertion for each that failed.
    """
    failed: list[str] = []
    checked = 0
    for rec in recs:
        checked += 1
        try:
            check(rec)
        except Exception as exc:  # reported with the frame, below
            failed.append(f"frame {rec.id} ({rec.direction}): {type(exc).__name__}: {exc}")
    assert checked > 0, "no frame to check"
    assert not failed, f"{len(failed)} of {checked} frames failed:\n" + "\n".join(failed)
