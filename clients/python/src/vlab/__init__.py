"""The robot API of VLab: what a robot program sees.

A program drives one robot of a lab. The lab runs it in lockstep: each call of
``robot.step()`` hands the lab the commands set since the previous call, lets the
simulation advance by one control step, and returns once the new readings are in::

    from vlab import Robot

    robot = Robot()
    while robot.step():                 # False once the lab stops the program
        x, y, z = robot.sensor("GPS1").value()
        robot.log(f"x = {x:.2f}")
        robot.actuator("Motor1").set_speed(5.0)

Commands set before ``step()`` are applied in that step's pre-step phase; readings
seen after ``step()`` returns are the post-step values. The program reacts to the
simulation clock (``robot.time()``), never to wall time. ``print`` reaches the
robot's console like ``robot.log``.

Time is the lab's: in a lab, ``time.sleep(s)`` keeps the commands set so far for
``s`` seconds of simulation time (the same as ``robot.wait(s)``), and ``time.time()``,
``time.monotonic()`` and ``time.perf_counter()`` (and their ``_ns`` forms) read the
simulation clock, so ``time.time() == robot.time()``::

    drive.set(0.2, 0.0)
    time.sleep(2)                       # two seconds of driving, in the lab's time
    drive.set(0.0, 0.0)
"""

from __future__ import annotations

import _thread
import binascii as _binascii
import sys as _sys
import json as _json
import math as _math
from marshal import loads as _unmarshal
import struct as _struct
from array import array as _array
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

__all__ = ["Robot", "Sensor", "Actuator", "OccupancyGrid", "Image", "DepthImage", "Landmark", "Message", "VlabError"]

# A sleep wakes at the first control step at or after the time asked; times a
# millionth of a control step short of it count (step * dt is not exact in floats).
_TIME_TOLERANCE = 1e-6

# The JSON protocol (docs/programs.md, docs/remote.md): what a remote controller speaks.
PROTOCOL_VERSION = 1
# A lab's own pipe speaks version 4: version 1, except that a step comes as a line
# ``m<N>`` and N bytes of ``marshal`` (the objects version 1's JSON reads as, built
# without scanning text), a scan's ranges as bytes of little-endian f64 decoded only
# when the program reads them, and left out while they are those of the step before.
# The module answers in the hello's version.
_PIPE_VERSION = 4
_VERSIONS = (PROTOCOL_VERSION, _PIPE_VERSION)
_BIG_ENDIAN = _sys.byteorder == "big"
# Made once: ``json.dumps`` with options builds a new encoder at every call, and
# ``json.loads`` of bytes guesses their encoding first.
_encode = _json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode
_decode = _json.JSONDecoder().decode
# A JSON line from the lab is one object: its scanner alone reads it, without
# ``decode``'s two whitespace matches around it.
_scan = _json.JSONDecoder().scan_once
_MAX_LINE_CHARS = 1000
# The lab's drawing budget (vlab_protocol::MAX_DRAWN_*): refused here, at the call.
_MAX_DRAWN_VERTICES = 4000
_MAX_DRAWN_TEXTS = 32
_MAX_DRAWN_TEXT_CHARS = 80
_COLOR_NAMES = ("red", "green", "blue", "orange", "yellow", "purple", "cyan", "magenta", "white", "black",
                "gray", "grey")
_FLUSH_BYTES = 4096
# The radio (lab::radio): messages sent per control step, and heard ones kept until
# receive() takes them (the oldest go first).
_MAX_SENT_PER_STEP = 16
_MAX_INBOX = 1024
_MAX_RADIO_BYTES = 1024


class VlabError(Exception):
    """A robot API call that cannot work: an unknown name, a command the part does
    not understand, or a reading it does not have."""


