"""The add-on as the Supervisor runs it: its folders, its options.json, the image's own command.

Without Docker, each case builds what the Supervisor gives the container (`tests/supervisor.py`
names the Supervisor files whose rules are followed): a private mount and network namespace
(`unshare --mount --net`) whose root is a tmpfs holding bind mounts of this machine's top-level
folders, plus /data (writable, with the options.json the Supervisor would write: config.yaml's
defaults merged with the saved options, validated by the schema), and each folder of config.yaml's
`map:` with the access the Supervisor gives it (/config writable, /share read-only). The server is
started with the Dockerfile's ENTRYPOINT and CMD, its ENV and WORKDIR, inside a `chroot` to that
root; the adaptations are where the venv comes from (this worktree's .venv is mounted at the
image's venv path, /opt/venv) and the package (this checkout's, on PYTHONPATH). The
Dockerfile's HEALTHCHECK command is then run inside the same namespaces (`nsenter`), as `docker
exec` would, until it reports healthy. The ingress cases link the container's network namespace
to the Supervisor's proxy address with a veth pair (`tests/ingress.py`).

`test_defaults` execs the ENTRYPOINT's interpreter itself. The other cases run the same
`python -m MODULE ARGS` forked from the worker's zygote (`testkit/zygote.py`, torch already
imported) into the same namespaces and root: the interpreter's own start is about 10 s of CPU
here, and what it would show (the venv's python runs the package in the container) the health
check shows in every case, since it execs that interpreter inside the container.

Faked: the Hugging Face hub (a cache built by testkit/model_factory.py in /data/huggingface, with
`HF_HUB_OFFLINE=1`), the Supervisor API (no SUPERVISOR_TOKEN, so no discovery), and the model:
`language` is the tiny packaged model `english_2m_2026-10` in every case instead of config.yaml's
`english`, whose full-size random weights take minutes to build here.

Needs root, `unshare`, `nsenter`, `chroot` and `ip` (CI runs as root); skipped otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from testkit.model_factory import build_hf_cache, write_voice_wav
from testkit.without_torch import hidden_env
from testkit.zygote import ForkedProcess, Zygote
from tests.ingress import ADDON as ADDON_ADDRESS
from tests.ingress import OTHER, ingress_link
from tests.supervisor import Invalid, merge_options, mounts, validate_options

ROOT = Path(__file__).resolve().parents[2]
ADDON = ROOT / "pocket-tts"
VENV = ROOT / ".venv"
LANGUAGE = "english_2m_2026-10"
HEALTHY_WITHIN = 90.0
"""Seconds from start to a healthy report and `Ready` (a tiny model; the image allows 2 min)."""
TOOLS = ("unshare", "nsenter", "chroot", "ip", "mount")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or any(shutil.which(tool) is None for tool in TOOLS),
    reason="needs root and unshare, nsenter, chroot, ip, mount (a private mount namespace)",
)


def config() -> dict[str, Any]:
    return yaml.safe_load((ADDON / "config.yaml").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Image:
    """What the Dockerfile says about how the container runs."""

    entrypoint: list[str]
    cmd: list[str]
    healthcheck: list[str]
    env: dict[str, str]
    workdir: str

    @property
    def venv(self) -> str:
        return str(Path(self.entrypoint[0]).parents[1])


def image() -> Image:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    final = text[text.rindex("\nFROM ") :]
    env: dict[str, str] = {}
    for line in re.findall(r"^ENV (.+)$", final, re.MULTILINE):
        for key, value in re.findall(r"(\w+)=(\S+)", line):
            env[key] = re.sub(r"\$\{(\w+)\}", lambda m: env.get(m[1], os.environ[m[1]]), value)
    return Image(
        entrypoint=json.loads(re.findall(r"^ENTRYPOINT (\[.*\])$", final, re.MULTILINE)[-1]),
        cmd=json.loads(re.findall(r"^CMD (\[.*\])$", final, re.MULTILINE)[-1]),
        healthcheck=json.loads(re.search(r"^HEALTHCHECK .*?CMD (\[.*\])$", final, re.M)[1]),
        env=env,
        workdir=re.findall(r"^WORKDIR (\S+)$", final, re.MULTILINE)[-1],
    )


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hub") / "huggingface"
    build_hf_cache(folder, language=LANGUAGE, voices=("alba",))
    return folder


@pytest.fixture(scope="module")
def hub_without_cloning(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache without the gated voice-cloning weights: an install with no Hugging Face token."""
    folder = tmp_path_factory.mktemp("hub-no-cloning") / "huggingface"
    build_hf_cache(folder, language=LANGUAGE, voices=("alba",), voice_cloning=False)
    return folder


