"""A WebSocket client (RFC 6455) on the standard library alone: what a remote
controller needs and no more. Text messages both ways, pings answered, a refused
handshake read as the server's HTTP answer, a close read with its code and reason.

The package depends on nothing so that ``pip install`` works on a school laptop with
no index in reach and never disturbs a student's own environment; and this module
never reads the ``time`` module, which a robot program's clock replaces (socket
timeouts are the operating system's).
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import struct
from typing import Iterable, Optional, Tuple
from urllib.parse import urlsplit

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_MAX_HEAD_BYTES = 64 * 1024
_MAX_MESSAGE_BYTES = 64 * 1024 * 1024

OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class HandshakeRefused(Exception):
    """The server answered the upgrade with an HTTP error: ``status`` and ``body``."""

    def __init__(self, status: int, body: str):
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


class Closed(Exception):
    """The connection ended: ``code`` (1006 when it dropped without a close frame) and
    ``reason``."""

    def __init__(self, code: int, reason: str):
        super().__init__(f"closed ({code}): {reason}")
        self.code = code
        self.reason = reason


def _mask(data: bytes, key: bytes) -> bytes:
    """``data`` XOR the repeated 4-byte ``key``, as one big-integer operation (fast)."""
    n = len(data)
    if n == 0:
        return b""
    repeated = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "little") ^ int.from_bytes(repeated, "little")).to_bytes(n, "little")


class WebSocket:
    """One client connection. Not thread-safe: one thread sends and receives."""

    def __init__(self, sock: socket.socket, leftover: bytes = b""):
        self._sock = sock
        self._buffer = bytearray(leftover)
        self.closed = False

    @classmethod
    def connect(cls, url: str, headers: Iterable[Tuple[str, str]] = (), timeout: float = 10.0) -> "WebSocket":
        """Opens ``url`` (``ws://`` or ``wss://``) with extra request ``headers``.
        Raises ``HandshakeRefused`` with the server's answer when it does not upgrade,
        ``OSError`` when the server cannot be reached."""
        parts = urlsplit(url)
        if parts.scheme not in ("ws", "wss"):
            raise ValueError(f"not a websocket address: {url}")
        secure = parts.scheme == "wss"
        host = parts.hostname or "localhost"
        port = parts.port or (443 if secure else 80)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        sock = socket.create_connection((host, port), timeout=timeout)
        try:
            if secure:
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            key = base64.b64encode(os.urandom(16)).decode("ascii")
            lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket",
                     "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
            lines += [f"{name}: {value}" for name, value in headers]
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))
            head, rest = _read_head(sock)
            status, fields = _parse_head(head)
            if status != 101:
                raise HandshakeRefused(status, _read_body(sock, rest, fields))
            accept = base64.b64encode(hashlib.sha1((key + _GUID).encode("ascii")).digest()).decode("ascii")
            if fields.get("sec-websocket-accept") != accept:
                raise HandshakeRefused(status, "the server's handshake answer does not match the key")
            sock.settimeout(None)
            return cls(sock, rest)
        except BaseException:
            sock.close()
            raise

    def send_text(self, text: str) -> None:
        """Sends one text message."""
        self._send_frame(OP_TEXT, text.encode("utf-8"))

    def recv_text(self) -> str:
        """The next text message; pings are answered meanwhile. Raises ``Closed`` when
        the connection ends."""
        parts = []
        size = 0
        while True:
            fin, opcode, payload = self._read_frame()
            if opcode == OP_PING:
                self._send_frame(OP_PONG, payload)
            elif opcode == OP_PONG:
                continue
            elif opcode == OP_CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                reason = payload[2:].decode("utf-8", "replace")
                self.close(code if code not in (1005, 1006) else 1000)
                raise Closed(code, reason)
            elif opcode in (OP_TEXT, OP_CONTINUATION, OP_BINARY):
                parts.append(payload)
                size += len(payload)
                if size > _MAX_MESSAGE_BYTES:
                    self.close(1009, "message too big")
                    raise Closed(1009, "the server sent a message too big")
                if fin:
                    return b"".join(parts).decode("utf-8")

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Says goodbye (once) and closes the socket."""
        if self.closed:
            return
        self.closed = True
        try:
            self._send_frame(OP_CLOSE, struct.pack("!H", code) + reason.encode("utf-8")[:120], closing=True)
        except OSError:
            pass
        try:
            self._sock.close()
        except OSError:
            pass

    def _send_frame(self, opcode: int, payload: bytes, closing: bool = False) -> None:
        if self.closed and not closing:
            raise Closed(1006, "the connection is closed")
        n = len(payload)
        head = bytearray([0x80 | opcode])
        if n < 126:
            head.append(0x80 | n)
        elif n < 1 << 16:
            head.append(0x80 | 126)
            head += struct.pack("!H", n)
        else:
            head.append(0x80 | 127)
            head += struct.pack("!Q", n)
        key = os.urandom(4)
        try:
            self._sock.sendall(bytes(head) + key + _mask(payload, key))
        except OSError as error:
            self.closed = True
            raise Closed(1006, f"the connection dropped: {error}") from None

    def _read_exactly(self, n: int) -> bytes:
        while len(self._buffer) < n:
            try:
                chunk = self._sock.recv(max(65536, n - len(self._buffer)))
            except OSError as error:
                self.closed = True
                raise Closed(1006, f"the connection dropped: {error}") from None
            if not chunk:
                self.closed = True
                raise Closed(1006, "the connection dropped")
            self._buffer += chunk
        data = bytes(self._buffer[:n])
        del self._buffer[:n]
        return data

    def _read_frame(self) -> Tuple[bool, int, bytes]:
        first, second = self._read_exactly(2)
        fin, opcode = bool(first & 0x80), first & 0x0F
        n = second & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read_exactly(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read_exactly(8))[0]
        if n > _MAX_MESSAGE_BYTES:
            self.close(1009, "message too big")
            raise Closed(1009, "the server sent a frame too big")
        key: Optional[bytes] = self._read_exactly(4) if second & 0x80 else None
        payload = self._read_exactly(n)
        return fin, opcode, _mask(payload, key) if key else payload


def _read_head(sock: socket.socket) -> Tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise HandshakeRefused(0, "the server closed the connection during the handshake")
        data += chunk
        if len(data) > _MAX_HEAD_BYTES:
            raise HandshakeRefused(0, "the server's answer has no end of headers")
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _parse_head(head: bytes):
    lines = head.decode("iso-8859-1").split("\r\n")
    try:
        status = int(lines[0].split(" ", 2)[1])
    except (IndexError, ValueError):
        raise HandshakeRefused(0, f"not an HTTP answer: {lines[0]!r}") from None
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return status, fields


def _read_body(sock: socket.socket, rest: bytes, fields) -> str:
    """The refusal's body, as far as its length says (or what came, at most 64 KiB)."""
    try:
        length = min(int(fields.get("content-length", "0")), _MAX_HEAD_BYTES)
    except ValueError:
        length = 0
    body = rest
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return body[:length or len(body)].decode("utf-8", "replace")
