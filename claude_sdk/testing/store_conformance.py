"""Conformance checks for `SessionStore` implementations, yours or ours.

Run them all from any async test (asyncio or Trio), with a factory that gives an empty
store on every call (sync or async)::

    from claude_sdk.testing.store_conformance import check_session_store

    async def test_my_store_conforms() -> None:
        await check_session_store(lambda: MyStore(...))

`check_session_store` runs every check on a fresh store and raises one `AssertionError`
naming each check that failed. To see each check as a test of its own, parametrize over
`STORE_CHECKS`::

    import pytest
    from claude_sdk.testing.store_conformance import STORE_CHECKS, StoreCheck

    @pytest.mark.parametrize("check", STORE_CHECKS, ids=str)
    async def test_my_store(check: StoreCheck) -> None:
        store = MyStore(...)
        if missing := check.missing(store):
            pytest.skip(f"the store has no {', '.join(missing)}")
        await check(store)

What is checked: the `SessionStore` contract (see `claude_sdk.stores`), the official
``claude-agent-sdk`` kit's checks among them, and more: deep equality that tells ``1`` from
``1.0`` and ``True``, 1 MiB entries, uuid dedup across batches, within a batch and under
concurrency, keys that are prefixes of each other or hostile (``..``, ``/``, NUL, very
long: a store may refuse them with `ValueError`, `claude_sdk.errors.OptionsError` is one, or
keep them as opaque data; it may not let them reach another key), ``mtime`` in epoch
milliseconds that grows with each write, that loaded data is a copy, and that each summary
``list_session_summaries`` gives is `claude_sdk.stores.fold_session_summary` of what
``load`` gives (entries a uuid dedup skipped are not folded; subkeys change nothing;
deleting the session deletes it). A check of an optional method (``list_sessions``,
``list_session_summaries``, ``delete``, ``list_subkeys``) is skipped when the store lacks
it: not an attribute, or the default of a `typing.Protocol` the store subclasses.

Each check keeps its data under project keys of its own (``<random>-...``), so a factory
that returns stores over one shared backend works too; nothing is deleted afterwards.
A store whose clock moves in steps coarser than 20 ms fails the ``mtime`` check.
"""

from __future__ import annotations

import inspect
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any

import anyio
import attrs

from .._attrs import frozen
from ..stores._contract import SessionKey, SessionStore

__all__ = [
    "OPTIONAL_METHODS",
    "STORE_CHECKS",
    "StoreCheck",
    "StoreCheckReport",
    "check_session_store",
    "has_method",
    "run_session_store_conformance",
]

#: The optional methods of the protocol, which checks probe for.
OPTIONAL_METHODS = ("list_sessions", "list_session_summaries", "delete", "list_subkeys")

StoreFactory = Callable[[], "SessionStore | Awaitable[SessionStore]"]
_CheckFunc = Callable[[Any, str], Awaitable[None]]


def has_method(store: object, name: str) -> bool:
    """``store`` implements ``name``: callable, and not a `typing.Protocol`'s default.

    A class that subclasses a protocol (ours, or the official SDK's, whose optional methods
    raise `NotImplementedError`) inherits methods it does not implement; those count as
    absent, as the official SDK's own probe counts them.
    """
    if not callable(getattr(store, name, None)):
        return False
    for cls in type(store).__mro__:
        if name in vars(cls):
            return not getattr(cls, "_is_protocol", False)
    return True  # an instance attribute


@frozen
class StoreCheck:
    """One named conformance check.

    Attributes:
        name: A short identifier (``uuid_dedup_across_batches``), also ``str(check)``.
        doc: What it checks.
        needs: The optional methods it calls (it is skipped on a store lacking one).
    """

    name: str
    doc: str
    needs: tuple[str, ...]
    _func: _CheckFunc = attrs.field(repr=False, alias="func")

    def __str__(self) -> str:
        return self.name

    def missing(self, store: object) -> list[str]:
        """The optional methods this check needs that ``store`` lacks."""
        return [name for name in self.needs if not has_method(store, name)]

    async def __call__(self, store: object) -> None:
        """Run the check on ``store`` (which should be empty).

        Raises:
            AssertionError: the store broke the contract.
        """
        await self._func(store, secrets.token_hex(4))


@frozen
class StoreCheckReport:
    """What `check_session_store` ran (every one passed).

    Attributes:
        passed: The names of the checks that ran.
        skipped: Check name -> why it did not run.
    """

    passed: tuple[str, ...]
    skipped: Mapping[str, str]


