"""The client's languages: gettext catalogs (compiled by Babel), chosen per client.

Every language has one catalogue, ``locale/<lang>/LC_MESSAGES/selfish.mo``, compiled from its
``selfish.po`` and shipped with the package (docs/i18n.md says how to rebuild them;
tests/tui/test_i18n.py fails when a pair disagrees). The interface's own words have their English
as msgid, so the English catalogue needs none of them; the game's words (events, prompts,
choices, cards, error messages) are keyed by the engine's and the protocol's keys (msgid = the
key, :func:`keyed`), and both catalogues hold every one of them.

The active language can change while the app runs (:func:`set_language`); :func:`_` and friends
look it up at call time, so a screen shows the new language as soon as it is drawn again. It is
the process's, unless a task takes one of its own (:func:`own_language`): the tasks it starts
(an app and all its widgets) then share that one, so two apps in one process, as in the tests
of a mixed table, each read their own language. Text is measured and cut in terminal cells
(:func:`cell_width`, :func:`cut`, :func:`fit`): a CJK character takes two cells, and a cut never
splits one.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len, get_character_cell_size

DOMAIN = "selfish"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "zh")
"""The languages a client can choose (``--lang``); the first is the default."""
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}
ELLIPSIS = "…"


@dataclass
class _Language:
    """A language in use and its catalog; mutable, so that switching reaches every task that
    shares it."""

    code: str = LANGUAGES[0]
    loaded: gettext.NullTranslations | None = None

    @property
    def translations(self) -> gettext.NullTranslations:
        """The language's catalogue, read when first used (importing the client reads none)."""
        if self.loaded is None:
            self.loaded = load(self.code)
        return self.loaded


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale environment asks for: 'zh' for ``zh_*``, else 'en'.

    As POSIX orders them, the first of LC_ALL, LC_MESSAGES and LANG that is set and not empty
    decides, so ``LC_ALL=C`` wins over ``LANG=zh_CN.UTF-8``.
    """
    env = os.environ if environ is None else environ
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(variable, "")
        if value:
            base = value.replace("-", "_").split(".")[0].split("@")[0].split("_")[0]
            return "zh" if base.lower() == "zh" else "en"
    return LANGUAGES[0]


def choose_language(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """An explicit ``--lang`` value if given, else the environment's (:func:`language_from_env`).

    Raises ValueError for a language the client does not have.
    """
    if explicit is None:
        return language_from_env(environ)
    if explicit not in LANGUAGES:
        raise ValueError(f"unknown language {explicit!r} (choose from {', '.join(LANGUAGES)})")
    return explicit


def load(language: str) -> gettext.NullTranslations:
    """The catalog of ``language`` (English has one too: its keyed entries)."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r} (choose from {', '.join(LANGUAGES)})")
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language])


# The process's language: the one every task shares until it takes its own (own_language).
_PROCESS = _Language()
_active: ContextVar[_Language | None] = ContextVar("selfish_language", default=None)


def _current() -> _Language:
    return _active.get() or _PROCESS


def set_language(language: str) -> None:
    """Make ``language`` the active one for every later lookup (the app then redraws).

    Raises ValueError for an unknown language and OSError when its compiled catalog is missing
    (a broken install: better said at start-up than shown as silent English).
    """
    active = _current()
    active.loaded = load(language)
    active.code = language


def own_language(language: str) -> None:
    """Give the current task, and every task it starts from now on, a language of its own
    (``language``), apart from the process's."""
    _active.set(_Language(language, load(language)))


def current_language() -> str:
    """The active language ('en' or 'zh')."""
    return _current().code


def _(message: str) -> str:
    """``message`` (an English msgid) in the active language."""
    return _current().translations.gettext(message)


