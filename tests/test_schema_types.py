"""pydantic models and dataclasses wherever attrs classes and TypedDicts go (issue 16 item 5).

* Schemas (`json_schema`, `output_json_schema`): a pydantic model is its own
  ``model_json_schema()``, its ``$defs`` moved to the root (shared when equal, renamed when
  two differ under one name, a recursive root referring to ``#``); dataclasses like attrs
  classes (defaults, factories, docstrings, field metadata; ``ClassVar``, ``InitVar`` and
  ``init=False`` left out); every mix. Every schema is checked with ``jsonschema``: its
  references resolve, and what it accepts is what pydantic (strict, JSON) or the tools' own
  checks accept (hypothesis, differential). The output form keeps to what the CLI's draft-07
  Ajv in strict mode takes.
* Values: `structure_output`, `Reply.structured_output` through FakeCLI, tool arguments
  through `SdkTool.call` and through FakeCLI's ``mcp_message`` traffic, tool results.
* Errors: arguments that do not fit are an ``isError`` result naming every bad field; output
  that does not fit is a ``ValueError`` naming them.
* pydantic stays optional: ``import claude_sdk`` and an attrs tool never import it.
"""

from __future__ import annotations

import datetime
import enum
import json
import logging
import os
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import InitVar, dataclass, field
from typing import Annotated, Any, ClassVar, Literal, Optional

import attrs
import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, RootModel, create_model, field_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass
from typing_extensions import NotRequired, TypedDict

import claude_sdk as cs
from claude_sdk._protocol.codec import default_codec
from claude_sdk._schema import json_schema, output_json_schema, structure_output
from claude_sdk.testing import FakeCLI, ScriptedCLI
from claude_sdk.tools import ToolResult, create_sdk_mcp_server, tool

JSON = dict[str, Any]
CONVERTER = default_codec().converter


# ======================================================================================
# Types


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Address(BaseModel):
    """Where someone lives."""

    street: str
    city: str = Field(description="the city")
    zip_code: Optional[str] = None  # noqa: UP045 - the spelling people write


class Person(BaseModel):
    """A person."""

    name: str = Field(description="the full name", min_length=1)
    age: int = Field(ge=0)
    color: Color = Color.RED
    kind: Literal["human", "robot"] = "human"
    address: Address
    previous: list[Address] = []
    by_label: dict[str, Address] = {}
    nickname: str | None = None
    span: tuple[int, str] = (0, "")


class PTree(BaseModel):
    value: int
    children: list[PTree] = []


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool = True


