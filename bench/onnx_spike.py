"""`script/bench --onnx`: issue 41's spike, one frame as ONNX Runtime graphs against the server's
torch path, in one process, interleaved rounds (each round in the other order).

The sides, all from one random-weight model (pocket-tts's layer shapes):
- `torch fp32`, `torch int8`: what the server serves with (pocket-tts's own generation and its
  two threads; the `equivalents`; int8 = pocket-tts's `quantize=True` on torch.ao, the backend
  it takes without torchao, plus `model.int8`' Mimi);
- `torchao int8`: the same with torchao's `quantize_` (int8 dynamic activations and weights) on
  the same layers, if torchao imports (it is not installed with the server: pocket-tts would
  then take it for `quantize=True` itself);
- `onnx fp32`, `onnx int8`: the server's `--runtime onnx` model on cached graphs
  (`engine.onnx.lean.LeanModel`): the graphs' own generation loop (`engine.onnx.loop`, its two
  threads), numpy and ONNX Runtime only.
Each at 1 and 2 threads (torch's intra-op threads, or each ONNX session's). Per configuration:
the LM step and the Mimi step timed alone (median), the whole frame (a frame's audio over the
real-time factor after the first chunk, both stages running), the process's CPU per frame, and
first audio (a short sentence, to its first chunk), each side served as the server times its
choices (`engine.tuning.timing.serve`); and the audio against torch fp32: the same latents
decoded (max abs, relative RMS) and the LM's next latent from the same inputs.
"""

from __future__ import annotations

import copy
import os
import statistics
import time
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from pocket_tts.modules.stateful_module import increment_steps, init_states

from testkit.model_factory import build_tiny_model
from wyoming_pocket_tts.engine.model.equivalents import use_equivalents
from wyoming_pocket_tts.engine.model.runtime import TorchRuntime
from wyoming_pocket_tts.engine.onnx.attention import use_exportable_attention
from wyoming_pocket_tts.engine.onnx.lean import LeanModel
from wyoming_pocket_tts.engine.onnx.plan import frame_budget, slot_budget
from wyoming_pocket_tts.engine.onnx.voice_arrays import lm_caches
from wyoming_pocket_tts.engine.runtime import RuntimeKind
from wyoming_pocket_tts.engine.tuning.timing import (
    LONG_TEXT,
    SAMPLES_PER_FRAME,
    SHORT_TEXT,
    interleaved,
    serve,
)
from wyoming_pocket_tts.host import set_torch_threads
from wyoming_pocket_tts.settings import ModelSettings

from .onnx_report import THREADS, render

if TYPE_CHECKING:
    from pocket_tts import TTSModel

INSTALL = ".venv/bin/pip install -e ."
"""How to get onnxruntime, onnx and onnxscript: dependencies of the server."""

FRAMES = 40
"""Frames per whole-frame generation (3.2 s of audio; the first 3 are left out of the rate)."""
STEP_FRAMES = 15
"""Frames per LM-alone and Mimi-alone timing."""
CHECK_FRAMES = 30
"""Frames of the audio and latent comparison."""


def torch_ao_int8_copy(model: TTSModel) -> TTSModel:
    """The server's int8 (`profile_report.server_int8_copy`) on torch.ao, whatever imports:
    pocket-tts's `quantize=True` takes torchao whenever torchao imports, as it does here for
    torchao's own side."""
    from pocket_tts.quantization import RECOMMENDED_CONFIG, _apply_torch_ao

    from wyoming_pocket_tts.engine.model.int8 import quantize_mimi_decoder

    quantized = copy.deepcopy(model)
    _apply_torch_ao(quantized.flow_lm, RECOMMENDED_CONFIG)
    quantize_mimi_decoder(quantized)
    use_equivalents(quantized)
    return quantized


