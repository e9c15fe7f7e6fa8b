"""`claude_sdk.history` on session files the real CLI 2.1.330 wrote (tests/data/history).

No CLI here: the fixture is a scrubbed copy of a real run (see its README.md); the e2e twin,
``tests/e2e/test_history_e2e.py``, checks the same operations against the CLI itself.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

import claude_sdk as cs
from claude_sdk import history, wire

FIXTURE = Path(__file__).resolve().parent / "data" / "history" / "config"
FIXTURE_PROJECT = FIXTURE / "projects" / "-home-user-demo"
TOOL = "5e550000-0000-4000-8000-000000000001"  # two turns, a Bash call, renamed
AGENT = "5e550000-0000-4000-8000-000000000002"  # ran a subagent
CLI_FORK = "5e550000-0000-4000-8000-000000000003"  # the CLI's fork of TOOL, plus a turn
AGENT_ID = "a0000000000000001"


@attrs.frozen
class Project:
    cwd: Path
    config: Path
    dir: Path

    def path(self, session_id: str) -> Path:
        return self.dir / f"{session_id}.jsonl"

    def lines(self, session_id: str) -> list[dict[str, Any]]:
        with self.path(session_id).open(encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def append(self, session_id: str, *objects: dict[str, Any], raw: bytes = b"") -> None:
        with self.path(session_id).open("ab") as f:
            f.write(b"".join(json.dumps(o).encode() + b"\n" for o in objects) + raw)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """The fixture's sessions, under the project directory of a real temporary cwd."""
    cwd = tmp_path / "demo"
    cwd.mkdir()
    config = tmp_path / "config"
    directory = history.project_dir(cwd, config_dir=config)
    shutil.copytree(FIXTURE_PROJECT, directory)
    return Project(cwd=cwd, config=config, dir=directory)


def ids(infos: list[history.SessionInfo]) -> list[str]:
    return [i.session_id for i in infos]


# ------------------------------------------------------------------------------ locations


@pytest.mark.parametrize(
    ("path", "slug"),
    [
        ("/home/user/demo", "-home-user-demo"),
        # every UTF-16 code unit that is not [A-Za-z0-9]: the emoji is two
        ("/tmp/x y.z/Ünïcode/😀", "-tmp-x-y-z--n-code---"),
        (
            "/home/user/" + "project-with-a-long-name/" * 10 + "end",
            "-home-user-" + "project-with-a-long-name-" * 7 + "project-with-a-23sk20",
        ),
        ("/home/user/" + "é" * 300, "-home-user" + "-" * 190 + "-vrmegt"),
    ],
    ids=["plain", "unicode", "long", "long-unicode"],
)
def test_project_slug_is_the_clis(path: str, slug: str) -> None:
    # Expected values from the CLI 2.1.330's own function, run with node.
    assert history.project_slug(path) == slug


def test_the_config_dir_is_the_argument_then_the_env_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert history.config_dir() == tmp_path / "home" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert history.config_dir() == tmp_path / "elsewhere"
    assert history.config_dir(tmp_path / "given") == tmp_path / "given"
    real = os.path.realpath(tmp_path / "w")
    expected = tmp_path / "elsewhere" / "projects" / history.project_slug(real)
    assert history.project_dir(tmp_path / "w") == expected


