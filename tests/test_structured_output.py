"""Structured output you can rely on, and startup refusals with their reasons (FakeCLI).

* ``ask()`` / ``SessionPool.ask`` raise `StructuredOutputError` for a successful result
  without the structured output ``output_format`` asked for, or with one that fails the schema
  or the class; the `ResultMessage` a session hands out says the same
  (``structured_output_error``).
* The schema check (`claude_sdk._structured.validate`) agrees with the ``jsonschema`` package
  on generated schemas and values (hypothesis), and never raises.
* A startup refusal's reason is typed (`ResultError.startup_failure_reason`, kind
  ``"startup"``) and says whether a retry may pass.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
import sys
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import claude_sdk as cs
from claude_sdk import wire
from claude_sdk._structured import MAX_PROBLEMS, validate, validate_builtin
from claude_sdk.errors import STARTUP_FAILURES, classify_result
from claude_sdk.testing import FakeCLI, ScriptedCLI

from .support.deep import deep

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Point:
    x: int
    y: int


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name"],
    "additionalProperties": False,
}


def one_turn(**result_fields: Any) -> Any:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="done", **result_fields)

    return FakeCLI(script)


# ======================================================================================
# ask() and the flag on the result


async def test_a_fitting_output_passes() -> None:
    options = cs.Options(output_format=Point)
    reply = await cs.ask(
        "p", options=options, transport=one_turn(structured_output={"x": 1, "y": 2})
    )
    assert reply.structured_output == Point(1, 2)
    assert reply.result.structured_output_error is None


@pytest.mark.parametrize(
    ("output", "words"),
    [
        (None, "no structured output"),
        # jsonschema's words (the test environment has it; the built-in check's are below)
        ({"x": 1}, "$: 'y' is a required property"),
        ({"x": "one", "y": 2}, "$.x: 'one' is not of type 'integer'"),
        ([1, 2], "$: [1, 2] is not of type 'object'"),
    ],
)
async def test_a_missing_or_invalid_output_raises(output: Any, words: str) -> None:
    options = cs.Options(output_format=Point)
    fields = {} if output is None else {"structured_output": output}
    with pytest.raises(cs.StructuredOutputError) as caught:
        await cs.ask("p", options=options, transport=one_turn(**fields))
    error = caught.value
    assert words in error.problem
    assert error.kind == "structured_output"
    assert isinstance(error, cs.ResultError)
    assert error.retryable
    assert error.result.structured_output_error == error.problem
    assert words in str(error)
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.problem, again.kind) == (
        cs.StructuredOutputError,
        error.problem,
        error.kind,
    )


async def test_a_json_schema_dict_is_checked_too() -> None:
    options = cs.Options(output_format=SCHEMA)
    bad = {"name": "a", "tags": ["x", 2], "extra": True}
    with pytest.raises(cs.StructuredOutputError) as caught:
        await cs.ask("p", options=options, transport=one_turn(structured_output=bad))
    assert "$.tags[1]: 2 is not of type 'string'" in caught.value.problem
    assert (
        "$: Additional properties are not allowed ('extra' was unexpected)" in caught.value.problem
    )
    good = {"name": "a", "tags": ["x"]}
    reply = await cs.ask("p", options=options, transport=one_turn(structured_output=good))
    assert reply.structured_output == good


async def test_an_error_result_stays_a_result_error() -> None:
    options = cs.Options(output_format=Point)
    transport = one_turn(subtype="error_max_structured_output_retries", errors=["gave up"])
    with pytest.raises(cs.ResultError) as caught:
        await cs.ask("p", options=options, transport=transport)
    assert type(caught.value) is cs.ResultError
    assert caught.value.kind == "structured_output"


async def test_without_output_format_nothing_is_checked() -> None:
    reply = await cs.ask("p", transport=one_turn())
    assert reply.result.structured_output_error is None
    assert reply.structured_output is None


async def test_a_session_flags_the_result_it_hands_out() -> None:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(text="one", structured_output={"x": 1, "y": 2})
        await cli.next_prompt()
        await cli.turn(text="two", structured_output={"x": 1.5, "y": 2})

    options = cs.Options(output_format=Point)
    async with cs.open_session(options, transport=FakeCLI(script)) as session:
        found = []
        for prompt in ("a", "b"):
            await session.send(prompt)
            result = [m async for m in session.receive_response()][-1]
            assert isinstance(result, cs.ResultMessage)
            found.append(result.structured_output_error)
    assert found[0] is None
    assert found[1] is not None
    assert "$.x: 1.5 is not of type 'integer'" in found[1]


async def test_the_pool_raises_it_too() -> None:
    options = cs.Options(output_format=Point)
    async with cs.SessionPool(options, transport=one_turn()) as pool:
        with pytest.raises(cs.StructuredOutputError):
            await pool.ask("k", "p")


def test_the_flag_is_never_on_the_wire() -> None:
    line = '{"type":"result","subtype":"success","is_error":false,"session_id":"s"}'
    result = wire.decode(line)
    assert isinstance(result, cs.ResultMessage)
    from claude_sdk._structured import flag

    problem = flag(result, cs.Options(output_format=Point))
    assert problem is not None
    assert result.structured_output_error == problem
    assert wire.to_dict(result) == wire.loads(line)
    assert wire.drift(result) == []
    assert result == wire.decode(line)


# ======================================================================================
# The schema check against the jsonschema package

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5, allow_nan=False).map(lambda f: round(f, 1)),
    st.sampled_from(["", "a", "ab", "abc", "x1"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
    ),
    max_leaves=8,
)
_types = st.sampled_from(["null", "boolean", "integer", "number", "string", "array", "object"])


def _schemas() -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.one_of(
        _types.map(lambda t: {"type": t}),
        st.lists(_types, min_size=1, max_size=3, unique=True).map(lambda ts: {"type": ts}),
        st.lists(_scalars, min_size=1, max_size=3).map(lambda vs: {"enum": vs}),
        _scalars.map(lambda v: {"const": v}),
        st.integers(0, 3).map(lambda n: {"type": "string", "minLength": n}),
        st.integers(0, 3).map(lambda n: {"type": "array", "maxItems": n}),
        st.integers(-3, 3).map(lambda n: {"type": "number", "minimum": n}),
        st.integers(-3, 3).map(lambda n: {"exclusiveMaximum": n}),
        st.just({}),
    )

    def extend(inner: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
        keys = st.sampled_from(["a", "b", "c"])
        return st.one_of(
            st.builds(
                lambda props, req, extra: {
                    "type": "object",
                    "properties": props,
                    "required": req,
                    "additionalProperties": extra,
                },
                st.dictionaries(keys, inner, max_size=3),
                st.lists(keys, max_size=2, unique=True),
                st.one_of(st.booleans(), inner),
            ),
            st.builds(lambda items: {"type": "array", "items": items}, inner),
            st.builds(lambda p: {"type": "array", "prefixItems": p}, st.lists(inner, max_size=2)),
            st.lists(inner, min_size=1, max_size=3).map(lambda s: {"anyOf": s}),
            st.lists(inner, min_size=1, max_size=3).map(lambda s: {"oneOf": s}),
            st.lists(inner, min_size=1, max_size=2).map(lambda s: {"allOf": s}),
            inner.map(lambda s: {"not": s}),
        )

    tree = st.recursive(leaf, extend, max_leaves=6)
    # A local $ref at the root only (a $ref inside $defs that points at itself loops).
    return st.one_of(tree, tree.map(lambda s: {"$defs": {"d": s}, "$ref": "#/$defs/d"}))


@settings(max_examples=deep(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_schemas(), value=_values)
def test_the_check_agrees_with_jsonschema(schema: dict[str, Any], value: Any) -> None:
    expected = jsonschema.Draft202012Validator(schema).is_valid(value)
    problems = validate_builtin(value, schema)  # the check without jsonschema
    assert (problems == []) == expected, (schema, value, problems)
    assert len(problems) <= MAX_PROBLEMS
    assert (validate(value, schema) == []) == expected  # with it


@settings(max_examples=deep(100), deadline=None)
@given(
    schema=st.recursive(_values, lambda x: st.dictionaries(st.text(max_size=12), x), max_leaves=10),
    value=_values,
)
def test_the_check_never_raises_on_any_json_as_a_schema(schema: Any, value: Any) -> None:
    validate(value, schema)
    validate_builtin(value, schema)


def test_deep_and_self_referencing_schemas_end() -> None:
    loop = {"$defs": {"n": {"$ref": "#/$defs/n"}}, "$ref": "#/$defs/n"}
    assert validate(1, loop) == []  # jsonschema loops: the built-in check answers
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    # Beyond its depth bound the check stops looking (no RecursionError, no hang).
    assert isinstance(validate(deep, {"type": "array", "items": {"$ref": "#"}}), list)
    shallow: Any = 1
    for _ in range(50):
        shallow = [shallow]
    problems = validate_builtin(shallow, {"type": "array", "items": {"$ref": "#"}})
    assert problems == ["$" + "[0]" * 50 + ": expected array, got number"]
    assert validate(shallow, {"type": "array", "items": {"$ref": "#"}}) == [
        "$" + "[0]" * 50 + ": 1 is not of type 'array'"
    ]
    assert validate(math.inf, {"type": "integer"}) != []
    assert validate_builtin(math.inf, {"type": "integer"}) != []


def test_jsonschema_judges_when_installed_and_the_subset_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert validate({"n": "x"}, schema) == ["$.n: 'x' is not of type 'integer'"]
    # a keyword the subset does not know, jsonschema does: its judgement is the one used
    assert validate("a", {"type": "string", "format": "email", "minLength": 2}) != []
    assert validate({"a": 1}, {"dependentRequired": {"a": ["b"]}}) == [
        "$: 'b' is a dependency of 'a'"
    ]
    assert validate_builtin({"a": 1}, {"dependentRequired": {"a": ["b"]}}) == []
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # not installed
    assert validate({"n": "x"}, schema) == ["$.n: expected integer, got string"]
    assert validate({"a": 1}, {"dependentRequired": {"a": ["b"]}}) == []


def test_a_schema_jsonschema_refuses_is_checked_by_the_subset() -> None:
    bad = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": "n"}
    # "required" must be a list: jsonschema refuses the schema; the subset checks the rest
    assert validate({"n": "x"}, bad) == ["$.n: expected integer, got string"]


# ======================================================================================
# Startup refusals


def refused(reason: str, **fields: Any) -> cs.ResultMessage:
    data = {
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": True,
        "errors": ["refused"],
        "startup_failure_reason": reason,
        **fields,
    }
    result = wire.from_dict(data)
    assert isinstance(result, cs.ResultMessage)
    return result


@pytest.mark.parametrize("reason", sorted(STARTUP_FAILURES))
def test_every_known_startup_reason_is_typed(reason: str) -> None:
    error = cs.ResultError(result=refused(reason))
    assert error.kind == "startup" == classify_result(error.result)
    assert error.startup_failure_reason == reason
    assert error.retryable is STARTUP_FAILURES[reason][1]
    assert reason in str(error)
    assert STARTUP_FAILURES[reason][0] in str(error)


def test_a_startup_reason_of_a_newer_cli_is_still_a_startup_error() -> None:
    error = cs.ResultError(result=refused("brand_new_reason"))
    assert error.kind == "startup"
    assert error.startup_failure_reason == "brand_new_reason"
    assert not error.retryable
    assert "brand_new_reason" in str(error)
    assert "refused" in str(error)


def test_sideload_flags_disabled_is_known() -> None:
    assert "sideload_flags_disabled" in STARTUP_FAILURES
    assert not STARTUP_FAILURES["sideload_flags_disabled"][1]


@pytest.mark.parametrize(
    ("stderr", "reason"),
    [
        (
            "--mcp-config is disabled by your organization's managed settings "
            "(disableSideloadFlags). Plugins, custom agents, and MCP servers ...",
            "sideload_flags_disabled",
        ),
        (
            "--dangerously-skip-permissions cannot be used with root/sudo privileges for "
            "security reasons",
            "bypass_root",
        ),
        ("some other failure", None),
    ],
)
def test_a_refusal_on_stderr_is_named(stderr: str, reason: str | None) -> None:
    error = cs.ProcessError(exit_code=1, stderr_tail=stderr)
    assert error.startup_failure_reason == reason
    if reason is not None:
        assert not error.retryable
        assert reason in str(error)
    else:
        assert error.retryable
