"""`claude_sdk.steps`: which steps of a job a transcript shows finished, and what runs next.

* A transcript the real CLI 2.1.330 wrote (``tests/data/steps/``, recorded by
  ``tests/e2e/test_steps_e2e.py``): over every prefix, a step is done exactly from the entry
  that holds its answer on.
* Property tests over transcripts generated in the CLI's shapes (a response per block,
  thinking first; tool rounds; ``max_tokens`` continued by a meta prompt; the CLI's
  synthetic messages; attempts cut anywhere, the resumed CLI's "No response requested.";
  prompts that are no step's): every prefix is judged as an oracle that saw the generation
  judges it; and a job run by the steps' own decisions, killed at arbitrary points, ends
  with every step answered exactly once and no uuid sent twice.
* `read_steps` from a store (and its failures, typed), from the CLI's file (a torn line
  skipped); `run_step` through a `FakeCLI` (the uuid it sends, a done step not sent, an
  error result, a second send refused). Bad input is an `OptionsError`.
"""

from __future__ import annotations

import json
import os
import pickle
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.steps import CUT_NOTE, FINAL_STOP_REASONS, StepState, step_uuid
from claude_sdk.stores import MemoryStore, SessionKey
from claude_sdk.testing import FakeCLI, ScriptedCLI

from .support.deep import deep

KEY = "steps-e2e"  # the recorded job's key
SID = cs.session_id_for(KEY)
RECORDED = Path(__file__).resolve().parent / "data" / "steps" / "job_2.1.330.jsonl"
RECORDED_STEPS = [
    cs.Step("think", "STEP-think: think, then answer."),
    cs.Step("tool", "STEP-tool: run echo, then answer."),
    cs.Step("long", "STEP-long: a long answer."),
    cs.Step("flaky", "STEP-flaky: answer."),
]
RECORDED_ANSWERS = ["answer think", "answer tool", "answer long", "answer flaky"]


def recorded() -> list[dict[str, Any]]:
    return [json.loads(line) for line in RECORDED.read_text(encoding="utf-8").splitlines()]


def statuses(progress: cs.StepProgress) -> list[str]:
    return [s.status for s in progress.steps]


# --------------------------------------------------------------------------------------
# The real CLI's transcript


def test_the_recorded_transcript_every_prefix() -> None:
    entries = recorded()
    lands = []
    for answer in RECORDED_ANSWERS:  # where each answer is, found by its text
        (index,) = [
            i
            for i, e in enumerate(entries)
            if e["type"] == "assistant"
            and any(b.get("text") == answer for b in e["message"]["content"])
        ]
        lands.append(index)
    firsts = [
        min(i for i, e in enumerate(entries) if e.get("uuid") == step_uuid(SID, s.id, 0))
        for s in RECORDED_STEPS
    ]
    seen = set()
    for n in range(len(entries) + 1):
        progress = cs.step_progress(entries[:n], session_id=SID, steps=RECORDED_STEPS)
        expected = [
            "done" if n > land else "cut" if n > first else "todo"
            for land, first in zip(lands, firsts, strict=True)
        ]
        assert statuses(progress) == expected, n
        seen.add(tuple(expected))
        for state in progress.done:
            assert state.answer == RECORDED_ANSWERS[state.index]
    # The cuts that matter were met: mid-tool-call, the max_tokens half, the API error.
    assert ("done", "cut", "todo", "todo") in seen
    assert ("done", "done", "cut", "todo") in seen
    assert ("done", "done", "done", "cut") in seen
    full = cs.step_progress(entries, session_id=SID, steps=RECORDED_STEPS)
    assert full.finished
    assert full.answers == RECORDED_ANSWERS
    assert [s.attempts for s in full.steps] == [1, 1, 1, 2]