class Pet(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: int


class Aliased(BaseModel):
    user_name: str = Field(alias="userName")


class Meeting(BaseModel):
    """Strict: in Python mode it would refuse an enum value, a date text and a list."""

    model_config = ConfigDict(strict=True)

    color: Color
    when: datetime.datetime
    span: tuple[int, int]
    seats: int = 1

    @field_validator("seats")
    @classmethod
    def _some(cls, value: int) -> int:
        if value < 1:
            raise ValueError("at least one seat")
        return value


@pydantic_dataclass
class Seat:
    """A pydantic dataclass."""

    row: int = Field(ge=1, description="from the front")
    letter: str = "A"


class Rows(RootModel[list[int]]):
    pass


@dataclass
class Point:
    """A point."""

    x: int
    y: int = 0


@dataclass
class Shape:
    """A shape."""

    name: Annotated[str, "what it is called"]
    points: list[Point]
    color: Color = Color.BLUE
    level: Level = Level.LOW
    closed: bool = False
    tags: list[str] = field(default_factory=list)
    note: Optional[str] = field(default=None, metadata={"description": "a note"})  # noqa: UP045
    scale: InitVar[float] = 1.0
    registry: ClassVar[dict[str, int]] = {}
    area: float = field(default=0.0, init=False)

    def __post_init__(self, scale: float) -> None:
        self.area = scale * len(self.points)


@dataclass
class Plain:
    a: int


@dataclass
class DTree:
    value: int
    children: list[DTree] = field(default_factory=list)


@dataclass
class DForest:
    trees: list[DTree]


@dataclass
class Card:
    """A card: a dataclass holding pydantic models."""

    owner: Person
    back: Address | None = None


@attrs.frozen
class Deck:
    """An attrs class holding dataclasses (holding pydantic models)."""

    cards: list[Card]
    top: Point


# Functional syntax: with postponed annotations the class syntax cannot tell the runtime that
# ``label`` is NotRequired.
Box = TypedDict("Box", {"point": Point, "label": NotRequired[str]})  # noqa: UP013


# ======================================================================================
# Helpers


def refs(node: Any) -> Iterator[str]:
    """Every ``$ref`` in a schema."""
    if isinstance(node, list):
        for item in node:
            yield from refs(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            elif key not in ("default", "enum", "const", "examples"):
                yield from refs(value)


def check_self_contained(schema: JSON) -> None:
    """A valid draft 2020-12 schema whose references all point inside it, with an object
    root (no bare ``$ref``)."""
    jsonschema.Draft202012Validator.check_schema(schema)
    json.dumps(schema, allow_nan=False)
    assert schema.get("type") == "object", schema
    assert "$ref" not in schema
    defs = schema.get("$defs", {})
    for ref in refs(schema):
        assert ref == "#" or (ref.startswith("#/$defs/") and ref[8:] in defs), ref
    used = {ref[8:] for ref in refs(schema) if ref.startswith("#/$defs/")}
    assert used == set(defs), (used, set(defs))


def typed_dict(fields: dict[str, Any]) -> Any:
    """A TypedDict of these fields (made at run time: the types are values here)."""
    make: Any = TypedDict
    return make("Fields", fields)


def valid(schema: JSON, value: Any) -> bool:
    return bool(jsonschema.Draft202012Validator(schema).is_valid(value))


PERSON = {
    "name": "Ada",
    "age": 36,
    "color": "blue",
    "kind": "robot",
    "address": {"street": "1 Main St", "city": "London"},
    "previous": [{"street": "2 Side St", "city": "Paris", "zip_code": "75001"}],
    "by_label": {"home": {"street": "3 Hill", "city": "Rome"}},
    "nickname": None,
    "span": [1, "x"],
}
SHAPE = {"name": "tri", "points": [{"x": 0}, {"x": 1, "y": 1}, {"x": 2}], "level": 2}


# ======================================================================================
# Schemas: pydantic


@pytest.mark.parametrize("model", [Address, Person, Pet, Closed, Aliased])
def test_a_pydantic_model_is_its_own_model_json_schema(model: type[BaseModel]) -> None:
    assert json_schema(model) == model.model_json_schema()
    check_self_contained(json_schema(model))


def test_the_person_schema_has_what_people_expect() -> None:
    schema = json_schema(Person)
    props = schema["properties"]
    assert schema["description"] == "A person."
    assert set(schema["required"]) == {"name", "age", "address"}
    assert props["name"]["description"] == "the full name"
    assert props["age"]["minimum"] == 0
    assert props["kind"]["enum"] == ["human", "robot"]
    assert props["kind"]["default"] == "human"
    assert props["address"] == {"$ref": "#/$defs/Address"}
    assert props["previous"]["items"] == {"$ref": "#/$defs/Address"}
    assert props["by_label"]["additionalProperties"] == {"$ref": "#/$defs/Address"}
    assert schema["$defs"]["Color"]["enum"] == ["red", "blue"]
    assert schema["$defs"]["Address"]["properties"]["city"]["description"] == "the city"
    assert schema["$defs"]["Address"]["required"] == ["street", "city"]
    assert valid(schema, PERSON)
    assert not valid(schema, {**PERSON, "kind": "alien"})
    assert not valid(schema, {**PERSON, "address": {"street": "x"}})
    assert not valid(schema, {**PERSON, "previous": [{"city": "x"}]})


def test_a_recursive_root_model_refers_to_the_root() -> None:
    schema = json_schema(PTree)
    assert "$defs" not in schema
    assert schema["properties"]["children"]["items"] == {"$ref": "#"}
    check_self_contained(schema)
    assert valid(schema, {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]})
    assert not valid(schema, {"value": 1, "children": [{"value": 2, "children": [{}]}]})


def test_a_nested_recursive_model_goes_to_the_root_defs() -> None:
    schema = json_schema(list[PTree])
    assert schema["items"] == {"$ref": "#/$defs/PTree"}
    assert schema["$defs"]["PTree"]["properties"]["children"]["items"] == {"$ref": "#/$defs/PTree"}
    jsonschema.Draft202012Validator.check_schema(schema)
    assert valid(schema, [{"value": 1, "children": [{"value": 2}]}])
    assert not valid(schema, [{"value": 1, "children": [{"value": "two"}]}])


def test_equal_definitions_are_shared() -> None:
    schema = json_schema(typed_dict({"first": Person, "second": Card, "third": list[Address]}))
    check_self_contained(schema)
    assert set(schema["$defs"]) == {"Address", "Color"}


def test_different_definitions_under_one_name_are_renamed() -> None:
    item_a = create_model("Item", x=(int, ...))
    item_b = create_model("Item", y=(str, ...))
    holder_a = create_model("HolderA", item=(item_a, ...))
    holder_b = create_model("HolderB", item=(item_b, ...))
    schema = json_schema(typed_dict({"a": holder_a, "b": holder_b}))
    check_self_contained(schema)
    assert set(schema["$defs"]) == {"Item", "Item_2"}
    assert valid(schema, {"a": {"item": {"x": 1}}, "b": {"item": {"y": "s"}}})
    assert not valid(schema, {"a": {"item": {"y": "s"}}, "b": {"item": {"x": 1}}})


def recursive_attrs_address() -> type:
    """An attrs class called ``Address`` (as the pydantic model's definition) that refers to
    itself, so that it gets a definition too."""
    cls = attrs.make_class("Address", {"street": attrs.field(), "next": attrs.field(default=None)})
    cls.__annotations__ = {"street": int, "next": Optional[cls]}  # noqa: UP045
    return cls


@pytest.mark.parametrize("attrs_first", [True, False])
def test_a_pydantic_definition_and_an_attrs_one_keep_their_own_names(attrs_first: bool) -> None:
    mine = recursive_attrs_address()
    fields = {"mine": mine, "theirs": Person} if attrs_first else {"theirs": Person, "mine": mine}
    schema = json_schema(typed_dict(fields))
    check_self_contained(schema)
    assert set(schema["$defs"]) == {"Address", "Address_2", "Color"}
    data = {"street": 1, "next": {"street": 2}}
    assert valid(schema, {"mine": data, "theirs": PERSON})
    assert not valid(schema, {"mine": {"street": "1 Main St"}, "theirs": PERSON})
    assert not valid(schema, {"mine": data, "theirs": {**PERSON, "address": data}})


def test_a_model_pydantic_cannot_describe_is_a_type_error() -> None:
    class Opaque:
        pass

    model = create_model(
        "WithOpaque", __config__=ConfigDict(arbitrary_types_allowed=True), thing=(Opaque, ...)
    )
    with pytest.raises(TypeError, match="no JSON Schema for WithOpaque"):
        json_schema(model)
    with pytest.raises(cs.OptionsError, match="output_format"):
        cs.Options(output_format=model)


# ======================================================================================
# Schemas: dataclasses and mixes

POINT_SCHEMA = {
    "type": "object",
    "description": "A point.",
    "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
    "required": ["x"],
    "additionalProperties": False,
}


def test_a_dataclass_schema() -> None:
    schema = json_schema(Shape)
    assert schema == {
        "type": "object",
        "description": "A shape.",
        "properties": {
            "name": {"type": "string", "description": "what it is called"},
            "points": {"type": "array", "items": POINT_SCHEMA},
            "color": {"type": "string", "enum": ["red", "blue"], "default": "blue"},
            "level": {"type": "integer", "enum": [1, 2], "default": 1},
            "closed": {"type": "boolean", "default": False},
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "description": "a note",
                "default": None,
            },
        },
        "required": ["name", "points"],
        "additionalProperties": False,
    }
    # the IntEnum default is the plain JSON value
    assert type(schema["properties"]["level"]["default"]) is int
    check_self_contained(schema)


