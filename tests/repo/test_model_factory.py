"""Tests of the offline model factory: tokenizer, random weights, voices, fake HF cache."""

from __future__ import annotations

import json
import math
import os
import textwrap
import wave
from pathlib import Path

import pytest
import safetensors.torch
import sentencepiece
import soundfile
import tokenizers
import torch
import yaml
from pocket_tts import TTSModel
from pocket_tts.default_parameters import MAX_TOKEN_PER_CHUNK
from pocket_tts.models.text_chunking import split_into_best_sentences
from pocket_tts.modules.text_conditioner import build_tokenizer

from testkit import model_factory as mf
from testkit.zygote import Zygote

REPO_ROOT = Path(__file__).resolve().parents[2]
SHORT_TEXT = "Hello world."
TWO_SENTENCES = "Hello world. How are you?"
LONG_TEXT = (
    "Good morning, the kitchen light is on and the temperature in the living room is "
    "twenty one degrees. It's going to rain this evening, so please take an umbrella when "
    "you go out, and don't forget the timer for the oven at seven o'clock."
)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's factory cache, the one `build_tiny_model` uses for `mktemp` folders."""
    return tmp_path_factory.getbasetemp() / mf.DEFAULT_CACHE_NAME


@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> mf.TinyModel:
    """The tiny model with the packaged EOS threshold: speech ends at frame 6 + a few."""
    return mf.build_tiny_model(tmp_path_factory.mktemp("tiny"), cache_dir=cache_dir)


@pytest.fixture(scope="module")
def tiny_tts(tiny_files: mf.TinyModel) -> TTSModel:
    """The loaded `tiny_files` model."""
    return tiny_files.load()


