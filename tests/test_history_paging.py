"""Listing at scale: `history.list_sessions` / `list_all_sessions` read each transcript's two
ends only, page in a total order, and survive any file.

* On the real CLI's transcripts (``tests/data/history``) and on long transcripts built from
  them, the head-and-tail reading gives what reading the whole file gives, but for
  ``message_count`` (None when the middle was not read); a value written only in the middle
  is what it misses (documented in `history.SessionInfo`).
* The bytes a listing reads are counted by the kernel (``rchar`` of ``/proc/self/io``): a
  50 MB transcript costs two windows, whatever its size.
* Pages come newest first (``modified``, then session id); ``limit``/``offset`` and the
  ``after`` cursor slice that order; the store's listing pages the same way.
* Binary garbage, one 10 MB line, a torn last line, bytes that are not UTF-8, a directory
  or a FIFO named like a transcript: listed or left out, never an exception or a hang.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tracemalloc
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import attrs
import pytest

from claude_sdk import history
from claude_sdk.stores import MemoryStore

FIXTURE = Path(__file__).resolve().parent / "data" / "history" / "config"
FIXTURE_PROJECT = FIXTURE / "projects" / "-home-user-demo"
TOOL = "5e550000-0000-4000-8000-000000000001"  # two turns, a Bash call, renamed
AGENT = "5e550000-0000-4000-8000-000000000002"  # ran a subagent
CLI_FORK = "5e550000-0000-4000-8000-000000000003"  # the CLI's fork of TOOL, plus a turn
FIXTURE_IDS = [TOOL, AGENT, CLI_FORK]
WINDOW = history.HEAD_TAIL_BYTES
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def lines(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def dumps(objects: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(o, separators=(",", ":")).encode() + b"\n" for o in objects)


def stamp(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def without_count(info: history.SessionInfo) -> history.SessionInfo:
    return attrs.evolve(info, message_count=None)


def transcript(
    session_id: str, prompt: str, when: datetime, cwd: str = "/w"
) -> list[dict[str, Any]]:
    """A minimal transcript: one prompt and its answer, at ``when``."""
    user = str(uuid.uuid4())
    return [
        {
            "type": "user",
            "message": {"role": "user", "content": prompt},
            "uuid": user,
            "parentUuid": None,
            "timestamp": stamp(when),
            "cwd": cwd,
            "gitBranch": "main",
            "version": "2.1.330",
            "sessionId": session_id,
        },
        {
            "type": "assistant",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [{"type": "text", "text": "ok"}],
            },
            "uuid": str(uuid.uuid4()),
            "parentUuid": user,
            "timestamp": stamp(when),
            "cwd": cwd,
            "sessionId": session_id,
        },
        {"type": "last-prompt", "lastPrompt": prompt, "sessionId": session_id},
    ]


@attrs.frozen
class Config:
    root: Path

    def project(self, name: str = "-w") -> Path:
        directory = self.root / "projects" / name
        directory.mkdir(parents=True, exist_ok=True)
        return directory

    def write(self, session_id: str, objects: list[dict[str, Any]], project: str = "-w") -> Path:
        path = self.project(project) / f"{session_id}.jsonl"
        path.write_bytes(dumps(objects))
        return path


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(tmp_path / "config")


@pytest.fixture
def fixture_copy(tmp_path: Path) -> Path:
    """The real CLI's sessions under ``<tmp>/config/projects/-home-user-demo``."""
    target = tmp_path / "config" / "projects" / FIXTURE_PROJECT.name
    shutil.copytree(FIXTURE_PROJECT, target)
    return target


def rchar() -> int:
    """Bytes this process has read through read-like system calls (the kernel's count)."""
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        pytest.skip("no /proc/self/io to count the bytes read")
    return int(next(line.split()[1] for line in text.splitlines() if line.startswith("rchar:")))


# ------------------------------------------------------------------------------ head and tail


@pytest.mark.parametrize("window", [WINDOW, 4096])
def test_head_and_tail_give_the_whole_files_answers_on_the_fixture(
    fixture_copy: Path, window: int
) -> None:
    for session_id in FIXTURE_IDS:
        path = fixture_copy / f"{session_id}.jsonl"
        whole = history.session_info(session_id, config_dir=fixture_copy.parent.parent, window=None)
        ends = history.session_info(
            session_id, config_dir=fixture_copy.parent.parent, window=window
        )
        assert whole.message_count
        if path.stat().st_size <= 2 * window:
            assert ends == whole  # short enough: read whole
        else:
            assert ends.message_count is None
            assert ends == without_count(whole)
    listed = history.list_all_sessions(config_dir=fixture_copy.parent.parent, window=4096)
    assert [i.session_id for i in listed] == [CLI_FORK, AGENT, TOOL]


