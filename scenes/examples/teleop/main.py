# Keyboard teleop: drive the robot by hand from the browser.
#
# Select your robot in the page and hold a key:
#   I  forward        K  backward
#   J  turn left      L  turn right
# Keys combine: I and J together drive a curve to the left. Let go and it stops.

from vlab import Robot

SPEED = 0.2       # forward speed, metres per second
TURN_RATE = 1.5   # turning speed, radians per second (counter-clockwise is left)

robot = Robot()
keyboard = robot.sensor("kbd")
drive = robot.actuator("drive")    # the DiffDrive: set(forward speed, turn rate)

last = None
while robot.step():                 # once per control step (50 times a second)
    # value("I") is 1 while the key is held, else 0.
    forward = keyboard.value("I") - keyboard.value("K")
    left = keyboard.value("J") - keyboard.value("L")
    v = SPEED * forward
    omega = TURN_RATE * left
    drive.set(v, omega)

    # Say what it does, only when that changes (the console stays readable).
    if (v, omega) != last:
        robot.log(f"t={robot.time():.2f} s: v={v:.2f} m/s, omega={omega:.2f} rad/s")
        last = (v, omega)
