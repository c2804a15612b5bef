"""The client's languages: catalog coverage, the compiled catalog, language choice, plurals,
keyed card and error texts, sentence templates, and cutting text in terminal cells."""

from __future__ import annotations

import gettext
import io
import random
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
from selfish_tui import i18n
from selfish_tui.event_text import (
    ENGLISH_REASONS,
    card_list,
    choice_label,
    choice_templates,
    event_templates,
    prompt_templates,
    public_event_templates,
    reason_words,
    render,
    render_event,
    render_prompt,
    with_direction,
)
from selfish_tui.keyed_text import CARD_KEYS, card_name, card_short, card_text, error_message
from selfish_tui.widgets.footer import LocalisedFooter
from server.engine import english
from server.engine.cards import CATALOGUE
from server.engine.game import Game

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "selfish_tui" / "locale" / "zh" / "LC_MESSAGES" / "selfish.po"
MO = PO.with_suffix(".mo")


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    """The language is process-wide: every test leaves the client in English."""
    yield
    i18n.set_language("en")


def zh_catalog() -> Catalog:
    with PO.open("rb") as handle:
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


def test_the_shipped_mo_is_compiled_from_the_po() -> None:
    """selfish.mo is committed (no build step); it must say what selfish.po says."""
    compiled = io.BytesIO()
    write_mo(compiled, zh_catalog())
    compiled.seek(0)
    fresh = gettext.GNUTranslations(compiled)
    with MO.open("rb") as handle:
        shipped = gettext.GNUTranslations(handle)
    assert shipped._catalog == fresh._catalog, (  # type: ignore[attr-defined]
        "selfish.mo is stale: python -m babel.messages.frontend compile "
        "-d selfish_tui/locale -D selfish"
    )


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_translations_keep_the_placeholders_of_their_msgid() -> None:
    """A misspelt {name} in a translation would fail at run time; a dropped one loses a fact."""
    wrong = []
    for entry in zh_catalog():
        if not entry.id or entry.context in ("card", "card short", "card text", "error"):
            continue
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


def test_card_translations_were_made_from_the_current_english() -> None:
    """Each card entry notes the English it translates; an engine text change shows up here."""
    english = {key: entry for cards in CATALOGUE.values() for key, entry in cards.items()}
    stale = []
    for entry in zh_catalog():
        if entry.context in ("card", "card text"):
            field = "text" if entry.context == "card text" else "name"
            # The .po wraps long comments over several lines.
            if " ".join(entry.user_comments) != f"en: {english[entry.id][field]}":
                stale.append(f"{entry.context}|{entry.id}: now {english[entry.id][field]!r}")
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
    assert {key: card_name(key, "?") for key in names} == names
    assert card_text("whirlpool", "?").startswith("与另一名遇难者交换位置")
    assert cell_len(card_short("davy_jones_locker", "?")) <= 6


def test_english_and_unknown_keys_fall_back_to_what_the_server_sent() -> None:
    assert card_name("wormhole", "Wormhole") == "Wormhole"
    assert card_text("wormhole", "Swap places.") == "Swap places."
    assert error_message("no_such_room", "no room QZKX") == "no room QZKX"
    i18n.set_language("zh")
    assert card_name("a_card_from_a_newer_server", "Comet") == "Comet"
    assert error_message("a_newer_code", "server text") == "server text"


def test_every_error_code_has_a_chinese_message() -> None:
    i18n.set_language("zh")
    for code in ErrorCode:
        message = error_message(code.value, "")
        assert message and re.search(r"[\u4e00-\u9fff]", message), code


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
    assert event_templates()["turn"] == "第{turn}回合：{player}。"  # noqa: RUF001
    i18n.set_language("en")
    assert i18n._("Quit") == "Quit"
    assert event_templates()["turn"] == "Turn {turn}: {player}."
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


