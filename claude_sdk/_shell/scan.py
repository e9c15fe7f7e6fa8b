"""What the command policies see in a command: the rules of `deny_commands` and
`require_command` over the commands `claude_sdk._shell.parse` finds.

`denied` returns why a command is denied by a deny list, or None:

* **Every command, every suffix.** Each simple command is matched at every word that can
  name a program: ``sudo``, ``taskset 1``, ``runuser -u u --`` or a program never heard of
  that runs the rest of its arguments is looked through without a list of wrappers.
* **Flags by meaning** (`claude_sdk._shell.options`).
* **Strings are code.** A word with blanks or shell operators in it (``bash -c -- '...'``,
  ``watch '...'``, ``env -S '...'``, ``--split-string=...``, ``su -c``, ``trap``, ``ssh
  host '...'``) is parsed as a command line and matched too; so are the arguments of
  ``eval``, ``ssh``, ``watch`` and the like joined by spaces, the way they join them.
* **Computed code fails closed.** A program name computed at run time (``$(echo rm)``,
  ``$a``, ``${c:=rm}``, ``{rm,-rf,x}``), a command word computed after a program that runs
  commands (``sudo $cmd``), arguments computed at run time where a pattern's flags could be,
  and a shell that reads its code from a pipe, here-document, here-string or process
  substitution that is not literal (``base64 -d x | sh``) are denied with a reason that says
  so. Literal code read that way is parsed and matched.

`unlisted` returns why a command is not allowed by an allow list (`require_command`), or
None: every simple command, as written, must start with an allowed pattern.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
import time
from collections.abc import Iterator, Sequence
from typing import Final

import attrs

from .options import Reading, Spec, read, spec_for
from .parse import COMPUTED, FILE, MAX_DEPTH, TOO_COMPLEX, Command, UnparsableError, Word, parse

__all__ = ["WordPattern", "denied", "unlisted"]

#: Programs that run a command given as their arguments or as a string.
RUNNERS: Final = frozenset(
    {
        "sudo", "doas", "su", "runuser", "sg", "pkexec", "env", "command", "builtin", "exec",
        "eval", "nohup", "nice", "ionice", "timeout", "time", "stdbuf", "xargs", "setsid",
        "chroot", "unshare", "nsenter", "flock", "chronic", "caffeinate", "watch", "busybox",
        "strace", "ltrace", "valgrind", "firejail", "systemd-run", "taskset", "chrt",
        "numactl", "cgexec", "faketime", "fakeroot", "prlimit", "setpriv", "unbuffer",
        "script", "tmux", "screen", "ssh", "parallel", "trap", "coproc", "bwrap", "proot",
        "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "source", ".",
    }
)  # fmt: skip
#: Programs that join their arguments with spaces into one command line.
JOINERS: Final = frozenset(
    {"eval", "ssh", "watch", "su", "sg", "runuser", "script", "tmux", "trap", "parallel"}
)
#: Shells: the code they run is a ``-c`` string, a script operand, or standard input.
SHELLS: Final = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"})
_SHELL_OPTION_ARGUMENT: Final = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_QUOTING: Final = re.compile(r"['\"\\$`{]")
_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


def program_of(value: str) -> str:
    """A program word's basename (``/bin/rm`` is ``rm``)."""
    return value.rsplit("/", 1)[-1]


# --------------------------------------------------------------------------------------
# Patterns


