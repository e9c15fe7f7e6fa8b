"""The command policies' model of bash: the programs a command runs, or why that cannot be
known.

`Scanner` walks the tree `claude_sdk._shell.parse` reads and works out, for every simple
command bash may run, its words as bash will expand them: literal text after quote and
escape removal, ``$'...'``, brace expansion computed exactly, parameters whose value an
earlier assignment of the same command line fixes (constant propagation, joined at every
branch, loop and function call), the output of ``echo``/``printf``/``cat`` when that is
literal. What it cannot compute stays unknown, and an unknown value is harmless only where
bash cannot run it. The rules (docs/policies.md states them for a reader):

1. **Read, or deny.** The text must be read by `claude_sdk._shell.parse` (bash's grammar).
2. **Command words are literal.** The first word of every simple command, and the command
   word of a runner whose arguments this module reads (`programs.RUNNERS`: ``sudo``,
   ``env``, ``timeout``, ``xargs``, ``command``...), must be a literal (not computed, not a
   pathname pattern).
3. **After any other program, every word may be a program.** After a program that is not
   `programs.INERT`, each later word is looked at as a command with the words after it as
   arguments: a literal one by name, a computed one as *any* program (its arguments decide
   whether a deny pattern may match), a pathname pattern as any file it may match.
4. **Code is read as code, or denied.** Wherever bash evaluates text as code (``eval``,
   ``source``/``.``, ``trap``, a shell's ``-c`` string, script operand or standard input,
   ``env -S``, ``su -c``, the joined arguments of ``ssh``/``watch``/..., variables bash runs
   or expands as prompts, ``${x@P}``), the text must be literal and is read under the same
   rules; computed code is denied. A shell's standard input is literal only when it comes
   from a here-document, a here-string or a producer whose output is computed exactly. A
   file the command line writes is code when it runs it (by path, or by bare name once it
   sets ``PATH``); code a runner may run in this shell (``command eval``) joins its state.
5. **Arithmetic reads numbers only.** ``(( ))``, ``$(( ))``, ``let``, subscripts,
   substring offsets, ``[[ -eq ]]`` and ``${!x}`` evaluate variable values as expressions
   (``a[$(cmd)]`` runs ``cmd``): every variable they read must hold a known number.
6. **Variables bash evaluates are checked where they are set**: ``BASH_ENV``, ``ENV``,
   ``SHELLOPTS``, ``LD_PRELOAD``... are never set; prompts (``PS0``-``PS4``) and
   ``PROMPT_COMMAND`` only to literal text whose code passes; ``IFS`` makes later splitting
   unknown; ``declare -n``/``-i``/``-l``/``-u``, aliases, ``set -k``, ``shopt -s extglob``
   and the like (which change what later text means) are denied.

A `Judge` (the deny list or the allow list) sees every program position and decides; the
scanner raises `RefusedError` for what the rules deny whatever the list.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Final, Protocol, TypeAlias

from . import parse as syntax
from . import programs
from .produce import echo_output, printf_output

__all__ = [
    "Field",
    "Judge",
    "MatchedError",
    "RefusedError",
    "Scanner",
]


class RefusedError(Exception):
    """The command is denied whatever the list: the message says why."""


class MatchedError(Exception):
    """The judge denies the command: the message says why."""


# ======================================================================================
# Values


class _Number:
    """A decimal integer computed when the command runs."""

    def __repr__(self) -> str:
        return "NUMBER"


NUMBER: Final = _Number()
#: A variable's value: known text, a number, or None (unknown).
Value: TypeAlias = "str | _Number | None"
_NUMERIC: Final = re.compile(r"[ \t\n]*[-+]?[0-9]+[ \t\n]*")


def _join(a: Value, b: Value) -> Value:
    if a == b:
        return a
    if _numeric(a) and _numeric(b):
        return NUMBER
    return None


def _numeric(value: Value) -> bool:
    return value is NUMBER or (isinstance(value, str) and _NUMERIC.fullmatch(value) is not None)


class _Feed:
    """A stream whose text is not literal."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: The tool's own standard input (outside the command line).
INHERIT: Final = _Feed("INHERIT")
#: A stream whose content is computed when the command runs.
UNKNOWN: Final = _Feed("UNKNOWN")
#: The stream a shell is reading its code from (see `Scanner.stdin_code`).
SHARED: Final = _Feed("SHARED")


class _File(_Feed):
    def __init__(self, path: str) -> None:
        super().__init__(f"FILE({path!r})")
        self.path = path


#: What reading a descriptor gives: literal text, or one of the `_Feed` values.
Feed: TypeAlias = "str | _Feed"


def _join_feed(a: Feed, b: Feed) -> Feed:
    return a if a == b or a is b else UNKNOWN


class State:
    """What is known at one point of a command line.

    Attributes:
        vars: variable values (a name that is absent is unknown: the environment's).
        fds: what reading each descriptor gives.
        ifs: IFS is bash's default (splitting of known values can be computed).
        volatile: a trap or a sourced file may change any variable at any time.
        funcs: names of functions defined so far.
    """

    __slots__ = ("assoc", "fds", "funcs", "ifs", "vars", "volatile")

    def __init__(self, fds: dict[int, Feed] | None = None) -> None:
        self.vars: dict[str, Value] = {}
        self.fds: dict[int, Feed] = fds if fds is not None else {0: INHERIT}
        self.ifs = True
        self.volatile = False
        self.funcs: set[str] = set()
        #: Names declared associative (``declare -A``): their subscripts are strings.
        self.assoc: set[str] = set()

    def copy(self) -> State:
        other = State(dict(self.fds))
        other.vars = dict(self.vars)
        other.ifs = self.ifs
        other.volatile = self.volatile
        other.funcs = set(self.funcs)
        other.assoc = set(self.assoc)
        return other

    def get(self, name: str) -> Value:
        if self.volatile:
            return None
        if name in self.vars:
            return self.vars[name]
        if name in programs.DYNAMIC_NUMBERS:
            return NUMBER
        return None

    def set(self, name: str, value: Value) -> None:
        if value is None:
            self.vars.pop(name, None)
        else:
            self.vars[name] = value

    def join(self, other: State) -> State:
        out = State({})
        for name, value in self.vars.items():
            if name in other.vars:
                joined = _join(value, other.vars[name])
                if joined is not None:
                    out.vars[name] = joined
        for fd in set(self.fds) | set(other.fds):
            out.fds[fd] = _join_feed(self.fds.get(fd, UNKNOWN), other.fds.get(fd, UNKNOWN))
        out.ifs = self.ifs and other.ifs
        out.volatile = self.volatile or other.volatile
        out.funcs = self.funcs | other.funcs
        out.assoc = self.assoc & other.assoc
        return out

    def forget(self) -> None:
        """Every variable may have changed."""
        self.vars.clear()

    def absorb(self, other: State) -> None:
        """Become the join of this state and ``other`` (either may hold after here)."""
        joined = self.join(other)
        self.vars = joined.vars
        self.fds = joined.fds
        self.ifs = joined.ifs
        self.volatile = joined.volatile
        self.funcs = joined.funcs
        self.assoc = joined.assoc


# ======================================================================================
# Fields: what a word expands to


class Field:
    """One word of a command as bash will pass it, or a stand-in for unknown ones.

    Attributes:
        value: the exact text, or None when it is computed at run time.
        many: this stands for any number of words (an unquoted expansion, ``"$@"``).
        glob: a pathname pattern (`fnmatch` syntax; unknown parts as ``*``): the word is
            replaced by the files that match it (or kept as written).
        base: the basename when the value is unknown but its end is not (``"$d/rm"``).
        number: the value is a decimal number.
        code: the word with its literal parts unquoted and the rest as written (what a
            program that runs it as code would see, roughly).
        source: the word as written.
        feed: for a process substitution, what reading it gives.
    """

    __slots__ = ("base", "code", "feed", "glob", "many", "number", "source", "value")

    def __init__(
        self,
        value: str | None,
        source: str,
        *,
        many: bool = False,
        glob: str | None = None,
        base: str | None = None,
        number: bool = False,
        code: str | None = None,
        feed: Feed | None = None,
    ) -> None:
        self.value = value
        self.source = source
        self.many = many
        self.glob = glob
        self.base = base
        self.number = number
        self.code = code if code is not None else (value if value is not None else source)
        self.feed = feed

    def __repr__(self) -> str:
        if self.glob is not None:
            return f"Field(glob={self.glob!r})"
        if self.value is not None:
            return f"Field({self.value!r})"
        return f"Field(<{self.source}>{' many' if self.many else ''})"

    @property
    def known(self) -> bool:
        """A literal word (not computed, not a pattern)."""
        return self.value is not None and self.glob is None and not self.many

    @property
    def shown(self) -> str:
        return self.value if self.value is not None and self.glob is None else self.source


def literal_fields(words: Sequence[str]) -> list[Field]:
    return [Field(w, w) for w in words]


# ======================================================================================
# The judge


class Judge(Protocol):
    """What a list decides at each program position (raises `MatchedError` to deny)."""

    #: Read strings that may be code (the deny list: yes; the allow list: no).
    lax: bool

    def worth(self, text: str) -> bool:
        """May ``text``, read as code, hold something the list denies?"""

    def simple(self, fields: list[Field], written: Callable[[], list[str]], strict: bool) -> None:
        """Once per simple command bash may run (``strict``: surely, not maybe-code)."""

    def program(
        self, fields: list[Field], index: int, certain: bool, fed: bool, strict: bool
    ) -> None:
        """A literal program at ``fields[index]``; ``certain``: it surely runs when the
        command does (else it may, as an argument of a program that runs its arguments);
        ``fed``: more arguments come from standard input (``xargs``)."""

    def unknown(self, fields: list[Field], index: int, fed: bool, strict: bool) -> None:
        """A computed word or a pathname pattern at a position where a program may be."""

    def bare(self, written: Callable[[], list[str]], strict: bool) -> None:
        """A command of assignments and redirections only (no program runs)."""


# ======================================================================================
# The scanner

_GLOB_CHARS: Final = re.compile(r"[*?]|\[.+\]|\[\]\]", re.DOTALL)
_IFS_SPLIT: Final = re.compile(r"[ \t\n]+")
_ARITH_TOKEN: Final = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9A-Za-z_@#]*|\+\+|--|==|!=|<=|>=|&&|\|\||<<=|>>=|"
    r"[-+*/%&|^]=|\*\*|<<|>>|[ \t\n]+|.",
    re.DOTALL,
)
_ASSIGNABLE: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?=)(.*)", re.DOTALL)
_NAME_WITH_INDEX: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?")
_PLAIN_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STREAM_PREFIXES: Final = ("/dev/", "/proc/")
_FD_PATH: Final = re.compile(r"/(?:dev/fd|proc/(?:self|thread-self|[0-9]+)/fd)/([0-9]+)")
_CODE_CHARS: Final = re.compile(r"[\s;&|<>()`$]")
_SEQUENCE: Final = re.compile(r"(-?[0-9]+|[A-Za-z])\.\.(-?[0-9]+|[A-Za-z])(?:\.\.(-?[0-9]+))?")
#: Most words a brace expansion may make before it is taken as unknown.
_BRACE_LIMIT: Final = 256
_DECLARE_BAD: Final = {"n": "a name reference", "i": "the integer attribute", "l": "a case",
                       "u": "a case", "c": "a case"}  # fmt: skip
