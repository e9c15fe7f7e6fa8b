"""The layout of the documentation site, checked without building it.

* Code blocks fit the page: at a 1280 px viewport mkdocs-material shows both sidebars and the
  content column holds about 80 characters of monospace text, so every line inside a fenced
  code block (any language, snippets included) of every page under docs/ is at most
  ``MAX_CODE_LINE`` characters long, counted from the fence's indentation.
* The ``claude_sdk.options`` page starts with the ``Options`` class.
* Search ranks the guides above the API reference: every page sets ``search: boost:`` in its
  front matter, and each guide's boost is above every other page's (the API reference, the
  Internals pages and the changelog).
* No page cites a file that is not in the site (the shared ``reference/PROTOCOL.md``), and
  neither do the docstrings the API reference renders.

With ``CLAUDE_SDK_DOCS_SITE`` naming a built site (``mkdocs build -d DIR``), the same rules are
also checked on its HTML and search index.
"""

from __future__ import annotations

import html
import importlib
import inspect
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))

#: The longest line a code block may hold (the content column at 1280 px holds about 80).
MAX_CODE_LINE = 79

#: Pages that are neither guides nor API reference: ranked below the guides.
NOT_GUIDES = frozenset({"architecture.md", "protocol-notes.md", "session-files.md", "changelog.md"})

#: A citation of a file that lives outside this repository's site.
OUTSIDE_CITATION = re.compile(r"PROTOCOL\.md|§\s?\d")

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_SNIPPET = re.compile(r"^[ \t]*-{2,}8<-{2,}[ \t]+[\"'](?P<path>[^\"']+)[\"'][ \t]*$")
_DIRECTIVE = re.compile(r"^(?:#{1,6} *)?::: ?(?P<name>\S+) *$")


def _rel(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


def _lines_with_snippets(path: Path, where: str) -> Iterator[tuple[str, str]]:
    """The lines of a page as MkDocs sees them, with ``--8<--`` snippets expanded."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _SNIPPET.match(line)
        if match is None:
            yield line, f"{where}:{number}"
            continue
        # pymdownx.snippets' base_path is the repository's root (mkdocs.yml).
        included = ROOT / match["path"]
        yield from _lines_with_snippets(included, f"{where}:{number} ({match['path']})")


def code_lines(page: Path) -> Iterator[tuple[str, str, str]]:
    """(where, language, line) for every line inside a fenced code block of a page."""
    fence: re.Match[str] | None = None
    for line, where in _lines_with_snippets(page, f"docs/{_rel(page)}"):
        match = _FENCE.match(line)
        if fence is None:
            if match is not None:
                fence = match
            continue
        if (
            match is not None
            and match["fence"][0] == fence["fence"][0]
            and len(match["fence"]) >= len(fence["fence"])
            and not match["info"].strip()
        ):
            fence = None
            continue
        indent = fence["indent"]
        body = line[len(indent) :] if line.startswith(indent) else line.lstrip()
        yield where, fence["info"].strip() or "(no language)", body


def test_the_code_block_scanner_sees_the_blocks() -> None:
    """A broken fence regex would make the width rule vacuous."""
    lines = [line for page in PAGES for line in code_lines(page)]
    assert len(lines) > 500
    assert any(language.startswith("python") for _, language, _ in lines)


def test_code_blocks_fit_the_page_at_1280_px() -> None:
    too_long = [
        f"{where}: {len(line)} characters ({language})"
        for page in PAGES
        for where, language, line in code_lines(page)
        if len(line) > MAX_CODE_LINE
    ]
    assert not too_long, (
        f"{len(too_long)} code block lines are longer than {MAX_CODE_LINE} characters "
        "(they scroll sideways at 1280 px): wrap them\n" + "\n".join(too_long)
    )


def _body(page: Path) -> list[str]:
    """The lines of a page after its front matter."""
    lines = page.read_text(encoding="utf-8").splitlines()
    if lines and lines[0] == "---":
        return lines[lines.index("---", 1) + 1 :]
    return lines


def test_the_options_page_starts_with_the_options_class() -> None:
    page = DOCS / "reference" / "options.md"
    content = [line for line in _body(page) if line.strip()]
    assert content[0].startswith("# "), f"{page}: the page's title comes first"
    directive = _DIRECTIVE.match(content[1])
    wanted = (
        f"{page}: right after the title comes `## ::: claude_sdk.options.Options` "
        f"(its heading and signature first), not {content[1]!r}"
    )
    assert directive is not None, wanted
    assert directive["name"] == "claude_sdk.options.Options", wanted
    names = [m["name"] for line in content if (m := _DIRECTIVE.match(line))]
    assert names == ["claude_sdk.options.Options", "claude_sdk.options"], names


def search_boost(page: Path) -> float | None:
    """``search: boost:`` of a page's front matter (mkdocs-material), or None."""
    lines = page.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] != "---" or "---" not in lines[1:]:
        return None
    front = lines[1 : lines.index("---", 1)]
    for i, line in enumerate(front):
        if line.rstrip() == "search:":
            for child in front[i + 1 :]:
                if not child.startswith((" ", "\t")):
                    break
                key, _, value = child.strip().partition(":")
                if key == "boost":
                    return float(value)
    return None


def _or_default(boost: float | None) -> float:
    return 1.0 if boost is None else boost  # mkdocs-material's default


def _is_guide(page: Path) -> bool:
    rel = _rel(page)
    return not rel.startswith("reference/") and rel not in NOT_GUIDES


def test_every_page_sets_a_search_boost() -> None:
    missing = [
        f"docs/{_rel(page)} (add `search: boost: {2 if _is_guide(page) else 0.5}` front matter)"
        for page in PAGES
        if search_boost(page) is None
    ]
    assert not missing, "pages without a search boost:\n" + "\n".join(missing)


