"""Two bot processes, one gateway shard each, on one PostgreSQL, behind one proxy that routes
``/p0/…`` to the first and ``/p1/…`` to the second (docs/web.md, "More than one process"): a
table's page asked of the wrong process is sent on to the one holding its server's shard, and
every address a page is given (its script, its socket, its login) leads back through the proxy
to the process that drew it."""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bot.model import Seat, TableOptions
from bot.shards import shard_of
from bot.store.store import Store
from bot.web.sessions import Identity, Sessions
from tests.bot.process import bot_env, fake_discord, launch

from .conftest import CLIENT_ID, CLIENT_SECRET

# Real bot processes: one after the other with the suite's other process tests.
pytestmark = pytest.mark.xdist_group("processes")

USER = {
    "id": "1012345678901234567",
    "username": "kachuful",
    "discriminator": "0",
    "global_name": None,
    "avatar": None,
    "bot": True,
}
APPLICATION = {
    "id": "1012345678901234567",
    "name": "Kachuful",
    "description": "",
    "icon": None,
    "bot_public": True,
    "bot_require_code_grant": False,
    "owner": USER,
    "verify_key": "0" * 64,
    "flags": 0,
}
# A server on each of the two shards ((guild_id >> 22) % 2, Discord's formula).
GUILDS = (347_000_000 << 22, 347_000_001 << 22)


def logged_in_then_gateway_hangs(path: str) -> tuple[int, Any] | None:
    """Discord as far as the login (the web server starts then); the gateway never answers."""
    if path.endswith("/users/@me"):
        return 200, USER
    if path.endswith("/oauth2/applications/@me"):
        return 200, APPLICATION
    if path.endswith("/commands"):
        return 200, []  # the command sync at start: the application has none yet
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def proxy(routes: dict[str, int]) -> AsyncIterator[int]:
    """The operator's proxy, as docs/web.md configures nginx: ``/<prefix>/rest`` goes to that
    process as ``/rest``, its answer comes back untouched (redirects are not followed)."""

    async def forward(request: web.Request) -> web.StreamResponse:
        prefix, _, rest = request.path_qs.lstrip("/").partition("/")
        port = routes.get(prefix)
        if port is None:
            raise web.HTTPNotFound()
        headers = {k: v for k, v in request.headers.items() if k.lower() in {"cookie", "accept"}}
        async with (
            aiohttp.ClientSession() as http,
            http.request(
                request.method,
                f"http://127.0.0.1:{port}/{rest}",
                headers=headers,
                data=await request.read(),
                allow_redirects=False,
            ) as answer,
        ):
            body = await answer.read()
            kept = {
                k: v for k, v in answer.headers.items() if k.lower() in {"location", "content-type"}
            }
            return web.Response(status=answer.status, body=body, headers=kept)

    app = web.Application()
    app.router.add_route("*", "/{path:.*}", forward)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield port
    finally:
        await runner.cleanup()


async def tables_on_each_shard(url: str) -> list[int]:
    store = await Store.open(url)
    try:
        made = []
        for guild in GUILDS:
            row = await store.create_game(
                guild_id=guild,
                channel_id=guild + 1,
                host_id=7,
                options=TableOptions(),
                max_seats=4,
                seats=[Seat(user_id=7, name="asha")],
            )
            made.append(row.id)
        return made
    finally:
        await store.close()


async def wait_until_up(port: int, process: subprocess.Popen[str]) -> None:
    async with aiohttp.ClientSession() as http:
        for _ in range(300):
            assert process.poll() is None, process.communicate()[1][-3000:]
            try:
                async with http.get(f"http://127.0.0.1:{port}/healthz") as answer:
                    if answer.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
    process.terminate()
    raise AssertionError("the web server did not start:\n" + process.communicate()[1][-3000:])


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as resources:
        yield resources


async def test_each_tables_page_is_served_by_the_process_of_its_shard(
    tmp_path: Path, pg_url: str, stack: ExitStack
) -> None:
    assert [shard_of(guild, 2) for guild in GUILDS] == [0, 1]
    tables = await tables_on_each_shard(pg_url)
    ports = [free_port(), free_port()]
    async with proxy({"p0": ports[0], "p1": ports[1]}) as front:
        public = f"http://127.0.0.1:{front}"
        processes = []
        for shard in (0, 1):
            fake = stack.enter_context(fake_discord(logged_in_then_gateway_hangs))
            env = bot_env(
                tmp_path / f"unused-{shard}.sqlite3",
                KACHUFUL_DATABASE_URL=pg_url,
                KACHUFUL_SHARD_COUNT="2",
                KACHUFUL_SHARD_IDS=str(shard),
                KACHUFUL_WEB_PORT=str(ports[shard]),
                KACHUFUL_WEB_HOST="127.0.0.1",
                KACHUFUL_WEB_BASE_URL=f"{public}/p{shard}",
                KACHUFUL_DISCORD_CLIENT_ID=str(CLIENT_ID),
                KACHUFUL_DISCORD_CLIENT_SECRET=CLIENT_SECRET,
            )
            process = launch(tmp_path, fake, env)
            stack.callback(stop, process)
            processes.append(process)
        for port, process in zip(ports, processes, strict=True):
            await wait_until_up(port, process)
        session = Sessions(CLIENT_SECRET).issue(Identity(7, "asha", "en-US"))
        cookies = {"kf_session": session}
        async with aiohttp.ClientSession(cookies=cookies) as http:
            for asked, table in ((0, tables[1]), (1, tables[0])):
                owner = 1 - asked
                url = f"{public}/p{asked}/table/{table}"
                async with http.get(url, allow_redirects=False) as wrong:
                    assert wrong.status == 307
                    assert wrong.headers["Location"] == f"{public}/p{owner}/table/{table}"
                async with http.get(wrong.headers["Location"], allow_redirects=False) as right:
                    assert right.status == 200
                    page = await right.text()
                assert f'data-root="/p{owner}"' in page
                assert f'data-socket="ws://127.0.0.1:{front}/p{owner}/ws"' in page
                script = re.search(r'<script type="module" src="([^"]+)"', page)
                assert script is not None and script.group(1).startswith(f"/p{owner}/assets/")
                async with http.get(f"{public}{script.group(1)}") as code:
                    assert code.status == 200
        # Without a session: the login of the process that drew the page, through the proxy.
        async with aiohttp.ClientSession() as stranger:
            url = f"{public}/p0/table/{tables[0]}"
            async with stranger.get(url, allow_redirects=False) as page:
                assert page.status == 302
                assert page.headers["Location"] == f"/p0/login?next=/table/{tables[0]}"


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
