"""The public surface: ``__all__`` lists exactly what a package re-exports, and every name
resolves, lazily.

* ``claude_sdk``, ``claude_sdk.transports`` and ``claude_sdk.testing`` import each public name
  on first access (PEP 562 ``__getattr__``). For each of them, ``__all__`` equals the
  ``from .x import Y as Y`` re-exports of its ``__init__.py`` (read with ``ast``: the
  redundant alias is what marks a re-export for type checkers, which read them under
  ``if TYPE_CHECKING:``), and the runtime table (``_LAZY``, and ``_SUBMODULES`` for
  ``from . import x as x``) names the same module for every name: none is missing from
  either. Nothing but ``__version__`` is imported eagerly.
* In a fresh interpreter, every name of ``__all__`` resolves through the lazy path (it is not
  there before the first access) to the very object its module defines, ``from package
  import name`` and ``from package import *`` give the same objects, and the submodule
  ``claude_sdk.query`` never hides the function ``claude_sdk.query``.
* What an import loads is pinned where it matters for import time: ``import claude_sdk``
  loads nothing else, the pytest plugin loads no SDK module at collection, the session
  does not load SSH, container or memory transports.
* Every name in the ``__all__`` of each public module resolves; every exported class of a
  model module (``messages``, ``control``, ``hooks``, ``permissions``, ``errors``) is the
  very class its module exports.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import claude_sdk
import claude_sdk.testing
import claude_sdk.transports
from claude_sdk import control, errors, hooks, messages, permissions, wire

PUBLIC_MODULES: list[ModuleType] = [messages, control, hooks, permissions, errors, wire]
MODEL_MODULES = {m.__name__ for m in (messages, control, hooks, permissions, errors)}
LAZY_PACKAGES: list[ModuleType] = [claude_sdk, claude_sdk.transports, claude_sdk.testing]

#: Names a package imports eagerly (everything else is lazy).
EAGER = {"claude_sdk": {"__version__": "_version"}}


def _re_exports(package: ModuleType) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """What ``package/__init__.py`` re-exports, read with ``ast``.

    Returns:
        (re-exports under ``if TYPE_CHECKING:``, eager re-exports, relative imports that
        are not re-exports); a re-export maps the name to its module, relative (``""``
        for ``from . import x as x``).
    """
    assert package.__file__ is not None
    tree = ast.parse(Path(package.__file__).read_text(encoding="utf-8"))
    typing_only: dict[str, str] = {}
    eager: dict[str, str] = {}
    other: list[str] = []

    def visit(body: list[ast.stmt], found: dict[str, str]) -> None:
        for node in body:
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                visit(node.body, typing_only)
            elif isinstance(node, ast.ImportFrom) and node.level == 1:
                for alias in node.names:
                    if alias.asname is not None and alias.asname == alias.name:
                        assert alias.name not in found, f"{alias.name} re-exported twice"
                        found[alias.name] = node.module or ""
                    else:
                        other.append(f"from .{node.module or ''} import {alias.name}")

    visit(tree.body, eager)
    return typing_only, eager, other


def _runtime_table(package: ModuleType) -> dict[str, str]:
    """The table the package's ``__getattr__`` imports from, in the form of `_re_exports`."""
    namespace = vars(package)
    table: dict[str, str] = dict(namespace["_LAZY"])
    table.update(dict.fromkeys(namespace.get("_SUBMODULES", ()), ""))
    return table


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda m: m.__name__)
def test_all_matches_the_re_exports(package: ModuleType) -> None:
    typing_only, eager, other = _re_exports(package)
    assert not other, f"relative imports in __init__ without 'as <same name>': {other}"
    assert eager == EAGER.get(package.__name__, {}), "only __version__ is imported eagerly"
    assert not set(typing_only) & set(eager)
    assert set(typing_only) | set(eager) == set(package.__all__)


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda m: m.__name__)
def test_the_lazy_table_matches_the_type_checking_imports(package: ModuleType) -> None:
    typing_only, _, _ = _re_exports(package)
    table = _runtime_table(package)
    assert sorted(set(typing_only) - set(table)) == [], "missing from the lazy table"
    assert sorted(set(table) - set(typing_only)) == [], "missing under TYPE_CHECKING"
    assert {n: m for n, m in table.items() if typing_only[n] != m} == {}, "other module"


def test_the_version() -> None:
    assert "__version__" in claude_sdk.__all__
    assert isinstance(claude_sdk.__version__, str)
    assert claude_sdk.__version__


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda m: m.__name__)
def test_all_has_no_duplicates(package: ModuleType) -> None:
    names: list[str] = package.__all__
    assert len(names) == len(set(names)), sorted(n for n in set(names) if names.count(n) > 1)


@pytest.mark.parametrize("name", claude_sdk.__all__)
def test_package_name_resolves(name: str) -> None:
    assert getattr(claude_sdk, name, None) is not None


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda m: m.__name__)
def test_dir_and_unknown_names(package: ModuleType) -> None:
    assert set(package.__all__) <= set(dir(package))
    assert "__name__" in dir(package)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = package.no_such_name
    assert not hasattr(package, "NoSuchName")


@pytest.mark.parametrize(
    "module", [*PUBLIC_MODULES, claude_sdk.transports, claude_sdk.testing], ids=lambda m: m.__name__
)
def test_module_all_resolves(module: ModuleType) -> None:
    names: list[str] = module.__all__
    assert len(names) == len(set(names)), module.__name__
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{module.__name__}.__all__ lists names it does not define: {missing}"


def test_star_import_of_the_package() -> None:
    namespace: dict[str, object] = {}
    exec("from claude_sdk import *", namespace)
    assert set(claude_sdk.__all__) <= set(namespace)


