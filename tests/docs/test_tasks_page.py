"""docs/guide/tasks.md's table of patterns is the registry's: every built-in pattern is named
in its task's row under the renderer that draws it, and nothing else is named there; the mocap
patterns are listed under the table. A pattern added, removed or moved fails here until the
page says so."""

from __future__ import annotations

import re

from kit import REPO

PAGE = REPO / "docs" / "guide" / "tasks.md"
COLUMNS = {"2D shapes": "2d", "simulated humans": "human", "3D objects": "object3d"}


def table_patterns(text: str) -> dict[tuple[str, str], set[str]]:
    """(task, renderer) -> the pattern names (in backticks) the page's table gives there."""
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    out: dict[tuple[str, str], set[str]] = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        task = cells[0].strip("`")
        for name, cell in zip(header, cells, strict=True):
            if name in COLUMNS:
                # the fact a pattern asks, when not the row's first, follows in (`fact`)
                names = re.findall(r"`([a-z0-9_]+)`", re.sub(r"\(`?[a-z]+`?[^)]*\)", "", cell))
                out[(task, COLUMNS[name])] = set(names)
    return out


def registry_patterns() -> tuple[dict[tuple[str, str], set[str]], set[str]]:
    """The same from the registry, and the mocap patterns' names."""
    from tempogen.generators.motion import motions_for
    from tempogen.questions import TASKS

    built: dict[tuple[str, str], set[str]] = {}
    for task in TASKS:
        for renderer in COLUMNS.values():
            built[(task, renderer)] = set()
        for m in motions_for(task):
            built[(task, m.renderer)].add(m.name)
    mocap = {m.name for task in TASKS for m in motions_for(task, sourced=True)}
    return built, mocap


def test_the_tasks_page_names_every_pattern_where_the_registry_has_it() -> None:
    text = PAGE.read_text(encoding="utf-8")
    built, mocap = registry_patterns()
    assert table_patterns(text) == built
    under = text.split("A config with a `mocap:` section", 1)[1].split("\n\n", 1)[0]
    assert set(re.findall(r"`(mocap_[a-z_]+)`", under)) == mocap


def test_a_pattern_missing_from_the_table_is_caught() -> None:
    text = PAGE.read_text(encoding="utf-8").replace("`cube_spin`, ", "", 1)
    built, _ = registry_patterns()
    assert table_patterns(text) != built
