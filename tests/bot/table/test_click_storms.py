"""Click storms (Hypothesis): random sequences of clicks at two running tables — current buttons,
stale buttons kept from older hand messages, double clicks delivered at the same moment, clicks
by random members (a non-player too), forged custom ids (random text; bid, card and other ids
with a wrong table, move counter or number; non-ASCII digits such as '３'; the other channel's
table) — and after every click:

- the click was answered (no "This interaction failed") and the bot raised nothing;
- each table's game in memory equals a replay of its stored record (``load_game``): the same
  moves, bids, tricks, turn and move counter (memory never runs ahead of disk or behind it);
- at most one move of a player came from one click (a double click moves once), and only a
  click that could make it: a bid, card, unseen or look id for that table, at the move counter
  before the click (ASCII digits), by the player whose turn it is, in the table's channel.

Each example runs in its own SimCord environment and database (Hypothesis runs the examples
one after another, each in ``asyncio.run``), draws every click's dice before the tables exist
(what they pick among depends on what happened, so the draws cannot), then plays both games to
the end and checks the results: one row per seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bot.client import KachufulBot
from bot.config import Settings
from kachuful_core import load_game
from kachuful_core.claims import all_forced, single_legal_card
from kachuful_core.game import Game
from tests.pg import Cluster

from ..conftest import FAKE_TOKEN, SETTLE_SECONDS
from ..helpers import Table, buttons, craft_click, simultaneous_clicks, start_game

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends

ACTIONS = ("b", "p", "u", "k")  # bid, play, play unseen, look: the ids that may move a game
PREFIXES = (
    "kf:b",
    "kf:p",
    "kf:u",
    "kf:k",
    "kf:h",
    "kf:r",
    "kf:back",
    "kf:l:join",
    "kf:l:leave",
    "kf:l:cpu",
    "kf:l:start",
    "kf:x",
    "kf",
    "",
)
# Digits that are not ASCII: Python's \d and int() take them.
DIGITS = {
    "fullwidth": str.maketrans("0123456789", "０１２３４５６７８９"),
    "arabic-indic": str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"),
    "devanagari": str.maketrans("0123456789", "०१२३४५६७८९"),
}


# ---- one environment per example -------------------------------------------------------------


def new_bot(db: Path, url: str | None = None) -> KachufulBot:
    # No worker processes for computer decisions (SimCord never closes the bot, so a pool per
    # example would outlive it): the plain computer player needs none.
    workers = {"computer_workers": 0} if "computer_workers" in Settings.model_fields else {}
    config = Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=FAKE_TOKEN,
        db_path=db,
        database_url=url,
        sync_global=True,
        bot_delay_seconds=0,
        turn_seconds=3600,
        lobby_timeout_seconds=900,
        **workers,
    )
    count = itertools.count()

    def seed() -> str:  # the same deals in every example: the clicks make the difference
        return hashlib.sha256(f"click-storms/{next(count)}".encode()).hexdigest()

    return KachufulBot(config, new_seed=seed, post_limit=10_000, hand_delay=0.0)


class Storm:
    """Two tables: asha and bilal with a computer in #cards, dev with two in #other; chen is
    a member who plays at neither."""

    def __init__(self, env: simcord.Env) -> None:
        self.env = env
        self.errors = env.error_cursor
        self.hands: list[tuple[simcord.MemberActor, int, int]] = []  # member, channel, message
        self.state: dict[int, tuple[Any, ...]] | None = None  # as the last check saw it
        self.shown: dict[int, list[str]] = {}  # message id -> every custom id it ever showed

    async def setup(self, max_hand: int) -> None:
        env = self.env
        guild = env.create_guild("Kachuful Club")
        self.cards = guild.create_text_channel("cards")
        self.other = guild.create_text_channel("other")
        names = ("asha", "bilal", "chen", "dev")
        self.asha, self.bilal, self.chen, self.dev = (
            guild.add_member(env.create_user(n)) for n in names
        )
        self.members = [self.asha, self.bilal, self.chen, self.dev]
        self.a = await start_game(
            env, self.cards, [self.asha, self.bilal], computers=1, max_hand=max_hand
        )
        self.b = await start_game(env, self.other, [self.dev], computers=2, max_hand=max_hand)
        self.tables = [self.a, self.b]
        self.ids = {t.channel.id: t.session.row.id for t in self.tables}

    # -- what there is to click

    def running(self) -> list[Table]:
        return [t for t in self.tables if t.session is not None]

    def public(self) -> list[discord.Message]:
        return [m for t in self.tables for m in t.public()]

    def hand_messages(self, member: simcord.MemberActor | None = None) -> list[Any]:
        """(owner, message) of the hand messages shown so far, oldest first."""
        seen: dict[tuple[int, int], dict[int, discord.Message]] = {}
        found = []
        for owner, channel_id, message_id in self.hands:
            if member is not None and owner is not member:
                continue
            if (owner.id, channel_id) not in seen:
                channel = self.cards if channel_id == self.cards.id else self.other
                history = channel.history(viewer=owner)
                seen[(owner.id, channel_id)] = {m.id: m for m in history}
            message = seen[(owner.id, channel_id)][message_id]
            shown = self.shown.setdefault(message_id, [])
            shown += [cid for cid in ids_of(message) if cid not in shown]
            found.append((owner, message))
        return found

    async def open_hand(self, table: Table, member: simcord.MemberActor) -> Any:
        result = await member.click(table.last_public_with("Your hand"), label="Your hand")
        if result.response is not None and result.response.ephemeral and result.response.embeds:
            self.hands.append((member, table.channel.id, result.response.id))
            mine = [h for h in self.hands if h[0] is member]
            if len(mine) > KEEP_HANDS:  # enough stale ones to click
                self.hands.remove(mine[0])
        return result

    def current_click(self, table: Table) -> tuple[simcord.MemberActor, Any, str] | None:
        """The player to act, their newest hand message, and its first enabled action."""
        member = table.member_at(table.game.turn)
        assert member is not None
        for owner, message in reversed(self.hand_messages(member)):
            if message.channel.id != table.channel.id:
                continue
            version = str(table.session.row.version)
            for item in buttons(message):
                parts = (item.custom_id or "").split(":")
                if (
                    not item.disabled
                    and len(parts) > 3
                    and parts[1] in (*ACTIONS, "q")  # "q": a card to confirm
                    and parts[3] == version
                ):
                    return owner, message, item.custom_id
            break
        return None

    # -- the checks after every click

    async def stored_state(self) -> dict[int, tuple[Any, ...]]:
        """Per table: the stored row and the replayed record, as the game would show them."""
        state = {}
        for table in self.tables:
            stored = await self.env.bot.store.load_game(self.ids[table.channel.id])
            assert stored is not None and stored.record is not None
            game, moves = replay(stored.record)
            state[stored.id] = (stored, game, moves)
        return state

    async def before(self) -> dict[int, tuple[Any, ...]]:
        """The stored state before a click (nothing moves between clicks: all is settled)."""
        if self.state is None:
            self.state = await self.stored_state()
        return self.state

    async def check(
        self,
        clicks: list[tuple[simcord.MemberActor, int, str]],
        before: Any,
        must_move: str | None = None,
    ) -> Any:
        """After a click (or clicks delivered at once). ``must_move``: the custom id of an
        enabled bid or card of the player to act, at the current move counter, was clicked:
        that move must be made (answered and lost would be worse than refused)."""
        errors = self.env.errors_since(self.errors)
        assert not errors, f"the bot raised: {[type(e).__name__ for e in errors]}"
        after = await self.stored_state()
        for table in self.tables:
            table_id = self.ids[table.channel.id]
            stored, game, moves = after[table_id]
            session = table.session
            if session is None:  # finished: the table is closed
                assert stored.status == "finished" and game.turn is None
            else:
                live = session.game
                assert session.row.version == stored.version, "memory and disk: move counters"
                assert session.row.seats == stored.seats
                assert same_game(live, game), f"table {table_id}: memory and record differ"
            # The moves of players (not computers) this click made.
            old_stored, old_game, old_moves = before[table_id]
            humans = {i for i, s in enumerate(stored.seats) if not s.computer_plays}
            # A deal's forced ending plays itself (every seat's card), and a player who chose it
            # has a single legal card played for them: not moves of a click.
            chose = {i for i, s in enumerate(stored.seats) if s.single_card}
            new = range(len(old_moves), len(moves))
            auto = {
                i for i in new if i in moves.forced or (i in moves.single and moves[i][0] in chose)
            }
            made = [moves[i] for i in new if moves[i][0] in humans and i not in auto]
            if list(moves) == old_moves[:-1] and old_moves:
                # A take-back: only of the clicking player's own last move, from its button
                # at the move counter that move left.
                seat = old_moves[-1][0]
                assert any(
                    cid == f"kf:z:{table_id}:{old_stored.version}"
                    and member.id == old_stored.seats[seat].user_id
                    and channel_id == table.channel.id
                    for member, channel_id, cid in clicks
                ), f"table {table_id}: a move was taken back by a click that could not"
                assert stored.version == old_stored.version + 1
                continue
            assert moves[: len(old_moves)] == old_moves, "a stored move changed"
            assert len(made) <= 1, f"one click, {len(made)} moves of players"
            if must_move is not None and may_move(must_move, table_id, old_stored.version):
                parts = must_move.split(":")
                want = (old_game.turn, "bid" if parts[1] == "b" else "play", int(parts[4]))
                assert made == [want], f"table {table_id}: a current button did not move"
            if stored.version != old_stored.version and not (auto and not made):
                # (Cards played for a player, alone, follow a click of "Only card played
                # for me", which is no move.)
                assert made, "the move counter moved without a player's move"
                to_act = old_stored.seats[old_game.turn].user_id
                assert any(
                    may_move(cid, table_id, old_stored.version)
                    and member.id == to_act
                    and channel_id == table.channel.id
                    for member, channel_id, cid in clicks
                ), f"table {table_id} moved by a click that could not move it: " + ", ".join(
                    f"{m.name} {redact(cid)!r}" for m, _, cid in clicks
                )
        self.state = after
        return after


class Moves(list[tuple[int, str, int | None]]):
    """A record's moves: (seat, "bid" | "play", n or card); ``forced``: the indexes of the
    cards played while every remaining card of the deal was forced; ``single``: of the cards
    that were their player's only legal card."""

    def __init__(self) -> None:
        super().__init__()
        self.forced: set[int] = set()
        self.single: set[int] = set()


