"""The documents' examples work as written, so the README and docs/ cannot drift from the code.

Every server command line in a `sh` block of the README or a docs/ page (`script/run`,
`wyoming-pocket-tts`, the Docker image's arguments) is parsed by the real command line, with the
example's absolute paths made real under a temporary folder. Every `curl` and Python (`openai`)
example is run against one real server with the HTTP side on, on the tiny model: only the port
and the token are swapped in. Every flag is documented on docs/command-line.md, every add-on
option in pocket-tts/DOCS.md, and every relative link points to a file and heading that exist.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from testkit.model_factory import TinyModel
from testkit.support import ServerProcess
from tests.conftest import model_args
from tests.http_support import decode
from wyoming_pocket_tts import __version__
from wyoming_pocket_tts.cli import build_parser, parse_settings

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
COMMAND_LINE = DOCS / "command-line.md"
ADDON = ROOT / "pocket-tts"
ADDON_DOCS = ADDON / "DOCS.md"
DOCUMENTS = [README, *sorted(DOCS.glob("*.md"))]
"""The documents whose examples are checked: the README and every page under docs/."""
LINKED = [*DOCUMENTS, ADDON_DOCS, ADDON / "README.md"]
"""The documents whose links are checked."""
TOKEN = "readme-token"
REPO_URLS = (
    "https://github.com/wyoming-pocket-tts/wyoming-pocket-tts/blob/main/",
    "https://raw.githubusercontent.com/wyoming-pocket-tts/wyoming-pocket-tts/main/",
)
"""Absolute links into this repository (DOCS.md is shown inside Home Assistant, where relative
links do not work): checked as the local file they name."""
_BLOCK_RE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_PATH_RE = re.compile(r"(?<![\w:/.])/[\w.-]+(?:/[\w.-]+)*")
"""An absolute path in an argument (`/voices/oma.wav`), not part of a URL (`tcp://...`)."""
_LINK_RE = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
"""An inline link or image `[text](target)`, or a reference definition `[id]: target`."""
_SERVER_COMMANDS = ("script/run", "wyoming-pocket-tts")
_SERVER_FLAGS = ("--http-port", "0", "--http-token", TOKEN)


def name(document: Path) -> str:
    """A document's path from the repository's root (as it is, outside the repository)."""
    return str(document.relative_to(ROOT)) if document.is_relative_to(ROOT) else str(document)


def blocks(language: str, text: str) -> list[str]:
    """The fenced code blocks of one language in a document's text."""
    return [body for lang, body in _BLOCK_RE.findall(text) if lang == language]


def document_blocks(language: str) -> list[tuple[Path, str]]:
    """(document, block) for every block of one language in the README and docs/."""
    return [
        (document, block)
        for document in DOCUMENTS
        for block in blocks(language, document.read_text(encoding="utf-8"))
    ]


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


def document_commands() -> list[tuple[Path, list[str]]]:
    return [(doc, command) for doc, block in document_blocks("sh") for command in commands(block)]


def server_flags(command: list[str]) -> list[str] | None:
    """The server flags of a command that starts the server, None for other commands."""
    if command[0] in _SERVER_COMMANDS:
        return command[1:]
    if command[:2] == ["docker", "run"]:
        for index, word in enumerate(command):
            if "wyoming-pocket-tts:" in word:  # the image: what follows goes to the server
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


def server_command_lines() -> list[tuple[Path, list[str]]]:
    """(document, command) for every command that starts the server."""
    return [(doc, command) for doc, command in document_commands() if server_flags(command)]


def curl_examples() -> list[tuple[Path, list[str]]]:
    return [(doc, command) for doc, command in document_commands() if command[0] == "curl"]


def openai_examples() -> list[tuple[Path, str]]:
    return [(doc, block) for doc, block in document_blocks("python") if "openai" in block]


def example_id(example: tuple[Path, object]) -> str:
    document, body = example
    words = body if isinstance(body, list) else body.split()
    return f"{name(document)}: {' '.join(words)[:90]}"


def test_the_documents_have_the_examples_this_test_reads() -> None:
    """Documents rewritten so the examples hide from this test fail here, not silently."""
    lines = server_command_lines()
    assert sum(document == README for document, _ in lines) >= 3
    assert sum(document == COMMAND_LINE for document, _ in lines) >= 2
    assert any(document == README for document, _ in curl_examples())
    assert any(document == DOCS / "http-api.md" for document, _ in openai_examples())


def test_every_docs_page_says_what_it_covers_and_is_linked_from_the_readme() -> None:
    readme_links = set(re.findall(r"\]\((docs/[\w-]+\.md)", README.read_text(encoding="utf-8")))
    for page in DOCS.glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert re.match(r"# .+\n\nThis page covers ", text), name(page)
        assert f"docs/{page.name}" in readme_links, name(page)


