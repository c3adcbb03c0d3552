"""The conditions every heavy child runs under (`engine.children.process`), held while it works:
nice 19 (the server's own priority for the first build without torch, which the server waits
for), first in line for the out-of-memory killer (`oom_score_adj` 1000), and an exit as
soon as its server goes (its stdin closes). The graph build of 0.10 ends within a second or
two at the test models' size, before a sample could see it, so each child here is held at its
first read: its input is a named pipe no one writes (the checkpoint for the build, the prompt
for a voice's encoding). The children are the real programs, started as the server starts them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from testkit.model_factory import TinyModel
from testkit.support import children_of
from wyoming_pocket_tts.engine.children import voice as voice_child
from wyoming_pocket_tts.engine.children.graphs import CHILD as BUILD_CHILD
from wyoming_pocket_tts.engine.children.process import child_env
from wyoming_pocket_tts.engine.onnx.first_build import GraphsUnavailable, graphs_now
from wyoming_pocket_tts.settings import ModelSettings

pytestmark = pytest.mark.timeout(180)


def conditions(pid: int) -> tuple[int, int]:
    """A process's nice value (field 19 of /proc/PID/stat) and its `oom_score_adj`."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[16]), int(Path(f"/proc/{pid}/oom_score_adj").read_text())


def held_then_ended(command: list[str]) -> tuple[int, int]:
    """Start `command` as the server starts a child, wait (up to 60 s, by its own progress)
    until it has set its conditions, check it is still at work, then close its stdin as a
    server that dies does; the conditions seen. The child must exit within 30 s of that."""
    child = subprocess.Popen(command, stdin=subprocess.PIPE, env=child_env())
    assert child.stdin is not None
    try:
        deadline = time.monotonic() + 60
        seen = conditions(child.pid)
        while seen != (19, 1000) and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
            seen = conditions(child.pid)
        assert child.poll() is None, "the child ended before its input arrived"
        child.stdin.close()  # the server is gone
        assert child.wait(30) != 0
        return seen
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def fifo_model(model: TinyModel, folder: Path) -> Path:
    """A config of `model` whose checkpoint is a named pipe no one writes."""
    folder.mkdir()
    weights = folder / "model.safetensors"
    os.mkfifo(weights)
    config = folder / "config.yaml"
    text = model.config_path.read_text().replace(str(model.weights_path), str(weights))
    config.write_text(text)
    return config


def test_the_graph_build_runs_last_in_line_first_to_go_and_ends_with_its_server(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    config = fifo_model(slim_model, tmp_path / "model")
    command = [sys.executable, "-m", BUILD_CHILD, str(tmp_path / "graphs"), "--config", str(config)]
    assert held_then_ended(command) == (19, 1000)


def test_a_voice_encoding_runs_last_in_line_first_to_go_and_ends_with_its_server(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    prompt = tmp_path / "voice.wav"
    os.mkfifo(prompt)
    command = [sys.executable, "-m", voice_child.__name__, "--config", str(slim_model.config_path)]
    command += ["--source", str(prompt), "--out", str(tmp_path / "state.safetensors")]
    assert held_then_ended(command) == (19, 1000)


def test_the_first_build_without_torch_keeps_the_server_s_priority(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    """The build a start without torch waits for, with nothing else to speak meanwhile
    (`first_build.graphs_now`, as the engine calls it): its child runs at this process's own
    priority, not nice 19, which on a host kept busy by others would leave it a sliver of a
    core; it is still first in line for the out-of-memory killer. Held at its checkpoint's
    read, then killed: the start says the graphs could not be built."""
    config = fifo_model(slim_model, tmp_path / "model")
    settings = ModelSettings(model=None, config=str(config))
    own = os.getpriority(os.PRIO_PROCESS, 0)
    with ThreadPoolExecutor(1) as pool:
        build = pool.submit(graphs_now, settings, tmp_path / "data", False, 1)
        deadline, pid, seen = time.monotonic() + 60, 0, (0, 0)
        while seen[1] != 1000 and not build.done() and time.monotonic() < deadline:
            time.sleep(0.02)
            pid = pid or build_child_of(os.getpid())
            seen = conditions(pid) if pid else seen
        assert pid and not build.done(), "no build child held at its read"
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(GraphsUnavailable, match="killed by SIGKILL"):
            build.result(60)
    assert seen == (own, 1000)
    assert own != 19, "this test runs at nice 19: it cannot tell the two apart"


def build_child_of(parent: int) -> int:
    """The pid of `parent`'s graph-build child, else 0."""
    for child in children_of(parent):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        if BUILD_CHILD.encode() in command:
            return child
    return 0
