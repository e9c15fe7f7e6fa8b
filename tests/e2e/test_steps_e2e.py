"""`claude_sdk.steps` on the real CLI (offline, FakeMessagesAPI): what a finished step is on disk.

One job of four steps whose answers take the shapes a real turn has: thinking then text; a
tool call, then text; a response stopped by ``max_tokens`` that the CLI continues; an API
error (529), then the step run again. The session store gets what the CLI writes; then:

* the CLI keeps each prompt's uuid (the step's) as its transcript entry's uuid;
* `read_steps` finds every step done with the answer `ResultMessage.text` had;
* over **every prefix** of that stored transcript, each step is done exactly when the entry
  holding its final answer's last block is in the prefix (a thinking block, a tool call, a
  ``max_tokens`` response, the CLI's synthetic error message are never an answer);
* a transcript cut mid-step (after the prompt; after the tool call; after the tool result)
  resumes under an empty ``HOME`` from the store alone: the step is run by the cut note, the
  model is sent the step's prompt once and the note once, and the step is then done.

``CLAUDE_SDK_RECORD_STEPS=1`` writes the stored transcript to ``tests/data/steps/`` (what
``tests/test_steps.py`` checks in the everyday suite).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.steps import CUT_NOTE, step_uuid
from claude_sdk.stores import MemoryStore, SessionKey
from claude_sdk.testing.fake_api import ScriptedText, ScriptedThinking

from .conftest import E2E

pytestmark = pytest.mark.anyio

KEY = "steps-e2e"
STEPS = [
    cs.Step("think", "STEP-think: think, then answer."),
    cs.Step("tool", "STEP-tool: run echo, then answer."),
    cs.Step("long", "STEP-long: a long answer."),
    cs.Step("flaky", "STEP-flaky: answer."),
]
ANSWERS = ["answer think", "answer tool", "answer long", "answer flaky"]
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "steps"


def _script(e2e: E2E) -> None:
    api = e2e.api
    api.reply(blocks=[ScriptedThinking("let me think"), ScriptedText(ANSWERS[0])])
    api.reply(thinking="hmm", text="calling echo", tool_use=("Bash", {"command": "echo hi"}))
    api.reply(text=ANSWERS[1])
    api.reply(text="the first half, cut", stop_reason="max_tokens")
    api.reply(text=ANSWERS[2])
    api.reply(error=529)
    api.reply(text=ANSWERS[3])


def _key(e2e: E2E) -> SessionKey:
    slug = history.project_slug(os.path.realpath(e2e.cwd))
    return {"project_key": slug, "session_id": cs.session_id_for(KEY)}


def _options(e2e: E2E, store: MemoryStore, **extra: Any) -> cs.Options:
    return e2e.options(
        session_store=store, diskless=True, allowed_tools=["Bash(echo:*)"], **extra
    ).resume_or_start(KEY)


async def _run_job(e2e: E2E, store: MemoryStore) -> list[dict[str, Any]]:
    """Run the four steps (the 529 once more, as a retry would); the stored transcript."""
    _script(e2e)
    options = _options(e2e, store)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        progress = await cs.read_steps(options, STEPS)
        assert [s.status for s in progress.steps] == ["todo"] * 4
        for state in progress.steps[:3]:
            assert await cs.run_step(session, state) == ANSWERS[state.index]
        with pytest.raises(cs.ResultError) as failed:
            await cs.run_step(session, progress.steps[3])
        assert failed.value.retryable  # a 529
        again = await cs.read_steps(options, STEPS)
        assert [s.status for s in again.steps] == ["done", "done", "done", "cut"]
        assert again.steps[3].prompt_text == CUT_NOTE.format(id="flaky")
        assert await cs.run_step(session, again.steps[3]) == ANSWERS[3]
    stored = await store.load(_key(e2e))
    assert stored is not None
    return stored


def _answer_entries(entries: list[dict[str, Any]]) -> list[int]:
    """Where each step's answer lands: the assistant entry whose text block is the answer
    (found by the scripted text, not by the rules under test)."""
    found = []
    for answer in ANSWERS:
        (index,) = [
            i
            for i, e in enumerate(entries)
            if e.get("type") == "assistant"
            and any(b.get("text") == answer for b in e["message"]["content"])
        ]
        found.append(index)
    return found


async def test_steps_on_the_real_cli(e2e: E2E) -> None:
    store = MemoryStore()
    stored = await _run_job(e2e, store)
    session_id = cs.session_id_for(KEY)

    # The CLI keeps the uuids the steps were sent with (attempt 0; the flaky step's 1 too).
    uuids = {e.get("uuid") for e in stored}
    for step in STEPS:
        assert step_uuid(session_id, step.id, 0) in uuids
    assert step_uuid(session_id, "flaky", 1) in uuids

    progress = await cs.read_steps(_options(e2e, store), STEPS)
    assert progress.finished
    assert progress.answers == ANSWERS
    assert [s.attempts for s in progress.steps] == [1, 1, 1, 2]

    # Every prefix: done exactly from the entry holding the answer on.
    lands = _answer_entries(stored)
    prompts = {
        step.id: min(
            i for i, e in enumerate(stored) if e.get("uuid") == step_uuid(session_id, step.id, 0)
        )
        for step in STEPS
    }
    for n in range(len(stored) + 1):
        cut = cs.step_progress(stored[:n], session_id=session_id, steps=STEPS)
        for state, land in zip(cut.steps, lands, strict=True):
            expected = "done" if n > land else "cut" if n > prompts[state.step.id] else "todo"
            assert state.status == expected, (n, state)
            if expected == "done":
                assert state.answer == ANSWERS[state.index]

    if os.environ.get("CLAUDE_SDK_RECORD_STEPS") == "1":
        _record(stored, e2e)


def _record(stored: list[dict[str, Any]], e2e: E2E) -> None:
    """Write the transcript for the unit tests, without the request records and with each
    attachment's payload cut to its type (tens of kB, nothing a step reads), and with the
    machine's paths replaced."""
    FIXTURE.mkdir(parents=True, exist_ok=True)
    kept = []
    for entry in stored:
        if entry.get("type") in ("api-request-shape", "api-request-blob"):
            continue
        entry = dict(entry)
        if isinstance(entry.get("attachment"), dict):
            entry["attachment"] = {"type": entry["attachment"].get("type")}
            for name in ("rendered", "renderedRole", "renderedBesideToolResult"):
                entry.pop(name, None)
        kept.append(entry)
    text = "".join(json.dumps(e, sort_keys=False) + "\n" for e in kept)
    slug = history.project_slug(os.path.realpath(e2e.cwd))
    for old, new in (
        (slug, "-home-user-job"),
        (os.path.realpath(e2e.cwd), "/home/user/job"),
        (str(e2e.home), "/home/user"),
    ):
        text = text.replace(old, new)
    version = e2e.cli.rsplit("cli-", 1)[-1].split("/", 1)[0]
    (FIXTURE / f"job_{version}.jsonl").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("where", ["prompt", "tool_use", "tool_result"])