def test_what_a_cut_step_sends() -> None:
    entries = recorded()
    flaky = next(i for i, e in enumerate(entries) if e.get("uuid") == step_uuid(SID, "flaky", 1))
    progress = cs.step_progress(entries[:flaky], session_id=SID, steps=RECORDED_STEPS)
    state = progress.steps[3]
    assert (state.status, state.attempts) == ("cut", 1)
    assert state.prompt_uuid == step_uuid(SID, "flaky", 1)
    assert state.prompt_text == CUT_NOTE.format(id="flaky")
    message = state.message
    assert message is not None
    assert (message.uuid, message.text) == (state.prompt_uuid, state.prompt_text)
    # "{prompt}" sends the prompt again instead.
    again = cs.step_progress(
        entries[:flaky], session_id=SID, steps=RECORDED_STEPS, cut_note="{prompt}"
    )
    assert again.steps[3].prompt_text == "STEP-flaky: answer."
    # A step never sent is sent as written, with attempt 0's uuid.
    fresh = cs.step_progress([], session_id=SID, steps=RECORDED_STEPS)
    assert [(s.prompt_text, s.prompt_uuid) for s in fresh.steps] == [
        (s.prompt, step_uuid(SID, s.id, 0)) for s in RECORDED_STEPS
    ]
    assert not fresh.started
    assert progress.started


def test_step_uuids_are_stable_and_distinct() -> None:
    made = {step_uuid(SID, step, attempt) for step in ("1", "2", "a/b") for attempt in range(5)}
    assert len(made) == 15
    assert step_uuid(SID, "1", 0) == step_uuid(SID, "1", 0)
    assert step_uuid(SID, "1", 0) != step_uuid(cs.session_id_for("other"), "1", 0)
    # Ids holding the separator of a naive join do not collide.
    assert step_uuid(SID, "a/b", 0) != step_uuid(SID, "a", 0)


def test_plain_prompts_are_steps_numbered_from_1() -> None:
    progress = cs.step_progress([], session_id=SID, steps=["first", "second"])
    assert [s.step for s in progress.steps] == [cs.Step("1", "first"), cs.Step("2", "second")]


# --------------------------------------------------------------------------------------
# Generated transcripts, in the CLI's shapes


@attrs.define
class Writer:
    """Appends entries as CLI 2.1.330 writes them (chained user/assistant/attachment
    entries; state entries without a uuid in between), and keeps what an oracle needs."""

    session_id: str
    entries: list[dict[str, Any]] = attrs.field(factory=list)
    last: str | None = None  # the chain's latest uuid
    counter: int = 0

    def _uuid(self) -> str:
        self.counter += 1
        return f"00000000-0000-4000-8000-{self.counter:012d}"

    def chained(self, kind: str, **fields: Any) -> dict[str, Any]:
        entry = {
            "parentUuid": self.last,
            "isSidechain": False,
            "type": kind,
            "sessionId": self.session_id,
            "uuid": fields.pop("uuid", None) or self._uuid(),
            **fields,
        }
        self.last = entry["uuid"]
        return entry

    def state(self, kind: str) -> dict[str, Any]:
        return {"type": kind, "sessionId": self.session_id}

    def prompt(self, text: str, uuid: str | None = None) -> dict[str, Any]:
        message = {"role": "user", "content": text}
        return self.chained("user", message=message, uuid=uuid, promptId="p")

    def block(self, kind: str, text: str, stop: str | None, message_id: str) -> dict[str, Any]:
        block: dict[str, Any] = {"type": kind}
        if kind == "text":
            block["text"] = text
        elif kind == "thinking":
            block.update(thinking=text, signature="sig")
        else:
            block.update(id=f"toolu_{message_id}", name="Bash", input={"command": "echo"})
        message = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-5-5",
            "content": [block],
            "stop_reason": stop,
        }
        return self.chained("assistant", message=message)

    def tool_result(self, text: str = "ok") -> dict[str, Any]:
        content = [{"tool_use_id": "toolu_x", "type": "tool_result", "content": text}]
        return self.chained("user", message={"role": "user", "content": content}, promptId="p")

    def synthetic(self, text: str, *, api_error: bool) -> dict[str, Any]:
        message = {
            "id": self._uuid(),
            "model": "<synthetic>",
            "role": "assistant",
            "stop_reason": "stop_sequence",
            "content": [{"type": "text", "text": text}],
        }
        return self.chained("assistant", message=message, isApiErrorMessage=api_error)


