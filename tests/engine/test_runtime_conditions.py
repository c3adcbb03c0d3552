"""The runtime's choices under the conditions they depend on: `--threads`, `--quantize`, a
request during the switch to the graphs, the studio while graphs are prepared. Through the real
in-process server (and its studio in chromium), on the endless model.

`first_start` is a first start on `--runtime onnx` (no cached graphs): its export child writes
the fp32 graphs while the studio is looked at, and a request arrives while the engine switches
to them. Its data folder then holds the graphs the other tests start from (copies of it).
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from testkit.model_factory import TinyModel
from testkit.support import Reply, running_server, synthesize
from tests.conftest import model_args
from tests.studio_support import (
    has_chromium,
    page_unchecked,
    running_studio,
    status,
    status_model_row,
    until,
)
from wyoming_pocket_tts.engine.onnx import background as graph_export
from wyoming_pocket_tts.engine.onnx import cache as runtime
from wyoming_pocket_tts.engine.onnx.graphs import Graphs
from wyoming_pocket_tts.engine.onnx.lean import LeanModel
from wyoming_pocket_tts.engine.tuning import idle
from wyoming_pocket_tts.engine.tuning.course import Phase
from wyoming_pocket_tts.engine.tuning.tuned import Tuning
from wyoming_pocket_tts.http.studio import StudioSettings
from wyoming_pocket_tts.settings import ModelSettings

from .test_onnx_runtime import counted_frames

pytestmark = [pytest.mark.usefixtures("one_torch_thread"), pytest.mark.timeout(480)]

GATE = 400.0
"""Seconds a test may wait for an export or hold the switch open (bounds, not reached)."""
TOLD = 60.0
"""Seconds the log's line may come after the switch (the engine thread logs it next)."""
PREPARING = "preparing ONNX Runtime graphs in the background"
"""What the studio's status tab says of a model whose graphs are being prepared."""


@dataclass
class FirstStart:
    data: Path
    """The server's data folder: the fp32 graphs, cached."""
    status: dict[str, Any]
    """The studio's status entry of the model while its graphs were exported."""
    page: str | None
    """The model's row of the status tab in chromium then (None: no chromium here)."""
    reply: Reply
    """A request sent once the switch to the graphs had begun."""
    frames_for_the_request: int
    """Frames the LM graph ran from that request's arrival to the end of its reply."""
    frames_of_the_switch: int
    """Frames the LM graph ran for the switch that completed afterwards (its warm-up, timing)."""
    runtime_after: str
    phase_when_told: Phase | None
    """The model's phase as the log said it now runs on the graphs (None: it never said)."""


