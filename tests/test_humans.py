"""Durable human-in-the-loop (issue 31, item 2): a question for a person suspends the session
(the turn ends cleanly, the question is kept with the session), and `claude_sdk.answer`
resumes it later, from another session, with the person's answer.

The real CLI: ``tests/e2e/test_humans_e2e.py`` (a host process that exits, another that
answers). Here: `FakeCLI`, whose turn ends as the real CLI's does when a permission is denied
with ``interrupt`` (``aborted_tools``), over a `MemoryStore`, a `DirectoryStore` and no
store (this machine's file).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

import claude_sdk as cs
from claude_sdk._session.suspend import local_file
from claude_sdk.errors import classify_result
from claude_sdk.humans import PENDING_SUBPATH
from claude_sdk.query import reply_of
from claude_sdk.stores import DirectoryStore, MemoryStore, SessionKey
from claude_sdk.testing import FakeCLI, ScriptedCLI, ToolCall

pytestmark = pytest.mark.anyio

CWD = "/tmp/claude-sdk-humans-test"
QUESTIONS = {
    "questions": [
        {
            "question": "Which colour should the button be?",
            "header": "Colour",
            "options": [
                {"label": "Blue", "description": "calm"},
                {"label": "Red", "description": "loud"},
            ],
            "multiSelect": False,
        },
        {
            "question": "Which sizes?",
            "header": "Sizes",
            "options": [
                {"label": "S", "description": "small"},
                {"label": "L", "description": "large"},
            ],
            "multiSelect": True,
        },
    ]
}
ANSWERS = {"Which colour should the button be?": "Blue", "Which sizes?": ["S", "L"]}
RM = {"command": "rm -rf build/"}


def _options(tmp_path: Path, store: Any = None, **kwargs: Any) -> cs.Options:
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    return cs.Options(
        cwd=CWD,
        env={"HOME": str(home)},
        session_store=store,
        can_use_tool=cs.suspend_for_a_person,
        **kwargs,
    )


def _asking(call: ToolCall, *, first: str | None = "hello") -> Any:
    """A script: an ordinary first turn (so the session is stored), then a turn whose tool
    call asks the SDK."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        if first is not None:
            await cli.next_prompt()
            await cli.turn(first)
        await cli.next_prompt()
        await cli.turn("never reached", tools=[call])
        await cli.serve_until_stdin_closes()

    return script


def _answering(seen: list[cs.UserMessage], reply: str = "done", tools: Any = ()) -> Any:
    """A script for the resumed session: records the prompt it gets, then answers."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        seen.append(await cli.next_prompt())
        await cli.turn(reply, tools=list(tools))
        await cli.serve_until_stdin_closes()

    return script


def _asks_then_hears(seen: list[cs.UserMessage], reply: str) -> Any:
    """A script for one open session: a turn that asks the user, then the answer's turn."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn("x", tools=[ToolCall("AskUserQuestion", QUESTIONS, ask=True)])
        seen.append(await cli.next_prompt())
        await cli.turn(reply)
        await cli.serve_until_stdin_closes()

    return script


async def _suspend(options: cs.Options, call: ToolCall) -> tuple[cs.Reply, FakeCLI]:
    fake = FakeCLI(_asking(call))
    async with cs.open_session(options, transport=fake) as session:
        await session.send("first")
        [m async for m in session.receive_response()]
        prompt = await session.send("make the button")
        seen = [m async for m in session.receive_response(prompt)]
    return reply_of(seen, options), fake


