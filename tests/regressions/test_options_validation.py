"""Bad option values fail at ``Options(...)`` with an `OptionsError` (issue 14).

The rule: every value ``Options(...)``, ``attrs.evolve`` and the option classes accept can be
launched, so ``build_launch_spec`` (and the spawn after it) never raises a bare
``ValueError``/``KeyError``/``TypeError``. No string anywhere in the options holds a NUL
character, an environment variable name is never empty and never holds ``=``, and
``Options.user`` names a user of this machine. Errors name the option and never show an
environment, extra-argument or header value (they may be secrets).
"""

from __future__ import annotations

import ast
import functools
import math
import os
import pickle
import pwd
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

import claude_sdk
from claude_sdk import ClaudeSDKError, ClaudeSDKWarning, Options, OptionsError
from claude_sdk._limits import DEFAULT_MAX_LINE_BYTES
from claude_sdk._protocol import framing
from claude_sdk._protocol.launch import build_initialize, build_launch_spec
from claude_sdk.options import (
    McpHttpServer,
    McpSSEServer,
    McpStdioServer,
    SystemPromptCustom,
    SystemPromptFile,
    SystemPromptPreset,
    ThinkingConfig,
    ToolsPreset,
)
from claude_sdk.transports.subprocess import child_environment

SECRET = "s3cr3t-t0ken"

# --------------------------------------------------------------------------------------
# hostile values


class BrokenStr(str):
    """A str whose conversions fail (as a formatted argv item would need)."""

    def __str__(self) -> str:
        raise RuntimeError("str")

    def __format__(self, spec: str) -> str:
        raise RuntimeError("format")

    def __repr__(self) -> str:
        raise RuntimeError("repr")


class BrokenInt(int):
    def __str__(self) -> str:
        raise RuntimeError("str")

    def __format__(self, spec: str) -> str:
        raise RuntimeError("format")

    def __repr__(self) -> str:
        raise RuntimeError("repr")


class BrokenFloat(float):
    def __repr__(self) -> str:
        raise RuntimeError("repr")

    def __format__(self, spec: str) -> str:
        raise RuntimeError("format")


class BrokenPath:
    def __fspath__(self) -> str:
        raise RuntimeError("fspath")


class BytesPath:
    def __fspath__(self) -> bytes:
        return b"/tmp"


class IntPath:
    def __fspath__(self) -> Any:
        return 5


class BrokenIter:
    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("iter")


class BrokenMapping(Mapping[str, str]):
    def __getitem__(self, key: str) -> str:
        raise RuntimeError("getitem")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("iter")

    def __len__(self) -> int:
        raise RuntimeError("len")


class BrokenObject:
    """Fails at every conversion and comparison (it stays hashable)."""

    def __bool__(self) -> bool:
        raise RuntimeError("bool")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        return 1

    def __str__(self) -> str:
        raise RuntimeError("str")

    def __repr__(self) -> str:
        raise RuntimeError("repr")


HOSTILE: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2**53,
    10**30,
    10**5000,  # str() of it raises ValueError
    1.5,
    math.nan,
    math.inf,
    -math.inf,
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",  # a lone surrogate: the file system encoding refuses it
    "\udcff",  # surrogateescape: an undecodable byte, which is fine
    "-",
    "--flag",
    "x" * 100_000,
    b"bytes",
    bytearray(b"x"),
    object(),
    BrokenStr("s"),
    BrokenInt(3),
    BrokenFloat(1.0),
    BrokenPath(),
    BytesPath(),
    IntPath(),
    BrokenIter(),
    BrokenMapping(),
    BrokenObject(),
    [],
    [""],
    ["\x00"],
    [1],
    [None],
    ["ok", object()],
    [BrokenStr("s")],
    (),
    {},
    {"": ""},
    {"k": "\x00"},
    {"\x00": "v"},
    {"a=b": "v"},
    {1: "v"},
    {"k": 1},
    {"k": None},
    {"k": object()},
    {"k": math.nan},
    {"k": 10**5000},
    {"k": "\ud800"},
    {"k": [2**53]},
    {"k": {"deep": [1, "\x00"]}},
    {"type": "sdk", "instance": object()},
    set(),
    {"x"},
    lambda: None,
    int,
]


def _describe(value: object) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text[:60]


