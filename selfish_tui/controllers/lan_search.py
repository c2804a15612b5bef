"""`selfish connect` without an address: the servers found on the LAN, then the chosen one's
lobby."""

from __future__ import annotations

from collections.abc import Callable

from selfish_tui.controllers.controller import Login
from selfish_tui.controllers.remote_lobby import RemoteLobby
from selfish_tui.i18n import _
from selfish_tui.paths import identity_key
from selfish_tui.screens.servers import ServersScreen


class LanSearch(RemoteLobby):
    """The servers found on the LAN, on ``interfaces`` (None: every interface); ``wanted``
    (`selfish connect NAME`) joins the one of that name. Once one is chosen (or an address
    typed), its lobby, as for a typed address; tokens are kept per address and name with
    ``load_token`` and ``save_token``."""

    def __init__(
        self,
        interfaces: list[str] | None = None,
        wanted: str | None = None,
        load_token: Callable[[str], str | None] = lambda key: None,
        save_token: Callable[[str, str], None] = lambda key, token: None,
    ) -> None:
        super().__init__()
        self.interfaces = interfaces
        self.wanted = wanted
        self.load_token = load_token
        self.save_token = save_token
        self._listing = False  # the server list is open

    def start(self) -> None:
        self._show_servers()

    def _show_servers(self) -> None:
        self.shell.set_lobby_status(_("Choose a server on the LAN, or type an address."))
        self._listing = True
        self.shell.push_screen(ServersScreen(self.interfaces, self.wanted), self._server_chosen)

    def _server_chosen(self, address: tuple[str, int] | None) -> None:
        self._listing = False
        if address is not None:
            self.connect_to(*address)

    def connect_to(self, host: str, port: int) -> None:
        """Connect to a server chosen from the list (or typed there) and show its lobby."""
        # One identity per server and name, as for an address typed on the command line.
        key = identity_key(f"{host}:{port}", self.shell.player_name)
        self.login = Login(
            host, port, self.load_token(key), lambda token: self.save_token(key, token)
        )
        self.shell.open_connection(self.login)

    def connection_failed(self, reason: str) -> bool:
        """A server chosen from the list could not be reached: stop trying, say why, and show
        the list again (another server, or a typed address)."""
        self.shell.close_connection()
        address = self.login.address if self.login is not None else _("the server")
        self.shell.notify(
            _("Could not join {address} ({reason}).").format(address=address, reason=reason),
            title=_("Connection"),
            severity="error",
        )
        # Not the same name again: it would be joined at once, and fail the same way.
        self.wanted = None
        self._show_servers()
        return True

    def language_switched(self) -> None:
        if self._listing:
            self._show_servers()
