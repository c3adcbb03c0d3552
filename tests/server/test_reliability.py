"""Nothing a client sends can crash, hang or exhaust the server.

Raw bytes go over real TCP to a real server process; after each insult the same connection
(where the stream is still in step) and a fresh one must still be served.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import json
import logging
import resource
import threading
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wyoming.client import AsyncTcpClient
from wyoming.event import Event, async_read_event
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import (
    ANOTHER_VOICE,
    AUDIO_STOP,
    READ_TIMEOUT,
    Reply,
    ServerProcess,
    connection_log,
    describe,
    differing_samples,
    pocket_tts_threads,
    read_until,
    running_server,
    synthesize,
)
from tests.conftest import model_args
from wyoming_pocket_tts.protocol.replies import MAX_PENDING_REQUESTS

DESCRIBE = b'{"type": "describe"}\n'


def frame(event: dict, data: bytes = b"", payload: bytes = b"") -> bytes:
    return json.dumps(event).encode() + b"\n" + data + payload


async def exchange(port: int, raw: bytes, until: str = "info") -> list[Event]:
    """Send raw bytes then a describe; events received until `until` or the server hangs up."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    events: list[Event] = []
    try:
        writer.write(raw + DESCRIBE)
        await writer.drain()
        while True:
            event = await asyncio.wait_for(async_read_event(reader), READ_TIMEOUT)
            if event is None:
                break
            events.append(event)
            if event.type == until:
                break
    except (ConnectionError, OSError):
        pass  # hung up on us: allowed for input that cannot be read further
    finally:
        writer.close()
    return events


def codes(events: list[Event]) -> list[str]:
    return [e.data.get("code", "") for e in events if e.type == "error"]


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"not json at all\n", "bad-event"),
        (b"[1, 2, 3]\n", "bad-event"),
        (b'{"data": {}}\n', "bad-event"),
        (b'{"type": 5}\n', "bad-event"),
        (b'{"type": "describe", "data": "x"}\n', "bad-event"),
        (b"\x00\xff\xfe garbage \x80\n", "bad-event"),
        (b"x" * 200_000 + b"\n", "bad-event"),
        (frame({"type": "synthesize", "data_length": 5}, b"nope!"), "bad-event"),
        (frame({"type": "transcribe"}), "unsupported-event"),
        (frame({"type": "synthesize-chunk", "data": {"text": "hi"}}), "no-stream"),
    ],
)
def test_malformed_input_is_answered_and_the_connection_goes_on(
    endless_server: ServerProcess, raw: bytes, code: str
) -> None:
    events = asyncio.run(exchange(endless_server.port, raw))
    assert code in codes(events)
    assert events[-1].type == "info"  # the same connection still works


def test_synthesize_without_text_string_ends_with_audio_stop(endless_server: ServerProcess):
    raw = frame({"type": "synthesize", "data": {"text": 123}})
    events = asyncio.run(exchange(endless_server.port, raw, until=AUDIO_STOP))
    assert codes(events) == ["bad-request"]
    assert events[-1].type == AUDIO_STOP


@pytest.mark.parametrize(
    "raw",
    [
        frame({"type": "synthesize", "data_length": 10**12}),
        frame({"type": "synthesize", "payload_length": 10**9}),
        frame({"type": "synthesize", "data_length": -1}),
        frame({"type": "synthesize", "data_length": "12"}),
    ],
)
def test_impossible_lengths_are_refused_without_reading_them(
    endless_server: ServerProcess, raw: bytes
) -> None:
    events = asyncio.run(exchange(endless_server.port, raw))
    assert codes(events) == ["bad-event"]
    assert "info" not in [e.type for e in events]  # the stream is out of step: hung up
    assert asyncio.run(describe(endless_server.port)).tts


