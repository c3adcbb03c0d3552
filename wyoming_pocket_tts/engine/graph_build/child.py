"""The child that makes a model's graphs: `python -m wyoming_pocket_tts.engine.graph_build.child
FOLDER [--int8]`, started by `children.graphs.ExportProcess`.

The graphs are built from the checkpoint (`folder.build`: numpy and onnx, a few seconds and
some hundred MiB at full size), or, for a config whose weights come apart
(`model_files.SplitWeights`), exported from torch's model: `torch.onnx.export` traces with
torch.fx, which patches `torch.nn.Module.__call__` for the whole process while it runs (a
request served meanwhile failed inside fx), holds the GIL for tens of seconds and leaves its
peak with the process; hence a process of its own for both.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ...settings import ModelSettings
from ..children.process import add_model_args, child_main, fail

if TYPE_CHECKING:
    from ..model_files import Sources
    from ..onnx.graphs import Graphs

_LOGGER = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    """The child: nice 19 (unless the server waits for it: `SERVER_PRIORITY`) and the first to
    go when memory runs out, then the export; 0, or 1 with a one-line reason.

    The graphs, fp32 and int8, are built from the checkpoint (`graph_build`, no torch); only a
    config with split weights is exported from a model loaded here in torch, emptied stage by
    stage (`onnx.export`). Its int8 graphs come from their files by ONNX Runtime's quantiser,
    after the process that imported torch has replaced itself (`INT8_ONLY`, the same pid) with
    one that never does: torch, pocket-tts and what the export left in the heap would stay
    resident under the quantiser's peak otherwise."""
    parser = argparse.ArgumentParser(description="Export a model's ONNX graphs into FOLDER.")
    parser.add_argument("folder", type=Path)
    add_model_args(parser)
    parser.add_argument("--int8", action="store_true", help="the int8 graphs too")
    parser.add_argument(INT8_ONLY, action="store_true", help="only the int8 graphs, from fp32")
    arguments = sys.argv[1:] if argv is None else argv
    args = child_main(parser, arguments)
    try:
        from ..onnx.cache import prepare_int8

        if args.int8_only:
            prepare_int8(args.folder)
            _note_peak("the int8 graphs")
            return 0
        if not _built(ModelSettings(model=args.model, config=args.config), args.folder, args.int8):
            if "torch" in sys.modules:  # the same pid, without torch
                sys.stderr.flush()
                module = __spec__.name if __spec__ is not None else __name__  # not "__main__"
                os.execv(sys.executable, [sys.executable, "-m", module, *arguments, INT8_ONLY])
            prepare_int8(args.folder)
            _note_peak("the int8 graphs")
    except Exception as error:  # the reason, as the last line of stderr
        return fail(error)
    return 0


INT8_ONLY = "--int8-only"


def _built(settings: ModelSettings, folder: Path, int8: bool) -> bool:
    """Build what `folder` lacks from the checkpoint (`graph_build`, no torch): the fp32 graphs,
    and for `int8` the int8 ones, measured against fp32 (`onnx.cache.judge_int8`); True when
    done. False for a config that gives its weights apart (`SplitWeights`): its fp32 graphs are
    exported from torch's model here, and the int8 ones are left to `onnx.quantize`."""
    from ..model_files import SplitWeights, sources
    from ..onnx.cache import exported_graphs, judge_int8
    from ..onnx.graphs import refused

    try:
        found = sources(settings)
    except SplitWeights as error:
        _LOGGER.warning("%s: exporting from torch", error)
        if exported_graphs(folder) is None:
            _export_fp32(settings, folder)
        return not int8
    _note_peak("fetching the checkpoint")
    graphs = exported_graphs(folder)
    if graphs is not None and (not int8 or graphs.has_int8 or refused(folder) is not None):
        return True
    graphs = _from_checkpoint(found, folder, graphs is None, int8)
    _note_peak("the int8 graphs" if int8 else "the fp32 graphs")
    if int8:
        judge_int8(graphs)
        _note_peak("measuring the int8 graphs")
    return True


def _from_checkpoint(found: Sources, folder: Path, whole: bool, int8: bool) -> Graphs:
    """The graphs built from `found`'s checkpoint: the `whole` folder (with the int8 ones for
    `int8`), or the int8 ones beside the rest. A checkpoint from the hub found cut short
    (`CheckpointCut`) is downloaded again, once, and built from; a local one is the operator's
    file, left as it is."""
    from ...downloads import download_again
    from .checkpoint import CheckpointCut
    from .folder import add_int8, build

    def build_from(checkpoint: Path) -> Graphs:
        if not whole:
            return add_int8(checkpoint, found.config, folder)
        return build(
            checkpoint, found.config, folder,
            tokenizer=found.tokenizer, voice_cloning=found.voice_cloning, int8=int8,
        )  # fmt: skip

    try:
        return build_from(found.checkpoint)
    except CheckpointCut as error:
        checkpoint = download_again(found.weights, str(error))
        if checkpoint is None:
            raise
        try:
            return build_from(checkpoint)
        except CheckpointCut as again:
            raise CheckpointCut(f"{again}, though downloaded again from {found.weights}") from None


def _export_fp32(settings: ModelSettings, folder: Path) -> None:
    from ..model.loading import plain_model
    from ..model.one_copy import one_copy_of_weights
    from ..onnx.cache import prepare_graphs

    with one_copy_of_weights():  # one copy of the weights, not two
        model = plain_model(settings, False)
    _note_peak("loading the model")
    prepare_graphs(model, folder, False)
    _note_peak("the fp32 graphs")


def _note_peak(stage: str) -> None:
    """This process's peak resident memory so far (VmHWM), on stderr (logged at debug)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
        kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))
    except (OSError, StopIteration, IndexError):
        return
    print(f"Peak memory after {stage}: {int(kib) / 1024:.0f} MiB", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