def long_transcript(path: Path, *, middle_bytes: int) -> None:
    """The fixture's TOOL session with ``middle_bytes`` of conversation inserted after its
    first answer: copies of its own turns (new uuids, times within the session's), each
    followed by a request record as long as the CLI writes them (tens of kB)."""
    objects = lines(FIXTURE_PROJECT / f"{TOOL}.jsonl")
    cut = next(i for i, o in enumerate(objects) if o["type"] == "assistant") + 1
    turn = [o for o in objects[:cut] if o["type"] in ("user", "assistant")]
    shape = {
        "type": "api-request-shape",
        "sessionId": TOOL,
        "shapeHash": "0" * 64,
        "timestamp": objects[cut - 1]["timestamp"],
        "version": "2.1.330",
        "shape": {"system": [{"type": "text", "text": "x" * 30_000}], "tools": []},
    }
    with path.open("wb") as f:
        f.write(dumps(objects[:cut]))
        written = 0
        while written < middle_bytes:
            copies = [{**o, "uuid": str(uuid.uuid4())} for o in turn]
            chunk = dumps([*copies, shape])
            f.write(chunk)
            written += len(chunk)
        f.write(dumps(objects[cut:]))


def test_a_long_transcript_gives_the_whole_files_answers_but_the_count(tmp_path: Path) -> None:
    config = tmp_path / "config"
    project = config / "projects" / "-home-user-demo"
    project.mkdir(parents=True)
    shutil.copytree(FIXTURE_PROJECT / TOOL, project / TOOL)  # the title sidecar
    path = project / f"{TOOL}.jsonl"
    long_transcript(path, middle_bytes=3 * WINDOW)
    assert path.stat().st_size > 2 * WINDOW
    whole = history.session_info(TOOL, config_dir=config, window=None)
    (listed,) = history.list_all_sessions(config_dir=config)
    assert listed.message_count is None
    assert whole.message_count
    assert whole.message_count > 6
    assert listed == without_count(whole)
    assert (listed.first_prompt, listed.last_prompt, listed.title) == (
        "make a file",
        "and again",
        "Fixture title",
    )
    assert history.session_info(TOOL, config_dir=config) == listed


def test_what_only_the_middle_holds_is_not_seen(tmp_path: Path) -> None:
    """The documented difference: a tag written in the middle only (never re-appended to the
    tail) is seen by a whole reading, not by the listing; a title in the head only is seen
    by both unless the sidecar says otherwise (the sidecar is read before the head)."""
    config = tmp_path / "config"
    project = config / "projects" / "-home-user-demo"
    project.mkdir(parents=True)
    path = project / f"{AGENT}.jsonl"
    objects = lines(FIXTURE_PROJECT / f"{AGENT}.jsonl")
    filler = {"type": "x-filler", "sessionId": AGENT, "data": "y" * 1000}
    head_title = {"type": "custom-title", "customTitle": "In the head", "sessionId": AGENT}
    middle_tag = {"type": "tag", "tag": "in-the-middle", "sessionId": AGENT}
    path.write_bytes(
        dumps([head_title, *objects[:3]])
        + dumps([filler] * 100)
        + dumps([middle_tag])
        + dumps([filler] * 100)
        + dumps(objects[3:])
    )
    whole = history.session_info(AGENT, config_dir=config, window=None)
    ends = history.session_info(AGENT, config_dir=config, window=8192)
    assert (whole.tag, ends.tag) == ("in-the-middle", None)
    assert whole.title == ends.title == "In the head"
    (project / AGENT).mkdir()
    (project / AGENT / "custom-title.json").write_text('{"customTitle": "Renamed"}')
    assert history.session_info(AGENT, config_dir=config, window=8192).title == "Renamed"
    assert history.session_info(AGENT, config_dir=config, window=None).title == "In the head"


