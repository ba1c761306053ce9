"""Caption corpora to retrieve videos from: VATEX, generic JSONL, and tempogen's own clips.

Every loader returns a :class:`Corpus` of :class:`CorpusEntry` (one caption each); errors name
the file and the entry (index, line or field) so a bad corpus is fixed at its source.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from tempogen.errors import ConfigurationError, InputFileError
from tempogen.facts import FACTS, CaptionParts, FactError, get_fact
from tempogen.io import content_hash, read_json, read_jsonl_lines
from tempogen.labels import Labels

__all__ = [
    "Corpus",
    "CorpusEntry",
    "CorpusError",
    "library_caption",
    "load_corpus",
    "load_jsonl_corpus",
    "load_library",
    "load_vatex",
    "parse_vatex_id",
]

_VATEX_TAIL = re.compile(r"^\d+$")


class CorpusError(InputFileError):
    """A corpus file is missing or malformed; the message names file and entry."""


@dataclass(frozen=True)
class CorpusEntry:
    """One caption of one video; YouTube fields are None when the corpus has none."""

    video_id: str
    caption: str
    youtube_id: str | None = None
    start: float | None = None
    end: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "video_id": self.video_id,
            "youtube_id": self.youtube_id,
            "start": self.start,
            "end": self.end,
            "caption": self.caption,
        }


@dataclass(frozen=True)
class Corpus:
    """An ordered list of caption entries with a content hash (captions + ids) for caching."""

    entries: tuple[CorpusEntry, ...]
    source: str = ""

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, i: int) -> CorpusEntry:
        return self.entries[i]

    def __iter__(self):
        return iter(self.entries)

    @property
    def captions(self) -> list[str]:
        return [e.caption for e in self.entries]

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 over every entry's ids, times and caption, in order."""
        return content_hash(
            [[e.video_id, e.youtube_id, e.start, e.end, e.caption] for e in self.entries]
        )

    @property
    def num_videos(self) -> int:
        return len({e.video_id for e in self.entries})

    @classmethod
    def concat(cls, corpora: Sequence[Corpus]) -> Corpus:
        """Join corpora in order (e.g. VATEX validation + public test)."""
        entries = tuple(e for c in corpora for e in c.entries)
        return cls(entries, source="+".join(c.source for c in corpora))


def parse_vatex_id(video_id: str) -> tuple[str, float, float]:
    """Split ``<youtube id>_<start:06d>_<end:06d>`` from the right (the id may hold _ and -)."""
    parts = video_id.rsplit("_", 2)
    if len(parts) != 3 or not parts[0] or not all(_VATEX_TAIL.match(p) for p in parts[1:]):
        raise ValueError(
            f"videoID {video_id!r} is not '<youtube id>_<start>_<end>' with numeric start/end"
        )
    start, end = float(int(parts[1])), float(int(parts[2]))
    if end < start:
        raise ValueError(f"videoID {video_id!r}: end {end:g} s is before start {start:g} s")
    return parts[0], start, end


def _read_json(path: Path) -> Any:
    try:
        return read_json(path, "VATEX annotations")
    except InputFileError as exc:
        raise CorpusError(str(exc)) from exc


def load_vatex(path: str | os.PathLike[str], per_video: int = 5) -> Corpus:
    """Load a VATEX annotation file (list of {videoID, enCap, chCap?}); keep the first
    ``per_video`` English captions, the ones written directly in English."""
    if not 1 <= per_video <= 10:
        raise ValueError(f"per_video must be between 1 and 10, got {per_video}")
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, list):
        raise CorpusError(f"{path}: expected a JSON list of videos, got {type(data).__name__}")
    entries: list[CorpusEntry] = []
    seen: set[str] = set()
    for i, item in enumerate(data):
        where = f"{path}: entry {i}"
        if not isinstance(item, dict):
            raise CorpusError(f"{where}: expected an object, got {type(item).__name__}")
        vid = item.get("videoID")
        if not isinstance(vid, str):
            raise CorpusError(f"{where}: field 'videoID' missing or not a string")
        try:
            yt, start, end = parse_vatex_id(vid)
        except ValueError as exc:
            raise CorpusError(f"{where}: field 'videoID': {exc}") from exc
        if vid in seen:
            raise CorpusError(f"{where}: videoID {vid!r} appears twice")
        seen.add(vid)
        caps = item.get("enCap")
        if not isinstance(caps, list) or not caps:
            raise CorpusError(f"{where} ({vid}): field 'enCap' missing or not a non-empty list")
        for j, cap in enumerate(caps[:per_video]):
            if not isinstance(cap, str) or not cap.strip():
                raise CorpusError(f"{where} ({vid}): field 'enCap[{j}]' is not a non-empty string")
            entries.append(CorpusEntry(vid, cap.strip(), yt, start, end))
    return Corpus(tuple(entries), source=f"vatex:{path}")


