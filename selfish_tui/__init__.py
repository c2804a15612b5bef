"""Selfish in the terminal: the Textual client (see docs/client.md)."""
