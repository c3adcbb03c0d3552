"""The engine thread that owns the Pocket-TTS model, and the jobs it serves."""
