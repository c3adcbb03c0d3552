"""What a Docker user relies on, checked without a Docker engine (there is none here):

- the image's HEALTHCHECK follows the server's `--uri`: the Dockerfile's entry point runs as PID 1
  of its own PID and network namespaces (as in a container) on another port, and the
  Dockerfile's health command, run inside those namespaces as `docker exec` would, passes; with
  nothing on the port PID 1's command line names, it fails;
- the compose file: the multi-arch image of this release, a restart policy, the data volume,
  server arguments the server accepts, and the README shows it;
- the workflow's multi-arch step names the image as compose and the README do, over the
  per-architecture images config.yaml names (its bash run here as a tag push runs it).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from testkit.model_factory import TinyModel
from testkit.support import fixed_tuning, isolated_env
from tests.addon.test_supervisor_contract import image
from tests.conftest import model_args
from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.health import served_uri

from .test_readme import made_real

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yaml"
TOOLS = ("unshare", "nsenter", "ip")
needs_namespaces = pytest.mark.skipif(
    os.geteuid() != 0 or any(shutil.which(tool) is None for tool in TOOLS),
    reason="needs root, unshare, nsenter and ip (PID and network namespaces)",
)


def config() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "pocket-tts" / "config.yaml").read_text(encoding="utf-8"))


def multi_arch_image() -> str:
    """The one name over every architecture: config.yaml's `image:` without `{arch}-`."""
    return config()["image"].replace("{arch}-", "")


def _with_this_python(command: list[str]) -> list[str]:
    """A Dockerfile command with the image's venv Python replaced by this one."""
    assert command[0] == "/opt/venv/bin/python", command
    return [sys.executable, *command[1:]]


