"""Permission callback: decide every tool call the CLI asks about, in your own code.

With ``Options(can_use_tool=...)`` the CLI asks the SDK before running a tool that needs
permission. The callback gets the tool's name and input and answers `PermissionAllow`
(optionally with an edited input) or `PermissionDeny` (its message is what the model sees).
Here Bash commands containing ``rm -rf`` are refused and everything else is allowed. A
callback that raises denies the call (the SDK fails closed).

Run: ``python examples/permissions.py`` (needs a logged-in Claude Code CLI). It runs in a
fresh temporary directory, so nothing of yours is touched.
"""

from __future__ import annotations

import tempfile
from typing import Any

import anyio

import claude_sdk as cs


async def can_use_tool(
    tool_name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
) -> cs.PermissionResult:
    command = str(tool_input.get("command", ""))
    if tool_name == "Bash" and "rm -rf" in command:
        print(f"deny {tool_name}: {command}")
        return cs.PermissionDeny(message="Recursive deletes are not allowed here.")
    print(f"allow {tool_name}: {command or tool_input}")
    return cs.PermissionAllow()


async def main() -> None:
    with tempfile.TemporaryDirectory() as workdir:
        options = cs.Options(cwd=workdir, can_use_tool=can_use_tool, tools=["Bash"])
        reply = await cs.ask(
            "Run `rm -rf build`, then run `touch hello.txt`, then say what happened.",
            options=options,
        )
        print(f"hello.txt created: {await anyio.Path(workdir, 'hello.txt').exists()}")
    print(reply.text)
    for denial in reply.result.permission_denials or []:
        print(f"denied: {denial.tool_name} {denial.tool_input}")


if __name__ == "__main__":
    anyio.run(main)
