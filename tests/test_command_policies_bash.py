"""Command policies against what bash really does (issues 15 and 27).

Every row is decided by the policy and, where the programs it needs exist here, run by real
bash under strace (`tests/support/strace_run.py`) in a scratch directory holding a tree
``x/``: a deny row must really run ``rm`` recursive and forced (any path to it) or remove
the tree (or the row says why bash cannot show it here), a ``continue`` row must do neither.

`ISSUE_27_ROWS` are the cases issue 27 found (each let through by the tree-sitter scan and
run by bash); tests/test_policy_oracle.py generates such commands at random and
tests/data/policies/oracle_rows.txt holds what it found.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from claude_sdk.policies import deny_commands, require_command

from .support import strace_run

RM_RF = deny_commands("rm -rf")
BASH = shutil.which("bash")

# (command, expected kind, reason substring, programs bash needs, or None when bash cannot
# show it here: a remote host, a privilege prompt, a terminal)
Row = tuple[str, str, str, "tuple[str, ...] | None"]

FLAG_ROWS: list[Row] = [
    ("rm -rf x", "deny", "matches", ()),
    ("rm -Rf x", "deny", "matches", ()),
    ("rm -R -f x", "deny", "matches", ()),
    ("rm -dRf x", "deny", "matches", ()),
    ("rm -fR x", "deny", "matches", ()),
    ("rm --recursive --force x", "deny", "matches", ()),
    ("rm -r --force x", "deny", "matches", ()),
    ("rm --force -R x", "deny", "matches", ()),
    ("rm --rec --for x", "deny", "matches", ()),
    ("rm --recur --fo x", "deny", "matches", ()),
    ("rm -v -r -v -f x", "deny", "matches", ()),
    ("rm x -rf", "deny", "matches", ()),
    ("rm -r x -f", "deny", "matches", ()),
    ("rm --interactive=never -rf x", "deny", "matches", ()),
    ("/bin/rm -rf x", "deny", "matches", ()),
    ("/usr/bin/../bin/rm -rf x", "deny", "matches", ()),
    ("\\rm -rf x", "deny", "matches", ()),
    ("r\\m -r\\f x", "deny", "matches", ()),
    ("'r'm -'r'f x", "deny", "matches", ()),
    ('"rm" "-Rf" x', "deny", "matches", ()),
    ("$'\\x72m' -rf x", "deny", "matches", ()),
    ("$'\\162\\155' $'-\\x72f' x", "deny", "matches", ()),
    ('$"rm" -rf x', "deny", "matches", ()),
    ("rm -{r,f} x", "deny", "", ()),
    ("rm {-r,-f} x", "deny", "", ()),
    ("{rm,-rf,x}", "deny", "", ()),
    # harmless spellings
    ("rm -r --interactive=never x/y/z", "continue", "", ()),
    ("rm -f x/y/z", "continue", "", ()),
    ("rm -- -rf", "continue", "", ()),
    ("rm -d x/y/nothing", "continue", "", ()),
    ("ls -rf x", "continue", "", ()),
    ("grep -rf x x", "continue", "", ()),
]

CODE_ROWS: list[Row] = [
    ("bash -c 'rm -rf x'", "deny", "matches", ()),
    ("bash -c -- 'rm -rf x'", "deny", "matches", ()),
    ("bash -xc 'rm -rf x'", "deny", "matches", ()),
    ("sh -c 'cd . && rm -rf x'", "deny", "matches", ()),
    ("dash -c 'rm -rf x'", "deny", "matches", ("dash",)),
    ("bash -c 'bash -c \"rm -rf x\"'", "deny", "matches", ()),
    ("env -S 'rm -rf x'", "deny", "matches", ()),
    ("env --split-string='rm -rf x'", "deny", "matches", ()),
    ("env -i PATH=$PATH rm -rf x", "deny", "matches", ()),
    ("script -qc 'rm -rf x' /dev/null", "deny", "matches", ("script",)),
    ("script -q -c 'rm -rf x' /dev/null", "deny", "matches", ("script",)),
    ("su -c 'rm -rf x'", "deny", "matches", None),
    ("su root -c 'rm -rf x'", "deny", "matches", None),
    ("runuser -u root -- rm -rf x", "deny", "matches", None),
    ("trap 'rm -rf x' EXIT", "deny", "matches", ()),
    ("trap -- 'rm -rf x' EXIT", "deny", "matches", ()),
    ("eval 'rm -rf x'", "deny", "matches", ()),
    ("eval rm -rf x", "deny", "matches", ()),
    ("eval 'rm' '-rf' 'x'", "deny", "matches", ()),
    ('eval "r""m -rf x"', "deny", "matches", ()),
    ("watch -n 1 'rm -rf x'", "deny", "matches", None),
    ("tmux new -d 'rm -rf x'", "deny", "matches", None),
    ("tmux new-session -d rm -rf x", "deny", "matches", None),
    ("ssh host rm -rf x", "deny", "matches", None),
    ("ssh host 'rm -rf x'", "deny", "matches", None),
    ("ssh -p 22 host -- rm -rf x", "deny", "matches", None),
    ("xargs -I{} sh -c 'rm -rf {}' <<< x", "deny", "matches", ()),
    ("find . -maxdepth 1 -name x -exec rm -rf {} +", "deny", "matches", ()),
    ("find . -maxdepth 1 -name x -exec sh -c 'rm -rf \"$1\"' _ {} \\;", "deny", "matches", ()),
    ("alias r='rm -rf'; r x", "deny", "matches", None),
    ('f() { rm -rf "$1"; }; f x', "deny", "", ()),
    ("PROMPT_COMMAND='rm -rf x' bash -ic true", "deny", "matches", None),
]

WRAPPER_ROWS: list[Row] = [
    ("fakeroot rm -rf x", "deny", "matches", ("fakeroot",)),
    ("unshare -U rm -rf x", "deny", "matches", None),
    ("taskset 1 rm -rf x", "deny", "matches", ("taskset",)),
    ("taskset -c 0 rm -rf x", "deny", "matches", ("taskset",)),
    ("setpriv rm -rf x", "deny", "matches", ("setpriv",)),
    ("prlimit --nofile=256 rm -rf x", "deny", "matches", ("prlimit",)),
    ("chrt -o 0 rm -rf x", "deny", "matches", ("chrt",)),
    ("pkexec rm -rf x", "deny", "matches", None),
    ("systemd-run rm -rf x", "deny", "matches", None),
    ("firejail rm -rf x", "deny", "matches", None),
    ("valgrind -q rm -rf x", "deny", "matches", None),
    ("numactl -N 0 rm -rf x", "deny", "matches", None),
    ("cgexec -g cpu:x rm -rf x", "deny", "matches", None),
    ("faketime '2020-01-01' rm -rf x", "deny", "matches", None),
    ("screen -dm rm -rf x", "deny", "matches", None),
    ("sg root 'rm -rf x'", "deny", "matches", None),
    ("sudo -u root rm -rf x", "deny", "matches", None),
    ("nice -n 5 rm -rf x", "deny", "matches", ("nice",)),
    ("ionice -c 3 rm -rf x", "deny", "matches", ("ionice",)),
    ("timeout 5 rm -rf x", "deny", "matches", ("timeout",)),
    ("stdbuf -o0 rm -rf x", "deny", "matches", ("stdbuf",)),
    ("setsid -w rm -rf x", "deny", "matches", ("setsid",)),
    ("flock /tmp/.claude-sdk-test-lock rm -rf x", "deny", "matches", ("flock",)),
    ("flock /tmp/.claude-sdk-test-lock -c 'rm -rf x'", "deny", "matches", ("flock",)),
    ("command rm -rf x", "deny", "matches", ()),
    ("builtin command rm -rf x", "deny", "", ()),
    ("exec rm -rf x", "deny", "matches", ()),
    ("time rm -rf x", "deny", "matches", ()),
    ("nohup rm -rf x", "deny", "matches", ("nohup",)),
    ("echo x | xargs rm -rf", "deny", "matches", ()),
    ("echo -rf x | xargs rm", "deny", "matches", ()),
    ("env rm -rf x", "deny", "matches", ()),
    ("FOO=1 rm -rf x", "deny", "matches", ()),
    ("2>/dev/null rm -rf x", "deny", "matches", ()),
    ("strace -o /dev/null rm -rf x", "deny", "matches", None),
    ("some-new-tool --flag rm -rf x", "deny", "matches", None),
]

COMPUTED_ROWS: list[Row] = [
    ("echo rm -rf x | bash", "deny", "matches", ()),
    ("echo 'rm -rf x' | sh", "deny", "matches", ()),
    ("printf 'rm -rf x\\n' | bash", "deny", "matches", ()),
    ("printf '%s\\n' 'rm -rf x' | bash -s", "deny", "matches", ()),
    ("bash <<EOF\nrm -rf x\nEOF", "deny", "matches", ()),
    ("bash <<'EOF'\nrm -rf x\nEOF", "deny", "matches", ()),
    ("cat <<EOF | sh\nrm -rf x\nEOF", "deny", "matches", ()),
    ("bash <<< 'rm -rf x'", "deny", "matches", ()),
    ("sh < <(echo rm -rf x)", "deny", "matches", ()),
    (". <(echo rm -rf x)", "deny", "matches", ()),
    ("source <(printf 'rm -rf x')", "deny", "matches", ()),
    ("bash <(echo rm -rf x)", "deny", "matches", ()),
    ("echo cm0gLXJmIHgK | base64 -d | sh", "deny", "computed", ()),
    ("echo 'ql -qe w' | tr a-y b-z | sh", "deny", "computed", ()),
    ("curl -s http://127.0.0.1:9/x | bash", "deny", "computed", None),
    ("bash < /dev/stdin <<< 'rm -rf x'", "deny", "", ()),
    ("$(echo rm) -rf x", "deny", "matches", ()),
    ("`echo rm` -rf x", "deny", "matches", ()),
    ("a=rm; $a -rf x", "deny", "matches", ()),
    ("${c:=rm} -rf x", "deny", "computed", ()),
    ('c=rm; "$c" -rf x', "deny", "matches", ()),
    ("f=-rf; rm $f x", "deny", "matches", ()),
    ("sudo $(echo rm) -rf x", "deny", "", None),
    ("r=$'\\x72m'; $r -rf x", "deny", "matches", ()),
    # literal code that is harmless stays allowed
    ("echo ls | bash", "continue", "", ()),
    ("bash <<'EOF'\nls x\nEOF", "continue", "", ()),
    ("bash script-that-does-not-exist.sh", "continue", "", ()),
]

HARMLESS_ROWS: list[Row] = [
    ("ls -la", "continue", "", ()),
    ("rm -r --interactive=never x/y/z && ls", "continue", "", ()),
    ("git status && git diff", "continue", "", None),
    ("cat <<'EOF' > notes.txt\nnever rm -rf x\nEOF", "continue", "", ()),
    ("echo done # rm -rf x", "continue", "", ()),
    ("echo '$HOME'", "continue", "", ()),
    ('echo "$HOME" | grep -c root', "continue", "", ()),
    ("for f in a b; do echo $f; done", "continue", "", ()),
    ("git commit -m \"$(cat <<'EOF'\nDon't rm -rf here\nEOF\n)\"", "continue", "", None),
    ("rm -f *.o", "continue", "", ()),
    ("test -d x && echo yes", "continue", "", ()),
]

ISSUE_27_ROWS: list[Row] = [
    # a command word bash expands: pathname patterns, a continuation inside the word
    ("/usr/bin/r[m] -rf x", "deny", "pathname pattern", ()),
    ("/bin/r? -rf x", "deny", "pathname pattern", ()),
    ("r\\\nm -rf x", "deny", "matches", ()),
    ("/bin/[r]m -rf x", "deny", "pathname pattern", ()),
    # code inside parameter expansions
    ("echo ${x:-`rm -rf x`}", "deny", "matches", ()),
    ("echo ${x:-$(rm -rf x)}", "deny", "matches", ()),
    # shells fed code through a descriptor or a variable
    ("bash 0<<< 'rm -rf x'", "deny", "matches", ()),
    ("exec 3<<< 'rm -rf x'; bash <&3", "deny", "matches", ()),
    ("bash /dev/fd/3 3<<< 'rm -rf x'", "deny", "matches", ()),
    ("BASH_ENV=/dev/stdin bash -c true <<< 'rm -rf x'", "deny", "BASH_ENV", ()),
    ("ENV=/dev/stdin sh -i <<< 'rm -rf x'", "deny", "ENV", ()),
    # bash ignores PS4 from the environment when it runs as root (as here)
    ("PS4='$(rm -rf x)' bash -xc true", "deny", "matches", None),
    ("PROMPT_COMMAND='rm -rf x' bash -i < /dev/null", "deny", "matches", ()),
    # producers piped to a shell: their exact output is read
    ("printf '%.2s -rf x' rmz | bash", "deny", "matches", ()),
    ("printf %b 'r\\0155 -rf x' | bash", "deny", "matches", ()),
    ("echo -e 'r\\0155 -rf x' | bash", "deny", "matches", ()),
    ("printf 'r%sm -rf x' '' | sh", "deny", "matches", ()),
    # computed words after any program that runs its arguments
    ("c=rm; setarch x86_64 $c -rf x", "deny", "matches", ()),
    ("c='rm -rf x'; linux64 $c", "deny", "matches", ()),
    # c comes from the environment: any value (here it has none, so bash cannot show it)
    ("linux64 $c -rf x", "deny", "computed", None),
    # text bash evaluates later
    ("x2='a[$(rm -rf x)]'; (( x2 ))", "deny", "arithmetic", ()),
    ("x2='a[$(rm -rf x)]'; echo $(( x2 ))", "deny", "arithmetic", ()),
    ("x2='a[$(rm -rf x)]'; [[ $x2 -eq 1 ]]", "deny", "arithmetic", ()),
    ("x='$(rm -rf x)'; echo ${x@P}", "deny", "matches", ()),
    ("set -x; PS4='$(rm -rf x)'; true", "deny", "matches", ()),
    # a file the command writes, then runs
    ("printf '\\x72m -rf x' > s.sh; bash s.sh", "deny", "matches", ()),
    # benign ones the last round denied
    ("time (sleep 0.01)", "continue", "", ()),
    ("time -p (sleep 0.01)", "continue", "", ()),
    ("select x in a b; do echo $x; break; done <<< 1", "continue", "", ()),
    ("x=abc; echo ${x~}", "continue", "", ()),
]

#: Found by hand while finishing issue 27 (the grammar of tests/support/bash_grammar.py now
#: makes each family): code a runner runs in this shell, a file the command writes and then
#: runs through a PATH it sets.
PROBE_ROWS: list[Row] = [
    ("c=ls; command eval c=rm; $c -rf x", "deny", "computed", ()),
    ("c=ls; builtin eval 'c=rm'; $c -rf x", "deny", "computed", ()),
    ("c=rm; nice . <(echo c=ls); $c -rf x", "deny", "computed", ()),
    (
        "mkdir -p bin; printf '#!/bin/sh\\n\\x72m -rf x\\n' > bin/ls; chmod +x bin/ls; "
        "PATH=./bin:$PATH ls",
        "deny",
        "matches",
        (),
    ),
    (
        "mkdir -p bin; cp /bin/rm bin/ls; PATH=./bin:$PATH ls -rf x",
        "deny",
        "this command writes",
        (),
    ),
    ('export PATH="$PWD/bin:$PATH"; ls x', "continue", "", ()),
    # a form feed is a blank to Python, not to bash: the word read as code was itself, and
    # reading it again and again ended in RecursionError out of decide()
    ("some-new-tool '-{\x0e2,\x0c6}'", "continue", "", None),
    ("some-new-tool '-{\x0e2,\x0c6}'; rm -rf x", "deny", "matches", None),
]

ALL_ROWS = (
    FLAG_ROWS
    + CODE_ROWS
    + WRAPPER_ROWS
    + COMPUTED_ROWS
    + HARMLESS_ROWS
    + ISSUE_27_ROWS
    + PROBE_ROWS
)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:50]}...({len(text)} chars)"


@pytest.mark.parametrize(("command", "kind", "reason", "needs"), ALL_ROWS, ids=_short)
def test_the_policy_decides_each_row(
    command: str, kind: str, reason: str, needs: tuple[str, ...] | None
) -> None:
    decision = RM_RF.decide("Bash", {"command": command})
    assert decision.kind == kind, decision
    assert reason in decision.reason, decision


# --------------------------------------------------------------------------------------
# bash


def _runnable(needs: tuple[str, ...] | None) -> bool:
    return needs is not None and all(shutil.which(n) for n in needs)


BASH_ROWS = [row for row in ALL_ROWS if _runnable(row[3])]
needs_strace = pytest.mark.skipif(not strace_run.available(), reason="needs bash and strace")


@needs_strace
@pytest.mark.parametrize(("command", "kind", "reason", "needs"), BASH_ROWS, ids=_short)
def test_each_row_does_what_its_kind_says_in_bash(
    command: str, kind: str, reason: str, needs: tuple[str, ...], tmp_path: Path
) -> None:
    traced = strace_run.trace(command, tmp_path / "s")
    calls = [e.argv for e in traced.execs if strace_run.is_rm(e)]
    dangerous = traced.removed or any(strace_run.rm_recursive_force(e) for e in traced.execs)
    if kind == "deny":
        assert dangerous, f"bash did not remove the tree: {calls}"
    else:
        assert not dangerous, f"bash removed the tree: {calls}"


def test_most_rows_are_shown_in_bash_here() -> None:
    if os.environ.get("CLAUDE_SDK_REQUIRE_BASH_ROWS") is None:
        pytest.skip("set CLAUDE_SDK_REQUIRE_BASH_ROWS to require the bash half")
    assert strace_run.available()
    assert len(BASH_ROWS) >= 0.7 * len(ALL_ROWS), len(BASH_ROWS)


# --------------------------------------------------------------------------------------
# require_command: the allow list form


ALLOW = require_command("ls", "git status", "cat", re.compile(r"echo [\w ]*"))
LISTED = require_command("echo", "ls", "cat")


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("ls -la", "continue"),
        ("git status && ls", "continue"),
        ("echo hello world", "continue"),
        ("cat <<'EOF'\n$(rm -rf x)\nEOF", "continue"),
        ("cat <<EOF\n$(rm -rf x)\nEOF", "deny"),
        ("ls; rm -rf x", "deny"),
        ("ls $(rm -rf x)", "deny"),
        ("echo rm -rf x | bash", "deny"),
        ("python -c 'import shutil; shutil.rmtree(\"x\")'", "deny"),
        ("find . -delete", "deny"),
        ("./script.sh", "deny"),
        ("$a", "deny"),
        ("sudo ls", "deny"),
        ("FOO=1 ls", "deny"),
    ],
    ids=_short,
)
def test_the_allow_list_form_refuses_what_a_deny_list_cannot_see(command: str, kind: str) -> None:
    assert ALLOW.decide("Bash", {"command": command}).kind == kind


@pytest.mark.parametrize(
    "command",
    [
        "echo ${x:-`rm -rf x`}",
        "ls ${x:-$(id)}",
        "x='a[$(id)]'; echo $(( x ))",
        "x='$(id)'; echo ${x@P}",
        "echo hi > >(id)",
        "cat <<EOF\n$(id)\nEOF",
        "e\\\ncho $(id)",
        "/bin/e?ho x",
        "x=1",
    ],
    ids=_short,
)
def test_the_allow_list_sees_what_runs_inside_the_listed_programs(command: str) -> None:
    assert LISTED.decide("Bash", {"command": command}).kind == "deny"


@pytest.mark.parametrize(
    "command",
    ["echo hello; ls -la x | cat", "cat <<'EOF'\n$(id)\nEOF", "echo ${x~} ${u:-a}", "ls x/y"],
    ids=_short,
)
def test_the_allow_list_lets_the_listed_programs_run(command: str) -> None:
    assert LISTED.decide("Bash", {"command": command}).kind == "continue"
