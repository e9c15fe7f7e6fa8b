"""Is a transcript whole? The chain of a session file's entries, checked and repaired.

The CLI resumes a session by following ``parentUuid`` back from the leaf (the latest entry no
other entry continues). An entry whose parent is not in the file cuts the chain there: the
model resumes with every turn before the cut missing, and nothing says so. So before a
resume hands the CLI a transcript, `gaps` lists every such cut, and `fill` fills what it
can from another copy of the same session (the CLI's own file on this machine).

The rule, in one place: an entry with a string ``uuid`` takes part; its ``parentUuid``, when a
string, must be the ``uuid`` of an entry of the same file. (A compaction's boundary starts a
new chain, ``parentUuid: null``, and names the old one in ``logicalParentUuid``: the model
sees the summary, not the old turns, so that link is not required.) An entry that carries a
``sessionId`` other than the session's is named too: it belongs to another conversation.

Pure functions of lists of dicts: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._attrs import frozen

__all__ = ["Gap", "chain_order", "fill", "gaps"]


@frozen
class Gap:
    """A cut in a transcript's chain.

    Attributes:
        missing: the uuid an entry names as its parent that no entry of the file has (or,
            with ``foreign_session`` set, the entry's own uuid).
        needed_by: the uuid of that entry.
        index: its position in the file (0-based).
        entry_type: its ``type`` (``user``, ``assistant``, ...).
        foreign_session: the other session id the entry carries, when that is the fault.
    """

    missing: str
    needed_by: str
    index: int
    entry_type: str
    foreign_session: str | None = None

    def describe(self) -> str:
        """One line for an error message."""
        if self.foreign_session is not None:
            return (
                f"entry {self.index} ({self.entry_type}, uuid {self.needed_by}) belongs to "
                f"session {self.foreign_session}"
            )
        return (
            f"entry {self.index} ({self.entry_type}, uuid {self.needed_by}) follows "
            f"{self.missing}, which is missing"
        )


def _uuid(entry: Mapping[str, Any]) -> str | None:
    value = entry.get("uuid")
    return value if isinstance(value, str) and value else None


def _parent(entry: Mapping[str, Any]) -> str | None:
    value = entry.get("parentUuid")
    return value if isinstance(value, str) and value else None


def gaps(entries: Sequence[Mapping[str, Any]], session_id: str | None = None) -> list[Gap]:
    """Every cut in ``entries``' chain (see the module docstring), in file order.

    ``session_id``: the session the file is; entries carrying another ``sessionId`` are
    named (None: not checked, for a subagent's file).
    """
    present = {u for e in entries if (u := _uuid(e)) is not None}
    found: list[Gap] = []
    for index, entry in enumerate(entries):
        own = _uuid(entry)
        kind = str(entry.get("type", "?"))
        other = entry.get("sessionId")
        if (
            session_id is not None
            and own is not None
            and isinstance(other, str)
            and other != session_id
        ):
            found.append(Gap(own, own, index, kind, foreign_session=other))
        parent = _parent(entry)
        if own is not None and parent is not None and parent not in present:
            found.append(Gap(parent, own, index, kind))
    return found


def fill(
    primary: Sequence[Mapping[str, Any]], other: Iterable[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """``primary`` with its gaps filled from ``other``: the entries of ``other`` that an entry
    of the result follows and ``primary`` lacks (and theirs, back to where the chain is
    whole), in chain order (`chain_order`).

    Only what the chain needs is taken: lines of ``other`` no entry of ``primary`` leads back
    to (a branch the conversation left, on a machine where it went on without the store)
    are not, so the conversation resumed is ``primary``'s.
    """
    by_uuid = {u: e for e in other if (u := _uuid(e)) is not None}
    have = {u for e in primary if (u := _uuid(e)) is not None}
    wanted = [p for e in primary if (p := _parent(e)) is not None and p not in have]
    extra: list[Mapping[str, Any]] = []
    while wanted:
        missing = wanted.pop()
        found = by_uuid.get(missing)
        if found is None or missing in have:
            continue
        have.add(missing)
        extra.append(found)
        parent = _parent(found)
        if parent is not None and parent not in have:
            wanted.append(parent)
    if not extra:
        return list(primary)
    position = {id(e): i for i, e in enumerate(other)}  # as the other copy had them
    extra.sort(key=lambda e: position.get(id(e), 0))
    return chain_order([*primary, *extra])


def chain_order(entries: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``entries`` with each one after its parent, otherwise in the order given.

    A line that comes after a line that follows it (appended again after the store caught
    up) moves up to just before the first line that follows it. Only lines that others
    follow move, so the latest line no other continues, the one the CLI resumes from, is
    the same before and after.
    """
    by_uuid = {u: e for e in entries if (u := _uuid(e)) is not None}
    out: list[Mapping[str, Any]] = []
    done: set[int] = set()
    for entry in entries:
        if id(entry) in done:
            continue
        line = [entry]  # the entry, then the ancestors not yet written, nearest first
        seen = {id(entry)}
        parent = _parent(entry)
        while parent is not None:
            above = by_uuid.get(parent)
            if above is None or id(above) in done or id(above) in seen:
                break  # missing (a gap), written already, or a cycle
            line.append(above)
            seen.add(id(above))
            parent = _parent(above)
        for item in reversed(line):
            done.add(id(item))
            out.append(item)
    return out