def test_truncated_event_then_disconnect(endless_server: ServerProcess) -> None:
    async def scenario() -> None:
        _reader, writer = await asyncio.open_connection("127.0.0.1", endless_server.port)
        writer.write(frame({"type": "synthesize", "data_length": 100}, b'{"text": "Hel'))
        await writer.drain()
        writer.close()

    asyncio.run(scenario())
    assert asyncio.run(describe(endless_server.port)).tts


@pytest.fixture(scope="module")
def hello_in_each_voice(endless_server: ServerProcess) -> dict[str, bytes]:
    """ "Hello." in voices a (the default) and b, asked for by name: made once for the module."""
    port = endless_server.port
    return {voice: asyncio.run(synthesize(port, "Hello.", voice=voice)).audio for voice in "ab"}


@pytest.mark.parametrize("voice", ["x", {"name": 7}, {"name": None}, [1]])
def test_odd_voice_fields_fall_back_to_the_default_voice(
    endless_server: ServerProcess, hello_in_each_voice: dict[str, bytes], voice: object
) -> None:
    raw = frame({"type": "synthesize", "data": {"text": "Hello.", "voice": voice}})
    events = asyncio.run(exchange(endless_server.port, raw, until=AUDIO_STOP))
    assert events[-1].type == AUDIO_STOP
    assert not codes(events)
    default, other = hello_in_each_voice["a"], hello_in_each_voice["b"]
    assert differing_samples(other, default) > ANOTHER_VOICE
    assert differing_samples(Reply(events=events).audio, default) == 0


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
_event_types = st.sampled_from(
    ["synthesize", "synthesize-start", "synthesize-chunk", "synthesize-stop", "describe", "x"]
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.one_of(
        st.binary(max_size=300).map(lambda b: b.replace(b"\n", b" ") + b"\n"),
        st.builds(
            lambda t, d: frame({"type": t, "data": d}),
            _event_types,
            st.dictionaries(st.sampled_from(["text", "voice", "name"]), _json_values, max_size=3),
        ),
    )
)
def test_fuzzed_events_never_break_the_server(endless_server: ServerProcess, raw: bytes) -> None:
    # Close any stream the fuzz opened, so that the describe is the last thing answered.
    events = asyncio.run(exchange(endless_server.port, raw + frame({"type": "synthesize-stop"})))
    assert events and events[-1].type == "info"
    assert endless_server.process.poll() is None


def test_connection_cap(slim_model: TinyModel, voices: dict[str, Path]) -> None:
    async def scenario() -> tuple[list[str], bool]:
        async with running_server(model_args(slim_model, voices, "--max-connections", "3")) as srv:
            port = srv.port or 0
            idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
            extra = await exchange(port, b"")
            for _, writer in idle:
                writer.close()
            # The server notices the closed connections soon: poll, with a deadline.
            deadline = asyncio.get_running_loop().time() + READ_TIMEOUT
            while codes(await exchange(port, b"")) == ["too-many-connections"]:
                assert asyncio.get_running_loop().time() < deadline, "closed ones still count"
            return codes(extra), bool((await describe(port)).tts)

    refused, served_after = asyncio.run(scenario())
    assert refused == ["too-many-connections"]
    assert served_after


