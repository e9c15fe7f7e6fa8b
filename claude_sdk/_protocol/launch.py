"""What it takes to start one CLI: the launch spec and the ``initialize`` request (pure data).

`LaunchSpec` is what every transport receives: the argv, the environment, the working
directory, and the SDK-side limits a transport applies (line limit, stderr callback, shutdown
grace). ``Options -> (LaunchSpec, InitializeRequest)`` are pure functions (no I/O, no
``os.environ``), so flags are built in one place for every transport that runs a real CLI.
``reference/PROTOCOL.md`` §2 and §6.4 are the contract; the choices it leaves open:

**argv** (§2.1, §2.2)

* The fixed flags come first (``--output-format stream-json --verbose --input-format
  stream-json``); no prompt and no ``-p``.
* Every flag with one value is one token, ``--flag=value``, so a value starting with ``-``
  is never read as another flag. Lists are one comma-joined token
  (``--allowedTools=Read,Bash(git:*)``); ``--add-dir`` and ``--plugin-dir`` repeat per
  value. Empty values are meaningful: ``--tools=`` (no built-in tools),
  ``--setting-sources=`` (no settings files).
* **Long inputs never go on argv** (PITFALLS R25: Windows caps a command line at 32,767
  characters, Linux fails with ``E2BIG``). A custom system prompt travels as
  ``initialize.systemPrompt`` (``[text]``), preset appendices as ``appendSystemPrompt``,
  and agents, hooks, skills and the title in ``initialize`` too. What stays on argv is short
  or inherently a command-line value: paths, names, the in-process MCP servers
  (``--mcp-config``, ``{"type": "sdk", "name": name}``) and the output JSON Schema
  (``--json-schema``, also sent as ``initialize.jsonSchema``).
* **Secrets never go on argv** (every local user reads ``/proc/<pid>/cmdline``): the other
  MCP servers (their headers and env) travel as ``initialize.mcpServers`` with
  ``--await-initialize``, the settings JSON (``sandbox`` merged in, its ``env`` included) as
  ``initialize.settings`` with ``--initialize-fields=settings``, ``managed_settings`` as
  ``initialize.managedSettings`` with ``--managed-settings-in-initialize`` (§2.4). A settings
  or MCP config file's path stays a path.
* ``sandbox`` (`sandbox_wire`): ``Options.sandbox`` encoded by the codec becomes the
  settings' ``sandbox`` block, replacing one the settings hold; one that sets ``enabled``
  gets `SANDBOX_DEFAULTS` for what it leaves unset (``failIfUnavailable: true``,
  ``allowUnsandboxedCommands: false``, ``network.strictAllowlist: true``).
* **The default system prompt is empty** (as in both official SDKs, PITFALLS R24): with no
  ``system_prompt`` the argv carries ``--system-prompt=``, the one-token form of the
  official Python SDK's ``--system-prompt ""``; the API's ``system`` then holds only the
  billing header and the one-line Agent SDK identity (§6.4.3). `SystemPromptPreset` selects
  Claude Code's own prompt: no ``--system-prompt`` flag and no ``systemPrompt`` field.
* ``allow_in_process_tools`` (`in_process_allow_rules`): ``mcp__<server>`` joins
  ``--allowedTools`` for each in-process server, unless the host decides permissions
  (``can_use_tool``, ``permission_prompt_tool_name``) or ``allowed_tools`` names a rule of
  that server.
* ``--permission-mode`` is omitted for ``default``; ``bypassPermissions`` adds
  ``--allow-dangerously-skip-permissions``. ``can_use_tool`` adds
  ``--permission-prompt-tool=stdio``.
* ``thinking``: adaptive -> ``--thinking=adaptive``; enabled with a budget ->
  ``--max-thinking-tokens=N`` (without one: adaptive); disabled -> ``--thinking=disabled``;
  ``display`` -> ``--thinking-display=``. Without ``thinking``, the deprecated
  ``max_thinking_tokens``: 0 -> ``--thinking=disabled``, N -> ``--max-thinking-tokens=N``.
* ``skills`` (as the official Python SDK): ``"all"`` appends ``Skill`` to
  ``--allowedTools``, a list appends ``Skill(name)`` each; either adds ``Skill`` to an
  explicit ``tools`` list and, when ``setting_sources`` is None, loads
  ``--setting-sources=user,project`` (where skills live). A list also goes to
  ``initialize.skills`` (``[]`` hides every skill).
* ``debug`` -> ``--debug`` (or ``--debug=<filter>``), ``debug_file`` ->
  ``--debug-file=``; the CLI writes its debug log to a file unless it is given
  ``--debug-to-stderr``, which ``debug`` without ``debug_file`` adds (``debug_to_stderr``
  decides explicitly), so the log reaches the stderr callback.
* ``extra_args`` come last (``{k: None}`` -> ``--k``, ``{k: v}`` -> ``--k=v``), so they
  override anything above.

**Environment** (§3.1). The transport merges ``env`` over the inherited environment after
removing ``unset_env``.

* ``CLAUDE_CODE_ENTRYPOINT=sdk-py`` and ``CLAUDE_CODE_SDK_READS_SESSION_STATE=1`` (the
  session relies on ``session_state_changed``) are set *before* ``Options.env``, which may
  override them. ``CLAUDE_AGENT_SDK_VERSION`` is set *after* it (not overridable), as are
  ``CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true`` (``enable_file_checkpointing``),
  ``CLAUDE_AGENT_SDK_CLIENT_APP`` (``client_app``) and the variables of ``tool_config``
  (``CLAUDE_CODE_QUESTION_PREVIEW_FORMAT``, ``CLAUDE_CODE_QUESTION_EXTENDED=1``,
  ``CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS=1``, as the TypeScript SDK sets them; a
  False there removes the inherited variable), which explicit options own.
* ``unset_env``: ``CLAUDECODE`` (set inside a Claude Code session; an inherited one makes
  the CLI refuse to start); ``CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP`` (the official Python
  SDK removes it: an inherited value would misreport the client); ``DEBUG`` (a stray
  ``DEBUG=1`` makes the CLI print non-JSON debug lines on stdout; use ``Options.debug`` for
  the CLI's own debug output, or put ``DEBUG`` in ``Options.env`` to pass it on). A None
  value in ``Options.env`` removes that inherited variable too.
* Not removed: ``NODE_OPTIONS`` (the TypeScript SDK deletes it because its CLI ran on
  Node; this CLI is a native binary, and Node-based stdio MCP servers it starts may rely on
  the user's value). ``PWD`` is the transport's business (it knows the real ``cwd``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from .._attrs import frozen
from .._version import __version__
from ..control import HookMatcherConfig, InitializeRequest
from ..hooks import HOOK_EVENT_SINCE, unsupported_hook_events
from ..options import (
    McpHttpServer,
    McpSSEServer,
    McpStdioServer,
    Options,
    SkillShellPolicies,
    SystemPromptCustom,
    SystemPromptFile,
    SystemPromptPreset,
    ToolsPreset,
    json_text,
)
from ..sandbox import SandboxSettings
from .answers import DENY_ON_FAILURE
from .codec import default_codec, dumps, loads
from .framing import DEFAULT_MAX_LINE_BYTES

__all__ = [
    "BASE_ARGS",
    "DEFAULT_CLI",
    "HookRegistration",
    "LaunchSpec",
    "build_initialize",
    "build_launch_spec",
    "debug_to_stderr",
    "hook_support_warning",
    "in_process_allow_rules",
    "mcp_config",
    "mcp_server_wire",
    "mcp_tool_prefix",
    "register_hooks",
    "sandbox_warning",
    "sandbox_wire",
]

#: The fixed part of every command line (PROTOCOL.md §2.1).
BASE_ARGS: tuple[str, ...] = (
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
)

#: ``argv[0]`` when ``Options.cli_path`` is not set: the transport finds the CLI.
DEFAULT_CLI = "claude"

#: Inherited variables always removed from the child's environment (see the module doc).
UNSET_ENV: tuple[str, ...] = ("CLAUDECODE", "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP", "DEBUG")


def _names_only(env: Mapping[str, str]) -> str:
    """The environment's repr: names, not values (they may be secrets)."""
    return repr(dict.fromkeys(env, "<redacted>"))


