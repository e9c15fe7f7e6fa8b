"""In-process tools: typed Python functions served to the CLI as an MCP server.

::

    @tool(description="Add two numbers")
    async def add(a: int, b: Annotated[int, "the second number"] = 1) -> str:
        return str(a + b)

    options = Options(mcp_servers={"calc": create_sdk_mcp_server("calc", tools=[add])})

`tool` turns a sync or async function into an `SdkTool`: its input schema comes from the
parameters' type hints (`claude_sdk._schema.json_schema`; a parameter with a default is not
required; ``Annotated[X, "text"]`` or the docstring's ``Args:`` section describes it), its
description from the docstring's first paragraph, and its output schema from a return
annotation that is a class (attrs, dataclass, TypedDict or pydantic model).
`create_sdk_mcp_server` groups tools into an `SdkMcpServer`, which the session serves over
the CLI's ``mcp_message`` requests (``SdkMcpServer.to_mcp_server`` builds the ``mcp``
low-level server on demand).

Contract of a call (`SdkTool.call`), which returns the MCP ``CallToolResult`` as a wire dict
and never raises for a failure of the tool:

* The arguments are checked against the parameter types first (JSON types, required and
  unexpected keys, enum values, nested attrs classes, dataclasses and TypedDicts; a pydantic
  model is validated by pydantic, in JSON mode) and then converted with the SDK's cattrs
  converter (attrs and dataclass instances, enums, tuples, sets; pydantic models with
  ``model_validate_json``). Any problem becomes an ``isError`` result listing every problem
  with its path (``at.x: expected integer, got string "1"``), and the handler is not called.
* A parameter annotated `ToolContext` receives the call's context (the Claude tool-use id
  from ``_meta["claudecode/toolUseId"]``); it is not part of the schema.
* Async handlers run in the session's task group; sync handlers run in a worker thread, so a
  blocking handler does not stall the session (a cancelled call abandons its thread).
* A tool's own ``timeout`` (milliseconds) ends a slow call with an ``isError`` result that
  says so. The CLI has a per-call limit of its own (`SdkMcpServer.call_timeout`); when it
  cancels a call, the handler is cancelled and the host learns why (`ToolCancelled`).
* What the handler returns becomes the result: ``str`` -> one text content; a list (or one)
  of content dicts, ``mcp`` content objects, `TextBlock` / `ImageBlock` -> that content; a
  dict or an attrs, dataclass or pydantic instance -> ``structuredContent`` plus its JSON as
  text; ``None`` -> no content; a number or bool -> its JSON as text; `ToolResult` -> exactly
  what it says.
* An exception from the handler (or a return value of another kind) becomes an ``isError``
  result whose text is the error's type and message: the model sees it. It is never a
  JSON-RPC error.

The tool list of an `SdkMcpServer` may change while sessions serve it: `SdkMcpServer.add_tool`
and `SdkMcpServer.remove_tool` tell every such session (`SdkMcpServer.notify_tools_changed`),
whose CLI lists the tools again.

Importing this module does not import ``mcp`` (about 330 ms): only
``SdkMcpServer.to_mcp_server`` does, when a session starts the server. The message models,
cattrs and AnyIO's worker threads are likewise imported by the first call that needs them.
pydantic is never imported here: a parameter is a pydantic model only if pydantic was
already loaded (by the code that defined the model).

Log records go to the ``claude_sdk.tools`` logger.
"""

from __future__ import annotations

import copy
import enum
import functools
import inspect
import json
import logging
import re
import types
import typing
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, overload

import attrs

from ._attrs import define, frozen
from ._fit import Rules, _is_typeddict, compile_check, expected
from ._schema import (
    _add_model_hooks,
    _error_lines,
    _got,
    _is_schema_class,
    _required_wrappers,
    json_schema,
)

if TYPE_CHECKING:
    # Imported where a call needs them: defining tools loads neither the event loop's
    # threads, nor cattrs, nor the message models.
    import cattrs
    from mcp.server import Server

#: The error text when the ``mcp`` package is missing.
_NEEDS_MCP = (
    "in-process MCP servers (@tool, create_sdk_mcp_server) need the mcp package, an extra: "
    "pip install 'claude-sdk-py[mcp]'"
)

__all__ = [
    "SdkMcpServer",
    "SdkTool",
    "ToolAnnotations",
    "ToolCancelled",
    "ToolContext",
    "ToolResult",
    "create_sdk_mcp_server",
    "tool",
]

logger: logging.Logger = logging.getLogger("claude_sdk.tools")

_NoneType = type(None)
_TOOL_USE_ID = "claudecode/toolUseId"
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


# ======================================================================================
# Public value classes


@frozen(kw_only=True)
class ToolCancelled:
    """The CLI gave up on a request to an in-process server and cancelled it.

    The CLI does so when a tool call outlives its per-call timeout (the server's
    ``timeout`` in its config, else ``MCP_TOOL_TIMEOUT``, else about 27.8 hours) or when the
    turn is interrupted. The model has already been told (for a timeout: ``MCP server "calc"
    tool "slow" timed out after 2s``); the handler is cancelled, and its answer would be
    dropped. ``str()`` is the explanation, with what to change.

    Attributes:
        server: the server's name in the session (its key in ``Options.mcp_servers``).
        method: the cancelled JSON-RPC method (``tools/call`` for a tool).
        tool: the tool's name, for a ``tools/call``.
        tool_use_id: the Claude tool-use id of that call, when the CLI sent one.
        reason: the CLI's reason, as sent (``"SdkError: Request timed out"``).
        elapsed: seconds from the CLI's request to its cancellation, measured in this process.
        timeout: the per-call timeout in milliseconds the server declares
            (`SdkMcpServer.call_timeout`), or None (none declared, or not an `SdkMcpServer`).
    """

    server: str
    method: str
    tool: str | None = None
    tool_use_id: str | None = None
    reason: str | None = None
    elapsed: float = 0.0
    timeout: int | None = None

    @property
    def timed_out(self) -> bool:
        """True when the CLI's reason is its per-call timeout."""
        return "timed out" in (self.reason or "").lower()

    def __str__(self) -> str:
        what = f"tool {self.tool!r}" if self.tool is not None else self.method
        use = f" (tool use {self.tool_use_id})" if self.tool_use_id else ""
        text = (
            f"the CLI cancelled {what} of in-process MCP server {self.server!r}{use} after "
            f"{self.elapsed:.1f} s: {self.reason or 'no reason given'}"
        )
        if not self.timed_out:
            return text
        if self.timeout is not None:
            limit = f"the {self.timeout} ms this server declared"
        else:
            limit = "MCP_TOOL_TIMEOUT, or the CLI's default"
        return (
            f"{text}. The CLI's per-call timeout ({limit}) ended the call; give the server "
            "a longer one (create_sdk_mcp_server(timeout=ms), @tool(timeout=ms), or "
            '{"type": "sdk", "instance": server, "timeout": ms} in Options.mcp_servers)'
        )


