"""The wire codec: JSON lines to typed frames and back.

Contract:

* ``decode_frame(line)`` turns one NDJSON line into one typed frame. It never raises for a
  line that is a JSON object: an unknown ``type``, ``subtype`` or block kind becomes an
  ``Unknown*`` value holding the raw dict, and a known kind whose shape no longer fits the
  model is logged and returned as ``UnknownMessage`` (with the raw dict) rather than ending
  the stream. Only a line that is not a JSON object raises ``MessageDecodeError``.
* Fields the model does not know are kept in ``extra`` (excluded from equality and repr)
  and written back by ``encode``. A decoded object's ``__dict__`` holds exactly the keys
  the frame carried (explicit nulls included), so ``encode(decode(d)) == d`` for every
  frame the CLI sends. A copy made with ``attrs.evolve`` is built like any Python-made
  object: its optional fields left at None are not written.
* Known limitation: orjson turns integers beyond 64 bits (but within the float range) into
  floats (ijl/orjson#308); such a value decodes rounded.
* camelCase and snake_case are mapped here, never in the model classes.
* Top-level frames keep the dict they were decoded from in ``raw`` (``init=False``: an
  ``attrs.evolve`` copy starts with ``raw=None`` and is encoded from its fields).

How: one module-level cattrs ``Converter`` (made on first use) whose hooks for the wire
classes are generated Python functions, built lazily on first use (cattrs' own approach,
specialised). The generated decoder makes each object without calling ``__init__`` (the
decoded dict becomes its ``__dict__``) and does no per-field validation. Validation of types
and the report of unknown kinds and fields is the job of the strict checker,
``drift(frame)``, which tests and ``python -m claude_sdk.testing drift`` use.
"""

from __future__ import annotations

import contextlib
import copy
import enum
import importlib
import inspect
import json
import logging
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import attrs
import orjson

from .._base import EMPTY, keep_none, prepare_class, tag_keys
from ..errors import MessageDecodeError

if TYPE_CHECKING:
    import cattrs

__all__ = [
    "EMPTY",
    "WireSpec",
    "get_converter",
    "decode_frame",
    "decode_obj",
    "decode_as",
    "drift",
    "dumps",
    "encode",
    "loads",
    "register_frames",
    "register_spec",
    "register_union",
    "structure",
    "unstructure",
]

logger = logging.getLogger("claude_sdk")


#: ClassVar names that carry a wire tag (emitted on encode, used for dispatch).
_TAG_NAMES = ("type", "subtype", "hook_event_name", "behavior")

_NoneType = type(None)
_PASSTHROUGH_SCALARS = (str, int, float, bool, _NoneType, object)


# --------------------------------------------------------------------------------------
# JSON


def loads(line: bytes | bytearray | memoryview | str) -> Any:
    """Parse one JSON document (orjson, with the stdlib as the fallback).

    orjson refuses a few documents the CLI could still send (integers beyond 64 bits, lone
    surrogate escapes); the stdlib parses those, so nothing valid is lost.

    Raises:
        MessageDecodeError: the text is not JSON.
    """
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as first:
        try:
            return json.loads(bytes(line) if isinstance(line, memoryview) else line)
        except ValueError:
            raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else bytes(line)
            raise MessageDecodeError(line=raw, reason=f"not JSON: {first}") from None


def dumps(obj: Any) -> bytes:
    """Serialise to compact JSON bytes without a trailing newline.

    The output never contains a raw newline (newlines inside strings are escaped), so it is
    always exactly one NDJSON line.
    """
    try:
        return orjson.dumps(obj)
    except TypeError:
        # Integers beyond 64 bits, lone surrogates: the stdlib escapes what orjson refuses.
        return json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")


# --------------------------------------------------------------------------------------
# Wire specifications (the converter's knowledge of names and emission rules)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


@attrs.frozen
class WireSpec:
    """How one attrs class maps to the wire.

    Attributes:
        renames: field name -> wire key, for the fields whose key differs.
        camel: every field (and tag) not in ``renames`` is camelCase on the wire.
        always: optional fields that a Python-built instance writes even when None (the CLI
            always sends them); a decoded instance writes what the wire carried.
        frame: a top-level frame: the decoded dict is kept in ``raw``.
    """

    renames: Mapping[str, str] = attrs.field(factory=dict)
    camel: bool = False
    always: frozenset[str] = frozenset()
    frame: bool = False

    def wire_name(self, name: str) -> str:
        if name in self.renames:
            return self.renames[name]
        if name.endswith("_") and not name.startswith("_"):
            return name[:-1]  # continue_ -> continue, async_ -> async
        return _camel(name) if self.camel else name


_SPECS: dict[type, WireSpec] = {}
_DEFAULT_SPEC = WireSpec()


def register_spec(
    cls: type,
    *,
    camel: bool = False,
    always: Iterable[str] = (),
    frame: bool = False,
    **renames: str,
) -> None:
    """Declare how ``cls`` is written on the wire (see `WireSpec`)."""
    if cls in _SPECS:
        raise RuntimeError(f"wire spec for {cls.__qualname__} registered twice")
    _SPECS[cls] = WireSpec(renames=renames, camel=camel, always=frozenset(always), frame=frame)
    keep_none(cls, frozenset(always))


def register_frames(*classes: type) -> None:
    """Mark classes as top-level frames (they keep ``raw``) without other changes."""
    for cls in classes:
        spec = _SPECS.get(cls, _DEFAULT_SPEC)
        _SPECS[cls] = attrs.evolve(spec, frame=True)


