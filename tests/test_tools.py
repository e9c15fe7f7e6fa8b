"""Tests of `claude_sdk.tools`: schemas from type hints, argument checks, results, servers.

No real CLI: tools are called directly, and once through the SDK with FakeCLI playing the
CLI's side of the ``mcp_message`` traffic. Async tests run on asyncio and Trio.
"""

from __future__ import annotations

import enum
import inspect
import json
import logging
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, Optional

import anyio
import attrs
import pytest
from typing_extensions import NotRequired, TypedDict

from claude_sdk import ImageBlock, Options, TextBlock, open_session
from claude_sdk._protocol.launch import mcp_config
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.tools import (
    SdkMcpServer,
    SdkTool,
    ToolAnnotations,
    ToolCancelled,
    ToolContext,
    ToolResult,
    create_sdk_mcp_server,
    tool,
)

# --------------------------------------------------------------------------------------
# Types used as parameters


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@attrs.frozen
class Point:
    """A point on the grid."""

    x: int
    y: int = 0


class Style(TypedDict):
    bold: bool
    font: NotRequired[str]


@attrs.frozen
class Node:
    name: str
    children: list[Node] = attrs.field(factory=list)


@attrs.frozen
class Total:
    value: float
    unit: str = "m"


def one_param(tp: Any, default: Any = inspect.Parameter.empty) -> SdkTool:
    """A tool ``f(x: tp = default) -> str``."""

    def f(x: Any) -> str:
        return repr(x)

    f.__annotations__ = {"x": tp, "return": str}
    if default is not inspect.Parameter.empty:
        f.__defaults__ = (default,)
    return tool(f)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def ok(*content: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"content": list(content), "isError": False, **extra}


def error(message: str) -> dict[str, Any]:
    return {"content": [text(message)], "isError": True}


# --------------------------------------------------------------------------------------
# Schemas

POINT_SCHEMA = {
    "type": "object",
    "description": "A point on the grid.",
    "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
    "required": ["x"],
    "additionalProperties": False,
}

SCHEMA_CASES: list[tuple[str, Any, Any, dict[str, Any], bool]] = [
    # id, annotation, default, property schema, required
    ("int", int, inspect.Parameter.empty, {"type": "integer"}, True),
    ("float", float, inspect.Parameter.empty, {"type": "number"}, True),
    ("str", str, inspect.Parameter.empty, {"type": "string"}, True),
    ("bool", bool, inspect.Parameter.empty, {"type": "boolean"}, True),
    ("str-default", str, "hi", {"type": "string", "default": "hi"}, False),
    ("Any", Any, inspect.Parameter.empty, {}, True),
    (
        "Optional-required",
        Optional[int],  # noqa: UP045 - the spelling under test
        inspect.Parameter.empty,
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        True,
    ),
    (
        "Optional-default-None",
        int | None,
        None,
        {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        False,
    ),
    (
        "Literal",
        Literal["fast", "slow"],
        inspect.Parameter.empty,
        {"type": "string", "enum": ["fast", "slow"]},
        True,
    ),
    (
        "Enum-default",
        Color,
        Color.BLUE,
        {"type": "string", "enum": ["red", "blue"], "default": "blue"},
        False,
    ),
    (
        "list",
        list[str],
        inspect.Parameter.empty,
        {"type": "array", "items": {"type": "string"}},
        True,
    ),
    (
        "set",
        set[int],
        inspect.Parameter.empty,
        {"type": "array", "uniqueItems": True, "items": {"type": "integer"}},
        True,
    ),
    (
        "tuple",
        tuple[int, str],
        inspect.Parameter.empty,
        {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "minItems": 2,
            "maxItems": 2,
        },
        True,
    ),
    (
        "dict",
        dict[str, float],
        inspect.Parameter.empty,
        {"type": "object", "additionalProperties": {"type": "number"}},
        True,
    ),
    ("attrs", Point, inspect.Parameter.empty, POINT_SCHEMA, True),
    (
        "TypedDict",
        Style,
        inspect.Parameter.empty,
        {
            "type": "object",
            "properties": {"bold": {"type": "boolean"}, "font": {"type": "string"}},
            "required": ["bold"],
            "additionalProperties": False,
        },
        True,
    ),
    (
        "Annotated",
        Annotated[int, "how many"],
        3,
        {"type": "integer", "description": "how many", "default": 3},
        False,
    ),
]


@pytest.mark.parametrize(
    ("annotation", "default", "expected", "required"),
    [case[1:] for case in SCHEMA_CASES],
    ids=[case[0] for case in SCHEMA_CASES],
)
def test_input_schema_per_parameter_kind(
    annotation: Any, default: Any, expected: dict[str, Any], required: bool
) -> None:
    made = one_param(annotation, default)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"x": expected},
        "additionalProperties": False,
    }
    if required:
        schema["required"] = ["x"]
    assert made.input_schema == schema
    json.dumps(made.input_schema)  # plain JSON


