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
attrs classes, dataclasses         ``object``: ``properties`` per ``init`` field, ``required``
                                   = fields without a default (or factory), no other
                                   properties; the class docstring is the ``description``
                                   (``ClassVar``, ``InitVar`` and ``init=False`` fields are
                                   left out)
``TypedDict``                      ``object``: ``required`` = its required keys
pydantic models (v2)               the model's own ``model_json_schema()``; its ``$defs`` join
                                   the root's (pydantic dataclasses: ``TypeAdapter``'s schema)
``Annotated[X, "text"]``           ``X`` with ``description: "text"`` (also the
                                   ``"description"`` key of an attrs or dataclass field's
                                   ``metadata``)
=================================  ============================================================

Classes mix: an attrs class may hold a dataclass, a dataclass a pydantic model, a TypedDict
either. pydantic is never imported here: a class is a pydantic model only when pydantic is
already loaded (``sys.modules``) and the class derives from its ``BaseModel``.

Invariants: the result is a fresh dict of JSON values (safe to mutate and to ``json.dumps``)
whose references all point inside it; its root is never a bare ``$ref``. attrs classes,
dataclasses and TypedDicts are inlined, except a class that refers to itself, which is put in
``$defs`` (the root class is ``{"$ref": "#"}``); a pydantic model is inlined with the
definitions pydantic makes for it moved to the root's ``$defs`` (renamed when two differ under
one name, shared when they are the same), a recursive root model's references becoming
``{"$ref": "#"}``. An unsupported type raises ``TypeError`` naming it.

`structure_output(tp, data)` turns the ``structured_output`` of a result back into ``tp`` with
the SDK's cattrs converter (pydantic models with ``model_validate_json``).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import functools
import inspect
import json
import logging
import math
import re
import sys
import types
import typing
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

if TYPE_CHECKING:
    import cattrs

__all__ = ["json_schema", "output_json_schema", "structure_output"]

T = TypeVar("T")

logger = logging.getLogger("claude_sdk.schema")

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


def _typing_modules() -> tuple[Any, ...]:
    """``typing``, and ``typing_extensions`` once anything imported it (a class made with it
    cannot exist before): not imported here, for the import time of every program."""
    extensions = sys.modules.get("typing_extensions")
    return (typing,) if extensions is None else (typing, extensions)


def _is_typeddict(tp: Any) -> bool:
    # getattr: another thread may be importing typing_extensions still
    return any(getattr(m, "is_typeddict", _never)(tp) for m in _typing_modules())


def _never(tp: Any) -> bool:
    return False


_WRAPPERS: dict[int, tuple[Any, ...]] = {}


def _required_wrappers() -> tuple[Any, ...]:
    """``Required``, ``NotRequired`` and ``ReadOnly`` of the typing modules in use."""
    modules = _typing_modules()
    found = _WRAPPERS.get(len(modules))
    if found is None:
        names = ("Required", "NotRequired", "ReadOnly")
        values = (getattr(module, name, None) for module in modules for name in names)
        found = _WRAPPERS[len(modules)] = tuple(v for v in values if v is not None)
    return found


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


def output_json_schema(tp: Any) -> dict[str, Any]:
    """The JSON Schema of ``tp`` for ``Options.output_format``: `json_schema` in the common
    ground of the two checkers the schema meets.

    The CLI compiles the ``--json-schema`` with Ajv's draft-07 validator in strict mode (an
    unknown keyword ends the CLI at start: checked with 2.1.330), and the Messages API reads
    the ``StructuredOutput`` tool's schema as draft 2020-12. So a fixed-length tuple's
    ``prefixItems`` become ``items`` (``anyOf`` the members) with its length: the CLI checks
    the length and the member types, `structure_output` each position. pydantic's
    ``discriminator`` (an OpenAPI annotation next to ``oneOf``) is left out; the ``oneOf``
    still decides.

    Raises:
        TypeError: ``tp`` (or a type inside it) has no JSON Schema here.
    """
    schema = json_schema(tp)
    _to_common_ground(schema)
    return schema


#: Keywords whose value maps names to schemas.
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)


