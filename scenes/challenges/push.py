# push.py: a reference solution of push_challenge.vlab. The crate stands at (2.5, 2.5),
# the corner zone's middle is at (4.4, 4.4). A crate pushed face-on goes straight, so
# the robot pushes it twice: east along z = 2.5 until it is below the zone, then, from
# the north, south along x = 4.4 into the zone; then it backs out of the zone.

import math

from vlab import Robot

from drive_to import Pose, angle_difference, heading_to, steer

ZONE = 4.4          # the zone's middle, x and z
AHEAD = 0.3         # metres from the robot's centre to the pushed crate's centre
EAST, SOUTH = 0.0, -math.pi / 2

# (what, where): go to a point; face a heading; push along a line to a coordinate;
# back off a distance.
TASKS = [
    ("push_x", (2.5, ZONE - AHEAD)),     # along z = 2.5 until x = 4.1
    ("back", 0.5),
    ("go", (3.6, 1.9)),
    ("go", (ZONE, 1.9)),
    ("face", SOUTH),
    ("push_z", (ZONE, ZONE - AHEAD)),    # along x = 4.4 until z = 4.1
    ("back", 0.6),
]

robot = Robot()
pose = Pose(robot)
drive = robot.actuator("drive")
task, started = 0, None
while robot.step():
    now = pose.read()
    if now is None:
        continue
    x, z, heading = now
    if task == len(TASKS):
        drive.set(0.0, 0.0)
        continue
    what, where = TASKS[task]
    done = False
    if what == "go":
        tx, tz = where
        done = math.hypot(tx - x, tz - z) < 0.04
        if not done:
            steer(drive, heading, heading_to(x, z, tx, tz), 0.2)
    elif what == "face":
        done = abs(angle_difference(where, heading)) < 0.02
        steer(drive, heading, where, 0.0)
    elif what == "push_x":
        line_z, to_x = where
        done = x >= to_x
        if not done:
            steer(drive, heading, heading_to(x, z, x + 0.4, line_z), 0.15)
    elif what == "push_z":
        line_x, to_z = where
        done = z >= to_z
        if not done:
            steer(drive, heading, heading_to(x, z, line_x, z + 0.4), 0.15)
    elif what == "back":
        started = started or (x, z)
        done = math.hypot(x - started[0], z - started[1]) >= where
        drive.set(0.0 if done else -0.15, 0.0)
    if done:
        robot.log(f"{what} done at ({x:.2f}, {z:.2f})")
        drive.set(0.0, 0.0)
        task, started = task + 1, None
