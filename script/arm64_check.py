"""The x86 side of script/arm64-check, and the one step it runs inside the arm64 chroot.

`prepare` (x86, with torch) writes testkit's slim random model, a voice state of one synthetic
second and the model's graphs, built from the checkpoint by `engine.graph_build` (no torch).
`place` (in each environment) copies the graphs to where that environment's server looks for
them: the cache key holds the installed versions of torch and pocket-tts (`onnx.cache`), which
differ between the x86 venv and the chroot's. `speak` starts a server (its command given, the
same flags every time: the graphs alone, fp32, one thread), sends one Wyoming `synthesize` over
TCP on 127.0.0.1, writes the PCM, and stops it; every step is bounded. The server runs behind
an import recorder that lists, at its exit, each torch or pocket-tts module looked up, from
where, and whether it was imported. `compare` says how far two PCM files are apart, in 16-bit
steps.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

TEXT = "Turn on the kitchen lights, please. It is 21 degrees in the living room."
VOICE = "a"
LISTENING = re.compile(r"Listening on tcp://127\.0\.0\.1:(\d+)")
READ_TIMEOUT = 30.0
RECORD_IMPORTS = """
import atexit, sys, traceback
looked_up = {}

class Recorder:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("torch", "pocket_tts") and name not in looked_up:
            frames = [f for f in traceback.extract_stack()[:-1] if "importlib" not in f.filename]
            looked_up[name] = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"
        return None

def report():
    for name, where in looked_up.items():
        done = "IMPORTED" if name in sys.modules else "FOUND (files only, not imported)"
        print(f"TORCH/POCKET-TTS {done}: {name} from {where}", flush=True)
    print(f"TORCH/POCKET-TTS: {len(looked_up)} looked up", flush=True)

sys.meta_path.insert(0, Recorder())
atexit.register(report)
"""
"""Prelude of each server: records each torch or pocket-tts module looked up and from where (the
lookup itself goes on), and says as the process exits which of them were imported (executed)
and which only found (`pocket.package_dir` reads pocket-tts's files without importing it)."""


def prepare(work: Path) -> None:
    """The slim random model, voice `a`'s state and the graphs built from the checkpoint."""
    from pocket_tts import export_model_state

    from testkit.model_factory import build_tiny_model, write_voice_wav
    from wyoming_pocket_tts.engine.graph_build import build

    model = build_tiny_model(work / "model", size="slim", cache_dir=work / "model-cache")
    wav = write_voice_wav(work / "voice.wav", 1.0, seed=1)
    state = model.load().get_state_for_audio_prompt(wav)
    export_model_state(state, work / f"{VOICE}.safetensors")
    build(model.weights_path, model.config_path, work / "graphs")


def place(work: Path, data: Path) -> None:
    """Copy the built graphs to where this environment's server finds them under `data`."""
    from wyoming_pocket_tts.engine.onnx import cache
    from wyoming_pocket_tts.settings import ModelSettings

    config = str(work / "model" / "config.yaml")
    folder = cache.graph_folder(data, ModelSettings(model=None, config=config, runtime="onnx"))
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(work / "graphs", folder)
    print(f"graphs placed in {folder}")


def server_args(work: Path, data: Path) -> list[str]:
    """The server's flags: the slim model on its cached fp32 graphs, voice `a`, one thread."""
    return [
        "--uri", "tcp://127.0.0.1:0",
        "--model-config", str(work / "model" / "config.yaml"),
        "--voice", f"{VOICE}={work / f'{VOICE}.safetensors'}",
        "--runtime", "onnx", "--quantize", "off", "--threads", "1",
        "--data-dir", str(data),
    ]  # fmt: skip


def speak(command: list[str], work: Path, data: Path, out: Path, timeout: float) -> None:
    """Start `command` (a Python interpreter) as the server, ask for `TEXT`, write its PCM."""
    log = out.with_suffix(".log")
    argv = [*command, "-c", f"{RECORD_IMPORTS}\nfrom wyoming_pocket_tts.__main__ import main\n"
            "sys.exit(main())", *server_args(work, data)]  # fmt: skip
    started = time.monotonic()
    with log.open("wb") as sink:
        server = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT)
        try:
            port = _wait_port(server, log, started + timeout)
            print(f"server ready in {time.monotonic() - started:.1f} s (port {port})")
            began = time.monotonic()
            audio = asyncio.run(_synthesize(port, max(started + timeout - began, 1.0)))
            print(f"synthesized {len(audio) // 2} samples in {time.monotonic() - began:.1f} s")
            out.write_bytes(audio)
        finally:
            _stop(server)
    text = log.read_text(errors="replace")
    report = [line for line in text.splitlines() if line.startswith("TORCH/POCKET-TTS")]
    print("\n".join(report) or "TORCH/POCKET-TTS: no report (the server did not exit cleanly)")
    if server.returncode != 0:
        raise SystemExit(f"the server exited with {server.returncode}: see {log}")


