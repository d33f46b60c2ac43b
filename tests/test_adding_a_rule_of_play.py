"""Adding a rule of play touches what docs/architecture.md ("Adding a rule of play") lists, and
nothing else: a field of ``Rules``, one step of ``kachuful_core.legality.STEPS`` and one option
of ``bot.registry.OPTIONS``. A throw-away rule, "must trump when void", is added here the way a
newcomer would (the field on a ``Rules`` subclass, the step and the registry line patched in
for each test and taken out after it), and every reader of the rules of play follows it: the
engine's query and check, the compiled playouts, the players' inference of voids, the rules
texts of the lobby and of the running game, and the refusal's words. Then the same three edits
are written into a copy of the source, as text, and a fresh interpreter on it shows what the
bot derives from them at import following without a change of its own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import model, registry, render
from bot.i18n import EN, N_
from bot.model import TableOptions
from bot.render.words import lobby_rules_lines, rules_lines
from kachuful_core import CardNotAllowed, Game, MustFollowSuit, Phase, Rules, legality
from kachuful_core.cards import SUIT_MASKS, parse_card
from kachuful_core.game import PresetDeal
from kachuful_core.legality import TRUMPS, Step, law_of, legal_mask, shown_void
from kachuful_core.players import HeuristicPlayer, SearchPlayer, _fast, act
from kachuful_core.players import search as search_player
from kachuful_core.players.heuristic import _Table
from kachuful_core.views import view as seat_view
from tests.bot.render.test_render import row_for

SPADES, HEARTS = SUIT_MASKS[0], SUIT_MASKS[1]
LINE = "Must trump when void: on"


class MustTrumpRules(Rules):
    """What the newcomer adds to kachuful_core/rules.py: one field."""

    must_trump: bool = False


@pytest.fixture
def must_trump(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # kachuful_core/legality.py: one step, of a class of cards the module already knows.
    monkeypatch.setattr(
        legality, "STEPS", (*legality.STEPS, Step("must_trump", "must_trump", TRUMPS))
    )
    # bot/registry.py: one _rule line in OPTIONS (its default read from the Rules above).
    monkeypatch.setattr(registry, "Rules", MustTrumpRules)
    option = registry._rule(
        "must_trump",
        N_("Must trump when void"),
        N_("When out of the suit led, play a trump if you hold one (default off)"),
        bool,
    )
    monkeypatch.setitem(registry.OPTIONS, "must_trump", option)
    # What the registry derives from OPTIONS once, at import.
    monkeypatch.setattr(model, "RULE_OPTIONS", (*registry.RULE_OPTIONS, "must_trump"))
    monkeypatch.setattr(model, "RULE_DEFAULTS", {**registry.RULE_DEFAULTS, "must_trump": False})
    yield
    # monkeypatch takes every piece out again: the next test sees the real rules.


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in text.split())


def game_after_the_lead(rules: Rules, seat_two: str) -> Game:
    """Three seats, two cards each, spades trump (the cycle's first deal): seat 1 leads the ace
    of hearts; seat 2, out of hearts, holds ``seat_two``."""
    hands = (cards("2H 4C"), cards("AH KS"), cards(seat_two))
    game = Game(rules, first_dealer=0, presets={0: PresetDeal(hands, None)})
    for seat in (1, 2, 0):
        game.bid(seat, 1)
    assert game.phase is Phase.PLAYING and game.trump == 0
    game.play(1, parse_card("AH"))
    return game


def test_the_rule_is_gone_after_the_test() -> None:
    assert [step.name for step in legality.STEPS] == ["follow"]
    assert "must_trump" not in registry.OPTIONS
    assert not any("trump when void" in line for line in rules_lines(Rules(players=3), EN))


def test_the_engine_query_and_check_follow_the_new_rule(must_trump: None) -> None:
    rules = MustTrumpRules(players=3, max_hand=2, must_trump=True)
    game = game_after_the_lead(rules, "3S 5D")
    assert game.legal_cards(2) == [parse_card("3S")]
    assert not game.can_play(2, parse_card("5D"))
    with pytest.raises(CardNotAllowed) as refused:
        game.play(2, parse_card("5D"))
    assert refused.value.rule == "must_trump" and refused.value.allowed == cards("3S")
    assert game.hand(2) == list(cards("3S 5D"))  # refused: nothing changed
    # Follow suit still comes first, with its own refusal.
    game.play(2, parse_card("3S"))
    with pytest.raises(MustFollowSuit):
        game.play(0, parse_card("4C"))
    # The rule off (the default), the same cards are free.
    off = game_after_the_lead(MustTrumpRules(players=3, max_hand=2), "3S 5D")
    assert off.legal_cards(2) == list(cards("3S 5D"))


def test_the_refusal_is_worded_from_the_registry(must_trump: None) -> None:
    error = CardNotAllowed(2, "must_trump", cards("3S"), parse_card("5D"))
    text = render.engine_error(error, row_for(3), EN)
    rule = "cannot be played under the rule “Must trump when void”"
    assert text == f"5♦\ufe0e {rule}: you may play ♠\ufe0e 3."


def test_the_compiled_playouts_follow_the_new_rule(must_trump: None) -> None:
    on = law_of(MustTrumpRules(players=3, must_trump=True))
    off = law_of(MustTrumpRules(players=3))
    assert on != off
    h = sum(1 << c for c in cards("3S 5D"))
    ace = parse_card("AH")
    # The policy of seat 2, wanting no trick, throws the diamond when it may, else ruffs.
    assert _fast.follow(h, 0, SPADES, off, 1 << ace, False, HEARTS, ace) == parse_card("5D")
    assert _fast.follow(h, 0, SPADES, on, 1 << ace, False, HEARTS, ace) == parse_card("3S")
    # The heuristic's compiled card rule, which the rollouts play for the other seats.
    hands = _fast.ints([sum(1 << c for c in cards(x)) for x in ("2H 4C", "KS", "3S 5D")])
    for law, card in ((off, "5D"), (on, "3S")):
        chosen = _fast.model_card(
            h, 2, 3, hands, _fast.ints([0, 0, 0]), _fast.ints([0, 0, 0]), SPADES, law,
            1 << ace, 1, HEARTS, ace, _fast.floats([0.0] * 128),
        )  # fmt: skip
        assert chosen == parse_card(card)

    # A whole playout: ruffing the ace makes seat 2 take a trick it cannot lose again.
    def tricks(law: int) -> int:
        return int(
            _fast.playout(
                hands.copy(), _fast.ints([0, 0, 0]), SPADES, law, 3, 2, 1, HEARTS, ace, 1,
                1 << ace, 2, _fast.ints([0, 0, 0]), 0, _fast.floats([0.0] * 128),
            )
        )  # fmt: skip

    assert (tricks(off), tricks(on)) == (0, 1)


def test_the_inference_of_voids_follows_the_new_rule(must_trump: None) -> None:
    rules = MustTrumpRules(players=3, max_hand=2, must_trump=True)
    game = game_after_the_lead(rules, "5D 6D")
    game.play(2, parse_card("5D"))  # neither a heart nor a trump: seat 2 holds neither
    law = law_of(rules)
    assert shown_void(parse_card("5D"), law, HEARTS, SPADES) == HEARTS | SPADES
    view = seat_view(game, 0)
    assert search_player._Situation(view).void[2] == HEARTS | SPADES
    table = _Table(view, sum(1 << c for c in view.hand or ()))
    assert table.p[2][0] == table.p[2][1] == 0.0 and table.p[2][2] > 0.0
    # Under follow suit alone the same card shows the hearts only.
    off = game_after_the_lead(MustTrumpRules(players=3, max_hand=2), "5D 6D")
    off.play(2, parse_card("5D"))
    assert search_player._Situation(seat_view(off, 0)).void[2] == HEARTS


def test_the_computer_players_play_a_game_under_the_new_rule(must_trump: None) -> None:
    rules = MustTrumpRules(players=3, max_hand=2, must_trump=True)
    game = Game.new(rules, seed="must trump")
    seats = [
        HeuristicPlayer(1),
        SearchPlayer(2, card_budget=2_000, bid_budget=2_000),
        HeuristicPlayer(3),
    ]
    law, checked = law_of(rules), 0
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        assert seat is not None
        if game.phase is Phase.PLAYING and game.current_trick:
            hand = sum(1 << c for c in game.hand(seat))
            led = SUIT_MASKS[game.current_trick[0][1] // 13]
            tmask = 0 if game.trump is None else SUIT_MASKS[game.trump]
            legal = legal_mask(hand, law, led, tmask)
            assert game.legal_cards(seat) == [c for c in range(52) if legal >> c & 1]
            checked += 1
        act(game, seat, seats[seat])  # a card the rule rules out would raise
    assert checked


def test_both_rules_texts_show_the_new_rule(must_trump: None) -> None:
    running = rules_lines(MustTrumpRules(players=3, must_trump=True), EN)
    lobby = lobby_rules_lines(TableOptions(rules={"must_trump": True}), EN)
    assert LINE in running and LINE in lobby
    assert "Must trump when void: off" in rules_lines(MustTrumpRules(players=3), EN)


# The bot's side, in a fresh interpreter on a copy of the source edited as text: everything the
# registry derives at import (the slash commands' parameters, the checks, the stored options,
# the game's Rules) follows without a change of its own.
EDITS = {
    "kachuful_core/rules.py": (
        "    forehead: bool = False\n",
        "    forehead: bool = False\n    must_trump: bool = False\n",
    ),
    "kachuful_core/legality.py": (
        'STEPS: tuple[Step, ...] = (Step("follow", "", LED),)',
        'STEPS: tuple[Step, ...] = (\n    Step("follow", "", LED),\n'
        '    Step("must_trump", "must_trump", TRUMPS),\n)',
    ),
    "bot/registry.py": (
        '        Option(\n            "mode",',
        '        _rule("must_trump", N_("Must trump when void"), N_("Trump when void"), bool),\n'
        '        Option(\n            "mode",',
    ),
}
SCOREPAD_EDIT = ('"blind_bids", "forehead")', '"blind_bids", "forehead", "must_trump")')

ON_THE_COPY = """
import json
from cogs.kachuful import KachufulCog
from cogs.settings import SettingsCog
from bot import registry
from bot.options import check_start, table_rules
from bot.store.table_json import options_from_json, options_to_json
from kachuful_core import CardNotAllowed, Game, Phase
from kachuful_core.cards import parse_card
from kachuful_core.game import PresetDeal

checked = check_start(players=3, must_trump=True)
stored = options_to_json(checked.options)
rules, _ = table_rules(options_from_json(stored), 3)
hands = tuple(tuple(parse_card(c) for c in h.split()) for h in ("2H 4C", "AH KS", "3S 5D"))
game = Game(rules, first_dealer=0, presets={0: PresetDeal(hands, None)})
for seat in (1, 2, 0):
    game.bid(seat, 1)
game.play(1, parse_card("AH"))
try:
    game.play(2, parse_card("5D"))
    refused = None
except CardNotAllowed as error:
    refused = error.rule
print(json.dumps({
    "start": [p.name for p in KachufulCog.start.parameters],
    "settings": [p.name for p in SettingsCog.settings.parameters],
    "event": "must_trump" in registry.EVENT_OPTIONS,
    "scorepad": "must_trump" in registry.SCOREPAD_OPTIONS,
    "wrong_value": check_start(players=3, must_trump="yes"),
    "stored": stored.get("must_trump"),
    "rules": rules.must_trump,
    "legal": [c for c in game.legal_cards(2)],
    "refused": refused,
}))
"""


def test_the_bot_follows_a_rule_added_to_the_source_as_listed(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    for package in ("kachuful_core", "bot", "cogs"):
        shutil.copytree(
            root / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    for name, (old, new) in EDITS.items():
        path = tmp_path / name
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{name} no longer has the place the document names"
        text = text.replace(old, new)
        if name == "bot/registry.py":
            assert text.count(SCOREPAD_EDIT[0]) == 1
            text = text.replace(*SCOREPAD_EDIT)
        path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", ON_THE_COPY],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert "must_trump" in seen["start"] and "must_trump" in seen["settings"]
    assert seen["event"] and not seen["scorepad"]
    assert "`must_trump` must be true or false" in seen["wrong_value"]  # and nothing made
    assert seen["stored"] is True and seen["rules"] is True
    # Seat 2, out of hearts, holds the three of spades (trumps) and the five of diamonds.
    assert seen["legal"] == [parse_card("3S")]
    assert seen["refused"] == "must_trump"