async def check_session_store(
    make_store: StoreFactory, *, optional: bool = True, skip: Collection[str] = ()
) -> StoreCheckReport:
    """Run every check in `STORE_CHECKS`, each on a fresh store from ``make_store``.

    Args:
        make_store: Returns an empty store (or an awaitable of one) on every call.
        optional: Also check the optional methods the store has.
        skip: Names of checks not to run (a store that knowingly differs).

    Returns:
        Which checks ran and which were skipped, and why.

    Raises:
        AssertionError: one or more checks failed; the message lists each by name.
        ValueError: ``skip`` names a check that does not exist.
    """
    unknown = set(skip) - {check.name for check in STORE_CHECKS}
    if unknown:
        raise ValueError(f"no such store checks: {sorted(unknown)}")
    passed: list[str] = []
    skipped: dict[str, str] = {}
    failures: list[str] = []
    for check in STORE_CHECKS:
        if check.name in skip:
            skipped[check.name] = "skipped by the caller"
            continue
        if check.needs and not optional:
            skipped[check.name] = f"checks optional methods ({', '.join(check.needs)})"
            continue
        store = make_store()
        if inspect.isawaitable(store):
            store = await store
        missing = check.missing(store)
        if missing:
            skipped[check.name] = f"the store has no {', '.join(missing)}"
            continue
        try:
            await check(store)
        except Exception as exc:  # every failure is reported, by name
            text = str(exc) if isinstance(exc, AssertionError) else f"{type(exc).__name__}: {exc}"
            failures.append(f"{check.name}: {text}")
        else:
            passed.append(check.name)
    if failures:
        ran = len(passed) + len(failures)
        lines = "\n".join(f"  - {failure}" for failure in failures)
        raise AssertionError(f"{len(failures)} of {ran} session store checks failed:\n{lines}")
    return StoreCheckReport(passed=tuple(passed), skipped=skipped)


