"""The tool model's sources match what the real CLI sends (issue 29, item 1).

``schemas/<cli version>/tool_inputs.json`` holds the built-in tools' input schemas exactly as
that CLI sends them to the Messages API (recorded by ``tools/model/capture.py``). This test
asks the CLI under test once (tool search off, so no tool is deferred) and compares: a new
CLI whose tools changed fails here with the difference, and the way on is to record, then
read the diff. A CLI version with no recorded sources is skipped, saying so.
"""

from __future__ import annotations

import importlib
import json
import subprocess
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest

import claude_sdk as cs

from .conftest import E2E

pytestmark = pytest.mark.anyio

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def _version(cli: str) -> str:
    done = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True)
    return done.stdout.split()[0]


def _recorded(version: str) -> dict[str, Any] | None:
    path = SCHEMAS / version / "tool_inputs.json"
    return json.loads(path.read_text()) if path.is_file() else None


async def test_the_cli_sends_the_recorded_tool_schemas(e2e: E2E) -> None:
    version = await anyio.to_thread.run_sync(_version, e2e.cli)
    recorded = await anyio.to_thread.run_sync(_recorded, version)
    if recorded is None:
        pytest.skip(f"no recorded tool schemas for CLI {version} (tools/model/capture.py)")
    e2e.api.reply("ok")
    options = e2e.options(env={"ENABLE_TOOL_SEARCH": "false"})
    reply = await cs.ask("hi", options=options, transport=e2e.transport())
    assert reply.text == "ok"
    tools = e2e.api.main_requests[0].body["tools"]
    sent = sorted(
        (
            {"name": t["name"], "input_schema": t["input_schema"]}
            for t in tools
            if "input_schema" in t and not t["name"].startswith("mcp__")
        ),
        key=lambda t: str(t["name"]),
    )
    assert [t["name"] for t in sent] == [t["name"] for t in recorded["tools"]]
    for now, then in zip(sent, recorded["tools"], strict=True):
        assert now == then, f"{now['name']}: the input schema changed"


def _read(path: str) -> bytes:
    return Path(path).resolve().read_bytes()


def _bundle_keys(version: str) -> list[tuple[str, str]]:
    """(class.field, wire key) of each overlay field whose provenance is this CLI's bundle."""
    tomllib: Any = importlib.import_module("tomllib")  # Python 3.11+, as the e2e sessions
    overlay = tomllib.loads((SCHEMAS / "overlay.toml").read_text())
    found = []
    for module in overlay["modules"]:
        for item in overlay[module]:
            for name, spec in item.get("fields", {}).items():
                if spec.get("bundle") == version:
                    found.append((f"{item['class']}.{name}", spec.get("wire", name)))
    return found


async def test_the_fields_the_overlay_says_the_cli_names_are_in_its_bundle(e2e: E2E) -> None:
    """The overlay keeps fields no schema declares when the CLI's own code names them
    (``bundle = "<version>"``); the CLI under test of that version must name each one."""
    version = await anyio.to_thread.run_sync(_version, e2e.cli)
    keys = _bundle_keys(version)
    if not keys:
        pytest.skip(f"the overlay cites no field of CLI {version}'s bundle")
    data = await anyio.to_thread.run_sync(_read, e2e.cli)
    missing = [
        where
        for where, key in keys
        if f"{key}:".encode() not in data and f'"{key}"'.encode() not in data
    ]
    assert missing == [], f"CLI {version} does not name these keys: {missing}"
