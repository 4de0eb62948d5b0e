"""The robot API over a lab's pipe (protocol version 4: a step as a line ``m<N>`` and N
bytes of ``marshal``, scans' ranges as bytes of f64, left out while they are those of
the step before) against the same API over plain
JSON (version 1, a remote controller's): the program reads the same numbers and answers
the same JSON. No server: the lab's side is played here, as the lab writes it
(backend/programs/src/packed.rs, whose own tests check that Python reads its bytes as
it reads version 1's JSON)."""

from __future__ import annotations

import io
import json
import marshal
import struct

import vlab

SENSORS = [{"name": "GPS1", "kind": "SimpleGPS"}, {"name": "lidar", "kind": "Lidar"},
           {"name": "kbd", "kind": "Keyboard"}]
ACTUATORS = [{"name": "base", "kind": "DiffDrive"}, {"name": "arm \"1\"", "kind": "SimpleServo"}]
RANGES = [0.1, 2.5, 9.9999, 10.0, 0.30000001192092896, 1e-7]


class Lab:
    """A lab's end of the pipe: its messages ready to be read, the answers written."""

    def __init__(self, version: int, steps: int, scans: list | None = None):
        self.version = version
        scans = scans if scans is not None else [[r + k for r in RANGES] for k in range(steps)]
        out, before = b"", None
        for k, ranges in enumerate(scans):
            out += self.step(5 * (k + 1), ranges, ranges == before)
            before = ranges
        self.reader = io.BufferedReader(io.BytesIO(out + b'{"type":"stop"}\n'))
        self.answers: list = []

    def hello(self) -> dict:
        return {"type": "hello", "version": self.version, "robot": "bot", "sensors": SENSORS,
                "actuators": ACTUATORS, "dt": 1 / 240, "control_period": 5, "step": 0, "time": 0.0, "seed": 7}

    def step(self, step: int, ranges: list, unchanged: bool = False) -> bytes:
        scan = {"type": "scan", "angle_min": -1.5, "angle_step": 0.25, "max_range": 12.0}
        message = {"type": "step", "step": step, "time": step / 240,
                   "sensors": {"GPS1": {"type": "vector", "values": [1.5, -0.25, step / 1000]},
                               "kbd": {"type": "keys", "keys": ["J"]}, "lidar": scan, "bump": None}}
        if self.version == 1:
            scan["ranges"] = ranges
            return json.dumps(message).encode() + b"\n"
        if not unchanged:
            scan["ranges"] = struct.pack(f"<{len(ranges)}d", *ranges)
        body = marshal.dumps(message)
        return b"m%d\n" % len(body) + body

    def write(self, data: bytes) -> None:
        self.answers += [json.loads(line) for line in data.decode().splitlines()]

    def flush(self) -> None:
        pass

    def readline(self) -> bytes:
        return self.reader.readline()

    def read(self, count: int) -> bytes:
        return self.reader.read(count)


def run(version: int, scans: list | None = None) -> tuple:
    """The same program over one protocol version: what it read and what it answered."""
    lab = Lab(version, 3, scans)
    vlab._connect(lab, lab, lab.hello())
    robot = vlab.Robot()
    drive, arm = robot.actuator("base"), robot.actuator('arm "1"')
    seen = []
    drive.set(0.5, -0.125)
    while robot.step():
        lidar = robot.sensor("lidar")
        seen.append((lidar.ranges(), lidar.value(), lidar.angles(), robot.sensor("GPS1").value(),
                     robot.sensor("kbd").value("J"), robot.time(), robot.step_count()))
        reading = lidar.reading()
        seen.append({**reading, "ranges": list(reading["ranges"])})
        mine = lidar.ranges()
        drive.set(min(mine), 1.0 / 3.0)
        mine[0] = -1.0  # the program's own list: the next step's reading does not change
        lidar.reading()["ranges"].append(-2.0)
        if robot.step_count() == 10:
            arm.set_position(0.25)
            robot.log("moved")
    return seen, lab.answers


def test_a_program_reads_the_same_numbers_and_answers_the_same_over_a_pipe_as_over_json():
    packed, plain = run(4), run(1)
    assert packed[0] == plain[0], "the same readings, bit for bit"
    assert packed[0][0][0] == [0.1, 2.5, 9.9999, 10.0, 0.30000001192092896, 1e-7]
    assert packed[0][1]["ranges"] == packed[0][0][0], "the raw reading holds the list too"
    for answers in (packed[1], plain[1]):
        for answer in answers:
            answer.pop("version", None)
    assert packed[1] == plain[1], "the same answers"
    ready, first, second, third = packed[1][:4]
    assert ready["commands"] == {"base": {"v": 0.5, "omega": -0.125}}
    assert first == {"type": "commands", "step": 5, "commands": {"base": {"v": 1e-7, "omega": 1.0 / 3.0}},
                     "drawings": []}
    assert second["commands"] == {"base": {"v": 1 + 1e-7, "omega": 1.0 / 3.0}, 'arm "1"': {"position": 0.25}}
    assert second["output"] == [{"source": "log", "text": "moved"}]
    assert third["step"] == 15


def test_the_ready_speaks_the_version_of_the_hello():
    for version in (1, 4):
        lab = Lab(version, 0)
        vlab._connect(lab, lab, lab.hello())
        assert not vlab.Robot().step()
        assert lab.answers[0]["version"] == version


def test_a_scan_left_out_because_it_did_not_change_reads_as_it_did_the_step_before():
    scans = [RANGES, RANGES, RANGES, [r + 1 for r in RANGES], [r + 1 for r in RANGES], RANGES]
    packed, plain = run(4, scans), run(1, scans)
    assert sum(b"ranges" in Lab(4, 0).step(5, s, s == b) for s, b in zip(scans, [None] + scans)) == 3, \
        "the lab's side here leaves out the repeated scans"
    assert packed[0] == plain[0], "the same readings, bit for bit"
    ranges_read = [seen[0] for seen in packed[0][::2]]
    assert ranges_read == [RANGES, RANGES, RANGES, [r + 1 for r in RANGES], [r + 1 for r in RANGES], RANGES]
    assert packed[0][2][1] is not packed[0][0][1], "value() gives a new list each step"
    for answers in (packed[1], plain[1]):
        for answer in answers:
            answer.pop("version", None)
    assert packed[1] == plain[1], "the same answers"
