"""What ``kill_loop.py``'s child plays besides its online tables, and how the parent checks it
after the kills: a score pad (``/kachuful-scorepad``), practice deals (``/kachuful practice``)
and an event (``/kachuful-event``: open, register, start, its tables played in their threads,
round after round, to its final standings).

The child drives each as its players would, one click per pass, from what the channel shows
(the pad's public message, the practice's private message, the event's message and its
tables' hand buttons), and reports each click (``ev=click`` with its ``area``), each one it
saw committed, and each public post of a pad or an event the moment SimCord took it. The
parent's :func:`check` then reads the store and the simulated Discord's journal:

- score pads: every entry the players saw committed is in the pad's record, at its deal and
  seat, as clicked; each pad's version counts its changes exactly (joins, start, entries:
  nothing applied twice); each finished pad is counted once on the server's real-deck board;
  the channel holds exactly one public message per pad (the one the pad stores);
- practice deals: every bid or card the player saw accepted is in the deal's record at its
  place, once; a deal seen finished is stored finished; no deal was made twice for one start;
- events: every table of every seated round has its one thread (none made twice) and its one
  game, which finished (an event seen finished); no round seated twice; the event's message
  is posted once (a retry with the same nonce after a kill apart, which Discord drops) and
  its standings, as the channel shows them, are the ones the tables' records give.

The event's tables are online games: ``kill_loop.check`` checks their moves, posts and results
as any table's.
"""

from __future__ import annotations

import contextvars
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

PAD_MEMBERS = 3
EVENT_PLAYERS = 4
AREAS = ("pad", "practice", "event")

# What a public post in the making belongs to, when it is not a table's (kill_loop reads it).
CURRENT_AREA: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "kill_loop_area", default=None
)


def emit_event(**event: Any) -> None:
    """One JSON line to the parent (as kill_loop.emit: one write(2), no buffering)."""
    import os

    os.write(1, (json.dumps(event, separators=(",", ":")) + "\n").encode())


def instrument() -> None:
    """Tag the posts of a pad's and an event's message with what they are."""
    from bot.club.conductor import Conductor
    from bot.scorepad.keeper import ScorePadKeeper
    from bot.store.scorepads import ScorePads

    shown_on = ScorePads.shown_on

    async def pad_shown_on(self: Any, pad: Any, message_id: int) -> None:
        # The pad's message is posted or edited, its id and version not stored yet: a kill
        # right after this line lands in that window (the restart must not post it again).
        emit_event(ev="pad_shown", area="pad", pad=pad.id, version=pad.version)
        await shown_on(self, pad, message_id)

    ScorePads.shown_on = pad_shown_on  # type: ignore[method-assign]

    publish = ScorePadKeeper.publish

    async def pad_publish(self: Any, client: Any, pad: Any) -> None:
        token = CURRENT_AREA.set({"area": "pad", "pad": pad.id})
        try:
            await publish(self, client, pad)
        finally:
            CURRENT_AREA.reset(token)

    ScorePadKeeper.publish = pad_publish  # type: ignore[method-assign]

    show = Conductor.show

    async def event_show(self: Any, event: Any) -> None:
        token = CURRENT_AREA.set({"area": "event", "event": event.id, "key": "main"})
        try:
            await show(self, event)
        finally:
            CURRENT_AREA.reset(token)

    Conductor.show = event_show  # type: ignore[method-assign]


FAULTS = ("pad-uncounted", "event-message-twice", "practice-twice")


def inject(fault: str) -> None:
    """A known bug of a pad, an event or a practice deal, to show that the checks catch it
    (tests/bot/test_kill_loop.py)."""
    if fault == "pad-uncounted":
        # A finished pad whose results are not counted.
        from bot.store.scorepads import ScorePads

        save = ScorePads.save

        async def uncounted(self: Any, pad: Any, **kwargs: Any) -> bool:
            kwargs["finished"] = ()
            return await save(self, pad, **kwargs)

        ScorePads.save = uncounted  # type: ignore[method-assign]
    elif fault == "event-message-twice":
        # The event's message posted twice by the same process.
        from bot.club.conductor import Conductor

        show = Conductor.show

        async def twice(self: Any, event: Any) -> None:
            if event.message_id is None:
                channel = self.client.get_partial_messageable(
                    event.channel_id, guild_id=event.guild_id
                )
                await channel.send(content="🏆")
            await show(self, event)

        Conductor.show = twice  # type: ignore[method-assign]
    elif fault == "practice-twice":
        # Each practice deal started made twice.
        from bot.store.learning import Practices

        create = Practices.create

        async def twice(self: Any, *args: Any, **kwargs: Any) -> Any:
            await create(self, *args, **kwargs)
            return await create(self, *args, **kwargs)

        Practices.create = twice  # type: ignore[method-assign]


