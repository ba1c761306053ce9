"""One reliability run, the figures RELIABILITY.md records: a build killed with SIGKILL at
random moments until it finishes, then compared with an uninterrupted build; a build stopped
with SIGTERM and Ctrl-C (SIGINT), each stop checked (exit code, every process gone within 5 s,
one line, no temp file, the lock free), then resumed and compared; and a catalogue of bad
inputs, each run through the CLI, counted as clear when it exits 2 with one line that names
the place (file, line, field or argument), no traceback, every file it was given unchanged
and nothing written outside its folder.

    .venv/bin/python scripts/reliability.py --kills 35          # the recorded run (minutes)
    .venv/bin/python scripts/reliability.py --kills 2 --signals 2 --samples 1    # the test's
    .venv/bin/python scripts/reliability.py --part bad-inputs     # the catalogue alone
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# small, but every kind of clip: 2D, simulated humans, 3D objects, edited variants
KILL_CONFIG = """seed: 3
size: [160, 96]
fps: 10
duration: [2.0, 3.0]
samples_per_task: {samples}
scenes3d: {{humans: 0.34, objects: 0.34, duration: [2.0, 3.0]}}
variants: {{share: 0.3}}
"""


# -- kills ----------------------------------------------------------------------------------
def _generate(config: Path, out: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tempogen.cli", "generate", "--config", str(config)]
    cmd += ["--out", str(out), "-q", "-j", "2"]
    env = {**os.environ, "PYOPENGL_PLATFORM": os.environ.get("PYOPENGL_PLATFORM", "egl")}
    return subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip


def kills(work: Path, rounds: int, seed: int, samples: int = 3) -> dict[str, Any]:
    """Build once uninterrupted; then build into a new folder, SIGKILLing the whole process
    group at a random moment ``rounds`` times (resuming each time), and let it finish."""
    from tempogen.video import VideoError, probe

    work.mkdir(parents=True, exist_ok=True)
    config = work / "kill.yaml"
    config.write_text(KILL_CONFIG.format(samples=samples))
    t0 = time.perf_counter()
    ref = _generate(config, work / "clean")
    if ref.wait(timeout=3600) != 0:
        raise SystemExit(f"reliability: the clean build failed: {ref.stderr.read()[-2000:]!r}")
    clean_s = time.perf_counter() - t0
    rng = np.random.default_rng(seed)
    out = work / "killed"
    killed = 0
    while killed < rounds:
        proc = _generate(config, out)
        delay = float(rng.uniform(0.2, clean_s))
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            killed += 1
            continue
        if proc.returncode != 0:
            raise SystemExit(f"reliability: a resumed build failed: {proc.stderr.read()[-2000:]!r}")
        shutil.rmtree(out)  # it finished before the kill: start a fresh build to kill again
    final = _generate(config, out)
    final_rc = final.wait(timeout=3600)
    manifest_same = (out / "manifest.jsonl").read_bytes() == (
        work / "clean" / "manifest.jsonl"
    ).read_bytes()
    videos = sorted((out / "videos").glob("*.mp4"))
    bad_videos = []
    for v in videos:
        try:
            probe(v)
        except VideoError:
            bad_videos.append(v.name)

    def hidden(root: Path) -> set[str]:
        return {str(p.relative_to(root)) for p in root.rglob("*") if p.name.startswith(".")}

    # what the clean build keeps too (the build's mark, its lock, the embedding cache) is
    # not left over; anything else hidden is (a temp file of a killed run)
    left = sorted(hidden(out) - hidden(work / "clean"))
    rows = len((out / "manifest.jsonl").read_text().splitlines())
    return {
        "config": KILL_CONFIG.format(samples=samples),
        "clean_build_s": round(clean_s, 1),
        "kills": killed,
        "final_exit": final_rc,
        "rows": rows,
        "manifest_identical": manifest_same,
        "videos": len(videos),
        "videos_undecodable": bad_videos,
        "hidden_files_left": left,
    }


# -- signals --------------------------------------------------------------------------------
def _group(pgid: int) -> list[int]:
    """Live processes of a process group (a build's driver and its pool workers)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[0] != "Z" and int(fields[2]) == pgid:
                    pids.append(int(entry.name))
    return pids


def signals(work: Path, clean: Path, rounds: int, seed: int) -> dict[str, Any]:
    """Stop a build with SIGTERM (to the driver) or SIGINT (to the group, as Ctrl-C does),
    alternately, at seeded moments after its first clip; check each stop (exit code, seconds
    until every process is gone, lines on stderr, temp files, the lock), then let a rerun
    finish and compare it with the uninterrupted build ``clean``."""
    import fcntl

    config = work.parent / "kills" / "kill.yaml"
    out = work / "signalled"
    rng = np.random.default_rng(seed + 1)
    stops: list[dict[str, Any]] = []
    tries, wait = 0, 2.0
    while len(stops) < rounds and tries < 5 * rounds:  # a build that finishes first is no stop
        tries += 1
        sig = signal.SIGTERM if len(stops) % 2 == 0 else signal.SIGINT
        have = len(list((out / "clips").glob("*.json"))) if (out / "clips").is_dir() else 0
        proc = _generate(config, out)
        while proc.poll() is None and (
            not (out / "clips").is_dir() or len(list((out / "clips").glob("*.json"))) <= have
        ):
            time.sleep(0.02)
        time.sleep(float(rng.uniform(0.0, wait)))
        if proc.poll() is not None:
            proc.wait()
            shutil.rmtree(out)  # it finished first: start over, to stop it again, sooner
            wait /= 2
            continue
        sent = time.perf_counter()
        if sig == signal.SIGTERM:
            os.kill(proc.pid, sig)
        else:
            os.killpg(proc.pid, sig)
        err = proc.communicate(timeout=60)[1].decode("utf-8", "replace")
        while _group(proc.pid) and time.perf_counter() - sent < 30:
            time.sleep(0.05)
        left = _group(proc.pid)
        seconds = time.perf_counter() - sent
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        fd = os.open(out / ".tempogen.lock", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            locked = False
        except BlockingIOError:
            locked = True
        finally:
            os.close(fd)
        temps = [str(p) for p in [*out.rglob(".*.tmp"), *out.rglob(".*.partial")]]
        lines = err.strip().splitlines()
        stops.append({
            "signal": sig.name, "exit": proc.returncode, "seconds": round(seconds, 2),
            "processes_left": len(left), "stderr_lines": len(lines),
            "traceback": "Traceback" in err, "temps_left": len(temps), "locked": locked,
        })  # fmt: skip
        if len(lines) != 1 or temps:  # what went wrong, for the report
            stops[-1].update(stderr_tail=err[-1500:], temps=temps[:5])
    final = _generate(config, out)
    final_rc = final.wait(timeout=3600)
    same = (out / "manifest.jsonl").read_bytes() == (clean / "manifest.jsonl").read_bytes()
    clean_stops = [
        s for s in stops
        if s["exit"] == 128 + signal.Signals[s["signal"]] and s["seconds"] < 5
        and not s["processes_left"] and s["stderr_lines"] == 1 and not s["traceback"]
        and not s["temps_left"] and not s["locked"]
    ]  # fmt: skip
    return {
        "stops": stops,
        "tries": tries,
        "clean_stops": len(clean_stops),
        "slowest_s": max((s["seconds"] for s in stops), default=0.0),
        "final_exit": final_rc,
        "manifest_identical": same,
    }


# -- bad inputs -----------------------------------------------------------------------------
Case = tuple[str, Callable[[Path], list[str]], list[str]]


def _w(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


BASE = "seed: 1\nsize: [160, 96]\nfps: 10\nduration: [2.0, 2.0]\nsamples_per_task: 1\n"


def _cfg(d: Path, text: str) -> list[str]:
    return ["generate", "--config", str(_w(d / "c.yaml", text)), "--out", str(d / "o"), "-q"]


def _manifest(d: Path, lines: list[str]) -> Path:
    return _w(d / "m.jsonl", "".join(line + "\n" for line in lines))


def _bvh(d: Path, text: str) -> list[str]:
    return ["human", "render", str(_w(d / "a.bvh", text)), "--out", str(d / "o.mp4")]


STICK_BVH = """HIERARCHY
ROOT Root
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Bone1
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 10 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.033333
0 0 0 0 0 0 0 0 0
0 1 0 0 0 0 0 0 0
"""


def _vfr(d: Path) -> list[str]:
    from fractions import Fraction

    import av

    path = d / "phone.mp4"
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=30)
        s.width, s.height, s.pix_fmt, s.time_base = 64, 48, "yuv420p", Fraction(1, 1000)
        for k, ms in enumerate([0, 33, 67, 100, 200, 233, 267, 400]):
            f = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 20 * k, np.uint8), format="rgb24")
            f.pts, f.time_base = ms, Fraction(1, 1000)
            c.mux(s.encode(f))
        c.mux(s.encode())
    m = _manifest(d, [json.dumps({"id": "p", "video": "phone.mp4", "labels": {"count": 2}})])
    pipe = _w(d / "p.yaml", "- reverse\n")
    return ["edit", "--manifest", str(m), "--pipeline", str(pipe), "--out", str(d / "o")]


