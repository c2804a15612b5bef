"""hello / welcome / ping and the identity errors."""

from __future__ import annotations

from server.tcp import RunningServer
from tests.server.conftest import ClientFactory


async def test_welcome_shape(server: RunningServer, connect: ClientFactory) -> None:
    client = await connect(server.port)
    welcome = await client.hello("Ann")
    assert welcome["protocol"] == 1 and welcome["server"].startswith("selfish-server")
    assert isinstance(welcome["player"], str) and isinstance(welcome["token"], str)


async def test_ping_before_and_after_hello(server: RunningServer, connect: ClientFactory) -> None:
    client = await connect(server.port)
    client.send({"type": "ping"})
    assert await client.recv() == {"type": "pong"}
    await client.hello("Ann")
    assert (await client.request({"type": "ping"}))["type"] == "pong"


async def test_hello_errors(server: RunningServer, connect: ClientFactory) -> None:
    client = await connect(server.port)
    assert await client.error({"type": "list_rooms"}) == "hello_required"
    assert await client.error({"type": "bogus"}) == "hello_required"
    assert await client.error({"type": "hello", "protocol": 2, "name": "A"}) == (
        "unsupported_protocol"
    )
    assert await client.error({"type": "hello", "protocol": 1, "name": "x" * 25}) == "bad_name"
    assert await client.error({"type": "hello", "protocol": 1, "name": "A",
                               "token": "nope"}) == "bad_token"  # fmt: skip
    await client.hello("Ann")  # the connection survived every error
    assert await client.error({"type": "hello", "protocol": 1, "name": "A"}) == "already_welcomed"
    assert await client.error({"type": "launch"}) == "unknown_type"
    assert await client.error({"type": "join_room", "room": 7}) == "bad_request"


async def test_token_restores_identity_and_replaces_old_connection(
    server: RunningServer, connect: ClientFactory
) -> None:
    first = await connect(server.port)
    welcome = await first.hello("Ann")
    second = await connect(server.port)
    again = await second.hello("Anna", token=welcome["token"])
    assert again["player"] == welcome["player"] and again["token"] == welcome["token"]
    bye = await first.expect("bye")
    assert bye["reason"] == "replaced"
    assert await first.closed()
    assert (await second.request({"type": "ping"}))["type"] == "pong"
