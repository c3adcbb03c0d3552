"""pocket-tts's flow LM and Mimi, each frame run as an ONNX graph: given to them as their class.

pocket-tts's own generation loop (`generate_audio_stream`, its two threads, `stop`, EOS, the
fade-in) stays as it is. At load, the model's attention becomes `ExportableAttention` and:
- the flow LM becomes `GraphFlowLM`: a frame (one latent, no text) and a prompt (a sentence's
  text or a voice's audio, no latent) run the LM graph, with pocket-tts's noise drawn here in
  the same order from the same generator;
- Mimi becomes `GraphMimi`: `decode_from_latent` on a state runs the Mimi graph per frame;
  Mimi's encoder (voice prompts) stays torch.
So requests, cancellation (`stop`, checked per frame by pocket-tts) and voice states behave as
on torch. Voice states in pocket-tts's layout (saved, built-in) need `from_pocket_state`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from pocket_tts.models.flow_lm import FlowLMModel
from pocket_tts.models.mimi import MimiModel

from .attention import use_exportable_attention
from .sessions import LMGraph, MimiGraph

if TYPE_CHECKING:
    from pocket_tts import TTSModel
    from pocket_tts.modules.stateful_module import ModelState

    from .graphs import Graphs


class GraphFlowLM(FlowLMModel):
    """pocket-tts's flow LM whose per-frame step is `graph`'s."""

    graph: LMGraph

    def _sample_next_latent(
        self,
        sequence: torch.Tensor,
        text_embeddings: torch.Tensor,
        model_state: ModelState,
        sampler_decode_steps: int,
        temp: float,
        noise_clamp: float | None,
        eos_threshold: float,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if sequence.shape[1] == 1 and text_embeddings.shape[1] == 0:  # a frame
            latent = torch.where(torch.isnan(sequence), self.bos_emb, sequence)
            embeddings = self.input_linear(latent)
        elif sequence.shape[1] == 0:  # a prompt
            embeddings = text_embeddings
        else:  # both at once: pocket-tts never asks it
            return super()._sample_next_latent(
                sequence, text_embeddings, model_state, sampler_decode_steps, temp,
                noise_clamp, eos_threshold,
            )  # fmt: skip
        noise = torch.empty(1, self.ldim)
        std = temp**0.5
        if noise_clamp is None:
            torch.nn.init.normal_(noise, mean=0.0, std=std)
        else:
            torch.nn.init.trunc_normal_(noise, mean=0.0, std=std, a=-noise_clamp, b=noise_clamp)
        next_latent, eos = self.graph.step(model_state, embeddings, noise)
        return next_latent, eos > eos_threshold


class GraphMimi(MimiModel):
    """pocket-tts's Mimi whose streaming decoder is `graph`'s."""

    graph: MimiGraph

    def decode_from_latent(self, latent: torch.Tensor, mimi_state: ModelState) -> torch.Tensor:
        return self.graph.decode(mimi_state, latent)


def use_graphs(model: TTSModel, graphs: Graphs, int8: bool, threads: int) -> None:
    """Give a loaded fp32 model (no graphs yet) the exportable attention and `onnx.export` (their
    int8 or fp32 files) in ONNX Runtime sessions of `threads` threads each."""
    steps = int(model.mimi.encoder_frame_rate / model.mimi.frame_rate)
    lm = LMGraph(graphs.lm(int8), graphs.lm_names, threads)
    mimi = MimiGraph(graphs.mimi(int8), graphs, steps, threads)
    use_exportable_attention(model)
    object.__setattr__(model.flow_lm, "graph", lm)
    model.flow_lm.__class__ = GraphFlowLM
    object.__setattr__(model.mimi, "graph", mimi)
    model.mimi.__class__ = GraphMimi
    _release_torch_weights(model)


def _release_torch_weights(model: TTSModel) -> None:
    """Empty the torch weights of the modules the graphs run (they hold their own copies):
    about 400 MiB at `english` shapes. Each parameter keeps its dtype and device (state
    initialisation reads them); a call that still reached one would fail, not run torch."""
    flow_lm, mimi = model.flow_lm, model.mimi
    modules = [flow_lm.transformer, flow_lm.out_norm, flow_lm.out_eos, flow_lm.flow_net]
    modules += [getattr(mimi, "upsample", None), mimi.decoder_transformer, mimi.decoder]
    for module in filter(None, modules):
        for parameter in module.parameters():
            parameter.data = torch.empty(0, dtype=parameter.dtype, device=parameter.device)
