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
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.to_thread
import attrs

from .._attrs import define
from .._paths import canonical as _canonical
from .._paths import cli_config_dir, project_slug
from .._paths import is_uuid as _is_uuid
from ..errors import OptionsError, SessionNotFoundError, SessionStoreError, TranscriptGapError
from ..options import Options
from ..stores import _chain
from ..stores._contract import SessionKey, SessionStore
from ..stores._keys import subpath_is_safe
from ..stores._lease import has_leases
from ..stores._memory import checked_load
from ..transports._watchdog import (
    hold_directory,
    release_directory,
    release_directory_blocking,
)
from . import lease
from .lease import HeldLease

__all__ = ["Prepared", "prepare"]

logger = logging.getLogger("claude_sdk.session")

#: Seconds one store read may take before the session fails to start.
#: Subkeys the SDK keeps under a session for itself (`claude_sdk.humans`): never written
#: where the CLI reads.
SDK_SUBKEYS: Final = "claude_sdk/"
#: Files of the caller's configuration a diskless session's directory starts with.
_SEEDED: Final = (".credentials.json", "settings.json")


@define(eq=False)
class Prepared:
    """What `prepare` decided.

    Attributes:
        options: the options to start the CLI with.
        projects_dir: the CLI's ``projects`` directory on this machine.
        temporary: the diskless configuration directory, removed by `cleanup`.
        stored: the session store holds the session being resumed.
        lease: the session's lease in the store, released by `cleanup`.
    """

    options: Options
    projects_dir: str | None
    temporary: Path | None = None
    #: The session store holds the session being resumed (its transcript was written here).
    stored: bool = False
    #: The session's lease on its key in the store (`claude_sdk._session.lease`).
    lease: HeldLease | None = None
    #: The store's transcripts for a CLI on another disk (relative path -> bytes).
    transcripts: dict[str, bytes] = attrs.field(factory=dict)

    async def cleanup(self) -> None:
        """Give the lease up and remove the diskless directory (shielded; never raises)."""
        if self.lease is not None:
            await self.lease.release()
        if self.temporary is not None:
            path, self.temporary = self.temporary, None
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(_rmtree, path)
                await release_directory(str(path))


async def prepare(options: Options, *, runs_here: bool = True) -> Prepared:
    """Resolve the store, start-or-resume and diskless options (see the module docstring).

    ``runs_here`` False (the transport's CLI reads another disk: SSH, a container): the
    store's transcripts are not written here but kept in `Prepared.transcripts`, for the
    transport to write on the CLI's side; the mirror finds the key in each path.

    Raises:
        SessionNotFoundError: ``resume`` names a session that exists nowhere and
            ``resume_missing`` is ``"error"`` (only said here when a store was asked).
        SessionStoreError: the store failed to answer (``retryable``).
        TranscriptGapError: the transcript the CLI would resume (from the store, or its own
            file on this machine) has a gap no copy here fills (``retryable``).
    """
    store = options.session_store
    if not runs_here and options.diskless:
        raise OptionsError(
            "Options.diskless keeps the CLI's files in a temporary directory on this machine, "
            "and this transport's CLI reads another disk (SSH, a container): give that CLI "
            "a temporary CLAUDE_CONFIG_DIR on its side instead (Options.env)",
            option="diskless",
        )
    checked = runs_here and options.resume is not None and _is_uuid(options.resume)
    if store is None and options.resume_missing != "start" and not checked:
        return Prepared(options, None)
    env = dict(options.env)
    temporary: Path | None = None
    if options.diskless:
        temporary = Path(await anyio.to_thread.run_sync(_make_diskless, env))
        env["CLAUDE_CONFIG_DIR"] = str(temporary)
        options = attrs.evolve(options, env=env)
    config = Path(temporary) if temporary is not None else _config_dir(env)
    prepared = Prepared(options, str(config / "projects") if runs_here else None, temporary)
    try:
        prepared.options = await _resolve(options, store, config, prepared)
    except BaseException:
        await prepared.cleanup()
        raise
    return prepared


