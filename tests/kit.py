"""The test kit: what many test files need the same way (``from kit import ...``; ``tests/`` is
on the import path through its conftest)."""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tempogen.manifest import Row

REPO = Path(__file__).resolve().parents[1]

# The lmms-eval task names its own folder's absolute path (datasets resolves it from the cwd):
# the one file of a build whose bytes depend on where the build lies.
NAMES_ITS_FOLDER = "lmms_eval/tempogen_tomato/tempogen_tomato.yaml"


def run_cli(
    *args: str | Path,
    cwd: Path | None = REPO,
    pythonpath: str | None = None,
    env: Mapping[str, str | None] | None = None,
    timeout: float = 300,
    check: bool = False,
    preexec_fn: Callable[[], Any] | None = None,
    fork: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``python -m tempogen.cli ARGS`` in a fresh process (nothing imported yet) run from
    ``cwd`` (None: this process's); ``pythonpath`` replaces PYTHONPATH ("" clears it), ``env``
    adds variables (a None value removes one); ``check`` raises on a non-zero exit.

    ``fork``: ``tempogen.cli.main(ARGS)`` in a child forked from this process instead, which
    answers as the fresh process does (exit code, stdout, stderr, a traceback for an uncaught
    exception) in milliseconds rather than seconds of imports. Only for tests of what a
    command does: one that tests imports, plugins loaded from the path, or torch (its thread
    pools do not survive a fork) keeps the fresh process."""
    if fork:
        assert pythonpath is None and preexec_fn is None, "a forked run keeps this process's path"
        code, out, err = run_forked([str(a) for a in args], cwd or Path.cwd(), env or {}, timeout)
        res = subprocess.CompletedProcess(["tempogen", *map(str, args)], code, out, err)
        if check:
            res.check_returncode()
        return res
    environ = dict(os.environ)
    if pythonpath is not None:
        environ.pop("PYTHONPATH", None)
        if pythonpath:
            environ["PYTHONPATH"] = pythonpath
    for key, value in (env or {}).items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value
    return subprocess.run(
        [sys.executable, "-m", "tempogen.cli", *map(str, args)],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
        preexec_fn=preexec_fn,
    )


tempogen = run_cli  # the name the first kit users import


# What the commands import, imported in this process before a fork so no child pays for it
# (no torch: a child forked after torch started its thread pools can crash in them).
PRELOAD = (
    "tempogen.cli",
    "tempogen.config",
    "tempogen.editing",
    "tempogen.generators.build",
    "tempogen.builders.audit.validate",
    "tempogen.builders.audit.verify",
    "tempogen.builders.dataset.reading",
    "tempogen.builders.dataset.variants",
    "tempogen.builders.eval.scoring",
    "tempogen.retrieval.audit",
    "tempogen.retrieval.captions",
    "tempogen.retrieval.corpus",
)


def _as_a_fresh_interpreter() -> None:
    """In a forked child: warnings and logging as a fresh ``python`` has them, not as pytest
    set them (pytest records warnings and captures log records; the child must print both to
    its stderr, where a test reads them)."""
    import logging
    import warnings

    warnings.resetwarnings()
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category, append=True)
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")

    def show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        """Python's own printing of a warning (pytest's recorder replaced it)."""
        text = warnings.formatwarning(message, category, filename, lineno, line)
        (file or sys.stderr).write(text)

    warnings.showwarning = show
    for handler in list(logging.root.handlers):
        logging.root.removeHandler(handler)


def run_forked(
    argv: list[str], cwd: Path, env: Mapping[str, str | None], timeout: float
) -> tuple[int, str, str]:
    """``tempogen.cli.main(argv)`` in a forked child run from ``cwd`` with ``env`` added (a
    None value removes a variable): its exit code as ``python -m tempogen.cli`` would give it
    (a return value, ``SystemExit``, or 1 and a traceback for an uncaught exception), stdout
    and stderr. A child still running after ``timeout`` seconds is killed: a failure."""
    import io
    import signal
    import tempfile
    import time
    import traceback

    import pytest

    for module in PRELOAD:  # once per process: every forked child then starts with them
        importlib.import_module(module)
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code: object = 1
        try:
            os.chdir(cwd)
            for key, value in env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), write_through=True)
            sys.stderr = io.TextIOWrapper(
                os.fdopen(2, "wb", closefd=False), write_through=True, errors="backslashreplace"
            )
            sys.stdin = io.StringIO("")
            _as_a_fresh_interpreter()
            try:
                from tempogen.cli import main

                code = main(argv)
            except SystemExit as exc:
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
                    code = 1
            except BaseException:  # what the interpreter would do with it
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else 1)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail(f"tempogen {' '.join(argv)}: still running after {timeout:.0f} s")
        time.sleep(0.01)
    texts = []
    for f in (out, err):
        f.seek(0)
        texts.append(f.read().decode("utf-8", "backslashreplace"))
        f.close()
    return os.waitstatus_to_exitcode(status), texts[0], texts[1]


def build_files(
    root: Path, *, hidden: bool = False, ignore: Collection[str] = ()
) -> dict[str, bytes]:
    """Every file under ``root`` by its POSIX path relative to ``root``, with its bytes.
    Without ``hidden``, a path with any part starting with "." is left out (a build's lock,
    journal and temp files); ``ignore`` leaves out the paths, or file names, it lists."""
    out: dict[str, bytes] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if not p.is_file() or rel.as_posix() in ignore or p.name in ignore:
            continue
        if not hidden and any(part.startswith(".") for part in rel.parts):
            continue
        out[rel.as_posix()] = p.read_bytes()
    return out


def differing(got: Mapping[str, bytes], want: Mapping[str, bytes]) -> list[str]:
    """The paths whose bytes differ between two builds' files (asserting both hold the same
    paths); the file that names its folder (``NAMES_ITS_FOLDER``) is compared by name only."""
    assert sorted(got) == sorted(want)
    return [k for k in want if k != NAMES_ITS_FOLDER and got[k] != want[k]]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Rows as JSON lines at ``path``; the path."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _run_folder(tmp_path_factory: Any) -> Path:
    """The folder of this test run that every pytest-xdist worker sees (the base temp folder
    without xdist; its parent, which holds each worker's, with it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def run_lock(tmp_path_factory: Any, name: str) -> Iterator[None]:
    """An exclusive lock named ``name`` across this run's pytest-xdist workers."""
    with open(_run_folder(tmp_path_factory) / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def shared_build(tmp_path_factory: Any, name: str, make: Callable[[Path], object]) -> Path:
    """The folder ``name`` that ``make(folder)`` fills, made once per test run: under
    pytest-xdist the workers share it (the first one makes it, under a file lock; the others
    wait, then read it), so a session-wide build is paid once, not once per worker. Read only:
    a test that changes it copies it first."""
    base = _run_folder(tmp_path_factory)
    folder, done = base / f"shared-{name}", base / f"shared-{name}.done"
    with run_lock(tmp_path_factory, f"shared-{name}"):
        if not done.exists():
            if folder.exists():  # a worker that failed to make it: start afresh
                shutil.rmtree(folder)
            make(folder)
            done.touch()
    return folder


def certify_default_questions(shard: int, shards: int) -> None:
    """Every ``shards``-th spec of configs/default.yaml's plan, from ``shard``: its labels
    give its answer at TOMATO's 16 samples and at Video-TT's 80, and none at one frame. The
    plan is cut in shards so that test files on both pytest-xdist workers share the work
    (tests/generators/test_patterns.py and test_default_certifies.py hold one half each)."""
    import numpy as np

    from tempogen import observe
    from tempogen.config import load_config
    from tempogen.facts import answer_of
    from tempogen.generators.build import plan, spec_labels
    from tempogen.generators.motion import SAMPLES, get_motion
    from tempogen.questions import answer_key

    specs = plan(load_config(REPO / "configs" / "default.yaml"))
    assert len(specs) >= 360
    for spec in specs[shard::shards]:
        labels, _, _ = spec_labels(spec)
        idx = observe.uniform_indices(labels.num_frames, SAMPLES)
        fact = get_motion(spec.motion).fact
        assert answer_key(fact, answer_of(labels, idx)) == spec.answer_key, spec.id
        assert answer_of(labels, np.array([0])) is None
        at80 = observe.uniform_indices(labels.num_frames, min(80, labels.num_frames))
        assert answer_key(fact, answer_of(labels, at80)) == spec.answer_key, spec.id


# hand positions per gesture in a body 40 px across the shoulders (shoulders at y 50, the top
# of the head 35 px above them, the midline at x 100; image y is down); the person's left hand
# on screen right. The gesture readers' tests in tests/core share it.
GESTURE_AT = {
    None: ((112.0, 100.0), (88.0, 100.0)),
    "left_up": ((112.0, 5.0), (88.0, 100.0)),
    "right_up": ((112.0, 100.0), (88.0, 5.0)),
    "both_up": ((112.0, 5.0), (88.0, 5.0)),
    "clap": ((104.0, 62.0), (96.0, 62.0)),
    "arms_out": ((170.0, 52.0), (30.0, 52.0)),
}


def manifest_row(*, num_frames: int = 8, **fields: Any) -> Row:
    """A complete, valid manifest :class:`~tempogen.manifest.Row` (it passes ``validate_row``):
    a square moving right over ``num_frames`` frames, asked which way it moves. Any field is
    overridden by keyword; ``answer_text`` (and ``answer_key`` when ``option_keys`` is given)
    follow ``options`` and ``answer`` unless given. Tests build rows here rather than as partial
    dicts, so a stage reading ``row.labels`` or ``row.seed`` meets what a build writes."""
    from tempogen.manifest import Row

    options = list(fields.pop("options", ["Leftwards.", "Rightwards.", "Upwards."]))
    answer = fields.pop("answer", 1)
    n = num_frames
    track = {
        "name": "square", "role": "target", "shape": "square",
        "x": [10.0 + 4 * i for i in range(n)], "y": [48.0] * n, "angle": [0.0] * n,
        "scale": [1.0] * n, "visible": [1.0] * n, "lit": [0.0] * n,
    }  # fmt: skip
    row: dict[str, Any] = {
        "id": "direction-0000",
        "video": "videos/direction-0000.mp4",
        "task": "direction",
        "generator": "moving_square",
        "demonstration_type": "simulated",
        "question": "Which direction does the square move?",
        "options": options,
        "answer": answer,
        "labels": {
            "width": 128,
            "height": 96,
            "fps": 10.0,
            "query": {"fact": "direction", "objects": ["square"]},
            "tracks": [track],
        },  # fmt: skip
        "variation": {"counterfactual": 0, "composite": 0, "zoom": 0, "first_person": 0},
        "source": None,
        "edits": [],
        "seed": 0,
        "spec_hash": "0" * 64,
        "video_sha256": "0" * 64,
        "num_frames": n,
        "fps": 10.0,
        "width": 128,
        "height": 96,
    }
    if isinstance(answer, int) and 0 <= answer < len(options):
        row["answer_text"] = options[answer]
        keys = fields.get("option_keys")
        if keys is not None and "answer_key" not in fields:
            row["answer_key"] = keys[answer]
    row.update(fields)
    return Row(**row)