def _tomato(d: Path, answer: int) -> Path:
    """A one-question TOMATO folder (its video a few grey frames)."""
    from tempogen.video import write_video

    entry = {"question": "How many?", "options": ["1", "2"], "answer": answer, "key": "k1",
             "video_source_url": "", "motion_type": "count",
             "variation": {"counterfactual": 0, "composite": 0, "zoom": 0, "first_person": 0},
             "demonstration_type": "human", "note": ""}  # fmt: skip
    _w(d / "T" / "data" / "count.json", json.dumps({"0": entry}, indent=2))
    write_video(d / "T" / "videos" / "human" / "k1.mp4", np.full((4, 32, 32, 3), 90, np.uint8), 4)
    return d / "T"


def _tomato_bad(d: Path) -> list[str]:
    return ["import", "tomato", str(_tomato(d, 5)), "-q"]


CASES: list[Case] = [
    (
        "config: no such file",
        lambda d: ["generate", "--config", str(d / "nope.yaml"), "--out", str(d / "o")],
        ["nope.yaml"],
    ),
    ("config: YAML syntax", lambda d: _cfg(d, BASE + "size: [160, 96\n"), ["c.yaml:"]),
    ("config: unknown key", lambda d: _cfg(d, BASE + "colour: red\n"), ["c.yaml", "colour"]),
    (
        "config: huge integer",
        lambda d: _cfg(d, BASE.replace("samples_per_task: 1", "samples_per_task: 10" + "0" * 30)),
        ["c.yaml", "samples_per_task"],
    ),
    (
        "config: negative fps",
        lambda d: _cfg(d, BASE.replace("fps: 10", "fps: -5")),
        ["c.yaml", "fps"],
    ),
    (
        "config: alias bomb",
        lambda d: _cfg(
            d,
            "a: &a [x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                for p, c in zip("abcdefghijklmnopqrstuvw", "bcdefghijklmnopqrstuvwx")
            ),
        ),
        ["c.yaml"],
    ),
    (
        "config: nesting 200 deep",
        lambda d: _cfg(d, "x: " + "[" * 200 + "]" * 200 + "\n"),
        ["c.yaml"],
    ),
    (
        "config: not UTF-8",
        lambda d: [
            "generate",
            "--config",
            str(_w(d / "c.yaml", BASE.encode() + b"note: caf\xe9\n")),
            "--out",
            str(d / "o"),
        ],
        ["c.yaml:6"],
    ),
    (
        "config: motion filter matches nothing",
        lambda d: _cfg(d, BASE + "tasks: [count]\nmotions: [spin]\n"),
        ["c.yaml", "motions"],
    ),
    (
        "config: unknown motion",
        lambda d: _cfg(d, BASE + "motions: [moonwalk]\n"),
        ["c.yaml", "motions[0]", "moonwalk"],
    ),
    (
        "config: missing plugin",
        lambda d: _cfg(d, BASE + "plugins: [no_such_mod_xyz]\n"),
        ["c.yaml", "plugins[0]"],
    ),
    (
        "human render: --size abc",
        lambda d: [
            "human",
            "render",
            str(_npz(d, True)),
            "--out",
            str(d / "o.mp4"),
            "--size",
            "abc",
        ],
        ["--size", "abc"],
    ),
    (
        "edit: no such manifest",
        lambda d: [
            "edit",
            "--manifest",
            str(d / "m.jsonl"),
            "--pipeline",
            str(_w(d / "p.yaml", "- reverse\n")),
            "--out",
            str(d / "o"),
        ],
        ["m.jsonl"],
    ),
    (
        "edit: manifest line not JSON",
        lambda d: [
            "edit",
            "--manifest",
            str(_manifest(d, ['{"id": "a", "video": "a.mp4", "labels": {"count": 2}}', "{oops"])),
            "--pipeline",
            str(_w(d / "p.yaml", "- reverse\n")),
            "--out",
            str(d / "o"),
        ],
        ["m.jsonl:2"],
    ),
    (
        "edit: lone surrogate in a manifest",
        lambda d: [
            "edit",
            "--manifest",
            str(_manifest(d, ['{"id": "a\\ud800", "video": "a.mp4", "labels": {"count": 2}}'])),
            "--pipeline",
            str(_w(d / "p.yaml", "- reverse\n")),
            "--out",
            str(d / "o"),
        ],
        ["m.jsonl:1"],
    ),
    (
        "edit: unknown op",
        lambda d: [
            "edit",
            "--manifest",
            str(_manifest(d, ['{"id": "a", "video": "a.mp4", "labels": {"count": 2}}'])),
            "--pipeline",
            str(_w(d / "p.yaml", "- moonwalk\n")),
            "--out",
            str(d / "o"),
        ],
        ["moonwalk"],
    ),
    (
        "edit: out is the manifest's folder",
        lambda d: [
            "edit",
            "--manifest",
            str(
                _w(d / "manifest.jsonl", '{"id": "a", "video": "a.mp4", "labels": {"count": 2}}\n')
            ),
            "--pipeline",
            str(_w(d / "p.yaml", "- reverse\n")),
            "--out",
            str(d),
        ],
        ["manifest.jsonl", "overwrite"],
    ),
    ("edit: variable frame rate video", _vfr, ["phone.mp4", "variable frame rate"]),
    (
        "validate: row missing a field",
        lambda d: ["validate", str(_manifest(d, ['{"schema_version": "1", "id": "a"}']))],
        ["m.jsonl:1"],
    ),
    (
        "eval: predictions in the wrong format",
        lambda d: [
            "eval",
            "tomato",
            "--dataset",
            str(_tomato(d, 1)),
            "--predictions",
            str(_w(d / "preds.jsonl", '{"foo": 1}\n')),
        ],
        ["preds.jsonl"],
    ),
    (
        "captions audit: not JSONL",
        lambda d: ["captions", "audit", str(_w(d / "pairs.jsonl", "not json\n"))],
        ["pairs.jsonl:1"],
    ),
    (
        "human render: no such motion file",
        lambda d: ["human", "render", str(d / "walk.npz"), "--out", str(d / "o.mp4")],
        ["walk.npz"],
    ),
    (
        "human render: body model missing",
        lambda d: [
            "human",
            "render",
            str(_npz(d, True)),
            "--out",
            str(d / "o.mp4"),
            "--body",
            str(d / "nobody"),
        ],
        ["nobody"],
    ),
    ("human render: unmappable BVH", lambda d: _bvh(d, STICK_BVH), ["a.bvh", "Root, Bone1"]),
    (
        "human render: broken BVH",
        lambda d: _bvh(d, "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n}\n"),
        ["a.bvh"],
    ),
    (
        "human render: AMASS without trans",
        lambda d: ["human", "render", str(_npz(d)), "--out", str(d / "o.mp4")],
        ["walk.npz", "trans"],
    ),
    (
        "human map: joint map with a wrong key",
        lambda d: [
            "human",
            "map",
            str(_w(d / "a.bvh", STICK_BVH)),
            "--joint-map",
            str(_w(d / "j.yaml", "elbo: x\n")),
        ],
        ["j.yaml:1", "elbo"],
    ),
    ("import tomato: bad entry", _tomato_bad, ["count.json:", "entry '0'", "answer"]),
    ("import tomato: no data folder", lambda d: ["import", "tomato", str(d)], ["data"]),
    (
        "audit verify: no such manifest",
        lambda d: ["audit", "verify", "--manifest", str(d / "m.jsonl")],
        ["m.jsonl"],
    ),
    (
        "captions generate: LLM config with a bad timeout",
        lambda d: [
            "captions",
            "generate",
            "--source",
            "llm",
            "--llm-config",
            str(_w(d / "llm.yaml", "timeout: -3\n")),
            "-n",
            "2",
            "--out",
            str(d / "p.jsonl"),
        ],
        ["llm.yaml", "timeout"],
    ),
]


