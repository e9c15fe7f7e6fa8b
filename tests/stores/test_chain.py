"""A resume is whole or fails loudly (issue 28, item 1): the transcript's chain, checked.

`claude_sdk.stores._chain` over generated transcripts (branches, compaction boundaries,
bookkeeping lines without a uuid, subagent-style files): a whole file has no gap; removing
any line another line follows is found, naming exactly the lines that follow it; `fill`
repairs from a copy that has the lines and takes nothing the chain does not lead back to;
`chain_order` puts lines appended again after their children back after their parents,
without changing which entry the CLI resumes from (the latest one no other continues:
`claude_sdk.history`'s rule, the CLI's).

Sessions (both backends, FakeCLI): a store that lost lines from the middle of a turn fails the
resume with `TranscriptGapError` before the CLI starts, naming the missing uuids; the CLI's
own copy on this machine repairs it; a local file with a torn line fails a local resume.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk.stores import MemoryStore
from claude_sdk.stores._chain import chain_order, fill, gaps
from claude_sdk.stores._contract import SessionKey
from claude_sdk.testing import FakeCLI

from ..support.deep import deep

SESSION = "2c9f6a3e-5b1d-4c8e-9f7a-0d3e2b1c4a5f"


def _leaf(entries: Sequence[Mapping[str, Any]]) -> str | None:
    """The entry the CLI resumes from: the latest one no other entry continues."""
    chained = [e for e in entries if isinstance(e.get("uuid"), str)]
    parents = {e.get("parentUuid") for e in chained}
    for entry in reversed(chained):
        if entry["uuid"] not in parents:
            return str(entry["uuid"])
    return None


@st.composite
def transcripts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A file as the CLI writes it: each entry after its parent; now and then a branch (an
    edit, a retry), a compaction boundary (a new root naming the old leaf), a line of
    bookkeeping with no uuid."""
    count = draw(st.integers(1, 40))
    entries: list[dict[str, Any]] = []
    last: str | None = None
    for n in range(count):
        uid = f"00000000-0000-4000-8000-{n:012d}"
        shape = draw(st.sampled_from(["next"] * 6 + ["branch", "boundary", "plain"]))
        if shape == "plain":
            entries.append({"type": "last-prompt", "lastPrompt": f"p{n}", "sessionId": SESSION})
            continue
        entry: dict[str, Any] = {
            "type": draw(st.sampled_from(["user", "assistant", "system", "attachment"])),
            "uuid": uid,
            "sessionId": SESSION,
        }
        chained = [e for e in entries if "uuid" in e]
        if shape == "boundary" and chained:
            entry.update(type="system", subtype="compact_boundary", parentUuid=None)
            entry["logicalParentUuid"] = last
        elif shape == "branch" and chained:
            entry["parentUuid"] = draw(st.sampled_from(chained))["uuid"]
        else:
            entry["parentUuid"] = last
        entries.append(entry)
        last = uid
    return entries


@settings(max_examples=deep(200), deadline=None)
@given(transcripts())
def test_a_whole_transcript_has_no_gap(entries: list[dict[str, Any]]) -> None:
    assert gaps(entries, SESSION) == []
    assert chain_order(entries) == entries


@settings(max_examples=deep(300), deadline=None)
@given(transcripts(), st.data())
def test_every_lost_line_another_follows_is_found(
    entries: list[dict[str, Any]], data: st.DataObject
) -> None:
    lost = set(data.draw(st.sets(st.integers(0, len(entries) - 1), max_size=len(entries))))
    kept = [e for i, e in enumerate(entries) if i not in lost]
    lost_ids = {entries[i].get("uuid") for i in lost} - {None}
    expected = {(e["parentUuid"], e["uuid"]) for e in kept if e.get("parentUuid") in lost_ids}
    found = {(g.missing, g.needed_by) for g in gaps(kept, SESSION)}
    assert found == expected
    # The full copy fills every gap, and only with what the chain leads back to.
    repaired = fill(kept, entries)
    assert gaps(repaired, SESSION) == []
    assert {id(e) for e in repaired} <= {id(e) for e in entries}
    assert _leaf(repaired) == _leaf(kept) or _leaf(kept) is None


@settings(max_examples=deep(200), deadline=None)
@given(transcripts(), st.randoms(use_true_random=False))
def test_lines_appended_again_go_back_after_their_parents(
    entries: list[dict[str, Any]], rnd: random.Random
) -> None:
    """What a store holds after catching up: the lines whose append failed come after
    later lines. Put in chain order, each follows its parent, and the entry the CLI resumes
    from does not change (it is the original leaf unless a late line is a leaf itself: the
    mirror appends failed lines again before any later line, so that does not happen)."""
    late = {i for i in range(len(entries)) if rnd.random() < 0.3}
    stored = [e for i, e in enumerate(entries) if i not in late]
    stored += [entries[i] for i in sorted(late)]
    ordered = chain_order(stored)
    assert sorted(map(id, ordered)) == sorted(map(id, entries))
    position = {e["uuid"]: i for i, e in enumerate(ordered) if "uuid" in e}
    for i, entry in enumerate(ordered):
        parent = entry.get("parentUuid")
        if parent is not None:
            assert position[parent] < i
    assert _leaf(ordered) == _leaf(stored)
    parents = {e.get("parentUuid") for e in entries}
    if all(entries[i].get("uuid") in parents for i in late if "uuid" in entries[i]):
        assert _leaf(ordered) == _leaf(entries)


