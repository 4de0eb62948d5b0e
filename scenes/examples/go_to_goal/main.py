# Go to a goal by dead reckoning: the robot works out where it is from how far its
# wheels rolled (the odometry "odom", from the wheel encoders) and which way it faces
# (the compass), steers towards a point, and stops there.
#
# Why the compass? Odometry's own heading comes from the difference between the two
# wheels, and every slip of a wheel while turning bends it a little for good. The
# distance rolled is much less affected. Set USE_COMPASS = False to steer by odometry
# alone, and compare where it stops with where it really is (the robot's true pose).
#
# The goal is given relative to where the robot starts: GOAL_AHEAD metres ahead and
# GOAL_LEFT metres to its left. Try other goals, or a bigger GAIN, and watch the path.

import math

from vlab import Robot

GOAL_AHEAD = 2.0    # metres ahead of the start
GOAL_LEFT = 1.0     # metres to the left of the start (negative: to the right)
TOLERANCE = 0.03    # stop when our estimate is this close, metres
MAX_SPEED = 0.15    # metres per second
GAIN = 1.5          # how hard to turn towards the goal: omega = GAIN * heading error
MAX_TURN = 0.6      # radians per second
USE_COMPASS = True  # heading from the compass (True) or from the odometry (False)


def angle_difference(a, b):
    """a - b, wrapped into -pi..pi (so -170 degrees and +190 degrees are the same)."""
    return math.atan2(math.sin(a - b), math.cos(a - b))


robot = Robot()
odometry = robot.sensor("odom")    # (x, y, theta): position on the ground, heading
compass = robot.sensor("compass")  # heading, radians, counter-clockwise from +x
drive = robot.actuator("drive")    # set(forward speed, turn rate)

goal = None
reached = False
while robot.step():
    pose = odometry.value()
    if pose is None:                # no reading yet (the first few steps)
        continue
    odom_x, odom_y, odom_theta = pose

    if goal is None:
        # The first reading is the start. Our estimate (x, y) begins there; "ahead"
        # and "left" become a point of the odometry's frame (x and y on the ground,
        # y to the left of +x).
        x, y, last = odom_x, odom_y, (odom_x, odom_y)
        goal = (x + GOAL_AHEAD * math.cos(odom_theta) - GOAL_LEFT * math.sin(odom_theta),
                y + GOAL_AHEAD * math.sin(odom_theta) + GOAL_LEFT * math.cos(odom_theta))
        robot.log(f"start ({x:.2f}, {y:.2f}), goal ({goal[0]:.2f}, {goal[1]:.2f})")

    if USE_COMPASS:
        # How far the wheels rolled since the last step (odometry), in the direction
        # the compass gives.
        theta = compass.value()
        step = math.hypot(odom_x - last[0], odom_y - last[1])
        moved_forward = math.cos(math.atan2(odom_y - last[1], odom_x - last[0]) - odom_theta) >= 0
        if not moved_forward:
            step = -step
        x += step * math.cos(theta)
        y += step * math.sin(theta)
        last = (odom_x, odom_y)
    else:
        x, y, theta = odom_x, odom_y, odom_theta

    dx, dy = goal[0] - x, goal[1] - y
    distance = math.hypot(dx, dy)
    if distance < TOLERANCE:
        drive.set(0.0, 0.0)
        if not reached:
            robot.log(f"reached the goal at t={robot.time():.2f} s: we think we are at ({x:.3f}, {y:.3f})")
            reached = True
        continue

    # Facing away from the goal: turn on the spot towards it. Facing it: drive,
    # steering a little, and slow down close to it so as not to overshoot.
    error = angle_difference(math.atan2(dy, dx), theta)
    omega = max(-MAX_TURN, min(MAX_TURN, GAIN * error))
    if abs(error) > 0.2 and distance > 0.1:
        v = 0.0
    else:
        v = min(MAX_SPEED, 0.5 * distance) * max(0.0, math.cos(error))
    drive.set(v, omega)
