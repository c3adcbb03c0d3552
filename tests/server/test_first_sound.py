"""No click where speech starts or stops: every sentence fades in from zero and out to zero.

pocket-tts#171: a fresh Mimi decoder puts a small step in a generation's first samples, heard
as a click; pocket-tts (torch) and the graphs' loop (`onnx.loop`) fade each generation's first
5 ms in. A generation also stops wherever its last frame left the waveform, and what follows it
starts at zero (the next sentence, a pause, the reply's end), so the server fades each one's
last 5 ms out (`audio.shaping`). Here, through the real server on both runtimes, each door
(Wyoming one-shot and streamed, HTTP raw PCM and WAV) and at speed 1.0 and 1.3 (the rate
changer between the model and the listener), a two-sentence reply must: start within one PCM
step of zero and stay under the fade's ramp for 5 ms; reach zero the same way at the end of
its first sentence (the join, found from the first sentence's reply alone); start the second
from zero; and end at zero.

Measured before the fade-out (2026-12-05, a 2-vCPU AMD EPYC VM, through in-process servers, random
weights): the first sample was 0 on every runtime and door, at either speed; the first sentence
ended on a step of 0.25 (speed 1.0) to 0.38 (1.3) of the reply's RMS at the tiny model's shapes,
0.31 to 0.69 at `english`'s. Here the samples stay within 0.86 of the ramp's bound.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np
import pytest

from testkit.model_factory import TinyModel
from testkit.support import FADE_SAMPLES, pcm_samples, synthesize, synthesize_streamed
from tests.conftest import model_args
from tests.server_thread import ServerThread
from wyoming_pocket_tts.engine.graph_build import build
from wyoming_pocket_tts.engine.model.runtime import TorchRuntime
from wyoming_pocket_tts.engine.onnx import cache
from wyoming_pocket_tts.engine.onnx.loop import GraphSpeech
from wyoming_pocket_tts.engine.runtime import RuntimeKind
from wyoming_pocket_tts.settings import ModelSettings

pytestmark = pytest.mark.timeout(300)

FIRST = "Turn on the kitchen lights."
TWO = f"{FIRST} Close the front door."
VOICES = ("plain", "quick")
"""`plain` speaks at 1.0 (its own speed), `quick` at the server's `--speed 1.3`."""
DOORS = ("one-shot", "streamed", "http-pcm", "http-wav")


@pytest.fixture(scope="module")
def spoke() -> Iterator[list[str]]:
    """Which runtime spoke each piece, in order (each runtime's `stream`, wrapped)."""
    names: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        for runtime, name in ((TorchRuntime, "torch"), (GraphSpeech, "onnx")):

            def stream(self: Any, *args: Any, _real: Any = runtime.stream, _name: str = name,
                       **kwargs: Any) -> Any:  # fmt: skip
                names.append(_name)
                return _real(self, *args, **kwargs)

            patch.setattr(runtime, "stream", stream)
        yield names


@pytest.fixture(scope="module", params=["torch", "onnx"])
def server(
    request: pytest.FixtureRequest,
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
    spoke: list[str],
) -> Iterator[ServerThread]:
    """A server on `request.param`; for the graphs, the slim model's built into its data
    folder first (`graph_build`, a fraction of a second), as a later start finds them."""
    runtime = request.param
    data = tmp_path_factory.mktemp(f"first-sound-{runtime}")
    args = model_args(slim_model, {"plain": voices["a"], "quick": voices["a"]}, "--speed", "1.3")
    args[args.index(f"plain={voices['a']}")] += ",speed=1"
    args += ["--runtime", runtime, "--quantize", "off", "--data-dir", str(data)]
    if runtime == "onnx":
        onnx = RuntimeKind.ONNX
        settings = ModelSettings(model=None, config=str(slim_model.config_path), runtime=onnx)
        folder = cache.graph_folder(data, settings)
        build(slim_model.weights_path, slim_model.config_path, folder,
              tokenizer=slim_model.tokenizer_path)  # fmt: skip
    running = ServerThread(args)
    yield running
    running.close()


async def http(port: int, text: str, voice: str, fmt: str) -> bytes:
    """OpenAI's speech API: the answer's 16-bit samples (a WAV's after its header)."""
    body = {"model": "pocket-tts", "voice": voice, "input": text, "response_format": fmt}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"http://127.0.0.1:{port}/v1/audio/speech", json=body) as answer,
    ):
        data = await answer.read()
        assert answer.status == 200, data[:200]
    return data[data.index(b"data") + 8 :] if fmt == "wav" else data


def heard(server: ServerThread, door: str, text: str, voice: str) -> np.ndarray:
    if door.startswith("http"):
        return pcm_samples(server.run(http(server.http_port, text, voice, door.split("-")[1])))
    if door == "streamed":
        reply = server.run(synthesize_streamed(server.port, [text], voice))
    else:
        reply = server.run(synthesize(server.port, text, voice))
    assert not reply.errors, reply.errors
    return pcm_samples(reply.audio)


def over_the_ramp(samples: np.ndarray, peak: int) -> list[int]:
    """Offsets where the first 5 ms of `samples` (a sentence's edge first: reversed for an end)
    rise above a linear fade from 0 to the reply's `peak` (one PCM step allowed for rounding)."""
    ramp = np.linspace(0, 1, FADE_SAMPLES) * peak + 1
    return np.flatnonzero(np.abs(samples[:FADE_SAMPLES]) > ramp).tolist()


@pytest.mark.parametrize("door", DOORS)
def test_every_sentence_fades_in_from_zero_and_out_to_zero(
    server: ServerThread, spoke: list[str], request: pytest.FixtureRequest, door: str
) -> None:
    runtime = request.node.callspec.params["server"]
    steps: dict[str, list[int]] = {}
    joins = {voice: heard(server, "one-shot", FIRST, voice).size for voice in VOICES}
    assert joins["quick"] < joins["plain"] / 1.25, joins  # the rate changer ran
    for voice, join in joins.items():
        spoke.clear()
        audio = heard(server, door, TWO, voice)
        assert spoke == [runtime, runtime], spoke  # two pieces, by the runtime under test
        assert join < audio.size, (join, audio.size)
        peak = int(np.abs(audio).max())
        assert peak > 1000, peak  # speech, loud enough for the ramp to bound it
        edges = {
            "reply starts": audio,
            "first sentence ends": audio[:join][::-1],
            "second sentence starts": audio[join:],
            "reply ends": audio[::-1],
        }
        for edge, samples in edges.items():
            if over := over_the_ramp(samples, peak):
                steps[f"{voice}: {edge}"] = over
    assert not steps, steps