def replay(record: dict[str, Any]) -> tuple[Game, Moves]:
    """The record replayed, with its moves."""
    moves = Moves()
    bid, play, unseen = Game.bid, Game.play, Game.play_unseen

    def logged_bid(self: Game, seat: int, n: int, blind: bool = False) -> Any:
        moves.append((seat, "bid", n))
        return bid(self, seat, n, blind)

    def logged_play(self: Game, seat: int, card: int) -> Any:
        if all_forced(self):
            moves.forced.add(len(moves))
        if single_legal_card(self, seat) is not None:
            moves.single.add(len(moves))
        moves.append((seat, "play", card))
        return play(self, seat, card)

    def logged_unseen(self: Game, seat: int) -> Any:
        if all_forced(self):
            moves.forced.add(len(moves))
        moves.append((seat, "play", None))
        return unseen(self, seat)

    Game.bid, Game.play, Game.play_unseen = logged_bid, logged_play, logged_unseen  # type: ignore[method-assign]
    try:
        game = load_game(record)
    finally:
        Game.bid, Game.play, Game.play_unseen = bid, play, unseen  # type: ignore[method-assign]
    return game, moves


def same_game(live: Game, replayed: Game) -> bool:
    return (
        live.move_count == replayed.move_count
        and live.deal_index == replayed.deal_index
        and live.phase is replayed.phase
        and live.turn == replayed.turn
        and live.bids == replayed.bids
        and live.completed_tricks == replayed.completed_tricks
        and live.current_trick == replayed.current_trick
        and live.totals == replayed.totals
    )


