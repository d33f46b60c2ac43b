"""The stand-in Discord of benchmarks/discord_standin.py, in-process: its gateway sends each
guild to the shard that owns it and a click's INTERACTION_CREATE to that shard's connection
only; its REST API answers the bot's routes through SimCord's router and an unknown route
fails loudly (501, recorded, which fails a load run)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from discord_standin import StandIn, process_token

INTENTS_GUILDS = 1


async def _identify(
    session: aiohttp.ClientSession, standin: StandIn, shard: int, process: int
) -> tuple[aiohttp.ClientWebSocketResponse, list[dict[str, Any]]]:
    """Connect as shard ``shard`` of 2; returns the socket and READY + its GUILD_CREATEs."""
    socket = await session.ws_connect(standin.gateway)
    hello = json.loads((await socket.receive()).data)
    assert hello["op"] == 10
    identify = {
        "token": process_token(process),
        "intents": INTENTS_GUILDS,
        "shard": [shard, 2],
        "properties": {},
    }
    await socket.send_str(json.dumps({"op": 2, "d": identify}))
    frames = [json.loads((await socket.receive()).data) for _ in range(3)]
    return socket, frames


async def test_events_go_to_the_shard_of_their_guild() -> None:
    standin = StandIn(shard_count=2, tokens=[process_token(0), process_token(1)])
    await standin.start()
    backend = standin.backend
    guilds = [backend.create_guild(f"g{i}", shard_id=i % 2, shard_count=2) for i in range(4)]
    assert [standin.shard_of(g.id) for g in guilds] == [0, 1, 0, 1]
    try:
        async with aiohttp.ClientSession() as session:
            first, frames0 = await _identify(session, standin, 0, 0)
            second, frames1 = await _identify(session, standin, 1, 1)
            for frames, shard in ((frames0, 0), (frames1, 1)):
                ready, *creates = frames
                assert ready["t"] == "READY" and ready["d"]["shard"] == [shard, 2]
                mine = {str(g.id) for g in guilds if standin.shard_of(g.id) == shard}
                assert {g["id"] for g in ready["d"]["guilds"]} == mine
                assert [c["t"] for c in creates] == ["GUILD_CREATE"] * 2
                assert {c["d"]["id"] for c in creates} == mine
            assert standin.identified.is_set()
            assert {c.process for c in standin.connections.values()} == {0, 1}

            # A slash command in a channel of guild 1 (shard 1) reaches shard 1 only.
            await session.put(
                f"{standin.base}/applications/{backend.application_id}/commands",
                json=[{"name": "kachuful", "description": "d", "type": 1}],
            )
            channel = backend.create_channel(guilds[1].id, "t", announce=False)
            user = backend.make_user("p")
            backend.add_member(guilds[1].id, user.id)
            interaction = standin.slash(user.id, channel.id, "kachuful")
            event = json.loads((await second.receive(timeout=5)).data)
            assert event["t"] == "INTERACTION_CREATE" and int(event["d"]["id"]) == interaction
            assert standin.connections[0].events["INTERACTION_CREATE"] == 0
            assert standin.connections[1].events["INTERACTION_CREATE"] == 1

            # The bot's answer arrives as a callback: timed, and the message stored.
            token = event["d"]["token"]
            answered = await session.post(
                f"{standin.base}/interactions/{interaction}/{token}/callback",
                json={"type": 4, "data": {"content": "lobby"}},
            )
            assert answered.status == 200
            answer = await standin.answer(interaction)
            assert answer is not None and answer.type == 4
            assert answer.at >= standin.sent_at[interaction]
            message_id = backend.interactions[interaction].message_id
            assert message_id is not None
            assert backend.get_message(channel.id, message_id).content == "lobby"

            # An unknown route: 501 and recorded, never a silent 404.
            unknown = await session.get(f"{standin.base}/guilds/{guilds[0].id}/no-such-thing")
            assert unknown.status == 501
            assert standin.unknown_routes and "no-such-thing" in standin.unknown_routes[0]
            await first.close()
            await second.close()
    finally:
        await standin.close()
