"""pocket-tts's streaming transformer (`StreamingTransformer`) as ONNX nodes, with its KV
caches as `onnx.attention.ExportableAttention` keeps them.

Each layer reads its K and V cache (1, kv heads, slots, dim per head) where it lies and returns
only this call's K and V rows, which the runner writes at the offset (`onnx.runners`). Which
position a slot holds follows from the offset alone (the LM's caches never wrap; Mimi's are
circular, `context` slots), so the masks are computed once per call for all layers. The sums
are pocket-tts's: RoPE, scaled dot-product attention masked causally (and to `context`),
grouped-query heads sharing their K and V, layer norms, the tanh GELU feed-forward, layer scales.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .checkpoint import Checkpoint
from .config import TransformerShape
from .layers import gelu_tanh, layer_norm, linear
from .ops import Graph


@dataclass(frozen=True)
class Call:
    """What every layer of one call shares: the graph, the weights, the transformer's shape,
    RoPE's rotation and the attention mask."""

    g: Graph
    ck: Checkpoint
    shape: TransformerShape
    cos: str
    sin: str
    """(steps, 1, dim per head / 2, 1): the rotation of each step's position."""
    mask: str
    """(steps, slots + steps): which cached slots and which of this call's steps each step sees."""


def call(
    g: Graph, ck: Checkpoint, shape: TransformerShape, x: str, offset: str, cache: str
) -> Call:
    """The rotation and mask of a call on `x` (1, steps, d) at `offset` (1,) over caches shaped
    like `cache`, as `ExportableAttention._attend` computes them."""
    zero, one = g.const(0, np.int64), g.const(1, np.int64)
    steps = g.node("Gather", [g.node("Shape", [x]), g.const(1, np.int64)], axis=0)
    positions = g.node("Add", [offset, g.node("Range", [zero, steps, one])])
    half = shape.dim_per_head // 2
    ds = np.arange(half, dtype=np.float32)
    freqs = np.exp(ds * np.float32(-math.log(shape.max_period) * 2 / shape.dim_per_head))
    times = g.node("Reshape", [g.node("Cast", [positions], to=1), g.ints(-1, 1, 1, 1)])
    angles = g.node("Mul", [times, g.const(freqs.reshape(half, 1))])
    held = _held(g, shape, offset, cache)
    query = g.node("Unsqueeze", [positions, g.ints(1)])
    masks = []
    for keys in (held, positions):
        delta = g.node("Sub", [query, g.node("Unsqueeze", [keys, g.ints(0)])])
        mask = g.node("GreaterOrEqual", [delta, zero])
        if keys == held:
            written = g.node("GreaterOrEqual", [keys, zero])
            mask = g.node("And", [g.node("Unsqueeze", [written, g.ints(0)]), mask])
        if shape.context is not None:
            within = g.node("Less", [delta, g.const(shape.context, np.int64)])
            mask = g.node("And", [mask, within])
        masks.append(mask)
    cos, sin = g.node("Cos", [angles]), g.node("Sin", [angles])
    return Call(g, ck, shape, cos, sin, g.node("Concat", masks, axis=-1))


def _held(g: Graph, shape: TransformerShape, offset: str, cache: str) -> str:
    """The position each cache slot holds before this call (< 0: none)."""
    zero, one = g.const(0, np.int64), g.const(1, np.int64)
    slots = g.node("Gather", [g.node("Shape", [cache]), g.const(2, np.int64)], axis=0)
    index = g.node("Range", [zero, slots, one])
    if shape.context is None:  # never wraps: slot i holds position i once written
        held = g.node("Where", [g.node("Less", [index, offset]), index, g.const(-1, np.int64)])
    else:  # circular: the latest position written to each slot (< 0: none)
        last = g.node("Sub", [offset, one])
        back = g.node("Mod", [g.node("Sub", [last, index]), slots], fmod=0)
        held = g.node("Sub", [last, back])
    return held


