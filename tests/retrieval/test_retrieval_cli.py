"""The caption and retrieval commands, run as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit import run_cli


def test_generate_then_audit_offline_pairs(tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    gen = run_cli("captions", "generate", "--source", "offline", "-n", "25", "--out", str(out))
    assert gen.returncode == 0, gen.stderr
    assert len(out.read_text().splitlines()) == 25
    audit = run_cli(
        "captions", "audit", str(out), "--strict", "--report", str(tmp_path / "r.jsonl")
    )
    assert audit.returncode == 0, audit.stdout
    rows = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert len(rows) == 25 and all(r["ok"] and r["reasons"] == [] for r in rows)


def test_audit_strict_fails_on_a_non_temporal_pair(tmp_path: Path) -> None:
    f = tmp_path / "bad.csv"
    f.write_text(
        "pos,neg\na man is waving at a woman,a woman is waving at a man\n"
        "a man eats then watches tv,a man watches tv then eats\n"
    )
    audit = run_cli("captions", "audit", str(f), "--strict", "--report", str(tmp_path / "r.jsonl"))
    assert audit.returncode == 2
    rows = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert rows[0]["ok"] is False and "not-temporal" in rows[0]["reasons"]
    assert rows[1]["ok"] is True
    assert "1/2 pairs pass" in audit.stdout


@pytest.mark.slow
def test_retrieve_finds_a_paraphrase_in_a_jsonl_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    lines = [
        {"video_id": f"v{i}", "caption": f"a person plays instrument number {i} on a stage"}
        for i in range(60)
    ]
    lines.append(
        {"video_id": "target", "caption": "a chef slices onions and then fries them in a pan"}
    )
    corpus.write_text("".join(json.dumps(x) + "\n" for x in lines))
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        json.dumps(
            {
                "pos": "a cook cuts an onion then fries it",
                "neg": "a cook fries an onion then cuts it",
            }
        )
        + "\n"
    )
    out = tmp_path / "cand.jsonl"
    run = run_cli(
        "retrieve",
        "--pairs",
        str(pairs),
        "--corpus",
        f"jsonl:{corpus}",
        "--top-k",
        "20",
        "--out",
        str(out),
    )
    assert run.returncode == 0, run.stderr
    row = json.loads(out.read_text())
    assert row["pos_candidates"][0]["video_id"] == "target"
    assert [c["rank"] for c in row["pos_candidates"]] == list(range(1, 21))
    assert row["pos_candidates"][0]["matched"] and not row["pos_no_match"]
    assert not row["discriminating"]  # the swapped caption retrieves the same clips
    assert "no-match threshold 0.650 (cosine): 0/1 pairs have no match" in run.stdout
    assert "1 not discriminating" in run.stdout
    strict = run_cli(
        "retrieve",
        "--pairs",
        str(pairs),
        "--corpus",
        f"jsonl:{corpus}",
        "--out",
        str(out),
        "--no-match-threshold",
        "0.99",
    )
    assert "1/1 pairs have no match" in strict.stdout, strict.stderr
    assert json.loads(out.read_text())["pos_no_match"]
    bad = run_cli(
        "retrieve",
        "--pairs",
        str(pairs),
        "--corpus",
        f"vatex:{tmp_path / 'none.json'}",
        "--out",
        str(out),
    )
    assert bad.returncode == 2 and bad.stderr.startswith("tempogen: error:")
