"""OpenSpiel side of the engine-throughput benchmark.

Plays random "full games" of Oh Hell with OpenSpiel's ``oh_hell`` game from Python,
the way a user of ``pyspiel`` would: one OpenSpiel game per deal, chance nodes
sampled from ``state.chance_outcomes()``, player decisions chosen uniformly from
``state.legal_actions()``.

A full game is one down-and-up schedule of deals (``hand_sizes``), e.g. for five
players ``[10, 9, ..., 1, 2, ..., 10]`` (19 deals). Each deal is an independent
OpenSpiel game loaded with ``num_tricks_fixed`` = that hand size.

OpenSpiel's ``oh_hell`` turns up a trump card after dealing, so with a 52-card deck
the largest hand is ``(52 - 1) // players``. For 3 and 5 players that equals
``52 // players`` (17 and 10), which is why the comparison is made at those counts.

``pyspiel`` is imported lazily, so this module imports fine without open_spiel.

Command line::

    python benchmarks/openspiel_driver.py --players 5 --games 200 --seed 1
    python benchmarks/openspiel_driver.py --players 3 --games 200 --seed 1 \\
        --chance-sampling uniform
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

INSTALL_HINT = "open_spiel is not installed: pip install -e '.[bench]'"

DECK_SIZE = 52  # oh_hell defaults: num_suits=4, num_cards_per_suit=13


def max_hand_size(players: int, deck_size: int = DECK_SIZE) -> int:
    """Largest hand OpenSpiel's oh_hell allows: one card is kept back as the trump."""
    return (deck_size - 1) // players


def down_and_up(max_hand: int) -> list[int]:
    """Hand sizes for one full game: max_hand down to 1, then back up to max_hand."""
    return list(range(max_hand, 0, -1)) + list(range(2, max_hand + 1))


def _import_pyspiel() -> Any:
    try:
        import pyspiel  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise RuntimeError(INSTALL_HINT) from exc
    return pyspiel


CHANCE_SAMPLING = ("outcomes", "uniform")


def run_openspiel_playouts(
    players: int,
    hand_sizes: list[int],
    games: int,
    seed: int,
    *,
    chance_sampling: str = "outcomes",
) -> dict[str, Any]:
    """Play ``games`` full games of random play and time them.

    Every deal of a full game is one OpenSpiel ``oh_hell`` game with
    ``num_tricks_fixed`` set to that deal's hand size. Player nodes (bids and card
    plays) are resolved with ``rng.choice(state.legal_actions())``; ``decisions``
    counts player actions only. Each deal's ``state.returns()`` is added to a running
    per-player total, as a caller keeping match scores would.

    Chance nodes (number of tricks, dealer, each dealt card, the trump card):

    * ``chance_sampling="outcomes"`` (default): sample from
      ``state.chance_outcomes()`` by its probabilities with ``rng.choices``, the
      generic pattern of OpenSpiel's own examples.
    * ``chance_sampling="uniform"``: ``rng.choice(state.legal_actions())``. Same
      distribution here, since every oh_hell chance node is uniform, but it avoids
      building a list of (action, probability) pairs per dealt card, which otherwise
      dominates the running time.
    """
    pyspiel = _import_pyspiel()

    if chance_sampling not in CHANCE_SAMPLING:
        raise ValueError(f"chance_sampling must be one of {CHANCE_SAMPLING}")
    weighted = chance_sampling == "outcomes"
    if games < 0:
        raise ValueError("games must be >= 0")
    limit = max_hand_size(players)
    for hand in hand_sizes:
        # OpenSpiel 2.0.2 accepts an out-of-range num_tricks_fixed at load time and
        # only fails mid-deal (the deck runs out), so check up front.
        if not 1 <= hand <= limit:
            raise ValueError(f"hand size {hand} out of range for {players} players (1..{limit})")

    # Load each distinct game once (setup, outside the timed region) and reuse it.
    loaded = {
        hand: pyspiel.load_game("oh_hell", {"players": players, "num_tricks_fixed": hand})
        for hand in sorted(set(hand_sizes))
    }
    schedule = [loaded[hand] for hand in hand_sizes]

    rng = random.Random(seed)
    choice = rng.choice  # bound once, as our own driver does
    decisions = 0
    chance_actions = 0
    deals = 0
    totals = [0.0] * players

    start = time.perf_counter()
    for _ in range(games):
        for game in schedule:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    if weighted:
                        actions, probs = zip(*state.chance_outcomes(), strict=True)
                        state.apply_action(rng.choices(actions, weights=probs)[0])
                    else:
                        state.apply_action(choice(state.legal_actions()))
                    chance_actions += 1
                else:
                    state.apply_action(choice(state.legal_actions()))
                    decisions += 1
            for player, points in enumerate(state.returns()):
                totals[player] += points
            deals += 1
    seconds = time.perf_counter() - start

    return {
        "chance_sampling": chance_sampling,
        "games": games,
        "deals": deals,
        "decisions": decisions,
        "chance_actions": chance_actions,
        "seconds": seconds,
        "games_per_sec": games / seconds if seconds > 0 else float("inf"),
        "decisions_per_sec": decisions / seconds if seconds > 0 else float("inf"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument(
        "--max-hand",
        type=int,
        default=None,
        help="largest hand of the down-and-up schedule (default: (52 - 1) // players)",
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--chance-sampling",
        choices=CHANCE_SAMPLING,
        default="outcomes",
        help="how chance nodes are resolved (see run_openspiel_playouts)",
    )
    args = parser.parse_args(argv)

    max_hand = args.max_hand if args.max_hand is not None else max_hand_size(args.players)
    result = run_openspiel_playouts(
        args.players,
        down_and_up(max_hand),
        args.games,
        args.seed,
        chance_sampling=args.chance_sampling,
    )
    result = {"players": args.players, "max_hand": max_hand, **result}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