@attrs.define
class Item:
    """One entry of a generated turn; ``answer``: the text the step's answer is once this
    entry is stored (set on the final response's text blocks)."""

    entry: dict[str, Any]
    answer: str | None = None


def turn(
    draw: Callable[..., Any],
    w: Writer,
    uuid: str | None,
    text: str,
    answer: str,
    *,
    may_fail: bool = True,
) -> tuple[list[Item], bool]:
    """One turn, as entries to append in order; and whether it ends in an API error."""
    items = [Item(w.state("queue-operation")), Item(w.prompt(text, uuid))]
    items += [Item(w.chained("attachment")) for _ in range(draw(st.integers(0, 2)))]
    ids = iter(range(10**6))

    def response(kinds: list[str], stop: str, final_text: str = "") -> list[Item]:
        message_id = f"msg_{w.counter}_{next(ids)}"
        made = []
        for i, kind in enumerate(kinds):
            body = final_text if kind == "text" and i == len(kinds) - 1 else f"part {i}"
            entry = Item(w.block(kind, body, stop, message_id))
            made.append(entry)
        return made

    for _ in range(draw(st.integers(0, 2))):  # tool rounds
        kinds = draw(
            st.sampled_from([["tool_use"], ["thinking", "tool_use"], ["text", "tool_use"]])
        )
        items += response(kinds, "tool_use")
        items.append(Item(w.tool_result()))
        if draw(st.booleans()):
            items.append(Item(w.state("tools-used")))
    if may_fail and draw(st.integers(0, 4)) == 0:  # the API fails: the CLI writes its own message
        items.append(Item(w.synthetic("API Error: 529 Overloaded", api_error=True)))
        return items, True
    if draw(st.integers(0, 3)) == 0:  # max_tokens: the CLI asks the model to go on
        items += response(["text"], "max_tokens")
        items.append(
            Item(w.chained("user", message={"role": "user", "content": "go on"}, isMeta=True))
        )
    kinds = draw(st.sampled_from([["text"], ["thinking", "text"], ["text", "text"]]))
    stop = draw(st.sampled_from(sorted(FINAL_STOP_REASONS)))
    final = response(kinds, stop, answer)
    for item in final:
        if item.entry["message"]["content"][0]["type"] == "text":
            # The answer so far: a response cut between two text blocks is answered with the
            # first (the transcript cannot tell; `ResultMessage.text` is the last block).
            item.answer = item.entry["message"]["content"][0]["text"]
    items += final
    items.append(Item(w.state("last-prompt")))
    return items, False


def resume_preamble(w: Writer) -> list[dict[str, Any]]:
    """What the resumed CLI adds when its transcript ends mid-turn (seen with CLI 2.1.330)."""
    chained = [e for e in w.entries if "uuid" in e and e["type"] in ("user", "assistant")]
    if not chained:
        return []
    last = chained[-1]
    added = []
    content = last["message"]["content"]
    if last["type"] == "assistant" and content[0]["type"] == "tool_use":
        added.append(w.tool_result("[Tool call interrupted: the session ended before it ran]"))
        added.append(w.synthetic("No response requested.", api_error=False))
    elif last["type"] == "user":
        added.append(w.synthetic("No response requested.", api_error=False))
    return added


