"""Run the user-facing examples offline: the real CLI against a scripted FakeMessagesAPI.

``python tests/support/run_example.py examples/quickstart.py`` starts a `FakeMessagesAPI` in
this process, scripts it with the replies that example needs (`SCENARIOS`; an example not
listed gets `DEFAULT`: text replies only), and runs the example as a child process whose
environment sends its plain ``cs.ask(...)`` to the pinned CLI, offline:

* the fake API's environment (``ANTHROPIC_BASE_URL`` = the fake, a dummy key, no telemetry),
  with any inherited ``ANTHROPIC_*`` / ``CLAUDE_CODE_*`` variable removed first;
* a fresh temporary ``HOME`` and working directory (nothing the example's tools do touches
  the checkout or the real home);
* ``CLAUDE_SDK_CLI_PATH`` = the pinned CLI of ``tests/support/fetch_cli.py``.

Examples that need neither the API nor the CLI (``decode_wire.py``,
``testing_with_fake_cli.py``) run as they are. The example's output is streamed as it comes.
The run fails (exit 1) when the example exits non-zero, runs longer than `TIMEOUT` seconds,
leaves a scripted reply unused, or does not print what its scenario expects.

``python tests/support/run_example.py --all`` runs every ``examples/*.py`` in turn and prints
a summary. ``nox -s examples`` does that inside a loopback-only network namespace.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream

from claude_sdk.testing import FakeMessagesAPI

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: Seconds an example may run.
TIMEOUT = 30.0
#: Inherited variables that could send the CLI elsewhere than the fake API.
_SCRUBBED_PREFIXES = ("ANTHROPIC_", "CLAUDE_CODE_")


@dataclass(frozen=True)
class Scenario:
    """What an example needs from the fake API, and what its output must show.

    Attributes:
        replies: keyword arguments of `FakeMessagesAPI.reply`, in the order the main loop
            consumes them; every one must be used. Requests beyond them get the fake's
            default text reply.
        needs_cli: False for examples that run without the CLI and the API.
        expect: strings the example's output must contain.
        args: command-line arguments for the example.
    """

    replies: tuple[Mapping[str, Any], ...] = ()
    needs_cli: bool = True
    expect: tuple[str, ...] = ()
    args: tuple[str, ...] = ()


#: The scenario of an example that is not in `SCENARIOS`: text replies only.
DEFAULT = Scenario()

SCENARIOS: dict[str, Scenario] = {
    "decode_wire.py": Scenario(needs_cli=False, expect=("result: success",)),
    "testing_with_fake_cli.py": Scenario(needs_cli=False, expect=("all checks passed",)),
    "usage_limits.py": Scenario(
        needs_cli=False,
        expect=(
            "usage limit (five_hour); retryable: False",
            "resets in about 60 min",
            "parked 1 time(s), then: Back after the reset.",
        ),
    ),
    "fake_cli_executable.py": Scenario(needs_cli=False, expect=("all checks passed",)),
    "archive_sessions.py": Scenario(
        needs_cli=False,
        expect=(
            "archived  0a7c4a1e-0000-4000-8000-000000000001",
            "the store keeps 2 summaries",
            "archiving in a store: options:",
        ),
    ),
    "resume_anywhere.py": Scenario(
        expect=("machine 2:", "files left on machine 2: 0", "in the store: 4 messages"),
    ),
    # The engine recipes need their engine: `nox -s engines` runs them (tests/engines/).
    "durable_temporal.py": Scenario(needs_cli=False, args=("--help",), expect=("usage:",)),
    "ray_batch.py": Scenario(needs_cli=False, args=("--help",), expect=("usage:",)),
    "dask_batch.py": Scenario(needs_cli=False, args=("--help",), expect=("usage:",)),
    "high_volume.py": Scenario(
        needs_cli=False,
        expect=("answered 10 permission requests with 0 messages read", "read 20001 messages"),
    ),
    "quickstart.py": Scenario(
        replies=(
            {"text": "2 + 2 = 4."},
            {"text": "Scripts, web services and data science."},
        ),
        expect=("2 + 2 = 4.", "Scripts, web services and data science."),
    ),
    "multi_turn_session.py": Scenario(
        replies=(
            {"text": "Nice to meet you, Ada."},
            {"text": "Your name is Ada."},
            {"text": "Once upon a time " + "there was a very long story " * 60, "delay": 0.02},
        ),
        expect=("Your name is Ada.", "interrupted:"),
    ),
    "permissions.py": Scenario(
        replies=(
            {"tool_use": ("Bash", {"command": "rm -rf build", "description": "Delete build"})},
            {"tool_use": ("Bash", {"command": "touch hello.txt", "description": "Create"})},
            {"text": "I created hello.txt; deleting build was not allowed."},
        ),
        expect=(
            "deny Bash: rm -rf build",
            "allow Bash: touch hello.txt",
            "hello.txt created: True",
            "denied: Bash",
        ),
    ),
    "hooks.py": Scenario(
        replies=(
            {"tool_use": ("Bash", {"command": "rm -rf build", "description": "Delete build"})},
            {"tool_use": ("Bash", {"command": "echo hello", "description": "Say hello"})},
            {"text": "Printed hello; the delete was blocked."},
        ),
        expect=("blocked: rm -rf build", "ran Bash: echo hello -> 'hello'", "was blocked"),
    ),
    "policies.py": Scenario(needs_cli=False, expect=("policy: chain(",)),
    "stop_signals.py": Scenario(
        expect=("stopped by SIGTERM; exit code 143", "the CLI is still running: False"),
    ),
    "store_catch_up.py": Scenario(
        expect=(
            "after the next turn: store_failures = []",
            "each once: True",
            "gaps in the store's transcript: 0",
            "into a second store",
        ),
    ),
    "session_leases.py": Scenario(
        expect=(
            "worker 1:",
            "worker 2 (at once): SessionBusyError, retryable: True",
            "worker 3 (waited): opened after worker 1 closed: True",
            "worker 3:",
        ),
    ),
    "whole_resume.py": Scenario(
        expect=(
            "on an empty machine: TranscriptGapError, missing",
            "which is missing",
            "retryable: True",
            "turn 3:",
        ),
    ),
    # The real sandbox: bubblewrap and socat must run here (CI installs them).
    "sandbox_layers.py": Scenario(
        replies=(
            {"tool_use": ("Bash", {"command": "rm -rf build"})},
            {"tool_use": ("Bash", {"command": "echo note > ~/sandbox-layers-outside.txt"})},
            {"tool_use": ("Bash", {"command": "curl -sS -m 5 https://example.com"})},
            {"tool_use": ("Bash", {"command": "echo note > note.txt"})},
            {"text": "The policy denied rm -rf; the sandbox stopped the other two."},
        ),
        expect=(
            "layer 1, the policy, denied: rm -rf build",
            "layer 2, the sandbox, stopped: echo note > ~/sandbox-layers-outside.txt",
            "Read-only file system",
            "layer 2, the sandbox, stopped: curl -sS -m 5 https://example.com",
            "example.com:443",
            "ran: echo note > note.txt",
            "note.txt in the project: True",
            "~/sandbox-layers-outside.txt outside the project: False",
        ),
    ),
    # No reply: the slash command's shell command is denied before any API call (2.1.332),
    # and an older CLI is not sent it; either way the output names the event.
    "skill_shell_hooks.py": Scenario(expect=("PreSkillShellCommand",)),
    "policy_dry_run.py": Scenario(
        needs_cli=False, expect=("current: 2 calls, 0 differ", "proposed: 2 calls, 1 differ")
    ),
    "test_my_agent.py": Scenario(needs_cli=False),
    "remote_ssh.py": Scenario(needs_cli=False, args=("--help",), expect=("usage:",)),
    "session_pool.py": Scenario(
        replies=({"text": "Hi!"}, {"text": "Hi!"}, {"text": "Hi!"}),
        expect=("customer-0: Hi!", "customer-1: Hi!", "for 3 questions, peak 2"),
    ),
    "sync_facade.py": Scenario(
        replies=({"text": "4"}, {"text": "7 is prime."}),
        expect=("ask: 4", "session: 7 is prime."),
    ),
    "mcp_raw_server.py": Scenario(
        replies=(
            {"tool_use": ("mcp__calc__add", {"a": 2, "b": 3})},
            {"text": "2 + 3 = 5."},
        ),
        expect=("add(2, 3) = 5", "2 + 3 = 5."),
    ),
    "first_tool.py": Scenario(
        replies=(
            {"tool_use": ("mcp__weather__get_temperature", {"city": "Paris"})},
            {"text": "It is 21 degrees in Paris."},
            {"tool_use": ("mcp__weather__get_humidity", {"city": "Paris"})},
            {"text": "The humidity is 40%."},
        ),
        expect=(
            "[tool] get_temperature('Paris')",
            "It is 21 degrees in Paris.",
            "[tool] get_humidity('Paris')",
            "The humidity is 40%.",
        ),
    ),
    "in_process_tools.py": Scenario(
        replies=(
            {"tool_use": ("mcp__calc__add", {"pair": {"a": 2, "b": 3}})},
            {"text": "2 + 3 = 5."},
        ),
        expect=("[tool] add(2.0, 3.0) = 5.0", "2 + 3 = 5."),
    ),
    "structured_output.py": Scenario(
        replies=(
            {
                "tool_use": (
                    "StructuredOutput",
                    {"city": "Paris", "country": "France", "population_millions": 2.1},
                )
            },
            {"text": "It is Paris, with about two million people."},
            {"text": "Paris."},
        ),
        expect=(
            "Paris, France: about 2.1 million",
            "no usable output (retryable=True): the result has no structured output",
        ),
    ),
    "mcp_dynamic_tools.py": Scenario(
        replies=(
            {"tool_use": ("mcp__calc__unlock", {})},
            {"tool_use": ("mcp__calc__multiply", {"a": 6, "b": 7})},
            {"text": "6 x 7 = 42."},
            {"tool_use": ("mcp__calc__slow", {})},
            {"text": "The slow tool timed out."},
        ),
        expect=(
            "[tool] multiply(6, 7) = 42",
            "6 x 7 = 42.",
            "[tool] slow was cancelled",
            "[cancelled] the CLI cancelled tool 'slow'",
            "The slow tool timed out.",
        ),
    ),
    "control_surface.py": Scenario(
        expect=(
            "mcp_call add(2, 3): {'result': 5}",
            "mcp_read_resource: ui://calc/panel",
            "reinitialized: same CLI process: True",
            "debug lines on stderr: yes",
        )
    ),
    "usage_by_agent.py": Scenario(
        replies=(
            {
                "tool_use": (
                    "Agent",
                    {
                        "description": "Delegate",
                        "prompt": "OUTER: delegate the listing",
                        "subagent_type": "general-purpose",
                        "run_in_background": False,
                    },
                ),
                "when": lambda r: "TASK" not in json.dumps(r.messages[:1]),
            },
            {
                "tool_use": (
                    "Agent",
                    {
                        "description": "List files",
                        "prompt": "SUBTASK: list the files",
                        "subagent_type": "general-purpose",
                        "run_in_background": False,
                    },
                ),
                "when": lambda r: "OUTER" in json.dumps(r.messages[:1]),
            },
            {
                "tool_use": ("Bash", {"command": "ls", "description": "List"}),
                "when": lambda r: "SUBTASK" in json.dumps(r.messages[:1]),
            },
            {
                "text": "no files",
                "when": lambda r: "SUBTASK" in json.dumps(r.messages[:1]),
            },
            {
                "text": "it found no files",
                "when": lambda r: "OUTER" in json.dumps(r.messages[:1]),
            },
            {"text": "The directory is empty."},
        ),
        expect=(
            "main:",
            "general-purpose (Delegate):",
            "  general-purpose (List files):",
            "unattributed:",
            "in the totals = the shares'",
            "for the turn = the shares'",
        ),
    ),
    "own_turns.py": Scenario(
        replies=(
            {
                "tool_use": (
                    "Bash",
                    {
                        "command": "sleep 2; echo counted",
                        "description": "Count in the background",
                        "run_in_background": True,
                    },
                )
            },
            {"text": "Started it."},
            {"text": "The background count is done."},
            {"text": "Paris."},
        ),
        expect=(
            "first: Started it.",
            "the CLI's own turn (task-notification): The background count is done.",
            "answer to my prompt: Paris.",
            "it answers the prompt I sent: True",
        ),
    ),
    "interrupt_receipt.py": Scenario(
        replies=({"text": "Once upon a time " + "a keeper kept the light " * 80, "delay": 0.02},),
        expect=(
            "while idle: no_op",
            "mid-turn: effective (the turn ended ['aborted_streaming'])",
            "the turn's result is the receipt's: True",
        ),
    ),
    "pool_recycle.py": Scenario(
        replies=({"text": "Noted: 4417."}, {"text": "It was 4417."}),
        expect=(
            "first: Noted: 4417.",
            "second: It was 4417.",
            "recycled 2, same conversation: True",
        ),
    ),
    "human_in_the_loop.py": Scenario(
        replies=(
            {
                "tool_use": (
                    "AskUserQuestion",
                    {
                        "questions": [
                            {
                                "question": "Which colour scheme do you want?",
                                "header": "Colours",
                                "options": [
                                    {"label": "Ocean", "description": "blues"},
                                    {"label": "Forest", "description": "greens"},
                                ],
                                "multiSelect": False,
                            }
                        ]
                    },
                )
            },
            {"text": "I will build the page in Ocean blues."},
        ),
        expect=(
            "suspended on a question; session ",
            "the model asks: Which colour scheme do you want? ['Ocean', 'Forest']",
            "answered 'Ocean'; the model: I will build the page in Ocean blues.",
        ),
    ),
    "pool_spares.py": Scenario(
        replies=({"text": "The billing service."}, {"text": "The search service."}),
        expect=(
            "a spare is parked, no folder yet",
            "billing: The billing service.",
            "search: The search service.",
            "claimed 2, refused 0",
        ),
    ),
    "steer.py": Scenario(
        replies=(
            {"text": "Once upon a time " + "a keeper kept the light " * 80, "delay": 0.02},
            {"text": "The sea keeps every secret."},
        ),
        expect=(
            "interrupt: effective",
            "the story was cancelled by the steer: True",
            "new answer: The sea keeps every secret.",
        ),
    ),
    "self_healing_turns.py": Scenario(
        replies=({"text": "Noted: 1234."}, {"error": 529}, {"text": "It was 1234."}),
        expect=(
            "turn 1: Noted: 1234.",
            "[retry] attempt 1 failed (HTTP 529 overloaded)",
            "turn 2: It was 1234.",
            "turn 2 needed 2 attempt(s)",
            "same session: True",
        ),
    ),
    "pool_limits.py": Scenario(
        expect=("3 prompts, at most 2 a second", "refused, budget spent", "refused"),
    ),
    "resume_trust.py": Scenario(
        replies=({"text": "Noted."}, {"text": "It was 42."}),
        expect=(
            "resumed True, with history: True",
            "answer: It was 42.",
            "continue in an empty directory: SessionNotFoundError",
            "start a new one when asked to: True",
        ),
    ),
    "typed_tool_results.py": Scenario(
        needs_cli=False,
        expect=("Glob found 2 files", "[hook] Bash printed", "all checks passed"),
    ),
    "queued_prompts.py": Scenario(
        replies=(
            {"text": "Once upon a time " + "a keeper kept the light " * 80, "delay": 0.02},
            {"text": "Long ago " + "the boats came home " * 80, "delay": 0.02},
        ),
        expect=("withdrew 2 queued prompt(s)", "idle: every prompt settled (True)", "left the"),
    ),
    "trio_backend.py": Scenario(
        replies=(
            {"text": "Hello from Trio."},
            {"text": "Trio runs this session too."},
        ),
        expect=("Hello from Trio.", "Trio runs this session too."),
    ),
}


def scenario_for(example: Path) -> Scenario:
    """The scenario of ``example`` (`DEFAULT` when it is not listed)."""
    return SCENARIOS.get(example.name, DEFAULT)


def all_examples() -> list[Path]:
    """Every example, in name order."""
    return sorted(EXAMPLES.glob("*.py"))


@dataclass
class Outcome:
    """How one example run went."""

    example: Path
    ok: bool = False
    seconds: float = 0.0
    returncode: int | None = None
    output: str = ""
    problems: list[str] = field(default_factory=list)


def _pinned_cli() -> str:
    """The pinned CLI (downloaded once if needed; ``nox -s examples`` fetches it first)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.support.fetch_cli import ensure_cli

    try:
        return str(ensure_cli())
    except SystemExit as exc:  # fetch_cli reports its failures this way
        raise RuntimeError(str(exc)) from None