def argv_for_log(argv: Sequence[str]) -> str:
    """``argv`` as a log may show it: the program's file name and the flags' names, never a
    value (a flag's value, or a bare argument, may be a secret)."""
    if not argv:
        return "?"
    shown = [os.path.basename(argv[0]) or "?"]
    for arg in argv[1:]:
        name = arg.split("=", 1)[0]
        # The command line puts every value after an "=" (`_flag`); a bare word, or a "flag"
        # too long or odd to be one, is left out rather than risked.
        if _FLAG_NAME.fullmatch(name) and name not in shown:
            shown.append(name)
    return " ".join(shown)


_FLAG_NAME: Final = re.compile(r"--?[A-Za-z][A-Za-z0-9-]{0,39}")


@frozen(kw_only=True)
class LaunchSpec:
    """How to start one CLI.

    Attributes:
        argv: the program and its arguments; ``argv[0]`` is the CLI path, or
            `DEFAULT_CLI` when the transport is to find it
            (``claude_sdk.transports.discovery.find_cli``).
        cli_path: the path the caller chose (``Options.cli_path``), or None.
        env: variables set on top of the inherited environment (local transports), or the
            whole environment to pass (remote transports decide).
        unset_env: inherited variables to remove (``CLAUDECODE`` and friends).
        cwd: the working directory, or None for the current one.
        user: run the CLI as this OS user (POSIX), or None.
        max_line_bytes: the longest stdout line accepted.
        shutdown_grace: seconds the CLI gets to exit after stdin closes before SIGTERM.
        stderr: called with each stderr line (exceptions are logged and contained).
        transcripts: files to write under the CLI's project directory for ``cwd`` on its
            side before it starts (relative path -> bytes): a resume from a session store
            through a transport whose CLI reads another disk (`Transport.runs_here` False);
            the remote transports' wrapper writes them. Empty otherwise.
    """

    argv: tuple[str, ...] = (DEFAULT_CLI, *BASE_ARGS)
    cli_path: str | None = None
    env: Mapping[str, str] = attrs.field(factory=dict, repr=_names_only)
    unset_env: tuple[str, ...] = ()
    cwd: str | None = None
    user: str | None = None
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    shutdown_grace: float = 5.0
    stderr: Callable[[str], object] | None = attrs.field(default=None, eq=False)
    transcripts: Mapping[str, bytes] = attrs.field(factory=dict, repr=_names_only)

    def with_cli(self, path: str) -> LaunchSpec:
        """A copy whose ``argv[0]`` is ``path`` (a resolved CLI)."""
        return attrs.evolve(self, argv=(path, *self.argv[1:]))


