"""Side-by-side benchmark of wyoming-pocket-tts against the pocket-tts library it wraps."""