def _spec(cls: type) -> WireSpec:
    for klass in cls.__mro__:
        spec = _SPECS.get(klass)
        if spec is not None:
            return spec
    return _DEFAULT_SPEC


# --------------------------------------------------------------------------------------
# Tagged unions


@attrs.define(eq=False)
class _Union:
    """A union keyed on one wire field; ``unknown`` receives everything else."""

    key: str
    members: dict[str, type]
    unknown: type | None
    default: type | None  # a member that takes any unlisted tag (e.g. SystemMessage)
    suffixes: tuple[tuple[str, type], ...]
    nested: dict[str, Any]  # tag -> a sub-union keyed on another field
    fns: dict[str, Callable[[dict[str, Any]], Any]] = attrs.field(factory=dict)


_UNIONS: dict[frozenset[Any], _Union] = {}


def _tag_of(cls: type) -> tuple[str, str] | None:
    for name in _TAG_NAMES:
        value = cls.__dict__.get(name)
        if isinstance(value, str):
            return _spec(cls).wire_name(name), value
    return None


def register_union(
    union: Any,
    *,
    key: str,
    members: Iterable[type] | None = None,
    unknown: type | None = None,
    default: type | None = None,
    suffixes: Mapping[str, type] | None = None,
    extra_tags: Mapping[str, type] | None = None,
    nested: Mapping[str, Any] | None = None,
) -> None:
    """Register a union type keyed on the wire field ``key``.

    Args:
        union: the ``A | B | ...`` type as used in annotations.
        key: the wire key holding the tag.
        members: the tagged classes (default: every member of ``union`` with a tag ClassVar).
        unknown: the class that keeps unknown tags (it must take ``raw=``).
        default: a member class used for unlisted tags instead of ``unknown``.
        suffixes: tag suffix -> class, for open families such as ``*_tool_result``.
        extra_tags: more tags for member classes whose tag is an instance field.
        nested: tag -> a registered union that dispatches further (``system`` -> subtype).
    """
    table: dict[str, type] = {}
    for cls in members if members is not None else typing.get_args(union):
        if cls is unknown or cls is default:
            continue
        tag = _tag_of(cls)
        if tag is None:
            continue
        wire_key, value = tag
        if wire_key != key:
            raise RuntimeError(f"{cls.__qualname__}: tag key {wire_key!r} is not {key!r}")
        table[value] = cls
    if default is not None and (tag := _tag_of(default)) is not None:
        table[tag[1]] = default
    table.update(extra_tags or {})
    entry = _Union(
        key=key,
        members=table,
        unknown=unknown,
        default=default,
        suffixes=tuple((suffixes or {}).items()),
        nested=dict(nested or {}),
    )
    _UNIONS[frozenset(typing.get_args(union)) - {_NoneType}] = entry
    _PASSTHROUGH.clear()  # a union registered now is no longer passed through


def _union_entry(tp: Any) -> _Union | None:
    """The registered tagged union ``tp`` is (``None`` as a member is ignored)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        members = frozenset(typing.get_args(tp)) - {_NoneType}
        return _UNIONS.get(members)
    return None


# --------------------------------------------------------------------------------------
# Code generation


_NS: dict[str, Any] = {
    "_new": object.__new__,
    "_osa": object.__setattr__,
    "_EMPTY": EMPTY,
    "_MISSING": attrs.NOTHING,
    "_list": list,
    "_map": map,
}
_STRUCTURE_FNS: dict[type, Callable[[dict[str, Any]], Any]] = {}
_UNSTRUCTURE_FNS: dict[type, Callable[[Any], dict[str, Any]]] = {}
_NAMES: dict[Any, str] = {}
_counter = 0


def _bind(value: Any, hint: str) -> str:
    """Put ``value`` in the generated code's namespace and return its name."""
    global _counter
    _counter += 1
    safe = "".join(c if c.isalnum() else "_" for c in hint)[:40]
    name = f"_{safe}_{_counter}"
    _NS[name] = value
    return name


def _is_passthrough(tp: Any) -> bool:
    """True when a JSON value needs no conversion to be a valid value of ``tp``."""
    try:
        return _PASSTHROUGH[tp]
    except (KeyError, TypeError):  # not seen yet, or not hashable
        pass
    result = _passthrough(tp)
    with contextlib.suppress(TypeError):
        _PASSTHROUGH[tp] = result
    return result


#: `_is_passthrough` by type (the generator asks about the same few types hundreds of times).
_PASSTHROUGH: dict[Any, bool] = {}


def _passthrough(tp: Any) -> bool:
    if tp is Any or tp in _PASSTHROUGH_SCALARS:
        return True
    origin = typing.get_origin(tp)
    if origin is Literal:
        return True
    if origin in (typing.Union, types.UnionType):
        return _union_entry(tp) is None and all(_is_passthrough(a) for a in typing.get_args(tp))
    if origin in (list, dict, Mapping, typing.Sequence, tuple) or tp in (list, dict):
        if origin is tuple:
            return False
        return all(_is_passthrough(a) for a in typing.get_args(tp))
    if origin is typing.Annotated:
        return _is_passthrough(typing.get_args(tp)[0])
    return bool(isinstance(tp, typing.TypeVar) or tp is typing.Any)


