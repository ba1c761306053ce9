"""The code blocks of README.md and docs/: parsed with their page and line, checked against the
contract in docs/contributing.md, and run in a page's sandbox (tests/docs/test_code_blocks.py).

A sandbox is a folder holding what a reader of the page has after ``make dataset`` in a fresh
clone: ``configs/`` (``default.yaml`` made tiny), ``examples/``, ``assets/``, the ``Makefile``,
``pyproject.toml``, ``.venv`` (links to this interpreter's environment) and ``dataset/``."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

try:
    import tomllib
except ImportError:  # Python 3.10: pytest itself depends on tomli there
    import tomli as tomllib  # type: ignore[no-redef]

from kit import NAMES_ITS_FOLDER, REPO
from openai_server import ChatHandler, ChatServer, running

RUN = ("sh", "python")  # run, in page order
DATA = ("yaml", "json", "jsonl", "csv", "toml")  # a file (<!-- file: NAME -->) or parsed
SHOWN = ("text",)  # output or a listing: never run
WRITABLE = (*DATA, "python")  # what a <!-- file: NAME --> comment may name
BLOCK_TIMEOUT_S = 120.0  # each sh or python block
TAIL = 2000  # characters of a failed block's stdout and stderr in its message

# the tiny default config: configs/default.yaml with these keys replaced (every section stays,
# so every export is written: humans, 3D objects and 2D shapes, variants, minimal pairs,
# Vinoground pairs and retrieval pairs). 320x180 is the smallest size tried at which `tempogen
# audit verify` agrees with every row (at 160x90 it misreads a 2D spin and a 3D roll order).
TINY = {
    "size": [320, 180],
    "fps": 8,
    "duration": [2.0, 3.0],
    "samples_per_task": 2,
    "vinoground": {"pairs": 2},
    "retrieval": {"pairs": 2},
    "scenes3d": {"duration": [2.0, 3.0]},
}
SANDBOX_COPIES = ("configs", "examples", "assets", "Makefile", "pyproject.toml")

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FILE = re.compile(r"^<!--\s*file\b\s*:?(?P<arg>.*?)-->$")
_NOT_RUN = re.compile(r"^<!--\s*not run\b\s*:?(?P<arg>.*?)-->$")
_SNIPPET = re.compile(r'^--8<-- "(?P<path>[^"]+)"$')


def expand_snippets(body: list[str], page: str, line: int, root: Path = REPO) -> list[str]:
    """``body`` with each ``--8<-- "PATH"`` line replaced by that file's lines, as
    pymdownx.snippets does for the site (base path: the repository): a page that shows
    examples/freeze.py runs the file itself. A missing file is a :class:`BlockError`."""
    out: list[str] = []
    for k, text in enumerate(body):
        m = _SNIPPET.match(text.strip())
        if m is None:
            out.append(text)
            continue
        path = (root / m["path"]).resolve()
        if not path.is_relative_to(root.resolve()) or not path.is_file():
            raise BlockError(f"{page}:{line + 1 + k}: --8<-- {m['path']!r}: no such file")
        out.extend(path.read_text(encoding="utf-8").splitlines())
    return out


class BlockError(Exception):
    """A block that breaks the contract or fails: the message names page:line."""


@dataclass(frozen=True)
class Block:
    """One fenced block: ``line`` is its opening fence's (1-based), ``code`` its text with the
    fence's indentation removed; ``file``/``not_run`` what the comment on the line before says
    (None: no such comment; ``not_run`` "" is a comment without a reason)."""

    page: str
    line: int
    lang: str
    code: str
    file: str | None = None
    not_run: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def _language(info: str) -> str:
    """The language of a fence's info string: its first word (```sh title="x"), or the first
    ``.class`` of an attribute list (```{.sh title="x"})."""
    info = info.strip()
    if info.startswith("{"):
        m = re.search(r"\.([\w+-]+)", info)
        return m.group(1) if m else ""
    return info.split()[0] if info else ""


def parse_blocks(text: str, page: str) -> list[Block]:
    """Every fenced block of a Markdown page in page order (``` or ~~~, indented fences in
    lists too). An unclosed fence, or a ``file:``/``not run:`` comment that is not on the line
    right before a fence (it would apply to nothing), is a :class:`BlockError`."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m or (m["fence"][0] == "`" and "`" in m["info"]):
            comment = lines[i].strip()
            if _FILE.match(comment) or _NOT_RUN.match(comment):
                after = lines[i + 1] if i + 1 < len(lines) else ""
                if not _OPEN.match(after):
                    raise BlockError(
                        f"{page}:{i + 1}: {comment} belongs on the line right before a fence"
                    )
            i += 1
            continue
        start, indent, fence = i, len(m["indent"]), m["fence"]
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        i += 1
        while i < len(lines) and not close.match(lines[i]):
            line = lines[i]
            cut = len(line) - len(line.lstrip(" \t"))
            body.append(line[min(cut, indent) :])
            i += 1
        if i == len(lines):
            raise BlockError(f"{page}:{start + 1}: the fence {fence} is never closed")
        i += 1
        before = lines[start - 1].strip() if start else ""
        f, n = _FILE.match(before), _NOT_RUN.match(before)
        blocks.append(
            Block(
                page=page,
                line=start + 1,
                lang=_language(m["info"]),
                code="\n".join(expand_snippets(body, page, start + 1)) + ("\n" if body else ""),
                file=f["arg"].strip() if f else None,
                not_run=n["arg"].strip() if n else None,
            )
        )
    return blocks


