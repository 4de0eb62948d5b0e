"""Run a robot program from your own machine: the same program file that runs in a lab
runs here unchanged, driving a robot of a running lab over the network.

``Robot()`` connects when the program was not started by a lab. Where to, from the
command line or the environment::

    python main.py --server http://127.0.0.1:8080 --lab LAB --token TOKEN --robot NAME
    VLAB_SERVER=... VLAB_LAB=... VLAB_TOKEN=... VLAB_ROBOT=... python main.py
    python main.py --code JOINCODE --name Ana --upload my_robot.vlab   # join, add a robot

The lab keeps time: in a lockstep lab every control step waits for this program's
answer (up to the lab's step budget), so a run repeats exactly; in a real-time lab the
robot keeps its last commands while the answer travels. ``time.sleep()`` and
``time.time()`` follow the lab's clock as in a lab (not in a notebook, and not with
``--wall-clock``). ``print`` stays on this terminal; ``robot.log`` goes to the robot's
console in the page and is echoed here.

If the connection drops, or the lab detaches this controller (it stalled past the
budget, at a breakpoint say), the robot holds still and the client attaches again on
its own for ``--reconnect`` seconds (default 30); the program goes on from the lab's
current step with the commands it had set. When the lab stops it (a reset, the Stop
button, the robot removed), ``robot.step()`` returns ``False``.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import sys
import threading
import traceback
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional
from urllib.parse import quote

import vlab

from ._websocket import Closed, HandshakeRefused, WebSocket

__all__ = ["Options", "ConnectError", "options", "connect"]

# The lab's close codes: it stopped the controller for good, or let go of it (stalled,
# flooded), which a new attach undoes.
CLOSE_STOPPED = 1000
CLOSE_DETACHED = 4000
_RETRY_DELAYS = (0.2, 0.5, 1.0, 2.0)


class ConnectError(vlab.VlabError):
    """The lab could not be reached, or refused: the message says why and what to do."""


@dataclass
class Options:
    """Where the program connects, and how."""

    server: str = "http://127.0.0.1:8080"
    lab: Optional[str] = None
    token: Optional[str] = None
    robot: Optional[str] = None
    code: Optional[str] = None
    name: Optional[str] = None
    upload: Optional[str] = None
    reconnect: float = 30.0
    wall_clock: bool = False


def options(argv: Optional[List[str]] = None, env: Optional[Dict[str, str]] = None) -> Options:
    """The connection options from ``argv`` (default: the program's command line; other
    arguments are left to the program) and ``env`` (default: the environment):
    ``--server``/``VLAB_SERVER``, ``--lab``/``VLAB_LAB``, ``--token``/``VLAB_TOKEN``,
    ``--robot``/``VLAB_ROBOT``, ``--code``/``VLAB_CODE``, ``--name``/``VLAB_NAME``,
    ``--upload``/``VLAB_UPLOAD``, ``--reconnect`` seconds, ``--wall-clock``."""
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--server", default=env.get("VLAB_SERVER", Options.server))
    parser.add_argument("--lab", default=env.get("VLAB_LAB"))
    parser.add_argument("--token", default=env.get("VLAB_TOKEN"))
    parser.add_argument("--robot", default=env.get("VLAB_ROBOT"))
    parser.add_argument("--code", default=env.get("VLAB_CODE"))
    parser.add_argument("--name", default=env.get("VLAB_NAME"))
    parser.add_argument("--upload", default=env.get("VLAB_UPLOAD"))
    parser.add_argument("--reconnect", type=float, default=float(env.get("VLAB_RECONNECT", Options.reconnect)))
    parser.add_argument("--wall-clock", action="store_true", default=env.get("VLAB_WALL_CLOCK") == "1")
    known, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    return Options(server=known.server.rstrip("/"), lab=known.lab, token=known.token, robot=known.robot,
                   code=known.code, name=known.name, upload=known.upload, reconnect=known.reconnect,
                   wall_clock=known.wall_clock)


def _say(text: str) -> None:
    print(f"vlab: {text}", file=sys.stderr, flush=True)


def _request(method: str, url: str, token: Optional[str] = None, body: Optional[bytes] = None,
             content_type: str = "application/json") -> Any:
    """One API call; the answer's JSON, or a ``ConnectError`` with the server's message."""
    request = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        request.add_header("Content-Type", content_type)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read().decode("utf-8") or "null")
    except urllib.error.HTTPError as error:
        raise ConnectError(f"{method} {url}: {_error_text(error.code, error.read().decode('utf-8', 'replace'))}") \
            from None
    except urllib.error.URLError as error:
        raise ConnectError(f"cannot reach the VLab server at {url}: {error.reason}") from None


def _error_text(status: int, body: str) -> str:
    """The server's error message from its JSON body (HTTP status otherwise)."""
    try:
        parsed = json.loads(body)
        error = parsed.get("error", parsed) if isinstance(parsed, dict) else {}
        message = error.get("message") or body
        details = error.get("details") or []
        return f"{message} (HTTP {status})" + "".join(f"\n  {d}" for d in details)
    except ValueError:
        return f"HTTP {status}: {body[:300]}"


