"""The docs tests' shared sandbox template, and their summary: the code blocks a page marks
``<!-- not run: REASON -->``, listed after the run (docs/contributing.md: the test lists them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from docblocks import make_template
from kit import shared_build


@pytest.fixture(scope="session")
def docs_template(tmp_path_factory: Any) -> Path:
    """The sandbox every page's is copied from, its dataset built by ``make dataset`` once per
    test run (shared by pytest-xdist workers)."""
    return shared_build(tmp_path_factory, "docs-sandbox", make_template)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    skipped = [
        value
        for kind in ("passed", "failed")
        for report in terminalreporter.stats.get(kind, [])
        for name, value in getattr(report, "user_properties", [])
        if name == "not run"
    ]
    if skipped:
        terminalreporter.write_sep("-", f"docs: {len(skipped)} code blocks not run")
        for line in sorted(skipped):
            terminalreporter.write_line(line)
