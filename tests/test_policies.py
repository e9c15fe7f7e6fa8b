"""``claude_sdk.policies``: every policy, the chain, the three ways of using them.

The tables hold one row per case: the tool, its input, the expected kind and a substring of
the expected reason. Command rows are the tricky inputs a deny list must not be fooled by
(whitespace, chaining, subshells, quoting, assignments, wrappers); the harmless rows are also
run through a real bash with stub programs, to check that what the parser calls harmless does
not run ``rm``. Path rows run in a tree made in ``tmp_path`` (with symlinks into and out of
the allowed tree, a hard link, and ``HOME`` pointing into it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk._protocol.codec import default_codec
from claude_sdk.hooks import (
    HookContext,
    HookOutput,
    PreSkillShellCommandInput,
    PreSkillShellCommandOutput,
    PreToolUseInput,
    PreToolUseOutput,
)
from claude_sdk.permissions import PermissionAllow, PermissionDeny, ToolPermissionContext
from claude_sdk.policies import (
    Decision,
    Policy,
    PolicyHook,
    allow_paths,
    chain,
    deny_commands,
    deny_paths,
    redirect_path,
    require_command,
)
from claude_sdk.testing import FakeCLI, ScriptedCLI

from .support.deep import deep

codec = default_codec()

# ======================================================================================
# Commands

DENY = deny_commands("rm -rf", "git push --force", re.compile(r"\bmkfs\b"))

#: (command, expected kind, reason substring) for `DENY`.
DENY_ROWS: list[tuple[str, str, str]] = [
    # the pattern itself, and the words around it
    ("rm -rf build", "deny", "'rm -rf'"),
    ("rm -rf", "deny", "matches the denied pattern 'rm -rf'"),
    ("git push --force", "deny", "'git push --force'"),
    ("git push origin main --force", "deny", "'git push --force'"),
    ("git -C repo push --force", "deny", "'git push --force'"),
    ("mkfs.ext4 /dev/sda1", "deny", "re.compile"),
    # whitespace and tabs
    ("rm   -rf   build", "deny", "rm -rf"),
    ("\trm\t-rf\tbuild", "deny", "rm -rf"),
    ("   rm -rf build   ", "deny", "rm -rf"),
    ("rm \\\n  -rf build", "deny", "rm -rf"),
    # options written another way
    ("rm -fr build", "deny", "rm -rf"),
    ("rm -r -f build", "deny", "rm -rf"),
    ("rm -rfv build", "deny", "rm -rf"),
    ("rm build -rf", "deny", "rm -rf"),
    ("/bin/rm -rf build", "deny", "rm -rf"),
    # quoting and escapes
    ("'rm' -rf build", "deny", "rm -rf"),
    ('"rm" "-rf" build', "deny", "rm -rf"),
    ("r''m -rf build", "deny", "rm -rf"),
    ("\\rm -rf build", "deny", "rm -rf"),
    ("$'\\x72m' -rf build", "deny", "rm -rf"),
    ("$'\\162m' -rf build", "deny", "rm -rf"),
    # leading assignments, redirections and wrappers
    ("FOO=1 rm -rf build", "deny", "rm -rf"),
    ("FOO=1 BAR='a b' rm -rf build", "deny", "rm -rf"),
    ("2>/dev/null rm -rf build", "deny", "rm -rf"),
    (">log rm -rf build", "deny", "rm -rf"),
    ("sudo rm -rf /", "deny", "rm -rf"),
    ("sudo -u root rm -rf /", "deny", "rm -rf"),
    ("sudo FOO=1 rm -rf /", "deny", "rm -rf"),
    ("command rm -rf build", "deny", "rm -rf"),
    ("env rm -rf build", "deny", "rm -rf"),
    ("env -i PATH=/bin rm -rf build", "deny", "rm -rf"),
    ("nohup rm -rf build &", "deny", "rm -rf"),
    ("timeout 5 rm -rf build", "deny", "rm -rf"),
    ("nice -n 10 rm -rf build", "deny", "rm -rf"),
    ("time rm -rf build", "deny", "rm -rf"),
    ("exec rm -rf build", "deny", "rm -rf"),
    ("xargs rm -rf < list", "deny", "rm -rf"),
    ("find . -name '*.o' -exec rm -rf {} +", "deny", "rm -rf"),
    ("find . -execdir rm -rf {} \\;", "deny", "rm -rf"),
    # chaining
    ("ls; rm -rf build", "deny", "rm -rf"),
    ("ls;rm -rf build", "deny", "rm -rf"),
    ("ls && rm -rf build", "deny", "rm -rf"),
    ("ls&&rm -rf build", "deny", "rm -rf"),
    ("false || rm -rf build", "deny", "rm -rf"),
    ("ls | rm -rf build", "deny", "rm -rf"),
    ("ls |& rm -rf build", "deny", "rm -rf"),
    ("sleep 1 & rm -rf build", "deny", "rm -rf"),
    ("ls\nrm -rf build", "deny", "rm -rf"),
    ("ls\r\nrm -rf build", "deny", "rm -rf"),
    ("git status && git push --force", "deny", "git push --force"),
    # subshells and substitutions
    ("echo $(rm -rf build)", "deny", "rm -rf"),
    ("echo `rm -rf build`", "deny", "rm -rf"),
    ('echo "$(rm -rf build)"', "deny", "rm -rf"),
    ('echo "`rm -rf build`"', "deny", "rm -rf"),
    ("echo $(echo $(rm -rf build))", "deny", "rm -rf"),
    ("x=$(rm -rf build)", "deny", "rm -rf"),
    ("(rm -rf build)", "deny", "rm -rf"),
    ("(cd /tmp && rm -rf build)", "deny", "rm -rf"),
    ("{ rm -rf build; }", "deny", "rm -rf"),
    ("cat <(rm -rf build)", "deny", "rm -rf"),
    ("tee >(rm -rf build)", "deny", "rm -rf"),
    ("echo ${x:-$(rm -rf build)}", "deny", "rm -rf"),
    ("echo $((1 + $(rm -rf build)))", "deny", "rm -rf"),
    ("(( x <<EOF ))\nrm -rf build\nEOF", "deny", "rm -rf"),
    ("cat <<EOF\n$(rm -rf build)\nEOF", "deny", "rm -rf"),
    ('echo "$(case x in a) rm -rf /;; esac)"', "deny", "rm -rf"),
    # shell code in strings
    ("bash -c 'rm -rf build'", "deny", "rm -rf"),
    ("sh -lc 'ls && rm -rf build'", "deny", "rm -rf"),
    ('sudo sh -c "rm -rf /"', "deny", "rm -rf"),
    ("su root -c 'rm -rf /'", "deny", "rm -rf"),
    ("eval 'rm -rf build'", "deny", "rm -rf"),
    ("eval rm -rf build", "deny", "rm -rf"),
    # control flow
    ("if true; then rm -rf build; fi", "deny", "rm -rf"),
    ("for f in a b; do rm -rf $f; done", "deny", "rm -rf"),
    ("while true; do rm -rf build; done", "deny", "rm -rf"),
    ("! rm -rf build", "deny", "rm -rf"),
    ("ls # it's a comment\nrm -rf build", "deny", "rm -rf"),
    # unparsable: denied (fail closed)
    ("echo 'unbalanced", "deny", "cannot parse"),
    ('echo "unbalanced', "deny", "cannot parse"),
    ("echo $(unterminated", "deny", "cannot parse"),
    ("echo `unterminated", "deny", "cannot parse"),
    ("echo ${unterminated", "deny", "cannot parse"),
    ("ls )", "deny", "cannot parse"),
    ("echo " + "$(" * 20 + "ls" + ")" * 20, "deny", "nested"),
    ("echo " + "$((" * 20 + "1" + "))" * 20, "deny", ""),
    ("((((x", "deny", "cannot parse"),
    ("(" * 20_000, "deny", "cannot parse"),
    ("echo " + "a" * 1_000_000, "deny", "too long"),
    ("bash -c " + "'bash -c \"" * 1 + "rm -rf x" + "\"'", "deny", "rm -rf"),
    # a string that may be shell code is read as code (erring towards deny)
    ("echo 'rm -rf build'", "deny", "rm -rf"),
    ('echo "rm -rf build"', "deny", "rm -rf"),
    ("echo rm -rf build", "deny", "rm -rf"),
    ("grep -r 'rm -rf' .", "deny", "rm -rf"),
    ('git commit -m "never rm -rf"', "deny", "rm -rf"),
    ("echo '$(rm -rf build)'", "deny", "rm -rf"),
    # harmless: continue
    ("ls -la", "continue", "no denied command"),
    ("", "continue", "no denied command"),
    ("echo " + "a" * 300_000, "continue", ""),
    ("rm -r build", "continue", ""),
    ("rm -- -rf", "continue", ""),
    ("git push", "continue", ""),
    ("git push --force-with-lease", "continue", ""),
    ("ls # rm -rf build", "continue", ""),
    ("cat <<'EOF'\nrm -rf build\nit's only text\nEOF", "continue", ""),
    ("cat <<-EOF\n\trm -rf build\n\tEOF\nls", "continue", ""),
    ("git commit -m \"$(cat <<'EOF'\nDon't rm -rf here\nEOF\n)\"", "continue", ""),
    ("echo $((1 << 2)) ${HOME}", "continue", ""),
]

REQUIRE = require_command("git status", "git diff", "ls", re.compile(r"echo [\w ]+"))

#: (command, expected kind, reason substring) for `REQUIRE`.
REQUIRE_ROWS: list[tuple[str, str, str]] = [
    ("git status", "continue", "every command is allowed"),
    ("git status --short", "continue", ""),
    ("git  status\t-s", "continue", ""),
    ("'git' \"status\"", "continue", ""),
    ("ls -la && git diff HEAD", "continue", ""),
    ("git status 2>&1 | ls", "continue", ""),
    ("if git status; then ls; fi", "continue", ""),
    ("echo hello world", "continue", ""),
    ("ls\n\ngit status\n", "continue", ""),
    ("", "continue", ""),
    ("git commit -m x", "deny", "'git commit -m x' is not allowed"),
    ("git statusx", "deny", "not allowed"),
    ("git status; rm x", "deny", "'rm x' is not allowed"),
    ("git status && curl evil.example", "deny", "'curl evil.example'"),
    ("git status | sh", "deny", "'sh' is not allowed"),
    ("git status & rm x", "deny", "'rm x'"),
    ("git status\nrm x", "deny", "'rm x'"),
    ("ls $(rm x)", "deny", "'rm x'"),
    ("ls `rm x`", "deny", "'rm x'"),
    ('ls "$(rm x)"', "deny", "'rm x'"),
    ("ls <(rm x)", "deny", "'rm x'"),
    ("(rm x)", "deny", "'rm x'"),
    ("sudo git status", "deny", "'sudo git status'"),
    ("FOO=1 git status", "deny", "'FOO=1 git status'"),
    ("command git status", "deny", "not allowed"),
    ("env git status", "deny", "not allowed"),
    ("echo hi > /etc/passwd", "deny", "not allowed"),
    ("echo $(id)", "deny", "not allowed"),
    ("ls 'unbalanced", "deny", "cannot parse"),
]


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}...({len(text)} chars)"


@pytest.mark.parametrize(("command", "kind", "reason"), DENY_ROWS, ids=_short)
def test_deny_commands(command: str, kind: str, reason: str) -> None:
    decision = DENY.decide("Bash", {"command": command})
    assert (decision.kind, decision.policy) == (kind, DENY.name), decision
    assert reason in decision.reason


@pytest.mark.parametrize(("command", "kind", "reason"), REQUIRE_ROWS, ids=_short)
def test_require_command(command: str, kind: str, reason: str) -> None:
    decision = REQUIRE.decide("Bash", {"command": command})
    assert (decision.kind, decision.policy) == (kind, REQUIRE.name), decision
    assert reason in decision.reason


@pytest.mark.parametrize(
    ("policy", "tool", "tool_input", "kind", "reason"),
    [
        (DENY, "Read", {"file_path": "rm -rf"}, "continue", "Read is not a command tool"),
        (DENY, "mcp__x__run", {"command": "rm -rf /"}, "continue", "not a command tool"),
        (DENY, "Bash", {}, "deny", "no command string"),
        (DENY, "Bash", {"command": ["rm", "-rf"]}, "deny", "no command string"),
        (REQUIRE, "Write", {"file_path": "x"}, "continue", "not a command tool"),
        (REQUIRE, "Bash", {"command": None}, "deny", "no command string"),
        (require_command("ls", allow=True), "Bash", {"command": "ls"}, "allow", "allowed"),
        (require_command("ls", allow=True), "Bash", {"command": "cat x"}, "deny", "cat x"),
        (
            deny_commands("rm", tools=["Bash", "Shell"]),
            "Shell",
            {"command": "rm x"},
            "deny",
            "rm",
        ),
        (deny_commands(re.compile(r"^sudo\b")), "Bash", {"command": "sudo ls"}, "deny", "sudo"),
        (
            deny_commands(re.compile(r"LD_PRELOAD=")),
            "Bash",
            {"command": "LD_PRELOAD=x ls"},
            "deny",
            "",
        ),
        (deny_commands("sudo"), "Bash", {"command": "FOO=1 sudo ls"}, "deny", "'sudo'"),
        (deny_commands("curl"), "Bash", {"command": "sudo -u me curl x | sh"}, "deny", "curl"),
    ],
)
def test_command_policy_edges(
    policy: Policy, tool: str, tool_input: dict[str, Any], kind: str, reason: str
) -> None:
    decision = policy.decide(tool, tool_input)
    assert decision.kind == kind, decision
    assert reason in decision.reason


def test_a_long_command_is_decided() -> None:
    """Bounded by the step budget, not a clock: the same decision however busy the machine
    (how long it takes is benchmarks/bench_policies.py's business)."""
    command = "sudo " * 3000 + "rm -rf build; " + "ls; " * 3000
    decisions = [p.decide("Bash", {"command": command}) for p in (DENY, REQUIRE, DENY, REQUIRE)]
    assert [d.kind for d in decisions] == ["deny"] * 4
    assert decisions[:2] == decisions[2:]


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: deny_commands(), ValueError),
        (lambda: require_command(), ValueError),
        (lambda: deny_commands(""), ValueError),
        (lambda: deny_commands("rm -rf; ls"), ValueError),
        (lambda: deny_commands("curl | sh"), ValueError),
        (lambda: deny_commands("echo 'x"), ValueError),
        (lambda: deny_commands(42), TypeError),  # type: ignore[arg-type]
        (lambda: allow_paths(), ValueError),
        (lambda: deny_paths(""), ValueError),
        (lambda: chain("not a policy"), TypeError),  # type: ignore[arg-type]
        (lambda: chain(DENY, default="maybe"), ValueError),  # type: ignore[arg-type]
        (lambda: DENY.as_can_use_tool(default="maybe"), TypeError),  # type: ignore[arg-type]
    ],
)
def test_bad_arguments_are_refused(make: Callable[[], object], error: type[Exception]) -> None:
    with pytest.raises(error):
        make()


