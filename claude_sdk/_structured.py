"""Structured output you can rely on: is a result's ``structured_output`` what was asked for?

When ``Options.output_format`` asks for structured output, a successful result must carry a
value that validates against the JSON Schema (and, for a class, turns into an instance of
it). `check` says what is wrong, `flag` records it on the `ResultMessage`
(``result.structured_output_error``) and `StructuredOutputError` is what ``ask()`` raises.

`validate` uses the ``jsonschema`` package (draft 2020-12) when it is installed (it comes with
the ``mcp`` extra). Otherwise, or for a schema ``jsonschema`` cannot take (an invalid one, one
too deep for it), a small built-in check covers the keywords the SDK's derived schemas and
hand-written output schemas use (``type``, ``enum``, ``const``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``prefixItems``, ``anyOf``, ``oneOf``, ``allOf``,
``not``, local ``$ref``, string/number/array/object bounds, ``pattern``). A keyword it does
not know is not checked (never a false alarm); the test suite compares it with
``jsonschema`` on generated schemas and values.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from ._base import HOST_NOTES

if TYPE_CHECKING:
    from .messages import ResultMessage
    from .options import Options

__all__ = ["check", "flag", "validate", "validate_builtin"]

#: At most this many problems are listed (a huge wrong value must not make a huge message).
MAX_PROBLEMS = 5
_MAX_DEPTH = 200


def validate(value: Any, schema: Any) -> list[str]:
    """The ways ``value`` fails ``schema`` (``$.path: what``), at most `MAX_PROBLEMS`:
    ``jsonschema``'s judgement when it is installed and takes the schema, else the built-in
    subset's (`validate_builtin`)."""
    found = _with_jsonschema(value, schema)
    return found if found is not None else validate_builtin(value, schema)


#: Validators by the text of their schema (a program asks for a few schemas, many times).
_VALIDATORS: dict[str, Any] = {}
_MAX_VALIDATORS = 64


def _with_jsonschema(value: Any, schema: Any) -> list[str] | None:
    """``jsonschema``'s problems, or None when it is not installed or cannot take ``schema``."""
    try:
        import jsonschema  # optional: the mcp extra brings it
    except ImportError:
        return None
    if not isinstance(schema, (Mapping, bool)):
        return None
    try:
        key = json.dumps(schema, sort_keys=True, default=str)
        validator = _VALIDATORS.get(key)
        if validator is None:
            cls = jsonschema.Draft202012Validator
            cls.check_schema(schema)  # an invalid schema: the built-in check, never a crash
            validator = cls(schema, format_checker=None)
            if len(_VALIDATORS) >= _MAX_VALIDATORS:
                _VALIDATORS.clear()
            _VALIDATORS[key] = validator
        out: list[str] = []
        for error in validator.iter_errors(value):
            out.append(f"{error.json_path}: {error.message:.300}")
            if len(out) >= MAX_PROBLEMS:
                break
    except Exception:  # a schema it cannot follow (deep, looping $ref, a bad pattern)
        return None
    return out


def validate_builtin(value: Any, schema: Any) -> list[str]:
    """`validate` with the built-in subset only (what runs without ``jsonschema``)."""
    out: list[str] = []
    root = schema if isinstance(schema, Mapping) else {}
    for problem in _walk(value, schema, "$", root, 0):
        out.append(problem)
        if len(out) >= MAX_PROBLEMS:
            break
    return out


