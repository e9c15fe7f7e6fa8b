"""``json_schema(tp)`` for every supported type, and ``structure_output`` round trips."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NewType, Optional, TypedDict, Union

import attrs
import pytest
from typing_extensions import NotRequired

from claude_sdk._protocol.codec import default_codec
from claude_sdk._schema import json_schema, structure_output

CONVERTER = default_codec().converter

JSON = dict[str, Any]


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


UserId = NewType("UserId", int)


@attrs.frozen
class Point:
    x: int
    y: int = 0


@attrs.define
class Documented:
    """A documented record.

    With a second paragraph.
    """

    name: Annotated[str, "the name"]
    score: float = attrs.field(default=0.5, metadata={"description": "how good"})
    tags: list[str] = attrs.Factory(list)
    _hidden: int = attrs.field(default=0, init=False)


@attrs.frozen
class Tree:
    value: int
    children: list[Tree] = attrs.Factory(list)


@attrs.frozen
class Forest:
    trees: list[Tree]


# Functional syntax: with postponed annotations the class syntax cannot tell the runtime
# (``__required_keys__``, cattrs) that ``year`` is NotRequired.
Movie = TypedDict("Movie", {"title": str, "year": NotRequired[int]})  # noqa: UP013


class MovieText(TypedDict):
    title: str
    year: NotRequired[int]


class Loose(TypedDict, total=False):
    note: str


def obj(properties: JSON, required: list[str] | None = None, **extra: Any) -> JSON:
    schema: JSON = {"type": "object", **extra, "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


SCHEMAS: list[tuple[str, Any, JSON]] = [
    ("str", str, {"type": "string"}),
    ("int", int, {"type": "integer"}),
    ("float", float, {"type": "number"}),
    ("bool", bool, {"type": "boolean"}),
    ("None", None, {"type": "null"}),
    ("NoneType", type(None), {"type": "null"}),
    ("Any", Any, {}),
    ("object", object, {}),
    ("Optional", Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),  # noqa: UP045
    ("X | None", str | None, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
    (
        "Union",
        Union[int, str],  # noqa: UP007
        {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    ),
    ("Literal str", Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
    ("Literal one", Literal[3], {"type": "integer", "enum": [3]}),
    ("Literal mixed", Literal["a", 1, None], {"enum": ["a", 1, None]}),
    ("Literal bool", Literal[True], {"type": "boolean", "enum": [True]}),
    ("Enum", Colour, {"type": "string", "enum": ["red", "green"]}),
    ("IntEnum", Level, {"type": "integer", "enum": [1, 2]}),
    ("NewType", UserId, {"type": "integer"}),
    ("list", list[int], {"type": "array", "items": {"type": "integer"}}),
    ("bare list", list, {"type": "array"}),
    ("Sequence", Sequence[str], {"type": "array", "items": {"type": "string"}}),
    ("set", set[str], {"type": "array", "uniqueItems": True, "items": {"type": "string"}}),
    (
        "frozenset",
        frozenset[int],
        {"type": "array", "uniqueItems": True, "items": {"type": "integer"}},
    ),
    ("tuple ...", tuple[str, ...], {"type": "array", "items": {"type": "string"}}),
    (
        "tuple fixed",
        tuple[int, str],
        {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "minItems": 2,
            "maxItems": 2,
        },
    ),
    ("tuple empty", tuple[()], {"type": "array", "maxItems": 0}),
    ("dict", dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
    ("bare dict", dict, {"type": "object"}),
    (
        "Mapping",
        Mapping[str, list[int]],
        {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer"}}},
    ),
    (
        "Literal keys",
        dict[Literal["a", "b"], int],
        {"type": "object", "additionalProperties": {"type": "integer"}},
    ),
    ("Annotated", Annotated[int, "a count"], {"type": "integer", "description": "a count"}),
    (
        "Annotated non-str metadata",
        Annotated[int, 5, "first string wins", "ignored"],
        {"type": "integer", "description": "first string wins"},
    ),
    (
        "attrs",
        Point,
        obj({"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}}, ["x"]),
    ),
    (
        "attrs documented",
        Documented,
        obj(
            {
                "name": {"type": "string", "description": "the name"},
                "score": {"type": "number", "description": "how good", "default": 0.5},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            ["name"],
            description="A documented record.\n\nWith a second paragraph.",
        ),
    ),
    (
        "nested attrs",
        list[Point],
        {
            "type": "array",
            "items": obj({"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}}, ["x"]),
        },
    ),
    (
        "TypedDict",
        Movie,
        obj({"title": {"type": "string"}, "year": {"type": "integer"}}, ["title"]),
    ),
    (
        "TypedDict, postponed NotRequired",
        MovieText,
        obj({"title": {"type": "string"}, "year": {"type": "integer"}}, ["title"]),
    ),
    ("TypedDict total=False", Loose, obj({"note": {"type": "string"}})),
    (
        "recursive root",
        Tree,
        obj(
            {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
            ["value"],
        ),
    ),
    (
        "recursive nested",
        Forest,
        {
            **obj({"trees": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}, ["trees"]),
            "$defs": {
                "Tree": obj(
                    {
                        "value": {"type": "integer"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
                    },
                    ["value"],
                )
            },
        },
    ),
]


@pytest.mark.parametrize(("tp", "expected"), [r[1:] for r in SCHEMAS], ids=[r[0] for r in SCHEMAS])
def test_json_schema(tp: Any, expected: JSON) -> None:
    schema = json_schema(tp)
    assert schema == expected
    json.dumps(schema)  # plain JSON values only


def test_each_call_returns_a_fresh_dict() -> None:
    first = json_schema(Point)
    first["properties"]["x"]["type"] = "mutated"
    assert json_schema(Point)["properties"]["x"]["type"] == "integer"


class NotSupported:
    pass


@attrs.frozen
class HasBadField:
    when: NotSupported


@pytest.mark.parametrize(
    "tp",
    [NotSupported, bytes, dict[int, str], Literal[b"x"], HasBadField, list[NotSupported]],
    ids=["plain class", "bytes", "int keys", "bytes literal", "bad field", "bad item"],
)
def test_unsupported_types_raise(tp: Any) -> None:
    with pytest.raises(TypeError, match="no JSON Schema"):
        json_schema(tp)


def test_unresolvable_annotation_raises() -> None:
    @attrs.frozen
    class Broken:
        x: DoesNotExist  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(TypeError, match="cannot resolve"):
        json_schema(Broken)


# ======================================================================================
# structure_output


@attrs.frozen
class Report:
    title: str
    colour: Colour
    points: list[Point]
    where: tuple[int, int]
    level: Level = Level.LOW
    note: str | None = None


REPORT = Report(
    title="t", colour=Colour.GREEN, points=[Point(1, 2), Point(3)], where=(4, 5), note="n"
)
REPORT_DATA = {
    "title": "t",
    "colour": "green",
    "points": [{"x": 1, "y": 2}, {"x": 3, "y": 0}],
    "where": [4, 5],
    "level": 1,
    "note": "n",
}


def test_structure_output_round_trip() -> None:
    assert structure_output(Report, REPORT_DATA, CONVERTER) == REPORT
    # The data the schema describes is what structure_output accepts.
    schema = json_schema(Report)
    assert set(schema["required"]) == {"title", "colour", "points", "where"}
    assert set(schema["properties"]) == set(REPORT_DATA)


def test_structure_output_defaults_and_recursion() -> None:
    tree = structure_output(Tree, {"value": 1, "children": [{"value": 2}]}, CONVERTER)
    assert tree == Tree(1, [Tree(2)])


def test_structure_output_typeddict() -> None:
    assert structure_output(Movie, {"title": "Up"}, CONVERTER) == {"title": "Up"}


def test_structure_output_unwraps_a_single_wrapper_object() -> None:
    assert structure_output(Point, {"output": {"x": 1}}, CONVERTER) == Point(1)


def test_structure_output_does_not_unwrap_a_real_field() -> None:
    with pytest.raises(ValueError, match="Forest"):
        structure_output(Forest, {"trees": {"value": 1}}, CONVERTER)


@pytest.mark.parametrize(
    "data",
    [None, {"y": 1}, {"x": "not a number"}, [1, 2], {"result": {"y": 2}}],
    ids=["missing", "no required field", "wrong type", "not an object", "wrapped, wrong"],
)
def test_structure_output_failures_are_value_errors(data: Any) -> None:
    with pytest.raises(ValueError, match="Point"):
        structure_output(Point, data, CONVERTER)