@frozen(kw_only=True)
class HookRegistration:
    """One registered hook callback: its id, event and matcher."""

    callback_id: str
    event: str
    matcher: Any  # hooks.HookMatcher
    callback: Any  # hooks.HookCallback


#: ``onFailure`` for matchers that leave it unset: a permission hook that fails or is not
#: answered in time blocks the action (fail closed), for the events whose failing hook the SDK
#: answers with a deny (``answers.DENY_ON_FAILURE``); other events keep the CLI's default.
DEFAULT_ON_FAILURE: Mapping[str, str] = dict.fromkeys(sorted(DENY_ON_FAILURE), "block")


def register_hooks(
    hooks: Mapping[str, Sequence[Any]],
) -> tuple[dict[str, list[HookMatcherConfig]] | None, dict[str, HookRegistration]]:
    """Assign callback ids (``hook_0``, ``hook_1``, ... across all events).

    Returns:
        The ``hooks`` field of ``initialize`` (None when there are none) and the id table.
    """
    table: dict[str, HookRegistration] = {}
    config: dict[str, list[HookMatcherConfig]] = {}
    counter = 0
    for event, matchers in hooks.items():
        for matcher in matchers:
            ids = []
            for callback in matcher.hooks:
                callback_id = f"hook_{counter}"
                counter += 1
                ids.append(callback_id)
                table[callback_id] = HookRegistration(
                    callback_id=callback_id, event=event, matcher=matcher, callback=callback
                )
            if ids:
                config.setdefault(event, []).append(
                    HookMatcherConfig(
                        matcher=matcher.matcher,
                        hook_callback_ids=ids,
                        timeout=matcher.timeout,
                        on_failure=matcher.on_failure or DEFAULT_ON_FAILURE.get(event),
                    )
                )
    return (config or None), table


