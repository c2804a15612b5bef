"""The base of every server message (:class:`ServerMessage`) and their registry by wire
``type`` (:data:`SERVER_MESSAGES`, filled by the :func:`message` decorator): the classes are
protocol.server_messages's and the modules it gathers (rooms, play, replays)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from protocol.wire_fields import read_fields, write_fields

#: The server messages by wire ``type``: filled by :func:`message`.
SERVER_MESSAGES: dict[str, type[ServerMessage]] = {}

M = TypeVar("M", bound="type[ServerMessage]")
Wire = Mapping[str, Any]


def message(kind: str) -> Callable[[M], M]:
    """Class decorator: ``kind`` is the class's wire ``type``; register it."""

    def register(cls: M) -> M:
        assert kind not in SERVER_MESSAGES, kind
        cls.TYPE = kind
        SERVER_MESSAGES[kind] = cls
        return cls

    return register


@dataclass(frozen=True, kw_only=True)
class ServerMessage:
    """Base of every server message. ``id`` echoes the id of the request this is the direct
    reply to (None: a broadcast, or a reply to a request without one)."""

    TYPE: ClassVar[str] = ""
    #: Whether it only ever comes as a direct reply (never as a broadcast).
    REPLY_ONLY: ClassVar[bool] = False

    id: int | None = None

    def body(self) -> dict[str, Any]:
        """The message's fields in wire form (without ``type`` and ``id``): those declared
        with ``protocol.wire_fields.wire``."""
        return write_fields(self)

    def to_wire(self) -> dict[str, Any]:
        """The message as a protocol map."""
        out: dict[str, Any] = {"type": self.TYPE}
        out.update(self.body())
        if self.id is not None:
            out["id"] = self.id
        return out

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        """Read the fields of ``m`` (its ``type`` and ``id``, ``rid``, already read)."""
        message = cls(id=rid, **read_fields(cls, m, cls.TYPE))
        message.check()
        return message

    def check(self) -> None:
        """Refuse what the fields' types let through but their meaning does not (raises
        MalformedMessage); nothing to refuse unless a message says so."""
