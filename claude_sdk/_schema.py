"""JSON Schema from Python types, and structured output back into them.

`json_schema(tp)` describes a Python type as a JSON Schema (draft 2020-12) object, for
``Options.output_format`` (the CLI's ``--json-schema``) and for the input schemas of
in-process tools. Supported:

=================================  ============================================================
``str``, ``int``, ``float``,       ``string``, ``integer``, ``number``, ``boolean``, ``null``
``bool``, ``None``
``Any``, ``object``                ``{}`` (anything)
``Literal[...]``, ``Enum``         ``enum`` of the values (with ``type`` when they share one)
``X | Y``, ``Optional[X]``         ``anyOf``
``list[X]``, ``Sequence[X]``,      ``array`` of ``items``; sets add ``uniqueItems``
``set[X]``, ``tuple[X, ...]``
``tuple[X, Y]``                    ``array`` with ``prefixItems`` and a fixed length
``dict[str, V]``,                  ``object`` with ``additionalProperties``
``Mapping[str, V]``
attrs classes                      ``object``: ``properties`` per ``init`` field, ``required``
                                   = fields without a default, no other properties
``TypedDict``                      ``object``: ``required`` = its required keys
``Annotated[X, "text"]``           ``X`` with ``description: "text"`` (also the
                                   ``"description"`` key of an attrs field's ``metadata``)
=================================  ============================================================

Invariants: the result is a fresh dict of JSON values (safe to mutate and to ``json.dumps``);
classes are inlined, except a class that refers to itself, which is put in ``$defs`` (the
root class is ``{"$ref": "#"}``). An unsupported type raises ``TypeError`` naming it.

`structure_output(tp, data)` turns the ``structured_output`` of a result back into ``tp`` with
the SDK's cattrs converter.
"""

from __future__ import annotations

import collections.abc
import enum
import inspect
import logging
import re
import types
import typing
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import typing_extensions

if TYPE_CHECKING:
    import cattrs

__all__ = ["json_schema", "structure_output"]

T = TypeVar("T")

logger = logging.getLogger("claude_sdk")

_NoneType = type(None)
_JSON_SCALARS = (str, int, float, bool, _NoneType)

_PRIMITIVES: dict[Any, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    _NoneType: "null",
}

_SEQUENCES = {
    list,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Iterable,
    collections.abc.Collection,
}
_SETS = {set, frozenset, collections.abc.Set, collections.abc.MutableSet}
_MAPPINGS = {dict, collections.abc.Mapping, collections.abc.MutableMapping}


def _required_wrappers() -> tuple[Any, ...]:
    names = ("Required", "NotRequired", "ReadOnly")
    found: list[Any] = []
    for module in (typing, typing_extensions):
        for name in names:
            value = getattr(module, name, None)
            if value is not None:
                found.append(value)
    return tuple(found)


_TD_WRAPPERS = _required_wrappers()


def json_schema(tp: Any) -> dict[str, Any]:
    """The JSON Schema of ``tp`` (see the module docstring for what is supported).

    Raises:
        TypeError: ``tp`` (or a type inside it) has no JSON Schema here.
    """
    builder = _Builder(tp)
    schema = builder.build(tp)
    if builder.defs:
        schema["$defs"] = builder.defs
    return schema


