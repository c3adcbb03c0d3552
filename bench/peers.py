"""`script/bench --peers`: our server beside pocket-tts and its peers `ptts` and sherpa-onnx.

Six sides, each a process of its own, all up at once, one model (full-size `english` shapes or
`--model NAME`'s, random weights, end of speech disabled so that every side makes the same
frames) and two cloned voices:

- pocket-tts with its library defaults (fp32), the reference (`bench.peer_worker library`);
- our server with its default flags (`--quantize auto --runtime auto`), on its second start: a
  first start that is not measured tunes, exports the graphs and lets `auto` choose;
- our server with `--runtime onnx --quantize on`, its graphs exported by a first start that is not
  measured (then cached in its data folder);
- `ptts` 0.4.2 (gradium-ai/xn-ptts, the runtime pocket-tts 4.x's standalone binaries are built
  on) with `q8_0` and with `q4k` weights, on the same weights in its layout (`bench.ptts_layout`);
  left out, with the reason, on shapes ptts cannot run (`--model english_7m_2026-10`...);
- sherpa-onnx 2.0.1 (k2-fsa/sherpa-onnx) on its int8 PocketTTS files, exported from the same
  weights by sherpa-onnx's own recipe (`bench.sherpa_layout`) run from a checkout the user
  passes (`--sherpa-recipe DIR`, a clone of pocket-tts-onnx-export: nothing is fetched); left
  out, with the reason, without one or on shapes the recipe cannot export (`--quick`...).

ptts and sherpa-onnx are installed beside the venv, never into it (`pip install --target DIR
ptts==0.4.2`, DIR `--peers-dir`, by default `.peers/ptts-0.4.2`; `.peers/sherpa-onnx-2.0.1`
holds sherpa-onnx and the recipe's one requirement that the venv lacks), on demand. After one
reply per voice, runs alternate between the sides (A B C D E F A B ...), whole replies for the
real-time factor and stopped ones for first audio, as `script/bench` does. Each side's
whole-process RSS (VmRSS) and peak (VmHWM) are read from /proc after its replies. The servers
are timed by a client over loopback; pocket-tts, ptts and sherpa-onnx time themselves in their
own process.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import yaml

from testkit.model_factory import build_tiny_model, write_voice_wav
from testkit.zygote import run_python

from .memory import wait_for_graphs
from .peer_install import ensure_installed
from .ptts_layout import PTTS_VERSION, ptts_config
from .sherpa_layout import RECIPE_REQUIREMENTS, SHERPA_VERSION, recipe_refusal
from .sides import Run, Server, status_mib
from .summary import spread, summary

ROOT = Path(__file__).resolve().parents[1]
PEERS_DIR = ROOT / ".peers" / f"ptts-{PTTS_VERSION}"
SHERPA_DIR = ROOT / ".peers" / f"sherpa-onnx-{SHERPA_VERSION}"
TEXT = "The living room lights are on, and the front door is locked for the night."
VOICES = ("v1", "v2")
TTFA_RUNS_PER_RUN = 4
SETTLE = 0.2
"""Seconds between runs, for a stopped generation and spinning threads to wind down."""
PTTS_QUANTS = ("q8_0", "q4k")


class Side(Protocol):
    def run(self, text: str, voice: str) -> Run: ...
    def first_audio(self, text: str, voice: str) -> float: ...
    def rss_mib(self) -> float: ...
    def peak_mib(self) -> float: ...
    def stop(self) -> None: ...


def ensure_ptts(target: Path, timeout: float = 600.0) -> Path:
    """`target` holding ptts PTTS_VERSION, installed there now if it is not."""
    requirement = f"ptts=={PTTS_VERSION}"
    return ensure_installed(target, [requirement], f"ptts-{PTTS_VERSION}.dist-info", timeout)


def ensure_sherpa(target: Path, timeout: float = 600.0) -> Path:
    """`target` holding sherpa-onnx SHERPA_VERSION and the recipe's missing requirements,
    installed there now if it is not."""
    requirements = [f"sherpa-onnx=={SHERPA_VERSION}", *RECIPE_REQUIREMENTS]
    marker = f"sherpa_onnx-{SHERPA_VERSION}.dist-info"
    return ensure_installed(target, requirements, marker, timeout)


class Worker:
    """A `bench.peer_worker` process: one side, driven by JSON lines over its stdin/stdout."""

    def __init__(self, args: list[str], log: Path, path: list[Path], timeout: float = 600) -> None:
        self.log = log
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, [*path, ROOT]))}
        self._log = log.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.peer_worker", *args],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            text=True,
        )  # fmt: skip
        started = time.monotonic()
        try:
            if self._reply(timeout) != "ready":
                raise RuntimeError(f"{args[0]} did not start: {self._last_error()}")
        except RuntimeError:
            self.stop()
            raise
        self.startup = time.monotonic() - started

    def _reply(self, timeout: float) -> str:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            raise RuntimeError(f"no reply (exit {self.process.poll()}): {self._last_error()}")
        return line.strip()

    def _last_error(self) -> str:
        """The last line of its log that names an error (Python's or ptts's), and the log."""
        self._log.flush()
        lines = self.log.read_text(errors="replace").splitlines()
        named = [line.strip() for line in lines if "Error" in line and not line.startswith(" ")]
        return f"{named[-1] if named else 'no error logged'} (log: {self.log})"

    def ask(self, timeout: float = 600, **request: Any) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self._reply(timeout))
        return answer

    def run(self, text: str, voice: str) -> Run:
        return Run(**self.ask(op="run", text=text, voice=voice))

    def first_audio(self, text: str, voice: str) -> float:
        return float(self.ask(op="first_audio", text=text, voice=voice)["seconds"])

    def save(self, text: str, voice: str, path: Path) -> int:
        """The whole reply's float32 samples, written to `path` (`.npy`); their count."""
        return int(self.ask(op="save", text=text, voice=voice, path=str(path))["samples"])

    def _status(self, field: str) -> float:
        value = status_mib(self.process.pid, field)
        assert value is not None, "the worker ended"
        return value

    def rss_mib(self) -> float:
        return self._status("VmRSS")

    def peak_mib(self) -> float:
        return self._status("VmHWM")

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()


