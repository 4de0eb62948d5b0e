"""The client against the real server, driven as a student would run it: ``python
main.py --server ... --lab ... --token ... --robot ...``."""

from __future__ import annotations

from pathlib import Path

from conftest import Server, free_port, run_client, start_server

ROBOT = 'include "diffbot_robot.vlab";\ncall diffbot("_twin", 10, 7, 0);\n'

# Uses the clock (time.sleep), sensors and randomness: all must be the lab's. The turn
# follows every range of the lidar, which a lab's pipe packs and a websocket sends as
# JSON numbers: a range read one bit apart would steer the two runs apart.
PROGRAM = """\
import random
import time
from vlab import Robot

robot = Robot()
drive = robot.actuator("drive")
drive.set(0.3, 0.0)
time.sleep(0.5)
while robot.step():
    x, y, theta = robot.sensor("odom").value() or (0.0, 0.0, 0.0)
    ranges = robot.sensor("lidar").ranges() or [0.0]
    turn = (1.0 if theta < 1.0 else -0.4) + 0.01 * (min(ranges) + sum(ranges) / len(ranges))
    drive.set(0.25 + random.uniform(-0.05, 0.05), turn)
"""


def _student_in(server: Server, lab: dict, name: str) -> str:
    joined = server.call("POST", "/api/join", body={"join_code": lab["join_code"], "name": name})
    return joined["token"]


def _lockstep_lab(server: Server, name: str) -> dict:
    lab = server.create_lab(name, "arena", 3)
    token = lab["instructor_token"]
    # A new lab runs: back to its step 0, paused, so both labs start from the same world.
    server.call("POST", f"/api/labs/{lab['id']}/control", token, {"action": "reset"})
    server.call("PATCH", f"/api/labs/{lab['id']}/settings", token, {"sync": "lockstep"})
    return lab


def _pose(report: dict):
    return report["pose"]["position"], report["pose"]["quaternion"]


def test_a_remote_program_and_the_same_program_uploaded_give_the_same_lockstep_run(server, tmp_path: Path):
    uploaded, remote = _lockstep_lab(server, "uploaded"), _lockstep_lab(server, "remote")
    ana_up, ana_remote = _student_in(server, uploaded, "Ana"), _student_in(server, remote, "Ana")
    server.upload(uploaded["id"], ana_up, ROBOT, PROGRAM)
    server.upload(remote["id"], ana_remote, ROBOT)
    client = run_client(server, PROGRAM, "--lab", remote["id"], "--token", ana_remote, "--robot", "diffbot_twin",
                        folder=tmp_path)
    try:
        server.wait_for(uploaded["id"], ana_up, "diffbot_twin", lambda r: r["program"]["state"] == "running",
                        "started its program")
        server.wait_for(remote["id"], ana_remote, "diffbot_twin",
                        lambda r: r["program"]["state"] == "running" and r["program"]["file"] == "remote controller",
                        "got its remote controller")
        runs = {"uploaded": [], "remote": []}
        for _ in range(4):
            for lab, token, run in ((uploaded, ana_up, "uploaded"), (remote, ana_remote, "remote")):
                server.step(lab["id"], lab["instructor_token"], 120)
                runs[run].append(_pose(server.robot(lab["id"], token, "diffbot_twin")))
        first, last = runs["remote"][0][0], runs["remote"][-1][0]
        assert abs(last[0] - first[0]) + abs(last[2] - first[2]) > 0.2, f"the robot drove: {first} -> {last}"
        assert runs["remote"] == runs["uploaded"], "the same poses, bit for bit, at steps 120, 240, 360, 480"
    finally:
        client.terminate()
        client.communicate(timeout=30)


