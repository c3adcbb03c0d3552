"""The graphs made at a start with no torch installed: fetched, built, then served.

Without torch nothing else can speak while the graphs are made, and they take seconds
(`graph_build`), so the start waits for them, as it waits for a download. The checkpoint and
tokenizer are fetched here first (`model_files.sources`), on the caller's thread, so that a missing
network is the caller's usual error (waited out and tried again: `engine.serving`), never a child's
failure remembered with the cache. The build itself runs in the child (`children.graphs` starts
`graph_build.child`: its peak goes with it), one heavy child at a time (`children.process.QUEUE`),
at the server's priority: nice 19 would leave the household's first sound to whatever else keeps the
host busy, for nothing, since nothing else speaks meanwhile. A failure is written into the cache
folder, as where torch serves, but with nothing else to speak it is not kept past the next start:
that start builds again (a build the kernel killed for memory another process held, say, may succeed
then). Graphs built from the weights without voice cloning (no Hugging Face token at that start) are
built again once a token is set and the weights that clone voices can be fetched: the key of the
cache names the model, not which of its two checkpoints was had.
"""

from __future__ import annotations

import atexit
import logging
import shutil
import tempfile
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ...settings import ModelSettings
from ..children.graphs import ExportProcess
from ..children.process import QUEUE
from .cache import FAILED, TEMPORARY_PREFIX, graph_folder, needs_export, remember_failure
from .graphs import SPEECH
from .loop_settings import LoopSettings

if TYPE_CHECKING:
    from .lean import LeanModel

_LOGGER = logging.getLogger(__name__)


class GraphsUnavailable(RuntimeError):
    """The graphs could not be made or do not run here, and no other runtime is installed."""


def graphs_now(
    settings: ModelSettings, data_dir: Path | None, int8: bool, threads: int
) -> LeanModel:
    """The model on its graphs, built first where none are cached (`GraphsUnavailable` with
    the reason if that fails; the hub's own errors while fetching)."""
    from ..model_files import sources
    from .cache import lean_model

    if data_dir is None:  # kept to the end: the voice encoder loads from it when first used
        folder = Path(tempfile.mkdtemp(prefix=TEMPORARY_PREFIX))
        atexit.register(partial(shutil.rmtree, folder, ignore_errors=True))
    else:
        folder = graph_folder(data_dir, settings)
        _forget_a_failure(folder)
        _forget_graphs_that_cannot_clone(settings, folder)
    if needs_export(settings, data_dir, int8):
        sources(settings)  # fetched here: see the module
        _LOGGER.info("Building the %s model's graphs from its checkpoint (once)", settings.code)
        with QUEUE:
            try:
                ExportProcess(settings, int8, lowest=False).run(folder)  # see the module
            except Exception as error:
                if data_dir is not None:
                    remember_failure(folder, error)
                raise GraphsUnavailable(f"the graphs could not be built: {error}") from None
    model = lean_model(settings, folder, int8, threads)
    if model is None:
        raise GraphsUnavailable("the graphs do not run here (the warning above says why)")
    return model


def _forget_a_failure(folder: Path) -> None:
    """Delete the graphs' `folder` where it holds a failure of an earlier start (see the
    module), saying so."""
    failed = folder / FAILED
    if failed.is_file():
        reason = failed.read_text(encoding="utf-8").strip()
        _LOGGER.info("The graphs failed at an earlier start (%s): building them again", reason)
        shutil.rmtree(folder, ignore_errors=True)


def _forget_graphs_that_cannot_clone(settings: ModelSettings, folder: Path) -> None:
    """Delete the graphs' `folder` where they were built from the weights without voice cloning
    and those that clone can be fetched now, saying so. They are asked for only where a Hugging
    Face token is set (without one the hub refuses them); where they cannot be had (terms not
    accepted, no network), the graphs serve as they are."""
    from huggingface_hub import get_token

    from ..model_files import sources

    try:
        if LoopSettings.read(folder / SPEECH).voice_cloning or not get_token():
            return
    except (OSError, KeyError, ValueError):
        return  # no graphs yet, or unreadable ones: `needs_export` builds them
    try:
        can_clone = sources(settings).voice_cloning
    except Exception as error:  # the hub's own errors; the graphs here still serve
        _LOGGER.debug("The weights that clone voices cannot be had: %s", error)
        return
    if can_clone:
        _LOGGER.info(
            "The %s model's graphs were built from the weights without voice cloning, and "
            "those that clone voices are here now: building them again",
            settings.code,
        )
        shutil.rmtree(folder, ignore_errors=True)