class _Link:
    """The lab at the other end of the pipe (internal: set up by the lab's bootstrap)."""

    def __init__(self, reader, writer, hello):
        self._reader = reader
        self._writer = writer
        self.hello = hello
        self.version = hello.get("version") if hello.get("version") in _VERSIONS else PROTOCOL_VERSION
        self.step = hello.get("step", 0)
        self.time = hello.get("time", 0.0)
        self.readings = {}
        # Each actuator's latest command this control step, as its JSON entry (a float's
        # repr is its JSON): an answer joins them without building and encoding dicts.
        self.commands = {}
        self.output = []
        self._output_bytes = 0
        self.answered_hello = False
        self.answering = None
        self.stopped = False
        # What the program believes and draws, sent with its next answer.
        self.estimate = None
        self.clear_kept = False
        self.keep = []
        self.drawn = []
        self.drawings_due = False
        self.drawn_vertices = 0
        self.drawn_texts = 0
        # Where console lines are shown too (a remote controller's terminal).
        self.echo = None
        # The radio: messages to send with the next answer; heard ones not received yet.
        self.radio_out = []
        self.inbox = []
        self.radio = next((s["name"] for s in hello.get("sensors", []) if s["kind"] == "Radio"), None)
        # Only cameras' readings come without their pixels (see _keep_pixels).
        self.cameras = any(s["kind"] in ("Camera", "DepthCamera") for s in hello.get("sensors", []))
        # Lidars' scans come without their ranges while they do not change (see
        # _keep_ranges): each one's last packed ranges, and their floats once read.
        self.scanners = tuple(s["name"] for s in hello.get("sensors", []) if s["kind"] == "Lidar")
        self.scans = {}
        self._tolerance = hello.get("dt", 0.0) * hello.get("control_period", 1) * _TIME_TOLERANCE

    def send(self, message):
        data = _encode(message) + "\n"
        self._writer.write(data.encode("utf-8"))
        self._writer.flush()

    def add_output(self, source, text):
        if len(text) > _MAX_LINE_CHARS:
            text = text[: _MAX_LINE_CHARS - 1] + "\u2026"
        self.output.append({"source": source, "text": text})
        if self.echo is not None:
            self.echo(source, text)
        self._output_bytes += len(text) + 1
        if self._output_bytes >= _FLUSH_BYTES:
            self.flush_output()

    def flush_output(self):
        if self.output:
            lines, self.output, self._output_bytes = self.output, [], 0
            self.send({"type": "output", "output": lines})

    def take_output(self):
        lines, self.output, self._output_bytes = self.output, [], 0
        return lines

    def exchange(self):
        """Answers the last message with the commands set since, then waits for the
        next one. Returns False on stop."""
        if self.stopped:
            return False
        for console in _consoles:
            if console._partial:
                console.finish()
        commands = "{" + ",".join(self.commands.values()) + "}" if self.commands else "{}"
        self.commands = {}
        if self.answered_hello and not (self.output or self.radio_out or self.drawn or self.keep or self.clear_kept
                                        or self.estimate is not None):
            # The answer of most steps, written as it goes out (the same JSON as below).
            if self.drawings_due:
                self.drawings_due = False
                self.drawn_vertices = self.drawn_texts = 0
                self._writer.write(('{"type":"commands","step":%d,"commands":%s,"drawings":[]}\n'
                                    % (self.answering, commands)).encode("utf-8"))
            else:
                self._writer.write(('{"type":"commands","step":%d,"commands":%s}\n'
                                    % (self.answering, commands)).encode("utf-8"))
            self._writer.flush()
            return self.listen()
        commands = _decode(commands)
        if not self.answered_hello:
            self.answered_hello = True
            message = {"type": "ready", "version": self.version, "commands": commands,
                       "output": self.take_output()}
        else:
            message = {"type": "commands", "step": self.answering, "commands": commands,
                       "output": self.take_output()}
        if self.estimate is not None or self.clear_kept or self.keep or self.drawings_due:
            message.update(self.take_belief())
        if self.radio_out:
            message["radio"], self.radio_out = self.radio_out, []
        self.send(message)
        return self.listen()

    def listen(self):
        """Takes the lab's next message: True with a step's readings, False on stop."""
        line = self._reader.readline()
        if line[:1] == b"m":
            message = _unmarshal(self._reader.read(int(line[1:])))
        else:
            message = _scan(line.decode("utf-8"), 0)[0] if line[:1] == b"{" else {}
        if message.get("type") == "step":
            self.step = message["step"]
            self.time = message["time"]
            readings = message.get("sensors", {})
            if self.cameras:
                readings = _keep_pixels(readings, self.readings)
            if self.scanners:
                _keep_ranges(readings, self.scanners, self.scans)
            self.readings = readings
            if self.radio:
                self.hear()
            self.answering = self.step
            if _sleepers:
                _wake_sleepers()
            return True
        self.stopped = True
        _wake_sleepers()
        return False

    def hear(self):
        """Keeps what the radio heard at this control step for ``receive()``."""
        reading = self.readings.get(self.radio) if self.radio else None
        if reading and reading.get("type") == "radio":
            self.inbox.extend(Message(m["from"], m["text"]) for m in reading.get("heard", ()))
            del self.inbox[:-_MAX_INBOX]

    def take_belief(self):
        """What the program published since its last answer, as the answer's fields."""
        belief = {}
        if self.estimate is not None:
            belief["estimate"], self.estimate = self.estimate, None
        if self.clear_kept:
            belief["clear"], self.clear_kept = True, False
        if self.keep:
            belief["keep"], self.keep = self.keep, []
        if self.drawings_due:
            belief["drawings"], self.drawn = self.drawn, []
            self.drawings_due = False
            self.drawn_vertices = self.drawn_texts = 0
        return belief

    def draw(self, drawing, keep):
        """Adds a drawing to this step's (or to the kept ones), within the budget."""
        vertices = len(drawing.get("points", ()))
        texts = 1 if drawing["shape"] == "text" else 0
        if self.drawn_vertices + vertices > _MAX_DRAWN_VERTICES:
            raise VlabError(f"a step may draw at most {_MAX_DRAWN_VERTICES} points and line vertices "
                            f"(kept ones included); this one has {self.drawn_vertices} and adds {vertices}")
        if self.drawn_texts + texts > _MAX_DRAWN_TEXTS:
            raise VlabError(f"a step may draw at most {_MAX_DRAWN_TEXTS} texts (kept ones included)")
        self.drawn_vertices += vertices
        self.drawn_texts += texts
        (self.keep if keep else self.drawn).append(drawing)

    def reached(self, target):
        """Whether the simulation clock is at ``target`` (seconds) or past it."""
        return self.time >= target - self._tolerance

    def wait(self, seconds):
        """Answers the lab's steps (the commands set so far, then none: the robot keeps
        them) without returning to the program until ``seconds`` of simulation time
        have passed. False once the lab stops the program."""
        if _thread.get_ident() != _main_thread:
            return _wait_in_thread(self.time + seconds)
        # The drawings of the step before the wait stay up while it lasts.
        self.drawings_due = seconds > 0
        target = self.time + seconds
        while seconds > 0 and not self.reached(target):
            if not self.exchange():
                return False
        return not self.stopped


