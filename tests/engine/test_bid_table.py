"""The search player's distilled bidder model is package data, checked as it is loaded."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from kachuful_core.players import bid_table


def shipped() -> dict[str, Any]:
    text = resources.files("kachuful_core.players").joinpath("data/bid_table.json").read_text()
    doc = json.loads(text)
    assert isinstance(doc, dict)
    return doc


def test_the_shipped_table_covers_every_table_size_and_hand_of_two_or_more() -> None:
    table = bid_table.TABLE
    assert sorted(table) == [3, 4, 5, 6, 7]
    for players, by_hand in table.items():
        assert sorted(by_hand) == list(range(2, 52 // players + 1))
        assert all(len(row) == bid_table.CELLS for row in by_hand.values())
    # A trump ace in a long suit, leading, takes more tricks than a lone side two.
    ace_trump_led = ((1 * 2 + 1) * 13 + 12) * 4 + 3
    two_side = ((0 * 2 + 0) * 13 + 0) * 4 + 0
    assert table[4][10][ace_trump_led] > 0.8 > 0.1 > table[4][10][two_side]


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.update(format="kachuful-bid-table/0"),
        lambda d: d["table"]["4"].update({"3": d["table"]["4"]["3"][:-1]}),
        lambda d: d["table"]["4"]["3"].__setitem__(0, 1.5),
        lambda d: d["table"]["4"]["3"].__setitem__(0, "x"),
        lambda d: d.pop("table"),
    ],
    ids=["format", "short row", "not a chance", "not a number", "no table"],
)
def test_a_damaged_table_is_refused(damage: Any) -> None:
    doc = copy.deepcopy(shipped())
    assert bid_table.parse(doc) == bid_table.TABLE
    damage(doc)
    with pytest.raises((ValueError, KeyError)):
        bid_table.parse(doc)