@attrs.frozen
class WordPattern:
    """A command pattern given as words: ``rm -rf``, ``git push --force``.

    Attributes:
        source: the pattern as given.
        words: its words (quotes removed).
        program: the first word.
        reading: the other words read by meaning.
        spellings: the option words as given, to test a pathname pattern against.
    """

    source: str
    words: tuple[str, ...]
    program: str
    reading: Reading
    spellings: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> WordPattern:
        """Compile ``text``; `ValueError` when it is not one plain command."""
        try:
            parsed = parse(text, deadline=float("inf"))
        except UnparsableError as exc:
            raise ValueError(f"cannot parse the command pattern {text!r}: {exc}") from None
        if parsed.errors:
            raise ValueError(f"cannot parse the command pattern {text!r}")
        commands = parsed.commands
        if not commands:
            raise ValueError(f"empty command pattern {text!r}")
        command = commands[0]
        plain = (
            len(commands) == 1
            and not command.assignments
            and len(command.written) == len(command.words)
            and all(w.value is not None and not w.glob for w in command.words)
        )
        if not plain:
            raise ValueError(
                f"the command pattern {text!r} is not one plain command: a pattern matches "
                "one command, written without operators, redirections or expansions (use a "
                "separate pattern per command)"
            )
        words = tuple(w.value for w in command.words if w.value is not None)
        program = program_of(words[0])
        spellings = tuple(w for w in words[1:] if w.startswith("-"))
        return cls(text, words, program, read(program, words[1:]), spellings)

    def __str__(self) -> str:
        return repr(self.source)

    def match(self, args: Sequence[Word], *, fed: bool) -> bool | None:
        """Do ``args`` (after the program) carry this pattern: True, False, or None when
        arguments computed at run time (or read from standard input) might."""
        literal: list[str] = []
        unknown = fed
        spec = spec_for(self.program)
        if spec is not None and spec.subcommands is not None and len(self.words) > 1:
            subcommand = _subcommand(spec, args)
            known = subcommand.value if subcommand is not None else None
            if known is not None and known != self.words[1]:
                return False  # ``git commit -m "$(...)"`` is no ``git push``
        for arg in args:
            value = arg.value
            if value is None:
                unknown = True
                literal.append("\0")  # keeps the places: ``-C "$dir" push``
            elif arg.glob and any(fnmatch.fnmatchcase(s, value) for s in self.spellings):
                unknown = True  # ``rm -f *`` with a file named ``-r``
            else:
                literal.append(value)
        want = self.reading
        if not want.meanings and not want.operands:
            return True
        got = read(self.program, literal)
        if want.meanings <= got.meanings and set(want.operands) <= set(got.operands):
            return True
        return None if unknown else False


def _subcommand(spec: Spec, args: Sequence[Word]) -> Word | None:
    """The subcommand word after global options (``git -C dir push``), if it can be told."""
    skip = False
    for arg in args:
        value = arg.value
        if skip:
            skip = False
            continue
        if value is None:
            return None
        if value.startswith("-") and value != "-":
            name = value.lstrip("-").split("=", 1)[0]
            skip = name in spec.global_with_argument and "=" not in value
            continue
        return arg
    return None


Pattern = WordPattern | re.Pattern[str]


def describe(pattern: Pattern) -> str:
    if isinstance(pattern, re.Pattern):
        return f"re.compile({pattern.pattern!r})"
    return repr(pattern.source)


def show(words: Sequence[str]) -> str:
    """A command as shell text (operators bare, other words quoted when needed)."""
    return " ".join(w if w and set(w) <= _OPERATOR_CHARS else shlex.quote(w) for w in words)


_OPERATOR_CHARS: Final = frozenset("();<>|&0123456789")


# --------------------------------------------------------------------------------------
# deny


class _Budget:
    """Bytes of nested code left to parse (nested strings cannot multiply the work)."""

    __slots__ = ("deadline", "left")

    def __init__(self, text: str, deadline: float) -> None:
        self.left = 4 * len(text) + 65536
        self.deadline = deadline

    def parse(self, text: str, depth: int) -> list[Command]:
        self.left -= len(text)
        if self.left < 0:
            raise UnparsableError("the command nests too much code in strings to check")
        return parse(text, depth=depth, deadline=self.deadline).commands


