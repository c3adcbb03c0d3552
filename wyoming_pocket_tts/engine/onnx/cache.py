"""`--runtime onnx`: the model served on ONNX graphs, made once on this host.

The graphs are built from the checkpoint at the first start (`children.graphs`, `graph_build`), and
kept under `<data dir>/graphs/`, keyed by the model's identity and the versions of onnx and
onnxruntime (and `GRAPHS_VERSION`, of the code that makes them): a change in any of them makes
them again. The log says how long it took. Without a data folder the graphs are made in a
temporary folder at every start (ONNX Runtime keeps them in memory). `prepare_graphs` exports a
torch model into a folder (configs with split weights only); it runs in the child
(`graph_build.child`), never in the process that serves.

Anything that fails on the way (onnxruntime or onnx missing, a build or a session that fails, a
cached graph that does not load) is one warning line, and the model serves on torch where it is
installed (`lean_model` never lets such a server fail to start over it); without torch the model
cannot load, and that line says why (`onnx.first_build`).
"""

from __future__ import annotations

import logging
import shutil
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ...files import key_name
from ...host import installed_version
from ...settings import ModelSettings
from ..identity import model_identity
from ..runtime import RuntimeKind
from .graphs import REFUSED, refused

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pocket_tts import TTSModel

    from .graphs import Graphs
    from .lean import LeanModel

_LOGGER = logging.getLogger(__name__)

GRAPHS_VERSION = 9
"""Of the code that makes the graphs (`graph_build`; `onnx.export`, `onnx.attention` for split
weights) and the layers `onnx.quantize` takes: a change makes them again (6: the flow head's
modulations in int8; 7: unsigned int8 weights, the same sums on every CPU, and `int8_gate`;
8: built from the checkpoint, with the voice encoder; 9: the voice encoder in chunks of
`graph_build.encoder.CHUNK_FRAMES`)."""
_FOLDER = "graphs"
_PACKAGES = ("onnx", "onnxruntime")
"""Whose versions the graphs are keyed by besides the model's identity (torch's and
pocket-tts's make no graph now)."""
FAILED = "failed.txt"
"""In a graph folder instead of the graphs: why exporting or loading them failed here."""
TEMPORARY_PREFIX = "pocket-tts-graphs-"
"""Of the temporary folder graphs are exported into without a data folder."""


class _QuietExport(logging.Filter):
    """Drops ONNX Runtime's quantiser's notes to its authors, which it logs on the root logger
    ('consider pre-processing', a line per tensor): one start line says how the export went."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "onnxruntime" not in record.pathname


def graph_key(settings: ModelSettings) -> dict[str, str]:
    """Everything the exported graphs depend on; a change in any of it exports again."""
    key = {"model": model_identity(replace(settings, quantize=False))}
    key["graphs"] = str(GRAPHS_VERSION)
    key |= {package: installed_version(package) for package in _PACKAGES}
    return key


def graph_folder(data_dir: Path, settings: ModelSettings) -> Path:
    """Where the graphs of `settings`' model are cached under `data_dir`."""
    return data_dir / _FOLDER / key_name(graph_key(settings))


def needs_export(settings: ModelSettings, data_dir: Path | None, int8: bool) -> bool:
    """True if no graphs (of the precision asked) are cached, nor a failure remembered: loading
    them would export first (minutes at full size: `onnx.background` does it in the background)."""
    from .graphs import Graphs

    if data_dir is None:
        return True
    folder = graph_folder(data_dir, settings)
    if (folder / FAILED).is_file():
        return False
    try:
        graphs = Graphs.read(folder)
    except (OSError, ValueError, KeyError, TypeError):
        return True
    return int8 and not graphs.has_int8 and refused(folder) is None


def warn_torch(code: str, error: BaseException) -> None:
    """The one warning line of a model that cannot run on ONNX Runtime (torch serves it, where
    installed)."""
    then = "it runs on torch" if RuntimeKind.TORCH.installed else "and torch is not installed"
    _LOGGER.warning(
        "ONNX Runtime cannot run the %s model, %s: %s: %s", code, then, type(error).__name__, error
    )


def graphs_label(int8: bool) -> str:
    """What runs on the graphs, in words ("onnx int8")."""
    return f"onnx {'int8' if int8 else 'fp32'}"


def lean_model(settings: ModelSettings, folder: Path, int8: bool, threads: int) -> LeanModel | None:
    """The model on its graphs in `folder` alone (`onnx.lean`: no torch needed), or None when
    it cannot run so (one warning line says why). The graphs are never exported in this
    process (`children.graphs` does that). A failure other than a missing onnxruntime is remembered
    in `folder` for these versions (`FAILED`), so later starts skip it. int8 that the gate
    refused on this host (`int8_gate`) runs as fp32, with a warning line and
    `LeanModel.int8_refused` saying why."""
    from .lean import LeanModel

    try:
        import onnxruntime  # noqa: F401

        _raise_remembered(folder)
        refusal = refused(folder) if int8 else None
        if refusal is not None:
            _LOGGER.warning("The %s model's %s", settings.code, refusal)
        _exported_graphs(folder, int8 and refusal is None)
        model = LeanModel(folder, settings, int8 and refusal is None, threads)
        model.int8_refused = refusal
        return model
    except Exception as error:  # any failure: torch serves
        warn_torch(settings.code, error)
        if not isinstance(error, ImportError):
            remember_failure(folder, error)
        return None


