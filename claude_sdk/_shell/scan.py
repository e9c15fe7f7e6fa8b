"""The command policies' lists over the model of `claude_sdk._shell.interp`.

`denied` returns why a deny list denies a command, or None; `unlisted` why an allow list
refuses it, or None. Both run the same `Scanner`: whatever it cannot resolve to literal
programs and arguments is denied by both (`interp.RefusedError`), with the reason.

A deny list (`DenyJudge`) errs towards deny:

* at every position where a program may run (rule 3 of `claude_sdk._shell.interp`), a
  literal program is matched by name (basename) and its arguments by meaning
  (`claude_sdk._shell.options`); arguments computed when the command runs, or pathname
  patterns that may expand to an option, *may* match and deny;
* a computed word where a program may be is any program: it denies when the words after it
  may carry a pattern's arguments (``setarch x86_64 $c -rf x``), a pathname pattern when it
  may name the pattern's program (``/bin/r? -rf x``);
* every literal word of every command is also tried as a program (``echo rm -rf x`` is
  denied), and strings that may be code (a word or assignment value with blanks or shell
  operators) are read as code for literal matches; a here-document body in them is data
  for the program that reads it (read as code only where a shell reads it);
* a regular expression is searched in each command as written and in its words.

An allow list (`RequireJudge`) is strict: every command that surely runs (each simple
command, and the command of a known runner) must start, as written after quote removal,
with an allowed pattern, or fully match an allowed regular expression.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Callable, Iterator, Sequence
from typing import Final

from .._attrs import frozen
from . import parse as _parse
from .interp import Field, MatchedError, RefusedError, Scanner, glob_matches
from .options import Reading, Spec, read, spec_for
from .parse import UnparsableError
from .programs import program_of

__all__ = ["DenyJudge", "Pattern", "RequireJudge", "WordPattern", "denied", "unlisted"]


# --------------------------------------------------------------------------------------
# Patterns


@frozen
class WordPattern:
    """A command pattern given as words: ``rm -rf``, ``git push --force``.

    Attributes:
        source: the pattern as given.
        words: its words (quotes removed).
        program: the first word's basename.
        reading: the other words read by meaning.
        spellings: the option words as given.
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
            script = _parse.parse(text)
        except UnparsableError as exc:
            raise ValueError(f"cannot parse the command pattern {text!r}: {exc}") from None
        words = _plain_words(script)
        if words is None:
            raise ValueError(
                f"the command pattern {text!r} is not one plain command: a pattern matches "
                "one command, written without operators, redirections or expansions (use a "
                "separate pattern per command)"
            )
        if not words:
            raise ValueError(f"empty command pattern {text!r}")
        program = program_of(words[0])
        spellings = tuple(w for w in words[1:] if w.startswith("-"))
        return cls(text, tuple(words), program, read(program, words[1:]), spellings)

    def __str__(self) -> str:
        return repr(self.source)

    def match(self, args: Sequence[Field], *, fed: bool) -> bool | None:
        """Do ``args`` (after the program) carry this pattern: True, False, or None when
        arguments computed at run time (or read from standard input) might."""
        literal: list[str] = []
        unknown = fed
        spec = spec_for(self.program)
        if spec is not None and spec.subcommands is not None and len(self.words) > 1:
            subcommand = _subcommand(spec, args)
            if subcommand is not None and subcommand != self.words[1]:
                return False  # ``git commit -m "$(...)"`` is no ``git push``
        for arg in args:
            value = arg.value
            if arg.many or value is None:
                unknown = True
                literal.append("\0")  # keeps the places: ``-C "$dir" push``
            elif arg.glob is not None:
                if _may_be_option(arg.glob, self.program):
                    unknown = True  # ``rm -f *`` with a file named ``-r``
                    literal.append("\0")
                else:
                    literal.append(value)
            else:
                literal.append(value)
        want = self.reading
        if not want.meanings and not want.operands:
            return True
        got = read(self.program, literal)
        if want.meanings <= got.meanings and set(want.operands) <= set(got.operands):
            return True
        return None if unknown else False


def _may_be_option(glob: str, program: str) -> bool:
    """May a file name matching ``glob`` be an option word of ``program``? (``*.o`` cannot:
    no option of ``rm`` holds a dot.)"""
    if glob[:1] not in ("-", "*", "?", "["):
        return False
    spec = spec_for(program)
    if spec is None:
        return True
    alphabet = set("-") | set(spec.short) | set("".join(spec.long))
    depth = 0
    for c in glob:
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif depth == 0 and c not in "*?" and c not in alphabet:
            return False
    return True


def _plain_words(script: _parse.Script) -> list[str] | None:
    items = script.items
    if len(items) != 1 or items[0][1] not in ("", "\n"):
        return None
    and_or = items[0][0]
    if and_or.rest or len(and_or.first.commands) != 1:
        return None
    pipeline = and_or.first
    command = pipeline.commands[0]
    if pipeline.negated or pipeline.timed or not isinstance(command, _parse.Simple):
        return None
    if command.assigns or command.redirs:
        return None
    words: list[str] = []
    for word in command.words:
        if word.assign is not None:
            return None
        text: list[str] = []
        for part in word.parts:
            if not isinstance(part, _parse.Lit):
                return None
            if not part.quoted and _SPECIAL.search(part.text):
                return None
            text.append(part.text)
        words.append("".join(text))
    return words


