"""`script/bench --mimi-state`: first audio with pocket-tts's NaN-filled Mimi caches and without.

One model (pocket-tts's layer shapes, random weights), its Mimi attention layers switched between
three classes round by round, so every variant runs the same weights in the same memory:
- `NaN fill`: pocket-tts's own (`init_states` fills each cache, sized for the longest
  generation);
- `prepared copy`: a full-length NaN cache prepared once per length and copied per generation;
- `unfilled`: what the server loads (`engine.model.mimi_cache`).
Each is timed on the serving path (`engine.timing.serve`, the short sentence to its first chunk),
in interleaved rounds (the order reversed every round); figures are medians, with the process's
CPU time per first audio and the time the Mimi thread spent building its state (pocket-tts's
`init_states`, timed by wrapping it for the run): first audio on a shared host is noisy, the
state's build is the part that changes.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from pocket_tts.modules.attention import StreamingMultiheadAttention

from testkit.model_factory import build_tiny_model
from wyoming_pocket_tts.engine.model.equivalents import use_equivalents
from wyoming_pocket_tts.engine.model.mimi_cache import UnfilledKVCache, skip_mimi_cache_fill
from wyoming_pocket_tts.engine.model.runtime import TorchRuntime
from wyoming_pocket_tts.engine.tuning.timing import SHORT_TEXT, interleaved, serve
from wyoming_pocket_tts.host import set_torch_threads

from .profile_report import server_int8_copy

if TYPE_CHECKING:
    from pocket_tts import TTSModel

FIRST_AUDIO_RUNS = 5
"""First-audio runs per variant and round."""


class PreparedCopy(StreamingMultiheadAttention):
    """A NaN-filled state prepared once per length, copied per generation (bench only)."""

    prepared: dict[tuple[int, int], dict[str, torch.Tensor]]

    def init_state(self, batch_size: int, sequence_length: int) -> dict[str, torch.Tensor]:
        key = (batch_size, sequence_length)
        if key not in self.prepared:
            self.prepared[key] = super().init_state(batch_size, sequence_length)
        return {name: tensor.clone() for name, tensor in self.prepared[key].items()}


VARIANTS: dict[str, type[StreamingMultiheadAttention]] = {
    "NaN fill (pocket-tts)": StreamingMultiheadAttention,
    "prepared copy": PreparedCopy,
    "unfilled (server)": UnfilledKVCache,
}


def _switch(model: TTSModel, cls: type[StreamingMultiheadAttention]) -> None:
    for module in model.mimi.modules():
        if isinstance(module, StreamingMultiheadAttention):
            if not hasattr(module, "prepared"):
                object.__setattr__(module, "prepared", {})
            module.__class__ = cls


@contextmanager
def state_builds_timed() -> Iterator[list[float]]:
    """The seconds of each Mimi state built by pocket-tts's generations while it is open."""
    from pocket_tts.models import tts_model

    original = tts_model.init_states
    seconds: list[float] = []

    def timed(model: torch.nn.Module, batch_size: int, sequence_length: int) -> Any:
        started = time.perf_counter()
        try:
            return original(model, batch_size, sequence_length)
        finally:
            if model is not None and sequence_length > 0 and hasattr(model, "decoder"):
                seconds.append(time.perf_counter() - started)

    tts_model.init_states = timed
    try:
        yield seconds
    finally:
        tts_model.init_states = original


def measure(size: str, runs: int, root: Path) -> dict[str, Any]:
    from pocket_tts import TTSModel

    files = build_tiny_model(root / "model", size=size, eos=False, link=True)
    fp32 = TTSModel.load_model(config=str(files.config_path))
    set_torch_threads(1)
    models = {"server int8": server_int8_copy(fp32), "fp32": fp32}
    use_equivalents(fp32)
    for model in models.values():
        skip_mimi_cache_fill(model)  # gives each layer its `empty_states`
    first: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    build: dict[tuple[str, str], list[float]] = {}
    names = [(m, v) for m in models for v in VARIANTS]
    for model_name, variant in names:  # first-call costs, and each length prepared once
        _switch(models[model_name], VARIANTS[variant])
        serve(TorchRuntime(models[model_name], False), SHORT_TEXT, 1)
    loads = [os.getloadavg()[0]]
    for order in interleaved(names, runs):
        for model_name, variant in order:
            model = models[model_name]
            _switch(model, VARIANTS[variant])
            for _ in range(FIRST_AUDIO_RUNS):
                started = time.process_time()
                with state_builds_timed() as builds:
                    seconds, _ = serve(TorchRuntime(model, False), SHORT_TEXT, 1)
                first.setdefault((model_name, variant), []).append(seconds)
                cpu.setdefault((model_name, variant), []).append(time.process_time() - started)
                build.setdefault((model_name, variant), []).extend(builds)
        loads.append(os.getloadavg()[0])
    for model in models.values():
        _switch(model, UnfilledKVCache)
    return {
        "size": size,
        "runs": runs,
        "load": [min(loads), max(loads)],
        "rows": [
            {
                "model": model_name,
                "variant": variant,
                "first_audio_ms": statistics.median(first[model_name, variant]) * 1000,
                "cpu_ms": statistics.median(cpu[model_name, variant]) * 1000,
                "state_ms": statistics.median(build[model_name, variant]) * 1000,
            }
            for model_name, variant in names
        ],
    }


def render(results: dict[str, Any]) -> str:
    lines = [
        f"Model: {results['size']} shapes, random weights; {results['runs']} interleaved rounds of "
        f"{FIRST_AUDIO_RUNS} first-audio runs per variant, medians; 1-minute load average "
        f"{results['load'][0]:.1f}-{results['load'][1]:.1f} on {os.cpu_count()} cores.",
        "",
        "| model | Mimi state | first audio | vs NaN fill | CPU per first audio | vs NaN fill "
        "| state built in |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    base: dict[str, dict[str, float]] = {}
    for row in results["rows"]:
        reference = base.setdefault(row["model"], row)
        lines.append(
            f"| {row['model']} | {row['variant']} | {row['first_audio_ms']:.1f} ms "
            f"| {row['first_audio_ms'] / reference['first_audio_ms']:.2f} "
            f"| {row['cpu_ms']:.1f} ms | {row['cpu_ms'] / reference['cpu_ms']:.2f} "
            f"| {row['state_ms']:.2f} ms |"
        )
    return "\n".join(lines) + "\n"
