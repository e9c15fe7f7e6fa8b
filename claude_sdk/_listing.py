"""What transcript lines tell a session listing: sans-IO, shared by `claude_sdk.history` and
the session stores.

* `Scan` folds transcript entries, in file order, into what `claude_sdk.history.SessionInfo`
  reports. Its state is plain JSON (`Scan.state`, `Scan.from_state`), and folding is
  entry by entry: a transcript folded in batches, with the state saved and restored between
  them, gives the state of folding it whole. A store keeps that state beside a session so
  that a listing needs no ``load`` (`claude_sdk.stores.fold_session_summary`'s sidecar).
* `prompt_time_ms`, `archive_record` and `js_date_parse` are the TypeScript SDK's rule
  (``@anthropic-ai/claude-agent-sdk`` 0.3.332) for ``archived``: a session whose
  ``<session id>/archived.json`` says ``"archived": true`` stays archived until a line the
  user typed (a human prompt) is dated after the mark. Dates are read as JavaScript's
  ``Date.parse`` reads ISO 8601 text (the form the CLI writes); its other, legacy formats
  count as no date.

Standard library and orjson only; no I/O.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, Final

import orjson

__all__ = [
    "ARCHIVE_RECORD_MAX",
    "CHAIN_TYPES",
    "NOT_A_PROMPT",
    "STATE_KEYS",
    "Scan",
    "archive_record",
    "content_text",
    "could_be_prompt",
    "entry_size",
    "is_message",
    "js_date_parse",
    "parse_time",
    "prompt_of",
    "prompt_time_ms",
    "str_or_none",
]

#: Entry kinds that form the conversation (they carry ``uuid`` and ``parentUuid``).
CHAIN_TYPES: Final = frozenset({"user", "assistant", "system", "attachment", "progress"})
#: User prompts that are not the user's words (commands, hook output, interruptions).
NOT_A_PROMPT: Final = re.compile(
    r"^(?:<local-command-stdout>|<local-command-stderr>|<command-name>|<command-message>"
    r"|<session-start-hook>|<system-reminder>|<task-notification>|<tick>|<goal>"
    r"|\[Request interrupted by user[^\]]*\])"
)
#: Kind -> (`SessionInfo` field, wire key) of the per-session values a listing reads.
STATE_KEYS: Final[dict[str, tuple[str, str]]] = {
    "custom-title": ("custom_title", "customTitle"),
    "ai-title": ("ai_title", "aiTitle"),
    "tag": ("tag", "tag"),
    "summary": ("summary", "summary"),
    "last-prompt": ("last_prompt", "lastPrompt"),
    "relocated": ("relocated", "relocatedCwd"),
}


def str_or_none(value: Any) -> str | None:
    """``value`` if it is a string, else None."""
    return value if isinstance(value, str) else None


def content_text(content: Any) -> str:
    """The text of raw message content: the string, or its text blocks joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, Mapping) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(parts)
    return ""


def prompt_of(obj: Mapping[str, Any]) -> str | None:
    """The user's words in a raw user entry, or None if it is not a prompt."""
    if obj.get("isMeta") or obj.get("isCompactSummary") or obj.get("isSidechain"):
        return None
    message = obj.get("message")
    if not isinstance(message, Mapping):
        return None
    content = message.get("content")
    if isinstance(content, list) and any(
        isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content
    ):
        return None
    text = content_text(content).strip()
    if not text or NOT_A_PROMPT.match(text):
        return None
    return text


def parse_time(value: Any) -> datetime | None:
    """An entry's ``timestamp`` (ISO 8601; without an offset it is UTC), or None."""
    if not isinstance(value, str) or not value:
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def is_message(obj: Mapping[str, Any]) -> bool:
    """A user or assistant message (not one the CLI marks as its own)."""
    return (
        obj.get("type") in ("user", "assistant")
        and isinstance(obj.get("message"), dict)
        and not obj.get("isMeta")
    )


