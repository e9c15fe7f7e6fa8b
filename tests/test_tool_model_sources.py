"""The hand-written tool input model against its recorded sources (issue 29, item 1).

``schemas/<cli version>/tool_inputs.json`` holds the input schemas the CLI sends to the
Messages API. Until the model is generated from them, this test compares the two: every
property of a recorded schema is a field of the tool's class (under its wire key), required
where the schema requires it, of a type that takes the schema's JSON type; and every field of
the class is in the schema. What differs on purpose is listed in `KNOWN`, each with its
reason: a difference not listed, or listed but gone, fails (so the list is always exact).
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import attrs
import pytest

from claude_sdk import tool_inputs

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
VERSIONS = sorted(p.name for p in SCHEMAS.iterdir() if (p / "tool_inputs.json").is_file())

#: Differences the model keeps on purpose (the same for every recorded version so far).
KNOWN = {
    # Fields sdk-tools.d.ts (0.3.332) declares for agent teams; this CLI does not send them.
    ("Agent", "extra field", "team_name"): "sdk-tools.d.ts AgentInput",
    ("Agent", "extra field", "mode"): "sdk-tools.d.ts AgentInput",
    ("Agent", "extra field", "name"): "sdk-tools.d.ts AgentInput",
    # In the hand model since its first version; neither these CLIs nor sdk-tools.d.ts 0.3.332
    # declare it: the generator will drop it unless a source shows it.
    ("Monitor", "extra field", "persistent"): "no recorded source",
    # Enumerations typed as str: a newer CLI may add a value, and the view must still fit.
    ("Agent", "type", "effort"): "an open enumeration (str)",
    ("Agent", "type", "model"): "an open enumeration (str)",
    ("Agent", "type", "isolation"): "an open enumeration (str)",
    # Optional in the view although the schema requires it: the CLI fills in its default.
    ("Monitor", "required", "timeout_ms"): "has a default in the schema (300000)",
}

_JSON = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _json_types(tp: Any) -> set[str]:
    """The JSON types a field of type ``tp`` takes."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_json_types(a) for a in args if a is not type(None)))
    if origin is typing.Literal:
        return {"enum"}
    if origin is list:
        return {"array"}
    if origin is dict or tp is dict or (isinstance(tp, type) and attrs.has(tp)):
        return {"object"}
    if tp is Any:
        return {"any"}
    return {_JSON.get(tp, repr(tp))}


def _schema_types(prop: dict[str, Any]) -> set[str]:
    if "enum" in prop:
        return {"enum"}
    if "anyOf" in prop:
        return {str(p.get("type")) for p in prop["anyOf"]}
    kind = prop.get("type")
    return {str(kind)} if kind is not None else {"any"}


def _fits(schema: set[str], ours: set[str]) -> bool:
    if "any" in ours or schema <= ours:
        return True
    return schema == {"integer"} and "number" in ours  # an int is a JSON number


def differences(recorded: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    found: set[tuple[str, str, str]] = set()
    for tool in recorded:
        name = tool["name"]
        cls = tool_inputs.TOOL_INPUTS.get(name)
        if cls is None:
            found.add((name, "no class", ""))
            continue
        wire = tool_inputs.WIRE_KEYS.get(cls, {})
        hints = typing.get_type_hints(cls)
        fields = {
            wire.get(f.name, f.name): f
            for f in attrs.fields(cls)
            if f.name != "extra" and not f.name.startswith("_")
        }
        props = tool["input_schema"].get("properties", {})
        required = set(tool["input_schema"].get("required", []))
        found |= {(name, "missing field", key) for key in props.keys() - fields.keys()}
        found |= {(name, "extra field", key) for key in fields.keys() - props.keys()}
        for key in props.keys() & fields.keys():
            field = fields[key]
            if (field.default is attrs.NOTHING) != (key in required):
                found.add((name, "required", key))
            if not _fits(_schema_types(props[key]), _json_types(hints[field.name])):
                found.add((name, "type", key))
    return found


@pytest.mark.parametrize("version", VERSIONS)
def test_the_model_fits_the_recorded_schemas(version: str) -> None:
    recorded = json.loads((SCHEMAS / version / "tool_inputs.json").read_text())["tools"]
    found = differences(recorded)
    assert sorted(found - KNOWN.keys()) == [], "differences the model does not know of"
    assert sorted(KNOWN.keys() - found) == [], "listed differences that are gone"


def test_a_schema_change_is_seen() -> None:
    """A new field, a new required key, a new type, a new tool: each is found."""
    recorded = json.loads((SCHEMAS / VERSIONS[0] / "tool_inputs.json").read_text())["tools"]
    bash = next(t for t in recorded if t["name"] == "Bash")
    changed = json.loads(json.dumps(bash))
    changed["input_schema"]["properties"]["cwd"] = {"type": "string"}
    changed["input_schema"]["required"].append("description")
    changed["input_schema"]["properties"]["timeout"] = {"type": "string"}
    new_tool = {"name": "Teleport", "input_schema": {"properties": {}}}
    assert differences([changed, new_tool]) == {
        ("Bash", "missing field", "cwd"),
        ("Bash", "required", "description"),
        ("Bash", "type", "timeout"),
        ("Teleport", "no class", ""),
    }
