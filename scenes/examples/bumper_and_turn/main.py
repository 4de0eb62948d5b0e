# Bumper and turn: drive straight until the front bumper touches something, back up,
# turn away by about TURN radians (measured with the compass), and drive on.
# A bumper can miss (a glancing hit, something low or thin): when the GPS says the
# robot has not moved for STUCK_TIME while driving forward, it is stuck, and that
# counts as a bump too, so it is never pinned.
#
# It needs something to bump into: a wall, a fence, a crate. Try a bigger TURN, or
# turning the other way every second time, and watch it explore the room.

import math
import time

from vlab import Robot

SPEED = 0.15        # forward speed, metres per second
BACK_SPEED = 0.1    # backing speed, metres per second
BACK_TIME = 1.5     # how long to back up, seconds (of the lab's time)
TURN = 2.0          # how far to turn after a bump, radians (2.0 is about 115 degrees)
TURN_RATE = 1.5     # radians per second, counter-clockwise (to the left)
TURN_TIME_MAX = 4.0 # give up turning after this long (something in the way)
STUCK_TIME = 1.0    # seconds driving forward ...
STUCK_DISTANCE = 0.05  # ... moving less than this (a third of SPEED): stuck


def angle_difference(a, b):
    """a - b, wrapped into -pi..pi."""
    return math.atan2(math.sin(a - b), math.cos(a - b))


robot = Robot()
bumper = robot.sensor("bump")       # 1 while the bumper touches anything, else 0
compass = robot.sensor("compass")   # heading, radians, counter-clockwise from +X
gps = robot.sensor("gps")           # position (x, y, z), metres
drive = robot.actuator("drive")

state = "forward"
since = 0.0          # when the current state began, sim seconds
turned = 0.0         # how far it has turned so far, radians
last_heading = 0.0
bumps = 0
mark = None          # where it was when the stuck check began: (time, x, z)
while robot.step():
    now = robot.time()
    heading = compass.value() or 0.0
    x, _, z = gps.value() or (0.0, 0.0, 0.0)

    if state == "forward":
        drive.set(SPEED, 0.0)
        if mark is None:
            mark = (now, x, z)
        stuck = False
        if now - mark[0] >= STUCK_TIME:
            stuck = math.hypot(x - mark[1], z - mark[2]) < STUCK_DISTANCE
            mark = (now, x, z)
        if bumper.value() == 1 or stuck:
            bumps += 1
            what = "bump" if bumper.value() == 1 else "stuck (the bumper felt nothing)"
            robot.log(f"t={now:.1f} s: {what}, {bumps} so far: backing up")
            drive.set(-BACK_SPEED, 0.0)
            time.sleep(BACK_TIME)   # keeps backing up for BACK_TIME seconds, then goes on
            heading = compass.value() or 0.0
            state, since, turned, mark = "turn", robot.time(), 0.0, None
    elif state == "turn":
        drive.set(0.0, TURN_RATE)
        # Add up the small heading changes between steps (the compass jumps from
        # +pi to -pi when the robot faces -X; the difference does not).
        turned += abs(angle_difference(heading, last_heading))
        if turned >= TURN or now - since >= TURN_TIME_MAX:
            robot.log(f"t={now:.1f} s: turned {turned:.2f} rad, driving on")
            state, since = "forward", now
    last_heading = heading
