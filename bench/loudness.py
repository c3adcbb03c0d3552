"""The loudness section of the benchmark: three voices before and after `--loudness`, and what
measuring a voice costs.

`python -m bench.loudness [--quick]` runs this section alone. Three prompts of one synthetic
speaker at 0, -20 and -40 dB become three voices; one server runs with `--loudness off` and one
with the default target, each on a fresh data folder, and every voice says the same sentence on
both. Random weights do not follow the prompt's level, so "before" shows the model's own level.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import soundfile

from testkit.model_factory import build_tiny_model, write_voice_wav
from testkit.support import synthesize
from wyoming_pocket_tts.audio.loudness import integrated_loudness
from wyoming_pocket_tts.settings import DEFAULT_LOUDNESS_LUFS, SAMPLE_RATE

from .sides import Server

SENTENCE = "The front door is locked and the lights are off."
LEVELS_DB = (0, -20, -40)
_CALIBRATED = re.compile(r"Calibrated voice (\S+): (\S+) LUFS over (\S+) s of speech, in (\S+) s")


def _prompts(root: Path, seconds: float) -> dict[str, Path]:
    source = write_voice_wav(root / "loudness-source.wav", seconds, seed=7)
    audio, rate = soundfile.read(source, dtype="float32")
    prompts = {}
    for db in LEVELS_DB:
        prompts[f"p{abs(db)}"] = root / f"loudness-{abs(db)}dB.wav"
        soundfile.write(prompts[f"p{abs(db)}"], audio * 10 ** (db / 20), rate, subtype="FLOAT")
    return prompts


def _levels(server: Server, names: list[str]) -> tuple[dict[str, float], float]:
    """Each voice's loudness on SENTENCE, and the real-time factor of those requests."""
    levels, audio_seconds, started = {}, 0.0, time.monotonic()
    for name in names:
        reply = asyncio.run(synthesize(server.process.port, SENTENCE, voice=name))
        samples = np.frombuffer(reply.audio, dtype="<i2").astype(np.float64) / 32767.0
        levels[name] = integrated_loudness(samples, SAMPLE_RATE)
        audio_seconds += samples.size / SAMPLE_RATE
    return levels, audio_seconds / (time.monotonic() - started)


def measure(config: Path, root: Path, prompt_seconds: float) -> dict[str, Any]:
    """Loudness of three voices with `--loudness off` and with the default target."""
    prompts = _prompts(root, prompt_seconds)
    base = ["--model-config", str(config), "--voice-cache-size", "3"]
    for name, path in prompts.items():
        base += ["--voice", f"{name}={path}"]
    results: dict[str, Any] = {"target": DEFAULT_LOUDNESS_LUFS, "prompt_db": list(LEVELS_DB)}
    for side, flag in (("before", "off"), ("after", str(DEFAULT_LOUDNESS_LUFS))):
        data = ["--data-dir", str(root / f"loudness-{side}")]
        server = Server([*base, *data, "--loudness", flag], root / f"loudness-{side}.log")
        results[side], results[f"rtf_{side}"] = _levels(server, list(prompts))
        if side == "after":
            results["calibration"] = {
                match[0]: {
                    "lufs": float(match[1]),
                    "speech_seconds": float(match[2]),
                    "seconds": float(match[3]),
                }
                for match in _CALIBRATED.findall(server.process.log)
            }
        server.stop()
    return results


def rows(r: dict[str, Any]) -> list[tuple[str, str, str, str, str, bool | None]]:
    """Report rows: (measure, before, after, ratio, target, met)."""
    before, after, target = r["before"], r["after"], r["target"]
    names = list(before)
    spread_before = max(before.values()) - min(before.values())
    spread_after = max(after.values()) - min(after.values())
    worst = max(abs(level - target) for level in after.values())
    calibration = r["calibration"]
    prompts = ", ".join(f"{db} dB" for db in r["prompt_db"])
    return [
        (
            f"loudness of 3 voices from prompts at {prompts} (LUFS): off / --loudness {target:g}",
            " / ".join(f"{before[n]:.1f}" for n in names),
            " / ".join(f"{after[n]:.1f}" for n in names),
            f"spread {spread_before:.1f} -> {spread_after:.1f} LU",
            "each within 1 LU of the target",
            worst <= 1.0,
        ),
        (
            "voice calibration, once per voice (speech measured / time; "
            "requests' real-time factor then)",
            f"{r['rtf_after']:.2f}x",
            " / ".join(
                f"{c['speech_seconds']:.1f} s in {c['seconds'] * 1000:.0f} ms"
                for c in calibration.values()
            ),
            "",
            "",
            None,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.loudness", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny model")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pocket-bench-loudness-") as tmp:
        root = Path(tmp)
        model = build_tiny_model(root / "model", size="tiny" if args.quick else "full", eos=False)
        results = measure(model.config_path, root, 3.0 if args.quick else 10.0)
    print(f"Model: {'tiny' if args.quick else 'full'}; took {time.monotonic() - started:.0f} s\n")
    print("| measure | before | after | change | target | met |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows(results):
        verdict = "" if row[5] is None else ("yes" if row[5] else "**no**")
        print("| " + " | ".join([*row[:5], verdict]) + " |")
    print(results)


if __name__ == "__main__":
    main()
