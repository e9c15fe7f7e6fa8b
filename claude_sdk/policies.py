"""Composable permission policies: decide tool calls from rules, fail closed.

A `Policy` looks at one tool call and returns a `Decision`: ``allow``, ``deny`` or
``continue`` (no opinion). Policies compose with `chain` and are used in three ways:

* directly: ``policy.decide(tool_name, tool_input) -> Decision``;
* as a PreToolUse hook: ``Options(hooks={"PreToolUse": [policy.as_hook_matcher()]})``. A deny
  is ``permissionDecision: "deny"`` with the reason, an allow is ``"allow"`` (with
  ``updatedInput`` when the policy rewrote the input), and no decision is ``{}``: the CLI's
  own permission rules apply. The same hook answers ``PreSkillShellCommand`` (CLI 2.1.332: a
  shell command embedded in a skill or slash command, which no PreToolUse hook sees), decided
  as a ``Bash`` call: ``Options(hooks={"PreToolUse": [policy], "PreSkillShellCommand":
  [policy]})``. A rewrite cannot be applied to such a command, so it denies;
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
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import attrs

from ._shell import parse as _parse
from ._shell import scan as _scan
from .hooks import (
    HookContext,
    HookMatcher,
    HookOutput,
    PreSkillShellCommandInput,
    PreSkillShellCommandOutput,
    PreToolUseInput,
    PreToolUseOutput,
)
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

_T = TypeVar("_T")

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

    @property
    def reads_paths(self) -> bool:
        """Does it decide file paths (then it must see every call: use it as a hook)?"""
        return False

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

    async def __call__(self, hook_input: Any, context: HookContext) -> HookOutput:
        """A policy is a PreToolUse (and PreSkillShellCommand) hook itself:
        ``HookMatcher(hooks=[policy])``, or ``Options(hooks={"PreToolUse": [policy]})``."""
        return await PolicyHook(self)(hook_input, context)

    def as_hook_matcher(
        self, matcher: str | None = None, *, timeout: float | None = None
    ) -> HookMatcher:
        """A `HookMatcher` running this policy (for ``matcher`` tools, or all), for
        ``PreToolUse`` or ``PreSkillShellCommand`` (whose ``tool_name`` is the shell,
        ``Bash`` or ``PowerShell``)."""
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
    """A PreToolUse or PreSkillShellCommand hook callback running a policy:
    ``await hook(hook_input, context)``."""

    policy: Policy

    async def __call__(self, hook_input: Any, context: HookContext) -> HookOutput:
        """Answer the hook (the session awaits this; see `_bounded`)."""
        if _bounded(self.policy):
            return self.output(hook_input)
        return await _off_the_loop(self.output, hook_input)

    def output(self, hook_input: Any) -> HookOutput:
        """The hook's answer for ``hook_input``, synchronously.

        A skill's shell command (`PreSkillShellCommandInput`) is decided as a call of its
        shell tool (``Bash``); an allow that rewrote it denies, since the CLI never runs a
        rewritten skill command.

        Raises:
            TypeError: ``hook_input`` is not a `PreToolUseInput` or
                `PreSkillShellCommandInput`; registered for another event, the hook fails
                (and a failing permission hook denies).
        """
        if isinstance(hook_input, PreSkillShellCommandInput):
            return self._skill_shell_output(hook_input)
        if not isinstance(hook_input, PreToolUseInput):
            raise TypeError(
                "a policy hook answers PreToolUse and PreSkillShellCommand, not "
                f"{type(hook_input).__name__}; register it under 'PreToolUse'"
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

    def _skill_shell_output(self, hook_input: PreSkillShellCommandInput) -> HookOutput:
        decision = self.policy.decide(
            hook_input.tool_name, hook_input.tool_input, cwd=hook_input.cwd
        )
        if decision.kind == "continue":
            return HookOutput()
        kind, reason = decision.kind, decision.reason
        if kind == "allow" and decision.updated_input is not None:
            # The CLI never runs a rewritten skill command: the rewrite cannot be honoured.
            kind = "deny"
            reason = f"{reason}; a skill's shell command cannot be rewritten".lstrip("; ")
        return HookOutput(
            specific=PreSkillShellCommandOutput(
                permission_decision=kind, permission_decision_reason=reason or None
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
        """Answer ``can_use_tool`` (the session awaits this; see `_bounded`)."""
        if _bounded(self.policy):
            return self.result(tool_name, tool_input)
        return await _off_the_loop(self.result, tool_name, tool_input)

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


def _bounded(policy: Policy) -> bool:
    """Is ``policy`` one of ours, whose ``decide`` is bounded (`DECIDE_BUDGET`)?

    Those run on the event loop. A policy of your own may take any time: it runs in a worker
    thread, so the loop goes on and ``callback_timeout`` (or the matcher's ``timeout``)
    cancels the wait and denies.
    """
    if isinstance(policy, Chain):
        return all(_bounded(p) for p in policy.policies)
    return type(policy) in _OURS


async def _off_the_loop(fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)`` in a worker thread; a cancelled wait abandons it (the caller denies).

    anyio is imported here, not at the top: `claude_sdk.options` imports this module and the
    protocol core imports options, and the core loads no async library.
    """
    import anyio.to_thread

    return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)