@pytest.fixture(scope="module")
def first_start(
    endless_model: TinyModel, voices: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> FirstStart:
    """A first start on `--runtime onnx`: the studio looked at while the child exports; the
    switch to the graphs held at its start until a request has arrived (a gate around the
    idle step's `on_graphs`, released by the request's admission, so the request comes during the
    switch whatever the machine's speed), then let go as it is. Without chromium the page alone
    is not read: the tests that need no page still run."""
    data = tmp_path_factory.mktemp("first-start") / "data"
    args = [*model_args(endless_model, {"b": voices["b"]}), "--runtime", "onnx"]
    args += ["--quantize", "off", "--data-dir", str(data)]
    real_on_graphs = idle.on_graphs
    switching, arrived = threading.Event(), threading.Event()
    gated: list[bool] = []
    told: list[Phase] = []
    said = threading.Event()

    def gate(*call_args: Any, **kwargs: Any) -> Any:
        if not gated:  # the first switch waits until the test's request has arrived
            gated.append(True)
            switching.set()
            assert arrived.wait(GATE), "no request arrived during the switch"
        return real_on_graphs(*call_args, **kwargs)

    async def scenario(frames: list[float]) -> FirstStart:
        async with running_studio(args, StudioSettings()) as studio:
            engine = studio.server.engine
            assert engine.tuning is not None and engine.tuning.course.phase is Phase.EXPORTING
            admit = engine.scheduler.admit

            def admitted(request: Any) -> None:  # wraps, not replaces, the real admission
                admit(request)
                arrived.set()

            engine.scheduler.admit = admitted  # type: ignore[method-assign]
            idle_log.addHandler(_Told(lambda: engine.tuning, told, said))
            entry = await status(studio)
            page = await status_model_row(studio.url, PREPARING) if has_chromium() else None
            assert engine.tuning.course.phase is Phase.EXPORTING, (
                "the export ended before the page was read"
            )
            assert await asyncio.to_thread(switching.wait, GATE), "the switch never began"
            before = len(frames)
            reply = await synthesize(studio.server.port or 0, "Lights on.", voice="b")
            asked = len(frames) - before
            await until(
                lambda: (
                    engine.tuning is not None and engine.tuning.course.phase is not Phase.EXPORTING
                ),
                GATE,
            )
            tuning = engine.tuning
            assert tuning is not None
            await asyncio.to_thread(said.wait, TOLD)  # the spy leaves with the fixture
            return FirstStart(
                data, entry, page, reply, asked, len(frames) - before - asked,
                tuning.settings.runtime, told[0] if told else None,
            )  # fmt: skip

    idle_log = logging.getLogger(idle.__name__)
    level, handlers = idle_log.level, list(idle_log.handlers)
    idle_log.setLevel(logging.INFO)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(graph_export, "POLL", 0.5)  # the engine's idle wait before it switches
            patch.setattr(idle, "on_graphs", gate)
            with counted_frames(patch) as frames:
                return asyncio.run(scenario(frames))
    finally:  # the spy leaves with the fixture
        idle_log.handlers = handlers
        idle_log.setLevel(level)


class _Told(logging.Handler):
    """Notes the model's phase at the moment the log says it now runs on the graphs."""

    def __init__(
        self, tuning: Callable[[], Tuning | None], told: list[Phase], said: threading.Event
    ) -> None:
        super().__init__(logging.INFO)
        self._tuning, self._told, self._said = tuning, told, said

    def emit(self, record: logging.LogRecord) -> None:
        tuning = self._tuning()
        if "now runs on ONNX Runtime" in record.getMessage() and tuning is not None:
            self._told.append(tuning.course.phase)
            self._said.set()


def test_the_studio_shows_graphs_being_prepared_under_runtime_onnx(first_start: FirstStart):
    """Guards the break: the studio's status not saying "preparing graphs" under `--runtime
    onnx` (only under `auto`), in its JSON (`studio_views`) or on its page (`studio.js`): a
    household sees torch and no reason why. While the export child runs, the status entry says
    torch and preparing, and chromium shows the row saying so."""
    assert (first_start.status["runtime"], first_start.status["preparing_graphs"]) == (
        "torch",
        True,
    )
    assert first_start.status["without_torch"] == "next start"
    if first_start.page is None:
        page_unchecked("the status tab's row")
    assert PREPARING in first_start.page, first_start.page
    assert "without torch from the next start" in first_start.page, first_start.page


def test_a_request_during_the_switch_to_the_graphs_goes_first(first_start: FirstStart):
    """Guards the break: the switch to the graphs (`tuning.idle`) not cancelled by a request
    that arrives (its `on_graphs` without `cancel=scheduler.arrived`), so the request waits for
    the graphs' whole warm-up and timing (5.1 s instead of 0.05 s at full size). Counted in
    frames, not seconds: from the request's arrival to the end of its reply the LM graph runs
    only the frames the switch had begun before it saw the request (8 to 15 seen; the request
    itself is spoken on torch), and the whole switch runs again after the reply (29 frames with
    the tests' short timing). With the break the whole switch runs during the request (80 frames
    seen) and none after it."""
    assert first_start.reply.audio and not first_start.reply.errors
    asked, switch = first_start.frames_for_the_request, first_start.frames_of_the_switch
    assert switch > 0 and asked < switch, (asked, switch)
    assert first_start.runtime_after == "onnx"


def test_the_log_says_the_graphs_serve_once_they_do(first_start: FirstStart):
    """Guards the break: the switch to the graphs logged before the engine applies it (CI,
    2026-12-05: `/health` still said "building graphs" after the log's line; a race, whatever
    the host's load). When the line is logged the model's course must have settled; what
    `/health` says then is checked through the real server in `test_lean_serving`."""
    assert first_start.phase_when_told is Phase.SETTLED


def graph_data(first_start: FirstStart, tmp_path: Path) -> Path:
    """A copy of the first start's data folder: its fp32 graphs (a server may write there)."""
    data = tmp_path / "data"
    shutil.copytree(first_start.data / "graphs", data / "graphs")
    return data


def test_the_graph_sessions_run_on_the_threads_asked(
    endless_model: TinyModel, voices: dict[str, Path], first_start: FirstStart, tmp_path: Path
) -> None:
    """Guards the break: the graphs' ONNX Runtime sessions made without their intra-op thread
    count (`ort.session`), so ONNX Runtime starts a pool per session on every core (7
    -> 11 OS threads on 2 cores) beside pocket-tts's own two threads. A server on cached graphs
    with `--threads 1`, and one with `--threads 2`: each session of the model it serves must
    have been given that count."""

    async def sessions(threads: int) -> list[tuple[int, int]]:
        args = [*model_args(endless_model, {"b": voices["b"]}), "--runtime", "onnx"]
        args += ["--threads", str(threads), "--quantize", "off"]
        args += ["--data-dir", str(graph_data(first_start, tmp_path / str(threads)))]
        async with running_server(args) as server:
            loaded = server.engine.models.peek("en")
            assert loaded is not None and isinstance(loaded.model, LeanModel)
            reply = await synthesize(server.port or 0, "Lights on.", voice="b")
            assert reply.audio and not reply.errors
            found = []
            for runner in (loaded.model.lm, loaded.model.mimi):
                options = runner.session.get_session_options()
                found.append((options.intra_op_num_threads, options.inter_op_num_threads))
            return found

    assert asyncio.run(sessions(1)) == [(1, 1), (1, 1)]
    assert asyncio.run(sessions(2)) == [(2, 1), (2, 1)]


def test_quantize_on_exports_int8_beside_a_cached_fp32_export(
    endless_model: TinyModel,
    voices: dict[str, Path],
    first_start: FirstStart,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Guards the break: an fp32-only graph cache taken as ready for `--quantize on`
    (`runtime.needs_export` ignoring the precision): the int8 graphs are then missing, the
    failure is remembered in place of the cache (the fp32 graphs deleted) and torch serves on.
    With only fp32 graphs cached, a server on `--runtime onnx --quantize on` must add the int8
    graphs, keep the fp32 ones, and serve on the int8 graphs."""
    monkeypatch.setattr(graph_export, "POLL", 0.5)
    data = graph_data(first_start, tmp_path)
    settings = ModelSettings(model=None, config=str(endless_model.config_path), runtime="onnx")
    folder = runtime.graph_folder(data, settings)
    assert not Graphs.read(folder).has_int8
    args = [*model_args(endless_model, {"b": voices["b"]}), "--runtime", "onnx"]
    args += ["--quantize", "on", "--data-dir", str(data)]

    async def scenario() -> tuple[str, bool, bool]:
        async with running_server(args) as server:
            engine = server.engine
            assert engine.tuning is not None
            await until(
                lambda: (
                    engine.tuning is not None and engine.tuning.course.phase is not Phase.EXPORTING
                ),
                GATE,
            )
            reply = await synthesize(server.port or 0, "Lights on.", voice="b")
            assert reply.audio and not reply.errors
            tuning = engine.tuning
            assert tuning is not None
            return tuning.settings.runtime, bool(tuning.settings.quantize), tuning.reason

    runtime_after, int8, reason = asyncio.run(scenario())
    assert (runtime_after, int8) == ("onnx", True), reason
    assert not (folder / runtime.FAILED).exists()
    graphs = Graphs.read(folder)
    assert graphs.has_int8 and graphs.lm(False).is_file() and graphs.mimi(False).is_file()


def test_a_saved_speed_decision_belongs_to_its_thread_count(
    endless_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """Guards the break: the saved `--quantize auto` decision's key (`decisions.host_key`)
    ignoring `--threads`, so a restart with `--threads 1` reads the decision made with
    `--threads 2` and runs 2 threads. Two starts on one data folder: the second, with
    `--threads 1`, must run 1 thread."""
    data = tmp_path / "data"

    async def start(threads: int) -> tuple[int, str]:
        args = model_args(endless_model, {"b": voices["b"]}, "--quantize", "auto")
        args += ["--threads", str(threads), "--data-dir", str(data)]
        async with running_server(args) as server:
            tuning = server.engine.tuning  # its `threads` is what the engine thread was given
            assert tuning is not None
            return tuning.threads, tuning.reason

    assert asyncio.run(start(2))[0] == 2
    threads, reason = asyncio.run(start(1))
    assert threads == 1, reason
    assert len(list((data / "tuning").glob("*.json"))) == 2
