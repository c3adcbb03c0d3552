"""`python -m testkit.int8_probe GRAPHS OUT.npz`: the int8 graphs in GRAPHS on this process's
kernels, for `testkit.kernels`' masked children (and a qemu-user cross-check). Saves to OUT.npz
`latents`, the int8 LM's latents on the gate's probe (`onnx.int8_gate.probe_latents`, each
frame fed the fp32 latent before: what the int8 kernels compute, with nothing fed back), and
`int8` and `fp32`, each graph set's free-running audio of `TEXT` at temperature 0 (seeded
noise). Prints the gate's drift as one JSON line. Imports neither torch nor pytest."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from wyoming_pocket_tts.engine.onnx.graphs import Graphs
from wyoming_pocket_tts.engine.onnx.int8_gate import measure, probe_latents
from wyoming_pocket_tts.engine.onnx.loop import GraphSpeech, numpy_noise

TEXT = "Dinner is ready."


def audio(graphs: Graphs, int8: bool) -> np.ndarray:
    """The graphs' audio of `TEXT` with no voice, on seeded noise."""
    model = GraphSpeech(graphs, int8, 1, numpy_noise(np.random.default_rng(0)))
    chunks = list(model.generate_audio_stream(model.empty_state(), TEXT))
    return np.concatenate(chunks)


def main() -> None:
    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    graphs = Graphs.read(folder)
    drift = measure(graphs)
    _, latents = probe_latents(graphs)
    np.savez(out, latents=latents, int8=audio(graphs, True), fp32=audio(graphs, False))
    print(json.dumps({"latent": drift.latent, "audio": drift.audio}), flush=True)


if __name__ == "__main__":
    main()