async def test_a_step_cut_there_resumes_from_the_store_with_its_prompt_once(
    e2e: E2E, where: str
) -> None:
    full = await _run_job(e2e, MemoryStore())
    session_id = cs.session_id_for(KEY)
    tool_prompt = step_uuid(session_id, "tool", 0)
    start = next(i for i, e in enumerate(full) if e.get("uuid") == tool_prompt)

    def block(entry: dict[str, Any]) -> str | None:
        content = entry.get("message", {}).get("content")
        return content[0].get("type") if isinstance(content, list) and content else None

    if where == "prompt":
        end = start + 1
    else:
        end = next(i for i in range(start, len(full)) if block(full[i]) == where) + 1
    store = MemoryStore()
    await store.append(_key(e2e), copy.deepcopy(full[:end]))

    # Another machine: an empty HOME, the store alone.
    other = e2e.home.parent / f"home-{where}"
    other.mkdir()
    options = _options(e2e, store, env={"HOME": str(other)})
    progress = await cs.read_steps(options, STEPS)
    assert [s.status for s in progress.steps] == ["done", "cut", "todo", "todo"]
    e2e.api.reply(text="answer tool, finished")
    before = len(e2e.api.main_requests)
    async with cs.open_session(options, transport=e2e.transport()) as session:
        with anyio.fail_after(60):
            answers = [await cs.run_step(session, s) for s in progress.steps[:2]]
    assert answers == [ANSWERS[0], "answer tool, finished"]
    assert len(e2e.api.main_requests) == before + 1  # the done step was not sent
    sent = json.dumps(e2e.api.main_requests[-1].messages)
    assert sent.count("STEP-tool: run echo") == 1  # the prompt once: the note asks to go on
    assert sent.count("Continue step tool:") == 1
    assert sent.count("STEP-think") == 1

    after = await cs.read_steps(options, STEPS)
    assert [s.status for s in after.steps] == ["done", "done", "todo", "todo"]
    assert after.steps[1].answer == "answer tool, finished"
    assert after.steps[1].attempts == 2