# ======================================================================================
# Helpers


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _same(a: object, b: object) -> bool:
    """JSON deep equality that tells ``1``, ``1.0`` and ``True`` apart."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        assert isinstance(b, list)
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _show(value: object, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


async def _expect_loads(store: Any, key: SessionKey, expected: list[dict[str, Any]] | None) -> None:
    loaded = await store.load(key)
    if expected is None:
        _expect(loaded is None, f"load({_show(key)}) gave {_show(loaded)}, expected None")
        return
    _expect(
        isinstance(loaded, list) and _same(loaded, expected),
        f"load({_show(key)}) gave {_show(loaded)}, expected {_show(expected)}",
    )


def _e(n: int | str, uuid: str | None = None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "x", "n": n, **extra}
    if uuid is not None:
        entry["uuid"] = uuid
    return entry


def _key(project_key: str, session_id: str, subpath: str | None = None) -> SessionKey:
    key: SessionKey = {"project_key": project_key, "session_id": session_id}
    if subpath is not None:
        key["subpath"] = subpath
    return key


def _refused(exc: Exception) -> bool:
    return isinstance(exc, ValueError)  # OptionsError is a ValueError too


async def _distinct(
    store: Any, keys: list[SessionKey], label: str, existing: Collection[SessionKey] = ()
) -> None:
    """Append one entry to each key; the accepted keys each load exactly their own entry,
    and the listings hold exactly the accepted and ``existing`` keys. A key may be refused
    (ValueError)."""
    accepted: list[tuple[SessionKey, dict[str, Any]]] = []
    for i, key in enumerate(keys):
        entry = _e(i, f"{label}-{i}", key=repr(key)[:200])
        try:
            await store.append(key, [entry])
        except Exception as exc:
            _expect(_refused(exc), f"append({_show(key)}) raised {exc!r}, not a ValueError")
            try:
                loaded = await store.load(key)
            except Exception as load_exc:
                _expect(
                    _refused(load_exc),
                    f"load({_show(key)}) of a refused key raised {load_exc!r}",
                )
            else:
                _expect(loaded is None, f"a refused key loads {_show(loaded)}: {_show(key)}")
            continue
        accepted.append((key, entry))
    for key, entry in accepted:
        await _expect_loads(store, key, [entry])
    listed_keys = [k for k, _ in accepted] + list(existing)
    if has_method(store, "list_sessions"):
        for project in {k["project_key"] for k in listed_keys}:
            expected = {
                k["session_id"]
                for k in listed_keys
                if k["project_key"] == project and "subpath" not in k
            }
            listed = [row["session_id"] for row in await store.list_sessions(project)]
            _expect(
                sorted(listed) == sorted(expected),
                f"list_sessions({_show(project)}) gave {_show(sorted(listed))}, "
                f"expected {_show(sorted(expected))}",
            )
    if has_method(store, "list_subkeys"):
        for project, session in {(k["project_key"], k["session_id"]) for k in listed_keys}:
            expected_subs = sorted(
                k["subpath"]
                for k in listed_keys
                if "subpath" in k and (k["project_key"], k["session_id"]) == (project, session)
            )
            subs = await store.list_subkeys({"project_key": project, "session_id": session})
            _expect(
                sorted(subs) == expected_subs,
                f"list_subkeys({project!r}, {session!r}) gave {_show(sorted(subs))}, "
                f"expected {_show(expected_subs)}",
            )


# ======================================================================================
# The checks: `async def name(store, ns)`; ``ns`` is a fresh random token for key names.

_REGISTRY: list[StoreCheck] = []


def _check(*needs: str) -> Callable[[_CheckFunc], _CheckFunc]:
    def register(func: _CheckFunc) -> _CheckFunc:
        doc = inspect.cleandoc(func.__doc__ or "")
        _REGISTRY.append(StoreCheck(func.__name__, doc, tuple(needs), func))
        return func

    return register


@_check()
async def load_unknown_key_returns_none(store: Any, ns: str) -> None:
    """``load`` of a key never written returns None (also a subkey of a written session,
    and a session of a written project)."""
    key = _key(f"{ns}-p", "s")
    await _expect_loads(store, key, None)
    await store.append(key, [_e(1, "u1")])
    await _expect_loads(store, _key(f"{ns}-p", "s", "subagents/agent-1"), None)
    await _expect_loads(store, _key(f"{ns}-p", "other"), None)
    await _expect_loads(store, _key(f"{ns}-other", "s"), None)


@_check()
async def round_trip_deep_equal(store: Any, ns: str) -> None:
    """Entries load deep-equal, types kept: unicode, escapes, nesting, numbers, nulls."""
    deep: Any = "bottom"
    for level in range(40):
        deep = {"level": level, "next": [deep]}
    entries = [
        {
            "type": "user",
            "uuid": "u1",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "héllo ✓ 😀 𝄞 עברית 中文 \u200b"}],
            },
        },
        {
            "type": "x",
            "uuid": "u2",
            "values": [1, 2.5, -3, 0, 0.0, True, False, None, "", [], {}, [[]], {"": ""}],
            "deep": deep,
        },
        {
            "type": "x",
            "uuid": "u3",
            "text": 'a\nb\r\n\tc "q" \\ \u0000 \u2028 \u2029 \x7f </script>',
            "int": 2**53,
            "neg": -(2**53),
            "small": 1e-300,
            "large": 1.5e300,
        },
        {"type": "x", "uuid": "u4", "ключ": "значение", "emoji 🔑": "✓", "a.b": {"$x": 1}},
        {"type": "x", "no_uuid": True},
    ]
    key = _key(f"{ns}-p", "s")
    await store.append(key, entries)
    await _expect_loads(store, key, entries)


@_check()
async def round_trip_large_entry(store: Any, ns: str) -> None:
    """A 1 MiB entry (as UTF-8) round-trips between small ones."""
    big = _e("big", "u-big", text="é" * (512 * 1024))
    entries = [_e(1, "u1"), big, _e(2, "u2")]
    key = _key(f"{ns}-p", "s")
    await store.append(key, entries)
    await _expect_loads(store, key, entries)


@_check()
async def appends_keep_order(store: Any, ns: str) -> None:
    """Many appends of one entry, then batches of several, load in append order."""
    key = _key(f"{ns}-p", "s")
    expected = [_e(i, f"u{i}") for i in range(200)]
    for entry in expected:
        await store.append(key, [entry])
    for start in range(200, 260, 20):
        batch = [_e(i, f"u{i}") for i in range(start, start + 20)]
        await store.append(key, batch)
        expected.extend(batch)
    await _expect_loads(store, key, expected)


@_check()
async def uuid_dedup_across_batches(store: Any, ns: str) -> None:
    """An entry whose uuid a former batch stored under the key is not stored again."""
    key = _key(f"{ns}-p", "s")
    await store.append(key, [_e(1, "a"), _e(2, "b")])
    await store.append(key, [_e(2, "b"), _e(3, "c")])
    await store.append(key, [_e(1, "a")])
    await _expect_loads(store, key, [_e(1, "a"), _e(2, "b"), _e(3, "c")])


@_check()
async def uuid_dedup_retried_partial_batch(store: Any, ns: str) -> None:
    """A batch retried after part of it landed stores only the rest, in order."""
    key = _key(f"{ns}-p", "s")
    batch = [_e(i, f"u{i}") for i in range(6)]
    await store.append(key, batch[:3])  # the first attempt landed halfway
    await store.append(key, batch)  # the retry
    await store.append(key, batch)  # and a retry of a batch that landed whole
    await _expect_loads(store, key, batch)


@_check()
async def uuid_dedup_within_batch(store: Any, ns: str) -> None:
    """A uuid repeated within one batch is stored once (the first)."""
    key = _key(f"{ns}-p", "s")
    await store.append(key, [_e(1, "a"), _e(2, "b"), _e(3, "a"), _e(4, "b"), _e(5, "c")])
    await _expect_loads(store, key, [_e(1, "a"), _e(2, "b"), _e(5, "c")])


@_check()
async def uuid_dedup_is_per_key(store: Any, ns: str) -> None:
    """The same uuid under two keys (sessions, projects, main and subkey) is stored under
    each."""
    keys = [
        _key(f"{ns}-p", "s"),
        _key(f"{ns}-p", "s2"),
        _key(f"{ns}-q", "s"),
        _key(f"{ns}-p", "s", "subagents/agent-1"),
    ]
    for key in keys:
        await store.append(key, [_e(1, "same")])
    for key in keys:
        await _expect_loads(store, key, [_e(1, "same")])


@_check()
async def entries_without_uuid_always_appended(store: Any, ns: str) -> None:
    """Entries without a uuid are never deduplicated, even when identical."""
    key = _key(f"{ns}-p", "s")
    title = {"type": "custom-title", "customTitle": "t"}
    await store.append(key, [title, title])
    await store.append(key, [title])
    await _expect_loads(store, key, [title, title, title])


@_check()
async def empty_append_creates_nothing(store: Any, ns: str) -> None:
    """``append(key, [])`` leaves no trace: load gives None, listings do not show it."""
    main = _key(f"{ns}-p", "s")
    sub = _key(f"{ns}-p", "s", "subagents/agent-1")
    await store.append(main, [])
    await store.append(sub, [])
    await _expect_loads(store, main, None)
    await _expect_loads(store, sub, None)
    if has_method(store, "list_sessions"):
        listed = await store.list_sessions(f"{ns}-p")
        _expect(listed == [], f"list_sessions after append([]) gave {_show(listed)}")
    if has_method(store, "list_subkeys"):
        subs = await store.list_subkeys({"project_key": f"{ns}-p", "session_id": "s"})
        _expect(subs == [], f"list_subkeys after append([]) gave {_show(subs)}")
    await store.append(main, [_e(1, "u1")])
    await store.append(main, [])
    await _expect_loads(store, main, [_e(1, "u1")])


@_check()
async def keys_are_isolated(store: Any, ns: str) -> None:
    """Projects, sessions, a main transcript and its subkeys each keep their own entries."""
    keys = [
        _key(f"{ns}-A", "s1"),
        _key(f"{ns}-B", "s1"),
        _key(f"{ns}-A", "s2"),
        _key(f"{ns}-A", "s1", "subagents/agent-1"),
        _key(f"{ns}-A", "s1", "subagents/agent-2"),
        _key(f"{ns}-A", "s2", "subagents/agent-1"),
    ]
    for i, key in enumerate(keys):
        await store.append(key, [_e(i, "u"), _e(i, None)])
    for i, key in enumerate(keys):
        await _expect_loads(store, key, [_e(i, "u"), _e(i, None)])


@_check()
async def similar_keys_do_not_collide(store: Any, ns: str) -> None:
    """Keys that are prefixes of each other, or that join to the same text with a separator
    or an escape, stay apart (a store may refuse the ones holding ``/``)."""
    p = f"{ns}-p"
    keys = [
        _key(p, "a"),
        _key(p, "ab"),
        _key(f"{p}a", "b"),
        _key(f"{p}-a", "b"),
        _key(p, "a-b"),
        _key(p, "a", "b"),
        _key(p, "a", "bc"),
        _key(p, "a", "b/c"),
        _key(p, "a", "b-c"),
        _key(p, "ab", "c"),
        _key(p, "a:b"),
        _key(f"{p}:a", "b"),
        _key(p, "a", "b:c"),
        _key(p, "a b"),
        _key(p, "a%2Fb"),
        _key(p, "a%2fb"),
        _key(p, "a_b"),
        _key(p, "a.jsonl"),
        _key(p, "a", "c.jsonl"),
        _key(f"{p}/a", "b"),
        _key(p, "a/b"),
        _key(p, "a/b", "c"),
        _key(f"{p}/a", "b", "c"),
    ]
    await _distinct(store, keys, "similar")


@_check()
async def hostile_keys_refused_or_opaque(store: Any, ns: str) -> None:
    """Keys holding ``..``, ``/``, ``\\``, NUL, control characters, absolute paths, empty or
    very long parts are refused (ValueError) or kept as opaque data: never reaching another
    key. (A store on a filesystem should also be checked for files outside its root.)"""
    p = f"{ns}-p"
    victims = [_key(p, "victim"), _key(p, "victim", "subagents/agent-1")]
    hostile = [
        _key("..", "s"),
        _key(".", "s"),
        _key(p, ".."),
        _key(p, "."),
        _key("", "s"),
        _key(p, ""),
        _key(f"x/../{p}", "victim"),
        _key(f"{p}/..", "s"),
        _key("/tmp", "s"),
        _key(f"/{p}", "victim"),
        _key(p, f"../{p}/victim"),
        _key(p, "victim/subagents/agent-1"),
        _key(p, "victim", "../victim"),
        _key(p, "victim", "subagents/../../victim"),
        _key(p, "victim", "subagents/../agent-1"),
        _key(p, "victim", "subagents//agent-1"),
        _key(p, "victim", "subagents/./agent-1"),
        _key(p, "victim", "/subagents/agent-1"),
        _key(p, "victim", "subagents/agent-1/"),
        _key(p, "victim", ""),
        _key(p, "victim\\..\\x"),
        _key(p, "a\x00b"),
        _key(p, "victim\x00"),
        _key(p, "line\nbreak"),
        _key(p, "victim", "subagents/agent-1\x00"),
        _key("x" * 10_000, "s"),
        _key(p, "y" * 10_000),
        _key(p, "victim", "z" * 10_000),
        _key(p, "victim", "/".join(["d"] * 2_000)),
    ]
    for i, key in enumerate(victims):
        await store.append(key, [_e(f"victim-{i}", f"v{i}")])
    await _distinct(store, hostile, "hostile", victims)
    for i, key in enumerate(victims):
        await _expect_loads(store, key, [_e(f"victim-{i}", f"v{i}")])


@_check()
async def loaded_data_is_a_copy(store: Any, ns: str) -> None:
    """Changing the entries appended, or the list and entries loaded, changes no store."""
    key = _key(f"{ns}-p", "s")
    entry = _e(1, "u1", nested={"list": [1, 2]})
    batch = [entry]
    await store.append(key, batch)
    entry["nested"]["list"].append(3)
    entry["n"] = 99
    batch.append(_e(2, "u2"))
    expected = [_e(1, "u1", nested={"list": [1, 2]})]
    await _expect_loads(store, key, expected)
    loaded = await store.load(key)
    assert loaded is not None
    loaded[0]["nested"]["list"].clear()
    loaded[0]["n"] = -1
    loaded.append(_e(3, "u3"))
    await _expect_loads(store, key, expected)


@_check()
async def concurrent_appends_keep_every_entry_once(store: Any, ns: str) -> None:
    """32 tasks appending batches to one key at once: every entry stored exactly once, each
    task's entries in its order."""
    key = _key(f"{ns}-p", "s")
    tasks, batches, size = 32, 4, 3

    async def writer(t: int) -> None:
        for b in range(batches):
            await store.append(key, [_e(f"{t}.{b}.{i}", f"t{t}-{b}-{i}") for i in range(size)])

    async with anyio.create_task_group() as tg:
        for t in range(tasks):
            tg.start_soon(writer, t)
    loaded = await store.load(key) or []
    uuids = [entry.get("uuid") for entry in loaded]
    _expect(
        len(uuids) == tasks * batches * size and len(set(uuids)) == len(uuids),
        f"{len(uuids)} entries loaded ({len(set(uuids))} distinct), "
        f"expected {tasks * batches * size}",
    )
    for t in range(tasks):
        mine = [u for u in uuids if isinstance(u, str) and u.startswith(f"t{t}-")]
        want = [f"t{t}-{b}-{i}" for b in range(batches) for i in range(size)]
        _expect(mine == want, f"task {t}'s entries loaded as {mine}, expected {want}")


