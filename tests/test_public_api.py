"""The public surface: ``__all__`` lists exactly what a package re-exports, and every name
resolves, lazily.

* ``claude_sdk``, ``claude_sdk.transports`` and ``claude_sdk.testing`` import each public name
  on first access (``claude_sdk._exports``). Each name is listed once, as a ``from .x import Y
  as Y`` re-export under ``if TYPE_CHECKING:`` (the redundant alias is what marks a re-export
  for type checkers); the runtime table ``_LAZY`` and ``__all__`` are generated from that
  block (``tests/support/gen_exports.py``), and a test fails when they are stale. Nothing
  but ``__version__`` (and the helper) is imported eagerly.
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
from tests.support import gen_exports
from tests.support.gen_exports import ReExports

PUBLIC_MODULES: list[ModuleType] = [messages, control, hooks, permissions, errors, wire]
MODEL_MODULES = {m.__name__ for m in (messages, control, hooks, permissions, errors)}
#: Where the classes of the model modules are defined (trio's layout: private code, public
#: names): ``claude_sdk._messages`` for ``claude_sdk.messages``, ...
MODEL_MODULES |= {
    f"claude_sdk._{m.__name__.rpartition('.')[2]}" for m in (messages, control, hooks, permissions)
}
LAZY_PACKAGES: list[ModuleType] = [claude_sdk, claude_sdk.transports, claude_sdk.testing]

#: Names a package imports eagerly (everything else is lazy).
EAGER = {"claude_sdk": {"__version__": "_version"}}


def _re_exports(package: ModuleType) -> ReExports:
    """What ``package/__init__.py`` re-exports, read with ``ast``."""
    assert package.__file__ is not None
    return ReExports(Path(package.__file__).read_text(encoding="utf-8"))


def test_the_packages_are_those_the_generator_writes() -> None:
    assert {p.__name__ for p in LAZY_PACKAGES} == set(gen_exports.PACKAGES)


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda m: m.__name__)
def test_the_generated_table_is_current(package: ModuleType) -> None:
    assert package.__file__ is not None
    source = Path(package.__file__).read_text(encoding="utf-8")
    assert gen_exports.regenerate(source) == source, "run: python tests/support/gen_exports.py"


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda m: m.__name__)
def test_all_matches_the_re_exports(package: ModuleType) -> None:
    found = _re_exports(package)
    assert not found.other, f"relative imports in __init__ without 'as <same name>': {found.other}"
    assert found.eager == EAGER.get(package.__name__, {}), "only __version__ is imported eagerly"
    assert package.__all__ == found.public
    assert vars(package)["_LAZY"] == found.lazy


@pytest.mark.parametrize(
    "name", ["history", "policies", "stores", "sync", "telemetry", "testing", "tools", "wire"]
)
def test_public_submodules_resolve_as_attributes(name: str) -> None:
    code = "import json, sys, claude_sdk as cs\n"
    code += f"print(json.dumps(cs.{name} is sys.modules['claude_sdk.{name}']))"
    assert _fresh(code) is True


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
eager, wrong = [], []
for name in package.__all__:
    if name == "__version__":
        continue
    if name in namespace and table[name]:  # (importing a module binds it on its package)
        eager.append(name)
    value = getattr(package, name)
    if table.get(name) == "":
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
    "import claude_sdk": {"claude_sdk", "claude_sdk._exports", "claude_sdk._version"},
    "import claude_sdk.transports": {
        "claude_sdk",
        "claude_sdk._exports",
        "claude_sdk._version",
        "claude_sdk.transports",
    },
    "import claude_sdk.testing.pytest_plugin": {
        "claude_sdk",
        "claude_sdk._exports",
        "claude_sdk._version",
        "claude_sdk._attrs",
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
        # Loaded where they are used (issue 29: the everyday import at most 0.12x the
        # official SDK's): a lease's host name, a retry's jitter, a diskless directory.
        "socket",
        "random",
        "shutil",
        "tempfile",
        "subprocess",  # the watchdog's, loaded when it starts
        "claude_sdk._listing",  # a store's summaries, loaded on the first append
        "claude_sdk.tool_inputs",
        "claude_sdk._mcp_bridge",
    },
    "import claude_sdk.sync": {
        "claude_sdk.session",
        "claude_sdk.messages",
        "claude_sdk._messages",
        "anyio",
    },
    "from claude_sdk import tool": {
        "claude_sdk.messages",
        "claude_sdk._messages",
        "cattrs",
        "anyio",
        "mcp",
    },
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


@pytest.mark.parametrize("public", [messages, control, hooks, permissions])
def test_a_private_model_module_has_every_public_name_in_its_public_module(
    public: ModuleType,
) -> None:
    """The classes live in ``claude_sdk._messages`` (...); the one list of their public
    names is the public module's: a class added there and not listed would be unreachable."""
    private = importlib.import_module(f"claude_sdk._{public.__name__.rpartition('.')[2]}")
    defined = {
        name
        for name, value in vars(private).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == private.__name__
    }
    assert defined  # the check cannot pass on nothing
    for name in defined:
        assert getattr(public, name) is getattr(private, name), name
    assert sorted(defined - set(public.__all__)) == sorted(
        n for n in defined if n in ("UserPayload", "UnknownControlResponse")
    )
