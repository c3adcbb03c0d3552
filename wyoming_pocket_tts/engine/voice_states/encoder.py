"""A voice's state made from its source: a built-in name, an audio prompt (file or URL) or a
saved `.safetensors` state.

On torch the engine thread encodes in process (`encode`). A server on the graphs alone
(`onnx.lean.LeanModel`) has no torch to encode with: a saved state is read there, anything else
is encoded by a child process (`python -m wyoming_pocket_tts.engine.voice_states.encoder`, run
by `in_child`, at nice 19, `engine.child_process`) that loads the model in torch fp32, encodes
and writes the state in pocket-tts's layout; the server reads it and the child's memory goes
with it. A child that fails is the voice's error (its reason), and the server serves on.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...host import encoding_threads, first_to_go, lowest_priority
from ...settings import ModelSettings
from ...voices.catalog import VoiceKind, is_audio_prompt, voice_kind
from ...voices.cloning import REASON as NO_CLONING
from ...voices.cloning import VoiceCloningUnavailable, can_clone
from ..child_process import Child, ChildFailed, add_model_args, end_with_parent, fail, model_args
from .prompt_audio import read_prompt

if TYPE_CHECKING:
    from pocket_tts import TTSModel

    from ..onnx.lean import LeanModel

_LOGGER = logging.getLogger(__name__)

TIMEOUT = 10 * 60.0
"""Seconds a child may take to load the model and encode (a 30 s prompt on a slow board)."""


class VoiceEncodingFailed(RuntimeError):
    """The child that encodes a voice failed; the message says why."""


def encode(model: TTSModel, source: str | Path, truncate: bool, name: str) -> dict[str, Any]:
    """The state of a voice, made by `model` in this process (torch): an audio file is read
    by `read_prompt`, a built-in name resolved for `model` (`builtin_source`)."""
    with encoding_threads():
        if isinstance(source, Path) and is_audio_prompt(str(source)):
            prompt = read_prompt(source, model.sample_rate, name)
            return model.get_state_for_audio_prompt(prompt)
        if isinstance(source, str) and voice_kind(source) is VoiceKind.BUILTIN:
            source = builtin_source(model, source)
        return model.get_state_for_audio_prompt(source, truncate=truncate)


def builtin_source(model: TTSModel, name: str) -> str:
    """A built-in name for a packaged language model; its original audio for any other model."""
    from pocket_tts.utils.config import CONFIGS_DIR
    from pocket_tts.utils.utils import _ORIGINS_OF_PREDEFINED_VOICES

    if name not in _ORIGINS_OF_PREDEFINED_VOICES:
        known = ", ".join(sorted(_ORIGINS_OF_PREDEFINED_VOICES))
        raise ValueError(f"{name!r} is not a pocket-tts built-in voice (built-in: {known})")
    origin = model.origin
    if origin is not None and origin.is_relative_to(CONFIGS_DIR):
        return name
    return _ORIGINS_OF_PREDEFINED_VOICES[name]


def in_child(model: LeanModel, source: str | Path, truncate: bool, name: str) -> dict[str, Any]:
    """The state of a voice for a model on the graphs alone: a saved state read here, anything
    else encoded by a child process (`main`). `VoiceCloningUnavailable` if the child's weights
    cannot clone, `VoiceEncodingFailed` with its reason for any other failure."""
    if isinstance(source, Path) and not is_audio_prompt(str(source)):
        return model.get_state_for_audio_prompt(source)
    with tempfile.TemporaryDirectory(prefix="pocket-tts-voice-") as folder:
        out = Path(folder) / "state.safetensors"
        arguments = [*model_args(model.model_settings), "--source", str(source)]
        arguments += ["--out", str(out), "--name", name, *(["--truncate"] if truncate else [])]
        try:
            Child(__name__, f"the encoding of voice {name}").run(arguments, TIMEOUT)
        except ChildFailed as error:
            if str(error) == NO_CLONING:
                raise VoiceCloningUnavailable() from None
            raise VoiceEncodingFailed(str(error)) from None
        return model.get_state_for_audio_prompt(out)


def main(argv: list[str] | None = None) -> int:
    """The child: nice 19 and the first to go when memory runs out, the model in torch fp32,
    the voice's state written to `--out`."""
    lowest_priority()
    first_to_go()
    parser = argparse.ArgumentParser(description="Encode a voice's state into OUT.")
    add_model_args(parser)
    parser.add_argument("--source", required=True, help="built-in name, URL or audio file")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--name", default="voice")
    parser.add_argument("--truncate", action="store_true")
    args = parser.parse_args(argv)
    end_with_parent()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        from ..model.loading import plain_model
        from ..model.one_copy import one_copy_of_weights
        from ..onnx.voice_arrays import write_state

        with one_copy_of_weights():
            model = plain_model(ModelSettings(model=args.model, config=args.config), False)
        source: str | Path = args.source
        if voice_kind(args.source) is VoiceKind.FILE:
            source = Path(args.source)
        if is_audio_prompt(args.source) and not can_clone(model):
            raise VoiceCloningUnavailable()
        write_state(encode(model, source, args.truncate, args.name), args.out)
    except (ValueError, OSError, VoiceCloningUnavailable) as error:  # a message for the user
        return fail(error, for_users=True)
    except Exception as error:
        return fail(error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
