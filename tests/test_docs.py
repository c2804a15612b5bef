"""The documents link only to files in the repository, and what
docs/operations.md says `--host` defaults to is what `selfish-server` does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server import cli

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_relative_link_is_a_file_of_the_repository(document: Path) -> None:
    for target in LINK.findall(document.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor in the same page
        path = (document.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT), f"{document.name}: {target} leaves the repository"
        assert path.exists(), f"{document.name}: {target} does not exist"


def test_the_documented_host_default_is_the_servers() -> None:
    defaults = cli.make_config(cli.build_parser().parse_args([]))
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    said = re.search(r"`--host`, `selfish-server` listens on `([^`]+)`", text.replace("\n", " "))
    assert said is not None and said.group(1) == defaults.host
    assert f"default {defaults.host}" in cli.build_parser().format_help().replace("\n", " ")
