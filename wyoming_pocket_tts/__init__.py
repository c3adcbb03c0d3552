"""Wyoming protocol server for Kyutai's Pocket-TTS.

Rooms: `engine/` (the thread that owns the models), `protocol/` (the Wyoming side), `http/`
(the OpenAI API and the voice studio), `text/` (text on its way to the model), `audio/` (audio
on its way out), `voices/` (the household's voices).
Start and settings: `__main__.py` (the entry point), `cli.py` and `cli_checks.py` (flags to
settings), `flags.py` (each value's converter), `settings.py` (the typed settings), `server.py`
(listening, start and stop order), `service.py` (what every connection shares), `intake.py`
(a request from its first text to its last audio), `info.py` (the `describe` answer),
`health.py` (the container's health check), `errors.py` (every error code).
The host and the network: `host.py` (cores, CPU, memory), `files.py` (files replaced whole),
`downloads.py` (Hugging Face downloads as log lines), `offline.py` (a first start without
network), `discovery.py` (zeroconf and the Supervisor's discovery), `languages.py` (the
languages and their codes), `pocket.py` (what pocket-tts ships, read without importing it).
The add-on: `addon.py` (its options to the server's flags), `addon_repair.py` (values the server
would refuse, replaced)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wyoming-pocket-tts")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
