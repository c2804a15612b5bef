"""Hidden-information audit over recorded frames (RULES C4)."""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]

# Subtrees that legitimately hold cards: one's own hand, public piles, location cards (whose ids
# are a separate numbering), and what Hack Suit / Pirate reveals to the looker.
SKIP = frozenset({"hand", "discard", "board", "loc_discard", "reveal"})


def card_ids(obj: Any, out: set[int] | None = None) -> set[int]:
    """Every game-card id mentioned outside the SKIP subtrees."""
    out = set() if out is None else out
    if isinstance(obj, dict):
        if "shark" in obj:  # a location card {id, key, shark} (a prompt's args name one)
            return out
        for key, value in obj.items():
            if key in SKIP:
                continue
            if key in ("id", "card") and isinstance(value, int) and not isinstance(value, bool):
                out.add(value)
            elif key == "cards" and isinstance(value, list):
                out.update(v for v in value if isinstance(v, int))
            else:
                card_ids(value, out)
    elif isinstance(obj, list):
        for item in obj:
            card_ids(item, out)
    return out


def audit(frames: dict[int | None, list[Message]]) -> tuple[int, int]:
    """Assert that no recipient's frames show another seat's hand card, except what a reveal
    shows the looker; ``frames`` maps seat (None = spectator) to every frame it received.
    Returns the number of states checked and how many of them carried a reveal."""
    hands: dict[tuple[int, int], set[int]] = {}
    for seat, received in frames.items():
        for msg in received:
            if msg["type"] == "state" and seat is not None:
                hand = msg["view"]["hand"]
                assert hand is not None
                hands[(seat, msg["version"])] = {card["id"] for card in hand}
    seats = {s for s in frames if s is not None}
    checked = reveals = 0
    for seat, received in frames.items():
        for msg in received:
            if msg["type"] == "state":
                view, version = msg["view"], msg["version"]
                if seat is None:
                    assert view["hand"] is None and view["legal"] == []
                decision = view.get("decision") or {}
                allowed = {card["id"] for card in decision.get("reveal") or []}
                reveals += bool(allowed)
                others: set[int] = set()
                for other in seats - {seat}:
                    others |= hands.get((other, version), set())
                leak = (card_ids(view) & others) - allowed
                assert not leak, f"seat {seat} sees cards {leak} of other hands at v{version}"
                checked += 1
            if msg["type"] == "events":
                for event in msg["events"]:
                    if event["kind"] == "draw" and event["seat"] not in (seat, None):
                        assert "card" not in event["args"], f"seat {seat} sees {event}"
    return checked, reveals
