"""Discord's languages in SimCord: SimCord sends every interaction with ``locale`` and
``guild_locale`` "en-US"; :func:`speak` makes it send each user's own (a dict the test fills)
and each server's preferred locale (``env.create_guild(..., preferred_locale="fr")``)."""

from __future__ import annotations

from typing import Any

import pytest
import simcord.interactions as sim_interactions


def speak(monkeypatch: pytest.MonkeyPatch, locales: dict[int, str]) -> None:
    original = sim_interactions.base_payload

    def base_payload(backend: Any, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        record, payload = original(backend, **kwargs)
        payload["locale"] = locales.get(kwargs["user_id"], "en-US")
        if kwargs.get("guild_id") is not None:
            payload["guild_locale"] = backend.get_guild(kwargs["guild_id"]).preferred_locale
        return record, payload

    monkeypatch.setattr(sim_interactions, "base_payload", base_payload)
