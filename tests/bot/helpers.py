"""Driving tables through SimCord like players do, and checking what the bot sent."""

from __future__ import annotations

import copy
import json
import re
import urllib.parse
from functools import cache
from pathlib import Path
from typing import Any

import discord
import jsonschema_rs
import simcord

from bot.store.table_json import seat_to_json
from kachuful_core import Game, load_game
from kachuful_core.claims import all_forced
from kachuful_core.record import record_document

REPO = Path(__file__).resolve().parents[2]
SPEC_PATH = REPO / "tests" / "data" / "discord-api-spec" / "openapi.json"

ACTION_PREFIXES = ("kf:b:", "kf:p:", "kf:u:")


# ---- components ------------------------------------------------------------------------------


def buttons(message: discord.Message) -> list[discord.ui.Button[Any] | Any]:
    found = []
    for row in message.components:
        for child in getattr(row, "children", []):
            found.append(child)
    return found


def custom_ids(message: discord.Message) -> list[str]:
    return [b.custom_id for b in buttons(message) if getattr(b, "custom_id", None)]


def enabled_actions(message: discord.Message) -> list[Any]:
    return [
        b
        for b in buttons(message)
        if not b.disabled and (b.custom_id or "").startswith(ACTION_PREFIXES)
    ]


def button(message: discord.Message, label: str) -> Any:
    matches = [b for b in buttons(message) if b.label == label]
    assert len(matches) == 1, f"no single button {label!r} in {custom_ids(message)}"
    return matches[0]


# ---- a table as players see it ---------------------------------------------------------------


class Table:
    """One channel's table, driven through slash commands and clicks."""

    def __init__(
        self, env: simcord.Env, channel: simcord.ChannelHandle, members: list[simcord.MemberActor]
    ) -> None:
        self.env = env
        self.channel = channel
        self.members = {m.id: m for m in members}
        self.hand_ids: dict[int, int] = {}  # member id -> id of their (latest) hand message

    # state, read only to decide whose turn it is and to check results
    @property
    def session(self) -> Any:
        return self.env.bot.tables.open.session_in(self.channel.id)

    @property
    def game(self) -> Any:
        return self.session.game

    def member_at(self, seat: int) -> simcord.MemberActor | None:
        user_id = self.session.row.seats[seat].user_id
        return self.members.get(user_id) if user_id is not None else None

    # messages
    def public(self) -> list[discord.Message]:
        return [m for m in self.channel.history() if not m.flags.ephemeral]

    def seen_by(self, member: simcord.MemberActor) -> list[discord.Message]:
        return self.channel.history(viewer=member)

    def message(self, message_id: int, viewer: simcord.MemberActor) -> discord.Message:
        for message in self.seen_by(viewer):
            if message.id == message_id:
                return message
        raise AssertionError(f"message {message_id} not visible to {viewer.name}")

    def last_public_with(self, label: str) -> discord.Message:
        for message in reversed(self.public()):
            if any(b.label == label for b in buttons(message)):
                return message
        raise AssertionError(f"no public message with a {label!r} button")

    async def open_hand(self, member: simcord.MemberActor) -> discord.Message:
        result = await member.click(self.last_public_with("Your hand"), label="Your hand")
        assert result.ephemeral and result.response is not None
        self.hand_ids[member.id] = result.response.id
        return self.message(result.response.id, member)

    def hand(self, member: simcord.MemberActor) -> discord.Message:
        return self.message(self.hand_ids[member.id], member)

    async def act(self, member: simcord.MemberActor, pick: int = 0) -> simcord.InteractionResult:
        """Click an enabled bid or card on the member's hand message (opened if needed)."""
        if member.id not in self.hand_ids:
            await self.open_hand(member)
        message = self.hand(member)
        choices = enabled_actions(message)
        assert choices, (
            f"{member.name}'s hand message has no enabled bid or card: "
            f"{[(b.label, b.disabled) for b in buttons(message)]} {message.embeds[0].to_dict()}"
        )
        choice = choices[min(pick, len(choices) - 1)]
        return await member.click(message, custom_id=choice.custom_id)

    async def bid_all(self, pick: int = 0) -> simcord.MemberActor:
        """Every seat bids (its ``pick``-th enabled bid) until the play starts; returns the
        member to lead."""
        from kachuful_core import Phase

        while self.game.phase is Phase.BIDDING:
            member = self.member_at(self.game.turn)
            assert member is not None, "a computer seat is bidding"
            await self.act(member, pick=pick)
        leader = self.member_at(self.game.turn)
        assert leader is not None, "a computer seat leads"
        return leader

    async def play_to_end(self, max_actions: int = 2000) -> int:
        """Every human acts when it is their turn until the game ends; returns the clicks."""
        actions = 0
        while self.session is not None and self.session.row.status == "running":
            seat = self.game.turn
            assert seat is not None, "no one to act in a running game"
            member = self.member_at(seat)
            assert member is not None, "a computer seat is waiting (the driver did not act)"
            result = await self.act(member)
            assert result.acknowledged
            actions += 1
            assert actions < max_actions
        return actions


