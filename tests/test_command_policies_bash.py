"""Command policies against what bash really does (issue 15, item 1).

Every row is decided by the policy and, where the programs it needs exist here, run by real
bash in a scratch directory holding a tree ``x/`` (``x/y/z``): a deny row must really remove
the tree with ``rm`` recursive and forced (or the row says why bash cannot show it), a
``continue`` row must leave it. ``rm`` on the ``PATH`` is a logging wrapper around the real
one, so an absolute ``/bin/rm`` still shows as a removed tree.

The hypothesis test at the end builds commands from wrappers, quoting, flag spellings and
code-in-strings, runs each in bash, and asserts the class rule: whenever bash ran ``rm``
recursive and forced, `deny_commands("rm -rf")` denied the command.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claude_sdk.policies import deny_commands, require_command

RM_RF = deny_commands("rm -rf")
BASH = shutil.which("bash")
REAL_RM = shutil.which("rm") or "/bin/rm"

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
    ("echo -rf x | xargs rm", "deny", "may match", ()),
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
    ("$(echo rm) -rf x", "deny", "computed", ()),
    ("`echo rm` -rf x", "deny", "computed", ()),
    ("a=rm; $a -rf x", "deny", "computed", ()),
    ("${c:=rm} -rf x", "deny", "computed", ()),
    ('c=rm; "$c" -rf x', "deny", "computed", ()),
    ("f=-rf; rm $f x", "deny", "may match", ()),
    ("sudo $(echo rm) -rf x", "deny", "", None),
    ("r=$'\\x72m'; $r -rf x", "deny", "computed", ()),
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

ALL_ROWS = FLAG_ROWS + CODE_ROWS + WRAPPER_ROWS + COMPUTED_ROWS + HARMLESS_ROWS


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


def _recursive_force(args: list[str]) -> bool:
    """GNU rm's reading of ``args``: recursive and forced?"""
    recursive = force = False
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--"):
            name = arg[2:].split("=", 1)[0]
            recursive |= bool(name) and "recursive".startswith(name) and len(name) >= 3
            force |= bool(name) and "force".startswith(name)
        elif arg.startswith("-") and len(arg) > 1:
            recursive |= "r" in arg or "R" in arg
            force |= "f" in arg
    return recursive and force


def run_in_bash(command: str, scratch: Path) -> tuple[bool, list[list[str]]]:
    """Run ``command`` in bash in ``scratch``; returns (was ``x/`` removed, rm calls)."""
    assert BASH is not None
    (scratch / "x" / "y").mkdir(parents=True)
    (scratch / "x" / "y" / "z").write_text("z")
    stubs = scratch / ".bin"
    stubs.mkdir()
    log = scratch / ".log"
    rm = stubs / "rm"
    rm.write_text(
        f'#!/bin/sh\nprintf "%s\\0" "$@" >> "{log}"; printf "\\n" >> "{log}"\nexec {REAL_RM} "$@"\n'
    )
    rm.chmod(0o755)
    env = {"PATH": f"{stubs}:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(scratch), "LC_ALL": "C"}
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run(
            [BASH, "--norc", "--noprofile", "-c", command],
            cwd=scratch,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            check=False,
        )
    for _ in range(50):  # wrappers that detach (setsid, script) finish on their own
        if not (scratch / "x").exists():
            break
        time.sleep(0.01)
    calls = [line.split("\0")[:-1] for line in log.read_text().splitlines()] if log.exists() else []
    return not (scratch / "x").exists(), calls


def _runnable(needs: tuple[str, ...] | None) -> bool:
    return needs is not None and BASH is not None and all(shutil.which(n) for n in needs)


BASH_ROWS = [row for row in ALL_ROWS if _runnable(row[3])]


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize(("command", "kind", "reason", "needs"), BASH_ROWS, ids=_short)
def test_each_row_does_what_its_kind_says_in_bash(
    command: str, kind: str, reason: str, needs: tuple[str, ...], tmp_path: Path
) -> None:
    removed, calls = run_in_bash(command, tmp_path)
    dangerous = removed or any(_recursive_force(c) for c in calls)
    if kind == "deny":
        assert dangerous, f"bash did not remove the tree: {calls}"
    else:
        assert not dangerous, f"bash removed the tree: {calls}"


def test_most_rows_are_shown_in_bash_here() -> None:
    if BASH is None or os.environ.get("CLAUDE_SDK_REQUIRE_BASH_ROWS") is None:
        pytest.skip("set CLAUDE_SDK_REQUIRE_BASH_ROWS to require the bash half")
    assert len(BASH_ROWS) >= 0.7 * len(ALL_ROWS), len(BASH_ROWS)


# --------------------------------------------------------------------------------------
# The class rule, on random commands


_PROGRAM = st.sampled_from(["rm", "./.bin/rm", "'rm'", '"r"m', "r\\m", "$'\\x72m'", "\\rm"])
_FLAGS = st.sampled_from(
    ["-rf", "-fr", "-Rf", "-r -f", "-R -f", "-dRf", "--recursive --force", "-r --force",
     "--rec --for", "--force -r", "-r", "-f", "-rv", "", "-v", "-i", "-- -rf"]
)  # fmt: skip
_WRAP = st.sampled_from(
    ["{}", "nice {}", "timeout 9 {}", "env {}", "env -i PATH=$PATH {}", "command {}",
     "taskset 1 {}", "setpriv {}", "chrt -o 0 {}", "fakeroot {}", "stdbuf -o0 {}",
     "bash -c '{}'", "bash -c -- '{}'", 'sh -c "{}"', "eval '{}'", "eval {}",
     "echo '{}' | bash", "bash <<< '{}'", "bash <<'EOF'\n{}\nEOF", ". <(echo '{}')",
     "echo x | xargs {}", "env -S '{}'", "( {} )", "{{ {}; }}", "if true; then {}; fi",
     "$( {} )", "true && {}", "false || {}", "f() {{ {}; }}; f", "echo '{}'",
     "echo {}", "# {}", "echo \"{}\" > /dev/null", "x='{}'; echo \"$x\""]
)  # fmt: skip
_TARGET = st.sampled_from(["x", "x/", "./x", "x/y", "'x'"])


@pytest.mark.skipif(BASH is None, reason="needs bash")
@settings(
    max_examples=int(os.environ.get("CLAUDE_SDK_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(program=_PROGRAM, flags=_FLAGS, wrap=_WRAP, target=_TARGET)
def test_whenever_bash_runs_rm_rf_the_policy_denies(
    program: str, flags: str, wrap: str, target: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    inner = " ".join(p for p in (program, flags, target) if p)
    if "'" in wrap and "'" in inner:
        inner = inner.replace("'", "")  # keep the dressing's own quotes balanced
    command = wrap.format(inner)
    needs = [w for w in ("taskset", "setpriv", "chrt", "fakeroot", "stdbuf") if w in command]
    if not all(shutil.which(n) for n in needs):
        return
    _removed, calls = run_in_bash(command, tmp_path_factory.mktemp("bash"))
    if any(_recursive_force(c) for c in calls):
        decision = RM_RF.decide("Bash", {"command": command})
        assert decision.kind == "deny", (command, calls, decision)


# --------------------------------------------------------------------------------------
# require_command: the allow list form


ALLOW = require_command("ls", "git status", "cat", re.compile(r"echo [\w ]*"))


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
