"""Running one frame's graph (`onnx.export`) in ONNX Runtime on a pocket-tts model state.

The state is the request's own (`ExportableAttention`'s layout: K and V in fixed or circular
slots, an offset), so a request's caches stay where they are: each run binds them as inputs
(IO binding, read in place, never copied) and writes the frame's K and V rows the graph returns
at the offset, as `ExportableAttention` does in torch. Mimi's convolution states are copied
back from the graph's outputs (small). The offsets are pocket-tts's to advance (its
`increment_steps` after each call), as with its own modules.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from .attention import CacheFull
from .ort import session

if TYPE_CHECKING:
    from pocket_tts.modules.stateful_module import ModelState

    from .graphs import Graphs

_KINDS = {torch.float32: np.float32, torch.int64: np.int64}


def _bind(binding: Any, name: str, tensor: torch.Tensor, output: bool = False) -> None:
    if not tensor.is_contiguous():
        raise ValueError(f"{name}: a bound tensor must be contiguous")
    bind = binding.bind_output if output else binding.bind_input
    bind(name, "cpu", 0, _KINDS[tensor.dtype], list(tensor.shape), tensor.data_ptr())


class _Caches:
    """KV caches of a state bound as inputs, and buffers for the rows the graph returns."""

    def __init__(self, caches: list[torch.Tensor], steps: int) -> None:
        self.caches = caches
        self.rows = [torch.empty(*c.shape[:2], steps, c.shape[3]) for c in caches]

    def bind(self, binding: Any) -> None:
        for i, (cache, rows) in enumerate(zip(self.caches, self.rows, strict=True)):
            _bind(binding, f"c{i}", cache)
            _bind(binding, f"c{i}_new", rows, output=True)

    def write(self, offset: int, circular: bool) -> None:
        """The rows into their slots: `offset` on (modulo the slots for a circular cache)."""
        slots, steps = self.caches[0].shape[2], self.rows[0].shape[2]
        if not circular and offset + steps > slots:
            raise CacheFull(f"the attention cache holds {slots} steps, step {offset} asked")
        where = torch.remainder(torch.arange(offset, offset + steps), slots)
        for cache, rows in zip(self.caches, self.rows, strict=True):
            cache.index_copy_(2, where, rows)


class LMGraph:
    """The flow LM's graph: the next latent and EOS logit after some steps of a state."""

    def __init__(self, path: Path, names: list[str], threads: int) -> None:
        self.session = session(path, threads)
        self.names = names
        self.noise = torch.empty(1, int(self.session.get_inputs()[1].shape[-1]))

    def step(
        self, state: ModelState, embeddings: torch.Tensor, noise: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The next latent (1, ldim) and the EOS logit (1, 1) after `embeddings` (1, steps,
        dim: a frame's, or a prompt's), their K and V written into `state` at its offset (not
        advanced)."""
        binding = self.session.io_binding()
        embeddings = embeddings.contiguous()
        self.noise.copy_(noise.reshape(self.noise.shape))
        offset = state[self.names[0]]["offset"]
        next_latent, eos = torch.empty_like(self.noise), torch.empty(1, 1)
        for name, tensor in (("embeddings", embeddings), ("noise", self.noise), ("offset", offset)):
            _bind(binding, name, tensor)
        _bind(binding, "next_latent", next_latent, output=True)
        _bind(binding, "eos", eos, output=True)
        caches = [state[name][key] for name in self.names for key in ("k", "v")]
        rows = _Caches(caches, embeddings.shape[1])
        rows.bind(binding)
        self.session.run_with_iobinding(binding)
        rows.write(int(offset), circular=False)
        return next_latent, eos


class MimiGraph:
    """Mimi's per-frame graph: a frame's audio from a (scaled) latent and a Mimi state."""

    def __init__(self, path: Path, graphs: Graphs, steps: int, threads: int) -> None:
        self.session = session(path, threads)
        self.graphs = graphs
        self.steps = steps
        """Mimi steps per latent frame (its attention's offset moves this much per frame)."""
        self.latent = torch.empty(1, 1, int(self.session.get_inputs()[0].shape[-1]))
        self.offset = torch.zeros(1, dtype=torch.long)
        self.samples = [int(n) for n in self.session.get_outputs()[0].shape]
        """The shape of one frame's audio (1, 1, samples): static in the exported graph."""

    def decode(self, state: ModelState, latents: torch.Tensor) -> torch.Tensor:
        """The audio (1, 1, samples) of `latents` (1, frames, ldim), frame by frame; the state's
        convolution states and caches updated, its offsets not advanced."""
        graphs = self.graphs
        convs = [state[name][key] for name, key in graphs.conv_names]
        outs = [torch.empty_like(tensor) for tensor in convs]
        caches = [state[n][key] for n in graphs.mimi_attention for key in ("k", "v")]
        start = int(state[graphs.mimi_attention[0]]["offset"].view(-1)[0])
        audio = []
        for frame in range(latents.shape[1]):
            binding = self.session.io_binding()
            self.latent.copy_(latents[:, frame : frame + 1])
            self.offset.fill_(start + frame * self.steps)
            _bind(binding, "latent", self.latent)
            _bind(binding, "offset", self.offset)
            audio.append(torch.empty(self.samples))
            _bind(binding, "audio", audio[-1], output=True)
            for i, (tensor, out) in enumerate(zip(convs, outs, strict=True)):
                _bind(binding, f"s{i}", tensor)
                _bind(binding, f"s{i}_out", out, output=True)
            rows = _Caches(caches, self.steps)
            rows.bind(binding)
            self.session.run_with_iobinding(binding)
            rows.write(int(self.offset), circular=True)
            for tensor, out in zip(convs, outs, strict=True):
                tensor.copy_(out)
        return torch.cat(audio, -1)
