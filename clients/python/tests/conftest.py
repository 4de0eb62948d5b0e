"""A real VLab server for the client's tests: the `vlab` binary (``VLAB_BIN``, or the
workspace's debug build) on a free port of 127.0.0.1, with a fresh database, its demo
lab paused."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Optional

import pytest

ROOT = Path(__file__).resolve().parents[3]
INSTRUCTOR = "instructor-token"


def _binary() -> Path:
    if os.environ.get("VLAB_BIN"):
        return Path(os.environ["VLAB_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "debug" / "vlab"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """The running server and the HTTP calls the tests make."""

    def __init__(self, url: str):
        self.url = url

    def call(self, method: str, path: str, token: Optional[str] = None, body: Any = None,
             raw: Optional[bytes] = None, content_type: str = "application/json") -> Any:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", content_type)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                text = answer.read().decode()
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{method} {path}: HTTP {error.code} {error.read().decode()}") from None
        return json.loads(text) if text else None

    def create_lab(self, name: str, scene: str, seed: int) -> dict:
        """A lab of library scene ``scene``: its id, join code and instructor token."""
        return self.call("POST", "/api/labs", INSTRUCTOR, {"name": name, "scene": scene, "seed": seed})

    def step(self, lab: str, token: str, steps: int) -> dict:
        return self.call("POST", f"/api/labs/{lab}/control", token, {"action": "step", "steps": steps})

    def robot(self, lab: str, token: str, robot: str) -> dict:
        return self.call("GET", f"/api/labs/{lab}/robots/{robot}", token)

    def wait_for(self, lab: str, token: str, robot: str, accept, what: str) -> dict:
        deadline = time.monotonic() + 30
        while True:
            try:
                report = self.robot(lab, token, robot)
            except AssertionError as missing:
                # Not there yet (a client adds it): look again.
                assert "HTTP 404" in str(missing) and time.monotonic() < deadline, missing
                time.sleep(0.05)
                continue
            if accept(report):
                return report
            assert time.monotonic() < deadline, f"{robot} never {what}: {report['program']}"
            time.sleep(0.05)

    def upload(self, lab: str, token: str, description: str, program: Optional[str] = None) -> dict:
        """Adds robots from ``description`` (with ``program`` as their main.py)."""
        boundary = "vlab-test-boundary"
        parts = [("description", "robot.vlab", description)]
        if program is not None:
            parts.append(("program", "main.py", program))
        body = b"".join(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{file}"\r\n'
            f"Content-Type: text/plain\r\n\r\n{text}\r\n".encode() for name, file, text in parts
        ) + f"--{boundary}--\r\n".encode()
        reply = self.call("POST", f"/api/labs/{lab}/robots", token, raw=body,
                          content_type=f"multipart/form-data; boundary={boundary}")
        assert reply["ok"], reply
        return reply


def start_server(folder: str, port: int) -> subprocess.Popen:
    """Starts the server on ``port`` with its database in ``folder`` (a second start
    with the same folder restores its labs), once it answers."""
    binary = _binary()
    if not binary.exists():
        pytest.fail(f"no server binary at {binary}: build it (cargo build -p vlab-server) or set VLAB_BIN")
    process = subprocess.Popen(
        [str(binary), "serve", "--addr", f"127.0.0.1:{port}", "--db", os.path.join(folder, "vlab.db"),
         "--instructor-token", INSTRUCTOR, "--paused", "--scenes-dir", str(ROOT / "scenes"),
         "--assets-dir", str(ROOT / "assets")],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(folder, "server.log"), "ab"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/api/health", timeout=2).read()
            return process
        except OSError:
            assert process.poll() is None, f"the server exited: see {folder}/server.log"
            assert time.monotonic() < deadline, "the server did not come up within 60 s"
            time.sleep(0.1)


@pytest.fixture(scope="session")
def server():
    port = free_port()
    process = start_server(tempfile.mkdtemp(prefix="vlab-client-tests-"), port)
    yield Server(f"http://127.0.0.1:{port}")
    process.terminate()
    process.wait(timeout=10)


def run_client(server: Server, program: str, *args: str, folder: Path) -> subprocess.Popen:
    """Starts ``program`` (a file's text) as a student would: ``python main.py ...``."""
    main = folder / "main.py"
    main.write_text(program)
    return subprocess.Popen([sys.executable, str(main), "--server", server.url, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