_CODE_OPTION_PROGRAMS: Final = frozenset({"su", "runuser", "flock", "script"})


class _Ctx:
    """Where the scanner is.

    Attributes:
        strict: the code surely runs (False: a string that may be code).
        depth: nesting of code strings.
        bash: the code is run by bash (its ``echo`` and ``printf``).
        top: the tool's command line itself (its standard input is the tool's).
        fed: the text and line ends of code a shell reads from standard input.
        last: the current top-level command is on the last line of ``fed``.
    """

    __slots__ = ("bash", "depth", "fed", "last", "strict", "top")

    def __init__(
        self,
        strict: bool,
        depth: int,
        bash: bool = True,
        top: bool = False,
        fed: str | None = None,
    ) -> None:
        self.strict = strict
        self.depth = depth
        self.bash = bash
        self.top = top
        self.fed = fed
        self.last = True

    def inner(self, *, strict: bool | None = None, bash: bool | None = None) -> _Ctx:
        return _Ctx(
            self.strict if strict is None else (strict and self.strict),
            self.depth + 1,
            self.bash if bash is None else bash,
        )


class _Budget:
    """Bytes of nested code left to read (strings inside strings cannot multiply work)."""

    __slots__ = ("left",)

    def __init__(self, size: int) -> None:
        self.left = 4 * size + 65536

    def take(self, text: str) -> None:
        self.left -= len(text)
        if self.left < 0:
            raise RefusedError("the command nests too much code in strings to check")


