"""Health check: a real `describe` -> `info` round trip, as Home Assistant does it.

`python -m wyoming_pocket_tts.health [--uri URI] [--timeout 3]` prints one line and exits 0 when
an `info` listing an installed TTS program came back within the timeout, 1 otherwise (nothing
listening, no answer, garbage). Used by the container's HEALTHCHECK.

Without `--uri` it asks the server the container runs: the last `--uri` on the command line of
PID 1 (the entry point, or `docker run --init`'s init in front of it), with a wildcard host
(`0.0.0.0`, `::`) asked on loopback; `tcp://127.0.0.1:10200` when there is none. So
`docker run IMAGE --uri tcp://0.0.0.0:10300` is checked on port 10300.
A server still loading its model answers `describe`, so it is healthy: there is no "loading"
verdict, which would let the Supervisor's watchdog restart an add-on in its first download.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from wyoming.client import AsyncClient
from wyoming.info import Describe, Info

DEFAULT_URI = "tcp://127.0.0.1:10200"
DEFAULT_TIMEOUT = 3.0
SERVER_COMMAND_LINE = Path("/proc/1/cmdline")
"""The command line of the container's PID 1, which carries the server's flags."""
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}


def served_uri(argv: Sequence[str]) -> str:
    """Where a server started with `argv` answers: its last `--uri`, a wildcard host asked on
    loopback; `DEFAULT_URI` without one."""
    uri = DEFAULT_URI
    for word, after in zip(argv, [*argv[1:], ""], strict=True):
        if word == "--uri" and after:
            uri = after
        elif word.startswith("--uri="):
            uri = word.removeprefix("--uri=")
    parts = urlsplit(uri)
    if parts.scheme != "tcp" or parts.hostname not in _WILDCARDS:
        return uri
    return f"tcp://{_WILDCARDS[parts.hostname or '']}:{parts.port}"


def container_uri(command_line: Path = SERVER_COMMAND_LINE) -> str:
    """`served_uri` of the container's PID 1; `DEFAULT_URI` if it cannot be read."""
    try:
        argv = command_line.read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return DEFAULT_URI
    return served_uri(argv)


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
    parser.add_argument(
        "--uri",
        help=f"server to ask (default: PID 1's --uri, else {DEFAULT_URI})",
    )
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds for the whole round trip"
    )
    args = parser.parse_args(argv)
    healthy, message = check(args.uri or container_uri(), args.timeout)
    print(message)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
