"""The table's widgets, one per module: the board's strips, the hand, the log, the status line,
the prompt and its menu of choices, and the footer."""
