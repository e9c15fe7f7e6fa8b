"""`MemoryStore`: a `SessionStore` in this process's memory, and what every store shares.

Contract (as for every shipped store, see `claude_sdk.stores`):

* an entry's idempotency key is its ``"uuid"`` when that is a non-empty string; such an
  entry already stored under the same key (by an earlier batch or earlier in the same
  batch) is skipped; other entries are always appended;
* entries are kept as JSON (encoded on `append`, decoded on `load`), so a loaded list and its
  entries are fresh objects, and the caller's objects are never kept or changed;
* a main transcript's ``mtime`` is the store's clock in epoch milliseconds, strictly
  increasing from one write to the next in this process; subkeys have no ``mtime`` of their
  own in `list_sessions`;
* keys are checked by `check_key` (the same rules in every store, so a key one store takes
  every store takes): an invalid key raises `OptionsError`, a `ValueError`;
* a session's summary (`list_session_summaries`) is folded, in the same locked step as the
  append, over the lines that append stored (`fold_for_store`), and goes with the session.

The module also holds the helpers the other stores share: `check_key`, `encode_entry`,
`decode_entry` and `uuid_of`; and `checked_load`, the one check of what any store's ``load``
answered before the SDK writes it where the CLI reads it.

Known limitation of the JSON round trip: integers beyond 64 bits come back as floats (orjson
reads them so; the CLI, written in JavaScript, never writes such integers).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

import attrs
import orjson

from .._attrs import define
from ..errors import OptionsError, SessionStoreError
from ._contract import (
    SessionKey,
    SessionListSubkeysKey,
    SessionStoreEntry,
    SessionStoreListEntry,
    SessionSummaryEntry,
)
from ._keys import check_key_part, subpath_is_safe
from ._lease import SessionLease

__all__ = [
    "MemoryStore",
    "check_key",
    "checked_load",
    "decode_entry",
    "decode_lines",
    "encode_entry",
    "uuid_of",
]


def check_key(key: Mapping[str, object]) -> tuple[str, str, str | None]:
    """``(project_key, session_id, subpath or None)`` of a valid store key.

    ``project_key`` and ``session_id`` must pass `check_key_part` (non-empty, not ``.`` or
    ``..``, no ``/``, ``\\``, NUL or other control character, at most 512 characters);
    ``subpath``, when present and not ``None``, must be ``/``-separated parts that each pass
    it (so ``""``, ``"/x"``, ``"a//b"`` and ``"a/../b"`` are refused).

    Raises:
        OptionsError: ``key`` is not a mapping, or a part is missing or invalid.
    """
    if not isinstance(key, Mapping):
        raise OptionsError(
            f"a session store key must be a dict, not {type(key).__name__}", option="key"
        )
    project_key = _part(key.get("project_key"), "project_key")
    session_id = _part(key.get("session_id"), "session_id")
    subpath = key.get("subpath")
    if subpath is None:
        return project_key, session_id, None
    if not subpath_is_safe(subpath):
        shown = subpath[:80] if isinstance(subpath, str) else type(subpath).__name__
        raise OptionsError(
            f"session store key: subpath {shown!r} is not relative '/'-separated safe parts",
            option="subpath",
        )
    assert isinstance(subpath, str)  # subpath_is_safe checked it
    return project_key, session_id, subpath


def _part(value: object, name: str) -> str:
    try:
        return check_key_part(value, name)
    except ValueError as exc:
        raise OptionsError(f"session store key: {exc}", option=name) from None


def check_session(key: Mapping[str, object]) -> tuple[str, str]:
    """``(project_key, session_id)`` of a `SessionListSubkeysKey` (a ``subpath`` is ignored)."""
    project_key, session_id, _ = check_key({**key, "subpath": None})
    return project_key, session_id


def check_project(project_key: object) -> str:
    """``project_key`` if valid (see `check_key`).

    Raises:
        OptionsError: it is not.
    """
    return _part(project_key, "project_key")


def uuid_of(entry: Mapping[str, Any]) -> str | None:
    """The entry's idempotency key: its ``"uuid"`` if a non-empty string, else None."""
    value = entry.get("uuid")
    return value if isinstance(value, str) and value else None