class Scanner:
    """Walks one command (see the module docstring)."""

    def __init__(self, judge: Judge, size: int, steps: syntax.Steps) -> None:
        self.judge = judge
        self.budget = _Budget(size)
        self.steps = steps
        #: Files the command line writes (by file name: a later run of one is read as
        #: code), with what they hold when that is literal.
        self.files: dict[str, Feed] = {}
        #: The command line writes to a file whose name is computed when it runs.
        self.blind = False
        #: The command line sets PATH: a program's bare name may find a file it wrote.
        self.path_set = False
        #: Texts read loosely (`lax`) so far.
        self.loose: set[str] = set()

    # -- entry points ----------------------------------------------------------------------

    def scan(self, text: str) -> None:
        """Scan the tool's command (raises `RefusedError`, `MatchedError` or
        `claude_sdk._shell.parse.UnparsableError`)."""
        script = syntax.parse(text, steps=self.steps)
        self.script(script, State(), _Ctx(True, 0, top=True))

    def lax_scan(self, text: str) -> None:
        """Scan the tool's command as a string that may be code (literal matches only)."""
        self.lax(text, _Ctx(False, 0))

    def code(self, text: str, st: State, ctx: _Ctx) -> State:
        """Read ``text`` as code at ``ctx`` (a nested string)."""
        if ctx.depth > syntax.MAX_DEPTH:
            raise RefusedError(f"commands nested more than {syntax.MAX_DEPTH} deep")
        self.budget.take(text)
        if not ctx.strict:
            self.lax(text, ctx)
            return st
        try:
            script = syntax.parse(text, steps=self.steps, depth=ctx.depth)
        except syntax.UnparsableError as exc:
            raise RefusedError(f"it runs code that cannot be read: {exc}") from None
        return self.script(script, st, ctx)

    def lax(self, text: str, ctx: _Ctx) -> None:
        """A string that may be code: only a literal match of the list denies. Each text is
        read once per command (a word that reads as itself, ``-{a,\fb}`` with a blank bash
        does not split on, would read itself forever)."""
        if not self.judge.lax or text in self.loose:
            return
        self.loose.add(text)
        strict_ctx = _Ctx(False, ctx.depth)
        try:
            script = syntax.parse(text, steps=self.steps, depth=min(ctx.depth, syntax.MAX_DEPTH))
        except syntax.UnparsableError:
            self.tokens(text)
            return
        try:
            self.script(script, State({0: UNKNOWN}), strict_ctx)
        except RefusedError:
            pass
        finally:
            # and its words, whatever the shell makes of them (``alias.x=!rm -rf x``); a
            # here-document's body is data for the program reading it (the scan above read
            # it as code where a shell or an unknown program reads it)
            self.tokens(text, _heredoc_lines(script))

    def tokens(self, text: str, data: dict[str, int] | None = None) -> None:
        """Text that is not shell code (another language, a broken string): its words, line
        by line, as if each line were a command; once as written and once with quotes and
        backslashes dropped (``os.system("r''m -rf x")``, ``alias.q=!'r'm -rf x``). Lines
        counted in ``data`` (here-document bodies) are skipped, once per count."""
        data = dict(data) if data else {}
        for line in text.splitlines():
            key = line.strip()
            if data.get(key):
                data[key] -= 1
                continue
            for words in (_LAX_WORD.findall(line), _LAX_WORD.findall(_LAX_QUOTES.sub("", line))):
                if words:
                    self.judge.simple(literal_fields(words), _constant(words), False)

    def strings(self, fields: list[Field], node: syntax.Simple, ctx: _Ctx) -> None:
        """Words that may be code to some program (blanks or shell operators in them), and
        assignment values alike: read for literal matches (the lax rule)."""
        texts = [f.code for f in fields[1:]]
        texts.extend(a.value.source for a in node.assigns if a.value is not None)
        for text in texts:
            if len(text) < 3 or _CODE_CHARS.search(text) is None:
                continue
            if not self.judge.worth(text):
                continue
            for candidate in _candidates(text):
                self.lax(candidate, ctx)

    def tick(self) -> None:
        steps = self.steps
        steps.left -= 1
        if steps.left < 0:
            raise syntax.UnparsableError(syntax.TOO_COMPLEX)

    def refuse(self, ctx: _Ctx, reason: str) -> None:
        """Deny (in code that surely runs) with ``reason``."""
        raise RefusedError(reason)

    # -- lists and compound commands -------------------------------------------------------

    def script(self, script: syntax.Script, st: State, ctx: _Ctx) -> State:
        items = script.items
        fed = ctx.fed
        line_end: list[bool] = []
        if fed is not None:
            # the top-level command is "last" when only blanks follow its line
            last_line_start = len(fed.rstrip())
            line_end = [end >= last_line_start or not fed[end:].strip() for _, _, end in items]
            for k in range(len(items) - 2, -1, -1):
                if items[k][1] != "\n":
                    line_end[k] = line_end[k + 1]
        for k, (node, sep, _end) in enumerate(items):
            self.tick()
            if fed is not None:
                ctx.last = line_end[k]
            if ctx.strict:
                if sep == "&":
                    self.and_or(node, st.copy(), ctx)
                else:
                    st = self.and_or(node, st, ctx)
            else:
                try:
                    st = self.and_or(node, st.copy() if sep == "&" else st, ctx)
                except RefusedError:
                    st = State({0: UNKNOWN})
        return st

    def and_or(self, node: syntax.AndOr, st: State, ctx: _Ctx) -> State:
        st, _ = self.pipeline(node.first, st, ctx)
        for _op, pipeline in node.rest:
            after, _ = self.pipeline(pipeline, st.copy(), ctx)
            st = st.join(after)
        return st

    def pipeline(self, node: syntax.Pipeline, st: State, ctx: _Ctx) -> tuple[State, Feed]:
        commands = node.commands
        if not commands:
            return st, ""
        if len(commands) == 1:
            return self.command(commands[0], st, ctx, None)
        feed: Feed | None = None
        after = st
        for k, command in enumerate(commands):
            after, out = self.command(command, st.copy(), ctx, feed)
            feed = out
            del k
        # each part runs in a subshell (the last one, with lastpipe, in this one)
        return st.join(after), UNKNOWN

    def command(
        self, node: syntax.Command, st: State, ctx: _Ctx, stdin: Feed | None
    ) -> tuple[State, Feed]:
        """Scan one command; returns the state after it and what it writes (a producer's
        literal output, else `UNKNOWN`)."""
        if not ctx.strict:
            # maybe-code: what cannot be read is skipped, one command at a time
            try:
                return self.command_in(node, st, ctx, stdin)
            except RefusedError:
                return State({0: UNKNOWN}), UNKNOWN
        return self.command_in(node, st, ctx, stdin)

    def command_in(
        self, node: syntax.Command, st: State, ctx: _Ctx, stdin: Feed | None
    ) -> tuple[State, Feed]:
        if isinstance(node, syntax.Simple):
            return self.simple(node, st, ctx, stdin)
        saved = dict(st.fds)
        if stdin is not None:
            st.fds[0] = stdin
        redirs = getattr(node, "redirs", None)
        if redirs:
            st.fds = self.redirects(redirs, st, ctx, dict(st.fds))
            self.writes(redirs, [], UNKNOWN, st.fds, st, ctx)
        st = self.compound(node, st, ctx)
        st.fds = saved
        return st, UNKNOWN

    def compound(self, node: syntax.Command, st: State, ctx: _Ctx) -> State:
        if isinstance(node, syntax.Group):
            return self.script(node.body, st, ctx)
        if isinstance(node, syntax.Subshell):
            self.script(node.body, st.copy(), ctx)
            return st
        if isinstance(node, syntax.If):
            outs: list[State] = []
            for cond, body in node.clauses:
                st = self.script(cond, st, ctx)
                outs.append(self.script(body, st.copy(), ctx))
            outs.append(self.script(node.else_, st.copy(), ctx) if node.else_ else st)
            out = outs[0]
            for other in outs[1:]:
                out = out.join(other)
            return out
        if isinstance(node, syntax.Loop):
            return self.loop(
                st, lambda s: self.script(node.body, self.script(node.cond, s, ctx), ctx), ctx
            )
        if isinstance(node, syntax.For):
            return self.for_(node, st, ctx)
        if isinstance(node, syntax.ArithFor):
            for name in self.arith(node.init, st, ctx):
                st.set(name, NUMBER)

            def turn(s: State) -> State:
                for name in self.arith(node.cond, s, ctx):
                    s.set(name, NUMBER)
                s = self.script(node.body, s, ctx)
                for name in self.arith(node.step, s, ctx):
                    s.set(name, NUMBER)
                return s

            return self.loop(st, turn, ctx)
        if isinstance(node, syntax.Case):
            self.expand(node.word, st, ctx, split=False)
            out = st
            for patterns, body, _term in node.items:
                for pattern in patterns:
                    self.expand(pattern, st, ctx, split=False)
                out = out.join(self.script(body, st.copy(), ctx))
            return out
        if isinstance(node, syntax.ArithCmd):
            for name in self.arith(node.expr, st, ctx):
                st.set(name, NUMBER)
            return st
        if isinstance(node, syntax.Cond):
            self.cond(node.expr, st, ctx)
            return st
        if isinstance(node, syntax.FuncDef):
            return self.function(node, st, ctx)
        raise RefusedError(
            f"a construct that is not read: {type(node).__name__}"
        )  # pragma: no cover

    def loop(self, st: State, turn: Callable[[State], State], ctx: _Ctx) -> State:
        """A loop body run zero or more times: its state joined until nothing changes."""
        head = st
        for _ in range(4):
            after = turn(head.copy())
            joined = head.join(after)
            if joined.vars == head.vars and joined.fds == head.fds and joined.ifs == head.ifs:
                return joined
            head = joined
        head.forget()
        turn(head.copy())
        return head

    def for_(self, node: syntax.For, st: State, ctx: _Ctx) -> State:
        value: Value = None
        if node.words is not None:
            fields: list[Field] = []
            for word in node.words:
                fields.extend(self.expand(word, st, ctx))
            values = [f.value if f.known else None for f in fields]
            if values and all(v is not None for v in values):
                value = values[0]
                for v in values[1:]:
                    value = _join(value, v)
        self.assigned(node.var, value if not node.select else None, st, ctx, f"for {node.var}")
        name = node.var

        def turn(s: State) -> State:
            s.set(name, value if not node.select else None)
            if node.select and s.fds.get(0) not in (INHERIT,):
                self.reads_stdin(s, ctx, "select")
            return self.script(node.body, s, ctx)

        return self.loop(st, turn, ctx)

    def function(self, node: syntax.FuncDef, st: State, ctx: _Ctx) -> State:
        """A function body is read when it is defined, for a call from anywhere: nothing is
        known about variables or standard input then."""
        inner = State({0: UNKNOWN, 1: UNKNOWN})
        inner.funcs = set(st.funcs) | {node.name}
        fctx = _Ctx(ctx.strict, ctx.depth, ctx.bash)
        self.command(node.body, inner, fctx, None)
        st.funcs.add(node.name)
        return st

    def cond(self, node: syntax.CondNode, st: State, ctx: _Ctx) -> None:
        kind = node.kind
        if kind in ("and", "or"):
            assert node.left is not None
            assert node.right is not None
            self.cond(node.left, st, ctx)
            self.cond(node.right, st, ctx)
            return
        if kind == "not":
            assert node.left is not None
            self.cond(node.left, st, ctx)
            return
        fields = [self.single(w, st, ctx) for w in node.words]
        if kind == "unary" and node.op == "-v":
            self.name_operand(fields[0], ctx, "[[ -v ]]")
        if kind == "binary" and node.op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
            for field in fields:
                self.arith_operand(field, st, ctx, f"[[ {node.op} ]]")

    # -- simple commands -------------------------------------------------------------------

    def simple(
        self, node: syntax.Simple, st: State, ctx: _Ctx, stdin: Feed | None
    ) -> tuple[State, Feed]:
        self.tick()
        fds = dict(st.fds)
        if stdin is not None:
            fds[0] = stdin
        fds = self.redirects(node.redirs, st, ctx, fds)
        per_word: list[list[Field]] = []
        declared: set[int] = set()
        for word in node.words:
            self.tick()
            if word.assign is not None:
                if any(
                    f.value and f.value[:1] == "-" and "A" in f.value for g in per_word for f in g
                ):
                    st.assoc.add(word.assign.name)
                field = self.declared(word.assign, st, ctx)
                declared.add(id(field))
                per_word.append([field])
            else:
                per_word.append(self.expand(word, st, ctx))
        fields = [f for word_fields in per_word for f in word_fields]
        temporary = bool(node.words)
        for assign in node.assigns:
            self.assignment(assign, st, ctx, temporary=temporary)
        restore: list[str] = []
        if temporary and node.assigns and fields and fields[0].known:
            name = fields[0].value
            if name in ("eval", "source", ".", "command", "builtin", "trap") or name in st.funcs:
                # code run in this shell sees the temporary values; afterwards the names
                # hold what they held, or (to this scan) anything
                for assign in node.assigns:
                    value = self.single(assign.value, st, ctx) if assign.value else Field("", "")
                    st.set(assign.name, value.value if value.known and not assign.append else None)
                    restore.append(assign.name)

        def written() -> list[str]:
            return _written(node, per_word)

        if not fields:
            if node.assigns or node.redirs:
                self.judge.bare(written, ctx.strict)
            self.writes(node.redirs, [], "", fds, st, ctx)
            return st, ""

        self.judge.simple(fields, written, ctx.strict)
        if self.judge.lax:
            self.strings(fields, node, ctx)
        self.analyze(fields, 0, True, False, fds, st, ctx)
        out = self.output(fields, fds, st, ctx)
        self.writes(node.redirs, fields, out, fds, st, ctx)
        if any(
            (r.fd in (None, 1) and r.op[0] in ">&") or r.op in ("&>", "&>>") for r in node.redirs
        ):
            out = UNKNOWN  # written elsewhere (a file, another descriptor)
        reader = fields[0].value not in programs.NO_STDIN and not _redirected(node, 0)
        if reader and fds.get(0) is SHARED and not ctx.last:
            self.refuse(
                ctx,
                f"{fields[0].shown!r} reads standard input, which holds the rest of the code "
                "a shell is reading from it",
            )
        if reader and stdin is None and isinstance(st.fds.get(0), str):
            st.fds[0] = UNKNOWN  # partly read: what is left is not known
        self.effects(fields, declared, st, ctx, fds)
        for name in restore:
            st.set(name, None)
        return st, out

    def analyze(
        self,
        fields: list[Field],
        start: int,
        certain: bool,
        fed: bool,
        fds: dict[int, Feed],
        st: State,
        ctx: _Ctx,
    ) -> None:
        """The command at ``fields[start:]``: its program, and what it may run."""
        self.tick()
        f = fields[start]
        if not f.known:
            if certain:
                if f.glob is not None:
                    self.refuse(
                        ctx,
                        f"the command name {f.source!r} is a pathname pattern: the program "
                        "it runs depends on the files there",
                    )
                self.refuse(
                    ctx,
                    f"the command name {f.source!r} is computed when the command runs, so no "
                    "list can check it",
                )
            self.judge.unknown(fields, start, fed, ctx.strict)
            return
        value = f.value
        assert value is not None
        if certain and value.startswith(_STREAM_PREFIXES):
            self.refuse(ctx, f"the program {value!r} is a stream, not a file")
        if ("/" in value or self.path_set) and (self.files or self.blind):
            text = self.written_file(value, ctx, "it runs")
            if text is not None:
                self.program_file(text, ctx)
        self.judge.program(fields, start, certain, fed, ctx.strict)
        base = programs.program_of(value)
        self.code_of(fields, start, certain, fds, st, ctx)
        if programs.inert(value):
            return
        if base == "xargs":
            self.xargs(fields, start, certain, fds, st, ctx)
            return
        if base == "env":
            self.env(fields, start, certain, fed, fds, st, ctx)
            return
        runner = programs.RUNNERS.get(base)
        if runner is not None and (base not in ("command", "builtin", "exec") or "/" not in value):
            k = self.command_index(runner, fields, start, ctx, base)
            if k is not None:
                self.analyze(fields, k, certain, fed, fds, st, ctx)
            return
        # any other program may run any later word as a command
        for j in range(start + 1, len(fields)):
            g = fields[j]
            if g.known:
                self.judge.program(fields, j, False, fed, ctx.strict)
                self.code_of(fields, j, False, fds, st, ctx)
            else:
                self.judge.unknown(fields, j, fed, ctx.strict)

    def command_index(
        self, runner: programs.Runner, fields: list[Field], start: int, ctx: _Ctx, name: str
    ) -> int | None:
        """Where the command of a known runner starts (None: it runs none). A computed
        word among its options and operands is denied: it could move the command."""
        operands = runner.operands
        j = start + 1
        n = len(fields)
        options = True
        while j < n:
            f = fields[j]
            if not f.known:
                if operands == 0 and not f.many and f.glob is None:
                    return j  # the command word, computed: denied by the caller
                self.refuse(
                    ctx,
                    f"{name!r} takes {f.source!r}, computed when the command runs, where its "
                    "options or its command are",
                )
            value = f.value
            assert value is not None
            if options and value == "--":
                options = False
                j += 1
                continue
            if options and value.startswith("-") and len(value) > 1:
                if name == "nice" and value[1:].isdigit():
                    j += 1
                    continue
                if value.startswith("--"):
                    option = value[2:].split("=", 1)[0]
                    j += 2 if option in runner.long and "=" not in value else 1
                    continue
                letters = value[1:]
                at = next((k for k, c in enumerate(letters) if c in runner.short), None)
                j += 2 if at is not None and at == len(letters) - 1 else 1
                continue
            if options and runner.assignments and _ASSIGNABLE.fullmatch(value):
                j += 1
                continue
            if operands:
                operands -= 1
                j += 1
                continue
            return j
        return None

    def xargs(
        self,
        fields: list[Field],
        start: int,
        certain: bool,
        fds: dict[int, Feed],
        st: State,
        ctx: _Ctx,
    ) -> None:
        """``xargs``: its command gets the words of its standard input as more arguments
        (computed here when that input is literal, else any words); with ``-I R`` (``-i``,
        ``--replace``) every word holding ``R`` is computed."""
        runner = programs.RUNNERS["xargs"]
        replace: str | None = None
        delimiter: str | None = None
        source: Feed = fds.get(0, UNKNOWN)
        k = start + 1
        while k < len(fields):
            value = fields[k].value or ""
            nxt = fields[k + 1].value if k + 1 < len(fields) else None
            if not value.startswith("-") or value == "--":
                break
            if value in ("-0", "--null"):
                delimiter = "\0"
            elif value in ("-i", "--replace"):
                replace = "{}"
            elif value.startswith("--replace="):
                replace = value.split("=", 1)[1]
            elif value.startswith("-I"):
                replace = value[2:] or nxt
            elif value.startswith("-i"):
                replace = value[2:]
            elif value.startswith("-d"):
                delimiter = value[2:] or nxt
            elif value.startswith("--delimiter"):
                delimiter = value.split("=", 1)[1] if "=" in value else nxt
            elif value.startswith(("-a", "--arg-file")):
                source = UNKNOWN
            k += 1
        index = self.command_index(runner, fields, start, ctx, "xargs")
        command = list(fields)
        if index is None:
            command.append(Field("echo", "echo"))
            index = len(command) - 1
        words = _xargs_words(source, delimiter) if replace is None else None
        if replace:
            for j in range(index, len(command)):
                word = command[j].value
                if word is not None and replace in word:
                    command[j] = Field(None, command[j].source)
        elif words is None:
            command.append(Field(None, "xargs-input...", many=True))
        else:
            command.extend(Field(w, w) for w in words)
        inner = dict(fds)
        inner[0] = ""  # xargs runs its command with standard input from /dev/null
        self.analyze(command, index, certain, False, inner, st, ctx)

    def env(
        self,
        fields: list[Field],
        start: int,
        certain: bool,
        fed: bool,
        fds: dict[int, Feed],
        st: State,
        ctx: _Ctx,
    ) -> None:
        """``env``: options, ``-S STRING`` (split by env's own rules into more arguments, read
        in place), ``NAME=VALUE`` words (checked as assignments), then the command."""
        args = list(fields[start + 1 :])
        j = 0
        while j < len(args):
            f = args[j]
            if not f.known:
                if certain:
                    self.refuse(ctx, f"'env' takes {f.source!r}, computed when the command runs")
                self.judge.unknown(args, j, fed, ctx.strict)
                return
            value = f.value
            assert value is not None
            split: str | None = None
            if value == "--":
                j += 1
                break
            if value in ("-S", "--split-string"):
                if j + 1 >= len(args):
                    return
                if not args[j + 1].known:
                    self.refuse(
                        ctx, f"'env -S' splits {args[j + 1].source!r}, computed when it runs"
                    )
                split = args[j + 1].value
                del args[j : j + 2]
            elif value.startswith("--split-string="):
                split = value.split("=", 1)[1]
                del args[j]
            elif value.startswith("--"):
                option = value[2:]
                j += 2 if option in ("unset", "chdir") else 1
                continue
            elif value.startswith("-") and len(value) > 1:
                letters = value[1:]
                at = next((k for k, c in enumerate(letters) if c in "SuC"), None)
                if at is None:
                    j += 1
                    continue
                attached = letters[at + 1 :]
                if letters[at] != "S":
                    j += 1 if attached else 2
                    continue
                if attached:
                    split = attached
                    del args[j]
                else:
                    if j + 1 >= len(args):
                        return
                    if not args[j + 1].known:
                        self.refuse(
                            ctx, f"'env -S' splits {args[j + 1].source!r}, computed when it runs"
                        )
                    split = args[j + 1].value
                    del args[j : j + 2]
                if at:
                    args.insert(j, Field("-" + letters[:at], "-" + letters[:at]))
                    j += 1
            if split is not None:
                words = _env_split(split)
                if words is None:
                    self.refuse(ctx, f"the 'env -S' string {split!r} is not read")
                    return
                args[j:j] = [Field(w, w) if w is not None else Field(None, split) for w in words]
                continue
            if "=" in value and not value.startswith("="):
                name, _, text = value.partition("=")
                self.variable(name, text, ctx, f"env {value}")
                j += 1
                continue
            break
        if j >= len(args):
            return
        command = fields[: start + 1] + args
        self.analyze(command, start + 1 + j, certain, fed, fds, st, ctx)

    # -- code a program runs -----------------------------------------------------------------

    def code_of(
        self,
        fields: list[Field],
        index: int,
        certain: bool,
        fds: dict[int, Feed],
        st: State,
        ctx: _Ctx,
    ) -> None:
        """The code the program at ``fields[index]`` runs (shells, ``eval``, ``source``,
        ``trap``, ``su -c``, joiners): read strictly."""
        value = fields[index].value
        assert value is not None
        if index and value in ("eval", "source", ".", "trap"):
            # run by a runner (``command eval``, ``builtin .``) in this shell, or by another
            # program that cannot change it: what the code sets may or may not hold after
            after = st.copy()
            self.code_of_in(fields, index, certain, fds, after, ctx)
            st.absorb(after)
            return
        self.code_of_in(fields, index, certain, fds, st, ctx)

    def code_of_in(
        self,
        fields: list[Field],
        index: int,
        certain: bool,
        fds: dict[int, Feed],
        st: State,
        ctx: _Ctx,
    ) -> None:
        value = fields[index].value
        assert value is not None
        base = programs.program_of(value)
        args = fields[index + 1 :]
        if base in programs.SHELLS:
            self.shell(base, args, certain, fds, st, ctx)
        elif value == "eval":
            self.eval_(args, index, st, ctx)
        elif value in ("source", "."):
            self.source(args, fds, st, ctx)
        elif value == "trap":
            self.trap(args, st, ctx)
        elif base in _CODE_OPTION_PROGRAMS:
            self.code_options(base, args, st, ctx)
        elif base in programs.JOINERS or (
            base in ("sudo", "doas")
            and any(a.value in ("-s", "-i", "--shell", "--login") for a in args)
        ):
            self.joined(base, args, ctx)

    def shell(
        self,
        base: str,
        args: list[Field],
        certain: bool,
        fds: dict[int, Feed],
        st: State,
        ctx: _Ctx,
    ) -> None:
        if base in ("busybox", "toybox"):
            if not args or args[0].value not in programs.SHELLS:
                return
            base = args[0].value or ""
            args = args[1:]
        bash_like = base in programs.BASH_LIKE
        code_mode = stdin_mode = False
        k = 0
        while k < len(args):
            f = args[k]
            value = f.value
            if not f.known or value is None:
                self.refuse(ctx, f"{base!r} takes {f.source!r}, computed when it runs")
                return
            if value in ("-", "--"):
                k += 1
                break
            if value.startswith("--"):
                if value in ("--rcfile", "--init-file"):
                    if k + 1 < len(args):
                        self.script_file(base, args[k + 1], fds, st, ctx)
                    k += 2
                    continue
                k += 1
                continue
            if value[:1] in ("-", "+") and len(value) > 1:
                letters = value[1:]
                k += 1
                for letter in letters:
                    if letter == "c":
                        code_mode = True
                    elif letter == "s":
                        stdin_mode = True
                    elif letter in "oO":
                        if k < len(args):
                            option = args[k].value
                            safe = (
                                programs.SAFE_SET_OPTIONS if letter == "o" else programs.SAFE_SHOPT
                            )
                            if option is None or option not in safe:
                                self.refuse(
                                    ctx,
                                    f"{base!r} with the option {option or args[k].source!r}, "
                                    "which changes how it reads code",
                                )
                            k += 1
                    elif letter == "k":
                        self.refuse(ctx, f"{base!r} -k (assignments anywhere)")
                continue
            break
        rest = args[k:]
        if code_mode:
            if not rest:
                return
            code = rest[0]
            if not code.known or code.value is None:
                self.refuse(ctx, f"{base!r} runs {code.source!r} as code, computed when it runs")
                return
            if not bash_like:
                self.refuse(ctx, f"{base!r} code is not read (only bash's)")
            self.code(code.value, State({0: fds.get(0, UNKNOWN)}), ctx.inner(bash=base == "bash"))
            return
        if rest and not stdin_mode:
            self.script_file(base, rest[0], fds, st, ctx)
            return
        feed = fds.get(0, UNKNOWN)
        self.stdin_code(base, feed, bash_like, ctx)

    def stdin_code(self, base: str, feed: Feed, bash_like: bool, ctx: _Ctx) -> None:
        """A shell reading its code from standard input."""
        if feed is INHERIT and ctx.top:
            return  # the tool's own input: not part of the command
        if feed is SHARED:
            return  # the rest of the code being read (a reader: checked by the caller)
        if isinstance(feed, str):
            if not feed.strip():
                return
            if not bash_like:
                self.refuse(ctx, f"{base!r} code is not read (only bash's)")
            inner = ctx.inner(bash=base == "bash")
            inner.fed = feed
            self.code(feed, State({0: SHARED}), inner)
            return
        where = "a file" if isinstance(feed, _File) else "a stream computed when it runs"
        self.refuse(ctx, f"{base!r} reads shell code from its standard input, {where}")

    def script_file(self, base: str, f: Field, fds: dict[int, Feed], st: State, ctx: _Ctx) -> None:
        """A script operand (or ``--rcfile``): a file is the script's business, a stream
        (``/dev/stdin``, ``/dev/fd/N``, a process substitution) is code to read."""
        feed = self.path_feed(f, fds)
        if feed is None and f.value is not None:
            feed = self.written_file(f.value, ctx, f"{base!r} runs")
        if feed is None:
            return  # a script file: what no list sees (documented)
        if isinstance(feed, str):
            if base in programs.SHELLS and base not in programs.BASH_LIKE:
                self.refuse(ctx, f"{base!r} code is not read (only bash's)")
            self.code(
                feed,
                State({0: fds.get(0, UNKNOWN)}),
                ctx.inner(bash=base in ("bash", "source", ".")),
            )
            return
        self.refuse(ctx, f"{base!r} reads shell code from {f.source!r}, computed when it runs")

    def program_file(self, text: str, ctx: _Ctx) -> None:
        """A file the command wrote, run as a program: a script for the interpreter its
        first line names (bash's own code without one)."""
        first = text.split("\n", 1)[0]
        if first.startswith("#!"):
            words = first[2:].split()
            interpreter = programs.program_of(words[0]) if words else ""
            if interpreter == "env" and len(words) > 1:
                interpreter = words[1]
            if interpreter not in programs.BASH_LIKE:
                self.lax(text, ctx)
                return
        self.code(text, State({0: UNKNOWN}), ctx.inner(bash=True))

    def path_feed(self, f: Field, fds: dict[int, Feed]) -> Feed | None:
        """What reading the file ``f`` names gives: None for a regular file."""
        if f.feed is not None:
            return f.feed
        if not f.known or f.value is None:
            return UNKNOWN
        path = f.value
        if path in ("/dev/stdin", "-"):
            return fds.get(0, UNKNOWN)
        m = _FD_PATH.fullmatch(path)
        if m is not None:
            return fds.get(int(m[1]), UNKNOWN)
        if path.startswith(_STREAM_PREFIXES):
            return UNKNOWN
        return None

    def eval_(self, args: list[Field], index: int, st: State, ctx: _Ctx) -> None:
        if args and args[0].value == "--":
            args = args[1:]
        for f in args:
            if not f.known:
                self.refuse(ctx, f"'eval' runs {f.source!r}, computed when it runs")
                return
        text = " ".join([f.value or "" for f in args])
        if text.strip():
            self.code(text, st, ctx.inner())  # (`code_of` joins it when not first)

    def source(self, args: list[Field], fds: dict[int, Feed], st: State, ctx: _Ctx) -> None:
        if args and args[0].value == "--":
            args = args[1:]
        if not args:
            return
        feed = self.path_feed(args[0], fds)
        if feed is None and args[0].value is not None:
            feed = self.written_file(args[0].value, ctx, "'source' reads")
        if feed is None:
            st.volatile = True  # a script: it may set anything, define any function
            return
        if isinstance(feed, str):
            self.code(feed, st, ctx.inner(bash=True))
            return
        self.refuse(ctx, f"'source' reads {args[0].source!r}, computed when it runs")

    def trap(self, args: list[Field], st: State, ctx: _Ctx) -> None:
        if args and args[0].value in ("-l", "-p", "-lp", "-pl"):
            return
        if args and args[0].value == "--":
            args = args[1:]
        if len(args) < 2:
            return
        action = args[0]
        if not action.known or action.value is None:
            self.refuse(ctx, f"'trap' runs {action.source!r}, computed when it runs")
            return
        if action.value in ("-", ""):
            return
        self.code(action.value, State({0: UNKNOWN}), ctx.inner())
        st.volatile = True  # the trap may run at any time

    def code_options(self, base: str, args: list[Field], st: State, ctx: _Ctx) -> None:
        """``su -c``, ``runuser -c``, ``flock -c``, ``script -c``: the string is code."""
        k = 0
        while k < len(args):
            value = args[k].value or ""
            code: Field | None = None
            if value in ("-c", "--command"):
                code = args[k + 1] if k + 1 < len(args) else None
                k += 1
            elif value.startswith("--command="):
                code = Field(value.split("=", 1)[1], value)
            elif value.startswith("-") and not value.startswith("--") and "c" in value[1:]:
                at = value.index("c", 1)
                if at == len(value) - 1:
                    code = args[k + 1] if k + 1 < len(args) else None
                    k += 1
                else:
                    code = Field(value[at + 1 :], value)
            if code is not None:
                if not code.known or code.value is None:
                    self.refuse(ctx, f"{base!r} runs {code.source!r}, computed when it runs")
                    return
                self.code(code.value, State({0: UNKNOWN}), ctx.inner(bash=False))
            k += 1

    def joined(self, base: str, args: list[Field], ctx: _Ctx) -> None:
        """A program that joins its arguments into one command line for a shell."""
        for f in args:
            if not f.known:
                self.refuse(ctx, f"{base!r} runs {f.source!r}, computed when it runs")
                return
        text = " ".join([f.value or "" for f in args])
        if text.strip():
            self.code(text, State({0: UNKNOWN}), ctx.inner(bash=False))

    # -- files the command line writes, then runs -------------------------------------------

    def writes(
        self,
        redirs: list[syntax.Redir],
        fields: list[Field],
        out: Feed,
        fds: dict[int, Feed],
        st: State,
        ctx: _Ctx,
    ) -> None:
        """Note the files a command writes: output redirections (with the producer's output
        when it is literal), ``tee``'s files, and the operands of ``cp``/``mv``/``ln``/
        ``install`` (what they hold is not known)."""
        for r in redirs:
            if r.op not in (">", ">>", ">|", "&>", "&>>", "<>") or r.target is None:
                continue
            fd = r.fd if r.fd is not None else (0 if r.op == "<>" else 1)
            target = self.single(r.target, st, ctx)
            content: Feed = out if fd == 1 and r.op != "<>" else UNKNOWN
            self.wrote(target, content, append=r.op in (">>", "&>>"))
        if not fields or not fields[0].known:
            return
        name = fields[0].value
        if name == "tee":
            feed = fds.get(0, UNKNOWN)
            append = any(f.value in ("-a", "--append") for f in fields[1:])
            for f in fields[1:]:
                if f.value is None or not f.value.startswith("-"):
                    self.wrote(f, feed, append=append)
        elif name in ("cp", "mv", "ln", "install", "rsync", "dd"):
            for f in fields[1:]:
                if f.value is None or not f.value.startswith("-"):
                    value = f.value or ""
                    if name == "dd" and not value.startswith("of="):
                        continue
                    self.wrote(
                        Field(value[3:], f.source) if name == "dd" else f, UNKNOWN, append=False
                    )

    def wrote(self, target: Field, content: Feed, *, append: bool) -> None:
        if not target.known or target.value is None:
            self.blind = True
            return
        path = target.value
        if path in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty") or _FD_PATH.fullmatch(
            path
        ):
            return
        name = programs.program_of(path.rstrip("/")) or path
        old = self.files.get(name)
        if name in self.files and old != content:
            content = (
                UNKNOWN
                if not append or not isinstance(old, str) or not isinstance(content, str)
                else old + content
            )
        elif append:
            content = UNKNOWN
        self.files[name] = content

    def written_file(self, path: str, ctx: _Ctx, how: str) -> str | None:
        """What running the file ``path`` runs when the command line wrote it (its literal
        text), None when it did not; denied when what it holds is not known."""
        name = programs.program_of(path.rstrip("/"))
        if name in self.files:
            content = self.files[name]
            if isinstance(content, str):
                return content
            self.refuse(
                ctx, f"{how} {path!r}, a file this command writes with text computed when it runs"
            )
        if self.blind:
            self.refuse(
                ctx,
                f"{how} {path!r}, which may be a file this command writes (to a name "
                "computed when it runs)",
            )
        return None

    # -- what a command writes ---------------------------------------------------------------

    def output(self, fields: list[Field], fds: dict[int, Feed], st: State, ctx: _Ctx) -> Feed:
        """What a producer writes to its standard output (`UNKNOWN` unless computed)."""
        name = fields[0].value
        if name not in ("echo", "printf", "cat") or name in st.funcs or not ctx.bash:
            return UNKNOWN
        values = [f.value if f.known else None for f in fields[1:]]
        if any(v is None for v in values):
            return UNKNOWN
        args: list[str] = values  # type: ignore[assignment]
        text: str | None
        if name == "echo":
            text = echo_output(args)
        elif name == "printf":
            text = printf_output(args)
        else:
            feed = fds.get(0, UNKNOWN)
            if args or not isinstance(feed, str):
                return UNKNOWN
            text = feed
        return UNKNOWN if text is None else text

    # -- effects of builtins -----------------------------------------------------------------

    def effects(
        self,
        fields: list[Field],
        declared: set[int],
        st: State,
        ctx: _Ctx,
        fds: dict[int, Feed],
    ) -> None:
        """What a builtin changes in the shell (variables, descriptors, options)."""
        name = fields[0].value
        start = 0
        while name in ("command", "builtin") and start + 1 < len(fields):
            start += 1
            name = fields[start].value
            if name is not None and name.startswith("-"):
                return
        if name is None:
            return
        if name in st.funcs:
            st.forget()  # a function may set any variable
            return
        args = fields[start + 1 :]
        if name in ("declare", "typeset", "local", "export", "readonly"):
            self.declaration(name, [f for f in args if id(f) not in declared], st, ctx)
        elif name in ("read", "mapfile", "readarray", "getopts", "wait"):
            self.reading(name, args, st, ctx)
        elif name == "printf":
            self.printf_v(args, st, ctx)
        elif name == "unset":
            for f in args:
                if f.value is not None and f.value.startswith("-"):
                    continue
                self.name_operand(f, ctx, "unset")
                if f.value is not None:
                    st.set(f.value.split("[", 1)[0], None)
        elif name == "let":
            for f in args:
                if not f.known or f.value is None:
                    self.refuse(ctx, f"'let' evaluates {f.source!r}, computed when it runs")
                    continue
                for assigned in self.arith_text(f.value, st, ctx):
                    st.set(assigned, NUMBER)
        elif name == "exec" and len(fields) == start + 1:
            st.fds = fds
        elif name == "set":
            self.set_options(args, st, ctx)
        elif name == "shopt":
            self.shopt(args, ctx)
        elif name == "alias":
            if any(f.value is None or "=" in f.value for f in args):
                self.refuse(ctx, "'alias' defines words that change what later text means")
        elif name == "enable":
            if any(f.value not in ("-p", "-a", "-s") for f in args):
                self.refuse(ctx, "'enable' turns builtins on and off (or loads them from files)")
        elif name == "hash":
            if any(f.value is None or (f.value.startswith("-") and "p" in f.value) for f in args):
                self.refuse(ctx, "'hash -p' makes a name run another program")
        elif name in ("fc", "bind", "complete", "compgen"):
            self.refuse(ctx, f"{name!r} may run commands this scan does not see")
        elif name in ("test", "["):
            for k, f in enumerate(args[:-1]):
                if f.value == "-v":
                    self.name_operand(args[k + 1], ctx, "test -v")
        elif name == "cd" or name == "pushd" or name == "popd":
            return

    def declaration(self, name: str, args: list[Field], st: State, ctx: _Ctx) -> None:
        """The arguments of a declaration builtin that were not written as assignments:
        options, names, and text the builtin itself reads as ``NAME=value``."""
        for f in args:
            value = f.value
            if not f.known or value is None:
                self.refuse(ctx, f"{name!r} takes {f.source!r}, computed when it runs")
                continue
            if value[:1] in ("-", "+") and len(value) > 1:
                for letter, why in _DECLARE_BAD.items():
                    if letter in value[1:]:
                        self.refuse(ctx, f"'{name} {value}' sets {why} attribute")
                continue
            m = _ASSIGNABLE.fullmatch(value)
            if m is not None:
                self.index_operand(m[2], st, ctx)
                self.assigned(m[1], m[4] if not m[2] and m[3] == "=" else None, st, ctx, value)
                continue
            self.name_operand(f, ctx, name)
            if any(g.value and g.value[:1] == "-" and "A" in g.value for g in args):
                st.assoc.add(value)

    def reading(self, name: str, args: list[Field], st: State, ctx: _Ctx) -> None:
        """``read``/``mapfile``/``getopts``/``wait -p``: the names it sets become unknown."""
        with_argument = {"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc"}
        names: list[Field] = []
        if name == "getopts":
            names = args[1:2]
        elif name == "wait":
            for k, f in enumerate(args[:-1]):
                if f.value == "-p":
                    names = [args[k + 1]]
        else:
            takes = with_argument[name]
            k = 0
            while k < len(args):
                f = args[k]
                value = f.value
                if value is not None and value.startswith("-") and len(value) > 1:
                    if value == "--":
                        names.extend(args[k + 1 :])
                        break
                    if name != "read" and "C" in value:
                        self.refuse(ctx, f"'{name} -C' runs a callback")
                    letters = value[1:]
                    at = next((n for n, c in enumerate(letters) if c in takes), None)
                    if at is None:
                        k += 1
                        continue
                    attached = letters[at + 1 :]
                    if letters[at] == "a":
                        names.append(
                            Field(attached, value)
                            if attached
                            else args[k + 1]
                            if k + 1 < len(args)
                            else Field("", "")
                        )
                    k += 1 if attached else 2
                    continue
                names.append(f)
                k += 1
            if name != "read" and not names:
                names = [Field("MAPFILE", "MAPFILE")]
        for f in names:
            self.name_operand(f, ctx, name)
            if f.value is not None:
                self.assigned(f.value.split("[", 1)[0], None, st, ctx, f"{name} {f.source}")

    def printf_v(self, args: list[Field], st: State, ctx: _Ctx) -> None:
        if len(args) >= 2 and args[0].value == "-v":
            target = args[1]
            self.name_operand(target, ctx, "printf -v")
            values = [f.value if f.known else None for f in args[2:]]
            text: str | None = None
            if values and all(v is not None for v in values):
                text = printf_output(["--", *values])  # type: ignore[list-item]
            if target.value is not None:
                name = target.value.split("[", 1)[0]
                value = text if "[" not in target.value else None
                self.assigned(name, value, st, ctx, f"printf -v {target.source}")

    def set_options(self, args: list[Field], st: State, ctx: _Ctx) -> None:
        k = 0
        while k < len(args):
            f = args[k]
            value = f.value
            if not f.known or value is None:
                self.refuse(ctx, f"'set' takes {f.source!r}, computed when it runs")
                return
            if value in ("--", "-"):
                return  # positional parameters: always unknown
            if value[:1] in ("-", "+") and len(value) > 1:
                letters = value[1:]
                if "o" in letters:
                    option = args[k + 1].value if k + 1 < len(args) else None
                    if option is not None and option not in programs.SAFE_SET_OPTIONS:
                        self.refuse(ctx, f"'set -o {option}' changes how bash reads or runs code")
                    k += 2
                    continue
                bad = set(letters) - programs.SAFE_SET_LETTERS
                if bad:
                    self.refuse(ctx, f"'set {value}' changes how bash reads or runs code")
                k += 1
                continue
            return  # positional parameters
        del st

    def shopt(self, args: list[Field], ctx: _Ctx) -> None:
        setting = False
        set_o = False
        for f in args:
            value = f.value
            if not f.known or value is None:
                self.refuse(ctx, f"'shopt' takes {f.source!r}, computed when it runs")
                return
            if value.startswith("-"):
                setting = setting or "s" in value or "u" in value
                set_o = set_o or "o" in value
                continue
            if not setting:
                continue
            safe = programs.SAFE_SET_OPTIONS if set_o else programs.SAFE_SHOPT
            if value not in safe:
                self.refuse(ctx, f"'shopt {value}' changes how bash reads or runs code")

    # -- assignments -------------------------------------------------------------------------

    def assignment(self, assign: syntax.Assign, st: State, ctx: _Ctx, *, temporary: bool) -> None:
        """``NAME=value`` before a command (``temporary``: for that command only) or alone."""
        assoc = assign.name in st.assoc
        if assign.index is not None:
            for name in self.subscript(assign.index, assoc, st, ctx):
                st.set(name, NUMBER)
        if assign.items is not None:
            for index, item in assign.items:
                if index is not None:
                    self.subscript(index, assoc, st, ctx)
                field = self.single(item, st, ctx)
                self.variable(assign.name, field.value if field.known else None, ctx, assign.source)
            if not temporary:
                self.store(assign.name, None, st)
            return
        if assign.value is not None:
            field = self.single(assign.value, st, ctx, assignment=True)
        else:
            field = Field("", "")
        value: Value = field.value if field.known else (NUMBER if field.number else None)
        if assign.append or assign.index is not None:
            old = st.get(assign.name)
            if assign.index is None and isinstance(old, str) and isinstance(value, str):
                value = old + value
            else:
                value = None
        self.variable(assign.name, value, ctx, assign.source)
        if not temporary:
            self.store(assign.name, value, st)

    def declared(self, assign: syntax.Assign, st: State, ctx: _Ctx) -> Field:
        """A declaration builtin's argument written as an assignment: assigned here."""
        self.assignment(assign, st, ctx, temporary=False)
        value = st.get(assign.name)
        if isinstance(value, str) and assign.items is None and assign.index is None:
            return Field(f"{assign.name}={value}", assign.source)
        return Field(None, assign.source)

    def assigned(self, name: str, value: Value, st: State, ctx: _Ctx, source: str) -> None:
        """``name`` gets ``value`` (checked, then stored)."""
        self.variable(name, value, ctx, source)
        self.store(name, value, st)

    def store(self, name: str, value: Value, st: State) -> None:
        if name == "IFS":
            st.ifs = value == " \t\n"
        st.set(name, value)

    def variable(self, name: str, value: Value, ctx: _Ctx, source: str) -> None:
        """Check a value given to ``name`` (in any way) against the variables bash, or the
        programs it runs, evaluate."""
        if name == "PATH":
            self.path_set = True
        if name in programs.FORBIDDEN_VARS or name.startswith("BASH_FUNC_"):
            self.refuse(ctx, f"{source!r} sets {name}, which makes bash read or run code elsewhere")
        if name in programs.CODE_VARS or name in programs.COMMAND_VARS:
            if not isinstance(value, str):
                if value is NUMBER:
                    return
                self.refuse(
                    ctx, f"{source!r} sets {name}, which is run as a command, to a computed value"
                )
                return
            if value.strip():
                self.code(value, State({0: UNKNOWN}), ctx.inner(bash=name in programs.CODE_VARS))
        elif name in programs.PROMPT_VARS:
            if not isinstance(value, str):
                if value is NUMBER:
                    return
                self.refuse(ctx, f"{source!r} sets {name}, which bash expands, to a computed value")
                return
            self.prompt(value, ctx)

    def prompt(self, text: str, ctx: _Ctx) -> None:
        """Text bash expands as a prompt (``PS4``, ``${x@P}``): its substitutions run."""
        if _PROMPT_ESCAPE.search(text):
            self.refuse(ctx, f"a prompt with escapes that may write code: {text!r}")
        if "$" not in text and "`" not in text:
            return
        try:
            word = syntax._Reader(text, self.steps, ctx.depth).heredoc_word()
        except syntax.UnparsableError as exc:
            self.refuse(ctx, f"a prompt that cannot be read: {exc}")
            return
        self.expand(word, State({0: UNKNOWN}), ctx.inner(), split=False)

    # -- words -------------------------------------------------------------------------------

    def single(self, word: syntax.Word, st: State, ctx: _Ctx, *, assignment: bool = False) -> Field:
        """A word bash does not split or glob (an assignment value, a here-string, a
        ``[[ ]]`` operand, a redirection target)."""
        fields = self.expand(word, st, ctx, split=False)
        return fields[0] if fields else Field("", word.source)

    def expand(self, word: syntax.Word, st: State, ctx: _Ctx, split: bool = True) -> list[Field]:
        """The fields of ``word`` (see `Field`); every expansion inside is scanned."""
        parts = word.parts
        if not parts:
            return [Field("", word.source)] if not split else []
        if len(parts) == 1:
            part = parts[0]
            if isinstance(part, syntax.Lit):
                text = part.text
                if part.quoted:
                    return [Field(text, word.source)]
                if not split:
                    return [Field(text, word.source)]
                if not text:
                    return []
                if "{" not in text and not _GLOB_CHARS.search(text):
                    return [Field(text, word.source)]
        variants: list[list[syntax.Part]] = [parts]
        if split and any(
            isinstance(p, syntax.Lit) and not p.quoted and "{" in p.text for p in parts
        ):
            expanded = _braces(parts)
            if expanded is None:
                for part in parts:
                    self.part(part, st, ctx)
                return [Field(None, word.source, many=True)]
            variants = expanded
        out: list[Field] = []
        code = "".join([p.text if isinstance(p, syntax.Lit) else _part_source(p) for p in parts])
        for variant in variants:
            out.extend(self.fields(variant, st, ctx, split, word.source, code))
        return out

    def fields(
        self,
        parts: list[syntax.Part],
        st: State,
        ctx: _Ctx,
        split: bool,
        source: str,
        code: str,
    ) -> list[Field]:
        # segments: (text or None, unquoted expansion (split), may glob, quoted, number, feed)
        segments: list[tuple[str | None, bool, bool, bool, bool]] = []
        feed: Feed | None = None
        many = False
        for part in parts:
            if isinstance(part, syntax.Lit):
                segments.append((part.text, False, not part.quoted, part.quoted, False))
                continue
            value, multi, number, part_feed = self.part(part, st, ctx)
            if part_feed is not None:
                feed = part_feed
            quoted = _quoted(part)
            if multi:
                many = True
            if value is not None and not quoted and not st.ifs:
                value = None  # split with an IFS that is not known
            segments.append((value, not quoted, not quoted, quoted, number))
        if many or (split and any(s[0] is None and s[1] and not s[4] for s in segments)):
            return [Field(None, source, many=True, code=code)]
        # field splitting of known unquoted expansions
        pieces_list: list[list[tuple[str | None, bool]]] = []
        keep_list: list[bool] = []
        numbers: list[bool] = []
        current: list[tuple[str | None, bool]] = []
        keep = False
        is_number = True

        def emit() -> None:
            nonlocal current, keep, is_number
            if current and (keep or any(p[0] is None or p[0] for p in current)):
                pieces_list.append(current)
                keep_list.append(keep)
                numbers.append(is_number)
            current = []
            keep = False
            is_number = True

        for text, splittable, globbable, quoted, number in segments:
            if quoted:
                keep = True
            if not number and not (text is not None and text.isdigit()):
                is_number = False
            if split and splittable and text is not None:
                if not text:
                    continue
                chunks = _IFS_SPLIT.split(text)
                if chunks[0] == "":
                    emit()
                    chunks = chunks[1:]
                trailing = bool(chunks) and chunks[-1] == ""
                if trailing:
                    chunks = chunks[:-1]
                for n, chunk in enumerate(chunks):
                    if n:
                        emit()
                    current.append((chunk, globbable))
                if trailing:
                    emit()
                continue
            current.append((text, globbable))
        emit()
        out: list[Field] = []
        for pieces, number in zip(pieces_list, numbers, strict=True):
            out.append(_field(pieces, source, code, split, number, feed))
        return out

    def part(
        self, part: syntax.Part, st: State, ctx: _Ctx
    ) -> tuple[str | None, bool, bool, Feed | None]:
        """An expansion: (its value or None, stands for many words, is a number, feed);
        its code and side effects are scanned."""
        if isinstance(part, syntax.Lit):
            return part.text, False, False, None
        if isinstance(part, syntax.Param):
            value, multi = self.param(part, st, ctx)
            if value is NUMBER:
                return None, False, True, None
            return value, multi, isinstance(value, str) and value.isdigit(), None  # type: ignore[return-value]
        if isinstance(part, syntax.CmdSub):
            out = self.substitution(part.body, st, ctx)
            if isinstance(out, str) and ctx.strict:
                return out.rstrip("\n"), False, False, None
            return None, False, False, None
        if isinstance(part, syntax.ArithSub):
            for name in self.arith(part.expr, st, ctx):
                st.set(name, NUMBER)
            return None, False, True, None
        if isinstance(part, syntax.ProcSub):
            inner = st.copy()
            if part.direction == ">":
                inner.fds[0] = UNKNOWN
            sub = self.script_output(part.body, inner, ctx)
            return None, False, False, sub if part.direction == "<" else UNKNOWN
        if isinstance(part, syntax.Opaque):
            for inner_part in part.parts:
                self.part(inner_part, st, ctx)
            return None, False, False, None
        return None, False, False, None  # a tilde

    def substitution(self, body: syntax.Script, st: State, ctx: _Ctx) -> Feed:
        """``$(...)``: scanned (in a subshell); its output when it is a producer's."""
        return self.script_output(body, st.copy(), ctx)

    def script_output(self, body: syntax.Script, st: State, ctx: _Ctx) -> Feed:
        items = body.items
        if len(items) == 1 and not items[0][0].rest and items[0][1] != "&":
            pipeline = items[0][0].first
            if len(pipeline.commands) == 1:
                _, out = self.command(pipeline.commands[0], st, ctx, None)
                return out
        self.script(body, st, ctx)
        return UNKNOWN

    def param(self, p: syntax.Param, st: State, ctx: _Ctx) -> tuple[Value, bool]:
        """A parameter's value (None: unknown) and whether it stands for many words."""
        name = p.name
        index = p.index
        if isinstance(index, syntax.Arith):
            for assigned in self.subscript(index, name in st.assoc, st, ctx):
                st.set(assigned, NUMBER)
        if p.prefix == "#":
            return NUMBER, False
        if p.prefix == "!":
            if p.op in ("*", "@") or index in ("@", "*"):
                return None, True
            target = st.get(name) if name not in "@*#?-$!0123456789" else None
            if not isinstance(target, str) or _NAME_WITH_INDEX.fullmatch(target) is None:
                self.refuse(
                    ctx,
                    f"{p.source!r} names a variable by the value of ${name}, which is not "
                    "known (its subscript would be evaluated)",
                )
                return None, False
            if "[" in target:
                return None, False
            value: Value = st.get(target)
            name = target
        elif name in ("@", "*") or index in ("@", "*"):
            value = None
            multi = name == "@" or index == "@" or not p.quoted
            return self.param_op(p, None, st, ctx, multi)
        elif name in ("#", "?", "$", "!"):
            value = NUMBER
        elif name == "-" or name.isdigit() or index is not None:
            value = None
        else:
            value = st.get(name)
        return self.param_op(p, value, st, ctx, False)

    def param_op(
        self, p: syntax.Param, value: Value, st: State, ctx: _Ctx, multi: bool
    ) -> tuple[Value, bool]:
        op = p.op
        if op is None:
            return value, multi
        word: Field | None = None
        if p.word is not None:
            word = self.single(p.word, st, ctx)
        if p.word2 is not None:
            self.single(p.word2, st, ctx)
        if p.offset is not None:
            self.arith(p.offset, st, ctx)
        if p.length is not None:
            self.arith(p.length, st, ctx)
        text = word.value if word is not None and word.known else None
        if op in (":-", "-", ":=", "=", ":+", "+"):
            if op in (":=", "="):
                if p.name in "@*#?-$!0123456789" or p.index is not None:
                    pass
                elif not (isinstance(value, str) and value):
                    self.assigned(
                        p.name, _join(value, text) if value is not None else None, st, ctx, p.source
                    )
            if multi:
                return None, True
            if op in (":-", "-", ":=", "="):
                if isinstance(value, str) and value:
                    return value, False
                if value == "" and op in (":-", ":="):
                    return text, False
                if value == "":
                    return "", False
                if value is NUMBER:
                    return NUMBER, False
                return None, False
            if isinstance(value, str) and value:
                return text, False
            if value == "" and op == ":+":
                return "", False
            return None, False
        if op in (":?", "?"):
            return value, multi
        if multi:
            return None, True
        if not isinstance(value, str):
            if op == "@P":
                self.refuse(ctx, f"{p.source!r} expands a computed value as a prompt")
            return (NUMBER if value is NUMBER and op in ("@Q",) else None), False
        if op == "@P":
            self.prompt(value, ctx)
            return None, False
        if op in ("^^", "@U"):
            return (
                (value.upper(), False)
                if (text in (None, "") and op == "^^") or op == "@U"
                else (None, False)
            )
        if op in (",,", "@L"):
            return (
                (value.lower(), False)
                if (text in (None, "") and op == ",,") or op == "@L"
                else (None, False)
            )
        if op == "@u" or (op == "^" and text in (None, "")):
            return value[:1].upper() + value[1:], False
        if op == "," and text in (None, ""):
            return value[:1].lower() + value[1:], False
        if op == "~" and text in (None, ""):
            return value[:1].swapcase() + value[1:], False
        if op == "~~" and text in (None, ""):
            return value.swapcase(), False
        if op == "@E":
            return syntax.ansi_c(value), False
        return None, False

    # -- arithmetic ------------------------------------------------------------------------------

    def subscript(self, expr: syntax.Arith, assoc: bool, st: State, ctx: _Ctx) -> set[str]:
        """A subscript: a string for an associative array (its expansions scanned), else
        arithmetic."""
        if not assoc:
            return self.arith(expr, st, ctx)
        for part in expr.parts:
            self.part(part, st, ctx)
        return set()

    def arith(self, expr: syntax.Arith, st: State, ctx: _Ctx) -> set[str]:
        """Check arithmetic text; returns the names it assigns."""
        pieces: list[str] = []
        for part in expr.parts:
            if isinstance(part, syntax.Lit):
                pieces.append(part.text)
                continue
            value, multi, number, _ = self.part(part, st, ctx)
            if number:
                pieces.append("1")
            elif value is not None and not multi:
                pieces.append(value)
            else:
                self.refuse(
                    ctx,
                    f"arithmetic evaluates {_part_source(part)!r}, computed when it runs, as "
                    "an expression (which may run commands)",
                )
                return set()
        return self.arith_text("".join(pieces), st, ctx)

    def arith_text(self, text: str, st: State, ctx: _Ctx) -> set[str]:
        """Arithmetic over ``text`` (after expansion): every variable it reads must hold a
        known number, since bash evaluates a variable's text as an expression too."""
        assigned: set[str] = set()
        tokens = [t for t in _ARITH_TOKEN.findall(text) if not t.isspace()]
        for k, token in enumerate(tokens):
            if not (token[0].isalpha() or token[0] == "_"):
                continue
            after = tokens[k + 1] if k + 1 < len(tokens) else ""
            before = tokens[k - 1] if k else ""
            if after == "[":
                if k + 1 < len(tokens) and _assigns_after_bracket(tokens, k + 1):
                    assigned.add(token)
                    continue
                self.refuse(
                    ctx,
                    f"arithmetic reads the array element {token}[...], whose value is not "
                    "a known number",
                )
                return assigned
            if after == "=" and before not in ("++", "--"):
                assigned.add(token)
                continue
            if token in assigned:
                continue
            if not _numeric(st.get(token)):
                self.refuse(
                    ctx,
                    f"arithmetic reads ${token}, whose value is not a known number (bash "
                    "evaluates it as an expression, which may run commands)",
                )
                return assigned
            if after in (
                "+=",
                "-=",
                "*=",
                "/=",
                "%=",
                "&=",
                "|=",
                "^=",
                "<<=",
                ">>=",
                "++",
                "--",
            ) or before in ("++", "--"):
                assigned.add(token)
        return assigned

    def arith_operand(self, field: Field, st: State, ctx: _Ctx, where: str) -> None:
        if field.number:
            return
        if not field.known or field.value is None:
            self.refuse(
                ctx, f"{where} evaluates {field.source!r}, computed when it runs, as an expression"
            )
            return
        self.arith_text(field.value, st, ctx)

    def name_operand(self, field: Field, ctx: _Ctx, where: str) -> None:
        """A variable name a builtin takes (``unset``, ``read``, ``-v``): a name, with a
        numeric subscript at most (bash evaluates any other subscript)."""
        if field.known and field.value is not None and _NAME_WITH_INDEX.fullmatch(field.value):
            return
        if field.known and field.value is not None and field.value.startswith("-"):
            return
        self.refuse(ctx, f"{where} takes the name {field.source!r}, which is not a plain name")

    def index_operand(self, index: str | None, st: State, ctx: _Ctx) -> None:
        if index and not re.fullmatch(r"\[[0-9]+\]", index):
            self.arith_text(index[1:-1], st, ctx)

    # -- redirections -------------------------------------------------------------------------

    def redirects(
        self, redirs: list[syntax.Redir], st: State, ctx: _Ctx, fds: dict[int, Feed]
    ) -> dict[int, Feed]:
        for r in redirs:
            op = r.op
            if r.fdvar is not None:
                self.assigned(r.fdvar, NUMBER, st, ctx, "{" + r.fdvar + "}")
            fd = r.fd
            if fd is None:
                fd = 0 if op[0] == "<" else 1
            if r.heredoc is not None:
                heredoc = r.heredoc
                if heredoc.quoted or heredoc.word is None:
                    text: Feed = heredoc.body if heredoc.body is not None else UNKNOWN
                else:
                    field = self.single(heredoc.word, st, ctx)
                    text = field.value if field.known and field.value is not None else UNKNOWN
                if r.fdvar is None:
                    fds[fd] = text
                continue
            target = self.single(r.target, st, ctx) if r.target is not None else Field("", "")
            if r.fdvar is not None:
                continue
            if op == "<<<":
                fds[fd] = (
                    target.value + "\n" if target.known and target.value is not None else UNKNOWN
                )
            elif op in ("<", "<>"):
                feed = self.path_feed(target, fds)
                fds[fd] = feed if feed is not None else _File(target.value or "")
            elif op in ("<&", ">&"):
                value = target.value if target.known else None
                if value == "-":
                    fds[fd] = ""
                elif value is not None and value.rstrip("-").isdigit():
                    fds[fd] = fds.get(int(value.rstrip("-")), UNKNOWN) if op == "<&" else UNKNOWN
                else:
                    fds[fd] = UNKNOWN
                    if op == ">&":
                        fds[2] = UNKNOWN
            elif op in ("&>", "&>>"):
                fds[1] = UNKNOWN
                fds[2] = UNKNOWN
            else:
                fds[fd] = UNKNOWN
        return fds

    def reads_stdin(self, st: State, ctx: _Ctx, what: str) -> None:
        if st.fds.get(0) is SHARED and not ctx.last:
            self.refuse(ctx, f"{what!r} reads the code a shell is reading")


