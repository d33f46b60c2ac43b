"""Identifies spaced across processes: Discord takes one IDENTIFY per 5 s in each bucket
(shard_id % max_concurrency); processes sharing one database claim their bucket's slot there
before identifying, so processes started at once are never refused."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import pytest

from bot.client import ShardedKachufulBot, create_bot
from bot.config import Settings
from bot.identify import IDENTIFY_SPACING_SECONDS, IdentifyGate
from bot.store.store import Store

START = 1_780_000_000.0  # seconds since the epoch, on the fake clock
SPACING = IDENTIFY_SPACING_SECONDS


class FakeTime:
    """A clock that moves only when every task under test is asleep, to the next wake-up."""

    def __init__(self) -> None:
        self.now = START
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + seconds, next(self._order), woken))
        await woken

    async def run(self, *work: Awaitable[Any]) -> None:
        tasks = [asyncio.ensure_future(item) for item in work]
        while not all(task.done() for task in tasks):
            await asyncio.sleep(0.005)  # the store answers from its own thread
            running = sum(not task.done() for task in tasks)
            if self._sleepers and len(self._sleepers) == running:
                at, _, woken = heapq.heappop(self._sleepers)
                self.now = max(self.now, at)
                woken.set_result(None)
        await asyncio.gather(*tasks)


@pytest.fixture
async def stores(tmp_path: Path) -> AsyncIterator[list[Store]]:
    """Two connections to one database, as two bot processes have."""
    path = tmp_path / "shared.sqlite3"
    first = await Store.open(path)
    second = await Store.open(path)
    yield [first, second]
    for store in (first, second):
        await store.close()


def concurrency(value: int) -> Any:
    async def fetch() -> int:
        return value

    return fetch


async def identify_all(
    time: FakeTime, stores: list[Store], held: list[list[int]], max_concurrency: int
) -> list[tuple[float, int]]:
    """Each process identifies its shards one after the other, as discord.py does; all of
    them start at the same moment. Returns (seconds from the start, shard) in order."""
    identified: list[tuple[float, int]] = []

    async def process(store: Store, shards: list[int]) -> None:
        gate = IdentifyGate(store, concurrency(max_concurrency), clock=time.clock, sleep=time.sleep)
        for shard in shards:
            await gate.wait(shard)
            identified.append((round(time.now - START, 3), shard))

    await time.run(*(process(store, shards) for store, shards in zip(stores, held, strict=True)))
    return sorted(identified)


def gaps_per_bucket(identified: list[tuple[float, int]], buckets: int) -> list[float]:
    gaps = []
    for bucket in range(buckets):
        times = [at for at, shard in identified if shard % buckets == bucket]
        gaps += [later - earlier for earlier, later in itertools.pairwise(times)]
    return gaps


async def test_two_processes_starting_at_once_take_turns(stores: list[Store]) -> None:
    identified = await identify_all(FakeTime(), stores, [[0, 1], [2, 3]], max_concurrency=1)
    assert sorted(shard for _, shard in identified) == [0, 1, 2, 3]
    # One bucket: every identify of either process 5.5 s after the one before, none sooner.
    assert [at for at, _ in identified] == [0.0, SPACING, 2 * SPACING, 3 * SPACING]


async def test_buckets_identify_side_by_side(stores: list[Store]) -> None:
    identified = await identify_all(FakeTime(), stores, [[0, 1], [2, 3]], max_concurrency=2)
    # Shards 0 and 2 share bucket 0, shards 1 and 3 bucket 1: two at a time.
    assert all(gap >= SPACING for gap in gaps_per_bucket(identified, 2))
    assert max(at for at, _ in identified) == SPACING
    assert sum(1 for at, _ in identified if at == 0.0) == 2


async def test_a_slot_claimed_by_a_process_that_died_is_free_after_the_spacing(
    stores: list[Store],
) -> None:
    first, second = stores
    now = round(START * 1000)
    assert await first.claim_interval("identify.0", now, 5500) == 0
    # The first process is gone; the other still waits for the rest of the slot.
    assert await second.claim_interval("identify.0", now + 1500, 5500) == 4000
    assert await second.claim_interval("identify.0", now + 5500, 5500) == 0
    # Another bucket is free at once.
    assert await second.claim_interval("identify.1", now + 5600, 5500) == 0


async def test_a_claim_from_a_clock_far_ahead_does_not_block(stores: list[Store]) -> None:
    first, second = stores
    now = round(START * 1000)
    assert await first.claim_interval("identify.0", now + 3_600_000, 5500) == 0  # an hour ahead
    assert await second.claim_interval("identify.0", now, 5500) == 0


JITTER = 0.1


async def test_the_bot_asks_discord_for_max_concurrency_once(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sharded bots on one database, through discord.py's hook, on the real clock with a
    short spacing: each asks GET /gateway/bot once, and identifies are spaced across them."""
    asked: list[int] = []

    class Limits:
        max_concurrency = 1

    async def limits(self: ShardedKachufulBot) -> Limits:
        asked.append(id(self))
        return Limits()

    monkeypatch.setattr(ShardedKachufulBot, "fetch_session_start_limits", limits)
    bots = []
    for held in ((0, 1), (2, 3)):
        bot = create_bot(settings.model_copy(update={"shard_count": 4, "shard_ids": held}))
        assert isinstance(bot, ShardedKachufulBot)
        bot.store = await Store.open(settings.db_path)
        bot.identify_spacing = 0.3
        bots.append(bot)
    loop = asyncio.get_running_loop()
    identified: list[float] = []

    async def launch(bot: ShardedKachufulBot, shards: tuple[int, ...]) -> None:
        for shard in shards:
            await bot.before_identify_hook(shard, initial=shard == shards[0])
            identified.append(loop.time())

    try:
        await asyncio.gather(launch(bots[0], (0, 1)), launch(bots[1], (2, 3)))
    finally:
        for bot in bots:
            await bot.store.close()
    assert sorted(asked) == sorted(id(bot) for bot in bots)
    identified.sort()
    # Spaced by the 0.3 s bucket (without it, about 0 s apart). A time is taken when a hook
    # returns, after its wait: a busy machine can take one late, which shortens the next gap
    # by that much (a 2-core machine running the suite on 4 workers: up to tens of ms).
    assert all(b - a >= 0.3 - JITTER for a, b in itertools.pairwise(identified)), identified