def test_a_line_of_another_session_is_named() -> None:
    entries: list[dict[str, Any]] = [
        {"type": "user", "uuid": "a", "parentUuid": None, "sessionId": SESSION},
        {"type": "assistant", "uuid": "b", "parentUuid": "a", "sessionId": "other"},
    ]
    (gap,) = gaps(entries, SESSION)
    assert gap.foreign_session == "other"
    assert "belongs to session other" in gap.describe()
    assert gaps(entries, None) == []  # a subagent's file: not checked for the id


def test_a_branch_the_conversation_left_is_not_taken() -> None:
    root: dict[str, Any] = {"type": "user", "uuid": "r", "parentUuid": None, "sessionId": SESSION}
    store = [root, {"type": "assistant", "uuid": "s1", "parentUuid": "r", "sessionId": SESSION}]
    local = [root, {"type": "assistant", "uuid": "l1", "parentUuid": "r", "sessionId": SESSION}]
    assert fill(store, local) == store


# ======================================================================================
# Sessions


def _turns(count: int) -> list[dict[str, Any]]:
    """``count`` turns of a prompt, a tool call, its result and an answer."""
    entries: list[dict[str, Any]] = []
    parent = None
    for n in range(count * 4):
        kind = ("user", "assistant", "user", "assistant")[n % 4]
        uid = f"10000000-0000-4000-8000-{n:012d}"
        entries.append(
            {"type": kind, "uuid": uid, "parentUuid": parent, "sessionId": SESSION, "n": n}
        )
        parent = uid
    return entries


def _options(tmp_path: Path, store: Any = None) -> cs.Options:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return cs.Options(
        session_store=store,
        resume=SESSION,
        cwd=str(tmp_path),
        env={"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")},
    )


def _local(tmp_path: Path) -> Path:
    from claude_sdk._paths import canonical, project_slug

    slug = project_slug(canonical(str(tmp_path)))
    return tmp_path / "home" / ".claude" / "projects" / slug / f"{SESSION}.jsonl"


def _key(tmp_path: Path) -> SessionKey:
    from claude_sdk._paths import canonical, project_slug

    return {"project_key": project_slug(canonical(str(tmp_path))), "session_id": SESSION}


async def test_a_store_that_lost_lines_mid_turn_fails_the_resume_by_name(tmp_path: Path) -> None:
    entries = _turns(4)
    lost = entries[6:9]  # the middle of the second turn, as a Redis restart dropped them
    store = MemoryStore()
    await store.append(_key(tmp_path), [e for e in entries if e not in lost])
    fake = FakeCLI()
    with pytest.raises(cs.TranscriptGapError) as caught:
        async with cs.open_session(_options(tmp_path, store), transport=fake):
            pass
    error = caught.value
    assert error.retryable
    assert isinstance(error, cs.SessionStoreError)
    assert error.missing == (lost[-1]["uuid"],)
    assert lost[-1]["uuid"] in str(error)
    assert error.file == f"{SESSION}.jsonl"
    assert fake.connections == []  # the CLI never started
    assert not _local(tmp_path).exists()  # nothing written for it


async def test_the_cli_s_own_copy_here_repairs_the_store_s_gap(tmp_path: Path) -> None:
    entries = _turns(4)
    store = MemoryStore()
    await store.append(_key(tmp_path), entries[:6] + entries[9:])
    local = _local(tmp_path)
    local.parent.mkdir(parents=True)
    # This machine's copy: the turns up to the third (the session went on elsewhere after).
    local.write_text("".join(json.dumps(e) + "\n" for e in entries[:12]))
    async with cs.open_session(_options(tmp_path, store), transport=FakeCLI()):
        pass
    resumed = [json.loads(x) for x in local.read_text().splitlines()]
    assert [e["n"] for e in resumed] == list(range(16))  # whole, in chain order


async def test_a_torn_line_in_the_cli_s_own_file_fails_a_local_resume(tmp_path: Path) -> None:
    entries = _turns(3)
    local = _local(tmp_path)
    local.parent.mkdir(parents=True)
    lines = [json.dumps(e) for e in entries]
    lines[5] = lines[5][: len(lines[5]) // 2]  # a crash mid-write, then the session went on
    local.write_text("\n".join(lines) + "\n")
    with pytest.raises(cs.TranscriptGapError) as caught:
        async with cs.open_session(_options(tmp_path), transport=FakeCLI()):
            pass
    assert caught.value.missing == (entries[5]["uuid"],)


async def test_a_whole_local_file_resumes_as_before(tmp_path: Path) -> None:
    entries = _turns(3)
    local = _local(tmp_path)
    local.parent.mkdir(parents=True)
    local.write_text("".join(json.dumps(e) + "\n" for e in entries))
    fake = FakeCLI()
    async with cs.open_session(_options(tmp_path), transport=fake):
        pass
    assert len(fake.connections) == 1
