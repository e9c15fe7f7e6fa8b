"""A grammar of bash commands for the command policies' oracle (tests/test_policy_oracle.py).

It builds commands around a core that may run ``rm`` recursive and forced on the tree
``x/`` of the scratch directory, dressed in every family that has hidden such a core from a
policy (issues 15, 26 and 27), and in harmless dressings that a policy should let through:

* the program's spelling: quotes, escapes, ``$'...'``, line continuations, pathname
  patterns, brace expansion, variables (assigned in the same command line or not), command
  substitutions;
* the flags' spelling: clusters, long options and their abbreviations, quoted, computed;
* wrappers that run their arguments, known by name or not (``setarch x86_64``, ``linux64``,
  ``nice``, ``timeout``, ``env``, ``xargs``, ``find -exec``, ``command``, ``exec``...);
* code strings: ``bash -c``, ``sh -c``, ``eval``, ``trap``, ``env -S``, ``flock -c``,
  ``script -c``, functions, aliases;
* shells fed code: pipes from ``echo``/``printf`` (``%b``, precision, octal escapes),
  here-documents, here-strings on any descriptor, ``/dev/stdin``, ``/dev/fd/N``, process
  substitutions, ``source``;
* variables bash evaluates: ``BASH_ENV``, ``ENV``, ``PS4`` with ``set -x``,
  ``PROMPT_COMMAND``, ``${x@P}``; arithmetic on variables (``(( x ))``, ``$(( ))``,
  ``let``, ``declare -i``, ``[[ -eq ]]``, subscripts, ``${!x}``, ``test -v``);
* control flow, subshells, groups, pipelines, ``&&``/``||``, ``time``, comments.

Every word that names a file names one inside the scratch directory (``x``, ``./x``...):
the oracle runs these commands for real. The grammar is written against a `Chooser`, so
that hypothesis (`commands`) and a seeded `random.Random` (`sample`) can both drive it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from hypothesis import strategies as st

_T = TypeVar("_T")


class Chooser(Protocol):
    def choice(self, options: Sequence[_T]) -> _T: ...

    def integer(self, low: int, high: int) -> int: ...


class _Random:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choice(self, options: Sequence[_T]) -> _T:
        return options[self.rng.randrange(len(options))]

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


class _Draw:
    def __init__(self, draw: Callable[[st.SearchStrategy[object]], object]) -> None:
        self.draw = draw

    def choice(self, options: Sequence[_T]) -> _T:
        return options[self.integer(0, len(options) - 1)]

    def integer(self, low: int, high: int) -> int:
        value = self.draw(st.integers(low, high))
        assert isinstance(value, int)
        return value


# --------------------------------------------------------------------------------------
# Quoting


def sq(text: str) -> str:
    """``text`` single-quoted for bash."""
    return "'" + text.replace("'", "'\\''") + "'"


def dq(text: str) -> str:
    """``text`` double-quoted for bash (nothing in it expands)."""
    return '"' + re.sub(r'([\\"$`])', r"\\\1", text) + '"'


def ansi(c: Chooser, text: str) -> str:
    """``text`` as ``$'...'`` with some characters escaped in octal or hex."""
    out = []
    for ch in text:
        how = c.integer(0, 3)
        if ch in "'\\":
            out.append("\\" + ch)
        elif how == 1:
            out.append(f"\\{ord(ch):03o}")
        elif how == 2:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def quote(c: Chooser, text: str) -> str:
    how = c.integer(0, 2)
    if how == 0:
        return sq(text)
    if how == 1:
        return dq(text)
    return ansi(c, text)


def octal_b(c: Chooser, text: str) -> str:
    """``text`` for ``printf %b`` / ``echo -e``: some characters as ``\\0nnn``."""
    out = []
    for ch in text:
        if ch.isalpha() and c.integer(0, 1):
            out.append(f"\\0{ord(ch):03o}")
        elif ch == "\\":
            out.append("\\\\")
        else:
            out.append(ch)
    return "".join(out)


# --------------------------------------------------------------------------------------
# The core: rm, spelled many ways

#: Variables the setup may assign (``r=rm``...); without it they are empty.
SETUP = [
    "r=rm; f=-rf; e=; t=x; c='rm -rf x'; n=0; ",
    "r=rm; f=-rf; e=; t=x; c='rm -rf x'; n=0\n",
    "read r <<< rm; f=-rf; e=; t=x; ",
    "printf -v r %s rm; f=-rf; t=x; ",
    "declare r=rm f=-rf t=x; ",
    "export r=rm f=-rf t=x c='rm -rf x'; ",
    "r=$(echo rm); f=$(printf %s -rf); t=x; ",
    "for r in rm; do :; done; f=-rf; t=x; ",
    ": ${r:=rm} ${f:=-rf}; t=x; ",
    "",
]

PROGRAMS = [
    "rm", "rm", "rm", "/bin/rm", "/usr/bin/rm", "\\rm", "r\\m", "'r'm", '"rm"', "r''m",
    "$'\\x72m'", "$'\\162\\155'", "$'r\\u006d'", 'r"m"', "r\\\nm", "/bin/r?", "/usr/bin/r[m]",
    "/bin/[r]m", "$r", "${r}", '"$r"', "$(echo rm)", "`echo rm`", "${r:-rm}", "${u:-rm}",
    "r${e}m", "$'\\x72'm", "{rm,}", "$(printf %s rm)", "${r@L}", "${R,,}", "$'r\\cm'",
    "rmdir", "ls", "echo", "/bin/echo", "cat",
]  # fmt: skip
FLAGS = [
    "-rf", "-rf", "-fr", "-Rf", "-r -f", "-f -r", "--recursive --force", "--rec --for",
    "-r --force", "--force -R", "-rfv", "-dRf", "-r", "-f", "", "-i", "-rfI", "-- -rf",
    "$f", '"$f"', "-{r,f}", "{-r,-f}", "-r$e -f", '"-rf"', "-\\rf", "$'-\\x72f'", "-r -f -i",
    "--interactive=never -r", "-R${e}f", "-r\\\n -f",
]  # fmt: skip
TARGETS = ["x", "x", "./x", "x/", "'x'", '"x"', "x/y", "$t", "${t:-x}", "x/y/z"]


#: Spellings a program that runs code of its own (sed, awk, git, python) gets: the policy
#: reads such text for literal matches only (docs/policies.md, "What no deny list can stop").
PLAIN_PROGRAMS = ["rm", "/bin/rm", "/usr/bin/rm", "'r'm", '"rm"', "r''m", "\\rm", "ls", "echo"]
PLAIN_FLAGS = ["-rf", "-fr", "-Rf", "-r -f", "--recursive --force", "--rec --for", "-r", "-f"]


def plain_core(c: Chooser) -> str:
    words = [c.choice(PLAIN_PROGRAMS), c.choice(PLAIN_FLAGS), c.choice(["x", "./x", "x/"])]
    return " ".join(words)


def rm_core(c: Chooser) -> str:
    words = [c.choice(PROGRAMS), c.choice(FLAGS), c.choice(TARGETS)]
    if c.integer(0, 4) == 0:
        words = [words[0], words[2], words[1]]
    blank = c.choice([" ", " ", "  ", "\t", " \\\n "])
    return blank.join(w for w in words if w)


# --------------------------------------------------------------------------------------
# Argument-level wrappers: programs that run their arguments

ARGV_WRAPPERS = [
    "nice", "nice -n 5", "timeout 9", "env", "env -i PATH=/usr/bin:/bin", "env -u HOME",
    "command", "builtin command", "exec", "setarch x86_64", "setarch x86_64 -R", "linux64",
    "stdbuf -o0", "setsid -w", "taskset 1", "chrt -o 0", "ionice -c 3", "flock .lock",
    "fakeroot", "time", "time -p", "nohup", "xargs", "xargs -0", "env -S", "unshare -r",
    "find . -maxdepth 0 -exec", "nice -5", "timeout -s KILL 9", "env --", "command --",
    "prlimit", "script -qec",
]  # fmt: skip


def argv_wrap(c: Chooser, inner: str) -> str:
    wrapper = c.choice(ARGV_WRAPPERS)
    if wrapper in ("xargs", "xargs -0"):
        return f"echo | {wrapper} {inner}"
    if wrapper == "env -S":
        return f"env -S {sq(inner.replace(chr(10), ' '))}"
    if wrapper.startswith("find"):
        return f"{wrapper} {inner} \\;"
    if wrapper == "script -qec":
        return f"script -qec {sq(inner)} /dev/null"
    if wrapper == "flock .lock" and c.integer(0, 1):
        return f"flock .lock -c {sq(inner)}"
    return f"{wrapper} {inner}"


# --------------------------------------------------------------------------------------
# Code-level dressings: places bash (or a program) runs text as code


def _printf_precision(c: Chooser, code: str) -> str:
    head, _, rest = code.partition(" ")
    junk = c.choice(["z", "zz", "q"])
    return f"printf {sq('%.' + str(len(head)) + 's ' + rest.replace('%', '%%'))} {sq(head + junk)}"


def more_code(c: Chooser, inner: str, one_line: str) -> str:
    """Families of issue 27's second look: files written then run, xargs fed literal words,
    temporary assignments, functions that change variables, readers of a shell's input,
    programs that run code of their own, join points of constant propagation."""
    kind = c.integer(0, 33)
    if kind == 28:
        return f"c=ls; {c.choice(['command', 'builtin'])} eval {sq('c=rm')}; $c -rf x"
    if kind == 29:
        return f"c=rm; {c.choice(['nice', 'command', 'builtin'])} . <(echo c=ls); $c -rf x"
    if kind == 30:
        body = octal_b(c, one_line)
        return (
            f"mkdir -p bin; printf '#!/bin/sh\\n%b\\n' {sq(body)} > bin/ls; chmod +x bin/ls; "
            f"{c.choice(['PATH=./bin:$PATH ls', 'export PATH=./bin:$PATH; ls'])}"
        )
    if kind == 31:
        return f"mkdir -p bin; cp /bin/rm bin/ls; PATH=./bin:$PATH ls {c.choice(FLAGS)} x"
    if kind == 32:
        setter = c.choice(["f() { eval c=rm; }; f", "eval c=rm", "trap c=rm EXIT"])
        return f"c=ls; {setter}; $c -rf x"
    if kind == 0:
        return f"printf '%s\\n' {sq(inner)} > s.sh; bash s.sh"
    if kind == 1:
        return f"printf %b {sq(octal_b(c, inner))} > s.sh; . ./s.sh"
    if kind == 2:
        return f"cat > s.sh <<'EOF'\n{inner}\nEOF\nchmod +x s.sh; ./s.sh"
    if kind == 3:
        return f"echo {sq(inner)} | tee s.sh > /dev/null; sh s.sh"
    if kind == 4:
        return f"echo {sq(sq(one_line))} | xargs sh -c"
    if kind == 5:
        return f"echo {sq(sq(one_line))} | xargs env -S"
    if kind == 6:
        return f"c=ls; c=rm eval {sq('$c -rf x')}"
    if kind == 7:
        return "f() { c=rm; }; c=ls; f; $c -rf x"
    if kind == 8:
        return f"c=ls; if {c.choice(['false', 'true', 'test -d x'])}; then c=rm; fi; $c -rf x"
    if kind == 9:
        return "c=ls; for i in 1 2; do $c -rf x; c=rm; done"
    if kind == 10:
        return "c=ls; (c=rm); $c -rf x"
    if kind == 11:
        return f"printf 'read l\\necho \"\\n%s\\n\"\\n' {sq(one_line)} | bash"
    if kind == 12:
        return f"bash <<'EOF'\nhead -c 2\nxx{one_line}\nEOF"
    plain = plain_core(c)
    if kind == 13:
        return f"git -c alias.q={sq('!' + plain)} q"
    if kind == 14:
        script = "s/.*/" + plain.replace("/", "\\/") + "/e"
        return f"sed {sq(script)} <<< a"
    if kind == 15:
        return f"awk {sq('BEGIN { system(' + dq(plain) + ') }')}"
    if kind == 16:
        return f"python3 -c {sq('import os; os.system(' + repr(plain) + ')')}"
    if kind == 17:
        return f"find . -maxdepth 0 -exec sh -c {sq(one_line)} \\;"
    if kind == 18:
        return f"bash --init-file <(echo {sq(one_line)}) -i < /dev/null"
    if kind == 19:
        return f"command eval {sq(inner)}"
    if kind == 20:
        return f"source /dev/stdin <<< {sq(inner)}"
    if kind == 21:
        return f"exec < <(echo {sq(one_line)}); bash"
    if kind == 22:
        return f"env -vS {sq(one_line)}"
    if kind == 23:
        return f'x={sq(one_line)}; xargs -0 sh -c <<< "$x"'
    if kind == 24:
        return f"IFS=_; c={sq(one_line.replace(' ', '_'))}; $c"
    if kind == 25:
        return f"c={sq(one_line)}; unshare -r $c"
    if kind == 26:
        return f"declare -n r=c; r={sq(one_line)}; $c"
    return f'set -- {one_line}; "$@"'


def code_wrap(c: Chooser, inner: str) -> str:
    kind = c.integer(0, 75)
    if kind > 60:
        return more_code(c, inner, inner.replace("\n", "; ") if "<<" not in inner else inner)
    one_line = inner.replace("\n", "; ") if "<<" not in inner else inner
    if kind == 0:
        return f"bash -c {sq(inner)}"
    if kind == 1:
        return f"sh -c {sq(inner)}"
    if kind == 2:
        return f"bash -c -- {sq(inner)}"
    if kind == 3:
        return f"eval {sq(inner)}"
    if kind == 4:
        return f"eval {inner}" if "\n" not in inner and "'" not in inner else f"eval {dq(inner)}"
    if kind == 5:
        return f"trap {sq(inner)} EXIT"
    if kind == 6:
        return f"echo {sq(inner)} | bash"
    if kind == 7:
        return f"printf '%s\\n' {sq(inner)} | sh"
    if kind == 8:
        return f"printf %b {sq(octal_b(c, inner))} | bash"
    if kind == 9:
        return f"echo -e {sq(octal_b(c, inner))} | bash"
    if kind == 10:
        return f"{_printf_precision(c, one_line)} | bash"
    if kind == 11:
        return f"bash <<< {sq(inner)}"
    if kind == 12:
        return f"bash 0<<< {sq(inner)}"
    if kind == 13:
        return f"bash <<'EOF'\n{inner}\nEOF"
    if kind == 14:
        return f"bash <<EOF\n{inner}\nEOF"
    if kind == 15:
        return f"bash /dev/stdin <<< {sq(inner)}"
    if kind == 16:
        return f"bash /dev/fd/3 3<<< {sq(inner)}"
    if kind == 17:
        return f"exec 3<<< {sq(inner)}; bash <&3"
    if kind == 18:
        return f"bash < <(echo {sq(inner)})"
    if kind == 19:
        return f"source <(echo {sq(inner)})"
    if kind == 20:
        return f". /dev/stdin <<< {sq(inner)}"
    if kind == 21:
        return f"BASH_ENV=/dev/stdin bash -c true <<< {sq(inner)}"
    if kind == 22:
        return f"ENV=/dev/stdin sh -i < <(echo {sq(inner)})"
    if kind == 23:
        return f"PS4={sq('$(' + one_line + ')')} bash -xc true"
    if kind == 24:
        return f"set -x; PS4={sq('$(' + one_line + ')')}; true"
    if kind == 25:
        return f"PROMPT_COMMAND={sq(one_line)} bash -i < /dev/null"
    if kind == 26:
        return f"p={sq('$(' + one_line + ')')}; echo ${{p@P}}"
    if kind == 27:
        return f"v={sq('a[$(' + one_line + ')]')}; (( v ))"
    if kind == 28:
        return f"v={sq('a[$(' + one_line + ')]')}; echo $(( v + 1 ))"
    if kind == 29:
        return f"v={sq('a[$(' + one_line + ')]')}; [[ $v -eq 1 ]]"
    if kind == 30:
        return f"v={sq('a[$(' + one_line + ')]')}; let v"
    if kind == 31:
        return f"declare -i v; v={sq('a[$(' + one_line + ')]')}"
    if kind == 32:
        return f"a={sq('b[$(' + one_line + ')]')}; echo ${{!a}}"
    if kind == 33:
        return f"b=(1 2); a={sq('n[$(' + one_line + ')]')}; echo ${{b[a]}}"
    if kind == 34:
        return f"test -v {sq('n[$(' + one_line + ')]')}"
    if kind == 35:
        return f"f() {{ {one_line}; }}; f"
    if kind == 36:
        return f"function g {{ {one_line}; }}; g"
    if kind == 37:
        return f"( {inner} )"
    if kind == 38:
        return f"{{ {one_line}; }}"
    if kind == 39:
        return f"echo $( {inner} )"
    if kind == 40:
        return (
            f"echo `{one_line}`" if "`" not in inner and "\\" not in inner else f"echo $({inner})"
        )
    if kind == 41:
        return f"echo ${{u:-$({one_line})}}"
    if kind == 42:
        return (
            f"echo ${{u:-`{one_line}`}}"
            if "`" not in inner and "\\" not in inner
            else f"x=$({inner})"
        )
    if kind == 43:
        return f"cat <({inner})"
    if kind == 44:
        return f"if true; then {one_line}; fi"
    if kind == 45:
        return f"for i in 1; do {one_line}; done"
    if kind == 46:
        return f"while :; do {one_line}; break; done"
    if kind == 47:
        return f"case a in a) {one_line};; esac"
    if kind == 48:
        return f"true && {inner}"
    if kind == 49:
        return f"false || {inner}"
    if kind == 50:
        return f"cat <<EOF\n$({one_line})\nEOF"
    if kind == 51:
        return f"env -S {sq(one_line)}" if "'" not in inner else f"env {inner}"
    if kind == 52:
        return f"flock .lock -c {sq(inner)}"
    if kind == 53:
        return f"dash -c {sq(inner)}"
    if kind == 54:
        return f'x={sq(one_line)}; bash -c "$x"'
    if kind == 55:
        return f'x={sq(one_line)}; eval "$x"'
    if kind == 56:
        return f"shopt -s expand_aliases\nalias z={sq(one_line)}\nz"
    if kind == 57:
        return f"cat <<EOF | bash\n{inner}\nEOF"
    if kind == 58:
        return f"{{ echo {sq(inner)}; }} | bash"
    if kind == 59:
        return f"time ( {inner} )"
    return f"! {inner}"


# --------------------------------------------------------------------------------------
# Harmless dressings: the text is data


def decoy(c: Chooser, inner: str) -> str:
    kind = c.integer(0, 11)
    if kind == 0:
        return f"echo {sq(inner)}"
    if kind == 1:
        return f"echo {inner}" if "\n" not in inner and "<" not in inner else f"echo {dq(inner)}"
    if kind == 2:
        return f"# {inner.replace(chr(10), ' ')}"
    if kind == 3:
        return f"cat <<'EOF'\n{inner}\nEOF"
    if kind == 4:
        return f'x={sq(inner)}; echo "$x"'
    if kind == 5:
        return f": {sq(inner)}"
    if kind == 6:
        return f"printf '%s\\n' {sq(inner)}"
    if kind == 7:
        return f"grep -c {sq(inner)} /dev/null"
    if kind == 8:
        return f"echo {sq(inner)} > notes.txt"
    if kind == 9:
        return f"test -n {dq(inner)}"
    if kind == 10:
        return f"[ -n {sq(inner)} ]"
    return f"ls -d x && echo {sq(inner)} | cat"


NEIGHBOURS = ["ls", "echo hi", "true", "cd .", "ls -la x", "cat /dev/null", "pwd", ":"]
SEPARATORS = ["; ", " && ", " || ", "\n", " | ", " & "]


def command(c: Chooser) -> str:
    inner = rm_core(c)
    for _ in range(c.integer(0, 2)):
        inner = argv_wrap(c, inner)
    for _ in range(c.integer(0, 3)):
        inner = code_wrap(c, inner)
    if c.integer(0, 3) == 0:
        inner = decoy(c, inner)
    before = [c.choice(NEIGHBOURS) + c.choice(SEPARATORS) for _ in range(c.integer(0, 2))]
    after = [c.choice(SEPARATORS) + c.choice(NEIGHBOURS) for _ in range(c.integer(0, 1))]
    body = "".join(before) + inner + "".join(after)
    if " & " in body:
        body += "; wait"
    return c.choice(SETUP) + body


# --------------------------------------------------------------------------------------
# The allow-list half: echo, ls and cat with things hidden in them

ALLOWED_LEAVES = [
    "echo hi", "ls", "cat /dev/null", "ls -d x", "echo a b c", "/bin/echo x", "ls x/y",
    "cat x/y/z", "echo $x", 'echo "$u"', "echo ${u:-a}",
]  # fmt: skip
HIDDEN = [
    "id",
    "touch made",
    "/bin/true",
    "bash -c true",
    "sh -c :",
    "env",
    "xargs",
    "printf x",
]


def hidden_command(c: Chooser) -> str:
    """A command of echo/ls/cat that may run something else."""
    program = c.choice(HIDDEN)
    core = c.choice(ALLOWED_LEAVES)
    kind = c.integer(0, 22)
    if kind == 0:
        return f"echo $({program})"
    if kind == 1:
        return f"ls ${{u:-`{program}`}}"
    if kind == 2:
        return f"cat <({program})"
    if kind == 3:
        return f"echo ${{u:-$({program})}}"
    if kind == 4:
        return f"cat <<EOF\n$({program})\nEOF"
    if kind == 5:
        return f"v={sq('a[$(' + program + ')]')}; echo $(( v ))"
    if kind == 6:
        return f"p={sq('$(' + program + ')')}; echo ${{p@P}}"
    if kind == 7:
        return f"echo {sq(program)} | cat"
    if kind == 8:
        return f"{core} | {program}"
    if kind == 9:
        return f"{core}; {program}"
    if kind == 10:
        return f'echo "$({program})"'
    if kind == 11:
        return f"ls `{program}`"
    if kind == 12:
        return f"{core} && echo {dq('$(' + program + ')')}"
    if kind == 13:
        return f"cat <<'EOF'\n$({program})\nEOF"
    if kind == 14:
        return f"echo {sq('$(' + program + ')')}"
    if kind == 15:
        return f"{core} > >({program})"
    if kind == 16:
        return f"v={sq('a[$(' + program + ')]')}; [[ $v -eq 0 ]]; echo"
    if kind == 17:
        return f"echo ${{u:=$({program})}}"
    if kind == 18:
        return f"e\\\ncho $({program})"
    if kind == 19:
        return f"ls {c.choice(['/bin/e?ho', '/usr/bin/ca[t]', '/bin/l*'])}"
    if kind == 20:
        return f"{c.choice(['/bin/e?ho', '/usr/bin/ca[t]', '/bin/[l]s'])} x"
    if kind == 21:
        return f"{core}"
    return f"{core}; {c.choice(ALLOWED_LEAVES)}"


# --------------------------------------------------------------------------------------
# Entry points


@st.composite
def commands(draw: Callable[[st.SearchStrategy[object]], object]) -> str:
    """Commands for the oracle (three in four about rm, the rest about the allow list)."""
    c = _Draw(draw)
    if c.integer(0, 3) == 0:
        return hidden_command(c)
    return command(c)


def sample(seed: int, count: int) -> list[str]:
    """``count`` commands from a seeded generator (the same ones every run)."""
    rng = _Random(random.Random(seed))
    return [hidden_command(rng) if rng.integer(0, 3) == 0 else command(rng) for _ in range(count)]
