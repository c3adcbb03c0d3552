"""The engine: one thread that owns the Pocket-TTS model and does all model work, in arrival order.

Loading the model, encoding voices and generating audio all happen on this thread, so the asyncio
loop stays free to answer `describe` and stream audio while a long synthesis runs.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
import time
from typing import TYPE_CHECKING

from ..audio import to_pcm16
from ..settings import EngineSettings, ModelSettings
from ..voices.catalog import VoiceCatalog
from ..voices.states import VoiceStates
from ..voices.store import VoiceStateStore, model_identity
from .job import JobError, StreamStalled, SynthesisJob
from .tuning import Tuning, load_tuned_model, warm_up

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)


class EngineBusy(Exception):
    """Too many requests are already waiting for the engine."""


class Engine:
    """Runs synthesis jobs one at a time on a dedicated thread."""

    def __init__(self, settings: EngineSettings, catalog: VoiceCatalog) -> None:
        self.settings = settings
        self.ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        """Resolves once the model and the first voices are loaded, or fails with the reason."""
        self._warm_voices = catalog.voices[: settings.voice_cache_size]
        self._failures = catalog.failures
        self._jobs: queue.Queue[SynthesisJob | None] = queue.Queue()
        self._current: SynthesisJob | None = None
        self._stopping = False
        self._voice_states: VoiceStates | None = None
        self.tuning: Tuning | None = None
        """How the model was loaded and how fast it runs here, once `ready` resolves."""
        self._thread = threading.Thread(target=self._run, name="pocket-tts-engine", daemon=True)

    @property
    def voice_states(self) -> VoiceStates | None:
        """The voice-state cache, once the model is loaded (read its stats, not its entries)."""
        return self._voice_states

    def start(self) -> None:
        """Start the thread; it loads the model and the first voices, then serves jobs."""
        self._thread.start()

    def submit(self, job: SynthesisJob) -> None:
        """Queue a job behind those already waiting; called from the event loop only."""
        if self._jobs.qsize() >= self.settings.max_queue:
            raise EngineBusy(f"{self._jobs.qsize()} requests are already waiting")
        job.submitted = True
        self._jobs.put(job)

    def shutdown(self, timeout: float = 5.0) -> None:
        """Cancel what runs and what waits, then stop the thread."""
        self._stopping = True  # a job dequeued right now sees this, or is seen as current
        current = self._current
        if current is not None:
            current.cancel()
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.cancel()
                job.emit(None)
        self._jobs.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            model = self._load()
        except BaseException as error:  # reported through `ready`
            self.ready.set_exception(error)
            return
        self.ready.set_result(None)
        while (job := self._jobs.get()) is not None:
            self._current = job
            if self._stopping:
                job.cancel()
            try:
                self._serve(model, job)
            finally:
                self._current = None
                job.emit(None)

    def _load(self) -> TTSModel:
        model, self.tuning = load_tuned_model(self.settings.model, self.settings.data_dir)
        store = self._open_store(self.tuning.settings)
        self._voice_states = VoiceStates(model, self.settings.voice_cache_size, store)
        default, *others = self._warm_voices
        try:
            warm_up(model, self._voice_states.get(default))
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

    def _open_store(self, model: ModelSettings) -> VoiceStateStore | None:
        if self.settings.data_dir is None:
            return None
        folder = self.settings.data_dir / "voice-states"
        try:
            return VoiceStateStore(folder, model_identity(model))
        except OSError as error:
            _LOGGER.warning("Voice states will not be saved (%s): %s", folder, error)
            return None

    def _serve(self, model: TTSModel, job: SynthesisJob) -> None:
        if job.stop.is_set():
            return
        assert self._voice_states is not None
        try:
            try:
                state = self._voice_states.get(job.voice)
            except Exception as error:
                self._failures.record(job.voice, str(error))
                raise
            while (text := job.next_text(self.settings.stream_idle_timeout)) is not None:
                self._speak(model, state, text, job)
        except StreamStalled as error:
            _LOGGER.warning("Streamed request abandoned: %s", error)
            job.emit(JobError("stream-timeout", f"Streamed text stalled: {error}"))
        except Exception as error:
            _LOGGER.exception("Synthesis failed")
            job.emit(JobError("synthesis-failed", f"Synthesis failed: {error}"))

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
