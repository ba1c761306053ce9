"""The ``tempogen`` command: parses arguments, calls the library, prints. Heavy imports stay
inside the command bodies so ``tempogen --help`` is instant."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tempogen.config import DatasetConfig, Estimate
from pathlib import Path


def _generate(args: argparse.Namespace) -> int:
    from tempogen.builders.dataset.build import build_dataset
    from tempogen.config import check_estimate, config_estimate, load_config

    cfg = load_config(args.config)
    est = check_estimate(config_estimate(cfg), cfg.source, args.allow_large, "pass --allow-large")
    if args.dry_run:
        return _plan_only(cfg, est)
    if not args.quiet:
        print(f"estimate: {est.line()}", file=sys.stderr)
    summary = build_dataset(
        cfg,
        args.out,
        jobs=args.jobs,
        progress=not args.quiet,
        replace=args.replace,
        executor=args.executor,
        address=args.address,
        work_dir=args.work,
    )
    tasks = ", ".join(f"{k} {v}" for k, v in summary.per_task.items())
    new = summary.frames - summary.reused_frames
    reused = (
        f", {summary.reused_frames:,} reused from an earlier run" if summary.reused_frames else ""
    )
    print(
        f"wrote {summary.clips} clips ({summary.variants} edited variants; "
        f"{new:,} frames rendered{reused}) to {summary.where()}: {tasks}"
    )
    print(f"manifest: {summary.where('manifest.jsonl')}; TOMATO layout: {summary.where('tomato')}")
    print(f"index: {summary.where('index.html')}; report: {summary.where('report.html')}")
    if summary.url is not None:
        print(f"working copy (a rerun resumes from it): {summary.out_dir}")
    print("also: " + _also_written())
    return 0


def _also_written() -> str:
    """The formats a build writes beside TOMATO's, plugins included, from the registry."""
    from tempogen.builders.exports import FORMATS

    return "; ".join(
        f"{f.folder}/: {f.description}" for f in FORMATS.values() if f.name != "tomato"
    )


def _plan_only(cfg: DatasetConfig, est: Estimate) -> int:
    """``generate --dry-run``: the estimate and the planned clips; nothing is written."""
    from tempogen.generators.build import plan

    specs = plan(cfg)
    frames = sum(s.num_frames for s in specs)
    print(f"estimate: {est.line()}")
    print(f"plan: {len(specs)} clips, {frames:,} frames before edited variants; nothing written")
    return 0


def _motions(args: argparse.Namespace) -> int:
    from tempogen.generators.motion import motions_for
    from tempogen.questions import TASKS

    for task in TASKS:
        for m in motions_for(task):
            print(f"{task:20s} {m.name:16s} {m.renderer:9s} {m.fact:10s} {', '.join(m.keys())}")
    return 0


def _formats(args: argparse.Namespace) -> int:
    from tempogen.builders.exports import FORMATS

    parts = ("write", "validate", "score", "run")
    for line in FORMATS.listing(
        lambda f: (
            f"{f.folder + '/':12s} {','.join(p for p in parts if getattr(f, p)):26s} "
            f"{f.description}"
        )
    ):
        print(line)
    return 0


