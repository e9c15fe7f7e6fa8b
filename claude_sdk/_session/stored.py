"""Before the CLI starts: sessions from the store, diskless sessions, start-or-resume.

`prepare` turns the options a caller gave into the options the CLI is started with, and says
where the CLI keeps its files (so the mirror can name them):

* **Resume from the store** (``resume`` or ``continue_conversation`` with ``session_store``):
  the store's transcript, and the files kept under the session (``list_subkeys``), are
  written where the CLI reads them, ``<config>/projects/<cwd slug>/<id>.jsonl``, unless the
  local copy already holds every line the store has; a local copy with lines the store lacks
  is kept beside it (``<id>.jsonl.local-<time>``), never overwritten. ``continue_conversation``
  resumes the store's newest session of the project (``list_sessions``), when the store can
  list.
* **Start or resume** (``resume_missing="start"``): a session found nowhere (not in the
  store, not on disk) is started with that id (``--session-id``) instead of resumed.
* **Diskless** (``diskless=True``): the CLI gets a temporary configuration directory
  (``CLAUDE_CONFIG_DIR``), seeded with the caller's settings and credentials files, and
  removed with everything in it when the session closes (`Prepared.cleanup`), after the
  mirror has stored what is left.

Keys are checked before any path is made of them: a store's ``list_subkeys`` answer that is
not a safe relative path is skipped with a warning. File writes run in a worker thread.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.to_thread
import attrs

from .._paths import canonical as _canonical
from .._paths import cli_config_dir, project_slug
from .._paths import is_uuid as _is_uuid
from ..errors import SessionNotFoundError, SessionStoreError
from ..options import Options
from ..stores._contract import SessionKey, SessionStore
from ..stores._keys import subpath_is_safe
from ..stores._memory import checked_load

__all__ = ["Prepared", "prepare"]

logger = logging.getLogger("claude_sdk.session")

#: Seconds one store read may take before the session fails to start.
LOAD_TIMEOUT: Final = 60.0
#: Files of the caller's configuration a diskless session's directory starts with.
_SEEDED: Final = (".credentials.json", "settings.json")


@attrs.define(eq=False)
class Prepared:
    """What `prepare` decided.

    Attributes:
        options: the options to start the CLI with.
        projects_dir: the CLI's ``projects`` directory on this machine.
        temporary: the diskless configuration directory, removed by `cleanup`.
    """

    options: Options
    projects_dir: str | None
    temporary: Path | None = None

    async def cleanup(self) -> None:
        """Remove the diskless directory (shielded; never raises)."""
        if self.temporary is not None:
            path, self.temporary = self.temporary, None
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(shutil.rmtree, path, True)


async def prepare(options: Options) -> Prepared:
    """Resolve the store, start-or-resume and diskless options (see the module docstring).

    Raises:
        SessionNotFoundError: ``resume`` names a session that exists nowhere and
            ``resume_missing`` is ``"error"`` (only said here when a store was asked).
        SessionStoreError: the store failed to answer (``retryable``).
    """
    store = options.session_store
    if store is None and options.resume_missing != "start":
        return Prepared(options, None)
    env = dict(options.env)
    temporary: Path | None = None
    if options.diskless:
        temporary = Path(await anyio.to_thread.run_sync(_make_diskless, env))
        env["CLAUDE_CONFIG_DIR"] = str(temporary)
        options = attrs.evolve(options, env=env)
    config = Path(temporary) if temporary is not None else _config_dir(env)
    prepared = Prepared(options, str(config / "projects"), temporary)
    try:
        prepared.options = await _resolve(options, store, config)
    except BaseException:
        await prepared.cleanup()
        raise
    return prepared


async def _resolve(options: Options, store: SessionStore | None, config: Path) -> Options:
    cwd = _canonical(options.cwd)
    project_dir = config / "projects" / project_slug(cwd)
    project_key = options.store_project_key or project_slug(cwd)
    session_id = options.resume
    if store is not None and options.continue_conversation:
        newest = await _newest(store, project_key)
        if newest is None:
            return options  # nothing stored: the CLI continues from local files, or starts
        options = attrs.evolve(options, continue_conversation=False, resume=newest)
        session_id = newest
    if session_id is None or not _is_uuid(session_id):
        return options  # a title or search term: the CLI's business
    found = (project_dir / f"{session_id}.jsonl").is_file()
    if store is not None:
        key: SessionKey = {"project_key": project_key, "session_id": session_id}
        entries = await _load(store, key)
        if entries:
            await _materialise(store, key, entries, project_dir)
            found = True
    if found:
        return options
    if options.resume_missing == "start":
        logger.debug("session %s exists nowhere: starting it with that id", session_id)
        return attrs.evolve(options, resume=None, resume_missing="error", session_id=session_id)
    if store is not None:
        raise SessionNotFoundError(
            f"session {session_id!r} is neither in the session store (project_key "
            f"{project_key!r}) nor in {project_dir}",
            session_id=session_id,
        )
    return options


async def _newest(store: SessionStore, project_key: str) -> str | None:
    lister = getattr(store, "list_sessions", None)
    if lister is None:
        return None
    try:
        with anyio.fail_after(LOAD_TIMEOUT):
            rows = await lister(project_key)
    except NotImplementedError:
        return None
    except Exception as exc:
        raise _store_error("list_sessions", {"project_key": project_key}, exc) from exc
    ids = [
        (row["mtime"], row["session_id"])
        for row in rows
        if isinstance(row, Mapping) and _is_uuid(str(row.get("session_id", "")))
    ]
    return max(ids)[1] if ids else None


async def _load(store: SessionStore, key: SessionKey) -> list[dict[str, Any]] | None:
    try:
        with anyio.fail_after(LOAD_TIMEOUT):
            entries = await store.load(key)
    except Exception as exc:
        raise _store_error("load", key, exc) from exc
    # Every entry, or a typed error naming the one that is not JSON: never a quiet gap.
    return await anyio.to_thread.run_sync(checked_load, entries, key)


async def _materialise(
    store: SessionStore, key: SessionKey, entries: list[dict[str, Any]], project_dir: Path
) -> None:
    session_id = key["session_id"]
    files: dict[str, list[dict[str, Any]]] = {f"{session_id}.jsonl": entries}
    lister = getattr(store, "list_subkeys", None)
    if lister is not None:
        try:
            with anyio.fail_after(LOAD_TIMEOUT):
                subkeys = await lister(
                    {"project_key": key["project_key"], "session_id": session_id}
                )
        except NotImplementedError:
            subkeys = []
        except Exception as exc:
            raise _store_error("list_subkeys", key, exc) from exc
        for subpath in subkeys if isinstance(subkeys, list) else []:
            if not subpath_is_safe(subpath):
                logger.warning("session store subkey %r is not a safe path; skipped", subpath)
                continue
            sub = await _load(store, {**key, "subpath": subpath})
            if sub:
                files[f"{session_id}/{subpath}.jsonl"] = sub
    await anyio.to_thread.run_sync(_write_files, project_dir, files)


def _write_files(project_dir: Path, files: dict[str, list[dict[str, Any]]]) -> None:
    """Write each transcript unless the local copy already holds every line."""
    for relative, entries in files.items():
        path = project_dir / relative
        metadata = [e for e in entries if e.get("type") == "agent_metadata"]
        lines = [e for e in entries if e.get("type") != "agent_metadata"]
        have = _uuids_in(path)
        wanted = {e["uuid"] for e in lines if isinstance(e.get("uuid"), str)}
        if have is None or not wanted <= have:
            if have and have - wanted:
                # Lines only this machine has (the store missed them, and the session went on
                # elsewhere): kept beside it, never overwritten.
                kept = path.with_name(f"{path.name}.local-{int(time.time())}")
                os.replace(path, kept)
                logger.warning(
                    "%s had %d lines the session store lacks; kept as %s, the store's copy "
                    "is resumed",
                    path,
                    len(have - wanted),
                    kept.name,
                )
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            _write_atomic(path, b"".join(_line(e) for e in lines))
        if metadata:  # a subagent's sidecar travels as its last agent_metadata entry
            sidecar = path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
            meta = {k: v for k, v in metadata[-1].items() if k != "type"}
            _write_atomic(sidecar, _line(meta))


def _uuids_in(path: Path) -> set[str] | None:
    """The uuids of the transcript lines at ``path``, or None if there is no such file."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    have: set[str] = set()
    for raw in data.splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("uuid"), str):
            have.add(obj["uuid"])
    return have