def test_a_dataclass_without_a_docstring_has_no_description() -> None:
    # @dataclass writes "Plain(a: 'int')" as the docstring: that is no description
    assert json_schema(Plain) == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": False,
    }


def test_recursive_dataclasses() -> None:
    tree = json_schema(DTree)
    assert tree["properties"]["children"] == {"type": "array", "items": {"$ref": "#"}}
    check_self_contained(tree)
    forest = json_schema(DForest)
    assert forest["properties"]["trees"]["items"] == {"$ref": "#/$defs/DTree"}
    check_self_contained(forest)
    assert valid(forest, {"trees": [{"value": 1, "children": [{"value": 2}]}]})
    assert not valid(forest, {"trees": [{"value": 1, "children": [{"value": "2"}]}]})


def test_mixes() -> None:
    deck = json_schema(Deck)
    check_self_contained(deck)
    assert deck["properties"]["top"] == POINT_SCHEMA
    card = deck["properties"]["cards"]["items"]
    assert card["description"] == "A card: a dataclass holding pydantic models."
    assert card["properties"]["owner"]["title"] == "Person"  # pydantic's, inlined
    data = {"cards": [{"owner": PERSON, "back": {"street": "s", "city": "c"}}], "top": {"x": 1}}
    assert valid(deck, data)
    assert not valid(deck, {**data, "top": {"x": "1"}})
    assert not valid(deck, {**data, "cards": [{"owner": {**PERSON, "age": -1}}]})
    box = json_schema(Box)
    check_self_contained(box)
    assert box["properties"]["point"] == POINT_SCHEMA
    assert box["required"] == ["point"]


#: The keywords the CLI's Ajv (draft-07, strict mode) knows; anything else ends the CLI.
DRAFT7_AJV = {
    "$schema", "$id", "$ref", "$comment", "$defs", "definitions", "title", "description",
    "default", "examples", "readOnly", "writeOnly", "deprecated", "type", "enum", "const",
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
    "minLength", "pattern", "format", "items", "additionalItems", "maxItems", "minItems",
    "uniqueItems", "contains", "maxProperties", "minProperties", "required", "properties",
    "patternProperties", "additionalProperties", "dependencies", "propertyNames", "if",
    "then", "else", "allOf", "anyOf", "oneOf", "not", "contentMediaType", "contentEncoding",
}  # fmt: skip


