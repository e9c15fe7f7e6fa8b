"""attrs classes built on first use, not at import.

Creating an attrs class writes and compiles its methods (``__init__`` above all): about half
a millisecond per class, and the library has some 550 of them, most of which a program never
touches. The decorators here take the same arguments as ``attrs.frozen`` / ``attrs.define``
(classes are always ``slots=False``: attrs then patches the class in place, so the class
object a module defines is the one it keeps) and defer that work to the class's first use:

* its first instance (a stand-in ``__init__`` builds the class, then calls the real one);
* the first look at its fields: ``attrs.fields``, ``attrs.has``, ``attrs.fields_dict``, the
  codec, a subclass being built (a stand-in ``__attrs_attrs__`` builds it and answers).

`model` is the decorator of every wire class (`claude_sdk._base`): ``frozen(kw_only=True,
repr=False, eq=False)``, with ``__repr__``, ``__eq__`` and ``__hash__`` from the base.

Type checkers see ``attrs.frozen`` / ``attrs.define`` themselves (mypy's attrs plugin, pyright's
``dataclass_transform``), and `model` as a ``dataclass_transform`` of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

__all__ = [
    "after_build",
    "after_model_build",
    "build",
    "class_default",
    "declared_names",
    "define",
    "frozen",
    "model",
]

_T = TypeVar("_T", bound=type)
#: Builds are recursive (a class's bases first) and may start in several threads at once.
_BUILD_LOCK = threading.RLock()


class _Unbuilt:
    """``__attrs_attrs__`` of a class that attrs has not built yet: the first look builds it."""

    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        build(self.cls)
        return getattr(owner or self.cls, "__attrs_attrs__")  # noqa: B009 (not this descriptor)


def build(cls: type) -> type:
    """Have attrs build ``cls`` now if its building was deferred (idempotent, thread-safe)."""
    if not isinstance(cls.__dict__.get("__attrs_attrs__"), _Unbuilt):
        return cls
    with _BUILD_LOCK:
        if not isinstance(cls.__dict__.get("__attrs_attrs__"), _Unbuilt):
            return cls  # another thread built it meanwhile
        make, options, wire = cls.__dict__["__deferred_attrs__"]
        # The stand-ins stay until attrs replaces them (``init=True``: attrs would otherwise
        # keep a class's own ``__init__``), so that another thread never sees a class
        # without them: it waits on the lock, then finds the class built.
        built: type = make(cls, **{"init": True, **options})
        assert built is cls  # slots=False: attrs patches the class in place
        if wire:
            for step in _AFTER_MODEL_BUILD:
                step(cls)
        for step in _AFTER_BUILD.pop(cls, ()):
            step(cls)
    return cls


#: What runs right after one class is built (`after_build`).
_AFTER_BUILD: dict[type, list[Callable[[type], object]]] = {}


def after_build(cls: type, step: Callable[[type], object]) -> None:
    """Run ``step(cls)`` once attrs has built ``cls`` (now, if it is built already): a class
    adds to what attrs generates (`claude_sdk.options` explains unknown keywords)."""
    with _BUILD_LOCK:
        if isinstance(cls.__dict__.get("__attrs_attrs__"), _Unbuilt):
            _AFTER_BUILD.setdefault(cls, []).append(step)
            return
    step(cls)


#: What runs right after a `model` class is built (`after_model_build`).
_AFTER_MODEL_BUILD: list[Callable[[type], object]] = []


def after_model_build(step: Callable[[type], object]) -> None:
    """Run ``step(cls)`` right after each `model` class is built (the model layer installs
    the class-level defaults that attrs removes)."""
    _AFTER_MODEL_BUILD.append(step)


def declared_names(cls: type) -> list[str]:
    """The field names of ``cls`` in attrs' order (a base's first), without building it: its
    annotations that are not ``ClassVar``s (what ``auto_attribs`` collects)."""
    if not isinstance(cls.__dict__.get("__attrs_attrs__"), _Unbuilt):
        return [a.name for a in attrs.fields(cls)]
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        own = [
            name
            for name, annotation in vars(klass).get("__annotations__", {}).items()
            if not _is_classvar(annotation)
        ]
        # a field a subclass declares again moves to the subclass's place, as attrs puts it
        names = [name for name in names if name not in own] + own
    return names


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return "ClassVar" in text.split("[", 1)[0]


def class_default(cls: type, name: str) -> Any:
    """The default of the field ``name`` of ``cls``, without building the class."""
    if isinstance(cls.__dict__.get("__attrs_attrs__"), _Unbuilt) and name in cls.__dict__:
        return cls.__dict__[name]
    return attrs.fields_dict(cls)[name].default


def _defer(cls: _T, make: Callable[..., Any], options: dict[str, Any], wire: bool = False) -> _T:
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        build(cls)
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]

    def setstate(self: Any, state: Any) -> None:
        # Unpickling and ``copy`` make an instance without ``__init__``: the class is built
        # first, or it would compare, hash and print as a plain object until something else
        # built it (two equal Options unpickled in a fresh process were not equal).
        build(cls)
        self.__dict__.update(state)

    init.__name__, init.__qualname__ = "__init__", f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    setstate.__name__, setstate.__qualname__ = "__setstate__", f"{cls.__qualname__}.__setstate__"
    type.__setattr__(cls, "__deferred_attrs__", (make, {**options, "slots": False}, wire))
    type.__setattr__(cls, "__init__", init)
    if "__setstate__" not in cls.__dict__:
        type.__setattr__(cls, "__setstate__", setstate)
    type.__setattr__(cls, "__attrs_attrs__", _Unbuilt(cls))
    return cls


def _deferring(make: Callable[..., Any], name: str) -> Callable[..., Any]:
    def decorator(maybe_cls: Any = None, /, **options: Any) -> Any:
        if maybe_cls is None:
            return lambda cls: _defer(cls, make, options)
        return _defer(maybe_cls, make, options)

    decorator.__name__ = decorator.__qualname__ = name
    decorator.__doc__ = f"``attrs.{name}``, built on first use (always slots=False)."
    return decorator


if TYPE_CHECKING:
    from attrs import define, frozen
    from typing_extensions import dataclass_transform
else:
    frozen = _deferring(attrs.frozen, "frozen")
    define = _deferring(attrs.define, "define")

    def dataclass_transform(**kwargs: Any) -> Any:  # read by type checkers only
        return lambda f: f


_WIRE = {"kw_only": True, "repr": False, "eq": False}


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(attrs.field,))
def model(cls: _T, /) -> _T:
    """The decorator of every wire class: ``attrs.frozen(kw_only=True, slots=False,
    repr=False, eq=False)``, built on first use. A wire class whose fields convert their
    values (mypy reads converters from attrs' own decorators only) uses `frozen` with the
    same arguments."""
    return _defer(cls, attrs.frozen, _WIRE, wire=True)
