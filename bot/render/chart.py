"""The score chart: each player's cumulative score after each deal, as a PNG.

:func:`score_chart_png` draws with matplotlib's Agg backend (no display) on a figure kept by
the thread that draws: its axes are styled once, and each chart changes only the lines, the
names and the limits. The bot calls :func:`score_chart`, which runs it on the one chart
thread (:func:`chart_thread`), off the event loop: matplotlib is imported there, at the first
chart, and that thread's figure and font caches serve every chart after it. Colours and
sizes are chosen for Discord's dark theme on a phone: a dark background close to Discord's,
thick lines in distinct light colours, large type, the names above the lines in their lines'
colours.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import multiprocessing
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.i18n import N_, Translations

if TYPE_CHECKING:
    from matplotlib.figure import Figure

BACKGROUND = "#2b2d31"  # Discord's dark theme
TEXT = "#dbdee1"
GRID = "#4e5058"
# Colour-blind-friendly light colours (Okabe–Ito), then a few more for 7 seats.
# The axes' titles, translated by the caller: chart_labels(tr).
CHART_LABELS = (N_("Deal"), N_("Score"))


def chart_labels(tr: Translations) -> tuple[str, str]:
    return tr.gettext(CHART_LABELS[0]), tr.gettext(CHART_LABELS[1])


COLOURS = ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#cc79a7", "#ff6e54", "#ffffff"]
# On a phone Discord shows an embed's image about 280 px wide (a 400 px screen less the avatar
# gutter and the embed's padding, measured in SimCord's preview of Discord); on a computer at
# most 400 px. The chart is laid out for the phone, 300 × 250, with sizes in
# points equal to pixels there (72 points to the inch), and drawn at 2.5 times that for sharp
# lines on phones' dense screens: 750 × 625 pixels.
INLINE_WIDTH, INLINE_HEIGHT = 300, 250
SCALE = 2.5
WIDTH, HEIGHT, DPI = INLINE_WIDTH / 72, INLINE_HEIGHT / 72, 72 * SCALE
# Type sizes in pixels at 300 px wide: 12 px at least where the image is 280 px wide
# (Discord's own small text, such as timestamps, is 12 px).
TICK_SIZE, TITLE_SIZE, NAME_SIZE = 13, 13, 13.5
LEGEND_MARK = "━ "  # before each name, in its line's colour
NAME_CHARS = 20  # longest name shown in the legend (then cut to fit its column)
LEGEND_LEFT, LEGEND_RIGHT = 4 / INLINE_WIDTH, 1.0
ROW_HEIGHT = 17 / INLINE_HEIGHT  # a legend row, as a fraction of the height
LEFT, RIGHT, BOTTOM, TOP = 44 / INLINE_WIDTH, 0.96, 36 / INLINE_HEIGHT, 0.98
DIGIT = 0.66  # a digit's or the minus sign's width, in ems (DejaVu Sans: 0.64 and 0.84)
TITLE_GAP = 26  # pixels left of the score labels: the "Score" title and the tick marks


DEVANAGARI_FONT = Path(__file__).parent / "fonts" / "Lohit-Devanagari.ttf"


def legend_names(figure: Figure) -> list[str]:
    """The names shown above the lines, in order (for tests)."""
    return [
        str(t.get_text())[len(LEGEND_MARK) :]
        for t in figure.texts
        if t.get_gid() == "legend" and t.get_visible()
    ]


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
    becomes a gear (⚙, a sign in no language: an English "(computer)" read wrong on a Hindi
    chart, and a long word cut the names of a full table) and other characters outside the
    Basic Multilingual Plane go."""
    name = name.replace("🤖", "⚙")
    return "".join(ch for ch in name if ord(ch) <= 0xFFFF).strip() or "?"