def test_search_ranks_the_guides_above_the_api_reference() -> None:
    boosts = {page: _or_default(search_boost(page)) for page in PAGES}
    guides = {page: boost for page, boost in boosts.items() if _is_guide(page)}
    others = {page: boost for page, boost in boosts.items() if not _is_guide(page)}
    assert any(_rel(page).startswith("reference/") for page in others)
    highest_other = max(others.values())
    too_low = [
        f"docs/{_rel(page)}: boost {boost} (not above {highest_other})"
        for page, boost in guides.items()
        if boost <= highest_other
    ]
    assert not too_low, "guides that search does not rank first:\n" + "\n".join(too_low)


def _site_has(name: str) -> bool:
    return any(DOCS.rglob(name))


def test_no_page_cites_a_file_outside_the_site() -> None:
    if _site_has("PROTOCOL.md"):
        pytest.skip("the site holds PROTOCOL.md")
    cited = [
        f"docs/{_rel(page)}:{number}: {line.strip()}"
        for page in PAGES
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE_CITATION.search(line)
    ]
    assert not cited, (
        "pages cite reference/PROTOCOL.md (or its sections), which is not in the site: "
        "cite a page of the site (protocol-notes.md, guides/wire.md) or the fact itself\n"
        + "\n".join(cited)
    )


def documented_modules() -> list[str]:
    """The modules of the ``:::`` directives of docs/reference/ (not the single objects)."""
    names = []
    for page in sorted((DOCS / "reference").glob("*.md")):
        for line in _body(page):
            match = _DIRECTIVE.match(line)
            if match is None:
                continue
            try:
                importlib.import_module(match["name"])
            except ModuleNotFoundError:
                continue  # an object, such as claude_sdk.options.Options: its module has it
            names.append(match["name"])
    return names


def _docstrings(module_name: str) -> Iterator[tuple[str, str]]:
    """(qualified name, docstring) of a module and of what its API page renders."""
    module = importlib.import_module(module_name)
    yield module_name, module.__doc__ or ""
    # mkdocstrings renders what __all__ names and every public name the module defines.
    names = dict.fromkeys(getattr(module, "__all__", ()))
    for name, obj in vars(module).items():
        if not name.startswith("_") and getattr(obj, "__module__", None) == module_name:
            names[name] = None
    for name in names:
        obj = getattr(module, name, None)
        if not (inspect.isclass(obj) or inspect.isroutine(obj)):
            continue
        yield f"{module_name}.{name}", getattr(obj, "__doc__", None) or ""
        if inspect.isclass(obj):
            for member_name, member in vars(obj).items():
                if member_name.startswith("_"):
                    continue
                target = member.fget if isinstance(member, property) else member
                if inspect.isfunction(target) or isinstance(member, property):
                    yield f"{module_name}.{name}.{member_name}", target.__doc__ or ""


def test_the_api_reference_cites_no_file_outside_the_site() -> None:
    if _site_has("PROTOCOL.md"):
        pytest.skip("the site holds PROTOCOL.md")
    modules = documented_modules()
    assert "claude_sdk.options" in modules
    assert "claude_sdk.messages" in modules
    cited = sorted(
        {
            f"{qualname}: {' '.join(line.split())}"
            for module_name in modules
            for qualname, doc in _docstrings(module_name)
            for line in doc.splitlines()
            if OUTSIDE_CITATION.search(line)
        }
    )
    assert not cited, (
        "docstrings rendered in the API reference cite reference/PROTOCOL.md (or its "
        "sections), which is not in the site:\n" + "\n".join(cited)
    )


# ------------------------------------------------------------------------------------------
# The built site (CLAUDE_SDK_DOCS_SITE=DIR after `mkdocs build -d DIR`)


@pytest.fixture
def site() -> Path:
    built = os.environ.get("CLAUDE_SDK_DOCS_SITE")
    if not built:
        pytest.skip("CLAUDE_SDK_DOCS_SITE does not name a built site")
    path = Path(built)
    assert (path / "search" / "search_index.json").is_file(), f"{path} is not a built site"
    return path


def test_the_built_options_page_starts_with_the_class(site: Path) -> None:
    text = (site / "reference" / "options" / "index.html").read_text(encoding="utf-8")
    first_h2 = re.search(r"<h2\b[^>]*\bid=\"([^\"]+)\"", text)
    assert first_h2 is not None
    assert first_h2[1] == "claude_sdk.options.Options"


def test_the_built_search_index_carries_the_boosts(site: Path) -> None:
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    boosts: dict[str, set[float]] = {}
    for doc in index["docs"]:
        page = doc["location"].split("#")[0] or "index.md"
        boosts.setdefault(page, set()).add(doc.get("boost", 1.0))
    reference = {
        b for page, found in boosts.items() if page.startswith("reference/") for b in found
    }
    guides = {b for page, found in boosts.items() if page.startswith("guides/") for b in found}
    assert reference
    assert guides
    assert min(guides) > max(reference), (guides, reference)


def test_the_built_site_cites_no_file_outside_it(site: Path) -> None:
    if (site / "reference" / "PROTOCOL.md").exists() or any(site.rglob("PROTOCOL*")):
        pytest.skip("the site holds PROTOCOL.md")
    cited = []
    for page in sorted(site.rglob("*.html")):
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))
        for match in OUTSIDE_CITATION.finditer(text):
            context = " ".join(text[max(0, match.start() - 60) : match.end() + 10].split())
            cited.append(f"{page.relative_to(site)}: ...{context}...")
    assert not cited, "the built site cites PROTOCOL.md:\n" + "\n".join(cited)
