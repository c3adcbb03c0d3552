"""What a build reads (`engine.model_files.sources`), from local configs: no network, no model.

The hub's side (downloads, the fallback to the weights without cloning, no network) is tested
through the real server in tests/engine/test_without_torch.py; these are the config's rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from wyoming_pocket_tts.engine.model_files import SplitWeights, sources
from wyoming_pocket_tts.settings import ModelSettings


def _config(folder: Path, **fields: Any) -> ModelSettings:
    """A config in `folder` whose files are local (a checkpoint and a tokenizer file that
    exist), changed by `fields` (None removes a field)."""
    (folder / "model.safetensors").write_bytes(b"")
    (folder / "tokenizer.model").write_bytes(b"")
    config: dict[str, Any] = {
        "weights_path": str(folder / "model.safetensors"),
        "flow_lm": {"lookup_table": {"tokenizer_path": str(folder / "tokenizer.model")}},
        "mimi": {},
    }
    for name, value in fields.items():
        if value is None:
            config.pop(name)
        else:
            config[name] = value
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return ModelSettings(model=None, config=str(path))


def test_a_config_with_one_checkpoint_gives_its_files(tmp_path: Path) -> None:
    found = sources(_config(tmp_path))
    assert found.checkpoint == tmp_path / "model.safetensors"
    assert found.tokenizer == tmp_path / "tokenizer.model"
    assert found.weights == str(tmp_path / "model.safetensors")
    assert found.voice_cloning is True
    assert found.config["mimi"] == {}


@pytest.mark.parametrize("part", ["flow_lm", "mimi"])
def test_weights_given_apart_are_not_built_from(tmp_path: Path, part: str) -> None:
    """A config that gives the flow LM's or Mimi's weights a file of their own has no one
    checkpoint to build from: `SplitWeights` (the build child exports it from torch)."""
    settings = _config(tmp_path)
    config = yaml.safe_load(Path(str(settings.config)).read_text(encoding="utf-8"))
    config[part]["weights_path"] = str(tmp_path / f"{part}.safetensors")
    Path(str(settings.config)).write_text(yaml.safe_dump(config), encoding="utf-8")
    with pytest.raises(SplitWeights, match=f"{part}.weights_path"):
        sources(settings)


def test_a_config_without_weights_or_no_config_at_all_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="names no weights_path"):
        sources(_config(tmp_path, weights_path=None))
    not_a_config = tmp_path / "list.yaml"
    not_a_config.write_text("- a list\n", encoding="utf-8")
    with pytest.raises(ValueError, match="is no pocket-tts config"):
        sources(ModelSettings(model=None, config=str(not_a_config)))