def test_project_dir_resolves_the_cwd_like_the_cli(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    config = tmp_path / "config"
    assert history.project_dir(tmp_path / "link", config_dir=config) == history.project_dir(
        real, config_dir=config
    )
    assert history.project_dir(real, config_dir=config).name == history.project_slug(
        os.path.realpath(real)
    )


def test_a_long_path_finds_the_project_of_an_older_hash(tmp_path: Path) -> None:
    cwd = tmp_path / ("x" * 250)
    config = tmp_path / "config"
    slug = history.project_slug(os.path.realpath(cwd))
    assert history.project_dir(cwd, config_dir=config).name == slug
    older = config / "projects" / (slug[:200] + "-otherhash")
    older.mkdir(parents=True)
    assert history.project_dir(cwd, config_dir=config) == older


# ------------------------------------------------------------------------------ listing


def test_list_sessions(project: Project) -> None:
    infos = history.list_sessions(project.cwd, config_dir=project.config)
    assert ids(infos) == [CLI_FORK, AGENT, TOOL]  # the newest first
    tool, agent, fork = (
        next(i for i in infos if i.session_id == s) for s in (TOOL, AGENT, CLI_FORK)
    )

    assert tool.path == project.path(TOOL)
    assert tool.size == project.path(TOOL).stat().st_size
    assert tool.title == tool.custom_title == "Fixture title"
    assert tool.first_prompt == "make a file"
    assert tool.last_prompt == "and again"
    assert tool.message_count == 6
    assert (tool.cwd, tool.git_branch, tool.version) == ("/home/user/demo", "HEAD", "2.1.330")
    assert tool.tag is None
    assert tool.summary is None
    assert tool.created.tzinfo is not None
    assert tool.created < tool.modified

    assert agent.title is None
    assert agent.first_prompt == "use a subagent"
    assert agent.message_count == 4  # the subagent's messages are in its own transcript

    assert fork.title == "Fixture title"  # the CLI's fork carries the title
    assert fork.first_prompt == "make a file"
    assert fork.message_count == 8
    assert fork.created < tool.modified  # the copied entries keep their times
    assert history.session_info(TOOL, project.cwd, config_dir=project.config) == tool


def test_list_sessions_of_a_directory_without_sessions(tmp_path: Path) -> None:
    assert history.list_sessions(tmp_path, config_dir=tmp_path / "no-config") == []


def test_only_uuid_named_transcripts_are_sessions(project: Project) -> None:
    (project.dir / "notes.jsonl").write_text("{}\n")
    (project.dir / "agent-a1b2c3.jsonl").write_text("{}\n")  # older CLIs' subagent files
    (project.dir / f"{uuid.uuid4()}.txt").write_text("")
    (project.dir / "memory").mkdir()
    assert sorted(ids(history.list_sessions(project.cwd, config_dir=project.config))) == sorted(
        [TOOL, AGENT, CLI_FORK]
    )


def test_the_title_sidecar_names_a_session_whose_transcript_does_not(project: Project) -> None:
    kept = [o for o in project.lines(TOOL) if o["type"] not in ("custom-title", "agent-name")]
    project.path(TOOL).write_text("".join(json.dumps(o) + "\n" for o in kept))
    info = history.session_info(TOOL, project.cwd, config_dir=project.config)
    assert info.title == "Fixture title"  # from <id>/custom-title.json
    shutil.rmtree(project.dir / TOOL)
    assert history.session_info(TOOL, project.cwd, config_dir=project.config).title is None


def test_summary_ai_title_and_relocation_entries(project: Project) -> None:
    project.append(
        AGENT,
        {"type": "summary", "summary": "Listed files", "leafUuid": "x"},
        {"type": "ai-title", "aiTitle": "Listing files", "sessionId": AGENT},
        {"type": "relocated", "relocatedCwd": "/home/user/moved", "sessionId": AGENT},
    )
    info = history.session_info(AGENT, project.cwd, config_dir=project.config)
    assert (info.summary, info.ai_title, info.title) == ("Listed files", *["Listing files"] * 2)
    assert info.cwd == "/home/user/moved"


# ------------------------------------------------------------------------------ reading


def test_read_session_types_every_entry(project: Project) -> None:
    entries = history.read_session(TOOL, project.cwd, config_dir=project.config)
    lines = project.lines(TOOL)
    assert len(entries) == len(lines)
    assert [e.raw for e in entries] == lines  # lossless: each entry rebuilds its line
    assert all(e.session_id == TOOL for e in entries)

    users = [e for e in entries if isinstance(e, history.UserEntry)]
    assistants = [e for e in entries if isinstance(e, history.AssistantEntry)]
    assert [u.text for u in users] == ["make a file", "", "and again"]
    assert [u.is_tool_result for u in users] == [False, True, False]
    result = users[1].message.content[0]
    assert isinstance(result, cs.ToolResultBlock)
    assert result.content == "(Bash completed with no output)"
    assert users[1].tool_use_result == {
        "stdout": "",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    assert users[1].source_tool_assistant_uuid == assistants[0].uuid
    assert users[0].parent_uuid is None
    assert users[0].prompt_source == "sdk"

    call = assistants[0].content[0]
    assert isinstance(assistants[0].message, cs.APIMessage)
    assert isinstance(call, cs.ToolUseBlock)
    assert (call.name, call.input) == (
        "Bash",
        {"command": "echo hi > f.txt", "description": "Write f.txt"},
    )
    assert [a.text for a in assistants] == ["", "wrote the file", "second answer"]
    assert assistants[1].message.usage is not None
    assert (assistants[1].request_id or "").startswith("req_fake_")

    kinds = {type(e).__name__ for e in entries}
    assert {
        "QueueOperationEntry",
        "AttachmentEntry",
        "LastPromptEntry",
        "CustomTitleEntry",
        "AgentNameEntry",
        "APIRequestEntry",
        "AtisLatchEntry",
        "ToolsUsedEntry",
        "CostStateEntry",
    } <= kinds
    attachments = [e.attachment["type"] for e in entries if isinstance(e, history.AttachmentEntry)]
    assert attachments[:2] == ["environment", "model"]
    # every kind the CLI wrote is typed (api-request-shape/-blob are not in the fixture)
    assert [e.raw for e in entries if isinstance(e, history.UnknownEntry)] == []
    title = next(e for e in entries if isinstance(e, history.CustomTitleEntry))
    assert title.custom_title == "Fixture title"


def test_unknown_and_broken_lines_never_fail_a_read(
    project: Project, caplog: pytest.LogCaptureFixture
) -> None:
    future = {"type": "x-future-entry", "sessionId": TOOL, "payload": {"a": [1, None]}}
    misfit = {"type": "assistant", "message": "not an object", "sessionId": TOOL}
    untyped = {"sessionId": TOOL, "note": "no type at all"}
    count = len(project.lines(TOOL))
    project.append(TOOL, future, misfit, untyped, raw=b'[1, 2]\nnot json\n{"type":"user","mess')
    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        entries = history.read_session(TOOL, project.cwd, config_dir=project.config)
    tail = [e for e in entries[-3:] if isinstance(e, history.UnknownEntry)]
    assert [dict(e.raw) for e in tail] == [future, misfit, untyped]
    assert tail[0].type == "x-future-entry"
    assert tail[1].error is not None  # a known kind whose shape did not fit
    assert tail[2].type is None
    assert len(entries) == count + 3
    assert sum("skipped" in r.getMessage() for r in caplog.records) == 3
    caplog.clear()
    info = history.session_info(TOOL, project.cwd, config_dir=project.config)
    assert info.message_count == 6


# ------------------------------------------------------------------------------ entry kinds

#: Lines of kinds the fixture leaves out (tens of kB each), from a real 2.1.331 transcript,
#: trimmed as the fixture is (long strings and lists cut; every key as the CLI wrote it).
REQUEST_SHAPE = {
    "type": "api-request-shape",
    "sessionId": "8f00cf75-4966-4d4a-970c-8b2a26416af3",
    "shapeHash": "15493d1549054a5544ac33e117da6f329e4914f912afc0b559b160b524cb417d",
    "timestamp": "2026-11-25T17:06:52.803Z",
    "version": "2.1.331",
    "shape": {
        "system": [
            {
                "type": "text",
                "text": "You are a Claude agent, built on Anthropic's Claude Agent SDK.",
            }
        ],
        "tools": [
            {
                "name": "Bash",
                "description": "Executes a bash command and returns its output.... [2111 trimmed]",
                "input_schema": {"type": "object", "properties": {}, "required": ["command"]},
            }
        ],
    },
}
REQUEST_BLOB = {
    "type": "api-request-blob",
    "sessionId": "8f00cf75-4966-4d4a-970c-8b2a26416af3",
    "hash": "abf51576cef02f9febe6ce6d5fa8d05853fbe6a3fb54a5a9e65783bc6270b2ea",
    "message": {
        "role": "user",
        "content": [
            {"type": "text", "text": "<system-reminder>\nAttribution for git commits... [500]"},
            {"type": "text", "text": "in other"},
        ],
    },
}


def strict_drift(entry: history.TranscriptEntry) -> list[str]:
    """`wire.drift` of an entry (the name the e2e history tests import)."""
    return wire.drift(entry)


def fixture_transcripts() -> list[Path]:
    return sorted(FIXTURE.rglob("*.jsonl"))


def test_strict_drift_finds_nothing_in_the_real_transcripts() -> None:
    kinds: set[str] = set()
    count = 0
    for path in fixture_transcripts():
        for line in path.read_bytes().splitlines():
            data = json.loads(line)
            entry = history.decode_entry(data)
            assert not isinstance(entry, history.UnknownEntry), data["type"]
            assert strict_drift(entry) == [], (path.name, data["type"])
            assert entry.raw == data
            kinds.add(data["type"])
            count += 1
    assert count > 100
    assert {"api-request", "cost-state", "atis-latch", "tools-used"} <= kinds


def test_the_request_records_are_typed(project: Project) -> None:
    entries = history.read_session(TOOL, project.cwd, config_dir=project.config)
    requests = [e for e in entries if isinstance(e, history.APIRequestEntry)]
    assistants = [e for e in entries if isinstance(e, history.AssistantEntry)]
    assert len(requests) == 3
    first = requests[0]
    assert first.params is not None
    assert first.params["model"] == assistants[0].message.model
    assert (first.query_source, first.keep, first.version) == ("sdk", 0, "2.1.330")
    assert first.tail
    assert all(len(h) == 64 for h in first.tail)
    assert first.shape_hash
    assert first.request_digest
    assert requests[1].base == first.id  # the next request builds on this one
    # each answer names the record of the request that produced it
    assert [a.request_ref for a in assistants] == [r.id for r in requests]
    assert [a.api_block_index for a in assistants] == [0, 0, 0]
    assert assistants[0].requested_model == assistants[0].message.model

    shape = history.decode_entry(REQUEST_SHAPE)
    assert isinstance(shape, history.APIRequestShapeEntry)
    assert shape.shape is not None
    assert shape.shape["tools"][0]["name"] == "Bash"
    assert shape.shape_hash == "15493d1549054a5544ac33e117da6f329e4914f912afc0b559b160b524cb417d"
    blob = history.decode_entry(REQUEST_BLOB)
    assert isinstance(blob, history.APIRequestBlobEntry)
    assert blob.message is not None
    assert (blob.hash, blob.message["role"]) == (REQUEST_BLOB["hash"], "user")
    for entry, line in ((shape, REQUEST_SHAPE), (blob, REQUEST_BLOB)):
        assert wire.drift(entry) == []
        assert entry.raw == line
        assert wire.to_dict(entry) == line


def test_the_session_state_entries_are_typed(project: Project) -> None:
    entries = history.read_session(TOOL, project.cwd, config_dir=project.config)
    latches = [e for e in entries if isinstance(e, history.AtisLatchEntry)]
    assert latches
    assert {e.atis for e in latches} == {""}
    (tools,) = [e for e in entries if isinstance(e, history.ToolsUsedEntry)]
    assert tools.tools == ["Bash"]
    (cost,) = [e for e in entries if isinstance(e, history.CostStateEntry)]
    assert cost.model_usage is not None
    (usage,) = cost.model_usage.values()
    assert isinstance(usage, cs.ModelUsage)
    assert usage.input_tokens
    assert usage.cost_usd is not None
    assert (cost.total_lines_added, cost.has_unknown_model_cost) == (0, False)
    assert cost.total_duration
    assert cost.start_time
    users = [e for e in entries if isinstance(e, history.UserEntry)]
    assert users[0].turn_origin == "sdk"
    assert users[0].turn_position == {"promptIndex": 0, "turnIndex": 1}
    assert users[1].permission_decision is not None
    assert users[1].permission_decision["decision"] == "accept"
    attachment = next(e for e in entries if isinstance(e, history.AttachmentEntry) and e.rendered)
    assert attachment.rendered_role


def test_cost_state_keys_are_the_clis(project: Project) -> None:
    (cost,) = [
        e
        for e in history.read_session(TOOL, project.cwd, config_dir=project.config)
        if isinstance(e, history.CostStateEntry)
    ]
    assert cost.total_cost_usd
    assert cost.total_api_duration is not None
    assert cost.total_api_duration_without_retries is not None
    assert wire.drift(cost) == []


def test_decode_entry_leaves_its_argument_alone() -> None:
    line = {"type": "tag", "tag": "x", "sessionId": TOOL, "future": True}
    entry = history.decode_entry(line)
    assert isinstance(entry, history.TagEntry)
    assert entry.tag == "x"
    assert entry.extra == {"future": True}
    assert line == {"type": "tag", "tag": "x", "sessionId": TOOL, "future": True}
    assert wire.to_dict(entry) == line
    assert isinstance(history.decode_entry({"type": 3}), history.UnknownEntry)


def test_session_messages_are_sdk_frames(project: Project) -> None:
    messages = history.session_messages(TOOL, project.cwd, config_dir=project.config)
    assert [type(m).__name__ for m in messages] == ["UserMessage", "AssistantMessage"] * 3
    first, call = messages[0], messages[1]
    assert isinstance(first, cs.UserMessage)
    assert first.message.content == "make a file"
    assert first.session_id == TOOL
    assert isinstance(call, cs.AssistantMessage)
    assert call.content[0].name == "Bash"  # type: ignore[union-attr]
    assert call.parent_tool_use_id is None
    last = messages[-1]
    assert isinstance(last, cs.AssistantMessage)
    assert last.text == "second answer"
    assert wire.decode(wire.encode(last)) == last


def test_conversation_follows_the_latest_branch(project: Project) -> None:
    entries = history.read_session(TOOL, project.cwd, config_dir=project.config)
    chain = history.conversation(entries)
    assert [e.uuid for e in chain] == [o["uuid"] for o in project.lines(TOOL) if "uuid" in o]
    # A rewind: a new prompt continues from the first answer; the abandoned turn drops out.
    first_answer = next(e for e in chain if isinstance(e, history.AssistantEntry) and e.text)
    branch = {
        "parentUuid": first_answer.uuid,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": "instead"},
        "uuid": str(uuid.uuid4()),
        "sessionId": TOOL,
    }
    project.append(TOOL, branch)
    entries = history.read_session(TOOL, project.cwd, config_dir=project.config)
    rewound = history.conversation(entries)
    assert rewound[-1].uuid == branch["uuid"]
    assert rewound[-2] == first_answer
    texts = [e.text for e in rewound if isinstance(e, history.UserEntry)]
    assert texts == ["make a file", "", "instead"]
    up_to = history.conversation(entries, up_to=first_answer.uuid)
    assert up_to[-1] == first_answer
    with pytest.raises(ValueError):
        history.conversation(entries, up_to=str(uuid.uuid4()))


# ------------------------------------------------------------------------------ subagents


def test_list_and_read_subagent_transcripts(project: Project) -> None:
    (info,) = history.list_subagent_transcripts(AGENT, project.cwd, config_dir=project.config)
    assert info.agent_id == AGENT_ID
    assert info.session_id == AGENT
    assert info.path == project.dir / AGENT / "subagents" / f"agent-{AGENT_ID}.jsonl"
    assert (info.agent_type, info.description, info.tool_use_id) == (
        "general-purpose",
        "List files",
        "toolu_fake_2",
    )
    assert info.meta["requestShape"] == "foreground"
    assert info.first_prompt == "SUBTASK: list the files"
    assert info.message_count == 4
    assert info.created <= info.modified

    entries = history.read_subagent_transcript(
        AGENT, AGENT_ID, project.cwd, config_dir=project.config
    )
    chain = history.conversation(entries)  # a subagent's own chain (all sidechain)
    assert chain[0] == entries[0]
    assert chain[-1] == entries[-1]
    assert [e.uuid for e in chain] == [e.uuid for e in entries if isinstance(e, history.ChainEntry)]
    users = [e for e in entries if isinstance(e, history.UserEntry)]
    assert users[0].text == "SUBTASK: list the files"
    assert all(e.is_sidechain and e.agent_id == AGENT_ID for e in users)
    assert all(e.session_id == AGENT for e in entries)
    texts = [e.text for e in entries if isinstance(e, history.AssistantEntry)]
    assert texts == ["", "subagent: f.txt"]


def test_subagents_in_nested_directories_and_sessions_without_any(project: Project) -> None:
    assert history.list_subagent_transcripts(TOOL, project.cwd, config_dir=project.config) == []
    assert history.list_subagent_transcripts(CLI_FORK, project.cwd, config_dir=project.config) == []
    nested = project.dir / AGENT / "subagents" / "workflows" / "run-1"
    nested.mkdir(parents=True)
    source = project.dir / AGENT / "subagents" / f"agent-{AGENT_ID}.jsonl"
    shutil.copy(source, nested / "agent-b1.jsonl")
    found = history.list_subagent_transcripts(AGENT, project.cwd, config_dir=project.config)
    assert sorted(i.agent_id for i in found) == [AGENT_ID, "b1"]
    assert next(i for i in found if i.agent_id == "b1").meta == {}
    assert history.read_subagent_transcript(AGENT, "b1", project.cwd, config_dir=project.config)


def test_a_missing_subagent_is_not_found(project: Project) -> None:
    with pytest.raises(cs.SessionNotFoundError) as info:
        history.read_subagent_transcript(AGENT, "a00", project.cwd, config_dir=project.config)
    assert info.value.session_id == AGENT
    assert "a00" in str(info.value)


# ------------------------------------------------------------------------------ rename, tag


def test_rename_session_writes_what_the_cli_writes(project: Project) -> None:
    history.rename_session(AGENT, "  A new name ", project.cwd, config_dir=project.config)
    assert project.lines(AGENT)[-2:] == [
        {"type": "custom-title", "customTitle": "A new name", "sessionId": AGENT},
        {"type": "agent-name", "agentName": "A new name", "sessionId": AGENT},
    ]
    sidecar = project.dir / AGENT / "custom-title.json"
    assert json.loads(sidecar.read_text()) == {"customTitle": "A new name"}
    assert sidecar.stat().st_mode & 0o777 == 0o600
    assert history.session_info(AGENT, project.cwd, config_dir=project.config).title == "A new name"
    history.rename_session(TOOL, "Second title", project.cwd, config_dir=project.config)
    assert (
        history.session_info(TOOL, project.cwd, config_dir=project.config).title == "Second title"
    )
    with pytest.raises(ValueError):
        history.rename_session(TOOL, "  ", project.cwd, config_dir=project.config)


def test_tag_session(project: Project) -> None:
    history.tag_session(TOOL, "keep", project.cwd, config_dir=project.config)
    assert project.lines(TOOL)[-1] == {"type": "tag", "tag": "keep", "sessionId": TOOL}
    assert history.session_info(TOOL, project.cwd, config_dir=project.config).tag == "keep"
    entries = history.read_session(TOOL, project.cwd, config_dir=project.config)
    assert isinstance(entries[-1], history.TagEntry)
    history.tag_session(TOOL, None, project.cwd, config_dir=project.config)
    assert project.lines(TOOL)[-1] == {"type": "tag", "tag": "", "sessionId": TOOL}
    assert history.session_info(TOOL, project.cwd, config_dir=project.config).tag is None
    with pytest.raises(ValueError):
        history.tag_session(TOOL, "", project.cwd, config_dir=project.config)


def test_an_append_after_a_torn_line_starts_a_new_line(project: Project) -> None:
    project.append(TOOL, raw=b'{"type":"assistant","mess')
    history.tag_session(TOOL, "after", project.cwd, config_dir=project.config)
    last = project.path(TOOL).read_bytes().splitlines()[-1]
    assert json.loads(last) == {"type": "tag", "tag": "after", "sessionId": TOOL}
    assert history.session_info(TOOL, project.cwd, config_dir=project.config).tag == "after"


# ------------------------------------------------------------------------------ fork


def test_fork_session_copies_like_the_clis_fork(project: Project) -> None:
    before = project.path(TOOL).read_bytes()
    fork_id = history.fork_session(TOOL, project.cwd, config_dir=project.config)
    assert str(uuid.UUID(fork_id)) == fork_id
    assert project.path(TOOL).read_bytes() == before
    assert project.path(fork_id).stat().st_mode & 0o777 == 0o600

    ours = project.lines(fork_id)
    assert all(o["sessionId"] == fork_id for o in ours)
    # The CLI's own fork of the same session (its first entries; then comes its new turn).
    our_chain = [o for o in ours if "uuid" in o]
    their_chain = [o for o in project.lines(CLI_FORK) if "uuid" in o][: len(our_chain)]
    assert len(our_chain) == 16
    for mine, theirs in zip(our_chain, their_chain, strict=True):
        skip = {"sessionId", "promptId"}  # the CLI puts its new turn's promptId on copies
        assert {k: v for k, v in mine.items() if k not in skip} == {
            k: v for k, v in theirs.items() if k not in skip
        }
    assert {o.get("requestSessionId") for o in our_chain if o["type"] == "assistant"} == {TOOL}
    state = [o for o in ours if "uuid" not in o]
    assert [o["type"] for o in state] == [
        "last-prompt",
        "custom-title",
        "agent-name",
        "atis-latch",
        "tools-used",
    ]
    assert state[0] == {
        "type": "last-prompt",
        "lastPrompt": "and again",
        "leafUuid": our_chain[-1]["uuid"],
        "sessionId": fork_id,
    }

    info = history.session_info(fork_id, project.cwd, config_dir=project.config)
    assert (info.title, info.first_prompt, info.last_prompt, info.message_count) == (
        "Fixture title",
        "make a file",
        "and again",
        6,
    )
    assert fork_id in ids(history.list_sessions(project.cwd, config_dir=project.config))


def test_fork_up_to_a_message_with_a_title(project: Project) -> None:
    entries = history.read_session(TOOL, project.cwd, config_dir=project.config)
    first_answer = next(e for e in entries if isinstance(e, history.AssistantEntry) and e.text)
    assert first_answer.uuid is not None
    fork_id = history.fork_session(
        TOOL, project.cwd, config_dir=project.config, up_to=first_answer.uuid, title="Branch"
    )
    messages = history.session_messages(fork_id, project.cwd, config_dir=project.config)
    assert isinstance(messages[-1], cs.AssistantMessage)
    assert messages[-1].text == "wrote the file"
    info = history.session_info(fork_id, project.cwd, config_dir=project.config)
    assert (info.title, info.last_prompt, info.message_count) == ("Branch", "make a file", 4)
    sidecar = project.dir / fork_id / "custom-title.json"
    assert json.loads(sidecar.read_text()) == {"customTitle": "Branch"}
    with pytest.raises(ValueError):
        history.fork_session(TOOL, project.cwd, config_dir=project.config, up_to="nope")
    with pytest.raises(ValueError):
        history.fork_session(TOOL, project.cwd, config_dir=project.config, title=" ")


def test_a_fork_of_a_fork_points_at_the_request_records(project: Project) -> None:
    history.tag_session(CLI_FORK, "twice", project.cwd, config_dir=project.config)
    fork_id = history.fork_session(CLI_FORK, project.cwd, config_dir=project.config)
    assistants = [o for o in project.lines(fork_id) if o["type"] == "assistant"]
    # copied ones keep the session the CLI named; its own turn's records are in CLI_FORK
    assert [o["requestSessionId"] for o in assistants] == [TOOL] * 3 + [CLI_FORK]
    info = history.session_info(fork_id, project.cwd, config_dir=project.config)
    assert (info.tag, info.message_count) == ("twice", 8)


def test_a_session_without_a_conversation_cannot_be_forked(project: Project) -> None:
    empty = str(uuid.uuid4())
    project.path(empty).write_text(json.dumps({"type": "tag", "tag": "x"}) + "\n")
    with pytest.raises(ValueError):
        history.fork_session(empty, project.cwd, config_dir=project.config)


# ------------------------------------------------------------------------------ delete


def test_delete_session_removes_its_files(project: Project) -> None:
    env = project.config / "session-env" / AGENT
    files = project.config / "file-history" / AGENT
    for d in (env, files):
        d.mkdir(parents=True)
        (d / "x").write_text("x")
    history.delete_session(AGENT, project.cwd, config_dir=project.config)
    assert not project.path(AGENT).exists()
    assert not (project.dir / AGENT).exists()
    assert not env.exists()
    assert not files.exists()
    assert sorted(ids(history.list_sessions(project.cwd, config_dir=project.config))) == sorted(
        [TOOL, CLI_FORK]
    )
    with pytest.raises(cs.SessionNotFoundError):
        history.delete_session(AGENT, project.cwd, config_dir=project.config)


# ------------------------------------------------------------------------------ errors


OPERATIONS: dict[str, Callable[[str, Project], object]] = {
    "session_path": lambda s, p: history.session_path(s, p.cwd, config_dir=p.config),
    "session_info": lambda s, p: history.session_info(s, p.cwd, config_dir=p.config),
    "read_session": lambda s, p: history.read_session(s, p.cwd, config_dir=p.config),
    "session_messages": lambda s, p: history.session_messages(s, p.cwd, config_dir=p.config),
    "list_subagent_transcripts": lambda s, p: history.list_subagent_transcripts(
        s, p.cwd, config_dir=p.config
    ),
    "read_subagent_transcript": lambda s, p: history.read_subagent_transcript(
        s, AGENT_ID, p.cwd, config_dir=p.config
    ),
    "rename_session": lambda s, p: history.rename_session(s, "t", p.cwd, config_dir=p.config),
    "tag_session": lambda s, p: history.tag_session(s, "t", p.cwd, config_dir=p.config),
    "fork_session": lambda s, p: history.fork_session(s, p.cwd, config_dir=p.config),
    "delete_session": lambda s, p: history.delete_session(s, p.cwd, config_dir=p.config),
}


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_missing_session_is_session_not_found(project: Project, operation: str) -> None:
    missing = str(uuid.uuid4())
    with pytest.raises(cs.SessionNotFoundError) as info:
        OPERATIONS[operation](missing, project)
    assert info.value.session_id == missing
    assert info.value.kind == "session_not_found"
    assert not project.path(missing).exists()


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize(
    "bad",
    [
        "../../../etc/passwd",
        f"../-home-user-demo/{TOOL}",
        f"{TOOL}/../{AGENT}",
        f"{TOOL}.jsonl",
        f"{TOOL}\n",
        "",
        "*",
        TOOL.replace("-", "/"),
    ],
)
def test_session_ids_that_are_not_uuids_are_refused(
    project: Project, operation: str, bad: str
) -> None:
    before = {p: p.stat().st_mtime_ns for p in project.config.rglob("*")}
    with pytest.raises(ValueError, match="not a session id"):
        OPERATIONS[operation](bad, project)
    assert {p: p.stat().st_mtime_ns for p in project.config.rglob("*")} == before


@pytest.mark.parametrize("agent_id", ["../x", "..", "a/b", "", f"../../{TOOL}", "a.jsonl"])
def test_agent_ids_that_are_not_plain_are_refused(project: Project, agent_id: str) -> None:
    with pytest.raises(ValueError, match="not an agent id"):
        history.read_subagent_transcript(AGENT, agent_id, project.cwd, config_dir=project.config)


def test_without_a_cwd_the_session_is_found_in_any_project(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(project.config))
    assert history.list_sessions() == []  # the current directory has none
    assert history.session_path(TOOL) == project.path(TOOL)
    assert history.session_info(TOOL).title == "Fixture title"
    with pytest.raises(cs.SessionNotFoundError):  # with a cwd, only that project
        history.read_session(TOOL, elsewhere)
    fork_id = history.fork_session(TOOL)
    assert history.session_path(fork_id).parent == project.dir  # beside its original
