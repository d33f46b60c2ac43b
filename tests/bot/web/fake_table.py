"""A stand-in for the live table (bot/web/live.py) that speaks the socket protocol of
docs/web.md with canned views, behind the real WebServer (its pages, assets, CSP and
sessions): the browser tests and the screenshots drive the client against it without a game.

It plays a tiny part of the server: a card in ``legal`` is played (taken from the hand, laid
on the trick), a bid in ``bids`` is made, a choice is kept; anything else is refused with a
text, and ``refuse`` makes it refuse every move with a given text. Every frame the browser
sends is kept in ``frames``; ``drop()`` closes every socket as a restarted bot would."""

from __future__ import annotations

import asyncio
import copy
import html
import json
import time
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from pydantic import SecretStr

from bot.config import Settings
from bot.web.server import SESSION_COOKIE, WebServer
from bot.web.sessions import Identity

from .standin import OAuthStandIn

SECRET = "a-client-secret-for-the-fake-table"
CLIENT_ID = 1234567890123456789
TABLE = 4242
ILLEGAL = "You must follow suit."
CLOCK_MS = 42_000  # the turn clock's time left in a canned view

# Cards as the engine codes them: suit * 13 + rank (S H D C; 2..A).
S, H, D, C = 0, 13, 26, 39
TWO, THREE, FOUR, SEVEN, NINE, TEN, JACK, QUEEN, KING, ACE = 0, 1, 2, 5, 7, 8, 9, 10, 11, 12

WORDS_EN: dict[str, str] = {}  # the client's own English fallback
WORDS_FR = {
    "deal": "Donne {number} sur {of}",
    "hand_size": "Cartes : {n}",
    "trump": "Atout : {suit}",
    "spades": "pique",
    "hearts": "cœur",
    "diamonds": "carreau",
    "clubs": "trèfle",
    "rank_j": "V",
    "rank_q": "D",
    "rank_k": "R",
    "card": "{rank} de {suit}",
    "your_bid": "Ton annonce",
    "bid_n": "Annoncer {n}",
    "your_turn": "À toi de jouer",
    "scores": "Scores",
    "confirm_cards": "Confirmer chaque carte",
    "last_trick": "Dernier pli",
}


def seats(
    bids: list[int | None], tricks: list[int], scores: list[int], turn: int | None, left: list[int]
) -> list[dict[str, Any]]:
    names = ["Asha", "Bilal", "Chen", "Dev"]
    return [
        {
            "name": names[i],
            "bot": i == 2,
            "bid": bids[i],
            "tricks": tricks[i],
            "score": scores[i],
            "cards_left": left[i],
            "turn": turn == i,
            "dealer": i == 2,
            "connected": i != 1 or turn == 1,
        }
        for i in range(4)
    ]


SCORES = [[12, -3, 10, 11], [-4, 13, 11, -2], [14, 10, -3, 12]]
DEAL_FOUR = [12, -1, 11, 11]


def bidding(words: dict[str, str] | None = None) -> dict[str, Any]:
    """Deal 4 of 8, five cards, spades trump: Dev (after the dealer Chen) bid 1, Asha to bid."""
    return {
        "table": TABLE,
        "version": 40,
        "language": "en",
        "you": 0,
        "phase": "bidding",
        "words": dict(WORDS_EN if words is None else words),
        "deal": {"number": 4, "of": 8, "hand_size": 5, "trump": "S", "dealer": 2},
        "seats": seats([None, None, None, 1], [0] * 4, [22, 20, 18, 21], 0, [5] * 4),
        "trick": [],
        "last_trick": None,
        "last_winner": None,
        "hand": [S + ACE, S + TEN, H + KING, D + SEVEN, C + THREE],
        "legal": [],
        "bids": [0, 1, 2, 3, 4, 5],
        "blind": False,
        "unseen": False,
        "visible": [],
        "can": {"takeback": False, "claim": False, "look": False},
        "chosen": None,
        "confirm_cards": False,
        "clock": {"seat": 0, "deadline_ms": int(time.time() * 1000) + CLOCK_MS},
        "scores": copy.deepcopy(SCORES),
        "standings": None,
    }


