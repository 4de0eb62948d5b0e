# park.py: a reference solution of park_challenge.vlab. The robot starts somewhere
# along the west wall, so it drives first to a point in front of the bay, then into the
# bay's middle, and stops there.

import math

from vlab import Robot

from drive_to import MAX_SPEED, Pose, heading_to, steer

WAYPOINTS = [(4.4, 2.0), (5.4, 2.0)]   # in front of the bay, then its middle
CLOSE = 0.05                            # metres: a waypoint reached

robot = Robot()
pose = Pose(robot)
drive = robot.actuator("drive")
next_point = 0
while robot.step():
    now = pose.read()
    if now is None:
        continue
    x, z, heading = now
    tx, tz = WAYPOINTS[next_point]
    distance = math.hypot(tx - x, tz - z)
    if distance < CLOSE:
        if next_point + 1 < len(WAYPOINTS):
            next_point += 1
            robot.log(f"at ({x:.2f}, {z:.2f}): on to {WAYPOINTS[next_point]}")
        else:
            drive.set(0.0, 0.0)
        continue
    steer(drive, heading, heading_to(x, z, tx, tz), min(MAX_SPEED, distance))
