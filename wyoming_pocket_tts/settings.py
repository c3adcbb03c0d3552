"""Typed settings handed from the command line to the engine and the protocol handler, with
every default and bound; the command line and the add-on read them from here."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .engine.runtime import RuntimeKind

SAMPLE_RATE = 24000
"""Pocket-TTS's Mimi codec always produces 24 kHz mono audio."""
SAMPLE_WIDTH = 2
"""Bytes per sample: audio leaves the server as signed 16-bit little-endian PCM."""
CHANNELS = 1
DEFAULT_LOUDNESS_LUFS = -20.0
"""Every voice is brought to this integrated loudness unless `--loudness off` (see the README)."""
LOUDNESS_RANGE_LUFS = (-70.0, 0.0)
"""The loudness targets `--loudness` accepts."""
DEFAULT_URI = "tcp://0.0.0.0:10200"
MAX_TORCH_THREADS = 64
MAX_UNLOAD_MINUTES = 1440
"""The longest `--unload-after`: a day."""
"""Most torch threads `--threads` accepts (a sanity bound, not a recommendation)."""
MAX_SILENCE_MS = 10_000
"""Longest silence made at once (`--sentence-pause`, `--lead-silence`, an SSML break): more is
surely a typo (seconds for milliseconds)."""
LANGUAGE_CODE = r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?"
"""A language code as an operator writes one (`fr`, `en-GB`, `pt_BR`): the one grammar of
`--voice CODE:...`, `--model-config CODE=...` and pronunciation files."""


def default_data_dir() -> Path:
    """The XDG cache folder: saved voice states can always be made again."""
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "wyoming-pocket-tts"


@dataclass(frozen=True)
class VoiceSpec:
    """A voice the operator configured: the name clients ask for and where its prompt is."""

    name: str
    """Name listed in `info` and matched against a client's `voice.name`."""
    source: str
    """A pocket-tts built-in voice, an audio or `.safetensors` file, or an hf:// or https:// URL."""
    code: str = ""
    """Language code of the model that speaks it (`ModelSettings.code`); empty: the first
    model's."""
    speed: float | None = None
    """Speaking rate of this voice (0.5-2.0); None: the server's `SpeechSettings.speed`."""


AUTO = "auto"
"""`--runtime auto`: the runtime this host's measurement chooses (`ModelSettings.runtime` None)."""
RUNTIMES = (*(kind.value for kind in RuntimeKind), AUTO)
"""What `--runtime` accepts: a runtime's kind (`engine.runtime.RuntimeKind`), or `auto`."""


@dataclass(frozen=True)
class ModelSettings:
    """Which Pocket-TTS model to load and how."""

    model: str | None = "english"
    """A pocket-tts built-in model (`english`, `french_24l`, ...); None when `config` is set."""
    config: str | None = None
    """A pocket-tts YAML config: local path, https:// or hf:// URL."""
    quantize: bool | None = None
    """Dynamic int8 quantization of the transformer layers (faster on most x86, less memory);
    None: measure both ways on this host at the first start and keep what serves a listener
    best (`engine.tuning`)."""
    threads: int | None = None
    """Torch intra-op threads for generation; None: measured with `quantize` auto, else 1."""
    runtime: RuntimeKind | None = None
    """What runs each frame (`engine.runtime.RuntimeKind`; given as its word, or `auto`);
    None: `auto`, the graphs once made, if torch is not faster here (`engine.tuning`)."""
    code: str = "en"
    """Language code its voices are advertised with, and requests routed by (unique)."""

    def __post_init__(self) -> None:
        if type(self.runtime) is str:  # a kind is kept as it is
            word = self.runtime  # `--runtime`'s word, as the CLI and the add-on give it
            object.__setattr__(self, "runtime", None if word == AUTO else RuntimeKind(word))

    @property
    def label(self) -> str:
        """Human-readable name of the model, used in logs and `info`."""
        return self.config if self.config is not None else f"pocket-tts {self.model}"


@dataclass(frozen=True)
class LoudnessSettings:
    """Bring every voice to one loudness, measured once per voice."""

    target_lufs: float = DEFAULT_LOUDNESS_LUFS
    """Integrated loudness (ITU-R BS.1770) every voice is brought to."""


DEFAULT_SPEED = 1.0
MIN_SPEED = 0.5
MAX_SPEED = 2.0
"""Speaking rates outside this range sound broken with WSOLA (see `audio.rate`)."""


