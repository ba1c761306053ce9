"""Reproduce the retrieval "no match" threshold from the bundled model and captions (no network).

    .venv/bin/python scripts/calibrate_no_match.py [--seed 0] [--motions N] [--offline 200]

Prints the chosen threshold with its held-out ROC AUC, precision and recall as JSON; see
``tempogen.retrieval.threshold`` for how the match and no-match queries are built.
"""

from __future__ import annotations

import argparse
import json

from tempogen.retrieval.embed import Encoder
from tempogen.retrieval.threshold import NO_MATCH_THRESHOLD, calibrate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--motions", type=int, default=None, help="patterns to use (default: all)")
    ap.add_argument("--offline", type=int, default=200, help="offline event groups to draw")
    ap.add_argument("--model", default=None, help="local sentence-transformers model folder")
    args = ap.parse_args()
    result = calibrate(
        Encoder(args.model), motions=args.motions, offline=args.offline, seed=args.seed
    )
    print(json.dumps({**result.as_dict(), "shipped_threshold": NO_MATCH_THRESHOLD}, indent=1))


if __name__ == "__main__":
    main()
