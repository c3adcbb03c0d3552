"""Smoke test of the benchmark on the tiny model: it runs and reports every figure.

No threshold is asserted: timing on shared machines is noisy. The targets are judged from a
full-size run (`script/bench`), reported in the README.
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_quick_reports_all_figures(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    result = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--runs", "1", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(out.read_text())
    for section in [
        "library_vs_server",
        "streaming",
        "voices",
        "memory",
        "startup",
        "quantize",
        "encode_threads",
        "text",
        "loudness",
    ]:
        assert figures[section], section
    assert figures["voices"]["encodes_alternating_two_voices"] == 0
    assert figures["startup"]["warm_encodes"] == 0
    assert "| time to first audio (" in result.stdout
    assert set(figures["text"]) >= {"en", "fr", "de", "it", "pt", "es", "nl"}
    assert "| prepare 5000 characters of announcements (nl)" in result.stdout
    assert "| loudness of 3 voices" in result.stdout
