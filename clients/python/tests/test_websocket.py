"""The standard-library WebSocket client's framing, without a server."""

from __future__ import annotations

import socket
import struct

import pytest

from vlab._websocket import Closed, WebSocket, _mask
from vlab.remote import options


def test_masking_is_its_own_inverse_and_matches_the_bytewise_definition():
    key = b"\x01\x02\x03\x04"
    data = bytes(range(256)) * 3 + b"tail"
    masked = _mask(data, key)
    assert masked == bytes(b ^ key[i % 4] for i, b in enumerate(data))
    assert _mask(masked, key) == data
    assert _mask(b"", key) == b""


def _pair():
    a, b = socket.socketpair()
    return WebSocket(a), b


def _server_frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 1 << 16:
        head += bytes([126]) + struct.pack("!H", n)
    else:
        head += bytes([127]) + struct.pack("!Q", n)
    return head + payload


def test_fragments_are_joined_and_pings_answered():
    ws, peer = _pair()
    peer.sendall(_server_frame(0x1, b"hel", fin=False) + _server_frame(0x9, b"p") + _server_frame(0x0, b"lo"))
    assert ws.recv_text() == "hello"
    pong = peer.recv(64)
    assert pong[0] == 0x8A and pong[1] & 0x80, "a masked pong"
    big = "x" * 70000
    peer.sendall(_server_frame(0x1, big.encode()))
    assert ws.recv_text() == big


def test_a_close_carries_its_code_and_reason_and_a_drop_is_1006():
    ws, peer = _pair()
    peer.sendall(_server_frame(0x8, struct.pack("!H", 4000) + b"stalled"))
    with pytest.raises(Closed) as closed:
        ws.recv_text()
    assert (closed.value.code, closed.value.reason) == (4000, "stalled")
    ws2, peer2 = _pair()
    peer2.close()
    with pytest.raises(Closed) as dropped:
        ws2.recv_text()
    assert dropped.value.code == 1006


def test_sent_frames_are_masked_text():
    ws, peer = _pair()
    ws.send_text("héllo")
    frame = peer.recv(64)
    assert frame[0] == 0x81 and frame[1] == 0x80 | len("héllo".encode())
    key, payload = frame[2:6], frame[6:]
    assert _mask(payload, key).decode() == "héllo"


def test_options_come_from_arguments_then_the_environment():
    env = {"VLAB_SERVER": "http://lab.example:8080/", "VLAB_LAB": "demo", "VLAB_TOKEN": "t", "VLAB_ROBOT": "r"}
    assert options([], env).server == "http://lab.example:8080"
    chosen = options(["--robot", "other", "--speed", "3"], env)
    assert (chosen.lab, chosen.token, chosen.robot) == ("demo", "t", "other"), "the program's own --speed is left"
    assert options(["--code", "ABC123", "--name", "Ana"], {}).code == "ABC123"