# ======================================================================================
# Helpers

_LAX_WORD: Final = re.compile(r"[^\s'\"`;&|(){}\[\]<>,!=+]+")
_LAX_QUOTES: Final = re.compile(r"['\"\\]")
_PROMPT_ESCAPE: Final = re.compile(r"\\[0-7$`xuU]")


def _written(node: syntax.Simple, per_word: list[list[Field]]) -> list[str]:
    """The command as written, after quote removal, in source order (assignments,
    redirections as operator and target, words: a word that became several fields as
    them, one that became none as nothing)."""
    out: list[str] = []
    assigns = iter(node.assigns)
    redirs = iter(node.redirs)
    words = iter(per_word)
    for kind in node.order:
        if kind == "a":
            assign = next(assigns)
            out.append(assign.name + ("+=" if assign.append else "=") + _shown_value(assign))
        elif kind == "r":
            redir = next(redirs)
            out.append((str(redir.fd) if redir.fd is not None else "") + redir.op)
            if redir.target is not None:
                target = _literal_text(redir.target)
                out.append(target if target is not None else redir.target.source)
        else:
            out.extend([f.shown for f in next(words)])
    return out


def _heredoc_lines(script: syntax.Script) -> dict[str, int]:
    """The lines of every here-document body in ``script`` (substitutions included), by
    their text without surrounding blanks, with counts."""
    out: dict[str, int] = {}
    stack: list[object] = [script]
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend(node)
            continue
        if isinstance(node, syntax.HereDoc):
            for line in (node.body or "").splitlines():
                key = line.strip()
                out[key] = out.get(key, 0) + 1
            continue
        slots = getattr(type(node), "__slots__", None)
        if slots is None or isinstance(node, str):
            continue
        stack.extend(getattr(node, slot, None) for slot in slots)
    return out


