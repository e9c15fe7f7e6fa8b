"""The `SessionStore` contract: where mirrored transcripts live so a session resumes anywhere.

The contract is the official ``claude-agent-sdk``'s (0.2.188) ``SessionStore`` protocol, by
shape and by meaning, so a store written for either SDK works with both:

* keys are plain dicts: ``{"project_key": ..., "session_id": ...}`` plus ``"subpath"`` for a
  file kept under the session (``"subagents/agent-<id>"``); the main transcript has no
  ``subpath`` (an empty one is invalid);
* entries are the CLI's transcript lines as JSON objects, passed through untouched: a store
  must give back entries deep-equal to what it was given, in append order (byte equality
  is not required);
* ``append`` and ``load`` are required; ``list_sessions``, ``list_session_summaries``,
  ``delete`` and ``list_subkeys`` are optional and probed with ``getattr`` (a duck-typed
  class need not subclass anything).

Invariants every shipped store keeps and `claude_sdk.testing.store_conformance` checks:

* ``load`` of a key never appended returns ``None``;
* an entry with a ``uuid`` already stored under the same key is not stored twice (a retried
  batch may overlap one that landed); entries without a ``uuid`` are always appended;
* ``list_sessions(project_key)`` lists main transcripts only, with ``mtime`` in epoch
  milliseconds taken from the store's own clock;
* ``list_session_summaries(project_key)`` gives one `SessionSummaryEntry` per main
  transcript, kept up to date inside ``append`` with
  `claude_sdk.stores.fold_session_summary` (subkeys do not change it), its ``mtime`` on
  the clock of ``list_sessions``; deleting the session deletes its summary;
* deleting a main key deletes its subkeys; deleting a subkey deletes only that subkey;
* keys are data, never paths: a store must not let ``project_key``, ``session_id`` or
  ``subpath`` reach outside its own namespace (``..``, ``/``, NUL).
"""

from __future__ import annotations

import sys
from typing import Any, Protocol, TypedDict, runtime_checkable

if sys.version_info >= (3, 11):  # typing_extensions only where typing lacks it
    from typing import NotRequired
else:  # pragma: no cover
    from typing_extensions import NotRequired

__all__ = [
    "SessionKey",
    "SessionListSubkeysKey",
    "SessionStore",
    "SessionStoreEntry",
    "SessionStoreListEntry",
    "SessionSummaryEntry",
]


class SessionKey(TypedDict):
    """Names one transcript in a store."""

    project_key: str
    """The scope: by default the CLI's directory name for the session's ``cwd``."""
    session_id: str
    """The session's UUID."""
    subpath: NotRequired[str]
    """Absent for the main transcript; ``"subagents/agent-<id>"`` for a subagent's."""


class SessionListSubkeysKey(TypedDict):
    """The key `SessionStore.list_subkeys` takes (a session, no ``subpath``)."""

    project_key: str
    session_id: str


class SessionStoreListEntry(TypedDict):
    """One row of `SessionStore.list_sessions`."""

    session_id: str
    mtime: int
    """Last write, epoch milliseconds, from the store's own clock."""


class SessionSummaryEntry(TypedDict):
    """One row of ``list_session_summaries``: a session's summary, kept by the store.

    The official SDK's type, key for key. A store makes it with `fold_session_summary`
    inside ``append`` and keeps it as it is; it never reads ``data``.
    """

    session_id: str
    mtime: int
    """When the store last wrote the summary, epoch milliseconds, on the clock of
    ``list_sessions`` (never an entry's own time: a summary older than ``list_sessions``
    says is stale, and a listing loads the session instead)."""
    data: dict[str, Any]
    """What the SDKs derive from the entries; the store keeps it as it is."""


SessionStoreEntry = dict[str, Any]
"""One transcript line as a JSON object (``"type"`` always present; pass it through)."""


@runtime_checkable
class SessionStore(Protocol):
    """Storage for mirrored transcripts. Only `append` and `load` are required."""

    async def append(self, key: SessionKey, entries: list[SessionStoreEntry]) -> None:
        """Store ``entries`` after those already under ``key``, in order.

        Entries whose ``uuid`` is already stored under ``key`` are skipped.
        """
        ...

    async def load(self, key: SessionKey) -> list[SessionStoreEntry] | None:
        """Everything stored under ``key`` in append order, or ``None`` if never written."""
        ...
