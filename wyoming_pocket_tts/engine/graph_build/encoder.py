"""Mimi's encoder as one graph (`voice.onnx`): a voice prompt's audio to the flow LM's prompt.

What pocket-tts's `get_state_for_audio_prompt` computes from the audio it has read, resampled
to the model's rate, mono, and ended on a pause (`end_on_pause`): the audio padded to whole
frames (`pad_for_conv1d`), Mimi's SEANet encoder, its encoder transformer (stateless: causal
within `context`) and its downsampling to the frame rate (`encode_to_latent`), the speaker
projection (`_encode_audio`), and `bos_before_voice` first where the config inserts it. Its
output runs through the LM's graph as any prompt (`embeddings`), which fills the voice state's
caches. Input: `audio` (1, 1, samples; any number); output: `prompt` (1, frames, dim).
Attention runs over the whole prompt at once: its scores take steps² floats per head (steps at
the encoder's rate, 200 per second at `english` shapes).
"""

from __future__ import annotations

from pathlib import Path

from .checkpoint import Checkpoint
from .config import ModelConfig
from .convs import Conv, conv1d, projected, residual_convs, walk_seanet
from .ops import FLOAT, Graph, write_graph

VOICE = "voice.onnx"
"""The encoder's graph in the folder (written where the weights clone voices)."""


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


def _stateless(g: Graph, ck: Checkpoint, x: str, conv: Conv, replicate: bool) -> str:
    """A streaming convolution run once from its initial state: its kept steps are zeros, or
    (`replicate`, pocket-tts's first call) copies of the first step, before `x`."""
    held = conv.state[2]
    if held:
        pads = g.ints(0, 0, held, 0, 0, 0)
        x = g.node("Pad", [x, pads], mode="edge" if replicate else "constant")
    return conv1d(g, ck, x, conv)


def build_encoder(ck: Checkpoint, config: ModelConfig, path: Path) -> None:
    """Write Mimi's encoder graph to `path` (its weights beside it)."""
    write_graph(path, "voice_prompt", lambda g: _encoder(g, ck, config))


def _encoder(g: Graph, ck: Checkpoint, config: ModelConfig) -> None:
    if config.encoder.pad_mode not in ("constant", "replicate"):
        raise ValueError(f"Mimi's encoder pads by {config.encoder.pad_mode!r}: not built")
    audio = g.input("audio", FLOAT, [1, config.encoder.channels, "samples"])
    frame = round(config.sample_rate / config.frame_rate)
    length = g.node("Shape", [audio], start=2, end=3)
    extra = g.node("Mod", [g.node("Neg", [length]), g.ints(frame)], fmod=0)
    x = g.node("Pad", [audio, g.node("Concat", [g.ints(0, 0, 0, 0, 0), extra], axis=0)])
    replicate = config.encoder.pad_mode == "replicate"
    x = walk_seanet(g, x, encoder_convs(config), lambda x, c: _stateless(g, ck, x, c, replicate))
    shape = config.encoder_transformer
    dims = (config.encoder_input, config.encoder_outputs[0])
    offset = g.ints(0)
    x = projected(g, ck, x, "mimi.encoder_transformer", shape, dims, offset, None, [])
    width = config.encoder.dimension
    if config.encoder_frame_rate != config.frame_rate:
        stride = config.mimi_steps_per_latent
        width = config.inner_dim or width
        down = Conv(
            "downsample.conv",
            False,
            config.encoder.dimension,
            width,
            2 * stride,
            stride,
            bias=False,
        )
        x = _stateless(g, ck, x, down, replicate=True)
    latents = g.node("Transpose", [x], perm=[0, 2, 1])
    dim = config.flow.d_model
    speaker = ck.tensor("flow_lm.speaker_proj_weight", (dim, width))
    prompt = g.node("MatMul", [latents, g.weight(speaker.T, "flow_lm.speaker_proj_weight")])
    if config.bos_before_voice:
        bos = ck.tensor("flow_lm.bos_before_voice", (1, 1, dim))
        prompt = g.node("Concat", [g.weight(bos, "flow_lm.bos_before_voice"), prompt], axis=1)
    g.output(prompt, "prompt", FLOAT, [1, "frames", dim])