# ============================================================================ the child


class Features:
    """The pad, practice and event players of one child (the same ids in every child)."""

    def __init__(self, child: Any, env: Any, guild: Any, areas: tuple[str, ...]) -> None:
        self.child = child
        self.env = env
        self.areas = areas  # which of AREAS it drives (the world is made whole, for its ids)
        self.pad_channel = guild.create_text_channel("pad")
        self.pad_members = [
            guild.add_member(env.create_user(f"padder{i}")) for i in range(PAD_MEMBERS)
        ]
        self.practice_channel = guild.create_text_channel("practice")
        self.practiser = guild.add_member(env.create_user("practiser"))
        import discord

        self.event_guild = env.create_guild("Kachuful Events")
        self.event_channel = self.event_guild.create_text_channel("events")
        mods = self.event_guild.create_role(
            "Mods", permissions=discord.Permissions(manage_guild=True)
        )
        self.organiser = self.event_guild.add_member(env.create_user("organiser"), roles=[mods])
        self.players = [
            self.event_guild.add_member(env.create_user(f"entrant{i}"))
            for i in range(EVENT_PLAYERS)
        ]
        self.practice_pending = False  # a /kachuful practice sent, its deal not seen yet

    @property
    def guild_ids(self) -> list[int]:
        return [self.event_guild.id]

    @property
    def private_channels(self) -> set[int]:
        """Channels whose private messages the journal keeps (the practice's: a player can
        click an old practice message again after a restart, as on Discord)."""
        return {self.practice_channel.id}

    def world(self) -> dict[str, Any]:
        return {
            "pad_channel": self.pad_channel.id,
            "practice_channel": self.practice_channel.id,
            "practiser": self.practiser.id,
            "event_channel": self.event_channel.id,
            "event_guild": self.event_guild.id,
            "pad_members": [m.id for m in self.pad_members],
        }

    # ---------------------------------------------------------------- one pass

    async def step(self, finish: bool) -> bool:
        acted = False
        if "pad" in self.areas:
            acted = await self._pad(finish) or acted
        if "practice" in self.areas:
            acted = await self._practice(finish) or acted
        if "event" in self.areas:
            acted = await self._event(finish) or acted
        return acted

    async def finished(self) -> bool:
        """Nothing left to finish (the last, unkilled run)."""
        store = self.child.bot.store
        pad = await store.scorepads.active_in(self.pad_channel.id)
        if "pad" in self.areas and pad is not None:
            return False
        if "practice" in self.areas and self._practice_open() is not None:
            return False
        return "event" not in self.areas or not await self._open_events()

    # ---------------------------------------------------------------- score pad

    def _newest(self, channel_id: int, pattern: str, private: bool = False) -> Any:
        import re

        messages = self.env.backend.messages.get(channel_id, {})
        for message_id in sorted(messages, reverse=True):
            message = messages[message_id]
            if message.is_ephemeral != private:
                continue
            if any(re.match(pattern, c) for c, _ in self.child.custom_ids(message)):
                return message
        return None

    async def _pad(self, finish: bool) -> bool:
        from kachuful_core.scorepad import ScorePad

        store = self.child.bot.store
        pad = await store.scorepads.active_in(self.pad_channel.id)
        host = self.pad_members[0]
        if pad is None:
            if finish and self._pads_finished():
                return False
            self.child.emit(ev="click", area="pad", what="open")
            result = await host.slash(
                self.pad_channel, "kachuful-scorepad", max_hand=2, schedule="down"
            )
            self.child.answered("pad", result)
            return True
        seated = {s.user_id for s in pad.seats}
        if pad.status == "open":
            waiting = [m for m in self.pad_members if m.id not in seated]
            if waiting:
                return await self._pad_click(pad, waiting[0], "kf:sj:", None, "join", None)
            return await self._pad_click(pad, host, "kf:ss:", None, "start", None)
        engine = ScorePad.from_document(pad.record or {})
        seat_of = {s.user_id: i for i, s in enumerate(pad.seats)}
        by_seat = {seat_of[m.id]: m for m in self.pad_members if m.id in seat_of}
        deal = engine.deal_index
        if engine.stage == "bidding" and engine.turn is not None:
            seat = engine.turn
            value = engine.legal_bids()[-1]
            return await self._pad_click(pad, by_seat[seat], "kf:sb:", value, "bid", (deal, seat))
        if engine.stage == "tricks":
            current = engine.current
            missing = [s for s, t in enumerate(current.tricks) if t is None]
            if not missing:
                return False
            seat = missing[0]
            left = engine.hand_size() - engine.tricks_entered()
            bid = current.bids[seat] or 0
            value = left if len(missing) == 1 else min(bid, left)
            where = (deal, seat)
            return await self._pad_click(pad, by_seat[seat], "kf:st:", value, "tricks", where)
        return False

    def _pads_finished(self) -> bool:
        return bool(
            self.child.query_store(
                "SELECT 1 FROM scorepads WHERE channel_id = :c AND status = 'finished'",
                {"c": self.pad_channel.id},
            )
        )

    async def _pad_click(
        self,
        pad: Any,
        member: Any,
        prefix: str,
        value: int | None,
        act: str,
        where: tuple[int, int] | None,
    ) -> bool:
        # The pad's message as the channel shows it (it may show an older version: the bot
        # then draws it again, and the next pass clicks the new one).
        pattern = rf"kf:s[a-z]:{pad.id}:"
        stored = self.child.stored(self.pad_channel.id, pad.message_id) or self._newest(
            self.pad_channel.id, pattern
        )
        if stored is None:
            return False  # posted at the next start
        wanted = None
        for custom_id, disabled in self.child.custom_ids(stored):
            if disabled or not custom_id.startswith(f"{prefix}{pad.id}:"):
                continue
            if value is None or custom_id.endswith(f":{value}"):
                wanted = custom_id
                break
        if wanted is None:
            return False
        shown = int(wanted.split(":")[3])
        self.child.emit(ev="click", area="pad", what=act, pad=pad.id, version=shown)
        result = await self.child.click(member, stored, wanted)
        self.child.answered("pad", result)
        after = await self.child.bot.store.scorepads.load(pad.id)
        if shown == pad.version and after is not None and after.version > pad.version:
            event: dict[str, Any] = {"pad": pad.id, "version": pad.version, "act": act}
            if where is not None:
                event.update(deal=where[0], seat=where[1], value=value)
            self.child.emit(ev="pad_moved", **event)
        return True

    # ---------------------------------------------------------------- practice

    def _practice_open(self) -> Any:
        """The newest practice message, if its deal is still being played."""
        message = self._newest(self.practice_channel.id, r"kf:p[bca]:", private=True)
        if message is None:
            return None
        ids = [c for c, _ in self.child.custom_ids(message)]
        return None if any(c.startswith("kf:pa:") for c in ids) else message

    def _keep_practice_message(self) -> None:
        """The practice's private message as the player now sees it, kept in the journal:
        Discord keeps it in the player's client, who may click it after a restart (the
        simulated gateway announces no private message, so the journal is written here)."""
        message = self._newest(self.practice_channel.id, r"kf:p[bca]:", private=True)
        if message is not None:
            self.child.journal.write("put", message.id, message)

    async def _practice(self, finish: bool) -> bool:
        acted = await self._practice_step(finish)
        if acted:
            self._keep_practice_message()
        return acted

    async def _practice_step(self, finish: bool) -> bool:
        member = self.practiser
        message = self._newest(self.practice_channel.id, r"kf:p[bca]:", private=True)
        if message is None:
            if finish and self.practice_pending is False and self._practices_stored():
                return False
            self.child.emit(ev="click", area="practice", what="start")
            result = await member.slash(self.practice_channel, "kachuful practice", level="random")
            self.child.answered("practice", result)
            return True
        ids = self.child.custom_ids(message)
        again = [c for c, _ in ids if c.startswith("kf:pa:")]
        if again:
            practice_id = int(again[0].split(":")[2])
            self.child.emit(ev="practice_seen_finished", practice=practice_id)
            if finish:
                return False
            fresh = next(c for c in again if c.endswith(":1"))
            self.child.emit(ev="click", area="practice", what="new", practice=practice_id)
            result = await self.child.click(member, message, fresh)
            self.child.answered("practice", result)
            return True
        moves = [c for c, disabled in ids if not disabled and c.startswith(("kf:pb:", "kf:pc:"))]
        if not moves:
            return False
        custom_id = moves[-1] if moves[0].startswith("kf:pb:") else moves[0]
        _, kind, practice_id, version, value = custom_id.split(":")
        what = "bid" if kind == "pb" else "play"
        self.child.emit(
            ev="click", area="practice", what=what, practice=int(practice_id), version=int(version)
        )
        practice = self.child.bot.store.practice
        before = await practice.load(int(practice_id))
        result = await self.child.click(member, message, custom_id)
        self.child.answered("practice", result)
        after = await practice.load(int(practice_id))
        clicked_current = before is not None and before.version == int(version)
        if clicked_current and after is not None and after.version > int(version):
            # Applied: the player sees it on the message.
            self.child.emit(
                ev="practice_moved",
                practice=int(practice_id),
                version=int(version),
                kind=what,
                arg=int(value),
            )
        return True

    def _practices_stored(self) -> bool:
        return bool(
            self.child.query_store(
                "SELECT 1 FROM practice_deals WHERE user_id = :u", {"u": self.practiser.id}
            )
        )

    # ---------------------------------------------------------------- event

    async def _open_events(self) -> list[Any]:
        club = self.child.bot.store.club
        events = await club.events_in(self.event_guild.id, ("registering", "running", "paused"))
        closed = await club.events_in(self.event_guild.id, ("finished", "closed"))
        return events + [e for e in closed if not e.settled]

    async def _event(self, finish: bool) -> bool:
        club = self.child.bot.store.club
        open_events = await self._open_events()
        if not open_events:
            done = await club.events_in(self.event_guild.id, ("finished", "closed"))
            if finish and done:
                return False
            name = f"Cup {len(done) + 1}"
            self.child.emit(ev="click", area="event", what="open")
            result = await self.organiser.slash(
                self.event_channel,
                "kachuful-event open",
                name=name,
                rounds=self.child.args.event_rounds,
                players=3,
                max_hand=1,
                level="heuristic",
            )
            self.child.answered("event", result)
            return True
        event = open_events[-1]
        if event.status == "registering":
            entrants = {e.user_id for e in await club.entrants(event.id)}
            waiting = [m for m in self.players if m.id not in entrants]
            message = self.child.stored(self.event_channel.id, event.message_id)
            if waiting:
                if message is None:
                    return False  # the conductor posts it
                self.child.emit(ev="click", area="event", what="register", event=event.id)
                result = await self.child.click(waiting[0], message, f"kf:e:register:{event.id}")
                self.child.answered("event", result)
                return True
            self.child.emit(ev="click", area="event", what="start", event=event.id)
            result = await self.organiser.slash(
                self.event_channel, "kachuful-event start", event=event.id
            )
            self.child.answered("event", result)
            return True
        if event.status != "running":
            return False
        acted = False
        members = {m.id: m for m in self.players}
        for table in await club.tables(event.id):
            if table.round != event.round or table.game_id is None:
                continue
            session = self.child.bot.tables.open.by_id.get(table.game_id)
            if session is None or session.row.status != "running" or session.game is None:
                continue
            seat = session.game.turn
            if seat is None:
                continue
            user = session.row.seats[seat].user_id
            if user not in members:
                continue
            thread = self.child.channel_handle(self.event_guild, session.row.channel_id)
            if thread is None:
                continue
            await self.child.act(session, thread, members[user], seat=seat, area="event")
            acted = True
        return acted