async def test_without_the_session_limits_every_shard_is_one_bucket(stores: list[Store]) -> None:
    async def refused() -> int:
        raise OSError("Discord is unreachable")

    time = FakeTime()
    first = IdentifyGate(stores[0], refused, clock=time.clock, sleep=time.sleep)
    second = IdentifyGate(stores[1], concurrency(1), clock=time.clock, sleep=time.sleep)
    moments: list[float] = []

    async def identify(gate: IdentifyGate, shard: int) -> None:
        await gate.wait(shard)
        moments.append(time.now - START)

    # Shards 1 and 2 would be in different buckets with max_concurrency 2: here one bucket.
    await time.run(identify(first, 1), identify(second, 2))
    assert await first.concurrency() == 1
    assert sorted(moments) == [0.0, SPACING]


async def test_without_the_database_a_process_keeps_discords_own_pace(
    stores: list[Store],
) -> None:
    from bot.store.failures import StoreBusy

    class Locked:
        async def claim_interval(self, key: str, now_ms: int, spacing_ms: int) -> int:
            raise StoreBusy("the database is locked by another process")

    time = FakeTime()
    gate = IdentifyGate(Locked(), concurrency(1), clock=time.clock, sleep=time.sleep)  # type: ignore[arg-type]
    await time.run(gate.wait(0))
    assert time.now - START == SPACING  # waited the spacing, then identified
