"""`selfish connect` without an address: the Selfish servers found on the LAN, updating live.

Enter joins the highlighted server; an address can still be typed below the list. With
``wanted`` (`selfish connect NAME`) the screen joins the server of that name as soon as it is
found, and stays up to choose from when there is none or several.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from protocol.lan import LanServer, matching
from selfish_tui.client import parse_address
from selfish_tui.discovery import DiscoveryProblem, ServerFinder, ServersChanged

DEFAULT_PORT = 7777
# Seconds of finding nothing before the screen suggests typing an address (the issue asks for
# servers to show within about two seconds; mDNS answers within one on a working LAN).
QUIET_AFTER = 2.5
COLUMNS = (("Server", 24), ("Address", 21), ("Players", 7), ("Open rooms", 10))


class ServersScreen(Screen[tuple[str, int]]):
    """The LAN's servers; dismisses with the (host, port) to connect to."""

    DEFAULT_CSS = """
    #servers-box {
        border: round $primary-muted;
        border-title-color: $text;
        border-title-style: bold;
        padding: 0 1;
    }
    #servers-status { height: auto; margin-bottom: 1; }
    #servers { height: 1fr; }
    #servers-label { height: auto; margin-top: 1; color: $text-muted; }
    #address { margin-bottom: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "type_address", "Type an address"),
        Binding("escape", "to_list", "Back to the list", show=False),
    ]

    def __init__(
        self,
        interfaces: list[str] | None,
        wanted: str | None = None,
        quiet_after: float = QUIET_AFTER,
    ) -> None:
        super().__init__()
        self.interfaces = interfaces
        self.wanted = wanted
        self.quiet_after = quiet_after
        self.servers: list[LanServer] = []
        self.problem: str | None = None
        self._quiet = False  # the wait is over without a server
        self._chosen = False  # dismissed already (more news may still be queued)

    def compose(self) -> ComposeResult:
        with Vertical(id="servers-box"):
            yield Static(self._status(), id="servers-status")
            yield DataTable(id="servers", cursor_type="row", zebra_stripes=True)
            yield Static("Or type an address (HOST[:PORT]) and press Enter:", id="servers-label")
            yield Input(placeholder=f"e.g. 192.168.1.20:{DEFAULT_PORT}", id="address", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#servers-box").border_title = "Selfish — servers on the LAN"
        table = self.query_one("#servers", DataTable)
        for label, width in COLUMNS:
            table.add_column(label, width=width)
        table.focus()
        finder = ServerFinder(self.post_message, self.interfaces)
        # A worker of this screen: it stops (and closes the mDNS sockets) when the screen goes.
        self.run_worker(finder.run(), name="discovery", exclusive=True)
        self.set_timer(self.quiet_after, self._wait_over)

    # --- what the finder says ----------------------------------------------------------------

    def on_servers_changed(self, message: ServersChanged) -> None:
        self.servers = message.servers
        table = self.query_one("#servers", DataTable)
        keep = table.cursor_row
        table.clear()
        for server in self.servers:
            if server.compatible:
                name = Text(server.name, style="bold")
                players, rooms = str(server.players), str(server.open_rooms)
            else:
                name = Text(f"{server.name} (protocol {server.protocol})", style="dim")
                players, rooms = "—", "—"
            table.add_row(name, Text(server.address), players, rooms, key=server.key)
        if self.servers:
            table.move_cursor(row=min(max(keep, 0), len(self.servers) - 1))
        self._show_status()
        if self.wanted is not None:
            found = [s for s in matching(self.servers, self.wanted) if s.compatible]
            if len(found) == 1:
                self._join(found[0])

    def on_discovery_problem(self, message: DiscoveryProblem) -> None:
        self.problem = message.reason
        self._show_status()
        self.action_type_address()

    def _wait_over(self) -> None:
        self._quiet = True
        self._show_status()
        if self.wanted is not None and not matching(self.servers, self.wanted):
            # Perhaps a host name without a dot: offer it as an address, one Enter away.
            address = self.query_one("#address", Input)
            if not address.value:
                address.value = f"{self.wanted}:{DEFAULT_PORT}"

    def _status(self) -> str:
        if self.problem is not None:
            return (
                f"Cannot look for servers on the LAN ({self.problem}). "
                "Type the server's address below instead."
            )
        if self.wanted is not None:
            found = matching(self.servers, self.wanted)
            if len(found) > 1:
                return f"{len(found)} servers are called {self.wanted!r}: choose one, Enter joins."
            if self._quiet:
                return (
                    f"No server called {self.wanted!r} on the LAN yet (still looking). "
                    "Choose another, or type its address below."
                )
            return f"Looking for the server called {self.wanted!r} on the LAN…"
        if self.servers:
            count = len(self.servers)
            return (
                f"{count} server{'s' if count > 1 else ''} on the LAN (updating live). "
                "Enter joins the highlighted one."
            )
        if self._quiet:
            return (
                "No servers found on the LAN yet (still looking). If one is running, a firewall "
                "may block mDNS (UDP port 5353): type its address below."
            )
        return "Looking for Selfish servers on the LAN…"

    def _show_status(self) -> None:
        self.query_one("#servers-status", Static).update(Text(self._status()))

    # --- choosing -----------------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        row = event.cursor_row
        if 0 <= row < len(self.servers):
            self._join(self.servers[row])

    def _join(self, server: LanServer) -> None:
        if self._chosen:
            return
        if not server.compatible:
            self.notify(
                f"{server.name} speaks protocol {server.protocol}, which this client does not: "
                "use the same version of Selfish as the server.",
                severity="warning",
            )
            return
        self._choose(server.host, server.port)

    def _choose(self, host: str, port: int) -> None:
        """Dismiss once: a dismissed screen that dismisses again would pop the lobby under it."""
        if not self._chosen:
            self._chosen = True
            self.dismiss((host, port))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            host, port = parse_address(event.value, DEFAULT_PORT)
        except ValueError as exc:
            self.notify(str(exc), title="Address", severity="warning")
            return
        self._choose(host, port)

    def action_type_address(self) -> None:
        """Move to the address field."""
        self.query_one("#address", Input).focus()

    def action_to_list(self) -> None:
        """Back from the address field to the list."""
        self.query_one("#servers", DataTable).focus()