@_check()
async def concurrent_duplicate_batches_stored_once(store: Any, ns: str) -> None:
    """16 tasks appending the same batch to one key at once store it once."""
    key = _key(f"{ns}-p", "s")
    batch = [_e(i, f"u{i}") for i in range(5)]
    async with anyio.create_task_group() as tg:
        for _ in range(16):
            tg.start_soon(store.append, key, batch)
    await _expect_loads(store, key, batch)


@_check("list_sessions")
async def list_sessions_lists_main_transcripts(store: Any, ns: str) -> None:
    """``list_sessions`` gives the project's main transcripts only: not other projects',
    not subkeys, not a session that has subkeys only; an unknown project gives []."""
    p = f"{ns}-p"
    await store.append(_key(p, "a"), [_e(1)])
    await store.append(_key(p, "b"), [_e(1)])
    await store.append(_key(p, "a", "subagents/agent-1"), [_e(1)])
    await store.append(_key(p, "c", "subagents/agent-1"), [_e(1)])
    await store.append(_key(f"{ns}-other", "d"), [_e(1)])
    listed = await store.list_sessions(p)
    ids = sorted(row["session_id"] for row in listed)
    _expect(ids == ["a", "b"], f"list_sessions gave {_show(listed)}, expected a and b")
    _expect(
        all(set(row) >= {"session_id", "mtime"} for row in listed),
        f"rows lack session_id or mtime: {_show(listed)}",
    )
    unknown = await store.list_sessions(f"{ns}-never")
    _expect(unknown == [], f"list_sessions of an unknown project gave {_show(unknown)}")


