"""Finished games to review, replay and practise."""

from __future__ import annotations

from typing import Any

import discord
import simcord

from tests.bot.helpers import Table, buttons, start_game, world


async def finished_game(env: simcord.Env, *names: str) -> tuple[Table, list[Any], int]:
    """A short game (a deal of two cards, then one of one) played out by its players."""
    channel, members = world(env, *(names or ("asha", "bilal", "chen")))
    table = await start_game(env, channel, members, max_hand=2, schedule="down")
    game_id = table.session.row.id
    while table.session is not None and table.session.row.status == "running":
        seat = table.game.turn
        await table.act(table.member_at(seat))
    return table, members, game_id


def final_standings(table: Table) -> discord.Message:
    return table.last_public_with("Review")


def texts(message: Any) -> str:
    """Everything a reader reads of a message: its content and its embeds."""
    parts = [message.content or ""]
    for embed in message.embeds:
        parts += [embed.title or "", embed.description or ""]
        parts += [f"{f.name}\n{f.value}" for f in embed.fields]
        parts.append(embed.footer.text or "" if embed.footer else "")
    return "\n".join(parts)


class Button:
    def __init__(self, raw: dict[str, Any]) -> None:
        self.custom_id = str(raw.get("custom_id", ""))
        self.label = str(raw.get("label", ""))
        self.disabled = bool(raw.get("disabled", False))


def button_list(message: Any) -> list[Any]:
    """A message's buttons, from a channel's message or an interaction's response (whose
    components are the raw payloads)."""
    if isinstance(message, discord.Message):
        return buttons(message)
    return [Button(b) for row in message.components for b in row.get("components", [])]


def labels(message: Any) -> list[str]:
    return [b.label for b in button_list(message)]


async def forge(env: simcord.Env, member: Any, message: Any, custom_id: str) -> Any:
    """A click with any custom_id on a private answer, as a modified client (or a second
    click racing the first) could send (SimCord's internals: its public click only allows
    the message's own buttons, as its owner)."""
    from simcord.actors import _component_interaction

    channel_id = getattr(message, "channel_id", None) or message.channel.id
    stored = env.backend.get_message(channel_id, message.id)
    env._begin_operation("click")
    try:
        return await _component_interaction(
            member, stored, {"custom_id": custom_id, "component_type": 2}
        )
    finally:
        env._end_operation()