@pytest.mark.parametrize("example", server_command_lines(), ids=example_id)
def test_every_server_command_line_parses(example: tuple[Path, list[str]], tmp_path: Path) -> None:
    _, command = example
    flags = server_flags(command)
    assert flags is not None
    parse_settings(made_real(flags, tmp_path))  # exits 2 with the reason on a bad flag


def test_the_docker_example_runs_this_release() -> None:
    images = [
        word
        for _, command in document_commands()
        if command[:2] == ["docker", "run"]
        for word in command
        if "wyoming-pocket-tts:" in word
    ]
    assert images and all(image.endswith(f":{__version__}") for image in images), images


def test_the_scripts_the_documents_name_exist() -> None:
    named = {
        word for _, command in document_commands() for word in command if word.startswith("script/")
    }
    readme = {
        word
        for block in blocks("sh", README.read_text(encoding="utf-8"))
        for command in commands(block)
        for word in command
        if word.startswith("script/")
    }
    assert {"script/setup", "script/run", "script/test"} <= readme
    for script in named:
        assert os.access(ROOT / script, os.X_OK), script


def test_the_readme_tests_with_what_ci_runs() -> None:
    """CI (`.ci/run`) runs the README's test command: both are a bare `script/test`."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == "script/test"
    readme_sh = blocks("sh", README.read_text(encoding="utf-8"))
    assert ["script/test"] in [command for block in readme_sh for command in commands(block)]


def test_a_broken_example_fails_this_test(tmp_path: Path) -> None:
    """The check above is real: an example with a flag the server lacks is refused."""
    broken = "```sh\nscript/run --voice alba --voice-folder /voices\n```\n"
    (flags,) = [server_flags(c) for b in blocks("sh", broken) for c in commands(b)]
    assert flags is not None
    with pytest.raises(SystemExit):
        parse_settings(made_real(flags, tmp_path))


def parser_flags() -> set[str]:
    """Every long flag the real command line has (but `--help`)."""
    return {
        option
        for action in build_parser()._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }


def documented_flags(text: str) -> set[str]:
    """The flags a page's flag table names in its first column."""
    return {
        flag
        for line in text.splitlines()
        if line.startswith("| `--")
        for flag in re.findall(r"`(--[\w-]+)", line.split(" | ")[0])
    }


def test_every_flag_is_on_the_command_line_page() -> None:
    documented = documented_flags(COMMAND_LINE.read_text(encoding="utf-8"))
    flags = parser_flags()
    assert flags - documented == set(), "flags missing from docs/command-line.md"
    assert documented - flags == set(), "docs/command-line.md names flags the server lacks"


def test_every_flag_in_the_readme_table_is_real() -> None:
    documented = documented_flags(README.read_text(encoding="utf-8"))
    assert len(documented) >= 10 and documented <= parser_flags(), documented - parser_flags()


def bench_flags() -> set[str]:
    """The flags `script/bench` has (its parser is built inside its `main`)."""
    source = (ROOT / "bench" / "__main__.py").read_text(encoding="utf-8")
    return set(re.findall(r'add_argument\(\s*"(--[\w-]+)"', source))


def test_every_flag_the_documents_name_is_real() -> None:
    """A flag named in running text (`--quantize off`) is the server's, and one given to
    `script/bench` is the bench's, so a renamed flag cannot linger anywhere in the documents."""
    server, bench = parser_flags() | {"-h", "--help"}, bench_flags()
    foreign = {"--require-hashes"}  # pip's, in development.md
    wrong = []
    for document in [*DOCUMENTS, ADDON_DOCS]:
        for span in re.findall(r"`([^`\n]+)`", document.read_text(encoding="utf-8")):
            if span.startswith("script/bench"):
                wrong += [
                    (name(document), f) for f in re.findall(r"--[\w-]+", span) if f not in bench
                ]
            elif (flag := re.match(r"--[\w-]+", span)) and flag[0] not in server | bench | foreign:
                wrong.append((name(document), flag[0]))
    assert len(bench) >= 5
    assert wrong == []


def option_sections(text: str) -> dict[str, str]:
    """DOCS.md's `### Option: `name`` sections, by option name."""
    parts = re.split(r"^### Option: `([^`]+)`$", text, flags=re.MULTILINE)
    return {
        key: body.split("\n## ", 1)[0] for key, body in zip(parts[1::2], parts[2::2], strict=True)
    }


