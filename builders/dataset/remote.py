"""Build into an fsspec URL (``s3://``, ``gs://``, ``ftp://``, ``memory://`` ...) as ``--out``.

The build itself runs in a local working copy of the URL, so every stage keeps its atomic
writes, its lock and its resume records; the copy is then published file by file. A reader of
the URL never sees a half-written file (each upload goes to a hidden name and is renamed, or
is one atomic PUT on an object store), and never a manifest naming a file not uploaded yet:
the build mark goes first, the manifest last. A rerun, here or on another machine, first pulls
what the URL already holds, so finished clips are reused as in a local build.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempogen.errors import ConfigurationError, OutputError
from tempogen.io import write_json

__all__ = ["Remote", "is_url", "local_path", "working_copy"]

LEDGER = ".tempogen-published.json"  # in the working copy: what was uploaded, by content
# Object stores whose PUT is already all-or-nothing: no hidden name and rename (a copy there).
ATOMIC_PUT = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "oss"})


def is_url(out: str | os.PathLike[str]) -> bool:
    """True for a URL with a protocol other than ``file://`` (that one is a local path)."""
    text = os.fspath(out)
    return "://" in text and not text.startswith("file://")


def local_path(out: str | os.PathLike[str]) -> Path:
    """``out`` as a local path (``file://`` stripped)."""
    text = os.fspath(out)
    return Path(text[len("file://") :] if text.startswith("file://") else text)


