"""A server on cached graphs serves on the graphs alone (`onnx.lean`): no torch in its process.

The slim model's graphs (fp32 and int8) are exported once into a data folder, where the server
finds them as a later start would (`cached`). The servers here are fresh interpreters, not forks
of the tests' zygote (which has torch imported); a prelude reports, as the process exits, whether
torch or pocket-tts was ever imported. New voices are encoded by a child process
(`children.voice`); a voice state saved by one runtime is read by the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.request import Request, urlopen

import numpy as np
import pytest

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import ServerProcess, describe, differing_samples, synthesize
from testkit.zygote import FORK_ENV
from tests.conftest import model_args
from tests.studio_support import has_chromium, page_unchecked, status_model_row
from wyoming_pocket_tts.engine.chunking import chunks
from wyoming_pocket_tts.engine.model.runtime import TorchRuntime
from wyoming_pocket_tts.engine.onnx import cache as runtime
from wyoming_pocket_tts.engine.onnx.lean import LeanModel
from wyoming_pocket_tts.settings import ModelSettings

pytestmark = pytest.mark.timeout(300)

MODULES = "MODULES torch={} pocket_tts={} refused=[]"
REPORT_MODULES = f"""
import atexit, importlib.abc
refused = []

class Refused(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        refused.append(module.__name__)
        raise ImportError(f"import guard: {{module.__name__}} on the graphs' serving path")

class ImportGuard(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in ("torch", "pocket_tts", "scipy"):
            return None
        for finder in sys.meta_path:
            found = None if finder is self else getattr(finder, "find_spec", None)
            spec = found(name, path, target) if found else None
            if spec is not None:
                spec.loader = Refused()
                return spec
        return None

sys.meta_path.insert(0, ImportGuard())
atexit.register(lambda: print(
    {MODULES.replace("[]", "{}")!r}.format(
        "torch" in sys.modules, "pocket_tts" in sys.modules, refused
    ),
    flush=True,
))
"""
"""Prelude of a server: an import guard that refuses to run torch's and pocket-tts's modules (and
scipy's: the voice loudness measure needs none, issue 62) and says at exit which imports it
refused and whether torch or pocket-tts was imported anyway. Their files stay
found (`importlib.util.find_spec` answers as before: `pocket` reads pocket-tts's configs without
importing it); only executing them fails."""
LEAN = "on the graphs alone: no torch in this process"
TEXT = "Turn on the kitchen lights, please."


@pytest.fixture(scope="module")
def cached(slim_model: TinyModel, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder holding the slim model's graphs, fp32 and int8, as a first start left it."""
    data = tmp_path_factory.mktemp("lean") / "data"
    settings = ModelSettings(model=None, config=str(slim_model.config_path), runtime="onnx")
    folder = runtime.graph_folder(data, settings)
    assert runtime.prepare_graphs(slim_model.load(), folder, True).has_int8
    return data


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers started as fresh interpreters (the zygote has torch imported)."""
    monkeypatch.delenv(FORK_ENV, raising=False)


def lean_args(model: TinyModel, voices: dict[str, Path], data: Path, *extra: str) -> list[str]:
    return [*model_args(model, voices), "--runtime", "onnx", "--data-dir", str(data), *extra]


def reply_audio(server: ServerProcess, voice: str, text: str = TEXT) -> bytes:
    reply = asyncio.run(synthesize(server.port, text, voice))
    assert not reply.errors, reply.errors
    assert reply.audio
    return reply.audio


@pytest.mark.usefixtures("fresh")
def test_a_cached_start_serves_a_cloned_voice_without_torch_in_the_process(
    slim_model: TinyModel, voices: dict[str, Path], cached: Path, tmp_path: Path
) -> None:
    """int8 graphs cached: the model loads on them alone, the voice prompt is encoded by a child
    process, a reply is served, the studio's status says so, and at exit neither torch nor
    pocket-tts was ever imported (the status row in chromium, where there is one)."""
    data = tmp_path / "data"
    shutil.copytree(cached, data)
    args = lean_args(slim_model, {"a": voices["a"]}, data, "--quantize", "on", "--http-port", "0")
    with ServerProcess(args, tmp_path / "server.log", prelude=REPORT_MODULES) as server:
        server.wait_for_log("Ready")
        reply_audio(server, "a")
        http = re.search(r"HTTP API on http://[^:]+:(\d+)", server.log)
        assert http, server.log
        base = f"http://127.0.0.1:{http.group(1)}/"
        with urlopen(base + "studio/api/status", timeout=10) as page:
            [model] = json.load(page)["models"]
        row = asyncio.run(status_model_row(base, "ONNX Runtime")) if has_chromium() else None
        assert server.stop() == 0
    assert (model["runtime"], model["quantized"], model["without_torch"]) == ("onnx", True, "now")
    log = server.log
    assert LEAN in log and "(onnx int8," in log, log
    assert re.search(r"encoding of voice a runs in a separate process \(pid \d+\)", log), log
    assert MODULES.format(False, False) in log, log
    if row is None:
        page_unchecked("the status tab's row")
    assert "on ONNX Runtime (int8), without torch" in row and "next start" not in row, row


@pytest.mark.usefixtures("fresh")
def test_a_voice_added_in_the_studio_is_encoded_by_a_child_and_spoken_on_the_graphs(
    slim_model: TinyModel, voices: dict[str, Path], cached: Path, tmp_path: Path
) -> None:
    """The studio's upload meets the server on the graphs alone: the new voice is encoded by a
    child before the studio answers, a request speaks it, and torch never enters the server."""
    data, folder = tmp_path / "data", tmp_path / "voices"
    shutil.copytree(cached, data)
    folder.mkdir()
    sample = write_voice_wav(tmp_path / "upload.wav", 3.0, seed=5)
    args = lean_args(slim_model, {"a": voices["a"]}, data, "--quantize", "off", "--http-port", "0")
    args += ["--voices-dir", str(folder)]
    with ServerProcess(args, tmp_path / "server.log", prelude=REPORT_MODULES) as server:
        server.wait_for_log("Ready")
        http = re.search(r"HTTP API on http://[^:]+:(\d+)", server.log)
        assert http, server.log
        base = f"http://127.0.0.1:{http.group(1)}/"
        with urlopen(base, timeout=10) as page:
            csrf = re.search(r'name="studio-csrf" content="([^"]+)"', page.read().decode())
        assert csrf
        upload = Request(
            base + "studio/api/voices?name=kitchen&language=en&start=0&end=0",
            data=sample.read_bytes(),
            headers={"X-Studio-CSRF": csrf[1], "Content-Type": "audio/wav"},
            method="POST",
        )
        with urlopen(upload, timeout=120) as answer:
            assert answer.status == 201
        assert "encoding of voice kitchen runs in a separate process" in server.log, server.log
        reply_audio(server, "kitchen")
        assert server.stop() == 0
    assert "Voice kitchen cannot" not in server.log, server.log
    assert MODULES.format(False, False) in server.log, server.log


def test_after_the_first_start_switches_to_the_graphs_its_voices_are_made_again_while_idle(
    slim_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """A first start on `--runtime onnx --quantize on` exports, then switches to the graphs'
    loop when idle; int8 graphs keep voice states of their own, so the voices are made again:
    at that idle moment, not when the next request comes, by the graphs' own voice encoder
    (no child process: the built graphs hold Mimi's encoder)."""
    args = lean_args(slim_model, {"a": voices["a"]}, tmp_path / "data", "--quantize", "on")
    args += ["--http-port", "0"]
    prelude = "from wyoming_pocket_tts.engine.onnx import background\nbackground.POLL = 0.5"
    with ServerProcess(args, tmp_path / "server.log", prelude=prelude) as server:
        server.wait_for_log("Ready")
        health = f"http://127.0.0.1:{_http_port(server.log)}/health"
        building = _json(health)  # the child's export takes seconds even on an idle host
        described = asyncio.run(describe(server.port)).tts[0].description or ""
        assert "now runs on ONNX Runtime" not in server.log, "asked after the switch"
        server.wait_for_log("now runs on ONNX Runtime", timeout=180)
        assert _json(health) == {"status": "ok", "state": "ready"}
        deadline = time.monotonic() + 60  # encoded by torch at the start, then by the graphs
        while server.log.count("Encoded voice a") < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        switched = server.log.index("now runs on ONNX Runtime")
        assert server.log.rindex("Encoded voice a") > switched
        assert "runs in a separate process" not in server.log[switched:]
        before = server.log.count("Encoded voice a")
        assert before == 2, server.log
        reply_audio(server, "a")
        assert server.stop() == 0
    assert server.log.count("Encoded voice a") == before, server.log
    assert building["status"] == "ok" and building["state"] == "building graphs", building
    assert "; building graphs: ONNX Runtime graphs" in described, described


def _http_port(log: str) -> int:
    http = re.search(r"HTTP API on http://[^:]+:(\d+)", log)
    assert http, log
    return int(http.group(1))


def _json(url: str) -> dict[str, object]:
    with urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


@pytest.mark.usefixtures("fresh")
def test_a_voice_state_saved_by_one_runtime_is_served_by_the_other(
    slim_model: TinyModel, voices: dict[str, Path], cached: Path, tmp_path: Path
) -> None:
    """fp32 on torch and on the graphs share their voice states: torch encodes and saves `a`,
    the graphs' server reads it (no child) and speaks it as torch did (the test models sample
    at temperature 0); the graphs' child encodes `b`, and torch reads that one."""
    data = tmp_path / "data"
    shutil.copytree(cached, data)
    both = {"a": voices["a"], "b": voices["b"]}
    torch_args = [*model_args(slim_model, {"a": voices["a"]}), "--data-dir", str(data)]
    torch_args += ["--runtime", "torch", "--quantize", "off"]
    with ServerProcess(torch_args, tmp_path / "torch.log") as server:
        server.wait_for_log("Ready")
        on_torch = reply_audio(server, "a")
        assert server.stop() == 0
    assert "Encoded voice a" in server.log

    lean = lean_args(slim_model, both, data, "--quantize", "off")
    with ServerProcess(lean, tmp_path / "lean.log", prelude=REPORT_MODULES) as server:
        server.wait_for_log("Ready")
        on_graphs = reply_audio(server, "a")
        assert server.stop() == 0
    log = server.log
    assert LEAN in log and "Loaded voice a from its saved state" in log, log
    assert "encoding of voice a" not in log and "encoding of voice b runs" in log, log
    assert MODULES.format(False, False) in log, log
    assert differing_samples(on_graphs, on_torch) < 0.01

    torch_args = [*model_args(slim_model, both), "--data-dir", str(data)]
    torch_args += ["--runtime", "torch", "--quantize", "off"]
    with ServerProcess(torch_args, tmp_path / "torch-again.log") as server:
        server.wait_for_log("Ready")
        assert server.stop() == 0
    assert "Loaded voice b from its saved state" in server.log, server.log


@pytest.mark.usefixtures("fresh")
def test_a_state_file_of_an_older_pocket_tts_speaks_on_the_graphs_as_on_torch(
    slim_model: TinyModel, voices: dict[str, Path], cached: Path, tmp_path: Path
) -> None:
    """A `.safetensors` voice as pocket-tts wrote it before `offset`: each attention's step
    count as the length of a `current_end` tensor. The graphs' server reads it (no child) and
    speaks it as a torch server speaks it, and as torch speaks the same state in today's
    layout."""
    from pocket_tts.models.model_state import export_model_state
    from safetensors.numpy import load_file, save_file

    today = tmp_path / "today.safetensors"
    export_model_state(slim_model.load().get_state_for_audio_prompt(voices["a"]), today)
    older = {}
    for key, array in load_file(str(today)).items():
        module, name = key.split("/")
        if name == "offset":
            older[f"{module}/current_end"] = np.zeros(int(array.reshape(-1)[0]), np.float32)
        else:
            older[key] = array
    assert any(key.endswith("/current_end") for key in older)
    save_file(older, str(tmp_path / "older.safetensors"))
    files = {"older": tmp_path / "older.safetensors", "today": today}
    data = tmp_path / "data"
    shutil.copytree(cached, data)
    torch_args = [*model_args(slim_model, files), "--data-dir", str(tmp_path / "torch")]
    torch_args += ["--runtime", "torch", "--quantize", "off"]
    with ServerProcess(torch_args, tmp_path / "torch.log") as server:
        server.wait_for_log("Ready")
        heard = {name: reply_audio(server, name) for name in files}
        assert server.stop() == 0
    lean = lean_args(slim_model, {"older": files["older"]}, data, "--quantize", "off")
    with ServerProcess(lean, tmp_path / "lean.log") as server:
        server.wait_for_log("Ready")
        on_graphs = reply_audio(server, "older")
        assert server.stop() == 0
    assert LEAN in server.log and "encoding of voice" not in server.log, server.log
    assert differing_samples(heard["older"], heard["today"]) == 0.0
    assert differing_samples(on_graphs, heard["older"]) < 0.01


@pytest.mark.usefixtures("fresh")
def test_a_voice_whose_encoding_child_dies_is_refused_and_the_server_serves_on(
    slim_model: TinyModel, voices: dict[str, Path], cached: Path, tmp_path: Path
) -> None:
    """Two ways an encoding child fails while the server runs on the graphs: a file that is no
    audio (the child's own reason), at the start, and a child killed (as by the out-of-memory
    killer) during a request. Each voice fails with its reason, the request is still heard
    (in the fallback voice), and the server serves on."""
    data = tmp_path / "data"
    shutil.copytree(cached, data)
    noise = tmp_path / "noise.wav"
    noise.write_bytes(bytes(range(256)) * 8)
    killed = tmp_path / "killed.wav"
    shutil.copy(voices["b"], killed)
    configured = {"a": voices["a"], "noise": noise, "killed": killed}
    args = lean_args(slim_model, configured, data, "--quantize", "off")
    with ServerProcess(args, tmp_path / "server.log") as server:
        server.wait_for_log("Ready")  # `a` and `noise` loaded at the start (2 cached voices)
        with ThreadPoolExecutor(1) as pool:
            request = pool.submit(asyncio.run, synthesize(server.port, TEXT, "killed"))
            os.kill(child_pid(server, "killed"), signal.SIGKILL)
            heard = request.result(timeout=60)
        reply_audio(server, "a")
        assert server.stop() == 0
    assert heard.audio and not heard.errors  # the catalog's fallback voice spoke it
    log = server.log
    assert re.search(r"Voice noise cannot be loaded: .*(Error|format)", log), log
    assert "the encoding of voice killed was killed by SIGKILL (out of memory?)" in log, log


@pytest.mark.usefixtures("fresh")
def test_while_a_child_makes_a_new_voice_the_warm_voices_are_served(
    slim_model: TinyModel, voices: dict[str, Path], cached: Path, tmp_path: Path
) -> None:
    """New voices' children run off the engine thread. Each child is frozen (SIGSTOP: a slow
    board's child, made as long as the test needs): meanwhile the warm voice `a` is served.
    Two requests for new voice `b` share one child, and both speak once it goes on (SIGCONT).
    The child of new voice `c` is killed (as by the out-of-memory killer): `c`'s request gets
    what a failed voice gets (its language's default speaks it), and `a` is served on."""
    args = new_voices_args(slim_model, voices, cached, tmp_path)
    with ServerProcess(args, tmp_path / "server.log") as server, ThreadPoolExecutor(2) as pool:
        server.wait_for_log("Ready")  # `a` (and `a2`, the same state) made at the start
        assert "encoding of voice b" not in server.log, server.log
        new_b = [pool.submit(asyncio.run, synthesize(server.port, TEXT, "b")) for _ in "12"]
        pid = child_pid(server, "b")
        with frozen(pid):
            reply_audio(server, "a")  # the engine serves while b's child is frozen
            assert process_state(pid) == "T"  # frozen all along: `a` did not wait for it
        for reply in new_b:
            heard = reply.result(timeout=60)
            assert heard.audio and not heard.errors, heard.errors
        assert server.log.count("encoding of voice b runs") == 1, server.log

        new_c_reply = pool.submit(asyncio.run, synthesize(server.port, TEXT, "c"))
        pid = child_pid(server, "c")
        with frozen(pid):
            reply_audio(server, "a")
            assert process_state(pid) == "T"
            os.kill(pid, signal.SIGKILL)
        heard = new_c_reply.result(timeout=60)
        reply_audio(server, "a")
        assert server.stop() == 0
    assert heard.audio and not heard.errors  # the catalog's fallback voice spoke it, as before
    log = server.log
    assert "Voice b cannot" not in log and "Encoded voice b" in log, log
    assert "the encoding of voice c was killed by SIGKILL (out of memory?)" in log, log
    assert re.search(r"Voice c cannot load \(.*killed by SIGKILL.*\): using a", log), log


@pytest.mark.usefixtures("fresh")
def test_new_voices_are_encoded_one_child_at_a_time(
    slim_model: TinyModel, voices: dict[str, Path], cached: Path, tmp_path: Path
) -> None:
    """Each encoding child loads the model: two at once could double the peak on a small
    board (issue 64, item 19). While `b`'s child is frozen, `c`'s request waits and no child
    starts for it (checked after `a` is served and up to 5 s more); once `b`'s ends, `c`'s
    starts, and both voices speak."""
    args = new_voices_args(slim_model, voices, cached, tmp_path)
    with ServerProcess(args, tmp_path / "server.log") as server, ThreadPoolExecutor(2) as pool:
        server.wait_for_log("Ready")  # `a` (and `a2`, the same state) made at the start
        new_b = pool.submit(asyncio.run, synthesize(server.port, TEXT, "b"))
        b_pid = child_pid(server, "b")
        with frozen(b_pid):
            new_c_reply = pool.submit(asyncio.run, synthesize(server.port, TEXT, "c"))
            reply_audio(server, "a")
            with pytest.raises(AssertionError, match="no child for The encoding of voice c"):
                child_pid(server, "c", timeout=5)
        child_pid(server, "c")  # logged once started: `b`'s child was ended and reaped before
        assert not Path(f"/proc/{b_pid}").exists(), server.log
        for reply in (new_b, new_c_reply):
            heard = reply.result(timeout=60)
            assert heard.audio and not heard.errors, heard.errors
        assert server.stop() == 0


@pytest.mark.usefixtures("fresh")
def test_a_new_voice_s_child_waits_for_a_graph_export_child(
    slim_model: TinyModel,
    tiny_model: TinyModel,
    voices: dict[str, Path],
    cached: Path,
    tmp_path: Path,
) -> None:
    """One heavy child at a time, whatever its work (`children.process.QUEUE`, issue 61 step 4):
    an export and a voice's encoding each peak far above serving. `en` serves on its cached
    graphs (no voice encoder: a new voice is a child's), `fr` on torch while its graphs are
    exported by a child. While that child is frozen, `en`'s new voice `b` (not among the
    voices made at the start, `a` and `a2`: the voice cache's size) starts no child
    (checked after `fr` is served and up to 5 s more); once the export ends, `b`'s child runs
    and `b` speaks."""
    data = tmp_path / "data"
    shutil.copytree(cached, data)
    args = [
        "--model-config", f"en={slim_model.config_path}",
        "--model-config", f"fr={tiny_model.config_path}",
        "--voice", f"a={voices['a']}", "--voice", f"a2={voices['a']}",
        "--voice", f"b={voices['b']}", "--voice", f"fr:mamie={voices['a']}",
        "--runtime", "onnx", "--quantize", "off", "--data-dir", str(data),
    ]  # fmt: skip
    with ServerProcess(args, tmp_path / "server.log") as server, ThreadPoolExecutor(2) as pool:
        server.wait_for_log("Ready")
        first_fr = pool.submit(reply_audio, server, "mamie")  # fr on torch; its export starts
        with frozen(pid_of(server, "The graph build")):
            first_fr.result(timeout=120)
            new_b = pool.submit(asyncio.run, synthesize(server.port, TEXT, "b"))
            reply_audio(server, "mamie")
            with pytest.raises(AssertionError, match="no child for The encoding of voice b"):
                child_pid(server, "b", timeout=5)
        heard = new_b.result(timeout=120)
        assert heard.audio and not heard.errors, heard.errors
        assert server.stop() == 0
    log = server.log
    assert log.index("Built the graphs in") < log.index("encoding of voice b runs"), log


@pytest.mark.usefixtures("fresh")
def test_a_server_stopped_while_a_voice_is_encoded_exits_at_once(
    slim_model: TinyModel, voices: dict[str, Path], cached: Path, tmp_path: Path
) -> None:
    """A household restarts the add-on while a new voice is encoded: the server exits within
    its stop's bound, not after the child (up to `children.voice.CPU_TIME`, 10 minutes of CPU);
    the making thread is a daemon (`voice_states.making`). The child is frozen meanwhile, so it
    cannot end first."""
    args = new_voices_args(slim_model, voices, cached, tmp_path)
    with ServerProcess(args, tmp_path / "server.log") as server, ThreadPoolExecutor(1) as pool:
        server.wait_for_log("Ready")
        pool.submit(asyncio.run, synthesize(server.port, TEXT, "b"))
        with frozen(child_pid(server, "b")):
            assert server.stop(timeout=30) == 0


def new_voices_args(
    model: TinyModel, voices: dict[str, Path], cached: Path, tmp_path: Path
) -> list[str]:
    """A graphs server (fp32, a copy of `cached`: no voice encoder) with voices `a` and `a2`
    (the same state, made at the start) and `b` and `c`, new: each made by a child when asked."""
    data = tmp_path / "data"
    shutil.copytree(cached, data)
    new_c = write_voice_wav(tmp_path / "c.wav", 1.0, seed=7)
    configured = {"a": voices["a"], "a2": voices["a"], "b": voices["b"], "c": new_c}
    return lean_args(model, configured, data, "--quantize", "off")


@contextlib.contextmanager
def frozen(pid: int) -> Iterator[None]:
    """The process stopped (SIGSTOP) for the block and continued after it, even if the block
    fails (a stopped child could not notice its server's end)."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


def process_state(pid: int) -> str:
    """A process's state letter from /proc (T: stopped by a signal)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2]


def child_pid(server: ServerProcess, voice: str, timeout: float = 60) -> int:
    """The pid of the child encoding `voice`, from the server's log."""
    return pid_of(server, f"The encoding of voice {voice}", timeout)


def pid_of(server: ServerProcess, work: str, timeout: float = 60) -> int:
    """The pid of the child doing `work` (as its log line begins), from the server's log."""
    pattern = re.compile(rf"{work} runs in a separate process \(pid (\d+)\)")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = pattern.search(server.log)
        if match:
            return int(match.group(1))
        time.sleep(0.02)
    raise AssertionError(f"no child for {work}:\n{server.log}")


def test_the_graphs_cut_a_text_as_pocket_tts_does(slim_model: TinyModel, cached: Path) -> None:
    """The engine's pieces on the graphs alone (`chunking` with the tokenizer file and the copy
    of pocket-tts's cut) are torch's: sentences, a long one cut at commas, and a run of words
    with no punctuation cut between words (and one word longer than a piece, between letters)."""
    settings = ModelSettings(model=None, config=str(slim_model.config_path), runtime="onnx")
    lean = LeanModel(runtime.graph_folder(cached, settings), settings, False, 1)
    model = TorchRuntime(slim_model.load(), False)
    texts = [
        TEXT,
        "hi",
        "it is 3.5 degrees; the window's open",
        "first, second, third, fourth, fifth, sixth, seventh, eighth, ninth, tenth, eleventh, "
        "twelfth, thirteenth, fourteenth, fifteenth, sixteenth, seventeenth, eighteenth",
        " ".join(["lights"] * 80),
        "a" * 400,
        "   ",
    ]
    for text in texts:
        assert chunks(lean, text) == chunks(model, text), text
    assert len(chunks(lean, " ".join(["lights"] * 80))) > 1
    assert np.all([len(lean.tokenizer.encode(p)) <= 50 for p in chunks(lean, "a" * 400)])