def mid_trick(words: dict[str, str] | None = None) -> dict[str, Any]:
    """The second trick: Chen (who won the first with the ace of diamonds) led the 9 of
    hearts, Dev followed with the queen; Asha holds two hearts (only those may go)."""
    view = bidding(words)
    view.update(
        version=47,
        phase="playing",
        seats=seats([2, 0, 1, 1], [0, 0, 1, 0], [22, 20, 18, 21], 0, [4, 4, 3, 3]),
        trick=[{"seat": 2, "card": H + NINE}, {"seat": 3, "card": H + QUEEN}],
        last_trick=[
            {"seat": 3, "card": D + FOUR},
            {"seat": 0, "card": D + SEVEN},
            {"seat": 1, "card": D + TWO},
            {"seat": 2, "card": D + ACE},
        ],
        last_winner=2,
        hand=[S + ACE, S + TEN, H + KING, H + FOUR],
        legal=[H + KING, H + FOUR],
        bids=[],
        can={"takeback": False, "claim": False, "look": False},
    )
    return view


def deal_over(words: dict[str, str] | None = None) -> dict[str, Any]:
    """The deal's last trick, won by Asha's ace of spades: she made her bid of two."""
    view = mid_trick(words)
    view.update(
        version=60,
        phase="deal_over",
        seats=seats([2, 0, 1, 1], [2, 1, 1, 1], [34, 19, 29, 32], None, [0] * 4),
        trick=[],
        last_trick=[
            {"seat": 0, "card": S + ACE},
            {"seat": 1, "card": C + KING},
            {"seat": 2, "card": H + TWO},
            {"seat": 3, "card": S + FOUR},
        ],
        last_winner=0,
        hand=[],
        legal=[],
        clock=None,
        scores=[*copy.deepcopy(SCORES), DEAL_FOUR],
    )
    return view


def finished(words: dict[str, str] | None = None) -> dict[str, Any]:
    rows = [
        *copy.deepcopy(SCORES),
        DEAL_FOUR,
        [-3, 12, 11, 13],
        [11, 10, -2, 12],
        [13, -4, 12, 11],
        [-2, 11, 13, 10],
    ]
    totals = [sum(row[i] for row in rows) for i in range(4)]
    order = sorted(range(4), key=lambda i: -totals[i])
    view = deal_over(words)
    view.update(
        version=90,
        phase="finished",
        deal={"number": 8, "of": 8, "hand_size": 1, "trump": "H", "dealer": 2},
        seats=seats([0, 1, 0, 1], [0, 1, 0, 0], totals, None, [0] * 4),
        scores=rows,
        standings=[{"seat": s, "score": totals[s], "rank": order.index(s) + 1} for s in range(4)],
        last_trick=None,
        last_winner=None,
    )
    return view


