"""The words the room screens use for a room's settings, in the active language."""

from __future__ import annotations

from selfish_tui.i18n import _, pgettext


def edition_name(edition: object) -> str:
    """An edition's short name in the active language ('Space', 太空版)."""
    names = {"space": _("Space"), "shipwrecked": _("Shipwrecked")}
    return names.get(str(edition), str(edition))


def bot_level_name(level: object) -> str:
    """A bot level ('basic', 'random', 'expert') in the active language."""
    words = {
        "basic": pgettext("bot level", "basic"),
        "random": pgettext("bot level", "random"),
        "expert": pgettext("bot level", "expert"),
    }
    return words.get(str(level), str(level))
