"""DOCS.md's add-on steps followed in its order by one household, in the Supervisor's contract
(`test_supervisor_contract.run_addon`: /data, the `map:` folders, options.json checked against
the schema, the image's command and health check, ingress through a veth pair).

What DOCS.md shows is read from it, not copied here: the option examples (each `option: value`
in an option's section and its YAML block), the log lines it quotes, the port, the engine's and
the default voice's names, the number and pronunciation examples, the recording's length, the
voices folder, the HTTP API's port and header, the data folder's entries. A docs example the
schema refuses, or a quoted line the add-on no longer logs, fails here.

The household's folders (/data, /config, /share) are kept from one start to the next:
1. Installation, "The first start", "How to use": config.yaml's defaults, no Hugging Face token.
   The log's first-start lines in order, the health check, the Wyoming port's `describe` (the
   engine, its default voice) and speech. On that start, "Voice studio" through ingress: the
   page (and only for the proxy), the voices with their readiness, a sample played, the text as
   the model reads it, a pronunciation, a recording added (saved; not ready without the token).
2. "Configuration" and "Voice cloning": the token, the examples of `voices` (its recordings
   where the example puts them, the languages its text says it needs), `voice_aliases`,
   `speed`, the pauses and silences, `unload_after`, and an HTTP key. Cloning's log lines; the
   voices Home Assistant lists; speech in the cloned voice at the example's speed, pause and
   silences; the HTTP API from the network with the key, each alias speaking with its voice;
   the studio's "Make default". "Your own voices in the voices folder" on the same start: the
   file of its example, copied while the add-on runs, is in the next `describe`, and cloned at
   its first request.
3. A restart with the `voice` example set: nothing cloned or built again, the studio's default
   and pronunciation kept. "Data and backups": the data folder holds only what DOCS.md names,
   and a backup keeps what it says it keeps.

Faked as in test_supervisor_contract: the hub (a cache in /data/huggingface, offline: no
download lines; the first start's has no voice-cloning weights, as without a token), no
discovery, and `english_2m_2026-10` for `english`. As in the image, neither torch nor
pocket-tts can be imported (`without_torch`): the first start builds the graphs, as DOCS.md
tells, and there is no speed comparison to save (`tuning/`).
"""

from __future__ import annotations

import base64
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from testkit.model_factory import write_voice_wav
from tests.addon.test_supervisor_contract import (  # noqa: F401  (the hubs: fixtures; the mark)
    ADDON,
    LANGUAGE,
    STUDIO,
    Run,
    assert_served,
    config,
    hub,
    hub_without_cloning,
    image,
    in_container,
    pytestmark,
    run_addon,
)
from tests.ingress import ADDON as ADDON_ADDRESS
from tests.ingress import OTHER, Link, ingress_link
from tests.supervisor import Invalid, backed_up, merge_options, validate_options
from wyoming_pocket_tts.languages import language_code

DOCS = (ADDON / "DOCS.md").read_text(encoding="utf-8")
RATE = 24000
"""Samples per second of the model's audio (Wyoming, and the API's `pcm`)."""
TOKEN = "hf_household"
"""The household's Hugging Face token (the faked hub decides whether cloning weights exist)."""
KEY = "household-key"
"""The HTTP API key the household sets in `http_token` (DOCS.md gives no example)."""
STUDIO_VOICE = "anne"
"""The name of the recording added in the studio (DOCS.md gives none)."""
TEXT = "Hello there."
PAUSED = "Hello there. Goodbye now."
"""Two sentences: `sentence_pause` goes between them."""


# DOCS.md, read.


def chapter(title: str) -> str:
    """DOCS.md's text under the heading `title` (any level), up to the next heading."""
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", DOCS, re.M | re.S)
    assert match, f"DOCS.md has no heading {title!r}"
    return match[1]


def option(name: str) -> str:
    return chapter(f"Option: `{name}`")


def spans(text: str) -> list[str]:
    """The inline code of `text` outside its code blocks, line breaks read as spaces."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", text)]


def settings_shown(text: str) -> dict[str, Any]:
    """Each `option: value` of `text` whose option is config.yaml's, as YAML reads it."""
    schema = config()["schema"]
    shown = [yaml.safe_load(span) for span in spans(text) if re.match(r"^\w+: \S", span)]
    return {k: v for s in shown if isinstance(s, dict) for k, v in s.items() if k in schema}


