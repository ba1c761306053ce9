"""``tempogen eval``: score predictions against a dataset, or (``eval run``) run a model on it."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from tempogen.cli.options import plugins_option


def _eval(args: argparse.Namespace) -> int:
    from tempogen.builders.eval import scoring
    from tempogen.builders.exports import format_with
    from tempogen.paths import check_not_input

    if args.benchmark == "run":
        return _eval_run(args)
    fmt = format_with("score", args.benchmark, "eval", also=["run"])
    assert fmt.score is not None  # format_with("score") returns only formats that score
    if not args.predictions:
        from tempogen.errors import ConfigurationError

        raise ConfigurationError(f"eval {args.benchmark}: --predictions is required")
    dataset = Path(args.dataset)
    sub = fmt.data_file
    if sub and not (dataset / sub).exists() and (dataset / fmt.folder / sub).exists():
        dataset = dataset / fmt.folder  # a tempogen dataset root: use its export
    check_not_input([("--out", args.out)], _eval_inputs(fmt.reads, dataset, args.predictions))
    scores = fmt.score(dataset, args.predictions)
    scoring.require_matches(scores)
    print(scoring.format_scores(scores))
    if args.out:
        scoring.write_scores(args.out, scores)
        print(f"scores written to {args.out}")
    return 0


def _eval_inputs(data: Sequence[str], dataset: Path, predictions: str) -> list[Path]:
    """The files ``tempogen eval BENCHMARK`` reads: the format's data files (``data``: its
    ``reads`` globs) under ``dataset`` and the predictions (a file, or the JSON lines of a
    results folder), so an ``--out`` naming one of them is refused (and a rerun may write its
    scores again)."""
    found = [f for pattern in data for f in dataset.glob(pattern)]
    pred = Path(predictions)
    return [*found, *(pred.rglob("*.jsonl") if pred.is_dir() else [pred])]


def _eval_run(args: argparse.Namespace) -> int:
    from tempogen.builders.eval import scoring
    from tempogen.builders.eval.runner import available_sets, run_sets, safe_model_name
    from tempogen.builders.exports import format_with, formats_with
    from tempogen.errors import ConfigurationError
    from tempogen.paths import check_not_input
    from tempogen.retrieval.llm import resolve_config

    config = resolve_config(args.endpoint, args.api_key, args.model, max_attempts=args.attempts)
    if args.set == "all":
        sets = available_sets(args.dataset)
    else:
        sets = [format_with("run", args.set, "eval run: --set", also=["all"]).name]
    out = Path(args.out or Path(args.dataset) / "runs" / safe_model_name(config.model))
    tomato_out = None
    if out.suffix == ".jsonl":  # the TOMATO predictions file, as before --set
        if sets != ["tomato"]:
            raise ConfigurationError(
                f"eval run: --out {out} is a file; give a folder (or --set tomato)"
            )
        out, tomato_out = out.parent, out
    root = Path(args.dataset)
    runners = formats_with("run")
    reads = [root / f.run_needs for f in runners if f.run_needs]
    reads += [p for f in runners for g in f.reads for p in (root / f.folder).glob(g)]
    writes = [out / w for f in runners for w in f.run_writes]
    if tomato_out:  # --out FILE.jsonl: TOMATO's predictions go there, not to out/tomato.jsonl
        writes = [tomato_out, *(w for w in writes if w != out / "tomato.jsonl")]
    writes.append(out / "scores.json")
    check_not_input([("--out", w) for w in writes], reads)  # predictions never over the data
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    result = run_sets(args.dataset, config, out, sets, settings, cache_dir=args.cache,
                      limit=args.limit, progress=not args.quiet,
                      tomato_out=tomato_out)  # fmt: skip
    for line in result.log:
        print(line)
    files = ", ".join(f"{name} {path}" for name, path in result.files.items())
    print(f"{config.endpoint}: asked {result.asked}, from cache {result.cache_hits}, "
          f"{result.requests} requests; predictions: {files}")  # fmt: skip
    for scores in result.scores.values():
        print(scoring.format_scores(scores))
    print(f"scores written to {out / 'scores.json'}")
    return 0


def add_eval(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``eval`` command."""
    from tempogen.cli.argtypes import bounded_int

    ev = sub.add_parser(
        "eval", help="score model predictions against a dataset, or run a model (eval run)"
    )
    ev.add_argument(
        "benchmark",
        help="a format to score (tomato, vinoground, videott, or a plugin's), or run",
    )
    ev.add_argument(
        "--dataset", required=True, help="dataset folder (ours, or the benchmark's layout)"
    )
    ev.add_argument("--predictions", default=None, help="predictions JSONL, or a results folder")
    ev.add_argument(
        "--out", default=None,
        help="write the scores as JSON here (eval run: the folder for predictions and scores, "
        "default DATASET/runs/MODEL)",
    )  # fmt: skip
    ev.add_argument("--endpoint", default=None, help="eval run: OpenAI-compatible base URL")
    ev.add_argument("--model", default=None, help="eval run: model name")
    ev.add_argument("--api-key", default=None, help="eval run: key (default: TEMPOGEN_LLM_API_KEY)")
    ev.add_argument(
        "--settings", default="uniform16,shuffled16,random1",
        help="eval run: uniform16, shuffled16, random1, handpicked1 (comma-separated)",
    )  # fmt: skip
    ev.add_argument(
        "--set", default="all",
        help="eval run: tomato, vinoground, videott, or all (those the dataset holds)",
    )  # fmt: skip
    ev.add_argument("--cache", default=None, help="eval run: reply cache folder")
    ev.add_argument(
        "--limit", type=bounded_int(1, 10**9), default=None,
        help="eval run: first N questions only",
    )  # fmt: skip
    ev.add_argument(
        "--attempts", type=bounded_int(1, 50), default=5,
        help="eval run: tries per request (1..50)",
    )  # fmt: skip
    ev.add_argument("-q", "--quiet", action="store_true", help="eval run: no progress bar")
    plugins_option(ev)
    ev.set_defaults(func=_eval)
