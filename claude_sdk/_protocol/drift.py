"""Strict checking (drift detection): what the model does not know about a decoded value.

The decoders do not validate (they trust the CLI, for speed). `drift` walks a decoded value
and reports, one line per finding: unknown kinds (``Unknown*`` values), unknown fields (keys
kept in ``extra`` that are not explicit nulls of known fields), values whose JSON type does not
match the field's declared type, and the repairs the decoder made (``decode_issues``). An
empty list means the model covers the value. It walks without recursion, so any depth the
parser accepts is checked.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from .._base import NOTES
from .generate import TAG_NAMES, Generator, admits_none, compile_source, field_types, is_unknown

__all__ = ["drift", "field_problems", "fit_check"]

_NoneType = type(None)


def drift(gen: Generator, obj: Any, path: str = "$") -> list[str]:
    """What the model does not know about ``obj`` (empty when it knows it all)."""
    out: list[str] = []
    # A stack of values to walk and of findings to report, in the order a recursive walk
    # would report them (a field's finding, then what is inside it, then the next field).
    todo: list[tuple[Any, str | None]] = [(obj, path)]
    while todo:
        value, where = todo.pop()
        if where is None:
            out.append(value)
        else:
            _check(gen, value, where, out, todo)
    return out


def _check(
    gen: Generator, obj: Any, path: str, out: list[str], todo: list[tuple[Any, str | None]]
) -> None:
    cls = obj.__class__
    if cls in (list, tuple):
        todo.extend((item, f"{path}[{i}]") for i, item in reversed(list(enumerate(obj))))
        return
    if cls is dict:
        todo.extend(
            (item, f"{path}.{k}")
            for k, item in reversed(list(obj.items()))
            if item.__class__ in (list, tuple, dict) or attrs.has(item.__class__)
        )
        return
    if not attrs.has(cls):
        return
    if is_unknown(cls):
        raw = obj.raw
        err = getattr(obj, "error", None)
        what = ", ".join(f"{k}={raw.get(k)!r}" for k in TAG_NAMES if k in raw) or "no tag"
        note = f" ({err})" if err else ""
        kind = cls.__name__.removeprefix("Unknown").lower()
        out.append(f"{path}: unknown {kind} kind: {what}{note}")
        return
    notes = obj.__dict__.get(NOTES)
    if notes is not None:
        out.extend(f"{path}: {issue}" for issue in notes.issues)
    spec = gen.spec(cls)
    ftypes = field_types(cls)
    wire_fields = {spec.wire_name(a.name) for a in attrs.fields(cls)}
    for key, value in obj.extra.items():
        if key in wire_fields and value is None:
            continue  # an explicit null of a known optional field
        out.append(f"{path}.{key}: unknown field ({type(value).__name__})")
    steps: list[tuple[Any, str | None]] = []
    for a in attrs.fields(cls):
        if a.name in ("extra", "raw"):
            continue
        value = getattr(obj, a.name)
        sub = f"{path}.{spec.wire_name(a.name)}"
        problem = _type_problem(gen, value, ftypes[a.name])
        if problem:
            steps.append((f"{sub}: {problem}", None))
        steps.append((value, sub))
    todo.extend(reversed(steps))


def field_problems(gen: Generator, obj: Any) -> dict[str, str]:
    """Wire key -> what is wrong, for the fields of ``obj`` whose values do not fit their
    declared types (shallow: a nested object is only checked to be of its class)."""
    cls = obj.__class__
    spec = gen.spec(cls)
    ftypes = field_types(cls)
    found: dict[str, str] = {}
    for a in attrs.fields(cls):
        if a.name in ("extra", "raw"):
            continue
        problem = _type_problem(gen, getattr(obj, a.name), ftypes[a.name])
        if problem:
            found[spec.wire_name(a.name)] = problem
    return found


def fit_check(gen: Generator, cls: type) -> typing.Callable[[Any], bool]:
    """A function telling, fast, whether every field of an instance of ``cls`` fits its type:
    true exactly when `field_problems` would find nothing (it says what, on the slow path).

    Built once per class from the same rules as `_type_problem` and compiled into one function
    (a None in an optional field, the usual value, costs one comparison)."""
    ftypes = field_types(cls)
    ns: dict[str, Any] = {}
    lines = ["def check(obj):"]
    for a in attrs.fields(cls):
        if a.name in ("extra", "raw"):
            continue
        tp = ftypes[a.name]
        if tp is Any or tp is object:
            continue
        inner = _fits_value(gen, tp)
        optional = admits_none(tp)
        if inner is None and optional:
            continue
        lines.append(f"    v = obj.{a.name}")
        core = _core(tp)
        scalar = _SCALAR_TESTS.get(core) if isinstance(core, type) else None
        if scalar is not None:  # inline: most fields are scalars
            none = "v is not None and " if optional else ""
            lines.append(f"    if {none}not {scalar}: return False")
            continue
        if inner is None:
            lines.append("    if v is None: return False")
            continue
        pred = ns[f"p{len(ns)}"] = inner
        name = f"p{len(ns) - 1}"
        if optional:
            lines.append(f"    if v is not None and not {name}(v): return False")
        elif pred(None):  # it takes None: `_type_problem` does not
            lines.append(f"    if v is None or not {name}(v): return False")
        else:
            lines.append(f"    if not {name}(v): return False")
    lines.append("    return True")
    local: dict[str, Any] = {}
    exec(compile_source("\n".join(lines), f"fit check {cls.__qualname__}"), ns, local)
    return typing.cast("typing.Callable[[Any], bool]", local["check"])


#: Inline tests of the scalar types (as `_type_problem` judges them) for `fit_check`.
_SCALAR_TESTS = {
    str: "isinstance(v, str)",
    bool: "v.__class__ is bool",
    int: "(isinstance(v, int) and v.__class__ is not bool)",
    float: "(isinstance(v, (int, float)) and v.__class__ is not bool)",
}


def _core(tp: Any) -> Any:
    """``tp`` without ``None`` when that leaves one type (``int | None`` -> ``int``)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(tp) if a is not _NoneType]
        return rest[0] if len(rest) == 1 else tp
    return tp


