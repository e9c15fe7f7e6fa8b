"""Does this value fit this type: the one checker (issue 29, item 2).

Every "does this JSON value fit this annotation" question of the SDK is answered here: the
codec's drift check and its fast fit check of decoded frames (and so the check of hook
answers, which go through it), the typed views of tool inputs and outputs, and the arguments
of ``@tool`` functions. What differs between them is said once, in their `Rules`, not in
three walks that must agree:

* ``open_literals``: a value outside a ``Literal`` fits when its JSON type matches (typed
  views: a newer CLI may add a todo status); otherwise it does not.
* ``instances``: an instance of a class fits that class (decoded values hold instances; a
  JSON value never does).
* ``unexpected_keys``: a key a class does not declare is a problem (``@tool`` arguments);
  otherwise it is ignored (the wire model keeps it in ``extra``).
* ``integral_floats``: ``2.0`` fits ``int`` (JSON has one number type; ``@tool`` arguments).
* ``wire_keys``: a class's field name -> wire key, where they differ.
* ``tagged``: for a union, its tag key and tag value -> class, when it is dispatched on a tag.
* ``python_words``: a value outside a ``Literal`` is worded for Python developers
  (``value 'x' not in ['a', 'b']``, drift's words) rather than in JSON (``expected one of
  "a", "b", got string "x"``, what the model reads for a ``@tool`` call).
* ``skip``: types not judged here (the codec's own unions, whose members it dispatches; the
  SDK's classes among ``@tool`` argument types, whose wire names are the codec's business).

The rules of the JSON types are the same for all: ``bool`` is not an ``int``; ``int`` and
``float`` are numbers; ``None`` fits only an optional type; ``Any`` and ``object`` take
anything; ``Annotated``, ``Required``, ``NotRequired``, ``ReadOnly`` and ``NewType`` are their
inner type. `compile_check` turns a type into a `Check` once (cached per rules): ``ok(value)``
for the fast yes/no, ``problems(value, path)`` for what is wrong, one line per problem, and
``problems`` is empty exactly when ``ok`` is true (a property test holds them to it).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
import threading
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from . import _schema

__all__ = ["ANYTHING", "SCALAR_TESTS", "Check", "Rules", "compile_check", "expected", "got"]

_NoneType = type(None)
_WRAPPERS = ("Required", "NotRequired", "ReadOnly")


def _no_keys(cls: type) -> Mapping[str, str]:
    return {}


def _no_tags(tp: Any) -> tuple[str, Mapping[Any, type]] | None:
    return None


def _never(tp: Any) -> bool:
    return False


class Rules:
    """How values are judged for one use (see the module docstring); checks are cached here."""

    def __init__(
        self,
        *,
        open_literals: bool = False,
        instances: bool = False,
        unexpected_keys: bool = False,
        integral_floats: bool = False,
        wire_keys: Callable[[type], Mapping[str, str]] = _no_keys,
        tagged: Callable[[Any], tuple[str, Mapping[Any, type]] | None] = _no_tags,
        skip: Callable[[Any], bool] = _never,
        python_words: bool = False,
    ) -> None:
        self.open_literals = open_literals
        self.instances = instances
        self.unexpected_keys = unexpected_keys
        self.integral_floats = integral_floats
        self.wire_keys = wire_keys
        self.tagged = tagged
        self.skip = skip
        self.python_words = python_words
        self._cache: dict[Any, Check] = {}
        #: Classes whose checks are being built (a field may name its class again): seen only
        #: under the lock, so that no other thread uses a check before it is whole.
        self._building: dict[Any, Check] = {}
        self._lock = threading.RLock()


class Check:
    """A compiled judgement of one type: ``ok`` fast, ``problems`` to say what is wrong."""

    __slots__ = ()

    def ok(self, value: Any) -> bool:
        raise NotImplementedError

    def problems(self, value: Any, path: str) -> list[str]:
        return [] if self.ok(value) else [f"{path}: expected {self.expected()}, got {got(value)}"]

    def expected(self) -> str:
        raise NotImplementedError


def compile_check(tp: Any, rules: Rules) -> Check:
    """The `Check` of ``tp`` under ``rules`` (built once per type and rules)."""
    try:
        found = rules._cache.get(tp)
    except TypeError:  # an unhashable annotation (Annotated with a dict): not cached
        with rules._lock:
            return _build(tp, rules)
    if found is None:
        with rules._lock:  # reentrant: a type's parts are built while it is
            found = rules._cache.get(tp) or rules._building.get(tp)
            if found is None:
                found = _build(tp, rules)
                rules._cache[tp] = found
    return found


# -- the kinds of checks -----------------------------------------------------------------


class _Anything(Check):
    __slots__ = ()

    def ok(self, value: Any) -> bool:
        return True

    def problems(self, value: Any, path: str) -> list[str]:
        return []

    def expected(self) -> str:
        return "any value"


_ANYTHING = _Anything()
#: The check of ``Any``: every value fits (a caller may skip it).
ANYTHING: Check = _ANYTHING


#: The scalar tests, as Python source on ``v`` (the codec compiles them inline) and as
#: functions: the one definition of what a JSON scalar of each type is.
SCALAR_TESTS: Mapping[type, str] = {
    str: "isinstance(v, str)",
    bool: "v.__class__ is bool",
    int: "(isinstance(v, int) and v.__class__ is not bool)",
    float: "(isinstance(v, (int, float)) and v.__class__ is not bool)",
}

_SCALAR_NAMES = {_NoneType: "null", bool: "boolean", int: "integer", float: "number", str: "string"}


class _Scalar(Check):
    __slots__ = ("test", "tp")

    def __init__(self, tp: type, integral_floats: bool) -> None:
        self.tp = tp
        if tp is _NoneType:
            self.test: Callable[[Any], bool] = lambda v: v is None
        elif tp is bool:
            self.test = lambda v: v.__class__ is bool
        elif tp is int and integral_floats:
            self.test = _is_int_or_integral
        elif tp is int:
            self.test = lambda v: isinstance(v, int) and v.__class__ is not bool
        elif tp is float:
            self.test = lambda v: isinstance(v, (int, float)) and v.__class__ is not bool
        else:
            self.test = lambda v: isinstance(v, tp)

    def ok(self, value: Any) -> bool:
        return self.test(value)

    def expected(self) -> str:
        return _SCALAR_NAMES.get(self.tp) or _article(self.tp.__name__)


def _is_int_or_integral(v: Any) -> bool:
    if v.__class__ is bool:
        return False
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


class _Literal(Check):
    __slots__ = ("open", "python", "scalars", "values")

    def __init__(self, values: tuple[Any, ...], open_: bool, python: bool) -> None:
        self.values = values
        self.open = open_
        self.python = python
        self.scalars = tuple(_Scalar(type(v), False) for v in values)

    def ok(self, value: Any) -> bool:
        if any(_same(value, v) for v in self.values):
            return True
        # A value it does not list is a newer CLI's: only the JSON type has to match.
        return self.open and any(s.ok(value) for s in self.scalars)

    def problems(self, value: Any, path: str) -> list[str]:
        if self.ok(value):
            return []
        if self.python:
            return [f"{path}: value {value!r} not in {list(self.values)}"]
        return [f"{path}: expected {self.expected()}, got {got(value)}"]

    def expected(self) -> str:
        return "one of " + ", ".join(_json(v) for v in self.values)


class _Enum(Check):
    __slots__ = ("cls", "instances")

    def __init__(self, cls: type[enum.Enum], instances: bool) -> None:
        self.cls = cls
        self.instances = instances

    def ok(self, value: Any) -> bool:
        if self.instances and isinstance(value, self.cls):
            return True
        return any(_same(value, m.value) for m in self.cls)

    def expected(self) -> str:
        return "one of " + ", ".join(_json(m.value) for m in self.cls)


class _Union(Check):
    __slots__ = ("checks", "members", "optional", "tag")

    def __init__(self, members: tuple[Any, ...], rules: Rules) -> None:
        self.members = members
        self.checks = tuple(compile_check(m, rules) for m in members)
        self.optional = _NoneType in members
        self.tag: tuple[str, dict[Any, Check]] | None = None
        table = rules.tagged(typing.Union[members])  # noqa: UP007 (a runtime union object)
        if table is not None:
            key, classes = table
            self.tag = (key, {k: compile_check(c, rules) for k, c in classes.items()})

    def ok(self, value: Any) -> bool:
        if value is None:
            return self.optional
        if self.tag is not None:
            key, by_tag = self.tag
            tag = value.get(key) if isinstance(value, Mapping) else None
            check = by_tag.get(tag) if isinstance(tag, str) else None
            return check is not None and check.ok(value)
        return any(c.ok(value) for c in self.checks)

    def problems(self, value: Any, path: str) -> list[str]:
        if self.ok(value):
            return []
        if self.tag is not None and value is not None:
            key, by_tag = self.tag
            tag = value.get(key) if isinstance(value, Mapping) else None
            check = by_tag.get(tag) if isinstance(tag, str) else None
            if check is not None:
                return check.problems(value, path)
            listed = ", ".join(_json(t) for t in by_tag)
            return [
                f"{path}: expected an object whose {key!r} is one of {listed}, got {got(value)}"
            ]
        others = [c for m, c in zip(self.members, self.checks, strict=True) if m is not _NoneType]
        if len(others) == 1 and value is not None:  # Optional[X]: what is wrong with the X
            return others[0].problems(value, path)
        return [f"{path}: expected {self.expected()}, got {got(value)}"]

    def expected(self) -> str:
        return " or ".join(dict.fromkeys(c.expected() for c in self.checks))


class _Sequence(Check):
    __slots__ = ("item",)

    def __init__(self, item: Check | None) -> None:
        self.item = item

    def ok(self, value: Any) -> bool:
        if value.__class__ is not list and not isinstance(value, (list, tuple)):
            return False
        item = self.item
        return item is None or all(map(item.ok, value))

    def problems(self, value: Any, path: str) -> list[str]:
        if not isinstance(value, (list, tuple)):
            return [f"{path}: expected an array, got {got(value)}"]
        if self.item is None:
            return []
        out: list[str] = []
        for i, v in enumerate(value):
            out.extend(self.item.problems(v, f"{path}[{i}]"))
        return out

    def expected(self) -> str:
        return "an array"


class _Tuple(Check):
    __slots__ = ("items",)

    def __init__(self, items: tuple[Check, ...]) -> None:
        self.items = items

    def ok(self, value: Any) -> bool:
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(self.items)
            and all(c.ok(v) for c, v in zip(self.items, value, strict=True))
        )

    def problems(self, value: Any, path: str) -> list[str]:
        if not isinstance(value, (list, tuple)):
            return [f"{path}: expected an array, got {got(value)}"]
        if len(value) != len(self.items):
            return [f"{path}: expected an array of {len(self.items)} items, got {len(value)}"]
        out: list[str] = []
        for i, (c, v) in enumerate(zip(self.items, value, strict=True)):
            out.extend(c.problems(v, f"{path}[{i}]"))
        return out

    def expected(self) -> str:
        return "an array"


class _Mapping(Check):
    __slots__ = ("item",)

    def __init__(self, item: Check | None) -> None:
        self.item = item

    def ok(self, value: Any) -> bool:
        if not isinstance(value, Mapping):
            return False
        if not all(isinstance(k, str) for k in value):
            return False
        item = self.item
        return item is None or all(map(item.ok, value.values()))

    def problems(self, value: Any, path: str) -> list[str]:
        if not isinstance(value, Mapping):
            return [f"{path}: expected an object, got {got(value)}"]
        out: list[str] = []
        for k, v in value.items():
            if not isinstance(k, str):
                out.append(f"{path}: keys must be strings, got {got(k)}")
            if self.item is not None:
                out.extend(self.item.problems(v, f"{path}.{k}"))
        return out

    def expected(self) -> str:
        return "an object"


class _Class(Check):
    """An object of a class with declared fields (attrs, dataclass, TypedDict)."""

    __slots__ = ("cls", "fields", "instances", "keys", "unexpected")

    def __init__(self, cls: type, rules: Rules) -> None:
        self.cls = cls
        # a TypedDict's values are dicts, decoded or not (it has no instances)
        self.instances = rules.instances and not _is_typeddict(cls)
        self.unexpected = rules.unexpected_keys
        self.fields: tuple[tuple[str, Check, bool], ...] = ()  # (wire key, check, required)
        self.keys: frozenset[str] = frozenset()
        # filled after the class is in the cache (its fields may name it again)

    def fill(self, rules: Rules) -> None:
        fields = []
        for name, tp, required in _declared(self.cls):
            key = rules.wire_keys(self.cls).get(name, name)
            fields.append((key, compile_check(tp, rules), required))
        self.fields = tuple(fields)
        self.keys = frozenset(key for key, _, _ in fields)

    def ok(self, value: Any) -> bool:
        if self.instances:  # a decoded value holds instances, never a raw object
            return isinstance(value, self.cls)
        if not isinstance(value, Mapping):
            return False
        for key, check, required in self.fields:
            if key in value:
                if not check.ok(value[key]):
                    return False
            elif required:
                return False
        return not (self.unexpected and not value.keys() <= self.keys)

    def problems(self, value: Any, path: str) -> list[str]:
        if self.ok(value):
            return []
        if self.instances or not isinstance(value, Mapping):
            return [f"{path}: expected {self.expected()}, got {got(value)}"]
        out: list[str] = []
        for key, check, required in self.fields:
            if key in value:
                out.extend(check.problems(value[key], f"{path}.{key}"))
            elif required:
                out.append(f"{path}: missing required field {key!r}")
        if self.unexpected:
            out.extend(f"{path}: unexpected field {k!r}" for k in value if k not in self.keys)
        return out

    def expected(self) -> str:
        return f"an object ({self.cls.__name__})"


class _Pydantic(Check):
    """A pydantic model or dataclass: pydantic decides, by the model's own rules."""

    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def ok(self, value: Any) -> bool:
        return not self.problems(value, "$")

    def problems(self, value: Any, path: str) -> list[str]:
        from ._schema import _pydantic_problems, _pydantic_validate

        root = getattr(self.cls, "__pydantic_root_model__", False)
        if not isinstance(value, dict) and not root:
            return [f"{path}: expected {self.expected()}, got {got(value)}"]
        try:
            _pydantic_validate(self.cls, value)
        except Exception as exc:  # a ValidationError, or a validator of the model that raised
            found = _pydantic_problems(exc, path)
            text = str(exc)
            described = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
            return found if found is not None else [f"{path}: {described}"]
        return []

    def expected(self) -> str:
        return f"an object ({self.cls.__name__})"


