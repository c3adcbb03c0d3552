"""Mimi's decoder step graph (`mimi.onnx`), with the interface of `onnx.export.MimiStep`.

One latent frame (already scaled, as `decode_from_latent` is given it) to its audio: the
quantizer's projection, the upsampling transposed convolution, the decoder transformer (K and
V caches of `context` slots, circular) and the SEANet decoder, each convolution streaming
(`StreamingConv1d` keeps its last input steps, `StreamingConvTranspose1d` its overlap).
Inputs: `latent` (1, 1, ldim), `offset` (1,), `s0`, … the convolution states (`conv_states`
order), `c0`, … K and V of each attention layer; outputs: `audio` (1, channels, samples),
`s0_out`, … the next states, `c0_new`, … this frame's K and V rows.
"""

from __future__ import annotations

from pathlib import Path

from .checkpoint import Checkpoint
from .config import ModelConfig
from .convs import Conv, States, projected, residual_convs, streaming_conv, walk_seanet
from .ops import FLOAT, INT64, Graph, write_graph

ATTENTION = "decoder_transformer.transformer.layers.{}.self_attn"


def decoder_convs(config: ModelConfig) -> list[Conv]:
    """The SEANet decoder's convolutions (`SEANetDecoder.model`), in module order."""
    seanet = config.decoder
    mult = 2 ** len(seanet.ratios)
    width = mult * seanet.n_filters
    convs = [Conv("decoder.model.0", False, seanet.dimension, width, seanet.kernel_size)]
    index = 1
    for ratio in seanet.ratios:
        convs.append(Conv(f"decoder.model.{index + 1}", True, width, width // 2, 2 * ratio, ratio))
        width //= 2
        index += 2
        convs += residual_convs("decoder", index, width, seanet)
        index += seanet.n_residual_layers
    convs.append(
        Conv(
            f"decoder.model.{index + 1}",
            False,
            seanet.n_filters,
            seanet.channels,
            seanet.last_kernel_size,
        )
    )
    return convs


def upsample(config: ModelConfig) -> Conv | None:
    """`MimiModel.upsample`'s transposed convolution (None at the encoder's frame rate)."""
    if config.encoder_frame_rate == config.frame_rate:
        return None
    stride, dim = config.mimi_steps_per_latent, config.decoder.dimension
    return Conv(
        "upsample.convtr",
        True,
        config.outer_dim or dim,
        dim,
        2 * stride,
        stride,
        groups=dim,
        bias=False,
    )


def conv_states(config: ModelConfig) -> list[tuple[str, str]]:
    """The convolution states that are graph inputs (`Graphs.conv_names`), in pocket-tts's
    module order: the decoder's, then the upsampling's; kernel-1 convolutions keep none."""
    return [(conv.name, conv.key) for conv in _decoder_side(config) if conv.state[2] > 0]


def _decoder_side(config: ModelConfig) -> list[Conv]:
    """The decoder's convolutions, then the upsampling's: the order of their states."""
    up = upsample(config)
    return [*decoder_convs(config), *([up] if up else [])]


def attention_names(config: ModelConfig) -> list[str]:
    return [ATTENTION.format(i) for i in range(config.decoder_transformer.num_layers)]


def build_mimi(ck: Checkpoint, config: ModelConfig, path: Path, int8: bool = False) -> None:
    """Write Mimi's decoder step graph to `path` (its weights beside it; `int8`: see
    `ops.Graph`)."""
    write_graph(path, "mimi_step", lambda g: _mimi(g, ck, config), int8)


def _mimi(g: Graph, ck: Checkpoint, config: ModelConfig) -> None:
    shape, seanet = config.decoder_transformer, config.decoder
    latent = g.input("latent", FLOAT, [1, 1, config.ldim])
    offset = g.input("offset", INT64, [1])
    states = States(g, _decoder_side(config))
    cache_shape = [1, shape.num_kv_heads, shape.context or 0, shape.dim_per_head]
    caches = [g.input(f"c{i}", FLOAT, cache_shape) for i in range(2 * shape.num_layers)]
    x = g.node("Transpose", [latent], perm=[0, 2, 1])
    weight = ck.tensor("mimi.quantizer.output_proj.weight", (config.quantizer_out, config.ldim, 1))
    x = g.node("Conv", [x, g.weight(weight, "mimi.quantizer.output_proj.weight")])
    steps = 1
    up = upsample(config)
    if up is not None:
        x = streaming_conv(g, ck, x, up, states, steps)
        steps *= up.stride
    rows: list[str] = []
    x = projected(
        g,
        ck,
        x,
        "mimi.decoder_transformer",
        config.decoder_transformer,
        (config.decoder_input, config.decoder_outputs[0]),
        offset,
        caches,
        rows,
    )

    def run(x: str, conv: Conv) -> str:
        nonlocal steps
        y = streaming_conv(g, ck, x, conv, states, steps)
        steps *= conv.stride if conv.transposed else 1
        return y

    x = walk_seanet(g, x, decoder_convs(config), run)
    g.output(x, "audio", FLOAT, [1, seanet.channels, steps])
    states.write()
    row_shape = [1, shape.num_kv_heads, config.mimi_steps_per_latent, shape.dim_per_head]
    for i, row in enumerate(rows):
        g.output(row, f"c{i}_new", FLOAT, row_shape)
