"""Base classes shared by every wire model class.

Representation (why these classes are ``slots=False``): an instance's ``__dict__`` holds the
fields the wire carried, and nothing else; an optional field that was absent is not in it and
reads as the class-level default. So decoding a frame is one dict copy plus a few fix-ups (five
times faster than filling slots), and presence in ``__dict__`` records exactly which keys the
frame had, so re-encoding reproduces it (explicit nulls included). Instances built in Python
follow the same rule: ``__attrs_post_init__`` drops optional fields left at ``None``, except
those a class lists in its ``_always`` ClassVar (fields the CLI always writes, ``null``
included, such as ``parent_tool_use_id``).

Invariants:

* Wire classes are ``@attrs.frozen(kw_only=True, slots=False, repr=False, eq=False)``
  subclasses of `WireModel` (or `UnknownBase`); they know nothing of JSON (the codec in
  ``claude_sdk._protocol`` maps them, and this layer imports nothing from it). Their
  ``__repr__``, ``__eq__`` and ``__hash__`` come from the base, written once and driven by
  ``attrs.fields`` (the same output and semantics as attrs' own): attrs would generate and
  compile them for each of the ~270 classes, about 40 ms of every program's import (issue 8).
  Their defaults are immutable values (``None``, a string, a number): a factory default would
  need a value in every instance.
* A decoded instance keeps its tag (``type``, ...) in its ``__dict__``: the value is the
  class's own, by which it was dispatched (see `tag_keys`).
* ``extra`` holds the wire keys the model does not know. It is excluded from equality and
  repr, and written back on encode, so ``attrs.evolve`` keeps it. A decoded instance keeps
  those keys in its ``__dict__`` beside the fields and ``extra`` collects them on access (the
  decoder does not pay for a check that almost always finds nothing).
* A frame the decoder had to repair (invalid UTF-8 replaced, a field whose value did not fit
  kept raw in ``extra``) says so in `Frame.decode_issues`; the notes live under one reserved
  ``__dict__`` key (`NOTES`) that is neither a field nor ``extra``.
* Top-level frames give ``raw``: the dict they were decoded from, rebuilt exactly on access by
  the default codec (`bind_encoder`: the codec layer hands it down when it builds it; the
  model never imports it).
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, SupportsIndex

import attrs

from ._attrs import after_model_build, build, class_default, model

__all__ = [
    "ABSENT",
    "EMPTY",
    "HOST_NOTES",
    "NOTES",
    "DecodeNotes",
    "Frame",
    "UnknownBase",
    "WireModel",
    "bind_encoder",
    "encode_default",
    "build",
    "class_default",
    "field_names",
    "model",
    "prepare_class",
    "replace",
    "tag_keys",
]

#: The shared, immutable empty mapping used as ``extra`` when nothing is unknown.
EMPTY: Mapping[str, Any] = types.MappingProxyType({})

#: The reserved ``__dict__`` key of a frame's decode notes (see `Frame.decode_issues`).
NOTES = "_decode_notes"
#: The reserved ``__dict__`` key of what the host found about a frame after decoding it (a
#: dict; for example a result's ``structured_output_error``). Never encoded, never drift.
HOST_NOTES = "_host_notes"

# First-use memos, read without a lock: each value is built whole, then stored in one
# assignment (issue 26: first uses from several threads at once). `prepare_class` may run
# twice for a class; it installs the same defaults.
_NONE_DEFAULTS: dict[type, tuple[str, ...]] = {}
_FIELD_NAMES: dict[type, frozenset[str]] = {}
_TAG_KEYS: dict[type, frozenset[str]] = {}
#: Orders `tag_keys` and the building of `field_names`, which reads what it wrote: without it
#: a thread could store names computed before another thread's `tag_keys` for ever.
_NAMES_LOCK = threading.Lock()
#: The default codec's ``unstructure`` (see `bind_encoder`).
_ENCODER: list[Callable[[Any], Any]] = []


class DecodeNotes:
    """What the decoder repaired in one frame (kept under `NOTES` in its ``__dict__``).

    Attributes:
        issues: one line per repair, for people (`Frame.decode_issues`).
        required: wire key -> the value the CLI sent, for required fields that hold a
            stand-in value instead (`ABSENT` when the key was missing): the encoder writes
            these back, so that re-encoding still gives what came.
    """

    __slots__ = ("issues", "required")

    def __init__(self, issues: tuple[str, ...], required: Mapping[str, Any] = EMPTY) -> None:
        self.issues = issues
        self.required = required

    def __repr__(self) -> str:
        return f"DecodeNotes({self.issues!r})"


#: In `DecodeNotes.required`: the frame did not carry the key at all.
ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "ABSENT"})()


def bind_encoder(unstructure: Callable[[Any], Any]) -> None:
    """Give `Frame.raw` the default codec's ``unstructure`` (called by the codec layer when it
    builds the default codec: the model depends on nothing above it)."""
    _ENCODER[:] = [unstructure]


def encode_default(obj: Any) -> dict[str, Any]:
    """``obj`` as the dict the default codec writes (what ``raw`` properties give).

    Raises:
        RuntimeError: no codec has been built in this process yet (nothing was decoded or
            encoded): use ``claude_sdk.wire.to_dict(obj)``, which builds it.
    """
    if not _ENCODER:
        raise RuntimeError(
            "no codec has been built in this process yet: "
            "use claude_sdk.wire.to_dict() to encode a value built in Python"
        )
    data: dict[str, Any] = _ENCODER[0](obj)
    return data


def tag_keys(cls: type, keys: frozenset[str]) -> None:
    """The wire keys of the tags of ``cls`` (``type``, ...), which a decoded instance keeps.

    The codec leaves a frame's tag in the decoded ``__dict__`` (it holds the class's own
    value: that is how the frame was dispatched), so `extra` must not report it.
    """
    if _TAG_KEYS.get(cls) == keys:
        return  # the codec says it again for each decoder that contains the class
    with _NAMES_LOCK:
        _TAG_KEYS[cls] = keys
        _FIELD_NAMES.pop(cls, None)


def field_names(cls: type) -> frozenset[str]:
    """The keys of a ``cls`` instance's ``__dict__`` that are not ``extra``: its fields
    (``extra`` and ``raw`` included) and the wire keys of its tags (see `tag_keys`)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        with _NAMES_LOCK:
            names = frozenset(a.name for a in attrs.fields(cls)) | _TAG_KEYS.get(cls, frozenset())
            _FIELD_NAMES[cls] = names = names | {NOTES, HOST_NOTES}
    return names


