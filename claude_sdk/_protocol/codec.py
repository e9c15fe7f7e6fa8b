"""The wire codec: JSON lines to typed frames and back.

A `Codec` is built from a `Schema` (``claude_sdk._protocol.schema``) and owns everything it
learns: its generated functions, its unions, its converter. `default_codec` is the codec of
the CLI's wire, built on first use; nothing is registered when a module is imported.

Contract:

* ``decode_frame(line)`` turns one NDJSON line into one typed frame. It never raises for a
  line that is a JSON object: an unknown ``type``, ``subtype`` or block kind becomes an
  ``Unknown*`` value holding the raw dict. A message frame of a known kind whose fields do
  not all fit the model is decoded field by field: what fits is typed, a field that does not
  reads as its default (a required one as an empty value of its type) and the value the CLI
  sent stays in ``extra``, listed in ``frame.decode_issues``; a message that cannot be made
  so (a required nested object missing) and a control envelope that does not fit become
  ``UnknownMessage`` (with the raw dict and the error). So a ``result`` always decodes as a
  `ResultMessage`, and ends its turn.
* Only a line that is not a JSON object raises `MessageDecodeError`: not JSON, nested deeper
  than `MAX_DEPTH` (500) levels, or holding ``NaN``/``Infinity`` (not JSON), refused on every
  path, never decoded on one and refused on another. Invalid UTF-8 is not a reason: the line is
  decoded with U+FFFD in place of the bad bytes and the frame says so in ``decode_issues``.
* Fields the model does not know are kept in ``extra`` (excluded from equality and repr)
  and written back by ``encode``. A decoded object's ``__dict__`` holds exactly the keys
  the frame carried (explicit nulls included), so ``encode(decode(d)) == d`` for every
  frame the CLI sends. A copy made with ``attrs.evolve`` is built like any Python-made
  object: its optional fields left at None are not written (but those in ``_always``).
* Encoding writes JSON: a float ``NaN`` or infinity is written ``null`` (as the CLI's own
  ``JSON.stringify`` does), on every path.
* Known limitation: orjson turns integers beyond 64 bits (but within the float range) into
  floats (ijl/orjson#308); such a value decodes rounded.
* A codec may be used from any thread, first uses included (issue 26): its generator builds
  under a lock and publishes only what is complete (``_protocol.generate``); what the codec
  itself keeps on first use (`verified`'s checks, the envelope keys of `answer_line`, the
  frame dispatcher) is the same value whichever thread makes it, stored in one assignment.
  Once built, nothing takes a lock.

Validation of types and the report of unknown kinds and fields is the job of the strict
checker, ``Codec.drift(frame)``, which tests and ``python -m claude_sdk.testing drift`` use.
"""

from __future__ import annotations

import copy
import json
import logging
import math
import threading
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from .. import messages as _messages
from .._base import ABSENT, EMPTY, NOTES, DecodeNotes, bind_encoder, prepare_class, tag_keys
from ..control import ControlError, ControlResponse, ControlSuccess
from ..errors import MessageDecodeError
from . import drift as _drift
from .generate import Generator, admits_none, field_types, is_unknown
from .schema import Schema, wire_schema

if TYPE_CHECKING:
    import cattrs

__all__ = ["MAX_DEPTH", "Codec", "default_codec", "dumps", "loads"]

logger = logging.getLogger("claude_sdk.protocol")

#: The deepest nesting of arrays and objects a frame may have; a deeper one is refused, on
#: every parse path. Far beyond anything the CLI writes (a few dozen levels at most), and low
#: enough that nothing that walks a value recursively (the standard library's JSON, the slow
#: paths of the codec) comes near Python's recursion limit (about 1,000 frames): a frame
#: nested 1,000 levels deep is a skipped line, never a RecursionError.
MAX_DEPTH = 500
#: The shortest line that can nest deeper than `MAX_DEPTH` (an opening and a closing bracket
#: a level): shorter lines are never walked.
_DEEP_LINE = 2 * (MAX_DEPTH + 1)

_NoneType = type(None)
#: The message classes (a frame of one of these that does not fit is decoded field by field).
_MESSAGES = frozenset(typing.get_args(_messages.Message))
_REPLACED = "invalid UTF-8 replaced with U+FFFD"


