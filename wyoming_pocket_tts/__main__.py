"""Entry point: `python -m wyoming_pocket_tts` / `wyoming-pocket-tts`."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Sequence

from .cli import parse_settings
from .downloads import log_hub_downloads
from .server import serve


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, configure logging and serve until stopped."""
    settings = parse_settings(argv)
    logging.basicConfig(
        level=logging.DEBUG if settings.debug else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not settings.debug:
        # pocket-tts logs every generation at INFO, the hub's HTTP client every request.
        for name in ("pocket_tts", "httpx2", "httpx"):
            logging.getLogger(name).setLevel(logging.WARNING)
    log_hub_downloads()  # the first start's model and voice downloads, as plain log lines
    try:
        return asyncio.run(serve(settings))
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
