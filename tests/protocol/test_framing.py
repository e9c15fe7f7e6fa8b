"""Tests for the sans-IO NDJSON line splitter."""

from __future__ import annotations

import itertools
import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claude_sdk._protocol.framing import (
    DEFAULT_MAX_LINE_BYTES,
    LineSplitter,
    iter_lines,
)
from claude_sdk.errors import LineTooLongError

from ..support.deep import deep

Item = bytes | LineTooLongError


def run(
    chunks: list[bytes], limit: int = DEFAULT_MAX_LINE_BYTES
) -> tuple[list[Item], LineSplitter]:
    """Feed every chunk, then close; return everything produced and the splitter."""
    splitter = LineSplitter(limit)
    out: list[Item] = []
    for chunk in chunks:
        out.extend(splitter.feed(chunk))
    out.extend(splitter.close())
    return out, splitter


def shape(items: list[Item]) -> list[bytes | str]:
    """Replace each error by the marker ``"ERR"``."""
    return ["ERR" if isinstance(item, LineTooLongError) else item for item in items]


def bytewise(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


A = b'{"a":1}'
B = b'{"b":2}'

CASES: list[tuple[str, list[bytes], list[bytes], int]] = [
    # (id, chunks, expected lines, expected lines_skipped)
    ("simple", [A + b"\n" + B + b"\n"], [A, B], 0),
    ("crlf", [A + b"\r\n" + B + b"\r\n"], [A, B], 0),
    ("only-one-cr-stripped", [A + b"\r\r\n"], [A + b"\r"], 0),
    ("cr-and-lf-in-separate-chunks", [A + b"\r", b"\n", B + b"\r", b"\n"], [A, B], 0),
    ("newline-alone-in-chunk", [A, b"\n", B, b"\n"], [A, B], 0),
    ("chunk-starts-with-newline", [A, b"\n" + B, b"\n"], [A, B], 0),
    ("line-over-many-chunks", [b'{"a"', b":", b"1", b"}\n"], [A], 0),
    ("blank-lines", [b"\n\n" + A + b"\n\n\n" + B + b"\n\n"], [A, B], 0),
    ("whitespace-only-lines", [b"  \t \n\r\n \x0b\x0c\n\r\r\n" + A + b"\n"], [A], 0),
    ("leading-whitespace-kept", [b"  \t" + A + b"\n"], [b"  \t" + A], 0),
    ("trailing-whitespace-kept", [A + b"  \n"], [A + b"  "], 0),
    ("non-json-skipped", [b"[SandboxDebug] hello\n" + A + b"\nplain text\n"], [A], 2),
    ("non-json-with-leading-space", [b"   oops\n" + A + b"\n"], [A], 1),
    ("json-array-is-not-an-object", [b"[1,2]\n" + A + b"\n"], [A], 1),
    ("final-unterminated-line", [A + b"\n" + b'{"b"', b":2}"], [A, B], 0),
    ("final-unterminated-crlf", [A + b"\r"], [A], 0),
    ("final-unterminated-non-json", [A + b"\ngarbage"], [A], 1),
    ("final-unterminated-blank", [A + b"\n  "], [A], 0),
    ("empty-chunks", [b"", A, b"", b"\n", b""], [A], 0),
    ("nothing", [], [], 0),
    ("bytewise", bytewise(A + b"\r\n\n x\n" + B + b"\n"), [A, B], 1),
]


@pytest.mark.parametrize(
    ("chunks", "expected", "skipped"),
    [pytest.param(c, e, s, id=i) for i, c, e, s in CASES],
)
def test_table(chunks: list[bytes], expected: list[bytes], skipped: int) -> None:
    out, splitter = run(chunks)
    assert out == expected
    assert splitter.lines_skipped == skipped
    assert splitter.lines_oversized == 0
    assert splitter.buffered == 0


def test_feed_empty_is_noop() -> None:
    splitter = LineSplitter()
    splitter.feed(b'{"a"')
    result = splitter.feed(b"")
    assert result == []
    assert type(result) is list
    assert splitter.buffered == 4


def test_feed_returns_new_lists() -> None:
    splitter = LineSplitter()
    first = splitter.feed(A + b"\n")
    second = splitter.feed(B + b"\n")
    assert type(first) is list
    assert first == [A]
    assert second == [B]
    assert first is not second


def test_buffered_counts_partial_line() -> None:
    splitter = LineSplitter()
    assert splitter.buffered == 0
    splitter.feed(b'{"a":')
    assert splitter.buffered == 5
    splitter.feed(b"1")
    assert splitter.buffered == 6
    assert splitter.feed(b"}\n{") == [A]
    assert splitter.buffered == 1


def test_close_resets_for_reuse() -> None:
    splitter = LineSplitter()
    splitter.feed(b'{"a"')
    assert splitter.close() == [b'{"a"']
    assert splitter.close() == []
    assert splitter.feed(A + b"\n") == [A]


def test_multibyte_character_straddles_every_cut() -> None:
    line = json.dumps({"t": "é 😀 中文"}, ensure_ascii=False).encode()
    data = line + b"\n" + line + b"\n"
    for cut in range(len(data) + 1):
        out, _ = run([data[:cut], data[cut:]])
        assert out == [line, line], cut
        first = out[0]
        assert isinstance(first, bytes)
        assert first.decode() == line.decode()


def test_non_json_line_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="claude_sdk")
    garbage = b"[SandboxDebug] " + b"z" * 5000
    out, splitter = run([garbage + b"\n" + A + b"\n"])
    assert out == [A]
    assert splitter.lines_skipped == 1
    [record] = [r for r in caplog.records if r.name == "claude_sdk.protocol"]
    assert record.levelno == logging.WARNING
    text = record.getMessage()
    assert "[SandboxDebug]" in text
    assert "5015 bytes" in text
    # Only the first 200 bytes of the line are shown.
    assert text.count("z") == 200 - len(b"[SandboxDebug] ")


