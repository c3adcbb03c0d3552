"""`script/bench --memory`: the server's resident memory (VmRSS) with one model in fp32 and int8,
with two models, and what `--unload-after` gives back, with the next request's first audio.

Each configuration is a fresh server process (`ServerProcess`, like every bench side) with one
cloned voice per model (a 10 s prompt, its state cached in the data folder by a first start that
is not measured). RSS is read from /proc/PID/status: after `Ready`, after `runs` requests, after
the unload that `--unload-after` makes once the server has been idle, and after the request that
loads the model again. First audio is the time from `synthesize` to the first audio chunk, for the
request after the unload (a load included) and for the next one (warm). With the model on ONNX
Runtime graphs (`--runtime onnx`, fp32 and int8): the server's RSS once it switched and served,
the export child's peak (VmHWM, read while it runs: the largest reading, since the child
replaces itself for the int8 step and its VmHWM starts again) and the graphs' size on disk.
"""

from __future__ import annotations

import contextlib
import re
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from testkit.model_factory import build_tiny_model, write_voice_wav

from .sides import Server, status_mib

TEXT = "The living room lights are on, and the front door is locked for the night."
UNLOAD_AFTER_MINUTES = 0.05
"""3 s: long enough for a request to end, short enough to wait for."""


def _wait_for_unload(server: Server, count: int, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while server.count("Unloaded the") < count:
        if time.monotonic() > deadline:
            raise TimeoutError("the idle model was never unloaded")
        time.sleep(0.2)
    time.sleep(0.5)  # malloc_trim ran with the log line; let the numbers settle


@contextlib.contextmanager
def _stopping(server: Server) -> Iterator[Server]:
    """`server`, stopped on the way out (also when a measurement fails)."""
    try:
        yield server
    finally:
        server.stop()


def _server(args: list[str], log: Path, warm_data: Path) -> Server:
    """A server whose voice states a first (unmeasured) start already saved."""
    with _stopping(
        Server([*args, "--data-dir", str(warm_data)], log.with_suffix(".f.log"))
    ) as first:
        first.run(TEXT, "v1")
    return Server([*args, "--data-dir", str(warm_data)], log)


def one_model(config: Path, prompt: Path, quantize: str, runs: int, root: Path) -> dict[str, Any]:
    """RSS loaded, after requests, unloaded and reloaded; first audio after the unload."""
    args = [
        "--model-config", str(config), "--voice", f"v1={prompt}", "--quantize", quantize,
        "--unload-after", f"{UNLOAD_AFTER_MINUTES:g}",
    ]  # fmt: skip
    figures: dict[str, Any] = {"runs": runs}
    reloads, warm = [], []
    log, data = root / f"one-{quantize}.log", root / f"data-{quantize}"
    with _stopping(_server(args, log, data)) as server:
        figures["ready_mib"] = server.rss_mib()
        for _ in range(runs):
            server.run(TEXT, "v1")
        figures["after_requests_mib"] = server.rss_mib()
        for number in range(1, runs + 1):
            _wait_for_unload(server, number)
            figures.setdefault("unloaded_mib", server.rss_mib())
            reloads.append(server.first_audio(TEXT, "v1"))
            warm.append(server.first_audio(TEXT, "v1"))
        figures["reloaded_mib"] = server.rss_mib()
    figures["first_audio_after_unload_s"] = statistics.median(reloads)
    figures["first_audio_warm_s"] = statistics.median(warm)
    return figures


def two_models(config: Path, prompts: list[Path], runs: int, root: Path) -> dict[str, Any]:
    """RSS with two models of the same shapes (two languages) loaded and used, fp32 and int8."""
    figures: dict[str, Any] = {}
    for quantize in ("off", "on"):
        args = [
            "--model-config", f"en={config}", "--model-config", f"fr={config}",
            "--voice", f"v1={prompts[0]}", "--voice", f"fr:v2={prompts[1]}",
            "--quantize", quantize, "--preload",
        ]  # fmt: skip
        log, data = root / f"two-{quantize}.log", root / f"data-two-{quantize}"
        with _stopping(_server(args, log, data)) as server:
            for _ in range(runs):
                server.run(TEXT, "v1")
                server.run(TEXT, "v2")
            figures[quantize] = server.rss_mib()
    return figures


def wait_for_graphs(server: Server, timeout: float = 1800.0) -> float:
    """Wait until `server` runs on its ONNX Runtime graphs; the export child's peak RSS (MiB,
    VmHWM read while it runs; 0 when the graphs were cached and no child ran)."""
    deadline, peak, pid = time.monotonic() + timeout, 0.0, None
    while "now runs on ONNX Runtime" not in server.process.log:
        if "ONNX Runtime cannot run" in server.process.log or time.monotonic() > deadline:
            raise RuntimeError(f"the export failed or timed out:\n{server.process.log}")
        found = re.search(r"separate process \(pid (\d+)\)", server.process.log)
        pid = int(found.group(1)) if found else pid
        peak = max(peak, (status_mib(pid, "VmHWM") if pid else None) or 0.0)
        time.sleep(0.5)
    return peak


def graphs(config: Path, prompt: Path, runs: int, root: Path) -> dict[str, Any]:
    """RSS on ONNX Runtime graphs (fp32, int8), the export's peak and the graphs on disk."""
    figures: dict[str, Any] = {}
    for quantize in ("off", "on"):
        data = root / f"data-onnx-{quantize}"
        args = [
            "--model-config", str(config), "--voice", f"v1={prompt}", "--quantize", quantize,
            "--runtime", "onnx", "--data-dir", str(data),
        ]  # fmt: skip
        with _stopping(Server(args, root / f"onnx-{quantize}.log")) as server:
            peak = wait_for_graphs(server)
            for _ in range(runs):
                server.run(TEXT, "v1")
            files = [path for path in (data / "graphs").rglob("*") if path.is_file()]
            figures[quantize] = {
                "rss_mib": server.rss_mib(),
                "export_peak_mib": peak,
                "disk_mib": sum(path.stat().st_size for path in files) / 2**20,
            }
    return figures


def measure(size: str, runs: int, folder: Path) -> dict[str, Any]:
    model = build_tiny_model(folder / "model", size=size, eos=True)
    prompts = [write_voice_wav(folder / f"v{i}.wav", 10.0, seed=i) for i in (1, 2)]
    return {
        "size": size,
        "fp32": one_model(model.config_path, prompts[0], "off", runs, folder),
        "int8": one_model(model.config_path, prompts[0], "on", runs, folder),
        "two_models": two_models(model.config_path, prompts, runs, folder),
        "graphs": graphs(model.config_path, prompts[0], runs, folder),
    }


def render(results: dict[str, Any]) -> str:
    rows = [
        f"Server RSS (VmRSS, MiB), model shapes `{results['size']}`, random weights, one cloned "
        f"voice per model, {results['fp32']['runs']} requests; first audio in ms (median).",
        "",
        "| | fp32 | int8 |",
        "| --- | --- | --- |",
    ]
    one = {key: (results["fp32"][key], results["int8"][key]) for key in results["fp32"]}
    labels = {
        "ready_mib": "one model, after `Ready`",
        "after_requests_mib": "one model, after the requests",
        "unloaded_mib": "after `--unload-after` unloaded it",
        "reloaded_mib": "after the next requests loaded it again",
    }
    for key, label in labels.items():
        rows.append(f"| {label} | {one[key][0]:.0f} | {one[key][1]:.0f} |")
    two = results["two_models"]
    rows.append(f"| two models, after requests to each | {two['off']:.0f} | {two['on']:.0f} |")
    onnx = results["graphs"]
    for key, label in (
        ("rss_mib", "one model on ONNX Runtime graphs, after the requests"),
        ("export_peak_mib", "the graph export's child process, its peak"),
        ("disk_mib", "the graphs on disk"),
    ):
        rows.append(f"| {label} | {onnx['off'][key]:.0f} | {onnx['on'][key]:.0f} |")
    for key, label in (
        ("first_audio_after_unload_s", "first audio, the request after an unload"),
        ("first_audio_warm_s", "first audio, the request after that"),
    ):
        rows.append(f"| {label} | {one[key][0] * 1000:.0f} ms | {one[key][1] * 1000:.0f} ms |")
    rows.append(f"\nBench took {results.get('bench_seconds', 0):.0f} s.")
    return "\n".join(rows)
