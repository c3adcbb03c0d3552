"""Hugging Face downloads as plain log lines: progress every few seconds, and the time each took.

The first start downloads the model, tokenizer and voices (hundreds of MB) through
`huggingface_hub`, called inside pocket-tts. The hub draws tqdm bars with carriage returns, and
only on a terminal: in a container or the add-on log nothing at all appears for minutes. The hub
creates every file's bar from the class its modules call `tqdm` (unless a caller passes its own
`tqdm_class`, which pocket-tts does not); `log_hub_downloads` replaces that class with one that
logs instead of drawing, for plain HTTP and Xet downloads alike. `hub_file` fetches a config's
`hf://` or `https://` file the way pocket-tts does, for the graphs' path without it;
`download_again` replaces a hub file whose cached copy is damaged.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import logging
import os
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, ClassVar

from huggingface_hub.utils import tqdm as hub_tqdm

from .files import new_file

_LOGGER = logging.getLogger(__name__)

PROGRESS_INTERVAL = 5.0
"""Seconds between two progress lines of one download."""

_HUB_MODULES = ("huggingface_hub.utils.tqdm", "huggingface_hub.utils._xet_progress_reporting")
"""Modules whose `tqdm` is the default bar of `http_get` and `xet_get` (read in hub 2.4)."""

_MB = 1_000_000


def downloading() -> bool:
    """A Hugging Face download runs now (one logged by `HubDownloadLog`)."""
    return bool(HubDownloadLog.running)


class _Nowhere(io.TextIOBase):
    """A text stream that drops what tqdm writes (the bar, and the newline when it closes)."""

    def write(self, text: str) -> int:
        return len(text)


class HubDownloadLog(hub_tqdm):
    """A hub progress bar that logs: a line at the start, one per `interval`, one at the end."""

    interval: ClassVar[float] = PROGRESS_INTERVAL
    running: ClassVar[set[int]] = set()
    """The ids of the bars open now: the hub makes them, so the class is where they are known."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # tqdm's disable=None means "no terminal, no bar": log anyway. The hub still disables
        # it when HF_HUB_DISABLE_PROGRESS_BARS is set.
        kwargs["disable"] = False
        kwargs["file"] = _Nowhere()
        self._started = self._last_log = time.monotonic()
        super().__init__(*args, **kwargs)
        self.file_name = _display_name(str(self.desc))
        HubDownloadLog.running.add(id(self))
        if not self.disable:
            _LOGGER.info("Downloading %s: %s", self.file_name, _size(self.total))

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        """Draw nothing (and format nothing)."""
        return True

    def update(self, n: float | None = 1) -> bool | None:
        result = super().update(n)
        now = time.monotonic()
        if not self.disable and now - self._last_log >= self.interval:
            self._last_log = now
            self._log_progress()
        return result

    def update_transfer(self, n: float | None = 1) -> None:
        """Xet's network bytes: ignored, the bytes written (`update`) are the progress.

        Having this method also makes the hub use one bar per Xet download, not two.
        """

    def set_transfer_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        """Xet's network rate: ignored (see `update_transfer`)."""

    def close(self) -> None:
        if id(self) in HubDownloadLog.running:
            HubDownloadLog.running.discard(id(self))
            if not self.disable:
                self._log_end()
        super().close()

    def _log_progress(self) -> None:
        done = self.n / _MB
        rate = self._rate()
        if self.total:
            _LOGGER.info(
                "Downloading %s: %d%% (%.1f of %.1f MB, %.1f MB/s)",
                self.file_name,
                min(100, int(100 * self.n / self.total)),
                done,
                self.total / _MB,
                rate,
            )
        else:
            _LOGGER.info("Downloading %s: %.1f MB (%.1f MB/s)", self.file_name, done, rate)

    def _log_end(self) -> None:
        elapsed = time.monotonic() - self._started
        if self.total and self.n < self.total:
            _LOGGER.warning(
                "Download of %s stopped at %.1f of %.1f MB after %.1f s",
                self.file_name,
                self.n / _MB,
                self.total / _MB,
                elapsed,
            )
        else:
            _LOGGER.info(
                "Downloaded %s: %.1f MB in %.1f s (%.1f MB/s)",
                self.file_name,
                self.n / _MB,
                elapsed,
                self._rate(),
            )

    def _rate(self) -> float:
        elapsed = time.monotonic() - self._started
        return (self.n - self.initial) / _MB / elapsed if elapsed > 0 else 0.0


