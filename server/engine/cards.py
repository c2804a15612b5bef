"""Card definitions of both editions (RULES S1, S2, W1, W2) and the deck builders."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Edition(Enum):
    """Which game is played."""

    SPACE = "space"
    SHIPWRECKED = "shipwrecked"


class Kind(Enum):
    """A game card is either a resource (oxygen / food) or an action."""

    RESOURCE = "resource"
    ACTION = "action"


DIRECTIONS = ("N", "E", "S", "W")


@dataclass(frozen=True, slots=True)
class CardType:
    """One kind of game card: its name, count in the deck and rules text."""

    key: str
    name: str
    kind: Kind
    count: int
    text: str
    value: int = 0  # resource units; 0 for action cards


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One physical game card. ``id`` is unique within a game's 78 game cards.

    Equal only to itself: there is one object per card (``GAME_DECKS``, shared by every
    game), so identity is the same test as comparing the fields, and ``list.remove`` and
    ``in`` on hands and piles compare in C instead of calling a generated ``__eq__``."""

    id: int
    type: CardType
    dir: str | None  # compass direction (Shipwrecked, RULES W1); None in Space
    # Copied from the type at creation: the engine reads them in its hottest loops.
    key: str = field(init=False, compare=False)
    value: int = field(init=False, compare=False)  # resource units; 0 for action cards
    is_action: bool = field(init=False, compare=False)
    # Equal exactly for copies that differ in nothing (type and direction); a str, whose hash
    # Python caches, because choices are deduplicated by it in sets (actions.distinct).
    sig: str = field(init=False, compare=False, repr=False)
    # Its wire form (protocol.game_types.Card), made once: views and events send cards all
    # the time. Never handed out: events.card_dict gives a copy, which a reader may change.
    wire: dict[str, Any] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        ctype = self.type
        object.__setattr__(self, "key", ctype.key)
        object.__setattr__(self, "value", ctype.value)
        object.__setattr__(self, "is_action", ctype.kind is Kind.ACTION)
        object.__setattr__(self, "sig", f"{ctype.key} {self.dir}" if self.dir else ctype.key)
        wire = {"id": self.id, "key": ctype.key, "kind": ctype.kind.value, "value": ctype.value}
        object.__setattr__(self, "wire", {**wire, "dir": self.dir})


@dataclass(frozen=True, slots=True)
class LocationType:
    """One kind of location card (space / ocean)."""

    key: str
    name: str
    count: int
    text: str
    sharks: int = 0  # how many of the copies bear a shark icon (RULES W2)


@dataclass(frozen=True, slots=True)
class Location:
    """One physical location card. ``id`` is unique within the location deck."""

    id: int
    type: LocationType
    shark: bool
    # The location type's key, e.g. ``"wormhole"``: copied because it is read on every move.
    key: str = field(init=False, compare=False, repr=False)
    # Its wire form (protocol.game_types.Location), made once; events.location_dict copies it.
    wire: dict[str, Any] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", self.type.key)
        object.__setattr__(self, "wire", {"id": self.id, "key": self.type.key, "shark": self.shark})


R, A = Kind.RESOURCE, Kind.ACTION

SPACE_GAME = (
    CardType("oxygen", "Oxygen", R, 38, "1 oxygen.", 1),
    CardType("oxygen2", "Double Oxygen", R, 10, "2 oxygen.", 2),
    CardType("rocket_booster", "Rocket Booster", A, 4, "Move forward 1, paying no oxygen."),
    CardType(
        "tractor_beam", "Tractor Beam", A, 4, "Steal one card at random from an opponent's hand."
    ),
    CardType("laser_blast", "Laser Blast", A, 4, "Move an opponent back 1 (not from row 0)."),
    CardType("hole_in_suit", "Hole in Suit", A, 4, "An opponent discards 1 oxygen."),
    CardType("tether", "Tether", A, 4, "Move forward 1, then the chosen opponent moves back 1."),
    CardType(
        "shield",
        "Shield",
        A,
        4,
        "Reaction: block an action card played on you. Not under a Solar Flare.",
    ),
    CardType(
        "hack_suit",
        "Hack Suit",
        A,
        3,
        "Look at an opponent's hand and take one card of your choice.",
    ),
    CardType("oxygen_siphon", "Oxygen Siphon", A, 3, "Steal 2 oxygen from an opponent."),
)

SHIPWRECKED_GAME = (
    CardType("food", "Food", R, 38, "1 food.", 1),
    CardType("food2", "Double Food", R, 10, "2 food.", 2),
    CardType(
        "pirate", "Pirate", A, 5, "Look at an opponent's hand and take one card of your choice."
    ),
    CardType(
        "ride_the_wave",
        "Ride the Wave",
        A,
        5,
        "Move forward 1, then the chosen opponent moves back 1.",
    ),
    CardType("lost", "Lost", A, 5, "Discard one card at random from an opponent's hand."),
    CardType("freestyle_sprint", "Freestyle Sprint", A, 4, "Move forward 1."),
    CardType("dive", "Dive", A, 4, "Reaction: block a game card played on you."),
    CardType("rogue_wave", "Rogue Wave", A, 4, "Move an opponent back 1 (not from row 0)."),
    CardType("message_in_a_bottle", "Message in a Bottle", A, 3, "Steal 2 food from an opponent."),
)

