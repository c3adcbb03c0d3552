"""Wyoming protocol server for Kyutai's Pocket-TTS."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wyoming-pocket-tts")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