async def test_a_question_suspends_the_turn_and_answer_resumes_it(tmp_path: Path) -> None:
    store = MemoryStore()
    options = _options(tmp_path, store)
    reply, fake = await _suspend(options, ToolCall("AskUserQuestion", QUESTIONS, ask=True))
    pending = reply.suspended
    assert pending is not None
    # The turn ended cleanly: no exception, the result marked, the kind says why.
    assert reply.result.terminal_reason == "aborted_tools"
    assert reply.result.suspended is pending
    assert classify_result(reply.result) == "suspended"
    assert pending.kind == "question"
    assert pending.tool_name == "AskUserQuestion"
    assert pending.session_id == fake.clis[0].session_id
    assert [q.question for q in pending.questions] == list(ANSWERS)
    assert pending.questions[1].multi_select is True
    assert pending.question_texts == tuple(ANSWERS)
    # Kept with the session in its store, before the result was handed out.
    key: SessionKey = {
        "project_key": pending.project_key,
        "session_id": pending.session_id,
        "subpath": PENDING_SUBPATH,
    }
    [record] = await store.load(key) or []
    assert cs.PendingQuestion.from_record(record) == pending
    assert await cs.pending_question(pending.session_id, options=options) == pending

    # Later, another session (any host that reaches the store) answers it.
    seen: list[cs.UserMessage] = []
    answered = await cs.answer(
        pending.session_id,
        ANSWERS,
        options=options,
        transport=FakeCLI(_answering(seen, "Blue it is, in S and L")),
    )
    assert answered.text == "Blue it is, in S and L"
    assert answered.suspended is None
    [prompt] = seen
    assert prompt.uuid == pending.answer_uuid
    assert '"Which colour should the button be?"="Blue"' in prompt.text
    assert '"Which sizes?"="S, L"' in prompt.text
    # Answered: the transcript holds the answer, so it is pending no more, anywhere.
    assert await cs.pending_question(pending.session_id, options=options) is None
    with pytest.raises(cs.QuestionNotPendingError) as caught:
        await cs.answer(pending, ANSWERS, options=options, transport=FakeCLI())
    assert caught.value.reason == "answered"
    assert caught.value.question_id == pending.id
    assert caught.value.kind == "not_pending"


async def test_ask_returns_the_suspended_reply(tmp_path: Path) -> None:
    """`ask` (and its retry) hand back a suspended turn; they never raise or retry it."""
    options = _options(tmp_path, MemoryStore(), retry=cs.RetryPolicy(max_attempts=3))

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn("x", tools=[ToolCall("Bash", RM, ask=True)])
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    reply = await cs.ask("clean up", options=options, transport=fake)
    assert reply.suspended is not None
    assert reply.suspended.kind == "permission"
    assert reply.suspended.tool_input == RM
    assert reply.attempts == ()
    assert len(fake.clis) == 1


async def test_a_permission_allowed_runs_that_call_once(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "store")
    options = _options(tmp_path, store)
    reply, _ = await _suspend(options, ToolCall("Bash", RM, ask=True))
    pending = reply.suspended
    assert pending is not None
    assert pending.kind == "permission"
    assert pending.questions == ()

    # The model makes the same call again: allowed without asking can_use_tool (which
    # would suspend again); a different call is still asked, and suspends.
    seen: list[cs.UserMessage] = []
    calls = [ToolCall("Bash", RM, output="removed", ask=True)]
    answered = await cs.answer(
        pending.session_id,
        allow=True,
        message="ok, it is a build folder",
        options=options,
        transport=FakeCLI(_answering(seen, "cleaned", calls)),
    )
    assert answered.text == "cleaned"
    assert answered.suspended is None
    [prompt] = seen
    assert "allowed your Bash call" in prompt.text
    assert "ok, it is a build folder" in prompt.text

    other = {"command": "rm -rf /"}
    seen2: list[cs.UserMessage] = []
    reply2, _ = await _suspend(options, ToolCall("Bash", RM, ask=True))
    assert reply2.suspended is not None
    again = await cs.answer(
        reply2.suspended,
        allow=True,
        options=options,
        transport=FakeCLI(_answering(seen2, "x", [ToolCall("Bash", other, ask=True)])),
    )
    assert again.suspended is not None  # another input: asked, and suspended again
    assert again.suspended.tool_input == other


async def test_a_permission_denied_tells_the_model(tmp_path: Path) -> None:
    options = _options(tmp_path, MemoryStore())
    reply, _ = await _suspend(options, ToolCall("Bash", RM, ask=True))
    assert reply.suspended is not None
    seen: list[cs.UserMessage] = []
    await cs.answer(
        reply.suspended.session_id,
        allow=False,
        message="not today",
        options=options,
        transport=FakeCLI(_answering(seen)),
    )
    assert "did not allow your Bash call" in seen[0].text
    assert "not today" in seen[0].text