def torchao_copy(model: TTSModel) -> tuple[TTSModel | None, str]:
    """The server's int8 layers quantised by torchao instead of torch.ao; None and why not."""
    try:
        from torchao.quantization import Int8DynamicActivationInt8WeightConfig, quantize_
    except ImportError as error:
        return None, f"torchao does not import ({error})"
    quantized = copy.deepcopy(model)
    config = Int8DynamicActivationInt8WeightConfig()
    for layer in quantized.flow_lm.transformer.layers:
        quantize_(layer.self_attn, config)
        quantize_(layer.linear1, config)  # quantize_ swaps the weights of the module itself
        quantize_(layer.linear2, config)
    quantize_(quantized.mimi.decoder_transformer, config)
    use_equivalents(quantized)
    import torchao

    return quantized, f"torchao {torchao.__version__}"


class TorchSide:
    """A torch model, served through pocket-tts's own generation."""

    def __init__(self, model: TTSModel) -> None:
        self.model = model
        self.runtime = TorchRuntime(model, False)
        """The model behind the engine's seam (`serve` speaks through it)."""

    def lm_step(self) -> Callable[[], None]:
        model = self.model
        state = init_states(model.flow_lm, 1, 1000)
        with torch.no_grad():
            tokens = model.flow_lm.conditioner.prepare(LONG_TEXT)
            model._run_flow_lm_and_increment_step(state, text_tokens=tokens)
        latent = torch.full((1, 1, model.flow_lm.ldim), float("nan"))

        def step() -> None:
            with torch.no_grad():
                model._run_flow_lm_and_increment_step(state, backbone_input_latents=latent)

        return step

    def mimi_step(self, latent: torch.Tensor) -> Callable[[], None]:
        model = self.model
        state = init_states(model.mimi, 1, (STEP_FRAMES + 2) * 16)
        scaled = latent * model.flow_lm.emb_std + model.flow_lm.emb_mean

        def step() -> None:
            with torch.no_grad():
                model.mimi.decode_from_latent(scaled, state)
                increment_steps(model.mimi, state, 16)

        return step

    def outputs(self, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch_outputs(self.model, inputs)


class LeanSide:
    """The server's `--runtime onnx` model on cached graphs (`LeanModel`): the graphs' own loop."""

    def __init__(self, model: LeanModel) -> None:
        self.model = self.runtime = model

    def _noise(self) -> np.ndarray:
        """One LM call's noise, drawn as the loop draws it (none at the test models' 0)."""
        model = self.model
        settings = model.settings
        return model.noise((1, model.lm.ldim), settings.temperature, settings.noise_clamp)

    def _prompted(self) -> tuple[list[np.ndarray], int]:
        """Fresh LM caches after `LONG_TEXT`'s prompt (no voice), and their offset."""
        model = self.model
        tokens = model.tokenizer.encode(LONG_TEXT)
        slots = slot_budget(0, len(tokens), frame_budget(len(tokens), model.settings))
        caches = lm_caches(model.empty_state(), model.graphs.lm_names, slots)
        prompt = np.asarray(model.table[tokens], np.float32)[None]
        model.lm.run(caches, 0, prompt, self._noise())
        return caches, len(tokens)

    def lm_step(self) -> Callable[[], None]:
        model = self.model
        caches, offset = self._prompted()
        latent = np.full((1, 1, model.lm.ldim), np.nan, np.float32)
        steps = [offset]

        def step() -> None:
            embedding = model.frame.embed(latent)
            model.lm.run(caches, steps[0], embedding, self._noise())
            steps[0] += 1

        return step

    def mimi_step(self, latent: torch.Tensor) -> Callable[[], None]:
        model = self.model
        state = model.mimi.new_state()
        scaled = self._scaled(latent.numpy())

        def step() -> None:
            model.mimi.decode(state, scaled)

        return step

    def _scaled(self, latent: np.ndarray) -> np.ndarray:
        settings = self.model.settings
        scale = np.asarray(settings.emb_std, np.float32)
        return np.asarray(latent * scale + np.asarray(settings.emb_mean, np.float32), np.float32)

    def outputs(self, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """`torch_outputs` on the graphs: the LM's outputs for the given inputs, and Mimi's
        audio of the reference's."""
        model = self.model
        caches, offset = self._prompted()
        given = inputs.numpy()
        mimi = model.mimi.new_state()
        latents, audio = [], []
        for frame in range(CHECK_FRAMES):
            latent = given[:, frame : frame + 1]
            embedding = model.frame.embed(np.ascontiguousarray(latent))
            latents.append(model.lm.run(caches, offset + frame, embedding, self._noise())[0])
            if frame:  # the reference's output of the frame before
                audio.append(model.mimi.decode(mimi, self._scaled(latent)))
        return torch.from_numpy(np.concatenate(latents, 1)), torch.from_numpy(np.concatenate(audio))


Side = TorchSide | LeanSide


def _median_call(step: Callable[[], None], count: int) -> float:
    step()  # the first call after a reset pays for the empty cache
    times = []
    for _ in range(count):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def time_side(side: Side, latent: torch.Tensor) -> dict[str, float]:
    """One round of one configuration: every figure in seconds."""
    first_audio, _ = serve(side.runtime, SHORT_TEXT, 1)
    cpu = time.process_time()
    _, rtf = serve(side.runtime, LONG_TEXT, FRAMES)
    cpu_per_frame = (time.process_time() - cpu) / FRAMES
    return {
        "first_audio": first_audio,
        "frame": SAMPLES_PER_FRAME / side.model.sample_rate / rtf,
        "cpu_per_frame": cpu_per_frame,
        "lm_step": _median_call(side.lm_step(), STEP_FRAMES),
        "mimi_step": _median_call(side.mimi_step(latent), STEP_FRAMES),
    }


def reference_latents(model: TTSModel) -> tuple[torch.Tensor, torch.Tensor]:
    """torch fp32's `CHECK_FRAMES` LM inputs (BOS first) and outputs after `LONG_TEXT`."""
    state = init_states(model.flow_lm, 1, 1000)
    inputs, outputs = [torch.full((1, 1, model.flow_lm.ldim), float("nan"))], []
    with torch.no_grad():
        tokens = model.flow_lm.conditioner.prepare(LONG_TEXT)
        model._run_flow_lm_and_increment_step(state, text_tokens=tokens)
        for _ in range(CHECK_FRAMES):
            latent, _ = model._run_flow_lm_and_increment_step(
                state, backbone_input_latents=inputs[-1]
            )
            outputs.append(latent)
            inputs.append(latent)
    return torch.cat(inputs[:-1], 1), torch.cat(outputs, 1)


def torch_outputs(model: TTSModel, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A torch model's LM outputs for the given inputs, and Mimi's audio of the reference's."""
    state = init_states(model.flow_lm, 1, 1000)
    mimi = init_states(model.mimi, 1, (CHECK_FRAMES + 1) * 16)
    scale, shift = model.flow_lm.emb_std, model.flow_lm.emb_mean
    latents, audio = [], []
    with torch.no_grad():
        tokens = model.flow_lm.conditioner.prepare(LONG_TEXT)
        model._run_flow_lm_and_increment_step(state, text_tokens=tokens)
        for frame in range(CHECK_FRAMES):
            latent, _ = model._run_flow_lm_and_increment_step(
                state, backbone_input_latents=inputs[:, frame : frame + 1]
            )
            latents.append(latent)
            if frame:  # the reference's output of the frame before
                audio.append(
                    model.mimi.decode_from_latent(
                        inputs[:, frame : frame + 1] * scale + shift, mimi
                    ).flatten()
                )
                increment_steps(model.mimi, mimi, 16)
    return torch.cat(latents, 1), torch.cat(audio)


def differences(
    got: tuple[torch.Tensor, torch.Tensor], expected: tuple[torch.Tensor, torch.Tensor]
) -> dict[str, float]:
    def relative(a: torch.Tensor, b: torch.Tensor) -> float:
        return float((a - b).pow(2).mean().sqrt() / b.pow(2).mean().sqrt())

    return {
        "latent_rel_rms": relative(got[0], expected[0]),
        "audio_rel_rms": relative(got[1], expected[1]),
        "audio_max_abs": float((got[1] - expected[1]).abs().max()),
        "audio_peak": float(expected[1].abs().max()),
    }


def measure(size: str, runs: int, root: Path) -> dict[str, Any]:
    """Every side at every thread count, `runs` interleaved rounds, and the audio checks."""
    missing = [name for name in ("onnxruntime", "onnx", "onnxscript") if not find_spec(name)]
    if missing:
        raise SystemExit(f"--onnx needs {', '.join(missing)}: {INSTALL}")
    from pocket_tts import TTSModel

    from wyoming_pocket_tts.engine.onnx.export import export
    from wyoming_pocket_tts.engine.onnx.quantize import with_int8

    files = build_tiny_model(root / "model", size=size, eos=False, link=True)
    fp32 = TTSModel.load_model(config=str(files.config_path))
    exportable = copy.deepcopy(fp32)
    use_exportable_attention(exportable)
    started = time.monotonic()
    graphs = export(exportable, root / "onnx")
    exported = time.monotonic() - started
    started = time.monotonic()
    with_int8(graphs)
    quantize_seconds = time.monotonic() - started
    del exportable
    torch_models: dict[str, TTSModel] = {"torch fp32": copy.deepcopy(fp32)}
    use_equivalents(torch_models["torch fp32"])
    torch_models["torch int8"] = torch_ao_int8_copy(fp32)
    ao, ao_note = torchao_copy(fp32)
    if ao is not None:
        torch_models["torchao int8"] = ao
    settings = ModelSettings(model=None, config=str(files.config_path), runtime=RuntimeKind.ONNX)
    sides: dict[tuple[str, int], Side] = {}
    for threads in THREADS:
        for name, model in torch_models.items():
            sides[name, threads] = TorchSide(model)
        for int8 in (False, True):
            name = f"onnx {'int8' if int8 else 'fp32'}"
            sides[name, threads] = LeanSide(LeanModel(graphs.folder, settings, int8, threads))
    inputs, outputs = reference_latents(fp32)
    expected = torch_outputs(fp32, inputs)
    audio: dict[str, dict[str, float]] = {}
    set_torch_threads(1)
    for (name, threads), side in sides.items():
        if threads == 1:
            audio[name] = differences(side.outputs(inputs), expected)
    latent = outputs[:, :1]
    for (_, threads), side in sides.items():  # first-call costs, kept out
        set_torch_threads(threads)
        serve(side.runtime, SHORT_TEXT, 1)
    rounds: dict[str, list[dict[str, float]]] = {label(*key): [] for key in sides}
    loads = [os.getloadavg()[0]]
    keys = list(sides)
    for order in interleaved(keys, runs):
        for key in order:
            set_torch_threads(key[1])
            rounds[label(*key)].append(time_side(sides[key], latent))
        loads.append(os.getloadavg()[0])
    set_torch_threads(1)
    return {
        "size": size,
        "runs": runs,
        "frames": FRAMES,
        "rounds": rounds,
        "audio": audio,
        "torchao": ao_note,
        "export_seconds": exported,
        "quantize_seconds": quantize_seconds,
        "graph_mib": {
            path.name: path.stat().st_size / 2**20
            for path in (*graphs.files(False), *graphs.files(True))
        },
        "load_average": loads,
        "versions": versions(),
    }


def label(name: str, threads: int) -> str:
    return f"{name} x{threads}"


def versions() -> dict[str, str]:
    from importlib.metadata import version

    return {name: version(name) for name in ("torch", "pocket-tts", "onnxruntime", "onnx")}


__all__ = ["measure", "render"]  # render: bench/__main__ takes both from this module
