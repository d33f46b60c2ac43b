"""One heartbeat for every socket of the process (bot/web/live.py).

Every ``interval / 2`` seconds a round goes over the open sockets: one that said nothing
through two rounds (silent for ``interval / 2`` to ``interval`` seconds) is pinged, and one
that has not answered its ping by the next round is closed, as a phone that lost its network
would never close it itself: its page reconnects when it can. A dead socket is closed at most
``1.5 * interval`` seconds after it last spoke, as with aiohttp's own heartbeat; but aiohttp
keeps a timer per socket, rescheduled at each message (with 400 sockets and a 20 s interval,
20 wake-ups of the event loop a second), where one timer does it here for all of them.

Any message from the browser counts as an answer: a pong, a ping, a frame of the protocol.
Rounds are counted, not clocks read, so that no timestamp of one clock is compared with
another's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any

from aiohttp import WSCloseCode, web

# A ping (or a close) that cannot even be written within this time (a browser that reads
# nothing and whose buffer is full) counts as unanswered.
WRITE_SECONDS = 5.0
# Rounds a socket may stay silent before it is pinged.
SILENT_ROUNDS = 2
TASK_NAME = "web-table-heartbeat"  # an asyncio task name


class Heartbeat:
    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._silent: dict[web.WebSocketResponse, int] = {}  # rounds since each last spoke
        self._pinged: set[web.WebSocketResponse] = set()  # pings not answered yet
        self._task: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self.rounds = self.pings = self.closed = 0  # counted for the benchmarks

    def add(self, ws: web.WebSocketResponse) -> None:
        self._silent[ws] = 0
        if self._task is None or self._task.done():
            self._task = beating(self._run())

    def heard(self, ws: web.WebSocketResponse) -> None:
        """The browser said something: it is there."""
        if ws in self._silent:
            self._silent[ws] = 0
            self._pinged.discard(ws)

    def discard(self, ws: web.WebSocketResponse) -> None:
        self._silent.pop(ws, None)
        self._pinged.discard(ws)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        # Ends with the last socket; the next one starts it again.
        while self._silent:
            await asyncio.sleep(self.interval / 2)
            await self.beat()

    async def beat(self) -> None:
        """One round: close the sockets that left a ping unanswered, ping the silent ones."""
        self.rounds += 1
        silent = []
        for ws, rounds in list(self._silent.items()):
            if ws in self._pinged:
                self._close(ws)
                continue
            self._silent[ws] = rounds + 1
            if rounds + 1 >= SILENT_ROUNDS:
                silent.append(ws)
        await asyncio.gather(*(self._ping(ws) for ws in silent))

    async def _ping(self, ws: web.WebSocketResponse) -> None:
        self._pinged.add(ws)
        self.pings += 1
        with contextlib.suppress(ConnectionError, RuntimeError, TimeoutError):
            await asyncio.wait_for(ws.ping(), WRITE_SECONDS)  # unanswered: closed next round

    def _close(self, ws: web.WebSocketResponse) -> None:
        self.discard(ws)
        self.closed += 1
        # The close handshake waits for an answer that will not come: each in its own task, so
        # that one does not hold up the round.
        task = asyncio.create_task(_close(ws))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)


def beating(rounds: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """Where the heartbeat's task starts: the one place a benchmark in the simulated Discord
    starts it out of the simulation's sight (each of its timers falling due would otherwise
    make the simulation settle the whole bot, which a real event loop never does)."""
    return asyncio.create_task(rounds, name=TASK_NAME)


async def _close(ws: web.WebSocketResponse) -> None:
    # A time limit: past it aiohttp drops the connection without waiting for its buffer.
    with contextlib.suppress(Exception):
        await asyncio.wait_for(
            ws.close(code=WSCloseCode.GOING_AWAY, message=b"no answer to a ping"), WRITE_SECONDS
        )