def _size(text: str) -> tuple[int, int]:
    """``--size``: WIDTHxHEIGHT, both even and at least 32 (what yuv420p video needs)."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 640x360, got {text!r}")
    w, h = int(parts[0]), int(parts[1])
    if w < 32 or h < 32 or w > 7680 or h > 4320 or w % 2 or h % 2:
        raise argparse.ArgumentTypeError(f"width and height must be even, 32..7680x4320: {text!r}")
    return w, h


def _human_render(args: argparse.Namespace) -> int:
    from tempogen.config import check_estimate
    from tempogen.generators.humans import render_motion_files
    from tempogen.generators.motion_import import load_motion, render_estimate
    from tempogen.paths import check_not_input

    # the joints beside the video: the name's suffix only (--out take.v2/clip: clip.joints.json)
    joints = str(Path(args.out).with_suffix(".joints.json"))
    check_not_input(
        [("--out", args.out), ("--out (its joints)", joints)],
        [args.motion, args.joint_map, args.body],
    )
    w, h = args.size
    seq = load_motion(args.motion, joint_map=args.joint_map)  # at its own rate: as the file
    est = render_estimate(seq, args.fps, w, h)
    where = f"{args.motion} at --fps {args.fps:g}, --size {w}x{h}"
    check_estimate(est, where, args.allow_large, "pass --allow-large")
    if args.fps != seq.fps:
        seq = seq.resample(args.fps)
    truth = render_motion_files(
        seq, args.out, joints, width=w, height=h, body_path=args.body or "",
        background=args.background,
    )  # fmt: skip
    print(
        f"{args.out}: {truth['num_frames']} frames at {truth['fps']:g} fps, {w}x{h}, body {truth['body_model']}"
    )
    print(f"{joints}: camera and 24 joints per frame (3D metres, 2D pixels)")
    return 0


def _human_map(args: argparse.Namespace) -> int:
    import json

    from tempogen.generators.motion_import import skeleton_map

    for smpl, bvh in skeleton_map(args.motion, args.joint_map).items():
        print(f"{smpl}: {json.dumps(bvh)}")
    return 0


def _import_tomato(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from tempogen.builders.exports.tomato_import import import_tomato

    with tqdm(unit="question", desc="importing", disable=args.quiet) as bar:
        report = import_tomato(args.folder, args.out, on_row=bar.update)
    tasks = ", ".join(f"{t} {n}" for t, n in report.per_task.items())
    print(f"wrote {sum(report.per_task.values())} questions ({tasks}) to {report.manifest}")
    print(
        f"answers read as facts (edits move them): {report.as_facts}; "
        f"in free words (edits refused): {report.as_text}"
    )
    return 0


def _edit(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tqdm import tqdm

    from tempogen.builders.dataset.reading import open_manifest
    from tempogen.builders.dataset.variants import edit_manifest
    from tempogen.editing import load_pipelines

    pipelines = load_pipelines(args.pipeline)
    out = Path(args.out)
    total = len(open_manifest(args.manifest, args.plugins).rows) * len(pipelines)
    with tqdm(total=total, unit="edit", desc="editing", disable=args.quiet) as bar:
        report = edit_manifest(
            args.manifest,
            pipelines,
            out,
            plugins=args.plugins,
            strict=args.strict,
            keep_uncertified=args.keep_uncertified,
            on_done=bar.update,
        )
    print(f"wrote {len(report.rows)} edited clips to {out} (manifest: {report.manifest})")
    if report.refused:
        print(
            f"refused {len(report.refused)} edits (ops that cannot move those labels soundly, "
            "or answers the 16 frames do not show):"
        )
        for reason, n in report.by_reason():
            print(f"  {n:5d}  {reason}")
        for rid, name, _ in report.refused:
            print(f"refused: {rid}~{name}")
    if report.uncertified:
        print(
            f"kept {len(report.uncertified)} uncertified edits (--keep-uncertified; marked "
            "certificate.ok: false): their answers are not what TOMATO's 16 samples show"
        )
        for rid in report.uncertified:
            print(f"uncertified: {rid}")
    if report.declared:
        print(
            f"{len(report.declared)} edits rest on declared facts, not per-frame states "
            "(marked verified: declared)"
        )
    for rid, name, note in report.notes:
        print(f"note: {rid}~{name}: {note}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    from tempogen.builders.audit.validate import validate_path

    checks = validate_path(args.path, plugins=args.plugins, videos_under=args.videos_under)
    for c in checks:
        if c.ok:
            print(c.summary())
        for m in c.messages():
            print(m, file=sys.stderr)
    bad = [c for c in checks if not c.ok]
    if bad:
        print(f"tempogen: error: {len(bad)} of {len(checks)} files are invalid", file=sys.stderr)
    return 2 if bad else 0


def _audit_verify(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from tempogen.builders.audit.verify import verify_manifest
    from tempogen.executor import make_executor

    kind = args.executor or ("ray" if args.address else "local")
    bar = tqdm(unit="clip", desc="verifying from pixels", disable=args.quiet, dynamic_ncols=True)
    try:
        with make_executor(kind, args.jobs or 1, args.address) as executor:
            report = verify_manifest(
                args.manifest,
                sample=args.sample,
                on_done=bar.update,
                plugins=args.plugins,
                executor=executor,
            )
    finally:
        bar.close()
    for v in report.disagreements:
        print(
            f"DISAGREE {v.id}: manifest says {v.expected!r}, pixels say {v.seen!r} {v.detail}".rstrip()
        )
    reasons: dict[str, list[str]] = {}
    for d in report.declared:
        reasons.setdefault(d.reason, []).append(d.id)
    for why, ids in reasons.items():
        print(f"DECLARED, not verified ({why}): {', '.join(ids)}")
    summary = f"verified {report.agreed}/{report.checked} ({report.percent:.1f}%)"
    if report.declared:
        summary += f"; {len(report.declared)} declared, not verified"
    print(summary)
    if not report.checked:
        print(
            f"{args.manifest}: no row has per-frame labels: nothing was verified from pixels",
            file=sys.stderr,
        )
        return 1
    # exact by default: a pass mark below 100% only by an explicit --min
    passed = 100 * report.agreed >= args.min * report.checked
    if passed and report.disagreements:
        print(f"{len(report.disagreements)} disagreement(s) accepted by --min {args.min:g}")
    return 0 if passed else 1


def _audit_validity(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tempogen.builders.audit.validity import dataset_seed, format_report, validity_report
    from tempogen.io import write_json
    from tempogen.manifest import read_manifest
    from tempogen.paths import check_not_input

    config = Path(args.manifest).parent / "config.json"  # where dataset_seed reads the seed
    check_not_input([("--out", args.out)], [args.manifest, config])
    seed = dataset_seed(args.manifest) if args.seed is None else args.seed
    report = validity_report(read_manifest(args.manifest), seed=seed)
    print(format_report(report))
    if args.out:
        write_json(args.out, {k: v for k, v in report.items() if k != "rows"})
    return 0


def _audit_shortcuts(args: argparse.Namespace) -> int:
    from tempogen.builders.audit.shortcuts import format_shortcuts, manifest_shortcuts
    from tempogen.io import write_json
    from tempogen.paths import check_not_input

    check_not_input([("--out", args.out)], [args.manifest])
    baselines = [b.strip() for b in args.baselines.split(",") if b.strip()]
    report = manifest_shortcuts(args.manifest, baselines, model=args.model)
    print(format_shortcuts(report))
    if args.out:
        write_json(args.out, report)
    return 0 if report["passed"] else 1


def _audit_captions_eval(args: argparse.Namespace) -> int:
    from tempogen.retrieval.audit_eval import (
        LABELLED_PAIRS,
        evaluate_audit,
        format_evaluation,
        load_labelled,
    )

    rows = load_labelled(args.labelled or LABELLED_PAIRS)  # a bad file fails before the model
    encoder = cache = None
    if args.near_dup == "embedding":
        from tempogen.retrieval.embed import Encoder, default_cache_dir

        encoder = Encoder(args.model)
        cache = args.cache_dir or default_cache_dir() / "embeddings"
    ev = evaluate_audit(rows, near_dup=args.near_dup, encoder=encoder, cache_dir=cache)
    print(format_evaluation(ev), end="")
    return 0


def _eval(args: argparse.Namespace) -> int:
    from pathlib import Path

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
    from pathlib import Path

    from tempogen.builders.eval import scoring
    from tempogen.builders.eval.runner import _safe, available_sets, run_sets
    from tempogen.builders.exports import format_with, formats_with
    from tempogen.errors import ConfigurationError
    from tempogen.paths import check_not_input
    from tempogen.retrieval.llm import resolve_config

    config = resolve_config(args.endpoint, args.api_key, args.model, max_attempts=args.attempts)
    if args.set == "all":
        sets = available_sets(args.dataset)
    else:
        sets = [format_with("run", args.set, "eval run: --set", also=["all"]).name]
    out = Path(args.out or Path(args.dataset) / "runs" / _safe(config.model))
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


def _captions_generate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tempogen.paths import check_not_input
    from tempogen.retrieval.captions import load_pairs, offline_pairs, write_pairs

    source = None if args.source in ("offline", "llm") else args.source
    check_not_input([("--out", args.out)], [source, args.llm_config])
    if args.source == "offline":
        pairs = offline_pairs(args.n, seed=args.seed)
    elif args.source == "llm":
        from tempogen.errors import ExternalServiceError
        from tempogen.retrieval.llm import generate_llm_pairs, load_llm_options, resolve_config

        options = load_llm_options(args.llm_config) if args.llm_config else {}
        for key in ("timeout", "max_attempts"):
            if getattr(args, key) is not None:
                options[key] = getattr(args, key)
        url, model = options.pop("base_url", None), options.pop("model", None)
        config = resolve_config(args.base_url or url, args.api_key, args.model or model, **options)
        cache = Path(args.cache_dir) if args.cache_dir else Path(args.out).parent / ".llm-cache"
        result = generate_llm_pairs(args.n, config, cache_dir=cache)
        pairs = result.pairs
        write_pairs(args.out, pairs)
        print(f"wrote {len(pairs)} caption pairs to {args.out}")
        if len(pairs) < args.n:  # partial: kept, cached, and an error so scripts notice
            why = result.error or "; ".join(result.log[-1:])
            raise ExternalServiceError(
                f"got {len(pairs)} of {args.n} caption pairs from {config.endpoint} "
                f"({result.requests} requests, {result.cache_hits} cached replies): {why}; "
                f"the {len(pairs)} are in {args.out} and a rerun resumes from {cache}"
            )
        return 0
    else:
        pairs = load_pairs(args.source)[: args.n]
    write_pairs(args.out, pairs)
    print(f"wrote {len(pairs)} caption pairs to {args.out}")
    return 0


def _captions_audit(args: argparse.Namespace) -> int:
    from tempogen.io import write_jsonl
    from tempogen.paths import check_not_input
    from tempogen.retrieval.audit import (
        EMBEDDING_THRESHOLD,
        NEAR_DUPLICATE_THRESHOLD,
        audit_pairs,
        report_rows,
        summary_table,
    )
    from tempogen.retrieval.captions import load_pairs

    check_not_input([("--report", args.report)], [args.file])
    pairs = load_pairs(args.file)
    encoder = cache = None
    if args.near_dup == "embedding":
        from tempogen.retrieval.embed import Encoder, default_cache_dir

        encoder = Encoder(args.model)
        cache = args.cache_dir or default_cache_dir() / "embeddings"
    verdicts = audit_pairs(
        pairs, args.threshold, near_dup=args.near_dup, encoder=encoder, cache_dir=cache
    )
    if args.report:
        write_jsonl(args.report, report_rows(pairs, verdicts))
    print(summary_table(verdicts))
    for i, (p, v) in enumerate(zip(pairs, verdicts, strict=True)):
        if not v.ok:
            line = p.provenance.get("line")
            print(f"pair {i}{f' (line {line})' if line else ''}: {p.pos!r} / {p.neg!r}")
            for m in v.messages:
                print(f"  {m}")
    bad = sum(not v.ok for v in verdicts)
    default = {"embedding": EMBEDDING_THRESHOLD, "jaccard": NEAR_DUPLICATE_THRESHOLD}
    how = (
        "near-duplicates not searched"
        if args.near_dup == "off"
        else f"near-duplicates by {args.near_dup} >= "
        f"{args.threshold if args.threshold is not None else default[args.near_dup]}"
    )
    print(f"{len(verdicts) - bad}/{len(verdicts)} pairs pass ({how})")
    return 1 if args.strict and bad else 0


def _retrieve(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tempogen.errors import InputFileError
    from tempogen.io import read_jsonl_lines
    from tempogen.paths import check_not_input
    from tempogen.retrieval.corpus import load_corpus
    from tempogen.retrieval.embed import Encoder
    from tempogen.retrieval.search import (
        retrieval_summary,
        retrieve,
        summary_line,
        write_candidates,
    )
    from tempogen.retrieval.threshold import NO_MATCH_THRESHOLD

    corpora = [c.split(":", 1)[-1] for c in args.corpus]
    check_not_input([("--out", args.out)], [args.pairs, *corpora])
    pairs = []
    for line, r in read_jsonl_lines(args.pairs):
        for key in ("pos", "neg"):
            if not isinstance(r.get(key), str) or not r[key].strip():
                raise InputFileError(
                    f"{args.pairs}:{line}: {key}: needs a non-empty caption (a pair is "
                    "'pos' and 'neg')"
                )
        pairs.append((r["pos"], r["neg"]))
    if not pairs:
        raise InputFileError(f"{args.pairs}: no caption pairs in this file")
    corpus = load_corpus(args.corpus)
    if len(corpus) == 0:
        raise InputFileError(f"corpus {corpus.source}: holds no captions")
    cache = Path(args.cache_dir) if args.cache_dir else Path(args.out).parent / ".emb_cache"
    out = retrieve(
        pairs,
        corpus,
        Encoder(args.model),
        args.top_k,
        index=args.index,
        cache_dir=cache,
        no_match_threshold=NO_MATCH_THRESHOLD
        if args.no_match_threshold is None
        else args.no_match_threshold,
    )
    write_candidates(args.out, out)
    print(
        f"wrote top-{args.top_k} candidates for {len(out)} pairs from {len(corpus)} captions to {args.out}"
    )
    print(summary_line(retrieval_summary(out)))
    return 0


def _module_names(text: str) -> tuple[str, ...]:
    """``--plugins a,b.c``: module names, comma-separated."""
    names = tuple(n.strip() for n in text.split(","))
    for n in names:
        if not all(part.isidentifier() for part in n.split(".")):
            raise argparse.ArgumentTypeError(f"{n!r} is not a module name")
    return names


def _plugins_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--plugins",
        type=_module_names,
        default=(),
        metavar="MOD[,MOD...]",
        help="plugin modules (motion patterns, facts, ops, exports) to import before anything "
        "else; a manifest's own plugins load only when named here",
    )


def _executor_options(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default=None,
        help=f"where per-clip work runs: local processes or a Ray cluster (default: {default})",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="Ray cluster to run on (HOST:PORT, auto or ray://HOST:PORT; implies --executor ray;"
        " default: a local cluster)",
    )


MAX_PAIRS = 10_000  # retrieval.captions.MAX_PAIRS (kept here so --help stays instant)
MAX_TOP_K = 1_000  # retrieval.search.MAX_TOP_K


def build_parser() -> argparse.ArgumentParser:
    from tempogen.cli_types import bounded_int, finite_float, positive_int, seed_int
    from tempogen.config import MAX_FPS

    p = argparse.ArgumentParser(
        prog="tempogen",
        description="Build, edit, audit and score video benchmarks for visual temporal "
        "reasoning (TOMATO, Vinoground and Video-TT layouts).",
    )
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="render a dataset from a config")
    g.add_argument(
        "--config", default="configs/default.yaml", help="YAML config (default: %(default)s)"
    )
    g.add_argument(
        "--out",
        default="dataset",
        help="output folder, or an fsspec URL (s3://..., ftp://...) to publish to "
        "(default: %(default)s)",
    )
    g.add_argument(
        "--work",
        default=None,
        help="local working copy of a URL --out (default: under $TEMPOGEN_CACHE, "
        "~/.cache/tempogen)",
    )
    g.add_argument(
        "-j", "--jobs", type=int, default=None, help="worker processes (default: all cores)"
    )
    g.add_argument(
        "--allow-large",
        action="store_true",
        help="build even past the cost limits (a clip over 144,000 frames, over 8 GB of memory "
        "a process, or over a day of one core's time by the estimate)",
    )
    g.add_argument(
        "--dry-run",
        action="store_true",
        help="print the estimate and the planned clips, and write nothing",
    )
    g.add_argument(
        "--replace",
        action="store_true",
        help="delete a dataset built in --out with another config first (default: refuse)",
    )
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _plugins_option(g)
    _executor_options(g, "the config's executor, else local")
    g.set_defaults(func=_generate)
    e = sub.add_parser("edit", help="apply YAML edit pipelines to every clip of a manifest")
    e.add_argument(
        "--manifest", required=True, help="input manifest (JSONL); videos relative to it"
    )
    e.add_argument("--pipeline", required=True, help="YAML: a list of ops, or variant name -> list")
    e.add_argument("--out", required=True, help="output folder for edited clips and their manifest")
    e.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first edit an op refuses (default: skip it)",
    )
    e.add_argument(
        "--keep-uncertified",
        action="store_true",
        help="write edits whose answer TOMATO's 16 samples do not show, marked "
        "certificate.ok: false (default: refuse them)",
    )
    e.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _plugins_option(e)
    e.set_defaults(func=_edit)
    a = sub.add_parser("audit", help="check a dataset")
    asub = a.add_subparsers(dest="audit", required=True)
    v = asub.add_parser("verify", help="re-derive every simulated answer from the video's pixels")
    v.add_argument("--manifest", required=True, help="manifest (JSONL) to verify")
    v.add_argument(
        "--min",
        type=finite_float(0, 100),
        default=100.0,
        metavar="PERCENT",
        help="agreement needed to exit 0, 0..100 (default 100: any disagreement exits 1)",
    )
    v.add_argument(
        "--sample", type=positive_int, default=None, help="verify an evenly spread sample of N rows"
    )
    v.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default 1)")
    v.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _plugins_option(v)
    _executor_options(v, "local")
    v.set_defaults(func=_audit_verify)
    va = asub.add_parser("validity", help="certificates and kappa / tau / rho of an ideal observer")
    va.add_argument("--manifest", required=True, help="manifest (JSONL) to audit")
    va.add_argument(
        "--seed", type=seed_int, default=None,
        help="seed of the shuffled and random settings (default: the build's, from config.json)",
    )  # fmt: skip
    va.add_argument("--out", default=None, help="also write the figures as JSON here")
    _plugins_option(va)
    va.set_defaults(func=_audit_validity)
    sc = asub.add_parser(
        "shortcuts", help="blind baselines (option position, rank, text, metadata) vs chance"
    )
    sc.add_argument("--manifest", required=True, help="manifest (JSONL) to audit")
    sc.add_argument(
        "--baselines", default="position,rank,text,metadata",
        help="comma-separated: position, rank, text, metadata (default: all)",
    )  # fmt: skip
    sc.add_argument("--model", default=None, help="sentence-transformers model (default: ours)")
    sc.add_argument("--out", default=None, help="also write the report as JSON here")
    _plugins_option(sc)
    sc.set_defaults(func=_audit_shortcuts)
    ce = asub.add_parser(
        "captions-eval", help="precision and recall of the caption audit on labelled pairs"
    )
    ce.add_argument(
        "--labelled", default=None, help="labelled pairs JSONL (default: the shipped set)"
    )
    ce.add_argument(
        "--near-dup", default="embedding", choices=["embedding", "jaccard", "off"],
        help="near-duplicate search of the audit (default %(default)s)",
    )  # fmt: skip
    ce.add_argument("--model", default=None, help="sentence-transformers model name or local path")
    ce.add_argument(
        "--cache-dir", default=None, help="embedding cache (default: ~/.cache/tempogen/embeddings)"
    )
    ce.set_defaults(func=_audit_captions_eval)
    vd = sub.add_parser(
        "validate",
        help="check a manifest, an export or a dataset folder; problems name file, line, field",
    )
    vd.add_argument(
        "path",
        help="manifest.jsonl, tomato/ (or one data/*.json), videott.json, vinoground/, hf/, "
        "lmms_eval/, or a dataset folder (all of them)",
    )
    vd.add_argument(
        "--videos-under",
        action="append",
        default=[],
        metavar="DIR",
        help="a manifest's videos may also lie under DIR (default: only in the manifest's "
        "folder), e.g. TOMATO's own videos for an `import tomato --out` kept elsewhere",
    )
    _plugins_option(vd)
    vd.set_defaults(func=_validate)
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
    _plugins_option(ev)
    ev.set_defaults(func=_eval)
    cap = sub.add_parser("captions", help="temporal-counterfactual caption pairs")
    csub = cap.add_subparsers(dest="captions", required=True)
    cg = csub.add_parser("generate", help="write caption pairs: offline, from an LLM, or a file")
    cg.add_argument("--source", required=True, help="offline | llm | a CSV/JSONL file of pairs")
    cg.add_argument(
        "-n", type=bounded_int(1, MAX_PAIRS), default=100,
        help=f"how many pairs, 1..{MAX_PAIRS} (default %(default)s)",
    )  # fmt: skip
    cg.add_argument("--out", required=True, help="pairs JSONL to write")
    cg.add_argument("--seed", type=int, default=0, help="seed of the offline generator")
    cg.add_argument(
        "--base-url", default=None, help="OpenAI-compatible endpoint (or TEMPOGEN_LLM_BASE_URL)"
    )
    cg.add_argument("--api-key", default=None, help="API key (or TEMPOGEN_LLM_API_KEY)")
    cg.add_argument("--model", default=None, help="model name (or TEMPOGEN_LLM_MODEL)")
    cg.add_argument("--cache-dir", default=None, help="LLM response cache (default: beside --out)")
    cg.add_argument("--llm-config", default=None, help="YAML: base_url, model, timeout, ...")
    cg.add_argument(
        "--timeout", type=finite_float(0.1, 3600), default=None,
        help="deadline in seconds for each whole LLM request, 0.1..3600 (default 60)",
    )  # fmt: skip
    cg.add_argument(
        "--max-attempts", type=bounded_int(1, 50), default=None,
        help="tries per LLM request, 1..50 (default 5)",
    )  # fmt: skip
    cg.set_defaults(func=_captions_generate)
    ca = csub.add_parser("audit", help="check pairs: same words, temporal order, duplicates")
    ca.add_argument("file", help="pairs as CSV (pos,neg[,major,minor]) or JSONL")
    ca.add_argument("--strict", action="store_true", help="exit 1 when any pair fails")
    ca.add_argument("--report", default=None, help="write a JSONL verdict per pair here")
    ca.add_argument(
        "--near-dup",
        default="embedding",
        choices=["embedding", "jaccard", "off"],
        help="near-duplicate search: sentence embeddings + FAISS (default), shared words "
        "(fast, no model) or none; exact duplicates are always found",
    )
    ca.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="near-duplicate similarity (default: cosine 0.88 for embedding, 0.8 for jaccard)",
    )
    ca.add_argument("--model", default=None, help="sentence-transformers model name or local path")
    ca.add_argument(
        "--cache-dir", default=None, help="embedding cache (default: ~/.cache/tempogen/embeddings)"
    )
    ca.set_defaults(func=_captions_audit)
    rt = sub.add_parser(
        "retrieve", help="top-k corpus captions (and their videos) for caption pairs"
    )
    rt.add_argument("--pairs", required=True, help="pairs JSONL (rows with pos and neg)")
    rt.add_argument(
        "--corpus",
        required=True,
        action="append",
        help="vatex:PATH | jsonl:PATH | library:DIR (repeatable)",
    )
    rt.add_argument(
        "--top-k", type=bounded_int(1, MAX_TOP_K), default=20,
        help=f"candidates per caption, 1..{MAX_TOP_K} (default %(default)s)",
    )  # fmt: skip
    rt.add_argument("--out", required=True, help="candidates JSONL to write")
    rt.add_argument("--model", default=None, help="sentence-transformers model name or local path")
    rt.add_argument(
        "--index",
        default="flat",
        choices=["flat", "hnsw", "ivf"],
        help="FAISS index (default exact)",
    )
    rt.add_argument("--cache-dir", default=None, help="embedding cache (default: beside --out)")
    rt.add_argument(
        "--no-match-threshold",
        type=float,
        default=None,
        help="cosine below which a candidate is no match (default: the value calibrated for "
        "the bundled model by scripts/calibrate_no_match.py)",
    )
    rt.set_defaults(func=_retrieve)
    hu = sub.add_parser("human", help="simulated humans from motion files")
    husub = hu.add_subparsers(dest="human_cmd", required=True)
    hr = husub.add_parser(
        "render", help="render an AMASS .npz, VIBE .pkl or BVH motion as an mp4 plus its joints"
    )
    hr.add_argument("motion", help="motion file (.npz AMASS, .pkl VIBE, .bvh)")
    hr.add_argument("--out", required=True, help="output .mp4 (joints go to <out>.joints.json)")
    hr.add_argument(
        "--fps", type=finite_float(1, MAX_FPS), default=30.0,
        help="clip frame rate, 1 to 240 (resampled; default %(default)s)",
    )  # fmt: skip
    hr.add_argument("--size", default="640x360", type=_size, help="WIDTHxHEIGHT (default 640x360)")
    hr.add_argument("--body", help="SMPL/SMPL-H/SMPL-X model file or folder (default: embedded)")
    hr.add_argument("--background", default="solid", choices=("solid", "gradient", "grid", "noise"))
    hr.add_argument(
        "--joint-map", help="YAML of SMPL joint: BVH joint overriding the mapping (BVH only)"
    )
    hr.add_argument(
        "--allow-large",
        action="store_true",
        help="render even past the cost limits (over 144,000 frames or 8 GB of memory)",
    )
    hr.set_defaults(func=_human_render)
    hm = husub.add_parser(
        "map", help="print which BVH joint drives each SMPL joint (YAML, a joint map to edit)"
    )
    hm.add_argument("motion", help="BVH file")
    hm.add_argument("--joint-map", help="YAML of SMPL joint: BVH joint laid over the mapping")
    hm.set_defaults(func=_human_map)

    im = sub.add_parser("import", help="read another benchmark's folder as a manifest")
    isub = im.add_subparsers(dest="import_cmd", required=True)
    it = isub.add_parser(
        "tomato", help="TOMATO's data/*.json and videos/ as manifest rows (answers as facts)"
    )
    it.add_argument("folder", help="TOMATO folder holding data/ and videos/")
    it.add_argument("--out", help="manifest to write (default: FOLDER/manifest.jsonl)")
    it.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _plugins_option(it)
    it.set_defaults(func=_import_tomato)

    m = sub.add_parser("motions", help="list registered motion patterns and their answers")
    _plugins_option(m)
    m.set_defaults(func=_motions)
    fm = sub.add_parser("formats", help="list registered benchmark formats and what each does")
    _plugins_option(fm)
    fm.set_defaults(func=_formats)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point. A user's error (:class:`~tempogen.errors.TempogenError`) becomes one clear
    line on stderr and exit code 2; anything else is a bug: its traceback, exit code 1.
    ``--plugins`` are imported here, before any command reads a config, manifest or pipeline
    that may need them."""
    from tempogen.errors import TempogenError
    from tempogen.executor import Stopped, stop_on_signals
    from tempogen.plugins import load_plugins

    args = build_parser().parse_args(argv)
    if getattr(args, "jobs", None) is not None and args.jobs < 1:
        print("tempogen: error: -j/--jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        with stop_on_signals():
            load_plugins(getattr(args, "plugins", ()), "--plugins", folder=os.getcwd())
            return int(args.func(args) or 0)
    except TempogenError as exc:
        print(f"tempogen: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head: stop quietly
        sys.stderr.close()
        return 0
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: workers and temp files are gone
        signum = exc.signum if isinstance(exc, Stopped) else 2
        how = "stopped by SIGTERM" if signum == 15 else "interrupted"
        print(f"tempogen: {how}; finished work is kept and a rerun resumes", file=sys.stderr)
        return 128 + signum


if __name__ == "__main__":
    from tempogen.plugins import drop_implicit_cwd

    drop_implicit_cwd()  # ``python -m`` put the current folder first; plugins never need it
    sys.exit(main())
