"""Faster modules that compute what pocket-tts's do: given to them as their class at load.

Unlike int8 (`model.int8`), these keep the audio: each makes one kind of pocket-tts's torch modules
do the same sums by a faster route, or a constant's once, its weights and attributes kept. Here
the audio is the same bit for bit (`tests/engine/test_equivalents.py`); another BLAS may round the
matrix product differently. They apply to fp32 and int8 alike, found by `script/bench --profile`
at `english` shapes: the flow head's two time embeddings (a constant per frame), and Mimi's
first upsampling layer on torch's reference kernel. Measured alone on one thread (5 rounds),
Mimi per frame went 13.75 -> 13.55 ms with int8 and 17.3 -> 16.8 ms in fp32; served (8 rounds),
the process's CPU per frame 3-4% lower in the median. Imported only with torch, at model load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch.nn import functional as F

if TYPE_CHECKING:
    from pocket_tts import TTSModel

GEMM_MAX_VALUES = 20480
"""Largest input (channels x steps) given to `MatmulConvTranspose1d`'s matrix product. At or
below it torch runs a transposed convolution on its reference kernel (the profile shows
`slow_conv_transpose2d` for Mimi's 512 x 16 input, oneDNN for 256 x 96); above it oneDNN is as
fast as the product (measured per layer at `english` shapes)."""


class MatmulConvTranspose1d(torch.nn.ConvTranspose1d):
    """A transposed 1-D convolution computed, for a small input, as one matrix product and an
    overlap-add (`fold`): what torch's reference kernel does, with the product laid out the way
    BLAS runs fastest (the input transposed, not the weights).

    In Mimi's first upsampling layer (512 channels, 16 steps per frame, kernel 12, stride 6) the
    product took 2.1 ms per frame inside torch's kernel and 1.25 ms this way, on one thread. Any
    other case (groups, padding, dilation, a batch, a larger input) runs torch's own.
    """

    def forward(self, input: torch.Tensor, output_size: list[int] | None = None) -> torch.Tensor:
        if not self._by_matmul(input, output_size):
            return super().forward(input, output_size)
        channels, steps = input.shape[1], input.shape[2]
        kernel, stride = self.kernel_size[0], self.stride[0]
        columns = (input[0].t() @ self.weight.reshape(channels, -1)).t()  # (out x kernel, steps)
        length = (steps - 1) * stride + kernel
        output = F.fold(
            columns.unsqueeze(0),
            output_size=(1, length),
            kernel_size=(1, kernel),
            stride=(1, stride),
        ).view(1, self.out_channels, length)
        if self.bias is not None:
            output += self.bias[:, None]
        return output

    def _by_matmul(self, input: torch.Tensor, output_size: list[int] | None) -> bool:
        return (
            output_size is None
            and self.groups == 1
            and self.padding == (0,)
            and self.output_padding == (0,)
            and self.dilation == (1,)
            and input.dim() == 3
            and input.shape[0] == 1
            and input.shape[1] * input.shape[2] <= GEMM_MAX_VALUES
        )


class RememberedTimeEmbedding(torch.nn.Module):
    """A flow-head time embedder that computes each time value's embedding once.

    pocket-tts's flow head embeds the same two times (0 and 1, with one decoding step) at every
    frame: two small MLPs and a dozen ops per frame for a constant. The first result per value
    is kept; the embedder's weights never change after load, so the output is the same tensor.
    Given to pocket-tts's embedder as its class (`remember_time_embeddings`), which stays the
    one that computes.
    """

    KEPT = 16
    """Most distinct time values kept (a decode takes `steps + 1`); others are computed."""
    computed_by: type[torch.nn.Module]
    kept: dict[tuple[tuple[int, ...], torch.dtype, bytes], torch.Tensor]

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        key = (tuple(t.shape), t.dtype, t.detach().numpy().tobytes())
        embedding = self.kept.get(key)
        if embedding is None:
            embedding = self._compute(t)
            if len(self.kept) < self.KEPT:
                self.kept[key] = embedding
        return embedding

    def _compute(self, t: torch.Tensor) -> torch.Tensor:
        output: torch.Tensor = self.computed_by.forward(self, t)
        return output


def use_equivalents(model: TTSModel) -> list[str]:
    """Give a loaded model (fp32 or int8) the equivalents here; what was given, in words."""
    applied = []
    flow_net = model.flow_lm.flow_net
    if remember_time_embeddings(flow_net):
        applied.append("time embeddings kept")
    convolutions = [m for m in model.mimi.modules() if type(m) is torch.nn.ConvTranspose1d]
    for convolution in convolutions:
        convolution.__class__ = MatmulConvTranspose1d
    if convolutions:
        applied.append("small transposed convolutions as a matrix product")
    return applied


def remember_time_embeddings(flow_net: torch.nn.Module) -> int:
    """Make each of the flow head's time embedders a `RememberedTimeEmbedding`; how many."""
    embedders = getattr(flow_net, "time_embed", None)
    if not isinstance(embedders, torch.nn.ModuleList):
        return 0
    for embedder in embedders:
        if not isinstance(embedder, RememberedTimeEmbedding):
            object.__setattr__(embedder, "computed_by", type(embedder))
            object.__setattr__(embedder, "kept", {})
            embedder.__class__ = RememberedTimeEmbedding
    return len(embedders)