def yaml_example(text: str) -> Any:
    """The one YAML block of `text`, parsed."""
    blocks = re.findall(r"^```yaml\n(.*?)^```", text, re.M | re.S)
    assert len(blocks) == 1, f"expected one YAML example, found {len(blocks)}"
    return yaml.safe_load(blocks[0])


def found(pattern: str, text: str) -> re.Match[str]:
    """`pattern` in `text` (whitespace-insensitive), or a failure naming what DOCS.md lost."""
    match = re.search(pattern, " ".join(text.split()))
    assert match, f"DOCS.md no longer says {pattern!r}"
    return match


def quoted(start: str, text: str = DOCS) -> str:
    """The inline code of `text` that starts with `start`: a line DOCS.md quotes."""
    lines = [span for span in spans(text) if span.startswith(start)]
    assert lines, f"DOCS.md no longer quotes a line starting {start!r}"
    return lines[0]


def logged(quote: str, log: str) -> list[int]:
    """The numbers of the log's lines that show `quote`, whose `...` and `<...>` stand for any
    text and `N` for a number."""
    pattern = re.escape(quote).replace(r"\.\.\.", ".*?")
    pattern = re.sub(r"<[^>]+>", ".+?", pattern)
    pattern = re.sub(r"\bN\b", r"[\\d.]+", pattern)
    return [n for n, line in enumerate(log.splitlines()) if re.search(pattern, line)]


def recording_seconds(text: str) -> float:
    """The shortest recording `text` asks for ("10 to 20 s")."""
    return float(found(r"(\d+) to \d+ s(econds)?\b", text)[1])


def saved_with(**options: Any) -> dict[str, Any]:
    """Options as the Configuration tab saves them, which the Supervisor checks: here too."""
    saved = {"language": LANGUAGE, **options}
    manifest = config()
    validate_options(manifest["schema"], merge_options(manifest["options"], saved))
    return saved


# The household's side: files, Wyoming, the studio, the HTTP API.


def kept_from(before: Run) -> Callable[[dict[str, Path]], None]:
    """`prepare` for the next start: the folders as the last start left them (options.json is
    the Supervisor's to write; the hub's cache is the start's own)."""

    def keep(host: dict[str, Path]) -> None:
        for target, folder in before.host.items():
            top = {"options.json", "huggingface"} if target == "/data" else set()
            shutil.copytree(folder, host[target], dirs_exist_ok=True, ignore=_at_top(folder, top))

    return keep


def _at_top(folder: Path, names: set[str]) -> Callable[[str, list[str]], set[str]]:
    """copytree's `ignore` for `names` at the top of `folder` only."""
    return lambda where, found: names & set(found) if Path(where) == folder else set()


_WYOMING = """
import asyncio, base64, json, sys
from wyoming.audio import AudioChunk, AudioStart
from wyoming.client import AsyncClient
from wyoming.info import Describe, Info
from wyoming.tts import (
    Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop, SynthesizeStopped,
    SynthesizeVoice,
)
ask = json.loads(sys.argv[1])

async def describe():
    async with AsyncClient.from_uri(ask["uri"]) as client:
        await client.write_event(Describe().event())
        while not Info.is_type((event := await client.read_event()).type):
            pass
    return [
        {"name": p.name, "voices": [[v.name, v.languages] for v in p.voices if v.installed]}
        for p in Info.from_event(event).tts if p.installed
    ]

async def speak():
    voice = SynthesizeVoice(name=ask["voice"]) if ask["voice"] else None
    async with AsyncClient.from_uri(ask["uri"]) as client:  # as Home Assistant streams
        await client.write_event(SynthesizeStart(voice=voice).event())
        await client.write_event(SynthesizeChunk(text=ask["text"]).event())
        await client.write_event(Synthesize(text=ask["text"], voice=voice).event())
        await client.write_event(SynthesizeStop().event())
        audio, rate = b"", None
        while not SynthesizeStopped.is_type((event := await client.read_event()).type):
            if AudioStart.is_type(event.type) and rate is None:
                rate = AudioStart.from_event(event).rate
            elif AudioChunk.is_type(event.type) and rate is not None:
                audio += AudioChunk.from_event(event).audio
    return {"rate": rate, "audio": base64.b64encode(audio).decode()}

main = speak() if "text" in ask else describe()
print(json.dumps(asyncio.run(asyncio.wait_for(main, 60))))
"""
"""Home Assistant's side of Wyoming: `describe`, or speech in a voice (streamed, as Home
Assistant asks a server that streams)."""


