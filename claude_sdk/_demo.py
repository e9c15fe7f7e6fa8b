"""The code of ``python -m claude_sdk demo``: one turn of an agent session, offline and free.

Read it next to the demo's output. One session (`open_session`), one prompt, and:

* a permission callback (``can_use_tool``) that decides whether a Bash command may run;
* two hooks, called before and after every Bash call;
* the turn's messages as they stream (``session.receive_response()``).

Who plays the other side:

* the real Claude Code CLI, when one is installed: it runs the Bash command for real, in a
  temporary directory, while a local fake Messages API (`claude_sdk.testing.FakeMessagesAPI`)
  plays the model, so nothing leaves the machine and nothing is billed;
* otherwise (or with ``--fake``) the scripted `claude_sdk.testing.FakeCLI`: the session, the
  callback and the hooks are real code running here, the CLI and its tools are simulated, so
  no command runs and no file is written.

Output goes through the command line's `Console` (``claude_sdk/_cli_progress.py``); in your
own code, ``print`` does the same job.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import (
    CLINotFoundError,
    HookContext,
    HookMatcher,
    Options,
    PermissionAllow,
    PermissionDeny,
    PermissionResult,
    ResultMessage,
    ToolPermissionContext,
    open_session,
)
from ._cli_progress import Console
from ._version import install_hint
from .hooks import PostToolUseInput, PreToolUseInput
from .transports.base import Transport
from .transports.discovery import find_cli

__all__ = ["run_demo"]

GREETING = "hello from claude_sdk"
#: With the real CLI: the command really runs, in a temporary working directory.
REAL_PROMPT = "Write a greeting to demo.txt and show it to me."
REAL_COMMAND = f"echo '{GREETING}' > demo.txt && cat demo.txt"
#: With the FakeCLI nothing runs, so the scripted command claims no file.
FAKE_PROMPT = "Say hello with a shell command."
FAKE_COMMAND = f"echo '{GREETING}'"


def demo_options(ui: Console, **kwargs: Any) -> Options:
    """The session's options: a permission callback and a hook before and after Bash."""

    async def can_use_tool(
        tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        # The CLI asks before each tool call that its own rules do not settle.
        command = str(tool_input.get("command", ""))
        if "rm -rf" in command:
            ui.say(f"[permission] {tool_name}: {command!r} -> denied")
            return PermissionDeny(message="not in the demo")
        ui.say(f"[permission] {tool_name}: {command!r} -> allowed by the callback")
        return PermissionAllow()

    async def before_bash(hook_input: PreToolUseInput, context: HookContext) -> None:
        ui.say(f"[hook] PreToolUse {hook_input.tool_name}")

    async def after_bash(hook_input: PostToolUseInput, context: HookContext) -> None:
        ui.say(f"[hook] PostToolUse {hook_input.tool_name} finished")

    return Options(
        include_partial_messages=not ui.json,  # stream the text as it is written
        can_use_tool=can_use_tool,
        hooks={
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[before_bash])],
            "PostToolUse": [HookMatcher(matcher="Bash", hooks=[after_bash])],
        },
        **kwargs,
    )


async def run_turn(
    ui: Console, prompt: str, options: Options, transport: Transport | None = None
) -> int:
    """Send one prompt and show the turn; 0 for a successful result, else 1."""
    ui.say(f"you> {prompt}")
    async with open_session(options, transport=transport) as session:
        version = session.server_info.claude_code_version or "?"
        where = f", pid {session.pid}" if session.pid is not None else " (in memory)"
        ui.say(f"[session] CLI {version}{where}")
        await session.send(prompt)
        async for message in session.receive_response():
            ui.show(message)
            ui.check()  # the output's reader went away: stop now
            if isinstance(message, ResultMessage):
                return 1 if message.is_error else 0
    return 1


def _make_dirs(tmp: Path) -> tuple[Path, Path]:
    """A fresh home and working directory for the CLI."""
    home, work = tmp / "home", tmp / "work"
    home.mkdir()
    work.mkdir()
    return home, work


def _read_greeting(work: Path) -> str | None:
    """What the CLI's Bash tool wrote to ``demo.txt`` (None: no such file)."""
    target = work / "demo.txt"
    return target.read_text().strip() if target.exists() else None


async def with_real_cli(ui: Console, cli: str) -> int:
    """The real CLI runs the command; a local fake Messages API plays the model."""
    from .testing import FakeMessagesAPI

    ui.say(f"Running the real Claude Code CLI ({cli}) against a local fake Messages API.")
    ui.say("The CLI and its tools run for real; only the model is scripted.")
    ui.say("Nothing leaves this machine and nothing is billed.\n")
    with tempfile.TemporaryDirectory(prefix="claude-sdk-demo-") as tmp:
        home, work = _make_dirs(Path(tmp))
        async with FakeMessagesAPI() as api:
            # The scripted model: first a Bash call, then (after the tool ran) the answer.
            api.reply(
                text="I'll write the greeting with a shell command.",
                tool_use=("Bash", {"command": REAL_COMMAND, "description": "Write demo.txt"}),
            )
            api.reply(text=f"Done: demo.txt now says '{GREETING}'.", delay=0.01)
            options = demo_options(
                ui, cli_path=cli, cwd=str(work), env={**api.env(), "HOME": str(home)}
            )
            status = await run_turn(ui, REAL_PROMPT, options)
        written = _read_greeting(work)
    ui.say("")
    if written is None:
        ui.say("[check] demo.txt was not written")
        return 1
    ui.say(f"[check] demo.txt on disk: {written!r}")
    ui.say(f"        (the CLI's Bash tool wrote it in {work}, a temporary directory, now removed)")
    return status if written == GREETING else 1


