"""Computer players against each other and against OpenSpiel's ISMCTS: exact bids, points per
deal, time per decision.

Every match is played on the default profile (four players, 25 deals a game, hook rule on,
exact scoring ``10 + bid`` / 0) with the Kachuful engine as the referee. A seat "kind" is a
level of :data:`kachuful_core.players.LEVELS` (``random``, ``heuristic``, ``search``, ...) or
``ismcts-N``: OpenSpiel's C++ ``ISMCTSBot`` with ``N`` simulations (random-rollout evaluator,
UCT constant 2, unlimited world samples, the most visited action), acting on a mirrored
``oh_hell`` state.

Honest ISMCTS. OpenSpiel 2.0's ``oh_hell`` ``ResampleFromInfostate`` deals the other seats
only the cards they really hold, shuffled among them (the undealt cards never appear in a
sample), so an ``ismcts-N`` seat, given the mirrored state, knows which cards are in play: in
a one-card deal it bids 1 on the ten of trumps when nobody else holds a higher trump and 0
when someone does, ten times out of ten. ``hismcts-N`` is the same bot given honest roots
instead: for every decision, ``HONEST_ROOTS`` states with the other seats' unplayed cards
dealt afresh from the cards the seat cannot place (never a card of a suit a seat has shown
void in), the history replayed; each is searched with ``N`` simulations and the most voted
action is played (so it costs ``HONEST_ROOTS`` times as much). Each of those roots still
fixes which cards are in play for its own simulations, so ``hismcts-N`` is a fair player but
not OpenSpiel's algorithm exactly. ``pismcts-N`` is: OpenSpiel's own Python ``ISMCTSBot`` (a
port of the C++ bot, the same settings) given, through its ``set_resampler`` hook, an honest
deal of the hidden cards at *every* simulation, as Cowling et al.'s ISMCTS samples a
determinization per iteration. ``lpismcts-N`` is that Python bot with OpenSpiel's own
resampling, to check the port against ``ismcts-N``. ``lsearch`` is the opposite measurement:
the ``search`` level told, as ``ismcts-N`` is, which cards the other seats hold between them
(not who holds which), to show what that knowledge is worth; it is not a level, and no seat
in the bot is ever told it.

Mirroring. When a match has an ISMCTS seat, each deal is mirrored into ``oh_hell`` by forcing
its chance outcomes: ``num_tricks_fixed`` = the hand size, the deal's dealer, every dealt card
to its seat (``oh_hell`` deals card ``i`` to player ``i mod n``; a suit is the suit of the
same name, ``oh_hell``'s card being ``rank * 4 + suit`` with suits C D S H), then as the
turned trump card an undealt card of the deal's trump suit, drawn at random.
``oh_hell``'s last bidder may not make the bids add up to the tricks, which is the hook
rule. A deal cannot be mirrored when no card is left to turn up (13-card deals) or when
every card of the trump suit is dealt (no undealt card shows the trump suit; about 30% of
12-card deals and 8% of 11-card deals). Such deals are played by four HeuristicPlayers and
left out of every figure; the count is reported. Matches
without an ISMCTS seat count every deal unless ``--mirrorable-only``.

Figures. Per seat kind: exact-bid rate and points per deal (Kachuful's score) with 95%
intervals that treat a game as the unit (the seats and deals of one game are not
independent: the interval is a cluster-robust one over games). Head to head (``--match h2h``)
plays every deal set twice, the two kinds' seats swapped (A B A B, then B A B A), and reports
the difference in points per deal A - B with a 95% interval over deal sets. Time per decision
(median, p99) is ``time.perf_counter`` around each decision of that kind.

    .venv/bin/python benchmarks/search_player.py --match field --kinds ismcts-1000 --games 100
    .venv/bin/python benchmarks/search_player.py --match field --kinds search --games 100
    .venv/bin/python benchmarks/search_player.py --match h2h --kinds search,ismcts-1000 --games 40
    .venv/bin/python benchmarks/search_player.py --match levels --games 40
    .venv/bin/python benchmarks/search_player.py --match field --kinds hismcts-1000 --max-hand 3
    .venv/bin/python benchmarks/search_player.py --match h2h --kinds search,pismcts-1000 --games 24
    .venv/bin/python benchmarks/search_player.py --quick     # CI smoke run (no OpenSpiel)

``--workers`` plays games in parallel processes (default 1). The last line printed is the
result as JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kachuful_core import Game, Phase, Rules, SeatView  # noqa: E402
from kachuful_core.events import BidPlaced, CardPlayed, DealScored  # noqa: E402
from kachuful_core.players import LEVELS, HeuristicPlayer, act  # noqa: E402
from kachuful_core.players.heuristic import _hand_mask  # noqa: E402
from kachuful_core.players.search import FULL, SearchPlayer, _Situation  # noqa: E402
from kachuful_core.views import view as seat_view  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from heuristic_player import Timed  # noqa: E402

INSTALL_HINT = "open_spiel is not installed: pip install -e '.[bench]'"
PLAYERS = 4


# ---- seats ------------------------------------------------------------------------------


def is_ismcts(kind: str) -> bool:
    return kind.startswith(("ismcts-", "hismcts-", "pismcts-", "lpismcts-"))


def is_honest(kind: str) -> bool:
    return kind.startswith("hismcts-")


def is_python_ismcts(kind: str) -> bool:
    return kind.startswith(("pismcts-", "lpismcts-"))


HONEST_ROOTS = 8  # hismcts-N: root deals per decision, N simulations each, most votes wins


TOLD = "lsearch"


def check_kind(kind: str) -> None:
    if is_ismcts(kind):
        int(kind.split("-", 1)[1])
    elif kind not in LEVELS and kind != TOLD:
        raise SystemExit(
            f"unknown seat kind {kind!r}: one of {[*LEVELS]}, ismcts-N, hismcts-N, pismcts-N,"
            f" lpismcts-N, {TOLD}"
        )


class ToldSearch(SearchPlayer):
    """The search told which cards are in play this deal (``in_play``, set by the match):
    its sampled deals give the other seats only those, as oh_hell's resampling does."""

    name = TOLD

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.in_play = FULL

    def _situation(self, view: SeatView) -> _Situation:
        sit = super()._situation(view)
        sit.unseen &= self.in_play
        return sit


