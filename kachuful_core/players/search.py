"""A search player: determinized sampling of the unseen hands, policy rollouts, and the
table's own score as the objective.

Every decision, from the seat's view only:

* **Sampling.** The cards the seat cannot place are dealt to the other seats, each receiving
  as many as it holds, never a card of a suit it has shown itself void in (a seat that did not
  follow suit). Candidate deals are then weighted by what the bids made imply: a seat is
  modelled as a near-rational bidder that picks a bid with probability proportional to
  ``exp(EV / TAU)``, EV being the expected score of that bid under :class:`HeuristicPlayer`'s
  trick model for the hand it was dealt in the sample (its cards now plus those it played).
  The deals kept for the search are drawn from the candidates by those weights.
* **Rollouts.** Each kept deal is played to the end by a fast bit-set policy for every seat:
  a seat short of its bid wins tricks as cheaply as it can and leads its sure winners; a seat
  that has made it ducks with its highest losing card and sheds dangerous cards when void; a
  seat whose bid is lost sheds high cards, as the heuristic does. The policy sees only what a
  seat could know (played cards, own hand) when it judges a card a sure winner.
* **Objective.** The seat's own deal score under the table's scoring (``10 + bid`` exact, 0 on
  a miss by default): the card with the best mean score over the kept deals is played (cards
  that are equivalent, with nothing unplayed between them, are tried once).
* **Bidding.** The legal bids (the dealer's hook rule included) that the heuristic's trick
  model rates best are each searched over the same kept deals: the seats after this one bid
  as the heuristic would on their sampled hands (knowing this seat's candidate bid), and the
  deal is played out with this seat aiming at the candidate. The mean score, shrunk a little
  towards the heuristic's own estimate of that bid, picks the bid.

Deterministic for a seed: each decision draws from its own ``random.Random`` seeded with the
player's seed and a digest of the view, so the same view always gets the same answer (and a
worker process given the view decides exactly as the player would). Nothing is kept between
calls. Options the search does not model (bidding blind, the forehead deal, a hidden hand) go
to the heuristic.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

from ..cards import SUIT_MASKS, Card
from ..game import Phase
from ..rules import Rules
from ..views import SeatView
from .heuristic import (
    PRESSURE,
    PRESSURE_CLIP,
    HeuristicPlayer,
    _calibrate,
    _count_dist,
    _hand_mask,
    _one_card_chance,
    _shift,
    _Table,
)

FULL = (1 << 52) - 1
S0, S1, S2, S3 = SUIT_MASKS
TAU = 1.5  # temperature of the bidder model, in points
BID_CANDIDATES = 4  # bids searched (the heuristic's best by expected score)
PRIOR_WEIGHT = 3.0  # rollouts' worth of the heuristic's estimate of a bid
CARD_BUDGET = 40_000  # card plays of rollouts per card decision
BID_BUDGET = 60_000  # card plays of rollouts per bid decision
MIN_SAMPLES = 12
MAX_SAMPLES = 160
OVERSAMPLE = 3  # candidate deals per kept deal


def _rank_high(mask: int, tmask: int) -> Card:
    """The card of highest rank (a trump before a side card of the same rank)."""
    best = -1
    best_key = -1
    for s in range(4):
        sm = mask & SUIT_MASKS[s]
        if sm:
            c = sm.bit_length() - 1
            key = (c - 13 * s) * 2 + (1 if sm & tmask else 0)
            if key > best_key:
                best_key, best = key, c
    return best


def _rank_low(mask: int, tmask: int) -> Card:
    """The card of lowest rank, a side card before a trump."""
    side = mask & ~tmask
    m = side or mask
    best = -1
    best_key = 99
    for s in range(4):
        sm = m & SUIT_MASKS[s]
        if sm:
            c = (sm & -sm).bit_length() - 1
            key = c - 13 * s
            if key < best_key:
                best_key, best = key, c
    return best


def _danger(mask: int, tmask: int) -> Card:
    """The card most likely to take an unwanted trick later: high rank, trumps weighted up."""
    best = -1
    best_key = -1
    for s in range(4):
        sm = mask & SUIT_MASKS[s]
        if sm:
            c = sm.bit_length() - 1
            key = c - 13 * s + (4 if sm & tmask else 0)
            if key > best_key:
                best_key, best = key, c
    return best


def _lead(h: int, nd: int, tmask: int, seen: int) -> Card:
    left = h.bit_count()
    if nd < 0 or nd > left:
        return _rank_high(h, tmask)
    if nd == 0:
        return _rank_low(h, tmask)
    if nd == left:
        return _rank_high(h, tmask)
    outside = FULL & ~(seen | h)
    trump_boss = -1
    short = -1
    short_len = 99
    for s in range(4):
        sm = h & SUIT_MASKS[s]
        if not sm:
            continue
        top = sm.bit_length() - 1
        boss = not (outside & SUIT_MASKS[s] & ~((2 << top) - 1))
        if sm & tmask:
            if boss:
                trump_boss = top
            continue
        if boss:
            return top
        n = sm.bit_count()
        if n < short_len:
            short_len, short = n, (sm & -sm).bit_length() - 1
    if trump_boss >= 0:
        return trump_boss
    if short >= 0:
        return short
    return h.bit_length() - 1  # only trumps, none sure: the highest


def playout(
    hands: list[int],
    need: list[int],
    trump: int,
    n: int,
    turn: int,
    in_trick: int,
    led: int,
    best: int,
    best_seat: int,
    seen: int,
    me: int,
) -> int:
    """Play the deal to its end with the rollout policy; the tricks ``me`` takes from here.

    ``hands`` and ``need`` (each seat's bid less its tricks) are changed in place.
    ``in_trick`` cards of the open trick are down, suit ``led`` led, ``best`` (by
    ``best_seat``) winning it. ``seen``: the cards every seat knows are out of play."""
    tmask = SUIT_MASKS[trump] if trump >= 0 else 0
    mine = 0
    led_mask = SUIT_MASKS[led] if in_trick else 0
    while True:
        h = hands[turn]
        if not h:
            return mine
        nd = need[turn]
        if in_trick == 0:
            card = _lead(h, nd, tmask, seen)
            led_mask = SUIT_MASKS[card // 13]
            best = card
            best_seat = turn
        else:
            follow = h & led_mask
            legal = follow or h
            above = FULL & ~((2 << best) - 1)
            bm = SUIT_MASKS[best // 13]
            if bm == tmask:
                win = legal & tmask & above
            else:
                win = legal & bm & above
                if not follow:
                    win |= legal & tmask
            left = h.bit_count()
            if nd < 0 or nd > left:
                card = _rank_high(legal, tmask)
            elif nd > 0:
                if win:
                    if in_trick == n - 1 or not follow:
                        card = (win & -win).bit_length() - 1
                    else:
                        card = win.bit_length() - 1
                elif follow:
                    card = (follow & -follow).bit_length() - 1
                else:
                    card = _rank_low(legal, tmask)
            else:
                lose = legal & ~win
                if lose:
                    card = lose.bit_length() - 1 if follow else _danger(lose, tmask)
                elif in_trick == n - 1:
                    card = win.bit_length() - 1 if follow else _danger(win, tmask)
                else:
                    card = (win & -win).bit_length() - 1
            cm = SUIT_MASKS[card // 13]
            if (cm == bm and card > best) or (cm == tmask and bm != tmask):
                best = card
                best_seat = turn
        bit = 1 << card
        hands[turn] = h ^ bit
        seen |= bit
        in_trick += 1
        if in_trick == n:
            need[best_seat] -= 1
            if best_seat == me:
                mine += 1
            turn = best_seat
            in_trick = 0
        else:
            turn = turn + 1 if turn + 1 < n else 0


class _Situation:
    """What the seat knows, in bit sets: its hand, the unseen cards, who may hold what."""

    def __init__(self, view: SeatView) -> None:
        n = view.players
        me = view.seat
        self.view = view
        self.n = n
        self.me = me
        assert view.hand is not None
        self.hand = _hand_mask(view.hand)
        self.trump = -1 if view.trump is None else view.trump
        played = 0
        void = [0] * n
        played_by = [0] * n
        current = view.current_trick
        tricks = (*view.completed_tricks, current) if current else view.completed_tricks
        for trick in tricks:
            led = trick[0][1] // 13
            for seat, card in trick:
                played |= 1 << card
                played_by[seat] |= 1 << card
                if card // 13 != led:
                    void[seat] |= SUIT_MASKS[led]
        seen = played
        for card in view.visible_cards.values():
            seen |= 1 << card
        if view.turned is not None:
            seen |= 1 << view.turned
        self.seen = seen
        self.unseen = FULL & ~(seen | self.hand)
        self.void = void
        self.played_by = played_by
        done = len(view.completed_tricks)
        in_trick = {seat for seat, _ in current}
        self.counts = [
            0 if j == me else view.hand_size - done - (1 if j in in_trick else 0) for j in range(n)
        ]
        self.rules = view.rules
        self.order = [(view.dealer + 1 + k) % n for k in range(n)]  # bidding order
        self.bid_views: dict[int, SeatView] = {}

    # ---- the bidder model -----------------------------------------------------------------

    def bid_view(self, j: int, bids: tuple[int | None, ...]) -> SeatView:
        """Seat ``j``'s view when it was to bid, as far as this seat can rebuild it."""
        v = self.view
        return replace(
            v,
            seat=j,
            phase=Phase.BIDDING,
            turn=j,
            hand=None,
            visible_cards={},
            bids=bids,
            blind=(False,) * self.n,
            current_trick=(),
            leader=(v.dealer + 1) % self.n,
            completed_tricks=(),
            tricks_won=(0,) * self.n,
            legal_bids=(),
            legal_cards=(),
            forbidden_bid=None,
            may_bid_blind=False,
            has_looked=True,
            play_unseen=False,
        )

    def trick_probs(self, j: int, dealt: int) -> list[float]:
        """The heuristic's calibrated trick chances of each card of seat ``j``'s dealt hand."""
        v = self.bid_views.get(j)
        if v is None:
            before = self.before(j)
            bids = tuple(self.view.bids[s] if s in before else None for s in range(self.n))
            v = self.bid_views[j] = self.bid_view(j, bids)
        h = self.view.hand_size
        if h == 1:
            card = dealt.bit_length() - 1
            return [_one_card_chance(replace(v, hand=(card,)), card)]
        raw = _Table(v, dealt).future(dealt)
        return _calibrate(raw, v.trump, h, self.n)

    def before(self, j: int) -> list[int]:
        return self.order[: self.order.index(j)]


def _bid_values(probs: list[float], h: int, n: int, made: list[int], rules: Rules) -> list[float]:
    """Expected score of every bid 0..h under the heuristic's model, the bids ``made``
    before it moving the expected count as the heuristic does."""
    if made and PRESSURE:
        unclaimed = (h - sum(made)) / (n - len(made))
        shift = PRESSURE * (unclaimed - sum(probs))
        shift = max(-PRESSURE_CLIP, min(shift, PRESSURE_CLIP))
        if shift:
            probs = _shift(probs, shift)
    dist = _count_dist(probs, h)
    if rules.scoring == "exact":
        return [dist[b] * (10 + b) for b in range(h + 1)]
    return [sum(dist[t] * rules.score(b, t) for t in range(h + 1)) for b in range(h + 1)]


def _legal(h: int, made_total: int, dealer: bool, rules: Rules) -> list[int]:
    forbidden = rules.forbidden_bid(h, made_total) if dealer else None
    return [b for b in range(h + 1) if b != forbidden]


class SearchPlayer:
    """Determinized search with policy rollouts (see the module docstring).

    ``seed`` seeds every decision's own ``random.Random`` (with a digest of the view).
    ``card_budget`` / ``bid_budget``: rollout card plays per decision, which set how many
    sampled deals are searched (between ``min_samples`` and ``max_samples``).
    """

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        *,
        card_budget: int = CARD_BUDGET,
        bid_budget: int = BID_BUDGET,
        min_samples: int = MIN_SAMPLES,
        max_samples: int = MAX_SAMPLES,
    ) -> None:
        self.seed = seed
        self.card_budget = card_budget
        self.bid_budget = bid_budget
        self.min_samples = min_samples
        self.max_samples = max_samples
        self.heuristic = HeuristicPlayer(seed)

    def _rng(self, view: SeatView) -> random.Random:
        key = (
            self.seed,
            view.seat,
            view.deal_index,
            view.hand,
            view.bids,
            view.completed_tricks,
            view.current_trick,
        )
        return random.Random(repr(key))

    def choose_blind(self, view: SeatView) -> bool:
        return False

    # ---- sampling ---------------------------------------------------------------------------

    def _deals(self, sit: _Situation, rng: random.Random, wanted: int) -> list[list[int]]:
        """``wanted`` deals of the unseen cards, drawn by the bidder-model weights from
        ``OVERSAMPLE`` times as many void-consistent candidates."""
        n = sit.n
        me = sit.me
        others = sorted(
            (j for j in range(n) if j != me and sit.counts[j] > 0),
            key=lambda j: -sit.void[j].bit_count(),
        )
        bidders = [j for j in others if sit.view.bids[j] is not None]
        candidates: list[list[int]] = []
        weights: list[float] = []
        total = wanted * OVERSAMPLE if bidders else wanted
        values_cache: dict[int, float] = {}
        for _ in range(total):
            hands = [0] * n
            hands[me] = sit.hand
            free = sit.unseen
            for j in others:
                allowed = free & ~sit.void[j]
                pool = [c for c in range(52) if allowed >> c & 1]
                k = sit.counts[j]
                if len(pool) < k:  # inconsistent view (cannot happen in a real game)
                    pool = [c for c in range(52) if free >> c & 1]
                picked = 0
                for c in rng.sample(pool, k):
                    picked |= 1 << c
                hands[j] = picked
                free &= ~picked
            w = 1.0
            for j in bidders:
                w *= self._bid_likelihood(sit, j, hands[j] | sit.played_by[j], values_cache)
            candidates.append(hands)
            weights.append(w)
        if not bidders:
            return candidates
        # Systematic resampling: kept deals in proportion to their weights.
        total_w = sum(weights)
        if total_w <= 0.0:
            return candidates[:wanted]
        step = total_w / wanted
        u = rng.random() * step
        kept: list[list[int]] = []
        acc = 0.0
        for hands, w in zip(candidates, weights, strict=True):
            acc += w
            while u < acc and len(kept) < wanted:
                kept.append(hands)
                u += step
        while len(kept) < wanted:
            kept.append(candidates[-1])
        return kept

    def _bid_likelihood(
        self, sit: _Situation, j: int, dealt: int, cache: dict[int, float]
    ) -> float:
        """P(seat ``j`` bid what it bid | it was dealt ``dealt``), the bidder model."""
        key = dealt * 8 + j
        hit = cache.get(key)
        if hit is not None:
            return hit
        v = sit.view
        h = v.hand_size
        probs = sit.trick_probs(j, dealt)
        before = sit.before(j)
        made = [b for s in before if (b := v.bids[s]) is not None]
        values = _bid_values(probs, h, sit.n, made, sit.rules)
        legal = _legal(h, sum(made), j == v.dealer, sit.rules)
        top = max(values[b] for b in legal)
        z = sum(math.exp((values[b] - top) / TAU) for b in legal)
        bid = v.bids[j]
        assert bid is not None
        p = math.exp((values[bid] - top) / TAU) / z if bid in legal else 1e-3
        cache[key] = p
        return p

    def _samples(self, budget: int, branches: int, cards_left: int) -> int:
        work = max(1, branches * cards_left)
        return max(self.min_samples, min(self.max_samples, budget // work))

    # ---- bidding ------------------------------------------------------------------------------

    def choose_bid(self, view: SeatView) -> int:
        legal = view.legal_bids
        if len(legal) == 1 or view.hand is None or view.may_bid_blind:
            return self.heuristic.choose_bid(view)
        sit = _Situation(view)
        rules = view.rules
        h = view.hand_size
        n = view.players
        me = view.seat
        mine_probs = sit.trick_probs(me, sit.hand)
        before = sit.before(me)
        made = [b for s in before if (b := view.bids[s]) is not None]
        prior = _bid_values(mine_probs, h, n, made, rules)
        ranked = sorted(legal, key=lambda b: (-prior[b], b))
        candidates = ranked[:BID_CANDIDATES]
        if len(candidates) == 1:
            return candidates[0]
        rng = self._rng(view)
        samples = self._samples(self.bid_budget, len(candidates), n * h)
        deals = self._deals(sit, rng, samples)
        after = sit.order[sit.order.index(me) + 1 :]
        trump = sit.trump
        leader = sit.order[0]
        seen = sit.seen
        totals = dict.fromkeys(candidates, 0.0)
        bids0 = list(view.bids)
        for hands in deals:
            later = {j: sit.trick_probs(j, hands[j]) for j in after}
            for b in candidates:
                bids = bids0.copy()
                bids[me] = b
                total = sum(x for x in bids if x is not None)
                for j in after:
                    done = [
                        x for s in sit.order[: sit.order.index(j)] if (x := bids[s]) is not None
                    ]
                    values = _bid_values(later[j], h, n, done, rules)
                    options = _legal(h, total, j == view.dealer, rules)
                    bj = max(options, key=lambda x: (values[x], -x))
                    bids[j] = bj
                    total += bj
                need = [x if x is not None else 0 for x in bids]
                got = playout(hands.copy(), need, trump, n, leader, 0, -1, -1, -1, seen, me)
                totals[b] += rules.score(b, got)
        k = PRIOR_WEIGHT
        m = len(deals)
        return max(candidates, key=lambda b: ((totals[b] + k * prior[b]) / (m + k), -b))

    # ---- playing ------------------------------------------------------------------------------

    def choose_card(self, view: SeatView) -> Card | None:
        if view.hand is None:
            return None
        legal = view.legal_cards
        if len(legal) <= 1:
            return legal[0] if legal else None
        bid = view.bids[view.seat]
        assert bid is not None
        sit = _Situation(view)
        cands = self._distinct(sit, legal)
        if len(cands) == 1:
            return cands[0]
        rules = view.rules
        blind = view.blind[view.seat]
        me = view.seat
        n = view.players
        won = view.tricks_won[me]
        need0 = [
            (b if b is not None else 0) - w for b, w in zip(view.bids, view.tricks_won, strict=True)
        ]
        if need0[me] < 0 or need0[me] > len(view.hand):
            return self.heuristic.choose_card(view)  # the bid is lost: shed the highest card
        rng = self._rng(view)
        left = len(view.hand)
        samples = self._samples(self.card_budget, len(cands), n * left)
        deals = self._deals(sit, rng, samples)
        trump = sit.trump
        trick = view.current_trick
        tmask = SUIT_MASKS[trump] if trump >= 0 else 0
        if trick:
            best_seat, best = trick[0]
            for seat, card in trick[1:]:
                if (card // 13 == best // 13 and card > best) or (
                    card // 13 == trump and best // 13 != trump
                ):
                    best_seat, best = seat, card
        led = trick[0][1] // 13 if trick else -1
        totals = dict.fromkeys(cands, 0.0)
        nxt = (me + 1) % n
        in_trick = len(trick)
        for hands in deals:
            for c in cands:
                hs = hands.copy()
                hs[me] ^= 1 << c
                need = need0.copy()
                seen = sit.seen | (1 << c)
                if in_trick == 0:
                    b, bs, led = c, me, c // 13
                else:
                    b, bs = best, best_seat
                    cm = SUIT_MASKS[c // 13]
                    bm = SUIT_MASKS[b // 13]
                    if (cm == bm and c > b) or (cm == tmask and bm != tmask):
                        b, bs = c, me
                got = 0
                if in_trick + 1 == n:
                    need[bs] -= 1
                    got = 1 if bs == me else 0
                    got += playout(hs, need, trump, n, bs, 0, -1, -1, -1, seen, me)
                else:
                    got = playout(hs, need, trump, n, nxt, in_trick + 1, led, b, bs, seen, me)
                totals[c] += rules.score(bid, won + got, blind)
        return max(cands, key=lambda c: (totals[c], -(c % 13)))

    def _distinct(self, sit: _Situation, legal: tuple[Card, ...]) -> list[Card]:
        """The legal cards less those equivalent to a lower one: cards of a suit with no
        card between them that anyone else may still hold are interchangeable."""
        out: list[Card] = []
        outside = sit.unseen
        prev = -2
        for c in sorted(legal):
            if prev >= 0 and prev // 13 == c // 13:
                between = ((1 << c) - 1) & ~((2 << prev) - 1)
                if not between & outside:
                    prev = c
                    continue
            out.append(c)
            prev = c
        return out