async def _resolve(
    options: Options, store: SessionStore | None, config: Path, prepared: Prepared
) -> Options:
    cwd = _canonical(options.cwd)
    project_dir = config / "projects" / project_slug(cwd)
    project_key = options.store_project_key or project_slug(cwd)
    session_id = options.resume
    if store is not None and options.continue_conversation:
        newest = await _newest(store, project_key, options.session_store_load_timeout)
        if newest is None:
            return options  # nothing stored: the CLI continues from local files, or starts
        options = attrs.evolve(options, continue_conversation=False, resume=newest)
        session_id = newest
    if store is not None:
        options = await _take_lease(options, store, project_key, session_id, prepared)
    if session_id is None or not _is_uuid(session_id):
        return options  # a title or search term: the CLI's business
    local = project_dir / f"{session_id}.jsonl"
    runs_here = prepared.projects_dir is not None
    found = runs_here and local.is_file()
    if store is None and found:
        # The CLI's own file: a torn line (a crash mid-write) may have cut its chain.
        await anyio.to_thread.run_sync(check_local, local, session_id)
    if store is not None:
        key: SessionKey = {"project_key": project_key, "session_id": session_id}
        entries = await _load(store, key, options.session_store_load_timeout)
        if entries:
            files = await _materialise(
                store,
                key,
                entries,
                project_dir if runs_here else None,
                options.session_store_load_timeout,
            )
            prepared.transcripts = files
            found = prepared.stored = True
    if found:
        return options
    if not runs_here and options.resume_missing == "start":
        # The CLI's own disk is not ours to look at: it resumes its copy if it has one, and
        # `open_session` starts the session when it does not (never over a stored one).
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


async def _take_lease(
    options: Options,
    store: SessionStore,
    project_key: str,
    resumed: str | None,
    prepared: Prepared,
) -> Options:
    """Take the lease of the session the CLI will write (``Options.session_lease``), before
    the store is read for it. A new session gets its id here (``--session-id``), so that it
    is leased before the CLI starts; a resume by title, or a ``continue_conversation`` the
    store has nothing for, is not leased (its id is the CLI's to find)."""
    if options.session_lease is None or not has_leases(store):
        return options
    if options.session_id is not None:
        session_id = options.session_id  # a new session (or a fork) under a chosen id
    elif resumed is not None and not options.fork_session:
        if not _is_uuid(resumed):
            return options
        session_id = resumed
    elif options.continue_conversation:
        return options
    else:  # a new session, or a fork: its id chosen now
        session_id = str(uuid.uuid4())
        options = attrs.evolve(options, session_id=session_id)
    prepared.lease = await lease.acquire(
        store,
        {"project_key": project_key, "session_id": session_id},
        mode=options.session_lease,
        ttl=options.session_lease_ttl,
        answer_within=options.session_store_load_timeout,
    )
    return options


async def _newest(store: SessionStore, project_key: str, seconds: float | None) -> str | None:
    lister = getattr(store, "list_sessions", None)
    if lister is None:
        return None
    try:
        with anyio.fail_after(seconds):
            rows = await lister(project_key)
    except NotImplementedError:
        return None
    except Exception as exc:
        raise _store_error("list_sessions", {"project_key": project_key}, exc, seconds) from exc
    ids = [
        (row["mtime"], row["session_id"])
        for row in rows
        if isinstance(row, Mapping) and _is_uuid(str(row.get("session_id", "")))
    ]
    return max(ids)[1] if ids else None


async def _load(
    store: SessionStore, key: SessionKey, seconds: float | None
) -> list[dict[str, Any]] | None:
    try:
        with anyio.fail_after(seconds):
            entries = await store.load(key)
    except Exception as exc:
        raise _store_error("load", key, exc, seconds) from exc
    # Every entry, or a typed error naming the one that is not JSON: never a quiet gap.
    return await anyio.to_thread.run_sync(checked_load, entries, key)