@pytest.fixture(scope="module")
def endless_tts(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> TTSModel:
    """The tiny model with EOS disabled: every chunk runs to its maximum length."""
    root = tmp_path_factory.mktemp("endless")
    return mf.build_tiny_model(root, eos=False, cache_dir=cache_dir).load()


@pytest.fixture(scope="module")
def voice_state(tiny_tts: TTSModel, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A 1 s synthetic voice encoded by the tiny model (both tiny models share the weights)."""
    wav = mf.write_voice_wav(tmp_path_factory.mktemp("voice") / "voice.wav", 1.0)
    return tiny_tts.get_state_for_audio_prompt(wav)


def test_tokenizer_has_exactly_n_bins_pieces(tiny_files: mf.TinyModel) -> None:
    n_bins = mf.packaged_config("english_2m_2026-10")["flow_lm"]["lookup_table"]["n_bins"]
    processor = sentencepiece.SentencePieceProcessor(model_file=str(tiny_files.tokenizer_path))
    assert processor.vocab_size() == n_bins == 4000
    assert build_tokenizer(n_bins, str(tiny_files.tokenizer_path)).sp.vocab_size() == n_bins


def test_tokenizer_keeps_punctuation_apart(tiny_files: mf.TinyModel) -> None:
    processor = sentencepiece.SentencePieceProcessor(model_file=str(tiny_files.tokenizer_path))
    assert processor.encode(".!...?", out_type=str) == ["▁", ".", "!", ".", ".", ".", "?"]
    assert processor.encode(",;:", out_type=str) == ["▁", ",", ";", ":"]
    assert processor.piece_to_id("▁.") == processor.unk_id()


@pytest.mark.parametrize(
    "text", ["It's 42 o'clock, isn't it?", "Café crème à la Noël, naïve Zoë!", "Tschüß 2026."]
)
def test_tokenizer_round_trips_english_text(tiny_files: mf.TinyModel, text: str) -> None:
    processor = sentencepiece.SentencePieceProcessor(model_file=str(tiny_files.tokenizer_path))
    ids = processor.encode(text)
    assert processor.unk_id() not in ids
    assert processor.decode(ids) == text


def test_tokenizer_maps_unknown_characters_to_unk(tiny_files: mf.TinyModel) -> None:
    processor = sentencepiece.SentencePieceProcessor(model_file=str(tiny_files.tokenizer_path))
    assert processor.unk_id() in processor.encode("Snow ☃ and 漢字")


def test_json_tokenizer_gives_the_same_ids(cache_dir: Path, tiny_files: mf.TinyModel) -> None:
    json_path = mf.cached_tokenizer(cache_dir, 4000, "tokenizers")
    json_tokenizer = tokenizers.Tokenizer.from_file(str(json_path))
    processor = sentencepiece.SentencePieceProcessor(model_file=str(tiny_files.tokenizer_path))
    assert json_tokenizer.get_vocab_size() == 4000
    for text in (TWO_SENTENCES, LONG_TEXT, ".!...?", "Zoë's café, 3 o'clock."):
        assert json_tokenizer.encode(text).ids == processor.encode(text)


def test_sentence_splitting_sees_each_sentence(tiny_files: mf.TinyModel) -> None:
    tokenizer = build_tokenizer(4000, str(tiny_files.tokenizer_path))
    split = split_into_best_sentences(tokenizer, TWO_SENTENCES, 10, False, False)
    assert split == ["Hello world.", "How are you?"]
    assert split_into_best_sentences(tokenizer, TWO_SENTENCES, 50, False, False) == [TWO_SENTENCES]


def test_config_keeps_the_packaged_shapes(tiny_files: mf.TinyModel) -> None:
    config = yaml.safe_load(tiny_files.config_path.read_text(encoding="utf-8"))
    packaged = mf.packaged_config("english_2m_2026-10")
    assert config["weights_path"] == str(tiny_files.weights_path)
    assert config["flow_lm"]["lookup_table"]["tokenizer_path"] == str(tiny_files.tokenizer_path)
    for key in ("weights_path", "weights_path_without_voice_cloning"):
        packaged.pop(key)
        config.pop(key, None)
    packaged["flow_lm"]["lookup_table"]["tokenizer_path"] = str(tiny_files.tokenizer_path)
    packaged["default_temperature"] = mf.TEMPERATURE
    assert config == packaged


def test_audio_depends_on_the_voice_and_nothing_else(tiny_tts: TTSModel, tmp_path: Path) -> None:
    """What the server tests rely on to tell voices apart by content."""
    from testkit.support import ANOTHER_VOICE, differing_samples
    from wyoming_pocket_tts.audio.pcm import to_pcm16

    one, other = (
        tiny_tts.get_state_for_audio_prompt(mf.write_voice_wav(tmp_path / f"{n}.wav", seed=n))
        for n in (1, 2)
    )
    first, again = (to_pcm16(tiny_tts.generate_audio(one, SHORT_TEXT)) for _ in range(2))
    changed = to_pcm16(tiny_tts.generate_audio(other, SHORT_TEXT))
    assert differing_samples(again, first) == 0
    assert differing_samples(changed, first) > ANOTHER_VOICE


def test_tiny_model_loads_its_weights_strictly(
    tiny_files: mf.TinyModel, tiny_tts: TTSModel, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("WARNING"):
        reloaded = tiny_files.load()
    assert "uninitialized" not in caplog.text
    saved = safetensors.torch.load_file(tiny_files.weights_path)
    state = reloaded.state_dict()
    assert state.keys() == saved.keys()
    assert all(torch.equal(state[key], saved[key]) for key in saved)
    assert reloaded.flow_lm.speaker_proj_weight.abs().sum() > 0
    flow_lm = sum(p.numel() for p in reloaded.flow_lm.parameters())
    decoder = sum(
        p.numel()
        for name, p in reloaded.mimi.named_parameters()
        if name.startswith(("decoder", "upsample", "quantizer"))
    )
    assert 1.8e6 < flow_lm + decoder < 2.0e6
    assert tiny_tts.eos_threshold == -1.0


def test_loading_rejects_a_missing_tensor(tiny_files: mf.TinyModel, tmp_path: Path) -> None:
    weights = safetensors.torch.load_file(tiny_files.weights_path)
    del weights["flow_lm.out_eos.bias"]
    safetensors.torch.save_file(weights, tmp_path / "model.safetensors")
    config = tiny_files.config_path.read_text().replace(
        str(tiny_files.weights_path), str(tmp_path / "model.safetensors")
    )
    (tmp_path / "config.yaml").write_text(config)
    with pytest.raises(RuntimeError, match=r"out_eos\.bias"):
        TTSModel.load_model(config=str(tmp_path / "config.yaml"))


@pytest.mark.parametrize(
    ("text", "max_tokens", "chunks"), [(SHORT_TEXT, MAX_TOKEN_PER_CHUNK, 1), (TWO_SENTENCES, 10, 2)]
)
def test_without_eos_generation_runs_to_max_length(
    endless_tts: TTSModel, voice_state: dict, text: str, max_tokens: int, chunks: int
) -> None:
    prompts = mf.chunk_prompts(endless_tts, text, max_tokens)
    tokens = [endless_tts.flow_lm.conditioner.prepare(prompt).shape[1] for prompt, _ in prompts]
    frames = sum(math.ceil((n / 3 + 2) * 12.5) for n in tokens)
    audio = endless_tts.generate_audio(voice_state, text, max_tokens=max_tokens)
    assert len(prompts) == chunks
    assert frames == mf.expected_frames(endless_tts, text, max_tokens=max_tokens)
    assert audio.shape == (frames * mf.SAMPLES_PER_FRAME,)
    assert audio.abs().max() > 0


@pytest.mark.parametrize(("text", "chunks"), [(SHORT_TEXT, 1), (LONG_TEXT, 3)])
def test_with_eos_generation_stops_early(
    tiny_tts: TTSModel, endless_tts: TTSModel, voice_state: dict, text: str, chunks: int
) -> None:
    prompts = mf.chunk_prompts(tiny_tts, text)
    frames = sum(mf.MIN_FRAMES_BEFORE_EOS + guess + 2 for _, guess in prompts)
    audio = tiny_tts.generate_audio(voice_state, text)
    assert len(prompts) == chunks
    assert frames == mf.expected_frames(tiny_tts, text)
    assert audio.shape == (frames * mf.SAMPLES_PER_FRAME,)
    assert frames < mf.expected_frames(endless_tts, text) / 4


VOICE_FILES = [
    ("voice.wav", {}),
    ("voice.wav", {"subtype": "PCM_24"}),
    pytest.param(
        "voice.wav",
        {"subtype": "FLOAT"},
        marks=pytest.mark.xfail(
            raises=wave.Error,
            strict=True,
            reason="pocket-tts 4.0.1 opens .wav with the wave module, which rejects float WAV",
        ),
    ),
    ("voice.wav", {"sample_rate": 16000, "channels": 2}),
    ("voice.flac", {}),
    ("voice.ogg", {}),
    ("voice.mp3", {}),
]


DEFAULT_SUBTYPES = {".wav": "PCM_16", ".flac": "PCM_16", ".ogg": "VORBIS", ".mp3": "MPEG_LAYER_III"}
"""What `write_voice_wav` writes when no subtype is asked for."""


@pytest.mark.parametrize(("name", "options"), VOICE_FILES)
def test_voice_file_encodes_to_a_state(
    tiny_tts: TTSModel, tmp_path: Path, name: str, options: dict
) -> None:
    if Path(name).suffix[1:].upper() not in soundfile.available_formats():
        pytest.skip(f"libsndfile cannot write {name}")
    path = mf.write_voice_wav(tmp_path / name, 1.0, **options)
    info = soundfile.info(str(path))
    assert info.samplerate == options.get("sample_rate", 24000)
    assert info.channels == options.get("channels", 1)
    assert info.subtype == options.get("subtype", DEFAULT_SUBTYPES[path.suffix])
    state = tiny_tts.get_state_for_audio_prompt(path)
    offset = int(next(iter(state.values()))["offset"][0])
    # 0.75 s of voice, the 0.08 s pause end_on_pause appends, and the BOS frame.
    assert abs(offset - (math.ceil(0.83 * 12.5) + 1)) <= 2


def test_voice_wav_is_seeded_and_ends_on_a_pause(tmp_path: Path) -> None:
    first, _ = soundfile.read(mf.write_voice_wav(tmp_path / "a.wav", 2.0, seed=1))
    again, _ = soundfile.read(mf.write_voice_wav(tmp_path / "b.wav", 2.0, seed=1))
    other, _ = soundfile.read(mf.write_voice_wav(tmp_path / "c.wav", 2.0, seed=2))
    assert first.shape == (48000,)
    assert (first == again).all()
    assert not (first == other).all()
    assert first[:36000].std() > 0.05
    assert abs(first[-4800:]).max() == 0


def test_voice_wav_rejects_an_impossible_subtype(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="FLAC"):
        mf.write_voice_wav(tmp_path / "voice.flac", subtype="FLOAT")


def test_builds_are_cached_and_seeded(
    tiny_files: mf.TinyModel, cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(mf, "train_sentencepiece", lambda n_bins: pytest.fail("retrained"))
        patch.setattr(mf, "_write_random_weights", lambda *a: pytest.fail("rebuilt"))
        again = mf.build_tiny_model(tmp_path / "again", cache_dir=cache_dir)
    assert again.weights_path.read_bytes() == tiny_files.weights_path.read_bytes()
    fresh_cache = tmp_path / "fresh"
    fresh_cache.mkdir()
    for tokenizer in cache_dir.glob("tokenizer-*.model"):
        (fresh_cache / tokenizer.name).write_bytes(tokenizer.read_bytes())
    rebuilt = mf.build_tiny_model(tmp_path / "rebuilt", cache_dir=fresh_cache)
    other = mf.build_tiny_model(tmp_path / "other", seed=1, cache_dir=fresh_cache)
    assert rebuilt.weights_path.read_bytes() == tiny_files.weights_path.read_bytes()
    assert other.weights_path.read_bytes() != tiny_files.weights_path.read_bytes()


HF_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from huggingface_hub import constants
    from pocket_tts import TTSModel
    from testkit.model_factory import expected_frames

    model = TTSModel.load_model(language=sys.argv[1])
    state = model.get_state_for_audio_prompt("alba")
    result = {
        "hf_home": constants.HF_HOME,
        "offline": constants.HF_HUB_OFFLINE,
        "has_voice_cloning": model.has_voice_cloning,
        "samples": model.generate_audio(state, "Hello world.").shape[-1],
        "expected_frames": expected_frames(model, "Hello world."),
    }
    try:
        cloned = model.get_state_for_audio_prompt(Path(sys.argv[2]))
        result["cloned_samples"] = model.generate_audio(cloned, "Hello world.").shape[-1]
    except ValueError as error:
        result["clone_error"] = str(error)
    print(json.dumps(result))
    """
)


@pytest.mark.parametrize("voice_cloning", [True, False])
def test_hf_cache_serves_a_packaged_language_offline(
    cache_dir: Path, tmp_path: Path, voice_cloning: bool
) -> None:
    """A Python process of its own (huggingface_hub reads HF_HOME once, at import), forked from
    the zygote, which has imported torch but not huggingface_hub."""
    hf_home = tmp_path / "hf"
    mf.build_hf_cache(hf_home, voice_cloning=voice_cloning, cache_dir=cache_dir)
    wav = mf.write_voice_wav(tmp_path / "clone.wav", 1.0, seed=7)
    env = {
        **os.environ,
        "HF_HOME": str(hf_home),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(REPO_ROOT),
    }
    completed = Zygote.run(["-c", HF_SCRIPT, "english_2m_2026-10", str(wav)], env, timeout=120)
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    assert result["hf_home"] == str(hf_home)
    assert result["offline"] is True
    assert result["has_voice_cloning"] is voice_cloning
    assert result["samples"] == result["expected_frames"] * mf.SAMPLES_PER_FRAME > 0
    if voice_cloning:
        assert result["cloned_samples"] == result["samples"]
    else:
        assert "voice cloning" in result["clone_error"]


@pytest.mark.skipif(not os.environ.get("MODEL_FACTORY_FULL"), reason="set MODEL_FACTORY_FULL=1")
def test_full_size_model_loads(cache_dir: Path, tmp_path: Path) -> None:
    full = mf.build_tiny_model(tmp_path / "full", size="full", cache_dir=cache_dir, link=True)
    model = full.load()
    assert 1.0e8 < sum(p.numel() for p in model.parameters()) < 1.2e8
    assert model.flow_lm.conditioner.tokenizer.sp.vocab_size() == 4000