def keywords(node: Any) -> Iterator[str]:
    if isinstance(node, list):
        for item in node:
            yield from keywords(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            if key in ("properties", "patternProperties", "$defs", "definitions"):
                for sub in value.values():
                    yield from keywords(sub)
            elif key not in ("default", "enum", "const", "examples"):
                yield from keywords(value)


@pytest.mark.parametrize("tp", [Person, PTree, Pet, Closed, Shape, DForest, Card, Deck, Box])
def test_the_output_schema_keeps_to_what_the_cli_takes(tp: Any) -> None:
    schema = output_json_schema(tp)
    assert set(keywords(schema)) <= DRAFT7_AJV
    jsonschema.Draft7Validator.check_schema(schema)
    check_self_contained(schema)  # and draft 2020-12, for the Messages API


def test_the_output_schema_of_a_tuple_and_a_discriminated_union() -> None:
    person = output_json_schema(Person)["properties"]["span"]
    assert person["items"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert (person["minItems"], person["maxItems"]) == (2, 2)
    assert "discriminator" in json_schema(Pet)["properties"]["pet"]  # pydantic's own
    pet = output_json_schema(Pet)
    assert "discriminator" not in pet["properties"]["pet"]
    for validator in (jsonschema.Draft7Validator, jsonschema.Draft202012Validator):
        assert validator(pet).is_valid({"pet": {"kind": "dog"}})
        assert not validator(pet).is_valid({"pet": {"kind": "cow"}})


# ======================================================================================
# Differential: what the schema accepts is what pydantic / the tools' checks accept

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    # JSON Schema counts 2.0 as an integer, pydantic's strict mode does not: no such floats
    st.floats(-5, 5, allow_nan=False).filter(lambda f: not f.is_integer()),
    st.text(max_size=3),
    st.lists(st.integers(0, 2), max_size=2),
    st.just({}),
)


def maybe(
    good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any] = JUNK
) -> st.SearchStrategy[Any]:
    """Mostly ``good`` values, one time in eight a ``bad`` one (so that whole objects are
    often valid and often not)."""
    return st.integers(0, 7).flatmap(lambda k: bad if k == 0 else good)