@st.composite
def transcripts(draw: Callable[..., Any]) -> tuple[list[dict[str, Any]], list[cs.Step], list[Any]]:
    """A whole job's transcript: each step run in attempts (cut anywhere before its answer,
    or ended by an API error) until one answers; sometimes a prompt that is no step's.

    Returns (entries, steps, oracle): ``oracle[i]`` is, per step, None or the answer the
    step has once entries ``[:i+1]`` are stored."""
    count = draw(st.integers(1, 4))
    steps = [cs.Step(f"s{i}", f"do step {i}") for i in range(count)]
    w = Writer(SID)
    answers: list[list[tuple[int, str]]] = [[] for _ in steps]  # (entry index, answer so far)
    for index, step in enumerate(steps):
        attempt = tries = 0
        while True:
            uuid = step_uuid(SID, step.id, attempt)
            last = tries >= 3  # attempts end: the generated job finishes
            items, failed = turn(draw, w, uuid, step.prompt, f"answer {index}", may_fail=not last)
            if not failed and not last and draw(st.integers(0, 2)) == 0:  # killed before the answer
                firsts = [i for i, it in enumerate(items) if it.answer is not None]
                items = items[: draw(st.integers(0, firsts[0]))]
            for item in items:
                w.entries.append(item.entry)
                if item.answer is not None:
                    answers[index].append((len(w.entries) - 1, item.answer))
            if answers[index]:
                break
            tries += 1
            # As a new read numbers it: after the attempts whose prompts were stored.
            stored = {e.get("uuid") for e in w.entries}
            attempt = sum(step_uuid(SID, step.id, a) in stored for a in range(tries + 1))
            w.entries += resume_preamble(w)
        if draw(st.integers(0, 3)) == 0:  # the user's own prompt, answered, in between
            items, _ = turn(draw, w, None, "something else", "not a step's answer")
            w.entries += [it.entry for it in items]
    oracle = []
    for i in range(len(w.entries)):
        row = []
        for landed in answers:
            got = [a for at, a in landed if at <= i]
            row.append(got[-1] if got else None)
        oracle.append(row)
    return w.entries, steps, oracle


@settings(max_examples=deep(100), deadline=None)
@given(transcripts())
def test_every_prefix_of_a_generated_transcript(
    generated: tuple[list[dict[str, Any]], list[cs.Step], list[Any]],
) -> None:
    entries, steps, oracle = generated
    for n in range(len(entries) + 1):
        progress = cs.step_progress(entries[:n], session_id=SID, steps=steps)
        expected = oracle[n - 1] if n else [None] * len(steps)
        prompts = {e.get("uuid") for e in entries[:n]}
        for state, answer in zip(progress.steps, expected, strict=True):
            attempts = sum(step_uuid(SID, state.step.id, a) in prompts for a in range(20))
            assert state.attempts == attempts
            if answer is not None:
                assert (state.status, state.answer) == ("done", answer), (n, state)
                assert state.message is None
            else:
                assert state.status == ("cut" if attempts else "todo"), (n, state)
                assert state.prompt_uuid not in prompts  # the CLI would drop it
        assert progress.finished == all(a is not None for a in expected)


@st.composite
def killed_runs(draw: Callable[..., Any]) -> tuple[int, list[int]]:
    return draw(st.integers(1, 4)), draw(st.lists(st.integers(0, 40), max_size=6))


@settings(max_examples=deep(150), deadline=None)
@given(st.data(), killed_runs())
def test_a_job_killed_anywhere_answers_each_step_once(
    data: st.DataObject, plan: tuple[int, list[int]]
) -> None:
    """Workers run the job by the steps' decisions (as `run_step` would) and are killed after
    a drawn number of stored entries; a new worker reads the transcript and goes on."""
    count, kills = plan
    steps = [cs.Step(f"s{i}", f"do step {i}") for i in range(count)]
    w = Writer(SID)
    answered = [0] * count  # final answers written per step: must end at exactly 1
    answers: dict[int, str] = {}
    budgets = iter(kills)
    for _ in range(50):
        progress = cs.step_progress(w.entries, session_id=SID, steps=steps)
        if progress.finished:
            break
        budget = next(budgets, None)  # entries this worker stores before it dies
        w.entries += resume_preamble(w)
        stored = 0
        for state in progress.todo:
            assert state.prompt_uuid is not None
            assert state.prompt_text is not None
            items, failed = turn(
                data.draw,
                w,
                state.prompt_uuid,
                state.prompt_text,
                f"answer {state.index}",
                may_fail=state.attempts < 3,
            )
            killed = False
            counted = False
            for item in items:
                if budget is not None and stored >= budget:
                    killed = True
                    break
                w.entries.append(item.entry)
                stored += 1
                if item.answer is not None:
                    answers[state.index] = item.answer
                    if not counted:
                        answered[state.index] += 1
                        counted = True
            if killed or failed:
                break  # the worker died, or run_step raised: a new read decides
    progress = cs.step_progress(w.entries, session_id=SID, steps=steps)
    assert progress.finished
    assert answered == [1] * count
    assert progress.answers == [answers[i] for i in range(count)]
    uuids = [e["uuid"] for e in w.entries if "uuid" in e]
    assert len(uuids) == len(set(uuids))
    # A cut step was never sent as written again: its prompt text is in the transcript once.
    for step in steps:
        sent = [
            e for e in w.entries if e["type"] == "user" and e["message"]["content"] == step.prompt
        ]
        assert len(sent) == 1


