"""No data file runs code (issue 25, class 3): body models and VIBE motions are pickles, read
through tempogen.safe_pickle's allow-list. A hostile file is refused, naming the file and the
class, and what it asked to run never runs; the shipped body and real-format files still load."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pytest
import scipy.sparse as sp

from tempogen import safe_pickle
from tempogen.generators.body import BodyModelError, load_body, mannequin_path
from tempogen.generators.motion_import import MotionImportError, load_vibe


class Evil:
    """Unpickling this runs ``touch MARK``: what a hostile data file does."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self):
        return (os.system, (f"touch {self.mark}",))


class EvalEvil:
    def __reduce__(self):
        return (eval, ("__import__('os').getpid()",))


def _vibe(n: int = 4) -> dict:
    return {1: {"pose": np.zeros((n, 72)), "betas": np.zeros((n, 10)),
                "frame_ids": np.arange(n), "orig_cam": np.zeros((n, 4))}}  # fmt: skip


def test_a_hostile_motion_pickle_is_refused_through_the_cli(tmp_path: Path) -> None:
    mark = tmp_path / "MARK"
    for name, dump in (("evil.pkl", pickle.dump), ("evil_joblib.pkl", joblib.dump)):
        path = tmp_path / name
        if dump is pickle.dump:
            path.write_bytes(pickle.dumps({1: Evil(mark)}))
        else:
            joblib.dump({1: Evil(mark)}, path)
        res = subprocess.run(
            [sys.executable, "-m", "tempogen.cli", "human", "render", str(path),
             "--out", str(tmp_path / "out" / "clip.mp4")],
            capture_output=True, text=True, cwd=tmp_path, timeout=300,
        )  # fmt: skip
        assert res.returncode == 2, res.stderr
        assert "Traceback" not in res.stderr
        assert name in res.stderr and "posix.system" in res.stderr, res.stderr
        assert not mark.exists(), "the pickle ran its code"
        assert not (tmp_path / "out").exists()


def test_hostile_body_models_are_refused(tmp_path: Path) -> None:
    mark = tmp_path / "MARK"
    pkl = tmp_path / "body.pkl"
    shipped = safe_pickle.load_path(mannequin_path())
    pkl.write_bytes(pickle.dumps({**shipped, "weights": Evil(mark)}))
    with pytest.raises(BodyModelError, match=r"body\.pkl: holds posix\.system"):
        load_body(pkl)
    # an .npz whose object array is a pickle: numpy's allow_pickle would have run it
    npz = tmp_path / "body.npz"
    np.savez(npz, **{k: v for k, v in shipped.items() if isinstance(v, np.ndarray)},
             extra=np.array([Evil(mark)], dtype=object))  # fmt: skip
    with pytest.raises(BodyModelError, match=r"body\.npz: holds posix\.system"):
        load_body(npz)
    evil_eval = tmp_path / "eval.pkl"
    evil_eval.write_bytes(pickle.dumps(EvalEvil()))
    with pytest.raises(BodyModelError, match=r"eval\.pkl: holds builtins\.eval"):
        load_body(evil_eval)
    assert not mark.exists(), "the pickle ran its code"


def test_joblib_object_arrays_and_dotted_names_are_refused(tmp_path: Path) -> None:
    mark = tmp_path / "MARK"
    path = tmp_path / "objects.pkl"
    joblib.dump({1: {"pose": np.array([Evil(mark)], dtype=object)}}, path)
    with pytest.raises(MotionImportError, match=r"objects\.pkl: holds an array of Python objects"):
        load_vibe(path)
    assert not mark.exists()
    assert not safe_pickle.allowed("numpy", "ndarray.__class__")
    assert not safe_pickle.allowed("chumpy.ch", "some_function")
    assert not safe_pickle.allowed("os", "system") and not safe_pickle.allowed("posix", "system")
    assert not safe_pickle.allowed("__builtin__", "eval")  # Python 2's name for builtins


def test_data_files_still_load(tmp_path: Path) -> None:
    """What body and motion files really hold: arrays of every protocol, sparse matrices,
    dtypes, scalars, Python 2 pickles (SMPL's), joblib dumps (VIBE's)."""
    data = {
        "a": np.arange(6.0).reshape(2, 3),
        "i": np.arange(3, dtype=np.int32),
        "s": sp.csc_matrix(np.eye(3)),
        "r": sp.csr_matrix(np.eye(2)),
        "d": np.dtype("<f4"),
        "x": np.float32(1.5),
        "text": "smpl",
        "ids": {"nose": 1},
    }
    for protocol in (2, 4, 5):
        back = safe_pickle.load(__import__("io").BytesIO(pickle.dumps(data, protocol=protocol)))
        assert (
            back["a"].tolist() == data["a"].tolist()
            and back["s"].toarray().tolist() == np.eye(3).tolist()
        )
        assert back["d"] == data["d"] and back["x"] == data["x"] and back["ids"] == {"nose": 1}
    assert load_body().name == "mannequin"
    for dump in (joblib.dump, lambda obj, p: Path(p).write_bytes(pickle.dumps(obj))):
        path = tmp_path / "vibe_output.pkl"
        dump(_vibe(), path)
        assert load_vibe(path).num_frames == 4
    np.savez(tmp_path / "m.npz", a=np.arange(3), o=np.array([{"k": 1}], dtype=object))
    back = safe_pickle.load_npz(tmp_path / "m.npz")
    assert back["a"].tolist() == [0, 1, 2] and back["o"][0] == {"k": 1}