@_check("list_sessions")
async def list_sessions_mtime_is_epoch_ms_and_grows(store: Any, ns: str) -> None:
    """``mtime`` is an int of epoch milliseconds near now (within a day), later for a later
    write, and moves on when a session is written again."""
    p = f"{ns}-p"

    async def mtimes() -> dict[str, Any]:
        return {row["session_id"]: row["mtime"] for row in await store.list_sessions(p)}

    # The sleeps are the point: each write must come after the clock has moved on, even a
    # coarse one (file times move in steps of 1-10 ms).
    await store.append(_key(p, "a"), [_e(1, "a1")])
    first = await mtimes()
    await anyio.sleep(0.02)
    await store.append(_key(p, "b"), [_e(1, "b1")])
    second = await mtimes()
    await anyio.sleep(0.02)
    await store.append(_key(p, "a"), [_e(2, "a2")])
    third = await mtimes()
    now = time.time() * 1000
    for row in (first, second, third):
        for mtime in row.values():
            _expect(
                isinstance(mtime, int) and not isinstance(mtime, bool),
                f"mtime {mtime!r} is not an int",
            )
            _expect(
                math.isfinite(mtime) and abs(mtime - now) < 86_400_000,
                f"mtime {mtime} is not epoch milliseconds near now ({now:.0f})",
            )
    _expect(second["b"] > first["a"], f"a later write has no later mtime: {second}")
    _expect(second["a"] == first["a"], f"writing b changed a's mtime: {first} -> {second}")
    _expect(third["a"] > second["b"], f"writing a again did not move its mtime: {third}")


