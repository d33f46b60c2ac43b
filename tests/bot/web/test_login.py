"""Who is who on the web table, proven by Discord (bot/web/server.py, sessions.py, oauth.py):
a Discord OAuth2 login, the code exchanged by the server with the client secret, the user's
id from ``/users/@me``; a session the server signed; the client's files served from the
bot's own origin under names that change with their content."""

from __future__ import annotations

import re

import aiohttp
import pytest
import simcord

from bot.web.sessions import Identity, Sessions

from .conftest import CLIENT_SECRET, base_of, log_in
from .standin import OAuthStandIn


async def test_a_login_opens_the_table_page(
    env: simcord.Env, oauth: OAuthStandIn, browser: aiohttp.ClientSession
) -> None:
    base = base_of(env.bot.settings)
    asha = env.create_user("asha")
    oauth.add_user(asha.id, "asha", locale="fr")
    # Not logged in: the table's page sends the browser to the login first.
    async with browser.get(f"{base}/table/7", allow_redirects=False) as first:
        assert first.status == 302 and first.headers["Location"] == "/login?next=/table/7"
    page = await log_in(browser, base, asha.id, "/table/7")
    assert page.status == 200 and str(page.url).endswith("/table/7")
    text = await page.text()
    assert 'data-table="7"' in text and 'lang="fr"' in text
    assert f'data-socket="ws://127.0.0.1:{env.bot.settings.web_port}/ws"' in text
    # No inline script, and every script and style comes from this origin.
    assert re.findall(r"<script(?![^>]*\bsrc=)", text) == []
    assert all(src.startswith("/assets/") for src in re.findall(r'(?:src|href)="([^"]+)"', text))
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert page.headers["Cache-Control"] == "no-store"
    async with browser.get(f"{base}/api/me") as me:
        assert await me.json() == {"id": str(asha.id), "name": "asha", "locale": "fr"}
    assert oauth.exchanges == 1


async def test_the_clients_files_are_named_by_their_content(
    env: simcord.Env, browser: aiohttp.ClientSession
) -> None:
    web = env.bot.web
    assert web is not None
    base = base_of(env.bot.settings)
    async with browser.get(f"{base}{web.assets.url('app.js')}") as script:
        assert script.status == 200
        assert script.headers["Content-Type"].startswith("text/javascript")
        assert "immutable" in script.headers["Cache-Control"]
    # Another digest (yesterday's files) is not served as today's.
    async with browser.get(f"{base}/assets/0000000000000000/app.js") as old:
        assert old.status == 404
    async with browser.get(f"{base}{web.assets.url('../server.py')}") as outside:
        assert outside.status == 404


async def test_a_forged_or_altered_session_is_not_a_login(
    env: simcord.Env, browser: aiohttp.ClientSession
) -> None:
    base = base_of(env.bot.settings)
    someone_else = Sessions("another application's secret").issue(Identity(42, "mallory"))
    genuine = Sessions(CLIENT_SECRET).issue(Identity(42, "mallory"))
    head, body, signature = genuine.split(".")
    altered = f"{head}.{body[:-2]}AA.{signature}"
    for token in (someone_else, altered, "1.e30.x", "garbage"):
        async with browser.get(
            f"{base}/api/me", headers={"Authorization": f"Bearer {token}"}
        ) as me:
            assert me.status == 401, token


async def test_a_login_that_did_not_start_here_or_that_discord_refuses_opens_nothing(
    env: simcord.Env, oauth: OAuthStandIn, browser: aiohttp.ClientSession
) -> None:
    base = base_of(env.bot.settings)
    asha = env.create_user("asha")
    oauth.add_user(asha.id, "asha")
    # A callback with a code but no login started in this browser (a forged link).
    code = oauth.code_for(asha.id, f"{base}/auth/callback")
    async with browser.get(f"{base}/auth/callback", params={"code": code, "state": "x"}) as cb:
        assert cb.status == 400
    # Discord refuses the exchange (here: the code was already used).
    async with browser.get(f"{base}/login", allow_redirects=False) as go:
        authorize = go.headers["Location"]
    async with browser.get(f"{authorize}&as={asha.id}", allow_redirects=False) as back:
        callback = back.headers["Location"]
    used = re.search(r"code=([^&]+)", callback)
    assert used is not None
    oauth.codes.pop(used.group(1))
    async with browser.get(callback, allow_redirects=False) as refused:
        assert refused.status == 502
    async with browser.get(f"{base}/api/me") as me:
        assert me.status == 401
    assert oauth.refused == 1 and oauth.exchanges == 0


async def test_an_activitys_code_is_exchanged_by_the_server(
    env: simcord.Env, oauth: OAuthStandIn, browser: aiohttp.ClientSession
) -> None:
    base = base_of(env.bot.settings)
    chen = env.create_user("chen")
    oauth.add_user(chen.id, "chen", locale="hi")
    code = oauth.code_for(chen.id)
    async with browser.post(f"{base}/api/activity/token", json={"code": code}) as answer:
        assert answer.status == 200
        body = await answer.json()
    assert body["access_token"] in oauth.tokens
    headers = {"Authorization": f"Bearer {body['session']}"}
    async with aiohttp.ClientSession() as fresh, fresh.get(f"{base}/api/me", headers=headers) as me:
        assert (await me.json())["id"] == str(chen.id)
    for bad in ({"code": code}, {"code": ""}, {"nothing": 1}, [1, 2]):
        async with browser.post(f"{base}/api/activity/token", json=bad) as refused:
            assert refused.status in (400, 502), bad


def test_a_session_expires_and_names_its_purpose() -> None:
    now = [1000.0]
    sessions = Sessions(CLIENT_SECRET, clock=lambda: now[0], lifetime=60)
    token = sessions.issue(Identity(7, "asha", "it"))
    assert sessions.read(token) == Identity(7, "asha", "it")
    # A login's state is sealed by the same key, but is no session.
    state = sessions.seal("login", {"u": "7", "n": "asha", "l": "it"}, 60)
    assert sessions.read(state) is None
    now[0] += 61
    assert sessions.read(token) is None


def test_the_web_table_is_off_by_default_and_says_what_it_needs() -> None:
    from bot.config import SettingsError, load_settings

    token = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
    assert load_settings(None, discord_token=token).web_port is None
    with pytest.raises(SettingsError, match="KACHUFUL_WEB_BASE_URL"):
        load_settings(None, discord_token=token, web_port=8080)
    with pytest.raises(SettingsError, match="KACHUFUL_DISCORD_CLIENT_SECRET"):
        load_settings(None, discord_token=token, web_port=8080, web_base_url="https://x.org")
    with pytest.raises(SettingsError, match="KACHUFUL_WEB_BASE_URL"):
        load_settings(None, discord_token=token, web_base_url="cards.example.org")
