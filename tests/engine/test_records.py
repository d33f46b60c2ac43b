"""Game records (docs/record-format.md): what a valid record gives, and how each invalid one is
refused, through load_game and through ``python -m kachuful_core score``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kachuful_core import (
    Game,
    Phase,
    Record,
    RecordError,
    Rules,
    load_game,
    parse_record,
    score_summary,
)
from kachuful_core.record import export_record

from .support import example_record, run_cli

Doc = dict[str, Any]


def edit(change: Callable[[Doc], None]) -> str:
    doc = example_record()
    change(doc)
    return json.dumps(doc)


def deal(doc: Doc) -> Doc:
    result: Doc = doc["deals"][0]
    return result


def _set(path: list[Any], value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _turned_in_hand(doc: Doc) -> None:
    doc["rules"]["trump"] = "turned"
    deal(doc)["turned"] = "KH"


def _no_bids(doc: Doc) -> None:
    del deal(doc)["bids"]


# Must-follow: trick 1 A AS, B 4S, C 2S, D 7S (A wins); trick 2 A KH, B 5H, C AH, and Dev holds
# 9H but plays 3S.
MUST_FOLLOW: Doc = {
    "format": "kachuful-record/1",
    "rules": {"players": 4},
    "players": ["Asha", "Bilal", "Chen", "Dev"],
    "first_dealer": 3,
    "start_deal": 10,
    "deals": [
        {
            "hands": [
                ["AS", "KH", "3D"],
                ["4S", "5H", "5D"],
                ["2S", "AH", "9D"],
                ["7S", "9H", "3S"],
            ],
            "bids": [1, 0, 1, 0],
            "tricks": [["AS", "4S", "2S", "7S"], ["KH", "5H", "AH", "3S"]],
        }
    ],
}
MUST_FOLLOW_LINE = "deal 10, trick 2: Dev (seat 3) must follow hearts and holds 9H; played 3S"

# name -> (record text, where the line must start, words it must contain)
INVALID: dict[str, tuple[str, str, list[str]]] = {
    "not valid JSON": ('{"format": "kachuful-record/1", "rules": ', "", ["JSON"]),
    "not a JSON object": ("[1, 2, 3]", "", []),
    "wrong format string": (edit(_set(["format"], "kachuful-record/2")), "format", []),
    "no format": (edit(lambda d: d.pop("format")), "format", []),
    "card not in the deck": (edit(_set(["deals", 0, "hands", 0, 0], "ZZ")), "deal 10", ["ZZ"]),
    "card 1H": (edit(_set(["deals", 0, "hands", 1, 2], "1H")), "deal 10", ["1H"]),
    "card 11S": (edit(_set(["deals", 0, "hands", 3, 1], "11S")), "deal 10", ["11S"]),
    "card dealt twice": (edit(_set(["deals", 0, "hands", 1, 0], "KH")), "deal 10", ["KH"]),
    "hand too short": (edit(_set(["deals", 0, "hands", 2], ["AH", "9D"])), "deal 10", ["Chen"]),
    "hand too long": (
        edit(_set(["deals", 0, "hands", 3], ["7H", "3S", "4D", "QC"])),
        "deal 10",
        ["Dev"],
    ),
    "card played not dealt": (
        edit(_set(["deals", 0, "tricks", 0, 0], "QH")),
        "deal 10, trick 1",
        ["QH"],
    ),
    "card played from another hand": (
        edit(_set(["deals", 0, "tricks", 0, 1], "AH")),
        "deal 10, trick 1",
        ["Bilal", "AH"],
    ),
    "card played twice": (
        edit(_set(["deals", 0, "tricks", 1, 3], "KH")),
        "deal 10, trick 2",
        ["KH"],
    ),
    "bid out of range": (edit(_set(["deals", 0, "bids"], [4, 0, 1, 0])), "deal 10", ["Asha", "4"]),
    "negative bid": (edit(_set(["deals", 0, "bids"], [1, -1, 1, 0])), "deal 10", ["Bilal"]),
    "dealer bid the hook forbids": (
        edit(_set(["deals", 0, "bids"], [1, 0, 1, 1])),
        "deal 10",
        ["Dev", "1"],
    ),
    "card played before bidding is over": (
        edit(_set(["deals", 0, "bids"], [1, 0, None, None])),
        "deal 10, trick 1",
        [],
    ),
    "card played with no bids": (edit(lambda d: _no_bids(d)), "deal 10, trick 1", []),
    "bids out of order": (
        edit(_set(["deals", 0, "bids"], [1, None, 1, None])),
        "deal 10",
        ["Bilal"],
    ),
    "first trick led by the wrong seat": (
        edit(_set(["deals", 0, "tricks", 0], ["2C", "AH", "7H", "KH"])),
        "deal 10, trick 1",
        [],
    ),
    "second trick led by the wrong seat": (
        edit(_set(["deals", 0, "tricks", 1], ["AS", "4S", "2S", "3S"])),
        "deal 10, trick 2",
        ["AS"],
    ),
    "turned card also in a hand": (edit(_turned_in_hand), "deal 10", ["KH"]),
    "unknown rule name": (edit(_set(["rules", "colour"], "red")), "rules", ["colour"]),
    "unknown scoring": (edit(_set(["rules", "scoring"], "golf")), "rules", ["scoring"]),
    "unknown trump": (edit(_set(["rules", "trump"], "sideways")), "rules", ["trump"]),
    "unknown schedule": (edit(_set(["rules", "schedule"], "up")), "rules", ["schedule"]),
    "hook not a boolean": (edit(_set(["rules", "hook"], "yes")), "rules", ["hook"]),
    "eight players": (edit(_set(["rules", "players"], 8)), "rules", ["players"]),
    "max_hand too large": (edit(_set(["rules", "max_hand"], 14)), "rules", []),
    "no players rule": (edit(lambda d: d["rules"].pop("players")), "rules", ["players"]),
    "must follow suit": (json.dumps(MUST_FOLLOW), "deal 10, trick 2", ["Dev", "9H", "3S"]),
    "too few names": (edit(_set(["players"], ["Asha", "Bilal", "Chen"])), "players", []),
    "no such first dealer": (edit(_set(["first_dealer"], 4)), "first_dealer", []),
    "start past the schedule": (edit(_set(["start_deal"], 25)), "start_deal", []),
    "unknown key": (edit(_set(["colour"], "red")), "", ["colour"]),
    "trick too long": (
        edit(_set(["deals", 0, "tricks", 0], ["KH", "2C", "AH", "7H", "4S"])),
        "deal 10, trick 1",
        [],
    ),
    "turned card without turned trump": (
        edit(_set(["deals", 0, "turned"], "QC")),
        "deal 10",
        [],
    ),
    "empty draw": (edit(_set(["draw"], [])), "draw", []),
}


@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_record_is_refused_with_one_line_saying_where(name: str) -> None:
    text, where, words = INVALID[name]
    with pytest.raises(RecordError) as info:
        load_game(text)
    line = str(info.value)
    assert line and "\n" not in line
    assert line.startswith(where), line
    for word in words:
        assert word in line, (word, line)


def test_must_follow_suit_line() -> None:
    with pytest.raises(RecordError) as info:
        load_game(MUST_FOLLOW)
    assert str(info.value) == MUST_FOLLOW_LINE


@pytest.mark.parametrize(
    "name",
    [
        "not valid JSON",
        "card dealt twice",
        "dealer bid the hook forbids",
        "second trick led by the wrong seat",
        "unknown scoring",
        "must follow suit",
    ],
)
def test_score_command_refuses_invalid_records(name: str, tmp_path: Path) -> None:
    text, where, _ = INVALID[name]
    path = tmp_path / "record.json"
    path.write_text(text, encoding="utf-8")
    done = run_cli("score", str(path))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.endswith("\n")
    assert done.stderr.startswith(where)
    with pytest.raises(RecordError) as info:
        load_game(text)
    assert done.stderr == f"{info.value}\n"
    if name == "must follow suit":
        assert done.stderr == MUST_FOLLOW_LINE + "\n"


def test_score_command_on_a_missing_file(tmp_path: Path) -> None:
    done = run_cli("score", str(tmp_path / "nowhere.json"))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args", [[], ["score"], ["frobnicate", "x.json"], ["score", "a.json", "b.json"]], ids=repr
)
def test_score_command_usage_error(args: list[str]) -> None:
    done = run_cli(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "usage" in done.stderr.lower()


# ---- valid records -------------------------------------------------------------------------


def test_record_may_stop_in_the_middle_of_a_trick() -> None:
    doc = example_record()
    deal(doc)["tricks"] = [["KH", "2C", "AH", "7H"], ["4S", "2S"]]
    game = load_game(doc)
    assert game.phase is Phase.PLAYING
    assert game.turn == 3  # Dev follows in trick 2 (led by Bilal)
    summary = score_summary(game)
    assert summary["deals"][0]["trick_winners"] == [1]
    assert summary["deals"][0]["tricks_won"] == [0, 1, 0, 0]
    assert summary["deals"][0]["scores"] is None
    assert summary["totals"] == [0, 0, 0, 0]
    assert summary["complete"] is False


def test_record_may_stop_during_bidding() -> None:
    doc = example_record()
    deal(doc)["bids"] = [1, 0, None, None]
    del deal(doc)["tricks"]
    game = load_game(doc)
    assert game.phase is Phase.BIDDING
    assert game.turn == 2
    summary = score_summary(game)
    assert summary["deals"][0]["forbidden_bid"] is None  # not every bid before the dealer's
    assert summary["deals"][0]["scores"] is None


def test_a_played_out_deal_must_not_be_followed_by_an_unfinished_one() -> None:
    doc = example_record()
    deal(doc)["tricks"] = deal(doc)["tricks"][:2]
    doc["deals"].append({"hands": [["AS", "KS"], ["QS", "JS"], ["10S", "9S"], ["8S", "7S"]]})
    with pytest.raises(RecordError) as info:
        load_game(doc)
    assert str(info.value).startswith("deal 10")


def test_two_deals_and_the_end_of_the_game() -> None:
    # Three players, down schedule from 2: deal 0 has 2 cards (spades), deal 1 has 1 (diamonds).
    doc: Doc = {
        "format": "kachuful-record/1",
        "rules": {"players": 3, "max_hand": 2, "schedule": "down", "scoring": "penalty"},
        "players": ["A", "B", "C"],
        "first_dealer": 0,
        "deals": [
            {
                # dealer A: B bids 1, C bids 0, so A may not bid 1 (total 2); A bids 2
                "hands": [["AS", "4H"], ["KS", "3H"], ["QS", "2H"]],
                "bids": [2, 1, 0],
                # B leads KS, C QS, A AS: A wins; A leads 4H, B 3H, C 2H: A wins
                "tricks": [["KS", "QS", "AS"], ["4H", "3H", "2H"]],
            },
            {
                # dealer B: C bids 0, A bids 1, so B may not bid 0 (total 1); B bids 1
                "hands": [["2D"], ["AH"], ["KH"]],
                "bids": [1, 1, 0],
                # C leads KH, A (no hearts) trumps with 2D, B plays AH: A wins
                "tricks": [["KH", "2D", "AH"]],
            },
        ],
    }
    game = load_game(doc)
    assert game.phase is Phase.FINISHED
    # deal 0: A bid 2 took 2 (12), B bid 1 took 0 (-1), C bid 0 took 0 (10)
    # deal 1: A bid 1 took 1 (11), B bid 1 took 0 (-1), C bid 0 took 0 (10)
    assert score_summary(game) == {
        "complete": True,
        "deals": [
            {
                "index": 0,
                "dealer": 0,
                "hand_size": 2,
                "trump": "S",
                "bids": [2, 1, 0],
                "forbidden_bid": 1,
                "trick_winners": [0, 0],
                "tricks_won": [2, 0, 0],
                "scores": [12, -1, 10],
            },
            {
                "index": 1,
                "dealer": 1,
                "hand_size": 1,
                "trump": "D",
                "bids": [1, 1, 0],
                "forbidden_bid": 0,
                "trick_winners": [0],
                "tricks_won": [1, 0, 0],
                "scores": [11, -1, 10],
            },
        ],
        "totals": [23, -2, 20],
        "winners": [0],
    }


def test_cards_may_be_written_in_any_accepted_form() -> None:
    doc = example_record()
    deal(doc)["hands"][0] = ["kh", "A♠", "3d"]
    deal(doc)["tricks"][0][0] = "K♥"
    game = load_game(doc)
    assert score_summary(game)["totals"] == [11, 0, 11, 10]
    assert export_record(game).deals[0].hands[0] == ["KH", "AS", "3D"]
    doc = example_record()
    deal(doc)["hands"][2] = ["AH", "TD", "2S"]
    deal(doc)["tricks"][2] = ["3D", "5D", "10d", "4D"]
    assert score_summary(load_game(doc))["totals"] == [11, 0, 11, 10]


# ---- the draw and the JSON round trip ---------------------------------------------------------


def test_record_with_a_draw_loads_from_json() -> None:
    # Round 1: Asha and Chen tie on kings; round 2 between them: Chen's ace. Chen deals deal 0.
    doc: Doc = {
        "format": "kachuful-record/1",
        "rules": {"players": 4, "max_hand": 1},
        "players": ["Asha", "Bilal", "Chen", "Dev"],
        "first_dealer": 2,
        "draw": [[[0, "KS"], [1, "2H"], [2, "KD"], [3, "9C"]], [[0, "3C"], [2, "AH"]]],
        "deals": [{"hands": [["AS"], ["KS"], ["QS"], ["JS"]]}],
    }
    # the same document, validated leniently: the draw itself is right
    game = load_game(Record.model_validate(doc, strict=False))
    assert game.first_dealer == game.dealer == 2
    # and as the JSON text docs/record-format.md describes
    game = load_game(json.dumps(doc))
    assert game.first_dealer == game.dealer == 2


def test_draw_that_does_not_make_the_first_dealer_is_refused() -> None:
    data: Doc = {
        "format": "kachuful-record/1",
        "rules": {"players": 3, "max_hand": 1},
        "players": ["A", "B", "C"],
        "first_dealer": 0,
        "draw": [[(0, "KS"), (1, "AH"), (2, "2C")]],  # B drew the ace
        "deals": [{"hands": [["AS"], ["KS"], ["QS"]]}],
    }
    record = Record.model_validate(data, strict=False)
    with pytest.raises(RecordError) as info:
        load_game(record)
    assert str(info.value).startswith("draw")


def test_json_round_trip_of_a_new_game() -> None:
    game = Game.new(Rules(players=4, max_hand=2), seed=11)
    for _ in range(2):  # two bids, so the record has more than the deal
        assert game.turn is not None
        game.bid(game.turn, game.legal_bids(game.turn)[0])
    text = export_record(game).to_json()
    replay = load_game(text)
    assert export_record(replay).to_json() == text
    assert parse_record(text) == export_record(game)


@pytest.mark.parametrize("seed", range(5))
def test_record_document_is_the_exported_json(seed: int) -> None:
    """The plain document the bot stores after each move is exactly what to_json writes."""
    from kachuful_core import record_document
    from kachuful_core.players import HeuristicPlayer, act

    game = Game.new(Rules(players=4, max_hand=3, trump="turned", blind_bids=True), seed=seed)
    player = HeuristicPlayer(seed)
    for _ in range(23):  # into the second deal, mid-trick
        assert game.turn is not None
        act(game, game.turn, player)
        document = record_document(game)
        assert json.dumps(document, indent=2) == export_record(game).to_json()
        assert (
            export_record(load_game(json.dumps(document))).to_json()
            == export_record(game).to_json()
        )


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=3, max_hand=3),
        Rules(players=4, max_hand=2, trump="turned", blind_bids=True),
        Rules(players=5, max_hand=2, trump="cycle-notrump", hook=False),
    ],
    ids=["default", "turned-blind", "no-trump"],
)
def test_record_json_is_the_record_document_as_compact_json(rules: Rules) -> None:
    """The text the bot stores after each move, with scored deals' text kept between moves,
    is exactly the record document, at every move of a whole game and after a replay."""
    from kachuful_core import record_document, record_json
    from kachuful_core.players import RandomPlayer, act

    def expected(game: Game) -> str:
        return json.dumps(record_document(game), separators=(",", ":"), ensure_ascii=False)

    game = Game.new(rules, seed=f"record-json/{rules.players}")
    player = RandomPlayer(7)
    moves = 0
    while game.turn is not None:
        act(game, game.turn, player)
        moves += 1
        assert record_json(game) == expected(game)
        if moves == 9:  # a game rebuilt from its stored text goes on the same way
            game = load_game(record_json(game), seed=f"record-json/{rules.players}")
            assert record_json(game) == expected(game)
    assert game.phase is Phase.FINISHED
    assert all(deal.exported is not None for deal in game.deals)
    assert record_json(game) == expected(game)
