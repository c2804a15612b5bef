"""Running a script of bench/ as a person does, for the tests that check it end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_bench(
    script: str, *arguments: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``bench/<script>`` with ``arguments`` in this interpreter; its exit code is the
    caller's to check."""
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
