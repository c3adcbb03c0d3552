"""An attention whose KV cache a graph exporter can follow: written at a tensor offset.

pocket-tts's streaming attention appends K and V at `int(offset.item())` into one tensor that
grows with the request (the flow LM's is re-allocated per request, Mimi's is sized for the
longest generation and filled with NaN), so `torch.export` stops there. `ExportableAttention`
computes the same sums with the same weights (it is given to pocket-tts's attention modules as
their class, like `equivalents`) but keeps K and V apart, each in a fixed number of slots,
updated in place with `index_copy_` at `(offset + step) % slots`. Which position a slot holds
follows from the offset alone, so the mask is tensor arithmetic and nothing reads a tensor's
value on the host:
- the flow LM attends to everything before (no `context`): its cache is fixed-size, `LM_SLOTS`
  unless a longer prompt asks for more, and never wraps;
- Mimi's decoder transformer attends to the last `context` steps: its cache is circular, with
  room for `context` steps plus one call's (`CIRCULAR_ROOM`); a longer call is taken in pieces.
Unused slots hold zeros (masked), never NaN, so a state needs no fill before use.

The audio matches pocket-tts's within float rounding (attention over the whole cache, masked,
sums in another order): `tests/test_exportable.py` checks 300 frames, fp32 and int8. The state
layout differs from pocket-tts's (`k`, `v` instead of `cache`): `from_pocket_state` converts a
saved voice state. Used by `script/bench --onnx` (`bench.onnx_spike`), not yet by the server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from pocket_tts.modules.attention import StreamingMultiheadAttention
from torch.nn import functional as F

if TYPE_CHECKING:
    from pocket_tts import TTSModel
    from pocket_tts.modules.stateful_module import ModelState

LM_SLOTS = 1000
"""Slots of the flow LM's fixed cache: a 30 s voice prompt (375 steps), a 50-token text piece
and its longest generation (234 frames) take about 660."""
CIRCULAR_ROOM = 64
"""Steps one call may add to a circular cache beyond its `context` (four Mimi frames of 16
steps); pocket-tts decodes every queued frame in one call, a longer call goes in pieces."""


class CacheFull(ValueError):
    """A fixed cache (no `context`) was asked to hold more steps than it has slots."""


class ExportableAttention(StreamingMultiheadAttention):
    """pocket-tts's streaming attention with separate, fixed-size K and V caches written at a
    tensor offset (see the module docstring). Without a model state (Mimi's encoder) it runs
    pocket-tts's own code."""

    slots: int
    """Cache slots: the fixed size (no context) or the circular size (context + room)."""

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
        offset = state["offset"].view(-1)[0]
        steps = query.shape[1]
        room = steps if self.context is None else state["k"].shape[2] - self.context + 1
        if steps <= room:
            return self._attend(query, state, offset)
        return torch.cat(
            [
                self._attend(query[:, start : start + room], state, offset + start)
                for start in range(0, steps, room)
            ],
            dim=1,
        )

    def _attend(
        self, query: torch.Tensor, state: dict[str, torch.Tensor], offset: torch.Tensor
    ) -> torch.Tensor:
        """Write this call's K and V at `offset` and attend over the cache (pocket-tts's sums)."""
        cache_k, cache_v = state["k"], state["v"]
        slots = cache_k.shape[2]
        b, t, _ = query.shape
        d = self.dim_per_head
        projected = self.in_proj(query)
        q = projected[..., : self.attn_dim].view(b, t, self.num_heads, d)
        kv = projected[..., self.attn_dim :].view(b, t, 2, self.num_kv_heads, d)
        k, v = torch.unbind(kv, dim=2)
        q, k = self.rope(q, k, offset=offset)
        steps = torch.arange(t, device=query.device, dtype=torch.long)
        positions = offset + steps
        if self.context is None and not _tracing():
            _check_room(int(positions[-1]), slots)
        where = torch.remainder(positions, slots)
        # One scatter along the first dimension of the flattened cache: the layout a graph's
        # scatter writes in place (along a later one, the export transposes the whole cache).
        rows = torch.arange(b * self.num_kv_heads, device=query.device)[:, None] * slots
        flat = (rows + where[None, :]).reshape(-1)
        cache_k.view(-1, d).index_copy_(0, flat, k.transpose(1, 2).reshape(-1, d).to(cache_k.dtype))
        cache_v.view(-1, d).index_copy_(0, flat, v.transpose(1, 2).reshape(-1, d).to(cache_v.dtype))
        # The position each slot holds now: the latest one written there (negative: none yet).
        last = positions[-1]
        held = last - torch.remainder(last - torch.arange(slots, device=query.device), slots)
        delta = positions[:, None] - held[None, :]
        mask = (held[None, :] >= 0) & (delta >= 0)
        if self.context is not None:
            mask = mask & (delta < self.context)
        k_attn, v_attn = cache_k, cache_v
        if self.num_kv_heads != self.num_heads:
            k_attn = k_attn.repeat_interleave(self.num_heads // self.num_kv_heads, dim=1)
            v_attn = v_attn.repeat_interleave(self.num_heads // self.num_kv_heads, dim=1)
        x = _attention(q.transpose(1, 2), k_attn, v_attn, mask[None, None])
        return self.out_proj(x.transpose(1, 2).reshape(b, t, self.num_heads * d))


def _attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """torch's fused attention; when exported, its sums written out so that the graph reads the
    cache where it lies (the exported fused op scales and transposes the whole cache per frame)."""
    if not _tracing():
        return F.scaled_dot_product_attention(q, k, v, mask, dropout_p=0.0)
    scores = torch.matmul(q * q.shape[-1] ** -0.5, k.transpose(-1, -2))
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def _tracing() -> bool:
    return bool(torch.compiler.is_exporting() or torch.compiler.is_compiling())


def _check_room(last_position: int, slots: int) -> None:
    if last_position >= slots:
        raise CacheFull(f"the attention cache holds {slots} steps, step {last_position} asked")


def use_exportable_attention(model: TTSModel, lm_slots: int = LM_SLOTS) -> int:
    """Make the flow LM's and Mimi's decoder attention `ExportableAttention`; how many.

    Mimi's encoder (voice prompts, stateless) keeps pocket-tts's class. States made before
    (voice states) need `from_pocket_state`."""
    swapped = 0
    for transformer in (model.flow_lm.transformer, model.mimi.decoder_transformer):
        for module in transformer.modules():
            if isinstance(module, StreamingMultiheadAttention):
                module.__class__ = ExportableAttention
                circular = module.context is not None
                module.slots = module.context + CIRCULAR_ROOM if circular else lm_slots
                swapped += 1
    return swapped


def from_pocket_state(model: TTSModel, state: ModelState) -> ModelState:
    """A flow-LM state of pocket-tts's layout (`cache`: K and V appended, `offset`) in
    `ExportableAttention`'s, for a model given it; other modules' entries are shared as they are.
    """
    converted: ModelState = dict(state)
    for name, module in model.flow_lm.named_modules():
        if not isinstance(module, ExportableAttention) or "cache" not in state.get(name, {}):
            continue
        old = state[name]
        used = int(old["offset"].view(-1)[0])
        fresh = module.init_state(old["cache"].shape[1], used)
        fresh["offset"].copy_(old["offset"])
        fresh["k"][:, :, :used] = old["cache"][0, :, :used].transpose(1, 2)
        fresh["v"][:, :, :used] = old["cache"][1, :, :used].transpose(1, 2)
        converted[name] = fresh
    return converted