# issue 25: hangs and silent waits, tracebacks in captions / retrieve / eval, parsing ---------
LATIN1_CSV = b'pos,neg\n"un caf\xe9 puis un th\xe9","un th\xe9 puis un caf\xe9"\n'
SURROGATE_PAIR = '{"pos": "a man eats\\ud800 then runs", "neg": "a man runs then eats"}\n'
GOOD_PAIR = '{"pos": "a man eats then runs", "neg": "a man runs then eats"}\n'
_SERVERS: list[Any] = []


def _llm_server(script: dict[int, str]) -> str:
    """A misbehaving OpenAI-compatible server on 127.0.0.1 (tests/openai_server.py) that
    lives until this process ends; its URL."""
    import threading

    sys.path.insert(0, str(ROOT / "tests"))
    from openai_server import ScriptedServer

    server = ScriptedServer(script, '1. "a man eats then runs" vs "a man runs then eats"')
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _SERVERS.append(server)
    return server.url


def _llm(d: Path, url: str, *more: str) -> list[str]:
    return ["captions", "generate", "--source", "llm", "--base-url", url, "--model", "m",
            "-n", "1", "--out", str(d / "p.jsonl"), *more]  # fmt: skip


def _retrieve(d: Path, pairs: str, corpus: str | None = None, *more: str) -> list[str]:
    if corpus is None:
        line = '{"video_id": "v1", "caption": "a man eats then runs"}\n'
        corpus = f"jsonl:{_w(d / 'corpus.jsonl', line)}"
    return ["retrieve", "--pairs", str(_w(d / "pairs.jsonl", pairs)), "--corpus", corpus,
            "--out", str(d / "cand.jsonl"), *more]  # fmt: skip


