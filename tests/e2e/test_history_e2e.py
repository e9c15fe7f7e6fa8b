"""`claude_sdk.history` on the sessions the real CLI writes (offline, FakeMessagesAPI).

Sessions written by real runs are listed, read, renamed, tagged, forked, resumed and deleted;
what this module writes is read back by the CLI itself (the title reaches the hooks as
``session_title``, the tag is carried on, a fork resumes with its earlier turns).

``CLAUDE_SDK_RECORD_HISTORY=1`` makes `test_the_fixture_scenario` rewrite the unit tests'
fixture, ``tests/data/history/config`` (scrubbed, see ``tests/data/history/README.md``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.hooks import HookContext, UserPromptSubmitInput
from claude_sdk.testing.fake_api import RecordedRequest

from .conftest import E2E

FIXTURES = Path(__file__).resolve().parent.parent / "data" / "history"
FIXTURE_CWD = "/home/user/demo"
FIXTURE_HOME = "/home/user"


async def allow(
    name: str, tool_input: dict[str, Any], context: cs.ToolPermissionContext
) -> cs.PermissionResult:
    return cs.PermissionAllow()


def config(e2e: E2E) -> Path:
    return e2e.home / ".claude"


def is_subagent(request: RecordedRequest) -> bool:
    return "SUBTASK" in json.dumps(request.messages[:1])


def is_main(request: RecordedRequest) -> bool:
    return not is_subagent(request)


def lines(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


async def tool_session(e2e: E2E) -> str:
    """Two turns, the first with a Bash call, then a rename through the control request."""
    e2e.api.reply(tool_use=("Bash", {"command": "echo hi > f.txt", "description": "Write f.txt"}))
    e2e.api.reply(text="wrote the file")
    e2e.api.reply(text="second answer")
    async with cs.open_session(e2e.options(can_use_tool=allow)) as session:
        for prompt in ("make a file", "and again"):
            await session.send(prompt)
            async for _ in session.receive_response():
                pass
        await session.rename_session("Fixture title")
        assert session.session_id is not None
        return session.session_id


async def subagent_session(e2e: E2E, **options: Any) -> str:
    """The model runs a (foreground) subagent, which calls Bash (``options``: more options)."""
    agent_input = {
        "description": "List files",
        "prompt": "SUBTASK: list the files",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    e2e.api.reply(tool_use=("Agent", agent_input), when=is_main)
    e2e.api.reply(tool_use=("Bash", {"command": "ls", "description": "List"}), when=is_subagent)
    e2e.api.reply(text="subagent: f.txt", when=is_subagent)
    e2e.api.reply(text="the subagent saw f.txt", when=is_main)
    reply = await cs.ask("use a subagent", options=e2e.options(can_use_tool=allow, **options))
    assert reply.text == "the subagent saw f.txt"
    assert reply.session_id
    return reply.session_id


async def text_session(e2e: E2E, prompt: str = "remember 42", answer: str = "noted") -> str:
    e2e.api.reply(text=answer)
    reply = await cs.ask(prompt, options=e2e.options())
    assert reply.session_id
    return reply.session_id


async def test_the_fixture_scenario(e2e: E2E, anyio_backend: str, claude_cli_version: str) -> None:
    tool_id = await tool_session(e2e)
    agent_session = await subagent_session(e2e)
    e2e.api.reply(text="forked answer")
    forked = await cs.ask("fork turn", options=e2e.options(resume=tool_id, fork_session=True))
    cli_fork_id = forked.session_id
    assert cli_fork_id is not None
    assert cli_fork_id != tool_id

    infos = {i.session_id: i for i in history.list_sessions(e2e.cwd, config_dir=config(e2e))}
    assert set(infos) == {tool_id, agent_session, cli_fork_id}
    tool = infos[tool_id]
    assert tool.title == tool.custom_title == "Fixture title"
    assert tool.first_prompt == "make a file"
    assert tool.last_prompt == "and again"
    # A real transcript with tool calls is longer than the two ends a listing reads (the
    # request records are tens of kB): the count needs a whole reading.
    assert tool.size > 2 * history.HEAD_TAIL_BYTES
    assert tool.message_count is None
    whole = history.session_info(tool_id, e2e.cwd, config_dir=config(e2e), window=None)
    assert whole.message_count == 6  # prompt, tool_use, tool_result, text, prompt, text
    assert attrs.evolve(tool, message_count=6) == whole
    assert tool.cwd == str(e2e.cwd.resolve())
    assert tool.version == claude_cli_version  # the version the CLI wrote in its transcript
    assert tool.created <= tool.modified
    assert infos[cli_fork_id].title == "Fixture title"  # the CLI's fork keeps the title
    fork = history.session_info(cli_fork_id, e2e.cwd, config_dir=config(e2e), window=None)
    assert fork.message_count == 8
    assert attrs.evolve(infos[cli_fork_id], message_count=8) == fork

    entries = history.read_session(tool_id, e2e.cwd, config_dir=config(e2e))
    users = [e for e in entries if isinstance(e, history.UserEntry)]
    assistants = [e for e in entries if isinstance(e, history.AssistantEntry)]
    assert users[0].text == "make a file"
    assert users[1].is_tool_result
    tool_use = assistants[0].content[0]
    assert isinstance(tool_use, cs.ToolUseBlock)
    assert tool_use.name == "Bash"
    assert [a.text for a in assistants[1:]] == ["wrote the file", "second answer"]
    assert all(e.session_id == tool_id for e in entries)
    messages = history.session_messages(tool_id, e2e.cwd, config_dir=config(e2e))
    assert [type(m).__name__ for m in messages] == ["UserMessage", "AssistantMessage"] * 3

    (sub,) = history.list_subagent_transcripts(agent_session, e2e.cwd, config_dir=config(e2e))
    assert sub.agent_type == "general-purpose"
    assert sub.description == "List files"
    assert sub.first_prompt == "SUBTASK: list the files"
    agent_call = [
        b
        for e in history.read_session(agent_session, e2e.cwd, config_dir=config(e2e))
        if isinstance(e, history.AssistantEntry)
        for b in e.content
        if isinstance(b, cs.ToolUseBlock)
    ]
    assert [b.name for b in agent_call] == ["Agent"]
    assert sub.tool_use_id == agent_call[0].id
    sub_entries = history.read_subagent_transcript(
        agent_session, sub.agent_id, e2e.cwd, config_dir=config(e2e)
    )
    first = sub_entries[0]
    assert isinstance(first, history.UserEntry)
    assert first.text == "SUBTASK: list the files"
    assert first.is_sidechain is True
    assert first.agent_id == sub.agent_id
    sub_texts = [e.text for e in sub_entries if isinstance(e, history.AssistantEntry) and e.text]
    assert sub_texts == ["subagent: f.txt"]
    assert assert_transcripts_typed(config(e2e)) > 100  # subagents' and the fork's too

    if os.environ.get("CLAUDE_SDK_RECORD_HISTORY") == "1" and anyio_backend == "asyncio":
        record_fixtures(e2e, [tool_id, agent_session, cli_fork_id])


async def test_a_fork_is_what_the_cli_forks_and_resumes_with_the_earlier_turns(
    e2e: E2E,
) -> None:
    source = await tool_session(e2e)
    source_path = history.session_path(source, e2e.cwd, config_dir=config(e2e))
    before = source_path.read_bytes()

    fork_id = history.fork_session(source, e2e.cwd, config_dir=config(e2e))
    assert fork_id != source
    ours = lines(history.session_path(fork_id, e2e.cwd, config_dir=config(e2e)))
    assert all(o.get("sessionId") == fork_id for o in ours if "sessionId" in o)

    # The CLI's own fork (one more turn on top) copies the same entries the same way.
    e2e.api.reply(text="the CLI's fork")
    cli = await cs.ask("cli fork", options=e2e.options(resume=source, fork_session=True))
    assert cli.session_id is not None
    theirs = lines(history.session_path(cli.session_id, e2e.cwd, config_dir=config(e2e)))
    our_chain = [o for o in ours if "uuid" in o]
    their_chain = [o for o in theirs if "uuid" in o][: len(our_chain)]
    assert [o["uuid"] for o in our_chain] == [o["uuid"] for o in their_chain]
    for mine, cli_entry in zip(our_chain, their_chain, strict=True):
        # promptId is the only other difference: the CLI sets its new turn's on copies
        skip = {"sessionId", "promptId"}
        assert {k: v for k, v in mine.items() if k not in skip} == {
            k: v for k, v in cli_entry.items() if k not in skip
        }

    titles: list[str | None] = []

    def seen(hook_input: UserPromptSubmitInput, context: HookContext) -> cs.HookOutput:
        titles.append(hook_input.session_title)
        return cs.HookOutput()

    hooks = {"UserPromptSubmit": [cs.HookMatcher(hooks=[seen])]}
    e2e.api.reply(text="resumed the fork")
    reply = await cs.ask("next", options=e2e.options(resume=fork_id, hooks=hooks))
    assert reply.session_id == fork_id
    assert reply.text == "resumed the fork"
    assert titles == ["Fixture title"]
    sent = json.dumps(e2e.api.main_requests[-1].messages)
    for earlier in ("make a file", "echo hi > f.txt", "wrote the file", "second answer"):
        assert earlier in sent
    assert source_path.read_bytes() == before  # the original is untouched

    listed = [i.session_id for i in history.list_sessions(e2e.cwd, config_dir=config(e2e))]
    assert set(listed) == {source, fork_id, cli.session_id}
    assert listed[0] == fork_id  # the newest first
    resumed = history.session_messages(fork_id, e2e.cwd, config_dir=config(e2e))
    assert isinstance(resumed[-1], cs.AssistantMessage)
    assert resumed[-1].text == "resumed the fork"
    assert assert_transcripts_typed(config(e2e))


async def test_the_cli_reads_back_a_rename_and_a_tag(e2e: E2E) -> None:
    session_id = await text_session(e2e)
    history.rename_session(session_id, "Renamed on disk", e2e.cwd, config_dir=config(e2e))
    history.tag_session(session_id, "keep", e2e.cwd, config_dir=config(e2e))

    titles: list[str | None] = []

    def seen(hook_input: UserPromptSubmitInput, context: HookContext) -> cs.HookOutput:
        titles.append(hook_input.session_title)
        return cs.HookOutput()

    hooks = {"UserPromptSubmit": [cs.HookMatcher(hooks=[seen])]}
    e2e.api.reply(text="it was 42")
    await cs.ask("what was it?", options=e2e.options(resume=session_id, hooks=hooks))
    assert titles == ["Renamed on disk"]
    info = history.session_info(session_id, e2e.cwd, config_dir=config(e2e))
    assert (info.title, info.tag, info.last_prompt) == ("Renamed on disk", "keep", "what was it?")

    # The CLI carries the session's state into its own fork: it read the tag too.
    e2e.api.reply(text="forked")
    options = e2e.options(resume=session_id, fork_session=True)
    cli_fork = (await cs.ask("fork", options=options)).session_id
    assert cli_fork is not None
    entries = history.read_session(cli_fork, e2e.cwd, config_dir=config(e2e))
    assert [e.tag for e in entries if isinstance(e, history.TagEntry)][-1] == "keep"
    forked = history.session_info(cli_fork, e2e.cwd, config_dir=config(e2e))
    assert (forked.title, forked.tag) == ("Renamed on disk", "keep")

    history.tag_session(session_id, None, e2e.cwd, config_dir=config(e2e))
    assert history.session_info(session_id, e2e.cwd, config_dir=config(e2e)).tag is None
    assert assert_transcripts_typed(config(e2e))


async def test_a_deleted_session_is_gone_for_the_cli_too(e2e: E2E) -> None:
    session_id = await text_session(e2e)
    assert [i.session_id for i in history.list_sessions(e2e.cwd, config_dir=config(e2e))] == [
        session_id
    ]
    history.delete_session(session_id, e2e.cwd, config_dir=config(e2e))
    assert history.list_sessions(e2e.cwd, config_dir=config(e2e)) == []
    with pytest.raises(cs.SessionNotFoundError) as info:
        history.read_session(session_id, e2e.cwd, config_dir=config(e2e))
    assert info.value.session_id == session_id
    with pytest.raises(cs.SessionNotFoundError) as resumed:
        await cs.ask("hi", options=e2e.options(resume=session_id))
    assert resumed.value.session_id == session_id
    with pytest.raises(cs.SessionNotFoundError):
        history.fork_session(str(uuid.uuid4()), e2e.cwd, config_dir=config(e2e))


# ------------------------------------------------------------------------------------------
# Listing every project, git worktrees, paging


def git(*args: str, cwd: Path) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True, timeout=30)


def assert_transcripts_typed(config_dir: Path) -> int:
    """Every line of every transcript under ``config_dir`` decodes and keeps what it held;
    returns how many lines. (What the model does not know of them, strict drift, goes to the
    one report of test_drift_report.py: the e2e fixture collects it for every scenario.)"""
    count = 0
    for path in sorted((config_dir / "projects").rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            data = json.loads(line)
            entry = history.decode_entry(data)
            assert entry.raw == data, (path.name, data.get("type"))
            count += 1
    return count


async def two_turns(e2e: E2E, cwd: Path, *prompts: str) -> str:
    for prompt in prompts:
        e2e.api.reply(text=f"answer to {prompt}")
    async with cs.open_session(e2e.options(cwd=str(cwd))) as session:
        for prompt in prompts:
            await session.send(prompt)
            async for _ in session.receive_response():
                pass
        assert session.session_id is not None
        return session.session_id


def make_projects(root: Path) -> tuple[Path, Path, Path]:
    """A repository (branch ``main``), a worktree of it (``feature``), and a directory
    outside any repository; real paths."""
    repo = root / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    (repo / "README").write_text("x\n")
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "first", cwd=repo)
    worktree = root / "repo-feature"
    git("worktree", "add", "-q", "-b", "feature", str(worktree), cwd=repo)
    other = root / "other"
    other.mkdir()
    return repo.resolve(), worktree.resolve(), other.resolve()


async def test_listing_every_project_and_a_repositorys_worktrees_in_pages(e2e: E2E) -> None:
    repo, worktree, other = make_projects(e2e.cwd)

    first = await two_turns(e2e, repo, "first in repo", "more in repo")  # the longest file
    elsewhere = await two_turns(e2e, other, "in another project")
    in_worktree = await two_turns(e2e, worktree, "in the worktree")
    last = await two_turns(e2e, repo, "last in repo")
    newest_first = [last, in_worktree, elsewhere, first]
    conf = config(e2e)
    history.rename_session(elsewhere, "Elsewhere", config_dir=conf)
    history.tag_session(first, "keep", config_dir=conf)

    everything = history.list_all_sessions(config_dir=conf)
    assert [i.session_id for i in everything] == newest_first  # a rename or tag is no change
    expected = {
        first: (repo, "main", "first in repo", "more in repo"),
        elsewhere: (other, "HEAD", "in another project", "in another project"),
        in_worktree: (worktree, "feature", "in the worktree", "in the worktree"),
        last: (repo, "main", "last in repo", "last in repo"),
    }
    for info in everything:
        cwd, branch, first_prompt, last_prompt = expected[info.session_id]
        assert info.cwd == str(cwd)
        assert (info.git_branch, info.first_prompt, info.last_prompt) == (
            branch,
            first_prompt,
            last_prompt,
        )
        assert info.path.parent == history.project_dir(cwd, config_dir=conf)
        # Head and tail give what the whole file gives; the count needs the whole file.
        whole = history.session_info(info.session_id, config_dir=conf, window=None)
        assert whole.message_count == (4 if info.session_id == first else 2)
        long = info.size > 2 * history.HEAD_TAIL_BYTES
        assert info.message_count == (None if long else whole.message_count)
        assert attrs.evolve(info, message_count=whole.message_count) == whole
    assert (everything[2].title, everything[3].tag) == ("Elsewhere", "keep")
    # The two-turn transcript read at its ends only (16 KiB of each, not the middle): the
    # same answers (its second turn, title and tag are in the tail, its first in the head).
    ends = history.session_info(first, config_dir=conf, window=16 * 1024)
    assert ends.size > 2 * 16 * 1024
    assert ends.message_count is None
    assert attrs.evolve(ends, message_count=4) == history.session_info(
        first, config_dir=conf, window=None
    )

    # Pages: limit and offset, or the cursor.
    page = history.list_all_sessions(config_dir=conf, limit=3)
    assert page == everything[:3]
    assert history.list_all_sessions(config_dir=conf, limit=3, after=page[-1]) == everything[3:]
    assert history.list_all_sessions(config_dir=conf, limit=3, offset=3) == everything[3:]
    assert history.list_all_sessions(config_dir=conf, offset=4) == []

    # A repository's listing has its worktrees' sessions, from either worktree.
    for cwd in (repo, worktree):
        listed = history.list_sessions(cwd, config_dir=conf)
        assert [i.session_id for i in listed] == [last, in_worktree, first]
        assert history.list_sessions(cwd, config_dir=conf, limit=1, offset=1) == listed[1:2]
    own = history.list_sessions(repo, config_dir=conf, include_worktrees=False)
    assert [i.session_id for i in own] == [last, first]
    assert [i.session_id for i in history.list_sessions(other, config_dir=conf)] == [elsewhere]
    assert history.read_session(in_worktree, repo, config_dir=conf)  # found through git

    # What the CLIs wrote is typed whole: the six bookkeeping kinds included.
    assert assert_transcripts_typed(conf) > 50
    kinds = {
        type(e).__name__
        for i in everything
        for e in history.read_session(i.session_id, config_dir=conf)
    }
    assert {
        "APIRequestEntry",
        "APIRequestShapeEntry",
        "APIRequestBlobEntry",
        "CostStateEntry",
        "AtisLatchEntry",
    } <= kinds


# ------------------------------------------------------------------------------------------
# Recording the unit tests' fixture

#: Entry kinds left out of the fixture: the request bodies the CLI keeps (tens of kB each).
DROPPED_KINDS = {"api-request-shape", "api-request-blob"}
#: Longer strings keep their first `KEEP` characters, longer lists their first `KEEP_ITEMS`.
LONG_STRING = 200
KEEP = 80
LONG_LIST = 4
KEEP_ITEMS = 3
#: Values that describe the machine rather than the format.
MACHINE_VALUES = {"osVersion": "Linux"}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
AGENT_ID = re.compile(r"\ba[0-9a-f]{16}\b")
FAKE_IDS = re.compile(r"\b(msg|req)_fake_[0-9a-f]+\b")
CLI_TMP = re.compile(r"/tmp/claude-\d+/")


class Scrubber:
    """Deterministic ids and no machine paths: the same scenario gives the same fixture."""

    def __init__(self, e2e: E2E, session_ids: list[str]) -> None:
        cwd = os.path.realpath(e2e.cwd)
        self.paths = [
            (cwd, FIXTURE_CWD),
            (str(e2e.cwd), FIXTURE_CWD),
            (history.project_slug(cwd), history.project_slug(FIXTURE_CWD)),
            (str(e2e.home), FIXTURE_HOME),
        ]
        self.ids: dict[str, str] = {
            sid: f"5e550000-0000-4000-8000-{n:012d}" for n, sid in enumerate(session_ids, 1)
        }
        self.agents: dict[str, str] = {}
        self.fakes: dict[str, str] = {}
        self.tmp = str(e2e.home.parent)

    def text(self, text: str) -> str:
        for old, new in self.paths:
            text = text.replace(old, new)
        text = CLI_TMP.sub("/tmp/claude-1000/", text)
        text = UUID.sub(
            lambda m: self._map(self.ids, m[0], "00000000-0000-4000-8000-{:012d}"), text
        )
        text = AGENT_ID.sub(lambda m: self._map(self.agents, m[0], "a{:016x}"), text)
        text = FAKE_IDS.sub(lambda m: self._map(self.fakes, m[0], m[1] + "_fake_{:024d}"), text)
        assert self.tmp not in text, "a machine path is left in the fixture"
        return text

    @staticmethod
    def _map(table: dict[str, str], key: str, pattern: str) -> str:
        if key not in table:
            table[key] = pattern.format(len(table) + 1)
        return table[key]


def trimmed(value: Any) -> Any:
    if isinstance(value, str) and len(value) > LONG_STRING:
        return f"{value[:KEEP]}... [{len(value) - KEEP} characters trimmed]"
    if isinstance(value, list):
        return [trimmed(v) for v in value[: KEEP_ITEMS if len(value) > LONG_LIST else None]]
    if isinstance(value, dict):
        return {k: MACHINE_VALUES.get(k) or trimmed(v) for k, v in value.items()}
    return value


def session_files(project: Path, session_id: str) -> Iterator[Path]:
    yield project / f"{session_id}.jsonl"
    side = project / session_id
    if side.is_dir():
        yield from sorted(p for p in side.rglob("*") if p.is_file())


def record_fixtures(e2e: E2E, session_ids: list[str]) -> None:
    project = history.project_dir(e2e.cwd, config_dir=config(e2e))
    scrub = Scrubber(e2e, session_ids)
    target_root = FIXTURES / "config"
    shutil.rmtree(target_root, ignore_errors=True)
    target = target_root / "projects" / history.project_slug(FIXTURE_CWD)
    for session_id in session_ids:
        for path in session_files(project, session_id):
            relative = scrub.text(str(path.relative_to(project)))
            out = target / relative
            out.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".jsonl":
                kept = [
                    json.loads(scrub.text(json.dumps(o, ensure_ascii=False)))
                    for o in lines(path)
                    if o.get("type") not in DROPPED_KINDS
                ]
                text = "".join(
                    json.dumps(trimmed(o), ensure_ascii=False, separators=(",", ":")) + "\n"
                    for o in kept
                )
                out.write_text(text, encoding="utf-8")
            else:
                out.write_text(scrub.text(path.read_text(encoding="utf-8")), encoding="utf-8")
