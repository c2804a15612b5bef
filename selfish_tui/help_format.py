"""`selfish --help` in the active language, wrapped in terminal cells.

argparse wraps help with :mod:`textwrap`, which counts characters and breaks only at spaces: a
Chinese sentence (two cells a character, no spaces) comes out twice the width it was measured
at, and the terminal breaks it again wherever it overflows. :class:`CellHelpFormatter` wraps by
cells and may break between any two wide characters, never before a closing mark or after
an opening one.
:func:`localise_parser` also says argparse's own words (usage, options, -h) through the catalog,
so a Chinese help has no English headings and one kind of colon.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from rich.cells import cell_len, get_character_cell_size

from selfish_tui.i18n import _

# Marks that end a phrase in Chinese: they stay on the line of what they close.
_CLOSING = set("，。；：！？、）》」』】…,.;:!?)]")  # noqa: RUF001 (the Chinese marks are meant)
# And marks that open one: they stay on the line of what they open.
_OPENING = set("（《「『【")  # noqa: RUF001
_TOKEN = re.compile(r"\s+|[^\s]")


def _tokens(text: str) -> list[str]:
    """Words to place: a run of narrow characters up to a space, a single wide character
    (with the marks that open or close around it), or a run of spaces."""
    out: list[str] = []
    for piece in _TOKEN.findall(text):
        wide = get_character_cell_size(piece) == 2
        previous = out[-1] if out else ""
        if piece.isspace():
            out.append(" ")
        elif previous and (
            previous[-1] in _OPENING
            or (not previous.isspace() and piece in _CLOSING)
            or (not previous.isspace() and not wide and get_character_cell_size(previous[-1]) != 2)
        ):
            out[-1] = previous + piece
        else:
            out.append(piece)
    return out


def wrap_cells(text: str, width: int) -> list[str]:
    """``text`` (spaces collapsed) in lines of at most ``width`` cells, broken at spaces and
    between wide characters; a word longer than a line is left whole on a line of its own."""
    lines: list[str] = []
    line = ""
    for token in _tokens(" ".join(text.split())):
        if token == " ":
            if line:
                line += " "
            continue
        if line and cell_len(line.rstrip() + token) > width and line.strip():
            lines.append(line.rstrip())
            line = ""
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


class CellHelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, wrapping in cells (:func:`wrap_cells`) and saying "usage" in the
    active language."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap_cells(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap_cells(text, width - len(indent)))

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)

    def format_help(self) -> str:
        # argparse ends each section's heading with a ":" of its own: the language's colon.
        text = super().format_help()
        for title in (_("positional arguments"), _("options")):
            text = text.replace(
                f"\n{title}:\n", "\n" + _("{heading}:").format(heading=title) + "\n"
            )
        return text


def localise_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` and its sub-commands' parsers with argparse's own words in the active
    language and :class:`CellHelpFormatter`; returns ``parser``."""
    parser.formatter_class = CellHelpFormatter
    parser._positionals.title = _("positional arguments")
    parser._optionals.title = _("options")
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            action.help = _("show this help message and exit")
        elif isinstance(action, argparse._VersionAction):
            action.help = _("show the version number and exit")
        elif isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                localise_parser(sub)
    return parser
