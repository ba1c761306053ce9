"""One body-model file (SMPL, SMPL-H or SMPL-X layout, ``.pkl`` or ``.npz``): read it through
the safe unpickler, check every field and shape against the format its joint count names, and
build its ``smplx`` module; every failure is a :class:`BodyModelError` naming file and field."""

from __future__ import annotations

import contextlib
import io
import pickle
import warnings
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from tempogen import safe_pickle
from tempogen.errors import InputFileError

MAX_BETAS = 16  # AMASS stores 16 shape coefficients
# Joint count of each format (kintree_table columns).
FORMAT_JOINTS = {"smpl": 24, "smplh": 52, "smplx": 55}
# Fields every SMPL-format file holds; SMPL-H and SMPL-X add their hands, SMPL-X its face.
_REQUIRED = ("v_template", "f", "weights", "J_regressor", "kintree_table", "shapedirs", "posedirs")
_REQUIRED_HANDS = ("hands_componentsl", "hands_componentsr", "hands_meanl", "hands_meanr")
_REQUIRED_FACE = ("lmk_faces_idx", "lmk_bary_coords")


class BodyModelError(InputFileError):
    """A body-model file is unreadable or malformed; the message names the file and field."""


def read_model_file(path: Path) -> dict[str, Any]:
    """The raw contents of a model file (.pkl or .npz) as a dict; a pickle may hold only data
    classes (:mod:`tempogen.safe_pickle`), so a hostile file runs nothing."""
    try:
        if path.suffix.lower() == ".npz":
            data = safe_pickle.load_npz(path)
        else:
            with open(path, "rb") as f:
                data = safe_pickle.load(f)
    except safe_pickle.ForbiddenPickleError as exc:
        raise BodyModelError(f"{path}: {exc}") from exc
    except ModuleNotFoundError as exc:
        raise BodyModelError(
            f"{path}: the file needs the Python module {exc.name!r} to load (SMPL's original "
            "files store chumpy objects: install chumpy, or save the arrays as plain numpy)"
        ) from exc
    except (
        pickle.UnpicklingError,
        EOFError,
        zipfile.BadZipFile,
        ValueError,
        TypeError,
        AttributeError,
        ImportError,
        IndexError,
        KeyError,
        OSError,
    ) as exc:
        raise BodyModelError(
            f"{path}: not a readable model file (truncated or corrupt: {type(exc).__name__}: {exc})"
        ) from exc
    if not isinstance(data, Mapping):
        raise BodyModelError(f"{path}: expected a dict of model arrays, got {type(data).__name__}")
    return dict(data)


def _array(path: Path, data: Mapping[str, Any], key: str) -> np.ndarray:
    value = data[key]
    if hasattr(value, "toarray"):  # scipy.sparse (SMPL's J_regressor)
        value = value.toarray()
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "fiub":
            arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise BodyModelError(f"{path}: field {key!r}: not a numeric array ({exc})") from exc
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise BodyModelError(f"{path}: field {key!r}: contains NaN or infinite values")
    return arr


