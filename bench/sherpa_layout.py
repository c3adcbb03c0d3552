"""A pocket-tts model as sherpa-onnx's PocketTTS files, made by sherpa-onnx's own recipe.

sherpa-onnx (k2-fsa/sherpa-onnx) makes its PocketTTS files in a workflow of its CI
(`.github/workflows/export-pocket-tts.yaml`): it runs the scripts of pocket-tts-onnx-export
(KevinAHM/pocket-tts-onnx-export; the workflow clones csukuangfj's fork of it):
`scripts/export_mimi_and_conditioner.py`, `scripts/export_flow_lm.py` and `scripts/quantize.py`,
renames their files and writes the tokenizer as `vocab.json` and `token_scores.json`
(`scripts/pocket-tts/convert_tokenizer.py`). The bench runs those three scripts, unmodified, from
a checkout the user passes (`script/bench --peers --sherpa-recipe DIR`: the bench fetches
nothing), on the bench's random weights, and keeps the files of sherpa-onnx's int8 release
(`sherpa-onnx-pocket-tts-int8-2026-01-26`, the one its Python example loads): `SHERPA_FILES`.
The two JSON files are written here, as `convert_tokenizer.py` writes them (piece to id, piece to
score).

How the recipe gets the bench's weights, offline:

- it builds its own copy of pocket-tts (variant b6369a24, the shapes of `english_2026-01`) from
  `hf://` paths: the weights and the tokenizer are laid at those paths in a Hugging Face cache
  (`HF_HOME`, read with `HF_HUB_OFFLINE=1`);
- the `english` model has two parts that b6369a24's layout lacks, converted as for ptts
  (`bench.ptts_layout.ptts_weights`): `bos_before_voice` is dropped (sherpa-onnx's voice
  conditioning is one row shorter), Mimi's 32-wide voice latent is zero-padded to 512;
- tensors equal to an earlier one (the random model's norms: all ones or all zeros) get
  k * 2^-20 added, the k-th twin: torch 2.13's TorchScript exporter merges equal initializers
  and, in the flow net's time embedders, leaves a node reading one it dropped (an invalid
  `flow_lm_flow.onnx`). Trained weights have no such twins;
- sherpa-onnx's workflow also lowers the scripts' opset from 17 to 14 (with `sed`, for the
  onnxruntime 1.17 it pins); not here: the checkout is not modified, and the ONNX Runtime that
  sherpa-onnx bundles loads opset 17.

`frames.json` holds, for each text given, the frames pocket-tts makes of it
(`testkit.model_factory.expected_frames`): random weights never end speech, so the sherpa side
is told to run to the same length.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import safetensors.torch
import sentencepiece
import torch
import yaml
from pocket_tts import TTSModel

from testkit.model_factory import expected_frames, place_in_hub

from .peer_worker import SHERPA_FILES
from .ptts_layout import ptts_config, ptts_weights, unsupported_parts

SHERPA_VERSION = "2.0.1"
RECIPE_REQUIREMENTS = ["beartype==0.23.1"]
"""What the recipe imports and the venv lacks (its requirements.txt), installed beside
sherpa-onnx; torch, onnx, onnxruntime and the rest come from the venv."""
RECIPE_CONFIG = Path("pocket_tts/config/b6369a24.yaml")
"""The model the recipe exports, in its own copy of pocket-tts."""
RECIPE_SCRIPTS = Path("scripts")
RECIPE_OUTPUT = {
    "lm_main": "flow_lm_main_int8.onnx",
    "lm_flow": "flow_lm_flow_int8.onnx",
    "decoder": "mimi_decoder_int8.onnx",
    "encoder": "mimi_encoder.onnx",
    "text_conditioner": "text_conditioner.onnx",
}
"""The recipe's file for each of sherpa-onnx's model fields (its int8 release's choice)."""
TWIN_STEP = 2.0**-20


def recipe_refusal(config: dict[str, Any], recipe: Path | None) -> str | None:
    """Why the recipe cannot export the model of `config` (no recipe given, not a checkout of
    it, or other shapes than its b6369a24), or None when it can."""
    if recipe is None:
        return "no --sherpa-recipe DIR given (a checkout of pocket-tts-onnx-export)"
    if not (recipe / RECIPE_SCRIPTS / "export_flow_lm.py").is_file():
        return f"{recipe} is no checkout of pocket-tts-onnx-export: no scripts/export_flow_lm.py"
    parts = unsupported_parts(config)
    if parts:
        return f"the recipe's b6369a24 layout has no place for: {', '.join(parts)}"
    theirs = ptts_config(yaml.safe_load((recipe / RECIPE_CONFIG).read_text(encoding="utf-8")), 0)
    ours = ptts_config(config, 0)
    differing = [
        f"{part}.{key} {value} (the recipe's: {theirs[part][key]})"
        for part in ("flow_lm", "mimi")
        for key, value in ours[part].items()
        if value != theirs[part][key]
    ]
    if differing:
        return f"the recipe exports only its b6369a24 shapes: {', '.join(differing)}"
    return None


def untwinned(weights: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """`weights` with each tensor equal to an earlier one moved off it by k * TWIN_STEP."""
    seen: defaultdict[tuple[tuple[int, ...], bytes], int] = defaultdict(int)
    out = {}
    for name, tensor in weights.items():
        key = (tuple(tensor.shape), tensor.float().numpy().tobytes())
        twin = seen[key]
        seen[key] += 1
        out[name] = tensor + twin * TWIN_STEP if twin else tensor
    return out


def _write_tokenizer(model: Path, out: Path) -> None:
    """`vocab.json` and `token_scores.json`, sherpa-onnx's tokenizer files (piece to id and
    piece to score) for a sentencepiece model."""
    processor = sentencepiece.SentencePieceProcessor(model_file=str(model))
    pieces = [processor.id_to_piece(index) for index in range(processor.get_piece_size())]
    for name, values in (
        ("vocab.json", {piece: index for index, piece in enumerate(pieces)}),
        ("token_scores.json", {piece: processor.get_score(i) for i, piece in enumerate(pieces)}),
    ):
        (out / name).write_text(json.dumps(values, ensure_ascii=False), encoding="utf-8")


def _run_recipe(recipe: Path, deps: Path, hub_home: Path, raw: Path, weights: Path) -> None:
    """The recipe's three scripts, one child each, their output in `raw/recipe.log`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(recipe), str(deps)]),
           "HF_HOME": str(hub_home), "HF_HUB_OFFLINE": "1"}  # fmt: skip
    export = ["--output_dir", str(raw), "--weights_path", str(weights)]
    steps = [
        ("export_mimi_and_conditioner.py", export),
        ("export_flow_lm.py", export),
        ("quantize.py", ["--input_dir", str(raw), "--output_dir", str(raw)]),
    ]
    with (raw / "recipe.log").open("w") as log:
        for script, args in steps:
            command = [sys.executable, str(recipe / RECIPE_SCRIPTS / script), *args]
            done = subprocess.run(command, cwd=raw, env=env, stdout=log, stderr=log, timeout=1800)
            if done.returncode != 0:
                raise RuntimeError(f"the recipe's {script} failed: see {raw / 'recipe.log'}")


def export(config_path: Path, recipe: Path, deps: Path, out: Path, texts: list[str]) -> Path:
    """sherpa-onnx's PocketTTS folder in `out` for the model of `config_path` (as
    `testkit.model_factory` writes it), exported by the recipe checked out in `recipe`, with
    its missing requirements in `deps`; `frames.json` for `texts`."""
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    refusal = recipe_refusal(config, recipe)
    if refusal:
        raise ValueError(refusal)
    theirs = yaml.safe_load((recipe / RECIPE_CONFIG).read_text(encoding="utf-8"))
    raw, hub_home = out / "recipe", out / "hf"
    raw.mkdir(parents=True, exist_ok=True)
    state = safetensors.torch.load_file(config["weights_path"])
    weights = untwinned(ptts_weights(state, config["mimi"]["seanet"]["dimension"]))
    converted = raw / "weights.safetensors"
    safetensors.torch.save_file(weights, str(converted))
    del state, weights
    tokenizer = Path(config["flow_lm"]["lookup_table"]["tokenizer_path"])
    place_in_hub(hub_home / "hub", theirs["weights_path"], converted)
    place_in_hub(hub_home / "hub", theirs["flow_lm"]["lookup_table"]["tokenizer_path"], tokenizer)
    _run_recipe(recipe, deps, hub_home, raw, converted)
    for field, name in RECIPE_OUTPUT.items():
        (raw / name).rename(out / SHERPA_FILES[field])
    (raw / "recipe.log").rename(out / "recipe.log")
    shutil.rmtree(hub_home)
    shutil.rmtree(raw)
    _write_tokenizer(tokenizer, out)
    model = TTSModel.load_model(config=str(config_path))
    frames = {text: expected_frames(model, text) for text in texts}
    (out / "frames.json").write_text(json.dumps(frames, indent=2) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":  # python -m bench.sherpa_layout CONFIG RECIPE DEPS OUT TEXT [TEXT ...]
    config_arg, recipe_arg, deps_arg, out_arg, *text_args = sys.argv[1:]
    export(Path(config_arg), Path(recipe_arg), Path(deps_arg), Path(out_arg), text_args)
