"""Where am I? From beacons: a landmark sensor, a compass and a map of four beacons.

For a lab made from scenes/beacons.vlab: four beacons on coloured posts near the
yard's corners, whose positions the program knows (BEACONS, ground coordinates: x
along the lab's X axis, y along -Z). Its LandmarkSensor sees all around, 15 m far, and
reads each beacon's id, distance and bearing (counter-clockwise from the robot's
forward axis), with noise on each, ten times a second.

Every beacon seen says where the robot is: the beacon stands `distance` away in the
direction heading + bearing, so the robot is that far back from it. The program takes
the mean of those fixes (more beacons, less noise), publishes it as its estimate (pick
the robot and check Beliefs to see it), and drives to GOAL by it, stopping within
ARRIVED of it. It never asks where it really is.

Try: a GOAL elsewhere; fewer beacons (use only those with ids in "AB"); trilateration
from distances alone, without the compass (three circles meet in one point); or
averaging the fixes over time, and compare the estimate's error plot.
"""
import math

from vlab import Robot

BEACONS = {"A": (1.0, -1.0), "B": (11.0, -1.0), "C": (11.0, -11.0), "D": (1.0, -11.0)}
GOAL = (6.0, -6.0)      # ground coordinates, metres
ARRIVED = 0.1           # metres: close enough
SPEED = 0.15            # metres per second
TURN_GAIN = 2.0         # turn rate per radian of heading error

robot = Robot()
beacons, compass, drive = robot.sensor("beacons"), robot.sensor("compass"), robot.actuator("drive")
estimate = None


def wrap(angle):
    return (angle + math.pi) % (2 * math.pi) - math.pi


def fix(landmarks, heading):
    """The mean of the positions each known beacon seen puts the robot at."""
    points = []
    for seen in landmarks:
        if seen.id not in BEACONS:
            continue
        bx, by = BEACONS[seen.id]
        ground = seen.distance * math.cos(seen.elevation)     # along the floor
        direction = heading + seen.bearing
        points.append((bx - ground * math.cos(direction), by - ground * math.sin(direction)))
    if not points:
        return None
    return (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))


while robot.step():
    heading = compass.value()
    position = fix(beacons.landmarks(), heading)
    if position is not None:
        estimate = position
        robot.publish_estimate(position[0], position[1], heading)
    if estimate is None:
        drive.set(0.0, 0.0)
        continue
    dx, dy = GOAL[0] - estimate[0], GOAL[1] - estimate[1]
    if math.hypot(dx, dy) < ARRIVED:
        drive.set(0.0, 0.0)
        continue
    error = wrap(math.atan2(dy, dx) - heading)
    drive.set(SPEED if abs(error) < 0.5 else 0.0, TURN_GAIN * error)
