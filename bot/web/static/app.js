// The web table's client: plain ES modules, served from the bot's own origin (docs/web.md).
// Its settings come from the page's data attributes; it renders what the server sends and
// never infers what it was not sent.
const page = document.body.dataset;
const app = document.getElementById("app");
app.textContent = page.page === "table" ? "…" : "Kachuful";
