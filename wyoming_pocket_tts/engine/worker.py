"""The engine: one thread that owns the Pocket-TTS models and does all model work.

Loading models, encoding voices and generating audio all happen on this thread, so the asyncio
loop stays free to answer `describe` and stream audio while a long synthesis runs. What it speaks
next is the `Scheduler`'s choice, one piece of text at a time; a piece for a language whose model
is not loaded yet loads it first, in turn.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from typing import TYPE_CHECKING

from ..audio.pcm import to_pcm16
from ..settings import EngineSettings
from ..voices.catalog import VoiceCatalog
from ..voices.states import Voice, VoiceStates
from .job import JobError, SynthesisJob
from .models import LoadedModel, ModelPool, ModelUnavailable
from .scheduler import Scheduler
from .tuning import Tuning, warm_up

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)


class Engine:
    """Generates speech for every request on one dedicated thread."""

    def __init__(self, settings: EngineSettings, catalog: VoiceCatalog) -> None:
        self.settings = settings
        self.ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        """Resolves once the model and the first voices are loaded, or fails with the reason."""
        self.scheduler = Scheduler(settings.max_queue)
        self.models = ModelPool(settings, catalog.failures)
        self._catalog = catalog
        self._failures = catalog.failures
        self._thread = threading.Thread(target=self._run, name="pocket-tts-engine", daemon=True)

    @property
    def tuning(self) -> Tuning | None:
        """How the default model was loaded and how fast it runs here, once `ready` resolves."""
        loaded = self.models.peek(self.settings.model.code)
        return loaded.tuning if loaded is not None else None

    @property
    def voice_states(self) -> VoiceStates | None:
        """The default model's voice-state cache once loaded (read its stats, not its entries)."""
        loaded = self.models.peek(self.settings.model.code)
        return loaded.voices if loaded is not None else None

    def start(self) -> None:
        """Start the thread; it loads the model and the first voices, then serves requests."""
        self._thread.start()

    @property
    def alive(self) -> bool:
        """The thread still runs (after `shutdown`: it is inside a model load it cannot leave)."""
        return self._thread.is_alive()

    def shutdown(self, timeout: float = 5.0) -> None:
        """End every request with an error, stop what runs, then stop the thread."""
        self.scheduler.stop()
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            self._warm_up()
        except BaseException as error:  # reported through `ready`
            self.ready.set_exception(error)
            return
        self.ready.set_result(None)
        while (work := self.scheduler.next()) is not None:
            job, text = work
            rest: list[str] = []
            try:
                rest = self._serve(job, text)
            finally:
                self.scheduler.done(job, rest)

    def _warm_up(self) -> None:
        """Load and warm up the default model and its first voices (all models with
        `preload`)."""
        models = self.settings.models if self.settings.preload else self.settings.models[:1]
        for number, settings in enumerate(models[: self.settings.max_models]):
            try:
                loaded = self.models.get(settings.code)
            except ModelUnavailable:
                if number == 0:
                    raise
                continue  # logged; its requests get an error
            voices = self._catalog.voices_of(settings.code)[: self.settings.voice_cache_size]
            for spec in voices:
                try:
                    voice = loaded.voices.get(spec)
                    if spec == voices[0]:  # first-call costs paid before Ready, not by a request
                        warm_up(loaded.model, voice.state)
                except Exception as error:
                    if number == 0 and spec == voices[0]:
                        raise RuntimeError(
                            f"default voice {spec.name!r} cannot be loaded: {error}"
                        ) from error
                    _LOGGER.error("Voice %s cannot be loaded: %s", spec.name, error)
                    self._failures.record(spec, str(error))

    def _serve(self, job: SynthesisJob, text: str) -> list[str]:
        """Speak the first Pocket-TTS chunk of `text`; return the chunks left for later."""
        try:
            try:
                loaded = self.models.get(job.voice.language)
            except ModelUnavailable as error:
                job.emit(JobError("model-unavailable", str(error)))
                job.stop.set()
                return []
            voice = self._voice(loaded, job)
            chunks = [text] if isinstance(text, _Chunk) else _chunks(loaded.model, text)
            first, *rest = chunks or [""]
            if first:
                self._speak(loaded.model, voice, first, job)
            return [_Chunk(chunk) for chunk in rest]
        except Exception as error:
            _LOGGER.exception("Synthesis failed")
            job.emit(JobError("synthesis-failed", f"Synthesis failed: {error}"))
            job.stop.set()
            return []

    def _voice(self, loaded: LoadedModel, job: SynthesisJob) -> Voice:
        """The job's voice; one that fails to load is remembered as failed (not offered until
        its file changes) and the language's default voice speaks instead, so the request is
        still heard."""
        try:
            return loaded.voices.get(job.voice)
        except Exception as error:
            self._failures.record(job.voice, str(error))
            fallback = self._catalog.default_for(job.voice.language)
            if fallback == job.voice:
                raise
            _LOGGER.warning(
                "Voice %s cannot load (%s): using %s", job.voice.name, error, fallback.name
            )
            job.voice = fallback
            return loaded.voices.get(fallback)

    def _speak(self, model: TTSModel, voice: Voice, text: str, job: SynthesisJob) -> None:
        """Generate `text`, emitting audio as pocket-tts decodes it."""
        started = time.monotonic()
        chunks = samples = 0
        stream = model.generate_audio_stream(voice.state, text, stop=job.stop)
        try:
            for audio in stream:
                if job.stop.is_set():
                    break
                job.emit(to_pcm16(audio, voice.gain))
                chunks += 1
                samples += audio.shape[-1]
        except BaseException:
            job.stop.set()
            raise
        finally:
            # pocket-tts generates on two threads of its own, and only `stop` ends them early:
            # drain the stream so that both have finished before the next job starts.
            for _ in stream:
                pass
        _LOGGER.debug(
            "Spoke %d chars: %d chunks, %.2f s of audio in %.2f s",
            len(text),
            chunks,
            samples / model.sample_rate,
            time.monotonic() - started,
        )


class _Chunk(str):
    """Text pocket-tts has already cut: spoken as it is when its turn comes."""


def _chunks(model: TTSModel, text: str) -> list[str]:
    """`text` cut the way `generate_audio_stream` cuts it: sentences of at most 50 tokens."""
    from pocket_tts.default_parameters import MAX_TOKEN_PER_CHUNK
    from pocket_tts.models.text_chunking import split_into_best_sentences

    try:
        return split_into_best_sentences(
            model.flow_lm.conditioner.tokenizer,
            text,
            MAX_TOKEN_PER_CHUNK,
            model.pad_with_spaces_for_short_inputs,
            remove_semicolons=model.remove_semicolons,
            append_terminal_punctuation=model.append_terminal_punctuation,
            capitalize_first_letter=model.capitalize_first_letter,
            replace_characters=model.replace_characters,
        )
    except ValueError:  # nothing left to say once pocket-tts has prepared it
        return []