# ============================================================================ the checks


def check(
    target: Path | str,
    runs: list[list[dict[str, Any]]],
    killed_runs: set[int],
    messages: dict[int, Any],
    threads: dict[int, Any],
    world: dict[str, Any],
    query: Any,
) -> tuple[dict[str, Any], list[str]]:
    """The pads, practice deals and events after the kills (see the module docstring).
    ``messages`` and ``threads``: the simulated Discord's, as the journal kept them."""
    import asyncio

    from bot.store.store import Store

    events = [(index, e) for index, run in enumerate(runs) for e in run]
    violations: list[str] = []
    summary: dict[str, Any] = {}

    def sql(statement: str, params: dict[str, Any]) -> list[Any]:
        return list(query(target, statement, params))

    async def read() -> None:
        store = await Store.open(target)
        try:
            summary["pads"] = await _check_pads(store, sql, events, messages, world, violations)
            summary["practice"] = await _check_practice(store, sql, events, world, violations)
            summary["events"] = await _check_events(
                store, sql, events, killed_runs, messages, threads, world, violations
            )
        finally:
            await store.close()

    asyncio.run(read())
    return summary, violations


def _public(messages: dict[int, Any], channel_id: int) -> list[Any]:
    return sorted(
        (m for m in messages.values() if m.channel_id == channel_id and not m.is_ephemeral),
        key=lambda m: m.id,
    )


