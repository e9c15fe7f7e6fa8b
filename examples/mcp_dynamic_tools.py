"""In-process tools that come and go, and a tool slower than the CLI's per-call timeout.

``unlock`` adds the ``multiply`` tool to its own server while Claude waits for its result:
``add_tool`` tells the CLI (``notifications/tools/list_changed``), the CLI lists the tools
again, and the model can call ``multiply`` in the same turn.

``slow`` takes five seconds, but this example gives the CLI a per-call limit of two
(``MCP_TOOL_TIMEOUT=2000``; by default it is about 27.8 hours): the CLI tells the model the
call timed out and cancels it, the handler is cancelled, and ``on_cancel`` receives a
``ToolCancelled`` that says why and what to change (``@cs.tool(timeout=...)`` or the server's
``timeout`` raise the CLI's limit).

Run: ``python examples/mcp_dynamic_tools.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs
from claude_sdk.tools import ToolCancelled


@cs.tool
async def multiply(a: float, b: float) -> str:
    """Multiply two numbers."""
    print(f"[tool] multiply({a:g}, {b:g}) = {a * b:g}")
    return f"{a * b:g}"


@cs.tool
async def unlock() -> str:
    """Make the multiply tool available."""
    await calc.add_tool(multiply, replace=True)  # returns once the CLI was told
    print("[tool] unlock: multiply is available now")
    return "The multiply tool is available now."


@cs.tool
async def slow(ctx: cs.ToolContext) -> str:
    """Think for five seconds."""
    try:
        await anyio.sleep(5)
    except anyio.get_cancelled_exc_class():
        print("[tool] slow was cancelled")
        raise
    return "Done thinking."


def report(cancelled: ToolCancelled) -> None:
    print(f"[cancelled] {cancelled}")


calc = cs.create_sdk_mcp_server("calc", tools=[unlock, slow], on_cancel=report)


async def ask(session: cs.Session, prompt: str) -> None:
    await session.send(prompt)
    async for message in session.receive_response():
        if isinstance(message, cs.ResultMessage):
            print(message.result)


async def main() -> None:
    options = cs.Options(
        mcp_servers={"calc": calc},
        allowed_tools=["mcp__calc__unlock", "mcp__calc__multiply", "mcp__calc__slow"],
        env={"MCP_TOOL_TIMEOUT": "2000"},  # a short limit, to show what happens past it
    )
    async with cs.open_session(options) as session:
        await ask(session, "Unlock the multiply tool, then use it to multiply 6 by 7.")
        await ask(session, "Run the slow tool once and tell me what happened.")


if __name__ == "__main__":
    anyio.run(main)
