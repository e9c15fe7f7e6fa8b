"""Issue 27, item 10: permission rules are split the way the CLI splits them.

The CLI reads one ``--allowedTools``/``--disallowedTools`` value as rules separated by a comma
or a space outside parentheses, where a ``(`` opens and any ``)`` closes (they do not nest),
each trimmed of JavaScript's whitespace. The oracle is the CLI's own function, taken from its
bundle and run under Node.js (`tests.support.cli_js`); the rows below are cases it decided.
Nothing here is async.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk.options import split_rules
from claude_sdk.testing import ScriptedCLI
from claude_sdk.testing.stdio import write_fake_cli

from ..support import cli_js

ROOT = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------------------
# Generated rule lists

#: Characters that matter to the split, and a few that only look like they might.
_SPECIAL = "(),  \t\u00a0\ufeff\u2028\u3000\x85\x1c\\:*/\"'"
_PLAIN = "abBR:*-_./~é漢😀"

_tool = st.sampled_from(["Bash", "Read", "Edit", "WebFetch", "mcp__srv__tool", "Skill", "x"])
_content = st.text(alphabet=_PLAIN + " ,\t", max_size=12)


@st.composite
def _rule(draw: st.DrawFn) -> str:
    """A rule as a person would write it, with commas, spaces and nested parentheses in its
    content."""
    tool = draw(_tool)
    shape = draw(st.integers(0, 3))
    if shape == 0:
        return tool
    inner = draw(_content)
    if shape == 2:  # nested parentheses
        inner = f"{inner}({draw(_content)}){draw(_content)}"
    elif shape == 3:  # unbalanced
        return f"{tool}({inner}" if draw(st.booleans()) else f"{tool}{inner})"
    return f"{tool}({inner})"


_separator = st.sampled_from([",", " ", ", ", " ,", "  ", ",,", "\t,", ", \u00a0"])


@st.composite
def _rule_list(draw: st.DrawFn) -> str:
    rules = draw(st.lists(_rule(), min_size=1, max_size=5))
    out = rules[0]
    for rule in rules[1:]:
        out += draw(_separator) + rule
    return draw(st.sampled_from(["", " ", "\ufeff", "\t"])) + out


#: Any text at all, from the characters that matter, and rule lists as people write them.
rule_text = st.one_of(st.text(alphabet=_SPECIAL + _PLAIN, max_size=24), _rule_list())

BATCH = 200


def _cli_split(values: list[str]) -> list[list[str]]:
    """What the CLI's own splitter makes of each value (one ``--allowedTools`` value each)."""
    result: list[list[str]] = cli_js.run(cli_js.RULE_SPLITTER, [[[v]] for v in values])
    return result


# --------------------------------------------------------------------------------------
# The oracle: the CLI's function under Node.js


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(rule_text, min_size=BATCH, max_size=BATCH))
def test_split_rules_is_the_cli_s_split(values: list[str]) -> None:
    assert [split_rules(v) for v in values] == _cli_split(values)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(rule_text, min_size=BATCH, max_size=BATCH))
def test_the_cli_reads_exactly_the_rules_options_accepts(values: list[str]) -> None:
    """What ``python -m claude_sdk --allowed-tools TEXT`` builds: the CLI's split of TEXT,
    then ``Options``. Either Options refuses it (an OptionsError naming the option), or the
    one ``--allowedTools`` value it puts on the command line reads, in the CLI, as exactly
    the rules Options holds."""
    accepted: list[tuple[str, ...]] = []
    for value in values:
        for option in ("allowed_tools", "disallowed_tools"):
            refused: list[cs.OptionsError] = []
            try:
                options = cs.Options(**{option: split_rules(value)})  # type: ignore[arg-type]
            except cs.OptionsError as exc:
                refused.append(exc)
            if refused:
                assert refused[0].option == option
                continue
            rules = getattr(options, option)
            assert list(rules) == split_rules(value)
            accepted.append(rules)
    joined = [",".join(rules) for rules in accepted]
    assert _cli_split(joined) == [list(rules) for rules in accepted]


# --------------------------------------------------------------------------------------
# Rows the oracle decided (they run without the CLI)

