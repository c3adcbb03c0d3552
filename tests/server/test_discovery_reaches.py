"""The Supervisor discovery payload names an address the server listens on, reached the way Home
Assistant's wyoming integration reaches it.

Home Assistant (core, `components/wyoming/config_flow.py`, `data.py`) takes the payload's
`uri`, stores its host name and port when the user accepts the discovery (never updated by a
later one), and connects with `AsyncTcpClient(host, port)`: asyncio resolves the name and tries
each address in turn, then a `describe` within 1 s, retried 3 times. The server binds all IPv4
addresses as in the add-on (`0.0.0.0`, here with a free port) and announces its host name.

Faked: the Supervisor (a local HTTP server that records the payload, its URL pointed at it in
the server's process). The name resolution and the connection are this machine's.
"""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path
from urllib.parse import urlparse

from wyoming.client import AsyncTcpClient
from wyoming.info import Describe, Info

from testkit.model_factory import TinyModel
from testkit.support import READ_TIMEOUT, ServerProcess, read_until
from tests.conftest import model_args

from .test_discovery import FakeSupervisor, supervisor  # noqa: F401 (a fixture)


async def _describe_as_home_assistant(host: str, port: int) -> Info:
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Describe().event())
        reply = await read_until(client, "info", timeout=READ_TIMEOUT)
    return Info.from_event(reply.events[-1])


async def _each_address_answers(host: str, port: int) -> list[str]:
    """Every address the name resolves to (as asyncio would try them) answers `describe`."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    answered = []
    for *_, address in infos:
        info = await _describe_as_home_assistant(str(address[0]), port)
        assert info.tts, address
        answered.append(str(address[0]))
    return answered


def test_the_discovery_payload_names_an_address_the_server_listens_on(
    tiny_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    supervisor: tuple[str, type[FakeSupervisor]],  # noqa: F811
) -> None:
    url, handler = supervisor
    prelude = f"import wyoming_pocket_tts.discovery as d\nd.SUPERVISOR_URL = {url!r}"
    args = model_args(tiny_model, voices)
    env: dict[str, str | None] = {"SUPERVISOR_TOKEN": "s3cret"}
    with ServerProcess(
        args, tmp_path / "log", env=env, prelude=prelude, uri="tcp://0.0.0.0:0"
    ) as server:
        server.wait_for_log("Supervisor discovery: announced")
        (request,) = handler.requests
        uri = urlparse(request["body"]["config"]["uri"])
        assert uri.scheme == "tcp" and uri.hostname and uri.port
        info = asyncio.run(_describe_as_home_assistant(uri.hostname, uri.port))
        answered = asyncio.run(_each_address_answers(uri.hostname, uri.port))
        assert server.stop() == 0
    bound = re.search(r"Listening on tcp://0\.0\.0\.0:(\d+)", server.log)
    assert bound and uri.port == int(bound.group(1))
    assert info.tts and info.tts[0].name == "pocket-tts" and answered
