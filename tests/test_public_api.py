"""The public surface: ``__all__`` lists exactly what the package re-exports, and resolves.

* ``claude_sdk.__all__`` equals the set of ``from .x import Y as Y`` re-exports (and
  ``from . import wire as wire``) of ``claude_sdk/__init__.py``, read with ``ast``: the
  redundant alias is what marks a re-export for type checkers, so a name imported another
  way, or listed but not re-exported, is a mistake.
* Every name in the ``__all__`` of the package and of each public module resolves.
* Every exported class of a model module (``messages``, ``control``, ``hooks``,
  ``permissions``, ``errors``) is the very class its module exports.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from types import ModuleType

import pytest

import claude_sdk
from claude_sdk import control, errors, hooks, messages, permissions, wire

INIT = Path(claude_sdk.__file__)
PUBLIC_MODULES: list[ModuleType] = [messages, control, hooks, permissions, errors, wire]
MODEL_MODULES = {m.__name__ for m in (messages, control, hooks, permissions, errors)}


def _re_exports() -> tuple[set[str], list[str]]:
    """(names re-exported by ``claude_sdk/__init__.py``, relative imports that are not)."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    exported: set[str] = set()
    other: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                if alias.asname is not None and alias.asname == alias.name:
                    exported.add(alias.name)
                else:
                    other.append(f"from .{node.module or ''} import {alias.name}")
    return exported, other


def test_all_matches_the_re_exports() -> None:
    exported, other = _re_exports()
    assert not other, f"relative imports in __init__ without 'as <same name>': {other}"
    assert "wire" in exported
    assert "__version__" in exported
    assert exported - {"__version__"} == set(claude_sdk.__all__) - {"__version__"}
    assert "__version__" in claude_sdk.__all__
    assert isinstance(claude_sdk.__version__, str)
    assert claude_sdk.__version__


def test_all_has_no_duplicates() -> None:
    names = claude_sdk.__all__
    assert len(names) == len(set(names)), sorted(n for n in set(names) if names.count(n) > 1)


@pytest.mark.parametrize("name", claude_sdk.__all__)
def test_package_name_resolves(name: str) -> None:
    assert getattr(claude_sdk, name, None) is not None


@pytest.mark.parametrize("module", PUBLIC_MODULES, ids=lambda m: m.__name__)
def test_module_all_resolves(module: ModuleType) -> None:
    names: list[str] = module.__all__
    assert len(names) == len(set(names)), module.__name__
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{module.__name__}.__all__ lists names it does not define: {missing}"


def test_star_import_of_the_package() -> None:
    namespace: dict[str, object] = {}
    exec("from claude_sdk import *", namespace)
    assert set(claude_sdk.__all__) <= set(namespace)


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
