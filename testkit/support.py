"""Test support: run the real server (as a subprocess or in-process) and talk to it with the
`wyoming` library's client, every read bounded by a timeout."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
    SynthesizeVoice,
)

from testkit.zygote import ForkedProcess, start_python
from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.engine.tuning import timing, tuned, verdict
from wyoming_pocket_tts.engine.tuning.course import Phase
from wyoming_pocket_tts.host import cpu_seconds
from wyoming_pocket_tts.server import TtsServer

READ_TIMEOUT = 30.0
"""No single event may take longer than this to arrive in a test."""


LISTENING = re.compile(r"Listening on tcp://127\.0\.0\.1:(\d+)")
"""The server's log line with the port it bound (it is started on port 0)."""


def fixed_tuning(args: Sequence[str]) -> list[str]:
    """`args`, with `--quantize off` and `--runtime torch` unless they choose: test servers do
    not tune for the host.

    The default `--quantize auto` times the model both ways at every start with a fresh data
    folder (seconds each) and may choose differently from one start to the next, so audio from
    two servers could not be compared; the default `--runtime auto` would export graphs in a
    child process at every such start (seconds of CPU each). tests/engine/test_tuning.py and
    tests/engine/test_onnx_runtime.py test `auto` itself.
    """
    fixed = list(args)
    if "--quantize" not in fixed:
        fixed += ["--quantize", "off"]
    if "--runtime" not in fixed:
        fixed += ["--runtime", "torch"]
    return fixed


SEED_ENV = "VOICE_STATE_SEED"
"""Environment variable naming this run's folder of voice states saved by its earlier servers
(tests/conftest.py sets it): see `VoiceStateSeed`."""


class VoiceStateSeed:
    """Voice states that earlier servers of this test run encoded, handed to later ones.

    A server started on its default data folder (no `--data-dir`: a fresh home per server)
    would encode and measure every configured voice again, a second or more each; the suite
    starts about a hundred servers with the same two voices. So such a server's folder is
    seeded with the states saved so far, which it loads as it loads its own after a restart,
    and each stopped server's states join the seed. Tests of encoding and of saved states
    name their own `--data-dir`, which is neither seeded nor harvested (some of them spoil a
    state on purpose). A state's file name is the store's key (prompt content, model identity,
    pocket-tts version), so a seeded state is the one the server would have made.
    """

    def __init__(self, args: Sequence[str], env: dict[str, str]):
        seed = os.environ.get(SEED_ENV)
        self.folder = Path(seed) if seed and "--data-dir" not in args else None
        self.states = Path(env["XDG_CACHE_HOME"]) / "wyoming-pocket-tts" / "voice-states"
        self._copy(self.folder, self.states)

    def harvest(self) -> None:
        """Add the states this server saved to the seed."""
        self._copy(self.states, self.folder)

    @staticmethod
    def _copy(source: Path | None, target: Path | None) -> None:
        if source is None or target is None or not source.is_dir():
            return
        for path in source.glob("*.safetensors"):
            if (target / path.name).exists():
                continue
            target.mkdir(parents=True, exist_ok=True)
            partial = target / f".{path.name}.{os.getpid()}.partial"
            shutil.copyfile(path, partial)
            os.replace(partial, target / path.name)  # whole, or not there at all


@contextlib.contextmanager
def refusing_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections: bound (so nothing else takes it), not
    listening, for as long as the block runs."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def isolated_env(home: Path, **extra: str | None) -> dict[str, str]:
    """This process's environment for a server, with nothing of the user's or of other tests.

    HOME (pocket-tts caches URL downloads in ~/.cache/pocket_tts), XDG_CACHE_HOME (saved voice
    states) and HF_HOME point into `home`; the hub is offline; no Hugging Face token and no
    Supervisor token leak in. `extra` is added last (None removes a variable).
    """
    leaks = ("HF_", "HUGGING_FACE_", "SUPERVISOR_")
    env = {key: value for key, value in os.environ.items() if not key.startswith(leaks)}
    home.mkdir(parents=True, exist_ok=True)
    env |= {
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "HF_HOME": str(home / "huggingface"),
        "HF_HUB_OFFLINE": "1",
    }
    env |= {key: value for key, value in extra.items() if value is not None}
    return {key: value for key, value in env.items() if extra.get(key, "") is not None}


def pcm_samples(audio: bytes) -> np.ndarray:
    """16-bit PCM as integers (wide enough to subtract)."""
    return np.frombuffer(audio, dtype="<i2").astype(np.int32)


