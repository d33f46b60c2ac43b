"""The change path takes a plain request (bot/table/requests.py, moves.py): who acts, on which
table, at which move counter, doing what, in which language; a Step comes out. No Discord on
that path: a whole game driven through it alone is the game the same moves make in Discord."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import simcord

from bot.config import Settings
from bot.i18n import EN
from bot.model import Seat, TableOptions
from bot.store.store import Store
from bot.table.changes import Changes
from bot.table.moves import Moves
from bot.table.open_tables import OpenTables
from bot.table.requests import (
    Back,
    Bid,
    Choose,
    Claim,
    Look,
    Move,
    PlayCard,
    Request,
    SetChoice,
    TakeBack,
)
from bot.table.session import TableSession
from bot.table.start import start_game
from bot.table.thinking import Thinker
from bot.table.timing import Timing
from kachuful_core import Game, Phase, load_game
from tests.engines import new_database

from ..helpers import buttons, world
from ..helpers import start_game as start_in_discord

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.both_backends


def test_the_change_path_loads_no_discord() -> None:
    """A fresh interpreter that imports the path's front door (and starts a game through
    it) has loaded neither discord.py nor the buttons."""
    code = (
        "import sys\n"
        "import bot.table.moves, bot.table.start\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'discord'"
        " or m.startswith('bot.ui'))\n"
        "print(loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def policy(game: Game) -> Move:
    """The move both games make: varied by the move count, always legal."""
    seat = game.turn
    assert seat is not None
    if game.phase is Phase.BIDDING:
        bids = game.legal_bids(seat)
        return Bid(bids[game.move_count % len(bids)])
    cards = sorted(game.legal_cards(seat))
    return PlayCard(cards[game.move_count % len(cards)])


class Path_:
    """The change path alone, on a store of its own: no client, no Discord."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.tables = OpenTables()
        self.timing = Timing(settings, lambda: datetime.now(UTC), 0.0)
        self.changes = Changes(store, self.tables, self.timing)
        self.moves = Moves(self.tables, self.changes, store)


@pytest.fixture
async def plain(
    settings: Settings, backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Path_]:
    """A store of its own (not the SimCord bot's) on the test's engine."""
    where = new_database(request, backend)
    store = await Store.open(where)
    try:
        yield Path_(store, settings)
    finally:
        await store.close()


async def open_table(
    path: Path_, options: TableOptions, seats: list[Seat], seed: str, channel: int = 77
) -> TableSession:
    assert seats[0].user_id is not None
    row = await path.store.create_game(
        guild_id=1,
        channel_id=channel,
        host_id=seats[0].user_id,
        options=options,
        max_seats=len(seats),
        seats=seats,
    )
    session = TableSession(row)
    path.tables.add(session)
    started = await path.changes.apply(
        session, lambda s: start_game(s, EN, seed, Thinker(workers=0)), EN
    )
    assert started is not None and started.counted
    return session


async def test_a_whole_game_through_the_plain_path_is_the_game_played_in_discord(
    env: simcord.Env, plain: Path_
) -> None:
    # In Discord: three members, each clicking the button of the policy's move.
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_in_discord(env, channel, members, max_hand=3)
    row = table.session.row
    seed, options = row.seed, row.options
    seats = [replace(seat) for seat in row.seats]
    clicks = 0
    while table.session is not None and table.session.row.status == "running":
        game = table.game
        member = table.member_at(game.turn)
        assert member is not None
        move = policy(game)
        if member.id not in table.hand_ids:
            await table.open_hand(member)
        hand = table.hand(member)
        wanted = (
            f":{move.n}:0"
            if isinstance(move, Bid)
            else f":{move.card}"
            if isinstance(move, PlayCard)
            else None
        )
        prefix = "kf:b:" if isinstance(move, Bid) else "kf:p:"
        [button] = [
            b
            for b in buttons(hand)
            if (b.custom_id or "").startswith(prefix)
            and (b.custom_id or "").endswith(wanted or "")
            and not b.disabled
        ]
        result = await member.click(hand, custom_id=button.custom_id)
        assert result.acknowledged
        clicks += 1
    stored = await env.bot.store.load_game(row.id)
    assert stored is not None and stored.status == "finished" and stored.record is not None
    in_discord = stored.record

    # Through the path alone: the same seats, options and seed; the same policy.
    session = await open_table(plain, options, seats, seed)
    answers = 0
    while session.row.status == "running":
        game = session.game
        assert game is not None
        seat = session.row.seats[game.turn]
        assert seat.user_id is not None
        request = Request(
            seat.user_id, session.row.id, policy(game), session.row.version, language="fr"
        )
        step = await plain.moves.handle(request)
        assert step.counted and step.version == session.row.version
        assert step.reply is not None and step.reply.hand_of == seat.user_id
        answers += 1
    assert answers == clicks
    through_path = await plain.store.load_game(session.row.id)
    assert through_path is not None and through_path.status == "finished"
    assert through_path.record is not None
    assert json.dumps(through_path.record, sort_keys=True) == json.dumps(in_discord, sort_keys=True)
    # And it is a whole, legal game: the record replays.
    replayed = load_game(through_path.record)
    assert replayed.phase is Phase.FINISHED


