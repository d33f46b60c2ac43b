// The running score (one row a deal, a column a seat, the totals below) and, when the game is
// over, the final standings with a chart of every seat's total after each deal (inline SVG).
import { h, svg } from "./dom.js";
import { points as shown, say } from "./words.js";

export function totalsAfterEachDeal(scores, seats) {
  const running = new Array(seats).fill(0);
  return scores.map((row) => row.map((points, seat) => (running[seat] += points)));
}

export function scoreTable(view) {
  const words = view.words;
  const scores = view.scores || [];
  const totals = view.seats.map((seat) => seat.score);
  return h(
    "table",
    { class: "scores" },
    h("caption", { text: say(words, "scores") }),
    h(
      "thead",
      {},
      h("tr", {}, h("th", { scope: "col", text: say(words, "deal_column") }), view.seats.map((seat, index) => h("th", { scope: "col", class: `colour-${index % 8}${index === view.you ? " you" : ""}`, text: seat.name }))),
    ),
    h(
      "tbody",
      {},
      scores.map((row, deal) => h("tr", {}, h("th", { scope: "row", text: String(deal + 1) }), row.map((points) => h("td", { class: points < 0 ? "minus" : null, text: shown(points) })))),
    ),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row", text: say(words, "total") }), totals.map((total) => h("td", { text: shown(total) })))),
  );
}

// Round steps for the chart's lines (1, 2, 5, 10, 20, 50...), five or six of them.
function tickStep(range) {
  const rough = Math.max(range, 1) / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough);
}

// A line a seat: its total after each deal. Drawn in a fixed box and scaled by the browser.
export function chart(view) {
  const rows = totalsAfterEachDeal(view.scores || [], view.seats.length);
  const width = 320;
  const height = 180;
  const pad = { left: 34, right: 10, top: 10, bottom: 22 };
  const values = rows.flat().concat([0]);
  const step = tickStep(Math.max(...values) - Math.min(...values));
  const low = Math.floor(Math.min(...values) / step) * step;
  const high = Math.max(Math.ceil(Math.max(...values) / step) * step, low + step);
  const x = (deal) => pad.left + ((width - pad.left - pad.right) * (deal + 1)) / Math.max(rows.length, 1);
  const y = (value) => pad.top + ((height - pad.top - pad.bottom) * (high - value)) / (high - low);
  const title = say(view.words, "chart");
  const grid = [];
  for (let value = low; value <= high; value += step) grid.push(value);
  return svg(
    "svg",
    { class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title },
    svg("title", { text: title }),
    grid.map((value) =>
      svg("g", { class: "grid" }, svg("line", { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value) }), svg("text", { x: pad.left - 4, y: y(value) + 4, "text-anchor": "end", text: shown(value) })),
    ),
    rows.map((_, deal) => svg("text", { class: "deal", x: x(deal), y: height - 6, "text-anchor": "middle", text: String(deal + 1) })),
    view.seats.map((seat, index) => {
      const points = [`${pad.left},${y(0)}`, ...rows.map((row, deal) => `${x(deal)},${y(row[index])}`)];
      return svg("polyline", { class: `line colour-${index % 8}`, points: points.join(" ") }, svg("title", { text: seat.name }));
    }),
  );
}

export function standings(view) {
  const words = view.words;
  const order = [...(view.standings || [])].sort((a, b) => a.rank - b.rank);
  return h(
    "div",
    { class: "standings" },
    h("h2", { text: say(words, "standings") }),
    h(
      "ol",
      {},
      order.map((entry) =>
        h(
          "li",
          { class: `colour-${entry.seat % 8}${entry.seat === view.you ? " you" : ""}${entry.rank === 1 ? " first" : ""}` },
          h("span", { class: "rank", text: String(entry.rank) }),
          h("span", { class: "swatch", "aria-hidden": "true" }),
          h("span", { class: "name", text: view.seats[entry.seat].name }),
          h("span", { class: "total", text: shown(entry.score) }),
        ),
      ),
    ),
    chart(view),
  );
}

// The deal just over: each seat's bid, tricks and the points the deal gave them.
export function dealSummary(view) {
  const words = view.words;
  const last = (view.scores || [])[view.scores.length - 1] || [];
  return h(
    "table",
    { class: "summary" },
    h("caption", { text: say(words, "deal_over") }),
    h("thead", {}, h("tr", {}, h("th", {}), h("th", { scope: "col", text: say(words, "bid") }), h("th", { scope: "col", text: say(words, "tricks") }), h("th", { scope: "col", text: say(words, "score") }))),
    h(
      "tbody",
      {},
      view.seats.map((seat, index) => {
        const points = last[index];
        const made = seat.bid !== null && seat.bid === seat.tricks;
        return h(
          "tr",
          { class: made ? "made" : "missed" },
          h("th", { scope: "row", class: `colour-${index % 8}`, text: seat.name }),
          h("td", { text: seat.bid === null ? "\u2013" : String(seat.bid) }),
          h("td", { text: String(seat.tricks) }),
          h("td", { text: points === undefined ? "" : shown(points, true) }),
        );
      }),
    ),
  );
}
