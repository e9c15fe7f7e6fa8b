"""The one checker (`claude_sdk._fit`; issue 29, item 2).

Drift (and so hook answers), the codec's fast fit check, the typed tool views and ``@tool``
arguments all ask `compile_check`; what differs between them is their `Rules`. These tests
hold a check's two answers to each other (``problems`` is empty exactly when ``ok``), over
generated types and values, under each user's rules, and pin what each rule changes.
"""

from __future__ import annotations

import enum
import typing
from typing import Any, Literal, TypedDict

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import _fit
from claude_sdk._base import WireModel, model
from claude_sdk._protocol import drift
from claude_sdk._protocol.codec import default_codec
from claude_sdk.tool_inputs import typed_input

from .support.deep import deep


@attrs.define
class Point:
    x: int
    y: int = 0


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Movie(TypedDict, total=False):
    title: str
    year: int


_scalars = st.sampled_from([str, int, float, bool, type(None), Any, Colour])
_literals = st.lists(
    st.one_of(st.text(max_size=3), st.integers(-2, 2), st.booleans()), min_size=1, max_size=3
).map(lambda vs: Literal[tuple(vs)])


def _compound(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        inner.map(lambda t: list[t]),  # type: ignore[valid-type]
        inner.map(lambda t: dict[str, t]),  # type: ignore[valid-type]
        st.tuples(inner, inner).map(lambda ts: tuple[ts[0], ts[1]]),  # type: ignore[valid-type]
        st.lists(inner, min_size=2, max_size=3).map(lambda ts: typing.Union[tuple(ts)]),  # noqa: UP007
        inner.map(lambda t: typing.Optional[t]),  # noqa: UP045
    )


TYPES = st.recursive(
    st.one_of(_scalars, _literals, st.just(Point), st.just(Movie)), _compound, max_leaves=5
)
JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.floats(-3, 3),
        st.text(max_size=4),
        st.sampled_from(["red", "blue"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["x", "y", "title", "year", "z"]), inner, max_size=3),
    ),
    max_leaves=8,
)

RULES = {
    "arguments": _fit.Rules(unexpected_keys=True, integral_floats=True),
    "views": _fit.Rules(open_literals=True),
    "decoded": _fit.Rules(instances=True),
}


@pytest.mark.parametrize("use", sorted(RULES))
@settings(max_examples=deep(300), deadline=None)
@given(tp=TYPES, value=JSON)
def test_problems_are_empty_exactly_when_the_value_fits(use: str, tp: Any, value: Any) -> None:
    check = _fit.compile_check(tp, RULES[use])
    problems = check.problems(value, "$")
    assert (problems == []) == check.ok(value), (tp, value, problems)
    assert all(p.startswith("$") for p in problems)


def test_the_json_types() -> None:
    rules = _fit.Rules()

    def ok(tp: Any, v: Any) -> bool:
        return _fit.compile_check(tp, rules).ok(v)

    assert not ok(int, True)  # a boolean is no number
    assert not ok(float, False)
    assert ok(float, 2)
    assert ok(int, 2)
    assert not ok(int, 2.0)
    assert ok(int | None, None)
    assert not ok(int, None)
    assert ok(Any, object())
    assert ok(object, None)
    assert ok(list[int], [1, 2])
    assert not ok(list[int], [1, "2"])
    assert ok(dict[str, int], {"a": 1})
    assert not ok(dict[str, int], {1: 1})
    assert ok(tuple[int, str], [1, "a"])
    assert not ok(tuple[int, str], [1])
    assert ok(Literal["a", 1], 1)
    assert not ok(Literal[1], True)
    assert ok(typing.Annotated[int, "meta"], 1)
    assert ok(Colour, "red")
    assert not ok(Colour, "green")


def test_what_each_rule_changes() -> None:
    assert _fit.compile_check(Literal["a"], _fit.Rules(open_literals=True)).ok("b")
    assert not _fit.compile_check(Literal["a"], _fit.Rules()).ok("b")
    assert not _fit.compile_check(Literal["a"], _fit.Rules(open_literals=True)).ok(1)
    assert _fit.compile_check(int, _fit.Rules(integral_floats=True)).ok(2.0)
    strict = _fit.Rules(unexpected_keys=True)
    assert _fit.compile_check(Point, strict).problems({"x": 1, "q": 2}, "$") == [
        "$: unexpected field 'q'"
    ]
    assert _fit.compile_check(Point, _fit.Rules()).ok({"x": 1, "q": 2})
    assert _fit.compile_check(Point, _fit.Rules()).problems({"y": 1}, "$") == [
        "$: missing required field 'x'"
    ]
    decoded = _fit.Rules(instances=True)
    assert _fit.compile_check(Point, decoded).ok(Point(1))
    assert not _fit.compile_check(Point, decoded).ok({"x": 1})  # decoded values hold instances
    renamed = _fit.Rules(wire_keys=lambda cls: {"x": "X"} if cls is Point else {})
    assert _fit.compile_check(Point, renamed).ok({"X": 1})
    assert not _fit.compile_check(Point, renamed).ok({"x": 1})
    skipping = _fit.Rules(skip=lambda tp: tp is Point)
    assert _fit.compile_check(list[Point], skipping).ok(["anything"])


