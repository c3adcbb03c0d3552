"""Smoke test of the benchmark on the tiny model: it runs and reports every figure.

No threshold is asserted: timing on shared machines is noisy. The targets are judged from a
full-size run (`script/bench`), reported in the README.
"""

import json
import math
import os
from pathlib import Path

import pytest

from testkit.zygote import Zygote

ROOT = Path(__file__).resolve().parents[2]


BENCH_TIMEOUT = 600
"""The bench's own bound; pytest's (240 s by default, pyproject.toml) must not cut it short."""

RUN_FIGURES = {
    *(f"{name}_{stat}" for name in ("ttfa", "rtf") for stat in ("median", "min", "max")),
    "total_median",
    "audio_seconds",
}
"""What `_summary` reports for a series of whole generations."""


def _positive(section: dict, keys: set[str]) -> None:
    assert set(section) >= keys, sorted(keys - set(section))
    for key in keys:
        value = section[key]
        assert isinstance(value, (int, float)) and math.isfinite(value) and value > 0, key


def _series(section: dict) -> None:
    _positive(section, RUN_FIGURES)
    for name in ("ttfa", "rtf"):
        assert section[f"{name}_min"] <= section[f"{name}_median"] <= section[f"{name}_max"]


@pytest.mark.timeout(BENCH_TIMEOUT + 60)
def test_bench_quick_reports_all_figures(tmp_path: Path) -> None:
    """Every section of the benchmark runs once (library and server starts, voices, memory,
    start-up, both quantizations, loudness), which is what checks that `script/bench` still
    reports every figure; on the slim model that ends its speech, a four-word text and one-second
    prompts. Over 20 s: its eight process starts and the speed comparison of its `--quantize
    auto` server. It forks from this worker's zygote, and its six servers and its pocket-tts-alone
    process from a zygote of its own (`FORK_ENV` is inherited), so its start-up figures here leave
    out the imports that a real `script/bench` counts."""
    out = tmp_path / "bench.json"
    argv = ["-m", "bench", "--quick", "--runs", "1", "--json", str(out)]
    result = Zygote.run(argv, dict(os.environ), BENCH_TIMEOUT, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(out.read_text())
    comparison = figures["library_vs_server"]
    _series(comparison["library"])
    _series(comparison["server"])
    # The same text and voice: the server speaks exactly what the library does.
    assert comparison["server"]["audio_seconds"] == comparison["library"]["audio_seconds"]
    _positive(figures["streaming"], {"stream_first_audio_after_sentence", "llm_gap"})
    _positive(figures["streaming"], {"one_shot_ttfa_first_sentence"})
    timings = {"library_encode_prompt", "library_load_saved_state", "ttfa_hit"}
    _positive(figures["voices"], timings | {"ttfa_first_encode", "ttfa_from_saved_state"})
    _series(figures["defaults"]["library"])  # pocket-tts's own defaults vs the server's
    _series(figures["defaults"]["server"])
    assert figures["voices"]["encodes_alternating_two_voices"] == 0
    assert figures["voices"]["encodes_cycling_three_voices_after_first"] == 0
    _positive(figures["memory"], {"server_rss_mib", "library_rss_mib", "requests"})
    _positive(figures["startup"], {"cold_seconds", "warm_seconds"})
    assert figures["startup"]["warm_encodes"] == 0
    _series(figures["quantize"]["fp32"])
    _series(figures["quantize"]["int8"])
    assert (
        figures["quantize"]["int8"]["audio_seconds"] == figures["quantize"]["fp32"]["audio_seconds"]
    )
    assert figures["encode_threads"] and all(v > 0 for v in figures["encode_threads"].values())
    assert "| same settings (fp32): time to first audio (" in result.stdout
    assert figures["defaults"]["server_quantize"].startswith(("int8 x", "fp32 x"))
    assert set(figures["text"]) >= {"en", "fr", "de", "it", "pt", "es", "nl"}
    assert "| prepare 5000 characters of announcements (nl)" in result.stdout
    loudness = figures["loudness"]
    assert len(loudness["before"]) == len(loudness["after"]) == 3
    assert all(abs(level - loudness["target"]) <= 1.0 for level in loudness["after"].values())
    assert len(loudness["calibration"]) == 3
    assert "| loudness of 3 voices" in result.stdout


def test_bench_model_shapes_are_the_packaged_configs() -> None:
    """`script/bench --model NAME` and `--table` build models from any packaged config name."""
    from testkit.model_factory import shape_config

    assert shape_config("full") == "english"
    assert shape_config("english_7m_2026-10") == "english_7m_2026-10"
    with pytest.raises(ValueError, match="english_9000m"):
        shape_config("english_9000m")


PTTS_INSTALL_TIMEOUT = 300
"""pip's bound for installing ptts (a 19 MB wheel and numpy) beside the venv, once per run."""
PEER_TEXT = "The kitchen lights are on, and the front door is locked."
FRAME = 1920
"""Samples per 80 ms frame at 24 kHz."""


@pytest.fixture(scope="module")
def ptts_dir(shared_model_cache: Path) -> Path:
    """ptts installed beside the venv, in the run's model cache (shared by the xdist workers);
    the tests that need it are skipped where pip cannot reach the package registry."""
    from bench.peers import PTTS_VERSION, ensure_ptts

    try:
        return ensure_ptts(shared_model_cache / f"ptts-{PTTS_VERSION}", PTTS_INSTALL_TIMEOUT)
    except RuntimeError as error:
        pytest.skip(f"ptts is not installable here: {error}")


@pytest.mark.timeout(PTTS_INSTALL_TIMEOUT + 240)
def test_ptts_speaks_pocket_tts_audio_from_its_layout(tmp_path: Path, ptts_dir: Path) -> None:
    """`script/bench --peers`' ptts sides run the bench's model: the random weights converted
    to ptts's layout (`bench.ptts_layout`) give pocket-tts's own audio at temperature 0, as
    long, and after the first frame (Mimi's first frame starts from other caches) within 1e-4
    of its RMS (2e-6 measured). Shapes `lsd` (the default model's widths, one layer each): the
    smallest that ptts 0.4.2 runs. ptts runs in `bench.peer_worker`, as in the bench, and
    without torch."""
    import numpy as np

    from bench.peers import convert, ptts_worker
    from testkit.model_factory import build_tiny_model, write_voice_wav

    model = build_tiny_model(tmp_path / "model", size="lsd", eos=False, link=True)
    prompt = write_voice_wav(tmp_path / "v1.wav", 2.0, seed=1)
    checkpoint = convert(model.config_path, tmp_path / "ptts", {"v1": prompt})
    worker = ptts_worker(checkpoint, "f32", ptts_dir, tmp_path / "ptts.log")
    try:
        worker.save(PEER_TEXT, "v1", tmp_path / "ptts.npy")
        # The peer is measured as its users run it: without torch in its process.
        assert "libtorch" not in Path(f"/proc/{worker.process.pid}/maps").read_text()
    finally:
        worker.stop()
    theirs = np.load(tmp_path / "ptts.npy")
    pocket = model.load()
    ours = pocket.generate_audio(pocket.get_state_for_audio_prompt(prompt), PEER_TEXT).numpy()
    assert theirs.shape == ours.shape
    rms = float(np.sqrt(np.mean(ours[FRAME:] ** 2)))
    error = float(np.sqrt(np.mean((theirs[FRAME:] - ours[FRAME:]) ** 2)))
    assert rms > 0.0 and error < 1e-4 * rms, (error / rms, rms)


def test_ptts_layout_refuses_shapes_ptts_cannot_run() -> None:
    """The small 2026-10 models (low-rank table, narrow attention, their own decoder) have no
    place in ptts 0.4.2's config: the conversion says which parts, it does not write a model
    that would speak something else."""
    from bench.ptts_layout import ptts_config
    from testkit.model_factory import packaged_config

    with pytest.raises(ValueError, match=r"low-rank lookup table.*attention width"):
        ptts_config(packaged_config("english_2m_2026-10"), 0.0)
    assert ptts_config(packaged_config("english"), 0.0)["mimi"]["dimension"] == 512


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("english_18m_2026-10", "flow type, separate Mimi decoder, latent projection"),
        (
            "english_7m_2026-10",
            "flow type, low-rank lookup table, attention width, separate Mimi decoder, "
            "latent projection",
        ),
    ],
)
def test_ptts_refusal_names_only_the_parts_a_model_has(
    tmp_path: Path, name: str, parts: str
) -> None:
    """The reason `script/bench --peers --model NAME` prints for leaving ptts out names what the
    model has: `english_18m_2026-10` writes `rank`, `attn_dim` and `num_kv_heads` as `null`
    (a full-rank table, full-width attention), which ptts could run."""
    import yaml

    from bench.peers import ptts_refusal
    from testkit.model_factory import packaged_config

    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(packaged_config(name)))
    assert ptts_refusal(config) == f"ptts 0.4.2 cannot run this model: {parts}"


