"""In-process tools with ``@cs.tool``: typed Python functions Claude can call.

``@cs.tool`` derives each tool's JSON Schema from the type hints (here a pydantic model, an
attrs class and a ``Literal``; dataclasses and TypedDicts work too), checks the model's
arguments before the function runs (arguments that do not fit reach the model as an error
result naming each bad field), and turns the return value into the MCP result (an attrs
instance becomes structured content). An exception reaches the model as an error result.
``create_sdk_mcp_server`` bundles the tools; the SDK serves them inside this process (``mcp``
is imported only then; pydantic comes with it). Claude sees ``mcp__calc__add``.

Run: ``python examples/in_process_tools.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

from typing import Literal

import anyio
import attrs
from pydantic import BaseModel, Field

import claude_sdk as cs


class Pair(BaseModel):
    """Two numbers."""

    a: float = Field(description="the first number")
    b: float = Field(description="the second number")


@attrs.frozen
class Total:
    value: float
    operation: str


@cs.tool(description="Add or multiply two numbers")
async def add(pair: Pair, operation: Literal["add", "multiply"] = "add") -> Total:
    value = pair.a + pair.b if operation == "add" else pair.a * pair.b
    print(f"[tool] {operation}({pair.a}, {pair.b}) = {value}")
    return Total(value=value, operation=operation)


calc = cs.create_sdk_mcp_server("calc", tools=[add])


async def main() -> None:
    options = cs.Options(mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__add"])
    reply = await cs.ask("Use the add tool to add 2 and 3.", options=options)
    print(reply.text)


if __name__ == "__main__":
    anyio.run(main)
