"""Durable human-in-the-loop against the real CLI (offline): a host process suspends on the
model's question (or a permission), keeps it in a `DirectoryStore` and exits; another host,
with an empty HOME (so only the store has the session), reads the question and answers it;
the model continues with the answer and the whole conversation."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio

import claude_sdk as cs

from .conftest import E2E

QUESTION = {
    "questions": [
        {
            "question": "Which database should the service use?",
            "header": "Database",
            "options": [
                {"label": "Postgres", "description": "relational"},
                {"label": "SQLite", "description": "a file"},
            ],
            "multiSelect": False,
        }
    ]
}

#: Host A: ask, suspend, print the reply's facts as JSON, exit (nothing waits).
HOST_A = textwrap.dedent(
    """
    import json, sys
    import anyio
    import claude_sdk as cs
    from claude_sdk.stores import DirectoryStore

    args = json.loads(sys.argv[1])

    async def main():
        options = cs.Options(
            cli_path=args["cli"], cwd=args["cwd"], env=args["env"],
            session_store=DirectoryStore(args["store"]),
            can_use_tool=cs.suspend_for_a_person,
            initialize_timeout=30.0, control_timeout=30.0,
        )
        reply = await cs.ask(args["prompt"], options=options)
        pending = reply.suspended
        print(json.dumps({
            "session_id": reply.session_id,
            "suspended": pending is not None and pending.session_id,
            "kind": pending.kind if pending else None,
            "terminal_reason": reply.result.terminal_reason,
        }))

    anyio.run(main, backend=args["backend"])
    sys.exit(0)
    """
)


async def _host_a(e2e: E2E, store: Path, prompt: str, backend: str) -> dict[str, Any]:
    home_a = e2e.home.parent / "home-a"
    home_a.mkdir(exist_ok=True)
    args = {
        "cli": e2e.cli,
        "cwd": str(e2e.cwd),
        "env": {**e2e.api.env(), "HOME": str(home_a)},
        "store": str(store),
        "prompt": prompt,
        "backend": backend,
    }
    env = {**os.environ, "PYTHONPATH": str(Path(cs.__file__).parents[1])}
    done = await anyio.run_process(
        [sys.executable, "-c", HOST_A, json.dumps(args)], env=env, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    facts: dict[str, Any] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return facts


def _options_b(e2e: E2E, store: Path) -> cs.Options:
    # Host B: another HOME (nothing of the session on its disk but what the store gives).
    return e2e.options(
        session_store=cs.stores.DirectoryStore(store),
        can_use_tool=cs.suspend_for_a_person,
    )


async def test_a_question_answered_by_another_host(e2e: E2E, anyio_backend: str) -> None:
    e2e.api.reply(tool_use=("AskUserQuestion", QUESTION))
    e2e.api.reply(text="Going with Postgres.")
    store = e2e.home.parent / "store"
    facts = await _host_a(e2e, store, "Set up the service's database", anyio_backend)
    assert facts["kind"] == "question"
    assert facts["terminal_reason"] == "aborted_tools"
    sid = facts["suspended"]
    assert sid == facts["session_id"]

    options = _options_b(e2e, store)
    pending = await cs.pending_question(sid, options=options)
    assert pending is not None
    assert [q.question for q in pending.questions] == [QUESTION["questions"][0]["question"]]
    assert [o.label for o in pending.questions[0].options] == ["Postgres", "SQLite"]
    reply = await cs.answer(
        sid,
        {"Which database should the service use?": "Postgres"},
        options=options,
        transport=e2e.transport(),
    )
    assert reply.text == "Going with Postgres."
    assert reply.suspended is None
    assert reply.session_id == sid
    last = e2e.api.main_requests[-1]
    assert '"Which database should the service use?"="Postgres"' in last.last_user_text
    # The whole conversation: the first prompt and the model's question are in context.
    history = json.dumps(last.messages)
    assert "Set up the service's database" in history
    assert "AskUserQuestion" in history
    # Answered once: the transcript holds the answer, on every host.
    assert await cs.pending_question(sid, options=options) is None


async def test_a_permission_allowed_by_another_host(e2e: E2E, anyio_backend: str) -> None:
    marker = e2e.cwd / "ran.txt"
    command = {"command": f"echo ran > {marker}", "description": "write a marker"}
    e2e.api.reply(tool_use=("Bash", command))
    e2e.api.reply(tool_use=("Bash", command))  # the model makes the call again
    e2e.api.reply(text="Done, the marker is written.")
    store = e2e.home.parent / "store"
    facts = await _host_a(e2e, store, "Write the marker file", anyio_backend)
    assert facts["kind"] == "permission"
    sid = facts["suspended"]
    assert not marker.exists()  # nothing ran while the person thought

    options = _options_b(e2e, store)
    pending = await cs.pending_question(sid, options=options)
    assert pending is not None
    assert pending.tool_name == "Bash"
    assert pending.tool_input["command"] == command["command"]
    reply = await cs.answer(sid, allow=True, options=options, transport=e2e.transport())
    assert reply.text == "Done, the marker is written."
    assert reply.suspended is None  # the same call ran without asking again
    assert marker.read_text().strip() == "ran"
    assert "allowed your Bash call" in json.dumps(e2e.api.main_requests[-2].messages)
