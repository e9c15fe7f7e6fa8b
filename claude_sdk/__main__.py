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
from .session import _collapse_groups
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


class _Spinner:
    """A progress indicator on stderr while the model works (only on a terminal)."""

    FRAMES = "|/-\\"

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.active = False
        self.label = "working"

    async def run(self) -> None:
        if not self.enabled:
            return
        i = 0
        while True:
            await anyio.sleep(0.1)
            if self.active:
                sys.stderr.write(f"\r{self.FRAMES[i % 4]} {self.label}...")
                sys.stderr.flush()
                i += 1

    def pause(self) -> None:
        if self.enabled and self.active:
            sys.stderr.write("\r" + " " * (len(self.label) + 6) + "\r")
            sys.stderr.flush()
        self.active = False


def _options_from_args(args: argparse.Namespace) -> Options:
    kwargs: dict[str, Any] = {
        "include_partial_messages": not args.json,
        "cwd": args.cwd or str(Path.cwd()),
    }
    for name in ("model", "permission_mode", "max_turns", "resume", "system_prompt", "cli_path"):
        value = getattr(args, name)
        if value is not None:
            kwargs[name] = value
    if args.allowed_tools:
        kwargs["allowed_tools"] = args.allowed_tools.split(",")
    if args.disallowed_tools:
        kwargs["disallowed_tools"] = args.disallowed_tools.split(",")
    if args.continue_conversation:
        kwargs["continue_conversation"] = True
    return Options(**kwargs)


async def _prompt(args: argparse.Namespace) -> int:
    options = _options_from_args(args)
    printer = _Printer()
    spinner = _Spinner(enabled=not args.json and sys.stderr.isatty())
    status = 1
    async with anyio.create_task_group() as tg:
        tg.start_soon(spinner.run)
        spinner.active = True
        async with query(args.prompt, options=options) as messages:
            async for message in messages:
                if args.json:
                    sys.stdout.buffer.write(wire.encode(message) + b"\n")
                    sys.stdout.flush()
                    continue
                if isinstance(message, StreamEvent):
                    spinner.pause()
                elif isinstance(message, AssistantMessage):
                    spinner.pause()
                    spinner.label = "working"
                elif isinstance(message, UserMessage):
                    spinner.label = "running tools"
                    spinner.active = True
                printer.message(message)
                if isinstance(message, ResultMessage):
                    spinner.pause()
                    status = 1 if message.is_error else 0
                    if message.is_error:
                        detail = message.result or "; ".join(message.errors or [])
                        printer.line(f"[error] {detail}")
        tg.cancel_scope.cancel()
    return status


def main(argv: list[str] | None = None) -> int:
    """The command line entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m claude_sdk",
        description="Run a prompt with the Claude Code CLI (your own login), streaming the "
        "answer; or `demo` for an offline demonstration. The exit status is 0 for a "
        "successful turn, 1 for an error result, 2 for an SDK error.",
    )
    parser.add_argument("prompt", help='the prompt, or "demo"')
    parser.add_argument("--model", help="the model (alias or id)")
    parser.add_argument("--permission-mode", help="default, acceptEdits, plan, ...")
    parser.add_argument("--allowed-tools", help="comma-separated rules, e.g. Read,Bash(git:*)")
    parser.add_argument("--disallowed-tools", help="comma-separated tool names")
    parser.add_argument("--max-turns", type=int, help="stop after this many model turns")
    parser.add_argument("--system-prompt", help="the system prompt (default: empty)")
    parser.add_argument("--cwd", help="the working directory (default: this one)")
    parser.add_argument("--resume", help="continue the session with this id")
    parser.add_argument(
        "--continue",
        dest="continue_conversation",
        action="store_true",
        help="continue the latest session in the working directory",
    )
    parser.add_argument("--cli-path", help="the Claude Code executable")
    parser.add_argument("--json", action="store_true", help="print every frame as JSON")
    parser.add_argument("--fake", action="store_true", help="demo: use the scripted FakeCLI")
    parser.add_argument(
        "--backend", choices=("asyncio", "trio"), default="asyncio", help="the event loop"
    )
    args = parser.parse_args(argv)
    try:
        with _collapse_groups():
            if args.prompt == "demo":
                return anyio.run(_demo, args.fake, backend=args.backend)
            return anyio.run(_prompt, args, backend=args.backend)
    except ClaudeSDKError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:  # invalid options
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