def _child_env(extra: Mapping[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    if extra:  # an example that reaches the CLI: nothing inherited may redirect it
        env = {k: v for k, v in env.items() if not k.startswith(_SCRUBBED_PREFIXES)}
    env.update(extra)
    path = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + path if path else "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


async def _pump(process: Process, name: str, lines: list[str]) -> None:
    assert process.stdout is not None
    pending = ""
    async for chunk in TextReceiveStream(process.stdout, errors="replace"):
        pending += chunk
        *complete, pending = pending.split("\n")
        for line in complete:
            lines.append(line)
            print(f"  [{name}] {line}", flush=True)
    if pending:
        lines.append(pending)
        print(f"  [{name}] {pending}", flush=True)


def _kill_group(process: Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


async def _run_child(
    argv: Sequence[str], env: Mapping[str, str], cwd: Path, outcome: Outcome
) -> None:
    lines: list[str] = []
    name = outcome.example.name
    async with await anyio.open_process(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,  # its own process group: a timeout ends the CLI it started too
    ) as process:
        with anyio.move_on_after(TIMEOUT) as scope:
            await _pump(process, name, lines)
            await process.wait()
        if scope.cancelled_caught:
            outcome.problems.append(f"timed out after {TIMEOUT:g} s")
            _kill_group(process)
            with anyio.CancelScope(shield=True):
                await process.wait()
        outcome.returncode = process.returncode
    outcome.output = "\n".join(lines)


async def run_example(example: Path) -> Outcome:
    """Run one example under its scenario; see the module docstring."""
    example = Path(await anyio.Path(example).resolve())
    scenario = scenario_for(example)
    outcome = Outcome(example=example)
    started = time.monotonic()
    print(f"== {example.relative_to(ROOT) if example.is_relative_to(ROOT) else example}")
    argv = [sys.executable, str(example), *scenario.args]
    with tempfile.TemporaryDirectory(prefix="claude-sdk-example-") as tmp:
        home = Path(tmp, "home")
        work = Path(tmp, "work")
        await anyio.Path(home).mkdir()
        await anyio.Path(work).mkdir()
        cli = None
        if scenario.needs_cli:
            try:
                cli = await anyio.to_thread.run_sync(_pinned_cli)
            except Exception as exc:
                outcome.problems.append(f"the pinned CLI is not available: {exc}")
        if not scenario.needs_cli:
            await _run_child(argv, _child_env({}), work, outcome)
        elif cli is not None:
            async with FakeMessagesAPI() as api:
                for reply in scenario.replies:
                    api.reply(**reply)
                extra = {**api.env(), "HOME": str(home), "CLAUDE_SDK_CLI_PATH": cli}
                await _run_child(argv, _child_env(extra), work, outcome)
                unused = api.pending_rules
                if unused:
                    outcome.problems.append(f"{len(unused)} scripted replies were never used")
    if outcome.returncode not in (0, None):
        outcome.problems.append(f"exited with {outcome.returncode}")
    if outcome.returncode is not None:  # it ran: check what it printed
        outcome.problems += [
            f"the output lacks {text!r}" for text in scenario.expect if text not in outcome.output
        ]
    outcome.ok = not outcome.problems
    outcome.seconds = time.monotonic() - started
    verdict = "ok" if outcome.ok else "FAILED: " + "; ".join(outcome.problems)
    print(f"== {example.name}: {verdict} ({outcome.seconds:.1f} s)", flush=True)
    return outcome


async def run_all(examples: Sequence[Path]) -> list[Outcome]:
    """Run ``examples`` one after another and print a summary."""
    outcomes = [await run_example(example) for example in examples]
    print("\nsummary:")
    for outcome in outcomes:
        status = "ok    " if outcome.ok else "FAILED"
        detail = "" if outcome.ok else "  " + "; ".join(outcome.problems)
        print(f"  {status} {outcome.example.name:28} {outcome.seconds:5.1f} s{detail}")
    passed = sum(outcome.ok for outcome in outcomes)
    print(f"{passed}/{len(outcomes)} examples passed")
    return outcomes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("examples", nargs="*", type=Path, help="example files to run")
    parser.add_argument("--all", action="store_true", help="run every examples/*.py")
    args = parser.parse_args(argv)
    examples: list[Path] = list(args.examples)
    if args.all:
        examples += all_examples()
    if not examples:
        parser.error("name an example, or pass --all")
    missing = [str(p) for p in examples if not p.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    outcomes = anyio.run(run_all, examples)
    return 0 if all(outcome.ok for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
