"""Texts looked up by a stable key: card names, short board names and rules texts (by card key),
and error messages (by the protocol's error code), in the active language.

The server's catalogue (``joined.catalogue``) gives every card's key with its English name and
text; the Chinese ones are catalog entries keyed by that key (msgctxt "card", "card short" and
"card text", msgid = the key), so any client with the catalog can find them. English, and any key
newer than the catalog, shows what the server sent.

Error codes are keyed the same way (msgctxt "error", msgid = the code of protocol/errors.py): the
server's English ``message`` is the fallback.

The keys are listed here (and taken from :class:`protocol.errors.ErrorCode`) so that extraction
(``babel.cfg`` maps this file to :func:`extract_keys`) keeps their entries in the template;
tests/tui/test_i18n.py checks the card list against the engine's catalogue.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

from protocol.errors import ErrorCode
from selfish_tui.i18n import lookup

CARD_KEYS: dict[str, tuple[str, ...]] = {
    "space": (
        "oxygen",
        "oxygen2",
        "rocket_booster",
        "tractor_beam",
        "laser_blast",
        "hole_in_suit",
        "tether",
        "shield",
        "hack_suit",
        "oxygen_siphon",
        "blank_space",
        "cosmic_radiation",
        "useful_junk",
        "solar_flare",
        "meteoroid",
        "gravitational_anomaly",
        "wormhole",
        "mysterious_nebula",
        "asteroid_field",
        "hyperspace",
    ),
    "shipwrecked": (
        "food",
        "food2",
        "pirate",
        "ride_the_wave",
        "lost",
        "freestyle_sprint",
        "dive",
        "rogue_wave",
        "message_in_a_bottle",
        "calm_waters",
        "sea_monster",
        "ocean_debris",
        "shark_bait",
        "freeloader",
        "whirlpool",
        "hurricane",
        "island_call",
        "davy_jones_locker",
        "raft_drift",
        "counter_current",
        "feeding_frenzy",
    ),
}
"""Every card key of each edition, as the engine's catalogue names them."""

CONTEXTS = ("card", "card short", "card text")
"""The msgctxt of a card's name, its short name for the board's narrow cells, and its text."""


def card_name(key: str, fallback: str) -> str:
    """The card's name (e.g. 虫洞 for ``wormhole``), or ``fallback`` (the server's)."""
    return lookup("card", key, fallback)


def card_short(key: str, fallback: str) -> str:
    """The card's short name for a board cell, or ``fallback``."""
    return lookup("card short", key, fallback)


def card_text(key: str, fallback: str) -> str:
    """The card's rules text, or ``fallback`` (the server's)."""
    return lookup("card text", key, fallback)


def error_message(code: str, fallback: str) -> str:
    """The message for an error code (e.g. 没有这个代码的房间。 for ``no_such_room``), or
    ``fallback`` (the client's English sentence, else the server's message)."""
    return lookup("error", code, fallback)


def extract_keys(
    fileobj: IO[bytes],
    keywords: Mapping[str, Any],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Babel extraction method (babel.cfg): one ``pgettext(context, key)`` message per card key
    and context, and one per error code, so extraction puts the keyed entries in the template."""
    for edition, keys in CARD_KEYS.items():
        for key in keys:
            for context in CONTEXTS:
                yield 0, "pgettext", (context, key), [f"{edition} card"]
    for code in ErrorCode:
        yield 0, "pgettext", ("error", code.value), ["protocol/errors.py"]