@dataclass
class Wyoming:
    """The Wyoming integration, added by hand at the add-on's port (run in its namespaces)."""

    pid: int
    port: int

    def _ask(self, **ask: str) -> Any:
        request = json.dumps({"uri": f"tcp://127.0.0.1:{self.port}", **ask})
        python = image().entrypoint[0]
        answer = in_container(self.pid, [python, "-c", _WYOMING, request], image().env)
        try:
            return json.loads(answer)
        except ValueError:
            raise AssertionError(answer) from None

    def programs(self) -> list[dict[str, Any]]:
        return list(self._ask())

    def voices(self) -> list[str]:
        """The voice list as Home Assistant reads it (at set-up, or a reload)."""
        return [name for program in self.programs() for name, _ in program["voices"]]

    def speak(self, voice: str, text: str = TEXT) -> np.ndarray:
        """Speech in `voice`, or with "" in the default voice (no voice asked for)."""
        answer = self._ask(voice=voice, text=text)
        assert answer["rate"] == RATE, answer
        return np.frombuffer(base64.b64decode(answer["audio"]), np.int16)


@dataclass
class Studio:
    """The voice studio as the page uses it: through the ingress proxy, with its CSRF token."""

    link: Link
    csrf: str = ""

    def open(self) -> int:
        status, _, page = self.link.request("GET", STUDIO)
        token = re.search(r'name="studio-csrf" content="([^"]+)"', page)
        self.csrf = token[1] if token else ""
        return status

    def get(self, path: str) -> Any:
        status, _, body = self.link.request("GET", STUDIO + path)
        assert status == 200, body
        return json.loads(body)

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        """A change (JSON, or an upload's bytes): its status and JSON answer."""
        headers = {"X-Studio-CSRF": self.csrf}
        if not isinstance(body, bytes):
            headers["Content-Type"] = "application/json"
            body = json.dumps(body).encode()
        status, _, answer = self.link.request("POST", STUDIO + path, headers=headers, body=body)
        return status, json.loads(answer)

    def play(self, voice: str) -> bytes:
        """A voice's sample, as the page plays it (the speech API's `pcm`, through ingress)."""
        speech = {"model": "en", "input": TEXT, "voice": voice, "response_format": "pcm"}
        headers = {"X-Studio-CSRF": self.csrf, "Content-Type": "application/json"}
        status, _, audio = self.link.request(
            "POST", STUDIO + "v1/audio/speech", headers=headers,
            body=json.dumps(speech).encode(), binary=True,
        )  # fmt: skip
        assert status == 200, audio
        return audio.encode("latin-1")

    def said(self, text: str) -> str:
        """The text as the model will read it."""
        status, answer = self.post("studio/api/prepare", {"text": text, "language": "en"})
        assert status == 200, answer
        return str(answer["prepared"])

    def last_voice(self) -> str:
        """The voice that spoke the last request (Status, "the last requests")."""
        return str(self.get("studio/api/status")["recent"][0]["voice"])


def api_speech(link: Link, voice: str, key: str | None) -> tuple[int, str]:
    """A speech request from the household's network (not the proxy) to the HTTP API's port,
    with the header DOCS.md gives for `http_token`."""
    port = int(found(r"on port (\d+) inside the add-on", option("http_api"))[1])
    header = quoted("Authorization: Bearer", option("http_token"))
    name, _, value = header.partition(": ")
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers[name] = value.replace("<key>", key)
    body = json.dumps({"model": "tts-1", "input": TEXT, "voice": voice, "response_format": "pcm"})
    status, _, answer = link.request(
        "POST", f"http://{ADDON_ADDRESS}:{port}/v1/audio/speech", source=OTHER,
        headers=headers, body=body.encode(), binary=True,
    )  # fmt: skip
    return status, answer


def silent_ms(audio: np.ndarray, *, end: bool = False) -> float:
    """Milliseconds of exact silence at the start (or the end) of `audio`."""
    loud = np.flatnonzero(audio[::-1] if end else audio)
    return 1000 * (int(loud[0]) if loud.size else audio.size) / RATE