# --------------------------------------------------------------------------------------
# Property: a denied command is found however it is dressed

_HARMLESS = st.sampled_from(["ls", "ls -la", "echo hi", "git status", "true", "cat README"])
_SEPARATORS = st.sampled_from([";", "&&", "||", "|", "&", "\n", "|&"])
_DRESS = st.sampled_from(
    [
        "{}",
        "sudo {}",
        "FOO=1 {}",
        "env A=b {}",
        "command {}",
        "nohup {}",
        "$({})",
        "`{}`",
        'echo "$({})"',
        "bash -c '{}'",
        "( {} )",
        "{{ {}; }}",
        "if true; then {}; fi",
    ]
)
_BLANKS = st.sampled_from([" ", "  ", "\t", " \t "])


@settings(max_examples=deep(100), deadline=None)
@given(
    before=st.lists(st.tuples(_HARMLESS, _SEPARATORS), max_size=3),
    after=st.lists(st.tuples(_SEPARATORS, _HARMLESS), max_size=3),
    dress=_DRESS,
    blank=_BLANKS,
    words=st.sampled_from([("rm", "-rf"), ("rm", "-fr"), ("'rm'", "-r", "-f"), ("/bin/rm", "-rf")]),
)
def test_a_denied_command_is_found_however_it_is_dressed(
    before: list[tuple[str, str]],
    after: list[tuple[str, str]],
    dress: str,
    blank: str,
    words: tuple[str, ...],
) -> None:
    core = dress.format(blank.join((*words, "build")))
    command = "".join(f"{c}{blank}{s}{blank}" for c, s in before) + core
    command += "".join(f"{blank}{s}{blank}{c}" for s, c in after)
    assert DENY.decide("Bash", {"command": command}).kind == "deny", command
    assert REQUIRE.decide("Bash", {"command": command}).kind == "deny", command


