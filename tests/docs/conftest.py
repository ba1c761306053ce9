"""The docs tests' summary: the code blocks a page marks ``<!-- not run: REASON -->``, listed
after the run (docs/contributing.md: the test lists them)."""

from __future__ import annotations

from typing import Any


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
