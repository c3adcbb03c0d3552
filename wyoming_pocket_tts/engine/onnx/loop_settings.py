"""What pocket-tts's generation loop takes from the model besides its graphs (`speech.json`,
written by `onnx.export`): the config's generation settings, its text preparation, and
`TTSModel`'s constants, read without torch for `onnx.loop`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .text_prompt import TextSettings


@dataclass(frozen=True)
class LoopSettings:
    """The generation settings of one exported model."""

    sample_rate: int
    frame_rate: float
    mimi_steps_per_latent: int
    """Mimi decoder steps per generated frame."""
    temperature: float
    noise_clamp: float | None
    eos_threshold: float
    frames_after_eos: int | None
    """The model's recommended frames after end of speech (None: pocket-tts guesses)."""
    min_frames_before_eos: int
    tokens_per_second: float
    padding_seconds: float
    """The longest generation: `ceil((tokens / tokens_per_second + padding) * frame_rate)`."""
    max_tokens: int
    """Longest chunk of text generated at once."""
    text: TextSettings
    tokenizer: str
    """The tokenizer's file name, beside the graphs."""
    emb_std: list[float]
    emb_mean: list[float]
    """The latents' scale and shift before Mimi decodes them."""
    voice_cloning: bool
    """The exported weights can clone voices (`voices.cloning`)."""

    @classmethod
    def read(cls, path: Path) -> LoopSettings:
        """The settings `onnx.export` wrote (OSError, KeyError or ValueError if not)."""
        raw = json.loads(path.read_text(encoding="utf-8"))
        text = TextSettings(
            bool(raw["pad_with_spaces_for_short_inputs"]),
            bool(raw["remove_semicolons"]),
            bool(raw["append_terminal_punctuation"]),
            bool(raw["capitalize_first_letter"]),
            dict(raw["replace_characters"] or {}),
        )
        after = raw["frames_after_eos"]
        clamp = raw["noise_clamp"]
        return cls(
            int(raw["sample_rate"]),
            float(raw["frame_rate"]),
            int(raw["mimi_steps_per_latent"]),
            float(raw["temperature"]),
            None if clamp is None else float(clamp),
            float(raw["eos_threshold"]),
            None if after is None else int(after),
            int(raw["min_frames_before_eos"]),
            float(raw["tokens_per_second"]),
            float(raw["padding_seconds"]),
            int(raw["max_tokens"]),
            text,
            str(raw["tokenizer"]),
            [float(x) for x in raw["emb_std"]],
            [float(x) for x in raw["emb_mean"]],
            bool(raw["voice_cloning"]),
        )
