"""The answer of /kachuful-club: where this server's club pages are, and who may read them."""

from __future__ import annotations

from bot.i18n import N_, Translations

from .permissions import fill

WHO = {
    "members": N_("Only members of this server may read them, after logging in with Discord."),
    "public": N_("Anyone with the link may read them, without logging in."),
}


def club_pages_answer(visibility: str, url: str | None, tr: Translations, *, changed: bool) -> str:
    _ = tr.gettext
    lines = [_("Saved.")] if changed else []
    if url is None:
        lines.append(
            _(
                "This bot's web pages are off (its operator has not turned the web table on): "
                "the setting is kept for when they are on."
            )
        )
    else:
        lines.append(_("This server's club pages: {url}").format(url=url))
    lines.append(_(WHO.get(visibility, WHO["members"])))
    return "\n".join(lines)


def not_manager(tr: Translations) -> str:
    return "⚠️ " + fill(
        tr.gettext("Only members with **{manage_guild}** can choose who may read the club pages."),
        tr,
    )
