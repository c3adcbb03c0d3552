"""The graphs built from the checkpoint (`engine.graph_build`) at `english` widths, against
pocket-tts's own modules: `lsd` (english's widths, one layer each: the LSD flow head with its
time embeddings, layer scales, no grouped heads or low-rank table) and `full` (`english`'s
shapes, every layer; random weights of 440 MB, made once per model cache): the LM step, Mimi's
decoder past its context and Mimi's encoder on 2.5 s of noise (seven chunks of 5 frames)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from testkit.model_factory import build_tiny_model
from wyoming_pocket_tts.engine.graph_build import build

from . import graph_build_reference as reference

pytestmark = [pytest.mark.usefixtures("one_torch_thread"), pytest.mark.timeout(600)]


@pytest.mark.parametrize("size", ["lsd", "full"])
def test_the_graphs_at_english_widths_compute_pocket_tts_s_sums(tmp_path: Path, size: str) -> None:
    tiny = build_tiny_model(tmp_path / "model", size=size, link=True)
    model = reference.with_varied_eos(tiny, tmp_path / "varied")
    graphs = build(model.weights_path, model.config_path, tmp_path / "graphs")
    torch_model = model.load()
    for steps, offset in ((3, 0), (1, 20)):
        feeds = reference.lm_inputs(graphs, offset, steps, offset, offset + steps + 5)
        got = reference.run_graph(graphs.lm(False), feeds)
        expected = reference.torch_lm_step(torch_model, graphs, feeds)
        for i, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
            assert reference.relative(ours, theirs) < reference.TOLERANCE, (steps, offset, i)
    audio = np.random.default_rng(4).standard_normal((1, 1, 24000 * 5 // 2 + 77)).astype(np.float32)
    got, expected = reference.voice_prompts(torch_model, graphs, audio * 0.2)
    assert reference.relative(got, expected) < reference.TOLERANCE
    del torch_model.flow_lm
    got, expected = reference.mimi_frames(torch_model, graphs, 20, seed=2)  # past the context
    assert reference.relative(got, expected) < reference.TOLERANCE
