"""What every connection shares: the engine, the voices and the protocol settings."""

from __future__ import annotations

from dataclasses import dataclass, field

from wyoming.info import Info

from .engine.serving.engine import Engine
from .info import build_info
from .settings import ServerSettings
from .text.pronunciations import Pronunciations
from .voices.catalog import VoiceCatalog


@dataclass
class Service:
    """Shared state handed to each connection's handler."""

    engine: Engine
    catalog: VoiceCatalog
    settings: ServerSettings
    pronunciations: Pronunciations = field(default_factory=Pronunciations)
    """The household's "written -> said" entries, applied to every request's text."""

    def info(self) -> Info:
        """A fresh `info` for `describe`."""
        return build_info(self.catalog, self.engine)