def _rope(g: Graph, x: str, heads: int, dim: int, rotation: Call) -> str:
    """`apply_rope` on (1, steps, heads, dim): pairs (re, im) rotated by each step's angle."""
    pairs = g.node("Reshape", [x, g.ints(1, -1, heads, dim // 2, 2)])
    real, imag = g.node("Split", [pairs, g.ints(1, 1)], outputs=2, axis=-1)
    cos, sin = rotation.cos, rotation.sin
    out_real = g.node("Sub", [g.node("Mul", [real, cos]), g.node("Mul", [imag, sin])])
    out_imag = g.node("Add", [g.node("Mul", [real, sin]), g.node("Mul", [imag, cos])])
    rotated = g.node("Concat", [out_real, out_imag], axis=-1)
    return g.node("Reshape", [rotated, g.ints(1, -1, heads, dim)])


def attention(rotation: Call, x: str, name: str, caches: tuple[str, str]) -> tuple[str, str, str]:
    """`StreamingMultiheadAttention` on `x` (1, steps, d) over `caches` (K, V): the output,
    then this call's K and V rows (1, kv heads, steps, dim per head)."""
    g, ck, shape = rotation.g, rotation.ck, rotation.shape
    heads, kv_heads, d = shape.num_heads, shape.num_kv_heads, shape.dim_per_head
    kv_dim = kv_heads * d
    proj = linear(g, ck, x, f"{name}.in_proj", (shape.attn_dim + 2 * kv_dim, shape.d_model))
    q, k, v = g.node("Split", [proj, g.ints(shape.attn_dim, kv_dim, kv_dim)], outputs=3, axis=-1)
    q = _rope(g, q, heads, d, rotation)
    k = _rope(g, k, kv_heads, d, rotation)
    k_new = g.node("Transpose", [k], perm=[0, 2, 1, 3])
    v_new = g.node(
        "Transpose", [g.node("Reshape", [v, g.ints(1, -1, kv_heads, d)])], perm=[0, 2, 1, 3]
    )
    # Query heads grouped by the K and V head they share: (1, kv heads, group, steps, d).
    q = g.node("Transpose", [q], perm=[0, 2, 1, 3])
    q = g.node("Mul", [q, g.const(d**-0.5)])
    q = g.node("Reshape", [q, g.ints(1, kv_heads, heads // kv_heads, -1, d)])
    keys = [g.node("Unsqueeze", [key, g.ints(2)]) for key in (caches[0], k_new)]
    values = [g.node("Unsqueeze", [value, g.ints(2)]) for value in (caches[1], v_new)]
    namespace = f"{name}: attention"
    scores = [
        g.node("MatMul", [q, g.node("Transpose", [key], perm=[0, 1, 2, 4, 3])], namespace=namespace)
        for key in keys
    ]
    masked = g.node("Where", [rotation.mask, g.node("Concat", scores, axis=-1), g.const(-np.inf)])
    weights = g.node("Softmax", [masked], axis=-1)
    # The weights of the cached slots, then of this call's steps.
    slots = g.node("Shape", [caches[0]], start=2, end=3)
    old = g.node("Slice", [weights, g.ints(0), slots, g.ints(-1)])
    own = g.node("Slice", [weights, slots, g.ints(2**62), g.ints(-1)])
    out = g.node(
        "Add",
        [
            g.node("MatMul", [old, values[0]], namespace=namespace),
            g.node("MatMul", [own, values[1]], namespace=namespace),
        ],
    )
    out = g.node("Reshape", [out, g.ints(1, heads, -1, d)])
    out = g.node(
        "Reshape", [g.node("Transpose", [out], perm=[0, 2, 1, 3]), g.ints(1, -1, shape.attn_dim)]
    )
    return linear(g, ck, out, f"{name}.out_proj", (shape.d_model, shape.attn_dim)), k_new, v_new


def layer(rotation: Call, x: str, name: str, caches: tuple[str, str]) -> tuple[str, str, str]:
    """`StreamingTransformerLayer`: attention and feed-forward blocks, each a residual of a
    layer norm's input; the layer's output, then its K and V rows."""
    g, ck, shape = rotation.g, rotation.ck, rotation.shape
    dim = shape.d_model
    normed = layer_norm(g, ck, x, f"{name}.norm1", dim, 1e-5)
    update, k_new, v_new = attention(rotation, normed, f"{name}.self_attn", caches)
    x = g.node("Add", [x, _scaled(g, ck, update, f"{name}.layer_scale_1", shape)])
    normed = layer_norm(g, ck, x, f"{name}.norm2", dim, 1e-5)
    hidden = gelu_tanh(g, linear(g, ck, normed, f"{name}.linear1", (shape.dim_feedforward, dim)))
    update = linear(g, ck, hidden, f"{name}.linear2", (dim, shape.dim_feedforward))
    return g.node("Add", [x, _scaled(g, ck, update, f"{name}.layer_scale_2", shape)]), k_new, v_new


def _scaled(g: Graph, ck: Checkpoint, x: str, name: str, shape: TransformerShape) -> str:
    if not shape.layer_scale:
        return x
    scale = g.weight(ck.tensor(f"{name}.scale", (shape.d_model,)), f"{name}.scale")
    return g.node("Mul", [x, scale])


def transformer(
    g: Graph,
    ck: Checkpoint,
    x: str,
    name: str,
    shape: TransformerShape,
    offset: str,
    caches: list[str],
) -> tuple[str, list[str]]:
    """`StreamingTransformer` `name` on `x` (1, steps, d) at `offset`, its layers' K and V
    caches given in order (K, V of each): the output, then each layer's K and V rows."""
    rotation = call(g, ck, shape, x, offset, caches[0])
    rows: list[str] = []
    for i in range(shape.num_layers):
        pair = (caches[2 * i], caches[2 * i + 1])
        x, k_new, v_new = layer(rotation, x, f"{name}.layers.{i}", pair)
        rows += [k_new, v_new]
    return x, rows
