"""The HTTP side: the OpenAI-compatible speech API and the voice studio, on the same engine."""
