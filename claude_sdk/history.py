"""Sessions on disk: list, read, rename, tag, fork and delete the transcripts the CLI writes.

The Claude Code CLI keeps every session it runs in a JSON Lines transcript under its
configuration directory (``CLAUDE_CONFIG_DIR``, by default ``~/.claude``)::

    <config>/projects/<cwd-slug>/<session-id>.jsonl                      the transcript
    <config>/projects/<cwd-slug>/<session-id>/custom-title.json          the title, also a sidecar
    <config>/projects/<cwd-slug>/<session-id>/subagents/agent-<id>.jsonl a subagent's transcript
    <config>/projects/<cwd-slug>/<session-id>/subagents/agent-<id>.meta.json

``<cwd-slug>`` is the session's working directory (symlinks resolved) with every character
but ASCII letters and digits replaced by ``-`` (`project_slug`). The format, as CLI 2.1.330
writes it, is described in ``docs/session-files.md``.

Example::

    from claude_sdk import history

    for info in history.list_sessions():  # the sessions of the current directory
        print(info.session_id, info.modified, info.title or info.first_prompt)
    page = history.list_all_sessions(limit=20)  # every project's, newest first
    more = history.list_all_sessions(limit=20, after=page[-1])
    entries = history.read_session(info.session_id)  # typed transcript entries
    fork_id = history.fork_session(info.session_id)  # resume it with Options(resume=fork_id)

Contract:

* Synchronous file I/O, no CLI needed (``git worktree list`` runs when a listing includes a
  repository's worktrees). Session ids must be UUIDs and agent ids plain names; anything
  else (``../x``, a path) raises `ValueError` before the file system is touched.
* Listings read each transcript's two ends only (`HEAD_TAIL_BYTES` of each, as the CLI
  does), so their cost per session does not grow with the transcript; `SessionInfo` says
  what that leaves out. They are ordered newest first by `SessionInfo.modified`, then by
  session id, and paged with ``limit`` and ``offset`` or the cursor ``after``.
* A session that does not exist raises `claude_sdk.errors.SessionNotFoundError`. With
  ``cwd=None`` a session is looked up in the current directory's project first, then in every
  project (a session id is unique); with ``cwd`` given, in that project, then in the projects
  of its git repository's other worktrees.
* Reading never fails on content: each line becomes a typed entry (`UserEntry`,
  `AssistantEntry`, ...; their ``message`` typed with the SDK's wire model), an entry kind
  this module does not know becomes `UnknownEntry` holding the line's dict, and a line that
  is not a JSON object (a write torn by a crash) is skipped with a warning. Known entries keep
  their unknown keys in ``extra`` and ``entry.raw`` rebuilds the line exactly.
* Writes are what the CLI itself writes: `rename_session` and `tag_session` append the
  ``custom-title`` / ``tag`` entries the CLI reads back on resume (the title also goes to
  ``custom-title.json``), `fork_session` copies the conversation to a new session id the way
  ``--fork-session`` does, `delete_session` removes the transcript and the files kept under
  the session's id. Appends are single ``O_APPEND`` writes; new files appear atomically.
  `archive_session` and `unarchive_session` write the TypeScript SDK's mark,
  ``<session-id>/archived.json``, which `SessionInfo.archived` reads with that SDK's rule.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
import unicodedata
import uuid as _uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeVar

import attrs

from ._attrs import define, frozen
from ._entries import (
    AgentNameEntry,
    AiTitleEntry,
    APIRequestBlobEntry,
    APIRequestEntry,
    APIRequestShapeEntry,
    AssistantEntry,
    AtisLatchEntry,
    AttachmentEntry,
    ChainEntry,
    CostStateEntry,
    CustomTitleEntry,
    FileHistoryDeltaEntry,
    FileHistorySnapshotEntry,
    LastPromptEntry,
    ModeEntry,
    ProgressEntry,
    QueueOperationEntry,
    RelocatedEntry,
    SummaryEntry,
    SystemEntry,
    TagEntry,
    ToolsUsedEntry,
    TranscriptEntry,
    UnknownEntry,
    UserEntry,
)
from ._listing import ARCHIVE_RECORD_MAX as _ARCHIVE_RECORD_MAX
from ._listing import CHAIN_TYPES as _CHAIN_TYPES
from ._listing import Scan as _Scan
from ._listing import archive_record as _archive_record
from ._listing import could_be_prompt as _could_be_prompt
from ._listing import entry_size as _entry_size
from ._listing import is_message as _is_message
from ._listing import parse_time as _parse_time
from ._listing import pread_all as _pread_all
from ._listing import prompt_of as _prompt_of
from ._listing import prompt_time_ms as _prompt_time_ms
from ._listing import str_or_none as _str
from ._paths import MAX_SLUG as _MAX_SLUG
from ._paths import canonical as _canonical
from ._paths import is_uuid as _is_uuid
from ._paths import project_slug as project_slug
from ._protocol import codec as _codec
from .errors import MessageDecodeError, OptionsError, SessionNotFoundError, SessionStoreError
from .messages import (
    AssistantMessage,
    UserMessage,
)
from .stores._keys import check_key_part, subpath_is_safe
from .stores._memory import checked_load
from .stores._summary import listing_state as _listing_state

if TYPE_CHECKING:
    from .stores._contract import SessionKey, SessionStore

__all__ = [
    # locations
    "config_dir",
    "project_slug",
    "project_dir",
    "session_path",
    # listing and reading
    "SessionInfo",
    "SubagentInfo",
    "HEAD_TAIL_BYTES",
    "list_sessions",
    "list_all_sessions",
    "session_info",
    "read_session",
    "session_messages",
    "conversation",
    "list_subagent_transcripts",
    "read_subagent_transcript",
    # changing
    "rename_session",
    "tag_session",
    "archive_session",
    "unarchive_session",
    "fork_session",
    "delete_session",
    # sessions in a store
    "in_store",
    "StoreHistory",
    # transcript entries
    "TranscriptEntry",
    "ChainEntry",
    "UserEntry",
    "AssistantEntry",
    "SystemEntry",
    "AttachmentEntry",
    "ProgressEntry",
    "SummaryEntry",
    "CustomTitleEntry",
    "AiTitleEntry",
    "TagEntry",
    "LastPromptEntry",
    "AgentNameEntry",
    "ModeEntry",
    "QueueOperationEntry",
    "FileHistorySnapshotEntry",
    "FileHistoryDeltaEntry",
    "APIRequestEntry",
    "APIRequestShapeEntry",
    "APIRequestBlobEntry",
    "CostStateEntry",
    "AtisLatchEntry",
    "RelocatedEntry",
    "ToolsUsedEntry",
    "UnknownEntry",
    "decode_entry",
]

logger: logging.Logger = logging.getLogger("claude_sdk.history")

_StrPath: TypeAlias = "str | os.PathLike[str]"

_T = TypeVar("_T")
_AGENT_ID_RE = re.compile(r"\A[A-Za-z0-9_-]{1,128}\Z")
#: Per-session state the CLI re-appends on resume and copies into a fork (last one wins).
_SESSION_STATE_TYPES = (
    "custom-title",
    "ai-title",
    "tag",
    "agent-name",
    "agent-color",
    "agent-setting",
    "mode",
    "permission-mode",
    "atis-latch",
    "tools-used",
)
_TITLE_SIDECAR = "custom-title.json"
#: The TypeScript SDK's archive mark, beside the title sidecar.
_ARCHIVE_SIDECAR = "archived.json"
#: Bytes `list_sessions` reads from each end of a transcript (the official SDKs read 64 KiB).
HEAD_TAIL_BYTES: Final = 64 * 1024
#: Loads a store listing makes at once (the official SDK's bound).
_LOADS_AT_ONCE = 16
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_NO_ARCHIVE_IN_STORE = (
    "archiving is not supported with a session store: the archived mark is a file beside "
    "the local transcript, and a store holds transcript entries only (the TypeScript SDK "
    "refuses it too)"
)
#: Seconds ``git worktree list`` may take.
_GIT_TIMEOUT = 5.0
#: Variables that would point git at another repository than the one of its working directory.
_GIT_LOCATION_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE")


def decode_entry(data: Mapping[str, Any]) -> TranscriptEntry:
    """Type one transcript line's JSON object (``data`` is left as it was).

    Never raises for an object: an unknown kind, or a known kind whose shape does not fit,
    becomes `UnknownEntry`.
    """
    entry: TranscriptEntry = _codec.default_codec().structure(dict(data), TranscriptEntry)
    return entry


_ENTRY_UNION: Any = TranscriptEntry


def _decode_in_place(data: dict[str, Any]) -> TranscriptEntry:
    """Type a freshly parsed line; the dict becomes the entry (the codec works in place)."""
    entry: TranscriptEntry = _codec.default_codec().union_fn(_ENTRY_UNION)(data)
    return entry


# ======================================================================================
# Listing


@frozen(kw_only=True)
class SessionInfo:
    """What `list_sessions` tells about one session.

    Read from the transcript's two ends (`HEAD_TAIL_BYTES` of each, or the ``window`` given),
    as the CLI lists sessions: a transcript no longer than the two ends together is read
    whole and every value is exact. In a longer one the middle is not read, so:
    ``message_count`` is None; ``first_prompt`` is the first prompt of the head (of the tail
    if the head has none); the title, tag, summary, last prompt, branch and version are the
    latest in the tail, else in the head (the CLI re-appends its per-session state to the
    tail when a session resumes, so the tail normally holds them; a custom title missing
    from the tail is read from ``custom-title.json`` first, as the CLI does); ``created`` and
    ``modified`` are the earliest and latest times of the two ends (``modified`` is the
    file's time when no line of the tail has one). A value written only in the middle, or in
    a line longer than the window, is not seen.

    Attributes:
        session_id: the id (``Options(resume=session_id)`` continues it).
        path: the transcript file.
        created: the time of its first entry (the file's time if no entry has one).
        modified: the time of its last entry (the file's time if no entry has one); tagging
            or renaming does not change it. Listings are ordered by it.
        size: the transcript's size in bytes.
        message_count: the user and assistant entries of the transcript (tool results
            included; subagents' and the CLI's own ``isMeta`` notes excluded); None when the
            transcript was not read whole.
        first_prompt: the first prompt the user wrote, or None.
        last_prompt: the prompt of the latest turn (``last-prompt`` entries), or None.
        custom_title: the title given with ``rename_session`` (CLI or this module), or None.
        ai_title: a title the CLI generated, or None.
        summary: the latest ``summary`` entry's text, or None.
        tag: the session's tag, or None.
        cwd: the working directory the session ran in.
        git_branch: the git branch of its latest entry (``HEAD`` outside a repository).
        version: the CLI version that wrote its latest entry.
        archived: `archive_session` archived it and the user sent no prompt in it since
            (the TypeScript SDK's ``archived``); False in a store (the mark is a file beside
            the transcript, which a store does not hold).
    """

    session_id: str
    path: Path
    created: datetime
    modified: datetime
    size: int
    message_count: int | None = 0
    first_prompt: str | None = None
    last_prompt: str | None = None
    custom_title: str | None = None
    ai_title: str | None = None
    summary: str | None = None
    tag: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    archived: bool = False

    @property
    def title(self) -> str | None:
        """The title the CLI shows: the custom title, else the generated one."""
        return self.custom_title or self.ai_title


@frozen(kw_only=True)
class SubagentInfo:
    """One subagent transcript of a session.

    Attributes:
        agent_id: the subagent's id (``agentId`` in its entries and the Agent tool's result).
        session_id: the session that ran it.
        path: its transcript file.
        created: the time of its first entry.
        modified: the time of its last entry.
        message_count: its user and assistant messages.
        first_prompt: the prompt it was given.
        agent_type: the agent definition (``general-purpose``, ...), from ``.meta.json``.
        description: the Agent call's description, from ``.meta.json``.
        tool_use_id: the id of the Agent tool call that started it, from ``.meta.json``.
        meta: the whole ``agent-<id>.meta.json`` object ({} when there is none).
    """

    agent_id: str
    session_id: str
    path: Path
    created: datetime
    modified: datetime
    message_count: int = 0
    first_prompt: str | None = None
    agent_type: str | None = None
    description: str | None = None
    tool_use_id: str | None = None
    meta: Mapping[str, Any] = attrs.field(factory=dict, repr=False)


# ======================================================================================
# Locations


def config_dir(config_dir: _StrPath | None = None) -> Path:
    """The CLI's configuration directory: ``config_dir`` if given, else ``CLAUDE_CONFIG_DIR``,
    else ``~/.claude`` (``HOME`` decides ``~``), as the CLI resolves it."""
    if config_dir is not None:
        return Path(os.fspath(config_dir)).expanduser()
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(unicodedata.normalize("NFC", configured)).expanduser()
    return Path.home() / ".claude"


def project_dir(cwd: _StrPath | None = None, *, config_dir: _StrPath | None = None) -> Path:
    """Where the CLI keeps the sessions run in ``cwd`` (default: the current directory).

    ``cwd`` is resolved like the CLI's own working directory (absolute, symlinks resolved,
    Unicode NFC). The directory may not exist (no session has run there yet).
    """
    projects = _projects(config_dir)
    slug = project_slug(_canonical(cwd))
    exact = projects / slug
    if len(slug) <= _MAX_SLUG or exact.is_dir():
        return exact
    # Older CLIs hashed long paths differently: accept any hash after the same prefix.
    prefix = slug[:_MAX_SLUG] + "-"
    try:
        found = sorted(p for p in projects.iterdir() if p.name.startswith(prefix) and p.is_dir())
    except OSError:
        found = []
    return found[0] if found else exact


def session_path(
    session_id: str, cwd: _StrPath | None = None, *, config_dir: _StrPath | None = None
) -> Path:
    """The transcript file of a session.

    Looked up in the project of ``cwd``, then in the projects of that repository's other git
    worktrees; with ``cwd=None``, in the current directory's project, then in every project.

    Raises:
        ValueError: ``session_id`` is not a UUID.
        SessionNotFoundError: there is no such session.
    """
    _check_session_id(session_id)
    name = f"{session_id}.jsonl"
    first = project_dir(cwd, config_dir=config_dir)
    if (first / name).is_file():
        return first / name
    if cwd is None:
        try:
            others = sorted(p for p in _projects(config_dir).iterdir() if p != first)
        except OSError:
            others = []
    else:
        others = _project_dirs(cwd, config_dir, include_worktrees=True)[1:]
    for project in others:
        if (project / name).is_file():
            return project / name
    raise SessionNotFoundError(session_id=session_id)


def list_sessions(
    cwd: _StrPath | None = None,
    *,
    config_dir: _StrPath | None = None,
    include_worktrees: bool = True,
    limit: int | None = None,
    offset: int = 0,
    after: SessionInfo | None = None,
    window: int | None = HEAD_TAIL_BYTES,
) -> list[SessionInfo]:
    """The sessions of the project of ``cwd`` (default: the current directory), newest first.

    Newest first is by ``modified``, then by session id (a total order: the same files give
    the same pages). With ``include_worktrees``, a git repository's sessions include those
    run in its other worktrees (the projects of the paths ``git worktree list`` gives), as
    the CLI's ``/resume`` and the official SDKs list them. Files whose name is not
    ``<uuid>.jsonl`` are not sessions; files that cannot be read are skipped. An empty list
    when no session has run there.

    Each transcript is read at its two ends only, ``window`` bytes of each (whole when it
    is no longer than ``2 * window``; ``window=None`` reads every transcript whole): see
    `SessionInfo` for what that leaves out of a longer one.

    Args:
        cwd: the project's working directory.
        config_dir: the CLI's configuration directory (default: `config_dir`).
        include_worktrees: also list the sessions of the repository's other git worktrees.
        limit: at most this many sessions (None: all).
        offset: skip this many sessions first.
        after: start after this session, the last one of the previous page (a cursor that,
            unlike ``offset``, neither repeats nor skips a session when sessions are added
            or resumed between two calls).
        window: bytes read from each end of a transcript (None: whole).

    Raises:
        ValueError: ``limit``, ``offset`` or ``window`` is negative (``window`` zero).
    """
    _check_paging(limit, offset, window)
    directories = _project_dirs(cwd, config_dir, include_worktrees=include_worktrees)
    return _page(_scan_projects(directories, window), limit=limit, offset=offset, after=after)


def list_all_sessions(
    *,
    config_dir: _StrPath | None = None,
    limit: int | None = None,
    offset: int = 0,
    after: SessionInfo | None = None,
    window: int | None = HEAD_TAIL_BYTES,
) -> list[SessionInfo]:
    """The sessions of every project, newest first (as `list_sessions` orders and pages).

    A session id found in two projects is listed once, from the transcript modified last.

    Example::

        page = history.list_all_sessions(limit=50)
        while page:
            for info in page:
                print(info.modified, info.cwd, info.title or info.first_prompt)
            page = history.list_all_sessions(limit=50, after=page[-1])

    Raises:
        ValueError: ``limit``, ``offset`` or ``window`` is negative (``window`` zero).
    """
    _check_paging(limit, offset, window)
    try:
        directories = sorted(p for p in _projects(config_dir).iterdir() if p.is_dir())
    except OSError:
        directories = []
    return _page(_scan_projects(directories, window), limit=limit, offset=offset, after=after)


def session_info(
    session_id: str,
    cwd: _StrPath | None = None,
    *,
    config_dir: _StrPath | None = None,
    window: int | None = HEAD_TAIL_BYTES,
) -> SessionInfo:
    """What `list_sessions` tells about one session (``window=None`` reads it whole, for an
    exact ``message_count`` of a long transcript).

    Raises:
        ValueError: ``session_id`` is not a UUID; ``window`` is not positive.
        SessionNotFoundError: there is no such session.
    """
    _check_paging(None, 0, window)
    path = session_path(session_id, cwd, config_dir=config_dir)
    try:
        return _session_info(path, window)
    except FileNotFoundError:
        raise SessionNotFoundError(session_id=session_id) from None


# ======================================================================================
# Reading


def read_session(
    session_id: str, cwd: _StrPath | None = None, *, config_dir: _StrPath | None = None
) -> list[TranscriptEntry]:
    """Every entry of a session's transcript, typed, in file order.

    Raises:
        ValueError: ``session_id`` is not a UUID.
        SessionNotFoundError: there is no such session.
    """
    path = session_path(session_id, cwd, config_dir=config_dir)
    try:
        return [_decode_in_place(data) for data in _read_objects(path)]
    except FileNotFoundError:
        raise SessionNotFoundError(session_id=session_id) from None


def conversation(
    entries: Sequence[TranscriptEntry], *, up_to: str | None = None
) -> list[ChainEntry]:
    """The main conversation of a transcript: from its first entry to its latest one.

    The CLI resumes a session by following ``parent_uuid`` back from the latest entry; this
    does the same, so entries of an abandoned branch (after a rewind) and sidechain entries
    are left out (a subagent's transcript, all sidechain, gives its own conversation).
    ``up_to`` ends the conversation at that entry's uuid instead.

    Raises:
        ValueError: ``up_to`` is not an entry of the conversation.
    """
    linked = [e for e in entries if isinstance(e, ChainEntry) and e.uuid]
    chain = [e for e in linked if not e.is_sidechain] or linked
    return _walk_chain(
        chain,
        uuid_of=lambda e: e.uuid,
        parent_of=lambda e: e.parent_uuid,
        up_to=up_to,
    )


def session_messages(
    session_id: str, cwd: _StrPath | None = None, *, config_dir: _StrPath | None = None
) -> list[UserMessage | AssistantMessage]:
    """The session's conversation as the SDK's message frames (as a live session streams
    them): user prompts, tool results and assistant blocks, without the CLI's own notes.

    Raises:
        ValueError: ``session_id`` is not a UUID.
        SessionNotFoundError: there is no such session.
    """
    entries = read_session(session_id, cwd, config_dir=config_dir)
    return [
        e.to_message()
        for e in conversation(entries)
        if isinstance(e, (UserEntry, AssistantEntry)) and not e.is_meta
    ]


def list_subagent_transcripts(
    session_id: str, cwd: _StrPath | None = None, *, config_dir: _StrPath | None = None
) -> list[SubagentInfo]:
    """The subagent transcripts of a session, oldest first (empty if it ran none).

    Raises:
        ValueError: ``session_id`` is not a UUID.
        SessionNotFoundError: there is no such session.
    """
    path = session_path(session_id, cwd, config_dir=config_dir)
    found = _agent_files(path.with_suffix("") / "subagents")
    infos = [
        info
        for agent_id, transcript in found
        if (info := _subagent_info_if_there(session_id, agent_id, transcript)) is not None
    ]
    infos.sort(key=lambda i: (i.created, i.agent_id))
    return infos


def read_subagent_transcript(
    session_id: str,
    agent_id: str,
    cwd: _StrPath | None = None,
    *,
    config_dir: _StrPath | None = None,
) -> list[TranscriptEntry]:
    """Every entry of one subagent's transcript, typed, in file order.

    Raises:
        ValueError: ``session_id`` is not a UUID, or ``agent_id`` is not a plain id.
        SessionNotFoundError: there is no such session, or it ran no such subagent.
    """
    _check_agent_id(agent_id)
    path = session_path(session_id, cwd, config_dir=config_dir)
    for found, transcript in _agent_files(path.with_suffix("") / "subagents"):
        if found == agent_id:
            try:
                return [_decode_in_place(data) for data in _read_objects(transcript)]
            except FileNotFoundError:
                break
    raise SessionNotFoundError(
        f"session {session_id!r} has no subagent {agent_id!r}", session_id=session_id
    )


# ======================================================================================
# Changing


def rename_session(
    session_id: str,
    title: str,
    cwd: _StrPath | None = None,
    *,
    config_dir: _StrPath | None = None,
) -> None:
    """Give a session a title, as the CLI's ``rename_session`` does.

    Appends ``custom-title`` and ``agent-name`` entries to the transcript and writes
    ``<session-id>/custom-title.json``. The CLI reads the title back when the session is
    resumed (and hooks see it as ``session_title``).

    Raises:
        ValueError: ``session_id`` is not a UUID, or ``title`` is blank.
        SessionNotFoundError: there is no such session.
    """
    title = title.strip()
    if not title:
        raise ValueError("a session title must not be blank")
    path = session_path(session_id, cwd, config_dir=config_dir)
    _append(
        path,
        session_id,
        [
            {"type": "custom-title", "customTitle": title, "sessionId": session_id},
            {"type": "agent-name", "agentName": title, "sessionId": session_id},
        ],
    )
    sidecar = path.with_suffix("")
    sidecar.mkdir(mode=0o700, exist_ok=True)
    _write_new(sidecar / _TITLE_SIDECAR, _dumps({"customTitle": title}))


def tag_session(
    session_id: str,
    tag: str | None,
    cwd: _StrPath | None = None,
    *,
    config_dir: _StrPath | None = None,
) -> None:
    """Tag a session (``None`` clears the tag): appends the ``tag`` entry the CLI uses.

    Raises:
        ValueError: ``session_id`` is not a UUID, or ``tag`` is blank.
        SessionNotFoundError: there is no such session.
    """
    if tag is not None:
        tag = tag.strip()
        if not tag:
            raise ValueError("a tag must not be blank (None clears the tag)")
    path = session_path(session_id, cwd, config_dir=config_dir)
    _append(path, session_id, [{"type": "tag", "tag": tag or "", "sessionId": session_id}])


def archive_session(
    session_id: str, cwd: _StrPath | None = None, *, config_dir: _StrPath | None = None
) -> None:
    """Archive a session, as the TypeScript SDK's ``archiveSession`` does: listings still
    give it, with ``archived=True``, until a prompt is sent in it.

    Writes ``<session-id>/archived.json`` (``{"archived": true, "at": <now, ISO 8601 UTC>,
    "by": "sdk"}``, mode 0600, its directory 0700) beside every non-empty transcript of the
    session: in the project of ``cwd`` and of its repository's other git worktrees, or with
    ``cwd=None`` in every project. The transcript is not changed and a process running the
    session is not stopped. A session with a store has no such file: see
    `StoreHistory.archive_session`.

    Raises:
        ValueError: ``session_id`` is not a UUID.
        SessionNotFoundError: there is no such session.
    """
    _mark_archived(session_id, cwd, config_dir, archived=True)


def unarchive_session(
    session_id: str, cwd: _StrPath | None = None, *, config_dir: _StrPath | None = None
) -> None:
    """Unarchive a session (the TypeScript SDK's ``unarchiveSession``): listings give it with
    ``archived=False``. Writes the same file as `archive_session`, with ``"archived":
    false``.

    Raises:
        ValueError: ``session_id`` is not a UUID.
        SessionNotFoundError: there is no such session.
    """
    _mark_archived(session_id, cwd, config_dir, archived=False)


def _mark_archived(
    session_id: str, cwd: _StrPath | None, config: _StrPath | None, *, archived: bool
) -> None:
    _check_session_id(session_id)
    if cwd is None:
        try:
            directories = sorted(p for p in _projects(config).iterdir() if p.is_dir())
        except OSError:
            directories = []
    else:
        directories = _project_dirs(cwd, config, include_worktrees=True)
    transcripts = []
    for directory in directories:
        path = directory / f"{session_id}.jsonl"
        try:
            if path.stat().st_size > 0:
                transcripts.append(path)
        except OSError:
            continue
    if not transcripts:
        raise SessionNotFoundError(session_id=session_id)
    at = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    # JSON.stringify's bytes: compact, keys in this order, no newline.
    record = json.dumps({"archived": archived, "at": at, "by": "sdk"}, separators=(",", ":"))
    for path in transcripts:
        sidecar = path.with_suffix("")
        sidecar.mkdir(mode=0o700, exist_ok=True)
        _write_new(sidecar / _ARCHIVE_SIDECAR, record.encode())


def fork_session(
    session_id: str,
    cwd: _StrPath | None = None,
    *,
    config_dir: _StrPath | None = None,
    up_to: str | None = None,
    title: str | None = None,
) -> str:
    """Copy a session's conversation to a new session and return the new id.

    What the CLI's own ``--fork-session`` writes: the entries of the main conversation
    (`conversation`) with their uuids and parent links kept, ``sessionId`` set to the new id
    on every line, ``requestSessionId`` on each assistant entry naming the session whose
    transcript holds the request record it points at, and no ``turnAttributionKey``. The
    session's state (title, tag, agent name, mode, ...) is carried over; the CLI's
    bookkeeping (API request records, queue operations, costs) and subagent transcripts are
    not. ``Options(resume=<new id>)`` continues the fork; the original is left unchanged.

    Args:
        up_to: end the copy at this entry (a uuid of the main conversation).
        title: the fork's title (default: the original's).

    Raises:
        ValueError: ``session_id`` is not a UUID; ``up_to`` is not in the conversation; the
            session has no conversation to copy; ``title`` is blank.
        SessionNotFoundError: there is no such session.
    """
    if title is not None:
        title = title.strip()
        if not title:
            raise ValueError("a session title must not be blank")
    path = session_path(session_id, cwd, config_dir=config_dir)
    try:
        objects = list(_read_objects(path))
    except FileNotFoundError:
        raise SessionNotFoundError(session_id=session_id) from None
    candidates = [
        o
        for o in objects
        if o.get("type") in _CHAIN_TYPES
        and isinstance(o.get("uuid"), str)
        and o.get("isSidechain") is not True
    ]
    chain = _walk_chain(
        candidates,
        uuid_of=lambda o: o.get("uuid"),
        parent_of=lambda o: o.get("parentUuid"),
        up_to=up_to,
    )
    if not chain:
        raise ValueError(f"session {session_id!r} has no conversation to fork")
    new_id = str(_uuid.uuid4())
    lines: list[dict[str, Any]] = []
    for original in chain:
        copied = {**original, "sessionId": new_id}
        # The CLI's fork does not copy a prompt's turnAttributionKey (the key of the turn that
        # prompt started in the original session; it is written for prompts with a uuid).
        copied.pop("turnAttributionKey", None)
        if original.get("type") == "assistant" and "requestSessionId" not in original:
            copied["requestSessionId"] = _request_session(original, session_id)
        lines.append(copied)
    kept = {o.get("uuid") for o in chain}
    leaf = chain[-1].get("uuid")
    prompt = _last_prompt_text(chain)
    last_prompt: dict[str, Any] = {"type": "last-prompt"}
    if prompt:
        last_prompt["lastPrompt"] = prompt
    lines.append({**last_prompt, "leafUuid": leaf, "sessionId": new_id})
    # summaries of the part that was copied
    lines += [dict(o) for o in objects if o.get("type") == "summary" and o.get("leafUuid") in kept]
    state = _session_state(objects)
    if title is not None:
        state["custom-title"] = {"type": "custom-title", "customTitle": title}
        state["agent-name"] = {"type": "agent-name", "agentName": title}
    lines += [{**entry, "sessionId": new_id} for entry in state.values()]
    target = path.with_name(f"{new_id}.jsonl")
    _write_new(target, b"".join(_dumps(line) + b"\n" for line in lines), exclusive=True)
    if title is not None:
        sidecar = target.with_suffix("")
        sidecar.mkdir(mode=0o700, exist_ok=True)
        _write_new(sidecar / _TITLE_SIDECAR, _dumps({"customTitle": title}))
    return new_id


def delete_session(
    session_id: str, cwd: _StrPath | None = None, *, config_dir: _StrPath | None = None
) -> None:
    """Delete a session: its transcript, the ``<session-id>/`` directory beside it (subagent
    transcripts, the title sidecar) and the CLI's per-session directories
    ``session-env/<session-id>`` and ``file-history/<session-id>``.

    Raises:
        ValueError: ``session_id`` is not a UUID.
        SessionNotFoundError: there is no such session.
    """
    path = session_path(session_id, cwd, config_dir=config_dir)
    try:
        path.unlink()
    except FileNotFoundError:
        raise SessionNotFoundError(session_id=session_id) from None
    root = _config_root_of(path)
    for extra in (
        path.with_suffix(""),
        root / "session-env" / session_id,
        root / "file-history" / session_id,
    ):
        _remove_tree(extra)


# ======================================================================================
# Sessions in a store


def in_store(
    store: SessionStore, cwd: _StrPath | None = None, *, project_key: str | None = None
) -> StoreHistory:
    """This module's questions, asked of a `claude_sdk.stores.SessionStore` (async).

    ``project_key`` is the project's key in the store (default: the CLI's directory name
    for ``cwd``, as ``Options.store_project_key`` defaults)::

        sessions = history.in_store(store, project_key="tenant-7")
        infos = await sessions.list_sessions()
        messages = await sessions.session_messages(infos[0].session_id)

    See `StoreHistory`.
    """
    return StoreHistory(store, project_key=project_key, cwd=None if cwd is None else os.fspath(cwd))


@define(eq=False)
class StoreHistory:
    """`claude_sdk.history` for the sessions of one project in a store.

    ``StoreHistory(store, project_key=None, cwd=None)``: ``project_key`` is the project's
    key in the store (default: the CLI's directory name for ``cwd``, as
    ``Options.store_project_key`` defaults).

    Attributes:
        store: the `SessionStore`.
        cwd: the project's working directory, when ``project_key`` is not given.

    Example::

        sessions = StoreHistory(store, project_key="tenant-7")
        for info in await sessions.list_sessions():
            print(info.session_id, info.modified, info.first_prompt)
        messages = await sessions.session_messages(info.session_id)
    """

    store: SessionStore
    _project_key: str | None = attrs.field(default=None, alias="project_key")
    cwd: str | None = None

    def __attrs_post_init__(self) -> None:
        if self._project_key is None:
            self._project_key = project_slug(_canonical(self.cwd))
        try:
            check_key_part(self._project_key, "project_key")
        except ValueError as exc:
            raise OptionsError(f"StoreHistory: {exc}", option="project_key") from None

    @property
    def project_key(self) -> str:
        """The project's key in the store."""
        assert self._project_key is not None  # set at construction
        return self._project_key

    # -- listing ----------------------------------------------------------------------

    async def list_sessions(
        self, *, limit: int | None = None, offset: int = 0, after: SessionInfo | None = None
    ) -> list[SessionInfo]:
        """The project's sessions, newest first, paged as `list_sessions` pages (needs a
        store with ``list_sessions`` or ``list_session_summaries``).

        As the official SDK lists a store: when it has ``list_session_summaries`` (the
        shipped stores do), one call gives every session's summary and ``list_sessions``
        the sessions there are; a session without a summary, or whose summary is older
        than ``list_sessions`` says the session is, is loaded. Without summaries every
        session is loaded. A summary serves only if it holds `claude_sdk.stores`' listing
        state (the shipped stores keep it; `fold_session_summary` alone does not), so the
        answer is the same either way: every value read from the whole transcript
        (``message_count`` always counted), ``SessionInfo.path`` the transcript's file name,
        the store's ``mtime`` as the time of a transcript without dated entries, and
        ``archived`` False (a store holds no archive mark).

        Raises:
            ValueError: ``limit`` or ``offset`` is negative.
            OptionsError: the store has neither method.
            SessionStoreError: the store failed.
        """
        _check_paging(limit, offset, None)
        key = {"project_key": self.project_key}
        summaries = await self._optional("list_session_summaries", key)
        rows = await self._optional("list_sessions", key)
        if summaries is None and rows is None:
            raise OptionsError(
                "this session store cannot list sessions (no list_sessions or "
                "list_session_summaries method)",
                option="session_store",
            )
        # Session id -> the store's mtime for it: the sessions still to load.
        pending: dict[str, int] = {}
        known: dict[str, int] | None = None
        if rows is not None:
            known = {}
            for row in rows:
                session_id = row.get("session_id") if isinstance(row, dict) else None
                if isinstance(session_id, str) and _is_uuid(session_id):
                    known.setdefault(session_id, _epoch_ms(row.get("mtime")))
            pending = dict(known)
        infos: list[SessionInfo] = []
        done: set[str] = set()
        for row in summaries or []:
            found = _summary_row(row)
            if found is None or found[0] in done or not _is_uuid(found[0]):
                continue
            session_id, mtime, data = found
            if known is not None:
                if session_id not in known or mtime < known[session_id]:
                    continue  # no longer listed, or stale: loaded if listed
                mtime = known[session_id]
            done.add(session_id)
            state = _listing_state(data)
            if state is None:  # a summary without our state: load the session
                pending[session_id] = mtime
                continue
            pending.pop(session_id, None)
            scan, size, count = state
            if count:  # else the session holds no entries (as a load would say)
                infos.append(_scan_info(session_id, scan, size, mtime))
        infos += await self._load_infos(pending)
        return _page(infos, limit=limit, offset=offset, after=after)

    async def _load_infos(self, sessions: Mapping[str, int]) -> list[SessionInfo]:
        """`SessionInfo` of each session loaded (at most 16 loads at once, as the official
        SDK loads them); a session with no entries is left out."""
        import anyio
        import anyio.to_thread

        ids = list(sessions)
        found: list[SessionInfo | None] = [None] * len(ids)
        failed: list[BaseException] = []
        limiter = anyio.CapacityLimiter(_LOADS_AT_ONCE)

        async def one(index: int) -> None:
            session_id = ids[index]
            try:
                async with limiter:
                    entries = await self._load(session_id)
                if entries:
                    found[index] = await anyio.to_thread.run_sync(
                        _entries_info, session_id, entries, sessions[session_id]
                    )
            except Exception as exc:  # raised below, alone (not in an exception group)
                failed.append(exc)

        async with anyio.create_task_group() as tg:
            for index in range(len(ids)):
                tg.start_soon(one, index)
        if failed:
            raise failed[0]
        return [info for info in found if info is not None]

    async def session_info(self, session_id: str) -> SessionInfo:
        """What `list_sessions` tells about one session."""
        return await self._in_files(session_id, await self._files(session_id), _store_info)

    # -- reading ------------------------------------------------------------------------

    async def read_session(self, session_id: str) -> list[TranscriptEntry]:
        """Every entry of the session's transcript, typed, in order."""
        return await self._in_files(session_id, await self._files(session_id), _store_read)

    async def session_messages(self, session_id: str) -> list[UserMessage | AssistantMessage]:
        """The session's conversation as message frames (`session_messages`)."""
        return await self._in_files(session_id, await self._files(session_id), _store_messages)

    async def list_subagent_transcripts(self, session_id: str) -> list[SubagentInfo]:
        """The session's subagent transcripts (needs ``list_subkeys`` to find any)."""
        files = await self._files(session_id, subkeys=True)
        return await self._in_files(session_id, files, _store_subagents)

    async def read_subagent_transcript(
        self, session_id: str, agent_id: str
    ) -> list[TranscriptEntry]:
        """Every entry of one subagent's transcript, typed, in order."""
        _check_agent_id(agent_id)
        files = await self._files(session_id, subkeys=True)

        def read(config: Path, sid: str) -> list[TranscriptEntry]:
            return read_subagent_transcript(sid, agent_id, config_dir=config)

        return await self._in_files(session_id, files, read)

    # -- changing -----------------------------------------------------------------------

    async def rename_session(self, session_id: str, title: str) -> None:
        """Give the session a title (the entries `rename_session` appends)."""
        title = title.strip()
        if not title:
            raise ValueError("a session title must not be blank")
        await self._exists(session_id)
        await self._append(
            session_id,
            [
                {"type": "custom-title", "customTitle": title, "sessionId": session_id},
                {"type": "agent-name", "agentName": title, "sessionId": session_id},
            ],
        )

    async def tag_session(self, session_id: str, tag: str | None) -> None:
        """Tag the session (``None`` clears the tag)."""
        if tag is not None:
            tag = tag.strip()
            if not tag:
                raise ValueError("a tag must not be blank (None clears the tag)")
        await self._exists(session_id)
        await self._append(session_id, [{"type": "tag", "tag": tag or "", "sessionId": session_id}])

    async def archive_session(self, session_id: str) -> None:
        """Not in a store (the TypeScript SDK refuses it too): `archive_session` writes a
        file beside the local transcript, and a store holds transcript entries only.

        Raises:
            OptionsError: always.
        """
        raise OptionsError(_NO_ARCHIVE_IN_STORE, option="session_store")

    async def unarchive_session(self, session_id: str) -> None:
        """Not in a store: see `archive_session`.

        Raises:
            OptionsError: always.
        """
        raise OptionsError(_NO_ARCHIVE_IN_STORE, option="session_store")

    async def fork_session(
        self, session_id: str, *, up_to: str | None = None, title: str | None = None
    ) -> str:
        """Copy the conversation to a new session in the store; return its id."""
        files = await self._files(session_id)

        def fork(config: Path, sid: str) -> tuple[str, list[dict[str, Any]]]:
            new_id = fork_session(sid, config_dir=config, up_to=up_to, title=title)
            path = next((config / "projects").glob(f"*/{new_id}.jsonl"))
            return new_id, list(_read_objects(path))

        new_id, lines = await self._in_files(session_id, files, fork)
        await self._append(new_id, lines)
        return new_id

    async def delete_session(self, session_id: str) -> None:
        """Delete the session and what is kept under it (needs a store with ``delete``)."""
        deleter = getattr(self.store, "delete", None)
        if deleter is None:
            raise OptionsError(
                "this session store cannot delete (no delete method)", option="session_store"
            )
        await self._exists(session_id)
        await self._call("delete", self._key(session_id), deleter, self._key(session_id))

    # -- inside -------------------------------------------------------------------------

    def _key(self, session_id: str, subpath: str | None = None) -> SessionKey:
        _check_session_id(session_id)
        key: SessionKey = {"project_key": self.project_key, "session_id": session_id}
        if subpath is not None:
            key["subpath"] = subpath
        return key

    async def _call(self, operation: str, key: Any, method: Any, *args: Any) -> Any:
        try:
            return await method(*(args or (key["project_key"],)))
        except NotImplementedError:
            raise OptionsError(
                f"this session store does not implement {operation}", option="session_store"
            ) from None
        except Exception as exc:
            raise SessionStoreError(
                f"session store {operation} failed: {type(exc).__name__}: {exc}",
                operation=operation,
                key={k: str(v) for k, v in key.items()},
            ) from exc

    async def _optional(self, operation: str, key: dict[str, str]) -> list[Any] | None:
        """The answer of an optional listing method, or None when the store lacks it (also
        when it raises `NotImplementedError`, as a protocol's default does)."""
        method = getattr(self.store, operation, None)
        if method is None:
            return None
        try:
            answer = await method(key["project_key"])
        except NotImplementedError:
            return None
        except Exception as exc:
            raise SessionStoreError(
                f"session store {operation} failed: {type(exc).__name__}: {exc}",
                operation=operation,
                key=key,
            ) from exc
        return list(answer) if isinstance(answer, (list, tuple)) else []

    async def _load(self, session_id: str, subpath: str | None = None) -> list[dict[str, Any]]:
        key = self._key(session_id, subpath)
        import anyio.to_thread

        entries = await self._call("load", key, self.store.load, key)
        # Every entry, or a typed error naming the one that is not JSON: never a quiet gap.
        return await anyio.to_thread.run_sync(checked_load, entries, key) or []

    async def _exists(self, session_id: str) -> None:
        if not await self._load(session_id):
            raise SessionNotFoundError(session_id=session_id)

    async def _append(self, session_id: str, lines: list[dict[str, Any]]) -> None:
        key = self._key(session_id)
        await self._call("append", key, self.store.append, key, lines)

    async def _files(
        self, session_id: str, *, subkeys: bool = False
    ) -> dict[str, list[dict[str, Any]]]:
        entries = await self._load(session_id)
        if not entries:
            raise SessionNotFoundError(session_id=session_id)
        files = {"": entries}
        lister = getattr(self.store, "list_subkeys", None)
        if subkeys and lister is not None:
            key = {"project_key": self.project_key, "session_id": session_id}
            for subpath in await self._call("list_subkeys", key, lister, key) or []:
                if subpath_is_safe(subpath):
                    files[subpath] = await self._load(session_id, subpath)
        return files

    async def _in_files(
        self,
        session_id: str,
        files: dict[str, list[dict[str, Any]]],
        work: Callable[[Path, str], _T],
    ) -> _T:
        import anyio.to_thread

        def run() -> _T:
            with tempfile.TemporaryDirectory(prefix="claude-sdk-history-") as where:
                config = Path(where)
                project = config / "projects" / self.project_key
                for subpath, entries in files.items():
                    name = f"{session_id}/{subpath}.jsonl" if subpath else f"{session_id}.jsonl"
                    _store_write(project / name, entries)
                return work(config, session_id)

        return await anyio.to_thread.run_sync(run)


def _store_write(path: Path, entries: Sequence[dict[str, Any]]) -> None:
    """A transcript file; a subagent's last ``agent_metadata`` entry becomes its sidecar."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    lines = [e for e in entries if e.get("type") != "agent_metadata"]
    path.write_bytes(b"".join(_dumps(e) + b"\n" for e in lines))
    metadata = [e for e in entries if e.get("type") == "agent_metadata"]
    if metadata:
        sidecar = path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
        sidecar.write_bytes(_dumps({k: v for k, v in metadata[-1].items() if k != "type"}))


def _epoch_ms(value: object) -> int:
    """A store's ``mtime`` (epoch milliseconds) as an int (0 when it is not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    try:
        return int(value)
    except (OverflowError, ValueError):  # inf, nan
        return 0


def _ms_time(ms: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=ms)


def _summary_row(row: object) -> tuple[str, int, dict[str, Any]] | None:
    """``(session_id, mtime, data)`` of a `SessionSummaryEntry`, or None if it is not one."""
    if not isinstance(row, dict):
        return None
    session_id, mtime, data = row.get("session_id"), row.get("mtime"), row.get("data")
    if not isinstance(session_id, str) or not isinstance(data, dict):
        return None
    if isinstance(mtime, bool) or not isinstance(mtime, (int, float)):
        return None
    return session_id, _epoch_ms(mtime), data


def _scan_info(session_id: str, scan: _Scan, size: int, mtime_ms: int) -> SessionInfo:
    """`SessionInfo` of a whole transcript in a store, folded into ``scan``."""
    return _make_info(
        session_id,
        Path(f"{session_id}.jsonl"),
        size=size,
        mtime=_ms_time(mtime_ms),
        head=scan,
        tail=scan,
        whole=True,
        title=lambda: None,  # a store keeps no title sidecar
    )


def _entries_info(
    session_id: str, entries: Sequence[Mapping[str, Any]], mtime_ms: int
) -> SessionInfo:
    """`SessionInfo` of a transcript loaded from a store (its ``agent_metadata`` entries, a
    subagent's sidecar when mirrored, are not transcript lines)."""
    scan, size = _Scan(), 0
    for entry in entries:
        if entry.get("type") != "agent_metadata":
            scan.feed(entry)
            size += _entry_size(entry)
    return _scan_info(session_id, scan, size, mtime_ms)


def _store_info(config: Path, session_id: str) -> SessionInfo:
    info = session_info(session_id, config_dir=config, window=None)  # loaded whole anyway
    return attrs.evolve(info, path=Path(info.path.name))  # the temporary file is gone


def _store_read(config: Path, session_id: str) -> list[TranscriptEntry]:
    return read_session(session_id, config_dir=config)


def _store_messages(config: Path, session_id: str) -> list[UserMessage | AssistantMessage]:
    return session_messages(session_id, config_dir=config)


def _store_subagents(config: Path, session_id: str) -> list[SubagentInfo]:
    return [
        attrs.evolve(i, path=Path(i.path.name))
        for i in list_subagent_transcripts(session_id, config_dir=config)
    ]


# ======================================================================================
# Internals: files


def _projects(config: _StrPath | None) -> Path:
    return config_dir(config) / "projects"


def _config_root_of(transcript: Path) -> Path:
    return transcript.parent.parent.parent  # <config>/projects/<slug>/<id>.jsonl


def _check_session_id(session_id: object) -> None:
    if not isinstance(session_id, str) or not _is_uuid(session_id):
        raise ValueError(f"not a session id (a UUID): {session_id!r}")


def _check_agent_id(agent_id: object) -> None:
    if not isinstance(agent_id, str) or _AGENT_ID_RE.match(agent_id) is None:
        raise ValueError(f"not an agent id (letters, digits, '-' and '_'): {agent_id!r}")


def _read_objects(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL file; other lines are skipped (with a warning)."""
    with path.open("rb") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                data = _codec.loads(line)
            except MessageDecodeError:
                logger.warning("%s:%d: not a JSON line; skipped", path, number)
                continue
            if data.__class__ is not dict:
                logger.warning("%s:%d: not a JSON object; skipped", path, number)
                continue
            yield data


def _dumps(obj: Any) -> bytes:
    return _codec.dumps(obj)


def _append(path: Path, session_id: str, records: Sequence[Mapping[str, Any]]) -> None:
    """Append whole lines to a transcript in one write (after a newline if the file lacks
    its last one, so that a torn line never swallows ours)."""
    data = b"".join(_dumps(r) + b"\n" for r in records)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError:
        raise SessionNotFoundError(session_id=session_id) from None
    try:
        size = os.fstat(fd).st_size
        if size:
            os.lseek(fd, size - 1, os.SEEK_SET)
            if os.read(fd, 1) != b"\n":
                data = b"\n" + data
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)


def _write_new(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Write a file atomically (a temporary file renamed into place), mode 0600."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if exclusive:
            os.link(temporary, path)  # fails if the target exists
            os.unlink(temporary)
        else:
            os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _remove_tree(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)


def _agent_files(directory: Path) -> Iterator[tuple[str, Path]]:
    """``(agent id, transcript)`` under a ``subagents/`` directory (nested ones included)."""
    try:
        children = sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError:
        return
    for child in children:
        name = child.name
        if child.is_dir() and not child.is_symlink():
            yield from _agent_files(child)
        elif name.startswith("agent-") and name.endswith(".jsonl"):
            agent_id = name[len("agent-") : -len(".jsonl")]
            if _AGENT_ID_RE.match(agent_id):
                yield agent_id, child


# ======================================================================================
# Internals: reading transcripts


def _last_prompt_text(chain: Sequence[Mapping[str, Any]]) -> str | None:
    for obj in reversed(chain):
        if obj.get("type") == "user":
            prompt = _prompt_of(obj)
            if prompt:
                return prompt
    return None


def _request_session(assistant: Mapping[str, Any], source: str) -> str:
    """The session whose transcript holds an assistant entry's request record."""
    forked = assistant.get("forkedFrom")
    if isinstance(forked, Mapping) and isinstance(forked.get("sessionId"), str):
        return str(forked["sessionId"])
    own = assistant.get("sessionId")
    return own if isinstance(own, str) else source


def _session_state(objects: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The last entry of each per-session state kind (cleared titles and tags dropped)."""
    state: dict[str, dict[str, Any]] = {}
    for o in objects:
        kind = o.get("type")
        if kind in _SESSION_STATE_TYPES:
            state[str(kind)] = {k: v for k, v in o.items() if k != "sessionId"}
    for kind, key in (("custom-title", "customTitle"), ("tag", "tag"), ("ai-title", "aiTitle")):
        if kind in state and not state[kind].get(key):
            del state[kind]
    return {kind: state[kind] for kind in _SESSION_STATE_TYPES if kind in state}


def _walk_chain(
    items: Sequence[Any],
    *,
    uuid_of: Callable[[Any], Any],
    parent_of: Callable[[Any], Any],
    up_to: str | None,
) -> list[Any]:
    """Follow parent links back from the leaf (the latest entry no other entry continues)."""
    if not items:
        if up_to is not None:
            raise ValueError(f"{up_to!r} is not an entry of the conversation")
        return []
    by_uuid = {uuid_of(item): item for item in items}
    if up_to is not None:
        leaf = by_uuid.get(up_to)
        if leaf is None:
            raise ValueError(f"{up_to!r} is not an entry of the conversation")
    else:
        parents = {parent_of(item) for item in items}
        leaf = next((i for i in reversed(items) if uuid_of(i) not in parents), items[-1])
    chain = []
    seen: set[Any] = set()
    current = leaf
    while current is not None and uuid_of(current) not in seen:
        seen.add(uuid_of(current))
        chain.append(current)
        parent = parent_of(current)
        current = by_uuid.get(parent) if parent else None
    chain.reverse()
    return chain


def _file_time(stat: os.stat_result) -> datetime:
    return datetime.fromtimestamp(stat.st_mtime, tz=timezone.utc)


def _subagent_info_if_there(
    session_id: str, agent_id: str, transcript: Path
) -> SubagentInfo | None:
    try:
        return _subagent_info(session_id, agent_id, transcript)
    except FileNotFoundError:
        return None


def _session_info(path: Path, window: int | None) -> SessionInfo:
    """`SessionInfo` of a transcript, read whole or at its two ends (see `SessionInfo`)."""
    if window is None:
        stat = path.stat()
        whole = _Scan()
        for o in _read_objects(path):
            whole.feed(o)
        info = _info(path, stat, head=whole, tail=whole, whole=True)
    else:
        stat, head_lines, tail_lines = _read_ends(path, window)
        head = _scan_lines(path, head_lines)
        if tail_lines is None:
            info = _info(path, stat, head=head, tail=head, whole=True)
        else:
            tail = _scan_lines(path, tail_lines)
            info = _info(path, stat, head=head, tail=tail, whole=False)
    if _archived(path, window):
        info = attrs.evolve(info, archived=True)
    return info


def _info(
    path: Path, stat: os.stat_result, *, head: _Scan, tail: _Scan, whole: bool
) -> SessionInfo:
    """Merge the scans of the head and the tail (the same scan when the file was read whole)."""
    return _make_info(
        path.stem,
        path,
        size=stat.st_size,
        mtime=_file_time(stat),
        head=head,
        tail=tail,
        whole=whole,
        title=lambda: _read_title_sidecar(path),
    )


def _make_info(
    session_id: str,
    path: Path,
    *,
    size: int,
    mtime: datetime,
    head: _Scan,
    tail: _Scan,
    whole: bool,
    title: Callable[[], str | None],
) -> SessionInfo:
    """`_info` for a transcript that may not be a file: ``mtime`` stands for the file's time,
    ``title`` reads the title sidecar."""
    state = {**head.state, **tail.state}
    if "custom_title" not in tail.state:
        # As the CLI reads it: the tail's title, then the sidecar, then the head's.
        sidecar = title()
        if sidecar is not None or "custom_title" not in head.state:
            state["custom_title"] = sidecar
    relocated = state.pop("relocated", None)
    times = [t for t in (head.first, head.last, tail.first, tail.last) if t is not None]
    modified = max(times, default=mtime)
    if tail.last is None and not whole:
        # The tail has no dated line (it holds only long cut lines and state entries): the
        # last entry is somewhere after the head, and the file's time is the nearer guess.
        modified = max(modified, mtime)
    return SessionInfo(
        session_id=session_id,
        path=path,
        created=min(times, default=mtime),
        modified=modified,
        size=size,
        message_count=head.messages if whole else None,
        first_prompt=head.first_prompt or tail.first_prompt,
        cwd=relocated or head.cwd or tail.cwd,
        git_branch=tail.git_branch or head.git_branch,
        version=tail.version or head.version,
        custom_title=state.get("custom_title"),
        ai_title=state.get("ai_title"),
        summary=state.get("summary"),
        tag=state.get("tag"),
        last_prompt=state.get("last_prompt"),
    )


def _archived(path: Path, window: int | None) -> bool:
    """Whether the session is archived: its ``archived.json`` says so and no prompt the user
    typed is dated after the mark (the TypeScript SDK's rule, over the lines a listing reads:
    the two ends, or the whole file with ``window=None``)."""
    record = _read_archive_record(path)
    if record is None or not record[0]:
        return False
    if window is None:
        lines = path.read_bytes().split(b"\n")
    else:
        _, head, tail = _read_ends(path, window)
        lines = head + (tail or [])
    for line in lines:
        if not _could_be_prompt(line):
            continue
        try:
            obj = _codec.loads(line)
        except MessageDecodeError:
            continue
        when = _prompt_time_ms(obj)
        if when is not None and when > record[1]:
            return False
    return True


def _read_archive_record(transcript: Path) -> tuple[bool, int] | None:
    """``(archived, at in epoch ms)`` from ``<session-id>/archived.json``, or None."""
    where = transcript.with_suffix("") / _ARCHIVE_SIDECAR
    try:
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(where, flags)
    except OSError:
        return None
    try:
        stat = os.fstat(fd)
        if not S_ISREG(stat.st_mode) or stat.st_size > _ARCHIVE_RECORD_MAX:
            return None
        data = _pread_all(fd, stat.st_size, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    return _archive_record(data)


def _read_ends(path: Path, window: int) -> tuple[os.stat_result, list[bytes], list[bytes] | None]:
    """The complete lines of a transcript's first and last ``window`` bytes (the tail is None
    when the file is no longer than ``2 * window``: the head holds every line).

    Reads at most ``2 * window + 1`` bytes, whatever the file's size; a line cut by either
    window is left out (but the file's last line, which may lack its newline, is kept).

    Raises:
        FileNotFoundError: there is no such file.
        OSError: it cannot be read, or it is not a regular file.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        stat = os.fstat(fd)
        if not S_ISREG(stat.st_mode):
            raise OSError(f"not a regular file: {path}")
        size = stat.st_size
        if size <= 2 * window:
            return stat, _pread_all(fd, size, 0).split(b"\n"), None
        head = _pread_all(fd, window, 0).split(b"\n")
        del head[-1]  # cut by the window (or empty, after a newline)
        tail = _pread_all(fd, window + 1, size - window - 1).split(b"\n")
        del tail[0]  # cut by the window (or the one byte before it, a newline)
        return stat, head, tail
    finally:
        os.close(fd)


def _scan_lines(path: Path, lines: Sequence[bytes]) -> _Scan:
    scan = _Scan()
    skipped = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            data = _codec.loads(line)
        except MessageDecodeError:
            skipped += 1
            continue
        if data.__class__ is not dict:
            skipped += 1
            continue
        scan.feed(data)
    if skipped:
        logger.warning("%s: %d lines that are not JSON objects skipped", path, skipped)
    return scan


def _session_info_if_there(path: Path, window: int | None) -> SessionInfo | None:
    try:
        return _session_info(path, window)
    except FileNotFoundError:  # deleted while we looked
        return None
    except OSError as exc:
        logger.warning("%s: not read (%s); left out of the listing", path, exc)
        return None


def _check_paging(limit: int | None, offset: int, window: int | None) -> None:
    if limit is not None and limit < 0:
        raise ValueError(f"limit must not be negative: {limit!r}")
    if offset < 0:
        raise ValueError(f"offset must not be negative: {offset!r}")
    if window is not None and window < 1:
        raise ValueError(f"window must be positive (or None): {window!r}")


def _scan_projects(directories: Sequence[Path], window: int | None) -> list[SessionInfo]:
    """`SessionInfo` of every ``<uuid>.jsonl`` in the directories (one per session id: the
    one modified last)."""
    found: dict[str, SessionInfo] = {}
    for directory in directories:
        try:
            files = sorted(
                p for p in directory.iterdir() if p.suffix == ".jsonl" and _is_uuid(p.stem)
            )
        except OSError:  # not there, or not a directory
            continue
        for path in files:
            info = _session_info_if_there(path, window)
            if info is None:
                continue
            seen = found.get(info.session_id)
            if seen is None or _order_key(info) > _order_key(seen):
                found[info.session_id] = info
    return list(found.values())


def _order_key(info: SessionInfo) -> tuple[datetime, str]:
    return (info.modified, info.session_id)


def _page(
    infos: list[SessionInfo], *, limit: int | None, offset: int, after: SessionInfo | None
) -> list[SessionInfo]:
    """Newest first (``modified``, then session id, descending), after the cursor, then
    ``offset`` and ``limit``."""
    infos.sort(key=_order_key, reverse=True)
    if after is not None:
        cursor = _order_key(after)
        infos = [i for i in infos if _order_key(i) < cursor]
    end = None if limit is None else offset + limit
    return infos[offset:end]


def _project_dirs(
    cwd: _StrPath | None, config: _StrPath | None, *, include_worktrees: bool
) -> list[Path]:
    """The project directory of ``cwd``, then those of its repository's other worktrees."""
    directories = [project_dir(cwd, config_dir=config)]
    if include_worktrees:
        for root in _worktree_roots(_canonical(cwd)):
            directory = project_dir(root, config_dir=config)
            if directory not in directories:
                directories.append(directory)
    return directories


def _worktree_roots(cwd: str) -> list[str]:
    """The worktree paths of the git repository ``cwd`` is in (``git worktree list``), or []
    outside a repository, without git, or when git fails or hangs."""
    import subprocess  # only for listings that look for worktrees

    if not os.path.isdir(cwd):
        return []
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION_VARS}
    try:
        done = subprocess.run(
            ["git", "worktree", "list", "--porcelain"],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    roots = []
    for line in done.stdout.splitlines():
        if line.startswith(b"worktree "):
            path = os.fsdecode(line[len(b"worktree ") :])
            roots.append(unicodedata.normalize("NFC", path))
    return roots


def _read_title_sidecar(transcript: Path) -> str | None:
    try:
        data = json.loads((transcript.with_suffix("") / _TITLE_SIDECAR).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    title = data.get("customTitle") if isinstance(data, dict) else None
    return title.strip() or None if isinstance(title, str) else None


def _subagent_info(session_id: str, agent_id: str, transcript: Path) -> SubagentInfo:
    stat = transcript.stat()
    first: datetime | None = None
    last: datetime | None = None
    count = 0
    first_prompt: str | None = None
    for o in _read_objects(transcript):
        when = _parse_time(o.get("timestamp"))
        if when is not None:
            first = when if first is None else min(first, when)
            last = when if last is None else max(last, when)
        if _is_message(o):
            count += 1
            if o.get("type") == "user" and first_prompt is None:
                first_prompt = _prompt_of({**o, "isSidechain": False})
    meta: dict[str, Any] = {}
    try:
        loaded = json.loads(transcript.with_name(f"agent-{agent_id}.meta.json").read_text("utf-8"))
    except (OSError, ValueError):
        loaded = None
    if isinstance(loaded, dict):
        meta = loaded
    mtime = _file_time(stat)
    return SubagentInfo(
        agent_id=agent_id,
        session_id=session_id,
        path=transcript,
        created=first or mtime,
        modified=last or mtime,
        message_count=count,
        first_prompt=first_prompt,
        agent_type=_str(meta.get("agentType")),
        description=_str(meta.get("description")),
        tool_use_id=_str(meta.get("toolUseId")),
        meta=meta,
    )


# ======================================================================================
# Internals: the CLI's slug