def _to_common_ground(node: Any) -> None:
    """Rewrite, in place, what the CLI's draft-07 Ajv refuses (see `output_json_schema`)."""
    todo: list[Any] = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, list):
            todo.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        prefix = item.pop("prefixItems", None)
        if isinstance(prefix, list):
            members = list(prefix)
            rest = item.get("items")
            if isinstance(rest, dict):  # tuple[int, *tuple[str, ...]]
                members.append(rest)
            elif "maxItems" not in item:  # "items": false (or no items): the length is fixed
                item["maxItems"] = len(prefix)
            item.setdefault("minItems", len(prefix))
            unique = list({json.dumps(m, sort_keys=True): m for m in members}.values())
            if unique:
                item["items"] = unique[0] if len(unique) == 1 else {"anyOf": unique}
            else:
                item.pop("items", None)
        if isinstance(item.get("discriminator"), dict) and ("oneOf" in item or "anyOf" in item):
            del item["discriminator"]
        for key, value in item.items():
            if key in _DATA_KEYWORDS:
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                todo.extend(value.values())
            else:
                todo.append(value)


class _Builder:
    """One schema build: tracks the classes being built, for recursive references."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.stack: list[type] = []
        self.recursive: set[type] = set()
        self.names: dict[type, str] = {}
        self.used: set[str] = set()  # the names taken in ``defs``
        self.defs: dict[str, Any] = {}
        # The name in ``defs`` of a pydantic definition, by the text of the definition and
        # of every definition it reaches: equal texts are the same schema, whichever model
        # (or pydantic run) they come from, so they share one entry.
        self.pydantic_defs: dict[str, str] = {}

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
        if origin in _required_wrappers():
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
        if _pydantic_kind(tp) is not None:
            return self._pydantic(tp)
        if _is_field_class(tp):
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
            if attrs.has(cls):
                schema = self._attrs(cls)
            elif dataclasses.is_dataclass(cls):
                schema = self._dataclass(cls)
            else:
                schema = self._typeddict(cls)
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
            name = self.names[cls] = self._unique(cls.__qualname__)
        return name

    def _unique(self, text: str) -> str:
        """A new name for ``defs`` made of ``text``."""
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", text)
        name, n = base, 1
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
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
            else:
                _set_default(prop, field.default)  # a Factory is no JSON value: left out
            properties[field.name] = prop
        return _object(cls, properties, required)

    def _dataclass(self, cls: type) -> dict[str, Any]:
        hints = _hints(cls)
        properties: dict[str, Any] = {}
        required: list[str] = []
        # fields() leaves out ClassVar and InitVar pseudo-fields; init=False ones go here.
        for field in dataclasses.fields(cls):
            if not field.init:
                continue
            tp = hints.get(field.name, Any)
            prop = self.build(tp)
            description = field.metadata.get("description")
            if isinstance(description, str):
                prop["description"] = description
            if field.default is not dataclasses.MISSING:
                _set_default(prop, field.default)
            elif field.default_factory is dataclasses.MISSING:
                required.append(field.name)
            properties[field.name] = prop
        return _object(cls, properties, required)

    def _pydantic(self, cls: type) -> dict[str, Any]:
        raw = _pydantic_schema(cls)
        defs: dict[str, Any] = raw.pop("$defs", None) or {}
        if not isinstance(defs, dict):
            raise TypeError(f"no JSON Schema for {_name(cls)}: $defs is not an object")
        body: Any = raw
        targets: dict[str, str] = {}
        alias = _def_ref(raw)
        if alias is not None and alias in defs and len(raw) == 1 and cls is self.root:
            # A recursive model: pydantic's root is a bare $ref to its definition, which
            # the CLI does not take as the root of a schema. Inline it; refs to it are "#".
            body = defs[alias]
            targets[alias] = "#"
        reach = _reachable(body, defs)
        new: list[tuple[str, str]] = []
        for name in sorted(reach - set(targets)):
            closure = _reachable({"$ref": _DEFS + name}, defs)
            key = json.dumps([name, {n: defs[n] for n in sorted(closure)}], sort_keys=True)
            ours = self.pydantic_defs.get(key)
            if ours is None:
                ours = self.pydantic_defs[key] = self._unique(name)
                new.append((name, ours))
            targets[name] = _DEFS + ours
        for name, ours in new:
            self.defs[ours] = _retarget(defs[name], targets)
        result: dict[str, Any] = _retarget(body, targets)
        return result

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
    if dataclasses.is_dataclass(cls) and _is_signature_doc(cls, doc):
        return None
    return inspect.cleandoc(doc)


def _is_signature_doc(cls: type, doc: str) -> bool:
    """Whether ``doc`` is the ``Name(x: int, ...)`` that ``@dataclass`` writes when the class
    has no docstring (not a description)."""
    return "\n" not in doc and doc.startswith(f"{cls.__name__}(") and doc.endswith(")")


def _set_default(prop: dict[str, Any], default: Any) -> None:
    """``prop["default"]`` when ``default`` is a JSON scalar (an enum member: its value)."""
    if isinstance(default, enum.Enum):
        default = default.value
    if default is None:
        prop["default"] = None
        return
    if isinstance(default, float) and not math.isfinite(default):
        return  # NaN and infinities are not JSON
    # bool before int (bool is an int); subclasses (IntEnum, StrEnum values) as plain values
    for kind in (bool, int, float, str):
        if isinstance(default, kind):
            prop["default"] = kind(default)
            return


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


def _got(value: Any) -> str:
    """What a JSON value is, for an error message (``string "abc"``, ``an array``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {json.dumps(value)}"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return f"string {text if len(text) <= 40 else text[:36] + '...'}"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _is_field_class(tp: Any) -> bool:
    """An attrs class, a dataclass or a TypedDict (a class described field by field here)."""
    return isinstance(tp, type) and (
        attrs.has(tp) or dataclasses.is_dataclass(tp) or _is_typeddict(tp)
    )


def _is_schema_class(tp: Any) -> bool:
    """A class `json_schema` describes as an object and `structure_output` builds: attrs,
    dataclass, TypedDict or pydantic model."""
    return _pydantic_kind(tp) is not None or _is_field_class(tp)


# --------------------------------------------------------------------------------------
# pydantic, without importing it


def _pydantic_kind(tp: Any) -> str | None:
    """``"model"`` for a pydantic ``BaseModel`` subclass, ``"dataclass"`` for a pydantic
    dataclass, else None. Such a class exists only once pydantic is imported, so this never
    imports it (``sys.modules`` lookups only)."""
    if not isinstance(tp, type) or "pydantic" not in sys.modules:
        return None
    main = sys.modules.get("pydantic.main")
    if main is not None and issubclass(tp, main.BaseModel):
        return "model"
    if dataclasses.is_dataclass(tp) and "__pydantic_validator__" in tp.__dict__:
        return "dataclass"
    return None


def _is_pydantic(tp: Any) -> bool:
    return _pydantic_kind(tp) is not None


@functools.cache
def _adapter(cls: type) -> Any:
    """pydantic's ``TypeAdapter`` of a pydantic dataclass (made once per class)."""
    from pydantic import TypeAdapter

    return TypeAdapter(cls)


def _pydantic_schema(cls: type) -> dict[str, Any]:
    """A fresh copy of the model's own JSON Schema (``model_json_schema()``)."""
    try:
        raw: Any
        if _pydantic_kind(cls) == "model":
            raw = typing.cast("Any", cls).model_json_schema()
        else:
            raw = _adapter(cls).json_schema()
        text = json.dumps(raw, allow_nan=False)
    except Exception as exc:  # pydantic's own errors (a field it cannot describe, ...)
        raise TypeError(f"no JSON Schema for {_name(cls)}: {exc}") from exc
    data = json.loads(text)
    if not isinstance(data, dict):
        raise TypeError(f"no JSON Schema for {_name(cls)}: {data!r} is not a schema object")
    return data


def _pydantic_validate(cls: type, data: Any) -> Any:
    """An instance of the pydantic class ``cls`` from ``data`` (JSON: validated in JSON mode,
    as pydantic validates JSON text; other Python values in Python mode).

    Raises:
        pydantic.ValidationError: ``data`` does not fit.
    """
    try:
        text: str | None = json.dumps(data, allow_nan=False)
    except (TypeError, ValueError):  # not JSON: a direct call with Python values
        text = None
    if _pydantic_kind(cls) == "model":
        model: Any = cls
        return model.model_validate(data) if text is None else model.model_validate_json(text)
    adapter = _adapter(cls)
    return adapter.validate_python(data) if text is None else adapter.validate_json(text)


def _pydantic_dump(obj: Any) -> Any:
    """A pydantic model's (or pydantic dataclass's) JSON value, by alias."""
    cls: type = type(obj)
    if _pydantic_kind(cls) == "model":
        return obj.model_dump(mode="json", by_alias=True)
    return _adapter(cls).dump_python(obj, mode="json", by_alias=True)


def _pydantic_problems(exc: BaseException, path: str) -> list[str] | None:
    """One line per error of a pydantic ``ValidationError`` (None for another exception),
    with paths below ``path`` written like the tools' (``at.x``, ``items[2]``)."""
    if not _is_pydantic_error(exc):
        return None
    validation_error: Any = exc  # pydantic_core.ValidationError
    out: list[str] = []
    for error in validation_error.errors(include_url=False):
        loc = tuple(error.get("loc", ()))
        kind = error.get("type")
        if kind == "missing" and loc:
            out.append(f"{_at(path, loc[:-1])}: missing required field {loc[-1]!r}")
        elif kind == "extra_forbidden" and loc:
            out.append(f"{_at(path, loc[:-1])}: unexpected field {loc[-1]!r}")
        elif "input" in error:
            out.append(f"{_at(path, loc)}: {error['msg']}, got {_got(error['input'])}")
        else:
            out.append(f"{_at(path, loc)}: {error['msg']}")
    return out


def _is_pydantic_error(exc: BaseException) -> bool:
    core = sys.modules.get("pydantic_core")
    return core is not None and isinstance(exc, core.ValidationError)


def _at(path: str, loc: tuple[Any, ...]) -> str:
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path.lstrip(".") or "$"


def _error_lines(exc: BaseException, path: str) -> list[str]:
    """One ``<path>: <what>`` line per problem of a converter's (cattrs) or pydantic's error
    about the value at ``path``."""
    found = _pydantic_problems(exc, path)
    if found is not None:
        return found
    import cattrs
    from cattrs.v import format_exception

    inner: list[BaseException] = []

    def describe(error: BaseException, tp: Any) -> str:
        if _is_pydantic_error(error):  # spelled out below, at its own path
            inner.append(error)
            return f"{_INNER}{len(inner) - 1}"
        return format_exception(error, tp)

    out: list[str] = []
    for line in cattrs.transform_error(exc, path=path, format_exception=describe):
        text, sep, where = line.rpartition(" @ ")
        if not sep:
            text, where = line, path
        if text.startswith(_INNER):
            out.extend(_pydantic_problems(inner[int(text[len(_INNER) :])], where) or ())
        else:
            out.append(f"{where}: {text}")
    return out


_INNER = "\x00pydantic:"


def _add_model_hooks(converter: cattrs.Converter) -> None:
    """Teach ``converter`` pydantic classes (cattrs knows attrs classes and dataclasses)."""
    converter.register_structure_hook_func(_is_pydantic, lambda v, tp: _pydantic_validate(tp, v))
    converter.register_unstructure_hook_func(_is_pydantic, _pydantic_dump)


_MODEL_CONVERTERS: dict[int, tuple[cattrs.Converter, cattrs.Converter]] = {}


def _with_model_hooks(converter: cattrs.Converter) -> cattrs.Converter:
    """``converter``, or once pydantic is loaded a copy of it with `_add_model_hooks` (made
    once per converter)."""
    if "pydantic" not in sys.modules:
        return converter
    entry = _MODEL_CONVERTERS.get(id(converter))
    if entry is not None and entry[0] is converter:
        return entry[1]
    derived = converter.copy()
    _add_model_hooks(derived)
    if len(_MODEL_CONVERTERS) >= 16:  # converters are long-lived; bound it all the same
        _MODEL_CONVERTERS.clear()
    _MODEL_CONVERTERS[id(converter)] = (converter, derived)
    return derived


# --------------------------------------------------------------------------------------
# References of pydantic's schemas

_DEFS = "#/$defs/"
#: Keywords whose values are data, not schemas: a "$ref" key inside them is no reference.
_DATA_KEYWORDS = frozenset({"default", "enum", "const", "examples"})


def _def_ref(node: Any) -> str | None:
    """The definition name of a ``{"$ref": "#/$defs/<name>"}`` node, else None."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if not isinstance(ref, str) or not ref.startswith(_DEFS):
        return None
    name = ref[len(_DEFS) :]
    return name if name and "/" not in name else None


def _reachable(node: Any, defs: dict[str, Any]) -> set[str]:
    """The names of the definitions ``node`` refers to, directly or through others."""
    found: set[str] = set()
    todo: list[Any] = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            name = _def_ref(item)
            if name is not None and name in defs and name not in found:
                found.add(name)
                todo.append(defs[name])
            todo.extend(v for k, v in item.items() if k not in _DATA_KEYWORDS)
    return found


def _retarget(node: Any, targets: dict[str, str]) -> Any:
    """A copy of ``node`` whose ``#/$defs/<name>`` references point at ``targets[name]``."""
    if isinstance(node, list):
        return [_retarget(item, targets) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DATA_KEYWORDS:
            out[key] = json.loads(json.dumps(value))
        elif key == "$ref" and isinstance(value, str):
            name = _def_ref(node)
            out[key] = targets.get(name, value) if name is not None else value
        else:
            out[key] = _retarget(value, targets)
    return out


# --------------------------------------------------------------------------------------
# Structured output


def structure_output(tp: type[T], data: Any, converter: cattrs.Converter) -> T:
    """Turn a result's ``structured_output`` into an instance of ``tp`` with ``converter``
    (the SDK's: the default codec's, which `claude_sdk.query.Reply` passes).

    ``tp`` is what ``Options.output_format`` took: an attrs class, a dataclass or a
    TypedDict (built by the converter), or a pydantic model (validated by pydantic, in JSON
    mode); the classes may hold one another.

    When the data does not fit but is an object with one key that is not a field of ``tp``
    and holds an object that fits, that object is used: models sometimes wrap their answer
    (for example ``{"output": {...}}``).

    Raises:
        ValueError: ``data`` is None (no structured output) or does not fit ``tp``; the
            message lists what does not fit (``$.field: ...``), and the converter's (or
            pydantic's) error is chained.
    """
    if data is None:
        raise ValueError(f"there is no structured output to turn into {_name(tp)}")
    conv = _with_model_hooks(converter)
    try:
        result: T = conv.structure(data, tp)
    except Exception as exc:
        inner = _wrapped(tp, data)
        if inner is not None:
            try:
                unwrapped: T = conv.structure(inner, tp)
            except Exception:  # the wrapped value does not fit either: report the first
                logger.debug("unwrapped structured output does not fit %s either", _name(tp))
            else:
                return unwrapped
        raise ValueError(
            f"the structured output does not fit {_name(tp)}: {_explain(exc)}"
        ) from exc
    return result


def _explain(exc: Exception) -> str:
    """What does not fit, one ``; ``-separated item per problem."""
    return "; ".join(_error_lines(exc, "$")) or repr(exc)


def _field_names(tp: Any) -> set[str] | None:
    """The keys an object for the class ``tp`` may have (None: not such a class)."""
    kind = _pydantic_kind(tp)
    if kind is not None:
        fields = tp.model_fields if kind == "model" else tp.__pydantic_fields__
        return set(fields) | {f.alias for f in fields.values() if f.alias}
    if not isinstance(tp, type):
        return None
    if attrs.has(tp):
        return {f.name for f in attrs.fields(tp)}
    if dataclasses.is_dataclass(tp):
        return {f.name for f in dataclasses.fields(tp)}
    if _is_typeddict(tp):
        return set(_hints(tp))
    return None


def _wrapped(tp: Any, data: Any) -> Any:
    if not isinstance(data, dict) or len(data) != 1:
        return None
    ((key, value),) = data.items()
    if not isinstance(value, dict):
        return None
    names = _field_names(tp)
    if names is None:
        return None
    return None if key in names else value