@define(eq=False)
class _CallState:
    """What happens to one running call after it started (shared with its `ToolContext`)."""

    cancellation: ToolCancelled | None = None


@frozen(kw_only=True)
class ToolContext:
    """What a handler may know about the call; declare a parameter of this type to get it.

    Attributes:
        tool_name: the tool's name on its server (without the ``mcp__server__`` prefix).
        tool_use_id: the Claude tool-use id (``toolu_...``) the CLI sent in
            ``_meta["claudecode/toolUseId"]``, or None when it sent none.
        meta: the request's whole ``_meta`` (for example ``progressToken``).
    """

    tool_name: str
    tool_use_id: str | None = None
    meta: Mapping[str, Any] = attrs.field(factory=dict)
    _state: _CallState = attrs.field(factory=_CallState, init=False, repr=False, eq=False)

    @property
    def cancellation(self) -> ToolCancelled | None:
        """Why the CLI cancelled this call, once it has (read it where the handler catches
        the cancellation, ``except anyio.get_cancelled_exc_class():``); else None."""
        return self._state.cancellation


@frozen(kw_only=True)
class ToolResult:
    """A tool's result with full control over the MCP ``CallToolResult``.

    Attributes:
        content: a string (one text content), one content item or a sequence of them
            (content dicts, ``mcp`` content objects, `TextBlock`, `ImageBlock`, strings).
            None: the JSON of ``structured`` as text when there is one, else no content.
        structured: ``structuredContent``: a dict, or an attrs, dataclass or pydantic
            instance (unstructured with the SDK's converter; pydantic's ``model_dump`` in JSON
            mode, by alias); it must be a JSON object.
        is_error: ``isError``: the model is told the tool failed.
        meta: the result's ``_meta``.
    """

    content: Any = None
    structured: Any = None
    is_error: bool = False
    meta: Mapping[str, Any] | None = None


@frozen(kw_only=True)
class ToolAnnotations:
    """MCP tool annotations (hints for the client; the CLI shows and uses some of them)."""

    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    def to_wire(self) -> dict[str, Any]:
        """The MCP ``annotations`` dict (``readOnlyHint``, ...), without unset hints."""
        pairs = {
            "title": self.title,
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }
        return {k: v for k, v in pairs.items() if v is not None}


# ======================================================================================
# SdkTool


