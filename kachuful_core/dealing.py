"""Seeded, verifiable shuffles: the first-dealer draw and the deal of every hand.

Each deal is shuffled from its own seed material, derived one-way from the game seed. Its
SHA-256 is the commitment published before the deal; revealing the material after the deal
lets anyone re-run :func:`deal_hands` and check the hands were not arranged, without learning
the game seed and so the deals still to come.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence

from .cards import Card, rank_of

GameSeed = bytes | int | str


def normalize_seed(seed: GameSeed) -> bytes:
    if isinstance(seed, bytes):
        return seed
    if isinstance(seed, int):
        return seed.to_bytes((seed.bit_length() + 8) // 8, "big", signed=True)
    return seed.encode()


def deal_seed(game_seed: bytes, deal_index: int) -> bytes:
    return hashlib.sha256(b"kachuful/deal/%d/" % deal_index + game_seed).digest()


def draw_seed(game_seed: bytes, round_number: int) -> bytes:
    return hashlib.sha256(b"kachuful/draw/%d/" % round_number + game_seed).digest()


def commitment(seed_material: bytes) -> str:
    return hashlib.sha256(seed_material).hexdigest()


def game_commitment(deal_commitments: Sequence[str]) -> str:
    """One commitment to every deal of a game, publishable before the first: SHA-256 of the
    deals' commitments (32 bytes each, in deal order). Once the seeds are revealed, anyone can
    recompute each deal's commitment and this one from them."""
    return hashlib.sha256(b"".join(bytes.fromhex(c) for c in deal_commitments)).hexdigest()


def _stream(seed_material: bytes, count: int) -> tuple[int, ...]:
    # SHAKE-256 is an extendable-output hash: one call gives every word a shuffle needs, and a
    # longer output starts with the shorter one, so running out only means asking for more.
    return struct.unpack(f">{count}I", hashlib.shake_256(seed_material).digest(4 * count))


# Fisher-Yates steps from the top: (position, cards left, rejection limit). A 32-bit word at
# or above the largest multiple of the cards left is skipped, so ``word % left`` is uniform.
_STEPS = tuple((i, 52 - i, 0x100000000 - 0x100000000 % (52 - i)) for i in range(51))


def shuffled_deck(seed_material: bytes, count: int = 52) -> list[Card]:
    """The first ``count`` cards of a uniformly shuffled deck.

    Fisher-Yates from the top: for position i = 0, 1, ..., the card at i is swapped with the
    one at i + (word mod (52 - i)), taking 32-bit big-endian words of SHAKE-256(seed material)
    in order and skipping a word at or above the largest multiple of 52 - i. Every ordered
    selection of cards is equally likely; a deal only draws the cards it needs.
    """
    spare = 4
    while True:
        deck = _draw(_stream(seed_material, count + spare), count)
        if deck is not None:
            return deck
        spare *= 4  # skipped words used up the spares (practically never): draw longer


def _draw(words: tuple[int, ...], count: int) -> list[Card] | None:
    deck = list(range(52))
    stream = iter(words)
    try:
        for i, left, limit in _STEPS[:count]:
            word = next(stream)
            while word >= limit:
                word = next(stream)
            j = i + word % left
            deck[i], deck[j] = deck[j], deck[i]
    except StopIteration:
        return None
    return deck[:count]


def deal_hands(
    seed_material: bytes, players: int, dealer: int, hand_size: int
) -> tuple[list[list[Card]], Card | None]:
    """Deal one card at a time clockwise from the dealer's left; then the next card (if any) is
    the one a "turned" trump would turn."""
    dealt = players * hand_size
    deck = shuffled_deck(seed_material, dealt + 1)
    # Card i goes to the seat i places left of the dealer's left: a stride through the deck.
    hands = [deck[(seat - dealer - 1) % players : dealt : players] for seat in range(players)]
    turned = deck[dealt] if dealt < 52 else None
    return hands, turned


def draw_first_dealer(
    game_seed: bytes, players: int
) -> tuple[tuple[tuple[tuple[int, Card], ...], ...], int]:
    """Every seat draws a card; the highest rank deals. Seats tied on the highest rank draw
    again, among themselves only, from a fresh deck, until one is highest."""
    drawing = list(range(players))
    rounds: list[tuple[tuple[int, Card], ...]] = []
    while True:
        deck = shuffled_deck(draw_seed(game_seed, len(rounds)), len(drawing))
        draws = tuple(zip(drawing, deck, strict=True))
        rounds.append(draws)
        top = max(rank_of(card) for _, card in draws)
        drawing = [seat for seat, card in draws if rank_of(card) == top]
        if len(drawing) == 1:
            return tuple(rounds), drawing[0]


def draw_winner(rounds: list[list[tuple[int, Card]]]) -> int | None:
    """The seat a recorded draw makes first dealer, or None if the rounds do not settle it
    (a redraw must be among exactly the seats tied on the highest rank)."""
    expected: list[int] | None = None
    for number, draws in enumerate(rounds):
        if not draws:
            return None
        seats = [seat for seat, _ in draws]
        if expected is not None and sorted(seats) != expected:
            return None
        top = max(rank_of(card) for _, card in draws)
        expected = sorted(seat for seat, card in draws if rank_of(card) == top)
        if len(expected) == 1:
            return expected[0] if number == len(rounds) - 1 else None
    return None
