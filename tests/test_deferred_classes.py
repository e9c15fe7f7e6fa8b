"""attrs classes built on first use (`claude_sdk._attrs`; issue 29, items 2 and 4).

The import builds no wire class; the first instance, ``attrs.fields``, ``attrs.has``, a
subclass and the codec each build one, and what a built class does is what attrs would have
made at import. Each check that depends on a fresh process runs in one.
"""

from __future__ import annotations

import copy
import inspect
import pickle
import subprocess
import sys
import textwrap
from typing import Any

import attrs
import pytest

import claude_sdk as cs
from claude_sdk import _attrs, wire
from claude_sdk._base import WireModel, model
from claude_sdk.messages import ResultMessage, Usage

RESULT = (
    b'{"type":"result","subtype":"success","is_error":false,"duration_ms":1,'
    b'"duration_api_ms":1,"num_turns":1,"session_id":"s","total_cost_usd":0.1,'
    b'"usage":{},"later_field":1}'
)


def fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter; its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_import_builds_no_wire_class() -> None:
    out = fresh(
        """
        import claude_sdk.messages, claude_sdk.control, claude_sdk.hooks
        from claude_sdk import _attrs
        import gc
        pending = built = 0
        for cls in gc.get_objects():
            if isinstance(cls, type) and "__deferred_attrs__" in cls.__dict__:
                if isinstance(cls.__dict__.get("__attrs_attrs__"), _attrs._Unbuilt):
                    pending += 1
                else:
                    built += 1
        print(pending, built)
        """
    )
    pending, built = map(int, out.split())
    assert pending > 200  # the three modules hold some 230 classes
    assert built <= 8  # the few a module's own tables read at import (each named in _attrs)


@pytest.mark.parametrize(
    "first_use",
    [
        "Usage(input_tokens=1)",
        "attrs.fields(Usage)",
        "attrs.has(Usage)",
        "attrs.fields_dict(Usage)",
        "wire.decode(RESULT)",
        "pickle.loads(pickle.dumps(Usage.__new__(Usage)))",
    ],
)
def test_each_first_use_builds_the_class(first_use: str) -> None:
    out = fresh(
        f"""
        import attrs, pickle
        from claude_sdk import wire, _attrs
        from claude_sdk.messages import Usage
        RESULT = {RESULT!r}
        before = isinstance(Usage.__dict__["__attrs_attrs__"], _attrs._Unbuilt)
        {first_use}
        print(before, Usage.__attrs_attrs__.__class__.__name__, Usage(input_tokens=2))
        """
    )
    assert out.startswith("True Usage")  # unbuilt before; attrs' attribute tuple after
    assert out.endswith("Usage(input_tokens=2, output_tokens=None, " + out.split(", ", 2)[-1])


def test_a_built_class_is_what_attrs_makes() -> None:
    usage = Usage(input_tokens=3)
    assert [a.name for a in attrs.fields(Usage)][:3] == ["extra", "input_tokens", "output_tokens"]
    assert all(a.kw_only for a in attrs.fields(Usage))
    with pytest.raises(TypeError):
        Usage(3)  # type: ignore[call-arg, arg-type]  # keyword-only
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        usage.input_tokens = 4  # type: ignore[misc]
    assert usage == Usage(input_tokens=3)
    assert usage != Usage(input_tokens=4)
    assert hash(usage) == hash(Usage(input_tokens=3))
    # mypy takes attrs.evolve for attrs' own decorators only (wire.replace is typed)
    evolved = attrs.evolve(usage, output_tokens=5)  # type: ignore[misc]
    assert evolved == Usage(input_tokens=3, output_tokens=5)
    assert "input_tokens" in inspect.signature(Usage).parameters  # the real __init__ now


def test_subclasses_of_an_unbuilt_class() -> None:
    @model
    class Base(WireModel):
        a: int
        b: str | None = None

    @model
    class Child(Base):
        c: int = 0

    class Plain(Base):  # not decorated: Base's __init__, whatever builds first
        pass

    assert isinstance(Child.__dict__["__attrs_attrs__"], _attrs._Unbuilt)
    assert [f.name for f in attrs.fields(Child)] == ["extra", "a", "b", "c"]  # builds Base too
    assert not isinstance(Base.__dict__["__attrs_attrs__"], _attrs._Unbuilt)
    assert Plain(a=1).a == 1
    assert Plain(a=1).b is None
    assert Child(a=1, c=2) == Child(a=1, c=2)