@dataclass
class Run:
    """One start of the add-on: what it logged, what the health check said, where."""

    log: str
    health: str
    voices: list[str]
    exit_code: int
    host: dict[str, Path]

    @property
    def warnings(self) -> list[str]:
        return re.findall(r"^wyoming-pocket-tts add-on: warning: (.*)$", self.log, re.MULTILINE)


_NAMESPACE_SCRIPT = r"""
set -eu
root="$1"; top="$2"; venv="$3"; shift 3
venv_top="$(echo "$venv" | cut -d/ -f2)"
ip link set lo up
mount -t tmpfs tmpfs "$root"
for entry in /*; do
  name="${entry#/}"
  if [ -L "$entry" ]; then ln -s "$(readlink "$entry")" "$root/$name"
  elif [ "$name" = "$venv_top" ]; then
    mkdir "$root/$name"
    for child in "$entry"/*; do
      [ -e "$child" ] || continue
      place="$root/$name/${child##*/}"
      if [ -d "$child" ]; then mkdir "$place"; else touch "$place"; fi
      mount --rbind "$child" "$place"
    done
  elif [ -d "$entry" ]; then
    mkdir "$root/$name"
    # Not recursive for the folder holding the new root, whose tmpfs would be bound into itself.
    if [ "$name" = "$top" ]; then mount --bind "$entry" "$root/$name"
    else mount --rbind "$entry" "$root/$name"; fi
  fi
done
mkdir -p "$root$venv"
mount --bind "$VENV_SOURCE" "$root$venv"
for spec in $FOLDERS; do
  target="${spec%%=*}"; rest="${spec#*=}"; source="${rest%%:*}"; access="${rest##*:}"
  mkdir -p "$root$target"
  mount --bind "$source" "$root$target"
  [ "$access" = rw ] || mount -o remount,bind,ro "$root$target"
done
exec chroot "$root" "$@"
"""


_HOLD = ["/bin/sh", "-c", "echo entered; exec sleep 600"]
"""The container's first process when the add-on is forked into it: it holds the namespaces."""