class Container:
    """`command` as PID 1 of new PID, mount (/proc) and network namespaces, loopback up."""

    def __init__(self, command: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        wrapper = ["unshare", "--pid", "--fork", "--mount-proc", "--net", "sh", "-c"]
        script = 'ip link set lo up && exec "$@"'
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [*wrapper, script, "sh", *command], env=env, stdout=out, stderr=subprocess.STDOUT
            )
        self.pid = self._init_pid()

    def _init_pid(self) -> int:
        """The host's id of the namespace's PID 1 (unshare's one child)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        deadline = time.monotonic() + 10
        while not (found := children.read_text().split()):
            assert time.monotonic() < deadline and self.process.poll() is None, self.output
            time.sleep(0.02)
        return int(found[0])

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def exec(self, command: list[str]) -> tuple[int, str]:
        """Run `command` inside (its PID, mount and network namespaces), as `docker exec`."""
        result = subprocess.run(
            ["nsenter", "-t", str(self.pid), "-p", "-m", "-n", *command],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return result.returncode, (result.stdout + result.stderr).strip()

    def stop(self) -> int:
        if self.process.poll() is None:
            os.kill(self.pid, signal.SIGTERM)
        try:
            return self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


@needs_namespaces
def test_the_health_check_follows_the_servers_uri(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    spec = image()
    health = _with_this_python(spec.healthcheck)
    flags = ["--uri", "tcp://0.0.0.0:10300", *fixed_tuning(model_args(tiny_model, voices))]
    entry = [*_with_this_python(spec.entrypoint), "--data-dir", str(tmp_path / "data"), *flags]
    container = Container(entry, isolated_env(tmp_path / "home"), tmp_path / "server.log")
    try:
        deadline = time.monotonic() + 120
        while (verdict := container.exec(health))[0] != 0:
            assert container.process.poll() is None, container.output
            assert time.monotonic() < deadline, (verdict, container.output)
            time.sleep(0.5)
        # The fixed address the image checked before: nothing listens there in this container.
        fixed = container.exec([*health, "--uri", "tcp://127.0.0.1:10200"])
        while "Ready" not in container.output:  # healthy while loading; then serving
            assert container.process.poll() is None, container.output
            assert time.monotonic() < deadline, container.output
            time.sleep(0.2)
        ready = container.exec(health)
    finally:
        code = container.stop()
    assert verdict[1].startswith("healthy: tcp://127.0.0.1:10300"), verdict
    assert ready[0] == 0 and "with 2 voice(s)" in ready[1], ready
    assert fixed[0] == 1 and "10200" in fixed[1], fixed
    assert code == 0, container.output


@needs_namespaces
def test_the_health_check_fails_when_nothing_listens_where_pid_1_says(tmp_path: Path) -> None:
    """PID 1's command line names port 10301 (a server that exited, or has not bound yet): the
    health command asks there, finds it closed, and says so."""
    stand_in = [sys.executable, "-c", "import time; time.sleep(60)", "--uri", "tcp://0.0.0.0:10301"]
    container = Container(stand_in, dict(os.environ), tmp_path / "stand-in.log")
    try:
        verdict = container.exec(_with_this_python(image().healthcheck))
    finally:
        container.stop()
    assert verdict[0] == 1 and verdict[1].startswith("unhealthy: tcp://127.0.0.1:10301"), verdict


@pytest.mark.parametrize(
    ("argv", "uri"),
    [
        (["python", "-m", "wyoming_pocket_tts.addon"], "tcp://127.0.0.1:10200"),
        (
            ["python", "-m", "wyoming_pocket_tts.addon", "--uri", "tcp://0.0.0.0:10300"],
            "tcp://127.0.0.1:10300",
        ),
        (["/sbin/docker-init", "--", "python", "--uri=tcp://[::]:7"], "tcp://[::1]:7"),
        (["x", "--uri", "tcp://0.0.0.0:1", "--uri", "tcp://192.168.1.5:2"], "tcp://192.168.1.5:2"),
        (["x", "--uri", "unix:///run/pocket.sock"], "unix:///run/pocket.sock"),
    ],
)
def test_the_uri_asked_is_the_last_one_given(argv: list[str], uri: str) -> None:
    assert served_uri(argv) == uri


def test_the_compose_file_runs_this_release_with_a_restart_policy_and_the_data_volume(
    tmp_path: Path,
) -> None:
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    (service,) = compose["services"].values()
    assert service["image"] == f"{multi_arch_image()}:{config()['version']}"
    assert service["restart"] in ("unless-stopped", "always")
    volume, target = service["volumes"][0].split(":")
    assert target == "/data" and volume in compose["volumes"]
    assert "10200:10200" in service["ports"]
    assert "healthcheck" not in service  # the image's own, which follows --uri
    parse_settings(made_real(service["command"], tmp_path))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(compose.yaml)" in readme and "docker compose up -d" in readme


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key given twice in one mapping, as Compose v2 does."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        repeated = {key for key in keys if keys.count(key) > 1}
        assert not repeated, f"keys given twice: {sorted(repeated)}"
        return super().construct_mapping(node, deep=deep)


def test_the_compose_files_own_voices_variant_is_a_whole_file_with_folders_the_user_owns(
    tmp_path: Path,
) -> None:
    """The commented variant at the end, uncommented as its comment says, is a compose file of
    its own: no key twice, the same image, a user, and bind mounts only (a named volume would
    be root-owned, so `/data` would not be writable as that user)."""
    lines = COMPOSE.read_text(encoding="utf-8").splitlines()
    start = lines.index("# services:")
    variant = yaml.load("\n".join(line[2:] for line in lines[start:]), Loader=_UniqueKeyLoader)
    yaml.load(COMPOSE.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    (service,) = variant["services"].values()
    assert "volumes" not in variant
    assert service["image"] == f"{multi_arch_image()}:{config()['version']}"
    assert service["user"] and service["environment"]["HOME"] == "/data"
    mounts = dict(reversed(volume.split(":")) for volume in service["volumes"])
    assert mounts["/data"].startswith("/") and mounts["/voices"].startswith("/")
    settings = parse_settings(made_real(service["command"], tmp_path))
    assert settings.voices_dirs == (tmp_path / "voices",)


def test_the_workflow_pushes_one_multi_arch_name_over_the_per_arch_images(
    tmp_path: Path,
) -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    job = workflow["jobs"]["manifest"]
    assert job["needs"] == "image" and job["if"] == "startsWith(github.ref, 'refs/tags/v')"
    script = next(s for s in job["steps"] if s.get("id") == "names")["run"]
    outputs = tmp_path / "outputs"
    outputs.write_text("")
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=ROOT,
        env={"PATH": os.environ["PATH"], "GITHUB_OUTPUT": str(outputs)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    version = config()["version"]
    per_arch = [config()["image"].replace("{arch}", arch) for arch in config()["arch"]]
    assert values == {
        "image": multi_arch_image(),
        "version": version,
        "sources": " ".join(f"{name}:{version}" for name in per_arch),
    }
    push = next(s for s in job["steps"] if "imagetools create" in s.get("run", ""))
    assert '-t "${IMAGE}:${VERSION}"' in push["run"] and "steps.names.outputs" in str(push["env"])