async def test_without_a_store_the_question_is_kept_on_this_machine(tmp_path: Path) -> None:
    options = _options(tmp_path)
    reply, _ = await _suspend(options, ToolCall("AskUserQuestion", QUESTIONS, ask=True))
    pending = reply.suspended
    assert pending is not None
    path = local_file(options, pending.session_id)
    assert path.parent.parent.parent.parent == tmp_path / "home" / ".claude" / "projects"
    assert path.stat().st_mode & 0o777 == 0o600
    [line] = path.read_text().splitlines()
    assert json.loads(line)["uuid"] == pending.id
    assert await cs.pending_question(pending.session_id, options=options) == pending


async def test_bad_answers_are_refused_and_nothing_is_sent(tmp_path: Path) -> None:
    options = _options(tmp_path, MemoryStore())
    reply, _ = await _suspend(options, ToolCall("AskUserQuestion", QUESTIONS, ask=True))
    question = reply.suspended
    assert question is not None
    reply2, _ = await _suspend(options, ToolCall("Bash", RM, ask=True))
    permission = reply2.suspended
    assert permission is not None
    bad: list[tuple[cs.PendingQuestion, dict[str, Any], str]] = [
        (question, {}, "pass answers, a dict"),
        (question, {"answers": {"Which sizes?": ["S"]}}, "answers miss 'Which colour"),
        (question, {"answers": {**ANSWERS, "Why?": "x"}}, r"not asked: 'Why\?'"),
        (question, {"answers": {**ANSWERS, "Which sizes?": []}}, "must be a non-empty"),
        (question, {"answers": {**ANSWERS, "Which sizes?": True}}, "must be a non-empty"),
        (permission, {}, "allow=True"),
        (permission, {"answers": {"a": "b"}}, "not answers"),
    ]
    for pending, kwargs, words in bad:
        fake = FakeCLI()
        with pytest.raises(cs.OptionsError, match=words):
            await cs.answer(pending, options=options, transport=fake, **kwargs)
        assert fake.clis[0].prompts == []  # nothing reached the CLI
        assert await cs.pending_question(pending.session_id, options=options) == pending
    with pytest.raises(cs.OptionsError, match="UUID"):
        await cs.answer("not-a-session", ANSWERS, options=options)


async def test_a_session_with_no_question(tmp_path: Path) -> None:
    options = _options(tmp_path, MemoryStore())
    fake = FakeCLI(replies=["hi"])
    reply = await cs.ask("hello", options=options, transport=fake)
    assert reply.suspended is None
    sid = reply.session_id
    assert sid is not None
    assert await cs.pending_question(sid, options=options) is None
    with pytest.raises(cs.QuestionNotPendingError) as caught:
        await cs.answer(sid, ANSWERS, options=options, transport=FakeCLI())
    assert caught.value.reason == "never_asked"
    assert "session_store and cwd" in str(caught.value)


async def test_the_same_session_answers_in_process(tmp_path: Path) -> None:
    """`Session.answer` goes on in the open session (no resume)."""
    options = _options(tmp_path, MemoryStore())
    seen: list[cs.UserMessage] = []
    script = _asks_then_hears(seen, "thanks")
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        with pytest.raises(cs.QuestionNotPendingError):
            await session.answer(ANSWERS)
        prompt = await session.send("make the button")
        [m async for m in session.receive_response(prompt)]
        pending = session.pending_question
        assert pending is not None
        uuid = await session.answer(ANSWERS)
        assert uuid == pending.answer_uuid
        assert session.pending_question is None
        texts = [m async for m in session.receive_response(uuid)]
    assert isinstance(texts[-1], cs.ResultMessage)
    assert texts[-1].text == "thanks"
    assert seen[0].uuid == pending.answer_uuid