def test_a_controller_stalled_at_a_breakpoint_is_detached_and_attaches_again(server, tmp_path: Path):
    lab = _lockstep_lab(server, "breakpoint")
    ana = _student_in(server, lab, "Ana")
    server.upload(lab["id"], ana, ROBOT)
    program = """\
import threading
from vlab import Robot

robot = Robot()
robot.actuator("drive").set(0.3, 0.0)
stalled = False
while robot.step():
    if robot.time() > 0.5 and not stalled:
        stalled = True
        threading.Event().wait(1.5)   # as long as a breakpoint: wall time, past the lab's 500 ms
        robot.log("back from the breakpoint")
"""
    client = run_client(server, program, "--lab", lab["id"], "--token", ana, "--robot", "diffbot_twin",
                        folder=tmp_path)
    token = lab["instructor_token"]
    try:
        server.wait_for(lab["id"], token, "diffbot_twin", lambda r: r["program"]["state"] == "running", "attached")
        server.step(lab["id"], token, 240)
        detached = server.robot(lab["id"], token, "diffbot_twin")
        lines = [line["text"] for line in detached["console"]]
        assert "remote controller detached: did not answer within 500 ms" in lines, lines
        held = _pose(detached)[0]
        server.step(lab["id"], token, 120)
        still = _pose(server.robot(lab["id"], token, "diffbot_twin"))[0]
        assert max(abs(a - b) for a, b in zip(still, held)) < 1e-3, f"it holds still while detached: {held} -> {still}"

        # Back from the breakpoint, the client attaches again by itself and drives on.
        server.wait_for(lab["id"], token, "diffbot_twin",
                        lambda r: r["program"]["state"] == "running" and r["program"]["file"] == "remote controller",
                        "attached again")
        server.step(lab["id"], token, 240)
        report = server.robot(lab["id"], token, "diffbot_twin")
        assert "back from the breakpoint" in [line["text"] for line in report["console"]]
        assert report["pose"]["position"][0] - held[0] > 0.2, "it drives again"
    finally:
        client.terminate()
        _, err = client.communicate(timeout=30)
    assert "detached: remote controller detached: did not answer within 500 ms; attaching again" in err, err
    assert "attached again at step 360" in err, err


def test_one_controller_per_robot_and_only_its_owner_or_the_instructor(server, tmp_path: Path):
    lab = _lockstep_lab(server, "refusals")
    ana, ben = _student_in(server, lab, "Ana"), _student_in(server, lab, "Ben")
    server.upload(lab["id"], ana, ROBOT)
    idle = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    pass\n"
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    (tmp_path / "ben").mkdir()
    first = run_client(server, idle, "--lab", lab["id"], "--token", ana, "--robot", "diffbot_twin",
                       folder=tmp_path / "first")
    try:
        server.wait_for(lab["id"], ana, "diffbot_twin", lambda r: r["program"]["state"] == "running", "attached")
        second = run_client(server, idle, "--lab", lab["id"], "--token", lab["instructor_token"], "--robot",
                            "diffbot_twin", folder=tmp_path / "second")
        _, err = second.communicate(timeout=60)
        assert second.returncode == 1
        assert "already has a remote controller attached: one at a time" in err, err
        assert "Traceback" not in err, "a refusal is told in one line"
        intruder = run_client(server, idle, "--lab", lab["id"], "--token", ben, "--robot", "diffbot_twin",
                              folder=tmp_path / "ben")
        _, err = intruder.communicate(timeout=60)
        assert intruder.returncode == 1
        assert "only the owner of 'diffbot_twin' or the instructor may attach a remote controller to it" in err, err
    finally:
        first.terminate()
        first.communicate(timeout=30)


def test_a_student_joins_adds_a_robot_and_drives_it_from_the_command_line(server, tmp_path: Path):
    lab = server.create_lab("walk-in", "arena", 5)
    token = lab["instructor_token"]
    server.call("POST", f"/api/labs/{lab['id']}/control", token, {"action": "pause"})
    (tmp_path / "bot.vlab").write_text(ROBOT)
    program = """\
from vlab import Robot

robot = Robot()
robot.actuator("drive").set(0.4, 0.0)
robot.log("hello from", robot.name)
while robot.step():
    if robot.time() >= 1.0:
        break
"""
    client = run_client(server, program, "--code", lab["join_code"], "--name", "Chloé", "--upload",
                        str(tmp_path / "bot.vlab"), folder=tmp_path)
    server.wait_for(lab["id"], token, "diffbot_twin", lambda r: r["program"]["state"] == "running", "attached")
    start = server.robot(lab["id"], token, "diffbot_twin")["pose"]["position"][0]
    server.step(lab["id"], token, 300)
    out, err = client.communicate(timeout=60)
    assert client.returncode == 0, err
    report = server.robot(lab["id"], token, "diffbot_twin")
    assert report["pose"]["position"][0] - start > 0.3, "it drove for a second"
    assert report["program"]["message"] == "the program ended"
    assert "hello from diffbot_twin" in [line["text"] for line in report["console"]]
    assert "joined lab" in err and "added robot diffbot_twin" in err, err


