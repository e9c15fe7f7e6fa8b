"""Composable permission policies: decide tool calls from rules, fail closed.

A `Policy` looks at one tool call and returns a `Decision`: ``allow``, ``deny`` or
``continue`` (no opinion). Policies compose with `chain` and are used in three ways:

* directly: ``policy.decide(tool_name, tool_input) -> Decision``;
* as a PreToolUse hook: ``Options(hooks={"PreToolUse": [policy.as_hook_matcher()]})``. A deny
  is ``permissionDecision: "deny"`` with the reason, an allow is ``"allow"`` (with
  ``updatedInput`` when the policy rewrote the input), and no decision is ``{}``: the CLI's
  own permission rules apply. `claude_sdk.Options` registers a policy given under
  ``PreToolUse`` for ``PreSkillShellCommand`` too (CLI 2.1.332: a shell command embedded in
  a skill or slash command, which no PreToolUse hook sees), unless it decides no commands
  (`Policy.reads_commands`); there it is decided as a ``Bash`` call, and a rewrite cannot be
  applied to such a command, so it denies;
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
  here-documents, or more work to scan than `DECIDE_STEPS`) is denied by both command
  policies; a path that is not a string, cannot be resolved, or a Glob pattern that climbs
  with ``..`` after a wildcard is denied by the path policies. Tools a policy is not about
  pass through it (``continue``).
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
* **Paths are resolved as the CLI's process resolves them**: ``~`` is expanded, a relative
  path is joined to the working directory (the hook input's ``cwd``, which follows the Bash
  tool's ``cd``, else the policy's ``cwd``, else the CLI process's, else this process's), and
  `os.path.realpath` removes ``..`` and follows symlinks, so a symlink inside an allowed tree
  that points outside is outside. ``/proc/self/cwd`` is the CLI process's own working
  directory, read from ``/proc/<pid>/cwd`` of a local CLI (``cd`` does not move it), and
  denied where it cannot be known (a remote or in-memory CLI). A directory reached under
  another name (a bind mount, a case-insensitive file system) or a hard link to a denied file
  is recognised by its inode. Glob and Grep, which search below their path, are denied by
  `deny_paths` when a denied tree lies below the searched directory, by name or through a
  mount point (a bind mount of the tree, of a part of it, or of a directory above it).
* **Time never depends on luck.** A policy loads what it decides with (the shell parser)
  when it is built and in each worker thread before a decision, not inside a decision's
  budget. As a hook or ``can_use_tool``, every decision runs in a worker thread, never on the
  event loop, in threads of its own (`OUR_THREADS` for our policies, `YOUR_THREADS` for
  yours), so a flood of decisions takes no thread from anyio's default limiter.

Limits: a deny list cannot see through what the shell computes at run time (``$cmd``,
aliases, functions, scripts, ``python -c``); use `require_command` to allow a known set
instead. Paths are checked when the call is decided; a symlink swapped in afterwards is the
sandbox's business, not a policy's.
"""

from __future__ import annotations

import abc
import contextlib
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import attrs

from . import _cli_process
from ._attrs import frozen
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
    "OUR_THREADS",
    "YOUR_THREADS",
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