async def _materialise(
    store: SessionStore,
    key: SessionKey,
    entries: list[dict[str, Any]],
    project_dir: Path | None,
    seconds: float | None,
) -> dict[str, bytes]:
    """The session's transcripts from the store (and those kept under it), checked whole:
    written into ``project_dir`` (the CLI reads this disk), or, with ``project_dir`` None,
    returned as relative path -> bytes for the transport to write on the CLI's side."""
    session_id = key["session_id"]
    files: dict[str, list[dict[str, Any]]] = {f"{session_id}.jsonl": entries}
    lister = getattr(store, "list_subkeys", None)
    if lister is not None:
        try:
            with anyio.fail_after(seconds):
                subkeys = await lister(
                    {"project_key": key["project_key"], "session_id": session_id}
                )
        except NotImplementedError:
            subkeys = []
        except Exception as exc:
            raise _store_error("list_subkeys", key, exc, seconds) from exc
        for subpath in subkeys if isinstance(subkeys, list) else []:
            if isinstance(subpath, str) and subpath.startswith(SDK_SUBKEYS):
                continue  # the SDK's own records (a pending question): not the CLI's files
            if not subpath_is_safe(subpath):
                logger.warning("session store subkey %r is not a safe path; skipped", subpath)
                continue
            sub = await _load(store, {**key, "subpath": subpath}, seconds)
            if sub:
                files[f"{session_id}/{subpath}.jsonl"] = sub
    if project_dir is None:
        return await anyio.to_thread.run_sync(_far_files, files, session_id)
    await anyio.to_thread.run_sync(_write_files, project_dir, files, session_id)
    return {}


