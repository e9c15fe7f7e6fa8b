"""What the CLI under test sends that the model does not know, in one report.

Every e2e scenario's teardown collects the strict-drift findings of the frames it received and
of the typed answers to its requests (conftest.py, ``DRIFT``); this test runs last and fails
once, listing each new thing (a field, a kind, a type) with how often and where it was seen.
A newer CLI that adds a field turns this one test red, not every scenario. The report is also
written as JSON to ``$CLAUDE_SDK_DRIFT_REPORT`` when set (``nox -s e2e`` / ``e2e-latest``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from .conftest import DRIFT, DriftLog


def drift_report(log: DriftLog, cli_version: str) -> tuple[str, list[dict[str, object]]]:
    """The findings grouped by what is new: ``(text, rows)``."""
    groups: dict[tuple[str, str], list[str]] = {}
    for scenario, what, finding in log.findings:
        general = re.sub(r"\[\d+\]", "[]", finding)
        groups.setdefault((what, general), []).append(scenario)
    rows: list[dict[str, object]] = [
        {
            "where": what,
            "finding": finding,
            "count": len(seen),
            "scenarios": sorted(set(seen)),
        }
        for (what, finding), seen in sorted(groups.items())
    ]
    lines = [
        f"CLI {cli_version}: {len(rows)} thing(s) the model does not know, in "
        f"{len(log.findings)} finding(s) over {log.frames} frames and {log.entries} session-file "
        f"lines of {log.scenarios} scenarios:"
    ]
    for row in rows:
        scenarios = row["scenarios"]
        assert isinstance(scenarios, list)
        shown = ", ".join(str(s).rsplit("::", 1)[-1] for s in scenarios[:3])
        more = f" and {len(scenarios) - 3} more" if len(scenarios) > 3 else ""
        lines.append(
            f"- {row['where']}: {row['finding']} "
            f"(seen {row['count']}x in {len(scenarios)} scenario(s): {shown}{more})"
        )
    return "\n".join(lines), rows


def test_the_cli_sends_nothing_the_model_does_not_know(claude_cli_version: str) -> None:
    if DRIFT.scenarios == 0:
        pytest.skip("no e2e scenario ran in this session: nothing to report")
    text, rows = drift_report(DRIFT, claude_cli_version)
    target = os.environ.get("CLAUDE_SDK_DRIFT_REPORT")
    if target:
        Path(target).write_text(
            json.dumps(
                {
                    "cli_version": claude_cli_version,
                    "scenarios": DRIFT.scenarios,
                    "frames": DRIFT.frames,
                    "session_file_lines": DRIFT.entries,
                    "new": rows,
                },
                indent=1,
            )
            + "\n"
        )
    assert not rows, text
