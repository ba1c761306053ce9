"""Help texts from docstrings."""

from __future__ import annotations

from tempogen.text import first_sentence


def test_first_sentence_is_whole_across_line_breaks() -> None:
    doc = """Write the manifest in TOMATO's layout: one JSON file per
    task, keyed by question id. Videos are linked, not copied."""
    assert first_sentence(doc) == (
        "Write the manifest in TOMATO's layout: one JSON file per task, keyed by question id."
    )
    assert first_sentence("No full stop at all") == "No full stop at all"
    assert first_sentence(None) == ""
    assert first_sentence("Ends here (e.g. this). Next.") == "Ends here (e.g. this)."


def test_cli_help_ends_its_sentence() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "--help"], capture_output=True, text=True
    ).stdout
    assert "temporal reasoning (TOMATO, Vinoground and Video-TT layouts)." in " ".join(out.split())