def library_worker(config: Path, prompts: dict[str, Path], log: Path) -> Worker:
    """pocket-tts with its defaults, the voices encoded before it says `ready`."""
    voices = [f"{name}={prompt}" for name, prompt in prompts.items()]
    return Worker(["library", str(config), *voices], log, [])


def ptts_worker(checkpoint: Path, quant: str, peers_dir: Path, log: Path) -> Worker:
    """ptts from `peers_dir` on the checkpoint folder `bench.ptts_layout` wrote."""
    return Worker(["ptts", str(checkpoint), quant], log, [peers_dir])


def sherpa_worker(folder: Path, prompts: dict[str, Path], installed: Path, log: Path) -> Worker:
    """sherpa-onnx from `installed` on the folder `bench.sherpa_layout` wrote."""
    voices = [f"{name}={prompt}" for name, prompt in prompts.items()]
    return Worker(["sherpa", str(folder), *voices], log, [installed])


def _child(argv: list[str], timeout: float) -> None:
    """`python ARGV` in a child (its torch model is not kept); CalledProcessError if it fails."""
    done = run_python(argv, dict(os.environ), timeout=timeout)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, argv, done.stdout, done.stderr)


def convert(config: Path, out: Path, prompts: dict[str, Path]) -> Path:
    """The model and its voices in ptts's layout."""
    argv = ["-m", "bench.ptts_layout", str(config), str(out)]
    _child(argv + [f"{name}={prompt}" for name, prompt in prompts.items()], 600)
    return out


def sherpa_export(config: Path, recipe: Path, installed: Path, out: Path) -> Path:
    """The model as sherpa-onnx's files, by its recipe in `recipe` (`bench.sherpa_layout`)."""
    _child(["-m", "bench.sherpa_layout", str(config), str(recipe), str(installed), str(out),
            TEXT], 3600)  # fmt: skip
    return out