async def _check_pads(
    store: Any,
    sql: Any,
    events: list[tuple[int, dict[str, Any]]],
    messages: dict[int, Any],
    world: dict[str, Any],
    violations: list[str],
) -> dict[str, Any]:
    from kachuful_core.scorepad import ScorePad

    channel = world["pad_channel"]
    ids = [
        int(row[0])
        for row in sql("SELECT id FROM scorepads WHERE channel_id = :c ORDER BY id", {"c": channel})
    ]
    pads = [await store.scorepads.load(pad_id) for pad_id in ids]
    by_id = {pad.id: pad for pad in pads if pad is not None}
    entries_seen = 0
    accepted: Counter[tuple[int, int]] = Counter()
    for _, event in events:
        if event.get("ev") != "pad_moved":
            continue
        accepted[(event["pad"], event["version"])] += 1
        pad = by_id.get(event["pad"])
        if pad is None:
            violations.append(f"pad {event['pad']}: a change seen committed, the pad not stored")
            continue
        if "deal" not in event:
            continue
        entries_seen += 1
        deals = (pad.record or {}).get("deals") or []
        field = "bids" if event["act"] == "bid" else "tricks"
        deal, seat = event["deal"], event["seat"]
        stored = deals[deal][field][seat] if deal < len(deals) else None
        if stored != event["value"]:
            violations.append(
                f"pad {pad.id}: the {field[:-1]} of seat {seat} in deal {deal + 1} seen as "
                f"{event['value']}, stored {stored}"
            )
    for (pad_id, version), count in accepted.items():
        if count > 1:
            violations.append(f"pad {pad_id}: version {version} accepted {count} times")
    finished = 0
    for pad in by_id.values():
        if pad.status != "finished":
            violations.append(f"pad {pad.id}: {pad.status} at the end")
            continue
        finished += 1
        engine = ScorePad.from_document(pad.record or {})
        entries = sum(1 for d in engine.deals for v in (*d.bids, *d.tricks) if v is not None)
        # version 1 when opened; +1 a join, +1 the start, +1 an entry: nothing twice.
        changes = (len(pad.seats) - 1) + 1 + entries
        if pad.version - 1 != changes:
            violations.append(
                f"pad {pad.id}: version {pad.version} for {changes} changes (joins, start, "
                f"{entries} entries)"
            )
        if pad.shown != pad.version:
            violations.append(f"pad {pad.id}: its message shows version {pad.shown}")
    public = _public(messages, channel)
    if len(public) != len(by_id):
        violations.append(f"pad channel: {len(public)} public messages for {len(by_id)} pads")
    shown_ids = {m.id for m in public}
    for pad in by_id.values():
        if pad.message_id not in shown_ids:
            violations.append(f"pad {pad.id}: its message {pad.message_id} is not in the channel")
    # Counted once each, apart from online games: the server's real-deck board.
    if finished:
        board = await store.reads.leaderboard(
            guild_id=-world["guild"], channel_id=channel, scope="server", sort="wins"
        )
        games = {row.user_id: row.games for row in board.rows}
        want = {user: finished for user in world["pad_members"]}
        if games != want:
            violations.append(f"real-deck board: {games}, want {want}")
    return {
        "pads": len(by_id),
        "pads_finished": finished,
        "entries_seen_committed": entries_seen,
        "pad_messages": len(public),
    }


