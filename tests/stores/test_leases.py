"""One live owner per session key (issue 28, item 3), on MemoryStore, DirectoryStore and a
real redis-server, asyncio and trio.

The store side (`claude_sdk.stores._lease`): one owner at a time, tokens that only grow
(deleting the session does not reset them), a stale owner's fenced append refused with
nothing stored (a subkey fenced by its session's lease), expiry after ``ttl`` (memory,
Redis), a dead owner's lease freed at once (Directory: the kernel lets the ``flock`` go;
Redis: `owner_alive` on this host); and a generated model of acquire / renew / release /
fenced append among three owners against the reference rule.

The session side (FakeCLI): two sessions resuming one key at once, the second raises
`SessionBusyError` (or waits, ``session_lease="wait"``, and opens after the first closed);
a new session gets its id before the CLI starts and is leased under it; a session whose
lease is taken over ends with `SessionBusyError` (kind ``lease_lost``) and stores nothing
more; ``session_lease=None`` and stores without leases run as before.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import history
from claude_sdk._session import lease as session_lease
from claude_sdk.stores import DirectoryStore, MemoryStore, SessionKey
from claude_sdk.stores._lease import has_leases, new_owner, owner_alive
from claude_sdk.testing import FakeCLI, ScriptedCLI

from ..support.deep import deep
from .conftest import RedisServer

CWD = "/work/leases"
SLUG = history.project_slug(CWD)
SESSION = "5d0f3c1e-8a4b-4c6d-9e2f-0a1b2c3d4e5f"
KEY: SessionKey = {"project_key": SLUG, "session_id": SESSION}
_counter = itertools.count()


@pytest.fixture(params=["memory", "directory", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """A factory of stores of one kind sharing one backing place (a directory, a prefix):
    each call is another process's view of the same store."""
    kind: str = request.param
    if kind == "memory":
        store = MemoryStore()
        yield lambda: store
        return
    if kind == "directory":
        root = tmp_path / "store"
        yield lambda: DirectoryStore(root)
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    from claude_sdk.stores import RedisStore

    prefix = f"lease{next(_counter)}:"
    stores: list[Any] = []

    def make() -> Any:
        stores.append(RedisStore(server.url, prefix=prefix))
        return stores[-1]

    try:
        yield make
    finally:
        for store in stores:
            store.client.close()


def _entry(n: int) -> dict[str, Any]:
    return {
        "type": ("user", "assistant")[n % 2],
        "uuid": f"30000000-0000-4000-8000-{n:012d}",
        "parentUuid": f"30000000-0000-4000-8000-{n - 1:012d}" if n else None,
        "sessionId": SESSION,
    }


# ======================================================================================
# The store side


async def test_one_owner_at_a_time_and_tokens_only_grow(make_store: Callable[[], Any]) -> None:
    a, b = make_store(), make_store()
    assert has_leases(a)
    first = await a.acquire_lease(KEY, "owner-a", 30)
    assert first["owner"] == "owner-a"
    busy = await b.acquire_lease(KEY, "owner-b", 30)
    assert busy["owner"] == "owner-a"  # the lease in force is a's
    assert busy["token"] == first["token"]
    again = await a.acquire_lease(KEY, "owner-a", 30)  # a's own lease: extended, same token
    assert (again["owner"], again["token"]) == ("owner-a", first["token"])
    assert await a.renew_lease(KEY, "owner-a", first["token"], 30)
    await b.release_lease(KEY, "owner-b", first["token"])  # not b's: nothing happens
    assert (await b.acquire_lease(KEY, "owner-b", 30))["owner"] == "owner-a"
    await a.release_lease(KEY, "owner-a", first["token"])
    second = await b.acquire_lease(KEY, "owner-b", 30)
    assert second["owner"] == "owner-b"
    assert second["token"] > first["token"]
    assert not await a.renew_lease(KEY, "owner-a", first["token"], 30)  # superseded
    await b.release_lease(KEY, "owner-b", second["token"])


