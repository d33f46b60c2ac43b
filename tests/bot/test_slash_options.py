"""Slash options are checked in code: Discord's choices and ranges can be bypassed."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
import simcord

from bot.options import check_start

from .helpers import world


async def forged_slash(
    env: simcord.Env, member: simcord.MemberActor, channel: Any, name: str, **options: Any
) -> simcord.InteractionResult:
    """Invoke a slash command with any option values of the declared types, as a modified
    client could: SimCord's public slash() enforces the choices, so this uses its internals."""
    from simcord import actors, interactions
    from simcord.enums import AppCommandType, InteractionType

    parts = name.split()
    env._begin_operation("slash")
    try:
        root = actors._resolve_visible_command(
            member, channel.id, parts[0], AppCommandType.CHAT_INPUT
        )
        leaf, nesting = interactions.walk_to_subcommand(root, parts[1:])
        declared = {option["name"]: option for option in leaf.get("options") or []}
        built = [
            {"name": key, "type": declared[key]["type"], "value": value}
            for key, value in options.items()
        ]
        data = {
            "id": root["id"],
            "name": root["name"],
            "type": AppCommandType.CHAT_INPUT,
            "options": interactions.nest_options(root, nesting, built),
        }
        return await actors._dispatch_actor_interaction(
            member, InteractionType.APPLICATION_COMMAND, channel, data
        )
    finally:
        env._end_operation()


def _games(env: simcord.Env) -> int:
    with sqlite3.connect(env.bot.settings.db_path) as raw:
        return int(raw.execute("SELECT COUNT(*) FROM games").fetchone()[0])


@pytest.mark.parametrize(
    ("options", "named", "allowed"),
    [
        ({"players": 2}, "`players`", "3 to 7"),
        ({"players": 99}, "`players`", "3 to 7"),
        ({"players": -5}, "`players`", "3 to 7"),
        ({"max_hand": -3}, "`max_hand`", "1 to 17"),
        ({"max_hand": 18}, "`max_hand`", "1 to 17"),
        ({"max_hand": 10**15}, "`max_hand`", "1 to 17"),
        ({"schedule": "sideways"}, "`schedule`", "`down-up`, `down`, `double`"),
        ({"trump": "hearts"}, "`trump`", "`cycle`, `cycle-notrump`, `turned`"),
        ({"scoring": ""}, "`scoring`", "`exact`, `penalty`, `per-trick`, `judgement`"),
        ({"mode": "cinema"}, "`mode`", "`trick`, `compact`, `thread`"),
        ({"length": "marathon"}, "`length`", "`quick`, `classic`, `full`"),
        ({"length": ""}, "`length`", "`quick`, `classic`, `full`"),
    ],
)
async def test_start_with_an_option_outside_its_choices_is_refused(
    env: simcord.Env, options: dict[str, Any], named: str, allowed: str
) -> None:
    channel, (asha,) = world(env, "asha")
    result = await forged_slash(env, asha, channel, "kachuful start", **options)
    assert result.ephemeral and result.response is not None
    assert named in result.response.content and allowed in result.response.content
    assert _games(env) == 0  # no lobby row
    assert env.bot.tables.open.session_in(channel.id) is None
    assert [m for m in channel.history() if not m.flags.ephemeral] == []


async def test_allowed_forged_values_still_open_a_lobby(env: simcord.Env) -> None:
    channel, (asha,) = world(env, "asha")
    # 17 cards do not fit 52 ÷ 4: allowed, and lowered with a note when the game starts.
    result = await forged_slash(env, asha, channel, "kachuful start", players=4, max_hand=17)
    assert not result.ephemeral
    assert _games(env) == 1
    assert env.bot.tables.open.session_in(channel.id).row.options.rules["max_hand"] == 17


@pytest.mark.parametrize("scope", ["guild", "", "everywhere"])
async def test_leaderboard_with_an_unknown_scope_is_refused(env: simcord.Env, scope: str) -> None:
    channel, (asha,) = world(env, "asha")
    result = await forged_slash(env, asha, channel, "kachuful leaderboard", scope=scope)
    assert result.ephemeral and result.response is not None
    assert "`scope`" in result.response.content and "channel, server" in result.response.content


def test_the_checks() -> None:
    checked = check_start(players=5, max_hand=0, schedule="double")
    assert not isinstance(checked, str)
    assert checked.players == 5 and checked.options.rules["max_hand"] == "classic"
    assert checked.options.mode == "trick"
    assert check_start().options.rules["max_hand"] == "full"  # type: ignore[union-attr]
    assert isinstance(check_start(players=True), str)  # a bool is not a number of seats
    assert isinstance(check_start(hook="yes"), str)