def _wait_port(server: subprocess.Popen[bytes], log: Path, deadline: float) -> int:
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        match = LISTENING.search(text)
        if match and "Ready" in text:
            return int(match.group(1))
        if server.poll() is not None:
            raise SystemExit(
                f"the server exited ({server.returncode}) before it was ready:\n{text}"
            )
        time.sleep(0.2)
    raise SystemExit(f"the server was not ready in time: see {log}")


async def _synthesize(port: int, timeout: float) -> bytes:
    """One `synthesize` of `TEXT` in voice `a`: its PCM, read up to `audio-stop`."""
    from wyoming.audio import AudioChunk, AudioStop
    from wyoming.client import AsyncTcpClient
    from wyoming.error import Error
    from wyoming.tts import Synthesize, SynthesizeVoice

    audio = bytearray()
    async with AsyncTcpClient("127.0.0.1", port) as client:
        request = Synthesize(text=TEXT, voice=SynthesizeVoice(name=VOICE))
        await client.write_event(request.event())
        while True:
            event = await asyncio.wait_for(client.read_event(), min(timeout, READ_TIMEOUT * 20))
            if event is None:
                raise SystemExit("the server closed the connection mid-reply")
            if Error.is_type(event.type):
                raise SystemExit(f"the server answered an error: {Error.from_event(event).text}")
            if AudioChunk.is_type(event.type):
                audio += AudioChunk.from_event(event).audio
            if AudioStop.is_type(event.type):
                return bytes(audio)


def _stop(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited in 30 s."""
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def compare(reference: Path, other: Path) -> int:
    """Print how far `other`'s PCM is from `reference`'s; 0 if within one step, else 1."""
    import numpy as np

    ours = np.frombuffer(reference.read_bytes(), dtype="<i2").astype(np.int32)
    theirs = np.frombuffer(other.read_bytes(), dtype="<i2").astype(np.int32)
    if ours.size != theirs.size or ours.size == 0:
        print(f"PCM lengths differ: {reference.name} {ours.size}, {other.name} {theirs.size}")
        return 1
    diff = np.abs(ours - theirs)
    print(
        f"PCM: {ours.size} samples, max |difference| {diff.max()} steps, "
        f"{np.count_nonzero(diff)} samples differ ({np.count_nonzero(diff > 1)} by more than 1), "
        f"peak {np.abs(ours).max()}"
    )
    return 0 if diff.max() <= 1 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("prepare").add_argument("work", type=Path)
    placing = commands.add_parser("place")
    placing.add_argument("work", type=Path)
    placing.add_argument("data", type=Path)
    speaking = commands.add_parser("speak")
    speaking.add_argument("work", type=Path)
    speaking.add_argument("data", type=Path)
    speaking.add_argument("out", type=Path)
    speaking.add_argument("--timeout", type=float, default=600.0)
    speaking.add_argument("python", nargs="+", help="the server's Python (after --)")
    comparing = commands.add_parser("compare")
    comparing.add_argument("reference", type=Path)
    comparing.add_argument("other", type=Path)
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.work)
    elif args.command == "place":
        place(args.work, args.data)
    elif args.command == "speak":
        speak(args.python, args.work, args.data, args.out, args.timeout)
    else:
        return compare(args.reference, args.other)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(main())