def may_move(custom_id: str, table: int, version: int) -> bool:
    """A bid, card, unseen or look id of ``table`` at ``version``, in ASCII digits."""
    parts = custom_id.split(":")
    if len(parts) < 4 or parts[0] != "kf" or parts[1] not in ACTIONS:
        return False
    fields = parts[2:]
    if not all(f.isascii() and f.isdigit() for f in fields):
        return False
    return int(fields[0]) == table and int(fields[1]) == version


# ---- the clicks ------------------------------------------------------------------------------


# Every draw of a click has the same shape whatever the tables did: Hypothesis replays a
# prefix of draws and refuses ("FlakyStrategyDefinition") a draw whose bounds, or whose being
# drawn at all, depend on the environment. So each click draws its kind, a row of dice and a
# forged id up front, and what they pick is decided here, from what exists to be clicked.
DICE = 12
NUMBER = st.one_of(
    st.tuples(st.just("table"), st.integers(min_value=0, max_value=5)),
    st.tuples(st.just("version"), st.integers(min_value=-2, max_value=2)),
    st.tuples(st.just("n"), st.integers(min_value=0, max_value=60)),
    st.just(("n", 10**30)),
)
FORGED = st.one_of(
    st.tuples(
        st.sampled_from(PREFIXES),
        st.lists(NUMBER, min_size=0, max_size=5),
        st.sampled_from([None, None, *DIGITS]),
        st.sampled_from([None, None, "", "x", "-1", " 1", "1 "]),
    ),
    st.text(min_size=1, max_size=100),
)