def _structure_expr(tp: Any, var: str, depth: int = 0) -> str | None:
    """Python source converting the JSON value in ``var`` to ``tp``; None = as is."""
    if _is_passthrough(tp):
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _structure_expr(args[0], var, depth)
    entry = _union_entry(tp)
    if entry is not None:
        call = f"{_union_fn_name(tp, entry)}({var})"
        return f"(None if {var} is None else {call})" if _NoneType in args else call
    if origin in (typing.Union, types.UnionType):
        non_none = [a for a in args if a is not _NoneType]
        convertible = [a for a in non_none if not _is_passthrough(a)]
        if len(convertible) == 1:
            inner = _structure_expr(convertible[0], var, depth)
            assert inner is not None
            target = convertible[0]
            torigin = typing.get_origin(target) or target
            if len(non_none) == 1:
                return f"(None if {var} is None else {inner})"
            if torigin in (list, typing.Sequence):
                check = f"{var}.__class__ is list"
            elif torigin in (dict, Mapping) or attrs.has(target) or _union_entry(target):
                check = f"{var}.__class__ is dict"
            else:
                return f"{_bind(get_converter().get_structure_hook(tp), 'hook')}({var}, None)"
            return f"({inner} if {check} else {var})"
        return f"{_bind(get_converter().get_structure_hook(tp), 'hook')}({var}, None)"
    if origin in (list, typing.Sequence):
        item = f"x{depth}"
        inner = _structure_expr(args[0], item, depth + 1)
        call = f"{_structure_call(args[0])}({item})"
        if inner == call:  # one function per item: map it (no comprehension frame)
            return f"_list(_map({_structure_call(args[0])}, {var}))"
        return f"[{inner} for {item} in {var}]"
    if origin in (dict, Mapping):
        item = f"x{depth}"
        inner = _structure_expr(args[1], item, depth + 1)
        return f"{{k{depth}: {inner} for k{depth}, {item} in {var}.items()}}"
    if isinstance(tp, type) and attrs.has(tp):
        return f"{_struct_name(tp)}({var})"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return f"{_bind(tp, tp.__name__)}({var})"
    return f"{_bind(get_converter().get_structure_hook(tp), 'hook')}({var}, None)"


def _structure_call(tp: Any) -> str:
    """The name of the one function that structures a non-null ``tp``, or ``""``."""
    if typing.get_origin(tp) is typing.Annotated:
        return _structure_call(typing.get_args(tp)[0])
    entry = _union_entry(tp)
    if entry is not None and _NoneType not in typing.get_args(tp):
        return _union_fn_name(tp, entry)
    if isinstance(tp, type) and attrs.has(tp):
        return _struct_name(tp)
    return ""


def _unstructure_expr(tp: Any, var: str, depth: int = 0) -> str | None:
    """Python source converting the model value in ``var`` to JSON; None = as is."""
    if _is_passthrough(tp):
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _unstructure_expr(args[0], var, depth)
    if _union_entry(tp) is not None:
        return f"_unstructure_any({var})"
    if origin in (typing.Union, types.UnionType):
        if all(_is_passthrough(a) or _union_entry(a) or attrs.has(a) for a in args) and any(
            attrs.has(a) for a in args if isinstance(a, type)
        ):
            return f"_unstructure_any({var})"
        return f"_unstructure_any({var})"
    if origin in (list, typing.Sequence):
        item = f"x{depth}"
        inner = _unstructure_expr(args[0], item, depth + 1)
        return f"[{inner} for {item} in {var}]"
    if origin in (dict, Mapping):
        item = f"x{depth}"
        inner = _unstructure_expr(args[1], item, depth + 1)
        return f"{{k{depth}: {inner} for k{depth}, {item} in {var}.items()}}"
    if isinstance(tp, type) and attrs.has(tp):
        return f"{_unstruct_name(tp)}({var})"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return f"{var}.value"
    return f"_unstructure_any({var})"


def _struct_name(cls: type) -> str:
    key = ("s", cls)
    if key not in _NAMES:
        _NAMES[key] = name = f"_s_{cls.__name__}_{id(cls):x}"
        _NS[name] = _build_structure(cls)
    return _NAMES[key]


def _unstruct_name(cls: type) -> str:
    key = ("u", cls)
    if key not in _NAMES:
        _NAMES[key] = name = f"_u_{cls.__name__}_{id(cls):x}"
        _NS[name] = _build_unstructure(cls)
    return _NAMES[key]


def _union_fn_name(tp: Any, entry: _Union) -> str:
    key = ("union", id(entry))
    if key not in _NAMES:
        _NAMES[key] = name = f"_d_union_{id(entry):x}"
        _NS[name] = _build_union_fn(entry)
    return _NAMES[key]


_FIELD_TYPES: dict[type, dict[str, Any]] = {}


def _field_types(cls: type) -> dict[str, Any]:
    """The resolved type of each field of ``cls`` (its annotations are strings: PEP 563)."""
    types_ = _FIELD_TYPES.get(cls)
    if types_ is None:
        fields = attrs.fields(cls)
        names = {a.name for a in fields}
        hints: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):  # a subclass's annotation wins, as in typing's
            for name, text in inspect.get_annotations(klass).items():
                if name in names:
                    hints[name] = _annotation(klass.__module__, text)
        types_ = _FIELD_TYPES[cls] = {a.name: hints.get(a.name, Any) for a in fields}
    return types_


_ANNOTATIONS: dict[tuple[str, Any], Any] = {}