_link = None
# The thread that talks to the lab: the one that ran the bootstrap.
_main_thread = _thread.get_ident()
# Other threads' sleeps: (wake-up time, a held lock released then), guarded by a lock.
_sleepers = []
_sleepers_lock = _thread.allocate_lock()


def _connect(reader, writer, hello):
    """Called once by the lab's bootstrap before the program runs."""
    global _link, _main_thread
    _link = _Link(reader, writer, hello)
    _main_thread = _thread.get_ident()
    return _link


def _wait_in_thread(target):
    """A sleep in a thread of the program's own: only the main thread talks to the lab,
    so this one waits until the main thread's steps bring the clock to ``target``."""
    wake = _thread.allocate_lock()
    wake.acquire()
    with _sleepers_lock:
        if _link.stopped or _link.reached(target):
            return not _link.stopped
        _sleepers.append((target, wake))
    wake.acquire()
    return not _link.stopped


def _wake_sleepers():
    if not _sleepers:
        return
    with _sleepers_lock:
        waiting = []
        for target, wake in _sleepers:
            if _link.stopped or _link.reached(target):
                wake.release()
            else:
                waiting.append((target, wake))
        _sleepers[:] = waiting


def _duration(seconds, what):
    """``seconds`` as a float, checked as ``time.sleep`` checks its argument."""
    if isinstance(seconds, (str, bytes, bytearray)) or not (
            hasattr(type(seconds), "__float__") or hasattr(type(seconds), "__index__")):
        raise TypeError(f"'{type(seconds).__name__}' object cannot be interpreted as an integer")
    number = float(seconds)
    if number != number:
        raise ValueError("Invalid value NaN (not a number)")
    if number < 0:
        raise ValueError(f"{what} length must be non-negative")
    if number == _math.inf:
        raise ValueError(f"{what} length must be finite")
    return number


def _install_clock(clock):
    """Makes ``clock`` (the ``time`` module) sleep and read in simulation time. Called
    once by the lab's bootstrap before the program runs; ``time.process_time()``,
    ``time.localtime()``, ``time.strftime()`` and ``datetime`` stay the wall's."""

    def sleep(seconds):
        """Waits ``seconds`` of the lab's simulation time: the robot keeps the commands
        set so far, the lab steps on, and the program goes on at the first control step
        at or after that time. Returns at once when the lab stops the program (then
        ``robot.step()`` returns False)."""
        seconds = _duration(seconds, "sleep")
        _link.wait(seconds)

    def now():
        """Seconds of simulation time, as ``robot.time()`` (the time of the latest
        readings; it does not move while the program computes)."""
        return _link.time

    def now_ns():
        """Nanoseconds of simulation time, as ``robot.time()``."""
        return int(round(_link.time * 1e9))

    clock.sleep = sleep
    for name in ("time", "monotonic", "perf_counter"):
        setattr(clock, name, now)
        setattr(clock, name + "_ns", now_ns)


class _Console:
    """A text stream that turns writes into console lines (``print`` goes here)."""

    def __init__(self, source):
        self._source = source
        self._partial = ""
        self.encoding = "utf-8"
        self.errors = "replace"

    def write(self, text):
        text = str(text)
        if _link is None:
            return len(text)
        parts = (self._partial + text).split("\n")
        self._partial = parts.pop()
        for line in parts:
            _link.add_output(self._source, line)
        if len(self._partial) > _MAX_LINE_CHARS:
            _link.add_output(self._source, self._partial)
            self._partial = ""
        return len(text)

    def flush(self):
        pass

    def finish(self):
        """Sends a last line that has no newline yet."""
        if self._partial and _link is not None:
            _link.add_output(self._source, self._partial)
        self._partial = ""

    def isatty(self):
        return False

    def writable(self):
        return True


_consoles = []


def _flush_consoles():
    for console in _consoles:
        console.finish()


def _number(value, what):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise VlabError(f"{what} must be a number, not {value!r}") from None
    if not _math.isfinite(number):
        raise VlabError(f"{what} must be a finite number, not {value!r}")
    return number