def default_server(base: list[str], data: Path, root: Path) -> Server:
    """A server on its default flags (`--quantize auto --runtime auto`) as a household's second
    start finds it: a first start (not measured) tunes, exports the graphs and compares them
    with torch when idle, and saves the voice states; the second serves what was chosen."""
    args = [*base, "--quantize", "auto", "--runtime", "auto", "--data-dir", str(data)]
    first = Server(args, root / "server-first.log")
    try:
        deadline = time.monotonic() + 1800
        while "Measured again while idle" not in first.process.log:
            if "ONNX Runtime cannot run" in first.process.log or time.monotonic() > deadline:
                raise RuntimeError(f"no runtime was chosen: see {root}/server-first.log")
            time.sleep(0.5)
        for voice in VOICES:
            first.run(TEXT, voice)
    finally:
        first.stop()
    return Server(args, root / "server.log")


def onnx_server(base: list[str], data: Path, root: Path) -> Server:
    """A server on its cached int8 graphs: a first start exports them and saves the voice
    states (not measured), the second serves from the cache."""
    args = [*base, "--runtime", "onnx", "--quantize", "on", "--data-dir", str(data)]
    first = Server(args, root / "onnx-export.log")
    try:
        wait_for_graphs(first)
        for voice in VOICES:
            first.run(TEXT, voice)
    finally:
        first.stop()
    server = Server(args, root / "onnx.log")
    if not server.chosen_quantization().startswith("onnx"):
        server.stop()
        raise RuntimeError(f"the server did not start on its cached graphs: see {root}/onnx.log")
    return server


def _timed(sides: dict[str, Side], runs: int) -> dict[str, dict[str, Any]]:
    """One reply per voice per side, then alternating runs; spreads per side."""
    for side in sides.values():
        for voice in VOICES:
            side.run(TEXT, voice)
            time.sleep(SETTLE)
    whole: dict[str, list[Run]] = {name: [] for name in sides}
    first: dict[str, list[float]] = {name: [] for name in sides}
    for index in range(runs):
        for name, side in sides.items():
            whole[name].append(side.run(TEXT, VOICES[index % len(VOICES)]))
            time.sleep(SETTLE)
    for index in range(TTFA_RUNS_PER_RUN * runs):
        for name, side in sides.items():
            first[name].append(side.first_audio(TEXT, VOICES[index % len(VOICES)]))
            time.sleep(SETTLE)
    return {
        name: {**summary(whole[name]), **spread("ttfa", first[name]), "ttfa_runs": len(first[name])}
        for name in sides
    }


@contextlib.contextmanager
def _started(sides: dict[str, Side]) -> Iterator[dict[str, Side]]:
    try:
        yield sides
    finally:
        for side in sides.values():
            side.stop()


def ptts_refusal(config: Path) -> str | None:
    """Why ptts cannot run the model of `config` (`bench.ptts_layout.ptts_config`'s reason), or
    None when it can."""
    try:
        ptts_config(yaml.safe_load(config.read_text(encoding="utf-8")), 0.0)
    except ValueError as error:
        return str(error)
    return None


