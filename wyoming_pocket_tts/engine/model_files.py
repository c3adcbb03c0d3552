"""What a build reads for a model of the settings: its config, checkpoint and tokenizer files,
found and fetched as pocket-tts's `TTSModel.load_model` finds them, without pocket-tts.

The config is the settings' file or URL, or a built-in model's (`pocket.configs_dir`). Its one
checkpoint is `weights_path`, the gated weights that clone voices; where they cannot be fetched
(no token, terms not accepted), `weights_path_without_voice_cloning`, as pocket-tts falls back.
Without network only a copy of those already here is taken: else the start waits for the
network (`offline`) once, not for both files in turn. Configs that give the flow LM's and
Mimi's weights apart (`flow_lm.weights_path`, `mimi.weights_path`) are not built from
(`SplitWeights`): torch exports them where installed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..downloads import hub_file
from ..offline import is_missing_network
from ..pocket import configs_dir
from ..settings import ModelSettings

_LOGGER = logging.getLogger(__name__)


class SplitWeights(ValueError):
    """The config gives the flow LM's and Mimi's weights in files of their own."""


@dataclass(frozen=True)
class Sources:
    """The files a build reads."""

    config: dict[str, Any]
    checkpoint: Path
    tokenizer: Path
    voice_cloning: bool
    """Whether `checkpoint` is the weights that clone voices."""
    weights: str
    """Where `checkpoint` came from: the config's `weights_path` (or the one without voice
    cloning), an `hf://` or `https://` URL or a local path."""


def sources(settings: ModelSettings) -> Sources:
    """The config, checkpoint and tokenizer of the model of `settings`, fetched where needed
    (the hub's errors, `SplitWeights`, or ValueError for a file that is no config)."""
    location = settings.config or str(configs_dir() / f"{settings.model}.yaml")
    config = yaml.safe_load(hub_file(location).read_text(encoding="utf-8"))
    if not isinstance(config, dict):
        raise ValueError(f"{location} is no pocket-tts config")
    for part in ("flow_lm", "mimi"):
        if (config.get(part) or {}).get("weights_path"):
            raise SplitWeights(f"{location} gives {part}.weights_path: no one checkpoint to build")
    weights = config.get("weights_path")
    if not weights:
        raise ValueError(f"{location} names no weights_path")
    weights, voice_cloning = str(weights), True
    try:
        checkpoint = hub_file(weights)
    except Exception as error:
        fallback = config.get("weights_path_without_voice_cloning")
        if not fallback:
            raise
        offline = is_missing_network(error)
        try:  # without network, only a copy already here: else the start waits for the network
            weights, voice_cloning = str(fallback), False
            checkpoint = hub_file(weights, cached_only=offline)
        except Exception:
            if offline:
                raise error from error.__cause__  # its own cause, not this fallback
            raise
        _LOGGER.info(
            "The weights that clone voices cannot be fetched (%s): using those without voice "
            "cloning",
            error,
        )
    tokenizer = hub_file(str(config["flow_lm"]["lookup_table"]["tokenizer_path"]))
    return Sources(config, checkpoint, tokenizer, voice_cloning, weights)
