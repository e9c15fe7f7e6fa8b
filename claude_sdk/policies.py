"""Composable permission policies: decide tool calls from rules, fail closed.

A `Policy` looks at one tool call and returns a `Decision`: ``allow``, ``deny`` or
``continue`` (no opinion). Policies compose with `chain` and are used in three ways:

* directly: ``policy.decide(tool_name, tool_input) -> Decision``;
* as a PreToolUse hook: ``Options(hooks={"PreToolUse": [policy.as_hook_matcher()]})``. A deny
  is ``permissionDecision: "deny"`` with the reason, an allow is ``"allow"`` (with
  ``updatedInput`` when the policy rewrote the input), and no decision is ``{}``: the CLI's
  own permission rules apply;
* as ``can_use_tool``: ``Options(can_use_tool=policy.as_can_use_tool())``. A deny is
  `PermissionDeny` with the reason, an allow is `PermissionAllow` (with the rewritten input),
  and no decision is a deny unless ``default="allow"`` (or a `PermissionResult`) is given.

The policies:

* `deny_commands` denies a Bash call when any of its sub-commands matches a pattern;
  `require_command` denies it unless every sub-command matches one.
* `allow_paths` denies a file tool (`FILE_TOOLS`) outside the given trees, `deny_paths` inside
  them, and `redirect_path` rewrites paths under one tree to another (an allow with a new
  input).
* `chain` evaluates policies in order: the first deny wins, an allow short-circuits, and a
  chain in which nothing decided continues (or returns its ``default``).

Invariants (each is tested):

* **Fail closed.** A command that cannot be parsed (unbalanced quotes or parentheses, an
  unterminated ``$(``, nesting deeper than 16, more than 200,000 characters outside
  here-documents, or too complex to scan quickly) is denied by both command policies; a
  path that is not a string, cannot be resolved, or a Glob pattern that climbs with ``..``
  after a wildcard is denied by the path policies. Tools a policy is not about pass through
  it (``continue``).
* **Commands are parsed, not searched.** A bash-aware pre-pass removes line continuations,
  comments and here-document bodies, decodes ``$'...'``, turns newlines into ``;`` and lifts
  every ``$(...)`` and backtick substitution (also inside double quotes, ``${...}``,
  arithmetic and unquoted here-documents) out as a command of its own; `shlex` (punctuation
  mode) then splits the rest into sub-commands at ``;``, ``&&``, ``||``, ``|``, ``&`` and
  parentheses (subshells, ``<(...)``).
  Quotes and escapes are removed the way the shell removes them (``'rm' -rf`` is ``rm -rf``).
* **Each command policy errs towards deny.** `deny_commands` matches loosely: it looks
  through leading ``VAR=value`` assignments, redirections, wrappers (``sudo``, ``env``,
  ``command``, ``xargs``, ``timeout``, ``nohup``, ``find -exec`` and others), into
  ``sh -c``/``bash -c`` strings and ``eval``, compares the program by basename
  (``/bin/rm``), and finds a pattern's arguments anywhere in the command (``rm -r -f``,
  ``rm -fr``, ``git push origin main --force``). `require_command` matches strictly: the
  sub-command as written must start with the pattern's words (or fully match its regular
  expression), so ``sudo git status`` or ``FOO=1 git status`` does not match ``git status``.
* **Paths are resolved before they are compared**: ``~`` is expanded, a relative path is
  joined to the working directory (the hook input's ``cwd``, else the policy's ``cwd``, else
  the process's), and `os.path.realpath` removes ``..`` and follows symlinks, so a symlink
  inside an allowed tree that points outside is outside. A directory reached under another
  name (a bind mount, a case-insensitive file system) or a hard link to a denied file is
  recognised by its inode. Glob and Grep, which search below their path, are denied by
  `deny_paths` when a denied tree lies below the searched directory.

Limits: a deny list cannot see through what the shell computes at run time (``$cmd``,
aliases, functions, scripts, ``python -c``); use `require_command` to allow a known set
instead. Paths are checked when the call is decided; a symlink swapped in afterwards is the
sandbox's business, not a policy's.
"""

from __future__ import annotations

import abc
import os
import re
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

import attrs

from .hooks import HookContext, HookMatcher, HookOutput, PreToolUseInput, PreToolUseOutput
from .permissions import PermissionAllow, PermissionDeny, PermissionResult, ToolPermissionContext

__all__ = [
    "Decision",
    "DecisionKind",
    "Policy",
    "Chain",
    "DenyCommands",
    "RequireCommand",
    "AllowPaths",
    "DenyPaths",
    "RedirectPath",
    "PolicyHook",
    "PolicyCanUseTool",
    "chain",
    "deny_commands",
    "require_command",
    "allow_paths",
    "deny_paths",
    "redirect_path",
    "COMMAND_TOOLS",
    "FILE_TOOLS",
]

#: What a policy can decide.
DecisionKind = Literal["allow", "deny", "continue"]

#: The tools whose ``command`` the command policies check.
COMMAND_TOOLS: frozenset[str] = frozenset({"Bash"})