def test_blank_lines_not_logged_or_counted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="claude_sdk")
    out, splitter = run([b"\n \n\t\r\n"])
    assert out == []
    assert splitter.lines_skipped == 0
    assert caplog.records == []


# ---------------------------------------------------------------------------------------
# Line limit


def obj_line(size: int) -> bytes:
    """A JSON object line of exactly ``size`` bytes (size >= 8)."""
    line = b'{"x":"' + b"y" * (size - 8) + b'"}'
    assert len(line) == size
    return line


@pytest.mark.parametrize("sep", [b"\n", b"\r\n"])
@pytest.mark.parametrize("chunking", ["whole", "bytewise"])
def test_exact_limit_accepted(sep: bytes, chunking: str) -> None:
    line = obj_line(20)
    data = line + sep + A + sep
    out, splitter = run([data] if chunking == "whole" else bytewise(data), limit=20)
    assert out == [line, A]
    assert splitter.lines_oversized == 0


@pytest.mark.parametrize("sep", [b"\n", b"\r\n"])
@pytest.mark.parametrize("chunking", ["whole", "bytewise"])
def test_limit_plus_one_rejected_next_intact(sep: bytes, chunking: str) -> None:
    line = obj_line(21)
    data = A + sep + line + sep + B + sep
    out, splitter = run([data] if chunking == "whole" else bytewise(data), limit=20)
    assert shape(out) == [A, "ERR", B]
    err = out[1]
    assert isinstance(err, LineTooLongError)
    assert err.limit == 20
    assert 21 <= err.size <= len(line) + len(sep) - 1
    assert splitter.lines_oversized == 1


@pytest.mark.parametrize("cut", [0, 15, 21])
def test_oversized_size_is_exact_when_whole_line_seen(cut: int) -> None:
    # The rest of the line and its CRLF arrive in one chunk: ``size`` excludes the CR.
    data = obj_line(50) + b"\r\n"
    out, _ = run([data[:cut], data[cut:]], limit=20)
    [err] = out
    assert isinstance(err, LineTooLongError)
    assert err.size == 50


