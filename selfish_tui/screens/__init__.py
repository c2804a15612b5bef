"""The client's screens: lobby and waiting room, table, game over, help, confirm, too small."""