def _rmtree(path: str | os.PathLike[str]) -> None:
    """``shutil.rmtree(path, ignore_errors=True)`` (imported here, when a directory goes)."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _far_files(files: dict[str, list[dict[str, Any]]], session_id: str) -> dict[str, bytes]:
    """The files a CLI on another disk gets (relative path -> bytes), each chain checked
    whole (no copy here can fill a gap: the far side's own copy is not ours to read).

    Raises:
        TranscriptGapError: a file's chain has a gap.
    """
    out: dict[str, bytes] = {}
    for relative, entries in files.items():
        metadata = [e for e in entries if e.get("type") == "agent_metadata"]
        lines = [e for e in entries if e.get("type") != "agent_metadata"]
        whole = _chain.fill(lines, [])
        _check_whole(whole, session_id, relative)
        out[relative] = b"".join(_line(e) for e in whole)
        if metadata:
            meta = {k: v for k, v in metadata[-1].items() if k != "type"}
            out[relative[: -len(".jsonl")] + ".meta.json"] = _line(meta)
    return out


def _write_files(
    project_dir: Path, files: dict[str, list[dict[str, Any]]], session_id: str
) -> None:
    """Write each transcript where the CLI reads it, whole, or raise before writing any.

    A file is the store's lines, with the gaps in their chain filled from the local copy
    (the CLI's own file on this machine has what the store missed); a local copy that holds
    every line the store has is kept as it is. Either way its chain must be whole
    (`_chain.gaps`).

    Raises:
        TranscriptGapError: a file's chain has a gap no copy here fills.
    """
    plans: list[tuple[Path, list[Any] | None, list[dict[str, Any]], bool]] = []
    for relative, entries in files.items():
        path = project_dir / relative
        metadata = [e for e in entries if e.get("type") == "agent_metadata"]
        lines = [e for e in entries if e.get("type") != "agent_metadata"]
        local = _entries_in(path)
        have = {u for e in local or () if isinstance(u := e.get("uuid"), str)}
        wanted = {e["uuid"] for e in lines if isinstance(e.get("uuid"), str)}
        whole: list[Any]
        if local is not None and wanted <= have:
            result: list[Any] | None = None  # the local copy holds every line: kept
            whole = local
            aside = False
        else:
            result = _chain.fill(lines, local or [])
            whole = result
            aside = bool(have - {e["uuid"] for e in result if isinstance(e.get("uuid"), str)})
        _check_whole(whole, session_id, relative)
        plans.append((path, result, metadata, aside))
    for path, result, metadata, aside in plans:
        if result is not None:
            if aside:
                # Lines only this machine has that the store's chain does not lead back to
                # (the session went on elsewhere): kept beside it, never overwritten.
                kept = path.with_name(f"{path.name}.local-{int(time.time())}")
                os.replace(path, kept)
                logger.warning(
                    "%s has lines the session store's conversation does not lead back to; "
                    "kept as %s, the store's copy is resumed",
                    path,
                    kept.name,
                )
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            _write_atomic(path, b"".join(_line(e) for e in result))
        if metadata:  # a subagent's sidecar travels as its last agent_metadata entry
            sidecar = path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
            meta = {k: v for k, v in metadata[-1].items() if k != "type"}
            _write_atomic(sidecar, _line(meta))


def _check_whole(entries: list[Any], session_id: str, relative: str) -> None:
    """Raise `TranscriptGapError` when ``entries``' chain has a gap (`_chain.gaps`).

    The main transcript's entries must carry the session's id; a subagent's are not checked
    for it."""
    main = relative == f"{session_id}.jsonl"
    cuts = _chain.gaps(entries, session_id if main else None)
    if cuts:
        raise TranscriptGapError(
            session_id=session_id,
            missing=[c.missing for c in cuts],
            gaps=[c.describe() for c in cuts],
            file=relative,
        )


def check_local(path: Path, session_id: str) -> None:
    """Raise `TranscriptGapError` when the CLI's own transcript at ``path`` has a gap (a
    resume without a store; a missing file is the CLI's business)."""
    entries = _entries_in(path)
    if entries is not None:
        _check_whole(entries, session_id, path.name)


def _entries_in(path: Path) -> list[dict[str, Any]] | None:
    """The JSON objects of the transcript at ``path`` (a torn or foreign line skipped), or
    None if there is no such file."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    found: list[dict[str, Any]] = []
    for raw in data.splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            found.append(obj)
    return found


def _line(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _write_atomic(path: Path, data: bytes) -> None:
    import tempfile  # here, not in every program's import

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
    """A private temporary configuration directory seeded with the caller's settings.

    The watchdog holds it before it exists: if this process is killed (SIGKILL, an unhandled
    SIGTERM) at any moment, the watchdog removes it, the credentials copy with it."""
    source = _config_dir(env)
    target = _private_directory()
    try:
        for name in _SEEDED:
            _copy_private(source / name, target / name)
        configured = env.get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
        home = env.get("HOME") or os.environ.get("HOME") or str(Path.home())
        state = source / ".claude.json" if configured else Path(home) / ".claude.json"
        _copy_private(state, target / ".claude.json")
    except BaseException:
        _rmtree(target)
        release_directory_blocking(str(target))
        raise
    return str(target)


def _private_directory() -> Path:
    """A new directory ``claude-sdk-diskless-*`` (mode 0700) in the temporary directory,
    held by the watchdog from before it is made (`hold_directory`)."""
    import tempfile

    root = tempfile.gettempdir()
    for _ in range(100):
        path = os.path.join(root, f"claude-sdk-diskless-{os.urandom(6).hex()}")
        hold_directory(path)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:  # not ours: never the watchdog's to remove
            release_directory_blocking(path)
            continue
        except BaseException:
            release_directory_blocking(path)
            raise
        return Path(path)
    raise FileExistsError(f"no free name for a diskless directory in {root}")


def _copy_private(source: Path, target: Path) -> None:
    try:
        data = source.read_bytes()
    except OSError:
        return
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _store_error(
    operation: str, key: Mapping[str, Any], exc: BaseException, timeout: float | None
) -> SessionStoreError:
    reason = (
        f"no answer within {timeout:g} s (Options.session_store_load_timeout)"
        if isinstance(exc, TimeoutError)
        else f"{type(exc).__name__}: {exc}"
    )
    return SessionStoreError(
        f"session store {operation} failed: {reason}",
        operation=operation,
        key={k: str(v) for k, v in key.items()},
    )
