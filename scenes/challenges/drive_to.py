# drive_to.py: steering to points of the lab, for the reference solutions of the
# challenges (park.py, corridor.py, push.py). Where the robot is comes from its GPS,
# which way it faces from its compass; both are the lab's, in world coordinates (x
# east, z south; headings counter-clockwise from +x, seen from above).

import math

MAX_SPEED = 0.25    # metres per second
GAIN = 2.5          # turn rate per radian of heading error
MAX_TURN = 1.5      # radians per second


def angle_difference(a, b):
    """a - b, wrapped into -pi..pi."""
    return math.atan2(math.sin(a - b), math.cos(a - b))


def heading_to(x, z, tx, tz):
    """The heading from (x, z) towards (tx, tz)."""
    return math.atan2(-(tz - z), tx - x)


def steer(drive, heading, want, speed):
    """Turn towards heading `want`; drive at `speed` only once roughly facing it."""
    error = angle_difference(want, heading)
    turn = max(-MAX_TURN, min(MAX_TURN, GAIN * error))
    forward = speed if abs(error) < 0.4 else 0.0
    drive.set(forward, turn)


class Pose:
    """The robot's place and heading from its GPS and compass (None before both read)."""

    def __init__(self, robot):
        self.gps = robot.sensor("gps")
        self.compass = robot.sensor("compass")

    def read(self):
        at, heading = self.gps.value(), self.compass.value()
        if at is None or heading is None:
            return None
        x, _, z = at
        return x, z, heading
