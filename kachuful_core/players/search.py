"""A search player: determinized sampling of the unseen hands, policy rollouts, and the
table's own score as the objective.

Every decision, from the seat's view only:

* **Sampling.** The cards the seat cannot place are dealt to the other seats, each receiving
  as many as it holds, never a card of a suit it has shown itself void in (a seat that did not
  follow suit; in general what :func:`kachuful_core.legality.shown_void` says its play
  shows). Candidate deals are then weighted by what the bids made imply: a seat is
  modelled as a near-rational bidder that picks a bid with probability proportional to
  ``exp(EV / TAU)``, EV being the expected score of that bid under :class:`HeuristicPlayer`'s
  trick model for the hand it was dealt in the sample (its cards now plus those it played).
  The deals kept for the search are drawn from the candidates by those weights. Once the
  other seats have played, eight times as many deals are drawn and weighed again by their
  plays: a deal counts 0.05 as much for every card a seat played that the heuristic's card
  rule (compiled in :mod:`._fast`) would not have played from the hand the deal gives it
  (counted up to three such cards). The few deals that explain the plays best are drawn many
  times; each distinct deal is played out once and counted as often as it was drawn.
* **Rollouts.** Each kept deal is played to the end by a fast bit-set policy for every seat:
  a seat short of its bid wins tricks as cheaply as it can and leads its sure winners; a seat
  that has made it ducks with its highest losing card and sheds dangerous cards when void; a
  seat whose bid is lost sheds high cards, as the heuristic does. The policy sees only what a
  seat could know (played cards, own hand) when it judges a card a sure winner. On the
  compiled path (:mod:`._fast`) this seat looks one card ahead at each of its turns in a
  rollout: it tries its legal cards, the policy's own first, each by a policy playout of the
  sampled deal, and plays the first that lands its bid exactly, so a candidate is judged by
  how this seat would follow it up rather than by the policy's play alone. For the first
  ``OPPONENT_DEPTH`` card plays after the decision (the rest of the trick at a table of four),
  and for every play once this seat holds at most ``DEEP_LEFT`` cards (four) if some sampled
  deal explains every other seat's plays so far, the other seats play the heuristic's card
  rule instead of the policy, judged from what
  each of them could know: the policy predicts a heuristic's card barely more than half the
  time, the rule every time.
* **Objective.** The seat's own deal score under the table's scoring (``10 + bid`` exact, 0 on
  a miss by default): the card with the best mean score over the kept deals is played (cards
  that are equivalent, with nothing unplayed between them, are tried once).
* **Bidding.** The legal bids (the dealer's hook rule included) that the heuristic's trick
  model rates best are each searched over the same kept deals: the seats after this one bid
  their best under the bidder model (the heuristic's, by the distilled table) on their sampled
  hands, knowing this seat's candidate bid, and the
  deal is played out with this seat aiming at the candidate. The mean score, shrunk a little
  towards the heuristic's own estimate of that bid, picks the bid.

The sampling, the bidder model's weights and the rollouts run compiled by numba
(:mod:`._fast`) wherever the distilled bid table has an entry (every hand of two cards or
more); one-card deals keep the Python sampling and weighing below, with the same compiled
rollouts.

Deterministic for a seed: each decision draws from its own ``random.Random`` seeded with the
player's seed and a digest of the view, so the same view always gets the same answer (and a
worker process given the view decides exactly as the player would). Nothing is kept between
calls. Options the search does not model (bidding blind, the forehead deal, a hidden hand) go
to the heuristic.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from ..cards import BITS, SUIT_MASKS, Card, cards_of
from ..game import Phase
from ..legality import law_of, shown_void_cached
from ..rules import Rules
from ..views import SeatView
from .bid_table import TABLE
from .heuristic import (
    PRESSURE,
    PRESSURE_CLIP,
    HeuristicPlayer,
    _beats,
    _calibrate,
    _count_dist,
    _hand_mask,
    _one_card_chance,
    _shift,
    _Table,
    _trick_winner,
)

if TYPE_CHECKING:
    from . import _fast

FULL = (1 << 52) - 1
TAU = 1.5  # temperature of the bidder model, in points
BID_CANDIDATES = 5  # bids searched (the heuristic's best by expected score)
PRIOR_WEIGHT = 3.0  # rollouts' worth of the heuristic's estimate of a bid
BID_BUDGET = 42_000  # card plays of rollouts per bid decision (one-card deals)
MIN_SAMPLES = 12
MAX_SAMPLES = 180
OVERSAMPLE = 3  # candidate deals per kept deal
DEAL_COST = 25 * OVERSAMPLE  # drawing and weighing a kept deal, in rollout card plays
# The compiled path (:mod:`._fast`, wherever the distilled table has an entry): budgets in
# card plays of the plain policy, fifty times the Python path's; a rollout with this seat's
# lookahead is counted as LOOK_COST plain ones (it costs about five).
LOOK_COST = 8
FAST_CARD_BUDGET = 2_400_000
FAST_BID_BUDGET = 2_000_000
FAST_MAX_SAMPLES = 4_000
FAST_DEAL_COST = 12 * OVERSAMPLE
# Inference from the plays: candidate deals per kept deal, and the weight of a deal for each
# play of another seat that the heuristic's card rule would not have made from it.
PLAY_OVERSAMPLE = 8
PLAY_EPS = 0.05
MODEL_COST = 26  # one play weighed by the heuristic's compiled card rule, in rollout card plays
# In the compiled rollouts the other seats play that rule for this many card plays after the
# decision (3: the rest of the trick at a table of four), the fast policy after.
OPPONENT_DEPTH = 3
# ... and for every play left once this seat holds at most DEEP_LEFT cards: the plays seen by
# then have sharpened the sampled deals most, and the rollouts are short. That is a bet that
# the other seats play like the rule, so it is made only where some sampled deal explains
# every seat's plays so far (_Evidence): it gains among heuristics and lost against honest
# ISMCTS while made regardless (docs/computer-players.md, head to head).
DEEP_LEFT = 4


class _Evidence:
    """What a draw of deals found: whether the heuristic's card rule explains every other
    seat's plays so far in some drawn deal (see :func:`._fast.explains_all`)."""

    def __init__(self) -> None:
        self.explained = True  # no plays yet: nothing to contradict it


