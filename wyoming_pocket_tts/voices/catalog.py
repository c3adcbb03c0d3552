"""The household's voices: what the operator configured, and how a client's voice name maps to one.

A client only ever names a voice. The name is looked up in this table and nowhere else: it is never
joined to a path, opened, or handed to pocket-tts or the hub, so a client cannot reach a file or URL
the operator did not configure.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path
from urllib.parse import urlsplit

from ..languages import same_language
from ..pocket import default_voice_source
from ..settings import LANGUAGE_CODE, MAX_SPEED, MIN_SPEED, ModelSettings, VoiceSpec
from .choices import DefaultChoices
from .folder import VoiceFolder, file_version

_LOGGER = logging.getLogger(__name__)

_URL_PREFIXES = ("hf://", "http://", "https://")


class VoiceKind(str, Enum):
    """Where a voice prompt comes from."""

    BUILTIN = "built-in"
    FILE = "file"
    URL = "url"


def voice_kind(source: str) -> VoiceKind:
    """Classify a configured voice source (a built-in name, a URL, or a local file)."""
    if source.startswith(_URL_PREFIXES):
        return VoiceKind.URL
    path = Path(source)
    if path.suffix or len(path.parts) > 1 or path.exists():
        return VoiceKind.FILE
    return VoiceKind.BUILTIN


_LANGUAGE_PREFIX_RE = re.compile(rf"^({LANGUAGE_CODE}):(?!//)(.+)$")
"""`fr:mamie=...`: a language code, then a colon not starting a URL (`hf://...`)."""
_SPEED_SUFFIX_RE = re.compile(r",\s*speed\s*=\s*([^,=]*)$")
"""`...,speed=1.2` at the very end: no voice source ends like that."""


def is_audio_prompt(source: str) -> bool:
    """Whether a voice source is audio to clone (file, URL or hf:// audio), not a ready state.

    Built-in names and `.safetensors` files are states; everything else must be encoded by a
    model that has the voice-cloning weights.
    """
    kind = voice_kind(source)
    if kind is VoiceKind.BUILTIN:
        return False
    path = urlsplit(source).path if source.startswith(("http://", "https://")) else source
    return not path.split("@")[0].lower().endswith(".safetensors")


def parse_voice_arg(value: str) -> VoiceSpec:
    """Parse `--voice [CODE:]NAME=SOURCE[,speed=FACTOR]`; a bare SOURCE names the voice after
    itself or its stem.

    CODE is the language code of the model that speaks it (default: the first model's); FACTOR
    its speaking rate (default: `--speed`).
    """
    speed = None
    options = _SPEED_SUFFIX_RE.search(value)
    if options:
        value = value[: options.start()]
        try:
            speed = float(options.group(1))
        except ValueError:
            raise ValueError(f"speed must be a number, got {options.group(1)!r}") from None
        if not MIN_SPEED <= speed <= MAX_SPEED:  # also NaN
            raise ValueError(f"speed must be between {MIN_SPEED} and {MAX_SPEED}, got {speed:g}")
    language = ""
    prefixed = _LANGUAGE_PREFIX_RE.match(value)
    if prefixed:
        language, value = prefixed.group(1), prefixed.group(2)
    name, sep, source = value.partition("=")
    if not sep:
        source = value
        name = Path(value).stem if voice_kind(value) is VoiceKind.FILE else value
    name, source = name.strip(), source.strip()
    if not name or not source:
        raise ValueError(f"expected [CODE:]NAME=SOURCE[,speed=FACTOR] or SOURCE, got {value!r}")
    return VoiceSpec(name=name, source=source, code=language, speed=speed)


def default_voice(model: ModelSettings) -> VoiceSpec:
    """Pocket-TTS's own default voice for the model (a built-in, or its audio for custom models)."""
    name, source = default_voice_source(model.model, model.config)
    return VoiceSpec(name=name, source=source, code=model.code)


def with_default_voices(
    voices: Sequence[VoiceSpec], models: Sequence[ModelSettings]
) -> list[VoiceSpec]:
    """The configured voices, plus pocket-tts's default voice for each language that has none.

    A default voice whose name is taken gets its language code appended (`alba-fr`).
    """
    result = list(voices)
    for model in models:
        if any(spec.code == model.code for spec in result):
            continue
        spec = default_voice(model)
        if any(other.name == spec.name for other in result):
            spec = dataclasses.replace(spec, name=f"{spec.name}-{model.code}")
        result.append(spec)
    return result


def describe_voice(spec: VoiceSpec) -> str:
    """A short description for Home Assistant's voice picker."""
    kind = voice_kind(spec.source)
    if kind is VoiceKind.BUILTIN:
        return f"{spec.name} (Pocket-TTS built-in voice)"
    origin = Path(spec.source.split("@")[0]).name
    if origin.endswith(".safetensors"):
        return f"{spec.name} (voice state {origin})"
    return f"{spec.name} (cloned from {origin})"


class LoadFailures:
    """Voices whose prompt could not be loaded, until their file changes.

    Written by the engine thread and read on the loop; each is a single dict operation, which
    the GIL makes atomic, so no lock is needed. Once the engine reports that the model cannot
    clone voices (`refuse_cloning`), every audio voice fails, also one never tried yet.
    """

    def __init__(self) -> None:
        self._failed: dict[str, tuple[object, str]] = {}
        self._no_cloning: dict[str, tuple[str, str]] = {}
        self._told: set[str] = set()

    def refuse_cloning(self, language: str, reason: str, remedy: str) -> None:
        """The model of `language` cannot clone: its voices cloned from audio are unavailable."""
        self._no_cloning[language] = (reason, remedy)

    def record(self, spec: VoiceSpec, reason: str) -> None:
        """Remember that `spec` failed to load as its source is now."""
        self._failed[f"{spec.code}:{spec.source}"] = (_source_version(spec), reason)

    def check(self, spec: VoiceSpec) -> str | None:
        """Why `spec` cannot load as it is now, None if it can; a voice refused for want of the
        cloning weights is named in the log the first time it is checked."""
        no_cloning = self._no_cloning.get(spec.code)
        if no_cloning is not None and is_audio_prompt(spec.source):
            reason, remedy = no_cloning
            if spec.name not in self._told:  # once per voice, whoever asks first
                self._told.add(spec.name)
                _LOGGER.warning("Voice %s is not offered: %s. %s", spec.name, reason, remedy)
            return reason
        failure = self._failed.get(f"{spec.code}:{spec.source}")
        if failure is None or failure[0] != _source_version(spec):
            return None
        return failure[1]


def _source_version(spec: VoiceSpec) -> object:
    return file_version(Path(spec.source)) if voice_kind(spec.source) is VoiceKind.FILE else None


class VoiceCatalog:
    """The household's voices by name: configured ones first (the first is the default), then
    those in the voices folders, rescanned whenever the list is needed.

    Every voice belongs to one language (a configured model's code). A voices folder's files
    belong to the first language, and those in its subfolder named by a language code (`fr/`)
    to that language. A language's default is the voice `chosen` for it while that voice exists,
    else its first configured voice; defaults are listed first (Home Assistant takes the first
    voice of a language).
    """

    def __init__(
        self,
        voices: list[VoiceSpec],
        folders: Sequence[Path] = (),
        languages: Sequence[str] = (),
        chosen: DefaultChoices | None = None,
        last_resort: Mapping[str, VoiceSpec] | None = None,
    ) -> None:
        if not voices:
            raise ValueError("at least one voice is required")
        self.languages = list(languages) or [voices[0].code or "en"]
        first = self.languages[0]
        self._configured: dict[str, VoiceSpec] = {}
        for spec in voices:
            if spec.name in self._configured:
                raise ValueError(f"voice {spec.name!r} is configured twice")
            if not spec.code:
                spec = dataclasses.replace(spec, code=first)
            if spec.code not in self.languages:
                raise ValueError(f"voice {spec.name!r}: language {spec.code!r} is not served")
            self._configured[spec.name] = spec
        self._first = next(iter(self._configured.values()))
        self.chosen = chosen or DefaultChoices()
        self._last_resort = dict(last_resort or {})
        """Per language, pocket-tts's own default voice: it speaks when the language's default
        voice cannot (a recording without the cloning weights), so the language still serves."""
        self.failures = LoadFailures()
        self._roots = list(folders)
        self._folders: dict[Path, VoiceFolder] = {}
        self._found: dict[str, VoiceSpec] = {}
        self._scan()

    @property
    def voices(self) -> list[VoiceSpec]:
        """All voices as they are now: the default voice first, then each language's chosen
        default, then the others in configured and folder order."""
        self._scan()
        front = [self._default_for(self._first.code).name]
        front += [self._default_for(code).name for code in self.languages if self.chosen.get(code)]
        everything = [*self._configured.values(), *self._found.values()]
        names = {spec.name for spec in everything}
        for code, spec in self._last_resort.items():  # while it stands in for the default
            if spec.name not in names and self.failures.check(self._default_for(code)):
                everything.append(spec)
        return sorted(
            everything, key=lambda s: front.index(s.name) if s.name in front else len(front)
        )

    @property
    def default(self) -> VoiceSpec:
        """The default voice: the first configured voice's language's default."""
        return self.default_for(self._first.code)

    @property
    def configured(self) -> list[VoiceSpec]:
        """The voices configured on the command line (or built-in defaults), not from folders."""
        return list(self._configured.values())

    def voices_of(self, language: str) -> list[VoiceSpec]:
        """The voices of one language, its default first."""
        return [spec for spec in self.voices if spec.code == language]

    def default_for(self, language: str) -> VoiceSpec:
        """The default voice of a configured language: the one chosen for it while it exists,
        else its first configured voice."""
        if self._roots:
            self._scan()
        return self._default_for(language)

    def _default_for(self, language: str) -> VoiceSpec:
        chosen = self._lookup(self.chosen.get(language))
        if chosen is not None and chosen.code == language:
            return chosen
        return next(
            (spec for spec in self._configured.values() if spec.code == language),
            self._first,
        )

    def resolve(self, name: object, language: object = None) -> VoiceSpec:
        """The voice called `name`; else the default voice of `language` if it is served; else
        the default voice (with a warning for an unknown name).

        `name` is only ever a key into this table: never a path, a URL or a pocket-tts source.
        """
        if name is None:
            return self._default_of(language)
        spec = self.find(name)
        if spec is None:
            fallback = self._default_of(language)
            _LOGGER.warning("Unknown voice %.64r requested: using %s", name, fallback.name)
            return fallback
        reason = self.failures.check(spec)
        if reason is not None:
            return self._fallback(spec, reason) or spec
        return spec

    def find(self, name: object) -> VoiceSpec | None:
        """The voice called `name`, if there is one (the folders are rescanned only when it is
        not already known)."""
        spec = self._lookup(name)
        if spec is None and self._roots:
            self._scan()
            spec = self._lookup(name)
        return spec

    def report_failure(self, spec: VoiceSpec, reason: str) -> VoiceSpec | None:
        """The engine could not load `spec`: remember it (not offered until its file changes)
        and return the voice that speaks instead, or None when `spec` is its language's
        default (then nothing can)."""
        self.failures.record(spec, reason)
        return self._fallback(spec, reason)

    def _fallback(self, spec: VoiceSpec, reason: str) -> VoiceSpec | None:
        """The one rule for a voice that cannot load: its language's default speaks instead;
        for the default itself, pocket-tts's own default voice of the language."""
        fallback = self.default_for(spec.code)
        if fallback == spec:
            fallback = self._last_resort.get(spec.code, spec)
        if fallback == spec:
            return None
        _LOGGER.warning("Voice %s cannot load (%s): using %s", spec.name, reason, fallback.name)
        return fallback

    def served_language(self, language: str) -> str | None:
        """The configured code that serves `language` (`fr-FR` -> `fr`), if one does."""
        return next((code for code in self.languages if same_language(language, code)), None)

    def _default_of(self, language: object) -> VoiceSpec:
        code = self.served_language(language) if isinstance(language, str) else None
        return self.default if code is None else self.default_for(code)

    def _lookup(self, name: object) -> VoiceSpec | None:
        if not isinstance(name, str):
            return None
        return self._configured.get(name) or self._found.get(name)

    def _scan(self) -> None:
        found: dict[str, VoiceSpec] = {}
        for folder in self._current_folders():
            for spec in folder.scan():
                if spec.name not in self._configured:
                    found.setdefault(spec.name, spec)
        self._found = found

    def _current_folders(self) -> list[VoiceFolder]:
        """Each root for the first language, then its language subfolders that exist now."""
        wanted = []
        for root in self._roots:
            wanted.append((root, self.languages[0]))
            wanted += [(root / code, code) for code in self.languages if (root / code).is_dir()]
        folders = []
        for path, language in wanted:
            if path not in self._folders:
                self._folders[path] = VoiceFolder(path, language)
            folders.append(self._folders[path])
        return folders