class _Denier:
    def __init__(self, patterns: Sequence[Pattern], budget: _Budget) -> None:
        self.words = [p for p in patterns if isinstance(p, WordPattern)]
        self.regexes = [p for p in patterns if isinstance(p, re.Pattern)]
        self.programs = {p.program for p in self.words} | {p.words[0] for p in self.words}
        self.interesting = self.programs | RUNNERS | SHELLS | {"xargs"}
        self.anchored = any(_ANCHORS.search(r.pattern) for r in self.regexes)
        self.budget = budget

    def check(self, command: Command, strict: bool) -> str | None:
        """Why ``command`` is denied (see the module docstring), or None.

        ``strict``: the command surely runs (as opposed to a string that may be code).
        """
        words = command.words
        depth = command.depth
        if strict and words and words[0].value is None:
            return (
                f"the command name {words[0].source!r} is computed when the command runs, "
                "so no deny list can check it"
            )
        if self.regexes:
            found = self._regexes(command)
            if found is not None:
                return found
        interesting = self.interesting
        runner = -1  # the first program that runs its arguments
        fed = False
        strings: list[int] = []  # words that may be code
        for i, word in enumerate(words):
            value = word.value
            if value is None:
                if strict and runner >= 0 and not _ASSIGNMENT.match(word.source):
                    return (
                        f"{program_of(words[runner].value or '')!r} runs {word.source!r}, "
                        "computed when the command runs, so no deny list can check it"
                    )
                if word.spaced:
                    strings.append(i)
                continue
            if word.spaced:
                strings.append(i)
            program = value if "/" not in value else program_of(value)
            if program not in interesting and value not in interesting:
                continue
            if program in self.programs or value in self.programs:
                found = self._match(program, value, words, i, fed, strict)
                if found is not None:
                    return found
            if program in RUNNERS and runner < 0:
                runner = i
            if program == "xargs":
                fed = True
            if program in SHELLS or program in ("source", "."):
                found = self._shell(command, i, strict)
                if found is not None:
                    return found
        surely = strict and runner >= 0
        for word in command.assignments:
            if word.spaced:
                for candidate in _candidates(word.code):
                    found = self._nested(candidate, depth, False)
                    if found is not None:
                        return found
        for i in strings:
            code = words[i].code
            for candidate in _candidates(code):
                found = self._nested(candidate, depth, surely and i > runner)
                if found is not None:
                    return found
        if surely and program_of(words[runner].value or "") in JOINERS:
            joined = " ".join([w.code for w in words[runner + 1 :]])
            found = self._nested(joined, depth, True)
            if found is not None:
                return found
        return None

    def _regexes(self, command: Command) -> str | None:
        """Each regular expression, searched in the command as written, in its words, and
        (for an anchored expression: ``^``, ``\\A``, a lookbehind) in each suffix that
        starts at one of its first `_REGEX_VIEWS` words."""
        shown = [w.shown for w in command.words]
        views = [command.written, shown]
        if self.anchored:
            views.extend(shown[i:] for i in range(1, min(len(shown), _REGEX_VIEWS)))
        for view in views:
            text = " ".join(view)
            for regex in self.regexes:
                if regex.search(text):
                    return (
                        f"the command {show(view)!r} matches the denied pattern {describe(regex)}"
                    )
        return None

    def _match(
        self, program: str, value: str, words: list[Word], i: int, fed: bool, strict: bool
    ) -> str | None:
        for pattern in self.words:
            if pattern.program != program and pattern.words[0] != value:
                continue
            matched = pattern.match(words[i + 1 :], fed=fed)
            view = show([w.shown for w in words[i:]])
            if matched:
                return f"the command {view!r} matches the denied pattern {pattern}"
            if matched is None and strict:
                return (
                    f"the command {view!r} may match the denied pattern {pattern}: its "
                    "arguments are computed when it runs"
                )
        return None

    def _shell(self, command: Command, i: int, strict: bool) -> str | None:
        """A shell or ``source`` at ``words[i]``: the code it reads from its input."""
        words = command.words
        program = program_of(words[i].value or "")
        args = words[i + 1 :]
        if program == "busybox":
            if not args or args[0].value not in SHELLS:
                return None
            args = args[1:]
        reads_stdin = False
        operand: Word | None = None
        skip = False
        for arg in args:
            value = arg.value
            if skip:
                skip = False
                continue
            if value is None or not value.startswith(("-", "+")) or value in ("-", "--"):
                if value == "--":
                    continue
                operand = arg
                break
            if value in _SHELL_OPTION_ARGUMENT:
                skip = True
            elif not value.startswith("--"):
                if "c" in value[1:]:
                    return None  # the -c string: read as code with the other strings
                reads_stdin = reads_stdin or "s" in value[1:]
        if program in ("source", ".") and operand is None:
            return None
        code: str | None
        if operand is None or reads_stdin or operand.value in _STDIN_PATHS:
            code = command.stdin
            where = "its standard input"
        elif operand.feed is not None:
            code = operand.feed
            where = "a process substitution"
        elif operand.value is None:
            return None  # a computed operand: denied as computed after a runner
        else:
            return None  # a script file: what no deny list sees (documented)
        if code is None or code == FILE:
            return None
        if code == COMPUTED:
            if not strict:
                return None
            return (
                f"{program!r} reads shell code from {where}, computed when the command runs, "
                "so no deny list can check it"
            )
        return self._nested(code, command.depth, strict)

    def _nested(self, code: str, depth: int, strict: bool) -> str | None:
        if depth + 1 > MAX_DEPTH:
            raise UnparsableError(f"commands nested more than {MAX_DEPTH} deep")
        if (
            not strict
            and not self.regexes
            and not _QUOTING.search(code)
            and not any(p in code for p in self.programs)
        ):
            return None  # no word of it can name a denied program
        for nested in self.budget.parse(code, depth + 1):
            found = self.check(nested, strict)
            if found is not None:
                return found
        return None


