// The web table's client: plain ES modules, served from the bot's own origin (docs/web.md).
// Its settings come from the page's data attributes (no inline script); it draws what the
// server sends and never infers what it was not sent.
import { h } from "./table/dom.js";
import { Connection } from "./table/socket.js";
import { Table } from "./table/table.js";
import { say } from "./table/words.js";

const page = document.body.dataset;
const app = document.getElementById("app");

// The table's id: the page's (/table/<id>), or an Activity's (?table=<id>).
function tableId() {
  if (page.table) return Number(page.table);
  const asked = new URLSearchParams(location.search).get("table");
  return asked && /^\d{1,20}$/.test(asked) ? Number(asked) : null;
}

// Before any view: is the reader logged in? A socket refused at /ws only says "closed".
async function loggedIn() {
  try {
    const answer = await fetch("/api/me", { credentials: "same-origin" });
    return answer.ok;
  } catch {
    return true; // the server is away: keep trying the socket
  }
}

function loginPage() {
  const next = location.pathname + location.search;
  app.replaceChildren(
    h(
      "div",
      { class: "notice" },
      h("p", { text: say(null, "login_needed") }),
      h("a", { class: "login", href: `/login?next=${encodeURIComponent(next)}` }, say(null, "login")),
    ),
  );
}

function start() {
  const id = tableId();
  if (id === null) {
    app.replaceChildren(h("div", { class: "notice" }, h("p", { text: say(null, "no_table") })));
    return;
  }
  const table = new Table(app, (move) => connection.move(move));
  let seen = false;
  const connection = new Connection(page.socket, id, {
    onView: (frame) => {
      seen = true;
      table.update(frame);
    },
    onAnswer: (frame) => table.answered(frame),
    onStatus: async (state, failures) => {
      if (state === "closed" && !seen && failures === 1 && !(await loggedIn())) {
        connection.stop();
        loginPage();
        return;
      }
      table.connection(state);
    },
  });
  connection.start();
  // For tests and the curious: the connection, never the cards of anyone else.
  window.kachuful = { connection, table };
}

start();
