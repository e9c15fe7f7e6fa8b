"""Testing your agent code with `FakeCLI`: a scripted, in-memory CLI (no CLI, no network).

The code under test, ``clean_build``, runs a prompt with a permission callback that must
never let ``rm -rf`` through. In the test, a `FakeCLI` plays the CLI's side of the
conversation from a script: it answers ``initialize``, reads the prompt, and plays a turn
in which the model calls two Bash commands. The fake asks the SDK about each call
(``can_use_tool``), just as the real CLI does, so the callback really runs; then the test
checks what came back and what the SDK wrote. Pass the fake as ``transport=``.

Run: ``python examples/testing_with_fake_cli.py`` (nothing else is needed). In a pytest
suite, the body of ``main`` is a test function (``anyio`` runs it on asyncio or Trio).
"""

from __future__ import annotations

from typing import Any

import anyio

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI, ToolCall
from claude_sdk.transports.base import Transport

# ---------------------------------------------------------------------------------------
# The code under test


async def guard(
    tool_name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
) -> cs.PermissionResult:
    if tool_name == "Bash" and "rm -rf" in str(tool_input.get("command", "")):
        return cs.PermissionDeny(message="no recursive deletes")
    return cs.PermissionAllow()


async def clean_build(*, transport: Transport | None = None) -> cs.Reply:
    options = cs.Options(can_use_tool=guard)
    return await cs.ask("Clean the build directory.", options=options, transport=transport)


# ---------------------------------------------------------------------------------------
# The test


async def script(cli: ScriptedCLI) -> None:
    """The CLI's side: what the model "does" in this scenario."""
    await cli.handshake()  # answer initialize like CLI 2.1.330
    prompt = await cli.next_prompt()
    assert prompt.text == "Clean the build directory."
    await cli.turn(
        text="I ran make clean; the recursive delete was refused.",
        tools=[
            ToolCall("Bash", {"command": "rm -rf build"}),
            ToolCall("Bash", {"command": "make clean"}, output="cleaned"),
        ],
    )
    await cli.serve_until_stdin_closes()  # like an idle CLI: exit 0 when stdin closes


async def main() -> None:
    fake = FakeCLI(script)
    reply = await clean_build(transport=fake)

    assert reply.text == "I ran make clean; the recursive delete was refused."
    denials = reply.result.permission_denials or []
    assert [d.tool_input["command"] for d in denials] == ["rm -rf build"]
    print(f"denied: {[d.tool_input['command'] for d in denials]}")

    # Every frame the SDK wrote is recorded, decoded: here its two permission answers.
    answers = [
        (frame.response.response or {}).get("behavior")
        for frame in fake.received
        if isinstance(frame, cs.ControlResponse) and isinstance(frame.response, cs.ControlSuccess)
    ]
    assert answers == ["deny", "allow"], answers
    print(f"the SDK answered: {answers}")
    print("all checks passed")


if __name__ == "__main__":
    anyio.run(main)
