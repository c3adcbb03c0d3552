"""Mimi's KV caches without the NaN fill (`engine.mimi_cache`): the same audio bit for bit, the
same state as pocket-tts's own but for the unread slots, and a state of its own per generation.

The audio is compared on the same random-weight model sampled at temperature 0 (the model
factory's), so two runs agree exactly and any difference is the change's.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from pocket_tts import TTSModel
from pocket_tts.modules.attention import StreamingMultiheadAttention
from pocket_tts.modules.stateful_module import init_states

from testkit.model_factory import TinyModel
from testkit.support import short_timing
from wyoming_pocket_tts.engine.model.mimi_cache import UnfilledKVCache, skip_mimi_cache_fill
from wyoming_pocket_tts.engine.model.runtime import TorchRuntime
from wyoming_pocket_tts.engine.tuning.timing import LONG_TEXT, SHORT_TEXT
from wyoming_pocket_tts.engine.tuning.tuned import load_tuned_model
from wyoming_pocket_tts.settings import ModelSettings

from .test_int8 import speak

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CHUNKS = 12
"""Chunks taken of each generation in the interleaving tests (one frame each)."""


@pytest.fixture(scope="module", params=[False, True], ids=["fp32", "int8"])
def models(request: pytest.FixtureRequest, endless_model: TinyModel) -> tuple[TTSModel, TTSModel]:
    """pocket-tts's model as loaded by the server's `--quantize off|on` (Mimi's decoder in int8
    too), and a copy of it with pocket-tts's own caches. Both decode frame by frame: by default
    pocket-tts decodes every latent queued at once, and how many are queued depends on timing
    (the sums then round differently, by about 1e-7), which a bit-for-bit test cannot have."""
    settings = ModelSettings(
        model=None, runtime="torch", config=str(endless_model.config_path), quantize=request.param
    )
    with short_timing(2):
        served = load_tuned_model(settings, None)[0].model
    assert all(type(m) is UnfilledKVCache for m in _attention(served.mimi))
    reference = copy.deepcopy(served)
    for layer in _attention(reference.mimi):
        layer.__class__ = StreamingMultiheadAttention
    served.max_decoder_frames_per_call = reference.max_decoder_frames_per_call = 1
    return reference, served


def _attention(module: torch.nn.Module) -> list[torch.nn.Module]:
    return [m for m in module.modules() if isinstance(m, StreamingMultiheadAttention)]


def test_the_audio_is_the_same_bit_for_bit(models: tuple[TTSModel, TTSModel]) -> None:
    reference, unfilled = models
    expected = speak(reference)
    assert np.array_equal(speak(unfilled), expected)
    assert np.array_equal(speak(unfilled), expected)  # a second generation: a fresh state again


def test_the_state_is_pocket_tts_own_but_for_the_unread_slots(
    models: tuple[TTSModel, TTSModel],
) -> None:
    reference, unfilled = models
    own = init_states(reference.mimi, batch_size=1, sequence_length=320)
    ours = init_states(unfilled.mimi, batch_size=1, sequence_length=320)
    assert list(ours) == list(own) and any("cache" in state for state in own.values())
    for name, state in own.items():
        assert list(ours[name]) == list(state)
        for key, tensor in state.items():
            mine = ours[name][key]
            assert (mine.shape, mine.dtype) == (tensor.shape, tensor.dtype)
            if key == "cache":
                assert torch.isnan(tensor).all()  # pocket-tts's guard, which is never read
            else:
                assert torch.equal(mine, tensor)


def test_each_generation_gets_a_state_of_its_own(models: tuple[TTSModel, TTSModel]) -> None:
    _, unfilled = models
    first = init_states(unfilled.mimi, batch_size=1, sequence_length=16)
    second = init_states(unfilled.mimi, batch_size=1, sequence_length=16)
    for name, state in first.items():
        for key, tensor in state.items():
            assert tensor.data_ptr() != second[name][key].data_ptr() or tensor.numel() == 0


def _chunks(model: TTSModel, voice: dict, text: str) -> Iterator[np.ndarray]:
    stop = threading.Event()
    stream = model.generate_audio_stream(voice, text, stop=stop)
    try:
        for _, audio in zip(range(CHUNKS), stream, strict=False):
            yield audio.numpy().copy()
    finally:
        stop.set()
        for _ in stream:
            pass


def _alone(model: TTSModel, voice: dict, text: str) -> np.ndarray:
    return np.concatenate(list(_chunks(model, voice, text)))


def test_requests_in_a_row_and_interleaved_share_no_state(
    models: tuple[TTSModel, TTSModel], voices: dict[str, Path]
) -> None:
    """Three generations at once, chunk by chunk, each equal to the same request alone: two
    voices speaking the same text (Mimi's caches of the same length), and another text; and
    the same request twice in a row."""
    reference, unfilled = models
    states = {name: reference.get_state_for_audio_prompt(path) for name, path in voices.items()}
    requests = [
        (states["a"], SHORT_TEXT),
        (states["b"], SHORT_TEXT),
        (TorchRuntime(reference, False).empty_state(), LONG_TEXT),
    ]
    alone = [_alone(reference, voice, text) for voice, text in requests]
    assert not np.array_equal(alone[0][:1920], alone[1][:1920])
    assert np.array_equal(_alone(unfilled, *requests[0]), alone[0])
    assert np.array_equal(_alone(unfilled, *requests[0]), alone[0])
    streams = {number: _chunks(unfilled, *request) for number, request in enumerate(requests)}
    heard: dict[int, list[np.ndarray]] = {number: [] for number in streams}
    while streams:
        for number, stream in list(streams.items()):
            audio = next(stream, None)
            if audio is None:
                del streams[number]
            else:
                heard[number].append(audio)
    for number, expected in enumerate(alone):
        assert np.array_equal(np.concatenate(heard[number]), expected), requests[number][1]


def test_every_model_the_server_loads_skips_the_fill(
    endless_model: TinyModel, tmp_path: Path
) -> None:
    """`--quantize auto` compares an int8 copy of the fp32 model: whichever it keeps, and a
    model loaded with a saved decision, has the unfilled caches."""
    settings = ModelSettings(
        runtime="torch", model=None, config=str(endless_model.config_path), quantize=None
    )
    for _ in range(2):  # measured, then from the saved decision
        with short_timing(2, rounds=1):
            model = load_tuned_model(settings, tmp_path)[0].model
        layers = _attention(model.mimi)
        assert layers and all(type(m) is UnfilledKVCache for m in layers)
        assert all(type(m) is StreamingMultiheadAttention for m in _attention(model.flow_lm))


def test_the_layers_are_given_once(endless_model: TinyModel) -> None:
    model = endless_model.load()
    assert skip_mimi_cache_fill(model) == len(_attention(model.mimi)) > 0
    assert skip_mimi_cache_fill(model) == 0  # already given
