"""The exportable attention (`engine.exportable`): pocket-tts's sums over a KV cache written at a
tensor offset, fixed-size for the flow LM and circular for Mimi's decoder, over 300 frames.

Each frame is compared with the same inputs on both sides (the reference's latent is fed to
both, "teacher forcing"): int8's dynamic quantisation rounds a 1e-7 difference in its input to a
whole int8 step now and then, and fed back over 300 frames that grows to 3e-3, which is int8's
noise, not the cache's. Runs without onnxruntime (the graphs: tests/engine/test_onnx_runtime.py).
"""

from __future__ import annotations

import copy

import pytest
import torch
from pocket_tts import TTSModel
from pocket_tts.modules.stateful_module import increment_steps, init_states

from testkit.model_factory import TinyModel, build_tiny_model
from wyoming_pocket_tts.engine.model.int8 import quantize_mimi_decoder
from wyoming_pocket_tts.engine.onnx.attention import (
    CacheFull,
    ExportableAttention,
    use_exportable_attention,
)
from wyoming_pocket_tts.engine.tuning.timing import LONG_TEXT

from .test_int8 import relative_difference

pytestmark = pytest.mark.usefixtures("one_torch_thread")

FRAMES = 300

FP32_TOLERANCE = 1e-5
"""Largest RMS difference relative to the reference's RMS in fp32. Derived: the exportable sums
the same products in another order, and a reordered fp32 sum of n terms moves by about
sqrt(n) * 6e-8 (n at most 1024 here: 2e-6); each frame starts from the same inputs (teacher
forcing), so nothing accumulates. Measured 2e-7 to 3e-7 on 7 kernel paths (docs/development.md)."""

INT8_SHARE = 1 / 4
"""In int8, the largest RMS difference from pocket-tts's int8 as a share of int8's own noise:
pocket-tts's int8 against its fp32, computed the same way (teacher-forced) on the same host.
A reference, not a constant: where a layer's input differs by one fp32 rounding, dynamic int8
moves its quantised value by a step now and then, and how often depends on the CPU's kernels
(on an AMD Zen 4, 5.5e-4; here 1.9e-7 with AVX-512 and 6.5e-4 with torch limited to AVX2).
Two int8 runs cannot differ by more than twice the noise (each is within it of fp32); measured
up to 0.16 of it over 7 kernel paths. An exportable that skipped int8 would be about 1 of it."""


