"""A pocket-tts model in the checkpoint layout of `ptts` 0.4.2 (gradium-ai/xn-ptts), for the bench.

`ptts` loads a folder: `config.json` (its `TTSConfig`), `tokenizer.json` (Hugging Face
`tokenizers`), `model.safetensors` (pocket-tts's own tensor names, which it renames on load) and
`voices/NAME.safetensors` (an `emb` tensor, `[1, T, d_model]`: the voice prompt the flow LM is
conditioned on). Two things of pocket-tts's `english` model have no place in 0.4.2's layout:

- `flow_lm.bos_before_voice`, which pocket-tts puts before every voice prompt: it moves into
  each voice's embedding, as its first row;
- Mimi's `inner_dim` (32): ptts's speaker encoder puts out `seanet.dimension` (512) channels, so
  the encoder's output convolution (`mimi.downsample`) and `flow_lm.speaker_proj_weight` are
  zero-padded from 32 to 512 channels. The padded channels are zero after the convolution and
  meet zero columns in the projection, so the voice embedding is unchanged.

Only models of the `english` architecture convert (LSD flow head, full-rank lookup table, one
Mimi transformer shape): `ptts_config` refuses others. The voice embeddings are pocket-tts's own
(`TTSModel._encode_audio` on the prompt as `get_state_for_audio_prompt` prepares it), so both
runtimes start from the same conditioning.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import safetensors.torch
import torch
import yaml
from pocket_tts import TTSModel
from pocket_tts.data.audio import audio_read
from pocket_tts.data.audio_utils import convert_audio, end_on_pause

from testkit.model_factory import sentencepiece_to_json

BOS_BEFORE_VOICE = "flow_lm.bos_before_voice"
SPEAKER_PROJ = "flow_lm.speaker_proj_weight"
ENCODER_OUTPUT = "mimi.downsample.conv.conv.weight"
"""pocket-tts's convolution from the encoder's `seanet.dimension` channels to `inner_dim`."""
PTTS_VERSION = "0.4.2"


def _set(section: dict[str, Any], *keys: str) -> bool:
    """Whether any of `keys` has a value in `section` (the 2026-10 configs write `null` for
    "as in `english`": `english_18m_2026-10` has `rank: null`, a full-rank table)."""
    return any(section.get(key) is not None for key in keys)


def unsupported_parts(config: dict[str, Any]) -> list[str]:
    """The parts of a pocket-tts model config that the `english` architecture (the one of
    ptts 0.4.2 and of sherpa-onnx's recipe, `bench.sherpa_layout`) lacks."""
    flow, mimi = config["flow_lm"], config["mimi"]
    return [
        key
        for key, present in (
            ("flow type", flow["flow"].get("type", "lsd") != "lsd"),
            ("low-rank lookup table", _set(flow["lookup_table"], "rank")),
            ("attention width", _set(flow["transformer"], "attn_dim", "num_kv_heads")),
            ("separate Mimi decoder", _set(mimi, "decoder_seanet", "decoder_transformer")),
            ("latent projection", _set(flow, "z_dim")),
        )
        if present
    ]


def ptts_config(config: dict[str, Any], temperature: float) -> dict[str, Any]:
    """ptts 0.4.2's `TTSConfig` (ptts/src/tts_model.rs) for a pocket-tts model config."""
    flow, mimi = config["flow_lm"], config["mimi"]
    transformer, seanet, mimi_transformer = flow["transformer"], mimi["seanet"], mimi["transformer"]
    unsupported = unsupported_parts(config)
    if unsupported:
        raise ValueError(f"ptts {PTTS_VERSION} cannot run this model: {', '.join(unsupported)}")
    return {
        "flow_lm": {
            "d_model": transformer["d_model"],
            "num_heads": transformer["num_heads"],
            "num_layers": transformer["num_layers"],
            "dim_feedforward": transformer.get(
                "dim_feedforward", transformer["d_model"] * transformer["hidden_scale"]
            ),
            "max_period": float(transformer["max_period"]),
            "n_bins": flow["lookup_table"]["n_bins"],
            "lut_dim": flow["lookup_table"]["dim"],
            "flow_dim": flow["flow"]["dim"],
            "flow_depth": flow["flow"]["depth"],
            "ldim": mimi["quantizer"]["dimension"],
        },
        "mimi": {
            "channels": mimi["channels"],
            "sample_rate": mimi["sample_rate"],
            "frame_rate": mimi["frame_rate"],
            "dimension": seanet["dimension"],
            "quantizer_dimension": mimi["quantizer"]["dimension"],
            "quantizer_output_dimension": mimi["quantizer"]["output_dimension"],
            "n_filters": seanet["n_filters"],
            "n_residual_layers": seanet["n_residual_layers"],
            "ratios": seanet["ratios"],
            "kernel_size": seanet["kernel_size"],
            "last_kernel_size": seanet["last_kernel_size"],
            "residual_kernel_size": seanet["residual_kernel_size"],
            "dilation_base": seanet["dilation_base"],
            "compress": seanet["compress"],
            "transformer_d_model": mimi_transformer["d_model"],
            "transformer_num_heads": mimi_transformer["num_heads"],
            "transformer_num_layers": mimi_transformer["num_layers"],
            "transformer_layer_scale": mimi_transformer["layer_scale"],
            "transformer_context": mimi_transformer["context"],
            "transformer_max_period": float(mimi_transformer.get("max_period", 10000)),
            "transformer_dim_feedforward": mimi_transformer["dim_feedforward"],
            "downsample_channel_wise": False,
        },
        "temp": temperature,
        "lsd_decode_steps": 1,
        "eos_threshold": float(config.get("default_eos_threshold", -4.0)),
        "fuser": {"sum": [], "streaming_sum": [], "prepend": [], "cross": []},
        "conditioners": [],
        "model_id": None,
    }


def _pad(tensor: torch.Tensor, dim: int, size: int) -> torch.Tensor:
    """`tensor` with zeros appended along `dim` up to `size`."""
    shape = list(tensor.shape)
    shape[dim] = size - shape[dim]
    return torch.cat([tensor, tensor.new_zeros(shape)], dim=dim).contiguous()


def ptts_weights(state: dict[str, torch.Tensor], dimension: int) -> dict[str, torch.Tensor]:
    """pocket-tts's state dict for ptts: without `bos_before_voice`, and the voice latent padded
    from Mimi's `inner_dim` to `dimension` (the encoder's output convolution, its bias if any,
    and the speaker projection's input columns)."""
    weights = {name: value for name, value in state.items() if name != BOS_BEFORE_VOICE}
    weights[ENCODER_OUTPUT] = _pad(state[ENCODER_OUTPUT], 0, dimension)
    bias = ENCODER_OUTPUT.removesuffix("weight") + "bias"
    if bias in state:
        weights[bias] = _pad(state[bias], 0, dimension)
    weights[SPEAKER_PROJ] = _pad(state[SPEAKER_PROJ], 1, dimension)
    return weights


def voice_embedding(model: TTSModel, prompt: Path) -> torch.Tensor:
    """The voice conditioning pocket-tts feeds its flow LM for `prompt`, `[1, T, d_model]`, with
    `bos_before_voice` first (as `TTSModel.get_state_for_audio_prompt` prepares it)."""
    audio, rate = audio_read(prompt)
    audio = convert_audio(audio, rate, model.config.mimi.sample_rate, 1)
    audio = end_on_pause(audio, model.config.mimi.sample_rate)
    with torch.no_grad():
        embedding = model._encode_audio(audio.unsqueeze(0))
        if model.flow_lm.insert_bos_before_voice:
            embedding = torch.cat([model.flow_lm.bos_before_voice, embedding], dim=1)
    return embedding.detach().float().contiguous()


def convert(config_path: Path, out: Path, voices: dict[str, Path]) -> Path:
    """Write a ptts checkpoint folder for the pocket-tts model of `config_path` (a config whose
    `weights_path` is a local safetensors file and whose tokenizer is a sentencepiece model, as
    `testkit.model_factory` writes them), with one voice per `voices` entry (name: prompt)."""
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    temperature = float(config.get("default_temperature", 0.3))
    settings = ptts_config(config, temperature)
    out.mkdir(parents=True, exist_ok=True)
    state = safetensors.torch.load_file(config["weights_path"])
    weights = ptts_weights(state, settings["mimi"]["dimension"])
    safetensors.torch.save_file(weights, str(out / "model.safetensors"))
    del state, weights
    tokenizer = Path(config["flow_lm"]["lookup_table"]["tokenizer_path"])
    if tokenizer.suffix == ".json":
        shutil.copyfile(tokenizer, out / "tokenizer.json")
    else:
        sentencepiece_to_json(tokenizer).save(str(out / "tokenizer.json"))
    (out / "config.json").write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    model = TTSModel.load_model(config=str(config_path))
    (out / "voices").mkdir(exist_ok=True)
    for name, prompt in voices.items():
        embedding = voice_embedding(model, prompt)
        safetensors.torch.save_file({"emb": embedding}, str(out / "voices" / f"{name}.safetensors"))
    return out


if __name__ == "__main__":  # python -m bench.ptts_layout CONFIG OUT NAME=PROMPT [NAME=PROMPT ...]
    import sys

    config_arg, out_arg, *voice_args = sys.argv[1:]
    pairs = (arg.split("=", 1) for arg in voice_args)
    convert(Path(config_arg), Path(out_arg), {name: Path(prompt) for name, prompt in pairs})