# ---- Discord's OpenAPI description -----------------------------------------------------------


@cache
def _spec() -> dict[str, Any]:
    return json.loads(SPEC_PATH.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def _routes() -> list[tuple[str, re.Pattern[str], int, str]]:
    routes = []
    for template, item in _spec()["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", r"[^/]+", re.escape(template)) + "$")
        literal = len([part for part in template.split("/") if part and "{" not in part])
        for method in item:
            if method in ("get", "post", "put", "patch", "delete"):
                routes.append((method.upper(), pattern, literal, template))
    return routes


def _pointer(*parts: str) -> str:
    """A JSON pointer as a URI fragment (the description's paths hold braces)."""
    pointer = "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)
    return urllib.parse.quote(pointer, safe="/~")


@cache
def _validator(method: str, template: str) -> Any:
    """The request body's schema, its references resolved inside the whole description.
    jsonschema-rs (draft 2020-12, compiled) checks a body about 40 times faster than the
    pure-Python jsonschema, and every test checks every body its bot sent."""
    operation = _spec()["paths"][template][method.lower()]
    content = operation.get("requestBody", {}).get("content", {})
    assert "application/json" in content, f"{method} {template} takes no JSON body"
    pointer = _pointer("paths", template, method.lower(), "requestBody", "content")
    document = {
        **_spec(),
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": f"#/{pointer}/application~1json/schema",
    }
    return jsonschema_rs.validator_for(document)


def _known_library_quirks(body: Any) -> Any:
    """discord.py writes the upload index of a file as ``attachments[].id: 0`` (an int) in
    multipart bodies, and the user of a new direct-message channel as ``recipient_id`` (an
    int), where the description says snowflake string; Discord accepts both. This is
    discord.py's serialisation, not the bot's, so it is normalised before validating."""
    if isinstance(body, dict) and isinstance(body.get("recipient_id"), int):
        body["recipient_id"] = str(body["recipient_id"])
    if isinstance(body, dict):
        data = body.get("data") if isinstance(body.get("data"), dict) else body
        for attachment in data.get("attachments") or []:
            if isinstance(attachment, dict) and isinstance(attachment.get("id"), int):
                attachment["id"] = str(attachment["id"])
    return body


def validate_request(method: str, path: str, body: Any) -> None:
    """Validate one REST request body against Discord's OpenAPI description."""
    body = _known_library_quirks(copy.deepcopy(body))
    candidates = [r for r in _routes() if r[0] == method and r[1].match(path)]
    assert candidates, f"{method} {path} is not in Discord's API description"
    _, _, _, template = max(candidates, key=lambda r: r[2])
    validator = _validator(method, template)
    errors = sorted(validator.iter_errors(body), key=lambda e: [str(p) for p in e.instance_path])
    assert not errors, f"{method} {template}: " + "; ".join(
        f"{list(e.instance_path)}: {e.message[:200]}" for e in errors[:5]
    )


def validate_all_requests(env: simcord.Env) -> int:
    """Validate every JSON body the bot sent; returns how many were checked."""
    checked = 0
    for entry in env.http_requests:
        if entry.json is None:
            continue
        validate_request(entry.method, entry.path, entry.json)
        checked += 1
    return checked


# ---- what a game's record says -------------------------------------------------------------


def forced_cards(record: dict[str, Any] | str) -> list[tuple[int, int, int]]:
    """The (deal index, seat, card) of every card the record's game played while all the
    deal's remaining cards were forced: the cards the table played by itself, not clicked."""
    forced: list[tuple[int, int, int]] = []
    play = Game.play

    def logged_play(self: Game, seat: int, card: int) -> Any:
        if all_forced(self):
            forced.append((self.deal_index, seat, card))
        return play(self, seat, card)

    Game.play = logged_play  # type: ignore[method-assign]
    try:
        load_game(record)
    finally:
        Game.play = play  # type: ignore[method-assign]
    return forced


