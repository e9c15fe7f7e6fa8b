"""A session's lease on its key in the session store: one live owner per session.

`acquire` takes it before a resume reads the store (so the transcript read is not being
extended by another owner), or once the CLI names a new session; `HeldLease.keep` renews it
while the session lives (a task of the session) and ends the session with
`SessionBusyError` (kind ``"lease_lost"``) if another owner took it over; the mirror appends
through `HeldLease.append` (the store's fenced append), so a stale owner's lines are refused;
`HeldLease.release` gives it up when the session closes, after the mirror's last append.

The store methods are described in `claude_sdk.stores._lease`; a store without them runs
without leases (``Options.session_lease`` is then not enforced: documented).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Final

import anyio

from ..errors import SessionBusyError, SessionStoreError
from ..stores._contract import SessionKey, SessionListSubkeysKey, SessionStore
from ..stores._lease import has_leases, new_owner, owner_alive

__all__ = ["HeldLease", "acquire"]

logger = logging.getLogger("claude_sdk.session")

#: Seconds between looks at a busy session's lease (``session_lease="wait"``), at most.
POLL: Final = 1.0


class HeldLease:
    """A lease this session holds (see the module docstring)."""

    def __init__(
        self, store: Any, key: SessionListSubkeysKey, owner: str, token: int, ttl: float
    ) -> None:
        self.store = store
        self.key = key
        self.owner = owner
        self.token = token
        self.ttl = ttl
        #: Set when the lease was found taken over (the session must end).
        self.lost: SessionBusyError | None = None
        self._released = False

    @property
    def session_id(self) -> str:
        return self.key["session_id"]

    async def append(self, key: SessionKey, entries: list[Any]) -> None:
        """Append through the store's fence.

        Raises:
            SessionBusyError: the store refused: a newer owner holds the session.
        """
        if self.lost is not None:
            raise self.lost
        if not await self.store.append_fenced(key, entries, self.token):
            raise self._lost("the store refused an append from this session's old lease")

    async def move(self, project_key: str, answer_within: float | None) -> None:
        """Hold the session's lease under ``project_key`` instead (a spare claimed for
        another folder writes its transcript there), then give the old one up.

        Raises:
            SessionBusyError: another live owner holds the session under that key.
            SessionStoreError: the store failed to answer (retryable).
        """
        if project_key == self.key["project_key"]:
            return
        key: SessionListSubkeysKey = {"project_key": project_key, "session_id": self.session_id}
        lease = await _ask(self.store, key, self.owner, self.ttl, None, answer_within)
        token = lease.get("token")
        holder = lease.get("owner")
        if holder != self.owner or not isinstance(token, int):
            raise SessionBusyError(
                session_id=self.session_id,
                holder=holder if isinstance(holder, str) else None,
                key={k: str(v) for k, v in key.items()},
            )
        old_key, old_token = self.key, self.token
        self.key, self.token = key, token
        with anyio.CancelScope(shield=True), anyio.move_on_after(10):
            try:
                await self.store.release_lease(old_key, self.owner, old_token)
            except Exception as exc:  # the store is user code
                logger.warning(
                    "session %s: its old lease could not be released (%s); it expires",
                    self.session_id,
                    type(exc).__name__,
                )

    async def keep(self, fail: Callable[[BaseException], object]) -> None:
        """Renew the lease every third of its ttl until cancelled; call ``fail`` with a
        `SessionBusyError` and return if another owner took it over. A store that does not
        answer is asked again at the next round (the fenced append guards meanwhile)."""
        every = self.ttl / 3
        while not self._released:
            await anyio.sleep(every)
            try:
                with anyio.fail_after(every):
                    renewed = await self.store.renew_lease(
                        self.key, self.owner, self.token, self.ttl
                    )
            except Exception as exc:  # the store is user code: any failure is its failure
                logger.warning(
                    "session %s: the session store did not renew its lease (%s: %s); asked "
                    "again in %.1f s",
                    self.session_id,
                    type(exc).__name__,
                    exc,
                    every,
                )
                continue
            if not renewed and not self._released:
                fail(self._lost("another owner took the session's lease over"))
                return

    async def release(self) -> None:
        """Give the lease up (shielded, bounded; never raises)."""
        if self._released:
            return
        self._released = True
        with anyio.CancelScope(shield=True), anyio.move_on_after(10):
            try:
                await self.store.release_lease(self.key, self.owner, self.token)
            except Exception as exc:
                logger.warning(
                    "session %s: its lease could not be released (%s: %s); it expires by "
                    "itself within %g s",
                    self.session_id,
                    type(exc).__name__,
                    exc,
                    self.ttl,
                )

    def _lost(self, why: str) -> SessionBusyError:
        if self.lost is None:
            logger.error("session %s: %s; the session ends", self.session_id, why)
            self.lost = SessionBusyError(
                session_id=self.session_id,
                key={k: str(v) for k, v in self.key.items()},
                kind="lease_lost",
            )
        return self.lost


async def acquire(
    store: SessionStore,
    key: SessionListSubkeysKey,
    *,
    mode: str | None,
    ttl: float,
    answer_within: float | None,
) -> HeldLease | None:
    """Take the session's lease, or None when leases are off (``mode`` None) or the store
    keeps none.

    ``mode`` ``"raise"``: a session held by another live owner raises; ``"wait"``: waits
    until it is free (the caller's cancel scope bounds the wait). An owner found dead on this
    host (`owner_alive`) is replaced at once.

    Raises:
        SessionBusyError: another live owner holds it (``"raise"``).
        SessionStoreError: the store failed to answer within ``answer_within`` seconds (retryable).
    """
    if mode is None or not has_leases(store):
        return None
    lessee: Any = store
    owner = new_owner()
    replace: str | None = None
    waited = False
    while True:
        lease = await _ask(lessee, key, owner, ttl, replace, answer_within)
        holder = lease.get("owner")
        token = lease.get("token")
        if holder == owner and isinstance(token, int):
            if waited:
                logger.info("session %s: its lease is free now; taken", key["session_id"])
            return HeldLease(store, key, owner, token, ttl)
        if owner_alive(holder) is False and replace != holder:
            logger.info("session %s: its lease holder (%s) is dead: replaced", key, holder)
            replace = holder if isinstance(holder, str) else None
            continue
        expires_in = lease.get("expires_in")
        left = expires_in if isinstance(expires_in, (int, float)) else None
        if mode == "raise":
            raise SessionBusyError(
                session_id=key["session_id"],
                holder=holder if isinstance(holder, str) else None,
                expires_in=left,
                key={k: str(v) for k, v in key.items()},
            )
        if not waited:
            logger.info("session %s is held by %s: waiting for its lease", key, holder)
            waited = True
        await anyio.sleep(min(POLL, ttl / 4, left if left is not None and left > 0 else POLL))


async def _ask(
    store: Any,
    key: SessionListSubkeysKey,
    owner: str,
    ttl: float,
    replace: str | None,
    answer_within: float | None,
) -> Mapping[str, Any]:
    try:
        with anyio.fail_after(answer_within):
            lease = await store.acquire_lease(key, owner, ttl, replace)
    except SessionStoreError:
        raise
    except Exception as exc:
        reason = (
            f"no answer within {answer_within:g} s (Options.session_store_load_timeout)"
            if isinstance(exc, TimeoutError)
            else f"{type(exc).__name__}: {exc}"
        )
        raise SessionStoreError(
            f"session store acquire_lease failed: {reason}",
            operation="acquire_lease",
            key={k: str(v) for k, v in key.items()},
        ) from exc
    if not isinstance(lease, Mapping):
        raise SessionStoreError(
            f"session store acquire_lease answered a {type(lease).__name__}, not a lease",
            operation="acquire_lease",
            key={k: str(v) for k, v in key.items()},
            kind="session_store_invalid",
        )
    return lease
