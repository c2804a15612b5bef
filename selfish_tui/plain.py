"""Strings from the network, made safe to draw: no terminal controls, measured in cells.

Every string the client receives is hostile (a player's name, a room's host, chat, a server's
banner or error message). :func:`clean_message` runs once on every decoded message, where frames
become the client's model, so nothing later can forget it: it drops C0/C1 control characters and
whole escape sequences (CSI, OSC, DCS, ...), whose bytes would otherwise reach the terminal
(OSC 52 writes the clipboard, OSC 0 the title, CSI 2J clears the screen). Markup is the widgets'
side of the same rule: they draw these strings as ``rich.text.Text``, never as markup.

Widths are terminal cells, not ``len()``: a fullwidth character takes two cells, a combining
mark none, so :func:`fit` cuts a name to a column's width with an ellipsis.
"""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len, set_cell_size

# A whole escape sequence, 7-bit (ESC ...) or 8-bit (C1 introducer), so that its parameters do
# not stay behind as visible garbage. String sequences (OSC, DCS, SOS, PM, APC) run to their
# terminator (BEL or ST) or, unterminated, to the end of the string.
_SEQUENCE = re.compile(
    r"""
    (?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?        # CSI
  | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)  # OSC, DCS, SOS, PM, APC
  | \x1b[\x20-\x2f]*[\x30-\x7e]?                              # any other ESC sequence
    """,
    re.VERBOSE | re.DOTALL,
)
# What is left after the sequences: C0, DEL and C1 controls, plus the bidirectional overrides
# and isolates, which reorder what follows them and so could make a line read as another.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Line breaks and tabs become a space (a name or a chat line is one line), the rest vanish.
_SPACE = re.compile("[\t\n\r\x0b\x0c\x85\u2028\u2029]")
ELLIPSIS = "…"


def clean(text: str) -> str:
    """``text`` without escape sequences or control characters (line breaks become spaces)."""
    if text.isascii() and text.isprintable():
        return text  # the common case, and nothing to strip
    return _CONTROL.sub("", _SPACE.sub(" ", _SEQUENCE.sub("", text)))


def clean_message(value: Any) -> Any:
    """A decoded message with :func:`clean` applied to every string in it, keys included.

    A loop over what is left to copy, never a recursion: the depth of what a server sends is
    the server's to choose (the decoder bounds it, and this does not rely on that)."""
    root: list[Any] = [None]
    todo: list[tuple[Any, Any, Any]] = [(root, 0, value)]  # (copy, index in it, original)
    while todo:
        target, index, item = todo.pop()
        if isinstance(item, str):
            target[index] = clean(item)
        elif isinstance(item, dict):
            copy: dict[Any, Any] = {}
            pairs = [(clean(k) if isinstance(k, str) else k, v) for k, v in item.items()]
            for key, _ in pairs:
                copy[key] = None  # the keys' order first
            todo.extend((copy, key, v) for key, v in reversed(pairs))  # popped in order
            target[index] = copy
        elif isinstance(item, list | tuple):
            items: list[Any] = [None] * len(item)
            todo.extend((items, i, v) for i, v in reversed(list(enumerate(item))))
            target[index] = items
        else:
            target[index] = item
    return root[0]


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes."""
    return cell_len(text)


def fit(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` cells, ending in '…' when something was cut."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    cut = set_cell_size(text, width - 1)
    # set_cell_size pads with a space when a wide character would straddle the edge.
    return cut.rstrip(" ") + ELLIPSIS if cut.endswith(" ") else cut + ELLIPSIS


def pad(text: str, width: int) -> str:
    """``text`` fitted to ``width`` cells and padded with spaces to exactly that width."""
    cut = fit(text, width)
    return cut + " " * (width - cell_len(cut))
