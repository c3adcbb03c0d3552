"""Tiny, randomly initialised Pocket-TTS models built offline, for tests and benchmarks.

The Hugging Face hub is not reachable from CI, so this module makes everything a
`pocket_tts.TTSModel` needs from scratch: a sentencepiece tokenizer trained in-process on a
synthetic corpus, random weights in the exact layout of a packaged config, synthetic voice
prompts, and a fake Hugging Face cache that lets `TTSModel.load_model(language=...)` and the
built-in voice names work with `HF_HUB_OFFLINE=1`.

The models are built by pocket-tts itself from a config without weights, so the state-dict
keys and shapes always match the installed version. Three parameters are then changed:
`flow_lm.speaker_proj_weight` gets small random values (pocket-tts leaves it at zero, which
would make every voice identical) and the end-of-speech head always outputs `EOS_LOGIT`,
so that generation is deterministic in length: with the packaged EOS threshold speech ends
at the first frame where EOS is allowed, and with `eos=False` (threshold `NO_EOS_THRESHOLD`)
it runs to the maximum length. `expected_frames` predicts both. The latent scale
(`flow_lm.emb_std`) is raised so that the audio depends visibly on the voice and the text, and
the config samples at temperature 0, so tests can compare audio by content.

The expensive parts (tokenizer training, weights, voice states) are cached on disk, by
default in `$MODEL_FACTORY_CACHE` (tests/conftest.py points it at one folder for the whole
pytest run, shared by its xdist workers) or else in `.model_factory_cache` next to the folder
being built, so a session that builds many models trains and initialises each of them once.
"""

from __future__ import annotations

import copy
import fcntl
import functools
import hashlib
import json
import logging
import math
import os
import random
import re
import shutil
import tempfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import safetensors.torch
import sentencepiece
import soundfile
import tokenizers
import torch
import yaml
from pocket_tts import TTSModel, export_model_state
from pocket_tts.default_parameters import MAX_TOKEN_PER_CHUNK
from pocket_tts.models.text_chunking import prepare_text_prompt
from pocket_tts.utils.config import CONFIGS_DIR
from pocket_tts.utils.utils import get_predefined_voice

from wyoming_pocket_tts.engine.model.runtime import TorchRuntime

logger = logging.getLogger(__name__)

SIZES: Mapping[str, str] = {
    "tiny": "english_2m_2026-10",
    "slim": "english_2m_2026-10",
    "full": "english",
    "lsd": "english",
}
"""Packaged pocket-tts config whose shapes each `build_tiny_model` size copies; any other
packaged config name (`english_18m_2026-10`, `french_24l`, ...) is accepted as a size too."""

FEWER_LAYERS: Mapping[str, Mapping[str, int]] = {
    "slim": {"flow_lm.transformer": 2, "mimi.decoder_transformer": 1},
    "lsd": {"flow_lm.transformer": 1, "mimi.transformer": 1},
}
"""Sizes that keep every width of their packaged config but run fewer transformer layers
(`section: num_layers`). `slim` is `tiny` with 2 of its 8 flow-LM layers and 1 of its 4 Mimi
decoder layers: the same pocket-tts code runs each frame at under half the CPU (0.5 s instead
of 1.1 s per sentence here), for the server tests whose time goes into generation. `lsd` is the
default model's shapes (its flow head decodes by LSD, with time embeddings) with 1 layer each."""


def shape_config(size: str) -> str:
    """The packaged config a `build_tiny_model` size copies; ValueError for an unknown size."""
    name = SIZES.get(size, size)
    if not (CONFIGS_DIR / f"{name}.yaml").is_file():
        raise ValueError(
            f"size must be one of {sorted(SIZES)} or a pocket-tts config name, not {size!r}"
        )
    return name


SAMPLES_PER_FRAME = 1920
"""Audio samples per generated frame: 24 kHz / 12.5 Hz."""

NO_EOS_THRESHOLD = 1.0e9
"""`default_eos_threshold` written for `eos=False`: the EOS logit never exceeds it."""

EOS_LOGIT = 10.0
"""Constant logit of the end-of-speech head: above every packaged threshold (-4 to -1)."""

MIN_FRAMES_BEFORE_EOS = 6
"""Frames pocket-tts generates before it honours EOS (`TTSModel._MIN_FRAMES_BEFORE_EOS`)."""

DEFAULT_CACHE_NAME = ".model_factory_cache"

CACHE_ENV = "MODEL_FACTORY_CACHE"
"""Environment variable naming the cache of builds that pass no `cache_dir`."""

