"""High volume: a flood of messages, and permission callbacks answered while nobody reads.

Two things a busy agent host needs from its SDK, shown with `FakeCLI` (no CLI, no network):

1. **Throughput.** The CLI writes 20,000 assistant frames in one turn; the loop below reads
   them with plain ``async for``. The session's reader only splits lines and sets them
   aside; each message is decoded when the loop takes it, so a backlog costs bytes, not
   objects, and a consumer that stops early never pays for the rest.
2. **The reader never waits for the consumer.** Mid-flood, the CLI asks ``can_use_tool``
   ten times. They are answered at once, while 20,000 messages wait unread: permission
   callbacks, hooks and interrupts do not queue behind your message loop.

Run: ``python examples/high_volume.py`` (nothing else is needed). For figures measured against
the official SDK and a bare reader, see ``benchmarks/RESULTS.md`` (``nox -s bench``).
"""

from __future__ import annotations

import time
from typing import Any

import anyio

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI

FRAMES = 20_000
QUESTIONS = 10


async def script(cli: ScriptedCLI) -> None:
    """The CLI's side: a flood of text, then questions about tools, then the result."""
    await cli.handshake()
    await cli.next_prompt()
    for i in range(FRAMES):
        await cli.assistant(f"line {i}: " + "lorem ipsum " * 15)
    for i in range(QUESTIONS):
        decision = await cli.can_use_tool("Bash", {"command": f"echo {i}"})
        assert isinstance(decision, cs.PermissionAllow)
    await cli.result("done")
    await cli.serve_until_stdin_closes()


async def main() -> None:
    answered_at: list[int] = []  # how many messages the loop had read at each answer
    all_answered = anyio.Event()
    seen = 0

    async def allow(
        tool_name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
    ) -> cs.PermissionResult:
        answered_at.append(seen)
        if len(answered_at) == QUESTIONS:
            all_answered.set()
        return cs.PermissionAllow()

    options = cs.Options(can_use_tool=allow)
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        await session.send("Write a lot.")
        # Let the whole turn arrive before reading a single message.
        with anyio.fail_after(60):
            await all_answered.wait()
        start = time.perf_counter()
        characters = 0
        async for message in session.receive_response():
            seen += 1
            if isinstance(message, cs.AssistantMessage):
                characters += len(message.text)
        elapsed = time.perf_counter() - start

    print(f"answered {len(answered_at)} permission requests with {answered_at[-1]} messages read")
    print(f"then read {seen} messages ({characters:,} characters) in {elapsed:.2f} s")
    print(f"{seen / elapsed:,.0f} messages/s, decoded as they were taken")


if __name__ == "__main__":
    anyio.run(main)
