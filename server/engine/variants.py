"""Room variants (RULES V): optional rules a room's creator turns on, by rule id."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .cards import Edition


@dataclass(frozen=True, slots=True)
class Variant:
    """One optional rule: its id in RULES.md, the editions it applies to and a short title."""

    id: str
    editions: frozenset[Edition]
    title: str


VARIANTS: dict[str, Variant] = {
    "V1": Variant(
        "V1", frozenset({Edition.SPACE}), "Stay by discarding 2 action cards instead of 1 oxygen"
    ),
}
"""Every variant, by rule id."""


def check_variants(edition: Edition, variants: Iterable[str]) -> tuple[str, ...]:
    """The variants as a sorted tuple without repeats; ValueError for an unknown id or one that
    does not apply to ``edition``."""
    chosen = sorted(set(variants))
    for rule in chosen:
        variant = VARIANTS.get(rule)
        if variant is None:
            raise ValueError(f"unknown variant {rule!r} (known: {', '.join(VARIANTS)})")
        if edition not in variant.editions:
            raise ValueError(f"variant {rule} does not apply to the {edition.value} edition")
    return tuple(chosen)