@_check("list_subkeys")
async def list_subkeys_lists_subpaths(store: Any, ns: str) -> None:
    """``list_subkeys`` gives the session's subpaths (nested ones too), not the main
    transcript nor another session's; an unknown session gives []."""
    p = f"{ns}-p"
    subs = ["subagents/agent-1", "subagents/agent-2", "subagents/workflows/run-1/agent-3"]
    await store.append(_key(p, "s"), [_e(1)])
    for sub in subs:
        await store.append(_key(p, "s", sub), [_e(1)])
    await store.append(_key(p, "s2", "subagents/agent-x"), [_e(1)])
    await store.append(_key(f"{ns}-q", "s", "subagents/agent-y"), [_e(1)])
    await store.append(_key(p, "main-only"), [_e(1)])
    listed = await store.list_subkeys({"project_key": p, "session_id": "s"})
    _expect(sorted(listed) == subs, f"list_subkeys gave {_show(listed)}, expected {subs}")
    for session in ("main-only", "never"):
        empty = await store.list_subkeys({"project_key": p, "session_id": session})
        _expect(empty == [], f"list_subkeys of {session!r} gave {_show(empty)}")


@_check("delete")
async def delete_main_cascades(store: Any, ns: str) -> None:
    """Deleting a main key deletes it and its subkeys, nothing else (not a session whose id
    it prefixes, not the same session id in another project); deleting a key never written
    is no error."""
    p = f"{ns}-p"
    await store.delete(_key(p, "never-written"))
    await store.delete(_key(p, "never-written", "subagents/agent-1"))
    main = _key(p, "sess")
    subs = [_key(p, "sess", "subagents/agent-1"), _key(p, "sess", "subagents/w/run/agent-2")]
    others = [
        _key(p, "sess2"),
        _key(p, "sess-x"),
        _key(p, "sess2", "subagents/agent-1"),
        _key(f"{ns}-q", "sess"),
        _key(f"{ns}-q", "sess", "subagents/agent-1"),
    ]
    for key in [main, *subs, *others]:
        await store.append(key, [_e(1, "u")])
    await store.delete(main)
    for key in [main, *subs]:
        await _expect_loads(store, key, None)
    for key in others:
        await _expect_loads(store, key, [_e(1, "u")])
    if has_method(store, "list_subkeys"):
        left = await store.list_subkeys({"project_key": p, "session_id": "sess"})
        _expect(left == [], f"list_subkeys after the delete gave {_show(left)}")
    if has_method(store, "list_sessions"):
        ids = sorted(row["session_id"] for row in await store.list_sessions(p))
        _expect(ids == ["sess-x", "sess2"], f"list_sessions after the delete gave {ids}")