ADDRESSES = st.fixed_dictionaries(
    {"street": maybe(st.text(max_size=4)), "city": maybe(st.text(max_size=4))},
    optional={"zip_code": maybe(st.none() | st.text(max_size=3)), "extra": JUNK},
)
PEOPLE = st.fixed_dictionaries(
    {
        "name": maybe(st.text(max_size=4)),  # "" is too short
        "age": maybe(st.integers(-1, 150)),
        "address": maybe(ADDRESSES),
    },
    optional={
        "color": maybe(st.sampled_from(["red", "blue"]), st.just("green")),
        "kind": maybe(st.sampled_from(["human", "robot"]), st.just("alien")),
        "previous": maybe(st.lists(ADDRESSES, max_size=2)),
        "by_label": maybe(st.dictionaries(st.text(max_size=2), ADDRESSES, max_size=2)),
        "nickname": maybe(st.none() | st.text(max_size=3)),
        "span": maybe(
            st.tuples(st.integers(), st.text(max_size=2)).map(list),
            st.lists(st.integers() | st.text(max_size=2), max_size=3),
        ),
    },
)
EXAMPLES = settings(
    max_examples=int(os.environ.get("CLAUDE_SDK_FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def pydantic_accepts(model: type[BaseModel], data: Any) -> bool:
    try:
        model.model_validate_json(json.dumps(data), strict=True)
    except ValueError:
        return False
    return True


PERSON_SCHEMA = json_schema(Person)
CARD_SCHEMA = json_schema(Card)


@EXAMPLES
@given(PEOPLE)
def test_the_schema_accepts_what_pydantic_accepts(data: JSON) -> None:
    accepted = pydantic_accepts(Person, data)
    assert valid(PERSON_SCHEMA, data) == accepted
    # the same model inside a dataclass: its definitions moved to the root still resolve
    assert valid(CARD_SCHEMA, {"owner": data}) == accepted
    if accepted:  # and what the schema accepts, the SDK turns into the model
        assert structure_output(Person, data, CONVERTER) == Person.model_validate(data)
        card = structure_output(Card, {"owner": data}, CONVERTER)
        assert card.owner == Person.model_validate(data)


@EXAMPLES
@given(st.builds(Person, name=st.text(min_size=1, max_size=5), age=st.integers(0, 200)))
def test_every_dumped_model_fits_its_schema(person: Person) -> None:
    data = person.model_dump(mode="json")
    assert valid(PERSON_SCHEMA, data)
    assert jsonschema.Draft7Validator(output_json_schema(Person)).is_valid(data)
    assert structure_output(Person, data, CONVERTER) == person


POINTS = st.fixed_dictionaries(
    {"x": maybe(st.integers(-3, 3))}, optional={"y": maybe(st.integers(-3, 3)), "z": JUNK}
)
SHAPES = st.fixed_dictionaries(
    {"name": maybe(st.text(max_size=3)), "points": maybe(st.lists(POINTS, max_size=3))},
    optional={
        "color": maybe(st.sampled_from(["red", "blue"]), st.just("green")),
        "level": maybe(st.sampled_from([1, 2]), st.just(3)),
        "closed": maybe(st.booleans()),
        "tags": maybe(st.lists(st.text(max_size=2), max_size=2), st.just([1])),
        "note": maybe(st.none() | st.text(max_size=2)),
        "area": JUNK,  # init=False: not an argument
    },
)
SHAPE_SCHEMA = json_schema(Shape)


@tool
def draw(shape: Shape) -> str:
    return shape.name


@EXAMPLES
@given(SHAPES)
async def test_the_dataclass_schema_accepts_what_the_tool_accepts(data: JSON) -> None:
    result = await draw.call({"shape": data})
    assert valid(SHAPE_SCHEMA, data) == (not result["isError"]), result


# ======================================================================================
# structure_output


def test_structure_output_builds_models_and_dataclasses() -> None:
    person = structure_output(Person, PERSON, CONVERTER)
    assert isinstance(person, Person)
    assert person == Person.model_validate(PERSON)
    assert person.span == (1, "x")
    assert person.address.city == "London"
    shape = structure_output(Shape, SHAPE, CONVERTER)
    assert shape == Shape(name="tri", points=[Point(0), Point(1, 1), Point(2)], level=Level.HIGH)
    assert shape.area == 3.0  # __post_init__ ran with the InitVar's default
    card = structure_output(Card, {"owner": PERSON}, CONVERTER)
    assert card == Card(owner=person)
    deck = structure_output(Deck, {"cards": [{"owner": PERSON}], "top": {"x": 4}}, CONVERTER)
    assert deck == Deck(cards=[card], top=Point(4))
    assert structure_output(Box, {"point": {"x": 1}}, CONVERTER) == {"point": Point(1)}
    tree = structure_output(PTree, {"value": 1, "children": [{"value": 2}]}, CONVERTER)
    assert tree == PTree(value=1, children=[PTree(value=2)])
    assert structure_output(DTree, {"value": 1, "children": [{"value": 2}]}, CONVERTER) == DTree(
        1, [DTree(2)]
    )
    assert structure_output(Aliased, {"userName": "ada"}, CONVERTER) == Aliased(userName="ada")


def test_structure_output_unwraps_a_single_wrapper_object() -> None:
    assert structure_output(Person, {"output": PERSON}, CONVERTER) == Person.model_validate(PERSON)
    assert structure_output(Point, {"result": {"x": 2}}, CONVERTER) == Point(2)
    # a real field is not a wrapper (an alias is a real field too)
    with pytest.raises(ValueError, match="Aliased"):
        structure_output(Aliased, {"userName": {"x": 1}}, CONVERTER)


def test_output_that_does_not_fit_is_a_value_error_naming_each_field() -> None:
    bad = {"name": "", "age": -1, "address": {"street": 5}, "span": [1]}
    with pytest.raises(ValueError, match="does not fit Person") as info:
        structure_output(Person, bad, CONVERTER)
    text = str(info.value)
    for where in ("$.name:", "$.age:", "$.address.street:", "$.span:"):
        assert where in text, text
    assert "$.address: missing required field 'city'" in text
    assert isinstance(info.value.__cause__, ValueError)  # pydantic's ValidationError, chained

    with pytest.raises(ValueError, match="does not fit Shape") as info:
        structure_output(Shape, {"name": "s", "points": [{"y": 1}]}, CONVERTER)
    assert "$.points[0].x: required field missing" in str(info.value)

    with pytest.raises(ValueError, match="does not fit Card") as info:
        structure_output(Card, {"owner": {**PERSON, "age": "old"}}, CONVERTER)
    assert "$.owner.age: Input should be a valid integer" in str(info.value)


# ======================================================================================
# Options(output_format=...)


@pytest.mark.parametrize("tp", [Person, PTree, Shape, Card, Deck, Box])
def test_output_format_takes_the_class(tp: Any) -> None:
    name = tp.__name__
    options = cs.Options(output_format=tp)
    assert options.output_format is tp
    assert options.output_type is tp
    assert options.output_schema == output_json_schema(tp)
    assert options == cs.Options(output_format=tp)
    assert pickle.loads(pickle.dumps(options)) == options
    assert name in repr(options)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (Person.model_validate(PERSON), "dataclass, TypedDict or pydantic model"),
        (Point(1), "dataclass, TypedDict or pydantic model"),
        (int, "dataclass, TypedDict or pydantic model"),
        (BaseModel, "subclass of BaseModel"),
    ],
    ids=["model instance", "dataclass instance", "int", "BaseModel itself"],
)
def test_output_format_refuses_what_is_not_such_a_class(value: Any, message: str) -> None:
    with pytest.raises(cs.OptionsError, match=message):
        cs.Options(output_format=value)


def result_with(structured: Any) -> Any:
    async def script(cli: ScriptedCLI) -> None:
        await cli.handshake()
        await cli.next_prompt()
        await cli.turn(json.dumps(structured), structured_output=structured)

    return script


@pytest.mark.parametrize(
    ("tp", "data", "expected"),
    [
        (Person, PERSON, Person.model_validate(PERSON)),
        (
            Shape,
            SHAPE,
            Shape(name="tri", points=[Point(0), Point(1, 1), Point(2)], level=Level.HIGH),
        ),
        (Card, {"owner": PERSON}, Card(owner=Person.model_validate(PERSON))),
    ],
    ids=["pydantic", "dataclass", "dataclass holding pydantic"],
)
async def test_reply_structured_output_is_an_instance_through_fake_cli(
    tp: Any, data: JSON, expected: Any
) -> None:
    fake = FakeCLI(result_with(data))
    reply = await cs.ask("describe", options=cs.Options(output_format=tp), transport=fake)
    fake.check()
    assert reply.result.structured_output == data
    assert reply.structured_output == expected
    assert type(reply.structured_output) is tp
    (flag,) = [a for a in fake.cli.spec.argv if a.startswith("--json-schema=")]
    assert json.loads(flag.removeprefix("--json-schema=")) == output_json_schema(tp)


async def test_structured_output_that_does_not_fit_raises_through_fake_cli() -> None:
    # ask() checks the output before handing it out: the schema first (age is no integer,
    # address lacks street), and Reply.structured_output never sees an unusable value.
    fake = FakeCLI(result_with({"name": "Ada", "age": "old", "address": {}}))
    with pytest.raises(cs.StructuredOutputError) as info:
        await cs.ask("describe", options=cs.Options(output_format=Person), transport=fake)
    text = info.value.problem
    assert "$.age: 'old' is not of type 'integer'" in text  # jsonschema's words
    assert "$.address: 'street' is a required property" in text


async def test_an_output_only_the_class_refuses_raises_value_error_from_the_reply() -> None:
    # Reply.structured_output still explains a value that does not fit the class (here a
    # Reply built by hand from a result that ask() would have refused).
    fitting = {"name": "Ada", "age": 3, "address": {"street": "x", "city": "y"}}
    reply = await cs.ask(
        "describe",
        options=cs.Options(output_format=Person),
        transport=FakeCLI(result_with(fitting)),
    )
    assert reply.structured_output == Person.model_validate(fitting)
    broken = cs.wire.replace(reply.result, structured_output={"name": "Ada", "age": "old"})
    with pytest.raises(ValueError, match="does not fit Person") as info:
        _ = cs.Reply(messages=reply.messages, result=broken, output_type=Person).structured_output
    assert "$.age: Input should be a valid integer" in str(info.value)


# ======================================================================================
# Tools


calls: list[Any] = []


@tool
async def register(person: Person, shape: Shape, card: Card | None = None) -> Person:
    """Register a person and a shape.

    Args:
        person: who.
        shape: what.
    """
    calls.append((person, shape, card))
    return person


def test_tool_input_schema_holds_the_definitions() -> None:
    schema = register.input_schema
    check_self_contained(schema)
    assert set(schema["$defs"]) == {"Address", "Color"}
    assert schema["required"] == ["person", "shape"]
    person = schema["properties"]["person"]
    assert person["title"] == "Person"
    assert person["description"] == "A person."  # the class's; the Args entry does not replace it
    assert schema["properties"]["shape"]["description"] == "A shape."
    assert valid(schema, {"person": PERSON, "shape": SHAPE, "card": {"owner": PERSON}})
    assert not valid(schema, {"person": PERSON, "shape": SHAPE, "card": {"owner": {}}})
    assert register.output_schema == json_schema(Person)


async def test_tool_arguments_become_instances() -> None:
    calls.clear()
    result = await register.call({"person": PERSON, "shape": SHAPE, "card": {"owner": PERSON}})
    assert not result["isError"], result
    ((person, shape, card),) = calls
    assert person == Person.model_validate(PERSON)
    assert shape == Shape(name="tri", points=[Point(0), Point(1, 1), Point(2)], level=Level.HIGH)
    assert card == Card(owner=person)
    # a returned model is structured content (pydantic's JSON dump, by alias)
    assert result["structuredContent"] == person.model_dump(mode="json", by_alias=True)
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


INVALID_TOOL_CASES: list[tuple[str, JSON, list[str]]] = [
    (
        "dataclass fields",
        {"person": PERSON, "shape": {"name": 1, "points": [{"y": "a"}], "zzz": 1}},
        [
            "shape.name: expected string, got number 1",
            "shape.points[0]: missing required field 'x'",
            'shape.points[0].y: expected integer, got string "a"',
            "shape: unexpected field 'zzz'",
        ],
    ),
    (
        "dataclass init=False field",
        {"person": PERSON, "shape": {**SHAPE, "area": 2.0}},
        ["shape: unexpected field 'area'"],
    ),
    (
        "dataclass not an object",
        {"person": PERSON, "shape": [1]},
        ["shape: expected an object (Shape), got an array"],
    ),
    (
        "pydantic fields",
        {"person": {"name": "", "age": "x", "address": {"city": 5}}, "shape": SHAPE},
        [
            'person.name: String should have at least 1 character, got string ""',
            "person.age: Input should be a valid integer, unable to parse string as an "
            'integer, got string "x"',
            "person.address: missing required field 'street'",
            "person.address.city: Input should be a valid string, got number 5",
        ],
    ),
    (
        "pydantic not an object",
        {"person": "Ada", "shape": SHAPE},
        ['person: expected an object (Person), got string "Ada"'],
    ),
    (
        "pydantic inside a dataclass inside an optional",
        {"person": PERSON, "shape": SHAPE, "card": {"owner": {**PERSON, "kind": "alien"}}},
        ["card.owner.kind: Input should be 'human' or 'robot', got string \"alien\""],
    ),
    ("missing", {"shape": SHAPE}, ["missing required argument 'person'"]),
]


@pytest.mark.parametrize(
    ("arguments", "problems"),
    [case[1:] for case in INVALID_TOOL_CASES],
    ids=[case[0] for case in INVALID_TOOL_CASES],
)
async def test_tool_arguments_that_do_not_fit_are_an_error_result(
    arguments: JSON, problems: list[str]
) -> None:
    calls.clear()
    result = await register.call(arguments)
    expected = "Invalid arguments for tool 'register':\n" + "\n".join(f"- {p}" for p in problems)
    assert result == {"content": [{"type": "text", "text": expected}], "isError": True}
    assert calls == []  # the handler never ran


async def test_a_closed_model_names_the_unexpected_field() -> None:
    @tool
    def f(c: Closed) -> int:
        return c.a

    result = await f.call({"c": {"a": 1, "b": 2}})
    assert result["isError"]
    assert result["content"][0]["text"].endswith("- c: unexpected field 'b'")
    assert await f.call({"c": {"a": 1}}) == {
        "content": [{"type": "text", "text": "1"}],
        "isError": False,
    }


async def test_model_arguments_are_validated_as_json() -> None:
    seen: list[Meeting] = []

    @tool
    def book(meeting: Meeting) -> str:
        seen.append(meeting)
        return "booked"

    arguments = {"color": "red", "when": "2026-01-02T03:04:05Z", "span": [1, 2]}
    assert not (await book.call({"meeting": arguments}))["isError"]
    assert seen == [
        Meeting(
            color=Color.RED,
            when=datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
            span=(1, 2),
        )
    ]
    result = await book.call({"meeting": {**arguments, "seats": 0, "span": ["1", 2]}})
    assert result["content"][0]["text"] == (
        "Invalid arguments for tool 'book':\n"
        '- meeting.span[0]: Input should be a valid integer, got string "1"\n'
        "- meeting.seats: Value error, at least one seat, got number 0"
    )
    assert structure_output(Meeting, arguments, CONVERTER) == seen[0]


async def test_pydantic_dataclasses_and_root_models() -> None:
    seen: list[Any] = []

    @tool
    def sit(seat: Seat, rows: Rows) -> Seat:
        seen.append((seat, rows))
        return seat

    assert sit.input_schema["properties"]["seat"]["properties"]["row"] == {
        "description": "from the front",
        "minimum": 1,
        "title": "Row",
        "type": "integer",
    }
    assert sit.input_schema["properties"]["rows"]["items"] == {"type": "integer"}
    result = await sit.call({"seat": {"row": 2}, "rows": [1, 2]})
    assert result["structuredContent"] == {"row": 2, "letter": "A"}
    assert seen == [(Seat(row=2), Rows([1, 2]))]
    result = await sit.call({"seat": {"row": 0}, "rows": {"a": 1}})
    assert result["content"][0]["text"] == (
        "Invalid arguments for tool 'sit':\n"
        "- seat.row: Input should be greater than or equal to 1, got number 0\n"
        "- rows: Input should be a valid array, got an object"
    )
    assert structure_output(Seat, {"row": 3}, CONVERTER) == Seat(row=3)
    assert cs.Options(output_format=Seat).output_schema == json_schema(Seat)


async def test_models_in_containers_and_unions() -> None:
    seen: list[Any] = []

    @tool
    def many(trees: list[PTree], pick: Point | Address, by: dict[str, Point]) -> str:
        seen.append((trees, pick, by))
        return "ok"

    arguments = {
        "trees": [{"value": 1, "children": [{"value": 2}]}],
        "pick": {"street": "s", "city": "c"},
        "by": {"a": {"x": 1}},
    }
    assert not (await many.call(arguments))["isError"]
    assert seen == [
        (
            [PTree(value=1, children=[PTree(value=2)])],
            Address(street="s", city="c"),
            {"a": Point(1)},
        )
    ]
    result = await many.call({**arguments, "pick": {"x": "1"}})
    assert result["isError"]
    assert "pick: expected an object (Point) or an object (Address), got an object" in str(result)


async def test_dataclass_and_model_results() -> None:
    @tool
    def where() -> Point:
        return Point(3, 4)

    @tool
    def alias() -> Aliased:
        return Aliased(userName="ada")

    @tool
    def full() -> ToolResult:
        return ToolResult(structured=Card(owner=Person.model_validate(PERSON)))

    assert where.output_schema == POINT_SCHEMA
    assert (await where.call())["structuredContent"] == {"x": 3, "y": 4}
    assert alias.output_schema == json_schema(Aliased)
    assert (await alias.call())["structuredContent"] == {"userName": "ada"}
    card = (await full.call())["structuredContent"]
    assert card["owner"]["span"] == [1, "x"]
    assert card["owner"]["color"] == "blue"
    assert card["back"] is None


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "2.1.330"},
    },
}


