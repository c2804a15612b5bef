"""What a player's name and a chat line may be: the checks of ``hello``, ``join_room`` and
``chat`` (PROTOCOL.md §4, §8)."""

from __future__ import annotations

import re
import unicodedata

from protocol.confusables import skeleton
from protocol.errors import ErrorCode, ProtocolError

MAX_NAME = 24
MAX_CHAT = 300

# Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern, ...): a name
# of only these, spaces, marks and format characters is invisible.
BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u180e\u034f")
_INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Me"})
# What server bots are called (server.rooms.room): a person must not pass for one.
_BOT_NAME = re.compile(r"bot\s*\d+")
# The same on a name's confusables skeleton (protocol.confusables): 0 and 1 become O and l.
_BOT_SKELETON = re.compile(r"(?i:bot)\s*[0-9Ol]+")


def visible(name: str) -> bool:
    """Whether ``name`` draws at least one visible character."""
    return any(
        ch not in BLANK_GLYPHS and unicodedata.category(ch) not in _INVISIBLE_CATEGORIES
        for ch in name
    )


def check_name(name: str) -> str:
    """Return the cleaned player name or raise ``bad_name``: 1-24 printable characters, none
    of them a format character, at least one visible, and not a bot's name nor one that looks
    like it ("Bot 1" in any width or case, "Bot 1" with a Cyrillic o, U+043E)."""
    cleaned = name.strip()
    hidden = next((ch for ch in cleaned if unicodedata.category(ch) == "Cf"), None)
    if hidden is not None:
        # zero-width joiners, bidi marks and overrides: they change how the rest is drawn
        raise ProtocolError(
            ErrorCode.BAD_NAME,
            f"name must not hold invisible format characters (U+{ord(hidden):04X})",
        )
    if not 1 <= len(cleaned) <= MAX_NAME or not cleaned.isprintable():
        raise ProtocolError(ErrorCode.BAD_NAME, f"name must be 1-{MAX_NAME} printable characters")
    if not visible(cleaned):
        raise ProtocolError(ErrorCode.BAD_NAME, "name must show at least one visible character")
    if _BOT_NAME.fullmatch(unicodedata.normalize("NFKC", cleaned).casefold()) or any(
        _BOT_SKELETON.fullmatch(form) for form in (skeleton(cleaned), skeleton(cleaned.casefold()))
    ):
        raise ProtocolError(ErrorCode.BAD_NAME, "that name is kept for the server's bots")
    return cleaned


def check_chat(text: str, max_length: int = MAX_CHAT) -> str:
    """Return the cleaned chat line or raise ``bad_chat``."""
    cleaned = text.replace("\r", " ").replace("\n", " ").replace("\t", " ").strip()
    if not cleaned:
        raise ProtocolError(ErrorCode.BAD_CHAT, "chat text is empty")
    if len(cleaned) > max_length:
        raise ProtocolError(ErrorCode.BAD_CHAT, f"chat text is longer than {max_length}")
    if not cleaned.isprintable():
        raise ProtocolError(ErrorCode.BAD_CHAT, "chat text must be printable")
    return cleaned