#: Suffix views a regular expression is searched in, besides the whole command.
_REGEX_VIEWS: Final = 64
_ANCHORS: Final = re.compile(r"\^|\\A|\(\?<[=!]")
_STDIN_PATHS: Final = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def _candidates(code: str) -> list[str]:
    """The ways a program may read ``code`` as a command line: whole, after ``--opt=`` or
    ``VAR=``, after an attached short option (``-c'rm -rf x'``, ``-lc...``)."""
    out = [code]
    head = code.split(None, 1)[0] if code.strip() else ""
    if "=" in head:
        out.append(code.split("=", 1)[1])
    if code.startswith("-") and not code.startswith("--") and len(head) > 2:
        out.append(code[2:])
        c = head.find("c", 1)
        if c > 1:
            out.append(code[c + 1 :])
    return out


def _commands(command: str, deadline: float) -> Iterator[Command]:
    """The commands of a command string that parses, checking the deadline as it goes."""
    parsed = parse(command, deadline=deadline)
    if parsed.errors:
        raise UnparsableError(f"cannot parse it (near {parsed.errors[0]!r})")
    for i, sub in enumerate(parsed.commands):
        if not i & 63 and time.monotonic() > deadline:
            raise UnparsableError(TOO_COMPLEX)
        yield sub


def denied(command: str, patterns: Sequence[Pattern], deadline: float) -> str | None:
    """Why a deny list of ``patterns`` denies ``command``, or None (see the module doc).

    Raises:
        UnparsableError: the command cannot be checked (the caller denies it).
    """
    denier = _Denier(patterns, _Budget(command, deadline))
    for sub in _commands(command, deadline):
        found = denier.check(sub, True)
        if found is not None:
            return found
    return None


# --------------------------------------------------------------------------------------
# require


def allowed_by(pattern: Pattern, written: Sequence[str]) -> bool:
    if isinstance(pattern, re.Pattern):
        return pattern.fullmatch(show(written)) is not None
    return tuple(written[: len(pattern.words)]) == pattern.words


def unlisted(command: str, patterns: Sequence[Pattern], deadline: float) -> str | None:
    """Why an allow list of ``patterns`` refuses ``command``, or None.

    Raises:
        UnparsableError: the command cannot be checked (the caller denies it).
    """
    for sub in _commands(command, deadline):
        written = sub.written
        if written and not any(allowed_by(p, written) for p in patterns):
            allowed = ", ".join(describe(p) for p in patterns)
            return f"the command {show(written)!r} is not allowed (allowed: {allowed})"
    return None
