"""The ways of playing, one small object each behind one interface
(:class:`~selfish_tui.controllers.controller.Controller`): a local game against bots
(`selfish play`), a server's lobby (`selfish connect HOST`, the SSH and web front doors), a
server hosted for the LAN (`selfish host`) and the LAN's servers to choose from (`selfish
connect` without an address).

A controller says how the app connects, what the lobby, the quit dialog and the game-over
dialog say, whether there is a lobby to go back to, and what happens once the server has
handed back our rooms, when a room is left and when the connection fails. It drives the app
through :class:`~selfish_tui.controllers.controller.Shell` and may import the screens it opens
(dialogs, the server list), the client's state and its words; never the app.
"""
