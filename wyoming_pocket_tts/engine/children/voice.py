"""A voice's state made in a child process, for a runtime that cannot make it in the server's
(`Runtime.voices_in_child`: the graphs alone have no torch to encode with).

`in_child` runs `python -m wyoming_pocket_tts.engine.children.voice` at nice 19
(`process`): the child loads the model in torch fp32 (`model.runtime.TorchRuntime`), makes
the state of a built-in name or an audio prompt and writes it in pocket-tts's layout
(`voice_states.state_file`); the server reads it and the child's memory goes with it. A child
that fails is the voice's error (its reason), and the server serves on.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

from ...settings import ModelSettings
from ...voices.catalog import VoiceKind, voice_kind
from ...voices.cloning import VoiceCloningUnavailable
from ..voice_states.state_file import State, read_state, write_state
from .process import (
    QUEUE,
    Child,
    ChildFailed,
    Ending,
    add_model_args,
    child_main,
    fail,
    model_args,
)

_LOGGER = logging.getLogger(__name__)

CPU_TIME = 10 * 60.0
"""Seconds of CPU a child may use to load the model and encode (a 30 s prompt on a slow
board) before it is killed."""


class VoiceEncodingFailed(RuntimeError):
    """The child that encodes a voice failed; the message says why."""


def in_child(settings: ModelSettings, source: str | Path, truncate: bool, name: str) -> State:
    """The state of a voice of the model of `settings`, made by a child process (`main`), once
    the heavy child before it has ended (`process.QUEUE`).
    `VoiceCloningUnavailable` if the child's weights cannot clone, `VoiceEncodingFailed` with
    its reason for any other failure."""
    with tempfile.TemporaryDirectory(prefix="pocket-tts-voice-") as folder:
        out = Path(folder) / "state.safetensors"
        arguments = [*model_args(settings), "--source", str(source)]
        arguments += ["--out", str(out), "--name", name, *(["--truncate"] if truncate else [])]
        try:
            with QUEUE:  # one heavy child at a time, whichever thread asks
                Child(__name__, f"the encoding of voice {name}").run(arguments, CPU_TIME)
        except ChildFailed as error:
            if error.ending is Ending.NO_CLONING:
                raise VoiceCloningUnavailable() from None
            raise VoiceEncodingFailed(str(error)) from None
        return read_state(out)


def main(argv: list[str] | None = None) -> int:
    """The child: nice 19 and the first to go when memory runs out, the model in torch fp32,
    the voice's state written to `--out`."""
    parser = argparse.ArgumentParser(description="Encode a voice's state into OUT.")
    add_model_args(parser)
    parser.add_argument("--source", required=True, help="built-in name, URL or audio file")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--name", default="voice")
    parser.add_argument("--truncate", action="store_true")
    args = child_main(parser, argv)
    try:
        from ..model.loading import plain_model
        from ..model.one_copy import one_copy_of_weights
        from ..model.runtime import TorchRuntime

        with one_copy_of_weights():
            model = plain_model(ModelSettings(model=args.model, config=args.config), False)
        source: str | Path = args.source
        if voice_kind(args.source) is VoiceKind.FILE:
            source = Path(args.source)
        state = TorchRuntime(model, False).voice_state(source, args.truncate, args.name)
        write_state(state, args.out)
    except VoiceCloningUnavailable as error:
        return fail(error, for_users=True, ending=Ending.NO_CLONING)
    except (ValueError, OSError) as error:  # a message for the user
        return fail(error, for_users=True)
    except Exception as error:
        return fail(error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
