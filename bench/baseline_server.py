"""The baseline for ``bench/load.py``: a bare asyncio server with no game behind it.

It speaks just enough of the protocol for the load generator (hello, create_room, join_room, act,
rematch, ping) and answers each ``act`` by sending one ~500-byte msgpack ``state`` map to each of
the 4 members of the room, so it measures what the event loop, the sockets and msgpack cost
before any rules, storage or views. Turns rotate through the seats, and a game ends after
``DECISIONS`` acts (about the length of a real 4-seat game). Like the real server it echoes a
request's ``id`` in its direct reply and answers an ``act`` with ``ok`` before the states (the
load generator's protocol library holds it to that); the actor's ``ok`` and state leave in one
write.

    python bench/baseline_server.py [--host 127.0.0.1] [--port 0] [--uvloop]

prints ``baseline listening on HOST:PORT`` on stderr and runs until SIGTERM/SIGINT. It runs on
the standard asyncio event loop; ``--uvloop`` runs it on uvloop instead (when installed), the
loop ``selfish-server`` uses when it is installed, for a like-for-like comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from typing import Any, cast

import msgpack  # type: ignore[import-untyped]

DECISIONS = 100  # acts per game
PAD = "x" * 380  # brings each state map to about 500 bytes
CHOICE = {"do": "play", "card": 61, "target": 1}


def frame(message: dict[str, Any]) -> bytes:
    """``message`` as a length-prefixed msgpack frame."""
    body: bytes = msgpack.packb(message, use_bin_type=True)
    return len(body).to_bytes(4, "big") + body


class BaselineRoom:
    """Four members taking turns; the version counts acts."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.members: list[Conn] = []
        self.version = 0
        self.decisions = 0

    def broadcast_state(self, actor: Conn | None = None, ok: bytes = b"") -> None:
        """Send each member its state; ``ok`` goes first to ``actor``, in the same write."""
        turn = self.version % len(self.members)
        for seat, member in enumerate(self.members):
            member.send(
                {
                    "type": "state",
                    "room": self.code,
                    "version": self.version,
                    "view": {
                        "seat": seat,
                        "turn": turn,
                        "phase": "actions",
                        "over": False,
                        "hand": ["laser_blast", "oxygen_1", "oxygen_2"],
                        "pad": PAD,
                        "legal": [CHOICE] if seat == turn else [],
                    },
                },
                ok if member is actor else b"",
            )

    def act(self, actor: Conn, ok: bytes) -> None:
        self.version += 1
        self.decisions += 1
        if self.decisions >= DECISIONS:
            over = {
                "type": "game_over",
                "room": self.code,
                "game": 1,
                "winner": 0,
                "winner_name": "a",
                "turns": DECISIONS,
            }
            for member in self.members:
                member.send(over, ok if member is actor else b"")
        else:
            self.broadcast_state(actor, ok)


class Conn(asyncio.Protocol):
    """One client connection: frames in, msgpack maps out."""

    rooms: dict[str, BaselineRoom] = {}
    count = 0

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.room: BaselineRoom | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it
        self.transport = cast(asyncio.Transport, transport)

    def send(self, message: dict[str, Any], head: bytes = b"") -> None:
        """Send ``message`` as one frame, after the frame ``head`` (in the same write)."""
        assert self.transport is not None
        self.transport.write(head + frame(message))

    def data_received(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        while len(buf) >= 4:
            size = int.from_bytes(buf[:4], "big")
            if len(buf) < 4 + size:
                break
            message = msgpack.unpackb(buf[4 : 4 + size], raw=False)
            del buf[: 4 + size]
            self.handle(message)

    def handle(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        reply = {"id": msg["id"]} if "id" in msg else {}  # the direct reply echoes the id
        if kind == "act" and self.room is not None:
            self.room.act(self, frame({"type": "ok", **reply}))
        elif kind == "hello":
            Conn.count += 1
            self.send(
                {
                    "type": "welcome",
                    "protocol": 2,
                    "player": f"p{Conn.count}",
                    "token": f"t{Conn.count}",
                    "server": "baseline",
                    **reply,
                }
            )
        elif kind == "create_room":
            code = f"R{len(Conn.rooms)}"
            self.room = Conn.rooms[code] = BaselineRoom(code)
            self.room.members.append(self)
            self.send(
                {
                    "type": "joined",
                    "room": code,
                    "role": "player",
                    "seat": 0,
                    "edition": "space",
                    **reply,
                }
            )
        elif kind == "join_room":
            room = Conn.rooms[msg["room"]]
            self.room = room
            room.members.append(self)
            self.send(
                {
                    "type": "joined",
                    "room": room.code,
                    "role": "player",
                    "seat": len(room.members) - 1,
                    "edition": "space",
                    **reply,
                }
            )
            if len(room.members) == 4:
                room.broadcast_state()
        elif kind == "rematch" and self.room is not None:
            self.room.decisions = 0
            self.room.version += 1
            self.room.broadcast_state(self, frame({"type": "ok", **reply}))
        elif kind == "ping":
            self.send({"type": "pong", **reply})


async def main(host: str, port: int) -> None:
    """Serve until a signal arrives."""
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Conn, host, port, backlog=1024)
    bound = server.sockets[0].getsockname()[1]
    print(f"baseline listening on {host}:{bound}", file=sys.stderr, flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--uvloop",
        action="store_true",
        help="run on uvloop (if installed) instead of the standard asyncio loop",
    )
    args = parser.parse_args()
    factory = None
    if args.uvloop:
        try:
            import uvloop  # type: ignore[import-not-found,unused-ignore]

            factory = uvloop.new_event_loop
        except ImportError:
            print("baseline: uvloop is not installed, running on asyncio", file=sys.stderr)
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main(args.host, args.port))
