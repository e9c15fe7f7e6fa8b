"""Record the sources of the tool model for one CLI version (issue 29, item 1).

    python tools/model/capture.py --cli PATH [--ts-sdk DIR] [--out schemas]

Writes ``schemas/<cli version>/tool_inputs.json``: the built-in tools' input schemas exactly
as the CLI sends them to the Messages API (the ``tools`` of its first request to a fake API
on 127.0.0.1: name and ``input_schema``, sorted by name; descriptions are the CLI's prose and
are left out). With ``--ts-sdk`` (the unpacked ``@anthropic-ai/claude-agent-sdk`` package),
also ``schemas/<cli version>/sdk_tools.json``: the names of the TypeScript SDK's
``sdk-tools.d.ts`` input and output types and, for each interface, its fields (name,
optional or not, the TypeScript type text): facts about the types, not the file.

Run it offline, in a loopback-only namespace (``tests/support/netns_run.sh``). Not shipped in
the wheel. A new CLI version: record, regenerate, read the diff.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

import claude_sdk as cs
from claude_sdk.testing import FakeMessagesAPI

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


_INTERFACE = re.compile(r"^export interface (\w+) \{$")
_TYPE = re.compile(r"^export type (\w+) =")
_FIELD = re.compile(r"^  (?:readonly )?(\"[^\"]+\"|[A-Za-z_$][\w$]*)(\?)?: (.*?);?$")


def sdk_tools(text: str) -> dict[str, Any]:
    """The type and interface names of ``sdk-tools.d.ts`` and each interface's top-level
    fields (nested object types are kept as their text)."""
    interfaces: dict[str, list[dict[str, Any]]] = {}
    types: list[str] = []
    current: str | None = None
    depth = 0
    for line in text.splitlines():
        if current is None:
            if (m := _INTERFACE.match(line)) is not None:
                current, depth = m.group(1), 1
                interfaces[current] = []
            elif (m := _TYPE.match(line)) is not None:
                types.append(m.group(1))
            continue
        if depth == 1 and (m := _FIELD.match(line)) is not None:
            interfaces[current].append(
                {"name": m.group(1).strip('"'), "optional": bool(m.group(2)), "type": m.group(3)}
            )
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            current = None
    return {"types": sorted(types), "interfaces": dict(sorted(interfaces.items()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--ts-sdk", type=Path)
    parser.add_argument("--out", type=Path, default=Path("schemas"))
    args = parser.parse_args()
    version = subprocess.run(
        [args.cli, "--version"], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()[0]
    target = args.out / version
    target.mkdir(parents=True, exist_ok=True)
    inputs = anyio.run(tool_inputs, args.cli)
    _write(target / "tool_inputs.json", {"cli": version, "tools": inputs})
    print(f"{target / 'tool_inputs.json'}: {len(inputs)} tools", file=sys.stderr)
    if args.ts_sdk is not None:
        package = json.loads((args.ts_sdk / "package.json").read_text())
        facts = sdk_tools((args.ts_sdk / "sdk-tools.d.ts").read_text())
        _write(
            target / "sdk_tools.json",
            {"package": f"{package['name']}@{package['version']}", **facts},
        )
        count = len(facts["interfaces"])
        print(f"{target / 'sdk_tools.json'}: {count} interfaces", file=sys.stderr)


def _write(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1, sort_keys=False, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