class _Session:
    """Who and where: the lab, the token, the robot; joining and uploading if asked."""

    def __init__(self, opts: Options):
        self.opts = opts
        self.server = opts.server
        self.lab = opts.lab
        self.token = opts.token
        self.robot = opts.robot

    def prepare(self) -> None:
        if self.opts.code:
            if not self.opts.name:
                raise ConnectError("--code needs --name: the name the class sees you as")
            body = json.dumps({"join_code": self.opts.code, "name": self.opts.name}).encode("utf-8")
            joined = _request("POST", f"{self.server}/api/join", body=body)
            self.lab, self.token = joined["lab"], joined["token"]
            _say(f"joined lab {self.lab} as {self.opts.name}; to come back as yourself use "
                 f"--lab {self.lab} --token {self.token}")
        if not self.lab:
            raise ConnectError("which lab? give --lab LAB (or VLAB_LAB), or join one with --code JOINCODE --name NAME")
        if not self.token:
            raise ConnectError("a remote controller needs your token: --token TOKEN (or VLAB_TOKEN), or join with "
                               "--code JOINCODE --name NAME")
        if self.opts.upload:
            self.robot = self._upload(self.opts.upload)
        if not self.robot:
            raise ConnectError("which robot? give --robot NAME (or VLAB_ROBOT), or add one with --upload robot.vlab")

    def _upload(self, path: str) -> str:
        try:
            with open(path, "rb") as source:
                body = source.read()
        except OSError as error:
            raise ConnectError(f"cannot read {path}: {error}") from None
        url = f"{self.server}/api/labs/{quote(self.lab, safe='')}/robots"
        reply = _request("POST", url, token=self.token, body=body, content_type="text/plain; charset=utf-8")
        if not reply.get("ok") or not reply.get("robots"):
            problems = "".join(f"\n  {e['file']}:{e['line']}:{e['col']}: {e['message']}"
                               for e in reply.get("errors", []))
            raise ConnectError(f"the lab refused {path}:{problems or ' it adds no robot'}")
        robot = reply["robots"][0]
        _say(f"added robot {robot} from {path}; next time use --robot {robot}")
        return robot

    def control_url(self) -> str:
        base = self.server.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        return f"{base}/ws/labs/{quote(self.lab, safe='')}/robots/{quote(self.robot, safe='')}/control"


