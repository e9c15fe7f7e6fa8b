"""Cassettes: record the wire of a real session once, replay it in tests for ever.

`RecordingTransport` wraps any `Transport` and writes everything that crosses the wire, in
both directions and control plane included, to a cassette file; `ReplayTransport` plays a
cassette back as the CLI, so the code under test runs its real session logic (its
``can_use_tool`` callback, its hooks, its in-process MCP servers) against the recorded CLI,
with no CLI, no network and no cost. Both sit on the public transport contract
(`claude_sdk.transports.base`), not on SDK internals, so they survive SDK upgrades::

    recorder = RecordingTransport(SubprocessTransport(), "cassettes/greeting.jsonl")
    await cs.ask("Say hello", options=options, transport=recorder)  # once, real CLI

    replay = ReplayTransport("cassettes/greeting.jsonl")  # in every test run
    reply = await cs.ask("Say hello", options=options, transport=replay)

**File format** (NDJSON, UTF-8). A cassette holds one or more recorded connections, in the
order they were opened. Each starts with a header line, then one line per event::

    {"cassette": 1, "sdk_version": "0.1.0", "cli_version": "2.1.330",
     "options": ["--output-format", "stream-json", ...], "recorded_at": "2026-...Z",
     "transport": "SubprocessTransport"}
    {"t": 0.0008, "dir": "sdk>cli", "msg": {"type": "control_request", ...}}
    {"t": 0.4815, "dir": "cli>sdk", "msg": {"type": "control_response", ...}}
    {"t": 0.4821, "dir": "cli>sdk", "raw": "a stdout line that is not a JSON object"}
    {"t": 0.5003, "dir": "note", "note": "stderr", "text": "one stderr line"}
    {"t": 0.9000, "dir": "note", "note": "line too long", "size": 300000000, "limit": ...}
    {"t": 1.2000, "dir": "note", "note": "close stdin"}
    {"t": 1.2100, "dir": "note", "note": "end of output"}
    {"t": 1.2110, "dir": "note", "note": "exit", "returncode": 0}

``options`` is the CLI's argv without the executable (the flags the `LaunchSpec` carried);
``cli_version`` comes from the ``initialize`` answer (None when none was seen); ``t`` is
seconds since the connection opened. Frame lines have the shape of ``tests/data/transcripts``
(``{"dir", "msg"}``), so a transcript (no header: one connection) replays too.

**Scrubbing** (recording): before anything is written, every string of every frame (keys and
values), the stderr text and the options pass through, in order, the scrub hooks
(``hook(direction, frame_dict) -> frame_dict``) and the string replacements. By default
(``auto_scrub=True``) the replacements include the machine's facts taken from the launch
spec: the working directory (``<cwd>``, and its ``~/.claude/projects`` slug ``<cwd-slug>``),
``HOME`` (``<home>``), the temporary directory (``<tmpdir>``) and the value of every
environment variable whose name says it is a secret (``*API_KEY*``, ``*TOKEN*``,
``*SECRET*``, ``*PASSWORD*``, ``*CREDENTIAL*``; 8 characters or more) as ``<NAME>``. Longer
strings are replaced first.

**Replay rules.** For connection *k* the SDK opens, `ReplayTransport` plays recording *k*:

* ``cli>sdk`` lines are written in their recorded order, as fast as the SDK reads them.
* At each ``sdk>cli`` line, the replay waits (at most ``timeout`` seconds) until the SDK has
  written a line of the same *kind*: a ``control_request`` of the same subtype, a
  ``control_response`` to the same request id, a ``user`` message, ... Lines of different
  kinds may come in any order (the SDK answers concurrent requests concurrently); lines of
  one kind must come in the recorded order. A line the SDK writes earlier than recorded waits
  for its turn.
* **Request ids** of the SDK's own control requests are volatile (``req_<n>_<random>``):
  when the SDK's request is matched, its new id replaces the recorded one in every later
  ``cli>sdk`` frame (any string equal to the recorded id), so the CLI's answer resolves.
  The CLI's request ids are replayed as recorded, so the SDK answers with the recorded ids.
* **Strict mode** (the default) compares each matched line with the recording, after
  normalising both: the string replacements (the same automatic ones, from the replay's
  launch spec, plus ``scrub``) are applied to what the SDK wrote; the request id of the
  SDK's own control requests is not compared; the values of the keys in ``volatile_keys``
  (``uuid`` and ``timestamp``) are compared for presence only; then the ``normalize`` hooks
  run on both. So every answer of the user's callbacks (``can_use_tool``, hooks, in-process
  MCP servers) is checked against the recorded one. A difference, a line of a kind the
  cassette does not have at that point, or a launch whose flags differ from the recorded
  ``options``, raises `CassetteMismatchError` with a diff.
* **Lenient mode** only feeds frames: it still waits for the SDK at the recorded points and
  maps request ids, but compares nothing and drops lines the cassette does not expect.
* In both modes, a recorded line the SDK never writes fails after ``timeout`` (or at once
  when the SDK closes stdin first) with `CassetteMismatchError`. A cassette that ends without
  an ``exit`` note is *truncated*: if the SDK writes a request or a prompt past its end, or
  neither closes stdin nor writes anything for ``timeout`` seconds (it is waiting for a frame
  that is not there), the replay fails with `CassetteExhaustedError`. So does an SDK that
  opens more connections than were recorded.
* ``stderr`` notes go to the connection's stderr (and ``Options.stderr``); a ``close stdin``
  note waits for the SDK to close stdin; ``end of output`` or ``exit`` ends the replayed CLI
  with the recorded exit code (``returncode``, ``wait()``). ``line too long`` notes are not
  replayed (the SDK's line limit is a local setting).

A replay failure ends the replayed CLI (exit 1, the error on its stderr) and leaves the
``connect`` block (so ``open_session``, ``ask`` and ``query``) as the cassette error itself,
whatever the SDK raised because of it.

`check_drift` (and ``python -m claude_sdk.testing drift FILE...``) reads cassettes,
transcripts and plain NDJSON files of frames and lists the kinds and fields the installed
wire model does not know.
"""

from __future__ import annotations

import collections
import copy
import difflib
import json
import os
import re
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, Literal

import anyio
import attrs

from .. import _secrets, wire
from .._attrs import define, frozen
from .._protocol.launch import LaunchSpec
from .._version import __version__
from ..errors import ClaudeSDKError, DriftError, LineTooLongError, MessageDecodeError
from ..transports.base import Connection, ConnectionWrapper, Transport
from ..transports.memory import MemoryPeer, MemoryTransport

