"""Help: the key bindings and the rules of the current edition (from docs/rules.md)."""

from __future__ import annotations

import functools
import io
import re
import sys
import threading
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Console
from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from selfish_tui import wrapping
from selfish_tui.i18n import N_, _, localised, pgettext
from selfish_tui.keyed_text import CARD_KEYS, card_kind, card_name, card_text

# The help and the log are Rich text: let their lines break between Chinese characters.
wrapping.install()


def keys_text() -> str:
    """The keys and the board's marks, as Markdown, in the active language."""
    return _(
        """\
## Keys

- **the key beside a choice** picks it: each card keeps its key (shown in the hand) while you
  hold it, players are **v w x y z** by seat, **s** stay, **m** move, **e** end actions, **a** do
  not block; **↑ ↓** and **Enter** also work (and the mouse). A card with several targets opens
  its targets (**Esc** goes back). A new prompt is marked *new* and takes keys after a moment;
  a key not taken is said on the prompt's lower border.
- **p t h l**: focus the prompt, strips (board), hand or log; **Tab** cycles
- **← → ↑ ↓** on the strips move a cursor: the line under the panels describes that cell
- **Enter** on a hand card jumps to the first choice that uses it
- **c** chat (Enter sends, Esc closes) · **b** bell on your turn on/off
- **g** shows the result again after a game · **q** leave the room (asks first mid-game)
- **?** or **F1** this help · **F2** 中文 / English · **ctrl+p** commands · **ctrl+q** quit

On the board columns are numbered as in the log; `@Name` is a character (`◉` yours, `✝`
dead), the header shows the character standing on each strip (reversed: whose turn it is),
`▶` marks everyone the game waits for, `★` the goal row, `▲` a shark, *italic* a card with a
shark icon; the last move is underlined, and so are hand sizes that just changed. In the hand
`●` marks a card you may play now. `☠` marks a choice that certainly kills you: you are asked
to confirm it.
"""
    )


SECTION = re.compile(r"^## ", re.MULTILINE)
# Inline Markdown: code, emphasis, links and images, HTML and entities, tables, strikethrough.
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>&#|~])")


def _literal(value: object) -> str:
    """A card's name or text inside Markdown, every special character escaped (no links, no
    emphasis: the text is shown as the catalogue words it)."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", str(value))


def rules_path() -> Path | None:
    """docs/rules.md of the source tree this package runs from, else the copy an installed
    package put in ``<prefix>/share/selfish/``, in the active language (rules.zh.md beside it
    in Chinese); None if neither is there."""
    for candidate in (
        Path(__file__).resolve().parents[2] / "docs" / "rules.md",
        Path(sys.prefix) / "share" / "selfish" / "rules.md",
    ):
        if candidate.is_file():
            return localised(candidate)
    return None


def rules_for(edition: str | None, variants: list[str] | None = None) -> str:
    """The common rules, the edition's own section, the variants on in the room (RULES V) and
    the house rules, as Markdown.

    Without docs/rules.md (an installed wheel has no docs/) the edition's card texts are listed
    instead, so help always explains every card on the table.
    """
    variants = variants or []
    on = (
        _("**Variants on in this room:** {variants}.").format(variants=", ".join(variants)) + "\n\n"
        if variants
        else ""
    )
    path = rules_path()
    if path is not None:
        text = path.read_text(encoding="utf-8")
        chunks = SECTION.split(text)
        keep: list[str] = []
        # The headings of rules.zh.md are these words' translations (太空版, 遇难版, 变体).
        other = _("Space") if edition == "shipwrecked" else _("Shipwrecked")
        for chunk in chunks[1:]:
            title = chunk.splitlines()[0] if chunk else ""
            if edition and other in title:
                continue
            if title.startswith(_("Variants")) and not variants:
                continue  # the variants' rules only while one is on
            keep.append("## " + chunk)
        return on + "\n".join(keep)
    lines = [on + "## " + _("Cards"), ""]
    cards = {
        key: kind
        for name, keys in CARD_KEYS.items()
        if edition in (None, name)
        for key, kind in keys.items()
    }
    for key, kind_key in sorted(cards.items(), key=lambda item: (item[1], card_name(item[0]))):
        name = _literal(card_name(key))
        text = _literal(card_text(key))
        kind = _literal(card_kind(kind_key))
        lines.append(f"- **{name}** ({kind}): {text}")
    return "\n".join(lines)


def help_markdown(edition: str | None, variants: list[str] | None = None) -> str:
    """The whole help of an edition as Markdown: a title, the keys, then :func:`rules_for`."""
    title = {"space": _("Space Edition"), "shipwrecked": _("Shipwrecked Edition")}.get(
        edition or "", _("both editions")
    )
    heading = _("Selfish — help ({title})").format(title=title)
    return join_wide_breaks(f"# {heading}\n\n{keys_text()}\n{rules_for(edition, variants)}")


# A line that starts a block of its own (list item, heading, table row, quote, fence).
BLOCK_START = re.compile(r"^\s*(?:[-*+] |\d+[.)] |#|\||>|```)")


def _wide(character: str) -> bool:
    return cell_len(character) == 2


def join_wide_breaks(markdown: str) -> str:
    """``markdown`` with the line breaks inside a paragraph removed where a wide (Chinese)
    character meets them: Markdown reads such a break as a space, which Chinese does not
    have, so the help showed stray spaces (and broke its lines there) wherever the source
    text was wrapped."""
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        previous = out[-1] if out else ""
        stripped = line.lstrip()
        if (
            not fenced
            and previous.strip()
            and stripped
            and not BLOCK_START.match(line)
            and not previous.lstrip().startswith(("#", "|"))
            and (_wide(previous.rstrip()[-1]) or _wide(stripped[0]))
        ):
            # Beside an emphasis or code mark a space stays: without it Markdown would not
            # read the mark ("用**↑ ↓**" shows its stars).
            marks = "*_`"
            joint = " " if previous.rstrip()[-1] in marks or stripped[0] in marks else ""
            out[-1] = previous.rstrip() + joint + stripped
        else:
            out.append(line)
    return "\n".join(out)


# The help text's side padding and its scrollbar's width (app.tcss #help-scroll; the gutter is
# kept even when nothing scrolls), so the width of its lines is known before it is shown.
HELP_PADDING = 2
HELP_SCROLLBAR = 2


def help_width(screen_width: int) -> int:
    """The width the help's lines are rendered at on a screen this wide."""
    return max(20, screen_width - HELP_PADDING - HELP_SCROLLBAR)


