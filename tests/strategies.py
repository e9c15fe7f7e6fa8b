"""Hypothesis strategies derived from the attrs wire model.

`instances(cls)` builds valid instances of any wire class by reading its fields and their type
hints, so every class of the model is covered without a hand-written strategy (a class added to
the model is tested for free). Values are chosen so that an instance survives a JSON round trip
exactly:

* ``str``: any text (non-ASCII and emoji included; never a lone surrogate), short.
* ``int``: signed 64-bit. ``float``: finite. ``Any``: small JSON values.
* ``Literal[...]``: one of its values. ``X | None``: None or an ``X``. ``list[X]``: at most 3.
  ``dict[str, X]``: at most 3 entries.
* A registered tagged union (``ContentBlock``, ``HookInput``, ...): one of its members; its
  ``Unknown*`` member gets a ``raw`` dict whose tag is not a known tag (``zz_unknown_...``).
* Fields: a required field always gets a value; an optional one (default None) gets None or a
  value; one with another default gets the default or a value. ``extra`` stays empty.

The only special cases are the tags that are instance fields, documented where they are made:
the ``subtype`` of a ``SystemMessage`` (a known one on a subclass; an unknown one on the base
class, which takes every unknown subtype) and the ``type`` of a ``ServerToolResultBlock``
(``*_tool_result``).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, TypeVar

import attrs
from hypothesis import strategies as st

from claude_sdk import control, hooks, messages, permissions
from claude_sdk._base import Frame, UnknownBase, WireModel
from claude_sdk._protocol.codec import default_codec

codec = default_codec()

__all__ = [
    "ALL_WIRE_CLASSES",
    "FRAME_CLASSES",
    "MODEL_MODULES",
    "UNKNOWN_PREFIX",
    "instances",
    "json_values",
    "unknown_tags",
]

T = TypeVar("T")

MODEL_MODULES = (messages, control, hooks, permissions)

#: The prefix of every generated tag that must not be known to the model.
UNKNOWN_PREFIX = "zz_unknown_"

_NoneType = type(None)

# --------------------------------------------------------------------------------------
# Scalars and JSON

texts = st.text(max_size=12)
ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
floats = st.floats(allow_nan=False, allow_infinity=False)

json_scalars = st.none() | st.booleans() | ints | floats | texts

#: Small JSON values of any shape (the values of ``Any`` fields and of free-form dicts).
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(texts, children, max_size=3),
    max_leaves=6,
)


def unknown_tags(suffix_blocklist: tuple[str, ...] = ()) -> st.SearchStrategy[str]:
    """Tag values no union knows: ``zz_unknown_`` and any text (not ending in a suffix)."""
    tags = texts.map(lambda s: UNKNOWN_PREFIX + s)
    if suffix_blocklist:
        tags = tags.filter(lambda t: not t.endswith(suffix_blocklist))
    return tags


# --------------------------------------------------------------------------------------
# Model classes


def _is_abstract(cls: type) -> bool:
    """A class that declares a tag ``ClassVar`` without giving it a value (a base class)."""
    for name, hint in typing.get_type_hints(cls).items():
        if typing.get_origin(hint) is ClassVar and not hasattr(cls, name):
            return True
    return False


def _private(name: str) -> str:
    head, _, last = name.rpartition(".")
    return f"{head}._{last}"


def _collect(base: type) -> tuple[type, ...]:
    return tuple(
        value
        for module in MODEL_MODULES
        for value in vars(module).values()
        if isinstance(value, type)
        # defined in the module or in its private twin (``claude_sdk._messages`` for
        # ``claude_sdk.messages``: trio's layout), not imported from another model module
        and value.__module__ in (module.__name__, _private(module.__name__))
        and attrs.has(value)
        and issubclass(value, base)
        and not _is_abstract(value)
    )


#: Every concrete attrs class of the model modules that is a `WireModel`.
ALL_WIRE_CLASSES: tuple[type[WireModel], ...] = _collect(WireModel)
#: Those that are top-level frames (one NDJSON line each).
FRAME_CLASSES: tuple[type[Frame], ...] = _collect(Frame)


# --------------------------------------------------------------------------------------
# Strategies from types

_TYPE_CACHE: dict[Any, st.SearchStrategy[Any]] = {}
_CLASS_CACHE: dict[type, st.SearchStrategy[Any]] = {}


def instances(cls: type[T]) -> st.SearchStrategy[T]:
    """Valid instances of the wire class ``cls`` (see the module docstring)."""
    strategy = _CLASS_CACHE.get(cls)
    if strategy is None:
        # Deferred: classes refer to themselves through unions (a tool result holds blocks).
        strategy = _CLASS_CACHE[cls] = st.deferred(lambda: _build_class(cls))
    return strategy


def _build_class(cls: type[Any]) -> st.SearchStrategy[Any]:
    hints = typing.get_type_hints(cls)
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for a in attrs.fields(cls):
        if a.name == "extra" or not a.init:
            continue  # ``extra`` stays empty; ``raw`` is set by the decoder only
        special = _special_field(cls, a.name)
        value = special if special is not None else for_type(hints[a.name])
        if a.default is attrs.NOTHING:
            required[a.name] = value
        else:
            # Left out, the field takes its default (None means "not on the wire").
            optional[a.name] = value
    kwargs = st.fixed_dictionaries(required, optional=optional)
    return kwargs.map(lambda kw: cls(**kw))


def _special_field(cls: type, name: str) -> st.SearchStrategy[Any] | None:
    """The tags that are instance fields: values that keep dispatch (and round trips) exact."""
    if issubclass(cls, messages.SystemMessage) and name == "subtype":
        if cls is messages.SystemMessage:
            # The base class receives every subtype without a class of its own.
            return texts.filter(lambda s: s not in messages.SYSTEM_SUBTYPES)
        # A subclass is chosen by its subtype: it stays at the default.
        return st.just(attrs.fields_dict(cls)["subtype"].default)
    if cls is messages.ServerToolResultBlock and name == "type":
        # Dispatched by the suffix; "tool_result" itself is a ToolResultBlock.
        return texts.map(lambda s: s + "_tool_result").filter(lambda t: t != "tool_result")
    return None


def for_type(tp: Any) -> st.SearchStrategy[Any]:
    """Values of the type ``tp`` as it appears in a field annotation."""
    try:
        return _TYPE_CACHE[tp]
    except KeyError:
        strategy = _TYPE_CACHE[tp] = _build_type(tp)
        return strategy
    except TypeError:  # an unhashable annotation: build it each time
        return _build_type(tp)


_SCALARS: dict[Any, st.SearchStrategy[Any]] = {
    str: texts,
    int: ints,
    float: floats,
    bool: st.booleans(),
    _NoneType: st.none(),
    Any: json_values,
    object: json_values,
}


def _build_type(tp: Any) -> st.SearchStrategy[Any]:
    if tp in _SCALARS:
        return _SCALARS[tp]
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return for_type(args[0])
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, types.UnionType):
        entry = codec.generator.union_entry(tp)
        if entry is not None:
            strategy = _tagged_union(tp, entry)
            return st.none() | strategy if _NoneType in args else strategy
        return st.one_of([for_type(a) for a in args])
    if origin in (list, typing.Sequence) or tp is list:
        item = for_type(args[0]) if args else json_values
        return st.lists(item, max_size=3)
    if origin in (dict, Mapping) or tp is dict:
        value = for_type(args[1]) if args else json_values
        return st.dictionaries(texts, value, max_size=3)
    if isinstance(tp, type) and attrs.has(tp):
        return instances(tp)
    raise NotImplementedError(f"no strategy for the annotation {tp!r}")


def _tagged_union(tp: Any, entry: Any) -> st.SearchStrategy[Any]:
    """One member of a registered tagged union; ``Unknown*`` members get an unknown tag."""
    members: list[st.SearchStrategy[Any]] = []
    for member in typing.get_args(tp):
        if member is _NoneType:
            continue
        if issubclass(member, UnknownBase):
            members.append(_unknown_member(member, entry))
        else:
            members.append(instances(member))
    return st.one_of(members)


def _unknown_member(cls: type[Any], entry: Any) -> st.SearchStrategy[Any]:
    """``cls(raw=...)`` with a raw dict whose tag (``entry.key``) no member of the union knows."""
    suffixes = tuple(suffix for suffix, _ in entry.suffixes)
    key: str = entry.key
    tags = unknown_tags(suffixes).filter(lambda t: t not in entry.members and t not in entry.nested)
    payloads = st.dictionaries(texts, json_values, max_size=3)
    return st.builds(lambda tag, payload: cls(raw={**payload, key: tag}), tags, payloads)