def _moves(record: dict[str, Any]) -> tuple[Any, list[tuple[int, str, int]]]:
    """The record replayed, with every bid and card in order: (seat, "bid"|"play", n)."""
    from kachuful_core import load_game
    from kachuful_core.game import Game

    moves: list[tuple[int, str, int]] = []
    bid, play = Game.bid, Game.play

    def logged_bid(self: Any, seat: int, n: int, blind: bool = False) -> Any:
        events = bid(self, seat, n, blind)
        moves.append((seat, "bid", n))
        return events

    def logged_play(self: Any, seat: int, card: int) -> Any:
        events = play(self, seat, card)
        moves.append((seat, "play", card))
        return events

    Game.bid, Game.play = logged_bid, logged_play  # type: ignore[method-assign]
    try:
        game = load_game(record)
    finally:
        Game.bid, Game.play = bid, play  # type: ignore[method-assign]
    return game, moves


async def _check_practice(
    store: Any,
    sql: Any,
    events: list[tuple[int, dict[str, Any]]],
    world: dict[str, Any],
    violations: list[str],
) -> dict[str, Any]:
    from kachuful_core.game import Phase

    PLAYING = (Phase.BIDDING, Phase.PLAYING)  # a practice deal is over once neither
    rows = sql(
        "SELECT id FROM practice_deals WHERE user_id = :u ORDER BY id", {"u": world["practiser"]}
    )
    deals = {}
    for (practice_id,) in rows:
        found = await store.practice.load(int(practice_id))
        if found is None:
            continue
        try:
            game, moves = _moves(found.record)
        except Exception as error:
            violations.append(f"practice {found.id}: does not replay ({type(error).__name__})")
            continue
        mine = [(kind, arg) for seat, kind, arg in moves if seat == found.seat]
        deals[found.id] = (found, game, mine)
        if found.hints == 0 and found.version - 1 != len(mine):
            violations.append(
                f"practice {found.id}: version {found.version} for {len(mine)} moves of the player"
            )
    starts = sum(
        1
        for _, e in events
        if e.get("ev") == "click" and e.get("area") == "practice" and e["what"] in ("start", "new")
    )
    if len(deals) > starts:
        violations.append(f"practice: {len(deals)} deals stored for {starts} starts")
    accepted: Counter[tuple[int, int]] = Counter()
    for _, event in events:
        kind = event.get("ev")
        if kind == "practice_moved":
            accepted[(event["practice"], event["version"])] += 1
            found = deals.get(event["practice"])
            if found is None:
                violations.append(f"practice {event['practice']}: a move seen, the deal not stored")
                continue
            mine = found[2]
            at = event["version"] - 1
            if not (0 <= at < len(mine)) or mine[at] != (event["kind"], event["arg"]):
                violations.append(
                    f"practice {event['practice']}: the move seen at version {event['version']} "
                    "is not in the record there"
                )
        elif kind == "practice_seen_finished":
            found = deals.get(event["practice"])
            if found is None or found[1].phase in PLAYING:
                violations.append(f"practice {event['practice']}: seen finished, not stored so")
    for (practice_id, version), count in accepted.items():
        if count > 1:
            violations.append(f"practice {practice_id}: version {version} accepted {count} times")
    return {
        "practice_deals": len(deals),
        "practice_finished": sum(1 for _, g, _ in deals.values() if g.phase not in PLAYING),
        "practice_moves_seen_accepted": sum(accepted.values()),
    }


