"""Property-based fuzzing of the CLI (issue 25): generated configs, manifest rows, edit
pipelines, prediction files and caption pairs go to the real ``tempogen.cli.main``.

Every case runs the CLI in a forked child of this process (the imports are paid once, so a
case costs milliseconds, not the 3-6 s of a fresh interpreter; one test checks that the fork
answers as ``python -m tempogen.cli`` does). Invariants of every case:

- exit 0, or exit 2 with one message that names a place (a file, a line, a field or option);
- never a traceback;
- nothing written outside ``--out`` (the case's folder is hashed before and after), and so
  no input file changed.

``make test`` runs a small, derandomized budget; ``TEMPOGEN_FUZZ_EXAMPLES=N`` runs N examples
per command with a random seed (RELIABILITY.md records such a run)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fuzz_strategies import (
    CORPUS_BASE,
    PAIR_BASE,
    PREDICTION_BASES,
    config_text,
    corpus_file,
    jsonl_file,
    manifest_row,
    pairs_file,
    pipeline_text,
    predictions,
    tomato_data,
    videott_json,
    vinoground_csv,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from kit import run_forked

# The command modules, imported once here so every forked case reuses them (no torch: it
# comes in a child only, for retrieve; nothing here starts a thread).
import tempogen.builders.audit.validate  # noqa: F401
import tempogen.builders.audit.verify  # noqa: F401
import tempogen.builders.dataset.reading  # noqa: F401
import tempogen.builders.dataset.variants  # noqa: F401
import tempogen.builders.eval.scoring  # noqa: F401
import tempogen.cli  # noqa: F401
import tempogen.config  # noqa: F401
import tempogen.editing  # noqa: F401
import tempogen.generators.build  # noqa: F401
import tempogen.retrieval.audit  # noqa: F401
import tempogen.retrieval.captions  # noqa: F401
import tempogen.retrieval.corpus  # noqa: F401
from tempogen.video import sha256_file, write_video

LARGE = int(os.environ.get("TEMPOGEN_FUZZ_EXAMPLES", "0"))
# A survey (large runs only): broken invariants are appended to this JSONL, and the run goes on
SURVEY = os.environ.get("TEMPOGEN_FUZZ_SURVEY")
CASE_TIMEOUT = 120.0  # a case that runs longer than this hangs: a failure


def budget(small: int, share: float = 1.0) -> Callable:
    """Hypothesis settings: ``small`` derandomized examples, or ``share`` of the large random
    budget (a command that loads a model gets a smaller share)."""
    return settings(
        max_examples=max(small, int(LARGE * share)) if LARGE else small,
        derandomize=not LARGE,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


@dataclass
class Result:
    argv: list[str]
    code: int
    stdout: str
    stderr: str


# Commands that run torch: a child forked from a pytest process whose torch has already
# started its thread pools (any earlier test that embedded a caption) can crash in them (a
# segfault in the ONNX export was seen), so these run as a fresh ``python -m tempogen.cli``.
FRESH_PROCESS = {"retrieve"}


def run_cli(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> Result:
    """``tempogen.cli.main(argv)`` in a forked child with ``cwd`` as its folder: its exit code
    as ``python -m tempogen.cli`` would give it (a return value, ``SystemExit``, or 1 and a
    traceback for an uncaught exception). Commands that run torch get a fresh process."""
    argv = [str(a) for a in argv]
    if argv[0] in FRESH_PROCESS:
        proc = subprocess.run(
            [sys.executable, "-m", "tempogen.cli", *argv], cwd=cwd, env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL, capture_output=True, timeout=CASE_TIMEOUT,
        )  # fmt: skip
        decode = lambda b: b.decode("utf-8", "backslashreplace")  # noqa: E731
        return Result(argv, proc.returncode, decode(proc.stdout), decode(proc.stderr))
    code, out, err = run_forked(argv, cwd, env or {}, CASE_TIMEOUT)
    return Result(argv, code, out, err)


def snapshot(root: Path, skip: Path) -> dict[str, str]:
    """Every file and folder under ``root`` but ``skip``: path -> sha256 (or "dir", "link")."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        if here == skip or skip in here.parents:
            dirnames[:] = []
            continue
        for d in dirnames:
            if here / d != skip:
                seen[str(here / d)] = "dir"
        for f in filenames:
            p = here / f
            seen[str(p)] = "link" if p.is_symlink() else sha256_file(p)
    return seen


