"""hello / welcome / ping and the identity errors."""

from __future__ import annotations

import asyncio

from server.net.tcp import RunningServer
from tests.server.conftest import ClientFactory, ServerFactory


async def test_welcome_shape(server: RunningServer, connect: ClientFactory) -> None:
    client = await connect(server.port)
    welcome = await client.hello("Ann")
    assert welcome["protocol"] == 2 and welcome["server"].startswith("selfish-server")
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
    old = await client.request({"type": "hello", "protocol": 1, "name": "A"})
    assert (old["code"], old["args"]) == ("unsupported_protocol", {"version": 2})
    assert await client.error({"type": "hello", "protocol": 2, "name": "x" * 25}) == "bad_name"
    assert (
        await client.error({"type": "hello", "protocol": 2, "name": "A", "token": "nope"})
        == "bad_token"
    )
    await client.hello("Ann")  # the connection survived every error
    assert await client.error({"type": "hello", "protocol": 2, "name": "A"}) == "already_welcomed"
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


async def test_one_address_cannot_mint_identities_without_end(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(new_players_burst=3, new_players_per_second=0.001)
    client = await connect(server.port)
    tokens = []
    for _ in range(3):
        tokens.append((await client.hello("Ann"))["token"])
        client = await connect(server.port)
    hello = {"type": "hello", "protocol": 2, "name": "Ann"}
    assert await client.error(hello) == "rate_limited"
    # Resuming an identity with its token is never limited, and the refused connection lives on.
    resumed = await client.request({**hello, "token": tokens[0]})
    assert resumed["type"] == "welcome" and resumed["token"] == tokens[0]


async def test_a_client_that_half_closes_gets_its_answers_then_the_end(
    server: RunningServer, connect: ClientFactory
) -> None:
    client = await connect(server.port)
    client.send({"type": "ping", "id": 1})
    client.send({"type": "hello", "protocol": 2, "name": "Ann"})
    client.writer.write_eof()  # nothing more from this client
    assert await client.recv() == {"type": "pong", "id": 1}
    assert (await client.recv())["type"] == "welcome"
    assert await client.closed()  # then the server ends the connection
    for _ in range(100):  # and forgets it
        if not server.sessions:
            break
        await asyncio.sleep(0.01)
    assert not server.sessions and not server.per_address