def hook_support_warning(hooks: Iterable[str], cli_version: str | None) -> str | None:
    """What to warn of when hooks are registered (``hooks``: event names, or an
    ``Options.hooks`` mapping) for events the CLI of ``cli_version`` does not have, which it
    accepts and never calls; None when there are none (or the version cannot be read).

    ``PreSkillShellCommand`` matchers that `Options` added for command policies
    (`SkillShellPolicies`) are named only when the options load commands or skills: then
    their embedded shell commands run unchecked, and the warning says how to close the gap.
    """
    missing = list(unsupported_hook_events(hooks, cli_version))
    gap = False
    if "PreSkillShellCommand" in missing and isinstance(hooks, Mapping):
        matchers = hooks["PreSkillShellCommand"]
        derived = [m for m in matchers if isinstance(m, SkillShellPolicies)]
        if derived and len(derived) == len(matchers):
            missing.remove("PreSkillShellCommand")
            gap = any(m.loads_commands for m in derived)
    parts = []
    if missing:
        events = ", ".join(
            f"{event} (CLI {HOOK_EVENT_SINCE[event]} and later)" for event in missing
        )
        plural = len(missing) > 1
        parts.append(
            f"this CLI ({cli_version}) does not have the hook event{'s' if plural else ''} "
            f"{events}: {'their' if plural else 'its'} hooks are registered and never called; "
            "update the CLI"
        )
    if gap:
        parts.append(
            f"this CLI ({cli_version}) does not have the hook event PreSkillShellCommand (CLI "
            f"{HOOK_EVENT_SINCE['PreSkillShellCommand']} and later), so the shell commands "
            "that skills and slash commands embed (!`cmd`) run without the command policies "
            "given as PreToolUse hooks seeing them, and these options load commands or skills "
            "(setting_sources None, 'user' or 'project', plugins, add_dirs). Close the gap: "
            "run a newer CLI, or load no commands or skills (setting_sources=[] or "
            "['local'], no plugins or add_dirs), or run the CLI in a sandbox "
            "(Options(sandbox=...))"
        )
    return "; ".join(parts) or None


# --------------------------------------------------------------------------------------
# MCP configuration (§11.1)


def mcp_server_wire(name: str, config: Any) -> dict[str, Any]:
    """The wire form of one ``Options.mcp_servers`` entry.

    A typed config becomes its §11.1 dict (stdio always carries ``args``, §0 item 12); a
    dict is passed on as is (an official-SDK ``{"type": "sdk", "instance": ...}`` loses its
    ``instance``); anything else is an in-process server, ``{"type": "sdk", "name": name}``.
    """
    if isinstance(config, McpStdioServer):
        out: dict[str, Any] = {"type": "stdio", "command": config.command}
        out["args"] = list(config.args)
        if config.env:
            out["env"] = dict(config.env)
    elif isinstance(config, (McpSSEServer, McpHttpServer)):
        out = {"type": "sse" if isinstance(config, McpSSEServer) else "http"}
        out["url"] = config.url
        if config.headers:
            out["headers"] = dict(config.headers)
        if config.tools is not None:
            out["tools"] = [dict(t) for t in config.tools]
    elif isinstance(config, Mapping):
        if config.get("type") == "sdk":
            sdk = {k: v for k, v in config.items() if k != "instance"}
            sdk.setdefault("name", name)
            return sdk
        return dict(config)
    else:
        out = {"type": "sdk", "name": name}
        # An SdkMcpServer's declared per-call limit (its timeout, or its longest tool's plus
        # a second): the CLI cancels a call after it (default MCP_TOOL_TIMEOUT or ~27 h).
        timeout = getattr(config, "call_timeout", None)
        if isinstance(timeout, int) and not isinstance(timeout, bool):
            out["timeout"] = timeout
        return out
    if config.timeout is not None:
        out["timeout"] = config.timeout
    if config.always_load is not None:
        out["alwaysLoad"] = config.always_load
    return out


def mcp_delivery(
    options: Options,
) -> tuple[str | None, dict[str, Any], dict[str, Any]]:
    """How ``Options.mcp_servers`` reaches the CLI: (a config file's path for
    ``--mcp-config``, the in-process servers for ``--mcp-config``, the other servers for
    ``initialize``). The other servers' headers and env may be secrets: they never go on
    the command line, which every local user can read in ``/proc/<pid>/cmdline``."""
    servers: Any = options.mcp_servers
    if not servers:
        return None, {}, {}
    if isinstance(servers, str):
        text = json_text(servers)
        if text is None:
            return servers, {}, {}  # a file's path
        document = loads(text)
        servers = document.get("mcpServers", {}) if isinstance(document, dict) else {}
    wire = {name: mcp_server_wire(name, config) for name, config in servers.items()}
    in_process = {name: w for name, w in wire.items() if w.get("type") == "sdk"}
    external = {name: w for name, w in wire.items() if w.get("type") != "sdk"}
    return None, in_process, external