_CACHE_VERSION = 2
_SPEAKER_PROJ_STD = 0.02
_LATENT_STD = 10.0
"""Scale of the generated latents: with pocket-tts's default of 1 the random decoder's output
barely depends on them, so two voices would differ by a few PCM steps only (by ~30 with 10)."""
TEMPERATURE = 0.0
"""Sampling temperature of the built models: no noise, so the same voice and text give the same
samples (to within one PCM step of float rounding) and tests can tell voices apart by content."""
_SENTENCE_PUNCTUATION = (".", "!", "?", ",", ";", ":")
_WEIGHT_KEYS = ("weights_path", "weights_path_without_voice_cloning")
_COMMIT_HASH = re.compile(r"[0-9a-f]{40}")
_COMMON_WORDS = (
    "the be to of and a in that have I it for not on with he as you do at this but his by from "
    "they we say her she or an will my one all would there their what so up out if about who get "
    "which go me when make can like time no just him know take people into year your good some "
    "could them see other than then now look only come its over think also back after use two how "
    "our work first well way even new want because any these give day most us hello world are is "
    "was were today voice speech kitchen light turn off on temperature weather morning evening "
    "living room please thank yes okay timer minutes seconds home assistant music play stop"
)
_CONTRACTIONS = ("it's", "don't", "I'm", "you're", "can't", "we'll", "o'clock", "that's")
_ACCENTED = "àâäáãåçéèêëíìîïñóòôöõúùûüýÿæœßÀÂÄÇÉÈÊËÎÏÔÖÙÛÜÑ"
# Onsets, vowels and codas of pseudo-word syllables, split on single spaces: a leading
# space gives the empty onset, two give codas a double weight of "no coda".
_SYLLABLE_PARTS = (
    " b c d f g h j k l m n p qu r s t v w x y z ch sh th st tr br pl gr kl sp",
    "a e i o u y ai ea ou oo ee ie au",
    "  n s t r l m ng ck st nd rk x",
)


@dataclass(frozen=True)
class TinyModel:
    """Files of a locally built random model; `load` gives the `TTSModel`."""

    root: Path
    config_path: Path
    tokenizer_path: Path
    weights_path: Path

    def load(self, **kwargs: Any) -> TTSModel:
        """Load the model with pocket-tts (keyword arguments go to `TTSModel.load_model`)."""
        return TTSModel.load_model(config=str(self.config_path), **kwargs)


def build_tiny_model(
    root: Path,
    *,
    size: str = "tiny",
    eos: bool = True,
    seed: int = 0,
    cache_dir: Path | None = None,
    link: bool = False,
) -> TinyModel:
    """Write a random model shaped like a packaged config into `root` (see `SIZES`, `shape_config`;
    `FEWER_LAYERS` thins some sizes).

    The tokenizer is always a sentencepiece `.model`, also for `size="full"` whose packaged
    config uses a `tokenizer.json`. `eos=False` disables end-of-speech so generation runs to
    its maximum length. Sampling runs at `TEMPERATURE` 0: the output depends only on the
    voice and the text. `link=True` hard-links the cached files instead of copying them
    (faster for the 440 MB full model; do not modify them in place then).
    """
    name = shape_config(size)
    root.mkdir(parents=True, exist_ok=True)
    cache = cache_dir or default_cache(root.parent)
    packaged = packaged_config(name)
    for section, layers in FEWER_LAYERS.get(size, {}).items():
        first, second = section.split(".")
        packaged[first][second]["num_layers"] = layers
    n_bins = packaged["flow_lm"]["lookup_table"]["n_bins"]
    tokenizer_path = _install(
        cached_tokenizer(cache, n_bins, "sentencepiece"), root / "tokenizer.model", link
    )
    config = weightless_config(packaged, tokenizer_path, "sentencepiece")
    weights_path = _install(_cached_weights(cache, config, seed), root / "model.safetensors", link)
    config["weights_path"] = str(weights_path)
    config["default_temperature"] = TEMPERATURE
    if not eos:
        config["default_eos_threshold"] = NO_EOS_THRESHOLD
    config_path = _write_yaml(root / "config.yaml", config)
    logger.info("Built %s model (seed %d, eos %s) in %s", size, seed, eos, root)
    return TinyModel(root, config_path, tokenizer_path, weights_path)


