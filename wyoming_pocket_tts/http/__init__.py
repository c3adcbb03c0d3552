"""The HTTP side: the same voices and engine behind an OpenAI-compatible speech API (aiohttp)."""