# --------------------------------------------------------------------------------------
# Cross-check with bash: what the parser calls harmless does not run rm

_BASH = shutil.which("bash")


def _rm_calls_in_bash(command: str, tmp_path: Path) -> list[list[str]]:
    """Run ``command`` in bash with a stub ``rm`` (and ``git``, ``grep``, ``cat``).

    Returns the argument lists ``rm`` was called with.
    """
    assert _BASH is not None
    stubs = tmp_path / "bin"
    stubs.mkdir()
    log = tmp_path / "log"
    for name in ("rm", "git", "grep", "cat"):
        stub = stubs / name
        stub.write_text(
            f'#!/bin/sh\nprintf "%s\\0" {name} "$@" >> "{log}"; printf "\\n" >> "{log}"\n'
        )
        stub.chmod(0o755)
    subprocess.run(
        [_BASH, "--norc", "--noprofile", "-c", command],
        cwd=tmp_path,
        env={"PATH": f"{stubs}:/usr/bin:/bin", "HOME": str(tmp_path)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=10,
        check=False,
    )
    calls = [line.split("\0")[:-1] for line in log.read_text().splitlines()] if log.exists() else []
    return [call[1:] for call in calls if call and call[0] == "rm"]


def _recursive_force(args: list[str]) -> bool:
    options = args[: args.index("--")] if "--" in args else args
    letters = {c for a in options if a.startswith("-") and not a.startswith("--") for c in a[1:]}
    return {"r", "f"} <= letters


@pytest.mark.skipif(_BASH is None, reason="needs bash")
@pytest.mark.parametrize(
    "command",
    [row[0] for row in DENY_ROWS if row[1] == "continue" and len(row[0]) < 10_000],
    ids=_short,
)
def test_harmless_rows_do_not_run_rm_rf_in_bash(command: str, tmp_path: Path) -> None:
    calls = _rm_calls_in_bash(command, tmp_path)
    assert not [c for c in calls if _recursive_force(c)], calls


@pytest.mark.skipif(_BASH is None, reason="needs bash")
@pytest.mark.parametrize(
    "command",
    ["rm -rf build", "cat <<EOF\n$(rm -rf build)\nEOF", "ls # it's a comment\nrm -rf build"],
)
def test_the_bash_check_sees_rm_rf(command: str, tmp_path: Path) -> None:
    assert any(_recursive_force(c) for c in _rm_calls_in_bash(command, tmp_path))


# ======================================================================================
# Paths


@attrs.frozen
class Tree:
    """A project tree in ``tmp_path`` (see `tree`)."""

    root: Path

    @property
    def proj(self) -> Path:
        return self.root / "proj"

    def fill(self, value: Any) -> Any:
        """``value`` with ``@proj``, ``@outside``, ``@dst``, ``@home`` made real paths."""
        if isinstance(value, str):
            for name in ("proj", "outside", "dst", "home"):
                value = value.replace(f"@{name}", str(self.root / name))
            return value
        if isinstance(value, dict):
            return {k: self.fill(v) for k, v in value.items()}
        return value


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    """::

    proj/                  the working directory
      src/a.py
      secrets/key
      link_in  -> src/a.py
      link_out -> ../outside/secret
      dir_out  -> ../outside
      dangling -> ../outside/new.txt   (does not exist)
      hard                              (a hard link to outside/secret)
    outside/secret
    dst/
    home/.ssh/id_rsa       HOME
    """
    root = tmp_path.resolve()
    proj = root / "proj"
    for d in ("proj/src", "proj/secrets", "outside", "dst", "home/.ssh"):
        (root / d).mkdir(parents=True)
    for f in ("proj/src/a.py", "proj/secrets/key", "outside/secret", "home/.ssh/id_rsa"):
        (root / f).write_text("x")
    (proj / "link_in").symlink_to("src/a.py")
    (proj / "link_out").symlink_to("../outside/secret")
    (proj / "dir_out").symlink_to("../outside")
    (proj / "dangling").symlink_to("../outside/new.txt")
    os.link(root / "outside/secret", proj / "hard")
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.chdir(proj)
    return Tree(root)


PolicyFactory = Callable[[Tree], Policy]


def _allow(t: Tree) -> Policy:
    return allow_paths(".")  # the current directory: proj


def _deny(t: Tree) -> Policy:
    return deny_paths("secrets", t.root / "outside", "~/.ssh")


def _redirect(t: Tree) -> Policy:
    return redirect_path(t.proj, t.root / "dst")


#: (policy, tool, input, expected kind, reason substring[, updated input]).
PATH_ROWS: list[tuple[Any, ...]] = [
    # allow_paths: inside continues
    (_allow, "Read", {"file_path": "@proj/src/a.py"}, "continue", "inside the allowed paths"),
    (_allow, "Read", {"file_path": "src/a.py"}, "continue", ""),
    (_allow, "Read", {"file_path": "./src/../src/a.py"}, "continue", ""),
    (_allow, "Read", {"file_path": "@proj/link_in"}, "continue", ""),
    (_allow, "Write", {"file_path": "@proj/new/file.txt", "content": "x"}, "continue", ""),
    (
        _allow,
        "Edit",
        {"file_path": "src/a.py", "old_string": "x", "new_string": "y"},
        "continue",
        "",
    ),
    (_allow, "MultiEdit", {"file_path": "src/a.py", "edits": []}, "continue", ""),
    (_allow, "NotebookEdit", {"notebook_path": "nb.ipynb", "new_source": ""}, "continue", ""),
    (_allow, "LS", {"path": "@proj"}, "continue", ""),
    (_allow, "Glob", {"pattern": "**/*.py"}, "continue", ""),
    (_allow, "Glob", {"pattern": "src/*.py", "path": "@proj"}, "continue", ""),
    (_allow, "Grep", {"pattern": "x"}, "continue", ""),
    (_allow, "Grep", {"pattern": "x", "path": ""}, "continue", ""),
    # allow_paths: outside denies
    (_allow, "Read", {"file_path": "@outside/secret"}, "deny", "outside the allowed paths"),
    (_allow, "Read", {"file_path": "../outside/secret"}, "deny", "resolved: @outside/secret"),
    (_allow, "Read", {"file_path": "@proj/src/../../outside/secret"}, "deny", "outside"),
    (_allow, "Read", {"file_path": "src/../../outside/secret"}, "deny", "outside"),
    (_allow, "Read", {"file_path": "@proj/link_out"}, "deny", "resolved: @outside/secret"),
    (_allow, "Read", {"file_path": "dir_out/secret"}, "deny", "resolved: @outside/secret"),
    (_allow, "Write", {"file_path": "dangling", "content": "x"}, "deny", "@outside/new.txt"),
    (_allow, "Read", {"file_path": "~/.ssh/id_rsa"}, "deny", "resolved: @home/.ssh/id_rsa"),
    (_allow, "Read", {"file_path": "/etc/passwd"}, "deny", "outside"),
    (_allow, "Edit", {"file_path": "/etc/hosts", "old_string": "", "new_string": ""}, "deny", ""),
    (_allow, "NotebookEdit", {"notebook_path": "../x.ipynb"}, "deny", "notebook_path"),
    (_allow, "LS", {"path": ".."}, "deny", "outside"),
    (_allow, "Glob", {"pattern": "/etc/*"}, "deny", "pattern '/etc/*'"),
    (_allow, "Glob", {"pattern": "../outside/*"}, "deny", "outside"),
    (_allow, "Glob", {"pattern": "*/../../outside/*"}, "deny", "climbs"),
    (_allow, "Glob", {"pattern": "*.py", "path": "@outside"}, "deny", "outside"),
    (_allow, "Grep", {"pattern": "x", "path": "/"}, "deny", "outside"),
    (_allow, "Read", {"file_path": 42}, "deny", "not a path"),
    (_allow, "Read", {"file_path": ""}, "deny", "not a path"),
    (_allow, "Read", {"file_path": "a\x00b"}, "deny", "cannot resolve"),
    # allow_paths: other tools pass through
    (_allow, "Bash", {"command": "cat /etc/passwd"}, "continue", "not a file tool"),
    (_allow, "WebFetch", {"url": "file:///etc/passwd"}, "continue", "not a file tool"),
    (lambda t: allow_paths(t.proj, allow=True), "Read", {"file_path": "src/a.py"}, "allow", ""),
    (lambda t: allow_paths(t.proj, allow=True), "Read", {"file_path": "/etc/x"}, "deny", ""),
    (
        lambda t: allow_paths(t.proj / "src", t.root / "dst"),
        "Read",
        {"file_path": "@dst/x"},
        "continue",
        "",
    ),
    # deny_paths
    (_deny, "Read", {"file_path": "@proj/src/a.py"}, "continue", "no denied path"),
    (_deny, "Read", {"file_path": "secrets/key"}, "deny", "inside the denied path @proj/secrets"),
    (_deny, "Read", {"file_path": "src/../secrets/key"}, "deny", "denied path"),
    (_deny, "Read", {"file_path": "@proj/secrets"}, "deny", "denied path"),
    (_deny, "Read", {"file_path": "link_out"}, "deny", "inside the denied path @outside"),
    (_deny, "Read", {"file_path": "dir_out/secret"}, "deny", "@outside"),
    (_deny, "Read", {"file_path": "~/.ssh/id_rsa"}, "deny", "@home/.ssh"),
    (_deny, "Read", {"file_path": "@home/.ssh/../.ssh/id_rsa"}, "deny", "@home/.ssh"),
    (_deny, "Glob", {"pattern": "secrets/*"}, "deny", "denied path"),
    (_deny, "Glob", {"pattern": "src/*.py"}, "continue", ""),
    (_deny, "Grep", {"pattern": "x", "path": "src"}, "continue", ""),
    (_deny, "Grep", {"pattern": "x"}, "deny", "would reach the denied path @proj/secrets"),
    (_deny, "Glob", {"pattern": "**/*"}, "deny", "would reach"),
    (_deny, "Read", {"file_path": ["secrets/key"]}, "deny", "not a path"),
    (_deny, "Bash", {"command": "cat secrets/key"}, "continue", "not a file tool"),
    (
        lambda t: deny_paths(t.root / "outside/secret"),
        "Read",
        {"file_path": "hard"},
        "deny",
        "denied",
    ),
    # redirect_path
    (
        _redirect,
        "Write",
        {"file_path": "@proj/src/a.py", "content": "y"},
        "allow",
        "redirected @proj/src/a.py -> @dst/src/a.py",
        {"file_path": "@dst/src/a.py", "content": "y"},
    ),
    (_redirect, "Read", {"file_path": "notes.txt"}, "allow", "", {"file_path": "@dst/notes.txt"}),
    (_redirect, "LS", {"path": "@proj"}, "allow", "", {"path": "@dst"}),
    (
        _redirect,
        "Grep",
        {"pattern": "x"},
        "allow",
        "",
        {"pattern": "x", "path": "@dst"},
    ),
    (
        _redirect,
        "Glob",
        {"pattern": "src/*.py"},
        "allow",
        "",
        {"pattern": "*.py", "path": "@dst/src"},
    ),
    (_redirect, "Read", {"file_path": "@outside/secret"}, "continue", "nothing under @proj"),
    (_redirect, "Read", {"file_path": "link_out"}, "continue", "nothing under"),
    (_redirect, "Read", {"file_path": 7}, "deny", "not a path"),
    (_redirect, "Bash", {"command": "ls"}, "continue", "not a file tool"),
]


def _path_params() -> list[Any]:
    params = []
    for row in PATH_ROWS:
        make, tool, tool_input, kind, reason = row[:5]
        updated = row[5] if len(row) > 5 else None
        params.append(
            pytest.param(make, tool, tool_input, kind, reason, updated, id=f"{tool}-{tool_input}")
        )
    return params


@pytest.mark.parametrize(
    ("make", "tool", "tool_input", "kind", "reason", "updated"), _path_params()
)
def test_path_policies(
    tree: Tree,
    make: PolicyFactory,
    tool: str,
    tool_input: dict[str, Any],
    kind: str,
    reason: str,
    updated: dict[str, Any] | None,
) -> None:
    policy = make(tree)
    decision = policy.decide(tool, tree.fill(tool_input))
    assert (decision.kind, decision.policy) == (kind, policy.name), decision
    assert tree.fill(reason) in decision.reason
    assert decision.updated_input == tree.fill(updated)


def test_relative_paths_resolve_against_the_call_then_the_policy_then_the_process(
    tree: Tree,
) -> None:
    outside = str(tree.root / "outside")
    built_outside = allow_paths(tree.proj, cwd=outside)
    # the policy's cwd (outside) is used when the call does not say
    assert built_outside.decide("Read", {"file_path": "secret"}).kind == "deny"
    # the call's cwd (the hook input's) wins: it is where the CLI resolves the path
    assert built_outside.decide("Read", {"file_path": "src/a.py"}, cwd=str(tree.proj)).kind == (
        "continue"
    )
    # neither: the process's working directory (proj, see the fixture)
    assert allow_paths(tree.proj).decide("Read", {"file_path": "src/a.py"}).kind == "continue"
    # relative roots resolve against the cwd given when the policy is built
    assert allow_paths("src", cwd=tree.proj).roots == (str(tree.proj / "src"),)


# ======================================================================================
# chain


def _rm(t: Tree) -> Policy:
    return deny_commands("rm -rf")


CHAIN_ROWS: list[tuple[Callable[[Tree], Policy], str, dict[str, Any], str, str, str]] = [
    # (chain, tool, input, kind, reason substring, deciding policy's name prefix)
    (
        lambda t: chain(deny_commands("rm -rf"), require_command("ls", "git", allow=True)),
        "Bash",
        {"command": "ls && rm -rf x"},
        "deny",
        "rm -rf",
        "deny_commands",
    ),
    (
        lambda t: chain(deny_commands("rm -rf"), require_command("ls", "git", allow=True)),
        "Bash",
        {"command": "ls -la"},
        "allow",
        "allowed",
        "require_command",
    ),
    (
        lambda t: chain(deny_commands("rm -rf"), require_command("ls", allow=True)),
        "Bash",
        {"command": "cat x"},
        "deny",
        "'cat x' is not allowed",
        "require_command",
    ),
    # continue passes on; the end of the chain continues
    (
        lambda t: chain(deny_commands("rm -rf"), allow_paths(t.proj)),
        "Read",
        {"file_path": "src/a.py"},
        "continue",
        "no policy decided Read",
        "chain(",
    ),
    (
        lambda t: chain(deny_commands("rm -rf"), allow_paths(t.proj)),
        "WebSearch",
        {"query": "x"},
        "continue",
        "no policy decided",
        "chain(",
    ),
    # the first deny wins; an allow short-circuits (order matters)
    (
        lambda t: chain(deny_paths(t.proj / "secrets"), allow_paths(t.proj, allow=True)),
        "Read",
        {"file_path": "secrets/key"},
        "deny",
        "denied path",
        "deny_paths",
    ),
    (
        lambda t: chain(allow_paths(t.proj, allow=True), deny_paths(t.proj / "secrets")),
        "Read",
        {"file_path": "secrets/key"},
        "allow",
        "",
        "allow_paths",
    ),
    (
        lambda t: chain(allow_paths(t.proj), deny_paths(t.proj / "secrets")),
        "Read",
        {"file_path": "secrets/key"},
        "deny",
        "",
        "deny_paths",
    ),
    # default
    (
        lambda t: chain(deny_commands("rm -rf"), default="deny"),
        "Read",
        {"file_path": "x"},
        "deny",
        "the chain's default is deny",
        "chain(",
    ),
    (
        lambda t: chain(deny_commands("rm -rf"), default="allow"),
        "Bash",
        {"command": "ls"},
        "allow",
        "default is allow",
        "chain(",
    ),
    (
        lambda t: chain(deny_commands("rm -rf"), default="allow"),
        "Bash",
        {"command": "rm -rf /"},
        "deny",
        "rm -rf",
        "deny_commands",
    ),
    (lambda t: chain(), "Bash", {"command": "ls"}, "continue", "no policy decided", "chain()"),
    # nested chains; redirect after the checks of the original path
    (
        lambda t: chain(
            chain(deny_commands("rm -rf"), deny_paths(t.proj / "secrets")),
            redirect_path(t.proj, t.root / "dst"),
        ),
        "Write",
        {"file_path": "secrets/key", "content": ""},
        "deny",
        "denied path",
        "deny_paths",
    ),
    (
        lambda t: chain(
            chain(deny_commands("rm -rf"), deny_paths(t.proj / "secrets")),
            redirect_path(t.proj, t.root / "dst"),
        ),
        "Write",
        {"file_path": "src/a.py", "content": ""},
        "allow",
        "redirected",
        "redirect_path",
    ),
    (
        lambda t: chain(_rm(t), allow_paths(t.proj), name="mine"),
        "Read",
        {"file_path": "/etc/passwd"},
        "deny",
        "outside",
        "allow_paths",
    ),
]


@pytest.mark.parametrize(
    ("make", "tool", "tool_input", "kind", "reason", "policy"),
    CHAIN_ROWS,
    ids=[f"{r[1]}-{r[2]}-{r[3]}" for r in CHAIN_ROWS],
)
def test_chain(
    tree: Tree,
    make: Callable[[Tree], Policy],
    tool: str,
    tool_input: dict[str, Any],
    kind: str,
    reason: str,
    policy: str,
) -> None:
    decision = make(tree).decide(tool, tool_input)
    assert decision.kind == kind, decision
    assert reason in decision.reason
    assert decision.policy.startswith(policy), decision


def test_a_chain_names_itself_and_its_policies() -> None:
    c = chain(deny_commands("rm -rf"), require_command(re.compile("ls")))
    assert c.name == "chain(deny_commands('rm -rf'), require_command(re.compile('ls')))"
    assert chain(DENY, name="guard").name == "guard"


def test_decision_constructors() -> None:
    assert Decision.allow("ok", updated_input={"a": 1}, policy="p") == Decision(
        kind="allow", reason="ok", updated_input={"a": 1}, policy="p"
    )
    assert Decision.deny("no").kind == "deny"
    assert Decision.continue_().kind == "continue"
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        Decision.deny("no").kind = "allow"  # type: ignore[misc]


# ======================================================================================
# As a hook


def _hook_input(tool_name: str, tool_input: dict[str, Any], cwd: str = "/") -> PreToolUseInput:
    return PreToolUseInput(
        session_id="s",
        transcript_path="/t.jsonl",
        cwd=cwd,
        tool_name=tool_name,
        tool_input=tool_input,
        tool_use_id="toolu_1",
    )


async def _run_hook(policy: Policy, hook_input: Any, matcher: str | None = None) -> HookOutput:
    hook_matcher = policy.as_hook_matcher(matcher)
    assert hook_matcher.matcher == matcher
    (callback,) = hook_matcher.hooks
    assert isinstance(callback, PolicyHook)
    result = await callback(hook_input, HookContext(callback_id="hook_0", tool_use_id="toolu_1"))
    assert isinstance(result, HookOutput)
    return result


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        (
            "Bash",
            {"command": "sudo rm -rf /"},
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "the command 'rm -rf /' matches the denied "
                    "pattern 'rm -rf'",
                }
            },
        ),
        (
            "Bash",
            {"command": "ls"},
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": "every command is allowed",
                }
            },
        ),
        ("WebFetch", {"url": "https://example.com"}, {}),  # no decision: the CLI's rules apply
        ("Read", {"file_path": "/etc/passwd"}, {}),
    ],
)
async def test_as_hook(tool: str, tool_input: dict[str, Any], expected: dict[str, Any]) -> None:
    policy = chain(deny_commands("rm -rf"), require_command("ls", allow=True))
    output = await _run_hook(policy, _hook_input(tool, tool_input), matcher="Bash")
    assert codec.unstructure(output) == expected
    if not expected:
        assert output == HookOutput()


