"""Code generation for the codec: one Python function per class and direction.

A `Generator` belongs to one ``Codec`` and is built from one `Schema`. It owns everything the
generated code refers to: the namespace the functions are compiled in, the functions made so
far, and the tagged unions of the schema. Nothing is generated before it is first needed
(cattrs' own approach, specialised), and nothing is shared with another generator, so two
codecs built from two schemas never see each other's classes.

The decoders (`Generator.structure_fn`) make each object without calling ``__init__``: the
decoded dict becomes the instance's ``__dict__`` (see ``claude_sdk._base``); they do no
per-field validation. The encoders (`Generator.unstructure_fn`) write what an instance holds.

Module-level caches here (`field_types`, the evaluated annotations) are memos of pure
functions of a class, not registries: the same for every generator.

Threads (issue 26): a generator may be used from any thread, first uses included (Dask and Ray
workers open sessions from several threads of a fresh process). Everything it learns is built
under its lock (a reentrant one: building a class's decoder builds those of its fields) and
published once complete, by one assignment into a dict that readers consult without a lock:

* a generated function is in the namespace before its name is published, and a function
  built while building another (a field's class, or a class that refers back to one being
  built) is published with it, when the outermost build is done, so that no published
  function calls a name that is not there yet;
* a schema part's specs and unions are added before the part leaves the list of parts
  still to load, so that a reader that no longer sees the part sees what it added;
* a union's table of functions by tag is filled in one update.

Once built, decoding and encoding take no lock.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import itertools
import linecache
import logging
import sys
import threading
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

import attrs

from .._attrs import define
from .._base import EMPTY, field_names, prepare_class, tag_keys
from .._fit import Rules
from .schema import DEFAULT_SPEC, Schema, UnionSpec, WireSpec

if TYPE_CHECKING:
    import cattrs

__all__ = ["CAUGHT", "Generator", "admits_none", "field_types", "is_unknown"]

logger = logging.getLogger("claude_sdk.protocol")

#: ClassVar names that carry a wire tag (emitted on encode, used for dispatch).
TAG_NAMES = ("type", "subtype", "hook_event_name", "behavior")
#: What a decoder raises for a value that does not fit.
CAUGHT = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError)

_NoneType = type(None)
_PASSTHROUGH_SCALARS = (str, int, float, bool, _NoneType, object)
_SCALARS = frozenset({str, int, float, bool, _NoneType})
#: Nested classes whose decoders are written into their container's decoder, levels deep.
_INLINE_DEPTH = 3
#: Members of a union of list items decoded inline (see `Generator._emit_convert`).
_INLINE_MEMBERS = 8
_CAUGHT_SOURCE = "(KeyError, TypeError, ValueError, AttributeError, IndexError)"


def is_unknown(cls: type) -> bool:
    """True for the ``Unknown*`` classes (a kind the model does not know, kept whole)."""
    return bool(getattr(cls, "_unknown_kind", False))


def admits_none(tp: Any) -> bool:
    """True when None is a valid value of ``tp``."""
    if tp is Any or tp is _NoneType:
        return True
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return any(admits_none(a) for a in typing.get_args(tp))
    return False


_FIELD_TYPES: dict[type, dict[str, Any]] = {}


def field_types(cls: type) -> dict[str, Any]:
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
_MISSING_TYPE: Any = object()


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


def _dict_setter(cls: type) -> Callable[[Any, dict[str, Any]], None]:
    """The setter of ``cls``'s ``__dict__`` (a frozen class refuses ``o.__dict__ = d``)."""
    for klass in cls.__mro__:
        descriptor = klass.__dict__.get("__dict__")
        if descriptor is not None and hasattr(descriptor, "__set__"):
            return typing.cast("Callable[[Any, dict[str, Any]], None]", descriptor.__set__)
    return lambda obj, d: object.__setattr__(obj, "__dict__", d)  # pragma: no cover


@define(eq=False)
class Union:
    """A registered tagged union; ``unknown`` receives everything else."""

    key: str
    members: dict[str, type]
    unknown: type | None
    default: type | None  # a member that takes any unlisted tag (e.g. SystemMessage)
    suffixes: tuple[tuple[str, type], ...]
    nested: dict[str, Any]  # tag -> a sub-union keyed on another field
    fns: dict[str, Callable[[dict[str, Any]], Any]] = attrs.field(factory=dict)


