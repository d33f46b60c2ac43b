"""Discord's OAuth2, from the server's side: the login page's address, the code exchanged for
a token with the application's client secret, and ``/users/@me``, which tells the server who
logged in. The user's id always comes from Discord here, never from the browser.

Discord's address is a setting (``KACHUFUL_DISCORD_URL``, Discord's own by default), so that a
stand-in Discord on loopback can answer in tests."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

import aiohttp

from .sessions import Identity

API = "/api/v10"
SCOPE = "identify"
TIMEOUT = aiohttp.ClientTimeout(total=10)


class OAuthError(Exception):
    """Discord refused the exchange or could not be reached (the words are for the log)."""


@dataclass(frozen=True)
class Login:
    """What a login gives: who, and the user's access token (an Activity's page needs it to
    authenticate the Embedded App SDK; the browser table does not keep it)."""

    identity: Identity
    access_token: str


class DiscordOAuth:
    def __init__(self, discord_url: str, client_id: int, client_secret: str) -> None:
        self.discord_url = discord_url.rstrip("/")
        self.client_id = client_id
        self._secret = client_secret

    def authorize_url(self, redirect_uri: str, state: str) -> str:
        query = urllib.parse.urlencode(
            {
                "client_id": str(self.client_id),
                "response_type": "code",
                "scope": SCOPE,
                "redirect_uri": redirect_uri,
                "state": state,
                "prompt": "none",
            }
        )
        return f"{self.discord_url}/oauth2/authorize?{query}"

    async def login(self, code: str, redirect_uri: str | None) -> Login:
        """Exchange an authorization code (from the login page's redirect, or an Activity's
        ``authorize``) for a token, then ask Discord who it belongs to."""
        form = {
            "client_id": str(self.client_id),
            "client_secret": self._secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        if redirect_uri is not None:
            form["redirect_uri"] = redirect_uri
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
            token = await self._json(http.post(f"{self.discord_url}{API}/oauth2/token", data=form))
            access = token.get("access_token")
            if not isinstance(access, str) or not access:
                raise OAuthError("no access token in Discord's answer")
            headers = {"Authorization": f"Bearer {access}"}
            me = await self._json(http.get(f"{self.discord_url}{API}/users/@me", headers=headers))
        try:
            user_id = int(me["id"])
        except (KeyError, TypeError, ValueError):
            raise OAuthError("no user id in Discord's answer") from None
        name = me.get("global_name") or me.get("username") or str(user_id)
        locale = me.get("locale") or "en-US"
        return Login(Identity(user_id, str(name), str(locale)), access)

    @staticmethod
    async def _json(request: Any) -> dict[str, Any]:
        try:
            async with request as response:
                if response.status != 200:
                    # Only the status: Discord's body could echo the code or a token.
                    raise OAuthError(f"Discord answered {response.status}")
                body = await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            raise OAuthError(type(error).__name__) from None
        if not isinstance(body, dict):
            raise OAuthError("an answer that is not an object")
        return body
