"""Command-line parsing: defaults, voices, and one-line errors with exit code 2."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.languages import language_code
from wyoming_pocket_tts.pocket import builtin_models, default_voice_source
from wyoming_pocket_tts.settings import EngineSettings, HttpSettings, ServerSettings, VoiceSpec
from wyoming_pocket_tts.voices.catalog import VoiceCatalog, parse_voice_arg


def test_defaults() -> None:
    settings = parse_settings([])
    assert settings.server.uri == "tcp://0.0.0.0:10200"
    assert settings.engine.default_model.model == "english"
    assert settings.engine.default_model.config is None
    assert settings.engine.voice_cache_size == 2
    assert settings.voices == ()
    assert settings.server.clean_text
    assert settings.engine.loudness is not None
    assert settings.engine.loudness.target_lufs == -20.0
    assert parse_settings(["--loudness", "OFF"]).engine.loudness is None
    quieter = parse_settings(["--language", "french", "--loudness", "-16"]).engine.loudness
    assert quieter is not None and quieter.target_lufs == -16.0


def test_voices_keep_order_and_bare_names(tmp_path: Path) -> None:
    wav = tmp_path / "grandma.wav"
    wav.write_bytes(b"")
    settings = parse_settings(["--voice", "alba", "--voice", f"nan={wav}", "--voice", str(wav)])
    assert settings.voices == (
        VoiceSpec("alba", "alba", "en"),
        VoiceSpec("nan", str(wav), "en"),
        VoiceSpec("grandma", str(wav), "en"),
    )


def test_builtin_models_listed_without_importing_torch() -> None:
    code = (
        "import sys; from wyoming_pocket_tts.pocket import builtin_models as b; "
        "print(len(b()), 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    count, torch_loaded = out.stdout.split()
    assert int(count) == len(builtin_models()) > 5
    assert torch_loaded == "False"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--language", "klingon"], "--language klingon: not a pocket-tts model"),
        (
            ["--language", "english", "--language", "english_2m_2026-10"],
            "--language english_2m_2026-10: a model for language en is already configured",
        ),
        (["--voice", "fr:mamie=alba"], "--voice fr:mamie: no model for language fr"),
        (["--model-config", "/nonexistent/x.yaml"], "no such file"),
        (["--model-config", "model.json"], "expected a .yaml file"),
        (["--voice", "a=/nonexistent/a.wav"], "--voice a: no such file"),
        (["--voice", "alba", "--voice", "alba"], "--voice alba: configured twice"),
        (["--voice", "=alba"], "expected [CODE:]NAME=SOURCE"),
        (["--voice-cache-size", "0"], "must be at least 1"),
        (["--uri", "http://x:1"], "expected tcp://HOST:PORT"),
        (["--uri", "tcp://localhost"], "expected tcp://HOST:PORT"),
        (["--uri", "unix:///tmp/x.sock", "--zeroconf"], "--zeroconf needs a tcp:// --uri"),
        (["--voices-dir", "/nonexistent/voices"], "no such folder"),
        (["--loudness", "loud"], "expected LUFS (e.g. -20) or off"),
        (["--loudness", "3"], "must be between -70 and 0 LUFS"),
        (["--loudness", "nan"], "must be between -70 and 0 LUFS"),
        (["--speed", "fast"], "argument --speed: expected a factor such as 1.2, got 'fast'"),
        (["--speed", "2.5"], "argument --speed: must be between 0.5 and 2.0"),
        (["--speed", "0.4"], "argument --speed: must be between 0.5 and 2.0"),
        (["--speed", "nan"], "argument --speed: must be between 0.5 and 2.0"),
        (["--sentence-pause", "0.3"], "--sentence-pause: expected whole milliseconds"),
        (["--sentence-pause", "-1"], "--sentence-pause: must be between 0 and 10000 ms"),
        (["--lead-silence", "20000"], "--lead-silence: must be between 0 and 10000 ms"),
        (["--voice", "a=alba,speed=3"], "--voice: speed must be between 0.5 and 2.0, got 3"),
        (["--voice", "a=alba,speed=slow"], "--voice: speed must be a number, got 'slow'"),
    ],
)
def test_bad_flags_exit_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """In this process: the flags are parsed before anything starts (one case runs the real
    `python -m`, below)."""
    with pytest.raises(SystemExit) as exited:
        parse_settings(argv)
    assert exited.value.code == 2
    stderr = capsys.readouterr().err
    assert message in stderr.strip().splitlines()[-1]
    assert "Traceback" not in stderr


def test_a_bad_flag_exits_the_real_command_with_2_and_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "wyoming_pocket_tts", "--voice", "a=alba,speed=3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    last_line = result.stderr.strip().splitlines()[-1]
    assert (
        last_line
        == "wyoming-pocket-tts: error: argument --voice: speed must be between 0.5 and 2.0, got 3"
    )
    assert "Traceback" not in result.stderr


def test_version_flag() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "wyoming_pocket_tts", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    assert result.stdout.strip()[0].isdigit()


def test_several_languages_keep_their_order_codes_and_voices(tmp_path: Path) -> None:
    config = tmp_path / "french_home.yaml"
    config.write_text("{}")
    settings = parse_settings(
        [
            "--language", "german",
            "--model-config", f"fr={config}",
            "--language", "english_2m_2026-10",
            "--voice", "fr:mamie=estelle",
            "--voice", "opa=juergen",
            "--max-models", "3",
            "--preload",
        ]
    )  # fmt: skip
    models = settings.engine.models
    assert [(m.model, m.config, m.code) for m in models] == [
        ("german", None, "de"),
        (None, str(config), "fr"),
        ("english_2m_2026-10", None, "en"),
    ]
    assert settings.engine.default_model is models[0]
    assert settings.voices == (
        VoiceSpec("mamie", "estelle", "fr"),
        VoiceSpec("opa", "juergen", "de"),
    )
    assert (settings.engine.max_models, settings.engine.preload) == (3, True)
    # --language-code names the first model; a custom config without CODE= is named by its file.
    coded = parse_settings(["--model-config", str(config), "--language-code", "fr-CA"])
    assert coded.engine.default_model.code == "fr-CA"
    assert parse_settings(["--model-config", str(config)]).engine.default_model.code == "fr"


def test_each_language_gets_its_default_voice_without_importing_torch() -> None:
    """The server is built (voices and all) before torch, so its port opens at once."""
    code = (
        "import sys; from wyoming_pocket_tts.cli import parse_settings; "
        "from wyoming_pocket_tts.server import TtsServer; "
        "s = TtsServer(parse_settings(['--language', 'french', '--language', 'english', "
        "'--voice', 'en:bob=alba'])); "
        "print(*(f'{v.name}:{v.code}' for v in s.catalog.voices), 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    # English has a configured voice; French gets pocket-tts's own default for French.
    assert out.stdout.split() == ["bob:en", "estelle:fr", "False"], out.stderr


def test_default_voices_match_pocket_tts() -> None:
    from pocket_tts.default_parameters import get_default_voice_for_language

    for language in [*builtin_models(), None]:
        config = None if language else "/custom.yaml"
        _, source = default_voice_source(language, config)
        assert source == get_default_voice_for_language(language, config), language


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("fr:mamie=/v/mamie.wav", VoiceSpec("mamie", "/v/mamie.wav", "fr")),
        ("pt-BR:ana=rafael", VoiceSpec("ana", "rafael", "pt-BR")),
        ("de:juergen", VoiceSpec("juergen", "juergen", "de")),
        ("hf://kyutai/tts-voices/x.wav", VoiceSpec(*["hf://kyutai/tts-voices/x.wav"] * 2, "")),
        ("n=hf://kyutai/tts-voices/x.wav", VoiceSpec("n", "hf://kyutai/tts-voices/x.wav", "")),
        ("alba", VoiceSpec("alba", "alba", "")),
        ("fr:mamie=/v/mamie.wav,speed=0.8", VoiceSpec("mamie", "/v/mamie.wav", "fr", 0.8)),
        ("alba,speed=1.25", VoiceSpec("alba", "alba", "", 1.25)),
        ("n=hf://k/v/x.wav@main, speed = 2", VoiceSpec("n", "hf://k/v/x.wav@main", "", 2.0)),
        ("n=/v/a,b.wav", VoiceSpec("n", "/v/a,b.wav", "")),  # a comma alone is the source's
    ],
)
def test_voice_language_prefix(value: str, expected: VoiceSpec) -> None:
    assert parse_voice_arg(value) == expected


def test_requests_reach_the_voice_of_their_language() -> None:
    catalog = VoiceCatalog(
        [VoiceSpec("alba", "alba", "en"), VoiceSpec("estelle", "estelle", "fr")],
        languages=["en", "fr"],
    )
    assert catalog.resolve(None, "fr-FR").name == "estelle"
    assert catalog.resolve(None, "fr_CA").name == "estelle"
    assert catalog.resolve(None, "de").name == "alba"  # not served: the first language
    assert catalog.resolve("nobody", "fr").name == "estelle"
    assert catalog.resolve("estelle", "en").name == "estelle"  # a named voice wins
    with pytest.raises(ValueError, match="not served"):
        VoiceCatalog([VoiceSpec("a", "alba", "de")], languages=["en"])


def test_parse_voice_arg_rejects_empty() -> None:
    with pytest.raises(ValueError):
        parse_voice_arg("name=")


def test_language_codes() -> None:
    settings = parse_settings(["--language", "french_24l"])
    assert settings.engine.default_model.code == "fr"
    assert language_code("english_2m_2026-10") == "en"


def test_catalog_never_resolves_unknown_names_to_anything_but_the_default() -> None:
    catalog = VoiceCatalog([VoiceSpec("a", "alba"), VoiceSpec("b", "/voices/b.wav")])
    assert catalog.resolve("b").source == "/voices/b.wav"
    for hostile in [
        "../../etc/passwd",
        "/tmp/x.wav",
        "http://example.com/x.wav",
        "hf://kyutai/tts-voices/x.wav",
        "x" * 5000,
        "",
        None,
    ]:
        assert catalog.resolve(hostile) == catalog.default


def test_zeroconf_flag() -> None:
    assert parse_settings([]).zeroconf_name is None
    assert parse_settings(["--zeroconf"]).zeroconf_name == "pocket-tts"
    named = parse_settings(["--zeroconf", "kitchen", "--zeroconf-host", "192.168.1.5"])
    assert (named.zeroconf_name, named.zeroconf_host) == ("kitchen", "192.168.1.5")


def test_speech_flags_reach_the_settings() -> None:
    defaults = parse_settings([]).engine.speech
    assert (defaults.speed, defaults.sentence_pause_ms, defaults.lead_silence_ms) == (1.0, 0, 0)
    settings = parse_settings(
        [
            "--speed", "1.2", "--sentence-pause", "300", "--lead-silence", "150",
            "--voice", "slow=alba,speed=0.8", "--voice", "alba",
        ]
    )  # fmt: skip
    speech = settings.engine.speech
    assert (speech.speed, speech.sentence_pause_ms, speech.lead_silence_ms) == (1.2, 300, 150)
    slow, alba = settings.voices
    assert speech.speed_for(slow) == 0.8 and speech.speed_for(alba) == 1.2


def test_http_flags() -> None:
    assert parse_settings([]).http.port is None  # off unless asked
    http = parse_settings(["--http-port", "8000"]).http
    assert (http.port, http.host, http.token, http.cors_origin) == (8000, "127.0.0.1", None, None)
    http = parse_settings(
        ["--http-port", "0", "--http-host", "0.0.0.0", "--http-token", "t", "--http-cors", "*"]
    ).http
    assert (http.port, http.host, http.token, http.cors_origin) == (0, "0.0.0.0", "t", "*")
    origin = parse_settings(["--http-port", "1", "--http-cors", "https://webui.lan:3000/"]).http
    assert origin.cors_origin == "https://webui.lan:3000"


def test_http_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WYOMING_POCKET_TTS_HTTP_TOKEN", "from-env")
    assert parse_settings(["--http-port", "1"]).http.token == "from-env"
    assert parse_settings(["--http-port", "1", "--http-token", "flag"]).http.token == "flag"
    monkeypatch.setenv("WYOMING_POCKET_TTS_HTTP_TOKEN", "")
    assert parse_settings(["--http-port", "1"]).http.token is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--http-token", "t"], "--http-token needs --http-port"),
        (["--http-cors", "*"], "--http-cors needs --http-port"),
        (["--http-port", "70000"], "must be a TCP port"),
        (["--http-port", "1", "--http-token", " "], "--http-token: the token is empty"),
        (["--http-port", "1", "--http-cors", "webui.lan"], "expected an origin like"),
        (["--http-port", "1", "--http-cors", "https://a/b"], "expected an origin like"),
    ],
)
def test_bad_http_flags_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_settings(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_flag_defaults_are_the_settings_own() -> None:
    """argparse reads its defaults from the dataclasses, so a bare command line is the defaults."""
    settings = parse_settings([])
    assert settings.server == ServerSettings()
    assert settings.http == HttpSettings()
    assert dataclasses.replace(settings.engine, data_dir=None) == EngineSettings()