def write_voice_wav(
    path: Path,
    seconds: float = 2.0,
    *,
    sample_rate: int = 24000,
    seed: int = 0,
    subtype: str = "PCM_16",
    channels: int = 1,
) -> Path:
    """Write a synthetic voice-like prompt: a gliding harmonic tone in syllables, then a pause.

    The container comes from the extension (`.wav`, `.flac`, `.ogg`, `.mp3`, ... whatever
    `soundfile.available_formats()` lists). When that format cannot hold `subtype` and
    `subtype` is the default, the format's own default is used (VORBIS for `.ogg`).
    """
    path = Path(path)
    audio = _voice_signal(seconds, sample_rate, seed)
    if channels > 1:
        audio = np.stack([audio * (0.6 + 0.4 * c / channels) for c in range(channels)], axis=1)
    audio_format = path.suffix.lstrip(".").upper()
    if audio_format not in soundfile.available_formats():
        raise ValueError(f"soundfile cannot write {path.suffix!r} files")
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(
        path,
        audio,
        sample_rate,
        subtype=_subtype_for(audio_format, subtype),
        format=audio_format,
    )
    return path


def build_hf_cache(
    hf_home: Path,
    *,
    language: str = "english_2m_2026-10",
    voices: tuple[str, ...] = ("alba",),
    seed: int = 0,
    voice_cloning: bool = True,
    cache_dir: Path | None = None,
) -> None:
    """Lay out `hf_home/hub` so `TTSModel.load_model(language=...)` loads offline.

    Random weights, a tokenizer and one voice state per name are stored under the exact
    `hf://` paths of the packaged `{language}.yaml` and `get_predefined_voice`, so pocket-tts
    finds them with `HF_HOME=hf_home` and `HF_HUB_OFFLINE=1`. The weights go to the gated
    voice-cloning repo (`has_voice_cloning` stays True), or with `voice_cloning=False` only
    to the repo without voice cloning (pocket-tts then falls back and disables cloning).
    `voices` must be names pocket-tts knows as built-in voices (`alba`, `marius`, ...).
    """
    cache = cache_dir or default_cache(hf_home.parent)
    hub = hf_home / "hub"
    packaged = packaged_config(language)
    table = packaged["flow_lm"]["lookup_table"]
    kind = _tokenizer_kind(table["tokenizer"], table["tokenizer_path"])
    tokenizer = cached_tokenizer(cache, table["n_bins"], kind)
    place_in_hub(hub, table["tokenizer_path"], tokenizer)
    config = weightless_config(packaged, tokenizer, kind)
    weights = _cached_weights(cache, config, seed)
    place_in_hub(hub, packaged[_WEIGHT_KEYS[0] if voice_cloning else _WEIGHT_KEYS[1]], weights)
    config["weights_path"] = str(weights)
    for name, state in _cached_voice_states(cache, config, voices, seed).items():
        place_in_hub(hub, get_predefined_voice(language, name), state)
    logger.info("Built a Hugging Face cache for %s in %s", language, hub)


def expected_frames(
    model: TTSModel,
    text: str,
    *,
    max_tokens: int = MAX_TOKEN_PER_CHUNK,
    frames_after_eos: int | None = None,
) -> int:
    """Frames `model.generate_audio(state, text, ...)` yields for a model from this module.

    Test oracle: each chunk of `chunk_prompts` runs to `ceil((tokens / 3 + 2) * 12.5)`
    frames, or, when the model's EOS threshold is below `EOS_LOGIT`, stops
    `frames_after_eos` frames after frame `MIN_FRAMES_BEFORE_EOS` (by default pocket-tts
    guesses 3 + 2 frames for up to four words, 1 + 2 otherwise).
    """
    total = 0
    for prompt, guess in chunk_prompts(model, text, max_tokens):
        tokens = len(model.flow_lm.conditioner.tokenizer.encode(prompt))
        frames = math.ceil((tokens / 3.0 + 2.0) * model.config.mimi.frame_rate)
        after_eos = frames_after_eos
        if after_eos is None:
            after_eos = model.model_recommended_frames_after_eos
        if after_eos is None:
            after_eos = guess + 2
        if model.eos_threshold < EOS_LOGIT:
            frames = min(frames, MIN_FRAMES_BEFORE_EOS + after_eos)
        total += frames
    return total


def chunk_prompts(
    model: TTSModel, text: str, max_tokens: int = MAX_TOKEN_PER_CHUNK
) -> list[tuple[str, int]]:
    """The prompts `generate_audio` feeds the model one at a time, with pocket-tts's
    frames-after-EOS guess for each (before it adds 2)."""
    chunks = [chunk for _, chunk in TorchRuntime(model, False).pieces(text, max_tokens)]
    return [
        prepare_text_prompt(
            chunk,
            model.pad_with_spaces_for_short_inputs,
            model.remove_semicolons,
            model.append_terminal_punctuation,
            model.capitalize_first_letter,
            model.replace_characters,
        )
        for chunk in chunks
    ]


