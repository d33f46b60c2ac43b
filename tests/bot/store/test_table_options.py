"""A table's options as stored: every row an earlier version wrote loads into the typed model
(bot/model.py) and is saved back as the same text; the model round-trips through the store."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from bot.model import Seat, TableOptions
from bot.options import check_start
from bot.store.store import Store
from bot.store.table_json import options_from_json, options_to_json
from tests.pg import execute_raw

# Rows as earlier versions wrote them (the `rules` column, compact JSON as the store dumps it).
OLD_ROWS = {
    # The first bot (Nov 29): /kachuful start's seven options, no mode.
    "first version": (
        '{"max_hand":"full","schedule":"down","trump":"cycle","hook":true,"scoring":"exact",'
        '"blind_bids":false,"forehead":false}'
    ),
    # A number of cards and "classic" (max_hand 0 at /kachuful start).
    "max hand": (
        '{"max_hand":5,"schedule":"double","trump":"turned","hook":false,"scoring":"penalty",'
        '"blind_bids":true,"forehead":true}'
    ),
    "classic": (
        '{"max_hand":"classic","schedule":"down-up","trump":"cycle-notrump","hook":true,'
        '"scoring":"judgement","blind_bids":false,"forehead":false,"mode":"compact"}'
    ),
    # The version before this model: the mode, the channel's settings, a rematch's invitations.
    "channel settings": (
        '{"max_hand":"quick","schedule":"down-up","trump":"cycle","hook":true,'
        '"scoring":"per-trick","blind_bids":false,"forehead":false,"mode":"thread",'
        '"turn_seconds":45,"computers":true,"computer_levels":["random","heuristic"]}'
    ),
    "rematch": (
        '{"max_hand":"full","schedule":"down-up","trump":"cycle","hook":true,"scoring":"exact",'
        '"blind_bids":false,"forehead":false,"mode":"trick","computers":false,'
        '"invited":[222,333]}'
    ),
    "rematch of one": (
        '{"max_hand":"full","schedule":"down-up","trump":"cycle","hook":true,"scoring":"exact",'
        '"blind_bids":false,"forehead":false,"mode":"trick","invited":[]}'
    ),
    # Rows made by tests and tools with fewer keys.
    "empty": "{}",
    "schedule only": '{"max_hand":"full","schedule":"down"}',
    # Keys in another order than the bot writes them: the same JSON, in the bot's order.
    "another order": '{"schedule":"down","max_hand":"full"}',
    # A later version's key: kept as it was.
    "newer key": '{"max_hand":"full","mode":"trick","tempo":{"fast":true,"n":[1,2]}}',
}


async def _stored(path: str | Path, text: str) -> tuple[str | Path, int]:
    """A lobby whose `rules` column holds ``text``, written as an earlier version did."""
    store = await Store.open(path)
    try:
        row = await store.create_game(
            guild_id=1,
            channel_id=2,
            host_id=3,
            options=TableOptions(),
            max_seats=4,
            seats=[Seat(user_id=3, name="Asha")],
        )
    finally:
        await store.close()
    execute_raw(
        path, "UPDATE games SET rules = :rules WHERE id = :id", {"rules": text, "id": row.id}
    )
    return path, row.id


def _column(path: str | Path, game_id: int) -> str:
    [(text,)] = execute_raw(path, "SELECT rules FROM games WHERE id = :id", {"id": game_id})
    return str(text)


@pytest.mark.parametrize("name", list(OLD_ROWS))
async def test_an_earlier_versions_row_loads_and_saves_back_unchanged(
    database: str | Path, name: str
) -> None:
    path, game_id = await _stored(database, OLD_ROWS[name])
    store = await Store.open(path)
    try:
        row = await store.load_game(game_id)
        assert row is not None
        row.version += 1  # a change to the table (a join, say) saves the whole row
        row.seats.append(Seat(user_id=4, name="Bilal"))
        await store.save_game(row)
        again = await store.load_game(game_id)
    finally:
        await store.close()
    saved = _column(path, game_id)
    assert json.loads(saved) == json.loads(OLD_ROWS[name])
    assert saved == OLD_ROWS[name] or name == "another order"
    assert again is not None and again.options == row.options


async def test_old_rows_read_as_they_were_meant(tmp_path: Path) -> None:
    first = options_from_json({"max_hand": "full", "schedule": "down", "hook": True})
    rules = first.rules
    assert (rules["max_hand"], rules["schedule"], first.mode, rules["trump"]) == (
        "full",
        "down",
        "trick",  # before modes, every table showed a message per trick
        "cycle",
    )
    assert first.turn_seconds is None and first.computers is None and first.invited is None
    assert options_from_json({}) == replace(TableOptions(), unstated=options_from_json({}).unstated)
    settings = options_from_json(
        {"turn_seconds": 45, "computers": False, "computer_levels": ["search"], "invited": [7]}
    )
    assert settings.turn_seconds == 45 and settings.computers is False
    assert settings.computer_levels == ("search",) and settings.invited == (7,)
    newer = options_from_json({"mode": "compact", "tempo": {"fast": True}})
    assert newer.mode == "compact" and dict(newer.extra) == {"tempo": {"fast": True}}


def test_an_option_an_old_row_left_out_is_written_once_changed() -> None:
    old = options_from_json({"max_hand": "full", "schedule": "down"})
    assert options_to_json(replace(old, mode="thread"))["mode"] == "thread"
    assert "mode" not in options_to_json(old)
    # Changed back to the default it had: nothing to state.
    assert "mode" not in options_to_json(replace(old, mode="trick"))


def test_a_new_table_states_every_game_option() -> None:
    """A new table's row names its rules, so a later change of a default cannot change it."""
    checked = check_start(players=4, schedule="down", mode="compact")
    assert not isinstance(checked, str)
    assert options_to_json(checked.options) == {
        "max_hand": "full",
        "schedule": "down",
        "trump": "cycle",
        "hook": True,
        "scoring": "exact",
        "blind_bids": False,
        "forehead": False,
        "mode": "compact",
    }


def test_the_model_round_trips() -> None:
    every = TableOptions.of(
        max_hand=7,
        schedule="double",
        trump="turned",
        hook=False,
        scoring="judgement",
        blind_bids=True,
        forehead=True,
        mode="thread",
        turn_seconds=90,
        computers=True,
        computer_levels=("random", "search"),
        invited=(11, 12),
    )
    for options in (every, TableOptions(), TableOptions.of(max_hand="quick", invited=())):
        assert options_from_json(options_to_json(options)) == options


@pytest.mark.parametrize(
    "data",
    [
        {"max_hand": 0},
        {"max_hand": 18},
        {"max_hand": "marathon"},
        {"max_hand": True},
        {"schedule": "sideways"},
        {"hook": "yes"},
        {"mode": "loud"},
        {"turn_seconds": 5},
        {"computers": 1},
        {"computer_levels": "random"},
        {"invited": ["222"]},
        [],
    ],
)
def test_a_value_no_option_allows_is_refused(data: object) -> None:
    with pytest.raises(ValueError):
        options_from_json(data)


async def test_a_row_with_a_value_no_option_allows_is_reported_damaged(
    database: str | Path,
) -> None:
    path, game_id = await _stored(database, '{"max_hand":"full","schedule":"sideways"}')
    store = await Store.open(path)
    try:
        rows, damaged = await store.open_games()
    finally:
        await store.close()
    assert rows == [] and [(d.id, d.channel_id, d.host_id) for d in damaged] == [(game_id, 2, 3)]
    assert _column(path, game_id) == '{"max_hand":"full","schedule":"sideways"}'