def test_a_recursive_class_goes_to_the_root_defs() -> None:
    made = one_param(Node)
    node = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    assert made.input_schema["properties"] == {"x": {"$ref": "#/$defs/Node"}}
    assert made.input_schema["$defs"] == {"Node": node}


def test_description_name_and_documented_arguments() -> None:
    @tool
    async def search(query: str, limit: Annotated[int, "at most this many"] = 10) -> str:
        """Search the notes
        for a phrase.

        Matches are ranked.

        Args:
            query: the phrase, matched
                case-insensitively.
            limit: not used: Annotated wins.

        Returns:
            The matches.
        """
        return query

    assert search.name == "search"
    assert search.description == "Search the notes for a phrase."
    assert search.input_schema["properties"] == {
        "query": {"type": "string", "description": "the phrase, matched case-insensitively."},
        "limit": {"type": "integer", "description": "at most this many", "default": 10},
    }
    assert search.input_schema["required"] == ["query"]


def test_explicit_name_description_annotations_and_meta() -> None:
    @tool(
        "lookup-v2",
        description="Look a word up",
        annotations=ToolAnnotations(read_only=True, open_world=False),
        meta={"anthropic/alwaysLoad": True, "anthropic/searchHint": "dictionary"},
    )
    def lookup(word: str) -> str:
        """Ignored docstring."""
        return word

    assert lookup.definition() == {
        "name": "lookup-v2",
        "description": "Look a word up",
        "inputSchema": {
            "type": "object",
            "properties": {"word": {"type": "string"}},
            "required": ["word"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
        "_meta": {"anthropic/alwaysLoad": True, "anthropic/searchHint": "dictionary"},
    }
    assert lookup.handler("x") == "x"  # the function itself, unchanged


def test_output_schema_from_an_attrs_or_typeddict_return() -> None:
    @tool
    def measure(a: float) -> Total:
        return Total(value=a)

    @tool
    def styled(a: bool) -> Style:
        return {"bold": a}

    @tool
    def plain(a: int) -> str:
        return str(a)

    assert measure.output_schema == {
        "type": "object",
        "properties": {"value": {"type": "number"}, "unit": {"type": "string", "default": "m"}},
        "required": ["value"],
        "additionalProperties": False,
    }
    assert styled.output_schema is not None
    assert styled.output_schema["required"] == ["bold"]
    assert plain.output_schema is None
    assert "outputSchema" not in plain.definition()
    assert plain.description is None
    assert "description" not in plain.definition()


def test_context_parameter_and_kwargs() -> None:
    @tool
    def anything(ctx: ToolContext, a: int, **rest: str) -> str:
        return ""

    @tool
    def open_ended(a: int, ctx: ToolContext | None = None, **rest: Any) -> str:
        return ""

    assert anything.input_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": {"type": "string"},
    }
    assert open_ended.input_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
    }


def no_annotation(a, b: int) -> str:  # type: ignore[no-untyped-def]
    return ""


def star_args(*numbers: int) -> str:
    return ""


class Opaque:
    pass


def opaque(thing: Opaque) -> str:
    return ""


