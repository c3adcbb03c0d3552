"""The graphs' own generation loop (`onnx.loop.GraphSpeech`): pocket-tts's audio without torch.

The module exports the endless model's graphs once, in this process (`graphs`, a fixture of
`tests/engine/conftest.py`, about 25 s here beside other runs; int8 quantised from them), and
reads them with the loop, which uses numpy and ONNX Runtime only. Its audio is compared with
pocket-tts's own `generate_audio_stream` on the same weights, with the same noise: the test
hands the loop a noise source that draws as pocket-tts does, from torch's generator seeded alike
(`torch_noise`), so temperature 0.7 gives sample-for-sample the same audio. The slim model is
the endless one with end of speech on: the same weights (checked), so the same graphs with the
slim config's EOS threshold in `speech.json` (`with_eos`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from pocket_tts import TTSModel
from pocket_tts.models.text_chunking import split_into_best_sentences as pocket_split
from pocket_tts.modules.text_conditioner import JsonTokenizer

from testkit.model_factory import SAMPLES_PER_FRAME, TinyModel, cached_tokenizer, expected_frames
from wyoming_pocket_tts.engine.onnx.graphs import Graphs
from wyoming_pocket_tts.engine.onnx.loop import GraphSpeech, numpy_noise
from wyoming_pocket_tts.engine.onnx.text_prompt import Tokenizer, split_into_best_sentences
from wyoming_pocket_tts.engine.onnx.voice_arrays import LM_SLOTS, CacheFull
from wyoming_pocket_tts.engine.runtime import generation, samples
from wyoming_pocket_tts.engine.tuning.timing import LONG_TEXT
from wyoming_pocket_tts.engine.voice_states.state_file import read_state, write_state

pytestmark = [pytest.mark.usefixtures("one_torch_thread"), pytest.mark.timeout(300)]

FRAMES = 30
"""Frames compared of the endless model's `LONG_TEXT` (2.4 s of audio)."""
TEMPERATURE = 0.7
"""The test models sample at 0; the comparisons at this, so the noise matters."""
FP32_TOLERANCE = 1e-5
"""Largest RMS difference of the loop's audio (fp32 graphs) from pocket-tts's, relative to
pocket-tts's RMS. Measured: 6.3e-7 (the graphs' sums in another order, as the graph runtime's)."""
INT8_TOLERANCE = 0.03
"""The same for int8 graphs against pocket-tts fp32. Measured here: 1.3e-4 with a voice prompt
and noise (test_onnx_runtime bounds int8 by torch's own int8 change on this host instead)."""
TEXTS = [
    "Turn on the lights.",
    "it is 3.5 degrees; the window's open",
    "Hi",
    '"Hello?", she said. Then: nothing at all, really - and then it went on, on and on, '
    "through the morning, the evening and the night; until the timer stopped, at 7.25.",
]


