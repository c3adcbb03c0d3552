"""One frame as an ONNX graph: the flow LM's decode step and Mimi's, run in ONNX Runtime.

Both are exported with `torch.onnx.export` from a copy of the model whose attention is
`engine.exportable.ExportableAttention` (K and V written at a tensor offset), without the
server's `equivalents` (their kept time embeddings and `fold` are eager-only tricks). Every
streaming state is a graph input and the matching output:
- the KV caches are inputs bound (IO binding) to torch tensors, read where they lie; the graph
  returns only this frame's K and V rows, which the host writes at the offset. (A graph that
  scatters into its cache input copies the whole cache, per layer and frame: ONNX Runtime does
  not write into a graph input; measured at `english` shapes, 67 of 210 ms per LM step.)
- Mimi's small convolution states go back and forth between two buffers (ping-pong), as an
  output must not overwrite an input the graph still reads.
The flow LM's noise comes from the host (pocket-tts's sampling), and its text prompt runs in
torch on the same cache memory: only the per-frame steps are graphs. int8 is ONNX Runtime's
dynamic quantisation of every MatMul (`quantize_dynamic`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from pocket_tts.models.flow_lm import drifting_decode, lsd_decode, ot_decode, pointwise_decode
from pocket_tts.modules.stateful_module import StatefulModule, init_states

from wyoming_pocket_tts.engine.exportable import ExportableAttention

if TYPE_CHECKING:
    from pocket_tts import TTSModel
    from pocket_tts.modules.stateful_module import ModelState

INSTALL = ".venv/bin/pip install -e '.[onnx-spike]' (onnxruntime, onnx, onnxscript)"
"""How to get what the spike needs (not a dependency of the server)."""
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
    """One frame of the flow LM: the backbone on the last latent, EOS logit, the flow head on
    the host's noise. Inputs: latent (1, 1, ldim; NaN = BOS), noise (1, ldim), offset (1,),
    then K and V of each layer (read only); outputs: the next latent, the EOS logit, then this
    frame's K and V rows of each layer."""

    def __init__(self, model: TTSModel) -> None:
        super().__init__()
        self.flow_lm = model.flow_lm
        self.steps = model.sampler_decode_steps
        self.names = [name for name, _ in _stateful(model.flow_lm, ("transformer",))]

    def forward(self, latent: torch.Tensor, noise: torch.Tensor, offset: torch.Tensor,
                *caches: torch.Tensor) -> tuple[torch.Tensor, ...]:  # fmt: skip
        flow_lm = self.flow_lm
        state = {
            name: {"offset": offset, "k": caches[2 * i], "v": caches[2 * i + 1]}
            for i, name in enumerate(self.names)
        }
        sequence = torch.where(torch.isnan(latent), flow_lm.bos_emb, latent)
        out = flow_lm.transformer(flow_lm.input_linear(sequence), state)
        out = flow_lm.out_norm(out)
        if flow_lm.z_proj is not None:
            out = flow_lm.z_proj(out)
        out = out[:, -1].to(torch.float32)
        eos = flow_lm.out_eos(out)
        decode = _DECODERS[flow_lm.flow_type]
        next_latent = decode(partial(flow_lm.flow_net, out), noise, self.steps)
        return (next_latent, eos, *_new_rows(state, self.names))


class MimiStep(torch.nn.Module):
    """One frame of Mimi's decoder: the latent scaled as pocket-tts does, then decoded.
    Inputs: latent (1, 1, ldim), offset (1,), the convolution states (`conv_names`), then K
    and V of each attention layer (read only); outputs: the audio (1, 1, samples), the new
    convolution states, then this frame's K and V rows of each attention layer."""

    def __init__(self, model: TTSModel) -> None:
        super().__init__()
        self.mimi = model.mimi
        self.std, self.mean = model.flow_lm.emb_std, model.flow_lm.emb_mean
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
        audio = self.mimi.decode_from_latent(latent * self.std + self.mean, state)
        conv_out = [state[name][key] for name, key in self.conv_names]
        return (audio, *conv_out, *_new_rows(state, self.attention))


