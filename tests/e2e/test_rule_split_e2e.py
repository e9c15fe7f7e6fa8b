"""Issue 27, item 10 against the real CLI: the rules ``python -m claude_sdk --allowed-tools``
builds from a text (the CLI's split, then `Options`) are exactly the rules the CLI lists.

The texts are generated (seeded, so a failure reproduces): rules with commas, spaces and
nested parentheses in their content, separated by commas and blanks. Everything `Options`
accepts goes into one session; the CLI's ``list_permission_rules`` must show each of them,
and nothing else, as a command-line rule.
"""

from __future__ import annotations

import os
import random
import re
import sys
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk.options import split_rules

from .conftest import E2E

_TOOLS = ["Bash", "Read", "Edit", "WebFetch", "mcp__srv__tool", "Glob"]
_CONTENT = "abz:*-_./~é ,"
_SEPARATORS = [",", " ", ", ", "  ", ",,"]


def _content(rng: random.Random) -> str:
    return "".join(rng.choice(_CONTENT) for _ in range(rng.randint(1, 8))).strip(" ,") or "a"


def _rule(rng: random.Random) -> str:
    tool = rng.choice(_TOOLS)
    shape = rng.randint(0, 3)
    if shape == 0:
        return tool
    if shape == 1:
        return f"{tool}({_content(rng)})"
    if shape == 2:
        return f"{tool}({_content(rng)}({_content(rng)}){_content(rng)})"
    return f"{tool}({_content(rng)}){_content(rng).replace(' ', '').replace(',', '')}"


def texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        rules = [_rule(rng) for _ in range(rng.randint(1, 4))]
        text = rules[0]
        for rule in rules[1:]:
            text += rng.choice(_SEPARATORS) + rule
        out.append(text)
    return out


def _accepted(text: str) -> list[str]:
    try:
        return list(cs.Options(allowed_tools=split_rules(text)).allowed_tools)
    except cs.OptionsError:
        return []


def _unescape(rule: str) -> str:
    """The CLI lists a parenthesis inside a rule's content escaped (``Bash(x\\)\\(y)``)."""
    return rule.replace("\\(", "(").replace("\\)", ")")


def _cli_rules(listed: Any) -> list[str]:
    rules = listed.get("state", {}).get("rules", [])
    return [
        _unescape(r["rule"])
        for r in rules
        if r.get("behavior") == "allow" and r.get("source") == "cliArg"
    ]


@pytest.mark.parametrize("seed", [27, 270, 2700])
async def test_the_cli_lists_exactly_the_rules_split_from_a_text(e2e: E2E, seed: int) -> None:
    wanted: list[str] = []
    split_into_several = 0
    for text in texts(seed, 80):
        rules = _accepted(text)
        split_into_several += len(rules) > 1
        wanted += [rule for rule in rules if rule not in wanted]
    assert len(wanted) >= 40  # the generator does its job
    assert split_into_several >= 15
    e2e.api.reply(text="ok")
    options = e2e.options(allowed_tools=wanted)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        listed = await session.list_permission_rules()
    listed_rules = _cli_rules(listed)
    # Nothing the CLI lists is other than a rule given (no rule split or merged otherwise) ...
    assert [rule for rule in listed_rules if rule not in wanted] == [], listed
    # ... and every rule given is listed, except the ones the CLI's rule parser then ignores
    # (a file tool's rule with text after its ')': "Read(x)y"), which is no split of ours.
    missing = [rule for rule in wanted if rule not in listed_rules]
    assert [rule for rule in missing if not _TRAILING.fullmatch(rule)] == [], listed
    assert len(listed_rules) >= 30


#: A rule with text after its last ')'.
_TRAILING = re.compile(r"[^(]+\(.*\)[^)]+", re.DOTALL)


async def test_printf_with_a_comma_is_one_rule(e2e: E2E) -> None:
    e2e.api.reply(text="ok")
    options = e2e.options(allowed_tools=split_rules("Bash(printf a,b),Read"))
    async with cs.open_session(options, transport=e2e.transport()) as session:
        listed = await session.list_permission_rules()
    assert sorted(_cli_rules(listed)) == ["Bash(printf a,b)", "Read"]


async def test_the_command_line_allows_a_rule_with_a_comma(e2e: E2E) -> None:
    """``python -m claude_sdk --allowed-tools "Bash(touch a,b),Read"``: the CLI runs
    ``touch a,b`` without asking; without the rule nothing would answer, and it is denied.
    (``printf a,b`` would not tell: the CLI runs read-only commands unasked.)"""

    async def run(*args: str) -> tuple[int, str]:
        env = {**e2e.api.env(), "HOME": str(e2e.home), "CLAUDE_SDK_CLI_PATH": e2e.cli}
        env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")  # for the command it runs
        done = await anyio.run_process(
            [sys.executable, "-m", "claude_sdk", "go", "--cwd", str(e2e.cwd), *args],
            env=env,
            check=False,
        )
        return done.returncode, done.stdout.decode() + done.stderr.decode()

    made = e2e.cwd / "a,b"
    for allowed in (False, True):
        e2e.api.reply(tool_use=("Bash", {"command": "touch a,b"}))
        e2e.api.reply(text="done")
        flags = ["--allowed-tools", "Bash(touch a,b),Read"] if allowed else []
        code, output = await run(*flags)
        assert code == 0, output
        result = e2e.api.main_requests[-1].tool_results[0]
        assert made.exists() is allowed, (allowed, result.text)
        assert result.is_error is not allowed, result.text
