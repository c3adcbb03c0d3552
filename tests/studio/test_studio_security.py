"""The voice studio refuses what it must, over real TCP with aiohttp's client, against the real
in-process server: traversal names, oversize and non-audio uploads, cross-origin and CSRF-less
requests, peers other than the ingress proxy in add-on mode, a missing token. Each refusal is
a JSON 4xx and writes nothing."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import aiohttp
import pytest

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import describe
from tests.conftest import model_args
from tests.studio_support import Studio, read_only, running_studio
from wyoming_pocket_tts.audio import sample_check
from wyoming_pocket_tts.audio.sample_check import MAX_BYTES, SampleRefused
from wyoming_pocket_tts.http.studio import CSRF_HEADER, StudioSettings

pytestmark = pytest.mark.timeout(180)


def _written(root: Path) -> list[str]:
    """Every file under the voices and data folders (what a refusal must not add), but the
    engine's own caches (voice states, tuning), which its start writes."""
    caches = ("data/voice-states/", "data/tuning/")
    files = (str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    return sorted(name for name in files if not name.startswith(caches))


async def _save(
    session: aiohttp.ClientSession, studio: Studio, name: str, body: bytes, **headers: str
) -> tuple[int, dict]:
    url = studio.url + "studio/api/voices"
    params = {"name": name, "language": "en", "start": "0", "end": "0"}
    async with session.post(url, params=params, data=body, headers=headers) as response:
        return response.status, await response.json()


def _args(slim_model: TinyModel, root: Path) -> list[str]:
    voice = write_voice_wav(root / "configured" / "alba.wav", 2.0, seed=1)
    (root / "voices").mkdir()
    return model_args(
        slim_model,
        {"alba": voice},
        "--voices-dir",
        str(root / "voices"),
        "--data-dir",
        str(root / "data"),
    )


def test_bad_uploads_and_foreign_requests_are_refused(slim_model: TinyModel, tmp_path: Path):
    root = tmp_path / "root"
    good = write_voice_wav(tmp_path / "good.wav", 12.0, seed=4).read_bytes()
    settings = StudioSettings(voices_dir=root / "voices")

    async def scenario() -> None:
        async with running_studio(_args(slim_model, root), settings) as studio:
            async with aiohttp.ClientSession() as session:
                csrf = {CSRF_HEADER: await studio.csrf(session)}
                before = _written(root)
                refusals = {
                    "traversal": await _save(session, studio, "../../evil", good, **csrf),
                    "absolute": await _save(session, studio, "/tmp/evil", good, **csrf),
                    "oversize": await _save(
                        session, studio, "big", b"\0" * (MAX_BYTES + 1), **csrf
                    ),
                    "not audio": await _save(
                        session, studio, "fake", b"<html>not a wav</html>" * 100, **csrf
                    ),
                    "no csrf": await _save(session, studio, "nocsrf", good),
                    "cross origin": await _save(
                        session, studio, "evil", good, Origin="http://evil.example", **csrf
                    ),
                    "cross site": await _save(
                        session, studio, "evil", good, **{"Sec-Fetch-Site": "cross-site"}, **csrf
                    ),
                    "taken": await _save(session, studio, "ALBA", good, **csrf),
                }
                statuses = {why: status for why, (status, _) in refusals.items()}
                assert statuses == {
                    "traversal": 400,
                    "absolute": 400,
                    "oversize": 413,
                    "not audio": 415,
                    "no csrf": 403,
                    "cross origin": 403,
                    "cross site": 403,
                    "taken": 409,
                }
                for _, body in refusals.values():
                    assert body["error"]["message"] and body["error"]["code"]
                async with session.get(studio.url + "studio/static/..%2f..%2fstudio.py") as got:
                    assert got.status == 404
                assert _written(root) == before
                # The same sample, from the page's own origin with its token, is saved.
                status, _ = await _save(
                    session, studio, "fine", good, Origin=studio.url.rstrip("/"), **csrf
                )
                assert status == 201
            names = [v.name for v in (await describe(studio.server.port)).tts[0].voices]
            assert "fine" in names and "evil" not in names

    asyncio.run(scenario())


def test_add_on_mode_only_lets_the_ingress_proxy_in(slim_model: TinyModel, tmp_path: Path):
    root = tmp_path / "root"
    good = write_voice_wav(tmp_path / "good.wav", 12.0, seed=4).read_bytes()
    args = _args(slim_model, root)

    async def attempt(settings: StudioSettings) -> tuple[int, int]:
        async with running_studio(args, settings) as studio, aiohttp.ClientSession() as session:
            async with session.get(studio.url) as page:
                page_status = page.status
            headers = {CSRF_HEADER: "x"}
            if page_status == 200:
                headers[CSRF_HEADER] = await studio.csrf(session)
            status, _ = await _save(session, studio, "viaproxy", good, **headers)
            return page_status, status

    async def scenario() -> None:
        before = _written(root)
        assert await attempt(StudioSettings(root / "voices", ingress=True)) == (403, 403)
        assert _written(root) == before
        # The same requests from the address given as the proxy's are served.
        proxy = StudioSettings(root / "voices", ingress=True, ingress_proxy="127.0.0.1")
        assert await attempt(proxy) == (200, 201)

    asyncio.run(scenario())


def test_with_a_token_the_page_is_opened_once_with_it(slim_model: TinyModel, tmp_path: Path):
    root = tmp_path / "root"
    settings = StudioSettings(root / "voices", token="s3cret")

    async def scenario() -> None:
        async with running_studio(_args(slim_model, root), settings) as studio:
            jar = aiohttp.CookieJar(unsafe=True)  # a browser keeps cookies of 127.0.0.1 too
            async with aiohttp.ClientSession(cookie_jar=jar) as session:
                for url in (studio.url, studio.url + "studio/api/voices"):
                    async with session.get(url) as response:
                        assert response.status == 401
                async with session.get(studio.url + "?token=wrong") as response:
                    assert response.status == 401
                # One token check for the API and the studio: the scheme in any case.
                for scheme in ("Bearer", "bearer", "BEARER"):
                    bearer = {"Authorization": f"{scheme} s3cret"}
                    for path in ("studio/api/voices", "v1/models"):
                        async with session.get(studio.url + path, headers=bearer) as ok:
                            assert ok.status == 200, (scheme, path, ok.status)
                async with session.get(
                    studio.url + "studio/api/voices", headers={"Authorization": "bearer wrong"}
                ) as refused:
                    assert refused.status == 401
                async with session.get(studio.url + "?token=s3cret") as opened:
                    assert opened.status == 200 and "studio-csrf" in await opened.text()
                async with session.get(studio.url + "studio/api/voices") as response:
                    assert response.status == 200  # the cookie set by ?token=

    asyncio.run(scenario())


async def _post_json(
    session: aiohttp.ClientSession, studio: Studio, path: str, body: dict, **headers: str
) -> tuple[int, dict]:
    async with session.post(studio.url + "studio/api/" + path, json=body, headers=headers) as got:
        return got.status, await got.json()


def _said(answer: tuple[int, dict]) -> tuple[int, str, str]:
    status, body = answer
    return status, body["error"]["code"], body["error"]["message"]


@pytest.mark.skipif(os.geteuid() != 0, reason="a read-only bind mount needs root")
def test_each_refusal_reaches_the_page_with_its_own_message(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    """Through the HTTP side's real app and its error middleware: the studio's own status, code
    and message, never aiohttp's reason phrase ("Not Found", "Conflict")."""
    root = tmp_path / "root"
    good = write_voice_wav(tmp_path / "good.wav", 12.0, seed=4).read_bytes()
    junk = b"<html>not a wav</html>" * 100
    with pytest.raises(SampleRefused) as refused:
        sample_check.decode(junk)
    args = _args(slim_model, root)
    write_voice_wav(root / "voices" / "grandma.wav", 2.0, seed=2)
    settings = StudioSettings(voices_dir=root / "voices")

    async def scenario() -> None:
        async with running_studio(args, settings) as studio, aiohttp.ClientSession() as session:
            csrf = {CSRF_HEADER: await studio.csrf(session)}
            assert _said(await _save(session, studio, "ALBA", good, **csrf)) == (
                409,
                "name-taken",
                "A voice is already called ALBA",
            )
            rename = {"name": "nobody", "new_name": "somebody"}
            assert _said(await _post_json(session, studio, "voices/rename", rename, **csrf)) == (
                400,
                "unknown-voice",
                "No voice is called 'nobody'",
            )
            assert _said(await _save(session, studio, "x", good, **{CSRF_HEADER: "old"})) == (
                403,
                "bad-csrf",
                "Reload the page (its security token is stale)",
            )
            assert _said(await _save(session, studio, "fake", junk, **csrf)) == (
                415,
                refused.value.code,
                str(refused.value),
            )
            with read_only(root / "voices"):
                async with session.get(studio.url + "studio/api/voices") as listed:
                    voices = await listed.json()
                assert voices["can_add"] is False
                assert f"voices folder {root / 'voices'} is read-only" in voices["folder_problem"]
                saved = _said(await _save(session, studio, "newvoice", good, **csrf))
                assert saved == (409, "read-only-folder", voices["folder_problem"])
                delete = {"name": "grandma"}
                deleted = _said(await _post_json(session, studio, "voices/delete", delete, **csrf))
                assert deleted[:2] == (409, "read-only-folder")
                rename = {"name": "grandma", "new_name": "granny"}
                renamed = _said(await _post_json(session, studio, "voices/rename", rename, **csrf))
                assert renamed[:2] == (409, "read-only-folder")
            assert (root / "voices" / "grandma.wav").is_file()
            assert not (root / "voices" / "newvoice.wav").exists()

    asyncio.run(scenario())
