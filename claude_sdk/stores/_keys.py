"""Keys: stable session ids from user keys, and store keys from the CLI's file paths.

A leaf module (standard library only): `claude_sdk.options` imports it.
"""

from __future__ import annotations

import os
import posixpath
import uuid
from typing import Final

from ._contract import SessionKey

__all__ = ["NAMESPACE", "check_key_part", "key_for_file", "session_id_for", "subpath_is_safe"]

#: The namespace of `session_id_for`'s uuid5 ids (fixed: the same key gives the same id in
#: every process, every machine and every release).
NAMESPACE: Final = uuid.UUID("9b3f1c52-7f0e-5d5e-9c1e-3c1a2b7d4e60")
#: The longest key part accepted (a project directory name is at most ~210).
MAX_PART: Final = 512


def session_id_for(key: str) -> str:
    """A stable session id for ``key``: the id itself when ``key`` is a UUID, else a uuid5.

    The same ``key`` gives the same id everywhere, so a retried task finds its session::

        cs.session_id_for("task-17")  # the same UUID in every process and on every machine

    Raises:
        ValueError: ``key`` is not a non-empty string.
    """
    if not isinstance(key, str) or not key:  # type: ignore[redundant-expr]
        raise ValueError(f"a session key must be a non-empty string, not {key!r}")
    try:
        parsed = uuid.UUID(key)
    except ValueError:
        return str(uuid.uuid5(NAMESPACE, key))
    if str(parsed) == key.lower():
        return str(parsed)
    return str(uuid.uuid5(NAMESPACE, key))  # a UUID in another spelling is just a key


def check_key_part(value: object, name: str) -> str:
    """``value`` if it can be one part of a store key (no path may be made of it).

    Raises:
        ValueError: not a string, empty, ``.``/``..``, longer than `MAX_PART`, or holding
            ``/``, ``\\``, NUL or another control character.
    """
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, not {type(value).__name__}")  # noqa: TRY004
    if not value or value in (".", "..") or len(value) > MAX_PART:
        raise ValueError(f"{name} {value[:80]!r} is empty, a dot name or too long")
    if any(ch in "/\\" or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        raise ValueError(f"{name} {value[:80]!r} holds a path separator or control character")
    return value


def subpath_is_safe(subpath: object) -> bool:
    """``subpath`` is relative, ``/``-separated, and every part passes `check_key_part`."""
    if not isinstance(subpath, str) or not subpath or subpath.startswith("/"):
        return False
    try:
        for part in subpath.split("/"):
            check_key_part(part, "subpath")
    except ValueError:
        return False
    return True


def key_for_file(
    file_path: str, projects_dir: str | None, project_key: str | None = None
) -> SessionKey | None:
    """The store key of a transcript file the CLI mirrored, or None if it is not one.

    ``<projects>/<project>/<session>.jsonl`` is the main transcript;
    ``<projects>/<project>/<session>/<subpath>.jsonl`` a file kept under the session. With
    ``projects_dir`` None (a CLI on another machine) the nearest ``projects`` directory up
    the path is taken. ``project_key`` replaces the directory name when given.
    """
    path = file_path.replace("\\", "/") if os.sep == "\\" else file_path
    parts = [p for p in posixpath.normpath(path).split("/") if p]
    if projects_dir is not None:
        root = [p for p in posixpath.normpath(projects_dir).split("/") if p]
        if parts[: len(root)] != root:
            return None
        rel = parts[len(root) :]
    else:
        try:
            at = len(parts) - 1 - parts[::-1].index("projects")
        except ValueError:
            return None
        rel = parts[at + 1 :]
    if len(rel) < 2 or not rel[-1].endswith(".jsonl"):
        return None
    rel[-1] = rel[-1][: -len(".jsonl")]
    try:
        project = check_key_part(project_key if project_key is not None else rel[0], "project")
        session = check_key_part(rel[1], "session_id")
    except ValueError:
        return None
    if len(rel) == 2:
        return {"project_key": project, "session_id": session}
    subpath = "/".join(rel[2:])
    if len(rel) < 4 or not subpath_is_safe(subpath):
        return None
    return {"project_key": project, "session_id": session, "subpath": subpath}
