"""The README's examples work as written, so the README cannot drift from the code.

Every server command line in a `sh` block (`script/run`, `wyoming-pocket-tts`, the Docker image's
arguments) is parsed by the real command line, with the example's absolute paths made real under
a temporary folder. The `curl` and Python (`openai`) examples are run against a real server with
the HTTP side on, on the tiny model: only the port and the token are swapped in.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
from pathlib import Path

import aiohttp
import pytest

from wyoming_pocket_tts import __version__
from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.server import TtsServer

from .conftest import model_args
from .http_support import bounded, decode
from .model_factory import TinyModel
from .support import running_server

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TOKEN = "readme-token"
_BLOCK_RE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_PATH_RE = re.compile(r"(?<![\w:/.])/[\w.-]+(?:/[\w.-]+)*")
"""An absolute path in an argument (`/voices/oma.wav`), not part of a URL (`tcp://...`)."""
_SERVER_COMMANDS = ("script/run", "wyoming-pocket-tts")


def blocks(language: str, text: str | None = None) -> list[str]:
    """The README's fenced code blocks of one language."""
    text = README.read_text(encoding="utf-8") if text is None else text
    return [body for lang, body in _BLOCK_RE.findall(text) if lang == language]


def commands(block: str) -> list[list[str]]:
    """Each command of a shell block as words: continuations and quoted line breaks joined,
    comments dropped, `&&` split."""
    found = []
    pending = ""
    for line in block.replace("\\\n", " ").splitlines():
        pending += line + "\n"
        try:
            words = shlex.split(pending, comments=True)
        except ValueError:  # a quote still open: the command goes on
            continue
        pending = ""
        current: list[str] = []
        for word in words:
            if word == "&&":
                found.append(current)
                current = []
            else:
                current.append(word)
        if current:
            found.append(current)
    assert not pending, f"unclosed quote in {block!r}"
    return found


def server_flags(command: list[str]) -> list[str] | None:
    """The server flags of a command that starts the server, None for other commands."""
    for index, word in enumerate(command):
        if word in _SERVER_COMMANDS or "wyoming-pocket-tts:" in word:  # the Docker image
            return command[index + 1 :]
    return None


def made_real(flags: list[str], root: Path) -> list[str]:
    """The flags with each absolute path moved under `root` and created there (a file when it
    has a suffix, else a folder), so that the CLI's own checks can pass."""

    def place(match: re.Match[str]) -> str:
        path = root / match.group(0).lstrip("/")
        if path.suffix:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        else:
            path.mkdir(parents=True, exist_ok=True)
        return str(path)

    return [_PATH_RE.sub(place, flag) for flag in flags]


def server_command_lines() -> list[list[str]]:
    return [
        flags
        for block in blocks("sh")
        for command in commands(block)
        if (flags := server_flags(command)) is not None
    ]


def test_the_readme_has_the_examples_this_test_reads() -> None:
    """A README rewritten so the examples hide from this test fails here, not silently."""
    assert len(server_command_lines()) >= 4
    assert any("curl" in command for block in blocks("sh") for command in commands(block))
    assert blocks("python")


@pytest.mark.parametrize("flags", server_command_lines(), ids=" ".join)
def test_every_server_command_line_parses(flags: list[str], tmp_path: Path) -> None:
    parse_settings(made_real(flags, tmp_path))  # exits 2 with the reason on a bad flag


def test_the_docker_example_runs_this_release() -> None:
    images = [
        word
        for block in blocks("sh")
        for command in commands(block)
        if command[:2] == ["docker", "run"]
        for word in command
        if "wyoming-pocket-tts:" in word
    ]
    assert images and all(image.endswith(f":{__version__}") for image in images), images


def test_the_scripts_the_readme_names_exist() -> None:
    named = {
        word
        for block in blocks("sh")
        for command in commands(block)
        for word in command
        if word.startswith("script/")
    }
    assert {"script/setup", "script/run", "script/test"} <= named
    for script in named:
        assert os.access(ROOT / script, os.X_OK), script


def test_a_broken_example_fails_this_test(tmp_path: Path) -> None:
    """The check above is real: an example with a flag the server lacks is refused."""
    broken = "```sh\nscript/run --voice alba --voice-folder /voices\n```\n"
    (flags,) = [server_flags(c) for b in blocks("sh", broken) for c in commands(b)]
    assert flags is not None
    with pytest.raises(SystemExit):
        parse_settings(made_real(flags, tmp_path))


def test_the_http_examples_are_answered(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    (curl,) = [c for b in blocks("sh") for c in commands(b) if c[0] == "curl"]
    (snippet,) = blocks("python")

    async def scenario(server: TtsServer, port: int) -> tuple[bytes, bytes, int]:
        status, mp3 = await run_curl(curl, port)
        code = snippet.replace("127.0.0.1:8000", f"127.0.0.1:{port}").replace(
            '"TOKEN"', repr(TOKEN)
        )
        await asyncio.to_thread(exec, compile(code, "README.md", "exec"), {})
        return mp3, (tmp_path / "dinner.ogg").read_bytes(), status

    async def main() -> tuple[bytes, bytes, int]:
        args = model_args(tiny_model, {"alba": voices["a"]}, "--http-port", "0")
        args += ["--http-token", TOKEN]
        async with running_server(args) as server:
            assert server.http is not None and server.http.port
            return await bounded(scenario(server, server.http.port), 120)

    cwd = Path.cwd()
    os.chdir(tmp_path)  # the examples write their files where they run
    try:
        mp3, ogg, status = asyncio.run(main())
    finally:
        os.chdir(cwd)
    assert status == 200
    assert decode(mp3, "mp3").samples.size > 0
    assert decode(ogg, "opus").samples.size > 0


async def run_curl(command: list[str], port: int) -> tuple[int, bytes]:
    """The README's curl command, sent with aiohttp (curl may not be installed)."""
    url, headers, data = "", {}, ""
    words = iter(command[1:])
    for word in words:
        if word == "-H":
            name, _, value = next(words).partition(":")
            headers[name.strip()] = value.strip().replace("$TOKEN", TOKEN)
        elif word == "-d":
            data = next(words)
        elif word == "-o":
            next(words)
        elif word.startswith("http"):
            url = word.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    assert url and data, command
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=data.encode(), headers=headers) as response,
    ):
        return response.status, await response.read()
