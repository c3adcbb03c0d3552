"""The graphs built from the checkpoint without torch (`engine.graph_build`), held to
pocket-tts's own modules and to the export (`onnx.export`) on the endless model's weights.

Each built graph runs in ONNX Runtime on the same inputs as pocket-tts's torch modules (the LM
step on random caches at an offset, with an EOS head made non-constant; Mimi over frames past
its attention's context), then the whole loop (`onnx.loop`) speaks on the built folder as on
pocket-tts and on the exported folder. The export here is fp32 only (about 25 s).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest
import soundfile

from testkit.model_factory import TinyModel
from wyoming_pocket_tts.engine.graph_build import build
from wyoming_pocket_tts.engine.graph_build.folder import add_int8
from wyoming_pocket_tts.engine.onnx import cache as runtime
from wyoming_pocket_tts.engine.onnx import quantize
from wyoming_pocket_tts.engine.onnx.graphs import Graphs
from wyoming_pocket_tts.engine.onnx.loop import GraphSpeech
from wyoming_pocket_tts.engine.onnx.loop_settings import LoopSettings
from wyoming_pocket_tts.engine.onnx.runners import MimiRunner
from wyoming_pocket_tts.engine.voice_states.state_file import read_state

from .graph_build_reference import (
    TOLERANCE,
    lm_inputs,
    mimi_frames,
    relative,
    run_graph,
    torch_lm_step,
    voice_prompts,
    with_varied_eos,
)
from .test_onnx_loop import speak

pytestmark = [pytest.mark.usefixtures("one_torch_thread"), pytest.mark.timeout(300)]

LOOP_TOLERANCE = 1e-4
"""Largest RMS difference of the loop's audio on the built graphs, relative to its RMS
(issue 62: within 1e-4 at temperature 0)."""
ROOT = Path(__file__).resolve().parents[2]


def built_from(model: TinyModel, folder: Path) -> Graphs:
    return build(model.weights_path, model.config_path, folder)


@pytest.fixture(scope="module")
def built(endless_model: TinyModel, tmp_path_factory: pytest.TempPathFactory) -> Graphs:
    return built_from(endless_model, tmp_path_factory.mktemp("built") / "graphs")


@pytest.fixture(scope="module")
def exported(endless_model: TinyModel, tmp_path_factory: pytest.TempPathFactory) -> Graphs:
    folder = tmp_path_factory.mktemp("exported") / "graphs"
    return runtime.prepare_graphs(endless_model.load(), folder, False)


def test_the_build_imports_neither_torch_nor_pocket_tts(
    endless_model: TinyModel, tmp_path: Path
) -> None:
    """In a fresh interpreter where importing torch or pocket-tts fails, the build succeeds."""
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path

        class Refuse:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("torch", "pocket_tts"):
                    raise ImportError(f"the builder imported {{name}}")
                return None

        sys.meta_path.insert(0, Refuse())
        from wyoming_pocket_tts.engine.graph_build import build

        build(Path({str(endless_model.weights_path)!r}), Path({str(endless_model.config_path)!r}),
              Path({str(tmp_path / "graphs")!r}))
        print(sorted(n for n in sys.modules if n.split(".")[0] in ("torch", "pocket_tts")))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert Graphs.read(tmp_path / "graphs").lm_names


def test_the_lm_step_computes_pocket_tts_s_sums(endless_model: TinyModel, tmp_path: Path) -> None:
    """The LM graph on random caches (written up to the offset, garbage past it), several
    steps: pocket-tts's next latent, EOS logit (its head made non-constant) and K, V rows."""
    model = with_varied_eos(endless_model, tmp_path / "model")
    graphs = built_from(model, tmp_path / "graphs")
    reference = model.load()
    for steps, offset in ((1, 0), (5, 7), (1, 30)):
        feeds = lm_inputs(graphs, steps + offset, steps, offset, offset + steps + 9)
        got = run_graph(graphs.lm(False), feeds)
        expected = torch_lm_step(reference, graphs, feeds)
        assert len(got) == len(expected)
        for i, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
            assert relative(ours, theirs) < TOLERANCE, (steps, offset, i)
    assert np.std([torch_lm_step(reference, graphs, lm_inputs(graphs, s, 1, 3, 8))[1]
                   for s in range(4)]) > 0.1  # fmt: skip


