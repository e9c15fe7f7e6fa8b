"""The package's import graph: no cycle anywhere, and the layers point down (issue 14).

The graph is read from the source with `ast`, so it sees every import the interpreter could
run: at module level, inside functions and methods, under ``if TYPE_CHECKING:``, and by name
through ``importlib.import_module("claude_sdk...")`` or ``__import__(...)`` with a constant (or
``__name__``-relative f-string) argument. An import whose target cannot be read statically is
reported, so that a new one cannot hide an edge.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "claude_sdk"
PACKAGE = "claude_sdk"

#: Dynamic imports whose target is not a constant, and what they may load.
DYNAMIC_OK = {
    # PEP 562 lazy re-exports: the name comes from a package's table, generated from the
    # imports under its `if TYPE_CHECKING:` (which this graph reads).
    f"{PACKAGE}._exports": "lazy re-exports of the public packages",
    # `fake-cli --script MODULE:FUNCTION` imports the user's module, never one of ours.
    f"{PACKAGE}.testing.stdio": "the user's script module, named on the command line",
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _resolve(current: str, level: int, target: str | None) -> str:
    """The absolute name of a (possibly relative) import in module ``current``."""
    if level == 0:
        return target or ""
    base = current if _is_package(current) else current.rpartition(".")[0]
    for _ in range(level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{target}" if target else base


def _in_package(name: str) -> str | None:
    """The module of ``claude_sdk`` that importing ``name`` loads (its longest known prefix)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _const_target(node: ast.expr, current: str) -> str | None:
    """The module named by a constant (or ``f"{__name__}.x"``) import argument, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif (
                isinstance(value, ast.FormattedValue)
                and isinstance(value.value, ast.Name)
                and value.value.id in ("__name__", "__package__")
            ):
                package = current if _is_package(current) else current.rpartition(".")[0]
                parts.append(current if value.value.id == "__name__" else package)
            else:
                return None
        return "".join(parts)
    return None


def _is_typing_block(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _edges(name: str, *, typing_blocks: bool) -> Iterator[tuple[str, int, str | None]]:
    """(imported module or raw target, line, None) or ("", line, reason) for unreadable ones."""
    tree = ast.parse(MODULES[name].read_text(), str(MODULES[name]))
    skip: set[int] = set()
    if not typing_blocks:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and _is_typing_block(node):
                for child in node.body:
                    skip.update(id(n) for n in ast.walk(child))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, None
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(name, node.level, node.module)
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                yield (sub if sub in MODULES else module), node.lineno, None
        elif isinstance(node, ast.Call):
            func = node.func
            called = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if called not in ("import_module", "__import__") or not node.args:
                continue
            target = _const_target(node.args[0], name)
            if target is None:
                yield "", node.lineno, f"{called}() with a computed name"
                continue
            if target.startswith("."):
                package = node.args[1] if len(node.args) > 1 else None
                base = _const_target(package, name) if package is not None else None
                if (
                    base is None
                    and isinstance(package, ast.Name)
                    and package.id
                    in (
                        "__package__",
                        "__name__",
                    )
                ):
                    base = name if _is_package(name) else name.rpartition(".")[0]
                if base is None:
                    yield "", node.lineno, f"{called}() relative to a computed package"
                    continue
                level = len(target) - len(target.lstrip("."))
                for _ in range(level - 1):
                    base = base.rpartition(".")[0]
                rest = target.lstrip(".")
                target = f"{base}.{rest}" if rest else base
            yield target, node.lineno, None


@functools.cache
def _edge_list(name: str, typing_blocks: bool) -> tuple[tuple[str, int, str | None], ...]:
    """`_edges`, each module parsed once per run."""
    return tuple(_edges(name, typing_blocks=typing_blocks))


@functools.cache
def graph(*, typing_blocks: bool) -> dict[str, set[str]]:
    """Module -> the ``claude_sdk`` modules it imports (anywhere in its code). Built once
    per run for each ``typing_blocks`` (the tests only read it)."""
    out: dict[str, set[str]] = {}
    for name in MODULES:
        targets: set[str] = set()
        for target, _, _ in _edge_list(name, typing_blocks):
            module = _in_package(target) if target.startswith(PACKAGE) else None
            if module is not None and module != name:
                targets.add(module)
        out[name] = targets
    return out


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("typing_blocks", [False, True], ids=["runtime", "with-type-checking"])
def test_no_import_cycle_anywhere_in_the_package(typing_blocks: bool) -> None:
    assert cycles(graph(typing_blocks=typing_blocks)) == []


def test_every_dynamic_import_is_readable_or_a_known_lazy_table() -> None:
    unreadable = [
        f"{name}:{line}: {reason}"
        for name in MODULES
        for _, line, reason in _edge_list(name, True)
        if reason is not None and name not in DYNAMIC_OK
    ]
    assert unreadable == []


def _reachable(g: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        v = todo.pop()
        for w in g.get(v, ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


MODEL_MODULES = [
    f"{PACKAGE}._base",
    f"{PACKAGE}._attrs",
    f"{PACKAGE}._fit",
    f"{PACKAGE}.messages",
    f"{PACKAGE}._messages",
    f"{PACKAGE}.control",
    f"{PACKAGE}._control",
    f"{PACKAGE}.hooks",
    f"{PACKAGE}._hooks",
    f"{PACKAGE}.permissions",
    f"{PACKAGE}._permissions",
    f"{PACKAGE}.tool_inputs",
    f"{PACKAGE}._tool_inputs",
    f"{PACKAGE}.tool_outputs",
    f"{PACKAGE}._tool_outputs",
    f"{PACKAGE}.options",
    f"{PACKAGE}.errors",
]


@pytest.mark.parametrize("module", MODEL_MODULES)
def test_model_modules_import_nothing_from_the_protocol_core(module: str) -> None:
    """Not directly, and not through anything they import (``options`` imports ``_schema``)."""
    g = graph(typing_blocks=True)
    closure = {module} | _reachable(g, module)
    assert sorted(m for m in closure if m.startswith(f"{PACKAGE}._protocol")) == []


ASYNC_LIBRARIES = ("anyio", "trio", "asyncio", "sniffio", "mcp", "exceptiongroup")


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if m.startswith(f"{PACKAGE}._protocol"))
)
def test_the_protocol_core_imports_no_async_library(module: str) -> None:
    """``_protocol/`` is sans-IO: it, and everything it imports from the package, loads no
    async library (statically, anywhere in the code), and imports no transport or session."""
    g = graph(typing_blocks=True)
    closure = {module} | _reachable(g, module)
    layers_above = sorted(
        m
        for m in closure
        if m.startswith((f"{PACKAGE}.transports", f"{PACKAGE}.session", f"{PACKAGE}._session"))
    )
    assert layers_above == []
    loaded = sorted(
        f"{m}: {target}"
        for m in closure
        for target, _, _ in _edge_list(m, True)
        if target.split(".")[0] in ASYNC_LIBRARIES
    )
    assert loaded == []


def test_importing_the_protocol_core_loads_no_async_library() -> None:
    """The same, at run time, in a fresh interpreter."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import claude_sdk._protocol.protocol, claude_sdk._protocol.codec\n"
        "import claude_sdk._protocol.framing, claude_sdk._protocol.launch\n"
        "claude_sdk._protocol.codec.default_codec().decode_frame("
        'b\'{"type":"keep_alive"}\')\n'
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {ASYNC_LIBRARIES!r}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
