"""Atomic file writes and JSON helpers: a file is either complete under its name or absent."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

from tempogen.errors import InputFileError, MissingFileError, OutputError

__all__ = [
    "OutputError",
    "atomic_path",
    "write_bytes",
    "write_text",
    "write_json",
    "write_jsonl",
    "read_jsonl",
    "read_jsonl_lines",
    "read_json",
    "read_text",
    "parse_json",
    "dumps",
    "content_hash",
]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it into place only on success."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
    except OSError as exc:
        raise OutputError(f"{path.parent}: cannot write here: {exc.strerror or exc}") from exc
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o644)
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp_path.unlink()
        raise


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write bytes atomically (temp file, fsync, rename)."""
    try:
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
    except OSError as exc:
        raise OutputError(f"{path}: write failed: {exc.strerror or exc}") from exc


def write_text(path: str | os.PathLike[str], text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def dumps(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, so equal objects give equal bytes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def write_json(path: str | os.PathLike[str], obj: Any, indent: int | None = 2) -> None:
    write_text(path, json.dumps(obj, indent=indent, ensure_ascii=False) + "\n")


def write_jsonl(path: str | os.PathLike[str], rows: Iterable[Any]) -> None:
    write_text(path, "".join(dumps(r) + "\n" for r in rows))


MAX_INPUT_BYTES = 1 << 30  # a user's JSON or JSON-lines file; more is a mistake or /dev/zero


def read_bounded(path: str | os.PathLike[str], what: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """A file's bytes, refused with an :class:`InputFileError` naming it once it passes
    ``limit`` bytes: a device (``/dev/zero``) or a huge file is never read without bound."""
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)
    except FileNotFoundError as exc:
        raise MissingFileError(f"{path}: cannot read {what}: no such file") from exc
    except IsADirectoryError as exc:
        raise InputFileError(f"{path}: cannot read {what}: it is a folder") from exc
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read {what}: {exc.strerror or exc}") from exc
    if len(raw) > limit:
        raise InputFileError(f"{path}: {what} is over the {limit:,} limit of bytes read")
    return raw


def decode_utf8(raw: bytes, path: str | os.PathLike[str], what: str) -> str:
    """UTF-8 text (a leading byte-order mark dropped); other bytes are an
    :class:`InputFileError` naming ``file:line`` and the byte."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + (3 if raw.startswith(b"\xef\xbb\xbf") else 0)
        line = raw[:at].count(b"\n") + 1
        raise InputFileError(
            f"{path}:{line}: {what} is not UTF-8 text (byte {at}: {raw[at : at + 1]!r}); "
            "save it as UTF-8"
        ) from exc


def read_text(path: str | os.PathLike[str], what: str, limit: int = MAX_INPUT_BYTES) -> str:
    """A user's text file, bounded (:func:`read_bounded`) and UTF-8 (:func:`decode_utf8`)."""
    return decode_utf8(read_bounded(path, what, limit), path, what)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return out


def _duplicate_at(text: str) -> tuple[str, int, int] | None:
    """The first key repeated within one object of a valid JSON ``text``: (key, offset of its
    first and of its second occurrence). A slow pure-Python pass, run only on the error path."""
    import json.decoder
    import json.scanner

    # the pure-Python scanner's parts: private to json, so typeshed leaves them out
    ws = cast(Any, json.decoder).WHITESPACE.match
    scanstring = cast(Any, json.decoder).scanstring

    class Found(Exception):
        pass

    def parse_object(s_and_end: tuple[str, int], strict: bool, scan_once: Any, *_: Any) -> Any:
        s, end = s_and_end
        seen: dict[str, int] = {}
        end = ws(s, end).end()
        if s[end : end + 1] == "}":
            return {}, end + 1
        while True:
            at = end
            key, end = scanstring(s, end + 1, strict)
            if key in seen:
                raise Found(key, seen[key], at)
            seen[key] = at
            end = ws(s, ws(s, end).end() + 1).end()  # past ':'
            _, end = scan_once(s, end)
            end = ws(s, end).end()
            sep, end = s[end], end + 1
            if sep == "}":
                return {}, end
            end = ws(s, end).end()

    decoder: Any = json.JSONDecoder()
    decoder.parse_object = parse_object
    scan = cast(Any, json.scanner).py_make_scanner(decoder)
    try:
        scan(text, ws(text, 0).end())
    except Found as found:
        key, first, second = found.args
        return str(key), int(first), int(second)
    except (RecursionError, ValueError, IndexError):
        return None
    return None


def parse_json(text: str, where: str | os.PathLike[str], first_line: int = 1) -> Any:
    """One JSON document; invalid JSON or a key repeated in one object (which ``json`` would
    silently collapse, keeping the last) is an :class:`InputFileError` naming ``where`` and
    the line(s), counted from ``first_line``."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise InputFileError(
            f"{where}:{first_line + exc.lineno - 1}: not valid JSON: {exc.msg}"
        ) from exc
    except RecursionError as exc:
        raise InputFileError(f"{where}:{first_line}: JSON nests too deeply") from exc
    except _DuplicateKey as exc:
        found = _duplicate_at(text)  # the first in reading order, with its offsets
        if found is None:  # pragma: no cover - the slow pass finds what the fast one saw
            key = exc.key.encode("utf-8", "backslashreplace").decode("utf-8")
            raise InputFileError(f"{where}:{first_line}: key {key!r} appears twice") from None
        key, a, b = found
        key = key.encode("utf-8", "backslashreplace").decode("utf-8")
        la, lb = (first_line + text.count("\n", 0, i) for i in (a, b))
        place = f"line {la}" if la != lb else "the same line"
        raise InputFileError(
            f"{where}:{lb}: key {key!r} appears twice in one object (first on {place}); "
            "JSON keeps only the last, so remove one"
        ) from None


def read_json(
    path: str | os.PathLike[str], what: str = "JSON file", limit: int = MAX_INPUT_BYTES
) -> Any:
    """A user's JSON file: bounded, UTF-8, valid, no repeated keys; errors name ``file:line``."""
    return parse_json(read_text(path, what, limit), path)


def read_jsonl_lines(path: str | os.PathLike[str]) -> list[tuple[int, dict[str, Any]]]:
    """JSON objects, one a line, each with its line number (blank lines skipped); a file that
    cannot be read, a line that is no JSON object, a key repeated in one object, a lone
    surrogate escape or text that is not UTF-8 is an :class:`InputFileError` naming
    ``file:line``. The one JSON-lines reader: manifests, caption pairs, corpora, labels."""
    try:
        f = open(path, "rb")
    except FileNotFoundError as exc:
        raise MissingFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    out = []
    size = 0
    with f:
        try:
            for n, raw in enumerate(f, 1):
                size += len(raw)
                if size > MAX_INPUT_BYTES:
                    raise InputFileError(
                        f"{path}:{n}: over the {MAX_INPUT_BYTES:,}-byte limit of a JSON-lines file"
                    )
                if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise InputFileError(
                        f"{path}:{n}: not UTF-8 text (byte {exc.start} of the line: "
                        f"{raw[exc.start : exc.start + 1]!r}); save it as UTF-8"
                    ) from exc
                if not text.strip():
                    continue
                obj = parse_json(text.rstrip("\r\n"), path, n)
                if not isinstance(obj, dict):
                    raise InputFileError(
                        f"{path}:{n}: expected a JSON object, got {type(obj).__name__}"
                    )
                bad = _surrogate_field(obj)
                if bad is not None:
                    raise InputFileError(
                        f"{path}:{n}: {bad}: holds a lone surrogate escape (\\ud800-\\udfff), "
                        "which is no character and cannot be written as UTF-8"
                    )
                out.append((n, obj))
        except IsADirectoryError as exc:
            raise InputFileError(f"{path}: cannot read: it is a folder") from exc
        except OSError as exc:
            raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return out


def _surrogate_field(obj: Any, where: str = "") -> str | None:
    """The field path of the first string (or key) holding a lone surrogate, else None."""
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError:
            return where or "(value)"
        return None
    if isinstance(obj, dict):
        for k, v in obj.items():
            name = f"{where}.{k}" if where else str(k)
            bad = _surrogate_field(k, name) or _surrogate_field(v, name)
            if bad is not None:
                return bad.encode("utf-8", "backslashreplace").decode("utf-8")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            bad = _surrogate_field(v, f"{where}[{i}]")
            if bad is not None:
                return bad
    return None


def read_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read JSON lines; a bad line raises an error naming file and line number."""
    return [row for _, row in read_jsonl_lines(path)]


def content_hash(obj: Any) -> str:
    """SHA-256 of an object's canonical JSON."""
    return hashlib.sha256(dumps(obj).encode("utf-8")).hexdigest()


LOCK_NAME = ".tempogen.lock"


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike[str], what: str = "build") -> Iterator[Path]:
    """Hold ``folder``'s lock while writing into it, so two runs never interleave their files.

    An advisory ``flock`` on ``folder/.tempogen.lock``: the kernel drops it when the holder
    dies, so a killed run never leaves the folder locked. A second run fails at once with an
    :class:`OutputError` naming the holder's pid."""
    import fcntl

    path = Path(folder) / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").split()
            pid = holder[0] if holder else "unknown"
            raise OutputError(
                f"{folder}: another tempogen {what} (pid {pid}) is writing into this folder; "
                "wait for it to finish or choose another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {what}\n".encode(), 0)
        yield path
    finally:
        os.close(fd)  # closing releases the lock


MAX_YAML_BYTES = 1 << 20  # configs and pipelines are a few kB; more is a mistake or an attack
MAX_YAML_ALIASES = 20  # an alias bomb expands a few lines into gigabytes
MAX_YAML_DEPTH = 50
MAX_YAML_NODES = 100_000  # values after aliases are expanded


def _yaml12_loader() -> type:
    """SafeLoader reading floats as YAML 1.2 does: ``1e9``, ``1.0e9`` and ``.5E-3`` are numbers
    (YAML 1.1 wants a dot and a signed exponent, so PyYAML read them as strings)."""
    import re

    import yaml

    class Loader(yaml.SafeLoader):  # type: ignore[misc]  # yaml ships no types
        pass

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$"),
        list("-+.0123456789"),
    )
    return Loader