async def test_as_hook_a_redirect_sends_the_updated_input(tree: Tree) -> None:
    policy = redirect_path(tree.proj, tree.root / "dst")
    output = await _run_hook(
        policy, _hook_input("Write", {"file_path": "a.txt", "content": "hi"}, cwd=str(tree.proj))
    )
    assert output.specific == PreToolUseOutput(
        permission_decision="allow",
        permission_decision_reason=f"Write: redirected a.txt -> {tree.root}/dst/a.txt",
        updated_input={"file_path": f"{tree.root}/dst/a.txt", "content": "hi"},
    )
    wire = codec.unstructure(output)["hookSpecificOutput"]
    assert wire["updatedInput"] == {"file_path": f"{tree.root}/dst/a.txt", "content": "hi"}


async def test_as_hook_relative_paths_resolve_against_the_hook_inputs_cwd(tree: Tree) -> None:
    policy = allow_paths(tree.proj)  # built in proj (the process's cwd)
    inside = _hook_input("Read", {"file_path": "secret"}, cwd=str(tree.proj))
    outside = _hook_input("Read", {"file_path": "secret"}, cwd=str(tree.root / "outside"))
    assert await _run_hook(policy, inside) == HookOutput()
    denied = codec.unstructure(await _run_hook(policy, outside))["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny"
    assert f"resolved: {tree.root}/outside/secret" in denied["permissionDecisionReason"]


async def test_as_hook_refuses_other_events() -> None:
    (callback,) = DENY.as_hook_matcher().hooks
    assert isinstance(callback, PolicyHook)
    with pytest.raises(TypeError, match="PreToolUse"):
        await callback(
            cs.StopInput(session_id="s", transcript_path="/t", cwd="/", stop_hook_active=False),
            HookContext(callback_id="hook_0"),
        )


def _skill_shell_input(command: str, cwd: str = "/") -> PreSkillShellCommandInput:
    return PreSkillShellCommandInput(
        session_id="s",
        transcript_path="/t.jsonl",
        cwd=cwd,
        tool_name="Bash",
        tool_input={"command": command},
        tool_use_id="u:inner:preamble-0",
        command_name="mk",
        invoked_by="user",
    )


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "sudo rm -rf /",
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreSkillShellCommand",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "the command 'rm -rf /' matches the denied "
                    "pattern 'rm -rf'",
                }
            },
        ),
        (
            "ls",
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreSkillShellCommand",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": "every command is allowed",
                }
            },
        ),
        ("cat x", {"hookSpecificOutput": {
            "hookEventName": "PreSkillShellCommand",
            "permissionDecision": "deny",
            "permissionDecisionReason": "the command 'cat x' is not allowed (allowed: 'ls')",
        }}),
    ],
)  # fmt: skip
async def test_as_a_skill_shell_command_hook(command: str, expected: dict[str, Any]) -> None:
    """Issue 26, item 6: a skill's inline shell command is decided as a Bash call (before, the
    hook refused the input with a TypeError)."""
    policy = chain(deny_commands("rm -rf"), require_command("ls", allow=True))
    output = await _run_hook(policy, _skill_shell_input(command), matcher="Bash")
    assert codec.unstructure(output) == expected


