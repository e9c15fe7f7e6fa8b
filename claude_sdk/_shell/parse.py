"""Bash command text to a syntax tree, read by bash's own rules, or refused.

`parse` reads one command string the way bash 5 reads it (in its default, non-POSIX mode,
with ``extglob`` off) and returns a `Script`: lists, pipelines, simple commands, compound
commands, function definitions, words made of literal text and expansions, redirections and
here-documents. It is a hand-written recursive-descent reader of bash's grammar (no parser
library), so what it accepts is exactly what this module implements.

Invariants:

* **Read as bash reads, or refuse.** Quoting, escapes, line continuations (a backslash and a
  newline vanish wherever bash removes them: in words, between tokens, inside operators;
  not inside single quotes, ``$'...'``, comments or quoted here-documents), reserved words
  (only where bash recognises them), here-document bodies (read after the line that names
  them, in order), ``$(...)`` read in place, backquotes unescaped and read again. Anything
  this reader is not sure bash reads the same way (an unterminated construct, an unbalanced
  subscript with blanks, ``coproc``, a here-document that ends at the end of input, an
  extended glob) raises `UnparsableError`: a policy denies what it cannot read.
* **Bounded.** Substitutions nest at most `MAX_DEPTH` deep, compound commands at most
  `MAX_NEST`; the reader's steps are counted against the decision's `Steps` budget (a
  count, not a clock: the same text gets the same answer on an idle machine and a busy
  one). No recursion depth depends on the input beyond those limits.
* **No meaning here.** The tree says what is written; what it runs and with which words is
  `claude_sdk._shell.interp`'s business.
"""

from __future__ import annotations

import math
import re
from typing import Final, TypeAlias

__all__ = [
    "MAX_DEPTH",
    "MAX_NEST",
    "TOO_COMPLEX",
    "AndOr",
    "Arith",
    "ArithCmd",
    "ArithFor",
    "ArithSub",
    "Assign",
    "Case",
    "CmdSub",
    "Command",
    "Cond",
    "CondNode",
    "For",
    "FuncDef",
    "Group",
    "HereDoc",
    "If",
    "Lit",
    "Loop",
    "Opaque",
    "Param",
    "Part",
    "Pipeline",
    "ProcSub",
    "Redir",
    "Script",
    "Simple",
    "Steps",
    "Subshell",
    "Tilde",
    "UnparsableError",
    "Word",
    "load",
    "parse",
]

#: Substitutions and code strings nested deeper than this are refused.
MAX_DEPTH: Final = 16
#: Compound commands (subshells, groups, loops, ...) nested deeper than this are refused.
MAX_NEST: Final = 64
TOO_COMPLEX: Final = "the command is too complex to check"


class Steps:
    """The work one decision may do, counted in steps of the reader and of the scanner
    (each reads a few characters or visits a node), shared by every text read for it.

    Past the budget the command is `TOO_COMPLEX`. A count, not a clock: the same command
    gets the same answer on an idle machine and on a busy one.
    """

    __slots__ = ("left",)

    def __init__(self, left: float = math.inf) -> None:
        self.left = left


class UnparsableError(ValueError):
    """The command cannot be read (the policies deny it); the message says why."""


def load() -> None:
    """Make the first parse as fast as the next (compiles this module's expressions).

    The reader is plain Python: there is nothing else to load. Policies call this when they
    are built, so that no decision pays for it.
    """
    parse("a=1 b; c | d && e <<< f $(g) ${h:-i} $((j))")


# ======================================================================================
# The tree


class Lit:
    """Literal text of a word. ``quoted``: inside quotes or escaped (no splitting, no
    pathname or brace expansion)."""

    __slots__ = ("quoted", "text")

    def __init__(self, text: str, quoted: bool) -> None:
        self.text = text
        self.quoted = quoted

    def __repr__(self) -> str:
        return f"Lit({self.text!r}{', q' if self.quoted else ''})"


class Tilde:
    """An unquoted ``~``, ``~user``, ``~+``, ``~-`` prefix (at a word's start or after ``=``
    or ``:`` in an assignment): a path bash computes."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class Param:
    """A parameter expansion: ``$x``, ``${x}``, ``${x:-word}``, ``${#x}``, ``${!x}``, ...

    Attributes:
        name: the parameter: a name, a digit string, or one of ``@ * # ? - $ ! 0``.
        index: the subscript of ``${name[index]}`` (an `Arith`), ``"@"``/``"*"``, or None.
        prefix: ``"#"`` (length), ``"!"`` (indirection or names), or ``""``.
        op: the operator (``:-``, ``-``, ``:=``, ``=``, ``:?``, ``?``, ``:+``, ``+``, ``#``,
            ``##``, ``%``, ``%%``, ``/``, ``//``, ``/#``, ``/%``, ``^``, ``^^``, ``,``,
            ``,,``, ``~``, ``~~``, ``@X`` (a transformation), ``:`` (substring), ``*``/``@``
            after ``!prefix``), or None.
        word: the operator's word (a `Word`), or None.
        word2: the replacement of ``/`` operators (a `Word`), or None.
        offset, length: the arithmetic of ``${x:offset:length}`` (`Arith`), or None.
        quoted: inside double quotes.
        source: the text as written.
    """

    __slots__ = (
        "index",
        "length",
        "name",
        "offset",
        "op",
        "prefix",
        "quoted",
        "source",
        "word",
        "word2",
    )

    def __init__(self, name: str, quoted: bool, source: str) -> None:
        self.name = name
        self.quoted = quoted
        self.source = source
        self.index: Arith | str | None = None
        self.prefix = ""
        self.op: str | None = None
        self.word: Word | None = None
        self.word2: Word | None = None
        self.offset: Arith | None = None
        self.length: Arith | None = None

    def __repr__(self) -> str:
        return f"Param({self.source!r})"


class CmdSub:
    """``$(...)`` or a backquoted command: its body, read as a script."""

    __slots__ = ("body", "quoted", "source")

    def __init__(self, body: Script, quoted: bool, source: str) -> None:
        self.body = body
        self.quoted = quoted
        self.source = source


class ArithSub:
    """``$((...))`` or ``$[...]``."""

    __slots__ = ("expr", "quoted", "source")

    def __init__(self, expr: Arith, quoted: bool, source: str) -> None:
        self.expr = expr
        self.quoted = quoted
        self.source = source


class ProcSub:
    """``<(...)`` or ``>(...)``: a path (``/dev/fd/N``) to the body's output or input."""

    __slots__ = ("body", "direction", "source")

    def __init__(self, direction: str, body: Script, source: str) -> None:
        self.direction = direction
        self.body = body
        self.source = source


class Opaque:
    """Text whose value this reader does not model but whose expansions bash performs
    (single quotes inside a double-quoted ``${x:-'...'}``): the parts inside are read for
    their expansions; the value is unknown."""

    __slots__ = ("parts", "source")

    def __init__(self, parts: list[Part], source: str) -> None:
        self.parts = parts
        self.source = source


Part: TypeAlias = Lit | Tilde | Param | CmdSub | ArithSub | ProcSub | Opaque


class Word:
    """One word as written: its parts, and its source text.

    ``assign``: for an argument of a declaration builtin (``declare``, ``export``,
    ``local``, ``readonly``, ``typeset``) written as an assignment, the assignment.
    """

    __slots__ = ("assign", "parts", "source")

    def __init__(self, parts: list[Part], source: str, assign: Assign | None = None) -> None:
        self.parts = parts
        self.source = source
        self.assign = assign

    def __repr__(self) -> str:
        return f"Word({self.source!r})"

    @property
    def literal(self) -> str | None:
        """The word's text when it has no expansions and no unquoted special characters
        (a reserved word, a name), else None."""
        parts = self.parts
        if len(parts) == 1:
            part = parts[0]
            if isinstance(part, Lit) and not part.quoted:
                return part.text
        return None


class Arith:
    """Arithmetic text (``$((...))``, ``((...))``, a subscript, a substring offset): its
    parts (unquoted `Lit` text and expansions) and source."""

    __slots__ = ("parts", "source")

    def __init__(self, parts: list[Part], source: str) -> None:
        self.parts = parts
        self.source = source


class HereDoc:
    """A here-document: delimiter, quoting, and its body (raw text; for an unquoted
    delimiter also the body read as a `Word` of double-quote-like parts)."""

    __slots__ = ("body", "delimiter", "quoted", "strip", "word")

    def __init__(self, delimiter: str, quoted: bool, strip: bool) -> None:
        self.delimiter = delimiter
        self.quoted = quoted
        self.strip = strip
        self.body: str | None = None
        self.word: Word | None = None


class Redir:
    """A redirection: ``fd`` (None: the operator's default), ``fdvar`` (``{name}>``),
    ``op`` and the target word (or here-document)."""

    __slots__ = ("fd", "fdvar", "heredoc", "op", "target")

    def __init__(
        self,
        fd: int | None,
        fdvar: str | None,
        op: str,
        target: Word | None,
        heredoc: HereDoc | None = None,
    ) -> None:
        self.fd = fd
        self.fdvar = fdvar
        self.op = op
        self.target = target
        self.heredoc = heredoc


class Assign:
    """``name=value``, ``name+=value``, ``name[index]=value``, ``name=(items)``."""

    __slots__ = ("append", "index", "items", "name", "source", "value")

    def __init__(
        self,
        name: str,
        index: Arith | None,
        append: bool,
        value: Word | None,
        items: list[tuple[Arith | None, Word]] | None,
        source: str,
    ) -> None:
        self.name = name
        self.index = index
        self.append = append
        self.value = value
        self.items = items
        self.source = source


class Simple:
    """A simple command: assignments, words, redirections (each in source order), and
    ``order``: which of them came first (``"a"``, ``"w"``, ``"r"`` per item)."""

    __slots__ = ("assigns", "end", "order", "redirs", "start", "words")

    def __init__(
        self,
        assigns: list[Assign],
        words: list[Word],
        redirs: list[Redir],
        order: str,
        start: int,
        end: int,
    ) -> None:
        self.assigns = assigns
        self.words = words
        self.redirs = redirs
        self.order = order
        self.start = start
        self.end = end


class Script:
    """A list of and-or lists, each with its separator (``;``, ``&``, ``\\n`` or ``""``) and
    the offset just past it in the text it was read from."""

    __slots__ = ("items",)

    def __init__(self, items: list[tuple[AndOr, str, int]]) -> None:
        self.items = items

    @property
    def commands(self) -> list[Simple]:
        """The simple commands written in the script (not inside substitutions)."""
        out: list[Simple] = []
        stack: list[object] = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, Script):
                for and_or, _, _ in reversed(node.items):
                    stack.append(and_or)
            elif isinstance(node, AndOr):
                for _, pipeline in reversed(node.rest):
                    stack.append(pipeline)
                stack.append(node.first)
            elif isinstance(node, Pipeline):
                stack.extend(reversed(node.commands))
            elif isinstance(node, Simple):
                out.append(node)
            elif isinstance(node, FuncDef):
                stack.append(node.body)
            elif isinstance(node, If):
                if node.else_ is not None:
                    stack.append(node.else_)
                for cond, body in reversed(node.clauses):
                    stack.extend((body, cond))
            elif isinstance(node, (Loop,)):
                stack.extend((node.body, node.cond))
            elif isinstance(node, Case):
                stack.extend(body for _, body, _ in reversed(node.items))
            elif isinstance(node, (Subshell, Group, For, ArithFor)):
                stack.append(node.body)
        return out