def load_yaml(path: str | os.PathLike[str], what: str) -> tuple[Any, dict[str, int]]:
    """Parse a small YAML file safely: the data, plus the line of every key path
    (``"style.distractors"``, ``"motions[2]"``) so errors can name file, line and field.

    Refused with an :class:`InputFileError` naming the file (and line): a file over 1 MiB,
    bytes that are not UTF-8, invalid YAML, more than 20 aliases or 100,000 values once they
    are expanded, nesting deeper than 50."""
    import yaml

    p = Path(path)
    raw = read_bounded(p, what, MAX_YAML_BYTES)  # never /dev/zero without bound
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputFileError(f"{p}:{line}: {what} is not UTF-8 text (byte {exc.start})") from exc

    class Loader(_yaml12_loader()):  # type: ignore[misc]
        aliases = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                Loader.aliases += 1
                if Loader.aliases > MAX_YAML_ALIASES:
                    line = self.peek_event().start_mark.line + 1
                    raise InputFileError(
                        f"{p}:{line}: more than {MAX_YAML_ALIASES} YAML aliases in one {what}"
                    )
            return super().compose_node(parent, index)

    try:
        node = yaml.compose(text, Loader=Loader)
        lines: dict[str, int] = {}
        _node_lines(node, "", lines, 0, p, [0])
        data = Loader(text).get_single_data() if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise InputFileError(
            f"{p}{where}: not valid YAML: {getattr(exc, 'problem', None) or exc}"
        ) from exc
    except RecursionError as exc:
        raise InputFileError(f"{p}: {what} nests deeper than {MAX_YAML_DEPTH} levels") from exc
    return data, lines