# ======================================================================================
# chain


@attrs.frozen
class Chain(Policy):
    """Policies evaluated in order; see `chain`."""

    policies: tuple[Policy, ...]
    default: Literal["allow", "deny"] | None = None
    name: str = ""

    @property
    def reads_paths(self) -> bool:
        return any(p.reads_paths for p in self.policies)

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

#: The policies whose decisions are bounded in time (see `_bounded`); set below.
_OURS: set[type] = set()

#: How long a command policy may look at one command: past it, the command is denied.
DECIDE_BUDGET = 0.030
#: Longest command text that is read at all.
_MAX_TEXT = 1_000_000


def _compile(pattern: object) -> _scan.Pattern:
    if isinstance(pattern, re.Pattern):
        return pattern
    if not isinstance(pattern, str):
        raise TypeError(f"a command pattern is a str or re.Pattern, not {pattern!r}")
    return _scan.WordPattern.of(pattern)


def _describe_patterns(kind: str, patterns: Sequence[_scan.Pattern]) -> str:
    return f"{kind}({', '.join(_scan.describe(p) for p in patterns)})"


def _command_of(tool_name: str, tool_input: Mapping[str, Any]) -> str | Decision:
    command = tool_input.get("command")
    if not isinstance(command, str):
        return Decision.deny(f"{tool_name} has no command string")
    if len(command) > _MAX_TEXT:
        return Decision.deny(f"the command is too long to check ({len(command)} characters)")
    return command


@attrs.frozen
class DenyCommands(Policy):
    """Deny Bash calls with a command matching a pattern; see `deny_commands`."""

    patterns: tuple[_scan.Pattern, ...]
    tools: frozenset[str] = COMMAND_TOOLS
    name: str = ""

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a command tool", policy=self.name)
        command = _command_of(tool_name, tool_input)
        if isinstance(command, Decision):
            return attrs.evolve(command, policy=self.name)
        deadline = time.monotonic() + DECIDE_BUDGET
        try:
            reason = _scan.denied(command, self.patterns, deadline)
        except _parse.UnparsableError as exc:
            return Decision.deny(
                f"cannot check the command, so it is denied: {exc}", policy=self.name
            )
        if reason is not None:
            return Decision.deny(reason, policy=self.name)
        return Decision.continue_("no denied command", policy=self.name)


@attrs.frozen
class RequireCommand(Policy):
    """Allow Bash only when every command matches a pattern; see `require_command`."""

    patterns: tuple[_scan.Pattern, ...]
    allow: bool = False
    tools: frozenset[str] = COMMAND_TOOLS
    name: str = ""

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a command tool", policy=self.name)
        command = _command_of(tool_name, tool_input)
        if isinstance(command, Decision):
            return attrs.evolve(command, policy=self.name)
        deadline = time.monotonic() + DECIDE_BUDGET
        try:
            reason = _scan.unlisted(command, self.patterns, deadline)
        except _parse.UnparsableError as exc:
            return Decision.deny(
                f"cannot check the command, so it is denied: {exc}", policy=self.name
            )
        if reason is not None:
            return Decision.deny(reason, policy=self.name)
        if self.allow:
            return Decision.allow("every command is allowed", policy=self.name)
        return Decision.continue_("every command is allowed", policy=self.name)


def deny_commands(
    *patterns: CommandPattern, tools: Iterable[str] = COMMAND_TOOLS, name: str | None = None
) -> DenyCommands:
    """Deny a Bash call when any command it may run matches one of ``patterns``.

    A string pattern is a command (``"rm -rf"``, ``"git push --force"``), matched so that it
    errs towards deny: the program is compared by basename at every word of every command
    (``sudo rm``, ``nice -n 5 rm``, ``anything rm``), options by meaning for the programs in
    the option table (``-rf`` is ``-Rf``, ``-r -f``, ``--recursive --force``, ``--rec
    --for``) and by letter for others, and the other words may appear anywhere among the
    arguments. A compiled regular expression is searched in each command, its words joined
    by spaces. Strings that may be shell code (``bash -c '...'``, ``watch '...'``, ``ssh host
    '...'``) are parsed and matched too, and code computed at run time where a command name
    or a shell's input would be is denied (see `claude_sdk._shell.scan`). A command that
    does not parse, or takes longer than `DECIDE_BUDGET` to check, is denied; calls of other
    tools continue.
    """
    compiled = tuple(_compile(p) for p in patterns)
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
    """Deny a Bash call unless every command it runs matches one of ``patterns``.

    Matching is strict, so that it errs towards deny: a string pattern's words must be the
    first words of the command as written (after quote removal), a regular expression must
    match the whole command (`re.fullmatch`; words that need quoting are shell-quoted).
    Assignments, redirections and wrappers are part of the command: ``sudo git status`` does
    not match ``git status``. Substitutions (``$(...)``, backticks) and the commands inside
    control flow are commands too. When every command matches, the policy continues, or
    allows with ``allow=True``. An unparsable command is denied; calls of other tools
    continue.
    """
    compiled = tuple(_compile(p) for p in patterns)
    if not compiled:
        raise ValueError("require_command() needs at least one pattern")
    if name is None:
        name = _describe_patterns("require_command", compiled)
        if allow:
            name = f"{name[:-1]}, allow=True)"
    return RequireCommand(compiled, allow, frozenset(tools), name)


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
    """``path`` as the CLI's process sees it: joined to ``base`` (its working directory),
    ``~`` expanded, ``..`` and symlinks resolved (see `_real_path`)."""
    try:
        return _real_path(os.path.join(base, os.path.expanduser(path)), base)
    except (OSError, ValueError) as exc:
        raise _UnresolvableError(f"cannot resolve {path!r}: {exc}") from None


