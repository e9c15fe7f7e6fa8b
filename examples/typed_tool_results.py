"""Typed tool results: what a built-in tool produced, as typed values instead of dicts.

The CLI reports each tool's structured result twice: in the ``tool_use_result`` of the user
message that carries the ``tool_result`` block, and in the ``tool_response`` of a
``PostToolUse`` hook. ``UserMessage.typed_output(...)`` and ``PostToolUseInput.typed_output``
give it as ``BashOutput``, ``GlobOutput``, ``EditOutput``, ... (``claude_sdk.tool_outputs``),
or None for a tool the SDK does not know, an error result, or a value that does not fit.

The user message names the tool call, not the tool: the program keeps a map of tool-use ids
to names from the assistant's ``ToolUseBlock`` values and passes it to ``typed_output``.

Here a `FakeCLI` plays the CLI (no CLI, no network): the "model" runs ``Glob``, ``Bash`` and
a ``Read`` that fails, with the results CLI 2.1.330 writes for them.

Run: ``python examples/typed_tool_results.py`` (nothing else is needed).
"""

from __future__ import annotations

import anyio

import claude_sdk as cs
from claude_sdk.testing import FakeCLI, ScriptedCLI, ToolCall
from claude_sdk.tool_outputs import BashOutput, GlobOutput

# ---------------------------------------------------------------------------------------
# The CLI's side: a turn with three tool calls and the results the real CLI reports


GLOB_RESULT = {
    "filenames": ["/repo/src/app.py", "/repo/src/util.py"],
    "durationMs": 4,
    "numFiles": 2,
    "truncated": False,
}
BASH_RESULT = {
    "stdout": "2 passed in 0.01s",
    "stderr": "",
    "interrupted": False,
    "isImage": False,
    "noOutputExpected": False,
}


async def script(cli: ScriptedCLI) -> None:
    await cli.handshake()
    await cli.next_prompt()
    await cli.turn(
        text="Both tests pass; notes.txt does not exist.",
        tools=[
            ToolCall("Glob", {"pattern": "src/*.py"}, output="...", tool_use_result=GLOB_RESULT),
            ToolCall(
                "Bash",
                {"command": "pytest -q", "description": "Run the tests"},
                output="2 passed in 0.01s",
                tool_use_result=BASH_RESULT,
            ),
            ToolCall(
                "Read",
                {"file_path": "/repo/notes.txt"},
                output="File does not exist.",
                is_error=True,
            ),
        ],
    )
    await cli.serve_until_stdin_closes()


# ---------------------------------------------------------------------------------------
# The program


async def after_tool(hook_input: cs.PostToolUseInput, context: cs.HookContext) -> None:
    result = hook_input.typed_output
    if isinstance(result, BashOutput):
        print(f"[hook] Bash printed {result.stdout!r} (interrupted: {result.interrupted})")


async def main() -> None:
    options = cs.Options(
        hooks={"PostToolUse": [cs.HookMatcher(matcher="Bash", hooks=[after_tool])]}
    )
    names: dict[str, str] = {}  # tool-use id -> tool name
    kinds: list[str] = []
    async with cs.query("Run the tests.", options=options, transport=FakeCLI(script)) as messages:
        async for message in messages:
            if isinstance(message, cs.AssistantMessage):
                for block in message.content:
                    if isinstance(block, cs.ToolUseBlock):
                        names[block.id] = block.name
            elif isinstance(message, cs.UserMessage) and message.tool_use_result is not None:
                result = message.typed_output(names)
                kinds.append(type(result).__name__)
                if isinstance(result, GlobOutput):
                    print(f"Glob found {result.num_files} files: {', '.join(result.filenames)}")
                elif isinstance(result, BashOutput):
                    print(f"Bash: {result.stdout}")
                elif result is None:
                    print(f"no typed result: {message.tool_use_result!r}")
            elif isinstance(message, cs.ResultMessage):
                print(f"result: {message.result}")
    assert kinds == ["GlobOutput", "BashOutput", "NoneType"], kinds
    print("all checks passed")


if __name__ == "__main__":
    anyio.run(main)