def in_play(game: Game) -> int:
    """The cards dealt this deal, as a bit set."""
    return _hand_mask(tuple(card for hand in game.deals[-1].hands for card in hand))


# ---- OpenSpiel mirroring ------------------------------------------------------------------

# Our suits S H D C (0..3) as oh_hell's (C D S H = 0..3); card = rank * 4 + suit.
OS_SUIT = (2, 3, 1, 0)
_PYSPIEL: Any = None


def pyspiel_module() -> Any:
    global _PYSPIEL
    if _PYSPIEL is None:
        try:
            import pyspiel  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:
            raise SystemExit(INSTALL_HINT) from exc
        _PYSPIEL = pyspiel
    return _PYSPIEL


def os_card(card: int) -> int:
    return (card % 13) * 4 + OS_SUIT[card // 13]


def our_card(action: int) -> int:
    return OS_SUIT.index(action % 4) * 13 + action // 4


def turned_card(hands: tuple[tuple[int, ...], ...], trump: int | None, key: str) -> int | None:
    """The undealt card to turn up in oh_hell, or None when the deal cannot be mirrored: one
    of the undealt cards of the trump suit, drawn by ``key`` (not the lowest, which would tell
    the ISMCTS seats that every lower trump is in play)."""
    if trump is None:
        return None
    dealt = {c for h in hands for c in h}
    spare = [c for c in range(trump * 13, trump * 13 + 13) if c not in dealt]
    if len(dealt) >= 52 or not spare:
        return None
    return random.Random(key).choice(spare)


class Mirror:
    """One deal as an ``oh_hell`` state, kept in step with the Kachuful game."""

    def __init__(self, game: Game, turned: int, games: dict[int, Any]) -> None:
        pyspiel = pyspiel_module()
        h = game.hand_size
        if h not in games:
            games[h] = pyspiel.load_game("oh_hell", {"players": PLAYERS, "num_tricks_fixed": h})
        state = games[h].new_initial_state()
        state.apply_action(h)
        state.apply_action(game.dealer)
        hands = game.deals[-1].hands
        for i in range(h):
            for seat in range(PLAYERS):
                state.apply_action(os_card(hands[seat][i]))
        state.apply_action(os_card(turned))
        assert not state.is_chance_node()
        self.state = state
        self.decks = 52
        self.game = games[h]
        self.hand_size = h
        self.dealer = game.dealer
        self.turned = turned
        self.history: list[int] = []  # the bids and plays applied, oh_hell's actions

    def bid(self, seat: int, bid: int) -> None:
        assert self.state.current_player() == seat
        self.state.apply_action(self.decks + bid)
        self.history.append(self.decks + bid)

    def play(self, seat: int, card: int) -> None:
        assert self.state.current_player() == seat
        self.state.apply_action(os_card(card))
        self.history.append(os_card(card))

    def honest_root(self, view: SeatView, rng: random.Random) -> Any:
        """An ``oh_hell`` state for ``view``'s seat in which the other seats' unplayed cards
        are a fresh deal of the cards this seat cannot place (uniform, never a card of a suit
        a seat has shown void in), the history replayed on it. OpenSpiel 2.0's
        ``oh_hell`` ``ResampleFromInfostate`` only permutes the *actual* unplayed cards of the
        other seats among them, so an ISMCTS bot given the real state knows which cards are
        in play; given this state it knows only a random guess of them."""
        return self.honest_sampler(view, rng)()

    def honest_sampler(self, view: SeatView, rng: random.Random) -> Callable[[], Any]:
        """:meth:`honest_root` as a function drawing a fresh root at each call (what the
        seat knows worked out once, for the many roots of one decision)."""
        n = view.players
        me = view.seat
        assert view.hand is not None
        played: list[list[int]] = [[] for _ in range(n)]
        void: list[set[int]] = [set() for _ in range(n)]
        tricks = [*view.completed_tricks]
        if view.current_trick:
            tricks.append(view.current_trick)
        seen = set(view.hand) | {self.turned}
        for trick in tricks:
            led = trick[0][1] // 13
            for seat, card in trick:
                played[seat].append(card)
                seen.add(card)
                if card // 13 != led:
                    void[seat].add(led)
        unseen = [c for c in range(52) if c not in seen]
        others = sorted((j for j in range(n) if j != me), key=lambda j: -len(void[j]))
        mine = [*view.hand, *played[me]]
        history = [*self.history]

        def root() -> Any:
            hands: list[list[int]] = [[] for _ in range(n)]
            hands[me] = mine
            for _ in range(100):
                pool = unseen.copy()
                rng.shuffle(pool)
                ok = True
                for j in others:
                    k = self.hand_size - len(played[j])
                    got = [c for c in pool if c // 13 not in void[j]][:k]
                    if len(got) < k:
                        ok = False
                        break
                    taken = set(got)
                    pool = [c for c in pool if c not in taken]
                    hands[j] = [*got, *played[j]]
                if ok:
                    break
            state = self.game.new_initial_state()
            state.apply_action(self.hand_size)
            state.apply_action(self.dealer)
            for i in range(self.hand_size):
                for seat in range(n):
                    state.apply_action(os_card(hands[seat][i]))
            state.apply_action(os_card(self.turned))
            for action in history:
                state.apply_action(action)
            return state

        return root


def make_ismcts(simulations: int, seed: int) -> Any:
    pyspiel = pyspiel_module()
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.ISMCTSBot(
        seed,
        evaluator,
        2.0,
        simulations,
        -1,
        pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        False,
        False,
    )


class RandomRollouts:
    """OpenSpiel's Python ``RandomRolloutEvaluator`` (one rollout: uniformly random legal
    actions to the end, the returns; uniform priors), drawing from ``random.Random``: NumPy's
    ``choice`` at every step made a decision take seconds."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def evaluate(self, state: Any) -> Any:
        working = state.clone()
        choice = self.rng.choice
        while not working.is_terminal():
            working.apply_action(choice(working.legal_actions()))
        return working.returns()

    def prior(self, state: Any) -> list[tuple[int, float]]:
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


def make_python_ismcts(simulations: int, seed: int) -> Any:
    """OpenSpiel's own Python ``ISMCTSBot`` (a port of the C++ bot), with the C++ bot's
    settings; :func:`python_ismcts_step` gives it an honest resampler."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts

    return ismcts.ISMCTSBot(
        game=None,  # unused by the bot: every state it searches carries its own game
        evaluator=RandomRollouts(seed),
        uct_c=2.0,
        max_simulations=simulations,
        max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
        random_state=np.random.RandomState(seed),
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    )


def python_ismcts_step(
    bot: Any, mirror: Mirror, view: SeatView, game_seed: int, leaky: bool = False
) -> int:
    """One decision of OpenSpiel's Python ISMCTS, every simulation from a fresh honest deal
    of the hidden cards (:meth:`Mirror.honest_sampler`) through the bot's own resampler hook,
    ``set_resampler``: the C++ bot's algorithm without its view of which cards are in play."""
    rng = random.Random(f"{game_seed}/{view.seat}/{len(mirror.history)}/{view.deal_index}")
    if leaky:  # OpenSpiel's own resampling, for checking the port against the C++ bot
        bot.set_resampler(None)
    else:
        sampler = mirror.honest_sampler(view, rng)
        bot.set_resampler(lambda state, player: sampler())
    return int(bot.step(mirror.state))


def honest_step(bot: Any, mirror: Mirror, view: SeatView, game_seed: int) -> int:
    """The most voted action of ``HONEST_ROOTS`` ISMCTS searches, each from its own honest
    root (:meth:`Mirror.honest_root`); ties go to the lowest action."""
    rng = random.Random(f"{game_seed}/{view.seat}/{len(mirror.history)}/{view.deal_index}")
    votes: dict[int, int] = {}
    for _ in range(HONEST_ROOTS):
        a = bot.step(mirror.honest_root(view, rng))
        votes[a] = votes.get(a, 0) + 1
    return max(votes, key=lambda a: (votes[a], -a))


# ---- one game -------------------------------------------------------------------------------


def new_stats(kinds: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    return {k: {"deals": 0, "exact": 0, "points": 0, "by_hand": {}} for k in kinds}


def count_deal(stats: dict[str, dict[str, Any]], kinds: tuple[str, ...], e: DealScored) -> None:
    """Adds a scored deal to each kind's totals, and to its row for the deal's hand size."""
    hand = str(sum(e.tricks_won))
    for s, k in enumerate(kinds):
        made = int(e.bids[s] == e.tricks_won[s])
        stats[k]["deals"] += 1
        stats[k]["exact"] += made
        stats[k]["points"] += e.scores[s]
        row = stats[k]["by_hand"].setdefault(hand, [0, 0, 0])
        row[0] += 1
        row[1] += made
        row[2] += e.scores[s]


def play_game(
    kinds: tuple[str, ...], game_seed: int, mirrorable_only: bool, max_hand: int | None = None
) -> dict[str, Any]:
    """One game; per kind: deals, exact bids, points, decision times; deals left out."""
    rules = (
        Rules(players=PLAYERS) if max_hand is None else Rules(players=PLAYERS, max_hand=max_hand)
    )
    game = Game.new(rules, seed=game_seed)
    game.opening_events()
    mirror_needed = mirrorable_only or any(is_ismcts(k) for k in kinds)
    times: dict[str, list[float]] = {k: [] for k in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    seats: list[Any] = []
    told: list[ToldSearch] = []
    for seat, kind in enumerate(kinds):
        player_seed = game_seed * 7 + seat
        if is_python_ismcts(kind):
            seats.append(make_python_ismcts(int(kind.split("-", 1)[1]), player_seed % (2**31)))
        elif is_ismcts(kind):
            seats.append(make_ismcts(int(kind.split("-", 1)[1]), player_seed % (2**31)))
        elif kind == TOLD:
            told.append(ToldSearch(player_seed))
            seats.append(Timed(told[-1], times[kind], cpu[kind]))
        else:
            seats.append(Timed(LEVELS[kind](player_seed), times[kind], cpu[kind]))
    stand_in = HeuristicPlayer(0)
    os_games: dict[int, Any] = {}
    stats = new_stats(kinds)
    left_out = 0
    while game.phase is not Phase.FINISHED:
        index = game.deal_index
        for player in told:
            player.in_play = in_play(game)
        turned = turned_card(game.deals[-1].hands, game.trump, f"{game_seed}/{index}")
        counted = turned is not None or not mirror_needed
        mirror = None
        if turned is not None and any(is_ismcts(k) for k in kinds):
            mirror = Mirror(game, turned, os_games)
        if not counted:
            left_out += 1
        while game.phase is not Phase.FINISHED and game.deal_index == index:
            seat = game.turn
            assert seat is not None
            kind = kinds[seat]
            if not counted:
                events = act(game, seat, stand_in)
            elif is_ismcts(kind):
                assert mirror is not None
                cpu0 = time.thread_time()
                start = time.perf_counter()
                if is_python_ismcts(kind):
                    action = python_ismcts_step(
                        seats[seat], mirror, seat_view(game, seat), game_seed, kind.startswith("l")
                    )
                elif is_honest(kind):
                    action = honest_step(seats[seat], mirror, seat_view(game, seat), game_seed)
                else:
                    action = seats[seat].step(mirror.state)
                times[kind].append(time.perf_counter() - start)
                cpu[kind].append(time.thread_time() - cpu0)
                if game.phase is Phase.BIDDING:
                    events = game.bid(seat, action - 52)
                else:
                    events = game.play(seat, our_card(action))
            else:
                events = act(game, seat, seats[seat])
            for e in events:
                if mirror is not None and isinstance(e, BidPlaced):
                    mirror.bid(e.seat, e.bid)
                elif mirror is not None and isinstance(e, CardPlayed):
                    mirror.play(e.seat, e.card)
                elif isinstance(e, DealScored) and counted:
                    count_deal(stats, kinds, e)
        if mirror is not None:
            assert mirror.state.is_terminal()
    return {
        "stats": stats,
        "times": times,
        "cpu": cpu,
        "left_out": left_out,
        "deals": game.num_deals,
    }


Job = tuple[tuple[str, ...], int, bool, int | None]


def _play(args: Job) -> dict[str, Any]:
    return play_game(*args)


# ---- figures --------------------------------------------------------------------------------


def ratio_interval(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    """Ratio sum(y) / sum(x) over games and the half-width of its 95% interval, treating each
    game as one cluster (a cluster-robust, delta-method standard error)."""
    g = len(pairs)
    sx = sum(x for x, _ in pairs)
    sy = sum(y for _, y in pairs)
    if sx == 0:
        return float("nan"), float("nan")
    r = sy / sx
    if g < 2:
        return r, float("nan")
    mean_x = sx / g
    var = sum((y - r * x) ** 2 for x, y in pairs) / (g * (g - 1) * mean_x**2)
    return r, 1.96 * math.sqrt(var)


def mean_interval(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return (values[0] if values else float("nan")), float("nan")
    return statistics.fmean(values), 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]


def summarize(results: list[dict[str, Any]], kinds: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in kinds:
        per_game = [r["stats"][k] for r in results if k in r["stats"]]
        exact, exact_ci = ratio_interval([(g["deals"], g["exact"]) for g in per_game])
        points, points_ci = ratio_interval([(g["deals"], g["points"]) for g in per_game])
        times = sorted(t for r in results for t in r["times"].get(k, []))
        cpu = sorted(t for r in results for t in r["cpu"].get(k, []))
        out[k] = {
            "games": len(per_game),
            "seat_deals": sum(g["deals"] for g in per_game),
            "exact_rate": round(exact, 4),
            "exact_rate_ci95": round(exact_ci, 4),
            "points_per_deal": round(points, 3),
            "points_per_deal_ci95": round(points_ci, 3),
            "decisions": len(times),
            "decision_ms_median": round(statistics.median(times) * 1e3, 3) if times else None,
            "decision_ms_p99": round(percentile(times, 0.99) * 1e3, 3) if times else None,
            "decision_ms_max": round(times[-1] * 1e3, 3) if times else None,
            # Thread CPU time: what one core spends, whatever else the machine is doing.
            "decision_cpu_ms_median": round(statistics.median(cpu) * 1e3, 3) if cpu else None,
            "decision_cpu_ms_p99": round(percentile(cpu, 0.99) * 1e3, 3) if cpu else None,
            "by_hand": by_hand(per_game),
        }
    return out


def by_hand(per_game: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Exact-bid rate and points per deal for each hand size (where the gaps between kinds lie)."""
    rows: dict[int, list[int]] = {}
    for g in per_game:
        for hand, (deals, exact, points) in g.get("by_hand", {}).items():
            row = rows.setdefault(int(hand), [0, 0, 0])
            row[0] += deals
            row[1] += exact
            row[2] += points
    return {
        str(h): {"deals": d, "exact_rate": round(x / d, 3), "points_per_deal": round(p / d, 2)}
        for h, (d, x, p) in sorted(rows.items())
    }


def line(kind: str, f: dict[str, Any]) -> str:
    t = (
        f"median {f['decision_ms_median']:.3f} ms, p99 {f['decision_ms_p99']:.3f} ms"
        f" (CPU median {f['decision_cpu_ms_median']:.3f}, p99 {f['decision_cpu_ms_p99']:.3f})"
        if f["decisions"]
        else "-"
    )
    hands = " ".join(f"{h}:{r['exact_rate']:.0%}" for h, r in f.get("by_hand", {}).items())
    return (
        f"  {kind:<14} {f['seat_deals']:>6} seat-deals  exact {f['exact_rate']:.1%}"
        f" ±{f['exact_rate_ci95']:.1%}  points/deal {f['points_per_deal']:.2f}"
        f" ±{f['points_per_deal_ci95']:.2f}  time/decision {t}"
        + (f"\n  {'':<14} exact by hand size: {hands}" if hands else "")
    )


# ---- matches --------------------------------------------------------------------------------


PROGRESS: list[Path] = []  # --progress: each game's result appended as a JSON line


def run_games(
    jobs: list[tuple[tuple[str, ...], int, bool, int | None]], workers: int
) -> list[dict[str, Any]]:
    if workers <= 1:
        return [_logged(_play(j)) for j in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return [_logged(r) for r in pool.map(_play, jobs, chunksize=1)]


def _logged(result: dict[str, Any]) -> dict[str, Any]:
    for path in PROGRESS:
        with path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(result["stats"]) + "\n")
    return result


def field_match(
    kind: str, games: int, seed: int, workers: int, mirror: bool, max_hand: int | None = None
) -> dict[str, Any]:
    """One seat of ``kind`` (its seat rotating from game to game), three HeuristicPlayers."""
    jobs = []
    for g in range(games):
        kinds = ["heuristic"] * PLAYERS
        kinds[g % PLAYERS] = kind
        if kind == "heuristic":
            kinds = ["heuristic"] * PLAYERS
        jobs.append((tuple(kinds), seed * 100_003 + g, mirror, max_hand))
    results = run_games(jobs, workers)
    if kind == "heuristic":
        return {"results": results, "summary": summarize(results, ["heuristic"])}
    # The three heuristic seats are reported apart from the one seat of ``kind``.
    return {"results": results, "summary": summarize(results, [kind, "heuristic"])}


def h2h_match(
    a: str,
    b: str,
    games: int,
    seed: int,
    workers: int,
    mirror: bool,
    max_hand: int | None = None,
) -> dict[str, Any]:
    """Two seats of ``a`` and two of ``b``, alternating; each deal set twice, seats swapped."""
    jobs = []
    for g in range(games):
        game_seed = seed * 100_003 + g
        jobs.append(((a, b, a, b), game_seed, mirror, max_hand))
        jobs.append(((b, a, b, a), game_seed, mirror, max_hand))
    results = run_games(jobs, workers)
    diffs = []
    for first, second in zip(results[::2], results[1::2], strict=False):
        pa = first["stats"][a]["points"] + second["stats"][a]["points"]
        pb = first["stats"][b]["points"] + second["stats"][b]["points"]
        deals = first["stats"][a]["deals"] + second["stats"][a]["deals"]
        diffs.append((pa - pb) / deals)
    diff, ci = mean_interval(diffs)
    return {
        "results": results,
        "summary": summarize(results, [a, b]),
        "difference": {"a": a, "b": b, "points_per_deal": round(diff, 3), "ci95": round(ci, 3)},
    }


def levels_match(
    levels: list[str], games: int, seed: int, workers: int, mirror: bool
) -> dict[str, Any]:
    """Every pair of kinds head to head (two seats each, seats alternating and swapped)."""
    pairs = {}
    for a, b in itertools.combinations(levels, 2):
        m = h2h_match(a, b, games, seed, workers, mirror)
        pairs[f"{a} vs {b}"] = {"summary": m["summary"], "difference": m["difference"]}
    return {"pairs": pairs}


def summarize_progress(path: Path, match: str, kinds_arg: str | None) -> dict[str, Any]:
    """The figures of the games a --progress file holds (decision times are not kept)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    results = [{"stats": json.loads(x), "times": {}, "cpu": {}} for x in lines if x.strip()]
    kinds = kinds_arg.split(",") if kinds_arg else sorted({k for r in results for k in r["stats"]})
    out: dict[str, Any] = {"match": match, "games": len(results)}
    out["summary"] = summarize(results, kinds)
    if match == "h2h" and len(kinds) == 2:
        a, b = kinds
        diffs = []
        # A deal set whose second seating is not finished is left out.
        for first, second in zip(results[::2], results[1::2], strict=False):
            pa = first["stats"][a]["points"] + second["stats"][a]["points"]
            pb = first["stats"][b]["points"] + second["stats"][b]["points"]
            deals = first["stats"][a]["deals"] + second["stats"][a]["deals"]
            diffs.append((pa - pb) / deals)
        diff, ci = mean_interval(diffs)
        out["deal_sets"] = len(diffs)
        out["difference"] = {
            "a": a,
            "b": b,
            "points_per_deal": round(diff, 3),
            "ci95": round(ci, 3),
        }
    for f in out["summary"].values():
        for key in [k for k in f if k.startswith("decision")]:
            del f[key]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--match", choices=("field", "h2h", "levels"), default="field")
    parser.add_argument(
        "--kinds",
        default=None,
        help="field: kinds to seat one at a time among three heuristics (comma-separated); "
        "h2h: exactly two kinds; levels: the kinds to pair (default: every level)",
    )
    parser.add_argument("--games", type=int, default=None, help="games (deal sets for h2h)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--mirrorable-only",
        action="store_true",
        help="count only deals OpenSpiel's oh_hell can mirror, even without an ISMCTS seat",
    )
    parser.add_argument(
        "--max-hand",
        type=int,
        default=None,
        help="play a shorter schedule (hands of at most this many cards; default: the profile's)",
    )
    parser.add_argument("--quick", action="store_true", help="CI smoke run: seconds, no OpenSpiel")
    parser.add_argument(
        "--progress", type=Path, default=None, help="append each game's figures to this file"
    )
    parser.add_argument(
        "--summarize",
        type=Path,
        default=None,
        help="report the figures of a --progress file (the games finished so far) and exit",
    )
    args = parser.parse_args(argv)
    if args.progress is not None:
        PROGRESS.append(args.progress)
    if args.summarize is not None:
        print(json.dumps(summarize_progress(args.summarize, args.match, args.kinds)))
        return 0

    if args.quick:
        games = args.games if args.games is not None else 1
        kinds = args.kinds.split(",") if args.kinds else [*LEVELS]
        for k in kinds:
            check_kind(k)
        # Short games keep the smoke run to seconds: levels head to head on 3-card schedules.
        out = quick_run(kinds, games, args.seed)
        print(json.dumps(out))
        return 0

    kinds = args.kinds.split(",") if args.kinds else None
    for k in kinds or []:
        check_kind(k)
    mirror = args.mirrorable_only
    out: dict[str, Any] = {"benchmark": "search_player", "match": args.match, "seed": args.seed}
    print(f"default profile, {PLAYERS} players, seed {args.seed}")
    if args.match == "field":
        games = args.games or 100
        out["games"] = games
        out["field"] = {}
        for kind in kinds or ["heuristic", "search"]:
            m = field_match(kind, games, args.seed, args.workers, mirror, args.max_hand)
            left = sum(r["left_out"] for r in m["results"])
            total = sum(r["deals"] for r in m["results"])
            print(
                f"one seat of {kind} among three heuristic, {games} games, "
                f"{left} of {total} deals left out (not mirrorable):"
            )
            for k, f in m["summary"].items():
                print(line(k if k != "heuristic" or kind == "heuristic" else "heuristic x3", f))
            out["field"][kind] = {"summary": m["summary"], "deals_left_out": left, "deals": total}
    elif args.match == "h2h":
        if not kinds or len(kinds) != 2:
            raise SystemExit("--match h2h needs --kinds A,B")
        games = args.games or 40
        m = h2h_match(kinds[0], kinds[1], games, args.seed, args.workers, mirror, args.max_hand)
        left = sum(r["left_out"] for r in m["results"])
        total = sum(r["deals"] for r in m["results"])
        d = m["difference"]
        print(
            f"{kinds[0]} x2 vs {kinds[1]} x2, {games} deal sets x 2 seatings, "
            f"{left} of {total} deals left out (not mirrorable):"
        )
        for k, f in m["summary"].items():
            print(line(k, f))
        print(
            f"  difference {d['a']} - {d['b']}: {d['points_per_deal']:+.3f} ±{d['ci95']:.3f}"
            " points per deal (95%, over deal sets)"
        )
        out.update(
            games=games, summary=m["summary"], difference=d, deals_left_out=left, deals=total
        )
    else:
        games = args.games or 20
        m = levels_match(kinds or [*LEVELS], games, args.seed, args.workers, mirror)
        print(f"levels head to head, {games} deal sets x 2 seatings each:")
        for name, p in m["pairs"].items():
            d = p["difference"]
            print(f" {name}: difference {d['points_per_deal']:+.3f} ±{d['ci95']:.3f}")
            for k, f in p["summary"].items():
                print(line(k, f))
        out.update(games=games, pairs=m["pairs"])
    print(json.dumps(out))
    return 0


def quick_run(kinds: list[str], games: int, seed: int) -> dict[str, Any]:
    """Levels head to head on a short schedule (hands of at most 3 cards), no OpenSpiel."""
    results: dict[str, Any] = {}
    for a, b in itertools.combinations(kinds, 2):
        rs = []
        for g in range(games):
            for seating in ((a, b, a, b), (b, a, b, a)):
                rs.append(play_short_game(seating, seed * 100_003 + g))
        results[f"{a} vs {b}"] = summarize(rs, [a, b])
    return {"benchmark": "search_player", "quick": True, "pairs": results}


def play_short_game(kinds: tuple[str, ...], game_seed: int) -> dict[str, Any]:
    rules = Rules(players=PLAYERS, max_hand=3)
    game = Game.new(rules, seed=game_seed)
    times: dict[str, list[float]] = {k: [] for k in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    seats = [Timed(LEVELS[k](game_seed * 7 + s), times[k], cpu[k]) for s, k in enumerate(kinds)]
    stats = new_stats(kinds)
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        assert seat is not None
        for e in act(game, seat, seats[seat]):
            if isinstance(e, DealScored):
                count_deal(stats, kinds, e)
    return {"stats": stats, "times": times, "cpu": cpu, "left_out": 0, "deals": game.num_deals}


if __name__ == "__main__":
    sys.exit(main())
