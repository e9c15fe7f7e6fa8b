"""The examples: each parses, documents how to run it, and has a scenario in the offline runner.

The examples that need neither the CLI nor the API run here; the others run against the real
CLI and a FakeMessagesAPI in ``nox -s examples`` (``tests/support/run_example.py --all``).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claude_sdk.testing import FakeMessagesAPI

from .support.run_example import DEFAULT, EXAMPLES, ROOT, SCENARIOS, all_examples, scenario_for

EXAMPLE_FILES = all_examples()
#: Names that make an example need scripted tool calls (so a scenario, not the default).
NEEDS_A_SCENARIO = ("can_use_tool", "hooks=", "mcp_servers", "output_format", "FakeCLI")
NO_CLI = [
    "decode_wire.py",
    "testing_with_fake_cli.py",
    "high_volume.py",
    "fake_cli_executable.py",
    "typed_tool_results.py",
    "policy_dry_run.py",
]


def test_the_examples_are_there() -> None:
    names = {p.name for p in EXAMPLE_FILES}
    assert {
        "decode_wire.py",
        "quickstart.py",
        "multi_turn_session.py",
        "permissions.py",
        "hooks.py",
        "mcp_raw_server.py",
        "in_process_tools.py",
        "structured_output.py",
        "trio_backend.py",
        "testing_with_fake_cli.py",
    } <= names


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_an_example_parses_and_says_how_to_run_it(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    doc = ast.get_docstring(tree)
    assert doc, f"{path.name} has no module docstring"
    assert f"python examples/{path.name}" in doc
    guards = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)
    ]
    assert guards, f"{path.name} has no `if __name__ == '__main__':` block"


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_an_example_has_a_scenario_or_needs_none(path: Path) -> None:
    scenario = scenario_for(path)
    if path.name in SCENARIOS:
        assert scenario is SCENARIOS[path.name]
        return
    assert scenario is DEFAULT
    source = path.read_text(encoding="utf-8")
    used = [name for name in NEEDS_A_SCENARIO if name in source]
    assert not used, f"{path.name} uses {used}: give it a scenario in run_example.SCENARIOS"


def test_every_scenario_names_an_example_and_scripts_valid_replies() -> None:
    assert set(SCENARIOS) <= {p.name for p in EXAMPLE_FILES}
    api = FakeMessagesAPI()  # reply() validates its arguments without serving
    for name, scenario in SCENARIOS.items():
        for reply in scenario.replies:
            api.reply(**reply)
        assert scenario.needs_cli or not scenario.replies, name


@pytest.mark.parametrize("name", NO_CLI)
def test_the_examples_that_need_no_cli_run(name: str, tmp_path: Path) -> None:
    assert not SCENARIOS[name].needs_cli
    env = {**os.environ, "CLAUDE_SDK_CLI_PATH": str(tmp_path / "no-such-claude")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "support" / "run_example.py"), str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=50,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{name}: ok" in done.stdout