class Sensor:
    """One sensor of the robot, by its scene name. Its accessors read the measured
    value of the latest control step (``None`` before the sensor's first reading)."""

    def __init__(self, name, kind):
        self.name = name
        self.kind = kind

    def __repr__(self):
        return f"Sensor({self.name!r}, {self.kind})"

    def reading(self) -> Optional[Dict[str, Any]]:
        """The raw reading: a dict with a ``type`` (``scalar``, ``vector``, ``scan``,
        ``keys``, ``ticks``, ``joint``, ``pose2d``, ``contact``, ``image``, ``depth_image``,
        ``orientation``, ``landmarks``, ``radio``) and its fields, or
        ``None`` before the first reading."""
        reading = _link.readings.get(self.name) if _link else None
        if reading is not None and reading.get("type") == "scan" and reading["ranges"].__class__ is bytes:
            reading["ranges"] = _ranges(reading, self.name)
        return reading

    def _expect(self, accessor, *types):
        # The reading as it came (a scan's ranges perhaps still packed: see _ranges).
        reading = _link.readings.get(self.name) if _link else None
        if reading is None:
            return None
        if reading.get("type") not in types:
            raise VlabError(
                f"sensor {self.name!r} ({self.kind}) has no {accessor}(); "
                f"it reads a {reading.get('type')} value: use value()")
        return reading

    def value(self, key: Optional[str] = None) -> Any:
        """The sensor's value, shaped by what it measures:

        - one number (Compass, LaserDistance, Sonar, Infrared, Touch): a float;
        - three numbers (SimpleGPS, accelerometer, Gyro): a tuple ``(x, y, z)``;
        - a scan (Lidar): the list of ranges, metres;
        - an encoder: its ticks (int);
        - a joint state: its position;
        - odometry: a tuple ``(x, y, theta)``;
        - a contact sensor: 1 while touching, else 0;
        - a camera: its ``Image``; a depth camera: its ``DepthImage``;
        - an IMU: a tuple ``(roll, pitch, yaw)``, radians;
        - a landmark sensor: the list of ``Landmark``s it sees;
        - a keyboard: ``value("I")`` is 1 while key ``I`` is held, else 0; ``value()``
          is the tuple of keys held.

        ``None`` before the sensor's first reading (0 for a keyboard key).
        """
        reading = _link.readings.get(self.name) if _link else None
        kind = reading.get("type") if reading else None
        if key is not None:
            if reading is None and self.kind == "Keyboard":
                return 0
            if kind != "keys":
                raise VlabError(f"sensor {self.name!r} ({self.kind}) is not a keyboard: use value()")
            return 1 if str(key).upper() in reading.get("keys", []) else 0
        if reading is None:
            return None
        if kind == "scalar":
            return reading["value"]
        if kind == "vector":
            return tuple(reading["values"])
        if kind == "scan":
            return _ranges(reading, self.name)
        if kind == "keys":
            return tuple(reading["keys"])
        if kind == "ticks":
            return reading["ticks"]
        if kind == "joint":
            return reading["position"]
        if kind == "pose2d":
            return (reading["x"], reading["y"], reading["theta"])
        if kind == "contact":
            return 1 if reading["touching"] else 0
        if kind == "orientation":
            return (reading["roll"], reading["pitch"], reading["yaw"])
        if kind == "landmarks":
            return _landmarks(reading)
        if kind == "image":
            return _decoded(reading, Image)
        if kind == "depth_image":
            return _decoded(reading, DepthImage)
        return reading

    def ranges(self) -> Optional[List[float]]:
        """A scan's distances, metres (``max_range()`` where nothing was hit)."""
        reading = _link.readings.get(self.name) if _link else None
        if reading is not None and reading.get("type") == "scan":
            return _ranges(reading, self.name)
        reading = self._expect("ranges", "scan")
        return None if reading is None else _ranges(reading, self.name)

    def angles(self) -> Optional[List[float]]:
        """A scan's beam angles, radians counter-clockwise from the forward axis."""
        reading = self._expect("angles", "scan")
        if reading is None:
            return None
        return [reading["angle_min"] + i * reading["angle_step"] for i in range(len(_ranges(reading, self.name)))]

    def max_range(self) -> Optional[float]:
        """A scan's longest distance, metres."""
        reading = self._expect("max_range", "scan")
        return None if reading is None else reading["max_range"]

    def ticks(self) -> Optional[int]:
        """An encoder's cumulative signed ticks."""
        reading = self._expect("ticks", "ticks")
        return None if reading is None else reading["ticks"]

    def angle(self) -> Optional[float]:
        """An encoder's angle turned since the start, radians."""
        reading = self._expect("angle", "ticks")
        return None if reading is None else reading["angle"]

    def velocity(self) -> Optional[float]:
        """A joint state's rate (rad/s or m/s)."""
        reading = self._expect("velocity", "joint")
        return None if reading is None else reading["velocity"]

    def keys(self) -> Tuple[str, ...]:
        """A keyboard's held keys (upper-case names: ``I``, ``ARROWUP``, ``SPACE``)."""
        reading = self._expect("keys", "keys")
        return () if reading is None else tuple(reading["keys"])

    def force(self) -> Optional[Tuple[float, float, float]]:
        """A contact sensor's total force on its body, world frame, newtons."""
        reading = self._expect("force", "contact")
        return None if reading is None else tuple(reading["force"])

    def point(self) -> Optional[Tuple[float, float, float]]:
        """A contact sensor's contact point, world frame (``None`` when not touching)."""
        reading = self._expect("point", "contact")
        if reading is None or reading.get("point") is None:
            return None
        return tuple(reading["point"])

    def quaternion(self) -> Optional[Tuple[float, float, float, float]]:
        """An IMU's orientation as a quaternion ``(w, x, y, z)``, world frame."""
        reading = self._expect("quaternion", "orientation")
        return None if reading is None else tuple(reading["quaternion"])

    def landmarks(self) -> List[Landmark]:
        """The beacons a ``LandmarkSensor`` sees: a list of ``Landmark`` (``id``,
        ``distance`` m, ``bearing`` and ``elevation`` rad), by id; empty before its first
        reading."""
        reading = self._expect("landmarks", "landmarks")
        return [] if reading is None else _landmarks(reading)

    def image(self) -> Optional[Image]:
        """A ``Camera``'s latest image (an ``Image``: RGB pixels, top row first), or
        ``None`` before its first. It changes at the camera's rate (5 Hz by default)."""
        reading = self._expect("image", "image")
        return None if reading is None else _decoded(reading, Image)

    def depth_image(self) -> Optional[DepthImage]:
        """A ``DepthCamera``'s latest image (a ``DepthImage``: distances along the
        optical axis, metres, top row first), or ``None`` before its first."""
        reading = self._expect("depth_image", "depth_image")
        return None if reading is None else _decoded(reading, DepthImage)

    def depths(self) -> Optional[List[float]]:
        """A ``DepthCamera``'s distances, metres, as one list (row-major, top row
        first); ``depth_image()`` gives them with their width and height."""
        image = self.depth_image()
        return None if image is None else image.depths


