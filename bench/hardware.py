"""This host's limits for one frame: memory bandwidth, one core's arithmetic, the model's needs.

At batch 1 a frame reads every weight of the flow LM once, so the LM cannot run faster than its
weight bytes over the memory bandwidth, nor faster than its arithmetic over one core's rate
(pocket-tts runs each stage on one thread). Both host figures are measured here, in about a
second, so that the profile prints the gap to the limit of the host it runs on.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch.utils.flop_counter import FlopCounterMode

if TYPE_CHECKING:
    from pocket_tts import TTSModel

COPY_BYTES = 256 * 2**20
"""Size of the copied buffer: far beyond the last-level cache."""


def _best(function: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def memory_bandwidth(repeats: int = 3) -> float:
    """Bytes per second one core moves (read + write) copying a buffer far beyond the cache."""
    source = np.ones(COPY_BYTES // 8)
    target = np.empty_like(source)
    np.copyto(target, source)  # pages touched once
    return 2 * COPY_BYTES / _best(lambda: np.copyto(target, source), repeats)


def core_flops(size: int = 1024, repeats: int = 3) -> float:
    """fp32 FLOP per second of one torch thread, from a square matrix product."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        a, b = torch.randn(size, size), torch.randn(size, size)
        torch.mm(a, b)
        return 2 * size**3 / _best(lambda: torch.mm(a, b), repeats)
    finally:
        torch.set_num_threads(threads)


def weight_bytes(module: torch.nn.Module) -> int:
    """Bytes of the linear layers' weights (int8 ones as 1 byte each): what a frame reads."""
    total = 0
    for layer in module.modules():
        weight = getattr(layer, "weight", None)
        if "Linear" not in type(layer).__name__ or weight is None:
            continue
        tensor = weight() if callable(weight) else weight
        total += tensor.numel() * tensor.element_size()
    return total


def frame_flops(model: TTSModel) -> dict[str, float]:
    """FLOPs of one frame's flow LM step and Mimi decode (matrix products and convolutions),
    counted by torch on an fp32 model through its public calls, from an empty state."""
    from pocket_tts.modules.stateful_module import init_states

    flow_lm = model.flow_lm
    state = init_states(flow_lm, batch_size=1, sequence_length=64)
    mimi_state = init_states(model.mimi, batch_size=1, sequence_length=64)
    sequence = torch.full((1, 1, flow_lm.ldim), float("nan"))
    empty = torch.empty((1, 0, flow_lm.dim))
    with torch.no_grad():
        with FlopCounterMode(display=False) as lm:
            flow_lm(
                sequence=sequence,
                text_embeddings=empty,
                model_state=state,
                sampler_decode_steps=model.sampler_decode_steps,
                temp=model.temp,
                noise_clamp=model.noise_clamp,
                eos_threshold=model.eos_threshold,
            )
        with FlopCounterMode(display=False) as mimi:
            model.mimi.decode_from_latent(torch.zeros(1, 1, flow_lm.ldim), mimi_state)
    return {"lm": float(lm.get_total_flops()), "mimi": float(mimi.get_total_flops())}


def limits(fp32: TTSModel, quantized: dict[str, TTSModel]) -> dict[str, Any]:
    """The host's figures and each variant's floor per frame: the LM stage's weight reads over
    the bandwidth or its arithmetic over one core, whichever is longer; Mimi's likewise."""
    bandwidth, flops = memory_bandwidth(), core_flops()
    work = frame_flops(fp32)
    floors = {}
    for name, model in quantized.items():
        mimi_bytes = weight_bytes(model.mimi.decoder) + weight_bytes(model.mimi.decoder_transformer)
        mimi_floor = max(mimi_bytes / bandwidth, work["mimi"] / flops)
        lm_bytes = weight_bytes(model.flow_lm)
        lm_floor = max(lm_bytes / bandwidth, work["lm"] / flops)
        floors[name] = {
            "lm_weight_mb": lm_bytes / 1e6,
            "lm_floor_ms": lm_floor * 1000,
            "mimi_floor_ms": mimi_floor * 1000,
            "frame_floor_ms": max(lm_floor, mimi_floor) * 1000,
        }
    return {
        "bandwidth_gb_s": bandwidth / 1e9,
        "core_gflop_s": flops / 1e9,
        "lm_mflop": work["lm"] / 1e6,
        "mimi_mflop": work["mimi"] / 1e6,
        "floors": floors,
    }
