"""Lazy re-exports for the public packages (PEP 562).

A package lists each public name once, as ``from .x import Y as Y`` (or ``from . import x as
x`` for a public submodule) under ``if TYPE_CHECKING:``: that is what type checkers read. Below
the block, a generated section holds the same list for the runtime, ``_LAZY`` (name -> the
module that defines it, relative; ``""`` for a submodule of that name) and ``__all__``;
``python tests/support/gen_exports.py`` writes it and ``tests/test_public_api.py`` fails when
it is stale. Generated rather than parsed at import: parsing the package's source would cost
``ast`` and milliseconds on every start, and a frozen application may ship no source.

`install` gives the package its ``__getattr__`` (import the defining module on first access,
then keep the value) and ``__dir__``. The first access may come from any thread (issue 26): a
thread that asks for a name whose module another thread is importing waits for that import
(the import system's lock of each module), and the package's imports form no cycle
(``tests/test_import_graph.py``), so no thread is handed a half-imported module.
"""

import sys

TYPE_CHECKING = False  # as in `claude_sdk/__init__.py`: no `typing` import for this
if TYPE_CHECKING:
    from types import ModuleType
else:
    ModuleType = type(sys)  # `types` is not loaded at interpreter start

__all__ = ["install"]


def install(namespace: dict[str, object]) -> None:
    """Make the package whose globals are ``namespace`` resolve its ``_LAZY`` names lazily.

    Args:
        namespace: the package's ``globals()``, holding ``__name__``, ``_LAZY`` and
            ``__all__``.
    """
    package = namespace["__name__"]
    assert isinstance(package, str)
    lazy = namespace["_LAZY"]
    assert isinstance(lazy, dict)
    public = namespace["__all__"]
    assert isinstance(public, list)

    def __getattr__(name: str) -> object:  # noqa: N807
        """Import the module that defines ``name`` and keep the value (PEP 562)."""
        module = lazy.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # `__import__`, not `importlib.import_module`: only the former is seen by
        # `python -X importtime`, which would otherwise hide the submodule's own cost.
        if not module:  # a public submodule: importing it binds it on the package
            __import__(f"{package}.{name}")
            return sys.modules[f"{package}.{name}"]
        __import__(f"{package}.{module}")
        value = getattr(sys.modules[f"{package}.{module}"], name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted({*namespace, *public})

    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
    sys.modules[package].__class__ = _Package


class _Package(ModuleType):
    """The module type of a lazy package: a public name is never replaced by the submodule of
    the same name (``claude_sdk.query`` is the function, not ``claude_sdk/query.py``).

    Importing a submodule binds it on its package (``setattr``); eager re-exports used to bind
    the function again afterwards, lazy ones cannot.
    """

    def __setattr__(self, name: str, value: object) -> None:
        lazy = self.__dict__.get("_LAZY", {})
        if lazy.get(name) == name and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Pickled by name, as a plain module is by cloudpickle (Ray, Dask, ...): a function
        # shipped by value that uses `claude_sdk` imports it again on the other side.
        from importlib import import_module

        return import_module, (self.__name__,)
