"""`TranscriptMirror`: the CLI's ``transcript_mirror`` frames, stored in the session's store.

With ``Options.session_store`` the CLI runs with ``--session-mirror`` and writes, besides its
own transcript file, a ``transcript_mirror`` frame for every batch of lines it appends to one.
The protocol peels those off (`Mirrored` events, not messages); the reader hands them here
without waiting; one task of the session stores them, in order, with ``store.append``.

Guarantees:

* Order: one task appends, in the order the frames came; a flush takes what is pending as
  one append per key (entries in order).
* A turn is stored before its result is handed out: the consumer calls `sync` when it takes
  a `ResultMessage` (``"batched"``: one append per key per turn; ``"eager"``: a flush is
  started at each frame as well). `sync` never waits longer than the store's attempts take.
* Bounded memory: more than `MAX_PENDING_ENTRIES` lines or `MAX_PENDING_BYTES` pending start
  a flush without waiting for the turn's end.
* A failed append is tried `ATTEMPTS` times in all (0.2 s, then 0.8 s apart; a store that
  raises `TimeoutError` or passes `STORE_TIMEOUT` is not tried again: the write may still
  land). Then the batch is given up: a `SessionStoreError` is logged and kept in
  ``failures`` (``session_store_errors="warn"``) or ends the session (``"raise"``).
* `close` stores what is left, shielded and bounded by `CLOSE_TIMEOUT`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

import anyio

from ..errors import SessionStoreError
from ..stores._keys import key_for_file

if TYPE_CHECKING:
    from ..stores._contract import SessionKey, SessionStore

__all__ = ["TranscriptMirror"]

logger = logging.getLogger("claude_sdk.session")

#: Pending lines that start a flush before the turn ends.
MAX_PENDING_ENTRIES: Final = 500
#: Pending bytes (as the CLI wrote them) that start a flush before the turn ends.
MAX_PENDING_BYTES: Final = 1 << 20
#: Attempts at one batch, and the pauses between them.
ATTEMPTS: Final = 3
BACKOFF: Final = (0.2, 0.8)
#: Seconds one ``append`` may take.
STORE_TIMEOUT: Final = 60.0
#: Seconds `close` may spend storing what is left.
CLOSE_TIMEOUT: Final = 30.0


class TranscriptMirror:
    """Stores a session's mirrored transcript lines (see the module docstring).

    Args:
        store: the `SessionStore`.
        projects_dir: the CLI's ``projects`` directory when it is on this machine (None:
            found in each path).
        project_key: the store's ``project_key`` for this session (None: the directory name).
        eager: flush at every frame rather than once per turn.
        fail: called with the error when a batch is given up and the session must end
            (``session_store_errors="raise"``); None: log and keep it in ``failures``.
    """

    def __init__(
        self,
        store: SessionStore,
        *,
        projects_dir: str | None,
        project_key: str | None = None,
        eager: bool = False,
        fail: Any = None,
        store_timeout: float = STORE_TIMEOUT,
    ) -> None:
        self._store = store
        self._projects_dir = projects_dir
        self._project_key = project_key
        self._eager = eager
        self._fail = fail
        self._store_timeout = store_timeout
        self._pending: list[tuple[SessionKey, list[Any]]] = []
        self._pending_entries = 0
        self._pending_bytes = 0
        self._enqueued = 0  # frames taken
        self._done = 0  # frames stored or given up
        self._wake = anyio.Event()
        self._progress = anyio.Event()
        self._closed = False
        self._lock = anyio.Lock()  # one drain at a time: the task's, or close's
        #: Batches given up (``session_store_errors="warn"``).
        self.failures: list[SessionStoreError] = []
        #: The batch given up that ended the session (``session_store_errors="raise"``).
        self.fatal: SessionStoreError | None = None
        #: Transcript lines stored.
        self.stored = 0
        #: Frames whose path is not a transcript under the projects directory (not stored).
        self.ignored = 0

    # -- the reader's side (never waits) --------------------------------------------------

    def enqueue(self, file_path: str, entries: list[Any], size: int = 0) -> None:
        """Take one frame's lines for storing."""
        key = key_for_file(file_path, self._projects_dir, self._project_key)
        if key is None:
            self.ignored += 1
            logger.warning(
                "transcript_mirror for %r: not a transcript under %s; not stored",
                file_path[-200:],
                self._projects_dir or "a projects directory",
            )
            return
        if not entries:
            return
        self._pending.append((key, entries))
        self._enqueued += 1
        self._pending_entries += len(entries)
        self._pending_bytes += size
        if (
            self._eager
            or self._pending_entries > MAX_PENDING_ENTRIES
            or self._pending_bytes > MAX_PENDING_BYTES
        ):
            self._wake.set()

    def flush_soon(self) -> None:
        """Store what is pending now (a turn ended)."""
        if self._pending:
            self._wake.set()

    # -- the consumer's side --------------------------------------------------------------

    async def sync(self) -> None:
        """Wait until every frame taken so far is stored (or given up).

        Raises:
            SessionStoreError: a batch was given up and ``session_store_errors="raise"``.
        """
        target = self._enqueued
        while self._done < target and not self._closed:
            self._wake.set()
            progress = self._progress
            await progress.wait()
        if self.fatal is not None:
            raise self.fatal

    # -- the task -----------------------------------------------------------------------

    async def run(self) -> None:
        """Store batches as they are asked for, until cancelled (the session's task group)."""
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            await self._drain()

    async def close(self, grace: float = CLOSE_TIMEOUT) -> None:
        """Store what is left: shielded, bounded by ``grace`` seconds. Never raises."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(grace) as scope:
            while self._pending:
                await self._drain()
        if scope.cancelled_caught and self._pending:
            lost = sum(len(entries) for _, entries in self._pending)
            self._give_up(self._pending[0][0], lost, "closing took too long")
            self._pending = []
        self._closed = True
        self._signal()

    # -- inside ---------------------------------------------------------------------------

    async def _drain(self) -> None:
        async with self._lock:
            await self._drain_locked()

    async def _drain_locked(self) -> None:
        items = self._pending
        if not items:
            self._signal()
            return
        self._pending = []
        self._pending_entries = self._pending_bytes = 0
        batches: dict[tuple[str, str, str | None], tuple[SessionKey, list[Any]]] = {}
        for key, entries in items:  # one append per key, lines in order
            ident = (key["project_key"], key["session_id"], key.get("subpath"))
            batch = batches.get(ident)
            if batch is None:
                batches[ident] = (key, list(entries))
            else:
                batch[1].extend(entries)
        try:
            for key, entries in batches.values():
                await self._append(key, entries)
        finally:
            self._done += len(items)
            self._signal()

    async def _append(self, key: SessionKey, entries: list[Any]) -> None:
        reason = ""
        for attempt in range(ATTEMPTS):
            if attempt:
                await anyio.sleep(BACKOFF[attempt - 1])
            try:
                with anyio.fail_after(self._store_timeout):
                    await self._store.append(key, entries)
            except TimeoutError:
                reason = f"no answer within {self._store_timeout:g} s (not retried)"
                break
            except Exception as exc:  # the store is user code: any failure is its failure
                reason = f"{type(exc).__name__}: {exc}"
                logger.debug("session store append attempt %d failed: %s", attempt + 1, reason)
                continue
            self.stored += len(entries)
            return
        self._give_up(key, len(entries), reason)

    def _give_up(self, key: SessionKey, lost: int, reason: str) -> None:
        error = SessionStoreError(
            f"session store append failed, {lost} transcript lines not stored: {reason}",
            operation="append",
            key={k: str(v) for k, v in key.items()},
            entries=lost,
        )
        if self._fail is not None:
            if self.fatal is None:
                self.fatal = error
            self._fail(error)
            return
        self.failures.append(error)
        logger.warning("%s", error)

    def _signal(self) -> None:
        progress = self._progress
        self._progress = anyio.Event()
        progress.set()