def test_peers_table_says_why_ptts_is_left_out() -> None:
    """On a model ptts cannot run, the peers table has the three other sides, their ratios
    against pocket-tts, and the reason ptts is missing."""
    from bench.peers import render

    def side(ttfa: float, rtf: float) -> dict:
        figures = {f"ttfa_{stat}": ttfa for stat in ("median", "min", "max")}
        figures |= {f"rtf_{stat}": rtf for stat in ("median", "min", "max")}
        return figures | {"audio_seconds": 13.0, "ttfa_runs": 4, "rss_mib": 1, "peak_mib": 2}

    sides = {"pocket-tts": side(0.2, 2.0), "server": side(0.1, 3.0), "server-onnx": side(0.05, 8)}
    sides["server"]["quantize"] = "int8 x1"
    results = {"size": "english_7m_2026-10", "runs": 1, "sides": sides, "ptts": "0.4.2"}
    table = render({**results, "ptts_left_out": "ptts 0.4.2 cannot run this model: flow type"})
    rows = [line for line in table.splitlines() if line.startswith("| ")][2:]  # the sides
    assert len(rows) == 3 and "ptts" not in "".join(rows)
    assert "| 0.25x | 8.00x (8.00-8.00) | 4.00x |" in rows[-1]
    assert "`ptts` left out: ptts 0.4.2 cannot run this model: flow type." in table
    assert "left out" not in render({**results, "ptts_left_out": None})


