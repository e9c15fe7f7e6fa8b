"""A raw ``mcp`` server object served in-process (see tools.py for the ``@tool`` way).

A low-level ``mcp`` server (``mcp.server.Server``) with one tool, ``add``, is passed in
``Options(mcp_servers={"calc": server})``. The SDK serves it over the CLI's control channel:
no subprocess, no port. Claude sees the tool as ``mcp__calc__add``; ``allowed_tools`` lets it
run without a permission prompt.

Run: ``python examples/mcp_raw_server.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server import Server, ServerRequestContext

import claude_sdk as cs

ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    tool = types.Tool(name="add", description="Add two numbers", input_schema=ADD_SCHEMA)
    return types.ListToolsResult(tools=[tool])


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    if params.name != "add":
        text = f"unknown tool {params.name}"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=True
        )
    args = params.arguments or {}
    a, b = args["a"], args["b"]
    total = a + b
    print(f"add({a}, {b}) = {total}")
    return types.CallToolResult(content=[types.TextContent(type="text", text=str(total))])


calc = Server("calc", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    options = cs.Options(mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__add"])
    reply = await cs.ask("Use the add tool to add 2 and 3.", options=options)
    print(reply.text)


if __name__ == "__main__":
    anyio.run(main)
