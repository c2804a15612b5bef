"""Hostile input, fuzzed with Hypothesis: random bytes and frames, random maps, valid messages
with wrong field types, and rounds of valid and invalid acts from several connections at once.

The server must stay up, answer every request with a result or an error (never
``internal_error``, never a traceback in its log), close a connection only with a closing error
code, and keep every game sound: engine invariants hold and the stored decisions replay to the
game in memory. The scenarios live in tests/server/fuzzing.py; ``bench/fuzz.py --minutes M`` runs
them for longer.
"""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from server.config import ServerConfig
from server.net.tcp import start_server
from tests.server.fuzzing import FUZZ_SETTINGS, ErrorLog, Fuzzer


def test_fuzz_server_with_hostile_input() -> None:
    loop = asyncio.new_event_loop()
    running = loop.run_until_complete(start_server(ServerConfig(**FUZZ_SETTINGS)))
    fuzzer = Fuzzer(running)
    errors = ErrorLog(fuzzer.findings)
    errors.install()

    # Generation only: the server keeps state across examples and answers concurrent requests
    # in arrival order, so an example cannot be replayed exactly for shrinking.
    @settings(
        max_examples=80,
        deadline=None,
        phases=[Phase.generate],
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def example(data: st.DataObject) -> None:
        before = len(fuzzer.findings.crashes), len(fuzzer.findings.invariant_failures)
        loop.run_until_complete(fuzzer.example(data.draw))
        found = fuzzer.findings
        assert len(found.crashes) == before[0], found.crashes[before[0] :]
        assert len(found.invariant_failures) == before[1], found.invariant_failures[before[1] :]

    try:
        example()
    finally:
        errors.remove()
        loop.run_until_complete(running.stop())
        loop.close()
    found = fuzzer.findings
    assert found.examples >= 80 and found.inputs > 100
    assert found.errors["bad_request"] > 0  # the fuzzer does get past the framing
    assert found.replies["ok"] > 0  # and valid acts got through
