"""The SDK on Trio: the same code as on asyncio, started with ``backend="trio"``.

Everything in ``claude_sdk`` is written against AnyIO, so a program picks its event loop
when it starts: ``anyio.run(main)`` for asyncio, ``anyio.run(main, backend="trio")`` for
Trio (``pip install trio``). Nothing else changes; Trio's own primitives mix freely with
the SDK's (here a ``trio.move_on_after`` bound around a session).

Run: ``python examples/trio_backend.py`` (needs a logged-in Claude Code CLI and Trio).
"""

from __future__ import annotations

import anyio
import trio

import claude_sdk as cs


async def main() -> None:
    trio.lowlevel.current_trio_token()  # raises RuntimeError unless Trio runs this
    print(f"running on Trio {trio.__version__}")
    reply = await cs.ask("Say hello in five words or fewer.")
    print(reply.text)

    with trio.move_on_after(120):
        async with cs.open_session() as session:
            await session.send("Which Python event loop libraries do you know? One line.")
            async for message in session.receive_response():
                if isinstance(message, cs.AssistantMessage) and message.text:
                    print(message.text)
                elif isinstance(message, cs.ResultMessage):
                    print(f"({message.subtype}, cost ${message.total_cost_usd or 0:.4f})")


if __name__ == "__main__":
    anyio.run(main, backend="trio")