def _constant(words: list[str]) -> Callable[[], list[str]]:
    return lambda: list(words)


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


def _xargs_words(feed: Feed, delimiter: str | None) -> list[str] | None:
    """The words xargs reads from ``feed`` (None when the input is not literal)."""
    if not isinstance(feed, str):
        return None
    if delimiter is not None:
        if delimiter == "\\0":
            delimiter = "\0"
        if len(delimiter) != 1:
            return None
        return [w for w in feed.split(delimiter) if w]
    words: list[str] = []
    current: list[str] = []
    has = False
    quote = ""
    i = 0
    while i < len(feed):
        c = feed[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\n":
                return None  # xargs refuses an unmatched quote
            else:
                current.append(c)
        elif c in "'\"":
            quote = c
            has = True
        elif c == "\\" and i + 1 < len(feed):
            current.append(feed[i + 1])
            has = True
            i += 1
        elif c in " \t\n":
            if has or current:
                words.append("".join(current))
            current = []
            has = False
        else:
            current.append(c)
            has = True
        i += 1
    if quote:
        return None
    if has or current:
        words.append("".join(current))
    return words


def _redirected(node: syntax.Simple, fd: int) -> bool:
    for r in node.redirs:
        target = r.fd if r.fd is not None else (0 if r.op[0] == "<" else 1)
        if target == fd:
            return True
    return False


def _quoted(part: syntax.Part) -> bool:
    if isinstance(part, (syntax.Param, syntax.CmdSub, syntax.ArithSub)):
        return part.quoted
    return isinstance(part, (syntax.Tilde, syntax.ProcSub, syntax.Opaque))


def _part_source(part: syntax.Part) -> str:
    if isinstance(part, syntax.Lit):
        return part.text
    if isinstance(part, syntax.Tilde):
        return part.text
    return part.source


def _literal_text(word: syntax.Word) -> str | None:
    if all(isinstance(p, syntax.Lit) for p in word.parts):
        return "".join([p.text for p in word.parts])  # type: ignore[union-attr]
    return None


def _shown_value(assign: syntax.Assign) -> str:
    if assign.value is None:
        return "(" + " ".join([w.source for _, w in assign.items or []]) + ")"
    text = _literal_text(assign.value)
    return text if text is not None else assign.value.source


def _field(
    pieces: list[tuple[str | None, bool]],
    source: str,
    code: str,
    split: bool,
    number: bool,
    feed: Feed | None,
) -> Field:
    known = all(p[0] is not None for p in pieces)
    glob: str | None = None
    if split and any(g and t is not None and _GLOB_CHARS.search(t) for t, g in pieces):
        glob = "".join(["*" if t is None else (t if g else _escape_glob(t)) for t, g in pieces])
    if known:
        value = "".join([p[0] for p in pieces])  # type: ignore[misc]
        if glob is not None and not _GLOB_CHARS.search(glob):
            glob = None
        return Field(
            value, source, glob=glob, number=number and value.isdigit(), code=code, feed=feed
        )
    base: str | None = None
    last_unknown = max(k for k, p in enumerate(pieces) if p[0] is None)
    tail = "".join([p[0] or "" for p in pieces[last_unknown + 1 :]])
    if "/" in tail:
        base = tail.rsplit("/", 1)[1]
    return Field(None, source, glob=glob, base=base, number=number, code=code, feed=feed)


def _escape_glob(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def _assigns_after_bracket(tokens: list[str], start: int) -> bool:
    depth = 0
    for k in range(start, len(tokens)):
        token = tokens[k]
        if token == "[":
            depth += 1
        elif token == "]":
            depth -= 1
            if depth == 0:
                return k + 1 < len(tokens) and tokens[k + 1] == "="
    return False


def _env_split(text: str) -> list[str | None] | None:
    """GNU ``env -S``: split ``text`` into arguments (None for one that holds ``${VAR}``)."""
    out: list[str | None] = []
    current: list[str] = []
    has = False
    unknown = False
    i = 0
    n = len(text)
    escapes = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "#": "#", "$": "$",
               '"': '"', "'": "'", "\\": "\\", "_": " "}  # fmt: skip

    def end() -> None:
        nonlocal current, has, unknown
        if has:
            out.append(None if unknown else "".join(current))
        current = []
        has = False
        unknown = False

    while i < n:
        c = text[i]
        if c in " \t\n\v\f\r":
            end()
            i += 1
        elif c == "#" and not has:
            break
        elif c == "'":
            close = text.find("'", i + 1)
            if close < 0:
                return None
            current.append(text[i + 1 : close].replace("\\'", "'").replace("\\\\", "\\"))
            has = True
            i = close + 1
        elif c == '"':
            i += 1
            has = True
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n:
                    d = text[i + 1]
                    if d == "c":
                        end()
                        return out
                    if d not in escapes or d == "_":
                        if d == "_":
                            current.append(" ")
                            i += 2
                            continue
                        return None
                    current.append(escapes[d])
                    i += 2
                elif text[i] == "$":
                    if not text.startswith("${", i):
                        return None
                    close = text.find("}", i)
                    if close < 0:
                        return None
                    unknown = True
                    i = close + 1
                else:
                    current.append(text[i])
                    i += 1
            if i >= n:
                return None
            i += 1
        elif c == "\\" and i + 1 < n:
            d = text[i + 1]
            if d == "c":
                end()
                return out
            if d == "_":
                end()
                i += 2
                continue
            if d not in escapes:
                return None
            current.append(escapes[d])
            has = True
            i += 2
        elif c == "$":
            if not text.startswith("${", i):
                return None
            close = text.find("}", i)
            if close < 0:
                return None
            unknown = True
            has = True
            i = close + 1
        else:
            current.append(c)
            has = True
            i += 1
    end()
    return out


def _braces(parts: list[syntax.Part]) -> list[list[syntax.Part]] | None:
    """Brace expansion of a word's parts, exactly as bash does it; None when it makes more
    than `_BRACE_LIMIT` words or takes a form this function does not compute."""
    atoms: list[str | syntax.Part] = []
    for part in parts:
        if isinstance(part, syntax.Lit) and not part.quoted:
            atoms.extend(part.text)
        else:
            atoms.append(part)
    try:
        expanded = _brace_atoms(atoms)
    except _TooManyError:
        return None
    out: list[list[syntax.Part]] = []
    for variant in expanded:
        new: list[syntax.Part] = []
        for atom in variant:
            if isinstance(atom, str):
                syntax._add_lit(new, atom, False)
            else:
                new.append(atom)
        out.append(new)
    return out


class _TooManyError(Exception):
    pass


def _brace_atoms(atoms: list[str | syntax.Part]) -> list[list[str | syntax.Part]]:
    i = 0
    n = len(atoms)
    while True:
        start = -1
        for k in range(i, n):
            if atoms[k] == "{" and not (k > 0 and atoms[k - 1] == "$"):
                start = k
                break
        if start < 0:
            return [atoms]
        depth = 0
        commas: list[int] = []
        end = -1
        for k in range(start, n):
            atom = atoms[k]
            if atom == "{" and not (k > 0 and atoms[k - 1] == "$"):
                depth += 1
            elif atom == "}":
                depth -= 1
                if depth == 0:
                    end = k
                    break
            elif atom == "," and depth == 1:
                commas.append(k)
        if end < 0:
            i = start + 1
            continue
        pre = atoms[:start]
        post = _brace_atoms(atoms[end + 1 :])
        if commas:
            bounds = [start, *commas, end]
            alternatives: list[list[str | syntax.Part]] = []
            for a, b in itertools.pairwise(bounds):
                alternatives.extend(_brace_atoms(atoms[a + 1 : b]))
                if len(alternatives) > _BRACE_LIMIT:
                    raise _TooManyError
            out = [pre + alt + tail for alt in alternatives for tail in post]
            if len(out) > _BRACE_LIMIT:
                raise _TooManyError
            return out
        inner = atoms[start + 1 : end]
        if all(isinstance(a, str) for a in inner):
            items = _sequence("".join(inner))  # type: ignore[arg-type]
            if items is not None:
                out = [pre + list(item) + tail for item in items for tail in post]
                if len(out) > _BRACE_LIMIT:
                    raise _TooManyError
                return out
        i = start + 1


def _sequence(text: str) -> list[str] | None:
    m = _SEQUENCE.fullmatch(text)
    if m is None:
        return None
    first, last, step_text = m[1], m[2], m[3]
    step = abs(int(step_text)) if step_text else 1
    if step == 0:
        step = 1
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        a, b = int(first), int(last)
        count = abs(b - a) // step + 1
        if count > _BRACE_LIMIT:
            raise _TooManyError
        width = 0
        if (first.lstrip("-").startswith("0") and len(first.lstrip("-")) > 1) or (
            last.lstrip("-").startswith("0") and len(last.lstrip("-")) > 1
        ):
            width = max(len(first), len(last))
        values = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        out = []
        for v in values:
            text_v = str(abs(v)).rjust(width - (1 if v < 0 else 0), "0") if width else str(abs(v))
            out.append(("-" if v < 0 else "") + text_v)
        return out
    if len(first) == 1 and len(last) == 1 and first.isalpha() and last.isalpha():
        a, b = ord(first), ord(last)
        values = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [chr(v) for v in values]
    return None


def glob_matches(pattern: str, name: str) -> bool:
    """Might the pathname ``pattern`` match ``name`` (case-insensitively, as under
    ``nocaseglob``)?"""
    return fnmatch.fnmatch(name.lower(), pattern.lower())
