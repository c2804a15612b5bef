"""The hostile-input fuzzer shared by tests/server/test_fuzz.py and bench/fuzz.py.

Each scenario draws its input from Hypothesis strategies (``draw`` is ``data.draw``), sends it to
a running server over real TCP and records what happened in :class:`Findings` instead of
asserting, so that the test can assert on the findings after every example while the long run
(bench/fuzz.py) just counts them.

What counts as a finding:
- ``crashes``: an ``internal_error`` reply, an ERROR logged by the server (tracebacks included),
  a request left without a reply, a connection closed by the server without a closing error code,
  or the server no longer answering a fresh connection;
- ``invariant_failures``: an engine invariant broken in any room, or a running game whose stored
  decisions no longer replay to the game in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import strategies as st

from protocol.errors import CLOSING_CODES
from protocol.framing import frame
from protocol.messages import CLIENT_TYPES
from server.config import SHARED_ADDRESS
from server.engine import check_invariants, replay
from server.net.tcp import RunningServer
from server.rooms.room import Status
from tests.server.conftest import Client

T = TypeVar("T")
Draw = Callable[[st.SearchStrategy[T]], T]
Message = dict[str, Any]

#: Settings for a fuzzed server: limits high enough that the fuzzer is not simply rate limited.
FUZZ_SETTINGS: dict[str, Any] = {
    "port": 0,
    "bot_delay": 0.0,
    "away_delay": 0.0,
    "rate_per_second": 1e6,
    "rate_burst": 10**6,
    "chat_per_second": 1e6,
    "chat_burst": 10**6,
    "allow_seed": True,
    "empty_room_grace": 0.0,
    "max_connections_per_address": 10_000,
    "max_connections": 10_000,
    "max_rooms": 100_000,
    "max_rooms_per_address": 100_000,
    "new_players_burst": 1_000_000,
    **SHARED_ADDRESS,
}

#: Direct replies to a request (anything else the server sends is a broadcast).
RESULTS = frozenset({"welcome", "pong", "ok", "rooms", "joined", "replays", "replay", "error"})
REPLY_TIMEOUT = 5.0

# ---------------------------------------------------------------------- strategies

INT64 = st.integers(min_value=-(2**63), max_value=2**64 - 1)
SCALARS: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    INT64,
    st.floats(allow_nan=True),
    st.text(max_size=30),
    st.binary(max_size=30),
)
VALUES: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = [
    "type",
    "id",
    "protocol",
    "name",
    "token",
    "room",
    "version",
    "choice",
    "text",
    "seat",
    "level",
    "as",
    "game",
    "edition",
    "seats",
    "timer",
    "bots",
    "bot_level",
    "public",
    "autostart",
    "seed",
]
TYPES = sorted(CLIENT_TYPES)


def other_type(kind: type) -> st.SearchStrategy[Any]:
    """Any value whose type is not ``kind``."""
    return VALUES.filter(lambda v: type(v) is not kind)


def templates(code: str) -> list[Message]:
    """One valid message of every client type (``code``: a room the sender may be in)."""
    return [
        {"type": "hello", "protocol": 2, "name": "Fuzz"},
        {"type": "ping"},
        {"type": "list_rooms"},
        {
            "type": "create_room",
            "edition": "space",
            "seats": 2,
            "bots": 1,
            "bot_level": "basic",
            "timer": 0,
            "public": True,
            "autostart": False,
            "seed": 1,
        },
        {"type": "join_room", "room": code, "as": "spectator"},
        {"type": "leave_room", "room": code},
        {"type": "add_bot", "room": code, "level": "random"},
        {"type": "remove_bot", "room": code, "seat": 1},
        {"type": "start", "room": code},
        {"type": "act", "room": code, "version": 0, "choice": 0},
        {"type": "chat", "room": code, "text": "hi"},
        {"type": "rematch", "room": code},
        {"type": "back", "room": code},
        {"type": "sync", "room": code},
        {"type": "list_replays"},
        {"type": "get_replay", "game": 1},
    ]


# ---------------------------------------------------------------------- bookkeeping


@dataclass
class Findings:
    """What the fuzzer sent and what it found."""

    inputs: int = 0  # frames (or raw byte strings) sent
    examples: int = 0
    replies: Counter[str] = field(default_factory=Counter)  # direct replies by type
    errors: Counter[str] = field(default_factory=Counter)  # error replies by code
    crashes: list[str] = field(default_factory=list)
    invariant_failures: list[str] = field(default_factory=list)

    def clean(self) -> bool:
        return not self.crashes and not self.invariant_failures

    def summary(self) -> dict[str, Any]:
        return {
            "examples": self.examples,
            "inputs": self.inputs,
            "replies": dict(self.replies),
            "errors_by_code": dict(self.errors.most_common()),
            "crashes": len(self.crashes),
            "invariant_failures": len(self.invariant_failures),
            "crash_samples": self.crashes[:10],
            "invariant_samples": self.invariant_failures[:10],
        }


class ErrorLog(logging.Handler):
    """Collects ERROR records of the server (and of asyncio: a task that died unseen)."""

    def __init__(self, findings: Findings) -> None:
        super().__init__(logging.ERROR)
        self.findings = findings

    def emit(self, record: logging.LogRecord) -> None:
        self.findings.crashes.append(f"server logged: {record.getMessage()[:300]}")

    def install(self) -> None:
        for name in ("selfish.server", "asyncio"):
            logging.getLogger(name).addHandler(self)

    def remove(self) -> None:
        for name in ("selfish.server", "asyncio"):
            logging.getLogger(name).removeHandler(self)


class Fuzzer:
    """Runs scenarios against one server and keeps the findings."""

    def __init__(self, server: RunningServer, findings: Findings | None = None) -> None:
        self.server = server
        self.findings = findings or Findings()
        self._next_id = 0
        self._clients: list[Client] = []

    # -- plumbing ------------------------------------------------------------------------------

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    async def _connect(self, name: str | None = None) -> Client:
        client = await Client.connect(self.server.port)
        self._clients.append(client)
        if name is not None:
            welcome = await self._request(client, {"type": "hello", "protocol": 2, "name": name})
            assert welcome is not None and welcome["type"] == "welcome", welcome
            client.player, client.token = welcome["player"], welcome["token"]
        return client

    def _crash(self, text: str) -> None:
        self.findings.crashes.append(text)

    def _note(self, reply: Message, sent: object) -> None:
        kind = str(reply.get("type"))
        self.findings.replies[kind] += 1
        if kind == "error":
            code = str(reply.get("code"))
            self.findings.errors[code] += 1
            if code == "internal_error":
                self._crash(f"internal_error for {sent!r:.300}")

    async def _request(self, client: Client, message: Message) -> Message | None:
        """Send with a fresh id; return the direct reply, or None (a finding) if none came."""
        rid = self._id()
        self.findings.inputs += 1
        client.send({**message, "id": rid})
        try:
            while True:
                msg = await client.recv(REPLY_TIMEOUT)
                if msg.get("id") == rid:
                    self._note(msg, message)
                    return msg
        except (TimeoutError, ConnectionError) as exc:
            self._crash(f"no reply to {message!r:.300} ({type(exc).__name__})")
            return None

    async def _unmatched(self, client: Client, message: Message) -> None:
        """Send a message with its own ``id`` (absent, or maybe not an integer: then its reply
        carries none), read up to the pong of a ping sent right after, and expect exactly one
        direct reply before it."""
        self.findings.inputs += 1
        client.send(message)
        rid = self._id()
        client.send({"type": "ping", "id": rid})
        own = message.get("id")
        echoed = own if type(own) is int else None  # what the reply's id must be
        got = []
        try:
            while True:
                msg = await client.recv(REPLY_TIMEOUT)
                if msg.get("id") == rid:
                    break
                if msg.get("type") in RESULTS and msg.get("id") == echoed:
                    got.append(msg)
        except (TimeoutError, ConnectionError) as exc:
            self._crash(f"no pong after {message!r:.300} ({type(exc).__name__})")
            return
        if len(got) != 1:
            self._crash(f"{len(got)} replies to {message!r:.300}")
        for msg in got:
            self._note(msg, message)

    async def close_all(self) -> None:
        for client in self._clients:
            await client.close()
        self._clients.clear()

    async def check(self) -> None:
        """The server still accepts and answers; every game is sound and stored as played."""
        try:
            probe = await asyncio.wait_for(Client.connect(self.server.port), REPLY_TIMEOUT)
            probe.send({"type": "ping", "id": 1})
            pong = await probe.recv(REPLY_TIMEOUT)
            await probe.close()
            if pong.get("type") != "pong":
                self._crash(f"probe got {pong!r:.200}")
        except (TimeoutError, OSError) as exc:
            self._crash(f"server unreachable: {exc!r}")
        await asyncio.sleep(0)  # let this tick's group commit run before reading the store
        for room in list(self.server.lobby.rooms.values()):
            game = room.game
            if game is None:
                continue
            for problem in check_invariants(game):
                self.findings.invariant_failures.append(f"room {room.code}: {problem}")
            if room.status == Status.PLAYING and room.game_id is not None:
                stored = self.server.store.game(room.game_id)
                if stored is None or len(stored.decisions) != len(game.decisions):
                    self.findings.invariant_failures.append(
                        f"room {room.code}: game {room.game_id} stored with "
                        f"{None if stored is None else len(stored.decisions)} decisions, "
                        f"{len(game.decisions)} played"
                    )
                    continue
                again = replay(stored.edition, stored.names, stored.seed, stored.decisions)
                if again.snapshot() != game.snapshot():
                    self.findings.invariant_failures.append(
                        f"room {room.code}: replay of game {room.game_id} differs from memory"
                    )

    # -- scenarios -----------------------------------------------------------------------------

    async def raw_bytes(self, draw: Draw[Any]) -> None:
        """Random bytes, framed or not, maybe after a hello; then end of input. The server
        answers whatever complete frames it got and closes only with a closing error code."""
        welcomed = draw(st.booleans())
        client = await self._connect("Raw" if welcomed else None)
        chunks = draw(
            st.lists(
                st.one_of(
                    st.binary(max_size=200),
                    st.binary(max_size=200).map(frame),
                    st.builds(
                        lambda n, body: struct.pack(">I", n) + body,
                        st.integers(0, 2**32 - 1),
                        st.binary(max_size=50),
                    ),
                ),
                min_size=1,
                max_size=4,
            )
        )
        for chunk in chunks:
            self.findings.inputs += 1
            client.send_raw(chunk)
        with contextlib.suppress(OSError, RuntimeError):
            client.writer.write_eof()  # the server sees the end of input and closes
        messages: list[Message] = []
        try:
            while True:
                messages.append(await client.recv(REPLY_TIMEOUT))
        except ConnectionError:
            pass  # closed by the server: expected
        except TimeoutError:
            self._crash(f"connection left open after end of input: {chunks!r:.300}")
        for msg in messages:
            if msg.get("type") in RESULTS and msg.get("type") != "welcome":
                self._note(msg, chunks)
        closing = [m for m in messages if m.get("code") in CLOSING_CODES]
        if closing and messages[-1] is not closing[0]:
            self._crash(f"messages after a closing error: {messages!r:.300}")

    async def random_maps(self, draw: Draw[Any]) -> None:
        """Maps with random keys and values (known keys and types, mostly): each is answered."""
        client = await self._connect("Maps" if draw(st.booleans()) else None)
        for _ in range(draw(st.integers(1, 6))):
            message = draw(
                st.dictionaries(
                    st.one_of(st.sampled_from(KEYS), st.text(max_size=10)), VALUES, max_size=6
                )
            )
            if draw(st.integers(0, 3)):
                message["type"] = draw(st.one_of(st.sampled_from(TYPES), st.text(max_size=12)))
            if "id" in message and draw(st.booleans()):
                await self._unmatched(client, message)
            else:
                message.pop("id", None)
                await self._request(client, message)

    async def wrong_types(self, draw: Draw[Any]) -> None:
        """Valid messages with one field (sometimes two) of the wrong type or dropped."""
        client = await self._connect("Typo")
        owner = await self._connect("Host")
        created = await self._request(
            owner, {"type": "create_room", "edition": "space", "seats": 2}
        )
        code = created["room"] if created and created.get("type") == "joined" else "ZZZZ"
        for _ in range(draw(st.integers(1, 6))):
            message = dict(draw(st.sampled_from(templates(code))))
            for _ in range(draw(st.integers(1, 2))):
                if not message:
                    break
                key = draw(st.sampled_from(sorted(message)))
                if key == "type" and draw(st.booleans()):
                    continue  # mostly keep the type: the point is the fields
                if draw(st.integers(0, 4)) == 0:
                    del message[key]
                else:
                    message[key] = draw(other_type(type(message[key])))
            await self._request(client, message)

    async def concurrent_acts(self, draw: Draw[Any]) -> None:
        """A table of 2-4 connections sending valid and invalid acts (and a few other requests)
        all at once, round after round; then everyone leaves and bots finish the game."""
        seats = draw(st.integers(2, 4))
        edition = draw(st.sampled_from(["space", "shipwrecked"]))
        clients = [await self._connect(f"P{i}") for i in range(seats)]
        bots = draw(st.integers(0, seats - 2))
        created = await self._request(
            clients[0],
            {
                "type": "create_room",
                "edition": edition,
                "seats": seats,
                "bots": bots,
                "seed": draw(st.integers(0, 2**31)),
            },
        )
        if created is None or created.get("type") != "joined":
            return
        code = created["room"]
        for client in clients[1 : seats - bots]:
            await self._request(client, {"type": "join_room", "room": code})
        await self._request(clients[0], {"type": "start", "room": code})
        players = clients[: seats - bots]

        def latest(client: Client) -> Message | None:
            return next(
                (
                    m
                    for m in reversed(client.seen)
                    if m.get("type") == "state" and m.get("room") == code
                ),
                None,
            )

        for _ in range(draw(st.integers(1, 12))):
            batch = []
            for client in players:
                state = latest(client)
                version = state["version"] if state else 0
                legal = state["view"]["legal"] if state else []
                kind = draw(
                    st.sampled_from(
                        [
                            "valid",
                            "valid",
                            "valid",
                            "stale",
                            "mutated",
                            "random",
                            "wrong_room",
                            "sync",
                            "chat",
                            "back",
                            "wrong_version_type",
                        ]
                    )
                )
                message: Message = {
                    "type": "act",
                    "room": code,
                    "version": version,
                    "choice": 0,
                }
                if kind == "valid" and legal:
                    message["choice"] = draw(st.integers(0, len(legal) - 1))
                elif kind == "stale":
                    message["version"] = version - draw(st.integers(1, 5))
                elif kind == "mutated":  # past the list, negative, or another type
                    message["choice"] = draw(
                        st.sampled_from([len(legal), -1, 0.0, True, "0"]) | SCALARS
                    )
                elif kind == "random":
                    message["choice"] = draw(VALUES)
                elif kind == "wrong_room":
                    message["room"] = draw(st.sampled_from(["AAAA", code.lower(), "", "ABCDE"]))
                elif kind == "wrong_version_type":
                    message["version"] = draw(VALUES.filter(lambda v: not isinstance(v, int)))
                elif kind in ("sync", "back"):
                    message = {"type": kind, "room": code}
                elif kind == "chat":
                    message = {"type": "chat", "room": code, "text": draw(st.text(max_size=40))}
                batch.append((client, message))
            # Everything drawn first, then sent at once: one request per connection in flight.
            await asyncio.gather(*(self._request(c, m) for c, m in batch))
            await asyncio.sleep(0)
        for client in players:
            await self._request(client, {"type": "leave_room", "room": code})

    SCENARIOS = ("raw_bytes", "random_maps", "wrong_types", "concurrent_acts")

    async def example(self, draw: Draw[Any]) -> None:
        """One example: one to three scenarios, one after the other (drawing from concurrent
        coroutines would make the examples impossible to replay)."""
        self.findings.examples += 1
        names = draw(st.lists(st.sampled_from(self.SCENARIOS), min_size=1, max_size=3))
        try:
            for name in names:
                await getattr(self, name)(draw)
        finally:
            await self.close_all()
        await self.check()
