"""``python -m claude_sdk``: run a prompt, or an offline demonstration.

* ``python -m claude_sdk demo`` shows a streamed answer, a permission prompt answered by a
  callback, hooks and a tool call, offline and for free: the real Claude Code CLI against a
  local fake Messages API when the CLI is installed, otherwise a scripted fake CLI.
* ``python -m claude_sdk "prompt"`` runs a real prompt with your own CLI login and streams
  the answer; the exit status is 0 for a successful turn and 1 for an error result.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

from . import (
    AssistantMessage,
    ClaudeSDKError,
    CLINotFoundError,
    HookContext,
    HookMatcher,
    Options,
    PermissionAllow,
    PermissionDeny,
    PermissionResult,
    ResultMessage,
    StreamEvent,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    open_session,
    query,
    wire,
)
from .hooks import PostToolUseInput, PreToolUseInput
from .transports.base import Transport
from .transports.discovery import find_cli

DEMO_COMMAND = "echo 'hello from claude_sdk' > demo.txt && cat demo.txt"
DEMO_PROMPT = "Write a greeting to demo.txt and show it to me."


class _Printer:
    """Renders a turn for a terminal: streamed text as it arrives, tools and results."""

    def __init__(self) -> None:
        self.streaming = False
        self.streamed_any = False

    def line(self, text: str) -> None:
        if self.streaming:
            print()
            self.streaming = False
        print(text, flush=True)

    def message(self, message: Any) -> None:
        if isinstance(message, StreamEvent):
            event = message.event
            if event.get("type") == "content_block_delta":
                delta = event.get("delta", {})
                if delta.get("type") == "text_delta":
                    if not self.streaming:
                        print("claude> ", end="")
                    self.streaming = self.streamed_any = True
                    print(delta.get("text", ""), end="", flush=True)
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolUseBlock):
                    self.line(f"[tool call] {block.name} {block.input}")
            text = message.text
            if text and not self.streamed_any:
                self.line(f"claude> {text}")
        elif isinstance(message, UserMessage) and not isinstance(message.content, str):
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    content = block.content if isinstance(block.content, str) else "..."
                    status = "error" if block.is_error else "ok"
                    self.line(f"[tool result, {status}] {content}")
        elif isinstance(message, ResultMessage):
            self.streamed_any = False
            cost = f"${message.total_cost_usd:.4f}" if message.total_cost_usd else "$0"
            self.line(f"[result] {message.subtype}, {message.num_turns} model turn(s), cost {cost}")


async def _permission(
    tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
) -> PermissionResult:
    command = str(tool_input.get("command", ""))
    if "rm -rf" in command:
        print(f"[permission] {tool_name}: {command!r} -> denied", flush=True)
        return PermissionDeny(message="not in the demo")
    print(f"[permission] {tool_name}: {command!r} -> allowed by the callback", flush=True)
    return PermissionAllow()


async def _pre_tool(hook_input: PreToolUseInput, context: HookContext) -> None:
    print(f"[hook] PreToolUse {hook_input.tool_name}", flush=True)


async def _post_tool(hook_input: PostToolUseInput, context: HookContext) -> None:
    print(f"[hook] PostToolUse {hook_input.tool_name} finished", flush=True)


def _demo_options(**kwargs: Any) -> Options:
    return Options(
        include_partial_messages=True,
        can_use_tool=_permission,
        hooks={
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[_pre_tool])],
            "PostToolUse": [HookMatcher(matcher="Bash", hooks=[_post_tool])],
        },
        **kwargs,
    )


async def _run_demo_turn(options: Options, transport: Transport | None) -> int:
    printer = _Printer()
    print(f"you> {DEMO_PROMPT}", flush=True)
    async with open_session(options, transport=transport) as session:
        info = session.server_info
        version = info.claude_code_version if info is not None else "?"
        where = f", pid {session.pid}" if session.pid is not None else " (in memory)"
        printer.line(f"[session] CLI {version}{where}")
        await session.send(DEMO_PROMPT)
        async for message in session.receive_response():
            printer.message(message)
            if isinstance(message, ResultMessage):
                return 1 if message.is_error else 0
    return 1


def _make_dirs(tmp: Path) -> tuple[Path, Path]:
    home, work = tmp / "home", tmp / "work"
    home.mkdir()
    work.mkdir()
    return home, work


def _read_greeting(work: Path) -> str:
    target = work / "demo.txt"
    return target.read_text().strip() if target.exists() else ""


async def _demo_real_cli(cli: str) -> int:
    from .testing import FakeMessagesAPI

    print(f"Running the real Claude Code CLI ({cli}) against a local fake Messages API.")
    print("Nothing leaves this machine and nothing is billed.\n")
    with tempfile.TemporaryDirectory(prefix="claude-sdk-demo-") as tmp:
        home, work = _make_dirs(Path(tmp))
        async with FakeMessagesAPI() as api:
            api.reply(
                text="I'll write the greeting with a shell command.",
                tool_use=("Bash", {"command": DEMO_COMMAND, "description": "Write demo.txt"}),
            )
            api.reply(text="Done: demo.txt now says 'hello from claude_sdk'.", delay=0.01)
            options = _demo_options(
                cli_path=cli, cwd=str(work), env={**api.env(), "HOME": str(home)}
            )
            status = await _run_demo_turn(options, None)
            written = _read_greeting(work)
        print(f"\n[check] demo.txt on disk: {written!r}")
        return status if written == "hello from claude_sdk" else 1


async def _demo_fake_cli(forced: bool) -> int:
    from .testing import FakeCLI, ScriptedCLI, ToolCall

    why = "As asked" if forced else "No Claude Code CLI found"
    print(f"{why}: running the demo against claude_sdk's scripted FakeCLI (no CLI needed).\n")

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(
            text="Done: demo.txt now says 'hello from claude_sdk'.",
            tools=[ToolCall("Bash", {"command": DEMO_COMMAND}, output="hello from claude_sdk")],
        )
        await cli.serve_until_stdin_closes()

    return await _run_demo_turn(_demo_options(), FakeCLI(script))


async def _demo(force_fake: bool) -> int:
    cli = None
    if not force_fake:
        try:
            cli = find_cli()
        except CLINotFoundError:
            cli = None
    if cli is None:
        return await _demo_fake_cli(force_fake)
    return await _demo_real_cli(cli)


async def _prompt(prompt: str, *, model: str | None, as_json: bool, backend: str) -> int:
    options = Options(include_partial_messages=not as_json, model=model, cwd=str(Path.cwd()))
    printer = _Printer()
    status = 1
    async with query(prompt, options=options) as messages:
        async for message in messages:
            if as_json:
                sys.stdout.buffer.write(wire.encode(message) + b"\n")
                sys.stdout.flush()
            else:
                printer.message(message)
            if isinstance(message, ResultMessage):
                status = 1 if message.is_error else 0
                if message.is_error and not as_json:
                    printer.line(f"[error] {message.result or '; '.join(message.errors or [])}")
    return status


def main(argv: list[str] | None = None) -> int:
    """The command line entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m claude_sdk",
        description="Run a prompt with the Claude Code CLI, or `demo` for an offline demo.",
    )
    parser.add_argument("prompt", help='the prompt, or "demo"')
    parser.add_argument("--model", help="the model (alias or id)")
    parser.add_argument("--json", action="store_true", help="print every frame as JSON")
    parser.add_argument("--fake", action="store_true", help="demo: use the scripted FakeCLI")
    parser.add_argument(
        "--backend", choices=("asyncio", "trio"), default="asyncio", help="the event loop"
    )
    args = parser.parse_args(argv)
    try:
        if args.prompt == "demo":
            return anyio.run(_demo, args.fake, backend=args.backend)
        return anyio.run(
            lambda: _prompt(args.prompt, model=args.model, as_json=args.json, backend=args.backend),
            backend=args.backend,
        )
    except ClaudeSDKError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
