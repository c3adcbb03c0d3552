"""Which model a cached thing belongs to: a fingerprint of everything that shapes its output,
for every runtime (voice states, graphs, tuning decisions); it needs neither torch nor pocket-tts
(`pocket`: the configs and the pocket-tts version they are)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml

from ..pocket import POCKET_TTS_VERSION, configs_dir
from ..settings import ModelSettings

_WEIGHT_KEYS = ("weights_path", "weights_path_without_voice_cloning")


def model_identity(settings: ModelSettings) -> str:
    """A fingerprint of everything that shapes a voice state: config, local weights, pocket-tts's
    version (its code: the one `pocket` mirrors), and
    the precision: fp32 ONNX graphs share torch fp32's states (the same to 6e-7 of their RMS),
    int8 graphs have their own (ONNX Runtime rounds otherwise than torch's int8)."""
    if settings.quantize is None:
        raise ValueError("model_identity needs the resolved quantisation, not auto")
    precision = f"q={settings.quantize}"
    if settings.quantize and settings.runtime is not None and settings.runtime.own_int8_states:
        precision += f" {settings.runtime}"  # " onnx": the key states were first saved under
    digest = hashlib.sha256(f"pocket-tts {POCKET_TTS_VERSION} {precision}".encode())
    config = settings.config or str(configs_dir() / f"{settings.model}.yaml")
    if config.startswith(("hf://", "http://", "https://")):
        digest.update(config.encode())  # hf:// revisions pin the content
        return digest.hexdigest()
    text = Path(config).read_text(encoding="utf-8")
    digest.update(text.encode())
    for weights in _local_weights(yaml.safe_load(text) or {}):
        stat = weights.stat()
        digest.update(f"{weights}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def _local_weights(config: dict[str, Any]) -> list[Path]:
    sections = [config, config.get("flow_lm") or {}, config.get("mimi") or {}]
    paths = [section.get(key) for section in sections for key in _WEIGHT_KEYS]
    return [Path(p) for p in paths if isinstance(p, str) and "://" not in p and Path(p).is_file()]