def _is_json_text(value: str) -> bool:
    """JSON text, not a file's path: `claude_sdk.options.json_text` decides (one rule)."""
    return json_text(value) is not None


def mcp_config(servers: Mapping[str, Any]) -> dict[str, Any]:
    """The ``--mcp-config`` document for ``servers``: ``{"mcpServers": {name: config}}``."""
    return {"mcpServers": {name: mcp_server_wire(name, c) for name, c in servers.items()}}


# --------------------------------------------------------------------------------------
# argv


def _json(value: Any) -> str:
    return dumps(value).decode("utf-8")


def _flag(name: str, value: object) -> str:
    return f"--{name}={value}"


def _number(value: float) -> str:
    return str(value) if isinstance(value, int) else repr(float(value))


def _settings_value(options: Options) -> str | None:
    """``--settings``: the caller's settings with ``sandbox`` merged in (pure)."""
    settings, sandbox = options.settings, options.sandbox
    if sandbox is None:
        if isinstance(settings, dict):
            return _json(settings)
        return settings  # JSON text or a path: as given
    merged: dict[str, Any]
    if isinstance(settings, dict):
        merged = dict(settings)
    elif isinstance(settings, str):
        merged = dict(loads(settings))  # JSON text (a path with a sandbox is refused)
    else:
        merged = {}
    merged["sandbox"] = sandbox_wire(sandbox)
    return _json(merged)


#: What `sandbox_wire` adds to a sandbox that ``Options.sandbox`` turns on, where it leaves
#: the setting unset (a path of keys -> the value).
SANDBOX_DEFAULTS: Mapping[tuple[str, ...], bool] = {
    # As the TypeScript SDK: a sandbox that was asked for and cannot start refuses the
    # session (sandbox_required_unavailable), not a silent run without isolation.
    ("failIfUnavailable",): True,
    # The model may ask to run a command outside the sandbox (Bash's dangerouslyDisableSandbox);
    # whatever approves the call (can_use_tool, a hook, bypassPermissions) would run it
    # unconfined (issue 27, tests/e2e/test_sandbox_e2e.py).
    ("allowUnsandboxedCommands",): False,
    # For a host not allowed the CLI asks can_use_tool ("SandboxNetworkAccess"), which an
    # allow-all callback approves: refuse such hosts without asking.
    ("network", "strictAllowlist"): True,
}


def sandbox_wire(sandbox: SandboxSettings) -> dict[str, Any]:
    """The settings' ``sandbox`` block for ``Options.sandbox``: its wire form (the codec's
    camelCase, unknown keys as given) and, when it sets ``enabled: true``, `SANDBOX_DEFAULTS`
    for what it leaves unset."""
    wire: dict[str, Any] = default_codec().unstructure(sandbox)
    if wire.get("enabled") is not True:
        return wire
    for path, value in SANDBOX_DEFAULTS.items():
        node = wire
        for key in path[:-1]:
            inner = node.get(key)
            if not isinstance(inner, dict):
                inner = node[key] = {}
            node = inner
        node.setdefault(path[-1], value)
    return wire


def sandbox_warning(options: Options, sandbox_enabled: object) -> str | None:
    """What to warn of when ``Options.sandbox`` turned the sandbox on and the CLI says, in
    its ``initialize`` answer (``sandbox_enabled``, CLI 2.1.331 and later), that shell
    commands run without it: the CLI then started anyway because ``fail_if_unavailable``
    is False. None when there is nothing to say (or the CLI does not say)."""
    sandbox = options.sandbox
    if sandbox is None or sandbox.enabled is not True or sandbox_enabled is not False:
        return None
    return (
        "Options.sandbox turned the sandbox on, but the CLI runs shell commands WITHOUT it "
        "(its stderr says why: bubblewrap or socat missing, settings it rejected, ...), "
        "because fail_if_unavailable=False let it start anyway; leave fail_if_unavailable "
        "unset (or True) to have the session refused instead"
    )