async def with_fake_cli(ui: Console, reason: str) -> int:
    """The scripted FakeCLI plays the CLI and the model; nothing runs."""
    from .testing import FakeCLI, ScriptedCLI, ToolCall

    ui.say(f"{reason}: this run is simulated by claude_sdk's scripted FakeCLI.")
    ui.say("The session, the permission callback and the hooks are real code running here;")
    ui.say("the CLI, the model and the Bash tool are scripted: nothing is executed.\n")

    async def script(cli: ScriptedCLI) -> None:
        # The CLI's side of the conversation, as a FakeCLI script plays it.
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(
            text="Scripted reply: the FakeCLI simulated that Bash call.",
            tools=[ToolCall("Bash", {"command": FAKE_COMMAND}, output=GREETING)],
            total_cost_usd=0,  # nothing was billed
        )
        await cli.serve_until_stdin_closes()

    return await run_turn(ui, FAKE_PROMPT, demo_options(ui), FakeCLI(script))


def _python() -> str:
    """How to spell this interpreter in a command: ``python`` if that finds it, else its path."""
    for name in ("python", "python3"):
        found = shutil.which(name)
        if found and os.path.abspath(found) == os.path.abspath(sys.executable):
            return name
    return sys.executable


def _examples() -> Path | None:
    """The ``examples`` directory of a source checkout (wheels do not ship it)."""
    candidate = Path(__file__).resolve().parent.parent / "examples"
    return candidate if (candidate / "testing_with_fake_cli.py").is_file() else None


def next_steps(ui: Console, *, simulated: bool, backend: str, cli_missing: bool) -> None:
    """Where this demo's code lives, and commands to try next (each runs offline)."""
    if simulated:
        ui.say("\n[simulated] No model answered and no command ran: the FakeCLI scripted the")
        ui.say("CLI's side. The permission callback and the hooks above really ran, here.")
        if cli_missing:
            ui.say("With the Claude Code CLI installed, this demo runs it for real (offline).")
    else:
        ui.say("\n[real] The Claude Code CLI ran the Bash command; only the model was scripted.")
        ui.say("The cost shown is the CLI's estimate from the fake API's token counts: nothing")
        ui.say("was billed.")
    ui.say(f"\nThe code of this demo: {os.path.abspath(__file__)}")
    py = _python()
    steps: list[tuple[str, str]] = []
    if backend == "trio":
        steps.append((f"{py} -m claude_sdk demo", "the same demo on asyncio"))
    elif importlib.util.find_spec("trio") is not None:
        steps.append((f"{py} -m claude_sdk demo --backend trio", "the same demo on Trio"))
    steps += [
        (f"{py} -m pydoc claude_sdk.tools", "@tool: a Python function Claude can call"),
        (f"{py} -m pydoc claude_sdk.testing.fake_cli", "FakeCLI: test agent code without a CLI"),
    ]
    if importlib.util.find_spec("pytest") is not None:  # the plugin's module imports pytest
        steps.append(
            (
                f"{py} -m pydoc claude_sdk.testing.pytest_plugin",
                "the pytest fixtures: fake_cli, cassette",
            )
        )
    examples = _examples()
    if examples is not None:
        steps.append((f"{py} {examples / 'testing_with_fake_cli.py'}", "a FakeCLI test to copy"))
    ui.say("Try next:")
    width = max(len(command) for command, _ in steps)
    for command, what in steps:
        ui.say(f"  $ {command.ljust(width)}  # {what}")
    if backend != "trio" and importlib.util.find_spec("trio") is None:
        ui.say(f"  Trio: {install_hint('trio')}, then add --backend trio")


async def run_demo(ui: Console, force_fake: bool, cli_path: str | None, backend: str) -> int:
    """Run the demo on the real CLI if there is one (unless ``force_fake``), else the FakeCLI."""
    cli: str | None = None
    missing = False
    reason = "As asked (--fake)"
    if not force_fake:
        try:
            cli = find_cli(cli_path)
        except CLINotFoundError:
            if cli_path is not None:
                raise  # the CLI asked for by name is not there: an error, not a fallback
            missing = True
            reason = "No Claude Code CLI found"
    if cli is not None and importlib.util.find_spec("h11") is None:
        reason = f"The fake Messages API needs h11 ({install_hint('testing')})"
        cli = None
    if cli is None:
        status = await with_fake_cli(ui, reason)
    else:
        status = await with_real_cli(ui, cli)
    next_steps(ui, simulated=cli is None, backend=backend, cli_missing=missing)
    return status
