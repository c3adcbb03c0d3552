"""The core path over real TCP: describe, synthesize, voices, limits and failures.

The server runs on the tiny random models, as a subprocess where a test starts, signals or stops
it, or needs it shared by the module; in this process (no interpreter to start) where a test needs
its own flags only. The `wyoming` client talks to it.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from wyoming.audio import AudioStart
from wyoming.client import AsyncClient, AsyncTcpClient
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import (
    ANOTHER_VOICE,
    AUDIO_START,
    AUDIO_STOP,
    READ_TIMEOUT,
    Reply,
    ServerProcess,
    describe,
    differing_samples,
    faded_out,
    read_until,
    running_server,
    synthesize,
)
from tests.conftest import model_args
from wyoming_pocket_tts.audio.pcm import to_pcm16
from wyoming_pocket_tts.host import encoding_threads

LONG_TEXT = " ".join(["The quick brown fox jumps over the lazy dog."] * 8)


def test_describe_lists_configured_voices(endless_server: ServerProcess) -> None:
    info = asyncio.run(describe(endless_server.port))
    (program,) = info.tts
    assert program.installed
    assert program.attribution.name == "Kyutai"
    assert program.version
    assert [voice.name for voice in program.voices] == ["a", "b"]
    for voice in program.voices:
        assert voice.installed
        assert voice.languages == ["en"]
        assert "cloned from" in (voice.description or "")


def test_synthesize_streams_audio_while_generating(endless_server: ServerProcess) -> None:
    reply = asyncio.run(synthesize(endless_server.port, LONG_TEXT, voice="a"))
    assert reply.types[0] == AUDIO_START
    assert reply.types[-1] == AUDIO_STOP
    start = AudioStart.from_event(reply.events[0])
    assert (start.rate, start.width, start.channels) == (24000, 2, 1)
    assert not reply.errors
    chunk_times = reply.chunk_times
    assert len(chunk_times) >= 5
    assert len(reply.audio) % 2 == 0 and len(reply.audio) > 24000 * 2
    first, last = chunk_times[0] - reply.sent_at, chunk_times[-1] - reply.sent_at
    # The first audio leaves the server long before generation ends.
    assert first < last / 4, (first, last)


def test_describe_is_answered_during_a_long_synthesis(endless_server: ServerProcess) -> None:
    async def scenario() -> tuple[float, float]:
        async with AsyncTcpClient("127.0.0.1", endless_server.port) as client:
            await client.write_event(Synthesize(text=LONG_TEXT).event())
            await read_until(client, "audio-chunk")  # generation is under way
            started = time.monotonic()
            info = await describe(endless_server.port)
            answered = time.monotonic() - started
            assert info.tts
            reply = await read_until(client, AUDIO_STOP)
            return answered, reply.times[-1] - started

    answered, synthesis_left = asyncio.run(scenario())
    # Measured against the synthesis itself, not a clock constant: a describe that waited for
    # the engine would take all of `synthesis_left`.
    assert answered < synthesis_left / 10, (answered, synthesis_left)


def test_unknown_voice_falls_back_to_default(endless_server: ServerProcess) -> None:
    default = asyncio.run(synthesize(endless_server.port, "Hello there.", voice="a"))
    other = asyncio.run(synthesize(endless_server.port, "Hello there.", voice="b"))
    unknown = asyncio.run(synthesize(endless_server.port, "Hello there.", voice="nobody"))
    assert not unknown.errors
    assert (
        differing_samples(other.audio, default.audio) > ANOTHER_VOICE
    )  # the voices can be told apart
    assert differing_samples(unknown.audio, default.audio) == 0  # voice a, the default, spoke
    assert "Unknown voice 'nobody'" in endless_server.log


def test_empty_text_gets_only_closing_events(endless_server: ServerProcess) -> None:
    for text in ["", "   \n\t "]:
        reply = asyncio.run(synthesize(endless_server.port, text))
        assert reply.types == [AUDIO_START, AUDIO_STOP]


def test_text_too_long_is_an_error_with_closing_event(endless_server: ServerProcess) -> None:
    reply = asyncio.run(synthesize(endless_server.port, "x" * 401))
    assert reply.types == [AUDIO_START, "error", AUDIO_STOP]
    assert reply.errors[0].code == "text-too-long"
    # ... and the server keeps serving.
    assert asyncio.run(synthesize(endless_server.port, "Still here.")).audio


def test_voice_switching_uses_the_cache(endless_server: ServerProcess) -> None:
    earlier = len(endless_server.log)  # the module's server: count only this test's lines
    for voice in ["a", "b", "a", "b"]:
        assert asyncio.run(synthesize(endless_server.port, "Hi.", voice=voice)).audio
    log = endless_server.log[earlier:]
    # Both voices were encoded during the warm-up; every request since was a hit.
    assert log.count("Voice cache miss") == 0
    assert log.count("Voice cache hit") == 4
    assert "Voice cache evicted" not in log


def test_engine_failure_is_reported_and_server_keeps_serving(
    slim_model: TinyModel, voices: dict[str, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fragile = tmp_path / "fragile.wav"
    fragile.write_bytes(voices["b"].read_bytes())
    args = model_args(slim_model, {"a": voices["a"], "fragile": fragile}, "--voice-cache-size", "1")

    async def scenario() -> None:
        async with running_server(args) as server:
            port = server.port or 0
            fragile.write_bytes(b"RIFF this is not audio")  # edited after start: re-encoded, fails
            default = await synthesize(port, "Hello.", voice="a")
            # The request that finds it broken is still heard, in the default voice.
            reply = await synthesize(port, "Hello.", voice="fragile")
            assert reply.types[0] == AUDIO_START and reply.types[-1] == AUDIO_STOP
            assert not reply.errors and differing_samples(reply.audio, default.audio) == 0
            assert "Voice fragile cannot load" in caplog.text
            installed = {v.name: v.installed for v in (await describe(port)).tts[0].voices}
            assert installed == {"a": True, "fragile": False}
            # Until the file changes, asking for it gets the default voice instead of an error.
            fallback = await synthesize(port, "Hello.", voice="fragile")
            assert not fallback.errors and differing_samples(fallback.audio, default.audio) == 0
            # Fixed while running: the same name speaks with the file's voice again.
            fragile.write_bytes(voices["b"].read_bytes())
            fixed = await synthesize(port, "Hello.", voice="fragile")
            assert not fixed.errors
            assert differing_samples(fixed.audio, default.audio) > ANOTHER_VOICE
            installed = {v.name: v.installed for v in (await describe(port)).tts[0].voices}
            assert installed == {"a": True, "fragile": True}

    asyncio.run(scenario())


def test_default_voice_that_cannot_load_fails_the_start(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"not a wav at all")
    with ServerProcess(model_args(slim_model, {"grandma": broken}), tmp_path / "log") as server:
        code = server.process.wait(timeout=120)
        assert code == 1
        (line,) = [line for line in server.log.splitlines() if "Cannot start" in line]
        reason = "default voice 'grandma' cannot be loaded: Error opening"
        assert line.endswith(f"Cannot start: {reason} '{broken}': Format not recognised."), line


def test_describe_is_answered_while_the_model_loads(
    slim_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """The load is held until the test has its answer (a prelude waits for a file), so the
    answer cannot come from a server that happened to load first."""
    go = tmp_path / "go"
    hold = (
        "import time\nfrom pathlib import Path\nfrom pocket_tts import TTSModel\n"
        "load = TTSModel.load_model.__func__\n"
        "def held(cls, *args, **kwargs):\n"
        f"    while not Path({str(go)!r}).exists():\n"
        "        time.sleep(0.05)\n"
        "    return load(cls, *args, **kwargs)\n"
        "TTSModel.load_model = classmethod(held)"
    )
    with ServerProcess(model_args(slim_model, voices), tmp_path / "log", prelude=hold) as server:
        info = asyncio.run(describe(server.port))  # the port is open: the server logged it
        assert "Loaded model" not in server.log and "Ready" not in server.log, server.log
        go.touch()
        assert [voice.name for voice in info.tts[0].voices] == ["a", "b"]
        reply = asyncio.run(synthesize(server.port, "Hello.", voice="b"))
        assert reply.audio and not reply.errors
        assert server.stop() == 0


def test_describe_on_the_same_connection_as_a_request(endless_server: ServerProcess) -> None:
    async def scenario() -> list[str]:
        async with AsyncTcpClient("127.0.0.1", endless_server.port) as client:
            await client.write_event(Synthesize(text="One sentence.").event())
            await client.write_event(Describe().event())
            return (await read_until(client, AUDIO_STOP)).types

    types = asyncio.run(scenario())
    # Answered while the request's audio was still flowing, not queued behind it.
    assert "info" in types and types.index("info") < types.index(AUDIO_STOP), types


def test_health_command_against_the_real_server(endless_server: ServerProcess) -> None:
    uri = f"tcp://127.0.0.1:{endless_server.port}"
    result = subprocess.run(
        [sys.executable, "-m", "wyoming_pocket_tts.health", "--uri", uri, "--timeout", "5"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_quantize_cleanup_and_language_code_flags_end_to_end(
    tiny_model: TinyModel, voices: dict[str, Path]
) -> None:
    """The server's audio is the int8 model's, text reaches it as sent, voices say `de`.

    Over 20 s alone on a busy host: besides its server it loads the model twice here (int8 and
    float) and generates with each, the oracle for the server's audio."""
    flags = ["--quantize", "--no-text-cleanup", "--language-code", "de", "--loudness", "off"]

    async def scenario() -> tuple[Info, Reply, Reply]:
        async with running_server(model_args(tiny_model, voices, *flags)) as server:
            port = server.port or 0
            info = await describe(port)
            plain = await synthesize(port, "The lights are on.", voice="a")
            return info, plain, await synthesize(port, "**The lights** are on.", voice="a")

    info, plain, marked = asyncio.run(scenario())
    assert [voice.languages for voice in info.tts[0].voices] == [["de"], ["de"]]
    assert differing_samples(marked.audio, plain.audio) > ANOTHER_VOICE  # markdown was spoken
    expected = {}
    for quantize in (True, False):
        model = tiny_model.load(quantize=quantize)
        with encoding_threads():  # as the server does: int8 results depend on the threads
            state = model.get_state_for_audio_prompt(voices["a"])
        spoken = model.generate_audio(state, "The lights are on.")
        expected[quantize] = to_pcm16(faded_out(spoken))  # one generation
    assert differing_samples(expected[True], expected[False]) > ANOTHER_VOICE
    assert differing_samples(plain.audio, expected[True]) == 0