@frozen(kw_only=True)
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
    """A rule for tool calls. Subclass it and implement `decide` for a policy of your own.

    An attrs subclass gets `prepare` called when it is built (through
    ``__attrs_post_init__``; one of your own that defines it should call ``super()``'s).
    """

    __slots__ = ()

    #: Names the policy in a `Decision`.
    name: str

    def __attrs_post_init__(self) -> None:
        self.prepare()

    @property
    def reads_paths(self) -> bool:
        """Does it decide file paths (then it must see every call: use it as a hook)?"""
        return False

    @property
    def reads_commands(self) -> bool:
        """Does it decide shell commands? Then, given as a PreToolUse hook, it answers the
        ``PreSkillShellCommand`` hook too (see `claude_sdk.Options`). A policy of your own is
        taken to (override this to say otherwise); the path policies do not."""
        return True

    def prepare(self) -> None:
        """Load, in the calling thread, what deciding needs, so that no decision pays for it
        inside its budget (for a command policy: the shell parser, and one parse to warm it).

        Called when one of our policies is built, and in each worker thread before a
        decision (the adapters run every decision in one). It must be cheap once done.
        """
        if self.reads_commands:
            _shell_ready()

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
        """A `HookMatcher` running this policy (for ``matcher`` tools, or all).

        Given under ``PreToolUse``, `claude_sdk.Options` registers a policy that decides
        commands (`reads_commands`) for ``PreSkillShellCommand`` too, with the same matcher
        (whose ``tool_name`` there is the shell, ``Bash`` or ``PowerShell``): one matcher
        covers both events."""
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
                told the CLI's; without it, the local CLI process's working directory): pass
                ``Options.cwd`` when you set it.
        """
        return PolicyCanUseTool(self, default=default, cwd=None if cwd is None else os.fspath(cwd))


# ======================================================================================
# Adapters: hook and can_use_tool


@frozen
class PolicyHook:
    """A PreToolUse or PreSkillShellCommand hook callback running a policy:
    ``await hook(hook_input, context)``."""

    policy: Policy

    async def __call__(self, hook_input: Any, context: HookContext) -> HookOutput:
        """Answer the hook; the policy decides in a worker thread (see `_off_the_loop`)."""
        return await _off_the_loop(self.policy, self.output, hook_input)

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


@frozen
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
        """Answer ``can_use_tool``; the policy decides in a worker thread (see
        `_off_the_loop`)."""
        return await _off_the_loop(self.policy, self.result, tool_name, tool_input)

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


# --------------------------------------------------------------------------------------
# Where decisions run: never on the event loop


#: A command that warms a thread's parser: lists, a pipeline, quotes, a substitution, a
#: redirection, a loop, a here-document (the node types a first real parse meets).
_WARM_UP = (
    "cd /tmp && ls -la | grep -v 'a b' > /dev/null; echo \"$(date)\" ${x:-y} "
    "|| for i in 1 2; do printf '%s\\n' \"$i\"; done; cat <<'EOF'\nx\nEOF\n"
)
_READY = threading.local()


def _shell_ready() -> None:
    """Load this thread's shell parser and parse once (see `Policy.prepare`)."""
    if getattr(_READY, "shell", False):
        return
    if hasattr(_parse, "load"):  # the reader says how it warms up
        _parse.load()
    else:  # the tree-sitter parser (issue 26): one per thread, loaded on first use
        getattr(_parse, "_parser")()  # noqa: B009 - not in every version of the module
        with contextlib.suppress(_parse.UnparsableError):  # a warm-up: the parser is loaded
            _parse.parse(_WARM_UP)
    _READY.shell = True


#: Decisions of our own policies (bounded: `DECIDE_STEPS`) running at once, per event loop.
#: They hold the GIL while they work: more threads would only wait for one another.
OUR_THREADS = 4
#: Decisions of policies of your own running at once, per event loop (they may block).
YOUR_THREADS = 16

_LIMITERS: dict[bool, Any] = {}
_LIMITERS_LOCK = threading.Lock()


def _limiter(ours: bool) -> Any:
    """The event loop's `anyio.CapacityLimiter` for our policies' decisions or yours: not
    anyio's default one, which a flood of decisions would take from every other
    ``to_thread`` user."""
    from anyio.lowlevel import RunVar

    with _LIMITERS_LOCK:
        var = _LIMITERS.get(ours)
        if var is None:
            var = _LIMITERS[ours] = RunVar(f"claude_sdk_policy_threads_{ours}")
    try:
        return var.get()
    except LookupError:
        import anyio

        limiter = anyio.CapacityLimiter(OUR_THREADS if ours else YOUR_THREADS)
        var.set(limiter)
        return limiter


def _in_worker(policy: Policy, fn: Callable[..., _T], *args: Any) -> _T:
    policy.prepare()  # this thread's parser, before the decision's budget starts
    return fn(*args)


