"""`Options`: everything a session is configured with.

A frozen attrs class (derive variants with ``attrs.evolve``, which validates again). Field
names follow the official Python SDK where it has one, and the TypeScript SDK's option (in
snake_case) where only it has one; the deadlines and limits are ours, each raising its own
typed error. Invalid values and contradictory combinations fail at construction with a
`ValueError` or `TypeError` whose message names the option; combinations that are legal but
probably not what was meant emit a `ClaudeSDKWarning`.

How each option reaches the CLI (argv flag, environment variable or ``initialize`` field) is
decided in one place, ``claude_sdk._protocol.launch``; ``reference/PROTOCOL.md`` §2.3 has the
table. Lists given as one string are one item (``allowed_tools="Read"`` is ``("Read",)``),
never the string's characters.
"""

from __future__ import annotations

import json
import math
import os
import re
import uuid
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias, TypeGuard, get_args

import attrs

from ._protocol.framing import DEFAULT_MAX_LINE_BYTES
from ._schema import json_schema
from .control import AgentDefinition
from .hooks import HOOK_EVENTS, HookMatcher
from .permissions import CanUseTool, PermissionMode

__all__ = [
    "ClaudeSDKWarning",
    "Effort",
    "ElicitationCallback",
    "McpHttpServer",
    "McpSSEServer",
    "McpServerConfig",
    "McpStdioServer",
    "Options",
    "PermissionPrompts",
    "SettingSource",
    "SystemPrompt",
    "SystemPromptCustom",
    "SystemPromptFile",
    "SystemPromptPreset",
    "ThinkingConfig",
    "ThinkingDisplay",
    "ToolsPreset",
    "UserDialogCallback",
]

ElicitationCallback = Callable[[Any], Awaitable[Mapping[str, Any]]]
"""``on_elicitation(request) -> {"action": "accept"|"decline"|"cancel", "content"?: ...}``."""

UserDialogCallback = Callable[[Any], Awaitable[Mapping[str, Any] | None]]
"""``on_user_dialog(request) -> {"behavior": "completed", "result": ...}`` or None (no answer)."""

#: Which settings files the CLI loads (``--setting-sources``).
SettingSource = Literal["user", "project", "local"]
#: How hard the model works (``--effort``).
Effort = Literal["low", "medium", "high", "xhigh", "max"]
#: Whether thinking text is returned summarised or omitted (``--thinking-display``).
ThinkingDisplay = Literal["summarized", "omitted"]
#: Who answers permission prompts the host does not (``--permission-prompts``).
PermissionPrompts = Literal["host", "none"]

_PERMISSION_MODES: tuple[str, ...] = get_args(PermissionMode)
_SETTING_SOURCES: tuple[str, ...] = get_args(SettingSource)
_EFFORTS: tuple[str, ...] = get_args(Effort)
_THINKING_DISPLAYS: tuple[str, ...] = get_args(ThinkingDisplay)
_PERMISSION_PROMPTS: tuple[str, ...] = get_args(PermissionPrompts)


class ClaudeSDKWarning(UserWarning):
    """Options that are legal but probably do not do what was meant.

    Silence one with ``warnings.filterwarnings("ignore", category=ClaudeSDKWarning)``.
    """


def _warn(message: str) -> None:
    # Options.__init__ (generated) -> __attrs_post_init__ -> _check -> here: point at the
    # caller of Options(...).
    warnings.warn(message, ClaudeSDKWarning, stacklevel=5)


# ======================================================================================
# Converters (named functions: the mypy attrs plugin reads their parameter types)


