"""What the player is told when the server refuses a request (or reports an error)."""

from __future__ import annotations

from selfish_tui.i18n import N_
from selfish_tui.keyed_text import error_message

# Server error codes worth a plainer sentence than the server's own message (the English;
# keyed_text.error_message gives every code's sentence in the active language).
PLAIN_ERRORS = {
    "no_such_room": N_("There is no room with that code."),
    "room_full": N_("That room is full. You can still watch it (w)."),
    "game_started": N_("That game has already begun. You can watch it (w)."),
    "not_host": N_("Only the host can do that."),
    "seats_empty": N_("Every seat must be filled first: add bots (a) or wait for players."),
    "rate_limited": N_("Slow down a little: the server dropped that message."),
    "bad_name": N_("The server refused that name"),
    "server_full": N_("The server has too many rooms right now."),
    "too_many_rooms": N_("You are in too many rooms already."),
    "illegal_choice": N_("That choice is no longer possible; the prompt has been refreshed."),
    "not_your_turn": N_("It is not your decision any more."),
    "bad_option": N_("The server refused that option"),
}
# Refusals that only mean "the game moved on": the fresh state is already on screen.
QUIET_ERRORS = {"stale_version"}


def refusal(code: str, message: object) -> str | None:
    """The toast for error ``code`` with the server's ``message``, in the active language;
    None for one that needs no word."""
    if code in QUIET_ERRORS:
        return None
    english = PLAIN_ERRORS.get(code, str(message or code))
    text = error_message(code, english)
    # Which option, or what is wrong with the name (too long, like a seat's in that room):
    # the server's own words follow.
    if code in ("bad_option", "bad_name") and message:
        text = f"{text}: {message}"
    return text