async def _off_the_loop(policy: Policy, fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)`` (a decision of ``policy``) in a worker thread, so the event loop goes on
    while it runs (a 1 MB command held the loop for seconds; issue 27).

    Our policies and yours take threads from two limiters of their own (`OUR_THREADS`,
    `YOUR_THREADS`), never from anyio's default one. A cancelled wait (the CLI withdrew the
    request, ``callback_timeout``) abandons the thread and the session denies (never allows);
    an abandoned decision of ours ends (its budget bounds it), one of yours when it returns. The
    thread sees the caller's context (`claude_sdk._cli_process.CURRENT`).

    anyio is imported here, not at the top: importing the policies loads no async library.
    """
    import anyio.to_thread

    return await anyio.to_thread.run_sync(
        _in_worker,
        policy,
        fn,
        *args,
        abandon_on_cancel=True,
        limiter=_limiter(_bounded(policy)),
    )


def _bounded(policy: Policy) -> bool:
    """Is ``policy`` one of ours, whose ``decide`` is bounded (`DECIDE_STEPS`)?"""
    if isinstance(policy, Chain):
        return all(_bounded(p) for p in policy.policies)
    return type(policy) in _OURS


# ======================================================================================
# chain


@frozen
class Chain(Policy):
    """Policies evaluated in order; see `chain`."""

    policies: tuple[Policy, ...]
    default: Literal["allow", "deny"] | None = None
    name: str = ""

    @property
    def reads_paths(self) -> bool:
        return any(p.reads_paths for p in self.policies)

    @property
    def reads_commands(self) -> bool:
        return any(p.reads_commands for p in self.policies)

    def prepare(self) -> None:
        for policy in self.policies:
            policy.prepare()

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

#: The policies whose decisions are bounded (see `_bounded`); set below.
_OURS: set[type] = set()

#: How much work a command policy may do on one command, in steps of the shell reader and
#: scanner (`claude_sdk._shell.parse.Steps`): past it, the command is denied as too complex
#: to check. A count, not a clock, so that a decision does not depend on how busy the
#: machine is: the same command gets the same decision everywhere.
DECIDE_STEPS = 30_000
#: About the longest `DECIDE_STEPS` take on a 2-core machine at rest, in seconds (a 1 MB
#: command of short ones; for the benchmarks, not a limit: steps differ in cost, 10 ms of
#: them for a text of 20,000 parentheses).
DECIDE_BUDGET = 0.075
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


@frozen
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
        try:
            reason = _scan.denied(command, self.patterns, _parse.Steps(DECIDE_STEPS))
        except _parse.UnparsableError as exc:
            return Decision.deny(
                f"cannot check the command, so it is denied: {exc}", policy=self.name
            )
        if reason is not None:
            return Decision.deny(reason, policy=self.name)
        return Decision.continue_("no denied command", policy=self.name)


@frozen
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
        try:
            reason = _scan.unlisted(command, self.patterns, _parse.Steps(DECIDE_STEPS))
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
    """Deny a Bash call when a command it may run matches one of ``patterns``, or when the
    policy cannot tell which programs it runs.

    The command is read as bash reads it, and the policy continues only when it can list
    every program bash may run and its arguments (the rules: docs/policies.md and
    `claude_sdk._shell.interp`). Whatever it cannot resolve is denied with the reason: a
    computed or pattern command word (``$c -rf x``, ``/bin/r? -rf x``), code that is not
    literal (``eval "$x"``, ``curl ... | bash``), arithmetic on text that is not a number,
    variables bash runs or expands (``BASH_ENV``, ``PS4``).

    A string pattern is a command (``"rm -rf"``, ``"git push --force"``), matched so that it
    errs towards deny: the program by basename wherever a program may run (the command word,
    the command of a runner such as ``sudo`` or ``timeout``, any later word of a program not
    known to leave its arguments alone, a computed word there counting as any program),
    options by meaning for the programs in the option table (``-rf`` is ``-Rf``, ``-r -f``,
    ``--recursive --force``, ``--rec --for``) and by letter for others; every literal word is
    tried as a program too, and strings that may be code are read for literal matches. A
    compiled regular expression is searched in each command, its words joined by spaces. A
    command that does not parse, or takes more than `DECIDE_STEPS` to check, is denied;
    calls of other tools continue.
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
    not match ``git status``, and the command a known runner runs must match too
    (``timeout 5 rm x`` needs ``rm``). Substitutions (``$(...)``, backticks), the commands
    inside control flow, functions and code strings are commands too, and what the policy
    cannot resolve is denied as for `deny_commands`. When every command matches, the policy
    continues, or allows with ``allow=True``. An unparsable command is denied; calls of other
    tools continue.
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