# --------------------------------------------------------------------------------------
# JSON


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _depth_exceeds(data: Any, limit: int) -> bool:
    """True when ``data`` nests deeper than ``limit`` levels (iterative: no recursion)."""
    todo: list[tuple[Any, int]] = [(data, 1)]
    while todo:
        value, depth = todo.pop()
        cls = value.__class__
        if cls is dict:
            if depth > limit:
                return True
            todo.extend((v, depth + 1) for v in value.values() if v.__class__ in (dict, list))
        elif cls is list:
            if depth > limit:
                return True
            todo.extend((v, depth + 1) for v in value if v.__class__ in (dict, list))
    return False


def _stdlib_loads(text: str | bytes) -> Any:
    """The standard library's parse, with the same refusals as orjson's."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    if data.__class__ in (dict, list) and _depth_exceeds(data, MAX_DEPTH):
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return data


def _raw(line: bytes | bytearray | memoryview | str) -> bytes:
    return line.encode("utf-8", "surrogatepass") if isinstance(line, str) else bytes(line)


def _parse(line: bytes | bytearray | memoryview | str) -> tuple[Any, bool]:
    """Parse a line orjson refused: ``(data, repaired)``; ``repaired`` when invalid UTF-8 had
    to be replaced.

    Raises:
        MessageDecodeError: the line is not JSON (after UTF-8 repair), nests too deeply, or
            holds ``NaN``/``Infinity``.
    """
    repaired = False
    if isinstance(line, str):
        text = line
    else:
        # Decoded here, strictly: the standard library decodes bytes with "surrogatepass",
        # which would let UTF-8-encoded surrogates (invalid UTF-8) through as lone surrogates.
        data = bytes(line)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("utf-8", "replace")
            repaired = True
    try:
        return _stdlib_loads(text), repaired
    except ValueError as exc:
        raise MessageDecodeError(line=_raw(line), reason=f"not JSON: {exc}") from None


def loads(line: bytes | bytearray | memoryview | str) -> Any:
    """Parse one JSON document (orjson, with the standard library as the fallback).

    orjson refuses a few documents the CLI could still send (integers beyond 64 bits, lone
    surrogate escapes, invalid UTF-8); the standard library parses those (invalid UTF-8 with
    U+FFFD in place), so nothing valid is lost. ``NaN``/``Infinity`` and nesting deeper than
    `MAX_DEPTH` are refused on both paths.

    Raises:
        MessageDecodeError: the text is not JSON.
    """
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return _parse(line)[0]
    if len(line) >= _DEEP_LINE:
        _check_depth(data, line)
    return data


#: Lines up to this long count their brackets before walking (one C scan of a few KiB costs
#: less than a walk of the containers; beyond it the walk, linear in containers, is cheaper).
_COUNT_BRACKETS = 64 * 1024


def _check_depth(data: Any, line: bytes | bytearray | memoryview | str) -> None:
    """Raise when ``data`` (parsed from ``line``) nests deeper than `MAX_DEPTH`."""
    if len(line) <= _COUNT_BRACKETS and not isinstance(line, memoryview):
        # Nesting N levels takes N opening brackets (some may sit inside strings: the count
        # is an upper bound), so a line with few brackets cannot be too deep.
        if isinstance(line, str):
            if line.count("{") + line.count("[") <= MAX_DEPTH:
                return
        elif line.count(b"{") + line.count(b"[") <= MAX_DEPTH:
            return
    if data.__class__ in (dict, list) and _depth_exceeds(data, MAX_DEPTH):
        raise MessageDecodeError(
            line=_raw(line), reason=f"not JSON the SDK reads: nested deeper than {MAX_DEPTH} levels"
        )


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (iterative: no recursion)."""
    root = [value]
    todo: list[Any] = [root]
    while todo:
        container = todo.pop()
        items = container.items() if container.__class__ is dict else enumerate(container)
        for key, item in list(items):
            cls = item.__class__
            if cls is float and not math.isfinite(item):
                container[key] = None
            elif cls is dict:
                container[key] = item = dict(item)
                todo.append(item)
            elif cls in (list, tuple):
                container[key] = item = list(item)
                todo.append(item)
    return root[0]


