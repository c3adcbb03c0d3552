"""Which library encodes the HTTP answers: libsndfile (soundfile) against FFmpeg (PyAV).

`.venv/bin/python -m bench.encoders [--seconds S] [--rounds N]` (PyAV is optional: `pip install
av` to compare). For each format and library: CPU seconds per second of 24 kHz speech-like audio
(median of interleaved rounds, fed in 80 ms chunks as the engine makes them), whether the bytes
stream (share of the output out before the end), and the installed size of each library.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import io
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from wyoming_pocket_tts.audio.encode import Encoder

RATE = 24000
CHUNK = 1920  # one pocket-tts frame, 80 ms
FORMATS = ("wav", "flac", "mp3", "opus", "aac")
_AV_CODECS = {
    "wav": ("wav", "pcm_s16le"),
    "flac": ("flac", "flac"),
    "mp3": ("mp3", "libmp3lame"),
    "opus": ("ogg", "libopus"),
    "aac": ("adts", "aac"),
}


def speechlike(seconds: float) -> list[bytes]:
    """Noise shaped by a 4 Hz syllable envelope, as 16-bit PCM frames (encoders hate noise)."""
    rng = np.random.default_rng(0)
    t = np.arange(int(seconds * RATE)) / RATE
    voiced = np.sin(2 * np.pi * 140 * t) + 0.5 * np.sin(2 * np.pi * 280 * t)
    audio = (0.6 * voiced + 0.2 * rng.standard_normal(t.size)) * (
        0.5 + 0.5 * np.sin(2 * np.pi * 4 * t)
    )
    pcm = (audio * 8000).astype("<i2").tobytes()
    return [pcm[i : i + 2 * CHUNK] for i in range(0, len(pcm), 2 * CHUNK)]


def with_soundfile(fmt: str, chunks: list[bytes]) -> tuple[int, int]:
    encoder = Encoder(fmt, RATE)
    early = sum(len(encoder.feed(chunk)) for chunk in chunks)
    return early, early + len(encoder.finish())


def with_pyav(fmt: str, chunks: list[bytes]) -> tuple[int, int]:
    import av

    container_format, codec = _AV_CODECS[fmt]
    sink = io.BytesIO()
    container = av.open(sink, "w", format=container_format)
    stream = container.add_stream(codec, rate=48000 if codec == "libopus" else RATE)
    assert isinstance(stream, av.audio.stream.AudioStream)
    stream.layout = "mono"
    if codec in ("libmp3lame", "aac"):
        stream.bit_rate = 64000
    resampler = av.AudioResampler(format=stream.format.name, layout="mono", rate=int(stream.rate))
    early = 0
    for position, chunk in enumerate(chunks):
        frame = av.AudioFrame.from_ndarray(
            np.frombuffer(chunk, "<i2")[None, :], format="s16", layout="mono"
        )
        frame.sample_rate, frame.pts = RATE, position * CHUNK
        for resampled in resampler.resample(frame):
            container.mux(stream.encode(resampled))
        early = sink.tell()
    container.mux(stream.encode(None))
    container.close()
    return early, len(sink.getvalue())


def cpu_seconds(
    encode: Callable[[str, list[bytes]], tuple[int, int]], fmt: str, chunks: list[bytes]
) -> tuple[float, int, int]:
    started = time.process_time()
    early, total = encode(fmt, chunks)
    return time.process_time() - started, early, total


def installed_mb(distribution: str) -> float:
    """Bytes the distribution's files take on disk (its bundled native libraries included)."""
    try:
        files = importlib.metadata.distribution(distribution).files or []
    except importlib.metadata.PackageNotFoundError:
        return float("nan")
    total = 0
    for file in files:
        path = Path(str(file.locate()))
        if path.is_file():
            total += path.stat().st_size
    return total / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    chunks = speechlike(args.seconds)
    libraries: dict[str, Callable[[str, list[bytes]], tuple[int, int]]] = {
        "soundfile": with_soundfile
    }
    if importlib.util.find_spec("av") is not None:
        libraries["pyav"] = with_pyav
    print(
        f"{args.seconds:.0f} s of audio in {CHUNK / RATE * 1000:.0f} ms chunks, "
        f"median of {args.rounds} interleaved rounds"
    )
    print(f"{'format':6} {'library':9} {'ms CPU per s':>12} {'kbit/s':>7} {'streamed':>8}")
    cases = [
        (fmt, name)
        for fmt in FORMATS
        for name in libraries
        if not (name == "soundfile" and fmt == "aac")
    ]
    runs: dict[tuple[str, str], list[tuple[float, int, int]]] = {case: [] for case in cases}
    for _ in range(args.rounds):
        for fmt, name in cases:
            runs[fmt, name].append(cpu_seconds(libraries[name], fmt, chunks))
    for fmt in FORMATS:
        for name in libraries:
            if (fmt, name) not in runs:
                print(f"{fmt:6} {name:9} {'(no AAC encoder)':>30}")
                continue
            cpu = statistics.median(run[0] for run in runs[fmt, name])
            _, early, total = runs[fmt, name][0]
            print(
                f"{fmt:6} {name:9} {1000 * cpu / args.seconds:12.2f} "
                f"{8 * total / args.seconds / 1000:7.0f} {early / total:8.0%}"
            )
    for name, dist in (("soundfile", "soundfile"), ("pyav", "av")):
        print(f"installed: {name} {installed_mb(dist):.1f} MB")


if __name__ == "__main__":
    main()
