"""Seeded dealing: the first-dealer draw, dealing one card at a time, commit and reveal, and
determinism (same seed, same actions, same game)."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest

from kachuful_core import Game, Phase, Rules, card_str, parse_card
from kachuful_core.dealing import (
    deal_hands,
    draw_first_dealer,
    draw_winner,
    game_commitment,
    normalize_seed,
    shuffled_deck,
)
from kachuful_core.events import DealScored, DealStarted, FirstDealerDrawn
from kachuful_core.record import export_record

from .support import DECK, RandomDriver, c, check_draw, rank_index

# ---- the shuffle ------------------------------------------------------------------------------


def test_shuffled_deck_is_a_permutation_and_deterministic() -> None:
    decks = set()
    for k in range(300):
        material = hashlib.sha256(b"deck %d" % k).digest()
        deck = shuffled_deck(material)
        assert sorted(deck) == sorted(DECK)
        assert shuffled_deck(material) == deck
        decks.add(tuple(deck))
    assert len(decks) == 300


def test_shuffle_is_not_visibly_biased() -> None:
    # Fixed seeds, so this cannot flake. A uniform shuffle leaves on average one card in its
    # place (a Sattolo-style off-by-one leaves none) and puts every card first about as often.
    decks = [shuffled_deck(b"uniformity %d" % k) for k in range(5200)]
    fixed_points = sum(deck[i] == i for deck in decks for i in range(52))
    assert 4500 < fixed_points < 5900
    first = Counter(deck[0] for deck in decks)
    chi2 = sum((first[card] - 100) ** 2 / 100 for card in DECK)
    assert chi2 < 120  # 51 degrees of freedom: p < 1e-6 beyond this
    last = Counter(deck[51] for deck in decks)
    chi2 = sum((last[card] - 100) ** 2 / 100 for card in DECK)
    assert chi2 < 120


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_deal_hands_deals_one_at_a_time_clockwise_from_the_dealers_left(players: int) -> None:
    rng = random.Random(players)
    for dealer in range(players):
        for size in range(1, 52 // players + 1):
            material = rng.randbytes(32)
            deck = shuffled_deck(material)
            hands, turned = deal_hands(material, players, dealer, size)
            assert len(hands) == players
            for k in range(players):  # k-th seat from the dealer's left
                seat = (dealer + 1 + k) % players
                assert hands[seat] == [deck[j * players + k] for j in range(size)]
            dealt = players * size
            assert turned == (deck[dealt] if dealt < 52 else None)


def test_the_dealers_left_gets_the_first_card() -> None:
    material = b"first card"
    deck = shuffled_deck(material)
    hands, _ = deal_hands(material, 4, 2, 3)
    assert hands[3][0] == deck[0]
    assert hands[0][0] == deck[1]
    assert hands[1][0] == deck[2]
    assert hands[2][0] == deck[3]  # the dealer last
    assert hands[3][1] == deck[4]


# ---- the first-dealer draw -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_first_dealer_draw_invariants(players: int) -> None:
    redraws = 0
    for k in range(300):
        rounds, dealer = draw_first_dealer(normalize_seed(k), players)
        # highest rank deals; each later round is exactly the seats tied before
        check_draw(rounds, dealer, players)
        last = rounds[-1]
        mine = next(card for seat, card in last if seat == dealer)
        assert all(rank_index(mine) > rank_index(card) for seat, card in last if seat != dealer)
        assert draw_winner([list(r) for r in rounds]) == dealer
        redraws += len(rounds) > 1
    # ties on the highest rank happen often enough that 300 draws must include some
    assert redraws > 0


def test_first_dealers_are_spread_over_the_seats() -> None:
    dealers = Counter(draw_first_dealer(normalize_seed(k), 4)[1] for k in range(400))
    assert set(dealers) == {0, 1, 2, 3}
    assert min(dealers.values()) > 50


def _round(*pairs: str) -> list[tuple[int, int]]:
    out = []
    for pair in pairs:
        seat, card = pair.split(":")
        out.append((int(seat), parse_card(card)))
    return out


@pytest.mark.parametrize(
    ("rounds", "winner"),
    [
        ([_round("0:AS", "1:KH", "2:2C")], 0),
        ([_round("0:3S", "1:KH", "2:KC"), _round("1:4D", "2:9D")], 2),
        # a three-way tie, then a two-way tie among those, then settled
        (
            [
                _round("0:QS", "1:QH", "2:QC", "3:2D"),
                _round("0:7S", "1:7H", "2:3C"),
                _round("0:2S", "1:JH"),
            ],
            1,
        ),
        # the tie is not settled
        ([_round("0:KS", "1:KH", "2:2C")], None),
        # a redraw that includes a seat that was not tied
        ([_round("0:KS", "1:KH", "2:2C"), _round("0:3S", "1:4H", "2:AC")], None),
        # a redraw that leaves out a tied seat
        ([_round("0:KS", "1:KH", "2:KC"), _round("0:3S", "1:4H")], None),
        # a round after the draw was settled
        ([_round("0:AS", "1:KH", "2:2C"), _round("0:3S")], None),
        ([], None),
    ],
)
def test_draw_winner(rounds: list[list[tuple[int, int]]], winner: int | None) -> None:
    assert draw_winner(rounds) == winner


@pytest.mark.parametrize("seed", [0, 1, 7, "table-42", b"\x00\x01", 2**70])
def test_new_game_draws_and_deals_from_the_seed(seed: int | str | bytes) -> None:
    rules = Rules(players=5, max_hand=3)
    game = Game.new(rules, seed)
    events = game.opening_events()
    assert isinstance(events[0], FirstDealerDrawn)
    assert isinstance(events[1], DealStarted)
    assert game.opening_events() == []  # given once
    drawn = events[0]
    check_draw(drawn.rounds, drawn.dealer, 5)
    assert game.first_dealer == drawn.dealer == game.dealer == events[1].dealer
    assert game.draw == drawn.rounds
    record = export_record(game)
    assert record.draw is not None
    assert [[(s, parse_card(t)) for s, t in r] for r in record.draw] == [
        list(r) for r in drawn.rounds
    ]
    # the record holds the hands as dealt
    assert [sorted(parse_card(t) for t in h) for h in record.deals[0].hands] == [
        game.hand(s) for s in range(5)
    ]
    assert events[1].commitment == game.commitment(0) is not None
    assert game.reveal(0) is None


# ---- determinism, commit and reveal -------------------------------------------------------------


def _play(rules: Rules, seed: int | str | bytes, moves: int, choices: int) -> Game:
    game = Game.new(rules, seed)
    driver = RandomDriver(game, random.Random(choices))
    for _ in range(moves):
        if game.phase is Phase.FINISHED:
            break
        driver.step()
    return game


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=4, max_hand=4),
        Rules(players=3, max_hand=3, trump="turned", blind_bids=True),
        Rules(players=6, max_hand=2, forehead=True, schedule="double"),
    ],
)
def test_same_seed_and_actions_give_the_same_game(rules: Rules) -> None:
    for seed in (3, "s", b"bytes"):
        a = _play(rules, seed, 10_000, 99)
        b = _play(rules, seed, 10_000, 99)
        assert a.phase is Phase.FINISHED
        assert export_record(a).to_json() == export_record(b).to_json()
        assert a.totals == b.totals
        assert a.winners == b.winners
        mid_a = _play(rules, seed, 17, 5)
        mid_b = _play(rules, seed, 17, 5)
        assert export_record(mid_a).to_json() == export_record(mid_b).to_json()
        assert mid_a.move_count == mid_b.move_count == 17


def test_different_seeds_deal_differently() -> None:
    rules = Rules(players=4)
    firsts = {tuple(tuple(Game.new(rules, s).hand(p)) for p in range(4)) for s in range(20)}
    assert len(firsts) == 20


def test_commitment_and_reveal() -> None:
    rules = Rules(players=4, max_hand=3)
    game = Game.new(rules, "commit")
    opening = game.opening_events()
    started = {e.deal_index: e for e in opening if isinstance(e, DealStarted)}
    scored: dict[int, DealScored] = {}
    driver = RandomDriver(game, random.Random(1))
    while game.phase is not Phase.FINISHED:
        index = game.deal_index
        # nothing is revealed before the deal ends, neither this deal nor a later one
        assert game.reveal(index) is None
        assert game.reveal(index + 1) is None
        assert game.commitment(index) == started[index].commitment
        dealt = [list(h) for h in export_record(game).deals[-1].hands]
        dealer = game.dealer
        for e in driver.step():
            if isinstance(e, DealStarted):
                started[e.deal_index] = e
            if isinstance(e, DealScored):
                scored[e.deal_index] = e
                reveal = e.seed_reveal
                assert reveal is not None
                assert game.reveal(index) == reveal
                material = bytes.fromhex(reveal)
                assert hashlib.sha256(material).hexdigest() == started[index].commitment
                hands, _ = deal_hands(material, 4, dealer, rules.hand_sizes[index])
                assert [[card_str(x) for x in h] for h in hands] == dealt
    assert sorted(scored) == list(range(rules.num_deals))
    # every commitment differs, and no reveal gives away another deal
    commitments = {e.commitment for e in started.values()}
    assert len(commitments) == rules.num_deals
    reveals = {e.seed_reveal for e in scored.values()}
    assert not commitments & reveals


def test_a_game_without_a_seed_needs_a_first_dealer() -> None:
    with pytest.raises(ValueError):
        Game(Rules(players=4))
    game = Game(Rules(players=4), first_dealer=2)
    assert game.phase is Phase.DEALING  # no cards to deal
    assert game.reveal(0) is None
    assert game.commitment(0) is None
    assert game.hand(0) == []


def test_card_text() -> None:
    assert len({parse_card(r + s) for r in "23456789TJQKA" for s in "SHDC"}) == 52
    assert parse_card("10H") == parse_card("TH") == parse_card("th") == parse_card("10♥")
    assert parse_card("as") == parse_card("A♠") == c("AS")
    assert card_str(parse_card("tc")) == "10C"
    assert card_str(parse_card("q♦")) == "QD"
    for bad in ["1H", "11H", "ZZ", "H", "", "AX", "10", "KHH"]:
        with pytest.raises(ValueError):
            parse_card(bad)


def test_game_commitment_binds_every_deal_before_the_first() -> None:
    """One value, known before the first deal, that the revealed seeds of every deal must
    reproduce: SHA-256 of the deals' commitments in order."""
    rules = Rules(players=4, max_hand=3)
    game = Game.new(rules, "commit-all")
    before = game.game_commitment()
    assert before is not None and len(before) == 64
    driver = RandomDriver(game, random.Random(2))
    while game.phase is not Phase.FINISHED:
        driver.step()
    assert game.game_commitment() == before  # it never changes during the game
    reveals = [game.reveal(i) for i in range(rules.num_deals)]
    assert all(reveals)
    digests = b"".join(hashlib.sha256(bytes.fromhex(r or "")).digest() for r in reveals)
    assert hashlib.sha256(digests).hexdigest() == before
    # another seed commits to other deals; a game without a seed has nothing to commit to
    assert Game.new(rules, "commit-other").game_commitment() != before
    # a changed deal order or a missing deal gives another value
    commitments = [game.commitment(i) or "" for i in range(rules.num_deals)]
    assert game_commitment(commitments) == before
    assert game_commitment(commitments[::-1]) != before
    assert game_commitment(commitments[:-1]) != before
