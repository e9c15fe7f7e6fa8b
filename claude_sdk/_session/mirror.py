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
* A failed append is tried `ATTEMPTS` times in a row (0.2 s, then 0.8 s apart; a store that
  raises `TimeoutError` or passes `STORE_TIMEOUT` is not tried again in that round: the write
  may still land). Then, with ``session_store_errors="raise"``, the session ends with a
  `SessionStoreError`. With ``"warn"`` (the default) **the store catches up**: the lines are
  kept in a backlog, one per key, and appended again, in order and before any later line of
  the same key, when the store answers: at the next flush, every `RETRY_DELAYS` seconds
  meanwhile, and at the latest when the session closes. ``failures`` says what is still
  missing (one `SessionStoreError` per key, ``entries`` = lines not stored yet); it is empty
  again once the store has caught up. Lines with a uuid are never stored twice (the store
  skips a uuid it has), so a write that landed after all is harmless.
* Bounded memory: a backlog past `MAX_BACKLOG_ENTRIES` lines gives up its oldest lines (an
  error in ``failures`` that stays, and a log line at ERROR).
* `close` stores what is left, the backlog first, shielded and bounded by `CLOSE_TIMEOUT`
  (a store that keeps refusing is asked again for `CLOSE_RETRY_FOR` seconds at most); what
  it still refuses then stays in ``failures`` and is logged at ERROR.
