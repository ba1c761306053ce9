"""One reliability run, the figures RELIABILITY.md records: a build killed with SIGKILL at
random moments until it finishes, then compared with an uninterrupted build; a build stopped
with SIGTERM and Ctrl-C (SIGINT), each stop checked (exit code, every process gone within 5 s,
one line, no temp file, the lock free), then resumed and compared; and a catalogue of bad
inputs, each run through the CLI, counted as clear when it exits 2 with one line that names
the place (file, line, field or argument), no traceback, every file it was given unchanged
and nothing written outside its folder.

    .venv/bin/python scripts/reliability.py --kills 35          # the recorded run (minutes)
    .venv/bin/python scripts/reliability.py --kills 2 --signals 2 --samples 1    # the test's
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
    stops = []
    for k in range(rounds):
        sig = signal.SIGTERM if k % 2 == 0 else signal.SIGINT
        have = len(list((out / "clips").glob("*.json"))) if (out / "clips").is_dir() else 0
        proc = _generate(config, out)
        while proc.poll() is None and (
            not (out / "clips").is_dir() or len(list((out / "clips").glob("*.json"))) <= have
        ):
            time.sleep(0.02)
        time.sleep(float(rng.uniform(0.0, 2.0)))
        if proc.poll() is not None:
            proc.wait()
            shutil.rmtree(out)  # it finished first: start over, to stop it again
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
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tempogen-reliability-") as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        bad = bad_inputs(work / "bad")
        for r in bad["cases"]:
            mark = "clear" if r["clear"] else "UNCLEAR"
            print(f"  {mark:7s} exit {r['exit']}  {r['case']}: {r['message'][:110]}")
        print(f"bad inputs: {bad['clear']}/{bad['total']} clear exit-2 errors naming the place")
        k = kills(work / "kills", args.kills, args.seed, args.samples)
        print(
            f"kills: {k['kills']} SIGKILLs survived; final build exit {k['final_exit']}; "
            f"manifest identical to the clean build: {k['manifest_identical']} ({k['rows']} rows); "
            f"videos decodable {k['videos'] - len(k['videos_undecodable'])}/{k['videos']}; "
            f"hidden files left: {len(k['hidden_files_left'])}"
        )
        sg = signals(work / "signals", work / "kills" / "clean", args.signals, args.seed)
        print(
            f"signals: {sg['clean_stops']}/{len(sg['stops'])} SIGTERM/SIGINT stops clean "
            f"(exit 128+n, every process gone within 5 s, slowest {sg['slowest_s']} s, one "
            f"line, no temps, lock free); rerun exit {sg['final_exit']}, manifest identical: "
            f"{sg['manifest_identical']}"
        )
        report = {
            "bad_inputs": bad,
            "kills": k,
            "signals": sg,
            "wall_s": round(time.perf_counter() - t0, 1),
        }
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    ok = bad["clear"] == bad["total"] and k["manifest_identical"] and not k["videos_undecodable"]
    ok = ok and sg["clean_stops"] == len(sg["stops"]) and sg["manifest_identical"]
    ok = ok and sg["final_exit"] == 0
    return 0 if ok and not k["hidden_files_left"] and k["final_exit"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