async def _check_events(
    store: Any,
    sql: Any,
    events: list[tuple[int, dict[str, Any]]],
    killed_runs: set[int],
    messages: dict[int, Any],
    threads: dict[int, Any],
    world: dict[str, Any],
    violations: list[str],
) -> dict[str, Any]:
    from bot.club.conductor import CLOSED_STATUSES, table_result
    from bot.i18n import for_table
    from bot.render import club as words
    from kachuful_core.club import event_standings

    club = store.club
    guild = world["event_guild"]
    found = await club.events_in(guild, ("registering", "running", "paused", "finished", "closed"))
    channel = world["event_channel"]
    # The event messages' posts, by event: once, or retried with the same nonce after a kill.
    posted: dict[int, list[tuple[int, str | None]]] = defaultdict(list)
    for index, event in events:
        if event.get("ev") == "post" and event.get("area") == "event":
            posted[event["event"]].append((index, event.get("nonce")))
    retried: Counter[int] = Counter()
    for event_id, made in posted.items():
        by_run = Counter(index for index, _ in made)
        if max(by_run.values()) > 1:
            violations.append(f"event {event_id}: its message posted twice in one process")
        elif any(index not in killed_runs for index, _ in made[:-1]):
            violations.append(f"event {event_id}: its message posted again after a clean exit")
        elif len({nonce for _, nonce in made}) > 1:
            violations.append(f"event {event_id}: its message posted again with a new nonce")
        else:
            retried[event_id] = len(made) - 1
    thread_names = Counter(t.name for t in threads.values() if t.parent_id == channel)
    public = _public(messages, channel)
    tables_total = games_total = 0
    for event in found:
        label = f"event {event.id}"
        if event.status != "finished" or not event.settled:
            violations.append(f"{label}: {event.status} (settled {event.settled}) at the end")
        tables = await club.tables(event.id)
        tables_total += len(tables)
        rounds = sorted({t.round for t in tables})
        if rounds != list(range(1, event.round + 1)):
            violations.append(f"{label}: rounds {rounds} seated, round {event.round}")
        if event.status == "finished" and event.round != event.rounds:
            violations.append(f"{label}: finished after {event.round} of {event.rounds} rounds")
        entrants = [e for e in await club.entrants(event.id) if e.status == "registered"]
        results = []
        for number in rounds:
            at = sorted((t for t in tables if t.round == number), key=lambda t: t.table_no)
            if [t.table_no for t in at] != list(range(1, len(at) + 1)):
                violations.append(f"{label}: round {number} tables {[t.table_no for t in at]}")
            seated = Counter(s.user_id for t in at for s in t.seats if s.user_id is not None)
            if seated != Counter(e.user_id for e in entrants):
                violations.append(f"{label}: round {number} seats {dict(seated)}")
            for table in at:
                where = f"{label} round {number} table {table.table_no}"
                if table.thread_id is None or table.game_id is None:
                    violations.append(f"{where}: thread {table.thread_id}, game {table.game_id}")
                    continue
                row = await store.load_game(table.game_id)
                games_total += 1
                if row is None or row.channel_id != table.thread_id:
                    violations.append(f"{where}: its game is not in its thread")
                    continue
                in_thread = sql(
                    "SELECT COUNT(*) FROM games WHERE channel_id = :c", {"c": table.thread_id}
                )
                if in_thread[0][0] != 1:
                    violations.append(f"{where}: {in_thread[0][0]} games in its thread")
                if [s.user_id for s in row.seats] != [s.user_id for s in table.seats]:
                    violations.append(f"{where}: the game's seats are not the table's")
                if row.status not in CLOSED_STATUSES:
                    violations.append(f"{where}: its game is {row.status}")
                thread = threads.get(table.thread_id)
                if thread is None:
                    violations.append(f"{where}: its thread is not on Discord")
                elif thread_names[thread.name] != 1:
                    violations.append(f"{where}: {thread_names[thread.name]} threads of its name")
                result = table_result(table, row)
                if result is not None:
                    results.append(result)
        # The standings the channel shows are the ones the tables' records give.
        message = messages.get(event.message_id or 0)
        titled = [m for m in public if m.embeds and m.embeds[0].get("title") == f"🏆 {event.name}"]
        if message is None or message.channel_id != channel:
            violations.append(f"{label}: its message {event.message_id} is not in the channel")
            continue
        if len(titled) != 1 + retried[event.id]:
            violations.append(f"{label}: {len(titled)} messages in the channel")
        standings = event_standings(event.format, results, [e.user_id for e in entrants])
        view = words.EventView(
            event=event,
            entrants=await club.entrants(event.id),
            standings=standings,
            tables=tables,
            finished=frozenset(t.key for t in tables if t.game_id is not None),
        )
        spec = words.event_message(view, for_table(event.options), None)
        want = [(f.name, f.value) for f in spec.embeds[0].fields]
        shown = [(f.get("name"), f.get("value")) for f in message.embeds[0].get("fields", [])]
        if want != shown:
            violations.append(f"{label}: the standings shown are not the tables' records")
    return {
        "events": len(found),
        "events_finished": sum(1 for e in found if e.status == "finished"),
        "event_tables": tables_total,
        "event_games": games_total,
        "event_threads": sum(thread_names.values()),
        "event_message_nonce_retries": sum(retried.values()),
    }
