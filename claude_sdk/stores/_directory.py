"""`DirectoryStore`: a `SessionStore` in JSON-lines files under one directory.

Layout, the CLI's own: ``<root>/<project_key>/<session_id>.jsonl`` for a main transcript,
``<root>/<project_key>/<session_id>/<subpath>.jsonl`` for a file kept under the session.
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
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import anyio.to_thread
import attrs

from ..errors import OptionsError, SessionStoreError
from ._contract import (
    SessionKey,
    SessionListSubkeysKey,
    SessionStoreEntry,
    SessionStoreListEntry,
)
from ._memory import check_key, check_project, check_session, decode_entry, encode_entry, uuid_of

__all__ = ["DirectoryStore"]

logger = logging.getLogger("claude_sdk.stores")

_T = TypeVar("_T")

_SUFFIX = ".jsonl"
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


@attrs.define(eq=False)
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
    return _name(part, what)


def _absolute(path: str | os.PathLike[str]) -> str:
    return os.path.abspath(os.fspath(path))


@attrs.define(eq=False, repr=False)
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
        path, _ = self._path(key)
        encoded = [(uuid_of(e), encode_entry(e, i)) for i, e in enumerate(entries)]
        if not encoded:
            return
        await self._run("append", key, len(encoded), self._append_sync, path, encoded)

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

    def _append_sync(self, path: str, encoded: list[tuple[str | None, bytes]]) -> None:
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