def entry_size(entry: Any) -> int:
    """The bytes of an entry's line in a transcript the SDK writes (compact JSON, newline)."""
    try:
        return len(orjson.dumps(entry)) + 1
    except TypeError:  # integers beyond 64 bits, lone surrogates: as the codec writes them
        text = json.dumps(entry, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        return len(text) + 1


class Scan:
    """What a run of consecutive transcript entries tells about a session (fed in file order).

    ``state`` holds the latest value of each per-session kind seen (None for one that clears
    it), so that two runs (head and tail) can be merged: the tail's wins where it has one.
    ``first`` and ``last`` are the earliest and latest entry times; ``*_raw`` the text they
    were read from (kept so the scan's JSON state restores them exactly).
    """

    __slots__ = (
        "cwd",
        "first",
        "first_prompt",
        "first_raw",
        "git_branch",
        "last",
        "last_raw",
        "messages",
        "state",
        "version",
    )

    def __init__(self) -> None:
        self.first: datetime | None = None
        self.last: datetime | None = None
        self.first_raw: str | None = None
        self.last_raw: str | None = None
        self.messages = 0
        self.first_prompt: str | None = None
        self.cwd: str | None = None
        self.git_branch: str | None = None
        self.version: str | None = None
        self.state: dict[str, str | None] = {}

    def feed(self, o: Mapping[str, Any]) -> None:
        """Fold in the next entry."""
        kind = o.get("type")
        stamp = o.get("timestamp")
        when = parse_time(stamp)
        if when is not None:
            assert isinstance(stamp, str)  # parse_time read it
            if self.first is None or when < self.first:
                self.first, self.first_raw = when, stamp
            if self.last is None or when > self.last:
                self.last, self.last_raw = when, stamp
        if is_message(o) and not o.get("isSidechain"):
            self.messages += 1
            if kind == "user" and self.first_prompt is None:
                self.first_prompt = prompt_of(o)
        if kind in CHAIN_TYPES:
            if self.cwd is None and str_or_none(o.get("cwd")):
                self.cwd = o["cwd"]
            if str_or_none(o.get("gitBranch")):
                self.git_branch = o["gitBranch"]
            if str_or_none(o.get("version")):
                self.version = o["version"]
            return
        key = STATE_KEYS.get(kind) if isinstance(kind, str) else None
        if key is not None:
            field, wire = key
            if field == "relocated":
                if str_or_none(o.get(wire)):
                    self.state[field] = o[wire]
            else:
                self.state[field] = str_or_none(o.get(wire)) or None

    def state_json(self) -> dict[str, Any]:
        """The scan as a JSON object (`from_state` restores it)."""
        return {
            "first": self.first_raw,
            "last": self.last_raw,
            "messages": self.messages,
            "first_prompt": self.first_prompt,
            "cwd": self.cwd,
            "git_branch": self.git_branch,
            "version": self.version,
            "state": dict(self.state),
        }

    @classmethod
    def from_state(cls, data: object) -> Scan | None:
        """The scan `state_json` gave, or None if ``data`` is not one."""
        if not isinstance(data, dict):
            return None
        scan = cls()
        first, last = data.get("first"), data.get("last")
        messages = data.get("messages")
        state = data.get("state")
        texts = [data.get(k) for k in ("first_prompt", "cwd", "git_branch", "version")]
        if (
            not all(v is None or isinstance(v, str) for v in (first, last, *texts))
            or not isinstance(messages, int)
            or isinstance(messages, bool)
            or not isinstance(state, dict)
            or not all(
                k in _STATE_FIELDS and (v is None or isinstance(v, str)) for k, v in state.items()
            )
        ):
            return None
        scan.first, scan.first_raw = parse_time(first), first
        scan.last, scan.last_raw = parse_time(last), last
        if (scan.first is None) != (first is None) or (scan.last is None) != (last is None):
            return None
        scan.messages = messages
        scan.first_prompt, scan.cwd, scan.git_branch, scan.version = texts
        scan.state = dict(state)
        return scan


_STATE_FIELDS: Final = frozenset(field for field, _ in STATE_KEYS.values())


# ======================================================================================
# Archived sessions: the TypeScript SDK's rule (sdk.mjs of 0.3.332, functions `wh`, `Bz`,
# `$z`, `dNe`, `es`, `kU`)

#: JavaScript's white space and line terminators (``trim``, ``\s``).
_JS_SPACE: Final = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_S = re.escape(_JS_SPACE)
#: Text that is markup or an interruption, not the user's words (``Xve``).
_MARKUP = re.compile(
    rf"(?:[{_S}]*<[a-z][A-Za-z0-9_-]*[{_S}>]|\[Request interrupted by user[^\]]*\])"
)
_COMMAND_NAME = re.compile(r"<command-name>[^\n\r\u2028\u2029]*?</command-name>")
_BASH_INPUT = re.compile(r"<bash-input>[\s\S]*?</bash-input>")
_PASTED = '<pasted_content id="'
_HEX = frozenset("0123456789abcdef")
#: Flags a prompt line must not set (zod ``z.literal(false).optional()``).
_NOT_SET = (
    "isCompactSummary",
    "isSidechain",
    "isVirtual",
    "isVisibleInTranscriptOnly",
    "isMeta",
    "textNotTyped",
    "handedOff",
    "queueSkipAttachments",
)
#: Keys a prompt line must not have at all (zod ``z.undefined().optional()``).
_ABSENT = ("persist", "wakeupSource", "scheduledTaskId")
#: ``archived.json``'s ``at``: zod's ISO date-time with an offset (``z.iso.datetime``).
_DATE = (
    r"(?:(?:[0-9][0-9][2468][048]|[0-9][0-9][13579][26]|[0-9][0-9]0[48]|[02468][048]00"
    r"|[13579][26]00)-02-29|[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|(?:02)-(?:0[1-9]|1[0-9]|2[0-8])))"
)
_AT = re.compile(
    rf"{_DATE}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?"
    r"(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
)
#: The biggest record `archive_record` reads (larger files are no record).
ARCHIVE_RECORD_MAX: Final = 4096
_ISO = re.compile(
    r"(?P<y>[0-9]{4}|[+-][0-9]{6})(?:-(?P<mo>[0-9]{2})(?:-(?P<d>[0-9]{2}))?)?"
    r"(?:[Tt](?P<h>[0-9]{2}):(?P<mi>[0-9]{2})(?::(?P<s>[0-9]{2})(?:\.(?P<f>[0-9]+))?)?"
    r"(?P<z>[Zz]|[+-][0-9]{2}:?[0-9]{2})?)?"
)
_MS_PER_DAY: Final = 86_400_000


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (``d`` may overflow the month)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468 + d - 1


def js_date_parse(text: str) -> int | None:
    """``Date.parse(text)`` for ISO 8601 text, in epoch milliseconds; None for NaN.

    The ECMAScript date-time string format as V8 reads it: a date alone is UTC, a date and
    time without an offset is local time, any number of fraction digits (cut to
    milliseconds), ``24:00`` is the end of the day, a day past the month's end runs into
    the next month. Other text (V8's legacy formats) is None.
    """
    found = _ISO.fullmatch(text)
    if found is None:
        return None
    year_text = found["y"]
    if year_text == "-000000":
        return None
    year = int(year_text)
    month = int(found["mo"] or 1)
    day = int(found["d"] or 1)
    hour, minute = int(found["h"] or 0), int(found["mi"] or 0)
    second = int(found["s"] or 0)
    milli = int((found["f"] or "0")[:3].ljust(3, "0"))
    if not (1 <= month <= 12 and 1 <= day <= 31 and minute <= 59 and second <= 59):
        return None
    if hour > 24 or (hour == 24 and (minute or second or milli)):
        return None
    zone = found["z"]
    value = (
        _days_from_civil(year, month, day) * _MS_PER_DAY
        + ((hour * 60 + minute) * 60 + second) * 1000
        + milli
    )
    if zone is not None and zone not in "Zz":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        zone_hours, zone_minutes = int(digits[:2]), int(digits[2:])
        if zone_hours > 23 or zone_minutes > 59:
            return None
        value -= sign * (zone_hours * 60 + zone_minutes) * 60_000
    elif zone is None and found["h"] is not None:  # local time
        if not 1 <= year <= 9999 or hour == 24:
            return None  # outside what the local clock can say here
        local = datetime(year, month, 1, hour, minute, second, milli * 1000)
        offset = local.astimezone().utcoffset()
        if offset is None:  # pragma: no cover - astimezone always gives one
            return None
        value -= int(offset.total_seconds() * 1000)
    if abs(value) > 8_640_000_000_000_000:
        return None
    return value


def _js_trim(text: str) -> str:
    return text.strip(_JS_SPACE)


def _expand_pasted(text: str) -> str:
    """Text with each pasted block (``<pasted_content id="abcd">...``) replaced by its body
    (``kU``)."""
    parts: list[str] = []
    start = cursor = 0
    while True:
        at = text.find(_PASTED, cursor)
        if at == -1:
            break
        id_at = at + len(_PASTED)
        pasted_id = text[id_at : id_at + 4]
        if not (len(pasted_id) == 4 and set(pasted_id) <= _HEX) or not text.startswith(
            '">\n', id_at + 4
        ):
            cursor = id_at
            continue
        body = id_at + 4 + 3
        close = f'</pasted_content id="{pasted_id}">'
        end = text.find("\n" + close, body - 1) + 1
        if end == 0:
            break
        before = at
        for _ in range(2):
            if before > start and text[before - 1] == "\n":
                before -= 1
        if before > start:
            parts.append(text[start:before])
        start = end + len(close)
        for _ in range(2):
            if start < len(text) and text[start] == "\n":
                start += 1
        parts.append(text[body : end - 1])
        cursor = start
    if start < len(text):
        if not parts:
            return text
        parts.append(text[start:])
    return "".join(parts)


def _first_prompt_found(content: Any) -> bool:
    """Whether the TypeScript SDK's first-prompt reader finds a prompt in ``content``
    (``es`` returns a value)."""
    texts: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                return False
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
    for text in texts:
        line = _js_trim(_expand_pasted(text).replace("\n", " "))
        if not line or _COMMAND_NAME.search(line):
            continue
        if _BASH_INPUT.search(line):
            return True
        if _MARKUP.match(line):
            continue
        return True
    return False


def _origin_ok(origin: object) -> bool:
    return isinstance(origin, dict) and isinstance(origin.get("kind"), str)


def prompt_time_ms(obj: object) -> int | None:
    """When the user typed this line's prompt (epoch ms), or None if it is not a prompt the
    user typed (``dNe``): a ``user`` entry or a ``queued_command`` attachment with a valid
    date, no flag that makes it the CLI's own, no origin other than ``human``, no tool
    result, and words, markup the user sends (``<command-message>``) or an image."""
    if not isinstance(obj, dict) or not isinstance(obj.get("timestamp"), str):
        return None
    kind = obj.get("type")
    if kind == "user":
        message = obj.get("message")
        if not isinstance(message, dict):
            return None
        if "origin" in obj and not _origin_ok(obj["origin"]):
            return None
        if "promptSource" in obj and not isinstance(obj["promptSource"], str):
            return None
        if "turnOrigin" in obj and obj["turnOrigin"] not in ("human", "sdk", "unknown"):
            return None
        if "toolUseResult" in obj and obj["toolUseResult"] is not None:
            return None
        if any(k in obj for k in _ABSENT) or any(
            k in obj and obj[k] is not False for k in _NOT_SET
        ):
            return None
        content, has_origin, origin = message.get("content"), "origin" in obj, obj.get("origin")
    elif kind == "attachment":
        if "isSidechain" in obj and obj["isSidechain"] is not False:
            return None
        attachment = obj.get("attachment")
        if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
            return None
        if "origin" in attachment and not _origin_ok(attachment["origin"]):
            return None
        if "commandMode" in attachment and attachment["commandMode"] not in ("prompt", "bash"):
            return None
        if "isMeta" in attachment and attachment["isMeta"] is not False:
            return None
        content = attachment.get("prompt")
        has_origin, origin = "origin" in attachment, attachment.get("origin")
    else:
        return None
    if has_origin and isinstance(origin, dict) and origin["kind"] != "human":
        return None
    if isinstance(content, str):
        blocks: list[dict[str, Any]] = [{"type": "text", "text": content}]
    elif isinstance(content, list) and all(
        isinstance(b, dict) and isinstance(b.get("type"), str) for b in content
    ):
        blocks = content
    else:
        blocks = []
    if any(b["type"] == "tool_result" for b in blocks):
        return None
    texts = [b["text"].lstrip(_JS_SPACE) if isinstance(b.get("text"), str) else "" for b in blocks]
    if has_origin:
        typed = any(texts) and not any(t.startswith("<command-name>") for t in texts)
    else:
        typed = _first_prompt_found(content) or any(
            t.startswith("<command-message>") for t in texts
        )
    typed = typed or any(b["type"] in ("image", "document") for b in blocks)
    when = js_date_parse(obj["timestamp"])
    return when if typed else None


def archive_record(data: bytes) -> tuple[bool, int] | None:
    """``(archived, at in epoch ms)`` of an ``archived.json`` file's bytes, or None when
    they are not a record (``wh``): at most `ARCHIVE_RECORD_MAX` bytes of JSON, an object
    whose ``archived`` is a boolean and ``at`` an ISO date-time with ``Z`` or an offset."""
    if len(data) > ARCHIVE_RECORD_MAX:
        return None
    try:
        record = json.loads(data.decode("utf-8", "replace"), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    archived, at = record.get("archived"), record.get("at")
    if type(archived) is not bool or not isinstance(at, str) or _AT.fullmatch(at) is None:
        return None
    when = js_date_parse(at)
    return None if when is None else (archived, when)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def could_be_prompt(line: bytes) -> bool:
    """The TypeScript SDK's cheap test of a raw line before it parses it (``$z``)."""
    return (b'"user"' in line or b'"queued_command"' in line) and b'"tool_result"' not in line


def pread_all(fd: int, size: int, offset: int) -> bytes:
    """Up to ``size`` bytes of ``fd`` at ``offset`` (fewer only at the end of the file)."""
    parts = []
    while size > 0:
        chunk = os.pread(fd, size, offset)
        if not chunk:
            break
        parts.append(chunk)
        size -= len(chunk)
        offset += len(chunk)
    return b"".join(parts)