def _tomato_twice(d: Path) -> Path:
    """A TOMATO folder whose count.json gives question '0' twice (lines 2 and 3)."""
    root = _tomato(d, 1)
    path = root / "data" / "count.json"
    entry = json.loads(path.read_text())["0"]
    _w(path, "{\n" + f' "0": {json.dumps(entry)},\n "0": {json.dumps(entry)}\n' + "}\n")
    return root


CASES_25: list[Case] = [
    ("captions generate: a Latin-1 CSV",
     lambda d: ["captions", "generate", "--source", str(_w(d / "l.csv", LATIN1_CSV)),
                "--out", str(d / "p.jsonl")],
     ["l.csv:2", "not UTF-8"]),
    ("captions audit: a Latin-1 CSV",
     lambda d: ["captions", "audit", str(_w(d / "l.csv", LATIN1_CSV)), "--near-dup", "off"],
     ["l.csv:2", "not UTF-8"]),
    ("captions generate: -n 100000",
     lambda d: ["captions", "generate", "--source", "offline", "-n", "100000", "--out",
                str(d / "p.jsonl")],
     ["-n", "100000"]),
    ("captions generate: -n -5",
     lambda d: ["captions", "generate", "--source", "offline", "-n", "-5", "--out",
                str(d / "p.jsonl")],
     ["-n", "-5"]),
    ("captions generate: a lone surrogate in a pairs file",
     lambda d: ["captions", "generate", "--source", str(_w(d / "s.jsonl", SURROGATE_PAIR)),
                "--out", str(d / "p.jsonl")],
     ["s.jsonl:1", "pos"]),
    ("captions audit: a lone surrogate in a pairs file",
     lambda d: ["captions", "audit", str(_w(d / "s.jsonl", SURROGATE_PAIR)), "--near-dup", "off"],
     ["s.jsonl:1", "pos"]),
    ("captions generate: --max-attempts 0",
     lambda d: _llm(d, "http://127.0.0.1:9/v1", "--max-attempts", "0"), ["--max-attempts"]),
    ("captions generate: --timeout 0",
     lambda d: _llm(d, "http://127.0.0.1:9/v1", "--timeout", "0"), ["--timeout"]),
    ("eval run: --attempts 0",
     lambda d: ["eval", "run", "--dataset", str(d), "--endpoint", "http://127.0.0.1:9/v1",
                "--model", "m", "--attempts", "0"],
     ["--attempts"]),
    ("LLM: a server sending one byte every 0.5 s",
     lambda d: _llm(d, _llm_server({1: "drip:0.5", 2: "drip:0.5"}), "--timeout", "2",
                    "--max-attempts", "2"),
     ["deadline", "gave up after 2 attempts"]),
    ("LLM: Retry-After 120 on every reply",
     lambda d: _llm(d, _llm_server({i: "retry-after:120" for i in range(1, 9)}),
                    "--max-attempts", "2", "--llm-config",
                    str(_w(d / "llm.yaml", "max_backoff: 1\n"))),
     ["HTTP 429", "capped at max_backoff 1s", "before attempt 2 of 2"]),
    ("retrieve: a pair without neg",
     lambda d: _retrieve(d, '{"pos": "a man eats then runs"}\n'), ["pairs.jsonl:1", "neg"]),
    ("retrieve: --top-k 0", lambda d: _retrieve(d, GOOD_PAIR, None, "--top-k", "0"),
     ["--top-k"]),
    ("retrieve: a malformed library row",
     lambda d: _retrieve(d, GOOD_PAIR, "library:" + str(
         _w(d / "lib" / "manifest.jsonl", '{"id": "x", "labels": "oops"}\n').parent)),
     ["manifest.jsonl:1", "'x'"]),
    ("retrieve: an empty corpus",
     lambda d: _retrieve(d, GOOD_PAIR, f"jsonl:{_w(d / 'empty.jsonl', '')}"),
     ["empty.jsonl", "no captions"]),
    ("audit captions-eval: a labelled row without its rule",
     lambda d: ["audit", "captions-eval", "--near-dup", "off", "--labelled",
                str(_w(d / "l.jsonl", '{"positive": "a b", "negative": "b a", "valid": true}\n'))],
     ["l.jsonl:1", "rule"]),
    ("audit captions-eval: a Latin-1 file",
     lambda d: ["audit", "captions-eval", "--near-dup", "off", "--labelled",
                str(_w(d / "l.jsonl", b'{"positive": "caf\xe9"}\n'))],
     ["l.jsonl:1", "not UTF-8"]),
    ("eval tomato: a prediction with a key given twice",
     lambda d: ["eval", "tomato", "--dataset", str(_tomato(d, 1)), "--predictions",
                str(_w(d / "preds.jsonl", '{"task": "count", "id": "0", "id": "1", '
                                          '"response": "A"}\n'))],
     ["preds.jsonl:1", "key 'id' appears twice"]),
    ("import tomato: a question id given twice",
     lambda d: ["import", "tomato", str(_tomato_twice(d)), "-q"],
     ["count.json:3", "key '0' appears twice", "line 2"]),
    ("validate: a manifest row with a key given twice",
     lambda d: ["validate", str(_manifest(d, ['{"schema_version": "1", "id": "a", "id": "b"}']))],
     ["m.jsonl:1", "key 'id' appears twice"]),
    ("config: a key given twice",
     lambda d: _cfg(d, BASE + "seed: 2\n"), ["c.yaml:6", "seed", "first on line 1"]),
    ("config: 1.0e9 read as a number (YAML 1.2)",
     lambda d: _cfg(d, BASE.replace("duration: [2.0, 2.0]", "duration: [1.0e9, 2.0e9]")),
     ["c.yaml:4", "duration[0]", "got 1000000000.0"]),
    ("config: /dev/zero",
     lambda d: ["generate", "--config", "/dev/zero", "--out", str(d / "o")],
     ["/dev/zero", "limit"]),
]  # fmt: skip
CASES += CASES_25

