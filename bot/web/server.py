"""The web server in the bot's process (aiohttp, which discord.py already brings), off unless
``KACHUFUL_WEB_PORT`` is set: the client's files, the Discord login, the table's socket and
the club pages (docs/web.md).

    GET  /table/<id>          the table (after a Discord login)
    GET  /activity            the same client inside Discord, as an Activity
    GET  /assets/<digest>/…   the client's files (cached for a year: names change with content)
    GET  /login, /auth/callback   Discord's OAuth2 login (code exchanged here, never in the page)
    POST /api/activity/token  an Activity's code exchanged the same way
    GET  /api/activity/table  which table an Activity instance shows (bot/web/activity.py)
    GET  /api/me              who the session says you are
    GET  /ws                  the table's socket (bot/web/live.py)
"""

from __future__ import annotations

import html
import logging
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from string import Template
from urllib.parse import urlsplit

from aiohttp import web

from bot.config import Settings

from .assets import IMMUTABLE, Assets
from .oauth import DiscordOAuth, OAuthError
from .sessions import Identity, Sessions

log = logging.getLogger(__name__)

# The client's one page (its settings in data attributes: no inline script).
SHELL = Template((Path(__file__).parent / "shell.html").read_text(encoding="utf-8"))
# What a page may load, and who may frame it: this origin only (Discord's Activity proxy
# blocks any other anyway), and Discord's own pages as frames (the Activity).
POLICY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("default-src", ("'self'",)),
    ("script-src", ("'self'",)),
    ("style-src", ("'self'",)),
    ("img-src", ("'self'", "data:", "blob:")),
    ("font-src", ("'self'",)),
    ("object-src", ("'none'",)),
    ("base-uri", ("'none'",)),
    ("form-action", ("'self'",)),
    (
        "frame-ancestors",
        ("'self'", "https://discord.com", "https://*.discord.com", "https://*.discordsays.com"),
    ),
)
SESSION_COOKIE = "kf_session"
LOGIN_COOKIE = "kf_login"
LOGIN_SECONDS = 600
SocketHandler = Callable[[web.Request, Identity | None], Awaitable[web.StreamResponse]]
PageHandler = Callable[[web.Request, Identity | None], Awaitable[web.StreamResponse]]


