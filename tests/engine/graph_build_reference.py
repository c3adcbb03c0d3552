"""pocket-tts's own torch modules on the inputs of the built graphs (`engine.graph_build`): the
reference the builder's tests hold the graphs to, and the graphs run the way the server runs
them (`onnx.runners`)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import onnxruntime as ort
import safetensors.numpy
import torch
import yaml
from pocket_tts import TTSModel
from pocket_tts.models.flow_lm import drifting_decode, lsd_decode, ot_decode, pointwise_decode
from pocket_tts.modules.stateful_module import increment_steps, init_states

from testkit.model_factory import TinyModel
from wyoming_pocket_tts.engine.onnx.graphs import Graphs
from wyoming_pocket_tts.engine.onnx.runners import MimiRunner
from wyoming_pocket_tts.engine.onnx.voice_encoding import VoiceEncoder

DECODERS = {
    "lsd": lsd_decode,
    "flow_matching": ot_decode,
    "drifting": drifting_decode,
    "pointwise": pointwise_decode,
}
TOLERANCE = 1e-5
"""Largest RMS difference of a built graph's output from pocket-tts's, relative to its RMS."""


def relative(got: np.ndarray, expected: np.ndarray) -> float:
    assert got.shape == expected.shape, (got.shape, expected.shape)
    return float(np.sqrt(np.mean((got - expected) ** 2)) / np.sqrt(np.mean(expected**2)))


def with_varied_eos(model: TinyModel, folder: Path) -> TinyModel:
    """`model` with a random end-of-speech head (the test models' is a constant), so the EOS
    logit depends on the LM's output."""
    folder.mkdir(parents=True, exist_ok=True)
    tensors = safetensors.numpy.load_file(str(model.weights_path))
    rng = np.random.default_rng(3)
    weight = tensors["flow_lm.out_eos.weight"]
    tensors["flow_lm.out_eos.weight"] = rng.standard_normal(weight.shape).astype(np.float32)
    weights = folder / "model.safetensors"
    safetensors.numpy.save_file(tensors, str(weights))
    config = yaml.safe_load(model.config_path.read_text(encoding="utf-8"))
    config["weights_path"] = str(weights)
    config_path = folder / "config.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return TinyModel(folder, config_path, model.tokenizer_path, weights)


def lm_inputs(graphs: Graphs, seed: int, steps: int, offset: int, slots: int) -> dict:
    """Random inputs of the LM graph: the caches hold random K and V past `offset` too (never
    written there: attention must not read them)."""
    rng = np.random.default_rng(seed)
    session = ort.InferenceSession(str(graphs.lm(False)), providers=["CPUExecutionProvider"])
    feeds: dict[str, np.ndarray] = {}
    for item in session.get_inputs():
        shape = [{"steps": steps, "slots": slots}.get(d, d) for d in item.shape]
        feeds[item.name] = rng.standard_normal(shape).astype(np.float32)
    feeds["offset"] = np.array([offset], np.int64)
    return feeds


def run_graph(path: Path, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return [np.asarray(out) for out in session.run(None, feeds)]


def torch_lm_step(model: TTSModel, graphs: Graphs, feeds: dict) -> list[np.ndarray]:
    """pocket-tts's flow LM (its own attention and cache layout) on the LM graph's inputs: the
    next latent, the EOS logit, then each cache's rows of these steps, as the graph returns
    them."""
    flow_lm = model.flow_lm
    embeddings = torch.from_numpy(feeds["embeddings"])
    steps, offset = embeddings.shape[1], int(feeds["offset"][0])
    state = init_states(flow_lm, 1, offset + steps)
    for i, name in enumerate(graphs.lm_names):
        for kv in (0, 1):  # (1, heads, slots, d) -> pocket-tts's (2, 1, slots, heads, d)
            cache = feeds[f"c{2 * i + kv}"][0, :, :offset].transpose(1, 0, 2)
            state[name]["cache"][kv, 0, :offset] = torch.from_numpy(np.ascontiguousarray(cache))
        state[name]["offset"].fill_(offset)
    with torch.no_grad():
        out = flow_lm.out_norm(flow_lm.transformer(embeddings, state))
        if flow_lm.z_proj is not None:
            out = flow_lm.z_proj(out)
        out = out[:, -1]
        eos = flow_lm.out_eos(out)
        decode = DECODERS[flow_lm.flow_type]
        noise = torch.from_numpy(feeds["noise"])
        latent = decode(partial(flow_lm.flow_net, out), noise, model.sampler_decode_steps)
    rows = [
        state[name]["cache"][kv, :, offset:].transpose(1, 2).numpy()
        for name in graphs.lm_names
        for kv in (0, 1)
    ]
    return [latent.numpy(), eos.numpy(), *rows]


def mimi_frames(model: TTSModel, graphs: Graphs, frames: int, seed: int) -> tuple[np.ndarray, ...]:
    """The audio of `frames` random latents decoded one at a time by pocket-tts's Mimi (its own
    streaming state) and by the Mimi graph as the server runs it (`MimiRunner`)."""
    mimi = model.mimi
    steps = int(mimi.encoder_frame_rate / mimi.frame_rate)
    runner = MimiRunner(graphs.mimi(False), steps, 1)
    ours = runner.new_state()
    theirs = init_states(mimi, 1, frames * runner.steps)
    rng = np.random.default_rng(seed)
    got, expected = [], []
    for _ in range(frames):
        latent = (rng.standard_normal((1, 1, mimi.quantizer.dimension)) * 3).astype(np.float32)
        got.append(runner.decode(ours, latent))
        with torch.no_grad():
            audio = mimi.decode_from_latent(torch.from_numpy(latent), theirs)
        increment_steps(mimi, theirs, increment=runner.steps)
        expected.append(audio.numpy().reshape(-1))
    return np.concatenate(got), np.concatenate(expected)


def voice_prompts(model: TTSModel, graphs: Graphs, audio: np.ndarray) -> tuple[np.ndarray, ...]:
    """The flow LM's prompt from `audio` (1, 1, samples) by the built encoder graph, a chunk at
    a time as the server runs it (`onnx.voice_encoding.VoiceEncoder`), and by pocket-tts
    (`_encode_audio`, then `bos_before_voice` where the config inserts it)."""
    got = VoiceEncoder(graphs.folder, 1).prompt(audio)
    with torch.no_grad():
        expected = model._encode_audio(torch.from_numpy(audio))
        if model.flow_lm.insert_bos_before_voice:
            expected = torch.cat([model.flow_lm.bos_before_voice, expected], dim=1)
    return got, expected.numpy()
