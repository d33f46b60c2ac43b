"""The check every SimCord test ends with (each body the bot sent, against Discord's API
description) refuses what Discord would refuse."""

from __future__ import annotations

import re

import pytest

from .helpers import validate_request

MESSAGE = {"content": "Table open", "embeds": [{"title": "Kachuful", "description": "3 seats"}]}


def test_a_valid_message_passes() -> None:
    validate_request("POST", "/channels/123/messages", MESSAGE)


@pytest.mark.parametrize(
    "body",
    [
        {**MESSAGE, "embeds": [{"title": 5}]},
        {**MESSAGE, "components": [{"type": "row"}]},
        {**MESSAGE, "flags": "ephemeral"},
    ],
)
def test_a_malformed_message_is_refused(body: dict[str, object]) -> None:
    with pytest.raises(AssertionError, match=re.escape("/channels/{channel_id}/messages")):
        validate_request("POST", "/channels/123/messages", body)


def test_a_route_discord_does_not_have_is_refused() -> None:
    with pytest.raises(AssertionError, match="not in Discord's API description"):
        validate_request("POST", "/channels/123/nonsense", MESSAGE)