class _Chart:
    """A figure with its axes styled once, drawn again for each chart: only the lines, the
    legend and the limits change. Making the figure (its axes, spines and tick objects) was
    about a third of a chart's time, and every object it made was more work for Python's
    garbage collector. One per thread (:func:`_chart`): figures are not shared between
    threads."""

    def __init__(self) -> None:
        # Imported here, on the thread that draws: importing matplotlib takes a few hundred
        # milliseconds, which the event loop must not wait for.
        import matplotlib

        matplotlib.use("Agg")  # no display (only the Agg canvas is used anyway)
        from matplotlib import font_manager

        # Devanagari after DejaVu Sans, for Hindi labels and names (bot/render/fonts).
        font_manager.fontManager.addfont(str(DEVANAGARI_FONT))
        devanagari = font_manager.FontProperties(fname=DEVANAGARI_FONT).get_name()
        matplotlib.rcParams["font.family"] = [matplotlib.rcParams["font.sans-serif"][0], devanagari]
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI, facecolor=BACKGROUND)
        self.canvas = FigureCanvasAgg(self.figure)
        axes: Any = self.figure.add_subplot()
        axes.set_facecolor(BACKGROUND)
        # Axis titles at fixed places (an axis label is placed again at every draw, from the
        # measured tick labels).
        self.deal_title = self.figure.text(
            (LEFT + RIGHT) / 2,
            4 / INLINE_HEIGHT,
            CHART_LABELS[0],
            color=TEXT,
            fontsize=TITLE_SIZE,
            ha="center",
            va="bottom",
        )
        self.score_title = self.figure.text(
            3 / INLINE_WIDTH,
            0.5,
            CHART_LABELS[1],
            color=TEXT,
            fontsize=TITLE_SIZE,
            rotation=90,
            ha="left",
            va="center",
        )
        axes.tick_params(colors=TEXT, labelsize=TICK_SIZE, length=3, pad=2)
        axes.grid(True, color=GRID, linewidth=0.6)
        for spine in axes.spines.values():
            spine.set_color(GRID)
        axes.xaxis.get_major_locator().set_params(integer=True, nbins=5)
        axes.yaxis.get_major_locator().set_params(nbins=4)
        self.axes = axes
        # The names above the lines, each in its line's colour: a legend of plain texts (a
        # matplotlib Legend lays out its boxes again at every draw, a sixth of the time).
        self.names = [
            self.figure.text(0, 0, "", fontsize=NAME_SIZE, visible=False, gid="legend")
            for _ in COLOURS
        ]

    def update(
        self,
        names: Sequence[str],
        cumulative: Sequence[Sequence[int]],
        labels: tuple[str, str] = CHART_LABELS,
    ) -> None:
        if len(names) != len(cumulative):
            raise ValueError("one list of scores per name")
        # The axes' titles in the table's language (the figure is reused from chart to chart).
        self.deal_title.set_text(labels[0])
        self.score_title.set_text(labels[1])
        axes = self.axes
        for line in list(axes.lines):
            line.remove()
        for index, (name, scores) in enumerate(zip(names, cumulative, strict=True)):
            axes.plot(
                range(len(scores) + 1),
                [0, *scores],
                label=legend_name(name)[:18],
                color=COLOURS[index % len(COLOURS)],
                linewidth=2.2,
                marker="o" if len(scores) <= 15 else None,
                markersize=3.5,
            )
        longest = max((len(s) for s in cumulative), default=0)
        axes.set_xlim(0, max(longest, 1))
        axes.relim()  # the limits of these lines only, not of the last chart's
        axes.autoscale_view(scalex=False)
        # The names above the lines, three or two a row: on a phone the chart keeps its width.
        shown = [short_name(name) for name in names]
        columns = self._columns(shown)
        rows = -(-len(names) // columns)
        top = TOP - ROW_HEIGHT * rows - 4 / INLINE_HEIGHT
        column_width = (LEGEND_RIGHT - LEGEND_LEFT) / columns
        for index, text in enumerate(self.names):
            if index >= len(names):
                text.set_visible(False)
                continue
            row, column = divmod(index, columns)
            text.set_color(COLOURS[index % len(COLOURS)])
            text.set_position((LEGEND_LEFT + column * column_width, TOP - ROW_HEIGHT * row))
            text.set_verticalalignment("top")
            text.set_visible(True)
            self._fit(text, shown[index], self._pixels(column_width))
        # Fixed margins rather than tight_layout() or bbox_inches="tight", which draw the
        # figure once more to measure it.
        self.figure.subplots_adjust(left=self._left(), right=RIGHT, bottom=BOTTOM, top=top)

    def _left(self) -> float:
        """The left margin: the "Score" title, then room for the widest score label (−1000
        takes twice the room of 50)."""
        axis = self.axes.yaxis
        low, high = self.axes.get_ylim()
        ticks = [tick for tick in axis.get_major_locator()() if low <= tick <= high]
        labels = axis.get_major_formatter().format_ticks(ticks)
        widest = max((len(label) for label in labels), default=1) * DIGIT * TICK_SIZE
        return max(LEFT, (TITLE_GAP + widest) / INLINE_WIDTH)

    def _pixels(self, fraction: float) -> float:
        """A fraction of the width in the figure's pixels, less a gap between columns."""
        return float(fraction * self.figure.bbox.width - 6 * SCALE)

    def _columns(self, names: Sequence[str]) -> int:
        """Three names a row when every one fits a third of the width, else two."""
        if len(names) < 2:
            return 1
        third = self._pixels((LEGEND_RIGHT - LEGEND_LEFT) / 3)
        probe = self.names[0]
        probe.set_visible(True)  # an invisible text measures nothing
        renderer = self.canvas.get_renderer()  # type: ignore[no-untyped-call]
        for name in names:
            probe.set_text(LEGEND_MARK + name)
            if probe.get_window_extent(renderer).width > third:
                return 2
        return min(len(names), 3)

    def _fit(self, text: Any, name: str, pixels: float) -> None:
        """Show ``name`` in ``text``, cut until it is at most ``pixels`` wide (wide letters
        such as W take twice the room of narrow ones, so characters are not a measure)."""
        renderer = self.canvas.get_renderer()  # type: ignore[no-untyped-call]
        text.set_text(LEGEND_MARK + name)
        while text.get_window_extent(renderer).width > pixels and len(name) > 1:
            name = name[:-2].rstrip() + "…"
            text.set_text(LEGEND_MARK + name)

    def png(self) -> bytes:
        """The figure drawn by Agg, written as an RGB PNG by Pillow (quick, light compression:
        a chart of flat colours stays small)."""
        from PIL import Image

        self.canvas.draw()  # type: ignore[no-untyped-call]
        width, height = self.canvas.get_width_height()
        rgba = self.canvas.buffer_rgba()  # type: ignore[no-untyped-call]
        image = Image.frombuffer("RGBA", (width, height), rgba).convert("RGB")
        buffer = io.BytesIO()
        image.save(buffer, format="png", compress_level=1)
        return buffer.getvalue()


_CHARTS = threading.local()


def _chart() -> _Chart:
    chart = getattr(_CHARTS, "chart", None)
    if chart is None:
        chart = _CHARTS.chart = _Chart()
    return chart


def short_name(name: str) -> str:
    """A legend name of at most NAME_CHARS characters (cut again to fit its column)."""
    name = legend_name(name)
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1].rstrip() + "…"