__all__ = [
    "CASSETTE_VERSION",
    "Cassette",
    "CassetteEntry",
    "CassetteError",
    "CassetteExhaustedError",
    "CassetteFormatError",
    "CassetteMismatchError",
    "DriftFinding",
    "Recording",
    "RecordingTransport",
    "ReplayMode",
    "ReplayTransport",
    "ScrubHook",
    "ScrubSpec",
    "Scrubber",
    "check_drift",
    "machine_replacements",
]

#: The cassette format version written in every header (``{"cassette": 1, ...}``).
CASSETTE_VERSION: Final = 1
#: Seconds a replay waits for the SDK at a recorded point, by default.
DEFAULT_TIMEOUT: Final = 10.0
#: Keys whose values strict replay compares for presence only.
VOLATILE_KEYS: Final = ("uuid", "timestamp")

SDK_TO_CLI: Final = "sdk>cli"
CLI_TO_SDK: Final = "cli>sdk"
NOTE: Final = "note"

ReplayMode = Literal["strict", "lenient"]
"""``"strict"`` compares what the SDK writes with the recording; ``"lenient"`` only feeds."""

ScrubHook = Callable[[str, dict[str, Any]], dict[str, Any]]
"""``hook(direction, frame_dict) -> frame_dict``; ``direction`` is ``"sdk>cli"`` or
``"cli>sdk"``. It may change the dict in place and return it, or return a new one."""

_JSON = dict[str, Any]
_SECRET_NAME = re.compile(
    r"API_?KEY|_KEY$|^KEY$|PRIVATE|TOKEN|SECRET|PASSW|CREDENTIAL|_PAT$|^PAT$|AUTH|COOKIE|"
    r"SESSION|DSN$|DATABASE_URL|CONNECTION_STRING",
    re.IGNORECASE,
)
#: Variables the SDK itself sets for the CLI (not the caller's, not secret).
_SDK_ENV = frozenset(
    {"CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SDK_READS_SESSION_STATE", "CLAUDE_AGENT_SDK_VERSION",
     "CLAUDE_AGENT_SDK_CLIENT_APP", "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"}
)  # fmt: skip
_MARKER = re.compile(r"^\.\.\.\[\d+ more of \d+\]$")
_DIRECTIONS = (SDK_TO_CLI, CLI_TO_SDK)


# ======================================================================================
# Errors


class CassetteError(ClaudeSDKError):
    """Base of the errors of recording and replaying cassettes.

    Attributes:
        path: the cassette file.
    """

    default_kind: str | None = "cassette"

    path: str

    def __init__(self, message: str | None = None, *, path: str = "", kind: str | None = None):
        self.path = path
        super().__init__(message, kind=kind)

    def _default_message(self) -> str:
        return f"cassette error ({self.path})"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "path": self.path}


class CassetteFormatError(CassetteError):
    """A cassette file cannot be read.

    Attributes:
        line: the 1-based line number of the offending line (0: the file as a whole).
        reason: what is wrong with it.
    """

    line: int
    reason: str

    def __init__(
        self,
        message: str | None = None,
        *,
        path: str = "",
        line: int = 0,
        reason: str = "invalid cassette",
        kind: str | None = None,
    ) -> None:
        self.line = line
        self.reason = reason
        super().__init__(message, path=path, kind=kind)

    def _default_message(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"cannot read the cassette {where}: {self.reason}"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "line": self.line, "reason": self.reason}


class CassetteMismatchError(CassetteError):
    """What the SDK did differs from the recording (see the replay rules).

    ``str()`` ends with a unified diff of the recorded frame against the one the SDK wrote.

    Attributes:
        line: the cassette line of the recorded frame (0 when there is none).
        reason: what differs, in words.
        expected: the recorded frame, normalised (None: nothing was expected).
        actual: the frame the SDK wrote, normalised (None: it wrote nothing).
    """

    default_kind: str | None = "cassette_mismatch"

    line: int
    reason: str
    expected: Any
    actual: Any

    def __init__(
        self,
        message: str | None = None,
        *,
        path: str = "",
        line: int = 0,
        reason: str = "the SDK's frame differs from the recording",
        expected: Any = None,
        actual: Any = None,
        kind: str | None = None,
    ) -> None:
        self.line = line
        self.reason = reason
        self.expected = expected
        self.actual = actual
        super().__init__(message, path=path, kind=kind)

    def _default_message(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"cassette mismatch at {where}: {self.reason}"

    def _extra_text(self) -> str:
        return "\n" + self.diff

    @property
    def diff(self) -> str:
        """A unified diff, recorded (``-``) against sent by the SDK (``+``)."""
        label = f"recorded (line {self.line})" if self.line else "recorded"
        return "".join(
            difflib.unified_diff(
                _pretty(self.expected),
                _pretty(self.actual),
                fromfile=label,
                tofile="sent by the SDK",
                n=4,
            )
        )

    def _facts(self) -> dict[str, Any]:
        return {
            **super()._facts(),
            "line": self.line,
            "reason": self.reason,
            "expected": self.expected,
            "actual": self.actual,
        }


class CassetteExhaustedError(CassetteError):
    """The replay ran past the end of the cassette: the code under test wanted more.

    Attributes:
        line: the last line of the recording played.
        reason: what the SDK did (or waited for) past the end.
    """

    default_kind: str | None = "cassette_exhausted"

    line: int
    reason: str

    def __init__(
        self,
        message: str | None = None,
        *,
        path: str = "",
        line: int = 0,
        reason: str = "the SDK wanted more than the cassette holds",
        kind: str | None = None,
    ) -> None:
        self.line = line
        self.reason = reason
        super().__init__(message, path=path, kind=kind)

    def _default_message(self) -> str:
        where = f" after line {self.line}" if self.line else ""
        return f"the cassette {self.path} is exhausted{where}: {self.reason}"

    def _facts(self) -> dict[str, Any]:
        return {**super()._facts(), "line": self.line, "reason": self.reason}


def _pretty(value: Any) -> list[str]:
    if value is None:
        return ["(nothing)\n"]
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=repr)
    return [line + "\n" for line in text.splitlines()]


# ======================================================================================
# The file model


