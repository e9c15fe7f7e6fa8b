"""`DirectoryStore`: a `SessionStore` in JSON-lines files under one directory.

Layout, the CLI's own: ``<root>/<project_key>/<session_id>.jsonl`` for a main transcript,
``<root>/<project_key>/<session_id>/<subpath>.jsonl`` for a file kept under the session;
and ``<root>/<project_key>/<session_id>.summary``, the session's summary
(`list_session_summaries`): JSON of the summary, the transcript's inode, the offset of the
last line it folds and a hash of the bytes before it. An append rewrites it under the
transcript's lock (atomically, by rename); a listing checks it against the transcript and
folds the lines after its offset (from the start if it is missing or was made from another
file), so a summary is always the fold of what ``load`` gives, whoever appended. A sidecar
file rather than a fold of every transcript at each listing: a listing reads a small file and
the tail the summary lacks, not whole transcripts.
Directories are created ``0o700`` and files ``0o600`` (transcripts hold prompts and code).

Guarantees, for every process that uses a `DirectoryStore` on the same root:

* an `append` is one ``O_APPEND`` write of whole lines, made while holding an exclusive
  ``flock`` on the file (plus a lock inside the process, for filesystems where ``flock``
  is per process). Concurrent appenders to one key, in any number of processes, never
  interleave lines and never store one ``uuid`` twice: each reads what was appended since
  it last looked, under the lock, before it writes;
* a reader takes no lock: it sees whole lines only (an unfinished last line is left for the
  next read). A line torn by a crash is ended by the next append and skipped (with a
  warning) on load;
* `delete` takes each file's lock before it unlinks it, so an append either lands before
  the delete (and is deleted) or after it (in a new file);
* keys cannot name a path outside ``root``: besides `check_key`'s rules, a session id or a
  subpath directory may not end in ``.jsonl`` (it would clash with a transcript file), a
  part may be at most 249 bytes on disk (255, the usual name limit, less ``.jsonl``), a
  subpath at most 64 parts and a whole path under 4096 bytes. Such keys raise
  `OptionsError` (a `ValueError`).

On a network filesystem these hold where ``flock`` works across hosts (NFSv4, or NFSv3 with
``lockd``: Linux maps ``flock`` to byte-range locks there); without working locks the dedup
is best-effort. The filesystem must be case-sensitive for keys differing in case only.

Every file operation runs in a worker thread (``anyio.to_thread.run_sync``), so no method
blocks the event loop. OS errors are raised as `SessionStoreError`.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import anyio.to_thread
import attrs
import orjson

from .._attrs import define
from .._listing import pread_all as _pread_all
from ..errors import OptionsError, SessionStoreError
from ._contract import (
    SessionKey,
    SessionListSubkeysKey,
    SessionStoreEntry,
    SessionStoreListEntry,
    SessionSummaryEntry,
)
from ._lease import SessionLease
from ._memory import (
    check_key,
    check_project,
    check_session,
    decode_entry,
    decode_lines,
    encode_entry,
    uuid_of,
)
from ._summary import fold_for_store, has_listing_state

__all__ = ["DirectoryStore"]

logger = logging.getLogger("claude_sdk.stores")

_T = TypeVar("_T")

_SUFFIX = ".jsonl"
#: A session's lease file: ``<project>/<session id>.lease`` (no session id ends so here).
_LEASE = ".lease"
#: A session's summary: ``<project>/<session id>.summary`` (no session id ends so here).
_SUMMARY = ".summary"
#: Bytes before a summary's offset whose hash it keeps (to tell the file it was made from).
_SUMMARY_CHECK = 64
#: The longest file or directory name part a key may give (``NAME_MAX`` less ``.jsonl``).
_MAX_NAME_BYTES = 255 - len(_SUFFIX)
#: The most ``/``-separated parts a subpath may have.
_MAX_DEPTH = 64
#: The longest path a key may give (``PATH_MAX`` on Linux).
_MAX_PATH_BYTES = 4096
#: Per-file dedup indexes a store keeps (least recently used dropped first).
_INDEX_CACHE = 256
#: Stripes of the in-process lock (files hash onto them).
_STRIPES = 64
_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW


@define(eq=False)
class _Index:
    """What this process knows of one file: its identity, how far it read, its uuids."""

    dev: int
    ino: int
    offset: int
    clean_end: bool
    uuids: set[str]


def _name(part: str, what: str) -> str:
    """``part`` as it goes on disk, checked for length."""
    if len(os.fsencode(part)) > _MAX_NAME_BYTES:
        raise OptionsError(
            f"session store key: {what} {part[:80]!r} is longer than {_MAX_NAME_BYTES} bytes "
            "on disk",
            option=what,
        )
    return part


def _dir_name(part: str, what: str) -> str:
    if part.endswith(_SUFFIX):
        raise OptionsError(
            f"session store key: {what} {part[:80]!r} ends in {_SUFFIX} (it would clash "
            "with a transcript file in a DirectoryStore)",
            option=what,
        )
    if what == "session_id" and part.endswith(_SUMMARY):
        raise OptionsError(
            f"session store key: session_id {part[:80]!r} ends in {_SUMMARY} (it would "
            "clash with a session's summary file in a DirectoryStore)",
            option=what,
        )
    if what == "session_id" and part.endswith(_LEASE):
        raise OptionsError(
            f"session store key: session_id {part[:80]!r} ends in {_LEASE} (it would clash "
            "with a session's lease file in a DirectoryStore)",
            option=what,
        )
    return _name(part, what)


def _read_lease(fd: int) -> dict[str, Any]:
    """The record of a lease file (empty if it has none yet, or a torn one)."""
    try:
        record = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}


def _token_of(record: dict[str, Any]) -> int:
    token = record.get("token")
    return token if isinstance(token, int) and not isinstance(token, bool) else 0


def _absolute(path: str | os.PathLike[str]) -> str:
    return os.path.abspath(os.fspath(path))


@define(eq=False, repr=False)
class DirectoryStore:
    """A `SessionStore` in JSON-lines files under ``root``, shared safely by processes.

    ``DirectoryStore(root, *, fsync=False)``.

    Attributes:
        root: The directory (created on the first append). A relative path is made
            absolute when the store is built.
        fsync: ``fsync`` each file after appending to it (slower; survives power loss).
    """

    root: str = attrs.field(converter=_absolute)
    fsync: bool = attrs.field(default=False, kw_only=True)
    _cache: OrderedDict[str, _Index] = attrs.field(factory=OrderedDict, init=False)
    _cache_lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)
    _stripes: tuple[threading.Lock, ...] = attrs.field(
        factory=lambda: tuple(threading.Lock() for _ in range(_STRIPES)), init=False
    )
    #: Leases this process holds: lease file -> (fd holding its flock, owner, token).
    _held: dict[str, tuple[int, str, int]] = attrs.field(factory=dict, init=False)
    _held_lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)

    def __repr__(self) -> str:
        return f"DirectoryStore({self.root!r}, fsync={self.fsync!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its root (Ray, Dask, Temporal payloads): the other process opens the
        # same directory with locks and caches of its own.
        return (_rebuild, (self.root, self.fsync))

    # -- the protocol ------------------------------------------------------------------

    async def append(self, key: SessionKey, entries: list[SessionStoreEntry]) -> None:
        """Append ``entries`` to ``key``'s file, skipping uuids it already holds.

        Raises:
            OptionsError: ``key`` is invalid or an entry is not a JSON object.
            SessionStoreError: the file could not be written.
        """
        path, main = self._path(key)
        encoded = [(uuid_of(e), encode_entry(e, i)) for i, e in enumerate(entries)]
        if not encoded:
            return
        await self._run("append", key, len(encoded), self._append_sync, path, encoded, main)

    # -- leases (see claude_sdk.stores._lease) ----------------------------------------

    async def acquire_lease(
        self, key: SessionListSubkeysKey, owner: str, ttl: float, replace: str | None = None
    ) -> SessionLease:
        """Take the session's lease for ``owner``: an ``flock`` on ``<session id>.lease``
        held while this process lives (``ttl`` and ``replace`` are not needed: the kernel
        lets a dead owner's lock go); the lease now in force.

        Raises:
            OptionsError: ``key`` is invalid.
            SessionStoreError: the lease file could not be opened or written.
        """
        path = self._lease_path(key)
        return await self._run("acquire_lease", key, 0, self._acquire_sync, path, owner)

    async def renew_lease(
        self, key: SessionListSubkeysKey, owner: str, token: int, ttl: float
    ) -> bool:
        """Whether this process still holds ``owner``'s lease (an ``flock`` needs no renewal)."""
        path = self._lease_path(key)
        with self._held_lock:
            held = self._held.get(path)
        return held is not None and held[1:] == (owner, token)

    async def release_lease(self, key: SessionListSubkeysKey, owner: str, token: int) -> None:
        """Let ``owner``'s lease go (the file stays: it keeps the last token)."""
        path = self._lease_path(key)
        with self._held_lock:
            held = self._held.get(path)
            if held is None or held[1:] != (owner, token):
                return
            del self._held[path]
        os.close(held[0])  # closing releases the flock

    async def append_fenced(
        self, key: SessionKey, entries: list[SessionStoreEntry], token: int
    ) -> bool:
        """`append`, if this process holds the session's lease with ``token`` (while it does,
        nobody else can have a newer one); False, and nothing stored, otherwise."""
        lease = self._lease_path(key)
        with self._held_lock:
            held = self._held.get(lease)
        if held is None or held[2] != token:
            return False
        await self.append(key, entries)
        return True

    def _lease_path(self, key: SessionListSubkeysKey | SessionKey) -> str:
        project_key, session_id = check_session(key)
        return os.path.join(
            self.root,
            _name(project_key, "project_key"),
            _dir_name(session_id, "session_id") + _LEASE,
        )

    def _acquire_sync(self, path: str, owner: str) -> SessionLease:
        with self._held_lock:
            held = self._held.get(path)
            if held is not None and held[1] == owner:
                return {"owner": owner, "token": held[2], "expires_in": None}
        _make_dirs(os.path.dirname(path))
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                record = _read_lease(fd)
                holder = record.get("owner")
                return {
                    "owner": holder if isinstance(holder, str) else "?",
                    "token": _token_of(record),
                    "expires_in": None,
                }
            token = _token_of(_read_lease(fd)) + 1
            data = json.dumps({"owner": owner, "token": token}).encode()
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
            if self.fsync:
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        with self._held_lock:
            self._held[path] = (fd, owner, token)
        return {"owner": owner, "token": token, "expires_in": None}

    async def load(self, key: SessionKey) -> list[SessionStoreEntry] | None:
        """Every whole entry in ``key``'s file in order, or None if there is none.

        Raises:
            OptionsError: ``key`` is invalid.
            SessionStoreError: the file could not be read.
        """
        path, _ = self._path(key)
        return await self._run("load", key, 0, self._load_sync, path, abandon=True)

    async def list_sessions(self, project_key: str) -> list[SessionStoreListEntry]:
        """The main transcripts of ``project_key``, ``mtime`` from the files (epoch ms).

        Raises:
            OptionsError: ``project_key`` is invalid.
            SessionStoreError: the directory could not be read.
        """
        directory = os.path.join(self.root, _name(check_project(project_key), "project_key"))
        key = {"project_key": project_key}
        return await self._run("list_sessions", key, 0, _list_sessions, directory, abandon=True)

    async def list_session_summaries(self, project_key: str) -> list[SessionSummaryEntry]:
        """The summary of each main transcript of ``project_key``, ``mtime`` the file's.

        Each is the session's ``<session id>.summary`` file brought up to date with the
        lines appended since it was written (by a process that kept no summary, or one that
        stopped before it wrote it): so it always folds exactly what `load` returns.

        Raises:
            OptionsError: ``project_key`` is invalid.
            SessionStoreError: the directory could not be read.
        """
        directory = os.path.join(self.root, _name(check_project(project_key), "project_key"))
        key = {"project_key": project_key}
        return await self._run(
            "list_session_summaries", key, 0, self._summaries_sync, directory, abandon=True
        )

    async def delete(self, key: SessionKey) -> None:
        """Delete ``key``'s file; for a main key, every file kept under the session too.

        Raises:
            OptionsError: ``key`` is invalid.
            SessionStoreError: a file could not be deleted.
        """
        path, main = self._path(key)
        cascade = path[: -len(_SUFFIX)] if main else None
        await self._run("delete", key, 0, self._delete_sync, path, cascade)

    async def list_subkeys(self, key: SessionListSubkeysKey) -> list[str]:
        """The subpaths stored under a session, sorted.

        Raises:
            OptionsError: ``key`` is invalid.
            SessionStoreError: the directory could not be read.
        """
        project_key, session_id = check_session(key)
        directory = os.path.join(
            self.root, _name(project_key, "project_key"), _dir_name(session_id, "session_id")
        )
        return await self._run("list_subkeys", key, 0, _list_subkeys, directory, abandon=True)

    # -- paths -------------------------------------------------------------------------

    def _path(self, key: SessionKey) -> tuple[str, bool]:
        """The file of ``key`` and whether it is a main transcript."""
        project_key, session_id, subpath = check_key(key)
        parts = [_name(project_key, "project_key")]
        if subpath is None:
            parts.append(_dir_name(session_id, "session_id") + _SUFFIX)
        else:
            parts.append(_dir_name(session_id, "session_id"))
            *dirs, last = subpath.split("/")
            if len(dirs) >= _MAX_DEPTH:
                raise OptionsError(
                    f"session store key: subpath has more than {_MAX_DEPTH} parts",
                    option="subpath",
                )
            parts.extend(_dir_name(d, "subpath") for d in dirs)
            parts.append(_name(last, "subpath") + _SUFFIX)
        path = os.path.join(self.root, *parts)
        if len(os.fsencode(path)) >= _MAX_PATH_BYTES:
            raise OptionsError(
                f"session store key: the file would have a path over {_MAX_PATH_BYTES} bytes",
                option="subpath" if subpath is not None else "session_id",
            )
        # Belt and braces: the checks above already make this impossible.
        if os.path.commonpath([self.root, path]) != self.root:  # pragma: no cover
            raise OptionsError(f"session store key escapes the root: {key!r}", option="key")
        return path, subpath is None

    async def _run(
        self,
        operation: str,
        key: Any,
        entries: int,
        func: Callable[..., _T],
        *args: Any,
        abandon: bool = False,
    ) -> _T:
        # Writes are never abandoned: a cancelled append finishes its write in the thread
        # (and the dedup makes a retry of it harmless); reads may be.
        try:
            return await anyio.to_thread.run_sync(func, *args, abandon_on_cancel=abandon)
        except OSError as exc:
            raise SessionStoreError(
                f"session store {operation} failed: {exc}",
                operation=operation,
                key={k: str(v) for k, v in dict(key).items()},
                entries=entries,
            ) from exc

    # -- worker-thread code ------------------------------------------------------------

    @contextmanager
    def _locked(self, path: str, *, create: bool) -> Iterator[int | None]:
        """An fd of ``path`` holding its ``flock`` (None when absent and not ``create``).

        The lock is taken on whatever file the path names *after* locking: a file unlinked
        (by a delete) while we waited is let go and the path opened again.
        """
        digest = hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=2)
        stripe = self._stripes[int.from_bytes(digest.digest(), "big") % _STRIPES]
        with stripe:
            while True:
                if create:
                    _make_dirs(os.path.dirname(path))
                    try:
                        fd = os.open(path, _OPEN_FLAGS, 0o600)
                    except FileNotFoundError:  # a delete removed the directory: again
                        continue
                else:
                    try:
                        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
                    except FileNotFoundError:
                        yield None
                        return
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    st = os.fstat(fd)
                    try:
                        now = os.stat(path, follow_symlinks=False)
                    except FileNotFoundError:
                        now = None
                    if now is not None and (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
                        yield fd
                        return
                finally:
                    os.close(fd)  # closing releases the flock

    def _append_sync(
        self, path: str, encoded: list[tuple[str | None, bytes]], main: bool = False
    ) -> None:
        with self._locked(path, create=True) as fd:
            assert fd is not None
            index = self._catch_up(path, fd)
            lines: list[bytes] = []
            new: set[str] = set()
            for uuid, line in encoded:
                if uuid is not None:
                    if uuid in index.uuids or uuid in new:
                        continue
                    new.add(uuid)
                lines.append(line)
            if not lines:
                return
            # A line torn by a crash is ended first, so that it stays one bad line.
            data = (b"" if index.clean_end else b"\n") + b"\n".join(lines) + b"\n"
            view = memoryview(data)
            try:
                while view:  # a short write (a signal, a full disk) goes on from there
                    view = view[os.write(fd, view) :]
                if self.fsync:
                    os.fsync(fd)
            except BaseException:
                with self._cache_lock:  # what landed is unknown: read the file again
                    self._cache.pop(path, None)
                raise
            index.uuids |= new
            index.offset += len(data)
            index.clean_end = True
            if main:
                try:
                    _write_summary(path, _summary_of(path, fd)[1])
                except Exception:  # the lines landed; a summary behind is caught up later
                    logger.warning("%s: summary not written", path, exc_info=True)

    def _summaries_sync(self, directory: str) -> list[SessionSummaryEntry]:
        found: list[SessionSummaryEntry] = []
        for row in _list_sessions(directory):
            path = os.path.join(directory, row["session_id"] + _SUFFIX)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            except FileNotFoundError:  # deleted since
                continue
            try:
                summary, record = _summary_of(path, fd)
            finally:
                os.close(fd)
            try:  # keep the catching up for the next reader (any prefix state is valid)
                _write_summary(path, record)
            except OSError as exc:
                logger.debug("%s: summary not written (%s)", path, exc)
            found.append(summary)
        return found

    def _catch_up(self, path: str, fd: int) -> _Index:
        """The file's index, brought up to date with what other processes appended."""
        st = os.fstat(fd)
        with self._cache_lock:
            index = self._cache.pop(path, None)
        if (
            index is None
            or (index.dev, index.ino) != (st.st_dev, st.st_ino)
            or index.offset > st.st_size
        ):
            index = _Index(st.st_dev, st.st_ino, 0, True, set())
        if st.st_size > index.offset:
            data = os.pread(fd, st.st_size - index.offset, index.offset)
            for line in data.split(b"\n")[:-1]:
                uuid = _uuid_in_line(line)
                if uuid is not None:
                    index.uuids.add(uuid)
            index.offset += len(data)
            index.clean_end = data.endswith(b"\n")
        with self._cache_lock:
            self._cache[path] = index
            while len(self._cache) > _INDEX_CACHE:
                self._cache.popitem(last=False)
        return index

    def _load_sync(self, path: str) -> list[SessionStoreEntry] | None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:
            return None
        with open(fd, "rb") as file:
            data = file.read()
        entries: list[SessionStoreEntry] = []
        for number, line in enumerate(data.split(b"\n")[:-1], 1):
            if not line:
                continue  # the newline that ended a torn line
            try:
                entries.append(decode_entry(line))
            except ValueError:
                logger.warning("%s:%d: skipped a line that is not a JSON object", path, number)
        return entries or None

    def _delete_sync(self, path: str, cascade: str | None) -> None:
        files = [path]
        dirs: list[str] = []
        if cascade is not None:
            for parent, _, names in os.walk(cascade, topdown=False):
                files.extend(os.path.join(parent, n) for n in names)
                dirs.append(parent)
        for file in files:
            with self._locked(file, create=False) as fd:
                if fd is not None:
                    os.unlink(file)
                if cascade is not None and file == path:  # under the lock appends write it
                    with suppress(FileNotFoundError):
                        os.unlink(path[: -len(_SUFFIX)] + _SUMMARY)
        with self._cache_lock:
            for file in files:
                self._cache.pop(file, None)
        for directory in dirs:  # deepest first; one an append just refilled stays
            _rmdir_if_empty(directory)


def _make_dirs(directory: str) -> None:
    """``os.makedirs`` giving every directory it makes mode ``0o700`` (not only the last)."""
    missing: list[str] = []
    while not os.path.isdir(directory):
        missing.append(directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    for name in reversed(missing):
        with suppress(FileExistsError):  # another process made it first
            os.mkdir(name, 0o700)


def _rmdir_if_empty(directory: str) -> None:
    try:
        os.rmdir(directory)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTEMPTY, errno.EEXIST):
            raise


def _uuid_in_line(line: bytes) -> str | None:
    if b'"uuid"' not in line:  # cheap: most lines without one are skipped unparsed
        return None
    try:
        return uuid_of(decode_entry(line))
    except ValueError:
        return None


def _summary_of(path: str, fd: int) -> tuple[SessionSummaryEntry, dict[str, Any] | None]:
    """The summary of the transcript open as ``fd``, folded over its whole lines, and the
    record to write as its summary file (None when that file is up to date).

    The summary file's summary is caught up with the lines after its offset; it is folded
    from the start when the file is missing, or was made from another file (a deleted and
    remade transcript: another inode, or other bytes before the offset) or version."""
    st = os.fstat(fd)
    session_id = os.path.basename(path)[: -len(_SUFFIX)]
    prev, offset = _read_summary(path, fd, st, session_id)
    summary = prev
    record = None
    if prev is None or offset < st.st_size:
        data = _pread_all(fd, st.st_size - offset, offset)
        cut = data.rfind(b"\n") + 1
        summary = fold_for_store(prev, session_id, decode_lines(data[:cut].split(b"\n")))
        offset += cut
        record = {"ino": st.st_ino, "offset": offset, "check": _check_at(fd, offset)}
    assert summary is not None
    summary["mtime"] = st.st_mtime_ns // 1_000_000
    if record is not None:
        record["summary"] = summary
    return summary, record


def _read_summary(
    path: str, fd: int, st: os.stat_result, session_id: str
) -> tuple[SessionSummaryEntry | None, int]:
    """The summary file's summary and offset, if it was made from this file (its inode, and
    the bytes before its offset), else ``(None, 0)``."""
    try:
        with open(path[: -len(_SUFFIX)] + _SUMMARY, "rb") as file:
            record = json.loads(file.read())
        ino, offset, check = record["ino"], record["offset"], record["check"]
        summary = record["summary"]
        if (
            ino == st.st_ino
            and isinstance(offset, int)
            and 0 < offset <= st.st_size
            and summary["session_id"] == session_id
            and has_listing_state(summary)
            and _check_at(fd, offset) == check
        ):
            return summary, offset
    except (OSError, ValueError, TypeError, KeyError):
        pass
    return None, 0


def _write_summary(path: str, record: dict[str, Any] | None) -> None:
    """Replace the summary file with ``record`` (atomically: a reader sees the old one or
    this one); nothing for None."""
    if record is None:
        return
    directory, name = os.path.split(path[: -len(_SUFFIX)] + _SUMMARY)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(orjson.dumps(record))
        os.replace(temporary, os.path.join(directory, name))
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _check_at(fd: int, offset: int) -> str:
    """A hash of the bytes just before ``offset`` (the file a summary was made from)."""
    data = os.pread(fd, min(offset, _SUMMARY_CHECK), max(0, offset - _SUMMARY_CHECK))
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _list_sessions(directory: str) -> list[SessionStoreListEntry]:
    found: list[SessionStoreListEntry] = []
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return found
    for entry in entries:
        if not entry.name.endswith(_SUFFIX) or not entry.is_file(follow_symlinks=False):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
        if st.st_size:
            found.append(
                {"session_id": entry.name[: -len(_SUFFIX)], "mtime": st.st_mtime_ns // 1_000_000}
            )
    return found


def _list_subkeys(directory: str) -> list[str]:
    found: list[str] = []
    for parent, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(parent, name)
            if not name.endswith(_SUFFIX) or os.path.islink(path):
                continue
            try:
                size = os.stat(path, follow_symlinks=False).st_size
            except FileNotFoundError:
                continue
            if size:
                relative = os.path.relpath(path, directory)[: -len(_SUFFIX)]
                found.append(relative.replace(os.sep, "/"))
    return sorted(found)


def _rebuild(root: str, fsync: bool) -> DirectoryStore:
    """Unpickling helper."""
    return DirectoryStore(root, fsync=fsync)