class _ExtraDescriptor:
    """``extra`` of an instance that does not hold it: its keys that are not fields."""

    def __get__(self, obj: Any, cls: type | None = None) -> Mapping[str, Any]:
        if obj is None:
            return EMPTY
        names = _FIELD_NAMES.get(type(obj)) or field_names(type(obj))
        d = obj.__dict__
        if d.keys() <= names:  # the usual case, checked in C: nothing unknown
            return EMPTY
        return {k: v for k, v in d.items() if k not in names}


_EXTRA = _ExtraDescriptor()


def prepare_class(cls: type) -> tuple[str, ...]:
    """Install class-level defaults for ``cls`` and return the names of its fields that a
    Python-built instance drops from ``__dict__`` when they are None.

    Raises:
        TypeError: a field has a factory default (see the module invariants).
    """
    names = _NONE_DEFAULTS.get(cls)
    if names is not None:
        return names
    keep: set[str] = set()
    for klass in cls.__mro__:
        keep.update(klass.__dict__.get("_always", ()))
    collected = []
    for a in attrs.fields(cls):
        if a.default is attrs.NOTHING:
            continue
        if isinstance(a.default, attrs.Factory):  # type: ignore[arg-type]
            raise TypeError(
                f"{cls.__qualname__}.{a.name}: wire classes take immutable defaults, not factories"
            )
        if a.name == "extra":
            type.__setattr__(cls, "extra", _EXTRA)
        elif a.name not in cls.__dict__:
            type.__setattr__(cls, a.name, a.default)
        if a.default is None and a.name not in keep:
            collected.append(a.name)
    names = _NONE_DEFAULTS[cls] = tuple(collected)
    return names


# attrs removes a class's field defaults from the class when it builds it; an instance made
# before without ``__init__`` (unpickled, copied) reads them there: put them back at once.
after_model_build(prepare_class)

_EQ_NAMES: dict[type, tuple[str, ...]] = {}
_REPR_NAMES: dict[type, tuple[str, ...]] = {}
_repr_context = threading.local()


def _eq_names(cls: type) -> tuple[str, ...]:
    names = _EQ_NAMES.get(cls)
    if names is None:
        names = _EQ_NAMES[cls] = tuple(a.name for a in attrs.fields(cls) if a.eq)
    return names


def _model_eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = _eq_names(type(self))  # the fields attrs would compare, in order
    return all(getattr(self, name) == getattr(other, name) for name in names)


def _model_hash(self: Any) -> int:
    return hash((type(self), *[getattr(self, name) for name in _eq_names(type(self))]))


