"""``python -m claude_sdk``: run a prompt, or an offline demonstration.

* ``python -m claude_sdk demo`` shows a streamed answer, a permission prompt answered by a
  callback, hooks and a tool call, offline and for free: the real Claude Code CLI against a
  local fake Messages API when the CLI is installed, otherwise a scripted fake CLI (and then
  it says that the run is simulated). Its code is ``claude_sdk/_demo.py``.
* ``python -m claude_sdk "prompt"`` runs a real prompt with your own CLI login and streams
  the answer.
* ``python -m claude_sdk --version`` prints the SDK's version and distribution, the Python
  running it, and the Claude Code CLI a session would start, found the way a session finds it
  (``--cli-path``, ``$CLAUDE_SDK_CLI_PATH``, ``PATH``, the usual install places). Nothing is
  started, so it is instant; the CLI's own version is what ``claude --version`` prints.

Output: the transcript on stdout; on stderr, the progress the CLI reports (API retries with
their attempt, delay and error, status changes such as compacting, the running tool and its
elapsed time, background tasks and subagents), rewritten in place on a terminal and as plain
``[progress] ...`` lines elsewhere (see ``claude_sdk/_cli_progress.py``). With ``--json``,
stdout carries exactly the frames, one JSON line each (the demo's notes go to stderr).

Exit status: 0 for a successful turn; 1 for an error result; 2 for an SDK error or bad usage
(one ``error: ...`` line on stderr; ``--debug`` adds the details and the traceback); 130 when
interrupted (Ctrl-C); 141 when the output's reader went away (``... | head -1``). That last
one ends the run quietly, with no traceback, and reports what a program killed by SIGPIPE
reports to its shell (128 + 13). SIGPIPE itself stays ignored, as Python sets it up: the SDK
writes to the CLI's pipes, and a CLI that dies must be an error of the session, not the end
of this process.

Only ``argparse`` is imported before the arguments are read, so ``--help`` is quick.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ._cli_progress import Console
    from .options import Options

#: Exit statuses (see the module docstring).
EXIT_OK = 0
EXIT_ERROR_RESULT = 1
EXIT_SDK_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_PIPE_CLOSED = 141


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m claude_sdk",
        description="Run a prompt with the Claude Code CLI (your own login), streaming the "
        "answer; or `demo` for an offline demonstration. Progress the CLI reports (API "
        "retries, status, running tools) goes to stderr. The exit status is 0 for a "
        "successful turn, 1 for an error result, 2 for an SDK error, 141 when the output's "
        "reader went away.",
    )
    parser.add_argument("prompt", nargs="?", help='the prompt, or "demo"')
    parser.add_argument(
        "--version",
        action="store_true",
        help="print the SDK's version and the CLI it would run (nothing is started)",
    )
    parser.add_argument("--model", help="the model (alias or id)")
    parser.add_argument("--permission-mode", help="default, acceptEdits, plan, ...")
    parser.add_argument(
        "--allowed-tools",
        help="permission rules separated by commas or spaces outside parentheses, as the CLI "
        'reads them, e.g. "Read,Bash(git:*),Bash(printf a,b)"',
    )
    parser.add_argument(
        "--disallowed-tools", help="permission rules to deny, separated as for --allowed-tools"
    )
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
    parser.add_argument(
        "--json", action="store_true", help="print every frame as JSON, and nothing else"
    )
    parser.add_argument("--fake", action="store_true", help="demo: use the scripted FakeCLI")
    parser.add_argument(
        "--backend", choices=("asyncio", "trio"), default="asyncio", help="the event loop"
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="log the SDK's debug messages, and show an error's details and traceback",
    )
    return parser


def _version_text(cli_path: str | None) -> str:
    from ._version import DISTRIBUTION, __version__
    from .errors import CLINotFoundError
    from .transports.discovery import find_cli

    package = os.path.dirname(os.path.abspath(__file__))
    python = ".".join(str(n) for n in sys.version_info[:3])
    try:
        cli = find_cli(cli_path)
    except CLINotFoundError:
        cli = f"not found at {cli_path}" if cli_path else "not found"
    return f"{DISTRIBUTION} {__version__} ({package}, Python {python})\nClaude Code CLI: {cli}"


def _backend_problem(backend: str) -> str | None:
    """Why ``backend`` cannot run here, or None."""
    if backend != "trio":
        return None
    try:
        __import__("trio")
    except ImportError:
        from ._version import install_hint

        return f"the Trio backend needs trio, which is not installed: {install_hint('trio')}"
    return None


def _options_from_args(args: argparse.Namespace) -> Options:
    from .options import Options, split_rules

    kwargs: dict[str, Any] = {
        "include_partial_messages": not args.json,
        "cwd": args.cwd or os.getcwd(),
    }
    for name in ("model", "permission_mode", "max_turns", "resume", "system_prompt", "cli_path"):
        value = getattr(args, name)
        if value is not None:
            kwargs[name] = value
    # The rules are split as the CLI splits its own --allowedTools (commas and spaces outside
    # parentheses), so "Bash(printf a,b),Read" is two rules, as `claude` would read it.
    if args.allowed_tools:
        kwargs["allowed_tools"] = split_rules(args.allowed_tools)
    if args.disallowed_tools:
        kwargs["disallowed_tools"] = split_rules(args.disallowed_tools)
    if args.continue_conversation:
        kwargs["continue_conversation"] = True
    return Options(**kwargs)


async def _prompt(ui: Console, args: argparse.Namespace) -> int:
    from . import query
    from .messages import ResultMessage

    options = _options_from_args(args)
    status = EXIT_ERROR_RESULT
    async with query(args.prompt, options=options) as messages:
        async for message in messages:
            ui.show(message)
            ui.check()  # the output's reader went away: leave, which ends the CLI at once
            if isinstance(message, ResultMessage):
                status = EXIT_ERROR_RESULT if message.is_error else EXIT_OK
    return status


async def _with_progress(ui: Console, run: Callable[[], Awaitable[int]]) -> int:
    """``run()``, with the spinner turning on a terminal."""
    import anyio

    from ._cli_progress import WORKING

    async with anyio.create_task_group() as tg:
        tg.start_soon(ui.animate)
        ui.progress(WORKING, plain=False)
        status = await run()
        ui.idle()
        tg.cancel_scope.cancel()
    return status


def _run(ui: Console, args: argparse.Namespace) -> int:
    import functools

    import anyio

    from .session import _collapse_groups

    if args.prompt == "demo":
        from ._demo import run_demo

        run = functools.partial(run_demo, ui, args.fake, args.cli_path, args.backend)
    else:
        run = functools.partial(_prompt, ui, args)
    with _collapse_groups():
        status: int = anyio.run(_with_progress, ui, run, backend=args.backend)
    return status


def _error_line(exc: BaseException, debug: bool) -> str:
    """``error: <headline>``: one line, unless ``debug`` asks for everything."""
    from .errors import CLINotFoundError, ProcessError

    text = str(exc) or type(exc).__name__
    if debug:
        return f"error: {text}"
    if isinstance(exc, CLINotFoundError):
        hint = exc.hint.replace("Options.cli_path", "--cli-path")  # the option here
        return f"error: {exc.message}: {hint} (--debug lists the places searched)"
    lines = [line for line in text.splitlines() if line != "stderr: (empty)"]
    headline = lines[0] if lines else text
    if isinstance(exc, ProcessError):
        tail = [line for line in exc.stderr_tail.splitlines() if line.strip()]
        if tail:
            headline += f"; its stderr ends: {tail[-1].strip()}"
    if len(lines) > 1:
        headline += " (--debug shows the details)"
    return f"error: {headline}"


def main(argv: list[str] | None = None) -> int:
    """The command line entry point; returns the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except BrokenPipeError:  # --help into a closed pipe
        from ._cli_progress import Console

        Console().close_quietly()
        return EXIT_PIPE_CLOSED
    if args.version:
        text = _version_text(args.cli_path)
        try:
            print(text, flush=True)
        except BrokenPipeError:
            from ._cli_progress import Console

            Console().close_quietly()
            return EXIT_PIPE_CLOSED
        return EXIT_OK
    if args.prompt is None:
        parser.error('a prompt is needed (or "demo", or --version)')
    problem = _backend_problem(args.backend)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_SDK_ERROR
    if args.debug:
        import logging

        logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(name)s: %(message)s")
        # Third-party libraries stay at their default level; the SDK's own logs are wanted.
        logging.getLogger().setLevel(logging.WARNING)
        logging.getLogger("claude_sdk").setLevel(logging.DEBUG)

    from ._cli_progress import Console
    from .errors import ClaudeSDKError

    ui = Console(json=args.json)
    try:
        status = _run(ui, args)
        ui.flush()
    except KeyboardInterrupt:
        ui.idle()
        return EXIT_INTERRUPTED
    except Exception as exc:
        if ui.broken:
            ui.close_quietly()
            return EXIT_PIPE_CLOSED
        if not isinstance(exc, ClaudeSDKError):
            raise  # a bug: the traceback is what a report needs
        ui.error(_error_line(exc, args.debug))
        if args.debug:
            import traceback

            ui.error("".join(traceback.format_exception(exc)).rstrip())
        return EXIT_SDK_ERROR
    if ui.broken:
        return EXIT_PIPE_CLOSED
    return status


if __name__ == "__main__":
    sys.exit(main())
