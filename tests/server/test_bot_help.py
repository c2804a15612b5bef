"""``selfish bot --help`` tells the defaults the bot really uses."""

from __future__ import annotations

from server.bots.budget import DEFAULT_BUDGET
from server.bots.command import build_parser


def test_budget_help_names_the_default_search_time() -> None:
    (budget,) = (a for a in build_parser()._actions if "--budget" in a.option_strings)
    assert budget.help is not None
    assert f"(default {DEFAULT_BUDGET.seconds:g})" in budget.help