@pytest.mark.parametrize(
    ("fn", "name", "error_type", "match"),
    [
        (no_annotation, None, TypeError, "parameter 'a' has no type annotation"),
        (star_args, None, TypeError, r"\*numbers cannot take JSON arguments"),
        (opaque, None, TypeError, "no JSON Schema for .*Opaque"),
        (lambda: "", None, ValueError, "invalid tool name '<lambda>'"),
        (opaque, "has space", ValueError, "invalid tool name"),
    ],
    ids=["unannotated", "star-args", "unsupported-type", "lambda", "bad-name"],
)
def test_decoration_errors(
    fn: Callable[..., Any], name: str | None, error_type: type[Exception], match: str
) -> None:
    with pytest.raises(error_type, match=match):
        tool(name)(fn)


# --------------------------------------------------------------------------------------
# Arguments

calls: list[dict[str, Any]] = []


@tool
def draw(
    at: Point,
    color: Color,
    size: int,
    ratio: float = 1.0,
    style: Style | None = None,
    tags: list[str] = [],  # noqa: B006 - never mutated; the default is not passed on
    mode: Literal["fill", "line"] = "fill",
    label: int | str = 0,
    span: tuple[int, int] = (0, 0),
) -> str:
    calls.append(
        {
            "at": at,
            "color": color,
            "size": size,
            "ratio": ratio,
            "style": style,
            "tags": tags,
            "mode": mode,
            "label": label,
            "span": span,
        }
    )
    return "drawn"


GOOD = {"at": {"x": 1}, "color": "red", "size": 2}

INVALID_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "missing",
        {"color": "red"},
        ["missing required argument 'at'", "missing required argument 'size'"],
    ),
    ("unexpected", {**GOOD, "zoom": 2}, ["unexpected argument 'zoom'"]),
    ("string-for-int", {**GOOD, "size": "2"}, ['size: expected integer, got string "2"']),
    ("bool-for-int", {**GOOD, "size": True}, ["size: expected integer, got boolean true"]),
    ("fraction-for-int", {**GOOD, "size": 2.5}, ["size: expected integer, got number 2.5"]),
    ("null-for-float", {**GOOD, "ratio": None}, ["ratio: expected number, got null"]),
    (
        "enum",
        {**GOOD, "color": "green"},
        ['color: expected one of "red", "blue", got string "green"'],
    ),
    (
        "literal",
        {**GOOD, "mode": "dots"},
        ['mode: expected one of "fill", "line", got string "dots"'],
    ),
    (
        "attrs-fields",
        {**GOOD, "at": {"y": "0", "z": 1}},
        [
            "at: missing required field 'x'",
            'at.y: expected integer, got string "0"',
            "at: unexpected field 'z'",
        ],
    ),
    ("attrs-not-object", {**GOOD, "at": [1, 2]}, ["at: expected an object (Point), got an array"]),
    (
        "optional-typeddict",
        {**GOOD, "style": {"font": 1}},
        ["style: missing required field 'bold'", "style.font: expected string, got number 1"],
    ),
    ("list-items", {**GOOD, "tags": ["a", 2]}, ["tags[1]: expected string, got number 2"]),
    ("union", {**GOOD, "label": [1]}, ["label: expected integer or string, got an array"]),
    ("tuple-length", {**GOOD, "span": [1]}, ["span: expected an array of 2 items, got 1"]),
]


@pytest.mark.parametrize(
    ("arguments", "problems"),
    [case[1:] for case in INVALID_CASES],
    ids=[case[0] for case in INVALID_CASES],
)
async def test_invalid_arguments_are_an_error_result(
    arguments: dict[str, Any], problems: list[str]
) -> None:
    calls.clear()
    result = await draw.call(arguments)
    expected = "Invalid arguments for tool 'draw':\n" + "\n".join(f"- {p}" for p in problems)
    assert result == error(expected)
    assert calls == []  # the handler never ran


async def test_arguments_are_converted() -> None:
    calls.clear()
    arguments = {
        "at": {"x": 1.0, "y": 2},
        "color": "blue",
        "size": 3.0,
        "ratio": 2,
        "style": {"bold": True},
        "tags": ["a"],
        "mode": "line",
        "label": "L",
        "span": [4, 5],
    }
    assert await draw.call(arguments) == ok(text("drawn"))
    (seen,) = calls
    assert seen == {
        "at": Point(x=1, y=2),
        "color": Color.BLUE,
        "size": 3,
        "ratio": 2.0,
        "style": {"bold": True},
        "tags": ["a"],
        "mode": "line",
        "label": "L",
        "span": (4, 5),
    }
    assert type(seen["size"]) is int
    assert type(seen["ratio"]) is float
    assert type(seen["at"].x) is int