@frozen
class _Target:
    """One path a file-tool call touches (one of the files it may name: see `_View`).

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


@frozen
class _View:
    """How the CLI's process sees paths, for one decision.

    Attributes:
        base: relative paths are joined to it: the working directory the call gives (a hook
            input's ``cwd``, which follows the Bash tool's ``cd``), else the policy's
            ``cwd``, else the CLI process's, else this process's.
        proc_cwds: what ``/proc/self/cwd`` may stand for: the CLI process's real working
            directory (read from ``/proc/<pid>/cwd``; ``cd`` does not move it: CLI 2.1.332
            opens ``/proc/self/cwd/...`` there for Read, Grep and Glob), and ``base`` too,
            where a program the CLI starts in the directory ``cd`` reached would see it;
            outside a session's callback, ``base``. None: it cannot be known (a remote or
            in-memory CLI, a process that is gone), and such a path is denied.
        pid: the local CLI process, whose mount table says where the mount points are; None:
            this process's table.
    """

    base: str
    proc_cwds: tuple[str, ...] | None
    pid: int | None


def _view(*candidates: str | None) -> _View:
    """The `_View` of a decision whose working directory candidates are ``candidates``."""
    cli = _cli_process.CURRENT.get()
    if cli is None:  # not in a session's callback: the given directory stands for the CLI's
        base = _base(*candidates)
        return _View(base, (base,), None)
    real = cli.cwd()
    base = _base(*candidates, real)
    cwds = None if real is None else (real,) if real == base else (real, base)
    return _View(base, cwds, cli.pid)


def _resolve(path: str, base: str, view: _View) -> list[str]:
    """``path`` as the CLI's process sees it: joined to ``base`` (its working directory),
    ``~`` expanded, ``..`` and symlinks resolved (see `_real_paths`)."""
    try:
        return _real_paths(os.path.join(base, os.path.expanduser(path)), view.proc_cwds)
    except (OSError, ValueError) as exc:
        if isinstance(exc, _UnresolvableError):
            raise
        raise _UnresolvableError(f"cannot resolve {path!r}: {exc}") from None


#: Links a path may follow before it is refused (the kernel's own limit).
_MAX_LINKS = 40
#: Files one path may name (``/proc/self/cwd`` stands for two directories) before it is
#: refused.
_MAX_NAMES = 8
#: Directories below ``/proc/<process>/`` that stand for another path: the process's working
#: directory and root, as the CLI (not this process) has them.
_PROC_SELF = re.compile(r"(self|thread-self|[0-9]+)(/task/[0-9]+)?")
#: Files that are some process's open descriptors: what they are is not on the path.
_DESCRIPTOR_DIRS = frozenset({"fd", "fdinfo", "map_files"})
_STANDARD_STREAMS = frozenset({"/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd"})


def _split(path: str) -> list[str]:
    return [part for part in path.split("/") if part]


def _real_paths(path: str, proc_cwds: Sequence[str] | None) -> list[str]:
    """`os.path.realpath` as the CLI's process would resolve ``path``: every file it may
    name (one, unless ``/proc/self/cwd`` stands for two directories).

    This process's ``/proc/self`` is not the CLI's: ``/proc/self/cwd`` (also through
    ``thread-self``, a task, or a symlink that leads there) is each of ``proc_cwds``,
    ``/proc/self/root`` is ``/``. What cannot be known raises `_UnresolvableError`: the
    CLI's working directory when ``proc_cwds`` is None, a process's open descriptors
    (``/proc/self/fd/3``, ``/dev/fd/0``, ``/dev/stdin``), another process's view
    (``/proc/1234/cwd``), a path that names more than `_MAX_NAMES` files.
    """
    # Each state: the parts left (reversed, so the next is last), the parts resolved, links.
    states: list[tuple[list[str], list[str], int]] = [(_split(path)[::-1], [], 0)]
    names: list[str] = []
    while states:
        todo, done, links = states.pop()
        while todo:
            part = todo.pop()
            if part == ".":
                continue
            if part == "..":
                if done:
                    done.pop()
                continue
            in_process = (len(done) == 2 or (len(done) == 4 and done[2] == "task")) and (
                done[0] == "proc" and _PROC_SELF.fullmatch("/".join(done[1:])) is not None
            )
            if in_process:
                if done[1] not in ("self", "thread-self"):
                    raise _UnresolvableError(f"{path!r} is another process's view of files")
                if part == "cwd":
                    if proc_cwds is None:
                        raise _UnresolvableError(
                            f"{path!r} is in the CLI process's working directory, which "
                            "cannot be known here"
                        )
                    states.extend((todo + _split(o)[::-1], [], links) for o in proc_cwds[1:])
                    todo += _split(proc_cwds[0])[::-1]
                    done = []
                    continue
                if part == "root":
                    done = []
                    continue
                if part in _DESCRIPTOR_DIRS:
                    raise _UnresolvableError(f"{path!r} is an open file of the CLI's process")
            candidate = "/" + "/".join([*done, part])
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
            todo += _split(target)[::-1]
            if target.startswith("/"):
                done = []
        name = "/" + "/".join(done)
        if name not in names:
            names.append(name)
        if len(names) + len(states) > _MAX_NAMES:
            raise _UnresolvableError(f"{path!r} names too many files to check")
    return names


#: Entries searched for another name of a file (a hard link, a bind mount) before the call
#: is denied.
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


# -- mount points ------------------------------------------------------------------------

_MOUNT_ESCAPE = re.compile(r"\\([0-7]{3})")


@frozen
class _Mount:
    """One line of a mount table: where it is mounted, and which directory of its file
    system it shows there (``/`` but for a bind mount of a directory or file inside it)."""

    point: str
    source: str
    #: The prefix of the paths below the mount point.
    below: str


def _parse_mounts(text: str) -> tuple[_Mount, ...]:
    """The mounts of a ``mountinfo`` text (its fields 4 and 5, octal escapes undone)."""

    def unescape(field: str) -> str:
        if "\\" not in field:
            return field
        return _MOUNT_ESCAPE.sub(lambda m: chr(int(m[1], 8)), field)

    mounts = []
    for line in text.splitlines():
        fields = line.split(" ", 5)
        if len(fields) > 4:
            point = unescape(fields[4])
            mounts.append(_Mount(point, unescape(fields[3]), point.rstrip("/") + "/"))
    return tuple(mounts)


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


class _OwnMountTable:
    """This process's mount table, read again only when the kernel says it changed (a
    ``poll`` on ``/proc/self/mountinfo`` reports ``POLLPRI`` after a mount or unmount):
    reading it costs more than the rest of a decision."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._file: Any = None
        self._poll: Any = None
        self._mounts: tuple[_Mount, ...] = ()

    def mounts(self) -> tuple[_Mount, ...]:
        import select

        with self._lock:
            if self._file is None:
                self._file = open(  # noqa: SIM115 - kept open: its poll says when it changed
                    "/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape"
                )
                self._poll = select.poll()
                self._poll.register(self._file, select.POLLPRI | select.POLLERR)
            elif not self._poll.poll(0):
                return self._mounts
            self._file.seek(0)
            self._mounts = _parse_mounts(self._file.read())
            return self._mounts


