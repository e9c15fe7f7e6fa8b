"""A scripted agent CLI for the engine recipes: sessions that persist, resume and fail on cue.

`write_agent_cli` writes an executable (``python -m claude_sdk.testing fake-cli --script
THIS_FILE:agent``) that plays a CLI whose conversations outlive the process, as the real
CLI's do:

* the session id is ``--session-id`` or ``--resume`` (`ScriptedCLI.session_id`);
* every prompt and answer is appended to the transcript the real CLI would write,
  ``<config>/projects/<cwd-slug>/<session-id>.jsonl`` (``<config>``: ``$CLAUDE_CONFIG_DIR``,
  else ``~/.claude``), and mirrored as ``transcript_mirror`` frames when the SDK passed
  ``--session-mirror``; as the real CLI, a prompt's entry keeps the uuid the host sent it
  with (what `claude_sdk.steps` finds steps by), an answer is an ``end_turn`` response, and
  an API error is a ``"<synthetic>"`` message;
* ``--resume`` of a session with no transcript is refused as CLI 2.1.330 refuses it (an
  error result naming the id, exit 1), so a resume that should not happen is visible;
* each answer is ``"<first word of the prompt> done (prompt N of this conversation)"``: N
  counts the prompts in the transcript, so an answer shows whether the conversation was
  resumed (N goes on) or restarted (N starts at 1 again).

Cues, read from the environment:

``FAKE_AGENT_PIDS``
    a directory: each CLI process writes an empty file named by its pid, so a test can check
    afterwards that none is alive.
``FAKE_AGENT_FAULTS``
    a directory of one-shot faults: a file ``<session-id>.prompt<N>.<fault>`` fires when
    prompt N of that conversation arrives (after its transcript line is written, as the real
    CLI writes it on arrival) and is deleted first, so a retry of that prompt goes through.
    ``kill``: the process kills itself with SIGKILL (a CLI lost mid-turn); ``529``: the turn
    ends with the API's "overloaded" error result; ``401``: an authentication error result;
    ``hang``: the turn never ends (a worker to kill mid-step).
``FAKE_AGENT_EVENTS``
    a directory: when prompt N of a session arrives (its transcript line written and
    mirrored), the file ``<session-id>.prompt<N>`` is written there holding the CLI's pid,
    so a test can wait for a step to be running, and find the process that runs it.
``FAKE_AGENT_TURN_SECONDS``
    seconds each turn takes before its answer (default 0), for cancellation tests.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import stat
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio

from claude_sdk import history
from claude_sdk.testing import ScriptedCLI

__all__ = ["agent", "answer_for", "fault_file", "write_agent_cli"]

_VERSION = "2.1.330"


def write_agent_cli(path: Path, *, python: str | None = None) -> Path:
    """Write the scripted agent CLI executable at ``path``; return it."""
    argv = [python or sys.executable, "-m", "claude_sdk.testing", "fake-cli"]
    argv += ["--script", f"{Path(__file__).resolve()}:agent"]
    path.write_text(f'#!/bin/sh\nexec {shlex.join(argv)} -- "$@"\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def answer_for(prompt: str, n: int) -> str:
    """The answer to ``prompt``, prompt ``n`` of its conversation."""
    head = prompt.split()[0] if prompt.split() else "prompt"
    return f"{head} done (prompt {n} of this conversation)"


def fault_file(directory: Path, session_id: str, prompt: int, fault: str) -> Path:
    """Arm a one-shot fault (see the module docstring); return its file."""
    marker = directory / f"{session_id}.prompt{prompt}.{fault}"
    marker.touch()
    return marker


def _flag(argv: tuple[str, ...], name: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Transcript:
    """The session's JSONL file, written as the real CLI writes it (single appends)."""

    def __init__(self, cli: ScriptedCLI, session_id: str) -> None:
        self.cli = cli
        self.session_id = session_id
        self.cwd = os.getcwd()
        self.path = history.config_dir() / "projects" / history.project_slug(self.cwd)
        self.path = self.path / f"{session_id}.jsonl"
        self.mirror = "--session-mirror" in cli.argv
        self.last_uuid: str | None = None
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("uuid"), str):
                    self.last_uuid = entry["uuid"]

    def prompts(self) -> int:
        """User prompts in the conversation so far."""
        if not self.path.exists():
            return 0
        count = 0
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("type") == "user" and isinstance(entry["message"]["content"], str):
                count += 1
        return count

    async def append(
        self, kind: str, message: dict[str, Any], entry_uuid: str | None = None, **extra: Any
    ) -> None:
        entry: dict[str, Any] = {
            "parentUuid": self.last_uuid,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": _VERSION,
            "gitBranch": "",
            "type": kind,
            "message": message,
            "uuid": entry_uuid or str(uuid.uuid4()),
            "timestamp": _now(),
            **extra,
        }
        self.last_uuid = entry["uuid"]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        if self.mirror:
            await self.cli.send(
                {
                    "type": "transcript_mirror",
                    "filePath": str(self.path),
                    "entries": [entry],
                    "session_id": self.session_id,
                    "uuid": str(uuid.uuid4()),
                }
            )