class Actuator:
    """One actuator of the robot, by its scene name. A command holds until changed;
    it reaches the simulation at the next ``robot.step()``."""

    def __init__(self, name, kind):
        self.name = name
        self.kind = kind
        # Its entry in an answer's commands starts with its name, in JSON.
        self._key = _encode(name) + ":"

    def __repr__(self):
        return f"Actuator({self.name!r}, {self.kind})"

    def _check(self, method, *kinds):
        if self.kind not in kinds:
            hint = {"SimpleMotor": "set_speed(speed)", "SimpleServo": "set_position(angle)",
                    "DiffDrive": "set(v, omega)"}.get(self.kind, "another command")
            raise VlabError(f"actuator {self.name!r} is a {self.kind}: use {hint}, not {method}()")

    def set_speed(self, speed: float) -> None:
        """A motor's target velocity: rad/s on a hinge, m/s on a slider."""
        if self.kind != "SimpleMotor":
            self._check("set_speed", "SimpleMotor")
        _link.commands[self.name] = '%s{"speed":%r}' % (self._key, _number(speed, "the speed"))

    def set_position(self, position: float) -> None:
        """A servo's target position: rad on a hinge, m on a slider."""
        if self.kind != "SimpleServo":
            self._check("set_position", "SimpleServo")
        _link.commands[self.name] = '%s{"position":%r}' % (self._key, _number(position, "the position"))

    def set(self, v: float, omega: float) -> None:
        """A differential drive's forward speed ``v`` (m/s) and turn rate ``omega``
        (rad/s, counter-clockwise seen from above)."""
        if self.kind != "DiffDrive":
            self._check("set", "DiffDrive")
        # A finite float is its own number (x - x is 0 for it alone): no call for it.
        if v.__class__ is not float or v - v != 0.0:
            v = _number(v, "v")
        if omega.__class__ is not float or omega - omega != 0.0:
            omega = _number(omega, "omega")
        _link.commands[self.name] = '%s{"v":%r,"omega":%r}' % (self._key, v, omega)


