"""The web table's tests: the real bot in SimCord with its web server on loopback, and a
stand-in for Discord's OAuth2 (standin.py) that it logs players in through."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import simcord
from pydantic import SecretStr

from bot.config import Settings

from .standin import OAuthStandIn

CLIENT_ID = 1234567890123456789
CLIENT_SECRET = "a-client-secret-for-tests"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def oauth() -> AsyncIterator[OAuthStandIn]:
    standin = OAuthStandIn(CLIENT_ID, CLIENT_SECRET)
    await standin.start()
    try:
        yield standin
    finally:
        await standin.close()


@pytest.fixture
def settings(settings: Settings, oauth: OAuthStandIn) -> Settings:
    """The suite's settings with the web table on, on a free loopback port."""
    port = free_port()
    return settings.model_copy(
        update={
            "web_port": port,
            "web_host": "127.0.0.1",
            "web_base_url": f"http://127.0.0.1:{port}",
            "discord_client_id": CLIENT_ID,
            "discord_client_secret": SecretStr(CLIENT_SECRET),
            "discord_url": oauth.url,
        }
    )


@pytest.fixture
async def browser() -> AsyncIterator[aiohttp.ClientSession]:
    """An HTTP client that keeps cookies for 127.0.0.1, as a browser does. Each request on
    its own connection: SimCord waits for a kept-alive idle connection to settle (about 15 s)
    before its next slash command."""
    jar = aiohttp.CookieJar(unsafe=True)
    connector = aiohttp.TCPConnector(force_close=True)
    async with aiohttp.ClientSession(cookie_jar=jar, connector=connector) as session:
        yield session


async def log_in(
    http: aiohttp.ClientSession, base: str, user_id: int, next_path: str = "/"
) -> aiohttp.ClientResponse:
    """The whole login as a browser makes it: the bot's /login, Discord's page (approved as
    ``user_id``), the bot's callback; the last answer (after the redirects)."""
    async with http.get(f"{base}/login", params={"next": next_path}, allow_redirects=False) as go:
        assert go.status == 302, await go.text()
        authorize = go.headers["Location"]
    async with http.get(f"{authorize}&as={user_id}", allow_redirects=False) as back:
        assert back.status == 302
        callback = back.headers["Location"]
    response = await http.get(callback)
    await response.read()
    return response


def base_of(settings: Any) -> str:
    return str(settings.web_base_url)


@pytest.fixture
def live_env(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> simcord.Env:
    """The bot with its web table, whose sockets wait on their browsers: an outside input,
    declared to SimCord (it would otherwise wait for a socket's task to end before its next
    slash command), with aiohttp's heartbeat beyond SimCord's settling time (a timer it would
    wait for)."""
    from bot.web import live

    monkeypatch.setattr(live, "HEARTBEAT_SECONDS", 3600.0)
    env: simcord.Env = request.getfixturevalue("env")

    async def idle(waiting: Any) -> Any:
        return await env.external_wait(waiting, reason="a web table's socket")

    monkeypatch.setattr(live, "idle", idle)
    return env
