# Back and forth: the original VLAB tank program. The tank drives along x between two
# limits and reverses at each; it also reverses when its owner presses I.
# It logs its GPS position twice a second.
#
# The limits are set around where it starts (HALF_SPAN metres each way), so it works
# wherever it is placed; it needs 2 * HALF_SPAN + 1.5 metres of free floor along x.
# Try another speed or span, or a key that stops it.

from vlab import Robot

HALF_SPAN = 1.5     # the limits: start x - HALF_SPAN and start x + HALF_SPAN, metres
SPEED = 2.0         # wheel speed, radians per second (wheel radius 0.2 m: 0.4 m/s)

robot = Robot()
gps = robot.sensor("gps")
keyboard = robot.sensor("kbd")
left_motor = robot.actuator("motor_0")
right_motor = robot.actuator("motor_2")

direction = 1       # +1 forward (towards +x), -1 backward
low = high = None   # the two x limits, set at the first GPS reading
was_pressed = False
next_log = 0.0      # sim time of the next GPS line, seconds
while robot.step():
    position = gps.value()
    if position is None:
        continue
    x, y, z = position
    if low is None:
        low, high = x - HALF_SPAN, x + HALF_SPAN
        robot.log(f"driving between x = {low:.2f} and x = {high:.2f}")

    # I reverses, once per press (not on every step while it is held).
    pressed = keyboard.value("I") == 1
    if pressed and not was_pressed:
        direction = -direction
        robot.log(f"I pressed: reversing at x = {x:.2f}")
    was_pressed = pressed

    # At a limit, turn back (only if still heading past it).
    if (direction > 0 and x > high) or (direction < 0 and x < low):
        direction = -direction
        robot.log(f"limit reached: reversing at x = {x:.2f}")

    if robot.time() >= next_log:         # twice a second of simulation time
        robot.log(f"GPS: {x:.2f} {y:.2f} {z:.2f}")
        next_log += 0.5

    left_motor.set_speed(direction * SPEED)
    right_motor.set_speed(direction * SPEED)
