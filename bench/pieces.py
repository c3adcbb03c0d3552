"""`script/bench --pieces`: one piece per sentence against pocket-tts's groups, cost and saving.

The engine can only switch to another request between pieces. A one-shot text of four sentences
(one group of pocket-tts's) is cut two ways, in one run, rounds alternating the order (A B, B A):
- **groups**: pocket-tts's own cut, sentences grouped up to 50 tokens (the engine before issue 38);
- **sentences**: one piece per sentence (`engine.chunking.chunks`, the engine now).

Both sides generate the same audio: `FRAMES_PER_SENTENCE` frames for each sentence a piece holds
(random weights never end speech, so each piece ends at its share), each piece through
pocket-tts's `generate_audio_stream` with a copy of a cloned voice's state, as the engine does.
- **cost**: the whole text's generation time per side; the difference over the extra pieces is
  the price of one piece (the prompt pass, the voice state's copy, pocket-tts's two threads);
- **saving**: what a newcomer waits at worst for the piece under way, the longest piece's time.
Prosody between sentences cannot be judged with random weights: each piece starts from the voice
state alone, as every group of pocket-tts's already does and every streamed sentence did before.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from testkit.model_factory import build_tiny_model, write_voice_wav
from wyoming_pocket_tts.engine.chunking import MAX_PIECE_TOKENS, chunks
from wyoming_pocket_tts.engine.model.runtime import TorchRuntime
from wyoming_pocket_tts.engine.tuning.timing import SAMPLES_PER_FRAME, interleaved
from wyoming_pocket_tts.text.sentences import SentenceSplitter

if TYPE_CHECKING:
    from pocket_tts import TTSModel

SENTENCE = "The kitchen light is on now."
"""12 tokens for the test models' tokenizer, so pocket-tts groups four per piece, as it groups
ten-word sentences with its real English tokenizer."""
SENTENCES = 4
TEXT = " ".join([SENTENCE] * SENTENCES)
FRAMES_PER_SENTENCE = 50
"""4 s of speech: what a ten-word sentence takes to say."""


def groups(model: TTSModel, text: str) -> list[str]:
    """`text` as pocket-tts's `generate_audio_stream` groups it."""
    from pocket_tts.models.text_chunking import split_into_best_sentences

    return split_into_best_sentences(
        model.flow_lm.conditioner.tokenizer,
        text,
        MAX_PIECE_TOKENS,
        model.pad_with_spaces_for_short_inputs,
        remove_semicolons=model.remove_semicolons,
    )


def sentences(text: str) -> list[str]:
    splitter = SentenceSplitter(clean=False)
    return splitter.add(text) + splitter.finish()


def sentences_in(text: str) -> int:
    return len(sentences(text))


def speak(model: TTSModel, state: dict[str, Any], pieces: list[str]) -> list[float]:
    """Each piece's generation time, `FRAMES_PER_SENTENCE` frames per sentence in it.

    The piece ends at its frame budget the way a piece without end-of-speech ends, at
    pocket-tts's maximum length (set to the budget for the run): no `stop`, which would leave
    the frames its LM thread already queued to be decoded (once per piece)."""
    times = []
    for piece in pieces:
        budget = sentences_in(piece) * FRAMES_PER_SENTENCE
        model._estimate_max_gen_len = lambda _tokens, budget=budget: budget
        started = time.perf_counter()
        for _ in model.generate_audio_stream(state, piece):
            pass
        times.append(time.perf_counter() - started)
    del model._estimate_max_gen_len
    return times


def measure(size: str, rounds: int, root: Path) -> dict[str, Any]:
    """Both cuts of `TEXT`, `rounds` rounds alternating; raw piece times per side."""
    files = build_tiny_model(root / "model", size=size, eos=False, link=True)
    model = files.load()
    state = model.get_state_for_audio_prompt(write_voice_wav(root / "voice.wav", 10.0, seed=1))
    sides = {
        "groups": groups(model, TEXT),
        "sentences": [p for s in sentences(TEXT) for p in chunks(TorchRuntime(model, False), s)],
    }
    times: dict[str, list[list[float]]] = {side: [] for side in sides}
    speak(model, state, [SENTENCE])  # first-call costs, paid by neither side
    for order in interleaved(list(sides), rounds):
        for side in order:
            times[side].append(speak(model, state, sides[side]))
    return {"size": size, "pieces": {side: len(p) for side, p in sides.items()}, "times": times}


def render(results: dict[str, Any]) -> str:
    """A Markdown table: whole text, per extra piece, and a newcomer's worst wait, per side."""
    pieces, times = results["pieces"], results["times"]
    whole = {side: statistics.median(sum(run) for run in runs) for side, runs in times.items()}
    longest = {side: statistics.median(max(run) for run in runs) for side, runs in times.items()}
    extra = pieces["sentences"] - pieces["groups"]
    per_piece = (whole["sentences"] - whole["groups"]) / extra if extra else float("nan")
    audio = SENTENCES * FRAMES_PER_SENTENCE * SAMPLES_PER_FRAME / 24000
    lines = [
        f"{SENTENCES} sentences, {audio:.0f} s of audio, model shapes `{results['size']}`, "
        f"{len(times['groups'])} rounds (medians):",
        "",
        "| cut | pieces | whole text | a newcomer's worst wait (longest piece) |",
        "|---|---|---|---|",
    ]
    for side in ("groups", "sentences"):
        lines.append(f"| {side} | {pieces[side]} | {whole[side]:.2f} s | {longest[side]:.2f} s |")
    lines += [
        "",
        f"Cost: {whole['sentences'] / whole['groups']:.3f}x the whole text's time, "
        f"{per_piece * 1000:.0f} ms per extra piece. "
        f"Saving: the worst wait is {longest['sentences'] / longest['groups']:.2f}x.",
    ]
    return "\n".join(lines)