def test_unix_socket(slim_model: TinyModel, voices: dict[str, Path], tmp_path: Path) -> None:
    path = tmp_path / "tts.sock"
    path.write_text("left by a crashed run")  # replaced, not an error

    async def scenario() -> tuple[Info, Reply]:
        async with (
            running_server(model_args(slim_model, voices, "--uri", f"unix://{path}")),
            AsyncClient.from_uri(f"unix://{path}") as client,
        ):
            await client.write_event(Describe().event())
            info = Info.from_event((await read_until(client, "info")).events[-1])
            await client.write_event(Synthesize(text="Hello.").event())
            return info, await read_until(client, AUDIO_STOP)

    info, reply = asyncio.run(scenario())
    assert [voice.name for voice in info.tts[0].voices] == ["a", "b"]
    assert reply.audio and not reply.errors


def _stop_while_loading(
    slim_model: TinyModel, tmp_path: Path, prompts: int
) -> tuple[int | None, str]:
    """SIGTERM as soon as the port is open, while the model and `prompts` 30 s voices load."""
    voices = {
        f"long{n}": write_voice_wav(tmp_path / f"long{n}.wav", 30.0, seed=12 + n)
        for n in range(prompts)
    }
    args = model_args(slim_model, voices, "--voice-cache-size", str(prompts))
    with ServerProcess(args, tmp_path / "log") as server:
        assert server.port  # listening: the model is loading behind the port
        assert "Ready" not in server.log
        server.process.terminate()
        try:
            code = server.process.wait(READ_TIMEOUT)
        except subprocess.TimeoutExpired:
            code = None
    return code, server.log