def _skills_effects(options: Options) -> tuple[list[str], tuple[str, ...] | None]:
    """``allowed_tools`` and ``setting_sources`` after the ``skills`` defaults."""
    allowed = list(options.allowed_tools)
    sources = options.setting_sources
    skills = options.skills
    if skills is None:
        return allowed, sources
    wanted = ["Skill"] if skills == "all" else [f"Skill({name})" for name in skills]
    allowed += [rule for rule in wanted if rule not in allowed]
    if sources is None:
        sources = ("user", "project")
    return allowed, sources


#: What the CLI turns into ``_`` in a server's name when it names the server's tools
#: (``mcp__<server>__<tool>``; CLI 2.1.330 to 2.1.332).
_MCP_NAME_UNSAFE: Final = re.compile(r"[^a-zA-Z0-9_-]")


def mcp_tool_prefix(server: str) -> str:
    """The rule that names every tool of the MCP server ``server``: ``mcp__<server>``, the
    name as the CLI writes it in its tools' names."""
    return f"mcp__{_MCP_NAME_UNSAFE.sub('_', server)}"


def in_process_allow_rules(options: Options, servers: Iterable[str]) -> list[str]:
    """The allow rules ``Options.allow_in_process_tools`` adds for the in-process
    ``servers``: ``mcp__<server>`` for each, unless the host decides permissions itself
    (``can_use_tool``, ``permission_prompt_tool_name``) or ``allowed_tools`` already names a
    rule of that server (the user chose which of its tools run). The CLI's deny and ask
    rules and the permission mode still win over an allow rule (tests/e2e, first hour)."""
    if (
        not options.allow_in_process_tools
        or options.can_use_tool is not None
        or options.permission_prompt_tool_name is not None
    ):
        return []
    rules: list[str] = []
    for server in servers:
        prefix = mcp_tool_prefix(server)
        if any(r == prefix or r.startswith(f"{prefix}__") for r in options.allowed_tools):
            continue
        rules.append(prefix)
    return rules


def _thinking_args(options: Options) -> list[str]:
    thinking = options.thinking
    if thinking is not None:
        if thinking.type == "disabled":
            args = [_flag("thinking", "disabled")]
        elif thinking.type == "enabled" and thinking.budget_tokens is not None:
            args = [_flag("max-thinking-tokens", thinking.budget_tokens)]
        else:
            args = [_flag("thinking", "adaptive")]
        if thinking.display is not None:
            args.append(_flag("thinking-display", thinking.display))
        return args
    if options.max_thinking_tokens is not None:
        if options.max_thinking_tokens == 0:
            return [_flag("thinking", "disabled")]
        return [_flag("max-thinking-tokens", options.max_thinking_tokens)]
    return []