def log_hub_downloads(interval: float = PROGRESS_INTERVAL) -> None:
    """Make every later `huggingface_hub` file download log its progress, and its warnings
    (a retry's, say) appear once, through this process's handlers, not also bare through the
    hub's own (idempotent)."""
    HubDownloadLog.interval = interval
    importlib.import_module("huggingface_hub.utils.logging")  # which adds the hub's handler
    logging.getLogger("huggingface_hub").handlers.clear()
    for name in _HUB_MODULES:
        module: Any
        try:
            module = importlib.import_module(name)
        except ImportError:
            module = None
        if module is None or not hasattr(module, "tqdm"):
            _LOGGER.warning("Hugging Face downloads will not log progress (no %s.tqdm)", name)
            continue
        module.tqdm = HubDownloadLog


def _display_name(desc: str) -> str:
    """The file name the hub gives its bar, readable: a URL's tail becomes its last part."""
    name = desc.removesuffix(": reconstructing file").strip()
    if name.startswith("(…)"):  # the last 40 characters of a URL
        name = name.rsplit("/", 1)[-1].removeprefix("(…)")
    return name.replace("(…)", "…") or "a file"


def _size(total: float | None) -> str:
    return f"{total / _MB:.1f} MB" if total else "size unknown"


def hub_file(url: str, cached_only: bool = False) -> Path:
    """A local copy of `url`, as pocket-tts's `download_if_necessary` makes one: `hf://owner/
    repo/path[@revision]` through the hub's cache (logged by `log_hub_downloads`), `https://`
    into `~/.cache/pocket_tts/` (its name the URL's sha256), anything else a local path. With
    `cached_only`, a copy already here or the error of its absence, never a download."""
    if url.startswith("hf://"):
        from huggingface_hub import hf_hub_download

        owner, repo, rest = url.removeprefix("hf://").split("/", 2)
        filename, _, revision = rest.partition("@")
        return Path(
            hf_hub_download(
                f"{owner}/{repo}", filename, revision=revision or None,
                local_files_only=cached_only,
            )
        )  # fmt: skip
    if url.startswith(("http://", "https://")):
        folder = Path.home() / ".cache" / "pocket_tts"
        suffix = Path(urllib.parse.urlparse(url).path).suffix
        cached = folder / f"{hashlib.sha256(url.encode()).hexdigest()}{suffix}"
        if not cached.is_file() and cached_only:
            raise FileNotFoundError(f"{url} is not downloaded")
        if not cached.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            with urllib.request.urlopen(url, timeout=60) as answer, new_file(cached) as temporary:
                temporary.write_bytes(answer.read())
        return cached
    return Path(url)


def download_again(url: str, why: str) -> Path | None:
    """`url`'s file downloaded anew where it is an `hf://` file, saying `why` in one warning:
    its copy in the hub's cache is removed first, the snapshot's entry and the blob it links
    to (the hub's `force_download` keeps an entry that is a copy, not a link). None for
    anything else: a local path is the operator's own file, never removed."""
    if not url.startswith("hf://"):
        return None
    _LOGGER.warning("Downloading %s again: %s", url, why)
    entry = hub_file(url, cached_only=True)
    if entry.is_symlink():
        (entry.parent / os.readlink(entry)).unlink(missing_ok=True)
    entry.unlink(missing_ok=True)
    return hub_file(url)
