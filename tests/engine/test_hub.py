"""The real loading path, offline: the server started exactly as a user would start it.

`--language english_2m_2026-10 --voice alba` makes pocket-tts fetch its weights, tokenizer and
the `alba` voice state through `huggingface_hub`; here they come from a Hugging Face cache
folder laid out under the real repo, file and revision names, with `HF_HUB_OFFLINE=1`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from testkit.model_factory import build_hf_cache, write_voice_wav
from testkit.support import ServerProcess, describe, synthesize


def test_builtin_language_and_voice_from_the_hub_cache(tmp_path: Path) -> None:
    """Slow (up to ~30 s on a busy host): a server process of its own (huggingface_hub reads
    HF_HOME once, at import), which encodes a cloned voice."""
    hf_home = tmp_path / "hf"
    build_hf_cache(hf_home, language="english_2m_2026-10", voices=("alba", "marius"))
    clone = write_voice_wav(tmp_path / "clone.wav", 1.5, seed=11)
    env = {"HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"}
    args = [
        "--language",
        "english_2m_2026-10",
        "--voice",
        "alba",
        "--voice",
        "marius",
        "--voice",
        f"me={clone}",
        "--data-dir",
        str(tmp_path / "data"),
    ]
    with ServerProcess(args, tmp_path / "server.log", env=env) as server:
        server.wait_for_log("Ready")
        voices = asyncio.run(describe(server.port)).tts[0].voices
        assert [(v.name, v.languages) for v in voices] == [
            ("alba", ["en"]),
            ("marius", ["en"]),
            ("me", ["en"]),
        ]
        assert "built-in" in (voices[0].description or "")
        for name in ("alba", "marius", "me"):
            reply = asyncio.run(synthesize(server.port, "Hello from the hub.", voice=name))
            assert reply.audio and not reply.errors, name
        assert server.stop() == 0
    assert "Encoded voice me" in server.log  # cloning works: the weights came with it


def test_missing_hub_files_make_the_start_wait_and_say_why(tmp_path: Path) -> None:
    """Up to ~20 s on a busy host: a server process of its own (HF_HOME, read at import). An
    empty cache with the hub offline is a download that found no network: the server waits
    (tests/server/test_offline_start.py serves once the files appear) and its log says why."""
    env = {"HF_HOME": str(tmp_path / "empty"), "HF_HUB_OFFLINE": "1"}
    args = ["--language", "english_2m_2026-10", "--voice", "alba"]
    with ServerProcess(args, tmp_path / "server.log", env=env) as server:
        server.wait_for_log("Waiting for the network")
        assert server.stop() == 0
    (line,) = [line for line in server.log.splitlines() if "Waiting for the network" in line]
    assert "pocket-tts english_2m_2026-10 is not downloaded yet" in line, line
    assert "offline mode is enabled" in line, line  # the hub's own reason
    assert "Cannot start" not in server.log