def build_argv(options: Options) -> list[str]:
    """The command line for ``options`` (``argv[0]`` included)."""
    o = options
    argv: list[str] = [o.cli_path or DEFAULT_CLI, *BASE_ARGS]

    # system prompt (§6.4.3): the text itself travels in initialize
    if o.system_prompt is None:
        argv.append("--system-prompt=")
    elif isinstance(o.system_prompt, SystemPromptFile):
        argv.append(_flag("system-prompt-file", o.system_prompt.path))

    # tools and permissions
    path, in_process, external = mcp_delivery(o)
    allowed, setting_sources = _skills_effects(o)
    allowed += [r for r in in_process_allow_rules(o, in_process) if r not in allowed]
    if isinstance(o.tools, ToolsPreset):
        argv.append(_flag("tools", "default"))
    elif o.tools is not None:
        tools = list(o.tools)
        if o.skills is not None and "Skill" not in tools:
            tools.append("Skill")
        argv.append(_flag("tools", ",".join(tools)))
    if allowed:
        argv.append(_flag("allowedTools", ",".join(allowed)))
    if o.disallowed_tools:
        argv.append(_flag("disallowedTools", ",".join(o.disallowed_tools)))
    if o.permission_mode is not None and o.permission_mode != "default":
        argv.append(_flag("permission-mode", o.permission_mode))
    if o.allow_dangerously_skip_permissions or o.permission_mode == "bypassPermissions":
        argv.append("--allow-dangerously-skip-permissions")
    if o.can_use_tool is not None:
        argv.append(_flag("permission-prompt-tool", "stdio"))
    elif o.permission_prompt_tool_name is not None:
        argv.append(_flag("permission-prompt-tool", o.permission_prompt_tool_name))
    if o.permission_prompts is not None:
        argv.append(_flag("permission-prompts", o.permission_prompts))

    # model and limits
    if o.model is not None:
        argv.append(_flag("model", o.model))
    if o.fallback_model:
        argv.append(_flag("fallback-model", ",".join(o.fallback_model)))
    argv += _thinking_args(o)
    if o.effort is not None:
        argv.append(_flag("effort", o.effort))
    if o.max_turns is not None:  # 0 included (the official SDK's truthiness test drops it)
        argv.append(_flag("max-turns", o.max_turns))
    if o.max_budget_usd is not None:
        argv.append(_flag("max-budget-usd", _number(o.max_budget_usd)))
    if o.task_budget is not None:
        argv.append(_flag("task-budget", o.task_budget))
    if o.betas:
        argv.append(_flag("betas", ",".join(o.betas)))
    if o.agent is not None:
        argv.append(_flag("agent", o.agent))

    # MCP, settings, plugins: what may hold secrets (server headers and env, settings env)
    # travels in initialize, never on the command line (§2.4).
    if path is not None:
        argv.append(_flag("mcp-config", path))
    if in_process:
        argv.append(_flag("mcp-config", _json({"mcpServers": in_process})))
    if o.strict_mcp_config:
        argv.append("--strict-mcp-config")
    settings = _settings_value(o)
    settings_in_initialize = settings is not None and _is_json_text(settings)
    if settings is not None and not settings_in_initialize:
        argv.append(_flag("settings", settings))  # a file's path
    elif settings_in_initialize:
        argv.append(_flag("initialize-fields", "settings"))
    if o.managed_settings is not None:
        argv.append("--managed-settings-in-initialize")
    # What travels in initialize must be read before the CLI starts its session: the CLI
    # refuses --managed-settings-in-initialize (and so --initialize-fields) without it.
    if external or settings_in_initialize or o.managed_settings is not None:
        argv.append("--await-initialize")
    if setting_sources is not None:
        argv.append(_flag("setting-sources", ",".join(setting_sources)))
    argv += [_flag("add-dir", d) for d in o.add_dirs]
    argv += [_flag("plugin-dir", p) for p in o.plugins]
    if o.project_config_root is not None:
        argv.append(_flag("project-config-root", o.project_config_root))

    # sessions
    if o.continue_conversation:
        argv.append("--continue")
    if o.resume is not None:
        argv.append(_flag("resume", o.resume))
    if o.fork_session:
        argv.append("--fork-session")
    if o.session_id is not None:
        argv.append(_flag("session-id", o.session_id))
    if o.resume_session_at is not None:
        argv.append(_flag("resume-session-at", o.resume_session_at))
    if o.resume_drops_turn is not None:
        argv.append(_flag("resume-drops-turn", o.resume_drops_turn))
    if not o.persist_session:
        argv.append("--no-session-persistence")
    if o.session_store is not None:
        argv.append("--session-mirror")  # transcript_mirror frames, for the store

    # output
    if o.output_schema is not None:
        argv.append(_flag("json-schema", _json(o.output_schema)))
    if o.include_partial_messages:
        argv.append("--include-partial-messages")
    if o.include_hook_events:
        argv.append("--include-hook-events")

    # debugging, then the caller's own flags (last: they override)
    if o.debug is True:
        argv.append("--debug")
    elif isinstance(o.debug, str) and o.debug:
        argv.append(_flag("debug", o.debug))
    if o.debug_file is not None:
        argv.append(_flag("debug-file", o.debug_file))
    if debug_to_stderr(o):
        argv.append("--debug-to-stderr")
    for flag, value in o.extra_args.items():
        argv.append(f"--{flag}" if value is None else _flag(flag, value))
    return argv


def debug_to_stderr(options: Options) -> bool:
    """Whether the CLI writes its debug log to stderr (``--debug-to-stderr``).

    Without that flag the CLI writes it to a file (``debug_file``, else one under
    ``~/.claude/debug/``), and the host's stderr callback sees none of it: so a ``debug``
    without a ``debug_file`` asks for stderr unless ``debug_to_stderr`` is False.
    """
    if options.debug_to_stderr is not None:
        return options.debug_to_stderr
    return options.debug not in (False, "") and options.debug_file is None


#: ``AskUserQuestionConfig`` field -> the variable it sets (the TypeScript SDK's names).
_QUESTION_ENV: Final = (
    ("extended_questions", "CLAUDE_CODE_QUESTION_EXTENDED"),
    ("optional_descriptions", "CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS"),
)


