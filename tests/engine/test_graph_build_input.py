"""The graph builder (`engine.graph_build`) on bad input, and the pocket-tts constants it keeps.

A checkpoint that lacks a tensor, holds one of another shape or is cut short fails with the
tensor (or file) named, and leaves no folder behind; only a cut is a `CheckpointCut` (what a
new download may mend). The defaults the builder copies from pocket-tts are pocket-tts's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import safetensors.numpy

from testkit.model_factory import TinyModel
from wyoming_pocket_tts.engine.graph_build import CheckpointCut, CheckpointError, build
from wyoming_pocket_tts.engine.graph_build import config as builder_config


def damaged(model: TinyModel, folder: Path, change: str) -> Path:
    """A copy of `model`'s checkpoint with one tensor dropped, reshaped, or the file cut (in its
    tensors, its header, or its header's length)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model.safetensors"
    data = model.weights_path.read_bytes()
    cuts = {"cut": len(data) * 2 // 3, "cut header": 12, "cut length": 5}
    if change in cuts:
        path.write_bytes(data[: cuts[change]])
        return path
    tensors = safetensors.numpy.load_file(str(model.weights_path))
    name = "flow_lm.transformer.layers.1.linear2.weight"
    if change == "drop":
        del tensors[name]
    else:
        tensors[name] = np.ascontiguousarray(tensors[name].T)
    safetensors.numpy.save_file(tensors, str(path))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("drop", "no tensor 'flow_lm.transformer.layers.1.linear2.weight'"),
        ("reshape", "tensor 'flow_lm.transformer.layers.1.linear2.weight' has shape [96, 112]"),
        ("cut", "cut short, tensor"),
        ("cut header", "cut short, within its header"),
        ("cut length", "cut short, 5 bytes"),
    ],
)
def test_a_bad_checkpoint_is_named_and_leaves_no_folder(
    endless_model: TinyModel, tmp_path: Path, change: str, message: str
) -> None:
    checkpoint = damaged(endless_model, tmp_path / "bad", change)
    target = tmp_path / "graphs" / "built"
    match = message.replace("[", r"\[").replace("]", r"\]")
    with pytest.raises(CheckpointError, match=match) as raised:
        build(checkpoint, endless_model.config_path, target)
    assert isinstance(raised.value, CheckpointCut) == change.startswith("cut")
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # nor the folder it was built in


def test_a_target_that_holds_files_is_left_as_it_was(
    endless_model: TinyModel, tmp_path: Path
) -> None:
    target = tmp_path / "graphs"
    target.mkdir()
    (target / "kept").write_text("mine")
    with pytest.raises(FileExistsError, match="holds files"):
        build(endless_model.weights_path, endless_model.config_path, target)
    assert [p.name for p in tmp_path.iterdir()] == ["graphs"]
    assert (target / "kept").read_text() == "mine"


def test_a_config_without_a_field_is_named(endless_model: TinyModel, tmp_path: Path) -> None:
    import yaml

    config = yaml.safe_load(endless_model.config_path.read_text(encoding="utf-8"))
    del config["mimi"]["quantizer"]
    with pytest.raises(ValueError, match="quantizer"):
        build(endless_model.weights_path, config, tmp_path / "graphs")
    assert not (tmp_path / "graphs").exists()


def test_the_constants_kept_from_pocket_tts_are_its_own() -> None:
    """What the builder copies so that it needs no pocket-tts (issue 62 step 2's test)."""
    from pocket_tts import default_parameters as defaults
    from pocket_tts.models.tts_model import TTSModel
    from pocket_tts.utils.config import Config

    fields = Config.model_fields
    assert fields["default_temperature"].default == builder_config.DEFAULT_TEMPERATURE
    assert fields["default_eos_threshold"].default == builder_config.DEFAULT_EOS_THRESHOLD
    assert builder_config.DEFAULT_EOS_THRESHOLD == defaults.DEFAULT_EOS_THRESHOLD
    assert builder_config.SAMPLER_DECODE_STEPS == defaults.DEFAULT_SAMPLER_DECODE_STEPS
    assert builder_config.NOISE_CLAMP == defaults.DEFAULT_NOISE_CLAMP
    assert builder_config.MAX_TOKEN_PER_CHUNK == defaults.MAX_TOKEN_PER_CHUNK
    assert builder_config.MIN_FRAMES_BEFORE_EOS == TTSModel._MIN_FRAMES_BEFORE_EOS
    assert builder_config.TOKENS_PER_SECOND == TTSModel._TOKENS_PER_SECOND_ESTIMATE
    assert builder_config.GEN_SECONDS_PADDING == TTSModel._GEN_SECONDS_PADDING
    for key, default in builder_config.TEXT_DEFAULTS.items():
        assert fields[key].default == default, key
