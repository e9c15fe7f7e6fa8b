"""`SandboxSettings`: the CLI's command sandbox, typed (``Options.sandbox``).

With ``sandbox.enabled`` in its settings, Claude Code runs every Bash command, and all it
starts, inside an OS sandbox: on Linux bubblewrap (``bwrap``: the file system read-only but
for the allowed write paths, no network but a proxy, reached through ``socat``, that lets
only allowed hosts through); on macOS Seatbelt. The sandbox confines shell commands only:
the file tools (Read, Write, Edit, ...) run in the CLI's own process, where permission rules
and path policies govern them. ``docs/guides/sandbox.md`` tells what each layer stops.

These classes are the settings' ``sandbox`` block field for field: the official Python
SDK's ``SandboxSettings`` and the TypeScript SDK's (``failIfUnavailable``, ``filesystem``,
``network.strictAllowlist``, ...), as CLI 2.1.330 to 2.1.332 read them. Fields are
snake_case here and camelCase on the wire (`WIRE_KEYS`, which the codec reads too).

Contract:

* Every field is optional; None leaves the setting to the CLI. `Options` adds defaults of its
  own to a sandbox it turns on (see `SandboxSettings`).
* A value of the wrong type raises `OptionsError` naming the field (``option``). Lists given
  as one string are one item; lists are copied.
* `SandboxSettings.from_dict` takes the CLI's JSON form (camelCase keys, as in a settings
  file) or the field names. Keys it does not know are kept in ``extra`` (excluded from
  equality, as for every wire value) and sent as given, for a newer CLI's settings;
  `Options` warns of them (a misspelt key is ignored by the CLI).
* ``credentials``, ``ripgrep``, ``windows`` and ``network.tls_terminate`` are JSON objects
  passed as given; `Options` checks that they are JSON.
* ``bwrapPath`` and ``socatPath`` are refused: the CLI reads them from managed settings only
  (``Options.managed_settings``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias, TypeVar

import attrs

from ._attrs import declared_names, frozen
from ._base import EMPTY, WireModel
from .errors import OptionsError

__all__ = [
    "WIRE_KEYS",
    "SandboxFilesystemConfig",
    "SandboxIgnoreViolations",
    "SandboxNetworkConfig",
    "SandboxSettings",
]

SandboxIgnoreViolations: TypeAlias = Mapping[str, Sequence[str]]
"""Violations to leave unreported: command pattern (``"*"``: every command) -> substrings of
the violation's text (paths). It changes what is reported, never what the sandbox blocks."""

#: Keys of the ``sandbox`` block that the CLI reads from managed settings only.
MANAGED_ONLY = frozenset({"bwrapPath", "socatPath"})

_T = TypeVar("_T", bound="_SandboxPart")


def _show(value: object, limit: int = 60) -> str:
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not hide the real problem
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


class _BadValueError(ValueError):
    """What a converter raises; `_field_errors` names the field."""


def _field_errors(cls: type, fields: list[attrs.Attribute[Any]]) -> list[attrs.Attribute[Any]]:
    """attrs field transformer: a converter's `_BadValueError` becomes an `OptionsError`
    naming ``Class.field``."""
    out = []
    for field in fields:
        converter: Any = field.converter
        if converter is None:
            out.append(field)
            continue

        def convert(value: Any, _c: Any = converter, _name: str = field.name) -> Any:
            try:
                return _c(value)
            except _BadValueError as exc:
                raise OptionsError(f"{cls.__name__}.{_name} {exc}", option=_name) from None

        out.append(field.evolve(converter=convert))
    return out


# -- converters and validators ----------------------------------------------------------


def _strings(value: str | Iterable[str] | None) -> list[str] | None:
    given: object = value  # checked beyond its annotation: callers are not type-checked
    if given is None:
        return None
    if isinstance(given, str):
        return [given]
    if isinstance(given, (bytes, bytearray, Mapping)) or not isinstance(given, Iterable):
        raise _BadValueError(f"must be a string or a list of strings, not {_show(given)}")
    items = list(given)
    for item in items:
        if not isinstance(item, str):
            raise _BadValueError(f"must hold strings, not {_show(item)}")
    return items