class AndOr:
    """``a && b || c``: the first pipeline, then (operator, pipeline) pairs."""

    __slots__ = ("first", "rest")

    def __init__(self, first: Pipeline, rest: list[tuple[str, Pipeline]]) -> None:
        self.first = first
        self.rest = rest


class Pipeline:
    """``[time [-p]] [!] a | b |& c``."""

    __slots__ = ("commands", "negated", "pipes", "timed")

    def __init__(
        self, commands: list[Command], pipes: list[str], negated: bool, timed: bool
    ) -> None:
        self.commands = commands
        self.pipes = pipes
        self.negated = negated
        self.timed = timed


class Subshell:
    __slots__ = ("body", "redirs")

    def __init__(self, body: Script) -> None:
        self.body = body
        self.redirs: list[Redir] = []


class Group:
    __slots__ = ("body", "redirs")

    def __init__(self, body: Script) -> None:
        self.body = body
        self.redirs: list[Redir] = []


class If:
    __slots__ = ("clauses", "else_", "redirs")

    def __init__(self, clauses: list[tuple[Script, Script]], else_: Script | None) -> None:
        self.clauses = clauses
        self.else_ = else_
        self.redirs: list[Redir] = []


class Loop:
    """``while`` or ``until``."""

    __slots__ = ("body", "cond", "redirs", "until")

    def __init__(self, cond: Script, body: Script, until: bool) -> None:
        self.cond = cond
        self.body = body
        self.until = until
        self.redirs: list[Redir] = []


class For:
    """``for`` or ``select`` over words (None: ``"$@"``)."""

    __slots__ = ("body", "redirs", "select", "var", "words")

    def __init__(self, var: str, words: list[Word] | None, body: Script, select: bool) -> None:
        self.var = var
        self.words = words
        self.body = body
        self.select = select
        self.redirs: list[Redir] = []


class ArithFor:
    __slots__ = ("body", "cond", "init", "redirs", "step")

    def __init__(self, init: Arith, cond: Arith, step: Arith, body: Script) -> None:
        self.init = init
        self.cond = cond
        self.step = step
        self.body = body
        self.redirs: list[Redir] = []


class Case:
    __slots__ = ("items", "redirs", "word")

    def __init__(self, word: Word, items: list[tuple[list[Word], Script, str]]) -> None:
        self.word = word
        self.items = items
        self.redirs: list[Redir] = []


class ArithCmd:
    __slots__ = ("expr", "redirs")

    def __init__(self, expr: Arith) -> None:
        self.expr = expr
        self.redirs: list[Redir] = []


class CondNode:
    """A node of a ``[[ ]]`` expression: ``kind`` is ``"unary"`` (op, word), ``"binary"``
    (op, left, right), ``"word"`` (a lone word), ``"not"``, ``"and"``, ``"or"`` (nodes)."""

    __slots__ = ("kind", "left", "op", "right", "words")

    def __init__(
        self,
        kind: str,
        op: str = "",
        words: list[Word] | None = None,
        left: CondNode | None = None,
        right: CondNode | None = None,
    ) -> None:
        self.kind = kind
        self.op = op
        self.words = words or []
        self.left = left
        self.right = right


class Cond:
    __slots__ = ("expr", "redirs")

    def __init__(self, expr: CondNode) -> None:
        self.expr = expr
        self.redirs: list[Redir] = []


class FuncDef:
    __slots__ = ("body", "name")

    def __init__(self, name: str, body: Command) -> None:
        self.name = name
        self.body = body


Command: TypeAlias = (
    Simple | Subshell | Group | If | Loop | For | ArithFor | Case | ArithCmd | Cond | FuncDef
)


# ======================================================================================
# The reader