def longest_inner_silence_ms(audio: np.ndarray) -> float:
    """Milliseconds of the longest run of exact silence between the first and last sound."""
    loud = np.flatnonzero(audio)
    return 1000 * int(np.diff(loud).max() - 1) / RATE if loud.size > 1 else 0.0


# The household's three starts.


@dataclass(frozen=True)
class Start:
    """One start of the household's add-on: its run, the options saved, what the household saw."""

    run: Run
    saved: dict[str, Any]
    seen: dict[str, Any]


@pytest.fixture(scope="module")
def wyoming_port() -> int:
    """The port DOCS.md gives for adding the integration by hand."""
    return int(found(r"and port `(\d+)`", chapter("How to use"))[1])


@pytest.fixture(scope="module")
def pronunciation() -> tuple[str, str]:
    """The studio's example: `written -> said`."""
    written, said = found(r"`(\S+) -> (\S+)`", chapter("Voice studio")).groups()
    return written, said


@pytest.fixture(scope="module")
def first_start(
    tmp_path_factory: pytest.TempPathFactory,
    hub_without_cloning: Path,  # noqa: F811
    wyoming_port: int,
    pronunciation: tuple[str, str],
) -> Start:
    """Installation: INSTALL, START with the defaults; then How to use and the Voice studio."""
    studio_text = chapter("Voice studio")
    phone = tmp_path_factory.mktemp("phone") / f"{STUDIO_VOICE}.wav"
    upload = write_voice_wav(phone, recording_seconds(studio_text), seed=7)
    saved = saved_with()
    seen: dict[str, Any] = {}

    def household(pid: int) -> None:
        wyoming = Wyoming(pid, wyoming_port)
        seen["programs"] = wyoming.programs()
        seen["speech"] = wyoming.speak(seen["programs"][0]["voices"][0][0])
        with ingress_link(pid) as link:
            studio = Studio(link)
            seen["page"] = studio.open()
            seen["page_from_the_network"] = link.request("GET", STUDIO, source=OTHER)[0]
            seen["voices"] = studio.get("studio/api/voices")
            seen["sample"] = studio.play(seen["voices"]["languages"][0]["default"])
            number = found(r'"([^"]+)" becomes "([^"]+)"', option("number_words"))
            seen["number"] = (number[2], studio.said(number[1]))
            written, said = pronunciation
            entries = {"language": "en", "entries": [[written, said]]}
            seen["pronunciations"] = studio.post("studio/api/pronunciations", entries)[0]
            seen["pronounced"] = studio.said(f"{written} is here.")
            query = f"?name={STUDIO_VOICE}&language=en&start=0&end=0"
            seen["save"] = studio.post("studio/api/voices" + query, upload.read_bytes())
            seen["voices_after"] = studio.get("studio/api/voices")

    folder = tmp_path_factory.mktemp("first-start")
    run = run_addon(folder, hub_without_cloning, saved, while_healthy=household, without_torch=True)
    return Start(run, saved, seen)


def configuration() -> dict[str, Any]:
    """The options the household sets from DOCS.md's Configuration examples."""
    voices = yaml_example(option("voices"))
    shown: dict[str, Any] = {}
    for name in ("unload_after", "speed", "sentence_pause", "lead_silence", "trail_silence"):
        shown |= settings_shown(option(name))
    needs = settings_shown(option("voices"))
    assert "languages" in needs, "DOCS.md no longer says which languages the voices need"
    return {
        "voices": voices,
        "languages": needs["languages"],
        "voice_aliases": yaml_example(option("voice_aliases")),
        "hf_token": TOKEN,
        "http_token": KEY,
        **shown,
    }