def test_a_tagged_union_is_dispatched_on_its_tag() -> None:
    @attrs.define
    class A:
        kind: Literal["a"]
        n: int

    @attrs.define
    class B:
        kind: Literal["b"]

    rules = _fit.Rules(
        tagged=lambda tp: ("kind", {"a": A, "b": B}) if set(typing.get_args(tp)) == {A, B} else None
    )
    check = _fit.compile_check(A | B, rules)
    assert check.ok({"kind": "a", "n": 1})
    assert check.ok({"kind": "b"})
    assert check.problems({"kind": "a", "n": "x"}, "$") == ['$.n: expected integer, got string "x"']
    assert check.problems({"kind": "c"}, "$") == [
        '$: expected an object whose \'kind\' is one of "a", "b", got an object'
    ]


def test_a_recursive_class_is_checked_to_any_depth_of_its_value() -> None:
    @attrs.define
    class Node:
        value: int
        children: list[Node] = attrs.Factory(list)

    typing.get_type_hints(Node, localns={"Node": Node})  # resolvable where it is defined
    Node.__annotations__["children"] = list[Node]
    check = _fit.compile_check(Node, _fit.Rules())
    tree = {"value": 1, "children": [{"value": 2, "children": [{"value": "x"}]}]}
    assert check.problems(tree, "$") == [
        '$.children[0].children[0].value: expected integer, got string "x"'
    ]


@model
class _Sample(WireModel):
    name: str
    count: int | None = None
    mode: Literal["a", "b"] | None = None
    tags: list[str] | None = None


@settings(max_examples=deep(200), deadline=None)
@given(name=JSON, count=JSON, mode=JSON, tags=JSON)
def test_the_codecs_fast_check_agrees_with_its_problems(
    name: Any, count: Any, mode: Any, tags: Any
) -> None:
    """The compiled fit check of decoded frames and the drift of their fields ask the same
    checks: the fast answer is yes exactly when no field has a problem."""
    gen = default_codec()._gen
    obj: Any = object.__new__(_Sample)
    object.__setattr__(obj, "__dict__", {"name": name, "count": count, "mode": mode, "tags": tags})
    fast = drift.fit_check(gen, _Sample)
    assert fast(obj) == (drift.field_problems(gen, obj) == {})


def test_the_views_use_it_too() -> None:
    """A tool input fits its class when the one checker says so under the views' rules."""
    assert typed_input("Bash", {"command": "ls", "timeout": 5}) is not None
    assert typed_input("Bash", {"command": "ls", "timeout": "5"}) is None
    assert typed_input("Bash", {"command": "ls", "newer_flag": 1}) is not None  # kept in extra
    todo = {"todos": [{"content": "c", "status": "cancelled", "activeForm": "a"}]}
    assert typed_input("TodoWrite", todo) is not None  # a newer CLI's status fits


def test_the_one_checker_is_the_only_one() -> None:
    """Drift, the codec's fast check, the tool views and ``@tool`` arguments ask `_fit`; the
    walks they had of their own are gone (issue 29: three checkers that had to agree)."""
    import ast
    from pathlib import Path

    root = Path(cs.__file__).parent
    asks = {
        "_protocol/drift.py": {"_type_problem", "fit_check"},
        "tool_inputs.py": {"fits"},
        "tools.py": {"_check"},
    }
    gone = {
        "_fits",
        "_fits_value",
        "_check_union",
        "_check_tuple",
        "_check_attrs",
        "_check_dataclass",
        "_check_typeddict",
        "_check_pydantic",
        "_is_int",
        "_is_number",
    }
    for path, functions in asks.items():
        tree = ast.parse((root / path).read_text())
        defined = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert not (gone & set(defined)), (path, gone & set(defined))
        for name in functions:
            calls = {
                getattr(c.func, "id", getattr(c.func, "attr", None))
                for c in ast.walk(defined[name])
                if isinstance(c, ast.Call)
            }
            assert "compile_check" in calls, (path, name)
