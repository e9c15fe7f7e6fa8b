"""Read ``sdk-tools.d.ts`` back into JSON Schema (issue 29, item 1).

The TypeScript Agent SDK ships ``sdk-tools.d.ts``, generated from JSON Schema by
json-schema-to-typescript. :func:`parse_dts` turns the subset of TypeScript that generator
writes back into plain JSON Schema (draft 2020-12) dicts::

    {"definitions": {"AgentInput": {"type": "object", "properties": {...}, ...}, ...}}

Every ``export interface`` and ``export type`` becomes one definition, in file order. A name
of the file is a ``{"$ref": "#/definitions/Name"}``. Any construct outside the subset raises
``ValueError`` naming its line: the parser never guesses. Self-contained (the standard
library only); not shipped in the wheel.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["parse_dts"]

Schema = dict[str, Any]

_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\r\n]+)
  | (?P<doc>/\*\*(?!/).*?\*/)
  | (?P<block>/\*.*?\*/)
  | (?P<line>//[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_$][\w$]*)
  | (?P<punct>\.\.\.|[{}\[\]()<>|&;:?,=-])
    """,
    re.VERBOSE | re.DOTALL,
)

_KEYWORDS: dict[str, Schema] = {
    "string": {"type": "string"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "null": {"type": "null"},
    "unknown": {},
    "any": {},
}


@dataclass(frozen=True)
class _Token:
    kind: str  # doc, string, number, name, punct, end
    text: str
    line: int


def parse_dts(text: str) -> dict[str, Any]:
    """The JSON Schema of every exported interface and type alias of a ``.d.ts`` text, as
    ``{"definitions": {name: schema}}`` in file order; ``ValueError`` (with the line) on a
    construct outside the json-schema-to-typescript subset."""
    return {"definitions": _Parser(_tokenize(text)).declarations()}


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    line, pos = 1, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"line {line}: unexpected character {text[pos]!r}")
        kind = m.lastgroup
        assert kind is not None
        if kind in {"doc", "string", "number", "name", "punct"}:
            tokens.append(_Token(kind, m.group(), line))
        line += m.group().count("\n")
        pos = m.end()
    tokens.append(_Token("end", "", line))
    return tokens


def _doc_text(comment: str) -> str:
    """A ``/** ... */`` comment's text: the `` * `` prefixes stripped, lines joined, trimmed."""
    body = comment[3:-2]
    lines = []
    for raw in body.split("\n"):
        stripped = raw.strip()
        if stripped.startswith("*"):
            stripped = stripped[1:]
            if stripped.startswith(" "):
                stripped = stripped[1:]
        lines.append(stripped.rstrip())
    return "\n".join(lines).strip()


def _string_value(token: _Token) -> str:
    body = token.text[1:-1]
    if token.text[0] == "'":
        body = body.replace("\\'", "'").replace('"', '\\"')
    try:
        value = json.loads(f'"{body}"')
    except json.JSONDecodeError:
        raise ValueError(f"line {token.line}: unsupported string escape in {token.text}") from None
    assert isinstance(value, str)
    return value


def _number_value(text: str) -> int | float:
    return float(text) if any(c in text for c in ".eE") else int(text)


