"""A fast rule-of-thumb player: a trick probability per card, the bid with the best expected
score, and each card chosen to make the final trick count exact.

The model, all of it from the seat's view (nothing is remembered between calls):

* Every card the seat cannot place (not in its hand, not played, not shown, not turned up) is
  "unseen". An opponent holding ``r`` cards holds a given unseen card of a suit it is not
  known to be void in with probability ``r / (unseen cards of its non-void suits)``. A seat
  is known void in a suit once it failed to follow it.
* :meth:`_Table.future`, each own card's chance of taking a trick in the rest of the deal:
  the better of winning on top (the unseen higher cards of its suit that opponents hold, less
  those its own lower cards can absorb) and winning by length (every opponent out of the
  suit by its round); for a side suit, times the chance of access (the suit is led while the
  card is held: by this seat, which needs the lead, or by others) and the chance of not being
  trumped (an opponent out of the suit by then who holds a trump). Low trumps also take
  tricks by ruffing the side suits the hand is short in, unless overtrumped.
* :meth:`_Table.now`, a card's chance of taking the current trick: it must beat the trick so
  far, then no seat still to play may beat it (a higher card of the led suit, or a trump when
  out of the led suit), weighted by whether that seat still wants tricks.
* Bidding: the trick count is a sum of independent Bernoulli variables, one per card, after a
  linear calibration by trump / side suit and hand size (fitted on self-play; it corrects the
  model's trumps, which it rates too far apart, and its side cards in short hands). The bids
  already made move the expected count a little towards the tricks still unclaimed. The bid is
  the legal one (the hook rule included) with the highest expected score under the table's
  scoring. One-card deals are computed directly, and a forehead deal from the visible cards.
* Playing: for every legal card, the chance that the trick now plus the rest of the hand later
  make exactly the tricks still needed; the best card is played. That one rule wins with the
  card it can best spare while tricks are needed, ducks with the highest card that still loses
  once the bid is made, and throws the most dangerous card when out of the led suit.

The constants below were tuned with ``benchmarks/heuristic_player.py``-style matches.
"""

from __future__ import annotations

import random
from functools import lru_cache

from ..cards import SUIT_MASKS, Card, Suit
from ..game import Phase, Trick
from ..legality import law_of, shown_void_cached
from ..rules import Rules
from ..views import SeatView

FULL = (1 << 52) - 1

GUARD = 0.55  # chance that one own lower card of the suit absorbs one opponent's higher card
RUFF_NOW = 0.8  # weight of an opponent trumping the current trick when out of the led suit
RUFF_FUTURE = 1.3  # weight of an opponent trumping a side card in the tricks to come
INTENT_NEED = 1.0  # an opponent still short of its bid takes a trick it can
INTENT_MADE = 0.3  # an opponent that has made its bid (it may be forced to take one)
INTENT_OVER = 0.6  # an opponent already over its bid
INTENT_UNKNOWN = 0.75  # an opponent yet to bid
FUTURE_INTENT_FLOOR = 0.9  # over a whole deal, most higher cards fall on ours anyway
PRESSURE = 0.2  # pull of the bids already made towards the tricks still unclaimed
PRESSURE_CLIP = 0.5  # at most this many tricks (random bidders would pull too hard)
# Bidding calibration f' = a + b f, by trump / side card; t = 0 for the shortest hands, 1 for
# full ones (hand size times players over 52, rescaled).
CAL_TRUMP_A = (0.09, 0.25)  # a = a0 + a1 t
CAL_TRUMP_B = (1.0, -0.55)  # b = b0 + b1 t
CAL_SIDE_A = (-0.065, 0.065)
CAL_SIDE_B = (1.72, -0.78)


def _binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    q = 1.0 - p
    term = q**n
    total = term
    ratio = p / q
    for i in range(k):
        term *= (n - i) / (i + 1) * ratio
        total += term
    return total if total < 1.0 else 1.0


def _binom_pmfs(n: int, p: float, upto: int) -> list[float]:
    """[P(X = 0), ..., P(X = upto)] for X ~ Binomial(n, p), ``upto <= n``."""
    if p <= 0.0:
        return [1.0] + [0.0] * upto
    if p >= 1.0:
        return [1.0 if m == n else 0.0 for m in range(upto + 1)]
    q = 1.0 - p
    term = q**n
    out = [term]
    ratio = p / q
    for i in range(upto):
        term *= (n - i) / (i + 1) * ratio
        out.append(term)
    return out