async def _pipelined(port: int, texts: list[str]) -> list[Reply]:
    """Plain, streamed and plain again, all sent before reading anything."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Synthesize(text=texts[0]).event())
        await client.write_event(SynthesizeStart().event())
        for word in texts[1].split(" "):
            await client.write_event(SynthesizeChunk(text=word + " ").event())
        await client.write_event(SynthesizeStop().event())
        await client.write_event(Synthesize(text=texts[2]).event())
        # A client's later requests wait behind everybody's: allow for the whole queue.
        first = await read_until(client, AUDIO_STOP, timeout=180)
        second = await read_until(client, "synthesize-stopped", timeout=180)
        third = await read_until(client, AUDIO_STOP, timeout=180)
        return [first, second, third]


THINGS = [
    *("apple", "river", "stone", "cloud", "garden", "window", "candle", "forest"),
    *("pepper", "silver", "bottle", "rabbit", "ladder", "mirror", "pocket", "saddle"),
    *("tunnel", "violin", "wagon", "yellow", "zebra", "anchor", "basket", "copper"),
]


def test_eight_clients_at_once_get_their_own_audio_in_order(
    slim_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Every client and request has its own text; each answer must be that text's audio.

    Over 20 s alone on a busy host: its 48 requests (the 24 texts alone, as references, then
    all at once) are the test; the server runs in this process, so no interpreter starts."""
    texts = [[f"The {THINGS[3 * c + r]} is here." for r in range(3)] for c in range(8)]

    async def scenario() -> tuple[dict[str, bytes], list[list[Reply]]]:
        async with running_server(model_args(slim_model, voices, "--max-queue", "64")) as srv:
            port = srv.port or 0
            alone = {t: (await synthesize(port, t)).audio for ts in texts for t in ts}
            together = await asyncio.gather(*(_pipelined(port, ts) for ts in texts))
            return alone, list(together)

    alone, replies = asyncio.run(scenario())
    for client_texts, client_replies in zip(texts, replies, strict=True):
        for n, (text, reply) in enumerate(zip(client_texts, client_replies, strict=True)):
            assert not reply.errors
            assert differing_samples(reply.audio, alone[text]) == 0, text
            # Another client's text, or this client's next one, would have shown.
            neighbour = texts[(texts.index(client_texts) + 1) % 8][n]
            assert differing_samples(reply.audio, alone[neighbour]) > ANOTHER_VOICE, text
            later = client_texts[(n + 1) % 3]
            assert differing_samples(reply.audio, alone[later]) > ANOTHER_VOICE, text


def test_abandoned_and_silent_clients_free_the_engine(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    long_text = " ".join(["Listen to this very long story about nothing at all."] * 6)

    async def slow_consumer(port: int) -> None:
        """Sends a long request, never reads, then leaves."""
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(frame({"type": "synthesize", "data": {"text": long_text}}))
        await writer.drain()
        await asyncio.sleep(1.0)
        writer.close()

    async def scenario() -> tuple[bool, list[str]]:
        async with running_server(model_args(endless_model, voices)) as server:
            port = server.port or 0
            _silent = await asyncio.open_connection("127.0.0.1", port)  # never sends
            await asyncio.gather(slow_consumer(port), slow_consumer(port))
            reply = await synthesize(port, "Am I next?")
            deadline = asyncio.get_running_loop().time() + 10
            while pocket_tts_threads() and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.02)
            _silent[1].close()
            return bool(reply.audio) and not reply.errors, pocket_tts_threads()

    served, leftover = asyncio.run(scenario())
    assert served
    assert leftover == []


def _live_tensors() -> tuple[int, int]:
    """How many torch tensors this process holds, and their bytes (exact, unlike RSS)."""
    import torch

    gc.collect()
    with warnings.catch_warnings():  # isinstance() on torch's deprecated module proxies
        warnings.simplefilter("ignore", FutureWarning)
        tensors = [o for o in gc.get_objects() if isinstance(o, torch.Tensor)]
    return len(tensors), sum(t.element_size() * t.nelement() for t in tensors)