async def test_every_claim_in_a_request_is_checked(plain: Path_, settings: Settings) -> None:
    """Whatever a client sends, a bad request gets a clear answer and changes nothing: a move
    out of turn, a stale or missing move counter, a card not held, an impossible bid, another
    seat's "I'm back", an unknown table, a table of another channel, someone not seated."""
    seats = [Seat(user_id=10 + i, name=name) for i, name in enumerate(("asha", "bilal", "chen"))]
    options = TableOptions().with_rules(max_hand=3)
    session = await open_table(plain, options, seats, "a fixed seed for the checks")
    game = session.game
    assert game is not None and game.turn is not None
    actor = seats[game.turn].user_id
    other = seats[(game.turn + 1) % 3].user_id
    assert actor is not None and other is not None
    table, version = session.row.id, session.row.version
    before = (session.row.version, json.dumps(session.game and game.bids))

    def ask(user: int, move: Move, version: int | None = version, **more: object) -> Request:
        return Request(user, table, move, version, **more)  # type: ignore[arg-type]

    refused = {
        "out of turn": ask(other, Bid(0)),
        "stale counter": ask(actor, Bid(0), version - 1),
        "no counter": ask(actor, Bid(0), None),
        "impossible bid": ask(actor, Bid(99)),
        "negative bid": ask(actor, Bid(-1)),
        "a card while bidding": ask(actor, PlayCard(0)),
        "a card not held": ask(actor, PlayCard(10**6)),
        "claim while bidding": ask(actor, Claim()),
        "choose while bidding": ask(actor, Choose(0)),
        "nothing to take back": ask(actor, TakeBack()),
        "another seat's I'm back": ask(actor, Back(5)),
        "not seated": ask(999, Bid(0)),
        "unknown table": Request(actor, table + 1000, Bid(0), version),
        "another channel's table": Request(actor, table, Bid(0), version, channel_id=78),
    }
    for why, request in refused.items():
        step = await plain.moves.handle(request)
        assert not step.counted, why
        assert step.reply is not None and step.reply.text, why
        assert (session.row.version, json.dumps(game.bids)) == before, why
    # Looking at a hand when no blind bid is possible changes nothing: the hand is the answer.
    looked = await plain.moves.handle(ask(actor, Look()))
    assert not looked.counted and looked.reply is not None and looked.reply.hand_of == actor
    assert (session.row.version, json.dumps(game.bids)) == before
    # A choice of the seat is no move: it counts without a new move counter.
    step = await plain.moves.handle(ask(actor, SetChoice("confirm_cards", True), None))
    assert step.counted and session.row.version == version
    # The words are the actor's: the same refusal in French.
    english = await plain.moves.handle(ask(other, Bid(0)))
    french = await plain.moves.handle(ask(other, Bid(0), language="fr"))
    assert english.reply and french.reply and english.reply.text != french.reply.text
    # And a move sent twice counts once: the second is told what the first did.
    first = await plain.moves.handle(ask(actor, Bid(0)))
    again = await plain.moves.handle(ask(actor, Bid(0)))
    assert first.counted and not again.counted
    assert again.reply is not None and again.reply.text and "0" in again.reply.text
    assert session.row.version == version + 1
