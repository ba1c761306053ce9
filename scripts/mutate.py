"""Mutation testing of the label-critical modules: `make mutate` (MODULES=name,... to pick some).

mutmut 3 names a mutant by the dotted path of its file, and the tests import what it mutated
through ``sys.path``; this repository maps ``tempogen.editing`` to ``editing/`` and so on
(pyproject's ``package-dir``), so neither holds in the checkout. The driver therefore stages a
copy of the tracked tree in the installed layout (``tempogen/editing/...``) under ``--work``,
writes a ``[tool.mutmut]`` section naming one module and the test files that cover it, runs
``mutmut run`` there, and reads mutmut's per-file results. Each mutant runs only the covering
tests of the mutated function (mutmut's own selection), in a forked process.

Per module it prints killed / survived / no tests / other, and the survivors by name; with
``--json`` it writes every figure to a file. Exit 0 when it ran, 1 when a module's run failed.
Modules and their tests are in MODULES below; ``--module NAME=path.py:test1.py,test2.py`` adds
one (the driver's own test uses that).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: mutmut depends on toml there
    import toml as tomllib

ROOT = Path(__file__).resolve().parents[1]

# the fast editing tests: each edit op and the fact algebra through clips and labels
EDITING_TESTS = [
    "tests/editing/test_edit_op_effects.py",
    "tests/editing/test_edit_algebra_kernels.py",
    "tests/editing/test_edit_facts.py",
    "tests/editing/test_edit_ops.py",
    "tests/editing/test_edit_compose.py",
    "tests/editing/test_edit_labels_follow.py",
    "tests/editing/test_edit_refusals.py",
    "tests/editing/test_edit_pipeline.py",
    "tests/editing/test_edit_declarations.py",
    # op parameter refusals and the per-frame meta moves, in-process (the CLI cases are untraced)
    "tests/editing/test_edit_validate_edges.py",
]
CORE_TESTS = ["tests/core/test_core_observe.py", "tests/core/test_core_approach.py"]
OBSERVE_TESTS = CORE_TESTS + [
    "tests/core/test_core_observe_edges.py",
    "tests/editing/test_edit_facts.py",
]
OBSERVE_PARTS = ("motion", "actions", "shapes", "gesture")  # tempogen/observe/*.py with logic

BVH_TESTS = ["tests/generators/test_bvh_map.py", "tests/generators/test_motion_import.py"]

# module name -> (source file in the checkout, the fast test files that cover it)
MODULES: dict[str, tuple[str, list[str]]] = {
    # facts build questions, options and twins: the question and twin tests reach them
    "facts": (
        "tempogen/facts/base.py",
        CORE_TESTS
        + [
            "tests/core/test_core_questions.py",
            "tests/generators/test_twins.py",
            "tests/generators/test_pairs.py",
            "tests/editing/test_edit_declarations.py",
            "tests/core/test_facts_edges.py",
        ],
    ),
    # observe's own edge cases reach the human (gesture, raise) and 3D (approach, depth) paths
    # on hand-built states, so the rendering generator tests are not needed
    "observe": ("tempogen/observe/__init__.py", OBSERVE_TESTS),  # observe(): which facts
    **{f"observe.{part}": (f"tempogen/observe/{part}.py", OBSERVE_TESTS) for part in OBSERVE_PARTS},
    "algebra": ("editing/algebra.py", EDITING_TESTS),
    "answers": (
        "builders/eval/answers.py",
        ["tests/builders/eval/test_answers.py", "tests/builders/eval/test_answers_edges.py"],
    ),
    # which BVH joint plays which SMPL joint, and which rigs are refused as not humanoid: the
    # layouts of test_motion_import and the bent, animal and draft rigs of test_bvh_map
    **{name: (f"generators/{name}.py", BVH_TESTS) for name in ("bvh_map", "humanoid")},
}
# each fact's module (its keys, wording, twins and label kernels): the facts' tests and the
# editing tests, which run every declared fact through its kernels
for _fact in (
    "kernels", "direction", "rotation", "speed", "frequency", "count", "order", "trajectory",
    "more", "faster", "approach", "next_gesture",
):  # fmt: skip
    MODULES[f"facts.{_fact}"] = (f"tempogen/facts/{_fact}.py", MODULES["facts"][1] + EDITING_TESTS)
for _op in ("base", "flip", "joins", "loop", "reverse", "speed", "trim", "view"):
    MODULES[f"ops.{_op}"] = (f"editing/ops/{_op}.py", EDITING_TESTS)
# the ops' own edge cases (tests/editing/ops/test_<op>_edges.py) join their op's set
for _op in ("joins", "view", "base"):
    _src, _tests = MODULES[f"ops.{_op}"]
    MODULES[f"ops.{_op}"] = (_src, [*_tests, f"tests/editing/ops/test_{_op}_edges.py"])
MODULES.update(
    {
        # the row checker fed broken rows in-process (a CLI subprocess is not traced by
        # mutmut, so test_verify_exact.py's CLI cases would select no mutant); a person in
        # noise (the silhouette reader) is test_noise_human's
        "verify": (
            "builders/audit/verify.py",
            [
                "tests/builders/audit/test_verify_edges.py",
                "tests/builders/audit/test_noise_human.py",
            ],
        ),
        # the 2D reader on exact compositor frames, then inside verify on encoded clips
        "pixels": (
            "builders/audit/pixels.py",
            [
                "tests/builders/audit/test_pixels_edges.py",
                "tests/builders/audit/test_verify_edges.py",
            ],
        ),
        # painted frames (milliseconds), one small cube_spin render and the H200's frames;
        # test_verify3d renders every 3D pattern (minutes per mutant)
        "pixels3d": (
            "builders/audit/pixels3d.py",
            [
                "tests/builders/audit/test_pixels3d_edges.py",
                "tests/builders/audit/test_verify_gpu_frames.py",
            ],
        ),
        # the reader's own cases (discs encoded as noise, one rendered spin) and the texture
        # leak; test_noise_verify and test_noise_human build datasets (minutes per mutant)
        "noise": (
            "builders/audit/noise.py",
            [
                "tests/builders/audit/test_noise_reader_edges.py",
                "tests/builders/audit/test_noise_leak.py",
            ],
        ),
        "shortcuts": (
            "builders/audit/shortcuts.py",
            [
                "tests/builders/audit/test_shortcuts_edges.py",
                "tests/builders/audit/test_shortcuts.py",
            ],
        ),
        # the BVH reader on its real files, layouts and broken text (seconds per mutant)
        "bvh_reader": (
            "generators/motion_import/bvh_reader.py",
            ["tests/generators/test_bvh_reader.py"],
        ),
    }
)
# the order `make mutate` runs them in when MODULES is not given: the labels' core first
DEFAULT_ORDER = (
    ["facts", "observe", *(f"observe.{part}" for part in OBSERVE_PARTS), "algebra", "answers"]
    + [m for m in MODULES if m.startswith("ops.")]
    + ["verify", "pixels", "pixels3d", "noise", "shortcuts"]
)

KILLED = {1, 3}  # mutmut: a failing test (1) or pytest's internal error (3) kills a mutant
SURVIVED = {0}
NO_TESTS = {5, 33}


@dataclass
class Result:
    """One module's mutation figures."""

    module: str
    source: str
    killed: list[str] = field(default_factory=list)
    survived: list[str] = field(default_factory=list)
    no_tests: list[str] = field(default_factory=list)
    other: dict[str, int] = field(default_factory=dict)  # mutant -> exit code (timeouts, ...)
    seconds: float = 0.0
    error: str = ""

    @property
    def total(self) -> int:
        return len(self.killed) + len(self.survived) + len(self.no_tests) + len(self.other)

    def score(self) -> float:
        """Killed over killed + survived + no tests (timeouts count as killed by mutmut's rule)."""
        timeouts = sum(1 for c in self.other.values() if c in (36, -24, 24, 152, 255))
        judged = len(self.killed) + timeouts + len(self.survived) + len(self.no_tests)
        return 100.0 * (len(self.killed) + timeouts) / judged if judged else 0.0


