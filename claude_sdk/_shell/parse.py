"""Bash command text to simple commands, on the tree-sitter bash grammar.

`parse` turns one command string into the `Command` objects a policy judges: every simple
command bash may run, wherever it sits (lists, pipelines, subshells, functions, loops,
substitutions, here-documents), each a list of `Word` values with quotes removed the way
bash removes them. A word whose value bash computes when it runs (an expansion, a
substitution, a brace expansion) has no value, only its source text and its ``code``, the
shell text it stands for.

What a shell reads as code from its standard input is recorded on the reading command
(`Command.stdin`): the literal text when the producer is ``echo``, ``printf``, a here-document
or a here-string with nothing to expand, `COMPUTED` otherwise.

Nothing here decides anything; `claude_sdk._shell.scan` does. The parser is bounded: a
command that does not parse, nests deeper than `MAX_DEPTH` or takes longer than the deadline
raises `UnparsableError`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeAlias

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = [
    "COMPUTED",
    "FILE",
    "Feed",
    "MAX_DEPTH",
    "Command",
    "Parsed",
    "UnparsableError",
    "Word",
    "parse",
]

#: Substitutions and code strings nested deeper than this are refused.
MAX_DEPTH: Final = 16

#: The value of code that bash computes when it runs (`Command.stdin`, `Word.feed`).
COMPUTED: Final = "\0computed"


#: Standard input as known when parsing: text, `COMPUTED`, a thunk, or None (inherited).
Feed: TypeAlias = str | Callable[[], str] | None


class UnparsableError(ValueError):
    """The command cannot be checked (the policies deny it); the message says why."""


class Word:
    """One shell word.

    Attributes:
        value: the word after quote removal, or None when bash computes it at run time.
        source: the word as written.
        code: the shell text the word stands for: ``value`` when known, else the literal
            parts' values with the computed parts as written (``rm -rf $d``).
        glob: an unquoted ``*``, ``?`` or ``[`` makes it a pathname pattern.
        feed: for a process substitution, what the inner command writes (literal text,
            `COMPUTED`), else None.
        spaced: a literal part holds blanks or shell operators: ``code`` may be a command
            line of its own.
    """

    __slots__ = ("code", "feed", "glob", "source", "spaced", "value")

    def __init__(
        self,
        value: str | None,
        source: str,
        code: str,
        glob: bool = False,
        feed: str | None = None,
        spaced: bool = False,
    ) -> None:
        self.value = value
        self.source = source
        self.code = code
        self.glob = glob
        self.feed = feed
        self.spaced = spaced

    def __repr__(self) -> str:
        return f"Word({self.value!r})" if self.value is not None else f"Word(<{self.source}>)"

    @property
    def shown(self) -> str:
        """The value, or the source of a computed word."""
        return self.source if self.value is None else self.value


class Command:
    """One simple command.

    Attributes:
        words: the program and its arguments (no assignments or redirections).
        assignments: the ``NAME=value`` words before the program, as words.
        written: the command as written, after quote removal: assignments, redirections
            (operator and target) and words, in source order.
        depth: how deep in substitutions and code strings it sits (0: the command itself).
    """

    __slots__ = ("_stdin", "_written", "assignments", "depth", "words")

    def __init__(
        self,
        words: list[Word],
        assignments: list[Word],
        written: list[str] | None,
        stdin: Feed,
        depth: int,
    ) -> None:
        self.words = words
        self.assignments = assignments
        self._written = written
        self._stdin = stdin
        self.depth = depth

    @property
    def written(self) -> list[str]:
        """The command as written (see the class docstring)."""
        written = self._written
        if written is None:
            written = self._written = [w.shown for w in self.words]
        return written

    def __repr__(self) -> str:
        return f"Command({[w.shown for w in self.words]!r})"

    @property
    def stdin(self) -> str | None:
        """What a shell reading standard input would read: literal text, `COMPUTED`, or
        None when the input does not come from this command line."""
        stdin = self._stdin
        if stdin is None or isinstance(stdin, str):
            return stdin
        try:
            value = stdin()
        except Exception:  # a producer we could not read: fail closed
            value = COMPUTED
        self._stdin = value
        return value


class Parsed:
    """The commands of one command string (see `parse`)."""

    __slots__ = ("commands", "errors")

    def __init__(self) -> None:
        self.commands: list[Command] = []
        #: Source snippets tree-sitter could not parse (empty for a well-formed command).
        self.errors: list[str] = []


# --------------------------------------------------------------------------------------
# tree-sitter, loaded on first use

#: One parser per thread: a parse calls back into Python (its read and progress
#: callbacks), so another thread may run meanwhile, and a tree-sitter parser used by two
#: threads at once crashes the process (issue 26: 8 threads, 5 crashes in 5 runs).
_PARSER = threading.local()


def _parser() -> Parser:
    parser: Parser | None = getattr(_PARSER, "parser", None)
    if parser is None:
        try:
            import tree_sitter
            import tree_sitter_bash
        except ImportError as exc:  # pragma: no cover - both are dependencies
            raise ImportError(
                "the command policies need the tree-sitter and tree-sitter-bash packages"
            ) from exc
        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        _PARSER.parser = parser
    return parser


# --------------------------------------------------------------------------------------
# Words

_BACKSLASH = re.compile(r"\\(\n|.)", re.DOTALL)
_DQ_BACKSLASH = re.compile(r"\\([$`\"\\\n])")
_GLOB = re.compile(r"[*?\[]")
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_ANSI_ESCAPE = re.compile(
    r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})"
    r"|U([0-9a-fA-F]{1,8})|c(.)|(.))",
    re.DOTALL,
)
_ANSI_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
#: Node types whose value bash computes.
_EXPANSIONS: Final = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "process_substitution",
     "arithmetic_expansion", "brace_expression"}
)  # fmt: skip
#: Node types that are words (an argument, a name, a value).
_WORDS: Final = _EXPANSIONS | frozenset(
    {"word", "string", "raw_string", "ansi_c_string", "translated_string", "concatenation",
     "number", "$"}
)  # fmt: skip


def _unescape(text: str) -> str:
    return _BACKSLASH.sub(lambda m: "" if m[1] == "\n" else m[1], text) if "\\" in text else text


def _ansi_c(body: str) -> str:
    def one(m: re.Match[str]) -> str:
        simple, octal, hex2, u4, u8, control, other = m.groups()
        if simple is not None:
            return _ANSI_SIMPLE[simple]
        if octal is not None:
            return chr(int(octal, 8) & 0xFF)
        number = hex2 or u4 or u8
        if number is not None:
            value = int(number, 16)
            return chr(value) if value < 0x110000 else "\ufffd"
        if control is not None:
            return chr(ord(control) & 0x1F)
        return "\\" + other

    return _ANSI_ESCAPE.sub(one, body)


class _Source:
    """The command text, sliced by tree-sitter's byte offsets."""

    __slots__ = ("data", "text")

    def __init__(self, text: str) -> None:
        data = text.encode("utf-8", "surrogatepass")
        self.data = data
        self.text = text if len(data) == len(text) else None

    def of(self, node: Node) -> str:
        text = self.text
        if text is not None:
            return text[node.start_byte : node.end_byte]
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------------------
# The walk

_SUBSTITUTIONS: Final = frozenset({"command_substitution", "process_substitution"})
#: A newline that no backslash continues (between two nodes: only blanks are there).
_NEWLINE: Final = re.compile(rb"(?<!\\)\n")
_PIPES: Final = frozenset({"|", "|&"})


class _TimeoutError(Exception):
    pass


class _Walk:
    """One parse: the tree walk that collects commands (see `parse`)."""

    __slots__ = ("deadline", "out", "resume", "src", "ticks")

    def __init__(self, source: _Source, deadline: float, out: Parsed) -> None:
        self.src = source
        self.deadline = deadline
        self.out = out
        self.ticks = 0
        #: Where the next here-document body may start (after the last one read).
        self.resume = 0

    def walk(self, root: Node, depth: int, feed: Feed) -> None:
        """Collect every command below ``root`` (iteratively: no depth limit here)."""
        stack: list[tuple[Node, int, Feed]] = [(root, depth, feed)]
        pop = stack.pop
        push = stack.append
        while stack:
            node, level, feed = pop()
            self.ticks += 1
            if not self.ticks & 255 and time.monotonic() > self.deadline:
                raise _TimeoutError
            kind = node.type
            if kind == "command":
                self.command(node, level, feed, ())
                continue
            if kind in _SUBSTITUTIONS:
                self.substitution(node, level, feed)
                continue
            if kind == "redirected_statement":
                self.redirected(node, level, feed)
                continue
            if kind == "pipeline":
                items: list[tuple[Node, int, Feed]] = []
                previous: Node | None = None
                for child in node.children:
                    if child.is_named:
                        items.append(
                            (child, level, feed if previous is None else self.lazy(child=previous))
                        )
                        previous = child
                    elif child.is_missing:
                        self.out.errors.append("missing " + child.type)
                items.reverse()
                stack.extend(items)
                continue
            if kind == "variable_assignment":
                self.assignment(node, level, feed)
                continue
            if kind == "declaration_command" or kind == "unset_command":
                self.declaration(node, level, feed)
                continue
            if kind == "ERROR" or node.is_missing:
                self.out.errors.append(self.src.of(node)[:80] or node.type)
            for child in reversed(node.children):
                if child.is_named:
                    push((child, level, feed))
                elif child.is_missing:
                    self.out.errors.append("missing " + child.type)

    def substitution(self, node: Node, depth: int, feed: Feed) -> None:
        depth += 1
        if depth > MAX_DEPTH:
            raise UnparsableError(f"commands nested more than {MAX_DEPTH} deep")
        text = self.src.of(node)
        if text.startswith("`") and "\\" in text:
            # Inside backticks bash drops the backslash before ` \ $ and parses again:
            # \`id\` is a nested substitution there, a word to tree-sitter.
            inner = _BACKTICK_ESCAPE.sub(r"\1", text[1:-1])
            nested = parse(inner, depth=depth, deadline=self.deadline)
            self.out.commands.extend(nested.commands)
            self.out.errors.extend(nested.errors)
            return
        for child in reversed(node.children):
            if child.is_named:
                self.walk(child, depth, feed)
            elif child.is_missing:
                self.out.errors.append("missing " + child.type)

    # -- words ---------------------------------------------------------------------------

    def word(self, node: Node, depth: int, feed: Feed) -> Word:
        """The `Word` of a word node; the substitutions inside are walked for commands."""
        kind = node.type
        source = self.src.of(node)
        if kind == "word" or kind == "number":
            if _SPECIAL.search(source) is None:
                return Word(source, source, source)
            return _plain_escaped(_unescape(source), source, _BACKSLASH.sub("", source))
        parts: list[tuple[str | None, str, bool]] = []  # (value, code, quoted)
        self._parts(node, depth, feed, parts)
        if all(p[0] is not None for p in parts):
            value = "".join([p[0] for p in parts])  # type: ignore[misc]
            return _plain_escaped(value, source, "".join([p[1] for p in parts if not p[2]]))
        code = "".join([p[1] if p[0] is None else p[0] for p in parts])
        feed_text = self.output_of_substitution(node) if kind == "process_substitution" else None
        spaced = any(p[0] is not None and _CODE_CHARS.search(p[0]) for p in parts)
        return Word(None, source, code, feed=feed_text, spaced=spaced)

    def _parts(
        self, node: Node, depth: int, feed: Feed, parts: list[tuple[str | None, str, bool]]
    ) -> None:
        kind = node.type
        if kind == "concatenation":
            for child in node.children:
                self._parts(child, depth, feed, parts)
            return
        text = self.src.of(node)
        if kind == "word" or kind == "number":
            parts.append((_unescape(text), _BACKSLASH.sub("", text), False))
        elif kind == "raw_string":
            parts.append((text[1:-1], text, True))
        elif kind == "ansi_c_string":
            parts.append((_ansi_c(text[2:-1]), text, True))
        elif kind == "string" or kind == "translated_string":
            inner = node if kind == "string" else _child_of_type(node, "string")
            if inner is None:
                parts.append((None, text, True))
            else:
                self._string(inner, depth, feed, parts)
        elif kind in _EXPANSIONS:
            self._expansion(node, depth, feed)
            parts.append((None, text, False))
        elif kind == "$":  # a lone dollar sign is itself
            parts.append(("$", text, False))
        else:  # anything else: computed, and walked for commands
            self.walk(node, depth, feed)
            parts.append((None, text, False))

    def _string(
        self, node: Node, depth: int, feed: Feed, parts: list[tuple[str | None, str, bool]]
    ) -> None:
        """A double-quoted string: literal stretches from the source, expansions walked.

        (tree-sitter's ``string_content`` nodes leave out newlines, so the literal text is
        taken between the expansions.)
        """
        data = self.src.data
        position = node.start_byte + 1
        for child in node.named_children:
            if child.type == "string_content":
                continue
            if child.start_byte > position:
                raw = data[position : child.start_byte].decode("utf-8", "surrogatepass")
                parts.append((_dq(raw), raw, True))
            self._expansion(child, depth, feed)
            parts.append((None, self.src.of(child), True))
            position = child.end_byte
        end = node.end_byte - 1
        if end > position:
            raw = data[position:end].decode("utf-8", "surrogatepass")
            parts.append((_dq(raw), raw, True))

    def _expansion(self, node: Node, depth: int, feed: Feed) -> None:
        if node.type in _SUBSTITUTIONS:
            self.substitution(node, depth, feed)
        else:
            self.walk(node, depth, feed)

    def assignment(self, node: Node, depth: int, feed: Feed) -> Word:
        """A ``NAME=value`` (walked for the commands in its value) as one word."""
        source = self.src.of(node)
        value_node = node.child_by_field_name("value")
        if value_node is None:
            return Word(source, source, source)
        prefix = self.src.data[node.start_byte : value_node.start_byte].decode(
            "utf-8", "surrogatepass"
        )
        if value_node.type == "array":
            items = [self.word(c, depth, feed) for c in value_node.named_children]
            spaced = any(w.spaced for w in items)
            return Word(None, source, " ".join([w.code for w in items]), spaced=spaced)
        value = self.word(value_node, depth, feed)
        if value.value is None:
            return Word(None, source, prefix + value.code, spaced=value.spaced)
        return Word(prefix + value.value, source, prefix + value.value, spaced=value.spaced)

    def declaration(self, node: Node, depth: int, feed: Feed) -> None:
        """``export``, ``declare``, ``local``, ``readonly``, ``typeset``, ``unset``."""
        words: list[Word] = []
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment":
                words.append(self.assignment(child, depth, feed))
            elif kind in _WORDS:
                words.append(self.word(child, depth, feed))
            elif not child.is_named or kind == "variable_name":
                words.append(_literal(self.src.of(child)))
            else:
                self.walk(child, depth, feed)
        self.out.commands.append(Command(words, [], [w.shown for w in words], feed, depth))

    # -- commands --------------------------------------------------------------------------

    def command(self, node: Node, depth: int, feed: Feed, redirects: Any) -> Command:
        words: list[Word] = []
        assignments: list[Word] = []
        written: list[str] | None = None  # built only when there is more than words
        stdin = feed
        previous = -1
        of = self.src.of
        data = self.src.data
        end = node.start_byte  # where the previous child ended
        for child in node.children:
            kind = child.type
            if words and _NEWLINE.search(data, end, child.start_byte) is not None:
                # tree-sitter-bash reads ``a | b | c <newline> d && e`` as ``c d``: an
                # unescaped newline between two words ends a command in bash, so the rest is
                # another command (its first word the name).
                self.out.commands.append(Command(words, assignments, written, stdin, depth))
                words, assignments, written, stdin, previous = [], [], None, feed, -1
            end = child.end_byte
            if kind == "command_name":
                first = child.child(0) if child.child_count == 1 else None
                inner = child if first is None else first
                if inner.type == "word":
                    text = of(inner)
                    word = (
                        _plain(text)
                        if _SPECIAL.search(text) is None
                        else self.word(inner, depth, feed)
                    )
                else:
                    word = self.word(inner, depth, feed)
            elif kind == "word":
                text = of(child)
                word = (
                    _plain(text) if _SPECIAL.search(text) is None else self.word(child, depth, feed)
                )
            elif kind in _WORDS:
                word = self.word(child, depth, feed)
            elif kind == "variable_assignment":
                word = self.assignment(child, depth, feed)
                assignments.append(word)
                if written is None:
                    written = [w.shown for w in words]
                written.append(word.shown)
                previous = -1
                continue
            elif kind.endswith("_redirect"):
                if written is None:
                    written = [w.shown for w in words]
                stdin = self.redirect(child, depth, feed, written, stdin, node)
                previous = -1
                continue
            elif kind == "comment":
                continue
            else:
                self.walk(child, depth, feed)
                text = of(child)
                word = Word(None, text, text)
            if previous == child.start_byte and words:
                # tree-sitter splits some single words (``$"..."``): join them back.
                word = _join(words.pop(), word)
                if written is not None:
                    written.pop()
            words.append(word)
            if written is not None:
                written.append(word.shown)
            previous = child.end_byte
        if redirects:
            if written is None:
                written = [w.shown for w in words]
            owner = node.parent or node
            for redirect in redirects:
                stdin = self.redirect(redirect, depth, feed, written, stdin, owner)
        command = Command(words, assignments, written, stdin, depth)
        self.out.commands.append(command)
        return command

    def redirected(self, node: Node, depth: int, feed: Feed) -> None:
        body = node.child_by_field_name("body")
        redirects = node.children_by_field_name("redirect")
        if body is not None and body.type == "command":
            self.command(body, depth, feed, redirects)
            return
        written: list[str] = []
        stdin = feed
        for redirect in redirects:
            stdin = self.redirect(redirect, depth, feed, written, stdin, node)
        if body is not None:
            self.walk(body, depth, stdin)

    def redirect(
        self, node: Node, depth: int, feed: Feed, written: list[str], stdin: Feed, owner: Node
    ) -> Feed:
        """Record one redirection in ``written``; returns the standard input after it."""
        operator = ""
        target: Word | None = None
        heredoc: str | None = None
        if node.type == "heredoc_redirect":
            self.check_heredoc(node)
        for child in node.children:
            kind = child.type
            if not child.is_named:
                if child.is_missing:
                    self.out.errors.append("missing " + kind)
                operator += self.src.of(child)
            elif kind == "file_descriptor":
                operator = self.src.of(child) + operator
            elif kind == "heredoc_start":
                operator += self.src.of(child)
            elif kind == "heredoc_body":
                heredoc = self.heredoc(node, child, depth, feed)
            elif kind == "heredoc_end" or kind == "heredoc_content":
                continue
            elif kind in _WORDS and target is None:
                target = self.word(child, depth, feed)
            elif kind == "pipeline":  # ``cat <<EOF | sh``: the pipeline hangs off the here-doc
                self.walk(child, depth, self.lazy(child=owner))
            else:
                self.walk(child, depth, feed)
        written.append(operator)
        if target is not None:
            written.append(target.shown)
        if operator[:1].isdigit() and not operator.startswith("0"):
            return stdin  # another descriptor
        kind = node.type
        if kind == "heredoc_redirect":
            return heredoc if heredoc is not None else COMPUTED
        if kind == "herestring_redirect":
            if target is None or target.value is None:
                return COMPUTED
            return target.value + "\n"
        if target is not None and operator.lstrip("0") in ("<", "<>"):
            if target.feed is not None:
                return target.feed
            if target.value is None or _is_stdin_path(target.value):
                return COMPUTED
            return FILE
        return stdin

    def check_heredoc(self, node: Node) -> None:
        """Hold tree-sitter's reading of a here-document against bash's rule.

        bash reads a body from the line after the command line (after the bodies before it)
        up to the delimiter line. tree-sitter sometimes reads a body as words instead (one
        that starts with a backslash, say); such a command is refused, not misread.
        """
        start = end = None
        for child in node.children:
            kind = child.type
            if kind == "heredoc_start":
                start = child
            elif kind == "heredoc_end":
                end = child
            elif kind in _WORDS:
                self.out.errors.append("a here-document the parser misreads")
                return
        if start is None or end is None:
            self.out.errors.append("an unterminated here-document")
            return
        data = self.src.data
        line_end = data.find(b"\n", start.end_byte)
        if line_end < 0:
            self.out.errors.append("an unterminated here-document")
            return
        first = max(line_end + 1, self.resume)
        last = data.rfind(b"\n", 0, end.start_byte) + 1  # the delimiter line (``<<-``: tabs)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        if body is None:
            ok = first == last
        elif any(not c.is_named and c.type == "<<-" for c in node.children):
            # ``<<-``: tree-sitter's body leaves out the first line's tabs, keeps the last's
            ok = (
                first <= body.start_byte
                and not data[first : body.start_byte].strip(b"\t")
                and last <= body.end_byte <= end.start_byte
                and not data[last : end.start_byte].strip(b"\t")
            )
        else:  # tree-sitter's body leaves out the first line's leading blanks
            ok = (
                first <= body.start_byte
                and not data[first : body.start_byte].strip(b" \t")
                and body.end_byte == last
            )
        if not ok:
            self.out.errors.append("a here-document the parser misreads")
        self.resume = end.end_byte + 1

    def heredoc(self, redirect: Node, body: Node, depth: int, feed: Feed) -> str:
        """A here-document's text (`COMPUTED` when it expands something)."""
        quoted = False
        strip_tabs = False
        for child in redirect.children:
            if child.type == "heredoc_start":
                quoted = any(c in self.src.of(child) for c in "'\"\\")
            elif not child.is_named and self.src.of(child) == "<<-":
                strip_tabs = True
        computed = False
        for child in body.named_children:
            if child.type != "heredoc_content":
                self._expansion(child, depth, feed)
                computed = True
        text = self.src.of(body)
        if strip_tabs:
            text = "\n".join([line.lstrip("\t") for line in text.split("\n")])
        if quoted:
            return text
        if computed:
            return COMPUTED
        return _HEREDOC_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], text)

    # -- what a command writes ---------------------------------------------------------------

    def lazy(self, *, child: Node) -> Callable[[], str]:
        """A thunk for what ``child`` writes (computed only when a shell reads it)."""
        return lambda: _output(self, child)

    def output_of_substitution(self, node: Node) -> str:
        inner = node.named_children
        if len(inner) != 1:
            return COMPUTED
        return _output(self, inner[0])