def _strs(value: str | Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(value)


def _opt_strs(value: str | Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else _strs(value)


def _path(value: str | os.PathLike[str] | None) -> str | None:
    return None if value is None else os.fspath(value)


def _paths(value: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> tuple[str, ...]:
    if isinstance(value, (str, os.PathLike)):
        return (os.fspath(value),)
    return tuple(os.fspath(v) for v in value)


def _str_dict(value: Mapping[str, str]) -> dict[str, str]:
    return dict(value)


def _env(value: Mapping[str, str | None]) -> dict[str, str | None]:
    return dict(value)


def _extra_args(value: Mapping[str, str | None]) -> dict[str, str | None]:
    return dict(value)


def _opt_dict(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if value is None else dict(value)


def _settings_conv(
    value: Mapping[str, Any] | str | os.PathLike[str] | None,
) -> dict[str, Any] | str | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        return dict(value)
    return os.fspath(value)


def _hooks(value: Mapping[str, Sequence[HookMatcher]]) -> dict[str, tuple[HookMatcher, ...]]:
    if not isinstance(value, Mapping):
        raise TypeError(f"Options.hooks must map event names to matchers, not {value!r}")
    out: dict[str, tuple[HookMatcher, ...]] = {}
    for event, matchers in value.items():
        if isinstance(matchers, HookMatcher):
            matchers = (matchers,)
        out[event] = tuple(matchers)
    return out


# ======================================================================================
# System prompt


@attrs.frozen(kw_only=True)
class SystemPromptPreset:
    """The CLI's own Claude Code system prompt, optionally with text appended.

    Attributes:
        preset: the preset's name (only ``"claude_code"`` exists).
        append: text appended to the preset (sent in ``initialize``, never on argv).
        exclude_dynamic_sections: move per-machine sections (cwd, git status, memory) into
            the first user message, so the prompt stays cacheable across users.
        snapshot: record the prompt once per conversation and reuse it verbatim (CLI >=
            2.1.257; None leaves the CLI's default).
    """

    preset: Literal["claude_code"] = attrs.field(
        default="claude_code", validator=attrs.validators.in_(("claude_code",))
    )
    append: str | None = None
    exclude_dynamic_sections: bool | None = None
    snapshot: bool | None = None


@attrs.frozen
class SystemPromptFile:
    """A system prompt read by the CLI from a file (``--system-prompt-file``)."""

    path: str = attrs.field(converter=os.fspath)


def _prompt_blocks(value: str | Iterable[str]) -> str | tuple[str, ...]:
    return value if isinstance(value, str) else tuple(value)


@attrs.frozen(kw_only=True)
class SystemPromptCustom:
    """A custom system prompt with the snapshot switch.

    Attributes:
        prompt: the text, or several blocks (the CLI joins them; the element
            ``"__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__"`` marks where dynamic content may go).
        snapshot: as `SystemPromptPreset.snapshot`.
    """

    prompt: str | tuple[str, ...] = attrs.field(converter=_prompt_blocks)
    snapshot: bool | None = None

    @property
    def blocks(self) -> list[str]:
        """The prompt as the list of blocks ``initialize.systemPrompt`` carries."""
        return [self.prompt] if isinstance(self.prompt, str) else list(self.prompt)


SystemPrompt: TypeAlias = str | SystemPromptPreset | SystemPromptFile | SystemPromptCustom
"""Every form ``Options.system_prompt`` takes (None: an empty prompt)."""


def _system_prompt(
    value: str
    | SystemPromptPreset
    | SystemPromptFile
    | SystemPromptCustom
    | Mapping[str, Any]
    | None,
) -> str | SystemPromptPreset | SystemPromptFile | SystemPromptCustom | None:
    """Accepts the official SDKs' dict forms (``{"type": "preset", ...}``) too."""
    if value is None or isinstance(
        value, (str, SystemPromptPreset, SystemPromptFile, SystemPromptCustom)
    ):
        return value
    if isinstance(value, Mapping):
        d = dict(value)
        kind = d.pop("type", None)
        try:
            if kind == "preset":
                return SystemPromptPreset(**d)
            if kind == "file":
                return SystemPromptFile(**d)
            if kind == "custom":
                return SystemPromptCustom(**d)
        except TypeError as exc:
            raise TypeError(f"Options.system_prompt: {exc}") from None
        raise ValueError(
            f"Options.system_prompt: unknown type {kind!r} (expected 'preset', 'file' or 'custom')"
        )
    raise TypeError(
        "Options.system_prompt must be a str, SystemPromptPreset, SystemPromptFile or "
        f"SystemPromptCustom, not {type(value).__name__}"
    )


# ======================================================================================
# Tools and thinking


@attrs.frozen
class ToolsPreset:
    """The CLI's default set of built-in tools (``--tools=default``)."""

    preset: Literal["claude_code"] = attrs.field(
        default="claude_code", validator=attrs.validators.in_(("claude_code",))
    )


def _tools(
    value: str | Iterable[str] | ToolsPreset | Mapping[str, Any] | None,
) -> tuple[str, ...] | ToolsPreset | None:
    if value is None or isinstance(value, ToolsPreset):
        return value
    if value == "claude_code":
        return ToolsPreset()
    if isinstance(value, Mapping):
        if value.get("type") == "preset":
            return ToolsPreset(value.get("preset", "claude_code"))
        raise ValueError(f"Options.tools: unknown preset {dict(value)!r}")
    return _strs(value)


@attrs.frozen(kw_only=True)
class ThinkingConfig:
    """How the model thinks.

    Build one with `adaptive`, `enabled` or `disabled`. ``type="enabled"`` without a budget
    means adaptive (as in the TypeScript SDK).

    Attributes:
        type: ``"adaptive"`` (the model decides), ``"enabled"`` (a fixed budget) or
            ``"disabled"``.
        budget_tokens: the thinking budget, for ``"enabled"``.
        display: ``"summarized"`` or ``"omitted"`` thinking text; None is the model's default.
    """

    type: Literal["adaptive", "enabled", "disabled"] = "adaptive"
    budget_tokens: int | None = None
    display: ThinkingDisplay | None = None

    def __attrs_post_init__(self) -> None:
        if self.type not in ("adaptive", "enabled", "disabled"):
            raise ValueError(
                f"ThinkingConfig.type must be 'adaptive', 'enabled' or 'disabled', "
                f"not {self.type!r}"
            )
        if self.budget_tokens is not None:
            if self.type != "enabled":
                raise ValueError("ThinkingConfig.budget_tokens needs type='enabled'")
            if not _is_int(self.budget_tokens) or self.budget_tokens <= 0:
                raise ValueError(
                    f"ThinkingConfig.budget_tokens must be a positive integer, "
                    f"not {self.budget_tokens!r}"
                )
        if self.display is not None:
            if self.display not in _THINKING_DISPLAYS:
                raise ValueError(
                    f"ThinkingConfig.display must be one of {_THINKING_DISPLAYS}, "
                    f"not {self.display!r}"
                )
            if self.type == "disabled":
                raise ValueError("ThinkingConfig.display has no effect with type='disabled'")

    @classmethod
    def adaptive(cls, *, display: ThinkingDisplay | None = None) -> ThinkingConfig:
        """The model decides when and how much to think."""
        return cls(type="adaptive", display=display)

    @classmethod
    def enabled(
        cls, budget_tokens: int, *, display: ThinkingDisplay | None = None
    ) -> ThinkingConfig:
        """Think with a fixed token budget."""
        return cls(type="enabled", budget_tokens=budget_tokens, display=display)

    @classmethod
    def disabled(cls) -> ThinkingConfig:
        """No extended thinking."""
        return cls(type="disabled")


def _thinking(value: ThinkingConfig | Mapping[str, Any] | None) -> ThinkingConfig | None:
    if value is None or isinstance(value, ThinkingConfig):
        return value
    if isinstance(value, Mapping):
        try:
            return ThinkingConfig(**value)
        except TypeError as exc:
            raise TypeError(f"Options.thinking: {exc}") from None
    raise TypeError(
        f"Options.thinking must be a ThinkingConfig or a dict, not {type(value).__name__}"
    )


def _task_budget(value: int | Mapping[str, int] | None) -> int | None:
    if isinstance(value, Mapping):
        if set(value) != {"total"}:
            raise ValueError(f"Options.task_budget must be {{'total': N}}, not {dict(value)!r}")
        return value["total"]
    return value


# ======================================================================================
# MCP servers (§11.1)


def _headers(value: Mapping[str, str]) -> dict[str, str]:
    return dict(value)


def _opt_policies(
    value: Iterable[Mapping[str, Any]] | None,
) -> tuple[dict[str, Any], ...] | None:
    return None if value is None else tuple(dict(v) for v in value)


def _mcp_timeout(instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
    if value is None:
        return
    if not _is_int(value) or value < 1000:
        raise ValueError(
            f"{type(instance).__name__}.timeout is in milliseconds and the CLI ignores values "
            f"under 1000, not {value!r}"
        )


@attrs.frozen(kw_only=True)
class McpStdioServer:
    """An MCP server the CLI starts as a child process.

    Attributes:
        command: the program.
        args: its arguments.
        env: extra environment variables for it.
        timeout: per tool call, in milliseconds (at least 1000); overrides
            ``MCP_TOOL_TIMEOUT``.
        always_load: never defer its tools behind ToolSearch, and wait (up to 5 s) for it
            to connect at start-up.
    """

    command: str
    args: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    env: dict[str, str] = attrs.field(factory=dict, converter=_str_dict)
    timeout: int | None = attrs.field(default=None, validator=_mcp_timeout)
    always_load: bool | None = None


@attrs.frozen(kw_only=True)
class McpSSEServer:
    """A remote MCP server over server-sent events.

    Attributes:
        url: the endpoint.
        headers: HTTP headers (for example ``Authorization``).
        tools: per-tool policies, ``{"name", "permission_policy"?, "org_max_permission"?}``.
        timeout: as `McpStdioServer.timeout`.
        always_load: as `McpStdioServer.always_load`.
    """

    url: str
    headers: dict[str, str] = attrs.field(factory=dict, converter=_headers)
    tools: tuple[dict[str, Any], ...] | None = attrs.field(default=None, converter=_opt_policies)
    timeout: int | None = attrs.field(default=None, validator=_mcp_timeout)
    always_load: bool | None = None


@attrs.frozen(kw_only=True)
class McpHttpServer:
    """A remote MCP server over streamable HTTP (fields as `McpSSEServer`)."""

    url: str
    headers: dict[str, str] = attrs.field(factory=dict, converter=_headers)
    tools: tuple[dict[str, Any], ...] | None = attrs.field(default=None, converter=_opt_policies)
    timeout: int | None = attrs.field(default=None, validator=_mcp_timeout)
    always_load: bool | None = None


McpServerConfig: TypeAlias = McpStdioServer | McpSSEServer | McpHttpServer | Mapping[str, Any]
"""A server the CLI connects to itself (a typed config or the wire dict of §11.1). Any other
value in ``Options.mcp_servers`` is an in-process server."""

_MCP_CONFIG_CLASSES = (McpStdioServer, McpSSEServer, McpHttpServer)


def _mcp_servers(
    value: Mapping[str, Any] | str | os.PathLike[str],
) -> dict[str, Any] | str:
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    if not isinstance(value, Mapping):
        raise TypeError(
            "Options.mcp_servers must map server names to configs (or be a path or JSON "
            f"text for --mcp-config), not {type(value).__name__}"
        )
    return dict(value)


def _check_mcp_dict(name: str, config: Mapping[str, Any]) -> None:
    kind = config.get("type", "stdio")
    where = f"Options.mcp_servers[{name!r}]"
    if kind == "stdio":
        if not isinstance(config.get("command"), str):
            raise ValueError(f"{where}: a stdio server needs a 'command' string")
    elif kind in ("sse", "http"):
        if not isinstance(config.get("url"), str):
            raise ValueError(f"{where}: an {kind} server needs a 'url' string")
    elif kind != "sdk" and not isinstance(kind, str):
        raise ValueError(f"{where}: 'type' must be a string, not {kind!r}")


# ======================================================================================
# Plugins and agents


def _plugins(
    value: str | os.PathLike[str] | Iterable[str | os.PathLike[str] | Mapping[str, Any]],
) -> tuple[str, ...]:
    """Local plugin directories; ``{"type": "local", "path": ...}`` dicts are accepted."""
    items: Iterable[Any] = (value,) if isinstance(value, (str, os.PathLike)) else value
    out: list[str] = []
    for item in items:
        if isinstance(item, Mapping):
            if item.get("type", "local") != "local" or "path" not in item:
                raise ValueError(
                    f"Options.plugins: only local plugins ({{'type': 'local', 'path': ...}}) "
                    f"exist, not {dict(item)!r}"
                )
            item = item["path"]
        out.append(os.fspath(item))
    return tuple(out)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def _agents(
    value: Mapping[str, AgentDefinition | Mapping[str, Any]] | None,
) -> dict[str, AgentDefinition] | None:
    """Accepts `AgentDefinition` values, or dicts with snake_case or camelCase keys."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"Options.agents must map names to AgentDefinition, not {value!r}")
    fields = set(attrs.fields_dict(AgentDefinition)) - {"extra"}
    out: dict[str, AgentDefinition] = {}
    for name, agent in value.items():
        if isinstance(agent, Mapping):
            kwargs = {_snake(k) if _snake(k) in fields else k: v for k, v in agent.items()}
            unknown = sorted(set(kwargs) - fields)
            if unknown:
                raise ValueError(f"Options.agents[{name!r}]: unknown keys {unknown}")
            try:
                agent = AgentDefinition(**kwargs)
            except TypeError as exc:
                raise TypeError(f"Options.agents[{name!r}]: {exc}") from None
        elif not isinstance(agent, AgentDefinition):
            raise TypeError(
                f"Options.agents[{name!r}] must be an AgentDefinition, not {type(agent).__name__}"
            )
        out[name] = agent
    return out


# ======================================================================================
# Skills and output format


def _skills(value: str | Iterable[str] | None) -> Literal["all"] | tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value == "all":
            return "all"
        raise ValueError(
            f"Options.skills must be 'all' or a list of skill names, not the string {value!r}"
        )
    return tuple(value)


_BAD_SKILL = re.compile(r"[(),*?\[\]\x00-\x1f\x7f]")


def skill_name_problem(name: object) -> str | None:
    """Why ``name`` is not a valid skill name (§2.3), or None when it is."""
    if not isinstance(name, str):
        return f"{name!r} is not a string"
    if not name:
        return "a name is empty"
    if name != name.strip():
        return f"{name!r} has surrounding whitespace"
    if name.startswith("/"):
        return f"{name!r} starts with '/'"
    if _BAD_SKILL.search(name):
        return f"{name!r} contains '(', ')', ',', a wildcard or a control character"
    return None


def _output_format(value: Mapping[str, Any] | type | None) -> dict[str, Any] | type | None:
    """A JSON Schema dict (the official ``{"type": "json_schema", "schema": ...}`` wrapper
    is unwrapped) or an attrs class."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        d = dict(value)
        if d.get("type") == "json_schema" and isinstance(d.get("schema"), Mapping):
            return dict(d["schema"])
        return d
    if _is_attrs_class(value):
        return value
    raise TypeError(
        f"Options.output_format must be a JSON Schema dict or an attrs class, not {value!r}"
    )


# ======================================================================================
# Validators


def _positive(instance: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is None:
        return
    if math.isnan(value) or value <= 0:
        raise ValueError(f"Options.{attribute.name} must be positive, not {value!r}")


def _max_line(instance: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if value < 1024:
        raise ValueError(f"Options.max_line_bytes must be an integer >= 1024, not {value!r}")


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _is_attrs_class(value: object) -> TypeGuard[type]:
    return isinstance(value, type) and attrs.has(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _non_negative_int(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if not _is_int(value):
        raise TypeError(f"Options.{attribute.name} must be an integer, not {value!r}")
    if value < 0:
        raise ValueError(f"Options.{attribute.name} must be >= 0, not {value!r}")


def _positive_int(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if not _is_int(value):
        raise TypeError(f"Options.{attribute.name} must be an integer, not {value!r}")
    if value <= 0:
        raise ValueError(f"Options.{attribute.name} must be positive, not {value!r}")


def _budget(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"Options.{attribute.name} must be a number, not {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"Options.{attribute.name} must be a finite number >= 0, not {value!r}")


def _one_of(choices: tuple[str, ...]) -> Callable[[object, attrs.Attribute[Any], Any], None]:
    def check(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is not None and value not in choices:
            raise ValueError(
                f"Options.{attribute.name} must be one of {', '.join(map(repr, choices))}, "
                f"not {value!r}"
            )

    return check


def _each_str(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    for item in value:
        if not isinstance(item, str):
            raise TypeError(f"Options.{attribute.name} must contain strings, not {item!r}")
        if not item:
            raise ValueError(f"Options.{attribute.name} contains an empty string")


def _optional_str(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"Options.{attribute.name} must be a string, not {value!r}")


def _callable(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not callable(value):
        raise TypeError(f"Options.{attribute.name} must be callable, not {value!r}")


def _uuid(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        raise TypeError(f"Options.{attribute.name} must be a string, not {value!r}")
    try:
        canonical = str(uuid.UUID(value))
    except ValueError:
        canonical = None
    if canonical != value.lower():
        raise ValueError(
            f"Options.{attribute.name} must be a UUID such as "
            f"'123e4567-e89b-12d3-a456-426614174000', not {value!r}"
        )


def _whole_tool(entry: str) -> str | None:
    """The tool an ``allowed_tools`` entry allows outright (``Read``, ``Read()``,
    ``Read(*)``), or None for a rule with a real specifier."""
    entry = entry.strip()
    if not entry:
        return None
    open_at = entry.find("(")
    if open_at == -1:
        return entry
    if open_at == 0 or not entry.endswith(")"):
        return None
    return entry[:open_at] if entry[open_at + 1 : -1] in ("", "*") else None


# ======================================================================================
# Options


@attrs.frozen(kw_only=True)
class Options:
    """How to start and drive a CLI session.

    **Process.** ``cli_path`` (None: discovered, see
    `claude_sdk.transports.discovery.find_cli`), ``cwd``, ``env`` (merged over the inherited
    environment; a None value removes an inherited variable), ``user`` (run the CLI as this
    OS user), ``extra_args`` (``{"flag": None}`` is ``--flag``, ``{"flag": "v"}`` is
    ``--flag=v``; added last, so they override), ``stderr`` (called per stderr line),
    ``client_app`` (``"name/version"`` in the CLI's User-Agent), ``debug`` (``True`` or a
    filter such as ``"hooks,mcp"``) and ``debug_file``.

    **Model and limits.** ``model``, ``fallback_model`` (one or several, tried in order; not
    the model itself), ``thinking`` (`ThinkingConfig`), ``max_thinking_tokens`` (deprecated:
    used only without ``thinking``; 0 disables thinking), ``effort``, ``max_turns`` (0 is
    honoured), ``max_budget_usd``, ``task_budget`` (tokens, or ``{"total": N}``), ``betas``.

    **System prompt and context.** ``system_prompt``: None (the default) is an **empty**
    prompt, as in the official SDKs, not Claude Code's; a str is a custom prompt;
    `SystemPromptPreset` is Claude Code's prompt (with ``append``); `SystemPromptFile`;
    `SystemPromptCustom` (with ``snapshot``). ``plan_mode_instructions``, ``agent`` (the
    main thread's agent), ``agents`` (name -> `AgentDefinition`), ``skills`` (``"all"`` or
    names: also allows the ``Skill`` tool and, without ``setting_sources``, loads the user
    and project settings where skills live), ``title``.

    **Tools and permissions.** ``tools`` (the built-in tool set: names, ``[]`` for none, or
    `ToolsPreset`), ``allowed_tools`` (rules approved without asking), ``disallowed_tools``,
    ``tool_aliases``, ``permission_mode`` (None or ``"default"``: the CLI's default),
    ``allow_dangerously_skip_permissions`` (implied by ``"bypassPermissions"``; as root the
    CLI also needs ``IS_SANDBOX=1`` in ``env``), ``can_use_tool`` (the host answers permission
    prompts), ``permission_prompt_tool_name`` (an MCP tool answers them instead),
    ``permission_prompts``.

    **MCP, settings, plugins.** ``mcp_servers`` (name -> `McpStdioServer`, `McpSSEServer`,
    `McpHttpServer` or the wire dict; any other value is an in-process server; or a path or
    JSON text passed to ``--mcp-config`` as is), ``strict_mcp_config``, ``settings`` (a dict,
    JSON text, or a path), ``sandbox`` (merged into the settings under ``"sandbox"``;
    ``enabled: True`` defaults ``failIfUnavailable: True``), ``managed_settings``,
    ``setting_sources`` (None: the CLI loads all; ``[]``: none), ``add_dirs``, ``plugins``
    (local plugin directories), ``project_config_root``, ``enable_file_checkpointing``.

    **Sessions.** ``continue_conversation`` (the latest session in ``cwd``), ``resume``,
    ``fork_session`` (with either: a new session id), ``session_id`` (a UUID for the new
    session), ``resume_session_at`` (a message uuid to truncate the resumed conversation
    at), ``resume_drops_turn``, ``persist_session`` (False: no session file).

    **Output.** ``output_format`` (a JSON Schema dict or an attrs class, whose schema is
    derived; the result then carries ``structured_output``), ``include_partial_messages``,
    ``include_hook_events``, ``forward_subagent_text``, ``verbatim_prompts`` (user lines are
    sent ``client_composed``: no ``@file`` expansion or slash commands; CLI >= 2.1.248),
    ``prompt_suggestions``, ``agent_progress_summaries``, ``per_task_stop_affordance``.

    **Callbacks.** ``can_use_tool``, ``hooks`` (event -> `HookMatcher` list),
    ``on_elicitation``, ``on_user_dialog`` with ``supported_dialog_kinds``.

    **Deadlines and limits (ours):**

    =====================  ========  ===================================================
    ``initialize_timeout`` 60 s      spawn plus the initialize handshake
                                     (`InitializeTimeoutError`)
    ``control_timeout``    60 s      each host-to-CLI control request
                                     (`ControlTimeoutError`)
    ``inactivity_timeout`` None      silence on stdout while a consumer waits
                                     (`InactivityTimeoutError`); ``session.last_activity``
                                     lets callers decide otherwise
    ``callback_timeout``   None      a ``can_use_tool`` callback running longer is denied
    ``shutdown_grace``     5 s       after stdin closes, time to exit before SIGTERM
    ``max_line_bytes``     256 MiB   a longer stdout line ends the session
                                     (`LineTooLongError`)
    =====================  ========  ===================================================
    """

    # -- process --------------------------------------------------------------------
    cli_path: str | None = attrs.field(default=None, converter=_path)
    cwd: str | None = attrs.field(default=None, converter=_path)
    env: dict[str, str | None] = attrs.field(factory=dict, converter=_env)
    user: str | None = attrs.field(default=None, validator=_optional_str)
    extra_args: dict[str, str | None] = attrs.field(factory=dict, converter=_extra_args)
    stderr: Callable[[str], object] | None = attrs.field(default=None, validator=_callable)
    client_app: str | None = attrs.field(default=None, validator=_optional_str)
    debug: bool | str = False
    debug_file: str | None = attrs.field(default=None, converter=_path)

    # -- model and limits -----------------------------------------------------------
    model: str | None = attrs.field(default=None, validator=_optional_str)
    fallback_model: tuple[str, ...] | None = attrs.field(
        default=None, converter=_opt_strs, validator=_each_str
    )
    thinking: ThinkingConfig | None = attrs.field(default=None, converter=_thinking)
    max_thinking_tokens: int | None = attrs.field(default=None, validator=_non_negative_int)
    effort: Effort | None = attrs.field(default=None, validator=_one_of(_EFFORTS))
    max_turns: int | None = attrs.field(default=None, validator=_non_negative_int)
    max_budget_usd: float | None = attrs.field(default=None, validator=_budget)
    task_budget: int | None = attrs.field(
        default=None, converter=_task_budget, validator=_positive_int
    )
    betas: tuple[str, ...] = attrs.field(default=(), converter=_strs, validator=_each_str)

    # -- system prompt and context ----------------------------------------------------
    system_prompt: SystemPrompt | None = attrs.field(default=None, converter=_system_prompt)
    plan_mode_instructions: str | None = attrs.field(default=None, validator=_optional_str)
    agent: str | None = attrs.field(default=None, validator=_optional_str)
    agents: dict[str, AgentDefinition] | None = attrs.field(default=None, converter=_agents)
    skills: Literal["all"] | tuple[str, ...] | None = attrs.field(default=None, converter=_skills)
    title: str | None = attrs.field(default=None, validator=_optional_str)

    # -- tools and permissions --------------------------------------------------------
    tools: tuple[str, ...] | ToolsPreset | None = attrs.field(default=None, converter=_tools)
    allowed_tools: tuple[str, ...] = attrs.field(default=(), converter=_strs, validator=_each_str)
    disallowed_tools: tuple[str, ...] = attrs.field(
        default=(), converter=_strs, validator=_each_str
    )
    tool_aliases: dict[str, str] | None = attrs.field(default=None, converter=_opt_dict)
    permission_mode: PermissionMode | None = attrs.field(
        default=None, validator=_one_of(_PERMISSION_MODES)
    )
    allow_dangerously_skip_permissions: bool = False
    permission_prompt_tool_name: str | None = attrs.field(default=None, validator=_optional_str)
    permission_prompts: PermissionPrompts | None = attrs.field(
        default=None, validator=_one_of(_PERMISSION_PROMPTS)
    )

    # -- MCP, settings, plugins -------------------------------------------------------
    mcp_servers: dict[str, Any] | str = attrs.field(factory=dict, converter=_mcp_servers)
    strict_mcp_config: bool = False
    settings: dict[str, Any] | str | None = attrs.field(default=None, converter=_settings_conv)
    sandbox: dict[str, Any] | None = attrs.field(default=None, converter=_opt_dict)
    managed_settings: dict[str, Any] | None = attrs.field(default=None, converter=_opt_dict)
    setting_sources: tuple[SettingSource, ...] | None = attrs.field(
        default=None, converter=_opt_strs
    )
    add_dirs: tuple[str, ...] = attrs.field(default=(), converter=_paths)
    plugins: tuple[str, ...] = attrs.field(default=(), converter=_plugins)
    project_config_root: str | None = attrs.field(default=None, converter=_path)
    enable_file_checkpointing: bool = False

    # -- sessions -----------------------------------------------------------------------
    continue_conversation: bool = False
    resume: str | None = attrs.field(default=None, validator=_optional_str)
    fork_session: bool = False
    session_id: str | None = attrs.field(default=None, validator=_uuid)
    resume_session_at: str | None = attrs.field(default=None, validator=_optional_str)
    resume_drops_turn: str | None = attrs.field(default=None, validator=_optional_str)
    persist_session: bool = True

    # -- output -------------------------------------------------------------------------
    output_format: dict[str, Any] | type | None = attrs.field(
        default=None, converter=_output_format
    )
    include_partial_messages: bool = False
    include_hook_events: bool = False
    forward_subagent_text: bool | None = None
    verbatim_prompts: bool = False
    prompt_suggestions: bool | None = None
    agent_progress_summaries: bool | None = None
    per_task_stop_affordance: bool | None = None

    # -- callbacks ----------------------------------------------------------------------
    can_use_tool: CanUseTool | None = attrs.field(default=None, validator=_callable)
    hooks: dict[str, tuple[HookMatcher, ...]] = attrs.field(factory=dict, converter=_hooks)
    on_elicitation: ElicitationCallback | None = attrs.field(default=None, validator=_callable)
    on_user_dialog: UserDialogCallback | None = attrs.field(default=None, validator=_callable)
    supported_dialog_kinds: tuple[str, ...] = attrs.field(
        default=(), converter=_strs, validator=_each_str
    )

    # -- deadlines and limits (ours) --------------------------------------------------
    initialize_timeout: float = attrs.field(default=60.0, validator=_positive)
    control_timeout: float | None = attrs.field(default=60.0, validator=_positive)
    inactivity_timeout: float | None = attrs.field(default=None, validator=_positive)
    callback_timeout: float | None = attrs.field(default=None, validator=_positive)
    shutdown_grace: float = attrs.field(default=5.0, validator=_positive)
    max_line_bytes: int = attrs.field(default=DEFAULT_MAX_LINE_BYTES, validator=_max_line)

    # -- observability (ours) ---------------------------------------------------------
    #: OpenTelemetry spans for the session, turns, tools, hooks and control requests, and
    #: the trace context passed to the CLI (needs ``opentelemetry-api``; see
    #: `claude_sdk.telemetry`).
    telemetry: bool = False

    # -- derived (not arguments) --------------------------------------------------------
    _output_schema: dict[str, Any] | None = attrs.field(
        init=False, default=None, eq=False, repr=False
    )

    def __attrs_post_init__(self) -> None:
        _check(self)
        schema: dict[str, Any] | None
        if isinstance(self.output_format, type):
            try:
                schema = json_schema(self.output_format)
            except TypeError as exc:
                raise TypeError(f"Options.output_format: {exc}") from None
        else:
            schema = self.output_format
        object.__setattr__(self, "_output_schema", schema)

    # -- derived facts ------------------------------------------------------------------

    @property
    def has_callbacks(self) -> bool:
        """True when the CLI may call back into the host (so stdin must stay open)."""
        return (
            self.can_use_tool is not None
            or any(self.hooks.values())
            or bool(self.sdk_mcp_servers)
            or self.on_user_dialog is not None
        )

    @property
    def output_schema(self) -> dict[str, Any] | None:
        """The JSON Schema of ``output_format`` (derived for an attrs class); do not mutate."""
        return self._output_schema

    @property
    def output_type(self) -> type | None:
        """The attrs class of ``output_format``, when one was given."""
        return self.output_format if isinstance(self.output_format, type) else None

    @property
    def sdk_mcp_servers(self) -> dict[str, Any]:
        """The in-process MCP servers, by name (the server objects, opaque here)."""
        if not isinstance(self.mcp_servers, dict):
            return {}
        out: dict[str, Any] = {}
        for name, config in self.mcp_servers.items():
            if isinstance(config, _MCP_CONFIG_CLASSES):
                continue
            if isinstance(config, Mapping):
                if config.get("type") == "sdk":
                    out[name] = config.get("instance")
                continue
            out[name] = config
        return out


def _check(o: Options) -> None:
    """Cross-field validation and warnings (field-level checks run in the validators)."""
    # -- permissions
    if o.can_use_tool is not None and o.permission_prompt_tool_name is not None:
        raise ValueError(
            "Options.can_use_tool and Options.permission_prompt_tool_name are mutually "
            "exclusive: both answer permission prompts"
        )
    # -- sessions
    if o.continue_conversation and o.resume is not None:
        raise ValueError("Options.continue_conversation and Options.resume are mutually exclusive")
    if o.fork_session and not (o.resume is not None or o.continue_conversation):
        raise ValueError(
            "Options.fork_session needs Options.resume or Options.continue_conversation"
        )
    if (
        o.session_id is not None
        and (o.resume is not None or o.continue_conversation)
        and not o.fork_session
    ):
        raise ValueError(
            "Options.session_id with resume or continue_conversation needs "
            "Options.fork_session (the resumed session keeps its own id otherwise)"
        )
    if o.resume_session_at is not None and o.resume is None:
        raise ValueError("Options.resume_session_at needs Options.resume")
    if o.resume_drops_turn is not None and o.resume_session_at is None:
        raise ValueError("Options.resume_drops_turn needs Options.resume_session_at")
    # -- model
    if o.fallback_model is not None and o.model is not None and o.model in o.fallback_model:
        raise ValueError(f"Options.fallback_model must differ from Options.model ({o.model!r})")
    # -- skills
    if isinstance(o.skills, tuple):
        for name in o.skills:
            problem = skill_name_problem(name)
            if problem is not None:
                raise ValueError(f"Options.skills: invalid skill name: {problem}")
    # -- settings
    if o.setting_sources is not None:
        for source in o.setting_sources:
            if source not in _SETTING_SOURCES:
                raise ValueError(
                    f"Options.setting_sources entries must be one of {_SETTING_SOURCES}, "
                    f"not {source!r}"
                )
    if isinstance(o.settings, str) and o.settings.strip().startswith("{"):
        try:
            parsed = json.loads(o.settings)
        except ValueError as exc:
            raise ValueError(f"Options.settings is not valid JSON: {exc}") from None
        if not isinstance(parsed, dict):
            raise ValueError("Options.settings JSON must be an object")
    elif isinstance(o.settings, str) and o.sandbox is not None:
        raise ValueError(
            "Options.sandbox cannot be merged into a settings file path "
            f"({o.settings!r}); load the file and pass Options.settings as a dict"
        )
    # -- process
    for key, value in o.env.items():
        if not _is_str(key) or not key or "=" in key or "\x00" in key:
            raise ValueError(f"Options.env: invalid variable name {key!r}")
        if value is not None and not _is_str(value):
            raise TypeError(
                f"Options.env[{key!r}] must be a string (or None to unset), not {value!r}"
            )
    for flag, value in o.extra_args.items():
        if not _is_str(flag) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", flag):
            raise ValueError(
                f"Options.extra_args: invalid flag name {flag!r} (give it without the leading '--')"
            )
        if value is not None and not _is_str(value):
            raise TypeError(f"Options.extra_args[{flag!r}] must be a string or None, not {value!r}")
    if not isinstance(o.debug, (bool, str)):
        raise TypeError(f"Options.debug must be a bool or a filter string, not {o.debug!r}")
    # -- MCP
    if isinstance(o.mcp_servers, dict):
        for name, config in o.mcp_servers.items():
            if not _is_str(name) or not name:
                raise ValueError(f"Options.mcp_servers: invalid server name {name!r}")
            if isinstance(config, Mapping):
                _check_mcp_dict(name, config)
    # -- agents
    if o.agents is not None:
        for name in o.agents:
            if not _is_str(name) or not name:
                raise ValueError(f"Options.agents: invalid agent name {name!r}")
    # -- hooks
    for event, matchers in o.hooks.items():
        for matcher in matchers:
            if not isinstance(matcher, HookMatcher):
                raise TypeError(
                    f"Options.hooks[{event!r}] must contain HookMatcher values, not {matcher!r}"
                )
        if event not in HOOK_EVENTS:
            _warn(
                f"Options.hooks: {event!r} is not a hook event this SDK knows; the CLI will "
                "never call it unless it is a newer event"
            )
    # -- dialogs
    if o.supported_dialog_kinds and o.on_user_dialog is None:
        raise ValueError("Options.supported_dialog_kinds needs Options.on_user_dialog")
    if o.on_user_dialog is not None and not o.supported_dialog_kinds:
        _warn(
            "Options.on_user_dialog is set but Options.supported_dialog_kinds is empty, so "
            "the CLI will never ask for a dialog"
        )
    # -- thinking
    if o.thinking is not None and o.max_thinking_tokens is not None:
        _warn("Options.max_thinking_tokens is ignored because Options.thinking is set")
    # -- can_use_tool shadowed
    if o.can_use_tool is not None:
        if o.permission_mode == "bypassPermissions":
            _warn(
                "Options.can_use_tool will not be called: permission_mode "
                "'bypassPermissions' approves every tool call before the callback is "
                "consulted; use a PreToolUse hook to gate every call"
            )
        allowed = list(o.allowed_tools)
        if o.skills == "all":
            allowed.append("Skill")
        shadowed = list(dict.fromkeys(t for t in map(_whole_tool, allowed) if t is not None))
        if shadowed:
            _warn(
                f"Options.can_use_tool will not be called for {', '.join(shadowed)}: an "
                "Options.allowed_tools entry that names a whole tool approves it before the "
                "callback is consulted; narrow the rule (for example 'Bash(git:*)') or use a "
                "PreToolUse hook"
            )
