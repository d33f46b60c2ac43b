"""Discord's permissions by the names the reader's Discord client shows, and the admin's
answer to /kachuful-permissions (what the bot can do in a channel, feature by feature).

``PERMISSION_WORDS`` is the one place a permission is named: Discord's clients show the
permission names translated (Server Settings → Roles, a channel's Permissions), so each is a
catalogue entry, and every message naming a permission takes it from here. A message names a
permission by a placeholder spelt as discord.py's flag (``{manage_guild}``), filled by
:func:`fill` after the translation; a list of missing permissions goes through
:func:`permission_names` and a count of them through ``ngettext``.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import discord
from babel.lists import format_list

from bot.i18n import N_, Translations

from .numbers import locale_of
from .specs import MessageSpec

# Discord's English names (a channel's Permissions page); translated like every word.
PERMISSION_WORDS = {
    "view_channel": N_("View Channel"),
    "send_messages": N_("Send Messages"),
    "send_messages_in_threads": N_("Send Messages in Threads"),
    "create_public_threads": N_("Create Public Threads"),
    "embed_links": N_("Embed Links"),
    "attach_files": N_("Attach Files"),
    "read_message_history": N_("Read Message History"),
    "manage_guild": N_("Manage Server"),
    "manage_channels": N_("Manage Channels"),
    "manage_roles": N_("Manage Roles"),
    "create_events": N_("Create Events"),
    "manage_events": N_("Manage Events"),
}


def permission_name(name: str, tr: Translations) -> str:
    """ "Manage Server" as the reader's Discord client shows it."""
    return tr.gettext(PERMISSION_WORDS[name])


def permission_names(names: Iterable[str], tr: Translations) -> str:
    """One permission by its shown name (the message frames it as a permission, in its own
    words); several as a list in the reader's language, each framed as a name ("« Intégrer des
    liens » et « Joindre des fichiers »"), since a bare list of Discord's names (themselves
    orders: "Send Messages") would read as orders to the reader."""
    shown = [permission_name(name, tr) for name in names]
    if len(shown) == 1:
        return shown[0]
    # The frame of a name in a list: « … » in French, «…» in Italian, “…” in Hindi.
    frame = tr.pgettext("a permission in a list of permissions", "{permission}")
    return format_list([frame.format(permission=name) for name in shown], locale=locale_of(tr))


def named_permissions(message: str) -> list[str]:
    """The permissions a message names by placeholder (``{manage_guild}``); none in a text
    that is no format string (a brace of its own)."""
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(message) if field]
    except ValueError:
        return []
    return [field for field in fields if field in PERMISSION_WORDS]


def fill(message: str, tr: Translations, **values: object) -> str:
    """``message`` (already translated) with its permission placeholders filled in the same
    language, and ``values`` for the others; a message with neither is returned as it is."""
    names = {name: permission_name(name, tr) for name in named_permissions(message)}
    return message.format(**names, **values) if names or values else message


# ---- /kachuful-permissions ------------------------------------------------------------------

# Each feature as /kachuful-permissions lists it, in this order.
FEATURE_WORDS = {
    "tables": N_("Tables (`/kachuful start`)"),
    "threads": N_("Games played in a thread"),
    "pictures": N_("Cards drawn as pictures"),
    "events": N_("Events (`/kachuful-event open`)"),
    "scheduled_events": N_("Discord scheduled events for an event's start"),
    "champions": N_("The champions' role of the seasons"),
}

# Why a feature cannot work here, whatever the permissions (``reason``), or what is worth
# knowing about it though it works (``note``).
REASON_WORDS = {
    "in_thread": N_(
        "A thread cannot open another: thread mode works in the channel this thread belongs to."
    ),
    "not_text": N_("Events are opened in a text channel, not here."),
    "pictures_off": N_("Turned off for this channel (`/kachuful-settings pictures`)."),
    "role_out_of_reach": N_(
        "The role {role} is not below the bot's highest role: move the bot's role above it "
        "(Server Settings → Roles)."
    ),
    "role_managed": N_(
        "Discord or an app manages the role {role}, and nobody can give it: choose another "
        "one (`/kachuful-season setup role:`)."
    ),
    "no_role": N_("No champions' role is chosen yet (`/kachuful-season setup role:`)."),
}


@dataclass(frozen=True)
class Capability:
    """One line of the answer: a feature, the permissions the bot lacks for it, and why it
    cannot work otherwise (``reason``) or what to know though it works (``note``)."""

    feature: str
    missing: tuple[str, ...] = ()
    # Events: the thread permissions their tables lack here, where Manage Channels would do
    # instead (each table then gets a channel of its own).
    threads_or_channel: tuple[str, ...] = ()
    reason: str | None = None
    note: str | None = None
    role: str = ""  # the role a reason or note names, as a mention

    @property
    def works(self) -> bool:
        return not (self.missing or self.threads_or_channel or self.reason)


def needs_text(missing: Sequence[str], tr: Translations) -> str:
    """ "The bot needs this permission: Create Events." (or these permissions)."""
    return tr.ngettext(
        "The bot needs this permission: {wanted}.",
        "The bot needs these permissions: {wanted}.",
        len(missing),
    ).format(wanted=permission_names(missing, tr))


def threads_or_channel_text(missing: Sequence[str], tr: Translations) -> str:
    """Event tables where the bot may not open threads: what to grant, or the alternative."""
    message = tr.ngettext(
        "Its tables play in threads, which need this permission: {wanted}; or grant "
        "{manage_channels} and each table gets a channel of its own.",
        "Its tables play in threads, which need these permissions: {wanted}; or grant "
        "{manage_channels} and each table gets a channel of its own.",
        len(missing),
    )
    return fill(message, tr, wanted=permission_names(missing, tr))


def _line(capability: Capability, tr: Translations) -> str:
    mark = "✅" if capability.works else "❌"
    parts = [f"{mark} **{tr.gettext(FEATURE_WORDS[capability.feature])}**"]
    if capability.missing:
        parts.append(needs_text(capability.missing, tr))
    if capability.threads_or_channel:
        parts.append(threads_or_channel_text(capability.threads_or_channel, tr))
    for why in (capability.reason, capability.note):
        if why is not None:
            parts.append(tr.gettext(REASON_WORDS[why]).format(role=capability.role))
    return "\n".join(parts)


def capabilities_message(
    channel: str, capabilities: Sequence[Capability], tr: Translations
) -> MessageSpec:
    """The admin's private answer: what the bot can and cannot do in ``channel``, and why."""
    works = all(capability.works for capability in capabilities)
    embed = discord.Embed(
        title=tr.gettext("What the bot can do"),
        description="\n\n".join(
            [
                tr.gettext("In {channel}, for each feature:").format(channel=channel),
                *(_line(capability, tr) for capability in capabilities),
            ]
        ),
        colour=discord.Colour.green() if works else discord.Colour.orange(),
    )
    embed.set_footer(
        text=tr.gettext(
            "Permissions are granted to the bot's role in Server Settings → Roles, or in a "
            "channel's settings (Permissions)."
        )
    )
    return MessageSpec(embeds=(embed,))