def tools_call(request_id: int, name: str, arguments: JSON) -> JSON:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


async def test_tool_calls_through_the_sdk_with_fake_cli() -> None:
    answers: list[Any] = []

    async def script(cli: ScriptedCLI) -> None:
        await cli.mcp_message("people", INITIALIZE)
        await cli.handshake()
        listed = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        answers.append(await cli.mcp_message("people", listed))
        good = {"person": PERSON, "shape": SHAPE}
        answers.append(await cli.mcp_message("people", tools_call(2, "register", good)))
        bad = {"person": {**PERSON, "age": -5}, "shape": {**SHAPE, "points": "none"}}
        answers.append(await cli.mcp_message("people", tools_call(3, "register", bad)))

    calls.clear()
    fake = FakeCLI(script)
    server = create_sdk_mcp_server("people", tools=[register])
    async with cs.open_session(cs.Options(mcp_servers={"people": server}), transport=fake):
        await fake.cli.script_done.wait()
    fake.check()
    listed, good, bad = (a["mcp_response"]["result"] for a in answers)
    (definition,) = listed["tools"]
    assert definition["inputSchema"] == register.input_schema
    assert definition["outputSchema"] == json_schema(Person)
    assert good["isError"] is False
    assert good["structuredContent"]["name"] == "Ada"
    assert len(calls) == 1
    assert isinstance(calls[0][0], Person)
    assert bad["isError"] is True
    assert bad["content"] == [
        {
            "type": "text",
            "text": "Invalid arguments for tool 'register':\n"
            "- person.age: Input should be greater than or equal to 0, got number -5\n"
            '- shape.points: expected an array, got string "none"',
        }
    ]
    assert len(calls) == 1