def package_dirs(root: Path) -> dict[str, str]:
    """pyproject's package-dir: import name -> folder in the checkout."""
    data = tomllib.loads((root / "pyproject.toml").read_text())
    return data["tool"]["setuptools"]["package-dir"]


def staged_path(rel: str, mapping: dict[str, str]) -> str:
    """Where checkout path ``rel`` lies in the installed layout (``editing/x.py`` ->
    ``tempogen/editing/x.py``); paths outside every package stay where they are."""
    best = ""
    for name, folder in mapping.items():
        folder = folder.rstrip("/")
        if (rel == folder or rel.startswith(folder + "/")) and len(folder) > len(best):
            best = folder
            target = name.replace(".", "/")
    if not best:
        return rel
    return target + rel[len(best) :]


def stage(root: Path, work: Path) -> None:
    """Copy the tracked tree of ``root`` (and untracked, not ignored files) into ``work`` in the
    installed layout."""
    mapping = package_dirs(root)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    if work.exists():
        shutil.rmtree(work)
    for raw in listed:
        rel = raw.decode()
        src = root / rel
        if not rel or not src.is_file():
            continue
        dst = work / staged_path(rel, mapping)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def write_config(work: Path, source: str, tests: list[str], mapping: dict[str, str]) -> None:
    """Append a [tool.mutmut] section for one module to the staged pyproject."""
    staged_source = staged_path(source, mapping)
    top = staged_source.split("/")[0]
    lines = [
        "",
        "[tool.mutmut]",
        f"source_paths = [{json.dumps(top)}]",
        f"only_mutate = [{json.dumps(staged_source)}]",
        "pytest_add_cli_args_test_selection = [" + ", ".join(json.dumps(t) for t in tests) + "]",
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q"]',
        "also_copy = ["
        + ", ".join(
            json.dumps(p.name)
            for p in sorted(work.iterdir())
            if p.name not in (top, "mutants", "pyproject.toml")
        )
        + "]",
    ]
    with open(work / "pyproject.toml", "a") as fh:
        fh.write("\n".join(lines) + "\n")