class Roll:
    """One click's draws: ``pick`` and ``chance`` read the dice in order (a missing choice
    leaves the rest as they are)."""

    def __init__(self, kind: str, dice: list[int], forged: Any) -> None:
        self.kind, self.dice, self.forged, self.used = kind, dice, forged, 0

    def number(self, below: int) -> int:
        value = self.dice[self.used % DICE] % below
        self.used += 1
        return value

    def pick(self, items: list[Any]) -> Any:
        return items[self.number(len(items))]

    def chance(self, one_in: int = 2) -> bool:
        return self.number(one_in) == 0


def draw_roll(data: st.DataObject) -> Roll:
    kind = data.draw(st.sampled_from(KINDS), label="kind")
    dice = data.draw(st.lists(st.integers(0, 2**16), min_size=DICE, max_size=DICE), label="dice")
    return Roll(kind, dice, data.draw(FORGED, label="forged id"))


def forged_id(storm: Storm, spec: Any) -> str:
    """The custom id a modified client could send, from a drawn ``FORGED`` spec."""
    if isinstance(spec, str):
        return spec
    prefix, numbers, digits, extra = spec
    version = max((t.session.row.version for t in storm.running()), default=0)
    tables = [*storm.ids.values(), 0, max(storm.ids.values()) + 1, 10**20]
    fields = []
    for what, value in numbers:
        if what == "table":
            fields.append(tables[value % len(tables)])
        elif what == "version":
            fields.append(max(0, version + value))
        else:
            fields.append(value)
    text = ":".join([prefix, *map(str, fields)] + ([extra] if extra is not None else []))
    return text.translate(DIGITS[digits]) if digits else text


def near_copy(storm: Storm, roll: Roll) -> str | None:
    """A real button's id with one field changed."""
    real = [cid for _, m in storm.hand_messages() for cid in ids_of(m)]
    if not real:
        return None
    version = max((t.session.row.version for t in storm.running()), default=0)
    values = ["０", "３", "٣", "00", "-1", "", "999999", str(version + 1), str(version - 1)]
    custom_id = roll.pick(real)
    return change_field(custom_id, roll.number(7), roll.pick(values))


def change_field(custom_id: str, at: int, value: str) -> str:
    parts = custom_id.split(":")
    parts[at % len(parts)] = value
    return ":".join(parts)


def redact(custom_id: str) -> str:
    """A custom id as a failure message may show it: no card of a hand (after the table and
    the move counter, a field may name one)."""
    parts = custom_id.split(":")
    if len(parts) > 4:
        parts[4:] = ["…"]
    return ":".join(parts)


def ids_of(message: discord.Message) -> list[str]:
    return [b.custom_id for b in buttons(message) if getattr(b, "custom_id", None)]


KEEP_HANDS = 5  # hand messages kept per member
KINDS = ("current", "open", "stale", "raced", "double", "two players", "outsider", "forged")