_rendering = threading.Lock()


@functools.lru_cache(maxsize=8)
def _render(markdown: str, width: int) -> tuple[Strip, ...]:
    console = Console(
        width=width,
        file=io.StringIO(),
        force_terminal=True,
        legacy_windows=False,
        highlight=False,
        emoji=False,
    )
    # Rich's Markdown, not Textual's Markdown widget: that one builds a widget per block.
    lines = console.render_lines(
        RichMarkdown(markdown, hyperlinks=False), console.options.update_width(width), pad=False
    )
    return tuple(Strip(line) for line in lines)


def rendered_help(markdown: str, width: int) -> tuple[Strip, ...]:
    """``markdown`` rendered into lines ``width`` cells wide, once per text and width.

    Rendering the rules costs 0.2-0.3 s of CPU (several times that on a loaded machine): the
    app does it in a thread while the table is on screen (:meth:`SelfishApp.prepare_help`), so
    the key that opens help only paints the lines in view. The lock makes a key pressed while
    that thread is still at work wait for its result instead of rendering the rules twice.
    """
    with _rendering:
        return _render(markdown, width)


class HelpText(ScrollView):
    """The help's lines, rendered once (:func:`rendered_help`); a paint draws only those in
    view, so opening, scrolling and closing cost no rendering of the rules."""

    def __init__(self, markdown: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.markdown = markdown
        self.lines: tuple[Strip, ...] = ()

    def on_mount(self) -> None:
        self._lay_out(self.app.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self._lay_out(self.app.size.width)

    def _lay_out(self, screen_width: int) -> None:
        width = help_width(screen_width)
        self.lines = rendered_help(self.markdown, width)
        self.virtual_size = Size(width, len(self.lines))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the view: the rendered line under it, cut to the view."""
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        index = scroll_y + y
        if index >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        line = self.lines[index].crop_extend(scroll_x, scroll_x + width, self.rich_style)
        return line.apply_style(self.rich_style)


class HelpScreen(ModalScreen[None]):
    """Keys and rules; Esc, q, ? or F1 closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", N_("Close")),
        Binding("q", "close", N_("Close"), show=False),
        Binding("question_mark", "close", N_("Close"), show=False),
        Binding("f1", "close", N_("Close"), show=False),
    ]

    def __init__(
        self,
        edition: str | None,
        variants: list[str] | None = None,
    ) -> None:
        super().__init__()
        self.edition = edition
        self.variants = variants or []

    def compose(self) -> ComposeResult:
        yield HelpText(help_markdown(self.edition, self.variants), id="help-scroll")
        # One line, not a Footer: composing a Footer's keys took half of the time help took to
        # open (bench/help.py: 59 -> 31 ms a later open).
        keys = Text()
        for key, what in (
            ("Esc", pgettext("help", "close")),
            ("↑ ↓ PgUp PgDn", pgettext("help", "scroll")),
        ):
            keys.append(f" {key} ", style="bold reverse")
            keys.append(f" {what}  ")
        yield Static(keys, id="help-keys")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def action_close(self) -> None:
        """Back to the game."""
        self.dismiss(None)