async def test_defaults_are_the_functions_own() -> None:
    calls.clear()
    assert await draw.call(GOOD) == ok(text("drawn"))
    assert calls[0]["ratio"] == 1.0
    assert calls[0]["style"] is None
    assert calls[0]["span"] == (0, 0)


async def test_union_members_are_converted_by_the_member_that_fits() -> None:
    @tool
    def pick(value: int | Point | list[Point]) -> str:
        return repr(value)

    assert await pick.call({"value": 3}) == ok(text("3"))
    assert await pick.call({"value": {"x": 1}}) == ok(text("Point(x=1, y=0)"))
    assert await pick.call({"value": [{"x": 2}]}) == ok(text("[Point(x=2, y=0)]"))

    @tool
    def maybe(a: int | None, b: list[Point] | None = None, c: Any | None = None) -> str:
        return repr((a, b, c))

    assert await maybe.call({"a": None, "b": None, "c": None}) == ok(text("(None, None, None)"))
    assert await maybe.call({"a": 1, "b": [{"x": 1}], "c": {"k": [1]}}) == ok(
        text("(1, [Point(x=1, y=0)], {'k': [1]})")
    )


async def test_context_kwargs_and_positional_only() -> None:
    seen: list[Any] = []

    @tool
    def lookup(key: str, /, ctx: ToolContext, *, limit: int = 5, **rest: int) -> str:
        seen.append((key, ctx, limit, rest))
        return "ok"

    meta = {"claudecode/toolUseId": "toolu_42", "progressToken": 7}
    assert await lookup.call({"key": "k", "extra": 1}, meta=meta) == ok(text("ok"))
    ((key, ctx, limit, rest),) = seen
    assert (key, limit, rest) == ("k", 5, {"extra": 1})
    assert ctx == ToolContext(tool_name="lookup", tool_use_id="toolu_42", meta=meta)
    bad = await lookup.call({"key": "k", "extra": "x"})
    assert bad == error(
        "Invalid arguments for tool 'lookup':\n- extra: expected integer, got string \"x\""
    )
    seen.clear()
    await lookup.call({"key": "k"})
    assert seen[0][1].tool_use_id is None


# --------------------------------------------------------------------------------------
# Handlers and results


async def test_sync_handlers_run_in_a_worker_thread_async_ones_do_not() -> None:
    threads: dict[str, threading.Thread] = {}

    @tool
    def sync_one() -> str:
        threads["sync"] = threading.current_thread()
        return "sync"

    @tool
    async def async_one() -> str:
        threads["async"] = threading.current_thread()
        return "async"

    assert await sync_one.call({}) == ok(text("sync"))
    assert await async_one.call({}) == ok(text("async"))
    assert threads["sync"] is not threading.current_thread()
    assert threads["async"] is threading.current_thread()


def mcp_text(value: str) -> Any:
    from mcp import types

    return types.TextContent(type="text", text=value)


PNG = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}

