"""Bad caption, pair, corpus and label files through `tempogen captions`, `retrieve` and
`audit captions-eval`: each is exit 2 naming the file and line, never a traceback (issue 25).
The caption cases run the CLI in a forked child (``run_cli(fork=True)``); a missing file and
every ``retrieve`` case (torch) run it as a fresh process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from kit import run_cli

LATIN1 = b'pos,neg\n"un caf\xe9 puis un th\xe9","un th\xe9 puis un caf\xe9"\n'
SURROGATE = '{"pos": "a man eats\\ud800 then runs", "neg": "a man runs then eats"}\n'
GOOD_PAIR = '{"pos": "a man eats then runs", "neg": "a man runs then eats"}\n'


def _refused(proc: subprocess.CompletedProcess, *places: str) -> str:
    """The one error line of a clean exit 2; every place must be named in it."""
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    last = proc.stderr.strip().splitlines()[-1]
    for place in places:
        assert place in last, (place, last)
    return last


@pytest.mark.parametrize("command", ["generate", "audit"])
@pytest.mark.parametrize(
    ("name", "data", "where", "what"),
    [
        ("latin1.csv", LATIN1, ":2:", "not UTF-8 text"),
        ("latin1.jsonl", GOOD_PAIR.encode() + b'{"pos": "caf\xe9 then tea"}\n', ":2:", "not UTF-8"),
        ("surrogate.jsonl", SURROGATE.encode(), ":1:", "pos: holds a lone surrogate"),
        ("twice.jsonl", b'{"pos": "a b then c", "neg": "a c then b", "pos": "x"}\n', ":1:",
         "key 'pos' appears twice"),
    ],
)  # fmt: skip
def test_a_bad_pairs_file_names_file_and_line(command, name, data, where, what, tmp_path):
    f = tmp_path / name
    f.write_bytes(data)
    out = tmp_path / "out.jsonl"
    if command == "generate":
        proc = run_cli("captions", "generate", "--source", str(f), "--out", str(out), fork=True)
    else:
        proc = run_cli(
            "captions", "audit", str(f), "--near-dup", "off", "--report", str(out), fork=True
        )
    _refused(proc, f"{f}{where}", what)
    assert not out.exists()


@pytest.mark.parametrize(
    ("n", "say"),
    [
        ("100000", "argument -n: must be from 1 to 10,000, got '100000'"),
        ("-5", "argument -n: must be from 1 to 10,000, got '-5'"),
        ("0", "argument -n: must be from 1 to 10,000, got '0'"),
        ("five", "argument -n: expected a whole number, got 'five'"),
        ("901", "-n 901: offline templates give only 900 distinct pairs"),
    ],
)
def test_pair_counts_are_bounded_up_front(n, say, tmp_path):
    out = tmp_path / "p.jsonl"
    proc = run_cli(
        "captions", "generate", "--source", "offline", "-n", n, "--out", str(out), fork=True
    )
    assert say in _refused(proc)
    assert not out.exists()


def _pairs(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "pairs.jsonl"
    f.write_text(text, encoding="utf-8")
    return f


def _corpus(tmp_path: Path) -> Path:
    c = tmp_path / "corpus.jsonl"
    c.write_text(json.dumps({"video_id": "v1", "caption": "a man eats then runs"}) + "\n")
    return c


def _retrieve(tmp_path: Path, pairs: Path, corpus: str, *more: str) -> subprocess.CompletedProcess:
    return run_cli("retrieve", "--pairs", str(pairs), "--corpus", corpus,
                "--out", str(tmp_path / "cand.jsonl"), *more)  # fmt: skip


def test_retrieve_a_pair_without_neg_names_file_line_and_field(tmp_path):
    pairs = _pairs(tmp_path, GOOD_PAIR + '{"pos": "a man eats then runs"}\n')
    _refused(_retrieve(tmp_path, pairs, f"jsonl:{_corpus(tmp_path)}"), f"{pairs}:2: neg:")
    pairs = _pairs(tmp_path, '{"pos": "a b then c", "neg": 7}\n')
    _refused(_retrieve(tmp_path, pairs, f"jsonl:{_corpus(tmp_path)}"), f"{pairs}:1: neg:")
    assert not (tmp_path / "cand.jsonl").exists()


@pytest.mark.parametrize("k", ["0", "-1", "1000001"])
def test_retrieve_top_k_is_bounded_up_front(k, tmp_path):
    proc = _retrieve(tmp_path, _pairs(tmp_path, GOOD_PAIR), f"jsonl:{_corpus(tmp_path)}",
                     "--top-k", k)  # fmt: skip
    assert f"argument --top-k: must be from 1 to 1,000, got '{k}'" in _refused(proc)


def test_retrieve_an_empty_corpus_names_it(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    _refused(_retrieve(tmp_path, _pairs(tmp_path, GOOD_PAIR), f"jsonl:{empty}"),
             f"jsonl:{empty}", "holds no captions")  # fmt: skip


@pytest.mark.parametrize(
    ("row", "what"),
    [
        ({"id": "x", "labels": "oops", "answer_key": "1"}, "cannot caption row 'x'"),
        ({"id": "x", "labels": {"query": ["count"]}}, "cannot caption row 'x'"),
        ({"id": "x", "labels": {"meta": {"nouns": ["a"]}, "query": {"objects": ["a"]}}},
         "cannot caption row 'x'"),
        ({"task": "count"}, "id: missing"),
    ],
)  # fmt: skip
def test_retrieve_a_malformed_library_row_names_file_and_line(row, what, tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "manifest.jsonl").write_text(json.dumps(row) + "\n")
    proc = _retrieve(tmp_path, _pairs(tmp_path, GOOD_PAIR), f"library:{lib}")
    _refused(proc, f"{lib / 'manifest.jsonl'}:1:", what)


@pytest.mark.parametrize(
    ("data", "where", "what"),
    [
        (b'{"positive": "a b then c", "negative": "a c then b", "valid": true}\n', ":1:",
         "missing rule"),
        (b'{"positive": "caf\xe9", "negative": "x", "valid": true, "rule": "action"}\n', ":1:",
         "not UTF-8"),
        (b"not json\n", ":1:", "not valid JSON"),
        (b'{"positive": ["a"], "negative": "b", "valid": true, "rule": "action"}\n', ":1:",
         "'positive' must be a non-empty string"),
        (b"\n", "", "no labelled pairs"),
    ],
)  # fmt: skip
def test_audit_captions_eval_names_the_bad_labelled_row(data, where, what, tmp_path):
    f = tmp_path / "labelled.jsonl"
    f.write_bytes(data)
    proc = run_cli("audit", "captions-eval", "--labelled", str(f), "--near-dup", "off", fork=True)
    _refused(proc, f"{f}{where}", what)


def test_audit_captions_eval_a_missing_file_is_named(tmp_path):
    proc = run_cli("audit", "captions-eval", "--labelled", str(tmp_path / "nope.jsonl"),
                "--near-dup", "off")  # fmt: skip
    _refused(proc, "nope.jsonl", "No such file")


def test_the_command_line_bounds_are_the_librarys():
    """cli.py repeats two limits so `--help` stays instant; they must not drift apart."""
    from tempogen import cli
    from tempogen.retrieval.captions import MAX_PAIRS
    from tempogen.retrieval.search import MAX_TOP_K

    assert (cli.MAX_PAIRS, cli.MAX_TOP_K) == (MAX_PAIRS, MAX_TOP_K)