class FakeTable:
    """The real WebServer with a canned socket: ``await start()``, open ``url``, ``close()``."""

    def __init__(self, view: dict[str, Any], tmp: Path) -> None:
        self.view = view
        self.frames: list[dict[str, Any]] = []
        self.hellos: list[dict[str, Any]] = []
        self.refuse: str | None = None
        self.mute = False  # moves are kept but not answered
        self.socket_queries: list[dict[str, str]] = []  # each socket's query string
        self.instances: list[str] = []  # the Activity instances the page asked about
        self.oauth = OAuthStandIn(CLIENT_ID, SECRET)
        self.sockets: set[web.WebSocketResponse] = set()
        self.tmp = tmp
        self.server: WebServer | None = None

    async def start(self) -> None:
        await self.oauth.start()
        self.oauth.add_user(101, "Asha")
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            discord_token="MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789",
            db_path=self.tmp / "unused.sqlite3",
            web_port=0,
            web_host="127.0.0.1",
            web_base_url="http://127.0.0.1:1",  # replaced below once the port is known
            discord_client_id=CLIENT_ID,
            discord_client_secret=SecretStr(SECRET),
            discord_url=self.oauth.url,
        )
        server = WebServer(settings, client_id=lambda: None)
        server.socket = self.socket
        server.pages["activity"] = self.activity_table
        server.app.router.add_get("/standin/parent", self.activity_parent)
        server.app.router.add_get("/standin/parent.js", self.activity_parent_script)
        await server.start()
        port = server.port
        # The page's socket address and the policy's come from the public address.
        server.base_url = f"http://127.0.0.1:{port}"
        self.server = server
        self.base = server.base_url

    async def close(self) -> None:
        await self.drop()
        if self.server is not None:
            await self.server.stop()
        await self.oauth.close()

    @property
    def url(self) -> str:
        return f"{self.base}/table/{TABLE}"

    def cookie(self, user_id: int = 101, name: str = "Asha") -> dict[str, Any]:
        """The session cookie the Discord login would have left in the browser."""
        assert self.server is not None
        token = self.server.sessions.issue(Identity(user_id, name))
        return {"name": SESSION_COOKIE, "value": token, "url": self.base}

    async def drop(self) -> None:
        for socket in list(self.sockets):
            await socket.close()

    async def push(self, view: dict[str, Any]) -> None:
        self.view = view
        for socket in list(self.sockets):
            await socket.send_str(json.dumps({"t": "view", **view}))

    # ---- an Activity inside a stand-in Discord client (activity_parent.js) --------------------

    async def activity_table(self, request: web.Request, who: Identity | None) -> web.Response:
        """The bot's /api/activity/table, for a logged-in reader of a known instance."""
        if who is None:
            raise web.HTTPUnauthorized(text="log in first")
        self.instances.append(request.query.get("instance", ""))
        return web.json_response({"table": TABLE})

    async def activity_parent(self, request: web.Request) -> web.Response:
        """Discord's client around the Activity: the Activity at the root of the URL mapping
        (with the instance, the frame and the platform, as Discord opens it)."""
        query = "frame_id=frame-1&instance_id=i-1234-gc-5678&platform=mobile"
        data = {
            "code": request.query["code"],
            "user": request.query.get("user", "Asha"),
            "user-id": request.query.get("user_id", "101"),
            "client-id": str(CLIENT_ID),
            "locale": request.query.get("locale", "en-US"),
        }
        attributes = " ".join(f'data-{k}="{html.escape(v, quote=True)}"' for k, v in data.items())
        page = (
            f"<!doctype html><html><head><title>Discord</title></head><body {attributes}>"
            f'<iframe id="activity" src="/?{query}" width="390" height="844"></iframe>'
            '<script type="module" src="/standin/parent.js"></script></body></html>'
        )
        return web.Response(text=page, content_type="text/html")

    async def activity_parent_script(self, request: web.Request) -> web.Response:
        script = (Path(__file__).parent / "activity_parent.js").read_text(encoding="utf-8")
        return web.Response(text=script, content_type="text/javascript")

    # ---- the socket ------------------------------------------------------------------------

    async def socket(self, request: web.Request, who: Identity | None) -> web.StreamResponse:
        # No cookie: an Activity's page, whose hello must carry its session (as the live
        # table checks it); a socket that proves no one is closed.
        self.socket_queries.append(dict(request.query))
        socket = web.WebSocketResponse(heartbeat=None)
        await socket.prepare(request)
        self.sockets.add(socket)
        try:
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(message.data)
                self.frames.append(frame)
                if who is None and not self.signed_in(frame):
                    await socket.close(code=4001, message=b"log in first")
                    break
                await self.answer(socket, frame)
        finally:
            self.sockets.discard(socket)
        return socket

    def signed_in(self, frame: dict[str, Any]) -> bool:
        assert self.server is not None
        session = self.server.sessions.read(frame.get("session"))
        return frame.get("t") == "hello" and session is not None

    async def answer(self, socket: web.WebSocketResponse, frame: dict[str, Any]) -> None:
        kind = frame.get("t")
        if kind == "hello":
            self.hellos.append(frame)
            await socket.send_str(json.dumps({"t": "view", **self.view}))
        elif kind == "ping":
            await socket.send_str(json.dumps({"t": "pong"}))
        elif kind == "move":
            if self.mute:  # a line that dies before the answer leaves
                return
            text = self.refuse or self.apply(frame["move"])
            await socket.send_str(
                json.dumps({"t": "answer", "id": frame["id"], "ok": text is None, "text": text})
            )
            if text is None:
                await self.push(self.view)

    def apply(self, move: dict[str, Any]) -> str | None:
        """The new view after ``move``, or the refusal's text."""
        view = copy.deepcopy(self.view)
        if "card" in move and move["card"] in view["legal"]:
            view["hand"].remove(move["card"])
            view["trick"].append({"seat": view["you"], "card": move["card"]})
            view["legal"], view["chosen"] = [], None
        elif "choose" in move and move["choose"] in view["legal"]:
            view["chosen"] = move["choose"]
        elif "bid" in move and move["bid"] in view["bids"]:
            view["seats"][view["you"]]["bid"] = move["bid"]
            view["bids"] = []
        elif move.get("set") == "confirm_cards":
            view["confirm_cards"] = bool(move.get("on"))
        else:
            return ILLEGAL
        view["version"] += 1
        self.view = view
        return None


async def wait_for(predicate: Any, timeout: float = 5.0) -> None:
    """Until ``predicate()`` holds (frames arrive from the browser in their own time)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the browser did not send what was expected in time")
        await asyncio.sleep(0.02)
