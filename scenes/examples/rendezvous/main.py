"""Rendezvous by radio: robots that tell each other where they are meet half-way.

Add two (or more) of these robots a few metres apart (within the radios' 10 m). Each
one, at every control step, sends where it is (its GPS position on the ground, as
JSON) on its radio, and keeps the latest position it heard from every other robot.
Its meeting point is the mean of everybody's positions, its own included; it turns
towards it and drives there, and stops when it is within STOP_RADIUS of it. Since all
of them compute the same point from the same messages, they meet there without any
robot being in charge.

A message sent at one control step is heard at the next, so each robot steers by
where the others were one control step (20 ms) ago: close enough. Try: a third robot;
a smaller `range` in robot.vlab, so robots out of range never hear each other and stay
where they are; or send the heading too, and meet facing the same way.
"""
import json
import math

from vlab import Robot

STOP_RADIUS = 0.2       # metres from the meeting point: close enough
SPEED = 0.15            # metres per second
TURN_GAIN = 2.0         # turn rate per radian of heading error

robot = Robot()
gps, compass, drive = robot.sensor("gps"), robot.sensor("compass"), robot.actuator("drive")
heard = {}              # the latest position of every other robot: name -> (x, y)


def wrap(angle):
    return (angle + math.pi) % (2 * math.pi) - math.pi


while robot.step():
    x, _, z = gps.value()
    me = (x, -z)        # the ground's (x, y): y along -Z, as the compass's headings
    robot.send(json.dumps([round(me[0], 3), round(me[1], 3)]))
    for message in robot.receive():
        heard[message.sender] = tuple(json.loads(message.text))
    if not heard:
        drive.set(0.0, 0.0)
        continue
    points = list(heard.values()) + [me]
    goal = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
    dx, dy = goal[0] - me[0], goal[1] - me[1]
    if math.hypot(dx, dy) < STOP_RADIUS:
        drive.set(0.0, 0.0)
        continue
    error = wrap(math.atan2(dy, dx) - compass.value())
    drive.set(SPEED if abs(error) < 0.5 else 0.0, TURN_GAIN * error)
