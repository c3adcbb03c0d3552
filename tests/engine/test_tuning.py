"""`--quantize auto`: the fp32/int8 and threads choice is measured once per host and model,
saved, reused.

The comparison runs the real pocket-tts code on the tiny random model. Which side wins on the
tiny model says nothing (both are fast and the machine is shared); the tests check that the
choice is measured on the serving path, stored, obeyed and re-measured, never which way it goes
(tests/units/test_tuning_rule.py tests the rule with injected timings).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
from pathlib import Path

import pytest
import torch
from pocket_tts import TTSModel

from bench.tuning import parse_decision
from testkit.model_factory import TinyModel, build_tiny_model
from testkit.support import ServerProcess, running_server, short_timing, synthesize
from tests.conftest import model_args
from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.engine.chunking import chunks
from wyoming_pocket_tts.engine.identity import model_identity
from wyoming_pocket_tts.engine.runtime import RuntimeKind
from wyoming_pocket_tts.engine.tuning import decisions, timing
from wyoming_pocket_tts.engine.tuning import tuned as tuning
from wyoming_pocket_tts.engine.tuning.rule import Choice, Config
from wyoming_pocket_tts.engine.tuning.timing import LONG_TEXT, SHORT_TEXT, Speed
from wyoming_pocket_tts.engine.tuning.tuned import Tuning, load_tuned_model
from wyoming_pocket_tts.engine.tuning.verdict import SLOW_RTF, log_speed_verdict
from wyoming_pocket_tts.settings import ModelSettings

FRAMES = 3
"""A very short timed generation: enough for both figures, cheap on 2 shared cores."""
TUNING_LOGGER = "wyoming_pocket_tts.engine.tuning.tuned"
COMPARISON_LOGGER = "wyoming_pocket_tts.engine.tuning.comparison"
ADVICE_LOGGER = "wyoming_pocket_tts.engine.tuning.verdict"


def is_quantized(model) -> bool:
    """True if the transformer's linear layers are torch.ao dynamic int8 modules (`model`:
    pocket-tts's, or the torch runtime the server loaded around it)."""
    flow_lm = getattr(model, "model", model).flow_lm
    return any("quantized" in type(module).__module__ for module in flow_lm.modules())


@pytest.fixture(autouse=True)
def torch_threads():
    """The tuning sets torch's process-wide thread count: put pocket-tts's back afterwards."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def timings(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The comparison's per-run log lines (one per timed variant: fp32/int8 x threads)."""
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("Timing ")]


def load(config: Path, data: Path, quantize: bool | None = None) -> tuple[object, Tuning]:
    settings = ModelSettings(runtime="torch", model=None, config=str(config), quantize=quantize)
    with short_timing(FRAMES, rounds=1):
        return load_tuned_model(settings, data)


@pytest.fixture
def own_model(tmp_path: Path, tiny_model: TinyModel) -> TinyModel:
    """A private copy of the tiny model, whose weights a test may touch (new identity)."""
    return build_tiny_model(
        tmp_path / "model", cache_dir=tiny_model.root.parent / ".model_factory_cache"
    )