def _raise_remembered(folder: Path) -> None:
    """Raise the failure remembered in `folder` (`FAILED`), if any."""
    if (folder / FAILED).is_file():
        reason = (folder / FAILED).read_text(encoding="utf-8").strip()
        raise RuntimeError(f"{reason} (before; --retry-graphs tries again)")


def _exported_graphs(folder: Path, int8: bool) -> Graphs:
    from .graphs import Graphs

    graphs = Graphs.read(folder)
    if int8 and not graphs.has_int8:
        raise FileNotFoundError(f"the export left no int8 graphs in {folder}")
    return graphs


def remember_failure(folder: Path, error: BaseException) -> None:
    """Write why the graphs failed here into their `folder` (`FAILED`), in place of them."""
    try:
        if not (folder / FAILED).is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True, exist_ok=True)
            reason = f"{type(error).__name__}: {error}"
            (folder / FAILED).write_text(reason + "\n", encoding="utf-8")
    except OSError as problem:
        _LOGGER.debug("Cannot remember the failure in %s: %s", folder, problem)


def forget_failures(data_dir: Path) -> list[Path]:
    """Delete every failure remembered under `data_dir` (`--retry-graphs`), so that the next
    load of each model exports its graphs again, and every int8 refusal, so that its int8 is
    made and measured again; the folders forgotten."""
    graphs = data_dir / _FOLDER
    folders = sorted(path.parent for path in graphs.glob(f"*/{FAILED}"))
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    for refusal in sorted(graphs.glob(f"*/{REFUSED}")):
        refusal.unlink(missing_ok=True)
        folders.append(refusal.parent)
    return folders


def prepare_graphs(model: TTSModel, folder: Path, int8: bool) -> Graphs:
    """The graphs in `folder`, exported from `model` (and for `int8` quantised) now where they
    are not. Exporting empties `model` stage by stage (`onnx.export.export`) and traces it with
    torch.fx, which patches every module's call in the process: only for a process that serves
    nothing (`graph_build.child`; quantising alone traces nothing, `prepare_int8`)."""
    started, cpu = time.monotonic(), time.process_time()
    graphs = exported_graphs(folder)
    if graphs is not None and (not int8 or graphs.has_int8 or refused(folder)):
        return graphs
    with _quiet_export():
        if graphs is None:
            _LOGGER.info("Exporting the model's graphs for ONNX Runtime (once; takes a while)")
            graphs = _export(model, folder)
        del model  # what is left of it: the int8 step needs none of it
        if int8:
            _with_int8(graphs)
    _log_export(folder, int8, started, cpu)
    return graphs


def prepare_int8(folder: Path) -> Graphs:
    """The int8 graphs made beside the fp32 ones already in `folder` (where missing); no torch."""
    started, cpu = time.monotonic(), time.process_time()
    graphs = exported_graphs(folder)
    if graphs is None:
        raise FileNotFoundError(f"no fp32 graphs to quantise in {folder}")
    if not graphs.has_int8 and refused(folder) is None:
        with _quiet_export():
            _with_int8(graphs)
        _log_export(folder, True, started, cpu)
    return graphs


def exported_graphs(folder: Path) -> Graphs | None:
    """The graphs exported into `folder`, or None where there are none (or a partial export)."""
    from .graphs import Graphs

    try:
        return Graphs.read(folder)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _with_int8(graphs: Graphs) -> None:
    """The int8 graphs made by ONNX Runtime's quantiser from the fp32 files, then judged."""
    from .quantize import with_int8

    (graphs.folder / REFUSED).unlink(missing_ok=True)
    with_int8(graphs)
    judge_int8(graphs)


def judge_int8(graphs: Graphs) -> None:
    """Measure the int8 graphs just made against the fp32 ones (`int8_gate`): past its bound
    they are removed and the refusal written in their place."""
    from .int8_gate import check

    drift = check(graphs)
    _LOGGER.info("The int8 graphs against the fp32 ones on this CPU: %s", drift)


def _log_export(folder: Path, int8: bool, started: float, cpu: float) -> None:
    size = sum(path.stat().st_size for path in folder.iterdir()) / 2**20
    _LOGGER.info(
        "Exported the graphs%s in %.1f s (%.1f s CPU), %.0f MiB in %s",
        " (int8 too)" if int8 else "",
        time.monotonic() - started,
        time.process_time() - cpu,
        size,
        folder,
    )


def _export(model: TTSModel, folder: Path) -> Graphs:
    """Export `model` into `folder` (a partial export is removed)."""
    from .attention import use_exportable_attention
    from .export import export

    use_exportable_attention(model)
    shutil.rmtree(folder, ignore_errors=True)
    try:
        return export(model, folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


@contextmanager
def _quiet_export() -> Iterator[None]:
    """Without the exporter's and quantiser's notes to their authors (`_QuietExport`)."""
    quiet, root = _QuietExport(), logging.getLogger()
    registration = logging.getLogger("torch.onnx._internal.exporter._registration")
    level = registration.level
    root.addFilter(quiet)
    registration.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.removeFilter(quiet)
        registration.setLevel(level)
