"""Make the databases that tests/bot/store/test_upgrade_in_place.py upgrades: run with the
bot's code of the release whose databases they stand for (a checkout of it), never by the
tests. Every kind of row the store keeps is written through the store's own operations:
lobbies, a running game with its record, finished games (results, aggregates, ratings, deal
figures, period totals), a stopped game, delivered posts, hand messages, channel settings and
the bot's own state.

    python tests/bot/store/data/make_databases.py out.sqlite3
    python tests/bot/store/data/make_databases.py postgresql://...   # then pg_dump --inserts
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta

from bot.model import Seat, TableOptions
from bot.store.store import Store
from bot.store.values import Delivered, ResultRow
from kachuful_core import Game, Rules, record_json
from kachuful_core.players import HeuristicPlayer, act

GUILD = 1_100_000_000_000_000_001  # Discord ids need 64 bits
CHANNELS = (1_200_000_000_000_000_002, 1_200_000_000_000_000_003)
PLAYERS = (1_300_000_000_000_000_001, 1_300_000_000_000_000_002, 1_300_000_000_000_000_003)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=37)
        return self.now


def played(seed: str) -> Game:
    game = Game.new(Rules(players=3, max_hand=3, schedule="down"), seed, players=["A", "B", "C"])
    bots = [HeuristicPlayer(seed=i) for i in range(3)]
    while game.turn is not None:
        act(game, game.turn, bots[game.turn])
    return game


async def main(target: str) -> None:
    clock = Clock()
    store = await Store.open(target, clock=clock)
    try:
        for number in range(12):
            channel = CHANNELS[number % 2]
            seats = [Seat(user_id=PLAYERS[0], name="Asha"), Seat(user_id=PLAYERS[1], name="Bilal")]
            seats.append(
                Seat(user_id=PLAYERS[2], name="Chen") if number % 3 else Seat(None, "Robo")
            )
            game = await store.create_game(
                guild_id=GUILD,
                channel_id=channel,
                host_id=PLAYERS[0],
                options=TableOptions(),
                max_seats=4,
                seats=seats,
                lobby_token=f"token-{number}",
            )
            await store.set_message_id(game.id, 5_000 + number)
            game.message_id = 5_000 + number
            await store.mark_delivered(game.id, "lobby", Delivered(channel, 5_000 + number, "d0"))
            played_game = played(f"seed-{number}")
            game.status, game.seed, game.version = "running", f"secret-{number}", 1
            await store.save_game(game, record=record_json(played_game))
            await store.save_hand(game.id, PLAYERS[0], f"hand-{number}", clock.now, None, "fr")
            if number == 11:
                break  # the last one stays running
            if number == 5:
                game.status, game.ended, game.version = "stopped", f"stop:{PLAYERS[0]}", 2
                await store.save_game(game, record=record_json(played_game))
                continue
            totals = list(played_game.totals)
            results = [
                ResultRow(
                    seat=seat,
                    user_id=entry.user_id,
                    score=totals[seat],
                    won=totals[seat] == max(totals),
                    bids_exact=1 + seat % 2,
                    bids=3,
                )
                for seat, entry in enumerate(seats)
            ]
            game.status, game.version, game.settled = "finished", 2, number % 4 != 0
            await store.save_game(game, record=record_json(played_game), results=results)
            await store.mark_delivered(game.id, "final", Delivered(channel, 9_000 + number, "f"))
            if game.settled:
                await store.settle(game.id)
        await store.set_channel_settings(
            guild_id=GUILD, channel_id=CHANNELS[0], settings={"length": "quick"}, updated_by=1
        )
        await store.set_bot_state("commands_digest", "abc123")
        await store.claim_interval("sync", 1_800_000_000_000, 1_000)
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
