"""The client's languages: catalog coverage, the compiled catalog, language choice, plurals,
keyed card and error texts, sentence templates, and cutting text in terminal cells."""

from __future__ import annotations

import gettext
import io
import re
import string
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets._footer import FooterKey

from protocol.errors import ErrorCode
from protocol.game_types import Card, Choice, Decision, Event
from protocol.vocabulary import EVENTS
from selfish_tui import i18n
from selfish_tui.event_text import (
    KEYED_CONTEXTS,
    card_list,
    choice_label,
    fill,
    render_event,
    render_prompt,
    template,
)
from selfish_tui.keyed_text import CARD_KEYS, card_name, card_short, card_text, error_message
from selfish_tui.widgets.footer import LocalisedFooter
from server.engine.cards import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "selfish_tui" / "locale"
PO = LOCALE / "zh" / "LC_MESSAGES" / "selfish.po"
EN_PO = LOCALE / "en" / "LC_MESSAGES" / "selfish.po"
MO = PO.with_suffix(".mo")
#: The contexts whose msgid is a key (an engine's, a card's, an error code), not the English.
KEYED = {*KEYED_CONTEXTS, "card", "card short", "card text", "error"}


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    """The language is process-wide: every test leaves the client in English."""
    yield
    i18n.set_language("en")


def zh_catalog() -> Catalog:
    with PO.open("rb") as handle:
        return read_po(handle)


def en_catalog() -> Catalog:
    with EN_PO.open("rb") as handle:
        return read_po(handle)


def extracted() -> list[tuple[str | None, str | tuple[str, ...], str]]:
    """(context, msgid, where) of every message Babel extracts from selfish_tui, the way the
    documented `pybabel extract -F babel.cfg ... selfish_tui` does."""
    with (ROOT / "babel.cfg").open() as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    found = []
    for filename, lineno, message, _comments, context in extract_from_dir(
        str(ROOT / "selfish_tui"), method_map, options_map
    ):
        found.append((context, message, f"{filename}:{lineno}"))
    return found


def test_every_extracted_string_has_a_chinese_translation() -> None:
    catalog = zh_catalog()
    found = extracted()
    assert len(found) > 150  # the card keys, error codes and sentence templates at least
    missing = []
    for context, message, where in found:
        msgid = message[0] if isinstance(message, tuple) else message
        entry = catalog.get(msgid, context=context)
        strings = entry.string if entry is not None else None
        forms = list(strings) if isinstance(strings, tuple | list) else [strings]
        if entry is None or entry.fuzzy or not all(forms):
            missing.append(f"{where}: {context or ''}|{msgid}")
    assert not missing, "no Chinese for:\n" + "\n".join(missing)


def test_every_keyed_entry_has_english() -> None:
    """The English catalogue holds every extracted keyed entry (the interface's own words are
    their English msgids and need none)."""
    catalog = en_catalog()
    missing = [
        f"{where}: {context}|{message}"
        for context, message, where in extracted()
        if context in KEYED
        and (
            (entry := catalog.get(str(message), context=context)) is None
            or entry.fuzzy
            or not entry.string
        )
    ]
    assert not missing, "no English for:\n" + "\n".join(missing)
    assert [entry.context for entry in catalog if entry.id and entry.context not in KEYED] == []


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_the_shipped_mo_is_compiled_from_the_po(language: str) -> None:
    """selfish.mo is committed (no build step); it must say what selfish.po says."""
    po = LOCALE / language / "LC_MESSAGES" / "selfish.po"
    compiled = io.BytesIO()
    with po.open("rb") as handle:
        write_mo(compiled, read_po(handle))
    compiled.seek(0)
    fresh = gettext.GNUTranslations(compiled)
    with po.with_suffix(".mo").open("rb") as handle:
        shipped = gettext.GNUTranslations(handle)
    assert shipped._catalog == fresh._catalog, (  # type: ignore[attr-defined]
        "selfish.mo is stale: python -m babel.messages.frontend compile "
        "-d selfish_tui/locale -D selfish"
    )


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_translations_keep_the_placeholders_of_their_msgid() -> None:
    """A misspelt {name} in a translation would fail at run time; a dropped one loses a fact.
    A keyed entry's placeholders are its English's."""
    english = en_catalog()
    wrong = []
    for entry in zh_catalog():
        if not entry.id:
            continue
        if entry.context in KEYED:
            found = english.get(entry.id, context=entry.context)
            ids = (found.string if found is not None else "",)
        else:
            ids = entry.id if isinstance(entry.id, tuple) else (entry.id,)
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        expected = set().union(*(placeholders(i) for i in ids))
        for translated in strings:
            if placeholders(translated) != expected:
                wrong.append(f"{ids[0]!r} -> {translated!r}")
    assert not wrong, "\n".join(wrong)


