"""Who is who on the web table: a session opened by Discord's OAuth2 login, kept by the
browser as a signed token (a cookie, or, in an Activity, a token the page holds).

The token says only what Discord told the server at login (the user's id, name and
language), signed with a key derived from the application's client secret, so that it
survives a restart of the bot (the page reconnects and carries on) and can be checked by any
process of the bot. Nothing in it is secret; what it proves is that this server wrote it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SESSION_DAYS = 30
_VERSION = "1"


@dataclass(frozen=True)
class Identity:
    """A Discord user as Discord told the server at login."""

    user_id: int
    name: str
    locale: str = "en-US"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    def __init__(
        self,
        client_secret: str,
        *,
        clock: Callable[[], float] = time.time,
        lifetime: float = SESSION_DAYS * 86400,
    ) -> None:
        # A key of its own, so that the client secret itself never signs anything else.
        self._key = hashlib.sha256(b"kachuful web session\0" + client_secret.encode()).digest()
        self._clock = clock
        self._lifetime = lifetime

    @property
    def lifetime(self) -> float:
        return self._lifetime

    def issue(self, identity: Identity) -> str:
        body = {"u": str(identity.user_id), "n": identity.name, "l": identity.locale}
        return self.seal("session", body, self._lifetime)

    def read(self, token: str | None) -> Identity | None:
        """The identity a token proves, or None (absent, forged, altered, expired)."""
        body = self.unseal("session", token)
        if body is None:
            return None
        try:
            user_id, name, locale = int(body["u"]), str(body["n"]), str(body["l"])
        except (ValueError, KeyError, TypeError):
            return None
        return Identity(user_id, name, locale) if user_id > 0 else None

    def seal(self, purpose: str, body: dict[str, Any], lifetime: float) -> str:
        """``body`` signed for one ``purpose`` (a session, a login's state) until it expires."""
        sealed = {**body, "p": purpose, "e": int(self._clock() + lifetime)}
        payload = _b64(json.dumps(sealed, separators=(",", ":"), ensure_ascii=False).encode())
        return f"{_VERSION}.{payload}.{self._sign(payload)}"

    def unseal(self, purpose: str, token: str | None) -> dict[str, Any] | None:
        """What :meth:`seal` signed for ``purpose``, or None (forged, altered, expired)."""
        if not token or len(token) > 4096:
            return None
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != _VERSION:
            return None
        payload, signature = parts[1], parts[2]
        if not hmac.compare_digest(signature.encode(), self._sign(payload).encode()):
            return None
        try:
            body = json.loads(_unb64(payload))
        except ValueError:
            return None
        if not isinstance(body, dict) or body.get("p") != purpose:
            return None
        expires = body.get("e")
        if not isinstance(expires, int | float) or expires < self._clock():
            return None
        return body

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode("ascii"), hashlib.sha256).digest())
