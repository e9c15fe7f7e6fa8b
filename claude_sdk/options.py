"""`Options`: everything a session is configured with.

A frozen attrs class (derive variants with ``attrs.evolve``, which validates again). Field
names follow the official Python SDK where it has one, and the TypeScript SDK's option (in
snake_case) where only it has one; the deadlines and limits are ours, each raising its own
typed error. Invalid values and contradictory combinations fail at construction with an
`OptionsError` (also a `ValueError` and a `TypeError`) whose ``option`` names the option;
combinations that are legal but probably not what was meant emit a `ClaudeSDKWarning`. No
string anywhere in the options may hold a NUL character (no command line or environment can
carry one), and every value sent as JSON must be one JSON can hold.

How each option reaches the CLI (argv flag, environment variable or ``initialize`` field) is
decided in one place, ``claude_sdk._protocol.launch`` (its module docstring has the
rules). Lists given as one string are one item (``allowed_tools="Read"`` is ``("Read",)``),
never the string's characters.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import re
import sys
import unicodedata
import uuid
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal, TypeAlias, TypeVar, cast, get_args

import attrs

from ._attrs import after_build, frozen
from ._base import WireModel
from ._limits import DEFAULT_MAX_LINE_BYTES
from ._schema import _is_schema_class, output_json_schema
from ._secrets import scrub_text
from .control import AgentDefinition
from .errors import OptionsError
from .hooks import HOOK_EVENTS, HookCallback, HookMatcher
from .permissions import CanUseTool, PermissionMode
from .retry import RetryPolicy
from .sandbox import SandboxSettings, sandbox_settings, unknown_keys
from .stores._contract import SessionStore
from .stores._keys import check_key_part, session_id_for

__all__ = [
    "AskUserQuestionConfig",
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
    "SkillShellPolicies",
    "SystemPrompt",
    "SystemPromptCustom",
    "SystemPromptFile",
    "SystemPromptPreset",
    "ThinkingConfig",
    "ThinkingDisplay",
    "ToolConfig",
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
#: `Options.session_store_flush`.
StoreFlush = Literal["batched", "eager"]
#: `Options.session_store_errors`.
StoreErrors = Literal["warn", "raise"]
#: `Options.session_lease`.
SessionLeaseMode = Literal["raise", "wait"]
#: `Options.resume_missing`.
ResumeMissing = Literal["error", "start"]
#: What an ``AskUserQuestion`` option's preview holds (`AskUserQuestionConfig`).
QuestionPreviewFormat = Literal["markdown", "html"]

_PERMISSION_MODES: tuple[str, ...] = get_args(PermissionMode)
_SETTING_SOURCES: tuple[str, ...] = get_args(SettingSource)
_EFFORTS: tuple[str, ...] = get_args(Effort)
_THINKING_DISPLAYS: tuple[str, ...] = get_args(ThinkingDisplay)
_PERMISSION_PROMPTS: tuple[str, ...] = get_args(PermissionPrompts)
_PREVIEW_FORMATS: tuple[str, ...] = get_args(QuestionPreviewFormat)


class ClaudeSDKWarning(UserWarning):
    """Options that are legal but probably do not do what was meant.

    Silence one with ``warnings.filterwarnings("ignore", category=ClaudeSDKWarning)``.
    """


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _warn(message: str) -> None:
    # Point at the caller of Options(...): the first frame outside this package and the
    # code attrs generated (Options.__init__ -> __attrs_post_init__ -> _check -> here).
    frame = sys._getframe(0)
    level = 1
    while frame.f_back is not None and (
        frame.f_code.co_filename.startswith(_PACKAGE_DIR)
        or frame.f_code.co_filename.startswith("<attrs generated")
    ):
        frame = frame.f_back
        level += 1
    warnings.warn(message, ClaudeSDKWarning, stacklevel=level)


# ======================================================================================
# Errors: every failure while building options is an OptionsError naming the option

#: The largest integer option accepted: the CLI reads numbers as JavaScript doubles, which
#: are exact only up to here (and Python refuses to write integers of over 4300 digits).
_MAX_INT = 2**53 - 1
#: How deeply a value sent as JSON (settings, MCP configs, ...) may nest.
_MAX_DEPTH = 64


def _show(value: object, limit: int = 60) -> str:
    """A short repr of a (non-secret) value for a message; never fails."""
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not hide the real problem
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def _option_errors(cls: type, fields: list[attrs.Attribute[Any]]) -> list[attrs.Attribute[Any]]:
    """attrs field transformer: a converter or validator that fails, in any way, raises an
    `OptionsError` naming its field (they run user code: ``__fspath__``, ``__iter__``, ...)."""
    owner = cls.__name__
    out: list[attrs.Attribute[Any]] = []
    for field in fields:
        changes: dict[str, Any] = {}
        converter: Any = field.converter  # a plain function: none here takes self or field
        if converter is not None:
            changes["converter"] = _guard_converter(owner, field.name, converter)
        if field.validator is not None:
            changes["validator"] = _guard_validator(owner, field.name, field.validator)
        out.append(field.evolve(**changes) if changes else field)
    return out


def _as_option_error(owner: str, name: str, exc: Exception) -> OptionsError:
    """``exc`` as an `OptionsError` about ``owner.name``, its message prefixed unless it
    already names that option (a converter's own errors say "must be ...", "is ...")."""
    if isinstance(exc, OptionsError):
        if exc.option == name:
            return exc
        glue = " " if exc.option is None else ": "
        return OptionsError(f"{owner}.{name}{glue}{exc.message}", option=name)
    try:
        detail = str(exc)
    except Exception:  # an exception of user code, as hostile as the rest of it
        detail = "(no message)"
    return OptionsError(f"{owner}.{name}: {type(exc).__name__}: {detail}", option=name)


def _guard_converter(
    owner: str, name: str, converter: Callable[[Any], Any]
) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        try:
            return converter(value)
        except Exception as exc:
            error = _as_option_error(owner, name, exc)
            if error is exc:
                raise
            raise error from exc

    return convert


def _guard_validator(
    owner: str, name: str, validator: Callable[[Any, attrs.Attribute[Any], Any], Any]
) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    def validate(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        try:
            validator(instance, attribute, value)
        except Exception as exc:
            error = _as_option_error(owner, name, exc)
            if error is exc:
                raise
            raise error from exc

    return validate


def _normalise(
    value: Any,
    where: str,
    option: str,
    *,
    as_json: bool,
    depth: int = 0,
    active: frozenset[int] = frozenset(),
) -> Any:
    """``value`` checked and rebuilt from exact built-in types.

    No string may hold a NUL character (no command line or environment can carry one), nor,
    outside JSON (which escapes it), a character the file system encoding cannot encode (a
    lone surrogate), which no command line can carry either. Subclasses of ``str``, ``int``
    and ``float`` become the plain type (their ``__str__`` or ``__format__`` could fail when
    the command line is built), and dicts, lists and tuples are copied. With ``as_json``, the
    value must be one JSON can hold: string keys, finite numbers, no other objects. Messages
    name the place, never a value.
    """
    if isinstance(value, str):
        if "\x00" in value:
            raise OptionsError(
                f"{where} contains a NUL character (\\x00), which no command line or "
                "environment can carry",
                option=option,
            )
        if not as_json:
            try:
                os.fsencode(value)  # what the spawn does with every argument and variable
            except UnicodeEncodeError as exc:
                raise OptionsError(
                    f"{where} contains a character the system cannot encode "
                    f"({exc.__class__.__name__}: {exc.reason})",
                    option=option,
                ) from None
        return value if type(value) is str else str.__str__(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if as_json and not -_MAX_INT <= value <= _MAX_INT:
            raise OptionsError(
                f"{where} is an integer beyond 2**53 - 1, which the CLI cannot read exactly",
                option=option,
            )
        return value if type(value) is int else int.__int__(value)
    if isinstance(value, float):
        if as_json and not math.isfinite(value):
            raise OptionsError(f"{where} is {value!r}, which JSON cannot hold", option=option)
        return value if type(value) is float else float.__float__(value)
    container = isinstance(value, (Mapping, list, tuple))
    if container or (not as_json and isinstance(value, (set, frozenset))):
        if id(value) in active:
            raise OptionsError(f"{where} contains itself", option=option)
        if depth >= _MAX_DEPTH:
            shown = where if len(where) <= 100 else f"{where[:97]}..."
            raise OptionsError(f"{shown} nests deeper than {_MAX_DEPTH} levels", option=option)
        inner = active | {id(value)}
        if isinstance(value, Mapping):
            out: dict[Any, Any] = {}
            for key, item in value.items():
                if as_json and not isinstance(key, str):
                    raise OptionsError(
                        f"{where} has a key of type {type(key).__name__}; JSON keys are strings",
                        option=option,
                    )
                at = f"{where}[{_show(key)}]"
                new_key = _normalise(key, f"{at} (the key)", option, as_json=as_json)
                out[new_key] = _normalise(
                    item, at, option, as_json=as_json, depth=depth + 1, active=inner
                )
            return out
        items = [
            _normalise(
                item, f"{where}[{i}]", option, as_json=as_json, depth=depth + 1, active=inner
            )
            for i, item in enumerate(value)
        ]
        if isinstance(value, list):
            return items
        return tuple(items) if isinstance(value, tuple) else value  # a set: checked only
    if as_json:
        raise OptionsError(
            f"{where} holds a value of type {type(value).__name__}, which JSON cannot hold",
            option=option,
        )
    if type(value) in _FOREIGN_CLASSES:
        # An agent or a hook matcher (the option classes check themselves when built): its
        # strings are checked in place.
        for field in attrs.fields(type(value)):
            _normalise(
                getattr(value, field.name),
                f"{where}.{field.name}",
                option,
                as_json=False,
                depth=depth + 1,
                active=active | {id(value)},
            )
    return value  # anything else (a callback, an in-process server) is opaque here


def _check_strings(instance: Any) -> None:
    """Normalise the fields of an option class in place (see `_normalise`); every field of
    the MCP server configs is sent as JSON."""
    owner = type(instance).__name__
    as_json = isinstance(instance, _MCP_CONFIG_CLASSES)
    for field in attrs.fields(type(instance)):
        if not field.init:
            continue
        value = getattr(instance, field.name)
        new = _normalise(value, f"{owner}.{field.name}", field.name, as_json=as_json)
        if new is not value:
            object.__setattr__(instance, field.name, new)


def _env_name_problem(key: object) -> str | None:
    """Why ``key`` cannot name an environment variable, or None."""
    if not isinstance(key, str):
        return f"a variable name must be a string, not {type(key).__name__}"
    if not key or "=" in key or "\x00" in key:
        return f"invalid variable name {_show(key)} (empty, or contains '=' or NUL)"
    return None


# ======================================================================================
# Converters (named functions: the mypy attrs plugin reads their parameter types). A
# converter that raises an OptionsError without an ``option`` has it filled in, and its
# message prefixed with the option's name, by `_option_errors`.


def _strs(value: str | Iterable[str]) -> tuple[str, ...]:
    given: object = value  # checked beyond its annotation: callers are not type-checked
    if isinstance(given, str):
        return (given,)
    if isinstance(given, (bytes, bytearray)) or not isinstance(given, Iterable):
        raise OptionsError(f"must be a string or a list of strings, not {type(given).__name__}")
    return tuple(given)


def _opt_strs(value: str | Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else _strs(value)


def _one_path(value: str | os.PathLike[str]) -> str:
    if not isinstance(value, (str, os.PathLike)):
        raise OptionsError(f"must be a str or os.PathLike path, not {type(value).__name__}")
    path = os.fspath(value)
    if not isinstance(path, str):
        raise OptionsError(f"must be a text path, not {type(path).__name__}")
    if not path:
        raise OptionsError("is an empty path")
    return path


def _path(value: str | os.PathLike[str] | None) -> str | None:
    return None if value is None else _one_path(value)


def _paths(value: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> tuple[str, ...]:
    given: object = value
    if isinstance(given, (str, os.PathLike)):
        return (_one_path(given),)
    if isinstance(given, (bytes, bytearray)) or not isinstance(given, Iterable):
        raise OptionsError(f"must be a path or a list of paths, not {type(given).__name__}")
    return tuple(_one_path(v) for v in given)


def _mapping(value: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise OptionsError(f"must be a mapping (a dict), not {type(value).__name__}")
    return dict(value)


def _str_dict(value: Mapping[str, str]) -> dict[str, str]:
    return _mapping(value)


def _env(value: Mapping[str, str | None]) -> dict[str, str | None]:
    return _mapping(value)


def _extra_args(value: Mapping[str, str | None]) -> dict[str, str | None]:
    return _mapping(value)


def _opt_dict(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if value is None else _mapping(value)


def _settings_conv(
    value: Mapping[str, Any] | str | os.PathLike[str] | None,
) -> dict[str, Any] | str | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        return dict(value)
    text = json_text(value)
    return text if text is not None else _one_path(value)


def _sandbox(value: SandboxSettings | Mapping[str, Any] | None) -> SandboxSettings | None:
    return sandbox_settings(value)


def _takes(callback: Any, count: int) -> bool:
    """Can ``callback`` be called with ``count`` positional arguments (True if unknown)?"""
    try:
        signature = inspect.signature(callback)
    except (TypeError, ValueError):  # a builtin or an extension: cannot tell
        return True
    try:
        signature.bind(*([None] * count))
    except TypeError:
        return False
    return True


def _is_policy(value: object) -> bool:
    """A `claude_sdk.policies.Policy` (told by its methods: the protocol core, which imports
    this module, does not import the policies)."""
    return callable(getattr(value, "decide", None)) and callable(
        getattr(value, "as_hook_matcher", None)
    )


#: The events a policy answers as a hook (``policies.PolicyHook``).
_POLICY_EVENTS = ("PreToolUse", "PreSkillShellCommand")


def _hook_callback(event: object, callback: object) -> Any:
    """One callback of a matcher (a policy is one: it answers PreToolUse and
    PreSkillShellCommand); a wrong one is refused now, not when the CLI first calls it."""
    if _is_policy(callback) and event not in _POLICY_EVENTS:
        raise OptionsError(
            f"Options.hooks[{_show(event)}]: a policy answers "
            f"{' and '.join(_POLICY_EVENTS)}, not {event}",
            option="hooks",
        )
    if not callable(callback):
        raise OptionsError(
            f"Options.hooks[{_show(event)}]: a hook must be callable, not {_show(callback)}",
            option="hooks",
        )
    if not _takes(callback, 2):
        raise OptionsError(
            f"Options.hooks[{_show(event)}]: the hook {_name(callback)} cannot be called as "
            "callback(hook_input, context); hooks here take two arguments (the official "
            "SDK's callback(input, tool_use_id, context) reads the id as context.tool_use_id)",
            option="hooks",
        )
    return callback


def _name(callback: object) -> str:
    return getattr(callback, "__qualname__", None) or type(callback).__name__


def _hooks(
    value: Mapping[str, Sequence[HookMatcher | HookCallback] | HookMatcher | HookCallback],
) -> dict[str, tuple[HookMatcher, ...]]:
    if not isinstance(value, Mapping):
        raise OptionsError(
            f"Options.hooks must map event names to matchers, not {type(value).__name__}",
            option="hooks",
        )
    out: dict[str, tuple[HookMatcher, ...]] = {}
    for event, given in value.items():
        matchers: object = given
        if isinstance(matchers, HookMatcher) or callable(matchers):
            matchers = (matchers,)
        if isinstance(matchers, (str, bytes)) or not isinstance(matchers, Iterable):
            raise OptionsError(
                f"Options.hooks[{_show(event)}] must be a list of HookMatcher, "
                f"not {type(matchers).__name__}",
                option="hooks",
            )
        checked: list[Any] = []
        for matcher in matchers:
            if callable(matcher) and not isinstance(matcher, HookMatcher):
                matcher = HookMatcher(hooks=(matcher,))  # a bare hook (a policy): every tool
            if isinstance(matcher, HookMatcher):
                listed: object = matcher.hooks
                if isinstance(listed, (str, bytes)) or not isinstance(listed, Iterable):
                    raise OptionsError(
                        f"Options.hooks[{_show(event)}]: HookMatcher.hooks must be a list of "
                        f"callables, not {_show(matcher.hooks)}",
                        option="hooks",
                    )
                for callback in matcher.hooks:
                    _hook_callback(event, callback)
            checked.append(matcher)
        out[event] = tuple(checked)
    return out


@frozen(kw_only=True)
class SkillShellPolicies(HookMatcher):
    """The ``PreSkillShellCommand`` matcher `Options` adds for the policies given under
    ``PreToolUse``: a shell command embedded in a skill or slash command (``!`cmd` ``) is
    decided by the same policies, with the same matcher (issue 27). A policy that says it
    decides no commands (``reads_commands`` False: the path policies) is left out, and so is
    one given under ``PreSkillShellCommand`` already.

    Attributes:
        loads_commands: the options load commands or skills (`_loads_commands`), so on a CLI
            without the event their shell commands run unchecked, and the session warns.
    """

    loads_commands: bool = False


def _policy_of(callback: object) -> Any:
    """The policy a hook callback runs (a policy, or its ``PolicyHook``), else None."""
    if _is_policy(callback):
        return callback
    inner = getattr(callback, "policy", None)
    return inner if _is_policy(inner) else None


def _loads_commands(options: Options) -> bool:
    """Do ``options`` load commands or skills, whose embedded shell commands no PreToolUse
    hook sees: setting sources with them (None: all; ``user``, ``project``), plugins, or
    added directories (the CLI loads their skills)?"""
    sources = options.setting_sources
    return (
        sources is None
        or "user" in sources
        or "project" in sources
        or bool(options.plugins)
        or bool(options.add_dirs)
    )


def _skill_shell_policies(o: Options) -> None:
    """Register the command policies given under ``PreToolUse`` for ``PreSkillShellCommand``
    too (as `SkillShellPolicies`); the ones an earlier `Options` derived are derived again."""
    hooks: dict[str, tuple[HookMatcher, ...]] = {}
    for event, matchers in o.hooks.items():
        kept = tuple(m for m in matchers if not isinstance(m, SkillShellPolicies))
        if kept or not matchers:
            hooks[event] = kept
    given = [
        policy
        for m in hooks.get("PreSkillShellCommand", ())
        for policy in map(_policy_of, m.hooks)
        if policy is not None
    ]
    loads = _loads_commands(o)
    derived: list[HookMatcher] = []
    for m in hooks.get("PreToolUse", ()):
        callbacks = []
        for callback in m.hooks:
            policy = _policy_of(callback)
            if policy is None or not getattr(policy, "reads_commands", True):
                continue
            if any(policy is other or policy == other for other in given):
                continue
            callbacks.append(callback)
        if callbacks:
            derived.append(
                SkillShellPolicies(
                    matcher=m.matcher,
                    hooks=tuple(callbacks),
                    timeout=m.timeout,
                    on_failure=m.on_failure,
                    loads_commands=loads,
                )
            )
    if derived:
        hooks["PreSkillShellCommand"] = (*hooks.get("PreSkillShellCommand", ()), *derived)
    if hooks != o.hooks:
        object.__setattr__(o, "hooks", hooks)


def _user(value: str | int | None) -> str | None:
    """An OS user of this machine, by name or uid (a uid becomes the account's name, the
    form every local spawn takes). Checked against the user database now, not at spawn."""
    if value is None:
        return None
    hint = (
        "Options.user is a user of this machine, as whom the local subprocess transport "
        "runs the CLI; for a user inside a container, pass ContainerTransport(user=...)"
    )
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise OptionsError(
            f"Options.user must be a user name or a uid, not {type(value).__name__}",
            option="user",
        )
    if isinstance(value, str) and ("\x00" in value or not value):
        raise OptionsError("Options.user is empty or contains a NUL character", option="user")
    if sys.platform == "win32":
        raise OptionsError("Options.user is only supported on POSIX systems", option="user")
    import pwd  # POSIX only

    if isinstance(value, str):
        try:
            pwd.getpwnam(value)
            return str.__str__(value)
        except KeyError:
            if not (value.isascii() and value.isdigit()):
                raise OptionsError(
                    f"Options.user: no user named {value!r} on this machine ({hint})",
                    option="user",
                ) from None
    uid = int.__int__(value) if isinstance(value, int) else int(value)
    try:
        # uid_t is 32 bits: a larger number is no user (and would overflow getpwuid).
        entry = pwd.getpwuid(uid) if 0 <= uid < 2**32 else None
    except KeyError:
        entry = None
    if entry is None:
        raise OptionsError(
            f"Options.user: no user with uid {uid} on this machine ({hint})", option="user"
        )
    return entry.pw_name


# ======================================================================================
# Validators (each raises an OptionsError naming its field)


def _where(instance: object, attribute: attrs.Attribute[Any]) -> str:
    return f"{type(instance).__name__}.{attribute.name}"


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_at_least(
    instance: object, attribute: attrs.Attribute[Any], value: Any, low: int, what: str
) -> None:
    """None, or an integer from ``low`` to `_MAX_INT`."""
    if value is None:
        return
    where = _where(instance, attribute)
    if not _is_int(value):
        raise OptionsError(f"{where} must be an integer, not {_show(value)}", option=attribute.name)
    if value < low:
        raise OptionsError(f"{where} must be {what}, not {_show(value)}", option=attribute.name)
    if value > _MAX_INT:
        raise OptionsError(
            f"{where} is too large (the CLI reads integers up to 2**53 - 1)",
            option=attribute.name,
        )


def _non_negative_int(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    _int_at_least(instance, attribute, value, 0, ">= 0")


def _positive_int(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    _int_at_least(instance, attribute, value, 1, "positive")


def _positive(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """None, or a number of seconds > 0 (``math.inf``: no limit)."""
    if value is None:
        return
    where = _where(instance, attribute)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise OptionsError(
            f"{where} must be a number of seconds, not {_show(value)}", option=attribute.name
        )
    if value != value or value <= 0:  # NaN is not equal to itself
        raise OptionsError(f"{where} must be positive, not {_show(value)}", option=attribute.name)


def _max_line(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        raise OptionsError(
            "Options.max_line_bytes must be an integer >= 1024, not None", option=attribute.name
        )
    _int_at_least(instance, attribute, value, 1024, "an integer >= 1024")


def _budget(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    where = _where(instance, attribute)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise OptionsError(f"{where} must be a number, not {_show(value)}", option=attribute.name)
    finite = -_MAX_INT <= value <= _MAX_INT if isinstance(value, int) else math.isfinite(value)
    if not finite or value < 0:
        raise OptionsError(
            f"{where} must be a finite number >= 0, not {_show(value)}", option=attribute.name
        )


def _lease_ttl(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """A finite number of seconds, at least 1 (a lease is renewed every third of it)."""
    _positive(instance, attribute, value)
    if value is None or value == float("inf") or value < 1:
        raise OptionsError(
            f"{_where(instance, attribute)} must be a finite number of seconds, at least 1, "
            f"not {_show(value)}",
            option=attribute.name,
        )


def _one_of(choices: tuple[str, ...]) -> Callable[[object, attrs.Attribute[Any], Any], None]:
    def check(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is not None and not (isinstance(value, str) and value in choices):
            raise OptionsError(
                f"{_where(instance, attribute)} must be one of "
                f"{', '.join(map(repr, choices))}, not {_show(value)}",
                option=attribute.name,
            )

    return check


def _each_str(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    for item in value:
        if not isinstance(item, str):
            raise OptionsError(
                f"{_where(instance, attribute)} must contain strings, not {_show(item)}",
                option=attribute.name,
            )
        if not item:
            raise OptionsError(
                f"{_where(instance, attribute)} contains an empty string", option=attribute.name
            )


# -- reprs that keep secrets out of logs ----------------------------------------------------

#: What a secret value shows as in a repr.
REDACTED = "<redacted>"
#: Keys whose values are secrets wherever they appear in settings or a server's config.
_SECRET_KEYS = frozenset({"env", "headers"})


def _redacted_values(value: Any) -> str:
    """A mapping's repr with its keys and without its values."""
    if not isinstance(value, Mapping):
        return repr(value)
    return repr({key: (None if item is None else REDACTED) for key, item in value.items()})


def _redact(value: Any) -> Any:
    """``value`` with the values under ``env`` and ``headers`` keys replaced, at any depth."""
    if isinstance(value, Mapping):
        return {
            k: (
                dict.fromkeys(v, REDACTED) if k in _SECRET_KEYS and isinstance(v, Mapping)
                else _redact(v)
            )
            for k, v in value.items()
        }  # fmt: skip
    if isinstance(value, list):
        return [_redact(v) for v in value]
    return value


def json_text(value: object) -> str | None:
    """The JSON text ``value`` holds, ready to parse, or None when it holds none (a string
    is then a file's path).

    The one rule of "JSON text or a path" for ``Options.settings`` and
    ``Options.mcp_servers``: JSON text is a string whose first character after whitespace
    and format characters (a byte order mark, which a file read as text keeps and
    ``str.lstrip`` does not remove; zero-width spaces) is ``{``. It is returned from that
    brace on. JSON text travels in ``initialize``, never on the command line.
    """
    if not isinstance(value, str):
        return None
    start, end = 0, len(value)
    while start < end and (value[start].isspace() or unicodedata.category(value[start]) == "Cf"):
        start += 1
    text = value[start:]
    return text if text.startswith("{") else None


def _redacted_settings(value: Any) -> str:
    """The repr of settings or of an MCP configuration: the values under ``env`` and
    ``headers`` masked, and credential shapes (`claude_sdk._secrets`) replaced everywhere."""
    text = json_text(value)
    if text is not None:
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return repr(REDACTED)
    return scrub_text(repr(_redact(value)))


def _redacted_servers(value: Any) -> str:
    if isinstance(value, str):
        return _redacted_settings(value)
    if not isinstance(value, Mapping):
        return scrub_text(repr(value))
    shown = {name: _redact(c) if isinstance(c, Mapping) else c for name, c in value.items()}
    return scrub_text(repr(shown))


#: What JavaScript's ``String.prototype.trim`` removes (the CLI is JavaScript): the
#: ECMAScript WhiteSpace and LineTerminator characters.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def split_rules(text: str) -> list[str]:
    """The permission rules the CLI reads in one ``--allowedTools`` or
    ``--disallowedTools`` value, as its own splitter reads them (CLI 2.1.330 to 2.1.332).

    A comma or a space outside parentheses ends a rule; a ``(`` opens parentheses and any
    ``)`` closes them (they do not nest: in ``Bash(a (b) c)`` the space after ``(b)`` is
    outside); each rule is trimmed of JavaScript's whitespace (`JS_WHITESPACE`, the byte
    order mark included), and empty ones are dropped. Other whitespace (a tab) does not
    separate rules. ``tests/regressions/test_rule_splitting.py`` compares this with the CLI's
    own function over generated text.
    """
    rules: list[str] = []
    current: list[str] = []
    inside = False
    for char in text:
        if char == "(" or char == ")":
            inside = char == "("
            current.append(char)
        elif (char == "," or char == " ") and not inside:
            rule = "".join(current).strip(JS_WHITESPACE)
            if rule:
                rules.append(rule)
            current = []
        elif current or char not in JS_WHITESPACE:
            current.append(char)
    rule = "".join(current).strip(JS_WHITESPACE)
    if rule:
        rules.append(rule)
    return rules


def _rule_problem(rule: str) -> str | None:
    """Why the CLI would not read ``rule`` as itself, one rule, whatever rules are joined to
    it (see `split_rules`), or None."""
    inside = False
    for char in rule:
        if char == "(":
            inside = True
        elif char == ")":
            if not inside:
                return "a ')' that closes no '(' (the CLI's parentheses do not nest)"
            inside = False
        elif not inside and char == ",":
            return "a comma outside parentheses"
        elif not inside and (char in JS_WHITESPACE or char.isspace()):
            return "a blank outside parentheses"
    if inside:
        return "a '(' without its ')'"
    return None


def _one_rule(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Each entry is one permission rule: the CLI gets them joined by commas and splits the
    value its own way (`split_rules`), so an entry it would read as several rules (or that
    would swallow the next) could widen what is allowed."""
    _each_str(instance, attribute, value)
    for item in value or ():
        problem = _rule_problem(item)
        if problem is not None:
            read = split_rules(item)
            raise OptionsError(
                f"{_where(instance, attribute)} entry {_show(item)} has {problem}: the CLI "
                f"would read {_show(read)} rather than the one rule written; give one rule "
                'per entry (["Bash(git status:*)", "Read"])',
                option=attribute.name,
            )


def _one_value(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Each entry is one value of a list the CLI gets joined by commas (``--betas``)."""
    _each_str(instance, attribute, value)
    for item in value or ():
        if "," in item or any(c.isspace() for c in item):
            raise OptionsError(
                f"{_where(instance, attribute)} entry {_show(item)} holds a comma or blank: "
                "the CLI would split it into several values; give one value per entry",
                option=attribute.name,
            )


def _optional_str(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not isinstance(value, str):
        raise OptionsError(
            f"{_where(instance, attribute)} must be a string, not {type(value).__name__}",
            option=attribute.name,
        )


def _non_empty_str(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise OptionsError(
            f"{_where(instance, attribute)} must be a non-empty string, "
            f"not {type(value).__name__ if not isinstance(value, str) else 'an empty one'}",
            option=attribute.name,
        )


def _retry_policy(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not isinstance(value, RetryPolicy):
        raise OptionsError(
            f"Options.retry must be a claude_sdk.RetryPolicy or None, not {type(value).__name__}",
            option="retry",
        )


def _bool(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, bool):
        raise OptionsError(
            f"{_where(instance, attribute)} must be True or False, not {_show(value)}",
            option=attribute.name,
        )


def _optional_bool(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not isinstance(value, bool):
        raise OptionsError(
            f"{_where(instance, attribute)} must be True, False or None, not {_show(value)}",
            option=attribute.name,
        )


def _callable(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not callable(value):
        raise OptionsError(
            f"{_where(instance, attribute)} must be callable, not {_show(value)}",
            option=attribute.name,
        )


def _permission_callback(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if _is_policy(value):
        raise OptionsError(
            f"{_where(instance, attribute)} is a policy, not a callback: pass "
            "policy.as_can_use_tool(), or better policy.as_hook_matcher() in hooks (a hook "
            "sees every call; can_use_tool only the calls the CLI asks about)",
            option=attribute.name,
        )
    _callable(instance, attribute, value)
    if value is not None and not _takes(value, 3):
        raise OptionsError(
            f"{_where(instance, attribute)} {_name(value)} cannot be called as "
            "can_use_tool(tool_name, tool_input, context)",
            option=attribute.name,
        )


def _str_map(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Names to strings; the values may be secrets (headers), so never shown."""
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise OptionsError(
                f"{_where(instance, attribute)}: invalid name {_show(key)}", option=attribute.name
            )
        if not isinstance(item, str):
            raise OptionsError(
                f"{_where(instance, attribute)}[{key!r}] must be a string, "
                f"not {type(item).__name__}",
                option=attribute.name,
            )


def _env_map(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Variable names to strings (values never shown: they may be secrets)."""
    for key in value:
        problem = _env_name_problem(key)
        if problem is not None:
            raise OptionsError(f"{_where(instance, attribute)}: {problem}", option=attribute.name)
    _str_map(instance, attribute, value)


# ======================================================================================
# System prompt


@frozen(kw_only=True, field_transformer=_option_errors)
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
        default="claude_code", validator=_one_of(("claude_code",))
    )
    append: str | None = attrs.field(default=None, validator=_optional_str)
    exclude_dynamic_sections: bool | None = attrs.field(default=None, validator=_optional_bool)
    snapshot: bool | None = attrs.field(default=None, validator=_optional_bool)

    def __attrs_post_init__(self) -> None:
        _check_strings(self)


@frozen(field_transformer=_option_errors)
class SystemPromptFile:
    """A system prompt read by the CLI from a file (``--system-prompt-file``)."""

    path: str = attrs.field(converter=_one_path)

    def __attrs_post_init__(self) -> None:
        _check_strings(self)


def _prompt_blocks(value: str | Iterable[str]) -> str | tuple[str, ...]:
    return value if isinstance(value, str) else _strs(value)


def _blocks(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        _each_str(instance, attribute, value)


@frozen(kw_only=True, field_transformer=_option_errors)
class SystemPromptCustom:
    """A custom system prompt with the snapshot switch.

    Attributes:
        prompt: the text, or several blocks (the CLI joins them; the element
            ``"__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__"`` marks where dynamic content may go).
        snapshot: as `SystemPromptPreset.snapshot`.
    """

    prompt: str | tuple[str, ...] = attrs.field(converter=_prompt_blocks, validator=_blocks)
    snapshot: bool | None = attrs.field(default=None, validator=_optional_bool)

    def __attrs_post_init__(self) -> None:
        _check_strings(self)

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
        classes: dict[str, type[SystemPromptPreset | SystemPromptFile | SystemPromptCustom]]
        classes = {"preset": SystemPromptPreset, "file": SystemPromptFile}
        classes["custom"] = SystemPromptCustom
        cls = classes.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise OptionsError(
                f"Options.system_prompt: unknown type {_show(kind)} (expected 'preset', "
                "'file' or 'custom')",
                option="system_prompt",
            )
        try:
            return cls(**d)
        except OptionsError:
            raise
        except TypeError as exc:  # a missing or unknown key
            raise OptionsError(f"Options.system_prompt: {exc}", option="system_prompt") from None
    raise OptionsError(
        "Options.system_prompt must be a str, SystemPromptPreset, SystemPromptFile or "
        f"SystemPromptCustom, not {type(value).__name__}",
        option="system_prompt",
    )


# ======================================================================================
# Tools and thinking


@frozen(field_transformer=_option_errors)
class ToolsPreset:
    """The CLI's default set of built-in tools (``--tools=default``)."""

    preset: Literal["claude_code"] = attrs.field(
        default="claude_code", validator=_one_of(("claude_code",))
    )


def _tools(
    value: str | Iterable[str] | ToolsPreset | Mapping[str, Any] | None,
) -> tuple[str, ...] | ToolsPreset | None:
    if value is None or isinstance(value, ToolsPreset):
        return value
    if isinstance(value, str) and value == "claude_code":
        return ToolsPreset()
    if isinstance(value, Mapping):
        if value.get("type") == "preset":
            return ToolsPreset(value.get("preset", "claude_code"))
        raise OptionsError(f"Options.tools: unknown preset {_show(dict(value))}", option="tools")
    return _strs(value)


def _tool_names(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, tuple):
        _one_value(instance, attribute, value)


@frozen(kw_only=True, field_transformer=_option_errors)
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

    type: Literal["adaptive", "enabled", "disabled"] = attrs.field(
        default="adaptive", validator=_one_of(("adaptive", "enabled", "disabled"))
    )
    budget_tokens: int | None = attrs.field(default=None, validator=_positive_int)
    display: ThinkingDisplay | None = attrs.field(
        default=None, validator=_one_of(_THINKING_DISPLAYS)
    )

    def __attrs_post_init__(self) -> None:
        _check_strings(self)
        if self.budget_tokens is not None and self.type != "enabled":
            raise OptionsError(
                "ThinkingConfig.budget_tokens needs type='enabled'", option="budget_tokens"
            )
        if self.display is not None and self.type == "disabled":
            raise OptionsError(
                "ThinkingConfig.display has no effect with type='disabled'", option="display"
            )

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


@frozen(kw_only=True, field_transformer=_option_errors)
class AskUserQuestionConfig:
    """How the built-in ``AskUserQuestion`` tool is offered to the model (see `ToolConfig`).

    The tool exists when the host answers permission prompts (``can_use_tool``). None
    leaves a setting to the CLI (and to the inherited environment).

    Attributes:
        preview_format: what an option's ``preview`` holds: ``"markdown"`` (the CLI's
            default for terminals) or ``"html"`` (a self-contained HTML fragment, for hosts
            that render web content). ``CLAUDE_CODE_QUESTION_PREVIEW_FORMAT``.
        extended_questions: questions may also ask for free text or a number
            (``kind: "text"`` / ``"number"``), not only a choice among options; the host's
            ``can_use_tool`` must answer those. ``CLAUDE_CODE_QUESTION_EXTENDED``.
        optional_descriptions: an option's ``description`` becomes optional for the model.
            ``CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS``.

    False for the last two removes an inherited variable.
    """

    preview_format: QuestionPreviewFormat | None = attrs.field(
        default=None, validator=_one_of(_PREVIEW_FORMATS)
    )
    extended_questions: bool | None = attrs.field(default=None, validator=_optional_bool)
    optional_descriptions: bool | None = attrs.field(default=None, validator=_optional_bool)

    def __attrs_post_init__(self) -> None:
        _check_strings(self)


def _ask_user_question(
    value: AskUserQuestionConfig | Mapping[str, Any] | None,
) -> AskUserQuestionConfig | None:
    return _config_of(
        AskUserQuestionConfig, value, "ToolConfig.ask_user_question", "ask_user_question"
    )


@frozen(kw_only=True, field_transformer=_option_errors)
class ToolConfig:
    """Per-tool settings for built-in tools (``Options.tool_config``; the TypeScript SDK's
    ``toolConfig``). They reach the CLI as environment variables.

    Attributes:
        ask_user_question: `AskUserQuestionConfig`, or a dict of its fields (snake_case or
            the TypeScript SDK's camelCase keys).
    """

    ask_user_question: AskUserQuestionConfig | None = attrs.field(
        default=None, converter=_ask_user_question
    )


_CAMEL_KEYS: Mapping[str, str] = {
    "askUserQuestion": "ask_user_question",
    "previewFormat": "preview_format",
    "extendedQuestions": "extended_questions",
    "optionalDescriptions": "optional_descriptions",
}

_C = TypeVar("_C")


def _config_of(cls: type[_C], value: Any, where: str, option: str) -> _C | None:
    """``value`` as a ``cls``: an instance, None, or a mapping of its fields (snake_case
    or camelCase keys); anything else is an `OptionsError` naming ``where``."""
    if value is None or isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise OptionsError(
            f"{where} must be an {cls.__name__} or a dict, not {type(value).__name__}"
            if cls.__name__[0] in "AEIOU"
            else f"{where} must be a {cls.__name__} or a dict, not {type(value).__name__}",
            option=option,
        )
    names = {f.name for f in attrs.fields(cast(Any, cls))}
    try:
        fields = {_CAMEL_KEYS.get(k, k) if isinstance(k, str) else k: v for k, v in value.items()}
    except Exception as exc:  # user code (a mapping's items()) failed
        raise OptionsError(
            f"{where}: the mapping could not be read ({type(exc).__name__})", option=option
        ) from exc
    unknown = [k for k in fields if k not in names]
    if unknown:
        raise OptionsError(
            f"{where}: unknown key {_show(unknown[0])} ({cls.__name__} takes "
            f"{', '.join(sorted(names))})",
            option=option,
        )
    return cls(**fields)


def _tool_config(value: ToolConfig | Mapping[str, Any] | None) -> ToolConfig | None:
    return _config_of(ToolConfig, value, "Options.tool_config", "tool_config")


def _thinking(value: ThinkingConfig | Mapping[str, Any] | None) -> ThinkingConfig | None:
    if value is None or isinstance(value, ThinkingConfig):
        return value
    if isinstance(value, Mapping):
        try:
            return ThinkingConfig(**value)
        except OptionsError:
            raise
        except TypeError as exc:  # a missing or unknown key
            raise OptionsError(f"Options.thinking: {exc}", option="thinking") from None
    raise OptionsError(
        f"Options.thinking must be a ThinkingConfig or a dict, not {type(value).__name__}",
        option="thinking",
    )


def _task_budget(value: int | Mapping[str, int] | None) -> int | None:
    if isinstance(value, Mapping):
        if set(value) != {"total"}:
            raise OptionsError(
                f"Options.task_budget must be {{'total': N}}, not {_show(dict(value))}",
                option="task_budget",
            )
        return value["total"]
    return value


# ======================================================================================
# MCP servers (§11.1)


def _headers(value: Mapping[str, str]) -> dict[str, str]:
    return _mapping(value)


def _opt_policies(
    value: Iterable[Mapping[str, Any]] | None,
) -> tuple[dict[str, Any], ...] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise OptionsError(f"must be a list of policy dicts, not {type(value).__name__}")
    return tuple(_mapping(v) for v in value)


def _mcp_timeout(instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
    if value is None:
        return
    if not _is_int(value) or value < 1000:
        raise OptionsError(
            f"{type(instance).__name__}.timeout is in milliseconds and the CLI ignores values "
            f"under 1000, not {_show(value)}",
            option=attribute.name,
        )
    _int_at_least(instance, attribute, value, 1000, "at least 1000")


def _str_items(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    for item in value:
        if not isinstance(item, str):
            raise OptionsError(
                f"{_where(instance, attribute)} must contain strings, not {_show(item)}",
                option=attribute.name,
            )


@frozen(kw_only=True, field_transformer=_option_errors)
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

    command: str = attrs.field(validator=_non_empty_str)
    args: tuple[str, ...] = attrs.field(default=(), converter=_strs, validator=_str_items)
    env: dict[str, str] = attrs.field(
        factory=dict, converter=_str_dict, validator=_env_map, repr=_redacted_values
    )
    timeout: int | None = attrs.field(default=None, validator=_mcp_timeout)
    always_load: bool | None = attrs.field(default=None, validator=_optional_bool)

    def __attrs_post_init__(self) -> None:
        _check_strings(self)


@frozen(kw_only=True, field_transformer=_option_errors)
class McpSSEServer:
    """A remote MCP server over server-sent events.

    Attributes:
        url: the endpoint.
        headers: HTTP headers (for example ``Authorization``).
        tools: per-tool policies, ``{"name", "permission_policy"?, "org_max_permission"?}``.
        timeout: as `McpStdioServer.timeout`.
        always_load: as `McpStdioServer.always_load`.
    """

    url: str = attrs.field(validator=_non_empty_str)
    headers: dict[str, str] = attrs.field(
        factory=dict, converter=_headers, validator=_str_map, repr=_redacted_values
    )
    tools: tuple[dict[str, Any], ...] | None = attrs.field(default=None, converter=_opt_policies)
    timeout: int | None = attrs.field(default=None, validator=_mcp_timeout)
    always_load: bool | None = attrs.field(default=None, validator=_optional_bool)

    def __attrs_post_init__(self) -> None:
        _check_strings(self)


@frozen(kw_only=True, field_transformer=_option_errors)
class McpHttpServer:
    """A remote MCP server over streamable HTTP (fields as `McpSSEServer`)."""

    url: str = attrs.field(validator=_non_empty_str)
    headers: dict[str, str] = attrs.field(
        factory=dict, converter=_headers, validator=_str_map, repr=_redacted_values
    )
    tools: tuple[dict[str, Any], ...] | None = attrs.field(default=None, converter=_opt_policies)
    timeout: int | None = attrs.field(default=None, validator=_mcp_timeout)
    always_load: bool | None = attrs.field(default=None, validator=_optional_bool)

    def __attrs_post_init__(self) -> None:
        _check_strings(self)


McpServerConfig: TypeAlias = McpStdioServer | McpSSEServer | McpHttpServer | Mapping[str, Any]
"""A server the CLI connects to itself (a typed config or the CLI's wire dict). Any other
value in ``Options.mcp_servers`` is an in-process server."""

_MCP_CONFIG_CLASSES = (McpStdioServer, McpSSEServer, McpHttpServer)

#: Classes of other modules found in options, whose strings `_normalise` checks in place.
_FOREIGN_CLASSES: frozenset[type] = frozenset({AgentDefinition, HookMatcher})


def _mcp_servers(
    value: Mapping[str, Any] | str | os.PathLike[str],
) -> dict[str, Any] | str:
    if isinstance(value, (str, os.PathLike)):
        text = json_text(value)
        return text if text is not None else _one_path(value)
    if not isinstance(value, Mapping):
        raise OptionsError(
            "Options.mcp_servers must map server names to configs (or be a path or JSON "
            f"text for --mcp-config), not {type(value).__name__}",
            option="mcp_servers",
        )
    return dict(value)


def _needs_mcp(server: object) -> bool:
    """An in-process server served through the ``mcp`` package (an object answering
    ``handle_mcp_message`` itself does not need it)."""
    return server is not None and not callable(getattr(server, "handle_mcp_message", None))


def _has_mcp() -> bool:
    import importlib.util

    return importlib.util.find_spec("mcp") is not None


def _check_mcp_dict(name: str, config: Mapping[str, Any]) -> None:
    kind = config.get("type", "stdio")
    where = f"Options.mcp_servers[{name!r}]"
    problem = None
    if kind == "stdio":
        if not isinstance(config.get("command"), str) or not config["command"]:
            problem = "a stdio server needs a 'command' string"
        elif "env" in config:
            env = config["env"]
            if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
                problem = "'env' must map variable names to strings"
            else:
                problem = next(filter(None, map(_env_name_problem, env)), None)
    elif kind in ("sse", "http"):
        if not isinstance(config.get("url"), str) or not config["url"]:
            problem = f"an {kind} server needs a 'url' string"
    elif not isinstance(kind, str):
        problem = f"'type' must be a string, not {_show(kind)}"
    if problem is not None:
        raise OptionsError(f"{where}: {problem}", option="mcp_servers")


# ======================================================================================
# Plugins and agents


def _plugins(
    value: str | os.PathLike[str] | Iterable[str | os.PathLike[str] | Mapping[str, Any]],
) -> tuple[str, ...]:
    """Local plugin directories; ``{"type": "local", "path": ...}`` dicts are accepted."""
    items: Iterable[Any] = (value,) if isinstance(value, (str, os.PathLike)) else value
    if isinstance(items, (bytes, bytearray, Mapping)) or not isinstance(items, Iterable):
        raise OptionsError(
            f"Options.plugins must be a list of plugin directories, not {type(value).__name__}",
            option="plugins",
        )
    out: list[str] = []
    for item in items:
        if isinstance(item, Mapping):
            if item.get("type", "local") != "local" or "path" not in item:
                raise OptionsError(
                    f"Options.plugins: only local plugins ({{'type': 'local', 'path': ...}}) "
                    f"exist, not {_show(dict(item))}",
                    option="plugins",
                )
            item = item["path"]
        out.append(_one_path(item))
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
        raise OptionsError(
            f"Options.agents must map names to AgentDefinition, not {type(value).__name__}",
            option="agents",
        )
    fields = set(attrs.fields_dict(AgentDefinition)) - {"extra"}
    out: dict[str, AgentDefinition] = {}
    for name, agent in value.items():
        where = f"Options.agents[{_show(name)}]"
        if isinstance(agent, Mapping):
            if not all(isinstance(k, str) for k in agent):
                raise OptionsError(f"{where}: keys must be strings", option="agents")
            kwargs = {_snake(k) if _snake(k) in fields else k: v for k, v in agent.items()}
            unknown = sorted(set(kwargs) - fields)
            if unknown:
                raise OptionsError(f"{where}: unknown keys {unknown}", option="agents")
            try:
                agent = AgentDefinition(**kwargs)
            except TypeError as exc:  # a missing key
                raise OptionsError(f"{where}: {exc}", option="agents") from None
        elif not isinstance(agent, AgentDefinition):
            raise OptionsError(
                f"{where} must be an AgentDefinition, not {type(agent).__name__}",
                option="agents",
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
        raise OptionsError(
            f"Options.skills must be 'all' or a list of skill names, not the string {_show(value)}",
            option="skills",
        )
    given: object = value
    if isinstance(given, (bytes, bytearray)) or not isinstance(given, Iterable):
        raise OptionsError(
            f"Options.skills must be 'all' or a list of skill names, not {type(given).__name__}",
            option="skills",
        )
    return tuple(given)


_BAD_SKILL = re.compile(r"[(),*?\[\]\x00-\x1f\x7f]")


def skill_name_problem(name: object) -> str | None:
    """Why ``name`` is not a valid skill name, or None when it is."""
    if not isinstance(name, str):
        return f"{_show(name)} is not a string"
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
    is unwrapped) or a class: attrs, dataclass, TypedDict or pydantic model (the class is
    kept; its schema is derived in ``__attrs_post_init__``)."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        d = dict(value)
        if d.get("type") == "json_schema" and isinstance(d.get("schema"), Mapping):
            return dict(d["schema"])
        return d
    if _is_schema_class(value):
        return value
    raise OptionsError(
        "Options.output_format must be a JSON Schema dict or a class (attrs, dataclass, "
        f"TypedDict or pydantic model), not {_show(value)}",
        option="output_format",
    )


# ======================================================================================
# Other checks


def _session_store(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    missing = [
        name
        for name in ("append", "load")
        if not inspect.iscoroutinefunction(getattr(value, name, None))
    ]
    if missing:
        raise OptionsError(
            f"Options.session_store must have async methods append(key, entries) and "
            f"load(key) (the SessionStore protocol); {_show(value)} lacks "
            f"{', '.join(missing)} as coroutine functions",
            option="session_store",
        )


def _store_key(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    try:
        check_key_part(value, "project_key")
    except ValueError as exc:
        raise OptionsError(f"Options.{attribute.name}: {exc}", option=attribute.name) from None


def _is_uuid(text: str) -> bool:
    try:
        return str(uuid.UUID(text)) == text.lower()
    except ValueError:
        return False


def _uuid(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        raise OptionsError(
            f"Options.{attribute.name} must be a string, not {type(value).__name__}",
            option=attribute.name,
        )
    try:
        canonical = str(uuid.UUID(value))
    except ValueError:
        canonical = None
    if canonical != value.lower():
        raise OptionsError(
            f"Options.{attribute.name} must be a UUID such as "
            f"'123e4567-e89b-12d3-a456-426614174000', not {_show(value)}",
            option=attribute.name,
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


@frozen(kw_only=True, field_transformer=_option_errors)
class Options:
    """How to start and drive a CLI session.

    **Process.** ``cli_path`` (None: discovered, see
    `claude_sdk.transports.discovery.find_cli`), ``cwd``, ``env`` (merged over the inherited
    environment; a None value removes an inherited variable), ``user`` (run the CLI as this
    user of this machine: a name, or a uid, which becomes the account's name; looked up
    when the options are built), ``extra_args`` (``{"flag": None}`` is ``--flag``,
    ``{"flag": "v"}`` is ``--flag=v``; added last, so they override), ``stderr`` (called
    per stderr line), ``client_app`` (``"name/version"`` in the CLI's User-Agent), ``debug``
    (``True`` or a filter such as ``"hooks,mcp"``), ``debug_file`` and ``debug_to_stderr``.
    The CLI's debug log goes to its stderr (so to ``stderr`` and ``session.stderr_tail``)
    when ``debug_to_stderr`` is True, or when it is None (the default), ``debug`` is set and
    ``debug_file`` is not; otherwise to ``debug_file``, or with ``debug_to_stderr=False`` to
    a file under ``~/.claude/debug/``. ``debug_to_stderr=True`` turns debugging on by itself.

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
    ``tool_aliases``, ``tool_config`` (`ToolConfig`: per-tool settings of built-in tools,
    such as the ``AskUserQuestion`` preview format), ``permission_mode`` (None or
    ``"default"``: the CLI's default),
    ``allow_dangerously_skip_permissions`` (implied by ``"bypassPermissions"``; as root the
    CLI also needs ``IS_SANDBOX=1`` in ``env``), ``can_use_tool`` (the host answers permission
    prompts), ``permission_prompt_tool_name`` (an MCP tool answers them instead),
    ``permission_prompts``, ``allow_in_process_tools`` (True by default: the tools of the
    in-process servers given in ``mcp_servers`` are allowed with the rule ``mcp__<server>``
    unless ``can_use_tool`` or ``permission_prompt_tool_name`` decides permissions, or
    ``allowed_tools`` names a rule of that server; the CLI's deny and ask rules, and
    ``permission_mode``, still win. False: they are asked about like any other tool).

    **MCP, settings, plugins.** ``mcp_servers`` (name -> `McpStdioServer`, `McpSSEServer`,
    `McpHttpServer` or the wire dict; any other value is an in-process server; or a path for
    ``--mcp-config``, or JSON text, sent in ``initialize``: see `json_text`),
    ``strict_mcp_config``, ``settings`` (a dict, JSON text, or a path), ``sandbox``
    (`SandboxSettings`, or a dict in the CLI's form: the settings' ``"sandbox"`` block,
    replacing one ``settings`` holds; turned on, it refuses to start without a working
    sandbox and closes the ways out of it unless told otherwise), ``managed_settings``,
    ``setting_sources`` (None: the CLI loads all; ``[]``: none), ``add_dirs``, ``plugins``
    (local plugin directories), ``project_config_root``, ``enable_file_checkpointing``.

    **Sessions.** ``continue_conversation`` (the latest session in ``cwd``), ``resume``,
    ``fork_session`` (with either: a new session id), ``session_id`` (a UUID for the new
    session), ``resume_session_at`` (a message uuid to truncate the resumed conversation
    at), ``resume_drops_turn``, ``persist_session`` (False: no session file),
    ``resume_missing`` (``"start"``: a ``resume`` that finds no session starts one with that
    id instead of raising `SessionNotFoundError`, and ``continue_conversation`` with nothing
    to continue starts a new session; `Options.resume_or_start` sets both),
    ``verify_resume`` (default True: a session opened with ``resume`` or
    ``continue_conversation`` asks the CLI, before the first prompt, which session it loaded
    and whether it holds any history, and raises `SessionNotFoundError` if it is not the one
    asked for, or empty; `Session.resumed` holds what was confirmed).

    **Session store** (`claude_sdk.stores`). ``session_store`` (the CLI mirrors every
    transcript line to it, and ``resume``/``continue_conversation`` read from it, so a
    session resumes on a machine that never ran it), ``session_store_flush`` (``"batched"``:
    stored once per turn, and before the turn's `ResultMessage` is handed out; ``"eager"``:
    as each frame comes), ``session_store_errors`` (``"warn"``: lines the store refused
    three times in a row are kept and appended again, in order, when it answers, and
    `Session.store_failures` lists what is still missing; ``"raise"``: the session fails
    with `SessionStoreError`), ``session_store_load_timeout`` (seconds a resume waits for
    each ``load``, ``list_sessions`` or ``list_subkeys`` of the store, 60 by default, None
    for no limit; past it a retryable `SessionStoreError`), ``session_lease`` (one live
    owner per stored session, with a store that keeps leases: ``"raise"``, the default, a
    session another process or task holds raises `SessionBusyError`; ``"wait"``: waits
    until it is free (bound it with ``anyio.fail_after``); None: no lease, two owners may
    fork the conversation), ``session_lease_ttl`` (seconds a lease lasts unless renewed,
    20 by default; a live session renews it every third of that, so a crashed owner's
    lease ends within it), ``store_project_key`` (the
    store's ``project_key``; default: the CLI's directory name for ``cwd``, so set it when
    the resuming machine has another ``cwd``), ``diskless`` (the CLI keeps its files in a
    temporary configuration directory removed when the session closes, or by the watchdog
    when the process is killed: nothing of the transcript stays on local disk).

    **Output.** ``output_format`` (a JSON Schema dict, or a class whose schema is derived:
    an attrs class, a dataclass, a TypedDict or a pydantic v2 model; the result then carries
    ``structured_output``, which `Reply.structured_output` turns into that class),
    ``include_partial_messages``, ``include_hook_events``, ``forward_subagent_text``,
    ``verbatim_prompts`` (user lines are sent ``client_composed``: no ``@file`` expansion or
    slash commands; CLI >= 2.1.248), ``prompt_suggestions``, ``agent_progress_summaries``,
    ``per_task_stop_affordance``.

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
    env: dict[str, str | None] = attrs.field(factory=dict, converter=_env, repr=_redacted_values)
    user: str | None = attrs.field(default=None, converter=_user)
    extra_args: dict[str, str | None] = attrs.field(factory=dict, converter=_extra_args)
    stderr: Callable[[str], object] | None = attrs.field(default=None, validator=_callable)
    client_app: str | None = attrs.field(default=None, validator=_optional_str)
    debug: bool | str = False
    debug_file: str | None = attrs.field(default=None, converter=_path)
    debug_to_stderr: bool | None = attrs.field(default=None, validator=_optional_bool)

    # -- model and limits -----------------------------------------------------------
    model: str | None = attrs.field(default=None, validator=_optional_str)
    fallback_model: tuple[str, ...] | None = attrs.field(
        default=None, converter=_opt_strs, validator=_one_value
    )
    thinking: ThinkingConfig | None = attrs.field(default=None, converter=_thinking)
    max_thinking_tokens: int | None = attrs.field(default=None, validator=_non_negative_int)
    effort: Effort | None = attrs.field(default=None, validator=_one_of(_EFFORTS))
    max_turns: int | None = attrs.field(default=None, validator=_non_negative_int)
    max_budget_usd: float | None = attrs.field(default=None, validator=_budget)
    task_budget: int | None = attrs.field(
        default=None, converter=_task_budget, validator=_positive_int
    )
    betas: tuple[str, ...] = attrs.field(default=(), converter=_strs, validator=_one_value)

    # -- system prompt and context ----------------------------------------------------
    system_prompt: SystemPrompt | None = attrs.field(default=None, converter=_system_prompt)
    plan_mode_instructions: str | None = attrs.field(default=None, validator=_optional_str)
    agent: str | None = attrs.field(default=None, validator=_optional_str)
    agents: dict[str, AgentDefinition] | None = attrs.field(default=None, converter=_agents)
    skills: Literal["all"] | tuple[str, ...] | None = attrs.field(default=None, converter=_skills)
    title: str | None = attrs.field(default=None, validator=_optional_str)

    # -- tools and permissions --------------------------------------------------------
    tools: tuple[str, ...] | ToolsPreset | None = attrs.field(
        default=None, converter=_tools, validator=_tool_names
    )
    allowed_tools: tuple[str, ...] = attrs.field(default=(), converter=_strs, validator=_one_rule)
    disallowed_tools: tuple[str, ...] = attrs.field(
        default=(), converter=_strs, validator=_one_rule
    )
    tool_aliases: dict[str, str] | None = attrs.field(
        default=None, converter=_opt_dict, validator=attrs.validators.optional(_str_map)
    )
    tool_config: ToolConfig | None = attrs.field(default=None, converter=_tool_config)
    permission_mode: PermissionMode | None = attrs.field(
        default=None, validator=_one_of(_PERMISSION_MODES)
    )
    allow_dangerously_skip_permissions: bool = attrs.field(default=False, validator=_bool)
    permission_prompt_tool_name: str | None = attrs.field(default=None, validator=_optional_str)
    permission_prompts: PermissionPrompts | None = attrs.field(
        default=None, validator=_one_of(_PERMISSION_PROMPTS)
    )
    allow_in_process_tools: bool = attrs.field(default=True, validator=_bool)

    # -- MCP, settings, plugins -------------------------------------------------------
    mcp_servers: dict[str, Any] | str = attrs.field(
        factory=dict, converter=_mcp_servers, repr=_redacted_servers
    )
    strict_mcp_config: bool = attrs.field(default=False, validator=_bool)
    settings: dict[str, Any] | str | None = attrs.field(
        default=None, converter=_settings_conv, repr=_redacted_settings
    )
    sandbox: SandboxSettings | None = attrs.field(default=None, converter=_sandbox)
    managed_settings: dict[str, Any] | None = attrs.field(
        default=None, converter=_opt_dict, repr=_redacted_settings
    )
    setting_sources: tuple[SettingSource, ...] | None = attrs.field(
        default=None, converter=_opt_strs
    )
    add_dirs: tuple[str, ...] = attrs.field(default=(), converter=_paths)
    plugins: tuple[str, ...] = attrs.field(default=(), converter=_plugins)
    project_config_root: str | None = attrs.field(default=None, converter=_path)
    enable_file_checkpointing: bool = attrs.field(default=False, validator=_bool)

    # -- sessions -----------------------------------------------------------------------
    continue_conversation: bool = attrs.field(default=False, validator=_bool)
    resume: str | None = attrs.field(default=None, validator=_optional_str)
    fork_session: bool = attrs.field(default=False, validator=_bool)
    session_id: str | None = attrs.field(default=None, validator=_uuid)
    resume_session_at: str | None = attrs.field(default=None, validator=_optional_str)
    resume_drops_turn: str | None = attrs.field(default=None, validator=_optional_str)
    persist_session: bool = attrs.field(default=True, validator=_bool)
    resume_missing: ResumeMissing = attrs.field(
        default="error", validator=_one_of(("error", "start"))
    )
    verify_resume: bool = attrs.field(default=True, validator=_bool)

    # -- session store (ours) -------------------------------------------------------------
    session_store: SessionStore | None = attrs.field(default=None, validator=_session_store)
    session_store_flush: StoreFlush = attrs.field(
        default="batched", validator=_one_of(("batched", "eager"))
    )
    session_store_errors: StoreErrors = attrs.field(
        default="warn", validator=_one_of(("warn", "raise"))
    )
    session_store_load_timeout: float | None = attrs.field(default=60.0, validator=_positive)
    session_lease: SessionLeaseMode | None = attrs.field(
        default="raise", validator=_one_of(("raise", "wait"))
    )
    session_lease_ttl: float = attrs.field(default=20.0, validator=_lease_ttl)
    store_project_key: str | None = attrs.field(default=None, validator=_store_key)
    diskless: bool = attrs.field(default=False, validator=_bool)

    # -- output -------------------------------------------------------------------------
    output_format: dict[str, Any] | type | None = attrs.field(
        default=None, converter=_output_format
    )
    include_partial_messages: bool = attrs.field(default=False, validator=_bool)
    include_hook_events: bool = attrs.field(default=False, validator=_bool)
    forward_subagent_text: bool | None = attrs.field(default=None, validator=_optional_bool)
    verbatim_prompts: bool = attrs.field(default=False, validator=_bool)
    prompt_suggestions: bool | None = attrs.field(default=None, validator=_optional_bool)
    agent_progress_summaries: bool | None = attrs.field(default=None, validator=_optional_bool)
    per_task_stop_affordance: bool | None = attrs.field(default=None, validator=_optional_bool)

    # -- callbacks ----------------------------------------------------------------------
    can_use_tool: CanUseTool | None = attrs.field(default=None, validator=_permission_callback)
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
    telemetry: bool = attrs.field(default=False, validator=_bool)
    #: Retry turns that fail transiently (`claude_sdk.retry`): ``ask`` and
    #: ``SessionPool.ask`` run such a turn again in the same session; None never retries.
    retry: RetryPolicy | None = attrs.field(default=None, validator=_retry_policy)

    # -- derived (not arguments) --------------------------------------------------------
    _output_schema: dict[str, Any] | None = attrs.field(
        init=False, default=None, eq=False, repr=False
    )

    def __attrs_post_init__(self) -> None:
        _normalise_options(self)
        _check(self)
        _skill_shell_policies(self)
        schema: dict[str, Any] | None
        if isinstance(self.output_format, type):
            try:
                schema = output_json_schema(self.output_format)
            except Exception as exc:  # the class's own annotations can fail in any way
                raise OptionsError(
                    f"Options.output_format: {exc}", option="output_format"
                ) from None
        else:
            schema = self.output_format
        object.__setattr__(self, "_output_schema", schema)

    # -- derived facts ------------------------------------------------------------------

    def resuming(self, session_id: str, **changes: Any) -> Options:
        """These options resuming the session ``session_id`` as it is: no fork, no
        ``continue_conversation``, no new session id, and a session that does not exist is
        an error (``resume_missing="error"``); ``changes`` as for ``attrs.evolve``."""
        return attrs.evolve(
            self,
            resume=session_id,
            fork_session=False,
            continue_conversation=False,
            session_id=None,
            resume_missing="error",
            **changes,
        )

    def resume_or_start(self, key: str) -> Options:
        """These options with the session of ``key``: resumed if it exists, else started.

        ``key`` is a session id (a UUID) or any text naming the work (``"task-17"``), turned
        into a stable id by `claude_sdk.session_id_for`. The session is looked for in
        ``session_store`` (when set) and in the CLI's session files; if neither has it, the
        CLI starts a new session with that very id, so a retry on any machine finds it.

        Raises:
            OptionsError: ``key`` is empty, or the options already name another session.
        """
        session_id = session_id_for(key)
        if self.continue_conversation or self.session_id is not None or self.fork_session:
            raise OptionsError(
                "Options.resume_or_start: the options already choose a session "
                "(continue_conversation, session_id or fork_session)",
                option="resume",
            )
        return attrs.evolve(self, resume=session_id, resume_missing="start")

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
        """The JSON Schema of ``output_format`` (derived for a class); do not mutate."""
        return self._output_schema

    @property
    def output_type(self) -> type | None:
        """The class of ``output_format`` (attrs, dataclass, TypedDict or pydantic model),
        when one was given."""
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


#: Options sent as JSON (on argv or in ``initialize``): they must hold only what JSON can.
_JSON_OPTIONS = frozenset(
    {"settings", "sandbox", "managed_settings", "output_format", "tool_aliases"}
)


def _normalise_mcp_servers(servers: dict[str, Any]) -> dict[str, Any]:
    """`_normalise` for ``Options.mcp_servers``: a dict config is JSON (an official-SDK
    ``"instance"`` excepted), an in-process server is opaque."""
    out: dict[str, Any] = {}
    for name, config in servers.items():
        where = f"Options.mcp_servers[{_show(name)}]"
        key = _normalise(name, f"{where} (the name)", "mcp_servers", as_json=True)
        if isinstance(config, Mapping):
            instance = config.get("instance", _MISSING) if config.get("type") == "sdk" else _MISSING
            wire = {k: v for k, v in config.items() if instance is _MISSING or k != "instance"}
            new = _normalise(wire, where, "mcp_servers", as_json=True)
            if instance is not _MISSING:
                new["instance"] = instance
            out[key] = new
        else:
            out[key] = _normalise(config, where, "mcp_servers", as_json=False)
    return out


_MISSING = object()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_settings_json(text: str) -> None:
    """``Options.settings`` given as JSON text: an object that JSON (not only Python's
    parser, which reads ``NaN``) accepts, and that can be merged with ``sandbox``."""
    try:
        parsed = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise OptionsError(
            f"Options.settings is not valid JSON: {exc}", option="settings"
        ) from None
    if not isinstance(parsed, dict):
        raise OptionsError("Options.settings JSON must be an object", option="settings")
    _normalise(parsed, "Options.settings", "settings", as_json=True)


def _check_mcp_json(text: str) -> None:
    """``Options.mcp_servers`` given as JSON text: an object whose ``mcpServers`` (when
    there) maps names to objects. The message never quotes the text (it may hold secrets)."""
    try:
        parsed = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise OptionsError(
            f"Options.mcp_servers is not valid JSON: {exc}", option="mcp_servers"
        ) from None
    servers = parsed.get("mcpServers", {}) if isinstance(parsed, dict) else None
    if not isinstance(servers, dict) or not all(isinstance(c, dict) for c in servers.values()):
        raise OptionsError(
            'Options.mcp_servers JSON must be an object like {"mcpServers": {name: config}}',
            option="mcp_servers",
        )


def _normalise_sandbox(value: Any, where: str) -> Any:
    """`_normalise` (as JSON) for ``Options.sandbox``: every value held by the settings, their
    ``network`` and ``filesystem`` and each ``extra``; a copy when any value changed."""
    changes: dict[str, Any] = {}
    held = value.__dict__
    for field in attrs.fields(type(value)):
        if field.name not in held:
            continue  # not set: not sent
        item = held[field.name]
        at = f"{where}.{field.name}"
        if isinstance(item, WireModel):
            new = _normalise_sandbox(item, at)
        else:
            new = _normalise(item, at, "sandbox", as_json=True)
        if new is not item:
            changes[field.name] = new
    return attrs.evolve(value, **changes) if changes else value


def _normalise_options(o: Options) -> None:
    """Apply `_normalise` to every option, in place (see `_JSON_OPTIONS`)."""
    for field in attrs.fields(Options):
        if not field.init:
            continue
        name = field.name
        value: Any = getattr(o, name)
        new: Any
        try:
            if name == "mcp_servers" and isinstance(value, dict):
                new = _normalise_mcp_servers(value)
            elif name == "output_format" and isinstance(value, type):
                new = value
            elif name == "sandbox" and value is not None:
                new = _normalise_sandbox(value, "Options.sandbox")
            else:
                # Text (a path, or JSON text checked by _check) is kept as it is.
                as_json = name in _JSON_OPTIONS and not isinstance(value, str)
                new = _normalise(value, f"Options.{name}", name, as_json=as_json)
        except OptionsError:
            raise
        except Exception as exc:  # user code (a Mapping's items(), an __eq__) failed
            raise _as_option_error("Options", name, exc) from exc
        if new is not value:
            object.__setattr__(o, name, new)


def _policy_parts(policy: object) -> list[object]:
    """``policy`` and, for a chain, every policy inside it (at any depth)."""
    out: list[object] = []
    todo = [policy]
    while todo:
        item = todo.pop()
        if _is_policy(item) and item not in out:
            out.append(item)
            parts = getattr(item, "policies", None)
            if isinstance(parts, tuple):
                todo.extend(parts)
    return out


def _matcher_covers(matcher: str | None, tool: str | None) -> bool:
    """Does a hook ``matcher`` surely match ``tool`` (None: every tool)? Only a match-all
    matcher or a ``|``-separated list naming the tool is sure; anything else counts as no."""
    if matcher is None or matcher.strip() in ("", "*", ".*"):
        return True
    return tool is not None and tool in {name.strip() for name in matcher.split("|")}


def _unhooked_path_policies(o: Options) -> list[object]:
    """The path policies ``can_use_tool`` runs that no PreToolUse hook runs for every tool
    they decide (a policy's ``tools``; all tools when it has none). A hook runs a policy when
    it is that policy, an equal one, or a chain holding one."""
    given = getattr(o.can_use_tool, "policy", None)
    if not _is_policy(given) or not getattr(given, "reads_paths", False):
        return []
    hooked: list[tuple[object, str | None]] = []
    for matcher in o.hooks.get("PreToolUse", ()):
        for callback in matcher.hooks:
            policy = callback if _is_policy(callback) else getattr(callback, "policy", None)
            hooked += [(part, matcher.matcher) for part in _policy_parts(policy)]
    out: list[object] = []
    for part in _policy_parts(given):
        if isinstance(getattr(part, "policies", None), tuple):
            continue  # a chain: its parts are checked one by one
        if not getattr(part, "reads_paths", False):
            continue
        tools: Any = getattr(part, "tools", None)
        named = isinstance(tools, (frozenset, set, tuple, list)) and all(
            isinstance(t, str) for t in tools
        )
        wanted: list[str | None] = sorted(tools) if named else [None]
        for tool in wanted:
            if not any(h == part and _matcher_covers(m, tool) for h, m in hooked):
                out.append(part)
                break
    return out


def _check(o: Options) -> None:
    """Cross-field validation and warnings (field-level checks run in the validators)."""
    # -- permissions
    if o.can_use_tool is not None and o.permission_prompt_tool_name is not None:
        raise OptionsError(
            "Options.can_use_tool and Options.permission_prompt_tool_name are mutually "
            "exclusive: both answer permission prompts",
            option="permission_prompt_tool_name",
        )
    # -- sessions
    if o.continue_conversation and o.resume is not None:
        raise OptionsError(
            "Options.continue_conversation and Options.resume are mutually exclusive",
            option="resume",
        )
    if o.fork_session and not (o.resume is not None or o.continue_conversation):
        raise OptionsError(
            "Options.fork_session needs Options.resume or Options.continue_conversation",
            option="fork_session",
        )
    if (
        o.session_id is not None
        and (o.resume is not None or o.continue_conversation)
        and not o.fork_session
    ):
        raise OptionsError(
            "Options.session_id with resume or continue_conversation needs "
            "Options.fork_session (the resumed session keeps its own id otherwise)",
            option="session_id",
        )
    if o.resume_session_at is not None and o.resume is None:
        raise OptionsError(
            "Options.resume_session_at needs Options.resume", option="resume_session_at"
        )
    if o.resume_drops_turn is not None and o.resume_session_at is None:
        raise OptionsError(
            "Options.resume_drops_turn needs Options.resume_session_at", option="resume_drops_turn"
        )
    if o.resume_missing == "start":
        if o.resume is None and not o.continue_conversation:
            raise OptionsError(
                "Options.resume_missing='start' needs Options.resume (the id to start with) "
                "or continue_conversation",
                option="resume_missing",
            )
        if o.resume is not None and not _is_uuid(o.resume):
            raise OptionsError(
                f"Options.resume_missing='start' needs a session id (a UUID) in "
                f"Options.resume, not {_show(o.resume)}: use Options.resume_or_start(key) "
                "for any other key",
                option="resume",
            )
        if o.fork_session or o.resume_session_at is not None:
            raise OptionsError(
                "Options.resume_missing='start' cannot be combined with fork_session or "
                "resume_session_at (there may be nothing to fork or truncate)",
                option="resume_missing",
            )
    # -- session store
    if o.session_store is None:
        for name in ("diskless", "store_project_key"):
            if getattr(o, name) not in (False, None):
                raise OptionsError(f"Options.{name} needs Options.session_store", option=name)
    elif not o.persist_session:
        raise OptionsError(
            "Options.session_store with persist_session=False: the CLI writes no transcript, "
            "so there is nothing to store",
            option="session_store",
        )
    # -- model
    if o.fallback_model is not None and o.model is not None and o.model in o.fallback_model:
        raise OptionsError(
            f"Options.fallback_model must differ from Options.model ({_show(o.model)})",
            option="fallback_model",
        )
    # -- skills
    if isinstance(o.skills, tuple):
        for name in o.skills:
            problem = skill_name_problem(name)
            if problem is not None:
                raise OptionsError(
                    f"Options.skills: invalid skill name: {problem}", option="skills"
                )
    # -- settings
    if o.setting_sources is not None:
        for source in o.setting_sources:
            if source not in _SETTING_SOURCES:
                raise OptionsError(
                    f"Options.setting_sources entries must be one of {_SETTING_SOURCES}, "
                    f"not {_show(source)}",
                    option="setting_sources",
                )
    settings_text = json_text(o.settings)
    if settings_text is not None:
        _check_settings_json(settings_text)
    elif isinstance(o.settings, str) and o.sandbox is not None:
        raise OptionsError(
            "Options.sandbox cannot be merged into a settings file path "
            f"({_show(o.settings)}); load the file and pass Options.settings as a dict",
            option="sandbox",
        )
    # -- sandbox
    unknown = unknown_keys(o.sandbox) if o.sandbox is not None else []
    if unknown:
        _warn(
            f"Options.sandbox: {', '.join(map(repr, unknown))} "
            f"{'is not a sandbox setting' if len(unknown) == 1 else 'are not sandbox settings'}"
            " this SDK knows (CLI 2.1.332); sent as given, and a CLI that does not know a "
            "key ignores it (a misspelt one too)"
        )
    # -- process (env values and extra_args values may be secrets: never shown)
    for key, value in o.env.items():
        problem = _env_name_problem(key)
        if problem is not None:
            raise OptionsError(f"Options.env: {problem}", option="env")
        if value is not None and not _is_str(value):
            raise OptionsError(
                f"Options.env[{key!r}] must be a string (or None to unset), "
                f"not {type(value).__name__}",
                option="env",
            )
    for flag, value in o.extra_args.items():
        if not _is_str(flag) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", flag):
            raise OptionsError(
                f"Options.extra_args: invalid flag name {_show(flag)} (give it without the "
                "leading '--')",
                option="extra_args",
            )
        if value is not None and not _is_str(value):
            raise OptionsError(
                f"Options.extra_args[{flag!r}] must be a string or None, "
                f"not {type(value).__name__}",
                option="extra_args",
            )
    if not isinstance(o.debug, (bool, str)):
        raise OptionsError(
            f"Options.debug must be a bool or a filter string, not {_show(o.debug)}",
            option="debug",
        )
    if o.debug_to_stderr is True and o.debug_file is not None:
        raise OptionsError(
            "Options.debug_to_stderr=True and Options.debug_file: the CLI writes its debug "
            "log to one place, and stderr wins (the file would stay empty)",
            option="debug_to_stderr",
        )
    # -- MCP
    mcp_text = json_text(o.mcp_servers)
    if mcp_text is not None:
        _check_mcp_json(mcp_text)
    if isinstance(o.mcp_servers, dict):
        for name, config in o.mcp_servers.items():
            if not _is_str(name) or not name:
                raise OptionsError(
                    f"Options.mcp_servers: invalid server name {_show(name)}", option="mcp_servers"
                )
            if isinstance(config, Mapping):
                _check_mcp_dict(name, config)
        in_process = [n for n, c in o.sdk_mcp_servers.items() if _needs_mcp(c)]
        if in_process and not _has_mcp():
            raise OptionsError(
                f"Options.mcp_servers: in-process MCP servers ({', '.join(map(repr, in_process))}) "
                "need the mcp package, an extra: "
                "pip install 'claude-sdk-py[mcp]'",
                option="mcp_servers",
            )
    # -- agents
    if o.agents is not None:
        for name in o.agents:
            if not _is_str(name) or not name:
                raise OptionsError(
                    f"Options.agents: invalid agent name {_show(name)}", option="agents"
                )
    # -- hooks
    for event, matchers in o.hooks.items():
        if not _is_str(event) or not event:
            raise OptionsError(f"Options.hooks: invalid event name {_show(event)}", option="hooks")
        for matcher in matchers:
            if not isinstance(matcher, HookMatcher):
                raise OptionsError(
                    f"Options.hooks[{event!r}] must contain HookMatcher values, "
                    f"not {_show(matcher)}",
                    option="hooks",
                )
        if event not in HOOK_EVENTS:
            _warn(
                f"Options.hooks: {event!r} is not a hook event this SDK knows; it is "
                "registered as given: a newer CLI calls it with its raw input "
                "(UnknownHookInput) and gets its answer as given, an older one never calls it"
            )
    # -- dialogs
    if o.supported_dialog_kinds and o.on_user_dialog is None:
        raise OptionsError(
            "Options.supported_dialog_kinds needs Options.on_user_dialog",
            option="supported_dialog_kinds",
        )
    if o.on_user_dialog is not None and not o.supported_dialog_kinds:
        _warn(
            "Options.on_user_dialog is set but Options.supported_dialog_kinds is empty, so "
            "the CLI will never ask for a dialog"
        )
    # -- thinking
    if o.thinking is not None and o.max_thinking_tokens is not None:
        _warn("Options.max_thinking_tokens is ignored because Options.thinking is set")
    # -- a path policy that only sees what the CLI asks about
    unhooked = _unhooked_path_policies(o)
    if unhooked:
        names = ", ".join(_show(getattr(p, "name", "") or type(p).__name__) for p in unhooked)
        _warn(
            f"Options.can_use_tool runs a path policy ({names}), but the CLI approves some "
            "calls itself (reads inside its working directory) and never asks can_use_tool "
            "about them; give the policy as a PreToolUse hook too, for every tool it "
            "decides: hooks={'PreToolUse': [policy.as_hook_matcher()]}"
        )
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


# ======================================================================================
# An unknown keyword names the option meant

#: Options of ``claude-agent-sdk``'s ``ClaudeAgentOptions`` that have another name here.
OFFICIAL_NAMES: Final[Mapping[str, str]] = {
    "debug_stderr": "stderr (a callback per stderr line)",
    "max_buffer_size": "max_line_bytes",
    "load_timeout_ms": "session_store_load_timeout (in seconds)",
}


def _unknown_keyword(cls: type, exc: TypeError, kwargs: Mapping[str, Any]) -> Exception | None:
    """The error that names the right option for an unknown keyword ``Options(...)`` got,
    or None when ``exc`` is not about one."""
    text = str(exc)
    if "unexpected keyword argument" not in text:
        if "positional argument" in text:
            return OptionsError(
                "Options takes keyword arguments only: Options(model='sonnet', max_turns=3, ...)",
                option="",
            )
        return None
    names = [a.alias for a in attrs.fields(cls) if a.init]
    unknown = [key for key in kwargs if key not in names]
    if not unknown:
        return None
    import difflib

    hints: list[str] = []
    for key in unknown:
        if key in OFFICIAL_NAMES:
            hints.append(f"{key!r} is {OFFICIAL_NAMES[key]} here")
            continue
        close = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
        if close:
            hints.append(f"{key!r}: did you mean {' or '.join(map(repr, close))}?")
        else:
            hints.append(f"{key!r} is not an option")
    return OptionsError(
        f"Options got an unknown option: {'; '.join(hints)} (every option: "
        "help(claude_sdk.Options), or the Options reference)",
        option=unknown[0],
    )


def _explain_unknown_keywords(cls: type) -> None:
    """Make ``cls.__init__`` (generated by attrs) name the option an unknown keyword
    probably meant; the happy path pays one ``try``."""
    generated = cls.__dict__["__init__"]

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            generated(self, *args, **kwargs)
        except TypeError as exc:
            if type(exc) is not TypeError:
                raise
            better = _unknown_keyword(cls, exc, kwargs)
            if better is None:
                raise
            raise better from None

    init.__name__, init.__qualname__ = "__init__", f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = generated.__doc__
    init.__signature__ = inspect.signature(generated)  # type: ignore[attr-defined]
    init.__annotations__ = generated.__annotations__
    type.__setattr__(cls, "__init__", init)


after_build(Options, _explain_unknown_keywords)