@pytest.fixture(scope="module")
def with_eos(
    graphs: Path,
    endless_model: TinyModel,
    slim_model: TinyModel,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """`graphs` as the slim model's export: its weights are the endless model's (checked), its
    config differs in the EOS threshold only, which the export writes into `speech.json`."""
    assert slim_model.weights_path.read_bytes() == endless_model.weights_path.read_bytes()
    folder = tmp_path_factory.mktemp("loop-eos") / "graphs"
    shutil.copytree(graphs, folder)
    speech = json.loads((folder / "speech.json").read_text())
    speech["eos_threshold"] = slim_model.load().eos_threshold
    (folder / "speech.json").write_text(json.dumps(speech))
    return folder


def torch_noise(shape: tuple[int, ...], temperature: float, clamp: float | None) -> np.ndarray:
    """pocket-tts's draw (`FlowLMModel.forward`), from torch's generator."""
    noise = torch.empty(shape)
    std = temperature**0.5
    if clamp is None:
        torch.nn.init.normal_(noise, mean=0.0, std=std)
    else:
        torch.nn.init.trunc_normal_(noise, mean=0.0, std=std, a=-clamp, b=clamp)
    return noise.numpy()


def loop_model(folder: Path, int8: bool = False) -> GraphSpeech:
    """The loop on `folder`'s graphs at `TEMPERATURE`, drawing its noise as pocket-tts does."""
    model = GraphSpeech(Graphs.read(folder), int8, 1, noise=torch_noise)
    model.settings = replace(model.settings, temperature=TEMPERATURE)
    return model


def speak(
    model: object, state: dict, text: str = LONG_TEXT, frames: int | None = FRAMES
) -> np.ndarray:
    """`model`'s streamed audio of `text` (seeded), stopped after `frames` frames if given."""
    stop = threading.Event()
    audio: list[np.ndarray] = []
    torch.manual_seed(41)
    for chunk in model.generate_audio_stream(state, text, stop=stop):  # type: ignore[attr-defined]
        audio.append(samples(chunk))
        if frames is not None and sum(a.size for a in audio) >= frames * SAMPLES_PER_FRAME:
            stop.set()
    whole = np.concatenate(audio)
    return whole if frames is None else whole[: frames * SAMPLES_PER_FRAME]


def pocket(model: TinyModel) -> TTSModel:
    reference = model.load()
    reference.temp = TEMPERATURE
    return reference


def relative(got: np.ndarray, expected: np.ndarray) -> float:
    assert got.shape == expected.shape
    return float(np.sqrt(np.mean((got - expected) ** 2)) / np.sqrt(np.mean(expected**2)))


@pytest.mark.parametrize(("int8", "tolerance"), [(False, FP32_TOLERANCE), (True, INT8_TOLERANCE)])
def test_the_loop_speaks_as_pocket_tts(
    endless_model: TinyModel, graphs: Path, voice_file: Path, int8: bool, tolerance: float
) -> None:
    """A saved voice read with safetensors' numpy API, the same noise: pocket-tts's audio."""
    reference = pocket(endless_model)
    expected = speak(reference, reference.get_state_for_audio_prompt(voice_file))
    model = loop_model(graphs, int8)
    state = read_state(voice_file)
    got = speak(model, state)
    assert relative(got, expected) < tolerance
    if not int8:
        assert relative(got, expected) < FP32_TOLERANCE / 10
    model.noise = numpy_noise(np.random.default_rng(7))  # and the noise matters: its own draw
    assert relative(speak(model, state), expected) > 0.1


def test_a_voice_state_from_the_torch_runtime_in_memory_speaks_alike(
    endless_model: TinyModel, graphs: Path, voices: dict[str, Path]
) -> None:
    """A state as pocket-tts holds it in memory (torch tensors) serves the loop, and is left as
    it was."""
    reference = pocket(endless_model)
    state = reference.get_state_for_audio_prompt(voices["a"])
    before = {name: {k: v.clone() for k, v in entry.items()} for name, entry in state.items()}
    model = loop_model(graphs)
    first = speak(model, state, frames=8)
    assert relative(first, speak(reference, state, frames=8)) < FP32_TOLERANCE
    for name, entry in state.items():
        for key, tensor in entry.items():
            assert torch.equal(tensor, before[name][key]), (name, key)
    assert np.array_equal(speak(model, state, frames=8), first)


@pytest.mark.parametrize("text", [TEXTS[0], TEXTS[2], TEXTS[3]])
def test_end_of_speech_and_the_frames_after_it(
    slim_model: TinyModel, with_eos: Path, voice_file: Path, text: str
) -> None:
    """With end of speech (the slim model's EOS after frame 6), whole replies: as many frames as
    pocket-tts speaks (its frames after EOS: 3 + 2 for up to four words, else 1 + 2; a text of
    two chunks, each), and the same audio."""
    reference = pocket(slim_model)
    expected = speak(reference, reference.get_state_for_audio_prompt(voice_file), text, None)
    assert expected.size == expected_frames(reference, text) * SAMPLES_PER_FRAME
    model = loop_model(with_eos)
    got = speak(model, read_state(voice_file), text, None)
    assert got.size == expected.size
    assert relative(got, expected) < FP32_TOLERANCE


@pytest.mark.parametrize("after", [0, 4])
def test_the_frames_after_eos_the_model_recommends(
    slim_model: TinyModel, with_eos: Path, voice_file: Path, tmp_path: Path, after: int
) -> None:
    """A config's `model_recommended_frames_after_eos` (in `speech.json`) replaces the guess,
    as in pocket-tts."""
    reference = pocket(slim_model)
    reference.model_recommended_frames_after_eos = after
    state = reference.get_state_for_audio_prompt(voice_file)
    expected = speak(reference, state, TEXTS[0], None)
    assert expected.size == (6 + after) * SAMPLES_PER_FRAME
    folder = tmp_path / "graphs"
    shutil.copytree(with_eos, folder)
    speech = json.loads((folder / "speech.json").read_text())
    speech["frames_after_eos"] = after
    (folder / "speech.json").write_text(json.dumps(speech))
    model = loop_model(folder)
    got = speak(model, read_state(voice_file), TEXTS[0], None)
    assert got.size == expected.size
    assert relative(got, expected) < FP32_TOLERANCE


def counted_runs(model: GraphSpeech) -> list[int]:
    """Grows by one for each run of `model`'s LM graph (the prompt's and every frame's)."""
    runs: list[int] = []
    run = model.lm.run

    def counted(*args: object) -> object:
        runs.append(1)
        return run(*args)  # type: ignore[arg-type]

    model.lm.run = counted  # type: ignore[method-assign]
    return runs


def lm_ran_ahead(runs: list[int], ran: int) -> None:
    """Until the LM has run 3 frames past `ran` (it runs ahead of Mimi, in its own thread), so
    that decoded frames are queued when the test stops the reply."""
    deadline = time.monotonic() + 30
    while len(runs) < ran + 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(runs) >= ran + 3


def test_a_stop_ends_the_reply_within_a_frame(graphs: Path) -> None:
    """`stop` set after the first chunk, with frames queued for Mimi: no more audio, the LM
    runs at most one more frame, and its thread is gone when the stream ends."""
    model = loop_model(graphs)
    runs = counted_runs(model)
    stop = threading.Event()
    after: list[int] = []
    with generation(model, model.empty_state(), LONG_TEXT, stop) as stream:
        for chunk in stream:
            if stop.is_set():
                after.append(chunk.size)
            else:
                lm_ran_ahead(runs, len(runs))
                stop.set()
                ran = len(runs)
    assert sum(after) <= SAMPLES_PER_FRAME
    assert len(runs) <= ran + 1
    assert not [t for t in threading.enumerate() if t.name == "graph-lm"]


def test_a_stream_left_early_stops_its_thread(graphs: Path) -> None:
    """A stream closed without `stop` (a caller's break): its LM thread ends within a frame."""
    model = loop_model(graphs)
    runs = counted_runs(model)
    stream = model.generate_audio_stream(model.empty_state(), LONG_TEXT)
    assert next(stream).size > 0
    ran = len(runs)
    stream.close()  # type: ignore[attr-defined]
    assert not [t for t in threading.enumerate() if t.name == "graph-lm"]
    assert len(runs) <= ran + 1


def test_the_first_frame_is_heard_before_the_lm_runs_on(graphs: Path) -> None:
    """The listener waits for the first frame: the LM's prompt run (with the first frame)
    comes first, then the LM waits until Mimi has decoded that frame, so the two do not share
    a busy host's cores at that moment (Mimi slowed here to make a race visible); from then
    on the LM runs ahead of Mimi."""
    model = loop_model(graphs)
    events: list[str] = []
    run, decode = model.lm.run, model.mimi.decode

    def recorded_run(caches: Any, offset: int, embeddings: np.ndarray, noise: Any) -> Any:
        events.append(f"lm {embeddings.shape[1]}")
        return run(caches, offset, embeddings, noise)

    def slow_decode(state: Any, latent: np.ndarray) -> np.ndarray:
        time.sleep(0.2)
        audio = decode(state, latent)
        events.append("decoded")
        return audio

    model.lm.run = recorded_run  # type: ignore[method-assign]
    model.mimi.decode = slow_decode  # type: ignore[method-assign]
    stop = threading.Event()
    with generation(model, model.empty_state(), LONG_TEXT, stop) as stream:
        for _ in islice(stream, 2):
            pass
        stop.set()
    first, *rest = events
    assert first.startswith("lm ") and int(first[3:]) > 1, events[:6]  # its text and frame 1
    assert rest[:2] == ["decoded", "lm 1"], events[:6]
    assert rest[1:3] == ["lm 1", "lm 1"], events[:6]  # then ahead of Mimi's second frame


def test_a_generation_past_the_cache_is_a_clear_error(graphs: Path) -> None:
    """A voice and text longer than the LM's cache (1,000 steps): `CacheFull` reaches the caller
    from the LM's thread, which is gone."""
    model = loop_model(graphs)
    heads, dim = model.lm.cache_shape
    slots = LM_SLOTS
    used = slots - 5  # the text's prompt alone does not fit
    cache = np.zeros((2, 1, used, heads, dim), np.float32)
    state = {n: {"offset": np.full(1, used), "cache": cache} for n in model.graphs.lm_names}
    with pytest.raises(CacheFull, match=f"holds {slots} steps"):
        list(model.generate_audio_stream(state, LONG_TEXT))
    assert not [t for t in threading.enumerate() if t.name == "graph-lm"]


def test_the_text_is_cut_and_read_as_pocket_tts_does(
    endless_model: TinyModel, graphs: Path
) -> None:
    """Its tokenizer file gives the conditioner's ids; its chunks are pocket-tts's; the saved
    table holds the conditioner's rows."""
    reference = endless_model.load()
    tokenizer = reference.flow_lm.conditioner.tokenizer
    model = loop_model(graphs)
    for text in TEXTS:
        for max_tokens in (50, 8):
            expected = pocket_split(
                tokenizer, text, max_tokens, reference.pad_with_spaces_for_short_inputs,
                reference.remove_semicolons, reference.append_terminal_punctuation,
                reference.capitalize_first_letter, reference.replace_characters,
            )  # fmt: skip
            got = split_into_best_sentences(model.tokenizer, text, max_tokens, model.settings.text)
            assert got == expected, (text, max_tokens)
        assert model.tokenizer.encode(text) == tokenizer.encode(text)
    ids = torch.tensor([model.tokenizer.encode(TEXTS[3])])
    with torch.no_grad():
        rows = reference.flow_lm.conditioner(ids)[0].numpy()
    assert np.array_equal(model.table[ids[0].numpy()], rows)


def test_a_tokenizers_json_reads_as_pocket_tts_does(
    shared_model_cache: Path, endless_model: TinyModel, graphs: Path, tmp_path: Path
) -> None:
    """The released configs' `tokenizer.json` (HuggingFace tokenizers), as the export copies
    it (`serialize`): the ids, the text back and the chunks of pocket-tts's `JsonTokenizer`."""
    source = cached_tokenizer(shared_model_cache, 4000, "tokenizers")
    theirs = JsonTokenizer(4000, str(source))
    kind, payload = theirs.serialize()
    assert kind == "tokenizers"
    (tmp_path / "tokenizer.json").write_bytes(payload)
    ours = Tokenizer(tmp_path / "tokenizer.json")
    settings = loop_model(graphs).settings.text
    reference = endless_model.load()
    for text in TEXTS:
        ids = theirs.encode(text)
        assert ours.encode(text) == ids and ours.decode(ids) == theirs.decode(ids)
        expected = pocket_split(
            theirs, text, 8, reference.pad_with_spaces_for_short_inputs,
            reference.remove_semicolons, reference.append_terminal_punctuation,
            reference.capitalize_first_letter, reference.replace_characters,
        )  # fmt: skip
        assert split_into_best_sentences(ours, text, 8, settings) == expected


def test_voice_states_are_written_as_pocket_tts_reads_them(
    endless_model: TinyModel, voice_file: Path, tmp_path: Path
) -> None:
    """A state written with safetensors' numpy API is the file pocket-tts wrote, to the tensor."""
    state = read_state(voice_file)
    write_state(state, tmp_path / "again.safetensors")
    reference = endless_model.load()
    back = reference.get_state_for_audio_prompt(tmp_path / "again.safetensors")
    original = reference.get_state_for_audio_prompt(voice_file)
    assert back.keys() == original.keys()
    for name, entry in original.items():
        for key, tensor in entry.items():
            assert torch.equal(back[name][key], tensor), (name, key)


def test_the_noise_rule(graphs: Path) -> None:
    """N(0, temperature), truncated at the clamp when there is one; none at temperature 0."""
    draw = numpy_noise(np.random.default_rng(3))
    free = draw((200, 500), 0.7, None)
    assert abs(float(free.std()) - 0.7**0.5) < 0.01 and abs(float(free.mean())) < 0.01
    clamped = draw((200, 500), 0.7, 0.5)
    assert float(np.abs(clamped).max()) <= 0.5 and float(np.abs(clamped).max()) > 0.49
    assert not draw((1, 32), 0.0, None).any()


def test_the_loop_runs_without_torch_or_pocket_tts(
    graphs: Path, voice_file: Path, tmp_path: Path
) -> None:
    """In a fresh process, the loop loads the graphs and a saved voice and speaks through the
    seam (`generation`), and neither torch nor pocket-tts was ever imported; a stream left open
    at exit lets the process end cleanly (a daemon LM thread inside ONNX Runtime aborted it).
    Its audio is the loop's here (the test models sample at 0: no noise to match)."""
    out = tmp_path / "audio.npy"
    script = (
        "import sys\n"
        "from itertools import islice\n"
        "from pathlib import Path\n"
        "import numpy as np\n"
        "from wyoming_pocket_tts.engine.onnx.graphs import Graphs\n"
        "from wyoming_pocket_tts.engine.onnx.loop import GraphSpeech\n"
        "from wyoming_pocket_tts.engine.voice_states.state_file import read_state\n"
        "from wyoming_pocket_tts.engine.runtime import generation\n"
        f"model = GraphSpeech(Graphs.read(Path({str(graphs)!r})), False, 1)\n"
        f"state = read_state(Path({str(voice_file)!r}))\n"
        f"with generation(model, state, {LONG_TEXT!r}) as stream:\n"
        "    audio = np.concatenate(list(islice(stream, 3)))\n"
        f"np.save({str(out)!r}, audio)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'pocket_tts')))\n"
        "left = model.generate_audio_stream(state, 'Lights on.')\n"
        "next(left)\n"  # and a stream left open at exit: its LM thread ends, no abort
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    heard = np.load(out)
    assert heard.size >= SAMPLES_PER_FRAME * 3
    model = GraphSpeech(Graphs.read(graphs), False, 1)
    with generation(model, read_state(voice_file), LONG_TEXT) as stream:
        here = np.concatenate(list(islice(stream, 3)))
    size = min(heard.size, here.size)  # the frames per chunk vary with the threads' pace
    assert relative(heard[:size], here[:size]) < FP32_TOLERANCE
