"""After ``mkdocs build``: every public name has an entry in the API reference.

Reads the site's ``objects.inv`` (the inventory mkdocstrings writes) and checks that each
name in ``__all__`` of ``claude_sdk`` and of every public module documented under
docs/reference/ is there. Exit status 1 lists what is missing.

    python tests/support/check_api_reference.py site/objects.inv
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def inventory(path: Path) -> set[str]:
    data = path.read_bytes()
    header_end = 0
    for _ in range(4):  # four header lines, then the zlib stream
        header_end = data.index(b"\n", header_end) + 1
    text = zlib.decompress(data[header_end:]).decode("utf-8")
    return {line.split(" ", 1)[0] for line in text.splitlines() if line.strip()}


def documented_modules() -> list[str]:
    found = []
    for page in sorted((ROOT / "docs" / "reference").glob("*.md")):
        found += re.findall(r"^::: (claude_sdk[\w.]*)$", page.read_text(), re.MULTILINE)
    return found


def missing(names: set[str]) -> list[str]:
    gaps: list[str] = []
    modules = documented_modules()
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            qualified = f"{module_name}.{name}"
            if qualified not in names:
                gaps.append(qualified)
    import claude_sdk

    for name in claude_sdk.__all__:
        obj = getattr(claude_sdk, name)
        if inspect.ismodule(obj) or isinstance(obj, str):
            continue
        if not any(f"{m}.{name}" in names for m in modules):
            gaps.append(f"claude_sdk.{name} (in no module page)")
    return gaps


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "site/objects.inv")
    names = inventory(path)
    gaps = missing(names)
    for gap in gaps:
        print(f"not in the API reference: {gap}")
    print(f"API reference: {len(names)} entries, {len(gaps)} public names missing")
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main())