# run in a child process with a time and memory limit: on code that waits or reads without
# bound they would stop the catalogue (a hang counts as unclear, exit "timeout")
BOUNDED = {
    "LLM: a server sending one byte every 0.5 s": 60,
    "LLM: Retry-After 120 on every reply": 60,
    "config: /dev/zero": 60,
}


def _bounded_run(argv: list[str], limit_s: float) -> tuple[int | str, str]:
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tempogen.cli", *argv], cwd=ROOT, capture_output=True,
            text=True, timeout=limit_s, preexec_fn=cap,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return "timeout", f"still running after {limit_s:g} s"
    return proc.returncode, proc.stderr


# -- issue 25: names that become paths, outputs over inputs, folders a command does not own --
REC = '{"id": "%s", "video": "a.mp4", "fact": "direction", "question": "Which way?", ' + (
    '"labels": {"direction": ["right"]}}'
)


def _edit(d: Path, ids: list[str], pipe: str = "- reverse\n", out: Path | None = None) -> list[str]:
    """``tempogen edit`` of records with these ids (a real clip each) into ``out``."""
    from tempogen.video import write_video

    frames = np.zeros((8, 32, 32, 3), np.uint8)
    for t in range(8):
        frames[t, 8:16, 2 + 2 * t : 10 + 2 * t] = 255
    write_video(d / "in" / "a.mp4", frames, 4)
    m = _w(d / "in" / "m.jsonl", "".join(REC % i + "\n" for i in ids))
    pipeline = _w(d / "p.yaml", pipe)
    return ["edit", "--manifest", str(m), "--pipeline", str(pipeline), "--out", str(out or d / "o")]


