"""Smoke test of the benchmark on the tiny model: it runs and reports every figure.

No threshold is asserted: timing on shared machines is noisy. The targets are judged from a
full-size run (`script/bench`), reported in the README.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
        "defaults",
        "library_vs_server",
        "streaming",
        "voices",
        "memory",
        "startup",
        "quantize",
        "encode_threads",
    ]:
        assert figures[section], section
    assert figures["voices"]["encodes_alternating_two_voices"] == 0
    assert figures["startup"]["warm_encodes"] == 0
    assert "| same settings (fp32): time to first audio (" in result.stdout
    assert figures["defaults"]["server_quantize"].startswith(("int8 x", "fp32 x"))


def test_bench_model_shapes_are_the_packaged_configs() -> None:
    """`script/bench --model NAME` and `--table` build models from any packaged config name."""
    from tests.model_factory import shape_config

    assert shape_config("full") == "english"
    assert shape_config("english_7m_2026-10") == "english_7m_2026-10"
    with pytest.raises(ValueError, match="english_9000m"):
        shape_config("english_9000m")
