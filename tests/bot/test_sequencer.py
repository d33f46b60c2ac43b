"""Publishing order: tickets taken under the table lock are published in that order."""

from __future__ import annotations

import asyncio

from bot.tables import Sequencer


async def test_publishes_in_ticket_order_whatever_the_arrival() -> None:
    seq = Sequencer()
    tickets = [seq.take() for _ in range(4)]
    published: list[int] = []

    async def publisher(ticket: int, delay: float) -> None:
        await asyncio.sleep(delay)
        await seq.wait(ticket)
        published.append(ticket)
        await seq.finish(ticket)

    delays = (0.03, 0.0, 0.02, 0.01)
    await asyncio.gather(*(publisher(t, d) for t, d in zip(tickets, delays, strict=True)))
    assert published == tickets


async def test_a_lost_ticket_does_not_freeze_the_table() -> None:
    seq = Sequencer()
    lost = seq.take()  # taken, never published
    later = seq.take()
    await seq.wait(later, timeout=0.05)
    await seq.finish(later)
    assert lost == 0
    third = seq.take()
    await asyncio.wait_for(seq.wait(third), timeout=1)


async def test_a_ticket_given_up_on_leaves_nothing_behind() -> None:
    """A slow publisher that finishes after it was given up on must not stay remembered
    (one entry per slow post would pile up for the life of the table)."""
    seq = Sequencer()
    slow = seq.take()
    later = seq.take()
    await seq.wait(later, timeout=0.01)
    await seq.finish(later)
    await seq.finish(slow)  # it got through in the end
    assert seq._finished == set()
    await asyncio.wait_for(seq.wait(seq.take()), timeout=1)
