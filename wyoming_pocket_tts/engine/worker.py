"""The engine: one thread that owns the Pocket-TTS model and does all model work.

Loading the model, encoding voices and generating audio all happen on this thread, so the asyncio
loop stays free to answer `describe` and stream audio while a long synthesis runs. What it speaks
next is the `Scheduler`'s choice, one piece of text at a time.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from typing import TYPE_CHECKING

from ..audio import to_pcm16
from ..settings import EngineSettings
from ..voices.catalog import VoiceCatalog
from ..voices.states import VoiceStates
from ..voices.store import VoiceStateStore, model_identity
from .job import JobError, SynthesisJob
from .scheduler import Scheduler

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
        self._warm_voices = catalog.voices[: settings.voice_cache_size]
        self._failures = catalog.failures
        self._voice_states: VoiceStates | None = None
        self._thread = threading.Thread(target=self._run, name="pocket-tts-engine", daemon=True)

    @property
    def voice_states(self) -> VoiceStates | None:
        """The voice-state cache, once the model is loaded (read its stats, not its entries)."""
        return self._voice_states

    def start(self) -> None:
        """Start the thread; it loads the model and the first voices, then serves requests."""
        self._thread.start()

    def shutdown(self, timeout: float = 5.0) -> None:
        """End every request with an error, stop what runs, then stop the thread."""
        self.scheduler.stop()
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            model = self._load()
        except BaseException as error:  # reported through `ready`
            self.ready.set_exception(error)
            return
        self.ready.set_result(None)
        while (work := self.scheduler.next()) is not None:
            job, text = work
            rest: list[str] = []
            try:
                rest = self._serve(model, job, text)
            finally:
                self.scheduler.done(job, rest)

    def _load(self) -> TTSModel:
        from pocket_tts import TTSModel  # takes seconds (torch)

        settings = self.settings.model
        started = time.monotonic()
        if settings.config is not None:
            model = TTSModel.load_model(config=settings.config, quantize=settings.quantize)
        else:
            model = TTSModel.load_model(language=settings.language, quantize=settings.quantize)
        _LOGGER.info("Loaded model %s in %.1f s", settings.identity, time.monotonic() - started)
        self._voice_states = VoiceStates(model, self.settings.voice_cache_size, self._open_store())
        default, *others = self._warm_voices
        try:
            self._voice_states.get(default)
        except Exception as error:
            raise RuntimeError(
                f"default voice {default.name!r} cannot be loaded: {error}"
            ) from error
        for spec in others:
            try:
                self._voice_states.get(spec)
            except Exception as error:
                _LOGGER.error("Voice %s cannot be loaded: %s", spec.name, error)
                self._failures.record(spec, str(error))
        return model

    def _open_store(self) -> VoiceStateStore | None:
        if self.settings.data_dir is None:
            return None
        folder = self.settings.data_dir / "voice-states"
        try:
            return VoiceStateStore(folder, model_identity(self.settings.model))
        except OSError as error:
            _LOGGER.warning("Voice states will not be saved (%s): %s", folder, error)
            return None

    def _serve(self, model: TTSModel, job: SynthesisJob, text: str) -> list[str]:
        """Speak the first Pocket-TTS chunk of `text`; return the chunks left for later."""
        assert self._voice_states is not None
        try:
            try:
                state = self._voice_states.get(job.voice)
            except Exception as error:
                self._failures.record(job.voice, str(error))
                raise
            first, *rest = _chunks(model, text) or [""]
            if first:
                self._speak(model, state, first, job)
            return rest
        except Exception as error:
            _LOGGER.exception("Synthesis failed")
            job.emit(JobError("synthesis-failed", f"Synthesis failed: {error}"))
            job.stop.set()
            return []

    def _speak(self, model: TTSModel, state: dict, text: str, job: SynthesisJob) -> None:
        """Generate `text`, emitting audio as pocket-tts decodes it."""
        started = time.monotonic()
        chunks = samples = 0
        stream = model.generate_audio_stream(state, text, stop=job.stop)
        try:
            for audio in stream:
                if job.stop.is_set():
                    break
                job.emit(to_pcm16(audio))
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