def _opt_float(value: Any, where: str, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CorpusError(f"{where}: field {name!r} must be a finite number or null")
    return float(value)


def load_jsonl_corpus(path: str | os.PathLike[str]) -> Corpus:
    """Load JSON lines {video_id, caption, youtube_id?, start?, end?}; errors name file:line."""
    path = Path(path)
    try:
        rows = read_jsonl_lines(path)
    except InputFileError as exc:
        raise CorpusError(str(exc)) from exc
    entries: list[CorpusEntry] = []
    for n, row in rows:
        where = f"{path}:{n}"
        for key in ("video_id", "caption"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise CorpusError(f"{where}: field {key!r} missing or not a non-empty string")
        yt = row.get("youtube_id")
        if yt is not None and not isinstance(yt, str):
            raise CorpusError(f"{where}: field 'youtube_id' must be a string or null")
        entries.append(
            CorpusEntry(
                row["video_id"],
                row["caption"].strip(),
                yt,
                _opt_float(row.get("start"), where, "start"),
                _opt_float(row.get("end"), where, "end"),
            )
        )
    return Corpus(tuple(entries), source=f"jsonl:{path}")


def _lower_first(text: str) -> str:
    text = text.strip().rstrip(".").strip()
    return text[:1].lower() + text[1:] if text else text


def _answer(row: dict[str, Any], fact: str) -> tuple[str, str]:
    """The row's answer key and its words, from the fact registry (never from option text)."""
    key = str(row.get("answer_key", ""))
    labels_json = row.get("labels") or {}
    try:
        f = get_fact(fact)
    except FactError:
        return key, key
    if "tracks" in labels_json:
        return key, f.phrase(key, Labels.from_json(labels_json))
    nouns = (labels_json.get("meta") or {}).get("nouns") or {}
    return key, f.phrase_without_states(key, nouns)


def library_caption(row: dict[str, Any]) -> str:
    """A one-sentence caption for a tempogen clip from its labels and answer (deterministic).

    Each fact words its own (:meth:`tempogen.facts.Fact.caption`): its keys read as plain
    English, a "none" answer as a negation ("does not move"), and the verb agrees with its
    subject (tests walk every fact and key for bad wording). A fact that has no caption of its
    own (or none for this kind of clip) gets the question with its answer."""
    labels = row.get("labels") or {}
    nouns: dict[str, str] = (labels.get("meta") or {}).get("nouns") or {}
    query = labels.get("query") or {}
    objects: list[str] = list(query.get("objects") or [])
    fact, kind = query.get("fact", ""), query.get("kind", "")
    key, answer = _answer(row, fact)
    subject = nouns.get(objects[0], "the object") if objects else nouns.get("subject", "the object")
    other = nouns.get(objects[1], "") if len(objects) > 1 else ""
    parts = CaptionParts(
        subject, other, tuple(objects), nouns, kind or "", key, answer, labels.get("meta") or {}
    )
    f = FACTS.get(fact)
    caption = f.caption(parts) if f is not None else None
    if caption is not None:
        return caption
    question = str(row.get("question", "")).strip()
    return f"{_lower_first(question.rstrip('?'))}? {answer}" if question else f"{subject}: {answer}"


def load_library(manifest_dir: str | os.PathLike[str]) -> Corpus:
    """tempogen's rendered clips as a corpus: one caption per manifest row, id = row id."""
    path = Path(manifest_dir)
    manifest = path / "manifest.jsonl" if path.is_dir() else path
    try:
        rows = read_jsonl_lines(manifest)
    except InputFileError as exc:
        raise CorpusError(str(exc)) from exc
    entries = []
    for n, row in rows:
        if not isinstance(row.get("id"), str) or not row["id"].strip():
            raise CorpusError(f"{manifest}:{n}: id: missing or not a non-empty string")
        try:
            caption = library_caption(row)
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
            raise CorpusError(
                f"{manifest}:{n}: cannot caption row {row['id']!r}: its labels or answer are "
                f"malformed ({type(exc).__name__}: {exc})"
            ) from exc
        entries.append(CorpusEntry(row["id"], caption))
    return Corpus(tuple(entries), source=f"library:{manifest}")


def _vatex_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise CorpusError(f"{path}: no *.json VATEX files in this folder")
        return files
    return [path]


def load_corpus(spec: str | Iterable[str], per_video: int = 5) -> Corpus:
    """Load ``vatex:PATH`` (file or folder of *.json), ``jsonl:PATH`` or ``library:DIR``;
    several specs (a list) are concatenated in order."""
    if not isinstance(spec, str):
        parts = [load_corpus(s, per_video) for s in spec]
        if not parts:
            raise ConfigurationError("no corpus given")
        return parts[0] if len(parts) == 1 else Corpus.concat(parts)
    kind, sep, rest = spec.partition(":")
    if not sep or not rest:
        raise ConfigurationError(f"corpus {spec!r}: expected vatex:PATH, jsonl:PATH or library:DIR")
    if kind == "vatex":
        corpora = [load_vatex(p, per_video) for p in _vatex_files(Path(rest))]
        return corpora[0] if len(corpora) == 1 else Corpus.concat(corpora)
    if kind == "jsonl":
        return load_jsonl_corpus(rest)
    if kind == "library":
        return load_library(rest)
    raise ConfigurationError(f"corpus {spec!r}: unknown kind {kind!r} (vatex, jsonl or library)")