def _line(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _write_atomic(path: Path, data: bytes) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _config_dir(env: Mapping[str, str | None]) -> Path:
    """The CLI's configuration directory under ``env`` laid over this process's."""
    return cli_config_dir(env)


def _make_diskless(env: Mapping[str, str | None]) -> str:
    """A private temporary configuration directory seeded with the caller's settings."""
    source = _config_dir(env)
    target = Path(tempfile.mkdtemp(prefix="claude-sdk-diskless-"))
    try:
        for name in _SEEDED:
            _copy_private(source / name, target / name)
        configured = env.get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
        home = env.get("HOME") or os.environ.get("HOME") or str(Path.home())
        state = source / ".claude.json" if configured else Path(home) / ".claude.json"
        _copy_private(state, target / ".claude.json")
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return str(target)


def _copy_private(source: Path, target: Path) -> None:
    try:
        data = source.read_bytes()
    except OSError:
        return
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _store_error(operation: str, key: Mapping[str, Any], exc: BaseException) -> SessionStoreError:
    reason = (
        f"no answer within {LOAD_TIMEOUT:g} s"
        if isinstance(exc, TimeoutError)
        else f"{type(exc).__name__}: {exc}"
    )
    return SessionStoreError(
        f"session store {operation} failed: {reason}",
        operation=operation,
        key={k: str(v) for k, v in key.items()},
    )
