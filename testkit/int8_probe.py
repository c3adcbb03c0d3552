"""`python -m testkit.int8_probe GRAPHS OUT.npy`: the int8 graphs in GRAPHS on this process's
kernels, for `testkit.kernels`' masked children. Prints one JSON line, the gate's drift
(`onnx.int8_gate.measure`), and saves the int8 graphs' audio of `TEXT` at temperature 0 (the
graphs' own loop, seeded noise) to OUT.npy. Imports neither torch nor pytest."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from wyoming_pocket_tts.engine.onnx.graphs import Graphs
from wyoming_pocket_tts.engine.onnx.int8_gate import measure
from wyoming_pocket_tts.engine.onnx.loop import GraphSpeech, numpy_noise

TEXT = "Dinner is ready."


def audio(graphs: Graphs) -> np.ndarray:
    """The int8 graphs' audio of `TEXT` with no voice, on seeded noise."""
    model = GraphSpeech(graphs, True, 1, numpy_noise(np.random.default_rng(0)))
    chunks = list(model.generate_audio_stream(model.empty_state(), TEXT))
    return np.concatenate(chunks)


def main() -> None:
    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    graphs = Graphs.read(folder)
    drift = measure(graphs)
    np.save(out, audio(graphs))
    print(json.dumps({"latent": drift.latent, "audio": drift.audio}), flush=True)


if __name__ == "__main__":
    main()
