"""First-start downloads logged as plain lines: percent, MB, rate, and the time each file took.

The Hugging Face hub cannot be reached here, so `FakeHub` stands in for it: a local HTTP server
answering the two requests `huggingface_hub` makes per file (HEAD for the metadata, GET for the
bytes) under the hub's own URL scheme, from files laid out like a hub cache. Everything else is
real: `hf_hub_download` and its `http_get`, pocket-tts loading a built-in language through it,
and the server started as a user starts it. Xet downloads need Hugging Face's storage service,
so that path is driven through the hub's real `XetDownloadProgressReporter` with fake reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import logging
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from huggingface_hub import constants, hf_hub_download

from testkit.model_factory import build_hf_cache
from testkit.support import ServerProcess, describe
from wyoming_pocket_tts import downloads

COMMIT = "0123456789abcdef0123456789abcdef01234567"
SEND_CHUNK = 64 * 1024
PROGRESS = re.compile(
    r"Downloading (?P<name>\S+): (?P<percent>\d+)% \((?P<done>[\d.]+) of (?P<total>[\d.]+) MB, "
    r"[\d.]+ MB/s\)$"
)
DONE = re.compile(r"Downloaded (?P<name>\S+): (?P<mb>[\d.]+) MB in (?P<seconds>[\d.]+) s")


class FakeHub:
    """Serves `<hub>/models--ORG--REPO/snapshots/COMMIT/FILE` at `/ORG/REPO/resolve/REV/FILE`."""

    def __init__(self, hub: Path) -> None:
        self.hub = hub
        self.requests: list[str] = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_HEAD(self) -> None:
                owner._answer(self, body=False)

            def do_GET(self) -> None:
                owner._answer(self, body=True)

            def log_message(self, *args: object) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def _find(self, path: str) -> tuple[Path, str] | None:
        match = re.fullmatch(r"/([^/]+)/([^/]+)/resolve/([^/]+)/(.+)", path)
        if match is None:
            return None
        org, repo, revision, filename = match.groups()
        folder = self.hub / f"models--{org}--{repo}"
        ref = folder / "refs" / revision
        commit = ref.read_text().strip() if ref.is_file() else revision
        file = folder / "snapshots" / commit / filename
        return (file, commit) if file.is_file() else None

    def _answer(self, handler: http.server.BaseHTTPRequestHandler, body: bool) -> None:
        self.requests.append(f"{handler.command} {handler.path}")
        found = self._find(handler.path)
        if found is None:
            handler.send_response(404)
            handler.send_header("X-Error-Code", "EntryNotFound")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        file, commit = found
        data = file.read_bytes()
        handler.send_response(200)
        handler.send_header("X-Repo-Commit", commit if len(commit) == 40 else COMMIT)
        handler.send_header("ETag", f'"{len(data)}-{file.name}"')
        handler.send_header("Content-Length", str(len(data)))
        handler.send_header("Content-Disposition", f'inline; filename="{file.name}";')
        handler.end_headers()
        if body:
            for start in range(0, len(data), SEND_CHUNK):
                handler.wfile.write(data[start : start + SEND_CHUNK])

    @contextlib.contextmanager
    def running(self) -> Iterator[FakeHub]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
            thread.join(timeout=10)


def publish(hub: Path, repo_id: str, filename: str, data: bytes) -> None:
    file = hub / f"models--{repo_id.replace('/', '--')}" / "snapshots" / COMMIT / filename
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(data)


@pytest.fixture
def logged(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`log_hub_downloads` installed for one test; the hub's own bar class restored after it."""
    for name in downloads._HUB_MODULES:
        module = __import__(name, fromlist=["tqdm"])
        monkeypatch.setattr(module, "tqdm", module.tqdm)
    monkeypatch.setattr(downloads.HubDownloadLog, "interval", downloads.HubDownloadLog.interval)
    monkeypatch.delenv("HF_HUB_DISABLE_PROGRESS_BARS", raising=False)
    yield


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == downloads.__name__]


