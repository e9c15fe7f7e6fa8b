"""Every store error is typed (issue 28, item 9), and none leaves a quiet gap.

* An entry a store's ``load`` answers that is not JSON (a ``datetime``, a ``set``, ``bytes``,
  NaN, a list instead of an object, at any depth) is a `SessionStoreError` naming the entry,
  at a resume and in `claude_sdk.history` (it was a bare ``TypeError``; a non-dict entry was
  dropped without a word, a hole in the conversation the CLI resumed).
* A Redis URL whose port is not one is an `OptionsError` when the store is built (it was a
  bare ``ValueError``), never showing the password.
* A line another client pushed into a session's Redis list that is not a JSON object is a
  `SessionStoreError` from ``load`` naming the line (it was a bare ``JSONDecodeError``).
"""

from __future__ import annotations

import datetime
import decimal
import math
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import history
from claude_sdk.errors import OptionsError, SessionStoreError
from claude_sdk.stores import MemoryStore
from claude_sdk.stores._contract import SessionKey
from claude_sdk.testing import FakeCLI, ScriptedCLI

from .conftest import RedisServer, redis_missing_reason, skip_or_fail

PASSWORD = "s3cret-pa55word"

#: Values no JSON text can hold, with the type the error names.
NOT_JSON: list[tuple[object, str]] = [
    (datetime.datetime(2026, 11, 29, tzinfo=datetime.timezone.utc), "datetime"),
    ({1, 2}, "set"),
    (b"bytes", "bytes"),
    (decimal.Decimal("1.5"), "Decimal"),
    (uuid.UUID(int=7), "UUID"),
    (object(), "object"),
]


def _entry(n: int, parent: str | None) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "parentUuid": parent,
        "sessionId": SESSION,
        "timestamp": "2026-11-29T00:00:00.000Z",
        "message": {"role": "user", "content": f"turn {n}"},
    }


SESSION = "1b4a0a2c-7ca2-4f61-9a86-1c1ce7bbd0a7"


def _transcript(count: int) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    parent = None
    for n in range(count):
        entries.append(_entry(n, parent))
        parent = entries[-1]["uuid"]
    return entries


class AnsweringStore(MemoryStore):
    """A store of one's own whose ``load`` answers exactly what it is given."""

    def __init__(self, answer: object) -> None:
        super().__init__()
        self.answer = answer

    async def load(self, key: SessionKey) -> Any:
        return self.answer


def _plant(entries: list[dict[str, Any]], at: int, path: tuple[str, ...], value: object) -> None:
    """Put ``value`` into ``entries[at]`` at the nested ``path`` of object keys."""
    target = entries[at]
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value


async def _resume(store: object, tmp_path: Path) -> None:
    async def script(cli: ScriptedCLI) -> None:  # pragma: no cover - never starts
        await cli.handshake()
        await cli.serve_until_stdin_closes()

    options = cs.Options(
        session_store=store,  # type: ignore[arg-type]
        resume=SESSION,
        cwd=str(tmp_path),
        env={"CLAUDE_CONFIG_DIR": str(tmp_path / "config")},
    )
    async with cs.open_session(options, transport=FakeCLI(script)):
        pass


@pytest.mark.parametrize(("value", "kind"), NOT_JSON, ids=[k for _, k in NOT_JSON])
async def test_an_entry_that_is_not_json_fails_the_resume_by_name(
    value: object, kind: str, tmp_path: Path
) -> None:
    entries = _transcript(5)
    _plant(entries, 3, ("message", "meta", "when"), value)
    with pytest.raises(SessionStoreError) as caught:
        await _resume(AnsweringStore(entries), tmp_path)
    error = caught.value
    assert error.operation == "load"
    assert not error.retryable  # asking the store again gets the same answer
    assert error.key["session_id"] == SESSION
    assert "entries[3] of 5" in error.message
    assert kind in error.message
    # Nothing was written where the CLI would read it.
    assert not list((tmp_path / "config").rglob("*.jsonl"))


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ([*_transcript(2), ["not", "an", "object"]], "entries[2] of 3 is a list"),
        ([*_transcript(2), "text"], "entries[2] of 3 is a str"),
        ([_transcript(1)[0], None], "entries[1] of 2 is a NoneType"),
        ([{**_transcript(1)[0], "cost": math.nan}], "entries[0] of 1 is not JSON"),
        ({"entries": _transcript(2)}, "answered a dict"),
        (tuple(_transcript(2)), "answered a tuple"),
    ],
    ids=["list", "str", "none", "nan", "dict", "tuple"],
)
async def test_a_load_answer_that_is_not_a_list_of_objects_fails_the_resume(
    answer: object, says: str, tmp_path: Path
) -> None:
    with pytest.raises(SessionStoreError) as caught:
        await _resume(AnsweringStore(answer), tmp_path)
    assert says in caught.value.message