def _node_lines(
    node: Any, path: str, lines: dict[str, int], depth: int, p: Path, seen: list[int]
) -> None:
    """Record the line of every mapping key and sequence item under ``node``."""
    import yaml

    seen[0] += 1
    if seen[0] > MAX_YAML_NODES:
        raise InputFileError(f"{p}: more than {MAX_YAML_NODES:,} values once aliases expand")
    if depth > MAX_YAML_DEPTH:
        raise InputFileError(
            f"{p}:{node.start_mark.line + 1}: nests deeper than {MAX_YAML_DEPTH} levels"
        )
    if isinstance(node, yaml.MappingNode):
        first: dict[Any, int] = {}
        for key, value in node.value:
            line = key.start_mark.line + 1
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                if key.value in first:
                    raise InputFileError(
                        f"{p}:{line}: {path + '.' if path else ''}{key.value}: key appears twice "
                        f"in one mapping (first on line {first[key.value]}); YAML keeps only "
                        "the last, so remove one"
                    )
                first[key.value] = line
            name = f"{path}.{key.value}" if path else str(key.value)
            lines.setdefault(name, key.start_mark.line + 1)
            _node_lines(value, name, lines, depth + 1, p, seen)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            name = f"{path}[{i}]"
            lines.setdefault(name, item.start_mark.line + 1)
            _node_lines(item, name, lines, depth + 1, p, seen)