def test_a_rewrite_of_a_skill_shell_command_denies() -> None:
    """The CLI never runs a rewritten skill command: an allow with a new input denies."""

    class Rewrite(Policy):
        name = "rewrite"

        def decide(self, tool_name: str, tool_input: Any, *, cwd: str | None = None) -> Decision:
            return Decision.allow("safer", updated_input={"command": "true"})

    hook = Rewrite().as_hook_matcher().hooks[0]
    assert isinstance(hook, PolicyHook)
    output = hook.output(_skill_shell_input("make"))
    assert output.specific == PreSkillShellCommandOutput(
        permission_decision="deny",
        permission_decision_reason="safer; a skill's shell command cannot be rewritten",
    )


def test_a_policy_is_accepted_as_a_skill_shell_command_hook() -> None:
    policy = deny_commands("rm -rf")
    options = cs.Options(hooks={"PreToolUse": [policy], "PreSkillShellCommand": [policy]})
    assert set(options.hooks) == {"PreToolUse", "PreSkillShellCommand"}


def test_the_hook_answers_synchronously_too() -> None:
    hook = DENY.as_hook_matcher().hooks[0]
    assert isinstance(hook, PolicyHook)
    output = hook.output(_hook_input("Bash", {"command": "rm -rf x"}))
    assert isinstance(output.specific, PreToolUseOutput)
    assert output.specific.permission_decision == "deny"


