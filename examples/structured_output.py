"""Structured output: get an answer as an instance of your own class.

``Options(output_format=City)`` derives a JSON Schema from the class (here a standard-library
dataclass; an attrs class, a TypedDict or a pydantic model works the same way) and asks the
CLI for output that fits it; ``reply.structured_output`` is then a ``City`` (built and checked
by the SDK). A JSON Schema dict works too, and then ``structured_output`` is the plain JSON
value.

``ask()`` returns only output you can use: when the model ends the turn without structured
output, or with a value that fails the schema or the class, it raises
``cs.StructuredOutputError`` (a ``ResultError`` of kind ``"structured_output"``, retryable;
``.problem`` says what is wrong), and a session's ``ResultMessage`` says the same in
``structured_output_error``.

Run: ``python examples/structured_output.py`` (needs a logged-in Claude Code CLI).
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio

import claude_sdk as cs


@dataclass(frozen=True)
class City:
    """A capital city."""

    city: str
    country: str
    population_millions: float


async def main() -> None:
    reply = await cs.ask(
        "What is the capital of France, and roughly how many people live there?",
        options=cs.Options(output_format=City),
    )
    capital: City = reply.structured_output
    print(f"{capital.city}, {capital.country}: about {capital.population_millions:g} million")
    print(capital)

    # A model that answers in prose instead: a typed error, never a silent None.
    try:
        await cs.ask("Just tell me in words.", options=cs.Options(output_format=City))
    except cs.StructuredOutputError as exc:
        print(f"no usable output (retryable={exc.retryable}): {exc.problem}")


if __name__ == "__main__":
    anyio.run(main)