@pytest.fixture(scope="module")
def configured_start(
    tmp_path_factory: pytest.TempPathFactory,
    first_start: Start,
    hub: Path,  # noqa: F811
    wyoming_port: int,
) -> Start:
    """Configuration and Voice cloning (token, examples), a restart; then Your own voices in
    the voices folder while it runs."""
    saved = saved_with(**configuration())
    seen: dict[str, Any] = {}
    host: dict[str, Path] = {}
    seconds = recording_seconds(chapter("Your own voices in the voices folder"))
    folder_voice = found(
        r"e\.g\. `([\w-]+)\.wav`", chapter("Your own voices in the voices folder")
    )[1]
    default = saved["voices"][0]["name"]  # `voice` empty: "the first of your voices"

    def prepare(folders: dict[str, Path]) -> None:
        host.update(folders)
        kept_from(first_start.run)(folders)
        for n, voice in enumerate(saved["voices"]):
            source = Path(voice["source"])
            if source.is_absolute() and f"/{source.parts[1]}" in folders:
                top = f"/{source.parts[1]}"
                write_voice_wav(folders[top] / source.relative_to(top), seconds, seed=20 + n)

    def household(pid: int) -> None:
        wyoming = Wyoming(pid, wyoming_port)
        seen["voices"] = wyoming.voices()
        seen["programs"] = wyoming.programs()
        with ingress_link(pid) as link:
            studio = Studio(link)
            studio.open()
            seen["speech"] = (wyoming.speak(""), studio.last_voice())
            seen["paused"] = wyoming.speak("", PAUSED)
            for alias in [*saved["voice_aliases"], {"name": "alloy", "voice": default}]:
                status, answer = api_speech(link, alias["name"], KEY)
                heard = studio.last_voice() if status == 200 else answer
                seen.setdefault("aliases", []).append((alias["name"], alias["voice"], heard))
            seen["without_key"] = api_speech(link, default, None)
            # Your own voices in the voices folder: copied while the add-on runs, reloaded.
            write_voice_wav(host["/config"] / "voices" / f"{folder_voice}.wav", seconds, seed=40)
            seen["reloaded"] = wyoming.voices()
            seen["folder_speech"] = (wyoming.speak(folder_voice), studio.last_voice())
            seen["make_default"] = studio.post(
                "studio/api/defaults", {"language": "en", "name": STUDIO_VOICE}
            )
            seen["after_default"] = wyoming.voices()

    folder = tmp_path_factory.mktemp("configured")
    run = run_addon(
        folder, hub, saved, prepare=prepare, while_healthy=household, without_torch=True
    )
    seen["folder_voice"] = folder_voice
    return Start(run, saved, seen)


@pytest.fixture(scope="module")
def restart(
    tmp_path_factory: pytest.TempPathFactory,
    configured_start: Start,
    hub: Path,  # noqa: F811
    wyoming_port: int,
    pronunciation: tuple[str, str],
) -> Start:
    """A restart, with the `voice` option's example set."""
    example = found(r"`([\w-]+)` for `\1\.wav`", option("voice"))[1]
    saved = saved_with(**{**configured_start.saved, "voice": example})
    seen: dict[str, Any] = {}

    def household(pid: int) -> None:
        seen["voices"] = Wyoming(pid, wyoming_port).voices()
        with ingress_link(pid) as link:
            studio = Studio(link)
            studio.open()
            seen["pronounced"] = studio.said(f"{pronunciation[0]} is here.")

    run = run_addon(
        tmp_path_factory.mktemp("restart"),
        hub,
        saved,
        prepare=kept_from(configured_start.run),
        while_healthy=household,
        without_torch=True,
    )
    return Start(run, saved, seen)


# What DOCS.md says the household sees, step by step.


def test_every_configuration_example_passes_the_supervisors_check() -> None:
    """Each option's `option: value` examples (together) and YAML block, as the Configuration
    tab would save them; and every model DOCS.md names is one `language` offers."""
    manifest = config()
    refused, checked = [], set()
    for name in re.findall(r"^### Option: `(\w+)`$", DOCS, re.M):
        text = option(name)
        shown = settings_shown(text)
        if "```yaml" in text:
            shown[name] = yaml_example(text)
        try:
            validate_options(manifest["schema"], merge_options(manifest["options"], shown))
        except Invalid as error:
            refused.append(f"Option {name}: {shown}: {error}")
        checked |= set(shown)
    assert not refused
    assert {"voices", "voice_aliases", "languages", "speed", "trail_silence"} <= checked
    models = found(r"^list\((.+)\)$", manifest["schema"]["language"])[1].split("|")
    families = "|".join(sorted({model.split("_")[0] for model in models}))
    named = {span for span in spans(DOCS) if re.fullmatch(rf"({families})(_[\w-]+)?", span)}
    assert named and named <= set(models), named - set(models)