def packaged_config(name: str) -> dict[str, Any]:
    """The parsed YAML of a config shipped with pocket-tts (`english`, `english_2m_2026-10`...)."""
    path = CONFIGS_DIR / f"{name}.yaml"
    if not path.is_file():
        raise ValueError(f"pocket-tts has no packaged config {name!r}")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def weightless_config(
    packaged: Mapping[str, Any], tokenizer_path: Path, kind: str = "sentencepiece"
) -> dict[str, Any]:
    """A copy of `packaged` without weight paths, using the local tokenizer file."""
    config = copy.deepcopy(dict(packaged))
    for key in _WEIGHT_KEYS:
        config.pop(key, None)
    config["flow_lm"].pop("weights_path", None)
    config["mimi"].pop("weights_path", None)
    config["flow_lm"]["lookup_table"]["tokenizer"] = kind
    config["flow_lm"]["lookup_table"]["tokenizer_path"] = str(tokenizer_path)
    return config


def cached_tokenizer(cache_dir: Path, n_bins: int, kind: str = "sentencepiece") -> Path:
    """A tokenizer with exactly `n_bins` pieces, trained once and kept in `cache_dir`.

    `kind` is `sentencepiece` (a `.model`) or `tokenizers` (a `tokenizer.json` with the
    same pieces, scores and ids, as pocket-tts's packaged multilingual configs use).
    """
    model = _cached(
        cache_dir / f"tokenizer-{n_bins}-v{_CACHE_VERSION}.model",
        lambda path: path.write_bytes(train_sentencepiece(n_bins)),
    )
    if kind == "sentencepiece":
        return model
    if kind != "tokenizers":
        raise ValueError(f"unknown tokenizer kind {kind!r}")
    return _cached(
        cache_dir / f"tokenizer-{n_bins}-v{_CACHE_VERSION}.json",
        lambda path: sentencepiece_to_json(model).save(str(path)),
    )


def train_sentencepiece(n_bins: int) -> bytes:
    """Train a unigram sentencepiece model of exactly `n_bins` pieces on a synthetic corpus.

    Sentence and clause punctuation are user-defined pieces, so `▁.` never exists and
    pocket-tts's sentence splitter sees every `.`, `!`, `?`, `,`, `;` and `:`.
    """
    model = _BytesSink()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=_synthetic_corpus(),
        model_writer=model,
        vocab_size=n_bins,
        model_type="unigram",
        character_coverage=1.0,
        user_defined_symbols=list(_SENTENCE_PUNCTUATION),
        unk_id=0,
        bos_id=-1,
        eos_id=-1,
        num_threads=min(4, os.cpu_count() or 1),
        minloglevel=2,
    )
    return model.getvalue()


def sentencepiece_to_json(model_path: Path) -> tokenizers.Tokenizer:
    """The `tokenizers` equivalent of a sentencepiece unigram model (same ids)."""
    processor = sentencepiece.SentencePieceProcessor(model_file=str(model_path))
    vocab = [
        (processor.id_to_piece(i), processor.get_score(i)) for i in range(processor.vocab_size())
    ]
    tokenizer = tokenizers.Tokenizer(tokenizers.models.Unigram(vocab, unk_id=processor.unk_id()))
    tokenizer.normalizer = tokenizers.normalizers.NFKC()
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace(prepend_scheme="always")
    tokenizer.decoder = tokenizers.decoders.Metaspace(prepend_scheme="always")
    return tokenizer