def test_card_keys_are_the_engine_catalogue_keys() -> None:
    assert {edition: set(keys) for edition, keys in CARD_KEYS.items()} == {
        edition: set(cards) for edition, cards in CATALOGUE.items()
    }


def test_the_english_cards_are_the_engines() -> None:
    """The English catalogue's card names and texts are the rules engine's."""
    engine = {key: entry for cards in CATALOGUE.values() for key, entry in cards.items()}
    catalog = en_catalog()
    for key, entry in engine.items():
        assert catalog.get(key, context="card").string == entry["name"]
        assert catalog.get(key, context="card text").string == entry["text"]


def test_keyed_translations_were_made_from_the_current_english() -> None:
    """Each keyed Chinese entry notes the English it translates (``# en: ...``): a change of
    the English shows up here until the translation is made again."""
    english = en_catalog()
    stale = []
    for entry in zh_catalog():
        if entry.id and entry.context in KEYED and entry.context not in ("card short", "error"):
            now = english.get(entry.id, context=entry.context).string
            # The .po wraps long comments over several lines.
            if " ".join(entry.user_comments) != f"en: {now}":
                stale.append(f"{entry.context}|{entry.id}: now {now!r}")
    assert not stale, "retranslate:\n" + "\n".join(stale)


def test_cards_in_chinese_use_the_original_texts_names() -> None:
    i18n.set_language("zh")
    names = {
        "cosmic_radiation": "宇宙辐射",
        "wormhole": "虫洞",
        "solar_flare": "太阳耀斑",
        "tractor_beam": "牵引光束",
        "shield": "护盾",
        "calm_waters": "平静的海域",
        "sea_monster": "海怪",
        "whirlpool": "漩涡",
        "feeding_frenzy": "狂食盛宴",
        "dive": "潜水",
        "message_in_a_bottle": "瓶中信",
    }
    assert {key: card_name(key) for key in names} == names
    assert card_text("whirlpool").startswith("与另一名遇难者交换位置")
    assert cell_len(card_short("davy_jones_locker")) <= 6


def test_cards_and_errors_read_from_the_english_catalogue() -> None:
    assert card_name("wormhole") == "Wormhole"
    assert card_short("cosmic_radiation") == "Radiation"
    assert card_short("laser_blast") == "Laser Blast"
    assert card_text("blank_space") == "Nothing happens."
    assert error_message("no_such_room") == "There is no room with that code."


def test_keys_newer_than_the_client_read_as_themselves() -> None:
    i18n.set_language("zh")
    assert card_name("a_card_from_a_newer_server") == "a_card_from_a_newer_server"
    assert card_text("a_card_from_a_newer_server") == ""
    assert error_message("a_newer_code") == "服务器拒绝了：a_newer_code"  # noqa: RUF001


def test_every_error_code_has_a_message_in_each_language() -> None:
    for code in ErrorCode:
        assert error_message(code.value) != f"The server refused: {code.value}", code
    i18n.set_language("zh")
    for code in ErrorCode:
        assert re.search(r"[\u4e00-\u9fff]", error_message(code.value)), code