@_check("delete")
async def delete_subkey_only(store: Any, ns: str) -> None:
    """Deleting a subkey deletes that subkey only."""
    p = f"{ns}-p"
    main = _key(p, "s")
    sub1 = _key(p, "s", "subagents/agent-1")
    sub2 = _key(p, "s", "subagents/agent-2")
    for key in (main, sub1, sub2):
        await store.append(key, [_e(1, "u")])
    await store.delete(sub1)
    await _expect_loads(store, sub1, None)
    await _expect_loads(store, sub2, [_e(1, "u")])
    await _expect_loads(store, main, [_e(1, "u")])
    if has_method(store, "list_subkeys"):
        left = await store.list_subkeys({"project_key": p, "session_id": "s"})
        _expect(left == ["subagents/agent-2"], f"list_subkeys gave {_show(left)}")
    if has_method(store, "list_sessions"):
        ids = [row["session_id"] for row in await store.list_sessions(p)]
        _expect(ids == ["s"], f"list_sessions after a subkey delete gave {ids}")


@_check("delete")
async def delete_then_append_starts_afresh(store: Any, ns: str) -> None:
    """After a delete the key is new: uuids it held are stored again."""
    p = f"{ns}-p"
    for key in (_key(p, "s"), _key(p, "s2", "subagents/agent-1")):
        await store.append(key, [_e(1, "u1"), _e(2, "u2")])
        await store.delete(key)
        await store.append(key, [_e(2, "u2")])
        await _expect_loads(store, key, [_e(2, "u2")])


#: The keys of ``data`` the official fold writes (a store's own keys may sit beside them).
_SUMMARY_KEYS = (
    "is_sidechain",
    "created_at",
    "cwd",
    "first_prompt",
    "first_prompt_locked",
    "command_fallback",
    "custom_title",
    "ai_title",
    "last_prompt",
    "summary_hint",
    "git_branch",
    "tag",
)


def _prompt(text: str, uuid: str, second: int, **extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": uuid,
        "timestamp": f"2024-05-01T10:00:{second:02d}.000Z",
        "message": {"role": "user", "content": text},
        **extra,
    }


async def _expect_summaries(store: Any, project: str, sessions: Collection[str]) -> None:
    """``list_session_summaries(project)`` gives one summary per session of ``sessions``,
    each the fold of what ``load`` gives, ``mtime`` in epoch ms (not older than
    ``list_sessions`` says)."""
    from ..stores._summary import fold_session_summary

    summaries = await store.list_session_summaries(project)
    _expect(isinstance(summaries, list), f"list_session_summaries gave {_show(summaries)}")
    ids = sorted(s.get("session_id") for s in summaries)
    _expect(ids == sorted(sessions), f"summaries of {ids}, expected {sorted(sessions)}")
    listed = {}
    if has_method(store, "list_sessions"):
        listed = {row["session_id"]: row["mtime"] for row in await store.list_sessions(project)}
    for summary in summaries:
        session = summary["session_id"]
        mtime, data = summary.get("mtime"), summary.get("data")
        _expect(
            isinstance(mtime, int) and not isinstance(mtime, bool) and mtime > 10**12,
            f"summary mtime {mtime!r} of {session!r} is not epoch milliseconds",
        )
        _expect(
            session not in listed or mtime >= listed[session],
            f"summary mtime {mtime} of {session!r} is older than list_sessions' "
            f"{listed.get(session)} (a fresh summary would look stale)",
        )
        _expect(isinstance(data, dict), f"summary data of {session!r} is {_show(data)}")
        key = _key(project, session)
        expected = fold_session_summary(None, key, await store.load(key) or [])["data"]
        got = {k: data[k] for k in _SUMMARY_KEYS if k in data}
        _expect(
            _same(got, expected),
            f"the summary of {session!r} is {_show(got)}, but the fold of what load gives "
            f"is {_show(expected)}",
        )