def read_results(work: Path, module: str, source: str, mapping: dict[str, str]) -> Result:
    """Read mutmut's per-file meta (mutant name -> exit code)."""
    meta = work / "mutants" / (staged_path(source, mapping) + ".meta")
    result = Result(module, source)
    if not meta.exists():
        result.error = f"no results at {meta}"
        return result
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    for name, code in sorted(codes.items()):
        if code in KILLED:
            result.killed.append(name)
        elif code in SURVIVED:
            result.survived.append(name)
        elif code in NO_TESTS:
            result.no_tests.append(name)
        else:
            result.other[name] = code
    return result


def run_module(
    root: Path, module: str, source: str, tests: list[str], work: Path, jobs: int, show: bool
) -> Result:
    """Stage, configure and run mutmut over one module of ``root``; return its figures."""
    mapping = package_dirs(root)
    start = time.monotonic()
    stage(root, work)
    write_config(work, source, tests, mapping)
    # made before mutmut starts: a PYTHONPATH entry missing at start-up would be cached as absent
    (work / "mutants").mkdir()
    env = dict(os.environ)
    # CLI subprocesses started by the tests import the mutated copy too
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [str(work / "mutants"), env.get("PYTHONPATH", "")] if p
    )
    env.setdefault("PYOPENGL_PLATFORM", "egl")
    proc = subprocess.run(
        [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    result = read_results(work, module, source, mapping)
    result.seconds = time.monotonic() - start
    if proc.returncode != 0 and not result.error:
        result.error = f"mutmut exited {proc.returncode}"
    unchecked = sum(1 for code in result.other.values() if code is None)
    if unchecked and not result.error:
        result.error = f"{unchecked} mutants never checked"
    if result.error:
        result.error += "\n" + (proc.stdout[-3000:] + proc.stderr[-3000:])
    if show and result.survived:
        for name in result.survived + result.no_tests:
            diff = subprocess.run(
                [sys.executable, "-m", "mutmut", "show", name],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
            ).stdout
            print(diff, flush=True)
    return result


def parse_extra(specs: list[str]) -> dict[str, tuple[str, list[str]]]:
    """``NAME=source.py:test1.py,test2.py`` -> {NAME: (source, tests)}."""
    out = {}
    for spec in specs:
        name, _, rest = spec.partition("=")
        source, _, tests = rest.partition(":")
        if not (name and source and tests):
            raise SystemExit(f"--module {spec!r}: expected NAME=source.py:test1.py,test2.py")
        out[name] = (source, tests.split(","))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "modules", nargs="*", help=f"modules to run (default: all): {', '.join(DEFAULT_ORDER)}"
    )
    ap.add_argument("--module", action="append", default=[], help="NAME=source.py:test1.py,...")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this one)")
    ap.add_argument("--work", type=Path, default=ROOT / "build" / "mutate")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--json", type=Path, help="write every figure and survivor here")
    ap.add_argument("--show", action="store_true", help="print each survivor's diff")
    args = ap.parse_args(argv)

    table = dict(MODULES)
    extra = parse_extra(args.module)
    table.update(extra)
    names = args.modules or (list(extra) if extra else DEFAULT_ORDER)
    unknown = [n for n in names if n not in table]
    if unknown:
        print(
            f"unknown module(s): {', '.join(unknown)}; known: {', '.join(table)}", file=sys.stderr
        )
        return 2

    results = []
    for name in names:
        source, tests = table[name]
        work = args.work / name.replace(".", "_")
        r = run_module(args.root.resolve(), name, source, tests, work, args.jobs, args.show)
        results.append(r)
        print(
            f"{name:12s} {source:32s} mutants {r.total:4d}  killed {len(r.killed):4d}  "
            f"survived {len(r.survived):3d}  no tests {len(r.no_tests):3d}  "
            f"other {len(r.other):3d}  score {r.score():5.1f}%  {r.seconds:6.0f}s",
            flush=True,
        )
        for s in r.survived:
            print(f"  survived: {s}")
        for s in r.no_tests:
            print(f"  no tests: {s}")
        for s, code in r.other.items():
            print(f"  other ({code}): {s}")
        if r.error:
            print(f"  ERROR: {r.error}", file=sys.stderr)
        if args.json:  # after each module, so a long run's finished modules are kept
            write_json(args.json, results)
    if len(results) > 1:
        killed = sum(len(r.killed) for r in results)
        judged = sum(len(r.killed) + len(r.survived) + len(r.no_tests) for r in results)
        print(f"total: {killed}/{judged} killed ({100.0 * killed / max(judged, 1):.1f}%)")
    return 1 if any(r.error for r in results) else 0


def write_json(path: Path, results: list[Result]) -> None:
    """Every module's figures and survivors, written atomically."""
    payload = [
        {
            "module": r.module,
            "source": r.source,
            "mutants": r.total,
            "killed": r.killed,
            "survived": r.survived,
            "no_tests": r.no_tests,
            "other": r.other,
            "score": round(r.score(), 2),
            "seconds": round(r.seconds, 1),
            "error": r.error,
        }
        for r in results
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    sys.exit(main())