@dataclass
class Graphs:
    """The exported files of one model."""

    lm: Path
    mimi: Path
    lm_names: list[str]
    """Flow LM attention modules, in input order (K and V each)."""
    conv_names: list[tuple[str, str]]
    """Mimi's convolution state tensors, in input order."""
    mimi_attention: list[str]
    """Mimi's attention modules, in input order (K and V each)."""


def export(model: TTSModel, folder: Path) -> Graphs:
    """Export both steps of `model` (its attention already `ExportableAttention`) to `folder`."""
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
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _export(lm_step, (torch.randn(1, 1, ldim), torch.randn(1, ldim), offset, *lm_caches),
                folder / "lm.onnx", ["latent", "noise", "offset", *lm_names],
                ["next_latent", "eos", *[f"{n}_new" for n in lm_names]])  # fmt: skip
        _export(mimi_step, (torch.randn(1, 1, ldim), offset, *convs, *mimi_caches),
                folder / "mimi.onnx", ["latent", "offset", *conv_names, *mimi_cache_names],
                ["audio", *[f"{n}_out" for n in conv_names],
                 *[f"{n}_new" for n in mimi_cache_names]])  # fmt: skip
    return Graphs(
        folder / "lm.onnx", folder / "mimi.onnx", lm_step.names, mimi_step.conv_names,
        mimi_step.attention,
    )  # fmt: skip


def _export(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...], path: Path,
            input_names: list[str], output_names: list[str]) -> None:  # fmt: skip
    program = torch.onnx.export(
        module,
        inputs,
        dynamo=True,
        opset_version=OPSET,
        input_names=input_names,
        output_names=output_names,
        optimize=True,
        verbose=False,
    )
    assert program is not None
    program.save(str(path), external_data=False)