async def test_a_stale_owner_is_fenced_out(make_store: Callable[[], Any]) -> None:
    a, b = make_store(), make_store()
    old = await a.acquire_lease(KEY, "owner-a", 30)
    assert await a.append_fenced(KEY, [_entry(0)], old["token"])
    await a.release_lease(KEY, "owner-a", old["token"])
    new = await b.acquire_lease(KEY, "owner-b", 30)
    assert new["owner"] == "owner-b"
    # The old owner (a process that was stopped, its lease expired and taken over) appends:
    sub: SessionKey = {**KEY, "subpath": "subagents/agent-x"}
    assert not await a.append_fenced(KEY, [_entry(1)], old["token"])
    assert not await a.append_fenced(sub, [_entry(1)], old["token"])
    assert [e["uuid"] for e in await b.load(KEY) or []] == [_entry(0)["uuid"]]
    assert await b.load(sub) is None
    assert await b.append_fenced(KEY, [_entry(1)], new["token"])
    assert [e["uuid"] for e in await a.load(KEY) or []] == [_entry(0)["uuid"], _entry(1)["uuid"]]
    await b.release_lease(KEY, "owner-b", new["token"])


async def test_tokens_are_not_reset_by_deleting_the_session(make_store: Callable[[], Any]) -> None:
    store = make_store()
    first = await store.acquire_lease(KEY, "owner-a", 30)
    assert await store.append_fenced(KEY, [_entry(0)], first["token"])
    await store.release_lease(KEY, "owner-a", first["token"])
    await store.delete(KEY)
    second = await store.acquire_lease(KEY, "owner-b", 30)
    assert second["token"] > first["token"]
    assert not await store.append_fenced(KEY, [_entry(1)], first["token"])
    await store.release_lease(KEY, "owner-b", second["token"])


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_a_lease_not_renewed_expires(kind: str, request: pytest.FixtureRequest) -> None:
    if kind == "memory":
        store: Any = MemoryStore()
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        from claude_sdk.stores import RedisStore

        store = RedisStore(server.url, prefix=f"expiry{next(_counter)}:")
    held = await store.acquire_lease(KEY, "owner-a", 0.2)
    assert 0 < held["expires_in"] <= 0.2
    for _ in range(200):  # generous: only that it ends, not how fast
        lease = await store.acquire_lease(KEY, "owner-b", 30)
        if lease["owner"] == "owner-b":
            break
        await anyio.sleep(0.05)
    assert lease["token"] > held["token"]
    assert not await store.renew_lease(KEY, "owner-a", held["token"], 30)
    assert not await store.append_fenced(KEY, [_entry(0)], held["token"])


async def test_a_lease_renewed_in_time_does_not_expire(make_store: Callable[[], Any]) -> None:
    """A renewal extends the lease past its first ttl. No timing is asserted: a renewal
    that comes late (a busy machine), before anyone took the lease, takes it again."""
    a, b = make_store(), make_store()
    held = await a.acquire_lease(KEY, "owner-a", 1)
    await anyio.sleep(0.5)
    assert await a.renew_lease(KEY, "owner-a", held["token"], 60)
    await anyio.sleep(1.2)  # past the first ttl: only the renewal keeps it
    assert (await b.acquire_lease(KEY, "owner-b", 30))["owner"] == "owner-a"
    await a.release_lease(KEY, "owner-a", held["token"])


