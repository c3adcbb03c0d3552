"""Discovery: the zeroconf record, the advertised address, and the Supervisor announcement.

The Supervisor is a local HTTP server on 127.0.0.1. Only the running-server test registers a
record over real mDNS (with a unique name, on 127.0.0.1) to see it announced and withdrawn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.util import find_spec
from pathlib import Path
from typing import Any, ClassVar

import pytest

from testkit.model_factory import TinyModel
from testkit.support import READ_TIMEOUT, ServerProcess
from tests.conftest import model_args
from wyoming_pocket_tts import discovery
from wyoming_pocket_tts.discovery import (
    SERVICE_TYPE,
    ZeroconfUnavailable,
    advertised_host,
    announce_to_supervisor,
    build_service_info,
    primary_ipv4,
    register_zeroconf,
)

needs_zeroconf = pytest.mark.skipif(
    find_spec("zeroconf") is None, reason="the optional zeroconf extra is not installed"
)

# The zeroconf record


@needs_zeroconf
def test_service_info_names_the_wyoming_service() -> None:
    info = build_service_info("pocket-tts-kitchen", "192.168.1.20", 10200)
    assert info.type == SERVICE_TYPE == "_wyoming._tcp.local."
    assert info.name == "pocket-tts-kitchen._wyoming._tcp.local."
    assert info.port == 10200
    assert info.parsed_addresses() == ["192.168.1.20"]


@needs_zeroconf
def test_service_info_takes_ipv6_and_host_names() -> None:
    assert build_service_info("a", "fd00::5", 1).parsed_addresses() == ["fd00::5"]
    assert build_service_info("a", "localhost", 1).parsed_addresses() == ["127.0.0.1"]


@needs_zeroconf
@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_service_info_never_advertises_an_unspecified_address(host: str) -> None:
    with pytest.raises(ValueError, match="reachable address"):
        build_service_info("a", host, 10200)


def test_missing_zeroconf_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "zeroconf", None)
    monkeypatch.setitem(sys.modules, "zeroconf.asyncio", None)
    with pytest.raises(ZeroconfUnavailable, match=r"wyoming-pocket-tts\[zeroconf\]"):
        build_service_info("a", "192.168.1.20", 10200)
    with pytest.raises(ZeroconfUnavailable):
        asyncio.run(register_zeroconf("a", "192.168.1.20", 10200))


# The advertised address


def test_override_wins() -> None:
    assert advertised_host("0.0.0.0", "ha-box.lan") == "ha-box.lan"
    assert advertised_host("10.0.0.7", "192.168.1.9") == "192.168.1.9"


@pytest.mark.parametrize("bind", ["192.168.1.20", "127.0.0.1", "fd00::5", "tts.lan"])
def test_specific_bind_address_is_advertised(bind: str) -> None:
    assert advertised_host(bind, None) == bind
    assert advertised_host(bind, "") == bind


@pytest.mark.parametrize("bind", ["0.0.0.0", "::", "", "*"])
def test_unspecified_bind_address_becomes_the_primary_ipv4(
    bind: str, fake_socket: type[FakeSocket]
) -> None:
    assert advertised_host(bind, None) == "10.1.2.3"  # the route probe's address
    assert fake_socket.calls == ["connect 192.0.2.1", "close"]


class FakeSocket:
    """Stands in for the UDP socket; records what is done with it."""

    calls: ClassVar[list[str]] = []
    fail = False

    def __init__(self, *args: Any) -> None:
        pass

    def __enter__(self) -> FakeSocket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.calls.append("close")

    def connect(self, address: tuple[str, int]) -> None:
        self.calls.append(f"connect {address[0]}")
        if self.fail:
            raise OSError("Network is unreachable")

    def getsockname(self) -> tuple[str, int]:
        return ("10.1.2.3", 40000)

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the probe socket must not {name}")


@pytest.fixture
def fake_socket(monkeypatch: pytest.MonkeyPatch) -> type[FakeSocket]:
    FakeSocket.calls = []
    FakeSocket.fail = False
    monkeypatch.setattr(discovery.socket, "socket", FakeSocket)
    return FakeSocket


def test_primary_ipv4_reads_the_route_without_sending(fake_socket: type[FakeSocket]) -> None:
    assert primary_ipv4() == "10.1.2.3"
    assert fake_socket.calls == ["connect 192.0.2.1", "close"]


def test_primary_ipv4_falls_back_to_loopback(fake_socket: type[FakeSocket]) -> None:
    fake_socket.fail = True
    assert primary_ipv4() == "127.0.0.1"
    assert advertised_host("0.0.0.0", None) == "127.0.0.1"


# The Supervisor announcement


class FakeSupervisor(BaseHTTPRequestHandler):
    """Records requests and answers with the class's `status` and `reply`."""

    requests: ClassVar[list[dict[str, Any]]] = []
    status = 200
    reply: ClassVar[Any] = {"result": "ok", "data": {"uuid": "0123"}}
    release: threading.Event | None = None
    """If set, the answer waits for this event."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.requests.append(
            {
                "method": self.command,
                "path": self.path,
                "authorization": self.headers.get("Authorization"),
                "content_type": self.headers.get("Content-Type"),
                "body": json.loads(body),
            }
        )
        if self.release is not None:
            self.release.wait(60)
        payload = json.dumps(self.reply).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError):  # the client may have given up waiting
            self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def supervisor(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, type[FakeSupervisor]]]:
    """A fake Supervisor on 127.0.0.1; yields its URL and its handler class."""
    handler = type("Supervisor", (FakeSupervisor,), {"requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def announce(url: str, **kwargs: Any) -> bool:
    return asyncio.run(
        asyncio.wait_for(announce_to_supervisor(10200, token="s3cret", url=url, **kwargs), 30)
    )


def test_announcement_posts_the_wyoming_uri(supervisor: tuple[str, type[FakeSupervisor]]) -> None:
    url, handler = supervisor
    assert announce(url, host="addon-host") is True
    assert handler.requests == [
        {
            "method": "POST",
            "path": "/discovery",
            "authorization": "Bearer s3cret",
            "content_type": "application/json",
            "body": {"service": "wyoming", "config": {"uri": "tcp://addon-host:10200"}},
        }
    ]


def test_announcement_uses_the_host_name_by_default(
    supervisor: tuple[str, type[FakeSupervisor]],
) -> None:
    url, handler = supervisor
    assert announce(url + "/") is True
    assert handler.requests[0]["path"] == "/discovery"
    uri = handler.requests[0]["body"]["config"]["uri"]
    assert uri == f"tcp://{socket.gethostname()}:10200"


@pytest.mark.parametrize(
    ("status", "reply"),
    [
        (401, {"result": "error", "message": "Unauthorized"}),
        (200, {"result": "error", "message": "no discovery permission"}),
        (200, ["not", "an", "object"]),
    ],
)
def test_refusal_returns_false(
    supervisor: tuple[str, type[FakeSupervisor]],
    status: int,
    reply: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    url, handler = supervisor
    handler.status, handler.reply = status, reply
    assert announce(url, host="addon-host") is False
    assert "tcp://addon-host:10200" in caplog.text


def test_unreachable_supervisor_returns_false() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # held, never listening: connections are refused
        port = sock.getsockname()[1]
        assert announce(f"http://127.0.0.1:{port}") is False
    assert announce("not a url") is False


def test_slow_supervisor_times_out(
    supervisor: tuple[str, type[FakeSupervisor]],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    url, handler = supervisor
    handler.release = threading.Event()  # answers only when the test is over
    monkeypatch.setattr(discovery, "SUPERVISOR_TIMEOUT", 0.3)
    try:
        assert announce(url) is False
    finally:
        handler.release.set()
    assert len(handler.requests) == 1  # it was reached, and not answered in time
    assert "timed out" in caplog.text


# The running server


@needs_zeroconf
def test_the_running_server_announces_itself_and_withdraws(
    tiny_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    supervisor: tuple[str, type[FakeSupervisor]],
) -> None:
    """Inside an add-on (SUPERVISOR_TOKEN set) and with --zeroconf, the real server tells the
    Supervisor and mDNS its bound port once ready, and says goodbye over mDNS when stopped.

    Faked: the Supervisor, a local HTTP server (its URL, a module constant, is pointed at it in
    the server's process). The mDNS traffic is real multicast from this machine.
    """
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

    url, handler = supervisor
    name = f"pocket-tts-test-{os.getpid()}-{time.monotonic_ns()}"
    full_name = f"{name}.{SERVICE_TYPE}"
    prelude = f"import wyoming_pocket_tts.discovery as d\nd.SUPERVISOR_URL = {url!r}"
    args = model_args(tiny_model, voices, "--zeroconf", name, "--zeroconf-host", "127.0.0.1")
    env: dict[str, str | None] = {"SUPERVISOR_TOKEN": "s3cret"}

    async def until(condition: Callable[[], bool], what: str) -> None:
        deadline = asyncio.get_running_loop().time() + READ_TIMEOUT
        while not condition():
            assert asyncio.get_running_loop().time() < deadline, what
            await asyncio.sleep(0.05)

    async def scenario(server: ServerProcess) -> tuple[int, list[str], list[str]]:
        seen: list[str] = []

        def on_change(name: str, state_change: Any, **_: Any) -> None:
            if name == full_name:
                seen.append(state_change.name)

        aiozc = AsyncZeroconf()
        browser = AsyncServiceBrowser(aiozc.zeroconf, SERVICE_TYPE, handlers=[on_change])
        try:
            await asyncio.to_thread(server.wait_for_log, "Zeroconf: announced")
            await until(lambda: "Added" in seen, "never announced over mDNS")
            info = await aiozc.async_get_service_info(SERVICE_TYPE, full_name, timeout=3000)
            assert info is not None
            port, addresses = info.port or 0, info.parsed_addresses()
            assert await asyncio.to_thread(server.stop) == 0
            await until(lambda: "Removed" in seen, "no goodbye over mDNS")
            return port, addresses, seen
        finally:
            await browser.async_cancel()
            await aiozc.async_close()

    with ServerProcess(args, tmp_path / "log", env=env, prelude=prelude) as server:
        port, addresses, seen = asyncio.run(scenario(server))
    assert (port, addresses) == (server.port, ["127.0.0.1"])
    assert seen[-1] == "Removed"
    uri = f"tcp://{socket.gethostname()}:{server.port}"
    assert [(r["path"], r["authorization"], r["body"]) for r in handler.requests] == [
        ("/discovery", "Bearer s3cret", {"service": "wyoming", "config": {"uri": uri}})
    ]
