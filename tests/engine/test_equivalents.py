"""The faster equivalents (`engine.equivalents`): the same audio as pocket-tts's own modules,
each taking its faster route only where it applies, and given to every model the server loads.

The audio is compared as in `test_speedups`: the same random-weight model sampled at
temperature 0, so two runs agree exactly and any difference is the change's.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path

import pytest
import torch

from testkit.model_factory import TinyModel, build_tiny_model
from testkit.support import short_timing
from wyoming_pocket_tts.engine.model.equivalents import (
    GEMM_MAX_VALUES,
    MatmulConvTranspose1d,
    RememberedTimeEmbedding,
    remember_time_embeddings,
    use_equivalents,
)
from wyoming_pocket_tts.engine.tuning.tuned import load_tuned_model
from wyoming_pocket_tts.settings import ModelSettings

from .test_int8 import relative_difference, speak

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def lsd_model(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    """The default model's shapes with one transformer layer each: its flow head decodes by
    LSD, with the time embeddings the test models (pointwise heads) do not have."""
    return build_tiny_model(tmp_path_factory.mktemp("lsd-model"), size="lsd", eos=False)


@pytest.mark.parametrize("quantize", [False, True], ids=["fp32", "int8"])
def test_the_equivalents_keep_the_audio(lsd_model: TinyModel, quantize: bool) -> None:
    model = lsd_model.load(quantize=quantize)
    faster = copy.deepcopy(model)
    given = use_equivalents(faster)
    assert given == ["time embeddings kept", "small transposed convolutions as a matrix product"]
    reference = speak(model)
    # Derived: the same products summed in another order (a matrix product for the transposed
    # convolution), about 17 float32 epsilons; nothing feeds Mimi's audio back into the LM.
    # Measured 0.7e-7 to 1.3e-7 on 7 torch kernel paths (docs/development.md).
    assert relative_difference(speak(faster), reference) < 1e-6
    assert relative_difference(speak(faster), reference) < 1e-6  # kept embeddings, reused


@pytest.mark.parametrize(
    ("channels", "steps", "out", "kernel", "stride", "bias", "by_matmul"),
    [
        (512, 16, 256, 12, 6, True, True),  # Mimi's first upsampling layer, one frame
        (512, 32, 256, 12, 6, True, True),  # ...two frames decoded in one call
        (16, 5, 8, 4, 2, False, True),
        (512, GEMM_MAX_VALUES // 512, 8, 4, 2, True, True),  # the largest by matmul
        (256, 96, 128, 10, 5, True, False),  # above GEMM_MAX_VALUES: torch's oneDNN path
    ],
)
def test_a_transposed_convolution_by_matmul_equals_torchs(
    channels: int, steps: int, out: int, kernel: int, stride: int, bias: bool, by_matmul: bool
) -> None:
    torch.manual_seed(0)
    reference = torch.nn.ConvTranspose1d(channels, out, kernel, stride, bias=bias)
    faster = copy.deepcopy(reference)
    faster.__class__ = MatmulConvTranspose1d
    signal = torch.randn(1, channels, steps)
    assert faster._by_matmul(signal, None) is by_matmul
    assert (channels * steps <= GEMM_MAX_VALUES) is by_matmul
    with torch.no_grad():
        expected, got = reference(signal), faster(signal)
    assert got.shape == expected.shape
    assert torch.allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("groups", "batch", "padding"), [(2, 1, 0), (1, 2, 0), (1, 1, 1)], ids=str)
def test_other_transposed_convolutions_take_torchs_own_route(
    groups: int, batch: int, padding: int
) -> None:
    torch.manual_seed(0)
    reference = torch.nn.ConvTranspose1d(8, 4, 4, 2, groups=groups, padding=padding)
    faster = copy.deepcopy(reference)
    faster.__class__ = MatmulConvTranspose1d
    signal = torch.randn(batch, 8, 6)
    assert not faster._by_matmul(signal, None)
    with torch.no_grad():
        assert torch.equal(faster(signal), reference(signal))


def test_each_time_embedding_is_computed_once(lsd_model: TinyModel) -> None:
    model = lsd_model.load()
    use_equivalents(model)
    embedders = list(model.flow_lm.flow_net.time_embed)
    assert embedders and all(isinstance(e, RememberedTimeEmbedding) for e in embedders)
    computed: list[int] = []
    for number, embedder in enumerate(embedders):  # the MLP runs only when it computes
        embedder.mlp.register_forward_hook(lambda *_, n=number: computed.append(n))
    speak(model)  # FRAMES frames, each embedding both times
    assert sorted(computed) == list(range(len(embedders))), computed
    # A time not seen yet is computed, as pocket-tts's own embedder computes it.
    unchanged = lsd_model.load().flow_lm.flow_net.time_embed[0]
    with torch.no_grad():
        half = torch.full((1, 1), 0.5)
        assert torch.equal(embedders[0](half), unchanged(half))
    assert computed.count(0) == 2


def test_only_a_few_time_embeddings_are_kept(lsd_model: TinyModel) -> None:
    flow_net = lsd_model.load().flow_lm.flow_net
    unchanged = copy.deepcopy(flow_net.time_embed[1])
    assert remember_time_embeddings(flow_net) == 2
    embedder = flow_net.time_embed[1]
    assert isinstance(embedder, RememberedTimeEmbedding)
    with torch.no_grad():
        for step in range(RememberedTimeEmbedding.KEPT + 3):
            time = torch.full((1, 1), step / 100)
            assert torch.equal(embedder(time), unchanged(time))
    assert len(embedder.kept) == RememberedTimeEmbedding.KEPT


def test_every_loaded_model_gets_the_equivalents(
    lsd_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="wyoming_pocket_tts.engine.model.loading")
    for quantize in (True, False):
        settings = ModelSettings(
            runtime="torch", model=None, config=str(lsd_model.config_path), quantize=quantize
        )
        with short_timing(3, rounds=1):
            model = load_tuned_model(settings, tmp_path)[0].model
        assert isinstance(model.flow_lm.flow_net.time_embed[0], RememberedTimeEmbedding)
        assert any(isinstance(m, MatmulConvTranspose1d) for m in model.mimi.modules())
    assert caplog.text.count("time embeddings kept, small transposed convolutions") == 2