RESULT_CASES: list[tuple[str, Callable[[], Any], dict[str, Any]]] = [
    ("str", lambda: "hello", ok(text("hello"))),
    ("None", lambda: None, ok()),
    ("int", lambda: 42, ok(text("42"))),
    ("bool", lambda: True, ok(text("true"))),
    (
        "dict",
        lambda: {"sum": 3, "ok": True},
        ok(text('{"sum": 3, "ok": true}'), structuredContent={"sum": 3, "ok": True}),
    ),
    (
        "attrs",
        lambda: Total(value=1.5),
        ok(text('{"value": 1.5, "unit": "m"}'), structuredContent={"value": 1.5, "unit": "m"}),
    ),
    (
        "dict-of-attrs",
        lambda: {"at": Point(x=1)},
        ok(text('{"at": {"x": 1, "y": 0}}'), structuredContent={"at": {"x": 1, "y": 0}}),
    ),
    ("TextBlock", lambda: TextBlock(text="block"), ok(text("block"))),
    (
        "content-list",
        lambda: [
            "a",
            TextBlock(text="b"),
            ImageBlock(source=PNG),
            {"type": "text", "text": "c"},
            mcp_text("d"),
        ],
        ok(
            text("a"),
            text("b"),
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            text("c"),
            text("d"),
        ),
    ),
    ("mcp-content", lambda: mcp_text("e"), ok(text("e"))),
    ("ToolResult-error", lambda: ToolResult(content="nope", is_error=True), error("nope")),
    (
        "ToolResult-structured",
        lambda: ToolResult(structured=Total(value=2.0, unit="s")),
        ok(text('{"value": 2.0, "unit": "s"}'), structuredContent={"value": 2.0, "unit": "s"}),
    ),
    (
        "ToolResult-full",
        lambda: ToolResult(content=["x", TextBlock(text="y")], structured={"n": 1}, meta={"k": 1}),
        ok(text("x"), text("y"), structuredContent={"n": 1}, _meta={"k": 1}),
    ),
    ("ToolResult-empty", lambda: ToolResult(content=[]), ok()),
]


@pytest.mark.parametrize(
    ("make", "expected"),
    [case[1:] for case in RESULT_CASES],
    ids=[case[0] for case in RESULT_CASES],
)
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
async def test_return_values_become_mcp_results(
    make: Callable[[], Any], expected: dict[str, Any], is_async: bool
) -> None:
    def sync_fn() -> Any:
        return make()

    async def async_fn() -> Any:
        return make()

    made = tool(name="t")(async_fn if is_async else sync_fn)
    assert await made.call({}) == expected


UNSUPPORTED_CASES: list[tuple[str, Any, str]] = [
    ("object", object(), "object is not a tool result"),
    ("data-list", [{"name": "x"}], "a content dict needs a 'type'"),
    ("nan", {"x": float("nan")}, "Out of range float values are not JSON compliant"),
    ("not-json", {"when": {1, 2}}, "Object of type set is not JSON serializable"),
    ("url-image", [ImageBlock(source={"type": "url", "url": "u"})], "needs a base64 source"),
    ("structured-list", ToolResult(structured=[1]), "structured content must be a JSON object"),
]


@pytest.mark.parametrize(
    ("value", "message"),
    [case[1:] for case in UNSUPPORTED_CASES],
    ids=[case[0] for case in UNSUPPORTED_CASES],
)
async def test_an_unsupported_return_value_is_an_error_result(value: Any, message: str) -> None:
    @tool
    def odd() -> Any:
        return value

    result = await odd.call({})
    assert result["isError"] is True
    (content,) = result["content"]
    assert content["text"].startswith("tool 'odd' returned an unsupported value: ")
    assert message in content["text"]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
async def test_an_exception_is_an_error_result(is_async: bool) -> None:
    def sync_fn(a: int) -> str:
        raise ValueError(f"bad a: {a}")

    async def async_fn(a: int) -> str:
        raise ValueError(f"bad a: {a}")

    made = tool(name="boom")(async_fn if is_async else sync_fn)
    assert await made.call({"a": 1}) == error("ValueError: bad a: 1")

    @tool
    async def bare() -> str:
        raise RuntimeError

    assert await bare.call() == error("RuntimeError")


async def test_an_exception_is_logged_once_at_warning_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @tool
    async def boom(a: int) -> str:
        raise ValueError("tool broke")

    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        await boom.call({"a": 1})
    records = [r for r in caplog.records if "tool broke" in r.getMessage()]
    assert len(records) == 1
    assert records[0].levelno == logging.WARNING
    assert records[0].exc_info is not None


async def test_a_tool_built_directly_gets_the_raw_arguments() -> None:
    async def handler(arguments: dict[str, Any]) -> str:
        return json.dumps(arguments)

    raw = SdkTool(
        name="raw",
        description="Takes anything",
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
        handler=handler,
    )
    assert await raw.call({"q": 1}) == ok(text('{"q": 1}'))
    assert raw.definition()["inputSchema"]["properties"] == {"q": {"type": "string"}}
    threads: list[threading.Thread] = []

    def sync_handler(arguments: dict[str, Any]) -> dict[str, Any]:
        threads.append(threading.current_thread())
        return arguments

    sync_raw = SdkTool(name="sync_raw", handler=sync_handler)
    assert sync_raw.definition() == {"name": "sync_raw", "inputSchema": {"type": "object"}}
    assert await sync_raw.call({"q": 2}) == ok(text('{"q": 2}'), structuredContent={"q": 2})
    assert threads[0] is not threading.current_thread()


