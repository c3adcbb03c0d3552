"""Encoded voice prompts (pocket-tts model states), kept in a small LRU on the engine thread.

Encoding a prompt (audio -> Mimi latents -> KV cache) costs a second or more of CPU, so states are
cached under the voice's resolved identity: its source, the truncate flag and, for files, a content
fingerprint, so that an edited file is encoded again. pocket-tts deep-copies a state for every
generation (`copy_state=True`), so cached states are never mutated. Each cached `Voice` also
carries the gain that brings it to the target loudness (see `audio.loudness`).

Where a new voice's state is a child process's work (`Runtime.voices_in_child`: the graphs
alone, `children.voice.in_child`), `waiting` starts it off the engine thread (`making`) and says
whether it still runs, so that the engine serves other requests meanwhile; `get` takes the
state made, then measures it here, on the engine thread, which owns the model. Two requests
for one voice share its child.
"""

from __future__ import annotations

import hashlib
import logging
import time
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ...audio.loudness import gain_for
from ...settings import LoudnessSettings, VoiceSpec
from ...voices.catalog import VoiceKind, is_audio_prompt, voice_kind
from ...voices.cloning import VoiceCloningUnavailable
from ...voices.folder import file_version
from .calibration import measure_voice
from .lru import LruCache
from .making import VoiceMaking
from .store import ModelState, VoiceStateStore

if TYPE_CHECKING:
    from ..runtime import Runtime

_LOGGER = logging.getLogger(__name__)

TRUNCATE_PROMPTS = True
"""Prompts from URLs are cut to 30 s by pocket-tts; files by `audio.prompt_reading.read_prompt`."""


@dataclass(frozen=True)
class VoiceKey:
    """What makes two voice states the same."""

    source: str
    truncate: bool
    fingerprint: str = ""
    """sha256 of a file's content; empty for built-in names and URLs."""

    def __str__(self) -> str:
        return f"{self.source}{'#' + self.fingerprint[:12] if self.fingerprint else ''}"

    @property
    def is_prompt(self) -> bool:
        """Audio to clone (`is_audio_prompt`): costly to encode, so its state is worth saving."""
        return is_audio_prompt(self.source)