_leaf = st.sampled_from([v for v, _ in NOT_JSON])
_path = st.lists(
    st.sampled_from(["message", "toolUseResult", "extra", "x"]), min_size=1, max_size=4
)


@settings(max_examples=60, deadline=None)
@given(count=st.integers(1, 30), data=st.data(), leaf=_leaf, path=_path)
def test_any_entry_with_a_value_json_cannot_hold_is_named(
    count: int, data: st.DataObject, leaf: object, path: list[str]
) -> None:
    from claude_sdk.stores._memory import checked_load

    entries = _transcript(count)
    at = data.draw(st.integers(0, count - 1))
    _plant(entries, at, tuple(path), leaf)
    with pytest.raises(SessionStoreError) as caught:
        checked_load(entries, {"project_key": "p", "session_id": SESSION})
    assert f"entries[{at}] of {count}" in caught.value.message
    assert type(leaf).__name__ in caught.value.message


def test_a_whole_answer_is_kept_as_it_is() -> None:
    from claude_sdk.stores._memory import checked_load

    entries = _transcript(4)
    assert checked_load(entries, {"project_key": "p", "session_id": SESSION}) is entries
    assert checked_load(None, {"project_key": "p", "session_id": SESSION}) is None


async def test_history_reads_of_such_a_store_are_typed(tmp_path: Path) -> None:
    entries = _transcript(3)
    _plant(entries, 1, ("message", "when"), {1, 2})
    store = AnsweringStore(entries)
    with pytest.raises(SessionStoreError) as caught:
        await history.in_store(store, cwd=str(tmp_path)).read_session(SESSION)
    assert "entries[1] of 3" in caught.value.message
    assert "set" in caught.value.message


# ======================================================================================
# Redis


def _require_redis() -> None:
    reason = redis_missing_reason()
    if reason is not None:
        skip_or_fail(reason)


@settings(max_examples=40, deadline=None)
@given(
    port=st.one_of(
        st.integers(65536, 10**12).map(str),
        st.text("abcxyz-_!~", min_size=1, max_size=8),
    ),
    scheme=st.sampled_from(["redis", "rediss"]),
)
def test_a_redis_url_with_a_bad_port_is_refused_when_built(port: str, scheme: str) -> None:
    _require_redis()
    from claude_sdk.stores import RedisStore

    url = f"{scheme}://user:{PASSWORD}@127.0.0.1:{port}/0"
    with pytest.raises(OptionsError) as caught:
        RedisStore(url)
    assert caught.value.option == "client_or_url"
    assert "port" in caught.value.message
    assert PASSWORD not in str(caught.value)
    assert PASSWORD not in repr(caught.value)


async def test_a_line_another_client_pushed_is_a_typed_error(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    import redis

    from claude_sdk.stores import RedisStore

    client = redis.Redis(host="127.0.0.1", port=redis_server.port)
    prefix = f"garbage-{uuid.uuid4().hex[:8]}:"
    store = RedisStore(client, prefix=prefix)
    project = "-proj"
    key: SessionKey = {"project_key": project, "session_id": SESSION}
    try:
        await store.append(key, _transcript(3))
        name = next(iter(client.scan_iter(match=f"{prefix}entries:*")))
        for garbage in (b"{not json", b"[1, 2]", b"\xff\xfe"):
            client.rpush(name, garbage)
            with pytest.raises(SessionStoreError) as caught:
                await store.load(key)
            assert caught.value.operation == "load"
            assert "line 3 of 4 is not a JSON object" in caught.value.message
            assert not caught.value.retryable
            client.rpop(name)
        assert await store.load(key) == _transcript(3)
    finally:
        client.close()


async def test_a_password_in_the_url_never_shows_in_a_load_error(
    redis_server: RedisServer,
) -> None:
    import redis

    from claude_sdk.stores import RedisStore

    admin = redis.Redis(host="127.0.0.1", port=redis_server.port)
    user = f"u{uuid.uuid4().hex[:6]}"
    admin.acl_setuser(
        user, enabled=True, passwords=[f"+{PASSWORD}"], keys=["*"], commands=["+@all"]
    )
    prefix = f"pw-{uuid.uuid4().hex[:8]}:"
    store = RedisStore(f"redis://{user}:{PASSWORD}@127.0.0.1:{redis_server.port}/0", prefix=prefix)
    key: SessionKey = {"project_key": "p", "session_id": SESSION}
    try:
        await store.append(key, _transcript(1))
        name = next(iter(admin.scan_iter(match=f"{prefix}entries:*")))
        admin.rpush(name, b"not json at all")
        with pytest.raises(SessionStoreError) as caught:
            await store.load(key)
        assert PASSWORD not in str(caught.value)
        assert "***" in str(caught.value)
    finally:
        store.client.close()
        admin.acl_deluser(user)
        admin.close()