def test_installation_and_the_first_start(first_start: Start) -> None:
    """The log of the first start says what DOCS.md quotes, in its order; the health check
    (a `describe`) passes; the image is one of config.yaml's."""
    run = first_start.run
    assert_served(run)
    assert run.warnings == []
    arches = found(r"for your machine \((\w+), or (\w+)", chapter("Installation")).groups()
    assert set(arches) == set(config()["arch"])
    first, runtime = chapter("The first start"), option("runtime")
    int8 = not logged(quoted("int8 refused on this CPU"), run.log)  # the gate may refuse it
    in_order = [
        quoted("Building the en model's graphs", first),
        quoted("The graph build runs in a separate process", runtime),
        quoted("Built the graphs in", runtime),
        *([quoted("Loaded model", runtime)] if int8 else []),
        quoted("Ready: ", first),
    ]
    lines = {quote: logged(quote, run.log) for quote in in_order}
    assert all(lines.values()), f"{lines}\n{run.log}"
    assert [lines[quote][0] for quote in in_order] == sorted(lines[q][0] for q in in_order)
    speed = [quoted("Speed here: first audio", option("language"))]
    speed += [quoted("Speed here: ...", runtime)] if int8 else []
    assert all(logged(quote, run.log) for quote in speed), run.log


def test_how_to_use(first_start: Start) -> None:
    """At the port DOCS.md gives, Home Assistant finds the engine it names, with the model's
    default voice (`alba` for English), and hears it speak."""
    engine = found(r'pick "([^"]+)" as the text-to-speech engine', chapter("How to use"))[1]
    default = found(r"`(\w+)` for English", option("languages"))[1]
    programs = first_start.seen["programs"]
    assert programs == [{"name": engine, "voices": [[default, ["en"]]]}]
    speech = first_start.seen["speech"]
    assert speech.size > RATE // 2 and np.abs(speech).max() > 1000


def test_the_voice_studio(first_start: Start, pronunciation: tuple[str, str]) -> None:
    """Through ingress (only): the voices with their readiness, a sample, the text as the model
    reads it, a pronunciation, and a recording saved into the voices folder that says it waits
    for the token."""
    seen, text = first_start.seen, chapter("Voice studio")
    assert (seen["page"], seen["page_from_the_network"]) == (200, 403)
    (english,) = seen["voices"]["languages"]
    assert [(voice["name"], voice["ready"]) for voice in english["voices"]] == [("alba", True)]
    assert len(seen["sample"]) > RATE  # 16-bit samples: over half a second
    said, prepared = seen["number"]
    assert prepared == said
    written, spoken = pronunciation
    assert seen["pronunciations"] == 200
    assert spoken in seen["pronounced"] and written not in seen["pronounced"]
    status, voice = seen["save"]
    assert status == 201, voice
    assert (voice["name"], voice["ready"]) == (STUDIO_VOICE, False), voice
    assert "hf_token" in voice["remedy"], voice
    folder = Path(found(r"the voices folder, `(/config/\S+)` by default", text)[1])
    assert folder == Path(seen["voices_after"]["voices_dir"])
    saved = first_start.run.host["/config"] / folder.relative_to("/config") / f"{STUDIO_VOICE}.wav"
    assert saved.is_file()  # in the add-on's own folder (Samba's addon_configs)
    listed = {v["name"]: v for v in seen["voices_after"]["languages"][0]["voices"]}
    assert listed[STUDIO_VOICE]["ready"] is False and "hf_token" in listed[STUDIO_VOICE]["remedy"]


def test_voice_cloning(first_start: Start, configured_start: Start) -> None:
    """Without the token the log says cloning is not available, why, and names the voice left
    out once; after the token and a restart it says available, and the voice is listed."""
    text = chapter("Voice cloning")
    before = first_start.run.log.splitlines()
    refused = logged(quoted("Voice cloning (en): NOT available", text), first_start.run.log)
    reason = found(r'for example "([^"]+)"', text)[1]
    assert refused and reason in before[refused[0]], first_start.run.log
    left_out = [line for line in before if f"Voice {STUDIO_VOICE} is not offered" in line]
    assert len(left_out) == 1, first_start.run.log
    after = configured_start.run.log
    assert logged(quoted("Voice cloning (en): available", text), after), after
    assert logged(quoted("... those that clone voices", text), after), after
    assert STUDIO_VOICE in configured_start.seen["voices"]


