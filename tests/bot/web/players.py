"""A browser's side of the web table's socket, for the tests: a logged-in HTTP session, its
socket, and every frame the server sent it, kept to be read (privacy is checked on them all)."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

import aiohttp

from .conftest import log_in

_ids = itertools.count(1)


class WebPlayer:
    def __init__(self, base: str, user_id: int, name: str) -> None:
        self.base = base
        self.user_id = user_id
        self.name = name
        self.http: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.frames: list[dict[str, Any]] = []  # every frame ever received, every connection
        self.arrived = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def log_in(self) -> None:
        jar = aiohttp.CookieJar(unsafe=True)
        self.http = aiohttp.ClientSession(
            cookie_jar=jar, connector=aiohttp.TCPConnector(force_close=True)
        )
        page = await log_in(self.http, self.base, self.user_id)
        assert page.status == 200

    async def connect(self, table: int, version: int | None = None) -> dict[str, Any]:
        """Open the socket, say hello; the first view."""
        assert self.http is not None
        seen = len(self.frames)
        self.ws = await self.http.ws_connect(
            self.base.replace("http", "ws", 1) + "/ws", headers={"Origin": self.base}
        )
        self._reader = asyncio.create_task(self._read(self.ws))
        await self.send({"t": "hello", "table": table, "version": version})
        return await self.wait(lambda f: f["t"] == "view", after=seen)

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for message in ws:
            if message.type is aiohttp.WSMsgType.TEXT:
                self.frames.append(json.loads(message.data))
                self.arrived.set()

    async def send(self, frame: dict[str, Any] | str) -> None:
        assert self.ws is not None
        await self.ws.send_str(frame if isinstance(frame, str) else json.dumps(frame))

    async def wait(
        self, found: Callable[[dict[str, Any]], bool], *, after: int = 0, timeout: float = 20
    ) -> dict[str, Any]:
        """The first frame from index ``after`` on that ``found`` accepts."""
        async with asyncio.timeout(timeout):
            while True:
                for frame in self.frames[after:]:
                    if found(frame):
                        return frame
                after = len(self.frames)
                self.arrived.clear()
                await self.arrived.wait()

    async def move(
        self, move: dict[str, Any], version: int | None = None, move_id: str | None = None
    ) -> dict[str, Any]:
        """Send a move (at the version of the last view by default); its answer."""
        move_id = move_id or f"m{next(_ids)}"
        if version is None:
            version = self.view["version"]
        seen = len(self.frames)
        await self.send({"t": "move", "id": move_id, "version": version, "move": move})
        return await self.wait(lambda f: f["t"] == "answer" and f["id"] == move_id, after=seen)

    @property
    def views(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["t"] == "view"]

    @property
    def view(self) -> dict[str, Any]:
        return self.views[-1]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader
        if self.http is not None:
            await self.http.close()
