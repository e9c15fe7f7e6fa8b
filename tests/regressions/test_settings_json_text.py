"""Issue 27, item 8: settings and MCP JSON text is JSON whatever comes before its ``{``.

A file read as text keeps its byte order mark, so ``Options(settings=Path(f).read_text())``
starts with U+FEFF, which ``str.lstrip()`` keeps. One rule (`claude_sdk.options.json_text`)
says what is JSON text: the first character after whitespace, byte order marks and other
format characters is ``{``. JSON text never reaches the command line (it travels in
``initialize``), and its secrets never reach ``repr(Options)``.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import wire
from claude_sdk._protocol.launch import build_argv, build_initialize
from claude_sdk._secrets import TOKEN_PATTERNS
from claude_sdk.options import json_text
from claude_sdk.testing import cassette

from ..support.credentials import Secret, secrets

#: What may come before the ``{``: JSON's whitespace, other whitespace, byte order marks,
#: zero-width characters.
prefixes = st.text(alphabet=" \t\r\n\ufeff\u00a0\u2028\u3000\u200b\u2060\x0b", max_size=6)


def _options(**kwargs: Any) -> cs.Options:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cs.ClaudeSDKWarning)
        return cs.Options(**kwargs)


def _settings_text(prefix: str, env_secret: Secret, other: Secret) -> str:
    document = {
        "env": {"GITHUB_TOKEN": env_secret.text},
        "apiKeyHelper": f"echo {other.text}",
        "permissions": {"allow": ["Read"]},
    }
    return prefix + json.dumps(document)


def _mcp_text(prefix: str, header_secret: Secret, other: Secret) -> str:
    document = {
        "mcpServers": {
            "remote": {
                "type": "http",
                "url": other.text if "://" in other.text else "https://mcp.example.com/x",
                "headers": {"Authorization": header_secret.text},
            },
            "local": {
                "type": "stdio",
                "command": "server",
                "args": [f"--key={other.text}"],
                "env": {"API_KEY": header_secret.text},
            },
        }
    }
    return prefix + json.dumps(document)


def _init(options: cs.Options) -> dict[str, Any]:
    request, _ = build_initialize(options)
    out: dict[str, Any] = json.loads(wire.encode(request))
    return out


@settings(max_examples=150, deadline=None)
@given(prefixes, secrets(), secrets())
def test_settings_text_is_json_off_argv_and_masked(
    prefix: str, env_secret: Secret, other: Secret
) -> None:
    text = _settings_text(prefix, env_secret, other)
    options = _options(settings=text)
    argv = build_argv(options)
    assert not [a for a in argv if a.startswith("--settings")]
    assert "--initialize-fields=settings" in argv
    assert not [a for a in argv if env_secret.core in a or other.core in a]
    sent = _init(options)["settings"]
    assert sent["env"]["GITHUB_TOKEN"] == env_secret.text  # the CLI gets it, in initialize
    shown = repr(options)
    assert env_secret.core not in shown
    assert other.core not in shown
    assert "GITHUB_TOKEN" in shown  # the key is shown, its value is not


@settings(max_examples=150, deadline=None)
@given(prefixes, secrets(), secrets())
def test_mcp_text_is_json_off_argv_and_masked(
    prefix: str, header_secret: Secret, other: Secret
) -> None:
    text = _mcp_text(prefix, header_secret, other)
    options = _options(mcp_servers=text)
    argv = build_argv(options)
    assert not [a for a in argv if a.startswith("--mcp-config")]
    assert not [a for a in argv if header_secret.core in a or other.core in a]
    servers = _init(options)["mcpServers"]
    assert servers["remote"]["headers"]["Authorization"] == header_secret.text
    shown = repr(options)
    assert header_secret.core not in shown
    assert other.core not in shown


@pytest.mark.parametrize(
    "value",
    ["\ufeff{}", " \ufeff {}", "\ufeff\ufeff\n{}", "\u200b{}", "{", "\ufeff{not json"],
)
def test_json_text_starts_at_the_first_brace(value: str) -> None:
    text = json_text(value)
    assert text is not None
    assert text[0] == "{"
    assert value.endswith(text)


@pytest.mark.parametrize("value", ["settings.json", "/etc/claude/settings.json", "./{x}", "[1]"])
def test_a_path_is_not_json_text(value: str) -> None:
    assert json_text(value) is None
    options = _options(settings=value)
    assert f"--settings={value}" in build_argv(options)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("settings", "\ufeff{not json"),
        ("settings", '\ufeff{"a": 1} trailing'),
        ("mcp_servers", "\ufeff{not json"),
        ("mcp_servers", '\ufeff{"mcpServers": []}'),
        ("mcp_servers", '\ufeff{"mcpServers": {"a": 1}}'),
    ],
)
def test_json_text_that_is_not_a_json_object_is_an_options_error(option: str, value: str) -> None:
    with pytest.raises(cs.OptionsError) as info:
        cs.Options(**{option: value})  # type: ignore[arg-type]
    assert info.value.option == option
    assert value not in str(info.value)  # the text may hold secrets: never in the message


def test_a_bom_mcp_config_reaches_the_cli_in_initialize() -> None:
    text = (
        '\ufeff{"mcpServers": {"a": {"type": "http", "url": "https://x", "headers": {"K": "v"}}}}'
    )
    options = _options(mcp_servers=text)
    assert _init(options)["mcpServers"] == {
        "a": {"type": "http", "url": "https://x", "headers": {"K": "v"}}
    }


def test_the_scrubber_is_the_cassettes() -> None:
    """One list of credential shapes: the cassettes scrub with the same patterns."""
    assert cassette.TOKEN_PATTERNS == TOKEN_PATTERNS
