"""The tool model is generated from its recorded sources (issue 29, item 1).

``claude_sdk/_tool_inputs.py`` and ``_tool_outputs.py`` are written by
``tools/model/generate.py`` from ``schemas/`` (the CLI's tool schemas, the TypeScript SDK's
``sdk-tools.d.ts`` as JSON Schema) and ``schemas/overlay.toml``. These tests are the
``nox -s model -- --check`` of the everyday suite, and check the generator's rules.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import claude_sdk as cs
from claude_sdk import tool_inputs
from tools.model import generate as gen

ROOT = Path(__file__).resolve().parents[1]


def test_the_checked_in_modules_are_what_the_sources_give() -> None:
    assert gen.main(["--check"]) == 0


def test_the_generated_modules_say_that_they_are() -> None:
    for module in ("_tool_inputs", "_tool_outputs"):
        text = (ROOT / "claude_sdk" / f"{module}.py").read_text()
        assert text.startswith(gen.HEADER)


def test_a_newer_cli_schema_is_a_regenerated_class(tmp_path: Path) -> None:
    """A new CLI version: record it, regenerate, read the diff."""
    schemas = tmp_path / "schemas"
    shutil.copytree(ROOT / "schemas", schemas)
    newer = schemas / "9.9.999"
    newer.mkdir()
    recorded = json.loads((ROOT / "schemas" / "2.1.332" / "tool_inputs.json").read_text())
    for tool in recorded["tools"]:
        if tool["name"] == "Bash":
            props = tool["input_schema"]["properties"]
            props["sandboxProfile"] = {"enum": ["strict", "open"]}
            del props["description"]
    recorded["cli"] = "9.9.999"
    (newer / "tool_inputs.json").write_text(json.dumps(recorded))
    overlay = gen.load_overlay()
    before = gen.render("tool_inputs", overlay, gen.Sources.load())
    newer_sources = gen.Sources.load(schemas)
    # its documentation still lists the field that went and not the new one: loud
    with pytest.raises(
        ValueError, match=r"BashInput: .* lists \['description'\] .* not \['sandbox_profile'\]"
    ):
        gen.render("tool_inputs", overlay, newer_sources)
    for item in overlay["tool_inputs"]:
        if item.get("class") == "BashInput":
            item["doc"] = item["doc"].replace(
                "description: what the command does, in a few words.",
                "sandbox_profile: the sandbox to run it in.",
            )
    after = gen.render("tool_inputs", overlay, newer_sources)
    bash = after[after.index("class BashInput") : after.index("class BashOutputInput")]
    assert 'sandbox_profile: Literal["strict", "open"] | None = None' in bash
    assert "    description: str | None = None" not in bash  # gone from the newest recording
    assert "schemas/9.9.999/tool_inputs.json" in bash  # the source it came from
    assert '"sandbox_profile": "sandboxProfile"' in after  # and its wire key
    assert before != after


def _overlay_with(cls: str, field: str, spec: dict[str, Any]) -> dict[str, Any]:
    overlay = copy.deepcopy(gen.load_overlay())
    for item in overlay["tool_inputs"]:
        if item.get("class") == cls:
            item.setdefault("fields", {})[field] = spec
    return overlay


def test_a_field_no_source_has_must_say_where_it_comes_from() -> None:
    overlay = _overlay_with("ReadInput", "secret_flag", {"type": "bool | None"})
    with pytest.raises(ValueError, match=r"ReadInput\.secret_flag: not in tool:Read: say"):
        gen.render("tool_inputs", overlay, gen.Sources.load())
    shown = _overlay_with("ReadInput", "secret_flag", {"type": "bool | None", "bundle": "2.1.332"})
    for item in shown["tool_inputs"]:
        if item.get("class") == "ReadInput":
            item["doc"] += "\n    secret_flag: a flag only the CLI's bundle names."
    text = gen.render("tool_inputs", shown, gen.Sources.load())
    assert "    # named by the CLI 2.1.332 bundle\n    secret_flag: bool | None = None" in text


def test_every_recorded_source_named_in_the_overlay_exists() -> None:
    overlay = gen.load_overlay()
    named = [
        spec["source"]
        for module in overlay["modules"]
        for item in overlay[module]
        for spec in item.get("fields", {}).values()
        if "source" in spec
    ]
    assert named  # the check cannot pass on nothing
    for path in named:
        assert (ROOT / path).is_file(), path
    sources = gen.Sources.load()
    for module in overlay["modules"]:
        for item in overlay[module]:
            if item.get("source"):
                sources.resolve(item["source"])  # raises for a path that is not there


@pytest.mark.parametrize(
    ("schema", "required", "integer", "expected"),
    [
        ({"type": "string"}, True, False, ("str", None)),
        ({"type": "integer"}, False, False, ("int | None", "None")),
        ({"type": "number"}, True, True, ("int", None)),  # the overlay says: integers
        ({"enum": ["a", "b"]}, True, False, ('Literal["a", "b"]', None)),
        ({"const": "completed"}, True, False, ('Literal["completed"]', '"completed"')),
        ({"const": True}, False, False, ("bool | None", "None")),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, True, False, ("str | None", None)),
        ({"type": ["string", "null"]}, False, False, ("str | None", "None")),
        ({"type": "array", "items": {"type": "string"}}, True, False, ("list[str]", None)),
        ({"type": "object"}, True, False, ("dict[str, Any]", None)),
        (
            {"type": "object", "additionalProperties": {"type": "string"}},
            True,
            False,
            ("dict[str, str]", None),
        ),
        ({}, True, False, ("Any", None)),
    ],
)
def test_a_field_type_follows_its_schema(
    schema: dict[str, Any], required: bool, integer: bool, expected: tuple[str, str | None]
) -> None:
    deriver = gen.Deriver(gen.Sources(), {})
    assert gen.derive_field(deriver, schema, required, integer) == expected


def test_an_object_equal_to_a_class_source_is_that_class() -> None:
    """The ``.d.ts`` repeats an object literal wherever it is used: equal ones (descriptions
    aside) are one class."""
    hunk = {"type": "object", "properties": {"a": {"type": "number", "description": "x"}}}
    sources = gen.Sources(schemas={"ts:Hunk": hunk})
    deriver = gen.Deriver(sources, {gen.shape(hunk, sources): "Hunk"})
    again = {"type": "object", "properties": {"a": {"type": "number"}}}
    assert deriver.type_of({"type": "array", "items": again}) == "list[Hunk]"
    other = {"type": "object", "properties": {"b": {"type": "number"}}}
    assert deriver.type_of(other) == "dict[str, Any]"


def test_the_public_modules_re_export_every_generated_name() -> None:
    from claude_sdk import _tool_inputs, _tool_outputs, tool_outputs

    for private, public in ((_tool_inputs, tool_inputs), (_tool_outputs, tool_outputs)):
        for name in private.__all__:
            assert getattr(public, name) is getattr(private, name), name
            assert name in public.__all__, name
    assert cs.tool_inputs.BashInput is _tool_inputs.BashInput


def _load(text: str, name: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The generated module ``text``, run as a module of the package for this test."""
    import types

    module = types.ModuleType(f"claude_sdk.{name}")
    module.__package__ = "claude_sdk"
    monkeypatch.setitem(sys.modules, module.__name__, module)  # its annotations resolve there
    exec(compile(text, f"<generated {name}>", "exec"), module.__dict__)
    return module


