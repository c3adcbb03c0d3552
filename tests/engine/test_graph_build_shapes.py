"""The graphs built from the checkpoint (`engine.graph_build`) at `english` widths, against
pocket-tts's own modules: `lsd` (english's widths, one layer each: the LSD flow head with its
time embeddings, layer scales, no grouped heads or low-rank table) and `full` (`english`'s
shapes, every layer; random weights of 440 MB, made once per model cache)."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.model_factory import build_tiny_model
from wyoming_pocket_tts.engine.graph_build import build

from .graph_build_reference import (
    TOLERANCE,
    lm_inputs,
    mimi_frames,
    relative,
    run_graph,
    torch_lm_step,
    with_varied_eos,
)

pytestmark = [pytest.mark.usefixtures("one_torch_thread"), pytest.mark.timeout(600)]


@pytest.mark.parametrize("size", ["lsd", "full"])
def test_the_graphs_at_english_widths_compute_pocket_tts_s_sums(tmp_path: Path, size: str) -> None:
    model = with_varied_eos(build_tiny_model(tmp_path / "model", size=size, link=True),
                            tmp_path / "varied")  # fmt: skip
    graphs = build(model.weights_path, model.config_path, tmp_path / "graphs")
    reference = model.load()
    for steps, offset in ((3, 0), (1, 20)):
        feeds = lm_inputs(graphs, offset, steps, offset, offset + steps + 5)
        got = run_graph(graphs.lm(False), feeds)
        expected = torch_lm_step(reference, graphs, feeds)
        for i, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
            assert relative(ours, theirs) < TOLERANCE, (steps, offset, i)
    del reference.flow_lm
    got, expected = mimi_frames(reference, graphs, 20, seed=2)  # 320 steps: past the context
    assert relative(got, expected) < TOLERANCE
