"""Mimi's KV caches allocated without pocket-tts's NaN fill: a request's first audio, sooner.

For every generation pocket-tts builds a fresh Mimi state (`init_states`): each attention layer
of Mimi's encoder and decoder transformers gets a KV cache sized for the longest generation the
text allows, filled with NaN (18 MB for a ten-token sentence at `english` shapes, 39 MB for
thirty). The fill runs on the Mimi thread before it decodes the first frame, so the listener
waits for it. But the attention only ever reads the slots below its offset, each written by an
earlier step of the same generation (the NaN is a guard, never read: one NaN read would make the
audio NaN), and the encoder's caches are not used at all when decoding.

So the layers get `UnfilledKVCache` as their class at load. Its `init_state` takes pocket-tts's
own state for an empty cache once (per batch size), and per generation copies its small tensors
(the offsets) and allocates the cache at full length without filling it: pages never written
cost nothing. Asking pocket-tts once also saves, with int8 in Mimi's decoder (`model.int8`), the
unpacking of each layer's int8 weights it does at every build to read their device (20 ms of
a 27 ms build at `english` shapes). Each generation still gets a state of its own, so
requests share nothing. Copying a prepared full-size cache instead was measured too and costs
as much as the fill (a copy reads and writes every byte). The audio is the same bit for bit
(`tests/engine/test_mimi_cache.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from pocket_tts.modules.attention import StreamingMultiheadAttention

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_TIME = 2
"""The time axis of pocket-tts's KV cache, (2, batch, time, heads, dim)."""


class UnfilledKVCache(StreamingMultiheadAttention):
    """pocket-tts's streaming attention whose fresh state's cache is allocated, not filled."""

    empty_states: dict[int, dict[str, torch.Tensor]]
    """pocket-tts's own state with an empty cache, by batch size: copied, never handed out."""

    def init_state(self, batch_size: int, sequence_length: int) -> dict[str, torch.Tensor]:
        empty = self.empty_states.get(batch_size)
        if empty is None:
            empty = super().init_state(batch_size, sequence_length=0)
            self.empty_states[batch_size] = empty
        state = {name: tensor.clone() for name, tensor in empty.items() if name != "cache"}
        shape = list(empty["cache"].shape)
        shape[_TIME] = sequence_length
        cache = empty["cache"]
        state["cache"] = torch.empty(shape, dtype=cache.dtype, device=cache.device)
        return state


def skip_mimi_cache_fill(model: TTSModel) -> int:
    """Give Mimi's attention layers `UnfilledKVCache` as their class; how many were given."""
    layers = [m for m in model.mimi.modules() if type(m) is StreamingMultiheadAttention]
    for layer in layers:
        object.__setattr__(layer, "empty_states", {})
        layer.__class__ = UnfilledKVCache
    return len(layers)
