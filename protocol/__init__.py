"""The Selfish wire protocol, sans-IO: framing, msgpack codec, typed requests, error codes.

See ``protocol/PROTOCOL.md`` for the message catalogue. Typical use on a socket of your own::

    from protocol.codec import MessageDecoder, encode
    decoder = MessageDecoder(max_size=None)    # a client reading the server: no frame limit
    sock.sendall(encode({"type": "hello", "protocol": 1, "name": "Ann"}))
    for message in decoder.feed(sock.recv(65536)):
        ...
"""