def _rss_kib() -> int:
    """Resident memory of this process, after glibc returns its free pages to the system."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _threads() -> int:
    """Live threads, but the event loop's default executor's: a bounded pool (`to_thread`) that
    starts its threads lazily, more of them when the host is busy, so not a leak."""
    return sum(not t.name.startswith("asyncio_") for t in threading.enumerate())


def test_soak_memory_and_threads_stay_flat(
    slim_model: TinyModel,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """N requests over 4 voices cycling through a 2-entry LRU (N = --soak-requests).

    Every request evicts a voice state and loads another from disk, so anything kept per
    request would pile up. The exact check is on live torch tensors: the same two states are
    cached before and after, so their number and bytes must not grow at all (keeping a copy of
    each request's voice state adds 12 KiB and 6 tensors a request on the slim model: seen to
    fail). RSS is only a coarse guard: pocket-tts alone swings by ~40 MiB over 160 generations
    here (measured, glibc trimmed), so a tighter RSS bound would measure the allocator.
    """
    count = request.config.getoption("--soak-requests")
    caplog.set_level(logging.WARNING)  # pytest keeps every captured record: not the server's
    encoded = "Encoded voice"  # logged once per audio prompt encoded
    caplog.set_level(logging.INFO, logger="wyoming_pocket_tts.engine.voice_states.cache")
    voice_files = {
        f"v{i}": write_voice_wav(tmp_path / f"v{i}.wav", 1.0, seed=20 + i) for i in range(4)
    }

    async def scenario() -> dict[str, int]:
        args = model_args(slim_model, voice_files, "--data-dir", str(tmp_path / "data"))
        async with running_server(args) as server:
            port = server.port or 0
            loaded = server.engine.models.peek(server.settings.engine.default_model.code)
            assert loaded is not None
            stats = loaded.voices.cache.stats
            for i in range(max(8, count // 10)):  # warm-up: allocator pools fill once
                await synthesize(port, "Warming up.", voice=f"v{i % 4}")
            tensors, tensor_bytes = _live_tensors()
            figures = {
                "rss_start_kib": _rss_kib(),
                "threads_start": _threads(),
                "tensors_start": tensors,
                "tensor_kib_start": tensor_bytes // 1024,
            }
            for i in range(count):
                reply = await synthesize(port, f"Request {i}.", voice=f"v{i % 4}")
                assert reply.audio and not reply.errors
                assert stats.misses - stats.evictions <= 2  # the states it holds
            tensors, tensor_bytes = _live_tensors()
            figures |= {
                "rss_end_kib": _rss_kib(),
                "threads_end": _threads(),
                "tensors_end": tensors,
                "tensor_kib_end": tensor_bytes // 1024,
            }
            figures["encodes"] = caplog.text.count(encoded)
            figures["evictions"] = stats.evictions
            return figures

    figures = asyncio.run(scenario())
    print(f"soak: {count} requests: {figures}")
    assert figures["threads_end"] == figures["threads_start"]
    assert figures["evictions"] >= count  # the LRU really cycled
    assert figures["encodes"] == 4  # every later miss loaded a saved state
    assert figures["tensors_end"] == figures["tensors_start"], figures
    assert figures["tensor_kib_end"] == figures["tensor_kib_start"], figures
    assert figures["rss_end_kib"] - figures["rss_start_kib"] < 48 * 1024, figures


def test_unreadable_data_dir_only_disables_saving(
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    args = model_args(slim_model, voices, "--data-dir", str(not_a_folder))

    async def scenario() -> Reply:
        async with running_server(args) as srv:
            return await synthesize(srv.port or 0, "Hello.")

    assert asyncio.run(scenario()).audio
    assert "Voice states will not be saved" in caplog.text


def test_model_that_cannot_load_exits_1(voices: dict[str, Path], tmp_path: Path) -> None:
    config = tmp_path / "broken.yaml"
    config.write_text("flow_lm: {dtype: float32}\n")
    with ServerProcess(["--model-config", str(config)], tmp_path / "log") as server:
        assert server.process.wait(timeout=120) == 1
        assert (
            f"Cannot start: {config} cannot be loaded: 4 validation errors for Config\n"
            in server.log
        )
        for field in ("flow_lm.flow", "flow_lm.transformer", "flow_lm.lookup_table", "mimi"):
            assert f"\n{field}\n  Field required [type=missing" in server.log, field
        assert "Traceback" not in server.log


def test_sigterm_during_synthesis_sends_closing_events(endless_server_factory) -> None:
    """Near 20 s alone on a busy host: the signal needs a server process of its own, and most
    of its time is that process importing torch and pocket-tts."""
    server = endless_server_factory()

    async def scenario() -> list[str]:
        async with AsyncTcpClient("127.0.0.1", server.port) as client:
            await client.write_event(SynthesizeStart().event())
            await client.write_event(SynthesizeChunk(text="A long stream. " * 20).event())
            reply = await read_until(client, "audio-chunk")
            server.process.terminate()
            await read_until(client, "synthesize-stopped", reply)
            return reply.types

    types = asyncio.run(scenario())
    assert types[-2:] == [AUDIO_STOP, "synthesize-stopped"]
    assert server.process.wait(timeout=10) == 0


FLOOD_BYTES = 16 * 1024 * 1024
"""Far past what could sit unread without the server's backpressure: asyncio pauses reading at
128 KiB (twice the StreamReader limit) and Linux's loopback socket buffers hold a few MiB."""