async def one_click(storm: Storm, roll: Roll) -> None:
    kind = roll.kind
    running = storm.running()
    if not running:
        return
    before = await storm.before()
    clicks: list[tuple[simcord.MemberActor, int, str]] = []
    results: list[simcord.InteractionResult] = []
    must_move = None
    table = roll.pick(running)
    to_act = table.member_at(table.game.turn)
    assert to_act is not None
    if kind in ("current", "double", "two players"):
        if roll.chance():  # a new hand message first
            # The older one is left as it is: its buttons go stale once the player acts.
            clicks.append((to_act, table.channel.id, f"kf:h:{storm.ids[table.channel.id]}"))
            results.append(await storm.open_hand(table, to_act))
        current = storm.current_click(table)
        if current is None:
            member = table.member_at(table.game.turn)
            assert member is not None
            clicks.append((member, table.channel.id, f"kf:h:{storm.ids[table.channel.id]}"))
            results.append(await storm.open_hand(table, member))
        elif kind == "current":
            member, message, cid = current
            clicks.append((member, message.channel.id, cid))
            results.append(await member.click(message, custom_id=cid))
            must_move = cid
        elif kind == "double":
            member, message, cid = current
            must_move = cid
            copies = 2 + roll.number(2)
            clicks += [(member, message.channel.id, cid)] * copies
            results += await simultaneous_clicks(storm.env, [(member, message, cid)] * copies)
        else:  # every player with a hand message clicks its first button at the same moment
            batch = [current]
            for owner, message in storm.hand_messages():
                if owner is not current[0] and ids_of(message):
                    batch.append((owner, message, ids_of(message)[0]))
            clicks += [(m, msg.channel.id, cid) for m, msg, cid in batch]
            results += await simultaneous_clicks(storm.env, batch)
            must_move = current[2]
    elif kind == "open":
        member = roll.pick([to_act, *storm.members])
        clicks.append((member, table.channel.id, f"kf:h:{storm.ids[table.channel.id]}"))
        results.append(await storm.open_hand(table, member))
    elif kind == "stale":
        # Mostly an older hand message of the player to act: a stale bid or card of theirs is
        # what a missing move-counter check would let through.
        kept = [(o, m) for o, m in storm.hand_messages(to_act) if m.channel.id == table.channel.id]
        if not kept or roll.chance(4):  # anyone's
            kept = storm.hand_messages()
        if not kept:
            return
        member, message = roll.pick(kept)
        choices = [b for b in buttons(message) if getattr(b, "custom_id", None)]
        if not choices:
            return
        item = roll.pick(choices)
        clicks.append((member, message.channel.id, item.custom_id))
        if item.disabled:  # a real client cannot click it: sent as a modified client would
            results.append(await craft_click(storm.env, member, message, item.custom_id))
        else:
            results.append(await member.click(message, custom_id=item.custom_id))
    elif kind == "raced":
        # A button the message showed before the bot redrew it, clicked as it was redrawn:
        # Discord sends the old id with the message as it is now.
        kept = [
            (owner, message, cid)
            for owner, message in storm.hand_messages()
            for cid in storm.shown.get(message.id, [])
            if cid not in ids_of(message)
        ]
        if not kept:
            return
        member, message, cid = roll.pick(kept)
        clicks.append((member, message.channel.id, cid))
        results.append(await craft_click(storm.env, member, message, cid))
    else:
        member = storm.chen if kind == "outsider" else None
        if member is None:
            member = roll.pick(storm.members)
        targets: list[discord.Message] = storm.public()
        targets += [m for owner, m in storm.hand_messages(member)]
        message = roll.pick(targets)
        if kind == "outsider" and roll.chance():  # a real button
            real = [b for b in buttons(message) if not b.disabled and b.custom_id]
            if real:
                cid = roll.pick(real).custom_id
                clicks.append((member, message.channel.id, cid))
                results.append(await member.click(message, custom_id=cid))
        if not clicks:
            near = near_copy(storm, roll) if roll.chance() else None
            cid = near if near is not None else forged_id(storm, roll.forged)
            clicks.append((member, message.channel.id, cid))
            results.append(await craft_click(storm.env, member, message, cid))
    for result, (member, _, cid) in zip(results, clicks, strict=True):
        what = f"{kind}: {member.name}'s click on {redact(cid)!r}"
        assert result.acknowledged, f"{what} was not answered"
        shown = result.response.content if result.response is not None else ""
        assert "interaction failed" not in (shown or "").lower(), what
    await storm.check(clicks, before, must_move)


async def finish(storm: Storm) -> None:
    """Both games played to the end after the storm: they still finish, with their results."""
    for table in storm.tables:
        for _ in range(400):
            if table.session is None:
                break
            before = await storm.before()
            current = storm.current_click(table)
            member = table.member_at(table.game.turn)
            assert member is not None
            if current is None:
                result = await storm.open_hand(table, member)
                clicks = [(member, table.channel.id, f"kf:h:{storm.ids[table.channel.id]}")]
            else:
                owner, message, cid = current
                if cid.startswith("kf:q:"):  # the player confirms each card: choose, then play
                    result = await owner.click(message, custom_id=cid)
                    assert result.acknowledged
                    await storm.check([(owner, table.channel.id, cid)], before)
                    cid = cid.replace("kf:q:", "kf:p:", 1)
                result = await owner.click(message, custom_id=cid)
                clicks = [(owner, table.channel.id, cid)]
            assert result.acknowledged
            await storm.check(clicks, before, clicks[0][2] if current else None)
        assert table.session is None, "the game did not finish"
        results = await storm.env.bot.store.results_for_game(storm.ids[table.channel.id])
        assert len(results) == 3


