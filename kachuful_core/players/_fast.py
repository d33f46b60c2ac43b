"""The search player's inner loops compiled by numba: sampling and weighing deals, and the
rollouts of card and bid candidates.

The rollout policy lives here alone (:mod:`.search`'s one-card path calls :func:`playout`
too); the bidder model is :mod:`.search`'s Python one, written in the subset of Python numba
compiles (int64 bit sets, NumPy arrays). Interpreted (``NUMBA_DISABLE_JIT=1``)
the functions run as plain Python and give the same answers, which the tests check; compiled
they run about fifty times faster, and that speed is what buys the search its budget.

Random numbers come from a xorshift128 generator kept in four 32-bit words of an int64
array, seeded from the decision's own ``random.Random``: every value stays below 2**38, so
interpreted and compiled arithmetic agree bit for bit.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.extending import intrinsic, overload

from ..legality import __file__ as legality_file
from ..legality import legal_mask, shown_void
from .bid_table import TABLE
from .heuristic import (
    FUTURE_INTENT_FLOOR,
    GUARD,
    INTENT_MADE,
    INTENT_NEED,
    INTENT_OVER,
    PRESSURE,
    PRESSURE_CLIP,
    RUFF_FUTURE,
    RUFF_NOW,
)
from .heuristic import _binom_cdf as heuristic_binom_cdf

F = TypeVar("F", bound=Callable[..., Any])
Arr = Any  # a NumPy array (numba's signatures, not mypy's, type these)
Record = tuple[Arr, Arr, Arr, Arr, Arr]  # the other seats' plays: see play_weights

FULL = (1 << 52) - 1
M32 = 0xFFFFFFFF
SUIT = np.array([0x1FFF << (13 * s) for s in range(4)], dtype=np.int64)


def _jit(f: F) -> F:
    return cast(F, njit(cache=True, nogil=True)(f))


# ---- bit counting: int methods interpreted, LLVM's intrinsics compiled ------------------------


def bit_length(x: int) -> int:
    return int(x).bit_length()


def popcount(x: int) -> int:
    return int(x).bit_count()


@intrinsic
def _ctlz(typingctx: Any, x: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@overload(bit_length)
def _bit_length_jit(x: int) -> Any:
    def impl(x: int) -> int:
        return 64 - _ctlz(np.int64(x))  # type: ignore[call-arg]

    return impl


@overload(popcount)
def _popcount_jit(x: int) -> Any:
    def impl(x: int) -> int:
        return _ctpop(np.int64(x))  # type: ignore[call-arg]

    return impl


# ---- the rules of play: kachuful_core.legality's own functions, compiled ----------------------
# Compiled code calls legal_mask and shown_void by name, as interpreted code does; numba
# compiles the legality module's source for them (one copy of the rule), and the rules in force
# come in as data: ``law``, the game's kachuful_core.legality.law_of.


@overload(legal_mask, jit_options={"nogil": True})
def _legal_mask_jit(hand: int, law: int, led_mask: int, tmask: int) -> Any:
    return legal_mask


@overload(shown_void, jit_options={"nogil": True})
def _shown_void_jit(card: int, law: int, led_mask: int, tmask: int) -> Any:
    return shown_void


@_jit
def low_card(m: int) -> int:
    return bit_length(m & -m) - 1


# ---- random numbers -------------------------------------------------------------------------


@_jit
def _next(st: Arr) -> int:
    t = st[0] ^ ((st[0] << 11) & M32)
    st[0] = st[1]
    st[1] = st[2]
    st[2] = st[3]
    w = st[3]
    w = w ^ (w >> 19) ^ (t ^ (t >> 8))
    st[3] = w
    return int(w)


@_jit
def _below(st: Arr, k: int) -> int:
    return (_next(st) * k) >> 32


# ---- the rollout policy (the same as search.py's) ------------------------------------------


@_jit
def rank_high(mask: int, tmask: int) -> int:
    best = -1
    best_key = -1
    for s in range(4):
        sm = mask & SUIT[s]
        if sm:
            c = bit_length(sm) - 1
            key = (c - 13 * s) * 2 + (1 if sm & tmask else 0)
            if key > best_key:
                best_key = key
                best = c
    return best


@_jit
def rank_low(mask: int, tmask: int) -> int:
    side = mask & ~tmask
    m = side if side else mask
    best = -1
    best_key = 99
    for s in range(4):
        sm = m & SUIT[s]
        if sm:
            c = low_card(sm)
            key = c - 13 * s
            if key < best_key:
                best_key = key
                best = c
    return best


@_jit
def danger(mask: int, tmask: int) -> int:
    best = -1
    best_key = -1
    for s in range(4):
        sm = mask & SUIT[s]
        if sm:
            c = bit_length(sm) - 1
            key = c - 13 * s + (4 if sm & tmask else 0)
            if key > best_key:
                best_key = key
                best = c
    return best


@_jit
def lead(h: int, nd: int, tmask: int, seen: int) -> int:
    left = popcount(h)
    if nd < 0 or nd > left:
        return rank_high(h, tmask)
    if nd == 0:
        return rank_low(h, tmask)
    if nd == left:
        return rank_high(h, tmask)
    outside = FULL & ~(seen | h)
    trump_boss = -1
    short = -1
    short_len = 99
    for s in range(4):
        sm = h & SUIT[s]
        if not sm:
            continue
        top = bit_length(sm) - 1
        boss = not (outside & SUIT[s] & ~((2 << top) - 1))
        if sm & tmask:
            if boss:
                trump_boss = top
            continue
        if boss:
            return top
        k = popcount(sm)
        if k < short_len:
            short_len = k
            short = low_card(sm)
    if trump_boss >= 0:
        return trump_boss
    if short >= 0:
        return short
    return bit_length(h) - 1


@_jit
def follow(
    h: int, nd: int, tmask: int, law: int, seen: int, last: bool, led_mask: int, best: int
) -> int:
    legal = legal_mask(h, law, led_mask, tmask)
    fol = legal & led_mask
    above = FULL & ~((2 << best) - 1)
    bm = SUIT[best // 13]
    if bm == tmask:
        win = legal & tmask & above
    else:
        win = legal & bm & above
        if not fol:
            win |= legal & tmask
    left = popcount(h)
    if nd < 0 or nd > left:
        return rank_high(legal, tmask)
    if nd > 0 and tmask:
        mine = h & tmask
        top_out = bit_length(tmask & ~(seen | h))
        if top_out:
            sure = popcount(mine >> top_out)
            beaten = win & mine & ~((1 << top_out) - 1)
        else:
            sure = popcount(mine)
            beaten = win & mine
        if sure >= nd and not beaten:
            nd = 0  # the sure trumps will make the bid: duck with the rest
    if nd > 0:
        if win:
            if last or not fol:
                return low_card(win)
            # The cheapest card no unplayed card of the suit beats, else the highest.
            outside = FULL & ~(seen | h) & led_mask
            sm = win
            while sm:
                low = sm & -sm
                c = bit_length(low) - 1
                if not outside & ~((2 << c) - 1):
                    return c
                sm ^= low
            return bit_length(win) - 1
        if fol:
            return low_card(fol)
        return rank_low(legal, tmask)
    lose = legal & ~win
    if lose:
        return bit_length(lose) - 1 if fol else danger(lose, tmask)
    if last:
        return bit_length(win) - 1 if fol else danger(win, tmask)
    return low_card(win)


@_jit
def _policy(
    h: int,
    nd: int,
    tmask: int,
    law: int,
    seen: int,
    n: int,
    in_trick: int,
    led_mask: int,
    best: int,
) -> int:
    """The rollout policy's card for a seat holding ``h`` that still needs ``nd`` tricks."""
    if in_trick == 0:
        return lead(h, nd, tmask, seen)
    return follow(h, nd, tmask, law, seen, in_trick == n - 1, led_mask, best)


