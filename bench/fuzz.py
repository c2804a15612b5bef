"""Hostile input for M minutes: the fuzzer of tests/server/test_fuzz.py, run for longer.

Starts a server in this process (127.0.0.1, a free port, a temporary SQLite file so the real
store is exercised), then runs the Hypothesis scenarios of tests/server/fuzzing.py (random bytes
and frames, random maps, valid messages with wrong field types, concurrent valid and invalid
acts) in batches until the time is up. Findings are counted, never asserted, and printed:

    python bench/fuzz.py --minutes 5 [--json]

Output: examples and inputs tried, direct replies by type, error replies by code, crashes
(internal_error replies, server tracebacks, missing replies, unexpected closes, server
unreachable), invariant failures (engine invariants, stored game differs from memory), and
samples of each finding. Exit status 1 if anything was found.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

# The fuzzer lives in tests/, which is not installed: found in the checkout.
sys.path.append(str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from server.config import ServerConfig
from server.net.tcp import start_server
from tests.server.fuzzing import FUZZ_SETTINGS, ErrorLog, Fuzzer

BATCH = 200  # examples per Hypothesis run


def run(minutes: float, as_json: bool) -> int:
    """Fuzz for ``minutes``; print the figures; return the exit status."""
    logging.basicConfig(level=logging.CRITICAL)  # the server's INFO chatter is not a finding
    loop = asyncio.new_event_loop()
    with tempfile.TemporaryDirectory(prefix="selfish-fuzz-") as tmp:
        config = ServerConfig(**{**FUZZ_SETTINGS, "db": os.path.join(tmp, "fuzz.sqlite3")})
        running = loop.run_until_complete(start_server(config))
        fuzzer = Fuzzer(running)
        errors = ErrorLog(fuzzer.findings)
        errors.install()
        fuzzer_failures: list[str] = []  # the fuzzer itself broke (a bug here, not a finding)

        @settings(
            max_examples=BATCH,
            deadline=None,
            phases=[Phase.generate],
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(st.data())
        def batch(data: st.DataObject) -> None:
            loop.run_until_complete(fuzzer.example(data.draw))

        start = time.monotonic()
        end = start + minutes * 60
        try:
            while time.monotonic() < end:
                try:
                    batch()
                except Exception as exc:  # keep going: report it with the figures
                    fuzzer_failures.append(f"{type(exc).__name__}: {str(exc)[:300]}")
                if not as_json:
                    f = fuzzer.findings
                    print(
                        f"{time.monotonic() - start:6.0f} s  {f.examples} examples, "
                        f"{f.inputs} inputs, {len(f.crashes)} crashes, "
                        f"{len(f.invariant_failures)} invariant failures",
                        flush=True,
                    )
        finally:
            errors.remove()
            rooms = len(running.lobby.rooms)
            players = len(running.lobby.players)
            loop.run_until_complete(running.stop())
            loop.close()
    summary = fuzzer.findings.summary()
    summary.update(
        {
            "seconds": round(time.monotonic() - start, 1),
            "fuzzer_failures": fuzzer_failures[:10],
            "rooms_left": rooms,
            "players_known": players,
            "max_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        }
    )
    if as_json:
        print(json.dumps(summary))
    else:
        print(
            f"\n{summary['examples']} examples, {summary['inputs']} inputs in "
            f"{summary['seconds']} s"
        )
        print("direct replies:", ", ".join(f"{k} {v}" for k, v in summary["replies"].items()))
        print(
            "errors by code:", ", ".join(f"{k} {v}" for k, v in summary["errors_by_code"].items())
        )
        print(
            f"crashes: {summary['crashes']}  invariant failures: "
            f"{summary['invariant_failures']}  fuzzer failures: {len(fuzzer_failures)}"
        )
        print(
            f"rooms left open: {rooms}, players known: {players}, "
            f"max RSS {summary['max_rss_mib']} MiB (fuzzer and server together)"
        )
        for text in summary["crash_samples"] + summary["invariant_samples"] + fuzzer_failures:
            print("  " + text)
    return 0 if fuzzer.findings.clean() and not fuzzer_failures else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=1.0, help="how long (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    sys.exit(run(args.minutes, args.json))


if __name__ == "__main__":
    main()