def test_sigterm_while_the_model_loads_stops_at_once(slim_model: TinyModel, tmp_path: Path):
    code, log = _stop_while_loading(slim_model, tmp_path, prompts=1)
    assert code is not None, log  # it does not wait for the model
    assert "Stopping" in log and "Ready" not in log and "Traceback" not in log, log


def test_sigterm_while_the_model_loads_exits_0(slim_model: TinyModel, tmp_path: Path) -> None:
    # Four 30 s prompts keep the load busy well past the engine's 5 s join.
    code, log = _stop_while_loading(slim_model, tmp_path, prompts=4)
    assert code == 0, log


def test_sigint_during_a_stream_sends_closing_events(
    slim_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """Ctrl-C in a terminal: the same graceful stop as SIGTERM."""
    with ServerProcess(model_args(slim_model, voices), tmp_path / "log") as server:
        server.wait_for_log("Ready")

        async def scenario() -> list[str]:
            async with AsyncTcpClient("127.0.0.1", server.port) as client:
                await client.write_event(SynthesizeStart().event())
                await client.write_event(SynthesizeChunk(text="A stream. " * 20).event())
                reply = await read_until(client, "audio-chunk")
                server.process.send_signal(signal.SIGINT)
                return (await read_until(client, "synthesize-stopped", reply)).types

        types = asyncio.run(scenario())
        assert types[-2:] == [AUDIO_STOP, "synthesize-stopped"]
        assert server.process.wait(timeout=READ_TIMEOUT) == 0
    assert "Traceback" not in server.log and "KeyboardInterrupt" not in server.log