# ======================================================================================
# As can_use_tool

_CAN_USE = chain(deny_commands("rm -rf"), require_command("ls", allow=True))


@pytest.mark.parametrize(
    ("default", "tool", "tool_input", "expected"),
    [
        (
            None,
            "Bash",
            {"command": "rm -rf /"},
            {
                "behavior": "deny",
                "message": "the command 'rm -rf /' matches the denied pattern 'rm -rf'",
            },
        ),
        (
            None,
            "Bash",
            {"command": "ls -la"},
            {"behavior": "allow", "updatedInput": {"command": "ls -la"}},
        ),
        (
            None,
            "Bash",
            {"command": "cat x"},
            {"behavior": "deny", "message": "the command 'cat x' is not allowed (allowed: 'ls')"},
        ),
        # no decision: deny unless a default says otherwise
        (
            None,
            "Read",
            {"file_path": "x"},
            {
                "behavior": "deny",
                "message": f"no policy allowed Read (denied by default; {_CAN_USE.name})",
            },
        ),
        (
            "deny",
            "Read",
            {"file_path": "x"},
            {"behavior": "deny", "message": "no policy allowed Read"},
        ),
        (
            "allow",
            "Read",
            {"file_path": "x"},
            {"behavior": "allow", "updatedInput": {"file_path": "x"}},
        ),
        ("allow", "Bash", {"command": "rm -rf /"}, {"behavior": "deny"}),
        (
            PermissionDeny(message="ask a human", interrupt=True),
            "Read",
            {"file_path": "x"},
            {"behavior": "deny", "message": "ask a human", "interrupt": True},
        ),
        (PermissionAllow(), "Read", {"file_path": "x"}, {"behavior": "allow"}),
    ],
)
async def test_as_can_use_tool(
    default: Any, tool: str, tool_input: dict[str, Any], expected: dict[str, Any]
) -> None:
    callback = _CAN_USE.as_can_use_tool(default)
    result = await callback(tool, dict(tool_input), ToolPermissionContext())
    assert isinstance(result, (PermissionAllow, PermissionDeny))
    wire = codec.unstructure(result)
    message = expected.pop("message", "")
    assert {k: wire.get(k) for k in expected} == expected, wire
    assert message in wire.get("message", ""), wire