class WebServer:
    """Built once by the bot when the web table is on; ``start`` binds the port."""

    def __init__(
        self,
        settings: Settings,
        *,
        client_id: Callable[[], int | None],
        assets: Assets | None = None,
    ) -> None:
        assert settings.web_port is not None and settings.web_base_url is not None
        assert settings.discord_client_secret is not None
        self.settings = settings
        self.base_url = settings.web_base_url.rstrip("/")
        self.secure = self.base_url.startswith("https://")
        # This process's path under the public address ("" or e.g. "/p1", which the proxy in
        # front strips): every address a page is given starts with it (docs/web.md).
        self.root = urlsplit(self.base_url).path.rstrip("/")
        self.assets = assets or Assets()
        self.sessions = Sessions(settings.discord_client_secret.get_secret_value())
        self._client_id = client_id
        self.socket: SocketHandler | None = None  # set by the live table (bot/web/live.py)
        # The address of the process that serves a table, when it is another one
        # (bot/web/routes.py); set by the bot.
        self.owner_of: Callable[[int], Awaitable[str | None]] | None = None
        # /club/... ("club") and an Activity's table ("activity"), set by the bot.
        self.pages: dict[str, PageHandler] = {}
        self.app = web.Application(middlewares=[self._headers])
        self._runner: web.AppRunner | None = None
        routes = self.app.router
        routes.add_get("/", self._home)
        routes.add_get(r"/table/{table:\d{1,20}}", self._table)
        routes.add_get("/activity", self._activity)
        routes.add_get("/assets/{digest}/{name:.+}", self._asset)
        routes.add_get("/login", self._login)
        routes.add_get("/auth/callback", self._callback)
        routes.add_post("/api/activity/token", self._activity_token)
        routes.add_get("/api/activity/table", self._activity_table)
        routes.add_get("/api/me", self._me)
        routes.add_get("/ws", self._socket)
        routes.add_get("/club/{path:.*}", self._page)
        routes.add_get("/healthz", self._health)

    # ---- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.settings.web_host, self.settings.web_port)
        await site.start()
        log.info(
            "web table on %s:%s (public address %s)",
            self.settings.web_host,
            self.settings.web_port,
            self.base_url,
        )

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def port(self) -> int | None:
        """The port actually bound (the setting's, or the one the system chose for 0)."""
        if self._runner is None:
            return None
        for site in self._runner.sites:
            server = getattr(site, "_server", None)
            if server is not None and server.sockets:
                return int(server.sockets[0].getsockname()[1])
        return None

    # ---- who is who --------------------------------------------------------------------------

    def identity(self, request: web.Request) -> Identity | None:
        """The session's user: from its cookie (a browser), or the token an Activity's page
        sends (its cookies may be refused inside Discord's frame)."""
        token = request.cookies.get(SESSION_COOKIE)
        header = request.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            token = header[len("Bearer ") :]
        return self.sessions.read(token)

    def oauth(self) -> DiscordOAuth | None:
        client_id = self.settings.discord_client_id or self._client_id()
        secret = self.settings.discord_client_secret
        if client_id is None or secret is None:
            return None
        return DiscordOAuth(self.settings.discord_url, client_id, secret.get_secret_value())

    def href(self, path: str) -> str:
        """An address on this process's site, as a page must ask for it (under its root)."""
        return f"{self.root}{path}"

    @property
    def redirect_uri(self) -> str:
        return f"{self.base_url}/auth/callback"

    def socket_url(self) -> str:
        """The socket's absolute address (relative ones fail in older mobile web views)."""
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        return f"{scheme}://{parts.netloc}{parts.path}/ws"

    # ---- pages ---------------------------------------------------------------------------------

    async def _home(self, request: web.Request) -> web.StreamResponse:
        if "frame_id" in request.query and "instance_id" in request.query:
            # Discord launches an Activity at the root of its URL mapping, with these.
            return await self._activity(request)
        who = self.identity(request)
        if who is None:
            raise web.HTTPFound(self.href("/login?next=/"))
        return self.shell("home", who)

    async def _table(self, request: web.Request) -> web.StreamResponse:
        table = request.match_info["table"]
        owner = await self.owner_of(int(table)) if self.owner_of is not None else None
        if owner is not None:
            raise web.HTTPTemporaryRedirect(f"{owner}/table/{table}")
        who = self.identity(request)
        if who is None:
            raise web.HTTPFound(self.href(f"/login?next=/table/{table}"))
        return self.shell("table", who, table=request.match_info["table"])

    async def _activity(self, request: web.Request) -> web.StreamResponse:
        # Inside Discord's frame: the page logs in through the Embedded App SDK.
        return self.shell("activity", None)

    def shell(self, page: str, who: Identity | None, **data: str) -> web.Response:
        """The one page of the client: its settings in data attributes (no inline script)."""
        attributes = {
            "page": page,
            "socket": self.socket_url(),
            "client-id": str(self.settings.discord_client_id or self._client_id() or ""),
            "root": self.root,
            "locale": who.locale if who else "",
            **data,
        }
        body = " ".join(
            f'data-{name}="{html.escape(value, quote=True)}"' for name, value in attributes.items()
        )
        text = SHELL.substitute(
            language=html.escape((who.locale if who else "en").split("-")[0]),
            style=self.href(self.assets.url("table.css")),
            script=self.href(self.assets.url("app.js")),
            data=body,
        )
        response = web.Response(text=text, content_type="text/html")
        response.headers["Cache-Control"] = "no-store"
        return response

    async def _asset(self, request: web.Request) -> web.StreamResponse:
        found = self.assets.get(request.match_info["digest"], request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound()
        data, kind = found
        response = web.Response(body=data, headers={"Content-Type": kind})
        response.headers["Cache-Control"] = IMMUTABLE
        return response

    async def _page(self, request: web.Request) -> web.StreamResponse:
        section = request.match_info["path"].split("/", 1)[0]
        handler = self.pages.get("club")
        if handler is None or not section:
            raise web.HTTPNotFound()
        return await handler(request, self.identity(request))

    async def _health(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text="ok")

    # ---- the Discord login -----------------------------------------------------------------------

    async def _login(self, request: web.Request) -> web.StreamResponse:
        oauth = self.oauth()
        if oauth is None:
            raise web.HTTPServiceUnavailable(text="The web table is not set up for logins.")
        target = _local_path(request.query.get("next", "/"))
        nonce = secrets.token_urlsafe(16)
        state = self.sessions.seal("login", {"next": target, "n": nonce}, LOGIN_SECONDS)
        response = web.HTTPFound(oauth.authorize_url(self.redirect_uri, state))
        # The state travels through Discord; the nonce stays in this browser: a login started
        # elsewhere (a forged link) cannot finish here.
        response.set_cookie(
            LOGIN_COOKIE,
            nonce,
            max_age=LOGIN_SECONDS,
            httponly=True,
            secure=self.secure,
            samesite="Lax",
        )
        return response

    async def _callback(self, request: web.Request) -> web.StreamResponse:
        oauth = self.oauth()
        state = self.sessions.unseal("login", request.query.get("state"))
        nonce = request.cookies.get(LOGIN_COOKIE)
        code = request.query.get("code")
        if oauth is None or state is None or not nonce or state.get("n") != nonce or not code:
            raise web.HTTPBadRequest(text="This login link is out of date: open the table again.")
        try:
            login = await oauth.login(code, self.redirect_uri)
        except OAuthError as error:
            log.warning("a web login failed: %s", error)
            raise web.HTTPBadGateway(text="Discord did not confirm the login: try again.") from None
        response = web.HTTPFound(self.href(_local_path(str(state.get("next", "/")))))
        self._keep_session(response, self.sessions.issue(login.identity))
        response.del_cookie(LOGIN_COOKIE)
        return response

    def _keep_session(self, response: web.StreamResponse, token: str) -> None:
        response.set_cookie(
            SESSION_COOKIE,
            token,
            max_age=int(self.sessions.lifetime),
            httponly=True,
            secure=self.secure,
            samesite="Lax",
        )

    async def _activity_token(self, request: web.Request) -> web.StreamResponse:
        """An Activity's ``authorize`` code, exchanged here as a login's: the page gets the
        access token the SDK's ``authenticate`` needs, and a session token of ours."""
        oauth = self.oauth()
        try:
            body = await request.json()
        except ValueError:
            body = None
        code = body.get("code") if isinstance(body, dict) else None
        if oauth is None or not isinstance(code, str) or not 0 < len(code) <= 512:
            raise web.HTTPBadRequest(text='expected {"code": ...}')
        try:
            login = await oauth.login(code, None)
        except OAuthError as error:
            log.warning("an Activity's login failed: %s", error)
            raise web.HTTPBadGateway(text="Discord did not confirm the login.") from None
        token = self.sessions.issue(login.identity)
        response = web.json_response({"access_token": login.access_token, "session": token})
        self._keep_session(response, token)
        return response

    async def _activity_table(self, request: web.Request) -> web.StreamResponse:
        handler = self.pages.get("activity")
        if handler is None:
            raise web.HTTPNotFound()
        return await handler(request, self.identity(request))

    async def _me(self, request: web.Request) -> web.StreamResponse:
        who = self.identity(request)
        if who is None:
            raise web.HTTPUnauthorized(text="not logged in")
        return web.json_response({"id": str(who.user_id), "name": who.name, "locale": who.locale})

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if self.socket is None:
            raise web.HTTPNotFound()
        return await self.socket(request, self.identity(request))

    # ---- every answer ----------------------------------------------------------------------------

    @web.middleware
    async def _headers(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """What every answer says: only this origin's scripts, styles, images and sockets (as
        Discord's Activity proxy requires anyway), framed only by Discord."""
        try:
            response = await handler(request)
        except web.HTTPException as error:
            response = error
        socket = self.socket_url().rsplit("/ws", 1)[0]
        policy = [*POLICY, ("connect-src", ("'self'", socket))]
        response.headers.setdefault(
            "Content-Security-Policy",
            "; ".join(" ".join((name, *sources)) for name, sources in policy),
        )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if isinstance(response, web.HTTPException):
            raise response
        return response


def _local_path(target: str) -> str:
    """A path on this site to go back to after the login (never another site's address)."""
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target[:512]