class Generator:
    """Generates, compiles and keeps the structure and unstructure functions of a schema."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.unions: dict[frozenset[Any], Union] = {}
        self.ns: dict[str, Any] = {
            "_new": object.__new__,
            "_osa": object.__setattr__,
            "_EMPTY": EMPTY,
            "_MISSING": attrs.NOTHING,
            "_list": list,
            "_map": map,
            "_unstructure_any": self.unstructure_any,
        }
        #: How decoded values are judged against their types (the one checker,
        #: `claude_sdk._fit`): they hold instances; a union the codec dispatches is its own.
        self.fit_rules = Rules(
            instances=True,
            skip=lambda tp: self.union_entry(tp) is not None,
            python_words=True,  # drift reports to Python developers
        )
        self.structure_fns: dict[type, Callable[[dict[str, Any]], Any]] = {}
        self.unstructure_fns: dict[type, Callable[[Any], dict[str, Any]]] = {}
        #: What is built is built under this lock (see the module docstring); only the
        #: thread that holds it reads or writes `_staged` and `_counter`, or writes `_loading`.
        self._lock = threading.RLock()
        #: Key -> the name of its generated function in `ns`, once it is there (published).
        self._names: dict[Any, str] = {}
        #: The names of the functions of the current build, published when it is done.
        self._staged: dict[Any, str] = {}
        self._depth = 0
        self._counter = 0
        self._passthrough: dict[Any, bool] = {}
        self._converter: cattrs.Converter | None = None
        self._specs: dict[type, WireSpec] = dict(schema.specs)
        self._parts: dict[str, Callable[[], Schema]] = dict(schema.parts)
        #: Module -> the thread adding its schema part.
        self._loading: dict[str, int] = {}
        for union in schema.unions:
            self._add_union(union)

    # -- the schema -----------------------------------------------------------------------

    def spec(self, cls: type) -> WireSpec:
        """The wire spec of ``cls``: its own, or its nearest base's, or the default."""
        self._load_part(cls)
        for klass in cls.__mro__:
            found = self._specs.get(klass)
            if found is not None:
                return found
        return DEFAULT_SPEC

    def _load_part(self, cls: Any) -> None:
        """Add the schema part of ``cls``'s module, if the schema has one not added yet."""
        if not self._parts:
            return
        module = getattr(cls, "__module__", "")
        part = self._parts.get(module)
        if part is None or self._loading.get(module) == threading.get_ident():
            return  # none, or this thread is adding it (the members of its unions)
        # Called without the lock: it imports the part's module, and an import takes the
        # import system's own locks (a pure function: two threads may both call it).
        schema = part()
        with self._lock:
            if module not in self._parts:
                return  # added meanwhile
            self._loading[module] = threading.get_ident()
            try:
                self._specs.update(schema.specs)
                for union in schema.unions:
                    self._add_union(union)
            finally:
                del self._loading[module]
            del self._parts[module]  # last: whoever no longer sees the part sees its classes

    def _tag_of(self, cls: type) -> tuple[str, str] | None:
        for name in TAG_NAMES:
            value = cls.__dict__.get(name)
            if isinstance(value, str):
                return self.spec(cls).wire_name(name), value
        return None

    def _add_union(self, union: UnionSpec) -> None:
        table: dict[str, type] = {}
        members = union.members if union.members is not None else typing.get_args(union.union)
        for cls in members:
            if cls is union.unknown or cls is union.default:
                continue
            tag = self._tag_of(cls)
            if tag is None:
                continue
            wire_key, value = tag
            if wire_key != union.key:
                raise RuntimeError(f"{cls.__qualname__}: tag key {wire_key!r} is not {union.key!r}")
            table[value] = cls
        if union.default is not None and (tag := self._tag_of(union.default)) is not None:
            table[tag[1]] = union.default
        table.update(union.extra_tags)
        entry = Union(
            key=union.key,
            members=table,
            unknown=union.unknown,
            default=union.default,
            suffixes=tuple(union.suffixes.items()),
            nested=dict(union.nested),
        )
        self.unions[frozenset(typing.get_args(union.union)) - {_NoneType}] = entry

    def union_entry(self, tp: Any) -> Union | None:
        """The registered tagged union ``tp`` is (``None`` as a member is ignored)."""
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            members = frozenset(typing.get_args(tp)) - {_NoneType}
            entry = self.unions.get(members)
            if entry is None and self._parts:
                for member in members:
                    self._load_part(member)
                entry = self.unions.get(members)
            return entry
        return None

    def class_tags(self, cls: type) -> dict[str, str]:
        """Wire key -> value of the tag ClassVars of ``cls`` (tags that are not fields)."""
        spec = self.spec(cls)
        fields = attrs.fields_dict(cls)
        tags: dict[str, str] = {}
        for tagname in TAG_NAMES:
            if tagname in fields:
                continue
            for klass in cls.__mro__:
                value = klass.__dict__.get(tagname)
                if isinstance(value, str):
                    tags[spec.wire_name(tagname)] = value
                    break
        return tags

    # -- the converter, for the types the generated code does not handle itself ---------------

    @property
    def converter(self) -> cattrs.Converter:
        """A cattrs converter that knows this generator's classes (made on first use)."""
        conv = self._converter
        if conv is None:
            conv = self._make_converter()
        return conv

    def _make_converter(self) -> cattrs.Converter:
        import cattrs  # on first use: the generated decoders need it only for exotic types

        with self._lock:
            if self._converter is not None:  # made by another thread meanwhile
                return self._converter
            conv = cattrs.Converter()

            def is_wire_class(tp: Any) -> bool:
                return isinstance(tp, type) and attrs.has(tp) and self._is_wire_class(tp)

            conv.register_structure_hook_func(is_wire_class, lambda v, tp: self.structure_fn(tp)(v))
            conv.register_unstructure_hook_func(is_wire_class, self.unstructure)
            conv.register_structure_hook_func(
                lambda tp: self.union_entry(tp) is not None,
                lambda v, tp: self.ns[self._union_fn_name(tp)](v),
            )
            self._converter = conv  # published once its hooks are registered
            return conv

    def _is_wire_class(self, cls: type) -> bool:
        module = getattr(cls, "__module__", "")
        return module.startswith("claude_sdk") or cls in self._specs

    # -- public entry points ----------------------------------------------------------------

    def structure_fn(self, cls: type) -> Callable[[dict[str, Any]], Any]:
        """The generated structure function of an attrs wire class."""
        fn = self.structure_fns.get(cls)
        if fn is None:
            fn = self.structure_fns[cls] = self.ns[self._struct_name(cls)]
        return fn

    def unstructure_fn(self, cls: type) -> Callable[[Any], dict[str, Any]]:
        """The generated unstructure function of an attrs wire class."""
        fn = self.unstructure_fns.get(cls)
        if fn is None:
            fn = self.unstructure_fns[cls] = self.ns[self._unstruct_name(cls)]
        return fn

    def union_fn(self, tp: Any) -> Callable[[Any], Any]:
        """The dispatcher of a registered union."""
        fn: Callable[[Any], Any] = self.ns[self._union_fn_name(tp)]
        return fn

    def unstructure(self, obj: Any) -> Any:
        """A model value as JSON-ready data."""
        cls = obj.__class__
        fn = self.unstructure_fns.get(cls)
        if fn is None:
            if not attrs.has(cls):
                return self.unstructure_any(obj)
            if is_unknown(cls):
                return self.unstructure_any(dict(obj.raw))
            fn = self.unstructure_fn(cls)
        return fn(obj)

    def unstructure_any(self, value: Any) -> Any:
        """Unstructure a value whose class is only known at run time.

        Without recursion: a JSON value held in an ``Any`` field may nest as deep as the
        parser allows, deeper than Python's call stack goes (a comprehension a level).
        """
        cls = value.__class__
        if cls in _SCALARS:
            return value
        holder: list[Any] = [None]
        todo: list[tuple[Any, Any, Any]] = [(holder, 0, value)]
        new: Any
        while todo:
            target, key, item = todo.pop()
            cls = item.__class__
            if cls in _SCALARS:
                target[key] = item
            elif cls is dict or (isinstance(item, Mapping) and not attrs.has(cls)):
                new = target[key] = dict.fromkeys(item)  # keys in their order
                todo.extend((new, k, x) for k, x in item.items())
            elif cls is list or cls is tuple or isinstance(item, (list, tuple)):
                new = target[key] = [None] * len(item)
                todo.extend((new, i, x) for i, x in enumerate(item))
            elif attrs.has(cls):
                target[key] = self.unstructure(item)
            elif isinstance(item, enum.Enum):
                target[key] = item.value
            else:
                target[key] = self.converter.unstructure(item)
        return holder[0]

    def restore(self, value: Any) -> Any:
        """JSON data that a decoder left half converted, as it came (in place where it can be).

        Encoding is lossless, so every object a decoder made is turned back into its dict; a
        level whose decoder failed had not been changed yet (reads come before writes).
        Without recursion, as `unstructure_any`.
        """
        cls = value.__class__
        if cls in _SCALARS:
            return value
        if cls is not dict and cls is not list:
            return self.unstructure(value) if attrs.has(cls) else value
        todo: list[Any] = [value]
        while todo:
            container = todo.pop()
            items = container.items() if container.__class__ is dict else enumerate(container)
            for k, v in list(items):
                vcls = v.__class__
                if vcls in _SCALARS:
                    continue
                if vcls is dict or vcls is list:
                    todo.append(v)
                elif attrs.has(vcls):
                    container[k] = self.unstructure(v)
        return value

    # -- names in the namespace ---------------------------------------------------------------

    def _bind(self, value: Any, hint: str) -> str:
        """Put ``value`` in the generated code's namespace and return its name (called while
        building, with the lock held)."""
        self._counter += 1
        safe = "".join(c if c.isalnum() else "_" for c in hint)[:40]
        name = f"_{safe}_{self._counter}"
        self.ns[name] = value
        return name

    def _generated(self, key: Any, name: str, build: Callable[[], Callable[..., Any]]) -> str:
        """The name of the generated function of ``key``, built by ``build`` if needed.

        The callers look in `_names` first, without the lock. A build that refers to a
        function this thread is building (a class that contains itself, two classes that
        contain each other) gets its name at once: the function is in the namespace before
        anyone else can call it, since every function of a build is published only when the
        outermost build is done.
        """
        with self._lock:
            found = self._names.get(key) or self._staged.get(key)
            if found is not None:
                return found
            self._staged[key] = name
            self._depth += 1
            try:
                self.ns[name] = build()
            except BaseException:
                self._staged.pop(key, None)
                if self._depth == 1:
                    self._staged.clear()  # nothing of a failed build is published
                raise
            finally:
                self._depth -= 1
            if self._depth == 0:
                self._names.update(self._staged)  # each name is in `ns` already
                self._staged.clear()
        return name

    def _struct_name(self, cls: type) -> str:
        key = ("s", cls)
        return self._names.get(key) or self._generated(
            key, f"_s_{cls.__name__}_{id(cls):x}", lambda: self._build_structure(cls)
        )

    def _unstruct_name(self, cls: type) -> str:
        key = ("u", cls)
        return self._names.get(key) or self._generated(
            key, f"_u_{cls.__name__}_{id(cls):x}", lambda: self._build_unstructure(cls)
        )

    def _union_fn_name(self, tp: Any) -> str:
        entry = self.union_entry(tp)
        if entry is None:
            raise TypeError(f"{tp!r} is not a union of this codec's schema")
        key = ("union", id(entry))
        return self._names.get(key) or self._generated(
            key, f"_d_union_{id(entry):x}", lambda: self._build_union_fn(entry)
        )

    # -- what converts, and how ------------------------------------------------------------

    def is_passthrough(self, tp: Any) -> bool:
        """True when a JSON value needs no conversion to be a valid value of ``tp``."""
        try:
            return self._passthrough[tp]
        except (KeyError, TypeError):  # not seen yet, or not hashable
            pass
        result = self._compute_passthrough(tp)
        with contextlib.suppress(TypeError):
            self._passthrough[tp] = result
        return result

    def _compute_passthrough(self, tp: Any) -> bool:
        if tp is Any or tp in _PASSTHROUGH_SCALARS:
            return True
        origin = typing.get_origin(tp)
        if origin is Literal:
            return True
        if origin in (typing.Union, types.UnionType):
            return self.union_entry(tp) is None and all(
                self.is_passthrough(a) for a in typing.get_args(tp)
            )
        if origin in (list, dict, Mapping, typing.Sequence, tuple) or tp in (list, dict):
            if origin is tuple:
                return False
            return all(self.is_passthrough(a) for a in typing.get_args(tp))
        if origin is typing.Annotated:
            return self.is_passthrough(typing.get_args(tp)[0])
        return bool(isinstance(tp, typing.TypeVar) or tp is typing.Any)

    def _structure_expr(self, tp: Any, var: str, depth: int = 0) -> str | None:
        """Python source converting the JSON value in ``var`` to ``tp``; None = as is."""
        if self.is_passthrough(tp):
            return None
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            return self._structure_expr(args[0], var, depth)
        entry = self.union_entry(tp)
        if entry is not None:
            call = f"{self._union_fn_name(tp)}({var})"
            return f"(None if {var} is None else {call})" if _NoneType in args else call
        if origin in (typing.Union, types.UnionType):
            non_none = [a for a in args if a is not _NoneType]
            convertible = [a for a in non_none if not self.is_passthrough(a)]
            if len(convertible) == 1:
                inner = self._structure_expr(convertible[0], var, depth)
                assert inner is not None
                target = convertible[0]
                torigin = typing.get_origin(target) or target
                if len(non_none) == 1:
                    return f"(None if {var} is None else {inner})"
                if torigin in (list, typing.Sequence):
                    check = f"{var}.__class__ is list"
                elif torigin in (dict, Mapping) or attrs.has(target) or self.union_entry(target):
                    check = f"{var}.__class__ is dict"
                else:
                    return f"{self._hook_name(tp)}({var}, None)"
                return f"({inner} if {check} else {var})"
            return f"{self._hook_name(tp)}({var}, None)"
        if origin in (list, typing.Sequence):
            item = f"x{depth}"
            inner = self._structure_expr(args[0], item, depth + 1)
            call = f"{self._structure_call(args[0])}({item})"
            if inner == call:  # one function per item: map it (no comprehension frame)
                return f"_list(_map({self._structure_call(args[0])}, {var}))"
            return f"[{inner} for {item} in {var}]"
        if origin in (dict, Mapping):
            item = f"x{depth}"
            inner = self._structure_expr(args[1], item, depth + 1)
            return f"{{k{depth}: {inner} for k{depth}, {item} in {var}.items()}}"
        if isinstance(tp, type) and attrs.has(tp):
            return f"{self._struct_name(tp)}({var})"
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return f"{self._bind(tp, tp.__name__)}({var})"
        return f"{self._hook_name(tp)}({var}, None)"

    def _hook_name(self, tp: Any) -> str:
        return self._bind(self.converter.get_structure_hook(tp), "hook")

    def _structure_call(self, tp: Any) -> str:
        """The name of the one function that structures a non-null ``tp``, or ``""``."""
        if typing.get_origin(tp) is typing.Annotated:
            return self._structure_call(typing.get_args(tp)[0])
        entry = self.union_entry(tp)
        if entry is not None and _NoneType not in typing.get_args(tp):
            return self._union_fn_name(tp)
        if isinstance(tp, type) and attrs.has(tp):
            return self._struct_name(tp)
        return ""

    def _unstructure_expr(self, tp: Any, var: str, depth: int = 0) -> str | None:
        """Python source converting the model value in ``var`` to JSON; None = as is."""
        if self.is_passthrough(tp):
            return None
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            return self._unstructure_expr(args[0], var, depth)
        if origin in (typing.Union, types.UnionType):
            return f"_unstructure_any({var})"
        if origin in (list, typing.Sequence):
            item = f"x{depth}"
            inner = self._unstructure_expr(args[0], item, depth + 1)
            return f"[{inner} for {item} in {var}]"
        if origin in (dict, Mapping):
            item = f"x{depth}"
            inner = self._unstructure_expr(args[1], item, depth + 1)
            return f"{{k{depth}: {inner} for k{depth}, {item} in {var}.items()}}"
        if isinstance(tp, type) and attrs.has(tp):
            return f"{self._unstruct_name(tp)}({var})"
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return f"{var}.value"
        return f"_unstructure_any({var})"

    # -- decoders ------------------------------------------------------------------------------

    def _build_structure(self, cls: type) -> Callable[[dict[str, Any]], Any]:
        """Generate ``structure(d) -> cls`` for one attrs wire class.

        ``d`` becomes the new instance's ``__dict__`` itself (no copy): tag keys stay (they
        hold the class's own values; see ``_base.tag_keys``), renamed keys are renamed, nested
        values are structured in place and unknown keys stay. At each level every required key
        is read and every nested value converted into locals before that level's dict is
        changed; nested dicts and lists are converted in place (their own decoders are written
        into this one, `_INLINE_DEPTH` levels deep, and lists of objects are converted item by
        item without a new list), so a value that does not fit can leave the input half
        converted: callers that must not lose their dict pass a copy, and the codec parses the
        line again before it tries the slow path. When an unknown key would collide with an
        attribute the decoder writes (``extra``, or the Python name of a renamed field), a
        fresh dict is built instead.
        """
        lines = ["def structure(d):"]
        ids = iter(range(1_000_000))
        result = self._emit_structure(cls, "d", lines, "    ", (cls,), ids)
        lines.append(f"    return {result}")
        return self._compile(lines, "structure", cls)

    def _emit_structure(
        self,
        cls: type,
        src: str,
        out: list[str],
        ind: str,
        stack: tuple[type, ...],
        ids: Iterator[int],
    ) -> str:
        """Append code turning the dict in ``src`` into a ``cls``; return the result's name."""
        prepare_class(cls)
        spec = self.spec(cls)
        ftypes = field_types(cls)
        tags = self.class_tags(cls)
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
            nullable = admits_none(tp)
            if required and not nullable:
                read.append(f"{ind}{var} = {od}[{wire!r}]")
                conv = self._emit_convert(tp, var, read, ind, stack, ids)
                if renamed:
                    write.append(f"{ind}del {od}[{wire!r}]")
                if renamed or (conv and not self._converts_in_place(tp)):
                    write.append(f"{ind}{od}[{name!r}] = {var}")
            elif required:
                read.append(f"{ind}{var} = {od}.get({wire!r})")
                body: list[str] = []
                if self._emit_convert(tp, var, body, deeper, stack, ids):
                    read.append(f"{ind}if {var} is not None:")
                    read += body
                if renamed:
                    write.append(f"{ind}{od}.pop({wire!r}, None)")
                write.append(f"{ind}{od}[{name!r}] = {var}")
            elif renamed:
                read.append(f"{ind}{var} = {od}.get({wire!r}, _MISSING)")
                body = []
                if self._emit_convert(tp, var, body, deeper, stack, ids):
                    read.append(f"{ind}if {var} is not _MISSING and {var} is not None:")
                    read += body
                write.append(f"{ind}if {var} is not _MISSING:")
                write.append(f"{deeper}del {od}[{wire!r}]")
                write.append(f"{deeper}{od}[{name!r}] = {var}")
            else:
                body = []
                if self._emit_convert(tp, var, body, deeper, stack, ids):
                    read.append(f"{ind}{var} = {od}.get({wire!r})")
                    read.append(f"{ind}if {var} is not None:")
                    read += body
                    write.append(f"{ind}if {var} is not None:")
                    write.append(f"{deeper}{od}[{name!r}] = {var}")
        known_name = self._bind(frozenset(known), "known")
        collide = {"extra"} | {
            a.name for a in attrs.fields(cls) if spec.wire_name(a.name) != a.name
        }
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
            f"{ind}{obj} = _new({self._bind(cls, cls.__name__)})",
            f"{ind}{self._bind(_dict_setter(cls), 'set_dict')}({obj}, {od})",
        ]
        return obj

    def _emit_convert(
        self,
        tp: Any,
        var: str,
        out: list[str],
        ind: str,
        stack: tuple[type, ...],
        ids: Iterator[int],
    ) -> bool:
        """Append code converting the (non-null) JSON value in ``var`` to ``tp``, in ``var``.

        Returns False when the value is used as it is (nothing appended).
        """
        if self.is_passthrough(tp):
            return False
        if typing.get_origin(tp) is typing.Annotated:
            return self._emit_convert(typing.get_args(tp)[0], var, out, ind, stack, ids)
        if self._inlinable(tp, stack):
            result = self._emit_structure(tp, var, out, ind, (*stack, tp), ids)
            out.append(f"{ind}{var} = {result}")
            return True
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType) and self.union_entry(tp) is None:
            non_none = [a for a in typing.get_args(tp) if a is not _NoneType]
            if len(non_none) == 1:  # Optional[X]: the caller has checked for None
                return self._emit_convert(non_none[0], var, out, ind, stack, ids)
        if origin in (list, typing.Sequence):
            (item_tp,) = typing.get_args(tp) or (Any,)
            entry = self.union_entry(item_tp)
            if self._converts_in_place(tp):
                # In place, item by item: no new list, no call per item for a nested class.
                k = next(ids)
                i, x = f"i{k}", f"x{k}"
                out.append(f"{ind}if {var}.__class__ is not list:")
                out.append(f"{ind}    raise TypeError('expected a list')")
                out.append(f"{ind}for {i}, {x} in enumerate({var}):")
                body = ind + "    "
                if entry is not None:
                    fns = self._bind(entry.fns, "fns")
                    slow = self._union_fn_name(item_tp)  # the dispatcher sorts out the rest
                    key = entry.key
                    # The first few members whose fields need no conversion are decoded right
                    # here (no call per item); the others through the union's table.
                    flat = [
                        (tag, cls)
                        for tag, cls in entry.members.items()
                        if tag not in entry.nested and self._is_flat(cls) and cls not in stack
                    ][:_INLINE_MEMBERS]
                    tag_var = f"t{k}"
                    out += [f"{body}try:", f"{body}    {tag_var} = {x}[{key!r}]"]
                    branch = body + "    "
                    for n, (tag, cls) in enumerate(flat):
                        out.append(f"{branch}{'if' if n == 0 else 'elif'} {tag_var} == {tag!r}:")
                        result = self._emit_structure(
                            cls, x, out, branch + "    ", (*stack, cls), ids
                        )
                        out.append(f"{branch}    {var}[{i}] = {result}")
                    if flat:
                        out.append(f"{branch}else:")
                        branch += "    "
                    out += [
                        f"{branch}{var}[{i}] = {fns}[{tag_var}]({x})",
                        f"{body}except {_CAUGHT_SOURCE}:",
                        f"{body}    {var}[{i}] = {slow}({x})",
                    ]
                else:
                    self._emit_convert(item_tp, x, out, body, stack, ids)
                    out.append(f"{body}{var}[{i}] = {x}")
                return True
        expr = self._structure_expr(tp, var)
        if expr is None:
            return False
        out.append(f"{ind}{var} = {expr}")
        return True

    def _is_flat(self, cls: type) -> bool:
        """True for a wire class none of whose fields needs converting (only JSON values)."""
        if not attrs.has(cls) or is_unknown(cls):
            return False
        ftypes = field_types(cls)
        return all(
            self.is_passthrough(ftypes[a.name])
            for a in attrs.fields(cls)
            if a.name not in ("extra", "raw")
        )

    def _converts_in_place(self, tp: Any) -> bool:
        """True when `_emit_convert` converts a value of ``tp`` in place (a list of objects)."""
        if typing.get_origin(tp) is typing.Annotated:
            return self._converts_in_place(typing.get_args(tp)[0])
        if typing.get_origin(tp) not in (list, typing.Sequence):
            return False
        (item_tp,) = typing.get_args(tp) or (Any,)
        entry = self.union_entry(item_tp)
        return (entry is not None and _NoneType not in typing.get_args(item_tp)) or (
            isinstance(item_tp, type) and attrs.has(item_tp)
        )

    @staticmethod
    def _inlinable(tp: Any, stack: tuple[type, ...]) -> bool:
        return (
            isinstance(tp, type)
            and attrs.has(tp)
            and tp not in stack
            and len(stack) < _INLINE_DEPTH
            and not is_unknown(tp)
        )

    # -- encoders ----------------------------------------------------------------------------

    def _build_unstructure(self, cls: type) -> Callable[[Any], dict[str, Any]]:
        """Generate ``unstructure(o) -> dict`` for one attrs wire class.

        Required fields are written from their values; optional fields when the instance
        holds them (see ``claude_sdk._base``: absent means "not on the wire"; a Python-built
        instance holds its non-None values and its ``_always`` fields).
        """
        prepare_class(cls)
        spec = self.spec(cls)
        ftypes = field_types(cls)
        tags = self.class_tags(cls)
        tag_keys(cls, frozenset(tags))
        # ``o.extra`` inlined: an explicit ``extra``, else the keys that are not fields (none,
        # for a value built in Python: checked in C).
        known = self._bind(field_names(cls), "known")
        lines = [
            "def unstructure(o):",
            "    od = o.__dict__",
            "    if not od:",  # nothing held: only the tags (HookOutput(), PermissionAllow())
            f"        return {tags!r}",
            "    e = od.get('extra')",
            f"    if e is None and not od.keys() <= {known}:",
            f"        e = {{k: x for k, x in od.items() if k not in {known}}}",
            "    d = dict(e) if e else {}",
        ]
        lines += [f"    d[{key!r}] = {value!r}" for key, value in tags.items()]
        for a in attrs.fields(cls):
            if a.name in ("extra", "raw"):
                continue
            wire = spec.wire_name(a.name)
            conv = self._unstructure_expr(ftypes[a.name], "v")
            value = f"None if v is None else {conv}" if conv else "v"
            if a.default is attrs.NOTHING:
                lines.append(f"    v = o.{a.name}")
                lines.append(f"    d[{wire!r}] = {value}")
            else:
                lines.append(f"    v = od.get({a.name!r}, _MISSING)")
                lines.append("    if v is not _MISSING:")
                lines.append(f"        d[{wire!r}] = {value}")
        lines.append("    return d")
        return self._compile(lines, "unstructure", cls)

    # -- union dispatchers ------------------------------------------------------------------

    def _build_union_fn(self, entry: Union) -> Callable[[dict[str, Any]], Any]:
        """Generate the dispatcher for a tagged union (unknown tags keep the raw dict)."""
        key = entry.key
        fns = entry.fns

        def fn_for(tag: Any) -> Callable[[dict[str, Any]], Any] | None:
            if not isinstance(tag, str):
                return None  # a tag that is not a string is an unknown kind
            sub = entry.nested.get(tag)
            if sub is not None:
                return self.union_fn(sub)
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
            return self.structure_fn(cls)

        unknown = entry.unknown

        def slow(d: Any) -> Any:
            if d.__class__ is not dict:
                raise TypeError(f"expected a JSON object, got {type(d).__name__}")
            # The fast path may have converted part of ``d`` in place before it failed.
            self.restore(d)
            tag = d.get(key)
            fn = fn_for(tag)
            if fn is None:
                if unknown is None:
                    raise ValueError(f"unknown {key} {tag!r}")
                return make_unknown(unknown, d)
            try:
                return fn(d)
            except CAUGHT as exc:
                if unknown is None:
                    raise
                logger.warning(
                    "could not type %s=%r (%s: %s); kept raw", key, tag, type(exc).__name__, exc
                )
                return make_unknown(unknown, d, error=f"{type(exc).__name__}: {exc}")

        def lazy(tag: str) -> Callable[[dict[str, Any]], Any]:
            def first_call(d: dict[str, Any]) -> Any:
                fn = fn_for(tag)
                assert fn is not None
                fns[tag] = fn
                return fn(d)

            return first_call

        # In one update: the table is read without a lock (here, by the code of the lists of
        # this union's members, and by the codec's frame decoder).
        fns.update({tag: lazy(tag) for tag in [*entry.members, *entry.nested]})

        # The hot path is one lookup and one call; anything unusual (an unknown tag, a value
        # that is not an object, a shape that does not fit) is sorted out by ``slow``.
        def dispatch(d: Any) -> Any:
            try:
                return fns[d[key]](d)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError):
                return slow(d)

        return dispatch

    # -- compiling -------------------------------------------------------------------------

    def _compile(self, lines: list[str], fname: str, cls: type) -> Callable[..., Any]:
        source = "\n".join(lines)
        code = compile_source(source, f"codec {fname} {cls.__qualname__}")
        local: dict[str, Any] = {}
        exec(code, self.ns, local)
        fn = local[fname]
        fn.__qualname__ = f"{fname}_{cls.__qualname__}"
        fn.source = source  # kept for debugging
        return typing.cast("Callable[..., Any]", fn)


_SOURCES = itertools.count(1)


def compile_source(source: str, what: str) -> types.CodeType:
    """``source`` compiled, and registered in ``linecache`` under a name of its own, so that a
    traceback through generated code shows its lines (as attrs does for its methods)."""
    filename = f"<claude_sdk {what} #{next(_SOURCES)}>"
    code = compile(source, filename, "exec")
    # mtime None: `linecache.checkcache` keeps the entry (there is no file to compare with)
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    return code


def make_unknown(cls: type, d: dict[str, Any], error: str | None = None) -> Any:
    """An ``Unknown*`` value holding ``d`` (and why it could not be typed)."""
    if error is not None and "error" in attrs.fields_dict(cls):
        return cls(raw=d, error=error)
    return cls(raw=d)
