"""Session stores: where mirrored transcripts live, so a session resumes on any machine.

With ``Options(session_store=store)`` the CLI mirrors every transcript line it writes into
``store.append``, and a resume on a machine that never ran the session reads it back from
``store.load``. The contract is the `SessionStore` protocol, the same as the official
``claude-agent-sdk``'s, so a store written for either SDK works with both:

* ``append(key, entries)`` and ``load(key)`` are required; ``list_sessions(project_key)``,
  ``list_session_summaries(project_key)``, ``delete(key)`` and ``list_subkeys(key)`` are
  optional (probed with ``getattr``);
* a key is ``{"project_key", "session_id"}``, plus ``"subpath"`` for a file kept under the
  session (a subagent's transcript);
* ``load`` gives back entries deep-equal to those appended, in order, or ``None`` for a key
  never written; an entry whose ``uuid`` is already stored under the key is not stored
  again (a retried batch may overlap one that landed);
* ``list_sessions`` lists main transcripts only, ``mtime`` in epoch milliseconds from the
  store's own clock; deleting a main key deletes its subkeys;
* ``list_session_summaries`` gives a `SessionSummaryEntry` per main transcript, which the
  store keeps up to date in ``append`` with `fold_session_summary` (the official SDK's
  function, with its contract), so that listing a project is one call instead of a
  ``load`` per session. Every shipped store has it.

Which store:

* `MemoryStore`: one process, nothing kept after it ends. Tests, and resuming within one
  long-lived process.
* `DirectoryStore`: files on disk (the CLI's own layout), shared safely by processes on one
  machine, or on several through a network filesystem with working ``flock``.
* `RedisStore`: a Redis server shared by every worker of a fleet (``pip install
  'claude-sdk-py[redis]'``).

`import_session_to_store` copies a session the CLI kept on this machine into a store (the
official SDK's function, with its contract): to move existing sessions, or to fill a store
that missed lines.

To write your own (Postgres, S3, ...), implement the two required methods (and the optional
ones you can), and run `claude_sdk.testing.store_conformance.check_session_store` over it in
your tests.

Each store class is imported on first access (PEP 562), so importing this package never
imports redis-py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._contract import SessionKey as SessionKey
from ._contract import SessionListSubkeysKey as SessionListSubkeysKey
from ._contract import SessionStore as SessionStore
from ._contract import SessionStoreEntry as SessionStoreEntry
from ._contract import SessionStoreListEntry as SessionStoreListEntry
from ._contract import SessionSummaryEntry as SessionSummaryEntry
from ._keys import session_id_for as session_id_for

if TYPE_CHECKING:
    from ._directory import DirectoryStore as DirectoryStore
    from ._import import ImportedSession as ImportedSession
    from ._import import import_session_to_store as import_session_to_store
    from ._memory import MemoryStore as MemoryStore
    from ._redis import RedisStore as RedisStore
    from ._summary import fold_session_summary as fold_session_summary

__all__ = [
    "SessionStore",
    "SessionKey",
    "SessionListSubkeysKey",
    "SessionStoreEntry",
    "SessionStoreListEntry",
    "SessionSummaryEntry",
    "fold_session_summary",
    "MemoryStore",
    "DirectoryStore",
    "RedisStore",
    "session_id_for",
    "import_session_to_store",
    "ImportedSession",
]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if not TYPE_CHECKING:  # hidden from type checkers: a typo must stay an error, not `Any`

    def __getattr__(name: str) -> object:
        """Import the module that defines a store class on first use (PEP 562)."""
        if name == "MemoryStore":
            from . import _memory as module
        elif name == "DirectoryStore":
            from . import _directory as module
        elif name == "RedisStore":
            from . import _redis as module
        elif name in ("import_session_to_store", "ImportedSession"):
            from . import _import as module
        elif name == "fold_session_summary":
            from . import _summary as module
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(module, name)
        globals()[name] = value
        return value
