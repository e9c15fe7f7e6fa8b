"""``__repr__``, ``__eq__`` and ``__hash__`` of the wire classes come from their base (issue 8).

attrs would generate and compile them for each of the ~270 wire classes (about 40 ms of
every program's import); `WireModel` writes them once. These tests hold them to what attrs'
own methods do, on instances generated from the model: the repr attrs would print, equality
over the fields attrs compares (``extra`` and ``error`` excluded), a hash that agrees.
"""

from __future__ import annotations

import contextlib
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claude_sdk._base import UnknownBase, WireModel
from claude_sdk.messages import TextBlock, UnknownBlock

from ..strategies import ALL_WIRE_CLASSES, instances
from ..support.deep import deep


def _attrs_repr(obj: Any) -> str:
    """The repr attrs generates: ``Name(field=value, ...)`` over the fields with repr=True."""
    fields = ", ".join(
        f"{a.name}={getattr(obj, a.name)!r}" for a in attrs.fields(type(obj)) if a.repr
    )
    return f"{type(obj).__qualname__.rsplit('>.', 1)[-1]}({fields})"


def _eq_values(obj: Any) -> tuple[Any, ...]:
    return tuple(getattr(obj, a.name) for a in attrs.fields(type(obj)) if a.eq)


@pytest.mark.parametrize("cls", ALL_WIRE_CLASSES, ids=lambda c: c.__qualname__)
def test_no_wire_class_has_attrs_generated_methods(cls: type[WireModel]) -> None:
    assert cls.__repr__ is WireModel.__repr__
    assert cls.__eq__ is WireModel.__eq__
    assert cls.__hash__ is WireModel.__hash__


@settings(max_examples=deep(100), deadline=None)
@given(st.sampled_from(ALL_WIRE_CLASSES).flatmap(instances))
def test_repr_eq_and_hash_behave_as_attrs_would(obj: Any) -> None:
    assert repr(obj) == _attrs_repr(obj)
    twin = attrs.evolve(obj)
    assert twin == obj
    assert (twin != obj) is False  # __ne__ follows __eq__
    with contextlib.suppress(TypeError):  # a dict or list among the fields: unhashable
        assert hash(twin) == hash(obj)
    assert (obj == object()) is False


def test_equality_ignores_extra_and_needs_the_same_class() -> None:
    plain = TextBlock(text="a")
    assert plain == TextBlock(text="a", extra={"future": 1})
    assert plain != TextBlock(text="b")
    assert hash(plain) == hash(TextBlock(text="a", extra={"future": 1}))
    assert plain.__eq__(UnknownBlock(raw={"type": "text", "text": "a"})) is NotImplemented
    assert repr(plain) == "TextBlock(text='a', citations=None)"


def test_unknown_values_compare_by_raw_and_not_by_error() -> None:
    assert UnknownBlock.__eq__ is UnknownBase.__eq__
    assert UnknownBlock(raw={"type": "x"}) == UnknownBlock(raw={"type": "x"}, error="why")
    assert UnknownBlock(raw={"type": "x"}) != UnknownBlock(raw={"type": "y"})
    assert repr(UnknownBlock(raw={"type": "x"})) == "UnknownBlock(raw={'type': 'x'}, error=None)"
    assert _eq_values(UnknownBlock(raw={"type": "x"})) == ({"type": "x"},)
