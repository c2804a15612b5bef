"""Hypothesis strategies for every server message and its parts (protocol.server_messages,
protocol.game_types): each draws a value that ``from_wire`` must read back exactly."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from protocol import game_types as g
from protocol import records as r
from protocol import server_messages as m
from protocol import view_types as v
from protocol.vocabulary import (
    ARG_TYPES,
    CHOICES,
    DECISIONS,
    DIRECTIONS,
    EVENTS,
    GOALS,
    REASONS,
    RESOURCES,
    ArgType,
    ChoiceField,
)

counts = st.integers(min_value=0, max_value=200)
ints = st.integers(min_value=-(2**53), max_value=2**53)
ids = st.none() | st.integers(min_value=0, max_value=2**31)
texts = st.text(max_size=12)
opt_texts = st.none() | texts
keys = st.sampled_from(["laser_blast", "oxygen", "food2", "wormhole", "shark_bait"])
seconds = st.floats(min_value=0, max_value=1800, allow_nan=False)
editions = st.sampled_from(g.EDITIONS)
cells = st.tuples(ints, ints)
variants = st.lists(st.sampled_from(["V1"]), max_size=1).map(tuple)
names = st.lists(texts, min_size=2, max_size=5).map(tuple)
rating_parts = st.builds(
    r.Rating, rating=ints, mu=seconds, sigma=seconds, provisional=st.booleans()
)
rating_changes = st.builds(
    r.RatingChange, seat=counts, player=texts, rank=counts, before=rating_parts, after=rating_parts
)
seat_records = st.builds(
    r.SeatRecord,
    name=texts,
    kind=st.sampled_from(["human", "bot"]),
    player=opt_texts,
    level=opt_texts,
    left=st.booleans(),
)
game_summaries = st.builds(
    r.GameSummary,
    game=ints,
    room=texts,
    edition=editions,
    variants=variants,
    seats=st.lists(seat_records, min_size=2, max_size=5).map(tuple),
    winner=st.none() | counts,
    turns=counts,
    ended=seconds,
    public=st.booleans(),
    rated=st.booleans(),
    seat=st.none() | counts,
)

cards = st.builds(
    g.Card,
    counts,
    keys,
    st.sampled_from(g.CARD_KINDS),
    counts,
    st.none() | st.sampled_from(DIRECTIONS),
)
locations = st.builds(g.Location, counts, keys, st.booleans())
card_ids = st.lists(counts, max_size=3).map(tuple)
_FIELDS: dict[ChoiceField, st.SearchStrategy[Any]] = {
    ChoiceField.CARD: counts,
    ChoiceField.TARGET: counts,
    ChoiceField.CARDS: card_ids,
    ChoiceField.DISCARD: card_ids,
    ChoiceField.SHARK: counts,
    ChoiceField.CELL: cells,
}


@st.composite
def choices(draw: st.DrawFn, fatal: bool = True) -> g.Choice:
    """A choice of any ``do``, with its required fields and some of its optional ones."""
    do = draw(st.sampled_from(sorted(CHOICES)))
    shape = CHOICES[do]
    chosen = [*shape.required, *(f for f in shape.optional if draw(st.booleans()))]
    values = {str(name): draw(_FIELDS[name]) for name in chosen}
    return g.Choice(do, fatal=draw(st.booleans()) if fatal else False, **values)


_ARGS: dict[ArgType, st.SearchStrategy[Any]] = {
    ArgType.SEAT: counts,
    ArgType.INT: ints,
    ArgType.CARD: cards,
    ArgType.CARDS: st.lists(cards, max_size=3).map(tuple),
    ArgType.LOCATION: locations,
    ArgType.CELL: cells,
    ArgType.DIRECTION: st.sampled_from(DIRECTIONS),
    ArgType.GOAL: st.sampled_from(GOALS),
    ArgType.RESOURCE: st.sampled_from(RESOURCES),
    ArgType.REASON: st.sampled_from(REASONS) | keys,
    ArgType.CHOICE: choices(fatal=False),
}


def _args(draw: st.DrawFn, names: tuple[str, ...], droppable: tuple[str, ...]) -> dict[str, Any]:
    return {
        name: draw(_ARGS[ARG_TYPES[name]])
        for name in names
        if name not in droppable or draw(st.booleans())
    }


@st.composite
def events(draw: st.DrawFn) -> g.Event:
    """An event of any key, with its args (a secret one may be missing)."""
    key = draw(st.sampled_from(sorted(EVENTS)))
    known = EVENTS[key]
    return g.Event(known.kind, key, draw(ids), _args(draw, known.args, known.secret))


@st.composite
def decisions(draw: st.DrawFn) -> g.Decision:
    """A decision of any kind, with its args."""
    kind = draw(st.sampled_from(sorted(DECISIONS)))
    reveal = draw(st.lists(cards, max_size=3).map(tuple))
    return g.Decision(kind, _args(draw, DECISIONS[kind], ()), reveal)


players = st.builds(
    v.Player, counts, texts, ints, ints, st.booleans(), counts, st.booleans(), st.booleans()
)
public_views = st.builds(
    v.PublicView,
    edition=editions,
    variants=variants,
    seats=counts,
    names=names,
    rows=counts,
    turn=counts,
    active=counts,
    phase=st.sampled_from(v.PHASES),
    goal_row=ints,
    over=st.booleans(),
    winner=st.none() | counts,
    actions_played=counts,
    last_moved=st.none() | counts,
    sharks=st.lists(cells, max_size=2).map(tuple),
    draw_count=counts,
    loc_draw_count=counts,
    pending=st.lists(
        st.builds(v.Pending, counts, st.sampled_from(sorted(DECISIONS)), st.booleans()),
        max_size=3,
    ).map(tuple),
    players=st.lists(players, max_size=3).map(tuple),
    board=st.lists(st.builds(v.Placed, ints, ints, locations), max_size=3).map(tuple),
    discard=st.lists(counts, max_size=4).map(tuple),
    discard_top=st.none() | cards,
    loc_discard=st.lists(counts, max_size=3).map(tuple),
)


@st.composite
def views(draw: st.DrawFn) -> v.View:
    """A spectator's view or a seat's (its decision and legal choices go together)."""
    public = draw(public_views)
    if public.seats == 0 or draw(st.booleans()):
        return v.View(public, None)
    decision = draw(st.none() | decisions())
    legal = () if decision is None else tuple(draw(st.lists(choices(), min_size=1, max_size=4)))
    seat = draw(st.integers(min_value=0, max_value=public.seats - 1))
    hand = tuple(draw(st.lists(cards, max_size=4)))
    return v.View(public, v.SeatPart(seat, hand, draw(counts), decision, legal))


summaries = st.builds(
    m.RoomSummary,
    room=texts,
    edition=editions,
    size=counts,
    filled=counts,
    humans=counts,
    bots=counts,
    status=st.sampled_from(m.STATUSES),
    timer=counts,
    variants=variants,
    host=opt_texts,
    spectators=counts,
)
seat_infos = st.builds(
    m.SeatInfo,
    seat=counts,
    name=texts,
    kind=st.sampled_from(m.SEAT_KINDS),
    player=opt_texts,
    level=opt_texts,
    bot_number=st.none() | counts,
    connected=st.booleans(),
    away=st.booleans(),
    left=st.booleans(),
)


@st.composite
def room_messages(draw: st.DrawFn) -> m.RoomMessage:
    """A ``room`` message: as many seats as its size."""
    seats = tuple(draw(st.lists(st.none() | seat_infos, max_size=5)))
    return m.RoomMessage(
        id=draw(ids),
        room=draw(texts),
        edition=draw(editions),
        size=len(seats),
        public=draw(st.booleans()),
        timer=draw(counts),
        left_grace=draw(counts),
        idle_grace=draw(counts),
        autostart=draw(st.booleans()),
        variants=draw(variants),
        host=draw(opt_texts),
        status=draw(st.sampled_from(m.STATUSES)),
        game=draw(st.none() | counts),
        seats=seats,
        spectators=tuple(draw(st.lists(st.builds(m.Spectator, texts, texts), max_size=2))),
    )


@st.composite
def joined_messages(draw: st.DrawFn) -> m.JoinedMessage:
    """A ``joined`` message: a spectator has no seat, a player one."""
    role = draw(st.sampled_from(m.ROLES))
    seat = None if role == "spectator" else draw(counts)
    return m.JoinedMessage(
        id=draw(ids), room=draw(texts), role=role, seat=seat, edition=draw(editions)
    )


error_args = st.dictionaries(texts, ints | texts, max_size=3)

#: One strategy per server message type.
MESSAGES: dict[str, st.SearchStrategy[m.ServerMessage]] = {
    "welcome": st.builds(m.WelcomeMessage, id=ids, player=texts, token=texts, server=texts),
    "error": st.builds(
        m.ErrorMessage, id=ids, code=texts, message=texts, args=error_args, room=opt_texts
    ),
    "pong": st.builds(m.PongMessage, id=ids),
    "ok": st.builds(m.OkMessage, id=ids),
    "rooms": st.builds(m.RoomsMessage, id=ids, rooms=st.lists(summaries, max_size=3).map(tuple)),
    "joined": joined_messages(),
    "room": room_messages(),
    "state": st.builds(m.StateMessage, id=ids, room=texts, version=ints, view=views()),
    "events": st.builds(
        m.EventsMessage,
        id=ids,
        room=texts,
        events=st.lists(events(), max_size=4).map(tuple),
        history=st.booleans(),
    ),
    "timer": st.builds(
        m.TimerMessage,
        id=ids,
        room=texts,
        version=ints,
        timers=st.lists(st.builds(m.TurnTimer, counts, seconds, st.booleans()), max_size=3).map(
            tuple
        ),
        grace=st.lists(
            st.builds(m.GraceCountdown, counts, st.sampled_from(m.GRACE_REASONS), seconds),
            max_size=3,
        ).map(tuple),
    ),
    "game_over": st.builds(
        m.GameOverMessage,
        id=ids,
        room=texts,
        game=ints,
        winner=st.none() | counts,
        winner_name=opt_texts,
        turns=counts,
        ratings=st.lists(rating_changes, max_size=3).map(tuple),
    ),
    "chat": st.builds(
        m.ChatMessage,
        id=ids,
        room=texts,
        player=texts,
        name=texts,
        seat=st.none() | counts,
        text=texts,
    ),
    "replays": st.builds(
        m.ReplaysMessage,
        id=ids,
        games=st.lists(game_summaries, max_size=3).map(tuple),
        next=st.none() | ints,
    ),
    "replay": st.builds(
        m.ReplayMessage,
        id=ids,
        game=ints,
        room=texts,
        edition=editions,
        variants=variants,
        seats=st.lists(seat_records, min_size=2, max_size=5).map(tuple),
        seed=st.integers(min_value=0, max_value=2**63 - 1),
        decisions=st.lists(st.tuples(counts, choices(fatal=False)), max_size=4).map(tuple),
        winner=st.none() | counts,
        turns=counts,
        started=seconds,
        ended=seconds,
        public=st.booleans(),
        rated=st.booleans(),
        digest=texts,
        rules=counts,
        ratings=st.lists(rating_changes, max_size=3).map(tuple),
    ),
    "profile": st.builds(
        m.ProfileMessage,
        id=ids,
        player=texts,
        name=texts,
        bot=st.booleans(),
        editions=st.lists(
            st.builds(
                r.EditionRecord,
                edition=editions,
                games=counts,
                wins=counts,
                no_winner=counts,
                streak=counts,
                best_streak=counts,
                last_played=seconds,
                rated_games=counts,
                rating=st.none() | rating_parts,
            ),
            max_size=2,
        ).map(tuple),
    ),
    "leaderboard": st.builds(
        m.LeaderboardMessage,
        id=ids,
        edition=editions,
        entries=st.lists(
            st.builds(
                r.LeaderboardEntry,
                rank=counts,
                player=texts,
                name=texts,
                rating=rating_parts,
                games=counts,
                wins=counts,
                last_played=seconds,
            ),
            max_size=3,
        ).map(tuple),
        next=opt_texts,
    ),
    "review": st.builds(
        m.ReviewMessage,
        id=ids,
        room=texts,
        game=ints,
        step=counts,
        steps=counts,
        leader=texts,
        members=st.lists(
            st.builds(r.ReviewMember, player=texts, name=texts, following=st.booleans()),
            max_size=3,
        ).map(tuple),
        open=st.booleans(),
    ),
    "bye": st.builds(m.ByeMessage, id=ids, reason=st.sampled_from(m.BYE_REASONS)),
    "moved": st.builds(m.MovedMessage, id=ids, room=texts, address=texts),
}
