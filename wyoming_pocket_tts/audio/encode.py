"""Streaming encoders: 16-bit PCM chunks in, a compressed (or framed) byte stream out as it goes.

The HTTP side answers in the container a client asked for while the engine is still speaking, so
every encoder hands out what it has encoded after each chunk instead of at the end. `pcm` and
`wav` are framed by hand (a WAV header with "unknown" sizes, as OpenAI's service streams it);
`flac`, `mp3` and `opus` (in Ogg) go through libsndfile via `soundfile`, already a dependency
(libsndfile 1.2.2 is bundled in its wheels for amd64 and aarch64). libsndfile wants a seekable file:
`_Sink` gives it one whose bytes leave as soon as they are written, and drops the header fix-ups it
makes at the end by seeking back (sizes and totals a streaming reader does not need).
bench/encoders.py measures the alternatives this choice was made against.

Encoding costs milliseconds per second of audio: callers on the event loop run `feed` and
`finish` in a thread.
"""

from __future__ import annotations

import io
import logging
import struct

import numpy as np

from ..settings import CHANNELS, SAMPLE_RATE, SAMPLE_WIDTH

_LOGGER = logging.getLogger(__name__)

CONTENT_TYPES = {
    "pcm": "audio/pcm",
    "wav": "audio/wav",
    "flac": "audio/flac",
    "mp3": "audio/mpeg",
    "opus": "audio/ogg; codecs=opus",
}
"""Every format an `Encoder` can make, with the media type its HTTP answer carries."""

FORMATS = tuple(CONTENT_TYPES)

_SOUNDFILE_FORMATS = {
    "flac": ("FLAC", "PCM_16"),
    "mp3": ("MP3", "MPEG_LAYER_III"),
    "opus": ("OGG", "OPUS"),
}
"""libsndfile's (major format, subtype) for the formats it encodes."""

# libsndfile commands (sndfile.h) soundfile has no wrapper for.
_SFC_SET_COMPRESSION_LEVEL = 0x1301
_SFC_SET_OGG_PAGE_LATENCY_MS = 0x1302
_SFC_SET_BITRATE_MODE = 0x1305
_SF_BITRATE_MODE_CONSTANT = 0

OGG_PAGE_MS = 100.0
"""An Ogg page leaves every ~100 ms of audio (libsndfile's default holds a whole second)."""
OPUS_COMPRESSION = 0.8
"""About 60 kbit/s; libsndfile's default (about 36) takes libopus to a mode that costs 2.5x the
CPU (bench/encoders.py)."""
MP3_COMPRESSION = 0.6
"""libsndfile's 0 (best) .. 1 (smallest): 0.6 is 64 kbit/s constant, clear for 24 kHz speech.
Constant bit rate: a streamed MP3 has no VBR header, and readers estimate its length from the
first frame's bit rate."""


