// The table inside Discord, as an Activity (docs/web.md, "As a Discord Activity").
//
// Discord loads the page in its frame, through its proxy: every request goes to this page's
// own origin (relative addresses), never to the bot's public address. The Embedded App SDK
// (vendored, pinned: vendor/embedded-app-sdk/VERSION) gives the login code; the server
// exchanges it with the client secret and answers with Discord's access token (for the SDK's
// authenticate) and a session of ours, sent as a header and in the socket's hello (cookies
// may be refused inside Discord's frame). The server then says which table this instance
// shows, from what Discord tells it about the instance.
import { DiscordSDK, Events } from "./vendor/embedded-app-sdk/index.mjs";

export class ActivityError extends Error {}

async function answerOf(response) {
  if (!response.ok) throw new ActivityError(await response.text());
  return response.json();
}

// Discord's layout and safe areas as the page's own attributes and CSS variables:
// table.css reads data-layout ("focused", "pip", "grid") and data-orientation, and pads the
// page by --safe-top/right/bottom/left (the phone's notch and Discord's own bars).
function followLayout(sdk) {
  const body = document.body;
  const layouts = { 0: "focused", 1: "pip", 2: "grid" };
  sdk.subscribe(Events.ACTIVITY_LAYOUT_MODE_UPDATE, ({ layout_mode }) => {
    body.dataset.layout = layouts[layout_mode] ?? "focused";
  });
  sdk.subscribe(Events.ORIENTATION_UPDATE, ({ screen_orientation }) => {
    body.dataset.orientation = screen_orientation === 1 ? "landscape" : "portrait";
  });
}

// Returns what a table page needs: the table's id, the session for the socket's hello, the
// socket's address on this origin, and the reader's locale as Discord has it.
export async function enterActivity(page) {
  const clientId = page.clientId;
  const sdk = new DiscordSDK(clientId);
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: clientId,
    response_type: "code",
    state: "",
    prompt: "none",
    scope: ["identify"],
  });
  const login = await answerOf(
    await fetch(`${page.root ?? ""}/api/activity/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code }),
    }),
  );
  await sdk.commands.authenticate({ access_token: login.access_token });
  let locale = "";
  try {
    locale = (await sdk.commands.userSettingsGetLocale()).locale;
  } catch {
    // Older clients do not answer: the session's locale (from the login) stands.
  }
  followLayout(sdk);
  // The process that serves this channel's server may be another one (docs/web.md, "More
  // than one process"): it answers with that process's path, and the page asks again there.
  const query = new URLSearchParams({ instance: sdk.instanceId });
  const headers = { Authorization: `Bearer ${login.session}` };
  let root = page.root ?? "";
  let found = await answerOf(await fetch(`${root}/api/activity/table?${query}`, { headers }));
  if (found.moved !== undefined) {
    root = found.moved;
    found = await answerOf(await fetch(`${root}/api/activity/table?${query}`, { headers }));
  }
  const socket = new URL(`${root}/ws`, window.location.href);
  socket.protocol = socket.protocol === "https:" ? "wss:" : "ws:";
  return {
    table: found.table,
    text: found.text ?? null,
    session: login.session,
    socket: socket.href,
    root,
    locale,
  };
}
