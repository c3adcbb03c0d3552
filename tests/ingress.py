"""The Supervisor's ingress proxy as a real peer: a veth pair into a network namespace.

The Supervisor's proxy connects from 172.30.32.2 to the add-on's own address (172.30.32.1 on
the hassio network). `ingress_link(pid)` makes that link for a test: a veth pair with one end in
the network namespace of process `pid` (the add-on) at `ADDON`, the other in a new namespace at
`PROXY` and at `OTHER` (a peer that is not the proxy, on the same link). `request(...)` sends
HTTP requests from that namespace, from either address. Everything is removed on exit, however
the test ends. Needs root and `ip`.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

ADDON = "172.30.32.1"
PROXY = "172.30.32.2"
OTHER = "172.30.32.3"
PREFIX = 23
"""The hassio network's prefix length (172.30.32.0/23)."""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@dataclass(frozen=True)
class Link:
    """A client namespace linked to the add-on's."""

    namespace: str

    def request(
        self,
        method: str,
        url: str,
        *,
        source: str = PROXY,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        binary: bool = False,
    ) -> tuple[int, dict[str, str], str]:
        """One HTTP request from `source` inside the client namespace: (status, headers, body).
        The body is read as UTF-8, or with `binary` as latin-1 (`.encode("latin-1")` gives its
        bytes back: audio)."""
        spec = {
            "method": method,
            "url": url,
            "source": source,
            "headers": dict(headers or {}),
            "body": (body or b"").decode("latin-1"),
            "encoding": "latin-1" if binary else "utf-8",
        }
        result = subprocess.run(
            ["ip", "netns", "exec", self.namespace, sys.executable, "-c", _CLIENT],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        answer: dict[str, Any] = json.loads(result.stdout)
        return answer["status"], answer["headers"], answer["body"]


_CLIENT = """
import http.client, json, sys, urllib.parse
spec = json.load(sys.stdin)
url = urllib.parse.urlsplit(spec["url"])
connection = http.client.HTTPConnection(
    url.hostname, url.port, timeout=30, source_address=(spec["source"], 0)
)
path = url.path + ("?" + url.query if url.query else "")
body = spec["body"].encode("latin-1") or None
connection.request(spec["method"], path, body=body, headers=spec["headers"])
response = connection.getresponse()
print(json.dumps({
    "status": response.status,
    "headers": dict(response.getheaders()),
    "body": response.read().decode(spec["encoding"], "replace"),
}))
"""


@contextlib.contextmanager
def ingress_link(pid: int) -> Iterator[Link]:
    """A veth pair from process `pid`'s network namespace (at `ADDON`) to a new namespace (at
    `PROXY` and `OTHER`); removed on exit."""
    tag = secrets.token_hex(3)
    namespace, addon_end, proxy_end = f"ingress-{tag}", f"vi{tag}a", f"vi{tag}b"
    _ip("netns", "add", namespace)
    try:
        _ip("link", "add", addon_end, "type", "veth", "peer", "name", proxy_end)
        _ip("link", "set", proxy_end, "netns", namespace)
        _ip("link", "set", addon_end, "netns", str(pid))
        in_addon = ["nsenter", "-t", str(pid), "-n", "ip"]
        for command in (
            ["addr", "add", f"{ADDON}/{PREFIX}", "dev", addon_end],
            ["link", "set", addon_end, "up"],
        ):
            subprocess.run([*in_addon, *command], check=True, capture_output=True, timeout=10)
        for command in (
            ["addr", "add", f"{PROXY}/{PREFIX}", "dev", proxy_end],
            ["addr", "add", f"{OTHER}/{PREFIX}", "dev", proxy_end],
            ["link", "set", proxy_end, "up"],
            ["link", "set", "lo", "up"],
        ):
            _ip("-n", namespace, *command)
        yield Link(namespace)
    finally:
        # Deleting the namespace deletes its veth end, and with it the add-on's end.
        subprocess.run(["ip", "netns", "del", namespace], capture_output=True, timeout=10)
        subprocess.run(["ip", "link", "del", addon_end], capture_output=True, timeout=10)
