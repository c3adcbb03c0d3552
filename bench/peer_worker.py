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

import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

SAMPLE_RATE = 24000


class Side(Protocol):
    def chunks(self, text: str, voice: str) -> Iterator[np.ndarray]: ...


class Ptts:
    """ptts's `TTS` streaming; a stream left early is closed (its workers stop)."""

    def __init__(self, checkpoint: str, quant: str) -> None:
        import ptts  # only in this process: installed beside the venv, not in it

        self.tts = ptts.TTS(checkpoint, quant=quant, temperature=0.0, lang="none")

    def chunks(self, text: str, voice: str) -> Iterator[np.ndarray]:
        with self.tts.stream(text, voice=voice) as stream:
            yield from stream


class Library:
    """pocket-tts with its defaults, as `bench.sides.Library` calls it."""

    def __init__(self, config: str, voices: list[str]) -> None:
        from .sides import Library as Called

        self.library = Called(Path(config))
        self.prompts = {name: Path(path) for name, path in (v.split("=", 1) for v in voices)}
        for prompt in self.prompts.values():  # encoded before any timing, as ptts's are
            self.library.state(prompt)

    def chunks(self, text: str, voice: str) -> Iterator[np.ndarray]:
        state = self.library.state(self.prompts[voice])
        for chunk in self.library.model.generate_audio_stream(state, text):
            yield chunk.numpy()


def _run(side: Side, text: str, voice: str) -> dict[str, float]:
    started = time.monotonic()
    first, samples = None, 0
    for chunk in side.chunks(text, voice):
        first = time.monotonic() - started if first is None else first
        samples += chunk.shape[-1]
    assert first is not None, "no audio"
    total = time.monotonic() - started
    return {"ttfa": first, "total": total, "audio_seconds": samples / SAMPLE_RATE}


def _first_audio(side: Side, text: str, voice: str) -> dict[str, float]:
    started = time.monotonic()
    chunks = side.chunks(text, voice)
    next(chunks)
    seconds = time.monotonic() - started
    chunks.close()  # type: ignore[attr-defined]  # a generator: stops its stream
    return {"seconds": seconds}


def _save(side: Side, text: str, voice: str, path: str) -> dict[str, Any]:
    chunks = [np.asarray(chunk, dtype=np.float32).reshape(-1) for chunk in side.chunks(text, voice)]
    audio = np.concatenate(chunks)
    np.save(path, audio)
    return {"samples": int(audio.shape[0])}


OPS: dict[str, Callable[..., dict[str, Any]]] = {
    "run": _run,
    "first_audio": _first_audio,
    "save": _save,
}


def main(argv: list[str]) -> None:
    kind, source, *rest = argv
    side: Side = Library(source, rest) if kind == "library" else Ptts(source, rest[0])
    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        op = OPS[request.pop("op")]
        print(json.dumps(op(side, **request)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