def _model_repr(self: Any) -> str:
    cls = type(self)
    names = _REPR_NAMES.get(cls)
    if names is None:
        names = _REPR_NAMES[cls] = tuple(a.name for a in attrs.fields(cls) if a.repr)
    seen: set[int] | None = getattr(_repr_context, "seen", None)
    if seen is None:
        seen = _repr_context.seen = set()
    if id(self) in seen:
        return "..."
    seen.add(id(self))
    try:
        body = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
    finally:
        seen.discard(id(self))
    return f"{cls.__qualname__.rsplit('>.', 1)[-1]}({body})"


def _unpickle(cls: type, state: dict[str, Any], tags: frozenset[str] | None) -> Any:
    """A pickled wire value (`WireModel.__reduce_ex__`)."""
    if tags is not None and cls not in _TAG_KEYS:
        tag_keys(cls, tags)
    if cls not in _NONE_DEFAULTS:
        prepare_class(cls)  # builds it: its defaults are on the class
    obj: Any = object.__new__(cls)
    object.__setattr__(obj, "__dict__", dict(state))
    return obj


def replace(obj: Any, **changes: Any) -> Any:
    """A copy of the wire value ``obj`` with ``changes`` (field names) set.

    What ``attrs.evolve`` gives for a wire class (they have no validators or converters),
    without calling ``__init__``: the copy holds what ``obj`` held, plus the changes (a change
    to None is held too, as an explicit null). About ten times faster; the host's answer to
    every permission request is made this way.
    """
    copy = object.__new__(type(obj))  # its class is prepared: ``obj`` was made
    object.__setattr__(copy, "__dict__", {**obj.__dict__, **changes})
    return copy


@model
class WireModel:
    """Base of every wire value class.

    A subclass lists in ``_always`` the optional fields that an instance built in Python
    keeps (and the codec writes) even when they are None.
    """

    _always: ClassVar[tuple[str, ...]] = ()
    extra: Mapping[str, Any] = attrs.field(default=EMPTY, eq=False, repr=False)

    if TYPE_CHECKING:  # what the assignments below are, for type checkers
        #: An attrs class (`model` builds it on first use): ``attrs.fields`` takes it.
        __attrs_attrs__: ClassVar[Any]

        def __repr__(self) -> str: ...
        def __eq__(self, other: object) -> bool: ...
        def __hash__(self) -> int: ...

    else:  # the functions themselves, not a method calling them: no extra call per use
        __repr__ = _model_repr
        __eq__ = _model_eq
        __hash__ = _model_hash

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        """Pickling and ``copy``: the ``__dict__``, and the wire keys of the class's tags,
        which another process learns only when it builds a codec (without them, ``extra``
        there would list the tag, ``type`` or ``subtype``)."""
        cls = type(self)
        return (_unpickle, (cls, self.__dict__, _TAG_KEYS.get(cls)))

    def __attrs_post_init__(self) -> None:
        names = _NONE_DEFAULTS.get(type(self)) or prepare_class(type(self))
        d = self.__dict__
        for name in names:
            if name in d and d[name] is None:
                del d[name]
        if d.get("extra") is EMPTY:
            del d["extra"]


@model
class Frame(WireModel):
    """Base of every top-level frame (one NDJSON line)."""

    @property
    def raw(self) -> dict[str, Any]:
        """The frame as a dict: exactly the JSON object it was decoded from.

        Built on access from the object by the default codec (encoding is lossless); a copy
        made with ``attrs.evolve`` gives its own fields.

        Raises:
            RuntimeError: no codec has been built in this process yet (nothing was decoded
                or encoded): use ``claude_sdk.wire.to_dict(frame)``, which builds it.
        """
        return encode_default(self)

    @property
    def decode_issues(self) -> tuple[str, ...]:
        """What the decoder had to repair to give this frame (empty for a frame that fitted).

        For example invalid UTF-8 replaced by U+FFFD, or a field whose value did not fit its
        type (that field reads as its default and the value the CLI sent is in ``extra``).
        """
        notes = self.__dict__.get(NOTES)
        return notes.issues if notes is not None else ()


@model
class UnknownBase:
    """Base of the ``Unknown*`` values: a kind the model does not know, kept whole."""

    _unknown_kind: ClassVar[bool] = True
    if TYPE_CHECKING:  # as in `WireModel`
        __attrs_attrs__: ClassVar[Any]

        def __repr__(self) -> str: ...
        def __eq__(self, other: object) -> bool: ...
        def __hash__(self) -> int: ...

    else:
        __repr__ = _model_repr
        __eq__ = _model_eq
        __hash__ = _model_hash

    raw: Mapping[str, Any]
    #: Set when the kind is known but its shape did not fit the model.
    error: str | None = attrs.field(default=None, eq=False)
