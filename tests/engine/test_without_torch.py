"""A server where torch and pocket-tts are not installed (`pip install .` without the `[torch]`
extra): the first start builds the graphs from the checkpoint, clones a voice with the graphs'
own encoder and speaks as pocket-tts does; `--runtime torch` is refused with the extra's name. A
checkpoint cut short in the hub's cache is downloaded again, once; a local one is left alone.

The fakes: this venv holds torch and pocket-tts for the equivalence tests, so they are hidden
from the import system (`testkit.without_torch`: the server and every child it starts find
neither, as in a venv without them); the Hugging Face hub cannot be reached, so `FakeHub`
(tests/server/test_downloads.py), a local HTTP server, answers the hub's client as it does.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import safetensors.numpy
from huggingface_hub import hf_hub_download

from testkit.model_factory import TinyModel, build_hf_cache
from testkit.support import ServerProcess, refusing_port
from testkit.without_torch import hidden_env
from testkit.zygote import FORK_ENV
from tests.conftest import model_args
from tests.server.test_downloads import FakeHub
from tests.server.test_offline_start import QUICK_RETRIES, WAITING
from wyoming_pocket_tts.engine.children.graphs import ExportFailed, ExportProcess
from wyoming_pocket_tts.engine.onnx.cache import FAILED, graph_folder, remember_failure
from wyoming_pocket_tts.engine.onnx.graphs import VOICE
from wyoming_pocket_tts.settings import ModelSettings

from .test_lean_serving import reply_audio
from .test_onnx_runtime import pcm_relative

pytestmark = pytest.mark.timeout(300)

TEXT = "Turn on the kitchen lights, please."
LANGUAGE = "english_2m_2026-10"
SAME_AUDIO = 1e-3
"""Relative RMS of two 16-bit replies that are the same speech (the state within 3e-6 and the
graphs' audio within 1e-6 of pocket-tts's: `test_voice_encoding`; 16-bit rounding beside)."""


@pytest.fixture
def hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str | None]:
    """The environment of a process without torch and pocket-tts (fresh interpreters: the
    zygote has torch imported)."""
    monkeypatch.delenv(FORK_ENV, raising=False)
    return hidden_env(tmp_path / "hide")


def test_runtime_torch_is_refused_naming_the_extra(
    slim_model: TinyModel, hidden: dict[str, str]
) -> None:
    env = {**os.environ, **hidden}
    command = [sys.executable, "-m", "wyoming_pocket_tts", "--runtime", "torch"]
    command += ["--model-config", str(slim_model.config_path)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert "--runtime torch: torch is not installed" in done.stderr, done.stderr
    assert "pip install 'wyoming-pocket-tts[torch]'" in done.stderr, done.stderr
    found = subprocess.run(
        [sys.executable, "-c", "import importlib.util as u; print(u.find_spec('torch'))"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert found.stdout.strip() == "None", found


def test_a_first_start_without_torch_builds_clones_and_speaks_as_pocket_tts(
    slim_model: TinyModel,
    voices: dict[str, Path],
    hidden: dict[str, str | None],
    tmp_path: Path,
) -> None:
    """`--runtime auto` (the default) with nothing cached: the graphs are built in a child
    before `Ready`, int8 by default, and a request sent at launch gets its audio once they are;
    voice `a` (a wav) is encoded in the server by the graphs' encoder, no child. A second
    start at fp32 on the same cache speaks `a` as a torch server speaks it (the test models
    sample at temperature 0)."""
    data = tmp_path / "data"
    args = [*model_args(slim_model, {"a": voices["a"]}), "--data-dir", str(data)]
    first = [*args, "--runtime", "auto", "--quantize", "auto"]  # the defaults, said
    with ServerProcess(first, tmp_path / "first.log", hidden) as server:
        server.wait_for_log("Listening on")
        sent_at_launch = "Ready" not in server.log
        reply_audio(server, "a")  # waits for the build, then speaks
        server.wait_for_log("Ready")
        assert server.stop() == 0
    log = server.log
    assert sent_at_launch, log  # the request was in before the model could speak
    assert "Building the en model's graphs from its checkpoint" in log, log
    assert "torch is not installed" in log, log
    assert "(onnx int8" in log or "int8 refused on this CPU" in log, log  # the gate decides
    assert "Encoded voice a" in log and "encoding of voice a runs in a separate" not in log, log
    assert list(data.glob(f"graphs/*/{VOICE}")), "the built graphs hold no voice encoder"

    fp32 = [*args, "--runtime", "onnx", "--quantize", "off"]
    with ServerProcess(fp32, tmp_path / "second.log", hidden) as server:
        server.wait_for_log("Ready", timeout=240)
        ours = reply_audio(server, "a", TEXT)
        assert server.stop() == 0
    assert "Building" not in server.log, server.log  # the cache served
    torch_args = [*model_args(slim_model, {"a": voices["a"]}), "--data-dir", str(tmp_path / "t")]
    with ServerProcess(torch_args, tmp_path / "torch.log") as server:  # --runtime torch
        server.wait_for_log("Ready", timeout=240)
        theirs = reply_audio(server, "a", TEXT)
        assert server.stop() == 0
    assert len(ours) == len(theirs)
    assert pcm_relative(ours, theirs) < SAME_AUDIO
    assert np.frombuffer(ours, np.int16).any()


def test_a_build_that_failed_is_tried_again_at_the_next_start(
    slim_model: TinyModel,
    voices: dict[str, Path],
    hidden: dict[str, str | None],
    tmp_path: Path,
) -> None:
    """Without torch nothing else can speak, so a failed build is not kept. A first start on a
    local checkpoint cut short says why, naming the file, leaves the file as it is (the
    operator's own: never downloaded again), writes the failure and stops. A start whose
    graphs' folder holds a failure (here the one a build killed for memory leaves, written by
    the server's own `remember_failure`: a real kill would race a build of a second or two)
    builds again and speaks, without --retry-graphs."""
    model = tmp_path / "model"
    model.mkdir()
    weights = model / "model.safetensors"
    whole = slim_model.weights_path.read_bytes()
    cut = whole[: len(whole) // 2]
    weights.write_bytes(cut)
    config = model / "config.yaml"
    config.write_text(
        slim_model.config_path.read_text().replace(str(slim_model.weights_path), str(weights))
    )
    data = tmp_path / "data"
    args = ["--model-config", str(config), "--voice", f"a={voices['a']}", "--runtime", "auto"]
    args += ["--quantize", "off", "--data-dir", str(data)]
    with ServerProcess(args, tmp_path / "cut.log", hidden) as server:
        server.wait_for_log("Cannot start", timeout=240)
        assert server.stop(timeout=60, signalled=True) == 1  # it stops itself
    assert f"the graphs could not be built: CheckpointCut: {weights}: cut short" in server.log
    assert "downloaded again" not in server.log, server.log
    assert weights.read_bytes() == cut
    assert len(list(data.glob(f"graphs/*/{FAILED}"))) == 1

    weights.write_bytes(whole)
    settings = ModelSettings(model=None, config=str(config), runtime="onnx")
    killed = "the graph build was killed by SIGKILL (out of memory?)"
    remember_failure(graph_folder(data, settings), RuntimeError(killed))
    with ServerProcess(args, tmp_path / "whole.log", hidden) as server:
        server.wait_for_log("Ready", timeout=240)
        assert np.frombuffer(reply_audio(server, "a", TEXT), np.int16).any()
        assert server.stop() == 0
    log = server.log
    assert f"The graphs failed at an earlier start (RuntimeError: {killed})" in log, log
    assert "Building the en model's graphs from its checkpoint" in log, log


REPO = "kyutai/pocket-tts"
"""The repo of `LANGUAGE`'s checkpoint (the weights that clone voices)."""
MODEL = "model.safetensors"
REDOWNLOAD = re.compile(
    r"^[\d-]+ [\d:,]+ WARNING wyoming_pocket_tts\.engine\.children\.process: Process \d+: "
    rf"WARNING wyoming_pocket_tts\.downloads: Downloading hf://{REPO}/languages/{LANGUAGE}/"
    rf"{MODEL}@\w+ again: \S+/{MODEL}: cut short, tensor '[\w.]+' ends past its end$",
    re.MULTILINE,
)
"""The build child's warning, as the server logs it (at warning level, as a household sees)."""


def _snapshots(hf_home: Path) -> Path:
    return hf_home / "hub" / f"models--{REPO.replace('/', '--')}" / "snapshots"


def _hub_checkpoint(hf_home: Path) -> Path:
    """The snapshot's entry of `LANGUAGE`'s checkpoint in `hf_home`'s hub cache."""
    (path,) = _snapshots(hf_home).glob(f"*/languages/{LANGUAGE}/{MODEL}")
    return path


def _checkpoint_gets(hub: FakeHub) -> int:
    """The checkpoint's downloads from `hub`."""
    return sum(r.startswith(f"GET /{REPO}/") and r.endswith(f"/{MODEL}") for r in hub.requests)


@pytest.fixture
def served(tmp_path: Path) -> Path:
    """The hub's files (an HF_HOME laid out by `build_hf_cache`), for `FakeHub` to serve."""
    build_hf_cache(tmp_path / "served", language=LANGUAGE, voices=("alba",))
    return tmp_path / "served"


def _household(served: Path, hub: FakeHub, hf_home: Path, *, links: bool = True) -> Path:
    """An HF_HOME whose hub cache holds `LANGUAGE`'s checkpoint cut short in half (a download
    interrupted, a full disk); its entry: downloaded from `hub` by the hub's own client (a
    snapshot's entry linking to a blob), or with `links=False` a copy, as in a cache where
    symlinks cannot be made."""
    whole = _hub_checkpoint(served)
    commit, *filename = whole.relative_to(_snapshots(served)).parts
    if links:
        entry = Path(
            hf_hub_download(
                REPO, "/".join(filename), revision=commit, endpoint=hub.url,
                cache_dir=hf_home / "hub",
            )
        )  # fmt: skip
        hub.requests.clear()
    else:
        entry = hf_home / whole.relative_to(served)
        entry.parent.mkdir(parents=True)
    assert entry.is_symlink() == links
    entry.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    return entry


def _hub_start(
    hidden: dict[str, str | None], hf_home: Path, hub: FakeHub, tmp_path: Path
) -> tuple[list[str], dict[str, str | None]]:
    """The args and environment of a start that builds `LANGUAGE` from `hf_home`'s hub cache,
    online through `hub`; `--debug` for the build child's lines."""
    env = {**hidden, "HF_HOME": str(hf_home), "HF_HUB_OFFLINE": None, "HF_ENDPOINT": hub.url}
    args = ["--language", LANGUAGE, "--voice", "alba", "--runtime", "auto", "--quantize", "off"]
    return [*args, "--data-dir", str(tmp_path / "data"), "--debug"], env


@pytest.mark.parametrize("links", [True, False], ids=["linked", "copied"])
def test_a_cut_checkpoint_in_the_hub_cache_is_downloaded_again_and_served(
    served: Path, hidden: dict[str, str | None], tmp_path: Path, links: bool
) -> None:
    """The hub (`FakeHub`: a local HTTP server answering as the hub does) serves the whole
    checkpoint. The build child finds the cached copy cut short, says so in one warning,
    removes it, downloads it once, builds, and the server speaks; the cache then holds the
    whole file, as the hub lays it out (the entry a link to its blob)."""
    with FakeHub(served / "hub").running() as hub:
        entry = _household(served, hub, tmp_path / "hf", links=links)
        args, env = _hub_start(hidden, tmp_path / "hf", hub, tmp_path)
        with ServerProcess(args, tmp_path / "server.log", env) as server:
            server.wait_for_log("Ready", timeout=240)
            assert np.frombuffer(reply_audio(server, "alba", TEXT), np.int16).any()
            assert server.stop() == 0
    log = server.log
    assert len(REDOWNLOAD.findall(log)) == 1, log
    assert _checkpoint_gets(hub) == 1, hub.requests
    assert entry.is_symlink() and entry.read_bytes() == _hub_checkpoint(served).read_bytes()


def test_a_checkpoint_cut_again_after_its_download_is_a_clear_error(
    served: Path, hidden: dict[str, str | None], tmp_path: Path
) -> None:
    """The hub serves the checkpoint cut short too: downloaded again once, not in a loop, then
    the start stops (exit 1) with the file named and the download said."""
    with FakeHub(served / "hub").running() as hub:
        entry = _household(served, hub, tmp_path / "hf")
        shutil.copyfile(entry, _hub_checkpoint(served))
        args, env = _hub_start(hidden, tmp_path / "hf", hub, tmp_path)
        with ServerProcess(args, tmp_path / "server.log", env) as server:
            server.wait_for_log("Cannot start", timeout=240)
            assert server.stop(timeout=60, signalled=True) == 1  # it stops itself
    log = server.log
    (line,) = [line for line in log.splitlines() if "Cannot start" in line]
    assert f"could not be built: CheckpointCut: {entry}: cut short, tensor" in line, line
    assert f"though downloaded again from hf://{REPO}/languages/{LANGUAGE}/{MODEL}@" in line
    assert len(REDOWNLOAD.findall(log)) == 1, log
    assert _checkpoint_gets(hub) == 1, hub.requests


def test_a_checkpoint_that_lacks_a_tensor_is_not_downloaded_again(
    served: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole file without a tensor the config needs: no download mends the model, so the
    build child (run as the server runs it, `ExportProcess`) fails naming the tensor and fetches
    nothing, though the hub serves a good file."""
    tensors = safetensors.numpy.load_file(_hub_checkpoint(served))
    del tensors["flow_lm.emb_mean"]
    with FakeHub(served / "hub").running() as hub:
        entry = _household(served, hub, tmp_path / "hf")
        safetensors.numpy.save_file(tensors, entry)
        monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        settings = ModelSettings(model=LANGUAGE, config=None)
        with pytest.raises(ExportFailed, match=r"no tensor 'flow_lm\.emb_mean'"):
            ExportProcess(settings, int8=False).run(tmp_path / "graphs")
    assert _checkpoint_gets(hub) == 0, hub.requests
    assert safetensors.numpy.load_file(entry).keys() == tensors.keys()


def test_no_network_waits_for_the_cloning_weights_alone_and_logs_each_retry_once(
    hidden: dict[str, str | None], tmp_path: Path
) -> None:
    """Up to ~40 s (the hub retries a refused connection itself): a first start without torch
    whose hub mirror refuses. A missing network is waited out, not answered by fetching the
    weights without cloning (which would double the wait, then serve without cloning); the
    hub's retry warnings reach the log once, formatted, not also bare."""
    with refusing_port() as port:
        env = {**hidden, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": None}
        env["HF_ENDPOINT"] = f"http://127.0.0.1:{port}"
        args = ["--language", LANGUAGE, "--runtime", "auto"]
        args += ["--data-dir", str(tmp_path / "data")]
        with ServerProcess(args, tmp_path / "server.log", env, prelude=QUICK_RETRIES) as server:
            server.wait_for_log(WAITING, timeout=240)
            assert server.stop() == 0
    log = server.log
    assert "Retrying in" in log, log  # the hub's own retries ran
    lines = log.splitlines()
    assert not [line for line in lines if line.startswith(("Retrying in", "'"))], log
    assert "without-voice-cloning" not in log and "cannot be fetched" not in log, log
    waits = [line for line in lines if "Waiting for the network" in line]
    assert waits and all("Connection refused" in line for line in waits), log  # the cause


def test_offline_the_weights_without_cloning_already_here_are_built_from(tmp_path: Path) -> None:
    """The graphs built again offline (after an update) for a household without the gated
    weights: the cloning weights' absence is a missing network, yet the weights without cloning
    already in the cache are taken, not waited for. `model_files.sources` in a fresh process
    (the hub reads HF_HOME when imported)."""
    build_hf_cache(tmp_path / "hf", language=LANGUAGE, voices=("alba",), voice_cloning=False)
    script = (
        "from wyoming_pocket_tts.engine.model_files import sources\n"
        "from wyoming_pocket_tts.settings import ModelSettings\n"
        f"found = sources(ModelSettings(model={LANGUAGE!r}, config=None))\n"
        "print(found.voice_cloning, found.checkpoint)\n"
    )
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    cloning, checkpoint = done.stdout.split()
    assert cloning == "False" and "without-voice-cloning" in checkpoint, done.stdout