class _Parser:
    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.names = self._exported_names()

    # -- token helpers ------------------------------------------------------------------

    def _exported_names(self) -> set[str]:
        names: set[str] = set()
        code = [t for t in self.tokens if t.kind != "doc"]
        for first, second, third in zip(code, code[1:], code[2:], strict=False):
            if (first.text, first.kind) == ("export", "name") and second.text in {
                "interface",
                "type",
            }:
                if third.kind != "name":
                    raise ValueError(f"line {third.line}: expected a name after {second.text}")
                names.add(third.text)
        return names

    @property
    def tok(self) -> _Token:
        return self.tokens[self.pos]

    def _peek(self, ahead: int = 1) -> _Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def _fail(self, what: str, token: _Token | None = None) -> ValueError:
        token = token or self.tok
        found = "end of file" if token.kind == "end" else repr(token.text[:40])
        return ValueError(f"line {token.line}: {what} (found {found})")

    def _is(self, text: str) -> bool:
        return self.tok.kind in {"punct", "name"} and self.tok.text == text

    def _accept(self, text: str) -> bool:
        if self._is(text):
            self.pos += 1
            return True
        return False

    def _expect(self, text: str) -> _Token:
        if not self._is(text):
            raise self._fail(f"expected {text!r}")
        token = self.tok
        self.pos += 1
        return token

    def _name(self) -> _Token:
        if self.tok.kind != "name":
            raise self._fail("expected a name")
        token = self.tok
        self.pos += 1
        return token

    def _doc(self) -> str | None:
        """The doc comment at the cursor, if any (consumed)."""
        if self.tok.kind != "doc":
            return None
        text = _doc_text(self.tok.text)
        self.pos += 1
        if self.tok.kind == "doc":
            raise self._fail("two doc comments in a row")
        return text

    # -- declarations -------------------------------------------------------------------

    def declarations(self) -> dict[str, Schema]:
        definitions: dict[str, Schema] = {}
        while self.tok.kind != "end":
            # A doc comment followed by another one (the generator's file header) describes
            # nothing: only the one right before a declaration is its description.
            while self.tok.kind == "doc" and self._peek().kind == "doc":
                self.pos += 1
            description = self._doc()
            start = self.tok
            self._expect("export")
            if self._accept("interface"):
                name = self._name()
                if not self._is("{"):
                    raise self._fail(f"expected '{{' after interface {name.text}")
                schema = self._object()
            elif self._accept("type"):
                name = self._name()
                if self._is("<"):
                    raise self._fail("generic type aliases are not supported")
                self._expect("=")
                schema = self._type()
                self._expect(";")
            else:
                raise self._fail("expected 'interface' or 'type' after 'export'")
            if name.text in definitions:
                raise ValueError(f"line {start.line}: {name.text} is declared twice")
            if description:
                schema = {**schema, "description": description}
            definitions[name.text] = schema
        return definitions

    # -- object types ---------------------------------------------------------------------

    def _object(self) -> Schema:
        """``{ members }``: properties, optional marks, one index signature."""
        self._expect("{")
        properties: dict[str, Schema] = {}
        required: list[str] = []
        additional: Schema | None = None
        while not self._accept("}"):
            description = self._doc()
            if self._is("}"):
                raise self._fail("doc comment without a member")
            member = self.tok
            if self._accept("["):
                if additional is not None:
                    raise self._fail("a second index signature", member)
                self._name()
                self._expect(":")
                if not self._accept("string"):
                    raise self._fail("only string index signatures are supported")
                self._expect("]")
                self._expect(":")
                additional = self._type()
                if description:
                    additional = {**additional, "description": description}
            else:
                if member.kind == "string":
                    key = _string_value(member)
                elif member.kind in {"name", "number"}:
                    key = member.text
                else:
                    raise self._fail("expected a property name")
                self.pos += 1
                if member.text == "readonly" and self.tok.kind in {"name", "string"}:
                    raise self._fail("readonly members are not supported", member)
                if self._is("(") or self._is("<"):
                    raise self._fail("method signatures are not supported")
                optional = self._accept("?")
                self._expect(":")
                schema = self._type()
                if key in properties:
                    raise self._fail(f"property {key!r} declared twice", member)
                if description:
                    schema = {**schema, "description": description}
                properties[key] = schema
                if not optional:
                    required.append(key)
            if not (self._accept(";") or self._accept(",")) and not self._is("}"):
                raise self._fail("expected ';' or '}' after a member")
        result: Schema = {"type": "object", "properties": properties, "required": required}
        if additional is not None:
            result["additionalProperties"] = additional
        return result

    # -- types ---------------------------------------------------------------------------

    def _type(self) -> Schema:
        return _union(self._union_members())

    def _union_members(self) -> list[Schema]:
        """The members of ``| A | (B | C) | D``, nested unions flattened."""
        members: list[Schema] = []
        self._accept("|")
        while True:
            members.extend(self._intersection())
            if not self._accept("|"):
                return members

    def _intersection(self) -> list[Schema]:
        """``A & B``, or a union's members when the operand is a bare ``( union )``."""
        parts = [self._postfix()]
        while self._accept("&"):
            parts.append(self._postfix())
        if len(parts) == 1:
            return parts[0][1] or [parts[0][0]]
        return [{"allOf": [schema for schema, _ in parts]}]

    def _postfix(self) -> tuple[Schema, list[Schema] | None]:
        """A primary type and its ``[]`` suffixes; the members of a bare parenthesized union
        come second (``None`` for anything else)."""
        schema, members = self._primary()
        while self._is("["):
            if self._peek().text != "]":
                raise self._fail("indexed access types are not supported", self._peek())
            self.pos += 2
            schema, members = {"type": "array", "items": schema}, None
        return schema, members

    def _primary(self) -> tuple[Schema, list[Schema] | None]:
        token = self.tok
        if self._accept("("):
            members = self._union_members()
            self._expect(")")
            return _union(members), members
        if self._is("{"):
            return self._object(), None
        if self._is("["):
            return self._tuple(), None
        if token.kind == "string":
            self.pos += 1
            return {"const": _string_value(token)}, None
        if token.kind == "number":
            self.pos += 1
            return {"const": _number_value(token.text)}, None
        if self._is("-") and self._peek().kind == "number":
            self.pos += 2
            return {"const": -_number_value(self.tokens[self.pos - 1].text)}, None
        if token.kind != "name":
            raise self._fail("expected a type")
        self.pos += 1
        if token.text in {"true", "false"}:
            return {"const": token.text == "true"}, None
        if token.text in _KEYWORDS:
            return dict(_KEYWORDS[token.text]), None
        if self._is("<"):
            return self._generic(token), None
        if token.text in self.names:
            return {"$ref": f"#/definitions/{token.text}"}, None
        raise self._fail(f"unknown type {token.text!r}", token)

    def _generic(self, name: _Token) -> Schema:
        self._expect("<")
        args = [self._type()]
        while self._accept(","):
            args.append(self._type())
        self._expect(">")
        if name.text == "Array" and len(args) == 1:
            return {"type": "array", "items": args[0]}
        if name.text == "Record" and len(args) == 2 and args[0] == {"type": "string"}:
            return {
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": args[1],
            }
        raise self._fail(f"unsupported generic type {name.text}<...>", name)

    def _tuple(self) -> Schema:
        """``[A, B]`` and ``[A, ...B[]]``: ``prefixItems``, then ``items`` (false when closed),
        and ``minItems`` (TypeScript requires every element before the rest)."""
        self._expect("[")
        prefix: list[Schema] = []
        rest: Schema | bool = False
        while not self._is("]"):
            if self._is("..."):
                spread = self.tok
                self.pos += 1
                schema, _ = self._postfix()
                if set(schema) != {"type", "items"} or schema["type"] != "array":
                    raise self._fail("a tuple's rest element must be an array type", spread)
                rest = schema["items"]
                if not self._is("]"):
                    raise self._fail("a tuple's rest element must come last")
                break
            if self.tok.kind == "name" and self._peek().text in {":", "?"}:
                raise self._fail("named or optional tuple elements are not supported")
            prefix.append(self._type())
            if self._is("?"):
                raise self._fail("optional tuple elements are not supported")
            if not self._accept(","):
                break
        self._expect("]")
        result: Schema = {"type": "array"}
        if prefix:
            result["prefixItems"] = prefix
            result["minItems"] = len(prefix)
        result["items"] = rest
        return result


def _union(members: list[Schema]) -> Schema:
    """One schema for the members of a union (already flattened)."""
    if len(members) == 1:
        return members[0]
    strings = [m for m in members if set(m) == {"const"} and isinstance(m["const"], str)]
    if len(strings) == len(members):
        return {"enum": [m["const"] for m in strings]}
    if len(strings) == len(members) - 1 and {"type": "null"} in members:
        literals = [m["const"] for m in strings]
        choice: Schema = {"enum": literals} if len(literals) > 1 else {"const": literals[0]}
        return {"anyOf": [choice, {"type": "null"}]}
    return {"anyOf": members}