def _absolute_targets() -> dict[str, str]:
    """What lies at the absolute paths the strategies offer as names (``/tmp/abs``...)."""
    return {str(p): str(p.stat().st_mtime_ns) for p in Path("/tmp").glob("abs*")}


# a line (``:3``, ``line 3``), an option, a field or key, an index, a file (by its name or as
# an absolute path followed by a colon)
PLACE = re.compile(
    r"line \d+|:\d+|--[a-z]|field|key|\[\d+\]|\.(jsonl|json|yaml|yml|csv|mp4)\b|(^|\s)/[^\s:]+:"
)


AUDITS = {("audit", "verify")}
AUDIT_FAILED = re.compile(r"^DISAGREE |nothing was verified from pixels", re.M)


def check(res: Result, root: Path, out: Path, before: dict[str, str]) -> None:
    """The invariants of every fuzz case."""
    what = f"tempogen {' '.join(res.argv)}\nexit {res.code}\nstderr:\n{res.stderr[-3000:]}"
    assert "Traceback" not in res.stderr, what
    # one exit-code contract (tempogen.errors.EXIT_*, docs/reference/exit-codes.md): 0, or 2
    # for a user's error or an audit's failed verdict, which says what failed; 1 is a bug
    assert res.code in (0, 2), what
    verdict = tuple(res.argv[:2]) in AUDITS and AUDIT_FAILED.search(res.stdout + res.stderr)
    if res.code == 2 and not verdict:
        assert res.stderr.strip(), what
        assert PLACE.search(res.stderr) or any(
            Path(a).name in res.stderr for a in res.argv if "/" in a
        ), "an exit 2 whose message names no file, line or field:\n" + what
    after = snapshot(root, out) | _absolute_targets()
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"written or changed outside --out: {changed}\n{what}"


