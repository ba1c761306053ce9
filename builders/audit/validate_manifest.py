"""The manifest check of ``tempogen validate``: every row against the schema, its plugins and
motion pattern, itself (the answer key against the fact its labels read) and its video."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import av

from tempogen.builders.dataset.reading import needs_motion, row_motion
from tempogen.builders.exports.registry import FileCheck
from tempogen.errors import InputFileError, PluginError
from tempogen.facts import FACTS, Fact, FactError, get_fact
from tempogen.labels import Labels
from tempogen.manifest import (
    import_manifest_plugins,
    manifest_problems,
    read_lines,
)
from tempogen.questions import option_text
from tempogen.video import sha256_file


def check_manifest(
    path: Path, plugins: Sequence[str] = (), videos_under: Sequence[Path] = ()
) -> FileCheck:
    """A unified manifest: every row against the schema, ids unique, the plugins it names
    allowed and importable, every row's motion pattern registered, every row agreeing with
    itself (:func:`row_contradiction`) and every video sound (:func:`video_problem`)."""

    def result(problems: list[str], n: int = 0) -> FileCheck:
        return FileCheck(path, "manifest", n, "row", tuple(problems))

    try:
        lines = read_lines(path)
    except InputFileError as exc:
        return result([str(exc)])
    problems = manifest_problems(lines, path)
    try:
        import_manifest_plugins(lines, path, plugins)
    except (PluginError, InputFileError) as exc:
        return result([*problems.values(), str(exc)], len(lines))
    roots = (path.parent, *videos_under)
    for n, row in lines:
        if n in problems:
            continue
        where = f"{path}:{n}"
        try:
            if needs_motion(row):
                row_motion(row, where)
        except InputFileError as exc:
            problems[n] = str(exc)
            continue
        bad = row_contradiction(row) or video_problem(row, roots)
        if bad is not None:
            problems[n] = f"{where}: {bad[0]}: {bad[1]}"
    return result([problems[n] for n in sorted(problems)], len(lines))


def _key(fact: Fact, value: Any) -> str | None:
    """A stored fact value's answer key (JSON lists read as the tuples facts derive), or None
    when it has none (undetermined, or not a value of the fact)."""

    def tup(v: Any) -> Any:
        return tuple(tup(x) for x in v) if isinstance(v, list) else v

    try:
        return fact.key(tup(value))
    except Exception:  # a value of another shape: no key, which the caller reports
        return None


def row_contradiction(row: dict[str, Any]) -> tuple[str, str] | None:
    """The first field of a schema-valid row that contradicts the row's own answer, as
    (field, problem); None when they agree.

    The answer is ``answer_key`` (else ``option_keys[answer]``); it must be the key of
    ``labels.answer`` (the fact read from every frame's states), of the certificate's 16- and
    80-frame readings (unless the row says ``certificate.ok: false``), of the one fact a row
    without states declares in ``labels``, and each option must be its key's wording. The
    schema already ties ``answer``, ``answer_text``, ``answer_key`` and ``option_keys``
    together (:func:`~tempogen.manifest.validate_row`). Only fields present are checked: an
    imported TOMATO row with a free-word answer has no key to check.
    """
    keys, labels = row.get("option_keys"), row["labels"]
    claimed = row.get("answer_key", keys[row["answer"]] if keys else None)
    if claimed is None:
        return None
    if "tracks" in labels:
        fact_name = labels["query"]["fact"]
    else:  # declared facts (an imported row): the one the row names, if it names one
        named = [k for k in labels if k in FACTS]
        if len(named) != 1:
            return None
        fact_name = named[0]
    try:
        fact = get_fact(fact_name)
    except FactError as exc:
        return ("labels.query.fact" if "tracks" in labels else "labels"), str(exc)
    field = "answer_key" if "answer_key" in row else f"option_keys[{row['answer']}]"
    if "tracks" not in labels:
        seen = _key(fact, labels[fact_name])
        if seen != claimed:
            return f"labels.{fact_name}", _disagree(labels[fact_name], seen, field, claimed)
        return None
    if "answer" in labels:
        seen = _key(fact, labels["answer"])
        if seen != claimed:
            return "labels.answer", _disagree(labels["answer"], seen, field, claimed)
    cert = row.get("certificate")
    if isinstance(cert, dict) and cert.get("ok") is not False:
        for name in ("sampled", "sampled_80"):
            if name in cert and _key(fact, cert[name]) != claimed:
                seen = _key(fact, cert[name])
                return f"certificate.{name}", _disagree(cert[name], seen, field, claimed)
    if keys:
        try:
            states = Labels.from_json(labels)
            wording = [option_text(fact_name, k, states) for k in keys]
        except Exception as exc:  # a key the fact has no wording for, labels it cannot read
            return "option_keys", f"cannot word the options from their keys: {exc!r}"
        for i, (text, want) in enumerate(zip(row["options"], wording, strict=True)):
            if text != want:
                return f"options[{i}]", f"{text!r} is not the wording of {keys[i]!r} ({want!r})"
    return None


def _disagree(value: Any, key: str | None, field: str, claimed: str) -> str:
    said = f"key {key!r}" if key is not None else "no answer key"
    return f"{value!r} ({said}) contradicts {field} {claimed!r}"


def inside(path: Path, roots: Sequence[Path]) -> bool:
    """Whether ``path``, links followed, lies in one of ``roots`` (a dataset's folder)."""
    real = path.resolve()
    return any(real.is_relative_to(r.resolve()) for r in roots)


def video_problem(row: dict[str, Any], roots: Sequence[Path]) -> tuple[str, str] | None:
    """The first problem of a row's video, as (field, problem): its path leaves the dataset
    folder (``roots[0]``, or another of ``roots``), it is missing, it does not open and
    decode as a video, or its size, frame count or sha256 is not the row's."""
    rel = row["video"]
    path = roots[0] / rel
    if Path(rel).is_absolute() or not inside(path, roots):
        return "video", f"{rel!r} leaves the dataset folder {roots[0]}"
    if not path.is_file():
        return "video", f"no such file {path}"
    try:
        with av.open(str(path)) as c:
            if not c.streams.video:
                return "video", f"{path} holds no video stream"
            stream = c.streams.video[0]
            size = (stream.codec_context.width, stream.codec_context.height)
            next(c.decode(stream), None)  # the first frame decodes
            c.seek(0)
            frames = sum(1 for pkt in c.demux(stream) if pkt.size)
    except (av.error.FFmpegError, ValueError, OSError) as exc:
        return "video", f"{path} is not a readable video: {exc}"
    for name, have in (("width", size[0]), ("height", size[1]), ("num_frames", frames)):
        if name in row and row[name] != have:
            return name, f"{row[name]} but the video {path} has {have}"
    if "video_sha256" in row and sha256_file(path) != row["video_sha256"]:
        return "video_sha256", f"the video {path} is another file (its sha256 differs)"
    return None