def check_blocks(blocks: list[Block]) -> None:
    """The contract's rules that need nothing run: a known language, a reason for every
    ``not run``, and ``file:`` only before a block that can be a file, with a name. Every
    block that breaks one is named in the one :class:`BlockError`."""
    known = ", ".join((*RUN, *DATA, *SHOWN))
    problems = []
    for b in blocks:
        if b.lang not in (*RUN, *DATA, *SHOWN):
            shown = f"```{b.lang}" if b.lang else "a fence with no language"
            problems.append(f"{b.where}: {shown} is not in the contract: use one of {known}")
        if b.not_run is not None and not b.not_run:
            problems.append(f"{b.where}: <!-- not run --> needs a reason: <!-- not run: WHY -->")
        if b.file is not None and b.lang not in WRITABLE:
            problems.append(
                f"{b.where}: <!-- file: --> is for {', '.join(WRITABLE)} blocks, not ```{b.lang}"
            )
        elif b.file is not None and not b.file:
            problems.append(f"{b.where}: <!-- file: --> needs a name: <!-- file: NAME -->")
    if problems:
        raise BlockError("\n".join([*problems, "(docs/contributing.md says what each fence does)"]))


def needs_sandbox(blocks: list[Block]) -> bool:
    """Whether a page runs or writes anything (else its blocks are only parsed)."""
    return any(b.not_run is None and (b.lang in RUN or b.file is not None) for b in blocks)


def parse_data(block: Block) -> None:
    """A data block with no ``file:`` comment must be well-formed in its language."""
    try:
        if block.lang == "yaml":
            yaml.safe_load(block.code)
        elif block.lang == "json":
            json.loads(block.code)
        elif block.lang == "jsonl":
            for n, line in enumerate(block.code.splitlines(), 1):
                if line.strip():
                    try:
                        json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise ValueError(f"line {n} of the block: {exc}") from None
        elif block.lang == "csv":
            rows = list(csv.reader(io.StringIO(block.code), strict=True))
            widths = {len(r) for r in rows if r}
            if len(widths) > 1:
                raise ValueError(f"rows of different widths {sorted(widths)}")
        elif block.lang == "toml":
            tomllib.loads(block.code)
    except (ValueError, yaml.YAMLError, csv.Error, tomllib.TOMLDecodeError) as exc:
        raise BlockError(f"{block.where}: malformed ```{block.lang}: {exc}") from None


def write_file(block: Block, sandbox: Path) -> Path:
    """A ``file:`` block written into the sandbox; a name leaving the sandbox is refused."""
    root = sandbox.resolve()
    path = (root / block.file).resolve() if block.file else root
    if not block.file or path == root or not path.is_relative_to(root):
        raise BlockError(f"{block.where}: <!-- file: {block.file} --> is outside the sandbox")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(block.code, encoding="utf-8")
    return path


def _tail(text: str) -> str:
    return text if len(text) <= TAIL else "..." + text[-TAIL:]


