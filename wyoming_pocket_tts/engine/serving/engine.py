"""The engine: one thread that owns the Pocket-TTS models and does all model work.

Loading models, encoding voices and generating audio all happen on this thread, so the asyncio
loop stays free to answer `describe` and stream audio while a long synthesis runs. What it speaks
next is the `Scheduler`'s choice, one piece of text at a time; a piece for a language whose model
is not loaded yet loads it first, in turn. A piece is one sentence, and no longer than
`chunking.MAX_PIECE_TOKENS`, so one piece never holds the engine, or a listener's unread-audio
bound, for more than a sentence.

On the graphs alone a new voice's state is a child process's work: it is waited for off this
thread (`voice_states.making`); the requests for that voice wait (`_waits`), the others are
served meanwhile, and the state is measured and spoken here once it arrives.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import threading
import time
from typing import TYPE_CHECKING

from ...audio.shaping import ReplyShaper
from ...errors import MODEL_NOT_DOWNLOADED, MODEL_UNAVAILABLE, SYNTHESIS_FAILED, JobError
from ...offline import VoiceNotDownloaded, is_missing_network, retry_delays, waiting_for
from ...settings import EngineSettings, VoiceSpec
from ...voices.catalog import VoiceCatalog
from ..chunking import chunks
from ..onnx.cache import forget_failures
from ..runtime import generation
from ..tuning.course import Phase
from ..tuning.idle import on_idle
from ..tuning.tuned import Tuning, warm_up
from ..tuning.verdict import log_speed_verdict
from ..voice_states.cache import Voice
from ..voice_states.making import VoiceMaking
from .pool import LoadedModel, ModelPool, ModelUnavailable
from .request import Piece, SpeechRequest
from .scheduler import IDLE, Scheduler

if TYPE_CHECKING:
    from ..runtime import Runtime

_LOGGER = logging.getLogger(__name__)


class Engine:
    """Generates speech for every request on one dedicated thread."""

    def __init__(self, settings: EngineSettings, catalog: VoiceCatalog) -> None:
        self.settings = settings
        self.ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        """Resolves once the model and the first voices are loaded, or fails with the reason."""
        self.scheduler = Scheduler(settings.max_queue)
        self.models = ModelPool(settings, catalog.failures, VoiceMaking(self.scheduler.wake))
        self._catalog = catalog
        self.waiting: str | None = None
        """What the first start waits for while a download finds no network (`offline`)."""
        self.retry_at: float | None = None
        """When (`time.monotonic`) the start tries that download again, while `waiting`."""
        self._thread = threading.Thread(target=self._run, name="pocket-tts-engine", daemon=True)

    @property
    def tuning(self) -> Tuning | None:
        """How the default model was loaded and how fast it runs here, once `ready` resolves."""
        loaded = self.models.peek(self.settings.default_model.code)
        return loaded.tuning if loaded is not None else None

    def start(self) -> None:
        """Start the thread; it loads the model and the first voices, then serves requests."""
        self._thread.start()

    @property
    def alive(self) -> bool:
        """The thread still runs (after `shutdown`: it is inside a model load it cannot leave)."""
        return self._thread.is_alive()

    def shutdown(self, timeout: float = 5.0) -> None:
        """End every request with an error, stop what runs (graph exports too), then stop
        the thread."""
        self.scheduler.stop()
        self.models.stop_exports()
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            if not self._start_up():
                return  # stopped while waiting for the network
        except BaseException as error:  # reported through `ready`
            self.ready.set_exception(error)
            return
        self.ready.set_result(None)
        next_work = self.scheduler.next
        while (work := next_work(self._is_warm, self._idle_after(), self._waits)) is not None:
            if work == IDLE:
                self._move_on()
                if self.settings.unload_after is not None:
                    self.models.unload_unused(self.settings.unload_after)
                continue
            request, piece = work
            rest: list[Piece] = []
            try:
                rest = self._serve(request, piece)
            finally:
                self.scheduler.done(request, rest)

    def _start_up(self) -> bool:
        """Warm up; while a download finds no network, refuse requests with
        `model-not-downloaded` and try again after each delay. False if stopped meanwhile."""
        model = self.settings.default_model
        if self.settings.retry_graphs and self.settings.data_dir is not None:
            for folder in forget_failures(self.settings.data_dir):
                _LOGGER.info(
                    "Graphs tried again (--retry-graphs): forgot the failure in %s", folder
                )
        for delay in retry_delays():
            try:
                self._warm_up()
            except Exception as error:
                if not is_missing_network(error):
                    raise
                self.waiting = waiting_for(model.label, error)
                self.retry_at = time.monotonic() + delay
                text = f"Not ready to speak: waiting for {self.waiting}; next try in {delay:g} s"
                self.scheduler.refuse(JobError(MODEL_NOT_DOWNLOADED, text))
                _LOGGER.warning("Waiting for %s; trying again in %g s", self.waiting, delay)
                if self.scheduler.wait_stopped(delay):
                    return False
                continue
            self.models.used_now()
            if self.waiting is not None:
                _LOGGER.info("The network is back: %s is downloaded", model.label)
                self.waiting = self.retry_at = None
                self.scheduler.refuse(None)
            return True
        raise AssertionError("retry_delays never ends")

    def _idle_after(self) -> float | None:
        """Seconds of idleness after which the engine has work of its own, if any."""
        waits = [self.settings.unload_after if self.models.loaded() else None]
        every = self.models.in_phase(*Phase)
        waits += [model.tuning.course.idle_after for model in every]
        return min((wait for wait in waits if wait is not None), default=None)

    def _move_on(self) -> None:
        """Idle: move each model along its course (`tuning.idle`): graphs exported meanwhile
        serve or are compared with torch, then a comparison runs again (it waits for every
        export, whose child would skew its figures); a request arriving stops it."""
        for loaded in self.models.in_phase(Phase.EXPORTING):
            self._move(loaded)
        if self.models.in_phase(Phase.EXPORTING):
            return
        for loaded in self.models.in_phase(Phase.PROVISIONAL, Phase.COMPARING):
            if loaded.tuning.course.measured_again and not self._move(loaded):
                return  # a request came

    def _move(self, loaded: LoadedModel) -> bool:
        """One idle step of `loaded`'s course; False if nothing changed."""
        moved = on_idle(loaded.tuning, self.scheduler.arrived)
        if moved is None:
            return False
        if moved.model is None:
            loaded.tuning = moved.tuning
            moved.tell()
            return True
        self.models.retune(loaded, moved.model, moved.tuning)
        moved.tell()
        log_speed_verdict(moved.tuning)
        self._warm_voices(loaded)
        return True

    def _warm_voices(self, loaded: LoadedModel) -> None:
        """Make a retuned model's first voices again (its voice states start over when the
        runtime or precision changed), while idle: on the graphs a voice not saved for them is
        a child process's work, which the next request would otherwise wait for. A request
        arriving stops it between voices; a voice that fails is logged, and its request says."""
        specs = self._catalog.voices_of(loaded.settings.code)[: self.settings.voice_cache_size]
        for spec in specs:
            if self.scheduler.arrived.is_set():
                return
            try:
                loaded.voices.get(spec)
            except Exception as error:
                _LOGGER.warning("Voice %s cannot be loaded: %s", spec.name, error)

    def _is_warm(self, request: SpeechRequest) -> bool:
        """Its model is loaded (or known to fail) and its voice state cached: no switch cost."""
        code = request.voice.code
        if self.models.failure(code) is not None:
            return True
        loaded = self.models.peek(code)
        return loaded is not None and loaded.voices.cached(request.voice)

    def _waits(self, request: SpeechRequest, piece: Piece) -> bool:
        """A child makes the state of the voice `piece` speaks in (graphs alone): it waits,
        and the scheduler wakes when the child ends."""
        if not piece.text and not piece.prepare:
            return False  # a pause
        spec = piece.voice or request.voice
        loaded = self.models.peek(spec.code)
        return loaded is not None and loaded.voices.waiting(spec)

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
                first = number == 0 and spec == voices[0]
                try:
                    voice = self._warm_voice(loaded, spec, first)
                except Exception as error:
                    if first:
                        raise RuntimeError(
                            f"default voice {spec.name!r} cannot be loaded: {error}"
                        ) from error
                    _LOGGER.error("Voice %s cannot be loaded: %s", spec.name, error)
                    self._catalog.report_failure(spec, str(error))
                    continue
                if spec == voices[0]:  # first-call costs paid before Ready, not by a request
                    warm_up(loaded.model, voice.state)

    def _warm_voice(self, loaded: LoadedModel, spec: VoiceSpec, first: bool) -> Voice:
        """A voice's state; the default voice that cannot load gives way to the catalog's
        fallback (pocket-tts's own voice), so the server still starts and serves."""
        try:
            return loaded.voices.get(spec)
        except Exception as error:
            if is_missing_network(error):  # not the voice's fault: the start waits for it
                raise VoiceNotDownloaded(spec.name) from error
            fallback = self._catalog.report_failure(spec, str(error)) if first else None
            if fallback is None:
                raise
            try:
                return loaded.voices.get(fallback)
            except Exception:
                raise error from None

    def _serve(self, request: SpeechRequest, piece: Piece) -> list[Piece]:
        """Speak the first bounded chunk of `piece`; return the chunks left for later."""
        try:
            shaper = self._shaper(request)
            if not piece.text and not piece.prepare:
                request.emit(shaper.pause(piece.pause_ms))
                return []
            voice_spec = piece.voice or request.voice
            try:
                loaded = self.models.get(voice_spec.code)
            except ModelUnavailable as error:
                missing = is_missing_network(error)
                code = MODEL_NOT_DOWNLOADED if missing else MODEL_UNAVAILABLE
                self.scheduler.cancel(request, JobError(code, str(error)))
                return []
            if loaded.voices.waiting(voice_spec):
                return [piece]  # its model was just loaded: the voice's child runs now
            voice = self._voice(loaded, request, piece)
            if piece.prepare:
                return []
            texts = [piece.text] if piece.cut else chunks(loaded.model, piece.text)
            first, *rest = texts or [""]
            if first:
                self._speak(loaded.model, voice, first, request, piece.rate)
            return [dataclasses.replace(piece, text=text, cut=True) for text in rest]
        except Exception as error:
            _LOGGER.exception("Synthesis failed")
            self.scheduler.cancel(request, JobError(SYNTHESIS_FAILED, f"Synthesis failed: {error}"))
            return []

    def _shaper(self, request: SpeechRequest) -> ReplyShaper:
        """The request's lead-in, pauses and rate, made at its first piece."""
        if request.shaper is None:
            speech = self.settings.speech
            speed = request.speed if request.speed is not None else speech.speed_for(request.voice)
            request.shaper = ReplyShaper(speech, speed)
        return request.shaper

    def _voice(self, loaded: LoadedModel, request: SpeechRequest, piece: Piece) -> Voice:
        """The piece's voice; one that fails to load is remembered as failed (not offered
        until its file changes) and the catalog's fallback speaks instead, so the request is
        still heard."""
        spec = piece.voice or request.voice
        try:
            return loaded.voices.get(spec)
        except Exception as error:
            fallback = self._catalog.report_failure(spec, str(error))
            if fallback is None:
                raise
            if piece.voice is None:
                request.voice = fallback
            return loaded.voices.get(fallback)

    def _speak(
        self, model: Runtime, voice: Voice, text: str, request: SpeechRequest, rate: float
    ) -> None:
        """Generate `text`, emitting audio (shaped: lead-in, pause, rate) as pocket-tts decodes
        it."""
        started = time.monotonic()
        chunks = samples = 0
        shaper = self._shaper(request)
        shaper.gain = voice.gain
        with generation(model, voice.state, text, request.stop) as stream:
            request.emit(shaper.begin(rate))
            for audio in stream:
                if request.stop.is_set():
                    break
                request.emit(shaper.audio(audio))
                chunks += 1
                samples += audio.shape[-1]
            if not request.stop.is_set():
                request.emit(shaper.end())
        _LOGGER.debug(
            "Spoke %d chars: %d chunks, %.2f s of audio in %.2f s",
            len(text),
            chunks,
            samples / model.sample_rate,
            time.monotonic() - started,
        )