SPACE_LOCATIONS = (
    LocationType("blank_space", "Blank Space", 9, "Nothing happens."),
    LocationType("cosmic_radiation", "Cosmic Radiation", 6, "Discard 1 oxygen."),
    LocationType("useful_junk", "Useful Junk", 5, "Draw 1 game card."),
    LocationType(
        "solar_flare",
        "Solar Flare",
        5,
        "While this card lies just below you, you cannot play action cards.",
    ),
    LocationType("meteoroid", "Meteoroid", 4, "If you hold 6 or more cards, discard 2."),
    LocationType(
        "gravitational_anomaly", "Gravitational Anomaly", 4, "Discard this card and move back 1."
    ),
    LocationType("wormhole", "Wormhole", 4, "Swap places with another astronaut, living or dead."),
    LocationType("mysterious_nebula", "Mysterious Nebula", 2, "Draw 2 game cards."),
    LocationType("asteroid_field", "Asteroid Field", 2, "Discard 2 oxygen."),
    LocationType("hyperspace", "Hyperspace", 1, "Move forward 1 (ignored on the ship)."),
)

SHIPWRECKED_LOCATIONS = (
    LocationType("calm_waters", "Calm Waters", 10, "Nothing happens.", 7),
    LocationType("sea_monster", "Sea Monster", 6, "Discard 1 food or die.", 4),
    LocationType("ocean_debris", "Ocean Debris", 5, "Draw 1 game card.", 3),
    LocationType("shark_bait", "Shark Bait", 4, "Move a shark next to another living castaway."),
    LocationType(
        "freeloader",
        "Freeloader",
        3,
        "The castaway furthest back moves forward 1; then you draw 1 game card.",
        2,
    ),
    LocationType(
        "whirlpool",
        "Whirlpool",
        3,
        "Swap places with another castaway, living or dead, not on the raft.",
    ),
    LocationType(
        "hurricane", "Hurricane", 3, "Everyone discards 1 game card, then everyone draws 2.", 2
    ),
    LocationType("island_call", "Island Call", 2, "Move back 1."),
    LocationType("davy_jones_locker", "Davy Jones' Locker", 2, "Draw 2 game cards.", 2),
    LocationType("raft_drift", "Raft Drift", 1, "The raft moves 1 row closer for everyone."),
    LocationType("counter_current", "Counter Current", 1, "Move forward 1 for free."),
    LocationType(
        "feeding_frenzy",
        "Feeding Frenzy",
        1,
        "If exactly one shark is in play, the second shark appears here.",
    ),
)

GAME_TYPES = {Edition.SPACE: SPACE_GAME, Edition.SHIPWRECKED: SHIPWRECKED_GAME}
LOCATION_TYPES = {Edition.SPACE: SPACE_LOCATIONS, Edition.SHIPWRECKED: SHIPWRECKED_LOCATIONS}


def game_deck(edition: Edition) -> list[Card]:
    """All 78 game cards in a fixed order; Shipwrecked copies take N, E, S, W in turn (W1 H)."""
    cards: list[Card] = []
    shipwrecked = edition is Edition.SHIPWRECKED
    for ctype in GAME_TYPES[edition]:
        for copy in range(ctype.count):
            direction = DIRECTIONS[copy % 4] if shipwrecked else None
            cards.append(Card(len(cards), ctype, direction))
    return cards


def location_deck(edition: Edition) -> list[Location]:
    """All location cards in a fixed order; the first ``sharks`` copies bear the icon."""
    cards: list[Location] = []
    for ltype in LOCATION_TYPES[edition]:
        for copy in range(ltype.count):
            cards.append(Location(len(cards), ltype, copy < ltype.sharks))
    return cards


GAME_DECKS: dict[Edition, tuple[Card, ...]] = {
    edition: tuple(game_deck(edition)) for edition in Edition
}
"""Every edition's game cards, indexed by id (cards are immutable, so games share them)."""

LOCATION_DECKS: dict[Edition, tuple[Location, ...]] = {
    edition: tuple(location_deck(edition)) for edition in Edition
}


def _catalogue(edition: Edition) -> dict[str, dict[str, str]]:
    entries: dict[str, dict[str, str]] = {}
    for ctype in GAME_TYPES[edition]:
        entries[ctype.key] = {"name": ctype.name, "text": ctype.text, "kind": ctype.kind.value}
    for ltype in LOCATION_TYPES[edition]:
        text = ltype.text
        if ltype.sharks:
            text += f" ({ltype.sharks} of {ltype.count} copies bear a shark icon.)"
        entries[ltype.key] = {"name": ltype.name, "text": text, "kind": "location"}
    return entries


CATALOGUE: dict[str, dict[str, dict[str, str]]] = {
    edition.value: _catalogue(edition) for edition in Edition
}
"""Names and texts of every card, by edition value and key; safe to send over the wire."""