class Robot:
    """The robot this program drives. Create one (``robot = Robot()``) and loop on
    ``robot.step()``."""

    def __init__(self):
        if _link is None:
            try:
                # The client package's network link (`pip install vlab-client`); a lab's
                # own copy of this module has none.
                from vlab import remote as _remote
            except ImportError:
                raise VlabError("Robot() only works inside a VLab lab: run the program from the lab, or install "
                                "vlab-client to drive a lab's robot from your machine") from None
            _remote.connect()
        hello = _link.hello
        self.name = hello["robot"]
        self._sensors = {s["name"]: Sensor(s["name"], s["kind"]) for s in hello.get("sensors", [])}
        self._actuators = {a["name"]: Actuator(a["name"], a["kind"]) for a in hello.get("actuators", [])}

    def __repr__(self):
        return f"Robot({self.name!r})"

    def step(self) -> bool:
        """Sends the commands set since the last call, waits for the next control step
        and returns True with its readings; False once the lab stops the program."""
        _link.drawings_due = True
        return _link.exchange()

    def send(self, message: str) -> None:
        """Sends ``message`` (a str, at most the radio's ``max_length`` bytes of UTF-8:
        64 unless the scene says otherwise) on the robot's ``Radio``. It leaves with the
        next ``step()`` and robots in range on the same channel hear it one control step
        later. At most 16 messages per control step; the lab drops a message longer than
        the radio's ``max_length`` and says so in the console."""
        if _link.radio is None:
            raise VlabError(f"robot {self.name!r} has no Radio: declare one in its scene to send messages")
        if not isinstance(message, str):
            raise VlabError(f"a radio message is a str, not {type(message).__name__}: use json.dumps for data")
        if len(message.encode("utf-8")) > _MAX_RADIO_BYTES:
            raise VlabError(f"a radio message is at most {_MAX_RADIO_BYTES} bytes of UTF-8")
        if len(_link.radio_out) >= _MAX_SENT_PER_STEP:
            raise VlabError(f"a robot sends at most {_MAX_SENT_PER_STEP} radio messages per control step")
        _link.radio_out.append(message)

    def receive(self) -> List[Message]:
        """The radio messages heard since the last call, oldest first, each a
        ``Message`` (``sender``, ``text``); an empty list when none came. Messages heard
        at one control step are ordered by sender name, then in the order each sender
        sent them. Unread messages are kept (the latest 1024), also through
        ``wait()``."""
        messages, _link.inbox = _link.inbox, []
        return messages

    def publish_estimate(self, x: float, y: float, theta: float) -> None:
        """Publishes where the program believes the robot is: ``x``, ``y`` on the
        ground (metres, as an ``Odometry`` sensor reads them) and heading ``theta``
        (radians). The page draws it, its trail and its error against the true pose,
        for the robot's owner and the instructor. The latest estimate stays until the
        next one."""
        _link.estimate = {"x": _number(x, "x"), "y": _number(y, "y"), "theta": _number(theta, "theta")}

    def draw_points(self, points: Iterable[Sequence[float]], color: str = "orange", keep: bool = False) -> None:
        """Draws dots in the 3D view at ``points``: ``(x, y)`` on the ground or
        ``(x, y, z)`` with a height ``z`` (metres). They show until the program's next
        step (``robot.step()``, or the end of a wait), or, with ``keep=True``, until
        ``clear_drawings()``. ``color``: a name (red, green, blue, orange, yellow,
        purple, cyan, magenta, white, black, gray) or ``"#rrggbb"``. A step draws at
        most 4000 points and line vertices and 32 texts."""
        _link.draw({"shape": "points", "points": _points(points, "draw_points"), "color": _color(color)}, keep)

    def draw_lines(self, points: Iterable[Sequence[float]], color: str = "cyan", keep: bool = False) -> None:
        """Draws a line through ``points`` (at least two), as ``draw_points`` takes
        them."""
        line = _points(points, "draw_lines")
        if len(line) < 2:
            raise VlabError("draw_lines needs at least two points")
        _link.draw({"shape": "lines", "points": line, "color": _color(color)}, keep)

    def draw_text(self, x: float, y: float, text: str, color: str = "white", z: float = 0.3,
                  keep: bool = False) -> None:
        """Writes ``text`` (at most 80 characters) at ``(x, y)`` on the ground, ``z``
        metres up."""
        at = [round(_number(x, "x"), 4), round(_number(y, "y"), 4), round(_number(z, "z"), 4)]
        text = str(text)[:_MAX_DRAWN_TEXT_CHARS]
        _link.draw({"shape": "text", "at": at, "text": text, "color": _color(color)}, keep)

    def map(self, resolution: float = 0.05, low: float = 0.02, high: float = 2.0) -> OccupancyGrid:
        """The lab's static geometry (walls, posts, furniture; no robot and nothing
        that moves) as an ``OccupancyGrid`` of square cells ``resolution`` metres wide
        (0.01 to 1), covering the whole lab. A cell is occupied when its centre is
        inside something that reaches between the heights ``low`` and ``high`` above
        the ground (metres), so the floor is not an obstacle. Computed in the program,
        from the geometry the lab gave it when it started."""
        resolution = _number(resolution, "the resolution")
        if not 0.01 <= resolution <= 1.0:
            raise VlabError(f"the map's resolution must be between 0.01 and 1 m, not {resolution}")
        low, high = _number(low, "low"), _number(high, "high")
        return _rasterize(_link.hello.get("obstacles", []), resolution, low, high)

    def clear_drawings(self) -> None:
        """Removes every drawing, kept ones included."""
        _link.clear_kept = True
        _link.keep = []
        _link.drawn = []
        _link.drawings_due = True
        _link.drawn_vertices = _link.drawn_texts = 0

    def wait(self, seconds: float) -> bool:
        """Keeps the commands set so far for ``seconds`` of simulation time, then
        returns True with the readings of that moment; False once the lab stops the
        program (as ``step()``)::

            drive.set(0.2, 0.0)
            robot.wait(2.0)             # drives for two seconds of the lab's time
            drive.set(0.0, 1.0)
            robot.wait(1.0)             # then turns for one

        The lab steps on meanwhile (the program answers its control steps with the
        same commands), so a wait never slows the lab, and it is as long on every run
        and every machine. It ends at the first control step at or after the time
        asked (``robot.dt()`` apart); ``wait(0)`` returns at once. ``time.sleep(s)``
        does the same. A negative or non-finite ``seconds`` raises ``ValueError``.
        """
        return _link.wait(_duration(seconds, "wait"))

    def sensor(self, name: str) -> Sensor:
        """The sensor called ``name`` (as the scene names it)."""
        try:
            return self._sensors[name]
        except KeyError:
            raise VlabError(_missing("sensor", name, self.name, self._sensors)) from None

    def actuator(self, name: str) -> Actuator:
        """The actuator called ``name`` (as the scene names it)."""
        try:
            return self._actuators[name]
        except KeyError:
            raise VlabError(_missing("actuator", name, self.name, self._actuators)) from None

    def sensors(self) -> List[str]:
        """Names of the robot's sensors, in the scene's order."""
        return list(self._sensors)

    def actuators(self) -> List[str]:
        """Names of the robot's actuators, in the scene's order."""
        return list(self._actuators)

    def time(self) -> float:
        """Simulation time of the latest readings, seconds."""
        return _link.time

    def step_count(self) -> int:
        """The lab's step number of the latest readings."""
        return _link.step

    def dt(self) -> float:
        """Simulation time between two control steps, seconds."""
        return _link.hello["dt"] * _link.hello["control_period"]

    def log(self, *values: Any, sep: str = " ") -> None:
        """Writes one line to the robot's console (like ``print``)."""
        for line in sep.join(str(v) for v in values).split("\n"):
            _link.add_output("log", line)


