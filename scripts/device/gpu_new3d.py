"""Render the default plan's 3D temporal-noise clips and a few human Vinoground pairs on this
machine's GL (the device check for an NVIDIA EGL node), and re-answer the noise clips from
their pixels. Usage: python scripts/device/gpu_new3d.py OUT_DIR [--pairs N]"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--pairs", type=int, default=2, help="human Vinoground pairs to render")
    ap.add_argument("--noise", type=int, default=0, help="at most this many noise clips (0: all)")
    args = ap.parse_args()

    from tempogen.builders.audit.verify import verify_row
    from tempogen.builders.exports.vinoground import render_pair_unit
    from tempogen.config import load_config
    from tempogen.generators.build import plan, render_spec
    from tempogen.generators.motion import get_motion
    from tempogen.generators.pairs import plan_pairs
    from tempogen.generators.render3d import gl_info

    cfg = load_config("configs/default.yaml")
    noisy = [s for s in plan(cfg) if s.encoding and get_motion(s.motion).renderer != "2d"]
    noisy = noisy[: args.noise or None]
    report: dict = {"gl": gl_info(), "noise": [], "pairs": []}
    for spec in noisy:
        t0 = time.perf_counter()
        row = render_spec(spec, args.out)
        verdict = verify_row(row, args.out)
        report["noise"].append({
            "id": spec.id, "motion": spec.motion, "frames": spec.num_frames,
            "seconds": round(time.perf_counter() - t0, 2), "answer": row["answer_key"],
            "pixels": verdict.seen if verdict else None, "ok": bool(verdict and verdict.ok),
            "video_sha256": row["video_sha256"],
        })  # fmt: skip
        print(report["noise"][-1], flush=True)
    humans = [p for p in plan_pairs(64, cfg.seed, *cfg.size, cfg.fps) if p.kind == "human"]
    for spec in humans[: args.pairs]:
        t0 = time.perf_counter()
        pair = render_pair_unit(spec, args.out / "vinoground")
        report["pairs"].append({"index": spec.index, "seconds": round(time.perf_counter() - t0, 2),
                                "captions": [pair.get("pos_caption"), pair.get("neg_caption")]})  # fmt: skip
        print(report["pairs"][-1], flush=True)
    (args.out / "gpu_new3d.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    ok = all(n["ok"] for n in report["noise"])
    print(f"noise clips verified: {sum(n['ok'] for n in report['noise'])}/{len(noisy)}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
