"""The exported graphs (`onnx.export`) run on numpy arrays in ONNX Runtime, without torch.

A request's caches stay where they are: each run binds them as inputs (IO binding, read in
place) and writes the K and V rows the graph returns at the offset, as `ExportableAttention`
(`onnx.attention`) writes them in torch. Mimi's small convolution states are copied back from
the graph's outputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .ort import session
from .voice_arrays import CacheFull


def _bind(binding: Any, name: str, array: np.ndarray, output: bool = False) -> None:
    if not array.flags.c_contiguous:
        raise ValueError(f"{name}: a bound array must be contiguous")
    bind = binding.bind_output if output else binding.bind_input
    bind(name, "cpu", 0, array.dtype.type, list(array.shape), array.ctypes.data)


def _rows(caches: list[np.ndarray], steps: int) -> list[np.ndarray]:
    """Buffers for the K and V rows a graph returns for `steps` steps."""
    return [np.empty((*c.shape[:2], steps, c.shape[3]), np.float32) for c in caches]


def _bind_caches(binding: Any, caches: list[np.ndarray], rows: list[np.ndarray]) -> None:
    for i, (cache, new) in enumerate(zip(caches, rows, strict=True)):
        _bind(binding, f"c{i}", cache)
        _bind(binding, f"c{i}_new", new, output=True)


class FrameRunner:
    """The frame graph: a latent (1, 1, ldim; NaN at the start) as the LM's input embedding."""

    def __init__(self, path: Path) -> None:
        self.session = session(path, 1)

    def embed(self, latent: np.ndarray) -> np.ndarray:
        """The embedding (1, 1, dim) of `latent`."""
        return np.asarray(self.session.run(None, {"latent": latent})[0], np.float32)


class LMRunner:
    """The flow LM's graph: the next latent and EOS logit after some steps, on fixed caches."""

    def __init__(self, path: Path, threads: int) -> None:
        self.session = session(path, threads)
        inputs = self.session.get_inputs()
        self.ldim = int(inputs[1].shape[-1])
        self.cache_shape = tuple(int(n) for n in inputs[3].shape[1:])
        """(heads, slots, dim per head) of each K and V cache: static in the exported graph."""
        self.slots = self.cache_shape[1]
        """Steps the caches hold (`attention.LM_SLOTS`)."""

    def run(
        self, caches: list[np.ndarray], offset: int, embeddings: np.ndarray, noise: np.ndarray
    ) -> tuple[np.ndarray, np.float32]:
        """The next latent (1, 1, ldim) and the EOS logit after `embeddings` (1, steps, dim),
        their K and V written into `caches` from `offset` on (CacheFull past the end)."""
        steps = embeddings.shape[1]
        if offset + steps > self.slots:
            raise CacheFull(f"the attention cache holds {self.slots} steps, step {offset} asked")
        binding = self.session.io_binding()
        latent, eos = np.empty((1, self.ldim), np.float32), np.empty((1, 1), np.float32)
        at = np.full(1, offset, np.int64)
        embeddings = np.ascontiguousarray(embeddings, np.float32)
        noise = np.ascontiguousarray(noise, np.float32).reshape(1, self.ldim)
        for name, array in (("embeddings", embeddings), ("noise", noise), ("offset", at)):
            _bind(binding, name, array)
        _bind(binding, "next_latent", latent, output=True)
        _bind(binding, "eos", eos, output=True)
        rows = _rows(caches, steps)
        _bind_caches(binding, caches, rows)
        self.session.run_with_iobinding(binding)
        for cache, new in zip(caches, rows, strict=True):
            cache[:, :, offset : offset + steps] = new
        return latent.reshape(1, 1, self.ldim), eos[0, 0]


@dataclass
class MimiState:
    """One request's Mimi decoder state: convolution states, circular caches, an offset."""

    convs: list[np.ndarray]
    caches: list[np.ndarray]
    offset: int = 0
    outs: list[np.ndarray] = field(default_factory=list)
    """Buffers for the convolution states' next values."""


class MimiRunner:
    """Mimi's per-frame graph: a frame's audio from a scaled latent and a Mimi state."""

    def __init__(self, path: Path, steps: int, threads: int) -> None:
        self.session = session(path, threads)
        self.steps = steps
        """Mimi steps per latent frame (its attention's offset moves this much per frame)."""
        inputs = self.session.get_inputs()
        self._convs = [tuple(int(n) for n in i.shape) for i in inputs if i.name.startswith("s")]
        self._caches = [tuple(int(n) for n in i.shape) for i in inputs if i.name.startswith("c")]
        self.samples = [int(n) for n in self.session.get_outputs()[0].shape]
        """The shape of one frame's audio (1, 1, samples): static in the exported graph."""

    def new_state(self) -> MimiState:
        """A fresh state: zeros, as pocket-tts's `init_states` makes Mimi's decoder's."""
        convs = [np.zeros(shape, np.float32) for shape in self._convs]
        caches = [np.zeros(shape, np.float32) for shape in self._caches]
        return MimiState(convs, caches, 0, [np.empty_like(c) for c in convs])

    def decode(self, state: MimiState, latent: np.ndarray) -> np.ndarray:
        """The audio (samples,) of one frame's scaled `latent` (1, 1, ldim); `state` advanced."""
        binding = self.session.io_binding()
        audio = np.empty(self.samples, np.float32)
        latent = np.ascontiguousarray(latent, np.float32)  # held until the run: bound by address
        at = np.full(1, state.offset, np.int64)
        _bind(binding, "latent", latent)
        _bind(binding, "offset", at)
        _bind(binding, "audio", audio, output=True)
        for i, (conv, out) in enumerate(zip(state.convs, state.outs, strict=True)):
            _bind(binding, f"s{i}", conv)
            _bind(binding, f"s{i}_out", out, output=True)
        rows = _rows(state.caches, self.steps)
        _bind_caches(binding, state.caches, rows)
        self.session.run_with_iobinding(binding)
        slots = state.caches[0].shape[2] if state.caches else 1
        where = np.arange(state.offset, state.offset + self.steps) % slots
        for cache, new in zip(state.caches, rows, strict=True):
            cache[:, :, where] = new
        state.convs, state.outs = state.outs, state.convs
        state.offset += self.steps
        return audio.reshape(-1)
