"""One side of `script/bench --peers` in a process of its own, driven over stdin and stdout.

    python -m bench.peer_worker library CONFIG NAME=PROMPT [NAME=PROMPT ...]
    python -m bench.peer_worker ptts CHECKPOINT QUANT

`library` is pocket-tts with its defaults (`bench.sides.Library`); `ptts` is the Rust runtime,
imported from PYTHONPATH (installed beside the venv) without torch, at temperature 0 and with
text normalization off (`lang="none"`), the voices of the checkpoint's `voices/` folder. The
process prints `ready` once loaded, then answers one JSON line per request line:

- `{"op": "run", "text": T, "voice": V}`: `{"ttfa", "total", "audio_seconds"}`, a whole reply;
- `{"op": "first_audio", ...}`: `{"seconds"}` to the first chunk, then generation is stopped;
- `{"op": "save", ..., "path": P}`: the whole reply's float32 samples written to P (`.npy`).

Each side times itself, in its own process, as pocket-tts's users and ptts's would; the bench
reads the process's memory from /proc.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any, Protocol

import numpy as np

SAMPLE_RATE = 24000
OPS = ("run", "first_audio", "save")


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
    side: Side = Library(source, rest) if kind == "library" else Ptts(source, rest[0])
    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        op = request.pop("op")
        if op not in OPS:
            raise ValueError(f"unknown op {op!r}")
        print(json.dumps(getattr(side, op)(**request)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
