"""What `selfish connect` loads: the client alone, no server module.

(Which modules may import ``server`` at all is checked statically in tests/test_import_graph.py.)
"""

from __future__ import annotations

import subprocess
import sys


def test_connect_path_does_not_load_server() -> None:
    """Importing the app and the CLI (what `selfish connect` runs) loads no server module."""
    code = (
        "import sys, selfish_tui.cli, selfish_tui.app; "
        "bad = [m for m in sys.modules if m == 'server' or m.startswith('server.')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
