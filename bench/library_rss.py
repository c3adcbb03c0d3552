"""Resident memory of pocket-tts alone, after the same work as the server's (the baseline).

Usage: python -m bench.library_rss CONFIG REQUESTS TEXT VOICE [VOICE ...]  (prints MiB)
Loads the model and a state per voice, then generates TEXT REQUESTS times, cycling the voices.
"""

import re
import sys
from pathlib import Path

from pocket_tts import TTSModel

if __name__ == "__main__":
    config, requests, text, *voices = sys.argv[1:]
    model = TTSModel.load_model(config=config)
    states = [model.get_state_for_audio_prompt(Path(voice)) for voice in voices]
    for index in range(int(requests)):
        for _ in model.generate_audio_stream(states[index % len(states)], text):
            pass
    status = Path("/proc/self/status").read_text()
    print(int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024)  # type: ignore[union-attr]
