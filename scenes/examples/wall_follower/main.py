# Wall follower with the lidar: drive ahead until a wall is found, then keep it on
# the robot's right at TARGET metres and follow it, turning left at inside corners.
#
# It needs walls: the fence of the lab's yard will do. Try another TARGET, or change
# GAIN and ANGLE_GAIN and see when it wobbles or cuts corners.

import math

from vlab import Robot

TARGET = 0.4        # distance to keep from the wall, metres (from the lidar's centre)
SPEED = 0.15        # forward speed along the wall, metres per second
GAIN = 3.0          # turn per metre of distance error
ANGLE_GAIN = 1.5    # turn per radian the wall is not parallel
FRONT_CLEAR = 0.55  # a wall closer than this ahead: turn left on the spot
LOST = 1.2          # no wall closer than this on the right: look for one

robot = Robot()
lidar = robot.sensor("lidar")
drive = robot.actuator("drive")

state = ""
while robot.step():
    ranges = lidar.ranges()
    if not ranges:                  # no scan yet
        continue
    angles = lidar.angles()         # radians: -pi/2 is the robot's right, 0 ahead

    # The closest point ahead (within 25 degrees of straight on) ...
    ahead = min(r for r, a in zip(ranges, angles) if abs(a) < math.radians(25))
    # ... and the closest point on the right side. Its angle says how the wall runs:
    # -90 degrees when the robot is parallel to it.
    right = [(r, a) for r, a in zip(ranges, angles) if a < math.radians(-10)]
    wall, wall_angle = min(right)

    if ahead < FRONT_CLEAR:
        new_state = "corner: turning left"
        v, omega = 0.0, 1.0
    elif wall > LOST:
        new_state = "looking for a wall: straight ahead"
        v, omega = SPEED, 0.0
    else:
        new_state = "following the wall"
        # Too far (wall > TARGET): turn right (negative omega). Wall angled towards
        # the front (wall_angle above -90 degrees): turn left.
        omega = -GAIN * (wall - TARGET) + ANGLE_GAIN * (wall_angle + math.pi / 2)
        omega = max(-1.0, min(1.0, omega))
        v = SPEED

    drive.set(v, omega)
    if new_state != state:
        robot.log(f"t={robot.time():.1f} s: {new_state} (wall {wall:.2f} m, ahead {ahead:.2f} m)")
        state = new_state