class FileFingerprints:
    """Content hashes of files, recomputed only when `file_version` (size, mtime) changes."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[object, str]] = {}

    def __call__(self, path: Path) -> str:
        version = file_version(path)
        if version is None:
            raise FileNotFoundError(f"voice file {path} does not exist")
        known = self._known.get(path)
        if known is not None and known[0] == version:
            return known[1]
        digest = hashlib.sha256()
        with path.open("rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
        self._known[path] = (version, digest.hexdigest())
        return digest.hexdigest()


@dataclass(frozen=True)
class Voice:
    """A voice ready to speak: its pocket-tts state and the gain that brings it to the target."""

    state: ModelState
    gain: float | None = None
    """Linear gain applied to every sample before PCM conversion; None: loudness is off."""


class VoiceStates:
    """Voices by spec, for the engine thread only (it owns the model; no locks needed).

    A voice is measured once when its state is made (see `audio.loudness`); its loudness is
    saved under the state's key, so a restart does not measure it again.
    """

    def __init__(
        self,
        runtime: Runtime,
        capacity: int,
        store: VoiceStateStore | None,
        loudness: LoudnessSettings | None = None,
        language: str = "en",
        making: VoiceMaking | None = None,
    ) -> None:
        self._runtime = runtime
        self._store = store
        self._loudness = loudness
        self._language = language
        """The model's language code: the calibration phrase is spoken in it."""
        self.cache: LruCache[VoiceKey, Voice] = LruCache(capacity)
        self._fingerprints = FileFingerprints()
        self._children = making or VoiceMaking()
        self._making: dict[VoiceKey, Future[ModelState]] = {}
        """States children make or have made, until `get` takes them (an abandoned one stays
        until its voice is asked for again)."""

    def key_for(self, spec: VoiceSpec) -> VoiceKey:
        """The identity of a voice's state as it is on disk right now."""
        if voice_kind(spec.source) is VoiceKind.FILE:
            path = Path(spec.source).expanduser().resolve()
            return VoiceKey(str(path), TRUNCATE_PROMPTS, self._fingerprints(path))
        return VoiceKey(spec.source, TRUNCATE_PROMPTS)

    def cached(self, spec: VoiceSpec) -> bool:
        """Its state is in memory as its source is now (using it costs no encode or load)."""
        try:
            return self.key_for(spec) in self.cache
        except OSError:
            return False

    def get(self, spec: VoiceSpec) -> Voice:
        """The voice for `spec`, encoding (and measuring) it on a cache miss; a state that a
        child still makes (`waiting`) is waited for."""
        key = self.key_for(spec)
        return self.cache.get_or_create(key, lambda: self._load(spec, key))

    def waiting(self, spec: VoiceSpec) -> bool:
        """Where voices are made in a child: a child makes the state of `spec` (started now if
        `get` would need one and none runs for it), so `get` would wait. False when `get`
        costs no child, or fails at once (it raises the reason then)."""
        if not self._runtime.voices_in_child:
            return False
        try:
            key = self.key_for(spec)
            if key in self.cache:
                return False
            future = self._making.get(key)
            if future is None:
                source = self._prompt_source(spec, key)
                if not self._needs_child(key, source):
                    return False
                make = partial(self._make, spec, key, source)
                future = self._making[key] = self._children.start(spec.name, make)
        except Exception:
            return False
        return not future.done()

    def _needs_child(self, key: VoiceKey, source: str | Path) -> bool:
        """Its state is a child's work: not a saved state (read here), not a prompt these
        weights refuse, not saved already."""
        if isinstance(source, Path) and not is_audio_prompt(str(source)):
            return False
        if key.is_prompt and not self._runtime.can_clone:
            return False
        saved = self._saved_path(key)
        return not (saved is not None and self._kept(key) and saved.is_file())

    def _saved_path(self, key: VoiceKey) -> Path | None:
        if self._store is None:
            return None
        return self._store.path_for(
            key.fingerprint or key.source, key.truncate, self._runtime.can_clone
        )

    def _load(self, spec: VoiceSpec, key: VoiceKey) -> Voice:
        making = self._making.pop(key, None)
        source = self._prompt_source(spec, key)
        if not self._runtime.can_clone and key.is_prompt:
            raise VoiceCloningUnavailable()
        store, saved = self._store, self._saved_path(key)
        kept = self._kept(key)
        found = store.load(self._runtime, saved) if store and saved and kept else None
        if found is not None:
            state, loudness = found
            _LOGGER.info("Loaded voice %s from its saved state", spec.name)
            fresh = False
        else:
            state = self._make(spec, key, source) if making is None else making.result()
            loudness = None
            if store is not None and saved is not None and self._loudness and not kept:
                loudness = store.load_loudness(saved)
            fresh = kept
        if self._loudness is not None and loudness is None:
            loudness = self._calibrate(spec, state)
            fresh = True
        if store is not None and saved is not None and fresh:
            if kept:
                store.save(state, saved, loudness)
            elif loudness is not None:
                store.save_loudness(saved, loudness)
        if self._loudness is None or loudness is None:
            return Voice(state)
        return Voice(state, gain_for(loudness, self._loudness.target_lufs, spec.name))

    def _kept(self, key: VoiceKey) -> bool:
        """Its state is worth saving: costly to make (an encoded prompt; where voices are made
        in a child, a built-in name too)."""
        builtin = voice_kind(key.source) is VoiceKind.BUILTIN
        return key.is_prompt or (builtin and self._runtime.voices_in_child)

    def _make(self, spec: VoiceSpec, key: VoiceKey, source: str | Path) -> ModelState:
        """Encode an audio prompt, or load a built-in or `.safetensors` state."""
        started = time.monotonic()
        state = self._runtime.voice_state(source, key.truncate, spec.name)
        elapsed = time.monotonic() - started
        if key.is_prompt:
            _LOGGER.info("Encoded voice %s in %.2f s", spec.name, elapsed)
        else:
            _LOGGER.info("Loaded voice %s in %.3f s", spec.name, elapsed)
        return state

    def _calibrate(self, spec: VoiceSpec, state: ModelState) -> float:
        assert self._loudness is not None
        return measure_voice(self._runtime, state, self._language, spec.name)

    def _prompt_source(self, spec: VoiceSpec, key: VoiceKey) -> str | Path:
        kind = voice_kind(spec.source)
        if kind is VoiceKind.FILE:
            path = Path(key.source)
            if not path.is_file():
                raise FileNotFoundError(f"voice file {path} does not exist")
            return path
        return spec.source  # a URL, or a built-in name (`encoder.builtin_source`)
