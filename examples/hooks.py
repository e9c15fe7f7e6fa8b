"""Hooks: run your code before and after every tool call.

A ``PreToolUse`` hook sees each tool call before it runs and can deny it with a typed,
event-specific output; a ``PostToolUse`` hook sees the call and its result afterwards.
Here ``allowed_tools=["Bash"]`` lets Bash run without asking, and the PreToolUse hook still
vetoes destructive commands: hooks run before the permission rules. A PreToolUse hook that
raises denies the call (the SDK fails closed).

Run: ``python examples/hooks.py`` (needs a logged-in Claude Code CLI). It runs in a fresh
temporary directory, so nothing of yours is touched.
"""

from __future__ import annotations

import re
import tempfile

import anyio

import claude_sdk as cs

DESTRUCTIVE = re.compile(r"\brm\s+-\w*[rf]|\bmkfs\b|\bdd\s+if=|>\s*/dev/sd")


async def deny_destructive(
    hook_input: cs.PreToolUseInput, context: cs.HookContext
) -> cs.HookOutput:
    command = str(hook_input.tool_input.get("command", ""))
    if DESTRUCTIVE.search(command):
        print(f"blocked: {command}")
        return cs.HookOutput(
            specific=cs.PreToolUseOutput(
                permission_decision="deny",
                permission_decision_reason="Destructive commands are blocked by a hook.",
            )
        )
    return cs.HookOutput()  # no opinion: the permission rules decide


async def log_tool_use(hook_input: cs.PostToolUseInput, context: cs.HookContext) -> None:
    command = hook_input.tool_input.get("command", "")
    response = hook_input.tool_response
    output = response.get("stdout", "") if isinstance(response, dict) else response
    print(f"ran {hook_input.tool_name}: {command} -> {str(output).strip()!r}")


async def main() -> None:
    with tempfile.TemporaryDirectory() as workdir:
        options = cs.Options(
            cwd=workdir,
            tools=["Bash"],
            allowed_tools=["Bash"],
            hooks={
                "PreToolUse": [cs.HookMatcher(matcher="Bash", hooks=[deny_destructive])],
                "PostToolUse": [cs.HookMatcher(matcher="Bash", hooks=[log_tool_use])],
            },
        )
        reply = await cs.ask(
            "Run `rm -rf build`, then run `echo hello`, then say what happened.",
            options=options,
        )
    print(reply.text)


if __name__ == "__main__":
    anyio.run(main)
