"""`selfish connect` without an address: the Selfish servers found on the LAN, updating live.

Enter joins the highlighted server (the highlight follows its server as the list changes); an
address can still be typed below the list. With ``wanted`` (`selfish connect NAME`) the screen
joins the server of that name once it was found and no other of that name answered meanwhile,
and stays up to choose from, with their addresses, when there is none or several.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static

from protocol.lan import LanServer, matching
from selfish_tui.client import parse_address
from selfish_tui.discovery import DiscoveryProblem, ServerFinder, ServersChanged
from selfish_tui.i18n import N_, _, ngettext, word_cut
from selfish_tui.widgets.footer import LocalisedFooter

DEFAULT_PORT = 7777
# Seconds of finding nothing before the screen suggests typing an address (the issue asks for
# servers to show within about two seconds; mDNS answers within one on a working LAN).
QUIET_AFTER = 2.5
# Seconds between finding the server `selfish connect NAME` names and joining it: others of
# that name answer the same query within a few hundred milliseconds.
SETTLE_AFTER = 1.0
NAME_WIDTH = 24
COLUMNS = (
    (N_("Server"), NAME_WIDTH),
    (N_("Address"), 21),
    (N_("Players"), 7),
    (N_("Open rooms"), 10),
)


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
        Binding("a", "type_address", N_("Type an address")),
        Binding("escape", "to_list", N_("Back to the list"), show=False),
    ]

    def __init__(
        self,
        interfaces: list[str] | None,
        wanted: str | None = None,
        quiet_after: float = QUIET_AFTER,
        settle_after: float = SETTLE_AFTER,
    ) -> None:
        super().__init__()
        self.interfaces = interfaces
        self.wanted = wanted
        self.quiet_after = quiet_after
        self.settle_after = settle_after
        self._settle: Timer | None = None  # the join of the wanted server, once it settled
        self.servers: list[LanServer] = []
        self.problem: str | None = None
        self._quiet = False  # the wait is over without a server
        self._chosen = False  # dismissed already (more news may still be queued)

    def compose(self) -> ComposeResult:
        with Vertical(id="servers-box"):
            yield Static(self._status(), id="servers-status")
            yield DataTable(id="servers", cursor_type="row", zebra_stripes=True)
            yield Static(_("Or type an address (HOST[:PORT]) and press Enter:"), id="servers-label")
            yield Input(
                placeholder=_("e.g. {example}").format(example=f"192.168.1.20:{DEFAULT_PORT}"),
                id="address",
                compact=True,
            )
        yield LocalisedFooter()

    def on_mount(self) -> None:
        self.query_one("#servers-box").border_title = _("Selfish — servers on the LAN")
        table = self.query_one("#servers", DataTable)
        for label, width in COLUMNS:
            table.add_column(_(label), width=width)
        table.focus()
        finder = ServerFinder(self.post_message, self.interfaces)
        # A worker of this screen: it stops (and closes the mDNS sockets) when the screen goes.
        self.run_worker(finder.run(), name="discovery", exclusive=True)
        self.set_timer(self.quiet_after, self._wait_over)

    # --- what the finder says ----------------------------------------------------------------

    def on_servers_changed(self, message: ServersChanged) -> None:
        table = self.query_one("#servers", DataTable)
        # The highlight stays on its server, wherever the news puts it (a server listed above
        # it would otherwise make Enter join another); one that left, a neighbour takes it.
        row = table.cursor_row
        highlighted = self.servers[row].key if 0 <= row < len(self.servers) else None
        self.servers = message.servers
        keys = [server.key for server in self.servers]
        keep = keys.index(highlighted) if highlighted in keys else row
        table.clear()
        for server in self.servers:
            # A name up to 40 characters in a 24-cell column: cut after a word, with an ellipsis.
            if server.compatible:
                name = Text(word_cut(server.name, NAME_WIDTH), style="bold")
                players, rooms = str(server.players), str(server.open_rooms)
            else:
                label = _("{name} (protocol {protocol})")
                full = label.format(name=server.name, protocol=server.protocol)
                name = Text(word_cut(full, NAME_WIDTH), style="dim")
                players, rooms = "—", "—"
            table.add_row(name, Text(server.address), players, rooms, key=server.key)
        if self.servers:
            table.move_cursor(row=min(max(keep, 0), len(self.servers) - 1))
        self._show_status()
        if self.wanted is not None and self._settle is None and self._only_match() is not None:
            # Not at once: a second server of that name may answer a moment later, and
            # joining the first to answer would pick one of the two by chance.
            self._settle = self.set_timer(self.settle_after, self._join_wanted)

    def _only_match(self) -> LanServer | None:
        """The one compatible server called ``wanted``; None if there is none, or several."""
        assert self.wanted is not None
        found = matching(self.servers, self.wanted)
        return found[0] if len(found) == 1 and found[0].compatible else None

    def _join_wanted(self) -> None:
        """Join the server called ``wanted`` if it is still the only one of that name; with
        several, the list stays up (with their addresses) for the player to choose."""
        self._settle = None
        server = self._only_match()
        if server is not None:
            self._join(server)

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
            return _(
                "Cannot look for servers on the LAN ({problem}). "
                "Type the server's address below instead."
            ).format(problem=self.problem)
        if self.wanted is not None:
            found = matching(self.servers, self.wanted)
            wanted = repr(self.wanted)
            if len(found) > 1:
                return _("{count} servers are called {name}: choose one, Enter joins.").format(
                    count=len(found), name=wanted
                )
            if self._quiet:
                return _(
                    "No server called {name} on the LAN yet (still looking). "
                    "Choose another, or type its address below."
                ).format(name=wanted)
            return _("Looking for the server called {name} on the LAN…").format(name=wanted)
        if self.servers:
            count = len(self.servers)
            return ngettext(
                "{count} server on the LAN (updating live). Enter joins the highlighted one.",
                "{count} servers on the LAN (updating live). Enter joins the highlighted one.",
                count,
            ).format(count=count)
        if self._quiet:
            return _(
                "No servers found on the LAN yet (still looking). If one is running, a firewall "
                "may block mDNS (UDP port 5353): type its address below."
            )
        return _("Looking for Selfish servers on the LAN…")

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
                _(
                    "{name} speaks protocol {protocol}, which this client does not: "
                    "use the same version of Selfish as the server."
                ).format(name=server.name, protocol=server.protocol),
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
            self.notify(str(exc), title=_("Address"), severity="warning")
            return
        self._choose(host, port)

    def action_type_address(self) -> None:
        """Move to the address field."""
        self.query_one("#address", Input).focus()

    def action_to_list(self) -> None:
        """Back from the address field to the list."""
        self.query_one("#servers", DataTable).focus()