# --------------------------------------------------------------------------------------
# In a fresh interpreter: the lazy path itself, and what each import loads


def _fresh(code: str, *args: str) -> object:
    """Run ``code`` in a fresh interpreter; the JSON it prints last."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


RESOLVE = """
import json, sys

package = __import__(sys.argv[1], fromlist=["__all__"])
namespace = vars(package)
table = namespace["_LAZY"]
submodules = namespace.get("_SUBMODULES", ())
eager, wrong = [], []
for name in package.__all__:
    if name == "__version__":
        continue
    if name in namespace:
        eager.append(name)
    value = getattr(package, name)
    if name in submodules:
        expected = sys.modules[f"{package.__name__}.{name}"]
    else:
        expected = getattr(sys.modules[f"{package.__name__}.{table[name]}"], name)
    imported = {}
    exec(f"from {package.__name__} import {name} as value", imported)
    if value is None or value is not expected or imported["value"] is not expected:
        wrong.append(name)
star = {}
exec(f"from {package.__name__} import *", star)
missing = sorted(set(package.__all__) - set(star))
wrong += [n for n in package.__all__ if n in star and star[n] is not getattr(package, n)]
print(json.dumps({"eager": eager, "wrong": wrong, "missing_from_star": missing}))
"""


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda m: m.__name__)
def test_every_name_resolves_lazily_in_a_fresh_interpreter(package: ModuleType) -> None:
    result = _fresh(RESOLVE, package.__name__)
    assert result == {"eager": [], "wrong": [], "missing_from_star": []}


QUERY = """
import json, sys
import claude_sdk.query  # binds the submodule on the package, which must not take the name
import claude_sdk.sync
import claude_sdk

function = sys.modules["claude_sdk.query"].query
from claude_sdk import query
print(json.dumps([claude_sdk.query is function, query is function, callable(query)]))
"""


def test_the_query_submodule_never_hides_the_query_function() -> None:
    assert _fresh(QUERY) == [True, True, True]
    assert claude_sdk.query is sys.modules["claude_sdk.query"].query
    assert inspect.isfunction(claude_sdk.query)


LOADED = """
import json, sys
{statement}
print(json.dumps(sorted(sys.modules)))
"""

#: The SDK's own modules each statement may load.
ONLY = {
    "import claude_sdk": {"claude_sdk", "claude_sdk._version"},
    "import claude_sdk.transports": {
        "claude_sdk",
        "claude_sdk._version",
        "claude_sdk.transports",
    },
    "import claude_sdk.testing.pytest_plugin": {
        "claude_sdk",
        "claude_sdk._version",
        "claude_sdk.testing",
        "claude_sdk.testing.pytest_plugin",
    },
}

#: Modules each statement must not load.
NOT = {
    "import claude_sdk": {"attrs", "anyio", "cattrs", "mcp"},
    "from claude_sdk import open_session, Options": {
        "mcp",
        "claude_sdk.transports.ssh",
        "claude_sdk.transports.container",
        "claude_sdk.transports._remote",
        "claude_sdk.transports.memory",
        "claude_sdk.testing",
        "claude_sdk.sync",
        "claude_sdk.pool",
        # Loaded on first use (issue 8: each costs milliseconds of every program's start).
        "cattrs",
        "secrets",
        "claude_sdk.tool_inputs",
        "claude_sdk._mcp_bridge",
    },
    "import claude_sdk.sync": {"claude_sdk.session", "claude_sdk.messages", "anyio"},
    "from claude_sdk import tool": {"claude_sdk.messages", "cattrs", "anyio", "mcp"},
    # A worker reads its steps before it opens a session: no session, store or transport yet.
    "from claude_sdk import read_steps": {
        "mcp",
        "cattrs",
        "claude_sdk.session",
        "claude_sdk.options",
        "claude_sdk.stores",
        "claude_sdk.transports",
    },
}


@pytest.mark.parametrize("statement", sorted({*ONLY, *NOT}))
def test_what_an_import_loads(statement: str) -> None:
    loaded = _fresh(LOADED.format(statement=statement))
    assert isinstance(loaded, list)
    if statement in ONLY:
        ours = {m for m in loaded if m == "claude_sdk" or m.startswith("claude_sdk.")}
        assert sorted(ours - ONLY[statement]) == []
    assert sorted(NOT.get(statement, set()) & set(loaded)) == []


# --------------------------------------------------------------------------------------
# Model classes


#: Exported classes defined in a model module (other classes may live in private modules).
EXPORTED_MODEL_CLASSES = [
    name
    for name in claude_sdk.__all__
    if inspect.isclass(getattr(claude_sdk, name))
    and getattr(claude_sdk, name).__module__ in MODEL_MODULES
]


def test_model_classes_are_exported() -> None:
    # a few from each model module, so the parametrisation below cannot silently go empty
    for name in ("AssistantMessage", "ControlRequest", "HookOutput", "PermissionAllow"):
        assert name in EXPORTED_MODEL_CLASSES
    assert "ClaudeSDKError" in EXPORTED_MODEL_CLASSES


@pytest.mark.parametrize("name", EXPORTED_MODEL_CLASSES)
def test_exported_class_is_importable_from_its_module(name: str) -> None:
    cls = getattr(claude_sdk, name)
    module = importlib.import_module(cls.__module__)
    assert getattr(module, name) is cls
    assert name in module.__all__
    namespace: dict[str, object] = {}
    exec(f"from claude_sdk import {name}\nfrom {cls.__module__} import {name} as other", namespace)
    assert namespace[name] is namespace["other"] is cls