class _Sampler(NamedTuple):
    """Draws an array of deals (a row per deal); ``cost``: what a kept deal costs beyond
    ``FAST_DEAL_COST``, in rollout card plays; ``evidence``: set by each draw."""

    draw: Callable[[int], _fast.Arr]
    cost: int
    evidence: _Evidence


def playout(
    hands: list[int],
    need: list[int],
    trump: int,
    law: int,
    n: int,
    turn: int,
    in_trick: int,
    led: int,
    best: int,
    best_seat: int,
    seen: int,
    me: int,
) -> int:
    """The compiled rollout (:func:`._fast.playout`) from Python lists: the tricks ``me`` takes
    from here to the end of the deal. ``need``: each seat's bid less its tricks; ``in_trick``
    cards of the open trick are down, suit ``led`` led, ``best`` (by ``best_seat``) winning
    it; ``seen``: the cards every seat knows are out of play; ``law``: the rules of play
    (:func:`kachuful_core.legality.law_of`)."""
    from . import _fast

    tmask = SUIT_MASKS[trump] if trump >= 0 else 0
    led_mask = SUIT_MASKS[led] if in_trick else 0
    return int(
        _fast.playout(
            _fast.ints(hands),
            _fast.ints(need),
            tmask,
            law,
            n,
            turn,
            in_trick,
            led_mask,
            best,
            best_seat,
            seen,
            me,
            _fast.ints([0] * n),
            0,
            _fast.floats([0.0] * 128),
        )
    )


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
        self.tmask = tmask = SUIT_MASKS[self.trump] if self.trump >= 0 else 0
        self.law = law = law_of(view.rules)
        played = 0
        void = [0] * n
        played_by = [0] * n
        current = view.current_trick
        tricks = (*view.completed_tricks, current) if current else view.completed_tricks
        for trick in tricks:
            led_mask = SUIT_MASKS[trick[0][1] // 13]
            for i, (seat, card) in enumerate(trick):
                played |= 1 << card
                played_by[seat] |= 1 << card
                if i:  # what the card shows the seat lacks, by the rules of play
                    void[seat] |= shown_void_cached(card, law, led_mask, tmask)
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

    def values(self, j: int, dealt: int, made: list[int]) -> list[float]:
        """Expected score of each bid for seat ``j`` dealt ``dealt``, the bids ``made``
        before it: by the distilled table where it has an entry, else the heuristic's model."""
        h = self.view.hand_size
        fast = _table_mean(self.n, h, self.trump, j == self.order[0], dealt)
        if fast is not None:
            return _normal_values(fast[0], fast[1], h, self.n, made, self.rules)
        return _bid_values(self.trick_probs(j, dealt), h, self.n, made, self.rules)

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


def _normal_values(
    mu: float, var: float, h: int, n: int, made: list[int], rules: Rules
) -> list[float]:
    """:func:`_bid_values` from a trick count's mean and variance alone (a discretized
    normal for the heuristic's sum of Bernoulli variables)."""
    if made and PRESSURE:
        unclaimed = (h - sum(made)) / (n - len(made))
        shift = PRESSURE * (unclaimed - mu)
        mu += max(-PRESSURE_CLIP, min(shift, PRESSURE_CLIP))
    scale = 1.0 / math.sqrt(2.0 * (var + 0.05))
    erf = math.erf
    cdf = [0.0] + [0.5 + 0.5 * erf((t + 0.5 - mu) * scale) for t in range(h)] + [1.0]
    dist = [cdf[t + 1] - cdf[t] for t in range(h + 1)]
    if rules.scoring == "exact":
        return [dist[b] * (10 + b) for b in range(h + 1)]
    return [sum(dist[t] * rules.score(b, t) for t in range(h + 1)) for b in range(h + 1)]


@dataclass(frozen=True, slots=True)
class Outlook:
    """A decision of the search and the deal score it expects of it: the mean, over the
    sampled deals that judged it, of this seat's score for the deal (for a bid the model's
    estimate where only one bid was worth searching); None where no search ran (a forced
    card, or an option the search leaves to the heuristic)."""

    choice: int | None
    expected: float | None


def _legal(h: int, made_total: int, dealer: bool, rules: Rules) -> list[int]:
    forbidden = rules.forbidden_bid(h, made_total) if dealer else None
    return [b for b in range(h + 1) if b != forbidden]


class SearchPlayer:
    """Determinized search with policy rollouts (see the module docstring).

    ``seed`` seeds every decision's own ``random.Random`` (with a digest of the view).
    ``card_budget`` / ``bid_budget``: rollout card plays per decision, which set how many
    sampled deals are searched (between ``min_samples`` and ``max_samples``); None takes the
    default of the path the decision runs on (compiled, or Python for one-card deals).
    """

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        *,
        card_budget: int | None = None,
        bid_budget: int | None = None,
        min_samples: int = MIN_SAMPLES,
        max_samples: int | None = None,
    ) -> None:
        self.seed = seed
        self.card_budget = card_budget
        self.bid_budget = bid_budget
        self.min_samples = min_samples
        self.max_samples = max_samples
        self.heuristic = HeuristicPlayer(seed)

    def _budget(self, given: int | None, fast: bool, card: bool) -> int:
        if given is not None:
            return given
        if fast:
            return FAST_CARD_BUDGET if card else FAST_BID_BUDGET
        return BID_BUDGET  # the Python path: bids on one-card deals only

    def _situation(self, view: SeatView) -> _Situation:
        # A seam for the benchmarks, which measure what more knowledge than the view is worth.
        return _Situation(view)

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
        sample = rng.sample
        for _ in range(total):
            hands = [0] * n
            hands[me] = sit.hand
            free = sit.unseen
            for j in others:
                allowed = free & ~sit.void[j]
                pool = cards_of(allowed)
                k = sit.counts[j]
                if len(pool) < k:  # inconsistent view (cannot happen in a real game)
                    pool = cards_of(free)
                picked = 0
                for c in sample(pool, k):
                    picked |= BITS[c]
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
        before = sit.before(j)
        made = [b for s in before if (b := v.bids[s]) is not None]
        bid = v.bids[j]
        assert bid is not None
        forbidden = sit.rules.forbidden_bid(h, sum(made)) if j == v.dealer else None
        fast = _table_mean(sit.n, h, sit.trump, j == sit.order[0], dealt)
        if fast is not None and sit.rules.scoring == "exact":
            # The same model as below, tabulated: the mean and variance to 1/20 of a trick.
            mu, var = fast
            if made and PRESSURE:
                unclaimed = (h - sum(made)) / (sit.n - len(made))
                mu += max(-PRESSURE_CLIP, min(PRESSURE * (unclaimed - mu), PRESSURE_CLIP))
            e = _exact_weights(h, round(mu * 20.0), round(var * 20.0))
            z = sum(e) - (e[forbidden] if forbidden is not None else 0.0)
            p = e[bid] / z if bid != forbidden else 1e-3
            cache[key] = p
            return p
        values = sit.values(j, dealt, made)
        legal = _legal(h, sum(made), j == v.dealer, sit.rules)
        top = max(values[b] for b in legal)
        z = sum(math.exp((values[b] - top) / TAU) for b in legal)
        p = math.exp((values[bid] - top) / TAU) / z if bid in legal else 1e-3
        cache[key] = p
        return p

    def _race(
        self,
        cands: list[int],
        cost: int,
        budget: int,
        make_deals: Callable[[int], list[list[int]]],
        evaluate: Callable[[list[int], int], float],
        bonus: Callable[[int], float],
        tiebreak: Callable[[int], int],
    ) -> tuple[int, dict[int, float]]:
        """Successive halving: every candidate is scored on a first batch of sampled deals,
        the better half goes on to a fresh batch, and so on until one is left; each round
        spends about the same share of ``budget`` card plays (``cost`` per rollout, and
        ``DEAL_COST`` per sampled deal).
        ``bonus`` adds a prior to a candidate's total; ``tiebreak`` orders equal scores.
        Returns the choice and each candidate's mean score over the deals that judged it."""
        plan = self._plan(len(cands), cost, budget, False)
        rounds = len(plan)
        deals = make_deals(sum(plan))
        alive = list(cands)
        totals = dict.fromkeys(cands, 0.0)
        judged = dict.fromkeys(cands, 0)
        start = 0
        for r, m in enumerate(plan):
            batch = deals[start : start + m]
            for hands in batch:
                for c in alive:
                    totals[c] += evaluate(hands, c)
            for c in alive:
                judged[c] += len(batch)
            start += m
            alive.sort(key=lambda c: (-(totals[c] + bonus(c)), tiebreak(c)))
            if r < rounds - 1:
                alive = alive[: (len(alive) + 1) // 2]
        return alive[0], {c: totals[c] / max(1, judged[c]) for c in cands}

    def _plan(
        self, k: int, cost: int, budget: int, fast: bool, extra_deal_cost: int = 0
    ) -> list[int]:
        """Sampled deals per round of successive halving for ``k`` candidates."""
        rounds = max(1, math.ceil(math.log2(k)))
        top = self.max_samples
        if top is None:
            top = FAST_MAX_SAMPLES if fast else MAX_SAMPLES
        deal_cost = (FAST_DEAL_COST if fast else DEAL_COST) + extra_deal_cost
        plan = []
        for _ in range(rounds):
            m = budget // (rounds * (k * max(1, cost) + deal_cost))
            plan.append(max(self.min_samples, min(top, m)))
            k = (k + 1) // 2
        return plan

    def _race_fast(
        self,
        cands: list[int],
        cost: int,
        budget: int,
        deals: _Sampler,
        run: Callable[[_fast.Arr, _fast.Arr, _fast.Arr, _fast.Arr], None],
        bonus: Callable[[int], float],
        tiebreak: Callable[[int], int],
    ) -> tuple[int, dict[int, float]]:
        """:meth:`_race` with the deals drawn and played out by the compiled kernels:
        ``run(deals, copies, candidates, totals)`` adds each candidate's scores, ``copies``
        times a deal: the sampled deals repeat (the deals that best explain the plays are
        drawn many times), and a rollout's policy is deterministic."""
        from . import _fast

        plan = self._plan(len(cands), cost, budget, True, deals.cost)
        dealt = deals.draw(sum(plan))
        alive = list(cands)
        totals = dict.fromkeys(cands, 0.0)
        judged = dict.fromkeys(cands, 0)
        start = 0
        for r, m in enumerate(plan):
            batch = _fast.floats([0.0] * len(alive))
            chunk = dealt[start : start + m]
            rows, copies = _fast.distinct(chunk)
            run(rows, copies, _fast.ints(alive), batch)
            for c, t in zip(alive, batch.tolist(), strict=True):
                totals[c] += t
                judged[c] += len(chunk)
            start += m
            alive.sort(key=lambda c: (-(totals[c] + bonus(c)), tiebreak(c)))
            if r < len(plan) - 1:
                alive = alive[: (len(alive) + 1) // 2]
        return alive[0], {c: totals[c] / max(1, judged[c]) for c in cands}

    def _sampler(
        self,
        sit: _Situation,
        rng: random.Random,
        tabs: _fast.Arr,
        score: _fast.Arr,
        deep: bool = False,
    ) -> _Sampler:
        """The compiled :meth:`_deals`: ``wanted`` -> an array of deals (a row per deal),
        weighed also by the other seats' plays (:func:`_play_record`) once there are any;
        ``deep``: also find whether the card rule explains those plays (the evidence)."""
        from . import _fast

        n = sit.n
        me = sit.me
        v = sit.view
        others = sorted(
            (j for j in range(n) if j != me and sit.counts[j] > 0),
            key=lambda j: -sit.void[j].bit_count(),
        )
        rows = []
        for j in others:
            bid = v.bids[j]
            if bid is None:
                continue
            made = [b for s in sit.before(j) if (b := v.bids[s]) is not None]
            forbidden = sit.rules.forbidden_bid(v.hand_size, sum(made)) if j == v.dealer else None
            lead = 1 if j == sit.order[0] else 0
            rows.append(
                [j, bid, -1 if forbidden is None else forbidden, sum(made), len(made), lead]
            )
        bidders = _fast.ints(rows, 6)
        st = _fast.ints([rng.getrandbits(32) | 1 for _ in range(4)])
        arrays = (
            _fast.ints(others),
            _fast.ints(sit.counts),
            _fast.ints(sit.void),
            _fast.ints(sit.played_by),
        )

        def deals(wanted: int) -> _fast.Arr:
            return _fast.sample(
                st,
                wanted,
                OVERSAMPLE,
                n,
                me,
                sit.hand,
                sit.unseen,
                *arrays,
                bidders,
                tabs,
                sit.trump,
                v.hand_size,
                score,
                TAU,
            )

        record = _play_record(sit)
        if record is None:
            return _Sampler(deals, 0, _Evidence())
        tmask, law = sit.tmask, sit.law
        evidence = _Evidence()

        def weighed(wanted: int) -> _fast.Arr:
            # Drawn from the bids and voids, then kept in proportion to how well each deal
            # explains the cards the other seats played.
            pool = deals(wanted * PLAY_OVERSAMPLE)
            w = _fast.play_weights(pool, record, tmask, law, n, PLAY_EPS)
            if deep:
                evidence.explained = _fast.explains_all(pool, record, tmask, law, n)
            return _fast.resample(pool, w, wanted, rng.random())

        cost = PLAY_OVERSAMPLE * (FAST_DEAL_COST + len(record[1]) * MODEL_COST)
        return _Sampler(weighed, cost, evidence)

    # ---- bidding ------------------------------------------------------------------------------

    def choose_bid(self, view: SeatView) -> int:
        bid = self.bid_outlook(view).choice
        assert bid is not None
        return bid

    def bid_outlook(self, view: SeatView) -> Outlook:
        """:meth:`choose_bid` with the score it expects from the bid."""
        legal = view.legal_bids
        if len(legal) == 1 or view.hand is None or view.may_bid_blind:
            return Outlook(self.heuristic.choose_bid(view), None)
        sit = self._situation(view)
        me = view.seat
        made = [b for s in sit.before(me) if (b := view.bids[s]) is not None]
        prior = _bid_values(
            sit.trick_probs(me, sit.hand), view.hand_size, view.players, made, view.rules
        )
        candidates = sorted(legal, key=lambda b: (-prior[b], b))[:BID_CANDIDATES]
        if len(candidates) == 1:
            return Outlook(candidates[0], prior[candidates[0]])
        from . import _fast  # numba loads with the first search, not with the engine

        tabs = _fast.suit_tables(view.players, view.hand_size)
        if tabs is None:
            choice, means = self._bid_python(sit, candidates, prior)
        else:
            choice, means = self._bid_fast(sit, candidates, prior, tabs)
        return Outlook(choice, means[choice])

    def bid_means(self, view: SeatView, bids: list[int]) -> dict[int, float]:
        """The mean deal score of each of ``bids`` (legal bids of ``view``'s turn, at most
        two), judged on the same sampled deals: how a review weighs a bid against the
        Expert's."""
        sit = self._situation(view)
        me = view.seat
        made = [b for s in sit.before(me) if (b := view.bids[s]) is not None]
        prior = _bid_values(
            sit.trick_probs(me, sit.hand), view.hand_size, view.players, made, view.rules
        )
        if len(bids) == 1:
            return {bids[0]: prior[bids[0]]}
        from . import _fast

        tabs = _fast.suit_tables(view.players, view.hand_size)
        # Two candidates make one round of the race: both are judged on every deal.
        if tabs is None:
            return self._bid_python(sit, bids, prior)[1]
        return self._bid_fast(sit, bids, prior, tabs)[1]

    def _bid_fast(
        self, sit: _Situation, candidates: list[int], prior: list[float], tabs: _fast.Arr
    ) -> tuple[int, dict[int, float]]:
        """The bid raced on the compiled path (hands the distilled table holds)."""
        from . import _fast

        view = sit.view
        rules = view.rules
        h, n, me = view.hand_size, view.players, view.seat
        score = _fast.score_matrix(rules.score, h)
        fbids = _fast.ints([-1 if x is None else x for x in view.bids])
        order = _fast.ints(sit.order)
        pos = sit.order.index(me)
        seen = sit.seen

        def run(deals: _fast.Arr, copies: _fast.Arr, cs: _fast.Arr, out: _fast.Arr) -> None:
            _fast.eval_bids(
                deals,
                copies,
                cs,
                out,
                fbids,
                order,
                pos,
                me,
                n,
                h,
                sit.trump,
                sit.tmask,
                sit.law,
                seen,
                rules.hook,
                view.dealer,
                tabs,
                score,
                seen.bit_count() + OPPONENT_DEPTH,
            )

        return self._race_fast(
            candidates,
            n * h * LOOK_COST + _model_charge(n, h),
            self._budget(self.bid_budget, True, False),
            self._sampler(sit, self._rng(view), tabs, score),
            run,
            lambda b: PRIOR_WEIGHT * prior[b],
            lambda b: b,
        )

    def _bid_python(
        self, sit: _Situation, candidates: list[int], prior: list[float]
    ) -> tuple[int, dict[int, float]]:
        """The bid raced with the Python sampling (one-card deals: no table entry)."""
        view = sit.view
        rules = view.rules
        h, n, me = view.hand_size, view.players, view.seat
        after = sit.order[sit.order.index(me) + 1 :]
        leader = sit.order[0]

        def evaluate(hands: list[int], b: int) -> float:
            bids = list(view.bids)
            bids[me] = b
            total = sum(x for x in bids if x is not None)
            for j in after:
                done = [x for s in sit.order[: sit.order.index(j)] if (x := bids[s]) is not None]
                values = sit.values(j, hands[j], done)
                options = _legal(h, total, j == view.dealer, rules)
                bj = max(options, key=lambda x: (values[x], -x))
                bids[j] = bj
                total += bj
            need = [x if x is not None else 0 for x in bids]
            got = playout(
                hands.copy(), need, sit.trump, sit.law, n, leader, 0, -1, -1, -1, sit.seen, me
            )
            return float(rules.score(b, got))

        rng = self._rng(view)
        return self._race(
            candidates,
            n * h,
            self._budget(self.bid_budget, False, False),
            lambda m: self._deals(sit, rng, m),
            evaluate,
            lambda b: PRIOR_WEIGHT * prior[b],
            lambda b: b,
        )

    # ---- playing ------------------------------------------------------------------------------

    def choose_card(self, view: SeatView) -> Card | None:
        return self.card_outlook(view).choice

    def card_outlook(self, view: SeatView) -> Outlook:
        """:meth:`choose_card` with the deal score it expects from the card."""
        if view.hand is None:
            return Outlook(None, None)
        legal = view.legal_cards
        if len(legal) <= 1:
            return Outlook(legal[0] if legal else None, None)
        sit = self._situation(view)
        cands = self._distinct(sit, legal)
        if len(cands) == 1:
            return Outlook(cands[0], None)
        need = [
            (b if b is not None else 0) - w for b, w in zip(view.bids, view.tricks_won, strict=True)
        ]
        if need[view.seat] < 0 or need[view.seat] > len(view.hand):
            # The bid is lost: shed the highest card.
            return Outlook(self.heuristic.choose_card(view), None)
        from . import _fast  # numba loads with the first search, not with the engine

        tabs = _fast.suit_tables(view.players, view.hand_size)
        if tabs is None:
            # The distilled table has every hand of two cards or more, and a one-card hand
            # leaves no choice (returned above): not reached.
            return Outlook(self.heuristic.choose_card(view), None)
        choice, means = self._card_fast(sit, cands, need, tabs)
        return Outlook(choice, means[choice])

    def _card_fast(
        self, sit: _Situation, cands: list[Card], need: list[int], tabs: _fast.Arr
    ) -> tuple[Card, dict[int, float]]:
        """The card raced on the compiled path; ``need``: each seat's bid less its tricks."""
        from . import _fast

        view = sit.view
        assert view.hand is not None
        rules = view.rules
        me, n, left = view.seat, view.players, len(view.hand)
        bid = view.bids[me]
        assert bid is not None
        won = view.tricks_won[me]
        trick = view.current_trick
        best_seat, best = _trick_winner(trick, view.trump) if trick else (-1, -1)
        score = _fast.score_matrix(rules.score, view.hand_size)
        scores = _fast.floats([rules.score(bid, won + t, view.blind[me]) for t in range(left + 1)])
        fneed = _fast.ints(need)
        led_mask = SUIT_MASKS[trick[0][1] // 13] if trick else 0
        fvoid = _fast.ints(sit.void)
        deep = left <= DEEP_LEFT
        sampler = self._sampler(sit, self._rng(view), tabs, score, deep)

        def run(deals: _fast.Arr, copies: _fast.Arr, cs: _fast.Arr, out: _fast.Arr) -> None:
            # The rule plays a short ending out only where it explains every other seat's
            # plays: the bet that they play like it loses against seats it does not.
            depth = 52 if deep and sampler.evidence.explained else OPPONENT_DEPTH
            until = sit.seen.bit_count() + 1 + depth
            _fast.eval_cards(
                deals,
                copies,
                cs,
                out,
                fneed,
                me,
                n,
                sit.tmask,
                sit.law,
                len(trick),
                led_mask,
                best,
                best_seat,
                sit.seen,
                scores,
                fvoid,
                until,
            )

        return self._race_fast(
            cands,
            n * left * LOOK_COST + _model_charge(n, left),
            self._budget(self.card_budget, True, True),
            sampler,
            run,
            lambda c: 0.0,
            lambda c: c % 13,
        )

    def _distinct(self, sit: _Situation, legal: tuple[Card, ...]) -> list[Card]:
        """The legal cards less those equivalent to a lower one: cards of a suit with no
        card between them that anyone else may still hold are interchangeable."""
        out: list[Card] = []
        outside = sit.unseen  # and the open trick's cards: they decide this trick
        for _, card in sit.view.current_trick:
            outside |= 1 << card
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


def _model_charge(n: int, left: int) -> int:
    """What a rollout's plays by the heuristic's card rule add to its cost, in plain plays:
    the first ``OPPONENT_DEPTH`` (the deeper ones of a short ending are left out: those
    decisions are the cheapest, and the budget was measured so)."""
    return min(OPPONENT_DEPTH, (n - 1) * left) * MODEL_COST


def _play_record(sit: _Situation) -> _fast.Record | None:
    """The other seats' plays so far, as :func:`._fast.play_weights` reads them: per play the
    seat, the cards seen then, its place in the trick, the led suit's mask, the card winning
    the trick so far and the card played; the cards that seat played from then on; and the
    seats' counts (as masks of that many bits), needs and shown voids then. None: no plays."""
    from . import _fast

    v = sit.view
    n = sit.n
    tricks = [*v.completed_tricks, v.current_trick] if v.current_trick else [*v.completed_tricks]
    seen = 0 if v.turned is None else 1 << v.turned
    for card in v.visible_cards.values():
        seen |= 1 << card
    won = [0] * n
    played = [0] * n
    void = [0] * n
    rows: list[list[int]] = []
    counts: list[list[int]] = []
    needs: list[list[int]] = []
    voids: list[list[int]] = []
    for trick in tricks:
        led_mask = SUIT_MASKS[trick[0][1] // 13]
        best, best_seat = -1, -1
        for i, (seat, card) in enumerate(trick):
            if seat != sit.me:
                rows.append([seat, seen, i, led_mask if i else 0, best, card])
                counts.append([(1 << (v.hand_size - played[s])) - 1 for s in range(n)])
                needs.append([(v.bids[s] or 0) - won[s] for s in range(n)])
                voids.append(void.copy())
            if i == 0 or _beats(card, best, v.trump):
                best, best_seat = card, seat
            seen |= 1 << card
            played[seat] += 1
            if i:
                void[seat] |= shown_void_cached(card, sit.law, led_mask, sit.tmask)
        if len(trick) == n:
            won[best_seat] += 1
    if not rows:
        return None
    order = [(seat, card) for trick in tricks for seat, card in trick]
    later = []
    for k, (seat, _) in enumerate(order):
        if seat != sit.me:
            later.append(sum(1 << c for s, c in order[k:] if s == seat))
    return (
        _fast.ints(rows, 6),
        _fast.ints(later),
        _fast.ints(counts, n),
        _fast.ints(needs, n),
        _fast.ints(voids, n),
    )


def _table_mean(n: int, h: int, trump: int, lead: bool, dealt: int) -> tuple[float, float] | None:
    """Expected trick count of a dealt hand, and its variance, by the distilled table
    (:mod:`.bid_table`); None where the table has no entry (one-card deals, other sizes)."""
    if h not in TABLE.get(n, {}):
        return None
    mu = 0.0
    var = 0.0
    for s in range(4):
        pattern = dealt >> (13 * s) & 0x1FFF
        if pattern:
            m, v = _suit_stats(n, h, lead, s == trump, pattern)
            mu += m
            var += v
    return mu, var


@lru_cache(maxsize=1 << 16)
def _suit_stats(n: int, h: int, lead: bool, trump: bool, pattern: int) -> tuple[float, float]:
    """One suit's share of :func:`_table_mean`: its cards' trick chances (``pattern``: the
    13-bit set of their ranks) summed, and their variances."""
    cells = TABLE[n][h]
    length = pattern.bit_count()
    length = 3 if length > 4 else length - 1
    off = (104 if lead else 0) + (52 if trump else 0) + length
    mu = 0.0
    var = 0.0
    for r in range(13):
        if pattern >> r & 1:
            p = cells[off + r * 4]
            mu += p
            var += p * (1.0 - p)
    return mu, var


@lru_cache(maxsize=1 << 14)
def _exact_weights(h: int, mu20: int, var20: int) -> tuple[float, ...]:
    """The bidder model under exact scoring for a trick count of mean ``mu20 / 20`` and
    variance ``var20 / 20``: ``exp((EV(b) - max EV) / TAU)`` for every bid ``b`` 0..h."""
    mu = mu20 / 20.0
    scale = 1.0 / math.sqrt(2.0 * (var20 / 20.0 + 0.05))
    erf = math.erf
    cdf = [0.0] + [0.5 + 0.5 * erf((t + 0.5 - mu) * scale) for t in range(h)] + [1.0]
    values = [(cdf[b + 1] - cdf[b]) * (10 + b) for b in range(h + 1)]
    top = max(values)
    return tuple(math.exp((v - top) / TAU) for v in values)


# ---- the search's model of a dealt hand (for a game's review) -------------------------------

AVERAGE_HANDS = 600  # random hands that make a seat's average hand (one-card deals: all 52)


@dataclass(frozen=True, slots=True)
class HandOutlook:
    """What the search's bidding model expects of a seat's dealt hand: its mean trick count,
    and the expected deal score of every bid 0..hand size (the bids made before moving it as
    they move the search's own bids)."""

    tricks: float
    values: tuple[float, ...]

    @property
    def best(self) -> float:
        return max(self.values)


def hand_outlook(view: SeatView, *, bids_before: bool = True) -> HandOutlook:
    """The outlook of ``view``'s seat's hand, ``view`` taken at its turn to bid (the hand as
    dealt); with ``bids_before`` False, as if it bid first (no bid known)."""
    sit = _Situation(view)
    me = view.seat
    made = [b for s in sit.before(me) if (b := view.bids[s]) is not None] if bids_before else []
    return HandOutlook(_mean_tricks(sit, me, sit.hand), tuple(sit.values(me, sit.hand, made)))


def average_hand_value(view: SeatView) -> float:
    """The best expected score of an average hand for ``view``'s seat: the mean of
    :func:`hand_outlook`'s best (no bid known) over hands dealt at random from the cards this
    seat could have been dealt, at the same table, deal, trump and position. Deterministic."""
    h = view.hand_size
    lead = view.seat == (view.dealer + 1) % view.players
    key = (view.rules.model_dump_json(), h, view.trump, view.turned, lead)
    cached = _AVERAGES.get(key)
    if cached is not None:
        return cached
    sit = _Situation(view)
    me = view.seat
    deck = [c for c in range(52) if c != view.turned]
    if h == 1:
        hands = [1 << c for c in deck]
    else:
        rng = random.Random(repr(key))
        hands = [_hand_mask(tuple(rng.sample(deck, h))) for _ in range(AVERAGE_HANDS)]
    value = sum(max(sit.values(me, dealt, [])) for dealt in hands) / len(hands)
    _AVERAGES[key] = value
    return value


_AVERAGES: dict[tuple[object, ...], float] = {}


def _mean_tricks(sit: _Situation, j: int, dealt: int) -> float:
    fast = _table_mean(sit.n, sit.view.hand_size, sit.trump, j == sit.order[0], dealt)
    return fast[0] if fast is not None else sum(sit.trick_probs(j, dealt))
