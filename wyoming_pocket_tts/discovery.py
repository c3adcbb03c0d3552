"""Telling Home Assistant where the server is: zeroconf (mDNS) or the Supervisor's discovery API.

Home Assistant's wyoming integration finds servers either through zeroconf (`_wyoming._tcp.local.`)
or, for add-ons, through the Supervisor's `wyoming` discovery service with `{"uri": ...}`. Both must
name an address Home Assistant can reach, so an unspecified bind address (0.0.0.0, ::) is never
advertised.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import socket
import urllib.error
import urllib.request
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zeroconf import ServiceInfo
    from zeroconf.asyncio import AsyncZeroconf

_LOGGER = logging.getLogger(__name__)

SERVICE_TYPE = "_wyoming._tcp.local."
"""The zeroconf service type Home Assistant's wyoming integration browses for."""

LOOPBACK = "127.0.0.1"

_ROUTE_PROBE = ("192.0.2.1", 9)
"""A documentation address (TEST-NET-1): connecting a UDP socket to it picks the outbound
interface from the routing table without sending a packet."""

SUPERVISOR_URL = "http://supervisor"
"""The Supervisor's API as add-ons reach it."""

SUPERVISOR_TIMEOUT = 5.0
"""Seconds the Supervisor gets to answer a discovery announcement."""


class ZeroconfUnavailable(RuntimeError):
    """The optional `zeroconf` package is not installed."""


def _is_unspecified(host: str) -> bool:
    if host in ("", "*"):
        return True
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:  # a host name
        return False


def primary_ipv4() -> str:
    """This machine's outbound IPv4 address (no packet is sent), or 127.0.0.1 if there is none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_ROUTE_PROBE)
            address = probe.getsockname()[0]
    except OSError as error:
        _LOGGER.debug("No outbound IPv4 route (%s): advertising %s", error, LOOPBACK)
        return LOOPBACK
    return address if not _is_unspecified(address) else LOOPBACK


def advertised_host(bind_host: str, override: str | None = None) -> str:
    """The override, else the bind host if it is a specific address, else the primary IPv4."""
    if override:
        return override
    if not _is_unspecified(bind_host):
        return bind_host
    return primary_ipv4()


def _packed_addresses(host: str) -> list[bytes]:
    """`host` as packed IP addresses; a host name is resolved (IPv4) once, at registration."""
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        infos = socket.getaddrinfo(host, None, socket.AF_INET, socket.SOCK_STREAM)
        addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    if not addresses or any(address.is_unspecified for address in addresses):
        raise ValueError(f"cannot advertise {host!r}: Home Assistant needs a reachable address")
    return list(dict.fromkeys(address.packed for address in addresses))


def _zeroconf() -> ModuleType:
    """The optional `zeroconf` package, imported on first use."""
    try:
        import zeroconf
        import zeroconf.asyncio
    except ImportError as error:
        raise ZeroconfUnavailable(
            "zeroconf discovery needs the 'zeroconf' package: "
            "pip install 'wyoming-pocket-tts[zeroconf]'"
        ) from error
    return zeroconf


def build_service_info(name: str, host: str, port: int) -> ServiceInfo:
    """The `_wyoming._tcp.local.` record for this server; `host` must not be 0.0.0.0 or ::."""
    zeroconf = _zeroconf()
    return zeroconf.ServiceInfo(
        SERVICE_TYPE,
        f"{name}.{SERVICE_TYPE}",
        port=port,
        addresses=_packed_addresses(host),
    )


async def register_zeroconf(name: str, host: str, port: int) -> AsyncZeroconf:
    """Announce the server over mDNS; close the returned object to withdraw the announcement."""
    zeroconf = _zeroconf()
    info = await asyncio.to_thread(build_service_info, name, host, port)
    aiozc = zeroconf.asyncio.AsyncZeroconf(ip_version=zeroconf.IPVersion.V4Only)
    try:
        await aiozc.async_register_service(info)
    except BaseException:
        await aiozc.async_close()
        raise
    _LOGGER.info("Zeroconf: announced %s at %s:%s", info.name, host, port)
    return aiozc


def _post_json(url: str, body: dict, token: str, timeout: float) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read() or b"{}")


async def announce_to_supervisor(
    port: int,
    *,
    token: str,
    url: str | None = None,
    host: str | None = None,
) -> bool:
    """Register the `wyoming` discovery service with the Supervisor; False (logged) on failure.

    The add-on's host name (the default) is what Home Assistant resolves on the add-on network,
    as the official Wyoming add-ons announce. Home Assistant stores the host at set-up and never
    updates it from a later discovery, so an IP address (Docker may give another at the next
    start) would go stale; it connects with asyncio, which tries each address the name resolves
    to in turn, so an IPv6 address tried first costs one refused connection, not the set-up
    (tests/server/test_discovery_reaches.py).
    """
    url = url or SUPERVISOR_URL
    uri = f"tcp://{host or socket.gethostname()}:{port}"
    body = {"service": "wyoming", "config": {"uri": uri}}
    try:
        reply = await asyncio.to_thread(
            _post_json, f"{url.rstrip('/')}/discovery", body, token, SUPERVISOR_TIMEOUT
        )
    except Exception as error:  # refused, unreachable, timed out, not JSON: never fatal
        _LOGGER.error("Supervisor discovery of %s failed: %s", uri, error)
        return False
    if not isinstance(reply, dict) or reply.get("result") != "ok":
        _LOGGER.error("Supervisor refused discovery of %s: %s", uri, reply)
        return False
    _LOGGER.info("Supervisor discovery: announced %s", uri)
    return True