@frozen(kw_only=True, eq=False)
class SdkTool:
    """One in-process tool (made by `tool`).

    Attributes:
        name: the tool's name on its server; the model sees ``mcp__<server>__<name>``.
        description: what the model is told the tool does.
        input_schema: the JSON Schema of the arguments.
        handler: the decorated function, unchanged (call it directly in your own tests).
        output_schema: the JSON Schema of ``structuredContent``, when the function's return
            annotation is an attrs class, a dataclass, a TypedDict or a pydantic model.
        annotations: MCP tool annotations (wire form).
        meta: the tool's ``_meta`` (``anthropic/searchHint``, ``anthropic/alwaysLoad``,
            ``anthropic/maxResultSizeChars``, ...).
        timeout: milliseconds the handler may run; past it the call is cancelled and the
            model gets an ``isError`` result saying so. None: no limit of its own (the CLI's
            per-call timeout of the server still applies, see `SdkMcpServer.call_timeout`).

    An `SdkTool` built directly, without `tool`, calls ``handler(arguments)`` with the
    arguments dict as the CLI sent it (no checks; ``input_schema`` is yours to write).
    """

    name: str
    description: str | None = None
    input_schema: dict[str, Any] = attrs.field(factory=lambda: {"type": "object"})
    handler: Callable[..., Any]
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    timeout: int | None = attrs.field(default=None, validator=lambda i, a, v: _check_ms(a, v))
    _plan: _Plan | None = attrs.field(default=None, alias="plan", repr=False)
    #: A dict-taking handler (`tool` with ``input_schema``): arguments checked against
    #: ``input_schema``, and an official ``{"content": [...], "is_error": ...}`` result.
    _checked: bool = attrs.field(default=False, alias="checked", repr=False)

    def definition(self) -> dict[str, Any]:
        """This tool's entry in a ``tools/list`` result (MCP wire form)."""
        out: dict[str, Any] = {"name": self.name, "inputSchema": self.input_schema}
        if self.description is not None:
            out["description"] = self.description
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema
        if self.annotations:
            out["annotations"] = self.annotations
        if self.meta:
            out["_meta"] = self.meta
        return out

    async def call(
        self, arguments: Mapping[str, Any] | None = None, *, meta: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run the tool on JSON arguments; the MCP ``CallToolResult`` as a wire dict.

        Args:
            arguments: the ``tools/call`` arguments.
            meta: the request's ``_meta`` (carries the tool-use id).

        Returns:
            ``{"content": [...], "isError": bool}`` plus ``structuredContent`` and ``_meta``
            when there are any. Failures (bad arguments, an exception in the handler, a
            return value of an unsupported kind, the tool's own ``timeout``) are ``isError``
            results. Cancellation from outside (the CLI's timeout, the session ending) is
            not a failure: it propagates.
        """
        return await self._run(arguments, self._context(meta))

    def _context(self, meta: Mapping[str, Any] | None) -> ToolContext:
        meta = dict(meta or {})
        tool_use_id = meta.get(_TOOL_USE_ID)
        return ToolContext(
            tool_name=self.name,
            tool_use_id=tool_use_id if isinstance(tool_use_id, str) else None,
            meta=meta,
        )

    async def _run(
        self, arguments: Mapping[str, Any] | None, context: ToolContext
    ) -> dict[str, Any]:
        args = dict(arguments or {})
        try:
            if self._checked:
                from ._structured import validate

                problems = validate(args, self.input_schema)
                if problems:
                    return _error_result(
                        f"Invalid arguments for tool {self.name!r}:\n"
                        + "\n".join(f"- {problem}" for problem in problems)
                    )
            if self._plan is None:
                call: tuple[bool, list[Any], dict[str, Any]] = (
                    _is_async(self.handler),
                    [args],
                    {},
                )
            else:
                bound = self._plan.bind(args, context)
                if isinstance(bound, list):
                    return _error_result(
                        f"Invalid arguments for tool {self.name!r}:\n"
                        + "\n".join(f"- {problem}" for problem in bound)
                    )
                call = (self._plan.is_async, *bound)
            if self.timeout is None:
                value = await _invoke(self.handler, *call)
            else:
                import anyio

                value = _TIMED_OUT
                with anyio.move_on_after(self.timeout / 1000):
                    value = await _invoke(self.handler, *call)
                if value is _TIMED_OUT:
                    logger.warning("tool %r ran past its timeout of %d ms", self.name, self.timeout)
                    return _error_result(
                        f"tool {self.name!r} did not finish within its timeout of "
                        f"{self.timeout} ms, and was cancelled"
                    )
        except Exception as exc:  # the model is told; the session goes on
            logger.warning(
                "tool %r raised %r: the model got it as the tool's error result and the "
                "session goes on. Fix the tool; to report a failure on purpose, return "
                "claude_sdk.ToolResult(content='what went wrong', is_error=True)",
                self.name,
                exc,
                exc_info=True,
            )
            return _error_result(_describe(exc))
        try:
            if self._checked and _is_official_result(value):
                return _official_result(value)
            return _result(value)
        except (TypeError, ValueError) as exc:
            logger.warning("tool %r returned an unsupported value: %s", self.name, exc)
            return _error_result(f"tool {self.name!r} returned an unsupported value: {exc}")


#: What a timed-out call "returned" (no handler returns this object).
_TIMED_OUT: Any = object()
#: The largest timeout the CLI takes (a 32-bit signed millisecond count).
_MAX_MS = 2_147_483_647


def _check_ms(attribute: attrs.Attribute[Any], value: int | None, minimum: int = 1) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{attribute.name} is in milliseconds, an int (got {value!r})")
    if not minimum <= value <= _MAX_MS:
        raise ValueError(
            f"{attribute.name} is in milliseconds, from {minimum} to {_MAX_MS} (got {value})"
        )


# ======================================================================================
# @tool


@overload
def tool(name: Callable[..., Any], /) -> SdkTool: ...
@overload
def tool(
    name: str | None = None,
    description: str | None = None,
    input_schema: Mapping[str, Any] | type | None = None,
    *,
    annotations: ToolAnnotations | Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    timeout: int | None = None,
) -> Callable[[Callable[..., Any]], SdkTool]: ...
def tool(
    name: str | Callable[..., Any] | None = None,
    description: str | None = None,
    input_schema: Mapping[str, Any] | type | None = None,
    *,
    annotations: ToolAnnotations | Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    timeout: int | None = None,
) -> SdkTool | Callable[[Callable[..., Any]], SdkTool]:
    """Make an in-process tool of a function (``@tool`` or ``@tool(...)``).

    Each parameter's type hint gives its JSON Schema (see `claude_sdk._schema.json_schema`):
    JSON types, enums and ``Literal``, containers, attrs classes, dataclasses, TypedDicts and
    pydantic v2 models, nested in one another. The model's arguments are checked against
    them and converted to those types before the function runs; arguments that do not fit
    are an ``isError`` result naming every bad field, and the function is not called.

    The form of ``claude-agent-sdk`` works too: ``@tool("add", "Add two numbers",
    {"a": float, "b": float})`` over ``async def add(args): ...``. With ``input_schema``
    the function takes the arguments as one dict, and the schema is that mapping of names
    to types (each required), a JSON Schema (a dict with ``"type"``), or a class with a
    schema (a TypedDict, an attrs class, a dataclass, a pydantic model); arguments that do
    not fit it are an ``isError`` result, and the function is not called. It may return
    what a typed tool returns, or the official form, a dict with ``"content"`` (a list of
    MCP content dicts) and ``"is_error"``.

    Args:
        name: the tool's name (default: the function's ``__name__``); letters, digits,
            ``_`` and ``-``, at most 64.
        description: what the tool does (default: the docstring's first paragraph).
        input_schema: the arguments' schema, for a function that takes them as one dict
            (the official SDK's form; see above). None: read from the function's
            parameters.
        annotations: MCP tool annotations: a `ToolAnnotations` or the wire dict
            (``{"readOnlyHint": True}``).
        meta: the tool's ``_meta``, for example ``{"anthropic/alwaysLoad": True}`` (never
            defer it behind ToolSearch), ``{"anthropic/searchHint": "..."}``,
            ``{"anthropic/maxResultSizeChars": 100_000}``.
        timeout: milliseconds the function may run (see `SdkTool.timeout`). The server
            tells the CLI a per-call timeout one second longer than its longest tool
            timeout, so this limit, with its explained error, ends a slow call first.

    Raises:
        TypeError: a parameter has no type annotation or a type without a JSON Schema, or
            the function takes ``*args``; ``timeout`` is not an int.
        ValueError: the name is not a valid tool name; ``timeout`` is out of range.
    """
    if callable(name):
        if description is not None or input_schema is not None:
            raise TypeError(
                "tool() takes the function alone (@tool) or, to configure it, the name "
                "first: @tool('name', 'description', {'arg': type}) or "
                "@tool(description=...)"
            )
        return _make_tool(name, None, description, annotations, meta, timeout)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"tool(): the name is a str, not {type(name).__name__}")
    if description is not None and not isinstance(description, str):
        raise TypeError(
            f"tool(): the description is a str, not {type(description).__name__} (the "
            "official form is @tool('name', 'description', {'arg': type}))"
        )
    tool_name = name
    schema = None if input_schema is None else _given_schema(input_schema)

    def decorate(fn: Callable[..., Any]) -> SdkTool:
        if not callable(fn):
            raise TypeError(f"@tool(...) decorates a function, not {type(fn).__name__}")
        if schema is None:
            return _make_tool(fn, tool_name, description, annotations, meta, timeout)
        return _dict_tool(fn, tool_name, description, schema, annotations, meta, timeout)

    return decorate


def _given_schema(value: Mapping[str, Any] | type) -> dict[str, Any]:
    """The JSON Schema of an ``input_schema`` given to `tool` (the official SDK's forms)."""
    if isinstance(value, type):
        try:
            schema = json_schema(value)
        except TypeError as exc:
            raise TypeError(f"tool(): input_schema {value.__name__}: {exc}") from None
        if schema.get("type") != "object":
            raise TypeError(
                f"tool(): input_schema {value.__name__} is not an object type (use a "
                "TypedDict, an attrs class, a dataclass or a pydantic model)"
            )
        return schema
    if not isinstance(value, Mapping):
        raise TypeError(
            "tool(): input_schema is a dict of argument names to types ({'city': str}), a "
            f"JSON Schema dict, or a TypedDict class; not {type(value).__name__}"
        )
    if isinstance(value.get("type"), str) and all(isinstance(k, str) for k in value):
        return copy.deepcopy(dict(value))  # a JSON Schema (the official SDK passes it on)
    properties: dict[str, Any] = {}
    for key, tp in value.items():
        if not isinstance(key, str):
            raise TypeError(f"tool(): input_schema keys are argument names, not {key!r}")
        try:
            properties[key] = json_schema(tp)
        except TypeError as exc:
            raise TypeError(f"tool(): input_schema[{key!r}]: {exc}") from None
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
    }


def _tool_name(fn: Callable[..., Any], name: str | None) -> str:
    """The name of the tool made of ``fn``: ``name``, else the function's; checked."""
    if isinstance(fn, SdkTool):
        raise TypeError(f"{fn.name!r} is already a tool")
    found = name if name is not None else getattr(fn, "__name__", None)
    if not isinstance(found, str) or not _NAME.match(found):
        raise ValueError(
            f"invalid tool name {found!r}: use 1 to 64 letters, digits, '_' or '-' (pass name=)"
        )
    return found


def _dict_tool(
    fn: Callable[..., Any],
    name: str | None,
    description: str | None,
    schema: dict[str, Any],
    annotations: ToolAnnotations | Mapping[str, Any] | None,
    meta: Mapping[str, Any] | None,
    timeout: int | None,
) -> SdkTool:
    """A tool whose function takes the arguments as one dict (`tool` with input_schema)."""
    name = _tool_name(fn, name)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        params = None
    if params is not None:
        positional = [
            p
            for p in params
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
        takes_more = any(p.kind is p.VAR_POSITIONAL for p in params)
        if len(positional) != 1 and not (takes_more and not positional):
            raise TypeError(
                f"tool {name!r}: with input_schema the function takes the arguments as one "
                f"dict, `async def {name}(args): ...` (it takes {len(positional)} required "
                "arguments); without input_schema, typed parameters give the schema"
            )
    summary, _ = _parse_docstring(inspect.getdoc(fn))
    return SdkTool(
        name=name,
        description=description if description is not None else summary,
        input_schema=schema,
        handler=fn,
        annotations=_annotations(annotations),
        meta=dict(meta) if meta else None,
        timeout=timeout,
        checked=True,
    )


def _make_tool(
    fn: Callable[..., Any],
    name: str | None,
    description: str | None,
    annotations: ToolAnnotations | Mapping[str, Any] | None,
    meta: Mapping[str, Any] | None,
    timeout: int | None = None,
) -> SdkTool:
    name = _tool_name(fn, name)
    summary, arg_docs = _parse_docstring(inspect.getdoc(fn))
    plan, input_schema, output_schema = _analyse(fn, name, arg_docs)
    return SdkTool(
        name=name,
        description=description if description is not None else summary,
        input_schema=input_schema,
        handler=fn,
        output_schema=output_schema,
        annotations=_annotations(annotations),
        meta=dict(meta) if meta else None,
        timeout=timeout,
        plan=plan,
    )


def _annotations(value: ToolAnnotations | Mapping[str, Any] | None) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, ToolAnnotations):
        return value.to_wire()
    return dict(value)


# --------------------------------------------------------------------------------------
# Reading the function


@frozen
class _Param:
    name: str
    tp: Any
    kind: inspect._ParameterKind
    default: Any  # inspect.Parameter.empty when the argument is required
    is_context: bool = False


@frozen
class _Plan:
    """How JSON arguments become a call of the handler."""

    params: tuple[_Param, ...]  # in signature order, the ToolContext parameter included
    extra: Any  # the value type of ``**kwargs``; None when the function has none
    is_async: bool

    def bind(
        self, args: dict[str, Any], context: ToolContext
    ) -> list[str] | tuple[list[Any], dict[str, Any]]:
        """The handler's positional and keyword arguments, or the list of problems."""
        problems: list[str] = []
        values: dict[str, Any] = {}
        for param in self.params:
            if param.is_context:
                continue
            if param.name in args:
                values[param.name] = _checked(args[param.name], param.tp, param.name, problems)
            elif param.default is inspect.Parameter.empty:
                problems.append(f"missing required argument {param.name!r}")
        known = {p.name for p in self.params if not p.is_context}
        extra: dict[str, Any] = {}
        for key, given in args.items():
            if key in known:
                continue
            if self.extra is None:
                problems.append(f"unexpected argument {key!r}")
            else:
                extra[key] = _checked(given, self.extra, key, problems)
        if problems:
            return problems
        positional: list[Any] = []
        keywords: dict[str, Any] = {}
        for param in self.params:
            if param.is_context:
                value: Any = context
            elif param.name in values:
                value = values[param.name]
            elif param.kind is inspect.Parameter.POSITIONAL_ONLY:
                value = param.default  # a later positional-only argument may follow
            else:
                continue
            if param.kind is inspect.Parameter.POSITIONAL_ONLY:
                positional.append(value)
            else:
                keywords[param.name] = value
        keywords.update(extra)
        return positional, keywords


async def _invoke(
    handler: Callable[..., Any], is_async: bool, positional: list[Any], keywords: dict[str, Any]
) -> Any:
    """Call the handler: in the event loop when async, else in a worker thread.

    A worker thread cannot be interrupted: when the call is cancelled (a timeout, the session
    ending) it is abandoned, so the cancellation is not held up; its result is dropped.
    """
    if is_async:
        return await handler(*positional, **keywords)
    import anyio.to_thread

    value = await anyio.to_thread.run_sync(
        functools.partial(handler, *positional, **keywords), abandon_on_cancel=True
    )
    if inspect.isawaitable(value):  # a sync callable that returned an awaitable
        value = await value
    return value


def _is_async(fn: Callable[..., Any]) -> bool:
    call = getattr(fn, "__call__", None)  # noqa: B004 - an async __call__, not callability
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


def _analyse(
    fn: Callable[..., Any], name: str, arg_docs: Mapping[str, str]
) -> tuple[_Plan, dict[str, Any], dict[str, Any] | None]:
    """The call plan, the input schema and the output schema of ``fn``."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"tool {name!r}: cannot read the signature of {fn!r}") from exc
    if isinstance(fn, functools.partial):
        target: Any = fn.func
    elif inspect.isfunction(fn) or inspect.ismethod(fn):
        target = fn
    else:  # a callable object
        target = type(fn).__call__
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception as exc:  # a forward reference that does not resolve
        raise TypeError(f"tool {name!r}: cannot resolve the annotations: {exc}") from exc
    params: list[_Param] = []
    extra: Any = None
    for p in signature.parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            raise TypeError(f"tool {name!r}: *{p.name} cannot take JSON arguments")
        tp = hints.get(p.name, inspect.Parameter.empty)
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            extra = Any if tp is inspect.Parameter.empty else tp
            continue
        if tp is inspect.Parameter.empty:
            raise TypeError(
                f"tool {name!r}: parameter {p.name!r} has no type annotation "
                "(annotate it; Any accepts anything)"
            )
        bare = _strip(tp)
        is_context = bare is ToolContext or (
            typing.get_origin(bare) in (typing.Union, types.UnionType)
            and ToolContext in typing.get_args(bare)
        )
        params.append(_Param(p.name, tp, p.kind, p.default, is_context=is_context))
    plan = _Plan(params=tuple(params), extra=extra, is_async=_is_async(fn))
    return plan, _input_schema(name, plan, arg_docs), _output_schema(name, hints.get("return"))


def _input_schema(name: str, plan: _Plan, arg_docs: Mapping[str, str]) -> dict[str, Any]:
    # One TypedDict of all the parameters, so that json_schema puts the classes that refer
    # to themselves in the root's $defs (a schema per parameter would get "#" wrong).
    import typing_extensions  # when a tool is made, not in every program's import

    fields: dict[str, Any] = {}
    for p in plan.params:
        if p.is_context:
            continue
        required = p.default is inspect.Parameter.empty
        wrapper = typing_extensions.Required if required else typing_extensions.NotRequired
        fields[p.name] = wrapper[p.tp]
    make_typeddict: Any = typing_extensions.TypedDict
    try:
        schema = json_schema(make_typeddict(f"{name}_arguments", fields))
    except TypeError as exc:
        raise TypeError(f"tool {name!r}: {exc}") from exc
    schema.pop("description", None)
    properties: dict[str, Any] = schema["properties"]
    for p in plan.params:
        prop = properties.get(p.name)
        if prop is None:
            continue
        doc = arg_docs.get(p.name)
        if doc and "description" not in prop:
            prop["description"] = doc
        default = p.default.value if isinstance(p.default, enum.Enum) else p.default
        if default is not inspect.Parameter.empty and isinstance(
            default, (str, int, float, bool, _NoneType)
        ):
            prop["default"] = default
    if plan.extra is not None:
        if plan.extra is Any:
            del schema["additionalProperties"]
        else:
            values = json_schema(plan.extra)
            if "$defs" in values:
                raise TypeError(f"tool {name!r}: **kwargs of a recursive type is not supported")
            schema["additionalProperties"] = values
    return schema


def _output_schema(name: str, tp: Any) -> dict[str, Any] | None:
    tp = _strip(tp)
    if _is_schema_class(tp):
        try:
            return json_schema(tp)
        except TypeError as exc:
            raise TypeError(f"tool {name!r}: return type: {exc}") from exc
    return None


def _strip(tp: Any) -> Any:
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Returns?|Yields?|Raises|Examples?"
    r"|Notes?|Attributes|See Also|Warnings?|Todo):\s*$"
)
_ARG_ENTRY = re.compile(r"^\**(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _parse_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """The first paragraph (lines joined) and the ``Args:`` entries of a Google docstring."""
    if not doc:
        return None, {}
    lines = doc.splitlines()
    first: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line.strip()):
            break
        first.append(line.strip())
    args: dict[str, str] = {}
    in_args = False
    current: str | None = None
    entry_indent = 0
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            header = _SECTION.match(stripped)
            in_args = header is not None and header.group(1) in (
                "Args",
                "Arguments",
                "Parameters",
                "Params",
                "Keyword Args",
            )
            current = None
            continue
        if not in_args:
            continue
        entry = _ARG_ENTRY.match(stripped)
        if entry is not None and (current is None or indent <= entry_indent):
            current, entry_indent = entry.group(1), indent
            args[current] = entry.group(2).strip()
        elif current is not None and indent > entry_indent:
            args[current] = f"{args[current]} {stripped}".strip()
    return (" ".join(first) or None), args


# --------------------------------------------------------------------------------------
# Checking and converting arguments


def _checked(value: Any, tp: Any, path: str, problems: list[str]) -> Any:
    """``value`` converted to ``tp``; a problem is added instead when it does not fit."""
    found: list[str] = []
    _check(value, tp, path, found)
    if found:
        problems.extend(found)
        return value
    if _strip(tp) in (Any, object):
        return value
    try:
        return _converter().structure(value, tp)
    except Exception as exc:  # the converter's (or pydantic's) own view of a misfit
        problems.extend(_error_lines(exc, path))
        return value


@functools.cache
def _converter() -> cattrs.Converter:
    """The SDK's converter, plus unions decided by `_check` (cattrs has no default for
    ``int | str``) and pydantic classes."""
    from ._protocol.codec import default_codec

    conv = default_codec().converter.copy()

    def structure_union(value: Any, tp: Any) -> Any:
        for member in typing.get_args(tp):
            if _problems(value, member):
                continue
            if value is None or _strip(member) in (Any, object):
                return value
            return conv.structure(value, member)
        raise ValueError(f"{_got(value)} is not {_expected(tp)}")

    def structure_typeddict(value: Any, tp: Any) -> Any:
        # Keys were checked by `_check`, which reads NotRequired even from postponed
        # annotations (cattrs trusts ``__required_keys__``, which cannot).
        hints = _class_hints(tp)
        return {key: conv.structure(item, _unwrap(hints[key])) for key, item in value.items()}

    conv.register_structure_hook_func(_is_plain_union, structure_union)
    conv.register_structure_hook_func(_is_plain_typeddict, structure_typeddict)
    _add_model_hooks(conv)
    return conv


def _is_plain_typeddict(tp: Any) -> bool:
    return _is_typeddict(tp) and not _is_sdk_class(tp)


def _unwrap(tp: Any) -> Any:
    """``tp`` without ``Required`` / ``NotRequired`` / ``ReadOnly``."""
    while typing.get_origin(tp) in _required_wrappers():
        tp = typing.get_args(tp)[0]
    return tp


def _is_plain_union(tp: Any) -> bool:
    if typing.get_origin(tp) not in (typing.Union, types.UnionType):
        return False
    return not any(_is_sdk_class(_strip(a)) for a in typing.get_args(tp))


def _is_sdk_class(tp: Any) -> bool:
    """A class of this SDK: its wire names are the codec's business, not `_check`'s."""
    return isinstance(tp, type) and getattr(tp, "__module__", "").startswith("claude_sdk")


def _problems(value: Any, tp: Any) -> list[str]:
    found: list[str] = []
    _check(value, tp, "$", found)
    return found


#: How ``@tool`` arguments are judged (the one checker, `claude_sdk._fit`): a value outside
#: a ``Literal`` does not fit, a key the class does not declare is a problem, ``2.0`` is an
#: integer (JSON has one number type), and the SDK's own classes are the codec's business.
_ARGUMENTS = Rules(unexpected_keys=True, integral_floats=True, skip=lambda tp: _is_sdk_class(tp))


def _check(value: Any, tp: Any, path: str, out: list[str]) -> None:
    """Append to ``out`` what keeps the JSON ``value`` from being a ``tp``."""
    out.extend(compile_check(tp, _ARGUMENTS).problems(value, path))


def _expected(tp: Any) -> str:
    return expected(tp, _ARGUMENTS)


@functools.cache
def _class_hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


# --------------------------------------------------------------------------------------
# Results


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _error_result(text: str) -> dict[str, Any]:
    return {"content": [_text(text)], "isError": True}


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _result(value: Any) -> dict[str, Any]:
    """The ``CallToolResult`` dict for what a handler returned (see the module docstring)."""
    if isinstance(value, ToolResult):
        return _full_result(value)
    if value is None:
        return {"content": [], "isError": False}
    if isinstance(value, str):
        return {"content": [_text(value)], "isError": False}
    if _is_content(value):
        return {"content": [_content(value)], "isError": False}
    if isinstance(value, Mapping) or _is_schema_class(type(value)):
        structured = _structured(value)
        return {
            "content": [_text(_json(structured))],
            "structuredContent": structured,
            "isError": False,
        }
    if isinstance(value, (bool, int, float)):
        return {"content": [_text(_json(value))], "isError": False}
    if isinstance(value, (list, tuple)):
        return {"content": [_content(item) for item in value], "isError": False}
    raise TypeError(
        f"{type(value).__name__} is not a tool result (return str, content, a dict, an attrs, "
        "dataclass or pydantic instance, or ToolResult)"
    )


def _is_official_result(value: Any) -> bool:
    """A handler's return in the official SDK's form: ``{"content": [...], ...}``."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("content"), list)
        and set(value) <= {"content", "is_error", "isError", "structuredContent", "_meta"}
    )


def _official_result(value: Mapping[str, Any]) -> dict[str, Any]:
    """The ``CallToolResult`` of an official-form return (content dicts kept as given)."""
    content = [item if isinstance(item, Mapping) else _content(item) for item in value["content"]]
    for item in content:
        if not isinstance(item.get("type"), str):
            raise TypeError(f"a content item needs a 'type': {item!r}")
    error = value.get("is_error", value.get("isError", False))
    out: dict[str, Any] = {"content": [dict(item) for item in content], "isError": bool(error)}
    if value.get("structuredContent") is not None:
        out["structuredContent"] = value["structuredContent"]
    if value.get("_meta"):
        out["_meta"] = dict(value["_meta"])
    return out


def _full_result(result: ToolResult) -> dict[str, Any]:
    structured = None if result.structured is None else _structured(result.structured)
    if result.content is None:
        content = [] if structured is None else [_text(_json(structured))]
    elif isinstance(result.content, str) or _is_content(result.content):
        content = [_content(result.content)]
    elif isinstance(result.content, Iterable):
        content = [_content(item) for item in result.content]
    else:
        raise TypeError(f"ToolResult.content: {type(result.content).__name__} is not content")
    out: dict[str, Any] = {"content": content, "isError": result.is_error}
    if structured is not None:
        _json(structured)
        out["structuredContent"] = structured
    if result.meta:
        out["_meta"] = dict(result.meta)
    return out


def _is_content(value: Any) -> bool:
    from .messages import ImageBlock, TextBlock

    if isinstance(value, (TextBlock, ImageBlock)):
        return True
    return _is_mcp_object(value)


def _is_mcp_object(value: Any) -> bool:
    """An ``mcp`` content object (a pydantic model of the ``mcp`` packages); another
    pydantic model is data."""
    module = type(value).__module__.partition(".")[0]
    return module in ("mcp", "mcp_types") and callable(getattr(value, "model_dump", None))


def _content(item: Any) -> dict[str, Any]:
    """One MCP content dict."""
    if isinstance(item, str):
        return _text(item)
    from .messages import ImageBlock, TextBlock

    if isinstance(item, TextBlock):
        return _text(item.text)
    if isinstance(item, ImageBlock):
        source = item.source
        if source.get("type") != "base64":
            raise TypeError("an ImageBlock needs a base64 source to be MCP image content")
        return {"type": "image", "data": source["data"], "mimeType": source["media_type"]}
    if isinstance(item, Mapping):
        if not isinstance(item.get("type"), str):
            raise TypeError(
                "a content dict needs a 'type' ('text', 'image', ...); return a dict or "
                "ToolResult(structured=...) for data"
            )
        return dict(item)
    dump = getattr(item, "model_dump", None)  # an mcp content object
    if callable(dump):
        dumped = dump(by_alias=True, mode="json", exclude_none=True)
        if isinstance(dumped, dict) and isinstance(dumped.get("type"), str):
            return dumped
        raise TypeError(f"{type(item).__name__} is not MCP content (it has no 'type')")
    raise TypeError(f"{type(item).__name__} is not tool content")


def _structured(value: Any) -> dict[str, Any]:
    data = _converter().unstructure(value)
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise TypeError(f"structured content must be a JSON object, not {type(value).__name__}")
    return data


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


# ======================================================================================
# Servers


def _tools(value: Iterable[SdkTool | Callable[..., Any]]) -> tuple[SdkTool, ...]:
    if isinstance(typing.cast("object", value), (str, bytes)):
        raise TypeError("tools must be an iterable of tools, not a string")
    out: list[SdkTool] = []
    for item in value:
        if isinstance(item, SdkTool):
            out.append(item)
        elif callable(item):
            out.append(tool(item))
        else:
            raise TypeError(f"{item!r} is not a tool (decorate a function with @tool)")
    names = [t.name for t in out]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate tool names: {', '.join(duplicates)}")
    return tuple(out)


#: How a session serving a server sends one of its messages to the CLI (given by the bridge).
_Relay = Callable[[dict[str, Any]], Awaitable[None]]

_TOOLS_CHANGED: Mapping[str, Any] = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


def _server_timeout(instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
    _check_ms(attribute, value, minimum=1000)  # the CLI ignores a shorter one


@define(kw_only=True, eq=False)
class SdkMcpServer:
    """An in-process MCP server of `SdkTool` s (made by `create_sdk_mcp_server`).

    Put it in ``Options.mcp_servers``; each session serves it while it runs (one object may
    serve several sessions at once). Plain functions in ``tools`` are made tools with `tool`.

    The tool list may change while sessions run: `add_tool` and `remove_tool` change it and
    tell every session serving the server (`notify_tools_changed`); the CLI lists the tools
    again and the model sees the new list from its next request on. Assigning ``tools``
    changes the list without telling anyone: call `notify_tools_changed` after it.

    Attributes:
        name: ``serverInfo.name``.
        version: ``serverInfo.version``.
        tools: the tools, in ``tools/list`` order.
        instructions: the server's instructions for the model.
        timeout: the CLI's per-call timeout for this server, in milliseconds (at least
            1000); see `call_timeout`.
        on_cancel: called with a `ToolCancelled` when the CLI cancels a call to this server
            (its timeout, an interrupt), before the handler is cancelled; a coroutine
            function is awaited. Whatever it does, a warning is logged.
    """

    name: str
    version: str = "1.0.0"
    tools: tuple[SdkTool, ...] = attrs.field(default=(), converter=_tools)
    instructions: str | None = None
    timeout: int | None = attrs.field(default=None, validator=_server_timeout)
    on_cancel: Callable[[ToolCancelled], object] | None = None
    _relays: list[_Relay] = attrs.field(factory=list, init=False, repr=False)
    _running: dict[str, ToolContext] = attrs.field(factory=dict, init=False, repr=False)

    @property
    def call_timeout(self) -> int | None:
        """The per-call timeout in milliseconds the CLI is given for this server.

        ``timeout``, or one second more than the longest tool ``timeout`` when that is longer
        (so a tool's own limit ends it first); None when neither is set: the CLI then uses
        ``MCP_TOOL_TIMEOUT``, else its default of 100,000,000 ms (about 27.8 hours). The
        CLI learns it when a session starts: a longer tool added later does not raise it.
        """
        found = [t.timeout + 1000 for t in self.tools if t.timeout is not None]
        if self.timeout is not None:
            found.append(self.timeout)
        return min(max(found), _MAX_MS) if found else None

    def get_tool(self, name: str) -> SdkTool | None:
        """The tool called ``name``, or None."""
        return next((t for t in self.tools if t.name == name), None)

    def list_tools(self) -> list[dict[str, Any]]:
        """The ``tools/list`` entries (MCP wire form)."""
        return [t.definition() for t in self.tools]

    async def add_tool(
        self, new: SdkTool | Callable[..., Any], *, replace: bool = False
    ) -> SdkTool:
        """Add a tool and tell every session serving this server (`notify_tools_changed`).

        Args:
            new: an `SdkTool`, or a typed function (made a tool with `tool`).
            replace: replace a tool of the same name (in its place) instead of refusing.

        Returns:
            The tool added.

        Raises:
            ValueError: a tool of that name exists and ``replace`` is false.
            TypeError: ``new`` is not a tool and cannot be made one.
            ClaudeSDKError: a session could not tell its CLI (see `notify_tools_changed`).
        """
        (made,) = _tools([new])
        found = self.get_tool(made.name)
        if found is not None and not replace:
            raise ValueError(f"server {self.name!r} already has a tool {made.name!r}")
        if found is None:
            self.tools = (*self.tools, made)
        else:
            self.tools = tuple(made if t is found else t for t in self.tools)
        await self.notify_tools_changed()
        return made

    async def remove_tool(self, name: str) -> SdkTool:
        """Remove the tool called ``name`` and tell every session serving this server.

        A call of it already running goes on.

        Returns:
            The tool removed.

        Raises:
            KeyError: there is no such tool.
            ClaudeSDKError: a session could not tell its CLI (see `notify_tools_changed`).
        """
        found = self.get_tool(name)
        if found is None:
            raise KeyError(f"server {self.name!r} has no tool {name!r}")
        self.tools = tuple(t for t in self.tools if t is not found)
        await self.notify_tools_changed()
        return found

    async def notify_tools_changed(self) -> None:
        """Tell every session serving this server that its tool list changed.

        Each session sends its CLI ``notifications/tools/list_changed`` (a host
        ``mcp_message`` control request) and returns once the CLI acknowledged it. The CLI
        then asks ``tools/list`` again, and a turn it starts afterwards waits for that, so
        the model sees the new list on its next request. Without a session running, this
        does nothing.

        Raises:
            ControlTimeoutError: a CLI did not acknowledge within ``Options.control_timeout``.
            SessionClosedError: a session ended meanwhile.
        """
        for relay in list(self._relays):
            await relay(dict(_TOOLS_CHANGED))

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run a tool; the ``CallToolResult`` dict (see `SdkTool.call`). An unknown name
        is an ``isError`` result."""
        found = self.get_tool(name)
        if found is None:
            names = ", ".join(t.name for t in self.tools) or "none"
            return _error_result(f"unknown tool {name!r} (this server has: {names})")
        context = found._context(meta)
        key = context.tool_use_id
        if key is not None:
            self._running[key] = context
        try:
            return await found._run(arguments, context)
        finally:
            if key is not None and self._running.get(key) is context:
                del self._running[key]

    # -- the bridge's side (claude_sdk._mcp_bridge)

    def _attach(self, relay: _Relay) -> Callable[[], None]:
        """A session serves this server from now on; the function that ends that."""
        self._relays.append(relay)

        def detach() -> None:
            if relay in self._relays:
                self._relays.remove(relay)

        return detach

    async def _cancelled(self, cancelled: ToolCancelled) -> None:
        """The CLI cancelled a call (before the handler is): record why, tell ``on_cancel``."""
        if cancelled.tool_use_id is not None:
            context = self._running.get(cancelled.tool_use_id)
            if context is not None:
                context._state.cancellation = cancelled
        logger.warning("%s", cancelled)
        if self.on_cancel is None:
            return
        try:
            outcome = self.on_cancel(cancelled)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:  # a failing callback must not stop the cancellation
            logger.exception("on_cancel of MCP server %r raised", self.name)

    def to_mcp_server(self) -> Server[Any]:
        """A new ``mcp`` low-level server for these tools (imports ``mcp``).

        Its ``tools/list`` answers with the tools of the moment (see `add_tool`).

        Raises:
            pydantic.ValidationError: a tool's annotations or ``_meta`` are not valid MCP
                (checked here for the tools of now, and by each ``tools/list`` for later ones).
        """
        try:
            from mcp import types
            from mcp.server import Server
        except ImportError as exc:
            raise ImportError(_NEEDS_MCP) from exc

        def listing(tools: tuple[SdkTool, ...]) -> types.ListToolsResult:
            entries = [t.definition() for t in tools]
            return types.ListToolsResult(tools=[types.Tool.model_validate(e) for e in entries])

        cache = [(self.tools, listing(self.tools))]  # validated once per tool list

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            tools = self.tools
            if cache[0][0] is not tools:
                cache[0] = (tools, listing(tools))
            return cache[0][1]

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            raw = ctx.params if isinstance(ctx.params, Mapping) else {}
            meta = raw.get("_meta")
            result = await self.call_tool(
                params.name, params.arguments, meta=meta if isinstance(meta, Mapping) else None
            )
            try:
                return types.CallToolResult.model_validate(result)
            except ValueError as exc:  # pydantic's ValidationError: content that is not MCP
                logger.warning("tool %r returned invalid MCP content: %s", params.name, exc)
                return types.CallToolResult.model_validate(
                    _error_result(f"tool {params.name!r} returned invalid MCP content: {exc}")
                )

        return Server(
            self.name,
            version=self.version,
            instructions=self.instructions,
            on_list_tools=list_tools,
            on_call_tool=call_tool,
        )


def create_sdk_mcp_server(
    name: str,
    version: str = "1.0.0",
    tools: Iterable[SdkTool | Callable[..., Any]] = (),
    *,
    instructions: str | None = None,
    timeout: int | None = None,
    on_cancel: Callable[[ToolCancelled], object] | None = None,
) -> SdkMcpServer:
    """An in-process MCP server for ``Options.mcp_servers``.

    Args:
        name: the server's name (``serverInfo.name``); use the same name as its key in
            ``Options.mcp_servers``, which is what the model sees (``mcp__<key>__<tool>``).
        version: ``serverInfo.version``.
        tools: `SdkTool` s (or plain typed functions, made tools with `tool`).
        instructions: the server's instructions for the model.
        timeout: the CLI's per-call timeout for this server, in milliseconds (at least
            1000); see `SdkMcpServer.call_timeout`.
        on_cancel: called with a `ToolCancelled` when the CLI cancels a call.

    Raises:
        ValueError: two tools have the same name; ``timeout`` is out of range.
        TypeError: ``timeout`` is not an int.
    """
    return SdkMcpServer(
        name=name,
        version=version,
        tools=tools,
        instructions=instructions,
        timeout=timeout,
        on_cancel=on_cancel,
    )