# --- choosing and switching the language ---------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh_TW.Big5"}, "zh"),
        ({"LANG": "zh"}, "zh"),
        ({"LANG": "en_GB.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({}, "en"),
        # POSIX order: LC_ALL, then LC_MESSAGES, then LANG; an empty one does not count.
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LC_MESSAGES": "zh_HK.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_SG.UTF-8"}, "zh"),
        ({"LC_MESSAGES": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),
    ],
)
def test_language_from_the_environment(environ: dict[str, str], language: str) -> None:
    assert i18n.language_from_env(environ) == language


def test_language_from_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.choose_language() == "zh"


def test_an_explicit_language_wins_over_the_environment() -> None:
    assert i18n.choose_language("en", {"LANG": "zh_CN.UTF-8"}) == "en"
    assert i18n.choose_language("zh", {"LANG": "en_US.UTF-8"}) == "zh"
    with pytest.raises(ValueError, match="fr"):
        i18n.choose_language("fr")


def test_switching_at_run_time_changes_every_later_lookup() -> None:
    assert i18n._("Quit") == "Quit"
    i18n.set_language("zh")
    assert i18n.current_language() == "zh"
    assert i18n._("Quit") == "退出"
    assert i18n.pgettext("phase", "stay or move") == "停留或前进"
    assert template("event", "turn") == "第{turn}回合：{player}。"  # noqa: RUF001
    i18n.set_language("en")
    assert i18n._("Quit") == "Quit"
    assert template("event", "turn") == "Turn {turn}: {player}."
    with pytest.raises(ValueError):
        i18n.set_language("xx")
    assert i18n.current_language() == "en"


def test_plural_forms() -> None:
    assert i18n.ngettext("{count} card", "{count} cards", 1) == "{count} card"
    assert i18n.ngettext("{count} card", "{count} cards", 2) == "{count} cards"
    assert i18n.ngettext("{count} card", "{count} cards", 0) == "{count} cards"
    i18n.set_language("zh")
    # Chinese has one form (Plural-Forms: nplurals=1), whatever the count.
    assert zh_catalog().num_plurals == 1
    for count in (0, 1, 2, 5):
        text = i18n.ngettext("{count} card", "{count} cards", count).format(count=count)
        assert text == f"{count}张牌"
    assert i18n.ngettext("after {turns} turn", "after {turns} turns", 1) == "共{turns}回合"


# --- sentence templates ----------------------------------------------------------------------


def event(key: str, **args: object) -> Event:
    """An event as a client reads it off the wire."""
    return Event.from_wire({"kind": EVENTS[key].kind, "key": key, "seat": None, "args": args})


def card(card_id: int, key: str, direction: str | None = None) -> dict[str, object]:
    """A game card's wire form."""
    return {"id": card_id, "key": key, "kind": "action", "value": 0, "dir": direction}


def test_a_sentence_renders_in_each_language_from_the_same_arguments() -> None:
    played = event("play.on", player=0, card=card(3, "pirate", "N"), target=1)
    assert render_event(played, ["Ann", "Bob"]) == "Ann plays Pirate ↑N on Bob."
    i18n.set_language("zh")
    assert render_event(played, ["Ann", "Bob"]) == "Ann对Bob使用了海盗 ↑北。"
    assert card_list(["氧气", "双张氧气"]) == "氧气、双张氧气"
    assert card_list([]) == "无"


def test_a_redacted_event_reads_as_its_public_sentence() -> None:
    whole = event("draw", player=0, card=card(3, "shield"))
    hidden = event("draw", player=0)
    assert render_event(whole, ["Ann"]) == "Ann draws Shield."
    assert render_event(hidden, ["Ann"]) == "Ann draws a card."
    i18n.set_language("zh")
    assert render_event(hidden, ["Ann"]) == "Ann抽了一张牌。"


def test_a_key_or_arg_the_client_lacks_reads_as_a_line_naming_the_key() -> None:
    """Never another text (there is no server sentence to fall back on)."""
    comet = Event("info", "comet", None, {})
    assert render_event(comet, []) == "(an event this client does not know: comet)"
    # A seat the names do not have leaves its placeholder unfilled.
    stray = event("play.on", player=0, card=card(3, "pirate"), target=7)
    assert render_event(stray, ["Ann"]) == "(an event this client does not know: play.on)"
    assert render_prompt(Decision("comet"), []) == "Choose:"
    i18n.set_language("zh")
    assert render_event(comet, []) == "（本客户端不认识的事件：comet）"  # noqa: RUF001


def test_hostile_values_are_inserted_as_they_are() -> None:
    """A name with braces or markup is a value: it is never read as a template."""
    name = "{player}[bold]x[/]"
    assert fill("choice", "swap", {"player": name}) == f"Swap places with {name}"
    swap = Choice("swap", target=1)
    assert choice_label(swap, ["Ann", name], "space", {}) == f"Swap places with {name}"


def test_a_prompt_and_a_choice_render_in_each_language_from_keys_alone() -> None:
    decision = Decision.from_wire(
        {"kind": "react", "args": {"player": 1, "card": card(9, "tractor_beam")}, "reveal": []}
    )
    shield = Card.from_wire(card(4, "shield"))
    names = ["Ann", "Bob"]
    block, accept = Choice("block", card=4), Choice("accept")
    assert render_prompt(decision, names) == "Bob plays Tractor Beam on you."
    assert choice_label(block, names, "space", {4: shield}) == "Block with Shield"
    assert choice_label(accept, names, "space", {}) == "Do not block"
    i18n.set_language("zh")
    assert render_prompt(decision, names) == "Bob对你使用了牵引光束。"
    assert choice_label(block, names, "space", {4: shield}) == "用护盾阻挡"
    assert choice_label(accept, names, "space", {}) == "不阻挡"


def test_a_bots_choice_renders_as_its_label_in_the_active_language() -> None:
    names = ["Ann", "Bob"]
    timeout = event("timeout", player=0, choice={"do": "swap", "target": 1})
    said = "Ann ran out of time; their bot chose: Swap places with Bob."
    assert render_event(timeout, names) == said
    hidden = event("timeout", player=0)
    assert render_event(hidden, names) == "Ann ran out of time; their bot decided."
    # Its cards by id from what the client has seen (they have left the hand since).
    paid = event("bot", player=0, choice={"do": "pay", "cards": [5, 6]})
    seen = {5: Card(5, "food", "resource", 1, "N")}
    assert render_event(paid, names, "shipwrecked", seen) == (
        "Ann is away; their bot chose: Pay with Food ↑N and a card."
    )
    i18n.set_language("zh")
    assert render_event(timeout, names) == "Ann超时了；电脑替其选择了：与Bob交换位置。"  # noqa: RUF001
    assert render_event(hidden, names) == "Ann超时了；电脑替其做了决定。"  # noqa: RUF001


def test_a_choice_whose_card_the_client_has_not_seen_says_a_card() -> None:
    i18n.set_language("zh")
    assert choice_label(Choice("play", card=7), ["Ann"], "space", {}) == "使用一张牌"


# --- cells -----------------------------------------------------------------------------------


def test_cell_width_counts_wide_characters_twice() -> None:
    assert i18n.cell_width("Wormhole") == 8
    assert i18n.cell_width("虫洞") == 4
    assert i18n.cell_width("@安娜 ▲") == 7


@pytest.mark.parametrize("width", range(12))
def test_a_fullwidth_cut_never_splits_a_character(width: int) -> None:
    text = "宇宙辐射太阳耀斑"  # 16 cells
    short = i18n.cut(text, width)
    assert cell_len(short) <= width
    if width:
        assert short.endswith("…")
        kept = short[:-1]
        assert text.startswith(kept)
        # As many whole characters as fit beside the ellipsis: a half would have fitted only
        # by splitting one.
        assert len(kept) == (width - 1) // 2
    padded = i18n.fit(text, width)
    assert cell_len(padded) == width


def test_cut_examples() -> None:
    assert i18n.cut("宇宙辐射", 5) == "宇宙…"
    assert i18n.cut("宇宙辐射", 4) == "宇…"
    assert i18n.fit("宇宙辐射", 4) == "宇… "
    assert i18n.cut("宇宙辐射", 8) == "宇宙辐射"
    assert i18n.cut("Ann 安娜", 6) == "Ann …"
    assert i18n.cut("Calm Waters", 5) == "Calm…"
    assert i18n.cut("anything", 0) == ""
    # A combining accent stays with its letter (and takes no cell).
    assert i18n.cut("e\u0301e\u0301e\u0301", 3) == "e\u0301e\u0301e\u0301"
    assert i18n.cut("e\u0301e\u0301e\u0301x", 3) == "e\u0301e\u0301…"


# --- the rules in Chinese --------------------------------------------------------------------


def rule_ids(path: Path) -> list[str]:
    return re.findall(r"^\*\*([CSWV]\d+)\*\*", path.read_text(encoding="utf-8"), re.MULTILINE)


def test_a_file_is_read_in_the_active_language_when_there_is_a_translation(
    tmp_path: Path,
) -> None:
    rules = tmp_path / "rules.md"
    rules.write_text("# Rules", encoding="utf-8")
    other = tmp_path / "notes.md"
    assert i18n.localised(rules) == rules
    (tmp_path / "rules.zh.md").write_text("# 规则", encoding="utf-8")
    assert i18n.localised(rules) == rules
    i18n.set_language("zh")
    assert i18n.localised(rules) == tmp_path / "rules.zh.md"
    assert i18n.localised(other) == other  # no translation: the English file
    assert i18n.localised(ROOT / "docs" / "rules.md") == ROOT / "docs" / "rules.zh.md"


def test_the_chinese_rules_have_every_rule_of_the_english_ones() -> None:
    english = rule_ids(ROOT / "docs" / "rules.md")
    assert english
    assert rule_ids(ROOT / "docs" / "rules.zh.md") == english
    # The help screen keeps one edition's section by its heading: _("Space") / _("Shipwrecked").
    i18n.set_language("zh")
    headings = re.findall(r"^## (.+)$", (ROOT / "docs" / "rules.zh.md").read_text("utf-8"), re.M)
    assert i18n._("Space") in headings
    assert i18n._("Shipwrecked") in headings


# --- the footer ------------------------------------------------------------------------------


class FooterApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
    ]

    def compose(self) -> ComposeResult:
        yield LocalisedFooter()


def footer_text(app: App[None]) -> list[str]:
    return [str(key.render()) for key in app.query(FooterKey)]


async def test_the_footer_shows_key_descriptions_in_the_active_language() -> None:
    app = FooterApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert any("Quit" in text for text in footer_text(app))
        i18n.set_language("zh")
        app.query_one(LocalisedFooter).relabel()
        await pilot.pause()
        await pilot.pause()
        texts = footer_text(app)
        assert any("退出" in text for text in texts)
        assert any("帮助" in text for text in texts)
        assert not any("Quit" in text for text in texts)
