"""Strict checking (drift detection): what the model does not know about a decoded value.

The decoders do not validate (they trust the CLI, for speed). `drift` walks a decoded value
and reports, one line per finding: unknown kinds (``Unknown*`` values), unknown fields (keys
kept in ``extra`` that are not explicit nulls of known fields), values whose JSON type does not
match the field's declared type, and the repairs the decoder made (``decode_issues``). An
empty list means the model covers the value. It walks without recursion, so any depth the
parser accepts is checked.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import attrs

from .._base import NOTES
from .._fit import ANYTHING, SCALAR_TESTS, compile_check
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

    Built once per class from the checks of `claude_sdk._fit` (the same ones
    `field_problems` asks) and compiled into one function: a scalar field is tested inline
    (`claude_sdk._fit.SCALAR_TESTS`), a None in an optional field costs one comparison."""
    ftypes = field_types(cls)
    ns: dict[str, Any] = {}
    lines = ["def check(obj):"]
    for a in attrs.fields(cls):
        if a.name in ("extra", "raw"):
            continue
        tp = ftypes[a.name]
        check = compile_check(tp, gen.fit_rules)
        if check is ANYTHING:
            continue
        lines.append(f"    v = obj.{a.name}")
        core = _core(tp)
        scalar = SCALAR_TESTS.get(core) if isinstance(core, type) else None
        if scalar is not None:  # inline: most fields are scalars
            none = "v is not None and " if admits_none(tp) else ""
            lines.append(f"    if {none}not {scalar}: return False")
            continue
        name = f"p{len(ns)}"
        ns[name] = check.ok
        lines.append(f"    if not {name}(v): return False")
    lines.append("    return True")
    local: dict[str, Any] = {}
    exec(compile_source("\n".join(lines), f"fit check {cls.__qualname__}"), ns, local)
    return typing.cast("typing.Callable[[Any], bool]", local["check"])


def _core(tp: Any) -> Any:
    """``tp`` without ``None`` when that leaves one type (``int | None`` -> ``int``)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(tp) if a is not _NoneType]
        return rest[0] if len(rest) == 1 else tp
    return tp


def _type_problem(gen: Generator, value: Any, tp: Any) -> str | None:
    """What keeps a decoded field value from fitting ``tp`` (None when it fits)."""
    check = compile_check(tp, gen.fit_rules)
    if check.ok(value):
        return None
    return "; ".join(p.removeprefix("$: ") for p in check.problems(value, "$"))