class _Connection:
    """The lab at the other end of a websocket, in the shape the robot API reads and
    writes (``readline``/``write``/``flush``), attaching again after a drop."""

    def __init__(self, session: _Session):
        self.session = session
        self.ws: Optional[WebSocket] = None
        self.link: Any = None
        # Every actuator's latest command: sent again after attaching anew.
        self.commands: Dict[str, Any] = {}
        # Console lines sent since the lab's last message: a connection that dropped
        # meanwhile may have lost them, so they go again with the next attach.
        self.unconfirmed: List[Any] = []
        self.broken = False
        self.ended = False

    def attach(self) -> Dict[str, Any]:
        """Opens the control websocket and reads the lab's hello."""
        headers = [("Authorization", f"Bearer {self.session.token}")]
        try:
            self.ws = WebSocket.connect(self.session.control_url(), headers=headers)
        except HandshakeRefused as refused:
            raise _Refused(refused.status, _error_text(refused.status, refused.body)) from None
        except OSError as error:
            raise ConnectError(f"cannot reach the VLab server at {self.session.server}: {error}") from None
        try:
            hello = json.loads(self.ws.recv_text())
        except Closed as closed:
            raise ConnectError(f"the lab closed the connection: {closed.reason}") from None
        if hello.get("type") != "hello" or hello.get("version") != vlab.PROTOCOL_VERSION:
            self.ws.close()
            raise ConnectError(f"the lab speaks another protocol (its hello: {str(hello)[:120]}); update vlab-client")
        return hello

    def write(self, data: bytes) -> None:
        message = json.loads(data)
        if message.get("type") in ("ready", "commands"):
            self.commands.update(message.get("commands") or {})
        self.unconfirmed += message.get("output") or []
        if self.broken or self.ws is None:
            return
        try:
            self.ws.send_text(data.decode("utf-8").rstrip("\n"))
        except Closed:
            self.broken = True

    def flush(self) -> None:
        pass

    def readline(self) -> bytes:
        """The lab's next message as a line; ``b""`` once it is over."""
        while not self.ended:
            if self.broken:
                if not self._attach_again():
                    self.ended = True
                    break
                continue
            try:
                line = self.ws.recv_text().encode("utf-8") + b"\n"
                self.unconfirmed = []
                return line
            except Closed as closed:
                if closed.code == CLOSE_STOPPED:
                    _say(f"the lab stopped this controller: {closed.reason or 'it closed the connection'}")
                    self.ended = True
                    break
                _say(f"detached: {closed.reason or 'the connection dropped'}; attaching again")
                self.broken = True
        return b""

    def _attach_again(self) -> bool:
        """Attaches anew (the robot held still meanwhile) and answers the new hello with
        the commands set so far, for up to ``--reconnect`` seconds."""
        waited, attempt, pause = 0.0, 0, threading.Event()
        while waited <= self.session.opts.reconnect:
            try:
                hello = self.attach()
            except _Refused as refused:
                # Taken (the lab has not let go of the old connection yet) or not reachable: wait.
                if refused.status not in (409, 429, 503):
                    _say(f"cannot attach again: {refused.message}")
                    return False
            except ConnectError:
                pass
            else:
                ready = {"type": "ready", "version": vlab.PROTOCOL_VERSION, "commands": self.commands,
                         "output": self.unconfirmed}
                self.unconfirmed = []
                self.ws.send_text(json.dumps(ready, separators=(",", ":")))
                self.broken = False
                _say(f"attached again at step {hello.get('step')} ({hello.get('time', 0.0):.2f} s)")
                return True
            delay = _RETRY_DELAYS[min(attempt, len(_RETRY_DELAYS) - 1)]
            pause.wait(delay)
            waited += delay
            attempt += 1
        _say(f"gave up attaching again after {self.session.opts.reconnect:.0f} s")
        return False

    def finish(self) -> None:
        """At exit: tells the lab the program ended (its robot then holds still)."""
        if self.ws is None or self.ws.closed:
            return
        if self.link is not None and not self.link.stopped and not self.broken:
            vlab._flush_consoles()
            try:
                self.ws.send_text(json.dumps({"type": "done", "output": self.link.take_output()}))
            except Closed:
                pass
        self.ws.close(1000, "the program ended")

    def report(self, kind: str, error: BaseException) -> None:
        """An exception the program did not catch reaches the robot's console."""
        if self.ws is None or self.ws.closed or self.link is None:
            return
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__)).rstrip("\n")
        try:
            self.ws.send_text(json.dumps({"type": "error", "kind": kind, "traceback": text,
                                          "output": self.link.take_output()}))
        except Closed:
            pass
        self.ws.close(1000, "the program raised an exception")


class _Refused(ConnectError):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _echo(source: str, text: str) -> None:
    print(f"[{source}] {text}", file=sys.stderr, flush=True)


def _refusals_in_one_line() -> None:
    """An uncaught ``ConnectError`` is told in one line, without a traceback: it says what
    to do about the command line or the lab, and the program's own lines have nothing to
    do with it. The exit status stays 1. (A notebook shows exceptions its own way.)"""
    previous: Callable[..., Any] = sys.excepthook

    def excepthook(kind, error, tb):
        if isinstance(error, ConnectError):
            _say(str(error))
        else:
            previous(kind, error, tb)

    sys.excepthook = excepthook


def connect(opts: Optional[Options] = None) -> None:
    """Connects this program to its robot (``Robot()`` calls it when no lab started the
    program). Raises ``ConnectError`` with what to do when it cannot."""
    _refusals_in_one_line()
    opts = options() if opts is None else opts
    session = _Session(opts)
    session.prepare()
    connection = _Connection(session)
    try:
        hello = connection.attach()
    except _Refused as refused:
        raise ConnectError(f"cannot drive robot {session.robot!r} in lab {session.lab!r}: {refused.message}") \
            from None
    connection.link = vlab._connect(connection, connection, hello)
    # As in a lab: the program's `random` draws the lab's sequence for this robot.
    __import__("random").seed(hello.get("seed", 0))
    connection.link.echo = _echo
    if not opts.wall_clock and "ipykernel" not in sys.modules:
        vlab._install_clock(__import__("time"))
    atexit.register(connection.finish)
    previous: Callable[..., Any] = sys.excepthook

    def excepthook(kind, error, tb):
        if not isinstance(error, KeyboardInterrupt):
            connection.report("memory" if isinstance(error, MemoryError) else "exception", error)
        previous(kind, error, tb)

    sys.excepthook = excepthook
    _say(f"driving robot {session.robot} in lab {session.lab} at {session.server} "
         f"(from step {hello.get('step')}, {hello.get('time', 0.0):.2f} s)")