def working_copy(url: str, work_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where a build into ``url`` runs: ``work_dir``, else a folder named after the URL under
    ``$TEMPOGEN_CACHE`` (default ``~/.cache/tempogen``), so a rerun finds its own copy."""
    if work_dir is not None:
        return Path(work_dir)
    root = Path(os.environ.get("TEMPOGEN_CACHE") or Path.home() / ".cache" / "tempogen")
    tail = "".join(c if c.isalnum() or c in "-_." else "_" for c in url.split("://", 1)[1])
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:12]
    return root / "out" / f"{tail.strip('_')[-48:]}-{digest}"


def _hidden(rel: str) -> bool:
    return any(part.startswith(".") for part in rel.split("/"))


def _entry(path: Path, seen: list[Any] | None = None) -> list[Any]:
    """A ledger entry: size, mtime and sha256 (hashed again only when size or mtime moved)."""
    from tempogen.video import sha256_file

    st = path.stat()
    if seen and seen[:2] == [st.st_size, st.st_mtime_ns]:
        return [st.st_size, st.st_mtime_ns, seen[2]]
    return [st.st_size, st.st_mtime_ns, sha256_file(path)]


def _read_ledger(local: Path) -> dict[str, list[Any]]:
    try:
        data = json.loads((local / LEDGER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@dataclass
class Remote:
    """A dataset folder at an fsspec URL."""

    url: str
    fs: Any
    root: str

    @classmethod
    def open(cls, url: str) -> Remote:
        """The URL's file system, or a clear error naming ``--out`` (unknown protocol, a
        backend such as ``s3fs`` not installed)."""
        from fsspec.core import url_to_fs

        try:
            fs, root = url_to_fs(url)
        except ImportError as exc:
            raise ConfigurationError(f"--out {url}: {exc} (fsspec's backend for it)") from exc
        except ValueError as exc:
            raise ConfigurationError(f"--out {url}: not a URL fsspec can open: {exc}") from exc
        return cls(url, fs, root.rstrip("/"))

    def _path(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def listing(self) -> dict[str, int]:
        """Every file under the URL: relative path -> size; empty when nothing is there."""
        try:
            found = self.fs.find(self.root, detail=True)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise OutputError(f"{self.url}: cannot list it: {exc}") from exc
        prefix = self.root.lstrip("/") + "/"
        out = {}
        for path, info in found.items():
            path = path.lstrip("/")
            if not path.startswith(prefix) or info.get("type", "file") != "file":
                continue
            rel = path[len(prefix) :]
            if not _upload_in_flight(rel):
                out[rel] = int(info.get("size") or 0)
        return out

    def read_json(self, rel: str) -> dict[str, Any] | None:
        """A small JSON file at the URL, or None when it is not there or not JSON."""
        try:
            data = json.loads(self.fs.cat_file(self._path(rel)))
        except (FileNotFoundError, ValueError, UnicodeDecodeError):
            return None
        return data if isinstance(data, dict) else None

    def pull(self, local: Path, progress: bool = False) -> int:
        """Download every file the URL holds that ``local`` lacks; returns how many. A file
        lands under its name only once whole, as every local write does."""
        from tempogen.io import atomic_path

        have = self.listing()
        wanted = sorted(rel for rel in have if not (local / rel).is_file())
        ledger = _read_ledger(local)
        try:
            for rel in _bar(wanted, f"pulling from {self.url}", progress):
                with atomic_path(local / rel) as tmp:
                    self.fs.get_file(self._path(rel), str(tmp))
                ledger[rel] = _entry(local / rel)  # the URL holds these bytes: no re-upload
        finally:
            write_json(local / LEDGER, ledger, indent=None)
        return len(wanted)

    def remove(self, names: Iterable[str]) -> None:
        """Delete these top-level entries at the URL (``--replace`` of another build)."""
        for name in names:
            path = self._path(name)
            if self.fs.exists(path):
                self.fs.rm(path, recursive=True)

    def publish(self, local: Path, first: Iterable[str] = (), last: Iterable[str] = (),
                progress: bool = False) -> int:  # fmt: skip
        """Upload every file of ``local`` the URL lacks or holds other bytes of, ``first``
        before the rest and ``last`` after it; returns how many were uploaded. Hidden files
        (temp files, the lock, the ledger) stay local unless named in ``first`` or ``last``.

        What was uploaded is kept in ``local``'s ledger by content hash, so a republish sends
        only what changed (hashing only files whose size or mtime moved)."""
        ledger = _read_ledger(local)
        there = self.listing()
        first = [r for r in first if (local / r).is_file()]
        last = [r for r in last if (local / r).is_file()]
        files = sorted(
            rel
            for rel in (p.relative_to(local).as_posix() for p in local.rglob("*") if p.is_file())
            if not _hidden(rel) and rel not in first and rel not in last
        )
        order = first + files + last
        todo = []
        for rel in order:
            seen = ledger.get(rel)
            fresh = _entry(local / rel, seen)
            if seen and seen[2] == fresh[2] and there.get(rel) == fresh[0]:
                ledger[rel] = fresh
                continue
            todo.append((rel, fresh))
        try:
            for rel, fresh in _bar(todo, f"publishing to {self.url}", progress):
                self._put(local / rel, rel)
                ledger[rel] = fresh
        finally:
            write_json(local / LEDGER, ledger, indent=None)
        return len(todo)

    def _put(self, src: Path, rel: str) -> None:
        """One file up, never visible half-written under its final name."""
        final = self._path(rel)
        parent = final.rsplit("/", 1)[0]
        try:
            self.fs.makedirs(parent, exist_ok=True)
            if _protocols(self.fs) & ATOMIC_PUT:
                self.fs.put_file(str(src), final)
                return
            tmp = f"{parent}/.{final.rsplit('/', 1)[1]}.{os.getpid()}.upload"
            self.fs.put_file(str(src), tmp)
            if self.fs.exists(final):
                self.fs.rm_file(final)  # some servers (FTP) refuse to rename over a file
            self.fs.mv(tmp, final)
        except OSError as exc:
            raise OutputError(f"{self.url}/{rel}: upload failed: {exc}") from exc


def _upload_in_flight(rel: str) -> bool:
    """An upload in flight (another run's, or one a killed run left): never pulled."""
    return rel.rsplit("/", 1)[-1].endswith(".upload")


def _protocols(fs: Any) -> set[str]:
    proto = fs.protocol
    return {proto} if isinstance(proto, str) else set(proto)


def _bar(items: list[Any], desc: str, enabled: bool) -> Iterable[Any]:
    if not enabled or not items:
        return items
    from tqdm import tqdm

    return tqdm(items, unit="file", desc=desc, dynamic_ncols=True)
