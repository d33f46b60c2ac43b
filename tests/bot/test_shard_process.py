"""Sharded bot processes, run as ``python -m bot`` against a local stand-in for Discord's REST
API and gateway: two processes holding shards 0,1 and 2,3 of 4, started at the same moment on
one database, identify one shard at a time per bucket (Discord's max_concurrency), never two in
the same bucket within the spacing; a gateway that refuses a shard is one log line a retry."""

from __future__ import annotations

import asyncio
import itertools
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.store.store import Store

from .gateway_server import FakeGateway, fake_gateway
from .process import bot_env, fake_discord, launch
from .test_process import gateway_refuses

SPACING = 1.0  # seconds between two identifies of a bucket (5.5 in production)
# The fake gateway notes an identify when it reads it: on a loaded machine the one before
# can be read late, which shortens the gap it sees (without the bucket they would be ~0 s).
JITTER = 0.2

# As tests/bot/process.py, and: the processes share one SQLite file (one machine), which the
# settings refuse to an operator (they would use PostgreSQL); a shorter identify spacing.
_LAUNCH = (
    "import runpy, sys, yarl, discord.gateway, discord.http, bot.config, bot.client; "
    "discord.http.Route.BASE = sys.argv[1]; "
    "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2]); "
    "bot.config.shared_store = lambda settings: True; "
    "bot.client.ShardedKachufulBot.identify_spacing = float(sys.argv[3]); "
    "runpy.run_module('bot', run_name='__main__', alter_sys=True)"
)

# Real bot processes, several at a time: every such test runs on one pytest-xdist worker
# (loadgroup), one after the other, so that two do not crowd the machine and miss their limits.
pytestmark = pytest.mark.xdist_group("processes")


def start(cwd: Path, fake: FakeGateway, db: Path, shards: str) -> subprocess.Popen[str]:
    env = bot_env(db, KACHUFUL_SHARD_COUNT="4", KACHUFUL_SHARD_IDS=shards)
    return subprocess.Popen(
        [sys.executable, "-c", _LAUNCH, fake.base, fake.gateway, str(SPACING)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(process: subprocess.Popen[str]) -> tuple[int, str]:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, err


def two_processes(tmp_path: Path, max_concurrency: int) -> tuple[FakeGateway, list[str]]:
    """Both processes started at once; returns the gateway's record and their logs once all
    four shards have identified and both processes stopped."""
    db = tmp_path / "data" / "kachuful.sqlite3"

    async def migrate() -> None:
        # The schema first: two processes migrating a new file at once would race.
        await (await Store.open(db)).close()

    asyncio.run(migrate())
    logs = []
    with fake_gateway(shard_count=4, max_concurrency=max_concurrency) as fake:
        processes = [start(tmp_path, fake, db, shards) for shards in ("0,1", "2,3")]
        try:
            deadline = time.monotonic() + 60
            while len(fake.identifies()) < 4 and time.monotonic() < deadline:
                assert all(p.poll() is None for p in processes), "a bot process ended"
                time.sleep(0.05)
            time.sleep(3)  # discord.py waits 2 s for servers before it is ready
        finally:
            for process in processes:
                code, err = stop(process)
                logs.append(err)
                assert code == 0, err
    return fake, logs


def test_two_processes_identify_one_shard_at_a_time(tmp_path: Path) -> None:
    fake, logs = two_processes(tmp_path, max_concurrency=1)
    identified = fake.identifies()
    assert sorted(i.shard for i in identified) == [0, 1, 2, 3], identified
    assert {i.count for i in identified} == {4}
    # One bucket: every identify at least the spacing after the one before, across processes.
    gaps = [b.at - a.at for a, b in itertools.pairwise(identified)]
    assert min(gaps) >= SPACING - JITTER, gaps
    # Each process asked Discord once for its session start limits.
    assert fake.requests().count("GET /api/v10/gateway/bot") == 2
    assert "shards 0,1 of 4" in logs[0] and "shards 2,3 of 4" in logs[1]
    for log in logs:
        assert "Traceback" not in log
        assert "ready as kachuful" in log


def test_with_max_concurrency_2_two_buckets_identify_side_by_side(tmp_path: Path) -> None:
    fake, _ = two_processes(tmp_path, max_concurrency=2)
    identified = fake.identifies()
    assert sorted(i.shard for i in identified) == [0, 1, 2, 3]
    for bucket in (0, 1):
        times = [i.at for i in identified if i.shard % 2 == bucket]
        assert times[1] - times[0] >= SPACING - JITTER, identified
    # The two buckets do not wait for each other: the first two identifies come together.
    assert identified[1].at - identified[0].at < SPACING, identified


@pytest.mark.parametrize("shards", ["0,1,2,3"])
def test_a_refused_shard_connection_is_one_line_a_retry(tmp_path: Path, shards: str) -> None:
    env = bot_env(tmp_path / "k.sqlite3", KACHUFUL_SHARD_COUNT="4", KACHUFUL_SHARD_IDS=shards)
    with fake_discord(gateway_refuses) as fake:
        process = launch(tmp_path, fake, env)
        try:
            assert fake.wait_for("/gateway/", timeout=30)
            time.sleep(6)  # discord.py retries a shard after 5 s
        finally:
            code, err = stop(process)
    assert code == 0, err  # SIGTERM: a clean stop
    assert "Traceback" not in err
    failed = [line for line in err.splitlines() if "Failed to connect for shard_id: 0" in line]
    assert len(failed) >= 2 and all("WSServerHandshakeError" in line for line in failed)