class _Builder:
    """One schema build: tracks the classes being built, for recursive references."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.stack: list[type] = []
        self.recursive: set[type] = set()
        self.names: dict[type, str] = {}
        self.defs: dict[str, Any] = {}

    def build(self, tp: Any) -> dict[str, Any]:
        if tp is Any or tp is object:
            return {}
        if tp in _PRIMITIVES:
            return {"type": _PRIMITIVES[tp]}
        if tp is None:
            return {"type": "null"}
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            annotated = self.build(args[0])
            for meta in args[1:]:
                if isinstance(meta, str):
                    annotated["description"] = meta
                    break
            return annotated
        if origin in _TD_WRAPPERS:
            return self.build(args[0])
        if origin is typing.Literal:
            return _enum_schema(list(args), tp)
        if origin in (typing.Union, types.UnionType):
            members = [self.build(a) for a in args]
            return {"anyOf": members}
        if isinstance(tp, typing.NewType):
            return self.build(tp.__supertype__)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return _enum_schema([m.value for m in tp], tp)
        if origin is tuple or tp is tuple:
            return self._tuple(tp, args)
        if origin in _SEQUENCES or tp in _SEQUENCES:
            schema: dict[str, Any] = {"type": "array"}
            if args:
                schema["items"] = self.build(args[0])
            return schema
        if origin in _SETS or tp in _SETS:
            schema = {"type": "array", "uniqueItems": True}
            if args:
                schema["items"] = self.build(args[0])
            return schema
        if origin in _MAPPINGS or tp in _MAPPINGS:
            schema = {"type": "object"}
            if args:
                _check_key(args[0], tp)
                schema["additionalProperties"] = self.build(args[1])
            return schema
        if isinstance(tp, type) and (attrs.has(tp) or typing_extensions.is_typeddict(tp)):
            return self._class(tp)
        raise TypeError(f"no JSON Schema for {_name(tp)}")

    def _tuple(self, tp: Any, args: tuple[Any, ...]) -> dict[str, Any]:
        if tp is tuple:
            return {"type": "array"}
        if not args or args == ((),):  # tuple[()] (spelled ((),) on 3.10)
            return {"type": "array", "maxItems": 0}
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": self.build(args[0])}
        return {
            "type": "array",
            "prefixItems": [self.build(a) for a in args],
            "minItems": len(args),
            "maxItems": len(args),
        }

    def _class(self, cls: type) -> dict[str, Any]:
        if cls in self.stack:
            self.recursive.add(cls)
            return self._ref(cls)
        self.stack.append(cls)
        try:
            schema = self._attrs(cls) if attrs.has(cls) else self._typeddict(cls)
        finally:
            self.stack.pop()
        if cls in self.recursive and cls is not self.root:
            self.defs[self._def_name(cls)] = schema
            return self._ref(cls)
        return schema

    def _ref(self, cls: type) -> dict[str, Any]:
        if cls is self.root:
            return {"$ref": "#"}
        return {"$ref": f"#/$defs/{self._def_name(cls)}"}

    def _def_name(self, cls: type) -> str:
        name = self.names.get(cls)
        if name is None:
            base = re.sub(r"[^A-Za-z0-9_.-]", "_", cls.__qualname__)
            name, n = base, 1
            while name in self.names.values():
                n += 1
                name = f"{base}_{n}"
            self.names[cls] = name
        return name

    def _attrs(self, cls: type) -> dict[str, Any]:
        hints = _hints(cls)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for field in attrs.fields(cls):
            if not field.init:
                continue
            tp = hints.get(field.name, field.type if field.type is not None else Any)
            prop = self.build(tp)
            description = field.metadata.get("description")
            if isinstance(description, str):
                prop["description"] = description
            if field.default is attrs.NOTHING:
                required.append(field.name)
            elif isinstance(field.default, _JSON_SCALARS):  # not a Factory, not a container
                prop["default"] = field.default
            properties[field.name] = prop
        return _object(cls, properties, required)

    def _typeddict(self, cls: type) -> dict[str, Any]:
        hints = _hints(cls)
        required_keys: frozenset[str] = getattr(cls, "__required_keys__", frozenset(hints))
        properties: dict[str, Any] = {}
        required: list[str] = []
        for name, tp in hints.items():
            properties[name] = self.build(tp)
            # The wrapper decides when present: with postponed annotations (PEP 563)
            # ``__required_keys__`` cannot see a ``NotRequired`` written as text.
            wrapper = getattr(typing.get_origin(tp), "_name", None)
            if wrapper == "NotRequired":
                continue
            if wrapper == "Required" or name in required_keys:
                required.append(name)
        return _object(cls, properties, required)


def _object(cls: type, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    doc = _docstring(cls)
    if doc:
        schema["description"] = doc
    schema["properties"] = properties
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _docstring(cls: type) -> str | None:
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        return None
    return inspect.cleandoc(doc)


def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception as exc:  # a forward reference that does not resolve
        raise TypeError(f"cannot resolve the annotations of {_name(cls)}: {exc}") from exc


def _enum_schema(values: list[Any], tp: Any) -> dict[str, Any]:
    for value in values:
        if not isinstance(value, _JSON_SCALARS):
            raise TypeError(f"no JSON Schema for {_name(tp)}: {value!r} is not a JSON value")
    kinds = {_PRIMITIVES[bool if isinstance(v, bool) else type(v)] for v in values}
    schema: dict[str, Any] = {}
    if len(kinds) == 1:
        schema["type"] = kinds.pop()
    schema["enum"] = values
    return schema


def _check_key(key: Any, tp: Any) -> None:
    ok = key is str or key is Any
    if typing.get_origin(key) is typing.Literal:
        ok = all(isinstance(a, str) for a in typing.get_args(key))
    elif isinstance(key, type) and issubclass(key, str):
        ok = True
    if not ok:
        raise TypeError(f"no JSON Schema for {_name(tp)}: JSON object keys are strings")


def _name(tp: Any) -> str:
    if isinstance(tp, type):
        return tp.__qualname__
    return repr(tp)


# --------------------------------------------------------------------------------------
# Structured output


def structure_output(tp: type[T], data: Any, converter: cattrs.Converter) -> T:
    """Turn a result's ``structured_output`` into an instance of ``tp`` with ``converter``
    (the SDK's: the default codec's, which `claude_sdk.query.Reply` passes).

    When the data does not fit but is an object with one key that is not a field of ``tp``
    and holds an object that fits, that object is used: models sometimes wrap their answer
    (for example ``{"output": {...}}``).

    Raises:
        ValueError: ``data`` is None (no structured output) or does not fit ``tp``; the
            converter's error is chained.
    """
    if data is None:
        raise ValueError(f"there is no structured output to turn into {_name(tp)}")
    try:
        result: T = converter.structure(data, tp)
    except Exception as exc:
        inner = _wrapped(tp, data)
        if inner is not None:
            try:
                unwrapped: T = converter.structure(inner, tp)
            except Exception:  # the wrapped value does not fit either: report the first
                logger.debug("unwrapped structured output does not fit %s either", _name(tp))
            else:
                return unwrapped
        raise ValueError(f"the structured output does not fit {_name(tp)}: {exc!r}") from exc
    return result


def _wrapped(tp: Any, data: Any) -> Any:
    if not isinstance(data, dict) or len(data) != 1:
        return None
    ((key, value),) = data.items()
    if not isinstance(value, dict):
        return None
    if isinstance(tp, type) and attrs.has(tp):
        names = {f.name for f in attrs.fields(tp)}
    elif isinstance(tp, type) and typing_extensions.is_typeddict(tp):
        names = set(_hints(tp))
    else:
        return None
    return None if key in names else value
