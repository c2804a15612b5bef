"""The command-line pieces of the gateway and the browser front door."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfish_tui import arguments
from selfish_tui import cli as client_cli
from selfish_tui.client import parse_address
from selfish_tui.paths import load_token, save_token
from server import cli as server_cli


def test_ssh_flags_reach_the_config(tmp_path: Path) -> None:
    keys = tmp_path / "authorized_keys"
    args = server_cli.build_parser().parse_args(
        ["--ssh-port", "2222", "--ssh-auth", "keys", "--ssh-authorized-keys", str(keys)]
    )
    config = server_cli.make_config(args)
    assert (config.ssh_port, config.ssh_auth, config.ssh_authorized_keys) == (
        2222,
        "keys",
        str(keys),
    )
    assert server_cli.make_config(server_cli.build_parser().parse_args([])).ssh_port == -1


def test_ssh_settings_from_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text('[server]\nssh_port = 2200\nssh_idle_timeout = 60\nssh_host = "0.0.0.0"\n')
    config = server_cli.make_config(server_cli.build_parser().parse_args(["--config", str(path)]))
    assert (config.ssh_port, config.ssh_idle_timeout, config.ssh_host) == (2200, 60.0, "0.0.0.0")


def test_bad_ssh_auth_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        server_cli.build_parser().parse_args(["--ssh-auth", "password"])


def test_connect_goes_to_a_room_and_keeps_its_identity_where_told() -> None:
    parser = client_cli.build_parser()
    args = parser.parse_args(["connect", "/run/x.sock", "--join", "abcd", "--identity", "f"])
    assert (args.join, args.watch, args.identity, args.guest) == ("ABCD", None, "f", False)
    assert parser.parse_args(["connect", "h", "--watch", "QZKX", "--guest"]).watch == "QZKX"
    for bad in (
        ["connect", "h", "--join", "ABCD", "--watch", "ABCD"],
        ["connect", "h", "--join", "AB1D"],
        ["connect", "h", "--guest", "--identity", "f"],
    ):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)


def test_a_path_is_a_unix_socket_address() -> None:
    assert parse_address("/var/lib/selfish/gateway.sock") == ("/var/lib/selfish/gateway.sock", 0)
    assert parse_address("example.org:7000") == ("example.org", 7000)


def test_tokens_kept_in_a_given_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home"))
    mine = tmp_path / "key-a.json"
    save_token("/s.sock:0", "tok-a", mine)
    assert load_token("/s.sock:0", mine) == "tok-a"
    assert load_token("/s.sock:0") is None  # the per-user file is untouched
    assert mine.stat().st_mode & 0o777 == 0o600


def test_web_flags() -> None:
    args = client_cli.build_parser().parse_args(["web"])
    assert (args.port, args.host, args.server) == (8080, "0.0.0.0", None)
    args = client_cli.build_parser().parse_args(["web", "--port", "8081", "--server", "h:7"])
    assert (args.port, args.server) == (8081, "h:7")


def test_guests_get_a_guest_name() -> None:
    name = arguments.guest_name()
    assert name.startswith("Guest ") and len(name) <= 24