def test_the_cli_s_own_messages_and_other_prompts_are_no_answer() -> None:
    w = Writer(SID)
    w.entries.append(w.prompt("do it", step_uuid(SID, "1", 0)))
    w.entries.append(w.synthetic("No response requested.", api_error=False))
    w.entries.append(w.synthetic("API Error: 500", api_error=True))
    w.entries.append(w.prompt("what else?"))  # not the step's: what follows is not its answer
    w.entries.append(w.block("text", "an answer to the other prompt", "end_turn", "m1"))
    progress = cs.step_progress(w.entries, session_id=SID, steps=["do it"])
    assert statuses(progress) == ["cut"]
    # A thinking block alone (its text not stored), a refusal, a sidechain entry.
    w = Writer(SID)
    w.entries.append(w.prompt("do it", step_uuid(SID, "1", 0)))
    w.entries.append(w.block("thinking", "hmm", "end_turn", "m1"))
    assert statuses(cs.step_progress(w.entries, session_id=SID, steps=["do it"])) == ["cut"]
    side = w.block("text", "a subagent's answer", "end_turn", "m2")
    side["isSidechain"] = True
    w.entries.append(side)
    assert statuses(cs.step_progress(w.entries, session_id=SID, steps=["do it"])) == ["cut"]
    w.entries.append(w.block("text", "I can't help with that.", "refusal", "m3"))
    progress = cs.step_progress(w.entries, session_id=SID, steps=["do it"])
    assert (statuses(progress), progress.answers) == (["done"], ["I can't help with that."])
    # Entries that are no objects, messages that are no objects: skipped.
    junk: list[Any] = [None, 3, "x", {"type": "assistant", "message": "x"}, *w.entries]
    assert statuses(cs.step_progress(junk, session_id=SID, steps=["do it"])) == ["done"]


# --------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("steps", "words"),
    [
        (["a", "a"], None),  # plain prompts: ids "1", "2", fine
        ([cs.Step("x", "a"), cs.Step("x", "b")], "two steps have the id 'x'"),
        (["a", cs.Step("1", "b")], "two steps have the id '1'"),
        ([3], "steps[0] is a int"),
        ("abc", "not str"),
        (None, "not NoneType"),
    ],
)
def test_bad_steps_are_options_errors(steps: Any, words: str | None) -> None:
    if words is None:
        cs.step_progress([], session_id=SID, steps=steps)
        return
    with pytest.raises(cs.OptionsError, match=re.escape(words)) as raised:
        cs.step_progress([], session_id=SID, steps=steps)
    assert raised.value.option == "steps"
    assert not raised.value.retryable


@pytest.mark.parametrize(
    ("make", "option"),
    [
        (lambda: cs.Step("", "p"), "id"),
        (lambda: cs.Step(3, "p"), "id"),  # type: ignore[arg-type]
        (lambda: cs.Step("a", " "), "prompt"),
        (lambda: cs.Step("a", None), "prompt"),  # type: ignore[arg-type]
        (lambda: cs.step_progress([], session_id="not-a-uuid", steps=[]), "session_id"),
        (lambda: cs.step_progress([], session_id=SID, steps=["a"], cut_note="{nope}"), "cut_note"),
        (lambda: cs.step_progress([], session_id=SID, steps=["a"], cut_note="{"), "cut_note"),
        (lambda: cs.step_progress([], session_id=SID, steps=["a"], cut_note=""), "cut_note"),
    ],
)
def test_bad_values_are_options_errors(make: Callable[[], object], option: str) -> None:
    with pytest.raises(cs.OptionsError) as raised:
        make()
    assert raised.value.option == option


