"""Structured output: get an answer as an instance of your own class.

``Options(output_format=City)`` derives a JSON Schema from the class (here a standard-library
dataclass; an attrs class, a TypedDict or a pydantic model works the same way) and asks the
CLI for output that fits it; ``reply.structured_output`` is then a ``City`` (built and checked
by the SDK; it raises ``ValueError`` naming the fields that do not fit). A JSON Schema dict
works too, and then ``structured_output`` is the plain JSON value.

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


if __name__ == "__main__":
    anyio.run(main)
