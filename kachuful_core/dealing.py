"""Seeded, verifiable shuffles: the first-dealer draw and the deal of every hand.

Each deal is shuffled from its own seed material, derived one-way from the game seed. Its
SHA-256 is the commitment published before the deal; revealing the material after the deal
lets anyone re-run :func:`deal_hands` and check the hands were not arranged, without learning
the game seed and so the deals still to come.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

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


def _words(seed_material: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(seed_material + counter.to_bytes(8, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        counter += 1


def shuffled_deck(seed_material: bytes) -> list[Card]:
    """Fisher-Yates over a SHA-256 counter stream; rejection keeps every order equally likely."""
    deck = list(range(52))
    words = _words(seed_material)
    for i in range(51, 0, -1):
        bound = i + 1
        limit = (1 << 32) - (1 << 32) % bound
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % bound
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_hands(
    seed_material: bytes, players: int, dealer: int, hand_size: int
) -> tuple[list[list[Card]], Card | None]:
    """Deal one card at a time clockwise from the dealer's left; then the next card (if any) is
    the one a "turned" trump would turn."""
    deck = shuffled_deck(seed_material)
    hands: list[list[Card]] = [[] for _ in range(players)]
    for i in range(players * hand_size):
        hands[(dealer + 1 + i) % players].append(deck[i])
    dealt = players * hand_size
    turned = deck[dealt] if dealt < len(deck) else None
    return hands, turned


def draw_first_dealer(
    game_seed: bytes, players: int
) -> tuple[tuple[tuple[tuple[int, Card], ...], ...], int]:
    """Every seat draws a card; the highest rank deals. Seats tied on the highest rank draw
    again, among themselves only, from a fresh deck, until one is highest."""
    drawing = list(range(players))
    rounds: list[tuple[tuple[int, Card], ...]] = []
    while True:
        deck = shuffled_deck(draw_seed(game_seed, len(rounds)))
        draws = tuple(zip(drawing, deck, strict=False))
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