def _count_dist(probs: list[float], cap: int) -> list[float]:
    """Distribution of a sum of independent Bernoulli variables: cells 0..cap, and cell
    ``cap + 1`` for every count above ``cap``."""
    dist = [0.0] * (cap + 2)
    dist[0] = 1.0
    top = 0
    for p in probs:
        q = 1.0 - p
        if top <= cap:
            top += 1
        if top == cap + 1:
            dist[cap + 1] += dist[cap] * p
            start = cap
        else:
            start = top
        for t in range(start, 0, -1):
            dist[t] = dist[t] * q + dist[t - 1] * p
        dist[0] *= q
    return dist


@lru_cache(maxsize=16)
def _rules_for_scoring(scoring: str) -> Rules:
    """A rules object that scores like the table (only its scoring is used)."""
    return Rules.model_validate({"players": 3, "scoring": scoring})


def _beats(card: Card, best: Card, trump: Suit | None) -> bool:
    """Whether ``card`` played later takes a trick that ``best`` is winning."""
    return (card // 13 == best // 13 and card > best) or (
        card // 13 == trump and best // 13 != trump
    )


def _trick_winner(trick: Trick | list[tuple[int, Card]], trump: Suit | None) -> tuple[int, Card]:
    win = trick[0]
    for play in trick[1:]:
        if _beats(play[1], win[1], trump):
            win = play
    return win


# A union of whole suits as a 52-bit set -> the same suits as 4 bits (S=1, H=2, D=4, C=8).
_SUITS_OF = {sum(SUIT_MASKS[s] for s in range(4) if bits >> s & 1): bits for bits in range(16)}