# --------------------------------------------------------------------------------------
# Servers


@tool(description="Add two numbers")
async def add(a: int, b: int) -> str:
    return str(a + b)


@tool
def divide(a: float, b: float) -> Total:
    """Divide a by b."""
    return Total(value=a / b, unit="")


def calc() -> SdkMcpServer:
    return create_sdk_mcp_server("calc", tools=[add, divide], instructions="Arithmetic.")


def test_server_construction() -> None:
    def square(x: int) -> int:
        """Square x."""
        return x * x

    server = create_sdk_mcp_server("calc", "2.0.0", [add, square])
    assert [t.name for t in server.tools] == ["add", "square"]
    assert server.get_tool("square") is server.tools[1]
    assert server.get_tool("nope") is None
    assert server.version == "2.0.0"
    assert server.list_tools()[1]["description"] == "Square x."
    with pytest.raises(ValueError, match="duplicate tool names: add"):
        create_sdk_mcp_server("calc", tools=[add, add])
    with pytest.raises(TypeError, match="not a tool"):
        create_sdk_mcp_server("calc", tools=[add, "divide"])  # type: ignore[list-item]
    # in Options it is an in-process server, sent to the CLI as {"type": "sdk"}
    options = Options(mcp_servers={"calc": server})
    assert options.sdk_mcp_servers == {"calc": server}
    assert mcp_config({"calc": server}) == {"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}}


async def test_an_unknown_tool_is_an_error_result() -> None:
    assert await calc().call_tool("sub", {}) == error(
        "unknown tool 'sub' (this server has: add, divide)"
    )


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "claude-code", "title": "Claude Code", "version": "2.1.330"},
    },
}


def tools_call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {"claudecode/toolUseId": f"toolu_{request_id}", "progressToken": request_id},
        },
    }


async def test_round_trip_through_the_sdk_with_fake_cli() -> None:
    """The CLI's MCP traffic (PROTOCOL.md §11.3), answered by the server in the session."""
    answers: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        # In-process servers are initialized before the initialize response.
        answers.append(await cli.mcp_message("calc", INITIALIZE))
        await cli.handshake()
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        answers.append(await cli.mcp_message("calc", initialized))
        answers.append(
            await cli.mcp_message("calc", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        )
        answers.append(await cli.mcp_message("calc", tools_call(2, "add", {"a": 2, "b": 3})))
        answers.append(await cli.mcp_message("calc", tools_call(3, "divide", {"a": 1, "b": 0})))
        answers.append(await cli.mcp_message("calc", tools_call(4, "divide", {"a": 3, "b": 2})))
        answers.append(await cli.mcp_message("calc", tools_call(5, "add", {"a": "2"})))
        answers.append(await cli.mcp_message("calc", tools_call(6, "sub", {})))

    fake = FakeCLI(script)
    options = Options(
        mcp_servers={"calc": calc()},
        shutdown_grace=0.5,
        # hang guards, not measures (the in-process server starts with the mcp import)
        control_timeout=30.0,
        initialize_timeout=30.0,
    )
    async with open_session(options, transport=fake):
        await fake.cli.script_done.wait()
    fake.check()
    (flag,) = [a for a in fake.cli.spec.argv if a.startswith("--mcp-config=")]
    config = json.loads(flag.removeprefix("--mcp-config="))
    assert config == {"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}}

    responses = [a["mcp_response"] for a in answers]
    initialize, initialized, listed, added, raised, divided, invalid, unknown = responses
    assert initialize["id"] == 0
    assert initialize["result"]["protocolVersion"] == "2025-11-25"
    assert initialize["result"]["serverInfo"]["name"] == "calc"
    assert initialize["result"]["serverInfo"]["version"] == "1.0.0"
    # the server can notify (SdkMcpServer.notify_tools_changed), so it says so
    assert initialize["result"]["capabilities"]["tools"] == {"listChanged": True}
    assert initialize["result"]["instructions"] == "Arithmetic."
    assert initialized == {"jsonrpc": "2.0", "result": {}}
    assert listed == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "tools": [
                {
                    "name": "add",
                    "description": "Add two numbers",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                        "required": ["a", "b"],
                        "additionalProperties": False,
                    },
                },
                {
                    "name": "divide",
                    "description": "Divide a by b.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                        "required": ["a", "b"],
                        "additionalProperties": False,
                    },
                    "outputSchema": {
                        "type": "object",
                        "properties": {
                            "value": {"type": "number"},
                            "unit": {"type": "string", "default": "m"},
                        },
                        "required": ["value"],
                        "additionalProperties": False,
                    },
                },
            ]
        },
    }
    assert added == {"jsonrpc": "2.0", "id": 2, "result": ok(text("5"))}
    assert raised == {
        "jsonrpc": "2.0",
        "id": 3,
        "result": error("ZeroDivisionError: float division by zero"),
    }
    assert divided == {
        "jsonrpc": "2.0",
        "id": 4,
        "result": ok(
            text('{"value": 1.5, "unit": ""}'), structuredContent={"value": 1.5, "unit": ""}
        ),
    }
    assert invalid == {
        "jsonrpc": "2.0",
        "id": 5,
        "result": error(
            "Invalid arguments for tool 'add':\n"
            '- a: expected integer, got string "2"\n'
            "- missing required argument 'b'"
        ),
    }
    assert unknown == {
        "jsonrpc": "2.0",
        "id": 6,
        "result": error("unknown tool 'sub' (this server has: add, divide)"),
    }