@contextlib.contextmanager
def fresh_database(cluster: Cluster | None) -> Iterator[str | None]:
    """An empty PostgreSQL database on ``cluster`` for one example, or None (SQLite)."""
    if cluster is None:
        yield None
        return
    name = cluster.new_database()
    try:
        yield cluster.url(name)
    finally:
        cluster.drop_database(name)


async def run_storm(data: st.DataObject, cluster: Cluster | None) -> None:
    max_hand = data.draw(st.integers(min_value=1, max_value=3), label="max_hand")
    clicks = data.draw(st.integers(min_value=5, max_value=25), label="clicks")
    rolls = [draw_roll(data) for _ in range(clicks)]  # all drawn before the tables exist
    with (
        tempfile.TemporaryDirectory(prefix="click-storm-") as tmp,
        fresh_database(cluster) as url,
    ):
        bot = new_bot(Path(tmp) / "kachuful.sqlite3", url)
        env = simcord.Env(bot, settle_timeout=SETTLE_SECONDS)
        await env.start()
        try:
            storm = Storm(env)
            await storm.setup(max_hand)
            for roll in rolls:
                await one_click(storm, roll)
            await finish(storm)
        finally:
            await env.shutdown()
            await bot.store.close()


STORM_SETTINGS = settings(
    deadline=None,
    # Shrinking would replay whole environments for minutes; the drawn clicks are printed.
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# Ten storms on SQLite; four on PostgreSQL, where the store's own tests cover the engine's
# differences and a storm costs three times as much (a database made and dropped for each).
@settings(STORM_SETTINGS, max_examples=10)
@given(data=st.data())
def test_click_storms_answer_every_click_and_keep_memory_equal_to_disk(
    data: st.DataObject,
) -> None:
    # A fresh event loop per example (pytest-asyncio's loop is only for async tests).
    asyncio.run(run_storm(data, None))


@settings(STORM_SETTINGS, max_examples=4)
@given(data=st.data())
def test_click_storms_on_postgresql(data: st.DataObject, pg_cluster: Cluster) -> None:
    asyncio.run(run_storm(data, pg_cluster))


async def test_every_kind_of_forged_click_is_answered_and_moves_nothing(
    env: simcord.Env,
) -> None:
    """One click of each kind of forged or raced id at a running table, all listed at once."""
    storm = Storm(env)
    await storm.setup(3)
    table, other = storm.a, storm.ids[storm.other.id]
    member = table.member_at(table.game.turn)
    assert member is not None
    await storm.open_hand(table, member)
    owner, hand = storm.hand_messages(member)[-1]
    real = storm.current_click(table)
    assert real is not None
    own = storm.ids[storm.cards.id]
    version = table.session.row.version
    fullwidth = DIGITS["fullwidth"]
    parts = real[2].split(":")
    cases = {
        "random text": "§ÓÜr",
        "unknown prefix": f"kf:x:{own}",
        "bid without fields": "kf:b:",
        "bid, no such table": f"kf:b:{own + 5}:{version}:0:0",
        "bid, the other channel's table": f"kf:b:{other}:{version}:0:0",
        "bid, next move counter": f"kf:b:{own}:{version + 1}:0:0",
        "bid, out of range": f"kf:b:{own}:{version}:40:0",
        "bid, blind flag 2": f"kf:b:{own}:{version}:0:2",
        "bid, huge number": f"kf:b:{own}:{version}:{10**30}:0",
        "bid, extra field": f"kf:b:{own}:{version}:0:0:1",
        "the real bid, fullwidth move counter": ":".join(
            [*parts[:3], parts[3].translate(fullwidth), *parts[4:]]
        ),
        "the real bid, fullwidth table": ":".join(
            [*parts[:2], parts[2].translate(fullwidth), *parts[3:]]
        ),
        "card not in the hand": f"kf:p:{own}:{version}:51",
        "look without blind bids": f"kf:k:{own}:{version}",
        "unseen outside a forehead deal": f"kf:u:{own}:{version}",
        "Your hand of the other channel's table": f"kf:h:{other}",
        "join a running game": f"kf:l:join:{own}:{version}",
        "I'm back, not away": f"kf:back:{own}:0",
        "I'm back, no such seat": f"kf:back:{own}:99",
    }
    failures = []
    for name, custom_id in cases.items():
        before = await storm.before()
        result = await craft_click(env, owner, hand, custom_id)
        if not result.acknowledged:
            failures.append(f"{name}: not answered")
        await storm.check([(owner, storm.cards.id, custom_id)], before)
    assert not failures, "; ".join(failures)