@frozen(kw_only=True)
class CassetteEntry:
    """One line of a recording after its header.

    Attributes:
        dir: ``"sdk>cli"``, ``"cli>sdk"`` or ``"note"``.
        t: seconds since the connection opened (None when not recorded).
        msg: the frame, for a frame line.
        raw: the text of a line that is not a JSON object.
        note: the note's name (``stderr``, ``close stdin``, ``end of output``, ``exit``, ...).
        fields: the note's other keys (``text``, ``returncode``, ...).
        line: the 1-based line number in the file (0 for entries made in memory).
    """

    dir: str
    t: float | None = None
    msg: _JSON | None = None
    raw: str | None = None
    note: str | None = None
    fields: _JSON = attrs.field(factory=dict)
    line: int = 0

    @property
    def is_frame(self) -> bool:
        """True for a line the SDK or the CLI wrote (``msg`` or ``raw``)."""
        return self.dir in _DIRECTIONS

    def to_dict(self) -> _JSON:
        """The JSON object written for this entry."""
        out: _JSON = {} if self.t is None else {"t": round(self.t, 4)}
        out["dir"] = self.dir
        if self.dir == NOTE:
            out["note"] = self.note
            out.update(self.fields)
        elif self.msg is not None:
            out["msg"] = self.msg
        else:
            out["raw"] = self.raw
        return out


@frozen(kw_only=True)
class Recording:
    """One recorded connection: its header and its entries.

    Attributes:
        header: the header line (``{}`` for a file without one, such as a transcript).
        entries: every line after the header, in order.
        line: the line number of the header (0 when there is none).
    """

    header: _JSON = attrs.field(factory=dict)
    entries: tuple[CassetteEntry, ...] = ()
    line: int = 0

    @property
    def cli_version(self) -> str | None:
        """The CLI's version, from the header."""
        value = self.header.get("cli_version")
        return value if isinstance(value, str) else None

    @property
    def sdk_version(self) -> str | None:
        """The SDK version that recorded it, from the header."""
        value = self.header.get("sdk_version")
        return value if isinstance(value, str) else None

    @property
    def options(self) -> list[str] | None:
        """The recorded argv flags (None when the header has none)."""
        value = self.header.get("options")
        return [str(v) for v in value] if isinstance(value, list) else None

    @property
    def returncode(self) -> int | None:
        """The recorded exit code (None without an ``exit`` note)."""
        for entry in self.entries:
            if entry.note == "exit":
                code = entry.fields.get("returncode")
                return code if isinstance(code, int) else None
        return None

    @property
    def complete(self) -> bool:
        """True when the recording saw the CLI's output end or the CLI exit."""
        return any(e.note in ("end of output", "exit") for e in self.entries)

    def frames(self, direction: str | None = None) -> list[_JSON]:
        """The recorded frames (``msg``), of one direction or both."""
        return [
            e.msg
            for e in self.entries
            if e.msg is not None and (direction is None or e.dir == direction)
        ]

    @property
    def stderr(self) -> str:
        """The recorded stderr, one line per ``stderr`` note."""
        return "".join(f"{e.fields.get('text', '')}\n" for e in self.entries if e.note == "stderr")


@frozen(kw_only=True)
class Cassette:
    """A cassette file, parsed: one `Recording` per connection.

    Attributes:
        path: where it was read from (or is to be written).
        recordings: the recorded connections, in the order they were opened.
    """

    path: Path
    recordings: tuple[Recording, ...] = ()

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Cassette:
        """Read and parse a cassette (or a transcript: one connection, no header).

        Raises:
            OSError: the file cannot be read (``FileNotFoundError`` when it is missing).
            CassetteFormatError: a line is not a cassette line, or the version is unknown.
        """
        p = Path(path)
        return cls.loads(p.read_text(encoding="utf-8"), path=p)

    @classmethod
    def loads(cls, text: str, *, path: str | os.PathLike[str] = "<memory>") -> Cassette:
        """Parse the text of a cassette (see `load`)."""
        where = str(path)
        recordings: list[Recording] = []
        header: _JSON | None = None
        header_line = 0
        entries: list[CassetteEntry] = []

        def close() -> None:
            if header is not None or entries:
                recordings.append(
                    Recording(header=header or {}, entries=tuple(entries), line=header_line)
                )

        for number, obj in json_objects(text.splitlines(), where):
            if "cassette" in obj:
                version = obj["cassette"]
                if not isinstance(version, int) or isinstance(version, bool):
                    raise CassetteFormatError(
                        path=where, line=number, reason=f"bad cassette version {version!r}"
                    )
                if version > CASSETTE_VERSION:
                    raise CassetteFormatError(
                        path=where,
                        line=number,
                        reason=f"cassette version {version} is newer than this SDK reads "
                        f"({CASSETTE_VERSION}); upgrade claude_sdk",
                    )
                close()
                header, header_line, entries = obj, number, []
                continue
            entries.append(_entry(obj, where, number))
        close()
        return cls(path=Path(where), recordings=tuple(recordings))

    def dumps(self) -> str:
        """The cassette as text (one header line per recording, then its entries)."""
        lines: list[str] = []
        for recording in self.recordings:
            lines.append(_line({"cassette": CASSETTE_VERSION, **recording.header}))
            lines.extend(_line(entry.to_dict()) for entry in recording.entries)
        return "".join(lines)

    def dump(self, path: str | os.PathLike[str] | None = None) -> None:
        """Write the cassette (atomically: a temporary file is renamed into place)."""
        target = Path(path) if path is not None else self.path
        _write_atomically(target, self.dumps())


def _line(obj: _JSON) -> str:
    return json.dumps(obj, ensure_ascii=True) + "\n"


def _write_atomically(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, target)


def _entry(obj: _JSON, where: str, number: int) -> CassetteEntry:
    direction = obj.get("dir")
    t = obj.get("t")
    t = float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else None
    if direction == NOTE:
        note = obj.get("note")
        fields = {k: v for k, v in obj.items() if k not in ("t", "dir", "note")}
        return CassetteEntry(dir=NOTE, t=t, note=str(note), fields=fields, line=number)
    if direction not in _DIRECTIONS:
        raise CassetteFormatError(
            path=where, line=number, reason=f"not a cassette line (dir={direction!r})"
        )
    if isinstance(obj.get("msg"), dict):
        return CassetteEntry(dir=str(direction), t=t, msg=obj["msg"], line=number)
    if isinstance(obj.get("raw"), str):
        return CassetteEntry(dir=str(direction), t=t, raw=obj["raw"], line=number)
    raise CassetteFormatError(
        path=where, line=number, reason="a frame line needs a 'msg' object or a 'raw' string"
    )


# ======================================================================================
# Scrubbing


#: Shapes of credentials, replaced wherever they appear (``auto_scrub``): one list for the
#: SDK, in `claude_sdk._secrets` (spans and reprs use it too).
TOKEN_PATTERNS = _secrets.TOKEN_PATTERNS


