"""The exported graphs (`onnx.export`) run on numpy arrays in ONNX Runtime, without torch.

A request's caches stay where they are: they are bound as inputs (IO binding, read in place),
and the K and V rows the graph returns are written at the offset, as `ExportableAttention`
(`onnx.attention`) writes them in torch. A request's frames reuse one binding and its buffers
(the LM's per thread and caches, Mimi's two per state): a frame copies its inputs into bound
buffers and binds nothing new. Mimi's small convolution states are copied back from
the graph's outputs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .ort import session
from .plan import grown_slots
from .voice_arrays import LM_SLOTS, CacheFull


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
    """The flow LM's graph: the next latent and EOS logit after some steps, on a request's
    caches (their slot axis is dynamic: sized to the request, `plan.slot_budget`, grown if it
    runs longer, `plan.grown_slots`)."""

    def __init__(self, path: Path, threads: int, prepacked: bool = True) -> None:
        self.session = session(path, threads, prepacked)
        inputs = self.session.get_inputs()
        self.ldim = int(inputs[1].shape[-1])
        _, heads, _, dim = inputs[3].shape
        self.cache_shape = (int(heads), int(dim))
        """(heads, dim per head) of each K and V cache (1, heads, slots, dim)."""
        self._local = threading.local()

    def run(
        self, caches: list[np.ndarray], offset: int, embeddings: np.ndarray, noise: np.ndarray
    ) -> tuple[np.ndarray, np.float32]:
        """The next latent (1, 1, ldim) and the EOS logit after `embeddings` (1, steps, dim),
        their K and V written into `caches` from `offset` on: `caches` (a request's list) are
        replaced by larger ones if they are too short, up to `LM_SLOTS` (CacheFull past it)."""
        steps = embeddings.shape[1]
        end = offset + steps
        if end > caches[0].shape[2]:
            if end > LM_SLOTS:
                raise CacheFull(f"the attention cache holds {LM_SLOTS} steps, step {offset} asked")
            _grow(caches, offset, grown_slots(end, caches[0].shape[2]))
        bound = self._binding(caches, steps, embeddings.shape[-1])
        np.copyto(bound.embeddings, embeddings.reshape(bound.embeddings.shape))
        np.copyto(bound.noise, noise.reshape(bound.noise.shape))
        bound.offset[0] = offset
        self.session.run_with_iobinding(bound.binding)
        for cache, new in zip(caches, bound.rows, strict=True):
            cache[:, :, offset:end] = new
        return bound.latent.reshape(1, 1, self.ldim).copy(), bound.eos[0, 0]

    def _binding(self, caches: list[np.ndarray], steps: int, dim: int) -> _LMBinding:
        """A binding of a run of `steps` on `caches`: for one step, this thread's, made again
        when the caches change (a new request's, or grown), so a request's frames bind nothing
        new; for a prompt, a new one."""
        if steps != 1:
            return _LMBinding(self.session, caches, steps, dim, self.ldim)
        key = tuple((cache.ctypes.data, cache.shape) for cache in caches)
        bound: _LMBinding | None = getattr(self._local, "bound", None)
        if bound is None or bound.key != key:
            bound = _LMBinding(self.session, caches, 1, dim, self.ldim)
            self._local.bound = bound
        return bound


class _LMBinding:
    """An IO binding of the LM's graph on a request's caches, with its own input and output
    buffers (bound by address: a run copies its inputs into them)."""

    def __init__(
        self, session: Any, caches: list[np.ndarray], steps: int, dim: int, ldim: int
    ) -> None:
        self.key = tuple((cache.ctypes.data, cache.shape) for cache in caches)
        self.binding = session.io_binding()
        self.embeddings = np.empty((1, steps, dim), np.float32)
        self.noise = np.empty((1, ldim), np.float32)
        self.offset = np.zeros(1, np.int64)
        self.latent, self.eos = np.empty((1, ldim), np.float32), np.empty((1, 1), np.float32)
        for name, array in (
            ("embeddings", self.embeddings), ("noise", self.noise), ("offset", self.offset)
        ):  # fmt: skip
            _bind(self.binding, name, array)
        _bind(self.binding, "next_latent", self.latent, output=True)
        _bind(self.binding, "eos", self.eos, output=True)
        self.rows = _rows(caches, steps)
        _bind_caches(self.binding, caches, self.rows)


def _grow(caches: list[np.ndarray], written: int, slots: int) -> None:
    """Replace each of `caches` by one of `slots` slots holding its first `written` steps."""
    for i, cache in enumerate(caches):
        larger = np.zeros((*cache.shape[:2], slots, cache.shape[3]), cache.dtype)
        larger[:, :, :written] = cache[:, :, :written]
        caches[i] = larger


@dataclass
class MimiState:
    """One request's Mimi decoder state: convolution states, circular caches, an offset."""

    convs: list[np.ndarray]
    caches: list[np.ndarray]
    offset: int = 0
    outs: list[np.ndarray] = field(default_factory=list)
    """Buffers for the convolution states' next values."""
    bindings: list[_MimiBinding] = field(default_factory=list)
    """Its two IO bindings (the convolution states alternate with `outs`), made at its first
    two frames."""


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
        bound = self._binding(state, latent.shape)
        np.copyto(bound.latent, latent.reshape(bound.latent.shape))
        bound.offset[0] = state.offset
        self.session.run_with_iobinding(bound.binding)
        slots = state.caches[0].shape[2] if state.caches else 1
        where = np.arange(state.offset, state.offset + self.steps) % slots
        for cache, new in zip(state.caches, bound.rows, strict=True):
            cache[:, :, where] = new
        state.convs, state.outs = state.outs, state.convs
        state.offset += self.steps
        return bound.audio.reshape(-1).copy()

    def _binding(self, state: MimiState, latent: tuple[int, ...]) -> _MimiBinding:
        """The binding of `state`'s frame now: one of its two, made at its first two frames
        (the convolution states alternate between them)."""
        if len(state.bindings) < 2:
            state.bindings.append(
                _MimiBinding(self.session, state, self.steps, self.samples, latent)
            )
        return state.bindings[state.offset // self.steps % 2]


class _MimiBinding:
    """An IO binding of Mimi's graph on a state's caches and its convolution states as they
    are at this frame (`convs` in, `outs` out: the next frame has them swapped)."""

    def __init__(
        self, session: Any, state: MimiState, steps: int, samples: list[int],
        latent: tuple[int, ...],
    ) -> None:  # fmt: skip
        self.binding = session.io_binding()
        self.latent = np.empty(latent, np.float32)
        self.offset = np.zeros(1, np.int64)
        self.audio = np.empty(samples, np.float32)
        _bind(self.binding, "latent", self.latent)
        _bind(self.binding, "offset", self.offset)
        _bind(self.binding, "audio", self.audio, output=True)
        for i, (conv, out) in enumerate(zip(state.convs, state.outs, strict=True)):
            _bind(self.binding, f"s{i}", conv)
            _bind(self.binding, f"s{i}_out", out, output=True)
        self.rows = _rows(state.caches, steps)
        _bind_caches(self.binding, state.caches, self.rows)