def test_mimi_decodes_as_pocket_tts_past_its_context(
    endless_model: TinyModel, built: Graphs
) -> None:
    """Nine frames, one at a time (144 steps, past the decoder attention's 50-step context)."""
    got, expected = mimi_frames(endless_model.load(), built, 9, seed=5)
    assert relative(got, expected) < TOLERANCE


def test_the_voice_encoder_gives_pocket_tts_s_prompt(
    endless_model: TinyModel, built: Graphs, voices: dict[str, Path]
) -> None:
    """Mimi's encoder graph, a chunk at a time, on a voice prompt of no whole number of frames
    and three chunks (its attention's caches wrap): the prompt pocket-tts's
    `get_state_for_audio_prompt` runs through the LM (speaker projection, BOS first)."""
    parts = [soundfile.read(voices[name], dtype="float32") for name in ("a", "b", "a")]
    assert {rate for _, rate in parts} == {24000}
    audio = np.concatenate([part for part, _ in parts])[: 24000 * 5 // 2 + 101]
    got, expected = voice_prompts(endless_model.load(), built, audio[None, None].copy())
    assert got.shape == expected.shape == (1, 1 + 32, 112)  # BOS, then 32 frames (2.5 s)
    assert relative(got, expected) < TOLERANCE


def test_the_loop_speaks_on_the_built_graphs_as_pocket_tts_and_the_export(
    endless_model: TinyModel, built: Graphs, exported: Graphs, voice_file: Path
) -> None:
    """The served loop at temperature 0 on the built folder: pocket-tts's audio, and the
    exported folder's, within 1e-4 of their RMS (30 frames, 2.4 s, with a voice)."""
    reference = endless_model.load()
    assert reference.temp == 0
    expected = speak(reference, reference.get_state_for_audio_prompt(voice_file))
    ours = GraphSpeech(built, False, 1)
    got = speak(ours, read_state(voice_file))
    theirs = GraphSpeech(exported, False, 1)
    from_export = speak(theirs, read_state(voice_file))
    assert relative(got, expected) < LOOP_TOLERANCE
    assert relative(got, from_export) < LOOP_TOLERANCE


def test_the_folder_has_the_export_s_interface(built: Graphs, exported: Graphs) -> None:
    """Every built graph passes ONNX's checker with each weight once; every graph's inputs and
    outputs (names, order, types, shapes and dynamic axes), the loop's files and the state
    names are the export's; each graph's outputs on the same random inputs agree within float
    rounding."""
    import onnxruntime as ort

    for name in ("frame.onnx", "lm.onnx", "mimi.onnx", "voice.onnx"):
        onnx.checker.check_model(str(built.folder / name))  # valid, by ONNX's own checker
        graph = onnx.load(str(built.folder / name), load_external_data=False).graph
        names = [tensor.name for tensor in graph.initializer]
        assert len(names) == len(set(names)), name  # each weight once
    for name in ("frame.onnx", "lm.onnx", "mimi.onnx"):
        sessions = [ort.InferenceSession(str(g.folder / name)) for g in (built, exported)]
        ours, theirs = (
            [[(v.name, v.type, v.shape) for v in s.get_inputs()] for s in sessions],
            [[(v.name, v.type, v.shape) for v in s.get_outputs()] for s in sessions],
        )
        assert ours[0] == ours[1], name
        assert theirs[0] == theirs[1], name
    for name in ("graphs.json", "speech.json"):
        assert json.loads((built.folder / name).read_text()) == json.loads(
            (exported.folder / name).read_text()
        )
    assert (built.folder / "tokenizer.model").read_bytes() == (
        exported.folder / "tokenizer.model"
    ).read_bytes()
    table = np.load(built.text_embeddings)
    assert relative(table, np.load(exported.text_embeddings)) < TOLERANCE
    feeds = lm_inputs(built, 1, 4, 6, 16)
    for ours, theirs in zip(run_graph(built.lm(False), feeds), run_graph(exported.lm(False), feeds),
                            strict=True):  # fmt: skip
        assert relative(ours, theirs) < TOLERANCE
    latent = np.full((1, 1, feeds["noise"].shape[1]), np.nan, np.float32)  # the start
    assert relative(*(run_graph(g.frame, {"latent": latent})[0] for g in (built, exported))) < 1e-7


def _selected(path: Path) -> tuple[int, int]:
    """How many transformer linear layers and flow-head modulations `onnx.quantize` selects."""
    graph = onnx.load(str(path), load_external_data=False).graph
    return len(quantize.transformer_layers(graph)), len(quantize.flow_modulations(graph))


def test_the_int8_step_quantises_the_same_layers(
    built: Graphs, exported: Graphs, voice_file: Path
) -> None:
    """`onnx.quantize` selects as many transformer linear layers and flow-head modulations in
    the built graphs as in the exported ones, and its int8 of the built graphs speaks close to
    their fp32."""
    for ours, theirs in zip(built.files(False), exported.files(False), strict=True):
        assert _selected(ours) == _selected(theirs) != (0, 0), ours.name
    quantize.with_int8(built)
    fp32, int8 = GraphSpeech(built, False, 1), GraphSpeech(built, True, 1)
    state = read_state(voice_file)
    assert 0 < relative(speak(int8, state, frames=10), speak(fp32, state, frames=10)) < 0.03


def _int8_parts(path: Path) -> tuple[Counter[str], list[bytes]]:
    """The kinds of node of the graph at `path`, and its unsigned 8-bit weights (sorted)."""
    model = onnx.load(str(path))
    weights = sorted(
        onnx.numpy_helper.to_array(tensor).tobytes()
        for tensor in model.graph.initializer
        if tensor.data_type == onnx.TensorProto.UINT8
    )
    return Counter(node.op_type for node in model.graph.node), weights


def _mimi_audio(graphs: Graphs, int8: bool, frames: int) -> np.ndarray:
    steps = LoopSettings.read(graphs.speech).mimi_steps_per_latent
    runner = MimiRunner(graphs.mimi(int8), steps, 1)
    width = int(runner.session.get_inputs()[0].shape[-1])
    state, rng = runner.new_state(), np.random.default_rng(5)
    latents = [rng.standard_normal((1, 1, width)).astype(np.float32) * 3 for _ in range(frames)]
    return np.concatenate([runner.decode(state, latent) for latent in latents])


def test_the_built_int8_graphs_are_the_quantiser_s(
    endless_model: TinyModel, tmp_path: Path
) -> None:
    """The int8 LM and Mimi written as they are built (`graph_build.int8`, a weight at a time)
    and added later beside fp32 graphs (`add_int8`) are what ONNX Runtime's quantiser makes of
    the fp32 graphs (`onnx.quantize`): the same kinds of node, the same unsigned weights, and
    the same outputs to the bit."""
    ours = build(
        endless_model.weights_path, endless_model.config_path, tmp_path / "ours", int8=True
    )
    added = built_from(endless_model, tmp_path / "added")
    assert not added.has_int8
    add_int8(endless_model.weights_path, endless_model.config_path, added.folder)
    theirs = built_from(endless_model, tmp_path / "theirs")
    quantize.with_int8(theirs)
    feeds = lm_inputs(theirs, seed=4, steps=3, offset=5, slots=12)
    expected_lm = run_graph(theirs.lm(True), feeds)
    expected_mimi = _mimi_audio(theirs, True, 6)
    for graphs in (ours, added):
        for path, quantised in zip(graphs.files(True), theirs.files(True), strict=True):
            kinds, weights = _int8_parts(path)
            assert kinds["MatMulInteger"] > 0 and weights, path.name
            assert (kinds, weights) == _int8_parts(quantised), path.name
        for got, expected in zip(run_graph(graphs.lm(True), feeds), expected_lm, strict=True):
            np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(_mimi_audio(graphs, True, 6), expected_mimi)
