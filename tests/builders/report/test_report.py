"""The one-pipeline build: report page (checked in headless Chromium), validity and eval CLIs."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from headless import chromium
from kit import manifest_row, run_cli


@pytest.fixture(scope="module")
def dataset(tiny_dataset: Path) -> Path:
    """The session's tiny build (configs/tiny.yaml: 3D humans and objects, variants, the
    Vinoground and caption-retrieval stages, every layout): only read here."""
    return tiny_dataset


@pytest.mark.slow
def test_build_writes_every_layout_and_the_report(dataset: Path) -> None:
    for rel in (
        "manifest.jsonl",
        "tomato/data/rotation.json",
        "videott/videott.json",
        "lmms_eval/tempogen_tomato/tempogen_tomato.yaml",
        "hf/README.md",
        "hf/data/test.parquet",
        "validity.json",
        "report.html",
        "index.html",
    ):
        assert (dataset / rel).is_file(), rel
    page = (dataset / "report.html").read_text()
    for heading in (
        "Contents",
        "Does it need temporal reasoning?",
        "TOMATO's published values",
        "Certificates",
        "Contact sheets",
    ):
        assert heading in page
    for src in re.findall(r'<img[^>]+src="([^"]+)"', page):
        assert (dataset / src).is_file(), src
    validity = json.loads((dataset / "validity.json").read_text())
    assert validity["overall"]["accuracy"]["uniform16"] == 100.0
    assert validity["overall"]["kappa_random"] > 0


@pytest.mark.slow
def test_report_renders_in_headless_chromium(dataset: Path, tmp_path: Path) -> None:
    browser = chromium()
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    url = (dataset / "report.html").resolve().as_uri()
    dom = subprocess.run(
        [browser, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120
    ).stdout
    loaded = re.search(r'data-images="(\d+)/(\d+)"', dom)
    assert loaded, "the page's load handler did not run"
    ok, total = map(int, loaded.groups())
    assert total >= 6 and ok == total, f"only {ok} of {total} plots decoded in the browser"
    shot = tmp_path / "report.png"
    subprocess.run(
        [browser, *flags, "--window-size=1200,1600", f"--screenshot={shot}", url],
        capture_output=True,
        timeout=120,
        check=True,
    )
    import cv2

    img = cv2.imread(str(shot))
    assert img is not None and img.shape[0] >= 1000
    assert float(np.std(img)) > 10, "the screenshot is blank"


@pytest.mark.slow
def test_audit_validity_cli(dataset: Path, tmp_path: Path) -> None:
    out = run_cli(
        "audit",
        "validity",
        "--manifest",
        str(dataset / "manifest.jsonl"),
        "--out",
        str(tmp_path / "v.json"),
        check=True,
    )
    assert "kappa_random" in out.stdout and "TOMATO" in out.stdout
    got = json.loads((tmp_path / "v.json").read_text())
    assert got["audited"] >= 12
    # one figure from one source: the audit gives what the build's report and validity.json say
    built = json.loads((dataset / "validity.json").read_text())
    built.pop("shortcuts", None)
    assert got == built


@pytest.mark.slow
def test_eval_tomato_cli_scores_known_predictions(dataset: Path, tmp_path: Path) -> None:
    """Right answers for even ids, wrong for odd ones: accuracy is the share of even ids."""
    preds, right, total = [], 0, 0
    for f in sorted((dataset / "tomato" / "data").glob("*.json")):
        for key, q in json.loads(f.read_text()).items():
            good = int(key) % 2 == 0
            letter = "ABCDEFGH"[q["answer"] if good else (q["answer"] + 1) % len(q["options"])]
            preds.append({"task": f.stem, "id": key, "response": f"The answer is ({letter})."})
            right += good
            total += 1
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
    out = run_cli(
        "eval",
        "tomato",
        "--dataset",
        str(dataset),
        "--predictions",
        str(tmp_path / "p.jsonl"),
        "--out",
        str(tmp_path / "s.json"),
        check=True,
    )
    assert f"{100 * right / total:.2f}" in out.stdout
    bad = run_cli(
        "eval",
        "tomato",
        "--dataset",
        str(tmp_path / "nowhere"),
        "--predictions",
        str(tmp_path / "p.jsonl"),
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("tempogen: error:")


def test_answer_spread_is_per_pattern() -> None:
    from tempogen.builders.report.report import _pattern_spread

    rows = [manifest_row(generator="a", answer_key=k) for k in "1123"]  # a: 1 twice, 2, 3 once
    rows += [manifest_row(generator="b", answer_key="9")] * 3  # b alone is balanced
    rows += [manifest_row(generator="a", answer_key="1", source="x")] * 5  # variants: not counted
    assert _pattern_spread(rows) == 1
    assert _pattern_spread(rows + [manifest_row(generator="a", answer_key="1")]) == 2