#: The tools whose ``file_path``, ``notebook_path`` or ``path`` the path policies check.
FILE_TOOLS: frozenset[str] = frozenset(
    {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS"}
)

#: Tools that search below their ``path``, which defaults to the working directory.
_SEARCH_TOOLS = frozenset({"Glob", "Grep"})
_PATH_KEYS = ("file_path", "notebook_path", "path")


@attrs.frozen(kw_only=True)
class Decision:
    """What a policy decided about one tool call.

    Attributes:
        kind: ``allow`` (run it), ``deny`` (refuse it) or ``continue`` (no opinion).
        reason: why, in words (a deny's reason is what the model sees).
        updated_input: the input to run the tool with instead (an allow of `redirect_path`).
        policy: the name of the policy that decided, e.g. ``deny_commands('rm -rf')``.
    """

    kind: DecisionKind
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    policy: str = ""

    @classmethod
    def allow(
        cls, reason: str = "", *, updated_input: dict[str, Any] | None = None, policy: str = ""
    ) -> Decision:
        """An allow."""
        return cls(kind="allow", reason=reason, updated_input=updated_input, policy=policy)

    @classmethod
    def deny(cls, reason: str, *, policy: str = "") -> Decision:
        """A deny; ``reason`` is shown to the model."""
        return cls(kind="deny", reason=reason, policy=policy)

    @classmethod
    def continue_(cls, reason: str = "", *, policy: str = "") -> Decision:
        """No opinion: the next policy (or the CLI's own rules) decides."""
        return cls(kind="continue", reason=reason, policy=policy)


class Policy(abc.ABC):
    """A rule for tool calls. Subclass it and implement `decide` for a policy of your own."""

    __slots__ = ()

    #: Names the policy in a `Decision`.
    name: str

    @abc.abstractmethod
    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        """Decide one tool call.

        Args:
            tool_name: the tool's name (``Bash``, ``Read``, ``mcp__server__tool``, ...).
            tool_input: the tool's input as the CLI sent it.
            cwd: the CLI's working directory, when known (a hook input's ``cwd``); relative
                paths are resolved against it first.
        """

    def as_hook_matcher(
        self, matcher: str | None = None, *, timeout: float | None = None
    ) -> HookMatcher:
        """A PreToolUse `HookMatcher` running this policy (for ``matcher`` tools, or all)."""
        return HookMatcher(matcher=matcher, hooks=(PolicyHook(self),), timeout=timeout)

    def as_can_use_tool(
        self,
        default: Literal["allow", "deny"] | PermissionResult | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
    ) -> PolicyCanUseTool:
        """A ``can_use_tool`` callback running this policy.

        Args:
            default: the answer when the policy does not decide: None or ``"deny"`` denies
                (fail closed), ``"allow"`` allows, a `PermissionResult` is returned as is.
            cwd: the directory relative paths are resolved against (``can_use_tool`` is not
                told the CLI's): pass ``Options.cwd`` when you set it.
        """
        return PolicyCanUseTool(self, default=default, cwd=None if cwd is None else os.fspath(cwd))


# ======================================================================================
# Adapters: hook and can_use_tool


@attrs.frozen
class PolicyHook:
    """A PreToolUse hook callback running a policy: ``await hook(hook_input, context)``."""

    policy: Policy

    async def __call__(self, hook_input: Any, context: HookContext) -> HookOutput:
        """Answer the hook (the session awaits this)."""
        return self.output(hook_input)

    def output(self, hook_input: Any) -> HookOutput:
        """The hook's answer for ``hook_input``, synchronously.

        Raises:
            TypeError: ``hook_input`` is not a `PreToolUseInput`; registered for another
                event, the hook fails (and a failing permission hook denies).
        """
        if not isinstance(hook_input, PreToolUseInput):
            raise TypeError(
                f"a policy hook answers PreToolUse, not {type(hook_input).__name__}; "
                "register it under 'PreToolUse'"
            )
        decision = self.policy.decide(
            hook_input.tool_name, hook_input.tool_input, cwd=hook_input.cwd
        )
        if decision.kind == "continue":
            return HookOutput()
        return HookOutput(
            specific=PreToolUseOutput(
                permission_decision=decision.kind,
                permission_decision_reason=decision.reason or None,
                updated_input=decision.updated_input if decision.kind == "allow" else None,
            )
        )


@attrs.frozen
class PolicyCanUseTool:
    """A ``can_use_tool`` callback running a policy: ``await cb(tool_name, input, context)``.

    Attributes:
        policy: the policy.
        default: the answer when the policy does not decide (see `Policy.as_can_use_tool`).
        cwd: the directory relative paths are resolved against.
    """

    policy: Policy
    default: Literal["allow", "deny"] | PermissionResult | None = attrs.field(
        default=None, kw_only=True
    )
    cwd: str | None = attrs.field(default=None, kw_only=True)

    @default.validator
    def _check_default(self, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is None or value in ("allow", "deny"):
            return
        if not isinstance(value, (PermissionAllow, PermissionDeny)):
            raise TypeError(
                f"default must be 'allow', 'deny', a PermissionResult or None, not {value!r}"
            )

    async def __call__(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        """Answer ``can_use_tool`` (the session awaits this)."""
        return self.result(tool_name, tool_input)

    def result(self, tool_name: str, tool_input: Mapping[str, Any]) -> PermissionResult:
        """The answer for one tool call, synchronously."""
        decision = self.policy.decide(tool_name, tool_input, cwd=self.cwd)
        if decision.kind == "allow":
            updated = decision.updated_input
            return PermissionAllow(updated_input=dict(tool_input) if updated is None else updated)
        if decision.kind == "deny":
            return PermissionDeny(message=decision.reason or f"{tool_name} denied by policy")
        default = self.default
        if default == "allow":
            return PermissionAllow(updated_input=dict(tool_input))
        if isinstance(default, (PermissionAllow, PermissionDeny)):
            return default
        return PermissionDeny(
            message=f"no policy allowed {tool_name} (denied by default; {self.policy.name})"
        )


# ======================================================================================
# chain


@attrs.frozen
class Chain(Policy):
    """Policies evaluated in order; see `chain`."""

    policies: tuple[Policy, ...]
    default: Literal["allow", "deny"] | None = None
    name: str = ""

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        for policy in self.policies:
            decision = policy.decide(tool_name, tool_input, cwd=cwd)
            if decision.kind != "continue":
                return decision
        if self.default is not None:
            return Decision(
                kind=self.default,
                reason=f"no policy decided {tool_name}; the chain's default is {self.default}",
                policy=self.name,
            )
        return Decision.continue_(f"no policy decided {tool_name}", policy=self.name)


def chain(
    *policies: Policy, default: Literal["allow", "deny"] | None = None, name: str | None = None
) -> Chain:
    """Evaluate ``policies`` in order: the first deny wins and an allow short-circuits.

    A ``continue`` passes the call to the next policy; when every policy continued, the chain
    continues, or returns ``default`` (``"allow"`` or ``"deny"``). Policies see the call as it
    came: put `redirect_path` after the policies that must check the original path.
    """
    for policy in policies:
        if not isinstance(policy, Policy):
            raise TypeError(f"chain() takes policies, not {policy!r}")
    if default not in (None, "allow", "deny"):
        raise ValueError(f"default must be 'allow', 'deny' or None, not {default!r}")
    if name is None:
        name = f"chain({', '.join(p.name for p in policies)})"
    return Chain(tuple(policies), default, name)


# ======================================================================================
# Command policies

CommandPattern = str | re.Pattern[str]


@attrs.frozen
class _Pattern:
    """A compiled command pattern: words (a prefix) or a regular expression."""

    source: CommandPattern
    words: tuple[str, ...] = ()

    @classmethod
    def of(cls, pattern: object) -> _Pattern:
        if isinstance(pattern, re.Pattern):
            return cls(pattern)
        if not isinstance(pattern, str):
            raise TypeError(f"a command pattern is a str or re.Pattern, not {pattern!r}")
        try:
            words = _tokens(pattern)
        except _UnparsableError as exc:
            raise ValueError(f"cannot parse the command pattern {pattern!r}: {exc}") from None
        if not words:
            raise ValueError(f"empty command pattern {pattern!r}")
        if any(_is_separator(w) or w in _REDIRECTIONS for w in words):
            raise ValueError(
                f"the command pattern {pattern!r} has an operator; a pattern matches one "
                "sub-command (use a separate pattern per command)"
            )
        return cls(pattern, tuple(words))

    def __str__(self) -> str:
        if isinstance(self.source, re.Pattern):
            return f"re.compile({self.source.pattern!r})"
        return repr(self.source)

    def loose(self, view: Sequence[str]) -> bool:
        """Does ``view`` (a sub-command seen through wrappers) contain this pattern?"""
        if isinstance(self.source, re.Pattern):
            return self.source.search(" ".join(view)) is not None
        first, *rest = self.words
        if not view or (view[0] != first and _program(view[0]) != first):
            return False
        args = list(view[1:])
        options = args[: args.index("--")] if "--" in args else args
        flags = {c for a in options if _SHORT_OPTIONS.fullmatch(a) for c in a[1:]}
        return all(_has_word(word, args, options, flags) for word in rest)

    def strict(self, words: Sequence[str]) -> bool:
        """Does the sub-command ``words``, as written, match this pattern?"""
        if isinstance(self.source, re.Pattern):
            return self.source.fullmatch(_show(words)) is not None
        return tuple(words[: len(self.words)]) == self.words


def _has_word(word: str, args: list[str], options: list[str], flags: set[str]) -> bool:
    """Is the pattern word among a command's arguments (an option among its options)?"""
    if not word.startswith("-") or word == "-":
        return word in args
    if word in options:
        return True
    if _SHORT_OPTIONS.fullmatch(word):
        return set(word[1:]) <= flags
    return word.startswith("--") and any(a.startswith(word + "=") for a in options)


def _describe_patterns(kind: str, patterns: Sequence[_Pattern]) -> str:
    return f"{kind}({', '.join(str(p) for p in patterns)})"


@attrs.frozen
class DenyCommands(Policy):
    """Deny Bash calls with a sub-command matching a pattern; see `deny_commands`."""

    patterns: tuple[_Pattern, ...]
    tools: frozenset[str] = COMMAND_TOOLS
    name: str = ""

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a command tool", policy=self.name)
        command = tool_input.get("command")
        if not isinstance(command, str):
            return Decision.deny(f"{tool_name} has no command string", policy=self.name)
        try:
            for sub in _parse(command):
                for view in _views(sub, 0):
                    for pattern in self.patterns:
                        if pattern.loose(view):
                            return Decision.deny(
                                f"the command {_show(view)!r} matches the denied pattern {pattern}",
                                policy=self.name,
                            )
        except _UnparsableError as exc:
            return Decision.deny(
                f"cannot parse the command, so it is denied: {exc}", policy=self.name
            )
        return Decision.continue_("no denied command", policy=self.name)


@attrs.frozen
class RequireCommand(Policy):
    """Allow Bash only when every sub-command matches a pattern; see `require_command`."""

    patterns: tuple[_Pattern, ...]
    allow: bool = False
    tools: frozenset[str] = COMMAND_TOOLS
    name: str = ""

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a command tool", policy=self.name)
        command = tool_input.get("command")
        if not isinstance(command, str):
            return Decision.deny(f"{tool_name} has no command string", policy=self.name)
        try:
            subs = _parse(command)
        except _UnparsableError as exc:
            return Decision.deny(
                f"cannot parse the command, so it is denied: {exc}", policy=self.name
            )
        for sub in subs:
            words = _strip_keywords(sub)
            if words and not any(p.strict(words) for p in self.patterns):
                allowed = ", ".join(str(p) for p in self.patterns)
                return Decision.deny(
                    f"the command {_show(words)!r} is not allowed (allowed: {allowed})",
                    policy=self.name,
                )
        if self.allow:
            return Decision.allow("every command is allowed", policy=self.name)
        return Decision.continue_("every command is allowed", policy=self.name)


def deny_commands(
    *patterns: CommandPattern, tools: Iterable[str] = COMMAND_TOOLS, name: str | None = None
) -> DenyCommands:
    """Deny a Bash call when any of its sub-commands matches one of ``patterns``.

    A string pattern is a command prefix (``"rm -rf"``, ``"git push --force"``), matched
    loosely so that it errs towards deny: the program is compared by basename and the other
    words may appear anywhere among the arguments, short-option clusters by letter (``-rf``
    matches ``-fr``, ``-r -f``, ``-rfv``), long options also as ``--opt=value``. A compiled
    regular expression is searched in the sub-command, its words joined by spaces. Every
    sub-command is also matched as seen through leading assignments, redirections and
    wrappers (``sudo``, ``env``, ``xargs``, ``find -exec``, ...), and ``sh -c`` / ``eval``
    strings are parsed as commands. An unparsable command is denied; calls of other tools
    continue.
    """
    compiled = tuple(_Pattern.of(p) for p in patterns)
    if not compiled:
        raise ValueError("deny_commands() needs at least one pattern")
    if name is None:
        name = _describe_patterns("deny_commands", compiled)
    return DenyCommands(compiled, frozenset(tools), name)


def require_command(
    *patterns: CommandPattern,
    allow: bool = False,
    tools: Iterable[str] = COMMAND_TOOLS,
    name: str | None = None,
) -> RequireCommand:
    """Deny a Bash call unless every sub-command matches one of ``patterns``.

    Matching is strict, so that it errs towards deny: a string pattern's words must be the
    first words of the sub-command as written (after quote removal), a regular expression
    must match the whole sub-command (`re.fullmatch`; words that need quoting are
    shell-quoted). Leading reserved words (``if``, ``then``, ``do``, ``!``, ``{``, ...) are
    skipped, but assignments and wrappers are part of the command: ``sudo git status`` does
    not match ``git status``. Substitutions (``$(...)``, backticks) are sub-commands too. When
    every sub-command matches, the policy continues, or allows with ``allow=True``. An
    unparsable command is denied; calls of other tools continue.
    """
    compiled = tuple(_Pattern.of(p) for p in patterns)
    if not compiled:
        raise ValueError("require_command() needs at least one pattern")
    if name is None:
        name = _describe_patterns("require_command", compiled)
        if allow:
            name = f"{name[:-1]}, allow=True)"
    return RequireCommand(compiled, allow, frozenset(tools), name)


# --------------------------------------------------------------------------------------
# Parsing commands


class _UnparsableError(ValueError):
    """The command cannot be parsed (the policies deny it)."""


class _LimitError(_UnparsableError):
    """The command nests too deeply or takes too long to scan (never retried)."""


#: Nesting of substitutions and ``sh -c`` strings beyond this is refused.
_MAX_DEPTH = 16
#: Scanning steps allowed per command: a base plus some per character.
_BUDGET_BASE = 100_000
_BUDGET_PER_CHAR = 20
#: Longest command text (without here-document bodies) that is split into words.
_MAX_TEXT = 200_000
#: What a substitution leaves in the command it was lifted from.
_PLACEHOLDER = "`...`"
_OPERATOR_CHARS = frozenset("();<>|&")
_REDIRECTIONS = frozenset({"<", ">", ">>", "<<", "<<<", ">&", "<&", "&>", "&>>", ">|", "<>"})
_SHORT_OPTIONS = re.compile(r"-[A-Za-z0-9]+")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_FD = re.compile(r"[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\}")
_CASE_WORD = re.compile(r"(case|esac)(?=[\s;&|()<>]|$)")
_SIMPLE_PARAMETER = re.compile(r"[\w#:%/.,@^~!*?+=-]*")
_ANSI_ESCAPE = re.compile(
    r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})"
    r"|U([0-9a-fA-F]{1,8})|c(.)|(.))",
    re.DOTALL,
)
_ANSI_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip

#: Reserved words that may start a sub-command (skipped by `require_command`).
_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
                       "!", "{", "}", "time"})  # fmt: skip
