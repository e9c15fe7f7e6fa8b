"""Where the CLI keeps a project's sessions: the directory name of a working directory.

A leaf module (standard library only), shared by `claude_sdk.history` and the session's
store handling, which must not pay for importing `claude_sdk.history`.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

__all__ = ["MAX_SLUG", "canonical", "is_uuid", "project_slug"]

_UUID_RE: Final = re.compile(r"\A[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}\Z")
#: The CLI cuts a longer slug and appends a hash of the path.
MAX_SLUG: Final = 200


def project_slug(path: str | os.PathLike[str]) -> str:
    """The directory name the CLI gives the project at ``path`` (taken as it is).

    Every UTF-16 code unit that is not an ASCII letter or digit becomes ``-`` (so a
    character outside the BMP becomes two); a name longer than 200 is cut to 200 and gets
    ``-`` plus a base-36 hash of the path, as CLI 2.1.330 does.
    """
    text = os.fspath(path)
    units = _utf16_units(text)
    slug = "".join(chr(u) if _is_alnum(u) else "-" for u in units)
    if len(slug) <= MAX_SLUG:
        return slug
    return f"{slug[:MAX_SLUG]}-{_base36(_js_hash(units))}"


def canonical(cwd: str | os.PathLike[str] | None) -> str:
    """``cwd`` (default: the current directory) as the CLI resolves its own: absolute,
    symlinks resolved, Unicode NFC."""
    path = os.getcwd() if cwd is None else os.fspath(cwd)
    return unicodedata.normalize("NFC", os.path.realpath(os.path.expanduser(path)))


def is_uuid(text: str) -> bool:
    """``text`` is a UUID in the 8-4-4-4-12 hex form."""
    return _UUID_RE.match(text) is not None


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def _is_alnum(unit: int) -> bool:
    return 48 <= unit <= 57 or 65 <= unit <= 90 or 97 <= unit <= 122


def _js_hash(units: Sequence[int]) -> int:
    """``Math.abs`` of the CLI's 32-bit string hash (``h = (h << 5) - h + c | 0``)."""
    h = 0
    for unit in units:
        h = ((h << 5) - h + unit) & 0xFFFFFFFF
    if h >= 0x80000000:
        h -= 0x100000000
    return abs(h)


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if number == 0:
        return "0"
    out = []
    while number:
        number, rest = divmod(number, 36)
        out.append(digits[rest])
    return "".join(reversed(out))


def cli_config_dir(env: Mapping[str, str | None]) -> Path:
    """The CLI's configuration directory under ``env`` laid over this process's
    (``CLAUDE_CONFIG_DIR``, else ``$HOME/.claude``)."""
    configured = env.get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser()
    home = env.get("HOME") or os.environ.get("HOME") or str(Path.home())
    return Path(home) / ".claude"