def test_a_tail_without_a_dated_line_takes_the_files_time(config: Config) -> None:
    """The tail holds only undated lines (as after a long cut line): ``modified`` is the
    file's time, the nearer guess than the head's last time."""
    session_id = str(uuid.uuid4())
    undated = {"type": "x-state", "sessionId": session_id, "data": "z" * 500}
    path = config.write(session_id, [*transcript(session_id, "dated", T0), *[undated] * 40])
    later = T0 + timedelta(hours=1)
    os.utime(path, (later.timestamp(), later.timestamp()))
    ends = history.session_info(session_id, config_dir=config.root, window=4096)
    whole = history.session_info(session_id, config_dir=config.root, window=None)
    assert (ends.created, ends.modified) == (T0, later)
    assert (whole.created, whole.modified) == (T0, T0)
    assert ends.first_prompt == whole.first_prompt == "dated"


def test_a_listing_reads_two_windows_of_each_transcript_whatever_its_size(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config"
    project = config / "projects" / "-home-user-demo"
    project.mkdir(parents=True)
    long_transcript(project / f"{TOOL}.jsonl", middle_bytes=50_000_000)
    for session_id in (AGENT, CLI_FORK):  # short ones: read whole (< 2 windows)
        shutil.copy(FIXTURE_PROJECT / f"{session_id}.jsonl", project)
    sizes = {p.stem: p.stat().st_size for p in project.glob("*.jsonl")}
    assert sizes[TOOL] > 50_000_000

    before = rchar()
    tracemalloc.start()
    try:
        listed = history.list_all_sessions(config_dir=config)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    read = rchar() - before

    assert [i.session_id for i in listed] == [CLI_FORK, AGENT, TOOL]
    assert listed[-1].message_count is None
    assert listed[-1].last_prompt == "and again"
    # Each short file once, the long one two windows (+1 byte), plus the title sidecar's few
    # bytes: well under the 50 MB a whole reading takes.
    budget = sizes[AGENT] + sizes[CLI_FORK] + 2 * WINDOW + 1 + 4096
    assert read <= budget, (read, budget)
    assert peak < 16 * WINDOW, peak  # what was read, and the values it gave

    before = rchar()
    history.session_info(TOOL, config_dir=config)
    assert rchar() - before <= 2 * WINDOW + 1 + 4096


# ------------------------------------------------------------------------------ paging


@pytest.fixture
def many(config: Config) -> list[str]:
    """Twelve sessions in two projects, newest first; two pairs share a time (the id orders
    them)."""
    ids = sorted(str(uuid.uuid4()) for _ in range(12))
    times = [T0 + timedelta(minutes=m) for m in (9, 9, 8, 7, 6, 5, 5, 4, 3, 2, 1, 0)]
    order = []
    for i, (session_id, when) in enumerate(zip(ids, times, strict=True)):
        config.write(session_id, transcript(session_id, f"p{i}", when), "-a" if i % 2 else "-b")
        order.append((when, session_id))
    return [session_id for _, session_id in sorted(order, reverse=True)]


def ids_of(infos: list[history.SessionInfo]) -> list[str]:
    return [i.session_id for i in infos]


def test_sessions_come_newest_first_then_by_id(config: Config, many: list[str]) -> None:
    listed = history.list_all_sessions(config_dir=config.root)
    assert ids_of(listed) == many
    keys = [(i.modified, i.session_id) for i in listed]
    assert keys == sorted(keys, reverse=True)
    assert listed[0].modified == listed[1].modified  # a tie, ordered by id
    assert listed[0].session_id > listed[1].session_id
    assert history.list_all_sessions(config_dir=config.root) == listed  # stable across calls
    assert {i.path.parent.name for i in listed} == {"-a", "-b"}


@pytest.mark.parametrize("limit", [1, 2, 5, 12, 13])
def test_limit_and_offset_slice_the_order(config: Config, many: list[str], limit: int) -> None:
    pages = []
    for offset in range(0, 14, limit):
        pages += ids_of(
            history.list_all_sessions(config_dir=config.root, limit=limit, offset=offset)
        )
    assert pages == many
    cursor_pages: list[str] = []
    page = history.list_all_sessions(config_dir=config.root, limit=limit)
    while page:
        cursor_pages += ids_of(page)
        page = history.list_all_sessions(config_dir=config.root, limit=limit, after=page[-1])
    assert cursor_pages == many


def test_paging_edges(config: Config, many: list[str]) -> None:
    root = config.root
    assert history.list_all_sessions(config_dir=root, limit=0) == []
    assert history.list_all_sessions(config_dir=root, offset=12) == []
    assert history.list_all_sessions(config_dir=root, offset=1000, limit=5) == []
    assert ids_of(history.list_all_sessions(config_dir=root, offset=11)) == many[11:]
    assert ids_of(history.list_all_sessions(config_dir=root, limit=1000)) == many
    last = history.list_all_sessions(config_dir=root)[-1]
    assert history.list_all_sessions(config_dir=root, after=last) == []
    first = history.list_all_sessions(config_dir=root, limit=1)[0]
    assert (
        ids_of(history.list_all_sessions(config_dir=root, after=first, offset=1, limit=2))
        == (many[2:4])
    )
    for bad in ({"limit": -1}, {"offset": -1}, {"window": 0}, {"window": -5}):
        with pytest.raises(ValueError):
            history.list_all_sessions(config_dir=root, **bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        history.list_sessions("/w", config_dir=root, limit=-1)
    with pytest.raises(ValueError):
        history.session_info(many[0], config_dir=root, window=0)


def test_the_cursor_neither_repeats_nor_skips_when_sessions_arrive(
    config: Config, many: list[str]
) -> None:
    root = config.root
    first = history.list_all_sessions(config_dir=root, limit=4)
    newer = str(uuid.uuid4())
    config.write(newer, transcript(newer, "new", T0 + timedelta(hours=1)))
    by_offset = history.list_all_sessions(config_dir=root, limit=4, offset=4)
    by_cursor = history.list_all_sessions(config_dir=root, limit=4, after=first[-1])
    assert ids_of(by_cursor) == many[4:8]
    assert ids_of(by_offset) == many[3:7]  # the new session shifted the offsets by one
    assert ids_of(history.list_all_sessions(config_dir=root, limit=1)) == [newer]


def test_empty_listings(tmp_path: Path, config: Config) -> None:
    assert history.list_all_sessions(config_dir=tmp_path / "nothing") == []
    config.project("-empty")
    assert history.list_all_sessions(config_dir=config.root) == []
    assert history.list_sessions(tmp_path, config_dir=config.root) == []
    (config.root / "projects" / "not-a-directory").write_text("")
    assert history.list_all_sessions(config_dir=config.root) == []


def test_one_session_in_two_projects_is_listed_once(config: Config) -> None:
    session_id = str(uuid.uuid4())
    config.write(session_id, transcript(session_id, "older copy", T0), "-a")
    config.write(session_id, transcript(session_id, "newer copy", T0 + timedelta(1)), "-b")
    (listed,) = history.list_all_sessions(config_dir=config.root)
    assert (listed.first_prompt, listed.path.parent.name) == ("newer copy", "-b")


def test_a_project_listing_is_the_all_projects_listing_of_its_sessions(
    config: Config, many: list[str]
) -> None:
    everything = history.list_all_sessions(config_dir=config.root)
    directory = history.project_dir("/a", config_dir=config.root)
    assert directory.name == "-a"
    mine = history.list_sessions("/a", config_dir=config.root)
    assert mine == [i for i in everything if i.path.parent == directory]
    assert history.list_sessions("/a", config_dir=config.root, limit=2, offset=1) == mine[1:3]


async def test_the_store_pages_like_the_files(fixture_copy: Path) -> None:
    store = MemoryStore()
    for session_id in FIXTURE_IDS:
        objects = lines(fixture_copy / f"{session_id}.jsonl")
        await store.append({"project_key": "p", "session_id": session_id}, objects)
    sessions = history.in_store(store, project_key="p")
    on_disk = history.list_all_sessions(config_dir=fixture_copy.parent.parent)
    everything = await sessions.list_sessions()
    assert ids_of(everything) == ids_of(on_disk) == [CLI_FORK, AGENT, TOOL]
    assert ids_of(await sessions.list_sessions(limit=1, offset=1)) == [AGENT]
    assert ids_of(await sessions.list_sessions(after=everything[0], limit=5)) == [AGENT, TOOL]
    assert await sessions.list_sessions(limit=0) == []
    with pytest.raises(ValueError):
        await sessions.list_sessions(offset=-1)


# ------------------------------------------------------------------------------ hostile files


def hostile(config: Config) -> Iterator[tuple[str, Path, str | None]]:
    """(what, file, the tag read from it) for each hostile transcript, in the project ``-w``."""
    rng = random.Random(18)
    for what, data, tag in [
        ("binary garbage", rng.randbytes(3 * WINDOW), None),
        ("empty", b"", None),
        ("only newlines", b"\n" * (3 * WINDOW), None),
        # the codec reads invalid UTF-8 with U+FFFD in place
        ("not UTF-8", b'{"type":"tag","tag":"\xff\xfe","sessionId":"x"}\n' * 10, "\ufffd\ufffd"),
    ]:
        session_id = str(uuid.uuid4())
        path = config.project() / f"{session_id}.jsonl"
        path.write_bytes(data)
        yield what, path, tag


def test_hostile_files_are_listed_without_failing(
    config: Config, caplog: pytest.LogCaptureFixture
) -> None:
    files = list(hostile(config))
    good = str(uuid.uuid4())
    config.write(good, transcript(good, "fine", T0))
    listed = {i.session_id: i for i in history.list_all_sessions(config_dir=config.root)}
    assert set(listed) == {good} | {path.stem for _, path, _ in files}
    assert listed[good].first_prompt == "fine"
    assert any("not JSON objects skipped" in r.getMessage() for r in caplog.records)
    for what, path, tag in files:
        info = listed[path.stem]
        assert info.size == path.stat().st_size, what
        assert (info.first_prompt, info.cwd, info.title) == (None, None, None), what
        assert info.tag == tag, what
        mtime = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
        assert info.created == info.modified == mtime, what
        whole = history.session_info(path.stem, config_dir=config.root, window=None)
        assert without_count(info) == without_count(whole), what


def test_a_single_10_mb_line(config: Config) -> None:
    session_id = str(uuid.uuid4())
    objects = transcript(session_id, "x" * 10_000_000, T0)
    path = config.write(session_id, objects[:1])
    assert path.stat().st_size > 10_000_000
    before = rchar()
    (info,) = history.list_all_sessions(config_dir=config.root)
    assert rchar() - before <= 2 * WINDOW + 1 + 4096
    # Cut by both windows: nothing of it is seen (the whole reading sees the prompt).
    assert (info.first_prompt, info.message_count, info.cwd) == (None, None, None)
    whole = history.session_info(session_id, config_dir=config.root, window=None)
    assert whole.first_prompt == "x" * 10_000_000
    # The last-prompt line repeats the 10 MB prompt: cut too.
    with path.open("ab") as f:
        f.write(dumps(objects[2:]))
    (info,) = history.list_all_sessions(config_dir=config.root)
    assert info.last_prompt is None
    assert history.session_info(session_id, config_dir=config.root, window=None).last_prompt
    # After it, a line the tail holds whole is read.
    with path.open("ab") as f:
        f.write(dumps([{"type": "tag", "tag": "big", "sessionId": session_id}]))
    assert history.list_all_sessions(config_dir=config.root)[0].tag == "big"


@pytest.mark.parametrize("window", [WINDOW, 4096])
def test_a_torn_last_line(fixture_copy: Path, window: int) -> None:
    config = fixture_copy.parent.parent
    path = fixture_copy / f"{TOOL}.jsonl"
    with path.open("ab") as f:
        f.write(b'{"type":"tag","tag":"torn","sessionId":"' + TOOL.encode())
    whole = history.session_info(TOOL, config_dir=config, window=None)
    ends = history.session_info(TOOL, config_dir=config, window=window)
    assert whole.tag is None
    assert without_count(ends) == without_count(whole)
    assert ends.last_prompt == "and again"
    # The last line without its newline, but whole, is read.
    with path.open("ab") as f:
        f.write(b'"}\n{"type":"tag","tag":"last","sessionId":"x"}')
    assert history.session_info(TOOL, config_dir=config, window=window).tag == "last"


def test_files_that_are_not_regular_are_left_out(
    config: Config, caplog: pytest.LogCaptureFixture
) -> None:
    good = str(uuid.uuid4())
    config.write(good, transcript(good, "fine", T0))
    directory = config.project() / f"{uuid.uuid4()}.jsonl"
    directory.mkdir()
    fifo = config.project() / f"{uuid.uuid4()}.jsonl"
    os.mkfifo(fifo)  # opened without blocking, then refused: no writer needed
    device = config.project() / f"{uuid.uuid4()}.jsonl"
    device.symlink_to("/dev/zero")
    dangling = config.project() / f"{uuid.uuid4()}.jsonl"
    dangling.symlink_to(config.root / "gone")
    assert ids_of(history.list_all_sessions(config_dir=config.root)) == [good]
    assert sum("left out of the listing" in r.getMessage() for r in caplog.records) == 3