def _annotation(module: str, annotation: Any) -> Any:
    """An annotation evaluated in its module, once per module and text.

    What ``typing.get_type_hints`` gives for it (``None`` is ``NoneType``, ``Annotated`` is
    unwrapped), without compiling every string again: the wire classes hold hundreds of
    ``str | None``, and resolving them was most of what the first decoders cost a fresh
    process (issue 8; they are generated while the CLI starts).
    """
    key = (module, annotation)
    tp = _ANNOTATIONS.get(key, _MISSING_TYPE)
    if tp is _MISSING_TYPE:
        tp = annotation
        if isinstance(annotation, str):
            tp = eval(annotation, vars(sys.modules[module]))  # the class's own annotation
        if tp is None:
            tp = _NoneType
        while typing.get_origin(tp) is typing.Annotated:
            tp = typing.get_args(tp)[0]
        _ANNOTATIONS[key] = tp
    return tp


_MISSING_TYPE: Any = object()


def _admits_none(tp: Any) -> bool:
    if tp is Any or tp is _NoneType:
        return True
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return any(_admits_none(a) for a in typing.get_args(tp))
    return False


def _class_tags(cls: type) -> dict[str, str]:
    """Wire key -> value of the tag ClassVars of ``cls`` (tags that are not fields)."""
    spec = _spec(cls)
    fields = attrs.fields_dict(cls)
    tags: dict[str, str] = {}
    for tagname in _TAG_NAMES:
        if tagname in fields:
            continue
        for klass in cls.__mro__:
            value = klass.__dict__.get(tagname)
            if isinstance(value, str):
                tags[spec.wire_name(tagname)] = value
                break
    return tags


#: Nested classes whose decoders are written into their container's decoder, levels deep.
_INLINE_DEPTH = 3
_CAUGHT = "(KeyError, TypeError, ValueError, AttributeError, IndexError)"


def _build_structure(cls: type) -> Callable[[dict[str, Any]], Any]:
    """Generate ``structure(d) -> cls`` for one attrs wire class.

    ``d`` becomes the new instance's ``__dict__`` itself (no copy): tag keys stay (they hold
    the class's own values; see ``_base.tag_keys``), renamed keys are renamed, nested values
    are structured in place and unknown keys stay. At each level every required key is read
    and every nested value converted into locals before that level's dict is changed; nested
    dicts and lists are converted in place (their own decoders are written into this one,
    `_INLINE_DEPTH` levels deep, and lists of objects are converted item by item without a
    new list), so a value that does not fit can leave the input half converted: callers that
    must not lose their dict pass a copy (see `structure`), and `decode_frame` parses the line
    again before it tries the slow path. When an unknown key would collide with an attribute
    the decoder writes (``extra``, or the Python name of a renamed field), a fresh dict is
    built instead.
    """
    lines = ["def structure(d):"]
    ids = iter(range(1_000_000))
    result = _emit_structure(cls, "d", lines, "    ", (cls,), ids)
    lines.append(f"    return {result}")
    return _compile(lines, "structure", cls)


def _emit_structure(
    cls: type, src: str, out: list[str], ind: str, stack: tuple[type, ...], ids: Iterator[int]
) -> str:
    """Append code turning the dict in ``src`` into a ``cls``; return the result's name."""
    prepare_class(cls)
    spec = _spec(cls)
    ftypes = _field_types(cls)
    tags = _class_tags(cls)
    tag_keys(cls, frozenset(tags))  # the tags stay in the dict: no work per frame
    n = next(ids)
    od, ex, obj = f"od{n}", f"ex{n}", f"o{n}"
    known = set(tags)
    read: list[str] = []  # read and convert into locals
    write: list[str] = []  # then change the dict
    deeper = ind + "    "
    for i, a in enumerate(attrs.fields(cls)):
        if a.name in ("extra", "raw"):
            continue
        wire = spec.wire_name(a.name)
        known.add(wire)
        name = a.name
        var = f"v{n}_{i}"
        renamed = wire != name
        tp = ftypes[name]
        required = a.default is attrs.NOTHING
        nullable = _admits_none(tp)
        if required and not nullable:
            read.append(f"{ind}{var} = {od}[{wire!r}]")
            conv = _emit_convert(tp, var, read, ind, stack, ids)
            if renamed:
                write.append(f"{ind}del {od}[{wire!r}]")
            if renamed or (conv and not _converts_in_place(tp)):
                write.append(f"{ind}{od}[{name!r}] = {var}")
        elif required:
            read.append(f"{ind}{var} = {od}.get({wire!r})")
            body: list[str] = []
            if _emit_convert(tp, var, body, deeper, stack, ids):
                read.append(f"{ind}if {var} is not None:")
                read += body
            if renamed:
                write.append(f"{ind}{od}.pop({wire!r}, None)")
            write.append(f"{ind}{od}[{name!r}] = {var}")
        elif renamed:
            read.append(f"{ind}{var} = {od}.get({wire!r}, _MISSING)")
            body = []
            if _emit_convert(tp, var, body, deeper, stack, ids):
                read.append(f"{ind}if {var} is not _MISSING and {var} is not None:")
                read += body
            write.append(f"{ind}if {var} is not _MISSING:")
            write.append(f"{deeper}del {od}[{wire!r}]")
            write.append(f"{deeper}{od}[{name!r}] = {var}")
        else:
            body = []
            if _emit_convert(tp, var, body, deeper, stack, ids):
                read.append(f"{ind}{var} = {od}.get({wire!r})")
                read.append(f"{ind}if {var} is not None:")
                read += body
                write.append(f"{ind}if {var} is not None:")
                write.append(f"{deeper}{od}[{name!r}] = {var}")
    known_name = _bind(frozenset(known), "known")
    collide = {"extra"} | {a.name for a in attrs.fields(cls) if spec.wire_name(a.name) != a.name}
    checks = " or ".join(f"{key!r} in {src}" for key in sorted(collide))
    out += [
        f"{ind}if {checks}:",
        f"{deeper}{od} = {{k: x for k, x in {src}.items() if k in {known_name}}}",
        f"{deeper}{ex} = {{k: x for k, x in {src}.items() if k not in {known_name}}}",
        f"{deeper}if {ex}:",
        f"{deeper}    {od}['extra'] = {ex}",
        f"{ind}else:",
        f"{deeper}{od} = {src}",
    ]
    out += read
    out += write
    out += [
        f"{ind}{obj} = _new({_bind(cls, cls.__name__)})",
        f"{ind}{_bind(_dict_setter(cls), 'set_dict')}({obj}, {od})",
    ]
    return obj