def clicked_tricks(record: dict[str, Any]) -> int:
    """How many tricks of the record had at least one card clicked (not all forced)."""
    forced = {(deal, card) for deal, _, card in forced_cards(record)}
    game = load_game(record)
    return sum(
        1
        for log in game.deals
        for trick in log.tricks
        if any((log.index, card) not in forced for _, card in trick)
    )


# ---- arranging a table -----------------------------------------------------------------------


def world(env: simcord.Env, *names: str) -> tuple[simcord.ChannelHandle, list[simcord.MemberActor]]:
    guild = env.create_guild("Kachuful Club")
    channel = guild.create_text_channel("cards")
    return channel, [guild.add_member(env.create_user(name)) for name in names]


def lobby_message(channel: simcord.ChannelHandle) -> discord.Message:
    """The table's first public message: the lobby (edited in place)."""
    return next(m for m in channel.history() if not m.flags.ephemeral and m.embeds)


async def start_game(
    env: simcord.Env,
    channel: simcord.ChannelHandle,
    members: list[simcord.MemberActor],
    *,
    computers: int = 0,
    level: str = "heuristic",
    **options: Any,
) -> Table:
    """The first member opens a table, the others join, computers are added, the host starts."""
    host = members[0]
    options.setdefault("players", max(3, len(members) + computers))
    result = await host.slash(channel, "kachuful start", **options)
    assert not result.ephemeral, result.response and result.response.content
    for member in members[1:]:
        await member.slash(channel, "kachuful join")
    for _ in range(computers):
        await add_computer(host, channel, level)
    await host.click(lobby_message(channel), label="Start (host)")
    table = Table(env, channel, members)
    assert table.session.row.status == "running"
    return table


async def add_computer(
    member: simcord.MemberActor, channel: simcord.ChannelHandle, level: str = "heuristic"
) -> simcord.InteractionResult:
    """ "Add computer player" on the lobby, then the level, on the private chooser."""
    from bot.i18n import EN
    from bot.render.words import level_name

    offered = await member.click(lobby_message(channel), label="Add computer player")
    assert offered.ephemeral and offered.response is not None, "no level chooser"
    return await member.click(offered.response, label=level_name(level, EN))


async def craft_click(
    env: simcord.Env, member: simcord.MemberActor, message: discord.Message, custom_id: str
) -> simcord.InteractionResult:
    """Send a button interaction with any custom_id from ``message``, as a modified client
    (or a race) could. Uses SimCord internals: the public click only allows real buttons."""
    from simcord.actors import _component_interaction

    stored = env.backend.get_message(message.channel.id, message.id)
    env._begin_operation("click")
    try:
        return await _component_interaction(
            member, stored, {"custom_id": custom_id, "component_type": 2}
        )
    finally:
        env._end_operation()


def snapshot(table: Table) -> tuple[Any, ...]:
    """Everything an action could change."""
    row, game = table.session.row, table.game
    return (
        row.version,
        row.status,
        json.dumps(record_document(game), sort_keys=True),
        [seat_to_json(seat) for seat in row.seats],
        game.move_count,
        game.turn,
        game.bids,
        game.current_trick,
    )


async def simultaneous_clicks(
    env: simcord.Env, clicks: list[tuple[simcord.MemberActor, discord.Message, str]]
) -> list[simcord.InteractionResult]:
    """Deliver several button clicks to the bot at the same moment, before it handles any of
    them, as Discord does when two people (or one impatient one) click at once. SimCord's
    public click settles after each interaction, so this uses its internals (may change)."""
    from simcord import interactions as _interactions
    from simcord.backend import serializers
    from simcord.enums import InteractionType
    from simcord.results import InteractionResult

    backend = env.backend
    env._begin_operation("click")
    try:
        records = []
        for member, message, custom_id in clicks:
            stored = backend.get_message(message.channel.id, message.id)
            record, payload = _interactions.base_payload(
                backend,
                type=InteractionType.MESSAGE_COMPONENT,
                channel_id=stored.channel_id,
                guild_id=member.guild.id,
                user_id=member.id,
                data={"custom_id": custom_id, "component_type": 2},
            )
            payload["message"] = dict(serializers.message_payload(backend, stored))
            record.source_message_id = stored.id
            env._notify_dispatch_observers(record)
            records.append((record, payload))
        for _, payload in records:  # every click is on the wire before the bot sees one
            backend.emit("INTERACTION_CREATE", payload)
        await env._settle_internal(dispatch="INTERACTION_CREATE")
        return [InteractionResult(env, record) for record, _ in records]
    finally:
        env._end_operation()
