"""Listening socket and start-up/shut-down order: port first, model behind it, graceful stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from wyoming.error import Error
from wyoming.event import async_write_event

from . import discovery, errors
from .engine.serving.engine import Engine
from .engine.tuning.verdict import log_speed_verdict
from .http.app import HttpSite, build_app
from .http.studio import StudioSettings, add_studio
from .protocol.handler import TtsEventHandler
from .service import Service
from .settings import Settings
from .text.pronunciations import Pronunciations
from .voices.catalog import VoiceCatalog, default_voice, with_default_voices
from .voices.choices import DefaultChoices

if TYPE_CHECKING:
    from zeroconf.asyncio import AsyncZeroconf

_LOGGER = logging.getLogger(__name__)


class TtsServer:
    """The Wyoming TTS server: an engine thread behind a listening socket."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        models = settings.engine.models
        voices = with_default_voices(settings.voices, models)
        languages = [model.code for model in models]
        last_resort = {model.code: default_voice(model) for model in models}
        data_dir = settings.engine.data_dir
        chosen = DefaultChoices(data_dir)
        self.catalog = VoiceCatalog(
            voices, settings.voices_dirs, languages, chosen, last_resort=last_resort
        )
        self.engine = Engine(settings.engine, self.catalog)
        pronunciations = Pronunciations(data_dir)
        self.service = Service(self.engine, self.catalog, settings.server, pronunciations)
        self._server: asyncio.Server | None = None
        self._handlers: dict[asyncio.Task, TtsEventHandler] = {}
        self.http: HttpSite | None = None
        """The OpenAI-compatible HTTP side, in this loop, when --http-port is given."""

    @property
    def port(self) -> int | None:
        """The TCP port actually bound (useful with port 0)."""
        if self._server is None or not self._server.sockets:
            return None
        address = self._server.sockets[0].getsockname()
        return address[1] if isinstance(address, tuple) else None

    @property
    def address(self) -> str:
        """The URI actually listened on (with the bound port when --uri asked for port 0)."""
        uri = urlparse(self.settings.server.uri)
        if uri.scheme != "tcp" or self.port is None:
            return self.settings.server.uri
        host = f"[{uri.hostname}]" if ":" in (uri.hostname or "") else uri.hostname
        return f"tcp://{host}:{self.port}"

    async def start(self) -> None:
        """Start loading the model and open the port; requests queue behind the warm-up."""
        self.engine.start()
        uri = urlparse(self.settings.server.uri)
        if uri.scheme == "unix":
            Path(uri.path).unlink(missing_ok=True)  # left by a previous run
            self._server = await asyncio.start_unix_server(self._connected, path=uri.path)
        else:
            self._server = await asyncio.start_server(
                self._connected, host=uri.hostname, port=uri.port
            )
        _LOGGER.info("Listening on %s", self.address)
        http = self.settings.http
        if http.port is not None:
            studio = StudioSettings.from_settings(self.settings)
            add = partial(add_studio, service=self.service, settings=studio)
            app = build_app(self.service, http, [add], self.settings.engine.data_dir)
            self.http = HttpSite(app, http)
            await self.http.start()

    async def wait_ready(self) -> None:
        """Wait for the model and default voice; raises why they could not be loaded."""
        await asyncio.wrap_future(self.engine.ready)
        _LOGGER.info(
            "Ready: %s on %s, voices: %s",
            ", ".join(f"{model.label} ({model.code})" for model in self.settings.engine.models),
            self.address,
            ", ".join(f"{spec.name} ({spec.code})" for spec in self.catalog.voices),
        )
        if self.engine.tuning is not None:
            log_speed_verdict(self.engine.tuning)

    async def stop(self, grace: float = 2.0) -> None:
        """Stop accepting, cancel generation, send every client its closing events, close."""
        if self._server is not None:
            self._server.close()
        self.engine.scheduler.stop()
        if self.http is not None:
            await self.http.stop()
        handlers = dict(self._handlers)
        await asyncio.gather(*(h.close_gracefully(grace) for h in handlers.values()))
        if handlers:
            _, pending = await asyncio.wait(handlers, timeout=grace)
            for task in pending:
                task.cancel()
        await asyncio.get_running_loop().run_in_executor(None, self.engine.shutdown)

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self._handlers) >= self.settings.server.max_connections:
            _LOGGER.warning("Refusing a connection: %d are open", len(self._handlers))
            await _refuse(writer)
            return
        handler = TtsEventHandler(reader, writer, self.service)
        task = asyncio.current_task()
        assert task is not None
        self._handlers[task] = handler
        peer = writer.get_extra_info("peername")
        _LOGGER.debug("Connection from %s (%d open)", peer, len(self._handlers))
        try:
            await handler.run()
        finally:
            del self._handlers[task]
            _LOGGER.debug("Connection from %s closed (%d open)", peer, len(self._handlers))


async def _refuse(writer: asyncio.StreamWriter) -> None:
    error = Error(text="Too many open connections", code=errors.TOO_MANY_CONNECTIONS)
    with contextlib.suppress(ConnectionError, OSError, asyncio.TimeoutError):
        await asyncio.wait_for(async_write_event(error.event(), writer), timeout=1.0)
    writer.close()


async def serve(settings: Settings) -> int:
    """Run until SIGTERM/SIGINT; exit code 0 on a clean stop, 1 if the model cannot be loaded."""
    server = TtsServer(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before the port opens: a stop is never lost
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    await server.start()
    ready = asyncio.ensure_future(server.wait_ready())
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({ready, stopping}, return_when=asyncio.FIRST_COMPLETED)
    code = 0
    announcement = None
    if ready.done() and ready.exception() is not None:
        _LOGGER.error("Cannot start: %s", ready.exception())
        code = 1
    elif not stopping.done():
        announcement = await _announce(settings, server.port)
        await stopping
    _LOGGER.info("Stopping")
    ready.cancel()
    if announcement is not None:
        await announcement.async_close()
    await server.stop()
    if server.engine.alive:
        # A model load cannot be interrupted, and torch aborts the process when the interpreter
        # shuts down under it: everything else is closed, so leave without that shutdown.
        _LOGGER.info("Exiting while the model is still loading")
        logging.shutdown()
        os._exit(code)
    return code


async def _announce(settings: Settings, port: int | None) -> AsyncZeroconf | None:
    """Tell Home Assistant where we are: the Supervisor (inside an add-on) and/or mDNS."""
    if port is None:
        return None
    token = os.environ.get("SUPERVISOR_TOKEN")
    if token:
        await discovery.announce_to_supervisor(port, token=token)
    if settings.zeroconf_name is None:
        return None
    bind_host = urlparse(settings.server.uri).hostname or ""
    host = discovery.advertised_host(bind_host, settings.zeroconf_host)
    try:
        return await discovery.register_zeroconf(settings.zeroconf_name, host, port)
    except Exception as error:  # discovery is a convenience: serve without it
        _LOGGER.error("Zeroconf announcement failed: %s", error)
        return None
