"""The compatibility table's row (docs/compatibility.md) of one e2e run.

``nox -s e2e`` and ``nox -s e2e-latest`` call it after the run (pass or fail) with the
JUnit XML of pytest and the drift report of tests/e2e/test_drift_report.py. It prints the row
of that CLI version and writes it to ``--row`` (the run's reports directory). Only with
``--doc`` (``nox -s e2e -- --update-compat``) is the row replaced (or added) in the table;
rows stay ordered newest CLI first. A check run edits no tracked file.

    python tests/support/compat.py --row R.md --junit J.xml --drift D.json \\
        --cli-version 2.1.331 --source "claude-agent-sdk 0.2.188 wheel" [--doc D.md]
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

BEGIN = "<!-- compat-table:begin -->"
END = "<!-- compat-table:end -->"
HEADER = (
    "| CLI version | Where it came from | claude_sdk | Date | e2e result | New in the wire |\n"
    "|---|---|---|---|---|---|"
)


def junit_counts(path: Path) -> dict[str, int]:
    """tests / failures / errors / skipped of a JUnit XML file (all suites)."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    keys = ("tests", "failures", "errors", "skipped")
    return {k: sum(int(s.get(k, 0)) for s in suites) for k in keys}


def result_text(counts: dict[str, int]) -> str:
    passed = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    bad = counts["failures"] + counts["errors"]
    head = "green" if bad == 0 and passed > 0 else "RED"
    parts = [f"{passed} passed"]
    if bad:
        parts.append(f"{bad} failed")
    if counts["skipped"]:
        parts.append(f"{counts['skipped']} skipped")
    return f"{head}: {', '.join(parts)}"


def drift_text(path: Path | None) -> str:
    if path is None or not path.exists():
        return "not reported"
    report = json.loads(path.read_text())
    new = report.get("new", [])
    if not new:
        lines = report.get("session_file_lines")
        files = f", {lines} session-file lines" if lines else ""
        return f"nothing ({report.get('frames', 0)} frames{files})"
    shown = "; ".join(f"{row['where']} {row['finding']}" for row in new[:3])
    more = f" (+{len(new) - 3} more)" if len(new) > 3 else ""
    return (shown + more).replace("|", "\\|")


def _version_key(row: str) -> tuple[int, ...]:
    cell = row.split("|")[1].strip()
    return tuple(int(x) for x in re.findall(r"\d+", cell)) or (0,)


def update(doc: Path, row: str, cli_version: str) -> None:
    text = doc.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{doc} has no {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN, 1)
    table, tail = rest.split(END, 1)
    rows = [
        line
        for line in table.strip().splitlines()
        if line.startswith("|") and not line.startswith(("| CLI version", "|---"))
    ]
    rows = [r for r in rows if r.split("|")[1].strip() != cli_version] + [row]
    rows.sort(key=_version_key, reverse=True)
    body = "\n".join([HEADER, *rows])
    doc.write_text(f"{head}{BEGIN}\n{body}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--doc", type=Path, help="the table to update (none: print only)")
    parser.add_argument("--row", type=Path, help="a file to write the row to")
    parser.add_argument("--junit", type=Path, required=True)
    parser.add_argument("--drift", type=Path)
    parser.add_argument("--cli-version", required=True)
    parser.add_argument("--source", required=True)
    args = parser.parse_args(argv)
    from claude_sdk import __version__

    counts = (
        junit_counts(args.junit)
        if args.junit.exists()
        else {"tests": 0, "failures": 1, "errors": 0, "skipped": 0}
    )
    today = datetime.date.today().isoformat()
    row = (
        f"| {args.cli_version} | {args.source} | {__version__} | {today} | "
        f"{result_text(counts)} | {drift_text(args.drift)} |"
    )
    if args.row is not None:
        args.row.write_text(row + "\n", encoding="utf-8")
    if args.doc is not None:
        update(args.doc, row, args.cli_version)
        print(f"{args.doc}: {row}")
    else:
        where = f" (also in {args.row})" if args.row is not None else ""
        print(f"the row of docs/compatibility.md for this run{where}:\n{row}")
        print("(`nox -s e2e -- --update-compat` writes it into the table)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
