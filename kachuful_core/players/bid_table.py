"""The search player's distilled bidder model, shipped as package data (``data/bid_table.json``,
written by ``benchmarks/train_bid_table.py``).

``TABLE[players][hand size][((lead * 2 + trump) * 13 + rank) * 4 + length - 1]``: the mean
calibrated trick chance of a card under :class:`~.heuristic.HeuristicPlayer`'s model, by
whether its seat leads the first trick, whether it is a trump, its rank and the length of its
suit in the hand (1, 2, 3, 4 or more).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

FORMAT = "kachuful-bid-table/1"
CELLS = 2 * 2 * 13 * 4

Table = dict[int, dict[int, tuple[float, ...]]]


def parse(doc: Any) -> Table:
    """The table of a parsed ``bid_table.json``; ValueError if it is not one."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} document")
    table: Table = {}
    for players, by_hand in dict(doc["table"]).items():
        rows = table.setdefault(int(players), {})
        for hand, cells in dict(by_hand).items():
            row = tuple(float(x) for x in cells)
            if len(row) != CELLS or not all(0.0 <= x <= 1.0 for x in row):
                raise ValueError(f"bid table row {players}/{hand} is malformed")
            rows[int(hand)] = row
    return table


def load() -> Table:
    text = resources.files(__package__).joinpath("data/bid_table.json").read_text("utf-8")
    return parse(json.loads(text))


TABLE: Table = load()