def test_the_directory_lease_file_cannot_clash_with_a_key(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    with pytest.raises(cs.OptionsError, match=r"\.lease"):
        store._path({"project_key": "p", "session_id": "x.lease"})


# -- a dead owner ----------------------------------------------------------------------

_HOLDER = """
import sys, anyio
from claude_sdk.stores import DirectoryStore, RedisStore
from claude_sdk.stores._lease import new_owner

async def main():
    kind, where = sys.argv[1], sys.argv[2]
    store = DirectoryStore(where) if kind == "directory" else RedisStore(where, prefix=sys.argv[3])
    key = {{"project_key": {slug!r}, "session_id": {session!r}}}
    lease = await store.acquire_lease(key, new_owner(), 600)
    print(lease["owner"], flush=True)
    await anyio.sleep(600)

anyio.run(main)
"""


def _start_holder(kind: str, where: str, prefix: str) -> tuple[subprocess.Popen[str], str]:
    """A process that takes the session's lease (ttl 600 s) and holds it; its owner name."""
    script = _HOLDER.format(slug=SLUG, session=SESSION)
    holder = subprocess.Popen(
        [sys.executable, "-c", script, kind, where, prefix],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert holder.stdout is not None
    return holder, holder.stdout.readline().strip()


@pytest.mark.parametrize("kind", ["directory", "redis"])
async def test_a_killed_owners_lease_is_taken_at_once(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A host killed with SIGKILL mid-session (lease ttl 600 s): a resume on this host goes
    on at once (Directory: the kernel let the flock go; Redis: the holder's process is
    gone), with a newer token that fences the dead owner out."""
    if kind == "directory":
        where, prefix = str(tmp_path / "store"), ""
        store: Any = DirectoryStore(where)
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        from claude_sdk.stores import RedisStore

        where, prefix = server.url, f"dead{next(_counter)}:"
        store = RedisStore(where, prefix=prefix)
    holder, owner = await anyio.to_thread.run_sync(_start_holder, kind, where, prefix)
    try:
        assert owner_alive(owner) is True
        with pytest.raises(cs.SessionBusyError) as busy:
            await session_lease.acquire(store, KEY, mode="raise", ttl=20, answer_within=10)
        assert busy.value.holder == owner
        assert busy.value.retryable
    finally:
        holder.send_signal(signal.SIGKILL)
        await anyio.to_thread.run_sync(holder.wait)
        if holder.stdout is not None:
            holder.stdout.close()
    assert owner_alive(owner) is False
    held = await session_lease.acquire(store, KEY, mode="raise", ttl=20, answer_within=10)
    assert held is not None
    assert await store.append_fenced(KEY, [_entry(0)], held.token)
    await held.release()


def test_owner_names_say_where_they_run() -> None:
    mine = new_owner()
    assert mine != new_owner()  # each attempt its own
    assert owner_alive(mine) is True
    fields = dict(part.split("=", 1) for part in mine.split(" "))
    assert fields["pid"] == str(os.getpid())
    elsewhere = mine.replace(f"host={fields['host']}", "host=another-host")
    assert owner_alive(elsewhere) is None  # another host: cannot tell
    other_ns = mine.replace(f"ns={fields['ns']}", "ns=1")
    assert owner_alive(other_ns) is None
    reused = mine.replace(f"start={fields['start']}", "start=1")  # the pid, reused later
    assert owner_alive(reused) is False
    for foreign in ("", "someone", None, 7, "host= pid=x"):
        assert owner_alive(foreign) is None


# -- a generated model -----------------------------------------------------------------

OWNERS = ("a", "b", "c")
_op = st.tuples(st.sampled_from(["acquire", "renew", "release", "append"]), st.sampled_from(OWNERS))


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("kind", ["memory", "directory", "redis"])
@settings(
    max_examples=deep(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(_op, max_size=25))
def test_leases_follow_the_rule(
    kind: str,
    backend: str,
    ops: list[tuple[str, str]],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """Any sequence of acquire / renew / release / fenced append by three owners (each with
    a store of its own onto the same place): at most one holder; an acquire by another
    answers the holder; tokens grow; an append lands exactly when its token is the latest."""
    stores: dict[str, Any]
    if kind == "memory":
        shared = MemoryStore()
        stores = dict.fromkeys(OWNERS, shared)
    elif kind == "directory":
        root = tmp_path / f"model{next(_counter)}"
        stores = {o: DirectoryStore(root) for o in OWNERS}
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        from claude_sdk.stores import RedisStore

        prefix = f"model{next(_counter)}:"
        stores = {o: RedisStore(server.url, prefix=prefix) for o in OWNERS}

    async def run() -> None:
        holder: str | None = None
        latest = 0
        tokens: dict[str, int] = {}  # what each owner was last granted (forgotten at release)
        stored: list[str] = []
        for n, (op, owner) in enumerate(ops):
            store = stores[owner]
            if op == "acquire":
                lease = await store.acquire_lease(KEY, owner, 600)
                if holder in (None, owner):
                    assert lease["owner"] == owner
                    if holder is None:
                        assert lease["token"] > latest
                        latest = lease["token"]
                    assert lease["token"] == latest
                    holder, tokens[owner] = owner, latest
                else:
                    assert (lease["owner"], lease["token"]) == (holder, latest)
            elif op == "renew" and owner in tokens:
                assert await store.renew_lease(KEY, owner, tokens[owner], 600) == (holder == owner)
            elif op == "release" and owner in tokens:
                await store.release_lease(KEY, owner, tokens.pop(owner))
                if holder == owner:
                    holder = None
            elif op == "append" and owner in tokens:
                entry = {"type": "user", "uuid": f"e-{n}", "sessionId": SESSION}
                landed = await store.append_fenced(KEY, [entry], tokens[owner])
                assert landed == (tokens[owner] == latest)
                if landed:
                    stored.append(entry["uuid"])
        assert [e["uuid"] for e in await stores["a"].load(KEY) or []] == stored
        if holder is not None:
            await stores[holder].release_lease(KEY, holder, tokens[holder])

    try:
        anyio.run(run, backend=backend)
    finally:
        if kind == "redis":
            for store in {id(s): s for s in stores.values()}.values():
                store.client.close()


# ======================================================================================
# The session side


def _options(tmp_path: Path, store: Any, **kwargs: Any) -> cs.Options:
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    return cs.Options(cwd=CWD, env={"HOME": str(home)}, session_store=store, **kwargs)


async def _stored(store: Any) -> None:
    await store.append(KEY, [_entry(0), _entry(1)])


async def _ask(session: cs.Session, prompt: str) -> None:
    await session.send(prompt)
    async for _ in session.receive_response():
        pass


def _holding(release: anyio.Event) -> Callable[[ScriptedCLI], Any]:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await release.wait()

    return script


async def test_a_second_live_attempt_on_one_key_raises_busy(tmp_path: Path) -> None:
    store = MemoryStore()
    await _stored(store)
    fake = FakeCLI()
    async with cs.open_session(_options(tmp_path, store, resume=SESSION), transport=fake):
        with pytest.raises(cs.SessionBusyError) as caught:
            async with cs.open_session(
                _options(tmp_path / "other", store, resume=SESSION), transport=fake
            ):
                pass
        error = caught.value
        assert error.session_id == SESSION
        assert error.retryable
        assert error.kind == "session_busy"
        assert error.holder is not None
        assert f"pid={os.getpid()}" in error.holder
        assert "session_lease='wait'" in str(error)
        assert len(fake.clis) == 1  # the second attempt started no CLI
    # The first owner closed: the key is free again.
    async with cs.open_session(_options(tmp_path, store, resume=SESSION), transport=fake):
        pass


async def test_with_wait_the_second_attempt_opens_after_the_first_closes(tmp_path: Path) -> None:
    store = MemoryStore()
    await _stored(store)
    order: list[str] = []
    first_open = anyio.Event()
    let_go = anyio.Event()

    async def first() -> None:
        async with cs.open_session(_options(tmp_path, store, resume=SESSION), transport=FakeCLI()):
            order.append("first open")
            first_open.set()
            await let_go.wait()
            order.append("first closing")

    async def second() -> None:
        await first_open.wait()
        opts = _options(tmp_path / "b", store, resume=SESSION, session_lease="wait")
        async with cs.open_session(opts, transport=FakeCLI()):
            order.append("second open")

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(first)
            tg.start_soon(second)
            await first_open.wait()
            await anyio.sleep(0.3)  # the second is waiting meanwhile (not a timing assert)
            assert order == ["first open"]
            let_go.set()
    assert order == ["first open", "first closing", "second open"]


async def test_a_new_session_is_leased_under_an_id_chosen_before_the_cli_starts(
    tmp_path: Path,
) -> None:
    store = MemoryStore()
    fake = FakeCLI()
    async with cs.open_session(_options(tmp_path, store), transport=fake) as session:
        [chosen] = [a.split("=", 1)[1] for a in fake.cli.spec.argv if a.startswith("--session-id=")]
        assert session.session_id == chosen
        with pytest.raises(cs.SessionBusyError):
            async with cs.open_session(
                _options(tmp_path, store, resume=chosen), transport=FakeCLI()
            ):
                pass


async def test_a_session_whose_lease_is_taken_over_ends_and_stores_nothing_more(
    tmp_path: Path,
) -> None:
    store = MemoryStore()
    await _stored(store)
    taken = anyio.Event()

    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await taken.wait()
        home = cli.env.get("HOME", "/home/fake")
        path = f"{home}/.claude/projects/{SLUG}/{SESSION}.jsonl"
        cli.mirror_turns = False
        await cli.send({"type": "transcript_mirror", "filePath": path, "entries": [_entry(2)]})
        await cli.turn(text="late")

    with pytest.raises(cs.SessionBusyError) as caught:
        async with cs.open_session(
            _options(tmp_path, store, resume=SESSION), transport=FakeCLI(script)
        ) as session:
            await session.send("go on")
            # The lease expired while this host was stopped; another owner took it over.
            held = store._leases[(SLUG, SESSION)][0]
            takeover = await store.acquire_lease(KEY, "another-owner", 30, replace=held)
            assert takeover["owner"] == "another-owner"
            taken.set()
            async for _ in session.receive_response():
                pass
    assert caught.value.kind == "lease_lost"
    assert caught.value.retryable
    assert [e["uuid"] for e in await store.load(KEY) or []] == [
        _entry(0)["uuid"],
        _entry(1)["uuid"],
    ]


async def test_a_lease_renewal_that_finds_it_taken_ends_the_session(tmp_path: Path) -> None:
    store = MemoryStore()
    await _stored(store)
    opts = _options(tmp_path, store, resume=SESSION, session_lease_ttl=1)
    with pytest.raises(cs.SessionBusyError) as caught:
        async with cs.open_session(opts, transport=FakeCLI()) as session:
            held = store._leases[(SLUG, SESSION)][0]
            await store.acquire_lease(KEY, "another-owner", 30, replace=held)
            with anyio.fail_after(20):
                await session.send("anything")
                async for _ in session.receive_response():
                    pass
    assert caught.value.kind == "lease_lost"


async def test_without_leases_two_attempts_run_as_before(tmp_path: Path) -> None:
    store = MemoryStore()
    await _stored(store)
    opts = _options(tmp_path, store, resume=SESSION, session_lease=None)
    async with (
        cs.open_session(opts, transport=FakeCLI()),
        cs.open_session(
            _options(tmp_path / "b", store, resume=SESSION, session_lease=None),
            transport=FakeCLI(),
        ),
    ):
        pass
    assert store._leases == {}


async def test_a_store_without_lease_methods_still_works(tmp_path: Path) -> None:
    class Plain:  # the two required methods only (a custom store)
        def __init__(self) -> None:
            self.inner = MemoryStore()

        async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
            await self.inner.append(key, entries)

        async def load(self, key: SessionKey) -> list[dict[str, Any]] | None:
            return await self.inner.load(key)

    store = Plain()
    await store.append(KEY, [_entry(0), _entry(1)])
    assert not has_leases(store)
    first = _options(tmp_path, store, resume=SESSION)
    second = _options(tmp_path / "b", store, resume=SESSION)
    async with (
        cs.open_session(first, transport=FakeCLI()),
        cs.open_session(second, transport=FakeCLI()),
    ):
        pass


def test_a_subclass_that_wraps_append_alone_runs_without_leases() -> None:
    class Counting(MemoryStore):
        async def append(self, key: SessionKey, entries: list[dict[str, Any]]) -> None:
            await super().append(key, entries)

    class Both(Counting):
        async def append_fenced(
            self, key: SessionKey, entries: list[dict[str, Any]], token: int
        ) -> bool:
            return await super().append_fenced(key, entries, token)

    assert has_leases(MemoryStore())
    assert not has_leases(Counting())  # its wrapper would be skipped by the fenced append
    assert has_leases(Both())


def test_lease_options_are_checked() -> None:
    bad: Any
    for bad in (0.5, 0, -1, float("inf"), float("nan"), "20", True):
        with pytest.raises(cs.OptionsError, match="session_lease_ttl"):
            cs.Options(session_lease_ttl=bad)
    with pytest.raises(cs.OptionsError, match="session_lease"):
        cs.Options(session_lease="maybe")  # type: ignore[arg-type]
    assert cs.Options().session_lease == "raise"
    assert cs.Options(session_lease=None, session_lease_ttl=5).session_lease_ttl == 5


async def test_a_store_that_cannot_answer_a_lease_is_a_retryable_error(tmp_path: Path) -> None:
    class Down(MemoryStore):
        async def acquire_lease(self, *args: Any, **kwargs: Any) -> Any:
            raise ConnectionRefusedError("redis is down")

    with pytest.raises(cs.SessionStoreError) as caught:
        async with cs.open_session(_options(tmp_path, Down(), resume=SESSION), transport=FakeCLI()):
            pass
    assert caught.value.retryable
    assert caught.value.operation == "acquire_lease"
    assert "redis is down" in str(caught.value)
    assert not isinstance(caught.value, cs.SessionBusyError)
