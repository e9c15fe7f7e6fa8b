"""Quick start: one question with ``ask``, then a streamed answer with ``query``.

``cs.ask`` runs one turn and returns the collected `Reply`; ``async with cs.query(...)``
hands out the turn's typed messages as they arrive, ending with the `ResultMessage`.

Run: ``python examples/quickstart.py`` (needs a logged-in Claude Code CLI on ``PATH``, or
``CLAUDE_SDK_CLI_PATH`` naming it).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


async def main() -> None:
    reply = await cs.ask("What is 2 + 2? Answer in one short sentence.")
    print(reply.text)
    print(f"(session {reply.session_id}, cost ${reply.total_cost_usd or 0:.4f})")

    options = cs.Options(system_prompt="You are terse.", max_turns=1)
    async with cs.query("Name three uses of Python.", options=options) as messages:
        async for message in messages:
            if isinstance(message, cs.AssistantMessage):
                for block in message.content:
                    if isinstance(block, cs.TextBlock):
                        print(block.text, end="", flush=True)
            elif isinstance(message, cs.ResultMessage):
                print(f"\n({message.subtype}, {message.num_turns} turn(s))")


if __name__ == "__main__":
    anyio.run(main)
