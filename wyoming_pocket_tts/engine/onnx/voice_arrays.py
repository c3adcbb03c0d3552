"""Voice states as numpy arrays, laid out as the LM graph's caches for one generation (files in
the layout pocket-tts saves are read and written by `voice_states.state_file`).

pocket-tts's layout, per flow-LM attention module: `cache` (2, 1, steps, heads, dim per head:
K and V appended), `offset` (1,: steps written), `pad` (1,: zero here), as `export_model_state`
writes them under `module/key` (older files hold `current_end`, whose length is the offset).
The graph's caches, per module: K and V each (1, heads, slots, dim per head), written up to the
offset, zeros beyond (`onnx.attention.ExportableAttention`'s layout).
"""

from __future__ import annotations

from typing import Any

import numpy as np

ArrayState = dict[str, dict[str, np.ndarray]]
"""A model state of arrays: module name -> key -> array."""


LM_SLOTS = 1000
"""The most steps a request's flow-LM cache holds (a voice state, a text piece and its frames):
a 30 s voice prompt (375 steps), a 50-token text piece and its longest generation (234 frames)
take about 660. The exported graph's slot axis is dynamic: a request's caches are allocated at
what it needs (`onnx.plan.slot_budget`), and attention reads only those slots."""


class CacheFull(ValueError):
    """A fixed cache (no `context`) was asked to hold more steps than it has slots."""


def offset_of(state: dict[str, dict[str, Any]], names: list[str]) -> int:
    """Steps the flow LM has already read into `state` (its voice prompt)."""
    return int(np.asarray(state[names[0]]["offset"]).reshape(-1)[0])


def lm_caches(state: dict[str, dict[str, Any]], names: list[str], slots: int) -> list[np.ndarray]:
    """Fresh K and V caches (1, heads, `slots`, dim each; in `names`' order, K then V) holding
    `state`'s written steps: the request's own, `state` left as it was. `state` is in
    pocket-tts's layout, of numpy arrays or anything `np.asarray` reads (CPU torch tensors)."""
    used = offset_of(state, names)
    if used > slots:
        raise CacheFull(f"the attention cache holds {slots} steps, the voice {used}")
    caches = []
    for name in names:
        cache = np.asarray(state[name]["cache"])  # (2, 1, steps, heads, dim)
        for rows in (cache[i, 0, :used].transpose(1, 0, 2) for i in (0, 1)):
            full = np.zeros((1, rows.shape[0], slots, rows.shape[2]), np.float32)
            full[0, :, :used] = rows
            caches.append(full)
    return caches


def empty_state(names: list[str], heads: int, dim: int) -> ArrayState:
    """The state of no voice prompt, in pocket-tts's layout (`init_states` with no steps)."""
    empty = np.zeros((2, 1, 0, heads, dim), np.float32)
    return {name: {"offset": np.zeros(1, np.int64), "cache": empty} for name in names}