def test_a_flood_of_requests_is_held_back_not_buffered(
    slim_model: TinyModel, voices: dict[str, Path]
) -> None:
    """A client pipelining requests without reading gets TCP backpressure, not memory."""

    async def scenario() -> tuple[int, int, bool]:
        async with running_server(model_args(slim_model, voices)) as server:
            port = server.port or 0
            loop = asyncio.get_running_loop()
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            request = frame({"type": "synthesize", "data": {"text": "Hi."}})
            writer.write(request * (FLOOD_BYTES // len(request)))  # never drains: not awaited

            def pending() -> int:  # the most requests one connection had unanswered
                return max(connections.unanswered, default=0)

            most, deadline = 0, loop.time() + READ_TIMEOUT
            while most < MAX_PENDING_REQUESTS:  # the server reads until its bound
                assert loop.time() < deadline, f"only {most} requests read"
                await asyncio.sleep(0.02)
                most = max(most, pending())
            during = await synthesize(port, "Me too.")  # audio, or `busy`: never a hang
            if during.errors:
                assert [e.code for e in during.errors] == ["busy"] and not during.audio
            else:
                assert len(during.audio) > 0
            most = max(most, pending())
            unsent = writer.transport.get_write_buffer_size()
            writer.transport.abort()
            deadline = loop.time() + READ_TIMEOUT
            after = await synthesize(port, "Me too.")
            while [e.code for e in after.errors] == ["busy"]:  # until its queued jobs are gone
                assert loop.time() < deadline, "the departed flooder's requests still queue"
                after = await synthesize(port, "Me too.")
            return most, unsent, bool(after.audio) and not after.errors

    with connection_log() as connections:
        most, unsent, served_after = asyncio.run(scenario())
    assert most == MAX_PENDING_REQUESTS
    # Most of the flood is still in the client: the server stopped reading, not just parsing.
    assert unsent > FLOOD_BYTES / 2, unsent
    assert served_after


def test_a_client_that_floods_then_leaves_frees_its_connection(
    slim_model: TinyModel, voices: dict[str, Path]
) -> None:
    async def scenario() -> None:
        args = model_args(slim_model, voices, "--max-connections", "1")
        async with running_server(args) as server:
            port, loop = server.port or 0, asyncio.get_running_loop()
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            request = frame({"type": "synthesize", "data": {"text": "Hi."}})
            writer.write(request * (FLOOD_BYTES // len(request)))
            deadline = loop.time() + READ_TIMEOUT
            while not connections.unanswered:
                assert loop.time() < deadline, "the flood was never read"
                await asyncio.sleep(0.02)
            writer.transport.abort()
            deadline = loop.time() + READ_TIMEOUT
            while codes(await exchange(port, b"")) == ["too-many-connections"]:
                assert loop.time() < deadline, "the departed flooder still holds its slot"
                await asyncio.sleep(0.02)

    with connection_log() as connections:
        asyncio.run(scenario())