def test_instances_made_before_the_build_keep_their_defaults() -> None:
    """attrs removes the field defaults from a class when it builds it; an instance made
    without ``__init__`` before (unpickled, copied) reads them there. In a fresh process."""
    data = pickle.dumps(wire.decode(RESULT))
    out = fresh(
        f"""
        import pickle, copy
        m = pickle.loads({data!r})
        usage = m.usage  # an empty state: its class is not built yet
        print(m == m, m.uuid, usage.input_tokens, copy.deepcopy(m) == m, m.extra)
        """
    )
    assert out == "True None None True {'later_field': 1}"


def test_copies_in_this_process() -> None:
    m = wire.decode(RESULT)
    assert isinstance(m, ResultMessage)
    assert copy.copy(m) == m
    assert copy.deepcopy(m) == m
    assert pickle.loads(pickle.dumps(m)) == m


def test_replace_keeps_extra_and_names_what_is_wrong() -> None:
    m = wire.decode(RESULT)
    assert isinstance(m, ResultMessage)
    changed = wire.replace(m, num_turns=2)
    assert changed.num_turns == 2
    assert m.num_turns == 1
    assert changed.extra == {"later_field": 1}
    assert wire.to_dict(changed) == {**wire.to_dict(m), "num_turns": 2}
    with pytest.raises(TypeError, match="ResultMessage has no field 'turns'"):
        wire.replace(m, turns=2)
    with pytest.raises(TypeError, match="takes a wire value, not dict"):
        wire.replace({"a": 1}, a=2)


def test_a_class_with_a_factory_default_is_refused_when_built() -> None:
    @model
    class Bad(WireModel):
        items: list[int] = attrs.field(factory=list)

    with pytest.raises(TypeError, match="immutable defaults, not factories"):
        attrs.fields(Bad)


def test_other_attrs_classes_are_deferred_too() -> None:
    fresh_options: Any = fresh(
        """
        from claude_sdk import _attrs
        from claude_sdk.options import Options
        before = isinstance(Options.__dict__["__attrs_attrs__"], _attrs._Unbuilt)
        o = Options(model="m")
        print(before, o.model, o == Options(model="m"))
        """
    )
    assert fresh_options == "True m True"
    assert cs.Options(model="x") == cs.Options(model="x")


def test_threads_using_a_class_first_at_once_all_get_the_built_class() -> None:
    """The stand-ins stay until attrs replaces them: a thread that comes while another builds
    waits, then finds the class built (it once found the base's ``__init__`` in the gap)."""
    out = fresh(
        """
        import sys, threading
        sys.setswitchinterval(1e-6)
        import claude_sdk as cs
        from claude_sdk import control, hooks, messages, permissions
        classes = [
            (permissions.PermissionAllow, {"updated_input": {"a": 1}}),
            (permissions.PermissionDeny, {"message": "no"}),
            (messages.Usage, {"input_tokens": 1}),
            (messages.TextBlock, {"text": "t"}),
            (hooks.HookOutput, {"decision": "block"}),
        ]
        errors, barrier = [], threading.Barrier(16)
        def run():
            barrier.wait()
            for cls, kwargs in classes:
                try:
                    obj = cls(**kwargs)
                    assert all(getattr(obj, k) == v for k, v in kwargs.items())
                except Exception as exc:
                    errors.append(repr(exc))
        threads = [threading.Thread(target=run) for _ in range(16)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        print(errors)
        """
    )
    assert out == "[]"


def test_declared_names_are_attrs_fields_for_every_class() -> None:
    """`declared_names` reads a class's fields without building it (a module's tables at
    import): the same names, in the same order, as attrs gives once it is built."""
    out = fresh(
        """
        import gc, attrs, claude_sdk
        from claude_sdk import _attrs, control, hooks, messages, options, permissions, sandbox
        from claude_sdk import tool_inputs, tool_outputs
        classes = [c for c in gc.get_objects() if isinstance(c, type)
                   and isinstance(c.__dict__.get("__attrs_attrs__"), _attrs._Unbuilt)]
        before = {c: _attrs.declared_names(c) for c in classes}
        wrong = [c.__qualname__ for c, names in before.items()
                 if names != [a.name for a in attrs.fields(c)]]
        print(len(classes), wrong)
        """
    )
    count, wrong = out.split(" ", 1)
    assert int(count) > 300
    assert wrong == "[]"


def test_an_unpickled_instance_builds_its_class() -> None:
    """In a fresh process, two equal Options unpickled before any was made compared unequal
    (the class was not built: no attrs ``__eq__`` yet)."""
    data = pickle.dumps(cs.Options(model="m", max_turns=3))
    out = fresh(
        f"""
        import copy, pickle
        a = pickle.loads({data!r})
        b = pickle.loads({data!r})
        import claude_sdk as cs
        print(a == b, a == cs.Options(model="m", max_turns=3), copy.copy(a) == a, a.model)
        """
    )
    assert out == "True True True m"
