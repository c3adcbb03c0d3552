"""`python -m bench [--quick | --model NAME | --table [NAME ...]] [--tuning|--profile|--tries]`.

Both sides use the same model (the layer shapes of pocket-tts's default `english.yaml`, random
weights; `--model NAME` any packaged config's shapes) with end-of-speech disabled, so both generate
exactly the same number of frames; `--quick` runs the slim test model, whose speech ends after a
few frames as exactly on both sides (a smoke test: its figures mean little). Runs alternate between
the sides (A B A B ...) so that drift on a shared machine hits both. Two comparisons: the server
with the same settings as the library (`--quantize off`, fp32), and the server with its default
flags (`--quantize auto`) against pocket-tts with its own defaults (fp32). Prints a Markdown table
with the ratios; `--json` also writes the raw figures. `--table` measures fp32 and int8 per model
shape instead (`bench.models`); `--tuning` what `--quantize auto` decides, against every
configuration end to end (`bench.tuning`); `--profile` one frame's time by part, beside this host's
floor (`bench.profile_report`); `--tries` each speed-up tried for issue 28 (`bench.tries`);
`--pieces` one piece per sentence against pocket-tts's groups (`bench.pieces`); `--mimi-state`
first audio with pocket-tts's NaN-filled Mimi caches and without (`bench.mimi_state`); `--onnx` the
frame as ONNX Runtime graphs against the server's torch path (`bench.onnx_spike`); `--memory` the
server's RSS per model and precision and what `--unload-after` gives back (`bench.memory`);
`--peers` the server beside pocket-tts and its peers `ptts` and sherpa-onnx in one run
(`bench.peers`; sherpa-onnx with `--sherpa-recipe DIR`, a checkout of its export recipe).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from pocket_tts import export_model_state

from testkit.model_factory import build_tiny_model, write_voice_wav
from testkit.zygote import run_python

from . import loudness
from .sides import Library, Server
from .summary import median as _median
from .summary import spread as _spread
from .summary import summary as _summary
from .text import text_speed

TEXT = "The living room lights are on, and the front door is locked for the night."
QUICK_TEXT = "The lights are on."
"""`--quick`'s whole generations: the smoke test checks that every figure is reported, not how
fast, so a short text on a model that ends its speech after a few frames (about 1 s of audio)."""
SENTENCES = ["Good evening.", "The living room lights are on now.", "Sleep well tonight."]
TTFA_RUNS_PER_RUN = 4
"""Time to first audio is noisy and cheap to measure (generation stops after it): more runs."""
SETTLE = 0.2
"""Seconds between runs, for a stopped generation to wind down."""
SINGLE_MODEL: dict[str, tuple[str, int | None]] = {
    "mimi_state": ("mimi_state", 5),
    "onnx": ("onnx_spike", 3),
    "pieces": ("pieces", 3),
    "tries": ("tries", 3),
    "profile": ("profile_report", 3),
    "tuning": ("tuning", None),
    "memory": ("memory", 3),
    "peers": ("peers", 3),
}
"""Each one-model bench by its flag: its module (`measure(size, runs, folder)` and `render`)
and its default runs (None: the common default)."""
LLM_GAP = 0.03
"""Seconds between streamed words: a local LLM at ~30 tokens per second."""


def library_vs_server(
    library: Library, server: Server, voice: Path, runs: int, text: str = TEXT
) -> dict:
    """Whole generations for the real-time factor; many cheap first-chunk runs for TTFA."""
    lib, srv = [], []
    library.run(text, voice), server.run(text, "v1")  # warm both
    for _ in range(runs):
        lib.append(library.run(text, voice))
        srv.append(server.run(text, "v1"))
    assert lib[0].audio_seconds == srv[0].audio_seconds, "both sides must make the same audio"
    lib_ttfa, srv_ttfa = [], []
    for _ in range(TTFA_RUNS_PER_RUN * runs):
        lib_ttfa.append(library.first_audio(text, voice))
        time.sleep(SETTLE)
        srv_ttfa.append(server.first_audio(text, "v1"))
        time.sleep(SETTLE)
    return {
        "library": {**_summary(lib), **_spread("ttfa", lib_ttfa)},
        "server": {**_summary(srv), **_spread("ttfa", srv_ttfa)},
        "ttfa_runs": len(lib_ttfa),
    }


def streaming(server: Server, runs: int) -> dict:
    words = [w if i == 0 else " " + w for i, w in enumerate(" ".join(SENTENCES).split(" "))]
    mark = len(SENTENCES[0].split(" ")) - 1  # the word that ends the first sentence
    after_mark, one_shot = [], []
    for _ in range(runs):
        run, marked = server.stream(words, LLM_GAP, mark)
        after_mark.append(run.ttfa - marked)
        one_shot.append(server.run(SENTENCES[0], "v1").ttfa)
    return {
        "stream_first_audio_after_sentence": _median(after_mark),
        "one_shot_ttfa_first_sentence": _median(one_shot),
        "llm_gap": LLM_GAP,
    }


def voices(library: Library, server: Server, prompt: Path, runs: int) -> dict:
    encoded_before = server.count("Encoded voice")
    hits = []
    for index in range(2 * runs):
        hits.append(server.run(SENTENCES[0], f"v{index % 2 + 1}").ttfa)
    alternating_encodes = server.count("Encoded voice") - encoded_before
    first_encode = server.run(SENTENCES[0], "v3").ttfa  # never encoded yet: evicts one
    from_state = []
    for index in range(runs):  # v1, v2, v3 through a 2-entry LRU: every request a miss
        from_state.append(server.run(SENTENCES[0], f"v{index % 3 + 1}").ttfa)
    third_voice_encodes = server.count("Encoded voice") - encoded_before - 1
    encode, load = [], []
    saved = prompt.with_suffix(".safetensors")
    export_model_state(library.model.get_state_for_audio_prompt(prompt), saved)
    for _ in range(runs):
        started = time.monotonic()
        library.model.get_state_for_audio_prompt(prompt)
        encode.append(time.monotonic() - started)
        started = time.monotonic()
        library.model.get_state_for_audio_prompt(saved)
        load.append(time.monotonic() - started)
    return {
        "library_encode_prompt": _median(encode),
        "library_load_saved_state": _median(load),
        "ttfa_hit": _median(hits),
        "ttfa_first_encode": first_encode,
        "ttfa_from_saved_state": _median(from_state),
        "encodes_alternating_two_voices": alternating_encodes,
        "encodes_cycling_three_voices_after_first": third_voice_encodes,
    }


def encode_threads(library: Library, prompt: Path, runs: int) -> dict:
    times: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(runs):
        for threads in (1, 2):
            torch.set_num_threads(threads)
            started = time.monotonic()
            library.model.get_state_for_audio_prompt(prompt)
            times[threads].append(time.monotonic() - started)
    torch.set_num_threads(1)
    return {f"encode_{n}_threads": _median(t) for n, t in times.items()}


def quantize(fp32: Server, int8: Server, runs: int, text: str = TEXT) -> dict:
    a, b = [], []
    fp32.run(text, "v1"), int8.run(text, "v1")
    for _ in range(runs):
        a.append(fp32.run(text, "v1"))
        b.append(int8.run(text, "v1"))
    return {"fp32": _summary(a), "int8": _summary(b)}


def memory(
    server: Server, config: Path, prompts: list[Path], requests: int, text: str = TEXT
) -> dict:
    """RSS of a freshly started server and of pocket-tts alone after the same requests."""
    for index in range(requests):
        server.run(text, f"v{index % len(prompts) + 1}")
    argv = ["-m", "bench.library_rss", str(config), str(requests), text, *map(str, prompts)]
    alone = run_python(argv, dict(os.environ), timeout=600)  # started as the server was
    if alone.returncode != 0:
        raise subprocess.CalledProcessError(alone.returncode, argv, alone.stdout, alone.stderr)
    library = float(alone.stdout)
    return {"server_rss_mib": server.rss_mib(), "library_rss_mib": library, "requests": requests}


def run(size: str, runs: int, root: Path) -> dict[str, Any]:
    quick = size in ("tiny", "slim")
    model = build_tiny_model(root / "model", size=size, eos=quick)
    seconds = 1.0 if quick else 10.0
    text = QUICK_TEXT if quick else TEXT
    prompts = [write_voice_wav(root / f"v{i}.wav", seconds, seed=i) for i in (1, 2, 3)]
    base = ["--model-config", str(model.config_path), "--voice-cache-size", "2", "--debug"]
    for index, prompt in enumerate(prompts, 1):
        base += ["--voice", f"v{index}={prompt}"]
    data = ["--data-dir", str(root / "data"), "--quantize", "off"]
    results: dict[str, Any] = {"size": size, "runs": runs}
    results["prompt_seconds"] = seconds
    library = Library(model.config_path)
    # Named, not left out: the tests' ServerProcess runs --quantize off unless told otherwise.
    auto = Server(
        [*base, "--data-dir", str(root / "data-auto"), "--quantize", "auto"], root / "auto.log"
    )
    results["defaults"] = library_vs_server(library, auto, prompts[0], runs, text)
    results["defaults"]["server_quantize"] = auto.chosen_quantization()
    results["defaults"]["startup_seconds"] = auto.startup
    auto.stop()
    cold = Server([*base, *data], root / "cold.log")
    results["startup"] = {"cold_seconds": cold.startup}
    results["library_vs_server"] = library_vs_server(library, cold, prompts[0], runs, text)
    results["streaming"] = streaming(cold, runs)
    results["voices"] = voices(library, cold, prompts[0], runs)
    cold.stop()
    warm = Server([*base, *data], root / "warm.log")
    results["startup"]["warm_seconds"] = warm.startup
    results["startup"]["warm_encodes"] = warm.count("Encoded voice")
    results["memory"] = memory(warm, model.config_path, prompts[:2], runs, text)
    int8 = Server([*base, "--quantize", "on", "--data-dir", str(root / "data8")], root / "int8.log")
    results["quantize"] = quantize(warm, int8, runs, text)
    results["quantize"]["fp32"]["rss_mib"] = warm.rss_mib()
    results["quantize"]["int8"]["rss_mib"] = int8.rss_mib()
    warm.stop()
    int8.stop()
    results["encode_threads"] = encode_threads(library, prompts[0], runs)
    results["text"] = text_speed(10 * runs)
    results["loudness"] = loudness.measure(model.config_path, root, seconds)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(prog="script/bench", description=__doc__)
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--quick", action="store_true", help="a test model (slim, tiny), smoke test only"
    )
    which.add_argument(
        "--model",
        default="full",
        metavar="NAME",
        help="a pocket-tts config whose shapes to use (default: english)",
    )
    which.add_argument(
        "--table",
        nargs="*",
        metavar="NAME",
        help="fp32 vs int8 per model shape, with RSS (default: the README's models)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="one frame's time by part (fp32/int8, 1/2 threads) beside this host's floor",
    )
    parser.add_argument(
        "--tries",
        action="store_true",
        help="each speed-up tried for issue 28 against pocket-tts's defaults (bench.tries)",
    )
    parser.add_argument(
        "--pieces",
        action="store_true",
        help="one piece per sentence against pocket-tts's groups: cost and a newcomer's wait",
    )
    parser.add_argument(
        "--mimi-state",
        action="store_true",
        help="first audio with pocket-tts's NaN-filled Mimi caches, a prepared copy, and unfilled",
    )
    parser.add_argument(
        "--onnx",
        action="store_true",
        help="issue 41's spike: the frame as ONNX Runtime graphs against the server's torch path",
    )
    parser.add_argument(
        "--tuning",
        action="store_true",
        help="what --quantize auto decides, against every configuration end to end",
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="server RSS: one model fp32 and int8, two models, and --unload-after (bench.memory)",
    )
    parser.add_argument(
        "--peers",
        action="store_true",
        help="the server beside pocket-tts, ptts (q8_0, q4k) and sherpa-onnx in one run",
    )
    parser.add_argument(
        "--peers-dir",
        type=Path,
        default=None,
        help="where ptts is (or gets) installed for --peers (default: .peers/ptts-VERSION)",
    )
    parser.add_argument(
        "--sherpa-recipe",
        type=Path,
        default=None,
        help="a checkout of pocket-tts-onnx-export, the recipe sherpa-onnx exports PocketTTS "
        "with: --peers then adds sherpa-onnx (left out without it; nothing is fetched)",
    )
    parser.add_argument("--runs", type=int, default=None, help="runs per side (default 5, quick 2)")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # pocket-tts warns on every EOS-less generation
    runs = args.runs or (2 if args.quick else 5)
    started = time.monotonic()
    results: dict[str, Any]
    bench = next((flag for flag in SINGLE_MODEL if getattr(args, flag)), None)
    if bench is not None:
        name, default_runs = SINGLE_MODEL[bench]
        module = importlib.import_module(f".{name}", __package__)
        with tempfile.TemporaryDirectory(prefix="pocket-bench-") as tmp:
            size = "tiny" if args.quick else args.model
            extra: dict[str, Any] = {}
            if bench == "peers":
                extra = {"sherpa_recipe": args.sherpa_recipe}
                extra |= {"peers_dir": args.peers_dir} if args.peers_dir else {}
            results = module.measure(size, args.runs or default_runs or runs, Path(tmp), **extra)
        results["bench_seconds"] = time.monotonic() - started
        table = module.render(results)
    elif args.table is not None:
        from .models import TABLE_MODELS, model_table, render_table

        with tempfile.TemporaryDirectory(prefix="pocket-bench-") as tmp:
            rows = model_table(list(args.table or TABLE_MODELS), runs, Path(tmp))
        results = {"models": rows, "runs": runs}
        results["bench_seconds"] = time.monotonic() - started
        table = render_table(rows, runs)
    else:
        from .report import render

        with tempfile.TemporaryDirectory(prefix="pocket-bench-") as tmp:
            results = run("slim" if args.quick else args.model, runs, Path(tmp))
        results["bench_seconds"] = time.monotonic() - started
        table = render(results)
    print(table)
    if args.markdown:
        args.markdown.write_text(table)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