#: Characters that end an unquoted word.
_META: Final = frozenset(" \t\n|&;()<>")
#: A run of characters with no special meaning inside an unquoted word.
_PLAIN: Final = re.compile(r"[^ \t\n|&;()<>'\"\\$`]+")
#: The same inside double quotes (and here-document bodies).
_DQ_PLAIN: Final = re.compile(r"[^\"\\$`]+")
_HEREDOC_PLAIN: Final = re.compile(r"[^\\$`]+")
#: Inside ``${...}``: up to a quote, escape, expansion or the closing brace.
_BRACE_PLAIN: Final = re.compile(r"[^}'\"\\$`]+")
_BRACE_PLAIN_DQ: Final = re.compile(r"[^}'\"\\$`]+")
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMS: Final = frozenset("@*#?-$!0123456789")
_ASSIGNMENT_START: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[|\+?=)")
_FD: Final = re.compile(r"[0-9]+(?=[<>])")
_FDVAR: Final = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}(?=[<>])")
_REDIRECT_OPS: Final = ("<<<", "<<-", "&>>", "<<", ">>", "<&", ">&", "<>", ">|", "&>", "<", ">")
_BLANKS: Final = re.compile(r"[ \t]+")
#: Characters a redirection can start with.
_REDIRECT_START: Final = frozenset("0123456789{<>&")
#: A word of plain characters followed by a blank, ``;``, ``|``, ``&``, a newline or the end
#: (not a redirection's descriptor, not a pattern of extglob, not ``~``).
_FAST_WORD: Final = re.compile(r"(?![0-9]+[<>])[^ \t\n|&;()<>'\"\\$`~{]+(?=[ \t\n|&;]|$)")
_TRANSFORMS: Final = frozenset("QEPAaUuLKk")
#: Reserved words that end a list (their construct's reader takes them).
_CLOSERS: Final = frozenset({"then", "else", "elif", "fi", "do", "done", "esac", "}"})
_COND_UNARY: Final = frozenset(
    [
        "-a",
        "-b",
        "-c",
        "-d",
        "-e",
        "-f",
        "-g",
        "-h",
        "-k",
        "-p",
        "-r",
        "-s",
        "-t",
        "-u",
        "-w",
        "-x",
        "-G",
        "-L",
        "-N",
        "-O",
        "-S",
        "-o",
        "-v",
        "-R",
        "-z",
        "-n",
    ]
)
_COND_BINARY: Final = frozenset(
    ["==", "=", "!=", "=~", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"]
)


class _Reader:
    """One parse of one text (see `parse`)."""

    __slots__ = ("cont", "depth", "i", "n", "nest", "pending", "s", "skips", "steps")

    def __init__(self, text: str, steps: Steps, depth: int) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.cont = "\\\n" in text
        self.steps = steps
        self.depth = depth
        self.nest = 0
        #: Here-documents whose bodies start after the next newline.
        self.pending: list[HereDoc] = []
        #: Where a line continuation was skipped (see `_read_script`).
        self.skips: list[int] = []

    # -- errors and limits -----------------------------------------------------------------

    def fail(self, why: str) -> UnparsableError:
        near = self.s[self.i : self.i + 30]
        where = f" (near {near!r})" if near else " (at the end)"
        return UnparsableError(f"cannot parse it: {why}{where}")

    def tick(self) -> None:
        steps = self.steps
        steps.left -= 1
        if steps.left < 0:
            raise UnparsableError(TOO_COMPLEX)

    def enter(self) -> None:
        self.nest += 1
        if self.nest > MAX_NEST:
            raise UnparsableError(f"commands nested more than {MAX_NEST} deep")

    # -- characters ------------------------------------------------------------------------

    def skip_cont(self) -> None:
        """Skip backslash-newline pairs at the current position."""
        s = self.s
        i = self.i
        while s.startswith("\\\n", i):
            self.skips.append(i)
            i += 2
        self.i = i

    def peek(self, k: int = 0) -> str:
        """The character ``k`` places ahead, line continuations skipped ('' at the end)."""
        s = self.s
        i = self.i
        if not self.cont:
            j = i + k
            return s[j] if j < self.n else ""
        while True:
            while s.startswith("\\\n", i):
                i += 2
            if k == 0:
                return s[i] if i < self.n else ""
            i += 1
            k -= 1

    def advance(self, k: int = 1) -> None:
        """Step over ``k`` characters (skipping continuations between them)."""
        if not self.cont:
            self.i += k
            return
        for _ in range(k):
            self.skip_cont()
            self.i += 1

    def startswith(self, text: str | tuple[str, ...]) -> bool:
        if isinstance(text, tuple):
            return any(self.startswith(t) for t in text)
        if not self.cont:
            return self.s.startswith(text, self.i)
        return all(self.peek(k) == c for k, c in enumerate(text))

    def blanks(self) -> None:
        """Skip blanks and continuations (not newlines, not comments)."""
        s = self.s
        n = self.n
        i = self.i
        if not self.cont:
            while i < n and (s[i] == " " or s[i] == "\t"):
                i += 1
            self.i = i
            return
        while i < n:
            c = s[i]
            if c == " " or c == "\t":
                i += 1
            elif c == "\\" and i + 1 < n and s[i + 1] == "\n":
                self.skips.append(i)
                i += 2
            else:
                break
        self.i = i

    def gap(self) -> None:
        """Skip blanks and a comment (up to, not over, its newline)."""
        self.blanks()
        if self.i < self.n and self.s[self.i] == "#":
            end = self.s.find("\n", self.i)
            self.i = self.n if end < 0 else end

    def newline(self) -> None:
        """Step over a newline token, reading the here-documents it starts."""
        self.i += 1
        if self.pending:
            self.heredocs()

    def linebreaks(self) -> None:
        """Skip blanks, comments and newlines."""
        while True:
            self.gap()
            if self.i < self.n and self.s[self.i] == "\n":
                self.newline()
            else:
                return

    # -- tokens ---------------------------------------------------------------------------

    def operator(self) -> str | None:
        """The control operator at the current position (not consumed), or None."""
        c = self.peek()
        if c == "" or c not in "|&;()\n":
            return None
        if c == "\n" or c == "(" or c == ")":
            return c
        d = self.peek(1)
        if c == "|":
            return "||" if d == "|" else "|&" if d == "&" else "|"
        if c == "&":
            if d == "&":
                return "&&"
            if d == ">":
                return None  # ``&>``: a redirection
            return "&"
        # c == ";"
        if d == ";":
            return ";;&" if self.peek(2) == "&" else ";;"
        if d == "&":
            return ";&"
        return ";"

    def reserved(self) -> str | None:
        """The reserved word at the current position (not consumed), or None."""
        if self.cont:
            self.skip_cont()
        i = self.i
        if i >= self.n or self.s[i] not in _RESERVED_START:
            return None
        m = _TOKEN.match(self.s, i)
        if m is None:
            return None
        word = m[0]
        return word if word in _RESERVED_WORDS else None

    def take_reserved(self, word: str) -> None:
        self.advance(len(word))

    # -- scripts ---------------------------------------------------------------------------

    def script(self, closers: frozenset[str] = frozenset(), stop: str = "") -> Script:
        """A list of commands up to one of ``closers`` (reserved words), the ``stop``
        operator (``)``, or ``;;`` for any case terminator) or the end; the terminator is
        not consumed and the caller checks it is the one it expects."""
        items: list[tuple[AndOr, str, int]] = []
        while True:
            self.tick()
            self.linebreaks()
            if self.i >= self.n:
                break
            op = self.operator()
            if op is not None and op != "(":
                if op == ")" and stop == ")":
                    break
                if stop == ";;" and op in (";;", ";&", ";;&"):
                    break
                raise self.fail(f"an unexpected {op!r}")
            word = self.reserved()
            if word is not None and word in _CLOSERS:
                if word in closers:
                    break
                raise self.fail(f"an unexpected {word!r}")
            node = self.and_or()
            self.gap()
            op = self.operator()
            if op == ";" or op == "&":
                self.advance()
                items.append((node, op, self.i))
            elif op == "\n":
                self.newline()
                items.append((node, "\n", self.i))
            else:
                items.append((node, "", self.i))
                break
        return Script(items)

    def and_or(self) -> AndOr:
        first = self.pipeline()
        rest: list[tuple[str, Pipeline]] = []
        while True:
            self.gap()
            op = self.operator()
            if op != "&&" and op != "||":
                return AndOr(first, rest)
            self.advance(2)
            self.linebreaks()
            rest.append((op, self.pipeline()))

    def pipeline(self) -> Pipeline:
        negated = False
        timed = False
        while True:
            self.gap()
            word = self.reserved()
            if word == "!":
                self.advance()
                negated = not negated
                continue
            if word == "time":
                self.take_reserved("time")
                timed = True
                self.gap()
                if self.startswith("-p") and self.peek(2) in _META_OR_END:
                    self.advance(2)
                    self.gap()
                    if self.startswith("--") and self.peek(2) in _META_OR_END:
                        self.advance(2)
                continue
            break
        commands: list[Command] = []
        pipes: list[str] = []
        self.gap()
        if self.at_pipeline_end():
            if timed or negated:  # ``time`` alone times nothing; ``!`` alone is true
                return Pipeline([], [], negated, timed)
            raise self.fail("a command is missing")
        commands.append(self.command())
        while True:
            self.gap()
            op = self.operator()
            if op != "|" and op != "|&":
                break
            self.advance(len(op))
            self.linebreaks()
            pipes.append(op)
            commands.append(self.command())
        return Pipeline(commands, pipes, negated, timed)

    def at_pipeline_end(self) -> bool:
        if self.i >= self.n:
            return True
        op = self.operator()
        if op is not None and op != "(":
            return True
        word = self.reserved()
        return word is not None and word in _CLOSERS

    # -- commands --------------------------------------------------------------------------

    def command(self) -> Command:
        self.tick()
        self.gap()
        word = self.reserved()
        node: Command
        if word is not None and word not in ("!", "time"):
            self.enter()
            node = self.compound(word)
            self.nest -= 1
        elif self.peek() == "(":
            self.enter()
            if self.peek(1) == "(":
                node = self.arith_command()
            else:
                self.advance()
                body = self.script(stop=")")
                if self.peek() != ")":
                    raise self.fail("an unterminated '('")
                self.advance()
                node = Subshell(body)
            self.nest -= 1
        else:
            return self.simple()
        if not isinstance(node, FuncDef):  # a body's redirections were read with it
            self.redirects(node.redirs)
        return node

    def redirects(self, into: list[Redir]) -> None:
        """Redirections after a compound command."""
        while True:
            self.gap()
            redirect = self.redirect()
            if redirect is None:
                return
            into.append(redirect)

    def compound(self, word: str) -> Command:
        if word == "{":
            self.advance()
            body = self.script(frozenset({"}"}))
            self.expect("}")
            return Group(body)
        if word == "if":
            return self.if_()
        if word == "while" or word == "until":
            self.take_reserved(word)
            cond = self.script(frozenset({"do"}))
            self.expect("do")
            body = self.script(frozenset({"done"}))
            self.expect("done")
            return Loop(cond, body, word == "until")
        if word == "for" or word == "select":
            return self.for_(word)
        if word == "case":
            return self.case()
        if word == "[[":
            return self.cond()
        if word == "function":
            return self.function()
        if word == "coproc":
            raise self.fail("'coproc' is not read")
        raise self.fail(f"an unexpected {word!r}")

    def expect(self, word: str) -> None:
        self.linebreaks()
        if self.reserved() != word:
            raise self.fail(f"{word!r} is missing")
        self.take_reserved(word)

    def if_(self) -> If:
        self.take_reserved("if")
        clauses: list[tuple[Script, Script]] = []
        else_: Script | None = None
        while True:
            cond = self.script(frozenset({"then"}))
            self.expect("then")
            body = self.script(frozenset({"elif", "else", "fi"}))
            clauses.append((cond, body))
            self.linebreaks()
            word = self.reserved()
            if word == "elif":
                self.take_reserved("elif")
                continue
            if word == "else":
                self.take_reserved("else")
                else_ = self.script(frozenset({"fi"}))
            self.expect("fi")
            return If(clauses, else_)

    def loop_body(self) -> Script:
        """``do ... done`` or ``{ ... }`` (bash takes both after ``for`` and ``select``)."""
        self.linebreaks()
        word = self.reserved()
        if word == "{":
            self.advance()
            body = self.script(frozenset({"}"}))
            self.expect("}")
            return body
        self.expect("do")
        body = self.script(frozenset({"done"}))
        self.expect("done")
        return body

    def for_(self, keyword: str) -> Command:
        self.take_reserved(keyword)
        self.gap()
        if keyword == "for" and self.startswith("(("):
            self.advance(2)
            sections = self.arith_text(")", for_sections=True)
            if len(sections) != 3:
                raise self.fail("'for ((' needs three expressions")
            self.gap()
            if self.peek() == ";":
                self.advance()
            body = self.loop_body()
            return ArithFor(sections[0], sections[1], sections[2], body)
        name = self.word()
        if name is None or name.literal is None or not _NAME.fullmatch(name.literal):
            raise self.fail(f"'{keyword}' needs a variable name")
        self.gap()
        words: list[Word] | None = None
        op = self.operator()
        if op == ";":
            self.advance()
        else:
            self.linebreaks()
            if self.reserved() == "in":
                self.take_reserved("in")
                words = []
                while True:
                    self.gap()
                    op = self.operator()
                    if op is not None:
                        if op not in (";", "\n"):
                            raise self.fail(f"an unexpected {op!r}")
                        if op == ";":
                            self.advance()
                        break
                    if self.i >= self.n:
                        raise self.fail(f"'{keyword}' is unterminated")
                    word = self.word()
                    if word is None:
                        raise self.fail("a word is missing")
                    words.append(word)
        body = self.loop_body()
        return For(name.literal, words, body, keyword == "select")

    def case(self) -> Case:
        self.take_reserved("case")
        self.gap()
        subject = self.word()
        if subject is None:
            raise self.fail("'case' needs a word")
        self.linebreaks()
        if self.reserved() != "in":
            raise self.fail("'in' is missing")
        self.take_reserved("in")
        items: list[tuple[list[Word], Script, str]] = []
        while True:
            self.linebreaks()
            if self.reserved() == "esac":
                self.take_reserved("esac")
                return Case(subject, items)
            if self.i >= self.n:
                raise self.fail("'case' is unterminated")
            if self.peek() == "(":
                self.advance()
            patterns: list[Word] = []
            while True:
                self.gap()
                pattern = self.word()
                if pattern is None:
                    raise self.fail("a case pattern is missing")
                patterns.append(pattern)
                self.gap()
                c = self.peek()
                if c == "|":
                    self.advance()
                    continue
                if c == ")":
                    self.advance()
                    break
                raise self.fail("a case pattern is unterminated")
            body = self.script(frozenset({"esac"}), stop=";;")
            self.gap()
            op = self.operator()
            if op is not None and op in (";;", ";&", ";;&"):
                self.advance(len(op))
                items.append((patterns, body, op))
            else:
                items.append((patterns, body, ""))
                self.linebreaks()
                if self.reserved() != "esac":
                    raise self.fail("'esac' is missing")

    def function(self) -> FuncDef:
        self.take_reserved("function")
        self.gap()
        name = self.word()
        if name is None or name.literal is None:
            raise self.fail("a function needs a plain name")
        self.gap()
        if self.peek() == "(":
            self.advance()
            self.gap()
            if self.peek() != ")":
                raise self.fail("'(' after a function name needs ')'")
            self.advance()
        return FuncDef(name.literal, self.function_body())

    def function_body(self) -> Command:
        self.linebreaks()
        word = self.reserved()
        if word is None and self.peek() != "(":
            raise self.fail("a function body must be a compound command")
        if word is not None and word in ("function", "!", "time", "in"):
            raise self.fail("a function body must be a compound command")
        self.enter()
        body = self.command()
        self.nest -= 1
        return body

    def arith_command(self) -> ArithCmd:
        self.advance(2)  # ((
        (expr,) = self.arith_text(")")
        return ArithCmd(expr)

    # -- [[ ]] -----------------------------------------------------------------------------

    def cond(self) -> Cond:
        self.take_reserved("[[")
        expr = self.cond_or()
        self.gap()
        if not (self.startswith("]]") and self.peek(2) in _META_OR_END):
            raise self.fail("']]' is missing")
        self.advance(2)
        return Cond(expr)

    def cond_gap(self) -> None:
        while True:
            self.gap()
            if self.peek() == "\n":
                self.newline()
            else:
                return

    def cond_or(self) -> CondNode:
        left = self.cond_and()
        while True:
            self.cond_gap()
            if self.startswith("||"):
                self.advance(2)
                left = CondNode("or", left=left, right=self.cond_and())
            else:
                return left

    def cond_and(self) -> CondNode:
        left = self.cond_not()
        while True:
            self.cond_gap()
            if self.startswith("&&"):
                self.advance(2)
                left = CondNode("and", left=left, right=self.cond_not())
            else:
                return left

    def cond_not(self) -> CondNode:
        self.cond_gap()
        if self.peek() == "!" and self.peek(1) in _META_OR_END:
            self.advance()
            return CondNode("not", left=self.cond_not())
        if self.peek() == "(":
            self.advance()
            inner = self.cond_or()
            self.cond_gap()
            if self.peek() != ")":
                raise self.fail("')' is missing in '[[ ]]'")
            self.advance()
            return inner
        first = self.cond_word()
        if first is None:
            raise self.fail("a word is missing in '[[ ]]'")
        text = first.literal
        self.cond_gap()
        if text in _COND_UNARY and not self.at_cond_end():
            operand = self.cond_word()
            if operand is None:
                raise self.fail("an operand is missing in '[[ ]]'")
            return CondNode("unary", text or "", [operand])
        op = self.cond_operator()
        if op is None:
            return CondNode("word", words=[first])
        self.cond_gap()
        right = self.cond_regex() if op == "=~" else self.cond_word()
        if right is None:
            raise self.fail("an operand is missing in '[[ ]]'")
        return CondNode("binary", op, [first, right])

    def at_cond_end(self) -> bool:
        return (
            (self.startswith("]]") and self.peek(2) in _META_OR_END)
            or self.startswith(("&&", "||"))
            or self.peek() in (")", "")
        )

    def cond_operator(self) -> str | None:
        c = self.peek()
        if c == "<" or c == ">":
            self.advance()
            return c
        if self.at_cond_end():
            return None
        word = self.cond_word()
        text = word.literal if word is not None else None
        if text in _COND_BINARY:
            return text
        raise self.fail("a '[[ ]]' operator is expected")

    def cond_word(self) -> Word | None:
        if self.startswith("]]") and self.peek(2) in _META_OR_END:
            return None
        return self.word()

    def cond_regex(self) -> Word:
        """The right side of ``=~``: parentheses and ``|`` belong to it."""
        start = self.i
        parts: list[Part] = []
        depth = 0
        while True:
            self.skip_cont()
            c = self.peek()
            if c == "":
                break
            if depth == 0 and c in " \t\n":
                break
            if c == "(":
                depth += 1
                _add_lit(parts, "(", False)
                self.advance()
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
                _add_lit(parts, ")", False)
                self.advance()
            elif c == "|" or c == "<" or c == ">" or c == "&" or c == ";":
                if depth == 0 and c != "|":
                    break
                _add_lit(parts, c, False)
                self.advance()
            elif c in " \t\n":
                _add_lit(parts, c, False)
                self.advance()
            else:
                word = self.word()
                if word is None:
                    raise self.fail("a '=~' operand is unreadable")
                parts.extend(word.parts)
        if not parts:
            raise self.fail("a '=~' operand is missing")
        return Word(parts, self.s[start : self.i])

    # -- simple commands -------------------------------------------------------------------

    def simple(self) -> Command:
        start = self.i
        assigns: list[Assign] = []
        words: list[Word] = []
        redirs: list[Redir] = []
        order: list[str] = []
        declaration = False
        s = self.s
        fast = not self.cont
        while True:
            self.tick()
            self.gap()
            if self.i >= self.n:
                break
            if fast and words and not declaration:
                # the common word: plain characters up to a blank or an operator
                m = _FAST_WORD.match(s, self.i)
                if m is not None:
                    text = m[0]
                    words.append(Word([Lit(text, False)], text))
                    order.append("w")
                    self.i = m.end()
                    continue
            c = self.peek()
            if c in "|&;)\n" and not (c == "&" and self.peek(1) == ">"):
                break
            if c == "(":
                if len(words) == 1 and not assigns and not redirs and words[0].literal:
                    name = words[0].literal
                    self.advance()
                    self.gap()
                    if self.peek() != ")":
                        raise self.fail("'(' after a word")
                    self.advance()
                    return FuncDef(name, self.function_body())
                raise self.fail("an unexpected '('")
            redirect = self.redirect()
            if redirect is not None:
                redirs.append(redirect)
                order.append("r")
                continue
            if not words or declaration:
                assign = self.assignment(declaration)
                if assign is not None:
                    if declaration:
                        words.append(Word([Lit(assign.source, True)], assign.source, assign))
                        order.append("w")
                    else:
                        assigns.append(assign)
                        order.append("a")
                    continue
            word = self.word()
            if word is None:
                raise self.fail("a word is unreadable")
            if not words and _unquoted(word) in _RESERVED_WORDS:
                # a reserved word bash would read where this reader did not (``!`` after
                # ``|``, a word joined by a line continuation): refused, not guessed
                raise self.fail(f"the reserved word {_unquoted(word)!r} in an odd place")
            words.append(word)
            order.append("w")
            if len(words) == 1 and word.literal in _DECLARATION:
                declaration = True
        if not words and not assigns and not redirs:
            raise self.fail("a command is missing")
        return Simple(assigns, words, redirs, "".join(order), start, self.i)

    def assignment(self, declaration: bool) -> Assign | None:
        """``name=value`` (or ``name[i]=``, ``name+=``, ``name=(...)``) at the current
        position, or None (nothing consumed)."""
        if self.cont:
            self.skip_cont()
        m = _ASSIGNMENT_START.match(self.s, self.i)
        if m is None:
            return None
        start = self.i
        mark = len(self.skips)
        name = m[1]
        index: Arith | None = None
        self.i = m.end(1)
        if m[2] == "[":
            self.advance()
            try:
                (index,) = self.arith_text("]")
            except UnparsableError:
                self.i = start
                del self.skips[mark:]
                return None
            if self.peek() == "+" and self.peek(1) == "=":
                self.advance(2)
                append = True
            elif self.peek() == "=":
                self.advance()
                append = False
            else:
                self.i = start
                del self.skips[mark:]
                return None
        else:
            append = m[2] == "+="
            self.i = m.end(2)
        if self.peek() == "(":
            self.advance()
            items = self.array_items()
            return Assign(name, index, append, None, items, self.s[start : self.i])
        value = None if self.peek() in _META_OR_END else self.word(assignment=True)
        if value is None:
            value = Word([], "")
        return Assign(name, index, append, value, None, self.s[start : self.i])

    def array_items(self) -> list[tuple[Arith | None, Word]]:
        items: list[tuple[Arith | None, Word]] = []
        while True:
            self.linebreaks()
            c = self.peek()
            if c == ")":
                self.advance()
                return items
            if c == "":
                raise self.fail("an unterminated array")
            index: Arith | None = None
            if c == "[":
                save = self.i
                mark = len(self.skips)
                self.advance()
                (index,) = self.arith_text("]")
                if self.peek() == "=":
                    self.advance()
                elif self.peek() == "+" and self.peek(1) == "=":
                    self.advance(2)
                else:
                    self.i = save
                    del self.skips[mark:]
                    index = None
            word = self.word()
            if word is None:
                if index is not None:
                    word = Word([], "")
                else:
                    raise self.fail("an unreadable array item")
            items.append((index, word))

    def redirect(self) -> Redir | None:
        """The redirection at the current position, or None (nothing consumed)."""
        s = self.s
        if self.cont:
            self.skip_cont()
        i = self.i
        if i >= self.n or s[i] not in _REDIRECT_START:
            return None
        fd: int | None = None
        fdvar: str | None = None
        m = _FD.match(s, i)
        if m is not None:
            fd = int(m[0]) if len(m[0]) < 10 else -1
            i = m.end()
        else:
            m = _FDVAR.match(s, i)
            if m is not None:
                fdvar = m[1]
                i = m.end()
        if i >= self.n or s[i] not in "<>&":
            return None
        if s[i] == "&" and not s.startswith("&>", i):
            return None
        if s.startswith("<(", i) or s.startswith(">(", i):
            return None  # a process substitution
        op = next((o for o in _REDIRECT_OPS if s.startswith(o, i)), None)
        if op is None:
            return None
        if fd is not None and op.startswith("&"):
            return None
        self.i = i + len(op)
        self.gap()
        if op == "<<" or op == "<<-":
            return self.heredoc_start(fd, fdvar, op)
        target = self.word()
        if target is None:
            raise self.fail(f"{op!r} needs a target")
        return Redir(fd, fdvar, op, target)

    def heredoc_start(self, fd: int | None, fdvar: str | None, op: str) -> Redir:
        word = self.word()
        if word is None:
            raise self.fail("a here-document needs a delimiter")
        quoted = False
        text: list[str] = []
        for part in word.parts:
            if isinstance(part, Lit):
                quoted = quoted or part.quoted
                text.append(part.text)
            else:  # ``<<$x``: bash takes the text as written; too odd to read
                raise self.fail("a here-document delimiter with an expansion")
        if any(c in word.source for c in "\"'\\"):
            quoted = True
        heredoc = HereDoc("".join(text), quoted, op == "<<-")
        self.pending.append(heredoc)
        return Redir(fd, fdvar, op, word, heredoc)

    def heredocs(self) -> None:
        """Read the pending here-document bodies (the position is at a line start)."""
        pending = self.pending
        self.pending = []
        s = self.s
        for heredoc in pending:
            lines: list[str] = []
            while True:
                if self.i >= self.n:
                    raise UnparsableError(
                        f"cannot parse it: the here-document {heredoc.delimiter!r} is unterminated"
                    )
                end = s.find("\n", self.i)
                if end < 0:
                    end = self.n
                line = s[self.i : end]
                self.i = min(end + 1, self.n) if end < self.n else self.n
                if not heredoc.quoted:
                    while _odd_backslashes(line) and self.i < self.n:
                        end = s.find("\n", self.i)
                        if end < 0:
                            end = self.n
                        line = line[:-1] + s[self.i : end]
                        self.i = end + 1 if end < self.n else self.n
                if heredoc.strip:
                    line = line.lstrip("\t")
                if line == heredoc.delimiter:
                    break
                lines.append(line)
                if end >= self.n:
                    raise UnparsableError(
                        f"cannot parse it: the here-document {heredoc.delimiter!r} is unterminated"
                    )
            body = "".join([line + "\n" for line in lines])
            heredoc.body = body
            if not heredoc.quoted:
                heredoc.word = _sub_reader(self, body).heredoc_word()

    def heredoc_word(self) -> Word:
        """The whole text as an unquoted here-document body."""
        parts: list[Part] = []
        s = self.s
        while self.i < self.n:
            m = _HEREDOC_PLAIN.match(s, self.i)
            if m is not None:
                _add_lit(parts, m[0], True)
                self.i = m.end()
                continue
            c = s[self.i]
            if c == "\\":
                d = s[self.i + 1 : self.i + 2]
                if d in ("$", "`", "\\"):
                    _add_lit(parts, d, True)
                    self.i += 2
                else:
                    _add_lit(parts, "\\", True)
                    self.i += 1
            elif c == "$":
                self.dollar(parts, quoted=True)
            else:  # backquote
                self.backquote(parts, quoted=True)
        return Word(parts, self.s)

    # -- words -----------------------------------------------------------------------------

    def word(self, assignment: bool = False) -> Word | None:
        """The unquoted word at the current position, or None."""
        start = self.i
        parts: list[Part] = []
        s = self.s
        n = self.n
        first = True
        while True:
            if self.cont:
                self.skip_cont()
            i = self.i
            if i >= n:
                break
            c = s[i]
            if c == "~" and (first or (assignment and _after_tilde_point(parts))):
                m = _TILDE.match(s, i)
                if m is not None:
                    parts.append(Tilde(m[0]))
                    self.i = m.end()
                    first = False
                    continue
            first = False
            m = _PLAIN.match(s, i)
            if m is not None:
                text = m[0]
                if assignment and "~" in text:
                    # ``a=x:~/y``: a tilde after ``:`` is expanded in an assignment
                    j = text.find(":~")
                    if j >= 0:
                        _add_lit(parts, text[: j + 1], False)
                        self.i = i + j + 1
                        continue
                _add_lit(parts, text, False)
                self.i = m.end()
                continue
            if c in " \t\n|&;()":
                break
            if c == "<" or c == ">":
                if self.peek(1) == "(":
                    parts.append(self.procsub(c))
                    continue
                break
            if c == "'":
                end = s.find("'", i + 1)
                if end < 0:
                    raise self.fail("an unterminated single quote")
                _add_lit(parts, s[i + 1 : end], True)
                self.i = end + 1
            elif c == '"':
                self.i += 1
                self.dquote(parts)
            elif c == "\\":
                if i + 1 < n:
                    _add_lit(parts, s[i + 1], True)
                    self.i = i + 2
                else:
                    _add_lit(parts, "\\", True)
                    self.i = i + 1
            elif c == "$":
                self.dollar(parts, quoted=False)
            else:  # backquote
                self.backquote(parts, quoted=False)
        if self.i == start:
            return None
        if parts and isinstance(parts[-1], Lit) and not parts[-1].quoted:
            text = parts[-1].text
            if text and text[-1] in "@*+?!" and self.peek() == "(":
                raise self.fail("an extended glob pattern (extglob is not read)")
        return Word(parts, s[start : self.i])

    def dquote(self, parts: list[Part]) -> None:
        """The rest of a double-quoted string (after the opening quote)."""
        s = self.s
        while True:
            if self.cont:
                self.skip_cont()
            i = self.i
            if i >= self.n:
                raise self.fail("an unterminated double quote")
            m = _DQ_PLAIN.match(s, i)
            if m is not None:
                _add_lit(parts, m[0], True)
                self.i = m.end()
                continue
            c = s[i]
            if c == '"':
                self.i = i + 1
                if not parts or not any(isinstance(p, Lit) and p.quoted for p in parts[-1:]):
                    _add_lit(parts, "", True)  # ``""`` is an empty word, not none
                return
            if c == "\\":
                d = s[i + 1 : i + 2]
                if d in ('"', "\\", "$", "`"):
                    _add_lit(parts, d, True)
                    self.i = i + 2
                else:
                    _add_lit(parts, "\\", True)
                    self.i = i + 1
            elif c == "$":
                self.dollar(parts, quoted=True)
            else:
                self.backquote(parts, quoted=True)

    def dollar(self, parts: list[Part], *, quoted: bool) -> None:
        """A ``$`` form at the current position."""
        s = self.s
        start = self.i
        c = self.peek(1)
        if c == "(":
            if self.peek(2) == "(":
                arith = self.try_arith_sub(start, quoted)
                if arith is not None:
                    parts.append(arith)
                    return
            self.advance(2)
            parts.append(self.cmdsub(start, quoted))
            return
        if c == "{":
            self.advance(2)
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise UnparsableError(f"expansions nested more than {MAX_DEPTH} deep")
            parts.append(self.brace_param(start, quoted))
            self.depth -= 1
            return
        if c == "[":
            self.advance(2)
            (expr,) = self.arith_text("]")
            parts.append(ArithSub(expr, quoted, s[start : self.i]))
            return
        if c == "'" and not quoted:
            self.advance(2)
            end = _ansi_end(s, self.i)
            if end < 0:
                raise self.fail("an unterminated $'...'")
            _add_lit(parts, ansi_c(s[self.i : end]), True)
            self.i = end + 1
            return
        if c == '"' and not quoted:
            self.advance(2)
            self.dquote(parts)
            return
        if c != "" and c in _SPECIAL_PARAMS:
            self.advance(2)
            parts.append(Param(c, quoted, s[start : self.i]))
            return
        if self.cont:
            self.advance()
            m = _NAME.match(s, self.i)
        else:
            m = _NAME.match(s, start + 1)
        if m is not None:
            self.i = m.end()
            parts.append(Param(m[0], quoted, s[start : self.i]))
            return
        self.advance()
        _add_lit(parts, "$", quoted)

    def try_arith_sub(self, start: int, quoted: bool) -> ArithSub | None:
        """``$((...))`` when the text is arithmetic (balanced, closed by ``))``); None (and
        nothing consumed) when bash would read a command substitution instead."""
        save = self.i
        mark = len(self.skips)
        self.advance(3)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise UnparsableError(f"expansions nested more than {MAX_DEPTH} deep")
        try:
            (expr,) = self.arith_text(")")
        except UnparsableError as exc:
            if "nested" in str(exc) or str(exc) == TOO_COMPLEX:
                raise
            self.i = save
            del self.skips[mark:]
            self.depth -= 1
            return None
        self.depth -= 1
        return ArithSub(expr, quoted, self.s[start : self.i])

    def cmdsub(self, start: int, quoted: bool) -> CmdSub:
        """The rest of ``$(...)``, read in place."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise UnparsableError(f"commands nested more than {MAX_DEPTH} deep")
        outer = self.pending
        self.pending = []
        body = self.script(stop=")")
        if self.pending:
            raise self.fail("a here-document inside '$(...)' is unterminated")
        self.pending = outer
        if self.peek() != ")":
            raise self.fail("an unterminated '$('")
        self.advance()
        self.depth -= 1
        return CmdSub(body, quoted, self.s[start : self.i])

    def procsub(self, direction: str) -> ProcSub:
        start = self.i
        self.advance(2)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise UnparsableError(f"commands nested more than {MAX_DEPTH} deep")
        outer = self.pending
        self.pending = []
        body = self.script(stop=")")
        if self.pending:
            raise self.fail("a here-document inside a process substitution is unterminated")
        self.pending = outer
        if self.peek() != ")":
            raise self.fail(f"an unterminated '{direction}('")
        self.advance()
        self.depth -= 1
        return ProcSub(direction, body, self.s[start : self.i])

    def backquote(self, parts: list[Part], *, quoted: bool) -> None:
        """A backquoted command: unescape ``\\$``, ``\\```, ``\\\\`` (and ``\\"`` inside
        double quotes), then read the text again."""
        s = self.s
        start = self.i
        i = start + 1
        out: list[str] = []
        while True:
            if i >= self.n:
                raise self.fail("an unterminated backquote")
            c = s[i]
            if c == "`":
                break
            if c == "\\" and i + 1 < self.n:
                d = s[i + 1]
                if d in "$`\\" or (quoted and d == '"'):
                    out.append(d)
                    i += 2
                    continue
                if d == "\n":
                    i += 2
                    continue
                out.append("\\" + d)
                i += 2
                continue
            out.append(c)
            i += 1
        self.i = i + 1
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise UnparsableError(f"commands nested more than {MAX_DEPTH} deep")
        body = _read_script("".join(out), self.steps, self.depth)
        self.depth -= 1
        parts.append(CmdSub(body, quoted, s[start : self.i]))

    def brace_param(self, start: int, quoted: bool) -> Param:
        """The rest of ``${...}``."""
        s = self.s
        prefix = ""
        c = self.peek()
        if c == "#" and self.peek(1) not in ("}", ""):
            prefix = "#"
            self.advance()
        elif c == "!" and self.peek(1) not in ("}", ""):
            prefix = "!"
            self.advance()
        if self.cont:
            self.skip_cont()
        m = _NAME.match(s, self.i)
        if m is not None:
            name = m[0]
            self.i = m.end()
        else:
            m = _DIGITS.match(s, self.i)
            if m is not None:
                name = m[0]
                self.i = m.end()
            elif self.peek() != "" and self.peek() in _SPECIAL_PARAMS:
                name = self.peek()
                self.advance()
            else:
                raise self.fail("a bad '${...}'")
        param = Param(name, quoted, "")
        param.prefix = prefix
        if self.peek() == "[":
            self.advance()
            if self.peek() in ("@", "*") and self.peek(1) == "]":
                param.index = self.peek()
                self.advance(2)
            else:
                (param.index,) = self.arith_text("]")
        c = self.peek()
        if c == "}":
            self.advance()
        elif prefix == "!" and c in ("*", "@") and self.peek(1) == "}":
            param.op = c
            self.advance(2)
        elif prefix == "#":
            raise self.fail("a bad '${#...}'")
        else:
            self.param_op(param, quoted)
        param.source = s[start : self.i]
        return param

    def param_op(self, param: Param, quoted: bool) -> None:
        c = self.peek()
        d = self.peek(1)
        if c == ":" and d in ("-", "=", "?", "+"):
            param.op = c + d
            self.advance(2)
        elif c in ("-", "=", "?", "+"):
            param.op = c
            self.advance()
        elif c in ("#", "%", "^", ",", "~"):
            param.op = c + c if d == c else c
            self.advance(len(param.op))
        elif c == "/":
            param.op = "/" + d if d in ("/", "#", "%") else "/"
            self.advance(len(param.op))
            param.word = self.param_word(quoted, stop_slash=True)
            if self.peek() == "/":
                self.advance()
                param.word2 = self.param_word(quoted)
            self.close_brace()
            return
        elif c == "@":
            if d == "" or d not in _TRANSFORMS or self.peek(2) != "}":
                raise self.fail("a bad '${...@}' transformation")
            param.op = "@" + d
            self.advance(3)
            return
        elif c == ":":
            param.op = ":"
            self.advance()
            (param.offset,) = self.arith_text("}", colon=True)
            if self.s[self.i - 1] == ":":
                (param.length,) = self.arith_text("}")
            return
        else:
            raise self.fail("a bad '${...}' operator")
        param.word = self.param_word(quoted)
        self.close_brace()

    def close_brace(self) -> None:
        if self.peek() != "}":
            raise self.fail("an unterminated '${'")
        self.advance()

    def param_word(self, quoted: bool, stop_slash: bool = False) -> Word:
        """The word of a ``${x op word}`` (up to ``}``; quotes, escapes, expansions nest)."""
        start = self.i
        parts: list[Part] = []
        s = self.s
        plain = _BRACE_PLAIN_DQ if quoted else _BRACE_PLAIN
        while True:
            if self.cont:
                self.skip_cont()
            i = self.i
            if i >= self.n:
                raise self.fail("an unterminated '${'")
            c = s[i]
            if c == "}" or (stop_slash and c == "/"):
                break
            m = plain.match(s, i)
            if m is not None:
                text = m[0]
                if stop_slash and "/" in text:
                    text = text[: text.index("/")]
                    if not text:
                        break
                _add_lit(parts, text, quoted)
                self.i = i + len(text)
                continue
            if c == "'":
                end = s.find("'", i + 1)
                if end < 0:
                    raise self.fail("an unterminated single quote")
                if quoted:
                    # bash matches the braces around the quotes, keeps the quotes and
                    # expands what is inside (depending on the operator): read for its
                    # expansions, value unknown
                    inner = _sub_reader(self, s[i + 1 : end]).heredoc_word()
                    parts.append(Opaque(inner.parts, s[i : end + 1]))
                else:
                    _add_lit(parts, s[i + 1 : end], True)
                self.i = end + 1
            elif c == '"':
                self.i += 1
                self.dquote(parts)
            elif c == "\\":
                d = s[i + 1 : i + 2]
                if quoted and d not in ('"', "\\", "$", "`", "}"):
                    _add_lit(parts, "\\", True)
                    self.i = i + 1
                else:
                    _add_lit(parts, d, True)
                    self.i = i + 2
            elif c == "$":
                self.dollar(parts, quoted=quoted)
            else:
                self.backquote(parts, quoted=quoted)
        return Word(parts, s[start : self.i])

    # -- arithmetic ------------------------------------------------------------------------

    def arith_text(
        self, close: str, *, for_sections: bool = False, colon: bool = False
    ) -> list[Arith]:
        """Arithmetic text up to ``close`` (``)`` means ``))``; ``]``; ``}``), consumed.

        Parentheses and brackets nest; expansions and double quotes are read as in a word.
        ``for_sections``: split at top-level ``;`` (the three parts of ``for ((;;))``).
        ``colon``: a ``${x:offset:length}`` offset, which also ends at a top-level ``:``.
        """
        s = self.s
        sections: list[Arith] = []
        parts: list[Part] = []
        start = self.i
        depth = 0
        brackets = 0
        ternary = 0
        while True:
            self.tick()
            if self.cont:
                self.skip_cont()
            i = self.i
            if i >= self.n:
                raise self.fail("unterminated arithmetic")
            c = s[i]
            if depth == 0 and brackets == 0:
                if close == ")" and c == ")" and self.peek(1) == ")":
                    sections.append(Arith(parts, s[start:i]))
                    self.advance(2)
                    break
                if close == "]" and c == "]":
                    sections.append(Arith(parts, s[start:i]))
                    self.advance()
                    break
                if close == "}" and c == "}":
                    sections.append(Arith(parts, s[start:i]))
                    self.advance()
                    break
                if colon and c == ":" and ternary == 0:
                    sections.append(Arith(parts, s[start:i]))
                    self.advance()
                    break
                if for_sections and c == ";":
                    sections.append(Arith(parts, s[start:i]))
                    parts = []
                    self.advance()
                    start = self.i
                    continue
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth < 0:
                    raise self.fail("unbalanced arithmetic")
            elif c == "[":
                brackets += 1
            elif c == "]":
                brackets -= 1
                if brackets < 0:
                    raise self.fail("unbalanced arithmetic")
            elif c == "?":
                ternary += 1
            elif c == ":" and ternary:
                ternary -= 1
            if c == "$":
                self.dollar(parts, quoted=True)
                continue
            if c == "`":
                self.backquote(parts, quoted=True)
                continue
            if c == '"':
                self.i += 1
                self.dquote(parts)
                continue
            if c == "'" or c == "\\":
                raise self.fail("quotes in arithmetic")
            _add_lit(parts, c, False)
            self.i = i + 1
        return sections


#: Reserved words (recognised at a command's start).
_RESERVED_WORDS: Final = frozenset(
    [
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "case",
        "esac",
        "while",
        "until",
        "for",
        "select",
        "function",
        "time",
        "in",
        "coproc",
        "{",
        "}",
        "!",
        "[[",
        "]]",
    ]
)
_TOKEN: Final = re.compile(r"[^ \t\n|&;()<>]+")
_RESERVED_START: Final = frozenset(w[0] for w in _RESERVED_WORDS)
_META_OR_END: Final = frozenset(" \t\n|&;()<>") | {""}
_DIGITS: Final = re.compile(r"[0-9]+")
_TILDE: Final = re.compile(r"~[A-Za-z0-9_.+-]*(?=/|$|[ \t\n|&;()<>:])")
#: Builtins whose ``name=value`` arguments are assignments (``declare a=(1 2)``).
_DECLARATION: Final = frozenset({"declare", "typeset", "local", "export", "readonly"})


def _unquoted(word: Word) -> str | None:
    """The word's text when it is all unquoted literal text."""
    if all(isinstance(p, Lit) and not p.quoted for p in word.parts):
        return "".join([p.text for p in word.parts])  # type: ignore[union-attr]
    return None


def _odd_backslashes(line: str) -> bool:
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def _after_tilde_point(parts: list[Part]) -> bool:
    """In an assignment value: right after ``=`` or ``:`` (where bash expands ``~``)."""
    if not parts:
        return True
    last = parts[-1]
    return isinstance(last, Lit) and not last.quoted and last.text.endswith(":")


def _add_lit(parts: list[Part], text: str, quoted: bool) -> None:
    if parts:
        last = parts[-1]
        if isinstance(last, Lit) and last.quoted == quoted:
            last.text += text
            return
    parts.append(Lit(text, quoted))


def _sub_reader(outer: _Reader, text: str) -> _Reader:
    return _Reader(text, outer.steps, outer.depth)


def _ansi_end(s: str, i: int) -> int:
    """The index of the quote that closes a ``$'...'`` whose text starts at ``i``."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            return i
        i += 1
    return -1


_ANSI: Final = re.compile(
    r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x\{([0-9a-fA-F]*)\}?|x([0-9a-fA-F]{1,2})"
    r"|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|c(\\\\|.)|(.))",
    re.DOTALL,
)
_ANSI_SIMPLE: Final = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


def _char(value: int) -> str:
    if value <= 0x7F:
        return chr(value)
    return chr(value) if value < 0x110000 and not 0xD800 <= value < 0xE000 else "\ufffd"


def ansi_c(body: str) -> str:
    """The text of ``$'body'`` (bash's ANSI-C quoting)."""
    if "\\" not in body:
        return body.split("\0", 1)[0]

    def one(m: re.Match[str]) -> str:
        simple, octal, brace, hex2, u4, u8, control, other = m.groups()
        if simple is not None:
            return _ANSI_SIMPLE[simple]
        if octal is not None:
            return chr(int(octal, 8) & 0xFF)
        if brace is not None:
            return chr(int(brace, 16) & 0xFF) if brace else "\0"
        if hex2 is not None:
            return chr(int(hex2, 16))
        if u4 is not None or u8 is not None:
            return _char(int(u4 or u8, 16))
        if control is not None:
            c = "\\" if control == "\\\\" else control
            return "\x7f" if c == "?" else chr(ord(c.upper()) & 0x1F)
        if other == "\n":
            return "\\\n"
        return "\\" + other

    text = _ANSI.sub(one, body)
    # bash's strings end at a NUL byte (``$'a\\0b'`` is ``a``)
    return text.split("\0", 1)[0]


def _read(reader: _Reader) -> Script:
    script = reader.script()
    if reader.i < reader.n:
        raise reader.fail("an unexpected character")
    if reader.pending:
        raise UnparsableError(
            f"cannot parse it: the here-document {reader.pending[0].delimiter!r} has no body"
        )
    return script


def _read_script(text: str, steps: Steps, depth: int) -> Script:
    """Read ``text``; with line continuations, twice.

    The first reading skips each backslash-newline where bash removes it and notes where;
    the second reads the text with exactly those removed, so that every regular expression
    of the reader sees what bash sees (``$a\\<newline>b`` is ``$ab``, ``BASH_EN\\<newline>V=``
    an assignment, ``2\\<newline>>`` a redirection). Continuations inside single quotes,
    ``$'...'``, comments and quoted here-documents are not removed by either.
    """
    reader = _Reader(text, steps, depth)
    script = _read(reader)
    if reader.skips:
        drop = sorted(set(reader.skips))
        pieces: list[str] = []
        last = 0
        for at in drop:
            pieces.append(text[last:at])
            last = at + 2
        pieces.append(text[last:])
        again = _Reader("".join(pieces), steps, depth)
        again.cont = False
        script = _read(again)
    return script


def parse(text: str, *, steps: Steps | None = None, depth: int = 0) -> Script:
    """The script of ``text`` (see the module docstring).

    Args:
        text: the command string.
        steps: the decision's budget, shared with the other texts read for it (none: no
            limit but the nesting limits).
        depth: how deeply ``text`` itself is nested (a code string inside a command).

    Raises:
        UnparsableError: the text is not read the way bash reads it, nests beyond the
            limits, or the budget is spent.
    """
    if depth > MAX_DEPTH:
        raise UnparsableError(f"commands nested more than {MAX_DEPTH} deep")
    if steps is None:
        steps = Steps()
    elif steps.left < 0:
        raise UnparsableError(TOO_COMPLEX)
    try:
        return _read_script(text, steps, depth)
    except RecursionError:
        raise UnparsableError("the command nests too deeply to check") from None