def _replace_strings(
    value: Any,
    pairs: Sequence[tuple[str, str]],
    patterns: Sequence[tuple[re.Pattern[str], str]] = (),
) -> Any:
    if isinstance(value, str):
        for old, new in pairs:
            if old in value:
                value = value.replace(old, new)
        for pattern, replacement in patterns:
            value = pattern.sub(replacement, value)
        return value
    if isinstance(value, list):
        return [_replace_strings(v, pairs, patterns) for v in value]
    if isinstance(value, dict):
        return {
            _replace_strings(k, pairs, patterns): _replace_strings(v, pairs, patterns)
            for k, v in value.items()
        }
    return value


#: Keys under which a frame carries secrets by value: MCP server headers and env, settings env.
_SECRET_CONTAINERS = frozenset({"headers", "env"})


def frame_secrets(msg: Any) -> dict[str, str]:
    """Replacements for the secret values a frame carries: each value under a ``headers`` or
    ``env`` object (MCP servers and settings in ``initialize``), as ``<NAME>``."""
    out: dict[str, str] = {}
    todo = [msg]
    while todo:
        value = todo.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in _SECRET_CONTAINERS and isinstance(item, dict):
                    for name, secret in item.items():
                        if isinstance(secret, str) and len(secret) >= 4:
                            out.setdefault(secret, f"<{name}>")
                            bare = _BEARER.sub("", secret)
                            if len(bare) >= 8:
                                out.setdefault(bare, f"<{name}>")
                else:
                    todo.append(item)
        elif isinstance(value, list):
            todo.extend(value)
    return out


_BEARER = re.compile(r"(?i)^(bearer|basic|token)\s+")


