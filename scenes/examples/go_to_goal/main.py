# Go to a goal using odometry: the robot works out where it is from its wheel
# encoders (the "odom" sensor) and steers towards a point, then stops there.
#
# The goal is given relative to where the robot starts: GOAL_AHEAD metres ahead and
# GOAL_LEFT metres to its left. Try other goals, or a bigger GAIN, and watch the path.

import math

from vlab import Robot

GOAL_AHEAD = 2.0    # metres ahead of the start
GOAL_LEFT = 1.0     # metres to the left of the start (negative: to the right)
TOLERANCE = 0.03    # stop when the odometry says we are this close, metres
MAX_SPEED = 0.15    # metres per second
GAIN = 2.0          # how hard to turn towards the goal: omega = GAIN * heading error


def angle_difference(a, b):
    """a - b, wrapped into -pi..pi (so -170 degrees and +190 degrees are the same)."""
    return math.atan2(math.sin(a - b), math.cos(a - b))


robot = Robot()
odometry = robot.sensor("odom")    # (x, y, theta): position on the ground, heading
drive = robot.actuator("drive")    # set(forward speed, turn rate)

goal = None
reached = False
while robot.step():
    pose = odometry.value()
    if pose is None:                # no reading yet (the first few steps)
        continue
    x, y, theta = pose

    if goal is None:
        # The first reading is the start: turn "ahead" and "left" into a point of
        # the odometry frame (its x and y are on the ground, y to the left of +x).
        goal = (x + GOAL_AHEAD * math.cos(theta) - GOAL_LEFT * math.sin(theta),
                y + GOAL_AHEAD * math.sin(theta) + GOAL_LEFT * math.cos(theta))
        robot.log(f"start ({x:.2f}, {y:.2f}), goal ({goal[0]:.2f}, {goal[1]:.2f})")

    dx, dy = goal[0] - x, goal[1] - y
    distance = math.hypot(dx, dy)
    if distance < TOLERANCE:
        drive.set(0.0, 0.0)
        if not reached:
            robot.log(f"reached the goal at t={robot.time():.2f} s: odometry ({x:.3f}, {y:.3f})")
            reached = True
        continue

    # Turn towards the goal; drive forward only when roughly facing it, and slow
    # down close to it so as not to overshoot.
    error = angle_difference(math.atan2(dy, dx), theta)
    omega = max(-1.5, min(1.5, GAIN * error))
    v = min(MAX_SPEED, 0.5 * distance) * max(0.0, math.cos(error))
    drive.set(v, omega)