def run_addon(
    tmp_path: Path,
    hub: Path,
    saved: dict[str, Any],
    *,
    manifest: dict[str, Any] | None = None,
    prepare: Callable[[dict[str, Path]], None] | None = None,
    while_healthy: Callable[[int], None] | None = None,
    exec_interpreter: bool = False,
    without_torch: bool = False,
) -> Run:
    """Start the add-on as the Supervisor would with these saved options; stop it when healthy,
    after `while_healthy(pid)` if given (pid: the add-on's process, in the container). With
    `exec_interpreter` the container runs the image's command itself; otherwise the command's
    module is forked into the container from the zygote (see the module docstring). With
    `without_torch` it runs the image's command in an interpreter that finds neither torch nor
    pocket-tts, as in the image (`testkit.without_torch`; this venv holds both)."""
    manifest = manifest or config()
    spec = image()
    assert spec.workdir == "/", "chroot starts in /: the test assumes the image's WORKDIR is /"
    interpreter, mode, *args = [*spec.entrypoint, *spec.cmd]
    assert (interpreter, mode) == (f"{spec.venv}/bin/python", "-m"), "forks as `python -m`"
    options = validate_options(manifest["schema"], merge_options(manifest["options"], saved))
    folders = mounts(manifest)
    host = {target: tmp_path / "host" / target.strip("/") for target in folders}
    for folder in host.values():
        folder.mkdir(parents=True)
    (host["/data"] / "options.json").write_text(json.dumps(options), encoding="utf-8")
    shutil.copytree(hub, host["/data"] / "huggingface", symlinks=True)
    # The speed decision an earlier start saved for the same host and model, as a household's
    # add-on finds it after its first start: the `quantize: auto` comparison (about 10 s of the
    # start here) runs once, not at every start. The tests' folders are otherwise fresh.
    decisions = tmp_path.parent / "addon-speed-decisions"
    decisions.mkdir(exist_ok=True)
    shutil.copytree(decisions, host["/data"] / "tuning", dirs_exist_ok=True)
    if prepare is not None:
        prepare(host)
    new_root = tmp_path / "root"
    new_root.mkdir()
    python_path = [str(ROOT)]
    if without_torch:
        hidden_env(tmp_path / "hide")
        python_path.insert(0, str(tmp_path / "hide"))
    env = {
        **spec.env,
        "HF_HUB_OFFLINE": "1",  # the hub is not reachable here; its cache is in /data
        # This checkout's package, as the image installs it (the venv may hold another's).
        "PYTHONPATH": os.pathsep.join(python_path),
        "VENV_SOURCE": str(VENV),
        "FOLDERS": " ".join(
            f"{target}={host[target]}:{'ro' if read_only else 'rw'}"
            for target, read_only in folders.items()
        ),
    }
    log_path = tmp_path / "addon.log"
    namespace = ["unshare", "--mount", "--net", "--propagation", "private", "sh", "-c"]
    script = [_NAMESPACE_SCRIPT, "sh", str(new_root), new_root.parts[1], spec.venv]
    holder: subprocess.Popen[bytes] | None = None
    with log_path.open("wb") as log:
        if exec_interpreter or without_torch:
            process: subprocess.Popen[bytes] | ForkedProcess = subprocess.Popen(
                [*namespace, *script, *spec.entrypoint, *spec.cmd],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        else:
            holder = subprocess.Popen(
                [*namespace, *script, *_HOLD], env=env, stdout=subprocess.PIPE, stderr=log
            )
            assert holder.stdout is not None and holder.stdout.readline() == b"entered\n"
            process = Zygote.spawn(
                [mode, *args], env, log.fileno(), cwd=Path(spec.workdir), enter=holder.pid
            )
    health = ""
    voices: list[str] = []
    try:
        deadline = time.monotonic() + HEALTHY_WITHIN
        while time.monotonic() < deadline and process.poll() is None:
            # The health check starts a Python each time: run it once the log says `Ready`.
            if "Ready" not in log_path.read_text(errors="replace"):
                time.sleep(0.1)
                continue
            health = in_container(process.pid, spec.healthcheck, env)
            if health.startswith("healthy"):
                voices = json.loads(
                    in_container(process.pid, [*spec.entrypoint[:1], "-c", _LIST_VOICES], env)
                )
                if while_healthy is not None:
                    while_healthy(process.pid)
                break
            time.sleep(0.2)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        if holder is not None:
            holder.kill()
            holder.wait()
    if (host["/data"] / "tuning").is_dir():
        shutil.copytree(host["/data"] / "tuning", decisions, dirs_exist_ok=True)
    return Run(log_path.read_text(errors="replace"), health, voices, code, host)


_LIST_VOICES = """
import asyncio, json
from wyoming.client import AsyncClient
from wyoming.info import Describe, Info
async def names():
    async with AsyncClient.from_uri("tcp://127.0.0.1:10200") as client:
        await client.write_event(Describe().event())
        while not Info.is_type((event := await client.read_event()).type):
            pass
    info = Info.from_event(event)
    return [v.name for p in info.tts for v in p.voices if v.installed]
print(json.dumps(asyncio.run(asyncio.wait_for(names(), 10))))
"""


def in_container(pid: int, command: list[str], env: dict[str, str]) -> str:
    """Run `command` in the server's namespaces and root, as `docker exec` does; its stdout."""
    result = subprocess.run(
        ["nsenter", "-t", str(pid), "-m", "-n", "-r", "-w", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return result.stdout.strip() or result.stderr.strip()


def assert_served(run: Run) -> None:
    assert run.health.startswith("healthy"), f"{run.health}\n{run.log}"
    assert run.exit_code == 0, run.log
    assert "Traceback" not in run.log


OPTIONS_0_1_0 = {
    "language": LANGUAGE,  # 0.1.0's default was english (see the module docstring)
    "voices": [],
    "voices_dir": "/share/pocket-tts/voices",
    "voice_cache_size": 2,
    "quantize": False,
    "text_cleanup": True,
    "debug_logging": False,
}
"""Options saved by 0.1.0 with its defaults (its config.yaml; `quantize` was a bool)."""


def test_defaults(tmp_path: Path, hub: Path) -> None:
    """config.yaml's defaults: the voices folder is created in the add-on's own folder."""
    run = run_addon(tmp_path, hub, {"language": LANGUAGE}, exec_interpreter=True)
    print("defaults:", run.health, run.voices, run.warnings)
    assert_served(run)
    assert run.warnings == []
    assert (run.host["/config"] / "voices").is_dir()
    assert run.voices == ["alba"]


def test_lowest_values(tmp_path: Path, hub: Path) -> None:
    saved = {
        "language": LANGUAGE,
        "max_models": 1,
        "voice_cache_size": 1,
        "loudness": "-70",
        "quantize": "off",
        "preload": True,
        "text_cleanup": False,
        "number_words": False,
        "voices_dir": "",
        "voice": "",
    }
    run = run_addon(tmp_path, hub, saved)
    print("lowest:", run.health, run.voices, run.warnings)
    assert_served(run)
    assert run.warnings == [] and run.voices == ["alba"]


def test_highest_values_and_what_the_schema_cannot_refuse(tmp_path: Path, hub: Path) -> None:
    """Top of every range, plus values only the add-on can judge: each is one warning line."""
    saved = {
        "language": LANGUAGE,
        "languages": ["english", "french", "french_24l"],
        "max_models": 7,
        "voice_cache_size": 8,
        "loudness": " OFF ",
        "quantize": "on",
        "debug_logging": True,
        "voice": "nobody",
        "voices": [
            {"name": " mamie ", "source": "/share/mamie.wav", "language": "fr"},
            {"name": "ghost", "source": "/share/missing.wav"},
            {"name": "bob", "source": "alba"},
            {"name": "bob", "source": "marius"},
            {"name": "oma", "source": "alba", "language": "nl"},
        ],
        "voices_dir": "/elsewhere/voices",
        "hf_token": "hf_not_a_token",
    }

    def share_audio(host: dict[str, Path]) -> None:
        write_voice_wav(host["/share"] / "mamie.wav", 1.0)

    run = run_addon(tmp_path, hub, saved, prepare=share_audio)
    print("highest:", run.health, run.voices, *run.warnings, sep="\n  ")
    assert_served(run)
    assert len(run.warnings) == 7, run.warnings
    assert "bob" in run.voices and "ghost" not in run.voices and "oma" not in run.voices
    assert (run.host["/config"] / "voices").is_dir()


def test_options_saved_by_0_1_0(tmp_path: Path, hub: Path) -> None:
    """After the update the saved voices folder on the read-only /share cannot be created."""
    run = run_addon(tmp_path, hub, OPTIONS_0_1_0)
    print("0.1.0:", run.health, run.voices, run.warnings)
    assert_served(run)
    assert run.warnings == [
        "Voices folder /share/pocket-tts/voices: cannot be created: Read-only file system; "
        "using /config/voices instead"
    ]
    assert (run.host["/config"] / "voices").is_dir()
    assert "; --quantize off," in run.log  # 0.1.0's quantize: false (the speed line)


def test_voices_folder_missing_and_unwritable(tmp_path: Path, hub: Path) -> None:
    """The add-on's own folder mapped read-only: no voices folder, a warning, and it serves."""
    manifest = config()
    manifest["map"] = ["addon_config", "share"]
    run = run_addon(tmp_path, hub, {"language": LANGUAGE}, manifest=manifest)
    print("unwritable:", run.health, run.voices, run.warnings)
    assert_served(run)
    assert run.warnings == [
        "Voices folder /config/voices: cannot be created: Read-only file system; "
        "serving without one"
    ]


def test_voices_folder_on_read_only_share(tmp_path: Path, hub: Path) -> None:
    """An existing folder the add-on cannot write to is read as usual; the studio, through
    ingress, says it is read-only and refuses a new voice with a 409 saying so."""

    def voices_on_share(host: dict[str, Path]) -> None:
        write_voice_wav(host["/share"] / "pocket-tts" / "voices" / "grandma.wav", 1.0)

    seen: dict[str, Any] = {}

    def studio(pid: int) -> None:
        with ingress_link(pid) as link:
            _, _, page = link.request("GET", STUDIO)
            csrf = re.search(r'name="studio-csrf" content="([^"]+)"', page)
            seen["voices"] = json.loads(link.request("GET", STUDIO + "studio/api/voices")[2])
            headers = {"X-Studio-CSRF": csrf[1] if csrf else ""}
            save = STUDIO + "studio/api/voices?name=new&language=en&start=0&end=0"
            seen["save"] = link.request("POST", save, headers=headers, body=b"RIFF")

    saved = {"language": LANGUAGE, "voices_dir": "/share/pocket-tts/voices"}
    run = run_addon(tmp_path, hub, saved, prepare=voices_on_share, while_healthy=studio)
    print("read-only share:", run.health, run.voices, run.warnings, seen)
    assert_served(run)
    assert run.warnings == [] and "grandma" in run.voices
    problem = seen["voices"]["folder_problem"]
    assert "/share/pocket-tts/voices is read-only" in problem and "/config/voices" in problem
    assert seen["voices"]["can_add"] is False
    status, _, body = seen["save"]
    assert status == 409 and json.loads(body)["error"] == {
        "message": problem,
        "type": "studio_error",
        "param": None,
        "code": "read-only-folder",
    }


def test_recording_as_default_voice_without_cloning(
    tmp_path: Path, hub_without_cloning: Path
) -> None:
    """A recording in the voices folder as the only voice, no Hugging Face token: the schema
    accepts it, the add-on cannot know whether the gated weights will load, the server decides."""

    def recording(host: dict[str, Path]) -> None:
        write_voice_wav(host["/config"] / "voices" / "grandma.wav", 1.0)

    saved = {"language": LANGUAGE, "voice": "grandma"}
    run = run_addon(tmp_path, hub_without_cloning, saved, prepare=recording)
    print("recording without cloning:", run.health, run.exit_code, run.log.splitlines()[-2:])
    assert_served(run)


def test_values_the_0_3_2_schema_accepted(tmp_path: Path, hub: Path) -> None:
    """0.3.2's schema let any text through as an origin, a default voice and a voice name, and
    three such values stopped the add-on (exit 2) or renamed a voice. Saved under that schema,
    they now each give one warning, and the add-on serves; the voices keep their names or are
    refused, and today's schema's edge values are served as given."""
    manifest = config()
    schema = manifest["schema"]
    schema.update(voice="str?", http_cors="str?")  # 0.3.2's
    schema["voices"][0]["name"] = r"match(^[^=]*[^=\s][^=]*$)"
    saved = {
        "language": LANGUAGE,
        "http_cors": "homeassistant.local:3000",
        "voice": "en:grandma",
        "voices": [
            {"name": "mom:calm", "source": "alba"},
            {"name": "en:grandma", "source": "alba"},
            {"name": "Mamie Élise (calm)", "source": "alba", "speed": 0.5},
        ],
    }
    run = run_addon(tmp_path, hub, saved, manifest=manifest)
    print("0.3.2 schema:", run.health, run.voices, *run.warnings, sep="\n  ")
    assert_served(run)
    assert len(run.warnings) == 4, run.warnings
    assert run.voices == ["Mamie Élise (calm)"]  # neither `grandma` nor `calm`
    today = config()["schema"]
    with pytest.raises(Invalid):  # today's schema says the rule before the start
        validate_options(today, merge_options(config()["options"], saved))


STUDIO = f"http://{ADDON_ADDRESS}:{config()['ingress_port']}/"
"""Where the Supervisor's ingress proxy sends the panel's requests (`api/ingress.py`)."""
SPEECH = json.dumps({"input": "", "voice": "alba"}).encode()
"""An OpenAI speech request the API refuses (empty input) once it is let in: no generation."""
JSON = {"Content-Type": "application/json"}


def _studio_answers(pid: int, seen: dict[str, Any]) -> None:
    """The studio's page, its voice list and a change (with the page's CSRF token) through the
    ingress link from the proxy's address; then the speech API from the proxy and from another
    address of the same network."""
    with ingress_link(pid) as link:
        status, _, page = link.request("GET", STUDIO)
        seen["page"] = status
        csrf = re.search(r'name="studio-csrf" content="([^"]+)"', page)
        seen["voices"] = link.request("GET", STUDIO + "studio/api/voices")[0]
        body = json.dumps({"text": "Hi", "voice": "alba"}).encode()
        headers = {**JSON, "X-Studio-CSRF": csrf[1] if csrf else ""}
        prepare = STUDIO + "studio/api/prepare"
        seen["prepare"] = link.request("POST", prepare, headers=headers, body=body)[0]
        seen["studio_other"] = link.request("GET", STUDIO, source=OTHER)[0]
        speech = STUDIO + "v1/audio/speech"
        seen["api_proxy"] = link.request("POST", speech, headers=JSON, body=SPEECH)
        seen["api_other"] = link.request("POST", speech, source=OTHER, headers=JSON, body=SPEECH)


def _statuses(seen: dict[str, Any]) -> dict[str, int]:
    return {key: value if isinstance(value, int) else value[0] for key, value in seen.items()}


def test_studio_with_a_token_through_ingress(tmp_path: Path, hub: Path) -> None:
    """`http_token` set (as DOCS.md advises): the ingress proxy needs none, others still do."""
    seen: dict[str, Any] = {}
    saved = {"language": LANGUAGE, "http_token": "s3cret"}
    run = run_addon(tmp_path, hub, saved, while_healthy=lambda pid: _studio_answers(pid, seen))
    print("token:", _statuses(seen))
    assert_served(run)
    assert (seen["page"], seen["voices"], seen["prepare"]) == (200, 200, 200)
    assert seen["studio_other"] == 403  # the studio answers only the proxy in the add-on
    assert seen["api_proxy"][0] == 400 and "empty-input" in seen["api_proxy"][2]
    assert seen["api_other"][0] == 401 and "invalid-api-key" in seen["api_other"][2]


def test_studio_with_the_http_api_off(tmp_path: Path, hub: Path) -> None:
    """`http_api: false`: the ingress port still serves the studio, and nothing else."""
    seen: dict[str, Any] = {}
    saved = {"language": LANGUAGE, "http_api": False, "http_token": "s3cret"}
    run = run_addon(tmp_path, hub, saved, while_healthy=lambda pid: _studio_answers(pid, seen))
    print("api off:", _statuses(seen))
    assert_served(run)
    assert (seen["page"], seen["voices"], seen["prepare"]) == (200, 200, 200)
    assert seen["studio_other"] == 403
    assert seen["api_proxy"][0] == 400 and "empty-input" in seen["api_proxy"][2]
    assert seen["api_other"][0] == 403 and "api-off" in seen["api_other"][2]


def test_every_case_is_what_the_supervisor_accepts() -> None:
    """The saved options of the cases above pass the Supervisor's check against config.yaml."""
    manifest = config()
    for saved in ({}, OPTIONS_0_1_0):
        written = validate_options(manifest["schema"], merge_options(manifest["options"], saved))
        assert written.get("quantize") in ("auto", "False")
    with pytest.raises(Invalid):  # the 0.2.0 schema refused 0.1.0's options
        validate_options(
            {**manifest["schema"], "quantize": "list(auto|on|off)"},
            merge_options(manifest["options"], OPTIONS_0_1_0),
        )
