"""The README's picture, made from a build: one question's contact sheet (the 16 frames a
model sees) with its question and answer under it, beside a screenshot of the build's index
page (headless Chromium).

    python scripts/docs_images.py DATASET --id direction-0000 --out docs/img/front.jpg
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont


def screenshot(page: Path, out: Path, size: tuple[int, int] = (1200, 800)) -> Path:
    """``page`` as headless Chromium draws it at ``size``."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("docs_images: chromium is not on PATH (apt-get install -y chromium)")
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    cmd += [f"--screenshot={out}", f"--window-size={size[0]},{size[1]}", page.resolve().as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    return out


def front(dataset: Path, qid: str, out: Path) -> Path:
    """The sheet of question ``qid`` with its question and answer, beside the index page."""
    rows = [json.loads(x) for x in (dataset / "manifest.jsonl").read_text().splitlines()]
    (row,) = [r for r in rows if r["id"] == qid]
    sheet = Image.open(dataset / "sheets" / f"{qid}.png").convert("RGB")
    font = ImageFont.load_default(size=22)
    lines = [f"Q: {row['question']}", f"A: {row['options'][row['answer']]}"]
    left = Image.new("RGB", (sheet.width, sheet.height + 80), "white")
    left.paste(sheet, (0, 0))
    draw = ImageDraw.Draw(left)
    for i, line in enumerate(lines):
        draw.text((10, sheet.height + 10 + 32 * i), line, fill="black", font=font)
    with tempfile.TemporaryDirectory() as tmp:
        page = Image.open(screenshot(dataset / "index.html", Path(tmp) / "index.png"))
        page = page.convert("RGB").resize(
            (round(page.width * left.height / page.height), left.height), Image.LANCZOS
        )
    both = Image.new("RGB", (left.width + 16 + page.width, left.height), "white")
    both.paste(left, (0, 0))
    both.paste(page, (left.width + 16, 0))
    out.parent.mkdir(parents=True, exist_ok=True)
    both.save(out, quality=82, optimize=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", type=Path, help="a build's folder")
    ap.add_argument("--id", default="direction-0000", help="the question whose sheet is shown")
    ap.add_argument("--out", type=Path, default=Path("docs/img/front.jpg"))
    args = ap.parse_args(argv)
    print(front(args.dataset, args.id, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
