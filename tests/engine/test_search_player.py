"""The search player and the levels: only legal moves, the hook rule as dealer, deterministic
for a seed, nothing read beyond the seat's view; decide() in a worker process equals calling
the player. Strength is the benchmark's business (benchmarks/search_player.py), not a test's.

The search runs with a handful of sampled deals here, to keep the suite fast."""

from __future__ import annotations

import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from kachuful_core import Game, Phase, Rules, SeatView
from kachuful_core.events import BidPlaced, CardPlayed
from kachuful_core.game import PresetDeal
from kachuful_core.players import (
    LEVEL_LABELS,
    LEVELS,
    Decision,
    HeuristicPlayer,
    RandomPlayer,
    SearchPlayer,
    act,
    decide,
)
from kachuful_core.record import export_record
from kachuful_core.views import view as seat_view

from .support import SINGLE_OPTIONS, Referee, cs


def cheap(seed: int) -> SearchPlayer:
    return SearchPlayer(seed, card_budget=300, bid_budget=300, min_samples=3, max_samples=4)


def run(rules: Rules, seed: int, seats: list[Any]) -> Game:
    game = Game.new(rules, seed)
    referee = Referee(game)
    referee.check(game.opening_events())
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        assert seat is not None
        bidding = game.phase is Phase.BIDDING
        legal_bids = game.legal_bids(seat)
        legal_cards = game.legal_cards(seat)
        forbidden = game.forbidden_bid if seat == game.dealer else None
        events = act(game, seat, seats[seat])
        move = next(e for e in events if isinstance(e, BidPlaced | CardPlayed))
        assert move.seat == seat
        if bidding:
            assert isinstance(move, BidPlaced)
            assert move.bid in legal_bids
            if forbidden is not None:
                assert move.bid != forbidden
        else:
            assert isinstance(move, CardPlayed)
            assert move.card in legal_cards
        referee.check(events)
    assert referee.ended
    return game