def _type_ok(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        if isinstance(value, bool):
            return False
        if isinstance(value, int):
            return True
        return isinstance(value, float) and math.isfinite(value) and value.is_integer()
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    return True  # an unknown type name is not checked


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but True != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _resolve(ref: str, root: Mapping[str, Any]) -> Any:
    if not ref.startswith("#"):
        return None  # a remote reference is not followed (not checked)
    node: Any = root
    for part in ref[1:].split("/")[1:] if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _walk(value: Any, schema: Any, path: str, root: Mapping[str, Any], depth: int) -> Iterator[str]:
    if schema is True or depth > _MAX_DEPTH:
        return
    if schema is False:
        yield f"{path}: no value is allowed here"
        return
    if not isinstance(schema, Mapping):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _resolve(ref, root)
        if target is not None:
            yield from _walk(value, target, path, root, depth + 1)
    types = schema.get("type")
    if isinstance(types, str):
        types = [types]
    if (
        isinstance(types, list)
        and types
        and not any(_type_ok(value, t) for t in types if isinstance(t, str))
    ):
        yield f"{path}: expected {' or '.join(map(str, types))}, got {_json_type(value)}"
        return
    if "const" in schema and not _equal(value, schema["const"]):
        yield f"{path}: expected {schema['const']!r}"
    enum = schema.get("enum")
    if isinstance(enum, list) and not any(_equal(value, e) for e in enum):
        yield f"{path}: {_short(value)} is not one of {enum!r:.120}"
    yield from _combinators(value, schema, path, root, depth)
    if isinstance(value, dict):
        yield from _object(value, schema, path, root, depth)
    elif isinstance(value, list):
        yield from _array(value, schema, path, root, depth)
    elif isinstance(value, str):
        yield from _string(value, schema, path)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield from _number(value, schema, path)


def _combinators(
    value: Any, schema: Mapping[str, Any], path: str, root: Mapping[str, Any], depth: int
) -> Iterator[str]:
    all_of = schema.get("allOf")
    if isinstance(all_of, list):
        for sub in all_of:
            yield from _walk(value, sub, path, root, depth + 1)
    any_of = schema.get("anyOf")
    if (
        isinstance(any_of, list)
        and any_of
        and not any(_fits(value, sub, path, root, depth) for sub in any_of)
    ):
        yield f"{path}: {_short(value)} fits none of the anyOf alternatives"
    one_of = schema.get("oneOf")
    if isinstance(one_of, list) and one_of:
        fitting = sum(_fits(value, sub, path, root, depth) for sub in one_of)
        if fitting != 1:
            yield f"{path}: {_short(value)} fits {fitting} of the oneOf alternatives, not 1"
    if "not" in schema and _fits(value, schema["not"], path, root, depth):
        yield f"{path}: {_short(value)} fits the schema under 'not'"


def _fits(value: Any, schema: Any, path: str, root: Mapping[str, Any], depth: int) -> bool:
    return next(_walk(value, schema, path, root, depth + 1), None) is None


def _object(
    value: dict[str, Any],
    schema: Mapping[str, Any],
    path: str,
    root: Mapping[str, Any],
    depth: int,
) -> Iterator[str]:
    required = schema.get("required")
    if isinstance(required, list):
        for name in required:
            if isinstance(name, str) and name not in value:
                yield f"{path}: '{name}' is required"
    props = schema.get("properties")
    props = props if isinstance(props, Mapping) else {}
    patterns = schema.get("patternProperties")
    patterns = patterns if isinstance(patterns, Mapping) else {}
    additional = schema.get("additionalProperties", True)
    for key, item in value.items():
        where = f"{path}.{key}"
        matched = False
        if key in props:
            matched = True
            yield from _walk(item, props[key], where, root, depth + 1)
        for pattern, sub in patterns.items():
            if _search(pattern, key):
                matched = True
                yield from _walk(item, sub, where, root, depth + 1)
        if not matched:
            if additional is False:
                yield f"{path}: '{key}' is not allowed (additionalProperties is false)"
            elif isinstance(additional, Mapping):
                yield from _walk(item, additional, where, root, depth + 1)
    low, high = schema.get("minProperties"), schema.get("maxProperties")
    if _is_count(low) and len(value) < low:
        yield f"{path}: fewer than {low} properties"
    if _is_count(high) and len(value) > high:
        yield f"{path}: more than {high} properties"


def _array(
    value: list[Any],
    schema: Mapping[str, Any],
    path: str,
    root: Mapping[str, Any],
    depth: int,
) -> Iterator[str]:
    prefix = schema.get("prefixItems")
    start = 0
    if isinstance(prefix, list):
        for i, (item, sub) in enumerate(zip(value, prefix, strict=False)):
            yield from _walk(item, sub, f"{path}[{i}]", root, depth + 1)
        start = len(prefix)
    items = schema.get("items")
    if isinstance(items, (Mapping, bool)):
        for i in range(start, len(value)):
            yield from _walk(value[i], items, f"{path}[{i}]", root, depth + 1)
    low, high = schema.get("minItems"), schema.get("maxItems")
    if _is_count(low) and len(value) < low:
        yield f"{path}: fewer than {low} items"
    if _is_count(high) and len(value) > high:
        yield f"{path}: more than {high} items"
    if schema.get("uniqueItems") is True:
        for i, a in enumerate(value):
            if any(_equal(a, b) for b in value[i + 1 :]):
                yield f"{path}: items are not unique"
                break


def _string(value: str, schema: Mapping[str, Any], path: str) -> Iterator[str]:
    low, high = schema.get("minLength"), schema.get("maxLength")
    length = len(value)  # code points, as JSON Schema counts them
    if _is_count(low) and length < low:
        yield f"{path}: shorter than {low} characters"
    if _is_count(high) and length > high:
        yield f"{path}: longer than {high} characters"
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and _search(pattern, value) is False:
        yield f"{path}: does not match {pattern!r}"


def _number(value: float, schema: Mapping[str, Any], path: str) -> Iterator[str]:
    low, high = schema.get("minimum"), schema.get("maximum")
    if _is_number(low) and value < low:
        yield f"{path}: {value!r} is below the minimum {low!r}"
    if _is_number(high) and value > high:
        yield f"{path}: {value!r} is above the maximum {high!r}"
    low, high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if _is_number(low) and value <= low:
        yield f"{path}: {value!r} is not above the exclusiveMinimum {low!r}"
    if _is_number(high) and value >= high:
        yield f"{path}: {value!r} is not below the exclusiveMaximum {high!r}"
    step = schema.get("multipleOf")
    if _is_number(step) and step > 0:
        quotient = value / step
        if math.isfinite(quotient) and not float(quotient).is_integer():
            yield f"{path}: {value!r} is not a multiple of {step!r}"


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _search(pattern: str, text: str) -> bool | None:
    """``re.search`` for an ECMA-262 pattern; None when Python cannot compile it (unchecked)."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check(result: ResultMessage, options: Options) -> str | None:
    """What is wrong with ``result``'s structured output for ``options`` (None: nothing).

    Only a successful result of a session that asked for structured output is checked: an
    error result is already an error, and a turn without ``output_format`` has nothing to
    check.
    """
    schema = options.output_schema
    if schema is None or result.is_error or result.subtype != "success":
        return None
    data = result.structured_output
    if data is None:
        return "the result has no structured output, though output_format asked for one"
    problems = validate(data, schema)
    if problems:
        return "the structured output does not validate against the schema: " + "; ".join(problems)
    output_type = options.output_type
    if output_type is not None:
        from ._protocol.codec import default_codec
        from ._schema import structure_output

        try:
            structure_output(output_type, data, default_codec().converter)
        except ValueError as exc:
            return str(exc)
    return None


def flag(result: ResultMessage, options: Options) -> str | None:
    """`check` the result and record the answer on it (``result.structured_output_error``)."""
    problem = check(result, options)
    if problem is not None:
        notes = result.__dict__.setdefault(HOST_NOTES, {})
        notes["structured_output_error"] = problem
    return problem