class _BytesSink:
    """A write-only buffer for sentencepiece's `model_writer`."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def write(self, data: bytes) -> None:
        self._parts.append(data)

    def getvalue(self) -> bytes:
        return b"".join(self._parts)


def _synthetic_corpus(sentences: int = 6000, seed: int = 1234) -> Iterator[str]:
    """English-looking sentences: common words, pseudo-words, numbers, accents, punctuation."""
    rng = random.Random(seed)
    onsets, vowels, codas = (part.split(" ") for part in _SYLLABLE_PARTS)
    pseudo = sorted({_pseudo_word(rng, onsets, vowels, codas) for _ in range(8000)})
    accented = [rng.choice(onsets) + a + rng.choice(codas) for a in _ACCENTED]
    vocabulary = (_COMMON_WORDS.split(), pseudo, _CONTRACTIONS, accented)
    for _ in range(sentences):
        words = [_corpus_word(rng, *vocabulary) for _ in range(rng.randint(3, 14))]
        words[0] = words[0][:1].upper() + words[0][1:]
        yield " ".join(words) + rng.choice(_SENTENCE_PUNCTUATION[:3] * 3 + ("...",))


def _corpus_word(
    rng: random.Random,
    common: Sequence[str],
    pseudo: Sequence[str],
    contractions: Sequence[str],
    accented: Sequence[str],
) -> str:
    """One word of the corpus, mostly common English words, with clause punctuation now and then."""
    roll = rng.random()
    if roll < 0.45:
        word = rng.choice(common)
    elif roll < 0.85:
        word = rng.choice(pseudo)
    elif roll < 0.9:
        word = str(rng.randint(0, 3000))
    elif roll < 0.95:
        word = rng.choice(contractions)
    else:
        word = rng.choice(accented)
    if rng.random() < 0.08:
        word = word.capitalize()
    if rng.random() < 0.06:
        word += rng.choice(_SENTENCE_PUNCTUATION[3:])
    return word


def _pseudo_word(
    rng: random.Random, onsets: Sequence[str], vowels: Sequence[str], codas: Sequence[str]
) -> str:
    """A pronounceable made-up word of one to three syllables."""
    syllables = rng.randint(1, 3)
    return "".join(
        rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas) for _ in range(syllables)
    )


def _tokenizer_kind(kind: str, tokenizer_path: str) -> str:
    """pocket-tts's choice of backend for a lookup table (see `build_tokenizer`)."""
    is_json = kind in ("tokenizers", "json") or tokenizer_path.split("@")[0].endswith(".json")
    return "tokenizers" if is_json else "sentencepiece"


def _cached_weights(cache_dir: Path, config: Mapping[str, Any], seed: int) -> Path:
    """Random weights for a weightless config, generated once per (shapes, seed)."""
    shapes = copy.deepcopy(dict(config))
    del shapes["flow_lm"]["lookup_table"]["tokenizer_path"]
    del shapes["flow_lm"]["lookup_table"]["tokenizer"]
    adjustments = {"eos": EOS_LOGIT, "speaker": _SPEAKER_PROJ_STD, "latent": _LATENT_STD}
    key = _digest({"config": shapes, "seed": seed, "v": _CACHE_VERSION, **adjustments})
    return _cached(
        cache_dir / f"weights-{key}.safetensors",
        lambda path: _write_random_weights(path, config, seed),
    )


def _write_random_weights(path: Path, config: Mapping[str, Any], seed: int) -> None:
    """Let pocket-tts build a random model from `config`, adjust it, save its state dict."""
    with tempfile.TemporaryDirectory() as folder, torch.random.fork_rng():
        torch.manual_seed(seed)
        config_path = _write_yaml(Path(folder) / "weightless.yaml", config)
        model = TTSModel.load_model(config=str(config_path))
        with torch.no_grad():
            model.flow_lm.speaker_proj_weight.normal_(std=_SPEAKER_PROJ_STD)
            model.flow_lm.out_eos.weight.zero_()
            model.flow_lm.out_eos.bias.fill_(EOS_LOGIT)
            model.flow_lm.emb_std.fill_(_LATENT_STD)
        safetensors.torch.save_file(model.state_dict(), str(path))


def _cached_voice_states(
    cache_dir: Path, config: Mapping[str, Any], voices: tuple[str, ...], seed: int
) -> dict[str, Path]:
    """Voice states of synthetic prompts encoded by the model of `config`, one per name."""
    weights_key = Path(config["weights_path"]).stem
    paths = {
        name: cache_dir / f"voice-{weights_key}-{_digest([name, seed, _CACHE_VERSION])}.safetensors"
        for name in voices
    }
    missing = [name for name, path in paths.items() if not path.exists()]
    if not missing:
        return paths
    with tempfile.TemporaryDirectory() as folder:
        model = TTSModel.load_model(config=str(_write_yaml(Path(folder) / "c.yaml", config)))
        for name in missing:
            wav = write_voice_wav(
                Path(folder) / f"{name}.wav", seed=seed + zlib.crc32(name.encode())
            )
            state = model.get_state_for_audio_prompt(wav)
            _cached(paths[name], functools.partial(_export_state, state))
    return paths