def quantized(path: Path) -> Path:
    """ONNX Runtime's dynamic int8 of the layers the server's int8 quantises (the linear layers
    of the LM's and Mimi's decoder transformers), saved beside `path`. Quantising every MatMul
    with a constant weight (the flow head and input projections too) moved the LM's next latent
    by 0.29 of its RMS, against 0.008 for this choice and for torch's int8 (`lsd` shapes)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(path), load_external_data=False).graph
    chosen = [
        node.name
        for node in graph.node
        if node.op_type == "MatMul"
        and any(
            prop.key == "namespace" and "transformer." in prop.value and "Linear" in prop.value
            for prop in node.metadata_props
        )
    ]
    target = path.with_name(path.stem + ".int8.onnx")
    quantize_dynamic(
        path, target, nodes_to_quantize=chosen, weight_type=QuantType.QInt8
    )  # fmt: skip
    return target


def session(path: Path, threads: int) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _bind(binding: Any, name: str, tensor: torch.Tensor, output: bool = False) -> None:
    kind = {torch.float32: np.float32, torch.int64: np.int64}[tensor.dtype]
    bind = binding.bind_output if output else binding.bind_input
    bind(name, "cpu", 0, kind, list(tensor.shape), tensor.data_ptr())


class Caches:
    """KV caches bound to a graph as inputs (read in place, never copied), and this frame's
    rows the graph returns, written by the host at the offset (`ExportableAttention`'s rule)."""

    def __init__(self, caches: list[torch.Tensor], steps: int) -> None:
        self.caches = caches
        self.rows = [torch.zeros(*c.shape[:2], steps, c.shape[3]) for c in caches]

    def bind(self, binding: Any) -> None:
        for i, (cache, rows) in enumerate(zip(self.caches, self.rows, strict=True)):
            _bind(binding, f"c{i}", cache)
            _bind(binding, f"c{i}_new", rows, output=True)

    def write(self, offset: int) -> None:
        slots = self.caches[0].shape[2]
        where = torch.remainder(torch.arange(offset, offset + self.rows[0].shape[2]), slots)
        for cache, rows in zip(self.caches, self.rows, strict=True):
            cache.index_copy_(2, where, rows)


class OrtLM:
    """The flow LM's step in ONNX Runtime over caches that are torch tensors: the prompt runs in
    torch on the same memory (`state`, `ExportableAttention`'s layout), each frame in the graph."""

    def __init__(self, path: Path, names: list[str], state: ModelState, threads: int) -> None:
        self.session = session(path, threads)
        self.binding = self.session.io_binding()
        self.state, self.names = state, names
        ldim = int(self.session.get_inputs()[0].shape[-1])
        self.latent, self.noise = torch.zeros(1, 1, ldim), torch.zeros(1, ldim)
        self.next_latent, self.eos = torch.zeros(1, ldim), torch.zeros(1, 1)
        self.offset = state[names[0]]["offset"]
        for name, tensor in (
            ("latent", self.latent),
            ("noise", self.noise),
            ("offset", self.offset),
        ):
            _bind(self.binding, name, tensor)
        _bind(self.binding, "next_latent", self.next_latent, output=True)
        _bind(self.binding, "eos", self.eos, output=True)
        caches = [state[name][key] for name in names for key in ("k", "v")]
        self.caches = Caches(caches, 1)
        self.caches.bind(self.binding)

    def step(self, latent: torch.Tensor, noise: torch.Tensor) -> tuple[torch.Tensor, float]:
        """The next latent (1, 1, ldim) and the EOS logit."""
        self.latent.copy_(latent.view_as(self.latent))
        self.noise.copy_(noise.view_as(self.noise))
        self.session.run_with_iobinding(self.binding)
        self.caches.write(int(self.offset))
        for name in self.names:
            self.state[name]["offset"] += 1  # pocket-tts's increment_steps, per module
        return self.next_latent.view(1, 1, -1).clone(), float(self.eos)


class OrtMimi:
    """Mimi's step in ONNX Runtime: KV caches read in place, convolution states ping-pong."""

    def __init__(self, path: Path, graphs: Graphs, model: TTSModel, threads: int) -> None:
        self.session = session(path, threads)
        state = init_states(model.mimi, 1, 0)
        self.convs = [state[n][key] for n, key in graphs.conv_names]
        self.spares = [tensor.clone() for tensor in self.convs]
        caches = [state[n][key] for n in graphs.mimi_attention for key in ("k", "v")]
        self.steps = int(model.mimi.encoder_frame_rate / model.mimi.frame_rate)
        self.offset = torch.zeros(1, dtype=torch.long)
        self.latent = torch.zeros(1, 1, int(self.session.get_inputs()[0].shape[-1]))
        self.audio = torch.zeros(1, 1, model.mimi.frame_size)
        self.caches = Caches(caches, self.steps)
        self.bindings = [self.session.io_binding() for _ in range(2)]
        for flip, binding in enumerate(self.bindings):
            _bind(binding, "latent", self.latent)
            _bind(binding, "offset", self.offset)
            _bind(binding, "audio", self.audio, output=True)
            for i, pair in enumerate(zip(self.convs, self.spares, strict=True)):
                source, target = pair if not flip else pair[::-1]
                _bind(binding, f"s{i}", source)
                _bind(binding, f"s{i}_out", target, output=True)
            self.caches.bind(binding)
        self.frame = 0

    def reset(self) -> None:
        for tensor in self.convs:
            tensor.zero_()
        self.offset.zero_()
        self.frame = 0

    def step(self, latent: torch.Tensor) -> torch.Tensor:
        """One frame's audio (a new tensor)."""
        self.latent.copy_(latent.view_as(self.latent))
        self.session.run_with_iobinding(self.bindings[self.frame % 2])
        self.caches.write(int(self.offset))
        self.frame += 1
        self.offset += self.steps
        return self.audio.view(-1).clone()
