"""The table's widgets, one per module: strips (board), hand, log, status line, prompt."""
