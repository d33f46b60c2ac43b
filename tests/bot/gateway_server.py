"""A local stand-in for Discord's REST API and gateway, for bot processes started by tests:
enough of both for ``python -m bot`` to log in, connect each of its shards and identify.

The gateway answers each connection with HELLO and each IDENTIFY with READY (no server),
and records every IDENTIFY: when it came and for which shard. Run in a thread of the test with
its own event loop (aiohttp's server); plain JSON text frames, which discord.py reads as well
as compressed ones.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

USER = {
    "id": "1012345678901234567",
    "username": "kachuful",
    "discriminator": "0",
    "global_name": None,
    "avatar": None,
    "bot": True,
}
APPLICATION = {
    "id": USER["id"],
    "name": "Kachuful",
    "description": "",
    "icon": None,
    "bot_public": True,
    "bot_require_code_grant": False,
    "owner": USER,
    "verify_key": "0" * 64,
    "flags": 0,
}


def _json(body: Any, status: int = 200) -> web.Response:
    # discord.py reads a body as JSON only if its Content-Type is exactly application/json.
    headers = {"Content-Type": "application/json"}
    return web.Response(body=json.dumps(body).encode(), status=status, headers=headers)


@dataclass
class Identified:
    at: float  # time.monotonic() in the test process
    shard: int
    count: int


@dataclass
class FakeGateway:
    shard_count: int
    max_concurrency: int = 1
    identified: list[Identified] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)  # "METHOD path" of every REST request
    base: str = ""
    gateway: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def identifies(self) -> list[Identified]:
        with self.lock:
            return sorted(self.identified, key=lambda i: i.at)

    def requests(self) -> list[str]:
        with self.lock:
            return list(self.rest)

    async def handle_rest(self, request: web.Request) -> web.StreamResponse:
        with self.lock:
            self.rest.append(f"{request.method} {request.path}")
        path = request.path.removeprefix("/api/v10")
        if path == "/users/@me":
            return _json(USER)
        if path == "/oauth2/applications/@me":
            return _json(APPLICATION)
        if path == "/gateway/bot":
            limits = {
                "total": 1000,
                "remaining": 1000,
                "reset_after": 0,
                "max_concurrency": self.max_concurrency,
            }
            return _json(
                {"url": self.gateway, "shards": self.shard_count, "session_start_limit": limits}
            )
        if request.method == "PUT" and path.endswith("/commands"):
            return _json([])  # the commands synced; none echoed back
        return _json({"message": "Unknown", "code": 0}, status=404)

    async def handle_gateway(self, request: web.Request) -> web.StreamResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        await socket.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 45000}}))
        async for message in socket:
            if message.type is not WSMsgType.TEXT:
                continue
            payload = json.loads(message.data)
            if payload.get("op") == 1:
                await socket.send_str(json.dumps({"op": 11}))
            elif payload.get("op") == 2:
                shard, count = payload["d"].get("shard", [0, 1])
                with self.lock:
                    self.identified.append(Identified(time.monotonic(), shard, count))
                await socket.send_str(json.dumps(ready(shard, count)))
        return socket


def ready(shard: int, count: int) -> dict[str, Any]:
    return {
        "op": 0,
        "t": "READY",
        "s": 1,
        "d": {
            "v": 10,
            "user": USER,
            "guilds": [],
            "session_id": f"session-{shard}",
            "resume_gateway_url": "ws://127.0.0.1:1/",
            "shard": [shard, count],
            "application": {"id": APPLICATION["id"], "flags": 0},
        },
    }


@contextmanager
def fake_gateway(shard_count: int, max_concurrency: int = 1) -> Iterator[FakeGateway]:
    fake = FakeGateway(shard_count, max_concurrency)
    loop = asyncio.new_event_loop()
    started = threading.Event()
    stopping: asyncio.Event | None = None

    async def serve() -> None:
        nonlocal stopping
        stopping = asyncio.Event()
        app = web.Application()
        app.router.add_get("/gateway/", fake.handle_gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", fake.handle_rest)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        fake.base = f"http://127.0.0.1:{port}/api/v10"
        fake.gateway = f"ws://127.0.0.1:{port}/gateway/"
        started.set()
        await stopping.wait()
        await runner.cleanup()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    if not started.wait(10):
        raise RuntimeError("the fake gateway did not start")
    try:
        yield fake
    finally:
        assert stopping is not None
        loop.call_soon_threadsafe(stopping.set)
        thread.join(10)
        loop.close()