#: Standard input read from a file named on the command line (a script: not seen).
FILE: Final = "\0file"
_BACKTICK_ESCAPE = re.compile(r"\\([`\\$])")
_HEREDOC_ESCAPE = re.compile(r"\\([$`\\\n])")


def _dq(raw: str) -> str:
    """A double-quoted stretch without expansions, after quote removal."""
    if "\\" not in raw:
        return raw
    return _DQ_BACKSLASH.sub(lambda m: "" if m[1] == "\n" else m[1], raw)


#: Characters that make a string worth reading as a command line.
_CODE_CHARS: Final = re.compile(r"[\s;&|<>()`]")
#: A word without these is its own value.
_SPECIAL = re.compile(r"[\\*?\[{]")


def _plain(text: str) -> Word:
    return Word(text, text, text)


def _plain_escaped(value: str, source: str, unquoted: str) -> Word:
    spaced = _CODE_CHARS.search(value) is not None
    if "{" in unquoted and _BRACE.search(unquoted):
        return Word(None, source, value, spaced=spaced)  # brace expansion: several words
    glob = ("*" in unquoted or "?" in unquoted or "[" in unquoted) and bool(_GLOB.search(unquoted))
    return Word(value, source, value, glob=glob, spaced=spaced)


def _child_of_type(node: Node, kind: str) -> Node | None:
    for child in node.children:
        if child.type == kind:
            return child
    return None


