"""int8 in Mimi's decoder transformer too: per-frame work pocket-tts's own int8 leaves in fp32.

pocket-tts's `quantize=True` makes the flow LM's transformer int8 and leaves Mimi in fp32. But
Mimi, not the LM, is the slower of the two stages once the LM is int8 (`script/bench --profile`:
at `english` shapes Mimi's decoder takes 18.5 ms of CPU per frame against the LM's 14.6), and a
third of Mimi's time is its decoder transformer: eight fp32 matrix products over the 16 steps of
each frame. torch's dynamic int8 for those linear layers, the same backend pocket-tts uses for the
LM, took Mimi alone from 18.5 to 15.5 ms of CPU per frame, and the process's CPU per frame was
lower in three runs of four (`script/bench --tries` on a busy 2-core host; the wall-clock gain
there was within the noise). The audio moves by 5e-5 of its RMS level (under one 16-bit step),
against 6e-3 for pocket-tts's own int8.

It goes with int8 wherever int8 is chosen (`tuning`), so the per-host comparison of fp32 and
int8 measures it. Where torch has no int8 engine the decoder stays fp32 and the log says so.
Mimi's encoder (voice prompts) is untouched: voice states do not change.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)

INT8_ENGINES = ("x86", "fbgemm", "qnnpack", "onednn")
"""torch's quantized engines with dynamic int8 linear layers on CPU."""


def int8_engine_available() -> bool:
    """True if torch here can run dynamic int8 linear layers."""
    import torch

    return any(engine in torch.backends.quantized.supported_engines for engine in INT8_ENGINES)


def quantize_mimi_decoder(model: TTSModel) -> bool:
    """Swap Mimi's decoder transformer for a dynamic-int8 copy (its linear layers); True if done.

    The copy replaces the module only once it is complete, so a failure leaves the model fp32.
    """
    import torch
    from torch.ao.quantization import quantize_dynamic

    if not int8_engine_available():
        _LOGGER.info("Mimi's decoder stays fp32: this torch has no int8 engine")
        return False
    if torch.backends.quantized.engine == "none":
        torch.backends.quantized.engine = next(
            e for e in INT8_ENGINES if e in torch.backends.quantized.supported_engines
        )
    try:
        quantized = quantize_dynamic(
            model.mimi.decoder_transformer, {torch.nn.Linear}, dtype=torch.qint8, inplace=False
        )
    except (RuntimeError, AssertionError, AttributeError) as error:
        _LOGGER.warning("Mimi's decoder stays fp32: int8 failed (%s)", error)
        return False
    model.mimi.decoder_transformer = quantized
    return True


def is_mimi_decoder_int8(model: TTSModel) -> bool:
    """True if Mimi's decoder transformer runs dynamic int8 linear layers."""
    return any(
        "quantized" in type(module).__module__
        for module in model.mimi.decoder_transformer.modules()
    )
