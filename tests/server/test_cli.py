"""The console scripts: selfish-server as a real process (signals), selfish bot, config files."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import pytest

from server.bots.command import bot_main, parse_address
from server.cli import build_parser, make_config
from server.config import SHARED_ADDRESS, ServerConfig, load_toml

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
async def test_server_process_plays_bots_and_stops_on_signal(
    tmp_path: Path, stop_signal: signal.Signals
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    settings = tmp_path / "fast.toml"
    # The two headless clients share 127.0.0.1 and act as fast as the server answers: the
    # per-address limits (which drop frames over the rate) are lifted as for any shared address.
    shared = "".join(f"{key} = {value!r}\n" for key, value in SHARED_ADDRESS.items())
    settings.write_text("bot_delay = 0.0\nrate_per_second = 1000.0\nrate_burst = 1000\n" + shared)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server.cli",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--config",
        str(settings),
        "--db",
        str(tmp_path / "s.sqlite3"),
        "--log-level",
        "INFO",
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    port = None
    while port is None:
        line = (await asyncio.wait_for(proc.stderr.readline(), 10)).decode()
        assert line, "server exited early"
        if m := re.search(r"listening on 127\.0\.0\.1:(\d+) \(", line):
            port = int(m.group(1))
    # Two headless clients: one creates (plus a server bot), one joins by code.
    creator = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "import sys; from selfish_tui.local import run_bot; sys.exit(run_bot(sys.argv[1:]))",
        f"127.0.0.1:{port}",
        "--create",
        "shipwrecked",
        "--seats",
        "3",
        "--server-bots",
        "1",
        "--name",
        "Ann",
        "--games",
        "2",
        "--max-rate",
        "1000",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    assert creator.stderr is not None and creator.stdout is not None
    code_line = (await asyncio.wait_for(creator.stderr.readline(), 10)).decode()
    code = code_line.split()[1]
    joiner = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "import sys; from selfish_tui.local import run_bot; sys.exit(run_bot(sys.argv[1:]))",
        f"127.0.0.1:{port}",
        "--room",
        code.lower(),
        "--name",
        "Bob",
        "--games",
        "2",
        "--level",
        "random",
        "--max-rate",
        "1000",
        stdout=asyncio.subprocess.PIPE,
        env=env,
    )
    out_a, _ = await asyncio.wait_for(creator.communicate(), 60)
    out_b, _ = await asyncio.wait_for(joiner.communicate(), 60)
    assert creator.returncode == 0 and joiner.returncode == 0
    lines = out_a.decode().splitlines()
    assert len(lines) == 2 and lines == out_b.decode().splitlines()
    for line in lines:
        assert re.fullmatch(rf"game {code} finished: winner .+ after \d+ turns", line), line
    proc.send_signal(stop_signal)
    _, err = await asyncio.wait_for(proc.communicate(), 10)
    assert proc.returncode == 0
    assert b"server stopped" in err


def test_config_file_and_flags(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text("port = 9000\nidle_timeout = 30\nmax_rooms = 5\n[other]\n")
    with pytest.raises(ValueError):
        load_toml(path)  # [other] is an unknown key
    path.write_text('[server]\nport = 9000\nidle_timeout = 30\nmax_rooms = 5\nhost = "::"\n')
    args = build_parser().parse_args(["--config", str(path), "--port", "9100", "--db", ":memory:"])
    config = make_config(args)
    assert (config.port, config.idle_timeout, config.max_rooms, config.host, config.db) == (
        9100,
        30.0,
        5,
        "::",
        ":memory:",
    )
    defaults = make_config(build_parser().parse_args([]))
    assert defaults.port == 7777 and defaults.host == "0.0.0.0" and defaults.db.endswith(".sqlite3")
    path.write_text("max_rooms = 'many'\n")
    with pytest.raises(ValueError):
        load_toml(path)
    assert ServerConfig().replace(port=1).port == 1


def test_bot_command_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_address("example.org") == ("example.org", 7777)
    assert parse_address("10.0.0.2:8000") == ("10.0.0.2", 8000)
    assert parse_address("[::1]:9") == ("::1", 9)
    assert bot_main(["localhost:x", "--room", "ABCD"]) == 2
    assert bot_main(["localhost", "--create", "space", "--seats", "2", "--server-bots", "2"]) == 2
    # Nothing listens on port 1: a clean error, no traceback.
    assert bot_main(["127.0.0.1:1", "--room", "ABCD"]) == 1
    assert "selfish bot" in capsys.readouterr().err


def test_selfish_no_uvloop_keeps_the_standard_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    from server.cli import _loop_factory

    monkeypatch.setenv("SELFISH_NO_UVLOOP", "1")
    assert _loop_factory() is None


def test_uvloop_is_used_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    uvloop = pytest.importorskip("uvloop")
    from server.cli import _loop_factory

    monkeypatch.delenv("SELFISH_NO_UVLOOP", raising=False)
    assert _loop_factory() is uvloop.new_event_loop


async def test_a_second_server_on_one_sqlite_database_refuses_to_start(tmp_path: Path) -> None:
    from server.net.tcp import start_server
    from server.store.database_lock import DatabaseBusy

    config = ServerConfig(port=0, db=str(tmp_path / "one.sqlite3"))
    first = await start_server(config)
    try:
        with pytest.raises(DatabaseBusy, match="in use by another selfish-server"):
            await start_server(config)
    finally:
        await first.stop()
    again = await start_server(config)  # stopped: the lock is free again
    await again.stop()


def test_a_database_url_the_server_cannot_serve_stops_it_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from server.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["--port", "0", "--db", "mysql://someone@somewhere/selfish"]) == 1
    assert "cannot serve the database" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # no file named after the URL