def test_auto_decision_is_stored_reused_and_obeyed(
    own_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    caplog.set_level(logging.DEBUG, logger=COMPARISON_LOGGER)
    data = tmp_path / "data"
    _, first = load(own_model.config_path, data)
    (saved,) = (data / "tuning").glob("*.json")
    record = json.loads(saved.read_text())
    assert {"fp32 x1", "int8 x1"} <= set(record["figures"])
    assert len(timings(caplog)) == len(record["figures"])  # one round
    assert record["quantize"] is first.settings.quantize
    assert record["threads"] == first.threads == torch.get_num_threads()
    assert record["key"]["model"] and record["key"]["cpu"] and record["key"]["torch"]
    assert "measured now" in first.reason

    # The next start reads the decision: no comparison. Flip the saved choice to prove that
    # the file, not a new measurement, decides.
    record["quantize"] = not record["quantize"]
    record["threads"] = 2  # pocket-tts (and --quantize on/off) would use 1
    saved.write_text(json.dumps(record))
    caplog.clear()
    model, second = load(own_model.config_path, data)
    assert timings(caplog) == []
    assert second.settings.quantize is record["quantize"]
    assert is_quantized(model) is record["quantize"]
    assert second.threads == record["threads"] == torch.get_num_threads()
    assert "saved on" in second.reason
    assert second.speed.first_audio > 0 and second.speed.rtf > 0  # the warm-up was timed


def test_a_changed_model_is_measured_again(
    own_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    caplog.set_level(logging.DEBUG, logger=COMPARISON_LOGGER)
    data = tmp_path / "data"
    load(own_model.config_path, data)
    stat = own_model.weights_path.stat()
    os.utime(own_model.weights_path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    caplog.clear()
    _, again = load(own_model.config_path, data)
    assert len(timings(caplog)) >= 2
    assert "measured now" in again.reason
    assert len(list((data / "tuning").glob("*.json"))) == 2


def test_unreadable_decision_is_measured_again(
    own_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    caplog.set_level(logging.DEBUG, logger=COMPARISON_LOGGER)
    data = tmp_path / "data"
    load(own_model.config_path, data)
    (saved,) = (data / "tuning").glob("*.json")
    saved.write_text('{"key": ')  # cut short, as after a power cut
    caplog.clear()
    _, again = load(own_model.config_path, data)
    assert "Ignoring unreadable tuning file" in caplog.text
    assert len(timings(caplog)) >= 2
    assert json.loads(saved.read_text())["quantize"] is again.settings.quantize


@pytest.mark.parametrize("quantize", [True, False])
def test_explicit_quantize_is_obeyed_without_measuring(
    tiny_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture, quantize: bool
) -> None:
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    caplog.set_level(logging.DEBUG, logger=COMPARISON_LOGGER)
    model, result = load(tiny_model.config_path, tmp_path / "data", quantize)
    assert is_quantized(model) is quantize and result.settings.quantize is quantize
    assert result.threads == torch.get_num_threads() == 1
    assert timings(caplog) == []
    assert not (tmp_path / "data" / "tuning").exists()


def test_server_measures_once_then_starts_from_the_saved_decision(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """The real server, started twice on one data folder; the voice state saved by the first
    start (keyed by the quantisation chosen) is found by the second. About 30 s: two process
    starts (each with its torch import), and the first compares every configuration, which is
    what is under test."""
    args = model_args(tiny_model, {"a": voices["a"]}, "--debug", "--data-dir", str(tmp_path))
    args += ["--quantize", "auto"]  # test servers default to off (testkit/support.py)
    with ServerProcess(args, tmp_path / "1.log") as first:
        first.wait_for_log("Speed here")
        assert "Tuned for this host" in first.log and "Timing int8 x1" in first.log
        decision = parse_decision(first.log)  # what script/bench --tuning reads
        assert decision["chosen"] in decision["figures"] and decision["compare_seconds"] > 0
        assert "Speed here: first audio" in first.log and f"({decision['chosen']};" in first.log
        assert first.log.index("Ready") < first.log.index("Speed here")
        assert asyncio.run(synthesize(first.port, "Hello there.")).audio
        assert first.stop() == 0
    with ServerProcess(args, tmp_path / "2.log") as second:
        second.wait_for_log("Speed here")
        assert "Timing " not in second.log and "saved on" in second.log
        assert "Loaded voice a from its saved state" in second.log
        assert second.stop() == 0


# The flag and the verdict


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], None),
        (["--quantize"], True),
        (["--quantize", "on"], True),
        (["--quantize", "off"], False),
        (["--quantize", "auto"], None),
        (["--quantize", "--debug"], True),
    ],
)
def test_quantize_flag(flags: list[str], expected: bool | None) -> None:
    assert parse_settings(flags).engine.default_model.quantize is expected


def test_quantize_flag_rejects_other_values(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_settings(["--quantize", "yes"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'yes'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("language", "quantize", "advice"),
    [
        ("english", False, "english_18m_2026-10"),
        ("english_2026-09_24l", True, "english_2026-09"),
        ("french_24l", False, "'french'"),
        ("english_18m_2026-10", True, "english_7m_2026-10"),
        ("english_7m_refl_2026-10", True, "english_2m_refl_2026-10"),
        ("english_2m_2026-10", False, "--quantize on"),
        ("english_2m_2026-10", True, "faster CPU"),
        ("german", True, "faster CPU"),
    ],
)
def test_slow_host_gets_a_concrete_suggestion(
    caplog: pytest.LogCaptureFixture, language: str, quantize: bool, advice: str
) -> None:
    caplog.set_level(logging.INFO, logger=ADVICE_LOGGER)
    settings = ModelSettings(model=language, quantize=quantize)
    log_speed_verdict(Tuning(settings, 1, Speed(0.4, SLOW_RTF * 0.9), "test"))
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert advice in warning.getMessage()
    caplog.clear()
    log_speed_verdict(Tuning(settings, 1, Speed(0.1, SLOW_RTF * 1.1), "test"))
    assert [r.levelno for r in caplog.records] == [logging.INFO]


# The serving path and the saved format


@pytest.fixture
def generations(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, int, str, bool]]:
    """A spy on pocket-tts's generator: for each call, (int8?, torch threads, text, copy_state).
    The real generator still runs; only the call is recorded."""
    calls: list[tuple[bool, int, str, bool]] = []
    original = TTSModel.generate_audio_stream

    def spy(self, model_state, text_to_generate, *args, **kwargs):  # type: ignore[no-untyped-def]
        copy_state = kwargs.get("copy_state", True)
        calls.append((is_quantized(self), torch.get_num_threads(), text_to_generate, copy_state))
        return original(self, model_state, text_to_generate, *args, **kwargs)

    monkeypatch.setattr(TTSModel, "generate_audio_stream", spy)
    return calls


def test_every_configuration_is_timed_through_the_serving_path(
    own_model: TinyModel,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    generations: list[tuple[bool, int, str, bool]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tuning, "usable_cores", lambda: 2)  # 1 and 2 threads, on any host
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    caplog.set_level(logging.DEBUG, logger=COMPARISON_LOGGER)
    model, result = load(own_model.config_path, tmp_path / "data")
    served = chunks(model, SHORT_TEXT) + chunks(model, LONG_TEXT)
    assert served and all(text in served for _, _, text, _ in generations)
    assert all(copy_state for *_, copy_state in generations)  # as the engine: the voice is copied
    timed = {f"{'int8' if q else 'fp32'} x{n}" for q, n, _, _ in generations}
    record = json.loads(next((tmp_path / "data" / "tuning").glob("*.json")).read_text())
    assert timed == set(record["figures"]) == {"fp32 x1", "int8 x1", "fp32 x2", "int8 x2"}
    for label in timed:  # one round: the short sentence, then the long one
        texts = [t for q, n, t, _ in generations if f"{'int8' if q else 'fp32'} x{n}" == label]
        assert chunks(model, SHORT_TEXT)[0] in texts and chunks(model, LONG_TEXT)[0] in texts
    assert record["version"] == decisions.VERSION
    assert "Tuned for this host" in caplog.text and "lowest first audio among RTF" in caplog.text
    assert result.speed == Speed(
        **record["figures"][f"{'int8' if result.settings.quantize else 'fp32'} x{result.threads}"]
    )


def test_a_decision_of_the_old_rule_is_measured_again(
    own_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file as the RTF-only rule wrote it (no version) is not obeyed: the next start measures
    on the serving path and saves a versioned decision in its place."""
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    caplog.set_level(logging.DEBUG, logger=COMPARISON_LOGGER)
    caplog.set_level(logging.DEBUG, logger="wyoming_pocket_tts.engine.tuning.decisions")
    data = tmp_path / "data"
    settings = ModelSettings(
        runtime="torch", model=None, config=str(own_model.config_path), quantize=None
    )
    store = decisions.DecisionStore(data / "tuning")
    path = store.path_for(decisions.host_key(settings))
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "key": decisions.host_key(settings),
                "quantize": True,
                "threads": 2,
                "figures": {
                    "int8 x1": {"first_audio": 0.053, "rtf": 3.59},
                    "int8 x2": {"first_audio": 0.104, "rtf": 4.58},
                },
                "measured": "2026-11-29",
            }
        )
    )
    _, result = load(own_model.config_path, data)
    assert "decided by an older rule" in caplog.text
    assert len(timings(caplog)) >= 2 and "measured now" in result.reason
    record = json.loads(path.read_text())
    assert record["version"] == decisions.VERSION and record["measured"] != "2026-11-29"
    assert record["quantize"] is result.settings.quantize and record["threads"] == result.threads


@pytest.mark.parametrize(
    ("quantize", "threads", "expected"),
    [
        (None, None, ["fp32 x1", "int8 x1", "fp32 x4", "int8 x4"]),
        (None, 3, ["fp32 x3", "int8 x3"]),
        (True, None, ["int8 x1"]),
        (False, 2, ["fp32 x2"]),
    ],
)
def test_auto_measures_what_the_flags_leave_open(
    monkeypatch: pytest.MonkeyPatch, quantize: bool | None, threads: int | None, expected: list[str]
) -> None:
    monkeypatch.setattr(tuning, "usable_cores", lambda: 6)  # at most MAX_THREADS (4) tried
    settings = ModelSettings(quantize=quantize, threads=threads)
    assert [config.label for config in tuning.candidates(settings)] == expected


def test_fixed_threads_are_obeyed_without_measuring(
    tiny_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    caplog.set_level(logging.DEBUG, logger=COMPARISON_LOGGER)
    settings = ModelSettings(
        model=None, runtime="torch", config=str(tiny_model.config_path), quantize=True, threads=2
    )
    with short_timing(FRAMES, rounds=1):
        _, result = load_tuned_model(settings, tmp_path / "data")
    assert result.threads == torch.get_num_threads() == 2
    assert timings(caplog) == [] and "--threads 2" in result.reason


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], None),
        (["--threads", "auto"], None),
        (["--threads", "3"], 3),
        (["--threads", " AUTO"], None),
    ],
)
def test_threads_flag(flags: list[str], expected: int | None) -> None:
    assert all(m.threads == expected for m in parse_settings(flags).engine.models)


@pytest.mark.parametrize("value", ["0", "65", "two", ""])
def test_threads_flag_rejects_other_values(capsys: pytest.CaptureFixture[str], value: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_settings(["--threads", value])
    assert exit_info.value.code == 2
    assert "--threads" in capsys.readouterr().err


@pytest.mark.parametrize(("timed_frames", "expected"), [(2, 2), (None, timing.FRAMES)])
def test_the_start_s_timing_runs_timing_frames_read_when_the_model_loads(
    slim_model: TinyModel,
    voices: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    timed_frames: int | None,
    expected: int,
) -> None:
    """The timed generation at the end of the model's load runs `timing.FRAMES` frames,
    read when the model loads, so a test that patches it (`short_timing`) shortens the start."""
    asked: list[int] = []
    real = tuning.time_serving

    def recorded(model: TTSModel, frames: int, *args: object) -> Speed:
        asked.append(frames)
        return real(model, frames, *args)

    monkeypatch.setattr(tuning, "time_serving", recorded)

    async def start() -> None:
        async with running_server(model_args(slim_model, voices), timed_frames=timed_frames):
            pass

    asyncio.run(start())
    assert asked == [expected]


def test_a_saved_decision_holds_for_its_threads_and_torchao_and_across_an_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision measured at `--threads 2` is not read at `--threads 3`; one measured without
    torchao is not read once it is installed (it changes torch's int8 kernels: SIMULATED, since
    torchao is not installed here, by `find_spec` finding it). The key is written as 0.11.0
    wrote it (torchao's presence, the threads asked, the model's fp32 identity whatever
    `--quantize`), so an update measures nothing again."""
    assert importlib.util.find_spec("torchao") is None
    settings = ModelSettings(model="english", quantize=None, threads=2)
    key = decisions.host_key(settings)
    assert (key["torchao"], key["threads"]) == ("False", "2")
    assert key["model"] == model_identity(ModelSettings(model="english", quantize=False))
    store = decisions.DecisionStore(tmp_path)
    store.write(key, Choice(Config(2, True), "", 0.0, 0.1), {"int8 x2": Speed(0.2, 3.0)})
    assert store.read(decisions.host_key(settings)) is not None
    assert store.read(decisions.host_key(ModelSettings(model="english", threads=3))) is None
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *rest: name == "torchao" or find_spec(name, *rest)
    )
    assert store.read(decisions.host_key(settings)) is None


def test_a_runtime_decision_is_saved_apart_and_older_files_read_as_torch(tmp_path: Path) -> None:
    """`--runtime auto`'s decisions have keys of their own (onnxruntime's version and
    `--quantize` in them) and say whether the graphs won; a file saved before it reads as
    torch."""
    settings = ModelSettings(model="english", quantize=None)
    store = decisions.DecisionStore(tmp_path)
    torch_key, auto_key = decisions.host_key(settings), decisions.host_key(settings, onnx=True)
    assert store.path_for(torch_key) != store.path_for(auto_key)
    assert auto_key["quantize"] == "None" and "onnxruntime" in auto_key
    figures = {"int8 x1": Speed(0.2, 3.0), "onnx fp32 x1": Speed(0.1, 3.0)}
    graphs = Config(1, False, RuntimeKind.ONNX)
    store.write(auto_key, Choice(graphs, "", 0.5, 0.1), figures)
    saved = store.read(auto_key)
    assert saved is not None and saved["onnx"] is True and saved["quantize"] is False
    store.write(torch_key, Choice(Config(1, True), "", 0.0, 0.1), figures)
    path = store.path_for(torch_key)
    record = json.loads(path.read_text(encoding="utf-8"))
    del record["onnx"]  # as saved before --runtime auto
    path.write_text(json.dumps(record), encoding="utf-8")
    older = store.read(torch_key)
    assert older is not None and older["onnx"] is False and older["quantize"] is True