async def test_options_must_name_the_session() -> None:
    for options, option in (
        (cs.Options(), "resume"),
        (cs.Options(resume="a title, not an id"), "resume"),
        (cs.Options(continue_conversation=True), "resume"),
        (cs.Options(resume=SID, fork_session=True), "fork_session"),
    ):
        with pytest.raises(cs.OptionsError) as raised:
            await cs.read_steps(options, ["a"])
        assert raised.value.option == option
    with pytest.raises(cs.OptionsError):  # bad steps fail before the store is read
        await cs.read_steps(cs.Options(session_store=FailingStore()).resume_or_start(KEY), [1])  # type: ignore[list-item]


# --------------------------------------------------------------------------------------
# read_steps: from a store, from the CLI's file


def key_for(cwd: Path, project_key: str | None = None) -> SessionKey:
    slug = history.project_slug(os.path.realpath(cwd))
    return {"project_key": project_key or slug, "session_id": SID}


async def test_read_steps_from_a_store(tmp_path: Path) -> None:
    store = MemoryStore()
    entries = recorded()
    cut = next(i for i, e in enumerate(entries) if e.get("uuid") == step_uuid(SID, "long", 0))
    await store.append(key_for(tmp_path), entries[: cut + 2])
    options = cs.Options(cwd=str(tmp_path), session_store=store, diskless=True)
    progress = await cs.read_steps(options.resume_or_start(KEY), RECORDED_STEPS)
    assert statuses(progress) == ["done", "done", "cut", "todo"]
    assert progress.answers == RECORDED_ANSWERS[:2]
    assert progress.session_id == SID
    # store_project_key names the store's project, whatever the cwd.
    await store.append(key_for(tmp_path, "tenant-7"), entries)
    tenant = cs.Options(cwd=str(tmp_path), session_store=store, store_project_key="tenant-7")
    assert (await cs.read_steps(tenant.resume_or_start(KEY), RECORDED_STEPS)).finished
    # Nothing stored, nothing on disk: every step to do.
    empty = cs.Options(cwd=str(tmp_path), session_store=MemoryStore(), env={"HOME": str(tmp_path)})
    progress = await cs.read_steps(empty.resume_or_start(KEY), RECORDED_STEPS)
    assert statuses(progress) == ["todo"] * 4


def write_cli_file(tmp_path: Path, upto: int) -> Path:
    """The recorded transcript's first ``upto`` lines and a torn one, where the CLI keeps
    it for the working directory ``tmp_path`` under ``<tmp_path>/home``; that HOME."""
    entries = recorded()
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / history.project_slug(os.path.realpath(tmp_path))
    project.mkdir(parents=True)
    lines = [json.dumps(e) for e in entries[:upto]]
    torn = json.dumps(entries[upto])[:25]  # a crash cut the line being written
    (project / f"{SID}.jsonl").write_text("\n".join([*lines, torn]), encoding="utf-8")
    return home


async def test_read_steps_from_the_cli_s_file_skips_a_torn_line(tmp_path: Path) -> None:
    entries = recorded()
    cut = next(i for i, e in enumerate(entries) if e.get("uuid") == step_uuid(SID, "tool", 0))
    home = write_cli_file(tmp_path, cut + 1)
    options = cs.Options(cwd=str(tmp_path), env={"HOME": str(home)}).resume_or_start(KEY)
    assert statuses(await cs.read_steps(options, RECORDED_STEPS)) == ["done", "cut", "todo", "todo"]
    # With a store that has nothing, the CLI's file is what a resume reads, so it counts.
    stored = attrs.evolve(options, session_store=MemoryStore())
    assert statuses(await cs.read_steps(stored, RECORDED_STEPS)) == ["done", "cut", "todo", "todo"]
    # Diskless: the CLI's files here are not the session's.
    diskless = attrs.evolve(stored, diskless=True)
    assert statuses(await cs.read_steps(diskless, RECORDED_STEPS)) == ["todo"] * 4