def dumps(obj: Any) -> bytes:
    """Serialise to compact JSON bytes without a trailing newline.

    The output never contains a raw newline (newlines inside strings are escaped), so it is
    always exactly one NDJSON line. Non-finite floats are written ``null``.

    Raises:
        TypeError: ``obj`` holds a value JSON cannot hold, or nests too deeply.
    """
    try:
        return orjson.dumps(obj)
    except TypeError:
        pass
    # Integers beyond 64 bits, lone surrogates, deep nesting: the standard library writes
    # what orjson refuses.
    try:
        text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    except ValueError:  # a non-finite float: null, as orjson writes it
        text = json.dumps(_finite(obj), ensure_ascii=True, separators=(",", ":"))
    except RecursionError:
        raise TypeError("the value nests too deeply to be written as JSON") from None
    return text.encode("ascii")


# --------------------------------------------------------------------------------------
# The codec


class Codec:
    """Decodes lines to typed frames and encodes model values, for one `Schema`.

    Attributes:
        schema: what the codec was built from.
        decode_frame: ``decode_frame(line) -> frame`` (see the module docstring).
    """

    decode_frame: Callable[[bytes | bytearray | memoryview | str], Any]

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._gen = Generator(schema)
        self._fit_checks: dict[type, Callable[[Any], bool]] = {}
        frame_entry = (
            self._gen.union_entry(schema.frame_union) if schema.frame_union is not None else None
        )
        self._frame_entry = frame_entry
        #: The frame union's functions by ``type`` (filled when the union is first used).
        self._frame_fns: dict[str, Callable[[dict[str, Any]], Any]] = (
            frame_entry.fns if frame_entry is not None else {}
        )
        self._frame_dispatch: Callable[[Any], Any] | None = None
        self._envelopes: tuple[Any, ...] = ()
        #: Frame classes seen that are not ``Unknown*`` (the fast path of `decode_frame`).
        self._known: set[type] = set()
        self.decode_frame = self.frame_decoder()

    # -- decoding --------------------------------------------------------------------------

    def _frame_fn(self) -> Callable[[Any], Any]:
        dispatch = self._frame_dispatch
        if dispatch is None:
            if self.schema.frame_union is None:
                raise TypeError("this codec's schema has no frame union")
            dispatch = self._frame_dispatch = self._gen.union_fn(self.schema.frame_union)
        return dispatch

    def frame_decoder(
        self, expect: Iterable[type] | None = None
    ) -> Callable[[bytes | bytearray | memoryview | str], Any]:
        """A ``decode(line) -> frame`` function (a closure: the hot path is one call).

        With ``expect``, a line that decodes to a known class not in ``expect`` raises
        `MessageDecodeError` (an ``Unknown*`` value is still returned): the session decodes
        the lines it routed by their first ``type`` key this way, so that a line with a second
        ``type`` key cannot become a frame of another kind.
        """
        orjson_loads = orjson.loads
        frame_fns = self._frame_fns
        expected = None if expect is None else frozenset(expect)
        known = self._known if expected is None else expected
        slow = self._decode_slow
        checked = self._checked
        check_depth = _check_depth
        deep_line = _DEEP_LINE

        def decode_frame(line: bytes | bytearray | memoryview | str) -> Any:
            try:
                data = orjson_loads(line)
            except orjson.JSONDecodeError:
                return slow(line, None, expected)
            if len(line) >= deep_line:  # only such a line can nest too deeply
                check_depth(data, line)
            # The hot path: an object of a known type that fits its class.
            try:
                frame = frame_fns[data["type"]](data)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError):
                return slow(line, data, expected)
            if frame.__class__ in known:
                return frame
            return checked(frame, line, expected)

        return decode_frame

    def _decode_slow(
        self,
        line: bytes | bytearray | memoryview | str,
        data: Any,
        expect: frozenset[type] | None = None,
    ) -> Any:
        """Decode a line the fast path could not (``data``: what orjson parsed, or None)."""
        repaired = False
        if data is None:
            data, repaired = _parse(line)  # untouched: the decoders have not seen it
        elif data.__class__ is dict:
            # The decoders convert nested values in place, so a frame that did not fit may
            # be half converted: start again from the line.
            data = orjson.loads(line)
        if data.__class__ is not dict:
            raise MessageDecodeError(
                line=_raw(line),
                reason=f"a frame must be a JSON object, not {type(data).__name__}",
            )
        try:
            frame = self._checked(self._frame_fn()(data), line, expect, data if repaired else None)
        except RecursionError:
            raise MessageDecodeError(
                line=_raw(line), reason=f"nested deeper than the codec can follow ({MAX_DEPTH})"
            ) from None
        if repaired and not is_unknown(frame.__class__):
            notes = frame.__dict__.get(NOTES)
            if notes is None:
                frame.__dict__[NOTES] = DecodeNotes((_REPLACED,))
            else:
                frame.__dict__[NOTES] = DecodeNotes((_REPLACED, *notes.issues), notes.required)
        return frame

    def _checked(
        self,
        frame: Any,
        line: bytes | bytearray | memoryview | str,
        expect: Iterable[type] | None,
        parsed: Any = None,
    ) -> Any:
        """``frame`` once the slow cases are sorted out (``parsed``: the line's data, when
        it cannot simply be parsed again)."""
        cls = frame.__class__
        if is_unknown(cls):
            if frame.error is None:
                return frame  # an unknown kind
            # A known kind that did not fit: type what fits, or keep it exactly as it came.
            data = parsed if parsed is not None else loads(line)
            lenient = self._lenient_frame(_fresh(data))
            if lenient is None:
                return cls(raw=data, error=frame.error)
            frame = lenient
            cls = frame.__class__
        if expect is not None:
            if cls not in expect:
                raise MessageDecodeError(
                    line=_raw(line),
                    reason=f"the line decodes as {cls.__name__}, not the kind its first "
                    "'type' key names (a second 'type' key?)",
                )
            return frame
        if NOTES not in frame.__dict__:
            self._known.add(cls)
        return frame

    def decode_obj(self, data: Any) -> Any:
        """Type one decoded JSON value as a frame (``data`` is left as it was).

        Raises:
            MessageDecodeError: ``data`` is not a JSON object.
        """
        if data.__class__ is not dict:
            raise MessageDecodeError(
                line=dumps(data),
                reason=f"a frame must be a JSON object, not {type(data).__name__}",
            )
        frame = self._frame_fn()(_fresh(data))
        if getattr(frame, "error", None) is not None and is_unknown(frame.__class__):
            lenient = self._lenient_frame(_fresh(data))
            if lenient is not None:
                return lenient
            return frame.__class__(raw=data, error=frame.error)
        return frame

    # -- the per-field fallback for messages ------------------------------------------------

    def _frame_class(self, data: dict[str, Any]) -> type | None:
        """The class a frame's tags name, following nested unions (None: unknown tags)."""
        entry = self._frame_entry
        while entry is not None:
            tag = data.get(entry.key)
            if not isinstance(tag, str):
                return None
            nested = entry.nested.get(tag)
            if nested is not None:
                entry = self._gen.union_entry(nested)
                continue
            return entry.members.get(tag) or entry.default
        return None

    def _lenient_frame(self, data: dict[str, Any]) -> Any:
        """A message decoded field by field (see the module docstring), or None for a control
        envelope, an unknown kind, or a message that cannot be made so."""
        cls = self._frame_class(data)
        if cls is None or not (cls in _MESSAGES or issubclass(cls, _messages.SystemMessage)):
            return None
        try:
            return self._lenient(cls, data)
        except TypeError:  # a required field with no stand-in value (a nested object)
            return None

    def verified(self, frame: Any, line: bytes | bytearray | memoryview | str) -> Any:
        """``frame``, or, when a field holds a value of the wrong JSON type (the decoders
        do not check scalars), the same frame decoded field by field with that value kept in
        ``extra`` and listed in ``decode_issues``. For the frames whose fields decide what the
        session does (a result's ``is_error``, ``subtype``, ``result``)."""
        cls = frame.__class__
        check = self._fit_checks.get(cls)
        if check is None:
            if is_unknown(cls):
                return frame
            check = self._fit_check(cls)
        if check(frame):
            return frame
        problems = _drift.field_problems(self._gen, frame)
        if not problems:
            return frame
        return self._lenient(frame.__class__, loads(line), unfit=problems)

    def _fit_check(self, cls: type) -> Callable[[Any], bool]:
        check = self._fit_checks.get(cls)
        if check is None:
            check = self._fit_checks[cls] = _drift.fit_check(self._gen, cls)
        return check

    def _lenient(self, cls: type, data: dict[str, Any], unfit: Mapping[str, str] = EMPTY) -> Any:
        gen = self._gen
        prepare_class(cls)
        spec = gen.spec(cls)
        ftypes = field_types(cls)
        tags = gen.class_tags(cls)
        tag_keys(cls, frozenset(tags))
        known = set(tags)
        held: dict[str, Any] = {key: data[key] for key in tags if key in data}
        extra: dict[str, Any] = {}
        required: dict[str, Any] = {}
        issues: list[str] = []
        for a in attrs.fields(cls):
            if a.name in ("extra", "raw"):
                continue
            wire = spec.wire_name(a.name)
            known.add(wire)
            tp = ftypes[a.name]
            is_required = a.default is attrs.NOTHING
            if wire not in data:
                if is_required:
                    held[a.name] = _stand_in(tp)
                    required[wire] = ABSENT
                    issues.append(f"{wire}: missing")
                continue
            value = data[wire]
            try:
                held[a.name] = self._field_value(value, tp, unfit.get(wire))
            except Exception as exc:  # cattrs raises groups: any failure means "does not fit"
                issues.append(
                    f"{wire}: {type(value).__name__} does not fit ({type(exc).__name__}: {exc}); "
                    "kept in extra"
                )
                extra[wire] = value
                if is_required:
                    held[a.name] = _stand_in(tp)
                    required[wire] = value
        extra.update({key: value for key, value in data.items() if key not in known})
        if extra:
            held["extra"] = extra
        held[NOTES] = DecodeNotes(tuple(issues), required or EMPTY)
        logger.warning(
            "a %s frame did not fit the model; decoded field by field: %s",
            cls.__name__,
            "; ".join(issues),
        )
        obj: Any = object.__new__(cls)
        object.__setattr__(obj, "__dict__", held)
        return obj

    def _field_value(self, value: Any, tp: Any, problem: str | None = None) -> Any:
        if problem is not None:
            raise TypeError(problem)
        if value is None:
            if admits_none(tp):
                return None
            raise TypeError("null where a value is required")
        if self._gen.is_passthrough(tp):
            return value
        return self.structure(value, tp)

    # -- structuring and encoding ------------------------------------------------------------

    def structure_fn(self, cls: type) -> Callable[[dict[str, Any]], Any]:
        """The generated structure function of an attrs wire class (works in place)."""
        return self._gen.structure_fn(cls)

    def structure(self, data: Any, tp: Any) -> Any:
        """Structure JSON data into ``tp`` (an attrs class, a union of the schema, any type).

        ``data`` is left as it was (the decoders work on a copy).
        """
        data = _fresh(data)
        if isinstance(tp, type) and attrs.has(tp):
            return self._gen.structure_fn(tp)(data)
        return self.converter.structure(data, tp)

    def unstructure(self, obj: Any) -> Any:
        """A model value as JSON-ready data (the inverse of `structure`)."""
        data = self._gen.unstructure(obj)
        notes = getattr(obj, "__dict__", EMPTY).get(NOTES)
        if notes is not None and notes.required:
            # Required fields that hold a stand-in: write back what the CLI sent (or nothing).
            for key, value in notes.required.items():
                if value is ABSENT:
                    data.pop(key, None)
                else:
                    data[key] = value
        return data

    def encode(self, obj: Any) -> bytes:
        """A frame (or any model value) as one JSON line, without the newline."""
        return dumps(self.unstructure(obj))

    def answer_line(self, request_id: str, body: Any) -> bytes:
        """The line of a ``control_response`` that answers ``request_id`` with ``body``.

        What ``encode(ControlResponse(response=ControlSuccess(...)))`` gives, without
        building the two envelopes: their tags and key names are read from the model once
        (the host answers every permission request and hook this way: it is a hot path).
        """
        keys = self._envelopes or self._envelope_keys()
        cls = body.__class__
        if cls is not dict:
            fn = self._gen.unstructure_fns.get(cls)
            body = fn(body) if fn is not None else self.unstructure(body)
        return dumps({keys[0]: keys[1], keys[2]: {**keys[3], keys[4]: request_id, keys[5]: body}})

    def error_line(self, request_id: str, error: str, code: str | None = None) -> bytes:
        """The line of a ``control_response`` that answers ``request_id`` with an error."""
        return self.encode(
            ControlResponse(
                response=ControlError(request_id=request_id, error=error, error_code=code)
            )
        )

    def _envelope_keys(self) -> tuple[Any, ...]:
        gen = self._gen
        ((type_key, type_value),) = gen.class_tags(ControlResponse).items()
        success_tags = gen.class_tags(ControlSuccess)
        response_spec = gen.spec(ControlResponse)
        success_spec = gen.spec(ControlSuccess)
        self._envelopes = (
            type_key,
            type_value,
            response_spec.wire_name("response"),
            success_tags,
            success_spec.wire_name("request_id"),
            success_spec.wire_name("response"),
        )
        return self._envelopes

    def wire_name(self, cls: type, field: str) -> str:
        """The wire key of ``cls``'s field ``field`` (``updated_input`` -> ``updatedInput``)."""
        return self._gen.spec(cls).wire_name(field)

    @property
    def converter(self) -> cattrs.Converter:
        """A cattrs converter that knows the schema's classes (made on first use)."""
        return self._gen.converter

    def union_fn(self, tp: Any) -> Callable[[Any], Any]:
        """The dispatcher of a union of the schema (works in place)."""
        return self._gen.union_fn(tp)

    def drift(self, obj: Any, path: str = "$") -> list[str]:
        """What the model does not know about a decoded value (see ``_protocol.drift``)."""
        return _drift.drift(self._gen, obj, path)

    def warm_up(
        self, decode: Iterable[type], encode: Iterable[type] = (), verify: Iterable[type] = ()
    ) -> None:
        """Generate the decoders of ``decode``, the encoders of ``encode`` and the checks
        `verified` runs on ``verify`` now.

        The session calls it while the CLI starts, so that the first frames do not wait for
        the code generation (a few milliseconds in a fresh process).
        """
        self._frame_fn()
        for cls in decode:
            self._gen.structure_fn(cls)
        for cls in encode:
            self._gen.unstructure_fn(cls)
        for cls in verify:
            self._fit_check(cls)

    # -- what the generator knows (for tests and tools) ---------------------------------------

    @property
    def generator(self) -> Generator:
        """The code generator (its `union_entry`, `spec`, `is_passthrough`, ...)."""
        return self._gen