def differing_samples(audio: bytes, reference: bytes) -> float:
    """The share of samples more than one PCM step away from `reference` (1.0 if the lengths
    differ). The test models sample at temperature 0, so the same voice and text give 0.0 (float
    rounding moves a sample by one step at most) and another voice or text most samples."""
    ours, theirs = pcm_samples(audio), pcm_samples(reference)
    if ours.size != theirs.size or ours.size == 0:
        return 1.0
    return float(np.mean(np.abs(ours - theirs) > 1))


ANOTHER_VOICE = 1 / 3
"""`differing_samples` above this: another voice (or text) spoke; measured here: 0.84."""


FADE_SAMPLES = 24000 // 200
"""5 ms: pocket-tts fades each generation's first 5 ms in, the server fades its last 5 ms out."""


def faded_out(samples: Any) -> np.ndarray:
    """One generation's float samples as the server sends them: the last `FADE_SAMPLES` ramped
    linearly down to zero (`audio.shaping`), every other sample as it was."""
    signal = np.asarray(samples, dtype=np.float32).reshape(-1)
    ramp = np.ones(signal.size, dtype=np.float32)
    fade = np.linspace(1, 0, FADE_SAMPLES, dtype=np.float32)[-signal.size :]
    ramp[ramp.size - fade.size :] = fade
    return signal * ramp


@dataclass
class Reply:
    """Everything a client received for one request, with arrival times (monotonic seconds)."""

    events: list[Event] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    sent_at: float = 0.0

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.events]

    @property
    def audio(self) -> bytes:
        return b"".join(
            AudioChunk.from_event(e).audio for e in self.events if AudioChunk.is_type(e.type)
        )

    @property
    def chunk_times(self) -> list[float]:
        pairs = zip(self.events, self.times, strict=True)
        return [t for e, t in pairs if AudioChunk.is_type(e.type)]

    @property
    def errors(self) -> list[Error]:
        return [Error.from_event(e) for e in self.events if Error.is_type(e.type)]

    def first(self, event_type: str) -> Event:
        return next(e for e in self.events if e.type == event_type)


async def read_until(
    client: AsyncTcpClient,
    end_type: str,
    reply: Reply | None = None,
    *,
    timeout: float = READ_TIMEOUT,
) -> Reply:
    """Read events until one of `end_type` arrives (inclusive), each within `timeout`."""
    reply = reply or Reply(sent_at=time.monotonic())
    while True:
        event = await asyncio.wait_for(client.read_event(), timeout=timeout)
        assert event is not None, f"connection closed before {end_type}; got {reply.types}"
        reply.events.append(event)
        reply.times.append(time.monotonic())
        if event.type == end_type:
            return reply


HANG_UP_TEXT = " ".join(["a hang-up in the middle of this long sentence"] * 5)
"""One long piece: a hang-up after its first audio lands in the middle of its frames."""


def our_records(
    records: Sequence[logging.LogRecord], level: int = logging.NOTSET
) -> list[logging.LogRecord]:
    """The server's own `records` at `level` or above, but its speed verdict: a host loaded by
    the suite's other workers may find any server too slow and warn so, whatever the test."""
    return [
        record
        for record in records
        if record.name.startswith("wyoming_pocket_tts")
        and record.name != verdict.__name__
        and record.levelno >= level
    ]


class ConnectionLog(logging.Handler):
    """What an in-process server's DEBUG lines say about its Wyoming connections, as they come:
    how many are open (`server`'s "Connection from ... (N open)"), and each count of requests
    unanswered on one connection (`protocol.replies`), in order."""

    LOGGERS = ("wyoming_pocket_tts.server", "wyoming_pocket_tts.protocol.replies")
    _OPEN = re.compile(r"^Connection from .* \((\d+) open\)$")
    _UNANSWERED = re.compile(r"^Requests unanswered on this connection: (\d+)")

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.open = 0
        """Connections open at the last line about one (0 before any)."""
        self.unanswered: list[int] = []
        """Each request's count of unanswered requests on its connection, once it is read."""

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if match := self._OPEN.match(message):
            self.open = int(match.group(1))
        elif match := self._UNANSWERED.match(message):
            self.unanswered.append(int(match.group(1)))


