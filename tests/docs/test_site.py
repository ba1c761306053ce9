"""The documentation site: every page under docs/ is in mkdocs.yml's nav and every nav entry is
a page, and ``mkdocs build --strict`` (what ``make docs`` and CI run) passes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from docblocks import link_venv
from kit import REPO


def nav_pages(nav: Any) -> list[str]:
    """The Markdown pages a MkDocs nav lists (links to other sites left out), in order."""
    if isinstance(nav, str):
        return [] if "://" in nav else [nav]
    if isinstance(nav, list):
        return [p for item in nav for p in nav_pages(item)]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in nav_pages(value)]
    raise ValueError(f"not a nav entry: {nav!r}")


def nav_problems(config: Path) -> list[str]:
    """Pages under the config's docs_dir missing from its nav, and nav entries that are no
    page there or are listed twice."""
    data = yaml.load(config.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    docs = config.parent / data.get("docs_dir", "docs")
    listed = nav_pages(data.get("nav", []))
    pages = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")}
    problems = [f"{config.name}: nav lists {p}, which is not a page in {docs.name}/"
                for p in listed if p not in pages]  # fmt: skip
    problems += [f"{config.name}: nav lists {p} twice" for p in sorted(set(listed))
                 if listed.count(p) > 1]  # fmt: skip
    problems += [f"{docs.name}/{p} is not in {config.name}'s nav" for p in sorted(pages)
                 if p not in listed]  # fmt: skip
    return problems


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of ``config`` into ``site``, as ``make docs`` runs it."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict",
         "--config-file", str(config), "--site-dir", str(site)],
        cwd=config.parent, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page() -> None:
    assert nav_problems(REPO / "mkdocs.yml") == []


def test_the_site_builds_strict(tmp_path: Path) -> None:
    proc = mkdocs_build(REPO / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "site" / "contributing" / "index.html").exists()


def _site(root: Path, pages: dict[str, str], nav: list[Any]) -> Path:
    """A minimal site: pages under root/docs and a mkdocs.yml listing ``nav``."""
    for name, text in pages.items():
        (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / name).write_text(text, encoding="utf-8")
    config = root / "mkdocs.yml"
    config.write_text(yaml.safe_dump({"site_name": "t", "docs_dir": "docs", "nav": nav}))
    return config


def test_nav_problems_names_a_page_left_out_a_missing_page_and_a_repeat(tmp_path: Path) -> None:
    config = _site(
        tmp_path,
        {"index.md": "# i\n", "guide/a.md": "# a\n", "orphan.md": "# o\n"},
        [{"Home": "index.md"}, {"Guide": [{"A": "guide/a.md"}, "gone.md", "index.md"]},
         {"Site": "https://example.com/"}],
    )  # fmt: skip
    assert nav_problems(config) == [
        "mkdocs.yml: nav lists gone.md, which is not a page in docs/",
        "mkdocs.yml: nav lists index.md twice",
        "docs/orphan.md is not in mkdocs.yml's nav",
    ]


@pytest.mark.parametrize("link", ["[b](b.md)", "[b](missing.md)"], ids=["good", "broken"])
def test_a_broken_relative_link_fails_make_docs(link: str, tmp_path: Path) -> None:
    """The Makefile's own docs target, run on a small site beside this environment: a broken
    link fails it (under ``--quiet`` MkDocs drops the warning before ``--strict`` counts it)."""
    config = _site(tmp_path, {"index.md": f"# i\n\nSee {link}.\n", "b.md": "# b\n"},
                   [{"Home": "index.md"}, {"B": "b.md"}])  # fmt: skip
    shutil.copy2(REPO / "pyproject.toml", tmp_path / "pyproject.toml")  # setup's prerequisite
    link_venv(tmp_path / ".venv")  # installed: setup does nothing
    proc = subprocess.run(
        ["make", "-f", str(REPO / "Makefile"), "docs"], cwd=config.parent, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    if "missing" in link:
        assert proc.returncode != 0
        assert "'missing.md', but the target is not found" in proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
        assert (tmp_path / "site" / "b" / "index.html").exists()
