"""A first tool, as the Tools guide writes it: no permission option needed.

``@cs.tool`` over a typed function, ``create_sdk_mcp_server``, ``Options(mcp_servers=...)``:
the tools of in-process servers are allowed by default (``allow_in_process_tools``), so the
model's call runs the function. The official SDK's form ``@cs.tool("name", "description",
{"arg": type})`` works too. The reply streams with ``cs.text_deltas`` (partial messages on),
and ``reply.permission_denials`` would list any tool the CLI refused without asking.

Run: ``python examples/first_tool.py`` (needs a logged-in Claude Code CLI, or
``ANTHROPIC_API_KEY``).
"""

from __future__ import annotations

from typing import Any

import anyio

import claude_sdk as cs


@cs.tool
async def get_temperature(city: str) -> str:
    """The temperature in a city, in degrees Celsius."""
    print(f"[tool] get_temperature({city!r})")
    return f"21 degrees in {city}"


@cs.tool("get_humidity", "The relative humidity in a city", {"city": str})
async def get_humidity(args: dict[str, Any]) -> dict[str, Any]:
    print(f"[tool] get_humidity({args['city']!r})")
    return {"content": [{"type": "text", "text": f"40% in {args['city']}"}]}


weather = cs.create_sdk_mcp_server("weather", tools=[get_temperature, get_humidity])


async def main() -> None:
    options = cs.Options(mcp_servers={"weather": weather}, include_partial_messages=True)
    async with cs.open_session(options) as session:
        await session.send("What is the weather like in Paris?")
        async for piece in cs.text_deltas(session.receive_response()):
            print(piece, end="", flush=True)
        print()
    reply = await cs.ask("And the humidity in Paris?", options=options)
    print(reply.text)
    for denial in reply.permission_denials:  # none here: the tools are allowed
        print("refused:", denial.explanation)


if __name__ == "__main__":
    anyio.run(main)