def place_in_hub(hub: Path, hf_url: str, source: Path) -> Path:
    """Copy `source` to where `hf_hub_download` looks for `hf://org/repo/file[@revision]`."""
    repo_id, filename, revision = _parse_hf_url(hf_url)
    repo_folder = hub / f"models--{repo_id.replace('/', '--')}"
    commit = revision
    if not _COMMIT_HASH.fullmatch(revision):
        commit = hashlib.sha1(f"{repo_id}@{revision}".encode()).hexdigest()
        _write_text(repo_folder / "refs" / revision, commit)
    return _install(source, repo_folder / "snapshots" / commit / filename, link=False)


def _parse_hf_url(hf_url: str) -> tuple[str, str, str]:
    """`(repo_id, filename, revision)` of an `hf://` path, split the way pocket-tts does."""
    if not hf_url.startswith("hf://"):
        raise ValueError(f"not an hf:// path: {hf_url!r}")
    org, name, filename = hf_url.removeprefix("hf://").split("/", 2)
    filename, _, revision = filename.partition("@")
    return f"{org}/{name}", filename, revision or "main"


def _voice_signal(seconds: float, sample_rate: int, seed: int) -> np.ndarray:
    """Mono float32 audio: harmonics of a wandering pitch, syllable envelope, noise, a pause."""
    if seconds < 0.05:
        raise ValueError(f"a voice prompt needs at least 0.05 s, not {seconds}")
    rng = np.random.default_rng(seed)
    pause = min(0.25, seconds / 4)
    time = np.arange(int((seconds - pause) * sample_rate)) / sample_rate
    base = rng.uniform(100.0, 220.0)
    pitch = base * (1 + 0.15 * np.sin(2 * np.pi * rng.uniform(0.3, 1.0) * time))
    phase = 2 * np.pi * np.cumsum(pitch) / sample_rate
    voiced = sum(np.sin(k * phase + rng.uniform(0, 2 * np.pi)) / k for k in range(1, 9))
    syllables = 0.55 + 0.45 * np.sin(2 * np.pi * rng.uniform(3.0, 5.0) * time) ** 2
    audio = 0.3 * voiced * syllables + 0.01 * rng.standard_normal(time.size)
    audio *= np.clip(np.minimum(time, time[-1] - time) / 0.02, 0.0, 1.0)
    silence = np.zeros(int(seconds * sample_rate) - time.size)
    return np.concatenate([audio / max(1.0, np.abs(audio).max() / 0.8), silence]).astype(np.float32)


def _subtype_for(audio_format: str, subtype: str) -> str:
    """`subtype` if `audio_format` supports it, else that format's default for "PCM_16"."""
    if soundfile.check_format(audio_format, subtype):
        return subtype
    if subtype == "PCM_16":
        return soundfile.default_subtype(audio_format)
    raise ValueError(f"{audio_format} files cannot hold {subtype} audio")


def _export_state(state: dict[str, Any], path: Path) -> None:
    export_model_state(state, path)


def default_cache(folder: Path) -> Path:
    """The cache of a build that names none: `$MODEL_FACTORY_CACHE`, else one in `folder`."""
    return Path(os.environ.get(CACHE_ENV) or folder / DEFAULT_CACHE_NAME)


def _cached(path: Path, build: Callable[[Path], object]) -> Path:
    """Return `path`, first building it atomically (temp file, then rename) if missing.

    A lock file beside it makes concurrent builders (xdist workers sharing one cache) wait for
    the first one instead of building the same file again."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with (path.parent / f".{path.name}.lock").open("wb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            _build_atomically(path, build)
    return path


def _build_atomically(path: Path, build: Callable[[Path], object]) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(descriptor)
    try:
        build(Path(temporary))
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    logger.debug("Cached %s", path)


def _install(source: Path, destination: Path, link: bool) -> Path:
    """Copy (or hard-link) a cached file to `destination`, replacing what was there."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.unlink(missing_ok=True)
    if link:
        try:
            os.link(source, destination)
            return destination
        except OSError:
            logger.debug("Cannot hard-link %s, copying it", source)
    shutil.copyfile(source, destination)
    return destination


def _write_yaml(path: Path, data: Mapping[str, Any]) -> Path:
    """Write `data` as UTF-8 YAML, keeping key order."""
    text = yaml.safe_dump(dict(data), sort_keys=False, allow_unicode=True)
    return _write_text(path, text)


def _write_text(path: Path, text: str) -> Path:
    """Write UTF-8 text, creating the parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _digest(value: object) -> str:
    """A short stable hash of a JSON-serialisable value, for cache file names."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]