@pytest.mark.parametrize("kept", ["store", "local"])
async def test_one_question_per_turn(tmp_path: Path, kept: str) -> None:
    """Two calls of one response ask at once: the first suspends, the second is denied with
    it (one question kept, in the store or in this machine's file, whose write yields)."""
    store = MemoryStore() if kept == "store" else None
    options = _options(tmp_path, store)
    order: list[str] = []

    async def callback(name: str, tool_input: dict[str, Any], ctx: Any) -> Any:
        order.append(name)
        return cs.PermissionSuspend(reason=f"{name} needs a person")

    options = attrs.evolve(options, can_use_tool=callback)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.system_init()
        both = cli.can_use_tool("Bash", RM), cli.can_use_tool("Write", {"file_path": "/x"})
        answers: list[Any] = []
        async with anyio.create_task_group() as tg:
            for request in both:

                async def one(r: Any = request) -> None:
                    answers.append(await r)

                tg.start_soon(one)
        assert [a.interrupt for a in answers] == [True, True]
        await cli.result("x", subtype="error_during_execution", terminal_reason="aborted_tools")
        await cli.serve_until_stdin_closes()

    reply = await cs.ask("go", options=options, transport=FakeCLI(script))
    assert reply.suspended is not None
    assert reply.suspended.reason == f"{reply.suspended.tool_name} needs a person"
    pending = reply.suspended
    if store is not None:
        key: SessionKey = {
            "project_key": pending.project_key,
            "session_id": pending.session_id,
            "subpath": PENDING_SUBPATH,
        }
        assert len(await store.load(key) or []) == 1
    else:
        lines = local_file(options, pending.session_id).read_text().splitlines()
        assert len(lines) == 1
    assert sorted(order) == ["Bash", "Write"]


async def test_a_question_that_cannot_be_kept_is_not_suspended(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    options = _options(tmp_path)
    blocker = tmp_path / "home" / ".claude"
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("a file where the config directory should be")
    with caplog.at_level(logging.ERROR, logger="claude_sdk.session"):
        reply, _ = await _suspend(options, ToolCall("Bash", RM, ask=True))
    assert reply.suspended is None  # not suspended: denied, and said
    assert reply.result.subtype == "success"
    assert reply.result.permission_denials
    assert any("not suspended" in r.getMessage() for r in caplog.records)


def test_the_sync_facade_answers(tmp_path: Path) -> None:
    options = _options(tmp_path, MemoryStore())
    asking = FakeCLI(_asking(ToolCall("Bash", RM, ask=True), first=None))
    reply = cs.sync.ask("clean", options=options, transport=asking)
    assert reply.suspended is not None
    seen: list[cs.UserMessage] = []
    answered = cs.sync.answer(
        reply.suspended, allow=False, options=options, transport=FakeCLI(_answering(seen))
    )
    assert answered.text == "done"
    assert "did not allow" in seen[0].text


async def test_a_session_with_no_id_yet_is_not_suspended(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A question asked before the CLI named its session could never be answered: denied,
    and said, not suspended."""

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        answer = await cli.can_use_tool("Bash", RM)  # before system/init: no id yet
        assert isinstance(answer, cs.PermissionDeny)
        assert not answer.interrupt
        await cli.result("denied")
        await cli.serve_until_stdin_closes()

    with caplog.at_level(logging.ERROR, logger="claude_sdk.session"):
        reply = await cs.ask("go", options=_options(tmp_path), transport=FakeCLI(script))
    assert reply.suspended is None
    assert any("has no id yet" in r.getMessage() for r in caplog.records)


async def test_a_pool_suspends_and_its_session_answers(tmp_path: Path) -> None:
    """`SessionPool.ask` hands back a suspended turn; the key's session answers it."""
    seen: list[cs.UserMessage] = []
    script = _asks_then_hears(seen, "Blue, S and L.")
    options = _options(tmp_path, MemoryStore())
    async with cs.SessionPool(options, transport=FakeCLI(script)) as pool:
        reply = await pool.ask("k", "make the button")
        pending = reply.suspended
        assert pending is not None
        async with pool.session("k") as session:
            assert session.pending_question == pending
            sent = await session.answer(ANSWERS, pending=pending)
            last = [m async for m in session.receive_response(sent)][-1]
    assert isinstance(last, cs.ResultMessage)
    assert last.result == "Blue, S and L."
    assert seen[0].uuid == pending.answer_uuid
