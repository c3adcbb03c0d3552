"""A pocket-tts model config (its YAML) read without pocket-tts: the shapes the graphs are
built to, and the generation settings the loop takes (`speech.json`).

The defaults are pocket-tts's (4.0.1: `utils.config`, `default_parameters`, `TTSModel`), kept
here so that neither torch nor pocket-tts is needed to build; where pocket-tts is installed,
`tests/engine/test_graph_build.py` holds them equal to its own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DEFAULT_TEMPERATURE = 0.3
"""`Config.default_temperature`."""
DEFAULT_EOS_THRESHOLD = -4.0
"""`default_parameters.DEFAULT_EOS_THRESHOLD` (`Config.default_eos_threshold`)."""
SAMPLER_DECODE_STEPS = 1
"""`default_parameters.DEFAULT_SAMPLER_DECODE_STEPS`, as the server loads its models."""
NOISE_CLAMP: float | None = None
"""`default_parameters.DEFAULT_NOISE_CLAMP`."""
MAX_TOKEN_PER_CHUNK = 50
"""`default_parameters.MAX_TOKEN_PER_CHUNK`."""
MIN_FRAMES_BEFORE_EOS = 6
TOKENS_PER_SECOND = 3.0
GEN_SECONDS_PADDING = 2.0
"""`TTSModel._MIN_FRAMES_BEFORE_EOS`, `_TOKENS_PER_SECOND_ESTIMATE`, `_GEN_SECONDS_PADDING`."""
TEXT_DEFAULTS: Mapping[str, Any] = {
    "pad_with_spaces_for_short_inputs": False,
    "remove_semicolons": False,
    "append_terminal_punctuation": True,
    "capitalize_first_letter": True,
    "replace_characters": {},
}
"""`Config`'s text preparation fields and their defaults."""


@dataclass(frozen=True)
class TransformerShape:
    """One streaming transformer (`StreamingTransformer`'s arguments)."""

    d_model: int
    num_heads: int
    num_layers: int
    dim_feedforward: int
    max_period: float
    attn_dim: int
    num_kv_heads: int
    context: int | None = None
    layer_scale: bool = False

    @property
    def dim_per_head(self) -> int:
        return self.attn_dim // self.num_heads


@dataclass(frozen=True)
class SEANetShape:
    """Mimi's SEANet encoder or decoder (the arguments that shape its weights)."""

    dimension: int
    channels: int
    n_filters: int
    n_residual_layers: int
    ratios: list[int]
    kernel_size: int
    residual_kernel_size: int
    last_kernel_size: int
    dilation_base: int
    compress: int
    pad_mode: str


@dataclass(frozen=True)
class ModelConfig:
    """What the builder reads from a config."""

    raw: Mapping[str, Any]
    flow: TransformerShape
    flow_type: str
    flow_dim: int
    flow_depth: int
    z_dim: int | None
    ldim: int
    n_bins: int
    table_dim: int
    table_rank: int | None
    tokenizer_kind: str
    tokenizer_path: str
    sample_rate: int
    frame_rate: float
    encoder_hop: int
    quantizer_out: int
    outer_dim: int | None
    decoder: SEANetShape
    decoder_transformer: TransformerShape
    decoder_input: int
    decoder_outputs: tuple[int, ...]
    encoder: SEANetShape
    encoder_transformer: TransformerShape
    encoder_input: int
    encoder_outputs: tuple[int, ...]
    inner_dim: int | None
    bos_before_voice: bool
    """`insert_bos_before_voice`: a voice prompt starts with `bos_before_voice`."""

    @property
    def encoder_frame_rate(self) -> float:
        return self.sample_rate / self.encoder_hop

    @property
    def mimi_steps_per_latent(self) -> int:
        return int(self.encoder_frame_rate / self.frame_rate)

    @property
    def time_conditions(self) -> int:
        """`SimpleMLPAdaLN.num_time_conds` of the flow head."""
        counts = {"lsd": 2, "flow_matching": 1, "drifting": 0, "pointwise": 0}
        if self.flow_type not in counts:
            raise ValueError(f"unknown flow type {self.flow_type!r} in the config")
        return counts[self.flow_type]


def read_config(config: Path | Mapping[str, Any]) -> ModelConfig:
    """The config at `config` (a YAML file) or already parsed."""
    raw = config if isinstance(config, Mapping) else _load(Path(config))
    try:
        return _parse(raw)
    except (KeyError, TypeError) as error:
        raise ValueError(f"the model config lacks or mistypes {error}") from error


def _load(path: Path) -> Mapping[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, Mapping):
        raise ValueError(f"{path} is no pocket-tts config")
    return data