def test_the_configuration_examples_at_work(first_start: Start, configured_start: Start) -> None:
    """The examples of `voices`, `voice_aliases`, `speed`, `sentence_pause`, `lead_silence` and
    `trail_silence`, saved together: every voice listed in its language, the first speaking by
    default, at that speed, with those pauses; each alias speaking with its voice over the HTTP
    API from the network, with the key and not without it; the studio's default listed first."""
    run, saved, seen = configured_start.run, configured_start.saved, configured_start.seen
    assert_served(run)
    assert run.warnings == [], run.warnings
    voices = saved["voices"]
    listed = dict(map(tuple, seen["programs"][0]["voices"]))
    assert set(listed) == {voice["name"] for voice in voices} | {STUDIO_VOICE}
    for voice in voices:
        code = language_code(voice.get("language", LANGUAGE))
        assert listed[voice["name"]] == [code], (voice, listed)
    speech, heard = seen["speech"]
    assert seen["voices"][0] == heard == voices[0]["name"]  # `voice` empty: the first of them
    lead, trail = saved["lead_silence"], saved["trail_silence"]
    assert lead <= silent_ms(speech) < lead + 5
    assert trail <= silent_ms(speech, end=True) < trail + 5
    spoken = speech.size - (lead + trail) * RATE // 1000
    assert spoken == pytest.approx(first_start.seen["speech"].size / saved["speed"], rel=0.02)
    assert longest_inner_silence_ms(seen["paused"]) >= saved["sentence_pause"]
    for alias, voice, heard in seen["aliases"]:
        assert heard == voice, (alias, heard)
    status, answer = seen["without_key"]
    assert status == 401 and "invalid-api-key" in answer
    assert seen["make_default"][0] == 200
    assert seen["after_default"][0] == STUDIO_VOICE  # Home Assistant takes a language's first


def test_your_own_voices_in_the_voices_folder(configured_start: Start, restart: Start) -> None:
    """The example's file, copied into the folder while the add-on runs, is in the list at the
    next reload; its first request clones it, and a restart does not again."""
    seen = configured_start.seen
    name = seen["folder_voice"]
    assert name not in seen["voices"] and name in seen["reloaded"]
    speech, heard = seen["folder_speech"]
    assert heard == name and speech.size > 0
    lines = configured_start.run.log.splitlines()
    ready = logged("Ready: ", configured_start.run.log)[0]
    cloned = [n for n, line in enumerate(lines) if f"Encoded voice {name} " in line]
    assert len(cloned) == 1 and cloned[0] > ready, configured_start.run.log
    assert f"Encoded voice {name} " not in restart.run.log, restart.run.log
    assert name in restart.seen["voices"]


def test_a_restart_keeps_what_the_household_made(
    restart: Start, pronunciation: tuple[str, str]
) -> None:
    """No graphs built again; the studio's default voice still wins over the `voice` option
    (set to its example), and its pronunciation still applies."""
    run = restart.run
    assert_served(run)
    assert run.warnings == []
    assert not logged(quoted("Building the en model's graphs"), run.log), run.log
    assert restart.saved["voice"] != STUDIO_VOICE
    assert restart.seen["voices"][0] == STUDIO_VOICE
    assert pronunciation[1] in restart.seen["pronounced"]


def test_data_and_backups(restart: Start) -> None:
    """The data folder holds what DOCS.md names and nothing else (but the Supervisor's
    options.json); a backup leaves out what it says a start rebuilds and keeps the rest."""
    text = chapter("Data and backups")
    rebuilt_text, kept_text = re.split(r"What your household\s+made is kept", text)
    entry = re.compile(r"[\w.-]+(/|\.json|\.key)")
    rebuilt = {span.rstrip("/") for span in spans(rebuilt_text) if entry.fullmatch(span)}
    kept = {span.rstrip("/") for span in spans(kept_text) if entry.fullmatch(span)}
    data = restart.run.host["/data"]
    present = {path.name for path in data.iterdir()} - {"options.json"}
    assert present <= rebuilt | kept, f"not named by DOCS.md: {present - rebuilt - kept}"
    assert rebuilt <= present
    assert kept - {"tuning"} <= present  # tuning/: "where PyTorch is installed"; not here
    backup = backed_up(data, config()["backup_exclude"])
    assert not {path for path in backup if path.split("/")[0] in rebuilt}
    for name in kept & present:
        files = {p.relative_to(data).as_posix() for p in [data / name, *(data / name).rglob("*")]}
        assert {path for path in files if (data / path).is_file()} <= backup, name
    recordings = restart.run.host["/config"] / "voices"
    assert {path.stem for path in recordings.glob("*.wav")} >= {STUDIO_VOICE}