def test_every_addon_option_is_in_docs_md() -> None:
    """Each option of the add-on's schema has its section in DOCS.md, and a list option's
    section shows an entry in YAML using exactly the fields its schema has (a voice's `name`,
    `source`, `language`, `speed`)."""
    schema = yaml.safe_load((ADDON / "config.yaml").read_text(encoding="utf-8"))["schema"]
    sections = option_sections(ADDON_DOCS.read_text(encoding="utf-8"))
    assert set(schema) - set(sections) == set(), "options missing from DOCS.md"
    assert set(sections) - set(schema) == set(), "DOCS.md documents options the add-on lacks"
    for option, kind in schema.items():
        if isinstance(kind, list) and isinstance(kind[0], dict):
            examples = [yaml.safe_load(block) for block in blocks("yaml", sections[option])]
            shown = {field for example in examples for entry in example for field in entry}
            assert shown == set(kind[0]), (option, shown)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(document: Path) -> set[str]:
    """Every anchor GitHub makes for a document's headings (a repeated one gets `-1`, ...)."""
    text = _BLOCK_RE.sub("", document.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(document: Path) -> Iterator[str]:
    """Every link target of a document, outside code blocks and code spans."""
    text = _BLOCK_RE.sub("", document.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    for match in _LINK_RE.finditer(text):
        yield match.group(1) or match.group(2)


def broken_link(document: Path, target: str) -> str | None:
    """Why a link is broken, or None when it points to a file (and heading) that exist."""
    for prefix in REPO_URLS:
        if target.startswith(prefix):
            path_part, _, anchor = target[len(prefix) :].partition("#")
            path = ROOT / path_part
            break
    else:
        if re.match(r"[a-z]+:", target):
            return None  # outside this repository
        path_part, _, anchor = target.partition("#")
        path = (document.parent / path_part).resolve() if path_part else document
    if not path.exists():
        return f"{target}: no such file"
    if anchor and anchor not in anchors(path):
        return f"{target}: no heading #{anchor} in {name(path)}"
    return None


def test_every_link_points_to_a_file_and_heading_that_exist() -> None:
    checked = [(document, target) for document in LINKED for target in links(document)]
    assert len(checked) >= 40  # the links really were found
    broken = [
        f"{name(document)}: {why}"
        for document, target in checked
        if (why := broken_link(document, target))
    ]
    assert broken == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    """The link check is real: a missing file and a missing heading are both reported."""
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n## Real heading\n", encoding="utf-8")
    assert broken_link(page, "#real-heading") is None
    assert broken_link(page, "#no-such-heading")
    assert broken_link(page, "missing.md")
    assert broken_link(README, REPO_URLS[0] + "docs/no-such-page.md")


@pytest.fixture(scope="module")
def http_server(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[int]:
    """One real server (a subprocess) with the HTTP side on, shared by every HTTP example: its
    HTTP port."""
    log = tmp_path_factory.mktemp("readme-server") / "server.log"
    args = model_args(tiny_model, {"alba": voices["a"]}, *_SERVER_FLAGS)
    with ServerProcess(args, log) as server:
        server.wait_for_log("Ready")
        match = re.search(r"HTTP API on http://127\.0\.0\.1:(\d+)", server.log)
        assert match, server.log
        yield int(match.group(1))
        assert server.stop() == 0, server.log


def run_curl(command: list[str], port: int) -> tuple[int, bytes, str | None]:
    """A documented curl command, sent with urllib (curl may not be installed): its status,
    body and `-o` file name."""
    url, headers, data, output = "", {}, None, None
    words = iter(command[1:])
    for word in words:
        if word == "-H":
            key, _, value = next(words).partition(":")
            headers[key.strip()] = value.strip().replace("$TOKEN", TOKEN)
        elif word == "-d":
            data = next(words).encode()
        elif word == "-o":
            output = next(words)
        elif word.startswith("http"):
            url = word.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    assert url.startswith(f"http://127.0.0.1:{port}/"), command
    request = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.status, response.read(), output


def check_answer(body: bytes, file_name: str | None) -> None:
    """An audio file decodes to samples; any other answer is JSON."""
    suffix = Path(file_name).suffix.lstrip(".") if file_name else ""
    if suffix in {"mp3", "ogg", "opus", "flac", "wav", "pcm"}:
        assert decode(body, "pcm" if suffix == "pcm" else suffix).samples.size > 0, file_name
    else:
        json.loads(body)


@pytest.mark.parametrize("example", curl_examples(), ids=example_id)
def test_every_curl_example_is_answered(example: tuple[Path, list[str]], http_server: int) -> None:
    _, command = example
    status, body, output = run_curl(command, http_server)
    assert status == 200
    check_answer(body, output)


@pytest.mark.parametrize("example", openai_examples(), ids=example_id)
def test_every_openai_example_is_answered(
    example: tuple[Path, str], http_server: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document, snippet = example
    code = snippet.replace("127.0.0.1:8000", f"127.0.0.1:{http_server}")
    code = code.replace('"TOKEN"', repr(TOKEN))
    assert code != snippet, "the example does not call the server at 127.0.0.1:8000"
    monkeypatch.chdir(tmp_path)  # the examples write their files where they run
    exec(compile(code, name(document), "exec"), {})
    written = sorted(tmp_path.iterdir())
    assert written, "the example wrote no file"
    for path in written:
        check_answer(path.read_bytes(), path.name)
