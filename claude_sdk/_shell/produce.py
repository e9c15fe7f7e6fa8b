"""What bash's ``echo`` and ``printf`` builtins write, computed exactly or not at all.

A shell that reads its code from a pipe (``printf '%.2s -rf x' rmz | bash``) runs whatever
the producer writes; the command policies read that code only when they know it byte for
byte. `echo_output` and `printf_output` follow bash 5's builtins (``xpg_echo`` off) for the
forms they implement and return None for anything else (a conversion they do not compute,
a number they do not parse, a character outside ASCII, a NUL byte). None means "unknown":
the caller fails closed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

__all__ = ["echo_output", "printf_output"]

_ECHO_OPTION: Final = re.compile(r"-[neE]+")
_SIMPLE: Final = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v",
}  # fmt: skip
_OCT: Final = frozenset("01234567")
_HEX: Final = frozenset("0123456789abcdefABCDEF")


def _escapes(text: str, *, mode: str) -> tuple[str, bool] | None:
    """Backslash escapes of ``echo -e`` (``mode="echo"``), a ``printf`` format
    (``"format"``) or a ``%b`` argument (``"b"``): (text, stopped at ``\\c``), or None when
    the result is not plain ASCII."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = text[i + 1]
        i += 2
        if d in _SIMPLE:
            out.append(_SIMPLE[d])
        elif d == "\\":
            out.append("\\")
        elif d in "'\"?":
            out.append(d if mode == "format" else "\\" + d)
        elif d in _OCT:
            if d != "0" and mode == "echo":
                out.append("\\" + d)
                continue
            more = 3 if (d == "0" and mode != "format") else 2
            value = int(d)
            while more and i < n and text[i] in _OCT:
                value = value * 8 + int(text[i])
                i += 1
                more -= 1
            out.append(chr(value & 0xFF))
        elif d == "x":
            digits = ""
            while len(digits) < 2 and i < n and text[i] in _HEX:
                digits += text[i]
                i += 1
            if not digits:
                out.append("\\x")
            else:
                out.append(chr(int(digits, 16)))
        elif d in "uU":
            limit = 4 if d == "u" else 8
            digits = ""
            while len(digits) < limit and i < n and text[i] in _HEX:
                digits += text[i]
                i += 1
            if not digits:
                out.append("\\" + d)
            else:
                value = int(digits, 16)
                if value > 0x7F:
                    return None  # the bytes depend on the locale
                out.append(chr(value))
        elif d == "c" and mode != "format":
            return "".join(out), True
        else:
            out.append("\\" + d)
    result = "".join(out)
    if not result.isascii() or "\0" in result:
        return None
    return result, False


def echo_output(args: Sequence[str]) -> str | None:
    """What ``echo args...`` writes (bash's builtin), or None."""
    args = list(args)
    newline = True
    escapes = False
    while args and _ECHO_OPTION.fullmatch(args[0]):
        for letter in args[0][1:]:
            if letter == "n":
                newline = False
            elif letter == "e":
                escapes = True
            else:
                escapes = False
        args.pop(0)
    text = " ".join(args)
    if escapes:
        done = _escapes(text, mode="echo")
        if done is None:
            return None
        text, stopped = done
        if stopped:
            return text
    if not text.isascii() or "\0" in text:
        return None
    return text + "\n" if newline else text


_DIRECTIVE: Final = re.compile(
    r"%(?P<flags>[-+ #0']*)(?P<width>\*|[0-9]+)?(?:\.(?P<precision>\*|[0-9]*))?"
    r"(?P<length>hh|h|ll|l|L|j|z|t)?(?P<conv>.)",
    re.DOTALL,
)
_INTEGER: Final = re.compile(r"[-+]?(0|[1-9][0-9]{0,17})")


class _UnknownError(Exception):
    """A form this module does not compute."""


def _int(text: str) -> int:
    if _INTEGER.fullmatch(text) is None:
        raise _UnknownError
    return int(text)


def _pad(text: str, width: int | None, left: bool) -> str:
    if width is None or len(text) >= width:
        return text
    return text + " " * (width - len(text)) if left else " " * (width - len(text)) + text


def printf_output(args: Sequence[str]) -> str | None:
    """What ``printf format args...`` writes (bash's builtin, without ``-v``), or None."""
    args = list(args)
    if args and args[0] == "--":
        args.pop(0)
    elif args and args[0].startswith("-") and args[0] != "-":
        return None  # an option (``-v name`` is the caller's business)
    if not args:
        return None
    form = args.pop(0)
    if not form.isascii() or any(not a.isascii() for a in args):
        return None
    try:
        text = _printf(form, args)
    except (_UnknownError, IndexError, ValueError, OverflowError):
        return None
    return text if "\0" not in text else None


def _printf(form: str, args: list[str]) -> str:
    """`printf_output` of a format and its arguments; `_UnknownError` for a form it does not
    compute."""
    out: list[str] = []
    for _ in range(256):
        consumed = False
        position = 0
        for m in _DIRECTIVE.finditer(form):
            out.append(_literal(form[position : m.start()]))
            position = m.end()
            piece, used, stopped = _directive(m, args)
            out.append(piece)
            consumed = consumed or used
            if stopped:
                return "".join(out)
        out.append(_literal(form[position:]))
        if "%" in form[position:]:
            raise _UnknownError
        if not args or not consumed:
            return "".join(out)
    raise _UnknownError


def _literal(text: str) -> str:
    done = _escapes(text, mode="format")
    if done is None:
        raise _UnknownError
    return done[0]


def _number(args: list[str]) -> int:
    return _int(args.pop(0)) if args else 0


def _directive(m: re.Match[str], args: list[str]) -> tuple[str, bool, bool]:
    """One conversion: (its text, whether it took arguments, whether ``\\c`` stopped all
    output)."""
    conv = m["conv"]
    if conv == "%":
        if m.group(0) != "%%":
            raise _UnknownError
        return "%", False, False
    flags = m["flags"]
    left = "-" in flags
    width: int | None = None
    if m["width"] == "*":
        width = _number(args)
        if width < 0:
            left = True
            width = -width
    elif m["width"]:
        width = int(m["width"])
    precision: int | None = None
    if m["precision"] == "*":
        precision = _number(args)
        if precision < 0:
            precision = None
    elif m["precision"] is not None:
        precision = int(m["precision"] or "0")
    if (width or 0) > 4096 or (precision or 0) > 4096:
        raise _UnknownError
    if conv in "sbc":
        if set(flags) - {"-"}:
            raise _UnknownError
        value = args.pop(0) if args else ""
        stopped = False
        if conv == "b":
            expanded = _escapes(value, mode="b")
            if expanded is None:
                raise _UnknownError
            value, stopped = expanded
        elif conv == "c":
            if not value:
                raise _UnknownError  # bash writes a NUL byte
            value = value[:1]
        if precision is not None and conv != "c":
            value = value[:precision]
        return _pad(value, width, left), True, stopped
    if conv in "diouxX":
        if "#" in flags or "'" in flags or m["length"]:
            raise _UnknownError
        number = _number(args)
        if conv in "ouxX" and number < 0:
            raise _UnknownError
        spec = "%" + flags + (str(width) if width is not None else "")
        if precision is not None:
            spec += "." + str(precision)
        spec += "d" if conv in "iu" else conv
        return spec % number, True, False
    raise _UnknownError