@_check("list_session_summaries")
async def summaries_fold_what_load_gives(store: Any, ns: str) -> None:
    """``list_session_summaries`` gives a summary per main transcript of the project (not
    another project's, not a session with subkeys only), each the fold of the entries
    ``load`` gives, batch after batch; an unknown project gives []."""
    p = f"{ns}-p"
    await store.append(
        _key(p, "a"),
        [
            _prompt("<command-name>/init</command-name>", "a1", 1, cwd="/work"),
            _prompt("first words", "a2", 2, gitBranch="main"),
            {"type": "custom-title", "customTitle": "A title"},
        ],
    )
    await store.append(_key(p, "a"), [{"type": "tag", "tag": "nightly"}, _prompt("more", "a3", 3)])
    await store.append(_key(p, "a"), [{"type": "tag", "tag": ""}, {"type": "x", "summary": "s"}])
    await store.append(_key(p, "b"), [_prompt("b words", "b1", 4, isSidechain=True)])
    await store.append(_key(p, "c", "subagents/agent-1"), [_prompt("sub", "c1", 5)])
    await store.append(_key(f"{ns}-other", "d"), [_prompt("elsewhere", "d1", 6)])
    await _expect_summaries(store, p, ["a", "b"])
    unknown = await store.list_session_summaries(f"{ns}-never")
    _expect(unknown == [], f"list_session_summaries of an unknown project gave {_show(unknown)}")


@_check("list_session_summaries")
async def summaries_fold_stored_entries_only(store: Any, ns: str) -> None:
    """An entry the uuid dedup does not store is not folded: a retried batch does not bring
    back an older title, and subkeys change nothing."""
    p = f"{ns}-p"
    old = {"type": "x", "uuid": "t1", "customTitle": "old title"}
    new = {"type": "x", "uuid": "t2", "customTitle": "new title"}
    await store.append(_key(p, "s"), [old])
    await store.append(_key(p, "s"), [new])
    await store.append(_key(p, "s"), [old, new, old])  # a retry
    await store.append(_key(p, "s", "subagents/agent-1"), [{"type": "x", "customTitle": "sub"}])
    await _expect_summaries(store, p, ["s"])


@_check("list_session_summaries", "delete")
async def summaries_go_with_the_session(store: Any, ns: str) -> None:
    """Deleting a subkey leaves the session's summary; deleting the session deletes it, and
    a session written again starts a new one."""
    p = f"{ns}-p"
    await store.append(_key(p, "s"), [_prompt("one", "u1", 1)])
    await store.append(_key(p, "s", "subagents/agent-1"), [_prompt("sub", "u2", 2)])
    await store.append(_key(p, "t"), [_prompt("two", "u3", 3)])
    await store.delete(_key(p, "s", "subagents/agent-1"))
    await _expect_summaries(store, p, ["s", "t"])
    await store.delete(_key(p, "s"))
    await _expect_summaries(store, p, ["t"])
    await store.append(_key(p, "s"), [_prompt("again", "u4", 4)])
    await _expect_summaries(store, p, ["s", "t"])


#: Every check, in the order `check_session_store` runs them.
STORE_CHECKS: tuple[StoreCheck, ...] = tuple(_REGISTRY)


async def run_session_store_conformance(
    make_store: StoreFactory, *, skip_optional: Collection[str] = frozenset()
) -> None:
    """`check_session_store` under the official SDK's name and signature.

    A test suite written for ``claude_agent_sdk.testing.run_session_store_conformance`` runs
    these checks unchanged; the checks of the optional methods named in ``skip_optional`` (or
    absent from the store) are skipped.

    Raises:
        AssertionError: one or more checks failed; the message lists each by name.
        ValueError: ``skip_optional`` names a method that is not optional.
    """
    unknown = set(skip_optional) - set(OPTIONAL_METHODS)
    if unknown:
        raise ValueError(f"not optional methods of a SessionStore: {sorted(unknown)}")
    skip = [c.name for c in STORE_CHECKS if set(c.needs) & set(skip_optional)]
    await check_session_store(make_store, skip=skip)
