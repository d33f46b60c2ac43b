"""The score chart: each player's cumulative score after each deal, as a PNG.

:func:`score_chart_png` is pure (matplotlib's Agg backend, no display, a figure of its own
that is closed before returning); drawing takes tens of milliseconds, so the bot calls
:func:`score_chart` which runs it in a worker thread, off the event loop. Colours and sizes
are chosen for Discord's dark theme on a phone: a dark background close to Discord's, thick
lines in distinct light colours, large type, the legend outside the lines.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import multiprocessing
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")  # before pyplot is imported anywhere: no display, thread-safe figures

from matplotlib.figure import Figure

BACKGROUND = "#2b2d31"  # Discord's dark theme
TEXT = "#dbdee1"
GRID = "#4e5058"
# Colour-blind-friendly light colours (Okabe–Ito), then a few more for 7 seats.
COLOURS = ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#cc79a7", "#ff6e54", "#ffffff"]
WIDTH, HEIGHT, DPI = 8.0, 5.0, 100  # 800 × 500 pixels


def cumulative_scores(deal_scores: Sequence[Sequence[int]], players: int) -> list[list[int]]:
    """Per player, the running total after each scored deal (``Game.deal_scores``)."""
    totals = [0] * players
    lines: list[list[int]] = [[] for _ in range(players)]
    for scores in deal_scores:
        for seat in range(players):
            totals[seat] += scores[seat]
            lines[seat].append(totals[seat])
    return lines


def legend_name(name: str) -> str:
    """A name the chart's font can draw: the bot's font has no emoji, so the computer's robot
    becomes "(computer)" and other characters outside the Basic Multilingual Plane go."""
    name = name.replace("🤖", "(computer)")
    return "".join(ch for ch in name if ord(ch) <= 0xFFFF).strip() or "?"


def score_figure(names: Sequence[str], cumulative: Sequence[Sequence[int]]) -> Figure:
    """The chart as a matplotlib Figure (one line per player), for tests to inspect."""
    if len(names) != len(cumulative):
        raise ValueError("one list of scores per name")
    figure = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI, facecolor=BACKGROUND)
    axes: Any = figure.add_subplot()
    axes.set_facecolor(BACKGROUND)
    for index, (name, scores) in enumerate(zip(names, cumulative, strict=True)):
        deals = list(range(0, len(scores) + 1))
        axes.plot(
            deals,
            [0, *scores],
            label=legend_name(name)[:18],
            color=COLOURS[index % len(COLOURS)],
            linewidth=3,
            marker="o" if len(scores) <= 15 else None,
            markersize=5,
        )
    axes.set_xlabel("Deal", color=TEXT, fontsize=14)
    axes.set_ylabel("Score", color=TEXT, fontsize=14)
    axes.tick_params(colors=TEXT, labelsize=12)
    axes.grid(True, color=GRID, linewidth=0.8)
    for spine in axes.spines.values():
        spine.set_color(GRID)
    longest = max((len(s) for s in cumulative), default=0)
    axes.set_xlim(0, max(longest, 1))
    axes.xaxis.get_major_locator().set_params(integer=True)
    # The legend above the lines, four names a row: on a phone the chart keeps its width.
    columns = min(len(names), 4) or 1
    rows = -(-len(names) // columns)
    legend = axes.legend(
        loc="lower left",
        bbox_to_anchor=(0.0, 1.01, 1.0, 0.1),
        mode="expand",
        ncol=columns,
        frameon=False,
        fontsize=13,
        labelcolor=TEXT,
        handlelength=1.5,
    )
    for line in legend.get_lines():
        line.set_linewidth(4)
    # Fixed margins rather than tight_layout(), which draws the figure once more to measure
    # it (about 40% of the time).
    figure.subplots_adjust(left=0.09, right=0.97, bottom=0.12, top=0.88 - 0.07 * (rows - 1))
    return figure


def score_chart_png(names: list[str], cumulative: list[list[int]]) -> bytes:
    """The chart as PNG bytes (about 800 × 500 pixels)."""
    figure = score_figure(names, cumulative)
    buffer = io.BytesIO()
    # Light compression: the file is a little larger, and much quicker to write.
    figure.savefig(buffer, format="png", facecolor=BACKGROUND, pil_kwargs={"compress_level": 1})
    figure.clear()
    return buffer.getvalue()


_PROCESS: concurrent.futures.ProcessPoolExecutor | None = None


def chart_process() -> concurrent.futures.ProcessPoolExecutor:
    """One worker process for charts, started on first use ("spawn": the bot's threads and
    database connections are not copied into it). Drawing holds Python's GIL for most of its
    ~100 ms; in a thread of the bot's process that delays the event loop in slices, in a
    process of its own it does not."""
    global _PROCESS
    if _PROCESS is None:
        _PROCESS = concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn")
        )
    return _PROCESS


def shutdown_chart_process() -> None:
    global _PROCESS
    if _PROCESS is not None:
        _PROCESS.shutdown(wait=False, cancel_futures=True)
        _PROCESS = None


async def score_chart(
    names: list[str], cumulative: list[list[int]], *, in_process: bool = False
) -> bytes:
    """:func:`score_chart_png` off the event loop: in a worker thread, or with
    ``in_process`` in the chart process (:func:`chart_process`)."""
    names, cumulative = list(names), [list(s) for s in cumulative]
    if in_process:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(chart_process(), score_chart_png, names, cumulative)
    return await asyncio.to_thread(score_chart_png, names, cumulative)