@pytest.mark.parametrize("options", SINGLE_OPTIONS, ids=lambda o: ",".join(map(str, o.items())))
@pytest.mark.parametrize("players", [3, 4, 7])
def test_search_player_makes_only_legal_moves(players: int, options: dict[str, Any]) -> None:
    rules = Rules(players=players, max_hand=min(3, 52 // players), **options)
    seats: list[Any] = [
        cheap(s) if s % 2 == 0 else HeuristicPlayer(s, blind_max_hand=1) for s in range(players)
    ]
    run(rules, players, seats)


def test_search_level_plays_a_full_default_game_legally() -> None:
    # The level as a table gets it (full budget), every seat searching, on short hands.
    rules = Rules(players=4, max_hand=3)
    run(rules, 1, [LEVELS["search"](s) for s in range(4)])


def test_search_player_honours_the_hook_rule_as_dealer() -> None:
    # Deals where the dealer's forbidden bid is in range; the dealer never bids it.
    hooked = 0
    for seed in range(6):
        game = Game.new(Rules(players=4, max_hand=5), seed)
        players = [cheap(seed * 4 + s) for s in range(4)]
        while game.phase is not Phase.FINISHED:
            seat = game.turn
            assert seat is not None
            if game.phase is Phase.BIDDING and seat == game.dealer:
                forbidden = game.forbidden_bid
                v = seat_view(game, seat)
                bid = players[seat].choose_bid(v)
                assert bid in v.legal_bids
                if forbidden is not None:
                    hooked += 1
                    assert bid != forbidden
                game.bid(seat, bid)
            else:
                act(game, seat, players[seat])
    assert hooked > 10


def test_search_player_is_deterministic_for_a_seed() -> None:
    rules = Rules(players=4, max_hand=4)
    records = [
        export_record(run(rules, 3, [cheap(s) for s in range(4)])).to_json() for _ in range(2)
    ]
    assert records[0] == records[1]


def views_of_seat_zero(hands: list[str]) -> list[SeatView]:
    """Seat 0's view at each of its turns, every seat played by the heuristic."""
    rules = Rules(players=4, max_hand=3)
    dealt = tuple(tuple(cs(h)) for h in hands)
    game = Game(rules, first_dealer=3, presets={0: PresetDeal(dealt, None)})
    out = []
    heuristic = HeuristicPlayer(0)
    while game.phase is Phase.BIDDING or game.phase is Phase.PLAYING:
        seat = game.turn
        assert seat is not None
        if seat == 0:
            out.append(seat_view(game, 0))
        act(game, seat, heuristic)
    return out


def test_search_player_reads_nothing_beyond_its_view() -> None:
    # Seat 0 holds the same cards; the others' hidden cards differ, but every card they play
    # is the same (their hands differ only in cards nobody plays before seat 0 decides).
    a = views_of_seat_zero(["AS KH 2D", "3S 4S 5S", "6S 7S 8S", "9S 10S JS"])
    b = views_of_seat_zero(["AS KH 2D", "3S 4S 5S", "6S 7S 8S", "9S 10S QS"])
    first_a, first_b = a[0], b[0]  # the first bid: seat 0 leads, nothing is seen yet
    assert first_a == first_b
    player = LEVELS["search"](5)
    assert player.choose_bid(first_a) == player.choose_bid(first_b)


def test_levels_are_listed_weakest_first_with_labels() -> None:
    names = list(LEVELS)
    assert names[:2] == ["random", "heuristic"] and names[-1] == "search"
    assert set(LEVEL_LABELS) == set(LEVELS)
    assert isinstance(LEVELS["heuristic"](3), HeuristicPlayer)
    assert isinstance(LEVELS["random"](3), RandomPlayer)
    assert isinstance(LEVELS["search"](3), SearchPlayer)


def some_views() -> list[SeatView]:
    """Views of every turn of a short game, blind bids on (so all three kinds come up)."""
    rules = Rules(players=4, max_hand=3, blind_bids=True)
    game = Game.new(rules, 11)
    views = []
    heuristic = HeuristicPlayer(0, blind_max_hand=1)
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        assert seat is not None
        v = seat_view(game, seat)
        views.append(v)
        if v.may_bid_blind and not heuristic.choose_blind(v):
            game.look(seat)
            views.append(seat_view(game, seat))
        act(game, seat, heuristic)
    return views


def direct(level: str, seed: int, view: SeatView) -> Decision:
    player = LEVELS[level](seed)
    if view.phase is Phase.BIDDING:
        if view.may_bid_blind:
            if player.choose_blind(view):
                return Decision("blind", bid=player.choose_bid(view), blind=True)
            return Decision("blind")
        return Decision("bid", bid=player.choose_bid(view))
    return Decision("card", card=player.choose_card(view))


def playable(views: list[SeatView]) -> list[SeatView]:
    return [v for v in views if v.phase is Phase.BIDDING or v.hand is not None or v.play_unseen]


def test_seat_views_pickle_and_decide_equals_the_player() -> None:
    views = playable(some_views())
    kinds = set()
    for v in views:
        back = pickle.loads(pickle.dumps(v))
        assert back == v
        for level in LEVELS:
            got = decide(level, 7, back)
            assert got == direct(level, 7, v)
            kinds.add(got.kind)
    assert kinds == {"blind", "bid", "card"}


def test_decide_runs_in_a_worker_process() -> None:
    views = playable(some_views())[:12]
    with ProcessPoolExecutor(max_workers=1) as pool:
        remote = list(pool.map(decide, ["search"] * len(views), [2] * len(views), views))
    assert remote == [direct("search", 2, v) for v in views]


def test_decide_refuses_a_view_without_a_turn() -> None:
    views = some_views()
    v = views[0]
    other = seat_view(Game.new(Rules(players=4, max_hand=3), 11), (v.seat + 1) % 4)
    with pytest.raises(ValueError):
        decide("heuristic", 0, other)


def test_a_decision_applied_is_the_players_move() -> None:
    from kachuful_core import Game, Rules
    from kachuful_core.players import LEVELS, act, apply_decision, decide

    rules = Rules(players=4, max_hand=3)
    for _ in range(2):
        games = [Game.new(rules, seed=b"d" * 32, players=list("abcd")) for _ in range(2)]
        for game in games:
            game.opening_events()
        while games[0].turn is not None:
            seat = games[0].turn
            decided = apply_decision(
                games[0], seat, decide("heuristic", 7, seat_view(games[0], seat))
            )
            acted = act(games[1], seat, LEVELS["heuristic"](7))
            assert decided == acted


def test_tabulated_bidder_model_matches_the_general_one() -> None:
    # The bidder model's fast path (exact scoring: the trick count's mean and variance to
    # 1/20 of a trick, from per-suit tables) gives the likelihood the general path gives, up
    # to that rounding.
    import math
    import random

    from kachuful_core.players import search

    rng = random.Random(4)
    checked = 0
    for seed in range(40):
        game = Game.new(Rules(players=4, max_hand=9), seed)
        heuristic = HeuristicPlayer(0)
        while game.phase is Phase.BIDDING and game.turn != game.dealer:
            act(game, game.turn, heuristic)
        view = seat_view(game, game.turn)
        sit = search._Situation(view)
        player = SearchPlayer(0)
        for j in range(4):
            bid = view.bids[j]
            if bid is None:
                continue
            made = [b for s in sit.before(j) if (b := view.bids[s]) is not None]
            dealt = 0
            for c in rng.sample([c for c in range(52) if c not in view.hand], view.hand_size):
                dealt |= 1 << c
            values = sit.values(j, dealt, made)
            legal = search._legal(view.hand_size, sum(made), j == view.dealer, view.rules)
            top = max(values[b] for b in legal)
            z = sum(math.exp((values[b] - top) / search.TAU) for b in legal)
            general = math.exp((values[bid] - top) / search.TAU) / z
            fast = player._bid_likelihood(sit, j, dealt, {})
            assert fast == pytest.approx(general, rel=0.2, abs=0.005)
            checked += 1
    assert checked > 60


INTERPRETED = """
import sys
from kachuful_core import Game, Phase, Rules
from kachuful_core.players import SearchPlayer, act
from kachuful_core.views import view as seat_view
from kachuful_core.record import export_record
game = Game.new(Rules(players=4, max_hand=4), 3)
seats = [SearchPlayer(s, card_budget=2000, bid_budget=2000, min_samples=3) for s in range(4)]
while game.phase is not Phase.FINISHED:
    act(game, game.turn, seats[game.turn])
sys.stdout.write(export_record(game).to_json())
"""


def test_compiled_search_decides_as_interpreted() -> None:
    # numba compiles the search's inner loops; run as plain Python (NUMBA_DISABLE_JIT) the
    # same code must give the same game, move for move (int64 arithmetic either way).
    import os
    import subprocess
    import sys

    rules = Rules(players=4, max_hand=4)
    seats = [SearchPlayer(s, card_budget=2000, bid_budget=2000, min_samples=3) for s in range(4)]
    compiled = export_record(run(rules, 3, seats)).to_json()
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run(
        [sys.executable, "-c", INTERPRETED], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout == compiled


def test_the_distilled_table_covers_every_hand_with_a_choice_of_card() -> None:
    # The search's card decisions run compiled only (a one-card hand has no choice), so the
    # distilled table must hold every hand size of two cards or more at every table size.
    from kachuful_core.players import _fast
    from kachuful_core.rules import MAX_PLAYERS, MIN_PLAYERS

    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for h in range(2, 52 // n + 1):
            assert _fast.suit_tables(n, h) is not None, (n, h)


def _plays_weight(game: Game, seat: int, hands: list[int]) -> float:
    """The weight :func:`_fast.play_weights` gives ``hands`` (a deal of the cards still held)
    by the plays the other seats made so far, as ``seat`` sees them."""
    from kachuful_core.cards import SUIT_MASKS
    from kachuful_core.players import _fast, search

    sit = search._Situation(seat_view(game, seat))
    record = search._play_record(sit)
    assert record is not None
    tmask = SUIT_MASKS[sit.trump] if sit.trump >= 0 else 0
    deals = _fast.ints([hands], sit.n)
    return float(_fast.play_weights(deals, record, tmask, sit.law, sit.n, 0.05)[0])


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_real_deal_explains_every_play_of_heuristic_seats(players: int) -> None:
    # The search weighs a sampled deal by the other seats' plays under the heuristic's card
    # rule: the real hands of heuristic players must explain every card they played, and a
    # deal that moves a card away from where it was needed must explain fewer.
    heuristic = HeuristicPlayer(0)
    checked = contradicted = 0
    for seed in range(3):
        game = Game.new(Rules(players=players, max_hand=7), seed)
        while game.phase is not Phase.FINISHED:
            seat = game.turn
            assert seat is not None
            view = seat_view(game, seat)
            if game.phase is Phase.PLAYING and view.completed_tricks:
                real = [_hand_bits(seat_view(game, j).hand) for j in range(players)]
                assert _plays_weight(game, seat, real) == 1.0
                assert _explains_all(game, seat, real)  # so a short ending is played out
                checked += 1
                a, b = [j for j in range(players) if j != seat][:2]
                if real[a] and real[b]:
                    ca, cb = real[a] & -real[a], real[b] & -real[b]
                    swapped = real.copy()
                    swapped[a] ^= ca | cb
                    swapped[b] ^= ca | cb
                    contradicted += _plays_weight(game, seat, swapped) < 1.0
            act(game, seat, heuristic)
    assert checked > 100
    assert contradicted > 0


def _explains_all(game: Game, seat: int, hands: list[int]) -> bool | None:
    """:func:`_fast.explains_all` on the one deal ``hands``, as ``seat`` sees the plays;
    None: no other seat has played yet."""
    from kachuful_core.cards import SUIT_MASKS
    from kachuful_core.players import _fast, search

    sit = search._Situation(seat_view(game, seat))
    record = search._play_record(sit)
    if record is None:
        return None
    tmask = SUIT_MASKS[sit.trump] if sit.trump >= 0 else 0
    return bool(_fast.explains_all(_fast.ints([hands], sit.n), record, tmask, sit.law, sit.n))


def test_the_rule_explains_heuristic_seats_and_not_a_seat_playing_otherwise() -> None:
    # A short ending is played out by the heuristic's rule only where it explains every other
    # seat's plays in some sampled deal: a seat playing otherwise (here at random) fails once
    # it has played what the rule would not, for the rest of the deal.
    heuristic = HeuristicPlayer(0)
    odd = RandomPlayer(7)
    passed = failed = 0
    for seed in range(3):
        game = Game.new(Rules(players=4, max_hand=7), seed)
        failing_deal = -1
        while game.phase is not Phase.FINISHED:
            seat = game.turn
            assert seat is not None
            view = seat_view(game, seat)
            if game.phase is Phase.PLAYING and seat == 0:
                real = [_hand_bits(seat_view(game, j).hand) for j in range(4)]
                explained = _explains_all(game, seat, real)
                if explained:
                    assert failing_deal != view.deal_index  # a miss stays in the record
                    passed += 1
                elif explained is not None:
                    failing_deal = view.deal_index
                    failed += 1
            act(game, seat, odd if seat == 1 else heuristic)
    assert passed > 20
    assert failed > 20


def _hand_bits(hand: tuple[int, ...] | None) -> int:
    return sum(1 << c for c in hand or ())


def test_a_sampled_deal_counted_by_its_copies_scores_as_the_copies_played_out() -> None:
    # The race plays each distinct sampled deal once and counts it as often as it was drawn
    # (the deals that best explain the plays are drawn many times): the candidates' totals
    # must be those of playing every copy out.
    import numpy as np

    from kachuful_core.cards import SUIT_MASKS
    from kachuful_core.players import _fast, search

    heuristic = HeuristicPlayer(0)
    checked = 0
    for seed in range(4):
        game = Game.new(Rules(players=4, max_hand=6), seed)
        while game.phase is not Phase.FINISHED:
            seat = game.turn
            assert seat is not None
            v = seat_view(game, seat)
            if game.phase is Phase.PLAYING and v.hand is not None and len(v.legal_cards) > 1:
                sit = search._Situation(v)
                real = [_hand_bits(seat_view(game, j).hand) for j in range(4)]
                swapped = real.copy()
                a, b = [j for j in range(4) if j != seat and real[j]][:2]
                ca, cb = real[a] & -real[a], real[b] & -real[b]
                swapped[a] ^= ca | cb
                swapped[b] ^= ca | cb
                trick = v.current_trick
                best_seat, best = search._trick_winner(trick, v.trump) if trick else (-1, -1)
                tmask = SUIT_MASKS[sit.trump] if sit.trump >= 0 else 0
                need = [(x or 0) - w for x, w in zip(v.bids, v.tricks_won, strict=True)]
                args = (
                    _fast.ints(need),
                    seat,
                    4,
                    tmask,
                    sit.law,
                    len(trick),
                    SUIT_MASKS[trick[0][1] // 13] if trick else 0,
                    best,
                    best_seat,
                    sit.seen,
                    _fast.floats([float(10 * t) for t in range(len(v.hand) + 1)]),
                    _fast.ints(sit.void),
                    sit.seen.bit_count() + 4,
                )
                cands = _fast.ints(list(v.legal_cards))
                copies = _fast.ints([real, real, swapped, real], 4)
                each = np.zeros(len(cands))
                _fast.eval_cards(copies, _fast.floats([1.0] * 4), cands, each, *args)
                once = np.zeros(len(cands))
                distinct = _fast.ints([real, swapped], 4)
                _fast.eval_cards(distinct, _fast.floats([3.0, 1.0]), cands, once, *args)
                assert once.tolist() == each.tolist()
                checked += 1
            act(game, seat, heuristic)
    assert checked > 50
