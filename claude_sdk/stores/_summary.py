"""Session summaries: what a store keeps per session so that a listing needs no ``load``.

The official SDK's (0.2.188) optional store method ``list_session_summaries(project_key)``
gives one `SessionSummaryEntry` per main transcript of a project: ``session_id``, ``mtime``
(when the store last wrote the summary, on the clock of ``list_sessions``) and ``data``, an
object the SDKs fill and a store keeps as it is. A store makes it inside ``append``, with
`fold_session_summary` over each batch of a main key (never a ``subpath``): every value it
derives is set once or last wins, so a batch is folded without reading the transcript
again, and batches folded one after the other give what the whole transcript folded at once
gives.

`fold_session_summary` is the official function's contract, value for value. The shipped
stores fold with `fold_for_store`, which adds `claude_sdk.history`'s listing state under
``data["claude_sdk_py"]`` (the official SDK ignores keys it does not know), so that
`claude_sdk.history.StoreHistory.list_sessions` answers from summaries exactly as from the
transcripts.

Invariants of a summary a shipped store keeps: it is the fold of exactly the entries
``load`` returns for the key, in order (entries a uuid dedup skipped are not folded); its
``mtime`` is that of ``list_sessions`` for the session, or older when another writer
appended without folding (a reader then loads the session, as the official SDK does).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from .._listing import Scan, entry_size
from ._contract import SessionKey, SessionSummaryEntry

__all__ = [
    "LISTING_KEY",
    "fold_for_store",
    "fold_session_summary",
    "has_listing_state",
    "listing_state",
]

#: The key of ``data`` that holds `claude_sdk.history`'s listing state.
LISTING_KEY: Final = "claude_sdk_py"
#: The form of that state; a summary holding another is folded again from the transcript.
_LISTING_VERSION: Final = 1

#: Entry keys whose last string value a summary keeps, and the ``data`` key it keeps it as.
_LAST_WINS: Final = (
    ("customTitle", "custom_title"),
    ("aiTitle", "ai_title"),
    ("lastPrompt", "last_prompt"),
    ("summary", "summary_hint"),
    ("gitBranch", "git_branch"),
)
#: Prompts that are the CLI's or the IDE's, not the user's first words.
_NOT_FIRST = re.compile(
    r"^(?:<local-command-stdout>|<session-start-hook>|<tick>|<goal>"
    r"|\[Request interrupted by user[^\]]*\]"
    r"|\s*<ide_opened_file>[\s\S]*</ide_opened_file>\s*$"
    r"|\s*<ide_selection>[\s\S]*</ide_selection>\s*$)"
)
_COMMAND = re.compile(r"<command-name>(.*?)</command-name>")
#: How long a first prompt is kept (longer ones are cut and end in an ellipsis).
_FIRST_PROMPT_CHARS: Final = 200


def fold_session_summary(
    prev: SessionSummaryEntry | None,
    key: SessionKey,
    entries: Sequence[Mapping[str, Any]],
) -> SessionSummaryEntry:
    """The summary of ``key``'s main transcript after ``entries`` were appended to it.

    The official ``claude_agent_sdk.fold_session_summary``, value for value: call it in a
    store's ``append`` for a key without ``subpath`` (a subagent's entries are not the
    session's), with the summary it gave last time (None for the first batch), and keep
    what it returns as it is. ``prev`` is not changed.

    * ``session_id`` comes from ``prev`` (else from ``key``); ``mtime`` is ``prev``'s (0 for
      a first batch): the store sets it to its own time of the write, on the clock of its
      ``list_sessions``.
    * ``data`` holds, from the entries in order: ``is_sidechain`` (the first entry's
      ``isSidechain is True``), ``created_at`` (the first timestamp that parses, epoch ms;
      one without an offset is local time, as the official function reads it), ``cwd``
      (the first non-empty), ``first_prompt`` with ``first_prompt_locked`` (the first user
      text that is not a tool result, meta, compaction summary, slash command or CLI
      markup; newlines as spaces, cut to 200 characters plus an ellipsis) or else
      ``command_fallback`` (the first slash command's name), the last string
      ``customTitle``, ``aiTitle``, ``lastPrompt``, ``summary`` and ``gitBranch`` (as
      ``custom_title``, ``ai_title``, ``last_prompt``, ``summary_hint``, ``git_branch``),
      and ``tag`` (the last ``tag`` entry's, removed by an empty one).

    Unlike the official function, a timestamp whose conversion overflows is skipped, never
    raised.
    """
    if prev is not None:
        summary: SessionSummaryEntry = {
            "session_id": prev["session_id"],
            "mtime": prev["mtime"],
            "data": dict(prev["data"]),
        }
    else:
        summary = {"session_id": key["session_id"], "mtime": 0, "data": {}}
    data = summary["data"]
    for entry in entries:
        if "is_sidechain" not in data:
            data["is_sidechain"] = entry.get("isSidechain") is True
        if "created_at" not in data:
            ms = _epoch_ms(entry.get("timestamp"))
            if ms is not None:
                data["created_at"] = ms
        if "cwd" not in data:
            cwd = entry.get("cwd")
            if isinstance(cwd, str) and cwd:
                data["cwd"] = cwd
        if not data.get("first_prompt_locked"):
            _first_prompt(data, entry)
        for wire, name in _LAST_WINS:
            value = entry.get(wire)
            if isinstance(value, str):
                data[name] = value
        if entry.get("type") == "tag":
            tag = entry.get("tag")
            if isinstance(tag, str) and tag:
                data["tag"] = tag
            else:
                data.pop("tag", None)
    return summary


def _epoch_ms(value: object) -> int | None:
    if not isinstance(value, str):
        return None
    text = value.replace("Z", "+00:00") if value.endswith("Z") else value
    try:
        return int(datetime.fromisoformat(text).timestamp() * 1000)
    except (ValueError, OverflowError, OSError):
        return None


def _first_prompt(data: dict[str, Any], entry: Mapping[str, Any]) -> None:
    if entry.get("type") != "user":
        return
    if entry.get("isMeta") is True or entry.get("isCompactSummary") is True:
        return
    message = entry.get("message")
    if not isinstance(message, dict):
        return
    content = message.get("content")
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        blocks = [b for b in content if isinstance(b, dict)]
        if any(b.get("type") == "tool_result" for b in blocks):
            return
        texts = [
            b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    else:
        return
    for text in texts:
        prompt = text.replace("\n", " ").strip()
        if not prompt:
            continue
        command = _COMMAND.search(prompt)
        if command is not None:
            if not data.get("command_fallback"):
                data["command_fallback"] = command.group(1)
            continue
        if _NOT_FIRST.match(prompt):
            continue
        if len(prompt) > _FIRST_PROMPT_CHARS:
            prompt = prompt[:_FIRST_PROMPT_CHARS].rstrip() + "\u2026"
        data["first_prompt"] = prompt
        data["first_prompt_locked"] = True
        return


# ======================================================================================
# The shipped stores' summaries: the official fold plus claude_sdk's listing state


def listing_state(data: object) -> tuple[Scan, int, int] | None:
    """``(scan, size, entries)`` of the listing state in a summary's ``data``: the transcript
    folded into a `claude_sdk._listing.Scan`, its size as the SDK writes it (entries of type
    ``agent_metadata`` left out of both) and how many entries were folded; None when
    ``data`` holds none (a store that folds with `fold_session_summary` alone, or another
    version's)."""
    state = data.get(LISTING_KEY) if isinstance(data, Mapping) else None
    if not isinstance(state, dict) or state.get("v") != _LISTING_VERSION:
        return None
    size, count = state.get("size"), state.get("n")
    if not (_count(size) and _count(count)):
        return None
    scan = Scan.from_state(state.get("scan"))
    if scan is None:
        return None
    assert isinstance(size, int)  # _count checked them
    assert isinstance(count, int)
    return scan, size, count


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def has_listing_state(summary: object) -> bool:
    """Whether ``summary`` is a `SessionSummaryEntry` `fold_for_store` can go on from."""
    if not isinstance(summary, dict):
        return False
    mtime, data = summary.get("mtime"), summary.get("data")
    return (
        isinstance(summary.get("session_id"), str)
        and isinstance(mtime, int)
        and isinstance(data, dict)
        and listing_state(data) is not None
    )


def fold_for_store(
    prev: SessionSummaryEntry | None, session_id: str, entries: Iterable[Mapping[str, Any]]
) -> SessionSummaryEntry:
    """`fold_session_summary`, plus the listing state under ``data["claude_sdk_py"]``.

    ``prev`` must be None or hold a listing state (`has_listing_state`); a store that finds
    one without folds the transcript again from its start.
    """
    batch = list(entries)
    summary = fold_session_summary(prev, {"project_key": "", "session_id": session_id}, batch)
    state = (Scan(), 0, 0) if prev is None else listing_state(prev["data"])
    if state is None:
        raise ValueError("fold_for_store: prev holds no listing state")
    scan, size, count = state
    for entry in batch:
        count += 1
        if entry.get("type") != "agent_metadata":
            scan.feed(entry)
            size += entry_size(entry)
    summary["data"][LISTING_KEY] = {
        "v": _LISTING_VERSION,
        "n": count,
        "size": size,
        "scan": scan.state_json(),
    }
    return summary