def _dict_setter(cls: type) -> Callable[[Any, dict[str, Any]], None]:
    """The setter of ``cls``'s ``__dict__`` (a frozen class refuses ``o.__dict__ = d``)."""
    for klass in cls.__mro__:
        descriptor = klass.__dict__.get("__dict__")
        if descriptor is not None and hasattr(descriptor, "__set__"):
            return typing.cast("Callable[[Any, dict[str, Any]], None]", descriptor.__set__)
    return lambda obj, d: object.__setattr__(obj, "__dict__", d)  # pragma: no cover


def _emit_convert(
    tp: Any, var: str, out: list[str], ind: str, stack: tuple[type, ...], ids: Iterator[int]
) -> bool:
    """Append code converting the (non-null) JSON value in ``var`` to ``tp``, in ``var``.

    Returns False when the value is used as it is (nothing appended).
    """
    if _is_passthrough(tp):
        return False
    if typing.get_origin(tp) is typing.Annotated:
        return _emit_convert(typing.get_args(tp)[0], var, out, ind, stack, ids)
    if _inlinable(tp, stack):
        result = _emit_structure(tp, var, out, ind, (*stack, tp), ids)
        out.append(f"{ind}{var} = {result}")
        return True
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType) and _union_entry(tp) is None:
        non_none = [a for a in typing.get_args(tp) if a is not _NoneType]
        if len(non_none) == 1:  # Optional[X]: the caller has checked for None
            return _emit_convert(non_none[0], var, out, ind, stack, ids)
    if origin in (list, typing.Sequence):
        (item_tp,) = typing.get_args(tp) or (Any,)
        entry = _union_entry(item_tp)
        if _converts_in_place(tp):
            # In place, item by item: no new list, no call per item for a nested class.
            k = next(ids)
            i, x = f"i{k}", f"x{k}"
            out.append(f"{ind}if {var}.__class__ is not list:")
            out.append(f"{ind}    raise TypeError('expected a list')")
            out.append(f"{ind}for {i}, {x} in enumerate({var}):")
            body = ind + "    "
            if entry is not None:
                fns = _bind(entry.fns, "fns")
                slow = _union_fn_name(item_tp, entry)  # the dispatcher sorts out the rest
                key = entry.key
                # The first few members whose fields need no conversion are decoded right
                # here (no call per item); the others through the union's table.
                flat = [
                    (tag, cls)
                    for tag, cls in entry.members.items()
                    if tag not in entry.nested and _is_flat(cls) and cls not in stack
                ][:_INLINE_MEMBERS]
                tag_var = f"t{k}"
                out += [f"{body}try:", f"{body}    {tag_var} = {x}[{key!r}]"]
                branch = body + "    "
                for n, (tag, cls) in enumerate(flat):
                    out.append(f"{branch}{'if' if n == 0 else 'elif'} {tag_var} == {tag!r}:")
                    result = _emit_structure(cls, x, out, branch + "    ", (*stack, cls), ids)
                    out.append(f"{branch}    {var}[{i}] = {result}")
                if flat:
                    out.append(f"{branch}else:")
                    branch += "    "
                out += [
                    f"{branch}{var}[{i}] = {fns}[{tag_var}]({x})",
                    f"{body}except {_CAUGHT}:",
                    f"{body}    {var}[{i}] = {slow}({x})",
                ]
            else:
                _emit_convert(item_tp, x, out, body, stack, ids)
                out.append(f"{body}{var}[{i}] = {x}")
            return True
    expr = _structure_expr(tp, var)
    if expr is None:
        return False
    out.append(f"{ind}{var} = {expr}")
    return True


#: Members of a union of list items decoded inline (see `_emit_convert`).
_INLINE_MEMBERS = 8


def _is_flat(cls: type) -> bool:
    """True for a wire class none of whose fields needs converting (only JSON values)."""
    if not attrs.has(cls) or _is_unknown(cls):
        return False
    ftypes = _field_types(cls)
    return all(
        _is_passthrough(ftypes[a.name]) for a in attrs.fields(cls) if a.name not in ("extra", "raw")
    )


def _converts_in_place(tp: Any) -> bool:
    """True when `_emit_convert` converts a value of ``tp`` in place (a list of objects)."""
    if typing.get_origin(tp) is typing.Annotated:
        return _converts_in_place(typing.get_args(tp)[0])
    if typing.get_origin(tp) not in (list, typing.Sequence):
        return False
    (item_tp,) = typing.get_args(tp) or (Any,)
    entry = _union_entry(item_tp)
    return (entry is not None and _NoneType not in typing.get_args(item_tp)) or (
        isinstance(item_tp, type) and attrs.has(item_tp)
    )


def _inlinable(tp: Any, stack: tuple[type, ...]) -> bool:
    return (
        isinstance(tp, type)
        and attrs.has(tp)
        and tp not in stack
        and len(stack) < _INLINE_DEPTH
        and not _is_unknown(tp)
    )