def _built(d: Path) -> Path:
    """A folder a `tempogen generate` build owns (its mark and a 9-row manifest)."""
    _w(d / "ds" / ".tempogen-build.json", '{"config_sha256": "x", "config": "c.yaml"}')
    _w(d / "ds" / "manifest.jsonl", "".join(f'{{"id": "r{i}"}}\n' for i in range(9)))
    return d / "ds"


def _imported(d: Path) -> Path:
    """A one-question TOMATO folder with its imported manifest (rows that validate)."""
    from tempogen.builders.exports.tomato_import import import_tomato

    folder = _tomato(d, 1)
    import_tomato(folder)
    return folder


def _preds(d: Path) -> Path:
    return _w(d / "preds.jsonl", '{"task": "count", "id": "0", "response": "B"}\n')


def _tomato_key(d: Path) -> list[str]:
    folder = _tomato(d, 1)
    text = (folder / "data" / "count.json").read_text().replace('"0"', '"../../ESC"')
    _w(folder / "data" / "count.json", text)
    return ["import", "tomato", str(folder), "-q"]


PATH_CASES: list[Case] = [
    ("edit: record id ../../../ESCAPED", lambda d: _edit(d, ["../../../ESCAPED"]),
     ["m.jsonl:1", "id"]),
    ("edit: record id with a NUL", lambda d: _edit(d, ["a\\u0000b"]), ["m.jsonl:1", "id"]),
    ("edit: hidden record id", lambda d: _edit(d, [".x"]), ["m.jsonl:1", "id"]),
    ("edit: variant named /../../../victim",
     lambda d: _edit(d, ["a"], "/../../../victim: [reverse]\n"), ["p.yaml:1", "variant name"]),
    ("edit: two records with one id", lambda d: _edit(d, ["a", "b", "a"]),
     ["m.jsonl:3", "line 1"]),
    ("edit: --out a folder generate built", lambda d: _edit(d, ["a"], out=_built(d)),
     ["ds", "tempogen generate"]),
    ("edit: --out a folder with the user's manifest",
     lambda d: _edit(d, ["a"], out=_w(d / "mine" / "manifest.jsonl", "{}\n").parent),
     ["mine", "manifest.jsonl"]),
    ("generate: --out a folder it did not build",
     lambda d: _cfg(d, BASE) if _w(d / "o" / "index.html", "<h1>mine</h1>") else [],
     ["index.html", "no tempogen build"]),
    ("generate: --out a folder edit owns",
     lambda d: _cfg(d, BASE) if _w(d / "o" / ".tempogen-build.json", '{"command": "edit"}') else [],
     ["tempogen edit"]),
    ("audit validity: --out is the manifest",
     lambda d: ["audit", "validity", "--manifest", str(_imported(d) / "manifest.jsonl"), "--out",
                str(d / "T" / "manifest.jsonl")], ["--out", "manifest.jsonl"]),
    ("eval tomato: --out is the predictions",
     lambda d: ["eval", "tomato", "--dataset", str(_imported(d)), "--predictions", str(_preds(d)),
                "--out", str(d / "preds.jsonl")], ["--out", "preds.jsonl"]),
    ("eval tomato: --out is a data file",
     lambda d: ["eval", "tomato", "--dataset", str(_imported(d)), "--predictions", str(_preds(d)),
                "--out", str(d / "T" / "data" / "count.json")], ["--out", "count.json"]),
    ("captions audit: --report is the input",
     lambda d: ["captions", "audit", str(_w(d / "pairs.jsonl",
                '{"pos": "a dog runs then jumps", "neg": "a dog jumps then runs"}\n')),
                "--report", str(d / "pairs.jsonl"), "--near-dup", "off"],
     ["--report", "pairs.jsonl"]),
    ("human render: --out is the motion file",
     lambda d: ["human", "render", str(_npz(d, True)), "--out", str(d / "walk.npz")],
     ["--out", "walk.npz"]),
    ("import tomato: question id ../../ESC", _tomato_key, ["count.json:2", "question id"]),
]  # fmt: skip
CASES += PATH_CASES