class Image:
    """A camera image: ``width`` × ``height`` pixels; ``pixels`` is ``bytes`` of
    ``width * height * 3``: red, green, blue (0–255) of each pixel, row-major from
    the top-left (pixel ``(x, y)`` starts at byte ``3 * (y * width + x)``)."""

    def __init__(self, width, height, pixels):
        self.width = width
        self.height = height
        self.pixels = pixels

    def __repr__(self):
        return f"Image({self.width}x{self.height})"

    def pixel(self, x: int, y: int) -> Tuple[int, int, int]:
        """The ``(r, g, b)`` of column ``x`` (0 at the left), row ``y`` (0 at the top)."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise VlabError(f"pixel ({x}, {y}) is outside a {self.width}x{self.height} image")
        i = 3 * (y * self.width + x)
        return self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]

    def row(self, y: int) -> List[Tuple[int, int, int]]:
        """Row ``y`` as a list of ``(r, g, b)``, left to right."""
        start = 3 * y * self.width
        data = self.pixels[start:start + 3 * self.width]
        return [(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data), 3)]


class DepthImage:
    """A depth camera image: ``width`` × ``height`` distances along the optical axis
    (metres, to the millimetre; ``max_range`` where nothing is within range), in
    ``depths``, row-major from the top-left."""

    def __init__(self, width, height, max_range, depths):
        self.width = width
        self.height = height
        self.max_range = max_range
        self.depths = depths

    def __repr__(self):
        return f"DepthImage({self.width}x{self.height})"

    def at(self, x: int, y: int) -> float:
        """The distance at column ``x`` (0 at the left), row ``y`` (0 at the top)."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise VlabError(f"pixel ({x}, {y}) is outside a {self.width}x{self.height} image")
        return self.depths[y * self.width + x]


def _ranges(scan, name):
    """A new list of a scan reading's ranges, from the bytes a lab's pipe packs them in
    (decoded only when the program reads them, once per scan) or the list of a remote
    controller's JSON."""
    ranges = scan["ranges"]
    if ranges.__class__ is not bytes:
        return list(ranges)
    kept = _link.scans.get(name) if _link else None
    if kept is None or not kept[2] or kept[0] is not ranges:
        # A new scan: its floats are made for this step alone, as a scan that changes
        # every step would otherwise pay for keeping them too.
        return _floats(ranges)
    if kept[1] is None:
        kept[1] = _floats(ranges)
    # A copy: the program may change its list; the kept floats serve the steps to come.
    return kept[1][:]


def _floats(packed):
    """The floats of packed little-endian ``f64`` ranges."""
    values = _array("d", packed)
    if _BIG_ENDIAN:
        values.byteswap()
    return values.tolist()


def _keep_ranges(readings, scanners, kept):
    """Gives each scan that came without its ranges (the lab leaves them out while they
    are those of the step before, since a lidar measures less often than a program
    steps) the ranges it had, and keeps every scan's packed ranges for the steps to
    come: ``kept[name]`` is [packed ranges, their floats once a repeated scan was read,
    whether this step repeats the scan]."""
    for name in scanners:
        reading = readings.get(name)
        if reading is None:
            kept.pop(name, None)
        elif "ranges" not in reading:
            entry = kept[name]
            reading["ranges"] = entry[0]
            entry[2] = True
        elif reading["ranges"].__class__ is bytes:
            entry = kept.get(name)
            if entry is None:
                kept[name] = [reading["ranges"], None, False]
            else:
                entry[0], entry[1], entry[2] = reading["ranges"], None, False
        else:
            kept.pop(name, None)


# The field that carries an image reading's pixels; the lab sends them once, in the
# first step after the image was taken, and its summary alone after that.
_PIXEL_FIELDS = {"image": "pixels", "depth_image": "depths"}


def _keep_pixels(readings, previous):
    """``readings`` with each image that came without its pixels given the pixels
    (and decoded form) of the same sensor's previous reading."""
    for name, reading in readings.items():
        field = _PIXEL_FIELDS.get(reading.get("type")) if isinstance(reading, dict) else None
        before = previous.get(name) if previous else None
        if field and not reading.get(field) and isinstance(before, dict) and before.get("type") == reading["type"]:
            reading[field] = before.get(field, "")
            if "_decoded" in before:
                reading["_decoded"] = before["_decoded"]
    return readings


def _decoded(reading, kind):
    """The reading's image, decoded once."""
    if "_decoded" not in reading:
        width, height = reading["width"], reading["height"]
        if kind is Image:
            pixels = _binascii.a2b_base64(reading.get("pixels", ""))
            reading["_decoded"] = Image(width, height, pixels)
        else:
            raw = _binascii.a2b_base64(reading.get("depths", ""))
            millimetres = _struct.unpack(f"<{len(raw) // 2}H", raw)
            reading["_decoded"] = DepthImage(width, height, reading["max_range"], [m / 1000 for m in millimetres])
    return reading["_decoded"]


_MAX_MAP_CELLS = 4_000_000


