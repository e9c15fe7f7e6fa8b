"""Layers around what the model runs: a policy, the CLI's sandbox, a container.

1. **The policy** (`claude_sdk.policies`) reads each command line before it runs: here
   ``deny_commands("rm -rf")`` refuses ``rm -rf build``. It decides from the text alone, so
   it cannot stop what a program it lets through does once it runs.
2. **The sandbox** (`cs.SandboxSettings`) is the operating system around every Bash command
   that gets through: on Linux, bubblewrap makes the file system read-only outside the
   project and lets no connection out but through the CLI's proxy, which refuses hosts not
   allowed. Turned on by `Options`, it refuses to start when it cannot run, and the model
   cannot ask its way out of it. It does not confine the file tools (Read, Write, Edit),
   which run in the CLI's own process: permission rules and path policies govern those.
3. **A container** (``--container NAME``: `ContainerTransport`) runs the whole CLI, file
   tools and MCP servers included, in a container you set up: it confines what its mounts
   and network confine.

The model is asked to run four commands: ``rm -rf build``, a write to your home directory,
a request to example.com and a write inside the project. The script prints which layer
stopped each, then checks the files.

Run: ``python examples/sandbox_layers.py`` (needs a logged-in Claude Code CLI, and on Linux
``apt-get install bubblewrap socat``). It works in a fresh temporary directory and writes
nothing outside it. ``python examples/sandbox_layers.py --container NAME --workdir DIR``
runs the CLI inside the running docker container NAME (with Claude Code, Python 3 and, for
the sandbox, bubblewrap and socat installed), in DIR.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any

import anyio

import claude_sdk as cs
from claude_sdk.policies import PolicyHook, deny_commands
from claude_sdk.transports import ContainerTransport

POLICY = deny_commands("rm -rf")
#: Where a result shows the sandbox refused something (the OS's error, the CLI's report).
SANDBOX_MARKS = ("Read-only file system", "<sandbox_violations>")


async def policy_layer(hook_input: cs.PreToolUseInput, context: cs.HookContext) -> cs.HookOutput:
    """Layer 1: the policy as a PreToolUse hook, saying what it denies."""
    answer = await PolicyHook(POLICY)(hook_input, context)
    specific = answer.specific
    if isinstance(specific, cs.PreToolUseOutput) and specific.permission_decision == "deny":
        command = hook_input.tool_input.get("command")
        print(f"layer 1, the policy, denied: {command}")
        print(f"    {specific.permission_decision_reason}")
    return answer


def _why(text: str) -> str:
    """The line of a result that says what the sandbox refused."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if "Read-only file system" in line:
            return line
        if line == "<sandbox_violations>" and i + 1 < len(lines):
            return lines[i + 1]
    return lines[-1] if lines else ""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(getattr(block, "text", "")) for block in content or ())


async def run(options: cs.Options, transport: Any, outside: str) -> None:
    prompt = (
        "Run these Bash commands one at a time: `rm -rf build`, "
        f"`echo note > {outside}`, `curl -sS -m 5 https://example.com`, "
        "`echo note > note.txt`. Then say what happened."
    )
    commands: dict[str, str] = {}
    async with cs.open_session(options, transport=transport) as session:
        state = session.server_info.sandbox_enabled  # CLI 2.1.331 and later say
        print(f"sandbox on: {'(this CLI does not say)' if state is None else state}")
        await session.send(prompt)
        async for message in session.receive_response():
            if isinstance(message, cs.AssistantMessage):
                for block in message.content:
                    if isinstance(block, cs.ToolUseBlock):
                        commands[block.id] = str(block.input.get("command", block.name))
            elif isinstance(message, cs.UserMessage) and isinstance(message.message.content, list):
                for block in message.message.content:
                    if not isinstance(block, cs.ToolResultBlock):
                        continue
                    text = _text(block.content)
                    command = commands.get(block.tool_use_id, "?")
                    if any(mark in text for mark in SANDBOX_MARKS):
                        print(f"layer 2, the sandbox, stopped: {command}")
                        print(f"    {_why(text)}")
                    elif not block.is_error:
                        print(f"ran: {command}")
            elif isinstance(message, cs.ResultMessage):
                print(f"\n{message.result}")


async def main(container: str | None, workdir: str) -> int:
    outside = "~/sandbox-layers-outside.txt"  # outside the project
    sandbox = cs.SandboxSettings(
        enabled=True,
        # Bash that will run sandboxed needs no approval; the policy still decides first.
        auto_allow_bash_if_sandboxed=True,
    )
    hooks = {"PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[policy_layer])]}
    transport = None
    if container is not None:
        transport = ContainerTransport("docker", container=container)
    with tempfile.TemporaryDirectory() as local:
        cwd = workdir if container is not None else local
        options = cs.Options(cwd=cwd, tools=["Bash"], hooks=hooks, sandbox=sandbox)
        try:
            await run(options, transport, outside)
        except cs.ResultError as exc:
            if exc.startup_failure_reason != "sandbox_required_unavailable":
                raise
            print(f"the sandbox cannot run here, so the CLI refused to start:\n{exc}")
            return 1
        if container is None:
            home_file = await anyio.Path(outside).expanduser()
            inside = await (anyio.Path(local) / "note.txt").exists()
            print(f"\nnote.txt in the project: {inside}")
            print(f"{outside} outside the project: {await home_file.exists()}")
            await home_file.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--container", help="run the CLI in this docker container")
    parser.add_argument("--workdir", default="/tmp", help="the directory in the container")
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.container, args.workdir))
