"""Texts looked up by a stable key: card names, short board names and rules texts (by card key),
and error messages (by the protocol's error code), in the active language.

Both catalogues (English and Chinese) hold an entry for every card key (msgctxt "card",
"card short" and "card text", msgid = the key) and every error code (msgctxt "error", msgid =
the code of protocol/errors.py); the server sends only the keys. A key newer than the client
shows as itself (a card) or as a general refusal that names its code (an error).

The keys are listed here (and taken from :class:`protocol.errors.ErrorCode`) so that extraction
(``babel.cfg`` maps this file to :func:`extract_keys`) keeps their entries in the template, with
the game's sentences' keys (event_text.py); tests/tui/test_catalogue.py checks the card list
against the engine's cards.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

from protocol.errors import ErrorCode
from selfish_tui.i18n import _, keyed, pgettext

CARD_KEYS: dict[str, dict[str, str]] = {
    "space": {
        "oxygen": "resource",
        "oxygen2": "resource",
        "rocket_booster": "action",
        "tractor_beam": "action",
        "laser_blast": "action",
        "hole_in_suit": "action",
        "tether": "action",
        "shield": "action",
        "hack_suit": "action",
        "oxygen_siphon": "action",
        "blank_space": "location",
        "cosmic_radiation": "location",
        "useful_junk": "location",
        "solar_flare": "location",
        "meteoroid": "location",
        "gravitational_anomaly": "location",
        "wormhole": "location",
        "mysterious_nebula": "location",
        "asteroid_field": "location",
        "hyperspace": "location",
    },
    "shipwrecked": {
        "food": "resource",
        "food2": "resource",
        "pirate": "action",
        "ride_the_wave": "action",
        "lost": "action",
        "freestyle_sprint": "action",
        "dive": "action",
        "rogue_wave": "action",
        "message_in_a_bottle": "action",
        "calm_waters": "location",
        "sea_monster": "location",
        "ocean_debris": "location",
        "shark_bait": "location",
        "freeloader": "location",
        "whirlpool": "location",
        "hurricane": "location",
        "island_call": "location",
        "davy_jones_locker": "location",
        "raft_drift": "location",
        "counter_current": "location",
        "feeding_frenzy": "location",
    },
}
"""Every card key of each edition, with its kind (resource, action or location), as the
engine's cards have them."""

CONTEXTS = ("card", "card short", "card text")
"""The msgctxt of a card's name, its short name for the board's narrow cells, and its text."""


def card_name(key: str) -> str:
    """The card's name (Wormhole, 虫洞 for ``wormhole``); the key itself for a card newer than
    the client."""
    return keyed("card", key) or key


def card_short(key: str) -> str:
    """The card's short name for a board cell (its name when it has none)."""
    return keyed("card short", key) or card_name(key)


def card_text(key: str) -> str:
    """The card's rules text ('' for a card newer than the client)."""
    return keyed("card text", key) or ""


def card_kind(kind: str) -> str:
    """A card's kind (the catalogue's ``kind``: resource, action, location) in words."""
    words = {
        "resource": pgettext("card kind", "resource"),
        "action": pgettext("card kind", "action"),
        "location": pgettext("card kind", "location"),
    }
    return words.get(kind, kind)


def error_message(code: str, args: Mapping[str, object] | None = None) -> str:
    """The message for an error code (There is no room with that code. / 没有这个代码的房间。
    for ``no_such_room``), its placeholders filled from the error's ``args``; for a code newer
    than the client, a refusal that names it."""
    text = keyed("error", code)
    if text is None:
        return _("The server refused: {code}").format(code=code)
    try:
        return text.format_map(args or {})
    except (KeyError, IndexError, ValueError):
        return text


def extract_keys(
    fileobj: IO[bytes],
    keywords: Mapping[str, Any],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[Any, ...]]:
    """Babel extraction method (babel.cfg): one ``pgettext(context, key)`` message per card key
    and context, per error code, and per key of the game's sentences (event_text.py
    ``KEYED_CONTEXTS``), so extraction puts the keyed entries in the template; and this
    module's own calls (``_()``), as the python method would find them."""
    from babel.messages.extract import extract_python  # extraction runs with Babel at hand

    from selfish_tui.event_text import KEYED_CONTEXTS  # it imports this module

    yield from extract_python(fileobj, keywords, comment_tags, dict(options))  # type: ignore[arg-type]
    for context, keys in KEYED_CONTEXTS.items():
        for key in keys:
            yield 0, "pgettext", (context, key), ["selfish_tui/event_text.py"]
    for edition, kinds in CARD_KEYS.items():
        for key in kinds:
            for context in CONTEXTS:
                yield 0, "pgettext", (context, key), [f"{edition} card"]
    for code in ErrorCode:
        yield 0, "pgettext", ("error", code.value), ["protocol/errors.py"]