def score_figure(names: Sequence[str], cumulative: Sequence[Sequence[int]]) -> Figure:
    """The chart as a matplotlib Figure of its own (one line per player), for tests."""
    chart = _Chart()
    chart.update(names, cumulative)
    return chart.figure


def score_chart_png(
    names: list[str], cumulative: list[list[int]], labels: tuple[str, str] = CHART_LABELS
) -> bytes:
    """The chart as PNG bytes (750 × 625 pixels), drawn on this thread's figure; ``labels``
    are the axes' titles (English: "Deal", "Score")."""
    chart = _chart()
    chart.update(names, cumulative, labels)
    return chart.png()


_THREAD: concurrent.futures.ThreadPoolExecutor | None = None
_PROCESS: concurrent.futures.ProcessPoolExecutor | None = None


def chart_thread() -> concurrent.futures.ThreadPoolExecutor:
    """The one thread charts are drawn on, started on first use: one figure and one set of
    font caches, warm after the first chart (a pool of threads would each make their own, and
    two charts at once only share the GIL)."""
    global _THREAD
    if _THREAD is None:
        # numpy (which matplotlib imports) is imported here, on the calling thread, first:
        # its import is not safe while another thread imports it too (the search player's
        # compiled loops import it on the event loop), and fails "partially initialized".
        import numpy  # noqa: F401

        _THREAD = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="kachuful-chart"
        )
    return _THREAD


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
    names: list[str],
    cumulative: list[list[int]],
    *,
    labels: tuple[str, str] = CHART_LABELS,
    in_process: bool = False,
) -> bytes:
    """:func:`score_chart_png` off the event loop: on the chart thread (:func:`chart_thread`),
    or with ``in_process`` in the chart process (:func:`chart_process`)."""
    names, cumulative = list(names), [list(s) for s in cumulative]
    pool = chart_process() if in_process else chart_thread()
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool, score_chart_png, names, cumulative, labels)