_SPECIAL: Final = re.compile(r"[*?\[{~]")
#: Characters that can make a name out of other text (quotes, escapes, expansions).
_HIDING: Final = re.compile(r"['\"\\$`{*?\[]")


def _subcommand(spec: Spec, args: Sequence[Field]) -> str | None:
    """The subcommand word after global options (``git -C dir push``), if it can be told."""
    skip = False
    for arg in args:
        value = arg.value
        if skip:
            skip = False
            continue
        if value is None or arg.many or arg.glob is not None:
            return None
        if value.startswith("-") and value != "-":
            name = value.lstrip("-").split("=", 1)[0]
            skip = name in spec.global_with_argument and "=" not in value
            continue
        return value
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
#: Suffix views a regular expression is searched in, besides the whole command.
_REGEX_VIEWS: Final = 64
_ANCHORS: Final = re.compile(r"\^|\\A|\(\?<[=!]")


# --------------------------------------------------------------------------------------
# The deny list


class DenyJudge:
    """A deny list's decisions (see the module docstring)."""

    lax = True

    def __init__(self, patterns: Sequence[Pattern]) -> None:
        self.words = [p for p in patterns if isinstance(p, WordPattern)]
        self.regexes = [p for p in patterns if isinstance(p, re.Pattern)]
        self.programs = {p.program for p in self.words} | {p.words[0] for p in self.words}
        self.anchored = any(_ANCHORS.search(r.pattern) for r in self.regexes)

    def worth(self, text: str) -> bool:
        if _HIDING.search(text) or any(p in text for p in self.programs):
            return True
        if self.regexes:
            # nothing in it quotes or expands: the text as written is what a command in it
            # would show, blanks aside
            flat = " ".join(text.split())
            return any(r.search(flat) for r in self.regexes)
        return False

    def simple(self, fields: list[Field], written: Callable[[], list[str]], strict: bool) -> None:
        if self.regexes:
            self._regexes(fields, written)
        programs = self.programs
        for i, field in enumerate(fields):
            value = field.value
            if value is None or field.glob is not None:
                continue
            if value in programs or program_of(value) in programs:
                self._match(fields, i, False, definite=True)

    def program(
        self, fields: list[Field], index: int, certain: bool, fed: bool, strict: bool
    ) -> None:
        value = fields[index].value
        assert value is not None
        if value in self.programs or program_of(value) in self.programs:
            self._match(fields, index, fed, definite=not strict)

    def unknown(self, fields: list[Field], index: int, fed: bool, strict: bool) -> None:
        if not strict:
            return
        field = fields[index]
        if self.regexes:
            raise MatchedError(
                f"{field.source!r} runs as a program computed when the command runs, which "
                f"may match the denied pattern {describe(self.regexes[0])}"
            )
        base = field.glob.rsplit("/", 1)[-1] if field.glob is not None else field.base
        args = list(fields[index + 1 :])
        if field.many or field.glob is not None:
            args.insert(0, Field(None, field.source, many=True))
        for pattern in self.words:
            if field.glob is not None:
                if base is None or not glob_matches(base, pattern.program):
                    continue
            elif base is not None and base != pattern.program:
                continue
            if pattern.match(args, fed=fed) is not False:
                what = "a pathname pattern" if field.glob is not None else "computed when it runs"
                raise MatchedError(
                    f"{field.source!r} may run as the program of the denied pattern {pattern} "
                    f"({what}), with arguments that may carry it: {_view(fields, index)!r}"
                )

    def bare(self, written: Callable[[], list[str]], strict: bool) -> None:
        if self.regexes:
            self._regexes([], written)

    def _match(self, fields: list[Field], index: int, fed: bool, *, definite: bool) -> None:
        value = fields[index].value
        assert value is not None
        base = program_of(value)
        for pattern in self.words:
            if pattern.program != base and pattern.words[0] != value:
                continue
            matched = pattern.match(fields[index + 1 :], fed=fed)
            if matched:
                raise MatchedError(
                    f"the command {_view(fields, index)!r} matches the denied pattern {pattern}"
                )
            if matched is None and not definite:
                raise MatchedError(
                    f"the command {_view(fields, index)!r} may match the denied pattern "
                    f"{pattern}: its arguments are computed when it runs"
                )

    def _regexes(self, fields: list[Field], written: Callable[[], list[str]]) -> None:
        """Each regular expression, searched in the command as written, in its words, and
        (for an anchored expression: ``^``, ``\\A``, a lookbehind) in each suffix that
        starts at one of its first `_REGEX_VIEWS` words."""
        shown = [f.shown for f in fields]
        views = [written(), shown]
        if self.anchored:
            views.extend(shown[i:] for i in range(1, min(len(shown), _REGEX_VIEWS)))
        for view in views:
            text = " ".join(view)
            for regex in self.regexes:
                if regex.search(text):
                    raise MatchedError(
                        f"the command {show(view)!r} matches the denied pattern {describe(regex)}"
                    )