def validate_model(path: Path, data: dict[str, Any]) -> str:
    """Check fields and shapes; return the model type the file holds (by its joint count)."""
    for key in _REQUIRED:
        if key not in data:
            raise BodyModelError(
                f"{path}: field {key!r} is missing (a SMPL-format model needs "
                f"{', '.join(_REQUIRED)})"
            )
    arrays = {key: _array(path, data, key) for key in _REQUIRED}
    kin = arrays["kintree_table"]
    if kin.ndim != 2 or kin.shape[0] != 2:
        raise BodyModelError(f"{path}: field 'kintree_table': expected (2, J), got {kin.shape}")
    by_joints = {n: t for t, n in FORMAT_JOINTS.items()}
    n_joints = kin.shape[1]
    if n_joints not in by_joints:
        raise BodyModelError(
            f"{path}: field 'kintree_table': {n_joints} joints; SMPL has 24, SMPL-H 52, SMPL-X 55"
        )
    model_type = by_joints[n_joints]
    v = arrays["v_template"]
    if v.ndim != 2 or v.shape[1] != 3 or v.shape[0] < 4:
        raise BodyModelError(f"{path}: field 'v_template': expected shape (V, 3), got {v.shape}")
    n_verts = v.shape[0]
    expected = {
        "f": (None, 3),
        "weights": (n_verts, n_joints),
        "J_regressor": (n_joints, n_verts),
        "shapedirs": (n_verts, 3, None),
        "posedirs": (n_verts, 3, 9 * (n_joints - 1)),
    }
    for key, want in expected.items():
        got = arrays[key].shape
        if len(got) != len(want) or any(w is not None and g != w for g, w in zip(got, want)):
            shown = "(" + ", ".join("*" if w is None else str(w) for w in want) + ")"
            raise BodyModelError(f"{path}: field {key!r}: expected shape {shown}, got {got}")
    faces = arrays["f"]
    if (
        len(faces) == 0
        or (faces != np.round(faces)).any()
        or not 0 <= faces.min() <= faces.max() < n_verts
    ):
        raise BodyModelError(f"{path}: field 'f': expected vertex indices in 0..{n_verts - 1}")
    if arrays["shapedirs"].shape[2] == 0:
        raise BodyModelError(f"{path}: field 'shapedirs': no shape directions")
    needed = (_REQUIRED_HANDS if model_type != "smpl" else ()) + (
        _REQUIRED_FACE if model_type == "smplx" else ()
    )
    for key in needed:
        if key not in data:
            raise BodyModelError(f"{path}: field {key!r} is missing (needed by {model_type})")
    if "vertex_ids" in data and not isinstance(data["vertex_ids"], Mapping):
        raise BodyModelError(f"{path}: field 'vertex_ids': expected a dict of vertex indices")
    return model_type


def _landmark_ids(data: Mapping[str, Any], model_type: str) -> dict[str, int] | None:
    """smplx's extra landmark vertices: the file's own, or smplx's defaults where they fit."""
    from smplx.vertex_ids import vertex_ids as defaults

    if model_type == "smplx":
        return None  # SMPL-X always uses smplx's own ids
    n_verts = len(np.asarray(data["v_template"]))
    if "vertex_ids" in data:
        ids = {str(k): int(v) for k, v in data["vertex_ids"].items()}
        missing = set(defaults["smplh"]) - set(ids)
        if missing or max(ids.values()) >= n_verts or min(ids.values()) < 0:
            raise ValueError("vertex_ids")
        return ids
    if max(defaults["smplh"].values()) < n_verts:
        return None
    # a custom mesh without landmarks: point smplx's extra joints (unused here) at vertex 0
    return dict.fromkeys(defaults["smplh"], 0)


def build_smplx_module(path: Path, model_type: str, gender: str, data: Mapping[str, Any]) -> Any:
    """The smplx module for a validated model file, built quietly (smplx prints notes)."""
    import smplx
    from smplx.utils import Struct

    try:
        ids = _landmark_ids(data, model_type)
    except ValueError as exc:
        raise BodyModelError(
            f"{path}: field 'vertex_ids': expected indices below {len(data['v_template'])} "
            "for every smplx landmark name"
        ) from exc
    common = {"gender": gender, "num_betas": MAX_BETAS, "batch_size": 1}
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if model_type == "smpl":
                module = smplx.SMPL(
                    model_path=str(path), data_struct=Struct(**data), vertex_ids=ids, **common
                )
            elif model_type == "smplh":
                module = smplx.SMPLH(
                    model_path=str(path),
                    data_struct=Struct(**data),
                    vertex_ids=ids,
                    use_pca=False,
                    flat_hand_mean=True,
                    **common,
                )
            else:
                module = smplx.SMPLX(
                    model_path=str(path),
                    ext=path.suffix.lstrip(".").lower() or "npz",
                    use_pca=False,
                    flat_hand_mean=True,
                    **common,
                )
    except AttributeError as exc:
        field = getattr(exc, "name", None) or str(exc)
        raise BodyModelError(f"{path}: field {field!r} is missing (needed by smplx)") from exc
    except (KeyError, ValueError, TypeError, RuntimeError, IndexError, AssertionError) as exc:
        raise BodyModelError(
            f"{path}: smplx cannot build a {model_type} model from this file: {exc}"
        ) from exc
    module.eval()
    for param in module.parameters():
        param.requires_grad_(False)
    return module