@contextlib.contextmanager
def connection_log() -> Iterator[ConnectionLog]:
    """A `ConnectionLog` of this process's servers until the block ends (their loggers at DEBUG
    meanwhile)."""
    log = ConnectionLog()
    loggers = [logging.getLogger(name) for name in ConnectionLog.LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
        logger.addHandler(log)
    try:
        yield log
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(log)
            logger.setLevel(level)


async def hang_up_mid_reply(server: TtsServer) -> float:
    """Ask `server` for `HANG_UP_TEXT`, hang up at its first audio, wait until the server has
    closed the connection and half a second more (anything still generating would run then);
    when the client hung up (`time.monotonic`)."""
    with connection_log() as log:
        client = AsyncTcpClient("127.0.0.1", server.port or 0)
        await client.connect()
        await client.write_event(Synthesize(text=HANG_UP_TEXT).event())
        await read_until(client, "audio-chunk")
        await client.disconnect()
        hung_up = time.monotonic()
        deadline = hung_up + 10
        while log.open and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
    await asyncio.sleep(0.5)
    return hung_up


async def describe(port: int) -> Info:
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Describe().event())
        reply = await read_until(client, "info")
    return Info.from_event(reply.events[-1])


async def synthesize(
    port: int, text: str, voice: str | None = None, *, ssml: bool = False
) -> Reply:
    """One `synthesize` request (its text SSML where `ssml`), read up to its `audio-stop`."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        request = Synthesize(
            text=text,
            voice=SynthesizeVoice(name=voice) if voice else None,
            text_format="ssml" if ssml else None,
        )
        reply = Reply(sent_at=time.monotonic())
        await client.write_event(request.event())
        return await read_until(client, AudioStop().event().type, reply)


async def synthesize_streamed(
    port: int, pieces: Sequence[str], voice: str | None = None, *, resend_whole: bool = True
) -> Reply:
    """A stream as Home Assistant sends it: start, chunks, the whole text again, stop."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        voice_obj = SynthesizeVoice(name=voice) if voice else None
        reply = Reply(sent_at=time.monotonic())
        await client.write_event(SynthesizeStart(voice=voice_obj).event())
        for piece in pieces:
            await client.write_event(SynthesizeChunk(text=piece).event())
        if resend_whole:
            await client.write_event(Synthesize(text="".join(pieces), voice=voice_obj).event())
        await client.write_event(SynthesizeStop().event())
        return await read_until(client, SynthesizeStopped().event().type, reply)


AUDIO_START = AudioStart(rate=0, width=0, channels=0).event().type
AUDIO_STOP = AudioStop().event().type


def children_of(pid: int) -> dict[int, list[str]]:
    """The children of process `pid`: each one's pid and the fields of its /proc/PID/stat after
    its name (the state first, the parent's pid second, the nice value 17th)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == pid:
            found[int(stat.parent.name)] = fields
    return found


def children_report(pid: int) -> str:
    """The children of process `pid` with their nice value, state and CPU time, and the host's
    load: a child at nice 19 that is runnable (R) with little CPU time beside a high load is
    starved by the host's other work, not stuck in the server."""
    found = [
        f"{child} (nice {fields[16]}, {fields[0]}, {cpu_seconds(child)} s CPU)"
        for child, fields in children_of(pid).items()
    ]
    load = ", ".join(f"{figure:.1f}" for figure in os.getloadavg())
    return f"children: {'; '.join(found) or 'none'}; load {load}"