async def test_the_tool_use_id_reaches_the_handler_through_the_bridge() -> None:
    seen: list[ToolContext] = []

    @tool
    async def whoami(ctx: ToolContext) -> str:
        seen.append(ctx)
        return ctx.tool_use_id or "?"

    answers: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.mcp_message("ids", INITIALIZE)
        await cli.handshake()
        answers.append(await cli.mcp_message("ids", tools_call(9, "whoami", {})))

    fake = FakeCLI(script)
    server = create_sdk_mcp_server("ids", tools=[whoami])
    async with open_session(Options(mcp_servers={"ids": server}), transport=fake):
        await fake.cli.script_done.wait()
    assert answers[0]["mcp_response"]["result"] == ok(text("toolu_9"))
    assert seen[0].meta == {"claudecode/toolUseId": "toolu_9", "progressToken": 9}


def test_to_mcp_server_builds_a_low_level_server() -> None:
    from mcp.server import Server

    server = calc().to_mcp_server()
    assert isinstance(server, Server)
    assert server.name == "calc"
    assert server.version == "1.0.0"


# --------------------------------------------------------------------------------------
# Import time


def imported_modules(code: str) -> Sequence[str]:
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line for line in run.stderr.splitlines() if line.startswith("import time:")]
    assert lines, run.stderr
    return [line.rsplit("|", 1)[-1].strip() for line in lines]


@pytest.mark.parametrize("code", ["import claude_sdk", "import claude_sdk.tools"])
def test_importing_the_sdk_does_not_import_mcp(code: str) -> None:
    modules = imported_modules(code)
    assert "claude_sdk" in modules
    leaked = [m for m in modules if m == "mcp" or m.startswith(("mcp.", "mcp_types", "pydantic"))]
    assert leaked == []


# --------------------------------------------------------------------------------------
# Changing tools, timeouts, cancellations (the session side: tests/test_mcp_notifications.py)


