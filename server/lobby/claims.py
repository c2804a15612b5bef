"""A new room's code: a free one (``server.lobby.codes``), within the rate and room quota of
the address group that creates it. A server alone checks and takes it at once; a cluster's
node claims it with a lease in one round trip off the event loop (``server.cluster.leases``),
the requests of the connection waiting meanwhile, and takes another code when the one it
claimed is another room's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from protocol.errors import ProtocolError
from server.config import ServerConfig
from server.lobby import codes
from server.lobby.players import Connection
from server.rooms.room import Room

if TYPE_CHECKING:
    from server.cluster.leases import Claimed
    from server.cluster.node import Cluster


class RoomClaims:
    """The codes of the rooms a lobby opens (a mixin of :class:`server.lobby.lobby.Lobby`)."""

    config: ServerConfig
    rooms: dict[str, Room]
    rooms_by_address: Counter[str]  # open rooms created per address
    cluster: Cluster | None

    def new_code(self, public: bool = True, creator: str | None = None) -> str:
        """A free room code (server.lobby.codes); in a cluster its lease is taken (noting
        ``creator``)."""
        while True:
            code = codes.random_code(public)
            if code not in self.rooms and (
                self.cluster is None or self.cluster.leases.take(code, creator)
            ):
                return code

    def claim_room(
        self, conn: Connection, group: str, public: bool, then: Callable[[str], None]
    ) -> None:
        """Call ``then`` with the code of a room ``group`` creates, within its rate and room
        quota (of every node of a cluster: server.lobby.codes); ProtocolError if not. On a
        server alone at once; in a cluster once the claim's round trip is back (the event
        loop goes on meanwhile, ``conn``'s next requests wait: ``Connection.after``). ``then``
        adds the room (``claimed``) or lets the code go (:meth:`unclaim`)."""
        if self.cluster is None:
            codes.check(self.config, True, self.rooms_by_address[group])
            then(self.new_code(public, group))
            return
        leases = self.cluster.leases
        code = codes.free_code(self.rooms, public)
        rate, burst = self.config.rooms_per_second, self.config.rooms_burst
        conn.after(
            leases.claim_later(code, group, rate, burst),
            lambda rows: self._claimed(conn, code, group, public, rows, then),
        )

    def _claimed(
        self,
        conn: Connection,
        code: str,
        group: str,
        public: bool,
        rows: Claimed,
        then: Callable[[str], None],
    ) -> None:
        """Call ``then`` with the code a cluster's claim (``rows``) gives, or raise
        ProtocolError; a code whose lease another room holds is replaced by a new one."""
        assert self.cluster is not None
        leases = self.cluster.leases
        allowed, opened, taken = leases.claimed(code, rows)
        try:
            codes.check(self.config, allowed, opened)
        except ProtocolError:
            if taken:
                leases.release(code)
            raise
        if taken and code not in self.rooms:
            then(code)
        else:
            self._another_code(conn, group, public, then)

    def _another_code(
        self, conn: Connection, group: str, public: bool, then: Callable[[str], None]
    ) -> None:
        """Call ``then`` with a new code whose lease is taken (noting ``group``), the take's
        round trip off the event loop like the claim's (a claimed code was another room's)."""
        assert self.cluster is not None
        leases = self.cluster.leases
        code = codes.free_code(self.rooms, public)

        def taken(row: object) -> None:
            if leases.taken(code, row) and code not in self.rooms:
                then(code)
            else:
                self._another_code(conn, group, public, then)

        conn.after(leases.take_later(code, group), taken)

    def unclaim(self, code: str) -> None:
        """Let the code of a room :meth:`claim_room` gave and that was not opened go."""
        if self.cluster is not None and code not in self.rooms:
            self.cluster.leases.release(code)
