"""Measure the package's structure: module count, largest modules, import cycles.

Cycles are counted on the module import graph (every import that runs, function-level ones
included; imports only for the type checker, under ``if TYPE_CHECKING:``, are not edges) and
on the graph of the five parts: the core and the four stages. Run it before and after a
refactor: ``python scripts/structure.py`` (``--sizes`` adds every module's line count).
It must run in a fresh interpreter: grimp finds ``tempogen`` through the import system, so
with the package already imported it would walk the installed core alone, not the layout.
"""

from __future__ import annotations

import ast
import json
import sys
import tempfile
from pathlib import Path

import grimp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lint_imports import layout  # noqa: E402

PARTS = ("generators", "editing", "retrieval", "builders")
SOURCE_ROOTS = ("tempogen", *PARTS)  # the folders installed as tempogen and its stages
MAX_LINES = 500  # a module longer than this does more than one job (issue 27)


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in PARTS else "core"


def _sccs(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def measure() -> dict:
    """Module count, the five largest modules by lines, module and part import cycles."""
    with tempfile.TemporaryDirectory() as tmp:
        layout(Path(tmp))
        sys.path.insert(0, tmp)
        g = grimp.build_graph("tempogen", cache_dir=None, exclude_type_checking_imports=True)
        mods = sorted(g.modules)
        if not any(m.startswith("tempogen.generators.") for m in mods):
            raise RuntimeError(f"walked {len(mods)} modules and no stage: run in a fresh process")
        sizes = {}
        for m in mods:
            p = Path(tmp, *m.split("."))
            f = p / "__init__.py" if p.is_dir() else p.with_suffix(".py")
            sizes[m] = len(f.resolve().read_text().splitlines())
        graph = {m: set(g.find_modules_directly_imported_by(m)) for m in mods}
    parts: dict[str, set[str]] = {}
    for m, deps in graph.items():
        if m == "tempogen.cli" or m.startswith("tempogen.cli."):
            continue  # the CLI calls every stage by design
        parts.setdefault(_part(m), set()).update(_part(d) for d in deps if _part(d) != _part(m))
    largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    return {
        "modules": len(mods),
        "largest": [f"{m} ({n} lines)" for m, n in largest],
        "module_cycles": _sccs(graph),
        "part_edges": {k: sorted(v) for k, v in sorted(parts.items())},
        "part_cycles": _sccs(parts),
        "sizes": sizes,
    }


def private_imports(root: Path) -> list[str]:
    """Every ``from x import _name`` in the package's sources under ``root``.

    A private name imported by another module is a seam in the wrong place: the helper it
    names is shared, so it should be public in the module that owns its job.
    """
    found = []
    for top in SOURCE_ROOTS:
        for path in sorted((root / top).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if not isinstance(node, ast.ImportFrom) or node.module == "__future__":
                    continue
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        where = f"{path.relative_to(root).as_posix()}:{node.lineno}"
                        found.append(f"{where}: {alias.name} from {node.module or '.'}")
    return found


def too_long(sizes: dict[str, int], limit: int = MAX_LINES) -> dict[str, int]:
    """Modules (of every stage and the core) longer than ``limit`` lines."""
    return {m: n for m, n in sorted(sizes.items()) if n > limit}


if __name__ == "__main__":
    result = measure()
    if "--sizes" not in sys.argv[1:]:
        result.pop("sizes")
    print(json.dumps(result, indent=1))
