"""pydantic models and dataclasses against the real CLI (FakeMessagesAPI, offline).

The CLI compiles ``--json-schema`` with a strict draft-07 validator at start (an unknown
keyword such as ``prefixItems`` ends it), sends the schema as the ``StructuredOutput`` tool's,
and checks the model's answer against it; in-process tools get their arguments from it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

import claude_sdk as cs
from claude_sdk.tools import create_sdk_mcp_server, tool

from .conftest import E2E


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    city: str = Field(description="the city")


class Person(BaseModel):
    """A person."""

    name: str = Field(min_length=1)
    age: int = Field(ge=0)
    color: Color = Color.RED
    kind: Literal["human", "robot"] = "human"
    address: Address
    previous: list[Address] = []
    span: tuple[int, str] = (0, "")


@dataclass
class Node:
    """A tree of dataclasses holding a pydantic model."""

    label: str
    where: Address | None = None
    children: list[Node] = field(default_factory=list)


PERSON = {
    "name": "Ada",
    "age": 36,
    "color": "blue",
    "address": {"street": "1 Main St", "city": "London"},
    "previous": [{"street": "2 Side St", "city": "Paris"}],
    "span": [1, "x"],
}


def structured_output_tool(e2e: E2E) -> dict[str, object]:
    (entry,) = [
        t for t in e2e.api.main_requests[0].body["tools"] if t["name"] == "StructuredOutput"
    ]
    schema: dict[str, object] = entry["input_schema"]
    return schema


async def test_a_pydantic_model_as_output_format(e2e: E2E) -> None:
    e2e.api.reply(tool_use=("StructuredOutput", PERSON))
    options = e2e.options(output_format=Person)
    reply = await cs.ask("who?", options=options, transport=e2e.transport())
    assert reply.structured_output == Person.model_validate(PERSON)
    assert reply.structured_output.span == (1, "x")
    assert structured_output_tool(e2e) == options.output_schema


async def test_a_recursive_dataclass_holding_a_model_as_output_format(e2e: E2E) -> None:
    tree = {"label": "root", "children": [{"label": "leaf", "where": {"street": "s", "city": "c"}}]}
    e2e.api.reply(tool_use=("StructuredOutput", tree))
    options = e2e.options(output_format=Node)
    reply = await cs.ask("a tree", options=options, transport=e2e.transport())
    assert reply.structured_output == Node(
        "root", None, [Node("leaf", Address(street="s", city="c"))]
    )
    assert structured_output_tool(e2e) == options.output_schema


async def test_model_arguments_of_a_tool(e2e: E2E) -> None:
    seen: list[Person] = []

    @tool
    async def register(person: Person) -> Person:
        """Register a person."""
        seen.append(person)
        return person

    e2e.api.reply(tool_use=("mcp__people__register", {"person": {**PERSON, "age": -1}}))
    e2e.api.reply(tool_use=("mcp__people__register", {"person": PERSON}))
    e2e.api.reply(text="registered")
    options = e2e.options(
        mcp_servers={"people": create_sdk_mcp_server("people", tools=[register])},
        allowed_tools=["mcp__people__register"],
    )
    reply = await cs.ask("register Ada", options=options, transport=e2e.transport())
    assert reply.text == "registered"
    invalid = e2e.api.main_requests[1].tool_results[0]
    assert invalid.is_error
    assert "person.age: Input should be greater than or equal to 0, got number -1" in invalid.text
    good = e2e.api.main_requests[2].tool_results[0]
    assert not good.is_error
    assert seen == [Person.model_validate(PERSON)]
