"""What Mimi's encoder and decoder graphs share: a convolution's description and weights, the
SEANet's walk (ELU before each convolution but the first, residual blocks), and the projected
transformer between SEANet and the latents (`ProjectedTransformer`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .checkpoint import Checkpoint
from .config import SEANetShape, TransformerShape
from .layers import linear
from .ops import FLOAT, Graph
from .transformer import transformer


@dataclass(frozen=True)
class Conv:
    """One streaming convolution of Mimi, as pocket-tts names its module and its state."""

    name: str
    """The module's name in Mimi (`decoder.model.3.block.1`); weights under `mimi.<name>.conv`
    (`.convtr` if transposed)."""
    transposed: bool
    c_in: int
    c_out: int
    kernel: int
    stride: int = 1
    dilation: int = 1
    groups: int = 1
    bias: bool = True

    @property
    def key(self) -> str:
        return "partial" if self.transposed else "previous"

    @property
    def state(self) -> tuple[int, int, int]:
        """Its state's shape (empty for a kernel-1 convolution: no input of the graph)."""
        if self.transposed:
            return (1, self.c_out, self.kernel - self.stride)
        return (1, self.c_in, (self.kernel - 1) * self.dilation + 1 - self.stride)


def residual_convs(side: str, index: int, width: int, seanet: SEANetShape) -> list[Conv]:
    """The convolutions of the residual blocks `<side>.model.<index>` on (`SEANetResnetBlock`:
    a kernel of `residual_kernel_size`, dilated, then a kernel of 1)."""
    hidden = width // seanet.compress
    convs = []
    for j in range(seanet.n_residual_layers):
        block = f"{side}.model.{index + j}.block"
        dilation = seanet.dilation_base**j
        kernel = seanet.residual_kernel_size
        convs.append(Conv(f"{block}.1", False, width, hidden, kernel, dilation=dilation))
        convs.append(Conv(f"{block}.3", False, hidden, width, 1))
    return convs


def conv_weights(g: Graph, ck: Checkpoint, conv: Conv) -> list[str]:
    """The convolution's weight, and its bias if it has one."""
    name = f"mimi.{conv.name}.{'convtr' if conv.transposed else 'conv'}"
    per_group = (conv.c_out if conv.transposed else conv.c_in) // conv.groups
    shape = (conv.c_in if conv.transposed else conv.c_out, per_group, conv.kernel)
    weights = [g.weight(ck.tensor(f"{name}.weight", shape), f"{name}.weight")]
    if conv.bias:
        weights.append(g.weight(ck.tensor(f"{name}.bias", (conv.c_out,)), f"{name}.bias"))
    return weights


def conv1d(g: Graph, ck: Checkpoint, x: str, conv: Conv) -> str:
    """The (not transposed) convolution on `x` as it is (its kept steps already before it)."""
    return g.node(
        "Conv",
        [x, *conv_weights(g, ck, conv)],
        strides=[conv.stride],
        dilations=[conv.dilation],
        group=conv.groups,
    )


class States:
    """A step graph's convolution state inputs `s0`, `s1`, … and outputs `s0_out`, …, by
    module name: one per convolution of `convs` that keeps steps, in that order."""

    def __init__(self, g: Graph, convs: list[Conv]) -> None:
        self.g = g
        kept = [conv for conv in convs if conv.state[2] > 0]
        self.index = {conv.name: i for i, conv in enumerate(kept)}
        self.shapes = {conv.name: conv.state for conv in kept}
        self.inputs = {
            name: g.input(f"s{i}", FLOAT, self.shapes[name]) for name, i in self.index.items()
        }
        self.outputs: dict[str, str] = {}

    def write(self) -> None:
        for name, i in self.index.items():
            self.g.output(self.outputs[name], f"s{i}_out", FLOAT, self.shapes[name])


def streaming_conv(g: Graph, ck: Checkpoint, x: str, conv: Conv, states: States, steps: int) -> str:
    """One streaming convolution on `x` (1, c_in, steps); its next state into `states`."""
    held = conv.state[2]
    if conv.transposed:
        inputs = conv_weights(g, ck, conv)
        bias = inputs[1] if conv.bias else None
        y = g.node("ConvTranspose", [x, *inputs], strides=[conv.stride], group=conv.groups)
        length = (steps - 1) * conv.stride + conv.kernel
        if not held:
            return y
        if length - held < held:
            raise ValueError(f"{conv.name}: a step shorter than its overlap is not built")
        head = g.node(
            "Add",
            [g.node("Slice", [y, g.ints(0), g.ints(held), g.ints(2)]), states.inputs[conv.name]],
        )
        tail = g.node("Slice", [y, g.ints(length - held), g.ints(length), g.ints(2)])
        if bias:
            tail = g.node("Sub", [tail, g.node("Unsqueeze", [bias, g.ints(1)])])
        states.outputs[conv.name] = tail
        if length - 2 * held == 0:
            return head
        middle = g.node("Slice", [y, g.ints(held), g.ints(length - held), g.ints(2)])
        return g.node("Concat", [head, middle], axis=2)
    if steps % conv.stride:
        raise ValueError(f"{conv.name}: {steps} steps are no multiple of its stride")
    if held:
        x = g.node("Concat", [states.inputs[conv.name], x], axis=2)
        total = held + steps
        states.outputs[conv.name] = g.node(
            "Slice", [x, g.ints(total - held), g.ints(total), g.ints(2)]
        )
    return conv1d(g, ck, x, conv)


def walk_seanet(g: Graph, x: str, convs: list[Conv], run: Callable[[str, Conv], str]) -> str:
    """`SEANetEncoder` or `SEANetDecoder` on `x`, each convolution `run` (the first on `x`, each
    other after an ELU; `.block.1` and `.block.3` a residual block's two)."""
    residual = x
    for index, conv in enumerate(convs):
        if conv.name.endswith(".block.1"):
            residual = x
        x = run(x if index == 0 else g.node("Elu", [x], alpha=1.0), conv)
        if conv.name.endswith(".block.3"):
            x = g.node("Add", [residual, x])
    return x


def projected(
    g: Graph,
    ck: Checkpoint,
    x: str,
    name: str,
    shape: TransformerShape,
    dims: tuple[int, int],
    offset: str,
    caches: list[str],
    rows: list[str],
) -> str:
    """`ProjectedTransformer` `name` on `x` (1, channels, steps), with its input and output
    projections where `dims` (input, output) differ from its width; its K and V rows are
    appended to `rows`."""
    x = g.node("Transpose", [x], perm=[0, 2, 1])
    if shape.d_model != dims[0]:
        x = linear(g, ck, x, f"{name}.input_proj", (shape.d_model, dims[0]))
    x, new = transformer(g, ck, x, f"{name}.transformer", shape, offset, caches)
    rows += new
    if dims[1] != shape.d_model:
        x = linear(g, ck, x, f"{name}.output_projs.0", (dims[1], shape.d_model))
    return g.node("Transpose", [x], perm=[0, 2, 1])