def test_http_download_logs_percent_mb_and_time(
    tmp_path: Path,
    logged: None,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = bytes(range(256)) * 4096 * 3  # 3 MiB
    publish(tmp_path / "served", "org/model", "weights/model.safetensors", data)
    monkeypatch.setattr(constants, "DOWNLOAD_CHUNK_SIZE", 256 * 1024)  # an update per 256 KiB
    downloads.log_hub_downloads(interval=0.0)  # a line per update: no clock in the test
    caplog.set_level(logging.INFO, logger=downloads.__name__)
    with FakeHub(tmp_path / "served").running() as hub:
        started = time.monotonic()
        path = hf_hub_download(
            "org/model",
            "weights/model.safetensors",
            revision=COMMIT,
            endpoint=hub.url,
            cache_dir=tmp_path / "cache",
        )
        took = time.monotonic() - started
    assert Path(path).read_bytes() == data
    lines = messages(caplog)
    assert lines[0] == "Downloading model.safetensors: 3.1 MB"
    progress = [m.groupdict() for m in map(PROGRESS.match, lines) if m]
    assert len(progress) == len(data) // (256 * 1024)
    percents = [int(p["percent"]) for p in progress]
    assert percents == sorted(percents) and percents[0] < 20 and percents[-1] == 100
    assert {p["total"] for p in progress} == {"3.1"}
    done = DONE.match(lines[-1])
    assert done and done["name"] == "model.safetensors" and done["mb"] == "3.1"
    # The time reported is the download's, not a clock reading: at most what the call took.
    assert float(done["seconds"]) <= round(took, 1) + 0.05
    assert "\r" not in capfd.readouterr().err  # no terminal bar drawn anywhere


def test_interval_throttles_progress_lines(
    tmp_path: Path,
    logged: None,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With an interval longer than the download, only the start and end lines remain."""
    publish(tmp_path / "served", "org/model", "tokenizer.model", b"x" * 1_000_000)
    monkeypatch.setattr(constants, "DOWNLOAD_CHUNK_SIZE", 64 * 1024)
    downloads.log_hub_downloads(interval=3600.0)
    caplog.set_level(logging.INFO, logger=downloads.__name__)
    with FakeHub(tmp_path / "served").running() as hub:
        hf_hub_download(
            "org/model",
            "tokenizer.model",
            revision=COMMIT,
            endpoint=hub.url,
            cache_dir=tmp_path / "cache",
        )
    lines = messages(caplog)
    assert len(lines) == 2, lines
    assert lines[0] == "Downloading tokenizer.model: 1.0 MB"
    assert DONE.match(lines[1])


def test_xet_download_is_one_logged_bar(logged: None, caplog: pytest.LogCaptureFixture) -> None:
    """The hub's real Xet reporter, fed fake group reports (no Xet storage service here)."""
    from huggingface_hub.utils._xet_progress_reporting import XetDownloadProgressReporter

    downloads.log_hub_downloads(interval=0.0)
    caplog.set_level(logging.INFO, logger=downloads.__name__)
    total = 40_000_000
    with XetDownloadProgressReporter(
        reconstruction_desc="languages/english/embeddings/alba.safete(…): reconstructing file",
        transfer_desc="languages/english/embeddings/alba.safete(…): downloading bytes",
        total=total,
        log_level=logging.INFO,
        name="huggingface_hub.xet_get",
    ) as reporter:
        for written in (10_000_000, 30_000_000, total):
            report = SimpleNamespace(
                total_bytes_completed=written,
                total_transfer_bytes_completed=written // 2,
                total_bytes_completion_rate=1e6,
                total_transfer_bytes_completion_rate=5e5,
                total_bytes=total,
            )
            reporter.update_progress(report)
    lines = messages(caplog)
    name = "languages/english/embeddings/alba.safete…"
    assert lines[0] == f"Downloading {name}: 40.0 MB"
    assert [m["percent"] for m in map(PROGRESS.match, lines) if m] == ["25", "75", "100"]
    assert sum(line.startswith("Downloading ") and ": 40.0 MB" in line for line in lines) == 1
    done = DONE.match(lines[-1])
    assert done and done["mb"] == "40.0"


def test_interrupted_download_says_where_it_stopped(
    logged: None, caplog: pytest.LogCaptureFixture
) -> None:
    downloads.log_hub_downloads(interval=3600.0)
    caplog.set_level(logging.INFO, logger=downloads.__name__)
    bar = downloads.HubDownloadLog(desc="(…)ish/model.safetensors", total=2_000_000, unit="B")
    bar.update(500_000)
    bar.close()
    bar.close()  # the hub may close twice: one end line
    lines = messages(caplog)
    assert len(lines) == 2 and lines[0] == "Downloading model.safetensors: 2.0 MB"
    assert re.fullmatch(
        r"Download of model\.safetensors stopped at 0\.5 of 2\.0 MB after [\d.]+ s", lines[1]
    )


def test_first_start_logs_each_download(tmp_path: Path) -> None:
    """The server as a user starts it (`--language ... --voice alba`) fetches from a fake hub."""
    served = tmp_path / "served"
    build_hf_cache(served, language="english_2m_2026-10", voices=("alba",))
    env = {"HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_OFFLINE": "0"}
    args = ["--language", "english_2m_2026-10", "--voice", "alba"]
    args += ["--data-dir", str(tmp_path / "data")]
    with FakeHub(served / "hub").running() as hub:
        env["HF_ENDPOINT"] = hub.url
        with ServerProcess(args, tmp_path / "server.log", env=env) as server:
            server.wait_for_log("Ready")
            assert asyncio.run(describe(server.port)).tts[0].voices[0].name == "alba"
            assert server.stop() == 0
    log = server.log
    gets = [r.split("/resolve/")[1] for r in hub.requests if r.startswith("GET /kyutai/")]
    fetched = sorted(get.split("/", 1)[1] for get in gets)
    assert fetched == [
        "languages/english_2m_2026-10/embeddings/alba.safetensors",
        "languages/english_2m_2026-10/model.safetensors",
        "languages/english_2m_2026-10/tokenizer.model",
    ]
    done = [m.groupdict() for m in map(DONE.search, log.splitlines()) if m]
    assert sorted(d["name"] for d in done) == [
        "alba.safetensors",
        "model.safetensors",
        "tokenizer.model",
    ]
    assert all(float(d["mb"]) > 0 for d in done)
    assert "Downloading model.safetensors: " in log
    assert "\r" not in log
    assert "HTTP Request:" not in log  # the HTTP client's line per request would drown them


def test_a_running_download_is_told_until_its_bar_closes() -> None:
    """`downloads.downloading()` (the `downloading` state of `/health` and `describe`) is true
    while a hub download's bar is open, and false once it is closed."""
    from wyoming_pocket_tts.downloads import HubDownloadLog, downloading

    assert not downloading()
    bar = HubDownloadLog(total=100, desc="model.safetensors")
    assert downloading()
    bar.update(100)
    bar.close()
    assert not downloading()