def _literal(text: str) -> Word:
    return Word(text, text, text)


def _join(first: Word, second: Word) -> Word:
    source = first.source + second.source
    spaced = first.spaced or second.spaced
    if first.value is not None and second.value is not None:
        # ``$"..."`` is a translated string: the string itself.
        value = second.value if first.value == "$" else first.value + second.value
        return Word(value, source, value, glob=first.glob or second.glob, spaced=spaced)
    return Word(None, source, first.code + second.code, spaced=spaced)


def _is_stdin_path(path: str) -> bool:
    return path in ("-", "/dev/stdin", "/dev/fd/0") or path.startswith(
        ("/proc/self/fd/0", "/proc/thread-self/fd/0")
    )


# --------------------------------------------------------------------------------------
# What a producer writes

_ECHO_OPTIONS = re.compile(r"-[neE]+")
_PRINTF_DIRECTIVE = re.compile(r"%(%|[-+ #0]*[0-9]*(?:\.[0-9]*)?([sbcdiqu]))")


def _output(walk: _Walk, node: Node) -> str:
    """What ``node`` writes when that is literal (``echo``, ``printf``, ``cat`` of a
    here-document or here-string), else `COMPUTED`."""
    probe = _Walk(walk.src, walk.deadline, Parsed())
    kind = node.type
    if kind == "redirected_statement":
        body = node.child_by_field_name("body")
        if body is None or body.type != "command":
            return COMPUTED
        command = probe.command(body, 0, None, node.children_by_field_name("redirect"))
    elif kind == "command":
        command = probe.command(node, 0, None, ())
    else:
        return COMPUTED
    values = [w.value for w in command.words]
    if not values or None in values:
        return COMPUTED
    program = values[0].rsplit("/", 1)[-1]  # type: ignore[union-attr]
    args: list[str] = values[1:]  # type: ignore[assignment]
    stdin = command.stdin
    if program == "cat" and not args:
        return COMPUTED if stdin is None or stdin == FILE else stdin
    if program == "echo":
        while args and _ECHO_OPTIONS.fullmatch(args[0]):
            args = args[1:]
        text = " ".join(args) + "\n"
        # dash's echo reads escapes always, bash's with -e: both readings are scanned.
        return text if "\\" not in text else text + _ansi_c(text)
    if program == "printf" and args:
        if args[0] == "--":
            args = args[1:]
        return _printf(args) if args else COMPUTED
    return COMPUTED


