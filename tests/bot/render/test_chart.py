"""The score chart: a valid PNG of sensible size, one line per player, off the event loop."""

from __future__ import annotations

import asyncio
import io
import threading

import pytest
from PIL import Image

from bot.render import chart


def test_chart_is_a_png_with_one_line_per_player() -> None:
    names = ["Asha", "Bilal", "Chen 🤖", "Dev"]
    deal_scores = [(10 + s, 0 if s % 2 else 12, 11, s) for s in range(25)]
    cumulative = chart.cumulative_scores(deal_scores, 4)
    assert cumulative[0][:3] == [10, 21, 33] and len(cumulative[0]) == 25
    figure = chart.score_figure(names, cumulative)
    [axes] = figure.axes
    assert len(axes.get_lines()) == 4
    assert chart.legend_names(figure) == ["Asha", "Bilal", "Chen ⚙", "Dev"]
    assert [line.get_color() for line in axes.get_lines()] == chart.COLOURS[:4]
    data = chart.score_chart_png(names, cumulative)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert 10_000 < len(data) < 500_000
    image = Image.open(io.BytesIO(data))
    image.verify()
    assert image.size == (750, 625)  # 300 × 250 as a phone shows it inline, drawn at 2.5×


async def test_chart_is_drawn_in_a_worker_thread(monkeypatch: object) -> None:
    threads: list[str] = []
    original = chart.score_chart_png

    def spy(names: list[str], cumulative: list[list[int]], labels: tuple[str, str]) -> bytes:
        threads.append(threading.current_thread().name)
        return original(names, cumulative, labels)

    chart.score_chart_png = spy  # type: ignore[assignment]
    try:
        data = await chart.score_chart(["A", "B", "C"], [[1], [2], [3]])
    finally:
        chart.score_chart_png = original  # type: ignore[assignment]
    assert data.startswith(b"\x89PNG") and threads
    assert threads[0] != threading.main_thread().name
    assert threads[0].startswith("kachuful-chart")  # the one chart thread
    assert asyncio.get_running_loop() is not None


def test_empty_game_draws_an_empty_chart() -> None:
    assert chart.score_chart_png(["A", "B", "C"], [[], [], []]).startswith(b"\x89PNG")


def test_the_kept_figure_shows_only_the_last_chart() -> None:
    """The thread's figure is drawn again for each chart: nothing of the one before is left
    (lines, names, the score range)."""
    chart.score_chart_png(["A", "B", "C", "D", "E", "F", "G"], [[100 * s, 900] for s in range(7)])
    data = chart.score_chart_png(["Asha", "Bilal", "Chen"], [[1, 5], [2, 2], [3, 0]])
    kept = chart._chart()
    [axes] = kept.figure.axes
    assert len(axes.get_lines()) == 3
    assert chart.legend_names(kept.figure) == ["Asha", "Bilal", "Chen"]
    low, high = axes.get_ylim()
    assert low <= 0 and 5 <= high < 10 and axes.get_xlim() == (0, 2)
    assert data == chart.score_chart_png(["Asha", "Bilal", "Chen"], [[1, 5], [2, 2], [3, 0]])
    fresh = chart.score_figure(["Asha", "Bilal", "Chen"], [[1, 5], [2, 2], [3, 0]])
    assert fresh.axes[0].get_ylim() == (low, high)


def test_long_names_are_shortened_to_fit_their_column() -> None:
    assert chart.short_name("Esperanza Long-Name") == "Esperanza Long-Name"
    assert chart.short_name("Esperanza Longer-Surname") == "Esperanza Longer-Su…"
    assert chart.short_name("Robo 🤖") == "Robo ⚙"
    assert len(chart.short_name("x" * 40)) == chart.NAME_CHARS


# An embed's image on a 400 px phone screen, measured in SimCord's preview of Discord.
PHONE_IMAGE_WIDTH = 280

