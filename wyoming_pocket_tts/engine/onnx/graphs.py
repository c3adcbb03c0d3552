"""The files of one model's export (`onnx.export`): where each lies and which state each graph
input is. Reads only JSON: no torch, no pocket-tts, so the torch-free loop (`onnx.loop`) and the
cache (`onnx.cache`) can find the graphs without importing the exporter."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

NAMES = "graphs.json"
"""Beside the graphs: which state each of their inputs is (`Graphs`, without the paths)."""
SPEECH = "speech.json"
"""Beside the graphs: what pocket-tts's loop needs besides them (`onnx.loop_settings`)."""
TEXT_EMBEDDINGS = "text_embeddings.npy"
"""The text conditioner's table, one row per token id (its low-rank projection applied)."""
FRAME = "frame.onnx"
"""A frame's latent (NaN: the start) to the flow LM's input embedding."""
LM = "lm.onnx"
"""The flow LM's step in fp32 (its weights in `lm.onnx.data` beside it, or in it: before 0.7)."""
MIMI = "mimi.onnx"
"""Mimi's decoder step in fp32 (its weights beside it, as `LM`'s)."""
LM_INT8 = "lm.int8.onnx"
"""The flow LM's step in int8 (built: its weights beside it; quantised from an export: in it)."""
MIMI_INT8 = "mimi.int8.onnx"
"""Mimi's decoder step in int8 (as `LM_INT8`)."""
VOICE = "voice.onnx"
"""Mimi's encoder step, for cloning (`graph_build.encoder`; none where the weights cannot)."""
VOICE_BOS = "voice_bos.npy"
"""`bos_before_voice` (1, 1, dim), first in every voice prompt (where the config inserts it)."""
REFUSED = "int8-refused.txt"
"""Beside the graphs, in place of the int8 files: why `onnx.int8_gate` refused them here."""


def refused(folder: Path) -> str | None:
    """Why the int8 graphs in `folder` were refused on this host (`REFUSED`), or None."""
    try:
        return (folder / REFUSED).read_text(encoding="utf-8").strip()
    except OSError:
        return None


@dataclass(frozen=True)
class Graphs:
    """The exported files of one model, and which state each input is."""

    folder: Path
    lm_names: list[str]
    """Flow LM attention modules, in input order (K and V each)."""
    conv_names: list[tuple[str, str]]
    """Mimi's convolution state tensors, in input order."""
    mimi_attention: list[str]
    """Mimi's attention modules, in input order (K and V each)."""

    def lm(self, int8: bool) -> Path:
        return self.folder / (LM_INT8 if int8 else LM)

    def mimi(self, int8: bool) -> Path:
        return self.folder / (MIMI_INT8 if int8 else MIMI)

    def files(self, int8: bool) -> tuple[Path, Path]:
        """The flow LM's graph and Mimi's, of one precision."""
        return self.lm(int8), self.mimi(int8)

    @property
    def has_int8(self) -> bool:
        return all(path.is_file() for path in self.files(True))

    @property
    def frame(self) -> Path:
        return self.folder / FRAME

    @property
    def text_embeddings(self) -> Path:
        return self.folder / TEXT_EMBEDDINGS

    @property
    def speech(self) -> Path:
        return self.folder / SPEECH

    @classmethod
    def read(cls, folder: Path) -> Graphs:
        """The graphs `export` wrote to `folder` (KeyError, OSError or ValueError if not)."""
        names = json.loads((folder / NAMES).read_text(encoding="utf-8"))
        return cls(
            folder,
            [str(name) for name in names["lm_names"]],
            [(str(name), str(key)) for name, key in names["conv_names"]],
            [str(name) for name in names["mimi_attention"]],
        )

    def write(self) -> None:
        """Write which state each input is (`read` reads it back); the export's last file."""
        names = {
            "lm_names": self.lm_names,
            "conv_names": self.conv_names,
            "mimi_attention": self.mimi_attention,
        }
        (self.folder / NAMES).write_text(json.dumps(names), encoding="utf-8")