@pytest.fixture(scope="module")
def slim(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny_model(tmp_path_factory.mktemp("slim"), size="slim", eos=False)


def reference_and_exportable(slim: TinyModel, int8: bool) -> tuple[TTSModel, TTSModel]:
    """pocket-tts's model as the server loads it (int8: the LM's and Mimi decoder's linear
    layers), and a copy given the exportable attention."""
    reference = slim.load(quantize=int8)
    if int8:
        assert quantize_mimi_decoder(reference)
    exportable = copy.deepcopy(reference)
    assert use_exportable_attention(exportable) == 3  # the LM's 2 layers, Mimi decoder's 1
    return reference, exportable


def lm_frames(model: TTSModel, latents: torch.Tensor | None = None) -> torch.Tensor:
    """Prompt `LONG_TEXT`, then `FRAMES` flow-LM steps through pocket-tts's own calls; each step's
    latent, and the one fed back is from `latents` if given."""
    state = init_states(model.flow_lm, 1, 1000)  # pocket-tts's cache, expanded as it does
    out = []
    with torch.no_grad():
        tokens = model.flow_lm.conditioner.prepare(LONG_TEXT)
        model._run_flow_lm_and_increment_step(state, text_tokens=tokens)
        latent = torch.full((1, 1, model.flow_lm.ldim), float("nan"))
        for frame in range(FRAMES):
            latent, _ = model._run_flow_lm_and_increment_step(state, backbone_input_latents=latent)
            out.append(latent)
            if latents is not None:
                latent = latents[:, frame : frame + 1]
    return torch.cat(out, 1)


def mimi_attention_frames(model: TTSModel, frames: int = FRAMES, per_call: int = 1) -> torch.Tensor:
    """Every attention output of Mimi's decoder transformer for `frames` frames of seeded random
    input (16 steps each, `per_call` frames per call), with its streaming state. The attention
    itself, not the transformer's output: its layer scale (0.01) would hide a wrong key."""
    state = init_states(model.mimi, 1, frames * 16)
    transformer = model.mimi.decoder_transformer
    outputs: list[torch.Tensor] = []
    hooks = [
        layer.self_attn.register_forward_hook(lambda _m, _i, output: outputs.append(output))
        for layer in transformer.transformer.layers
    ]
    generator = torch.Generator().manual_seed(5)
    try:
        with torch.no_grad():
            for _ in range(0, frames, per_call):
                steps = torch.randn(
                    1, transformer.input_dimension, 16 * per_call, generator=generator
                )
                transformer(steps, state)
                increment_steps(model.mimi, state, 16 * per_call)
    finally:
        for hook in hooks:
            hook.remove()
    return torch.cat(outputs, 1)


def decode(model: TTSModel, latents: torch.Tensor, per_call: int) -> torch.Tensor:
    """Mimi's audio for `latents`, `per_call` frames in each call, as pocket-tts decodes."""
    state = init_states(model.mimi, 1, latents.shape[1] * 16)
    scale, shift = model.flow_lm.emb_std, model.flow_lm.emb_mean
    audio = []
    with torch.no_grad():
        for start in range(0, latents.shape[1], per_call):
            queued = latents[:, start : start + per_call]
            audio.append(model.mimi.decode_from_latent(queued * scale + shift, state))
            increment_steps(model.mimi, state, 16 * queued.shape[1])
    return torch.cat(audio, -1).flatten()


def difference(got: torch.Tensor, expected: torch.Tensor) -> float:
    return relative_difference(got.numpy(), expected.numpy())


@pytest.mark.parametrize("int8", [False, True], ids=["fp32", "int8"])
def test_the_exportable_cache_equals_pocket_tts_over_300_frames(
    slim: TinyModel, int8: bool
) -> None:
    """fp32: within `FP32_TOLERANCE` (derived). int8: within `INT8_SHARE` of int8's own noise
    measured on this host (a reference computed the same way)."""
    reference, exportable = reference_and_exportable(slim, int8)
    latents = lm_frames(reference)
    expected = mimi_attention_frames(reference)
    lm_bound = mimi_bound = FP32_TOLERANCE
    if int8:
        fp32, _ = reference_and_exportable(slim, False)
        lm_bound = INT8_SHARE * difference(lm_frames(fp32, latents), latents)
        mimi_bound = INT8_SHARE * difference(mimi_attention_frames(fp32), expected)
    assert difference(lm_frames(exportable, latents), latents) < lm_bound
    assert difference(mimi_attention_frames(exportable), expected) < mimi_bound
    # Mimi's circular cache went round many times (96 here).
    attention = exportable.mimi.decoder_transformer.transformer.layers[0].self_attn
    assert isinstance(attention, ExportableAttention)
    assert attention.slots == attention.context
    assert 10 * attention.slots < FRAMES * 16


@pytest.mark.parametrize("per_call", [1, 8])
def test_mimi_audio_equals_pocket_tts(slim: TinyModel, per_call: int) -> None:
    """pocket-tts decodes every queued frame in one call: 8 frames (128 steps) is more than the
    circular cache holds (the context, 50 steps here), and the call keeps its last steps."""
    reference, exportable = reference_and_exportable(slim, False)
    expected = mimi_attention_frames(reference, 48, per_call)
    assert difference(mimi_attention_frames(exportable, 48, per_call), expected) < FP32_TOLERANCE
    latents = torch.randn(1, 40, reference.flow_lm.ldim, generator=torch.Generator().manual_seed(2))
    expected = decode(reference, latents, per_call)
    assert difference(decode(exportable, latents, per_call), expected) < FP32_TOLERANCE


def test_a_full_fixed_cache_says_so(slim: TinyModel) -> None:
    _, exportable = reference_and_exportable(slim, False)
    state = init_states(exportable.flow_lm, 1, 0)
    attention = exportable.flow_lm.transformer.layers[0].self_attn
    assert state["transformer.layers.0.self_attn"]["k"].shape[2] == attention.slots
    for module in state.values():
        module["offset"] += attention.slots - 1
    latent = torch.zeros(1, 2, exportable.flow_lm.ldim)
    with torch.no_grad(), pytest.raises(CacheFull, match="holds 1000 steps, step 1000 asked"):
        exportable._run_flow_lm_and_increment_step(state, backbone_input_latents=latent)