def test_a_sentence_renders_in_each_language_from_the_same_arguments() -> None:
    def line() -> str:
        values = {
            "player": "Ann",
            "target": "Bob",
            "card": with_direction(card_name("pirate", "Pirate"), "N"),
        }
        return render(event_templates, "play.on", values, "fallback")

    assert line() == "Ann plays Pirate ↑N on Bob."
    i18n.set_language("zh")
    assert line() == "Ann对Bob使用了海盗 ↑北。"
    assert card_list(["氧气", "双张氧气"]) == "氧气、双张氧气"
    assert card_list([]) == "无"


def test_an_unknown_template_or_missing_value_shows_the_servers_text() -> None:
    i18n.set_language("zh")
    assert render(event_templates, "comet", {}, "A comet passes.") == "A comet passes."
    assert render(event_templates, "play.on", {"player": "Ann"}, "Ann plays.") == "Ann plays."


def test_hostile_values_are_inserted_as_they_are() -> None:
    """A name with braces or markup is a value: it is never read as a template."""
    name = "{player}[bold]x[/]"
    assert render(choice_templates, "swap", {"player": name}, "") == f"Swap places with {name}"


def test_every_template_table_renders_in_chinese() -> None:
    i18n.set_language("zh")
    for table in (event_templates, prompt_templates, choice_templates):
        for template_id, template in table().items():
            assert re.search(r"[\u4e00-\u9fff]", template), template_id


def test_choice_labels_render_from_the_choices_fields_as_the_engine_words_them() -> None:
    """Every legal choice of seeded games of both editions: the English rendering from the
    choice's fields and the view is exactly the engine's label, and the Chinese one is Chinese."""
    kinds = set()
    for edition in ("space", "shipwrecked"):
        for seed in range(6):
            game = Game(edition, ["Ann", "Bob", "Cy", "Di"][: 2 + seed % 3], seed)
            chooser = random.Random(seed)
            while not game.over:
                seat = next(s for s in range(len(game.names)) if game.legal(s))
                view = game.view(seat)
                for choice in view["legal"]:
                    kinds.add(choice["do"])
                    assert choice_label(choice, view) == choice["label"]
                    i18n.set_language("zh")
                    chinese = choice_label(choice, view)
                    i18n.set_language("en")
                    assert chinese != choice["label"], choice
                    assert re.search(r"[\u4e00-\u9fff]", chinese), choice
                game.apply(seat, chooser.choice(view["legal"]))
    assert {"play", "done", "stay", "move", "pay", "block", "accept", "take", "swap"} <= kinds
    assert "target" in kinds
    assert {"advance", "pick", "shark", "discard", "change"} <= kinds


def template_pattern(template: str) -> re.Pattern[str]:
    """A regular expression that matches the template with any values in its placeholders."""
    parts = re.split(r"(\{\w+\})", template)
    return re.compile(
        "".join("(.+)" if part.startswith("{") else re.escape(part) for part in parts)
    )


def test_the_event_and_prompt_templates_are_the_engines_english() -> None:
    """One template per engine key, its English exactly server/engine/english.py's (the client
    must not import the server at run time, so the table is the catalog's msgids, checked here)."""
    assert event_templates() == {key: whole for key, (whole, _) in english.EVENT_TEXTS.items()}
    assert public_event_templates() == {
        key: public
        for key, (whole, public) in english.EVENT_TEXTS.items()
        if public is not None and public != whole
    }
    assert prompt_templates() == english.PROMPTS
    assert prompt_templates(english=True) == english.PROMPTS
    assert english.REASONS == ENGLISH_REASONS
    assert {k: v for k, v in reason_words().items() if k in english.REASONS} == english.REASONS


ENGLISH_CARD_NAMES = {
    key: entry["name"] for cards in CATALOGUE.values() for key, entry in cards.items()
}