def test_the_client_attaches_again_after_the_server_restarts(tmp_path: Path):
    # Its own server: this one goes down in the middle of the run.
    folder, port = str(tmp_path), free_port()
    process = start_server(folder, port)
    server = Server(f"http://127.0.0.1:{port}")
    try:
        lab = _lockstep_lab(server, "restart")
        ana = _student_in(server, lab, "Ana")
        server.upload(lab["id"], ana, ROBOT)
        program = "\n".join(["from vlab import Robot", "robot = Robot()",
                             "robot.actuator('drive').set(0.3, 0.0)", "while robot.step():", "    pass", ""])
        (tmp_path / "laptop").mkdir()
        client = run_client(server, program, "--lab", lab["id"], "--token", ana, "--robot",
                            "diffbot_twin", folder=tmp_path / "laptop")
        token = lab["instructor_token"]
        server.wait_for(lab["id"], token, "diffbot_twin", lambda r: r["program"]["state"] == "running", "attached")
        server.step(lab["id"], token, 240)
        before = server.robot(lab["id"], token, "diffbot_twin")["pose"]["position"]

        process.kill()
        process.wait(timeout=10)
        process = start_server(folder, port)
        server.wait_for(lab["id"], token, "diffbot_twin",
                        lambda r: r["program"]["state"] == "running" and r["program"]["file"] == "remote controller",
                        "attached again after the restart")
        # The restored lab starts again from its scene and its uploads: the robot too.
        restored = server.robot(lab["id"], token, "diffbot_twin")["pose"]["position"]
        assert restored[0] < before[0] - 0.1, f"back at its start: {before} -> {restored}"
        server.step(lab["id"], token, 240)
        after = server.robot(lab["id"], token, "diffbot_twin")["pose"]["position"]
        assert after[0] - restored[0] > 0.1, f"it drives on: {restored} -> {after}"
        client.terminate()
        _, err = client.communicate(timeout=30)
        # Dropped as a reset or as an end of stream, depending on when the server died.
        assert "detached: the connection dropped" in err and "attaching again" in err, err
        assert "attached again at step" in err, err
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_remote_controllers_talk_by_radio(server, tmp_path: Path):
    lab = _lockstep_lab(server, "radio")
    ana = _student_in(server, lab, "Ana")
    robots = "".join(
        f"robot {name} {{ body {{ {name}_box {{ shape box(0.2, 0.1, 0.2); pos({x}, 0.05, 2); Radio radio {{ range 10; }} }} }} }}\n"
        for name, x in (("radio_a", 2), ("radio_b", 4)))
    server.upload(lab["id"], ana, robots)
    talker = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    robot.send(f'ping {robot.step_count()}')\n"
    listener = ("from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    for message in robot.receive():\n"
                "        robot.log(message.sender, message.text)\n")
    clients = []
    for name, program in (("radio_a", talker), ("radio_b", listener)):
        (tmp_path / name).mkdir()
        clients.append(run_client(server, program, "--lab", lab["id"], "--token", ana, "--robot", name,
                                  folder=tmp_path / name))
    token = lab["instructor_token"]
    try:
        for name in ("radio_a", "radio_b"):
            server.wait_for(lab["id"], token, name, lambda r: r["program"]["state"] == "running", "attached")
        server.step(lab["id"], token, 60)
        heard = [line["text"] for line in server.robot(lab["id"], token, "radio_b")["console"]
                 if line["source"] == "log"]
        # Sent with the answer to step 5 (joined there), heard at the next control step.
        assert heard[:2] == ["radio_a ping 5", "radio_a ping 10"], heard
    finally:
        for client in clients:
            client.terminate()
            client.communicate(timeout=30)