CLI_ROWS = [
    ("Bash(printf a,b),Read", ["Bash(printf a,b)", "Read"]),
    ("Bash(printf a,b) Read", ["Bash(printf a,b)", "Read"]),
    ("Read(/a b/**), Bash(git log:*)", ["Read(/a b/**)", "Bash(git log:*)"]),
    ("Bash(echo (nested) x)", ["Bash(echo (nested)", "x)"]),
    ("Bash(a(b),Bash x)", ["Bash(a(b)", "Bash", "x)"]),
    ("Bash(x,Read", ["Bash(x,Read"]),
    (" \ufeffRead\tWrite , x", ["Read\tWrite", "x"]),
    ("Read,\x85Write", ["Read", "\x85Write"]),
    (",, ,", []),
    ("", []),
]


@pytest.mark.parametrize(("text", "rules"), CLI_ROWS)
def test_rows_the_cli_decided(text: str, rules: list[str]) -> None:
    assert split_rules(text) == rules


def test_the_rows_are_what_the_cli_does() -> None:
    assert _cli_split([text for text, _ in CLI_ROWS]) == [rules for _, rules in CLI_ROWS]


# --------------------------------------------------------------------------------------
# Options: an entry is one rule as the CLI reads it


@pytest.mark.parametrize(
    "entry",
    [
        "Bash(echo (nested) x)",  # the CLI reads "Bash(echo (nested)" and "x)"
        "Bash(a(b),Bash x)",  # ... and here a bare "Bash": every command
        "Bash(a(b)c)",  # a ")" that closes nothing (the CLI's parentheses do not nest)
        "Read)",
    ],
)
@pytest.mark.parametrize("option", ["allowed_tools", "disallowed_tools"])
def test_an_entry_the_cli_reads_as_other_rules_is_refused(option: str, entry: str) -> None:
    with pytest.raises(cs.OptionsError) as info:
        cs.Options(**{option: [entry]})  # type: ignore[arg-type]
    assert info.value.option == option
    assert repr(entry) in str(info.value)


@pytest.mark.parametrize(
    "entry", ["Bash(printf a,b)", "Bash(echo a b)", "Read(/a b/**)", "Bash(x)(y)"]
)
def test_an_entry_with_commas_and_spaces_inside_parentheses_is_one_rule(entry: str) -> None:
    assert cs.Options(allowed_tools=[entry]).allowed_tools == (entry,)


# --------------------------------------------------------------------------------------
# python -m claude_sdk --allowed-tools


async def argv_script(cli: ScriptedCLI) -> None:
    """A fake CLI whose answer is the command line it was started with (as JSON)."""
    await cli.handshake()
    await cli.next_prompt()
    await cli.turn(text=json.dumps(list(cli.spec.argv)))


def _run_main(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cli = write_fake_cli(tmp_path / "claude", script=f"{__name__}:argv_script")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE")}
    env["PYTHONPATH"] = str(ROOT)  # the fake imports this module
    return subprocess.run(
        [sys.executable, "-m", "claude_sdk", "hi", "--cli-path", str(cli), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
        env=env,
    )


def _argv(done: subprocess.CompletedProcess[str]) -> list[str]:
    for line in done.stdout.splitlines():
        if line.startswith("claude> "):
            argv: list[str] = json.loads(line.removeprefix("claude> "))
            return argv
    raise AssertionError(done.stdout + done.stderr)


@pytest.mark.parametrize(
    ("flag", "wire"),
    [("--allowed-tools", "allowedTools"), ("--disallowed-tools", "disallowedTools")],
)
def test_the_command_line_splits_rules_as_the_cli_does(
    tmp_path: Path, flag: str, wire: str
) -> None:
    done = _run_main(tmp_path, flag, "Bash(printf a,b), Read")
    assert done.returncode == 0, done.stderr
    assert f"--{wire}=Bash(printf a,b),Read" in _argv(done)


def test_a_rule_the_cli_would_read_otherwise_is_one_error_line(tmp_path: Path) -> None:
    done = _run_main(tmp_path, "--allowed-tools", "Bash(echo (nested) x)")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("error: Options.allowed_tools entry 'x)' ")
    assert "Traceback" not in done.stderr
