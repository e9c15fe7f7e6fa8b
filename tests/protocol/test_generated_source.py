"""Generated code shows its lines in tracebacks (issue 29, item 2): the codec's decoders and
encoders, and the fit checks, are registered in ``linecache`` as attrs registers its methods."""

from __future__ import annotations

import linecache
import traceback
from typing import Any

import claude_sdk as cs
from claude_sdk._protocol.generate import compile_source

FRAME = (
    b'{"type":"assistant","message":{"id":"m","type":"message","role":"assistant",'
    b'"model":"x","content":[{"type":"text","text":"hi"}]},"session_id":"s"}'
)


def test_a_traceback_through_generated_code_shows_its_lines() -> None:
    code = compile_source("def boom(d):\n    return d['missing'] + 1\n", "test boom")
    ns: dict[str, Any] = {}
    exec(code, ns)
    try:
        ns["boom"]({})
    except KeyError:
        text = traceback.format_exc()
    assert "return d['missing'] + 1" in text
    assert "<claude_sdk test boom #" in text


def test_each_compiled_source_has_a_name_of_its_own() -> None:
    first = compile_source("x = 1\n", "same")
    second = compile_source("x = 2\n", "same")
    assert first.co_filename != second.co_filename
    assert linecache.getline(first.co_filename, 1) == "x = 1\n"
    assert linecache.getline(second.co_filename, 1) == "x = 2\n"
    linecache.checkcache()  # no file on disk: the entries stay
    assert linecache.getline(second.co_filename, 1) == "x = 2\n"


def test_the_codec_registers_its_decoders() -> None:
    codec = cs.wire  # the default codec, built on first use
    frame = codec.decode(FRAME)
    assert isinstance(frame, cs.AssistantMessage)
    sources = [
        name
        for name in list(linecache.cache)
        if name.startswith("<claude_sdk codec structure AssistantMessage")
    ]
    assert sources
    assert linecache.getline(sources[0], 1).startswith("def structure(")
