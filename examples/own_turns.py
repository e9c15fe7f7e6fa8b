"""Each prompt gets its own answer, even after the CLI runs a turn of its own.

A background command (Bash with ``run_in_background``) ends after the turn that started it;
the CLI then runs a turn of its own to tell the model (a task notification), with a
``result`` of its own. ``receive_response()`` after the next ``send`` still ends at the
answer to *that* prompt: the CLI's own turn passes through on the way, marked
``result.own_turn`` (``origin`` says why it ran).

Run: ``python examples/own_turns.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

from typing import Any

import anyio

import claude_sdk as cs


async def allow_bash(name: str, tool_input: dict[str, Any], context: Any) -> cs.PermissionResult:
    return cs.PermissionAllow() if name == "Bash" else cs.PermissionDeny(message="not here")


async def main() -> None:
    options = cs.Options(can_use_tool=allow_bash)
    async with cs.open_session(options) as session:
        await session.send(
            "Run `sleep 2; echo counted` in the background (run_in_background), "
            "then tell me you started it."
        )
        async for message in session.receive_response():
            if isinstance(message, cs.ResultMessage):
                print(f"first: {message.text}")
        # Wait for the command to end: the CLI says so (a task notification), then runs a
        # turn of its own about it, which the next receive_response() passes through.
        with anyio.fail_after(60):
            async for message in session.receive_messages():
                if isinstance(message, cs.SystemMessage) and message.subtype == (
                    "task_notification"
                ):
                    break
        prompt = await session.send("What is the capital of France? One word.")
        async for message in session.receive_response():
            if isinstance(message, cs.ResultMessage):
                kind = message.origin.get("kind") if isinstance(message.origin, dict) else None
                if message.own_turn:
                    print(f"the CLI's own turn ({kind}): {message.text}")
                else:
                    print(f"answer to my prompt: {message.text}")
                    print(f"it answers the prompt I sent: {prompt in message.settles}")


if __name__ == "__main__":
    anyio.run(main)