class ServerProcess:
    """`python -m wyoming_pocket_tts` on 127.0.0.1, its log captured to a file.

    Where `FORK_ENV` is set (conftest sets it for the tests and whatever they start) the
    process is forked from this process's `Zygote`, with torch and scipy already imported;
    otherwise (`script/bench`, which times starts) it is a fresh `python`. The server binds
    port 0 itself and logs the port (no race for a "free" port). It runs in `isolated_env` (a
    home folder next to the log) plus `env`. `entry` is the module whose `main` runs (the
    add-on's, say); `prelude` is Python run before it in the same process, to point a module
    constant at a local fake. `seed` seeds torch's random generator first, so two servers
    started alike sample the same noise.
    """

    def __init__(
        self,
        args: Sequence[str],
        log_path: Path,
        env: dict[str, str | None] | None = None,
        *,
        uri: str = "tcp://127.0.0.1:0",
        prelude: str = "",
        entry: str = "wyoming_pocket_tts.__main__",
        seed: int | None = None,
    ):
        self.log_path = log_path
        self._port: int | None = None
        if seed is not None:
            prelude = f"import torch\ntorch.manual_seed({int(seed)})\n{prelude}"
        if prelude:
            run_main = f"from {entry} import main; sys.exit(main())"
            command = ["-c", f"import sys\n{prelude}\n{run_main}"]
        else:
            command = ["-m", entry]
        self._log = log_path.open("wb")
        server_env = isolated_env(log_path.parent / f"{log_path.stem}-home", **(env or {}))
        self._seed = VoiceStateSeed(args, server_env)
        argv = [*command, "--uri", uri, *fixed_tuning(args)]
        self.process: subprocess.Popen[bytes] | ForkedProcess = start_python(
            argv, server_env, self._log.fileno()
        )

    @property
    def port(self) -> int:
        """The port the server bound (waits for its log line)."""
        if self._port is None:
            self.wait_for_log("Listening on")
            match = LISTENING.search(self.log)
            assert match, self.log
            self._port = int(match.group(1))
        return self._port

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, text: str, timeout: float = 90.0) -> None:
        """Wait until `text` appears in the log; fail if the process exits first, or, after
        `timeout` seconds, with the state of the server's children (`children_report`)."""
        deadline = time.monotonic() + timeout
        while text not in self.log:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited ({self.process.returncode}):\n{self.log}")
            if time.monotonic() > deadline:
                children = children_report(self.process.pid)
                raise AssertionError(f"no {text!r} after {timeout} s; {children}:\n{self.log}")
            time.sleep(0.05)

    def stop(self, timeout: float = 15.0, *, signalled: bool = False) -> int:
        """SIGTERM (unless the test has `signalled` it already: a second one during the
        interpreter's shutdown, after the loop's handlers are gone, would kill it), wait, and
        return the exit code (killing it if it does not stop)."""
        if self.process.poll() is None and not signalled:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"server ignored SIGTERM for {timeout} s:\n{self.log}") from None
        finally:
            self._log.close()
        self._seed.harvest()
        return code

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.stop()


TIMED_FRAMES = 4
"""Frames of the timed generation that ends each model load in `running_server` (the server's
own count is `engine.tuning.timing.FRAMES`, 20): the start's speed figures are not what those
tests assert, and the 16 frames fewer spare about 0.15 s of CPU per start here (0.49 -> 0.34 s)."""


@contextlib.contextmanager
def short_timing(frames: int | None, rounds: int | None = None) -> Iterator[None]:
    """The model's timed generations cut to `frames` frames (`timing.FRAMES`), and the speed
    comparison to `rounds` rounds (`tuned.ROUNDS`), in this process until the block ends; None
    leaves the server's own count."""
    with contextlib.ExitStack() as patches:
        if frames is not None:
            patches.enter_context(mock.patch.object(timing, "FRAMES", frames))
        if rounds is not None:
            patches.enter_context(mock.patch.object(tuned, "ROUNDS", rounds))
        yield


@contextlib.asynccontextmanager
async def running_server(
    args: Sequence[str], *, timed_frames: int | None = TIMED_FRAMES, **server_settings: float
) -> AsyncIterator[TtsServer]:
    """The real server in this process (to inspect its threads), on 127.0.0.1:<free port>.

    `server_settings` override `ServerSettings` fields that have no flag (the timeouts), so a
    test of a timeout can make it short. Its timed generations run `timed_frames` frames
    (`short_timing`; None: the server's own count, for a test of the speed figures).
    """
    settings = parse_settings(["--uri", "tcp://127.0.0.1:0", *fixed_tuning(args)])
    settings = dataclasses.replace(
        settings,
        server=dataclasses.replace(settings.server, **dict[str, Any](server_settings)),
    )
    server = TtsServer(settings)
    with short_timing(timed_frames):
        try:
            await server.start()  # inside: a start that fails must still stop the loading thread
            await asyncio.wait_for(server.wait_ready(), timeout=120)
            yield server
        finally:
            await server.stop()
            await _exports_ended(server)


EXPORT_END = 60.0
"""Seconds a stopped export's thread may take to end (it may be loading finished graphs)."""


async def _exports_ended(server: TtsServer) -> None:
    """Wait until the threads of `server`'s exports have ended: one left behind starts its
    child and logs during the next test, whose log it then seems to be."""
    for loaded in server.engine.models.in_phase(Phase.EXPORTING):
        export = loaded.tuning.course.export
        ended = export is None or await asyncio.to_thread(export.done.wait, EXPORT_END)
        assert ended, f"the {loaded.settings.code} model's export outlived its server"


def pocket_tts_threads() -> list[str]:
    """Names of live threads pocket-tts started for a generation (LM and Mimi decoder)."""
    workers = ("run_generation", "_decode_audio_worker")
    return [
        t.name for t in threading.enumerate() if t.name.endswith(tuple(f"({w})" for w in workers))
    ]