class Encoder:
    """Encodes one stream of 16-bit mono PCM at `rate` into `fmt`; not thread-safe."""

    def __init__(self, fmt: str, rate: int = SAMPLE_RATE) -> None:
        if fmt not in CONTENT_TYPES:
            raise ValueError(f"unknown audio format {fmt!r} (known: {', '.join(FORMATS)})")
        self.format = fmt
        self.rate = rate
        self._started = False
        self._sink: _Sink | None = None
        self._file = None
        if fmt in _SOUNDFILE_FORMATS:
            import soundfile

            major, subtype = _SOUNDFILE_FORMATS[fmt]
            self._sink = _Sink()
            self._file = soundfile.SoundFile(
                self._sink,
                mode="w",
                samplerate=rate,
                channels=CHANNELS,
                format=major,
                subtype=subtype,
            )
            if fmt == "opus":
                self._command(_SFC_SET_OGG_PAGE_LATENCY_MS, "double", OGG_PAGE_MS)
                self._command(_SFC_SET_COMPRESSION_LEVEL, "double", OPUS_COMPRESSION)
            elif fmt == "mp3":
                self._command(_SFC_SET_BITRATE_MODE, "int", _SF_BITRATE_MODE_CONSTANT)
                self._command(_SFC_SET_COMPRESSION_LEVEL, "double", MP3_COMPRESSION)

    @property
    def costly(self) -> bool:
        """Whether `feed` does real work (a codec) worth moving off the event loop."""
        return self._file is not None

    @property
    def content_type(self) -> str:
        return CONTENT_TYPES[self.format]

    def feed(self, pcm: bytes) -> bytes:
        """Encode a chunk of 16-bit little-endian PCM; returns the bytes ready so far."""
        head = b""
        if not self._started:
            self._started = True
            if self.format == "wav":
                head = wav_header(self.rate)
        if self._file is None:
            return head + pcm
        assert self._sink is not None
        if pcm:
            self._file.write(np.frombuffer(pcm, dtype="<i2"))
        return head + self._take()

    def finish(self) -> bytes:
        """End the stream; returns the last bytes (an encoder's tail, a container's end)."""
        head = self.feed(b"") if not self._started else b""
        if self._file is None:
            return head
        assert self._sink is not None
        self._file.close()
        self._file = None
        return head + self._take()

    def _take(self) -> bytes:
        assert self._sink is not None
        data = self._sink.take()
        if self.format == "mp3" and not self._sink.first_taken and data:
            self._sink.first_taken = True
            data = _without_tag_placeholder(data)
        return data

    def _command(self, command: int, ctype: str, value: float) -> None:
        from soundfile import _ffi, _snd

        assert self._file is not None
        data = _ffi.new(f"{ctype}*", value)
        if not _snd.sf_command(self._file._file, command, data, _ffi.sizeof(ctype)):
            _LOGGER.debug("libsndfile ignored command %#x for %s", command, self.format)

    def close(self) -> None:
        """Release the encoder without finishing (the client left)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def wav_header(rate: int = SAMPLE_RATE) -> bytes:
    """A 44-byte WAV header for a stream of unknown length (sizes 0xFFFFFFFF), mono 16-bit."""
    unknown = 0xFFFFFFFF
    block = CHANNELS * SAMPLE_WIDTH
    return (
        b"RIFF"
        + struct.pack("<I", unknown)
        + b"WAVEfmt "
        + struct.pack("<IHHIIHH", 16, 1, CHANNELS, rate, rate * block, block, 8 * SAMPLE_WIDTH)
        + b"data"
        + struct.pack("<I", unknown)
    )


_MPEG1_KBPS = (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)
_MPEG2_KBPS = (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160)
_MPEG1_RATES = (44100, 48000, 32000)


def _without_tag_placeholder(data: bytes) -> bytes:
    """Drop the blank first MPEG frame libsndfile reserves for the LAME tag it writes at the
    end by seeking back: a stream cannot take it back, and readers choke on a blank one."""
    if len(data) < 4 or data[0] != 0xFF or data[1] & 0xE0 != 0xE0:
        return data
    version = (data[1] >> 3) & 3  # 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    bitrate_index, rate_index = data[2] >> 4, (data[2] >> 2) & 3
    if version == 1 or rate_index == 3 or bitrate_index in (0, 15):
        return data
    kbps = (_MPEG1_KBPS if version == 3 else _MPEG2_KBPS)[bitrate_index]
    rate = _MPEG1_RATES[rate_index] // {3: 1, 2: 2, 0: 4}[version]
    length = (144000 if version == 3 else 72000) * kbps // rate + ((data[2] >> 1) & 1)
    if len(data) >= length and not any(data[4:length]):
        return data[length:]
    return data


class _Sink(io.RawIOBase):
    """A write-only 'file' for libsndfile whose bytes can be taken away as soon as written.

    Bytes before `_sent` have left; a write there (libsndfile updating a header at close) is
    dropped. libsndfile only reads back what it wrote, and never before `_sent` while streaming.
    """

    def __init__(self) -> None:
        self._sent = 0
        """Offset of the first byte not yet taken."""
        self._buffer = bytearray()
        """Bytes from `_sent` on."""
        self._position = 0
        self.first_taken = False

    def seekable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._position
        elif whence == io.SEEK_END:
            offset += self._sent + len(self._buffer)
        self._position = max(0, offset)
        return self._position

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        data = bytes(data)
        size = len(data)
        start = self._position - self._sent
        if start < 0:  # already sent: keep only what lies past it
            data, start = data[-start:], 0
        if data:
            if start > len(self._buffer):
                self._buffer.extend(bytes(start - len(self._buffer)))
            self._buffer[start : start + len(data)] = data
        self._position += size
        return size

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        start = self._position - self._sent
        if start < 0:
            return 0
        data = self._buffer[start : start + len(buffer)]
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)

    def take(self) -> bytes:
        """The bytes written since the last call (they can no longer be changed)."""
        data = bytes(self._buffer)
        self._sent += len(data)
        self._buffer.clear()
        return data
