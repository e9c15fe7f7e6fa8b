"""Sessions with a `SessionStore`, driven through FakeCLI (asyncio and trio).

The CLI's ``transcript_mirror`` frames are stored, in order, before the turn's result is
handed out, and never reach the consumer; a store that fails is retried, then reported
(``"warn"``) or fails the session (``"raise"``) with a retryable `SessionStoreError`; hostile
frames are not stored; ``resume_or_start`` starts with the key's id, then resumes with the
store's transcript written where the CLI reads it; a resume found nowhere raises before any
CLI starts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

import claude_sdk as cs
from claude_sdk import history
from claude_sdk._session.mirror import TranscriptMirror
from claude_sdk.stores import MemoryStore, SessionKey
from claude_sdk.testing import FakeCLI, ScriptedCLI

CWD = "/work/project"
SLUG = history.project_slug(CWD)


def _line(n: int, session_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": f"u-{n}", "sessionId": session_id, "n": n, **extra}


async def mirror(cli: ScriptedCLI, entries: list[Any], *, path: str | None = None) -> None:
    """What the CLI writes with --session-mirror after appending ``entries`` to a file
    (the script's own lines only: `turn` mirrors nothing more)."""
    cli.mirror_turns = False
    home = cli.env.get("HOME", "/home/fake")
    where = path or f"{home}/.claude/projects/{SLUG}/{cli.session_id}.jsonl"
    await cli.send({"type": "transcript_mirror", "filePath": where, "entries": entries})


def options(tmp_path: Path, store: Any, **kwargs: Any) -> cs.Options:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return cs.Options(cwd=CWD, env={"HOME": str(home)}, session_store=store, **kwargs)


def key(session_id: str) -> SessionKey:
    return {"project_key": SLUG, "session_id": session_id}


class FlakyStore(MemoryStore):
    """Fails the first ``failures`` appends (a network blip)."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures
        self.attempts = 0

    async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise ConnectionError(f"blip {self.attempts}")
        await super().append(key, entries)


# ======================================================================================
# Mirroring


async def test_a_turn_is_stored_before_its_result_is_seen(tmp_path: Path) -> None:
    store = MemoryStore()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for turn in range(2):
            await cli.next_prompt()
            await mirror(
                cli, [_line(turn * 3, cli.session_id), _line(turn * 3 + 1, cli.session_id)]
            )
            await mirror(cli, [{"type": "last-prompt", "sessionId": cli.session_id}])
            await cli.turn(text=f"answer {turn}")

    fake = FakeCLI(script)
    async with cs.open_session(options(tmp_path, store), transport=fake) as session:
        assert "--session-mirror" in fake.cli.spec.argv
        for turn in range(2):
            await session.send(f"prompt {turn}")
            async for message in session.receive_response():
                assert not isinstance(message, cs.messages.TranscriptMirrorMessage)
                if isinstance(message, cs.ResultMessage):
                    stored = await store.load(key(fake.cli.session_id))
                    assert stored is not None
                    assert [e.get("n") for e in stored] == [
                        n for t in range(turn + 1) for n in (t * 3, t * 3 + 1, None)
                    ]
        assert session.store_failures == []


async def test_a_store_that_blips_is_retried(tmp_path: Path) -> None:
    store = FlakyStore(failures=2)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await mirror(cli, [_line(1, cli.session_id)])
        await cli.turn(text="ok")

    fake = FakeCLI(script)
    async with cs.open_session(options(tmp_path, store), transport=fake) as session:
        await session.send("hi")
        [m async for m in session.receive_response()]
        assert session.store_failures == []
    assert store.attempts == 3
    assert await store.load(key(fake.cli.session_id)) == [_line(1, fake.cli.session_id)]


async def test_a_store_that_keeps_failing_is_reported_and_the_session_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = FlakyStore(failures=1000)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        for _ in range(2):
            await cli.next_prompt()
            await mirror(cli, [_line(1, cli.session_id), _line(2, cli.session_id)])
            await cli.turn(text="ok")

    async with cs.open_session(options(tmp_path, store), transport=FakeCLI(script)) as session:
        for _ in range(2):
            await session.send("hi")
            messages = [m async for m in session.receive_response()]
            assert isinstance(messages[-1], cs.ResultMessage)
        failures = session.store_failures
        # One backlog per key: both turns' lines, kept in order to be appended again.
        assert [(f.entries, f.retryable, f.operation) for f in failures] == [(4, True, "append")]
        assert "not stored yet" in str(failures[0])
    assert "ConnectionError" in str(session.store_failures[0])
    assert session.store_failures[0].entries == 4  # still missing after the close's rounds
    assert store.attempts >= 6  # three attempts per round: each turn, then again at close
    assert any("never stored" in r.getMessage() for r in caplog.records)


async def test_raise_mode_fails_the_turn_with_a_retryable_error(tmp_path: Path) -> None:
    store = FlakyStore(failures=1000)

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await mirror(cli, [_line(1, cli.session_id)])
        await cli.turn(text="ok")
        await cli.serve_until_stdin_closes()

    with pytest.raises(cs.SessionStoreError) as caught:
        async with cs.open_session(
            options(tmp_path, store, session_store_errors="raise"), transport=FakeCLI(script)
        ) as session:
            await session.send("hi")
            [m async for m in session.receive_response()]
    assert caught.value.retryable
    assert caught.value.entries == 1


async def test_hostile_mirror_frames_are_not_stored(tmp_path: Path) -> None:
    store = MemoryStore()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        sid = cli.session_id
        await mirror(cli, [_line(1, sid)], path="/etc/passwd")  # not a transcript
        await mirror(cli, [_line(2, sid)], path=f"/x/projects/{SLUG}/../../../etc/{sid}.jsonl")
        await mirror(cli, [_line(3, sid)], path=f"/h/.claude/projects/{SLUG}/{sid}/../x.jsonl")
        await cli.send({"type": "transcript_mirror", "filePath": 7, "entries": "nope"})
        await mirror(cli, [1, "two", None, {"no": "type"}, _line(4, sid)])
        await cli.turn(text="still fine")

    fake = FakeCLI(script)
    async with cs.open_session(options(tmp_path, store), transport=fake) as session:
        await session.send("hi")
        messages = [m async for m in session.receive_response()]
    assert isinstance(messages[-1], cs.ResultMessage)
    assert messages[-1].result == "still fine"
    sid = fake.cli.session_id
    assert await store.load(key(sid)) == [_line(4, sid)]
    assert await store.list_sessions(SLUG) != []
    assert [row["session_id"] for row in await store.list_sessions(SLUG)] == [sid]


async def test_eager_mode_stores_each_frame_as_it_comes(tmp_path: Path) -> None:
    stored = anyio.Event()
    seen = anyio.Event()

    class Watched(MemoryStore):
        async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
            await super().append(key, entries)
            stored.set()

    store = Watched()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await mirror(cli, [_line(1, cli.session_id)])
        await seen.wait()  # the line is stored while the turn is still running
        await cli.turn(text="ok")

    fake = FakeCLI(script)
    async with cs.open_session(
        options(tmp_path, store, session_store_flush="eager"), transport=fake
    ) as session:
        await session.send("hi")
        with anyio.fail_after(10):
            await stored.wait()  # before the turn's result: the CLI waits for `seen`
        assert await store.load(key(fake.cli.session_id)) == [_line(1, fake.cli.session_id)]
        seen.set()
        [m async for m in session.receive_response()]


async def test_close_stores_what_came_after_the_last_result(tmp_path: Path) -> None:
    store = MemoryStore()

    async def script(cli: ScriptedCLI) -> None:
        cli.mirror_turns = False
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="ok")
        await cli.wait_for_stdin_close()
        await mirror(cli, [_line(9, cli.session_id)])  # written on the way out

    fake = FakeCLI(script)
    async with cs.open_session(options(tmp_path, store), transport=fake) as session:
        await session.send("hi")
        [m async for m in session.receive_response()]
    assert await store.load(key(fake.cli.session_id)) == [_line(9, fake.cli.session_id)]


async def test_a_store_that_hangs_cannot_hang_the_close() -> None:
    class Hangs(MemoryStore):
        async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
            await anyio.sleep_forever()

    mirror_ = TranscriptMirror(Hangs(), projects_dir="/h/.claude/projects", store_timeout=0.2)
    mirror_.enqueue(f"/h/.claude/projects/p/{cs.session_id_for('x')}.jsonl", [{"type": "x"}])
    with anyio.fail_after(5):
        await mirror_.close(grace=1.0)
        await mirror_.sync()
    assert [f.entries for f in mirror_.failures] == [1]
    assert "0.2 s" in str(mirror_.failures[0])


# ======================================================================================
# Start or resume


async def test_resume_or_start_starts_with_the_keys_id_then_resumes(tmp_path: Path) -> None:
    store = MemoryStore()
    session_id = cs.session_id_for("task-17")
    lines = [_line(1, session_id), {"type": "assistant", "uuid": "a-1", "sessionId": session_id}]

    async def first(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await mirror(cli, lines)
        await cli.turn(text="ok")

    fake = FakeCLI(first)
    opts = options(tmp_path, store).resume_or_start("task-17")
    async with cs.open_session(opts, transport=fake) as session:
        await session.send("hi")
        [m async for m in session.receive_response()]
    argv = fake.cli.spec.argv
    assert flag(argv, "--session-id") == session_id
    assert flag(argv, "--resume") is None

    # Another machine: an empty HOME. The store's transcript is written where the CLI reads.
    other = tmp_path / "other"
    other.mkdir()
    second = FakeCLI()
    again = attrs_evolve_env(opts, HOME=str(other))
    async with cs.open_session(again, transport=second):
        pass
    argv = second.cli.spec.argv
    assert flag(argv, "--resume") == session_id
    assert flag(argv, "--session-id") is None
    written = other / ".claude" / "projects" / SLUG / f"{session_id}.jsonl"
    assert [json.loads(x) for x in written.read_text().splitlines()] == lines


def flag(argv: Any, name: str) -> str | None:
    """The value of ``name`` in ``argv`` (``--name=value`` or ``--name value``), or None."""
    for i, arg in enumerate(argv):
        if arg == name:
            return str(argv[i + 1])
        if arg.startswith(name + "="):
            return str(arg[len(name) + 1 :])
    return None


def attrs_evolve_env(options: cs.Options, **env: str) -> cs.Options:
    import attrs

    return attrs.evolve(options, env={**options.env, **env})


async def test_a_resume_found_nowhere_raises_before_any_cli_starts(tmp_path: Path) -> None:
    fake = FakeCLI()
    missing = cs.session_id_for("nothing-here")
    with pytest.raises(cs.SessionNotFoundError) as caught:
        async with cs.open_session(
            options(tmp_path, MemoryStore(), resume=missing), transport=fake
        ):
            pass
    assert caught.value.session_id == missing
    assert not caught.value.retryable
    assert fake.clis == []  # no CLI started


async def test_a_store_that_fails_a_resume_is_a_retryable_error(tmp_path: Path) -> None:
    class Down(MemoryStore):
        async def load(self, key: SessionKey) -> list[dict[str, Any]] | None:
            raise ConnectionRefusedError("redis is down")

    with pytest.raises(cs.SessionStoreError) as caught:
        async with cs.open_session(
            options(tmp_path, Down()).resume_or_start("k"), transport=FakeCLI()
        ):
            pass
    assert caught.value.retryable
    assert caught.value.operation == "load"
    assert "redis is down" in str(caught.value)


def test_store_options_are_checked() -> None:
    with pytest.raises(cs.OptionsError, match=r"needs Options\.session_store"):
        cs.Options(diskless=True)
    with pytest.raises(cs.OptionsError, match="async methods append"):
        cs.Options(session_store=object())  # type: ignore[arg-type]
    with pytest.raises(cs.OptionsError, match="persist_session"):
        cs.Options(session_store=MemoryStore(), persist_session=False)
    with pytest.raises(cs.OptionsError, match="store_project_key"):
        cs.Options(session_store=MemoryStore(), store_project_key="../etc")
    with pytest.raises(cs.OptionsError, match="a session id"):
        cs.Options(resume="not-a-uuid", resume_missing="start")
    assert cs.session_id_for("task-17") == cs.session_id_for("task-17")
    assert cs.session_id_for("task-17") != cs.session_id_for("task-18")
    uid = "0b0e0f0a-1111-4222-8333-444455556666"
    assert cs.session_id_for(uid) == uid
    with pytest.raises(ValueError):
        cs.session_id_for("")


# ======================================================================================
# SessionPool(resume_keys=True)


async def test_a_pool_key_outlives_its_cli(tmp_path: Path) -> None:
    store = MemoryStore()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        prompt = await cli.next_prompt()
        await mirror(cli, [_line(len(cli.spec.argv), cli.session_id, text=prompt.text)])
        await cli.turn(text=f"echo {prompt.text}")
        await cli.serve_until_stdin_closes()

    fake = FakeCLI(script)
    async with cs.SessionPool(
        options(tmp_path, store), max_sessions=1, resume_keys=True, transport=fake
    ) as pool:
        assert (await pool.ask("ticket-1", "first")).text == "echo first"
        assert (await pool.ask("ticket-2", "other")).text == "echo other"  # evicts ticket-1
        assert (await pool.ask("ticket-1", "again")).text == "echo again"
    ids = [flag(c.spec.argv, "--session-id") or flag(c.spec.argv, "--resume") for c in fake.clis]
    assert ids == [cs.session_id_for(k) for k in ("ticket-1", "ticket-2", "ticket-1")]
    assert flag(fake.clis[2].spec.argv, "--resume") == cs.session_id_for("ticket-1")
    assert pool.stats.evicted >= 1
    with pytest.raises(cs.OptionsError, match="prewarm"):
        cs.SessionPool(options(tmp_path, store), prewarm=1, resume_keys=True)


async def test_session_id_is_known_before_the_first_turn(tmp_path: Path) -> None:
    opts = options(tmp_path, MemoryStore()).resume_or_start("early")
    async with cs.open_session(opts, transport=FakeCLI()) as session:
        assert session.session_id == cs.session_id_for("early")


async def test_fake_cli_mirrors_its_turns_when_asked(tmp_path: Path) -> None:
    store = MemoryStore()
    fake = FakeCLI(replies=["one", "two"])
    async with cs.open_session(options(tmp_path, store), transport=fake) as session:
        for prompt in ("first", "second"):
            await session.send(prompt)
            [m async for m in session.receive_response()]
        session_id = session.session_id
    assert session_id is not None
    sessions = history.in_store(store, project_key=SLUG)
    assert [m.text for m in await sessions.session_messages(session_id)] == [
        "first",
        "one",
        "second",
        "two",
    ]


async def test_a_hostile_store_cannot_write_outside_the_project(tmp_path: Path) -> None:
    session_id = cs.session_id_for("hostile")
    line = _line(1, session_id)

    class Hostile(MemoryStore):
        async def load(self, key: SessionKey) -> list[dict[str, Any]] | None:
            # Entries that are not JSON objects fail the resume by name (issue 28, item 9:
            # tests/stores/test_store_errors.py); this store's entries are whole.
            return [line]

        async def list_subkeys(self, key: Any) -> list[str]:
            return [
                "../../../../escaped",
                "/etc/escaped",
                "subagents/../../escaped",
                "subagents/agent-a\x00b",
                "",
                "subagents/agent-ok",
            ]

    async with cs.open_session(
        options(tmp_path, Hostile(), resume=session_id), transport=FakeCLI()
    ):
        pass
    written = _files_under(tmp_path)
    project = f"home/.claude/projects/{SLUG}"
    assert written == [
        f"{project}/{session_id}.jsonl",
        f"{project}/{session_id}/subagents/agent-ok.jsonl",
    ]
    main = tmp_path / project / f"{session_id}.jsonl"
    assert [json.loads(x) for x in main.read_text().splitlines()] == [line]


async def test_continue_with_a_store_resumes_its_newest_session(tmp_path: Path) -> None:
    store = MemoryStore()
    older, newer = cs.session_id_for("older"), cs.session_id_for("newer")
    await store.append(key(older), [_line(1, older)])
    await store.append(key(newer), [_line(2, newer)])
    fake = FakeCLI()
    async with cs.open_session(
        options(tmp_path, store, continue_conversation=True), transport=fake
    ):
        pass
    assert flag(fake.cli.spec.argv, "--resume") == newer
    assert "--continue" not in fake.cli.spec.argv


def _files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


async def test_local_lines_the_store_lacks_are_kept_not_overwritten(tmp_path: Path) -> None:
    session_id = cs.session_id_for("diverged")
    store = MemoryStore()
    await store.append(key(session_id), [_line(1, session_id), _line(2, session_id)])
    local = tmp_path / "home" / ".claude" / "projects" / SLUG / f"{session_id}.jsonl"
    _write_lines(local, [_line(1, session_id), _line(3, session_id)])  # 3: only here
    async with cs.open_session(options(tmp_path, store, resume=session_id), transport=FakeCLI()):
        pass
    assert [e["n"] for e in _read_lines(local)] == [1, 2]  # the store's copy is resumed
    (kept,) = local.parent.glob(f"{session_id}.jsonl.local-*")
    assert [e["n"] for e in _read_lines(kept)] == [1, 3]


def _write_lines(path: Path, lines: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def _read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


async def test_resume_or_start_never_starts_over_a_session_the_store_holds(tmp_path: Path) -> None:
    """Issue 28, item 4: a CLI that reads another disk (a container, a remote host) does not
    find the transcript the store held; ``resume_or_start`` used to start a new conversation
    under the same id, and the store then held two under one key."""
    store = MemoryStore()
    session_id = cs.session_id_for("in-a-container")
    await store.append(key(session_id), [_line(1, session_id)])

    async def elsewhere(cli: ScriptedCLI) -> None:
        # What CLI 2.1.330 does with a --resume id it has no transcript of.
        await cli.result(
            subtype="error_during_execution",
            errors=[f"No conversation found with session ID: {session_id}"],
        )
        await cli.exit(1)

    fake = FakeCLI(elsewhere)
    opts = options(tmp_path, store).resume_or_start("in-a-container")
    with pytest.raises(cs.SessionNotFoundError) as caught:
        async with cs.open_session(opts, transport=fake):
            pass
    assert caught.value.session_id == session_id
    assert "the session store holds" in str(caught.value)
    assert len(fake.connections) == 1  # no second CLI started a new conversation
    assert await store.load(key(session_id)) == [_line(1, session_id)]


async def test_resume_or_start_still_starts_a_session_found_nowhere(tmp_path: Path) -> None:
    fake = FakeCLI()
    opts = options(tmp_path, MemoryStore()).resume_or_start("brand-new")
    async with cs.open_session(opts, transport=fake):
        pass
    assert flag(fake.cli.spec.argv, "--session-id") == cs.session_id_for("brand-new")
