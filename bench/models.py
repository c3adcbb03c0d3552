"""`script/bench --table [NAME ...]`: every model shape, fp32 and int8 side by side, with memory.

For each pocket-tts config shape (random weights), one server runs `--quantize off` and one
`--quantize on`, both up at once; requests alternate between them (A B A B ...). RSS is read from
each server after its runs (model + one cloned voice). These are the figures a user of the server
sees on this machine; with real weights the speech would end earlier, the speed is the same.
"""

from __future__ import annotations

import logging
import statistics
from pathlib import Path
from typing import Any

from safetensors import safe_open

from testkit.model_factory import build_tiny_model, write_voice_wav

from .sides import Server

_LOGGER = logging.getLogger(__name__)

TABLE_MODELS = (
    "english",
    "english_2026-09_24l",
    "english_drifting_26-09",
    "english_18m_2026-10",
    "english_7m_2026-10",
    "english_2m_2026-10",
)
"""The issue's table: the default model, the large one, and the small 2026-10 family."""
TEXT = "The living room lights are on, and the front door is locked for the night."


def parameters(weights: Path) -> int:
    """Parameters stored in a safetensors file."""
    total = 0
    with safe_open(str(weights), framework="pt") as file:
        for name in file.keys():  # noqa: SIM118 (safe_open is not a mapping)
            shape = file.get_slice(name).get_shape()
            count = 1
            for size in shape:
                count *= size
            total += count
    return total


def measure_model(name: str, runs: int, root: Path) -> dict[str, Any]:
    """fp32 and int8 servers for one model shape: TTFA, RTF, RSS and start-up time."""
    model = build_tiny_model(root / name, size=name, eos=False, link=True)
    voice = write_voice_wav(root / "voice.wav", 10.0, seed=1)
    base = ["--model-config", str(model.config_path), "--voice", f"v1={voice}"]
    servers = {
        variant: Server(
            [*base, "--quantize", flag, "--data-dir", str(root / f"data-{variant}")],
            root / f"{name}-{variant}.log",
        )
        for variant, flag in (("fp32", "off"), ("int8", "on"))
    }
    try:
        for server in servers.values():
            server.run(TEXT, "v1")  # first request of each, kept out of the figures
        timed: dict[str, list] = {variant: [] for variant in servers}
        for _ in range(runs):
            for variant, server in servers.items():
                timed[variant].append(server.run(TEXT, "v1"))
        result: dict[str, Any] = {
            "model": name,
            "parameters": parameters(model.weights_path),
            "audio_seconds": timed["fp32"][0].audio_seconds,
        }
        for variant, server in servers.items():
            result[variant] = {
                "ttfa_median": statistics.median(r.ttfa for r in timed[variant]),
                "rtf_median": statistics.median(r.rtf for r in timed[variant]),
                "rtf_min": min(r.rtf for r in timed[variant]),
                "rtf_max": max(r.rtf for r in timed[variant]),
                "rss_mib": server.rss_mib(),
                "startup_seconds": server.startup,
            }
        _LOGGER.info("Measured %s", name)
        return result
    finally:
        for server in servers.values():
            server.stop()


def model_table(names: list[str], runs: int, root: Path) -> list[dict[str, Any]]:
    return [measure_model(name, runs, root) for name in names]


def render_table(rows: list[dict[str, Any]], runs: int) -> str:
    lines = [
        f"Server over loopback, random weights, {runs} runs per side alternating, medians; "
        f"{rows[0]['audio_seconds']:.1f} s of audio per run; RSS after the runs (model + one "
        "cloned voice).",
        "",
        "| model | params | fp32 first audio | fp32 RTF | fp32 RSS "
        "| int8 first audio | int8 RTF | int8 RSS | int8/fp32 RTF |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        fp32, int8 = row["fp32"], row["int8"]
        lines.append(
            f"| {row['model']} | {row['parameters'] / 1e6:.1f}M "
            f"| {fp32['ttfa_median'] * 1000:.0f} ms | {fp32['rtf_median']:.2f}x "
            f"| {fp32['rss_mib']:.0f} MiB "
            f"| {int8['ttfa_median'] * 1000:.0f} ms | {int8['rtf_median']:.2f}x "
            f"| {int8['rss_mib']:.0f} MiB "
            f"| {int8['rtf_median'] / fp32['rtf_median']:.2f} |"
        )
    return "\n".join(lines) + "\n"