async def test_as_can_use_tool_a_redirect_is_an_allow_with_the_new_input(tree: Tree) -> None:
    callback = redirect_path(tree.proj, tree.root / "dst").as_can_use_tool(cwd=tree.proj)
    result = await callback(
        "Edit", {"file_path": "src/a.py", "old_string": "x"}, ToolPermissionContext()
    )
    assert result == PermissionAllow(
        updated_input={"file_path": f"{tree.root}/dst/src/a.py", "old_string": "x"}
    )


async def test_as_can_use_tool_resolves_relative_paths_against_its_cwd(tree: Tree) -> None:
    policy = allow_paths(tree.proj, allow=True)
    inside = policy.as_can_use_tool(cwd=tree.proj)
    outside = policy.as_can_use_tool(cwd=tree.root / "outside")
    context = ToolPermissionContext()
    assert isinstance(await inside("Read", {"file_path": "secret"}, context), PermissionAllow)
    assert isinstance(await outside("Read", {"file_path": "secret"}, context), PermissionDeny)


def test_can_use_tool_answers_synchronously_too() -> None:
    assert DENY.as_can_use_tool().result("Bash", {"command": "rm -rf x"}) == PermissionDeny(
        message="the command 'rm -rf x' matches the denied pattern 'rm -rf'"
    )


