"""The ONNX backends of the Encoder: the sentence-transformers network traced to ONNX once
(mean pooling included), its int8 quantisation, the ONNX Runtime session, and batched encoding
with a batch per core side by side."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tempogen.io import atomic_path
from tempogen.retrieval.embed_models import usable_cores

# ONNX Runtime's 1DS telemetry (Linux, 1.29+) looks up a Microsoft host when a session first
# runs; both names of its opt-out must be set before onnxruntime initialises. A user's own
# setting wins.
for _opt_out in ("ORT_DISABLE_TELEMETRY", "ORT_TELEMETRY_DISABLED"):
    os.environ.setdefault(_opt_out, "1")


if TYPE_CHECKING:
    import onnxruntime
    from sentence_transformers import SentenceTransformer


def export_onnx(st: SentenceTransformer, model_path: Path | str, dest: Path) -> None:
    """Trace the fp32 transformer plus mean pooling to ONNX (atomically, at ``dest``)."""
    import warnings

    import torch

    mods = list(st)
    pool: dict[str, object] = getattr(mods[1], "get_config_dict", dict)() if len(mods) > 1 else {}
    mode = pool.get("pooling_mode")  # sentence-transformers >= 6; older: boolean flags
    modes = (
        [mode]
        if isinstance(mode, str)
        else [
            k.removeprefix("pooling_mode_").removesuffix("_tokens")
            for k, v in pool.items()
            if k.startswith("pooling_mode") and v
        ]
    )
    extra = [type(m).__name__ for m in mods[2:]]
    if (
        len(mods) < 2
        or type(mods[0]).__name__ != "Transformer"
        or modes != ["mean"]
        or any(x != "Normalize" for x in extra)
    ):
        raise ValueError(
            f"{model_path}: the onnx backends support a transformer with mean pooling "
            f"(found {', '.join(type(m).__name__ for m in mods)}, pooling {modes}); "
            "use backend='torch'"
        )
    net = mods[0].auto_model  # the Hugging Face model the Transformer module wraps
    if not isinstance(net, torch.nn.Module):
        raise ValueError(f"{model_path}: its transformer holds no torch model; use backend='torch'")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids")]
    names = [n for n in names if n in st.tokenizer.model_input_names]

    class Pooled(torch.nn.Module):
        def __init__(self, net: torch.nn.Module) -> None:
            super().__init__()
            self.net = net

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            feed = dict(zip(names, inputs))
            hidden = self.net(**feed).last_hidden_state
            mask = feed["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    sample = st.tokenizer(["a caption", "a longer caption here"], padding=True, return_tensors="pt")
    axes = {n: {0: "batch", 1: "tokens"} for n in names}
    with atomic_path(dest) as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Pooled(net).eval(),
            tuple(sample[n] for n in names),
            str(tmp),
            input_names=names,
            output_names=["embedding"],
            dynamic_axes={**axes, "embedding": {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )


def quantize_onnx(src: Path, dest: Path) -> None:
    """Dynamic int8 quantisation of every MatMul, per-channel weights (atomically)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with atomic_path(dest) as tmp:
        quantize_dynamic(
            src,
            tmp,
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )


def open_session(path: Path) -> onnxruntime.InferenceSession:
    """An ONNX Runtime session on the CPU for ``path``, one thread per run."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    # one thread per run: encode_onnx runs a batch per core side by side, which beats
    # splitting every operator across cores (no barriers, no idle stragglers)
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def encode_onnx(
    session: onnxruntime.InferenceSession,
    tokenizer: Any,
    texts: list[str],
    batch_size: int,
    threads: int | None,
) -> np.ndarray:
    """Raw (unnormalised) embeddings of ``texts``: longest-first batches of ``batch_size``,
    ``threads`` (default: the usable cores) of them run side by side."""
    from concurrent.futures import ThreadPoolExecutor

    names = [i.name for i in session.get_inputs()]
    encs = tokenizer.encode_batch(texts)
    lengths = np.fromiter((len(e.ids) for e in encs), np.int64, len(encs))
    order = np.argsort(-lengths, kind="stable")
    dim = int(session.get_outputs()[0].shape[-1])
    out = np.empty((len(texts), dim), np.float32)

    def run(start: int) -> None:
        rows = order[start : start + batch_size]
        width = int(lengths[rows].max())
        feed = {n: np.zeros((len(rows), width), np.int64) for n in names}
        for r, i in enumerate(rows):
            e, k = encs[i], int(lengths[i])
            feed["input_ids"][r, :k] = e.ids
            feed["attention_mask"][r, :k] = 1
            if "token_type_ids" in feed:
                feed["token_type_ids"][r, :k] = e.type_ids
        out[rows] = session.run(None, feed)[0]

    starts = range(0, len(texts), batch_size)
    workers = min(threads or usable_cores(), len(starts))
    if workers <= 1:
        for start in starts:
            run(start)
    else:  # ONNX Runtime releases the GIL while it runs a batch
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(run, starts))
    return out


class HFTokenizer:
    """transformers' tokenizer behind the ``encode_batch`` interface of ``tokenizers``."""

    def __init__(self, tok: Any, max_len: int) -> None:
        self.tok, self.max_len = tok, max_len

    def encode_batch(self, texts: list[str]) -> list[Any]:
        from types import SimpleNamespace

        enc = self.tok(texts, truncation=True, max_length=self.max_len)
        types = enc.get("token_type_ids") or [[0] * len(ids) for ids in enc["input_ids"]]
        return [SimpleNamespace(ids=i, type_ids=t) for i, t in zip(enc["input_ids"], types)]