def _view(fields: list[Field], index: int) -> str:
    return show([f.shown for f in fields[index:]])


# --------------------------------------------------------------------------------------
# The allow list


def allowed_by(pattern: Pattern, written: Sequence[str]) -> bool:
    if isinstance(pattern, re.Pattern):
        return pattern.fullmatch(show(written)) is not None
    return tuple(written[: len(pattern.words)]) == pattern.words


class RequireJudge:
    """An allow list's decisions (see the module docstring)."""

    lax = False

    def worth(self, text: str) -> bool:
        return False

    def __init__(self, patterns: Sequence[Pattern]) -> None:
        self.patterns = list(patterns)
        self.written: Callable[[], list[str]] | None = None

    def simple(self, fields: list[Field], written: Callable[[], list[str]], strict: bool) -> None:
        self.written = written

    def program(
        self, fields: list[Field], index: int, certain: bool, fed: bool, strict: bool
    ) -> None:
        if not certain or not strict:
            return
        if index == 0 and self.written is not None:
            words = self.written()
        else:
            words = [f.shown for f in fields[index:]]
        if not any(allowed_by(p, words) for p in self.patterns):
            allowed = ", ".join(describe(p) for p in self.patterns)
            runner = f" (run by {fields[0].shown!r})" if index else ""
            raise MatchedError(
                f"the command {show(words)!r}{runner} is not allowed (allowed: {allowed})"
            )

    def unknown(self, fields: list[Field], index: int, fed: bool, strict: bool) -> None:
        return

    def bare(self, written: Callable[[], list[str]], strict: bool) -> None:
        """Assignments and redirections alone are a command too (``> file`` truncates)."""
        if not strict:
            return
        words = written()
        if not any(allowed_by(p, words) for p in self.patterns):
            allowed = ", ".join(describe(p) for p in self.patterns)
            raise MatchedError(f"the command {show(words)!r} is not allowed (allowed: {allowed})")


# --------------------------------------------------------------------------------------
# Entry points


def _no_recursion(
    check: Callable[[str, Sequence[Pattern], _parse.Steps], str | None],
) -> Callable[[str, Sequence[Pattern], _parse.Steps], str | None]:
    """``check``, with Python's recursion limit read as a command that nests too deeply
    (`UnparsableError`: denied) rather than an error out of the policy."""

    def guarded(command: str, patterns: Sequence[Pattern], steps: _parse.Steps) -> str | None:
        try:
            return check(command, patterns, steps)
        except RecursionError:
            raise UnparsableError("the command nests too deeply to check") from None

    guarded.__doc__ = check.__doc__
    return guarded


@_no_recursion
def denied(command: str, patterns: Sequence[Pattern], steps: _parse.Steps) -> str | None:
    """Why a deny list of ``patterns`` denies ``command``, or None (see the module doc).

    Raises:
        UnparsableError: the command cannot be read (the caller denies it).
    """
    judge = DenyJudge(patterns)
    try:
        Scanner(judge, len(command), steps).scan(command)
    except MatchedError as exc:
        return str(exc)
    except RefusedError as exc:
        # the rule that refused it names the cause (``BASH_ENV``, arithmetic on text, a
        # computed program); a literal match read loosely in the whole text (a later
        # command, say) is added after it
        try:
            Scanner(judge, len(command), steps).lax_scan(command)
        except MatchedError as match:
            return f"{exc}; and, read loosely, {match}"
        return str(exc)
    return None


@_no_recursion
def unlisted(command: str, patterns: Sequence[Pattern], steps: _parse.Steps) -> str | None:
    """Why an allow list of ``patterns`` refuses ``command``, or None.

    Raises:
        UnparsableError: the command cannot be read (the caller denies it).
    """
    try:
        Scanner(RequireJudge(patterns), len(command), steps).scan(command)
    except (MatchedError, RefusedError) as exc:
        return str(exc)
    return None


class _Seen:
    """A simple command the scan saw (for tests): its words as written."""

    __slots__ = ("written",)

    def __init__(self, written: list[str]) -> None:
        self.written = written


class _Recorder:
    lax = False

    def worth(self, text: str) -> bool:
        return False

    def __init__(self) -> None:
        self.seen: list[_Seen] = []

    def simple(self, fields: list[Field], written: Callable[[], list[str]], strict: bool) -> None:
        if strict:
            self.seen.append(_Seen(written()))

    def program(
        self, fields: list[Field], index: int, certain: bool, fed: bool, strict: bool
    ) -> None:
        return

    def unknown(self, fields: list[Field], index: int, fed: bool, strict: bool) -> None:
        return

    def bare(self, written: Callable[[], list[str]], strict: bool) -> None:
        if strict:
            self.seen.append(_Seen(written()))


def _commands(command: str, steps: _parse.Steps) -> Iterator[_Seen]:
    """The simple commands the scan sees in ``command``, in order (for tests)."""
    recorder = _Recorder()
    with contextlib.suppress(RefusedError):
        Scanner(recorder, len(command), steps).scan(command)
    yield from recorder.seen
