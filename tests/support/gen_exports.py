"""Write each lazy package's export table from its ``if TYPE_CHECKING:`` re-exports.

A lazy package (see ``claude_sdk/_exports.py``) lists each public name once, as ``from .x
import Y as Y`` under ``if TYPE_CHECKING:`` (plus ``from . import x as x`` for a public
submodule, and any eager ``from .x import Y as Y``). This script writes the section between
`BEGIN` and `END` from that list: ``_LAZY`` (name -> relative module, ``""`` for a submodule
of that name) and ``__all__``, in the order of the imports.

    python tests/support/gen_exports.py          # rewrite the sections
    python tests/support/gen_exports.py --check  # exit 1 when one is stale

``tests/test_public_api.py`` runs the check (trio's ``gen_exports --test`` is the model).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The lazy packages, by their ``__init__.py``.
PACKAGES = {
    "claude_sdk": ROOT / "claude_sdk" / "__init__.py",
    "claude_sdk.transports": ROOT / "claude_sdk" / "transports" / "__init__.py",
    "claude_sdk.testing": ROOT / "claude_sdk" / "testing" / "__init__.py",
}

BEGIN = "# Generated from the imports above by tests/support/gen_exports.py: do not edit.\n"
END = "# End of the generated section.\n"


class ReExports:
    """What a package's ``__init__.py`` re-exports, read with ``ast``.

    Attributes:
        lazy: name -> relative module (``""`` for ``from . import x as x``) of the
            re-exports under ``if TYPE_CHECKING:``, in source order.
        eager: the same for the re-exports outside it.
        other: relative imports that are not re-exports (``from .x import Y`` without
            ``as Y``), which the package should not have.
    """

    def __init__(self, source: str) -> None:
        self.lazy: dict[str, str] = {}
        self.eager: dict[str, str] = {}
        self.other: list[str] = []
        self._visit(ast.parse(source).body, self.eager)

    def _visit(self, body: list[ast.stmt], found: dict[str, str]) -> None:
        for node in body:
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                self._visit(node.body, self.lazy)
            elif isinstance(node, ast.ImportFrom) and node.level >= 1:
                if node.module == "_exports":  # the helper itself
                    continue
                for alias in node.names:
                    if alias.asname is not None and alias.asname == alias.name:
                        if alias.name in self.lazy or alias.name in self.eager:
                            raise ValueError(f"{alias.name} re-exported twice")
                        found[alias.name] = node.module or ""
                    else:
                        self.other.append(f"from .{node.module or ''} import {alias.name}")

    @property
    def public(self) -> list[str]:
        """``__all__``: the eager re-exports, then the lazy ones."""
        return [*self.eager, *self.lazy]


def section(exports: ReExports) -> str:
    """The generated section of a package (formatted as ``ruff format`` leaves it)."""
    lines = [BEGIN, "_LAZY: dict[str, str] = {\n"]
    lines += [f'    "{name}": "{module}",\n' for name, module in exports.lazy.items()]
    lines += ["}\n", "__all__ = [\n"]
    lines += [f'    "{name}",\n' for name in exports.public]
    lines += ["]\n", END]
    return "".join(lines)


def regenerate(source: str) -> str:
    """``source`` (a package's ``__init__.py``) with its generated section rewritten."""
    start = source.index(BEGIN)
    end = source.index(END, start) + len(END)
    return source[:start] + section(ReExports(source)) + source[end:]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for package, path in PACKAGES.items():
        source = path.read_text(encoding="utf-8")
        new = regenerate(source)
        if new == source:
            continue
        stale.append(package)
        if not check:
            path.write_text(new, encoding="utf-8")
    if stale:
        verb = "stale" if check else "rewritten"
        print(f"{verb}: {', '.join(stale)}", file=sys.stderr)
        if check:
            print("run: python tests/support/gen_exports.py", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