def measure(
    size: str,
    runs: int,
    folder: Path,
    peers_dir: Path = PEERS_DIR,
    sherpa_recipe: Path | None = None,
    sherpa_dir: Path = SHERPA_DIR,
) -> dict[str, Any]:
    """Every side's first audio, RTF, RSS and peak, on `size`'s shapes (`tiny`: `lsd`, the
    smallest shapes ptts runs); the ptts sides are left out, with the reason, for shapes that
    ptts cannot run (the small 2026-10 models), the sherpa-onnx side without `sherpa_recipe`
    or for shapes that its recipe cannot export (all but `english`'s and `english_2026-01`'s)."""
    size = "lsd" if size == "tiny" else size
    model = build_tiny_model(folder / "model", size=size, eos=False, link=True)
    refusal = ptts_refusal(model.config_path)
    config = yaml.safe_load(model.config_path.read_text(encoding="utf-8"))
    sherpa_refused = recipe_refusal(config, sherpa_recipe)
    prompts = {name: write_voice_wav(folder / f"{name}.wav", 10.0, seed=i)
               for i, name in enumerate(VOICES, 1)}  # fmt: skip
    peers: list[tuple[str, Path, Path]] = []  # (quant, checkpoint, ptts's folder)
    if refusal is None:
        installed = ensure_ptts(peers_dir)
        checkpoint = convert(model.config_path, folder / "ptts", prompts)
        peers = [(quant, checkpoint, installed) for quant in PTTS_QUANTS]
    sherpa: tuple[Path, Path] | None = None  # (its files, sherpa-onnx's folder)
    if sherpa_refused is None:
        assert sherpa_recipe is not None
        installed = ensure_sherpa(sherpa_dir)
        sherpa = (sherpa_export(model.config_path, sherpa_recipe, installed, folder / "sherpa"),
                  installed)  # fmt: skip
    base = ["--model-config", str(model.config_path)]
    base += [arg for name, prompt in prompts.items() for arg in ("--voice", f"{name}={prompt}")]
    sides: dict[str, Side] = {}
    with _started(sides):
        sides["pocket-tts"] = library_worker(model.config_path, prompts, folder / "library.log")
        defaults = default_server(base, folder / "data", folder)
        sides["server"] = defaults
        sides["server-onnx"] = onnx_server(base, folder / "data-onnx", folder)
        for quant, checkpoint, installed in peers:
            sides[f"ptts-{quant}"] = ptts_worker(
                checkpoint, quant, installed, folder / f"{quant}.log"
            )
        if sherpa is not None:
            files, installed = sherpa
            sides["sherpa-onnx"] = sherpa_worker(files, prompts, installed, folder / "sherpa.log")
        figures = _timed(sides, runs)
        for name, side in sides.items():
            figures[name] |= {"rss_mib": side.rss_mib(), "peak_mib": side.peak_mib()}
        figures["server"]["quantize"] = defaults.chosen_quantization()
    return {"size": size, "runs": runs, "sides": figures, "ptts": PTTS_VERSION, "text": TEXT,
            "ptts_left_out": refusal, "sherpa": SHERPA_VERSION,
            "sherpa_left_out": sherpa_refused}  # fmt: skip


LABELS = {
    "pocket-tts": "pocket-tts, library defaults (fp32)",
    "server": "server, default flags ({quantize})",
    "server-onnx": "server, `--runtime onnx --quantize on` (graphs cached)",
    "ptts-q8_0": "`ptts` {version} q8_0",
    "ptts-q4k": "`ptts` {version} q4k",
    "sherpa-onnx": "sherpa-onnx {sherpa} int8 (its recipe's files)",
}


def render(results: dict[str, Any]) -> str:
    sides = results["sides"]
    reference = sides["pocket-tts"]
    rows = [
        f"Side by side in one run: model shapes `{results['size']}` (random weights, no end of "
        f"speech: {reference['audio_seconds']:.1f} s of audio per reply), two cloned voices, "
        f"{results['runs']} whole replies and {reference['ttfa_runs']} first-audio runs per side "
        "alternating, medians (min-max); RSS and peak (VmHWM) of each side's whole process "
        "after its replies. Ratios against pocket-tts's defaults (first audio: lower is better; "
        "RTF: higher is better).",
        "",
        "| side | first audio | vs pocket-tts | RTF | vs pocket-tts | RSS | peak RSS |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, side in sides.items():
        label = LABELS[name].format(quantize=side.get("quantize", "?"), version=results["ptts"],
                                    sherpa=results.get("sherpa", "?"))  # fmt: skip
        rows.append(
            f"| {label} | {side['ttfa_median'] * 1000:.0f} ms "
            f"({side['ttfa_min'] * 1000:.0f}-{side['ttfa_max'] * 1000:.0f}) "
            f"| {side['ttfa_median'] / reference['ttfa_median']:.2f}x "
            f"| {side['rtf_median']:.2f}x ({side['rtf_min']:.2f}-{side['rtf_max']:.2f}) "
            f"| {side['rtf_median'] / reference['rtf_median']:.2f}x "
            f"| {side['rss_mib']:.0f} MiB | {side['peak_mib']:.0f} MiB |"
        )
    if results.get("ptts_left_out"):
        rows.append(f"\n`ptts` left out: {results['ptts_left_out']}.")
    if results.get("sherpa_left_out"):
        rows.append(f"\nsherpa-onnx left out: {results['sherpa_left_out']}.")
    rows.append(f"\nBench took {results.get('bench_seconds', 0):.0f} s.")
    return "\n".join(rows)
