"""The Selfish wire protocol, sans-IO: framing, msgpack codec, typed requests
(``messages``), typed server messages (``server_messages``) and the game's parts in them
(``game_types``, ``vocabulary``), error codes, and the client library (``client``).

See ``protocol/PROTOCOL.md`` for every message. Typical use on a socket of your own::

    from protocol.codec import MessageDecoder, encode
    from protocol.server_messages import read_server
    decoder = MessageDecoder(max_size=None)    # a client reading the server: no frame limit
    sock.sendall(encode({"type": "hello", "protocol": 2, "name": "Ann"}))
    for message in decoder.feed(sock.recv(65536)):
        typed = read_server(message)           # MalformedMessage unless it is exactly one
"""