def test_oversized_line_over_many_chunks_uses_bounded_memory() -> None:
    limit = 1000
    splitter = LineSplitter(limit)
    out: list[Item] = list(splitter.feed(b'{"x":"'))
    sizes = []
    for _ in range(500):
        out.extend(splitter.feed(b"y" * 100))
        sizes.append(splitter.buffered)
    assert max(sizes) <= limit + 1
    # Once rejected, nothing of the line is held.
    first_error = next(i for i, s in enumerate(sizes) if s == 0)
    assert all(s == 0 for s in sizes[first_error:])
    assert splitter._pieces == []
    [err] = out
    assert isinstance(err, LineTooLongError)
    assert limit + 1 <= err.size <= limit + 100
    assert splitter.feed(b'"}\n' + A + b"\n") == [A]
    assert splitter.lines_oversized == 1
    assert splitter.buffered == 0


def test_oversized_partial_rejected_within_single_chunk() -> None:
    splitter = LineSplitter(10)
    out = splitter.feed(A + b"\n" + obj_line(40))
    assert shape(out) == [A, "ERR"]
    assert splitter.buffered == 0
    assert splitter.feed(b"\n" + B) == []
    assert splitter.close() == [B]


def test_several_oversized_lines_in_a_row() -> None:
    data = b"\n".join([obj_line(30), obj_line(31), A, obj_line(40), obj_line(12), B]) + b"\n"
    for chunks in ([data], bytewise(data), [data[:25], data[25:70], data[70:]]):
        out, splitter = run(chunks, limit=10)
        assert shape(out) == ["ERR", "ERR", A, "ERR", "ERR", B]
        assert splitter.lines_oversized == 4
        assert splitter.lines_skipped == 0


def test_oversized_final_unterminated_line() -> None:
    out, splitter = run([A + b"\n" + obj_line(11)], limit=10)
    assert shape(out) == [A, "ERR"]
    # Already reported while discarding: close adds nothing.
    out, splitter = run([A + b"\n" + obj_line(40)], limit=10)
    assert shape(out) == [A, "ERR"]
    assert splitter.lines_oversized == 1


def test_oversized_applies_to_any_line() -> None:
    out, splitter = run([b"x" * 30 + b"\n" + b" " * 30 + b"\n" + A + b"\n"], limit=10)
    assert shape(out) == ["ERR", "ERR", A]
    assert splitter.lines_skipped == 0


def test_invalid_limit() -> None:
    with pytest.raises(ValueError, match="max_line_bytes"):
        LineSplitter(0)


def test_huge_line_with_default_limit() -> None:
    size = 100 * 1024 * 1024
    block = b"y" * (64 * 1024)
    head, end = b'{"x":"', b'"}\n'
    splitter = LineSplitter()
    out: list[Item] = list(splitter.feed(head))
    # The same block object is fed repeatedly, so only the joined line costs memory.
    for _ in range(size // len(block)):
        out.extend(splitter.feed(block))
    assert out == []
    out.extend(splitter.feed(end + A + b"\n"))
    assert len(out) == 2
    line = out[0]
    assert isinstance(line, bytes)
    assert len(line) == len(head) + size + 2
    assert line[:6] == head
    assert line[-2:] == b'"}'
    assert line[len(head) + size // 2] == ord("y")
    assert out[1] == A


def test_iter_lines() -> None:
    chunks = [A + b"\nnoise\n", b'{"b"', b":2}"]
    assert list(iter_lines(chunks)) == [A, B]


def test_iter_lines_raises_on_oversized() -> None:
    lines = iter_lines([A + b"\n" + obj_line(50) + b"\n" + B + b"\n"], max_line_bytes=10)
    assert next(lines) == A
    with pytest.raises(LineTooLongError) as info:
        next(lines)
    assert (info.value.limit, info.value.size) == (10, 50)


def test_iter_lines_raises_on_oversized_final_line() -> None:
    with pytest.raises(LineTooLongError):
        list(iter_lines([obj_line(11)], max_line_bytes=10))


# ---------------------------------------------------------------------------------------
# Properties

# Pieces of text, some longer than one code point (CRLF, a ZWJ emoji sequence).
_text = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(["\r", "\n", "\r\n", "é", "中", "😀", "🧑\u200d💻", "{", "}"]),
    ),
    max_size=8,
).map("".join)
_values = st.one_of(_text, st.integers(), st.booleans(), st.none(), st.lists(_text, max_size=3))
_keys = st.one_of(st.sampled_from(["type", "text", "é", "😀", "a\rb"]), _text)
_objects = st.dictionaries(_keys, _values, max_size=3)