class Case:
    """A fresh folder per example: inputs written under ``root``, ``root/out`` for outputs.
    ``root`` lies three folders down a fresh temporary folder, ``top``, and all of ``top`` is
    hashed, so a name climbing out of ``--out`` with ``../`` lands where it is seen."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="tempogen-fuzz-")
        self.top = Path(self._tmp.name).resolve()
        self.root = self.top / "a" / "b" / "case"
        self.root.mkdir(parents=True)
        self.out = self.root / "out"

    def write(self, name: str, data: bytes) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def run(self, *argv: object) -> Result:
        before = snapshot(self.top, self.out) | _absolute_targets()
        env = {"TEMPOGEN_CACHE": str(self.out / "cache"), "XDG_CACHE_HOME": str(self.out / "xdg")}
        res = run_cli([str(a) for a in argv], self.root, env)
        try:
            check(res, self.top, self.out, before)
        except AssertionError as exc:
            if not SURVEY:
                raise
            inputs = {
                p.name: p.read_bytes()[:400].decode("utf-8", "backslashreplace")
                for p in self.root.iterdir()
                if p.is_file()
            }
            with open(SURVEY, "a", encoding="utf-8") as f:
                first = str(exc).splitlines()[0] if str(exc) else ""
                row = {"argv": res.argv[:2], "code": res.code, "why": first,
                       "stderr": res.stderr[-600:], "inputs": inputs}  # fmt: skip
                f.write(json.dumps(row) + "\n")
        return res

    def __enter__(self) -> Case:
        return self

    def __exit__(self, *exc: object) -> None:
        self._tmp.cleanup()


# --- shared inputs ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    """One tiny real mp4 (12 frames, 64x48): the video every fuzzed manifest row points at."""
    import numpy as np

    frames = np.zeros((12, 48, 64, 3), np.uint8)
    for i in range(12):
        frames[i, 16:32, 4 * i : 4 * i + 16] = (255, 255, 0)
    path = tmp_path_factory.mktemp("clip") / "clip.mp4"
    write_video(path, frames, fps=6)
    return path


def base_row(clip: Path) -> dict:
    """A valid user record for ``clip``: a square moving right, its direction labelled."""
    return {
        "id": "ext1",
        "video": "videos/clip.mp4",
        "task": "direction",
        "fact": "direction",
        "question": "Which way does the square move?",
        "labels": {"direction": ["right"]},
        "video_sha256": sha256_file(clip),
    }


def with_clip(case: Case, clip: Path) -> None:
    (case.root / "videos").mkdir()
    shutil.copy(clip, case.root / "videos" / "clip.mp4")


# --- the fuzz tests ---------------------------------------------------------------------------


@pytest.mark.slow  # fuzzing: make test runs it; make test-fast keeps the harness checks
@budget(12)
@given(config=config_text())
def test_fuzz_generate_config(config: bytes) -> None:
    """A generated config is checked and planned (``--dry-run``: nothing rendered)."""
    with Case() as case:
        cfg = case.write("config.yaml", config)
        case.run("generate", "--config", cfg, "--out", case.out, "--dry-run", "-q")
        assert not case.out.exists()


@pytest.mark.slow  # fuzzing: make test runs it; make test-fast keeps the harness checks
@budget(10)
@given(data=st.data())
def test_fuzz_manifest_rows(clip: Path, data: st.DataObject) -> None:
    """Manifest rows go to ``validate``, ``audit verify`` and ``edit`` (one file, three commands)."""
    rows = data.draw(jsonl_file(manifest_row(base_row(clip)), max_rows=4), "manifest")
    with Case() as case:
        with_clip(case, clip)
        manifest = case.write("manifest.jsonl", rows)
        pipeline = case.write("p.yaml", b"rev: [reverse]\n")
        case.run("validate", manifest)
        case.run("audit", "verify", "--manifest", manifest, "-q", "--min", "0")
        case.run("edit", "--manifest", manifest, "--pipeline", pipeline, "--out", case.out, "-q")


@pytest.mark.slow  # fuzzing: make test runs it; make test-fast keeps the harness checks
@budget(10)
@given(pipeline=pipeline_text())
@example(pipeline=b"/../../../victim: [reverse]\n")  # issue 25's example of class 1
@example(pipeline=b'"a\\0b": [reverse]\n' + b"x" * 300 + b": [reverse]\n")
def test_fuzz_edit_pipelines(clip: Path, pipeline: bytes) -> None:
    """Generated pipelines on one valid record."""
    with Case() as case:
        with_clip(case, clip)
        manifest = case.write("manifest.jsonl", (json.dumps(base_row(clip)) + "\n").encode())
        p = case.write("p.yaml", pipeline)
        case.run("edit", "--manifest", manifest, "--pipeline", p, "--out", case.out, "-q")


def _tomato(root: Path) -> None:
    options = ["Clockwise.", "Counter-clockwise.", "No rotation."]
    entry = {
        "question": "Which way does it turn?", "options": options, "answer": 0, "key": "rot-0",
        "video_source_url": "", "motion_type": "spin", "demonstration_type": "simulated",
        "variation": {"counterfactual": 0, "composite": 0, "zoom": 0, "first_person": 0},
        "note": "",
    }  # fmt: skip
    (root / "data").mkdir(parents=True)
    (root / "data" / "rotation.json").write_text(json.dumps({"0": entry, "1": entry}))


def _vinoground(root: Path) -> None:
    root.mkdir(parents=True)
    head = "index,major,minor,pos_vid,pos_start,pos_end,pos_cal,neg_vid,neg_start,neg_end,neg_cal"
    row = (
        "0,object,cyclical,yt,0,5,a ball rolls left then right,yt2,0,5,a ball rolls right then left"
    )
    (root / "vinoground.csv").write_text(f"{head}\n{row}\n")


def _videott(root: Path) -> None:
    root.mkdir(parents=True)
    q = {"qid": "fan-p", "kind": "primary", "question": "Which way?", "answer": "Counter-clockwise"}
    videos = [{"video_id": "fan", "video": "videos/fan.mp4", "questions": [q]}]
    (root / "videott.json").write_text(json.dumps(videos))


@pytest.mark.slow  # fuzzing: make test runs it; make test-fast keeps the harness checks
@pytest.mark.parametrize(
    "benchmark,layout",
    [("tomato", _tomato), ("vinoground", _vinoground), ("videott", _videott)],
)
def test_fuzz_eval_predictions(benchmark: str, layout: Callable[[Path], None]) -> None:
    @budget(10)
    @given(preds=predictions(benchmark))
    def fuzz(preds: bytes) -> None:
        with Case() as case:
            layout(case.root / "ds")
            p = case.write("m.jsonl", preds)
            case.run("eval", benchmark, "--dataset", case.root / "ds", "--predictions", p,
                     "--out", case.out / "scores.json")  # fmt: skip

    fuzz()


@pytest.mark.slow  # fuzzing: make test runs it; make test-fast keeps the harness checks
@budget(10)
@given(data=st.data())
def test_fuzz_eval_datasets(data: st.DataObject) -> None:
    """The benchmark side of ``eval``: generated TOMATO data, videott.json, vinoground.csv with
    a valid predictions file; the TOMATO folder also to ``import tomato``."""
    tomato, videott, vino = (
        data.draw(tomato_data()),
        data.draw(videott_json()),
        data.draw(vinoground_csv()),
    )
    with Case() as case:
        case.write("tomato/data/rotation.json", tomato)
        case.write("vtt/videott.json", videott)
        case.write("vino/vinoground.csv", vino)
        for bench, folder in (("tomato", "tomato"), ("videott", "vtt"), ("vinoground", "vino")):
            preds = case.write(
                f"{bench}.jsonl", (json.dumps(PREDICTION_BASES[bench]) + "\n").encode()
            )
            case.run("eval", bench, "--dataset", case.root / folder, "--predictions", preds,
                     "--out", case.out / f"{bench}.json")  # fmt: skip
        case.run("import", "tomato", case.root / "tomato", "--out", case.out / "m.jsonl", "-q")


@pytest.mark.slow  # fuzzing: make test runs it; make test-fast keeps the harness checks
@budget(6)
@given(data=st.data())
def test_fuzz_audit_validity(clip: Path, data: st.DataObject) -> None:
    """Manifest rows to ``audit validity`` (figures written under ``--out``)."""
    rows = data.draw(jsonl_file(manifest_row(base_row(clip)), max_rows=4), "manifest")
    with Case() as case:
        with_clip(case, clip)
        manifest = case.write("manifest.jsonl", rows)
        case.run("audit", "validity", "--manifest", manifest, "--out", case.out / "v.json")


@pytest.mark.slow  # fuzzing: make test runs it; make test-fast keeps the harness checks
@budget(12)
@given(data=st.data())
def test_fuzz_captions_audit(data: st.DataObject) -> None:
    """Caption pairs (JSONL or CSV) to ``captions audit`` with a report under ``--out``."""
    csv = data.draw(st.booleans(), "csv")
    pairs = data.draw(pairs_file(csv=csv), "pairs")
    with Case() as case:
        f = case.write("pairs.csv" if csv else "pairs.jsonl", pairs)
        case.run("captions", "audit", f, "--near-dup", "jaccard", "--report", case.out / "r.jsonl")


VALID_PAIR = json.dumps(PAIR_BASE).encode() + b"\n"


@pytest.mark.slow  # a fresh process per case, loading the embedding model
@budget(1, share=0.05)
@given(pairs=pairs_file(), corpus=corpus_file(), top_k=st.sampled_from([1, 3, 0, -1]))
@example(pairs=VALID_PAIR, corpus=json.dumps(CORPUS_BASE).encode() + b"\n", top_k=2)
@example(pairs=VALID_PAIR + b'{"pos": "a\\u0000b", "neg": ""}\n', corpus=b"\n", top_k=1)
def test_fuzz_retrieve(pairs: bytes, corpus: bytes, top_k: int) -> None:
    """Caption pairs and a ``jsonl:`` corpus to ``retrieve`` (the bundled model; costly, few)."""
    with Case() as case:
        p = case.write("pairs.jsonl", pairs)
        c = case.write("corpus.jsonl", corpus)
        case.run("retrieve", "--pairs", p, "--corpus", f"jsonl:{c}", "--top-k", top_k,
                 "--out", case.out / "cands.jsonl", "--cache-dir", case.out / "cache")  # fmt: skip


def test_fork_runs_what_python_m_runs(clip: Path) -> None:
    """The harness is faithful: a bad and a good case give the exit code, stdout and stderr that
    ``python -m tempogen.cli`` gives."""
    with Case() as case:
        with_clip(case, clip)
        row = base_row(clip)
        good = case.write("good.jsonl", (json.dumps(row) + "\n").encode())
        bad = case.write("bad.jsonl", b'{"id": "x"}\n[\n')
        for manifest in (good, bad):
            forked = case.run("validate", manifest)
            real = subprocess.run(
                [sys.executable, "-m", "tempogen.cli", "validate", str(manifest)],
                cwd=case.root, capture_output=True, text=True, timeout=CASE_TIMEOUT,
            )  # fmt: skip
            assert (forked.code, forked.stdout, forked.stderr) == (
                real.returncode,
                real.stdout,
                real.stderr,
            )
        assert forked.code == 2  # the bad one


def test_harness_catches_each_broken_invariant(tmp_path: Path) -> None:
    """The checker is code too: a traceback, exit 1, a nameless exit 2 and a stray write fail."""
    root = tmp_path
    out = root / "out"
    (root / "in.txt").write_text("x")
    before = snapshot(root, out) | _absolute_targets()
    bad = [
        Result(["x"], 1, "", "Traceback (most recent call last):\n  boom\n"),
        Result(["x"], 1, "", "tempogen: error: in.jsonl line 1: bad\n"),
        Result(["x"], 2, "", "tempogen: error: something is wrong\n"),
    ]
    for res in bad:
        with pytest.raises(AssertionError):
            check(res, root, out, before)
    ok = Result(["x"], 2, "", "tempogen: error: in.jsonl line 3, field 'id': empty\n")
    check(ok, root, out, before)
    out.mkdir()
    (out / "fine.json").write_text("{}")
    check(ok, root, out, before)
    (root / "in.txt").write_text("changed")
    with pytest.raises(AssertionError, match="outside --out"):
        check(ok, root, out, before)
    (root / "in.txt").write_text("x")
    (root / "escaped").write_text("")
    with pytest.raises(AssertionError, match="outside --out"):
        check(ok, root, out, before)


def test_generate_dry_run_plans_and_writes_nothing(tmp_path: Path) -> None:
    """``generate --dry-run`` (what the config fuzz runs): the plan's size, nothing written; a
    bad config is the same exit 2 a build gives."""
    config = Path(__file__).resolve().parents[1] / "configs" / "tiny.yaml"
    res = run_cli(["generate", "--config", config, "--out", tmp_path / "ds", "--dry-run"], tmp_path)
    assert res.code == 0, res.stderr
    assert "24 clips" in res.stdout and "nothing written" in res.stdout
    assert list(tmp_path.iterdir()) == []
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 7\nfps: -3\n")
    res = run_cli(["generate", "--config", bad, "--out", tmp_path / "ds", "--dry-run"], tmp_path)
    assert res.code == 2 and "bad.yaml" in res.stderr and "fps" in res.stderr, res.stderr
    assert not (tmp_path / "ds").exists()


@pytest.mark.parametrize(
    "bench,name",
    [
        ("tomato", "data/rotation.json"),
        ("videott", "videott.json"),
        ("vinoground", "vinoground.csv"),
    ],
)
def test_eval_dataset_not_utf8_is_exit_2_naming_file_and_line(bench: str, name: str) -> None:
    """Found by the fuzz: a benchmark JSON holding a lone surrogate's bytes (or Latin-1) was a
    UnicodeDecodeError traceback from ``eval``; now exit 2 naming the file and line."""
    with Case() as case:
        case.write(f"ds/{name}", b'{"0":\n {"question": "\xed\xa0\x80"}}\n')
        preds = case.write("m.jsonl", (json.dumps(PREDICTION_BASES[bench]) + "\n").encode())
        res = case.run("eval", bench, "--dataset", case.root / "ds", "--predictions", preds)
        assert res.code == 2 and f"{Path(name).name}:2: " in res.stderr, res.stderr
        assert "not UTF-8" in res.stderr, res.stderr
        if bench != "tomato":  # validate reads the same files with its own checkers
            res = case.run("validate", case.root / "ds" / name)
            assert res.code == 2 and f"{Path(name).name}:2: " in res.stderr, res.stderr
            assert "not UTF-8" in res.stderr, res.stderr
