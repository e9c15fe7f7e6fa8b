"""`import_session_to_store`: a session the CLI kept on this machine, copied into a store.

The official ``claude-agent-sdk``'s function of the same name, with the same contract: the
session's transcript is read line by line and appended in batches of ``batch_size`` lines (or
1 MiB of line text) under ``{"project_key": <the project directory's name>, "session_id"}``,
the key the live mirror uses for the same file, so an imported session resumes like a
mirrored one; subagent transcripts (``<id>/subagents/**``) go under their ``subpath``, each
followed by its ``.meta.json`` sidecar as an ``agent_metadata`` entry. Stores skip a uuid
they have, so importing again (or after a live mirror stored part of it) stores nothing
twice: the way to fill a store that missed lines.

Beyond the official function: a line that is not a JSON object (torn by a crash) is skipped
with a warning, and the import returns what it stored.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import anyio.to_thread

from .._attrs import frozen
from ..errors import SessionNotFoundError
from ._contract import SessionKey, SessionStore

__all__ = ["ImportedSession", "import_session_to_store"]

logger = logging.getLogger("claude_sdk.stores")

#: Lines per ``append`` by default (the live mirror's batch).
BATCH_SIZE = 500
#: Line text per ``append`` at most.
BATCH_BYTES = 1 << 20


class _NotOnDiskError(SessionNotFoundError, FileNotFoundError):
    """No transcript of the session on this machine: a `SessionNotFoundError` that is also
    the ``FileNotFoundError`` the official function raises."""


@frozen
class ImportedSession:
    """What `import_session_to_store` read.

    Attributes:
        project_key: the key's ``project_key`` (the project directory's name).
        lines: transcript lines read, in all files (each appended; the store skips what it
            has).
        files: transcripts read: the session's, then its subagents'.
        skipped: lines that were not JSON objects (torn), not appended.
    """

    project_key: str
    lines: int
    files: int
    skipped: int


async def import_session_to_store(
    session_id: str,
    store: SessionStore,
    *,
    directory: str | os.PathLike[str] | None = None,
    include_subagents: bool = True,
    batch_size: int = BATCH_SIZE,
    config_dir: str | os.PathLike[str] | None = None,
) -> ImportedSession:
    """Copy the CLI's transcript of ``session_id`` on this machine into ``store``.

    Args:
        session_id: the session (a UUID).
        store: where to copy it.
        directory: the project's directory (its ``cwd``), as for `claude_sdk.history`;
            None: the current directory's project, then every project.
        include_subagents: copy the subagents' transcripts and their metadata too.
        batch_size: lines per ``append`` (at most; 1 MiB of text at most too); 0 or less:
            the default, 500.
        config_dir: the CLI's configuration directory (default: ``CLAUDE_CONFIG_DIR`` or
            ``~/.claude``).

    Raises:
        ValueError: ``session_id`` is not a UUID.
        SessionNotFoundError: no transcript of it here (also a ``FileNotFoundError``).
        Exception: what ``store.append`` raises, as it raised it (nothing is retried: run the
            import again; nothing is stored twice).
    """
    from .. import history

    if batch_size <= 0:
        batch_size = BATCH_SIZE
    cwd = os.fspath(directory) if directory is not None else None
    try:
        path = await anyio.to_thread.run_sync(
            lambda: history.session_path(session_id, cwd, config_dir=config_dir)
        )
    except SessionNotFoundError:
        raise _NotOnDiskError(
            f"session {session_id!r} has no transcript on this machine", session_id=session_id
        ) from None
    project_key = path.parent.name
    files: list[tuple[Path, str | None]] = [(path, None)]
    if include_subagents:
        files += await anyio.to_thread.run_sync(_subagent_files, path.with_suffix(""))
    lines = skipped = 0
    for file, subpath in files:
        key: SessionKey = {"project_key": project_key, "session_id": session_id}
        if subpath is not None:
            key["subpath"] = subpath
        batches = _batches(file, batch_size)
        try:
            while True:
                batch = await anyio.to_thread.run_sync(next, batches, None)
                if batch is None:
                    break
                entries, torn = batch
                skipped += torn
                if entries:
                    await store.append(key, entries)
                    lines += len(entries)
        finally:
            batches.close()  # the file, when the import stops early
        if subpath is not None:
            meta = await anyio.to_thread.run_sync(_sidecar, file)
            if meta is not None:
                await store.append(key, [{**meta, "type": "agent_metadata"}])
    if skipped:
        logger.warning(
            "import of session %s: %d lines were not JSON objects (torn) and were skipped",
            session_id,
            skipped,
        )
    return ImportedSession(project_key, lines, len(files), skipped)


def _subagent_files(session_dir: Path) -> list[tuple[Path, str | None]]:
    """``(transcript, subpath)`` under ``<session>/subagents`` (nested ones too), sorted."""
    root = session_dir / "subagents"
    found: list[tuple[Path, str | None]] = []
    if not root.is_dir():
        return found
    for path in sorted(root.rglob("*.jsonl")):
        if path.is_symlink() or not path.is_file():
            continue
        relative = path.relative_to(session_dir).with_suffix("")
        found.append((path, relative.as_posix()))
    return found


def _batches(path: Path, size: int) -> Generator[tuple[list[dict[str, Any]], int], None, None]:
    """``(entries, torn lines)`` of at most ``size`` entries or `BATCH_BYTES` of text."""
    batch: list[dict[str, Any]] = []
    text = torn = 0
    with path.open("rb") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                entry = None
            if not isinstance(entry, dict):
                torn += 1
                continue
            batch.append(entry)
            text += len(line)
            if len(batch) >= size or text >= BATCH_BYTES:
                yield batch, torn
                batch, text, torn = [], 0, 0
    if batch or torn:
        yield batch, torn


def _sidecar(transcript: Path) -> dict[str, Any] | None:
    """The subagent's ``.meta.json`` beside ``transcript``, or None (missing or not an
    object: the transcript is imported all the same)."""
    try:
        value = json.loads(transcript.with_suffix(".meta.json").read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