# -- building ------------------------------------------------------------------------------


def _build(tp: Any, rules: Rules) -> Check:
    if tp is Any or tp is object or rules.skip(tp):
        return _ANYTHING
    if tp is None:
        tp = _NoneType
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated or _is_wrapper(origin):
        return compile_check(args[0], rules)
    if isinstance(tp, typing.NewType):
        return compile_check(tp.__supertype__, rules)
    if origin in (typing.Union, types.UnionType):
        return _Union(args, rules)
    if origin is Literal:
        return _Literal(args, rules.open_literals, rules.python_words)
    if origin is tuple or tp is tuple:
        if not args or (len(args) == 2 and args[1] is Ellipsis):
            return _Sequence(compile_check(args[0], rules) if args else None)
        if args == ((),):
            return _Tuple(())
        return _Tuple(tuple(compile_check(a, rules) for a in args))
    if origin in _SEQUENCES or tp in _SEQUENCES:
        item = compile_check(args[0], rules) if args else None
        return _Sequence(None if item is _ANYTHING else item)
    if origin in _MAPPINGS or tp in _MAPPINGS:
        item = compile_check(args[1], rules) if len(args) == 2 else None
        return _Mapping(None if item is _ANYTHING else item)
    if not isinstance(tp, type):
        return _ANYTHING  # a type no JSON value is judged against here (a TypeVar, ...)
    if issubclass(tp, enum.Enum):
        return _Enum(tp, rules.instances)
    if tp in _SCALAR_NAMES or tp in (dict, list):
        return _Scalar(tp, rules.integral_floats)
    if _is_pydantic(tp):
        return _Pydantic(tp)
    if attrs.has(tp) or dataclasses.is_dataclass(tp) or _is_typeddict(tp):
        check = _Class(tp, rules)
        rules._building[tp] = check  # before its fields: a field may name the class again
        try:
            check.fill(rules)
        finally:
            del rules._building[tp]
        return check
    return _Scalar(tp, rules.integral_floats)  # any other class: an instance of it


