"""A multi-turn session: three prompts to one CLI, a model switch and an interrupt.

``cs.open_session`` keeps one CLI process (and its conversation) for the whole block.
Each turn is ``session.send(prompt)`` then ``session.receive_response()``, which yields the
turn's messages up to and including its `ResultMessage`. Between turns the session takes
control requests: here ``set_model``; during a turn, ``interrupt`` stops it (the turn then
ends with an error result, and the session stays usable).

Run: ``python examples/multi_turn_session.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs


async def run_turn(session: cs.Session, prompt: str) -> cs.ResultMessage | None:
    """Send one prompt and print the assistant's text; return the turn's result."""
    print(f"> {prompt}")
    await session.send(prompt)
    result = None
    async for message in session.receive_response():
        if isinstance(message, cs.AssistantMessage) and message.text:
            print(message.text)
        elif isinstance(message, cs.ResultMessage):
            result = message
    return result


async def main() -> None:
    # Partial messages stream the text as it is generated (StreamEvent frames).
    options = cs.Options(include_partial_messages=True)
    async with cs.open_session(options) as session:
        if session.server_info.models:
            print("models:", ", ".join(m.value for m in session.server_info.models))

        await run_turn(session, "Hello! My name is Ada.")
        result = await run_turn(session, "What is my name?")
        if result is not None:
            print(f"cost so far: ${result.total_cost_usd or 0:.4f}")

        changed = await session.set_model("haiku")
        print(f"model is now {changed.model}")

        # Third turn: interrupt as soon as the answer starts streaming.
        print("> Tell me a very long story.")
        await session.send("Tell me a very long story.")
        receipt = None
        async for message in session.receive_response():
            if (
                receipt is None
                and isinstance(message, cs.StreamEvent)
                and message.event.get("type") == "content_block_delta"
            ):
                receipt = await session.interrupt()
            elif isinstance(message, cs.ResultMessage):
                if receipt is not None and message.is_error:
                    print(f"interrupted: the turn ended with {message.subtype!r}")
                else:  # the answer was complete before the interrupt arrived
                    print(f"finished: {message.subtype!r}")
                print(f"total cost: ${message.total_cost_usd or 0:.4f}")


if __name__ == "__main__":
    anyio.run(main)