def _build_unstructure(cls: type) -> Callable[[Any], dict[str, Any]]:
    """Generate ``unstructure(o) -> dict`` for one attrs wire class.

    Required fields are written from their values; optional fields when the instance holds
    them (see ``claude_sdk._base``: absent means "not on the wire"; a Python-built instance
    holds its non-None values and its ``always`` fields).
    """
    prepare_class(cls)
    spec = _spec(cls)
    ftypes = _field_types(cls)
    tags = _class_tags(cls)
    lines = [
        "def unstructure(o):",
        "    od = o.__dict__",
        "    if not od:",  # nothing held: only the tags (HookOutput(), PermissionAllow())
        f"        return {tags!r}",
        "    e = o.extra",
        "    d = dict(e) if e else {}",
    ]
    lines += [f"    d[{key!r}] = {value!r}" for key, value in tags.items()]
    for a in attrs.fields(cls):
        if a.name in ("extra", "raw"):
            continue
        wire = spec.wire_name(a.name)
        conv = _unstructure_expr(ftypes[a.name], "v")
        value = f"None if v is None else {conv}" if conv else "v"
        if a.default is attrs.NOTHING:
            lines.append(f"    v = o.{a.name}")
            lines.append(f"    d[{wire!r}] = {value}")
        else:
            lines.append(f"    v = od.get({a.name!r}, _MISSING)")
            lines.append("    if v is not _MISSING:")
            lines.append(f"        d[{wire!r}] = {value}")
    lines.append("    return d")
    return _compile(lines, "unstructure", cls)


def _build_union_fn(entry: _Union) -> Callable[[dict[str, Any]], Any]:
    """Generate the dispatcher for a tagged union (unknown tags keep the raw dict)."""
    key = entry.key
    fns = entry.fns

    def fn_for(tag: Any) -> Callable[[dict[str, Any]], Any] | None:
        if not isinstance(tag, str):
            return None  # a tag that is not a string is an unknown kind
        sub = entry.nested.get(tag)
        if sub is not None:
            sub_entry = _union_entry(sub)
            assert sub_entry is not None, f"nested union for {tag!r} is not registered"
            return typing.cast(
                "Callable[[dict[str, Any]], Any]", _NS[_union_fn_name(sub, sub_entry)]
            )
        cls = entry.members.get(tag)
        if cls is None:
            for suffix, klass in entry.suffixes:
                if tag.endswith(suffix):
                    cls = klass
                    break
        if cls is None:
            cls = entry.default
        if cls is None:
            return None
        return typing.cast("Callable[[dict[str, Any]], Any]", _NS[_struct_name(cls)])

    unknown = entry.unknown

    def slow(d: Any) -> Any:
        if d.__class__ is not dict:
            raise TypeError(f"expected a JSON object, got {type(d).__name__}")
        # The fast path may have converted part of ``d`` in place before it failed.
        _restore(d)
        tag = d.get(key)
        fn = fn_for(tag)
        if fn is None:
            if unknown is None:
                raise ValueError(f"unknown {key} {tag!r}")
            return _make_unknown(unknown, d)
        try:
            return fn(d)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            if unknown is None:
                raise
            logger.warning("could not type %s=%r (%s: %s); kept raw", key, tag, _ename(exc), exc)
            return _make_unknown(unknown, d, error=f"{_ename(exc)}: {exc}")

    def lazy(tag: str) -> Callable[[dict[str, Any]], Any]:
        def first_call(d: dict[str, Any]) -> Any:
            fn = fn_for(tag)
            assert fn is not None
            fns[tag] = fn
            return fn(d)

        return first_call

    for tag in [*entry.members, *entry.nested]:
        fns[tag] = lazy(tag)

    # The hot path is one lookup and one call; anything unusual (an unknown tag, a value
    # that is not an object, a shape that does not fit) is sorted out by ``slow``.
    def dispatch(d: Any) -> Any:
        try:
            return fns[d[key]](d)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            return slow(d)

    return dispatch


def _restore(value: Any) -> Any:
    """JSON data that a decoder left half converted, as it came (in place where it can be).

    Encoding is lossless, so every object a decoder made is turned back into its dict; a level
    whose decoder failed had not been changed yet (reads come before writes).
    """
    cls = value.__class__
    if cls is dict:
        for k, v in value.items():
            if v.__class__ not in _SCALARS:
                value[k] = _restore(v)
        return value
    if cls is list:
        for i, v in enumerate(value):
            if v.__class__ not in _SCALARS:
                value[i] = _restore(v)
        return value
    if cls in _SCALARS or not attrs.has(cls):
        return value
    return unstructure(value)


_SCALARS = frozenset({str, int, float, bool, _NoneType})


def _ename(exc: BaseException) -> str:
    return type(exc).__name__


def _make_unknown(cls: type, d: dict[str, Any], error: str | None = None) -> Any:
    if error is not None and "error" in attrs.fields_dict(cls):
        return cls(raw=d, error=error)
    return cls(raw=d)


def _compile(lines: list[str], fname: str, cls: type) -> Callable[..., Any]:
    source = "\n".join(lines)
    code = compile(source, f"<claude_sdk codec {fname} {cls.__qualname__}>", "exec")
    local: dict[str, Any] = {}
    exec(code, _NS, local)
    fn = local[fname]
    fn.__qualname__ = f"{fname}_{cls.__qualname__}"
    fn.source = source  # kept for debugging
    return typing.cast("Callable[..., Any]", fn)