def _hand_mask(cards: tuple[Card, ...]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


class _Table:
    """What one decision knows: the unseen cards, who may hold them, who wants tricks."""

    __slots__ = (
        "future_intent",
        "held",
        "intent",
        "leading",
        "me",
        "n",
        "opponents",
        "p",
        "s_unseen",
        "trump",
        "trump_p",
        "unseen",
    )

    def __init__(self, v: SeatView, hand: int) -> None:
        n = v.players
        me = v.seat
        self.n = n
        self.me = me
        self.trump = trump = v.trump
        current = v.current_trick
        # On lead now: the first trick (its leader is known while bidding), or our turn to
        # start a trick.
        self.leading = not current and (
            v.turn == me if v.phase is Phase.PLAYING else v.leader == me
        )
        known = hand
        void = [0] * n  # per seat, a bit per suit it has shown void in
        law = law_of(v.rules)
        tmask = 0 if trump is None else SUIT_MASKS[trump]
        tricks = (*v.completed_tricks, current) if current else v.completed_tricks
        for trick in tricks:
            led_mask = SUIT_MASKS[trick[0][1] // 13]
            for i, (seat, card) in enumerate(trick):
                known |= 1 << card
                if i:  # what the card shows the seat lacks, by the rules of play
                    shown = shown_void_cached(card, law, led_mask, tmask)
                    if shown:
                        void[seat] |= _SUITS_OF[shown]
        for card in v.visible_cards.values():
            known |= 1 << card
        if v.turned is not None:
            known |= 1 << v.turned
        unseen = FULL & ~known
        self.unseen = unseen
        s_unseen = [(unseen & SUIT_MASKS[s]).bit_count() for s in range(4)]
        self.s_unseen = s_unseen
        done = len(v.completed_tricks)
        in_trick = [False] * n
        for seat, _ in current:
            in_trick[seat] = True
        self.opponents = opponents = [j for j in range(n) if j != me]
        p = [[0.0] * 4 for _ in range(n)]
        held = [0] * n
        trump_p = [0.0] * n
        intent = [INTENT_UNKNOWN] * n
        bids = v.bids
        won = v.tricks_won
        for j in opponents:
            held[j] = cards = v.hand_size - done - (1 if in_trick[j] else 0)
            pool = sum(s_unseen[s] for s in range(4) if not void[j] >> s & 1)
            if cards > 0 and pool > 0:
                share = min(cards / pool, 1.0)
                for s in range(4):
                    if not void[j] >> s & 1:
                        p[j][s] = share
            if trump is not None:
                trump_p[j] = 1.0 - (1.0 - p[j][trump]) ** s_unseen[trump]
            bid = bids[j]
            if bid is not None:
                need = bid - won[j]
                intent[j] = INTENT_NEED if need > 0 else INTENT_MADE if need == 0 else INTENT_OVER
        self.p = p
        self.held = held
        self.trump_p = trump_p
        self.intent = intent
        self.future_intent = [max(x, FUTURE_INTENT_FLOOR) for x in intent]

    # ---- the rest of the deal -----------------------------------------------------------

    def future(self, hand: int) -> dict[Card, float]:
        """Each card of ``hand``'s chance of taking a trick some time in the rest of the deal."""
        trump = self.trump
        unseen = self.unseen
        opps = self.opponents
        p = self.p
        fi = self.future_intent
        n = self.n
        out: dict[Card, float] = {}
        left = hand.bit_count()
        # Access: a side card takes a trick only if its suit is led while we hold it, by us
        # (we need the lead) or by others (in proportion to what they hold of the suit).
        my_lead = 1.0 if self.leading else 1.0 - (1.0 - 1.0 / n) ** (left - 1)
        others_leads = (left - 1) * (n - 1) / n + (0.0 if self.leading else 1.0)
        suit_held = [sum(p[j][s] for j in opps) * self.s_unseen[s] for s in range(4)]
        held_total = sum(suit_held) or 1.0
        for s in range(4):
            mine = hand & SUIT_MASKS[s]
            if not mine:
                continue
            s_un = self.s_unseen[s]
            side = trump is not None and s != trump
            if s == trump:
                access_top = access_len = 1.0
            else:
                others_lead = 1.0 - (1.0 - suit_held[s] / held_total) ** others_leads
                access_top = 1.0 - (1.0 - my_lead) * (1.0 - others_lead)
                access_len = my_lead
            q = sum(p[j][s] * fi[j] for j in opps)
            if q > 1.0:
                q = 1.0
            cards = [c for c in range(s * 13 + 12, s * 13 - 1, -1) if mine >> c & 1]
            length = len(cards)
            for i, c in enumerate(cards):
                guards = length - 1 - i
                higher = (unseen & SUIT_MASKS[s] & ~((2 << c) - 1)).bit_count()
                if higher == 0:
                    top = 1.0
                else:
                    top = 0.0
                    absorb = 1.0
                    for pm in _binom_pmfs(higher, q, min(higher, guards)):
                        top += pm * absorb
                        absorb *= GUARD
                by_length = 1.0  # every opponent out of the suit by this card's round
                kept = 1.0  # nobody trumps it
                for j in opps:
                    out_by_then = _binom_cdf(i, s_un, p[j][s])
                    by_length *= out_by_then
                    if side:
                        risk = out_by_then * self.trump_p[j] * RUFF_FUTURE
                        kept *= 1.0 - risk if risk < 1.0 else 0.0
                top *= access_top
                by_length *= access_len
                out[c] = (top if top > by_length else by_length) * kept
        if trump is not None and hand & SUIT_MASKS[trump]:
            self._add_ruffs(hand, out)
        _rank_order(out)
        return out

    def _add_ruffs(self, hand: int, out: dict[Card, float]) -> None:
        """Low trumps take tricks by ruffing the side suits the hand is short in: about as
        often as others lead such a suit once the hand is out of it, unless overtrumped."""
        trump = self.trump
        assert trump is not None
        opps = self.opponents
        suit_held = [sum(self.p[j][s] for j in opps) * self.s_unseen[s] for s in range(4)]
        total = sum(suit_held)
        if total <= 0.0:
            return
        led_by_others = hand.bit_count() * (self.n - 1) / self.n
        budget = 0.0
        for s in range(4):
            if s != trump:
                short = led_by_others * suit_held[s] / total - (hand & SUIT_MASKS[s]).bit_count()
                if short > 0.0:
                    budget += short
        if budget <= 0.0:
            return
        unseen_trumps = self.unseen & SUIT_MASKS[trump]
        for c in sorted((c for c in out if c // 13 == trump), key=lambda c: (out[c], c)):
            if budget <= 0.0:
                break
            # The ruff stands unless a seat holding a higher trump is also out of the suit.
            higher = (unseen_trumps & ~((2 << c) - 1)).bit_count()
            stands = 1.0
            for j in opps:
                out_of_suit = 0.75 ** max(self.held[j] - 1, 0)
                has_higher = 1.0 - (1.0 - self.p[j][trump]) ** higher
                stands *= 1.0 - out_of_suit * has_higher * self.future_intent[j]
            ruff = (budget if budget < 1.0 else 1.0) * stands
            if ruff > out[c]:
                out[c] = ruff
            budget -= 1.0

    # ---- the current trick --------------------------------------------------------------

    def now(self, card: Card, trick: Trick, best: Card | None) -> float:
        """Chance that ``card`` played now takes the current trick (``best`` is the card
        winning it so far, None when leading)."""
        trump = self.trump
        if best is not None:
            if not _beats(card, best, trump):
                return 0.0
            led = trick[0][1] // 13
            after = self.n - 1 - len(trick)
        else:
            led = card // 13
            after = self.n - 1
        if after == 0:
            return 1.0
        suit = card // 13
        higher = (self.unseen & SUIT_MASKS[suit] & ~((2 << card) - 1)).bit_count()
        s_led = self.s_unseen[led]
        keep = 1.0
        for k in range(1, after + 1):
            j = (self.me + k) % self.n
            pj = self.p[j][led]
            if suit == led:
                beat = 1.0 - (1.0 - pj) ** higher
                if trump is not None and led != trump:
                    beat += (1.0 - pj) ** s_led * self.trump_p[j] * RUFF_NOW
            else:  # our trump on a side suit: overtrumped only by a seat out of the suit
                assert trump is not None
                beat = (1.0 - pj) ** s_led * (1.0 - (1.0 - self.p[j][trump]) ** higher)
            beat *= self.intent[j]
            keep *= 1.0 - beat if beat < 1.0 else 0.0
        return keep


def _rank_order(out: dict[Card, float]) -> None:
    """Make each suit's chances fall with rank. A lower card takes no trick that the higher
    cards of its suit in the same hand could not take in its place (the hand chooses the
    order it plays them in), so the estimates of one suit, e.g. a length or ruffing trick
    credited to a low trump, are handed out highest card first: the suit's expected trick
    count stays the same, and no card is rated above a higher card of its suit."""
    for s in range(4):
        cards = sorted((c for c in out if c // 13 == s), reverse=True)
        if len(cards) < 2:
            continue
        chances = [out[c] for c in cards]
        if all(chances[i] >= chances[i + 1] for i in range(len(chances) - 1)):
            continue
        chances.sort(reverse=True)
        for c, f in zip(cards, chances, strict=True):
            out[c] = f


def _calibrate(probs: dict[Card, float], trump: Suit | None, left: int, n: int) -> list[float]:
    t = (left * n / 52 - 0.15) / 0.85
    t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
    a_t = CAL_TRUMP_A[0] + CAL_TRUMP_A[1] * t
    b_t = CAL_TRUMP_B[0] + CAL_TRUMP_B[1] * t
    a_s = CAL_SIDE_A[0] + CAL_SIDE_A[1] * t
    b_s = CAL_SIDE_B[0] + CAL_SIDE_B[1] * t
    out: list[float] = []
    for c, f in probs.items():
        g = a_t + b_t * f if c // 13 == trump else a_s + b_s * f
        out.append(0.0 if g < 0.0 else 1.0 if g > 1.0 else g)
    return out


def trick_chances(view: SeatView) -> dict[Card, float]:
    """Each card of a seen hand of two or more cards, with its calibrated chance of taking a
    trick under this player's model (what its bids are made of)."""
    assert view.hand is not None
    hand = _hand_mask(view.hand)
    raw = _Table(view, hand).future(hand)
    return dict(zip(raw, _calibrate(raw, view.trump, view.hand_size, view.players), strict=True))


def _shift(probs: list[float], shift: float) -> list[float]:
    """Move the expected sum of ``probs`` by ``shift``, spread over the cards."""
    if shift > 0:
        room = sum(1.0 - x for x in probs)
        if room <= 0.0:
            return probs
        f = min(shift / room, 1.0)
        return [x + (1.0 - x) * f for x in probs]
    total = sum(probs)
    if total <= 0.0:
        return probs
    f = min(-shift / total, 1.0)
    return [x * (1.0 - f) for x in probs]


def _one_card_chance(view: SeatView, mine: Card) -> float:
    """A one-card deal: the chance that ``mine`` wins, each other seat's card uniform among
    the unseen cards, the leader's card setting the suit."""
    n = view.players
    trump = view.trump
    known = 1 << mine
    if view.turned is not None:
        known |= 1 << view.turned
    pool = [c for c in range(52) if not known >> c & 1]
    u = len(pool)

    def beaten_by(best: Card) -> int:
        count = sum(1 for c in pool if c // 13 == best // 13 and c > best)
        if trump is not None and best // 13 != trump:
            count += sum(1 for c in pool if c // 13 == trump)
        return count

    if view.seat == (view.dealer + 1) % n:
        return float((1.0 - beaten_by(mine) / u) ** (n - 1))
    against_mine = beaten_by(mine)
    total = 0.0
    for lead in pool:
        if _beats(mine, lead, trump):
            total += (1.0 - against_mine / (u - 1)) ** (n - 2)
    return total / u


def _forehead_chance(view: SeatView) -> float:
    """A forehead deal (one card, our own unseen): the share of the cards we might hold that
    would take the trick against the cards we see."""
    n = view.players
    others = dict(view.visible_cards)
    for seat, card in view.current_trick:
        others[seat] = card
    known = 0
    for card in others.values():
        known |= 1 << card
    if view.turned is not None:
        known |= 1 << view.turned
    order = [(view.leader + k) % n for k in range(n)]
    wins = total = 0
    for mine in range(52):
        if known >> mine & 1:
            continue
        total += 1
        trick = [
            (s, mine if s == view.seat else others[s])
            for s in order
            if s == view.seat or s in others
        ]
        if _trick_winner(trick, view.trump)[0] == view.seat:
            wins += 1
    return wins / total if total else 0.0


class HeuristicPlayer:
    """Bids from per-card trick probabilities and plays to take exactly its bid.

    ``seed`` seeds the player's own ``random.Random`` (kept for tie-breaks; the current rules
    break ties by rank, so its moves do not depend on it). ``blind_max_hand`` (default 0:
    never) makes it bid blind, when the table allows blind bids, in deals of at most that many
    cards. Nothing else is kept between calls.
    """

    name = "heuristic"

    def __init__(self, seed: int = 0, *, blind_max_hand: int = 0) -> None:
        self.rng = random.Random(seed)
        self.blind_max_hand = blind_max_hand

    # ---- bidding ------------------------------------------------------------------------

    def choose_blind(self, view: SeatView) -> bool:
        return view.may_bid_blind and view.hand_size <= self.blind_max_hand

    def choose_bid(self, view: SeatView) -> int:
        legal = view.legal_bids
        if len(legal) == 1:
            return legal[0]
        if view.hand is None:
            if view.visible_cards:  # a forehead deal
                probs = [_forehead_chance(view)]
            else:  # bidding blind: every card an average card
                probs = [1.0 / view.players] * view.hand_size
        elif view.hand_size == 1:
            probs = [_one_card_chance(view, view.hand[0])]
        else:
            probs = list(trick_chances(view).values())
        return self._best_bid(view, probs)

    def _best_bid(self, view: SeatView, probs: list[float]) -> int:
        h = view.hand_size
        made = [b for b in view.bids if b is not None]
        if made and PRESSURE:
            # The tricks not claimed yet, shared among the seats still to bid.
            unclaimed = (h - sum(made)) / (view.players - len(made))
            shift = PRESSURE * (unclaimed - sum(probs))
            shift = max(-PRESSURE_CLIP, min(shift, PRESSURE_CLIP))
            if shift:
                probs = _shift(probs, shift)
        dist = _count_dist(probs, h)
        rules = _rules_for_scoring(view.scoring)
        blind = view.may_bid_blind  # still allowed to bid blind: this bid is blind
        best_bid = view.legal_bids[0]
        best = float("-inf")
        for b in view.legal_bids:
            value = 0.0
            for t in range(h + 1):
                value += dist[t] * rules.score(b, t, blind)
            if value > best + 1e-12:
                best, best_bid = value, b
        return best_bid

    # ---- playing ------------------------------------------------------------------------

    def choose_card(self, view: SeatView) -> Card | None:
        if view.hand is None:
            return None  # a forehead deal: play the unseen card
        legal = view.legal_cards
        if len(legal) <= 1:
            return legal[0] if legal else None
        bid = view.bids[view.seat]
        need = (bid if bid is not None else 0) - view.tricks_won[view.seat]
        if need < 0 or need > len(view.hand):
            # The bid is lost whatever happens: shed the highest card.
            return max(legal, key=lambda c: (c % 13, -c))
        hand = _hand_mask(view.hand)
        table = _Table(view, hand)
        future = table.future(hand)
        trick = view.current_trick
        best = _trick_winner(trick, view.trump)[1] if trick else None
        best_card = legal[0]
        best_chance = -1.0
        for c in legal:
            now = table.now(c, trick, best)
            rest = [f for x, f in future.items() if x != c]
            if need == 0:
                chance = 1.0 - now
                for f in rest:
                    chance *= 1.0 - f
            else:
                dist = _count_dist(rest, need)
                chance = now * dist[need - 1] + (1.0 - now) * dist[need]
            if chance > best_chance + 1e-9 or (
                chance > best_chance - 1e-9 and c % 13 < best_card % 13
            ):
                best_chance, best_card = max(chance, best_chance), c
        return best_card