def _assert_launchable(options: Options) -> None:
    """What the spawn needs: argv and environment of plain, encodable strings without NUL."""
    spec = build_launch_spec(options)
    for item in spec.argv:
        assert type(item) is str
        assert "\x00" not in item
        os.fsencode(item)
    env = child_environment(spec, base={})
    for key, value in env.items():
        assert type(key) is str
        assert type(value) is str
        assert key
        assert "=" not in key
        assert "\x00" not in key + value
        os.fsencode(key)
        os.fsencode(value)
    for place in (spec.cwd, spec.user):
        assert place is None or (type(place) is str and "\x00" not in place)
    build_initialize(options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClaudeSDKWarning)
        assert attrs.evolve(options) == options  # converters are idempotent


def _options(**kwargs: Any) -> Options:
    """``Options(**kwargs)``, typed loosely: these tests pass what the annotations forbid."""
    return Options(**kwargs)


def _try(build: Callable[[], Any], name: str, value: object, problems: list[str]) -> Any:
    """Build; an `OptionsError` must name ``name``; any other exception is a problem."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ClaudeSDKWarning)
            return build()
    except OptionsError as exc:
        if exc.option != name:
            problems.append(f"{_describe(value)}: option={exc.option!r}, expected {name!r}")
        str(exc)  # neither the message nor repr may fail
        repr(exc)
    except Exception as exc:
        problems.append(f"{_describe(value)}: {type(exc).__name__}: {exc}")
    return None


OPTION_NAMES = [f.name for f in attrs.fields(Options) if f.init]


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_every_value_either_fails_typed_or_launches(name: str) -> None:
    problems: list[str] = []
    for value in HOSTILE:
        options = _try(functools.partial(_options, **{name: value}), name, value, problems)
        if options is None:
            continue
        try:
            _assert_launchable(options)
        except Exception as exc:
            problems.append(f"{_describe(value)}: accepted, then {type(exc).__name__}: {exc}")
    assert problems == []


OPTION_CLASSES: list[tuple[type, dict[str, Any], Callable[[Any], Options]]] = [
    (McpStdioServer, {"command": "x"}, lambda c: Options(mcp_servers={"s": c})),
    (McpSSEServer, {"url": "u"}, lambda c: Options(mcp_servers={"s": c})),
    (McpHttpServer, {"url": "u"}, lambda c: Options(mcp_servers={"s": c})),
    (SystemPromptPreset, {}, lambda c: Options(system_prompt=c)),
    (SystemPromptFile, {"path": "/p"}, lambda c: Options(system_prompt=c)),
    (SystemPromptCustom, {"prompt": "p"}, lambda c: Options(system_prompt=c)),
    (ThinkingConfig, {"type": "enabled"}, lambda c: Options(thinking=c)),
    (ToolsPreset, {}, lambda c: Options(tools=c)),
]


@pytest.mark.parametrize(
    ("cls", "base", "use", "name"),
    [(c, b, u, f.name) for c, b, u in OPTION_CLASSES for f in attrs.fields(c)],
    ids=lambda x: x.__name__ if isinstance(x, type) else x if isinstance(x, str) else "",
)
def test_option_classes_fail_typed_or_launch(
    cls: type, base: dict[str, Any], use: Callable[[Any], Options], name: str
) -> None:
    problems: list[str] = []
    for value in HOSTILE:
        config = _try(functools.partial(cls, **{**base, name: value}), name, value, problems)
        if config is None:
            continue
        try:
            _assert_launchable(use(config))
        except Exception as exc:
            problems.append(f"{_describe(value)}: accepted, then {type(exc).__name__}: {exc}")
    assert problems == []


@pytest.mark.parametrize("field", ["command", "args", "env", "type", "url", "headers"])
def test_mcp_wire_dicts_fail_typed_or_launch(field: str) -> None:
    problems: list[str] = []
    for kind, base in (("stdio", {"command": "x"}), ("http", {"url": "u"})):
        for value in HOSTILE:
            config = {"type": kind, **base, field: value}
            build = functools.partial(_options, mcp_servers={"s": config})
            options = _try(build, "mcp_servers", value, problems)
            if options is not None:
                try:
                    _assert_launchable(options)
                except Exception as exc:
                    problems.append(f"{kind} {_describe(value)}: {type(exc).__name__}: {exc}")
    assert problems == []


# --------------------------------------------------------------------------------------
# the error type


def test_options_error_is_every_old_type() -> None:
    assert issubclass(OptionsError, ClaudeSDKError)
    assert issubclass(OptionsError, ValueError)
    assert issubclass(OptionsError, TypeError)
    with pytest.raises(ValueError):
        Options(max_turns=-1)
    with pytest.raises(TypeError):
        Options(max_turns="3")  # type: ignore[arg-type]


def test_options_error_facts_and_pickling() -> None:
    with pytest.raises(OptionsError) as info:
        Options(model="opus\x00")
    error = info.value
    assert error.kind == "options"
    assert error.option == "model"
    assert "Options.model" in str(error)
    assert "NUL" in str(error)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is OptionsError
    assert (copy.option, copy.kind, str(copy)) == (error.option, error.kind, str(error))
    assert repr(OptionsError("bad", option="env")) == (
        "OptionsError(message='bad', kind='options', option='env')"
    )
    assert str(OptionsError("bad", option="env")) == "bad (option=env)"
    assert str(OptionsError(option="env")) == "invalid value for the option env"


def test_options_error_is_exported() -> None:
    assert claude_sdk.OptionsError is OptionsError
    assert "OptionsError" in claude_sdk.__all__
    assert "OptionsError" in claude_sdk.errors.__all__


# --------------------------------------------------------------------------------------
# NUL characters, wherever they are


def _nul_cases() -> list[tuple[str, dict[str, Any]]]:
    n = "a\x00b"
    return [
        ("env", {"env": {"HOME": n}}),
        ("env", {"env": {n: "v"}}),
        ("model", {"model": n}),
        ("fallback_model", {"fallback_model": [n]}),
        ("add_dirs", {"add_dirs": [n]}),
        ("add_dirs", {"add_dirs": Path("/tmp") / n}),
        ("cwd", {"cwd": n}),
        ("cli_path", {"cli_path": n}),
        ("debug_file", {"debug_file": n}),
        ("debug", {"debug": n}),
        ("client_app", {"client_app": n}),
        ("resume", {"resume": n}),
        ("agent", {"agent": n}),
        ("allowed_tools", {"allowed_tools": ["Read", n]}),
        ("disallowed_tools", {"disallowed_tools": n}),
        ("tools", {"tools": [n]}),
        ("betas", {"betas": [n]}),
        ("plugins", {"plugins": [{"type": "local", "path": n}]}),
        ("project_config_root", {"project_config_root": n}),
        ("extra_args", {"extra_args": {"flag": n}}),
        ("settings", {"settings": {"a": {"b": [n]}}}),
        ("settings", {"settings": n}),
        ("sandbox", {"sandbox": {"enabled": True, "x": n}}),
        ("managed_settings", {"managed_settings": {n: 1}}),
        ("mcp_servers", {"mcp_servers": {"s": {"type": "stdio", "command": n}}}),
        ("mcp_servers", {"mcp_servers": {n: {"type": "stdio", "command": "x"}}}),
        ("mcp_servers", {"mcp_servers": n}),
        ("system_prompt", {"system_prompt": n}),
        ("system_prompt", {"system_prompt": {"type": "file", "path": n}}),
        ("system_prompt", {"system_prompt": {"type": "preset", "append": n}}),
        ("title", {"title": n}),
        ("plan_mode_instructions", {"plan_mode_instructions": n}),
        ("tool_aliases", {"tool_aliases": {"a": n}}),
        ("output_format", {"output_format": {"type": "object", "title": n}}),
        ("agents", {"agents": {"a": {"description": n, "prompt": "p"}}}),
    ]


@pytest.mark.parametrize(("option", "kwargs"), _nul_cases(), ids=lambda x: str(x)[:40])
def test_a_nul_anywhere_is_an_options_error(option: str, kwargs: dict[str, Any]) -> None:
    with pytest.raises(OptionsError) as info:
        Options(**kwargs)
    assert info.value.option == option
    assert f"Options.{option}" in str(info.value)


def test_a_nul_in_an_option_class_is_an_options_error() -> None:
    n = "a\x00b"
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: McpStdioServer(command=n), "command"),
        (lambda: McpStdioServer(command="x", args=["ok", n]), "args"),
        (lambda: McpStdioServer(command="x", env={"K": n}), "env"),
        (lambda: McpHttpServer(url=n), "url"),
        (lambda: McpSSEServer(url="u", headers={"H": n}), "headers"),
        (lambda: McpSSEServer(url="u", tools=[{"name": n}]), "tools"),
        (lambda: SystemPromptFile(n), "path"),
        (lambda: SystemPromptCustom(prompt=["a", n]), "prompt"),
        (lambda: SystemPromptPreset(append=n), "append"),
    ]
    for build, option in cases:
        with pytest.raises(OptionsError) as info:
            build()
        assert info.value.option == option


# --------------------------------------------------------------------------------------
# environment variables


@pytest.mark.parametrize("name", ["", "A=B", "=A", "A\x00", 5, None])
def test_an_env_name_the_os_refuses_is_an_options_error(name: object) -> None:
    with pytest.raises(OptionsError) as info:
        Options(env={name: "v"})  # type: ignore[dict-item]
    assert info.value.option == "env"
    with pytest.raises(OptionsError) as info:
        McpStdioServer(command="x", env={name: "v"})  # type: ignore[dict-item]
    assert info.value.option == "env"
    with pytest.raises(OptionsError):
        Options(mcp_servers={"s": {"command": "x", "env": {name: "v"}}})


@pytest.mark.parametrize(
    "build",
    [
        lambda: Options(env={"API_KEY": SECRET + "\x00"}),
        lambda: Options(env={"API_KEY": SECRET.encode()}),  # type: ignore[dict-item]
        lambda: Options(extra_args={"api-key": SECRET + "\x00"}),
        lambda: Options(extra_args={"api-key": SECRET.encode()}),  # type: ignore[dict-item]
        lambda: McpHttpServer(url="u", headers={"Authorization": SECRET + "\x00"}),
        lambda: McpHttpServer(url="u", headers={"Authorization": SECRET.encode()}),  # type: ignore[dict-item]
        lambda: McpStdioServer(command="x", env={"TOKEN": SECRET + "\x00"}),
        lambda: Options(mcp_servers={"s": {"command": "x", "env": {"TOKEN": SECRET + "\x00"}}}),
        lambda: Options(settings={"env": {"TOKEN": SECRET + "\x00"}}, model="\ud800"),
    ],
)
def test_errors_name_the_key_never_the_value(build: Callable[[], object]) -> None:
    with pytest.raises(OptionsError) as info:
        build()
    assert SECRET not in str(info.value)
    assert SECRET not in repr(info.value)


def test_an_env_value_error_names_its_key() -> None:
    with pytest.raises(OptionsError) as info:
        Options(env={"API_KEY": SECRET + "\x00"})
    assert "API_KEY" in str(info.value)


# --------------------------------------------------------------------------------------
# user


def _unknown_uid() -> int:
    uid = 54321
    while True:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
        uid += 1


def test_an_unknown_user_is_an_options_error() -> None:
    for user in ("no-such-user-issue-14", _unknown_uid(), str(_unknown_uid()), -1, 2**40):
        with pytest.raises(OptionsError) as info:
            Options(user=user)
        assert info.value.option == "user"
        assert "no user" in str(info.value)
        assert "ContainerTransport(user=" in str(info.value)  # where a container user goes


@pytest.mark.parametrize("user", ["", "a\x00b", True, 1.5, b"root", ["root"]])
def test_a_user_of_the_wrong_form_is_an_options_error(user: object) -> None:
    with pytest.raises(OptionsError) as info:
        Options(user=user)  # type: ignore[arg-type]
    assert info.value.option == "user"


def test_a_known_user_by_name_or_uid() -> None:
    me = pwd.getpwuid(os.getuid())
    assert Options(user=me.pw_name).user == me.pw_name
    # A uid becomes the account's name: the form every local spawn accepts.
    assert Options(user=me.pw_uid).user == me.pw_name
    assert Options(user=str(me.pw_uid)).user == me.pw_name
    assert build_launch_spec(Options(user=me.pw_uid)).user == me.pw_name


# --------------------------------------------------------------------------------------
# numbers, paths, JSON


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_turns": 10**5000},
        {"max_turns": 2**53},
        {"task_budget": {"total": 10**30}},
        {"max_thinking_tokens": -1},
        {"max_budget_usd": 10**400},
        {"max_budget_usd": math.nan},
        {"max_budget_usd": -0.5},
        {"initialize_timeout": math.nan},
        {"control_timeout": -1},
        {"shutdown_grace": True},
        {"max_line_bytes": 2**60},
        {"max_line_bytes": 1023},
        {"thinking": {"type": "enabled", "budget_tokens": 10**20}},
    ],
    ids=lambda x: _describe(x)[:30],
)
def test_numbers_the_cli_cannot_read_are_options_errors(kwargs: dict[str, Any]) -> None:
    (name,) = kwargs
    with pytest.raises(OptionsError) as info:
        _options(**kwargs)
    assert info.value.option == name


def test_an_mcp_timeout_too_large_is_an_options_error() -> None:
    with pytest.raises(OptionsError) as info:
        McpStdioServer(command="x", timeout=10**20)
    assert info.value.option == "timeout"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("cwd", ""),
        ("cli_path", ""),
        ("cwd", b"/tmp"),
        ("cli_path", BytesPath()),
        ("add_dirs", [""]),
        ("add_dirs", b"/tmp"),
        ("debug_file", IntPath()),
        ("plugins", [b"/p"]),
        ("mcp_servers", ""),
    ],
    ids=lambda x: _describe(x)[:30],
)
def test_paths_must_be_non_empty_text(name: str, value: object) -> None:
    with pytest.raises(OptionsError) as info:
        _options(**{name: value})
    assert info.value.option == name


def test_a_broken_fspath_is_an_options_error_naming_the_option() -> None:
    with pytest.raises(OptionsError) as info:
        Options(cli_path=BrokenPath())
    assert info.value.option == "cli_path"
    assert isinstance(info.value.__cause__, RuntimeError)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("settings", {"a": math.inf}),
        ("settings", {"a": object()}),
        ("settings", {1: "x"}),
        ("settings", '{"a": NaN}'),
        ("sandbox", {"enabled": {"x"}}),
        ("managed_settings", {"a": b"x"}),
        ("output_format", {"type": "object", "maximum": math.nan}),
        ("mcp_servers", {"s": {"type": "stdio", "command": "x", "args": [object()]}}),
    ],
    # no address in an id: the processes of a pytest-xdist run must agree on the ids
    ids=lambda x: re.sub(r" at 0x[0-9a-f]+", "", _describe(x))[:30],
)
def test_what_is_sent_as_json_must_be_json(name: str, value: object) -> None:
    with pytest.raises(OptionsError) as info:
        _options(**{name: value})
    assert info.value.option == name


def test_a_cycle_or_deep_nesting_is_an_options_error() -> None:
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(200):
        node["a"] = {}
        node = node["a"]
    for settings in (cycle, deep):
        with pytest.raises(OptionsError) as info:
            Options(settings=settings)
        assert info.value.option == "settings"


def test_subclasses_of_builtins_become_plain_values() -> None:
    options = Options(
        model=BrokenStr("opus"),
        max_turns=BrokenInt(3),
        env={BrokenStr("K"): BrokenStr("v")},
        allowed_tools=[BrokenStr("Read")],
        add_dirs=[BrokenStr("/d")],
    )
    assert type(options.model) is str
    assert type(options.max_turns) is int
    assert all(type(x) is str for kv in options.env.items() for x in kv)
    spec = build_launch_spec(options)
    assert "--model=opus" in spec.argv
    assert "--max-turns=3" in spec.argv
    assert "--add-dir=/d" in spec.argv
    assert spec.env["K"] == "v"


def test_an_in_process_server_is_left_alone() -> None:
    server = BrokenObject()
    options = Options(mcp_servers={"s": server, "t": {"type": "sdk", "instance": server}})
    assert options.sdk_mcp_servers == {"s": server, "t": server}
    _assert_launchable(options)


def test_evolve_raises_options_errors_too() -> None:
    options = Options(model="opus")
    with pytest.raises(OptionsError) as info:
        attrs.evolve(options, env={"A": "\x00"})
    assert info.value.option == "env"
    with pytest.raises(OptionsError) as info:
        attrs.evolve(options, user="no-such-user-issue-14")
    assert info.value.option == "user"


def test_nested_errors_name_the_outer_option() -> None:
    with pytest.raises(OptionsError) as info:
        Options(thinking={"type": "enabled", "budget_tokens": -1})
    assert info.value.option == "thinking"
    assert "budget_tokens" in str(info.value)
    with pytest.raises(OptionsError) as info:
        ThinkingConfig.enabled(-1)
    assert info.value.option == "budget_tokens"


# --------------------------------------------------------------------------------------
# layering: the option model imports nothing from the protocol layer


def test_options_imports_nothing_from_the_protocol_layer() -> None:
    path = Path(claude_sdk.options.__file__ or "")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported: list[str] = []
    for node in ast.walk(tree):  # module level and inside functions alike
        if isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            imported += [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
    assert [name for name in imported if "_protocol" in name] == []


def test_importing_options_loads_no_protocol_module() -> None:
    code = (
        "import sys, claude_sdk.options; "
        "print(sorted(m for m in sys.modules if m.startswith('claude_sdk._protocol')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_the_line_limit_lives_in_one_place() -> None:
    assert framing.DEFAULT_MAX_LINE_BYTES is DEFAULT_MAX_LINE_BYTES
    assert Options().max_line_bytes == DEFAULT_MAX_LINE_BYTES == 256 * 1024 * 1024