@attrs.define
class FailingStore:
    """A store whose ``load`` fails as told."""

    answer: Any = None
    error: BaseException | None = None
    hang: bool = False

    async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
        raise AssertionError("read_steps never appends")

    async def load(self, key: SessionKey) -> Any:
        if self.hang:
            await anyio.sleep_forever()
        if self.error is not None:
            raise self.error
        return self.answer


@pytest.mark.parametrize(
    ("store", "retryable", "words"),
    [
        (FailingStore(error=ConnectionError("refused")), True, "ConnectionError: refused"),
        (FailingStore(hang=True), True, "no answer within 0.05 s"),
        (FailingStore(answer={"not": "a list"}), False, "other than a list"),
        (FailingStore(answer=[["not", "an object"]]), False, "other than a list"),
    ],
    ids=["error", "timeout", "dict", "list-of-lists"],
)
async def test_a_failing_store_is_a_session_store_error(
    store: FailingStore, retryable: bool, words: str
) -> None:
    options = cs.Options(session_store=store, session_store_load_timeout=0.05)
    with pytest.raises(cs.SessionStoreError, match=words) as raised:
        await cs.read_steps(options.resume_or_start(KEY), ["a"])
    assert raised.value.retryable is retryable
    assert raised.value.operation == "load"
    assert raised.value.key["session_id"] == SID


# --------------------------------------------------------------------------------------
# run_step


@attrs.define
class Seen:
    prompts: list[tuple[str | None, str]] = attrs.field(factory=list)


def scripted(seen: Seen, *, error_on: int | None = None) -> Callable[[ScriptedCLI], Any]:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        async for prompt in cli.iter_prompts():
            seen.prompts.append((prompt.uuid, prompt.text))
            if len(seen.prompts) == error_on:
                await cli.turn(text="API Error: 529", is_error=True, api_error_status=529)
            else:
                await cli.turn(text=f"answer to {prompt.text}")

    return script


async def test_run_step_sends_the_step_s_uuid_and_skips_a_done_step() -> None:
    entries = recorded()
    cut = next(i for i, e in enumerate(entries) if e.get("uuid") == step_uuid(SID, "long", 0))
    progress = cs.step_progress(entries[:cut], session_id=SID, steps=RECORDED_STEPS)
    seen = Seen()
    async with cs.open_session(transport=FakeCLI(scripted(seen))) as session:
        answers = [await cs.run_step(session, state) for state in progress.steps]
    assert answers == [
        *RECORDED_ANSWERS[:2],
        "answer to STEP-long: a long answer.",
        "answer to STEP-flaky: answer.",
    ]
    assert seen.prompts == [  # the done steps were not sent
        (step_uuid(SID, "long", 0), "STEP-long: a long answer."),
        (step_uuid(SID, "flaky", 0), "STEP-flaky: answer."),
    ]


async def test_run_step_raises_on_an_error_result_and_refuses_a_second_send() -> None:
    progress = cs.step_progress([], session_id=SID, steps=["one"])
    state: StepState = progress.steps[0]
    seen = Seen()
    async with cs.open_session(transport=FakeCLI(scripted(seen, error_on=1))) as session:
        with pytest.raises(cs.ResultError) as failed:
            await cs.run_step(session, state)
        assert failed.value.retryable
        with pytest.raises(cs.OptionsError, match="read_steps again") as again:
            await cs.run_step(session, state)
        assert again.value.option == "state"
        # The next attempt's state (as read_steps gives it after the failure) goes through.
        cut = attrs.evolve(state, status="cut", attempts=1, prompt_uuid=step_uuid(SID, "1", 1))
        assert await cs.run_step(session, cut) == "answer to one"
    assert [u for u, _ in seen.prompts] == [step_uuid(SID, "1", 0), step_uuid(SID, "1", 1)]


def test_steps_and_states_pickle() -> None:
    """Engines ship them between processes (Ray, Dask)."""
    entries = recorded()
    cut = next(i for i, e in enumerate(entries) if e.get("uuid") == step_uuid(SID, "tool", 0))
    progress = cs.step_progress(entries[: cut + 1], session_id=SID, steps=RECORDED_STEPS)
    assert pickle.loads(pickle.dumps(progress)) == progress
    assert statuses(progress) == ["done", "cut", "todo", "todo"]
