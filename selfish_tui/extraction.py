"""The Babel extraction method for the keyed entries (babel.cfg): what is data, not calls.

Card keys, error codes and the game's sentence keys are tables, so the python method finds no
``pgettext`` call for them; this method yields one per key and context, with the calls of the
file it reads (selfish_tui/keyed_text.py). A module of its own: it reads both event_text.py's
and keyed_text.py's tables, and event_text.py imports keyed_text.py.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

from protocol.errors import ErrorCode
from selfish_tui.event_text import KEYED_CONTEXTS
from selfish_tui.keyed_text import CARD_KEYS, CONTEXTS


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
