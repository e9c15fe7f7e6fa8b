"""tools/model/dts.py: sdk-tools.d.ts (json-schema-to-typescript output) back into JSON Schema."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tools.model.dts import parse_dts

REAL = Path("/root/.cache/claude-sdk-test/ts-sdk-0.3.332/package/sdk-tools.d.ts")


def one(text: str, name: str = "T") -> Any:
    return parse_dts(text)["definitions"][name]


def alias(type_text: str) -> Any:
    return one(f"export type T = {type_text};")


def obj(properties: dict[str, Any], required: list[str], **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, **more}


# --------------------------------------------------------------------------------------
# Forms


@pytest.mark.parametrize(
    ("text", "schema"),
    [
        ("string", {"type": "string"}),
        ("number", {"type": "number"}),
        ("boolean", {"type": "boolean"}),
        ("null", {"type": "null"}),
        ("unknown", {}),
        ("any", {}),
        ('"x"', {"const": "x"}),
        ("'x'", {"const": "x"}),
        (r'"a\"b"', {"const": 'a"b'}),
        ("true", {"const": True}),
        ("false", {"const": False}),
        ("3", {"const": 3}),
        ("-1.5", {"const": -1.5}),
    ],
)
def test_scalars_and_literals(text: str, schema: dict[str, Any]) -> None:
    assert alias(text) == schema


def test_string_literal_unions_are_enums() -> None:
    assert alias('"a" | "b" | "c"') == {"enum": ["a", "b", "c"]}
    assert alias('| "a"\n  | "b"') == {"enum": ["a", "b"]}
    # nested (parenthesized) unions are flattened
    assert alias('("a" | "b") | "c"') == {"enum": ["a", "b", "c"]}


def test_string_literals_or_null() -> None:
    null = {"type": "null"}
    assert alias('"a" | "b" | null') == {"anyOf": [{"enum": ["a", "b"]}, null]}
    assert alias('"a" | null') == {"anyOf": [{"const": "a"}, null]}


def test_other_unions_are_any_of() -> None:
    assert alias("string | null") == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert alias('"latest" | string') == {"anyOf": [{"const": "latest"}, {"type": "string"}]}
    assert alias("string | (number | (boolean | null))") == {
        "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]
    }
    assert alias("true | false") == {"anyOf": [{"const": True}, {"const": False}]}


def test_arrays() -> None:
    assert alias("string[]") == {"type": "array", "items": {"type": "string"}}
    assert alias("Array<number>") == {"type": "array", "items": {"type": "number"}}
    assert alias("string[][]") == {
        "type": "array",
        "items": {"type": "array", "items": {"type": "string"}},
    }
    assert alias("(string | number)[]") == {
        "type": "array",
        "items": {"anyOf": [{"type": "string"}, {"type": "number"}]},
    }
    assert alias("{ a: string }[]") == {
        "type": "array",
        "items": obj({"a": {"type": "string"}}, ["a"]),
    }
    # `[]` binds tighter than `|`
    assert alias("string | number[]") == {
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "number"}}]
    }


def test_tuples() -> None:
    assert alias("[string, number]") == {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "number"}],
        "minItems": 2,
        "items": False,
    }
    assert alias("[string, ...string[]]") == {
        "type": "array",
        "prefixItems": [{"type": "string"}],
        "minItems": 1,
        "items": {"type": "string"},
    }
    assert alias("[{ a: 1 }, ...({ a: 1 } | null)[]]") == {
        "type": "array",
        "prefixItems": [obj({"a": {"const": 1}}, ["a"])],
        "minItems": 1,
        "items": {"anyOf": [obj({"a": {"const": 1}}, ["a"]), {"type": "null"}]},
    }
    assert alias("[]") == {"type": "array", "items": False}
    assert alias("[string] | [string, string]")["anyOf"][1]["minItems"] == 2


def test_references_and_intersections() -> None:
    definitions = parse_dts(
        "export interface A { a: string }\n"
        "export type B = A | null;\n"
        "export type C = A & { c?: B };\n"
    )["definitions"]
    assert list(definitions) == ["A", "B", "C"]
    assert definitions["B"] == {"anyOf": [{"$ref": "#/definitions/A"}, {"type": "null"}]}
    assert definitions["C"] == {
        "allOf": [{"$ref": "#/definitions/A"}, obj({"c": {"$ref": "#/definitions/B"}}, [])]
    }
    # a reference to a name declared further down
    assert one("export type T = U[];\nexport type U = string;") == {
        "type": "array",
        "items": {"$ref": "#/definitions/U"},
    }


def test_interface_properties_in_order_with_optionals_and_quoted_keys() -> None:
    schema = one(
        "export interface T {\n"
        "  b: string;\n"
        '  "-B"?: number;\n'
        "  a?: boolean;\n"
        "  'c d': null;\n"
        "  nested: {\n"
        "    x?: string;\n"
        "    y: number | null;\n"
        "  };\n"
        "}\n"
    )
    assert schema == obj(
        {
            "b": {"type": "string"},
            "-B": {"type": "number"},
            "a": {"type": "boolean"},
            "c d": {"type": "null"},
            "nested": obj(
                {"x": {"type": "string"}, "y": {"anyOf": [{"type": "number"}, {"type": "null"}]}},
                ["y"],
            ),
        },
        ["b", "c d", "nested"],
    )
    assert list(schema["properties"]) == ["b", "-B", "a", "c d", "nested"]
    assert one("export interface T {}") == obj({}, [])


def test_index_signatures_and_record() -> None:
    assert one("export interface T {\n  [k: string]: unknown;\n}") == obj(
        {}, [], additionalProperties={}
    )
    assert alias("{ a: string; [k: string]: number }") == obj(
        {"a": {"type": "string"}}, ["a"], additionalProperties={"type": "number"}
    )
    assert alias("Record<string, boolean>") == obj({}, [], additionalProperties={"type": "boolean"})


def test_doc_comments() -> None:
    text = (
        "/* eslint-disable */\n"
        "/**\n * The generator's file header.\n */\n\n"
        "/**\n * What T is.\n */\n"
        "export interface T {\n"
        "  /**\n"
        "   * First line.\n"
        "   *\n"
        "   * @minItems 1\n"
        "   */\n"
        "  a: string[];\n"
        "  /** One line. */\n"
        "  b?: {\n"
        "    /**\n"
        "     * Deep.\n"
        "     */\n"
        "    c: 1;\n"
        "  };\n"
        "  // a line comment\n"
        "  d: string;\n"
        "}\n"
        "/**\n * An alias.\n */\n"
        "export type U = T | null;\n"
    )
    definitions = parse_dts(text)["definitions"]
    t = definitions["T"]
    assert t["description"] == "What T is."
    assert t["properties"]["a"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "First line.\n\n@minItems 1",
    }
    assert t["properties"]["b"]["description"] == "One line."
    assert t["properties"]["b"]["properties"]["c"] == {"const": 1, "description": "Deep."}
    assert "description" not in t["properties"]["d"]
    assert definitions["U"]["description"] == "An alias."


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("export interface T {\n  a: Date;\n}", 2),  # a name the file does not declare
        ("export type T =\n  | string\n  | undefined;", 3),
        ("export interface T extends U {}\nexport interface U {}", 1),
        ("export type T<X> = X;", 1),
        ("export type T = {\n  a: string;\n}['a'];", 3),  # indexed access
        ("export interface T {\n  f(): void;\n}", 2),  # method
        ("export interface T {\n  readonly a: string;\n}", 2),
        ("export interface T {\n  [k: number]: string;\n}", 2),
        ("export type T = [a: string];", 1),  # named tuple element
        ("export type T = [string?];", 1),
        ("export type T = [...string[], number];", 1),
        ("export type T = Map<string, number>;", 1),
        ("export type T = Record<number, string>;", 1),
        ("export type T = keyof U;\nexport type U = string;", 1),
        ("export const x = 1;", 1),
        ("declare type T = string;", 1),
        ("\n\nexport type T = string", 3),  # no semicolon
        ("export type T = string;\nexport type T = number;", 2),
        ("export interface T {\n  a: string;\n  a: number;\n}", 3),
        ("export type T = `a${string}`;", 1),
        ("export type T =\n  /** where? */\n  string;", 2),
        ("export type T = 'a\\x41';", 1),
    ],
)
def test_unknown_constructs_fail_loudly_with_the_line(text: str, line: int) -> None:
    with pytest.raises(ValueError, match=rf"^line {line}: "):
        parse_dts(text)


# --------------------------------------------------------------------------------------
# The real file


@pytest.mark.skipif(not REAL.is_file(), reason=f"{REAL} is not here")
def test_the_real_sdk_tools_d_ts() -> None:
    text = REAL.read_text()
    definitions = parse_dts(text)["definitions"]
    declared = re.findall(r"^export (?:interface|type) (\w+)", text, re.MULTILINE)
    assert list(definitions) == declared
    assert len(definitions) == 90

    edit = definitions["FileEditOutput"]
    assert edit["type"] == "object"
    assert "filePath" in edit["required"]
    patch = edit["properties"]["structuredPatch"]
    assert patch["type"] == "array"
    assert patch["items"]["type"] == "object"
    assert "oldStart" in patch["items"]["required"]
    assert "gitDiff" in edit["properties"]
    assert "gitDiff" not in edit["required"]
    assert edit["properties"]["gitDiff"]["properties"]["status"] == {"enum": ["modified", "added"]}

    model = definitions["AgentInput"]["properties"]["model"]
    assert "model" not in definitions["AgentInput"]["required"]
    assert set(model) == {"enum", "description"}
    assert "sonnet" in model["enum"]

    unions = definitions["ToolInputSchemas"]["anyOf"]
    assert {"$ref": "#/definitions/AgentInput"} in unions
    assert {"$ref": "#/definitions/ToolOutputSchemas"} in unions
    assert definitions["McpOutput"]["description"] == "MCP tool execution result"
    assert definitions["McpInput"] == obj({}, [], additionalProperties={})
    assert definitions["EnterPlanModeInput"] == obj({}, [])


@pytest.mark.skipif(not REAL.is_file(), reason=f"{REAL} is not here")
def test_the_real_file_gives_valid_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    document = parse_dts(REAL.read_text())
    jsonschema.Draft202012Validator.check_schema(document)
    for schema in document["definitions"].values():
        jsonschema.Draft202012Validator.check_schema(schema)
    edit = jsonschema.Draft202012Validator({**document, "$ref": "#/definitions/FileEditOutput"})
    missing = {e.message for e in edit.iter_errors({"filePath": "a"})}
    assert "'oldString' is a required property" in missing
