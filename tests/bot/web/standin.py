"""A stand-in for Discord's OAuth2 on loopback, as the web table uses it: the login page
(``/oauth2/authorize``, a page listing the known users, each a link that "approves" as them,
or at once with ``as=<user id>``), the code exchange (``/api/v10/oauth2/token``, which checks
the client id, the secret, the code and its redirect address, each code once) and
``/api/v10/users/@me``. The bot reaches it through ``KACHUFUL_DISCORD_URL``."""

from __future__ import annotations

import html
import secrets
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Grant:
    user_id: int
    redirect_uri: str | None


@dataclass
class OAuthStandIn:
    client_id: int
    client_secret: str
    users: dict[int, dict[str, Any]] = field(default_factory=dict)
    codes: dict[str, Grant] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    exchanges: int = 0
    refused: int = 0
    url: str = ""
    _runner: web.AppRunner | None = None

    def add_user(self, user_id: int, name: str, locale: str = "en-US") -> None:
        self.users[user_id] = {
            "id": str(user_id),
            "username": name,
            "global_name": name,
            "locale": locale,
            "discriminator": "0",
            "avatar": None,
        }

    def code_for(self, user_id: int, redirect_uri: str | None = None) -> str:
        """A code as Discord gives one (an Activity's ``authorize``, or the login's redirect)."""
        code = secrets.token_urlsafe(12)
        self.codes[code] = Grant(user_id, redirect_uri)
        return code

    async def start(self) -> str:
        app = web.Application()
        app.router.add_get("/oauth2/authorize", self._authorize)
        app.router.add_post("/api/v10/oauth2/token", self._token)
        app.router.add_get("/api/v10/users/@me", self._me)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _authorize(self, request: web.Request) -> web.StreamResponse:
        query = request.query
        if query.get("client_id") != str(self.client_id) or query.get("scope") != "identify":
            raise web.HTTPBadRequest(text="unknown application or scope")
        redirect, state = query.get("redirect_uri", ""), query.get("state", "")
        if "as" in query:
            code = self.code_for(int(query["as"]), redirect)
            target = f"{redirect}?{urllib.parse.urlencode({'code': code, 'state': state})}"
            raise web.HTTPFound(target)
        links = "".join(
            f'<li><a id="as-{user_id}" href="?{html.escape(_query(query, user_id))}">'
            f"{html.escape(user['username'])}</a></li>"
            for user_id, user in self.users.items()
        )
        return web.Response(
            text=f"<!doctype html><title>Authorize</title><ul>{links}</ul>",
            content_type="text/html",
        )

    async def _token(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        grant = self.codes.pop(str(form.get("code", "")), None)
        if (
            form.get("client_id") != str(self.client_id)
            or form.get("client_secret") != self.client_secret
            or form.get("grant_type") != "authorization_code"
            or grant is None
            or (grant.redirect_uri is not None and form.get("redirect_uri") != grant.redirect_uri)
        ):
            self.refused += 1
            raise web.HTTPBadRequest(text='{"error": "invalid_grant"}')
        self.exchanges += 1
        token = secrets.token_urlsafe(16)
        self.tokens[token] = grant.user_id
        return web.json_response(
            {
                "access_token": token,
                "token_type": "Bearer",
                "expires_in": 604800,
                "scope": "identify",
            }
        )

    async def _me(self, request: web.Request) -> web.StreamResponse:
        header = request.headers.get("Authorization", "")
        user_id = self.tokens.get(header.removeprefix("Bearer "))
        if user_id is None or user_id not in self.users:
            raise web.HTTPUnauthorized(text='{"message": "401: Unauthorized"}')
        return web.json_response(self.users[user_id])


def _query(query: Any, user_id: int) -> str:
    return urllib.parse.urlencode({**query, "as": user_id})
