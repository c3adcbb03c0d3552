"""Audio on its way out, and recordings on their way in: `loudness.py` (per-voice gain, peak
limiter), `pcm.py` (16-bit PCM), `shaping.py` and `silence.py` (a reply's lead-in, pauses and
tail), `rate.py` (the speaking rate), `encode.py` (the HTTP side's streaming encoders),
`sample_check.py` (whether a recording makes a good voice prompt), `prompt_reading.py`
and `resample.py` (a voice prompt read and resampled as pocket-tts does, without torch)."""
