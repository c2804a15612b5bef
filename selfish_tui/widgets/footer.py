"""The footer with every key's description in the active language.

Textual's Footer shows ``Binding.description`` as written in a class's ``BINDINGS``, which is
fixed when the class is made. Here each description is an English msgid, translated when the
footer is composed, so after :func:`selfish_tui.i18n.set_language` :meth:`LocalisedFooter.relabel`
shows the new language.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from selfish_tui.i18n import _


class LocalisedFooter(Footer):
    """A drop-in Footer whose key descriptions go through the catalog (and which does not
    list the command palette's key: the game's keys need the room at 80 columns)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("show_command_palette", False)
        super().__init__(**kwargs)

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.description:
                widget.description = _(widget.description)
            yield widget

    class Relabel(Message):
        """Compose the keys again (posted by :meth:`LocalisedFooter.relabel`)."""

    def relabel(self) -> None:
        """Show the descriptions again in the active language (after a language switch)."""
        self.post_message(self.Relabel())

    async def on_localised_footer_relabel(self, message: Relabel) -> None:
        # Recomposed while handling our own message: the keys bind their reactives to the
        # footer that is then the active message pump (from elsewhere they would fail).
        message.stop()
        await self.recompose()