def _fits(gen: Generator, tp: Any) -> typing.Callable[[Any], bool] | None:
    """A predicate for "a JSON value fits ``tp``" as `_type_problem` judges it; None when any
    value fits."""
    if tp is Any or tp is object:
        return None
    inner = _fits_value(gen, tp)
    if admits_none(tp):
        if inner is None:
            return None
        return lambda v: v is None or inner(v)
    if inner is None:
        return lambda v: v is not None
    if not inner(None):
        return inner  # it refuses None itself
    return lambda v: v is not None and inner(v)


def _fits_value(gen: Generator, tp: Any) -> typing.Callable[[Any], bool] | None:
    """Like `_fits` for a value known not to be None."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _fits(gen, args[0])
    if origin is Literal:
        return lambda v: v in args
    if origin in (typing.Union, types.UnionType):
        if gen.union_entry(tp) is not None:
            return None
        # The value is not None here: the None alternative is `_fits`'s to judge.
        preds = [_fits_value(gen, a) for a in args if a is not _NoneType]
        if not preds or any(p is None for p in preds):
            return None
        alternatives = tuple(p for p in preds if p is not None)
        if len(alternatives) == 1:
            return alternatives[0]
        return lambda v: any(p(v) for p in alternatives)
    if origin in (list, typing.Sequence):
        item = _fits(gen, args[0]) if args else None
        if item is None:
            return lambda v: isinstance(v, list)
        return lambda v: isinstance(v, list) and all(map(item, v))
    if origin in (dict, Mapping):
        value = _fits(gen, args[1]) if len(args) == 2 else None
        if value is None:
            return lambda v: isinstance(v, Mapping)
        return lambda v: isinstance(v, Mapping) and all(map(value, v.values()))
    if isinstance(tp, type):
        if tp is float:
            return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
        if tp is int:
            return lambda v: isinstance(v, int) and not isinstance(v, bool)
        return lambda v: isinstance(v, tp)
    return None


def _type_problem(gen: Generator, value: Any, tp: Any) -> str | None:
    """A short description when a JSON value does not fit ``tp`` (shallow for containers)."""
    if tp is Any or tp is object:
        return None
    if value is None:
        return None if admits_none(tp) else "null where a value is required"
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _type_problem(gen, value, args[0])
    if origin is Literal:
        return None if value in args else f"value {value!r} not in {list(args)}"
    if origin in (typing.Union, types.UnionType):
        if gen.union_entry(tp) is not None:
            return None
        problems = [_type_problem(gen, value, a) for a in args]
        if any(p is None for p in problems):
            return None
        return f"{type(value).__name__} does not match {_tname(tp)}"
    if origin in (list, typing.Sequence):
        if not isinstance(value, list):
            return f"{type(value).__name__} where a list is expected"
        if args:
            for item in value:
                p = _type_problem(gen, item, args[0])
                if p:
                    return f"item: {p}"
        return None
    if origin in (dict, Mapping):
        if not isinstance(value, Mapping):
            return f"{type(value).__name__} where an object is expected"
        if len(args) == 2:
            for item in value.values():
                p = _type_problem(gen, item, args[1])
                if p:
                    return f"value: {p}"
        return None
    if isinstance(tp, type):
        if attrs.has(tp):
            return None if isinstance(value, tp) else f"{type(value).__name__} is not {tp.__name__}"
        if tp is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            return None if ok else f"{type(value).__name__} where a number is expected"
        if tp is int and isinstance(value, bool):
            return "bool where an integer is expected"
        if tp in (dict, list):
            return None if isinstance(value, tp) else f"{type(value).__name__} is not {tp.__name__}"
        if issubclass(tp, enum.Enum):
            return None if isinstance(value, tp) else f"{value!r} is not a {tp.__name__}"
        return None if isinstance(value, tp) else f"{type(value).__name__} is not {tp.__name__}"
    return None


def _tname(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")