* Not promised: lines the CLI wrote but the SDK had not read when the host process was
  killed (SIGKILL) are not in the store; a resume then finds the transcript ends earlier,
  or, if later lines landed, a gap (`TranscriptGapError`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

import anyio

from ..errors import SessionBusyError, SessionStoreError
from ..stores._keys import key_for_file

if TYPE_CHECKING:
    from ..stores._contract import SessionKey, SessionStore
    from .lease import HeldLease

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
#: Seconds between rounds of appending a backlog again (the last one repeats).
RETRY_DELAYS: Final = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
#: Seconds `close` goes on appending a backlog the store keeps refusing (within its grace).
CLOSE_RETRY_FOR: Final = 5.0
#: Lines a backlog keeps, in all; past it the oldest are given up.
MAX_BACKLOG_ENTRIES: Final = 100_000

_Ident = tuple[str, str, "str | None"]


def _ident(key: SessionKey) -> _Ident:
    return (key["project_key"], key["session_id"], key.get("subpath"))


class _Backlog:
    """Lines of one key the store has not taken yet, in order."""

    def __init__(self, key: SessionKey, entries: list[Any], reason: str) -> None:
        self.key = key
        self.entries = entries
        self.reason = reason
        self.rounds = 1
        self.since = anyio.current_time()

    def error(self) -> SessionStoreError:
        return SessionStoreError(
            f"session store append failed, {len(self.entries)} transcript lines not stored "
            f"yet ({self.rounds} round{'s' if self.rounds != 1 else ''}; appended again when "
            f"the store answers): {self.reason}",
            operation="append",
            key={k: str(v) for k, v in self.key.items()},
            entries=len(self.entries),
        )


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
        lease: the session's lease: appends go through its fence (`HeldLease.append`).
        end: called with the `SessionBusyError` when the fence refuses an append (another
            owner took the session over): the session ends, whatever
            ``session_store_errors`` says, and the lines stay in ``failures``.
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
        lease: HeldLease | None = None,
        end: Any = None,
    ) -> None:
        self._store = store
        self._lease = lease
        self._end = end
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
        #: Lines the store has not taken yet, by key, in order (``"warn"``).
        self._backlog: dict[_Ident, _Backlog] = {}
        #: Lines given up for good: past `MAX_BACKLOG_ENTRIES`, or refused at `close`.
        self._lost: list[SessionStoreError] = []
        #: The batch given up that ended the session (``session_store_errors="raise"``).
        self.fatal: SessionStoreError | None = None
        #: Transcript lines stored.
        self.stored: int = 0
        #: Frames whose path is not a transcript under the projects directory (not stored).
        self.ignored: int = 0

    @property
    def failures(self) -> list[SessionStoreError]:
        """What the store is still missing: one error per key of the backlog, then the lines
        given up for good (see the module docstring). Empty when every line is stored."""
        return [*self._lost, *(b.error() for b in self._backlog.values())]

    @property
    def backlog(self) -> int:
        """Lines waiting to be appended again."""
        return sum(len(b.entries) for b in self._backlog.values())

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
        self.enqueue_key(key, entries, size)

    def enqueue_key(self, key: SessionKey, entries: list[Any], size: int = 0) -> None:
        """Take lines for ``key`` (the CLI's, or the SDK's own records kept with the
        session, such as a pending question): stored in order with the rest."""
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
        """Store batches as they are asked for, and the backlog again every so often, until
        cancelled (the session's task group)."""
        while True:
            if self._backlog:
                with anyio.move_on_after(self._retry_delay()):
                    await self._wake.wait()
            else:
                await self._wake.wait()
            self._wake = anyio.Event()
            await self._drain()

    async def close(self, grace: float = CLOSE_TIMEOUT) -> None:
        """Store what is left, the backlog first: shielded, bounded by ``grace`` seconds.
        Never raises; what the store still refuses stays in ``failures``."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(grace):
            retry_until = anyio.current_time() + CLOSE_RETRY_FOR
            while self._pending or self._backlog:
                await self._drain()
                if self._backlog:
                    delay = self._retry_delay()
                    if anyio.current_time() + delay > retry_until:
                        break  # a store that keeps refusing does not hold the close longer
                    await anyio.sleep(delay)
        if self._pending:  # the grace ran out before a drain took them
            for key, entries in self._pending:
                self._keep(key, list(entries), "the session closed before the store answered")
            self._pending = []
        for backlog in self._backlog.values():
            logger.error(
                "session store: %d transcript lines of %s were never stored (%s); a resume "
                "from the store will miss them",
                len(backlog.entries),
                backlog.key,
                backlog.reason,
            )
        self._closed = True
        self._signal()

    # -- inside ---------------------------------------------------------------------------

    async def _drain(self) -> None:
        async with self._lock:
            await self._drain_locked()

    async def _drain_locked(self) -> None:
        items = self._pending
        if not items and not self._backlog:
            self._signal()
            return
        self._pending = []
        self._pending_entries = self._pending_bytes = 0
        # One append per key, lines in order: a key's backlog before its new lines.
        batches: dict[_Ident, tuple[SessionKey, list[Any]]] = {
            ident: (b.key, list(b.entries)) for ident, b in self._backlog.items()
        }
        for key, entries in items:
            ident = _ident(key)
            batch = batches.get(ident)
            if batch is None:
                batches[ident] = (key, list(entries))
            else:
                batch[1].extend(entries)
        settled: set[_Ident] = set()  # stored, or kept in the backlog by `_append`
        try:
            for ident, (key, entries) in batches.items():
                await self._append(key, entries)
                settled.add(ident)
        finally:
            for ident, (key, entries) in batches.items():
                if ident not in settled:  # cut short (the close's grace ran out): kept
                    self._keep(key, entries, "the session closed before the store answered")
            self._done += len(items)
            self._signal()

    async def _append(self, key: SessionKey, entries: list[Any]) -> None:
        reason = ""
        for attempt in range(ATTEMPTS):
            if attempt:
                await anyio.sleep(BACKOFF[attempt - 1])
            try:
                with anyio.fail_after(self._store_timeout):
                    if self._lease is not None:
                        await self._lease.append(key, entries)
                    else:
                        await self._store.append(key, entries)
            except SessionBusyError as exc:  # fenced out: never stored by this session
                self._lost.append(
                    SessionStoreError(
                        f"session store append refused, {len(entries)} transcript lines not "
                        f"stored: {exc}",
                        operation="append",
                        key={k: str(v) for k, v in key.items()},
                        entries=len(entries),
                    )
                )
                self._backlog.pop(_ident(key), None)
                if self._end is not None:
                    self._end(exc)
                return
            except TimeoutError:
                reason = f"no answer within {self._store_timeout:g} s (not retried)"
                break
            except Exception as exc:  # the store is user code: any failure is its failure
                reason = f"{type(exc).__name__}: {exc}"
                logger.debug("session store append attempt %d failed: %s", attempt + 1, reason)
                continue
            self.stored += len(entries)
            caught_up = self._backlog.pop(_ident(key), None)
            if caught_up is not None:
                logger.warning(
                    "session store caught up: %d transcript lines of %s stored after %.1f s",
                    len(entries),
                    key,
                    anyio.current_time() - caught_up.since,
                )
            return
        if self._fail is not None:  # "raise": the session ends
            error = SessionStoreError(
                f"session store append failed, {len(entries)} transcript lines not stored: "
                f"{reason}",
                operation="append",
                key={k: str(v) for k, v in key.items()},
                entries=len(entries),
            )
            if self.fatal is None:
                self.fatal = error
            self._fail(error)
            return
        self._keep(key, entries, reason)

    def _keep(self, key: SessionKey, entries: list[Any], reason: str) -> None:
        """Put ``entries`` (all of the key's lines not stored, in order) in the backlog."""
        ident = _ident(key)
        backlog = self._backlog.get(ident)
        if backlog is None:
            backlog = self._backlog[ident] = _Backlog(key, entries, reason)
            logger.warning("%s", backlog.error())
        else:
            backlog.entries, backlog.reason = entries, reason
            backlog.rounds += 1
            logger.debug("%s", backlog.error())
        over = self.backlog - MAX_BACKLOG_ENTRIES
        if over > 0:
            dropped, backlog.entries = backlog.entries[:over], backlog.entries[over:]
            error = SessionStoreError(
                f"session store append failed, {len(dropped)} transcript lines given up (the "
                f"backlog holds at most {MAX_BACKLOG_ENTRIES}): {reason}",
                operation="append",
                key={k: str(v) for k, v in key.items()},
                entries=len(dropped),
            )
            self._lost.append(error)
            logger.error("%s", error)

    def _retry_delay(self) -> float:
        rounds = max((b.rounds for b in self._backlog.values()), default=1)
        return RETRY_DELAYS[min(rounds, len(RETRY_DELAYS)) - 1]

    def _signal(self) -> None:
        progress = self._progress
        self._progress = anyio.Event()
        progress.set()
