"""An Activity finds its table: Discord says where the instance runs and who is in it (the bot
asks with its own token), and the page gets the table of that channel, by the rule every
command uses; a user Discord does not list in the instance, a forged instance id, a finished
Activity or a visitor without a session learns nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import simcord
from simcord.backend.errors import BackendError
from simcord.http import router

from tests.bot.helpers import world

from .conftest import base_of
from .standin import OAuthStandIn

INSTANCE_ROUTE = "/applications/{application_id}/activity-instances/{instance_id}"


@pytest.fixture
def instances() -> Iterator[dict[str, dict[str, Any]]]:
    """Discord's Activity instances, served by the stand-in Discord at the documented route
    (SimCord has no Activities of its own)."""
    known: dict[str, dict[str, Any]] = {}

    def describe(ctx: router.RequestContext) -> Any:
        found = known.get(ctx.args["instance_id"])
        if found is None:
            raise BackendError(404, 10084, "Unknown Activity instance")
        return found

    entry = (INSTANCE_ROUTE.strip("/").split("/"), describe)
    router._ROUTES.setdefault("GET", []).append(entry)
    try:
        yield known
    finally:
        router._ROUTES["GET"].remove(entry)


async def activity_session(
    http: aiohttp.ClientSession, base: str, oauth: OAuthStandIn, user_id: int
) -> dict[str, str]:
    """What the Activity's page does: the SDK's ``authorize`` code exchanged by the server; the
    session it answers with goes in a header (cookies may be refused in Discord's frame)."""
    code = oauth.code_for(user_id)
    async with http.post(f"{base}/api/activity/token", json={"code": code}) as answer:
        assert answer.status == 200
        return {"Authorization": f"Bearer {(await answer.json())['session']}"}


async def test_an_activity_opens_the_table_of_its_channel(
    env: simcord.Env,
    oauth: OAuthStandIn,
    browser: aiohttp.ClientSession,
    instances: dict[str, dict[str, Any]],
) -> None:
    base = base_of(env.bot.settings)
    channel, (asha, bala, chen) = world(env, "asha", "bala", "chen")
    quiet = channel.guild.create_text_channel("quiet")
    await asha.slash(channel, "kachuful start", players=3)
    table = env.bot.tables.open.session_in(channel.id)
    assert table is not None
    app = str(env.bot.application_id)
    instances["i-1-gc-cards"] = {
        "application_id": app,
        "instance_id": "i-1-gc-cards",
        "launch_id": "1",
        "location": {"id": "gc-1", "kind": "gc", "channel_id": str(channel.id)},
        "users": [str(asha.id), str(bala.id)],
    }
    instances["i-2-gc-quiet"] = {
        **instances["i-1-gc-cards"],
        "instance_id": "i-2-gc-quiet",
        "location": {"id": "gc-2", "kind": "gc", "channel_id": str(quiet.id)},
    }
    for member in (asha, bala, chen):
        oauth.add_user(member.id, member.name, locale="fr" if member is bala else "en-US")
    url = f"{base}/api/activity/table"

    async def ask(who: dict[str, str], instance: str) -> tuple[int, Any]:
        async with browser.get(url, params={"instance": instance}, headers=who) as answer:
            body = await answer.json() if answer.status == 200 else await answer.text()
            return answer.status, body

    asha_in = await activity_session(browser, base, oauth, asha.id)
    assert await ask(asha_in, "i-1-gc-cards") == (200, {"table": table.row.id})
    # Another channel's Activity: no table there, said in the reader's language.
    bala_in = await activity_session(browser, base, oauth, bala.id)
    status, body = await ask(bala_in, "i-2-gc-quiet")
    assert status == 200 and body["table"] is None
    assert "/kachuful start" in body["text"] and "table" in body["text"].lower()
    assert body["text"] != "No table is open in this channel: start one with /kachuful start."
    # Chen is in the channel but not in the Activity: refused, nothing about the table.
    chen_in = await activity_session(browser, base, oauth, chen.id)
    status, text = await ask(chen_in, "i-1-gc-cards")
    assert status == 403 and str(table.row.id) not in text
    # With shards over several processes: a server another process serves is answered with
    # that process's path (docs/web.md, "More than one process"), and the page asks there.
    activity = env.bot.web.pages["activity"]

    async def elsewhere(guild_id: int) -> str | None:
        return f"{base}/p1" if guild_id == channel.guild.id else None

    instances["i-1-gc-cards"]["location"]["guild_id"] = str(channel.guild.id)
    activity.owner, kept = elsewhere, activity.owner
    assert await ask(asha_in, "i-1-gc-cards") == (200, {"table": None, "moved": "/p1"})
    activity.owner = kept
    assert await ask(asha_in, "i-1-gc-cards") == (200, {"table": table.row.id})
    # A finished (unknown) instance, a malformed id, no session at all.
    assert (await ask(asha_in, "i-9-gone"))[0] == 404
    assert (await ask(asha_in, "../../users/@me"))[0] == 400
    no_session = {"instance": "i-1-gc-cards"}
    async with aiohttp.ClientSession() as stranger, stranger.get(url, params=no_session) as answer:
        assert answer.status == 401


async def test_discord_launches_the_activity_at_the_root_of_its_url_mapping(
    env: simcord.Env, browser: aiohttp.ClientSession
) -> None:
    """Discord loads the mapped root with the instance in the query; the page is the
    Activity's (no redirect to a login page Discord's frame could not show), and it loads
    the vendored SDK from this origin."""
    base = base_of(env.bot.settings)
    launch = {"instance_id": "i-1-gc-cards", "frame_id": "f-1", "platform": "desktop"}
    async with browser.get(f"{base}/", params=launch, allow_redirects=False) as page:
        assert page.status == 200
        text = await page.text()
    assert 'data-page="activity"' in text
    async with browser.get(f"{base}/", allow_redirects=False) as plain:
        assert plain.status == 302 and plain.headers["Location"].startswith("/login")
    assets = env.bot.web.assets
    sdk = assets.get(assets.digest, "vendor/embedded-app-sdk/index.mjs")
    entry = assets.get(assets.digest, "activity.js")
    assert sdk is not None and entry is not None
    assert b"./vendor/embedded-app-sdk/index.mjs" in entry[0]


def test_the_vendored_sdk_is_pinned_whole_and_imports_only_itself() -> None:
    """The Activity page may load nothing from another origin (Discord's proxy blocks it): the
    SDK's modules import only each other, every module they name is there, and the version
    and licence travel with them."""
    root = Path(__file__).resolve().parents[3] / "bot/web/static/vendor/embedded-app-sdk"
    assert (root / "VERSION").read_text().startswith("@discord/embedded-app-sdk@2.5.0\n")
    assert "MIT" in (root / "LICENSE.md").read_text()
    modules = sorted(root.rglob("*.mjs"))
    assert len(modules) > 50
    pattern = re.compile(r"""(?:^|\s)(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]""", re.M)
    for module in modules:
        for target in pattern.findall(module.read_text(encoding="utf-8")):
            assert target.startswith("."), f"{module.name} imports {target}"
            assert (module.parent / target).resolve().is_file(), f"{module.name}: {target}"


@pytest.fixture
def launches() -> Iterator[list[int]]:
    """Discord's launch-activity answer (interaction callback type 12), taught to the stand-in
    Discord, which has no Activities: the interactions answered with it, in order."""
    from simcord.http.routes import interactions as callbacks

    launched: list[int] = []
    original = callbacks.interaction_callback

    def callback(ctx: router.RequestContext) -> Any:
        body = ctx.body()
        if body.get("type") != 12:
            return original(ctx)
        record = ctx.backend.interactions[ctx.int_arg("interaction_id")]
        record.pong()  # answered, with no message
        launched.append(record.id)
        instance = {"id": f"i-{record.id}-gc-1"}
        interaction = {"id": str(record.id), "type": record.type}
        return {
            "interaction": {**interaction, "activity_instance_id": instance["id"]},
            "resource": {"type": 12, "activity_instance": instance},
        }

    entries = router._ROUTES["POST"]
    index = next(i for i, (_, handler) in enumerate(entries) if handler is original)
    entries[index] = (entries[index][0], callback)
    try:
        yield launched
    finally:
        entries[index] = (entries[index][0], original)


@pytest.fixture
def settings(settings: Any) -> Any:
    """The web table on, and the operator's Activity turned on."""
    return settings.model_copy(update={"activity": True})


async def test_open_the_table_launches_the_activity_in_the_channel(
    env: simcord.Env, launches: list[int]
) -> None:
    channel, (asha, bala) = world(env, "asha", "bala")
    await asha.slash(channel, "kachuful start", players=3)
    lobby = next(m for m in channel.history() if not m.flags.ephemeral and m.embeds)
    [button] = [b for row in lobby.components for b in row.children if b.label == "Open the table"]
    assert button.url is None and button.custom_id.startswith("kf:act:")
    answer = await bala.click(lobby, label="Open the table")
    # Discord opens the Activity in the channel; the bot says nothing.
    assert len(launches) == 1
    assert answer.acknowledged and answer.response is None and answer.followups == []


async def test_where_discord_will_not_launch_it_the_player_gets_the_address(
    env: simcord.Env,
) -> None:
    """Without Activities (here: the stand-in refuses the launch, as Discord does for an
    application without them), the click is answered privately with the table's page."""
    channel, (asha, bala) = world(env, "asha", "bala")
    await asha.slash(channel, "kachuful start", players=3)
    lobby = next(m for m in channel.history() if not m.flags.ephemeral and m.embeds)
    table = env.bot.tables.open.session_in(channel.id)
    assert table is not None
    answer = await bala.click(lobby, label="Open the table")
    private = answer.response
    assert private is not None and answer.ephemeral
    assert "browser" in private.content
    [link] = [b for row in private.components for b in row["components"]]
    assert link["url"] == f"{base_of(env.bot.settings)}/table/{table.row.id}"
