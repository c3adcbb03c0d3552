"""Health check: a real `describe` -> `info` round trip, as Home Assistant does it.

`python -m wyoming_pocket_tts.health [--uri tcp://127.0.0.1:10200] [--timeout 3]` prints one line
and exits 0 when an `info` listing an installed TTS program came back within the timeout, 1
otherwise (nothing listening, no answer, garbage). Used by the container's HEALTHCHECK.
A server still loading its model answers `describe`, so it is healthy: there is no "loading"
verdict, which would let the Supervisor's watchdog restart an add-on in its first download.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from wyoming.client import AsyncClient
from wyoming.info import Describe, Info

DEFAULT_URI = "tcp://127.0.0.1:10200"
DEFAULT_TIMEOUT = 3.0


class Unhealthy(Exception):
    """The server answered, but not with what Home Assistant needs."""


async def _describe(uri: str) -> Info:
    async with AsyncClient.from_uri(uri) as client:
        await client.write_event(Describe().event())
        while True:
            event = await client.read_event()
            if event is None:
                raise Unhealthy("connection closed before info")
            if Info.is_type(event.type):
                return Info.from_event(event)


async def probe(uri: str, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Describe the server at `uri` and summarise it; raises if it is not a healthy TTS server."""
    info = await asyncio.wait_for(_describe(uri), timeout)
    programs = [program for program in info.tts if program.installed]
    if not programs:
        raise Unhealthy("info lists no installed TTS program")
    voices = sum(1 for program in programs for voice in program.voices if voice.installed)
    names = ", ".join(f"{program.name} {program.version or ''}".strip() for program in programs)
    return f"{names} with {voices} voice(s)"


def check(uri: str, timeout: float = DEFAULT_TIMEOUT) -> tuple[bool, str]:
    """Run the probe; (healthy, one-line message). Never raises for a sick or absent server."""
    try:
        summary = asyncio.run(probe(uri, timeout))
    except asyncio.TimeoutError:  # not the builtin TimeoutError before Python 3.11
        return False, f"unhealthy: no info from {uri} within {timeout:g} s"
    except Unhealthy as error:
        return False, f"unhealthy: {uri}: {error}"
    except Exception as error:  # refused, reset, not Wyoming: all mean unhealthy
        return False, f"unhealthy: {uri}: {type(error).__name__}: {error}"
    return True, f"healthy: {uri}: {summary}"


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; the exit code is the verdict."""
    parser = argparse.ArgumentParser(
        prog="python -m wyoming_pocket_tts.health", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--uri", default=DEFAULT_URI, help=f"server to ask (default {DEFAULT_URI})")
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds for the whole round trip"
    )
    args = parser.parse_args(argv)
    healthy, message = check(args.uri, args.timeout)
    print(message)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
