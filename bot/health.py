"""``python -m bot.health``: exit 0 if the running bot is connected to Discord and can write
its database, 1 otherwise (the container's HEALTHCHECK).

The bot touches a heartbeat file beside its database every ``HEARTBEAT_SECONDS`` while it is
connected and a write transaction on the database succeeds; this checks that the file is fresh.
A separate process cannot ask the bot's gateway connection itself, and opening the database
here would compete with the bot for its lock.

A process holding some of the shards (KACHUFUL_SHARD_IDS) has a heartbeat file of its own
(``kachuful-shards-0-1.heartbeat``): two processes sharing a folder must not answer for each
other.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HEARTBEAT_SECONDS = 30.0
# Three missed beats: one slow database write or a gateway reconnect is not "unhealthy".
STALE_AFTER_SECONDS = 3 * HEARTBEAT_SECONDS
HEARTBEAT_NAME = "kachuful.heartbeat"


def heartbeat_path(db_path: str | Path, shard_ids: Sequence[int] | None = None) -> Path:
    if not shard_ids:
        return Path(db_path).parent / HEARTBEAT_NAME
    held = "-".join(str(shard) for shard in sorted(shard_ids))
    return Path(db_path).parent / f"kachuful-shards-{held}.heartbeat"


def check(
    db_path: str | Path, *, shard_ids: Sequence[int] | None = None, now: float | None = None
) -> tuple[bool, str]:
    """Whether the bot is healthy, and one line saying why (not)."""
    path = heartbeat_path(db_path, shard_ids)
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except FileNotFoundError:
        return False, f"no heartbeat yet ({path}): the bot is starting or not connected"
    except OSError as error:
        return False, f"cannot read the heartbeat {path}: {error.strerror}"
    if age > STALE_AFTER_SECONDS:
        return False, f"last heartbeat {age:.0f} s ago: not connected, or the database is stuck"
    return True, f"healthy (last heartbeat {max(age, 0):.0f} s ago)"


def _db_path() -> str:
    from bot.config import Settings

    default = Settings.model_fields["db_path"].default
    return os.environ.get("KACHUFUL_DB_PATH") or str(default)


def _shard_ids() -> list[int] | None:
    # As the bot reads it (bot.config); a value it would refuse leaves no heartbeat anyway.
    value = os.environ.get("KACHUFUL_SHARD_IDS", "").strip()
    parts = [part.strip() for part in value.split(",")] if value else []
    return [int(part) for part in parts] if parts and all(p.isdigit() for p in parts) else None


def main() -> None:
    healthy, line = check(_db_path(), shard_ids=_shard_ids())
    print(line, file=sys.stdout if healthy else sys.stderr)
    raise SystemExit(0 if healthy else 1)


if __name__ == "__main__":
    main()