def _stand_in(tp: Any) -> Any:
    """The empty value of ``tp`` a required field holds when the frame's value did not fit."""
    if admits_none(tp):
        return None
    origin = typing.get_origin(tp) or tp
    if origin is typing.Literal:
        return typing.get_args(tp)[0]
    for kind, empty in ((bool, False), (str, ""), (int, 0), (float, 0.0), (list, []), (dict, {})):
        if origin is kind or (isinstance(origin, type) and issubclass(origin, kind)):
            return copy.copy(empty)
    raise TypeError(f"no stand-in value for {tp!r}")


def _fresh(data: Any) -> Any:
    """A deep copy of JSON data (the generated decoders work in place)."""
    try:
        return orjson.loads(orjson.dumps(data))
    except (TypeError, orjson.JSONDecodeError):
        return _copy_containers(data)


def _copy_containers(data: Any) -> Any:
    """A copy of every dict and list in ``data`` (anything else is shared), without recursion:
    orjson refuses to write values nested deeper than 254 levels, and ``copy.deepcopy`` would
    recurse once a level."""
    root = [data]
    todo: list[Any] = [root]
    while todo:
        container = todo.pop()
        items = container.items() if container.__class__ is dict else enumerate(container)
        for key, value in list(items):
            cls = value.__class__
            if cls is dict:
                container[key] = value = dict(value)
                todo.append(value)
            elif cls is list:
                container[key] = value = list(value)
                todo.append(value)
    return root[0]


_DEFAULT: list[Codec] = []
_DEFAULT_LOCK = threading.Lock()


def default_codec() -> Codec:
    """The codec of the CLI's wire (built on first use, then shared)."""
    if _DEFAULT:
        return _DEFAULT[0]
    with _DEFAULT_LOCK:
        if not _DEFAULT:
            codec = Codec(wire_schema())
            bind_encoder(codec.unstructure)
            _DEFAULT.append(codec)
    return _DEFAULT[0]