#: Programs that run their arguments as a command (`deny_commands` looks through them).
_WRAPPERS = _KEYWORDS | frozenset({
    "sudo", "doas", "command", "builtin", "exec", "env", "nohup", "nice", "ionice", "timeout",
    "stdbuf", "xargs", "setsid", "chroot", "unbuffer", "coproc", "watch", "busybox", "strace",
    "ltrace", "nsenter", "flock", "chronic", "time", "caffeinate",
})  # fmt: skip
#: Programs whose ``-c`` argument is shell code.
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "su"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _program(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _is_separator(token: str) -> bool:
    return bool(token) and token not in _REDIRECTIONS and set(token) <= _OPERATOR_CHARS


def _show(words: Sequence[str]) -> str:
    """A sub-command as shell text (operators bare, other words quoted when needed)."""
    return " ".join(w if w and set(w) <= _OPERATOR_CHARS else shlex.quote(w) for w in words)


def _tokens(text: str) -> list[str]:
    if len(text) > _MAX_TEXT:
        # shlex builds a word a character at a time (quadratic in the word's length).
        raise _LimitError(f"the command is too long to check ({len(text)} characters)")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # the pre-pass removed the real comments
    try:
        return list(lexer)
    except ValueError as exc:
        raise _UnparsableError(str(exc)) from None


def _parse(command: str, depth: int = 0) -> list[list[str]]:
    """The sub-commands of ``command``, each a list of words (quotes removed)."""
    scanner = _Scanner(command, depth)
    texts = [scanner.command(None), *scanner.texts]
    subs: list[list[str]] = []
    for text in texts:
        current: list[str] = []
        for token in _tokens(text):
            if _is_separator(token):
                if current:
                    subs.append(current)
                current = []
            else:
                current.append(token)
        if current:
            subs.append(current)
    return subs


class _Scanner:
    """The bash-aware pre-pass over one command string (see the module docstring).

    `command` returns the command with substitutions replaced by a placeholder word, newlines
    by ``;``, and comments, line continuations and here-document bodies removed; the text of
    every substitution found (at any depth) is appended to `texts`.
    """

    def __init__(self, src: str, depth: int, budget: list[int] | None = None) -> None:
        if depth > _MAX_DEPTH:
            raise _LimitError(f"commands nested more than {_MAX_DEPTH} deep")
        self.src = src
        self.pos = 0
        self.depth = depth
        self.texts: list[str] = []
        # Steps left, shared with the scanners of nested texts: trying ``((`` as arithmetic
        # and falling back can rescan text, so adversarial input could take quadratic time.
        self.budget = [_BUDGET_BASE + _BUDGET_PER_CHAR * len(src)] if budget is None else budget

    def _step(self) -> None:
        self.budget[0] -= 1
        if self.budget[0] < 0:
            raise _LimitError("the command is too complex to check")

    def _descend(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _LimitError(f"commands nested more than {_MAX_DEPTH} deep")

    def _nested(self, text: str) -> None:
        """Scan ``text`` as a command of its own, one level deeper."""
        inner = _Scanner(text, self.depth + 1, self.budget)
        self.texts.append(inner.command(None))
        self.texts.extend(inner.texts)

    def command(self, close: str | None) -> str:
        """Scan a command list up to ``close`` (``")"`` ends a ``$(``) or the end."""
        src = self.src
        out: list[str] = []
        heredocs: list[tuple[str, bool, bool]] = []
        parens = cases = 0
        word_start = True
        while self.pos < len(src):
            self._step()
            ch = src[self.pos]
            if ch == "\\":
                if src.startswith("\n", self.pos + 1):  # line continuation
                    self.pos += 2
                    continue
                out.append(src[self.pos : self.pos + 2])
                self.pos += 2
                word_start = False
            elif ch == "\n":
                out.append(" ; ")
                self.pos += 1
                for delimiter, quoted, strip_tabs in heredocs:
                    self._heredoc_body(delimiter, quoted, strip_tabs)
                heredocs.clear()
                word_start = True
            elif ch in " \t":
                out.append(ch)
                self.pos += 1
                word_start = True
            elif ch == "#" and word_start:  # a comment, up to the newline
                end = src.find("\n", self.pos)
                self.pos = len(src) if end < 0 else end
            elif ch == "'":
                end = src.find("'", self.pos + 1)
                if end < 0:
                    raise _UnparsableError("unterminated single quote")
                out.append(src[self.pos : end + 1])
                self.pos = end + 1
                word_start = False
            elif ch == '"':
                out.append(self._double_quoted())
                word_start = False
            elif ch == "`":
                self._backticks()
                out.append(_PLACEHOLDER)
                word_start = False
            elif ch == "$":
                out.append(self._dollar(quoted=False))
                word_start = False
            elif ch == "(":
                if src.startswith("((", self.pos) and self._arithmetic(self.pos + 2, "))"):
                    out.append(f" {_PLACEHOLDER} ")
                else:
                    parens += 1
                    out.append("(")
                    self.pos += 1
                word_start = True
            elif ch == ")":
                if parens:
                    parens -= 1
                elif not cases:
                    if close != ")":
                        raise _UnparsableError("unbalanced ')'")
                    if heredocs:
                        raise _UnparsableError("here-document without a body")
                    self.pos += 1
                    return "".join(out)
                out.append(")")  # a case pattern's ')' is a separator too
                self.pos += 1
                word_start = True
            elif src.startswith("<<", self.pos) and not src.startswith("<<<", self.pos):
                self.pos += 2
                strip_tabs = src.startswith("-", self.pos)
                self.pos += strip_tabs
                heredocs.append((*self._heredoc_word(), strip_tabs))
                out.append(" ")
                word_start = True
            elif ch in ";&|<>":
                out.append(ch)
                self.pos += 1
                word_start = True
            else:
                if word_start and (match := _CASE_WORD.match(src, self.pos)):
                    # Counted wherever it starts a word: too many makes the command
                    # unparsable (denied), too few could end a $( early.
                    cases = cases + 1 if match.group(1) == "case" else max(cases - 1, 0)
                out.append(ch)
                self.pos += 1
                word_start = False
        if close is not None:
            raise _UnparsableError("unterminated $(")
        if parens:
            raise _UnparsableError("unbalanced '('")
        return "".join(out)

    def _double_quoted(self) -> str:
        """Scan ``"..."`` from its opening quote; substitutions inside are lifted out."""
        src = self.src
        out = ['"']
        self.pos += 1
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "\\":
                if not src.startswith("\n", self.pos + 1):
                    out.append(src[self.pos : self.pos + 2])
                self.pos += 2
            elif ch == '"':
                self.pos += 1
                out.append('"')
                return "".join(out)
            elif ch == "`":
                self._backticks()
                out.append(_PLACEHOLDER)
            elif ch == "$":
                out.append(self._dollar(quoted=True))
            else:
                out.append(ch)
                self.pos += 1
        raise _UnparsableError("unterminated double quote")

    def _backticks(self) -> None:
        """Lift out a backtick substitution, from its opening backtick."""
        src = self.src
        self.pos += 1
        buf: list[str] = []
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "\\" and src[self.pos + 1 : self.pos + 2] in ("\\", "`", "$"):
                buf.append(src[self.pos + 1])
                self.pos += 2
            elif ch == "`":
                self.pos += 1
                self._nested("".join(buf))
                return
            else:
                buf.append(ch)
                self.pos += 1
        raise _UnparsableError("unterminated backtick")

    def _dollar(self, *, quoted: bool) -> str:
        """Scan what starts with ``$``; return the text it leaves in the command."""
        src, start = self.src, self.pos
        following = src[start + 1 : start + 2]
        if following in ("(", "[", "{"):
            self._descend()
            try:
                return self._expansion(start, following)
            finally:
                self.depth -= 1
        if not quoted and following == "'":
            self.pos = start + 2
            return shlex.quote(self._ansi_c())
        if not quoted and following == '"':  # $"..." is a translated "..."
            self.pos = start + 1
            return self._double_quoted()
        self.pos = start + 1
        return "$"

    def _expansion(self, start: int, following: str) -> str:
        """``$(...)``, ``$((...))``, ``$[...]`` or ``${...}`` from its ``$``."""
        src = self.src
        if following == "(":
            if src.startswith("$((", start) and self._arithmetic(start + 3, "))"):
                return _PLACEHOLDER
            self.pos = start + 2
            self.texts.append(self.command(")"))
            return _PLACEHOLDER
        if following == "[":
            if self._arithmetic(start + 2, "]"):
                return _PLACEHOLDER
            self.pos = start + 1
            return "$"
        return self._parameter()

    def _arithmetic(self, start: int, close: str) -> bool:
        """Skip ``$((...))``, ``((...))`` or ``$[...]`` from ``start`` if it is one.

        Substitutions inside are lifted out. Returns False (and changes nothing) when the
        text is not arithmetic after all, e.g. ``$( (cmd) )`` written ``$((cmd) )``.
        """
        saved_pos, saved_texts = self.pos, len(self.texts)
        src = self.src
        self.pos = start
        depth = 0
        try:
            while self.pos < len(src):
                self._step()
                ch = src[self.pos]
                if ch == "\\":
                    self.pos += 2
                    continue
                if ch == "'":
                    end = src.find("'", self.pos + 1)
                    if end < 0:
                        break
                    self.pos = end + 1
                    continue
                if ch == '"':
                    self._double_quoted()
                    continue
                if ch == "`":
                    self._backticks()
                    continue
                if ch == "$":
                    self._dollar(quoted=True)
                    continue
                if ch == "(":
                    depth += 1
                elif ch == ")" and depth:
                    depth -= 1
                elif ch == ")" or (ch == "]" and close == "]" and not depth):
                    if src.startswith(close, self.pos):
                        self.pos += len(close)
                        return True
                    break
                self.pos += 1
        except _LimitError:
            raise
        except _UnparsableError:
            pass
        self.pos = saved_pos
        del self.texts[saved_texts:]
        return False

    def _parameter(self) -> str:
        """Scan ``${...}`` from its ``$``; lift out substitutions inside."""
        src = self.src
        self.pos += 2
        start, texts = self.pos, len(self.texts)
        depth = 0
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "\\":
                self.pos += 2
            elif ch == "'":
                end = src.find("'", self.pos + 1)
                if end < 0:
                    raise _UnparsableError("unterminated single quote")
                self.pos = end + 1
            elif ch == '"':
                self._double_quoted()
            elif ch == "`":
                self._backticks()
            elif ch == "$":
                self._dollar(quoted=True)
            elif ch == "{":
                depth += 1
                self.pos += 1
            elif ch == "}" and depth:
                depth -= 1
                self.pos += 1
            elif ch == "}":
                body = src[start : self.pos]
                self.pos += 1
                if len(self.texts) == texts and _SIMPLE_PARAMETER.fullmatch(body):
                    return f"${{{body}}}"
                return _PLACEHOLDER
            else:
                self.pos += 1
        raise _UnparsableError("unterminated ${")

    def _ansi_c(self) -> str:
        """Decode ``$'...'`` from after its opening quote, as bash does."""
        src = self.src
        out: list[str] = []
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "'":
                self.pos += 1
                return "".join(out)
            match = _ANSI_ESCAPE.match(src, self.pos) if ch == "\\" else None
            if match is None:
                out.append(ch)
                self.pos += 1
                continue
            simple, octal, hex2, short, long, control, other = match.groups()
            self.pos = match.end()
            if simple is not None:
                out.append(_ANSI_SIMPLE[simple])
            elif control is not None:
                out.append(chr(ord(control) & 0x1F))
            elif other is not None:
                out.append("\\" + other)
            else:
                code = int(octal, 8) if octal else int(hex2 or short or long, 16)
                if code > 0x10FFFF:
                    raise _UnparsableError("invalid escape in $'...'")
                out.append(chr(code))
        raise _UnparsableError("unterminated $'")

    def _heredoc_word(self) -> tuple[str, bool]:
        """Read a here-document's delimiter word: (delimiter, quoted)."""
        src = self.src
        while self.pos < len(src) and src[self.pos] in " \t":
            self.pos += 1
        start = self.pos
        while self.pos < len(src) and src[self.pos] not in " \t\n;&|()<>":
            ch = src[self.pos]
            if ch in "'\"":
                end = src.find(ch, self.pos + 1)
                if end < 0:
                    raise _UnparsableError("unterminated quote in a here-document delimiter")
                self.pos = end + 1
            else:
                self.pos += 2 if ch == "\\" else 1
        raw = src[start : self.pos]
        if not raw:
            raise _UnparsableError("here-document without a delimiter")
        quoted = any(c in raw for c in "'\"\\")
        return ("".join(_tokens(raw)) if quoted else raw), quoted

    def _heredoc_body(self, delimiter: str, quoted: bool, strip_tabs: bool) -> None:
        """Skip a here-document body from the current line to its delimiter line.

        An unquoted delimiter means the body is expanded: its substitutions are lifted out.
        Without a delimiter line the body runs to the end, as in bash.
        """
        src = self.src
        start = line = self.pos
        end = len(src)
        while line < len(src):
            newline = src.find("\n", line)
            stop = len(src) if newline < 0 else newline
            text = src[line:stop]
            if (text.lstrip("\t") if strip_tabs else text) == delimiter:
                end = line
                self.pos = min(stop + 1, len(src))
                break
            line = stop + 1
        else:
            self.pos = len(src)
        if not quoted:
            body = _Scanner(src[start:end], self.depth, self.budget)
            body.expansions()
            self.texts.extend(body.texts)

    def expansions(self) -> None:
        """Lift out the substitutions of an expanded here-document body."""
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "\\":
                self.pos += 2
            elif ch == "`":
                self._backticks()
            elif ch == "$":
                self._dollar(quoted=True)
            else:
                self.pos += 1


def _strip_redirections(words: Sequence[str]) -> list[str]:
    """``words`` without redirection operators, their targets and file descriptors."""
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _REDIRECTIONS:
            if out and _FD.fullmatch(out[-1]):
                out.pop()
            skip = True
        else:
            out.append(word)
    return out


def _strip_keywords(words: Sequence[str]) -> list[str]:
    start = 0
    while start < len(words) and words[start] in _KEYWORDS:
        start += 1
    return list(words[start:])


def _views(argv: Sequence[str], depth: int) -> Iterator[list[str]]:
    """A sub-command as `deny_commands` sees it: every command it may run.

    The sub-command without assignments and redirections, each suffix after a wrapper,
    the command after ``find -exec``, and the sub-commands of ``sh -c`` and ``eval`` strings.
    """
    yield list(argv)  # as written, for regular expressions (``^sudo``, ``LD_PRELOAD=``)
    words = _strip_redirections(argv)
    first = 0
    while first < len(words) and _ASSIGNMENT.match(words[first]):
        first += 1
    starts: set[int] = set()
    all_from = len(words)  # after a wrapper, every later word may start the command
    todo = [first]
    while todo:
        start = todo.pop()
        if start >= all_from or start in starts or start >= len(words):
            continue
        starts.add(start)
        program = _program(words[start])
        if program in _WRAPPERS:
            all_from = min(all_from, start + 1)
        elif program == "find":
            todo.extend(i + 1 for i in range(start + 1, len(words)) if words[i] in _FIND_EXEC)
    for start in sorted(starts | set(range(all_from, len(words)))):
        view = words[start:]
        yield view
        program = _program(view[0])
        code: str | None = None
        if program in _SHELLS:
            code = _shell_code(view[1:])
        elif program == "eval":
            code = " ".join(view[1:])
        if code is not None:
            if depth >= _MAX_DEPTH:
                raise _UnparsableError(f"commands nested more than {_MAX_DEPTH} deep")
            for sub in _parse(code, depth + 1):
                yield from _views(sub, depth + 1)


def _shell_code(args: Sequence[str]) -> str | None:
    """The ``-c`` string of a shell's arguments (``-c``, ``-lc``, ``--command=``), if any."""
    seen_c = False
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg.startswith("--command="):
            return arg[len("--command=") :]
        if arg == "--command" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(("-", "+")) and not arg.startswith("--") and len(arg) > 1:
            seen_c = seen_c or "c" in arg[1:]
        elif seen_c:
            return arg
    return None


# ======================================================================================
# Path policies


class _UnresolvableError(ValueError):
    """A path that cannot be checked (the path policies deny the call)."""


@attrs.frozen
class _Target:
    """One path a file-tool call touches.

    Attributes:
        key: the input key (``file_path``, ``path``, ``pattern``), None for the implied
            working directory of Glob and Grep.
        given: the value as given.
        resolved: the absolute real path.
        search: the tool searches below it (Glob, Grep).
        rest: for a Glob ``pattern``, the part of the pattern below ``resolved``.
    """

    key: str | None
    given: str
    resolved: str
    search: bool = False
    rest: str | None = None

    def __str__(self) -> str:
        if self.key is None:
            return f"the working directory {self.resolved}"
        if self.given == self.resolved:
            return f"{self.key} {self.given!r}"
        return f"{self.key} {self.given!r} (resolved: {self.resolved})"


_GLOB_MAGIC = re.compile(r"[*?\[\]{}\\]")


def _base(*candidates: str | None) -> str:
    """The first given directory, absolute, else the process's working directory."""
    for candidate in candidates:
        if candidate:
            return os.path.abspath(os.path.expanduser(candidate))
    return os.getcwd()


def _resolve(path: str, base: str) -> str:
    try:
        return os.path.realpath(os.path.join(base, os.path.expanduser(path)))
    except (OSError, ValueError) as exc:
        raise _UnresolvableError(f"cannot resolve {path!r}: {exc}") from None


def _root(root: str | os.PathLike[str], cwd: str | None) -> str:
    path = os.fspath(root)
    if not path:
        raise ValueError(f"a path root cannot be empty: {root!r}")
    try:
        return _resolve(path, _base(cwd))
    except _UnresolvableError as exc:
        raise ValueError(str(exc)) from None


def _relative(path: str, root: str) -> str | None:
    """Where the resolved ``path`` is below ``root`` (``"."`` for root itself), else None.

    By name, or by inode: the same directory under another name (a bind mount, a
    case-insensitive file system) or a hard link to a denied file is recognised too.
    """
    if path == root:
        return "."
    prefix = root.rstrip(os.sep) + os.sep
    if path.startswith(prefix):
        return path[len(prefix) :]
    try:
        root_stat = os.stat(root)
    except (OSError, ValueError):
        return None
    current = path
    while True:
        try:
            st = os.stat(current)
        except (OSError, ValueError):
            pass
        else:
            if (st.st_dev, st.st_ino) == (root_stat.st_dev, root_stat.st_ino):
                return os.path.relpath(path, current)
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _inside(path: str, root: str) -> bool:
    """Is the resolved ``path`` ``root`` or below it?"""
    return _relative(path, root) is not None


def _glob_split(pattern: str) -> tuple[str, str]:
    """(the literal directory a Glob pattern starts with, the rest of the pattern)."""
    parts = pattern.split("/")
    n = 0
    while n < len(parts) - 1 and not _GLOB_MAGIC.search(parts[n]):
        n += 1
    literal = "/".join(parts[:n])
    if not literal and pattern.startswith("/"):
        literal = "/"
    return literal, "/".join(parts[n:])


def _targets(tool_name: str, tool_input: Mapping[str, Any], base: str) -> list[_Target]:
    """The paths a file-tool call touches, resolved against ``base``."""
    search = tool_name in _SEARCH_TOOLS
    targets: list[_Target] = []
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if value is None or (search and key == "path" and value == ""):
            continue  # Glob and Grep default an empty path to the working directory
        if not isinstance(value, str) or not value:
            raise _UnresolvableError(f"{tool_name}'s {key} is not a path: {value!r}")
        targets.append(_Target(key, value, _resolve(value, base), search))
    if search and not any(t.key == "path" for t in targets):
        targets.append(_Target(None, base, _resolve(".", base), search=True))
    pattern = tool_input.get("pattern")
    if tool_name == "Glob" and isinstance(pattern, str):
        literal, rest = _glob_split(pattern)
        if ".." in rest.split("/"):
            raise _UnresolvableError(f"the Glob pattern {pattern!r} climbs with '..'")
        if literal:
            # Glob searches below the pattern's leading directory, not below its base.
            base_target = next(t for t in targets if t.search)
            targets.remove(base_target)
            if base_target.key is not None or not os.path.isabs(os.path.expanduser(literal)):
                targets.append(attrs.evolve(base_target, search=False))
            resolved = _resolve(literal, base_target.resolved)
            targets.append(_Target("pattern", pattern, resolved, search=True, rest=rest))
    return targets


def _roots_text(roots: Sequence[str]) -> str:
    return ", ".join(roots)


@attrs.frozen
class AllowPaths(Policy):
    """File tools may touch only these trees; see `allow_paths`."""

    roots: tuple[str, ...]
    allow: bool = False
    cwd: str | None = None
    tools: frozenset[str] = FILE_TOOLS
    name: str = ""

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a file tool", policy=self.name)
        try:
            targets = _targets(tool_name, tool_input, _base(cwd, self.cwd))
        except _UnresolvableError as exc:
            return Decision.deny(f"{exc}, so it is denied", policy=self.name)
        for target in targets:
            if not any(_inside(target.resolved, root) for root in self.roots):
                return Decision.deny(
                    f"{tool_name}: {target} is outside the allowed paths "
                    f"({_roots_text(self.roots)})",
                    policy=self.name,
                )
        reason = f"{tool_name}: every path is inside the allowed paths"
        if self.allow:
            return Decision.allow(reason, policy=self.name)
        return Decision.continue_(reason, policy=self.name)


@attrs.frozen
class DenyPaths(Policy):
    """File tools may not touch these trees; see `deny_paths`."""

    roots: tuple[str, ...]
    cwd: str | None = None
    tools: frozenset[str] = FILE_TOOLS
    name: str = ""

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a file tool", policy=self.name)
        try:
            targets = _targets(tool_name, tool_input, _base(cwd, self.cwd))
        except _UnresolvableError as exc:
            return Decision.deny(f"{exc}, so it is denied", policy=self.name)
        for target in targets:
            for root in self.roots:
                if _inside(target.resolved, root):
                    return Decision.deny(
                        f"{tool_name}: {target} is inside the denied path {root}",
                        policy=self.name,
                    )
                if target.search and _inside(root, target.resolved):
                    return Decision.deny(
                        f"{tool_name}: searching {target} would reach the denied path {root}",
                        policy=self.name,
                    )
        return Decision.continue_(f"{tool_name}: no denied path", policy=self.name)


@attrs.frozen
class RedirectPath(Policy):
    """Rewrite file paths under one tree to another; see `redirect_path`."""

    src: str
    dst: str
    cwd: str | None = None
    tools: frozenset[str] = FILE_TOOLS
    name: str = ""

    def _map(self, path: str) -> str | None:
        relative = _relative(path, self.src)
        if relative is None:
            return None
        return os.path.normpath(os.path.join(self.dst, relative))

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a file tool", policy=self.name)
        try:
            targets = _targets(tool_name, tool_input, _base(cwd, self.cwd))
        except _UnresolvableError as exc:
            return Decision.deny(f"{exc}, so it is denied", policy=self.name)
        updated = dict(tool_input)
        moved: list[str] = []
        by_pattern = any(t.key == "pattern" for t in targets)
        for target in targets:
            if by_pattern and target.key != "pattern":
                continue  # the pattern's literal directory is where Glob searches
            new = self._map(target.resolved)
            if new is None:
                continue
            if target.key == "pattern":
                updated["path"], updated["pattern"] = new, target.rest
            else:
                updated[target.key or "path"] = new
            moved.append(f"{target.given} -> {new}")
        if not moved:
            return Decision.continue_(f"{tool_name}: nothing under {self.src}", policy=self.name)
        return Decision.allow(
            f"{tool_name}: redirected {', '.join(moved)}", updated_input=updated, policy=self.name
        )


def allow_paths(
    *roots: str | os.PathLike[str],
    allow: bool = False,
    cwd: str | os.PathLike[str] | None = None,
    tools: Iterable[str] = FILE_TOOLS,
    name: str | None = None,
) -> AllowPaths:
    """File tools may touch only the trees under ``roots``; a call outside them is denied.

    Every path a call touches (``file_path``, ``notebook_path``, ``path``, the working
    directory Glob and Grep default to, a Glob pattern's leading directory) must resolve
    inside a root. A call inside continues, or is allowed with ``allow=True``. Relative roots
    are resolved now, against ``cwd`` or the current directory; symlinks in them are
    followed. Calls of other tools continue.
    """
    resolved_cwd = None if cwd is None else os.fspath(cwd)
    resolved = tuple(_root(r, resolved_cwd) for r in roots)
    if not resolved:
        raise ValueError("allow_paths() needs at least one root")
    if name is None:
        name = f"allow_paths({', '.join(repr(os.fspath(r)) for r in roots)}"
        name += ", allow=True)" if allow else ")"
    return AllowPaths(resolved, allow, resolved_cwd, frozenset(tools), name)


def deny_paths(
    *roots: str | os.PathLike[str],
    cwd: str | os.PathLike[str] | None = None,
    tools: Iterable[str] = FILE_TOOLS,
    name: str | None = None,
) -> DenyPaths:
    """File tools may not touch the trees under ``roots``; such a call is denied.

    Paths resolve as for `allow_paths`. A Glob or Grep whose searched directory contains a
    denied tree is denied too (it would read below it). Other calls continue.
    """
    resolved_cwd = None if cwd is None else os.fspath(cwd)
    resolved = tuple(_root(r, resolved_cwd) for r in roots)
    if not resolved:
        raise ValueError("deny_paths() needs at least one root")
    if name is None:
        name = f"deny_paths({', '.join(repr(os.fspath(r)) for r in roots)})"
    return DenyPaths(resolved, resolved_cwd, frozenset(tools), name)


def redirect_path(
    src_root: str | os.PathLike[str],
    dst_root: str | os.PathLike[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    tools: Iterable[str] = FILE_TOOLS,
    name: str | None = None,
) -> RedirectPath:
    """Rewrite file paths under ``src_root`` to the same place under ``dst_root``.

    A call touching a path under ``src_root`` is allowed with an ``updated_input`` in which
    that path (resolved, see `allow_paths`) is moved under ``dst_root``; a Glob pattern's
    leading directory is moved into ``path``. Other calls continue. A search of a directory
    above ``src_root`` is not rewritten.
    """
    resolved_cwd = None if cwd is None else os.fspath(cwd)
    src, dst = _root(src_root, resolved_cwd), _root(dst_root, resolved_cwd)
    if name is None:
        name = f"redirect_path({os.fspath(src_root)!r}, {os.fspath(dst_root)!r})"
    return RedirectPath(src, dst, resolved_cwd, frozenset(tools), name)