def run_code(
    block: Block, sandbox: Path, env: Mapping[str, str], timeout: float = BLOCK_TIMEOUT_S
) -> None:
    """An ``sh`` block under ``bash -euo pipefail`` or a ``python`` block in a fresh
    interpreter, in ``sandbox``; a nonzero exit or a timeout is a :class:`BlockError` with
    the block and the tail of its output (whose line numbers are the page's). What it leaves
    running is killed when it ends."""
    # blank lines before the code: the line numbers bash and Python report are the page's
    code = "\n" * block.line + block.code
    if block.lang == "sh":
        argv = ["bash", "-euo", "pipefail", "-c", code]
    else:
        argv = [str(sandbox / ".venv" / "bin" / "python"), "-c", code]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            argv, cwd=sandbox, env=dict(env), stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True,
        )  # fmt: skip
        try:
            code: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
        if code == 0:
            return
        texts = []
        for f in (out, err):
            f.seek(0)
            texts.append(_tail(f.read().decode("utf-8", "backslashreplace")))
    what = f"timed out after {timeout:g} s" if code is None else f"exited {code}"
    fence = "```" + block.lang
    raise BlockError(
        f"{block.where}: {fence} block {what}\n{fence}\n{block.code}```\n"
        f"--- stdout (tail) ---\n{texts[0]}\n--- stderr (tail) ---\n{texts[1]}"
    )


def run_blocks(
    blocks: list[Block],
    sandbox: Path | None,
    env: Mapping[str, str],
    timeout: float = BLOCK_TIMEOUT_S,
) -> list[tuple[Block, str]]:
    """Each block in page order: run, written, parsed, shown or not run (what happened to it,
    returned beside it). The first failure raises :class:`BlockError`; ``sandbox`` may be None
    only for a page that does not :func:`needs_sandbox`."""
    check_blocks(blocks)
    done: list[tuple[Block, str]] = []
    for b in blocks:
        if b.not_run is not None:
            done.append((b, f"not run: {b.not_run}"))
        elif b.file is not None:
            assert sandbox is not None, "a page that writes files needs a sandbox"
            write_file(b, sandbox)
            done.append((b, f"written: {b.file}"))
        elif b.lang in RUN:
            assert sandbox is not None, "a page that runs code needs a sandbox"
            run_code(b, sandbox, env, timeout)
            done.append((b, "ran"))
        elif b.lang in DATA:
            parse_data(b)
            done.append((b, "parsed"))
        else:
            done.append((b, "shown"))
    return done


def doc_pages(root: Path = REPO) -> list[str]:
    """README.md and every page under docs/, as POSIX paths relative to ``root``."""
    pages = sorted(p.relative_to(root).as_posix() for p in (root / "docs").rglob("*.md"))
    return ["README.md", *pages]


# -- the sandbox -------------------------------------------------------------------------------


def tiny_config(default: Path = REPO / "configs" / "default.yaml") -> str:
    """configs/default.yaml with :data:`TINY`'s keys replaced (nested sections merged), as
    YAML text."""
    data = yaml.safe_load(default.read_text(encoding="utf-8"))
    for key, value in TINY.items():
        if isinstance(value, dict):
            data.setdefault(key, {}).update(value)
        else:
            data[key] = value
    head = "# configs/default.yaml made tiny for the docs' code blocks (tests/docs/docblocks.py)\n"
    return head + yaml.safe_dump(data, sort_keys=False)


def link_venv(dest: Path, venv: Path = Path(sys.prefix)) -> None:
    """``dest`` as a virtual environment: a link to each entry of ``venv`` and a fresh
    ``.installed`` stamp, so the Makefile's ``setup`` finds it installed and installs nothing."""
    dest.mkdir()
    for entry in venv.iterdir():
        if entry.name != ".installed":
            (dest / entry.name).symlink_to(entry)
    (dest / ".installed").touch()