_OWN_MOUNTS = _OwnMountTable()


def _mount_table(pid: int | None) -> tuple[_Mount, ...]:
    """The mounts the process ``pid`` (None: this one) sees; none on a system without a
    mount table. This process's own table when the process shares its mount namespace.

    Raises:
        _UnresolvableError: Linux, and the table cannot be read (the process is gone).
    """
    table = f"/proc/{pid if pid is not None else 'self'}/mountinfo"
    try:
        if pid is not None and os.readlink(f"/proc/{pid}/ns/mnt") != os.readlink(
            "/proc/self/ns/mnt"
        ):
            return _parse_mounts(_read_text(table))
        return _OWN_MOUNTS.mounts()
    except OSError as exc:
        if not sys.platform.startswith("linux"):
            return ()
        raise _UnresolvableError(f"cannot read the CLI's mount table {table}: {exc}") from None


def _key(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


class _Mounts:
    """What the mounts of the CLI's process put under a path, for `deny_paths`: a denied tree
    (or a file in it) mounted a second time elsewhere (``mount --bind secrets public/m``) is
    reached through the mount point as well. Read lazily, once per decision."""

    def __init__(self, pid: int | None, roots: Sequence[str]) -> None:
        self._pid = pid
        self._roots = roots
        self._mounts: tuple[_Mount, ...] | None = None
        self._entries: dict[str, set[tuple[int, int]] | None] = {}
        self._above: dict[str, set[tuple[int, int]]] = {}

    def _all(self) -> tuple[_Mount, ...]:
        if self._mounts is None:
            self._mounts = _mount_table(self._pid)
        return self._mounts

    def _inside(self, root: str) -> set[tuple[int, int]] | None:
        """The (device, inode) of every entry below ``root``; None: too many to list."""
        if root not in self._entries:
            found: set[tuple[int, int]] = set()
            for directory, dirs, files in os.walk(root):
                for name in (*dirs, *files):
                    try:
                        st = os.lstat(os.path.join(directory, name))
                    except OSError:
                        continue
                    found.add((st.st_dev, st.st_ino))
                if len(found) > _HARD_LINK_SEARCH:
                    self._entries[root] = None
                    break
            else:
                self._entries[root] = found
        return self._entries[root]

    def _holding(self, root: str) -> set[tuple[int, int]]:
        """The (device, inode) of ``root`` and of each directory above it."""
        if root not in self._above:
            keys = set()
            current = root
            while True:
                key = _key(current)
                if key is not None:
                    keys.add(key)
                parent = os.path.dirname(current)
                if parent == current:
                    break
                current = parent
            self._above[root] = keys
        return self._above[root]

    def _shows(self, mount: _Mount, root: str, *, whole: bool) -> bool:
        """Does ``mount`` show what is inside ``root`` (``whole``: or ``root`` itself, or a
        directory above it)?"""
        key = _key(mount.point) if whole else None
        if key is not None and key in self._holding(root):
            return True
        if mount.source in ("/", ""):
            return False  # a whole file system: not a directory inside another tree
        key = key or _key(mount.point)
        root_key = _key(root)
        if key is None or root_key is None or key[0] != root_key[0]:
            return False  # a bind mount shows a directory of its own device
        inside = self._inside(root)
        return inside is None or key in inside  # too large to list: taken to hold it

    def into(self, target: _Target) -> tuple[str, str] | None:
        """(a mount point, the denied root it shows) for ``target``: a mount at or above the
        path that shows a part of a denied tree, or, for a search, a mount below the
        searched directory that shows a denied tree or a part of it. None when there is
        none."""
        path = target.resolved
        below = path.rstrip("/") + "/"
        for mount in self._all():
            point = mount.point
            if point == path or path.startswith(mount.below):
                for root in self._roots:
                    if self._shows(mount, root, whole=False):
                        return point, root
            elif target.search and point.startswith(below):
                for root in self._roots:
                    if self._shows(mount, root, whole=True):
                        return point, root
        return None


def _root(root: str | os.PathLike[str], cwd: str | None) -> str:
    path = os.fspath(root)
    if not path:
        raise ValueError(f"a path root cannot be empty: {root!r}")
    base = _base(cwd)
    try:
        (resolved,) = _resolve(path, base, _View(base, (base,), None))
    except _UnresolvableError as exc:
        raise ValueError(str(exc)) from None
    return resolved


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


def _targets(tool_name: str, tool_input: Mapping[str, Any], view: _View) -> list[_Target]:
    """The paths a file-tool call touches, resolved against ``view.base``; a path that may
    name several files (see `_View`) is one target for each."""
    search = tool_name in _SEARCH_TOOLS
    targets: list[_Target] = []
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if value is None or (search and key == "path" and value == ""):
            continue  # Glob and Grep default an empty path to the working directory
        if not isinstance(value, str) or not value:
            raise _UnresolvableError(f"{tool_name}'s {key} is not a path: {value!r}")
        targets += [_Target(key, value, r, search) for r in _resolve(value, view.base, view)]
    if search and not any(t.key == "path" for t in targets):
        targets += [
            _Target(None, view.base, r, search=True) for r in _resolve(".", view.base, view)
        ]
    pattern = tool_input.get("pattern")
    if tool_name == "Glob" and isinstance(pattern, str):
        literal, rest = _glob_split(pattern)
        if ".." in rest.split("/"):
            raise _UnresolvableError(f"the Glob pattern {pattern!r} climbs with '..'")
        if literal:
            # Glob searches below the pattern's leading directory, not below its base.
            for base_target in [t for t in targets if t.search]:
                targets.remove(base_target)
                if base_target.key is not None or not os.path.isabs(os.path.expanduser(literal)):
                    targets.append(attrs.evolve(base_target, search=False))
                targets += [
                    _Target("pattern", pattern, r, search=True, rest=rest)
                    for r in _resolve(literal, base_target.resolved, view)
                ]
    return list(dict.fromkeys(targets))


def _roots_text(roots: Sequence[str]) -> str:
    return ", ".join(roots)


@frozen
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

    @property
    def reads_commands(self) -> bool:
        return False

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a file tool", policy=self.name)
        try:
            targets = _targets(tool_name, tool_input, _view(cwd, self.cwd))
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


@frozen
class DenyPaths(Policy):
    """File tools may not touch these trees; see `deny_paths`."""

    roots: tuple[str, ...]
    cwd: str | None = None
    tools: frozenset[str] = FILE_TOOLS
    name: str = ""

    @property
    def reads_paths(self) -> bool:
        return True

    @property
    def reads_commands(self) -> bool:
        return False

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a file tool", policy=self.name)
        try:
            view = _view(cwd, self.cwd)
            targets = _targets(tool_name, tool_input, view)
            denied = self._denied(tool_name, targets, _Mounts(view.pid, self.roots))
        except _UnresolvableError as exc:
            return Decision.deny(f"{exc}, so it is denied", policy=self.name)
        if denied is not None:
            return Decision.deny(denied, policy=self.name)
        return Decision.continue_(f"{tool_name}: no denied path", policy=self.name)

    def _denied(self, tool_name: str, targets: list[_Target], mounts: _Mounts) -> str | None:
        for target in targets:
            for root in self.roots:
                if _inside(target.resolved, root):
                    return f"{tool_name}: {target} is inside the denied path {root}"
                if target.search and _inside(root, target.resolved):
                    return f"{tool_name}: searching {target} would reach the denied path {root}"
            linked = _hard_link_into(target.resolved, self.roots)
            if linked is not None:
                return (
                    f"{tool_name}: {target} is a hard link to a file inside the denied path "
                    f"{linked}"
                )
            mounted = mounts.into(target)
            if mounted is not None:
                point, root = mounted
                return (
                    f"{tool_name}: {target} reaches the denied path {root} through the mount "
                    f"point {point}"
                )
        return None


@frozen
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

    @property
    def reads_commands(self) -> bool:
        return False

    def decide(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str | None = None
    ) -> Decision:
        if tool_name not in self.tools:
            return Decision.continue_(f"{tool_name} is not a file tool", policy=self.name)
        try:
            targets = _targets(tool_name, tool_input, _view(cwd, self.cwd))
        except _UnresolvableError as exc:
            return Decision.deny(f"{exc}, so it is denied", policy=self.name)
        updated = dict(tool_input)
        moved: dict[str | None, str] = {}
        by_pattern = any(t.key == "pattern" for t in targets)
        for target in targets:
            if by_pattern and target.key != "pattern":
                continue  # the pattern's literal directory is where Glob searches
            new = self._map(target.resolved)
            names = {self._map(t.resolved) for t in targets if t.key == target.key}
            if len(names) > 1:
                return Decision.deny(
                    f"{tool_name}: {target.key} {target.given!r} may name several files, "
                    f"not all of them under {self.src}, so it is denied",
                    policy=self.name,
                )
            if new is None:
                continue
            if target.key == "pattern":
                updated["path"], updated["pattern"] = new, target.rest
            else:
                updated[target.key or "path"] = new
            moved[target.key] = f"{target.given} -> {new}"
        if not moved:
            return Decision.continue_(f"{tool_name}: nothing under {self.src}", policy=self.name)
        return Decision.allow(
            f"{tool_name}: redirected {', '.join(moved.values())}",
            updated_input=updated,
            policy=self.name,
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
