"""An attention whose KV cache a graph exporter can follow: written at a tensor offset.

pocket-tts's streaming attention appends K and V at `int(offset.item())` into one tensor that
grows with the request (the flow LM's is re-allocated per request, Mimi's is sized for the
longest generation and filled with NaN), so `torch.export` stops there. `ExportableAttention`
computes the same sums with the same weights (it is given to pocket-tts's attention modules as
their class, like `equivalents`) but keeps K and V apart, each in a fixed number of slots,
updated in place with `index_copy_` at `(offset + step) % slots`. Which position a slot holds
follows from the offset alone, so the mask is tensor arithmetic and nothing reads a tensor's
value on the host:
- the flow LM attends to everything before (no `context`): its cache never wraps, and its
  exported graph takes any number of slots (`LM_SLOTS` when traced): the serving loop passes a
  cache sized to the request (`plan.slot_budget`), and attention reads only those;
- Mimi's decoder transformer attends to the last `context` steps: its cache is circular, with
  `context` slots (250 at `english` shapes).
Each call attends over the cache and its own steps, then writes them (a call longer than the
cache leaves its last steps); in an exported graph the write is the runner's, which gets the
steps as outputs (`k_new`, `v_new`). Unused slots hold zeros (masked), never NaN, so a state
needs no fill before use.

The audio matches pocket-tts's within float rounding (attention over the whole cache, masked,
sums in another order): `tests/engine/test_onnx_attention.py` checks 300 frames, fp32 and int8. The
state layout differs from pocket-tts's (`k`, `v` instead of `cache`), which is why it is given
only to a model that is exported (`onnx.cache.prepare_graphs`, `script/bench --onnx`), never to
one that serves: the graphs' own loop reads pocket-tts's layout (`onnx.voice_arrays`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from pocket_tts.modules.attention import StreamingMultiheadAttention

from .voice_arrays import LM_SLOTS, CacheFull

if TYPE_CHECKING:
    from pocket_tts import TTSModel
    from pocket_tts.modules.stateful_module import ModelState

MAX_SLOTS = 16384
"""The most slots an exported LM graph's caches may have (the exporter's bound on the axis)."""


class ExportableAttention(StreamingMultiheadAttention):
    """pocket-tts's streaming attention with separate, fixed-size K and V caches written at a
    tensor offset (see the module docstring). Without a model state (Mimi's encoder) it runs
    pocket-tts's own code."""

    slots: int
    """Cache slots: the fixed size (no context) or the circular size (the context)."""

    def init_state(self, batch_size: int, sequence_length: int) -> dict[str, torch.Tensor]:
        weight = self.in_proj.weight
        device = weight.device if isinstance(weight, torch.Tensor) else weight().device
        # An int8 (torch.ao) in_proj has a method for its weight; activations stay float32.
        dtype = weight.dtype if isinstance(weight, torch.Tensor) else torch.float32
        slots = self.slots if self.context is not None else max(self.slots, sequence_length)
        shape = (batch_size, self.num_kv_heads, slots, self.dim_per_head)
        return {
            "offset": torch.zeros(batch_size, dtype=torch.long, device=device),
            "k": torch.zeros(shape, dtype=dtype, device=device),
            "v": torch.zeros(shape, dtype=dtype, device=device),
        }

    def forward(
        self,
        query: torch.Tensor,
        model_state: ModelState | None,
        attn_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        if model_state is None:
            return super().forward(query, model_state, attn_mask)
        state = self.get_state(model_state)
        return self._attend(query, state, state["offset"].view(-1)[0])

    def _attend(
        self, query: torch.Tensor, state: dict[str, torch.Tensor], offset: torch.Tensor
    ) -> torch.Tensor:
        """Attend over the cache and this call's K and V (pocket-tts's sums), then write them
        at `offset`. When exported, they are left in `state` as `k_new`, `v_new` (graph
        outputs) for the runner to write: a graph that scatters into its input copies the
        whole cache per layer and frame (ONNX Runtime may not write into a graph input)."""
        cache_k, cache_v = state["k"], state["v"]
        slots = cache_k.shape[2]
        b, t, _ = query.shape
        d = self.dim_per_head
        projected = self.in_proj(query)
        q = projected[..., : self.attn_dim].view(b, t, self.num_heads, d)
        kv = projected[..., self.attn_dim :].view(b, t, 2, self.num_kv_heads, d)
        k, v = torch.unbind(kv, dim=2)
        q, k = self.rope(q, k, offset=offset)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # (b, heads, t, d)
        positions = offset + torch.arange(t, device=query.device, dtype=torch.long)
        # The position each slot holds before this call: the latest written there (< 0: none).
        index = torch.arange(slots, device=query.device)
        if self.context is None:  # never wraps: slot i holds position i once written (any size)
            held = torch.where(index < offset, index, -1)
        else:
            last = offset - 1
            held = last - torch.remainder(last - index, slots)
        x = self._softmax_sums(q, (cache_k, k), (cache_v, v), positions, held)
        if _tracing():
            state["k_new"], state["v_new"] = k, v
        else:
            if self.context is None:
                _check_room(int(positions[-1]), slots)
            kept = min(t, slots)  # a call longer than the cache leaves its last steps
            where = torch.remainder(positions[t - kept :], slots)
            cache_k.index_copy_(2, where, k[:, :, t - kept :].to(cache_k.dtype))
            cache_v.index_copy_(2, where, v[:, :, t - kept :].to(cache_v.dtype))
        return self.out_proj(x.transpose(1, 2).reshape(b, t, self.num_heads * d))

    def _softmax_sums(
        self,
        q: torch.Tensor,
        keys: tuple[torch.Tensor, torch.Tensor],
        values: tuple[torch.Tensor, torch.Tensor],
        positions: torch.Tensor,
        held: torch.Tensor,
    ) -> torch.Tensor:
        """Scaled dot-product attention of `q` over two blocks of keys (the cache's slots, this
        call's steps), each masked as pocket-tts masks: causal, within `context`, written."""
        masks = []
        for key_positions in (held, positions):
            delta = positions[:, None] - key_positions[None, :]
            mask = (key_positions[None, :] >= 0) & (delta >= 0)
            if self.context is not None:
                mask = mask & (delta < self.context)
            masks.append(mask)
        repeat = self.num_heads // self.num_kv_heads
        if repeat > 1:
            keys = (keys[0].repeat_interleave(repeat, 1), keys[1].repeat_interleave(repeat, 1))
            values = (
                values[0].repeat_interleave(repeat, 1),
                values[1].repeat_interleave(repeat, 1),
            )
        scaled = q * q.shape[-1] ** -0.5
        scores = torch.cat([torch.matmul(scaled, key.transpose(-1, -2)) for key in keys], -1)
        scores = scores.masked_fill(~torch.cat(masks, -1), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        slots = keys[0].shape[2]
        return torch.matmul(weights[..., :slots], values[0]) + torch.matmul(
            weights[..., slots:], values[1]
        )


def _tracing() -> bool:
    return bool(torch.compiler.is_exporting() or torch.compiler.is_compiling())


def _check_room(last_position: int, slots: int) -> None:
    if last_position >= slots:
        raise CacheFull(f"the attention cache holds {slots} steps, step {last_position} asked")


def use_exportable_attention(model: TTSModel, lm_slots: int = LM_SLOTS) -> int:
    """Make the flow LM's and Mimi's decoder attention `ExportableAttention`; how many.

    Mimi's encoder (voice prompts, stateless) keeps pocket-tts's class. States made before
    (pocket-tts's layout) do not fit it: it is a model to export."""
    swapped = 0
    for transformer in (model.flow_lm.transformer, model.mimi.decoder_transformer):
        for module in transformer.modules():
            if isinstance(module, StreamingMultiheadAttention):
                module.__class__ = ExportableAttention
                module.slots = lm_slots if module.context is None else module.context
                swapped += 1
    return swapped