def test_every_event_renders_from_its_wire_args_as_the_engine_words_it() -> None:
    """Seeded games of both editions: every event as each recipient gets it on the wire (a seat
    that sees it whole, a spectator who sees it redacted) renders from ``key`` + ``args`` in
    English exactly as the engine's ``text``, and in Chinese as Chinese; every prompt the engine
    writes is one of the prompt templates."""
    prompts = [template_pattern(t) for t in prompt_templates().values()]
    untemplated: set[str] = set()
    keys: set[str] = set()
    for edition in ("space", "shipwrecked"):
        for seed in range(6):
            game = Game(edition, ["Ann", "Bob", "Cy", "Di", "Ed"][: 2 + seed % 4], seed)
            chooser = random.Random(seed)
            while not game.over:
                seat = next(s for s in range(len(game.names)) if game.legal(s))
                view = game.view(seat)
                prompt = view["decision"]["prompt"]
                if not any(p.fullmatch(prompt) for p in prompts):
                    untemplated.add(prompt)
                decision, names = view["decision"], view["names"]
                # From the prompt's key and args, and read back from the English alone (an
                # older server's decision).
                older = {k: v for k, v in decision.items() if not k.startswith("prompt_")}
                older["prompt"] = prompt
                for sent in (decision, older):
                    assert render_prompt(sent, ENGLISH_CARD_NAMES, names) == prompt
                    i18n.set_language("zh")
                    chinese = render_prompt(sent, ENGLISH_CARD_NAMES, names)
                    i18n.set_language("en")
                    assert re.search(r"[\u4e00-\u9fff]", chinese), prompt
                    assert not [n for n in ENGLISH_CARD_NAMES.values() if n in chinese], chinese
                assert decision["prompt_key"] in prompt_templates()
                game.apply(seat, chooser.choice(view["legal"]))
            for event in game.log:
                for recipient in {None, *(event.to or ())}:
                    wire = event.as_dict(recipient)
                    if wire is None:
                        continue
                    keys.add(event.key)
                    assert render_event(wire, game.names, ENGLISH_CARD_NAMES) == wire["text"]
                    i18n.set_language("zh")
                    chinese = render_event(wire, game.names, ENGLISH_CARD_NAMES)
                    i18n.set_language("en")
                    assert chinese != wire["text"], wire
                    assert re.search(r"[\u4e00-\u9fff]", chinese), wire
                    assert not [n for n in ENGLISH_CARD_NAMES.values() if n in chinese], chinese
    assert not untemplated, "no template for:\n" + "\n".join(sorted(untemplated))
    assert {"target", "shark", "shark.bait", "steal", "look", "take", "draw"} <= keys


def test_a_bots_choice_renders_as_its_label_in_the_active_language() -> None:
    names = ["Ann", "Bob"]
    view = {"names": names, "hand": [], "edition": "space"}
    event = {
        "kind": "timeout",
        "key": "timeout",
        "text": "Ann ran out of time; their bot chose: Swap places with Bob.",
        "seat": 0,
        "args": {
            "player": 0,
            "label": "Swap places with Bob",
            "choice": {"do": "swap", "target": 1},
        },
    }
    assert render_event(event, names, {}, view) == event["text"]
    hidden = {**event, "text": "Ann ran out of time; their bot decided.", "args": {"player": 0}}
    assert render_event(hidden, names, {}) == hidden["text"]
    i18n.set_language("zh")
    assert render_event(event, names, {}, view) == "Ann超时了；电脑替其选择了：与Bob交换位置。"  # noqa: RUF001
    assert render_event(hidden, names, {}) == "Ann超时了；电脑替其做了决定。"  # noqa: RUF001
    unknown = {"key": "comet", "text": "A comet passes.", "args": {}}
    assert render_event(unknown, names, {}) == "A comet passes."


def test_a_choice_that_does_not_resolve_shows_the_engines_label() -> None:
    i18n.set_language("zh")
    view = {"names": ["Ann"], "hand": [], "edition": "space"}
    assert choice_label({"do": "play", "card": 7, "label": "Play X"}, view) == "Play X"
    assert choice_label({"do": "comet", "label": "Ride the comet"}, view) == "Ride the comet"
    assert choice_label({"do": "swap", "target": 5, "label": "Swap"}, view) == "Swap"


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