class OccupancyGrid:
    """A map of the lab seen from above: ``width`` × ``height`` square cells of
    ``resolution`` metres, cell ``(col, row)`` covering x from ``x0 + col *
    resolution`` and y from ``y0 + row * resolution`` (ground coordinates, as an
    ``Odometry`` sensor reads them). ``rows[row][col]`` is 1 where something stands,
    0 where the robot can go."""

    def __init__(self, resolution, x0, y0, width, height, rows):
        self.resolution = resolution
        self.x0 = x0
        self.y0 = y0
        self.width = width
        self.height = height
        self.rows = rows

    def __repr__(self):
        return (f"OccupancyGrid({self.width}x{self.height} cells of {self.resolution} m "
                f"from ({self.x0:.2f}, {self.y0:.2f}))")

    def cell(self, x: float, y: float) -> Optional[Tuple[int, int]]:
        """The ``(col, row)`` of the cell holding ground point ``(x, y)``, or None
        outside the map."""
        col = int((x - self.x0) // self.resolution)
        row = int((y - self.y0) // self.resolution)
        if 0 <= col < self.width and 0 <= row < self.height:
            return col, row
        return None

    def center(self, col: int, row: int) -> Tuple[float, float]:
        """The ground point at the centre of cell ``(col, row)``."""
        return self.x0 + (col + 0.5) * self.resolution, self.y0 + (row + 0.5) * self.resolution

    def occupied(self, x: float, y: float) -> bool:
        """Whether ``(x, y)`` is inside an obstacle; outside the map counts as
        occupied (nothing is there to drive on)."""
        cell = self.cell(x, y)
        return cell is None or self.rows[cell[1]][cell[0]] == 1


def _rasterize(obstacles, resolution, low, high):
    """The occupancy grid of ``obstacles`` (the hello's footprints)."""
    polygons = [o["polygon"] for o in obstacles if len(o["polygon"]) >= 3]
    if not polygons:
        return OccupancyGrid(resolution, 0.0, 0.0, 0, 0, [])
    xs = [p[0] for polygon in polygons for p in polygon]
    ys = [p[1] for polygon in polygons for p in polygon]
    x0, y0 = min(xs), min(ys)
    width = max(1, _math.ceil((max(xs) - x0) / resolution))
    height = max(1, _math.ceil((max(ys) - y0) / resolution))
    if width * height > _MAX_MAP_CELLS:
        raise VlabError(f"a map of {width}x{height} cells is too big (at most {_MAX_MAP_CELLS}): "
                        f"choose a coarser resolution than {resolution}")
    rows = [bytearray(width) for _ in range(height)]
    for obstacle in obstacles:
        polygon = obstacle["polygon"]
        if len(polygon) < 3 or obstacle["top"] <= low or obstacle["bottom"] >= high:
            continue
        px = [p[0] for p in polygon]
        py = [p[1] for p in polygon]
        edges = list(zip(polygon, polygon[1:] + polygon[:1]))
        first_col = max(0, int((min(px) - x0) // resolution))
        last_col = min(width - 1, int((max(px) - x0) // resolution))
        first_row = max(0, int((min(py) - y0) // resolution))
        last_row = min(height - 1, int((max(py) - y0) // resolution))
        for row in range(first_row, last_row + 1):
            cy = y0 + (row + 0.5) * resolution
            line = rows[row]
            for col in range(first_col, last_col + 1):
                cx = x0 + (col + 0.5) * resolution
                # Inside a counter-clockwise convex polygon: left of every edge.
                if all((bx - ax) * (cy - ay) - (by - ay) * (cx - ax) >= 0 for (ax, ay), (bx, by) in edges):
                    line[col] = 1
    return OccupancyGrid(resolution, x0, y0, width, height, rows)


def _points(points, what):
    """``points`` as ``[x, y, z]`` lists (z 0.05 m when not given), to the 0.1 mm."""
    try:
        items = list(points)
    except TypeError:
        raise VlabError(f"{what} takes a list of (x, y) or (x, y, z) points, not {points!r}") from None
    out = []
    for point in items:
        try:
            coords = list(point)
        except TypeError:
            raise VlabError(f"{what}: a point is (x, y) or (x, y, z), not {point!r}") from None
        if len(coords) not in (2, 3):
            raise VlabError(f"{what}: a point is (x, y) or (x, y, z), not {point!r}")
        if len(coords) == 2:
            coords.append(0.05)
        out.append([round(_number(c, "a coordinate"), 4) for c in coords])
    return out


def _color(color):
    """A colour name or ``#rrggbb``, checked."""
    text = str(color).strip().lower()
    hex_digits = text[1:] if text.startswith("#") else ""
    if text in _COLOR_NAMES or (len(hex_digits) == 6 and all(c in "0123456789abcdef" for c in hex_digits)):
        return text
    raise VlabError(f"colour {color!r}: use #rrggbb or one of {', '.join(_COLOR_NAMES[:-1])}")


class Landmark(tuple):
    """A beacon seen by a ``LandmarkSensor``: ``(id, distance, bearing, elevation)``,
    in the sensor's frame (bearing counter-clockwise from its forward axis seen from
    above, elevation above its horizontal plane; metres and radians)."""

    __slots__ = ()

    def __new__(cls, id, distance, bearing, elevation):
        return tuple.__new__(cls, (id, distance, bearing, elevation))

    id = property(lambda self: self[0])
    distance = property(lambda self: self[1])
    bearing = property(lambda self: self[2])
    elevation = property(lambda self: self[3])

    def __repr__(self):
        return f"Landmark({self.id!r}, {self.distance:.3f} m, {self.bearing:.3f} rad, {self.elevation:.3f} rad)"


class Message(tuple):
    """A radio message heard: ``(sender, text)``."""

    __slots__ = ()

    def __new__(cls, sender, text):
        return tuple.__new__(cls, (sender, text))

    sender = property(lambda self: self[0])
    text = property(lambda self: self[1])

    def __repr__(self):
        return f"Message({self.sender!r}, {self.text!r})"


def _landmarks(reading):
    return [Landmark(l["id"], l["distance"], l["bearing"], l["elevation"]) for l in reading.get("landmarks", ())]


def _missing(what, name, robot, parts):
    if parts:
        known = ", ".join(f"{p.name} ({p.kind})" for p in parts.values())
        return f"robot {robot!r} has no {what} called {name!r}; its {what}s are: {known}"
    return f"robot {robot!r} has no {what} called {name!r}; it has no {what}s"