@dataclass(frozen=True)
class SpeechSettings:
    """How the household wants speech shaped, on top of what the model makes."""

    speed: float = DEFAULT_SPEED
    """Speaking rate of every voice without its own (`VoiceSpec.speed`); 1.0 leaves samples
    untouched, 1.25 is a quarter faster, pitch kept."""
    sentence_pause_ms: int = 0
    """Silence added between sentences, in addition to the model's own gap."""
    lead_silence_ms: int = 0
    """Silence before the first chunk, for players that clip the start of a sound."""
    trail_silence_ms: int = 0
    """Silence after the last chunk, for players that cut off the end of a sound."""

    def speed_for(self, voice: VoiceSpec) -> float:
        """The rate a voice speaks at: its own, else the default."""
        return self.speed if voice.speed is None else voice.speed


@dataclass(frozen=True)
class EngineSettings:
    """Everything the engine thread needs."""

    models: tuple[ModelSettings, ...] = (ModelSettings(),)
    """Every configured model, one per language; the first is the default."""
    max_models: int = 2
    """How many models stay loaded at once (least recently used is unloaded)."""
    preload: bool = False
    """Load every model (up to `max_models`) before `Ready` instead of on first use."""
    retry_graphs: bool = False
    """Forget remembered ONNX Runtime graph failures at start: each model exports again."""
    unload_after: float | None = None
    """Seconds a model may stay unused before it is unloaded, at the engine's next idle moment;
    None: never (only `max_models` unloads)."""
    voice_cache_size: int = 2
    """How many encoded voice states each model keeps in memory (least recently used is evicted)."""
    max_queue: int = 8
    """Connections whose requests may be in the engine's care at once (pipelined requests of one
    connection take one place); more are answered with `busy`."""
    data_dir: Path | None = None
    """Where voice states are persisted; None keeps nothing on disk."""
    loudness: LoudnessSettings | None = field(default_factory=LoudnessSettings)
    """Loudness normalisation; None leaves the samples exactly as pocket-tts makes them."""
    speech: SpeechSettings = field(default_factory=SpeechSettings)
    """Speaking rate, pauses and lead-in."""

    @property
    def default_model(self) -> ModelSettings:
        """The default (first) model."""
        return self.models[0]


@dataclass(frozen=True)
class ServerSettings:
    """Everything the protocol side needs."""

    uri: str = DEFAULT_URI
    max_text_chars: int = 5000
    """Longest text accepted for one request, streamed or not."""
    clean_text: bool = True
    """Strip markdown, emoji and other unspeakable symbols before synthesis."""
    number_words: bool = True
    """Say numbers, units, times, dates, money and abbreviations as words (with clean_text)."""
    write_timeout: float = 30.0
    """Seconds a client may stop reading audio before it is treated as gone."""
    idle_timeout: float = 300.0
    """Seconds a connection with no audio due may stay silent before it is closed."""
    stream_timeout: float = 60.0
    """Seconds an open stream may go without text before it is ended with `stream-timeout`."""
    max_connections: int = 32
    """Open connections; more are answered with `too-many-connections` and closed."""


@dataclass(frozen=True)
class HttpSettings:
    """The HTTP side (OpenAI-compatible speech API); off unless a port is given."""

    port: int | None = None
    """TCP port to listen on; None: no HTTP side. 0 picks a free port."""
    host: str = "127.0.0.1"
    """Address to listen on: this machine only unless the operator opens it."""
    token: str | None = None
    """When set, every request (but /health) needs `Authorization: Bearer <token>`."""
    cors_origin: str | None = None
    """Browser pages from this origin (or `*`) may call the API; None: no CORS headers."""
    ingress_proxy: str | None = None
    """A proxy that has authenticated its users (Home Assistant's ingress, in the add-on): its
    requests need no token, and only it reaches the voice studio."""
    ingress_only: bool = False
    """Answer only `ingress_proxy` (the add-on with its HTTP API off: the studio stays)."""
    voice_aliases: tuple[tuple[str, str], ...] = ()
    """(name, voice) pairs: a request for the name speaks with the voice (`--voice-alias`)."""


@dataclass(frozen=True)
class Settings:
    """Everything the command line decides."""

    server: ServerSettings
    engine: EngineSettings
    voices: tuple[VoiceSpec, ...]
    """Configured voices, default first; empty means pocket-tts's default voice for the model."""
    voices_dirs: tuple[Path, ...] = ()
    """Folders whose audio files and voice states are voices too."""
    zeroconf_name: str | None = None
    """Announce the server over mDNS under this name; None: do not."""
    zeroconf_host: str | None = None
    """Address to announce instead of the one derived from --uri."""
    http: HttpSettings = field(default_factory=HttpSettings)
    """The OpenAI-compatible HTTP side (off unless --http-port)."""
    debug: bool = False