def _take_fault(session_id: str, n: int) -> str | None:
    directory = os.environ.get("FAKE_AGENT_FAULTS")
    if not directory:
        return None
    for fault in ("kill", "529", "401", "hang"):
        marker = Path(directory, f"{session_id}.prompt{n}.{fault}")
        try:
            marker.unlink()
        except FileNotFoundError:
            continue
        return fault
    return None


async def agent(cli: ScriptedCLI) -> None:
    """The script: see the module docstring."""
    pids = os.environ.get("FAKE_AGENT_PIDS")
    if pids:
        Path(pids, str(os.getpid())).touch()  # noqa: ASYNC240 - before anything runs
    session_id = cli.session_id
    transcript = _Transcript(cli, session_id)
    resumed = _flag(cli.argv, "--resume")
    if resumed is not None and not transcript.path.exists():
        # CLI 2.1.330 refuses before answering initialize: an error result, then exit 1.
        await cli.result(
            subtype="error_during_execution",
            errors=[f"No conversation found with session ID: {resumed}"],
        )
        await cli.exit(1)
        return
    cli.mirror_turns = False  # this script mirrors the transcript it writes itself
    await cli.handshake()
    delay = float(os.environ.get("FAKE_AGENT_TURN_SECONDS", "0"))
    async for prompt in cli.iter_prompts():
        text = prompt.text
        await transcript.append("user", {"role": "user", "content": text}, prompt.uuid)
        n = transcript.prompts()
        events = os.environ.get("FAKE_AGENT_EVENTS")
        if events:
            Path(events, f"{session_id}.prompt{n}").write_text(str(os.getpid()))  # noqa: ASYNC240
        fault = _take_fault(session_id, n)
        if fault == "hang":
            await cli.state("running")
            await anyio.sleep_forever()
        if fault == "kill":
            await cli.state("running")
            os.kill(os.getpid(), signal.SIGKILL)
        if fault in ("529", "401"):
            status = int(fault)
            words = "Overloaded" if status == 529 else "Invalid API key"
            await cli.state("running")
            await cli.system_init()
            await transcript.append(
                "assistant",
                {
                    "id": str(uuid.uuid4()),
                    "type": "message",
                    "role": "assistant",
                    "model": "<synthetic>",
                    "content": [{"type": "text", "text": f"API Error: {status} {words}"}],
                    "stop_reason": "stop_sequence",
                    "stop_sequence": "",
                },
                isApiErrorMessage=True,
            )
            await cli.result(
                f"API Error: {status} {words}",
                is_error=True,
                api_error_status=status,
                terminal_reason="api_error" if status == 529 else "completed",
            )
            await cli.state("idle")
            continue
        if delay:
            await cli.state("running")
            await anyio.sleep(delay)
        answer = answer_for(text, n)
        await transcript.append(
            "assistant",
            {
                "id": f"msg_{uuid.uuid4().hex[:24]}",
                "type": "message",
                "role": "assistant",
                "model": cli.model,
                "content": [{"type": "text", "text": answer}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 10},
            },
        )
        await cli.turn(text=answer)