@st.composite
def json_lines(draw: st.DrawFn, max_size: int = 8) -> list[bytes]:
    objects = draw(st.lists(_objects, max_size=max_size))
    ascii_only = draw(st.booleans())
    return [json.dumps(o, ensure_ascii=ascii_only).encode() for o in objects]


def chunked(draw: st.DataObject, data: bytes) -> list[bytes]:
    """Cut ``data`` at arbitrary points (which may fall inside a UTF-8 character)."""
    cuts = sorted(set(draw.draw(st.lists(st.integers(0, len(data)), max_size=12))))
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def join(draw: st.DataObject, lines: list[bytes]) -> bytes:
    """Join ``lines`` with LF or CRLF; maybe leave the last one unterminated."""
    sep = draw.draw(st.sampled_from([b"\n", b"\r\n"]))
    data = b"".join(line + sep for line in lines)
    unterminated = draw.draw(st.booleans())
    if lines and unterminated:
        data = data[: -len(sep)]  # the last line is left for close()
    return data


@settings(max_examples=deep(100), deadline=None)
@given(st.data())
def test_property_lines_survive_any_chunking(data: st.DataObject) -> None:
    lines = data.draw(json_lines())
    chunks = chunked(data, join(data, lines))
    out, splitter = run(chunks)
    assert out == lines
    assert splitter.lines_skipped == 0
    assert [json.loads(line) for line in out if isinstance(line, bytes)] == [
        json.loads(line) for line in lines
    ]


_garbage = (
    st.binary(min_size=1, max_size=40)
    .map(lambda b: b.replace(b"\n", b""))
    .filter(lambda b: b.strip() != b"" and not b.lstrip().startswith(b"{"))
)


@settings(max_examples=deep(100), deadline=None)
@given(st.data())
def test_property_garbage_skipped_and_counted(data: st.DataObject) -> None:
    lines = data.draw(json_lines())
    tagged: list[tuple[bool, bytes]] = [(True, line) for line in lines]
    garbage = data.draw(st.lists(_garbage, max_size=6))
    for g in garbage:
        tagged.insert(data.draw(st.integers(0, len(tagged))), (False, g))
    chunks = chunked(data, join(data, [line for _, line in tagged]))
    logger = logging.getLogger("claude_sdk.protocol")
    disabled = logger.disabled
    logger.disabled = True  # keep thousands of expected warnings out of the log capture
    try:
        out, splitter = run(chunks)
    finally:
        logger.disabled = disabled
    assert out == lines
    assert splitter.lines_skipped == len(garbage)


LIMIT = 40
_small = (
    st.fixed_dictionaries({"t": _text})
    .map(lambda o: json.dumps(o, ensure_ascii=False).encode())
    .filter(lambda b: len(b) <= LIMIT)
)
_big = st.integers(LIMIT + 1, 400).map(obj_line)


@settings(max_examples=deep(100), deadline=None)
@given(st.data())
def test_property_oversized_reported_once_in_order(data: st.DataObject) -> None:
    tagged: list[tuple[bool, bytes]] = data.draw(
        st.lists(st.one_of(_small.map(lambda b: (True, b)), _big.map(lambda b: (False, b))))
    )
    lines = [line for _, line in tagged]
    chunks = chunked(data, join(data, lines))
    splitter = LineSplitter(LIMIT)
    out: list[Item] = []
    for chunk in chunks:
        out.extend(splitter.feed(chunk))
        assert splitter.buffered <= LIMIT + 1
    out.extend(splitter.close())
    assert shape(out) == [line if ok else "ERR" for ok, line in tagged]
    assert splitter.lines_oversized == sum(not ok for ok, _ in tagged)
    for item, (_, line) in zip(out, tagged, strict=True):
        if isinstance(item, LineTooLongError):
            assert item.limit == LIMIT
            assert LIMIT + 1 <= item.size <= len(line) + 1
