"""pocket-tts's generation loop over the exported graphs, with numpy and ONNX Runtime only.

`GraphSpeech` speaks on the graphs and imports neither torch nor pocket-tts (`lean.LeanModel`
puts it behind the seam, `engine.runtime.Runtime`): it reimplements
`TTSModel.generate_audio_stream`'s orchestration (pocket-tts 4.0.1), while every layer runs in
the graphs built from pocket-tts's checkpoint (`graph_build`; exported from its modules,
`onnx.export`, for split weights): the frame's input (`frame.onnx`), the flow LM (`lm.onnx`)
and Mimi's decoder (`mimi.onnx`); the text table is the conditioner's, saved as an array. As in
pocket-tts:
- the text is cut into chunks of at most 50 tokens and each is prepared (`onnx.text_prompt`);
- per chunk, the voice state's caches are copied into caches sized to the chunk (the voice's
  steps, the prompt's and its longest generation: attention reads no more), the state left as
  it was; the text prompt runs together with the first frame (one LM run: attention is
  causal, so the sums are pocket-tts's two runs'), then frames until end of speech; the
  budgets and the end-of-speech countdown are `onnx.plan`'s;
- every LM call of pocket-tts draws its noise (the prompt's too, drawn here and unused):
  N(0, temperature), truncated at `noise_clamp` when the config sets one;
- the LM runs in a thread of its own while the caller's thread decodes Mimi frames as they come
  (all that are queued, in one chunk), and fades the first 5 ms of each chunk's audio in; in a
  reply's first chunk the LM waits for the first frame to be decoded before it goes on (the
  listener waits for that frame, and on a busy host the two stages would share a core).
`stop` is checked before every LM frame and every Mimi frame, so a hang-up ends a reply within a
frame; leaving the stream early stops its thread too.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .graphs import Graphs
from .loop_settings import LoopSettings
from .plan import EndOfSpeech, frame_budget, frames_after_eos, slot_budget
from .runners import FrameRunner, LMRunner, MimiRunner
from .text_prompt import Tokenizer, prepare_text_prompt, split_into_best_sentences
from .voice_arrays import ArrayState, empty_state, lm_caches, offset_of

_LOGGER = logging.getLogger(__name__)

Noise = Callable[[tuple[int, ...], float, "float | None"], np.ndarray]
"""Draws the noise of one LM call: (shape, temperature, clamp) -> float32 array."""


def numpy_noise(generator: np.random.Generator) -> Noise:
    """pocket-tts's noise rule on a numpy generator: N(0, temperature), and with a clamp
    truncated to [-clamp, clamp] (values outside are drawn again, as a truncated normal)."""

    def draw(shape: tuple[int, ...], temperature: float, clamp: float | None) -> np.ndarray:
        std = temperature**0.5
        noise = generator.standard_normal(shape, np.float32) * np.float32(std)
        if clamp is not None and std > 0:
            outside = np.abs(noise) > clamp
            while outside.any():
                noise[outside] = generator.standard_normal(int(outside.sum()), np.float32) * std
                outside = np.abs(noise) > clamp
        return noise

    return draw


class GraphSpeech:
    """A model that speaks on the graphs alone (see the module docstring)."""

    def __init__(self, graphs: Graphs, int8: bool, threads: int, noise: Noise | None = None):
        self.graphs = graphs
        self.int8 = int8
        """Whether its LM and Mimi graphs are the int8 ones."""
        self.settings = LoopSettings.read(graphs.speech)
        self.sample_rate = self.settings.sample_rate
        self.tokenizer = Tokenizer(graphs.folder / self.settings.tokenizer)
        self.table = np.load(graphs.text_embeddings, mmap_mode="r")
        """The text table, mapped: only the rows of tokens spoken are read from disk."""
        self.frame = FrameRunner(graphs.frame)
        self.lm = LMRunner(graphs.lm(int8), threads)
        self.mimi = MimiRunner(graphs.mimi(int8), self.settings.mimi_steps_per_latent, threads)
        self.noise = noise or numpy_noise(np.random.default_rng())
        self._scale = np.asarray(self.settings.emb_std, np.float32)
        self._shift = np.asarray(self.settings.emb_mean, np.float32)

    def empty_state(self) -> ArrayState:
        """The state of no voice prompt (`init_states` of the flow LM, nothing read)."""
        heads, dim = self.lm.cache_shape
        return empty_state(self.graphs.lm_names, heads, dim)

    def generate_audio_stream(
        self,
        model_state: dict[str, dict[str, Any]],
        text_to_generate: str,
        *,
        stop: threading.Event | None = None,
    ) -> Iterator[np.ndarray]:
        """Audio chunks (float32 samples) of `text_to_generate` in the voice of `model_state`
        (either layout, `onnx.voice_arrays`; left unchanged), as pocket-tts's own method."""
        settings = self.settings
        stop = stop or threading.Event()
        chunks = split_into_best_sentences(
            self.tokenizer, text_to_generate, settings.max_tokens, settings.text
        )
        for index, chunk in enumerate(chunks):
            if stop.is_set():
                break
            yield from self.stream(model_state, chunk, stop, first=index == 0)

    def stream(
        self, state: dict[str, dict[str, Any]], piece: str, stop: threading.Event,
        first: bool = True,
    ) -> Iterator[np.ndarray]:  # fmt: skip
        """Audio chunks of one `piece`, already cut (`split_into_best_sentences`): prepared as
        pocket-tts prepares a chunk and spoken, not cut again (`engine.runtime.Runtime`).
        `first`: a reply's first piece (see `_short_text`)."""
        text, guess = prepare_text_prompt(piece, self.settings.text)
        after = frames_after_eos(self.settings.frames_after_eos, guess)
        yield from self._short_text(state, text, after, stop, first)

    def _short_text(
        self, state: dict[str, dict[str, Any]], text: str, frames_after_eos: int,
        stop: threading.Event, first: bool,
    ) -> Iterator[np.ndarray]:  # fmt: skip
        """One chunk: the LM in a thread of its own, Mimi decoded here as frames come. The
        reply's `first` chunk has its first frame decoded before the LM goes on: the first
        audio is what the listener waits for, and the two stages fight for a busy host's
        cores (docs/performance.md)."""
        tokens = self.tokenizer.encode(text)
        latents: queue.Queue[np.ndarray | BaseException | None] = queue.Queue()
        left = threading.Event()  # the caller left the stream: the LM stops too
        heard = threading.Event()  # the first frame is decoded
        if not first:
            heard.set()
        names = self.graphs.lm_names
        offset = offset_of(state, names)
        frames = frame_budget(len(tokens), self.settings)
        slots = slot_budget(offset, len(tokens), frames)
        caches = lm_caches(state, names, slots)
        worker = threading.Thread(
            target=self._frames,
            args=(caches, offset, tokens, frames, frames_after_eos, latents, (stop, left), heard),
            name="graph-lm",
        )  # not a daemon: one ended at exit inside ONNX Runtime aborts the process
        worker.start()
        try:
            yield from self._decoded(latents, stop, heard)
        finally:
            left.set()
            heard.set()
            worker.join()

    def _frames(
        self, caches: list[np.ndarray], offset: int, tokens: list[int], frames: int,
        frames_after_eos: int, latents: queue.Queue[np.ndarray | BaseException | None],
        stops: tuple[threading.Event, threading.Event], heard: threading.Event,
    ) -> None:  # fmt: skip
        """The LM's side: the text prompt, then latents queued until end of speech, the second
        once `heard` is set (the thread's body; an error is queued for the caller)."""
        settings, lm = self.settings, self.lm
        end = EndOfSpeech(settings.eos_threshold, settings.min_frames_before_eos, frames_after_eos)
        try:
            prompt = np.asarray(self.table[tokens], np.float32)[None]
            self._noise(lm.ldim)  # the prompt's own call draws it: its latent is never read
            latent = np.full((1, 1, lm.ldim), np.nan, np.float32)
            for step in range(frames):
                if any(event.is_set() for event in stops):
                    break
                embedding = self.frame.embed(latent)
                if step == 0:  # the prompt and the first frame: one run, as attention is causal
                    embedding = np.concatenate([prompt, embedding], axis=1)
                latent, eos = lm.run(caches, offset, embedding, self._noise(lm.ldim))
                offset += embedding.shape[1]
                if end.ends_at(step, eos):
                    break
                latents.put(latent)
                if step == 0:
                    heard.wait()
            else:
                _LOGGER.warning("Maximum generation length reached without EOS")
        except BaseException as error:  # the caller raises it
            latents.put(error)
        latents.put(None)

    def _noise(self, ldim: int) -> np.ndarray:
        return self.noise((1, ldim), self.settings.temperature, self.settings.noise_clamp)

    def _decoded(
        self, latents: queue.Queue[np.ndarray | BaseException | None], stop: threading.Event,
        heard: threading.Event,
    ) -> Iterator[np.ndarray]:  # fmt: skip
        """Mimi's side: every latent queued so far decoded into one chunk, the first faded in;
        `heard` set once a frame is decoded."""
        mimi = self.mimi
        state = mimi.new_state()
        fade: np.ndarray | None = np.linspace(0, 1, self.sample_rate // 200, dtype=np.float32)
        finished = False
        while not finished:
            batch = [latents.get()]
            while batch[-1] is not None and not isinstance(batch[-1], BaseException):
                try:
                    batch.append(latents.get_nowait())
                except queue.Empty:
                    break
            audio = []
            for latent in batch:
                if latent is None:
                    finished = True
                    break
                if isinstance(latent, BaseException):
                    raise latent
                if stop.is_set():
                    return
                audio.append(mimi.decode(state, latent * self._scale + self._shift))
                heard.set()
            if not audio:
                continue
            chunk = np.concatenate(audio)
            if fade is not None:
                chunk[: fade.size] *= fade[: chunk.size]
                fade = None
            yield chunk