def _tool_config_env(options: Options, env: dict[str, str], unset: list[str]) -> None:
    """``tool_config`` as variables: set what it sets, remove what it turns off."""
    config = options.tool_config
    questions = config.ask_user_question if config is not None else None
    if questions is None:
        return
    if questions.preview_format is not None:
        env["CLAUDE_CODE_QUESTION_PREVIEW_FORMAT"] = questions.preview_format
    for field, name in _QUESTION_ENV:
        value = getattr(questions, field)
        if value is True:
            env[name] = "1"
        elif value is False:
            env.pop(name, None)
            if name not in unset:
                unset.append(name)


def build_env(options: Options) -> tuple[dict[str, str], tuple[str, ...]]:
    """The variables to set and the inherited ones to remove (see the module docstring)."""
    env: dict[str, str] = {
        "CLAUDE_CODE_ENTRYPOINT": "sdk-py",
        "CLAUDE_CODE_SDK_READS_SESSION_STATE": "1",
    }
    unset = list(UNSET_ENV)
    for key, value in options.env.items():
        if value is None:
            env.pop(key, None)
            if key not in unset:
                unset.append(key)
        else:
            env[key] = value
            if key in unset:
                unset.remove(key)
    if options.enable_file_checkpointing:
        env["CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"] = "true"
    if options.client_app is not None:
        env["CLAUDE_AGENT_SDK_CLIENT_APP"] = options.client_app
    _tool_config_env(options, env, unset)
    env["CLAUDE_AGENT_SDK_VERSION"] = __version__
    return env, tuple(unset)


def build_launch_spec(options: Options) -> LaunchSpec:
    """The command line, environment and limits for ``options`` (pure)."""
    env, unset = build_env(options)
    return LaunchSpec(
        argv=tuple(build_argv(options)),
        cli_path=options.cli_path,
        env=env,
        unset_env=unset,
        cwd=options.cwd,
        user=options.user,
        max_line_bytes=options.max_line_bytes,
        shutdown_grace=options.shutdown_grace,
        stderr=options.stderr,
    )


# --------------------------------------------------------------------------------------
# initialize (§6.4)


def build_initialize(options: Options) -> tuple[InitializeRequest, dict[str, HookRegistration]]:
    """The ``initialize`` request for ``options`` and the hook id table.

    Fields left None are not sent; the minimal request is ``{"subtype": "initialize",
    "hooks": null}``.
    """
    o = options
    hooks, table = register_hooks(o.hooks)
    fields: dict[str, Any] = {}
    prompt = o.system_prompt
    if isinstance(prompt, str):
        fields["system_prompt"] = [prompt]
    elif isinstance(prompt, SystemPromptCustom):
        fields["system_prompt"] = prompt.blocks
        fields["system_prompt_snapshot"] = prompt.snapshot
    elif isinstance(prompt, SystemPromptPreset):
        fields["append_system_prompt"] = prompt.append
        fields["exclude_dynamic_sections"] = prompt.exclude_dynamic_sections
        fields["system_prompt_snapshot"] = prompt.snapshot
    if o.agents:
        fields["agents"] = dict(o.agents)
    if isinstance(o.skills, tuple):
        fields["skills"] = list(o.skills)
    if o.on_user_dialog is not None and o.supported_dialog_kinds:
        fields["supported_dialog_kinds"] = list(o.supported_dialog_kinds)
    if o.tool_aliases:
        fields["tool_aliases"] = dict(o.tool_aliases)
    _path, _in_process, external = mcp_delivery(o)
    if external:
        fields["mcp_servers"] = external
    settings = _settings_value(o)
    if settings is not None and _is_json_text(settings):
        fields["settings"] = loads(settings)
    if o.managed_settings is not None:
        fields["managed_settings"] = dict(o.managed_settings)
    request = InitializeRequest(
        hooks=hooks,
        json_schema=o.output_schema,
        title=o.title,
        plan_mode_instructions=o.plan_mode_instructions,
        prompt_suggestions=o.prompt_suggestions,
        agent_progress_summaries=o.agent_progress_summaries,
        forward_subagent_text=o.forward_subagent_text,
        per_task_stop_affordance=o.per_task_stop_affordance,
        **fields,
    )
    return request, table
