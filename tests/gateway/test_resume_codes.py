"""Resume codes: secret, typed loosely, found only when issued, tried at a bounded pace."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from server.gateway.resume import (
    ALPHABET,
    ATTEMPTS_BURST,
    ResumeBook,
    ResumeRefused,
    new_code,
    normalize,
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_codes_are_long_random_and_unambiguous() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        raw = code.replace("-", "")
        assert len(raw) == 16 and set(raw) <= set(ALPHABET)
        assert not set(raw) & set("ilo01")
    assert normalize(" K7M2X9QP-4HWD-R3TF ") == "k7m2x9qp4hwdr3tf"
    assert normalize("k7m2-x9qp-4hwd-r3t") is None
    assert normalize("k7m2-x9qp-4hwd-r3t0") is None  # 0 is not in the alphabet


def test_an_issued_code_finds_its_seat_and_stores_no_code(tmp_path: Path) -> None:
    book = ResumeBook(tmp_path / "resume")
    seat = book.issue("alice")
    found = book.find("1.2.3.4", seat.code.upper().replace("-", ""))
    assert (found.identity, found.name, found.code) == (seat.identity, "alice", seat.code)
    stored = " ".join(p.name + p.read_text() for p in (tmp_path / "resume").iterdir())
    assert seat.code.replace("-", "") not in stored.replace("-", "")
    assert (tmp_path / "resume").stat().st_mode & 0o777 == 0o700
    with pytest.raises(ResumeRefused, match="no such resume code"):
        book.find("1.2.3.4", new_code())
    with pytest.raises(ResumeRefused, match="not a resume code"):
        book.find("1.2.3.4", "ABCD")


def test_attempts_are_rate_limited_per_address(tmp_path: Path) -> None:
    clock = Clock()
    book = ResumeBook(tmp_path, clock=clock)
    seat = book.issue("bob")
    for _ in range(ATTEMPTS_BURST):
        with pytest.raises(ResumeRefused, match="no such"):
            book.find("6.6.6.6", new_code())
    with pytest.raises(ResumeRefused, match="too many resume attempts"):
        book.find("6.6.6.6", seat.code)  # even the right code, until the bucket refills
    assert book.find("7.7.7.7", seat.code).name == "bob"  # another address is not held up
    clock.now = 10.0
    assert book.find("6.6.6.6", seat.code).name == "bob"


def test_unused_codes_are_forgotten(tmp_path: Path) -> None:
    book = ResumeBook(tmp_path)
    old, fresh = book.issue("old"), book.issue("fresh")
    old.identity.write_text("{}")
    name_file = old.identity.with_suffix(".name")
    past = time.time() - 40 * 86_400
    os.utime(name_file, (past, past))
    assert book.prune() == 1
    assert not old.identity.exists() and not name_file.exists()
    assert book.find("a", fresh.code).name == "fresh"


@pytest.mark.parametrize(
    ("public", "port", "login"),
    [
        ("", 2222, "ssh -p 2222 10.0.0.5"),
        ("", 22, "ssh 10.0.0.5"),
        ("play.example.org", 2222, "ssh -p 2222 play.example.org"),
        ("play.example.org:22", 2222, "ssh play.example.org"),
        ("play.example.org:4000", 2222, "ssh -p 4000 play.example.org"),
        ("[2001:db8::1]:4000", 2222, "ssh -p 4000 2001:db8::1"),
        ("2001:db8::1", 2222, "ssh -p 2222 2001:db8::1"),
    ],
)
def test_commands_name_the_address_players_type(public: str, port: int, login: str) -> None:
    from types import SimpleNamespace

    from server.config import ServerConfig
    from server.gateway.server import Gateway

    gateway: Any = SimpleNamespace(config=ServerConfig(ssh_public_address=public), port=port)
    connection: Any = SimpleNamespace(local_host="10.0.0.5")
    assert Gateway.login_command(gateway, connection) == login
    gateway.login_command = lambda c: Gateway.login_command(gateway, c)
    resume = Gateway.resume_command(gateway, connection, "k7m2-x9qp-4hwd-r3tf")
    assert resume == login.replace("ssh ", "ssh -t ", 1) + " resume k7m2-x9qp-4hwd-r3tf"
