"""The table's socket is pinged when silent, and closed when the browser does not answer (a
phone that lost its network): its page then reconnects (bot/web/live.py, aiohttp's heartbeat).
The hub alone on a loopback server, no bot: only the socket's life is tested here."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.table.open_tables import OpenTables
from bot.web.live import Live
from bot.web.sessions import Identity


async def test_a_silent_socket_is_pinged_then_closed() -> None:
    changes = SimpleNamespace(on_published=[])
    asha = Identity(7, "asha")
    live = Live(
        OpenTables(),
        moves=None,  # type: ignore[arg-type]
        changes=changes,  # type: ignore[arg-type]
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
        async with aiohttp.ClientSession() as http:
            # A browser that answers the pings stays; one that does not is closed.
            alive = await http.ws_connect(server.make_url("/ws?session=good"))
            heard: asyncio.Queue[Any] = asyncio.Queue()

            async def listen() -> None:  # reading answers the pings (as a browser does)
                async for message in alive:
                    heard.put_nowait(message.json())

            listening = asyncio.create_task(listen())
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
    finally:
        await server.close()
    assert live.open_sockets() == 0 and not live.sockets