_SEQUENCES = frozenset(_schema._SEQUENCES | _schema._SETS)
_MAPPINGS = frozenset(_schema._MAPPINGS)


def _is_wrapper(origin: Any) -> bool:
    return origin is not None and getattr(origin, "_name", None) in _WRAPPERS


def _is_typeddict(tp: Any) -> bool:
    extensions = sys.modules.get("typing_extensions")
    check = getattr(extensions, "is_typeddict", None)
    return typing.is_typeddict(tp) or (check is not None and check(tp))


def _is_pydantic(tp: type) -> bool:
    if "pydantic" not in sys.modules:
        return False
    from ._schema import _pydantic_kind

    return _pydantic_kind(tp) is not None


def _declared(cls: type) -> list[tuple[str, Any, bool]]:
    """(field name, type, required) of each field of ``cls`` a value can carry."""
    hints = typing.get_type_hints(cls, include_extras=True)
    if attrs.has(cls):
        return [
            (a.name, hints.get(a.name, Any), a.default is attrs.NOTHING)
            for a in attrs.fields(cls)
            if a.init and a.name not in ("extra", "raw")
        ]
    if dataclasses.is_dataclass(cls):
        return [
            (
                f.name,
                hints.get(f.name, Any),
                f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
            )
            for f in dataclasses.fields(cls)
            if f.init
        ]
    required: frozenset[str] = getattr(cls, "__required_keys__", frozenset(hints))
    out = []
    for key, tp in hints.items():
        wrapper = getattr(typing.get_origin(tp), "_name", None)
        need = wrapper == "Required" or (wrapper != "NotRequired" and key in required)
        out.append((key, tp, need))
    return out


# -- words -----------------------------------------------------------------------------------


def _same(value: Any, expected: Any) -> bool:
    """JSON equality: ``True`` is not ``1``."""
    return bool(value == expected) and isinstance(value, bool) == isinstance(expected, bool)


def _json(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _article(name: str) -> str:
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def expected(tp: Any, rules: Rules | None = None) -> str:
    """What a value of ``tp`` is, in words ("integer", "one of "a", "b"", "an array")."""
    return compile_check(tp, rules or _WORDS).expected()


_WORDS = Rules()


def got(value: Any) -> str:
    """What a value is, in words, with a short rendering of it (``string "abc"``)."""
    return _schema._got(value)