@_jit
def _choose(
    hands: Arr,
    need: Arr,
    void: Arr,
    tmask: int,
    law: int,
    seen: int,
    n: int,
    turn: int,
    me: int,
    in_trick: int,
    led_mask: int,
    best: int,
    until: int,
    w: Arr,
) -> int:
    """``turn``'s card in a rollout: :func:`model_card` for the other seats while fewer than
    ``until`` cards are seen, else the policy."""
    h = hands[turn]
    if turn == me or popcount(seen) >= until:
        return _policy(h, need[turn], tmask, law, seen, n, in_trick, led_mask, best)
    return model_card(h, turn, n, hands, need, void, tmask, law, seen, in_trick, led_mask, best, w)


@_jit
def _shows_void(
    void: Arr,
    turn: int,
    card: int,
    in_trick: int,
    led_mask: int,
    tmask: int,
    law: int,
    seen: int,
    until: int,
) -> None:
    """Mark ``turn`` void in what ``card`` shows it lacks (the led suit, if it does not follow
    it), while the model still plays (fewer than ``until`` cards seen): the model reads every
    seat's voids."""
    if in_trick and popcount(seen) < until:
        void[turn] |= shown_void(card, law, led_mask, tmask)


@_jit
def _play(
    hands: Arr,
    need: Arr,
    tmask: int,
    n: int,
    turn: int,
    in_trick: int,
    led_mask: int,
    best: int,
    best_seat: int,
    seen: int,
    card: int,
) -> tuple[int, int, int, int, int, int]:
    """``turn`` plays ``card`` (``hands``, ``need`` changed in place): the next seat to play,
    and ``in_trick``, ``led_mask``, ``best``, ``best_seat``, ``seen`` after it. ``in_trick``
    comes back 0 when the card ended the trick, whose winner is then ``best_seat``."""
    if in_trick == 0:
        led_mask = SUIT[card // 13]
        best = card
        best_seat = turn
    else:
        bm = SUIT[best // 13]
        cm = SUIT[card // 13]
        if (cm == bm and card > best) or (cm == tmask and bm != tmask):
            best = card
            best_seat = turn
    bit = 1 << card
    hands[turn] ^= bit
    seen |= bit
    in_trick += 1
    if in_trick == n:
        need[best_seat] -= 1
        return best_seat, 0, led_mask, best, best_seat, seen
    return (turn + 1 if turn + 1 < n else 0), in_trick, led_mask, best, best_seat, seen


@_jit
def playout(
    hands: Arr,
    need: Arr,
    tmask: int,
    law: int,
    n: int,
    turn: int,
    in_trick: int,
    led_mask: int,
    best: int,
    best_seat: int,
    seen: int,
    me: int,
    void: Arr,
    until: int,
    w: Arr,
) -> int:
    """The tricks ``me`` takes from here to the end of the deal (``hands``, ``need`` and
    ``void``, the suits each seat has shown void in, are changed in place): every seat plays
    :func:`lead` or :func:`follow` for what it still needs (its bid less its tricks), but
    while fewer than ``until`` cards are seen the other seats play :func:`model_card`
    (``w``: its working space)."""
    mine = 0
    while hands[turn]:
        card = _choose(
            hands, need, void, tmask, law, seen, n, turn, me, in_trick, led_mask, best, until, w
        )
        _shows_void(void, turn, card, in_trick, led_mask, tmask, law, seen, until)
        turn, in_trick, led_mask, best, best_seat, seen = _play(
            hands, need, tmask, n, turn, in_trick, led_mask, best, best_seat, seen, card
        )
        if in_trick == 0 and best_seat == me:
            mine += 1
    return mine


@_jit
def playout_look(
    hands: Arr,
    need: Arr,
    tmask: int,
    law: int,
    n: int,
    turn: int,
    in_trick: int,
    led_mask: int,
    best: int,
    best_seat: int,
    seen: int,
    me: int,
    scratch: Arr,
    void: Arr,
    until: int,
    w: Arr,
) -> int:
    """:func:`playout`, but at each of ``me``'s turns each legal card is tried by a policy
    playout on this deal and the first that lands the bid exactly is played (the policy's
    own card first; those playouts are the policy's alone). ``scratch``: 3 x n int64 of
    working space."""
    mine = 0
    while hands[turn]:
        h = hands[turn]
        nd = need[turn]
        card = _choose(
            hands, need, void, tmask, law, seen, n, turn, me, in_trick, led_mask, best, until, w
        )
        if turn == me and nd >= 0 and popcount(h) > 1:
            m = legal_mask(h, law, led_mask if in_trick else 0, tmask)
            c = card
            while not _lands(
                hands,
                need,
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
                c,
                scratch,
                w,
            ):
                m &= ~(1 << c)
                if not m:
                    c = card  # none lands it: the policy's card
                    break
                c = low_card(m)
            card = c
        _shows_void(void, turn, card, in_trick, led_mask, tmask, law, seen, until)
        turn, in_trick, led_mask, best, best_seat, seen = _play(
            hands, need, tmask, n, turn, in_trick, led_mask, best, best_seat, seen, card
        )
        if in_trick == 0 and best_seat == me:
            mine += 1
    return mine


@_jit
def _lands(
    hands: Arr,
    need: Arr,
    tmask: int,
    law: int,
    n: int,
    turn: int,
    in_trick: int,
    led_mask: int,
    best: int,
    best_seat: int,
    seen: int,
    me: int,
    card: int,
    scratch: Arr,
    w: Arr,
) -> bool:
    """Whether ``turn`` playing ``card`` now, then the policy for everyone, ends with its
    bid made exactly."""
    hs = scratch[0]
    nd = scratch[1]
    for s in range(n):
        hs[s] = hands[s]
        nd[s] = need[s]
    nxt, in_trick, led_mask, best, best_seat, seen = _play(
        hs, nd, tmask, n, turn, in_trick, led_mask, best, best_seat, seen, card
    )
    playout(
        hs, nd, tmask, law, n, nxt, in_trick, led_mask, best, best_seat, seen, me, scratch[2], 0, w
    )
    return bool(nd[turn] == 0)


# ---- the bidder model -----------------------------------------------------------------------


@_jit
def _suit_tables(cells: Arr) -> Arr:
    """Per (lead, trump suit, 13-bit rank pattern): the suit's summed trick chances and
    their variance, from one hand size's row of the distilled table."""
    out = np.zeros((2, 2, 2, 8192))
    for ld in range(2):
        for tr in range(2):
            for pattern in range(1, 8192):
                length = popcount(pattern)
                length = 3 if length > 4 else length - 1
                off = ld * 104 + tr * 52 + length
                mu = 0.0
                var = 0.0
                for r in range(13):
                    if pattern >> r & 1:
                        p = cells[off + r * 4]
                        mu += p
                        var += p * (1.0 - p)
                out[0, ld, tr, pattern] = mu
                out[1, ld, tr, pattern] = var
    return out


_TABLES: dict[tuple[int, int], Arr] = {}


def suit_tables(n: int, h: int) -> Arr | None:
    """:func:`_suit_tables` for ``n`` players and ``h`` cards, None where the distilled table
    has no entry (one-card deals)."""
    key = (n, h)
    hit = _TABLES.get(key)
    if hit is None:
        row = TABLE.get(n, {}).get(h)
        if row is None:
            return None
        hit = _TABLES[key] = _suit_tables(np.array(row, dtype=np.float64))
    return hit


def ints(values: list[int] | list[list[int]], cols: int = 0) -> Arr:
    """An int64 array of ``values``, or of rows of ``cols`` values (none: shape (0, cols))."""
    out = np.array(values, dtype=np.int64)
    return out.reshape(len(values), cols) if cols else out


def distinct(deals: Arr) -> tuple[Arr, Arr]:
    """The distinct rows of ``deals``, and how many times each occurs (as floats)."""
    rows, copies = np.unique(deals, axis=0, return_counts=True)
    return rows, copies.astype(np.float64)


def floats(values: list[float]) -> Arr:
    return np.array(values, dtype=np.float64)


def score_matrix(score: Callable[[int, int], int], h: int) -> Arr:
    """``score(bid, tricks)`` for every bid and trick count 0..h."""
    return np.array([[score(b, t) for t in range(h + 1)] for b in range(h + 1)], dtype=np.float64)


@_jit
def _stats(tabs: Arr, dealt: int, ld: int, trump: int) -> tuple[float, float]:
    mu = 0.0
    var = 0.0
    for s in range(4):
        pattern = (dealt >> (13 * s)) & 0x1FFF
        if pattern:
            tr = 1 if s == trump else 0
            mu += tabs[0, ld, tr, pattern]
            var += tabs[1, ld, tr, pattern]
    return mu, var


@_jit
def _values(
    mu: float, var: float, h: int, n: int, made_sum: int, made_cnt: int, score: Arr, out: Arr
) -> None:
    """Expected score of every bid 0..h into ``out``: a discretized normal trick count, the
    bids made before pulling its mean as the heuristic does."""
    if made_cnt > 0:
        unclaimed = (h - made_sum) / (n - made_cnt)
        shift = PRESSURE * (unclaimed - mu)
        mu += max(-PRESSURE_CLIP, min(shift, PRESSURE_CLIP))
    scale = 1.0 / math.sqrt(2.0 * (var + 0.05))
    prev = 0.0
    for b in range(h + 1):
        out[b] = 0.0
    for t in range(h + 1):
        cdf = 1.0 if t == h else 0.5 + 0.5 * math.erf((t + 0.5 - mu) * scale)
        d = cdf - prev
        prev = cdf
        for b in range(h + 1):
            out[b] += d * score[b, t]


@_jit
def _likelihood(
    mu: float,
    var: float,
    h: int,
    n: int,
    made_sum: int,
    made_cnt: int,
    bid: int,
    forbidden: int,
    score: Arr,
    buf: Arr,
    tau: float,
) -> float:
    """P(a seat bid ``bid`` | its trick count's mean and variance): a bid is picked with
    probability proportional to exp(EV / tau)."""
    if bid == forbidden:
        return 1e-3
    _values(mu, var, h, n, made_sum, made_cnt, score, buf)
    top = -1e300
    for b in range(h + 1):
        if b != forbidden and buf[b] > top:
            top = buf[b]
    z = 0.0
    for b in range(h + 1):
        if b != forbidden:
            z += math.exp((buf[b] - top) / tau)
    return math.exp((buf[bid] - top) / tau) / z


# ---- sampling -------------------------------------------------------------------------------


@_jit
def resample(deals: Arr, weights: Arr, wanted: int, u0: float) -> Arr:
    """``wanted`` rows of ``deals`` drawn in proportion to ``weights`` (systematic resampling
    from the offset ``u0`` in [0, 1)); no weight at all: the first ``wanted`` rows."""
    total = 0.0
    for i in range(deals.shape[0]):
        total += weights[i]
    out = np.empty((wanted, deals.shape[1]), dtype=np.int64)
    if total <= 0.0:
        out[:, :] = deals[:wanted]
        return out
    step = total / wanted
    u = u0 * step
    acc = 0.0
    k = 0
    for i in range(deals.shape[0]):
        acc += weights[i]
        while u < acc and k < wanted:
            out[k] = deals[i]
            u += step
            k += 1
    while k < wanted:
        out[k] = deals[deals.shape[0] - 1]
        k += 1
    return out


@_jit
def sample(
    st: Arr,
    wanted: int,
    oversample: int,
    n: int,
    me: int,
    hand: int,
    unseen: int,
    others: Arr,
    counts: Arr,
    void: Arr,
    played_by: Arr,
    bidders: Arr,
    tabs: Arr,
    trump: int,
    h: int,
    score: Arr,
    tau: float,
) -> Arr:
    """``wanted`` deals of the unseen cards (rows: every seat's hand), drawn by the bidder
    model's weights from ``oversample`` times as many void-consistent candidates.

    ``bidders`` rows: seat, bid, forbidden bid (-1: none), sum and count of the bids made
    before it, whether it led."""
    nb = bidders.shape[0]
    total = wanted * oversample if nb else wanted
    cands = np.zeros((total, n), dtype=np.int64)
    weights = np.ones(total)
    pool = np.zeros(52, dtype=np.int64)
    buf = np.zeros(h + 1)
    # The likelihoods by the trick count's mean and variance to 1/20 of a trick, as met.
    memo = np.full((max(nb, 1), 20 * h + 1, 5 * h + 2), -1.0)
    for i in range(total):
        cands[i, me] = hand
        free = unseen
        for j in others:
            allowed = free & ~void[j]
            k = counts[j]
            if popcount(allowed) < k:  # an inconsistent view (cannot happen in a real game)
                allowed = free
            size = 0
            m = allowed
            while m:
                low = m & -m
                pool[size] = bit_length(low) - 1
                size += 1
                m ^= low
            picked = 0
            for x in range(k):
                r = x + _below(st, size - x)
                c = pool[r]
                pool[r] = pool[x]
                pool[x] = c
                picked |= 1 << c
            cands[i, j] = picked
            free &= ~picked
        w = 1.0
        for q in range(nb):
            j = bidders[q, 0]
            mu, var = _stats(tabs, cands[i, j] | played_by[j], bidders[q, 5], trump)
            mu20 = min(max(int(mu * 20.0 + 0.5), 0), 20 * h)
            var20 = min(max(int(var * 20.0 + 0.5), 0), 5 * h + 1)
            p = memo[q, mu20, var20]
            if p < 0.0:
                p = _likelihood(
                    mu20 / 20.0,
                    var20 / 20.0,
                    h,
                    n,
                    bidders[q, 3],
                    bidders[q, 4],
                    bidders[q, 1],
                    bidders[q, 2],
                    score,
                    buf,
                    tau,
                )
                memo[q, mu20, var20] = p
            w *= p
        weights[i] = w
    if not nb:
        return cands
    # Systematic resampling: kept deals in proportion to their weights.
    return resample(cands, weights, wanted, _next(st) / 4294967296.0)


# ---- evaluating candidates ------------------------------------------------------------------


@_jit
def eval_cards(
    deals: Arr,
    mult: Arr,
    cands: Arr,
    totals: Arr,
    need0: Arr,
    me: int,
    n: int,
    tmask: int,
    law: int,
    in_trick: int,
    led_mask: int,
    best0: int,
    best_seat0: int,
    seen0: int,
    scores: Arr,
    void0: Arr,
    until: int,
) -> None:
    """Add to ``totals[i]`` the seat's deal score after playing ``cands[i]`` on each deal,
    ``mult[d]`` times (the deal's copies among the sampled ones); ``scores[t]``: the score
    for ``t`` more tricks from here. ``void0``: the suits each seat has shown void in; the
    other seats play :func:`model_card` until ``until`` cards are seen."""
    hs = np.zeros(n, dtype=np.int64)
    need = np.zeros(n, dtype=np.int64)
    void = np.zeros(n, dtype=np.int64)
    w = np.zeros(128)
    scratch = np.zeros((3, n), dtype=np.int64)
    for d in range(deals.shape[0]):
        for i in range(cands.shape[0]):
            for s in range(n):
                hs[s] = deals[d, s]
                need[s] = need0[s]
                void[s] = void0[s]
            _shows_void(void, me, cands[i], in_trick, led_mask, tmask, law, seen0, until)
            turn, it, lm, b, bs, seen = _play(
                hs, need, tmask, n, me, in_trick, led_mask, best0, best_seat0, seen0, cands[i]
            )
            got = 1 if it == 0 and bs == me else 0
            got += playout_look(
                hs, need, tmask, law, n, turn, it, lm, b, bs, seen, me, scratch, void, until, w
            )
            totals[i] += mult[d] * scores[got]


@_jit
def eval_bids(
    deals: Arr,
    mult: Arr,
    cands: Arr,
    totals: Arr,
    bids0: Arr,
    order: Arr,
    pos: int,
    me: int,
    n: int,
    h: int,
    trump: int,
    tmask: int,
    law: int,
    seen: int,
    hook: bool,
    dealer: int,
    tabs: Arr,
    score: Arr,
    until: int,
) -> None:
    """Add to ``totals[i]`` the seat's deal score for bidding ``cands[i]`` on each deal,
    ``mult[d]`` times (the deal's copies among the sampled ones): the
    seats after it (``order[pos + 1:]``) bid their best under the bidder model's values, the
    deal is played out (the other seats by :func:`model_card` until ``until`` cards are
    seen). ``bids0``: the bids made (-1: none yet)."""
    hs = np.zeros(n, dtype=np.int64)
    need = np.zeros(n, dtype=np.int64)
    void = np.zeros(n, dtype=np.int64)
    w = np.zeros(128)
    buf = np.zeros(h + 1)
    scratch = np.zeros((3, n), dtype=np.int64)
    leader = order[0]
    for d in range(deals.shape[0]):
        for i in range(cands.shape[0]):
            b = cands[i]
            total = 0
            for s in range(n):
                need[s] = bids0[s] if bids0[s] >= 0 else 0
                hs[s] = deals[d, s]
                void[s] = 0
            need[me] = b
            for q in range(pos + 1):
                total += need[order[q]]
            for q in range(pos + 1, n):
                j = order[q]
                mu, var = _stats(tabs, hs[j], 1 if q == 0 else 0, trump)
                _values(mu, var, h, n, total, q, score, buf)
                forbidden = h - total if hook and j == dealer else -1
                bj = -1
                top = -1e300
                for x in range(h + 1):
                    if x != forbidden and buf[x] > top:
                        top = buf[x]
                        bj = x
                need[j] = bj
                total += bj
            got = playout_look(
                hs, need, tmask, law, n, leader, 0, 0, -1, -1, seen, me, scratch, void, until, w
            )
            totals[i] += mult[d] * score[b, got]


# ---- inference from the other seats' plays -------------------------------------------------
# The heuristic's card rule, compiled: the likelihood of a sampled deal given what the other
# seats played (they are modelled as HeuristicPlayers, whose choices the rule matches).


_binom_cdf = _jit(heuristic_binom_cdf)


@_jit
def _of_suit(s: int, x0: float, x1: float, x2: float, x3: float) -> float:
    """The one of four per-suit values (kept in locals: numba allocates no array for them)."""
    return x0 if s == 0 else x1 if s == 1 else x2 if s == 2 else x3


@_jit
def _top_chance(higher: int, q: float, guards: int) -> float:
    """Sum over k <= guards of P(k of the ``higher`` cards are held against us) GUARD**k."""
    if higher == 0 or q <= 0.0:
        return 1.0
    if q >= 1.0:
        return GUARD**higher if guards >= higher else 0.0
    qq = 1.0 - q
    term = qq**higher
    total = term
    ratio = q / qq
    absorb = 1.0
    top = guards if guards < higher else higher
    for i in range(top):
        term *= (higher - i) / (i + 1) * ratio
        absorb *= GUARD
        total += term * absorb
    return total


@_jit
def model_card(
    h: int,
    me: int,
    n: int,
    hands: Arr,
    need: Arr,
    void: Arr,
    tmask: int,
    law: int,
    seen: int,
    in_trick: int,
    led_mask: int,
    best: int,
    w: Arr,
) -> int:
    """The card a bid-seeking player plays, :class:`.heuristic.HeuristicPlayer`'s card rule
    on what the seat knows (its hand, the cards seen, the seats' counts, needs and shown
    voids): the legal card with the best chance that this trick plus the rest of the hand
    make exactly the tricks still needed. ``w``: at least 128 floats of working space."""
    legal = legal_mask(h, law, led_mask if in_trick else 0, tmask)
    left = popcount(h)
    nd = need[me]
    if nd < 0 or nd > left:
        return rank_high(legal, 0)
    if not legal & (legal - 1):
        return low_card(legal)
    unseen = FULL & ~(seen | h)
    trump = -1
    for s in range(4):
        if SUIT[s] == tmask:
            trump = s
    # w[0:52]: each own card's chance of a trick later; w[52:68]: a count distribution;
    # w[68 + 4k + s]: seat me + k's chance of holding a given unseen card of suit s;
    # w[100 + k]: its wish to take tricks; w[108 + k]: its chance of holding a trump.
    s_un0 = popcount(unseen & SUIT[0])
    s_un1 = popcount(unseen & SUIT[1])
    s_un2 = popcount(unseen & SUIT[2])
    s_un3 = popcount(unseen & SUIT[3])
    t_un = popcount(unseen & tmask)
    suit_held0 = 0.0
    suit_held1 = 0.0
    suit_held2 = 0.0
    suit_held3 = 0.0
    for k in range(1, n):
        j = me + k if me + k < n else me + k - n
        cards = popcount(hands[j])
        vj = void[j]
        pool = 0
        if not vj & SUIT[0]:
            pool += s_un0
        if not vj & SUIT[1]:
            pool += s_un1
        if not vj & SUIT[2]:
            pool += s_un2
        if not vj & SUIT[3]:
            pool += s_un3
        share = min(cards / pool, 1.0) if cards > 0 and pool > 0 else 0.0
        for s in range(4):
            w[68 + 4 * k + s] = 0.0 if vj & SUIT[s] else share
        suit_held0 += w[68 + 4 * k] * s_un0
        suit_held1 += w[69 + 4 * k] * s_un1
        suit_held2 += w[70 + 4 * k] * s_un2
        suit_held3 += w[71 + 4 * k] * s_un3
        nj = need[j]
        w[100 + k] = INTENT_NEED if nj > 0 else (INTENT_MADE if nj == 0 else INTENT_OVER)
        w[108 + k] = 1.0 - (1.0 - w[68 + 4 * k + trump]) ** t_un if trump >= 0 else 0.0
    held_total = suit_held0 + suit_held1 + suit_held2 + suit_held3
    if held_total <= 0.0:
        held_total = 1.0
    leading = in_trick == 0
    my_lead = 1.0 if leading else 1.0 - (1.0 - 1.0 / n) ** (left - 1)
    others_leads = (left - 1) * (n - 1) / n + (0.0 if leading else 1.0)
    # ---- each own card's chance of a trick later (the heuristic's future())
    for s in range(4):
        mine = h & SUIT[s]
        if not mine:
            continue
        s_un = popcount(unseen & SUIT[s])
        side = tmask != 0 and s != trump
        if s == trump:
            access_top = 1.0
            access_len = 1.0
        else:
            held_s = _of_suit(s, suit_held0, suit_held1, suit_held2, suit_held3)
            others_lead = 1.0 - (1.0 - held_s / held_total) ** others_leads
            access_top = 1.0 - (1.0 - my_lead) * (1.0 - others_lead)
            access_len = my_lead
        q = 0.0
        for k in range(1, n):
            fi = w[100 + k] if w[100 + k] > FUTURE_INTENT_FLOOR else FUTURE_INTENT_FLOOR
            q += w[68 + 4 * k + s] * fi
        if q > 1.0:
            q = 1.0
        length = popcount(mine)
        i = 0
        m = mine
        while m:
            c = bit_length(m) - 1
            m ^= 1 << c
            higher = popcount(unseen & SUIT[s] & ~((2 << c) - 1))
            top = _top_chance(higher, q, length - 1 - i) * access_top
            by_length = access_len
            kept = 1.0
            for k in range(1, n):
                out_by_then = _binom_cdf(i, s_un, w[68 + 4 * k + s])
                by_length *= out_by_then
                if side:
                    risk = out_by_then * w[108 + k] * RUFF_FUTURE
                    kept *= 1.0 - risk if risk < 1.0 else 0.0
            w[c] = (top if top > by_length else by_length) * kept
            i += 1
    # low trumps ruff the side suits the hand is short in (the heuristic's _add_ruffs)
    if trump >= 0 and h & tmask and held_total > 0.0:
        led_by_others = left * (n - 1) / n
        budget = 0.0
        for s in range(4):
            if s != trump:
                held_s = _of_suit(s, suit_held0, suit_held1, suit_held2, suit_held3)
                short = led_by_others * held_s / held_total - popcount(h & SUIT[s])
                if short > 0.0:
                    budget += short
        m = h & tmask
        while m and budget > 0.0:
            # the trumps by their chance so far, the least first
            c = -1
            r = m
            while r:
                x = low_card(r)
                r ^= 1 << x
                if c < 0 or w[x] < w[c]:
                    c = x
            m ^= 1 << c
            higher = popcount(unseen & tmask & ~((2 << c) - 1))
            stands = 1.0
            for k in range(1, n):
                j = me + k if me + k < n else me + k - n
                out_of_suit = 0.75 ** max(popcount(hands[j]) - 1, 0)
                has_higher = 1.0 - (1.0 - w[68 + 4 * k + trump]) ** higher
                fi = w[100 + k] if w[100 + k] > FUTURE_INTENT_FLOOR else FUTURE_INTENT_FLOOR
                stands *= 1.0 - out_of_suit * has_higher * fi
            ruff = (budget if budget < 1.0 else 1.0) * stands
            if ruff > w[c]:
                w[c] = ruff
            budget -= 1.0
    # a suit's chances fall with rank (the heuristic's _rank_order)
    for s in range(4):
        m = h & SUIT[s]
        while m & (m - 1):
            c = bit_length(m) - 1
            m ^= 1 << c
            lower = m
            while lower:
                d = bit_length(lower) - 1
                lower ^= 1 << d
                if w[d] > w[c]:
                    x = w[c]
                    w[c] = w[d]
                    w[d] = x
    # ---- the current trick (the heuristic's now()) and the choice
    after = n - 1 - in_trick
    best_card = -1
    best_chance = -1.0
    m = legal
    while m:
        c = low_card(m)
        m ^= 1 << c
        suit = c // 13
        cm = SUIT[suit]
        if in_trick:
            bm = SUIT[best // 13]
            beats = (cm == bm and c > best) or (cm == tmask and bm != tmask)
            lead_mask = led_mask
        else:
            beats = True
            lead_mask = cm
        if not beats:
            now = 0.0
        elif after == 0:
            now = 1.0
        else:
            higher = popcount(unseen & cm & ~((2 << c) - 1))
            s_led = popcount(unseen & lead_mask)
            led_s = 0
            for s in range(4):
                if SUIT[s] == lead_mask:
                    led_s = s
            keep = 1.0
            for k in range(1, after + 1):
                pj = w[68 + 4 * k + led_s]
                if cm == lead_mask:
                    beat = 1.0 - (1.0 - pj) ** higher
                    if trump >= 0 and lead_mask != tmask:
                        beat += (1.0 - pj) ** s_led * w[108 + k] * RUFF_NOW
                else:
                    beat = (1.0 - pj) ** s_led * (1.0 - (1.0 - w[68 + 4 * k + trump]) ** higher)
                beat *= w[100 + k]
                keep *= 1.0 - beat if beat < 1.0 else 0.0
            now = keep
        if nd == 0:
            chance = 1.0 - now
            r = h ^ (1 << c)
            while r:
                x = low_card(r)
                r ^= 1 << x
                chance *= 1.0 - w[x]
        else:
            for t in range(nd + 2):
                w[52 + t] = 0.0
            w[52] = 1.0
            top = 0
            r = h ^ (1 << c)
            while r:
                x = low_card(r)
                r ^= 1 << x
                px = w[x]
                qx = 1.0 - px
                if top <= nd:
                    top += 1
                if top == nd + 1:
                    w[52 + nd + 1] += w[52 + nd] * px
                    start = nd
                else:
                    start = top
                for t in range(start, 0, -1):
                    w[52 + t] = w[52 + t] * qx + w[52 + t - 1] * px
                w[52] *= qx
            chance = now * w[52 + nd - 1] + (1.0 - now) * w[52 + nd]
        if chance > best_chance + 1e-9 or (chance > best_chance - 1e-9 and c % 13 < best_card % 13):
            best_chance = max(chance, best_chance)
            best_card = c
    return best_card


PLAY_MISSES = 3


@_jit
def _makes(hand: int, r: int, record: Record, tmask: int, law: int, n: int, w: Arr) -> bool:
    """Whether :func:`model_card` makes play ``r`` of the ``record`` (see
    :func:`play_weights`) for its seat holding ``hand`` now (``w``: its working space)."""
    plays, later, counts, needs, voids = record
    card = model_card(
        hand | later[r],
        plays[r, 0],
        n,
        counts[r],
        needs[r],
        voids[r],
        tmask,
        law,
        plays[r, 1],
        plays[r, 2],
        plays[r, 3],
        plays[r, 4],
        w,
    )
    return bool(card == plays[r, 5])


@_jit
def play_weights(deals: Arr, record: Record, tmask: int, law: int, n: int, eps: float) -> Arr:
    """Each deal's weight by the plays the other seats made. ``record`` is ``(plays, later,
    counts, needs, voids)``: per play its seat, the cards seen, its trick position, the led
    suit mask, the winning card and the card played; the cards that seat played from that
    play on; and the seats' counts (as masks of that many bits), needs and shown voids at
    that time. A deal counts ``eps`` for every play that :func:`model_card` would not have
    made from the hand the deal gives that seat then (its cards now plus ``later``); the
    misses are counted up to ``PLAY_MISSES``."""
    plays = record[0]
    w = np.zeros(128)
    out = np.ones(deals.shape[0])
    for d in range(deals.shape[0]):
        p = 1.0
        misses = 0
        for r in range(plays.shape[0]):
            if not _makes(deals[d, plays[r, 0]], r, record, tmask, law, n, w):
                p *= eps
                misses += 1
                if misses == PLAY_MISSES:
                    break  # all but never drawn now: the other plays need not be asked
        out[d] = p
    return out


@_jit
def _explains_seat(hand: int, j: int, record: Record, tmask: int, law: int, n: int, w: Arr) -> bool:
    """Whether :func:`model_card` makes every play of seat ``j`` in the ``record`` for it
    holding ``hand`` now (true of a seat that has not played)."""
    plays = record[0]
    for r in range(plays.shape[0]):
        if plays[r, 0] == j and not _makes(hand, r, record, tmask, law, n, w):
            return False
    return True


@_jit
def explains_all(deals: Arr, record: Record, tmask: int, law: int, n: int) -> bool:
    """Whether, for every seat, some deal of ``deals`` gives it a hand from which
    :func:`model_card` makes all of its plays in the ``record`` (as :func:`play_weights`
    reads it): a heuristic seat passes on a deal with its real hand, most other players fail on
    every deal before long."""
    w = np.zeros(128)
    for j in range(n):
        found = False
        for d in range(deals.shape[0]):
            if _explains_seat(deals[d, j], j, record, tmask, law, n, w):
                found = True
                break
        if not found:
            return False
    return True


# ---- the cache and the rules of play ---------------------------------------------------------


def _drop_stale_cache() -> None:
    """numba's disk cache is checked against this file only, but the compiled code holds
    kachuful_core/legality.py's functions too: the legality module's digest is kept beside the
    cache, and when it differs the cached code of this module is dropped (and compiled again
    at its first call), so a rule of play changed there reaches the playouts."""
    source = Path(legality_file).read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    try:
        folder = Path(low_card._cache._cache_path)  # type: ignore[attr-defined]
        stamp = folder / "_fast.legality.sha256"
        if stamp.is_file() and stamp.read_text() == digest:
            return
        for cached in (*folder.glob("_fast.*.nbi"), *folder.glob("_fast.*.nbc")):
            cached.unlink(missing_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except (AttributeError, OSError):
        pass  # no cache (or a read-only one, built from this very source): nothing to drop


_drop_stale_cache()
