"""Record the sources of the tool model for one CLI version (issue 29, item 1).

    python tools/model/capture.py --cli PATH [--ts-sdk DIR] [--out schemas]
    python tools/model/capture.py --ts-sdk DIR --ts-only --version X.Y.Z [--out schemas]

Writes ``schemas/<cli version>/tool_inputs.json``: the built-in tools' input schemas exactly
as the CLI sends them to the Messages API (the ``tools`` of its first request to a fake API
on 127.0.0.1: name and ``input_schema``, sorted by name; descriptions are the CLI's prose and
are left out). With ``--ts-sdk`` (the unpacked ``@anthropic-ai/claude-agent-sdk`` package),
also ``schemas/<cli version>/sdk_tools.json``: the TypeScript SDK's ``sdk-tools.d.ts`` read
back into JSON Schema (``tools/model/dts.py``), ``{"package": "<name>@<version>",
"definitions": {...}}``. ``--ts-only`` writes only that file, for the CLI version given by
``--version`` (the one the package ships with), and runs no CLI.

Run it offline, in a loopback-only namespace (``tests/support/netns_run.sh``). Not shipped in
the wheel. A new CLI version: record, regenerate, read the diff.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

import claude_sdk as cs
from claude_sdk.testing import FakeMessagesAPI

if not __package__:  # python tools/model/capture.py: the repository's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools.model.dts import parse_dts

OFFLINE = {
    # Every tool's schema in the first request: none deferred behind ToolSearch.
    "ENABLE_TOOL_SEARCH": "false",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
}


async def tool_inputs(cli: str) -> list[dict[str, Any]]:
    """The built-in tools of the CLI's first main request: name and input schema."""
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        async with FakeMessagesAPI() as api:
            api.reply("ok")
            options = cs.Options(cli_path=cli, cwd=cwd, env={**api.env(), **OFFLINE, "HOME": home})
            await cs.ask("hi", options=options)
            [request] = api.main_requests[:1]
            tools = request.body.get("tools") if isinstance(request.body, dict) else None
    if not isinstance(tools, list):
        raise SystemExit("the CLI sent no tools")
    found = [
        {"name": t["name"], "input_schema": t["input_schema"]}
        for t in tools
        if isinstance(t, dict) and "input_schema" in t and not t["name"].startswith("mcp__")
    ]
    return sorted(found, key=lambda t: str(t["name"]))


def sdk_tools(package_dir: Path) -> dict[str, Any]:
    """``sdk_tools.json`` of an unpacked TypeScript SDK package: its name and version and
    the JSON Schema of every type of its ``sdk-tools.d.ts``."""
    package = json.loads((package_dir / "package.json").read_text())
    schema = parse_dts((package_dir / "sdk-tools.d.ts").read_text())
    return {"package": f"{package['name']}@{package['version']}", **schema}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli")
    parser.add_argument("--ts-sdk", type=Path)
    parser.add_argument("--ts-only", action="store_true", help="write only sdk_tools.json")
    parser.add_argument("--version", help="the CLI version (with --ts-only)")
    parser.add_argument("--out", type=Path, default=Path("schemas"))
    args = parser.parse_args()
    cli: str | None = args.cli
    if args.ts_only:
        if args.ts_sdk is None or args.version is None or cli is not None:
            parser.error("--ts-only needs --ts-sdk and --version, and no --cli")
        version = args.version
    elif cli is None or args.version is not None:
        parser.error("--cli is required (and --version only goes with --ts-only)")
    else:
        version = subprocess.run(
            [cli, "--version"], capture_output=True, text=True, check=True, timeout=60
        ).stdout.split()[0]
    target = args.out / version
    target.mkdir(parents=True, exist_ok=True)
    if cli is not None:
        inputs = anyio.run(tool_inputs, cli)
        _write(target / "tool_inputs.json", {"cli": version, "tools": inputs})
        print(f"{target / 'tool_inputs.json'}: {len(inputs)} tools", file=sys.stderr)
    if args.ts_sdk is not None:
        facts = sdk_tools(args.ts_sdk)
        _write(target / "sdk_tools.json", facts)
        count = len(facts["definitions"])
        print(f"{target / 'sdk_tools.json'}: {count} definitions", file=sys.stderr)


def _write(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1, sort_keys=False, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
