"""Voices made without torch (`engine.onnx.voice_encoding`, `audio.prompt_reading`,
`audio.resample`), held to pocket-tts's own code in torch.

The resampler is held to scipy's `resample_poly` (what pocket-tts's `convert_audio` runs) and
`end_on_pause` to pocket-tts's; a voice state made from a wav file on the built graphs of the
endless model is held to `TTSModel.get_state_for_audio_prompt(path)` array by array, and its
speech through the graphs' loop (`GraphSpeech`, temperature 0) to pocket-tts's.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import soundfile
import torch
from scipy.signal import resample_poly

from testkit.model_factory import TinyModel, write_voice_wav
from wyoming_pocket_tts.audio.prompt_reading import end_on_pause, read_prompt
from wyoming_pocket_tts.audio.resample import resample
from wyoming_pocket_tts.engine.graph_build import build
from wyoming_pocket_tts.engine.onnx.graphs import VOICE, Graphs
from wyoming_pocket_tts.engine.onnx.loop import GraphSpeech
from wyoming_pocket_tts.engine.onnx.runners import LMRunner
from wyoming_pocket_tts.engine.onnx.voice_encoding import VoiceEncoder, voice_state_of_file
from wyoming_pocket_tts.engine.voice_states.state_file import read_state, write_state
from wyoming_pocket_tts.voices.cloning import VoiceCloningUnavailable

from .graph_build_reference import TOLERANCE, relative, voice_prompts
from .test_graph_build import LOOP_TOLERANCE
from .test_onnx_loop import speak

pytestmark = [pytest.mark.usefixtures("one_torch_thread"), pytest.mark.timeout(300)]

RESAMPLE_TOLERANCE = 1e-6
"""Largest RMS difference of the numpy resampler from scipy's, relative to scipy's RMS. Measured:
1.2e-7 at most (scipy sums in float32, this module in float64)."""
PROMPT_TOLERANCE = 1e-6
"""Largest RMS difference of the encoder's prompt from pocket-tts's, relative to its RMS.
Measured: 4.8e-8. The encoder's attention adds little to it in random weights (layer scale
0.01): a chunk's K and V rows written at the wrong slots move it by 1e-5 only (measured)."""
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rate", [8000, 11025, 16000, 22050, 32000, 44100, 48000])
def test_the_resampler_gives_scipy_s_resample_poly(rate: int) -> None:
    """At the common rates to 24 kHz, on noise of many lengths (one sample, fewer than the
    filter's taps, seconds), a stereo block too: scipy's length and samples."""
    rng = np.random.default_rng(rate)
    for samples in (1, 7, 1001, 2 * rate + 17):
        audio = (rng.standard_normal((2, samples)) * 0.3).astype(np.float32)
        got = resample(audio, rate, 24000)
        gcd = np.gcd(rate, 24000)
        expected = resample_poly(audio, 24000 // gcd, rate // gcd, axis=-1)
        assert got.dtype == np.float32
        assert got.shape == expected.shape, samples
        assert relative(got.astype(np.float64), expected.astype(np.float64)) < RESAMPLE_TOLERANCE


def test_end_on_pause_is_pocket_tts_s() -> None:
    """A prompt with a quiet tail and one that ends loud: pocket-tts's cut, fade and pause."""
    from pocket_tts.data.audio_utils import end_on_pause as theirs

    rng = np.random.default_rng(4)
    loud = rng.standard_normal(24000).astype(np.float32) * 0.3
    quiet_tail = np.concatenate([loud, loud[:9000] * 1e-3])
    for audio in (quiet_tail, loud[:23999], loud[:100]):
        got = end_on_pause(audio[None], 24000)
        expected = theirs(torch.from_numpy(audio[None].copy()), 24000).numpy()
        assert got.shape == expected.shape
        assert np.allclose(got, expected, rtol=0, atol=1e-7)
    assert end_on_pause(quiet_tail[None], 24000).shape[1] == 24000 + 1920  # the tail cut


@pytest.fixture(scope="module")
def built(endless_model: TinyModel, tmp_path_factory: pytest.TempPathFactory) -> Graphs:
    return build(
        endless_model.weights_path,
        endless_model.config_path,
        tmp_path_factory.mktemp("voice-graphs") / "graphs",
    )


@pytest.fixture(scope="module")
def prompts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Voice prompts: at the model's rate and longer than two encoder chunks once ended on a
    pause (3.5 s: three chunks of the endless model's encoder, so its attention's circular
    caches wrap), at 44.1 kHz, and in stereo at 16 kHz."""
    folder = tmp_path_factory.mktemp("prompts")
    return {
        "long": write_voice_wav(folder / "long.wav", 3.5, seed=5),
        "44k": write_voice_wav(folder / "44k.wav", 1.5, sample_rate=44100, seed=6),
        "16k": write_voice_wav(folder / "16k.wav", 1.2, sample_rate=16000, seed=7, channels=2),
    }


def test_the_encoder_carries_its_attention_across_chunks(
    endless_model: TinyModel, built: Graphs, prompts: dict[str, Path]
) -> None:
    """A prompt of three chunks (the encoder attention's circular caches wrap), read and ended
    on a pause as the server does: pocket-tts's `_encode_audio` within float rounding."""
    audio = end_on_pause(read_prompt(prompts["long"], 24000, "long"), 24000)[None]
    assert audio.shape[2] > 2 * VoiceEncoder(built.folder, 1).chunk
    got, expected = voice_prompts(endless_model.load(), built, audio)
    assert relative(got, expected) < PROMPT_TOLERANCE


def torch_free_state(built: Graphs, path: Path) -> dict:
    return voice_state_of_file(built, LMRunner(built.lm(False), 1), path, path.stem)


@pytest.mark.parametrize("prompt", ["long", "44k", "16k"])
def test_a_voice_state_made_without_torch_is_pocket_tts_s(
    endless_model: TinyModel, built: Graphs, prompts: dict[str, Path], prompt: str
) -> None:
    """Every array of the state, as `get_state_for_audio_prompt(path)` makes it in torch."""
    path = prompts[prompt]
    expected = endless_model.load().get_state_for_audio_prompt(path, truncate=True)
    got = torch_free_state(built, path)
    assert got.keys() == expected.keys()
    for name, entries in expected.items():
        assert got[name].keys() == entries.keys(), name
        assert np.array_equal(got[name]["offset"], entries["offset"].numpy()), name
        assert np.array_equal(got[name]["pad"], entries["pad"].numpy()), name
        assert got[name]["offset"].dtype == np.int64
        assert relative(got[name]["cache"], entries["cache"].numpy()) < TOLERANCE, name


def test_speech_from_a_torch_free_voice_is_pocket_tts_s(
    endless_model: TinyModel, built: Graphs, prompts: dict[str, Path], tmp_path: Path
) -> None:
    """The state written and read back (`write_state`, `read_state`), spoken by the graphs' loop
    at temperature 0: pocket-tts's speech from its own state of the same file."""
    reference = endless_model.load()
    assert reference.temp == 0
    path = prompts["44k"]
    expected = speak(reference, reference.get_state_for_audio_prompt(path, truncate=True))
    write_state(torch_free_state(built, path), tmp_path / "voice.safetensors")
    got = speak(GraphSpeech(built, False, 1), read_state(tmp_path / "voice.safetensors"))
    assert relative(got, expected) < LOOP_TOLERANCE


def test_graphs_without_the_encoder_cannot_clone(
    built: Graphs, prompts: dict[str, Path], tmp_path: Path
) -> None:
    """Graphs built from weights without cloning have no `voice.onnx`: the clear message."""
    folder = tmp_path / "graphs"
    shutil.copytree(built.folder, folder, ignore=shutil.ignore_patterns(VOICE))
    graphs = Graphs.read(folder)
    with pytest.raises(VoiceCloningUnavailable):
        voice_state_of_file(graphs, LMRunner(graphs.lm(False), 1), prompts["long"], "long")


def test_a_prompt_is_cut_to_30_s(tmp_path: Path) -> None:
    long = write_voice_wav(tmp_path / "long.wav", 31.0, sample_rate=8000)
    assert read_prompt(long, 8000, "long").shape == (1, 30 * 8000)


def test_a_file_without_audio_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.wav"
    soundfile.write(empty, np.zeros(0, np.float32), 24000)
    with pytest.raises(ValueError, match="holds no audio"):
        read_prompt(empty, 24000, "empty")


def test_voices_are_made_without_torch_pocket_tts_or_scipy(
    built: Graphs, prompts: dict[str, Path], tmp_path: Path
) -> None:
    """In a fresh interpreter where importing torch, pocket-tts or scipy fails, the new modules
    import and a wav at 44.1 kHz becomes the state the test process makes."""
    out = tmp_path / "state.safetensors"
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path

        class Refuse:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("torch", "pocket_tts", "scipy"):
                    raise ImportError(f"imported {{name}}")
                return None

        sys.meta_path.insert(0, Refuse())
        from wyoming_pocket_tts.audio import prompt_reading, resample
        from wyoming_pocket_tts.engine.onnx import voice_encoding
        from wyoming_pocket_tts.engine.onnx.graphs import Graphs
        from wyoming_pocket_tts.engine.onnx.runners import LMRunner
        from wyoming_pocket_tts.engine.voice_states.state_file import write_state
        from wyoming_pocket_tts.voices import builtin

        graphs = Graphs.read(Path({str(built.folder)!r}))
        state = voice_encoding.voice_state_of_file(
            graphs, LMRunner(graphs.lm(False), 1), Path({str(prompts["44k"])!r}), "44k"
        )
        write_state(state, Path({str(out)!r}))
        print(sorted(n for n in sys.modules if n.split(".")[0] in ("torch", "pocket_tts", "scipy")))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    expected = torch_free_state(built, prompts["44k"])
    got = read_state(out)
    for name, entries in expected.items():
        for key, array in entries.items():
            assert np.array_equal(got[name][key], array), (name, key)