def _parse(raw: Mapping[str, Any]) -> ModelConfig:
    flow_lm, mimi = raw["flow_lm"], raw["mimi"]
    lm = flow_lm["transformer"]
    d_model = int(lm["d_model"])
    table = flow_lm["lookup_table"]
    encoder = mimi["seanet"]
    decoder = mimi.get("decoder_seanet") or encoder
    mimi_transformer = mimi.get("decoder_transformer") or mimi["transformer"]
    kind, path = str(table["tokenizer"]), str(table["tokenizer_path"])
    return ModelConfig(
        raw=raw,
        flow=TransformerShape(
            d_model=d_model,
            num_heads=int(lm["num_heads"]),
            num_layers=int(lm["num_layers"]),
            dim_feedforward=int(lm.get("dim_feedforward") or d_model * lm["hidden_scale"]),
            max_period=float(lm["max_period"]),
            attn_dim=int(lm.get("attn_dim") or d_model),
            num_kv_heads=int(lm.get("num_kv_heads") or lm["num_heads"]),
        ),
        flow_type=str(flow_lm["flow"].get("type", "lsd")),
        flow_dim=int(flow_lm["flow"]["dim"]),
        flow_depth=int(flow_lm["flow"]["depth"]),
        z_dim=None if flow_lm.get("z_dim") is None else int(flow_lm["z_dim"]),
        ldim=int(mimi["quantizer"]["dimension"]),
        n_bins=int(table["n_bins"]),
        table_dim=int(table["dim"]),
        table_rank=None if table.get("rank") is None else int(table["rank"]),
        tokenizer_kind=_tokenizer_kind(kind, path),
        tokenizer_path=path,
        sample_rate=int(mimi["sample_rate"]),
        frame_rate=float(mimi["frame_rate"]),
        encoder_hop=math.prod(int(r) for r in encoder["ratios"]),
        quantizer_out=int(mimi["quantizer"]["output_dimension"]),
        outer_dim=None if mimi.get("outer_dim") is None else int(mimi["outer_dim"]),
        decoder=_seanet(decoder),
        decoder_transformer=_mimi_transformer(mimi_transformer),
        decoder_input=int(mimi_transformer["input_dimension"]),
        decoder_outputs=tuple(int(n) for n in mimi_transformer["output_dimensions"]),
        encoder=_seanet(encoder),
        encoder_transformer=_mimi_transformer(mimi["transformer"]),
        encoder_input=int(mimi["transformer"]["input_dimension"]),
        encoder_outputs=tuple(int(n) for n in mimi["transformer"]["output_dimensions"]),
        inner_dim=None if mimi.get("inner_dim") is None else int(mimi["inner_dim"]),
        bos_before_voice=bool(flow_lm.get("insert_bos_before_voice", False)),
    )


def _seanet(raw: Mapping[str, Any]) -> SEANetShape:
    return SEANetShape(
        dimension=int(raw["dimension"]),
        channels=int(raw["channels"]),
        n_filters=int(raw["n_filters"]),
        n_residual_layers=int(raw["n_residual_layers"]),
        ratios=[int(r) for r in raw["ratios"]],
        kernel_size=int(raw["kernel_size"]),
        residual_kernel_size=int(raw["residual_kernel_size"]),
        last_kernel_size=int(raw["last_kernel_size"]),
        dilation_base=int(raw["dilation_base"]),
        compress=int(raw["compress"]),
        pad_mode=str(raw["pad_mode"]),
    )


def _mimi_transformer(raw: Mapping[str, Any]) -> TransformerShape:
    return TransformerShape(
        d_model=int(raw["d_model"]),
        num_heads=int(raw["num_heads"]),
        num_layers=int(raw["num_layers"]),
        dim_feedforward=int(raw["dim_feedforward"]),
        max_period=float(raw.get("max_period", 10000.0)),
        attn_dim=int(raw["d_model"]),
        num_kv_heads=int(raw["num_heads"]),
        context=int(raw["context"]),
        layer_scale=raw.get("layer_scale") is not None,
    )


def _tokenizer_kind(kind: str, path: str) -> str:
    """pocket-tts's choice of tokenizer backend (`text_conditioner.build_tokenizer`)."""
    if kind in ("tokenizers", "json") or path.split("@")[0].endswith(".json"):
        return "tokenizers"
    return "sentencepiece"


def speech_settings(config: ModelConfig, voice_cloning: bool, tokenizer: str) -> dict[str, Any]:
    """The loop's settings (`onnx.loop_settings.LoopSettings`), as `onnx.export` writes them
    from a model pocket-tts loaded from this config with the server's arguments."""
    raw = config.raw
    text = {key: raw.get(key, default) for key, default in TEXT_DEFAULTS.items()}
    return {
        "sample_rate": config.sample_rate,
        "frame_rate": config.frame_rate,
        "mimi_steps_per_latent": config.mimi_steps_per_latent,
        "temperature": float(raw.get("default_temperature", DEFAULT_TEMPERATURE)),
        "noise_clamp": NOISE_CLAMP,
        "eos_threshold": float(raw.get("default_eos_threshold", DEFAULT_EOS_THRESHOLD)),
        "frames_after_eos": raw.get("model_recommended_frames_after_eos"),
        "min_frames_before_eos": MIN_FRAMES_BEFORE_EOS,
        "tokens_per_second": TOKENS_PER_SECOND,
        "padding_seconds": GEN_SECONDS_PADDING,
        "max_tokens": MAX_TOKEN_PER_CHUNK,
        **{
            key: dict(value or {}) if key == "replace_characters" else bool(value)
            for key, value in text.items()
        },
        "tokenizer": tokenizer,
        "voice_cloning": voice_cloning,
    }