async def test_add_and_remove_tools_without_a_session() -> None:
    server = calc()
    assert server.call_timeout is None

    @tool
    async def sub(a: int, b: int) -> str:
        """Subtract b from a."""
        return str(a - b)

    assert await server.add_tool(sub) is sub
    assert [t.name for t in server.tools] == ["add", "divide", "sub"]
    with pytest.raises(ValueError, match="server 'calc' already has a tool 'sub'"):
        await server.add_tool(sub)

    def square(x: int) -> int:
        """Square x."""
        return x * x

    made = await server.add_tool(square)  # a plain function is made a tool
    assert made.name == "square"
    renamed = tool(name="add")(square)
    assert await server.add_tool(renamed, replace=True) is renamed
    assert [t.name for t in server.tools] == ["add", "divide", "sub", "square"]
    assert server.tools[0] is renamed  # replaced in its place
    assert await server.remove_tool("sub") is sub
    with pytest.raises(KeyError, match="server 'calc' has no tool 'sub'"):
        await server.remove_tool("sub")
    with pytest.raises(TypeError, match="not a tool"):
        await server.add_tool("sub")  # type: ignore[arg-type]
    # assigning the list directly goes through the same checks
    with pytest.raises(ValueError, match="duplicate tool names: add"):
        server.tools = (add, add)
    await server.notify_tools_changed()  # no session serves it: nothing to tell


def test_timeouts_are_milliseconds_and_the_cli_gets_the_longest() -> None:
    @tool(timeout=2500)
    async def slow() -> str:
        return "ok"

    @tool(timeout=40_000)
    async def slower() -> str:
        return "ok"

    assert slow.timeout == 2500
    assert create_sdk_mcp_server("s", tools=[add]).call_timeout is None
    assert create_sdk_mcp_server("s", tools=[slow]).call_timeout == 3500
    assert create_sdk_mcp_server("s", tools=[slow, slower]).call_timeout == 41_000
    assert create_sdk_mcp_server("s", tools=[slow], timeout=60_000).call_timeout == 60_000
    assert create_sdk_mcp_server("s", tools=[slower], timeout=5000).call_timeout == 41_000
    with pytest.raises(ValueError, match="from 1000 to 2147483647"):
        create_sdk_mcp_server("s", timeout=999)  # the CLI would ignore it
    with pytest.raises(TypeError, match="in milliseconds, an int"):
        create_sdk_mcp_server("s", timeout=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="in milliseconds, an int"):
        tool(timeout=True)(add.handler)
    with pytest.raises(ValueError, match="from 1 to"):
        tool(timeout=0)(add.handler)


async def test_a_tool_past_its_own_timeout_is_an_explained_error() -> None:
    @tool(timeout=20)
    async def forever() -> str:
        """Never return."""
        await anyio.sleep_forever()
        return "never"

    release = threading.Event()
    try:

        @tool(timeout=20)
        def blocked() -> str:
            """Block a worker thread."""
            release.wait(10)
            return "late"

        with anyio.fail_after(30):
            assert await forever.call({}) == error(
                "tool 'forever' did not finish within its timeout of 20 ms, and was cancelled"
            )
            # a worker thread cannot be interrupted: it is abandoned, the call returns
            assert await blocked.call({}) == error(
                "tool 'blocked' did not finish within its timeout of 20 ms, and was cancelled"
            )
    finally:
        release.set()


def test_tool_cancelled_explains_itself() -> None:
    timed_out = ToolCancelled(
        server="calc",
        method="tools/call",
        tool="slow",
        tool_use_id="toolu_1",
        reason="SdkError: Request timed out",
        elapsed=2.04,
    )
    assert timed_out.timed_out
    assert str(timed_out) == (
        "the CLI cancelled tool 'slow' of in-process MCP server 'calc' (tool use toolu_1) after "
        "2.0 s: SdkError: Request timed out. The CLI's per-call timeout (MCP_TOOL_TIMEOUT, or "
        "the CLI's default) ended the call; give the server a longer one "
        "(create_sdk_mcp_server(timeout=ms), @tool(timeout=ms), or "
        '{"type": "sdk", "instance": server, "timeout": ms} in Options.mcp_servers)'
    )
    declared = attrs.evolve(timed_out, timeout=3500)
    assert "(the 3500 ms this server declared)" in str(declared)
    interrupted = ToolCancelled(server="calc", method="resources/read", reason="AbortError")
    assert not interrupted.timed_out
    assert str(interrupted) == (
        "the CLI cancelled resources/read of in-process MCP server 'calc' after 0.0 s: AbortError"
    )
    assert ToolContext(tool_name="x").cancellation is None
