"""The graphs' folder built from a checkpoint: what `onnx.export.export` writes, without torch.

`build` writes the frame's graph, the text table, the tokenizer's file and the loop's settings,
Mimi's decoder step and the flow LM's step, Mimi's encoder step for voice prompts
(`onnx.graphs.VOICE`, where the weights clone voices: not in the export), the int8 LM and Mimi
where asked (`int8.py`), then `graphs.json`, into a folder beside the target, renamed to it at
the end: a build that fails leaves no folder behind. `add_int8` adds the int8 ones later.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..onnx.graphs import FRAME, LM, LM_INT8, MIMI, MIMI_INT8, SPEECH, TEXT_EMBEDDINGS, Graphs
from .checkpoint import Checkpoint
from .config import SAMPLER_DECODE_STEPS, ModelConfig, read_config, speech_settings
from .encoder import build_encoder
from .frame import build_frame, text_table
from .lm import build_lm, lm_names
from .mimi import attention_names, build_mimi, conv_states

_LOGGER = logging.getLogger(__name__)

TOKENIZER_FILES = {"tokenizers": "tokenizer.json", "sentencepiece": "tokenizer.model"}
"""The tokenizer's file name in the folder, by kind (as `onnx.export` names it)."""


def build(
    checkpoint: Path,
    config: Path | Mapping[str, Any],
    folder: Path,
    *,
    tokenizer: Path | None = None,
    voice_cloning: bool = True,
    decode_steps: int = SAMPLER_DECODE_STEPS,
    int8: bool = False,
) -> Graphs:
    """Build the graphs of the model of `config` (its YAML, or parsed) with the weights of
    `checkpoint` (pocket-tts's safetensors, `TTSModel.state_dict()`'s layout) into `folder`,
    which must not exist or be empty. `tokenizer` is the tokenizer's file (default: the config's
    `tokenizer_path`, if it is a local file); `voice_cloning` says whether the weights clone
    voices (pocket-tts knows it from which file it downloaded). A checkpoint that lacks a tensor
    or holds one of another shape raises `CheckpointError` naming it. `int8`: the int8 LM and
    Mimi too (`int8.py`)."""
    started = time.monotonic()
    settings = read_config(config)
    source = Path(tokenizer or settings.tokenizer_path)
    if not source.is_file():
        raise FileNotFoundError(f"the tokenizer {source} is no local file: pass `tokenizer`")
    folder = Path(folder)
    if folder.is_dir() and any(folder.iterdir()):
        raise FileExistsError(f"{folder} holds files already: graphs are built into a new folder")
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{folder.name}.building-", dir=folder.parent))
    try:
        with Checkpoint(checkpoint) as ck:
            _write(ck, settings, building, source, voice_cloning, decode_steps)
            if int8:
                _write_int8(ck, settings, building, decode_steps)
        graphs = Graphs(
            building, lm_names(settings), conv_states(settings), attention_names(settings)
        )
        graphs.write()
        building.chmod(0o755)  # as a folder made by mkdir (mkdtemp's is private)
        os.replace(building, folder)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    _LOGGER.info("Built the graphs in %s in %.1f s", folder, time.monotonic() - started)
    return Graphs.read(folder)


def add_int8(
    checkpoint: Path,
    config: Path | Mapping[str, Any],
    folder: Path,
    decode_steps: int = SAMPLER_DECODE_STEPS,
) -> Graphs:
    """Build the int8 LM and Mimi beside the graphs `build` wrote to `folder` (without them):
    into a folder beside it, then each file moved in, its weights first, so that no graph is
    found without them."""
    graphs = Graphs.read(folder)
    building = Path(tempfile.mkdtemp(prefix=f".{folder.name}.int8-", dir=folder.parent))
    try:
        with Checkpoint(checkpoint) as ck:
            _write_int8(ck, read_config(config), building, decode_steps)
        for name in sorted(path.name for path in building.iterdir() if path.suffix == ".data"):
            os.replace(building / name, folder / name)
        for path in graphs.files(True):
            os.replace(building / path.name, path)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return graphs


def _write_int8(ck: Checkpoint, config: ModelConfig, folder: Path, decode_steps: int) -> None:
    build_mimi(ck, config, folder / MIMI_INT8, int8=True)
    build_lm(ck, config, folder / LM_INT8, decode_steps, int8=True)


def _write(
    ck: Checkpoint,
    config: ModelConfig,
    folder: Path,
    tokenizer: Path,
    voice_cloning: bool,
    decode_steps: int,
) -> None:
    build_frame(ck, config, folder / FRAME)
    np.save(folder / TEXT_EMBEDDINGS, text_table(ck, config))
    name = TOKENIZER_FILES[config.tokenizer_kind]
    shutil.copyfile(tokenizer, folder / name)
    speech = speech_settings(config, voice_cloning, name)
    for key in ("emb_std", "emb_mean"):
        speech[key] = ck.tensor(f"flow_lm.{key}", (config.ldim,)).tolist()
    (folder / SPEECH).write_text(json.dumps(speech), encoding="utf-8")
    build_mimi(ck, config, folder / MIMI)
    build_lm(ck, config, folder / LM, decode_steps)
    if voice_cloning:
        build_encoder(ck, config, folder)
