"""The `selfish` command line: parsing, address handling and the server dispatchers."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from selfish_tui import arguments, cli, commands
from selfish_tui.client import parse_address
from selfish_tui.controllers.remote_lobby import RemoteLobby


def test_play_defaults_and_options() -> None:
    args = cli.build_parser().parse_args(["play"])
    assert (args.edition, args.bots, args.seed, args.resume) == ("space", 3, None, False)
    assert args.level == arguments.NEWCOMER_LEVEL == "expert"
    assert cli.build_parser().parse_args(["play", "--level", "expert"]).level == "expert"
    args = cli.build_parser().parse_args(
        [
            "play",
            "--edition",
            "shipwrecked",
            "--bots",
            "4",
            "--seed",
            "9",
            "--name",
            "Ann",
            "--resume",
        ]
    )
    assert (args.edition, args.bots, args.seed, args.name, args.resume) == (
        "shipwrecked",
        4,
        9,
        "Ann",
        True,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--bots", "5"],
        ["play", "--bots", "0"],
        ["play", "--level", "genius"],
        ["play", "--edition", "moon"],
        ["play", "--name", ""],
        ["play", "--name", "x" * 25],
        ["host", "--port", "70000"],
    ],
)
def test_bad_arguments_exit_with_usage(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        cli.build_parser().parse_args(argv)
    assert raised.value.code == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("example.org", ("example.org", 7777)),
        ("example.org:9000", ("example.org", 9000)),
        ("127.0.0.1:7", ("127.0.0.1", 7)),
        ("[::1]:8000", ("::1", 8000)),
        ("[::1]", ("::1", 7777)),
    ],
)
def test_parse_address(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize(
    "text", ["", ":80", "host:0", "host:70000", "host:port", "host:", "[::1", "[::1]x", "h:+1"]
)
def test_parse_address_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)


BAD_ADDRESSES = [
    ("127.0.0.1:abc", "'127.0.0.1:abc': the port must be a number from 1 to 65535"),
    ("host:abc", "'host:abc': the port must be a number from 1 to 65535"),
    (":0", "':0' has no host before the port"),
    ("host:99999", "'host:99999': the port must be a number from 1 to 65535"),
    ("[::1]:x", "'[::1]:x': the port must be a number from 1 to 65535"),
    ("[::1", "'[::1' is not an address: ']' is missing"),
    ("[::1]7777", "'[::1]7777' is not an address: ':PORT' may follow ']', nothing else"),
]


@pytest.mark.parametrize(("address", "said"), BAD_ADDRESSES)
def test_connect_with_a_malformed_address_says_so_in_one_line(
    address: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One clear line, no Python text ('invalid literal for int()')."""
    assert cli.main(["connect", address]) == 2
    assert capsys.readouterr().err == f"selfish: {said}\n"


def test_a_malformed_address_in_chinese_and_from_the_command_line() -> None:
    """The real console script: one line on stderr in the chosen language, exit status 2, no
    traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "selfish_tui.cli", "connect", "[::1]:x", "--lang", "zh"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("selfish: '[::1]:x'") and "端口" in done.stderr


def test_simulate_is_dispatched_to_the_server_package(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli.main(
            ["simulate", "--edition", "space", "--players", "2", "--games", "1", "--seed", "3"]
        )
        == 0
    )
    assert capsys.readouterr().out


def test_bot_is_dispatched_to_the_server_package(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        cli.main(["bot", "--help"])
    assert raised.value.code == 0
    assert "selfish bot" in capsys.readouterr().out


def test_default_name_is_printable_and_short(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFISH_NAME", "Zoë\x07" + "z" * 40)
    name = arguments.default_name()
    assert name.isprintable() and 1 <= len(name) <= 24 and name.startswith("Zoë")


def test_tokens_are_kept_per_server_and_private(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from selfish_tui import paths

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert paths.load_token("local") is None
    paths.save_token("local", "t1")
    paths.save_token("example.org:7777", "t2")
    assert paths.load_token("local") == "t1"
    assert paths.load_token("example.org:7777") == "t2"
    assert paths.local_db_path().parent == paths.data_dir()
    mode = os.stat(paths.data_dir() / "identities.json").st_mode & 0o777
    assert mode == 0o600


def test_V1_play_takes_variants_and_refuses_a_bad_one(capsys: pytest.CaptureFixture[str]) -> None:
    args = cli.build_parser().parse_args(["play", "--variant", "V1"])
    assert args.variant == ["V1"]
    assert cli.build_parser().parse_args(["play"]).variant == []
    # Refused before any server starts, with the engine's reason.
    assert cli.main(["play", "--variant", "V9"]) == 2
    assert "unknown variant 'V9'" in capsys.readouterr().err
    assert cli.main(["play", "--edition", "shipwrecked", "--variant", "V1"]) == 2
    assert "does not apply to the shipwrecked edition" in capsys.readouterr().err


def test_two_names_on_one_login_are_two_identities(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token store is keyed by server and name."""
    from selfish_tui import app as app_module

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    started: list[tuple[str, str | None]] = []

    class FakeApp:
        def __init__(self, lobby: RemoteLobby, name: str, **kw: Any) -> None:
            assert lobby.login is not None
            started.append((name, lobby.login.token))
            self.lobby = lobby

        def run(self) -> None:
            self.lobby.keep_token(f"token-of-{started[-1][0]}")  # the server's welcome

    monkeypatch.setattr(app_module, "SelfishApp", FakeApp)
    parser = cli.build_parser()
    for name in ("Ann", "Bob", "Ann", "Bob"):
        commands.connect(parser.parse_args(["connect", "127.0.0.1:7801", "--name", name]))
    # First runs start fresh; later ones resume each name's own identity, never the other's.
    assert started == [
        ("Ann", None),
        ("Bob", None),
        ("Ann", "token-of-Ann"),
        ("Bob", "token-of-Bob"),
    ]


def test_connect_takes_several_addresses_comma_separated_or_one_after_another(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from selfish_tui import app as app_module

    logins: list[Any] = []

    class FakeApp:
        def __init__(self, lobby: RemoteLobby, name: str, **kw: Any) -> None:
            logins.append(lobby.login)

        def run(self) -> None:
            pass

    monkeypatch.setattr(app_module, "SelfishApp", FakeApp)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    parser = cli.build_parser()
    for argv in (
        ["a.example:7000,b.example,[::1]:7002"],
        ["a.example:7000", "b.example,[::1]:7002"],
    ):
        assert commands.connect(parser.parse_args(["connect", *argv, "--guest"])) == 0
    for login in logins:
        assert (login.host, login.port) == ("a.example", 7000)
        assert login.others == (("b.example", 7777), ("::1", 7002))
    assert cli.main(["connect", "a.example:7000,b.example:x"]) == 2  # each one is checked