def _npz(d: Path, whole: bool = False) -> Path:
    """An AMASS-style file: only poses, or (``whole``) every key a still pose needs."""
    path = d / "walk.npz"
    more = {"trans": np.zeros((4, 3)), "betas": np.zeros(16), "mocap_framerate": np.array(30.0)}
    np.savez(path, poses=np.zeros((4, 156)), **(more if whole else {}))
    return path


# -- costs and op parameters (issue 25): bounded before any frame is made ---------------------
def _edit_op(d: Path, op: str, frames: int = 0) -> list[str]:
    """``tempogen edit`` with a one-op pipeline on one clip (``frames`` of 32x32 when given)."""
    from tempogen.video import write_video

    if frames:
        write_video(d / "c.mp4", np.full((frames, 32, 32, 3), 90, np.uint8), 10)
    m = _manifest(d, [json.dumps({"id": "clip1", "video": "c.mp4", "labels": {"count": 2}})])
    pipe = _w(d / "p.yaml", f"- {op}\n")
    return ["edit", "--manifest", str(m), "--pipeline", str(pipe), "--out", str(d / "o"), "-q"]


def _long_motion(d: Path) -> list[str]:
    """1,000 poses a second apart, rendered at 240 fps: 239,761 frames."""
    path = d / "long.npz"
    np.savez(path, poses=np.zeros((1000, 156)), trans=np.zeros((1000, 3)), betas=np.zeros(16),
             mocap_framerate=np.array(1.0))  # fmt: skip
    return ["human", "render", str(path), "--out", str(d / "o.mp4"), "--fps", "240"]


COST_CASES: list[Case] = [
    (
        "config: 7680x7680, 240 fps, 600 s",
        lambda d: _cfg(d, "size: [7680, 7680]\nfps: 240\nduration: [600, 600]\n"),
        ["c.yaml", "frames of 7680x7680", "one core's time", "--allow-large"],
    ),
    (
        "human render: --fps 1e7",
        lambda d: [
            "human",
            "render",
            str(_npz(d, True)),
            "--out",
            str(d / "o.mp4"),
            "--fps",
            "1e7",
        ],
        ["--fps", "1e7"],
    ),
    ("human render: 239,761 frames", _long_motion, ["long.npz", "239,761 frames", "--allow-large"]),
    (
        "edit: crop size 0",
        lambda d: _edit_op(d, "{crop: {box: [0, 0, 8, 8], size: [0, 0]}}"),
        ["p.yaml[0]", "crop: size"],
    ),
    (
        "edit: crop size 40000",
        lambda d: _edit_op(d, "{crop: {box: [0, 0, 8, 8], size: [40000, 40000]}}"),
        ["p.yaml[0]", "crop: size"],
    ),
    (
        "edit: crop box abc",
        lambda d: _edit_op(d, "{crop: [0, 0, abc, 8]}"),
        ["p.yaml[0]", "crop: box[2]"],
    ),
    ("edit: gap abc", lambda d: _edit_op(d, "{concat: {gap: abc}}"), ["p.yaml[0]", "concat: gap"]),
    (
        "edit: gap .inf",
        lambda d: _edit_op(d, "{concat: {gap: .inf}}"),
        ["p.yaml[0]", "concat: gap"],
    ),
    (
        "edit: start .nan",
        lambda d: _edit_op(d, "{trim: {start: .nan}}"),
        ["p.yaml[0]", "trim: start"],
    ),
    (
        "edit: speed 0.00001",
        lambda d: _edit_op(d, "{speed: 0.00001}"),
        ["p.yaml[0]", "speed: factor"],
    ),
    (
        "edit: zoom margin -1",
        lambda d: _edit_op(d, "{zoom_in: {margin: -1.0}}"),
        ["p.yaml[0]", "zoom_in: margin"],
    ),
    (
        "edit: loop 1e9 times",
        lambda d: _edit_op(d, "{loop: 1000000000}"),
        ["p.yaml[0]", "loop: times"],
    ),
    (
        "edit: speed 0.001 of 200 frames",
        lambda d: _edit_op(d, "{speed: 0.001}", frames=200),
        ["speed(factor=0.001)", "199,001 frames", "144,000"],
    ),
    (
        "audit verify: --sample -3",
        lambda d: ["audit", "verify", "--manifest", str(d / "m.jsonl"), "--sample", "-3"],
        ["--sample", "-3"],
    ),
]
CASES += COST_CASES


