"""MkDocs hook: the table of the top-level names, made from ``claude_sdk.__all__`` at build time.

Each name links to its entry in its home module's page, so a name added to the package shows
up here without an edit, and a name whose home has no page fails the strict build.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

PLACEHOLDER = "<!-- top-level-names -->"


def _home(name: str, obj: Any) -> str:
    module = getattr(obj, "__module__", None)
    if inspect.ismodule(obj):
        return obj.__name__
    if not isinstance(module, str) or not module.startswith("claude_sdk"):
        return "claude_sdk"
    # A private module's name is documented where the public module re-exports it.
    parts = module.split(".")
    while len(parts) > 1 and parts[-1].startswith("_"):
        parts.pop()
    public = ".".join(parts)
    if public == "claude_sdk":
        for candidate in (
            "messages",
            "control",
            "hooks",
            "permissions",
            "errors",
            "options",
        ):
            mod = importlib.import_module(f"claude_sdk.{candidate}")
            if name in getattr(mod, "__all__", ()):
                return mod.__name__
    return public


def _summary(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ").replace("|", "\\|")


def on_page_markdown(markdown: str, **_: Any) -> str:
    if PLACEHOLDER not in markdown:
        return markdown
    import claude_sdk

    rows = ["| name | what |", "| --- | --- |"]
    for name in claude_sdk.__all__:
        obj = getattr(claude_sdk, name)
        if inspect.ismodule(obj):
            rows.append(f"| `{name}` | the `{obj.__name__}` module |")
            continue
        if isinstance(obj, (str, int, float, tuple)):
            rows.append(f"| `{name}` | `{obj!r}` |")
            continue
        home = _home(name, obj)
        rows.append(f"| [`{name}`][{home}.{name}] | {_summary(obj)} |")
    return markdown.replace(PLACEHOLDER, "\n".join(rows))
