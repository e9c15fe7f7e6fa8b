"""The wheel as a user gets it: clean virtual environments, no extras, then the ``mcp`` extra.

Run by ``nox -s package`` (which builds the wheel and makes the two environments, with the
network, then runs this inside the loopback-only namespace)::

    python tests/support/check_wheel.py --bare VENV --mcp VENV --cli PATH

In ``--bare`` (the wheel, no extras): ``mcp`` is not installed; a FakeCLI turn works; a turn
of the real CLI against a FakeMessagesAPI (served from this process) works; an in-process
tool fails with an error that names the extra. In ``--mcp`` (the wheel with ``[mcp]``): the
real CLI calls an in-process ``@tool`` and its result reaches the API. Exit status 1 on the
first failed check, with what was seen.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import anyio

from claude_sdk.testing import FakeMessagesAPI

BARE = r"""
import importlib.metadata, importlib.util, json, os, sys
import anyio
import claude_sdk as cs
from claude_sdk.testing import FakeCLI

out = {}
out["mcp_installed"] = importlib.util.find_spec("mcp") is not None
dists = importlib.metadata.distributions()
out["distributions"] = sorted(d.metadata["Name"].lower() for d in dists)
out["claude_sdk_file"] = cs.__file__

async def main():
    reply = await cs.ask("hi", transport=FakeCLI(replies=["fake says hi"]))
    out["fake_turn"] = reply.text
    env = json.loads(os.environ["CHECK_CLI_ENV"])
    options = cs.Options(cli_path=os.environ["CHECK_CLI"], env=env, cwd=os.environ["CHECK_CWD"])
    reply = await cs.ask("Say hi", options=options)
    out["real_turn"] = reply.text
    try:
        cs.Options(mcp_servers={"calc": cs.create_sdk_mcp_server("calc", tools=[])})
    except (ImportError, cs.OptionsError) as exc:
        out["tool_error"] = f"{type(exc).__name__}: {exc}"
    else:
        out["tool_error"] = None

anyio.run(main)
print(json.dumps(out))
"""

WITH_MCP = r"""
import json, os
import anyio
import claude_sdk as cs

@cs.tool(description="Add two numbers")
async def add(a: int, b: int) -> str:
    return str(a + b)

async def main():
    env = json.loads(os.environ["CHECK_CLI_ENV"])
    options = cs.Options(
        cli_path=os.environ["CHECK_CLI"],
        env=env,
        cwd=os.environ["CHECK_CWD"],
        mcp_servers={"calc": cs.create_sdk_mcp_server("calc", tools=[add])},
        allowed_tools=["mcp__calc__add"],
    )
    reply = await cs.ask("What is 2 + 3? Use the calc tool.", options=options)
    print(json.dumps({"real_turn": reply.text}))

anyio.run(main)
"""


LOWEST = r"""
import importlib.metadata, importlib.util, json
import anyio
import claude_sdk as cs
from claude_sdk.policies import deny_commands
from claude_sdk.testing import FakeCLI

@cs.tool(description="Add two numbers")
async def add(a: int, b: int) -> str:
    return str(a + b)

async def main():
    reply = await cs.ask("hi", transport=FakeCLI(replies=["lowest says hi"]))
    decision = deny_commands("rm -rf").decide("Bash", {"command": "sudo rm -rf /"})
    if importlib.util.find_spec("mcp") is not None:
        cs.Options(mcp_servers={"calc": cs.create_sdk_mcp_server("calc", tools=[add])})
    names = [d.metadata["Name"].lower() for d in importlib.metadata.distributions()]
    versions = {n: importlib.metadata.version(n) for n in names if n in
                ("anyio", "attrs", "cattrs", "orjson", "tree-sitter", "tree-sitter-bash", "mcp",
                 "trio", "h11", "opentelemetry-api", "typing-extensions")}
    print(json.dumps({"turn": reply.text, "denied": decision.kind == "deny",
                      "versions": versions}))

anyio.run(main)
anyio.run(main, backend="trio")
"""


class CheckFailedError(Exception):
    pass


def _check(condition: bool, what: str, seen: object) -> None:
    if not condition:
        raise CheckFailedError(f"{what}; seen: {seen!r}")
    print(f"ok: {what}")


async def _run(
    venv: Path, code: str, api: FakeMessagesAPI, cli: str, cwd: Path
) -> dict[str, object]:
    env = {
        "CHECK_CLI": cli,
        "CHECK_CLI_ENV": json.dumps(api.env()),
        "CHECK_CWD": str(cwd),
        "HOME": str(cwd),
        "PATH": "/usr/bin:/bin",
    }
    done = await anyio.run_process(
        [str(venv / "bin" / "python"), "-c", code], env=env, check=False, cwd=str(cwd)
    )
    if done.returncode != 0:
        raise CheckFailedError(
            f"{venv}: exit {done.returncode}\n{done.stderr.decode(errors='replace')}"
        )
    result: dict[str, object] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return result


async def check(bare: Path, with_mcp: Path, lowest: list[Path], cli: str, scratch: Path) -> None:
    async with FakeMessagesAPI() as api:
        api.reply(text="real CLI says hi")
        seen = await _run(bare, BARE, api, cli, scratch)
    names = seen["distributions"]
    assert isinstance(names, list)
    print(f"bare install: {len(names)} distributions: {', '.join(names)}")
    _check(seen["mcp_installed"] is False, "no extras: mcp is not installed", names)
    _check("mcp" not in names and "pydantic" not in names, "no mcp, no pydantic", names)
    _check(str(bare) in str(seen["claude_sdk_file"]), "claude_sdk is the wheel's", seen)
    _check(seen["fake_turn"] == "fake says hi", "a FakeCLI turn", seen["fake_turn"])
    _check(seen["real_turn"] == "real CLI says hi", "a real-CLI turn, offline", seen)
    error = str(seen["tool_error"])
    _check("claude-sdk-py[mcp]" in error, "an in-process tool names the extra", error)

    async with FakeMessagesAPI() as api:
        api.reply(tool_use=("mcp__calc__add", {"a": 2, "b": 3}))
        api.reply(text="It is 5.")
        seen = await _run(with_mcp, WITH_MCP, api, cli, scratch)
        results = [r.text for r in api.main_requests[1].tool_results]
    # Checked outside the API's task group, so that a failure is not an ExceptionGroup.
    _check(seen["real_turn"] == "It is 5.", "with [mcp]: the turn ends", seen)
    _check(
        results == ["5"],
        "with [mcp]: the in-process tool ran, its result reached the API",
        results,
    )

    for venv in lowest:
        async with FakeMessagesAPI() as api:
            seen = await _run(venv, LOWEST, api, cli, scratch)
        print(f"lowest declared versions ({venv.name}): {seen['versions']}")
        _check(
            seen["turn"] == "lowest says hi", "lowest bounds: a FakeCLI turn (asyncio, trio)", seen
        )
        _check(seen["denied"] is True, "lowest bounds: a command policy decides", seen)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bare", type=Path, required=True)
    parser.add_argument("--mcp", type=Path, required=True)
    parser.add_argument("--lowest", type=Path, action="append", default=[])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--scratch", type=Path, required=True)
    args = parser.parse_args()
    try:
        anyio.run(check, args.bare, args.mcp, args.lowest, args.cli, args.scratch)
    except CheckFailedError as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    print("the wheel works as installed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