def _recipe_stand_in(root: Path) -> Path:
    """A stand-in for a checkout of pocket-tts-onnx-export as far as `recipe_refusal` reads one:
    its flow export script's path and its model config, here pocket-tts's packaged
    `english_2026-01` (the same signature, b6369a24, and shapes). Their code is not copied."""
    import yaml

    from bench.sherpa_layout import RECIPE_CONFIG, RECIPE_SCRIPTS
    from testkit.model_factory import packaged_config

    (root / RECIPE_SCRIPTS).mkdir(parents=True)
    (root / RECIPE_SCRIPTS / "export_flow_lm.py").write_text("")
    (root / RECIPE_CONFIG).parent.mkdir(parents=True)
    (root / RECIPE_CONFIG).write_text(yaml.safe_dump(packaged_config("english_2026-01")))
    return root


def test_sherpa_is_left_out_with_the_reason_on_what_its_recipe_cannot_export(
    tmp_path: Path,
) -> None:
    """`script/bench --peers` leaves sherpa-onnx out, and says why, without `--sherpa-recipe`,
    with a folder that is no checkout of the recipe, and on models its recipe cannot export:
    other shapes than its b6369a24 (the bench's `--quick` shapes, one layer each) or parts its
    layout has no place for. The `english` shapes (the bench's default) and `english_2026-01`'s
    it exports."""
    from bench.sherpa_layout import recipe_refusal
    from testkit.model_factory import packaged_config

    english = packaged_config("english")
    assert "no --sherpa-recipe DIR given" in str(recipe_refusal(english, None))
    assert "no checkout of pocket-tts-onnx-export" in str(recipe_refusal(english, tmp_path))
    recipe = _recipe_stand_in(tmp_path / "recipe")
    assert recipe_refusal(english, recipe) is None
    assert recipe_refusal(packaged_config("english_2026-01"), recipe) is None
    english["flow_lm"]["transformer"]["num_layers"] = 1
    assert recipe_refusal(english, recipe) == (
        "the recipe exports only its b6369a24 shapes: flow_lm.num_layers 1 (the recipe's: 6)"
    )
    assert recipe_refusal(packaged_config("english_18m_2026-10"), recipe) == (
        "the recipe's b6369a24 layout has no place for: flow type, separate Mimi decoder, "
        "latent projection"
    )


def test_untwinned_weights_differ_from_each_other_by_little() -> None:
    """The weights handed to sherpa-onnx's recipe: a tensor equal to an earlier one (the random
    model's norms) is moved off it, by 2^-20 per twin, so that torch's TorchScript exporter does
    not merge them into a graph that reads an initializer it dropped; the others are kept."""
    import torch

    from bench.sherpa_layout import TWIN_STEP, untwinned

    ones, other = torch.ones(4), torch.arange(4.0)
    out = untwinned({"a": ones, "b": ones.clone(), "c": other, "d": ones.clone()})
    assert torch.equal(out["a"], ones) and torch.equal(out["c"], other)
    assert torch.equal(out["b"], ones + TWIN_STEP) and torch.equal(out["d"], ones + 2 * TWIN_STEP)
    assert len({out[name].numpy().tobytes() for name in "abd"}) == 3


def test_peers_table_has_sherpa_or_says_why_it_is_left_out() -> None:
    """The sherpa-onnx side gets its row, with its version, beside the others; when it was left
    out, the table says why."""
    from bench.peers import render

    def side(ttfa: float, rtf: float) -> dict:
        figures = {f"ttfa_{stat}": ttfa for stat in ("median", "min", "max")}
        figures |= {f"rtf_{stat}": rtf for stat in ("median", "min", "max")}
        return figures | {"audio_seconds": 13.0, "ttfa_runs": 4, "rss_mib": 1500, "peak_mib": 2}

    sides = {"pocket-tts": side(0.2, 2.0), "sherpa-onnx": side(10.0, 1.0)}
    results = {"size": "english", "runs": 1, "sides": sides, "ptts": "0.4.2", "sherpa": "2.0.1"}
    rows = [line for line in render(results).splitlines() if line.startswith("| ")][2:]
    assert rows[-1] == (
        "| sherpa-onnx 2.0.1 int8 (its recipe's files) | 10000 ms (10000-10000) | 50.00x "
        "| 1.00x (1.00-1.00) | 0.50x | 1500 MiB | 2 MiB |"
    )
    del sides["sherpa-onnx"]
    reason = "no --sherpa-recipe DIR given (a checkout of pocket-tts-onnx-export)"
    table = render({**results, "sherpa_left_out": reason})
    assert "sherpa-onnx" not in "".join(line for line in table.splitlines() if "|" in line)
    assert f"sherpa-onnx left out: {reason}." in table