def _json_object(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    given: object = value
    if given is None:
        return None
    if not isinstance(given, Mapping):
        raise _BadValueError(f"must be a dict (a JSON object), not {_show(given)}")
    return dict(given)


def _violations(value: SandboxIgnoreViolations | None) -> dict[str, list[str]] | None:
    given: object = value
    if given is None:
        return None
    if not isinstance(given, Mapping):
        raise _BadValueError(f"must map command patterns to lists of strings, not {_show(given)}")
    out: dict[str, list[str]] = {}
    for pattern, texts in given.items():
        if not isinstance(pattern, str):
            raise _BadValueError(f"keys are command patterns (strings), not {_show(pattern)}")
        try:
            strings = _strings(texts)
        except _BadValueError as exc:
            raise _BadValueError(f"[{pattern!r}] {exc}") from None
        if strings is None:
            raise _BadValueError(f"[{pattern!r}] must be a list of strings, not None")
        out[pattern] = strings
    return out


def _optional_bool(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not isinstance(value, bool):
        raise OptionsError(
            f"{type(instance).__name__}.{attribute.name} must be True, False or None, "
            f"not {_show(value)}",
            option=attribute.name,
        )


def _port(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise OptionsError(
            f"{type(instance).__name__}.{attribute.name} must be a TCP port (an int from 1 "
            f"to 65535), not {_show(value)}",
            option=attribute.name,
        )


def _part_of(cls: type[_T], value: object) -> _T | None:
    """``value`` as a ``cls``: itself, None, or a dict (see `SandboxSettings.from_dict`)."""
    if value is None or isinstance(value, cls):
        return value
    if isinstance(value, Mapping):
        return _from_dict(cls, value)
    raise _BadValueError(f"must be a {cls.__name__} or a dict, not {_show(value)}")


# -- the classes --------------------------------------------------------------------------


@frozen(kw_only=True, repr=False, eq=False)
class _SandboxPart(WireModel):
    """What the sandbox classes share: ``extra`` checked, a repr of what is set.

    Decorated with `frozen` rather than `model` (the same arguments), as its subclasses
    are: mypy reads their converters from attrs' own decorators only; ``extra`` is declared
    again so that it sees that field too.
    """

    extra: Mapping[str, Any] = attrs.field(default=EMPTY, eq=False, repr=False)

    def __repr__(self) -> str:
        # Only the fields set (what is sent): a sandbox has some twenty settings, few set.
        held = self.__dict__
        body = ", ".join(
            f"{f.name}={held[f.name]!r}"
            for f in attrs.fields(type(self))
            if f.name in held and f.name != "extra"
        )
        extra = f"{', ' if body else ''}extra={dict(self.extra)!r}" if self.extra else ""
        return f"{type(self).__name__}({body}{extra})"

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        extra: object = self.extra
        if not isinstance(extra, Mapping):
            raise OptionsError(
                f"{type(self).__name__}.extra must be a dict of wire keys, not {_show(extra)}",
                option="extra",
            )
        keys = WIRE_KEYS[type(self)]
        taken = set(keys) | set(keys.values())
        for key in extra:
            if not isinstance(key, str):
                raise OptionsError(
                    f"{type(self).__name__}.extra keys are strings, not {_show(key)}",
                    option="extra",
                )
            if key in taken:
                raise OptionsError(
                    f"{type(self).__name__}.extra[{key!r}] is a field of "
                    f"{type(self).__name__}: set the field",
                    option="extra",
                )
            if key in MANAGED_ONLY and type(self) is SandboxSettings:
                raise OptionsError(
                    f"sandbox.{key} is read by the CLI from managed settings only; give it "
                    "in Options.managed_settings",
                    option="extra",
                )


@frozen(kw_only=True, repr=False, eq=False, field_transformer=_field_errors)
class SandboxNetworkConfig(_SandboxPart):
    """The sandbox's network (``sandbox.network``): which hosts sandboxed commands may reach.

    A sandboxed command has no network but the CLI's proxy. For a host not allowed, the CLI
    asks the host (``can_use_tool("SandboxNetworkAccess", {"host": ...})``; with no
    ``can_use_tool`` the answer is no), unless ``strict_allowlist`` refuses it at once.

    Attributes:
        allowed_domains: hosts that may be reached without asking (``*.example.com``
            wildcards); merged with ``WebFetch(domain:...)`` allow rules.
        denied_domains: hosts always refused, even when allowed above.
        strict_allowlist: refuse every host not in ``allowed_domains`` without asking.
            `Options` sends True for a sandbox it turns on, unless set here.
        allow_managed_domains_only: (managed settings) only managed allow lists count.
        allow_unix_sockets: (macOS) Unix socket paths sandboxed commands may use.
        allow_all_unix_sockets: every Unix socket (Linux and macOS). **Reduces isolation.**
        allow_local_binding: (macOS) sandboxed commands may listen on localhost.
        allow_mach_lookup: (macOS) XPC/Mach service names to allow (trailing ``*``).
        http_proxy_port: your own HTTP proxy's local port, instead of the CLI's proxy.
        socks_proxy_port: your own SOCKS5 proxy's local port.
        tls_terminate: (experimental) ``{"caCertPath", "caKeyPath"}``: let the proxy see
            HTTPS bodies; a JSON object passed as given.
    """

    allowed_domains: list[str] | None = attrs.field(default=None, converter=_strings)
    denied_domains: list[str] | None = attrs.field(default=None, converter=_strings)
    strict_allowlist: bool | None = attrs.field(default=None, validator=_optional_bool)
    allow_managed_domains_only: bool | None = attrs.field(default=None, validator=_optional_bool)
    allow_unix_sockets: list[str] | None = attrs.field(default=None, converter=_strings)
    allow_all_unix_sockets: bool | None = attrs.field(default=None, validator=_optional_bool)
    allow_local_binding: bool | None = attrs.field(default=None, validator=_optional_bool)
    allow_mach_lookup: list[str] | None = attrs.field(default=None, converter=_strings)
    http_proxy_port: int | None = attrs.field(default=None, validator=_port)
    socks_proxy_port: int | None = attrs.field(default=None, validator=_port)
    tls_terminate: dict[str, Any] | None = attrs.field(default=None, converter=_json_object)


@frozen(kw_only=True, repr=False, eq=False, field_transformer=_field_errors)
class SandboxFilesystemConfig(_SandboxPart):
    """The sandbox's file system (``sandbox.filesystem``).

    Sandboxed commands may write only the working directory (and added directories), the
    CLI's temporary directory and these paths; everything else is read-only to them.

    Attributes:
        allow_write: more paths sandboxed commands may write; merged with ``Edit(...)``
            allow rules.
        deny_write: paths they may not write; merged with ``Edit(...)`` deny rules.
        deny_read: paths they may not read; merged with ``Read(...)`` deny rules.
        allow_read: paths inside ``deny_read`` to read again.
        allow_managed_read_paths_only: (managed settings) only managed ``allow_read`` counts.
        disabled: no file-system isolation at all (network isolation stays).
            **Removes the file-system layer.**
    """

    allow_write: list[str] | None = attrs.field(default=None, converter=_strings)
    deny_write: list[str] | None = attrs.field(default=None, converter=_strings)
    deny_read: list[str] | None = attrs.field(default=None, converter=_strings)
    allow_read: list[str] | None = attrs.field(default=None, converter=_strings)
    allow_managed_read_paths_only: bool | None = attrs.field(default=None, validator=_optional_bool)
    disabled: bool | None = attrs.field(default=None, validator=_optional_bool)


def _network(value: SandboxNetworkConfig | Mapping[str, Any] | None) -> SandboxNetworkConfig | None:
    return _part_of(SandboxNetworkConfig, value)


def _filesystem(
    value: SandboxFilesystemConfig | Mapping[str, Any] | None,
) -> SandboxFilesystemConfig | None:
    return _part_of(SandboxFilesystemConfig, value)


@frozen(kw_only=True, repr=False, eq=False, field_transformer=_field_errors)
class SandboxSettings(_SandboxPart):
    """The settings' ``sandbox`` block: whether and how Bash commands run sandboxed.

    ``Options(sandbox=SandboxSettings(enabled=True))`` turns the sandbox on; a dict in the
    CLI's form works too (`from_dict`). When ``enabled`` is True, `Options` also sends,
    unless set here:

    * ``fail_if_unavailable=True``: a sandbox that cannot start (``bwrap`` or ``socat``
      missing, an unsupported platform, settings the CLI rejects) refuses the session, a
      `ResultError` whose ``startup_failure_reason`` is ``"sandbox_required_unavailable"``,
      rather than running commands unsandboxed (as the TypeScript SDK does);
    * ``allow_unsandboxed_commands=False``: the model cannot ask to run a command outside
      the sandbox (Bash's ``dangerouslyDisableSandbox``), which any approval would let run
      unconfined (``can_use_tool``, a hook, ``bypassPermissions``);
    * ``network.strict_allowlist=True``: a host not in ``allowed_domains`` is refused
      without asking ``can_use_tool``, which an allow-all callback would approve.

    Set any of them to the other value to have the CLI's behaviour.

    Attributes:
        enabled: run Bash commands sandboxed.
        fail_if_unavailable: refuse to start when the sandbox cannot (see above).
        auto_allow_bash_if_sandboxed: approve a Bash command that will run sandboxed
            without asking, unless a deny rule, an ask rule or a safety check stops it.
        allow_unsandboxed_commands: honour ``dangerouslyDisableSandbox`` (see above).
        excluded_commands: command patterns (``Bash(...)`` rule syntax) run outside the
            sandbox; every command of a call must match. Not a security boundary.
        network: `SandboxNetworkConfig`.
        filesystem: `SandboxFilesystemConfig`.
        credentials: files and variables to hide from sandboxed commands or mask at the
            proxy (``{"files": [...], "envVars": [...], ...}``); a JSON object passed as given.
        ignore_violations: violations to leave unreported (`SandboxIgnoreViolations`).
        enable_weaker_nested_sandbox: (Linux) no fresh ``/proc`` mount, for unprivileged
            containers that cannot make one. **Reduces isolation.**
        allow_nested_user_namespaces: (Linux) sandboxed commands may create user namespaces
            (nested sandboxes, Chromium). **Removes code-execution isolation.**
        enable_weaker_network_isolation: (macOS) allow ``com.apple.trustd.agent``.
            **Reduces isolation.**
        allow_apple_events: (macOS) sandboxed commands may send Apple Events.
            **Removes code-execution isolation.**
        ripgrep: ``{"command", "args"?}``: the ripgrep to use; a JSON object passed as given.
        windows: (Windows, CLI 2.1.332) ``{"backend": "sandboxuser" | "mxc"}``; a JSON object
            passed as given.
    """

    enabled: bool | None = attrs.field(default=None, validator=_optional_bool)
    fail_if_unavailable: bool | None = attrs.field(default=None, validator=_optional_bool)
    auto_allow_bash_if_sandboxed: bool | None = attrs.field(default=None, validator=_optional_bool)
    allow_unsandboxed_commands: bool | None = attrs.field(default=None, validator=_optional_bool)
    excluded_commands: list[str] | None = attrs.field(default=None, converter=_strings)
    network: SandboxNetworkConfig | None = attrs.field(default=None, converter=_network)
    filesystem: SandboxFilesystemConfig | None = attrs.field(default=None, converter=_filesystem)
    credentials: dict[str, Any] | None = attrs.field(default=None, converter=_json_object)
    ignore_violations: dict[str, list[str]] | None = attrs.field(
        default=None, converter=_violations
    )
    enable_weaker_nested_sandbox: bool | None = attrs.field(default=None, validator=_optional_bool)
    allow_nested_user_namespaces: bool | None = attrs.field(default=None, validator=_optional_bool)
    enable_weaker_network_isolation: bool | None = attrs.field(
        default=None, validator=_optional_bool
    )
    allow_apple_events: bool | None = attrs.field(default=None, validator=_optional_bool)
    ripgrep: dict[str, Any] | None = attrs.field(default=None, converter=_json_object)
    windows: dict[str, Any] | None = attrs.field(default=None, converter=_json_object)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SandboxSettings:
        """The settings from their JSON form (a settings file's ``sandbox`` block).

        Keys are the CLI's camelCase ones (``autoAllowBashIfSandboxed``) or the field names
        (``auto_allow_bash_if_sandboxed``); ``network`` and ``filesystem`` may be dicts too.
        Other keys are kept in ``extra`` and sent as given.

        Raises:
            OptionsError: not a mapping, a key given in both spellings, a value of the
                wrong type, or ``bwrapPath``/``socatPath`` (managed settings only).
        """
        return _from_dict(cls, data)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _wire_keys(cls: type) -> dict[str, str]:
    # declared_names: without building the classes (every program imports this module)
    return {name: _camel(name) for name in declared_names(cls) if name != "extra"}


#: Field name -> wire key, per class: the one table of the sandbox's names (the codec's
#: schema and `SandboxSettings.from_dict` both read it).
WIRE_KEYS: Mapping[type, Mapping[str, str]] = {
    cls: _wire_keys(cls) for cls in (SandboxSettings, SandboxNetworkConfig, SandboxFilesystemConfig)
}

#: Wire key or field name -> field name, per class.
_BY_KEY: Mapping[type, Mapping[str, str]] = {
    cls: {**{n: n for n in keys}, **{w: n for n, w in keys.items()}}
    for cls, keys in WIRE_KEYS.items()
}


def _from_dict(cls: type[_T], data: object) -> _T:
    if not isinstance(data, Mapping):
        raise OptionsError(
            f"{cls.__name__}: the settings must be a dict, not {_show(data)}", option=None
        )
    names = _BY_KEY[cls]
    fields: dict[str, Any] = {}
    spelt: dict[str, str] = {}
    extra: dict[str, Any] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            raise OptionsError(
                f"{cls.__name__}: keys are strings, not {_show(key)}", option="extra"
            )
        name = names.get(key)
        if name is None:
            extra[key] = value
            continue
        if name in fields:
            raise OptionsError(
                f"{cls.__name__}: {spelt[name]!r} and {key!r} are the same setting; give it once",
                option=name,
            )
        fields[name] = value
        spelt[name] = key
    return cls(**fields, extra=extra or EMPTY)


def sandbox_settings(
    value: SandboxSettings | Mapping[str, Any] | None,
) -> SandboxSettings | None:
    """``Options.sandbox`` as given: None, a `SandboxSettings`, or a dict (`from_dict`).

    Raises:
        OptionsError: anything else, or a dict `SandboxSettings.from_dict` refuses.
    """
    given: object = value
    if given is None or isinstance(given, SandboxSettings):
        return given
    if isinstance(given, Mapping):
        return SandboxSettings.from_dict(given)
    raise OptionsError(
        f"must be a SandboxSettings or a dict, not {type(given).__name__}", option=None
    )


def unknown_keys(settings: SandboxSettings) -> list[str]:
    """The wire keys of ``settings`` (and of its ``network`` and ``filesystem``) that the
    model does not know, dotted (``"network.newKey"``)."""
    out = list(settings.extra)
    for name in ("network", "filesystem"):
        part = getattr(settings, name)
        if part is not None:
            out += [f"{name}.{key}" for key in part.extra]
    return out
