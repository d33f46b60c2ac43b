"""The table's socket is pinged when silent, and closed when the browser does not answer (a
phone that lost its network): its page then reconnects (bot/web/live.py, bot/web/heartbeat.py).
The hub alone on a loopback server, no bot: only the socket's life is tested here."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.table.open_tables import OpenTables
from bot.web import heartbeat
from bot.web.live import Live
from bot.web.sessions import Identity


@contextlib.asynccontextmanager
async def hub() -> AsyncIterator[tuple[Live, TestServer]]:
    """The sockets' hub with a 0.2 s heartbeat on a loopback server; the session "good" is
    Asha's, any other none."""
    asha = Identity(7, "asha")
    live = Live(
        OpenTables(),
        moves=None,  # type: ignore[arg-type]
        changes=SimpleNamespace(on_published=[]),  # type: ignore[arg-type]
        store=None,  # type: ignore[arg-type]
        base_url="http://127.0.0.1",
        read_session=lambda token: asha if token == "good" else None,
        heartbeat=0.2,
    )
    app = web.Application()

    async def socket(request: web.Request) -> Any:
        return await live.socket(request, None)

    app.router.add_get("/ws", socket)
    server = TestServer(app)
    await server.start_server()
    try:
        yield live, server
    finally:
        await server.close()


async def test_a_silent_socket_is_pinged_then_closed() -> None:
    async with hub() as (live, server), aiohttp.ClientSession() as http:
        # A browser that answers the pings stays; one that does not is closed.
        alive = await http.ws_connect(server.make_url("/ws?session=good"))
        heard: asyncio.Queue[Any] = asyncio.Queue()

        async def listen() -> None:  # reading answers the pings (as a browser does)
            async for message in alive:
                heard.put_nowait(message.json())

        listening = asyncio.create_task(listen())
        # A client's own ping is answered (aiohttp's automatic answer is off on the server).
        asking = await http.ws_connect(server.make_url("/ws?session=good"), autoping=False)
        await asking.ping(b"there?")
        pong = await asyncio.wait_for(asking.receive(), 5)
        assert (pong.type, pong.data) == (aiohttp.WSMsgType.PONG, b"there?")
        await asking.close()
        silent = await http.ws_connect(server.make_url("/ws?session=good"), autoping=False)
        pinged = await asyncio.wait_for(silent.receive(), 5)
        assert pinged.type is aiohttp.WSMsgType.PING
        closed = await asyncio.wait_for(silent.receive(), 5)
        assert closed.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        await asyncio.sleep(0.5)  # past its own heartbeats
        await alive.send_json({"t": "ping"})
        assert await asyncio.wait_for(heard.get(), 5) == {"t": "pong"}
        await alive.close()
        await listening
    assert live.open_sockets() == 0 and not live.sockets


async def test_one_timer_beats_for_every_socket() -> None:
    """However many sockets are open, one task keeps their heartbeat (aiohttp's would keep a
    timer per socket, each waking the event loop), and it ends with the last socket."""

    def beating() -> int:
        return sum(
            1 for t in asyncio.all_tasks() if t.get_name() == heartbeat.TASK_NAME and not t.done()
        )

    async with hub() as (live, server), aiohttp.ClientSession() as http:
        sockets = [await http.ws_connect(server.make_url("/ws?session=good")) for _ in range(30)]
        readers = [asyncio.create_task(ws.receive()) for ws in sockets]  # answer the pings
        await asyncio.sleep(0.5)
        assert len(live.sockets) == 30 and beating() == 1
        for ws in sockets:
            await ws.close()
        await asyncio.gather(*readers, return_exceptions=True)
        await asyncio.sleep(0.3)
        assert not live.sockets and beating() == 0