LEGENDS = [
    ["asha", "bilal", "chen"],
    ["Ada 🤖", "Babbage 🤖", "Lovelace 🤖", "asha", "Turing 🤖"],
    ["W" * 32, "Esperanza Longname", "Chen 🤖", "Dev", "Eve", "Farouk", "Gwendolyn Smith"],
]


@pytest.mark.parametrize("names", LEGENDS)
def test_chart_text_is_readable_at_discords_inline_width(names: list[str]) -> None:
    """Discord shows the chart about 300 px wide inline on a phone (400 on a computer): there
    every text (ticks, axis titles, names) is at least 12 px, inside the picture, and no two
    names overlap."""
    # Penalty scoring: totals from about −1000 to 1000, the widest tick labels.
    deals = [
        [((seat * 7 + d * 13) % 14) * (-8 if seat % 2 else 8) for seat in range(len(names))]
        for d in range(25)
    ]
    chart.score_chart_png(names, chart.cumulative_scores(deals, len(names)))
    figure = chart._chart().figure
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    width, height = figure.canvas.get_width_height()
    shrink = PHONE_IMAGE_WIDTH / width  # the PNG's pixels to what a phone shows
    [axes] = figure.axes
    texts = [t for t in figure.texts if t.get_visible()]
    low, high = axes.get_xlim()
    texts += [t for t in axes.get_xticklabels() if low <= t.get_position()[0] <= high]
    low, high = axes.get_ylim()
    texts += [t for t in axes.get_yticklabels() if low <= t.get_position()[1] <= high]
    assert len(texts) > 2 + len(names)
    for text in texts:
        pixels = text.get_fontsize() * figure.dpi / 72 * shrink
        assert pixels >= 12, (text.get_text(), pixels)
        box = text.get_window_extent(renderer)
        assert box.x0 >= 0 and box.y0 >= 0, text.get_text()
        assert box.x1 <= width and box.y1 <= height, text.get_text()
    # The axis titles clear the tick labels.
    deal, score = (t.get_window_extent(renderer) for t in figure.texts[:2])
    assert not any(deal.overlaps(t.get_window_extent(renderer)) for t in texts[2:])
    assert not any(score.overlaps(t.get_window_extent(renderer)) for t in texts[2:])
    legend = [
        t.get_window_extent(renderer)
        for t in figure.texts
        if t.get_gid() == "legend" and t.get_visible()
    ]
    assert len(legend) == len(names)
    for index, box in enumerate(legend):
        assert not any(box.overlaps(other) for other in legend[index + 1 :])
        assert box.y0 > axes.get_window_extent(renderer).y1  # above the plot, not on the lines


async def test_chart_can_be_drawn_in_its_own_process() -> None:
    try:
        data = await chart.score_chart(["A", "B", "C"], [[1, 5], [2, 2], [3, 0]], in_process=True)
    finally:
        chart.shutdown_chart_process()
    assert data.startswith(b"\x89PNG") and len(data) > 10_000


def test_hindi_labels_and_names_are_drawn_not_boxes() -> None:
    """DejaVu Sans has no Devanagari: without the bundled fallback font matplotlib warns
    "Glyph … missing" and draws empty boxes."""
    import warnings

    cumulative = chart.cumulative_scores([(11, 0, 12), (0, 13, 0)], 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = chart.score_chart_png(["प्रिया", "अर्जुन", "Tom"], cumulative, ("राउंड", "स्कोर"))
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert missing == []
    assert data[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_full_table_of_computers_keeps_every_name_whole() -> None:
    """Seven computer seats: each name whole, its robot a gear (a sign in no language, which
    the chart's font draws)."""
    from bot.render.words import COMPUTER_NAMES

    names = [f"{name} 🤖" for name in COMPUTER_NAMES]
    figure = chart.score_figure(names, [[0, 10, 20]] * len(names))
    assert chart.legend_names(figure) == [f"{name} ⚙" for name in COMPUTER_NAMES]