def encode_entry(entry: object, index: int = 0) -> bytes:
    """One entry as compact JSON (UTF-8, no newline: JSON escapes every newline).

    orjson first; the standard library for what orjson refuses (lone surrogates, integers
    beyond 64 bits), written ASCII-only so the text stays valid UTF-8.

    Raises:
        OptionsError: ``entry`` is not a dict, or not JSON (``index`` names it).
    """
    if not isinstance(entry, dict):
        raise OptionsError(
            f"session store entries[{index}] must be a dict, not {type(entry).__name__}",
            option="entries",
        )
    try:
        return orjson.dumps(entry)
    except TypeError:
        pass
    try:
        return json.dumps(entry, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode()
    except (TypeError, ValueError) as exc:
        raise OptionsError(
            f"session store entries[{index}] is not JSON: {exc}", option="entries"
        ) from None


#: The kind of a `SessionStoreError` for what a store holds or answered that is not a
#: transcript (asking again gets the same answer: not retryable).
INVALID_KIND = "session_store_invalid"


def checked_load(answer: object, key: Mapping[str, Any]) -> list[SessionStoreEntry] | None:
    """What a store's ``load(key)`` answered, checked: None, or a list of JSON objects.

    Every entry is kept or the whole answer is refused: an entry dropped here would be a turn
    missing from the conversation the CLI resumes, with nothing to say so.

    Raises:
        SessionStoreError: the answer is not a list, or an entry is not a dict or not JSON (a
            ``datetime``, a ``set``, ``bytes``); the message names the entry and its type
            (kind `INVALID_KIND`, not retryable).
    """
    if answer is None:
        return None
    where = {k: str(v) for k, v in key.items()}
    if not isinstance(answer, list):
        raise SessionStoreError(
            f"session store load answered a {type(answer).__name__}, not a list of entries "
            "(or None)",
            operation="load",
            key=where,
            kind=INVALID_KIND,
        )
    for index, entry in enumerate(answer):
        problem = None
        if not isinstance(entry, dict):
            problem = f"is a {type(entry).__name__}, not a JSON object"
        else:
            try:  # JSON as the CLI reads it: no datetime, set, bytes, NaN (orjson takes some)
                json.dumps(entry, allow_nan=False)
            except (TypeError, ValueError, RecursionError) as exc:
                problem = f"is not JSON: {type(exc).__name__}: {exc}"
        if problem is not None:
            raise SessionStoreError(
                f"session store load: entries[{index}] of {len(answer)} {problem}",
                operation="load",
                key=where,
                kind=INVALID_KIND,
            )
    return answer


def decode_lines(lines: Iterable[bytes | str]) -> list[SessionStoreEntry]:
    """The entries of stored lines, in order; a line that is not a JSON object is skipped
    (as `DirectoryStore` skips a torn line on load)."""
    entries = []
    for line in lines:
        if line:
            try:
                entries.append(decode_entry(line))
            except ValueError:
                continue
    return entries


def decode_entry(line: bytes | str) -> SessionStoreEntry:
    """The entry `encode_entry` wrote.

    Raises:
        ValueError: ``line`` is not a JSON object.
    """
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        value = json.loads(line)  # lone surrogate escapes: orjson refuses them
    if not isinstance(value, dict):
        # A value error: the text is JSON, of the wrong kind (as for any other bad line).
        raise ValueError(  # noqa: TRY004
            f"a stored entry is a {type(value).__name__}, not a JSON object"
        )
    return value


@define(eq=False)
class _Transcript:
    lines: list[bytes] = attrs.field(factory=list)
    uuids: set[str] = attrs.field(factory=set)
    mtime: int = 0


@define(eq=False)
class _Session:
    main: _Transcript | None = None
    subs: dict[str, _Transcript] = attrs.field(factory=dict)
    #: The main transcript's summary (`fold_for_store`), as JSON.
    summary: bytes | None = None


@define(eq=False)
class MemoryStore:
    """A `SessionStore` in this process's memory: for tests and single-process programs.

    Every method is synchronous inside (no ``await`` while the data is changed) and takes a
    lock, so the store may be shared by tasks of one event loop and by threads. The data
    is lost when the process ends.
    """

    _projects: dict[str, dict[str, _Session]] = attrs.field(factory=dict, init=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)
    _last_mtime: int = attrs.field(default=0, init=False)
    #: Leases by session: (owner, token, expiry on the monotonic clock).
    _leases: dict[tuple[str, str], tuple[str, int, float]] = attrs.field(factory=dict, init=False)
    #: The last token issued per session (kept when the session is deleted).
    _lease_tokens: dict[tuple[str, str], int] = attrs.field(factory=dict, init=False)

    def __reduce__(self) -> Any:
        # A copy in another process would be a second store that nobody writes to.
        raise TypeError(
            "a MemoryStore lives in one process and cannot be pickled; use DirectoryStore "
            "or RedisStore for sessions that cross processes"
        )

    async def append(self, key: SessionKey, entries: list[SessionStoreEntry]) -> None:
        """Store ``entries`` after those under ``key``, skipping uuids already stored there.

        Raises:
            OptionsError: ``key`` is invalid or an entry is not a JSON object.
        """
        where = check_key(key)
        encoded = [(uuid_of(e), encode_entry(e, i)) for i, e in enumerate(entries)]
        if not encoded:
            return
        with self._lock:
            self._append_locked(where, encoded)

    def _append_locked(
        self, where: tuple[str, str, str | None], encoded: list[tuple[str | None, bytes]]
    ) -> None:
        project_key, session_id, subpath = where
        session = self._projects.setdefault(project_key, {}).setdefault(session_id, _Session())
        if subpath is None:
            if session.main is None:
                session.main = _Transcript()
            transcript = session.main
        else:
            transcript = session.subs.setdefault(subpath, _Transcript())
        added: list[bytes] = []
        for uuid, line in encoded:
            if uuid is not None:
                if uuid in transcript.uuids:
                    continue
                transcript.uuids.add(uuid)
            transcript.lines.append(line)
            added.append(line)
        if added:
            transcript.mtime = self._next_mtime()
            if subpath is None:  # the summary folds what was stored, nothing else
                prev = None if session.summary is None else orjson.loads(session.summary)
                from ._summary import fold_for_store  # on the first append, not at import

                folded = fold_for_store(prev, session_id, decode_lines(added))
                folded["mtime"] = transcript.mtime
                session.summary = orjson.dumps(folded)

    # -- leases (see claude_sdk.stores._lease) ----------------------------------------

    async def acquire_lease(
        self, key: SessionListSubkeysKey, owner: str, ttl: float, replace: str | None = None
    ) -> SessionLease:
        """Take the session's lease for ``owner`` unless another live owner holds it; the
        lease now in force.

        Raises:
            OptionsError: ``key`` is invalid.
        """
        session = check_session(key)
        with self._lock:
            now = time.monotonic()
            held = self._leases.get(session)
            if held is not None and held[2] > now and held[0] not in (owner, replace):
                return {"owner": held[0], "token": held[1], "expires_in": held[2] - now}
            if held is not None and held[0] == owner and held[2] > now:
                token = held[1]
            else:
                token = self._lease_tokens.get(session, 0) + 1
                self._lease_tokens[session] = token
            self._leases[session] = (owner, token, now + ttl)
            return {"owner": owner, "token": token, "expires_in": float(ttl)}

    async def renew_lease(
        self, key: SessionListSubkeysKey, owner: str, token: int, ttl: float
    ) -> bool:
        """Extend ``owner``'s lease; False once a newer token was issued for the session."""
        session = check_session(key)
        with self._lock:
            if self._lease_tokens.get(session) != token:
                return False
            self._leases[session] = (owner, token, time.monotonic() + ttl)
            return True

    async def release_lease(self, key: SessionListSubkeysKey, owner: str, token: int) -> None:
        """Give up ``owner``'s lease (nothing if it is not theirs)."""
        session = check_session(key)
        with self._lock:
            held = self._leases.get(session)
            if held is not None and held[:2] == (owner, token):
                del self._leases[session]

    async def append_fenced(
        self, key: SessionKey, entries: list[SessionStoreEntry], token: int
    ) -> bool:
        """`append`, unless a newer token than ``token`` was issued for the session (then
        False and nothing stored)."""
        where = check_key(key)
        encoded = [(uuid_of(e), encode_entry(e, i)) for i, e in enumerate(entries)]
        with self._lock:
            if self._lease_tokens.get(where[:2], 0) > token:
                return False
            if encoded:
                self._append_locked(where, encoded)
            return True

    async def load(self, key: SessionKey) -> list[SessionStoreEntry] | None:
        """A fresh copy of everything under ``key`` in append order, or None if never written.

        Raises:
            OptionsError: ``key`` is invalid.
        """
        project_key, session_id, subpath = check_key(key)
        with self._lock:
            transcript = self._find(project_key, session_id, subpath)
            lines = None if transcript is None else list(transcript.lines)
        return None if not lines else [decode_entry(line) for line in lines]

    async def list_sessions(self, project_key: str) -> list[SessionStoreListEntry]:
        """The main transcripts of ``project_key`` with their last write time (epoch ms).

        Raises:
            OptionsError: ``project_key`` is invalid.
        """
        project_key = check_project(project_key)
        with self._lock:
            sessions = self._projects.get(project_key, {})
            return [
                {"session_id": session_id, "mtime": session.main.mtime}
                for session_id, session in sessions.items()
                if session.main is not None
            ]

    async def list_session_summaries(self, project_key: str) -> list[SessionSummaryEntry]:
        """The summary of each main transcript of ``project_key`` (fresh copies), kept at
        every append of a main key; ``mtime`` is that of `list_sessions`.

        Raises:
            OptionsError: ``project_key`` is invalid.
        """
        project_key = check_project(project_key)
        with self._lock:
            kept = [s.summary for s in self._projects.get(project_key, {}).values()]
        return [orjson.loads(summary) for summary in kept if summary is not None]

    async def delete(self, key: SessionKey) -> None:
        """Delete ``key``; a main key takes every subkey of its session with it.

        Raises:
            OptionsError: ``key`` is invalid.
        """
        project_key, session_id, subpath = check_key(key)
        with self._lock:
            sessions = self._projects.get(project_key)
            if sessions is None or session_id not in sessions:
                return
            if subpath is None:
                del sessions[session_id]
            else:
                session = sessions[session_id]
                session.subs.pop(subpath, None)
                if session.main is None and not session.subs:
                    del sessions[session_id]
            if not sessions:
                del self._projects[project_key]

    async def list_subkeys(self, key: SessionListSubkeysKey) -> list[str]:
        """The subpaths stored under a session (sorted; the main transcript is not one).

        Raises:
            OptionsError: ``key`` is invalid.
        """
        project_key, session_id = check_session(key)
        with self._lock:
            session = self._projects.get(project_key, {}).get(session_id)
            return [] if session is None else sorted(session.subs)

    def _find(self, project_key: str, session_id: str, subpath: str | None) -> _Transcript | None:
        session = self._projects.get(project_key, {}).get(session_id)
        if session is None:
            return None
        return session.main if subpath is None else session.subs.get(subpath)

    def _next_mtime(self) -> int:
        # Strictly increasing, so back-to-back writes never share an mtime even when the
        # wall clock does not move (or steps back).
        now = time.time_ns() // 1_000_000
        self._last_mtime = max(now, self._last_mtime + 1)
        return self._last_mtime
