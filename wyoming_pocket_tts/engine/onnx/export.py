"""The flow LM's decode step and Mimi's as ONNX graphs, exported from the weights.

Both are exported with `torch.onnx.export` from a copy of the model whose attention is
`onnx.attention.ExportableAttention` (K and V written at a tensor offset), without the server's
`equivalents` (their kept time embeddings and `fold` are eager-only tricks). Every streaming
state is a graph input and the matching output:
- the KV caches are inputs, read where they lie (IO binding, `onnx.runners`); the graph returns
  only this frame's K and V rows, which the host writes at the offset. (A graph that scatters
  into its cache input copies the whole cache, per layer and frame: ONNX Runtime does not write
  into a graph input; measured at `english` shapes, 67 of 210 ms per LM step.)
- Mimi's small convolution states are inputs, and their next values outputs.
The flow LM's graph takes any number of steps, so a prompt (a sentence's text, a voice's audio)
runs in it as a frame does, and caches of any number of slots: a request's are sized to what it
needs (`onnx.voice_arrays.request_slots`), and attention reads only those, not `LM_SLOTS`;
its noise comes from the host (pocket-tts's sampling). int8 is ONNX
Runtime's dynamic quantisation of the transformers' linear layers and the flow head's
modulations (`onnx.quantize.quantized_graph`), measured by `onnx.int8_gate`. Beside them,
for the torch-free loop (`onnx.loop`): a frame's latent to the LM's input (`FrameIn`, a third
graph), the text table as an array, the tokenizer's file and the loop's settings (`speech.json`).
Imports torch and pocket-tts; onnx and onnxruntime only where they are used.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from pocket_tts.default_parameters import MAX_TOKEN_PER_CHUNK
from pocket_tts.models.flow_lm import drifting_decode, lsd_decode, ot_decode, pointwise_decode
from pocket_tts.modules.stateful_module import StatefulModule, init_states

from ...host import release_freed_memory
from .attention import LM_SLOTS, MAX_SLOTS, ExportableAttention
from .graphs import FRAME, LM, MIMI, SPEECH, TEXT_EMBEDDINGS, Graphs

if TYPE_CHECKING:
    from pocket_tts import TTSModel
    from pocket_tts.modules.stateful_module import ModelState

OPSET = 18
_DECODERS: dict[str, Callable[..., torch.Tensor]] = {
    "lsd": lsd_decode,
    "flow_matching": ot_decode,
    "drifting": drifting_decode,
    "pointwise": pointwise_decode,
}


def _stateful(root: torch.nn.Module, under: tuple[str, ...]) -> list[tuple[str, StatefulModule]]:
    return [
        (name, module)
        for name, module in root.named_modules()
        if isinstance(module, StatefulModule) and name.startswith(under)
    ]


def _new_rows(state: ModelState, names: list[str]) -> list[torch.Tensor]:
    """The K and V rows each attention left for the runner to write (`ExportableAttention`)."""
    return [state[name][key] for name in names for key in ("k_new", "v_new")]


class LMStep(torch.nn.Module):
    """The flow LM over some steps of input, given as embeddings (a frame's latent through
    `input_linear`, or a prompt's text or voice audio): the backbone, then on its last step the
    EOS logit and the flow head on the host's noise, as pocket-tts's `forward` does. Inputs:
    embeddings (1, steps, dim; any number of steps), noise (1, ldim), offset (1,), then the K
    and V of each layer (read only); outputs: the next latent, the EOS logit, then the steps'
    K and V rows of each layer."""

    def __init__(self, model: TTSModel) -> None:
        super().__init__()
        self.flow_lm = model.flow_lm
        self.steps = model.sampler_decode_steps
        self.names = [name for name, _ in _stateful(model.flow_lm, ("transformer",))]

    def forward(self, embeddings: torch.Tensor, noise: torch.Tensor, offset: torch.Tensor,
                caches: list[torch.Tensor]) -> tuple[torch.Tensor, ...]:  # fmt: skip
        """(`caches` is a list, not `*caches`: the exporter's dynamic shapes refuse varargs.)"""
        flow_lm = self.flow_lm
        state = {
            name: {"offset": offset, "k": caches[2 * i], "v": caches[2 * i + 1]}
            for i, name in enumerate(self.names)
        }
        out = flow_lm.out_norm(flow_lm.transformer(embeddings, state))
        if flow_lm.z_proj is not None:
            out = flow_lm.z_proj(out)
        out = out[:, -1].to(torch.float32)
        eos = flow_lm.out_eos(out)
        decode = _DECODERS[flow_lm.flow_type]
        next_latent = decode(partial(flow_lm.flow_net, out), noise, self.steps)
        return (next_latent, eos, *_new_rows(state, self.names))


class MimiStep(torch.nn.Module):
    """One frame of Mimi's decoder, from the latent `decode_from_latent` is given (already
    scaled by pocket-tts). Inputs: latent (1, 1, ldim), offset (1,), the convolution states
    (`conv_names`), then K and V of each attention layer (read only); outputs: the audio
    (1, 1, samples), the new convolution states, then this frame's K and V rows of each
    attention layer."""

    def __init__(self, model: TTSModel) -> None:
        super().__init__()
        self.mimi = model.mimi
        modules = _stateful(model.mimi, ("upsample", "decoder_transformer", "decoder"))
        self.attention = [n for n, m in modules if isinstance(m, ExportableAttention)]
        state = init_states(model.mimi, 1, 0)
        convs = [(n, key) for n, _ in modules if n not in self.attention for key in state[n]]
        self.conv_names = [(n, key) for n, key in convs if state[n][key].numel() and key != "first"]
        self.constant = {(n, key): state[n][key] for n, key in convs}
        """Empty states (kernel-1 convolutions) and the unused `first` flags: not inputs."""

    def forward(self, latent: torch.Tensor, offset: torch.Tensor,
                *tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:  # fmt: skip
        state: dict[str, dict[str, torch.Tensor]] = {}
        for (name, key), tensor in self.constant.items():
            state.setdefault(name, {})[key] = tensor.clone()
        convs, caches = tensors[: len(self.conv_names)], tensors[len(self.conv_names) :]
        for (name, key), tensor in zip(self.conv_names, convs, strict=True):
            state[name][key] = tensor
        for i, name in enumerate(self.attention):
            state[name] = {"offset": offset, "k": caches[2 * i], "v": caches[2 * i + 1]}
        audio = self.mimi.decode_from_latent(latent, state)
        conv_out = [state[name][key] for name, key in self.conv_names]
        return (audio, *conv_out, *_new_rows(state, self.attention))


def export(model: TTSModel, folder: Path) -> Graphs:
    """Export `model` (its attention already `ExportableAttention`, no `equivalents`) to
    `folder` in fp32, one stage at a time, and empty it on the way: the frame's graph and the
    text table, Mimi's step (then `model.mimi` is dropped), the flow LM's step (then
    `model.flow_lm`), each freed before the next (`host.release_freed_memory`). Each graph's
    weights go to a file beside it (`<graph>.data`), written from the tensors: a graph saved
    whole is first built as one protobuf and serialised, twice its size in memory (1.9 GiB
    for the LM at `english` shapes). `onnx.quantize` makes the int8 graphs from the files."""
    folder.mkdir(parents=True, exist_ok=True)
    ldim, dim = model.flow_lm.ldim, model.flow_lm.dim
    offset = torch.full((1,), 3, dtype=torch.long)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _export(FrameIn(model).eval(), (torch.zeros(1, 1, ldim),), folder / FRAME,
                ["latent"], ["embeddings"])  # fmt: skip
        _write_speech(model, folder)
        mimi_step = MimiStep(model).eval()
        conv_names, mimi_attention = mimi_step.conv_names, mimi_step.attention
        mimi_state = init_states(model.mimi, 1, 0)
        convs = [mimi_state[n][key] for n, key in conv_names]
        conv_inputs = [f"s{i}" for i in range(len(convs))]
        mimi_caches = [mimi_state[n][key] for n in mimi_attention for key in ("k", "v")]
        mimi_cache_names = [f"c{i}" for i in range(len(mimi_caches))]
        _export(mimi_step, (torch.zeros(1, 1, ldim), offset, *convs, *mimi_caches),
                folder / MIMI, ["latent", "offset", *conv_inputs, *mimi_cache_names],
                ["audio", *[f"{n}_out" for n in conv_inputs],
                 *[f"{n}_new" for n in mimi_cache_names]])  # fmt: skip
        del mimi_step, mimi_state, convs, mimi_caches, model.mimi
        release_freed_memory()
        lm_step = LMStep(model).eval()
        lm_names = lm_step.names
        lm_state = init_states(model.flow_lm, 1, 0)
        lm_caches = [lm_state[n][key] for n in lm_names for key in ("k", "v")]
        cache_names = [f"c{i}" for i in range(len(lm_caches))]
        steps = torch.export.Dim("steps", min=1, max=LM_SLOTS)
        slots = torch.export.Dim("slots", min=2, max=MAX_SLOTS)
        _export(lm_step, (torch.zeros(1, 8, dim), torch.zeros(1, ldim), offset, lm_caches),
                folder / LM, ["embeddings", "noise", "offset", *cache_names],
                ["next_latent", "eos", *[f"{n}_new" for n in cache_names]],
                dynamic_shapes=({1: steps}, None, None, [{2: slots}] * len(lm_caches)))  # fmt: skip
        del lm_step, lm_state, lm_caches, model.flow_lm
        release_freed_memory()
    graphs = Graphs(folder, lm_names, conv_names, mimi_attention)
    graphs.write()
    return graphs


class FrameIn(torch.nn.Module):
    """A frame's latent (1, 1, ldim; NaN before the first frame: `bos_emb`) as the flow LM's
    input embedding (1, 1, dim), as pocket-tts's `forward` makes it."""

    def __init__(self, model: TTSModel) -> None:
        super().__init__()
        self.flow_lm = model.flow_lm

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        latent = torch.where(torch.isnan(latent), self.flow_lm.bos_emb, latent)
        return self.flow_lm.input_linear(latent)


def _write_speech(model: TTSModel, folder: Path) -> None:
    """Beside the graphs, what pocket-tts's generation loop takes from the model: the text
    table (`LUTConditioner` on every token id), its tokenizer's file, and the settings and
    constants of `generate_audio_stream` (`onnx.loop_settings` reads them)."""
    conditioner = model.flow_lm.conditioner
    with torch.no_grad():
        ids = torch.arange(conditioner.embed.num_embeddings)[None]
        np.save(folder / TEXT_EMBEDDINGS, conditioner(ids)[0].to(torch.float32).numpy())
    kind, payload = conditioner.tokenizer.serialize()
    tokenizer = "tokenizer.json" if kind == "tokenizers" else "tokenizer.model"
    (folder / tokenizer).write_bytes(payload)
    flow_lm, mimi = model.flow_lm, model.mimi
    speech = {
        "sample_rate": model.sample_rate,
        "frame_rate": model.config.mimi.frame_rate,
        "mimi_steps_per_latent": int(mimi.encoder_frame_rate / mimi.frame_rate),
        "temperature": model.temp,
        "noise_clamp": model.noise_clamp,
        "eos_threshold": model.eos_threshold,
        "frames_after_eos": model.model_recommended_frames_after_eos,
        "min_frames_before_eos": model._MIN_FRAMES_BEFORE_EOS,
        "tokens_per_second": model._TOKENS_PER_SECOND_ESTIMATE,
        "padding_seconds": model._GEN_SECONDS_PADDING,
        "max_tokens": MAX_TOKEN_PER_CHUNK,
        "pad_with_spaces_for_short_inputs": model.pad_with_spaces_for_short_inputs,
        "remove_semicolons": model.remove_semicolons,
        "append_terminal_punctuation": model.append_terminal_punctuation,
        "capitalize_first_letter": model.capitalize_first_letter,
        "replace_characters": model.replace_characters,
        "tokenizer": tokenizer,
        "voice_cloning": bool(getattr(model, "has_voice_cloning", True)),
        "emb_std": flow_lm.emb_std.to(torch.float32).tolist(),
        "emb_mean": flow_lm.emb_mean.to(torch.float32).tolist(),
    }
    (folder / SPEECH).write_text(json.dumps(speech), encoding="utf-8")


def _export(module: torch.nn.Module, inputs: tuple[Any, ...], path: Path,
            input_names: list[str], output_names: list[str],
            dynamic_shapes: tuple[Any, ...] | None = None) -> None:  # fmt: skip
    program = torch.onnx.export(
        module,
        inputs,
        dynamo=True,
        dynamic_shapes=dynamic_shapes,
        opset_version=OPSET,
        input_names=input_names,
        output_names=output_names,
        optimize=True,
        verbose=False,
    )
    if program is None:
        raise RuntimeError(f"torch.onnx.export gave no program for {path.name}")
    program.save(str(path), external_data=True)
    del program
    release_freed_memory()
