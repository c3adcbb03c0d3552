"""`script/bench --tuning`: what `--quantize auto` decides, and whether the listener gains by it.

1. A server starts with `--quantize auto` on a fresh data folder: its start-up log gives the
   decision, every configuration's serving-path figures and how long the comparison took.
2. One server per configuration (`--quantize on|off --threads 1|N`), all up at once; requests
   go to each in turn, the order rotated every round, so drift on a shared machine hits all:
   a short sentence timed to its first audio (then the client hangs up), and a long one timed
   to its end (RTF = audio / wall time from the request). The load average is recorded.
"""

from __future__ import annotations

import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

from testkit.model_factory import build_tiny_model, write_voice_wav
from wyoming_pocket_tts.engine.tuning.timing import LONG_TEXT, SHORT_TEXT
from wyoming_pocket_tts.host import usable_cores

from .sides import Server

SETTLE = 0.2
"""Seconds between requests, for a stopped generation to wind down."""
_TUNED = re.compile(
    r"Tuned for this host: (\S+ x\d+) \((.*); (lowest first audio.*); "
    r"compared in ([\d.]+) s, ([\d.]+) s CPU\)"
)
_FIGURE = re.compile(r"((?:int8|fp32) x\d+): first audio (\d+) ms, RTF ([\d.]+)x")


def decision(base: list[str], root: Path) -> dict[str, Any]:
    """Start a `--quantize auto` server once and read what it decided from its log."""
    started = time.monotonic()
    server = Server(
        [*base, "--quantize", "auto", "--data-dir", str(root / "auto")], root / "auto.log"
    )
    startup = time.monotonic() - started
    log = server.process.log
    server.stop()
    return {**parse_decision(log), "startup_seconds": startup}


def parse_decision(log: str) -> dict[str, Any]:
    """The decision, each configuration's figures and the comparison's cost, from a start-up log."""
    match = _TUNED.search(log)
    if match is None:
        raise ValueError("no tuning decision in the log")
    figures = {
        label: {"first_audio": int(ms) / 1000, "rtf": float(rtf)}
        for label, ms, rtf in _FIGURE.findall(match.group(2))
    }
    return {
        "chosen": match.group(1),
        "figures": figures,
        "rule": match.group(3),
        "compare_seconds": float(match.group(4)),
        "compare_cpu_seconds": float(match.group(5)),
    }


def end_to_end(base: list[str], root: Path, runs: int) -> dict[str, Any]:
    """Every configuration as its own server, requests interleaved; medians per server."""
    threads = sorted({1, min(usable_cores(), 4)})
    configs = [(q, n) for n in threads for q in ("off", "on")]
    servers: dict[str, Server] = {}
    try:
        for quantize, count in configs:
            label = f"{'int8' if quantize == 'on' else 'fp32'} x{count}"
            args = [*base, "--quantize", quantize, "--threads", str(count)]
            args += ["--data-dir", str(root / f"data-{quantize}-{count}")]
            servers[label] = Server(args, root / f"{label.replace(' ', '')}.log")
        for server in servers.values():
            server.run(SHORT_TEXT, "v1")  # first request of each, kept out of the figures
        first: dict[str, list[float]] = {label: [] for label in servers}
        rtf: dict[str, list[float]] = {label: [] for label in servers}
        loads = [os.getloadavg()[0]]
        order = list(servers)
        for number in range(runs):
            turn = order[number % len(order) :] + order[: number % len(order)]
            for label in turn:
                first[label].append(servers[label].first_audio(SHORT_TEXT, "v1"))
                time.sleep(SETTLE)
            for label in reversed(turn):
                rtf[label].append(servers[label].run(LONG_TEXT, "v1").rtf)
                time.sleep(SETTLE)
            loads.append(os.getloadavg()[0])
        return {
            label: {
                "first_audio_median": statistics.median(first[label]),
                "first_audio_min": min(first[label]),
                "rtf_median": statistics.median(rtf[label]),
                "rtf_max": max(rtf[label]),
            }
            for label in servers
        } | {"load_average": {"min": min(loads), "max": max(loads)}}
    finally:
        for server in servers.values():
            server.stop()


def measure(size: str, runs: int, root: Path) -> dict[str, Any]:
    model = build_tiny_model(root / "model", size=size, eos=False)
    voice = write_voice_wav(root / "v1.wav", 3.0 if size == "tiny" else 10.0, seed=1)
    base = ["--model-config", str(model.config_path), "--voice", f"v1={voice}", "--debug"]
    load_before = os.getloadavg()
    return {
        "size": size,
        "runs": runs,
        "load_average_before": load_before,
        "decision": decision(base, root),
        "end_to_end": end_to_end(base, root, runs),
    }


def render(results: dict[str, Any]) -> str:
    """The decision, the serving-path figures, and each server's end-to-end medians."""
    chosen = results["decision"]["chosen"]
    lines = [
        f"`--quantize auto` chose {chosen} ({results['decision']['rule']}); comparison "
        f"{results['decision']['compare_seconds']:.1f} s "
        f"({results['decision']['compare_cpu_seconds']:.1f} s CPU), start-up "
        f"{results['decision']['startup_seconds']:.1f} s",
        "",
        "| config | serving path: first audio | serving path: RTF | end to end: first audio "
        "(median, min) | end to end: RTF (median, max) | first audio vs chosen | RTF vs chosen |",
        "|---|---|---|---|---|---|---|",
    ]
    e2e = results["end_to_end"]
    for label, figure in results["decision"]["figures"].items():
        row = e2e[label]
        lines.append(
            f"| {label}{' (chosen)' if label == chosen else ''} "
            f"| {figure['first_audio'] * 1000:.0f} ms | {figure['rtf']:.2f}x "
            f"| {row['first_audio_median'] * 1000:.0f} ms, {row['first_audio_min'] * 1000:.0f} ms "
            f"| {row['rtf_median']:.2f}x, {row['rtf_max']:.2f}x "
            f"| {row['first_audio_median'] / e2e[chosen]['first_audio_median']:.2f} "
            f"| {row['rtf_median'] / e2e[chosen]['rtf_median']:.2f} |"
        )
    load = e2e["load_average"]
    lines += [
        "",
        f"{results['runs']} interleaved rounds per server; 1-minute load average "
        f"{results['load_average_before'][0]:.1f} before, {load['min']:.1f}-{load['max']:.1f} "
        f"during, on {os.cpu_count()} cores.",
    ]
    return "\n".join(lines)