def _ordered(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Unique ``old`` strings (the first ``new`` wins), longest first."""
    seen: dict[str, str] = {}
    for old, new in pairs:
        if old and old not in seen:
            seen[old] = new
    return tuple(sorted(seen.items(), key=lambda kv: len(kv[0]), reverse=True))


@frozen
class Scrubber:
    """Scrub hooks and string replacements, applied before anything is written.

    Attributes:
        replacements: ``(old, new)`` pairs, applied to every string, longest ``old`` first.
        hooks: ``hook(direction, frame_dict) -> frame_dict``, applied first, in order.
    """

    replacements: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_ordered)
    hooks: tuple[ScrubHook, ...] = ()
    patterns: tuple[tuple[re.Pattern[str], str], ...] = ()

    @classmethod
    def coerce(cls, spec: ScrubSpec) -> Scrubber:
        """A `Scrubber` from a `ScrubSpec`: a `Scrubber`, a mapping of replacements, a hook,
        or an iterable mixing mappings, ``(old, new)`` pairs and hooks (None: nothing)."""
        if spec is None:
            return cls()
        if isinstance(spec, Scrubber):
            return spec
        items = [spec] if isinstance(spec, Mapping) or callable(spec) else list(spec)
        pairs: list[tuple[str, str]] = []
        hooks: list[ScrubHook] = []
        for item in items:
            if isinstance(item, Scrubber):
                pairs += item.replacements
                hooks += item.hooks
            elif isinstance(item, Mapping):
                pairs += [(str(k), str(v)) for k, v in item.items()]
            elif isinstance(item, tuple) and len(item) == 2:
                pairs.append((str(item[0]), str(item[1])))
            elif callable(item):
                hooks.append(item)
            else:
                raise TypeError(f"not a scrub rule: {item!r}")
        return cls(tuple(pairs), tuple(hooks))

    def merged(self, other: Scrubber) -> Scrubber:
        """Both sets of hooks and replacements (``self``'s replacements win on a tie)."""
        patterns = self.patterns + tuple(p for p in other.patterns if p not in self.patterns)
        return Scrubber(self.replacements + other.replacements, self.hooks + other.hooks, patterns)

    def frame(self, direction: str, msg: _JSON) -> _JSON:
        """Scrub one frame dict (hooks, then replacements)."""
        for hook in self.hooks:
            msg = hook(direction, msg)
            if not isinstance(msg, dict):
                raise TypeError(f"the scrub hook {hook!r} returned {type(msg).__name__}, not dict")
        if self.replacements or self.patterns:
            result: _JSON = _replace_strings(msg, self.replacements, self.patterns)
            return result
        return msg

    def text(self, value: str) -> str:
        """Apply the replacements to a string."""
        result: str = _replace_strings(value, self.replacements, self.patterns)
        return result


ScrubSpec = (
    Scrubber
    | Mapping[str, str]
    | ScrubHook
    | Iterable[Scrubber | Mapping[str, str] | tuple[str, str] | ScrubHook]
    | None
)
"""What ``scrub=`` accepts: a `Scrubber`, a mapping of replacements, a hook, or an iterable
mixing them with ``(old, new)`` pairs; None for nothing."""


def machine_replacements(spec: LaunchSpec | None = None) -> dict[str, str]:
    """The automatic replacements for a launch (see the module docstring).

    The working directory and ``HOME`` are the spec's (falling back to this process's), the
    secrets those of the spec's environment over this process's.
    """
    env = {**os.environ, **(spec.env if spec is not None else {})}
    out: dict[str, str] = {}
    for name, value in env.items():
        if value and len(value) >= 8 and _SECRET_NAME.search(name):
            out.setdefault(value, f"<{name}>")
    cwd = (spec.cwd if spec is not None else None) or os.getcwd()
    home = env.get("HOME") or os.path.expanduser("~")
    paths = [(str(cwd), "<cwd>"), (home, "<home>"), (tempfile.gettempdir(), "<tmpdir>")]
    for path, label in paths:
        for variant in (path, os.path.realpath(path)):
            variant = variant.rstrip("/\\")
            if len(variant) > 3:  # never "/", "C:\\" or the like
                out.setdefault(variant, label)
        if label == "<cwd>":  # the CLI's ~/.claude/projects/<slug> of the directory
            for variant in (path, os.path.realpath(path)):
                slug = re.sub(r"[^a-zA-Z0-9]", "-", variant.rstrip("/\\"))
                if len(slug) > 3:
                    out.setdefault(slug, "<cwd-slug>")
    # Every other value the caller put in the CLI's environment (Options.env), whatever its
    # name (after the paths: a HOME given in Options.env is still ``<home>``).
    for name, value in (spec.env if spec is not None else {}).items():
        if value and len(value) >= 6 and name not in _SDK_ENV:
            out.setdefault(value, f"<{name}>")
    return out


def options_summary(argv: Sequence[str]) -> list[str]:
    """The argv flags of a launch (the executable left out)."""
    return [str(a) for a in argv[1:]]


# ======================================================================================
# Recording


class _Log:
    """What one recorded connection saw, kept raw until the connection ends."""

    def __init__(self, spec: LaunchSpec) -> None:
        self.spec = spec
        self.start: float = time.monotonic()
        self.events: list[tuple[float, str, Any]] = []
        self.eof_sent = False
        self.output_ended = False
        self.exit_noted: bool = False

    def add(self, direction: str, payload: Any) -> tuple[float, str, Any]:
        event = (time.monotonic() - self.start, direction, payload)
        self.events.append(event)
        return event

    def discard(self, event: tuple[float, str, Any]) -> None:
        for i in range(len(self.events) - 1, -1, -1):
            if self.events[i] is event:
                del self.events[i]
                return

    def note(self, name: str, **fields: Any) -> None:
        self.add(NOTE, (name, fields))

    def note_exit(self, returncode: int | None) -> None:
        if returncode is not None and not self.exit_noted:
            self.exit_noted = True
            self.note("exit", returncode=returncode)

    def stderr_tee(self, downstream: Callable[[str], object] | None) -> Callable[[str], object]:
        def tee(line: str) -> object:
            self.note("stderr", text=line)
            return downstream(line) if downstream is not None else None

        return tee


class RecordingConnection(ConnectionWrapper):
    """A `Connection` that notes every line, both ways, before passing it on."""

    def __init__(self, inner: Connection, log: _Log) -> None:
        super().__init__(inner)
        self._log = log

    async def send(self, line: bytes) -> None:
        # Noted before the write: the CLI's answer can then never be noted before it.
        event = self._log.add(SDK_TO_CLI, line)
        try:
            await self._inner.send(line)
        except BaseException:
            self._log.discard(event)  # it never reached the CLI
            raise

    async def receive_lines(self) -> list[bytes | LineTooLongError]:
        try:
            lines = await self._inner.receive_lines()
        except anyio.EndOfStream:
            if not self._log.output_ended:
                self._log.output_ended = True
                self._log.note("end of output")
            raise
        log = self._log
        for line in lines:
            if isinstance(line, LineTooLongError):
                log.note("line too long", size=line.size, limit=line.limit)
            else:
                log.add(CLI_TO_SDK, line)
        return lines

    async def send_eof(self) -> None:
        if not self._log.eof_sent:
            self._log.eof_sent = True
            self._log.note("close stdin")
        await self._inner.send_eof()

    @property
    def returncode(self) -> int | None:
        code = self._inner.returncode
        self._log.note_exit(code)
        return code

    async def wait(self) -> int | None:
        code = await self._inner.wait()
        self._log.note_exit(code)
        return code


class RecordingTransport(Transport):
    """Wraps a transport and writes each connection's wire to a cassette.

    Every connection opened through it is recorded; when one ends, the cassette at ``path``
    is (re)written with every finished connection, in the order they were opened. The file
    is replaced atomically, so a reader never sees half a cassette.

    Args:
        inner: the transport that runs the CLI (``SubprocessTransport()``, a ``FakeCLI``, ...).
        path: the cassette file (its directory is created).
        scrub: hooks and replacements (a `ScrubSpec`), applied before writing.
        auto_scrub: add `machine_replacements` of each launch (paths, ``HOME``, secrets).

    Attributes:
        recordings: the finished connections, scrubbed, in the order they were opened.
    """

    def __init__(
        self,
        inner: Transport,
        path: str | os.PathLike[str],
        *,
        scrub: ScrubSpec = None,
        auto_scrub: bool = True,
    ) -> None:
        self.inner = inner
        self.runs_here: bool = inner.runs_here  # where the CLI reads its files: the inner one's
        self.path: Path = Path(path)
        self.scrubber: Scrubber = Scrubber.coerce(scrub)
        self.auto_scrub = auto_scrub
        self._finished: dict[int, Recording] = {}
        self._opened = 0

    @property
    def recordings(self) -> list[Recording]:
        """The finished connections (see the class docstring)."""
        return [self._finished[i] for i in sorted(self._finished)]

    @property
    def cassette(self) -> Cassette:
        """The finished recordings as a `Cassette` (what the file holds)."""
        return Cassette(path=self.path, recordings=tuple(self.recordings))

    def describe(self) -> str:
        return f"RecordingTransport({self.inner.describe()} -> {self.path})"

    @asynccontextmanager
    async def connect(self, spec: LaunchSpec) -> AsyncIterator[Connection]:
        index = self._opened
        self._opened += 1
        log = _Log(spec)
        recorded = attrs.evolve(spec, stderr=log.stderr_tee(spec.stderr))
        conn: Connection | None = None
        try:
            async with self.inner.connect(recorded) as conn:
                yield RecordingConnection(conn, log)
        finally:
            if conn is not None:
                log.note_exit(conn.returncode)
                self._finished[index] = self._finish(log)
                text = self.cassette.dumps()
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(_write_atomically, self.path, text)

    def _finish(self, log: _Log) -> Recording:
        scrubber = self.scrubber
        if self.auto_scrub:
            secrets = dict(machine_replacements(log.spec))
            for _t, direction, payload in log.events:
                if direction == SDK_TO_CLI:
                    frame = _parse_object(payload)
                    if frame is not None:
                        for value, label in frame_secrets(frame).items():
                            secrets.setdefault(value, label)
            scrubber = scrubber.merged(Scrubber(tuple(secrets.items()), (), TOKEN_PATTERNS))
        entries: list[CassetteEntry] = []
        init_ids: set[str] = set()
        cli_version: str | None = None
        for t, direction, payload in log.events:
            if direction == NOTE:
                name, fields = payload
                if "text" in fields:
                    fields = {**fields, "text": scrubber.text(fields["text"])}
                entries.append(CassetteEntry(dir=NOTE, t=t, note=name, fields=fields))
                continue
            msg = _parse_object(payload)
            if msg is None:
                text = payload.decode("utf-8", "surrogateescape")
                entries.append(CassetteEntry(dir=direction, t=t, raw=scrubber.text(text)))
                continue
            if direction == SDK_TO_CLI and _request_subtype(msg) == "initialize":
                init_ids.add(str(msg.get("request_id")))
            elif direction == CLI_TO_SDK and cli_version is None:
                cli_version = _initialize_version(msg, init_ids)
            entries.append(CassetteEntry(dir=direction, t=t, msg=scrubber.frame(direction, msg)))
        header: _JSON = {
            "sdk_version": __version__,
            "cli_version": cli_version,
            "options": [scrubber.text(a) for a in options_summary(log.spec.argv)],
            "recorded_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "transport": self.inner.describe(),
        }
        return Recording(header=header, entries=tuple(entries))


def _parse_object(line: bytes) -> _JSON | None:
    try:
        obj = wire.loads(line)
    except MessageDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def _request_subtype(msg: _JSON) -> str | None:
    if msg.get("type") != "control_request":
        return None
    request = msg.get("request")
    subtype = request.get("subtype") if isinstance(request, dict) else None
    return subtype if isinstance(subtype, str) else None


def _initialize_version(msg: _JSON, init_ids: set[str]) -> str | None:
    if msg.get("type") != "control_response":
        return None
    response = msg.get("response")
    if not isinstance(response, dict) or response.get("request_id") not in init_ids:
        return None
    body = response.get("response")
    version = body.get("claude_code_version") if isinstance(body, dict) else None
    return version if isinstance(version, str) else None


# ======================================================================================
# Replay


def _kind(msg: _JSON | None) -> tuple[str, str]:
    """What a line of the SDK is matched on (see the replay rules)."""
    if msg is None:
        return ("raw", "")
    kind = str(msg.get("type"))
    if kind == "control_request":
        return (kind, str(_request_subtype(msg)))
    if kind == "control_response":
        response = msg.get("response")
        rid = response.get("request_id") if isinstance(response, dict) else None
        return (kind, str(rid))
    return (kind, "")


def _describe(kind: tuple[str, str], requests: Mapping[str, str] | None = None) -> str:
    name, detail = kind
    if name == "control_request":
        return f"a {detail} control request"
    if name == "control_response":
        subtype = (requests or {}).get(detail)
        return f"the answer to the CLI's {subtype + ' ' if subtype else ''}request {detail}"
    if name == "raw":
        return "a non-JSON line"
    return f"a {name} message"


def _map_ids(value: Any, ids: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, list):
        return [_map_ids(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: _map_ids(v, ids) for k, v in value.items()}
    return value


def _blank_volatile(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, list):
        return [_blank_volatile(v, keys) for v in value]
    if isinstance(value, dict):
        return {
            k: ("<volatile>" if k in keys and v is not None else _blank_volatile(v, keys))
            for k, v in value.items()
        }
    return value


@define(eq=False)
class _Sent:
    msg: _JSON | None
    raw: str
    kind: tuple[str, str]


class ReplayTransport(MemoryTransport):
    """Plays a cassette back as the CLI (see the replay rules in the module docstring).

    Args:
        path: the cassette (read at once: a missing or unreadable file fails here).
        mode: ``"strict"`` (compare what the SDK writes) or ``"lenient"`` (only feed).
        timeout: seconds to wait for the SDK at each recorded point (None: for ever).
        scrub: replacements and hooks (a `ScrubSpec`) applied to what the SDK writes before
            it is compared (use the recording's, when it had its own).
        auto_scrub: apply `machine_replacements` of the replay's launch too.
        normalize: ``hook(direction, frame_dict) -> frame_dict`` applied to both sides of a
            strict comparison (for fields of your own that vary).
        volatile_keys: keys whose values are compared for presence only.
        check_options: in strict mode, compare the launch's flags with the recorded ones.

    Attributes:
        cassette: the parsed cassette.
        received: every frame the SDK wrote (dicts; non-JSON lines as ``{"raw": text}``).
        errors: the replay failures so far.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        mode: ReplayMode = "strict",
        timeout: float | None = DEFAULT_TIMEOUT,
        scrub: ScrubSpec = None,
        auto_scrub: bool = True,
        normalize: Sequence[ScrubHook] = (),
        volatile_keys: Iterable[str] = VOLATILE_KEYS,
        check_options: bool = True,
    ) -> None:
        if mode not in ("strict", "lenient"):
            raise ValueError(f"mode must be 'strict' or 'lenient', not {mode!r}")
        super().__init__(self._play)
        self.cassette: Cassette = Cassette.load(path)
        self.path: Path = Path(path)
        self.mode: ReplayMode = mode
        self.timeout = timeout
        self.scrubber: Scrubber = Scrubber.coerce(scrub)
        self.auto_scrub = auto_scrub
        self.normalize: tuple[ScrubHook, ...] = tuple(normalize)
        self.volatile_keys: frozenset[str] = frozenset(volatile_keys)
        self.check_options = check_options
        self.received: list[_JSON] = []
        self.errors: list[CassetteError] = []
        self._played = 0

    def describe(self) -> str:
        return f"ReplayTransport({self.path}, {self.mode})"

    @asynccontextmanager
    async def connect(self, spec: LaunchSpec) -> AsyncIterator[Connection]:
        """Replay the next recording for ``spec``; a replay failure leaves this block as
        itself (chained to what the SDK raised because of it)."""
        first = len(self.errors)
        try:
            async with super().connect(spec) as conn:
                yield conn
        except Exception as exc:
            failure = self.errors[first] if len(self.errors) > first else None
            if failure is None or failure is exc:
                raise
            raise failure from exc
        if len(self.errors) > first:
            raise self.errors[first]

    async def _play(self, peer: MemoryPeer) -> None:
        index = self._played
        self._played += 1
        try:
            if index >= len(self.cassette.recordings):
                count = len(self.cassette.recordings)
                raise CassetteExhaustedError(
                    path=str(self.path),
                    reason=f"the SDK opened connection #{index + 1}, and the cassette holds "
                    f"{count} recorded connection{'s' if count != 1 else ''}",
                )
            await _Player(self, peer, self.cassette.recordings[index]).run()
        except CassetteError as exc:
            self.errors.append(exc)
            raise


class _Player:
    """Plays one recording to one connection."""

    def __init__(self, transport: ReplayTransport, peer: MemoryPeer, recording: Recording):
        self.transport = transport
        self.peer = peer
        self.recording = recording
        self.path = str(transport.path)
        self.strict = transport.mode == "strict"
        self.timeout = transport.timeout
        scrubber = transport.scrubber
        if transport.auto_scrub:
            machine = Scrubber(tuple(machine_replacements(peer.spec).items()), (), TOKEN_PATTERNS)
            scrubber = scrubber.merged(machine)
        self.scrubber = scrubber
        self.queue: list[_Sent] = []
        self.eof = False
        self.ids: dict[str, str] = {}
        self.requests: dict[str, str] = {}  # the CLI's request ids -> subtypes, as sent
        self.remaining = collections.Counter(
            _kind(e.msg) for e in recording.entries if e.dir == SDK_TO_CLI
        )
        self.last_line = recording.line
        self._changed: anyio.Event | None = None

    # -- the SDK's side -----------------------------------------------------------------

    async def _read(self) -> None:
        while True:
            try:
                line = await self.peer.read_line()
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                self.eof = True
                self._wake()
                return
            msg = _parse_object(line)
            raw = line.decode("utf-8", "surrogateescape")
            self.transport.received.append(msg if msg is not None else {"raw": raw})
            self.queue.append(_Sent(msg=msg, raw=raw, kind=_kind(msg)))
            self._wake()

    def _wake(self) -> None:
        event, self._changed = self._changed, None
        if event is not None:
            event.set()

    async def _next_change(self) -> None:
        if self._changed is None:
            self._changed = anyio.Event()
        await self._changed.wait()

    # -- the script ---------------------------------------------------------------------

    async def run(self) -> None:
        failure: CassetteError | None = None
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._read)
            try:
                await self._script()
            except CassetteError as exc:
                failure = exc
            finally:
                tg.cancel_scope.cancel()
        if failure is not None:
            raise failure

    async def _script(self) -> None:
        if self.strict and self.transport.check_options:
            self._check_options()
        entries = self.recording.entries
        ends_output = any(e.note == "end of output" for e in entries)
        for position, entry in enumerate(entries):
            self._check_queue(position)
            if entry.dir == CLI_TO_SDK:
                await self._send(entry)
            elif entry.dir == SDK_TO_CLI:
                await self._expect(entry, position)
            elif entry.note == "stderr":
                self.peer.write_stderr(f"{entry.fields.get('text', '')}\n")
            elif entry.note == "close stdin":
                await self._expect_eof(entry, position)
            elif entry.note == "end of output" or (entry.note == "exit" and not ends_output):
                # The CLI's output ends here (a transcript has only the exit note).
                code = self.recording.returncode
                await self.peer.exit(code if code is not None else 0)
                return
            self.last_line = entry.line or self.last_line
        await self._past_the_end()

    def _check_options(self) -> None:
        recorded = self.recording.options
        if recorded is None:
            return
        actual = [self.scrubber.text(a) for a in options_summary(self.peer.spec.argv)]
        if actual != recorded:
            raise CassetteMismatchError(
                path=self.path,
                line=self.recording.line,
                reason="the SDK launched the CLI with other flags than were recorded "
                "(the options differ)",
                expected=recorded,
                actual=actual,
            )

    async def _send(self, entry: CassetteEntry) -> None:
        if entry.msg is None:
            data = (entry.raw or "").encode("utf-8", "surrogateescape")
        else:
            msg = _map_ids(entry.msg, self.ids) if self.ids else entry.msg
            subtype = _request_subtype(msg)
            if subtype is not None:
                self.requests[str(msg.get("request_id"))] = subtype
            data = wire.dumps(msg)
        await self.peer.send_line(data)

    def _next_expected(self, position: int) -> CassetteEntry | None:
        for entry in self.recording.entries[position:]:
            if entry.dir == SDK_TO_CLI:
                return entry
        return None

    def _check_queue(self, position: int) -> None:
        """Lines of a kind the rest of the cassette does not have: an error (strict) or
        dropped (lenient)."""
        counts: collections.Counter[tuple[str, str]] = collections.Counter()
        for item in list(self.queue):
            counts[item.kind] += 1
            if counts[item.kind] <= self.remaining[item.kind]:
                continue
            if not self.strict:
                self.queue.remove(item)
                counts[item.kind] -= 1
                continue
            expected = self._next_expected(position)
            what = _describe(item.kind, self.requests)
            reason = f"the SDK wrote {what}, which the cassette does not have at this point"
            if expected is not None:
                reason += f" (it expects {_describe(_kind(expected.msg), self.requests)})"
            raise CassetteMismatchError(
                path=self.path,
                line=expected.line if expected is not None else 0,
                reason=reason,
                expected=self._expected(expected) if expected is not None else None,
                actual=self._normal_sent(item),
            )

    def _take(self, kind: tuple[str, str]) -> _Sent | None:
        for i, item in enumerate(self.queue):
            if item.kind == kind:
                del self.queue[i]
                self.remaining[kind] -= 1
                return item
        return None

    async def _expect(self, entry: CassetteEntry, position: int) -> None:
        kind = _kind(entry.msg)
        item: _Sent | None = None
        with anyio.move_on_after(self.timeout):
            while True:
                item = self._take(kind)
                if item is not None:
                    break
                self._check_queue(position)
                if self.eof:
                    raise self._missing(entry, "the SDK closed stdin before writing it")
                await self._next_change()
        if item is None:
            raise self._missing(entry, f"the SDK did not write it within {self.timeout:g} s")
        if entry.msg is not None and item.msg is not None:
            rid, new = entry.msg.get("request_id"), item.msg.get("request_id")
            is_request = kind[0] == "control_request"
            if is_request and isinstance(rid, str) and isinstance(new, str) and rid != new:
                self.ids[rid] = new
            # A prompt's uuid (the SDK makes one per prompt) is as volatile as a request id:
            # the CLI's frames name it (results, command_lifecycle), so they get the new one.
            recorded, sent = entry.msg.get("uuid"), item.msg.get("uuid")
            is_prompt = kind[0] == "user"
            if (
                is_prompt
                and isinstance(recorded, str)
                and isinstance(sent, str)
                and recorded != sent
            ):
                self.ids[recorded] = sent
        if self.strict:
            expected = self._expected(entry)
            actual = self._normal_sent(item)
            if expected != actual:
                raise CassetteMismatchError(
                    path=self.path,
                    line=entry.line,
                    reason=f"{_describe(kind, self.requests)} differs from the recording",
                    expected=expected,
                    actual=actual,
                )

    def _missing(self, entry: CassetteEntry, why: str) -> CassetteMismatchError:
        unmatched = self.queue[0] if self.queue else None
        return CassetteMismatchError(
            path=self.path,
            line=entry.line,
            reason=f"the cassette expects {_describe(_kind(entry.msg), self.requests)} here; {why}",
            expected=self._expected(entry),
            actual=self._normal_sent(unmatched) if unmatched is not None else None,
        )

    def _expected(self, entry: CassetteEntry) -> Any:
        return self._normal(SDK_TO_CLI, entry.msg) if entry.msg is not None else entry.raw

    def _normal(self, direction: str, msg: _JSON) -> _JSON:
        out = copy.deepcopy(msg)
        if out.get("type") == "control_request" and "request_id" in out:
            out["request_id"] = "<request_id>"
        if out.get("type") == "user" and direction == SDK_TO_CLI:
            # The SDK gives every prompt a uuid (turn accounting); cassettes recorded before
            # it did have none: a prompt's uuid is not compared, not even for presence.
            out.pop("uuid", None)
        if self.transport.volatile_keys:
            out = _blank_volatile(out, self.transport.volatile_keys)
        for hook in self.transport.normalize:
            out = hook(direction, out)
        return out

    def _normal_sent(self, item: _Sent) -> Any:
        if item.msg is None:
            return self.scrubber.text(item.raw)
        scrubber = self.scrubber
        if self.transport.auto_scrub:
            secrets = frame_secrets(item.msg)
            if secrets:  # as recorded: the values under headers and env, by name
                scrubber = Scrubber(tuple(secrets.items())).merged(scrubber)
        return self._normal(SDK_TO_CLI, scrubber.frame(SDK_TO_CLI, copy.deepcopy(item.msg)))

    async def _expect_eof(self, entry: CassetteEntry, position: int) -> None:
        with anyio.move_on_after(self.timeout):
            while not self.eof:
                self._check_queue(position)
                await self._next_change()
        if not self.eof:
            raise CassetteMismatchError(
                path=self.path,
                line=entry.line,
                reason=f"the SDK closed stdin here in the recording; it did not within "
                f"{self.timeout:g} s",
            )

    async def _past_the_end(self) -> None:
        """The cassette ended without the CLI's exit: it is truncated."""

        def beyond() -> _Sent | None:
            for item in self.queue:
                if self.strict or item.kind[0] in ("user", "control_request"):
                    return item
            return None

        with anyio.move_on_after(self.timeout):
            while not self.eof:
                item = beyond()
                if item is not None:
                    what = _describe(item.kind, self.requests)
                    raise CassetteExhaustedError(
                        path=self.path,
                        line=self.last_line,
                        reason=f"the SDK wrote {what} past the end of the recording: "
                        f"{item.raw[:200]}",
                    )
                await self._next_change()
        if not self.eof:
            raise CassetteExhaustedError(
                path=self.path,
                line=self.last_line,
                reason=f"the recording ends without the CLI's exit, and the SDK waited "
                f"{self.timeout:g} s for more (the cassette is truncated, or the code under "
                "test wants more than was recorded)",
            )
        await self.peer.exit(0)


# ======================================================================================
# Drift


@frozen(kw_only=True)
class DriftFinding:
    """One thing the installed wire model does not know about a recorded frame.

    Attributes:
        path: the file.
        line: the 1-based line number.
        direction: ``"cli>sdk"``, ``"sdk>cli"``, or ``""`` for a plain frame file.
        frame: what the frame is (``system/init``, ``control_request/can_use_tool``, ...).
        problem: the finding, with its JSON path (``$.message.foo: unknown field (str)``).
    """

    path: str
    line: int
    direction: str
    frame: str
    problem: str

    def __str__(self) -> str:
        where = f" {self.direction}" if self.direction else ""
        return f"{self.path}:{self.line}:{where} {self.frame}: {self.problem}"


def _clean(value: Any) -> Any:
    """Drop the shortening markers of transcripts (``"...[K more of N]"`` list items)."""
    if isinstance(value, list):
        return [_clean(v) for v in value if not (isinstance(v, str) and _MARKER.match(v))]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def _label(msg: _JSON) -> str:
    kind = str(msg.get("type"))
    detail = msg.get("subtype")
    if kind == "control_request":
        detail = _request_subtype(msg)
    elif kind == "control_response":
        response = msg.get("response")
        detail = response.get("subtype") if isinstance(response, dict) else None
    return f"{kind}/{detail}" if isinstance(detail, str) else kind


def json_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of an NDJSON file, with their line numbers (blank lines skipped).

    Raises:
        OSError: the file cannot be read.
        UnicodeDecodeError: it is not UTF-8.
        CassetteFormatError: a line is not JSON, or not a JSON object.
    """
    with open(path, encoding="utf-8") as f:
        yield from json_objects(f, os.fspath(path))


def json_objects(lines: Iterable[str], where: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of NDJSON ``lines`` (of the file ``where``), with their numbers.

    Raises:
        CassetteFormatError: a line is not JSON, or not a JSON object.
    """
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError as exc:
            raise CassetteFormatError(path=where, line=number, reason=f"not JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise CassetteFormatError(path=where, line=number, reason="not a JSON object")
        yield number, obj


def check_drift(
    path: str | os.PathLike[str], *, directions: Iterable[str] = (CLI_TO_SDK,)
) -> list[DriftFinding]:
    """What the installed wire model does not know in a file of frames.

    Reads cassettes, transcripts (``{"dir", "msg"}`` lines; shortening markers dropped) and
    plain NDJSON files with one frame per line (checked whatever ``directions`` says).
    Every frame is decoded with ``wire.decode(..., strict=True)``; the body of every success
    ``control_response`` whose request is in the file is typed with ``wire.decode_response``
    and checked with ``wire.drift``. Headers, notes and blank lines are skipped.

    Args:
        path: the file.
        directions: the directions of framed lines to check (by default what the CLI sent:
            the SDK's own frames are made by the model).

    Raises:
        OSError: the file cannot be read.
        CassetteFormatError: a line is not a JSON object, or a frame line has no frame.
    """
    where = str(path)
    wanted = set(directions)
    findings: list[DriftFinding] = []
    requests: dict[str, str] = {}
    for number, obj in json_lines(path):
        if "cassette" in obj:
            requests.clear()  # request ids belong to one connection
            continue
        direction = ""
        msg: Any = obj
        if "dir" in obj:
            direction = str(obj["dir"])
            if "msg" not in obj:
                continue  # a note, or a non-JSON line of the wire
            msg = obj["msg"]
            if not isinstance(msg, dict):
                raise CassetteFormatError(
                    path=where, line=number, reason="'msg' is not a JSON object"
                )
        msg = _clean(msg)
        if msg.get("type") == "control_request" and isinstance(msg.get("request_id"), str):
            requests[msg["request_id"]] = str(_request_subtype(msg))
        if direction and direction not in wanted:
            continue
        label = _label(msg)
        problems = _frame_drift(msg)
        problems += _response_drift(msg, requests)
        findings += [
            DriftFinding(path=where, line=number, direction=direction, frame=label, problem=problem)
            for problem in problems
        ]
    return findings


def _frame_drift(msg: _JSON) -> list[str]:
    try:
        wire.decode(wire.dumps(msg), strict=True)
    except DriftError as exc:
        return list(exc.findings)
    return []


def _response_drift(msg: _JSON, requests: Mapping[str, str]) -> list[str]:
    if msg.get("type") != "control_response":
        return []
    response = msg.get("response")
    if not isinstance(response, dict) or response.get("subtype") != "success":
        return []
    subtype = requests.get(str(response.get("request_id")))
    if subtype is None:
        return []
    body = response.get("response")
    try:
        typed = wire.decode_response(subtype, body if isinstance(body, dict) else None)
    except Exception as exc:  # the body does not fit the model at all
        return [f"$.response.response: the answer to {subtype} does not fit the model: {exc}"]
    return [problem.replace("$", "$.response.response", 1) for problem in wire.drift(typed)]