def N_(message: str) -> str:
    """``message`` unchanged, marked for extraction: for msgids fixed when a class is made
    (key descriptions, which :class:`~selfish_tui.widgets.footer.LocalisedFooter` translates
    when it draws them)."""
    return message


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural msgid for ``count``, translated (Chinese has one form)."""
    return _current().translations.ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` translated within ``context`` (the same English word may need two
    translations, e.g. a card's key under "card" and under "card text")."""
    return _current().translations.pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, count: int) -> str:
    """:func:`ngettext` within a context."""
    return _current().translations.npgettext(context, singular, plural, count)


def keyed(context: str, key: str) -> str | None:
    """A keyed entry (msgctxt ``context``, msgid ``key``: a card, an event, an error code ...)
    in the active language's catalogue, or None when it has none (a key newer than the
    client)."""
    text = _current().translations.pgettext(context, key)
    return None if text == key else text


def localised(path: Path) -> Path:
    """The active language's version of a file beside ``path`` (``rules.zh.md`` for
    ``rules.md`` in Chinese) when there is one, else ``path`` itself."""
    language = current_language()
    if language == LANGUAGES[0]:
        return path
    candidate = path.with_name(f"{path.stem}.{language}{path.suffix}")
    return candidate if candidate.is_file() else path


# --- cells ---------------------------------------------------------------------------------------


def cell_width(text: str) -> int:
    """How many terminal cells ``text`` takes (a CJK character takes two)."""
    return cell_len(text)


def cut(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` in at most ``width`` cells: whole if it fits, else cut and ended with
    ``ellipsis``. A wide character that would straddle the edge is left out whole (the result
    is then one cell short), and combining marks stay with their base character."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    room = width - cell_len(ellipsis)
    if room < 0:
        return ""
    kept: list[str] = []
    used = 0
    for character in text:
        size = get_character_cell_size(character)
        if used + size > room:
            break
        kept.append(character)
        used += size
    return "".join(kept) + ellipsis


def fit(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` :func:`cut` to ``width`` cells and padded with spaces to exactly ``width``
    (the board's columns line up whatever the language)."""
    short = cut(text, width, ellipsis)
    return short + " " * max(0, width - cell_len(short))


def _wide(character: str) -> bool:
    return get_character_cell_size(character) == 2


def word_cut(text: str, width: int, ellipsis: str = ELLIPSIS, *, inside: bool = True) -> str:
    """``text`` in at most ``width`` cells, cut at a word boundary and ended with
    ``ellipsis`` when it does not fit whole.

    A boundary is a space or punctuation mark (the cut drops the spaces and separators before
    the ellipsis), or the edge of a wide character: Chinese has no spaces, and each character
    reads as a word. A first word longer than ``width`` (a name) is cut inside, as :func:`cut`
    does, since nothing else would fit; with ``inside=False`` only the ellipsis is left then
    (a card's effect beside its name: the detail line has it whole).
    """
    if cell_len(text) <= width:
        return text
    short = cut(text, width, ellipsis)
    kept = short[: len(short) - len(ellipsis)] if short.endswith(ellipsis) else short
    following = text[len(kept)] if len(kept) < len(text) else " "
    if not kept or _boundary(kept[-1], following):
        return _trimmed(kept) + ellipsis
    for index in range(len(kept) - 1, 0, -1):
        if _boundary(kept[index - 1], kept[index]):
            head = _trimmed(kept[:index])
            if head:
                return head + ellipsis
    return short if inside else ellipsis


_SEPARATORS = " \t,;:.·—–-/()（）、，；：。"  # noqa: RUF001 (the Chinese marks are meant)


def _boundary(before: str, after: str) -> bool:
    """Whether a cut between ``before`` and ``after`` falls between words."""
    return before in _SEPARATORS or after in _SEPARATORS or _wide(before) or _wide(after)


def _trimmed(text: str) -> str:
    """``text`` without the spaces and separators it ends with (an ellipsis after "Oxygen,"
    reads as "Oxygen,…"); closing brackets stay."""
    return text.rstrip(" \t,;:·—–-/、，；：")  # noqa: RUF001