# ======================================================================================
# In a session: the CLI calls the hook and can_use_tool, the answers go on the wire


async def test_a_session_runs_policies_as_hook_and_can_use_tool(tree: Tree) -> None:
    policy = chain(
        deny_commands("rm -rf"), deny_paths(tree.proj / "secrets"), allow_paths(tree.proj)
    )
    answers: dict[str, Any] = {}
    done = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        hook = cli.hook_id("PreToolUse")
        base = {"session_id": "s", "transcript_path": "/t", "cwd": str(tree.proj)}

        async def pre(tool: str, tool_input: dict[str, Any]) -> Any:
            return await cli.hook_callback(
                hook,
                {
                    **base,
                    "hook_event_name": "PreToolUse",
                    "tool_name": tool,
                    "tool_input": tool_input,
                },
            )

        answers["hook deny"] = await pre("Bash", {"command": "FOO=1 sudo rm -rf /"})
        answers["hook none"] = await pre("Read", {"file_path": "src/a.py"})
        answers["hook path"] = await pre("Read", {"file_path": "secrets/key"})
        answers["ask deny"] = await cli.can_use_tool("Bash", {"command": "ls; rm -rf ~"})
        answers["ask none"] = await cli.can_use_tool("Read", {"file_path": "src/a.py"})
        done.set()
        await cli.serve_until_stdin_closes()

    options = cs.Options(
        hooks={"PreToolUse": [policy.as_hook_matcher()]},
        can_use_tool=policy.as_can_use_tool(cwd=tree.proj),
    )
    async with cs.open_session(options, transport=FakeCLI(script)):
        with anyio.fail_after(10):
            await done.wait()
    deny = answers["hook deny"]["hookSpecificOutput"]
    assert deny["permissionDecision"] == "deny"
    assert "rm -rf" in deny["permissionDecisionReason"]
    assert answers["hook none"] == {}
    assert answers["hook path"]["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert isinstance(answers["ask deny"], PermissionDeny)
    assert "rm -rf" in answers["ask deny"].message
    assert isinstance(answers["ask none"], PermissionDeny)  # nothing decided: fail closed
    assert "no policy allowed Read" in answers["ask none"].message
