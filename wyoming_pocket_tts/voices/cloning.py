"""Whether the loaded model can clone voices, why not, and what the user can do about it.

Voice cloning needs Kyutai's gated `kyutai/pocket-tts` weights. When they cannot be downloaded
(no Hugging Face token, terms not accepted, offline), pocket-tts silently loads the weights
without voice cloning and sets `TTSModel.has_voice_cloning = False`. Such a model must not encode
audio prompts: the server hands pocket-tts decoded tensors, which skip its own check, and the
result would be a voice the model was never meant to make.
"""

from __future__ import annotations

import logging

from .catalog import LoadFailures

_LOGGER = logging.getLogger(__name__)

MODEL_PAGE = "https://huggingface.co/kyutai/pocket-tts"
REASON = "voice cloning is not available with the weights that were loaded"
REMEDY = (
    f"To clone voices: accept the terms on {MODEL_PAGE} with your Hugging Face account, "
    "set HF_TOKEN to a read token of that account (add-on: the hf_token option), and restart"
)


class VoiceCloningUnavailable(RuntimeError):
    """An audio prompt was to be encoded by a model without the voice-cloning weights."""

    def __init__(self) -> None:
        super().__init__(REASON)


def why_not() -> str:
    """The likely reason the gated weights were not loaded, from the Hugging Face settings."""
    from huggingface_hub import constants, get_token

    causes = []
    if not get_token():
        causes.append("no Hugging Face token is set")
    if constants.HF_HUB_OFFLINE:
        causes.append("HF_HUB_OFFLINE is set and they are not in the Hugging Face cache")
    if not causes:
        causes.append("the token could not download them (terms not accepted, or hub unreachable)")
    return "; ".join(causes)


def report_voice_cloning(can_clone: bool, failures: LoadFailures, language: str) -> None:
    """Log once a model is loaded whether it can clone voices (`Runtime.can_clone`); if not,
    mark the audio voices of its language unavailable."""
    if can_clone:
        _LOGGER.info("Voice cloning (%s): available", language)
        return
    _LOGGER.info(
        "Voice cloning (%s): NOT available, the gated weights of %s were not loaded (%s). Voices "
        "cloned from audio are not offered; built-in voices and .safetensors states work. %s.",
        language,
        MODEL_PAGE,
        why_not(),
        REMEDY,
    )
    failures.refuse_cloning(language, REASON, REMEDY)
