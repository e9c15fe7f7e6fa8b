"""``Options.sandbox`` typed: `SandboxSettings` and what reaches the CLI (issue 27, item 7).

* The fields are the CLI's settings: the wire keys equal the TypeScript SDK 0.3.332's
  published sandbox schema (less the two keys only managed settings may set) plus ``windows``
  (CLI 2.1.332), and hold every key of the official Python SDK 0.2.189's ``SandboxSettings``
  and ``SandboxNetworkConfig``.
* Generated settings (every field, nested configs, unknown keys) survive the codec and the
  dict form both ways, in camelCase and in snake_case, and reach ``initialize`` as the codec
  writes them, with the SDK's defaults added only where a sandbox that is turned on leaves
  them unset.
* Every value of the wrong JSON type, anywhere, is an `OptionsError` naming ``sandbox``;
  never another exception.
* `sandbox_warning` speaks exactly when the sandbox was asked for and the CLI runs without it.
* The probe the e2e tests use (`tests.support.sandbox_probe`) gives bubblewrap's own words
  when it cannot run: a missing program, a bwrap that refuses, and a real kernel refusal in
  a user namespace that may make no more.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import typing
import warnings
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import wire
from claude_sdk._protocol.launch import (
    SANDBOX_DEFAULTS,
    build_initialize,
    build_launch_spec,
    sandbox_warning,
    sandbox_wire,
)
from claude_sdk.sandbox import (
    MANAGED_ONLY,
    WIRE_KEYS,
    SandboxFilesystemConfig,
    SandboxNetworkConfig,
    SandboxSettings,
)

from .support.deep import deep
from .support.sandbox_probe import sandbox_problem

JSON = dict[str, Any]

# -- the facts the fields follow ------------------------------------------------------------

#: claude-agent-sdk 0.2.189, ``types.py``: ``SandboxSettings`` and ``SandboxNetworkConfig``.
OFFICIAL_PY = {
    "enabled",
    "autoAllowBashIfSandboxed",
    "excludedCommands",
    "allowUnsandboxedCommands",
    "network",
    "ignoreViolations",
    "enableWeakerNestedSandbox",
}
OFFICIAL_PY_NETWORK = {
    "allowedDomains",
    "deniedDomains",
    "allowManagedDomainsOnly",
    "allowUnixSockets",
    "allowAllUnixSockets",
    "allowLocalBinding",
    "allowMachLookup",
    "httpProxyPort",
    "socksProxyPort",
}
#: @anthropic-ai/claude-agent-sdk 0.3.332, ``sdk.d.ts``: ``PublishedSandboxSettingsSchema``.
TS_SANDBOX = {
    "enabled",
    "failIfUnavailable",
    "autoAllowBashIfSandboxed",
    "allowUnsandboxedCommands",
    "network",
    "filesystem",
    "credentials",
    "ignoreViolations",
    "enableWeakerNestedSandbox",
    "allowNestedUserNamespaces",
    "enableWeakerNetworkIsolation",
    "allowAppleEvents",
    "excludedCommands",
    "ripgrep",
    "bwrapPath",
    "socatPath",
}
TS_NETWORK = OFFICIAL_PY_NETWORK | {"strictAllowlist", "tlsTerminate"}
TS_FILESYSTEM = {
    "allowWrite",
    "denyWrite",
    "denyRead",
    "allowRead",
    "allowManagedReadPathsOnly",
    "disabled",
}


def test_the_fields_are_the_clis_settings() -> None:
    assert set(WIRE_KEYS[SandboxSettings].values()) == (TS_SANDBOX - MANAGED_ONLY) | {"windows"}
    assert set(WIRE_KEYS[SandboxNetworkConfig].values()) == TS_NETWORK
    assert set(WIRE_KEYS[SandboxFilesystemConfig].values()) == TS_FILESYSTEM
    assert set(WIRE_KEYS[SandboxSettings].values()) >= OFFICIAL_PY
    assert set(WIRE_KEYS[SandboxNetworkConfig].values()) >= OFFICIAL_PY_NETWORK
    assert {"bwrapPath", "socatPath"} == MANAGED_ONLY


# -- generated settings -----------------------------------------------------------------------

#: Text any option may hold (no NUL, no lone surrogate).
texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)
#: Keys no sandbox class knows (a newer CLI's settings).
unknown_keys = texts.map(lambda s: "zzNew" + s)
PORTS = {"http_proxy_port", "socks_proxy_port"}


def _value_of(name: str, tp: Any) -> st.SearchStrategy[Any]:
    """Valid values of the field ``name`` typed ``tp`` (its optional part)."""
    inner = next(a for a in typing.get_args(tp) if a is not type(None))
    if name in PORTS:
        return st.integers(1, 65535)
    if inner is bool:
        return st.booleans()
    if inner == list[str]:
        return st.lists(texts, max_size=3)
    if inner == dict[str, list[str]]:
        return st.dictionaries(texts, st.lists(texts, max_size=3), max_size=3)
    if inner == dict[str, Any]:
        return st.dictionaries(texts, json_values, max_size=3)
    if inner in (SandboxNetworkConfig, SandboxFilesystemConfig):
        return instances(inner)
    raise AssertionError(f"no strategy for {name}: {tp}")


def instances(cls: type[Any]) -> st.SearchStrategy[Any]:
    hints = typing.get_type_hints(cls)
    optional = {
        f.name: _value_of(f.name, hints[f.name]) for f in attrs.fields(cls) if f.name != "extra"
    }
    extra = st.dictionaries(unknown_keys, json_values, max_size=2)
    return st.fixed_dictionaries({"extra": extra}, optional=optional).map(lambda kw: cls(**kw))


def _snake(data: JSON, cls: type[Any]) -> JSON:
    """``data`` (a wire dict of ``cls``) with the known keys spelt as the field names."""
    names = {wire_key: name for name, wire_key in WIRE_KEYS[cls].items()}
    out: JSON = {}
    for key, value in data.items():
        name = names.get(key)
        if name in ("network", "filesystem"):
            part = SandboxNetworkConfig if name == "network" else SandboxFilesystemConfig
            value = _snake(value, part)
        out[name if name is not None else key] = value
    return out


def _quiet(**kwargs: Any) -> cs.Options:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cs.ClaudeSDKWarning)
        return cs.Options(**kwargs)


def _sent(options: cs.Options) -> JSON:
    request, _ = build_initialize(options)
    out: JSON = json.loads(wire.encode(request))["settings"]["sandbox"]
    return out


@settings(max_examples=deep(75), deadline=None)
@given(instances(SandboxSettings))
def test_settings_survive_the_codec_and_the_dict_forms(x: SandboxSettings) -> None:
    data = wire.to_dict(x)
    # camelCase on the wire, every key known or kept from extra
    for cls, part in [(SandboxSettings, data), *[
        (c, data[k]) for c, k in ((SandboxNetworkConfig, "network"),
                                 (SandboxFilesystemConfig, "filesystem")) if k in data
    ]]:  # fmt: skip
        known = set(WIRE_KEYS[cls].values())
        assert all(k in known or k.startswith("zzNew") for k in part)
    back = SandboxSettings.from_dict(data)
    assert back == x
    assert wire.to_dict(back) == data
    assert wire.from_dict(data, SandboxSettings) == x
    assert SandboxSettings.from_dict(_snake(data, SandboxSettings)) == x
    assert wire.to_dict(SandboxSettings.from_dict(_snake(data, SandboxSettings))) == data
    assert pickle.loads(pickle.dumps(x)) == x
    assert _quiet(sandbox=data).sandbox == x


@settings(max_examples=deep(75), deadline=None)
@given(instances(SandboxSettings))
def test_what_reaches_the_cli_is_the_settings_plus_the_sdk_defaults(x: SandboxSettings) -> None:
    options = _quiet(sandbox=x, settings={"model": "m", "sandbox": {"replaced": True}})
    request, _ = build_initialize(options)
    settings_sent = json.loads(wire.encode(request))["settings"]
    sent = settings_sent["sandbox"]
    assert settings_sent["model"] == "m"  # the rest of the settings kept
    assert sent == sandbox_wire(x)
    given_ = wire.to_dict(x)
    if x.enabled is not True:
        assert sent == given_
        return
    for path, default in SANDBOX_DEFAULTS.items():
        where_given: Any = given_
        where_sent: Any = sent
        for key in path[:-1]:
            where_given = where_given.get(key, {}) if isinstance(where_given, dict) else {}
            where_sent = where_sent[key]
        assert where_sent[path[-1]] == where_given.get(path[-1], default)
    # Nothing given is changed, nothing else is added.
    for key, value in given_.items():
        if key == "network":
            assert {k: v for k, v in sent["network"].items() if k in value} == value
        else:
            assert sent[key] == value
    assert set(sent) == set(given_) | {"failIfUnavailable", "allowUnsandboxedCommands", "network"}
    assert set(sent["network"]) == set(given_.get("network", {})) | {"strictAllowlist"}


def test_the_settings_json_never_goes_on_the_command_line() -> None:
    options = cs.Options(
        sandbox={"enabled": True, "network": {"allowedDomains": ["internal.example"]}}
    )
    argv = build_launch_spec(options).argv
    assert "--initialize-fields=settings" in argv
    assert not any("internal.example" in arg for arg in argv)


# -- dict forms and checks ----------------------------------------------------------------------


def test_a_dict_in_the_clis_form_and_the_typed_value_are_the_same() -> None:
    typed = SandboxSettings(
        enabled=True,
        auto_allow_bash_if_sandboxed=True,
        excluded_commands=["docker"],
        network=SandboxNetworkConfig(allowed_domains=["pypi.org"], http_proxy_port=8080),
        filesystem=SandboxFilesystemConfig(allow_write=["/tmp/build"]),
        ignore_violations={"*": ["/etc/hosts"]},
    )
    camel = {
        "enabled": True,
        "autoAllowBashIfSandboxed": True,
        "excludedCommands": ["docker"],
        "network": {"allowedDomains": ["pypi.org"], "httpProxyPort": 8080},
        "filesystem": {"allowWrite": ["/tmp/build"]},
        "ignoreViolations": {"*": ["/etc/hosts"]},
    }
    assert cs.Options(sandbox=camel).sandbox == typed
    assert cs.Options(sandbox=typed).sandbox == typed
    assert wire.to_dict(typed) == camel
    assert SandboxSettings(excluded_commands="docker").excluded_commands == ["docker"]
    assert attrs.evolve(cs.Options(sandbox=camel), sandbox=None).sandbox is None
    assert "SandboxSettings(enabled=True" in repr(cs.Options(sandbox=camel))


def test_unknown_keys_are_kept_sent_and_warned_of() -> None:
    with pytest.warns(cs.ClaudeSDKWarning, match="'enable', 'network.zzNew'"):
        options = cs.Options(sandbox={"enable": True, "network": {"zzNew": [1]}})
    assert options.sandbox is not None
    assert options.sandbox.enabled is None
    assert _sent(options) == {"enable": True, "network": {"zzNew": [1]}}


def _fits(name: str, tp: Any, value: Any) -> bool:
    """Does the JSON ``value`` fit the field ``name`` typed ``tp`` (the oracle of the checks:
    the CLI's schema, written from the types, not from the validators)?"""
    if value is None:
        return True
    inner = next(a for a in typing.get_args(tp) if a is not type(None))
    if name in PORTS:
        return type(value) is int and 1 <= value <= 65535
    if inner is bool:
        return type(value) is bool
    if inner == list[str]:
        return type(value) is str or (type(value) is list and all(type(v) is str for v in value))
    if inner == dict[str, list[str]]:
        return type(value) is dict and all(
            type(v) is str or (type(v) is list and all(type(i) is str for i in v))
            for v in value.values()
        )
    if inner == dict[str, Any]:
        return type(value) is dict
    if inner in (SandboxNetworkConfig, SandboxFilesystemConfig):
        if type(value) is not dict:
            return False
        hints = typing.get_type_hints(inner)
        return all(_fits(n, hints[n], value[k]) for n, k in WIRE_KEYS[inner].items() if k in value)
    raise AssertionError(name)


FIELDS = [
    (cls, field.name)
    for cls in (SandboxSettings, SandboxNetworkConfig, SandboxFilesystemConfig)
    for field in attrs.fields(cls)
    if field.name != "extra"
]


@pytest.mark.parametrize(("cls", "name"), FIELDS, ids=lambda x: getattr(x, "__name__", x))
@settings(max_examples=deep(25), deadline=None)
@given(data=st.data())
def test_a_value_of_the_wrong_type_is_an_options_error(
    cls: type[Any], name: str, data: st.DataObject
) -> None:
    tp = typing.get_type_hints(cls)[name]
    value = data.draw(json_values.filter(lambda v: not _fits(name, tp, v)), label="value")
    key = WIRE_KEYS[cls][name]
    sandbox: JSON = {key: value}
    if cls is SandboxNetworkConfig:
        sandbox = {"network": sandbox}
    elif cls is SandboxFilesystemConfig:
        sandbox = {"filesystem": sandbox}
    with pytest.raises(cs.OptionsError) as info:
        cs.Options(sandbox=sandbox)
    assert info.value.option == "sandbox"
    assert "Options.sandbox" in str(info.value)


@pytest.mark.parametrize(
    ("sandbox", "words"),
    [
        ({"enabled": True, "x": "a\x00b"}, "NUL"),
        ({"network": {"allowedDomains": ["a\x00"]}}, "NUL"),
        ({"credentials": {"files": [{"path": float("nan")}]}}, "JSON cannot hold"),
        ({"ripgrep": {"command": 2**60}}, r"2\*\*53"),
        ({"zzNew": {1: "x"}}, "keys are strings"),
        ({"enabled": True, "bwrapPath": "/usr/bin/bwrap"}, "managed settings"),
        ({"socatPath": "/usr/bin/socat"}, "managed settings"),
        ({"enabled": True, "enabled ": 1, "failIfUnavailable": 1}, "fail_if_unavailable"),
        ({"autoAllowBashIfSandboxed": True, "auto_allow_bash_if_sandboxed": True}, "once"),
        ({"network": "pypi.org"}, "SandboxNetworkConfig or a dict"),
        ({"ignoreViolations": {"*": [1]}}, "ignore_violations"),
        ("enabled", "SandboxSettings or a dict"),
    ],
    ids=repr,
)
def test_what_the_settings_cannot_hold_is_refused(sandbox: Any, words: str) -> None:
    with pytest.raises(cs.OptionsError, match=words) as info:
        _quiet(sandbox=sandbox)
    assert info.value.option == "sandbox"


def test_the_typed_classes_refuse_wrong_values_themselves() -> None:
    with pytest.raises(cs.OptionsError) as info:
        SandboxSettings(enabled="yes")  # type: ignore[arg-type]
    assert info.value.option == "enabled"
    with pytest.raises(cs.OptionsError) as info:
        SandboxNetworkConfig(socks_proxy_port=True)
    assert info.value.option == "socks_proxy_port"
    with pytest.raises(cs.OptionsError) as info:
        SandboxSettings(extra={"enabled": True})
    assert info.value.option == "extra"
    with pytest.raises(cs.OptionsError):
        SandboxFilesystemConfig(allow_write=b"/x")  # type: ignore[arg-type]


def test_a_sandbox_cannot_be_merged_into_a_settings_file() -> None:
    with pytest.raises(cs.OptionsError) as info:
        cs.Options(settings="/etc/claude/settings.json", sandbox=SandboxSettings(enabled=True))
    assert info.value.option == "sandbox"


# -- the warning when the CLI runs without the sandbox -------------------------------------------


@pytest.mark.parametrize(
    ("sandbox", "reported", "warns"),
    [
        ({"enabled": True, "failIfUnavailable": False}, False, True),
        ({"enabled": True}, False, True),  # a CLI that ignores failIfUnavailable: still said
        ({"enabled": True}, True, False),
        ({"enabled": True}, None, False),  # a CLI that does not say (before 2.1.331)
        ({"enabled": True}, "unknown", False),
        ({"enabled": False}, False, False),
        ({"network": {"allowedDomains": ["x"]}}, False, False),
        (None, False, False),
    ],
    ids=repr,
)
def test_the_session_warns_when_the_cli_runs_without_the_sandbox_it_was_asked_for(
    sandbox: JSON | None, reported: object, warns: bool
) -> None:
    warning = sandbox_warning(cs.Options(sandbox=sandbox), reported)
    assert (warning is not None) == warns
    if warning is not None:
        assert "WITHOUT" in warning
        assert "fail_if_unavailable" in warning


# -- the probe of the e2e tests -----------------------------------------------------------------


def test_the_probe_names_a_missing_program(tmp_path: Path) -> None:
    (tmp_path / "socat").symlink_to("/bin/true")
    problem = sandbox_problem(str(tmp_path))
    if not sys.platform.startswith("linux"):
        assert problem is not None
        return
    assert problem is not None
    assert problem.startswith("bwrap not found on PATH")


def test_the_probe_gives_bubblewraps_own_words(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the probe asks bubblewrap, on Linux only")
    said = "bwrap: setting up uid map: Permission denied"
    (tmp_path / "bwrap").write_text(f"#!/bin/sh\necho '{said}' >&2\nexit 1\n")
    (tmp_path / "bwrap").chmod(0o755)
    (tmp_path / "socat").symlink_to("/bin/true")
    problem = sandbox_problem(str(tmp_path))
    assert problem is not None
    assert problem.endswith(f"exited 1: {said}")
    assert "--unshare-user" in problem
    assert "--proc /proc" in problem


def test_the_probe_reports_a_real_kernel_refusal(tmp_path: Path) -> None:
    """In a user namespace whose limit of user namespaces is 0, bubblewrap cannot make its
    own: the kernel's refusal (ENOSPC), in bubblewrap's words."""
    if shutil.which("bwrap") is None or shutil.which("unshare") is None:
        pytest.skip("needs bwrap and unshare")
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent.parent)!r}); "
        "from tests.support.sandbox_probe import sandbox_problem; print(sandbox_problem())"
    )
    script = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" -c "$1"'
    run = subprocess.run(
        ["unshare", "-U", "-r", "sh", "-c", script, sys.executable, code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    if run.returncode != 0:
        pytest.skip(f"cannot limit a user namespace here: {' '.join(run.stderr.split())}")
    problem = run.stdout.strip()
    assert "bubblewrap cannot make the CLI's sandbox here" in problem
    assert "Creating new namespace failed" in problem