def bad_inputs(work: Path) -> dict[str, Any]:
    """Run every case in-process through ``tempogen.cli.main``; a case is clear when it
    exits 2, writes no traceback and its message names every expected place."""
    from tempogen.cli import main

    results = []
    for k, (name, make, places) in enumerate(CASES):
        d = work / f"case{k:02d}"
        d.mkdir(parents=True)
        argv = make(d)
        before = _snapshot(d)
        err = io.StringIO()
        cwd = os.getcwd()
        if name in BOUNDED:
            code, text = _bounded_run(argv, BOUNDED[name])
            last = text.strip().splitlines()[-1] if text.strip() else ""
            clear = code == 2 and "Traceback" not in text and all(p in text for p in places)
            results.append({"case": name, "exit": code, "clear": clear, "message": last[:300]})
            continue
        try:
            os.chdir(ROOT)
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                try:
                    code = main(argv)
                except SystemExit as exc:  # argparse's own usage errors
                    code = exc.code if isinstance(exc.code, int) else 1
                except Exception as exc:  # a bug: counted, shown
                    code = 1
                    err.write(f"Traceback (most recent call last): {type(exc).__name__}: {exc}")
        finally:
            os.chdir(cwd)
        text = err.getvalue().strip()
        last = text.splitlines()[-1] if text else ""
        after = _snapshot(d)
        changed = sorted(rel for rel, data in before.items() if after.get(rel) != data)
        outside = sorted(p.name for p in work.iterdir() if not p.name.startswith("case"))
        clear = code == 2 and "Traceback" not in text and all(p in text for p in places)
        clear = clear and not changed and not outside
        results.append(
            {"case": name, "exit": code, "clear": clear, "message": last[:300],
             "inputs_changed": changed, "written_outside": outside}
        )  # fmt: skip
    return {"cases": results, "clear": sum(r["clear"] for r in results), "total": len(results)}


def _snapshot(d: Path) -> dict[str, bytes]:
    """Every file under a case's folder (what its command reads), by content."""
    return {str(p.relative_to(d)): p.read_bytes() for p in d.rglob("*") if p.is_file()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=35, help="SIGKILLs during the build")
    ap.add_argument("--signals", type=int, default=10, help="SIGTERM/SIGINT stops of a build")
    ap.add_argument("--seed", type=int, default=0, help="seeds the kill moments")
    ap.add_argument("--samples", type=int, default=3, help="questions per task in the build")
    ap.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    ap.add_argument(
        "--part",
        choices=("all", "bad-inputs", "builds"),
        default="all",
        help="run only the bad-input catalogue, or only the kills and signals (the builds)",
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tempogen-reliability-") as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        report: dict[str, Any] = {}
        if args.part in ("all", "bad-inputs"):
            bad = report["bad_inputs"] = bad_inputs(work / "bad")
            for r in bad["cases"]:
                mark = "clear" if r["clear"] else "UNCLEAR"
                print(f"  {mark:7s} exit {r['exit']}  {r['case']}: {r['message'][:110]}")
            print(f"bad inputs: {bad['clear']}/{bad['total']} clear exit-2 errors naming the place")
        if args.part in ("all", "builds"):
            k = report["kills"] = kills(work / "kills", args.kills, args.seed, args.samples)
            print(
                f"kills: {k['kills']} SIGKILLs survived; final build exit {k['final_exit']}; "
                f"manifest identical to the clean build: {k['manifest_identical']} "
                f"({k['rows']} rows); videos decodable "
                f"{k['videos'] - len(k['videos_undecodable'])}/{k['videos']}; "
                f"hidden files left: {len(k['hidden_files_left'])}"
            )
            sg = signals(work / "signals", work / "kills" / "clean", args.signals, args.seed)
            report["signals"] = sg
            print(
                f"signals: {sg['clean_stops']}/{len(sg['stops'])} SIGTERM/SIGINT stops clean "
                f"(exit 128+n, every process gone within 5 s, slowest {sg['slowest_s']} s, one "
                f"line, no temps, lock free); rerun exit {sg['final_exit']}, manifest identical: "
                f"{sg['manifest_identical']}"
            )
        report["wall_s"] = round(time.perf_counter() - t0, 1)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    ok = True
    if "bad_inputs" in report:
        ok = report["bad_inputs"]["clear"] == report["bad_inputs"]["total"]
    if "kills" in report:
        k, sg = report["kills"], report["signals"]
        ok = ok and k["manifest_identical"] and not k["videos_undecodable"]
        ok = ok and not k["hidden_files_left"] and k["final_exit"] == 0
        ok = ok and sg["clean_stops"] == len(sg["stops"]) and sg["manifest_identical"]
        ok = ok and sg["final_exit"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
