"""One side of `script/bench --peers` in a process of its own, driven over stdin and stdout.

    python -m bench.peer_worker library CONFIG NAME=PROMPT [NAME=PROMPT ...]
    python -m bench.peer_worker ptts CHECKPOINT QUANT
    python -m bench.peer_worker sherpa FOLDER NAME=PROMPT [NAME=PROMPT ...]

`library` is pocket-tts with its defaults (`bench.sides.Library`); `ptts` is the Rust runtime,
imported from PYTHONPATH (installed beside the venv) without torch, at temperature 0 and with
text normalization off (`lang="none"`), the voices of the checkpoint's `voices/` folder;
`sherpa` is sherpa-onnx's `OfflineTts`, also from PYTHONPATH and without torch, on the files
`bench.sherpa_layout` wrote, cloning each voice from its prompt. The process prints `ready` once
loaded, then answers one JSON line per request line:

- `{"op": "run", "text": T, "voice": V}`: `{"ttfa", "total", "audio_seconds"}`, a whole reply;
- `{"op": "first_audio", ...}`: `{"seconds"}` to the first chunk, then generation is stopped;
- `{"op": "save", ..., "path": P}`: the whole reply's float32 samples written to P (`.npy`).

Each side times itself, in its own process, as pocket-tts's users and ptts's would; the bench
reads the process's memory from /proc.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

SAMPLE_RATE = 24000
OPS = ("run", "first_audio", "save")
SHERPA_FILES = {
    "lm_main": "lm_main.int8.onnx",
    "lm_flow": "lm_flow.int8.onnx",
    "decoder": "decoder.int8.onnx",
    "encoder": "encoder.onnx",
    "text_conditioner": "text_conditioner.onnx",
    "vocab_json": "vocab.json",
    "token_scores_json": "token_scores.json",
}
"""sherpa-onnx's PocketTTS model fields and their files, as in its int8 release."""


class Side(Protocol):
    def run(self, text: str, voice: str) -> dict[str, float]: ...
    def first_audio(self, text: str, voice: str) -> dict[str, float]: ...
    def save(self, text: str, voice: str, path: str) -> dict[str, Any]: ...


class Ptts:
    """ptts's `TTS`, streaming; a stream left early is closed, which stops its workers."""

    def __init__(self, checkpoint: str, quant: str) -> None:
        import ptts  # only in this process: installed beside the venv, not in it

        self.tts = ptts.TTS(checkpoint, quant=quant, temperature=0.0, lang="none")

    def run(self, text: str, voice: str) -> dict[str, float]:
        started = time.monotonic()
        first, samples = None, 0
        with self.tts.stream(text, voice=voice) as stream:
            for chunk in stream:
                first = time.monotonic() - started if first is None else first
                samples += chunk.shape[-1]
        assert first is not None, "no audio"
        total = time.monotonic() - started
        return {"ttfa": first, "total": total, "audio_seconds": samples / SAMPLE_RATE}

    def first_audio(self, text: str, voice: str) -> dict[str, float]:
        started = time.monotonic()
        with self.tts.stream(text, voice=voice) as stream:
            next(stream)
            seconds = time.monotonic() - started
        return {"seconds": seconds}  # leaving the block stopped the generation

    def save(self, text: str, voice: str, path: str) -> dict[str, Any]:
        audio = np.asarray(self.tts.synth(text, voice=voice), dtype=np.float32)
        np.save(path, audio)
        return {"samples": int(audio.shape[0])}