# ======================================================================================
# pydantic stays optional; loggers


def test_the_sdk_and_an_attrs_tool_do_not_import_pydantic() -> None:
    code = textwrap.dedent(
        """
        import sys
        from dataclasses import dataclass

        import anyio
        import attrs

        import claude_sdk as cs
        from claude_sdk._protocol.codec import default_codec
        from claude_sdk._schema import json_schema, structure_output


        @attrs.frozen
        class Pair:
            a: int
            b: int = 0


        @dataclass
        class Spot:
            x: int


        @cs.tool
        async def add(pair: Pair, spot: Spot | None = None) -> Pair:
            return pair


        async def main() -> None:
            result = await add.call({"pair": {"a": 1}, "spot": {"x": 2}})
            assert result["structuredContent"] == {"a": 1, "b": 0}, result
            bad = await add.call({"pair": {"a": "1"}})
            assert bad["isError"], bad


        anyio.run(main)
        cs.Options(output_format=Pair, mcp_servers={"s": cs.create_sdk_mcp_server("s", [add])})
        json_schema(Spot)
        assert structure_output(Pair, {"a": 1}, default_codec().converter) == Pair(1)
        assert structure_output(Spot, {"x": 1}, default_codec().converter) == Spot(1)
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core")))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


async def test_tool_failures_log_to_claude_sdk_tools(caplog: pytest.LogCaptureFixture) -> None:
    @tool
    async def boom(p: Point) -> str:
        raise RuntimeError("tool broke")

    with caplog.at_level(logging.WARNING, logger="claude_sdk"):
        await boom.call({"p": {"x": 1}})
    (record,) = [r for r in caplog.records if "tool broke" in r.getMessage()]
    assert record.name == "claude_sdk.tools"


def test_structure_output_logs_to_claude_sdk_schema(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="claude_sdk"), pytest.raises(ValueError):
        structure_output(Point, {"result": {"y": 1}}, CONVERTER)
    (record,) = [r for r in caplog.records if "unwrapped" in r.getMessage()]
    assert record.name == "claude_sdk.schema"
