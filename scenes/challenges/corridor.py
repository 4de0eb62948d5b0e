# corridor.py: a reference solution of corridor_challenge.vlab. The robot keeps to the
# corridor's middle line (z = 2), aiming at a point 0.5 m ahead on it, and stops in the
# finish zone.

from vlab import Robot

from drive_to import Pose, heading_to, steer

MIDDLE_Z = 2.0
FINISH_X = 9.4
LOOK_AHEAD = 0.5

robot = Robot()
pose = Pose(robot)
drive = robot.actuator("drive")
while robot.step():
    now = pose.read()
    if now is None:
        continue
    x, z, heading = now
    if x >= FINISH_X:
        drive.set(0.0, 0.0)
        continue
    steer(drive, heading, heading_to(x, z, x + LOOK_AHEAD, MIDDLE_Z), 0.3)