def _printf(args: list[str]) -> str:
    form, rest = args[0], list(args[1:])
    if "%" in _PRINTF_DIRECTIVE.sub("", form):
        return COMPUTED  # a directive we do not read
    out: list[str] = []
    for _ in range(64):
        pieces: list[str] = []
        position = 0
        for m in _PRINTF_DIRECTIVE.finditer(form):
            pieces.append(_ansi_c(form[position : m.start()]))
            position = m.end()
            if m[1] == "%":
                pieces.append("%")
            else:
                value = rest.pop(0) if rest else ""
                pieces.append(_ansi_c(value) if m[2] == "b" else value)
        pieces.append(_ansi_c(form[position:]))
        out.append("".join(pieces))
        if not rest or not _PRINTF_DIRECTIVE.search(form):
            return "".join(out)
    return COMPUTED


# --------------------------------------------------------------------------------------
# parse

TOO_COMPLEX = "the command is too complex to check in time"
#: Text that is one command of words with nothing for the shell to expand or split on.
_PLAIN_TEXT = re.compile(r"[A-Za-z0-9_\-./,:=+@%^ \t]*")
_LEADING_ASSIGNMENT = re.compile(r"[ \t]*[A-Za-z_][A-Za-z0-9_]*\+?=")


def _first_error(root: Node, source: _Source) -> str:
    """The text of the first node tree-sitter could not parse (or was missing)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return source.of(node)[:80] or "missing " + node.type
        stack.extend(c for c in reversed(node.children) if c.has_error or c.is_missing)
    return source.text[:80] if source.text is not None else "?"


def parse(text: str, *, depth: int = 0, deadline: float) -> Parsed:
    """The commands of ``text`` (see the module docstring).

    Args:
        text: the command string.
        depth: how deeply ``text`` itself is nested (a substitution or code string).
        deadline: a `time.monotonic` value past which parsing stops.

    Raises:
        UnparsableError: nesting beyond `MAX_DEPTH`, or past the deadline.
    """
    if depth > MAX_DEPTH:
        raise UnparsableError(f"commands nested more than {MAX_DEPTH} deep")
    if time.monotonic() > deadline:
        raise UnparsableError(TOO_COMPLEX)
    if _PLAIN_TEXT.fullmatch(text) and not _LEADING_ASSIGNMENT.match(text):
        # One command of plain words (the common string argument): no parser needed.
        out = Parsed()
        words = [Word(w, w, w) for w in text.split()]
        if words:
            out.commands.append(Command(words, [], None, None, depth))
        return out
    source = _Source(text)
    data = source.data

    def read(offset: int, _point: Any) -> bytes:
        return data[offset : offset + 65536]

    def progress(*_state: Any) -> bool:
        return time.monotonic() > deadline

    try:
        tree = _parser().parse(read, progress_callback=progress)
    except ValueError:
        raise UnparsableError(TOO_COMPLEX) from None
    out = Parsed()
    root = tree.root_node
    if root.has_error:
        out.errors.append(_first_error(root, source))
    try:
        _Walk(source, deadline, out).walk(root, depth, None)
    except _TimeoutError:
        raise UnparsableError(TOO_COMPLEX) from None
    except RecursionError:
        raise UnparsableError("the command nests too deeply to check") from None
    return out