def sandbox_env(sandbox: Path, home: Path, endpoint: str) -> dict[str, str]:
    """The environment blocks run in: the sandbox's ``.venv/bin`` first on PATH, HOME a
    temporary folder, EGL rendering, the test endpoint, and every proxy pointed at a closed
    port (no network, save 127.0.0.1); nothing else of this process's environment leaks in."""
    dead = "http://127.0.0.1:9"
    env = {
        "PATH": f"{sandbox / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "VIRTUAL_ENV": str(sandbox / ".venv"),
        "HOME": str(home),
        "TMPDIR": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYOPENGL_PLATFORM": "egl",
        "TEMPOGEN_TEST_ENDPOINT": endpoint,
        "NO_MKDOCS_2_WARNING": "1",
        "HF_HUB_OFFLINE": "1",
        "PIP_NO_INDEX": "1",
        "no_proxy": "127.0.0.1,localhost",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        env[name] = dead
    for name in ("LD_LIBRARY_PATH", "__EGL_VENDOR_LIBRARY_FILENAMES"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def make_template(dest: Path, timeout: float = 600) -> Path:
    """The sandbox every page's is copied from, as ``dest/sandbox`` (the copies, the tiny
    default config, the linked environment, and ``dataset/`` built by ``make dataset`` itself,
    the real command) and ``dest/home`` (the HOME it was built with: caches a first run fills,
    such as the text-embedding model tempogen exports on first use)."""
    sandbox, home = dest / "sandbox", dest / "home"
    sandbox.mkdir(parents=True)
    home.mkdir()
    for name in SANDBOX_COPIES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, sandbox / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, sandbox / name)
    (sandbox / "configs" / "default.yaml").write_text(tiny_config(), encoding="utf-8")
    link_venv(sandbox / ".venv")
    make = Block(page="(the docs' sandbox)", line=0, lang="sh", code="make dataset\n")
    run_code(make, sandbox, sandbox_env(sandbox, home, "http://127.0.0.1:9/v1"), timeout)
    return dest


SHARED_CACHE = ".cache/tempogen"  # in a page's HOME: a link to the template's (87 MB, read)


def copy_template(template: Path, workdir: Path) -> tuple[Path, Path]:
    """A page's own sandbox and HOME under ``workdir``: copies of the template's (links kept
    as links; tempogen's model cache linked, not copied); the one dataset file that names its
    own folder is made to name the copy's."""
    sandbox, home = workdir / "sandbox", workdir / "home"
    shutil.copytree(template / "sandbox", sandbox, symlinks=True)
    shared = template / "home" / SHARED_CACHE
    shutil.copytree(
        template / "home", home, symlinks=True,
        ignore=lambda folder, names: [n for n in names if Path(folder, n) == shared],
    )  # fmt: skip
    if shared.exists():
        (home / SHARED_CACHE).parent.mkdir(parents=True, exist_ok=True)
        (home / SHARED_CACHE).symlink_to(shared)
    named = sandbox / "dataset" / NAMES_ITS_FOLDER
    if named.exists():
        text = named.read_text(encoding="utf-8")
        named.write_text(text.replace(str(template / "sandbox"), str(sandbox)), encoding="utf-8")
    return sandbox, home


def run_page(
    page: str, text: str, workdir: Path, template: Callable[[], Path]
) -> list[tuple[Block, str]]:
    """A page's blocks, parsed, checked and run in page order: in a fresh copy of the sandbox
    ``template()`` returns (called only for a page that :func:`needs_sandbox`) under
    ``workdir``, with the test endpoint up while they run."""
    blocks = parse_blocks(text, page)
    check_blocks(blocks)
    if not needs_sandbox(blocks):
        return run_blocks(blocks, None, {})
    sandbox, home = copy_template(template(), workdir)
    with endpoint() as url:
        return run_blocks(blocks, sandbox, sandbox_env(sandbox, home, url))


# -- the local model endpoint ------------------------------------------------------------------


class DocsModel(ChatServer):
    """A model that answers every chat completion with the first option letter its prompt
    lists ("A" when it lists none): enough for ``tempogen eval run`` to score it."""

    def __init__(self) -> None:
        super().__init__(DocsHandler)
        self.requests = 0


class DocsHandler(ChatHandler):
    server: DocsModel

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path.rstrip("/").endswith("/models"):
            self.send_json(
                200, {"object": "list", "data": [{"id": "docs-model", "object": "model"}]}
            )
        else:
            self.send_json(404, {"error": {"message": "not found", "type": "invalid_request"}})

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.read_json()
        with self.server.lock:
            self.server.requests += 1
            number = self.server.requests
        self.send_reply(str(body.get("model", "")), first_letter(body), number)


def first_letter(body: dict[str, Any]) -> str:
    """The first option letter ("A. ...") in a chat request's text, else "A"."""
    texts = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [p.get("text", "") for p in content if isinstance(p, dict)]
    m = re.search(r"^\(?([A-H])[.)] ", "\n".join(texts), flags=re.M)
    return m.group(1) if m else "A"


@contextmanager
def endpoint(limit_s: float = 900.0) -> Iterator[str]:
    """A :class:`DocsModel` served on 127.0.0.1 while the block runs; its base URL."""
    with running(DocsModel(), limit_s=limit_s) as server:
        yield server.url
