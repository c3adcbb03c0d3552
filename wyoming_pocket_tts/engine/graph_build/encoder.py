"""Mimi's encoder as a step graph (`voice.onnx`): a voice prompt's audio, a chunk at a time, to
the flow LM's prompt.

What pocket-tts's `get_state_for_audio_prompt` computes from the audio it has read, resampled
to the model's rate, mono, and ended on a pause (`end_on_pause`): the audio padded to whole
frames (`pad_for_conv1d`), Mimi's SEANet encoder, its encoder transformer (causal within
`context`) and its downsampling to the frame rate (`encode_to_latent`), then the speaker
projection (`_encode_audio`); `bos_before_voice` goes first where the config inserts it
(`VOICE_BOS`, written beside the graph). Every part is causal, so the audio runs in chunks of
`chunk_frames` frames (the last padded with zeros: the frames past the audio's are dropped),
each carrying the convolutions' last steps and the transformer's K and V (circular caches of
`context` slots, written by the host, as Mimi's decoder's) to the next: memory stays that of
one chunk, whatever the prompt's length (attention over a whole prompt at once would take
steps² floats per head: 611 MiB for 10 s at `english` shapes, measured).
Inputs: `audio` (1, channels, chunk samples), `offset` (1,; transformer steps before this
chunk), `s0`, … the convolution states (`encoder_convs` order, then the downsampling's),
`c0`, … the K and V cache of each transformer layer; outputs: `prompt` (1, chunk frames, dim),
`s0_out`, …, `c0_new`, … this chunk's K and V rows (1, heads, chunk steps, dim per head).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..onnx.graphs import VOICE, VOICE_BOS
from .checkpoint import Checkpoint
from .config import ModelConfig
from .convs import Conv, States, projected, residual_convs, streaming_conv, walk_seanet
from .ops import FLOAT, INT64, Graph, write_graph

CHUNK_FRAMES = 5
"""The most frames per chunk. A chunk's activations are what encoding adds to the server's
memory: at `english` shapes a 10 s prompt grew the process by 125 MiB in chunks of 15 frames
(the context's), 47 MiB in chunks of 5 and 36 MiB in chunks of 3, in 1.28, 1.11 and 1.14 s
(the prompts equal within 1e-8; 2026-12-05, 2-vCPU AMD EPYC, one run each)."""


def chunk_frames(config: ModelConfig) -> int:
    """Frames per chunk: `CHUNK_FRAMES`, or fewer where the transformer's context holds fewer
    (a chunk's K and V must fit its circular caches)."""
    context = config.encoder_transformer.context or 1
    return max(1, min(CHUNK_FRAMES, context // config.mimi_steps_per_latent))


def encoder_convs(config: ModelConfig) -> list[Conv]:
    """The SEANet encoder's convolutions (`SEANetEncoder.model`), in module order."""
    seanet = config.encoder
    width = seanet.n_filters
    convs = [Conv("encoder.model.0", False, seanet.channels, width, seanet.kernel_size)]
    index = 1
    for ratio in reversed(seanet.ratios):
        convs += residual_convs("encoder", index, width, seanet)
        index += seanet.n_residual_layers
        convs.append(Conv(f"encoder.model.{index + 1}", False, width, 2 * width, 2 * ratio, ratio))
        width *= 2
        index += 2
    convs.append(
        Conv(f"encoder.model.{index + 1}", False, width, seanet.dimension, seanet.last_kernel_size)
    )
    return convs


def downsample(config: ModelConfig) -> Conv | None:
    """`MimiModel.downsample`'s convolution (None at the frame rate already)."""
    if config.encoder_frame_rate == config.frame_rate:
        return None
    stride, width = config.mimi_steps_per_latent, config.encoder.dimension
    out = config.inner_dim or width
    return Conv("downsample.conv", False, width, out, 2 * stride, stride, bias=False)


def build_encoder(ck: Checkpoint, config: ModelConfig, folder: Path) -> None:
    """Write Mimi's encoder step graph to `folder` (`VOICE`, its weights beside it, and
    `VOICE_BOS` where the config inserts it)."""
    if config.encoder.pad_mode != "constant":
        raise ValueError(f"Mimi's encoder pads by {config.encoder.pad_mode!r}: not built")
    write_graph(folder / VOICE, "voice_prompt", lambda g: _encoder(g, ck, config))
    if config.bos_before_voice:
        bos = ck.tensor("flow_lm.bos_before_voice", (1, 1, config.flow.d_model))
        np.save(folder / VOICE_BOS, bos)


def _encoder(g: Graph, ck: Checkpoint, config: ModelConfig) -> None:
    frames = chunk_frames(config)
    samples = frames * round(config.sample_rate / config.frame_rate)
    down = downsample(config)
    convs = encoder_convs(config)
    states = States(g, [*convs, *([down] if down else [])])
    x = g.input("audio", FLOAT, [1, config.encoder.channels, samples])
    offset = g.input("offset", INT64, [1])
    shape = config.encoder_transformer
    cache_shape = [1, shape.num_kv_heads, shape.context or 0, shape.dim_per_head]
    caches = [g.input(f"c{i}", FLOAT, cache_shape) for i in range(2 * shape.num_layers)]
    steps = samples

    def run(x: str, conv: Conv) -> str:
        nonlocal steps
        y = streaming_conv(g, ck, x, conv, states, steps)
        steps //= conv.stride
        return y

    x = walk_seanet(g, x, convs, run)
    rows: list[str] = []
    dims = (config.encoder_input, config.encoder_outputs[0])
    x = projected(g, ck, x, "mimi.encoder_transformer", shape, dims, offset, caches, rows)
    transformer_steps = steps
    width = config.encoder.dimension
    if down is not None:  # replicate padding: before the first step, copies of it
        first = g.node("Slice", [x, g.ints(0), g.ints(1), g.ints(2)])
        start = g.node("Expand", [first, g.ints(*down.state)])
        at_start = g.node("Equal", [offset, g.const(0, np.int64)])
        kept = states.inputs[down.name]
        states.inputs[down.name] = g.node("Where", [at_start, start, kept])
        x = run(x, down)
        width = down.c_out
    latents = g.node("Transpose", [x], perm=[0, 2, 1])
    dim = config.flow.d_model
    speaker = ck.tensor("flow_lm.speaker_proj_weight", (dim, width))
    prompt = g.node("MatMul", [latents, g.weight(speaker.T, "flow_lm.speaker_proj_weight")])
    g.output(prompt, "prompt", FLOAT, [1, frames, dim])
    states.write()
    row_shape = [1, shape.num_kv_heads, transformer_steps, shape.dim_per_head]
    for i, row in enumerate(rows):
        g.output(row, f"c{i}_new", FLOAT, row_shape)
