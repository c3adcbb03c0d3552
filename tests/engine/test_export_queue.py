"""Graph exports queue (`children.process.QUEUE`): two models (two languages) with graphs pending
export one after the other, never two children at once; an export that is killed (as the kernel
kills a process out of memory) is one warning line, torch serves on, and the next export runs.

The real server in this process with two tiny models (`tiny_model` as en, `slim_model` as fr:
different shapes, so each has a graph folder of its own) and real export children. That the
children never overlap is read from the server's own lines, in the order it logged them: a
child's start (`separate process (pid N)`), logged right after it is started, and its end
(`Built the graphs ... (process N)`, or the warning of a failed one), logged once it has
exited. The out-of-memory kill is SIMULATED by this test sending the child SIGKILL: the
kernel's OOM killer sends that signal, and a 2 GiB limit cannot be set from a test here.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import time
from pathlib import Path

import pytest

from testkit.model_factory import TinyModel
from testkit.support import our_records, running_server, synthesize
from wyoming_pocket_tts.engine.onnx import background as graph_export

START = re.compile(r"separate process \(pid (\d+)\)")
END = re.compile(r"Built the graphs in .* \(process (\d+)\)")
WARNING = "ONNX Runtime cannot run the {code} model, it runs on torch"
ON_GRAPHS = re.compile(r"The (\w+) model now runs on ONNX Runtime")
DEADLINE = 400.0
"""Seconds both exports and switches may take on a busy 2-core host (a bound, not a timing)."""

pytestmark = pytest.mark.usefixtures("slow_verdict")


def two_model_args(
    english: TinyModel, french: TinyModel, voices: dict[str, Path], data: Path
) -> list[str]:
    return [
        "--model-config", f"en={english.config_path}",
        "--model-config", f"fr={french.config_path}",
        "--voice", f"anna={voices['a']}",
        "--voice", f"fr:mamie={voices['b']}",
        "--runtime", "onnx", "--quantize", "off", "--preload",
        "--data-dir", str(data),
    ]  # fmt: skip


def events(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    """The exports' starts and ends, by pid, and the fallback warnings, by model, in log order."""
    found: list[tuple[str, str]] = []
    for record in our_records(caplog.records):
        message = record.getMessage()
        if started := START.search(message):
            found.append(("start", started.group(1)))
        elif ended := END.search(message):
            found.append(("end", ended.group(1)))
        elif record.levelno >= logging.WARNING:
            found.append(("warning", message))
    return found


def on_graphs(caplog: pytest.LogCaptureFixture) -> set[str]:
    """The models that switched to their graphs so far."""
    return {m.group(1) for r in caplog.records if (m := ON_GRAPHS.search(r.getMessage()))}


def test_two_models_export_one_after_the_other(
    tiny_model: TinyModel,
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Both models' graphs are exported, by two children, the second started only after the
    first has exited; both models then run on their graphs."""
    monkeypatch.setattr(graph_export, "POLL", 0.5)
    args = two_model_args(tiny_model, slim_model, voices, tmp_path / "data")

    async def scenario() -> None:
        async with running_server(args) as server:
            deadline = time.monotonic() + DEADLINE
            while on_graphs(caplog) != {"en", "fr"} and time.monotonic() < deadline:
                if any(kind == "warning" for kind, _ in events(caplog)):
                    break
                await asyncio.sleep(0.5)
            reply = await synthesize(server.port or 0, "Bonjour.", voice="mamie")
            assert not reply.errors and reply.audio

    with caplog.at_level(logging.INFO):
        asyncio.run(scenario())
    found = events(caplog)
    assert [kind for kind, _ in found] == ["start", "end", "start", "end"], found
    first, second = found[0][1], found[2][1]
    assert found[1][1] == first and found[3][1] == second and first != second, found
    assert on_graphs(caplog) == {"en", "fr"}


def test_a_killed_export_is_one_warning_torch_serves_and_the_next_export_runs(
    tiny_model: TinyModel,
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The first export's child is killed with SIGKILL (SIMULATED out of memory): one warning
    line says it was killed; its model serves on torch; the other model's export starts only
    then, and that model switches to its graphs."""
    monkeypatch.setattr(graph_export, "POLL", 0.5)
    args = two_model_args(tiny_model, slim_model, voices, tmp_path / "data")

    async def scenario() -> None:
        async with running_server(args) as server:
            deadline = time.monotonic() + DEADLINE
            while not events(caplog) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            kind, pid = events(caplog)[0]
            assert kind == "start"
            os.kill(int(pid), signal.SIGKILL)
            while "fr" not in on_graphs(caplog) and time.monotonic() < deadline:
                await asyncio.sleep(0.5)
            reply = await synthesize(server.port or 0, "Lights on.", voice="anna")
            assert not reply.errors and reply.audio

    with caplog.at_level(logging.INFO):
        asyncio.run(scenario())
    found = events(caplog)
    assert [kind for kind, _ in found] == ["start", "warning", "start", "end"], found
    warning = found[1][1]
    assert warning.startswith(WARNING.format(code="en")), warning
    assert "killed by SIGKILL (out of memory?)" in warning, warning
    assert found[2][1] == found[3][1] != found[0][1]
    assert on_graphs(caplog) == {"fr"}
