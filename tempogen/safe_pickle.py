"""Pickles that cannot run code: body models (SMPL ``.pkl``, object arrays in ``.npz``) and VIBE
motions (``pickle`` or ``joblib``) are read by an unpickler that builds only the classes such
files hold (numpy arrays, dtypes and scalars, scipy sparse matrices, chumpy arrays, plain
containers) and refuses any other class before it is looked up, so nothing in the file runs."""

from __future__ import annotations

import _compat_pickle
import io
import pickle
import zipfile
from pathlib import Path
from typing import Any, BinaryIO, cast

# (module, name) a data file may name. Everything else is refused before import.
_ALLOWED = {
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy", "zeros"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"),
    ("_codecs", "encode"),  # protocol 2 writes bytes as _codecs.encode(text, "latin1")
    ("copyreg", "_reconstructor"),  # builds an allowed class (chumpy's Ch under protocol 2)
    ("builtins", "object"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "slice"),
    ("builtins", "complex"),
    ("collections", "OrderedDict"),
    ("joblib.numpy_pickle", "NumpyArrayWrapper"),
}
_SPARSE = {"csc_matrix", "csr_matrix", "coo_matrix", "csc_array", "csr_array", "coo_array"}
WHAT = "numpy arrays, scipy sparse matrices, chumpy arrays and plain containers"


class ForbiddenPickleError(pickle.UnpicklingError):
    """A pickle names a class or function a data file may not hold; nothing of it ran."""


def allowed(module: str, name: str) -> bool:
    """Whether a data pickle may name ``module.name`` (after Python 2's renames)."""
    module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
    module = _compat_pickle.IMPORT_MAPPING.get(module, module)
    if "." in name:
        return False
    if (module, name) in _ALLOWED:
        return True
    if (module == "scipy.sparse" or module.startswith("scipy.sparse.")) and name in _SPARSE:
        return True
    # chumpy (SMPL's original files): its array classes only, never a function
    return (module == "chumpy" or module.startswith("chumpy.")) and name[:1].isupper()


def _check(module: str, name: str) -> None:
    if not allowed(module, name):
        raise ForbiddenPickleError(
            f"holds {module}.{name}, which a data file may not (only {WHAT}): "
            "refused without running it"
        )


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        _check(module, name)
        return super().find_class(module, name)


def load(f: BinaryIO) -> Any:
    """Unpickle a data file's stream (Python 2 pickles too, as SMPL's are)."""
    return _Unpickler(f, encoding="latin1").load()


def load_path(path: str | Path) -> Any:
    """A pickle file, or a ``joblib.dump`` file (VIBE's output) when joblib is installed; both
    through the same allow-list. joblib's object-dtype arrays (a second, inner pickle) are
    refused."""
    try:
        from joblib import numpy_pickle as jp
    except ImportError:
        with open(path, "rb") as f:
            return load(f)

    class _JoblibUnpickler(jp.NumpyUnpickler):  # type: ignore[misc]  # joblib ships no types
        dispatch = jp.NumpyUnpickler.dispatch.copy()

        def find_class(self, module: str, name: str) -> Any:
            _check(module, name)
            return super().find_class(module, name)

        def load_build(self) -> None:
            obj = self.stack[-2]
            state = self.stack[-1]
            if isinstance(obj, jp.NumpyArrayWrapper) and isinstance(state, dict):
                dtype = state.get("dtype")
                if getattr(dtype, "hasobject", False):
                    raise ForbiddenPickleError(
                        f"holds an array of Python objects, which a data file may not (only {WHAT})"
                    )
            super().load_build()

        dispatch[pickle.BUILD[0]] = load_build

    with open(path, "rb") as f:
        with jp._validate_fileobject_and_memmap(f, str(path), None) as (fobj, _):
            return _JoblibUnpickler(str(path), fobj, ensure_native_byte_order=True).load()


def load_npz(path: str | Path) -> dict[str, Any]:
    """Every array of an ``.npz``; an object array (smplx stores a few) is unpickled through the
    allow-list, the rest read with ``allow_pickle=False``."""
    import numpy as np

    out: dict[str, Any] = {}
    with np.load(path, allow_pickle=False) as npz, zipfile.ZipFile(path) as zf:
        for key in npz.files:
            try:
                out[key] = npz[key]
            except ValueError:  # an object array: numpy would unpickle it unrestricted
                with zf.open(key + ".npy") as member:
                    fp = io.BufferedReader(cast(Any, member))  # a zip member is a raw stream
                    version = np.lib.format.read_magic(fp)
                    if version == (1, 0):
                        _shape, _fortran, dtype = np.lib.format.read_array_header_1_0(fp)
                    elif version == (2, 0):
                        _shape, _fortran, dtype = np.lib.format.read_array_header_2_0(fp)
                    else:
                        raise

                    if not dtype.hasobject:
                        raise
                    out[key] = load(fp)
    return out