class Sherpa:
    """sherpa-onnx's `OfflineTts` on its PocketTTS files, on as many threads as this process
    may use, at temperature 0 and one flow step (pocket-tts's `lsd_decode_steps`), the text
    kept as one sentence (`min_char_in_sentence`) and run to pocket-tts's length for it
    (`frames.json`; no end of speech). sherpa-onnx makes a sentence's every latent before it
    decodes any, then hands its callback 15 frames of audio at a time; a callback that returns
    0 stops it."""

    def __init__(self, folder: str, voices: list[str]) -> None:
        import sherpa_onnx  # only in this process: installed beside the venv, not in it
        import soundfile

        self.sherpa = sherpa_onnx
        files = {field: str(Path(folder) / name) for field, name in SHERPA_FILES.items()}
        config = sherpa_onnx.OfflineTtsConfig(
            model=sherpa_onnx.OfflineTtsModelConfig(
                pocket=sherpa_onnx.OfflineTtsPocketModelConfig(**files),
                num_threads=len(os.sched_getaffinity(0)),
                provider="cpu",
            )
        )
        if not config.validate():
            raise ValueError(f"sherpa-onnx refuses the files in {folder}")
        self.tts = sherpa_onnx.OfflineTts(config)
        self.frames: dict[str, int] = json.loads((Path(folder) / "frames.json").read_text())
        self.prompts = {
            name: soundfile.read(path, dtype="float32", always_2d=True)
            for name, path in (v.split("=", 1) for v in voices)
        }

    def _generate(self, text: str, voice: str, keep_going: bool) -> tuple[float | None, np.ndarray]:
        """Seconds to the first audio and the samples made; `keep_going` False stops at the
        first audio."""
        audio, rate = self.prompts[voice]
        frames = self.frames[text]
        settings = self.sherpa.GenerationConfig()
        settings.reference_audio = audio[:, 0]
        settings.reference_sample_rate = rate
        settings.num_steps = 1
        extra = {"max_frames": frames, "frames_after_eos": frames, "temperature": 0,
                 "min_char_in_sentence": len(text) + 1, "seed": 0}  # fmt: skip
        settings.extra = {key: str(value) for key, value in extra.items()}
        first: list[float] = []
        started = time.monotonic()

        def on_audio(samples: np.ndarray, progress: float) -> int:
            if not first:
                first.append(time.monotonic() - started)
            return int(keep_going)

        generated = self.tts.generate(text, settings, callback=on_audio)
        return (first[0] if first else None), np.asarray(generated.samples, dtype=np.float32)

    def run(self, text: str, voice: str) -> dict[str, float]:
        started = time.monotonic()
        first, samples = self._generate(text, voice, keep_going=True)
        assert first is not None, "no audio"
        total = time.monotonic() - started
        return {"ttfa": first, "total": total, "audio_seconds": samples.shape[0] / SAMPLE_RATE}

    def first_audio(self, text: str, voice: str) -> dict[str, float]:
        first, _ = self._generate(text, voice, keep_going=False)
        assert first is not None, "no audio"
        return {"seconds": first}

    def save(self, text: str, voice: str, path: str) -> dict[str, Any]:
        _, samples = self._generate(text, voice, keep_going=True)
        np.save(path, samples)
        return {"samples": int(samples.shape[0])}


class Library:
    """pocket-tts with its defaults, timed by `bench.sides.Library` as in `script/bench`."""

    def __init__(self, config: str, voices: list[str]) -> None:
        from .sides import Library as Timed

        self.library = Timed(Path(config))
        self.prompts = {name: Path(path) for name, path in (v.split("=", 1) for v in voices)}
        for prompt in self.prompts.values():  # encoded before any timing, as ptts's are
            self.library.state(prompt)

    def run(self, text: str, voice: str) -> dict[str, float]:
        return dataclasses.asdict(self.library.run(text, self.prompts[voice]))

    def first_audio(self, text: str, voice: str) -> dict[str, float]:
        return {"seconds": self.library.first_audio(text, self.prompts[voice])}

    def save(self, text: str, voice: str, path: str) -> dict[str, Any]:
        state = self.library.state(self.prompts[voice])
        audio = self.library.model.generate_audio(state, text).numpy().astype(np.float32)
        np.save(path, audio)
        return {"samples": int(audio.shape[0])}


def main(argv: list[str]) -> None:
    kind, source, *rest = argv
    sides: dict[str, Callable[[], Side]] = {
        "library": lambda: Library(source, rest),
        "ptts": lambda: Ptts(source, rest[0]),
        "sherpa": lambda: Sherpa(source, rest),
    }
    side = sides[kind]()
    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        op = request.pop("op")
        if op not in OPS:
            raise ValueError(f"unknown op {op!r}")
        print(json.dumps(getattr(side, op)(**request)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
