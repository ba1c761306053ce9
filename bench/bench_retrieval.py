"""Benchmark caption embedding and retrieval at Vinoground's scale (issue 5).

Writes a synthetic VATEX-format corpus (9,000 videos x 5 English captions = 45,000 captions,
over 99% distinct, about 15 words each like VATEX's), then measures in one run: plain
``SentenceTransformer.encode`` (fp32) against our Encoder backends, interleaved chunk by chunk,
with their top-20 agreement; the cached second run; exact top-20 search for 1,000 queries with
FAISS; and the process's peak memory.

    .venv/bin/python bench/bench_retrieval.py [--videos 9000] [--out bench/out/retrieval.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from tempogen.io import write_json
from tempogen.retrieval.corpus import load_vatex
from tempogen.retrieval.embed import BACKENDS, Encoder
from tempogen.retrieval.embed_bench import benchmark
from tempogen.retrieval.search import build_index, search

# Each video is one scene (who, doing what, where, how); its captions name the same scene in
# different words, as VATEX's five annotators of one clip do. (variants of a subject, plural?)
SUBJECTS = [
    (("a man", "a guy", "a young man", "a person", "a man in a black shirt"), False),
    (("a woman", "a lady", "a young woman", "a person", "a woman with long hair"), False),
    (("a boy", "a little boy", "a young boy", "a kid", "a boy wearing a cap"), False),
    (("a girl", "a little girl", "a young girl", "a child", "a girl in a pink dress"), False),
    (("two men", "a couple of guys", "two young men", "two people", "two friends"), True),
    (("two women", "a pair of women", "two ladies", "two people", "two female friends"), True),
    (("a group of people", "several people", "a crowd", "many people", "a group of friends"), True),
    (
        (
            "a group of kids",
            "some children",
            "several kids",
            "a bunch of children",
            "young students",
        ),
        True,
    ),
    (
        (
            "an old man",
            "an elderly man",
            "an older gentleman",
            "a grandfather",
            "a man with gray hair",
        ),
        False,
    ),
    (
        (
            "an old woman",
            "an elderly woman",
            "an older lady",
            "a grandmother",
            "a woman with gray hair",
        ),
        False,
    ),
    (
        ("a chef", "a cook", "a man in a white apron", "a professional chef", "a kitchen worker"),
        False,
    ),
    (
        ("a teenager", "a teenage boy", "a young teen", "an adolescent", "a high school student"),
        False,
    ),
    (("an athlete", "a sportsman", "a fit young man", "a trained athlete", "a competitor"), False),
    (("a musician", "a performer", "an artist", "a street musician", "a young musician"), False),
    (
        ("a worker", "a construction worker", "a man in a yellow vest", "a laborer", "a workman"),
        False,
    ),
    (("a baby", "a toddler", "an infant", "a small baby", "a little baby"), False),
    (("a dog", "a puppy", "a small dog", "a brown dog", "a pet dog"), False),
    (("a cat", "a kitten", "a small cat", "a grey cat", "a pet cat"), False),
    (("a man and a woman", "a couple", "a young couple", "two people", "a husband and wife"), True),
    (
        ("a dancer", "a ballet dancer", "a young dancer", "a performer", "a woman in a costume"),
        False,
    ),
    (("a mechanic", "a repairman", "a man in overalls", "a technician", "a worker"), False),
    (
        ("a gymnast", "a young gymnast", "an acrobat", "a girl in a leotard", "a female gymnast"),
        False,
    ),
    (
        ("a fisherman", "a man with a rod", "an angler", "a man on a boat", "an old fisherman"),
        False,
    ),
    (
        ("a student", "a young student", "a college student", "a pupil", "a girl with a backpack"),
        False,
    ),
]
# variants of one activity, "-ing" form
ACTIONS = [
    (
        "playing the drums",
        "drumming on a drum set",
        "hitting the drums with sticks",
        "performing a drum solo",
    ),
    (
        "playing the guitar",
        "strumming a guitar",
        "playing an acoustic guitar",
        "practicing guitar chords",
    ),
    (
        "playing the violin",
        "playing a violin",
        "performing a piece on the violin",
        "bowing a violin",
    ),
    (
        "playing the piano",
        "playing a keyboard",
        "pressing piano keys",
        "performing a song on the piano",
    ),
    (
        "chopping vegetables",
        "cutting up vegetables",
        "slicing carrots on a board",
        "dicing an onion",
    ),
    ("mixing ingredients in a bowl", "stirring batter in a bowl", "whisking eggs", "mixing dough"),
    (
        "frying food in a pan",
        "cooking something in a skillet",
        "flipping pancakes",
        "sauteing vegetables",
    ),
    (
        "decorating a cake",
        "putting frosting on a cake",
        "icing a cake",
        "adding sprinkles to a cake",
    ),
    ("riding a bicycle", "biking", "cycling down a path", "pedaling a bike"),
    ("riding a horse", "horseback riding", "galloping on a horse", "riding a brown horse"),
    ("skateboarding", "riding a skateboard", "doing tricks on a skateboard", "skating down a ramp"),
    ("surfing", "riding a wave on a surfboard", "surfing in the ocean", "paddling on a surfboard"),
    ("skiing", "skiing down a slope", "going down a hill on skis", "skiing through the snow"),
    ("swimming", "swimming laps", "doing the backstroke", "diving into the water"),
    (
        "washing a car",
        "cleaning a car with a sponge",
        "scrubbing a car",
        "rinsing a car with a hose",
    ),
    ("fixing a flat tire", "changing a tire", "repairing a tire", "pumping air into a tire"),
    (
        "painting a wall",
        "rolling paint onto a wall",
        "painting a room",
        "brushing paint on a fence",
    ),
    ("sweeping the floor", "sweeping with a broom", "cleaning the floor", "mopping the floor"),
    ("mowing the lawn", "cutting the grass", "pushing a lawn mower", "trimming the grass"),
    (
        "shoveling snow",
        "clearing snow with a shovel",
        "digging out snow",
        "removing snow from a driveway",
    ),
    ("planting a tree", "digging a hole for a plant", "gardening", "watering plants"),
    ("throwing a ball", "tossing a ball", "playing catch", "pitching a baseball"),
    ("kicking a soccer ball", "playing soccer", "dribbling a football", "shooting a goal"),
    ("shooting hoops", "playing basketball", "dribbling a basketball", "making a layup"),
    ("hitting a tennis ball", "playing tennis", "serving a tennis ball", "swinging a racket"),
    (
        "lifting weights",
        "doing a bench press",
        "lifting a heavy barbell",
        "working out with dumbbells",
    ),
    ("doing push ups", "exercising on the floor", "doing sit ups", "doing a plank"),
    ("running on a treadmill", "jogging", "running on a track", "sprinting"),
    (
        "jumping on a trampoline",
        "bouncing on a trampoline",
        "doing flips on a trampoline",
        "jumping up and down",
    ),
    ("climbing a rock wall", "rock climbing", "scaling a wall", "climbing up a cliff"),
    ("dancing", "dancing to music", "performing a dance routine", "breakdancing"),
    ("singing into a microphone", "singing a song", "performing on stage", "singing karaoke"),
    ("reading a book", "reading aloud", "flipping through a book", "reading a magazine"),
    ("typing on a laptop", "using a computer", "typing on a keyboard", "working on a laptop"),
    (
        "talking on the phone",
        "making a phone call",
        "chatting on a cell phone",
        "speaking into a phone",
    ),
    ("brushing teeth", "brushing their teeth", "cleaning their teeth", "rinsing their mouth"),
    ("applying makeup", "putting on lipstick", "doing makeup", "putting on eye shadow"),
    ("braiding hair", "combing hair", "styling someone's hair", "cutting hair"),
    ("shaving", "shaving a beard", "trimming a mustache", "using a razor"),
    ("ironing a shirt", "ironing clothes", "pressing a shirt", "folding laundry"),
    ("knitting a scarf", "knitting", "crocheting", "sewing fabric"),
    ("wrapping a present", "wrapping a gift", "tying a ribbon on a box", "opening a present"),
    ("carving a pumpkin", "cutting a pumpkin", "scooping out a pumpkin", "making a jack o lantern"),
    (
        "building a sand castle",
        "playing in the sand",
        "digging in the sand",
        "making a sand sculpture",
    ),
    ("flying a kite", "holding a kite string", "running with a kite", "launching a kite"),
    ("feeding ducks", "throwing bread to ducks", "feeding birds", "giving food to geese"),
    ("walking a dog", "walking a dog on a leash", "playing fetch with a dog", "petting a dog"),
    ("brushing a horse", "grooming a horse", "combing a horse's mane", "washing a horse"),
    ("juggling balls", "juggling", "tossing balls in the air", "juggling three balls"),
    ("practicing karate", "doing martial arts", "kicking a punching bag", "throwing punches"),
    ("rowing a boat", "paddling a canoe", "kayaking", "rowing across a lake"),
    ("fishing", "casting a fishing line", "reeling in a fish", "holding a fishing rod"),
    ("hammering a nail", "using a hammer", "building a shelf", "nailing boards together"),
    ("sawing wood", "cutting a board with a saw", "using a power saw", "cutting lumber"),
    ("welding metal", "using a welding torch", "welding two pieces of metal", "grinding metal"),
    ("cleaning a window", "washing windows", "wiping a window", "squeegeeing a window"),
    (
        "playing a video game",
        "playing video games",
        "using a game controller",
        "gaming on a console",
    ),
    ("doing a cartwheel", "doing gymnastics", "flipping on a mat", "doing a handstand"),
    (
        "blowing out candles",
        "blowing out birthday candles",
        "celebrating a birthday",
        "lighting candles on a cake",
    ),
    ("eating spaghetti", "eating pasta", "eating a meal", "eating noodles with a fork"),
]
PLACES = [
    ("in a kitchen", "in the kitchen", "at a kitchen counter"),
    ("in a living room", "in the living room", "on a couch at home"),
    ("in a backyard", "in the backyard", "in a yard"),
    ("on a beach", "at the beach", "by the ocean"),
    ("in a park", "at a park", "in a public park"),
    ("on a street", "on a busy street", "on the sidewalk"),
    ("in a gym", "at the gym", "in a fitness center"),
    ("in a garage", "inside a garage", "in a workshop"),
    ("on a stage", "on stage", "in front of an audience"),
    ("in a classroom", "at school", "in a lecture hall"),
    ("by a lake", "near a lake", "at the edge of a lake"),
    ("in the snow", "on a snowy hill", "outside in the snow"),
    ("in a bathroom", "in front of a mirror", "at a bathroom sink"),
    ("in a bedroom", "in their room", "on a bed"),
    ("on a field", "on a grass field", "on a sports field"),
    ("in a pool", "at a swimming pool", "in an indoor pool"),
    ("at a party", "at a birthday party", "at a celebration"),
    ("in a forest", "in the woods", "among the trees"),
    ("in a parking lot", "in an empty lot", "next to some cars"),
    ("in a studio", "in a recording studio", "in a dance studio"),
    ("at a restaurant", "in a cafe", "at a dining table"),
    ("on a boat", "on the water", "on a dock"),
    ("at night", "in the dark", "late at night"),
    ("outdoors", "outside", "in the open air"),
]
TAILS = [
    "while another person watches",
    "while someone films",
    "as music plays in the background",
    "while talking to the camera",
    "and then smiles",
    "while people cheer",
    "with a lot of energy",
    "very carefully",
    "for the first time",
    "and then waves",
    "while a friend laughs",
    "as the sun goes down",
    "and shows the result",
    "while explaining each step",
    "in slow motion",
    "while wearing protective gear",
    "and then stops to rest",
    "as others wait nearby",
    "with great skill",
    "while holding a phone",
]
DETAILS = (
    "wearing a red shirt",
    "in a blue jacket",
    "with a hat on",
    "wearing sunglasses",
    "in a white t-shirt",
    "with headphones on",
    "wearing a green sweater",
    "in a striped shirt",
    "wearing a helmet",
    "with a backpack",
    "in a black hoodie",
    "wearing gloves",
)
LEADS = ("", "", "", "in this video ", "the video shows ", "we see ", "there is ", "a video of ")


def render(
    rng: np.random.Generator,
    subj: str,
    plural: bool,
    action: str,
    place: str,
    tail: str,
    detail: str,
) -> str:
    """One caption of a scene: the subject in some wording, the action, maybe place and tail."""
    be = "are" if plural else "is"
    if detail and rng.random() < 0.5:
        subj = f"{subj} {detail}"
    lead = LEADS[rng.integers(len(LEADS))]
    if lead in ("the video shows ", "we see ", "there is ", "a video of "):
        if lead == "there is " and plural:
            lead = "there are "
        text = f"{lead}{subj} {action}"
    else:
        text = f"{lead}{subj} {be} {action}"
    where = rng.random()
    if where < 0.8:
        text = f"{text} {place}"
    elif where < 0.95 and not lead:
        text = f"{place[0].upper() + place[1:]}, {text[0].lower() + text[1:]}"
    if tail and rng.random() < 0.75:
        text = f"{text} {tail}"
    return text[0].upper() + text[1:] + "."


def scene_captions(rng: np.random.Generator, k: int = 10) -> list[str]:
    """``k`` captions of one random scene."""
    subjs, plural = SUBJECTS[rng.integers(len(SUBJECTS))]
    actions = ACTIONS[rng.integers(len(ACTIONS))]
    places = PLACES[rng.integers(len(PLACES))]
    tail = TAILS[rng.integers(len(TAILS))] if rng.random() < 0.85 else ""
    detail = DETAILS[rng.integers(len(DETAILS))] if rng.random() < 0.6 else ""
    out = []
    for _ in range(k):
        out.append(
            render(
                rng,
                subjs[rng.integers(len(subjs))],
                plural,
                actions[rng.integers(len(actions))],
                places[rng.integers(len(places))],
                tail,
                detail,
            )
        )
    return out


def synthetic_vatex(path: Path, videos: int, seed: int = 0) -> None:
    """VATEX-style JSON: ids ``<yt>_<start:06d>_<end:06d>``, 10 English captions each, all of
    one scene in other words (about 15 words each; over 99% of 45,000 captions distinct)."""
    rng = np.random.default_rng(seed)
    alphabet = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
    items = []
    for _ in range(videos):
        yt = "".join(rng.choice(alphabet, 11))
        start = int(rng.integers(0, 500))
        items.append(
            {"videoID": f"{yt}_{start:06d}_{start + 10:06d}", "enCap": scene_captions(rng)}
        )
    path.write_text(json.dumps(items))


def _machine() -> dict[str, object]:
    import platform

    import onnxruntime
    import sentence_transformers
    import torch

    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "cpu": cpu,
        "cores": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "sentence_transformers": sentence_transformers.__version__,
        "onnxruntime": onnxruntime.__version__,
        "faiss": faiss.__version__,
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    }


def default_path(vatex: Path, cache: Path, n_queries: int) -> dict[str, float]:
    """What a user runs, alone in a fresh process: load the corpus, embed it with the default
    Encoder into an empty cache, again from the cache, then exact top-20 search; peak memory."""
    t0 = time.perf_counter()
    corpus = load_vatex(vatex)
    enc = Encoder()
    emb = enc.encode_corpus(corpus, cache)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = enc.encode_corpus(corpus, cache)
    second = time.perf_counter() - t0
    qrng = np.random.default_rng(1)
    texts = [c for _ in range(n_queries // 5 + 1) for c in scene_captions(qrng)[:5]]
    queries = enc.encode(texts[:n_queries])
    index = build_index(emb, "flat")
    t0 = time.perf_counter()
    search(index, queries, 20)
    search_s = time.perf_counter() - t0
    return {
        "first_run_s": first,
        "second_run_cached_s": second,
        "cached_identical": float(np.array_equal(emb, again)),
        f"exact_top20_{n_queries}_queries_s": search_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "imported_torch": float("torch" in sys.modules),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--videos", type=int, default=9000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--chunk", type=int, default=5000, help="captions per interleaved chunk")
    ap.add_argument(
        "--backends",
        default="onnx,torch,onnx-int8",
        help="Encoder backends to time against plain encode; the first is timed with the cache",
    )
    ap.add_argument("--out", default="bench/out/retrieval.json")
    ap.add_argument("--default-path", nargs=2, metavar=("VATEX", "CACHE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.default_path:
        res = default_path(Path(args.default_path[0]), Path(args.default_path[1]), args.queries)
        print(json.dumps(res))
        return 0
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    for b in backends:
        if b not in BACKENDS:
            ap.error(f"unknown backend {b!r}; known: {', '.join(BACKENDS)}")
    tmp = Path(tempfile.mkdtemp(prefix="tempogen-bench-retrieval-"))
    vatex = tmp / "vatex.json"
    synthetic_vatex(vatex, args.videos)
    corpus = load_vatex(vatex)
    texts = corpus.captions
    lengths = np.array([len(t.split()) for t in texts])
    print(
        f"corpus: {len(texts):,} captions ({len(set(texts)):,} distinct), "
        f"{lengths.mean():.1f} words on average (5-95%: {np.percentile(lengths, 5):.0f}-"
        f"{np.percentile(lengths, 95):.0f})",
        flush=True,
    )
    # the default path alone first, in a fresh process: its time and memory are the user's
    child = subprocess.run(
        [sys.executable, __file__, "--default-path", str(vatex), str(tmp / "cache-default")]
        + ["--queries", str(args.queries)],
        capture_output=True,
        text=True,
        check=True,
    )
    alone = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"default path alone: {alone}", flush=True)
    speeds = benchmark(
        texts, 20, 500, backends=backends, chunk=args.chunk, cache_dir=tmp / "cache", log=print
    )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    res = {
        "machine": _machine(),
        "captions": len(texts),
        "distinct": len(set(texts)),
        "mean_words": float(lengths.mean()),
        "default_path_alone": alone,
        "speeds": speeds,
        "peak_rss_mb_all_contestants": peak_mb,
        "command": " ".join(sys.argv),
    }
    write_json(args.out, res)
    print(json.dumps(res, indent=1))
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def headline_figures(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Headline rows: each of our encoder backends' caption rate against plain
    sentence-transformers ``encode`` (fp32, torch) on the same captions, in the same run."""
    from _results import figure

    speeds = result["speeds"]
    plain = speeds["plain_fp32"]["captions_per_s"]
    return [
        figure(
            "retrieval",
            f"caption embedding, backend {name}",
            v["captions_per_s"],
            "plain sentence-transformers encode (fp32)",
            plain,
            "captions/s",
        )  # fmt: skip
        for name, v in speeds.items()
        if isinstance(v, dict) and "captions_per_s" in v and name != "plain_fp32"
    ]


if __name__ == "__main__":
    sys.exit(main())
