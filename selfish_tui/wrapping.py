"""Line breaks for Chinese in Rich's wrapping (the help and the log are Rich text).

Rich breaks lines only at spaces, so a Chinese sentence, which has none, is one long "word":
it goes to the next line whole, leaving the line before it half empty, or is folded at the edge
wherever that falls, a closing bracket alone at the start of a line. :func:`words` lets a line
break between any two wide characters, never before a closing mark or after an opening one;
text without wide characters is split exactly as Rich splits it. :func:`install` makes Rich use
it (``rich._wrap.words``, looked up by ``divide_line`` at each call); Textual's own widgets wrap
with their own code and are not touched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import rich._wrap

# A word: spaces before it, opening marks, then one wide character or a run of narrow ones,
# closing marks, and the spaces after it (which Rich's words carry too).
_WIDE = "\u2e80-\u303f\u3040-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
# (A compass arrow opens too: "↑北" is one word.)
_OPENING = "（《「『【〈“‘↑↓←→"  # noqa: RUF001 (the Chinese marks are meant)
_CLOSING = "，。；：！？、）》」』】〉”’…"  # noqa: RUF001
_WORD = re.compile(rf"\s*[{_OPENING}]*(?:[{_WIDE}]|[^\s{_WIDE}]+)[{_CLOSING}]*\s*|\s+")
_ANY_WIDE = re.compile(f"[{_WIDE}]")
_original = rich._wrap.words


def words(text: str) -> Iterable[tuple[int, int, str]]:
    """(start, end, word) for each word of ``text``, as ``rich._wrap.words`` yields them, a
    wide character being a word of its own."""
    if not _ANY_WIDE.search(text):
        yield from _original(text)
        return
    position = 0
    for match in _WORD.finditer(text):
        start, end = match.span()
        if start != position:  # cannot happen: the pattern covers every character
            break
        yield start, end, match.group(0)
        position = end


def install() -> None:
    """Let Rich break lines between Chinese characters (idempotent)."""
    rich._wrap.words = words  # type: ignore[assignment]
