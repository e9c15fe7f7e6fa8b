"""`history.archive_session` / `unarchive_session` and `SessionInfo.archived` (issue 28, item 8).

The TypeScript SDK (``@anthropic-ai/claude-agent-sdk`` 0.3.332) is the reference: it keeps
the mark in ``<project>/<session id>/archived.json`` (``{"archived", "at", "by": "sdk"}``,
0600 in a 0700 directory) and lists a session as archived until a prompt the user typed is
dated after the mark. Where Node.js and that package are here (``tests/support/ts_sdk.py``),
its own ``archiveSession`` writes the file we compare with, and its own ``listSessions``
judges generated transcripts and marks beside ours.
"""

from __future__ import annotations

import json
import os
import re
import stat
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from claude_sdk import history
from claude_sdk.errors import SessionNotFoundError

from .support import ts_sdk
from .support.deep import deep

SESSION = "a1c0ffee-0000-4000-8000-000000000001"
AT = re.compile(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")


def _ts_sdk() -> None:
    reason = ts_sdk.missing()
    if reason is None:
        return
    if os.environ.get("CLAUDE_SDK_REQUIRE_OFFICIAL") == "1":
        pytest.fail(f"{reason} is missing")
    pytest.skip(f"{reason} is missing")


def _project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(cwd, config, project directory) for a real temporary cwd."""
    cwd = tmp_path / "work"
    cwd.mkdir(exist_ok=True)
    config = tmp_path / "config"
    directory = history.project_dir(cwd, config_dir=config)
    directory.mkdir(parents=True, exist_ok=True)
    return cwd, config, directory


def _prompt(text: str, when: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": str(uuid.uuid4()),
        "timestamp": when,
        "sessionId": SESSION,
        "message": {"role": "user", "content": text},
        **extra,
    }


def _write(directory: Path, session_id: str, *entries: dict[str, Any]) -> Path:
    path = directory / f"{session_id}.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _archived(config: Path) -> dict[str, bool]:
    return {i.session_id: i.archived for i in history.list_all_sessions(config_dir=config)}


def test_archive_writes_the_mark_the_ts_sdk_writes(tmp_path: Path) -> None:
    cwd, config, directory = _project(tmp_path)
    _write(directory, SESSION, _prompt("hello", "2024-05-01T10:00:00.000Z"))
    before = datetime.now(timezone.utc) - timedelta(seconds=1)
    history.archive_session(SESSION, cwd, config_dir=config)
    mark = directory / SESSION / "archived.json"
    assert stat.S_IMODE(mark.stat().st_mode) == 0o600
    assert stat.S_IMODE(mark.parent.stat().st_mode) == 0o700
    data = mark.read_bytes()
    record = json.loads(data)
    assert list(record) == ["archived", "at", "by"]
    assert (record["archived"], record["by"]) == (True, "sdk")
    assert AT.match(record["at"])
    assert datetime.fromisoformat(record["at"].replace("Z", "+00:00")) >= before
    assert data == json.dumps(record, separators=(",", ":")).encode()  # JSON.stringify's bytes
    [info] = history.list_sessions(cwd, config_dir=config)
    assert info.archived
    assert history.session_info(SESSION, cwd, config_dir=config).archived

    history.unarchive_session(SESSION, config_dir=config)  # found in every project
    assert json.loads(mark.read_bytes())["archived"] is False
    assert not history.list_sessions(cwd, config_dir=config)[0].archived
    history.archive_session(SESSION, config_dir=config)
    assert history.list_sessions(cwd, config_dir=config)[0].archived


def test_a_prompt_after_the_mark_unarchives(tmp_path: Path) -> None:
    cwd, config, directory = _project(tmp_path)
    path = _write(directory, SESSION, _prompt("hello", "2024-05-01T10:00:00.000Z"))
    history.archive_session(SESSION, cwd, config_dir=config)
    at = datetime.fromisoformat(
        json.loads((directory / SESSION / "archived.json").read_text())["at"].replace("Z", "+00:00")
    )
    later = _iso(at + timedelta(seconds=1))
    not_typed = [
        _prompt("the CLI's note", later, isMeta=True),
        _prompt("from the SDK", later, origin={"kind": "sdk"}),
        _prompt("<local-command-stdout>out</local-command-stdout>", later),
        _prompt("typed before the mark", _iso(at - timedelta(seconds=1))),
        {**_prompt("x", later), "message": {"content": [{"type": "tool_result", "content": "r"}]}},
        {"type": "assistant", "timestamp": later, "message": {"content": "an answer"}},
    ]
    with path.open("a") as f:
        f.writelines(json.dumps(e) + "\n" for e in not_typed)
    assert _archived(config) == {SESSION: True}
    with path.open("a") as f:
        f.write(json.dumps(_prompt("back to it", later)) + "\n")
    assert _archived(config) == {SESSION: False}
    assert not history.session_info(SESSION, config_dir=config, window=None).archived


def test_archive_marks_every_copy_and_refuses_what_is_not_there(tmp_path: Path) -> None:
    _, config, directory = _project(tmp_path)
    other = directory.parent / "-elsewhere"
    other.mkdir()
    _write(directory, SESSION, _prompt("a", "2024-05-01T10:00:00Z"))
    _write(other, SESSION, _prompt("b", "2024-05-01T10:00:00Z"))
    (other / "a1c0ffee-0000-4000-8000-000000000002.jsonl").write_bytes(b"")  # empty: no session
    history.archive_session(SESSION, config_dir=config)
    assert (directory / SESSION / "archived.json").exists()
    assert (other / SESSION / "archived.json").exists()
    with pytest.raises(SessionNotFoundError):
        history.archive_session("a1c0ffee-0000-4000-8000-000000000002", config_dir=config)
    with pytest.raises(SessionNotFoundError):
        history.unarchive_session(str(uuid.uuid4()), config_dir=config)
    with pytest.raises(ValueError, match="not a session id"):
        history.archive_session("../x", config_dir=config)


@pytest.mark.parametrize(
    "mark",
    [
        b'{"archived":"yes","at":"2024-05-01T10:00:00Z"}',
        b'{"archived":true,"at":"2024-05-01T10:00:00"}',  # no offset: not a mark
        b'{"archived":true}',
        b'{"archived":true,"at":"2024-02-30T10:00:00Z"}',
        b'{"archived":true,"at":"2024-05-01T10:00:00Z","x":NaN}',
        b"[true]",
        b"not json",
        b'{"archived":true,"at":"2024-05-01T10:00:00Z","pad":"' + b"x" * 4096 + b'"}',
    ],
)
def test_what_is_not_a_mark_archives_nothing(tmp_path: Path, mark: bytes) -> None:
    _, config, directory = _project(tmp_path)
    _write(directory, SESSION, _prompt("a", "2000-01-01T00:00:00Z"))
    (directory / SESSION).mkdir()
    (directory / SESSION / "archived.json").write_bytes(mark)
    assert _archived(config) == {SESSION: False}


# ======================================================================================
# The TypeScript SDK as the oracle


def test_the_official_ts_sdk_writes_the_same_mark(tmp_path: Path) -> None:
    _ts_sdk()
    cwd, config, directory = _project(tmp_path)
    _write(directory, SESSION, _prompt("hello", "2024-05-01T10:00:00.000Z"))
    env = {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path)}
    ts_sdk.run(
        f"await sdk.archiveSession({json.dumps(SESSION)}); console.log('null');",
        env=env,
        cwd=tmp_path,
    )
    mark = directory / SESSION / "archived.json"
    theirs = mark.read_bytes()
    their_modes = (stat.S_IMODE(mark.stat().st_mode), stat.S_IMODE(mark.parent.stat().st_mode))
    mark.unlink()
    mark.parent.rmdir()
    history.archive_session(SESSION, cwd, config_dir=config)
    ours = mark.read_bytes()
    assert their_modes == (0o600, 0o700)
    assert (stat.S_IMODE(mark.stat().st_mode), stat.S_IMODE(mark.parent.stat().st_mode)) == (
        their_modes
    )
    assert AT.match(json.loads(theirs)["at"])
    assert re.sub(rb'"at":"[^"]*"', b"", theirs) == re.sub(rb'"at":"[^"]*"', b"", ours)
    # Each reads the other's mark.
    listed = ts_sdk.run(
        "console.log(JSON.stringify(await sdk.listSessions()));", env=env, cwd=tmp_path
    )
    assert [(s["sessionId"], s.get("archived")) for s in listed] == [(SESSION, True)]
    ts_sdk.run(
        f"await sdk.unarchiveSession({json.dumps(SESSION)}); console.log('null');",
        env=env,
        cwd=tmp_path,
    )
    assert _archived(config) == {SESSION: False}


_MOMENT = datetime(2024, 5, 1, 10, 0, 0, tzinfo=timezone.utc)
_OFFSETS = st.integers(-3, 3)


def _stamp(seconds: int, form: int) -> str:
    moment = _MOMENT + timedelta(seconds=seconds)
    if form == 0:
        return _iso(moment)
    if form == 1:
        return (moment + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+02:00"
    if form == 2:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"  # six fraction digits
    if form == 3:
        return moment.astimezone().replace(tzinfo=None).isoformat()  # local time
    return ["not a time", "", "2024-05-01"][form - 4]


STAMPS = st.builds(_stamp, _OFFSETS, st.integers(0, 6))
CONTENTS = st.one_of(
    st.sampled_from(
        [
            "typed words",
            "   ",
            "<command-name>/compact</command-name>",
            "<command-message>review</command-message>",
            "<local-command-stdout>out",
            "<bash-input>ls</bash-input>",
            '<pasted_content id="ab12">\nbody\n</pasted_content id="ab12">',
            "[Request interrupted by user]",
            "\ufeff<tag> x",
        ]
    ),
    st.just([{"type": "image", "source": {}}]),
    st.just([{"type": "text", "text": "in a block"}]),
    st.just([{"type": "tool_result", "content": "r"}]),
    st.just([{"type": "text", "text": "x"}, "not a block"]),
)
FLAG_KEYS = st.sampled_from(["isMeta", "isSidechain", "isCompactSummary", "isVirtual", "persist"])
PROMPT_LINES = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("user"),
            "timestamp": STAMPS,
            "message": st.builds(dict, content=CONTENTS),
        },
        optional={
            "origin": st.sampled_from([{"kind": "human"}, {"kind": "sdk"}, None, {}]),
            "promptSource": st.sampled_from(["typed", 5]),
            "toolUseResult": st.sampled_from([None, "x"]),
            "turnOrigin": st.sampled_from(["human", "other"]),
        },
    ),
    st.tuples(FLAG_KEYS, st.sampled_from([True, False, None])).map(
        lambda kv: {
            "type": "user",
            "timestamp": _stamp(2, 0),
            "message": {"content": "flagged"},
            kv[0]: kv[1],
        }
    ),
    st.builds(
        lambda when, prompt, origin: {
            "type": "attachment",
            "timestamp": when,
            "attachment": {"type": "queued_command", "prompt": prompt, **origin},
        },
        STAMPS,
        CONTENTS,
        st.sampled_from([{}, {"origin": {"kind": "human"}}, {"origin": {"kind": "sdk"}}]),
    ),
    st.builds(lambda when: {"type": "assistant", "timestamp": when, "message": {}}, STAMPS),
)
MARKS = st.one_of(
    st.builds(
        lambda archived, seconds, form: {"archived": archived, "at": _stamp(seconds, form)},
        st.booleans() | st.just(True),
        _OFFSETS,
        st.sampled_from([0, 1, 2]),
    ),
    st.sampled_from([None, {"archived": True, "at": "2024-05-01T10:00:00"}, {"archived": 1}]),
)


@settings(
    max_examples=deep(8),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sessions=st.lists(st.tuples(st.lists(PROMPT_LINES, max_size=5), MARKS), max_size=24))
def test_archived_as_the_official_ts_sdk_lists_it(
    tmp_path: Path, sessions: list[tuple[list[dict[str, Any]], Any]]
) -> None:
    """Generated transcripts and marks: each session is archived for us exactly when the
    TypeScript SDK's ``listSessions`` says it is."""
    _ts_sdk()
    root = tmp_path / uuid.uuid4().hex
    config = root / "config"
    directory = config / "projects" / "-work-archive"
    directory.mkdir(parents=True)
    expected = {}
    for n, (lines, mark) in enumerate(sessions):
        session_id = f"a1c0ffee-0000-4000-8000-{n:012d}"
        title = {"type": "custom-title", "customTitle": f"session {n}", "sessionId": session_id}
        _write(directory, session_id, title, *lines)
        if mark is not None:
            (directory / session_id).mkdir()
            (directory / session_id / "archived.json").write_text(json.dumps(mark))
        expected[session_id] = True
    env = {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(root)}
    if "TZ" in os.environ:
        env["TZ"] = os.environ["TZ"]
    listed = ts_sdk.run(
        "console.log(JSON.stringify(await sdk.listSessions()));", env=env, cwd=tmp_path
    )
    theirs = {s["sessionId"]: bool(s.get("archived")) for s in listed}
    assert set(theirs) == set(expected)  # every session has a title: they list them all
    assert _archived(config) == theirs
    event(f"archived: {sum(theirs.values())} of {len(theirs)}")


_KINDS_OF_TEXT = [
    "typed words",
    "   ",
    "",
    "<command-name>/compact</command-name>",
    "<command-name>/x</command-name> and words",
    "<command-message>review</command-message>",
    "<local-command-stdout>out",
    "<bash-input>ls</bash-input>",
    '<pasted_content id="ab12">\nbody\n</pasted_content id="ab12">',
    '<pasted_content id="ab12">\n<tick>\n</pasted_content id="ab12">',
    "[Request interrupted by user]",
    "\ufeff<tag> x",
    "\u3000 words after a wide space",
    "<Upper>case",
]


def test_each_kind_of_line_as_the_official_ts_sdk_judges_it(tmp_path: Path) -> None:
    """Every kind of text, as a string, a text block or a queued command, with and without
    an origin: archived for us exactly when for the TypeScript SDK."""
    _ts_sdk()
    config = tmp_path / "config"
    directory = config / "projects" / "-work-kinds"
    directory.mkdir(parents=True)
    mark = json.dumps({"archived": True, "at": "2024-05-01T10:00:00.000Z"})
    later = "2024-05-01T10:00:01.000Z"
    lines: list[dict[str, Any]] = []
    for text in _KINDS_OF_TEXT:
        for origin in ({}, {"origin": {"kind": "human"}}, {"origin": {"kind": "sdk"}}):
            for content in (text, [{"type": "text", "text": text}]):
                lines.append(
                    {"type": "user", "timestamp": later, "message": {"content": content}, **origin}
                )
            attachment = {"type": "queued_command", "prompt": text, **origin}
            lines.append({"type": "attachment", "timestamp": later, "attachment": attachment})
    for n, line in enumerate(lines):
        session_id = f"a1c0ffee-0000-4000-8000-{n:012d}"
        title = {"type": "custom-title", "customTitle": f"s{n}"}
        _write(directory, session_id, title, line)
        (directory / session_id).mkdir()
        (directory / session_id / "archived.json").write_text(mark)
    env = {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path)}
    listed = ts_sdk.run(
        "console.log(JSON.stringify(await sdk.listSessions()));", env=env, cwd=tmp_path
    )
    theirs = {s["sessionId"]: bool(s.get("archived")) for s in listed}
    assert len(theirs) == len(lines)
    assert 0 < sum(theirs.values()) < len(lines)
    assert _archived(config) == theirs