#: Links a path may follow before it is refused (the kernel's own limit).
_MAX_LINKS = 40
#: Directories below ``/proc/<process>/`` that stand for another path: the process's working
#: directory and root, as the CLI (not this process) has them.
_PROC_SELF = re.compile(r"(self|thread-self|[0-9]+)(/task/[0-9]+)?")
#: Files that are some process's open descriptors: what they are is not on the path.
_DESCRIPTOR_DIRS = frozenset({"fd", "fdinfo", "map_files"})
_STANDARD_STREAMS = frozenset({"/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd"})


def _real_path(path: str, cwd: str) -> str:
    """`os.path.realpath` as the CLI's process would resolve ``path``.

    This process's ``/proc/self`` is not the CLI's: ``/proc/self/cwd`` (also through
    ``thread-self``, a task, or a symlink that leads there) is the CLI's working directory
    ``cwd``, ``/proc/self/root`` is ``/``; a process's open descriptors (``/proc/self/fd/3``,
    ``/dev/fd/0``, ``/dev/stdin``) and another process's view (``/proc/1234/cwd``) cannot be
    known, and raise `_UnresolvableError`.
    """
    todo = [part for part in path.split("/") if part]
    done: list[str] = []
    links = 0
    while todo:
        part = todo.pop(0)
        if part == ".":
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        current = "/" + "/".join(done)
        in_process = (len(done) == 2 or (len(done) == 4 and done[2] == "task")) and (
            done[0] == "proc" and _PROC_SELF.fullmatch("/".join(done[1:])) is not None
        )
        if in_process:
            if done[1] not in ("self", "thread-self"):
                raise _UnresolvableError(f"{path!r} is another process's view of files")
            if part == "cwd":
                done = [p for p in cwd.split("/") if p]
                continue
            if part == "root":
                done = []
                continue
            if part in _DESCRIPTOR_DIRS:
                raise _UnresolvableError(f"{path!r} is an open file of the CLI's process")
        candidate = os.path.join(current, part)
        if candidate in _STANDARD_STREAMS:
            raise _UnresolvableError(f"{path!r} is an open file of the CLI's process")
        if candidate in ("/proc/self", "/proc/thread-self"):
            done.append(part)  # stands for the CLI's process, not this one: not followed
            continue
        try:
            target = os.readlink(candidate)
        except OSError:  # not a link, or not there: a name as it stands
            done.append(part)
            continue
        links += 1
        if links > _MAX_LINKS:
            raise _UnresolvableError(f"{path!r} has too many levels of symbolic links")
        todo = [p for p in target.split("/") if p] + todo
        if target.startswith("/"):
            done = []
    return "/" + "/".join(done)


#: Entries searched for another name of a hard-linked file before the call is denied.
_HARD_LINK_SEARCH = 20_000


def _hard_link_into(path: str, roots: Sequence[str]) -> str | None:
    """The denied root that holds another name of ``path``'s file (a hard link), or None.

    A file with one link has no other name. For more, each root is searched for the same
    file; a root too large to search is taken to hold it (fail closed).
    """
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if st.st_nlink < 2 or not os.path.isfile(path):
        return None
    key = (st.st_dev, st.st_ino)
    for root in roots:
        seen = 0
        for directory, _dirs, files in os.walk(root):
            for name in files:
                seen += 1
                try:
                    other = os.lstat(os.path.join(directory, name))
                except OSError:
                    continue
                if (other.st_dev, other.st_ino) == key:
                    return root
            if seen > _HARD_LINK_SEARCH:
                return root
    return None


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

    @property
    def reads_paths(self) -> bool:
        return True

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

    @property
    def reads_paths(self) -> bool:
        return True

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
            linked = _hard_link_into(target.resolved, self.roots)
            if linked is not None:
                return Decision.deny(
                    f"{tool_name}: {target} is a hard link to a file inside the denied path "
                    f"{linked}",
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

    @property
    def reads_paths(self) -> bool:
        return True

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


_OURS.update({DenyCommands, RequireCommand, AllowPaths, DenyPaths, RedirectPath})