def test_a_new_tool_of_a_newer_cli_is_typed_the_day_it_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(ROOT / "schemas", schemas)
    recorded = json.loads((ROOT / "schemas" / "2.1.332" / "tool_inputs.json").read_text())
    recorded["tools"].append(
        {
            "name": "Frobnicate",
            "input_schema": {
                "type": "object",
                "properties": {
                    "target": {"type": "string"},
                    "maxDepth": {"type": "integer"},
                    "mode": {"enum": ["fast", "slow"]},
                },
                "required": ["target"],
            },
        }
    )
    (schemas / "9.9.999").mkdir()
    (schemas / "9.9.999" / "tool_inputs.json").write_text(json.dumps(recorded))
    text = gen.render("tool_inputs", gen.load_overlay(), gen.Sources.load(schemas))
    assert "# Tools of a newer CLI, not described yet" in text
    module = _load(text, "_tool_inputs_newer", monkeypatch)
    cls = module.TOOL_INPUTS["Frobnicate"]
    assert cls.__name__ == "FrobnicateInput"
    assert module.WIRE_KEYS[cls] == {"max_depth": "maxDepth"}
    views = tool_inputs._Views(module.WIRE_KEYS)
    data = {"target": "x", "maxDepth": 2, "mode": "fast"}
    assert views.fits(data, cls)
    typed = views.build(data, cls)
    assert (typed.target, typed.max_depth, typed.mode) == ("x", 2, "fast")
    assert not views.fits({"maxDepth": 2}, cls)  # target is required
    assert not views.fits({"target": "x", "maxDepth": "deep"}, cls)