def _unstructure_any(value: Any) -> Any:
    """Unstructure a value whose class is only known at run time."""
    cls = value.__class__
    if cls in (str, int, float, bool, _NoneType):
        return value
    if cls is list:
        return [_unstructure_any(v) for v in value]
    if cls is dict:
        return {k: _unstructure_any(v) for k, v in value.items()}
    if attrs.has(cls):
        return unstructure(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {k: _unstructure_any(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_unstructure_any(v) for v in value]
    return get_converter().unstructure(value)


_NS["_unstructure_any"] = _unstructure_any


# --------------------------------------------------------------------------------------
# The converter and the public entry points


def _make_converter() -> cattrs.Converter:
    import cattrs  # on first use: the generated decoders need it only for exotic types

    conv = cattrs.Converter()

    def is_wire_class(tp: Any) -> bool:
        return isinstance(tp, type) and attrs.has(tp) and _is_wire_class(tp)

    conv.register_structure_hook_func(is_wire_class, lambda v, tp: structure_fn(tp)(v))
    conv.register_unstructure_hook_func(is_wire_class, lambda v: unstructure(v))
    conv.register_structure_hook_func(
        lambda tp: _union_entry(tp) is not None,
        lambda v, tp: _NS[_union_fn_name(tp, typing.cast("_Union", _union_entry(tp)))](v),
    )
    return conv


def _is_wire_class(cls: type) -> bool:
    module = getattr(cls, "__module__", "")
    return module.startswith("claude_sdk") or cls in _SPECS


_CONVERTER: list[cattrs.Converter] = []


def get_converter() -> cattrs.Converter:
    """The SDK's cattrs converter (made on first use; also ``codec.converter``)."""
    if not _CONVERTER:
        _CONVERTER.append(_make_converter())
    return _CONVERTER[0]


def __getattr__(name: str) -> Any:
    if name == "converter":
        return get_converter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def structure_fn(cls: type) -> Callable[[dict[str, Any]], Any]:
    """The generated structure function for an attrs wire class."""
    fn = _STRUCTURE_FNS.get(cls)
    if fn is None:
        if not _FRAME_UNION:
            _ensure_registered()
        fn = _STRUCTURE_FNS[cls] = _NS[_struct_name(cls)]
    return fn


def warm_up(decode: Iterable[type], encode: Iterable[type] = ()) -> None:
    """Generate the decoders of ``decode`` and the encoders of ``encode`` now.

    The session calls it while the CLI starts, so that the first frames do not wait for the
    code generation (a few milliseconds in a fresh process).
    """
    _frame_fn()
    for cls in decode:
        structure_fn(cls)
    for cls in encode:
        _UNSTRUCTURE_FNS.setdefault(cls, _NS[_unstruct_name(cls)])


def _fresh(data: Any) -> Any:
    """A deep copy of JSON data (the generated decoders work in place)."""
    try:
        return orjson.loads(orjson.dumps(data))
    except (TypeError, orjson.JSONDecodeError):
        return copy.deepcopy(data)


def structure(data: Any, tp: Any) -> Any:
    """Structure JSON data into ``tp`` (an attrs class, a registered union, or any type).

    ``data`` is left as it was (the decoders work on a copy).
    """
    if not _FRAME_UNION:
        _ensure_registered()
    data = _fresh(data)
    if isinstance(tp, type) and attrs.has(tp):
        return structure_fn(tp)(data)
    return get_converter().structure(data, tp)


def unstructure(obj: Any) -> Any:
    """Unstructure a model object to JSON-ready data (the inverse of `structure`)."""
    cls = obj.__class__
    fn = _UNSTRUCTURE_FNS.get(cls)
    if fn is None:
        if not _FRAME_UNION:
            _ensure_registered()
        if not attrs.has(cls):
            return _unstructure_any(obj)
        if _is_unknown(cls):
            return _unstructure_any(dict(obj.raw))
        fn = _UNSTRUCTURE_FNS[cls] = _NS[_unstruct_name(cls)]
    return fn(obj)


def _is_unknown(cls: type) -> bool:
    return bool(getattr(cls, "_unknown_kind", False))


_FRAME_UNION: list[Any] = []  # [frame union type], set by claude_sdk.wire on import
_frame_dispatch: list[Callable[[Any], Any]] = []


def set_frame_union(union: Any) -> None:
    """Declare the top-level frame union (done once, by ``schema.register_all``)."""
    global _frame_fns
    _FRAME_UNION[:] = [union]
    _frame_dispatch.clear()
    _frame_fns = {}


def _ensure_registered() -> None:
    """Register the wire model (``claude_sdk.wire`` does it on import) if nobody has yet."""
    if not _FRAME_UNION:
        importlib.import_module("claude_sdk.wire")


def _frame_fn() -> Callable[[dict[str, Any]], Any]:
    if not _frame_dispatch:
        _ensure_registered()
        union = _FRAME_UNION[0]
        entry = _union_entry(union)
        assert entry is not None, "the frame union is not registered"
        _frame_dispatch.append(_NS[_union_fn_name(union, entry)])
        global _frame_fns
        _frame_fns = entry.fns
    return _frame_dispatch[0]


def decode_obj(data: Any) -> Any:
    """Type one decoded JSON value as a frame (``data`` is left as it was).

    Raises:
        MessageDecodeError: ``data`` is not a JSON object.
    """
    if data.__class__ is not dict:
        raise MessageDecodeError(
            line=dumps(data), reason=f"a frame must be a JSON object, not {type(data).__name__}"
        )
    frame = _frame_fn()(_fresh(data))
    if getattr(frame, "error", None) is not None and _is_unknown(frame.__class__):
        return frame.__class__(raw=data, error=frame.error)
    return frame


def decode_frame(line: bytes | bytearray | memoryview | str) -> Any:
    """Decode one NDJSON line to a typed frame (see the module docstring)."""
    try:
        data = _orjson_loads(line)
    except orjson.JSONDecodeError:
        data = loads(line)  # the stdlib fallback, or MessageDecodeError
    # The hot path: an object of a known type that fits its class.
    try:
        frame = _frame_fns[data["type"]](data)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        pass
    else:
        if frame.__class__ in _KNOWN_CLASSES:
            return frame
        return _checked(frame, line)
    if data.__class__ is not dict:
        raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else bytes(line)
        raise MessageDecodeError(
            line=raw, reason=f"a frame must be a JSON object, not {type(data).__name__}"
        )
    # The decoders convert nested values in place, so a frame that did not fit may be half
    # converted: the slow path starts again from the line.
    data = loads(line)
    frame = (_frame_dispatch[0] if _frame_dispatch else _frame_fn())(data)
    if frame.__class__ in _KNOWN_CLASSES:
        return frame
    return _checked(frame, line)


def _checked(frame: Any, line: bytes | bytearray | memoryview | str) -> Any:
    cls = frame.__class__
    if _is_unknown(cls):
        if frame.error is not None:
            # A known kind that did not fit: keep the frame exactly as it came.
            return cls(raw=loads(line), error=frame.error)
    else:
        _KNOWN_CLASSES.add(cls)
    return frame


_orjson_loads = orjson.loads
#: The frame union's functions by ``type`` (filled when the frame union is first used).
_frame_fns: dict[str, Callable[[dict[str, Any]], Any]] = {}
#: Frame classes seen that are not ``Unknown*`` (the fast path of `decode_frame`).
_KNOWN_CLASSES: set[type] = set()


def decode_as(data: Any, tp: Any) -> Any:
    """Structure a decoded JSON value into a specific model type."""
    return structure(data, tp)


def encode(frame: Any) -> bytes:
    """Encode a frame (or any model object) to one JSON line, without the newline."""
    return dumps(unstructure(frame))


# --------------------------------------------------------------------------------------
# Strict checking (drift detection)


def drift(obj: Any, path: str = "$") -> list[str]:
    """Report what the model does not know about a decoded object.

    Returns one line per finding: unknown kinds (``Unknown*`` values), unknown fields (keys
    kept in ``extra`` that are not explicit nulls of known fields), and values whose JSON type
    does not match the field's declared type. An empty list means the model covers the frame.
    """
    out: list[str] = []
    _drift(obj, path, out)
    return out


def _drift(obj: Any, path: str, out: list[str]) -> None:
    cls = obj.__class__
    if cls in (list, tuple):
        for i, item in enumerate(obj):
            _drift(item, f"{path}[{i}]", out)
        return
    if cls is dict:
        for k, item in obj.items():
            if item.__class__ in (list, tuple, dict) or attrs.has(item.__class__):
                _drift(item, f"{path}.{k}", out)
        return
    if not attrs.has(cls):
        return
    if _is_unknown(cls):
        raw = obj.raw
        err = getattr(obj, "error", None)
        what = ", ".join(f"{k}={raw.get(k)!r}" for k in _TAG_NAMES if k in raw) or "no tag"
        note = f" ({err})" if err else ""
        out.append(
            f"{path}: unknown {cls.__name__.removeprefix('Unknown').lower()} kind: {what}{note}"
        )
        return
    spec = _spec(cls)
    ftypes = _field_types(cls)
    wire_fields = {spec.wire_name(a.name) for a in attrs.fields(cls)}
    for key, value in obj.extra.items():
        if key in wire_fields and value is None:
            continue  # an explicit null of a known optional field
        out.append(f"{path}.{key}: unknown field ({type(value).__name__})")
    for a in attrs.fields(cls):
        if a.name in ("extra", "raw"):
            continue
        value = getattr(obj, a.name)
        sub = f"{path}.{spec.wire_name(a.name)}"
        problem = _type_problem(value, ftypes[a.name])
        if problem:
            out.append(f"{sub}: {problem}")
        _drift(value, sub, out)


def _type_problem(value: Any, tp: Any) -> str | None:
    """A short description when a JSON value does not fit ``tp`` (shallow for containers)."""
    if tp is Any or tp is object:
        return None
    if value is None:
        return None if _admits_none(tp) else "null where a value is required"
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _type_problem(value, args[0])
    if origin is Literal:
        return None if value in args else f"value {value!r} not in {list(args)}"
    if origin in (typing.Union, types.UnionType):
        if _union_entry(tp) is not None:
            return None
        problems = [_type_problem(value, a) for a in args]
        if any(p is None for p in problems):
            return None
        return f"{type(value).__name__} does not match {_tname(tp)}"
    if origin in (list, typing.Sequence):
        if not isinstance(value, list):
            return f"{type(value).__name__} where a list is expected"
        if args:
            for item in value:
                p = _type_problem(item, args[0])
                if p:
                    return f"item: {p}"
        return None
    if origin in (dict, Mapping):
        if not isinstance(value, Mapping):
            return f"{type(value).__name__} where an object is expected"
        if len(args) == 2:
            for item in value.values():
                p = _type_problem(item, args[1])
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


# Silence "unused" for names kept for the public surface of this module.
_ = ClassVar
