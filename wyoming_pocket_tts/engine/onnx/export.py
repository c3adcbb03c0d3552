"""The flow LM's decode step and Mimi's as ONNX graphs, exported from the weights.

Both are exported with `torch.onnx.export` from a copy of the model whose attention is
`onnx.attention.ExportableAttention` (K and V written at a tensor offset), without the server's
`equivalents` (their kept time embeddings and `fold` are eager-only tricks). Every streaming
state is a graph input and the matching output:
- the KV caches are inputs, read where they lie (IO binding, `onnx.sessions`); the graph returns
  only this frame's K and V rows, which the host writes at the offset. (A graph that scatters
  into its cache input copies the whole cache, per layer and frame: ONNX Runtime does not write
  into a graph input; measured at `english` shapes, 67 of 210 ms per LM step.)
- Mimi's small convolution states are inputs, and their next values outputs.
The flow LM's graph takes any number of steps, so a prompt (a sentence's text, a voice's audio)
runs in it as a frame does; its noise comes from the host (pocket-tts's sampling). int8 is ONNX
Runtime's dynamic quantisation of the transformers' linear layers (`quantized`). Imports torch
and pocket-tts; onnx and onnxruntime only where they are used.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from pocket_tts.models.flow_lm import drifting_decode, lsd_decode, ot_decode, pointwise_decode
from pocket_tts.modules.stateful_module import StatefulModule, init_states

from .attention import LM_SLOTS, ExportableAttention

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
_NAMES = "graphs.json"
"""Beside the graphs: which state each of their inputs is (`Graphs`, without the paths)."""


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


@dataclass(frozen=True)
class Graphs:
    """The exported files of one model, and which state each input is."""

    folder: Path
    lm_names: list[str]
    """Flow LM attention modules, in input order (K and V each)."""
    conv_names: list[tuple[str, str]]
    """Mimi's convolution state tensors, in input order."""
    mimi_attention: list[str]
    """Mimi's attention modules, in input order (K and V each)."""

    def lm(self, int8: bool) -> Path:
        return self.folder / ("lm.int8.onnx" if int8 else "lm.onnx")

    def mimi(self, int8: bool) -> Path:
        return self.folder / ("mimi.int8.onnx" if int8 else "mimi.onnx")

    def files(self, int8: bool) -> tuple[Path, Path]:
        """The flow LM's graph and Mimi's, of one precision."""
        return self.lm(int8), self.mimi(int8)

    @property
    def has_int8(self) -> bool:
        return all(path.is_file() for path in self.files(True))

    @classmethod
    def read(cls, folder: Path) -> Graphs:
        """The graphs `export` wrote to `folder` (KeyError, OSError or ValueError if not)."""
        names = json.loads((folder / _NAMES).read_text(encoding="utf-8"))
        return cls(
            folder,
            [str(name) for name in names["lm_names"]],
            [(str(name), str(key)) for name, key in names["conv_names"]],
            [str(name) for name in names["mimi_attention"]],
        )


def export(model: TTSModel, folder: Path) -> Graphs:
    """Export both steps of `model` (its attention already `ExportableAttention`, no
    `equivalents`) to `folder`, in fp32 (`with_int8` adds the int8 ones)."""
    folder.mkdir(parents=True, exist_ok=True)
    lm_step, mimi_step = LMStep(model).eval(), MimiStep(model).eval()
    ldim = model.flow_lm.ldim
    offset = torch.full((1,), 3, dtype=torch.long)
    lm_state = init_states(model.flow_lm, 1, 0)
    lm_caches = [lm_state[n][key] for n in lm_step.names for key in ("k", "v")]
    lm_names = [f"c{i}" for i in range(len(lm_caches))]
    mimi_state = init_states(model.mimi, 1, 0)
    convs = [mimi_state[n][key] for n, key in mimi_step.conv_names]
    conv_names = [f"s{i}" for i in range(len(convs))]
    mimi_caches = [mimi_state[n][key] for n in mimi_step.attention for key in ("k", "v")]
    mimi_cache_names = [f"c{i}" for i in range(len(mimi_caches))]
    graphs = Graphs(folder, lm_step.names, mimi_step.conv_names, mimi_step.attention)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        steps = torch.export.Dim("steps", min=1, max=LM_SLOTS)
        embeddings = torch.zeros(1, 8, model.flow_lm.dim)
        _export(lm_step, (embeddings, torch.zeros(1, ldim), offset, lm_caches),
                graphs.lm(False), ["embeddings", "noise", "offset", *lm_names],
                ["next_latent", "eos", *[f"{n}_new" for n in lm_names]],
                dynamic_shapes=({1: steps}, None, None, [None] * len(lm_caches)))  # fmt: skip
        _export(mimi_step, (torch.zeros(1, 1, ldim), offset, *convs, *mimi_caches),
                graphs.mimi(False), ["latent", "offset", *conv_names, *mimi_cache_names],
                ["audio", *[f"{n}_out" for n in conv_names],
                 *[f"{n}_new" for n in mimi_cache_names]])  # fmt: skip
    names = asdict(graphs)
    del names["folder"]
    (folder / _NAMES).write_text(json.dumps(names), encoding="utf-8")
    return graphs


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
    program.save(str(path), external_data=False)


def with_int8(graphs: Graphs) -> None:
    """Write the int8 graphs beside the fp32 ones (`model.int8.quantized_graph`)."""
    from ..model.int8 import quantized_graph

    for fp32, int8 in zip(graphs.files(False), graphs.files(True), strict=True):
        quantized_graph(fp32, int8)
