"""Audio on its way out: loudness (per-voice gain, peak limiter) and PCM conversion."""
