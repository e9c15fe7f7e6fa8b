"""Issue 16, items 1 and 2: the distribution's name, its extras, and the hints that name them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import claude_sdk
from claude_sdk._version import DISTRIBUTION, install_hint

ROOT = Path(__file__).resolve().parents[1]
tomllib = pytest.importorskip("tomllib") if sys.version_info >= (3, 11) else None  # 3.11+
PYPROJECT = (
    tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    if tomllib is not None
    else None
)


def _project() -> dict[str, object]:
    if PYPROJECT is None:
        pytest.skip("reading pyproject.toml needs tomllib (Python 3.11+)")
    project: dict[str, object] = PYPROJECT["project"]
    return project


def test_the_distribution_has_its_own_name_and_the_import_name_stays() -> None:
    assert _project()["name"] == DISTRIBUTION == "claude-sdk-py"
    assert claude_sdk.__name__ == "claude_sdk"
    assert install_hint("mcp") == "pip install 'claude-sdk-py[mcp]'"


def test_mcp_is_an_extra_not_a_dependency() -> None:
    project = _project()
    dependencies = project["dependencies"]
    assert isinstance(dependencies, list)
    names = [re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0] for d in dependencies]
    assert "mcp" not in names
    extras = project["optional-dependencies"]
    assert isinstance(extras, dict)
    assert [d for d in extras["mcp"] if d.startswith("mcp")]
    assert {"trio", "otel", "testing", "mcp"} <= set(extras)


def test_no_hint_names_the_placeholder_distribution() -> None:
    """Every install line in the package and the docs names claude-sdk-py, never claude-sdk."""
    stale = re.compile(r"pip install ['\"]?claude-sdk(?![-\w])")
    places = [*ROOT.glob("claude_sdk/**/*.py"), ROOT / "README.md", *ROOT.glob("docs/*.md")]
    found = [str(p) for p in places if stale.search(p.read_text(encoding="utf-8"))]
    assert found == []


def _site_packages_copy(tmp_path: Path, *, placeholder: bool) -> Path:
    """An installed-like copy of the package in ``<tmp>/site-packages``."""
    site = tmp_path / "lib" / "site-packages"
    shutil.copytree(
        ROOT / "claude_sdk", site / "claude_sdk", ignore=shutil.ignore_patterns("*.pyc")
    )
    (site / "claude_sdk_py-0.1.0.dist-info").mkdir()
    if placeholder:
        (site / "claude_sdk-0.0.1.dist-info").mkdir()
    return site


def _import_in(site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONWARNINGS": "default"}
    return subprocess.run(
        [sys.executable, "-c", "import claude_sdk; print(claude_sdk.__file__)"],
        cwd=site.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_another_distribution_providing_claude_sdk_is_reported_at_import(tmp_path: Path) -> None:
    done = _import_in(_site_packages_copy(tmp_path, placeholder=True))
    assert "site-packages" in done.stdout
    assert "RuntimeWarning" in done.stderr
    assert "claude_sdk-0.0.1.dist-info" in done.stderr
    assert "pip uninstall claude-sdk" in done.stderr


def test_an_installed_copy_alone_imports_silently(tmp_path: Path) -> None:
    done = _import_in(_site_packages_copy(tmp_path, placeholder=False))
    assert "site-packages" in done.stdout
    assert done.stderr == ""
