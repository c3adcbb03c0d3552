"""Shared fixtures: tiny random Pocket-TTS models, synthetic voices, and a running server;
and how the suite spreads over the cores (pytest-xdist, see `xdist_groups`)."""

from __future__ import annotations

import gc
import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.model_factory import (
    CACHE_ENV,
    DEFAULT_CACHE_NAME,
    TinyModel,
    build_tiny_model,
    write_voice_wav,
)
from testkit.support import SEED_ENV, ServerProcess
from testkit.zygote import FORK_ENV
from tests.xdist_groups import GroupScheduling, add_quick_option, group_and_order
from wyoming_pocket_tts.engine.tuning import verdict


def pytest_configure(config: pytest.Config) -> None:
    """Server processes fork from a pre-imported zygote (`testkit/zygote.py`): 5-9 s of CPU
    less per start. Set in the environment, so `script/bench --quick` run by a test does too.

    The garbage collector skips what the imports made (`gc.freeze`): every in-process server
    collects at each model load, and a full collection over the 380,000 objects that torch and
    pocket-tts make at import costs 0.3 s; so does each automatic one."""
    os.environ[FORK_ENV] = "1"
    import pocket_tts  # noqa: F401  (torch, scipy and the rest: the bulk of those objects)

    gc.freeze()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    group_and_order(config, items)


@pytest.hookimpl(optionalhook=True)  # unknown when xdist is off (`-p no:xdist`)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> GroupScheduling | None:
    """`--dist loadgroup` (script/test) schedules by the groups of `tests/xdist_groups.py`."""
    return GroupScheduling(config, log) if config.getvalue("dist") == "loadgroup" else None


@pytest.fixture(scope="session", autouse=True)
def shared_model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One model-factory cache for the whole run: each tokenizer and set of random weights is
    built once, also across xdist workers (their base folders share a parent), and then only
    copied. `basetemp/.model_factory_cache`, where tests that name a cache look, is that one."""
    base = tmp_path_factory.getbasetemp()
    folder = base / DEFAULT_CACHE_NAME
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = base.parent / DEFAULT_CACHE_NAME
        shared.mkdir(exist_ok=True)
        if not folder.exists():
            folder.symlink_to(shared, target_is_directory=True)
    folder.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(folder))
        yield folder


@pytest.fixture(scope="session", autouse=True)
def voice_state_seed(shared_model_cache: Path) -> Iterator[Path]:
    """One folder of voice states for the run's server processes (`support.VoiceStateSeed`),
    beside the model cache: shared by the xdist workers, as the models are."""
    folder = shared_model_cache.resolve().parent / "voice-state-seed"
    folder.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SEED_ENV, str(folder))
        yield folder


@pytest.fixture(scope="session", autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """In-process servers save voice states here, never in the user's ~/.cache, and see no
    Hugging Face or Supervisor setting of the user's (subprocesses get `isolated_env`)."""
    folder = tmp_path_factory.mktemp("xdg-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        patch.setenv("HF_HOME", str(folder / "huggingface"))
        patch.setenv("HF_HUB_OFFLINE", "1")
        for name in ("HF_TOKEN", "SUPERVISOR_TOKEN"):
            patch.setenv(name, "")  # recorded, so that the end of the session restores it
            patch.delenv(name)
        yield folder


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    """english_2m-shaped random model whose speech ends after a few frames (fast requests).

    At english_2m's full depth: its requests are short, so thinning saves little, and int8
    must move its audio beyond `ANOTHER_VOICE` (test_server; on `slim` only 25% of samples
    move), and the start-up speed test must see more than one chunk of its short speech."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"), eos=True)


@pytest.fixture(scope="session")
def endless_model(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    """english_2m-shaped random model with end-of-speech disabled: audio length grows with the
    text. Thinned to fewer layers (size `slim`, see `FEWER_LAYERS`): the tests that generate
    long texts spend their time here."""
    return build_tiny_model(tmp_path_factory.mktemp("endless-model"), size="slim", eos=False)


@pytest.fixture(scope="session")
def slim_model(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    """`endless_model`'s thinned layers with end-of-speech on: short requests at half the CPU
    of `tiny_model` per frame, for tests whose assertions do not need english_2m's full depth
    (the studio's, the voices', loudness, numbers: 14-31% less CPU for those files here)."""
    return build_tiny_model(tmp_path_factory.mktemp("slim-model"), size="slim", eos=True)


@pytest.fixture(scope="session")
def voices(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two synthetic voice prompts, of one second: every server start encodes its voices, and a
    prompt's encoding costs in proportion to its length (a second is 12 frames of state)."""
    folder = tmp_path_factory.mktemp("voices")
    return {
        "a": write_voice_wav(folder / "a.wav", 1.0, seed=1),
        "b": write_voice_wav(folder / "b.wav", 1.0, seed=2),
    }


def model_args(model: TinyModel, voices: dict[str, Path], *extra: str) -> list[str]:
    """Server flags for a tiny model and the given voices."""
    args = ["--model-config", str(model.config_path)]
    for name, path in voices.items():
        args += ["--voice", f"{name}={path}"]
    return [*args, *extra]


@pytest.fixture(scope="module")
def endless_server(
    endless_model: TinyModel, voices: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """A server on the endless model with voices a and b, shared by a test module."""
    log = tmp_path_factory.mktemp("server") / "server.log"
    args = model_args(endless_model, voices, "--debug", "--max-text-chars", "400")
    with ServerProcess(args, log) as server:
        server.wait_for_log("Ready")
        yield server
        assert server.stop() == 0


def pytest_addoption(parser: pytest.Parser) -> None:
    add_quick_option(parser)
    parser.addoption(
        "--soak-requests",
        type=int,
        default=40,
        help="requests in the soak test (500 for a real soak run)",
    )


@pytest.fixture
def endless_server_factory(
    endless_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> Iterator[Callable[[], ServerProcess]]:
    """Start a private server on the endless model (for tests that stop or kill it)."""
    started: list[ServerProcess] = []

    def start() -> ServerProcess:
        server = ServerProcess(model_args(endless_model, voices), tmp_path / f"{len(started)}.log")
        started.append(server)
        server.wait_for_log("Ready")
        return server

    yield start
    for server in started:
        server.__exit__()


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Torch's process-wide thread count at 1 for a test, put back afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def slow_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """The speed verdict finds every measured host too slow and warns, as it may on a host
    loaded by the suite's other workers: a test that reads the server's warnings holds beside it."""
    monkeypatch.setattr(verdict, "SLOW_RTF", math.inf)
